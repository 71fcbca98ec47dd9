/*
 * tvm/schedule.h - schedules: one stage per operation, and the primitives
 * that transform its loop nest without changing what it computes.
 *
 * Every primitive returns TVM_OK or an error code with a diagnostic naming
 * the stage and the axis (e.g. splitting an axis that is no longer a leaf).
 * A schedule is heap-allocated (its nodes live in the tvm_ctx it was
 * created with) and freed with tvm_schedule_free.
 */
#ifndef TVM_SCHEDULE_H
#define TVM_SCHEDULE_H

#include "tvm/te.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tvm_attach_kind {
  TVM_ATTACH_ROOT,   /* its own loop nest at the top level */
  TVM_ATTACH_INLINE, /* substituted into its consumers */
  TVM_ATTACH_SCOPE   /* compute_at: nested under another stage's axis */
} tvm_attach_kind;

typedef enum tvm_rel_kind {
  TVM_REL_SPLIT, /* parent -> outer * factor + inner (shift_tail: see
                  * tvm_split_shift_tail) */
  TVM_REL_FUSE,  /* outer, inner -> fused */
  TVM_REL_REBASE /* parent -> rebased (min 0), made by bound inference */
} tvm_rel_kind;

typedef struct tvm_iv_relation {
  tvm_rel_kind kind;
  tvm_iter_var *parent, *outer, *inner, *fused, *rebased;
  tvm_expr *factor; /* split: inner extent, or NULL when nparts given */
  tvm_expr *nparts; /* split: outer extent, or NULL when factor given */
  int shift_tail;   /* split by factor: the last tile ends at the extent's
                     * end (tvm_split_shift_tail) */
} tvm_iv_relation;

typedef struct tvm_pragma {
  const char *key;
  tvm_expr *value;
} tvm_pragma_kv;

/* Per-axis annotations. */
typedef struct tvm_iv_attr {
  tvm_for_kind for_kind;           /* serial unless annotated */
  tvm_iter_var *bind_thread;       /* bind() target, or NULL */
  tvm_tensor_intrin *tensorize;    /* tensorize() here, or NULL */
  tvm_pragma_kv *pragmas;
  int npragmas;
  int align_factor, align_offset;  /* storage_align (0 = none) */
} tvm_iv_attr;

typedef struct tvm_stage tvm_stage;
struct tvm_stage {
  tvm_operation *op;        /* current operation (after cache/rfactor) */
  tvm_operation *origin_op; /* the one the user declared */
  tvm_ptrvec all_iter_vars; /* tvm_iter_var* */
  tvm_ptrvec leaf_iter_vars;
  tvm_ptrvec relations;     /* tvm_iv_relation* */
  tvm_ptrmap iv_attrs;      /* tvm_iter_var* -> tvm_iv_attr* */
  tvm_attach_kind attach;
  tvm_stage *attach_stage;
  tvm_iter_var *attach_ivar;
  const char *scope;        /* memory scope of its output */
  int double_buffer;
  int is_output;
  tvm_ctx *ctx;             /* the schedule's ctx: where primitives
                               allocate new axes, relations, attributes */
};

typedef struct tvm_schedule {
  tvm_ctx *ctx;
  tvm_ptrvec outputs; /* tvm_operation* */
  tvm_ptrvec stages;  /* tvm_stage*, producers before consumers */
  tvm_ptrmap stage_of; /* tvm_operation* -> tvm_stage* */
} tvm_schedule;

/* Builds a schedule over every operation reachable from outs. */
TVM_API tvm_status tvm_schedule_create(tvm_ctx *c, tvm_tensor **outs, int n,
                                       tvm_schedule **out);
TVM_API void tvm_schedule_free(tvm_schedule *s);
/* The stage computing t, or NULL. */
TVM_API tvm_stage *tvm_stage_of(tvm_schedule *s, const tvm_tensor *t);
/* The i-th data-parallel (resp. reduce) axis of the stage's current
 * operation, st->op->axis[i] (resp. st->op->reduce_axis[i]): a root axis,
 * which stays usable by primitives for as long as it is still a leaf. */
TVM_API tvm_iter_var *tvm_stage_axis(tvm_stage *st, int i);
TVM_API tvm_iter_var *tvm_stage_reduce_axis(tvm_stage *st, int i);
/* The plugin's view of a stage (tvm_stage's fields are not part of the
 * plugin contract, see WRITING_A_PLUGIN.md): its current operation (after
 * cache_read/write and rfactor), and how many data-parallel and reduce
 * root axes tvm_stage_axis/tvm_stage_reduce_axis accept (0 for NULL or a
 * placeholder). */
TVM_API tvm_operation *tvm_stage_op(const tvm_stage *st);
TVM_API int tvm_stage_num_axes(const tvm_stage *st);
TVM_API int tvm_stage_num_reduce_axes(const tvm_stage *st);

/* Loop structure. */
TVM_API tvm_status tvm_split(tvm_stage *st, tvm_iter_var *iv, int64_t factor,
                             tvm_iter_var **outer, tvm_iter_var **inner);
