/*
 * tests/unit/lower/pass_check.h - a small interpreter of flat loop IR for
 * the tests of the loop passes, with a checker of dependency tokens.
 *
 * It runs a statement on buffers given by the test (double per element,
 * float32 results rounded to float), evaluating loads, stores, ramps,
 * broadcasts, predicates, selects, casts and a few math intrinsics lane by
 * lane, and allocating `allocate` buffers itself.
 *
 * Token checking (decoupled access-execute): statements under
 * `attr coproc_scope = q` run on queue q.  The interpreter executes in
 * program order, which is the meaning of the program, and checks that the
 * tokens make every conflicting pair of accesses from different queues
 * ordered when the queues run concurrently: dep_push(from, to) sends the
 * pushing queue's vector clock through a FIFO channel, dep_pop receives it
 * (a pop on an empty channel is an error: the count would go negative),
 * and each access is checked against the last write and the reads of the
 * element (happens-before, element by element).  At the end every channel
 * must be empty.  Accesses outside any queue (the host) are not checked.
 */
#ifndef PASS_CHECK_H
#define PASS_CHECK_H

#include "tvm/ir.h"

#define PC_MAXL 64 /* lanes */
#define PC_MAXQ 4  /* queues */

typedef struct pc_interp pc_interp;

/* A handler for call_extern; returns 0 or sets an error (pc_fail). */
typedef int (*pc_extern_fn)(pc_interp *p, const tvm_expr *call, void *ud);

pc_interp *pc_new(int nqueues);
void pc_free(pc_interp *p);
/* Binds a buffer of n elements (zeroed) to handle var; returns its data. */
double *pc_buffer(pc_interp *p, const tvm_expr *var, long n);
/* Binds a scalar variable. */
void pc_set_var(pc_interp *p, const tvm_expr *var, double v);
void pc_set_extern(pc_interp *p, pc_extern_fn fn, void *ud);
/* Runs s; 0 on success, else -1 with pc_error() set. */
int pc_run(pc_interp *p, const tvm_stmt *s);
const char *pc_error(const pc_interp *p);
int pc_fail(pc_interp *p, const char *fmt, ...);
/* Resolves access_ptr(buf, dtype, offset, extent, rw) to the element
 * pointer, recording the accesses of the range for the token checker. */
double *pc_access_ptr(pc_interp *p, const tvm_expr *e, long *extent);
/* Evaluates a scalar expression in the current environment (for extern
 * handlers); 0 or -1 with the error set. */
int pc_eval_scalar(pc_interp *p, const tvm_expr *e, double *out);
/* After pc_run: are all token channels empty?  Sets the error if not. */
int pc_tokens_balanced(pc_interp *p);
/* Number of pushes and pops executed. */
long pc_token_ops(const pc_interp *p);

#endif
