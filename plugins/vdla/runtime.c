/*
 * plugins/vdla/runtime.c - the VDLA device of the plugin: the driver
 * (vdla_driver.h) over the simulator, blobs of driver command lists
 * (codegen.c), and launch.
 *
 * Device memory is the driver's DRAM arena; mem_alloc hands out pointers
 * into it (so copies are memcpy), and launch turns each buffer argument
 * back into a device address.  A launch replays the kernel's command list
 * into a fresh driver stream (dependency folding and micro-op caching
 * happen there, as a board's runtime would do them) and runs it on the
 * simulator in the target's mode (attrs.sim_mode, overridden by the
 * environment variable VDLA_SIM_MODE = functional | timed | shuffle, and
 * VDLA_SIM_SEED for shuffle).  VDLA_STATS=1 logs each launch's cycles,
 * GEMM utilization and stalls through the host's log.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vdla_plugin.h"

struct tvm_plugin_device {
  tvm_plugin_target *t;
  vdla_dev *dev;
  int mode;
  uint64_t seed;
  vdla_stats sum;
  uint64_t *last; /* the last launch's encoded program */
  uint32_t nlast;
};

struct tvm_plugin_func {
  vdla_kernel *k;
};

struct tvm_plugin_module {
  tvm_plugin_device *d;
  vdla_kernel *ks;
  uint32_t nk;
  struct tvm_plugin_func *funcs;
};

/* The mode named s, or -1. */
static int mode_of(const char *s) {
  if (!s) return -1;
  if (!strcmp(s, "functional")) return VDLA_FUNCTIONAL;
  if (!strcmp(s, "timed")) return VDLA_TIMED;
  if (!strcmp(s, "shuffle")) return VDLA_SHUFFLE;
  return -1;
}

int32_t vdla_device_open(tvm_plugin_target *t, tvm_plugin_device **out) {
  tvm_plugin_device *d = calloc(1, sizeof *d);
  const char *why = NULL;
  if (!d) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  d->t = t;
  d->mode = t->mode;
  d->seed = t->seed;
  const char *env = getenv("VDLA_SIM_MODE");
  if (env && *env) {
    if (mode_of(env) < 0) {
      free(d);
      return vdla_fail(TVM_ERR_INVALID, "vdla: VDLA_SIM_MODE=%s: use "
                       "functional, timed or shuffle", env);
    }
    d->mode = mode_of(env);
  }
  if ((env = getenv("VDLA_SIM_SEED")) && *env)
    d->seed = strtoull(env, NULL, 10);
  d->dev = vdla_dev_open(&t->cfg, t->dram_bytes, &why);
  if (!d->dev) {
    free(d);
    return vdla_fail(TVM_ERR_NOMEM, "vdla: cannot open the simulated device: "
                     "%s", why ? why : "?");
  }
  *out = d;
  return TVM_OK;
}

void vdla_device_close(tvm_plugin_device *d) {
  if (!d) return;
  vdla_dev_close(d->dev);
  free(d->last);
  free(d);
}

const uint64_t *vdla_device_last_program(tvm_plugin_device *d, uint32_t *n) {
  *n = d->nlast;
  return d->last;
}

void vdla_device_stats(tvm_plugin_device *d, vdla_stats *out) { *out = d->sum; }
void vdla_device_reset_stats(tvm_plugin_device *d) {
  memset(&d->sum, 0, sizeof d->sum);
}
void vdla_device_set_mode(tvm_plugin_device *d, int mode, uint64_t seed) {
  d->mode = mode;
  d->seed = seed;
}

int32_t vdla_mem_alloc(tvm_plugin_device *d, uint32_t scope, uint64_t nbytes,
                       uint64_t align, void **out) {
  (void)scope;
  uint64_t addr;
  if (align < 4096) align = 4096; /* any entry of any buffer starts aligned */
  if (vdla_dev_alloc(d->dev, nbytes, align, &addr))
    return vdla_fail(TVM_ERR_NOMEM, "vdla: device memory full: %llu bytes "
                     "asked, %llu in use of %llu (attrs.dram_mib)",
                     (unsigned long long)nbytes,
                     (unsigned long long)vdla_dev_used(d->dev),
                     (unsigned long long)d->t->dram_bytes);
  *out = vdla_dev_dram(d->dev) + addr;
  return TVM_OK;
}

