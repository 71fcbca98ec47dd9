/*
 * tests/unit/lower/pass_check.c - see pass_check.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass_check.h"

typedef struct pc_val {
  int lanes;
  double v[PC_MAXL];
} pc_val;

typedef struct pc_buf {
  const tvm_expr *var;
  double *data;
  long n;
  /* race metadata per element */
  signed char *wq; /* queue of the last write, -1 none */
  int *wc;         /* its epoch */
  int *rc;         /* [q * n + e]: epoch of the last read by queue q */
  int owned;       /* allocated by an allocate statement */
} pc_buf;

typedef struct pc_bind {
  const tvm_expr *var;
  double v;
} pc_bind;

/* One FIFO channel of vector clocks. */
typedef struct chan {
  int (*msgs)[PC_MAXQ];
  long head, tail, cap;
} chan;

struct pc_interp {
  int nq;
  pc_buf *bufs;
  int nbufs, capbufs;
  pc_bind *env;
  int nenv, capenv;
  pc_extern_fn ext;
  void *ext_ud;
  int queue; /* current queue, -1 host */
  int vc[PC_MAXQ][PC_MAXQ];
  chan ch[PC_MAXQ][PC_MAXQ];
  long token_ops;
  int failed;
  char msg[512];
};

int pc_fail(pc_interp *p, const char *fmt, ...) {
  if (!p->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    p->failed = 1;
  }
  return -1;
}

const char *pc_error(const pc_interp *p) { return p->msg; }
long pc_token_ops(const pc_interp *p) { return p->token_ops; }

pc_interp *pc_new(int nq) {
  pc_interp *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->nq = nq > PC_MAXQ ? PC_MAXQ : nq;
  p->queue = -1;
  for (int q = 0; q < PC_MAXQ; q++) p->vc[q][q] = 1;
  return p;
}

/* Frees a buffer binding. */
static void buf_free(pc_buf *b) {
  free(b->data);
  free(b->wq);
  free(b->wc);
  free(b->rc);
}

void pc_free(pc_interp *p) {
  if (!p) return;
  for (int i = 0; i < p->nbufs; i++) buf_free(&p->bufs[i]);
  for (int a = 0; a < PC_MAXQ; a++)
    for (int b = 0; b < PC_MAXQ; b++) free(p->ch[a][b].msgs);
  free(p->bufs);
  free(p->env);
  free(p);
}

/* Binds a fresh zeroed buffer of n elements to var (test helper: aborts
 * when out of memory). */
static pc_buf *push_buf(pc_interp *p, const tvm_expr *var, long n) {
  if (p->nbufs == p->capbufs) {
    p->capbufs = p->capbufs ? 2 * p->capbufs : 16;
    p->bufs = realloc(p->bufs, sizeof(pc_buf) * (size_t)p->capbufs);
    if (!p->bufs) abort(); /* test helper */
  }
  pc_buf *b = &p->bufs[p->nbufs++];
  memset(b, 0, sizeof *b);
  b->var = var;
  b->n = n;
  b->data = calloc((size_t)(n ? n : 1), sizeof(double));
  b->wq = malloc((size_t)(n ? n : 1));
  b->wc = calloc((size_t)(n ? n : 1), sizeof(int));
  b->rc = calloc((size_t)(n ? n : 1) * PC_MAXQ, sizeof(int));
  if (!b->data || !b->wq || !b->wc || !b->rc) abort();
  memset(b->wq, -1, (size_t)(n ? n : 1));
  return b;
}

double *pc_buffer(pc_interp *p, const tvm_expr *var, long n) {
  return push_buf(p, var, n)->data;
}

void pc_set_var(pc_interp *p, const tvm_expr *var, double v) {
  if (p->nenv == p->capenv) {
    p->capenv = p->capenv ? 2 * p->capenv : 32;
    p->env = realloc(p->env, sizeof(pc_bind) * (size_t)p->capenv);
    if (!p->env) abort();
  }
  p->env[p->nenv++] = (pc_bind){var, v};
}

void pc_set_extern(pc_interp *p, pc_extern_fn fn, void *ud) {
  p->ext = fn;
  p->ext_ud = ud;
}

/* The innermost binding of var, or NULL. */
static pc_buf *find_buf(pc_interp *p, const tvm_expr *var) {
  for (int i = p->nbufs - 1; i >= 0; i--)
    if (p->bufs[i].var == var) return &p->bufs[i];
  return NULL;
}

