/*
 * test_elf_load.c - llvm-cpu's own object loader (elf_load.c, compiled
 * into this program along with elf_check.c):
 *   - real kernels (libm calls, vector constants in .rodata, a parallel
 *     loop, an extern call) compiled once as an object, loaded by the
 *     plugin through elf_load.c, and once as a shared object loaded by
 *     ld.so: both must give bitwise the same results, and the reference's
 *     within tolerance; the relocation types those objects use are counted;
 *   - a hand-made object using every relocation type the loader applies,
 *     whose patched bytes, jump stubs, GOT and page protections (W^X) are
 *     checked one by one, and whose code is called;
 *   - damaged objects (truncated, bad section offset, bad symbol index,
 *     bad relocation type or offset, overlapping sections, a symbol
 *     outside its section, a forbidden extern, writable code, ...) refused
 *     with a message naming the section; and 3000 random byte mutations of
 *     a real kernel object, each refused cleanly or loaded without harm;
 *   - a module of several functions, compiled in parts whose objects
 *     elf_merge.c joins: one symbol table, the module globals defined
 *     once, every function run from the object and the shared object;
 *     two parts defining one name are refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "elf_check.h"
#include "elf_load.h"
#include "elf_merge.h"
#include "elf_report.h"
#include "harness.h"
#include "tvm/te.h"

/* Loads d[0..n) and expects a refusal whose message holds every string of
 * the NULL-terminated list. */
static void expect_refused(const uint8_t *d, size_t n, const char *what, ...) {
  lc_image *im = NULL;
  lc_test_msg[0] = 0;
  int32_t st = lc_image_load(d, n, &im);
  if (st == 0) {
    lc_image_free(im);
    fail_msg("%s: loaded, want a refusal", what);
  }
  assert_null(im);
  va_list ap;
  va_start(ap, what);
  lc_test_expect_msg(what, ap);
  va_end(ap);
  printf("  %-22s %s\n", what, lc_test_msg);
}

/* ---- a hand-made object with every relocation type ---------------------- */

enum { S_TEXT = 1, S_RODATA, S_DATA, S_BSS, S_RELA_TEXT, S_RELA_DATA,
       S_SYMTAB, S_STRTAB, S_SHSTRTAB, NSEC };
enum { Y_NULL, Y_SECT_TEXT, Y_SECT_RO, Y_F42, Y_RO, Y_DATA, Y_BSS, Y_ABS,
       Y_ABSNEG, Y_EXT, NSYM };

typedef struct {
  uint8_t b[4096];
  size_t n;
  uint64_t off[NSEC]; /* file offsets of the sections */
  uint64_t shoff;
} obj;

static size_t put(obj *o, const void *p, size_t n, size_t align) {
  o->n = (o->n + align - 1) & ~(align - 1);
  size_t at = o->n;
  memcpy(o->b + at, p, n);
  o->n += n;
  return at;
}

static Elf64_Rela rela(uint64_t off, uint32_t sym, uint32_t type, int64_t a) {
  Elf64_Rela r = {off, ELF64_R_INFO(sym, type), a};
  return r;
}

