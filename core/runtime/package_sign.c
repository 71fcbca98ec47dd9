/*
 * core/runtime/package_sign.c - signed packages.
 *
 * A package carries native code, so running one means trusting whoever
 * made it (docs/security.md).  Signing makes that trust checkable: an
 * optional SIGNATURE section (kind 5, 100 bytes: u32 algorithm = 1, the
 * signer's 32-byte Ed25519 public key, a 64-byte Ed25519ph signature)
 * signs, in section-table order, every other section as u32 kind, u64
 * length and its bytes, after the domain string "tvm-c package
 * signature 1\n".  The cryptography is libsodium's (crypto_sign_*ph), never
 * our own.  When trusted keys are configured (tvm_package_set_trusted_keys,
 * `tvmc run --trusted-keys`, or $TVM_TRUSTED_KEYS) the loader refuses
 * unsigned packages, packages signed by another key and packages whose
 * signature does not match, before any of their contents is decoded.
 *
 * Key files are text: "tvm-ed25519-secret-key HEX128" (mode 0600) and
 * "tvm-ed25519-public-key HEX64"; a trusted-keys file is public-key lines
 * (blank lines and # comments allowed), e.g. concatenated .pub files.
 * Without libsodium at build time, making keys and signing fail, and so
 * does loading while trusted keys are configured: never a silent pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "package_int.h"
#include "tvm/runtime.h"

#ifdef HAVE_SODIUM
#include <sodium.h>
#endif

#define SIG_ALGO_ED25519PH 1u
#define SIG_BYTES 100u /* u32 algorithm + 32-byte key + 64-byte signature */
#define KEY_PUB "tvm-ed25519-public-key"
#define KEY_SEC "tvm-ed25519-secret-key"
#define MAX_KEYS_BYTES (1u << 20)
#define DOMAIN "tvm-c package signature 1\n"

/* The process-wide trusted-keys file (NULL: $TVM_TRUSTED_KEYS decides). */
static char *trusted_path;
static pthread_mutex_t trusted_lock = PTHREAD_MUTEX_INITIALIZER;

/* Sets (or with NULL clears) the trusted-keys file every later package
 * load checks signatures against. */
tvm_status tvm_package_set_trusted_keys(const char *path) {
  char *copy = NULL;
  if (path && !(copy = tvm_strdup(path)))
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  pthread_mutex_lock(&trusted_lock);
  tvm_free(trusted_path);
  trusted_path = copy;
  pthread_mutex_unlock(&trusted_lock);
  return TVM_OK;
}

/* Little-endian helpers for the few fields written here. */
static uint64_t rd_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void wr_le(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Hex digits -> n bytes; 0 when s is not exactly 2n hex digits (then
 * whitespace or the end). */
static int unhex(const char *s, unsigned char *out, size_t n) {
  for (size_t i = 0; i < 2 * n; i++) {
    char c = s[i];
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (v < 0) return 0;
    if (i % 2 == 0)
      out[i / 2] = (unsigned char)(v << 4);
    else
      out[i / 2] |= (unsigned char)v;
  }
  char e = s[2 * n];
  return e == 0 || e == ' ' || e == '\t' || e == '\n' || e == '\r';
}

#ifdef HAVE_SODIUM
/* Initializes libsodium once (it is safe to call repeatedly). */
static tvm_status sodium_ready(void) {
  if (sodium_init() < 0)
    return tvm_diag_set(TVM_ERR_UNAVAILABLE, "libsodium failed to initialize");
  return TVM_OK;
}

/* Feeds the signed message of a package (see the file comment) to st. */
static void hash_sections(crypto_sign_state *st, const unsigned char *d,
                          uint32_t n) {
  crypto_sign_update(st, (const unsigned char *)DOMAIN, strlen(DOMAIN));
  for (uint32_t i = 0; i < n; i++) {
    const unsigned char *e = d + PKG_HEADER + (size_t)i * PKG_ENTRY;
    uint32_t kind = (uint32_t)rd_le(e, 4);
    uint64_t off = rd_le(e + 8, 8), len = rd_le(e + 16, 8);
    if (kind == SEC_SIGNATURE) continue;
    unsigned char kl[12];
    wr_le(kl, kind, 4);
    wr_le(kl + 4, len, 8);
    crypto_sign_update(st, kl, sizeof kl);
    crypto_sign_update(st, d + off, (size_t)len);
  }
}

/* Writes buf as the file path (tvm_write_file); mode is a new file's
 * permission bits. */
static tvm_status write_atomic(const char *path, const void *buf, size_t n,
                               int mode) {
  const void *parts[1] = {buf};
  return tvm_write_file(path, "file", parts, &n, 1, mode);
}
#endif

/* Makes a key pair: secret key to secret_path (mode 0600), public key to
 * public_path. */
tvm_status tvm_keygen(const char *secret_path, const char *public_path) {
#ifdef HAVE_SODIUM
  unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  char line[256], hex[2 * crypto_sign_SECRETKEYBYTES + 1];
  tvm_status st;
  if (!secret_path || !public_path)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_keygen: NULL path");
  if ((st = sodium_ready())) return st;
  crypto_sign_keypair(pk, sk);
  sodium_bin2hex(hex, sizeof hex, sk, sizeof sk);
  snprintf(line, sizeof line, "%s %s\n", KEY_SEC, hex);
  sodium_memzero(sk, sizeof sk);
  st = write_atomic(secret_path, line, strlen(line), 0600);
  sodium_memzero(line, sizeof line);
  sodium_memzero(hex, sizeof hex);
  if (st) return st;
  sodium_bin2hex(hex, sizeof hex, pk, sizeof pk);
  snprintf(line, sizeof line, "%s %s\n", KEY_PUB, hex);
  return write_atomic(public_path, line, strlen(line), 0644);
#else
  (void)secret_path;
  (void)public_path;
  return tvm_diag_set(TVM_ERR_UNAVAILABLE,
                      "this tvm-c was built without libsodium, so it cannot "
                      "make keys: apt-get install libsodium-dev and rebuild");
#endif
}

#ifdef HAVE_SODIUM
/* Reads the secret key file into sk. */
static tvm_status read_secret(const char *path, unsigned char *sk) {
  void *data = NULL;
  size_t n = 0;
  tvm_status st = tvm_read_file(path, "secret key", 4096, &data, &n);
  if (st) return st;
  const char *s = data;
  size_t pl = strlen(KEY_SEC);
  if (n < pl + 1 || strncmp(s, KEY_SEC, pl) != 0 || s[pl] != ' ' ||
      !unhex(s + pl + 1, sk, crypto_sign_SECRETKEYBYTES))
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "%s is not a secret key file (one line: '%s' and 128 "
                      "hex digits; make one with tvmc keygen)",
                      path, KEY_SEC);
  sodium_memzero(data, n);
  tvm_free(data);
  return st;
}
#endif

