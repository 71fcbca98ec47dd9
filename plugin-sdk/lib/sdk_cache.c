/*
 * plugin-sdk/lib/sdk_cache.c - the compiled-code cache of tvm/plugin_sdk.h:
 * a content-addressed store on disk that a plugin consults before a slow
 * compile (LLVM's pipeline, NVRTC) and fills after it, the way ccache,
 * Triton's and XLA's kernel caches do.
 *
 * An entry is one file, <dir>/<ns>/<fnv><wide>-<n>, named by its key
 * (two independent 64-bit hashes of the key's bytes and their count):
 *
 *   offset size
 *      0     8   magic "TVMKC\0\0\1"
 *      8    24   the key (fnv, wide, n), repeated
 *     32     8   payload size
 *     40     8   tvm_hash_wide of the payload
 *     48     -   payload
 *
 * It is written by tvm_write_file (a temporary file in the same folder,
 * renamed into place), so a reader sees a whole entry or none, and
 * concurrent writers of one key leave one of their (identical) entries.  A reader checks the
 * magic, the key, the size against the file's and the payload's checksum:
 * anything else is a miss and the entry is removed (a torn write, a full
 * disk, a stray file), so the compile runs and rewrites it.  A hit touches
 * the entry's mtime; after every 64th write of a process the folder is
 * trimmed, oldest mtime first, to 80% of $TVM_CACHE_MAX_MB (256 MB).
 *
 * The key is the plugin's responsibility: everything that decides the
 * compiled bytes (the compiler's input, its options, the compiler and the
 * plugin themselves: tvm_sdk_cache_key_add_object) must be in it.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tvm/plugin_sdk.h"

#define CACHE_MAGIC "TVMKC\0\0\1"
#define CACHE_HDR 48
#define CACHE_TRIM_EVERY 64

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t n_hits, n_misses, n_writes;

/* See tvm/plugin_sdk.h. */
void tvm_sdk_cache_key_init(tvm_sdk_cache_key *k) {
  k->fnv = TVM_HASH_SEED;
  tvm_wsum_init(&k->wide);
  k->n = 0;
}

/* See tvm/plugin_sdk.h. */
void tvm_sdk_cache_key_add(tvm_sdk_cache_key *k, const void *p, size_t n) {
  k->fnv = tvm_hash_bytes(p, n, k->fnv);
  tvm_wsum_add(&k->wide, p, n);
  k->n += n;
}

/* See tvm/plugin_sdk.h. */
void tvm_sdk_cache_key_add_str(tvm_sdk_cache_key *k, const char *s) {
  s = s ? s : "";
  tvm_sdk_cache_key_add(k, s, strlen(s) + 1); /* the NUL separates */
}

/* See tvm/plugin_sdk.h. */
int tvm_sdk_cache_key_add_object(tvm_sdk_cache_key *k, const void *addr) {
  Dl_info info;
  struct stat sb;
  if (!addr || !dladdr(addr, &info) || !info.dli_fname ||
      stat(info.dli_fname, &sb) != 0)
    return 0;
  uint64_t id[6] = {(uint64_t)sb.st_dev, (uint64_t)sb.st_ino,
                    (uint64_t)sb.st_size, (uint64_t)sb.st_mtim.tv_sec,
                    (uint64_t)sb.st_mtim.tv_nsec, (uint64_t)sb.st_ctim.tv_sec};
  tvm_sdk_cache_key_add_str(k, info.dli_fname);
  tvm_sdk_cache_key_add(k, id, sizeof id);
  return 1;
}

/* Writes the cache folder of ns into buf (created when create); 0 when
 * the cache is off, ns is not a plain name, or the folder is unusable. */
