/*
 * tests/fuzz/fuzz_package.c - libFuzzer target: the package loader
 * (tvm_package_load, no target check) on a file holding the bytes, then
 * the llvm-cpu plugin's kernel-object loader (lc_image_load: validation,
 * layout, symbol resolution, relocation, page protection; elf_load.c and
 * elf_check.c compiled into this program) on the loaded device module,
 * and the shared-object checks (elf_check_shared.c: program headers,
 * dynamic section, hash tables, dynamic symbols and relocations) on
 * shared-object blobs; the raw input goes through both the object loader
 * and the shared-object checks too (seeds kernel-*.elf and kernel-*.so).
 * Nothing loaded is ever called, nothing is dlopened.  A fuzzer cannot
 * recompute checksums by chance, so the harness fixes up the package's
 * checksums first (fuzz_pkg_fix) when the input is long enough to have a
 * header: the decoders behind them get fuzzed, not just the FNV check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "tvm/compiler.h"

#include "elf_check.h"
#include "elf_load.h"

/* The loader reports through lc_report: here it only needs the status. */
int32_t lc_report(int32_t st, const char *fmt, ...) {
  (void)fmt;
  return st;
}

static uint64_t rd64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void wr64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Rewrites the file size, section checksums and header checksum of a
 * package-shaped buffer (see docs/package-format.md) where they fit. */
static void fuzz_pkg_fix(uint8_t *d, size_t size) {
  if (size < 32) return;
  uint32_t n = d[12] | (uint32_t)d[13] << 8 | (uint32_t)d[14] << 16 |
               (uint32_t)d[15] << 24;
  if (n == 0 || n > 16 || 32 + (uint64_t)n * 32 > size) return;
  wr64(d + 16, size);
  for (uint32_t i = 0; i < n; i++) {
    uint8_t *e = d + 32 + 32 * i;
    uint64_t off = rd64(e + 8), len = rd64(e + 16);
    uint32_t flags = (uint32_t)(rd64(e) >> 32); /* u32 kind, u32 flags */
    if (off <= size && len <= size - off)
      wr64(e + 24, tvm_package_section_checksum(flags, d + off, (size_t)len));
  }
  uint64_t h = tvm_hash_bytes(d, 24, TVM_HASH_SEED);
  wr64(d + 24, tvm_hash_bytes(d + 32, (size_t)n * 32, h));
}

/* Loads (and unloads) a kernel object, or checks a shared object. */
static void load(const uint8_t *d, size_t n, int shared) {
  if (shared) {
    lc_check_elf(d, n, 1);
    return;
  }
  lc_image *im = NULL;
  if (lc_image_load(d, n, &im) != TVM_OK) return;
  /* what module.c does next: fill the globals in, find the kernels */
  int32_t *nt = lc_image_data(im, "__tvm_num_threads", sizeof *nt);
  if (nt) *nt = 1;
  void **pf = lc_image_data(im, "__tvm_parallel_for", sizeof *pf);
  if (pf) *pf = NULL;
  (void)lc_image_code(im, "fused_Relu_Add_0");
  lc_image_free(im);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  fuzz_pkg_fix(copy, size);
  const char *path = fuzz_file(copy, size, ".tvmpkg");
  free(copy);
  tvm_plan *p = NULL;
  if (path && tvm_package_load(path, NULL, &p) == TVM_OK) {
    const tvm_plugin_blob *b = &p->blob;
    if (b->data && b->size) load(b->data, b->size,
                                 b->format == TVM_BLOB_SHARED_OBJECT);
    tvm_plan_free(p);
  }
  /* the kernel-object loader and the shared-object checks on the raw
   * bytes as well */
  load(data, size, 0);
  load(data, size, 1);
  return 0;
}
