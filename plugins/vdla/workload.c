/*
 * plugins/vdla/workload.c - VDLA's int8 conv2d and dense as tensor
 * expressions, and their scalar references (see vdla_workload.h).
 */
#include "vdla_workload.h"

#include <string.h>

int64_t vdla_conv_out(const vdla_conv_shape *s, int64_t in) {
  return (in + 2 * s->pad - s->k) / s->stride + 1;
}

typedef struct cud {
  const vdla_conv_shape *s;
  tvm_tensor *data, *pad, *kernel, *conv;
  int64_t B, BI, BO, ico, h, w;
  int shift, relu;
} cud;

/* pad[n, c, y, x, b, i] = inside ? data[n, c, y - p, x - p, b, i] : 0 */
static tvm_expr *pad_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cud *u = ud;
  int64_t p = u->s->pad;
  tvm_expr *y = i[2], *x = i[3];
  tvm_expr *in = tvm_and(
      c, tvm_and(c, tvm_ge(c, y, tvm_int(c, p)), tvm_lt(c, y, tvm_int(c, u->h + p))),
      tvm_and(c, tvm_ge(c, x, tvm_int(c, p)), tvm_lt(c, x, tvm_int(c, u->w + p))));
  tvm_expr *v = TVM_AT(c, u->data, i[0], i[1], tvm_sub(c, y, tvm_int(c, p)),
                       tvm_sub(c, x, tvm_int(c, p)), i[4], i[5]);
  return tvm_select(c, in, v, tvm_const(c, TVM_I8, 0));
}

static tvm_expr *conv_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cud *u = ud;
  int64_t S = u->s->stride;
  tvm_iter_var *ic = tvm_reduce_axis(c, "ic", 0, u->ico);
  tvm_iter_var *ky = tvm_reduce_axis(c, "ky", 0, u->s->k);
  tvm_iter_var *kx = tvm_reduce_axis(c, "kx", 0, u->s->k);
  tvm_iter_var *ii = tvm_reduce_axis(c, "ii", 0, u->BI);
  tvm_expr *y = tvm_add(c, tvm_mul(c, i[2], tvm_int(c, S)), ky->var);
  tvm_expr *x = tvm_add(c, tvm_mul(c, i[3], tvm_int(c, S)), kx->var);
  tvm_expr *a = tvm_cast(c, TVM_I32, TVM_AT(c, u->pad, i[0], ic->var, y, x, i[4], ii->var));
  tvm_expr *w = tvm_cast(c, TVM_I32, TVM_AT(c, u->kernel, i[1], ic->var, ky->var,
                                            kx->var, i[5], ii->var));
  tvm_iter_var *axes[4] = {ic, ky, kx, ii};
  return tvm_sum(c, tvm_mul(c, a, w), axes, 4);
}

/* int8(min(max(v >> shift, lo), 127)) */
static tvm_expr *requant(tvm_ctx *c, tvm_expr *v, int shift, int relu) {
  tvm_expr *args[2] = {v, tvm_int(c, shift)};
  tvm_expr *r = tvm_call(c, TVM_I32, TVM_INTRIN_SHR, args, 2);
  r = tvm_max(c, r, tvm_int(c, relu ? 0 : -128));
  r = tvm_min(c, r, tvm_int(c, 127));
  return tvm_cast(c, TVM_I8, r);
}

static tvm_expr *res_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  cud *u = ud;
  return requant(c, TVM_AT(c, u->conv, i[0], i[1], i[2], i[3], i[4], i[5]),
                 u->shift, u->relu);
}

