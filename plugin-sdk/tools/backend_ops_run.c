/*
 * plugin-sdk/tools/backend_ops_run.c - one case on one target: the case's
 * spec parsed into a one-node graph (inputs, constants, attributes; the
 * operator's own shape inference gives the outputs), compiled with the
 * whole pipeline (tvm_compile: the target's strategies and layouts),
 * run by the graph executor on a device of the target, and every output
 * compared with the operator's naive reference on the same inputs, with
 * a tolerance per dtype.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_ops.h"


int bo_model_layouts; /* see backend_ops.h */

/* ---- element access ------------------------------------------------- */
/* IEEE half <-> float (round to nearest even on the way in). */
static float half_to_float(uint16_t h) {
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  float f;
  if (e == 0) f = ldexpf((float)m, -24);
  else if (e == 31) f = m ? NAN : INFINITY;
  else f = ldexpf((float)(m | 1024), (int)e - 25);
  return s ? -f : f;
}
static uint16_t float_to_half(float f) {
  uint16_t s = signbit(f) ? 0x8000 : 0;
  float a = fabsf(f);
  if (isnan(f)) return 0x7e00;
  if (a >= 65520.0f) return s | 0x7c00;
  if (a < ldexpf(1, -24) / 2) return s;
  int e;
  frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  int ex = e - 1 < -14 ? -14 : e - 1;
  float q = nearbyintf(ldexpf(a, 10 - ex)); /* mantissa with hidden bit */
  if (q >= 2048) q /= 2, ex++;
  if (ex > 15) return s | 0x7c00;
  uint32_t m = (uint32_t)q;
  if (m < 1024) return (uint16_t)(s | m); /* subnormal */
  return (uint16_t)(s | (uint32_t)(ex + 15) << 10 | (m & 1023));
}

/* See backend_ops.h. */
const char *bo_dtype_name(tvm_dtype t, char *buf) {
  if (tvm_dtype_is_bool(t)) snprintf(buf, 16, "bool");
  else
    snprintf(buf, 16, "%c%d",
             t.code == kDLFloat ? 'f' : t.code == kDLUInt ? 'u' : 'i', t.bits);
  return buf;
}

/* Bytes of one element (bool: one byte). */
static size_t elem_bytes(tvm_dtype t) { return t.bits < 8 ? 1 : t.bits / 8; }

/* Element i of data (dtype t) as a double. */
static double get(tvm_dtype t, const void *data, int64_t i) {
  if (t.code == kDLFloat) {
    if (t.bits == 16) return half_to_float(((const uint16_t *)data)[i]);
    if (t.bits == 64) return ((const double *)data)[i];
    return ((const float *)data)[i];
  }
  if (t.code == kDLUInt) {
    switch (t.bits) {
    case 1: case 8: return ((const uint8_t *)data)[i];
    case 16: return ((const uint16_t *)data)[i];
    case 32: return ((const uint32_t *)data)[i];
    default: return (double)((const uint64_t *)data)[i];
    }
  }
  switch (t.bits) {
  case 8: return ((const int8_t *)data)[i];
  case 16: return ((const int16_t *)data)[i];
  case 32: return ((const int32_t *)data)[i];
  default: return (double)((const int64_t *)data)[i];
  }
}

/* Stores x (already in the dtype's range) as element i. */
static void set(tvm_dtype t, void *data, int64_t i, double x) {
  if (t.code == kDLFloat) {
    if (t.bits == 16) ((uint16_t *)data)[i] = float_to_half((float)x);
    else if (t.bits == 64) ((double *)data)[i] = x;
    else ((float *)data)[i] = (float)x;
    return;
  }
  if (t.code == kDLUInt) {
    switch (t.bits) {
    case 1: ((uint8_t *)data)[i] = x != 0; return;
    case 8: ((uint8_t *)data)[i] = (uint8_t)x; return;
    case 16: ((uint16_t *)data)[i] = (uint16_t)x; return;
    case 32: ((uint32_t *)data)[i] = (uint32_t)x; return;
    default: ((uint64_t *)data)[i] = (uint64_t)x; return;
    }
  }
  switch (t.bits) {
  case 8: ((int8_t *)data)[i] = (int8_t)x; return;
  case 16: ((int16_t *)data)[i] = (int16_t)x; return;
  case 32: ((int32_t *)data)[i] = (int32_t)x; return;
  default: ((int64_t *)data)[i] = (int64_t)x; return;
  }
}

