/*
 * core/runtime/package_int.h - what package.c (the container, save and
 * load) shares with package_sign.c (ed25519 signatures and trusted keys):
 * the layout constants and the container check (checksums are the core's
 * tvm_hash_bytes or tvm_hash_wide), and the plan check of package_check.c.
 */
#ifndef TVM_RUNTIME_PACKAGE_INT_H
#define TVM_RUNTIME_PACKAGE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "tvm/base.h"

#define PKG_MAGIC "TVMCPKG" /* + its NUL: 8 bytes */
#define PKG_VERSION 2u
#define PKG_VERSION_HOST 3u   /* version 2 + the HOST section */
#define PKG_VERSION_HETERO 4u /* version 3 + the HETERO section */
#define PKG_VERSION_OLDEST 1u /* no TARGET section */
#define PKG_HEADER 32u
#define PKG_ENTRY 32u
#define PKG_MAX_SECTIONS 16u
/* Section flags: the section's checksum is tvm_hash_wide (tvm/base.h)
 * instead of FNV-1a 64.  What this writer sets on every section but a
 * signature; a reader accepts either. */
#define PKG_SEC_WIDESUM 1u
#define PKG_SEC_FLAGS_KNOWN PKG_SEC_WIDESUM

/* Section kinds; HOST, SIGNATURE and HETERO are optional
 * (docs/package-format.md). */
enum { SEC_META = 1, SEC_PARAMS = 2, SEC_MODULE = 3, SEC_TARGET = 4,
       SEC_HOST = 5, SEC_SIGNATURE = 6, SEC_HETERO = 7, SEC_COUNT = 8 };
#define SEC_LAST SEC_HETERO /* the last kind this reader records */

/* A section's place in the file and in the section table. */
typedef struct section {
  const unsigned char *p;
  uint64_t len;
  int seen;
  uint32_t index;
} section;


/* Checks the header, the section table, the layout and every checksum of
 * the package bytes d[0..size); fills secs[kind] for the known kinds.
 * `what` names the package in messages. */
tvm_status runtime_pkg_check_container(const char *what,
                                       const unsigned char *d, size_t size,
                                       section secs[SEC_COUNT]);

/* When trusted keys are configured (tvm_package_set_trusted_keys or
 * $TVM_TRUSTED_KEYS), refuses a package that is unsigned, signed by a key
 * not in the list, or whose signature does not match its contents. */
tvm_status runtime_pkg_check_trust(const char *what, const unsigned char *d,
                                   size_t size,
                                   const section secs[SEC_COUNT]);

/* Checks that the plan's indexes, sizes, names and devices hold together
 * (package_check.c); `what` names the package in messages. */
struct tvm_plan;
tvm_status runtime_pkg_check_plan(const struct tvm_plan *p, const char *what);

#endif /* TVM_RUNTIME_PACKAGE_INT_H */
