/*
 * tvm/codegen_c.h - device functions of loop IR to C-dialect source, for
 * GPU plugins whose kernel language is a C dialect (CUDA C, OpenCL C).
 *
 * One emitter lives in the core (core/codegen/c_source.c); a plugin
 * describes its dialect with a tvm_c_dialect table: the kernel qualifier,
 * launch-bound spelling, thread index expressions per thread tag, the
 * qualifier of each memory scope, the barrier, type names, vector load and
 * store spelling and math function naming.  The emitter turns every
 * TVM_FUNC_DEVICE function of a module into one kernel:
 *
 *  - thread-bound loops become `var = <index expression>` with a guard
 *    when the loop's extent is smaller than the kernel's launch extent;
 *  - allocations take their scope's qualifier (`__shared__`, `__local`);
 *  - vector stores of stride-1 ramps become one vector store (float4,
 *    vstore4) with vector loads of stride-1 ramps hoisted into vector
 *    temporaries; lanes are computed one by one from those temporaries
 *    (where the dialect needs it, the base must be provably a multiple of
 *    the lane count; otherwise loads and stores go lane by lane);
 *  - a plain copy of a vector of an element type with no vector spelling
 *    (float16 in CUDA C) becomes one access of a bit-copy type of its size
 *    (uint4) where aligned, lane by lane otherwise (copy_types below);
 *  - integer floordiv/floormod become C division when both sides are
 *    provably non-negative, else calls of helpers in the prelude.
 *
 *  - a scope may be a fragment scope (tvm_c_scope.fragment_fmt): its
 *    buffers are declared as arrays of an opaque per-warp type (CUDA's
 *    nvcuda::wmma::fragment), one element per fragment_elems elements of
 *    the buffer; they may only be reached through access_ptr, which
 *    becomes `&buf[offset / fragment_elems]` (the offset must provably be
 *    a multiple), never by plain loads or stores;
 *  - access_ptr(data, dtype, offset, extent, rw) of other buffers becomes
 *    `(&buf[offset])`;
 *  - extern calls (TVM_INTRIN_EXTERN) become `name(args)` when the
 *    dialect lists the name in extern_names (its extern_prelude, emitted
 *    once when a kernel uses one, defines them).
 *
 * Constructs with no meaning in device code (extern calls the dialect does
 * not list, host asserts, parallel loops, global allocations) are errors
 * that name the kernel.
 *
 * Beside the source, the emitter describes each kernel: its launch
 * extents (constant) and the type of each parameter, which the runtime
 * half needs to pass arguments.  tvm_kpack is the container GPU plugins
 * put in their blobs: named sections of bytes (source, ptx, cubin,
 * signatures).
 */
#ifndef TVM_CODEGEN_C_H
#define TVM_CODEGEN_C_H

#include "tvm/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A memory scope's spelling. */
typedef struct tvm_c_scope {
  const char *name;      /* "shared", "local", "global" */
  const char *qualifier; /* "__shared__", "__local", "" */
  int block_shared;      /* 1: counts toward the kernel's shared bytes */
  /* Alignment in bytes of arrays in this scope (0: 16). */
  int align;
  /* A fragment scope: printf format of the array's element type, taking
   * the buffer's element type name (one %s), e.g.
   * "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, %s,
   * nvcuda::wmma::row_major>"; NULL for ordinary scopes. */
  const char *fragment_fmt;
  int fragment_elems;    /* buffer elements per fragment (256) */
} tvm_c_scope;