/* The generated value of element flat of input k (see BO_* in the
 * header), folded into what dtype t can hold. */
static double gen(int kind, int64_t range, int k, tvm_dtype t, int64_t flat) {
  int64_t m = (flat * 37 + 11 + 13 * k) % 97;
  int64_t in = (flat * 7 + 3 + k) % 13 - 6;
  if (tvm_dtype_is_bool(t)) return (double)((flat * 5 + 2 + k) % 2);
  int integer = t.code != kDLFloat;
  double x;
  switch (kind) {
  case BO_REAL:
    x = integer ? (double)in : (double)m / 8.0 - 6.0;
    break;
  case BO_POS:
    x = integer ? (double)(in + 7) : (double)m / 16.0 + 0.25;
    break;
  case BO_SMALL:
    x = integer ? (double)(in % 2) : (double)m / 97.0 - 0.5;
    break;
  case BO_NZ:
    x = (double)(in == 0 ? 1 : in);
    break;
  default:
    x = (double)((flat * 5 + 2) % (2 * range) - range);
    break;
  }
  if (t.code == kDLUInt && x < 0) x = -x; /* unsigned: the magnitude */
  return x;
}

/* Tolerance of a comparison in dtype t. */
static int close_enough(tvm_dtype t, double got, double want) {
  if (got == want || (isnan(got) && isnan(want))) return 1;
  if (t.code != kDLFloat) return 0;
  double tol = t.bits == 16 ? 4e-3 : t.bits == 64 ? 1e-9 : 1e-4;
  return fabs(got - want) <= tol * (1 + fabs(want));
}

/* ---- spec parsing ---------------------------------------------------- */
typedef struct spec_in {
  int absent;
  int is_const;
  int swept; /* dtype is the swept one (D) */
  tvm_dtype dt;
  int kind;
  int64_t range;
  int ndim;
  int64_t shape[TVM_MAX_DIMS];
  int nvals;
  double vals[TVM_MAX_DIMS]; /* constants */
} spec_in;

/* A dtype name at *p ("D" = swept), advancing *p; 0 if none. */
static int parse_dtype(const char **p, tvm_dtype swept, tvm_dtype *out) {
  static const struct { const char *name; tvm_dtype t; } names[] = {
      {"bool", {kDLUInt, 1, 1}}, {"f16", {kDLFloat, 16, 1}},
      {"f32", {kDLFloat, 32, 1}}, {"f64", {kDLFloat, 64, 1}},
      {"i8", {kDLInt, 8, 1}},    {"i16", {kDLInt, 16, 1}},
      {"i32", {kDLInt, 32, 1}},  {"i64", {kDLInt, 64, 1}},
      {"u8", {kDLUInt, 8, 1}},
  };
  if (**p == 'D') {
    (*p)++;
    *out = swept;
    return 2;
  }
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i].name);
    if (strncmp(*p, names[i].name, n) == 0 && !isalnum((unsigned char)(*p)[n])) {
      *p += n;
      *out = names[i].t;
      return 1;
    }
  }
  return 0;
}

/* A comma list of numbers between open and close, into v (at most cap). */
static int parse_list(const char **p, char open, char close, double *v,
                      int cap) {
  if (**p != open) return -1;
  (*p)++;
  int n = 0;
  while (**p && **p != close) {
    char *end;
    double x = strtod(*p, &end);
    if (end == *p || n >= cap) return -1;
    v[n++] = x;
    *p = end;
    if (**p == ',') (*p)++;
  }
  if (**p != close) return -1;
  (*p)++;
  return n;
}

