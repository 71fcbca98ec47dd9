/*
 * elf_check_shared.c - validation of an `output: shared` kernel before
 * module.c hands it to glibc's dlopen.  dlopen is not built to resist
 * malformed files and runs code at load, so everything it acts on is
 * checked first against the file and against what llvm-cpu's own link
 * (link.c: cc -shared -nostdlib) produces:
 *   - program headers: loadable segments inside the file, page-aligned,
 *     in ascending non-overlapping order, none writable and executable;
 *     one PT_DYNAMIC and every other segment dlopen reads (notes, RELRO,
 *     unwind header) inside a loaded segment; no PT_INTERP, PT_TLS,
 *     PT_PHDR or executable stack;
 *   - the dynamic section: every tag one of a known set; no code run at
 *     load (DT_INIT, DT_FINI, non-empty init/fini/preinit arrays), no
 *     search paths (DT_RPATH, DT_RUNPATH), no DT_SONAME, no symbol
 *     versions, no text relocations, DT_NEEDED only libc.so.6/libm.so.6;
 *     the string, symbol, hash and relocation tables inside loaded bytes;
 *   - the hash tables dlsym walks (GNU and SysV): buckets and chains in
 *     range, SysV chains without cycles; they also give the symbol count;
 *   - the dynamic symbols: names inside the string table, no thread-local
 *     or indirect (IFUNC, which runs a resolver at load) symbols, defined
 *     ones inside a loaded segment, undefined ones only from the extern
 *     allow-list of the object loader (lc_extern_allowed, which includes
 *     $TVM_LLVM_CPU_EXTERNS);
 *   - the dynamic relocations: only R_X86_64_RELATIVE, 64, GLOB_DAT and
 *     JUMP_SLOT (and NONE), symbols in range, each patched word inside a
 *     writable segment.
 * Like elf_check.c this catches malformed files, not harmful machine code.
 */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_check.h"
#include "elf_load.h"
#include "tvm/base.h"

/* Most program headers / dynamic entries / symbols a kernel may have. */
#define MAX_PHDRS 64
#define MAX_SYMS ((uint64_t)1 << 20)

/* How every refusal ends: what to do about it. */
#define FIX                                                                 \
  " (llvm-cpu's own link, cc -shared -nostdlib, never produces this: "      \
  "rebuild the package with this tvmc, or use the default output: object)"

/* Fails naming the part of the shared object that is wrong. */
#define BAD(...)                                                            \
  refuse(TVM_ERR_INVALID, "llvm-cpu: the shared-object kernel is refused: " \
         __VA_ARGS__)