tvm_status vdla_conv2d_te(tvm_ctx *c, const vdla_config *hw,
                          const vdla_conv_shape *s, tvm_tensor *args[3]) {
  cud *u = tvm_ctx_alloc(c, sizeof *u);
  if (!u) return tvm_ctx_status(c);
  int64_t B = hw->batch, BI = hw->block_in, BO = hw->block_out;
  if (s->n % B || s->ic % BI || s->oc % BO)
    return tvm_diag_set(TVM_ERR_INVALID, "vdla conv2d: n %lld, ic %lld, oc "
                        "%lld must be multiples of the GEMM shape %lldx%lldx%lld",
                        (long long)s->n, (long long)s->ic, (long long)s->oc,
                        (long long)B, (long long)BI, (long long)BO);
  u->s = s, u->B = B, u->BI = BI, u->BO = BO, u->ico = s->ic / BI;
  u->h = s->h, u->w = s->w, u->shift = s->shift, u->relu = s->relu;
  int64_t OH = vdla_conv_out(s, s->h), OW = vdla_conv_out(s, s->w);
  u->data = tvm_placeholder(c, "data", TVM_I8,
                            (int64_t[]){s->n / B, s->ic / BI, s->h, s->w, B, BI}, 6);
  u->kernel = tvm_placeholder(c, "kernel", TVM_I8,
                              (int64_t[]){s->oc / BO, s->ic / BI, s->k, s->k, BO, BI}, 6);
  u->pad = u->data;
  if (s->pad > 0)
    u->pad = tvm_compute(c, "data_pad",
                         (int64_t[]){s->n / B, s->ic / BI, s->h + 2 * s->pad,
                                     s->w + 2 * s->pad, B, BI}, 6, pad_body, u);
  if (!u->pad) return tvm_ctx_status(c);
  u->conv = tvm_compute(c, "conv", (int64_t[]){s->n / B, s->oc / BO, OH, OW, B, BO},
                        6, conv_body, u);
  if (!u->conv) return tvm_ctx_status(c);
  tvm_tensor_set_tag(u->conv, "vdla_conv2d");
  tvm_tensor *res = tvm_compute(c, "res", (int64_t[]){s->n / B, s->oc / BO, OH, OW, B, BO},
                                6, res_body, u);
  if (!res) return tvm_ctx_status(c);
  args[0] = u->data, args[1] = u->kernel, args[2] = res;
  return TVM_OK;
}

/* ---- dense ------------------------------------------------------------------ */

typedef struct dud {
  tvm_tensor *data, *weight, *bias, *mm;
  int64_t ico, BI;
  int shift, relu;
} dud;

static tvm_expr *dense_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  dud *u = ud;
  tvm_iter_var *ic = tvm_reduce_axis(c, "ic", 0, u->ico);
  tvm_iter_var *ii = tvm_reduce_axis(c, "ii", 0, u->BI);
  tvm_expr *a = tvm_cast(c, TVM_I32, TVM_AT(c, u->data, i[0], ic->var, i[2], ii->var));
  tvm_expr *w = tvm_cast(c, TVM_I32, TVM_AT(c, u->weight, i[1], ic->var, i[3], ii->var));
  tvm_iter_var *axes[2] = {ic, ii};
  return tvm_sum(c, tvm_mul(c, a, w), axes, 2);
}

static tvm_expr *dres_body(tvm_ctx *c, tvm_expr **i, void *ud) {
  dud *u = ud;
  tvm_expr *v = tvm_add(c, TVM_AT(c, u->mm, i[0], i[1], i[2], i[3]),
                        TVM_AT(c, u->bias, i[0], i[1], i[2], i[3]));
  return requant(c, v, u->shift, u->relu);
}

