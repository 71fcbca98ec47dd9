/*
 * tvm/graph.h - the graph IR: typed tensor values, operator nodes with
 * typed attributes, the operator registry, the builder and the printer.
 *
 * Ownership: a tvm_graph owns an arena; values, nodes, attributes, names
 * and constant data all live in it and die with tvm_graph_free.  Passes
 * rewrite a graph in place (core/graph/passes/, one file each) and can be
 * checked by printing the graph before and after.
 *
 * Operators use ONNX names and attribute spellings ("Conv", "strides");
 * layouts are strings ("NCHW", "NCHW16c", "OIHW16i16o").
 */
#ifndef TVM_GRAPH_H
#define TVM_GRAPH_H

#include <dlpack/dlpack.h>
#include "tvm/te.h"

struct tvm_config; /* tvm/config.h */

/* The weight "layout" a target's alter_layout answers (with data and out
 * "NCHW") for a 3x3 stride-1 Conv it wants computed by Winograd F(2x2,
 * 3x3): the weight is transformed to U [4, 4, K, C] and the node becomes
 * Conv2D_winograd (tvm/graph_passes.h, alter_layout). */
#define TVM_LAYOUT_WINOGRAD_F2X3 "winograd_F2x3"
/* With data and out "NCHW<b>c" (blocks of the target's choice) for
 * Winograd F(4x4, 3x3): U [6, 6, K/ob, C, ob] and the node becomes
 * Conv2D_winograd_NCHWc; TVM_LAYOUT_WINOGRAD_F2X3 with blocked data and
 * out likewise in tiles of 2 (U [4, 4, K/ob, C, ob]). */
#define TVM_LAYOUT_WINOGRAD_F4X3 "winograd_F4x3"