/* One input token (see the grammar atop backend_ops_cases.c). */
static int parse_input(const char **p, tvm_dtype swept, spec_in *in) {
  memset(in, 0, sizeof *in);
  if (**p == '_') {
    (*p)++;
    in->absent = 1;
    return 0;
  }
  if (**p == '#') {
    (*p)++;
    in->is_const = 1;
    int k = parse_dtype(p, swept, &in->dt);
    if (!k) return -1;
    in->swept = k == 2;
    if (**p == '(') { /* a scalar */
      in->nvals = parse_list(p, '(', ')', in->vals, 1);
      return in->nvals == 1 ? 0 : -1;
    }
    in->nvals = parse_list(p, '[', ']', in->vals, TVM_MAX_DIMS);
    in->ndim = 1;
    in->shape[0] = in->nvals;
    return in->nvals < 0 ? -1 : 0;
  }
  int k = parse_dtype(p, swept, &in->dt);
  if (!k) return -1;
  in->swept = k == 2;
  in->kind = BO_REAL;
  if (**p == '+') in->kind = BO_POS, (*p)++;
  else if (**p == 's') in->kind = BO_SMALL, (*p)++;
  else if (**p == 'z') in->kind = BO_NZ, (*p)++;
  else if (**p == '~') {
    char *end;
    (*p)++;
    in->kind = BO_IDX;
    in->range = strtoll(*p, &end, 10);
    if (end == *p || in->range <= 0) return -1;
    *p = end;
  }
  double dims[TVM_MAX_DIMS];
  in->ndim = parse_list(p, '[', ']', dims, TVM_MAX_DIMS);
  if (in->ndim < 0) return -1;
  for (int d = 0; d < in->ndim; d++) in->shape[d] = (int64_t)dims[d];
  return 0;
}

/* One attribute "name=value" into *a (strings and arrays in the graph's
 * arena, which the builder copies from). */
static int parse_attr(tvm_arena *ar, const char **p, tvm_gattr *a) {
  const char *eq = strchr(*p, '=');
  if (!eq) return -1;
  const char *end = eq + 1;
  while (*end && *end != ' ') end++;
  char *name = tvm_arena_alloc(ar, (size_t)(eq - *p) + 1);
  char *val = tvm_arena_alloc(ar, (size_t)(end - eq));
  if (!name || !val) return -1;
  memcpy(name, *p, (size_t)(eq - *p));
  name[eq - *p] = 0;
  memcpy(val, eq + 1, (size_t)(end - eq - 1));
  val[end - eq - 1] = 0;
  *p = end;
  if (val[0] == '[') {
    double v[TVM_MAX_DIMS * 2];
    const char *q = val;
    int n = parse_list(&q, '[', ']', v, TVM_MAX_DIMS * 2);
    if (n < 0) return -1;
    int64_t *iv = tvm_arena_alloc(ar, sizeof(int64_t) * (size_t)(n + 1));
    if (!iv) return -1;
    for (int i = 0; i < n; i++) iv[i] = (int64_t)v[i];
    *a = tvm_gattr_ints(name, iv, n);
    return 0;
  }
  char *e;
  long long iv = strtoll(val, &e, 10);
  if (*val && !*e) {
    *a = tvm_gattr_int(name, iv);
    return 0;
  }
  double fv = strtod(val, &e);
  if (*val && !*e) {
    *a = tvm_gattr_float(name, fv);
    return 0;
  }
  *a = tvm_gattr_str(name, val);
  return 0;
}

/* Appends "[2,3]" style shapes of the inputs to buf. */
static void print_shapes(const spec_in *in, int n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len < cap; i++) {
    len += (size_t)snprintf(buf + len, cap - len, "%s", i ? " " : "");
    if (len >= cap) break;
    if (in[i].absent) {
      len += (size_t)snprintf(buf + len, cap - len, "_");
      continue;
    }
    char dn[16] = "";
    if (!in[i].swept) /* fixed dtypes are part of the case's name */
      bo_dtype_name(in[i].dt, dn);
    len += (size_t)snprintf(buf + len, cap - len, "%s%s[",
                            in[i].is_const ? "#" : "", dn);
    for (int d = 0; d < in[i].ndim && len < cap; d++)
      len += (size_t)snprintf(buf + len, cap - len, "%s%lld", d ? "," : "",
                              (long long)in[i].shape[d]);
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "]");
  }
}

/* ---- the node ---------------------------------------------------------- */
/* See backend_ops.h. */
void bo_node_free(bo_node *bn) {
  for (int i = 0; i < BO_MAXIN; i++) free(bn->din[i].data);
  for (int k = 0; k < BO_MAXOUT; k++) {
    free(bn->dref[k].data);
    free(bn->dgot[k].data);
  }
  tvm_graph_free(bn->g);
  memset(bn, 0, sizeof *bn);
}

