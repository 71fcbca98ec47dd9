/*
 * elf_check.c - structural validation of a package's kernel object before
 * the plugin's own loader (elf_load.c) lays it out and relocates it.  A
 * damaged section table, symbol index or relocation must never make the
 * loader read or write out of bounds, so every offset, size, index and
 * relocation of the ELF file is checked here first, against the file and
 * against what llvm-cpu's own codegen emits: x86-64 relocatable objects,
 * no thread-local storage, no constructors, no writable code, sections
 * that do not overlap, symbols inside their sections, and the relocation
 * types elf_load.c applies (anything else is refused by name).
 *
 * This catches malformed objects, not malicious ones: well-formed machine
 * code that does harm passes, as does a flipped byte inside an
 * instruction.  Only a signature (tvmc run --trusted-keys) tells a package
 * that was not tampered with from one that was (docs/security.md).
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_check.h"
#include "tvm/base.h"

/* (limits and the bounds helpers live in elf_check.h, shared with the
 * shared-object checks of elf_check_shared.c) */
#define MAX_SECTION_BYTES LC_ELF_MAX_BYTES
#define in_file lc_elf_in_file
#define pow2_or_0 lc_elf_pow2_or_0

/* Bytes patched by an x86-64 relocation of type t, or 0 when elf_load.c
 * does not apply t (llvm-cpu's PIC, small-code-model output never has
 * it).  R_X86_64_NONE patches nothing but is accepted. */
unsigned lc_elf_reloc_width(uint32_t t) {
  switch (t) {
  case R_X86_64_NONE: return 1;
  case R_X86_64_64:
  case R_X86_64_PC64:
    return 8;
  case R_X86_64_PC32:
  case R_X86_64_PLT32:
  case R_X86_64_32:
  case R_X86_64_32S:
  case R_X86_64_GOTPCREL:
  case R_X86_64_GOTPCRELX:
  case R_X86_64_REX_GOTPCRELX:
    return 4;
  default:
    return 0;
  }
}

/* The psABI name of x86-64 relocation type t ("type N" past the table). */
const char *lc_elf_reloc_name(uint32_t t) {
  static const char *const names[] = {
      "R_X86_64_NONE", "R_X86_64_64", "R_X86_64_PC32", "R_X86_64_GOT32",
      "R_X86_64_PLT32", "R_X86_64_COPY", "R_X86_64_GLOB_DAT",
      "R_X86_64_JUMP_SLOT", "R_X86_64_RELATIVE", "R_X86_64_GOTPCREL",
      "R_X86_64_32", "R_X86_64_32S", "R_X86_64_16", "R_X86_64_PC16",
      "R_X86_64_8", "R_X86_64_PC8", "R_X86_64_DTPMOD64", "R_X86_64_DTPOFF64",
      "R_X86_64_TPOFF64", "R_X86_64_TLSGD", "R_X86_64_TLSLD",
      "R_X86_64_DTPOFF32", "R_X86_64_GOTTPOFF", "R_X86_64_TPOFF32",
      "R_X86_64_PC64", "R_X86_64_GOTOFF64", "R_X86_64_GOTPC32",
      "R_X86_64_GOT64", "R_X86_64_GOTPCREL64", "R_X86_64_GOTPC64",
      "R_X86_64_GOTPLT64", "R_X86_64_PLTOFF64", "R_X86_64_SIZE32",
      "R_X86_64_SIZE64", "R_X86_64_GOTPC32_TLSDESC", "R_X86_64_TLSDESC_CALL",
      "R_X86_64_TLSDESC", "R_X86_64_IRELATIVE", "R_X86_64_RELATIVE64",
      "type 39", "type 40", "R_X86_64_GOTPCRELX", "R_X86_64_REX_GOTPCRELX"};
  return t < sizeof names / sizeof names[0] ? names[t] : "an unknown type";
}

