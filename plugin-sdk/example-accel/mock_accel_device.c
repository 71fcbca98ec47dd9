/*
 * mock_accel_device.c - the mock accelerator's "hardware": device memory
 * (host memory, with a table of allocations so every access is bounds
 * checked), loaded command streams, and launch.
 *
 * Launch runs a kernel's command stream on two queues the way a DAE
 * device would: each queue runs its own commands in order and only waits
 * where it pops a dependency token that has not been pushed yet.  The
 * simulator runs the load queue as far ahead as its tokens allow, then
 * the compute queue, and so on, so loads of one virtual thread overtake
 * the other's compute: a missing token shows up as a wrong result (or,
 * when both queues wait, as a deadlock report naming the queue heads),
 * not as a lucky in-order run.  Launches are synchronous.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_accel.h"

/* One device allocation. */
typedef struct alloc {
  void *p;
  uint64_t bytes;
} alloc;

struct tvm_plugin_device {
  alloc *allocs;
  uint32_t nallocs, cap;
  uint64_t ran[2], switches; /* statistics of the last launch */
};

struct tvm_plugin_module {
  tvm_plugin_device *d;
  mock_kernel *ks;
  uint32_t nk;
  struct tvm_plugin_func **funcs; /* per kernel, made on first lookup */
};

struct tvm_plugin_func {
  mock_kernel *k;
  uint32_t *order[2]; /* per queue: its commands' indexes */
  uint32_t n[2];
};

/* See mock_accel.h. */
int32_t mock_device_open(tvm_plugin_target *t, tvm_plugin_device **out) {
  (void)t;
  *out = calloc(1, sizeof **out);
  return *out ? TVM_OK : mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
}

void mock_device_close(tvm_plugin_device *d) {
  if (!d) return;
  for (uint32_t i = 0; i < d->nallocs; i++) free(d->allocs[i].p);
  free(d->allocs);
  free(d);
}

int32_t mock_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out) {
  (void)scope;
  if (d->nallocs == d->cap) {
    uint32_t nc = d->cap ? d->cap * 2 : 16;
    alloc *a = realloc(d->allocs, nc * sizeof *a);
    if (!a) return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
    d->allocs = a;
    d->cap = nc;
  }
  if (align < 16) align = 16;
  uint64_t n = (nbytes + align - 1) / align * align;
  void *p = aligned_alloc((size_t)align, (size_t)(n ? n : align));
  if (!p)
    return mock_fail(TVM_ERR_NOMEM, "mock_accel: cannot allocate %llu bytes",
                     (unsigned long long)nbytes);
  memset(p, 0, (size_t)(n ? n : align));
  d->allocs[d->nallocs++] = (alloc){p, nbytes};
  *out = p;
  return TVM_OK;
}

void mock_mem_free(tvm_plugin_device *d, uint32_t scope, void *p) {
  (void)scope;
  for (uint32_t i = 0; i < d->nallocs; i++)
    if (d->allocs[i].p == p) {
      free(p);
      d->allocs[i] = d->allocs[--d->nallocs];
      return;
    }
}

/* Device memory is host memory: copies are memcpy in every direction. */
int32_t mock_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind) {
  (void)d;
  (void)kind;
  memcpy((char *)dst + dst_offset, (const char *)src + src_offset, nbytes);
  return TVM_OK;
}

/* ---- blobs -------------------------------------------------------------------- */

void mock_kernels_free(mock_kernel *ks, uint32_t n) {
  for (uint32_t i = 0; ks && i < n; i++) {
    free(ks[i].name);
    free(ks[i].buf_elems);
    free(ks[i].cmds);
  }
  free(ks);
}

/* Reads n bytes at *pos (0 when the blob is short). */
static int take(const tvm_plugin_blob *b, uint64_t *pos, void *dst, uint64_t n) {
  if (b->size < *pos || b->size - *pos < n) return 0;
  memcpy(dst, b->data + *pos, n);
  *pos += n;
  return 1;
}

