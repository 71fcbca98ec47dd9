/*
 * plugin-sdk/tools/backend_ops_cases.c - the example inputs of every
 * operator: for operators that need more than "n inputs of one shape"
 * (constant shape inputs, attributes, index inputs, positive operands,
 * several outputs) a line of the table below; every other operator of the
 * registry gets generic inputs derived from its arity, so an operator
 * added to core/graph/ops/ is exercised without touching this file as
 * long as its shape inference accepts same-shaped inputs.
 *
 * Input grammar (space-separated, one token per input):
 *   _              an absent optional input
 *   D[2,3]         the swept dtype (every dtype of bo_dtypes the
 *                  operator's shape inference accepts), generator REAL
 *   f32[2,3]       a fixed dtype: f16 f32 f64 i8 i16 i32 i64 u8 bool
 *   D+[..] Ds[..] Dz[..] D~5[..]
 *                  generator POS, SMALL, NZ, IDX in [-5, 5) (any dtype)
 *   #i64[4,-1]     a constant int64 vector
 *   #D(1.5) #f32(2)
 *                  a constant scalar of the swept (or a fixed) dtype
 *   [] is a scalar.
 * Attribute grammar: name=3 (int), name=0.5 (float), name=[1,2] (ints),
 * name=word (string).
 */
#include <string.h>

#include "backend_ops.h"

/* The dtypes a "D" input is swept over. */
const tvm_dtype bo_dtypes[] = {
    {kDLFloat, 32, 1}, {kDLFloat, 16, 1}, {kDLFloat, 64, 1},
    {kDLInt, 8, 1},    {kDLInt, 32, 1},   {kDLInt, 64, 1},
    {kDLUInt, 8, 1},   {kDLUInt, 1, 1},
};
const int bo_ndtypes = sizeof bo_dtypes / sizeof bo_dtypes[0];

/* Operators with their own examples (the knowledge the old llvm-only op
 * test held). */
