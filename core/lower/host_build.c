/*
 * core/lower/host_build.c - tvm_host_program_build: a host function of a
 * device target, evaluated once at compile time into the flat host
 * program the runtime runs (tvm/host_program.h).
 *
 * The host function holds only what split_host_device left there: loops,
 * lets, ifs, asserts and attributes around launches, and global
 * allocations (buffers passed between kernels).  The builder walks it
 * with an environment of integer values: loops are unrolled (their
 * bounds must evaluate; at most HOST_MAX_LAUNCHES launches in all), lets
 * bound, ifs and asserts decided, allocations numbered as device
 * temporaries (constant sizes), and each launch's geometry and arguments
 * evaluated.  Whatever cannot be evaluated is a compile error naming the
 * kernel and the expression: the schedule must give that kernel constant
 * shapes (or the target must compile its host code itself).
 */
#include <string.h>

#include "tvm/host_program.h"
#include "tvm/lower.h"

#define HOST_MAX_LAUNCHES 65536
#define HOST_MAX_ITERATIONS (1 << 24) /* host loop iterations in all */

/* Growing arrays of the program being built (heap, copied to the arena at
 * the end). */
typedef struct hb {
  const tvm_func *host;
  const tvm_module *m;
  tvm_ptrmap env;     /* var -> int64_t* (values below) */
  tvm_ptrmap handles; /* handle var -> (kind << 32 | index) + 1 */
  tvm_ptrvec kernels; /* const char* */
  uint64_t *temps;
  size_t ntemps, ctemps;
  tvm_host_op *ops;
  size_t nops, cops;
  tvm_host_arg *args;
  size_t nargs, cargs;
  int64_t iterations;
  tvm_status st;
} hb;

/* Grows array *p (elements of size sz) to hold n + 1; 0 on OOM. */
static int grow(void **p, size_t *cap, size_t n, size_t sz) {
  if (n < *cap) return 1;
  size_t nc = *cap ? *cap * 2 : 16;
  void *q = tvm_realloc(*p, nc * sz);
  if (!q) return 0;
  *p = q;
  *cap = nc;
  return 1;
}

/* Records a failure (the first one wins). */
static int fail_nomem(hb *b) {
  if (b->st == TVM_OK) b->st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  return 0;
}

/* Binds var to value v (a heap slot per variable, replaced on rebind). */
static int bind(hb *b, const tvm_expr *var, int64_t v) {
  void *old = NULL;
  if (tvm_ptrmap_get(&b->env, var, &old) && old) {
    *(int64_t *)old = v;
    return 1;
  }
  int64_t *slot = tvm_malloc(sizeof(int64_t));
  if (!slot) return fail_nomem(b);
  *slot = v;
  if (tvm_ptrmap_put(&b->env, var, slot) != TVM_OK) {
    tvm_free(slot);
    return fail_nomem(b);
  }
  return 1;
}

/* The error for expression e (in `what` of kernel/statement `where`). */
static int fail_eval(hb *b, const char *where, const char *what,
                     const tvm_expr *e) {
  if (b->st != TVM_OK) return 0;
  char *s = tvm_expr_str(e);
  b->st = tvm_diag_set(
      TVM_ERR_UNSUPPORTED,
      "host code of %s: %s %s `%s` cannot be evaluated at compile time (it "
      "depends on a run-time value such as a symbolic shape, a float "
      "scalar or a load); the runtime executes host code as a fixed list "
      "of launches: give the kernel constant shapes",
      b->host->name, where, what, s ? s : "?");
  tvm_free(s);
  return 0;
}

/* Evaluates e or fails naming it. */
static int eval(hb *b, const tvm_expr *e, const char *where, const char *what,
                int64_t *out) {
  if (tvm_lower_eval_int(e, &b->env, out)) return 1;
  return fail_eval(b, where, what, e);
}

/* Index of kernel name in the program's kernel table (added). */
static int kernel_index(hb *b, const char *name, uint32_t *out) {
  for (size_t i = 0; i < b->kernels.len; i++)
    if (!strcmp(b->kernels.data[i], name)) {
      *out = (uint32_t)i;
      return 1;
    }
  if (tvm_ptrvec_push(&b->kernels, (void *)name) != TVM_OK)
    return fail_nomem(b);
  *out = (uint32_t)(b->kernels.len - 1);
  return 1;
}