/* Builds the object; ext names its one external function (expf). */
static void make_obj(obj *o, const char *ext) {
  memset(o, 0, sizeof *o);
  o->n = sizeof(Elf64_Ehdr);
  uint8_t text[64];
  memset(text, 0xcc, sizeof text);
  const uint8_t f42[] = {0xb8, 42, 0, 0, 0, 0xc3}; /* mov $42,%eax; ret */
  memcpy(text + 32, f42, sizeof f42);
  o->off[S_TEXT] = put(o, text, sizeof text, 16);
  uint8_t ro[16];
  for (int i = 0; i < 16; i++) ro[i] = (uint8_t)i;
  o->off[S_RODATA] = put(o, ro, sizeof ro, 16);
  uint8_t data[32] = {0};
  o->off[S_DATA] = put(o, data, sizeof data, 8);
  o->off[S_BSS] = o->n;
  Elf64_Rela rt[] = {
      rela(0, Y_RO, R_X86_64_PC32, -4),
      rela(4, Y_EXT, R_X86_64_PLT32, -4),
      rela(8, Y_DATA, R_X86_64_GOTPCREL, -4),
      rela(12, Y_BSS, R_X86_64_GOTPCRELX, -4),
      rela(16, Y_EXT, R_X86_64_REX_GOTPCRELX, -4),
      rela(20, Y_F42, R_X86_64_PLT32, -4),
      rela(24, 0, R_X86_64_NONE, 0)};
  o->off[S_RELA_TEXT] = put(o, rt, sizeof rt, 8);
  Elf64_Rela rd[] = {
      rela(0, Y_SECT_RO, R_X86_64_64, 8),
      rela(8, Y_F42, R_X86_64_PC64, 0),
      rela(16, Y_ABS, R_X86_64_32, 1),
      rela(20, Y_ABSNEG, R_X86_64_32S, 0),
      rela(24, Y_BSS, R_X86_64_PC32, 0)};
  o->off[S_RELA_DATA] = put(o, rd, sizeof rd, 8);
  char str[64];
  size_t sn = 1, nm[NSYM] = {0};
  str[0] = 0;
  const char *names[NSYM] = {NULL, NULL, NULL, "f42", "ro", "data", "bss",
                             "absv", "absneg", ext};
  for (int i = 0; i < NSYM; i++)
    if (names[i]) {
      nm[i] = sn;
      memcpy(str + sn, names[i], strlen(names[i]) + 1);
      sn += strlen(names[i]) + 1;
    }
  Elf64_Sym sy[NSYM];
  memset(sy, 0, sizeof sy);
#define SYM(i, bind, type, sec, val, size)                                    \
  sy[i] = (Elf64_Sym){(uint32_t)nm[i], ELF64_ST_INFO(bind, type), 0, sec, val, \
                      size}
  SYM(Y_SECT_TEXT, STB_LOCAL, STT_SECTION, S_TEXT, 0, 0);
  SYM(Y_SECT_RO, STB_LOCAL, STT_SECTION, S_RODATA, 0, 0);
  SYM(Y_F42, STB_GLOBAL, STT_FUNC, S_TEXT, 32, 6);
  SYM(Y_RO, STB_GLOBAL, STT_OBJECT, S_RODATA, 0, 16);
  SYM(Y_DATA, STB_GLOBAL, STT_OBJECT, S_DATA, 0, 32);
  SYM(Y_BSS, STB_GLOBAL, STT_OBJECT, S_BSS, 0, 16);
  SYM(Y_ABS, STB_GLOBAL, STT_NOTYPE, SHN_ABS, 0x1234, 0);
  SYM(Y_ABSNEG, STB_GLOBAL, STT_NOTYPE, SHN_ABS, (uint64_t)-16, 0);
  SYM(Y_EXT, STB_GLOBAL, STT_NOTYPE, SHN_UNDEF, 0, 0);
#undef SYM
  o->off[S_SYMTAB] = put(o, sy, sizeof sy, 8);
  o->off[S_STRTAB] = put(o, str, sn, 1);
  const char shs[] = "\0.text\0.rodata\0.data\0.bss\0.rela.text\0.rela.data\0"
                     ".symtab\0.strtab\0.shstrtab";
  o->off[S_SHSTRTAB] = put(o, shs, sizeof shs, 1);
  Elf64_Shdr sh[NSEC];
  memset(sh, 0, sizeof sh);
#define SEC(i, name, type, flags, size, align, link, info, ent)               \
  sh[i] = (Elf64_Shdr){name, type, flags, 0, o->off[i], size, link, info,     \
                       align, ent}
  SEC(S_TEXT, 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 64, 16, 0, 0, 0);
  SEC(S_RODATA, 7, SHT_PROGBITS, SHF_ALLOC, 16, 16, 0, 0, 0);
  SEC(S_DATA, 15, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 32, 8, 0, 0, 0);
  SEC(S_BSS, 21, SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 16, 8, 0, 0, 0);
  SEC(S_RELA_TEXT, 26, SHT_RELA, SHF_INFO_LINK, sizeof rt, 8, S_SYMTAB, S_TEXT,
      sizeof(Elf64_Rela));
  SEC(S_RELA_DATA, 37, SHT_RELA, SHF_INFO_LINK, sizeof rd, 8, S_SYMTAB, S_DATA,
      sizeof(Elf64_Rela));
  SEC(S_SYMTAB, 48, SHT_SYMTAB, 0, sizeof sy, 8, S_STRTAB, Y_F42,
      sizeof(Elf64_Sym));
  SEC(S_STRTAB, 56, SHT_STRTAB, 0, sn, 1, 0, 0, 0);
  SEC(S_SHSTRTAB, 64, SHT_STRTAB, 0, sizeof shs, 1, 0, 0, 0);
#undef SEC
  o->shoff = put(o, sh, sizeof sh, 8);
  Elf64_Ehdr eh;
  memset(&eh, 0, sizeof eh);
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = o->shoff;
  eh.e_ehsize = sizeof eh;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = NSEC;
  eh.e_shstrndx = S_SHSTRTAB;
  memcpy(o->b, &eh, sizeof eh);
}