/* Reports fmt... followed by FIX. */
static int32_t refuse(int32_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int32_t refuse(int32_t st, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return lc_report(st, "%s%s", msg, FIX);
}

/* The file, its loadable segments and the dynamic tables found so far. */
typedef struct {
  const uint8_t *d;
  uint64_t n;
  Elf64_Phdr load[MAX_PHDRS];
  unsigned nload;
  const char *str; /* dynamic string table (validated NUL-terminated) */
  uint64_t strsz;
  uint64_t symoff, nsym; /* file offset of .dynsym, symbol count */
} so;

/* File offset of the virtual range [va, va + len) when it lies in the
 * file-backed part of one loadable segment (writable one when `w`);
 * UINT64_MAX when it does not. */
static uint64_t file_at(const so *s, uint64_t va, uint64_t len, int w) {
  for (unsigned i = 0; i < s->nload; i++) {
    const Elf64_Phdr *p = &s->load[i];
    if (va >= p->p_vaddr && va - p->p_vaddr <= p->p_filesz &&
        len <= p->p_filesz - (va - p->p_vaddr) && (!w || (p->p_flags & PF_W)))
      return p->p_offset + (va - p->p_vaddr);
  }
  return UINT64_MAX;
}

/* Does [va, va + len) lie in the memory of one loadable segment (a
 * writable one when `w`)? */
static int in_memory(const so *s, uint64_t va, uint64_t len, int w) {
  for (unsigned i = 0; i < s->nload; i++) {
    const Elf64_Phdr *p = &s->load[i];
    if (va >= p->p_vaddr && va - p->p_vaddr <= p->p_memsz &&
        len <= p->p_memsz - (va - p->p_vaddr) && (!w || (p->p_flags & PF_W)))
      return 1;
  }
  return 0;
}

/* The name of segment type t for messages. */
static const char *seg_name(uint32_t t) {
  switch (t) {
  case PT_INTERP: return "PT_INTERP (a program interpreter)";
  case PT_TLS: return "PT_TLS (thread-local storage)";
  case PT_PHDR: return "PT_PHDR";
  case PT_SHLIB: return "PT_SHLIB";
  default: return "of an unknown type";
  }
}

/* Checks the program headers; fills s->load and *dyn (PT_DYNAMIC). */
static int32_t check_phdrs(so *s, const Elf64_Ehdr *eh, Elf64_Phdr *dyn) {
  if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
      eh->e_phnum > MAX_PHDRS ||
      !lc_elf_in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr),
                      s->n))
    return BAD("its %u program headers of %u bytes lie outside the %llu-byte "
               "file", eh->e_phnum, eh->e_phentsize, (unsigned long long)s->n);
  Elf64_Phdr ph[MAX_PHDRS];
  memcpy(ph, s->d + eh->e_phoff, (size_t)eh->e_phnum * sizeof ph[0]);
  unsigned ndyn = 0;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    const Elf64_Phdr *p = &ph[i];
    if ((p->p_flags & PF_W) && (p->p_flags & PF_X))
      return BAD("program header %u is both writable and executable", i);
    switch (p->p_type) {
    case PT_LOAD:
      if (!lc_elf_in_file(p->p_offset, p->p_filesz, s->n))
        return BAD("program header %u (PT_LOAD, %llu bytes at %llu) lies "
                   "past the end of the %llu-byte file", i,
                   (unsigned long long)p->p_filesz,
                   (unsigned long long)p->p_offset, (unsigned long long)s->n);
      if (p->p_memsz < p->p_filesz || p->p_memsz > LC_ELF_MAX_BYTES ||
          p->p_vaddr > LC_ELF_MAX_BYTES)
        return BAD("program header %u (PT_LOAD) maps %llu bytes of memory at "
                   "%#llx for %llu bytes of file", i,
                   (unsigned long long)p->p_memsz,
                   (unsigned long long)p->p_vaddr,
                   (unsigned long long)p->p_filesz);
      if (!lc_elf_pow2_or_0(p->p_align) || p->p_align < 4096 ||
          p->p_align > ((uint64_t)1 << 21) ||
          (p->p_vaddr - p->p_offset) % p->p_align)
        return BAD("program header %u (PT_LOAD) has alignment %llu for "
                   "address %#llx at offset %#llx (a power of two from 4096 "
                   "to 2 MiB, address and offset congruent)", i,
                   (unsigned long long)p->p_align,
                   (unsigned long long)p->p_vaddr,
                   (unsigned long long)p->p_offset);
      if (s->nload > 0) {
        const Elf64_Phdr *q = &s->load[s->nload - 1];
        if (p->p_vaddr < q->p_vaddr + q->p_memsz)
          return BAD("program header %u (PT_LOAD at %#llx) overlaps or "
                     "precedes the segment before it (loadable segments "
                     "ascend without overlapping)", i,
                     (unsigned long long)p->p_vaddr);
      }
      s->load[s->nload++] = *p;
      break;
    case PT_DYNAMIC:
      if (++ndyn > 1) return BAD("program header %u is a second PT_DYNAMIC", i);
      *dyn = *p;
      break;
    case PT_NULL: case PT_NOTE: case PT_GNU_EH_FRAME: case PT_GNU_RELRO:
    case PT_GNU_PROPERTY:
      break;
    case PT_GNU_STACK:
      if (p->p_flags & PF_X)
        return BAD("program header %u (PT_GNU_STACK) asks for an executable "
                   "stack", i);
      break;
    default:
      return BAD("program header %u is %s (type %#x), which llvm-cpu's "
                 "linker output never has", i, seg_name(p->p_type), p->p_type);
    }
  }
  if (s->nload == 0) return BAD("no PT_LOAD program header");
  if (ndyn == 0) return BAD("no PT_DYNAMIC program header");
  /* what dlopen reads through the other segments must be mapped */
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    const Elf64_Phdr *p = &ph[i];
    if (p->p_type == PT_NULL || p->p_type == PT_LOAD ||
        p->p_type == PT_GNU_STACK)
      continue;
    int w = p->p_type == PT_DYNAMIC || p->p_type == PT_GNU_RELRO;
    uint64_t off = file_at(s, p->p_vaddr, p->p_filesz, w);
    if (p->p_filesz > p->p_memsz || !in_memory(s, p->p_vaddr, p->p_memsz, w) ||
        (p->p_type != PT_GNU_RELRO && off != p->p_offset))
      return BAD("program header %u (type %#x, %llu bytes at %#llx) does not "
                 "lie inside a %sloaded segment", i, p->p_type,
                 (unsigned long long)p->p_memsz,
                 (unsigned long long)p->p_vaddr, w ? "writable " : "");
  }
  if (dyn->p_filesz % sizeof(Elf64_Dyn) || dyn->p_filesz == 0)
    return BAD("the PT_DYNAMIC segment has %llu bytes, not a whole number of "
               "entries", (unsigned long long)dyn->p_filesz);
  return TVM_OK;
}

