/*
 * tests/plugins/vdla/vdla_harness.c - see vdla_harness.h.  Inputs are
 * deterministic pseudo-random int8 (and int32 biases); the host program
 * of the lowered module is run here launch by launch (the runtime's
 * host_exec does the same with a tvm_device; the harness keeps the
 * plugin's device in hand for its statistics).
 */
#include "vdla_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/config.h"
#include "tvm/host_program.h"
#include "tvm/schedule.h"

const tvm_plugin_desc *tvm_plugin_query(uint32_t host_abi_max,
                                        const tvm_host_api *host);

static void report(int32_t st, const char *msg) { tvm_diag_set(st, "%s", msg); }
static void logmsg(int32_t level, const char *msg) {
  tvm_log(level, "%s", msg);
}
static void *halloc(uint64_t n) { return malloc(n ? n : 1); }
static void hfree(void *p) { free(p); }
static const tvm_host_api host_api = {
    sizeof(tvm_host_api), TVM_PLUGIN_ABI_VERSION, report, logmsg, halloc,
    hfree, NULL, 1, 0, NULL, NULL};

/* VDLA_DUMP_IR=pass: prints the function after that pass ("all"). */
static void dump_ir(void *ud, const char *pass, const tvm_func *f) {
  (void)ud;
  char *t = tvm_stmt_str(f->body);
  printf("==== %s: %s\n%s", pass, f->name, t ? t : "");
  tvm_free(t);
}

tvm_status vh_open(vh *h, const vdla_config *hw) {
  memset(h, 0, sizeof *h);
  const tvm_plugin_desc *d = tvm_plugin_query(TVM_PLUGIN_ABI_VERSION, &host_api);
  if (!d) return tvm_diag_set(TVM_ERR_INTERNAL, "vdla plugin refused ABI");
  h->vt = d->vtable;
  vdla_config c;
  vdla_config_default(&c);
  if (hw) c = *hw;
  tvm_plugin_attr_value v[16];
  const char *names[] = {"batch", "block_in", "block_out", "inp_kib", "wgt_kib",
                         "acc_kib", "out_kib", "uop_kib", "bus_bytes",
                         "dma_latency", "gemm_pipeline", "clock_mhz", "dram_mib"};
  int64_t vals[] = {c.batch, c.block_in, c.block_out, c.inp_kib, c.wgt_kib,
                    c.acc_kib, c.out_kib, c.uop_kib, c.bus_bytes,
                    c.dma_latency, c.gemm_pipeline, 0, 64};
  uint32_t n = 0;
  for (int i = 0; i < 13; i++, n++) {
    memset(&v[n], 0, sizeof v[n]);
    v[n].struct_size = sizeof v[n];
    v[n].name = names[i];
    v[n].type = i == 11 ? TVM_PLUGIN_ATTR_FLOAT : TVM_PLUGIN_ATTR_INT;
    v[n].i = vals[i];
    v[n].f = c.clock_mhz;
  }
  int32_t rc = h->vt->target_create(v, n, &h->t);
  if (rc) return rc;
  const tvm_plugin_target_info *info = h->vt->target_info(h->t);
  tvm_lower_options_init(&h->lo);
  h->lo.vector_bits = (int)info->vector_bits;
  h->lo.num_queues = (int)info->num_queues;
  for (uint32_t i = 0; i < info->nscopes && i < 3; i++)
    h->scopes[i] = (tvm_scope_info){info->scopes[i].name,
                                    info->scopes[i].visibility,
                                    info->scopes[i].size_bytes,
                                    info->scopes[i].align,
                                    info->scopes[i].queue};
  h->lo.scopes = h->scopes;
  h->lo.nscopes = (int)info->nscopes;
  const tvm_plugin_lower_pass *passes;
  uint32_t np;
  if ((rc = h->vt->lower_passes(h->t, &passes, &np))) return rc;
  h->lo.extra_passes = passes;
  h->lo.nextra_passes = (int)np;
  h->lo.pass_target = h->t;
  if (getenv("VDLA_DUMP_IR")) {
    h->lo.dump_pass = getenv("VDLA_DUMP_IR");
    h->lo.dump = dump_ir;
  }
  return h->vt->device_open(h->t, &h->dev);
}

void vh_close(vh *h) {
  if (h->dev) h->vt->device_close(h->dev);
  if (h->t) h->vt->target_destroy(h->t);
  memset(h, 0, sizeof *h);
}