/* Appends the launch e (a TVM_INTRIN_LAUNCH call). */
static int add_launch(hb *b, const tvm_expr *e) {
  const char *name = e->u.call.args[0]->u.str;
  tvm_host_op op;
  int64_t v;
  memset(&op, 0, sizeof op);
  op.kind = TVM_HOST_OP_LAUNCH;
  if (b->nops >= HOST_MAX_LAUNCHES) {
    b->st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                         "host code of %s: more than %d launches (of %s) "
                         "after unrolling its host loops; bind those loops "
                         "to blockIdx instead",
                         b->host->name, HOST_MAX_LAUNCHES, name);
    return 0;
  }
  for (int i = 0; i < 7; i++) {
    static const char *const what[7] = {"grid.x", "grid.y", "grid.z",
                                        "block.x", "block.y", "block.z",
                                        "shared bytes"};
    if (!eval(b, e->u.call.args[1 + i], name, what[i], &v)) return 0;
    if (v < (i < 6 ? 1 : 0) || v > (i < 6 ? (int64_t)UINT32_MAX : INT64_MAX)) {
      b->st = tvm_diag_set(TVM_ERR_INVALID,
                           "host code of %s: launch of %s has %s = %lld",
                           b->host->name, name, what[i], (long long)v);
      return 0;
    }
    if (i < 3) op.grid[i] = (uint32_t)v;
    else if (i < 6) op.block[i - 3] = (uint32_t)v;
    else op.shared_bytes = (uint64_t)v;
  }
  if (!kernel_index(b, name, &op.kernel)) return 0;
  op.first_arg = (uint32_t)b->nargs;
  op.nargs = (uint32_t)(e->u.call.nargs - TVM_LAUNCH_NFIXED);
  for (uint32_t i = 0; i < op.nargs; i++) {
    const tvm_expr *a = e->u.call.args[TVM_LAUNCH_NFIXED + i];
    tvm_host_arg h;
    void *hv = NULL;
    memset(&h, 0, sizeof h);
    if (tvm_dtype_is_handle(a->dtype)) {
      if (a->kind != TVM_VAR || !tvm_ptrmap_get(&b->handles, a, &hv)) {
        b->st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                             "host code of %s: argument %u of %s is a buffer "
                             "the host program does not know (not a "
                             "parameter or host allocation)",
                             b->host->name, i, name);
        return 0;
      }
      uint64_t code = (uint64_t)(uintptr_t)hv - 1;
      h.kind = (uint32_t)(code >> 32);
      h.index = (uint32_t)code;
    } else if (tvm_dtype_is_float(a->dtype)) {
      if (a->kind != TVM_FLOAT) return fail_eval(b, name, "float argument", a);
      h.kind = TVM_HOST_ARG_FLOAT;
      h.f = a->u.fval;
    } else {
      if (!eval(b, a, name, "argument", &h.i)) return 0;
      h.kind = TVM_HOST_ARG_INT;
    }
    if (!grow((void **)&b->args, &b->cargs, b->nargs, sizeof h))
      return fail_nomem(b);
    b->args[b->nargs++] = h;
  }
  if (!grow((void **)&b->ops, &b->cops, b->nops, sizeof op))
    return fail_nomem(b);
  b->ops[b->nops++] = op;
  return 1;
}

/* Walks host statement s (see the file comment). */
static int walk(hb *b, const tvm_stmt *s) {
  int64_t lo, n, v;
  if (!s) return 1;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++)
      if (!walk(b, s->u.seq.stmts[i])) return 0;
    return 1;
  case TVM_FOR:
    if (!eval(b, s->u.for_.min, "loop", "start", &lo) ||
        !eval(b, s->u.for_.extent, "loop", "trip count", &n))
      return 0;
    if (n > HOST_MAX_ITERATIONS - b->iterations) {
      b->st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                           "host code of %s: its host loops run more than "
                           "%d iterations in all; bind those loops to "
                           "blockIdx so that they run on the device",
                           b->host->name, HOST_MAX_ITERATIONS);
      return 0;
    }
    b->iterations += n > 0 ? n : 0;
    for (int64_t i = 0; i < n; i++)
      if (!bind(b, s->u.for_.var, lo + i) || !walk(b, s->u.for_.body))
        return 0;
    return 1;
  case TVM_LET_STMT:
    if (!eval(b, s->u.let.value, "let", s->u.let.var->u.var.name, &v) ||
        !bind(b, s->u.let.var, v))
      return 0;
    return walk(b, s->u.let.body);
  case TVM_IF:
    if (!eval(b, s->u.if_.cond, "if", "condition", &v)) return 0;
    return walk(b, v ? s->u.if_.then_ : s->u.if_.else_);
  case TVM_ASSERT:
    if (!eval(b, s->u.assert_.cond, "assert", "condition", &v)) return 0;
    if (!v) {
      b->st = tvm_diag_set(TVM_ERR_INVALID, "host code of %s: assertion "
                           "fails at compile time: %s",
                           b->host->name, s->u.assert_.msg ? s->u.assert_.msg : "");
      return 0;
    }
    return walk(b, s->u.assert_.body);
  case TVM_ATTR:
    return walk(b, s->u.attr.body);
  case TVM_ALLOCATE: {
    if (!eval(b, s->u.alloc.extent, "allocation",
              s->u.alloc.buffer->u.var.name, &n))
      return 0;
    if (!grow((void **)&b->temps, &b->ctemps, b->ntemps, sizeof(uint64_t)))
      return fail_nomem(b);
    b->temps[b->ntemps] =
        (uint64_t)(n > 0 ? n : 0) * (uint64_t)tvm_dtype_bytes(s->u.alloc.dtype);
    uint64_t code = ((uint64_t)TVM_HOST_ARG_TEMP << 32 | b->ntemps++) + 1;
    if (tvm_ptrmap_put(&b->handles, s->u.alloc.buffer, (void *)(uintptr_t)code) !=
        TVM_OK)
      return fail_nomem(b);
    return walk(b, s->u.alloc.body);
  }
  case TVM_EVALUATE: {
    const tvm_expr *e = s->u.eval.value;
    if (e->kind == TVM_CALL && e->u.call.op == TVM_INTRIN_LAUNCH) {
      tvm_status st = tvm_launch_verify(e, b->m);
      if (st != TVM_OK) {
        b->st = st;
        return 0;
      }
      return add_launch(b, e);
    }
    break;
  }
  default:
    break;
  }
  if (b->st == TVM_OK) {
    char *t = tvm_stmt_str(s);
    b->st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                         "host code of %s does more than launch kernels: "
                         "`%.200s`; on a device target every computation "
                         "must be in a kernel (bind its loops to threads)",
                         b->host->name, t ? t : "?");
    tvm_free(t);
  }
  return 0;
}

