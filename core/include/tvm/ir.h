/*
 * tvm/ir.h - the loop-level IR (TIR): data types, expressions, statements,
 * functions and modules, plus visitors, mutators, the printer and the
 * arithmetic simplifier.
 *
 * Ownership: every node lives in the arena of a tvm_ctx and dies with it.
 * Nodes are immutable once built; a pass builds new nodes (sharing the
 * unchanged ones) instead of editing in place.  Variables are identified by
 * pointer: two tvm_expr of kind TVM_VAR are the same variable iff they are
 * the same pointer.
 *
 * Out of memory: constructors return NULL and set ctx->failed; a NULL
 * child makes a constructor return NULL too, so a whole pass can check
 * tvm_ctx_status() once at the end.
 */
#ifndef TVM_IR_H
#define TVM_IR_H

#include <dlpack/dlpack.h>
#include "tvm/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- context ---------------------------------------------------------- */
typedef struct tvm_ctx {
  tvm_arena *arena;
  uint32_t next_id; /* unique ids for variables, used by the printer */
  int failed;       /* sticky: an allocation failed */
} tvm_ctx;

TVM_API tvm_ctx *tvm_ctx_create(void);
TVM_API void tvm_ctx_destroy(tvm_ctx *c);
/* Arena allocation; sets c->failed on failure. */
TVM_API void *tvm_ctx_alloc(tvm_ctx *c, size_t n);
TVM_API char *tvm_ctx_strdup(tvm_ctx *c, const char *s);
/* TVM_OK, or TVM_ERR_NOMEM with a diagnostic if an allocation failed. */
TVM_API tvm_status tvm_ctx_status(tvm_ctx *c);

/* ---- data types (DLPack's DLDataType) ---------------------------------- */
typedef DLDataType tvm_dtype;
/* code: kDLInt, kDLUInt, kDLFloat, kDLBfloat, and TVM_DTYPE_HANDLE (an
 * opaque pointer, bits 64) for buffer variables. */
enum { TVM_DTYPE_HANDLE = 3 /* == kDLOpaqueHandle */ };

static inline tvm_dtype tvm_dt(uint8_t code, uint8_t bits, uint16_t lanes) {
  tvm_dtype t;
  t.code = code;
  t.bits = bits;
  t.lanes = lanes;
  return t;
}
#define TVM_F32 tvm_dt(kDLFloat, 32, 1)
#define TVM_F64 tvm_dt(kDLFloat, 64, 1)
#define TVM_F16 tvm_dt(kDLFloat, 16, 1)
#define TVM_I8 tvm_dt(kDLInt, 8, 1)
#define TVM_I16 tvm_dt(kDLInt, 16, 1)
#define TVM_I32 tvm_dt(kDLInt, 32, 1)
#define TVM_I64 tvm_dt(kDLInt, 64, 1)
#define TVM_U8 tvm_dt(kDLUInt, 8, 1)
#define TVM_U32 tvm_dt(kDLUInt, 32, 1)
#define TVM_BOOL tvm_dt(kDLUInt, 1, 1)
#define TVM_HANDLE tvm_dt(TVM_DTYPE_HANDLE, 64, 1)

TVM_API int tvm_dtype_eq(tvm_dtype a, tvm_dtype b);
TVM_API int tvm_dtype_is_float(tvm_dtype t);
TVM_API int tvm_dtype_is_int(tvm_dtype t);  /* signed or unsigned, not bool */
TVM_API int tvm_dtype_is_uint(tvm_dtype t);
TVM_API int tvm_dtype_is_bool(tvm_dtype t);
TVM_API int tvm_dtype_is_handle(tvm_dtype t);
TVM_API tvm_dtype tvm_dtype_with_lanes(tvm_dtype t, int lanes);
TVM_API tvm_dtype tvm_dtype_element(tvm_dtype t); /* lanes = 1 */
/* Size of one element (all lanes) in bytes, rounded up. */
TVM_API int tvm_dtype_bytes(tvm_dtype t);
/* "float32", "int8x16", "handle", "bool". */
TVM_API const char *tvm_dtype_str(tvm_dtype t, char buf[32]);
/* Parses the names above; TVM_ERR_INVALID on unknown names. */
TVM_API tvm_status tvm_dtype_parse(const char *s, tvm_dtype *out);

