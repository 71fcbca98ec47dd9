/*
 * core/lower/launch.c - the launch intrinsic (TVM_INTRIN_LAUNCH): its
 * constructor and verifier, and the integer evaluator the host side uses
 * to compute launch geometry (tvm_lower_eval_int).
 *
 * A launch is `launch("kernel", gx, gy, gz, bx, by, bz, shared, args...)`
 * (TVM_LAUNCH_NFIXED fixed operands, then the kernel's arguments); the
 * printer shows it as
 *   launch("kernel", grid=(gx, gy, gz), block=(bx, by, bz), shared=n,
 *          args=(...)).
 */
#include <string.h>

#include "tvm/lower.h"

/* See tvm/lower.h. */
tvm_expr *tvm_launch(tvm_ctx *c, const char *kernel, tvm_expr *const grid[3],
                     tvm_expr *const block[3], tvm_expr *shared_bytes,
                     tvm_expr *const *args, int nargs) {
  if (!c || !kernel || nargs < 0 || (nargs > 0 && !args)) return NULL;
  tvm_expr **v = tvm_ctx_alloc(c, sizeof(tvm_expr *) *
                                      (size_t)(TVM_LAUNCH_NFIXED + nargs));
  if (!v) return NULL;
  v[0] = tvm_str(c, kernel);
  for (int i = 0; i < 3; i++) {
    v[1 + i] = grid && grid[i] ? grid[i] : tvm_int(c, 1);
    v[4 + i] = block && block[i] ? block[i] : tvm_int(c, 1);
  }
  v[7] = shared_bytes ? shared_bytes : tvm_int(c, 0);
  for (int i = 0; i < nargs; i++) v[TVM_LAUNCH_NFIXED + i] = args[i];
  return tvm_call(c, TVM_I32, TVM_INTRIN_LAUNCH, v, TVM_LAUNCH_NFIXED + nargs);
}

/* The function of m called name, or NULL. */
static const tvm_func *find_func(const tvm_module *m, const char *name) {
  for (int i = 0; m && i < m->nfuncs; i++)
    if (m->funcs[i] && m->funcs[i]->name && !strcmp(m->funcs[i]->name, name))
      return m->funcs[i];
  return NULL;
}

/* See tvm/lower.h. */
tvm_status tvm_launch_verify(const tvm_expr *e, const tvm_module *m) {
  static const char *const what[8] = {"kernel name", "grid.x", "grid.y",
                                      "grid.z", "block.x", "block.y",
                                      "block.z", "shared_bytes"};
  if (!e || e->kind != TVM_CALL || e->u.call.op != TVM_INTRIN_LAUNCH)
    return tvm_diag_set(TVM_ERR_INVALID, "verify: not a launch call");
  if (e->u.call.nargs < TVM_LAUNCH_NFIXED || e->u.call.args[0]->kind != TVM_STR)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "verify: launch has %d operands; it needs a kernel "
                        "name string, 3 grid and 3 block extents and the "
                        "shared bytes before its arguments",
                        e->u.call.nargs);
  const char *name = e->u.call.args[0]->u.str;
  for (int i = 1; i < TVM_LAUNCH_NFIXED; i++) {
    const tvm_expr *x = e->u.call.args[i];
    if (!x || !tvm_dtype_is_int(x->dtype) || x->dtype.lanes != 1)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "verify: launch of %s: %s is not a scalar integer",
                          name, what[i]);
  }
  const tvm_func *k = find_func(m, name);
  if (!k)
    return tvm_diag_set(TVM_ERR_NOT_FOUND,
                        "verify: launch of %s: the module has no such "
                        "function",
                        name);
  if (k->kind != TVM_FUNC_DEVICE)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "verify: launch of %s: it is a host function, only "
                        "device functions are launched",
                        name);
  int n = e->u.call.nargs - TVM_LAUNCH_NFIXED;
  if (n != k->nparams)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "verify: launch of %s passes %d arguments, the kernel "
                        "takes %d",
                        name, n, k->nparams);
  for (int i = 0; i < n; i++) {
    const tvm_expr *a = e->u.call.args[TVM_LAUNCH_NFIXED + i];
    int want_handle = tvm_dtype_is_handle(k->params[i]->dtype);
    if (!a || tvm_dtype_is_handle(a->dtype) != want_handle)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "verify: launch of %s: argument %d must be %s "
                          "(parameter %s)",
                          name, i, want_handle ? "a buffer handle" : "a scalar",
                          k->params[i]->u.var.name);
  }
  return TVM_OK;
}

/* State of the module walk. */
typedef struct vwalk {
  const tvm_module *m;
  tvm_status st;
} vwalk;

/* Visitor hook: verifies each launch (first failure kept). */
static int verify_hook(tvm_visitor *v, const tvm_expr *e) {
  vwalk *w = v->data;
  if (w->st == TVM_OK && e->kind == TVM_CALL &&
      e->u.call.op == TVM_INTRIN_LAUNCH)
    w->st = tvm_launch_verify(e, w->m);
  return w->st != TVM_OK;
}