static Elf64_Shdr *shdr(obj *o, int i) {
  return (Elf64_Shdr *)(o->b + o->shoff) + i;
}
static Elf64_Rela *rel_at(obj *o, int sec, int k) {
  return (Elf64_Rela *)(o->b + o->off[sec]) + k;
}
static Elf64_Sym *sym(obj *o, int k) {
  return (Elf64_Sym *)(o->b + o->off[S_SYMTAB]) + k;
}

static int32_t rd32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t rd64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The permissions ("r-xp") of the mapping holding p, from /proc/self/maps. */
static void perms_of(const void *p, char out[5]) {
  FILE *f = fopen("/proc/self/maps", "r");
  assert_non_null(f);
  char line[512];
  strcpy(out, "none");
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char pr[5];
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, pr) == 3 &&
        (uintptr_t)p >= lo && (uintptr_t)p < hi) {
      memcpy(out, pr, 5);
      break;
    }
  }
  fclose(f);
}

static void test_every_relocation(void **state) {
  (void)state;
  obj o;
  make_obj(&o, "expf");
  lc_image *im = NULL;
  if (lc_image_load(o.b, o.n, &im) != 0) fail_msg("%s", lc_test_msg);
  uint8_t *text = (uint8_t *)lc_image_symbol(im, "f42") - 32;
  uint8_t *ro = lc_image_symbol(im, "ro"), *data = lc_image_symbol(im, "data");
  uint8_t *bss = lc_image_symbol(im, "bss");
  assert_non_null(ro);
  assert_non_null(data);
  assert_non_null(bss);
  assert_int_equal((uintptr_t)lc_image_symbol(im, "absv"), 0x1234);
  assert_null(lc_image_symbol(im, "expf")); /* undefined: not exported */
  assert_null(lc_image_symbol(im, "nothing"));
  /* only code for calls, only writable data for the runtime's stores */
  assert_ptr_equal(lc_image_code(im, "f42"), lc_image_symbol(im, "f42"));
  assert_null(lc_image_code(im, "data"));
  assert_null(lc_image_code(im, "absv"));
  assert_ptr_equal(lc_image_data(im, "data", 32), data);
  assert_ptr_equal(lc_image_data(im, "bss", 16), bss);
  assert_null(lc_image_data(im, "ro", 8));
  assert_null(lc_image_data(im, "f42", 8));
  assert_null(lc_image_data(im, "absv", 4));

  void *expf_addr = dlsym(RTLD_DEFAULT, "expf");
  assert_non_null(expf_addr);
  /* R_X86_64_PC32: ro - 4 - P */
  assert_int_equal(rd32(text + 0), (int64_t)(ro - 4 - text));
  /* R_X86_64_PLT32 to an external: a stub jmp *slot(%rip), slot = &expf */
  uint8_t *stub = text + 4 + 4 + rd32(text + 4);
  assert_int_equal(stub[0], 0xff);
  assert_int_equal(stub[1], 0x25);
  assert_int_equal(rd64(stub + 6 + rd32(stub + 2)), (uintptr_t)expf_addr);
  float (*via_stub)(float) = (float (*)(float))(uintptr_t)stub;
  assert_true(via_stub(1.5f) == expf(1.5f));
  /* GOTPCREL, GOTPCRELX, REX_GOTPCRELX: slot = P + 4 + value */
  assert_int_equal(rd64(text + 8 + 4 + rd32(text + 8)), (uintptr_t)data);
  assert_int_equal(rd64(text + 12 + 4 + rd32(text + 12)), (uintptr_t)bss);
  assert_int_equal(rd64(text + 16 + 4 + rd32(text + 16)), (uintptr_t)expf_addr);
  /* R_X86_64_PLT32 to a local function: direct */
  assert_ptr_equal(text + 20 + 4 + rd32(text + 20), text + 32);
  int (*f42)(void) = (int (*)(void))(uintptr_t)(text + 32);
  assert_int_equal(f42(), 42);
  /* R_X86_64_64, PC64, 32, 32S, PC32 in .data */
  assert_int_equal(rd64(data + 0), (uintptr_t)(ro + 8));
  assert_int_equal(rd64(data + 8), (uint64_t)((text + 32) - (data + 8)));
  assert_int_equal(rd32(data + 16), 0x1235);
  assert_int_equal(rd32(data + 20), -16);
  assert_int_equal(rd32(data + 24), (int64_t)(bss - (data + 24)));
  assert_int_equal(ro[3], 3); /* copied */
  for (int i = 0; i < 16; i++) assert_int_equal(bss[i], 0);
  /* W^X: code r-x, constants r--, data rw- */
  char pr[5];
  perms_of(text, pr);
  assert_string_equal(pr, "r-xp");
  perms_of(ro, pr);
  assert_string_equal(pr, "r--p");
  perms_of(data, pr);
  assert_string_equal(pr, "rw-p");
  lc_image_free(im);
}

