/*
 * core/runtime/plugin_registry.c - plugin discovery: which directories are
 * searched, which files are refused and why, ABI negotiation, and the
 * process-wide registry.
 *
 * Every decision is recorded as an entry (loaded, or skipped with a
 * one-line reason) so that `tvmc targets` can show it; nothing about a bad
 * plugin is fatal.  Loaded shared objects are never closed.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime_int.h"

struct tvm_plugin_registry {
  tvm_plugin_entry **entries; /* each allocated alone: pointers stay valid */
  int n, cap;
  char **dirs; /* searched directories, in order */
  int ndirs, dcap;
};

/* A heap string (tvm_free) formatted like printf, or NULL. */
char *runtime_aprintf(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = NULL;
  if (len >= 0 && (s = tvm_malloc((size_t)len + 1)) != NULL)
    vsnprintf(s, (size_t)len + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

/* Bytes of the vtable defined by ABI version v (0 for unknown ones). */
size_t runtime_vtable_size_for_abi(uint32_t v) {
  if (v == 1) return TVM_PLUGIN_VTABLE_SIZE_V1;
  if (v == 2) return TVM_PLUGIN_VTABLE_SIZE_V2;
  if (v == 3) return TVM_PLUGIN_VTABLE_SIZE_V3;
  if (v == 4) return TVM_PLUGIN_VTABLE_SIZE_V4;
  if (v == 5) return TVM_PLUGIN_VTABLE_SIZE_V5;
  if (v >= 6 && v <= 8) return sizeof(tvm_plugin_vtable); /* 7, 8: no slots */
  return 0;
}

/* Is the installed directory switched off for this process?  Test suites
 * set TVM_NO_INSTALLED=1 so that they see only the build tree. */
int runtime_no_installed_dirs(void) {
  const char *v = secure_getenv("TVM_NO_INSTALLED");
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* Appends a fresh zeroed entry for path; NULL when out of memory. */
static tvm_plugin_entry *add_entry(tvm_plugin_registry *r, const char *path) {
  if (r->n == r->cap) {
    int ncap = r->cap ? r->cap * 2 : 16;
    tvm_plugin_entry **ne =
        tvm_realloc(r->entries, (size_t)ncap * sizeof(*ne));
    if (ne == NULL) return NULL;
    r->entries = ne;
    r->cap = ncap;
  }
  tvm_plugin_entry *e = tvm_calloc(1, sizeof(*e));
  if (e == NULL) return NULL;
  e->path = tvm_strdup(path);
  if (e->path == NULL) {
    tvm_free(e);
    return NULL;
  }
  r->entries[r->n++] = e;
  return e;
}

/* Records path as skipped for the reason given (printf format). */
static void skip(tvm_plugin_registry *r, const char *path, const char *fmt,
                 ...) TVM_PRINTF(3, 4);
static void skip(tvm_plugin_registry *r, const char *path, const char *fmt,
                 ...) {
  tvm_plugin_entry *e = add_entry(r, path);
  if (e == NULL) return;
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  e->state = TVM_PLUGIN_SKIPPED;
  e->reason = tvm_strdup(buf);
  tvm_log(TVM_LOG_INFO, "plugin %s skipped: %s", path, buf);
}

/* "group-writable", "world-writable" or both, for a mode with either bit. */
static const char *writable_what(mode_t m) {
  if ((m & S_IWGRP) && (m & S_IWOTH)) return "group- and world-writable";
  return (m & S_IWGRP) ? "group-writable" : "world-writable";
}

/* The loaded entry called name, or NULL. */
const tvm_plugin_entry *tvm_plugin_registry_find(const tvm_plugin_registry *r,
                                                 const char *name) {
  if (r == NULL || name == NULL) return NULL;
  for (int i = 0; i < r->n; i++) {
    const tvm_plugin_entry *e = r->entries[i];
    if (e->state == TVM_PLUGIN_LOADED && strcmp(e->name, name) == 0) return e;
  }
  return NULL;
}

/* Opens one plugin file, negotiates its ABI and records the outcome. */
static void load_file(tvm_plugin_registry *r, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    skip(r, path, "cannot stat: %s", strerror(errno));
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    skip(r, path, "not a regular file");
    return;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    skip(r, path, "refusing plugin %s: file is %s; fix with chmod go-w %s",
         path, writable_what(st.st_mode), path);
    return;
  }
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *err = dlerror();
    skip(r, path, "dlopen failed: %s", err ? err : "unknown error");
    return;
  }
  dlerror();
  void *sym = dlsym(h, TVM_PLUGIN_ENTRY);
  if (sym == NULL) {
    skip(r, path,
         "no entry symbol %s (not a tvm plugin, or built without "
         "TVM_PLUGIN_EXPORT)",
         TVM_PLUGIN_ENTRY);
    dlclose(h); /* nothing of it was used */
    return;
  }
  tvm_plugin_query_fn query;
  memcpy(&query, &sym, sizeof query); /* object -> function pointer */
  const tvm_plugin_desc *d = query(TVM_PLUGIN_ABI_VERSION,
                                   tvm_plugin_host_api());
  if (d == NULL) {
    skip(r, path,
         "ABI negotiation failed: the plugin speaks no ABI version in "
         "[%u, %u] (tvm_plugin_query returned NULL); rebuild it against "
         "this SDK",
         TVM_PLUGIN_ABI_MIN, TVM_PLUGIN_ABI_VERSION);
    return;
  }
  if (d->struct_size < sizeof(tvm_plugin_desc)) {
    skip(r, path,
         "ABI negotiation failed: descriptor struct_size %u is smaller than "
         "%zu",
         d->struct_size, sizeof(tvm_plugin_desc));
    return;
  }
  if (d->abi_version < TVM_PLUGIN_ABI_MIN ||
      d->abi_version > TVM_PLUGIN_ABI_VERSION) {
    skip(r, path,
         "ABI negotiation failed: the plugin answered ABI %u, this host "
         "speaks %u to %u; rebuild the plugin against this SDK",
         d->abi_version, TVM_PLUGIN_ABI_MIN, TVM_PLUGIN_ABI_VERSION);
    return;
  }
  if (d->name == NULL || d->name[0] == '\0') {
    skip(r, path, "ABI negotiation failed: the descriptor has no name");
    return;
  }
  if (d->vtable == NULL) {
    skip(r, path, "ABI negotiation failed: plugin '%s' has no vtable",
         d->name);
    return;
  }
  size_t need = runtime_vtable_size_for_abi(d->abi_version);
  if (d->vtable->struct_size < need) {
    skip(r, path,
         "ABI negotiation failed: plugin '%s' vtable struct_size %u is too "
         "small for ABI %u (needs %zu)",
         d->name, d->vtable->struct_size, d->abi_version, need);
    return;
  }
  const tvm_plugin_entry *first = tvm_plugin_registry_find(r, d->name);
  if (first != NULL) {
    skip(r, path, "duplicate plugin name '%s': already loaded from %s",
         d->name, first->path);
    return;
  }
  tvm_plugin_entry *e = add_entry(r, path);
  if (e == NULL) return;
  e->state = TVM_PLUGIN_LOADED;
  e->desc = d;
  e->name = d->name;
  e->version = d->version ? d->version : "?";
  e->description = d->description ? d->description : "";
  e->abi_version = d->abi_version;
  e->vtable = d->vtable;
  e->vtable_size = (uint32_t)need;
  tvm_log(TVM_LOG_DEBUG, "plugin %s loaded from %s (ABI %u)", e->name, path,
          e->abi_version);
}

/* scandir filter: names ending in ".so". */
static int is_so(const struct dirent *de) {
  size_t n = strlen(de->d_name);
  return n > 3 && strcmp(de->d_name + n - 3, ".so") == 0;
}

/* Searches one directory: refuses it whole when writable by others,
 * then loads its *.so files in name order. */
static void scan_dir(tvm_plugin_registry *r, const char *dir) {
  if (dir[0] != '/') {
    skip(r, dir,
         "relative directory in TVM_PLUGIN_PATH ignored (the current "
         "directory is never searched); use an absolute path");
    return;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    tvm_log(TVM_LOG_DEBUG, "plugin directory %s does not exist", dir);
    return;
  }
  if (r->ndirs == r->dcap) {
    int ncap = r->dcap ? r->dcap * 2 : 8;
    char **nd = tvm_realloc(r->dirs, (size_t)ncap * sizeof(*nd));
    if (nd == NULL) return;
    r->dirs = nd;
    r->dcap = ncap;
  }
  char *copy = tvm_strdup(dir);
  if (copy == NULL) return;
  r->dirs[r->ndirs++] = copy;
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    skip(r, dir,
         "refusing plugin directory %s: directory is %s; fix with chmod "
         "go-w %s",
         dir, writable_what(st.st_mode), dir);
    return;
  }
  struct dirent **names = NULL;
  int n = scandir(dir, &names, is_so, alphasort);
  if (n < 0) {
    skip(r, dir, "cannot read directory: %s", strerror(errno));
    return;
  }
  for (int i = 0; i < n; i++) {
    size_t len = strlen(dir) + strlen(names[i]->d_name) + 2;
    char *path = tvm_malloc(len);
    if (path != NULL) {
      snprintf(path, len, "%s/%s", dir, names[i]->d_name);
      load_file(r, path);
      tvm_free(path);
    }
    free(names[i]);
  }
  free(names);
}

