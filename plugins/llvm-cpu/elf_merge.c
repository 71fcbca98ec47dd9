/*
 * elf_merge.c - joins the relocatable objects of a module's parts into one
 * relocatable object, so that the parts can go through instruction
 * selection and emission in parallel (codegen.c) while a blob stays one
 * object for the loader, the shared-object link and the package format.
 *
 * It does what `ld -r` does for these objects, minus merging sections:
 *
 *   - every section of every part is kept as a section of its own, in
 *     part order (a part's .text, .rodata, ... follow the previous part's),
 *     except the parts' symbol and string tables, which are rebuilt: one
 *     .strtab (section and symbol names) and one .symtab;
 *   - local symbols keep their part (renumbered, their sections remapped),
 *     and come first, part by part;
 *   - global symbols are joined by name in order of first appearance: a
 *     part's undefined reference to a name another part defines (the
 *     module globals part 0 defines and the others declare) becomes a
 *     reference to that definition; a name defined twice is refused;
 *   - relocation sections keep their entries with the symbol and section
 *     indices renumbered;
 *   - a part compiled under the canonical name (codegen.c compiles every
 *     function alone in a part under one fixed name, so that the same
 *     function compiles to the same bytes whatever it is called, and the
 *     compiled-code cache finds it) gets its function's name back: a
 *     symbol named canon becomes the part's name, canon.suffix becomes
 *     name.suffix.
 *
 * The result depends only on the parts' bytes and their order, never on
 * the threads that made them.  Inputs come from LLVM in this process, but
 * each is validated with lc_check_elf first, so nothing here reads out of
 * bounds on a surprise; the result is validated again when loaded.  No
 * LLVM headers, so the tests can link this file on its own.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_check.h"
#include "elf_merge.h"
#include "tvm/base.h"

/* Sections of the output before the parts' own: NULL, names, symbols. */
enum { OUT_STRTAB = 1, OUT_SYMTAB = 2, OUT_FIRST = 3 };

/* A growable byte buffer; oom is sticky. */
typedef struct {
  uint8_t *d;
  size_t len, cap;
  int oom;
} mbuf;

/* Appends n bytes (zeros when p is NULL); returns their offset. */
static size_t put(mbuf *b, const void *p, size_t n) {
  size_t at = b->len;
  if (b->oom) return at;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    uint8_t *nd = realloc(b->d, cap);
    if (!nd) {
      b->oom = 1;
      return at;
    }
    b->d = nd;
    b->cap = cap;
  }
  if (p)
    memcpy(b->d + b->len, p, n);
  else
    memset(b->d + b->len, 0, n);
  b->len += n;
  return at;
}

/* Pads b with zeros to a multiple of align (a power of two or 0). */
static void pad(mbuf *b, uint64_t align) {
  if (align > 1 && b->len % align) put(b, NULL, align - b->len % align);
}

/* One input object, read in place (8-byte aligned, validated). */
typedef struct {
  const uint8_t *d;
  const Elf64_Ehdr *eh;
  const Elf64_Shdr *sh;
  const Elf64_Sym *syms;
  uint64_t nsym;
  unsigned symsec, symstr; /* its symbol table and that table's names */
  uint32_t *secmap;        /* input section -> output section (0: none) */
  uint32_t *symmap;        /* input symbol -> output symbol */
  const char *canon;       /* names renamed to `rename` (NULL: none) */
  const char *rename;
} part;

/* Is input section i of p rebuilt rather than copied? */
static int rebuilt(const part *p, unsigned i) {
  return i == 0 || i == p->symsec || i == p->symstr ||
         i == p->eh->e_shstrndx;
}