#ifdef __cplusplus
extern "C" {
#endif

/* TVM_MAX_DIMS (tensor rank limit) is in tvm/base.h. */

typedef struct tvm_gnode tvm_gnode;
typedef struct tvm_gop_def tvm_gop_def;

typedef enum tvm_gvalue_kind {
  TVM_GV_INPUT,       /* fed at run time */
  TVM_GV_CONST,       /* data known at compile time (weights, folded) */
  TVM_GV_INTERMEDIATE /* produced by a node */
} tvm_gvalue_kind;

/* A tensor value of the graph. */
typedef struct tvm_gvalue {
  uint32_t id;
  const char *name;
  tvm_gvalue_kind kind;
  tvm_dtype dtype;
  int ndim;
  int64_t shape[TVM_MAX_DIMS];
  const char *layout;  /* NULL = plain row-major of the op's convention */
  tvm_gnode *producer; /* INTERMEDIATE only */
  int index;           /* which output of producer */
  void *data;          /* CONST only: row-major host data in the arena */
  /* The device it lives on in a heterogeneous compilation (0 = the
   * target, 1 = its fallback; place_devices sets it); 0 otherwise. */
  int device;
} tvm_gvalue;

typedef enum tvm_gattr_type {
  TVM_GATTR_INT = 1,
  TVM_GATTR_FLOAT = 2,
  TVM_GATTR_STRING = 3,
  TVM_GATTR_INTS = 4,
  TVM_GATTR_FLOATS = 5
} tvm_gattr_type;

/* A node attribute (ONNX AttributeProto's useful subset). */
typedef struct tvm_gattr {
  const char *name;
  tvm_gattr_type type;
  int64_t i;
  double f;
  const char *s;
  const int64_t *ints;
  const double *floats;
  int n; /* length of ints / floats */
} tvm_gattr;

struct tvm_gnode {
  uint32_t id;
  const char *op; /* registry name */
  const tvm_gop_def *def;
  const char *name;
  tvm_gvalue **inputs; /* an absent optional input is NULL */
  int ninputs;
  tvm_gvalue **outputs;
  int noutputs;
  tvm_gattr *attrs;
  int nattrs;
  int group; /* fused group id after fuse_ops, -1 before */
  /* The device that runs it (0 = the target, 1 = its fallback), set by
   * place_devices (core/graph/passes/place_devices.c); 0 before. */
  int device;
  /* The layout workload whose knobs chose this node's layout
   * ("layout_Conv-<hash>", see tvm_gnode_layout_config), set by
   * alter_layout on the node it made; NULL otherwise. */
  const char *layout_workload;
};

typedef struct tvm_graph {
  tvm_arena *arena;
  tvm_ptrvec nodes;   /* tvm_gnode*, topological order */
  tvm_ptrvec values;  /* tvm_gvalue*, every value */
  tvm_ptrvec inputs;  /* tvm_gvalue* of kind INPUT, in order */
  tvm_ptrvec outputs; /* tvm_gvalue* marked as graph outputs, in order */
  uint32_t next_id;
  int failed;         /* sticky: a builder call failed (see diagnostic) */
} tvm_graph;

/* ---- operator registry ------------------------------------------------- */
/* Fusion pattern kinds, ordered as in the TVM paper (lower fuses more). */
typedef enum tvm_gop_pattern {
  TVM_PAT_ELEMWISE = 0,
  TVM_PAT_BROADCAST = 1,
  TVM_PAT_INJECTIVE = 2,
  TVM_PAT_REDUCTION = 3,
  TVM_PAT_OUT_ELEMWISE_FUSABLE = 4, /* conv, dense: elementwise may follow */
  TVM_PAT_OPAQUE = 8
} tvm_gop_pattern;

struct tvm_gop_def {
  const char *name;
  int min_inputs, max_inputs;
  int min_outputs, max_outputs;
  tvm_gop_pattern pattern;
  /* Validates inputs and attributes (naming the node, the attribute and
   * the fix) and sets every output's dtype, ndim and shape.  Inputs that
   * must be constant (Reshape's shape) are read from their data. */
  tvm_status (*infer)(tvm_graph *g, tvm_gnode *n);
  /* Declares the outputs as tensor expressions of the inputs' tensors.
   * NULL for operators that never reach code generation (Shape,
   * Constant: folded away at compile time). */
  tvm_status (*compute)(tvm_ctx *c, const tvm_gnode *n, tvm_tensor **in,
                        tvm_tensor **out);
  /* The naive C reference, the oracle of every test: computes the outputs
   * (allocated by the caller with the inferred shapes, compact
   * row-major, on the CPU) from the inputs. */
  tvm_status (*reference)(const tvm_gnode *n, const DLTensor *const *in,
                          DLTensor *const *out);
  const char *doc; /* one line */
};

/* The operator called name ("Conv"), or NULL. */
TVM_API const tvm_gop_def *tvm_gop_find(const char *name);
/* Every registered operator, for listings and tests. */
TVM_API int tvm_gop_count(void);
TVM_API const tvm_gop_def *tvm_gop_at(int i);
TVM_API const char *tvm_gop_pattern_name(tvm_gop_pattern p);

/* ---- attributes ---------------------------------------------------------- */
/* Attribute constructors for the builder (arrays are copied by it). */
TVM_API tvm_gattr tvm_gattr_int(const char *name, int64_t v);
TVM_API tvm_gattr tvm_gattr_float(const char *name, double v);
TVM_API tvm_gattr tvm_gattr_str(const char *name, const char *v);
TVM_API tvm_gattr tvm_gattr_ints(const char *name, const int64_t *v, int n);
TVM_API tvm_gattr tvm_gattr_floats(const char *name, const double *v, int n);

/* Lookups on a node: the attribute, or NULL. */
TVM_API const tvm_gattr *tvm_gnode_attr(const tvm_gnode *n, const char *name);
TVM_API int64_t tvm_gnode_int(const tvm_gnode *n, const char *name,
                              int64_t dflt);
TVM_API double tvm_gnode_float(const tvm_gnode *n, const char *name,
                               double dflt);
TVM_API const char *tvm_gnode_str(const tvm_gnode *n, const char *name,
                                  const char *dflt);
/* Number of ints (and *v), or -1 when absent. */
TVM_API int tvm_gnode_ints(const tvm_gnode *n, const char *name,
                           const int64_t **v);

/* ---- the plugin's view of a node ----------------------------------------
 * What plugin code handed a tvm_gnode (alter_layout) may read.  The
 * structs above are not part of the plugin contract; these functions and
 * the attribute readers above are (WRITING_A_PLUGIN.md, "What plugins
 * see").  NULL nodes and out-of-range indexes read as absent. */
TVM_API const char *tvm_gnode_op_name(const tvm_gnode *n);
TVM_API const char *tvm_gnode_name(const tvm_gnode *n);
TVM_API int tvm_gnode_num_inputs(const tvm_gnode *n);
TVM_API int tvm_gnode_num_outputs(const tvm_gnode *n);
/* Rank of input i (output k), dims copied into shape (TVM_MAX_DIMS
 * entries, may be NULL); -1 when absent. */
TVM_API int tvm_gnode_input_shape(const tvm_gnode *n, int i, int64_t *shape);
TVM_API int tvm_gnode_output_shape(const tvm_gnode *n, int k,
                                   int64_t *shape);
/* 0 with the dtype in *out, -1 when absent. */
TVM_API int tvm_gnode_input_dtype(const tvm_gnode *n, int i, tvm_dtype *out);
TVM_API int tvm_gnode_output_dtype(const tvm_gnode *n, int k,
                                   tvm_dtype *out);
/* Layout string of input i, NULL = the operator's plain convention. */
TVM_API const char *tvm_gnode_input_layout(const tvm_gnode *n, int i);
/* 1 when input i is a compile-time constant (weights). */
TVM_API int tvm_gnode_input_is_const(const tvm_gnode *n, int i);
/* The layout knobs of node n while the target's alter_layout decides its
 * layout, NULL at any other time.  A plugin asks for its layout choices
 * (channel blocks, say) as knobs of this config (tvm/config.h,
 * tvm_cfg_choice and friends), define-by-run as in a schedule template:
 * they answer their defaults unless a tuning log's best record of the
 * node's layout workload presets them (tvm_compile_options.tuning_log) or
 * the tuner sets them (tvm_tune_hooks.layout), so the layout follows the
 * tuned configuration.  Valid until alter_layout returns. */
TVM_API struct tvm_config *tvm_gnode_layout_config(const tvm_gnode *n);
/* 1 when node n is a Conv that Winograd F(m, 3x3) computes: a 4-D input,
 * a 3x3 kernel of the input's channels (group 1), strides and dilations
 * 1 (or absent), and the same padding on both sides of each axis
 * (explicit pads, none, or auto_pad SAME_UPPER / SAME_LOWER / VALID);
 * 0 otherwise.  What a target's alter_layout checks before answering a
 * TVM_LAYOUT_WINOGRAD_* weight layout (when it pays is the target's
 * call). */
TVM_API int tvm_gnode_winograd_applies(const tvm_gnode *n);
/* 1 when node n is a Conv that flat pixels compute (a 4-D input and
 * output, a kernel of the input's channels, group 1; any window, strides,
 * dilations and padding): what a target's alter_layout checks before
 * setting TVM_PLUGIN_LAYOUT_FLAT_PIXELS; 0 otherwise. */
TVM_API int tvm_gnode_flat_pixels_applies(const tvm_gnode *n);

/* ---- graphs and the builder ---------------------------------------------- */
TVM_API tvm_status tvm_graph_create(tvm_graph **out);
TVM_API void tvm_graph_free(tvm_graph *g);

/* Builder calls return NULL on failure, set g->failed and leave the
 * reason in the diagnostic; a NULL input makes the next call fail too, so
 * a whole network can be written without checks and tested once with
 * tvm_graph_status. */
TVM_API tvm_gvalue *tvm_graph_input(tvm_graph *g, const char *name,
                                    tvm_dtype t, const int64_t *shape,
                                    int ndim);
/* A constant; data (row-major) is copied into the graph. */
TVM_API tvm_gvalue *tvm_graph_const(tvm_graph *g, const char *name,
                                    tvm_dtype t, const int64_t *shape,
                                    int ndim, const void *data);
/* A constant of zeros whose data (v->data, tvm_gvalue_bytes(v) bytes,
 * row-major) the caller may fill before any pass reads the graph: a
 * frontend decodes a weight straight into it instead of copying it. */
TVM_API tvm_gvalue *tvm_graph_const_zeros(tvm_graph *g, const char *name,
                                          tvm_dtype t, const int64_t *shape,
                                          int ndim);
/* A constant whose data is block, a big block of arena src (one with a
 * chunk of its own, tvm_arena_share) holding its bytes: the graph holds
 * the block instead of copying it (a frontend's decoded weights), and it
 * is freed with the last of the two arenas.  Neither side may write to it
 * while src lives.  When src does not give block that way the constant
 * gets zeroed data of its own, as tvm_graph_const_zeros (v->data !=
 * block tells the caller to fill it). */
TVM_API tvm_gvalue *tvm_graph_const_shared(tvm_graph *g, const char *name,
                                           tvm_dtype t, const int64_t *shape,
                                           int ndim, tvm_arena *src,
                                           const void *block);
/* A float32 constant of pseudo-random values, uniform in [-scale, scale],
 * from a fixed seed (the model zoo's weights): the same seed gives the
 * same values on every machine. */
TVM_API tvm_gvalue *tvm_graph_random(tvm_graph *g, const char *name,
                                     const int64_t *shape, int ndim,
                                     uint64_t seed, double scale);
/* Adds a node applying op to the inputs, runs its shape inference, and
 * returns its first output (all outputs: node->outputs). */
TVM_API tvm_gvalue *tvm_graph_apply(tvm_graph *g, const char *op,
                                    const char *name, tvm_gvalue **in,
                                    int nin, const tvm_gattr *attrs,
                                    int nattrs, int noutputs,
                                    tvm_gnode **node);
TVM_API tvm_status tvm_graph_mark_output(tvm_graph *g, tvm_gvalue *v);
/* TVM_OK, or the first builder failure. */
TVM_API tvm_status tvm_graph_status(const tvm_graph *g);

/* Readable application in C:
 *   x = TVM_OP(g, "Relu", TVM_IN(x), TVM_NOATTRS);
 *   x = TVM_OP(g, "Conv", TVM_IN(x, w),
 *              TVM_ATTRS(tvm_gattr_ints("strides", (int64_t[]){2, 2}, 2)));
 */
#define TVM_IN(...)                                                     \
  (tvm_gvalue *[]){__VA_ARGS__},                                        \
      (int)(sizeof((tvm_gvalue *[]){__VA_ARGS__}) / sizeof(tvm_gvalue *))
#define TVM_ATTRS(...)                                                  \
  (tvm_gattr[]){__VA_ARGS__},                                           \
      (int)(sizeof((tvm_gattr[]){__VA_ARGS__}) / sizeof(tvm_gattr))
#define TVM_NOATTRS NULL, 0
#define TVM_OP(g, op, in_and_n, attrs_and_n)                            \
  tvm_graph_apply((g), (op), NULL, in_and_n, attrs_and_n, 1, NULL)

/* Elements and bytes of a value. */
TVM_API int64_t tvm_gvalue_numel(const tvm_gvalue *v);
TVM_API int64_t tvm_gvalue_bytes(const tvm_gvalue *v);

/* Rebuilds g->nodes in topological order and drops values no longer
 * referenced (used by passes after rewriting). */
TVM_API tvm_status tvm_graph_toposort(tvm_graph *g);
/* Replaces every use of old (node inputs, graph outputs) by new. */
TVM_API void tvm_graph_replace_uses(tvm_graph *g, tvm_gvalue *old,
                                    tvm_gvalue *new_);

/* Text form:
 *   graph(%data: float32[1, 3, 224, 224]) {
 *     %conv1 = Conv(%data, %w) {strides=[2, 2], pads=[3, 3, 3, 3]}
 *              -> float32[1, 64, 112, 112]
 *     ...
 *     return %out
 *   }                                                                    */
TVM_API void tvm_graph_print(tvm_strbuf *out, const tvm_graph *g);
TVM_API char *tvm_graph_str(const tvm_graph *g);

#ifdef __cplusplus
}
#endif
#endif /* TVM_GRAPH_H */