static const bo_case table[] = {
    /* elementwise with a domain */
    {"Log", "D+[4,5]", "", 0},
    {"Log", "D+[7]", "", 0},
    {"Sqrt", "D+[4,5]", "", 0},
    {"Sqrt", "D+[7]", "", 0},
    {"Reciprocal", "D+[4,5]", "", 0},
    {"Reciprocal", "D+[7]", "", 0},
    {"Clip", "D[4,5] #D(-1) #D(2)", "", 0},
    {"Clip", "D[7]", "", 0},
    {"Dropout", "D[3,4]", "", 2},
    {"Cast", "f32[3,4]", "to=6", 0},
    {"Cast", "f32[3,4]", "to=9", 0},
    {"Cast", "i64[6]", "to=1", 0},
    {"Cast", "D[2,3]", "to=1", 0},
    {"Cast", "D[2,3]", "to=7", 0},
    /* broadcast */
    {"Add", "D[2,3,4] D+[3,1]", "", 0},
    {"Add", "D[2,3,4] D[2,1,4]", "", 0},
    {"Add", "D[7] D[7]", "", 0},
    {"Sub", "D[2,3,4] D+[3,1]", "", 0},
    {"Sub", "D[7] D[7]", "", 0},
    {"Mul", "D[2,3,4] D+[3,1]", "", 0},
    {"Mul", "D[7] D[7]", "", 0},
    {"Div", "D[2,3,4] D+[3,1]", "", 0},
    {"Div", "D[3,4] Dz[3,4]", "", 0},
    {"Max", "D[2,3,4] D+[3,1]", "", 0},
    {"Min", "D[2,3,4] D+[3,1]", "", 0},
    {"Sum", "D[2,3,4] D+[3,1]", "", 0},
    {"Sum", "D[2,3] D[2,3] D[3]", "", 0},
    {"Mean", "D[2,3,4] D+[3,1]", "", 0},
    {"Pow", "D+[3,4] D[4]", "", 0},
    {"Pow", "Dz[3,4] D~3[4]", "", 0},
    {"PRelu", "D[1,3,4,4] D[3,1,1]", "", 0},
    {"Less", "D[3,4] D[4]", "", 0},
    {"Greater", "D[3,4] D[4]", "", 0},
    {"Equal", "D~2[3,4] D~2[4]", "", 0},
    {"Where", "bool~1[2,3,1] D[3,4] D[4]", "", 0},
    {"And", "bool~1[3,4] bool~1[4]", "", 0},
    {"Or", "bool~1[3,4] bool~1[4]", "", 0},
    {"Xor", "bool~1[3,4] bool~1[4]", "", 0},
    {"Not", "bool~1[3,4]", "", 0},
    {"Mod", "D[3,4] Dz[4]", "", 0},
    {"Mod", "D[3,4] D+[4]", "fmod=1", 0},
    {"BatchNormalization", "D[2,3,4,4] D[3] D[3] D[3] D+[3]", "", 0},
    /* nn */
    {"Conv", "D[1,3,8,8] D[4,3,3,3] D[4]", "pads=[1,1,1,1]", 0},
    {"Conv", "D[1,3,9,8] D[4,3,3,3]", "pads=[1,0,2,1] strides=[2,2]", 0},
    {"Conv", "D[1,4,8,8] D[4,1,3,3]", "pads=[1,1,1,1] group=4", 0},
    {"Conv", "D[1,4,9,9] D[6,2,3,3]",
     "dilations=[2,2] group=2 auto_pad=SAME_UPPER", 0},
    {"Conv", "D[2,3,10] D[4,3,3]", "pads=[1,2]", 0},
    {"Conv", "D[1,16,6,6] D[32,16,3,3] D[32]", "pads=[1,1,1,1]", 0},
    {"ConvTranspose", "D[1,3,4,4] D[3,2,3,3] D[2]",
     "strides=[2,2] pads=[1,1,1,1] output_padding=[1,1]", 0},
    {"MaxPool", "D[1,3,9,9]", "kernel_shape=[3,3] strides=[2,2] pads=[1,1,1,1]",
     0},
    {"MaxPool", "D[1,3,8,8]", "kernel_shape=[3,3] strides=[2,2] ceil_mode=1",
     0},
    {"AveragePool", "D[1,3,9,9]",
     "kernel_shape=[3,3] strides=[2,2] pads=[1,1,1,1]", 0},
    {"AveragePool", "D[1,3,9,9]",
     "kernel_shape=[3,3] pads=[1,1,1,1] count_include_pad=1", 0},
    {"GlobalAveragePool", "D[2,3,5,5]", "", 0},
    {"GlobalMaxPool", "D[2,3,5,5]", "", 0},
    {"Gemm", "D[4,6] D[5,6] D[5]", "transB=1 alpha=0.5", 0},
    {"Gemm", "D[6,4] D[6,5]", "transA=1", 0},
    {"Gemm", "D[32,48] D[48,40] D[40]", "", 0},
    {"Gemm", "D[8,16] D[12,16] D[12]", "transB=1", 0},
    {"Gemm", "D[3,20] D[24,20]", "transB=1 alpha=2.0", 0},
    {"MatMul", "D[2,1,3,4] D[3,4,5]", "", 0},
    {"MatMul", "D[4] D[2,4,3]", "", 0},
    {"MatMul", "D[7] D[7]", "", 0},
    {"MatMul", "D[33,17] D[17,40]", "", 0},
    /* packed right operand Bp[N/nr, K, nr] (alter_layout's NK<nr>n) */
    {"MatMul_packed", "D[9,12] D[3,12,8]", "n=24", 0},
    {"MatMul_packed", "D[2,5,12] D[2,12,16] D[20]", "n=20 alpha=0.5", 0},
    {"MatMul_packed", "D[1,7] D[1,7,16] D[3]", "n=3 beta=2.0", 0},
    {"Softmax", "D[3,7]", "", 0},
    {"Softmax", "D[2,3,4]", "_opset=11", 0},
    {"LogSoftmax", "D[2,3,4]", "axis=1", 0},
    {"LayerNormalization", "D[2,3,8] D[8] D[8]", "", 0},
    {"InstanceNormalization", "D[2,3,4,4] D[3] D[3]", "", 0},
    {"LRN", "D[1,5,3,3]", "size=3", 0},
    {"Resize", "D[1,2,3,4] _ _ #i64[1,2,6,7]", "mode=linear", 0},
    {"Resize", "D[1,2,3,4] _ _ #i64[1,2,6,8]", "", 0},
    {"LSTM", "Ds[3,2,4] Ds[1,12,4] Ds[1,12,3] Ds[1,24]", "hidden_size=3", 3},
    {"LSTM", "Ds[2,1,2] Ds[2,8,2] Ds[2,8,2]",
     "hidden_size=2 direction=bidirectional", 3},
    {"GRU", "Ds[3,2,4] Ds[2,9,4] Ds[2,9,3] Ds[2,18] _ Ds[2,2,3]",
     "hidden_size=3 linear_before_reset=0 direction=bidirectional", 2},
    {"GRU", "Ds[3,2,4] Ds[2,9,4] Ds[2,9,3] Ds[2,18] _ Ds[2,2,3]",
     "hidden_size=3 linear_before_reset=1 direction=bidirectional", 2},
    {"RNN", "Ds[3,2,4] Ds[1,3,4] Ds[1,3,3] Ds[1,6]", "hidden_size=3", 2},
    /* shape */
    {"Reshape", "D[2,3,4] #i64[4,-1]", "", 0},
    {"Flatten", "D[2,3,4]", "", 0},
    {"Squeeze", "D[2,1,4]", "", 0},
    {"Unsqueeze", "D[2,4] #i64[0,2]", "", 0},
    {"Expand", "D[3,1] #i64[2,3,4]", "", 0},
    {"Transpose", "D[2,3,4]", "perm=[2,0,1]", 0},
    {"Concat", "D[2,3] D[2,2] D[2,1]", "axis=1", 0},
    {"Split", "D[6,2] #i64[2,4]", "", 2},
    {"Slice", "D[6,5] #i64[1,-1] #i64[5,0] #i64[0,1] #i64[2,-1]", "", 0},
    {"Pad", "D[3,4] #i64[1,2,2,1]", "mode=constant", 0},
    {"Pad", "D[3,4] #i64[1,2,2,1]", "mode=reflect", 0},
    {"Pad", "D[3,4] #i64[1,2,2,1]", "mode=edge", 0},
    {"Gather", "D[5,4] i64~5[2,3]", "", 0},
    {"Gather", "D[5,4] i32~4[3]", "axis=1", 0},
    {"GatherElements", "D[3,4] i64~4[3,2]", "axis=1", 0},
    {"Tile", "D[2,3] #i64[2,2]", "", 0},
    {"DepthToSpace", "D[1,8,2,3]", "blocksize=2", 0},
    {"SpaceToDepth", "D[1,2,4,6]", "blocksize=2", 0},
    {"ConstantOfShape", "#i64[2,3] #f32(1.5)", "", 0},
    {"ReduceMean", "D[2,3,4]", "axes=[1]", 0},
    {"ReduceSum", "D[2,3,4] #i64[0,2]", "keepdims=0", 0},
    {"ReduceMax", "D[2,3,4]", "", 0},
    {"ReduceMin", "D[2,3,4]", "axes=[0]", 0},
    {"ReduceLogSumExp", "D[2,3,4]", "axes=[2]", 0},
    {"ReduceProd", "D[2,3,4]", "axes=[1]", 0},
    /* the last axis, long enough for a vector step (llvm-cpu's reduce
     * template takes these; the cases above leave it alone) */
    {"ReduceMean", "D[2,3,20]", "axes=[-1]", 0},
    {"ReduceMin", "D[3,20]", "axes=[1]", 0},
    {"ReduceProd", "Ds[3,6]", "axes=[1]", 0},
    {"ReduceSumSquare", "D[2,3,20]", "axes=[2]", 0},
    {"ReduceL1", "D[3,20]", "axes=[1]", 0},
    {"ReduceL2", "D[3,20]", "axes=[1]", 0},
    {"ReduceLogSum", "D+[3,20]", "axes=[1]", 0},
    {"ArgMax", "D~2[3,5]", "axis=1", 0},
    {"ArgMin", "D~2[3,5]", "axis=0", 0},
    {"Range", "#D(1) #D(7) #D(2)", "", 0},
    {"Upsample", "D[1,1,2,3] #f32[1,1,2,2]", "", 0},
    /* the layouts targets choose (alter_layout) */
    {"LayoutTransform", "D[1,8,3,3]", "src_layout=NCHW dst_layout=NCHW4c", 0},
    {"LayoutTransform", "D[1,2,3,3,4]", "src_layout=NCHW4c dst_layout=NCHW",
     0},
    {"Conv_NCHWc", "D[1,2,6,6,4] D[2,2,3,3,4,4] D[8]", "pads=[1,1,1,1]", 0},
    {"Conv_NCHWc", "D[1,2,6,6,4] D[2,1,3,3,1,4]", "group=8 strides=[2,2]", 0},
    /* Winograd F(4x4, 3x3) on blocked data: a 7x6 map (2 x 2 tiles, the
     * last row partial), 8 -> 8 channels in blocks of 4 */
    {"Conv2D_winograd_weight_NCHWc", "D[8,8,3,3]", "block=4", 0},
    {"Conv2D_winograd_input_NCHWc", "D[1,2,7,6,4]", "pads=[1,1,1,1]", 0},
    {"Conv2D_winograd_NCHWc", "D[6,6,4,8] D[6,6,2,8,4] D[8]",
     "batch=1 out_h=7 out_w=6", 0},
    /* and F(2x2, 3x3): 4 x 3 tiles of the same map, the last row partial */
    {"Conv2D_winograd_weight_NCHWc", "D[8,8,3,3]", "block=4 tile=2", 0},
    {"Conv2D_winograd_input_NCHWc", "D[1,2,7,6,4]", "pads=[1,1,1,1] tile=2", 0},
    {"Conv2D_winograd_NCHWc", "D[4,4,12,8] D[4,4,2,8,4] D[8]",
     "batch=1 out_h=7 out_w=6", 0},
    {"Pool_NCHWc", "D[1,2,7,7,4]", "pool=MaxPool kernel_shape=[3,3] strides=[2,2]",
     0},
    {"Pool_NCHWc", "D[1,2,5,5,4]", "pool=GlobalAveragePool", 0},
};
#define NTABLE ((int)(sizeof table / sizeof table[0]))