/* Serializes every scan: plugins' tvm_plugin_query never runs on two
 * threads at once. */
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;

static tvm_status create_locked(const char *path_list, int with_default_dir,
                                tvm_plugin_registry **out);

/* Public entry: one scan at a time (see scan_lock). */
tvm_status tvm_plugin_registry_create(const char *path_list,
                                      int with_default_dir,
                                      tvm_plugin_registry **out) {
  pthread_mutex_lock(&scan_lock);
  tvm_status st = create_locked(path_list, with_default_dir, out);
  pthread_mutex_unlock(&scan_lock);
  return st;
}

/* Builds a registry from a colon list (empty entries ignored) and,
 * optionally, the installed plugin directory. */
static tvm_status create_locked(const char *path_list, int with_default_dir,
                                tvm_plugin_registry **out) {
  *out = NULL;
  tvm_plugin_registry *r = tvm_calloc(1, sizeof(*r));
  if (r == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  const char *p = path_list ? path_list : "";
  while (*p) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len > 0) {
      char *dir = tvm_malloc(len + 1);
      if (dir == NULL) {
        tvm_plugin_registry_free(r);
        return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
      }
      memcpy(dir, p, len);
      dir[len] = '\0';
      while (len > 1 && dir[len - 1] == '/') dir[--len] = '\0';
      scan_dir(r, dir);
      tvm_free(dir);
    }
    p += len;
    if (*p == ':') p++;
  }
  if (with_default_dir) scan_dir(r, TVM_PLUGIN_DIR);
  *out = r;
  return TVM_OK;
}