/* ---- the token checker ---------------------------------------------------- */

/* Checks and records one access (rw 1 read, 2 write) of element e. */
static int access(pc_interp *p, pc_buf *b, long e, int rw) {
  int q = p->queue;
  if (e < 0 || e >= b->n)
    return pc_fail(p, "%s[%ld] is out of bounds (%ld elements)",
                   b->var->u.var.name, e, b->n);
  if (q < 0 || q >= p->nq) return 0; /* host */
  int wq = b->wq[e];
  if (wq >= 0 && wq != q && b->wc[e] > p->vc[q][wq])
    return pc_fail(p, "race: queue %d %s %s[%ld] written by queue %d without "
                      "a token ordering them",
                   q, rw & 2 ? "writes" : "reads", b->var->u.var.name, e, wq);
  if (rw & 2) {
    for (int r = 0; r < p->nq; r++)
      if (r != q && b->rc[r * b->n + e] > p->vc[q][r])
        return pc_fail(p, "race: queue %d overwrites %s[%ld] read by queue %d "
                          "without a token ordering them",
                       q, b->var->u.var.name, e, r);
    b->wq[e] = (signed char)q;
    b->wc[e] = p->vc[q][q];
    for (int r = 0; r < p->nq; r++) b->rc[r * b->n + e] = 0;
  }
  if (rw & 1) b->rc[q * b->n + e] = p->vc[q][q];
  return 0;
}

/* Executes dep_push / dep_pop on the channel (from, to). */
static int dep_token(pc_interp *p, int push, int from, int to) {
  p->token_ops++;
  if (from < 0 || to < 0 || from >= p->nq || to >= p->nq || from == to)
    return pc_fail(p, "token between bad queues %d -> %d", from, to);
  int runner = push ? from : to;
  if (p->queue >= 0 && p->queue != runner)
    return pc_fail(p, "%s(%d, %d) runs on queue %d", push ? "dep_push" : "dep_pop",
                   from, to, p->queue);
  chan *c = &p->ch[from][to];
  if (push) {
    if (c->tail == c->cap) {
      c->cap = c->cap ? 2 * c->cap : 16;
      c->msgs = realloc(c->msgs, sizeof(int[PC_MAXQ]) * (size_t)c->cap);
      if (!c->msgs) abort();
    }
    memcpy(c->msgs[c->tail++], p->vc[from], sizeof(int[PC_MAXQ]));
    p->vc[from][from]++;
  } else {
    if (c->head == c->tail)
      return pc_fail(p, "dep_pop(%d, %d) without a matching push", from, to);
    int *m = c->msgs[c->head++];
    for (int q = 0; q < PC_MAXQ; q++)
      if (m[q] > p->vc[to][q]) p->vc[to][q] = m[q];
  }
  return 0;
}

int pc_tokens_balanced(pc_interp *p) {
  for (int a = 0; a < PC_MAXQ; a++)
    for (int b = 0; b < PC_MAXQ; b++)
      if (p->ch[a][b].head != p->ch[a][b].tail)
        return !pc_fail(p, "%ld token(s) %d -> %d left at the end",
                        p->ch[a][b].tail - p->ch[a][b].head, a, b);
  return 1;
}

/* ---- expressions -------------------------------------------------------------- */

static int eval(pc_interp *p, const tvm_expr *e, pc_val *out);

/* Rounds v to the element type t. */
static double to_type(tvm_dtype t, double v) {
  if (tvm_dtype_is_bool(t)) return v != 0;
  if (tvm_dtype_is_float(t)) return t.bits == 32 ? (double)(float)v : v;
  return (double)(int64_t)v;
}

/* Integer division rounding toward minus infinity. */
static double floordiv(double a, double b) {
  int64_t x = (int64_t)a, y = (int64_t)b, q = x / y;
  if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
  return (double)q;
}

