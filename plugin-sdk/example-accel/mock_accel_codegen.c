/*
 * mock_accel_codegen.c - device functions -> the mock accelerator's
 * command stream.
 *
 * The core hands codegen the device functions only (host code runs in
 * the runtime, see HOST_DEVICE.md); a host function handed anyway (by a
 * tool that passes a whole lowered module) is skipped, not compiled.  A mock_accel kernel is the whole
 * loop nest of a fused group: the command processor has no loops of its
 * own, so codegen evaluates the nest at compile time with the core's
 * integer evaluator (tvm_lower_eval_int): loops unrolled, lets bound, ifs
 * decided, every index a constant.  What remains are commands:
 *   copies between buffers (stores of loads), fills (stores of
 *   constants), mock_gemm / mock_gemm_reset calls, dependency tokens.
 * Each command runs on a queue: the coproc_scope around it (set by the
 * core for stages filling a queue's scope), else the compute queue.
 * Anything else (arithmetic on loaded values, scalar kernel parameters,
 * other dtypes than float32) is refused with a message naming it: such
 * groups are for the CPU.
 *
 * Blob (TVM_BLOB_CUSTOM, host byte order):
 *   "MOCKACC1", u32 nkernels, then per kernel: u32 name length, name,
 *   u32 nparams, u32 nbufs, u32 ncmds, u64 buf_elems[nbufs],
 *   mock_cmd cmds[ncmds].
 */
#include <stdlib.h>
#include <string.h>

#include "mock_accel.h"
#include "tvm/plugin_sdk.h"

#define MOCK_MAX_CMDS (1u << 22)

/* State of one kernel's compilation. */
typedef struct cg {
  const tvm_func *f;
  tvm_ptrmap env;   /* loop/let var -> int64_t* */
  tvm_ptrmap slots; /* handle var -> slot + 1 */
  uint64_t *elems;  /* per slot */
  uint32_t nslots, cslots;
  mock_cmd *cmds;
  uint32_t ncmds, ccmds;
  int32_t queue;    /* current coproc_scope, -1 = none */
  int32_t err;
} cg;

/* Records the first failure (reported through the host). */
static int32_t fail(cg *g, int32_t st, const char *what, const tvm_expr *e) {
  if (g->err) return g->err;
  char *s = e ? tvm_expr_str(e) : NULL;
  g->err = mock_fail(st, "mock_accel codegen of %s: %s%s%s%s", g->f->name,
                     what, s ? " `" : "", s ? s : "", s ? "`" : "");
  tvm_free(s);
  return g->err;
}

/* e as a constant (loop variables bound), or a failure naming it. */
static int eval(cg *g, const tvm_expr *e, int64_t *v) {
  if (tvm_lower_eval_int(e, &g->env, v)) return 1;
  fail(g, TVM_ERR_UNSUPPORTED,
       "an index or bound the command processor cannot compute at compile "
       "time (kernels must have constant shapes):", e);
  return 0;
}

/* Binds var to v. */
static int bind(cg *g, const tvm_expr *var, int64_t v) {
  void *old = NULL;
  if (tvm_ptrmap_get(&g->env, var, &old) && old) {
    *(int64_t *)old = v;
    return 1;
  }
  int64_t *p = malloc(sizeof *p);
  if (!p || tvm_ptrmap_put(&g->env, var, p) != TVM_OK) {
    free(p);
    fail(g, TVM_ERR_NOMEM, "out of memory", NULL);
    return 0;
  }
  *p = v;
  return 1;
}

/* The slot of buffer handle b, or -1 (failure recorded). */
static int64_t slot_of(cg *g, const tvm_expr *b) {
  void *v = NULL;
  if (b && b->kind == TVM_VAR && tvm_ptrmap_get(&g->slots, b, &v))
    return (int64_t)(uintptr_t)v - 1;
  fail(g, TVM_ERR_UNSUPPORTED, "a buffer that is neither a parameter nor "
       "allocated in the kernel:", b);
  return -1;
}

