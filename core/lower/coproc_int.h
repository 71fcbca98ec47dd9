/*
 * core/lower/coproc_int.h - hardware queues of statements (decoupled
 * access-execute), shared by inject_virtual_thread.c and
 * inject_dep_tokens.c (private to core/lower; see coproc_queue.c).
 *
 * A "queue statement" is `attr coproc_scope = q { body }` whose body holds
 * no other coproc_scope: everything in it runs, in order, on hardware
 * queue q.  inject_virtual_thread wraps the copy of such a statement made
 * for virtual thread k in `attr virtual_thread_copy = k`, so that
 * inject_dep_tokens only orders copies of the same thread (it removes the
 * markers again).
 */
#ifndef TVM_COPROC_INT_H
#define TVM_COPROC_INT_H

#include "tvm/lower.h"

/* Marker: value = index of the virtual thread a statement belongs to. */
#define COPROC_ATTR_VTHREAD_COPY "virtual_thread_copy"

/* Rewrites s so that every statement touching a queued memory scope
 * (tvm_scope_info.queue >= 0, looked up in o for the scopes of the
 * allocations in s) sits in exactly one queue statement:
 *  - a coproc_scope holding other coproc_scopes is pushed down onto the
 *    maximal parts of its body that hold none;
 *  - a statement outside any coproc_scope gets the queue of the scopes it
 *    writes (or, writing none, reads) when that queue is unique; a mixed
 *    compound statement is split over its children.
 * Idempotent.  NULL (ctx failed) on OOM. */
tvm_stmt *lower_coproc_normalize(tvm_ctx *c, tvm_stmt *s,
                                      const tvm_lower_options *o);

/* Is s a queue statement?  Sets *queue. */
int lower_is_queue_stmt(const tvm_stmt *s, int *queue);

/* Does s contain a coproc_scope attribute? */
int lower_has_coproc(const tvm_stmt *s);

#endif /* TVM_COPROC_INT_H */