/* Reads part bytes d (n) into p: the headers and the one symbol table. */
static int32_t open_part(part *p, const uint8_t *d, uint64_t n, int k) {
  int32_t st = lc_check_elf(d, n, 0);
  if (st != TVM_OK) return st;
  p->d = d;
  p->eh = (const Elf64_Ehdr *)d;
  p->sh = (const Elf64_Shdr *)(d + p->eh->e_shoff);
  for (unsigned i = 1; i < p->eh->e_shnum; i++) {
    uint32_t t = p->sh[i].sh_type;
    if (t == SHT_SYMTAB) {
      p->symsec = i;
      p->symstr = p->sh[i].sh_link;
    } else if (t == SHT_SYMTAB_SHNDX || t == SHT_GROUP ||
               t == 0x6fff4c03 /* SHT_LLVM_ADDRSIG */) {
      return lc_report(TVM_ERR_INTERNAL,
                       "llvm-cpu: part %d's object has a section of type "
                       "0x%x, which joining parts does not handle (a bug in "
                       "the plugin)", k, t);
    }
  }
  if (p->symsec) {
    p->syms = (const Elf64_Sym *)(d + p->sh[p->symsec].sh_offset);
    p->nsym = p->sh[p->symsec].sh_size / sizeof(Elf64_Sym);
  }
  p->secmap = calloc(p->eh->e_shnum, sizeof *p->secmap);
  p->symmap = calloc(p->nsym ? p->nsym : 1, sizeof *p->symmap);
  if (!p->secmap || !p->symmap)
    return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  return TVM_OK;
}

/* The name of input symbol s of p. */
static const char *sym_name(const part *p, const Elf64_Sym *s) {
  return (const char *)p->d + p->sh[p->symstr].sh_offset + s->st_name;
}

/* The output name of symbol s of p: its own, or with p's canonical name
 * (the whole name, or the part before a '.') replaced by p's rename, in
 * a heap string kept in *names (freed by the caller); NULL when out of
 * memory. */
static const char *out_name(const part *p, const Elf64_Sym *s,
                            tvm_ptrvec *names) {
  const char *nm = sym_name(p, s);
  size_t nc = p->canon ? strlen(p->canon) : 0;
  if (!p->canon || !p->rename || strncmp(nm, p->canon, nc) != 0 ||
      (nm[nc] != '\0' && nm[nc] != '.'))
    return nm;
  size_t nr = strlen(p->rename), rest = strlen(nm + nc);
  char *o = malloc(nr + rest + 1);
  if (!o || tvm_ptrvec_push(names, o) != TVM_OK) {
    free(o);
    return NULL;
  }
  memcpy(o, p->rename, nr);
  memcpy(o + nr, nm + nc, rest + 1);
  return o;
}

/* A symbol with its section index moved to the output's numbering. */
static Elf64_Sym moved(const part *p, const Elf64_Sym *s, uint32_t name) {
  Elf64_Sym o = *s;
  o.st_name = name;
  if (s->st_shndx != SHN_UNDEF && s->st_shndx < SHN_LORESERVE)
    o.st_shndx = (Elf64_Section)p->secmap[s->st_shndx];
  return o;
}

/* Adds string s to the string table; returns its offset. */
static uint32_t add_str(mbuf *str, const char *s) {
  return (uint32_t)put(str, s, strlen(s) + 1);
}

/* Builds the output symbol table (locals part by part, then the globals
 * joined by name) into sym, its names into str; fills each symmap. */