/* ---- expressions ------------------------------------------------------ */
typedef enum tvm_expr_kind {
  TVM_INT,   /* integer or bool constant: ival */
  TVM_FLOAT, /* floating constant: fval */
  TVM_STR,   /* string immediate (call arguments only): str */
  TVM_VAR,   /* variable: var */
  /* binary arithmetic: bin.  DIV and MOD truncate for integers (C
   * semantics); FLOORDIV/FLOORMOD round toward minus infinity and are what
   * index arithmetic uses.  DIV on floats is true division. */
  TVM_ADD, TVM_SUB, TVM_MUL, TVM_DIV, TVM_MOD, TVM_FLOORDIV, TVM_FLOORMOD,
  TVM_MIN, TVM_MAX,
  /* comparisons (result bool, lanes follow operands): bin */
  TVM_EQ, TVM_NE, TVM_LT, TVM_LE, TVM_GT, TVM_GE,
  /* logic on bools: bin (AND, OR), un (NOT) */
  TVM_AND, TVM_OR, TVM_NOT,
  TVM_SELECT,    /* sel: cond ? t : f, both sides evaluated */
  TVM_CAST,      /* un: value converted to dtype */
  TVM_CALL,      /* call: intrinsic or extern function */
  TVM_LOAD,      /* load: buffer[index] (flat, after storage_flatten) */
  TVM_RAMP,      /* ramp: base + i*stride for i in [0, lanes) */
  TVM_BROADCAST, /* bcast: value repeated lanes times */
  TVM_LET,       /* let: var = value in body */
  TVM_TREAD,     /* tread: tensor[indices] (tensor expressions, pre-flatten) */
  TVM_REDUCE,    /* reduce: commutative reduction over axes (TE only) */
  TVM_EXPR_KIND_COUNT
} tvm_expr_kind;

/* Intrinsic calls.  Math intrinsics follow C's libm semantics. */
typedef enum tvm_intrin {
  TVM_INTRIN_EXTERN = 0, /* call.name is a C-ABI function */
  TVM_INTRIN_EXP, TVM_INTRIN_LOG, TVM_INTRIN_SQRT, TVM_INTRIN_RSQRT,
  TVM_INTRIN_TANH, TVM_INTRIN_SIGMOID, TVM_INTRIN_ERF, TVM_INTRIN_POW,
  TVM_INTRIN_FABS, TVM_INTRIN_FLOOR, TVM_INTRIN_CEIL, TVM_INTRIN_ROUND,
  TVM_INTRIN_TRUNC, TVM_INTRIN_FMA, TVM_INTRIN_SIN, TVM_INTRIN_COS,
  TVM_INTRIN_ISNAN,
  /* bit operations on integers */
  TVM_INTRIN_SHL, TVM_INTRIN_SHR, TVM_INTRIN_BITAND, TVM_INTRIN_BITOR,
  TVM_INTRIN_BITXOR,
  /* builtins */
  TVM_INTRIN_LIKELY,      /* likely(cond): a branch hint */
  TVM_INTRIN_REINTERPRET, /* bit cast to dtype */
  /* access_ptr(buffer_var, elem_dtype_str, offset, extent, rw_mask):
   * a pointer to buffer_var[offset ...] passed to tensor intrinsics;
   * rw_mask 1 = read, 2 = write, 3 = both. */
  TVM_INTRIN_ACCESS_PTR,
  /* dependency tokens between hardware queues (decoupled access-execute):
   * dep_push(from_queue, to_queue) / dep_pop(from_queue, to_queue). */
  TVM_INTRIN_DEP_PUSH, TVM_INTRIN_DEP_POP,
  /* launch(kernel_name_str, grid_x, grid_y, grid_z, block_x, block_y,
   * block_z, shared_bytes, args...): the host starts device function
   * kernel_name on a grid of blocks of threads (extents are int
   * expressions the host evaluates; shared_bytes: block-shared memory the
   * kernel allocates) with args (buffer handles and scalars, in the
   * kernel's parameter order).  Made by split_host_device; build with
   * tvm_launch, check with tvm_launch_verify (tvm/lower.h). */
  TVM_INTRIN_LAUNCH,
  TVM_INTRIN_COUNT
} tvm_intrin;