/* Writes "section I 'NAME'" for messages: the name from the validated
 * section-name table, printable ASCII only and cut at 40 characters (the
 * bytes come from the package, not from us). */
void lc_elf_section_label(const uint8_t *d, const Elf64_Shdr *sh,
                          unsigned shstrndx, unsigned i, char *buf,
                          size_t cap) {
  const Elf64_Shdr *names = &sh[shstrndx];
  const char *nm = (const char *)d + names->sh_offset + sh[i].sh_name;
  char clean[41];
  size_t k = 0;
  for (; k < 40 && nm[k]; k++)
    clean[k] = nm[k] >= 0x20 && nm[k] < 0x7f ? nm[k] : '?';
  clean[k] = 0;
  snprintf(buf, cap, "section %u '%s'", i, clean);
}

/* Fails with a message naming the object's problem. */
#define BAD(...)                                                            \
  lc_report(TVM_ERR_INVALID, "llvm-cpu: the kernel object is malformed: "   \
            __VA_ARGS__)

/* Checks the symbol table sh (index si) of the object: names inside the
 * NUL-terminated string table, no thread-local symbols, and every
 * symbol defined in a section lying inside that section. */
static int32_t check_symtab(const uint8_t *d, const Elf64_Ehdr *eh,
                            const Elf64_Shdr *sh, unsigned si) {
  const Elf64_Shdr *s = &sh[si];
  char lab[64];
  lc_elf_section_label(d, sh, eh->e_shstrndx, si, lab, sizeof lab);
  if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_size % sizeof(Elf64_Sym))
    return BAD("symbol table %s has entries of %llu bytes", lab,
               (unsigned long long)s->sh_entsize);
  if (s->sh_link == 0 || s->sh_link >= eh->e_shnum ||
      sh[s->sh_link].sh_type != SHT_STRTAB)
    return BAD("symbol table %s names string table %u", lab, s->sh_link);
  const Elf64_Shdr *str = &sh[s->sh_link];
  /* the string table must end in NUL so every name is terminated */
  if (str->sh_size && d[str->sh_offset + str->sh_size - 1] != 0)
    return BAD("string table %u of %s is not NUL-terminated", s->sh_link, lab);
  uint64_t nsym = s->sh_size / sizeof(Elf64_Sym);
  if (s->sh_info > nsym)
    return BAD("symbol table %s: first global %u of %llu symbols", lab,
               s->sh_info, (unsigned long long)nsym);
  for (uint64_t k = 0; k < nsym; k++) {
    Elf64_Sym sym;
    memcpy(&sym, d + s->sh_offset + k * sizeof sym, sizeof sym);
    if (sym.st_name >= str->sh_size && !(sym.st_name == 0 && str->sh_size == 0))
      return BAD("symbol %llu of %s: its name lies outside its string table",
                 (unsigned long long)k, lab);
    if (ELF64_ST_TYPE(sym.st_info) == STT_TLS ||
        ELF64_ST_TYPE(sym.st_info) == STT_GNU_IFUNC)
      return BAD("symbol %llu of %s is thread-local or an indirect function, "
                 "which kernels never are", (unsigned long long)k, lab);
    uint16_t x = sym.st_shndx;
    if (x != SHN_UNDEF && x != SHN_ABS && x != SHN_COMMON && x >= eh->e_shnum)
      return BAD("symbol %llu of %s is in section %u of %u",
                 (unsigned long long)k, lab, x, eh->e_shnum);
    if (x == SHN_COMMON &&
        (sym.st_size > MAX_SECTION_BYTES || !pow2_or_0(sym.st_value) ||
         sym.st_value > 4096))
      return BAD("common symbol %llu of %s has %llu bytes aligned to %llu",
                 (unsigned long long)k, lab, (unsigned long long)sym.st_size,
                 (unsigned long long)sym.st_value);
    if (x != SHN_UNDEF && x < eh->e_shnum &&
        ELF64_ST_TYPE(sym.st_info) != STT_SECTION) {
      uint64_t len = sh[x].sh_size;
      if (sym.st_value > len || sym.st_size > len - sym.st_value) {
        char sl[64];
        lc_elf_section_label(d, sh, eh->e_shstrndx, x, sl, sizeof sl);
        return BAD("symbol %llu of %s (%llu bytes at %llu) lies outside its "
                   "%llu-byte %s", (unsigned long long)k, lab,
                   (unsigned long long)sym.st_size,
                   (unsigned long long)sym.st_value, (unsigned long long)len,
                   sl);
      }
    }
  }
  return TVM_OK;
}