static void test_damaged_objects(void **state) {
  (void)state;
  obj o;
  make_obj(&o, "expf");
  expect_refused(o.b, 40, "truncated header", "shorter than an ELF header",
                 NULL);
  expect_refused(o.b, o.n - 8, "truncated", "section headers lie outside",
                 NULL);
  make_obj(&o, "expf");
  shdr(&o, S_RODATA)->sh_offset = 1ull << 40;
  expect_refused(o.b, o.n, "section offset", "section 2 (16 bytes at", NULL);
  make_obj(&o, "expf");
  rel_at(&o, S_RELA_TEXT, 2)->r_info = ELF64_R_INFO(99, R_X86_64_GOTPCREL);
  expect_refused(o.b, o.n, "symbol index", "relocation 2 of section 5 "
                 "'.rela.text' uses symbol 99 of 10", NULL);
  make_obj(&o, "expf");
  rel_at(&o, S_RELA_DATA, 1)->r_info = ELF64_R_INFO(Y_F42, R_X86_64_TPOFF32);
  expect_refused(o.b, o.n, "relocation type", "'.rela.data'", "'.data'",
                 "R_X86_64_TPOFF32", NULL);
  make_obj(&o, "expf");
  rel_at(&o, S_RELA_DATA, 1)->r_info = ELF64_R_INFO(Y_F42, R_X86_64_GOTOFF64);
  expect_refused(o.b, o.n, "relocation type 2", "R_X86_64_GOTOFF64", NULL);
  make_obj(&o, "expf");
  rel_at(&o, S_RELA_TEXT, 0)->r_offset = 62;
  expect_refused(o.b, o.n, "relocation offset", "patches offset 62 of the "
                 "64-byte section 1 '.text'", NULL);
  make_obj(&o, "expf");
  shdr(&o, S_RODATA)->sh_offset = o.off[S_TEXT] + 8;
  expect_refused(o.b, o.n, "overlapping sections", "section 1 '.text' and "
                 "section 2 '.rodata' overlap", NULL);
  make_obj(&o, "expf");
  shdr(&o, S_STRTAB)->sh_offset = 0;
  expect_refused(o.b, o.n, "over the ELF header", "the ELF headers and "
                 "section 8 '.strtab' overlap", NULL);
  make_obj(&o, "expf");
  sym(&o, Y_F42)->st_value = 62;
  expect_refused(o.b, o.n, "symbol outside", "symbol 3 of section 7 "
                 "'.symtab' (6 bytes at 62) lies outside its 64-byte section "
                 "1 '.text'", NULL);
  make_obj(&o, "expf");
  sym(&o, Y_DATA)->st_shndx = 40;
  expect_refused(o.b, o.n, "symbol section", "symbol 5 of section 7 "
                 "'.symtab' is in section 40 of 10", NULL);
  make_obj(&o, "expf");
  shdr(&o, S_TEXT)->sh_flags |= SHF_WRITE;
  expect_refused(o.b, o.n, "writable code", "section 1 '.text' is both "
                 "writable and executable", NULL);
  make_obj(&o, "expf");
  shdr(&o, S_DATA)->sh_type = SHT_INIT_ARRAY;
  expect_refused(o.b, o.n, "constructors", "section 3 '.data' holds "
                 "constructors", NULL);
  make_obj(&o, "expf");
  shdr(&o, S_RELA_DATA)->sh_info = S_BSS;
  expect_refused(o.b, o.n, "relocating .bss", "patches section 4 '.bss', "
                 "which holds no code or data", NULL);
  make_obj(&o, "expf");
  shdr(&o, S_TEXT)->sh_addralign = 3;
  expect_refused(o.b, o.n, "alignment", "section 1 has alignment 3", NULL);
  make_obj(&o, "expf");
  rel_at(&o, S_RELA_DATA, 2)->r_info = ELF64_R_INFO(Y_DATA, R_X86_64_32);
  expect_refused(o.b, o.n, "32 bits overflow", "relocation 2 of section 6 "
                 "'.rela.data' (R_X86_64_32 against 'data') does not fit in "
                 "32 bits", NULL);
  make_obj(&o, "system");
  expect_refused(o.b, o.n, "forbidden extern", "'system', which is not a "
                 "function kernels may call", NULL);
  make_obj(&o, "tvm_test_not_here");
  setenv("TVM_LLVM_CPU_EXTERNS", "a,tvm_test_not_here", 1);
  expect_refused(o.b, o.n, "missing extern", "'tvm_test_not_here' is not "
                 "defined in this process", NULL);
  unsetenv("TVM_LLVM_CPU_EXTERNS");
  /* a module global misaligned for its size (found by fuzz_package) */
  make_obj(&o, "expf");
  sym(&o, Y_DATA)->st_value = 4;
  sym(&o, Y_DATA)->st_size = 8;
  lc_image *im = NULL;
  if (lc_image_load(o.b, o.n, &im) != 0) fail_msg("%s", lc_test_msg);
  assert_null(lc_image_data(im, "data", 8));
  assert_non_null(lc_image_data(im, "data", 4));
  lc_image_free(im);
  /* the allow-list itself */
  assert_true(lc_extern_allowed("tanhf"));
  assert_true(lc_extern_allowed("erf"));
  assert_true(lc_extern_allowed("memset"));
  assert_false(lc_extern_allowed("tanhff"));
  assert_false(lc_extern_allowed("execve"));
  assert_false(lc_extern_allowed("dlopen"));
  setenv("TVM_LLVM_CPU_EXTERNS", "foo:bar baz", 1);
  assert_true(lc_extern_allowed("bar"));
  assert_true(lc_extern_allowed("baz"));
  assert_false(lc_extern_allowed("ba"));
  unsetenv("TVM_LLVM_CPU_EXTERNS");
}