/* A CPU DLTensor of v's shape (copied into shp), with zeroed data. */
static int dl_for(const tvm_gvalue *v, DLTensor *t, int64_t *shp) {
  memset(t, 0, sizeof *t);
  memcpy(shp, v->shape, sizeof v->shape);
  int64_t n = tvm_gvalue_numel(v);
  t->data = calloc((size_t)(n > 0 ? n : 1), elem_bytes(v->dtype));
  t->ndim = v->ndim;
  t->shape = shp;
  t->dtype = v->dtype;
  t->device.device_type = kDLCPU;
  return t->data ? 0 : -1;
}

/* Is st a status by which a target or the compiler says "I do not run
 * this" (as opposed to a failure)? */
int bo_is_unsupported(tvm_status st) {
  return st == TVM_ERR_UNSUPPORTED || st == TVM_ERR_UNAVAILABLE;
}

/* See backend_ops.h. */
bo_result bo_node_build(const bo_case *c, tvm_dtype dt, bo_node *bn,
                        char *shape, size_t shape_cap, char *why,
                        size_t why_cap) {
  memset(bn, 0, sizeof *bn);
  spec_in in[BO_MAXIN];
  int nin = 0;
  const char *p = c->inputs;
  shape[0] = why[0] = 0;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    if (nin == BO_MAXIN || parse_input(&p, dt, &in[nin]) != 0) {
      snprintf(why, why_cap, "bad input spec '%s' near '%s' "
               "(plugin-sdk/tools/backend_ops_cases.c)", c->inputs, p);
      return BO_FAIL;
    }
    nin++;
  }
  print_shapes(in, nin, shape, shape_cap);
  if (tvm_graph_create(&bn->g) != TVM_OK) {
    snprintf(why, why_cap, "%s", tvm_diag_message());
    return BO_FAIL;
  }
  /* attributes */
  tvm_gattr attrs[16];
  int nattrs = 0;
  for (p = c->attrs ? c->attrs : ""; *p;) {
    while (*p == ' ') p++;
    if (!*p) break;
    if (nattrs == 16 || parse_attr(bn->g->arena, &p, &attrs[nattrs]) != 0) {
      snprintf(why, why_cap, "bad attribute spec '%s'", c->attrs);
      bo_node_free(bn);
      return BO_FAIL;
    }
    nattrs++;
  }
  /* inputs: graph inputs with generated data, constants */
  tvm_gvalue *gv[BO_MAXIN] = {0};
  for (int i = 0; i < nin; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    if (in[i].absent) continue;
    if (in[i].is_const) {
      unsigned char data[TVM_MAX_DIMS * 8];
      for (int e = 0; e < in[i].nvals; e++)
        set(in[i].dt, data, e, in[i].vals[e]);
      gv[i] = tvm_graph_const(bn->g, name, in[i].dt, in[i].shape, in[i].ndim,
                              data);
    } else {
      gv[i] = tvm_graph_input(bn->g, name, in[i].dt, in[i].shape, in[i].ndim);
      bn->order[bn->ninputs++] = i;
    }
    if (!gv[i] || dl_for(gv[i], &bn->din[i], bn->shin[i]) != 0) {
      snprintf(why, why_cap, "%s", tvm_diag_message());
      bo_node_free(bn);
      return BO_FAIL;
    }
    if (in[i].is_const)
      memcpy(bn->din[i].data, gv[i]->data,
             (size_t)tvm_gvalue_numel(gv[i]) * elem_bytes(in[i].dt));
    else
      for (int64_t e = 0; e < tvm_gvalue_numel(gv[i]); e++)
        set(in[i].dt, bn->din[i].data, e,
            gen(in[i].kind, in[i].range, i, in[i].dt, e));
  }
  bn->nin = nin;
  tvm_diag_clear();
  tvm_graph_apply(bn->g, c->op, "n", gv, nin, nattrs ? attrs : NULL, nattrs,
                  c->noutputs, &bn->node);
  if (!bn->node || tvm_graph_status(bn->g) != TVM_OK) {
    /* the operator's shape inference rejects these inputs */
    snprintf(why, why_cap, "%s", tvm_diag_message());
    bo_node_free(bn);
    return BO_UNSUPPORTED;
  }
  tvm_gnode *node = bn->node;
  if (!node->def->compute || !node->def->reference) {
    snprintf(why, why_cap, "%s has no %s (folded at compile time)", c->op,
             node->def->compute ? "reference" : "compute");
    bo_node_free(bn);
    return BO_SKIP;
  }
  /* the reference, on the CPU */
  const DLTensor *rin[BO_MAXIN];
  DLTensor *rout[BO_MAXOUT];
  for (int i = 0; i < nin; i++) rin[i] = gv[i] ? &bn->din[i] : NULL;
  bn->nout = node->noutputs;
  for (int k = 0; k < node->noutputs; k++) {
    if (dl_for(node->outputs[k], &bn->dref[k], bn->shout[k]) != 0 ||
        dl_for(node->outputs[k], &bn->dgot[k], bn->shout[k]) != 0) {
      snprintf(why, why_cap, "out of memory");
      bo_node_free(bn);
      return BO_FAIL;
    }
    rout[k] = &bn->dref[k];
    tvm_graph_mark_output(bn->g, node->outputs[k]);
  }
  tvm_status st = node->def->reference(node, rin, rout);
  if (st != TVM_OK) {
    snprintf(why, why_cap, "reference: %s", tvm_diag_message());
    bo_node_free(bn);
    return bo_is_unsupported(st) ? BO_SKIP : BO_FAIL;
  }
  return BO_PASS;
}