typedef struct tvm_expr tvm_expr;
typedef struct tvm_stmt tvm_stmt;
struct tvm_tensor;   /* te.h */
struct tvm_iter_var; /* te.h */

typedef enum tvm_reduce_op { TVM_REDUCE_SUM, TVM_REDUCE_MAX, TVM_REDUCE_MIN,
                             TVM_REDUCE_PROD } tvm_reduce_op;

struct tvm_expr {
  tvm_expr_kind kind;
  tvm_dtype dtype;
  union {
    int64_t ival;
    double fval;
    const char *str;
    struct { const char *name; uint32_t id; } var;
    struct { tvm_expr *a, *b; } bin;
    struct { tvm_expr *a; } un;
    struct { tvm_expr *cond, *t, *f; } sel;
    struct {
      tvm_intrin op;
      const char *name; /* extern name; for intrinsics, their printed name */
      tvm_expr **args;
      int nargs;
    } call;
    struct {
      tvm_expr *buffer; /* TVM_VAR of dtype handle */
      tvm_expr *index;  /* element index; a ramp for vector loads */
      tvm_expr *pred;   /* NULL = all lanes */
    } load;
    struct { tvm_expr *base, *stride; int lanes; } ramp;
    struct { tvm_expr *value; int lanes; } bcast;
    struct { tvm_expr *var, *value, *body; } let;
    struct {
      struct tvm_tensor *tensor;
      tvm_expr **indices;
      int n;
    } tread;
    struct {
      tvm_reduce_op op;
      tvm_expr *source;
      struct tvm_iter_var **axes;
      int naxes;
      tvm_expr *cond; /* NULL = always */
    } reduce;
  } u;
};

/* Constructors.  Binary constructors unify operand types: a constant of
 * one type meeting another type is converted, a scalar meeting a vector is
 * broadcast; other mismatches set ctx->failed and return NULL (a bug in
 * the caller, reported in the diagnostic). */
TVM_API tvm_expr *tvm_const(tvm_ctx *c, tvm_dtype t, int64_t v);
TVM_API tvm_expr *tvm_fconst(tvm_ctx *c, tvm_dtype t, double v);
TVM_API tvm_expr *tvm_int(tvm_ctx *c, int64_t v); /* int32 */
TVM_API tvm_expr *tvm_f32(tvm_ctx *c, double v);
TVM_API tvm_expr *tvm_str(tvm_ctx *c, const char *s);
TVM_API tvm_expr *tvm_var(tvm_ctx *c, const char *name, tvm_dtype t);
TVM_API tvm_expr *tvm_binary(tvm_ctx *c, tvm_expr_kind k, tvm_expr *a,
                             tvm_expr *b);