/* One lane of a binary operation; *err on division by zero. */
static double binop(tvm_expr_kind k, tvm_dtype t, double a, double b, int *err) {
  int fl = tvm_dtype_is_float(t);
  switch (k) {
  case TVM_ADD: return a + b;
  case TVM_SUB: return a - b;
  case TVM_MUL: return a * b;
  case TVM_DIV:
    if (fl) return a / b;
    if ((int64_t)b == 0) { *err = 1; return 0; }
    return (double)((int64_t)a / (int64_t)b);
  case TVM_MOD:
    if ((int64_t)b == 0) { *err = 1; return 0; }
    return fl ? fmod(a, b) : (double)((int64_t)a % (int64_t)b);
  case TVM_FLOORDIV:
    if (fl) return floor(a / b);
    if ((int64_t)b == 0) { *err = 1; return 0; }
    return floordiv(a, b);
  case TVM_FLOORMOD:
    if (fl) return a - floor(a / b) * b;
    if ((int64_t)b == 0) { *err = 1; return 0; }
    return a - floordiv(a, b) * b;
  case TVM_MIN: return a < b ? a : b;
  case TVM_MAX: return a > b ? a : b;
  case TVM_EQ: return a == b;
  case TVM_NE: return a != b;
  case TVM_LT: return a < b;
  case TVM_LE: return a <= b;
  case TVM_GT: return a > b;
  case TVM_GE: return a >= b;
  case TVM_AND: return a != 0 && b != 0;
  case TVM_OR: return a != 0 || b != 0;
  default: *err = 1; return 0;
  }
}

/* Lanes of e. */
static int lanes_of(const tvm_expr *e) { return e->dtype.lanes; }

/* Broadcasts a scalar value to n lanes in place. */
static void spread(pc_val *v, int n) {
  if (v->lanes == 1)
    for (int i = 1; i < n; i++) v->v[i] = v->v[0];
  v->lanes = n;
}

/* Math intrinsics, lane by lane. */
static int math(pc_interp *p, const tvm_expr *e, pc_val *out) {
  pc_val a[3];
  int n = lanes_of(e), na = e->u.call.nargs;
  if (na > 3) return pc_fail(p, "call %s: too many arguments", e->u.call.name);
  for (int i = 0; i < na; i++) {
    if (eval(p, e->u.call.args[i], &a[i])) return -1;
    spread(&a[i], n);
  }
  out->lanes = n;
  for (int l = 0; l < n; l++) {
    double x = a[0].v[l], r;
    switch (e->u.call.op) {
    case TVM_INTRIN_EXP: r = exp(x); break;
    case TVM_INTRIN_LOG: r = log(x); break;
    case TVM_INTRIN_SQRT: r = sqrt(x); break;
    case TVM_INTRIN_FABS: r = fabs(x); break;
    case TVM_INTRIN_FLOOR: r = floor(x); break;
    case TVM_INTRIN_TANH: r = tanh(x); break;
    case TVM_INTRIN_SIGMOID: r = 1 / (1 + exp(-x)); break;
    case TVM_INTRIN_POW: r = pow(x, a[1].v[l]); break;
    case TVM_INTRIN_FMA: r = x * a[1].v[l] + a[2].v[l]; break;
    default:
      return pc_fail(p, "intrinsic %s is not interpreted", e->u.call.name);
    }
    out->v[l] = to_type(e->dtype, r);
  }
  return 0;
}

double *pc_access_ptr(pc_interp *p, const tvm_expr *e, long *extent) {
  pc_val off, ext, rw;
  if (e->kind != TVM_CALL || e->u.call.op != TVM_INTRIN_ACCESS_PTR ||
      e->u.call.nargs < 5) {
    pc_fail(p, "expected access_ptr");
    return NULL;
  }
  pc_buf *b = find_buf(p, e->u.call.args[0]);
  if (!b) {
    pc_fail(p, "access_ptr of an unknown buffer");
    return NULL;
  }
  if (eval(p, e->u.call.args[2], &off) || eval(p, e->u.call.args[3], &ext) ||
      eval(p, e->u.call.args[4], &rw))
    return NULL;
  long o = (long)off.v[0], n = (long)ext.v[0];
  for (long i = 0; i < n; i++)
    if (access(p, b, o + i, (int)rw.v[0])) return NULL;
  if (extent) *extent = n;
  return b->data + o;
}

/* Calls: tokens, externs (through the handler), likely, math. */
static int call(pc_interp *p, const tvm_expr *e, pc_val *out) {
  out->lanes = 1;
  out->v[0] = 0;
  switch (e->u.call.op) {
  case TVM_INTRIN_DEP_PUSH:
  case TVM_INTRIN_DEP_POP: {
    pc_val a, b;
    if (e->u.call.nargs != 2 || eval(p, e->u.call.args[0], &a) ||
        eval(p, e->u.call.args[1], &b))
      return pc_fail(p, "bad token call");
    return dep_token(p, e->u.call.op == TVM_INTRIN_DEP_PUSH, (int)a.v[0],
                     (int)b.v[0]);
  }
  case TVM_INTRIN_EXTERN:
    if (!p->ext) return pc_fail(p, "no handler for extern %s", e->u.call.name);
    return p->ext(p, e, p->ext_ud);
  case TVM_INTRIN_LIKELY:
    return eval(p, e->u.call.args[0], out);
  default:
    return math(p, e, out);
  }
}