/* See mock_accel.h: parses and checks every buffer index. */
int32_t mock_parse(const tvm_plugin_blob *b, mock_kernel **out, uint32_t *nout) {
  uint64_t pos = 0;
  char magic[8];
  uint32_t n = 0;
  if (b->format != TVM_BLOB_CUSTOM || !take(b, &pos, magic, 8) ||
      memcmp(magic, "MOCKACC1", 8) || !take(b, &pos, &n, 4) || n > 65536)
    return mock_fail(TVM_ERR_INVALID, "mock_accel: not a mock_accel blob");
  mock_kernel *ks = calloc(n ? n : 1, sizeof *ks);
  if (!ks) return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
  int ok = 1;
  for (uint32_t i = 0; ok && i < n; i++) {
    mock_kernel *k = &ks[i];
    uint32_t len = 0;
    ok = take(b, &pos, &len, 4) && len < 4096 &&
         (k->name = calloc(1, len + 1)) && take(b, &pos, k->name, len) &&
         take(b, &pos, &k->nparams, 4) && take(b, &pos, &k->nbufs, 4) &&
         take(b, &pos, &k->ncmds, 4) && k->nparams <= k->nbufs &&
         k->nbufs < 65536 && k->ncmds <= (1u << 22) &&
         (k->buf_elems = calloc(k->nbufs + 1, sizeof(uint64_t))) &&
         take(b, &pos, k->buf_elems, sizeof(uint64_t) * k->nbufs) &&
         (k->cmds = calloc(k->ncmds + 1, sizeof(mock_cmd))) &&
         take(b, &pos, k->cmds, sizeof(mock_cmd) * k->ncmds);
    for (uint32_t c = 0; ok && c < k->ncmds; c++) {
      const mock_cmd *m = &k->cmds[c];
      ok = m->op >= MOCK_COPY && m->op <= MOCK_POP && m->queue < 2;
      for (int j = 0; ok && j < 3; j++) ok = m->buf[j] < k->nbufs;
    }
  }
  if (!ok || pos != b->size) {
    mock_kernels_free(ks, n);
    return mock_fail(TVM_ERR_INVALID, "mock_accel: damaged blob");
  }
  *out = ks;
  *nout = n;
  return TVM_OK;
}

int32_t mock_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out) {
  tvm_plugin_module *m = calloc(1, sizeof *m);
  if (!m) return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
  int32_t rc = mock_parse(blob, &m->ks, &m->nk);
  if (rc) {
    free(m);
    return rc;
  }
  m->funcs = calloc(m->nk + 1, sizeof *m->funcs);
  if (!m->funcs) {
    mock_module_unload(m);
    return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
  }
  m->d = d;
  *out = m;
  return TVM_OK;
}

void mock_module_unload(tvm_plugin_module *m) {
  if (!m) return;
  for (uint32_t i = 0; m->funcs && i < m->nk; i++)
    if (m->funcs[i]) {
      free(m->funcs[i]->order[0]);
      free(m->funcs[i]->order[1]);
      free(m->funcs[i]);
    }
  free(m->funcs);
  mock_kernels_free(m->ks, m->nk);
  free(m);
}

/* A function handle: the kernel and its per-queue command lists.  The
 * module keeps it (one per kernel, made on first lookup). */
int32_t mock_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out) {
  for (uint32_t i = 0; i < m->nk; i++) {
    mock_kernel *k = &m->ks[i];
    if (strcmp(k->name, name)) continue;
    if (m->funcs[i]) {
      *out = m->funcs[i];
      return TVM_OK;
    }
    tvm_plugin_func *f = calloc(1, sizeof *f);
    if (!f) return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
    f->k = k;
    for (int q = 0; q < 2; q++) f->order[q] = calloc(k->ncmds + 1, sizeof(uint32_t));
    if (!f->order[0] || !f->order[1]) {
      free(f->order[0]);
      free(f->order[1]);
      free(f);
      return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
    }
    for (uint32_t c = 0; c < k->ncmds; c++) {
      uint32_t q = k->cmds[c].queue;
      f->order[q][f->n[q]++] = c;
    }
    m->funcs[i] = f; /* the module owns the handle */
    *out = f;
    return TVM_OK;
  }
  return mock_fail(TVM_ERR_NOT_FOUND, "mock_accel: no kernel '%s'", name);
}

/* ---- launch ------------------------------------------------------------------- */

/* Running state of one launch. */
typedef struct run {
  const mock_kernel *k;
  float **buf;      /* per slot */
  uint64_t *elems;  /* per slot */
  int64_t tokens[2][2];
} run;

/* Is [off, off + n) inside slot b?  Reports otherwise. */
static int inside(const run *r, uint32_t b, int64_t off, int64_t n) {
  if (off >= 0 && n >= 0 && (uint64_t)(off + n) <= r->elems[b]) return 1;
  mock_fail(TVM_ERR_INVALID,
            "mock_accel: %s: access [%lld, %lld) outside buffer %u of %llu "
            "elements",
            r->k->name, (long long)off, (long long)(off + n), b,
            (unsigned long long)r->elems[b]);
  return 0;
}