/* Frees the registry's records; the shared objects stay loaded. */
void tvm_plugin_registry_free(tvm_plugin_registry *r) {
  if (r == NULL) return;
  for (int i = 0; i < r->n; i++) {
    tvm_free((char *)r->entries[i]->path);
    tvm_free((char *)r->entries[i]->reason);
    tvm_free(r->entries[i]);
  }
  for (int i = 0; i < r->ndirs; i++) tvm_free(r->dirs[i]);
  tvm_free(r->dirs);
  tvm_free(r->entries);
  tvm_free(r);
}

/* Number of files discovery recorded (loaded or skipped). */
int tvm_plugin_registry_count(const tvm_plugin_registry *r) {
  return r ? r->n : 0;
}

/* The i-th recorded file in search order, or NULL. */
const tvm_plugin_entry *tvm_plugin_registry_at(const tvm_plugin_registry *r,
                                               int i) {
  return (r && i >= 0 && i < r->n) ? r->entries[i] : NULL;
}

/* The searched directories joined with ':' (heap string). */
char *tvm_plugin_registry_dirs(const tvm_plugin_registry *r) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_strbuf_append(&b, "");
  for (int i = 0; r && i < r->ndirs; i++) {
    if (i) tvm_strbuf_append(&b, ":");
    tvm_strbuf_append(&b, r->dirs[i]);
  }
  return tvm_strbuf_take(&b);
}

/* ---- the process-wide registry --------------------------------------- */
static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static tvm_plugin_registry *global_registry;
static tvm_plugin_registry empty_registry;

/* Builds the global registry from $TVM_PLUGIN_PATH and the installed
 * directory; an empty registry (and a logged error) when out of memory. */
static void discover(void) {
  const char *env = secure_getenv("TVM_PLUGIN_PATH");
  tvm_plugin_registry *r = NULL;
  if (tvm_plugin_registry_create(env, !runtime_no_installed_dirs(), &r) !=
      TVM_OK) {
    tvm_log(TVM_LOG_ERROR, "plugin discovery failed: %s",
            tvm_diag_message());
    r = &empty_registry;
  }
  global_registry = r;
}

/* The global registry, discovered exactly once. */
tvm_plugin_registry *tvm_plugins(void) {
  pthread_once(&global_once, discover);
  return global_registry;
}

/* ---- schema access ------------------------------------------------------ */
uint32_t tvm_plugin_nattrs(const tvm_plugin_entry *p) {
  if (p == NULL || p->vtable == NULL || p->vtable->attrs == NULL) return 0;
  return p->vtable->nattrs;
}

/* Schema entry i of a loaded plugin, or NULL past the end. */
const tvm_plugin_attr *tvm_plugin_attr_at(const tvm_plugin_entry *p,
                                          uint32_t i) {
  if (i >= tvm_plugin_nattrs(p)) return NULL;
  return &p->vtable->attrs[i];
}
