/*
 * core/base/file.c - reading a whole file into memory, the one way every
 * loader of the project (models, packages, .npy tensors, target YAML)
 * does it, and writing one so that a failure never leaves a half-written
 * file where a good one was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tvm/base.h"

/* Reads all of path into a tvm_malloc'd buffer (one extra NUL byte after
 * the data, so text can be parsed in place), at most max_bytes (0 = no
 * limit).  `what` names the file's role in messages ("package", "ONNX
 * model").  On failure nothing is allocated and *data is NULL. */
tvm_status tvm_read_file(const char *path, const char *what,
                         size_t max_bytes, void **data, size_t *size) {
  size_t cap = 1 << 16, len = 0;
  char *buf;
  FILE *f;
  int err;

  *data = NULL;
  *size = 0;
  if (!path)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: no path given", what);
  f = fopen(path, "rb");
  if (!f)
    return tvm_diag_set(TVM_ERR_IO, "cannot open %s %s: %s", what, path,
                        strerror(errno));
  /* a regular file is read into a buffer of its size at once (a model is
   * tens of megabytes: no doubling and copying) */
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
      (uint64_t)sb.st_size < SIZE_MAX / 2 &&
      (!max_bytes || (size_t)sb.st_size <= max_bytes))
    cap = (size_t)sb.st_size + 2;
  buf = tvm_malloc(cap);
  for (;;) {
    if (!buf)
      break;
    if (len + 1 >= cap) {
      char *nb = cap > ((size_t)-1) / 2 ? NULL : tvm_realloc(buf, cap * 2);
      if (!nb) {
        tvm_free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - 1 - len, f);
    len += got;
    if (got == 0 || (max_bytes && len > max_bytes))
      break;
  }
  err = ferror(f);
  fclose(f);
  if (!buf)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory reading %s %s", what,
                        path);
  if (err || (max_bytes && len > max_bytes)) {
    tvm_free(buf);
    if (err)
      return tvm_diag_set(TVM_ERR_IO, "error reading %s %s", what, path);
    return tvm_diag_set(TVM_ERR_IO, "%s %s is larger than %zu bytes", what,
                        path, max_bytes);
  }
  buf[len] = '\0';
  *data = buf;
  *size = len;
  return TVM_OK;
}

/* See tvm/base.h. */
tvm_status tvm_map_file(const char *path, const char *what,
                        tvm_file_view *out) {
  memset(out, 0, sizeof *out);
  int fd = path ? open(path, O_RDONLY) : -1;
  struct stat sb;
  if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
      sb.st_size > 0 && (uint64_t)sb.st_size < SIZE_MAX / 2) {
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      close(fd);
      out->data = p;
      out->size = (size_t)sb.st_size;
      out->mapped = 1;
      return TVM_OK;
    }
  }
  if (fd >= 0) close(fd);
  void *data;
  tvm_status st = tvm_read_file(path, what, 0, &data, &out->size);
  out->data = data;
  return st;
}