/* ---- real kernels: the loader against ld.so ----------------------------- */

static tvm_ctx *C;

#define I(v) tvm_int(C, v)
#define F(v) tvm_f32(C, v)
#define VAR(n) tvm_var(C, n, TVM_I32)
#define HV(n) tvm_var(C, n, TVM_HANDLE)
#define LD(t, b, i) tvm_load(C, t, b, i, NULL)
#define ST(b, i, v) tvm_store(C, b, i, v, NULL)

static int setup(void **state) {
  (void)state;
  if (h_load_plugin() != 0) return -1;
  C = tvm_ctx_create();
  return C ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  tvm_ctx_destroy(C);
  C = NULL;
  return 0;
}

enum { N = 64, NOUT = 9 * N };

/* One kernel touching what the loader must get right: libm calls (tanh,
 * erf, cos: PLT32 through stubs), the inline vector exp/tanh (vector
 * constants in .rodata: PC32), an extern call of expf, and a parallel
 * loop (the module globals through the GOT, the task function by
 * address). */
static tvm_module *kernels(void) {
  tvm_expr *a = HV("a"), *o = HV("o"), *i = VAR("i"), *v = VAR("v");
  tvm_expr *p = VAR("p");
  tvm_expr *x = LD(TVM_F32, a, i);
  tvm_intrin ops[5] = {TVM_INTRIN_TANH, TVM_INTRIN_ERF, TVM_INTRIN_COS,
                       TVM_INTRIN_EXP, TVM_INTRIN_SIGMOID};
  tvm_stmt *st = NULL;
  for (int k = 0; k < 5; k++)
    st = tvm_seq2(C, st, ST(o, tvm_add(C, i, I(k * N)), tvm_math(C, ops[k], x)));
  tvm_expr *xa[] = {x};
  st = tvm_seq2(C, st, ST(o, tvm_add(C, i, I(5 * N)),
                          tvm_call_extern(C, TVM_F32, "expf", xa, 1)));
  tvm_expr *r8 = tvm_ramp(C, tvm_mul(C, v, I(8)), I(1), 8);
  tvm_expr *xv = LD(tvm_dt(kDLFloat, 32, 8), a, r8);
  tvm_stmt *vs = NULL;
  for (int k = 0; k < 2; k++)
    vs = tvm_seq2(C, vs,
                  ST(o, tvm_add(C, r8, tvm_broadcast(C, I((6 + k) * N), 8)),
                     tvm_math(C, k ? TVM_INTRIN_TANH : TVM_INTRIN_EXP, xv)));
  tvm_expr *xp = LD(TVM_F32, a, p);
  tvm_stmt *ps = ST(o, tvm_add(C, p, I(8 * N)),
                    tvm_add(C, tvm_mul(C, xp, xp), F(0.5)));
  tvm_stmt *body = tvm_seq2(
      C, tvm_for(C, i, I(0), I(N), TVM_FOR_SERIAL, NULL, st),
      tvm_seq2(C, tvm_for(C, v, I(0), I(N / 8), TVM_FOR_SERIAL, NULL, vs),
               tvm_for(C, p, I(0), I(N), TVM_FOR_PARALLEL, NULL, ps)));
  tvm_expr *params[] = {a, o};
  tvm_func *f = tvm_func_new(C, "mix", params, NULL, 2, body);
  tvm_module *m = tvm_ctx_alloc(C, sizeof *m);
  m->ctx = C;
  assert_int_equal(tvm_module_add(m, f), 0);
  return m;
}

