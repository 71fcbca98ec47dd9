/*
 * test_elf_shared.c - the checks an `output: shared` kernel passes before
 * module.c dlopens it (elf_check_shared.c, compiled into this program with
 * elf_check.c and elf_load.c, whose extern allow-list it shares):
 *   - a real shared kernel (libm calls, an extern call, a parallel loop)
 *     passes, loads through the plugin and computes the right numbers;
 *   - the same kernel object linked the old way (cc -shared with the C
 *     start files) is refused for its DT_INIT; linked with SysV and GNU
 *     hash tables it passes, unless a SysV chain loops or leaves the table;
 *   - hand-edited copies are refused with a message naming the part: an
 *     init array added, DT_NEEDED of an unlisted library, an undefined
 *     `system`, a relocation patching code, a segment past the end of the
 *     file, a writable and executable segment, PT_INTERP, DT_RUNPATH, a
 *     hash table with no buckets, an IFUNC symbol; one of them through the
 *     plugin's module_load too;
 *   - 3000 random byte mutations, each refused cleanly or accepted, never
 *     a read out of bounds (the sanitizer build runs this too).
 * Nothing edited is ever dlopened.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf_check.h"
#include "elf_load.h"
#include "elf_report.h"
#include "harness.h"
#include "tvm/te.h"

/* Checks d[0..n) as a shared object and expects a refusal whose message
 * holds every string of the NULL-terminated list. */
static void expect_refused(const uint8_t *d, size_t n, const char *what, ...) {
  lc_test_msg[0] = 0;
  if (lc_check_elf(d, n, 1) == 0) fail_msg("%s: accepted, want a refusal", what);
  va_list ap;
  va_start(ap, what);
  lc_test_expect_msg(what, ap);
  va_end(ap);
  assert_non_null(strstr(lc_test_msg, "output: object")); /* the fix */
  printf("  %-16s %s\n", what, lc_test_msg);
}

/* ---- a real shared kernel ----------------------------------------------- */

static tvm_ctx *C;

#define I(v) tvm_int(C, v)
#define VAR(n) tvm_var(C, n, TVM_I32)
#define HV(n) tvm_var(C, n, TVM_HANDLE)
#define LD(t, b, i) tvm_load(C, t, b, i, NULL)
#define ST(b, i, v) tvm_store(C, b, i, v, NULL)

enum { N = 256 };

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

/* k(a, o): o[i] = tanh(a[i]) in a parallel loop, o[N + i] = expf(a[i])
 * through an extern call. */
static tvm_module *kernel(void) {
  tvm_expr *a = HV("a"), *o = HV("o"), *i = VAR("i"), *j = VAR("j");
  tvm_stmt *p = ST(o, i, tvm_math(C, TVM_INTRIN_TANH, LD(TVM_F32, a, i)));
  tvm_expr *xa[] = {LD(TVM_F32, a, j)};
  tvm_stmt *e = ST(o, tvm_add(C, j, I(N)),
                   tvm_call_extern(C, TVM_F32, "expf", xa, 1));
  tvm_stmt *body =
      tvm_seq2(C, tvm_for(C, i, I(0), I(N), TVM_FOR_PARALLEL, NULL, p),
               tvm_for(C, j, I(0), I(N), TVM_FOR_SERIAL, NULL, e));
  tvm_expr *params[] = {a, o};
  tvm_func *f = tvm_func_new(C, "k", params, NULL, 2, body);
  tvm_module *m = tvm_ctx_alloc(C, sizeof *m);
  m->ctx = C;
  assert_int_equal(tvm_module_add(m, f), 0);
  return m;
}

/* Builds and loads the kernel with `output` (and runs it, checking the
 * numbers); the blob stays in *hm. */