/* See backend_ops.h. */
bo_result bo_node_compare(const bo_node *bn, const char *op, char *why,
                          size_t why_cap) {
  for (int k = 0; k < bn->nout; k++) {
    int64_t n = 1;
    for (int d = 0; d < bn->dref[k].ndim; d++) n *= bn->dref[k].shape[d];
    for (int64_t e = 0; e < n; e++) {
      double want = get(bn->dref[k].dtype, bn->dref[k].data, e);
      double got = get(bn->dgot[k].dtype, bn->dgot[k].data, e);
      if (!close_enough(bn->dref[k].dtype, got, want)) {
        snprintf(why, why_cap,
                 "%s output %d element %lld: target %.7g, reference %.7g", op,
                 k, (long long)e, got, want);
        return BO_FAIL;
      }
    }
  }
  return BO_PASS;
}

/* See backend_ops.h. */
bo_result bo_run_case(const tvm_target *t, const bo_case *c, tvm_dtype dt,
                      char *shape, size_t shape_cap, char *why,
                      size_t why_cap, int *folded) {
  bo_node bn;
  *folded = 0;
  bo_result r = bo_node_build(c, dt, &bn, shape, shape_cap, why, why_cap);
  if (r != BO_PASS) return r;
  /* compile (the passes rewrite the graph: everything the comparison
   * needs was copied out of it), run, read back */
  tvm_plan *plan = NULL;
  tvm_executor *ex = NULL;
  tvm_compile_options o;
  tvm_compile_options_init(&o);
  o.alter_layout = !bo_model_layouts;
  tvm_status st = tvm_compile(bn.g, t, &o, &plan);
  if (st == TVM_OK) {
    *folded = plan->nsteps == 0;
    st = tvm_executor_create(plan, t, &ex);
  }
  for (int i = 0; st == TVM_OK && i < bn.ninputs; i++)
    st = tvm_executor_set_input(ex, (uint32_t)i, &bn.din[bn.order[i]]);
  if (st == TVM_OK) st = tvm_executor_run(ex);
  for (int k = 0; st == TVM_OK && k < bn.nout; k++)
    st = tvm_executor_get_output(ex, (uint32_t)k, &bn.dgot[k]);
  if (st != TVM_OK) {
    snprintf(why, why_cap, "%s", tvm_diag_message());
    r = bo_is_unsupported(st) ? BO_SKIP : BO_FAIL;
  } else {
    r = bo_node_compare(&bn, c->op, why, why_cap);
  }
  tvm_executor_free(ex);
  tvm_plan_free(plan);
  bo_node_free(&bn);
  return r;
}