/* Checks the relocation section sh[ri] against its symbols and target:
 * known types, symbol indices inside the table, patched bytes inside the
 * target section, and a target that has bytes to patch. */
static int32_t check_rela(const uint8_t *d, const Elf64_Ehdr *eh,
                          const Elf64_Shdr *sh, unsigned ri) {
  const Elf64_Shdr *s = &sh[ri];
  char lab[64], tl[64];
  lc_elf_section_label(d, sh, eh->e_shstrndx, ri, lab, sizeof lab);
  if (s->sh_type == SHT_REL)
    return BAD("%s has REL relocations (x86-64 uses RELA)", lab);
  if (s->sh_entsize != sizeof(Elf64_Rela) || s->sh_size % sizeof(Elf64_Rela))
    return BAD("relocation %s has entries of %llu bytes", lab,
               (unsigned long long)s->sh_entsize);
  if (s->sh_link == 0 || s->sh_link >= eh->e_shnum ||
      sh[s->sh_link].sh_type != SHT_SYMTAB)
    return BAD("relocation %s names symbol table %u", lab, s->sh_link);
  if (s->sh_info == 0 || s->sh_info >= eh->e_shnum)
    return BAD("relocation %s applies to section %u of %u", lab, s->sh_info,
               eh->e_shnum);
  const Elf64_Shdr *tgt = &sh[s->sh_info];
  lc_elf_section_label(d, sh, eh->e_shstrndx, s->sh_info, tl, sizeof tl);
  if (tgt->sh_type == SHT_NOBITS || tgt->sh_type == SHT_RELA ||
      tgt->sh_type == SHT_SYMTAB || tgt->sh_type == SHT_STRTAB)
    return BAD("relocation %s patches %s, which holds no code or data", lab,
               tl);
  uint64_t nsym = sh[s->sh_link].sh_size / sizeof(Elf64_Sym);
  uint64_t nrel = s->sh_size / sizeof(Elf64_Rela);
  for (uint64_t k = 0; k < nrel; k++) {
    Elf64_Rela r;
    memcpy(&r, d + s->sh_offset + k * sizeof r, sizeof r);
    uint32_t type = (uint32_t)ELF64_R_TYPE(r.r_info);
    uint64_t sym = ELF64_R_SYM(r.r_info);
    unsigned w = lc_elf_reloc_width(type);
    if (w == 0)
      return BAD("relocation %llu of %s (for %s) has type %u (%s), which "
                 "llvm-cpu's loader does not apply", (unsigned long long)k,
                 lab, tl, type, lc_elf_reloc_name(type));
    if (sym >= nsym)
      return BAD("relocation %llu of %s uses symbol %llu of %llu",
                 (unsigned long long)k, lab, (unsigned long long)sym,
                 (unsigned long long)nsym);
    if (r.r_offset > tgt->sh_size || w > tgt->sh_size - r.r_offset)
      return BAD("relocation %llu of %s patches offset %llu of the "
                 "%llu-byte %s", (unsigned long long)k, lab,
                 (unsigned long long)r.r_offset,
                 (unsigned long long)tgt->sh_size, tl);
  }
  return TVM_OK;
}

/* A byte range of the file, for the overlap check. */
typedef struct {
  uint64_t off, end;
  unsigned sec; /* section index; 0 for the headers */
} file_range;