static void build_and_run(const char *output, h_mod *hm) {
  const char *ov[] = {output, "num_threads=2", NULL};
  tvm_plugin_target *t = h_target(ov);
  if (!t) fail_msg("target_create: %s", h_last_report());
  if (h_build(t, kernel(), hm) != 0)
    fail_msg("build (%s): %s", output, h_last_report());
  float in[N], out[2 * N];
  for (int k = 0; k < N; k++) in[k] = -3.0f + 6.0f * (float)k / (N - 1);
  memset(out, 0xff, sizeof out);
  tvm_plugin_arg args[] = {h_ptr(in), h_ptr(out)};
  assert_int_equal(h_call(hm, "k", args, 2), 0);
  for (int k = 0; k < N; k++) {
    if (fabsf(out[k] - tanhf(in[k])) > 1e-5f)
      fail_msg("tanh(%g) = %g", in[k], out[k]);
    if (fabsf(out[N + k] - expf(in[k])) > 1e-5f * expf(in[k]))
      fail_msg("expf(%g) = %g", in[k], out[N + k]);
  }
}

static void free_mod(h_mod *hm) {
  tvm_plugin_target *t = hm->t;
  h_free(hm);
  h_desc()->vtable->target_destroy(t);
}

/* ---- editing a shared object (our own fresh output: trusted here) -------- */

typedef struct {
  uint8_t *d;
  size_t n;
  Elf64_Ehdr *eh;
  Elf64_Phdr *ph;
  Elf64_Shdr *sh;
  Elf64_Dyn *dyn;
  size_t ndyn;
  Elf64_Sym *sym;
  size_t nsym;
  char *str;
} sofile;

/* File offset of virtual address va. */
static uint64_t va_off(const sofile *f, uint64_t va) {
  for (unsigned i = 0; i < f->eh->e_phnum; i++) {
    const Elf64_Phdr *p = &f->ph[i];
    if (p->p_type == PT_LOAD && va >= p->p_vaddr &&
        va < p->p_vaddr + p->p_filesz)
      return p->p_offset + va - p->p_vaddr;
  }
  fail_msg("address %#llx is not in the file", (unsigned long long)va);
  return 0;
}

/* Parses a copy of the blob (8-byte aligned through malloc). */
static void so_open(sofile *f, const void *blob, size_t n) {
  f->d = malloc(n);
  memcpy(f->d, blob, n);
  f->n = n;
  f->eh = (Elf64_Ehdr *)f->d;
  f->ph = (Elf64_Phdr *)(f->d + f->eh->e_phoff);
  f->sh = (Elf64_Shdr *)(f->d + f->eh->e_shoff);
  f->dyn = NULL;
  for (unsigned i = 0; i < f->eh->e_phnum; i++)
    if (f->ph[i].p_type == PT_DYNAMIC) {
      f->dyn = (Elf64_Dyn *)(f->d + f->ph[i].p_offset);
      f->ndyn = f->ph[i].p_filesz / sizeof(Elf64_Dyn);
    }
  assert_non_null(f->dyn);
  for (unsigned i = 1; i < f->eh->e_shnum; i++)
    if (f->sh[i].sh_type == SHT_DYNSYM) {
      f->sym = (Elf64_Sym *)(f->d + f->sh[i].sh_offset);
      f->nsym = f->sh[i].sh_size / sizeof(Elf64_Sym);
      f->str = (char *)f->d + f->sh[f->sh[i].sh_link].sh_offset;
    }
  assert_non_null(f->sym);
}

/* The dynamic entry with tag t. */
static Elf64_Dyn *dyn_of(sofile *f, int64_t t) {
  for (size_t k = 0; k < f->ndyn; k++)
    if (f->dyn[k].d_tag == t) return &f->dyn[k];
  fail_msg("no dynamic tag %lld", (long long)t);
  return NULL;
}

/* The dynamic symbol named nm. */
static Elf64_Sym *sym_of(sofile *f, const char *nm) {
  for (size_t k = 1; k < f->nsym; k++)
    if (strcmp(f->str + f->sym[k].st_name, nm) == 0) return &f->sym[k];
  fail_msg("no dynamic symbol %s", nm);
  return NULL;
}