/* Builds the kernels with `output` and runs them on in -> out. */
static void run_kernels(const char *output, const float *in, float *out,
                        h_mod *hm) {
  const char *ov[] = {output, "num_threads=2", NULL};
  tvm_plugin_target *t = h_target(ov);
  if (!t) fail_msg("target_create: %s", h_last_report());
  if (h_build(t, kernels(), hm) != 0)
    fail_msg("build (%s): %s", output, h_last_report());
  tvm_plugin_arg args[] = {h_ptr((void *)in), h_ptr(out)};
  assert_int_equal(h_call(hm, "mix", args, 2), 0);
}

/* Adds the relocation types of object d to counts[type]. */
static void census(const uint8_t *d, size_t n, unsigned counts[64]) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
  assert_true(n > sizeof *eh);
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
  for (unsigned i = 1; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_RELA) continue;
    for (uint64_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Rela); k++) {
      Elf64_Rela r;
      memcpy(&r, d + sh[i].sh_offset + k * sizeof r, sizeof r);
      unsigned t = (unsigned)ELF64_R_TYPE(r.r_info);
      counts[t < 64 ? t : 63]++;
    }
  }
}

static void test_loader_matches_ld_so(void **state) {
  (void)state;
  float in[N], obj_out[NOUT], so_out[NOUT];
  for (int k = 0; k < N; k++) in[k] = -4.0f + 8.0f * (float)k / (N - 1);
  memset(obj_out, 0xff, sizeof obj_out);
  memset(so_out, 0xff, sizeof so_out);
  h_mod ho, hs;
  run_kernels("output=object", in, obj_out, &ho);
  run_kernels("output=shared", in, so_out, &hs);
  assert_int_equal(ho.blob.format, TVM_BLOB_ELF_OBJECT);
  assert_int_equal(hs.blob.format, TVM_BLOB_SHARED_OBJECT);
  assert_memory_equal(obj_out, so_out, sizeof obj_out);
  for (int k = 0; k < N; k++) {
    float x = in[k];
    float want[9] = {tanhf(x), erff(x), cosf(x), expf(x),
                     1.0f / (1.0f + expf(-x)), expf(x), expf(x), tanhf(x),
                     x * x + 0.5f};
    for (int j = 0; j < 9; j++)
      if (fabsf(obj_out[j * N + k] - want[j]) > 1e-5f * (1 + fabsf(want[j])))
        fail_msg("output %d at %g: %.8g, want %.8g", j, x, obj_out[j * N + k],
                 want[j]);
  }
  unsigned counts[64] = {0};
  census(ho.blob.data, ho.blob.size, counts);
  printf("  relocations in the kernel object:");
  for (unsigned t = 0; t < 64; t++)
    if (counts[t]) printf(" %s x%u", lc_elf_reloc_name(t), counts[t]);
  printf("\n");
  assert_true(counts[R_X86_64_PLT32] > 0); /* libm calls */
  assert_true(counts[R_X86_64_PC32] > 0);  /* .rodata constants */
  assert_true(counts[R_X86_64_GOTPCREL] + counts[R_X86_64_GOTPCRELX] +
                  counts[R_X86_64_REX_GOTPCRELX] > 0); /* module globals */

  /* the same object through the loader linked into this program */
  lc_image *im = NULL;
  if (lc_image_load(ho.blob.data, ho.blob.size, &im) != 0)
    fail_msg("%s", lc_test_msg);
  assert_non_null(lc_image_symbol(im, "mix"));
  assert_non_null(lc_image_symbol(im, "__tvm_parallel_for"));
  lc_image_free(im);
  /* and from an unaligned copy */
  uint8_t *odd = malloc(ho.blob.size + 1);
  memcpy(odd + 1, ho.blob.data, ho.blob.size);
  if (lc_image_load(odd + 1, ho.blob.size, &im) != 0) fail_msg("%s", lc_test_msg);
  lc_image_free(im);
  free(odd);
  tvm_plugin_target *to = ho.t, *ts = hs.t;
  h_free(&ho);
  h_free(&hs);
  h_desc()->vtable->target_destroy(to);
  h_desc()->vtable->target_destroy(ts);
}