/* What distinguishes one C dialect from another. */
typedef struct tvm_c_dialect {
  const char *name;          /* for messages: "cuda", "opencl" */
  const char *prelude;       /* emitted once, at the top of the source */
  const char *half_prelude;  /* emitted when the module uses float16 */
  const char *bf16_prelude;  /* when it uses bfloat16; NULL = unsupported */
  const char *f64_prelude;   /* when it uses float64 (NULL = nothing) */
  const char *bool_storage;  /* element type of bool buffers (NULL: bool) */
  const char *helper_qual;   /* qualifier of prelude helpers */
  /* Kernel head: `<kernel_qual> <bounds> void name(<params>)` */
  const char *kernel_qual;   /* `extern "C" __global__`, `__kernel` */
  /* printf formats of the launch bound: total threads (one %u) or the
   * three block extents (three %u); NULL = none. */
  const char *bounds_total_fmt;
  const char *bounds_xyz_fmt;
  const char *global_ptr_qual; /* "" or "__global" on pointer params */
  const char *restrict_kw;     /* "__restrict__", "restrict" */
  /* Index expressions for blockIdx.x .. z then threadIdx.x .. z. */
  const char *thread_index[6];
  const char *barrier_shared;  /* "__syncthreads();" */
  const char *barrier_global;  /* block barrier also ordering global memory */
  const tvm_c_scope *scopes;
  int nscopes;
  /* Type names: int8, int16, int32, int64 / uint8..uint64 / float16,
   * float32, float64 / bfloat16 (NULL = unsupported); vector type names
   * are the scalar's vector base name followed by the lane count. */
  const char *int_names[4], *int_vec[4];
  const char *uint_names[4], *uint_vec[4];
  const char *float_names[3], *float_vec[3];
  const char *bf16_name;
  /* Vector memory access: printf formats taking (type, pointer expr) for
   * loads and (type, pointer expr, value) for stores; max lanes (2..16);
   * whether the pointer must be aligned to the vector size. */
  const char *vload_fmt;  /* "*(const %s*)(%s)" / "vload%d(0, %s)" */
  const char *vstore_fmt; /* "*(%s*)(%s) = %s;" / "vstore%d(%s, 0, %s);" */
  int vload_uses_lanes;   /* the formats take the lane count, not a type */
  int max_vector_lanes;
  int vector_needs_align;
  /* Math names: float32 functions are `name` + f32_suffix ("expf") and
   * float64 ones plain; half math is native (overloaded) or computed in
   * float32 with casts. */
  const char *f32_suffix;
  int half_math_native;
  const char *fmin_f32, *fmax_f32; /* "fminf" / "fmin" */
  /* Bit casts between float32 and int32: printf formats of one %s. */
  const char *as_int_fmt, *as_float_fmt;
  const char *unroll_pragma;       /* "#pragma unroll" or NULL */
  /* Extern calls device code may make (NULL-terminated; NULL: none), and
   * the source that defines them, emitted once when a kernel uses an
   * extern call or a fragment scope. */
  const char *const *extern_names;
  const char *extern_prelude;
  /* A kernel whose block-shared arrays need more than static_shared_max
   * bytes (0: no such limit) declares one dynamic array instead:
   * dyn_shared_fmt takes its name (one %s), e.g. "extern __shared__
   * __align__(128) unsigned char %s[];", the arrays become pointers into
   * it, and the kernel says dynamic_shared (the launch passes the bytes).
   * NULL: static arrays, whatever their size. */
  const char *dyn_shared_fmt;
  uint64_t static_shared_max;
  /* Warp shuffles for the final combine of a cross-thread reduction
   * (tvm_block_combine): a printf format of a butterfly exchange taking
   * the value (%s) and the lane distance (%d), e.g. "__shfl_xor_sync(
   * 0xffffffffu, %s, %d)", and the warp's lanes.  NULL: the loop stays. */
  const char *shuffle_xor_fmt;
  int warp_size;
  /* Bit cast of a 16-bit integer to bfloat16 (one %s; NULL = none): Cast
   * to bfloat16 before ONNX opset 19 truncates float32 bits with it. */
  const char *as_bf16_fmt;
  /* Bit-copy types, by size: an unsigned type of 4, 8 and 16 bytes
   * ("unsigned int", "uint2", "uint4"; NULL = none).  A vector whose
   * element type has no vector spelling here (float16 and bfloat16 in
   * CUDA C) may still be copied: a vector store whose value is a vector
   * load of the same type, both at stride-1 ramps whose bases are provably
   * multiples of the lane count (so, the buffers being aligned, both
   * addresses are aligned to the vector's size), becomes one access of
   * the type of its size through vload_fmt/vstore_fmt (which must then
   * take type names, vload_uses_lanes 0):
   *   *(uint4*)(&S[b]) = *(const uint4*)(&A[a]);
   * Other copies of such vectors go lane by lane; such vectors in
   * arithmetic are refused. */
  const char *copy_types[3];
} tvm_c_dialect;

/* The final combine of a cross-thread reduction as the core's generic
 * thread schedule writes it (core/compiler/schedule_thread.c): after a
 * barrier every thread of the block folds the T partials of a shared
 * array RF into its local accumulator,
 *     for (v, 0, T) { L[i] = op(L[i], RF[f(v)]) }
 * op a sum, max or min of a 32-bit scalar.  Codegens do it with subgroup
 * or warp operations where every partial is read once, by the thread whose
 * index is v (vulkan, and the C emitter with a shuffle_xor_fmt).  The
 * caller checks the rest: L thread-local, RF block-shared, the block T x
 * 1 x 1 threads, the loop in uniform control flow outside thread loops. */