static int eval(pc_interp *p, const tvm_expr *e, pc_val *out) {
  int n = lanes_of(e);
  if (p->failed) return -1;
  if (n > PC_MAXL) return pc_fail(p, "%d lanes: too wide for the checker", n);
  out->lanes = n;
  switch (e->kind) {
  case TVM_INT: out->v[0] = (double)e->u.ival; return 0;
  case TVM_FLOAT: out->v[0] = to_type(e->dtype, e->u.fval); return 0;
  case TVM_VAR:
    for (int i = p->nenv - 1; i >= 0; i--)
      if (p->env[i].var == e) {
        out->v[0] = p->env[i].v;
        return 0;
      }
    return pc_fail(p, "variable %s is unbound", e->u.var.name);
  case TVM_ADD: case TVM_SUB: case TVM_MUL: case TVM_DIV: case TVM_MOD:
  case TVM_FLOORDIV: case TVM_FLOORMOD: case TVM_MIN: case TVM_MAX:
  case TVM_EQ: case TVM_NE: case TVM_LT: case TVM_LE: case TVM_GT:
  case TVM_GE: case TVM_AND: case TVM_OR: {
    pc_val a, b;
    int err = 0;
    if (eval(p, e->u.bin.a, &a) || eval(p, e->u.bin.b, &b)) return -1;
    if (a.lanes != n || b.lanes != n)
      return pc_fail(p, "%s: operand lanes %d, %d vs result %d",
                     tvm_expr_kind_name(e->kind), a.lanes, b.lanes, n);
    for (int l = 0; l < n; l++)
      out->v[l] = to_type(e->dtype,
                          binop(e->kind, e->u.bin.a->dtype, a.v[l], b.v[l], &err));
    return err ? pc_fail(p, "%s: division by zero", tvm_expr_kind_name(e->kind)) : 0;
  }
  case TVM_NOT: {
    pc_val a;
    if (eval(p, e->u.un.a, &a)) return -1;
    for (int l = 0; l < n; l++) out->v[l] = a.v[l] == 0;
    return 0;
  }
  case TVM_CAST: {
    pc_val a;
    if (eval(p, e->u.un.a, &a)) return -1;
    spread(&a, n);
    for (int l = 0; l < n; l++) out->v[l] = to_type(e->dtype, a.v[l]);
    return 0;
  }
  case TVM_SELECT: {
    pc_val c, t, f;
    if (eval(p, e->u.sel.cond, &c) || eval(p, e->u.sel.t, &t) ||
        eval(p, e->u.sel.f, &f))
      return -1;
    spread(&c, n);
    for (int l = 0; l < n; l++) out->v[l] = c.v[l] != 0 ? t.v[l] : f.v[l];
    return 0;
  }
  case TVM_RAMP: {
    pc_val b, s;
    if (eval(p, e->u.ramp.base, &b) || eval(p, e->u.ramp.stride, &s)) return -1;
    for (int l = 0; l < n; l++) out->v[l] = b.v[0] + l * s.v[0];
    return 0;
  }
  case TVM_BROADCAST: {
    pc_val v;
    if (eval(p, e->u.bcast.value, &v)) return -1;
    for (int l = 0; l < n; l++) out->v[l] = v.v[0];
    return 0;
  }
  case TVM_LET: {
    pc_val v;
    if (eval(p, e->u.let.value, &v)) return -1;
    pc_set_var(p, e->u.let.var, v.v[0]);
    int r = eval(p, e->u.let.body, out);
    p->nenv--;
    return r;
  }
  case TVM_LOAD: {
    pc_val idx, pred;
    pc_buf *b = find_buf(p, e->u.load.buffer);
    if (!b) return pc_fail(p, "load of unknown buffer %s", e->u.load.buffer->u.var.name);
    if (eval(p, e->u.load.index, &idx)) return -1;
    spread(&idx, n);
    if (e->u.load.pred) {
      if (eval(p, e->u.load.pred, &pred)) return -1;
      spread(&pred, n);
    }
    for (int l = 0; l < n; l++) {
      if (e->u.load.pred && pred.v[l] == 0) {
        out->v[l] = 0;
        continue;
      }
      long i = (long)idx.v[l];
      if (access(p, b, i, 1)) return -1;
      out->v[l] = b->data[i];
    }
    return 0;
  }
  case TVM_CALL:
    return call(p, e, out);
  default:
    return pc_fail(p, "expression %s is not interpreted",
                   tvm_expr_kind_name(e->kind));
  }
}