/* See tvm/base.h. */
void tvm_file_view_done(const tvm_file_view *f, size_t off, size_t len) {
  if (!f || !f->mapped || off > f->size || len > f->size - off) return;
  long pg = sysconf(_SC_PAGESIZE);
  if (pg <= 0) return;
  uintptr_t a = (uintptr_t)f->data + off, b = a + len;
  a = (a + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
  b &= ~((uintptr_t)pg - 1);
  /* a private read-only mapping: the pages return from the file when
   * read again, so this only drops them from the process */
  if (b > a) (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/* See tvm/base.h. */
void tvm_unmap_file(tvm_file_view *f) {
  if (!f || !f->data) return;
  if (f->mapped)
    munmap((void *)f->data, f->size);
  else
    tvm_free((void *)f->data);
  memset(f, 0, sizeof *f);
}

/* Writes the n parts to fd; 0 when all were written. */
static int write_parts(int fd, const void *const *parts, const size_t *lens,
                       int n) {
  for (int i = 0; i < n; i++) {
    const char *p = parts[i];
    size_t left = lens[i];
    while (left) {
      ssize_t w = write(fd, p, left);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      p += w;
      left -= (size_t)w;
    }
  }
  return 0;
}

/* Writes parts[0] of lens[0] bytes at offset 0 of fd. */
static int write_head(int fd, const void *p, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = pwrite(fd, (const char *)p + done, n - done, (off_t)done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    done += (size_t)w;
  }
  return 0;
}

/* tvm_write_file and tvm_write_file_head_last (head NULL: the former). */
static tvm_status write_file(const char *path, const char *what,
                             const void *const *parts, const size_t *lens,
                             int nparts, int mode,
                             tvm_status (*head)(void *ctx), void *ctx) {
  if (!path)
    return tvm_diag_set(TVM_ERR_INVALID, "%s: no path given", what);
  if (head && nparts < 1)
    return tvm_diag_set(TVM_ERR_INVALID, "%s %s: no header part", what, path);
  struct stat sb;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    /* /dev/null, /dev/stdout, a FIFO: written in place, never replaced */
    if (S_ISDIR(sb.st_mode))
      return tvm_diag_set(TVM_ERR_IO, "cannot write %s %s: it is a directory",
                          what, path);
    tvm_status hs = head ? head(ctx) : TVM_OK; /* in order: head first */
    if (hs != TVM_OK)
      return hs;
    int fd = open(path, O_WRONLY);
    if (fd < 0)
      return tvm_diag_set(TVM_ERR_IO, "cannot open %s %s: %s", what, path,
                          strerror(errno));
    int bad = write_parts(fd, parts, lens, nparts);
    int e = errno;
    if (close(fd) != 0 && !bad) {
      bad = 1;
      e = errno;
    }
    return bad ? tvm_diag_set(TVM_ERR_IO, "cannot write %s %s: %s", what,
                              path, strerror(e))
               : TVM_OK;
  }
  size_t tl = strlen(path) + 48;
  char *tmp = tvm_malloc(tl);
  if (!tmp)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory writing %s %s", what,
                        path);
  /* unique per process and call: two threads writing one path each get
   * their own temporary file, and the last rename wins whole */
  static unsigned serial;
  snprintf(tmp, tl, "%s.tmp%ld.%u", path, (long)getpid(),
           __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (fd < 0) {
    tvm_status st = tvm_diag_set(TVM_ERR_IO, "cannot create %s: %s", tmp,
                                 strerror(errno));
    tvm_free(tmp);
    return st;
  }
  int bad, e;
  tvm_status hs = TVM_OK;
  if (head) { /* the rest first, then the head at offset 0 */
    bad = lseek(fd, (off_t)lens[0], SEEK_SET) < 0 ||
          write_parts(fd, parts + 1, lens + 1, nparts - 1);
    e = errno;
    hs = head(ctx);
    if (!bad && hs == TVM_OK) {
      bad = write_head(fd, parts[0], lens[0]);
      e = errno;
    }
  } else {
    bad = write_parts(fd, parts, lens, nparts);
    e = errno;
  }
  if (close(fd) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (hs != TVM_OK) {
    remove(tmp);
    tvm_free(tmp);
    return hs;
  }
  if (!bad && rename(tmp, path) != 0) {
    bad = 1;
    e = errno;
  }
  tvm_status st = TVM_OK;
  if (bad) {
    st = tvm_diag_set(TVM_ERR_IO, "cannot write %s %s: %s", what, path,
                      strerror(e));
    remove(tmp);
  }
  tvm_free(tmp);
  return st;
}

/* See tvm/base.h. */
tvm_status tvm_write_file(const char *path, const char *what,
                          const void *const *parts, const size_t *lens,
                          int nparts, int mode) {
  return write_file(path, what, parts, lens, nparts, mode, NULL, NULL);
}

/* See tvm/base.h. */
tvm_status tvm_write_file_head_last(const char *path, const char *what,
                                    const void *const *parts,
                                    const size_t *lens, int nparts, int mode,
                                    tvm_status (*head)(void *ctx), void *ctx) {
  return write_file(path, what, parts, lens, nparts, mode, head, ctx);
}