/* See tvm/lower.h. */
tvm_status tvm_func_verify_launches(const tvm_func *f, const tvm_module *m) {
  vwalk w = {m, TVM_OK};
  tvm_visitor v = {verify_hook, NULL, &w};
  if (f && f->kind == TVM_FUNC_HOST) tvm_visit_stmt(&v, f->body);
  return w.st;
}

/* See tvm/lower.h. */
tvm_status tvm_module_verify_launches(const tvm_module *m) {
  tvm_status st = TVM_OK;
  for (int i = 0; m && i < m->nfuncs && st == TVM_OK; i++)
    st = tvm_func_verify_launches(m->funcs[i], m);
  return st;
}

/* Floor division and modulo of integers (b != 0). */
static int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static int64_t fmodi(int64_t a, int64_t b) { return a - fdiv(a, b) * b; }

/* Wraps v to the width and signedness of integer type t. */
static int64_t wrap(tvm_dtype t, int64_t v) {
  if (tvm_dtype_is_bool(t) || t.bits == 1) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (1ull << t.bits) - 1, u = (uint64_t)v & mask;
  if (t.code == kDLUInt) return (int64_t)u;
  if (u & (1ull << (t.bits - 1))) u |= ~mask;
  return (int64_t)u;
}

/* See tvm/lower.h. */
int tvm_lower_eval_int(const tvm_expr *e, const tvm_ptrmap *env,
                       int64_t *out) {
  int64_t a, b, c;
  void *p;
  if (!e || !out || e->dtype.lanes != 1) return 0;
  switch (e->kind) {
  case TVM_INT:
    *out = e->u.ival;
    return 1;
  case TVM_VAR:
    if (!env || !tvm_ptrmap_get(env, e, &p) || !p) return 0;
    *out = *(const int64_t *)p;
    return 1;
  case TVM_CAST:
    if (!tvm_dtype_is_int(e->dtype) && !tvm_dtype_is_bool(e->dtype)) return 0;
    if (!tvm_lower_eval_int(e->u.un.a, env, &a)) return 0;
    *out = wrap(e->dtype, a);
    return 1;
  case TVM_NOT:
    if (!tvm_lower_eval_int(e->u.un.a, env, &a)) return 0;
    *out = !a;
    return 1;
  case TVM_SELECT:
    if (!tvm_lower_eval_int(e->u.sel.cond, env, &c) ||
        !tvm_lower_eval_int(e->u.sel.t, env, &a) ||
        !tvm_lower_eval_int(e->u.sel.f, env, &b))
      return 0;
    *out = c ? a : b;
    return 1;
  case TVM_LET: {
    tvm_ptrmap m2 = {0};
    int ok = tvm_lower_eval_int(e->u.let.value, env, &a);
    /* a private copy of env with the let variable bound */
    if (ok && env)
      for (size_t i = 0; ok && i < env->cap; i++)
        if (env->keys && env->keys[i] &&
            tvm_ptrmap_put(&m2, env->keys[i], env->vals[i]) != TVM_OK)
          ok = 0;
    if (ok && tvm_ptrmap_put(&m2, e->u.let.var, &a) != TVM_OK) ok = 0;
    ok = ok && tvm_lower_eval_int(e->u.let.body, &m2, out);
    tvm_ptrmap_free(&m2);
    return ok;
  }
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR:
    if (!tvm_lower_eval_int(e->u.bin.a, env, &a) ||
        !tvm_lower_eval_int(e->u.bin.b, env, &b))
      return 0;
    break;
  default:
    return 0; /* loads, calls, floats, vectors: not evaluable here */
  }
  switch (e->kind) {
  case TVM_ADD: c = (int64_t)((uint64_t)a + (uint64_t)b); break;
  case TVM_SUB: c = (int64_t)((uint64_t)a - (uint64_t)b); break;
  case TVM_MUL: c = (int64_t)((uint64_t)a * (uint64_t)b); break;
  case TVM_DIV:
  case TVM_MOD:
    if (b == 0 || (a == INT64_MIN && b == -1)) return 0;
    c = e->kind == TVM_DIV ? a / b : a % b;
    break;
  case TVM_FLOORDIV:
  case TVM_FLOORMOD:
    if (b == 0 || (a == INT64_MIN && b == -1)) return 0;
    c = e->kind == TVM_FLOORDIV ? fdiv(a, b) : fmodi(a, b);
    break;
  case TVM_MIN: c = a < b ? a : b; break;
  case TVM_MAX: c = a > b ? a : b; break;
  case TVM_EQ: c = a == b; break;
  case TVM_NE: c = a != b; break;
  case TVM_LT: c = a < b; break;
  case TVM_LE: c = a <= b; break;
  case TVM_GT: c = a > b; break;
  case TVM_GE: c = a >= b; break;
  case TVM_AND: c = a && b; break;
  default: c = a || b; break; /* TVM_OR */
  }
  if (!tvm_dtype_is_int(e->dtype) && !tvm_dtype_is_bool(e->dtype)) return 0;
  *out = wrap(e->dtype, c);
  return 1;
}