void vdla_mem_free(tvm_plugin_device *d, uint32_t scope, void *p) {
  (void)scope;
  if (p) vdla_dev_free(d->dev, (uint64_t)((uint8_t *)p - vdla_dev_dram(d->dev)));
}

/* Device memory is host memory of the simulator: memcpy both ways. */
int32_t vdla_copy(tvm_plugin_device *d, void *dst, uint64_t dst_offset,
                  const void *src, uint64_t src_offset, uint64_t nbytes,
                  uint32_t kind) {
  (void)d;
  (void)kind;
  memmove((char *)dst + dst_offset, (const char *)src + src_offset, nbytes);
  return TVM_OK;
}

/* ---- blobs -------------------------------------------------------------------- */

void vdla_kernels_free(vdla_kernel *ks, uint32_t n) {
  for (uint32_t i = 0; ks && i < n; i++) {
    free(ks[i].name);
    free(ks[i].cmds);
    free(ks[i].uops);
  }
  free(ks);
}

static int take(const tvm_plugin_blob *b, uint64_t *pos, void *dst, uint64_t n) {
  if (b->size < *pos || b->size - *pos < n) return 0;
  if (n) memcpy(dst, b->data + *pos, n);
  *pos += n;
  return 1;
}

int32_t vdla_parse(const tvm_plugin_blob *b, vdla_kernel **out, uint32_t *nout) {
  uint64_t pos = 0;
  char magic[8];
  uint32_t n = 0;
  if (b->format != TVM_BLOB_CUSTOM || !take(b, &pos, magic, 8) ||
      memcmp(magic, "VDLAPRG1", 8) || !take(b, &pos, &n, 4) || n > 65536)
    return vdla_fail(TVM_ERR_INVALID, "vdla: not a VDLA blob");
  vdla_kernel *ks = calloc(n ? n : 1, sizeof *ks);
  if (!ks) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  int ok = 1;
  for (uint32_t i = 0; ok && i < n; i++) {
    vdla_kernel *k = &ks[i];
    uint32_t len = 0;
    ok = take(b, &pos, &len, 4) && len < 4096 &&
         (k->name = calloc(1, len + 1)) && take(b, &pos, k->name, len) &&
         take(b, &pos, &k->nparams, 4) && take(b, &pos, &k->ncmds, 4) &&
         take(b, &pos, &k->nuops, 4) && k->ncmds <= (1u << 22) &&
         k->nuops <= (1u << 24) &&
         (k->cmds = calloc(k->ncmds + 1, sizeof(vdla_cmd))) &&
         take(b, &pos, k->cmds, sizeof(vdla_cmd) * k->ncmds) &&
         (k->uops = calloc(k->nuops + 1, sizeof(vdla_uop))) &&
         take(b, &pos, k->uops, sizeof(vdla_uop) * k->nuops);
    for (uint32_t c = 0; ok && c < k->ncmds; c++) {
      const vdla_cmd *m = &k->cmds[c];
      ok = m->kind >= VDLA_CMD_LOAD && m->kind <= VDLA_CMD_POP;
      if (ok && (m->kind == VDLA_CMD_LOAD || m->kind == VDLA_CMD_STORE))
        ok = m->param < k->nparams && m->buf < VDLA_NBUF;
      if (ok && m->kind == VDLA_CMD_COMPUTE)
        ok = m->uop_off <= k->nuops && m->nuops <= k->nuops - m->uop_off;
    }
  }
  if (!ok || pos != b->size) {
    vdla_kernels_free(ks, n);
    return vdla_fail(TVM_ERR_INVALID, "vdla: damaged blob");
  }
  *out = ks;
  *nout = n;
  return TVM_OK;
}

/* Appends printf output to a growing string. */
static void app(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void app(char **s, size_t *len, size_t *cap, const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0 || !*s) return;
  if (*len + (size_t)n + 1 > *cap) {
    size_t nc = *cap * 2 + (size_t)n + 1;
    char *q = realloc(*s, nc);
    if (!q) {
      free(*s);
      *s = NULL;
      return;
    }
    *s = q;
    *cap = nc;
  }
  memcpy(*s + *len, line, (size_t)n + 1);
  *len += (size_t)n;
}

