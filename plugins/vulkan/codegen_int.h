/*
 * plugins/vulkan/codegen_int.h - what the SPIR-V code generator's files
 * share (codegen_expr.c: types and expressions; codegen.c: statements and
 * kernels; blob.c: the module blob).
 */
#ifndef VULKAN_CODEGEN_INT_H
#define VULKAN_CODEGEN_INT_H

#include "spirv.h"
#include "tvm/ir.h"
#include "vulkan_int.h"

/* A buffer the kernel reads or writes. */
typedef struct bufinfo {
  uint32_t var;     /* the variable id */
  uint32_t storage; /* its storage class */
  uint32_t elem;    /* element type id */
  int sb;           /* a storage buffer: access chain goes through member 0 */
  int bool8;        /* bool elements stored as uint8 */
} bufinfo;

typedef struct cg {
  spv_module m;
  const tvm_plugin_target *t;
  const tvm_func *f;
  spv_words fvars, body;
  tvm_ptrmap vals; /* var -> SSA id */
  tvm_ptrmap ptrs; /* var -> Function variable id (loop variables) */
  tvm_ptrmap bufs; /* handle var -> bufinfo* */
  tvm_arena *arena;
  uint32_t wg_id, lid_id; /* builtin variables (0 until used) */
  uint32_t local[3], grid[3];
  uint32_t push_var, push_bytes; /* the scalar block and its bytes */
  uint32_t push_sc;              /* its storage class: PushConstant or
                                    Uniform (past VK_PUSH_MAX bytes) */
  uint32_t sgid_id, nsg_id; /* SubgroupId, NumSubgroups (0 until used) */
  int allow_subgroup;       /* may reductions use subgroup operations */
  int divergent;            /* inside a condition: not every thread runs */
  int in_thread;            /* inside a threadIdx loop */
  tvm_status st;
} cg;

/* A structured loop being emitted (cg_loop_begin / cg_loop_end). */
typedef struct cg_loop {
  tvm_dtype vt;
  uint32_t ty, var, header, cont, merge;
} cg_loop;


/* Records the first error (the diagnostic names the kernel); returns 0. */
uint32_t cg_fail(cg *g, tvm_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends to the recorded error's message (context for it). */
void cg_fail_more(cg *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The SPIR-V type of a scalar dtype, or 0 with the error recorded. */
uint32_t cg_type(cg *g, tvm_dtype t);
int cg_is_float(tvm_dtype t);
int cg_is_signed(tvm_dtype t);
/* Instructions with a result id (returned). */
uint32_t cg_op1(cg *g, uint32_t op, uint32_t type, uint32_t a);
uint32_t cg_op2(cg *g, uint32_t op, uint32_t type, uint32_t a, uint32_t b);
uint32_t cg_op3(cg *g, uint32_t op, uint32_t type, uint32_t a, uint32_t b,
                uint32_t c);
uint32_t cg_glsl1(cg *g, uint32_t type, uint32_t inst, uint32_t a);
uint32_t cg_glsl2(cg *g, uint32_t type, uint32_t inst, uint32_t a,
                  uint32_t b);
/* A constant of dtype t (fv for floats, iv otherwise). */
uint32_t cg_const(cg *g, tvm_dtype t, double fv, int64_t iv);
/* Value v of type from converted to type to. */
uint32_t cg_convert(cg *g, uint32_t v, tvm_dtype from, tvm_dtype to);
/* The comparison opcode of kind k on operands of type t. */
uint32_t cg_cmp_op(tvm_expr_kind k, tvm_dtype t);
/* A pointer to element `index` of the buffer behind handle var b;
 * *bool8 tells whether it holds bools as uint8 (loads and stores
 * convert). */
uint32_t cg_elem_ptr(cg *g, const tvm_expr *b, const tvm_expr *index,
                     int *bool8);
/* The value of an expression (0 once an error is recorded). */
uint32_t cg_expr(cg *g, const tvm_expr *e);

/* Emits an OpLabel (a new block) with that id; returns it. */
uint32_t cg_label(cg *g, uint32_t id);
/* The uvec3 builtin variable LocalInvocationId (local) or WorkgroupId. */
uint32_t cg_builtin(cg *g, int local);
void cg_loop_begin(cg *g, tvm_dtype vt, uint32_t lo, uint32_t end,
                   cg_loop *l);
void cg_loop_end(cg *g, const cg_loop *l);
/* The serial loop s when it is the final combine of a cross-thread
 * reduction, emitted with subgroup operations: returns 1 when it was
 * (codegen_subgroup.c), 0 to emit it as a loop. */
int cg_subgroup_reduce(cg *g, const tvm_stmt *s);

/* One device function -> one SPIR-V module, with its parameters' kinds
 * and bits, local size, grid, the bytes of its scalar block and whether
 * that block is a uniform buffer (1) or push constants (0), and what it
 * needs of the device (SPV_F_*) (codegen.c). */
tvm_status vk_kernel_spirv(const tvm_plugin_target *t, const tvm_func *f,
                           uint32_t **words, size_t *nwords, uint32_t *kinds,
                           uint32_t *bits, uint32_t local[3], uint32_t grid[3],
                           uint32_t *push_bytes, uint32_t *scalars_ubo,
                           uint32_t *features,
                           int allow_subgroup, int *used_subgroup);

#endif /* VULKAN_CODEGEN_INT_H */
