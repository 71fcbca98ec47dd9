/*
 * core/runtime/device.c - devices, loaded modules and launches through a
 * target plugin's run-time slots.
 *
 * Core defaults stand in for NULL slots where the host can do the work:
 * device_open/close (no device object), mem_alloc/mem_free (aligned host
 * memory), copy (memcpy), sync (launches are synchronous) and the timers
 * (host monotonic clock around launch + sync).  module_load, func_get
 * and launch have no default: without them a plugin cannot run code.
 *
 * Every device runs its kernels' parallel loops on one thread pool: its
 * own (sized by the target's num_threads) or one the caller lends it.
 * An ABI 4 plugin is told which through device_open_pool; an older one
 * is opened with device_open and keeps using the process default pool.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime_int.h"

#define TVM_SLOT(p, field) RT_SLOT(p, field)

struct tvm_device {
  const tvm_target *target;
  const tvm_plugin_entry *p;
  tvm_plugin_device *dev; /* the plugin's object (NULL with the default) */
  tvm_thread_pool *pool;  /* where its kernels' parallel loops run */
  int owns_pool;
};

struct tvm_runtime_func {
  tvm_runtime_module *m;
  tvm_plugin_func *f;
  tvm_plugin_kernel kernel; /* name points into the module's copy */
  tvm_runtime_func *next;
};

struct tvm_runtime_module {
  tvm_device *d;
  int owns_device;
  tvm_plugin_module *mod;
  tvm_plugin_kernel *kernels; /* copy of the blob's table */
  uint32_t nkernels;
  tvm_runtime_func *funcs;    /* looked up so far */
};

/* ---- devices --------------------------------------------------------------- */
/* Opens a device of t on pool (own_pool: the device frees it). */
static tvm_status device_open(const tvm_target *t, tvm_thread_pool *pool,
                              int own_pool, tvm_device **out) {
  *out = NULL;
  tvm_device *d = tvm_calloc(1, sizeof(*d));
  if (d == NULL) {
    if (own_pool) tvm_thread_pool_free(pool);
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  }
  d->target = t;
  d->p = t->plugin;
  d->pool = pool;
  d->owns_pool = own_pool;
  int32_t (*open_pool)(tvm_plugin_target *, tvm_host_pool *,
                       tvm_plugin_device **) = TVM_SLOT(d->p, device_open_pool);
  int32_t (*open)(tvm_plugin_target *, tvm_plugin_device **) =
      TVM_SLOT(d->p, device_open);
  int32_t rc = 0;
  tvm_diag_clear();
  if (open_pool != NULL)
    rc = open_pool(t->instance, runtime_host_pool(pool), &d->dev);
  else if (open != NULL)
    rc = open(t->instance, &d->dev);
  if (rc != 0) {
    if (d->owns_pool) tvm_thread_pool_free(d->pool);
    tvm_free(d);
    if (tvm_diag_status() == TVM_OK)
      tvm_diag_set(rc < 0 ? rc : TVM_ERR_INTERNAL, "device_open returned %d",
                   (int)rc);
    return tvm_diag_prefix(rc < 0 ? rc : TVM_ERR_INTERNAL,
                           "opening a device of target '%s': ", t->name);
  }
  *out = d;
  return TVM_OK;
}