static int32_t join_symbols(part *ps, int n, mbuf *sym, mbuf *str,
                            uint32_t *nlocal) {
  tvm_strmap globals = {0}; /* name -> output index + 1 */
  tvm_ptrvec names = {0};   /* renamed names (the map's keys among them) */
  int32_t st = TVM_OK;
  put(sym, NULL, sizeof(Elf64_Sym));
  for (int k = 0; k < n && st == TVM_OK; k++) {
    part *p = &ps[k];
    uint64_t first_global = p->symsec ? p->sh[p->symsec].sh_info : 0;
    for (uint64_t i = 1; i < first_global && i < p->nsym; i++) {
      const Elf64_Sym *s = &p->syms[i];
      if (s->st_shndx != SHN_UNDEF && s->st_shndx < SHN_LORESERVE &&
          !p->secmap[s->st_shndx])
        continue; /* a symbol of a rebuilt section (none in practice) */
      const char *nm = s->st_name ? out_name(p, s, &names) : "";
      if (!nm) {
        st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
        break;
      }
      Elf64_Sym o = moved(p, s, s->st_name ? add_str(str, nm) : 0);
      p->symmap[i] = (uint32_t)(sym->len / sizeof o);
      put(sym, &o, sizeof o);
    }
  }
  *nlocal = (uint32_t)(sym->len / sizeof(Elf64_Sym));
  for (int k = 0; k < n && st == TVM_OK; k++) {
    part *p = &ps[k];
    uint64_t first_global = p->symsec ? p->sh[p->symsec].sh_info : 0;
    for (uint64_t i = first_global; i < p->nsym && st == TVM_OK; i++) {
      const Elf64_Sym *s = &p->syms[i];
      const char *nm = out_name(p, s, &names);
      if (!nm) {
        st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
        break;
      }
      uintptr_t at = (uintptr_t)tvm_strmap_get(&globals, nm);
      if (sym->oom) break;
      if (!at) { /* first appearance */
        Elf64_Sym o = moved(p, s, add_str(str, nm));
        at = sym->len / sizeof o + 1;
        put(sym, &o, sizeof o);
        if (tvm_strmap_put(&globals, nm, (void *)at) != TVM_OK)
          st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
      } else if (s->st_shndx != SHN_UNDEF) {
        Elf64_Sym *o = (Elf64_Sym *)(sym->d + (at - 1) * sizeof *o);
        if (o->st_shndx != SHN_UNDEF)
          st = lc_report(TVM_ERR_INTERNAL,
                         "llvm-cpu: parts of the module both define '%s' "
                         "(a bug in the plugin)", nm);
        else /* the definition replaces an earlier reference */
          *o = moved(p, s, o->st_name);
      }
      p->symmap[i] = (uint32_t)(at - 1);
    }
  }
  tvm_strmap_free(&globals);
  for (size_t i = 0; i < names.len; i++) free(names.data[i]);
  tvm_ptrvec_free(&names);
  if (st == TVM_OK && (sym->oom || str->oom))
    st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  return st;
}

/* Copies p's relocation section i into out, its symbol indices mapped. */
static void copy_rela(const part *p, unsigned i, mbuf *out) {
  const Elf64_Shdr *s = &p->sh[i];
  uint64_t nrel = s->sh_size / sizeof(Elf64_Rela);
  for (uint64_t r = 0; r < nrel; r++) {
    Elf64_Rela e;
    memcpy(&e, p->d + s->sh_offset + r * sizeof e, sizeof e);
    uint64_t sym = ELF64_R_SYM(e.r_info);
    e.r_info = ELF64_R_INFO(sym ? p->symmap[sym] : 0,
                            ELF64_R_TYPE(e.r_info));
    put(out, &e, sizeof e);
  }
}