/* Damage to a real kernel object: named refusals, then 3000 random
 * single-byte mutations that must each load cleanly or be refused (under
 * the sanitizer build, without a read or write out of bounds). */
static void test_damaged_kernel(void **state) {
  (void)state;
  float in[N], out[NOUT];
  memset(in, 0, sizeof in);
  h_mod ho;
  run_kernels("output=object", in, out, &ho);
  size_t n = ho.blob.size;
  uint8_t *d = malloc(n);
  memcpy(d, ho.blob.data, n);
  Elf64_Ehdr eh;
  memcpy(&eh, d, sizeof eh);
  expect_refused(d, n / 2, "real: truncated", "lie outside", NULL);
  /* the first relocation section: a bad type and a bad symbol */
  Elf64_Shdr *sh = (Elf64_Shdr *)(d + eh.e_shoff);
  unsigned ri = 0;
  for (unsigned i = 1; i < eh.e_shnum && !ri; i++)
    if (sh[i].sh_type == SHT_RELA) ri = i;
  assert_true(ri > 0);
  Elf64_Rela *r0 = (Elf64_Rela *)(d + sh[ri].sh_offset);
  uint64_t keep = r0->r_info;
  r0->r_info = ELF64_R_INFO(ELF64_R_SYM(keep), R_X86_64_DTPOFF64);
  expect_refused(d, n, "real: reloc type", "'.rela.text'",
                 "R_X86_64_DTPOFF64", NULL);
  r0->r_info = ELF64_R_INFO(1u << 30, ELF64_R_TYPE(keep));
  expect_refused(d, n, "real: reloc symbol", "'.rela.text' uses symbol "
                 "1073741824", NULL);
  r0->r_info = keep;
  uint64_t off = sh[1].sh_offset;
  sh[1].sh_offset = n - 1;
  expect_refused(d, n, "real: section offset", "lies outside", NULL);
  sh[1].sh_offset = off;
  lc_image *im = NULL;
  if (lc_image_load(d, n, &im) != 0) fail_msg("restored: %s", lc_test_msg);
  lc_image_free(im);
  unsigned seed = 12345, loaded = 0, refused = 0;
  for (int k = 0; k < 3000; k++) {
    seed = seed * 1103515245u + 12345u;
    size_t at = (seed >> 4) % n;
    uint8_t was = d[at];
    seed = seed * 1103515245u + 12345u;
    d[at] ^= (uint8_t)(1 + (seed >> 8) % 255);
    im = NULL;
    lc_test_msg[0] = 0;
    if (lc_image_load(d, n, &im) == 0) {
      loaded++;
      lc_image_free(im);
    } else {
      refused++;
      assert_non_null(strstr(lc_test_msg, "llvm-cpu:"));
    }
    d[at] = was;
  }
  printf("  3000 mutations of a %zu-byte kernel object: %u loaded, %u refused\n",
         n, loaded, refused);
  assert_true(refused > 0);
  free(d);
  tvm_plugin_target *t = ho.t;
  h_free(&ho);
  h_desc()->vtable->target_destroy(t);
}

/* o[i] = a[i] * k over n elements in a parallel loop (the module globals
 * from whichever part the function lands in). */
static tvm_func *scale_func(const char *name, float k) {
  tvm_expr *a = HV("a"), *o = HV("o"), *i = VAR("i");
  tvm_stmt *body = tvm_for(C, i, I(0), I(N), TVM_FOR_PARALLEL, NULL,
                           ST(o, i, tvm_mul(C, LD(TVM_F32, a, i), F(k))));
  tvm_expr *params[] = {a, o};
  return tvm_func_new(C, name, params, NULL, 2, body);
}

/* Counts the symbols of object d named name that are defined (*def) and
 * undefined (*undef); returns the number of symbol tables. */
static int symbols_named(const uint8_t *d, const char *name, int *def,
                         int *undef) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
  int ntab = 0;
  *def = *undef = 0;
  for (unsigned i = 1; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB) continue;
    ntab++;
    const char *str = (const char *)d + sh[sh[i].sh_link].sh_offset;
    for (uint64_t k = 1; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
      Elf64_Sym y;
      memcpy(&y, d + sh[i].sh_offset + k * sizeof y, sizeof y);
      if (strcmp(str + y.st_name, name) != 0) continue;
      if (y.st_shndx == SHN_UNDEF)
        ++*undef;
      else
        ++*def;
    }
  }
  return ntab;
}

/* Several functions: codegen builds them in parts and joins the parts'
 * objects; the joined object must load and run like the shared object. */
