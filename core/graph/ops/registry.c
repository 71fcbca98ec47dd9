/*
 * core/graph/ops/registry.c - the operator registry: a static table of the
 * operator families (each file of this folder exports its definitions),
 * searched by name.  Nothing is allocated; the table is immutable.
 */
#include <string.h>

#include "ops_int.h"

extern const ops_family ops_layout_family;      /* layout.c */
extern const ops_family ops_conv_nchwc_family;  /* conv_nchwc.c */
extern const ops_family ops_pool_nchwc_family;   /* pool_nchwc.c */
extern const ops_family ops_loss_family;         /* loss.c */
extern const ops_family ops_matrix_family;       /* matrix.c */
extern const ops_family ops_index_family;        /* index.c */
extern const ops_family ops_quant_family;        /* quant.c */
extern const ops_family ops_signal_family;       /* signal.c */
extern const ops_family ops_einsum_family;       /* einsum.c */
extern const ops_family ops_groupnorm_family;    /* groupnorm.c */
extern const ops_family ops_matmul_packed_family; /* matmul_packed.c */
extern const ops_family ops_conv_winograd_family; /* conv_winograd.c */
extern const ops_family ops_scatter_family;      /* scatter.c */
extern const ops_family ops_device_family;       /* device.c */
extern const ops_family ops_qconv_blocked_family; /* qconv_blocked.c */

static const ops_family *const families[] = {
    &ops_elementwise_family, &ops_activation_family,     &ops_broadcast_family,
    &ops_conv_family,        &ops_conv_transpose_family, &ops_pool_family,
    &ops_gemm_family,        &ops_norm_family,           &ops_softmax_family,
    &ops_shape_family,       &ops_transform_family,      &ops_slice_family,
    &ops_reduce_family,      &ops_cast_family,           &ops_lstm_family,
    &ops_rearrange_family,   &ops_resize_family,         &ops_logic_family,
    &ops_rnn_family,         &ops_layout_family,         &ops_conv_nchwc_family,
    &ops_pool_nchwc_family,  &ops_loss_family,
    &ops_matrix_family,      &ops_index_family,
    &ops_quant_family,       &ops_signal_family,
    &ops_einsum_family,      &ops_groupnorm_family,
    &ops_scatter_family,     &ops_matmul_packed_family,
    &ops_device_family,      &ops_conv_winograd_family,
    &ops_qconv_blocked_family,
};
#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

/* Number of registered operators. */
int tvm_gop_count(void) {
  int k = 0;
  for (int f = 0; f < NFAMILIES; f++)
    k += families[f]->n;
  return k;
}

/* The i-th operator (families in table order), or NULL out of range. */
const tvm_gop_def *tvm_gop_at(int i) {
  if (i < 0)
    return NULL;
  for (int f = 0; f < NFAMILIES; f++) {
    if (i < families[f]->n)
      return &families[f]->defs[i];
    i -= families[f]->n;
  }
  return NULL;
}

/* The operator called name, or NULL (linear search: ~60 entries). */
const tvm_gop_def *tvm_gop_find(const char *name) {
  if (!name)
    return NULL;
  for (int f = 0; f < NFAMILIES; f++)
    for (int i = 0; i < families[f]->n; i++)
      if (strcmp(families[f]->defs[i].name, name) == 0)
        return &families[f]->defs[i];
  return NULL;
}

/* "elemwise", "broadcast", ... as in the TVM paper. */
const char *tvm_gop_pattern_name(tvm_gop_pattern p) {
  switch (p) {
  case TVM_PAT_ELEMWISE:
    return "elemwise";
  case TVM_PAT_BROADCAST:
    return "broadcast";
  case TVM_PAT_INJECTIVE:
    return "injective";
  case TVM_PAT_REDUCTION:
    return "reduction";
  case TVM_PAT_OUT_ELEMWISE_FUSABLE:
    return "out_elemwise_fusable";
  case TVM_PAT_OPAQUE:
    return "opaque";
  }
  return "unknown";
}