/* The dynamic tags this check understands, by value. */
typedef struct {
  uint64_t strtab, strsz, symtab, syment, hash, gnu_hash;
  uint64_t rela, relasz, relaent, jmprel, pltrelsz, pltrel, pltgot;
  int has[8]; /* strtab, symtab, rela, jmprel, pltgot, hash, gnu_hash, relasz */
} dyn_info;

/* A name of dynamic tag t for messages ("tag 0x...": unknown). */
static const char *tag_name(int64_t t, char *buf, size_t cap) {
  switch (t) {
  case DT_INIT: return "DT_INIT";
  case DT_FINI: return "DT_FINI";
  case DT_INIT_ARRAY: return "DT_INIT_ARRAY";
  case DT_FINI_ARRAY: return "DT_FINI_ARRAY";
  case DT_PREINIT_ARRAY: return "DT_PREINIT_ARRAY";
  case DT_RPATH: return "DT_RPATH";
  case DT_RUNPATH: return "DT_RUNPATH";
  case DT_SONAME: return "DT_SONAME";
  case DT_TEXTREL: return "DT_TEXTREL";
  case DT_REL: return "DT_REL";
  case DT_VERSYM: return "DT_VERSYM";
  case DT_VERNEED: return "DT_VERNEED";
  case DT_VERDEF: return "DT_VERDEF";
  case DT_AUXILIARY: return "DT_AUXILIARY";
  case DT_FILTER: return "DT_FILTER";
  case DT_AUDIT: return "DT_AUDIT";
  case DT_DEBUG: return "DT_DEBUG";
  case DT_SYMBOLIC: return "DT_SYMBOLIC";
  default:
    snprintf(buf, cap, "tag %#llx", (unsigned long long)t);
    return buf;
  }
}

/* Copies the printable start of a package string for a message. */
static void clean_name(const char *nm, char *buf, size_t cap) {
  size_t k = 0;
  for (; k + 1 < cap && k < 60 && nm[k]; k++)
    buf[k] = nm[k] >= 0x20 && nm[k] < 0x7f ? nm[k] : '?';
  buf[k] = 0;
}

/* Reads the dynamic section at file offset off (cnt entries) into *di,
 * refusing tags that run code, search paths or anything unknown. */
