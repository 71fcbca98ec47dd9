/*
 * elf_load.c - llvm-cpu's own loader for the relocatable x86-64 ELF
 * objects its codegen emits, used for every module it loads (packages
 * and freshly compiled code alike).
 *
 * Why a loader of our own rather than LLVM's ORC JIT (what loaded these
 * objects before): LLVM's object loaders trust their input and, on some
 * damaged objects, call report_fatal_error, which ends the process
 * whatever handler is installed; a package read from disk is input.  A
 * shared object handed to dlopen has the same problem with ld.so, and runs
 * initializers besides; a forked probe process would catch crashes but
 * not make the loaded image any safer, and costs a fork per load.  The
 * objects llvm-cpu emits are simple (PIC, small code model, no TLS, no
 * constructors, a handful of relocation types), so loading them takes
 * ~400 lines we can check completely:
 *
 *   1. lc_check_elf validates every header, section, symbol and
 *      relocation (bounds, alignment, types, indices, overlap);
 *   2. the loaded (SHF_ALLOC) sections are laid out in three page-aligned
 *      regions of one anonymous mapping: code, read-only data (with a GOT
 *      for GOTPCREL relocations), writable data (with .bss and common
 *      symbols), the whole under 1 GiB so 32-bit PC-relative relocations
 *      always reach within the image;
 *   3. external symbols resolve only against an allow-list (libm, memory
 *      functions, compiler support routines, names the host lists in
 *      $TVM_LLVM_CPU_EXTERNS) through dlsym, calls to them through 16-byte
 *      jump stubs reading the GOT;
 *   4. the relocation types LLVM emits for this code are applied, each
 *      result range-checked; any other type is refused by name;
 *   5. pages are protected W^X: code read+execute, constants and GOT
 *      read-only, data read+write; no page is ever writable and
 *      executable at once.
 *
 * Nothing here calls LLVM, aborts or exits: every failure is reported
 * through lc_report with the section and symbol it concerns.  This file
 * stays in the plugin rather than the SDK: only llvm-cpu emits x86-64
 * objects today, and its rules are those of llvm-cpu's code generator; a
 * second CPU-like plugin would move it to plugin-sdk/ whole.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_check.h"
#include "elf_load.h"
#include "tvm/base.h"

/* The most an image may take in memory: every PC-relative distance inside
 * it then fits in 32 bits. */
#define MAX_IMAGE_BYTES ((uint64_t)1 << 30)
#define NOT_LOADED UINT64_MAX
#define STUB_BYTES 16

enum { REG_TEXT, REG_RO, REG_DATA, NREG };

struct lc_image {
  uint8_t *base;   /* the mapping */
  size_t size;
  char *strtab;    /* copy of the symbol string table */
  uint64_t strsz;
  uint32_t nexp;   /* exported (global or weak, defined) symbols */
  uint64_t *exp_name; /* offsets into strtab */
  uintptr_t *exp_addr;
  uintptr_t code_lo, code_hi; /* the read+execute pages */
  uintptr_t data_lo, data_hi; /* the read+write pages */
};

/* Loader state for one object. */
typedef struct {
  const uint8_t *d;
  const Elf64_Ehdr *eh;
  const Elf64_Shdr *sh;
  unsigned symsec;       /* index of the symbol table (0: none) */
  uint64_t nsym;
  const char *str;       /* its string table */
  uint64_t strsz;
  uint64_t *secoff;      /* per section: offset in the image, or NOT_LOADED */
  uint64_t *symaddr;     /* per symbol: address once resolved */
  uint8_t *resolved;     /* per symbol: 1 once symaddr is known */
  int64_t *got;          /* per symbol: GOT slot index or -1 */
  int64_t *stub;         /* per symbol: jump-stub index or -1 */
  uint64_t *common;      /* per symbol: offset of a common symbol */
  uint64_t ngot, nstub;
  uint64_t regoff[NREG], regsize[NREG];
  uint64_t got_off, stub_off; /* image offsets of the GOT and stubs */
  uint8_t *base;
  size_t size;
} ld;

/* Fails with a message about the object that could not be loaded. */
#define FAIL(...)                                                           \
  lc_report(TVM_ERR_INVALID, "llvm-cpu: cannot load the kernel object: "    \
            __VA_ARGS__)

/* ---- the external-symbol allow-list ------------------------------------ */

/* C math functions generated code may call: each name as is (double)
 * and with an f suffix (float). */