/* Adds a slot for handle b with n elements. */
static int add_slot(cg *g, const tvm_expr *b, uint64_t n) {
  if (g->nslots == g->cslots) {
    uint32_t nc = g->cslots ? g->cslots * 2 : 8;
    uint64_t *p = realloc(g->elems, nc * sizeof *p);
    if (!p) return fail(g, TVM_ERR_NOMEM, "out of memory", NULL), 0;
    g->elems = p;
    g->cslots = nc;
  }
  g->elems[g->nslots] = n;
  if (tvm_ptrmap_put(&g->slots, b, (void *)(uintptr_t)(g->nslots + 1)) != TVM_OK)
    return fail(g, TVM_ERR_NOMEM, "out of memory", NULL), 0;
  g->nslots++;
  return 1;
}

/* Appends command c. */
static int add_cmd(cg *g, mock_cmd c) {
  if (g->ncmds >= MOCK_MAX_CMDS)
    return fail(g, TVM_ERR_UNSUPPORTED, "more than 4M commands after "
                "unrolling: tile the computation so that fewer groups run "
                "on the accelerator", NULL), 0;
  if (g->ncmds == g->ccmds) {
    uint32_t nc = g->ccmds ? g->ccmds * 2 : 256;
    mock_cmd *p = realloc(g->cmds, nc * sizeof *p);
    if (!p) return fail(g, TVM_ERR_NOMEM, "out of memory", NULL), 0;
    g->cmds = p;
    g->ccmds = nc;
  }
  g->cmds[g->ncmds++] = c;
  return 1;
}

/* A new command of op on the current queue (compute when none). */
static mock_cmd cmd(cg *g, uint32_t op) {
  mock_cmd c;
  memset(&c, 0, sizeof c);
  c.op = op;
  c.queue = g->queue >= 0 ? (uint32_t)g->queue : 1;
  return c;
}

/* Is e a float32 scalar? */
static int is_f32(const tvm_expr *e) {
  return e->dtype.code == TVM_F32.code && e->dtype.bits == 32 &&
         e->dtype.lanes == 1;
}

/* access_ptr(buf, "float32", offset, extent, rw) -> slot, offset. */
static int access(cg *g, const tvm_expr *p, uint32_t *slot, int64_t *off) {
  if (p->kind != TVM_CALL || p->u.call.op != TVM_INTRIN_ACCESS_PTR ||
      p->u.call.nargs < 3)
    return fail(g, TVM_ERR_UNSUPPORTED, "GEMM operand is not an access_ptr:",
                p), 0;
  int64_t s = slot_of(g, p->u.call.args[0]);
  if (s < 0 || !eval(g, p->u.call.args[2], off)) return 0;
  *slot = (uint32_t)s;
  return 1;
}

/* evaluate(...): the intrinsic's calls and dependency tokens. */
static int call(cg *g, const tvm_expr *e) {
  int64_t v[3];
  if (e->kind == TVM_CALL &&
      (e->u.call.op == TVM_INTRIN_DEP_PUSH || e->u.call.op == TVM_INTRIN_DEP_POP)) {
    if (e->u.call.nargs != 2 || !eval(g, e->u.call.args[0], &v[0]) ||
        !eval(g, e->u.call.args[1], &v[1]) || v[0] < 0 || v[0] > 1 ||
        v[1] < 0 || v[1] > 1 || v[0] == v[1])
      return fail(g, TVM_ERR_INVALID, "bad dependency token:", e), 0;
    int push = e->u.call.op == TVM_INTRIN_DEP_PUSH;
    mock_cmd c = cmd(g, push ? MOCK_PUSH : MOCK_POP);
    c.queue = (uint32_t)(push ? v[0] : v[1]); /* push on from, pop on to */
    c.imm = (double)(push ? v[1] : v[0]);
    return add_cmd(g, c);
  }
  if (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_EXTERN &&
      !strcmp(e->u.call.name, "mock_gemm") && e->u.call.nargs == 6) {
    mock_cmd c = cmd(g, MOCK_GEMM);
    for (int i = 0; i < 3; i++)
      if (!access(g, e->u.call.args[i], &c.buf[i], &c.off[i]) ||
          !eval(g, e->u.call.args[3 + i], &v[i]) || v[i] < 4)
        return fail(g, TVM_ERR_INVALID, "bad mock_gemm operands:", e), 0;
    for (int i = 0; i < 3; i++) c.ld[i] = (uint32_t)v[i];
    return add_cmd(g, c);
  }
  if (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_EXTERN &&
      !strcmp(e->u.call.name, "mock_gemm_reset") && e->u.call.nargs == 2) {
    mock_cmd c = cmd(g, MOCK_RESET);
    if (!access(g, e->u.call.args[0], &c.buf[0], &c.off[0]) ||
        !eval(g, e->u.call.args[1], &v[0]) || v[0] < 4)
      return fail(g, TVM_ERR_INVALID, "bad mock_gemm_reset operands:", e), 0;
    c.ld[0] = (uint32_t)v[0];
    return add_cmd(g, c);
  }
  return fail(g, TVM_ERR_UNSUPPORTED, "the command processor runs copies, "
              "mock_gemm and tokens only, not", e), 0;
}

