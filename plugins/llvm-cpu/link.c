/*
 * link.c - temporary files and linking an ELF object into a shared object
 * with the system C compiler (`cc -shared`), run with posix_spawnp; its
 * error output is captured and reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llvm_cpu.h"

extern char **environ;

/* Creates an empty private temporary file named ...suffix; *path (heap)
 * receives its name and the open descriptor is returned (-1 on failure,
 * reported). */
static int make_temp(const char *suffix, char **path) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !dir[0]) dir = "/tmp";
  size_t n = strlen(dir) + strlen(suffix) + 32;
  char *p = malloc(n);
  if (!p) {
    lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
    return -1;
  }
  snprintf(p, n, "%s/tvm-llvm-cpu-XXXXXX%s", dir, suffix);
  int fd = mkstemps(p, (int)strlen(suffix));
  if (fd < 0) {
    lc_report(TVM_ERR_IO, "llvm-cpu: cannot create a temporary file in %s: %s "
              "(set TMPDIR to a writable directory)", dir, strerror(errno));
    free(p);
    return -1;
  }
  *path = p;
  return fd;
}

/* Writes data to a new temporary file; *path receives its name. */
int32_t lc_write_temp(const uint8_t *data, uint64_t size, const char *suffix,
                      char **path) {
  int fd = make_temp(suffix, path);
  if (fd < 0) return TVM_ERR_IO;
  uint64_t off = 0;
  while (off < size) {
    ssize_t w = write(fd, data + off, (size_t)(size - off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int e = errno;
      close(fd);
      unlink(*path);
      lc_report(TVM_ERR_IO, "llvm-cpu: writing %s: %s", *path, strerror(e));
      free(*path);
      *path = NULL;
      return TVM_ERR_IO;
    }
    off += (uint64_t)w;
  }
  close(fd);
  return TVM_OK;
}

/* Reads a whole file into a malloc'd buffer. */
static int32_t read_file(const char *path, uint8_t **out, uint64_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return lc_report(TVM_ERR_IO, "llvm-cpu: cannot read %s: %s", path,
                     strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0) {
    fclose(f);
    return lc_report(TVM_ERR_IO, "llvm-cpu: stat %s: %s", path, strerror(errno));
  }
  uint8_t *buf = malloc((size_t)st.st_size + 1);
  if (!buf) {
    fclose(f);
    return lc_report(TVM_ERR_NOMEM, "llvm-cpu: out of memory");
  }
  size_t got = fread(buf, 1, (size_t)st.st_size, f);
  fclose(f);
  buf[got] = 0;
  *out = buf;
  *size = got;
  return TVM_OK;
}

/* Links obj into a shared object: cc -shared -nostdlib -o out.so in.o
 * -lgcc.  -nostdlib leaves out the C runtime's start files, whose
 * _init/_fini and init/fini arrays would run code when the object is
 * loaded, and the DT_NEEDED libraries with their symbol versions: what
 * the kernels call (libm, memcpy, the host's externs) binds to the
 * process at dlopen, as it does for the object loader, and static libgcc
 * supplies the compiler support routines.  elf_check_shared.c refuses
 * anything else, so this is exactly what it accepts. */
int32_t lc_link_shared(const uint8_t *obj, uint64_t size, uint8_t **out,
                       uint64_t *out_size) {
  char *in = NULL, *so = NULL, *log = NULL;
  int32_t st = lc_write_temp(obj, size, ".o", &in);
  if (st != TVM_OK) return st;
  int fd = make_temp(".so", &so);
  if (fd >= 0) close(fd);
  int lfd = fd >= 0 ? make_temp(".log", &log) : -1;
  if (fd < 0 || lfd < 0) {
    st = TVM_ERR_IO;
    goto done;
  }
  close(lfd);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  char *argv[] = {"cc", "-shared", "-nostdlib", "-o", so, in, "-lgcc", NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, "cc", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    st = lc_report(TVM_ERR_UNAVAILABLE,
                   "llvm-cpu: cannot run the C compiler 'cc' to link a shared "
                   "object: %s (install gcc or clang, or use output: object)",
                   strerror(rc));
    goto done;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    uint8_t *msg = NULL;
    uint64_t n = 0;
    if (read_file(log, &msg, &n) != TVM_OK) msg = NULL;
    st = lc_report(TVM_ERR_IO,
                   "llvm-cpu: 'cc -shared -nostdlib -o %s %s -lgcc' failed (status %d): %.600s",
                   so, in, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                   msg ? (char *)msg : "");
    free(msg);
    goto done;
  }
  st = read_file(so, out, out_size);
done:
  if (in) unlink(in);
  if (so) unlink(so);
  if (log) unlink(log);
  free(in);
  free(so);
  free(log);
  return st;
}
