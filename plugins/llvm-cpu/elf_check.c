/*
 * elf_check.c - structural validation of a package's kernel object before
 * LLVM sees it.  LLVM's object loader trusts its input: a damaged section
 * table, symbol index or relocation makes it read out of bounds or stop
 * the process with "LLVM ERROR".  So every offset, size, index and
 * relocation of the ELF file is checked here first, against the file and
 * against what llvm-cpu's own codegen emits (x86-64 relocatable objects,
 * no thread-local storage, a fixed set of relocation types).
 *
 * This catches malformed objects, not malicious ones: well-formed machine
 * code that does harm passes, as does a flipped byte inside an
 * instruction.  Only a signature (tvmc run --trusted-keys) tells a package
 * that was not tampered with from one that was (docs/security.md).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_check.h"
#include "tvm/base.h"

/* Largest section a kernel object may declare (zero-filled .bss
 * included): far above any real kernel, far below what makes the JIT's
 * memory manager give up. */
#define MAX_SECTION_BYTES ((uint64_t)1 << 30)

/* Does [off, off + len) lie inside a file of n bytes? */
static int in_file(uint64_t off, uint64_t len, uint64_t n) {
  return off <= n && len <= n - off;
}

/* Is v a power of two (0 and 1 count: no alignment)? */
static int pow2_or_0(uint64_t v) { return (v & (v - 1)) == 0; }

/* Bytes patched by an x86-64 relocation of type t, or 0 when llvm-cpu
 * never emits t (and the loader is not trusted with it). */
static unsigned reloc_width(uint32_t t) {
  switch (t) {
  case R_X86_64_NONE: return 1;
  case R_X86_64_64:
  case R_X86_64_PC64:
  case R_X86_64_GOTOFF64:
    return 8;
  case R_X86_64_PC32:
  case R_X86_64_PLT32:
  case R_X86_64_32:
  case R_X86_64_32S:
  case R_X86_64_GOTPCREL:
  case R_X86_64_GOTPCRELX:
  case R_X86_64_REX_GOTPCRELX:
  case R_X86_64_GOTPC32:
    return 4;
  default:
    return 0;
  }
}

/* Fails with a message naming the object's problem. */
#define BAD(...)                                                            \
  lc_report(TVM_ERR_INVALID, "llvm-cpu: the kernel object is malformed: "   \
            __VA_ARGS__)

/* Checks the symbol table sh (index si) of the object. */
static int32_t check_symtab(const uint8_t *d, uint64_t n, const Elf64_Ehdr *eh,
                            const Elf64_Shdr *sh, unsigned si) {
  const Elf64_Shdr *s = &sh[si];
  if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_size % sizeof(Elf64_Sym))
    return BAD("symbol table %u has entries of %llu bytes", si,
               (unsigned long long)s->sh_entsize);
  if (s->sh_link == 0 || s->sh_link >= eh->e_shnum ||
      sh[s->sh_link].sh_type != SHT_STRTAB)
    return BAD("symbol table %u names string table %u", si, s->sh_link);
  const Elf64_Shdr *str = &sh[s->sh_link];
  uint64_t nsym = s->sh_size / sizeof(Elf64_Sym);
  if (s->sh_info > nsym)
    return BAD("symbol table %u: first global %u of %llu symbols", si,
               s->sh_info, (unsigned long long)nsym);
  for (uint64_t k = 0; k < nsym; k++) {
    Elf64_Sym sym;
    memcpy(&sym, d + s->sh_offset + k * sizeof sym, sizeof sym);
    if (sym.st_name >= str->sh_size && !(sym.st_name == 0 && str->sh_size == 0))
      return BAD("symbol %llu's name lies outside its string table",
                 (unsigned long long)k);
    if (ELF64_ST_TYPE(sym.st_info) == STT_TLS)
      return BAD("symbol %llu is thread-local, which kernels never are",
                 (unsigned long long)k);
    uint16_t x = sym.st_shndx;
    if (x != SHN_UNDEF && x != SHN_ABS && x != SHN_COMMON && x >= eh->e_shnum)
      return BAD("symbol %llu is in section %u of %u", (unsigned long long)k,
                 x, eh->e_shnum);
    if (x == SHN_COMMON && sym.st_size > MAX_SECTION_BYTES)
      return BAD("common symbol %llu has %llu bytes", (unsigned long long)k,
                 (unsigned long long)sym.st_size);
  }
  /* the string table must end in NUL so every name is terminated */
  if (str->sh_size && d[str->sh_offset + str->sh_size - 1] != 0)
    return BAD("string table %u is not NUL-terminated", s->sh_link);
  return TVM_OK;
}