static void test_parts_joined(void **state) {
  (void)state;
  const char *outputs[] = {"output=object", "output=shared"};
  float in[N], want[NOUT];
  for (int k = 0; k < N; k++) in[k] = -4.0f + 8.0f * (float)k / (N - 1);
  for (int v = 0; v < 2; v++) {
    tvm_module *m = kernels(); /* "mix" */
    char name[16];
    for (int f = 0; f < 5; f++) {
      snprintf(name, sizeof name, "scale%d", f);
      assert_int_equal(tvm_module_add(m, scale_func(name, (float)f + 0.5f)), 0);
    }
    const char *ov[] = {outputs[v], "num_threads=2", NULL};
    tvm_plugin_target *t = h_target(ov);
    h_mod hm;
    if (!t || h_build(t, m, &hm) != 0)
      fail_msg("build (%s): %s", outputs[v], h_last_report());
    if (v == 0) {
      int def = 0, undef = 0;
      assert_int_equal(symbols_named(hm.blob.data, "__tvm_parallel_for", &def,
                                     &undef), 1);
      assert_int_equal(def, 1);
      assert_int_equal(undef, 0);
      assert_int_equal(symbols_named(hm.blob.data, "scale3", &def, &undef), 1);
      assert_int_equal(def, 1);
    }
    float out[NOUT];
    tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
    assert_int_equal(h_call(&hm, "mix", args, 2), 0);
    if (v == 0)
      memcpy(want, out, sizeof want);
    else
      assert_memory_equal(out, want, sizeof want);
    for (int f = 0; f < 5; f++) {
      snprintf(name, sizeof name, "scale%d", f);
      memset(out, 0, sizeof out);
      assert_int_equal(h_call(&hm, name, args, 2), 0);
      for (int k = 0; k < N; k++)
        assert_true(out[k] == in[k] * ((float)f + 0.5f));
    }
    h_free(&hm);
    h_desc()->vtable->target_destroy(t);
  }
}

/* Joining two objects that define the same names is refused by name;
 * joining one object alone gives an object the loader accepts. */
static void test_join_refuses_two_definitions(void **state) {
  (void)state;
  obj o;
  make_obj(&o, "expf");
  const uint8_t *objs[2] = {o.b, o.b};
  uint64_t sizes[2] = {o.n, o.n};
  uint8_t *out = NULL;
  uint64_t n = 0;
  assert_int_not_equal(lc_elf_merge(objs, sizes, 2, NULL, NULL, &out, &n), 0);
  assert_null(out);
  assert_non_null(strstr(lc_test_msg, "both define 'f42'"));
  assert_int_equal(lc_elf_merge(objs, sizes, 1, NULL, NULL, &out, &n), 0);
  lc_image *im = NULL;
  if (lc_image_load(out, n, &im) != 0) fail_msg("%s", lc_test_msg);
  int (*f42)(void) = (int (*)(void))(uintptr_t)lc_image_code(im, "f42");
  assert_non_null(f42);
  assert_int_equal(f42(), 42);
  lc_image_free(im);
  free(out);
}

/* A part compiled under the canonical name gets its own name back (f42
 * -> a42: found, runs; f42 gone); a name that only starts like the
 * canonical one is kept (canonical f4: f42 stays). */
static void test_join_renames(void **state) {
  (void)state;
  obj o;
  make_obj(&o, "expf");
  const uint8_t *objs[1] = {o.b};
  uint64_t sizes[1] = {o.n};
  const char *names[1] = {"a42"};
  const char *canon[2] = {"f42", "f4"}, *found[2] = {"a42", "f42"};
  for (int k = 0; k < 2; k++) {
    uint8_t *out = NULL;
    uint64_t n = 0;
    if (lc_elf_merge(objs, sizes, 1, canon[k], names, &out, &n) != 0)
      fail_msg("%s", lc_test_msg);
    lc_image *im = NULL;
    if (lc_image_load(out, n, &im) != 0) fail_msg("%s", lc_test_msg);
    int (*f)(void) = (int (*)(void))(uintptr_t)lc_image_code(im, found[k]);
    assert_non_null(f);
    assert_int_equal(f(), 42);
    assert_null(lc_image_code(im, found[1 - k]));
    lc_image_free(im);
    free(out);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_relocation),
      cmocka_unit_test(test_damaged_objects),
      cmocka_unit_test_setup_teardown(test_loader_matches_ld_so, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_damaged_kernel, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parts_joined, setup, teardown),
      cmocka_unit_test(test_join_refuses_two_definitions),
      cmocka_unit_test(test_join_renames),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