/* Compiles statement s into commands. */
static int walk(cg *g, const tvm_stmt *s) {
  int64_t a, b;
  if (!s || g->err) return !g->err;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++)
      if (!walk(g, s->u.seq.stmts[i])) return 0;
    return 1;
  case TVM_FOR:
    if (!eval(g, s->u.for_.min, &a) || !eval(g, s->u.for_.extent, &b)) return 0;
    for (int64_t i = 0; i < b; i++)
      if (!bind(g, s->u.for_.var, a + i) || !walk(g, s->u.for_.body)) return 0;
    return 1;
  case TVM_LET_STMT:
    return eval(g, s->u.let.value, &a) && bind(g, s->u.let.var, a) &&
           walk(g, s->u.let.body);
  case TVM_IF:
    if (!eval(g, s->u.if_.cond, &a)) return 0;
    return walk(g, a ? s->u.if_.then_ : s->u.if_.else_);
  case TVM_ASSERT:
    if (!eval(g, s->u.assert_.cond, &a)) return 0;
    if (!a) return fail(g, TVM_ERR_INVALID, s->u.assert_.msg, NULL), 0;
    return walk(g, s->u.assert_.body);
  case TVM_ATTR:
    if (!strcmp(s->u.attr.key, TVM_ATTR_COPROC_SCOPE)) {
      int32_t saved = g->queue;
      if (!eval(g, s->u.attr.value, &a)) return 0;
      g->queue = (int32_t)a;
      int ok = walk(g, s->u.attr.body);
      g->queue = saved;
      return ok;
    }
    return walk(g, s->u.attr.body);
  case TVM_ALLOCATE:
    if (s->u.alloc.dtype.code != TVM_F32.code || s->u.alloc.dtype.bits != 32)
      return fail(g, TVM_ERR_UNSUPPORTED, "a buffer that is not float32:",
                  s->u.alloc.buffer), 0;
    if (!eval(g, s->u.alloc.extent, &a) || a < 0 ||
        !add_slot(g, s->u.alloc.buffer, (uint64_t)a))
      return 0;
    return walk(g, s->u.alloc.body);
  case TVM_STORE: {
    const tvm_expr *v = s->u.store.value;
    mock_cmd c = cmd(g, MOCK_COPY);
    int64_t d = slot_of(g, s->u.store.buffer);
    if (d < 0 || s->u.store.pred || !is_f32(v) ||
        !eval(g, s->u.store.index, &c.off[0]))
      return d >= 0 && !g->err
                 ? fail(g, TVM_ERR_UNSUPPORTED, "a store that is not a "
                        "float32 scalar:", v), 0
                 : 0;
    c.buf[0] = (uint32_t)d;
    if (v->kind == TVM_LOAD && !v->u.load.pred) {
      int64_t sl = slot_of(g, v->u.load.buffer);
      if (sl < 0 || !eval(g, v->u.load.index, &c.off[1])) return 0;
      c.buf[1] = (uint32_t)sl;
    } else if (v->kind == TVM_FLOAT || v->kind == TVM_INT) {
      c.op = MOCK_FILL;
      c.imm = v->kind == TVM_FLOAT ? v->u.fval : (double)v->u.ival;
    } else {
      return fail(g, TVM_ERR_UNSUPPORTED, "arithmetic on loaded values (the "
                  "device only moves data and multiplies 4x4 tiles):", v), 0;
    }
    return add_cmd(g, c);
  }
  case TVM_EVALUATE:
    return call(g, s->u.eval.value);
  default:
    return fail(g, TVM_ERR_UNSUPPORTED, "a statement the command processor "
                "does not run (a barrier or an unlowered statement)", NULL), 0;
  }
}