/* The program header of the loadable segment with flags fl. */
static Elf64_Phdr *load_of(sofile *f, uint32_t fl) {
  for (unsigned i = 0; i < f->eh->e_phnum; i++)
    if (f->ph[i].p_type == PT_LOAD && f->ph[i].p_flags == fl) return &f->ph[i];
  fail_msg("no PT_LOAD with flags %u", fl);
  return NULL;
}

/* Restores the pristine bytes. */
static void so_reset(sofile *f, const void *blob) { memcpy(f->d, blob, f->n); }

/* ---- tests -------------------------------------------------------------- */

static void test_real_shared_kernel(void **state) {
  (void)state;
  h_mod hs;
  build_and_run("output=shared", &hs);
  assert_int_equal(hs.blob.format, TVM_BLOB_SHARED_OBJECT);
  lc_test_msg[0] = 0;
  if (lc_check_elf(hs.blob.data, hs.blob.size, 1) != 0) fail_msg("%s", lc_test_msg);
  /* what the link produces: nothing that runs at load, no libraries */
  sofile f;
  so_open(&f, hs.blob.data, hs.blob.size);
  for (size_t k = 0; k < f.ndyn && f.dyn[k].d_tag != DT_NULL; k++) {
    int64_t t = f.dyn[k].d_tag;
    assert_true(t != DT_INIT && t != DT_FINI && t != DT_INIT_ARRAY &&
                t != DT_FINI_ARRAY && t != DT_NEEDED && t != DT_VERNEED);
  }
  free(f.d);
  free_mod(&hs);
}

/* Links the object blob with `cc -shared FLAGS`; returns the bytes
 * (malloc, *n) or NULL when cc fails (no C compiler). */
static uint8_t *link_with(const tvm_plugin_blob *obj, const char *flags,
                          size_t *n) {
  char dir[] = "/tmp/tvm-test-elf-shared-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char o[128], so[128], cmd[512];
  snprintf(o, sizeof o, "%s/k.o", dir);
  snprintf(so, sizeof so, "%s/k.so", dir);
  FILE *fo = fopen(o, "wb");
  assert_non_null(fo);
  assert_int_equal(fwrite(obj->data, 1, obj->size, fo), obj->size);
  fclose(fo);
  snprintf(cmd, sizeof cmd, "cc -shared %s -o %s %s", flags, so, o);
  uint8_t *d = NULL;
  if (system(cmd) == 0) {
    FILE *fs = fopen(so, "rb");
    assert_non_null(fs);
    d = malloc(1 << 22);
    *n = fread(d, 1, 1 << 22, fs);
    fclose(fs);
  }
  unlink(o);
  unlink(so);
  rmdir(dir);
  return d;
}

/* The kernel object linked with the C start files, as link.c once did,
 * is refused; linked with SysV and GNU hash tables it passes, and a loop
 * in its SysV chains is refused. */
static void test_other_links(void **state) {
  (void)state;
  h_mod ho;
  build_and_run("output=object", &ho);
  size_t n = 0;
  uint8_t *d = link_with(&ho.blob, "", &n);
  if (!d) {
    free_mod(&ho);
    skip(); /* no C compiler: nothing to link */
  }
  expect_refused(d, n, "start files", "dynamic tag DT_INIT",
                 "runs code when the object is loaded", NULL);
  free(d);
  d = link_with(&ho.blob, "-nostdlib -Wl,--hash-style=both", &n);
  assert_non_null(d);
  lc_test_msg[0] = 0;
  if (lc_check_elf(d, n, 1) != 0) fail_msg("both hash styles: %s", lc_test_msg);
  sofile f;
  so_open(&f, d, n);
  uint32_t *h = (uint32_t *)(f.d + va_off(&f, dyn_of(&f, DT_HASH)->d_un.d_ptr));
  uint32_t nb = h[0], nc = h[1];
  assert_true(nc > 2);
  /* chain of the last symbol back to itself */
  h[2 + nb + nc - 1] = nc - 1;
  expect_refused(f.d, f.n, "SysV loop", "DT_HASH", "reached twice", NULL);
  so_reset(&f, d);
  /* a bucket far out of range: refused before its chain word (8 GiB
   * past the table) is read */
  h[2] = 0x7fffffff;
  expect_refused(f.d, f.n, "SysV range", "DT_HASH: bucket 0 reaches symbol "
                 "2147483647", NULL);
  free(f.d);
  free(d);
  free_mod(&ho);
}