/* Adds (or replaces) the SIGNATURE section of the package at path, signed
 * with the secret key in secret_key_path. */
tvm_status tvm_package_sign(const char *path, const char *secret_key_path) {
#ifdef HAVE_SODIUM
  char what[4200];
  void *data = NULL;
  size_t size = 0;
  section secs[SEC_COUNT];
  unsigned char sk[crypto_sign_SECRETKEYBYTES], sig[crypto_sign_BYTES];
  unsigned char *out = NULL;
  tvm_status st;
  if (!path || !secret_key_path)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_package_sign: NULL argument");
  if ((st = sodium_ready())) return st;
  snprintf(what, sizeof what, "package %s", path);
  memset(secs, 0, sizeof secs);
  if ((st = read_secret(secret_key_path, sk))) return st;
  if ((st = tvm_read_file(path, "package", 0, &data, &size))) goto done;
  const unsigned char *d = data;
  if ((st = runtime_pkg_check_container(what, d, size, secs))) goto done;
  /* the sections other than an old signature, and their total size */
  uint32_t n = (uint32_t)rd_le(d + 12, 4), keep = 0;
  uint64_t body = 0;
  for (uint32_t i = 0; i < n; i++) {
    const unsigned char *e = d + PKG_HEADER + (size_t)i * PKG_ENTRY;
    if (rd_le(e, 4) == SEC_SIGNATURE) continue;
    keep++;
    body += rd_le(e + 16, 8);
  }
  if (keep + 1 > PKG_MAX_SECTIONS) {
    st = tvm_diag_set(TVM_ERR_INVALID, "%s has no room for a signature", what);
    goto done;
  }
  crypto_sign_state hs;
  crypto_sign_init(&hs);
  hash_sections(&hs, d, n);
  crypto_sign_final_create(&hs, sig, NULL, sk);
  uint32_t nn = keep + 1;
  uint64_t off = PKG_HEADER + (uint64_t)nn * PKG_ENTRY;
  uint64_t total = off + body + SIG_BYTES;
  out = tvm_malloc((size_t)total);
  if (!out) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory signing %s", what);
    goto done;
  }
  memcpy(out, d, 12);
  wr_le(out + 12, nn, 4);
  wr_le(out + 16, total, 8);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const unsigned char *e = d + PKG_HEADER + (size_t)i * PKG_ENTRY;
    if (rd_le(e, 4) == SEC_SIGNATURE) continue;
    unsigned char *oe = out + PKG_HEADER + (size_t)k++ * PKG_ENTRY;
    uint64_t len = rd_le(e + 16, 8);
    memcpy(oe, e, PKG_ENTRY);
    wr_le(oe + 8, off, 8);
    memcpy(out + off, d + rd_le(e + 8, 8), (size_t)len);
    off += len;
  }
  unsigned char *sp = out + off;
  wr_le(sp, SIG_ALGO_ED25519PH, 4);
  memcpy(sp + 4, sk + crypto_sign_SEEDBYTES, crypto_sign_PUBLICKEYBYTES);
  memcpy(sp + 4 + crypto_sign_PUBLICKEYBYTES, sig, crypto_sign_BYTES);
  unsigned char *oe = out + PKG_HEADER + (size_t)k * PKG_ENTRY;
  wr_le(oe, SEC_SIGNATURE, 4);
  wr_le(oe + 4, 0, 4);
  wr_le(oe + 8, off, 8);
  wr_le(oe + 16, SIG_BYTES, 8);
  wr_le(oe + 24, tvm_hash_bytes(sp, SIG_BYTES, TVM_HASH_SEED), 8);
  uint64_t h = tvm_hash_bytes(out, 24, TVM_HASH_SEED);
  h = tvm_hash_bytes(out + PKG_HEADER, (size_t)nn * PKG_ENTRY, h);
  wr_le(out + 24, h, 8);
  st = write_atomic(path, out, (size_t)total, 0644);
