/*
 * tests/fuzz/fuzz_file.h - for readers that take a path: writes the
 * fuzzer's bytes to one private file (in /dev/shm when it exists, so
 * nothing touches the disk) and returns its name.
 */
#ifndef TVM_FUZZ_FILE_H
#define TVM_FUZZ_FILE_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes data to the fuzzer's scratch file (suffix names its kind) and
 * returns its path, or NULL when it cannot be written. */
static const char *fuzz_file(const uint8_t *data, size_t size,
                             const char *suffix) {
  static char path[256];
  if (!path[0]) {
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/tvm-fuzz-%ld%s", dir, (long)getpid(),
             suffix);
  }
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  size_t w = fwrite(data, 1, size, f);
  if (fclose(f) != 0 || w != size) return NULL;
  return path;
}
#endif