/* Copies n elements of size sz to a (at least one byte). */
static void *dup_to(tvm_arena *a, const void *p, size_t n, size_t sz) {
  void *q = tvm_arena_alloc(a, n * sz + 1);
  if (q && n) memcpy(q, p, n * sz);
  return q;
}

/* See tvm/lower.h. */
tvm_status tvm_host_program_build(const tvm_func *host, const tvm_module *m,
                                  tvm_arena *a, tvm_host_program **out) {
  hb b;
  if (!host || !m || !a || !out)
    return tvm_diag_set(TVM_ERR_INVALID, "host program: NULL argument");
  memset(&b, 0, sizeof b);
  b.host = host;
  b.m = m;
  uint32_t nbuf = 0;
  for (int i = 0; i < host->nparams && b.st == TVM_OK; i++) {
    if (!tvm_dtype_is_handle(host->params[i]->dtype)) continue;
    uint64_t code = ((uint64_t)TVM_HOST_ARG_PARAM << 32 | nbuf++) + 1;
    if (tvm_ptrmap_put(&b.handles, host->params[i], (void *)(uintptr_t)code) !=
        TVM_OK)
      fail_nomem(&b);
  }
  if (b.st == TVM_OK) walk(&b, host->body);
  tvm_host_program *p = NULL;
  if (b.st == TVM_OK) {
    p = tvm_arena_alloc(a, sizeof *p);
    if (p) {
      memset(p, 0, sizeof *p);
      p->name = tvm_arena_strdup(a, host->name);
      p->nparams = nbuf;
      p->nkernels = (uint32_t)b.kernels.len;
      p->kernels = tvm_arena_alloc(a, sizeof(char *) * (b.kernels.len + 1));
      for (size_t i = 0; p->kernels && i < b.kernels.len; i++)
        if (!(p->kernels[i] = tvm_arena_strdup(a, b.kernels.data[i])))
          p->kernels = NULL;
      p->ntemps = (uint32_t)b.ntemps;
      p->temp_bytes = dup_to(a, b.temps, b.ntemps, sizeof(uint64_t));
      p->nops = (uint32_t)b.nops;
      p->ops = dup_to(a, b.ops, b.nops, sizeof(tvm_host_op));
      p->nargs = (uint32_t)b.nargs;
      p->args = dup_to(a, b.args, b.nargs, sizeof(tvm_host_arg));
    }
    if (!p || !p->name || !p->kernels || !p->temp_bytes || !p->ops || !p->args)
      fail_nomem(&b);
  }
  for (size_t i = 0; i < b.env.cap; i++)
    if (b.env.keys && b.env.keys[i] && b.env.vals[i]) tvm_free(b.env.vals[i]);
  tvm_ptrmap_free(&b.env);
  tvm_ptrmap_free(&b.handles);
  tvm_ptrvec_free(&b.kernels);
  tvm_free(b.temps);
  tvm_free(b.ops);
  tvm_free(b.args);
  if (b.st != TVM_OK) return b.st;
  if ((b.st = tvm_host_program_check(p)) != TVM_OK) return b.st;
  *out = p;
  return TVM_OK;
}