/* Checks the relocation section sh[ri] against its symbols and target. */
static int32_t check_rela(const uint8_t *d, const Elf64_Ehdr *eh,
                          const Elf64_Shdr *sh, unsigned ri) {
  const Elf64_Shdr *s = &sh[ri];
  if (s->sh_type == SHT_REL)
    return BAD("section %u has REL relocations (x86-64 uses RELA)", ri);
  if (s->sh_entsize != sizeof(Elf64_Rela) || s->sh_size % sizeof(Elf64_Rela))
    return BAD("relocation section %u has entries of %llu bytes", ri,
               (unsigned long long)s->sh_entsize);
  if (s->sh_link == 0 || s->sh_link >= eh->e_shnum ||
      sh[s->sh_link].sh_type != SHT_SYMTAB)
    return BAD("relocation section %u names symbol table %u", ri, s->sh_link);
  if (s->sh_info == 0 || s->sh_info >= eh->e_shnum)
    return BAD("relocation section %u applies to section %u of %u", ri,
               s->sh_info, eh->e_shnum);
  const Elf64_Shdr *tgt = &sh[s->sh_info];
  uint64_t nsym = sh[s->sh_link].sh_size / sizeof(Elf64_Sym);
  uint64_t nrel = s->sh_size / sizeof(Elf64_Rela);
  for (uint64_t k = 0; k < nrel; k++) {
    Elf64_Rela r;
    memcpy(&r, d + s->sh_offset + k * sizeof r, sizeof r);
    uint32_t type = (uint32_t)ELF64_R_TYPE(r.r_info);
    uint64_t sym = ELF64_R_SYM(r.r_info);
    unsigned w = reloc_width(type);
    if (w == 0)
      return BAD("relocation %llu of section %u has type %u, which llvm-cpu "
                 "never emits", (unsigned long long)k, ri, type);
    if (sym >= nsym)
      return BAD("relocation %llu of section %u uses symbol %llu of %llu",
                 (unsigned long long)k, ri, (unsigned long long)sym,
                 (unsigned long long)nsym);
    if (r.r_offset > tgt->sh_size || w > tgt->sh_size - r.r_offset)
      return BAD("relocation %llu of section %u patches offset %llu of a "
                 "%llu-byte section", (unsigned long long)k, ri,
                 (unsigned long long)r.r_offset,
                 (unsigned long long)tgt->sh_size);
  }
  return TVM_OK;
}

/* Checks a relocatable object (what module_load hands to the JIT). */
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
  int32_t st;
  for (unsigned i = 1; i < eh->e_shnum; i++) {
    if (sh[i].sh_type == SHT_SYMTAB && (st = check_symtab(d, n, eh, sh, i)))
      return st;
    if (sh[i].sh_type == SHT_DYNSYM || sh[i].sh_type == SHT_DYNAMIC)
      return BAD("section %u is dynamic-linking data in a relocatable "
                 "object", i);
  }
  for (unsigned i = 1; i < eh->e_shnum; i++)
    if ((sh[i].sh_type == SHT_RELA || sh[i].sh_type == SHT_REL) &&
        (st = check_rela(d, eh, sh, i)))
      return st;
  return TVM_OK;
}

/* Checks a shared object's program headers (dlopen maps them). */
static int32_t check_shared(uint64_t n, const uint8_t *d,
                            const Elf64_Ehdr *eh) {
  if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
      !in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), n))
    return BAD("the program headers lie outside the shared object");
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, d + eh->e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && (!in_file(ph.p_offset, ph.p_filesz, n) ||
                                 ph.p_memsz < ph.p_filesz ||
                                 ph.p_memsz > MAX_SECTION_BYTES))
      return BAD("segment %u lies outside the shared object", i);
    if (ph.p_type == PT_TLS)
      return BAD("segment %u is thread-local, which kernels never are", i);
  }
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
    return check_shared(n, d, &eh);
  }
  if (eh.e_type != ET_REL)
    return BAD("type %u, not a relocatable object", eh.e_type);
  return check_relocatable(d, n, &eh);
}