static int32_t read_dynamic(const so *s, uint64_t off, uint64_t cnt,
                            dyn_info *di) {
  memset(di, 0, sizeof *di);
  uint64_t k = 0;
  int ended = 0;
  uint64_t init_sz = 0, fini_sz = 0, pre_sz = 0;
  int init_a = 0, fini_a = 0, pre_a = 0;
  for (; k < cnt && !ended; k++) {
    Elf64_Dyn e;
    memcpy(&e, s->d + off + k * sizeof e, sizeof e);
    uint64_t v = e.d_un.d_val;
    char tb[32];
    switch (e.d_tag) {
    case DT_NULL: ended = 1; break;
    case DT_NEEDED: break; /* names checked once the string table is known */
    case DT_STRTAB: di->strtab = v; di->has[0] = 1; break;
    case DT_STRSZ: di->strsz = v; break;
    case DT_SYMTAB: di->symtab = v; di->has[1] = 1; break;
    case DT_SYMENT: di->syment = v; break;
    case DT_HASH: di->hash = v; di->has[5] = 1; break;
    case DT_GNU_HASH: di->gnu_hash = v; di->has[6] = 1; break;
    case DT_RELA: di->rela = v; di->has[2] = 1; break;
    case DT_RELASZ: di->relasz = v; di->has[7] = 1; break;
    case DT_RELAENT: di->relaent = v; break;
    case DT_JMPREL: di->jmprel = v; di->has[3] = 1; break;
    case DT_PLTRELSZ: di->pltrelsz = v; break;
    case DT_PLTREL: di->pltrel = v; break;
    case DT_PLTGOT: di->pltgot = v; di->has[4] = 1; break;
    case DT_RELACOUNT: break; /* a hint; every entry is checked anyway */
    case DT_BIND_NOW: break;
    case DT_FLAGS:
      if (v & ~(uint64_t)DF_BIND_NOW)
        return BAD("dynamic entry %llu: DT_FLAGS %#llx (only DF_BIND_NOW is "
                   "accepted)", (unsigned long long)k, (unsigned long long)v);
      break;
    case DT_FLAGS_1:
      if (v & ~(uint64_t)DF_1_NOW)
        return BAD("dynamic entry %llu: DT_FLAGS_1 %#llx (only DF_1_NOW is "
                   "accepted)", (unsigned long long)k, (unsigned long long)v);
      break;
    case DT_INIT_ARRAY: init_a = 1; break;
    case DT_INIT_ARRAYSZ: init_sz = v; break;
    case DT_FINI_ARRAY: fini_a = 1; break;
    case DT_FINI_ARRAYSZ: fini_sz = v; break;
    case DT_PREINIT_ARRAY: pre_a = 1; break;
    case DT_PREINIT_ARRAYSZ: pre_sz = v; break;
    case DT_INIT: case DT_FINI:
      return BAD("dynamic tag %s (entry %llu): it runs code when the object "
                 "is loaded or unloaded, which llvm-cpu's kernels never do",
                 tag_name(e.d_tag, tb, sizeof tb), (unsigned long long)k);
    case DT_RPATH: case DT_RUNPATH:
      return BAD("dynamic tag %s (entry %llu): a library search path",
                 tag_name(e.d_tag, tb, sizeof tb), (unsigned long long)k);
    case DT_VERSYM: case DT_VERNEED: case DT_VERDEF:
      return BAD("dynamic tag %s (entry %llu): symbol versions, which "
                 "llvm-cpu's linker output does not have",
                 tag_name(e.d_tag, tb, sizeof tb), (unsigned long long)k);
    default:
      return BAD("dynamic tag %s (entry %llu), which llvm-cpu's linker "
                 "output never has", tag_name(e.d_tag, tb, sizeof tb),
                 (unsigned long long)k);
    }
  }
  if (!ended) return BAD("the dynamic section has no DT_NULL terminator");
  if ((init_a && init_sz) || (fini_a && fini_sz) || (pre_a && pre_sz))
    return BAD("dynamic tag %s with %llu bytes: constructors or destructors "
               "that run at load or unload, which llvm-cpu's kernels never "
               "have", init_a && init_sz ? "DT_INIT_ARRAY"
               : fini_a && fini_sz      ? "DT_FINI_ARRAY"
                                        : "DT_PREINIT_ARRAY",
               (unsigned long long)(init_a && init_sz ? init_sz
                                    : fini_a && fini_sz ? fini_sz : pre_sz));
  return TVM_OK;
}

/* Checks DT_NEEDED names (libc.so.6 and libm.so.6 only: both are already
 * in every process that runs kernels, so none of their initializers
 * runs). */
