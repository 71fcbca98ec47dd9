/*
 * tests/fuzz/pkg_refix.c - `pkg_refix FILE`: recomputes a package's file
 * size, section checksums and header checksum in place, as an attacker
 * who edits a package would, so that tests reach the checks behind the
 * checksums (signatures, kernel-object validation).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tvm/runtime.h"

static uint64_t rd64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void wr64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  FILE *f = fopen(argv[1], "r+b");
  if (!f) return 1;
  static uint8_t d[1 << 24];
  size_t n = fread(d, 1, sizeof d, f);
  if (n < 32) return 1;
  uint32_t ns = d[12] | (uint32_t)d[13] << 8;
  if (ns == 0 || ns > 16 || 32 + (size_t)ns * 32 > n) return 1;
  wr64(d + 16, n);
  for (uint32_t i = 0; i < ns; i++) {
    uint8_t *e = d + 32 + 32 * i;
    uint64_t off = rd64(e + 8), len = rd64(e + 16);
    if (off > n || len > n - off) return 1;
    uint32_t flags = (uint32_t)(rd64(e) >> 32); /* u32 kind, u32 flags */
    wr64(e + 24, tvm_package_section_checksum(flags, d + off, (size_t)len));
  }
  wr64(d + 24, tvm_hash_bytes(d + 32, (size_t)ns * 32,
                              tvm_hash_bytes(d, 24, TVM_HASH_SEED)));
  rewind(f);
  if (fwrite(d, 1, n, f) != n || fclose(f) != 0) return 1;
  return 0;
}
