/*
 * toyaccel.h - the "toyaccel" example plugin's private header: its tiny
 * bytecode, shared by the code generator (toyaccel_codegen.c) and the
 * interpreter that plays the accelerator (toyaccel_interp.c).
 *
 * A program is a list of 16-byte instructions for a stack machine whose
 * values are doubles (float32 results are rounded to float after every
 * operation, so float32 arithmetic is exact) and whose variables live in
 * numbered slots (a slot holds a number or a buffer pointer).  The blob
 * handed to the host (TVM_BLOB_CUSTOM) is:
 *
 *   "TOY1" u32 nfuncs, then per function:
 *   u32 namelen, name bytes, u32 nparams, u32 nslots, u32 ninsns,
 *   ninsns * toy_insn
 *
 * Parameters occupy the first slots, in order.
 */
#ifndef TOYACCEL_H
#define TOYACCEL_H

#include <stdint.h>

#include "tvm/plugin.h"
#include "tvm/plugin_sdk.h" /* the SDK helper library */

enum toy_op {
  TOY_PUSH = 1,  /* push imm */
  TOY_GET,       /* push slot[a] */
  TOY_SET,       /* slot[a] = pop */
  TOY_POP,       /* drop the top */
  TOY_ADD, TOY_SUB, TOY_MUL, TOY_DIV, TOY_MOD, TOY_FLOORDIV, TOY_FLOORMOD,
  TOY_MIN, TOY_MAX,
  TOY_EQ, TOY_NE, TOY_LT, TOY_LE, TOY_GT, TOY_GE, TOY_AND, TOY_OR, TOY_NOT,
  TOY_SELECT,    /* pop f, t, cond: push cond ? t : f */
  TOY_CAST,      /* convert the top to dt */
  TOY_EXP, TOY_LOG, TOY_SQRT, TOY_FABS, TOY_TANH, TOY_FLOOR,
  TOY_LOAD,      /* pop index: push ((dt *)slot[a])[index] */
  TOY_STORE,     /* pop value, index: ((dt *)slot[a])[index] = value */
  TOY_ALLOC,     /* pop count: slot[a] = scratch memory of count dt */
  TOY_FREE,      /* free slot[a] */
  TOY_JMP,       /* pc = a */
  TOY_JZ,        /* pop cond: if 0, pc = a */
  TOY_TRAP,      /* fail (a failed assertion) */
  TOY_HALT
};

enum toy_dt { /* element and arithmetic types */
  TOY_F32 = 0, TOY_F64, TOY_I32, TOY_I64, TOY_I8, TOY_U8, TOY_I16, TOY_BOOL
};

typedef struct toy_insn {
  uint16_t op;
  uint8_t dt;
  uint8_t pad;
  int32_t a;
  double imm;
} toy_insn;

typedef struct toy_func {
  char *name;
  uint32_t nparams, nslots, ninsns;
  toy_insn *code;
} toy_func;

/* The host API the plugin was handed (report, log, alloc, free). */
extern const tvm_host_api *toy_host;

/* Reports a failure through the host and returns status. */
int32_t toy_fail(int32_t status, const char *fmt, ...);

/* Loop IR module -> blob (host-allocated data and kernel table). */
int32_t toy_codegen(const tvm_module *m, tvm_plugin_blob *out);
/* Parses a blob into functions (plugin-owned; free with toy_funcs_free). */
int32_t toy_parse(const tvm_plugin_blob *b, toy_func **funcs, uint32_t *n);
void toy_funcs_free(toy_func *funcs, uint32_t n);
/* Runs f with its arguments. */
int32_t toy_run(const toy_func *f, const tvm_plugin_arg *args,
                uint32_t nargs, int trace);

#endif