/* ---- statements ------------------------------------------------------------------ */

static int exec(pc_interp *p, const tvm_stmt *s) {
  if (p->failed) return -1;
  if (!s) return 0;
  switch (s->kind) {
  case TVM_SEQ:
    for (int i = 0; i < s->u.seq.n; i++)
      if (exec(p, s->u.seq.stmts[i])) return -1;
    return 0;
  case TVM_FOR: {
    pc_val mn, ext;
    if (eval(p, s->u.for_.min, &mn) || eval(p, s->u.for_.extent, &ext)) return -1;
    for (long i = 0; i < (long)ext.v[0]; i++) {
      pc_set_var(p, s->u.for_.var, mn.v[0] + (double)i);
      int r = exec(p, s->u.for_.body);
      p->nenv--;
      if (r) return -1;
    }
    return 0;
  }
  case TVM_IF: {
    pc_val c;
    if (eval(p, s->u.if_.cond, &c)) return -1;
    if (c.lanes != 1) return pc_fail(p, "if with a vector condition");
    return c.v[0] != 0 ? exec(p, s->u.if_.then_) : exec(p, s->u.if_.else_);
  }
  case TVM_LET_STMT: {
    pc_val v;
    if (eval(p, s->u.let.value, &v)) return -1;
    pc_set_var(p, s->u.let.var, v.v[0]);
    int r = exec(p, s->u.let.body);
    p->nenv--;
    return r;
  }
  case TVM_STORE: {
    pc_val idx, val, pred;
    int n = lanes_of(s->u.store.value);
    pc_buf *b = find_buf(p, s->u.store.buffer);
    if (!b) return pc_fail(p, "store to unknown buffer %s", s->u.store.buffer->u.var.name);
    if (eval(p, s->u.store.index, &idx) || eval(p, s->u.store.value, &val)) return -1;
    if (idx.lanes != n) return pc_fail(p, "store: index lanes %d, value lanes %d", idx.lanes, n);
    if (s->u.store.pred) {
      if (eval(p, s->u.store.pred, &pred)) return -1;
      spread(&pred, n);
    }
    for (int l = 0; l < n; l++) {
      if (s->u.store.pred && pred.v[l] == 0) continue;
      long i = (long)idx.v[l];
      if (access(p, b, i, 2)) return -1;
      b->data[i] = to_type(s->u.store.value->dtype, val.v[l]);
    }
    return 0;
  }
  case TVM_ALLOCATE: {
    pc_val ext;
    if (eval(p, s->u.alloc.extent, &ext)) return -1;
    int saved = p->nbufs;
    push_buf(p, s->u.alloc.buffer, (long)ext.v[0]);
    int r = exec(p, s->u.alloc.body);
    while (p->nbufs > saved) buf_free(&p->bufs[--p->nbufs]);
    return r;
  }
  case TVM_ATTR: {
    int64_t q;
    int saved = p->queue;
    if (!strcmp(s->u.attr.key, TVM_ATTR_COPROC_SCOPE) &&
        tvm_is_const_int(s->u.attr.value, &q))
      p->queue = (int)q;
    int r = exec(p, s->u.attr.body);
    p->queue = saved;
    return r;
  }
  case TVM_EVALUATE: {
    pc_val v;
    return eval(p, s->u.eval.value, &v);
  }
  case TVM_BARRIER:
    return 0;
  case TVM_ASSERT: {
    pc_val c;
    if (eval(p, s->u.assert_.cond, &c)) return -1;
    if (c.v[0] == 0) return pc_fail(p, "assert failed: %s", s->u.assert_.msg);
    return exec(p, s->u.assert_.body);
  }
  default:
    return pc_fail(p, "statement %s is not interpreted",
                   tvm_stmt_kind_name(s->kind));
  }
}

int pc_run(pc_interp *p, const tvm_stmt *s) { return exec(p, s); }

int pc_eval_scalar(pc_interp *p, const tvm_expr *e, double *out) {
  pc_val v;
  if (eval(p, e, &v)) return -1;
  *out = v.v[0];
  return 0;
}