static int32_t check_needed(const so *s, uint64_t off, uint64_t cnt) {
  for (uint64_t k = 0; k < cnt; k++) {
    Elf64_Dyn e;
    memcpy(&e, s->d + off + k * sizeof e, sizeof e);
    if (e.d_tag == DT_NULL) break;
    if (e.d_tag != DT_NEEDED) continue;
    if (e.d_un.d_val >= s->strsz)
      return BAD("dynamic entry %llu: DT_NEEDED name at %llu lies outside "
                 "the %llu-byte string table", (unsigned long long)k,
                 (unsigned long long)e.d_un.d_val,
                 (unsigned long long)s->strsz);
    const char *nm = s->str + e.d_un.d_val;
    if (strcmp(nm, "libc.so.6") != 0 && strcmp(nm, "libm.so.6") != 0) {
      char c[64];
      clean_name(nm, c, sizeof c);
      return BAD("dynamic tag DT_NEEDED (entry %llu) names '%s' (only "
                 "libc.so.6 and libm.so.6 may be needed)",
                 (unsigned long long)k, c);
    }
  }
  return TVM_OK;
}

/* Reads the 32-bit word i of a table at file offset off. */
static uint32_t word(const so *s, uint64_t off, uint64_t i) {
  uint32_t w;
  memcpy(&w, s->d + off + 4 * i, 4);
  return w;
}

/* Checks the GNU hash table at address va; raises the symbol count to
 * the symbols it reaches. */
static int32_t check_gnu_hash(so *s, uint64_t va) {
  uint64_t off = file_at(s, va, 16, 0);
  if (off == UINT64_MAX)
    return BAD("dynamic tag DT_GNU_HASH: its header at %#llx is not inside "
               "a loaded segment", (unsigned long long)va);
  uint32_t nb = word(s, off, 0), symoff = word(s, off, 1);
  uint32_t bloom = word(s, off, 2), shift = word(s, off, 3);
  if (nb == 0 || bloom == 0 || !lc_elf_pow2_or_0(bloom) || shift >= 64)
    return BAD("dynamic tag DT_GNU_HASH: %u buckets, %u bloom words, shift "
               "%u", nb, bloom, shift);
  uint64_t boff = off + 16 + 8 * (uint64_t)bloom; /* buckets */
  uint64_t need = 16 + 8 * (uint64_t)bloom + 4 * (uint64_t)nb;
  if (file_at(s, va, need, 0) != off)
    return BAD("dynamic tag DT_GNU_HASH: %u buckets and %u bloom words run "
               "past the loaded segment", nb, bloom);
  uint64_t coff = boff + 4 * (uint64_t)nb; /* chain of symbol symoff */
  uint64_t cva = va + need;
  /* the linker sorts symbols by bucket: non-empty buckets start at rising
   * indices and each chain ends before the next one starts, which also
   * keeps this walk linear */
  uint64_t next = symoff;
  for (uint32_t b = 0; b < nb; b++) {
    uint64_t i = word(s, boff, b);
    if (i == 0) continue;
    if (i < next)
      return BAD("dynamic tag DT_GNU_HASH: bucket %u starts at symbol %llu, "
                 "inside the previous chain or below the first hashed "
                 "symbol %u", b, (unsigned long long)i, symoff);
    for (;; i++) { /* the chain ends at a word with its low bit set */
      if (i >= MAX_SYMS || file_at(s, cva, 4 * (i - symoff + 1), 0) != coff)
        return BAD("dynamic tag DT_GNU_HASH: the chain of bucket %u runs "
                   "past the loaded segment", b);
      if (word(s, coff, i - symoff) & 1) break;
    }
    next = i + 1;
  }
  if (next > s->nsym) s->nsym = next;
  return TVM_OK;
}

/* Checks the SysV hash table at va (chains in range and acyclic) and
 * raises the symbol count to its chain length. */
static int32_t check_sysv_hash(so *s, uint64_t va) {
  uint64_t off = file_at(s, va, 8, 0);
  if (off == UINT64_MAX)
    return BAD("dynamic tag DT_HASH: its header at %#llx is not inside a "
               "loaded segment", (unsigned long long)va);
  uint32_t nb = word(s, off, 0), nc = word(s, off, 1);
  if (nb == 0 || nc > MAX_SYMS ||
      file_at(s, va, 8 + 4 * ((uint64_t)nb + nc), 0) != off)
    return BAD("dynamic tag DT_HASH: %u buckets and %u chain entries do not "
               "fit in a loaded segment", nb, nc);
  uint8_t *seen = calloc(nc ? nc : 1, 1);
  if (!seen) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  int32_t st = TVM_OK;
  for (uint32_t b = 0; b < nb && st == TVM_OK; b++) {
    uint32_t i = word(s, off, 2 + b);
    while (i != 0) { /* i is checked before its chain entry is read */
      if (i >= nc) {
        st = BAD("dynamic tag DT_HASH: bucket %u reaches symbol %u of %u", b,
                 i, nc);
        break;
      }
      if (seen[i]++) {
        st = BAD("dynamic tag DT_HASH: symbol %u is reached twice (a chain "
                 "loops or two chains merge)", i);
        break;
      }
      i = word(s, off, 2 + (uint64_t)nb + i);
    }
  }
  free(seen);
  if (st == TVM_OK && nc > s->nsym) s->nsym = nc;
  return st;
}