char *vdla_kernel_str(const vdla_kernel *k) {
  static const char *const bn[VDLA_NBUF] = {"UOP", "WGT", "INP", "ACC", "OUT"};
  static const char *const mn[3] = {"load", "compute", "store"};
  static const char *const an[5] = {"min", "max", "add", "shr", "mul"};
  size_t len = 0, cap = 256;
  char *s = malloc(cap);
  if (s) s[0] = 0;
  for (uint32_t i = 0; i < k->ncmds && s; i++) {
    const vdla_cmd *c = &k->cmds[i];
    switch (c->kind) {
    case VDLA_CMD_LOAD:
      app(&s, &len, &cap, "LOAD %s sram %u <- p%u+%llu y %u x %u stride %u "
          "pad %u %u %u %u\n", bn[c->buf], c->sram, c->param,
          (unsigned long long)c->dram, c->y, c->x, c->stride, c->pads[0],
          c->pads[1], c->pads[2], c->pads[3]);
      break;
    case VDLA_CMD_STORE:
      app(&s, &len, &cap, "STORE sram %u -> p%u+%llu y %u x %u stride %u\n",
          c->sram, c->param, (unsigned long long)c->dram, c->y, c->x,
          c->stride);
      break;
    case VDLA_CMD_COMPUTE: {
      const vdla_insn *in = &c->insn;
      if (in->op == VDLA_OP_GEMM)
        app(&s, &len, &cap, "GEMM%s out %u x in %u dst %u %u src %u %u wgt "
            "%u %u uops", in->reset ? " reset" : "", in->extent_out,
            in->extent_in, in->dst_factor_out, in->dst_factor_in,
            in->src_factor_out, in->src_factor_in, in->wgt_factor_out,
            in->wgt_factor_in);
      else if (in->use_imm)
        app(&s, &len, &cap, "ALU %s imm %d out %u x in %u dst %u %u uops",
            an[in->alu_op % 5], in->imm, in->extent_out, in->extent_in,
            in->dst_factor_out, in->dst_factor_in);
      else
        app(&s, &len, &cap, "ALU %s acc out %u x in %u dst %u %u src %u %u "
            "uops", an[in->alu_op % 5], in->extent_out, in->extent_in,
            in->dst_factor_out, in->dst_factor_in, in->src_factor_out,
            in->src_factor_in);
      for (uint32_t u = 0; u < c->nuops && s; u++) {
        const vdla_uop *o = &k->uops[c->uop_off + u];
        if (in->op == VDLA_OP_GEMM)
          app(&s, &len, &cap, " (%u %u %u)", o->dst, o->src, o->wgt);
        else if (in->use_imm)
          app(&s, &len, &cap, " (%u)", o->dst);
        else
          app(&s, &len, &cap, " (%u %u)", o->dst, o->src);
      }
      app(&s, &len, &cap, "\n");
      break;
    }
    default:
      app(&s, &len, &cap, "%s %s -> %s\n",
          c->kind == VDLA_CMD_PUSH ? "PUSH" : "POP", mn[c->from % 3],
          mn[c->to % 3]);
    }
  }
  return s;
}

/* ---- modules ------------------------------------------------------------------- */

int32_t vdla_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                         tvm_plugin_module **out) {
  tvm_plugin_module *m = calloc(1, sizeof *m);
  if (!m) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  int32_t rc = vdla_parse(blob, &m->ks, &m->nk);
  if (rc) {
    free(m);
    return rc;
  }
  m->funcs = calloc(m->nk + 1, sizeof *m->funcs);
  if (!m->funcs) {
    vdla_module_unload(m);
    return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  }
  for (uint32_t i = 0; i < m->nk; i++) m->funcs[i].k = &m->ks[i];
  m->d = d;
  *out = m;
  return TVM_OK;
}

void vdla_module_unload(tvm_plugin_module *m) {
  if (!m) return;
  free(m->funcs);
  vdla_kernels_free(m->ks, m->nk);
  free(m);
}

int32_t vdla_func_get(tvm_plugin_module *m, const char *name,
                      tvm_plugin_func **out) {
  for (uint32_t i = 0; i < m->nk; i++)
    if (!strcmp(m->ks[i].name, name)) {
      *out = &m->funcs[i];
      return TVM_OK;
    }
  return vdla_fail(TVM_ERR_NOT_FOUND, "vdla: no kernel '%s'", name);
}

/* ---- launch ------------------------------------------------------------------- */