/* Generic inputs by arity: same-shaped inputs (the first REAL, the rest
 * POS so that divisors are never zero), at a 1-D and a 3-D shape, plus a
 * broadcast pair for binary operators. */
static const bo_case generic[][4] = {
    /* 0 inputs: nothing generic to feed */
    {{NULL, NULL, NULL, 0}},
    {{NULL, "D[7]", "", 0}, {NULL, "D[2,3,5]", "", 0}, {NULL, NULL, NULL, 0}},
    {{NULL, "D[7] D+[7]", "", 0},
     {NULL, "D[2,3,4] D+[2,3,4]", "", 0},
     {NULL, "D[2,3,4] D+[3,1]", "", 0},
     {NULL, NULL, NULL, 0}},
    {{NULL, "D[7] D+[7] D+[7]", "", 0},
     {NULL, "D[2,3,4] D+[2,3,4] D+[2,3,4]", "", 0},
     {NULL, NULL, NULL, 0}},
};

/* See backend_ops.h. */
int bo_cases_for(const tvm_gop_def *def, bo_case *out, int cap,
                 int *generic_out) {
  int n = 0;
  for (int i = 0; i < NTABLE; i++)
    if (strcmp(table[i].op, def->name) == 0 && n < cap) out[n++] = table[i];
  *generic_out = n == 0;
  if (n > 0) return n;
  int nin = def->min_inputs > 0 ? def->min_inputs : 1;
  if (def->min_inputs == 0 || nin > 3) return 0;
  for (int k = 0; generic[nin][k].inputs && n < cap; k++) {
    out[n] = generic[nin][k];
    out[n].op = def->name;
    n++;
  }
  return n;
}
