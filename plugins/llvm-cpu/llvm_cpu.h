/*
 * llvm_cpu.h - private declarations shared by the files of the llvm-cpu
 * plugin: the target object, the code generator's state, and the
 * run-time objects.  Nothing here crosses the plugin boundary; only
 * tvm_plugin_query (plugin.c) is exported.
 */
#ifndef TVM_LLVM_CPU_H
#define TVM_LLVM_CPU_H

#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "tvm/ir.h"
#include "tvm/plugin.h"
#include "tvm/plugin_sdk.h"

/* Names of the module globals the loader fills in (see codegen_parallel.c
 * and module.c).  They are defined in every generated module, so generated
 * code never resolves anything against the host executable. */
#define LC_SYM_PARALLEL_FOR "__tvm_parallel_for"
#define LC_SYM_NUM_THREADS "__tvm_num_threads"
#define LC_SYM_ASSERT_FAIL "__tvm_assert_fail"
/* The device a module runs on, handed back to __tvm_parallel_for so that
 * its loops run on that device's pool.  Modules compiled before it
 * existed lack it; the loader then installs the 3-argument trampoline. */
#define LC_SYM_PARALLEL_CTX "__tvm_parallel_ctx"

/* Signature of the generated entry points. */
typedef int32_t (*lc_entry_fn)(const tvm_plugin_arg *args, uint32_t nargs);
/* Signatures of the function pointers stored in the globals above. */
typedef int32_t (*lc_task_fn)(int64_t i, int64_t n, void *data);
typedef int32_t (*lc_parallel_for_fn)(void *ctx, lc_task_fn task, void *data,
                                      int64_t n);
typedef void (*lc_assert_fail_fn)(const char *msg);

/* ---- plugin.c --------------------------------------------------------- */
/* The host API handed to tvm_plugin_query (NULL before the first query). */
const tvm_host_api *lc_host(void);
/* Reports st with a printf-style message through host->report (or the
 * core diagnostic when no host is known); returns st. */