static const char *const libm_names[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt",
    "ceil", "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp10",
    "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod",
    "frexp", "hypot", "ldexp", "lgamma", "llrint", "llround", "log", "log10",
    "log1p", "log2", "logb", "lrint", "lround", "modf", "nearbyint",
    "nextafter", "pow", "remainder", "rint", "round", "roundeven", "scalbn",
    "sin", "sincos", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc", NULL};

/* Memory functions (the codegen's heap allocations, LLVM's memcpy and
 * memset idioms) and compiler support routines LLVM calls for half and
 * bfloat16 conversions and 128-bit integer arithmetic. */
static const char *const other_names[] = {
    "memcpy", "memmove", "memset", "aligned_alloc", "free",
    "__extendhfsf2", "__truncsfhf2", "__truncdfhf2", "__gnu_h2f_ieee",
    "__gnu_f2h_ieee", "__truncsfbf2", "__truncdfbf2", "__powisf2",
    "__powidf2", "__divti3", "__udivti3", "__modti3", "__umodti3",
    "__muloti4", "__floattisf", "__floattidf", "__floatuntisf",
    "__floatuntidf", "__fixsfti", "__fixdfti", "__fixunssfti",
    "__fixunsdfti", "__ashlti3", "__ashrti3", "__lshrti3", NULL};

/* Is name one of the words of $TVM_LLVM_CPU_EXTERNS? */
static int host_listed(const char *name) {
  const char *list = getenv("TVM_LLVM_CPU_EXTERNS");
  size_t n = strlen(name);
  if (!list || n == 0) return 0;
  for (const char *p = list; *p;) {
    size_t w = strcspn(p, ",: \t");
    if (w == n && memcmp(p, name, n) == 0) return 1;
    p += w;
    if (*p) p++;
  }
  return 0;
}

int lc_extern_allowed(const char *name) {
  for (int i = 0; libm_names[i]; i++) {
    size_t n = strlen(libm_names[i]);
    if (strncmp(name, libm_names[i], n) == 0 &&
        (name[n] == 0 || (name[n] == 'f' && name[n + 1] == 0)))
      return 1;
  }
  for (int i = 0; other_names[i]; i++)
    if (strcmp(name, other_names[i]) == 0) return 1;
  return host_listed(name);
}

/* ---- symbols --------------------------------------------------------- */

static Elf64_Sym sym_at(const ld *l, uint64_t k) {
  Elf64_Sym s;
  memcpy(&s, l->d + l->sh[l->symsec].sh_offset + k * sizeof s, sizeof s);
  return s;
}

/* The symbol's name, "" for none (validated NUL-terminated). */
static const char *sym_name(const ld *l, const Elf64_Sym *s) {
  return l->strsz ? l->str + s->st_name : "";
}

/* Image offset of section i's region start. */
static uint64_t sec_addr(const ld *l, unsigned i) {
  return (uint64_t)(uintptr_t)l->base + l->secoff[i];
}

/* Resolves symbol k to its address (once): a defined symbol in its loaded
 * section, a common symbol in .bss, or an allowed external function. */
static int32_t resolve(ld *l, uint64_t k, uint64_t *out) {
  if (l->resolved[k]) {
    *out = l->symaddr[k];
    return TVM_OK;
  }
  Elf64_Sym s = sym_at(l, k);
  const char *nm = sym_name(l, &s);
  uint64_t a = 0;
  int weak = ELF64_ST_BIND(s.st_info) == STB_WEAK;
  if (k == 0) {
    a = 0;
  } else if (s.st_shndx == SHN_UNDEF) {
    if (!nm[0]) return FAIL("undefined symbol %llu has no name",
                            (unsigned long long)k);
    void *p = NULL;
    if (!lc_extern_allowed(nm)) {
      if (!weak)
        return FAIL("the code calls '%.80s', which is not a function kernels "
                    "may call (the C math library, memory functions, compiler "
                    "support routines; a host program exporting functions for "
                    "its kernels lists them in TVM_LLVM_CPU_EXTERNS)", nm);
    } else {
      dlerror();
      p = dlsym(RTLD_DEFAULT, nm);
      if (!p && !weak)
        return FAIL("symbol '%.80s' is not defined in this process (is every "
                    "extern function the code calls exported by the program?)",
                    nm);
    }
    a = (uint64_t)(uintptr_t)p;
  } else if (s.st_shndx == SHN_ABS) {
    a = s.st_value;
  } else if (s.st_shndx == SHN_COMMON) {
    a = (uint64_t)(uintptr_t)l->base + l->common[k];
  } else {
    if (l->secoff[s.st_shndx] == NOT_LOADED) {
      char lab[64];
      lc_elf_section_label(l->d, l->sh, l->eh->e_shstrndx, s.st_shndx, lab,
                           sizeof lab);
      return FAIL("symbol %llu '%.80s' is in %s, which is not loaded",
                  (unsigned long long)k, nm, lab);
    }
    a = sec_addr(l, s.st_shndx) + s.st_value;
  }
  l->symaddr[k] = a;
  l->resolved[k] = 1;
  *out = a;
  return TVM_OK;
}

/* ---- layout ---------------------------------------------------------- */

/* Appends `size` bytes aligned to `align` to region r; returns the offset
 * in the region or NOT_LOADED past the image limit. */
static uint64_t place(ld *l, int r, uint64_t size, uint64_t align) {
  if (align < 1) align = 1;
  uint64_t off = (l->regsize[r] + align - 1) & ~(align - 1);
  if (off > MAX_IMAGE_BYTES || size > MAX_IMAGE_BYTES - off) return NOT_LOADED;
  l->regsize[r] = off + size;
  return off;
}

/* Region of a loaded section: code, read-only or writable data. */
static int region_of(const Elf64_Shdr *s) {
  if (s->sh_flags & SHF_EXECINSTR) return REG_TEXT;
  return (s->sh_flags & SHF_WRITE) ? REG_DATA : REG_RO;
}

/* Is relocation section i applied (it patches a loaded section)? */
static int applied(const ld *l, unsigned i) {
  return l->sh[i].sh_type == SHT_RELA &&
         l->secoff[l->sh[i].sh_info] != NOT_LOADED;
}

/* Counts the GOT slots and jump stubs the relocations need. */
static void count_indirections(ld *l) {
  for (unsigned i = 1; i < l->eh->e_shnum; i++) {
    if (!applied(l, i)) continue;
    uint64_t nrel = l->sh[i].sh_size / sizeof(Elf64_Rela);
    for (uint64_t k = 0; k < nrel; k++) {
      Elf64_Rela r;
      memcpy(&r, l->d + l->sh[i].sh_offset + k * sizeof r, sizeof r);
      uint32_t t = (uint32_t)ELF64_R_TYPE(r.r_info);
      uint64_t s = ELF64_R_SYM(r.r_info);
      int external = s != 0 && sym_at(l, s).st_shndx == SHN_UNDEF;
      if ((t == R_X86_64_GOTPCREL || t == R_X86_64_GOTPCRELX ||
           t == R_X86_64_REX_GOTPCRELX || (t == R_X86_64_PLT32 && external)) &&
          l->got[s] < 0)
        l->got[s] = (int64_t)l->ngot++;
      if (t == R_X86_64_PLT32 && external && l->stub[s] < 0)
        l->stub[s] = (int64_t)l->nstub++;
    }
  }
}

/* Lays the loaded sections, common symbols, stubs and GOT out. */
static int32_t layout(ld *l) {
  for (unsigned i = 1; i < l->eh->e_shnum; i++) {
    const Elf64_Shdr *s = &l->sh[i];
    l->secoff[i] = NOT_LOADED;
    if (!(s->sh_flags & SHF_ALLOC)) continue;
    l->secoff[i] = place(l, region_of(s), s->sh_size, s->sh_addralign);
    if (l->secoff[i] == NOT_LOADED)
      return FAIL("its sections need more than %llu bytes",
                  (unsigned long long)MAX_IMAGE_BYTES);
  }
  for (uint64_t k = 1; k < l->nsym; k++) {
    Elf64_Sym s = sym_at(l, k);
    if (s.st_shndx != SHN_COMMON) continue;
    l->common[k] = place(l, REG_DATA, s.st_size, s.st_value);
    if (l->common[k] == NOT_LOADED)
      return FAIL("its common symbols need more than %llu bytes",
                  (unsigned long long)MAX_IMAGE_BYTES);
  }
  count_indirections(l);
  l->stub_off = place(l, REG_TEXT, l->nstub * STUB_BYTES, 16);
  l->got_off = place(l, REG_RO, l->ngot * 8, 8);
  if (l->stub_off == NOT_LOADED || l->got_off == NOT_LOADED)
    return FAIL("too many external references");
  long pg = sysconf(_SC_PAGESIZE);
  uint64_t page = pg > 0 ? (uint64_t)pg : 4096, total = 0;
  for (int r = 0; r < NREG; r++) {
    l->regoff[r] = total;
    total += (l->regsize[r] + page - 1) & ~(page - 1);
  }
  if (total > MAX_IMAGE_BYTES)
    return FAIL("it needs %llu bytes of memory, more than %llu",
                (unsigned long long)total, (unsigned long long)MAX_IMAGE_BYTES);
  /* region offsets -> image offsets */
  for (unsigned i = 1; i < l->eh->e_shnum; i++)
    if (l->secoff[i] != NOT_LOADED)
      l->secoff[i] += l->regoff[region_of(&l->sh[i])];
  for (uint64_t k = 1; k < l->nsym; k++)
    if (sym_at(l, k).st_shndx == SHN_COMMON) l->common[k] += l->regoff[REG_DATA];
  l->stub_off += l->regoff[REG_TEXT];
  l->got_off += l->regoff[REG_RO];
  l->size = (size_t)(total ? total : page);
  void *p = mmap(NULL, l->size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return lc_report(TVM_ERR_NOMEM, "llvm-cpu: cannot map %llu bytes for the "
                     "kernel object", (unsigned long long)l->size);
  l->base = p;
  for (unsigned i = 1; i < l->eh->e_shnum; i++)
    if (l->secoff[i] != NOT_LOADED && l->sh[i].sh_type != SHT_NOBITS)
      memcpy(l->base + l->secoff[i], l->d + l->sh[i].sh_offset,
             (size_t)l->sh[i].sh_size);
  return TVM_OK;
}

/* Fills the GOT slots with their symbols' addresses and writes each jump
 * stub: jmp *slot(%rip), padded with int3. */
static int32_t fill_indirections(ld *l) {
  for (uint64_t k = 0; k < l->nsym; k++) {
    uint64_t a;
    int32_t st;
    if (l->got[k] < 0) continue;
    if ((st = resolve(l, k, &a)) != TVM_OK) return st;
    uint64_t slot = l->got_off + 8 * (uint64_t)l->got[k];
    memcpy(l->base + slot, &a, 8);
    if (l->stub[k] < 0) continue;
    uint8_t *stub = l->base + l->stub_off + STUB_BYTES * (uint64_t)l->stub[k];
    int32_t rel = (int32_t)((int64_t)slot - (int64_t)(stub + 6 - l->base));
    stub[0] = 0xff;
    stub[1] = 0x25;
    memcpy(stub + 2, &rel, 4);
    memset(stub + 6, 0xcc, STUB_BYTES - 6);
  }
  return TVM_OK;
}

/* Applies relocation k of section ri. */
static int32_t apply_one(ld *l, unsigned ri, uint64_t k, const Elf64_Rela *r) {
  uint32_t t = (uint32_t)ELF64_R_TYPE(r->r_info);
  uint64_t si = ELF64_R_SYM(r->r_info);
  unsigned tgt = l->sh[ri].sh_info;
  uint64_t P = sec_addr(l, tgt) + r->r_offset, S;
  uint8_t *where = l->base + l->secoff[tgt] + r->r_offset;
  int32_t st;
  if (t == R_X86_64_NONE) return TVM_OK;
  if ((st = resolve(l, si, &S)) != TVM_OK) return st;
  uint64_t A = (uint64_t)r->r_addend, v;
  int check32 = 1, is_unsigned = 0;
  switch (t) {
  case R_X86_64_64: v = S + A; check32 = 0; break;
  case R_X86_64_PC64: v = S + A - P; check32 = 0; break;
  case R_X86_64_PC32: v = S + A - P; break;
  case R_X86_64_PLT32:
    if (l->stub[si] >= 0)
      S = (uint64_t)(uintptr_t)l->base + l->stub_off +
          STUB_BYTES * (uint64_t)l->stub[si];
    v = S + A - P;
    break;
  case R_X86_64_32: v = S + A; is_unsigned = 1; break;
  case R_X86_64_32S: v = S + A; break;
  case R_X86_64_GOTPCREL: case R_X86_64_GOTPCRELX:
  case R_X86_64_REX_GOTPCRELX:
    v = (uint64_t)(uintptr_t)l->base + l->got_off + 8 * (uint64_t)l->got[si] +
        A - P;
    break;
  default: {
    char lab[64];
    lc_elf_section_label(l->d, l->sh, l->eh->e_shstrndx, ri, lab, sizeof lab);
    return FAIL("relocation %llu of %s has type %u (%s), which this loader "
                "does not apply", (unsigned long long)k, lab, t,
                lc_elf_reloc_name(t));
  }
  }
  if (!check32) {
    memcpy(where, &v, 8);
    return TVM_OK;
  }
  int fits = is_unsigned ? v <= UINT32_MAX
                         : (int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX;
  if (!fits) {
    char lab[64];
    Elf64_Sym s = sym_at(l, si);
    lc_elf_section_label(l->d, l->sh, l->eh->e_shstrndx, ri, lab, sizeof lab);
    return FAIL("relocation %llu of %s (%s against '%.80s') does not fit in "
                "32 bits (value 0x%llx): the object was not compiled as "
                "position-independent code for the small code model",
                (unsigned long long)k, lab, lc_elf_reloc_name(t),
                sym_name(l, &s), (unsigned long long)v);
  }
  uint32_t w = (uint32_t)v;
  memcpy(where, &w, 4);
  return TVM_OK;
}

/* Applies every relocation of every loaded section. */
static int32_t relocate(ld *l) {
  for (unsigned i = 1; i < l->eh->e_shnum; i++) {
    if (!applied(l, i)) continue;
    uint64_t nrel = l->sh[i].sh_size / sizeof(Elf64_Rela);
    for (uint64_t k = 0; k < nrel; k++) {
      Elf64_Rela r;
      memcpy(&r, l->d + l->sh[i].sh_offset + k * sizeof r, sizeof r);
      int32_t st = apply_one(l, i, k, &r);
      if (st != TVM_OK) return st;
    }
  }
  return TVM_OK;
}

/* Protects the regions W^X: code r-x, constants and GOT r--, data rw-. */
static int32_t protect(ld *l) {
  static const int prot[NREG] = {PROT_READ | PROT_EXEC, PROT_READ,
                                 PROT_READ | PROT_WRITE};
  static const char *const what[NREG] = {"code", "constants", "data"};
  for (int r = 0; r < NREG; r++) {
    uint64_t end = r + 1 < NREG ? l->regoff[r + 1] : l->size;
    if (end <= l->regoff[r] || prot[r] == (PROT_READ | PROT_WRITE)) continue;
    if (mprotect(l->base + l->regoff[r], (size_t)(end - l->regoff[r]),
                 prot[r]) != 0)
      return lc_report(TVM_ERR_UNAVAILABLE, "llvm-cpu: cannot protect the "
                       "kernel object's %s pages (mprotect refused: a policy "
                       "forbidding executable memory?)", what[r]);
  }
  return TVM_OK;
}

/* Records the image's global and weak defined symbols for lookups. */
static int32_t exports(ld *l, lc_image *im) {
  uint64_t n = 0;
  for (int pass = 0; pass < 2; pass++) {
    n = 0;
    for (uint64_t k = 1; k < l->nsym; k++) {
      Elf64_Sym s = sym_at(l, k);
      int bind = ELF64_ST_BIND(s.st_info), type = ELF64_ST_TYPE(s.st_info);
      if ((bind != STB_GLOBAL && bind != STB_WEAK) || s.st_shndx == SHN_UNDEF ||
          type == STT_SECTION || type == STT_FILE || !sym_name(l, &s)[0])
        continue;
      if (s.st_shndx < l->eh->e_shnum && s.st_shndx != SHN_ABS &&
          l->secoff[s.st_shndx] == NOT_LOADED)
        continue;
      if (pass == 1) {
        uint64_t a;
        int32_t st = resolve(l, k, &a);
        if (st != TVM_OK) return st;
        im->exp_name[n] = s.st_name;
        im->exp_addr[n] = (uintptr_t)a;
      }
      n++;
    }
    if (pass == 0) {
      im->exp_name = malloc((size_t)(n ? n : 1) * sizeof *im->exp_name);
      im->exp_addr = malloc((size_t)(n ? n : 1) * sizeof *im->exp_addr);
      im->strtab = malloc((size_t)(l->strsz ? l->strsz : 1));
      if (!im->exp_name || !im->exp_addr || !im->strtab)
        return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
      if (l->strsz) memcpy(im->strtab, l->str, (size_t)l->strsz);
      im->strsz = l->strsz;
    }
  }
  im->nexp = (uint32_t)n;
  return TVM_OK;
}

/* Frees the loader's per-object tables (not the mapping). */
static void ld_free(ld *l) {
  free(l->secoff);
  free(l->symaddr);
  free(l->resolved);
  free(l->got);
  free(l->stub);
  free(l->common);
}

/* Loads the validated, 8-byte-aligned object d[0..n). */
static int32_t load_aligned(const uint8_t *d, uint64_t n, lc_image **out) {
  (void)n;
  ld l;
  memset(&l, 0, sizeof l);
  l.d = d;
  l.eh = (const Elf64_Ehdr *)d;
  l.sh = (const Elf64_Shdr *)(d + l.eh->e_shoff);
  for (unsigned i = 1; i < l.eh->e_shnum; i++)
    if (l.sh[i].sh_type == SHT_SYMTAB) l.symsec = i;
  if (l.symsec) {
    l.nsym = l.sh[l.symsec].sh_size / sizeof(Elf64_Sym);
    const Elf64_Shdr *str = &l.sh[l.sh[l.symsec].sh_link];
    l.str = (const char *)d + str->sh_offset;
    l.strsz = str->sh_size;
  }
  size_t ns = (size_t)(l.nsym ? l.nsym : 1);
  l.secoff = calloc(l.eh->e_shnum, sizeof *l.secoff);
  l.symaddr = calloc(ns, sizeof *l.symaddr);
  l.resolved = calloc(ns, 1);
  l.got = malloc(ns * sizeof *l.got);
  l.stub = malloc(ns * sizeof *l.stub);
  l.common = calloc(ns, sizeof *l.common);
  lc_image *im = calloc(1, sizeof *im);
  int32_t st = TVM_OK;
  if (!l.secoff || !l.symaddr || !l.resolved || !l.got || !l.stub ||
      !l.common || !im) {
    st = lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
    goto done;
  }
  memset(l.got, 0xff, ns * sizeof *l.got); /* -1 */
  memset(l.stub, 0xff, ns * sizeof *l.stub);
  if ((st = layout(&l)) != TVM_OK) goto done;
  im->base = l.base;
  im->size = l.size;
  im->code_lo = (uintptr_t)l.base + l.regoff[REG_TEXT];
  im->code_hi = (uintptr_t)l.base + l.regoff[REG_RO];
  im->data_lo = (uintptr_t)l.base + l.regoff[REG_DATA];
  im->data_hi = (uintptr_t)l.base + l.size;
  if ((st = fill_indirections(&l)) != TVM_OK) goto done;
  if ((st = relocate(&l)) != TVM_OK) goto done;
  if ((st = exports(&l, im)) != TVM_OK) goto done;
  if ((st = protect(&l)) != TVM_OK) goto done;
done:
  ld_free(&l);
  if (st != TVM_OK) {
    if (im)
      lc_image_free(im);
    else if (l.base)
      munmap(l.base, l.size);
    return st;
  }
  *out = im;
  return TVM_OK;
}

int32_t lc_image_load(const uint8_t *d, uint64_t n, lc_image **out) {
  *out = NULL;
  int32_t st = lc_check_elf(d, n, 0);
  if (st != TVM_OK) return st;
  if ((uintptr_t)d % 8 == 0) return load_aligned(d, n, out);
  /* headers are read in place: work on an aligned copy */
  uint8_t *copy = malloc((size_t)n);
  if (!copy) return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  memcpy(copy, d, (size_t)n);
  st = load_aligned(copy, n, out);
  free(copy);
  return st;
}

void *lc_image_symbol(const lc_image *im, const char *name) {
  if (!im) return NULL;
  for (uint32_t i = 0; i < im->nexp; i++)
    if (strcmp(im->strtab + im->exp_name[i], name) == 0)
      return (void *)im->exp_addr[i];
  return NULL;
}

void *lc_image_code(const lc_image *im, const char *name) {
  uintptr_t a = (uintptr_t)lc_image_symbol(im, name);
  return a >= im->code_lo && a < im->code_hi ? (void *)a : NULL;
}

void *lc_image_data(const lc_image *im, const char *name, uint64_t bytes) {
  uintptr_t a = (uintptr_t)lc_image_symbol(im, name);
  int aligned = (bytes & (bytes - 1)) != 0 || bytes > 8 || a % bytes == 0;
  return a >= im->data_lo && a < im->data_hi && bytes <= im->data_hi - a &&
                 aligned
             ? (void *)a
             : NULL;
}

void lc_image_free(lc_image *im) {
  if (!im) return;
  if (im->base) munmap(im->base, im->size);
  free(im->strtab);
  free(im->exp_name);
  free(im->exp_addr);
  free(im);
}