static void test_edited_copies_refused(void **state) {
  (void)state;
  h_mod hs;
  build_and_run("output=shared", &hs);
  const void *orig = hs.blob.data;
  sofile f;
  so_open(&f, orig, hs.blob.size);
  char want[96];

  /* an init array added: two entries rewritten */
  Elf64_Dyn *e1 = dyn_of(&f, DT_SYMENT), *e2 = dyn_of(&f, DT_STRSZ);
  e1->d_tag = DT_INIT_ARRAY;
  e2->d_tag = DT_INIT_ARRAYSZ;
  e2->d_un.d_val = 8;
  expect_refused(f.d, f.n, "init array", "dynamic tag DT_INIT_ARRAY with 8 "
                 "bytes", "constructors", NULL);
  /* the same through the plugin: refused before dlopen */
  tvm_plugin_blob b = hs.blob;
  b.data = f.d;
  tvm_plugin_module *m = NULL;
  h_clear_report();
  assert_int_not_equal(h_desc()->vtable->module_load(hs.d, &b, &m), 0);
  assert_null(m);
  assert_non_null(strstr(h_last_report(), "DT_INIT_ARRAY"));
  so_reset(&f, orig);

  /* DT_NEEDED of a library not on the list */
  char *s = f.str + sym_of(&f, "__tvm_parallel_for")->st_name;
  strcpy(s, "libcrypt.so.1");
  e1 = dyn_of(&f, DT_SYMENT);
  e1->d_tag = DT_NEEDED;
  e1->d_un.d_val = (uint64_t)(s - f.str);
  expect_refused(f.d, f.n, "DT_NEEDED", "DT_NEEDED", "'libcrypt.so.1'",
                 "only libc.so.6 and libm.so.6", NULL);
  so_reset(&f, orig);

  /* an undefined `system`; allowed once the host lists it */
  Elf64_Sym *y = sym_of(&f, "__tvm_assert_fail");
  strcpy(f.str + y->st_name, "system");
  y->st_shndx = SHN_UNDEF;
  y->st_value = 0;
  y->st_size = 0;
  expect_refused(f.d, f.n, "undefined system", "dynamic symbol",
                 "'system' is undefined", "TVM_LLVM_CPU_EXTERNS", NULL);
  setenv("TVM_LLVM_CPU_EXTERNS", "system", 1);
  if (lc_check_elf(f.d, f.n, 1) != 0) fail_msg("listed system: %s", lc_test_msg);
  unsetenv("TVM_LLVM_CPU_EXTERNS");
  so_reset(&f, orig);

  /* a relocation patching code */
  Elf64_Rela *r = (Elf64_Rela *)(f.d + va_off(&f, dyn_of(&f, DT_RELA)->d_un.d_ptr));
  uint64_t code = load_of(&f, PF_R | PF_X)->p_vaddr;
  r->r_offset = code;
  snprintf(want, sizeof want, "relocation 0 of DT_RELA patches %#llx, outside "
           "the writable segments", (unsigned long long)code);
  expect_refused(f.d, f.n, "reloc in code", want, NULL);
  so_reset(&f, orig);

  /* a segment past the end of the file */
  Elf64_Phdr *px = load_of(&f, PF_R | PF_X);
  unsigned ix = (unsigned)(px - f.ph);
  px->p_offset = f.n - 16;
  px->p_vaddr = px->p_offset; /* keeps the alignment congruent */
  snprintf(want, sizeof want, "program header %u (PT_LOAD", ix);
  expect_refused(f.d, f.n, "past the end", want, "past the end", NULL);
  so_reset(&f, orig);

  /* a writable and executable segment */
  load_of(&f, PF_R | PF_X)->p_flags = PF_R | PF_W | PF_X;
  snprintf(want, sizeof want, "program header %u is both writable and "
           "executable", ix);
  expect_refused(f.d, f.n, "W+X", want, NULL);
  so_reset(&f, orig);

  /* a program interpreter */
  for (unsigned i = 0; i < f.eh->e_phnum; i++)
    if (f.ph[i].p_type == PT_GNU_STACK) {
      f.ph[i].p_type = PT_INTERP;
      snprintf(want, sizeof want, "program header %u is PT_INTERP", i);
    }
  expect_refused(f.d, f.n, "PT_INTERP", want, NULL);
  so_reset(&f, orig);

  /* a search path */
  dyn_of(&f, DT_SYMENT)->d_tag = DT_RUNPATH;
  expect_refused(f.d, f.n, "DT_RUNPATH", "dynamic tag DT_RUNPATH",
                 "search path", NULL);
  so_reset(&f, orig);

  /* a hash table without buckets (dlsym would divide by zero) */
  uint32_t *gh = (uint32_t *)(f.d + va_off(&f, dyn_of(&f, DT_GNU_HASH)->d_un.d_ptr));
  gh[0] = 0;
  expect_refused(f.d, f.n, "no buckets", "DT_GNU_HASH: 0 buckets", NULL);
  so_reset(&f, orig);

  /* an indirect function, whose resolver would run at load */
  y = sym_of(&f, "k");
  y->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC);
  expect_refused(f.d, f.n, "IFUNC", "dynamic symbol", "'k' is an indirect "
                 "function", NULL);
  so_reset(&f, orig);

  /* a symbol outside the segments */
  y = sym_of(&f, "k");
  y->st_value = 1ull << 40;
  expect_refused(f.d, f.n, "symbol outside", "'k'", "outside the loaded "
                 "segments", NULL);
  so_reset(&f, orig);

  if (lc_check_elf(f.d, f.n, 1) != 0) fail_msg("restored: %s", lc_test_msg);
  free(f.d);
  free_mod(&hs);
}