int32_t vdla_launch(tvm_plugin_device *d, tvm_plugin_func *f,
                    const tvm_plugin_arg *args, uint32_t nargs,
                    const uint32_t grid[3], const uint32_t block[3]) {
  const vdla_kernel *k = f->k;
  uint64_t base[64];
  uint8_t *dram = vdla_dev_dram(d->dev);
  if (nargs != k->nparams || nargs > 64)
    return vdla_fail(TVM_ERR_INVALID, "vdla: %s takes %u buffers, %u given",
                     k->name, k->nparams, nargs);
  for (int x = 0; x < 3; x++)
    if (grid[x] != 1 || block[x] != 1)
      return vdla_fail(TVM_ERR_INVALID, "vdla: %s launched on a grid; VDLA "
                       "runs one instruction stream", k->name);
  for (uint32_t a = 0; a < nargs; a++) {
    uint8_t *p = args[a].v.ptr;
    if (args[a].type != TVM_ARG_PTR || p < dram ||
        (uint64_t)(p - dram) >= d->t->dram_bytes)
      return vdla_fail(TVM_ERR_INVALID, "vdla: %s: argument %u is not device "
                       "memory of this VDLA", k->name, a);
    base[a] = (uint64_t)(p - dram);
  }
  vdla_stream *s = vdla_stream_new(d->dev);
  if (!s) return vdla_fail(TVM_ERR_NOMEM, "vdla: out of memory");
  int rc = 0;
  for (uint32_t i = 0; i < k->ncmds && !rc; i++) {
    const vdla_cmd *c = &k->cmds[i];
    switch (c->kind) {
    case VDLA_CMD_LOAD:
      rc = vdla_load(s, (int)c->buf, c->sram, base[c->param] + c->dram, c->y,
                     c->x, c->stride, c->pads);
      break;
    case VDLA_CMD_STORE:
      rc = vdla_store(s, c->sram, base[c->param] + c->dram, c->y, c->x,
                      c->stride);
      break;
    case VDLA_CMD_COMPUTE:
      rc = vdla_compute(s, &c->insn, k->uops + c->uop_off, c->nuops);
      break;
    case VDLA_CMD_PUSH:
      rc = vdla_dep_push(s, (int)c->from, (int)c->to);
      break;
    default:
      rc = vdla_dep_pop(s, (int)c->from, (int)c->to);
    }
  }
  char err[512] = "";
  vdla_stats st;
  memset(&st, 0, sizeof st);
  if (rc) snprintf(err, sizeof err, "%s", vdla_stream_error(s));
  else rc = vdla_stream_run(s, d->mode, d->seed, &st, err, sizeof err);
  uint32_t nw = 0;
  const uint64_t *w = rc ? NULL : vdla_stream_words(s, &nw);
  free(d->last);
  d->last = NULL;
  d->nlast = 0;
  if (w && (d->last = malloc((size_t)nw * 16 + 16))) {
    memcpy(d->last, w, (size_t)nw * 16);
    d->nlast = nw;
  }
  vdla_stream_free(s);
  if (rc)
    return vdla_fail(TVM_ERR_INVALID, "vdla: %s: %s", k->name, err);
  d->sum.cycles += st.cycles;
  for (int m = 0; m < VDLA_NMOD; m++) {
    d->sum.busy[m] += st.busy[m];
    d->sum.stall[m] += st.stall[m];
    d->sum.insns[m] += st.insns[m];
  }
  for (int b = 0; b < VDLA_NBUF; b++) d->sum.bytes[b] += st.bytes[b];
  d->sum.gemm_uops += st.gemm_uops;
  d->sum.alu_uops += st.alu_uops;
  d->sum.gemm_utilization =
      d->sum.cycles ? (double)d->sum.gemm_uops / (double)d->sum.cycles : 0;
  const char *env = getenv("VDLA_STATS");
  if (env && *env == '1' && vdla_host && vdla_host->log) {
    char line[256];
    snprintf(line, sizeof line, "vdla %s: %llu cycles, GEMM utilization "
             "%.1f%%, stalls load %llu compute %llu store %llu", k->name,
             (unsigned long long)st.cycles, 100.0 * st.gemm_utilization,
             (unsigned long long)st.stall[0], (unsigned long long)st.stall[1],
             (unsigned long long)st.stall[2]);
    vdla_host->log(2, line);
  }
  return TVM_OK;
}