static int range_cmp(const void *a, const void *b) {
  const file_range *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Refuses sections whose bytes overlap each other or the ELF header or
 * section header table: the loader copies each section on its own, and
 * overlapping ones are a sign of a crafted file. */
static int32_t check_overlap(const uint8_t *d, const Elf64_Ehdr *eh,
                             const Elf64_Shdr *sh) {
  file_range *r = malloc(((size_t)eh->e_shnum + 2) * sizeof *r);
  if (!r) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  size_t n = 0;
  r[n++] = (file_range){0, sizeof(Elf64_Ehdr), 0};
  r[n++] = (file_range){eh->e_shoff,
                        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof *sh, 0};
  for (unsigned i = 1; i < eh->e_shnum; i++)
    if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_size > 0)
      r[n++] = (file_range){sh[i].sh_offset, sh[i].sh_offset + sh[i].sh_size,
                            i};
  qsort(r, n, sizeof *r, range_cmp);
  int32_t st = TVM_OK;
  for (size_t k = 1; k < n && st == TVM_OK; k++)
    if (r[k].off < r[k - 1].end) {
      char a[64] = "the ELF headers", b[64] = "the ELF headers";
      if (r[k - 1].sec)
        lc_elf_section_label(d, sh, eh->e_shstrndx, r[k - 1].sec, a, sizeof a);
      if (r[k].sec)
        lc_elf_section_label(d, sh, eh->e_shstrndx, r[k].sec, b, sizeof b);
      st = BAD("%s and %s overlap in the file (bytes %llu..%llu and from "
               "%llu)", a, b, (unsigned long long)r[k - 1].off,
               (unsigned long long)r[k - 1].end, (unsigned long long)r[k].off);
    }
  free(r);
  return st;
}

/* Checks a section's type and flags against what a kernel object holds:
 * loaded sections are code, data, zero-filled data, unwind tables or
 * notes; never constructors, groups, writable code or TLS. */
static int32_t check_kind(const uint8_t *d, const Elf64_Ehdr *eh,
                          const Elf64_Shdr *sh, unsigned i) {
  const Elf64_Shdr *s = &sh[i];
  char lab[64];
  lc_elf_section_label(d, sh, eh->e_shstrndx, i, lab, sizeof lab);
  switch (s->sh_type) {
  case SHT_INIT_ARRAY: case SHT_FINI_ARRAY: case SHT_PREINIT_ARRAY:
    return BAD("%s holds constructors or destructors, which kernels never "
               "have and the loader never runs", lab);
  case SHT_GROUP:
    return BAD("%s is a section group (COMDAT), which kernels never have",
               lab);
  case SHT_DYNSYM: case SHT_DYNAMIC: case SHT_HASH: case SHT_GNU_HASH:
    return BAD("%s is dynamic-linking data in a relocatable object", lab);
  default:
    break;
  }
  if (!(s->sh_flags & SHF_ALLOC)) return TVM_OK; /* never loaded */
  if (s->sh_type != SHT_PROGBITS && s->sh_type != SHT_NOBITS &&
      s->sh_type != SHT_X86_64_UNWIND && s->sh_type != SHT_NOTE)
    return BAD("%s is loaded but has type 0x%x (code, data, .bss, unwind "
               "tables or notes only)", lab, s->sh_type);
  if ((s->sh_flags & SHF_WRITE) && (s->sh_flags & SHF_EXECINSTR))
    return BAD("%s is both writable and executable", lab);
  return TVM_OK;
}