typedef struct tvm_block_combine {
  const tvm_expr *var;   /* v */
  int64_t T;             /* its trip count */
  const tvm_stmt *store; /* L[i] = ... */
  const tvm_expr *acc;   /* the load L[i] */
  const tvm_expr *part;  /* the load RF[f(v)] */
  tvm_expr_kind op;      /* TVM_ADD, TVM_MAX or TVM_MIN */
} tvm_block_combine;
/* 1 and *m filled when loop s has that shape, else 0. */
TVM_API int tvm_match_block_combine(const tvm_stmt *s, tvm_block_combine *m);

/* Kinds of kernel parameters (tvm_c_kernel.arg_kinds). */
enum {
  TVM_C_ARG_PTR = 'p',
  TVM_C_ARG_I32 = 'i',
  TVM_C_ARG_I64 = 'l',
  TVM_C_ARG_F32 = 'f',
  TVM_C_ARG_F64 = 'd'
};

/* One emitted kernel. */
typedef struct tvm_c_kernel {
  char *name;
  uint32_t grid[3], block[3];
  uint64_t shared_bytes; /* block-shared memory */
  int dynamic_shared;    /* ... declared dynamic: the launch passes it */
  int nargs;
  char *arg_kinds;       /* nargs characters TVM_C_ARG_*, NUL-terminated */
} tvm_c_kernel;

/* The emitted source of a module's device functions. */
typedef struct tvm_c_source {
  char *text;            /* NUL-terminated */
  tvm_c_kernel *kernels;
  int nkernels;
  int uses_half, uses_bf16, uses_f64;
  int uses_extern;       /* an extern call or a fragment scope */
} tvm_c_source;

/* Emits every device function of m in dialect d.  On failure returns a
 * status with a diagnostic naming the kernel and the construct; *out is
 * zeroed.  Free with tvm_c_source_free. */
TVM_API tvm_status tvm_c_emit_module(const tvm_c_dialect *d,
                                     const tvm_module *m, tvm_c_source *out);
TVM_API void tvm_c_source_free(tvm_c_source *s);

/* ---- tvm_kpack: named sections of bytes in one buffer ------------------ */
/* Layout: "TVMKPK01", u32 count, then per section u32 name length, name,
 * u64 size, bytes (little-endian, no padding). */
typedef struct tvm_kpack {
  tvm_strbuf buf;
  uint32_t count;
} tvm_kpack;

TVM_API void tvm_kpack_init(tvm_kpack *p);
TVM_API void tvm_kpack_add(tvm_kpack *p, const char *name, const void *data,
                           uint64_t size);
/* The packed bytes (malloc'd with alloc_fn, e.g. a host->alloc) and
 * their size; TVM_ERR_NOMEM on failure.  Frees p's storage either way. */
TVM_API tvm_status tvm_kpack_finish(tvm_kpack *p, void *(*alloc_fn)(uint64_t),
                                    uint8_t **data, uint64_t *size);
/* Finds section name in a packed buffer: TVM_OK with a pointer into data,
 * TVM_ERR_NOT_FOUND when absent, TVM_ERR_INVALID when data is malformed. */
TVM_API tvm_status tvm_kpack_find(const uint8_t *data, uint64_t size,
                                  const char *name, const uint8_t **out,
                                  uint64_t *out_size);

/* Adds the kernel table of s to p as section "kernels": one line per
 * kernel "name arg_kinds" (for the runtime half). */
TVM_API void tvm_kpack_add_signatures(tvm_kpack *p, const tvm_c_source *s);
/* Looks kernel name up in the "kernels" section: copies its argument
 * kinds (NUL-terminated, at most cap-1) into kinds. */
TVM_API tvm_status tvm_kpack_signature(const uint8_t *data, uint64_t size,
                                       const char *name, char *kinds,
                                       size_t cap);

/* Fills blob kernel descriptors from s: host-allocated with alloc_fn.
 * Writes *out (nkernels entries); the caller frees names and array. */
struct tvm_plugin_kernel;
TVM_API tvm_status tvm_c_kernels_to_blob(const tvm_c_source *s,
                                         void *(*alloc_fn)(uint64_t),
                                         struct tvm_plugin_kernel **out);

/* ---- small helpers for the plugins built on this emitter ---------------- */
struct tvm_plugin_attr_value;
struct tvm_host_api;
/* The value named name among n validated attribute values, or NULL. */
TVM_API const struct tvm_plugin_attr_value *tvm_c_attr(
    const struct tvm_plugin_attr_value *values, uint32_t n, const char *name);
/* Formats a message, hands it to host->report (or the core diagnostic when
 * host is NULL) and returns st. */
TVM_API int32_t tvm_c_report(const struct tvm_host_api *host, int32_t st,
                             const char *fmt, ...) TVM_PRINTF(3, 4);

#ifdef __cplusplus
}
#endif
#endif /* TVM_CODEGEN_C_H */