/* Joins the parts; see the file comment. */
static int32_t merge(part *ps, int n, uint8_t **out, uint64_t *out_size) {
  /* number the output sections */
  uint32_t nsec = OUT_FIRST;
  for (int k = 0; k < n; k++)
    for (unsigned i = 0; i < ps[k].eh->e_shnum; i++)
      if (!rebuilt(&ps[k], i)) ps[k].secmap[i] = nsec++;
  if (nsec >= SHN_LORESERVE)
    return lc_report(TVM_ERR_INTERNAL,
                     "llvm-cpu: the parts have %u sections together, more "
                     "than one object holds", nsec);
  mbuf str = {0}, sym = {0}, o = {0};
  Elf64_Shdr *sh = calloc(nsec, sizeof *sh);
  if (!sh) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  put(&str, "", 1);
  sh[OUT_STRTAB].sh_name = add_str(&str, ".strtab");
  sh[OUT_SYMTAB].sh_name = add_str(&str, ".symtab");
  uint32_t nlocal = 0;
  int32_t st = join_symbols(ps, n, &sym, &str, &nlocal);

  /* the ELF header, then each section's bytes at its alignment */
  put(&o, NULL, sizeof(Elf64_Ehdr));
  for (int k = 0; k < n && st == TVM_OK; k++) {
    const part *p = &ps[k];
    const char *names = (const char *)p->d + p->sh[p->eh->e_shstrndx].sh_offset;
    for (unsigned i = 0; i < p->eh->e_shnum; i++) {
      if (!p->secmap[i]) continue;
      const Elf64_Shdr *s = &p->sh[i];
      Elf64_Shdr *t = &sh[p->secmap[i]];
      *t = *s;
      t->sh_name = add_str(&str, names + s->sh_name);
      if (s->sh_type == SHT_RELA) {
        t->sh_link = OUT_SYMTAB;
        t->sh_info = p->secmap[s->sh_info];
      } else if (s->sh_flags & SHF_LINK_ORDER) {
        t->sh_link = s->sh_link < p->eh->e_shnum ? p->secmap[s->sh_link] : 0;
      }
      pad(&o, s->sh_addralign);
      t->sh_offset = o.len;
      if (s->sh_type == SHT_RELA)
        copy_rela(p, i, &o);
      else if (s->sh_type != SHT_NOBITS)
        put(&o, p->d + s->sh_offset, s->sh_size);
    }
  }
  pad(&o, 8);
  sh[OUT_SYMTAB] = (Elf64_Shdr){.sh_name = sh[OUT_SYMTAB].sh_name,
                                .sh_type = SHT_SYMTAB,
                                .sh_offset = o.len,
                                .sh_size = sym.len,
                                .sh_link = OUT_STRTAB,
                                .sh_info = nlocal,
                                .sh_addralign = 8,
                                .sh_entsize = sizeof(Elf64_Sym)};
  put(&o, sym.d, sym.len);
  sh[OUT_STRTAB] = (Elf64_Shdr){.sh_name = sh[OUT_STRTAB].sh_name,
                                .sh_type = SHT_STRTAB,
                                .sh_offset = o.len,
                                .sh_size = str.len,
                                .sh_addralign = 1};
  put(&o, str.d, str.len);
  pad(&o, 8);
  size_t shoff = put(&o, sh, (size_t)nsec * sizeof *sh);
  if (st == TVM_OK && (o.oom || str.oom))
    st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  if (st == TVM_OK) {
    Elf64_Ehdr eh = *ps[0].eh;
    eh.e_shoff = shoff;
    eh.e_shnum = (Elf64_Half)nsec;
    eh.e_shstrndx = OUT_STRTAB;
    memcpy(o.d, &eh, sizeof eh);
    *out = o.d;
    *out_size = o.len;
    o.d = NULL;
  }
  free(o.d);
  free(sym.d);
  free(str.d);
  free(sh);
  return st;
}

/* Joins the n relocatable objects objs[k] (sizes[k] bytes) into one;
 * *out (malloc'd) and *out_size receive it. */
int32_t lc_elf_merge(const uint8_t *const *objs, const uint64_t *sizes, int n,
                     const char *canon, const char *const *renames,
                     uint8_t **out, uint64_t *out_size) {
  *out = NULL;
  *out_size = 0;
  if (n < 1)
    return lc_report(TVM_ERR_INVALID, "llvm-cpu: no objects to join");
  part *ps = calloc((size_t)n, sizeof *ps);
  uint8_t **copies = calloc((size_t)n, sizeof *copies);
  int32_t st = ps && copies ? TVM_OK
                            : lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  for (int k = 0; k < n && st == TVM_OK; k++) {
    const uint8_t *d = objs[k];
    if ((uintptr_t)d % 8) { /* headers are read in place */
      if (!(copies[k] = malloc(sizes[k] ? sizes[k] : 1))) {
        st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
        break;
      }
      memcpy(copies[k], d, sizes[k]);
      d = copies[k];
    }
    st = open_part(&ps[k], d, sizes[k], k);
    ps[k].canon = canon;
    ps[k].rename = renames ? renames[k] : NULL;
  }
  if (st == TVM_OK) st = merge(ps, n, out, out_size);
  for (int k = 0; ps && k < n; k++) {
    free(ps[k].secmap);
    free(ps[k].symmap);
    if (copies) free(copies[k]);
  }
  free(ps);
  free(copies);
  return st;
}