tvm_status vdla_dense_te(tvm_ctx *c, const vdla_config *hw,
                         const vdla_dense_shape *s, tvm_tensor *args[4]) {
  dud *u = tvm_ctx_alloc(c, sizeof *u);
  if (!u) return tvm_ctx_status(c);
  int64_t B = hw->batch, BI = hw->block_in, BO = hw->block_out;
  if (s->n % B || s->ic % BI || s->oc % BO)
    return tvm_diag_set(TVM_ERR_INVALID, "vdla dense: n, ic, oc must be "
                        "multiples of the GEMM shape");
  u->ico = s->ic / BI, u->BI = BI, u->shift = s->shift, u->relu = s->relu;
  int64_t out[4] = {s->n / B, s->oc / BO, B, BO};
  u->data = tvm_placeholder(c, "data", TVM_I8, (int64_t[]){s->n / B, s->ic / BI, B, BI}, 4);
  u->weight = tvm_placeholder(c, "weight", TVM_I8,
                              (int64_t[]){s->oc / BO, s->ic / BI, BO, BI}, 4);
  u->bias = tvm_placeholder(c, "bias", TVM_I32, out, 4);
  u->mm = tvm_compute(c, "dense", out, 4, dense_body, u);
  if (!u->mm) return tvm_ctx_status(c);
  tvm_tensor_set_tag(u->mm, "vdla_dense");
  tvm_tensor *res = tvm_compute(c, "res", out, 4, dres_body, u);
  if (!res) return tvm_ctx_status(c);
  args[0] = u->data, args[1] = u->weight, args[2] = u->bias, args[3] = res;
  return TVM_OK;
}

/* ---- references ----------------------------------------------------------------- */

static int8_t rq(int32_t v, int shift, int relu) {
  v = v >> shift; /* arithmetic, like the ALU */
  if (v < (relu ? 0 : -128)) v = relu ? 0 : -128;
  if (v > 127) v = 127;
  return (int8_t)v;
}

void vdla_conv2d_ref(const vdla_config *hw, const vdla_conv_shape *s,
                     const int8_t *data, const int8_t *kernel, int8_t *out) {
  int64_t B = hw->batch, BI = hw->block_in, BO = hw->block_out;
  int64_t ICO = s->ic / BI, OCO = s->oc / BO, K = s->k;
  int64_t OH = vdla_conv_out(s, s->h), OW = vdla_conv_out(s, s->w);
  for (int64_t n = 0; n < s->n / B; n++)
    for (int64_t oc = 0; oc < OCO; oc++)
      for (int64_t y = 0; y < OH; y++)
        for (int64_t x = 0; x < OW; x++)
          for (int64_t b = 0; b < B; b++)
            for (int64_t o = 0; o < BO; o++) {
              int32_t acc = 0;
              for (int64_t ic = 0; ic < ICO; ic++)
                for (int64_t ky = 0; ky < K; ky++)
                  for (int64_t kx = 0; kx < K; kx++) {
                    int64_t iy = y * s->stride + ky - s->pad;
                    int64_t ix = x * s->stride + kx - s->pad;
                    if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w) continue;
                    const int8_t *d =
                        data + ((((n * ICO + ic) * s->h + iy) * s->w + ix) * B + b) * BI;
                    const int8_t *w =
                        kernel + ((((oc * ICO + ic) * K + ky) * K + kx) * BO + o) * BI;
                    for (int64_t i = 0; i < BI; i++) acc += (int32_t)d[i] * w[i];
                  }
              out[((((n * OCO + oc) * OH + y) * OW + x) * B + b) * BO + o] =
                  rq(acc, s->shift, s->relu);
            }
}

void vdla_dense_ref(const vdla_config *hw, const vdla_dense_shape *s,
                    const int8_t *data, const int8_t *weight,
                    const int32_t *bias, int8_t *out) {
  int64_t B = hw->batch, BI = hw->block_in, BO = hw->block_out;
  int64_t ICO = s->ic / BI, OCO = s->oc / BO;
  for (int64_t n = 0; n < s->n / B; n++)
    for (int64_t oc = 0; oc < OCO; oc++)
      for (int64_t b = 0; b < B; b++)
        for (int64_t o = 0; o < BO; o++) {
          int32_t acc = 0;
          for (int64_t ic = 0; ic < ICO; ic++)
            for (int64_t i = 0; i < BI; i++)
              acc += (int32_t)data[((n * ICO + ic) * B + b) * BI + i] *
                     weight[((oc * ICO + ic) * BO + o) * BI + i];
          int64_t at = ((n * OCO + oc) * B + b) * BO + o;
          out[at] = rq((int32_t)((uint32_t)acc + (uint32_t)bias[at]), s->shift, s->relu);
        }
}