/* Deterministic data. */
static uint32_t rnd(uint64_t *x) {
  *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
  return (uint32_t)(*x >> 11);
}

/* Mutator hook: dependency tokens become empty statements. */
static tvm_stmt *drop_tokens(tvm_mutator *m, tvm_stmt *s) {
  const tvm_expr *e = s->kind == TVM_EVALUATE ? s->u.eval.value : NULL;
  if (e && e->kind == TVM_CALL && (e->u.call.op == TVM_INTRIN_DEP_PUSH ||
                                   e->u.call.op == TVM_INTRIN_DEP_POP))
    return tvm_seq(m->ctx, NULL, 0);
  return tvm_mutate_stmt_children(m, s);
}

/* The last launch's instructions, one a line: name and dependency flags
 * (pop/push previous/next module). */
static char *program_str(tvm_plugin_device *d) {
  uint32_t n;
  const uint64_t *w = vdla_device_last_program(d, &n);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  for (uint32_t i = 0; w && i < n; i++) {
    vdla_insn in;
    if (vdla_decode(w + 2 * i, &in)) continue;
    tvm_strbuf_printf(&b, "%s%s%s%s%s", vdla_insn_name(&in),
                      in.pop_prev ? " pop_prev" : "", in.pop_next ? " pop_next" : "",
                      in.push_prev ? " push_prev" : "",
                      in.push_next ? " push_next" : "");
    if (in.op == VDLA_OP_LOAD || in.op == VDLA_OP_STORE)
      tvm_strbuf_printf(&b, " sram %u y %u x %u", in.sram_base, in.y_size,
                        in.x_size);
    if (in.op == VDLA_OP_GEMM || in.op == VDLA_OP_ALU)
      tvm_strbuf_printf(&b, "%s uops %u-%u x %u x %u", in.reset ? " reset" : "",
                        in.uop_bgn, in.uop_end, in.extent_out, in.extent_in);
    tvm_strbuf_printf(&b, "\n");
  }
  char *r = b.data ? strdup(b.data) : NULL;
  tvm_strbuf_free(&b);
  return r;
}

/* Schedules with the strategy named op, lowers, codegens, runs; bufs[i]
 * of bytes[i] are the arguments (the last one the int8 output). */