/* Checks the dynamic symbols: names, types, defined ones inside a
 * segment, undefined ones on the extern allow-list. */
static int32_t check_dynsym(const so *s) {
  for (uint64_t k = 1; k < s->nsym; k++) {
    Elf64_Sym y;
    memcpy(&y, s->d + s->symoff + k * sizeof y, sizeof y);
    if (y.st_name >= s->strsz)
      return BAD("dynamic symbol %llu: its name lies outside the string "
                 "table", (unsigned long long)k);
    char c[64];
    clean_name(s->str + y.st_name, c, sizeof c);
    unsigned type = ELF64_ST_TYPE(y.st_info);
    if (type == STT_TLS || type == STT_GNU_IFUNC)
      return BAD("dynamic symbol %llu '%s' is %s, which kernels never are",
                 (unsigned long long)k, c,
                 type == STT_TLS ? "thread-local"
                                 : "an indirect function (its resolver runs "
                                   "at load)");
    if (y.st_shndx == SHN_UNDEF) {
      if (ELF64_ST_BIND(y.st_info) == STB_LOCAL) continue;
      if (!lc_extern_allowed(s->str + y.st_name))
        return BAD("dynamic symbol %llu '%s' is undefined and not a "
                   "function kernels may call (the C math library, memory "
                   "functions, compiler support routines, and the names "
                   "listed in TVM_LLVM_CPU_EXTERNS)",
                   (unsigned long long)k, c);
    } else if (y.st_shndx == SHN_ABS) {
      return BAD("dynamic symbol %llu '%s' is absolute, which llvm-cpu's "
                 "linker output never has", (unsigned long long)k, c);
    } else if (!in_memory(s, y.st_value, y.st_size, 0)) {
      return BAD("dynamic symbol %llu '%s' (%llu bytes at %#llx) lies "
                 "outside the loaded segments", (unsigned long long)k, c,
                 (unsigned long long)y.st_size,
                 (unsigned long long)y.st_value);
    }
  }
  return TVM_OK;
}

/* Checks the relocation table at va of sz bytes (`what`: DT_RELA or
 * DT_JMPREL): types, symbols, and each patched word in writable memory. */
static int32_t check_relocs(const so *s, uint64_t va, uint64_t sz,
                            const char *what) {
  if (sz % sizeof(Elf64_Rela))
    return BAD("dynamic tag %s: %llu bytes of relocations, not a whole "
               "number of entries", what, (unsigned long long)sz);
  uint64_t off = file_at(s, va, sz, 0);
  if (off == UINT64_MAX)
    return BAD("dynamic tag %s: the %llu bytes of relocations at %#llx are "
               "not inside a loaded segment", what, (unsigned long long)sz,
               (unsigned long long)va);
  for (uint64_t k = 0; k < sz / sizeof(Elf64_Rela); k++) {
    Elf64_Rela r;
    memcpy(&r, s->d + off + k * sizeof r, sizeof r);
    uint32_t t = (uint32_t)ELF64_R_TYPE(r.r_info);
    uint64_t sym = ELF64_R_SYM(r.r_info);
    if (t != R_X86_64_NONE && t != R_X86_64_RELATIVE && t != R_X86_64_64 &&
        t != R_X86_64_GLOB_DAT && t != R_X86_64_JUMP_SLOT)
      return BAD("relocation %llu of %s has type %u (%s); only "
                 "R_X86_64_RELATIVE, 64, GLOB_DAT and JUMP_SLOT are accepted",
                 (unsigned long long)k, what, t, lc_elf_reloc_name(t));
    if (sym >= s->nsym ||
        (sym == 0 && t != R_X86_64_RELATIVE && t != R_X86_64_NONE))
      return BAD("relocation %llu of %s uses symbol %llu of %llu",
                 (unsigned long long)k, what, (unsigned long long)sym,
                 (unsigned long long)s->nsym);
    if (t != R_X86_64_NONE && !in_memory(s, r.r_offset, 8, 1))
      return BAD("relocation %llu of %s patches %#llx, outside the writable "
                 "segments", (unsigned long long)k, what,
                 (unsigned long long)r.r_offset);
  }
  return TVM_OK;
}