/* Random single-byte mutations: each checked without harm. */
static void test_mutations(void **state) {
  (void)state;
  h_mod hs;
  build_and_run("output=shared", &hs);
  size_t n = hs.blob.size;
  uint8_t *d = malloc(n);
  memcpy(d, hs.blob.data, n);
  unsigned seed = 4242, ok = 0, refused = 0;
  for (int k = 0; k < 3000; k++) {
    seed = seed * 1103515245u + 12345u;
    /* the headers, tables and dynamic section sit in the first pages */
    size_t at = (seed >> 4) % (n < 4096 ? n : 4096);
    if (k % 4 == 3) at = (seed >> 4) % n;
    uint8_t was = d[at];
    seed = seed * 1103515245u + 12345u;
    d[at] ^= (uint8_t)(1 + (seed >> 8) % 255);
    lc_test_msg[0] = 0;
    if (lc_check_elf(d, n, 1) == 0) {
      ok++;
    } else {
      refused++;
      assert_non_null(strstr(lc_test_msg, "llvm-cpu:"));
    }
    d[at] = was;
  }
  printf("  3000 mutations of a %zu-byte shared kernel: %u accepted, %u "
         "refused\n", n, ok, refused);
  assert_true(refused > 0);
  free(d);
  free_mod(&hs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_real_shared_kernel, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_other_links, setup, teardown),
      cmocka_unit_test_setup_teardown(test_edited_copies_refused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