/* The blob grows in a tvm_strbuf (binary appends; oom is sticky). */
typedef tvm_strbuf wb;
static void put(wb *w, const void *p, uint64_t n) {
  tvm_strbuf_appendn(w, (const char *)p, (size_t)n);
}
static void put32(wb *w, uint32_t v) { put(w, &v, 4); }

/* Frees g's maps (values of env included). */
static void cg_free(cg *g) {
  for (size_t i = 0; i < g->env.cap; i++)
    if (g->env.keys && g->env.keys[i]) free(g->env.vals[i]);
  tvm_ptrmap_free(&g->env);
  tvm_ptrmap_free(&g->slots);
  free(g->elems);
  free(g->cmds);
}

/* Copies the heap blob into host memory and fills the kernel table. */
static int32_t finish(wb *w, const tvm_module *m, tvm_plugin_blob *out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  int32_t rc = tvm_sdk_blob_set_data(mock_host, out, TVM_BLOB_CUSTOM, w->data, w->len);
  if (rc == TVM_OK) rc = tvm_sdk_blob_kernels_of_module(mock_host, out, m);
  return rc;
}

/* See mock_accel.h and the file comment. */
int32_t mock_codegen(tvm_plugin_target *t, const tvm_module *m,
                     tvm_plugin_blob *out) {
  (void)t;
  wb w;
  tvm_strbuf_init(&w);
  int32_t rc = TVM_OK;
  /* the device functions only */
  tvm_module dev = {m->ctx, NULL, 0};
  dev.funcs = calloc((size_t)m->nfuncs + 1, sizeof(tvm_func *));
  if (!dev.funcs) return mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->kind == TVM_FUNC_DEVICE) dev.funcs[dev.nfuncs++] = m->funcs[i];
  m = &dev;
  put(&w, "MOCKACC1", 8);
  put32(&w, (uint32_t)m->nfuncs);
  for (int i = 0; i < m->nfuncs && !rc; i++) {
    const tvm_func *f = m->funcs[i];
    cg g;
    memset(&g, 0, sizeof g);
    g.f = f;
    g.queue = -1;
    for (int p = 0; !rc && p < f->nparams; p++) {
      if (!tvm_dtype_is_handle(f->params[p]->dtype))
        rc = fail(&g, TVM_ERR_UNSUPPORTED, "a scalar parameter (kernels take "
                  "buffers only):", f->params[p]);
      else if (!add_slot(&g, f->params[p], 0))
        rc = g.err;
    }
    if (!rc && !walk(&g, f->body)) rc = g.err ? g.err : TVM_ERR_INTERNAL;
    if (!rc) {
      uint32_t n = (uint32_t)strlen(f->name);
      put32(&w, n);
      put(&w, f->name, n);
      put32(&w, (uint32_t)f->nparams);
      put32(&w, g.nslots);
      put32(&w, g.ncmds);
      put(&w, g.elems, sizeof(uint64_t) * g.nslots);
      put(&w, g.cmds, sizeof(mock_cmd) * g.ncmds);
    }
    cg_free(&g);
  }
  if (!rc && w.oom) rc = mock_fail(TVM_ERR_NOMEM, "mock_accel: out of memory");
  if (!rc) rc = finish(&w, m, out);
  tvm_strbuf_free(&w);
  free(dev.funcs);
  return rc;
}