/* Probes t; a device needs a machine that can run it. */
static tvm_status check_target(const tvm_target *t) {
  if (t == NULL || t->plugin == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_device_open: no target");
  tvm_status st = tvm_target_probe(t);
  if (st != TVM_OK)
    return tvm_diag_prefix(st, "cannot open a device for target '%s': ",
                           t->name);
  return TVM_OK;
}

/* A device with a pool of its own, sized by t's num_threads. */
tvm_status tvm_device_open(const tvm_target *t, tvm_device **out) {
  *out = NULL;
  tvm_status st = check_target(t);
  if (st != TVM_OK) return st;
  tvm_thread_pool *pool = NULL;
  if ((st = tvm_thread_pool_create(tvm_target_num_threads(t), &pool)) !=
      TVM_OK)
    return st;
  return device_open(t, pool, 1, out);
}

/* A device borrowing pool (NULL: the default pool). */
tvm_status tvm_device_open_with_pool(const tvm_target *t,
                                     tvm_thread_pool *pool,
                                     tvm_device **out) {
  *out = NULL;
  tvm_status st = check_target(t);
  if (st != TVM_OK) return st;
  return device_open(t, pool ? pool : tvm_runtime_default_pool(), 0, out);
}

/* The pool of d. */
tvm_thread_pool *tvm_device_pool(const tvm_device *d) {
  return d ? d->pool : NULL;
}

/* Closes the plugin's device (if it made one) and frees the wrapper. */
void tvm_device_close(tvm_device *d) {
  if (d == NULL) return;
  void (*close)(tvm_plugin_device *) = TVM_SLOT(d->p, device_close);
  if (close != NULL && d->dev != NULL) close(d->dev);
  if (d->owns_pool) tvm_thread_pool_free(d->pool);
  tvm_free(d);
}

/* The target a device was opened for. */
const tvm_target *tvm_device_target(const tvm_device *d) {
  return d ? d->target : NULL;
}

/* Turns a failed slot call into a diagnostic naming the operation. */
static tvm_status slot_failed(const tvm_device *d, int32_t rc,
                              const char *what) {
  tvm_status st = rc < 0 ? rc : TVM_ERR_INTERNAL;
  if (tvm_diag_status() == TVM_OK)
    tvm_diag_set(st, "%s returned %d", what, (int)rc);
  return tvm_diag_prefix(st, "%s on target '%s': ", what, d->target->name);
}

/* Device memory through mem_alloc, or aligned host memory by default. */
tvm_status tvm_device_alloc(tvm_device *d, uint32_t scope, uint64_t nbytes,
                            uint64_t align, void **out) {
  *out = NULL;
  int32_t (*alloc)(tvm_plugin_device *, uint32_t, uint64_t, uint64_t,
                   void **) = TVM_SLOT(d->p, mem_alloc);
  if (alloc != NULL) {
    tvm_diag_clear();
    int32_t rc = alloc(d->dev, scope, nbytes, align, out);
    return rc == 0 ? TVM_OK : slot_failed(d, rc, "mem_alloc");
  }
  if (align < sizeof(void *)) align = 64;
  if ((align & (align - 1)) != 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "tvm_device_alloc: alignment %llu is not a power of "
                        "two",
                        (unsigned long long)align);
  void *p = NULL;
  if (nbytes > SIZE_MAX ||
      posix_memalign(&p, (size_t)align, nbytes ? (size_t)nbytes : 1) != 0)
    return tvm_diag_set(TVM_ERR_NOMEM, "cannot allocate %llu bytes",
                        (unsigned long long)nbytes);
  *out = p;
  return TVM_OK;
}

/* Frees memory from tvm_device_alloc the way it was allocated. */
void tvm_device_free(tvm_device *d, uint32_t scope, void *p) {
  if (d == NULL || p == NULL) return;
  void (*mfree)(tvm_plugin_device *, uint32_t, void *) =
      TVM_SLOT(d->p, mem_free);
  if (TVM_SLOT(d->p, mem_alloc) != NULL) {
    if (mfree != NULL) mfree(d->dev, scope, p);
    return;
  }
  free(p);
}

/* Copies through the plugin's copy slot, or memmove by default. */
tvm_status tvm_device_copy(tvm_device *d, void *dst, uint64_t dst_offset,
                           const void *src, uint64_t src_offset,
                           uint64_t nbytes, uint32_t kind) {
  if (kind < TVM_COPY_HOST_TO_DEVICE || kind > TVM_COPY_DEVICE_TO_DEVICE)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_device_copy: bad kind %u",
                        kind);
  int32_t (*copy)(tvm_plugin_device *, void *, uint64_t, const void *,
                  uint64_t, uint64_t, uint32_t) = TVM_SLOT(d->p, copy);
  if (copy != NULL) {
    tvm_diag_clear();
    int32_t rc = copy(d->dev, dst, dst_offset, src, src_offset, nbytes, kind);
    return rc == 0 ? TVM_OK : slot_failed(d, rc, "copy");
  }
  if (nbytes) memmove((char *)dst + dst_offset,
                      (const char *)src + src_offset, (size_t)nbytes);
  return TVM_OK;
}

/* Waits for launched work (nothing to wait for without a sync slot). */
tvm_status tvm_device_sync(tvm_device *d) {
  int32_t (*sync)(tvm_plugin_device *) = TVM_SLOT(d->p, sync);
  if (sync == NULL) return TVM_OK;
  tvm_diag_clear();
  int32_t rc = sync(d->dev);
  return rc == 0 ? TVM_OK : slot_failed(d, rc, "sync");
}