/* Checks a relocatable object (what module_load hands to elf_load.c). */
static int32_t check_relocatable(const uint8_t *d, uint64_t n,
                                 const Elf64_Ehdr *eh) {
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
      eh->e_shnum >= SHN_LORESERVE)
    return BAD("%u section headers of %u bytes", eh->e_shnum, eh->e_shentsize);
  if (!in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), n) ||
      eh->e_shoff % 8)
    return BAD("the section headers lie outside the object");
  if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum)
    return BAD("section-name table index %u of %u", eh->e_shstrndx,
               eh->e_shnum);
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
  if (sh[eh->e_shstrndx].sh_type != SHT_STRTAB)
    return BAD("the section-name table is not a string table");
  for (unsigned i = 1; i < eh->e_shnum; i++) {
    const Elf64_Shdr *s = &sh[i];
    if (s->sh_type != SHT_NOBITS && !in_file(s->sh_offset, s->sh_size, n))
      return BAD("section %u (%llu bytes at %llu) lies outside the %llu-byte "
                 "object", i, (unsigned long long)s->sh_size,
                 (unsigned long long)s->sh_offset, (unsigned long long)n);
    if (s->sh_size > MAX_SECTION_BYTES)
      return BAD("section %u has %llu bytes", i,
                 (unsigned long long)s->sh_size);
    if (!pow2_or_0(s->sh_addralign) || s->sh_addralign > 4096)
      return BAD("section %u has alignment %llu", i,
                 (unsigned long long)s->sh_addralign);
    if (s->sh_flags & SHF_TLS)
      return BAD("section %u is thread-local, which kernels never are", i);
    if (s->sh_name >= sh[eh->e_shstrndx].sh_size)
      return BAD("section %u's name lies outside the section-name table", i);
  }
  const Elf64_Shdr *names = &sh[eh->e_shstrndx];
  if (names->sh_size == 0 || d[names->sh_offset + names->sh_size - 1] != 0)
    return BAD("the section-name table is not NUL-terminated");
  /* from here on sections can be named in messages */
  int32_t st = check_overlap(d, eh, sh);
  if (st != TVM_OK) return st;
  unsigned nsymtab = 0;
  for (unsigned i = 1; i < eh->e_shnum; i++) {
    if ((st = check_kind(d, eh, sh, i)) != TVM_OK) return st;
    if (sh[i].sh_type == SHT_SYMTAB) {
      if (++nsymtab > 1)
        return BAD("more than one symbol table (section %u)", i);
      if ((st = check_symtab(d, eh, sh, i)) != TVM_OK) return st;
    }
  }
  for (unsigned i = 1; i < eh->e_shnum; i++)
    if ((sh[i].sh_type == SHT_RELA || sh[i].sh_type == SHT_REL) &&
        (st = check_rela(d, eh, sh, i)))
      return st;
  return TVM_OK;
}

/* Validates the ELF blob (object or shared object, per `shared`). */
int32_t lc_check_elf(const uint8_t *d, uint64_t n, int shared) {
  Elf64_Ehdr eh;
  if (n < sizeof eh)
    return BAD("%llu bytes, shorter than an ELF header",
               (unsigned long long)n);
  if (((uintptr_t)d) % 8) { /* the checks read headers in place */
    uint8_t *copy = malloc((size_t)n);
    if (!copy) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
    memcpy(copy, d, (size_t)n);
    int32_t st = lc_check_elf(copy, n, shared);
    free(copy);
    return st;
  }
  memcpy(&eh, d, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return BAD("no ELF magic");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_ident[EI_VERSION] != EV_CURRENT || eh.e_version != EV_CURRENT)
    return BAD("not a 64-bit little-endian ELF file of version 1");
  if (eh.e_machine != EM_X86_64)
    return BAD("machine %u; this llvm-cpu loads x86-64 objects only",
               eh.e_machine);
  if (eh.e_ehsize != sizeof eh)
    return BAD("ELF header size %u", eh.e_ehsize);
  if (shared) {
    if (eh.e_type != ET_DYN) return BAD("type %u, not a shared object", eh.e_type);
    return lc_check_shared(d, n, &eh);
  }
  if (eh.e_type != ET_REL)
    return BAD("type %u, not a relocatable object", eh.e_type);
  return check_relocatable(d, n, &eh);
}