done:
  sodium_memzero(sk, sizeof sk);
  tvm_free(out);
  tvm_free(data);
  return st;
#else
  (void)path;
  (void)secret_key_path;
  return tvm_diag_set(TVM_ERR_UNAVAILABLE,
                      "this tvm-c was built without libsodium, so it cannot "
                      "sign packages: apt-get install libsodium-dev and "
                      "rebuild");
#endif
}

#ifdef HAVE_SODIUM
/* Is pk listed in the trusted-keys file at path?  1 yes, 0 no, or a
 * negative status for an unreadable or malformed file. */
static int key_trusted(const char *path, const unsigned char *pk) {
  void *data = NULL;
  size_t n = 0;
  tvm_status st = tvm_read_file(path, "trusted-keys file", MAX_KEYS_BYTES,
                                &data, &n);
  if (st) return st;
  char *s = data;
  int found = 0, line = 0;
  size_t pl = strlen(KEY_PUB);
  for (char *p = s; p < s + n && !found;) {
    char *eol = memchr(p, '\n', (size_t)(s + n - p));
    if (!eol) eol = s + n;
    *eol = 0;
    line++;
    while (*p == ' ' || *p == '\t') p++;
    if (*p && *p != '#' && *p != '\r') {
      unsigned char k[crypto_sign_PUBLICKEYBYTES];
      if (strncmp(p, KEY_PUB, pl) != 0 || p[pl] != ' ' ||
          !unhex(p + pl + 1, k, sizeof k)) {
        st = tvm_diag_set(TVM_ERR_INVALID,
                          "%s:%d: not a public key line ('%s' and 64 hex "
                          "digits, as tvmc keygen writes to KEY.pub)",
                          path, line, KEY_PUB);
        tvm_free(data);
        return st;
      }
      found = sodium_memcmp(k, pk, sizeof k) == 0;
    }
    p = eol + 1;
  }
  tvm_free(data);
  return found;
}
#endif

/* See package_int.h. */
tvm_status runtime_pkg_check_trust(const char *what, const unsigned char *d,
                                   size_t size,
                                   const section secs[SEC_COUNT]) {
  char *keys = NULL;
  pthread_mutex_lock(&trusted_lock);
  if (trusted_path) keys = tvm_strdup(trusted_path);
  pthread_mutex_unlock(&trusted_lock);
  if (!keys) {
    const char *e = getenv("TVM_TRUSTED_KEYS");
    if (!e || !*e) return TVM_OK; /* no policy: checksums only */
    if (!(keys = tvm_strdup(e)))
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  }
  tvm_status st = TVM_OK;
#ifdef HAVE_SODIUM
  (void)size;
  const section *sg = &secs[SEC_SIGNATURE];
  if (!sg->seen) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "%s is not signed, and only packages signed by a key "
                      "in %s are accepted (sign it with tvmc compile --sign "
                      "KEY)",
                      what, keys);
    goto done;
  }
  if (sg->len != SIG_BYTES || rd_le(sg->p, 4) != SIG_ALGO_ED25519PH) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "%s has a malformed signature section (%llu bytes)",
                      what, (unsigned long long)sg->len);
    goto done;
  }
  if ((st = sodium_ready())) goto done;
  const unsigned char *pk = sg->p + 4;
  int t = key_trusted(keys, pk);
  if (t < 0) {
    st = t;
    goto done;
  }
  char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
  sodium_bin2hex(hex, sizeof hex, pk, crypto_sign_PUBLICKEYBYTES);
  if (!t) {
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "%s is signed by key %.16s..., which is not in the "
                      "trusted keys %s",
                      what, hex, keys);
    goto done;
  }
  crypto_sign_state hs;
  crypto_sign_init(&hs);
  hash_sections(&hs, d, (uint32_t)rd_le(d + 12, 4));
  if (crypto_sign_final_verify(&hs, sg->p + 4 + crypto_sign_PUBLICKEYBYTES,
                               pk) != 0)
    st = tvm_diag_set(TVM_ERR_INVALID,
                      "%s: the signature by key %.16s... does not match the "
                      "contents: the package was modified after signing",
                      what, hex);
done:
#else
  (void)d;
  (void)size;
  (void)secs;
  st = tvm_diag_set(TVM_ERR_UNAVAILABLE,
                    "trusted keys are set (%s), but this tvm-c was built "
                    "without libsodium and cannot check signatures: "
                    "apt-get install libsodium-dev and rebuild",
                    keys);
#endif
  tvm_free(keys);
  return st;
}