/* Validates the shared object d[0..n) (see the top of the file). */
int32_t lc_check_shared(const uint8_t *d, uint64_t n, const Elf64_Ehdr *eh) {
  so *s = calloc(1, sizeof *s);
  if (!s) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  s->d = d;
  s->n = n;
  Elf64_Phdr dyn;
  dyn_info di;
  int32_t st = check_phdrs(s, eh, &dyn);
  if (st != TVM_OK) goto done;
  uint64_t doff = dyn.p_offset, dcnt = dyn.p_filesz / sizeof(Elf64_Dyn);
  if ((st = read_dynamic(s, doff, dcnt, &di)) != TVM_OK) goto done;
  /* the string table */
  uint64_t soff = di.has[0] ? file_at(s, di.strtab, di.strsz, 0) : UINT64_MAX;
  if (soff == UINT64_MAX || di.strsz == 0 || d[soff + di.strsz - 1] != 0) {
    st = BAD("dynamic tags DT_STRTAB/DT_STRSZ: the %llu-byte string table "
             "at %#llx is missing, outside the loaded segments or not "
             "NUL-terminated", (unsigned long long)di.strsz,
             (unsigned long long)di.strtab);
    goto done;
  }
  s->str = (const char *)d + soff;
  s->strsz = di.strsz;
  if ((st = check_needed(s, doff, dcnt)) != TVM_OK) goto done;
  /* the hash tables give the symbol count */
  if (!di.has[5] && !di.has[6]) {
    st = BAD("no DT_HASH or DT_GNU_HASH (dlsym needs one)");
    goto done;
  }
  if (di.has[5] && (st = check_sysv_hash(s, di.hash)) != TVM_OK) goto done;
  if (di.has[6] && (st = check_gnu_hash(s, di.gnu_hash)) != TVM_OK) goto done;
  if (!di.has[1] || di.syment != sizeof(Elf64_Sym) || s->nsym == 0 ||
      (s->symoff = file_at(s, di.symtab, s->nsym * sizeof(Elf64_Sym), 0)) ==
          UINT64_MAX) {
    st = BAD("dynamic tags DT_SYMTAB/DT_SYMENT: %llu symbols of %llu bytes "
             "at %#llx are missing or outside the loaded segments",
             (unsigned long long)s->nsym, (unsigned long long)di.syment,
             (unsigned long long)di.symtab);
    goto done;
  }
  if ((st = check_dynsym(s)) != TVM_OK) goto done;
  /* relocations */
  if (di.has[2] || di.has[7]) {
    if (!di.has[2] || di.relaent != sizeof(Elf64_Rela)) {
      st = BAD("dynamic tags DT_RELA/DT_RELAENT: entries of %llu bytes",
               (unsigned long long)di.relaent);
      goto done;
    }
    if ((st = check_relocs(s, di.rela, di.relasz, "DT_RELA")) != TVM_OK)
      goto done;
  }
  if (di.has[3]) {
    if (di.pltrel != DT_RELA) {
      st = BAD("dynamic tag DT_PLTREL is %llu, not DT_RELA",
               (unsigned long long)di.pltrel);
      goto done;
    }
    if ((st = check_relocs(s, di.jmprel, di.pltrelsz, "DT_JMPREL")) != TVM_OK)
      goto done;
  }
  /* lazy binding would write the resolver into GOT[1..2] */
  if (di.has[4] && !in_memory(s, di.pltgot, 24, 1))
    st = BAD("dynamic tag DT_PLTGOT: %#llx is not in a writable segment",
             (unsigned long long)di.pltgot);
done:
  free(s);
  return st;
}