/* Does the plugin time launches itself (ABI 2 timer slots present)? */
int tvm_device_has_timer(const tvm_device *d) {
  return d != NULL && TVM_SLOT(d->p, timer_start) != NULL &&
         TVM_SLOT(d->p, timer_stop) != NULL;
}

/* ---- modules --------------------------------------------------------------- */
tvm_status tvm_runtime_module_load(tvm_device *d, const tvm_plugin_blob *blob,
                                   tvm_runtime_module **out) {
  *out = NULL;
  int32_t (*load)(tvm_plugin_device *, const tvm_plugin_blob *,
                  tvm_plugin_module **) = TVM_SLOT(d->p, module_load);
  if (load == NULL)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "plugin '%s' has no module_load: target '%s' can "
                        "compile but not run",
                        d->p->name, d->target->name);
  tvm_runtime_module *m = tvm_calloc(1, sizeof(*m));
  if (m == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  m->d = d;
  if (blob->nkernels > 0 && blob->kernels != NULL) {
    m->kernels = tvm_calloc(blob->nkernels, sizeof(*m->kernels));
    if (m->kernels == NULL) {
      tvm_free(m);
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < blob->nkernels; i++) {
      m->kernels[i] = blob->kernels[i];
      m->kernels[i].name = blob->kernels[i].name
                               ? tvm_strdup(blob->kernels[i].name)
                               : NULL;
      m->nkernels = i + 1;
    }
  }
  tvm_diag_clear();
  int32_t rc = load(d->dev, blob, &m->mod);
  if (rc != 0) {
    tvm_runtime_module_free(m);
    return slot_failed(d, rc, "module_load");
  }
  *out = m;
  return TVM_OK;
}

/* Unloads the plugin module, frees the function handles and the kernel
 * table, and closes the device when the module owns it. */
void tvm_runtime_module_free(tvm_runtime_module *m) {
  if (m == NULL) return;
  void (*unload)(tvm_plugin_module *) = TVM_SLOT(m->d->p, module_unload);
  if (unload != NULL && m->mod != NULL) unload(m->mod);
  for (tvm_runtime_func *f = m->funcs, *next; f; f = next) {
    next = f->next;
    tvm_free(f);
  }
  for (uint32_t i = 0; i < m->nkernels; i++)
    tvm_free((char *)m->kernels[i].name);
  tvm_free(m->kernels);
  if (m->owns_device) tvm_device_close(m->d);
  tvm_free(m);
}

/* Hands the module its device (tvm_build with no device). */
void tvm_runtime_module_own_device(tvm_runtime_module *m) {
  m->owns_device = 1;
}

/* The device the module is loaded on. */
tvm_device *tvm_runtime_module_device(tvm_runtime_module *m) {
  return m ? m->d : NULL;
}

/* The handle of kernel name: cached, or fetched with func_get and
 * paired with its codegen launch description. */
tvm_status tvm_runtime_get_func(tvm_runtime_module *m, const char *name,
                                tvm_runtime_func **out) {
  *out = NULL;
  for (tvm_runtime_func *f = m->funcs; f; f = f->next)
    if (strcmp(f->kernel.name, name) == 0) return (*out = f), TVM_OK;
  const tvm_plugin_kernel *k = NULL;
  for (uint32_t i = 0; i < m->nkernels; i++)
    if (m->kernels[i].name && strcmp(m->kernels[i].name, name) == 0)
      k = &m->kernels[i];
  if (k == NULL)
    return tvm_diag_set(TVM_ERR_NOT_FOUND,
                        "no function '%s' in the module (codegen of target "
                        "'%s' produced %u kernel(s))",
                        name, m->d->target->name, m->nkernels);
  int32_t (*get)(tvm_plugin_module *, const char *, tvm_plugin_func **) =
      TVM_SLOT(m->d->p, func_get);
  if (get == NULL)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED, "plugin '%s' has no func_get",
                        m->d->p->name);
  tvm_runtime_func *f = tvm_calloc(1, sizeof(*f));
  if (f == NULL) return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  tvm_diag_clear();
  int32_t rc = get(m->mod, name, &f->f);
  if (rc != 0) {
    tvm_free(f);
    return slot_failed(m->d, rc, "func_get");
  }
  f->m = m;
  f->kernel = *k;
  f->next = m->funcs;
  m->funcs = f;
  *out = f;
  return TVM_OK;
}