static tvm_status compile_run(vh *h, tvm_ctx *c, const char *op,
                              tvm_tensor **args, int nargs, void **bufs,
                              const uint64_t *bytes, vh_run *r) {
  const tvm_plugin_target_info *info = h->vt->target_info(h->t);
  const tvm_plugin_strategy *sg = NULL;
  for (uint32_t i = 0; i < info->nstrategies; i++)
    if (!strcmp(info->strategies[i].op, op)) sg = &info->strategies[i];
  if (!sg) return tvm_diag_set(TVM_ERR_NOT_FOUND, "no strategy %s", op);
  tvm_schedule *s = NULL;
  tvm_config *cfg = tvm_config_create();
  tvm_module m = {c, NULL, 0};
  tvm_plugin_blob blob;
  memset(&blob, 0, sizeof blob);
  tvm_plugin_module *pm = NULL;
  tvm_arena *a = tvm_arena_create();
  tvm_host_program *hp = NULL;
  void *dbuf[8] = {0};
  tvm_status st = cfg && a ? TVM_OK : TVM_ERR_NOMEM;
  if (!st) st = tvm_config_preset(cfg, "n_vt", r->nvt > 1 ? 1 : 0);
  if (!st && (r->force[0] || r->config_index > 0)) { /* record the space */
    tvm_schedule *s0 = NULL;
    st = tvm_schedule_create(c, &args[nargs - 1], 1, &s0);
    if (!st) st = sg->schedule_call(h->t, NULL, s0, &args[nargs - 1], 1, cfg);
    tvm_schedule_free(s0);
    for (int f = 0; !st && f < 4 && r->force[f]; f++) {
      const tvm_knob *k = NULL;
      for (int i = 0; i < tvm_config_nknobs(cfg); i++)
        if (!strcmp(tvm_config_knob(cfg, i)->name, r->force[f]))
          k = tvm_config_knob(cfg, i);
      int idx = -1;
      for (int j = 0; k && k->kind == TVM_KNOB_SPLIT && j < k->nchoices; j++)
        if (k->choices[j * k->nparts + k->nparts - 1] == r->force_inner[f])
          idx = j;
      st = idx < 0 ? tvm_diag_set(TVM_ERR_INVALID, "knob %s has no split "
                                  "with inner %lld", r->force[f],
                                  (long long)r->force_inner[f])
                   : tvm_config_set(cfg, r->force[f], idx);
    }
    r->space = tvm_config_space_size(cfg);
    if (!st && r->config_index > 0)
      st = tvm_config_set_index(cfg, (uint64_t)(r->config_index - 1));
  }
  if (!st) st = tvm_schedule_create(c, &args[nargs - 1], 1, &s);
  if (!st) st = sg->schedule_call(h->t, NULL, s, &args[nargs - 1], 1, cfg);
  if (!st && tvm_config_rejected(cfg) && !r->ignore_reject) {
    r->rejected = 1;
    st = tvm_diag_set(TVM_ERR_INVALID, "knobs rejected: %s",
                      tvm_config_rejected(cfg));
  }
  if (!st) {
    char *cs = tvm_config_str(cfg);
    snprintf(r->config, sizeof r->config, "%s", cs ? cs : "");
    tvm_free(cs);
  }
  if (!st) st = tvm_lower(s, args, nargs, op, &h->lo, &m);
  tvm_func *host = NULL;
  for (int i = 0; !st && i < m.nfuncs; i++)
    if (m.funcs[i]->kind == TVM_FUNC_HOST) host = m.funcs[i];
  if (!st && !host) st = tvm_diag_set(TVM_ERR_INTERNAL, "no host function");
  if (!st) st = tvm_host_program_build(host, &m, a, &hp);
  for (int i = 0; !st && r->drop_tokens && i < m.nfuncs; i++) {
    tvm_mutator mu = {c, NULL, drop_tokens, NULL};
    tvm_func *f = tvm_ctx_alloc(c, sizeof *f);
    if (!f) st = TVM_ERR_NOMEM;
    else {
      *f = *m.funcs[i];
      f->body = tvm_mutate_stmt(&mu, f->body);
      m.funcs[i] = f;
    }
  }
  if (!st) st = h->vt->codegen(h->t, &m, &blob);
  if (!st) st = h->vt->module_load(h->dev, &blob, &pm);
  if (!st && r->keep_stream && pm) {
    vdla_kernel *ks;
    uint32_t nk;
    if (vdla_parse(&blob, &ks, &nk) == TVM_OK) {
      r->stream = nk ? vdla_kernel_str(&ks[0]) : NULL;
      vdla_kernels_free(ks, nk);
    }
  }
  for (int i = 0; !st && i < nargs; i++)
    st = h->vt->mem_alloc(h->dev, 0, bytes[i], 64, &dbuf[i]);
  for (int i = 0; !st && i < nargs; i++)
    st = h->vt->copy(h->dev, dbuf[i], 0, bufs[i], 0, bytes[i],
                     TVM_COPY_HOST_TO_DEVICE);
  if (!st) {
    vdla_device_set_mode(h->dev, r->mode, r->seed);
    vdla_device_reset_stats(h->dev);
  }
  vdla_uop_stats u0 = {0, 0, 0};
  for (uint32_t k = 0; !st && k < hp->nops; k++) {
    const tvm_host_op *o = &hp->ops[k];
    tvm_plugin_func *f = NULL;
    tvm_plugin_arg av[16];
    if (o->nargs > 16) st = tvm_diag_set(TVM_ERR_INTERNAL, "too many args");
    for (uint32_t i = 0; !st && i < o->nargs; i++) {
      const tvm_host_arg *ha = &hp->args[o->first_arg + i];
      if (ha->kind != TVM_HOST_ARG_PARAM || ha->index >= (uint32_t)nargs)
        st = tvm_diag_set(TVM_ERR_INTERNAL, "a launch argument that is not a "
                          "parameter");
      else
        av[i] = (tvm_plugin_arg){TVM_ARG_PTR, 0, {.ptr = dbuf[ha->index]}};
    }
    if (!st) st = h->vt->func_get(pm, hp->kernels[o->kernel], &f);
    if (!st) st = h->vt->launch(h->dev, f, av, o->nargs, o->grid, o->block);
  }
  if (!st) vdla_device_stats(h->dev, &r->st);
  if (!st && r->keep_stream) r->program = program_str(h->dev);
  (void)u0;
  if (!st)
    st = h->vt->copy(h->dev, bufs[nargs - 1], 0, dbuf[nargs - 1], 0,
                     bytes[nargs - 1], TVM_COPY_DEVICE_TO_HOST);
  for (int i = 0; i < nargs; i++)
    if (dbuf[i]) h->vt->mem_free(h->dev, 0, dbuf[i]);
  if (pm) h->vt->module_unload(pm);
  if (blob.data) {
    for (uint32_t i = 0; i < blob.nkernels; i++) free((void *)blob.kernels[i].name);
    free(blob.kernels);
    free(blob.data);
  }
  if (a) tvm_arena_destroy(a);
  tvm_schedule_free(s);
  tvm_config_free(cfg);
  return st;
}