static int cache_dir(const char *ns, char *buf, size_t n, int create) {
  if (!ns || !ns[0] || strlen(ns) > 64) return 0;
  for (const char *c = ns; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
          (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.') ||
        (c == ns && *c == '.'))
      return 0;
  const char *env = getenv("TVM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  char base[3072];
  int len;
  if (env) {
    if (!env[0] || !strcmp(env, "off") || !strcmp(env, "0")) return 0;
    len = snprintf(base, sizeof base, "%s", env);
  } else if (xdg && xdg[0] == '/') {
    len = snprintf(base, sizeof base, "%s/tvm-c", xdg);
  } else if (home && home[0] == '/') {
    len = snprintf(base, sizeof base, "%s/.cache/tvm-c", home);
  } else {
    return 0;
  }
  if (len < 0 || (size_t)len >= sizeof base) return 0; /* never a cut path */
  if ((size_t)snprintf(buf, n, "%s/%s", base, ns) >= n) return 0;
  if (!create) return 1;
  /* mkdir -p, owner-only for what it creates */
  char path[4096];
  snprintf(path, sizeof path, "%s", buf);
  for (char *s = path + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      if (mkdir(path, 0700) != 0 && errno != EEXIST) return 0;
      *s = '/';
    }
  if (mkdir(path, 0700) != 0 && errno != EEXIST) return 0;
  return 1;
}

/* See tvm/plugin_sdk.h. */
int tvm_sdk_cache_enabled(const char *ns) {
  char dir[4096];
  return cache_dir(ns, dir, sizeof dir, 0);
}

static void entry_name(const tvm_sdk_cache_key *k, char *buf, size_t n,
                       const char *dir, uint64_t key[3]) {
  key[0] = k->fnv;
  key[1] = tvm_wsum_final(&k->wide);
  key[2] = k->n;
  snprintf(buf, n, "%s/%016llx%016llx-%llx", dir, (unsigned long long)key[0],
           (unsigned long long)key[1], (unsigned long long)key[2]);
}

static int read_all(int fd, void *p, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    got += (size_t)r;
  }
  return 1;
}

static void count(uint64_t *c) {
  pthread_mutex_lock(&stats_lock);
  (*c)++;
  pthread_mutex_unlock(&stats_lock);
}

/* See tvm/plugin_sdk.h. */
int tvm_sdk_cache_get(const char *ns, const tvm_sdk_cache_key *k,
                      uint8_t **data, uint64_t *size) {
  char dir[4096], path[4200];
  uint64_t key[3];
  *data = NULL;
  *size = 0;
  if (!cache_dir(ns, dir, sizeof dir, 0)) return 0;
  entry_name(k, path, sizeof path, dir, key);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    count(&n_misses);
    return 0;
  }
  unsigned char hdr[CACHE_HDR];
  uint64_t h[5];
  struct stat sb;
  uint8_t *buf = NULL;
  int ok = fstat(fd, &sb) == 0 && read_all(fd, hdr, sizeof hdr) &&
           memcmp(hdr, CACHE_MAGIC, 8) == 0;
  if (ok) {
    memcpy(h, hdr + 8, sizeof h);
    ok = h[0] == key[0] && h[1] == key[1] && h[2] == key[2] &&
         (uint64_t)sb.st_size == CACHE_HDR + h[3];
  }
  if (ok) ok = (buf = malloc(h[3] ? h[3] : 1)) != NULL;
  if (ok) ok = read_all(fd, buf, h[3]) && tvm_hash_wide(buf, h[3]) == h[4];
  if (ok) futimens(fd, NULL); /* last use, for trimming; best effort */
  close(fd);
  if (!ok) {
    free(buf);
    unlink(path); /* torn or foreign: the compile rewrites it */
    count(&n_misses);
    return 0;
  }
  *data = buf;
  *size = h[3];
  count(&n_hits);
  return 1;
}

typedef struct cache_file {
  char name[64];
  int64_t mtime; /* ns */
  uint64_t bytes;
} cache_file;

static int by_mtime(const void *a, const void *b) {
  int64_t x = ((const cache_file *)a)->mtime, y = ((const cache_file *)b)->mtime;
  return x < y ? -1 : x > y;
}

/* Removes the oldest files of dir (but keep, the entry just written) past
 * 80% of the size limit; a writer's leftover temporary file counts like
 * an entry and goes the same way. */
static void trim(const char *dir, const char *keep) {
  const char *env = getenv("TVM_CACHE_MAX_MB");
  long long mb = env && env[0] ? atoll(env) : 256;
  uint64_t limit = (uint64_t)(mb > 0 ? mb : 256) << 20;
  DIR *d = opendir(dir);
  if (!d) return;
  cache_file *f = NULL;
  size_t n = 0, cap = 0;
  uint64_t total = 0;
  struct dirent *e;
  char path[4200];
  while ((e = readdir(d)) != NULL) {
    struct stat sb;
    if (e->d_name[0] == '.' || strcmp(e->d_name, keep) == 0) continue;
    if (strlen(e->d_name) >= sizeof f->name) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 256;
      cache_file *g = realloc(f, nc * sizeof *g);
      if (!g) break;
      f = g, cap = nc;
    }
    snprintf(f[n].name, sizeof f[n].name, "%s", e->d_name);
    f[n].mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    f[n].bytes = (uint64_t)sb.st_size;
    total += f[n].bytes;
    n++;
  }
  closedir(d);
  if (total > limit) {
    qsort(f, n, sizeof *f, by_mtime);
    for (size_t i = 0; i < n && total > limit / 10 * 8; i++) {
      snprintf(path, sizeof path, "%s/%s", dir, f[i].name);
      if (unlink(path) == 0) total -= f[i].bytes;
    }
  }
  free(f);
}

/* See tvm/plugin_sdk.h. */
void tvm_sdk_cache_put(const char *ns, const tvm_sdk_cache_key *k,
                       const void *data, uint64_t size) {
  char dir[4096], path[4200];
  uint64_t key[3];
  if (!data && size) return;
  if (!cache_dir(ns, dir, sizeof dir, 1)) return;
  entry_name(k, path, sizeof path, dir, key);
  pthread_mutex_lock(&stats_lock);
  uint64_t w = n_writes++;
  pthread_mutex_unlock(&stats_lock);
  unsigned char hdr[CACHE_HDR];
  uint64_t h[5] = {key[0], key[1], key[2], size, tvm_hash_wide(data, size)};
  memcpy(hdr, CACHE_MAGIC, 8);
  memcpy(hdr + 8, h, sizeof h);
  /* the project's whole-file write: a temporary file renamed over the
   * entry, removed on failure */
  const void *parts[2] = {hdr, data};
  size_t lens[2] = {sizeof hdr, (size_t)size};
  if (tvm_write_file(path, "cache entry", parts, lens, 2, 0600) != TVM_OK)
    tvm_diag_clear(); /* a skipped write, not an error */
  if (w % CACHE_TRIM_EVERY == 0) trim(dir, strrchr(path, '/') + 1);
}

/* See tvm/plugin_sdk.h. */
void tvm_sdk_cache_stats(uint64_t *hits, uint64_t *misses, uint64_t *writes) {
  pthread_mutex_lock(&stats_lock);
  if (hits) *hits = n_hits;
  if (misses) *misses = n_misses;
  if (writes) *writes = n_writes;
  pthread_mutex_unlock(&stats_lock);
}