TVM_API tvm_expr *tvm_add(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_sub(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_mul(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_div(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_mod(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_floordiv(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_floormod(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_min(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_max(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_eq(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_ne(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_lt(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_le(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_gt(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_ge(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_and(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_or(tvm_ctx *c, tvm_expr *a, tvm_expr *b);
TVM_API tvm_expr *tvm_not(tvm_ctx *c, tvm_expr *a);
TVM_API tvm_expr *tvm_select(tvm_ctx *c, tvm_expr *cond, tvm_expr *t,
                             tvm_expr *f);
TVM_API tvm_expr *tvm_cast(tvm_ctx *c, tvm_dtype t, tvm_expr *v);
/* A call of a math intrinsic or builtin; dtype is the result type. */
TVM_API tvm_expr *tvm_call(tvm_ctx *c, tvm_dtype t, tvm_intrin op,
                           tvm_expr **args, int nargs);
TVM_API tvm_expr *tvm_call_extern(tvm_ctx *c, tvm_dtype t, const char *name,
                                  tvm_expr **args, int nargs);
/* Unary math helper: tvm_call(c, v->dtype, op, &v, 1). */
TVM_API tvm_expr *tvm_math(tvm_ctx *c, tvm_intrin op, tvm_expr *v);
TVM_API tvm_expr *tvm_load(tvm_ctx *c, tvm_dtype t, tvm_expr *buffer,
                           tvm_expr *index, tvm_expr *pred);
TVM_API tvm_expr *tvm_ramp(tvm_ctx *c, tvm_expr *base, tvm_expr *stride,
                           int lanes);
TVM_API tvm_expr *tvm_broadcast(tvm_ctx *c, tvm_expr *v, int lanes);
TVM_API tvm_expr *tvm_let(tvm_ctx *c, tvm_expr *var, tvm_expr *value,
                          tvm_expr *body);
TVM_API tvm_expr *tvm_tread(tvm_ctx *c, struct tvm_tensor *t,
                            tvm_expr **indices, int n);

/* Predicates on expressions. */
TVM_API int tvm_is_const_int(const tvm_expr *e, int64_t *v); /* scalar */
TVM_API int tvm_is_zero(const tvm_expr *e);
TVM_API int tvm_is_one(const tvm_expr *e);
/* Structural equality (variables by pointer). */
TVM_API int tvm_expr_equal(const tvm_expr *a, const tvm_expr *b);
/* Name of an expression kind or intrinsic ("add", "exp"). */
TVM_API const char *tvm_expr_kind_name(tvm_expr_kind k);
TVM_API const char *tvm_intrin_name(tvm_intrin op);

/* ---- statements --------------------------------------------------------- */
typedef enum tvm_stmt_kind {
  TVM_FOR,      /* for_: loop */
  TVM_SEQ,      /* seq: statements in order */
  TVM_IF,       /* if_: then / optional else */
  TVM_LET_STMT, /* let: var = value in body */
  TVM_STORE,    /* store: buffer[index] = value (flat) */
  TVM_ALLOCATE, /* alloc: a buffer of extent elements in a memory scope */
  TVM_ATTR,     /* attr: annotation over body (pragmas, scopes, tokens) */
  TVM_EVALUATE, /* eval: an expression for its effect (a call) */
  TVM_BARRIER,  /* barrier: synchronize threads of a memory scope */
  TVM_ASSERT,   /* assert_: check cond at run time, else fail with msg */
  TVM_PROVIDE,  /* provide: tensor[indices] = value (pre-flatten) */
  TVM_REALIZE,  /* realize: storage for a tensor region (pre-flatten) */
  TVM_STMT_KIND_COUNT
} tvm_stmt_kind;

typedef enum tvm_for_kind {
  TVM_FOR_SERIAL,
  TVM_FOR_PARALLEL,   /* iterations run on the runtime's thread pool */
  TVM_FOR_VECTORIZED, /* becomes vector lanes */
  TVM_FOR_UNROLLED,   /* fully unrolled */
  TVM_FOR_THREAD,     /* bound to a hardware thread axis (thread_tag) */
  TVM_FOR_VTHREAD     /* virtual thread, removed by inject_virtual_thread */
} tvm_for_kind;

typedef struct tvm_range { tvm_expr *min, *extent; } tvm_range;

struct tvm_stmt {
  tvm_stmt_kind kind;
  union {
    struct {
      tvm_expr *var, *min, *extent;
      tvm_for_kind for_kind;
      const char *thread_tag; /* "blockIdx.x", "threadIdx.y", "vthread" */
      tvm_stmt *body;
    } for_;
    struct { tvm_stmt **stmts; int n; } seq;
    struct { tvm_expr *cond; tvm_stmt *then_, *else_; } if_;
    struct { tvm_expr *var, *value; tvm_stmt *body; } let;
    struct { tvm_expr *buffer, *index, *value, *pred; } store;
    struct {
      tvm_expr *buffer; /* the handle variable it defines */
      tvm_dtype dtype;  /* element type */
      tvm_expr *extent; /* number of elements */
      const char *scope; /* "global", "local", "shared", or a plugin's */
      int64_t align;     /* bytes; 0 = default */
      tvm_stmt *body;
    } alloc;
    struct {
      const char *key;
      void *node;      /* what it annotates: a var, tensor, iter var, ... */
      tvm_expr *value;
      tvm_stmt *body;
    } attr;
    struct { tvm_expr *value; } eval;
    struct { const char *scope; } barrier;
    struct { tvm_expr *cond; const char *msg; tvm_stmt *body; } assert_;
    struct {
      struct tvm_tensor *tensor;
      tvm_expr **indices;
      int n;
      tvm_expr *value;
    } provide;
    struct {
      struct tvm_tensor *tensor;
      tvm_range *bounds; /* one per dimension */
      int n;
      const char *scope;
      tvm_stmt *body;
    } realize;
  } u;
};

/* Well-known attribute keys. */
#define TVM_ATTR_PRAGMA_PREFIX "pragma_"       /* node: iter var; value */
#define TVM_ATTR_STORAGE_SCOPE "storage_scope" /* node: buffer var */
#define TVM_ATTR_DOUBLE_BUFFER "double_buffer_scope"
#define TVM_ATTR_STORAGE_ALIGN "storage_align"
/* Statements under coproc_scope run on hardware queue `value` (DAE). */
#define TVM_ATTR_COPROC_SCOPE "coproc_scope"
#define TVM_ATTR_TENSORIZE "tensorize_scope"
/* value = number of virtual threads it was replicated from */
#define TVM_ATTR_VTHREAD "virtual_thread"

TVM_API tvm_stmt *tvm_for(tvm_ctx *c, tvm_expr *var, tvm_expr *min,
                          tvm_expr *extent, tvm_for_kind kind,
                          const char *thread_tag, tvm_stmt *body);
TVM_API tvm_stmt *tvm_seq(tvm_ctx *c, tvm_stmt **stmts, int n);
/* Flattens nested sequences and drops NULL entries; one stmt -> itself. */
TVM_API tvm_stmt *tvm_seq2(tvm_ctx *c, tvm_stmt *a, tvm_stmt *b);
TVM_API tvm_stmt *tvm_if(tvm_ctx *c, tvm_expr *cond, tvm_stmt *then_,
                         tvm_stmt *else_);
TVM_API tvm_stmt *tvm_let_stmt(tvm_ctx *c, tvm_expr *var, tvm_expr *value,
                               tvm_stmt *body);
TVM_API tvm_stmt *tvm_store(tvm_ctx *c, tvm_expr *buffer, tvm_expr *index,
                            tvm_expr *value, tvm_expr *pred);
TVM_API tvm_stmt *tvm_allocate(tvm_ctx *c, tvm_expr *buffer, tvm_dtype t,
                               tvm_expr *extent, const char *scope,
                               tvm_stmt *body);
TVM_API tvm_stmt *tvm_attr(tvm_ctx *c, const char *key, void *node,
                           tvm_expr *value, tvm_stmt *body);
TVM_API tvm_stmt *tvm_evaluate(tvm_ctx *c, tvm_expr *v);
TVM_API tvm_stmt *tvm_barrier(tvm_ctx *c, const char *scope);
TVM_API tvm_stmt *tvm_assert(tvm_ctx *c, tvm_expr *cond, const char *msg,
                             tvm_stmt *body);
TVM_API tvm_stmt *tvm_provide(tvm_ctx *c, struct tvm_tensor *t,
                              tvm_expr **indices, int n, tvm_expr *value);
TVM_API tvm_stmt *tvm_realize(tvm_ctx *c, struct tvm_tensor *t,
                              tvm_range *bounds, int n, const char *scope,
                              tvm_stmt *body);
TVM_API const char *tvm_stmt_kind_name(tvm_stmt_kind k);
TVM_API const char *tvm_for_kind_name(tvm_for_kind k);

/* ---- buffers, functions, modules ------------------------------------------ */
/* A buffer is a typed, shaped view of memory behind a handle variable. */
typedef struct tvm_buffer {
  const char *name;
  tvm_expr *data; /* TVM_VAR, dtype handle */
  tvm_dtype dtype;
  int ndim;
  tvm_expr **shape;
  tvm_expr **strides; /* NULL = compact row-major */
  tvm_expr *elem_offset; /* NULL = 0 */
  const char *scope;     /* "global" unless said otherwise */
} tvm_buffer;

TVM_API tvm_buffer *tvm_buffer_new(tvm_ctx *c, const char *name, tvm_dtype t,
                                   tvm_expr **shape, int ndim,
                                   const char *scope);

typedef enum tvm_func_kind {
  TVM_FUNC_HOST,  /* runs on the host CPU */
  TVM_FUNC_DEVICE /* a kernel launched on a device (thread axes bound) */
} tvm_func_kind;

/* A lowered function.  Parameters are variables: handle variables for
 * buffers (buffers[i] describes them) or scalars (buffers[i] == NULL). */
typedef struct tvm_func {
  const char *name;
  tvm_func_kind kind;
  int nparams;
  tvm_expr **params;
  tvm_buffer **buffers;
  tvm_stmt *body;
  /* For device kernels: the launch extents of each bound thread axis, in
   * the order they were found (tags like "blockIdx.x"). */
  int nthread_axes;
  const char **thread_tags;
  tvm_expr **thread_extents;
} tvm_func;

typedef struct tvm_module {
  tvm_ctx *ctx;
  tvm_func **funcs;
  int nfuncs;
} tvm_module;

TVM_API tvm_func *tvm_func_new(tvm_ctx *c, const char *name, tvm_expr **params,
                               tvm_buffer **buffers, int nparams,
                               tvm_stmt *body);
TVM_API tvm_status tvm_module_add(tvm_module *m, tvm_func *f);

/* ---- visitors and mutators ------------------------------------------------ */
/* Visitor: the hooks see every node before its children; a hook returns 1
 * to say "handled, do not descend", 0 to descend.  Either hook may be
 * NULL; without an expr hook no expression is walked (none holds a
 * statement), so a statement-only walk costs the statements only. */
typedef struct tvm_visitor tvm_visitor;
struct tvm_visitor {
  int (*expr)(tvm_visitor *v, const tvm_expr *e);
  int (*stmt)(tvm_visitor *v, const tvm_stmt *s);
  void *data;
};
TVM_API void tvm_visit_expr(tvm_visitor *v, const tvm_expr *e);
TVM_API void tvm_visit_stmt(tvm_visitor *v, const tvm_stmt *s);
/* Visit only the children of a node (for hooks that want to descend
 * after doing something). */
TVM_API void tvm_visit_expr_children(tvm_visitor *v, const tvm_expr *e);
TVM_API void tvm_visit_stmt_children(tvm_visitor *v, const tvm_stmt *s);

/* Mutator: a hook returns the replacement for a node, or NULL to get the
 * default (children mutated, node rebuilt only if a child changed).  Hooks
 * call tvm_mutate_*_children themselves to rewrite bottom-up. */
typedef struct tvm_mutator tvm_mutator;
struct tvm_mutator {
  tvm_ctx *ctx;
  tvm_expr *(*expr)(tvm_mutator *m, tvm_expr *e);
  tvm_stmt *(*stmt)(tvm_mutator *m, tvm_stmt *s);
  void *data;
};
TVM_API tvm_expr *tvm_mutate_expr(tvm_mutator *m, tvm_expr *e);
TVM_API tvm_stmt *tvm_mutate_stmt(tvm_mutator *m, tvm_stmt *s);
TVM_API tvm_expr *tvm_mutate_expr_children(tvm_mutator *m, tvm_expr *e);
TVM_API tvm_stmt *tvm_mutate_stmt_children(tvm_mutator *m, tvm_stmt *s);

/* Substitution of variables (map: var pointer -> tvm_expr*). */
TVM_API tvm_expr *tvm_substitute(tvm_ctx *c, tvm_expr *e, const tvm_ptrmap *map);
TVM_API tvm_stmt *tvm_substitute_stmt(tvm_ctx *c, tvm_stmt *s,
                                      const tvm_ptrmap *map);
/* Is e a function of variables only (no memory reads, calls or
 * reductions), so that its value is the same wherever it is evaluated? */
TVM_API int tvm_expr_is_pure(const tvm_expr *e);
/* Does e (or s) use variable v? */
TVM_API int tvm_expr_uses_var(const tvm_expr *e, const tvm_expr *v);
TVM_API int tvm_stmt_uses_var(const tvm_stmt *s, const tvm_expr *v);

/* ---- printer ----------------------------------------------------------------- */
/* Text form used by tests and --dump-ir; variables print as name (and
 * name_id when two distinct variables share a name within one print). */
TVM_API void tvm_print_expr(tvm_strbuf *out, const tvm_expr *e);
TVM_API void tvm_print_stmt(tvm_strbuf *out, const tvm_stmt *s, int indent);
TVM_API void tvm_print_func(tvm_strbuf *out, const tvm_func *f);
TVM_API void tvm_print_module(tvm_strbuf *out, const tvm_module *m);
/* Heap strings (free with tvm_free); NULL on OOM. */
TVM_API char *tvm_expr_str(const tvm_expr *e);
TVM_API char *tvm_stmt_str(const tvm_stmt *s);

/* ---- arithmetic ----------------------------------------------------------------- */
/* Known ranges of variables: var pointer -> tvm_range* (min, extent). */
typedef struct tvm_bounds {
  tvm_ptrmap map;
} tvm_bounds;
TVM_API tvm_status tvm_bounds_set(tvm_bounds *b, tvm_expr *var, tvm_range *r);
TVM_API void tvm_bounds_free(tvm_bounds *b);

/* Simplify an integer or float expression: constant folding, canonical
 * affine form (sum of coefficient * term + constant), cancellation, and
 * floordiv/floormod of affine expressions whose ranges are known (e.g.
 * floordiv(i*8 + j, 8) -> i when 0 <= j < 8).  bounds may be NULL. */
TVM_API tvm_expr *tvm_simplify(tvm_ctx *c, tvm_expr *e, const tvm_bounds *b);
/* Simplify every expression of a statement, using loop ranges as bounds;
 * removes loops of extent 1, folds if(const), drops no-op statements. */
TVM_API tvm_stmt *tvm_simplify_stmt(tvm_ctx *c, tvm_stmt *s,
                                    const tvm_bounds *b);
/* Constant integer bounds of e: returns 1 and sets *lo, *hi (inclusive)
 * when both are finite. */
TVM_API int tvm_const_bounds(tvm_ctx *c, const tvm_expr *e,
                             const tvm_bounds *b, int64_t *lo, int64_t *hi);
/* 1 if cond is provably true under the bounds, 0 if unknown or false. */
TVM_API int tvm_prove(tvm_ctx *c, tvm_expr *cond, const tvm_bounds *b);
/* Symbolic range of e given ranges of its variables (interval analysis),
 * used by bound inference: the result's min and extent are simplified.
 * Each variable with a range in b is relaxed to that range once (variables
 * inside the range expressions stay symbolic); exact for affine e.  Both
 * fields are NULL when the range is unbounded (e.g. x*j with x free). */
TVM_API tvm_range tvm_eval_range(tvm_ctx *c, tvm_expr *e, const tvm_bounds *b);

#ifdef __cplusplus
}
#endif
#endif /* TVM_IR_H */