/* The launch description codegen gave for f. */
const tvm_plugin_kernel *tvm_runtime_func_kernel(const tvm_runtime_func *f) {
  return &f->kernel;
}

/* Launches f after checking the argument count; does not wait. */
tvm_status tvm_device_launch(tvm_device *d, tvm_runtime_func *f,
                             const tvm_plugin_arg *args, uint32_t nargs,
                             const uint32_t grid[3], const uint32_t block[3]) {
  if (f->kernel.nargs != nargs)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "function '%s' takes %u argument(s), %u given",
                        f->kernel.name, f->kernel.nargs, nargs);
  int32_t (*launch)(tvm_plugin_device *, tvm_plugin_func *,
                    const tvm_plugin_arg *, uint32_t, const uint32_t[3],
                    const uint32_t[3]) = TVM_SLOT(d->p, launch);
  if (launch == NULL)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED, "plugin '%s' has no launch",
                        d->p->name);
  tvm_diag_clear();
  int32_t rc = launch(d->dev, f->f, args, nargs, grid, block);
  return rc == 0 ? TVM_OK : slot_failed(d, rc, "launch");
}

/* Launch with the codegen extents, then sync. */
tvm_status tvm_runtime_call(tvm_runtime_func *f, const tvm_plugin_arg *args,
                            uint32_t nargs) {
  tvm_device *d = f->m->d;
  tvm_status st =
      tvm_device_launch(d, f, args, nargs, f->kernel.grid, f->kernel.block);
  return st == TVM_OK ? tvm_device_sync(d) : st;
}

/* ---- timing ----------------------------------------------------------------- */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Times what fn(ud) enqueues on d: device timer when the plugin has one,
 * host clock around the calls and the sync otherwise. */
tvm_status tvm_device_time(tvm_device *d, tvm_status (*fn)(void *ud),
                           void *ud, int number, int repeat, double *ms) {
  if (number < 1 || repeat < 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "timing: number and repeat must be >= 1");
  tvm_status st = fn(ud); /* warm-up */
  if (st == TVM_OK) st = tvm_device_sync(d);
  if (st != TVM_OK) return st;
  int32_t (*tstart)(tvm_plugin_device *, uint64_t *) =
      TVM_SLOT(d->p, timer_start);
  int32_t (*tstop)(tvm_plugin_device *, uint64_t, double *) =
      TVM_SLOT(d->p, timer_stop);
  int device_timer = tstart != NULL && tstop != NULL;
  for (int r = 0; r < repeat; r++) {
    uint64_t token = 0;
    double t0 = now_ms(), elapsed = 0;
    if (device_timer) {
      tvm_diag_clear();
      int32_t rc = tstart(d->dev, &token);
      if (rc != 0) return slot_failed(d, rc, "timer_start");
    }
    for (int i = 0; i < number && st == TVM_OK; i++) st = fn(ud);
    if (st != TVM_OK) return st;
    if (device_timer) {
      tvm_diag_clear();
      int32_t rc = tstop(d->dev, token, &elapsed);
      if (rc != 0) return slot_failed(d, rc, "timer_stop");
      if ((st = tvm_device_sync(d)) != TVM_OK) return st;
    } else {
      if ((st = tvm_device_sync(d)) != TVM_OK) return st;
      elapsed = now_ms() - t0;
    }
    ms[r] = elapsed / number;
  }
  return TVM_OK;
}

/* One launch of a function with its codegen extents (tvm_device_time). */
typedef struct launch_one {
  tvm_runtime_func *f;
  const tvm_plugin_arg *args;
  uint32_t nargs;
} launch_one;

static tvm_status launch_cb(void *ud) {
  launch_one *l = ud;
  return tvm_device_launch(l->f->m->d, l->f, l->args, l->nargs,
                           l->f->kernel.grid, l->f->kernel.block);
}

/* Times f through tvm_device_time. */
tvm_status tvm_runtime_time(tvm_runtime_func *f, const tvm_plugin_arg *args,
                            uint32_t nargs, int number, int repeat,
                            double *ms) {
  launch_one l = {f, args, nargs};
  return tvm_device_time(f->m->d, launch_cb, &l, number, repeat, ms);
}