int32_t lc_report(int32_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Memory the host will free: host->alloc, or malloc without a host. */
void *lc_host_alloc(uint64_t n);

/* A target instance: the validated attributes and what follows from them. */
struct tvm_plugin_target {
  char *mcpu;         /* resolved CPU name handed to LLVM */
  char *mattr;        /* resolved feature string handed to LLVM */
  char *triple;
  int num_threads;    /* resolved (0 in the attr -> all cores) */
  int opt_level;      /* 0..3 */
  int vector_bits;    /* resolved */
  int64_t winograd_min_tiles; /* Winograd by default from; -1 auto, 0 never */
  int winograd_tile;  /* its output tile: 2, 4; -1 auto */
  int output_shared;  /* attr output: shared */
  char *description;
  tvm_plugin_scope scopes[2];
  tvm_plugin_target_info info;
};

/* ---- host_cpu.c ------------------------------------------------------- */
/* Initializes LLVM's native target once (thread-safe). */
void lc_llvm_init(void);
/* Host CPU name and features (heap strings, free with free()). */
char *lc_host_cpu_name(void);
char *lc_host_cpu_features(void);
/* Native SIMD width implied by a feature string / CPU name: 512, 256, 128. */
int lc_vector_bits_of(const char *cpu, const char *features);
/* What target t's CPU has (its mcpu / mattr): 512, 256, 128; 0 off x86. */
int lc_target_simd_bits(const tvm_plugin_target *t);
/* Number of online cores (at least 1). */
int lc_num_cores(void);
/* A target machine for t (NULL with a report on failure). */
LLVMTargetMachineRef lc_target_machine(const tvm_plugin_target *t);

/* ---- codegen.c (module level) ------------------------------------------ */
int32_t lc_codegen(tvm_plugin_target *t, const tvm_module *m,
                   tvm_plugin_blob *out);

/* ---- link.c ----------------------------------------------------------- */
/* Links an ELF object into a shared object with the system C compiler;
 * *out (malloc'd) / *out_size receive the shared object's bytes. */
int32_t lc_link_shared(const uint8_t *obj, uint64_t size, uint8_t **out,
                       uint64_t *out_size);
/* Writes data to a fresh temporary file under $TMPDIR (or /tmp) whose
 * name ends in suffix; path receives the name (caller frees). */
int32_t lc_write_temp(const uint8_t *data, uint64_t size, const char *suffix,
                      char **path);

/* ---- codegen state (codegen_*.c) ---------------------------------------- */
/* The name every function is compiled under, alone in its part
 * (codegen.c; the join of the parts names it back), and the size of a
 * part's failure message. */
#define LC_KERNEL_NAME "tvm_kernel"
#define LC_CG_MSG 1024

typedef struct lc_cg {
  const tvm_plugin_target *target;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMTargetDataRef td;
  const char *fname;        /* the tvm function being compiled */
  const char *irname;       /* its name in the IR: LC_KERNEL_NAME */
  LLVMValueRef fn;          /* the LLVM function being filled */
  LLVMBasicBlockRef entry;  /* its entry block (allocas go here) */
  tvm_ptrmap vars;          /* tvm var -> LLVMValueRef */
  tvm_ptrmap nonneg;        /* loop vars known >= 0 -> (void*)1 */
  tvm_ptrmap align;         /* buffer var -> alignment in bytes */
  tvm_ptrmap stack_n;       /* stack buffer var -> its element count */
  tvm_ptrmap allocated;     /* buffer var of an allocate (stack or heap)
                               -> (void*)1 */
  tvm_ptrmap params;        /* buffer parameter var -> (void*)1 */
  LLVMValueRef md_alloc;    /* alias scope list {allocations}, lazily */
  tvm_bounds ranges;        /* serial loop var -> its tvm_range (the
                               loop's own min and extent; emit_for) */
  tvm_ptrvec heap;          /* heap buffers to free at the end */
  int parallel_depth;       /* inside an outlined parallel body */
  int nouted;               /* counter for outlined function names */
  int32_t status;           /* first failure (TVM_OK while fine) */
  char *msg;                /* LC_CG_MSG bytes: where failures are
                               recorded on a pool thread; NULL: reported */
  /* frequently used types */
  LLVMTypeRef t_i1, t_i8, t_i32, t_i64, t_ptr, t_f32, t_f64, t_void;
  /* the module globals */
  LLVMValueRef g_parallel_for, g_num_threads, g_assert_fail, g_parallel_ctx;
} lc_cg;

/* Records a failure "llvm-cpu: codegen of 'f': ..." (first one wins);
 * returns NULL so expression emitters can `return lc_fail(...)`. */
void *lc_fail(lc_cg *cg, int32_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* codegen_expr.c */
LLVMTypeRef lc_type(lc_cg *cg, tvm_dtype t);
LLVMTypeRef lc_mem_type(lc_cg *cg, tvm_dtype t); /* bool stored as i8 */
LLVMValueRef lc_expr(lc_cg *cg, const tvm_expr *e);
LLVMValueRef lc_broadcast(lc_cg *cg, LLVMValueRef v, int lanes);
/* codegen_half.c: float16 (bf16 = 0) or bfloat16 (bf16 = 1) values of
 * lanes lanes to float32 and back, from integer operations only. */
LLVMValueRef lc_half_to_f32(lc_cg *cg, LLVMValueRef v, int bf16, int lanes);
LLVMValueRef lc_f32_to_half(lc_cg *cg, LLVMValueRef v, int bf16, int lanes);
int lc_is_nonneg(lc_cg *cg, const tvm_expr *e);
/* Calls an LLVM intrinsic overloaded on the given types. */
LLVMValueRef lc_intrinsic(lc_cg *cg, const char *name, LLVMTypeRef *tys,
                          int ntys, LLVMValueRef *args, int nargs);

/* codegen_call.c */
LLVMValueRef lc_call(lc_cg *cg, const tvm_expr *e);

/* codegen_memory.c */
/* Pointer to buffer[index] for scalar index (an int expression value). */
LLVMValueRef lc_elem_ptr(lc_cg *cg, LLVMValueRef base, tvm_dtype elem,
                         LLVMValueRef index);
/* Alignment in bytes provable for buffer[index] with lanes elements. */
unsigned lc_access_align(lc_cg *cg, const tvm_expr *buffer,
                         const tvm_expr *index, tvm_dtype t);
/* buffer[index] of e's dtype (vector, gather and masked loads too). */
LLVMValueRef lc_load(lc_cg *cg, const tvm_expr *e);
/* Emits buffer[index] = value (vector, scatter and masked stores too). */
void lc_emit_store(lc_cg *cg, const tvm_stmt *s);

/* codegen_vmath.c: inline SIMD exp / tanh of <N x float> values */
LLVMValueRef lc_vexp_f32(lc_cg *cg, LLVMValueRef x);
LLVMValueRef lc_vtanh_f32(lc_cg *cg, LLVMValueRef x);
LLVMValueRef lc_verf_f32(lc_cg *cg, LLVMValueRef x);

/* codegen_stmt.c */
void lc_stmt(lc_cg *cg, const tvm_stmt *s);
/* Emits a serial loop var in [begin, end) around body (values given),
 * with an optional LLVM loop hint. */
enum { LC_HINT_NONE, LC_HINT_UNROLL, LC_HINT_VECTORIZE, LC_HINT_UNROLL_BY4 };
void lc_emit_loop(lc_cg *cg, const tvm_expr *var, LLVMValueRef begin,
                  LLVMValueRef end, const tvm_stmt *body, int nonneg,
                  int hint);
/* Emits "if rc != 0 return rc" in the current function. */
void lc_return_if_nonzero(lc_cg *cg, LLVMValueRef rc);
/* An alloca in the entry block of the current function. */
LLVMValueRef lc_entry_alloca(lc_cg *cg, LLVMTypeRef ty, unsigned align,
                             const char *name);

/* codegen_parallel.c */
void lc_emit_parallel(lc_cg *cg, const tvm_stmt *s);
/* Defines the module globals (parallel_for pointer, threads, assert). */
void lc_define_globals(lc_cg *cg, int define);

/* ---- runtime (runtime.c, module.c) ----------------------------------------- */
struct tvm_plugin_device {
  tvm_plugin_target *target;
  int num_threads;     /* threads of the pool its loops run on */
  tvm_host_pool *pool; /* the host pool (ABI 4 host), NULL: default pool */
};

struct tvm_plugin_func {
  char *name;
  lc_entry_fn fn;
};

struct tvm_plugin_module {
  struct lc_image *image; /* ELF objects: loaded by elf_load.c */
  void *dl;               /* dlopen handle for shared objects */
  tvm_plugin_func *funcs;
  uint32_t nfuncs;
};

#include "elf_check.h" /* lc_check_elf: kernel objects validated first */
int32_t lc_module_load(tvm_plugin_device *d, const tvm_plugin_blob *blob,
                       tvm_plugin_module **out);
void lc_module_unload(tvm_plugin_module *m);
/* The functions the loader stores in the module globals: the first for
 * modules with __tvm_parallel_ctx (ctx is their tvm_plugin_device), the
 * second for older ones (the default pool). */
int32_t lc_parallel_trampoline(void *ctx, lc_task_fn task, void *data,
                               int64_t n);
int32_t lc_parallel_trampoline_v1(lc_task_fn task, void *data, int64_t n);
/* Makes the C math library's symbols (expf, tanhf, ...) visible to the
 * loader's process-wide symbol search (dlsym), whatever the host program
 * links. */
void lc_math_library_global(void);
/* device_open with the host pool the device's loops run on (ABI 4). */
int32_t lc_device_open_pool(tvm_plugin_target *t, tvm_host_pool *pool,
                            tvm_plugin_device **out);
void lc_assert_trampoline(const char *msg);

/* strategy_isa.c: what templates derive their knob defaults from. */
/* Codegen marks a serial innermost loop of at most LC_UNROLL_TRIPS
 * iterations for full unrolling when the unrolled body holds at most
 * LC_UNROLL_STORES stores (codegen_stmt.c); the schedule templates size
 * register blocks that want their input-channel block unrolled by it. */
enum { LC_UNROLL_TRIPS = 16, LC_UNROLL_STORES = 64 };

typedef struct lc_isa {
  int vector_bits; /* the schedules' SIMD width */
  int lanes;       /* float32 lanes per vector */
  int vregs;       /* vector registers of the ISA compiled for: 16 or 32 */
  long l1_bytes, l2_bytes;
  long l1_ways; /* the L1 data cache's associativity */
} lc_isa;
void lc_isa_of(const tvm_plugin_target *t, lc_isa *o);
/* The rows' default register block of a convolution (strategy_conv2d.c):
 * its output channel chunks and pixel budget; returns its accumulators. */
int64_t lc_conv_rows_block(const lc_isa *isa, int64_t OCC, int64_t OH,
                           int64_t OW, int64_t vpo, int depthwise,
                           int64_t *tc, int64_t *cap);

/* Schedule templates (strategy_*.c). */
int32_t llvm_cpu_schedule_matmul(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 tvm_config *cfg);
int32_t llvm_cpu_schedule_batch_matmul(tvm_plugin_target *t, tvm_schedule *s,
                                       tvm_tensor **outs, uint32_t nouts,
                                       tvm_config *cfg);
int32_t llvm_cpu_schedule_winograd_input_nchwc(tvm_plugin_target *t,
                                               tvm_schedule *s,
                                               tvm_tensor **outs,
                                               uint32_t nouts, tvm_config *cfg);
int32_t llvm_cpu_schedule_winograd_nchwc(tvm_plugin_target *t,
                                         tvm_schedule *s, tvm_tensor **outs,
                                         uint32_t nouts, tvm_config *cfg);
int32_t llvm_cpu_schedule_conv2d_nchwc(tvm_plugin_target *t, tvm_schedule *s,
                                       tvm_tensor **outs, uint32_t nouts,
                                       tvm_config *cfg);
int32_t llvm_cpu_schedule_dense(tvm_plugin_target *t, tvm_schedule *s,
                                tvm_tensor **outs, uint32_t nouts,
                                tvm_config *cfg);
int32_t llvm_cpu_schedule_rows(tvm_plugin_target *t, tvm_schedule *s,
                               tvm_tensor **outs, uint32_t nouts,
                               tvm_config *cfg);
int32_t llvm_cpu_schedule_reduce(tvm_plugin_target *t, tvm_schedule *s,
                                 tvm_tensor **outs, uint32_t nouts,
                                 tvm_config *cfg);
int32_t llvm_cpu_schedule_pool_nchwc(tvm_plugin_target *t, tvm_schedule *s,
                                     tvm_tensor **outs, uint32_t nouts,
                                     tvm_config *cfg);
/* The alter_layout slot (strategy_layout.c): NCHW<lanes>c convolutions. */
int32_t llvm_cpu_alter_layout(tvm_plugin_target *t, const tvm_gnode *node,
                              tvm_plugin_layout *out);

#endif /* TVM_LLVM_CPU_H */
