/*
 * tests/abi/abi_util.h - helpers shared by the plugin and target tests:
 * private temporary directories and copies of the test plugins built in
 * $TVM_BUILDDIR/tests/abi/{plugins,bad}/.libs.
 */
#ifndef TVM_TESTS_ABI_UTIL_H
#define TVM_TESTS_ABI_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh 0755 directory under $TMPDIR (or /tmp); the path is static
 * storage of the caller (cap bytes). */
static inline void util_tmpdir(char *out, size_t cap) {
  const char *base = getenv("TMPDIR");
  snprintf(out, cap, "%s/tvm-abi-XXXXXX", base && *base ? base : "/tmp");
  if (mkdtemp(out) == NULL) {
    perror("mkdtemp");
    exit(1);
  }
  chmod(out, 0755);
}

/* Copies file src to dst with the given mode; exits on failure. */
static inline void util_copy(const char *src, const char *dst, mode_t mode) {
  int in = open(src, O_RDONLY);
  int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (in < 0 || out < 0) {
    fprintf(stderr, "cannot copy %s to %s\n", src, dst);
    exit(1);
  }
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) exit(1);
  close(in);
  close(out);
  chmod(dst, mode);
}

/* Copies test plugin `group`/`name`.so (group: "plugins" or "bad") into
 * dir as file `as` (mode 0755) and writes the new path to out. */
static inline void util_install(const char *group, const char *name,
                                const char *dir, const char *as, char *out,
                                size_t cap) {
  const char *b = getenv("TVM_BUILDDIR");
  char src[4096];
  snprintf(src, sizeof src, "%s/tests/abi/%s/.libs/%s.so", b ? b : ".", group,
           name);
  snprintf(out, cap, "%s/%s", dir, as);
  util_copy(src, out, 0755);
}

/* Writes text to dir/name; the path goes to out. */
static inline void util_write(const char *dir, const char *name,
                              const char *text, char *out, size_t cap) {
  snprintf(out, cap, "%s/%s", dir, name);
  FILE *f = fopen(out, "w");
  if (f == NULL || fputs(text, f) < 0) exit(1);
  fclose(f);
}

/* rm -rf of a test directory (only flat directories are created). */
static inline void util_rmdir(const char *dir) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

#endif