tvm_status vh_conv2d(vh *h, const vdla_conv_shape *s, vh_run *r) {
  const vdla_config *hw = &h->t->cfg;
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *args[3];
  tvm_status st = c ? vdla_conv2d_te(c, hw, s, args) : TVM_ERR_NOMEM;
  int64_t OH = vdla_conv_out(s, s->h), OW = vdla_conv_out(s, s->w);
  uint64_t nb[3] = {(uint64_t)(s->n * s->ic * s->h * s->w),
                    (uint64_t)(s->oc * s->ic * s->k * s->k),
                    (uint64_t)(s->n * s->oc * OH * OW)};
  int8_t *d = malloc(nb[0]), *k = malloc(nb[1]), *o = calloc(1, nb[2]),
         *ref = malloc(nb[2]);
  if (!st && (!d || !k || !o || !ref)) st = TVM_ERR_NOMEM;
  if (!st) {
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)(s->ic * 131 + s->h);
    for (uint64_t i = 0; i < nb[0]; i++) d[i] = (int8_t)(rnd(&x) % 256 - 128);
    for (uint64_t i = 0; i < nb[1]; i++) k[i] = (int8_t)(rnd(&x) % 256 - 128);
    vdla_conv2d_ref(hw, s, d, k, ref);
    void *bufs[3] = {d, k, o};
    st = compile_run(h, c, "vdla_conv2d", args, 3, bufs, nb, r);
  }
  if (!st) {
    r->elems = (int64_t)nb[2];
    r->mismatches = 0;
    for (uint64_t i = 0; i < nb[2]; i++) r->mismatches += o[i] != ref[i];
  }
  free(d), free(k), free(o), free(ref);
  tvm_ctx_destroy(c);
  return st;
}

tvm_status vh_dense(vh *h, const vdla_dense_shape *s, vh_run *r) {
  const vdla_config *hw = &h->t->cfg;
  tvm_ctx *c = tvm_ctx_create();
  tvm_tensor *args[4];
  tvm_status st = c ? vdla_dense_te(c, hw, s, args) : TVM_ERR_NOMEM;
  uint64_t nb[4] = {(uint64_t)(s->n * s->ic), (uint64_t)(s->oc * s->ic),
                    (uint64_t)(s->n * s->oc) * 4, (uint64_t)(s->n * s->oc)};
  int8_t *d = malloc(nb[0]), *w = malloc(nb[1]), *o = calloc(1, nb[3]),
         *ref = malloc(nb[3]);
  int32_t *b = malloc(nb[2]);
  if (!st && (!d || !w || !o || !ref || !b)) st = TVM_ERR_NOMEM;
  if (!st) {
    uint64_t x = 0x1234567ull ^ (uint64_t)s->ic;
    for (uint64_t i = 0; i < nb[0]; i++) d[i] = (int8_t)(rnd(&x) % 256 - 128);
    for (uint64_t i = 0; i < nb[1]; i++) w[i] = (int8_t)(rnd(&x) % 256 - 128);
    for (uint64_t i = 0; i < nb[2] / 4; i++) b[i] = (int32_t)(rnd(&x) % 20001) - 10000;
    vdla_dense_ref(hw, s, d, w, b, ref);
    void *bufs[4] = {d, w, b, o};
    st = compile_run(h, c, "vdla_dense", args, 4, bufs, nb, r);
  }
  if (!st) {
    r->elems = (int64_t)nb[3];
    r->mismatches = 0;
    for (uint64_t i = 0; i < nb[3]; i++) r->mismatches += o[i] != ref[i];
  }
  free(d), free(w), free(o), free(ref), free(b);
  tvm_ctx_destroy(c);
  return st;
}
