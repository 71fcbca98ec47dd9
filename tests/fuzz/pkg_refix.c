/*
 * tests/fuzz/pkg_refix.c - `pkg_refix FILE`: recomputes a package's file
 * size, section checksums and header checksum in place, as an attacker
 * who edits a package would, so that tests reach the checks behind the
 * checksums (signatures, kernel-object validation).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tvm/base.h"

static uint64_t rd64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void wr64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
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
    /* flags bit 0: the wide checksum (docs/package-format.md) */
    wr64(e + 24, (e[4] & 1) ? tvm_hash_wide(d + off, (size_t)len)
                            : fnv(0xcbf29ce484222325ull, d + off, (size_t)len));
  }
  wr64(d + 24, fnv(fnv(0xcbf29ce484222325ull, d, 24), d + 32, (size_t)ns * 32));
  rewind(f);
  if (fwrite(d, 1, n, f) != n || fclose(f) != 0) return 1;
  return 0;
}