TVM_API tvm_status tvm_split_nparts(tvm_stage *st, tvm_iter_var *iv,
                                    int64_t nparts, tvm_iter_var **outer,
                                    tvm_iter_var **inner);
/* tvm_split by a factor that need not divide the extent E, without a
 * partial last tile: the last tile is moved back to end at E,
 *
 *   iv = min(outer * factor, E - factor) + inner,
 *
 * overlapping the tile before it.  Each element is still stored once:
 * the stage's body is guarded by iv >= outer * factor (the overlapped
 * elements belong to the tile before), but stages computed at or inside
 * the tile (compute_at) compute the whole shifted region, every element
 * of it inside their domain, so that they need no guard (a register
 * block of a convolution over 49 pixels in blocks of 13: the fourth
 * computes pixels 36-48 and stores 39-48).  Data-parallel axes only.
 * Where E is not a constant of at least factor at lowering, it lowers
 * as tvm_split. */
TVM_API tvm_status tvm_split_shift_tail(tvm_stage *st, tvm_iter_var *iv,
                                        int64_t factor, tvm_iter_var **outer,
                                        tvm_iter_var **inner);
TVM_API tvm_status tvm_tile(tvm_stage *st, tvm_iter_var *x, tvm_iter_var *y,
                            int64_t xf, int64_t yf, tvm_iter_var **xo,
                            tvm_iter_var **yo, tvm_iter_var **xi,
                            tvm_iter_var **yi);
/* Fuses two adjacent leaf axes (outer immediately before inner). */
TVM_API tvm_status tvm_fuse(tvm_stage *st, tvm_iter_var *outer,
                            tvm_iter_var *inner, tvm_iter_var **fused);
/* Orders the given leaf axes as listed (the others keep their places). */
TVM_API tvm_status tvm_reorder(tvm_stage *st, tvm_iter_var **ivs, int n);

/* Placement. */
TVM_API tvm_status tvm_compute_at(tvm_stage *st, tvm_stage *parent,
                                  tvm_iter_var *iv);
TVM_API tvm_status tvm_compute_inline(tvm_stage *st);
TVM_API tvm_status tvm_compute_root(tvm_stage *st);

/* Annotations. */
TVM_API tvm_status tvm_bind(tvm_stage *st, tvm_iter_var *iv,
                            tvm_iter_var *thread);
TVM_API tvm_status tvm_vectorize(tvm_stage *st, tvm_iter_var *iv);
TVM_API tvm_status tvm_unroll(tvm_stage *st, tvm_iter_var *iv);
TVM_API tvm_status tvm_parallel(tvm_stage *st, tvm_iter_var *iv);
TVM_API tvm_status tvm_pragma(tvm_stage *st, tvm_iter_var *iv,
                              const char *key, tvm_expr *value);
TVM_API tvm_status tvm_storage_align(tvm_stage *st, tvm_iter_var *iv,
                                     int factor, int offset);
/* Two copies of st's buffer, alternating between the iterations of the
 * loop st is attached in (compute_at inside a sequential loop, e.g. the
 * consumer's reduction loop): iteration v fills the copy v + 1 reads, so
 * the fetch needs no barrier against this iteration's reads.  Lowering
 * (inject_double_buffer) refuses a stage it cannot pipeline, saying why. */
TVM_API tvm_status tvm_double_buffer(tvm_stage *st);
TVM_API tvm_status tvm_tensorize(tvm_stage *st, tvm_iter_var *iv,
                                 tvm_tensor_intrin *intrin);

/* Dataflow rewrites: return the new tensor; its stage is in the schedule. */
/* A copy of t in `scope` read by `readers` instead of t. */
TVM_API tvm_status tvm_cache_read(tvm_schedule *s, tvm_tensor *t,
                                  const char *scope, tvm_operation **readers,
                                  int nreaders, tvm_tensor **out);
/* t is computed into a `scope` buffer, then copied out; the returned
 * tensor is the cache stage (where the computation now lives). */
TVM_API tvm_status tvm_cache_write(tvm_schedule *s, tvm_tensor *t,
                                   const char *scope, tvm_tensor **out);
/* Factors the reduction axis iv of t out into a new data-parallel axis at
 * position factor_axis of the returned tensor; t becomes a reduction over
 * that axis. */
TVM_API tvm_status tvm_rfactor(tvm_schedule *s, tvm_tensor *t,
                               tvm_iter_var *iv, int factor_axis,
                               tvm_tensor **out);

/* Annotation of an axis, created on demand (NULL on OOM). */
TVM_API tvm_iv_attr *tvm_stage_iv_attr(tvm_stage *st, tvm_iter_var *iv);

/* Human-readable dump of the schedule (stages, leaf axes, attachments). */
TVM_API void tvm_print_schedule(tvm_strbuf *out, const tvm_schedule *s);

#ifdef __cplusplus
}
#endif
#endif /* TVM_SCHEDULE_H */