/* Runs command c; 1 done, 0 waiting for a token, -1 failed. */
static int step(run *r, const mock_cmd *c) {
  float *d = r->buf[c->buf[0]];
  switch (c->op) {
  case MOCK_COPY:
    if (!inside(r, c->buf[0], c->off[0], 1) || !inside(r, c->buf[1], c->off[1], 1))
      return -1;
    d[c->off[0]] = r->buf[c->buf[1]][c->off[1]];
    return 1;
  case MOCK_FILL:
    if (!inside(r, c->buf[0], c->off[0], 1)) return -1;
    d[c->off[0]] = (float)c->imm;
    return 1;
  case MOCK_RESET:
    if (!inside(r, c->buf[0], c->off[0], 3 * (int64_t)c->ld[0] + 4)) return -1;
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) d[c->off[0] + i * c->ld[0] + j] = 0;
    return 1;
  case MOCK_GEMM: {
    for (int x = 0; x < 3; x++)
      if (!inside(r, c->buf[x], c->off[x], 3 * (int64_t)c->ld[x] + 4)) return -1;
    const float *a = r->buf[c->buf[1]] + c->off[1], *b = r->buf[c->buf[2]] + c->off[2];
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        float acc = d[c->off[0] + i * c->ld[0] + j];
        for (int k = 0; k < 4; k++) acc += a[i * c->ld[1] + k] * b[k * c->ld[2] + j];
        d[c->off[0] + i * c->ld[0] + j] = acc;
      }
    return 1;
  }
  case MOCK_PUSH:
    r->tokens[c->queue][(int)c->imm]++;
    return 1;
  default: /* MOCK_POP: from imm to queue */
    if (r->tokens[(int)c->imm][c->queue] == 0) return 0;
    r->tokens[(int)c->imm][c->queue]--;
    return 1;
  }
}

/* Runs f's command stream on its two queues (see the file comment). */
int32_t mock_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]) {
  const mock_kernel *k = f->k;
  run r;
  int32_t rc = TVM_OK;
  memset(&r, 0, sizeof r);
  r.k = k;
  if (nargs != k->nparams)
    return mock_fail(TVM_ERR_INVALID, "mock_accel: %s takes %u buffers, %u given",
                     k->name, k->nparams, nargs);
  for (int x = 0; x < 3; x++)
    if (grid[x] != 1 || block[x] != 1)
      return mock_fail(TVM_ERR_INVALID,
                       "mock_accel: %s launched on a grid; the command "
                       "processor runs one instance",
                       k->name);
  r.buf = calloc(k->nbufs + 1, sizeof(float *));
  r.elems = calloc(k->nbufs + 1, sizeof(uint64_t));
  if (!r.buf || !r.elems) {
    rc = mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
    goto out;
  }
  for (uint32_t b = 0; b < k->nbufs && !rc; b++) {
    if (b < k->nparams) {
      uint32_t i = 0;
      while (i < d->nallocs && d->allocs[i].p != args[b].v.ptr) i++;
      if (args[b].type != TVM_ARG_PTR || i == d->nallocs)
        rc = mock_fail(TVM_ERR_INVALID, "mock_accel: %s: argument %u is not "
                       "a buffer of this device", k->name, b);
      else {
        r.buf[b] = args[b].v.ptr;
        r.elems[b] = d->allocs[i].bytes / sizeof(float);
      }
    } else {
      r.elems[b] = k->buf_elems[b];
      if (!(r.buf[b] = calloc(r.elems[b] + 1, sizeof(float))))
        rc = mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
    }
  }
  uint32_t pc[2] = {0, 0};
  d->ran[0] = d->ran[1] = d->switches = 0;
  while (!rc && (pc[0] < f->n[0] || pc[1] < f->n[1])) {
    int progress = 0;
    for (int q = 0; q < 2 && !rc; q++) {
      int moved = 0;
      while (pc[q] < f->n[q]) {
        int s = step(&r, &k->cmds[f->order[q][pc[q]]]);
        if (s < 0) rc = TVM_ERR_INVALID;
        if (s <= 0) break;
        pc[q]++;
        d->ran[q]++;
        moved = 1;
      }
      if (moved) d->switches++;
      progress |= moved;
    }
    if (!rc && !progress)
      rc = mock_fail(TVM_ERR_INVALID,
                     "mock_accel: %s deadlocked: the load queue waits at "
                     "command %u of %u, the compute queue at %u of %u, for "
                     "tokens that are never pushed",
                     k->name, pc[0], f->n[0], pc[1], f->n[1]);
  }
  if (!rc && (r.tokens[0][1] || r.tokens[1][0]))
    rc = mock_fail(TVM_ERR_INVALID,
                   "mock_accel: %s left tokens behind (load->compute %lld, "
                   "compute->load %lld): pushes and pops do not balance",
                   k->name, (long long)r.tokens[0][1], (long long)r.tokens[1][0]);
out:
  for (uint32_t b = k->nparams; r.buf && b < k->nbufs; b++) free(r.buf[b]);
  free(r.buf);
  free(r.elems);
  return rc;
}

/* See mock_accel.h. */
void mock_device_stats(tvm_plugin_device *d, uint64_t counts[2],
                       uint64_t *switches) {
  counts[0] = d->ran[0];
  counts[1] = d->ran[1];
  *switches = d->switches;
}
