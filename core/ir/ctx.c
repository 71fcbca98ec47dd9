/*
 * core/ir/ctx.c - the IR context: the arena every node lives in, the
 * variable id counter and the sticky failure flag.
 */
#include "ir_int.h"

/* A context with an empty arena, or NULL (with a diagnostic) when out of
 * memory.  Destroy with tvm_ctx_destroy, which frees every node. */
tvm_ctx *tvm_ctx_create(void) {
  tvm_ctx *c = tvm_calloc(1, sizeof(tvm_ctx));
  if (!c) {
    tvm_diag_set(TVM_ERR_NOMEM, "out of memory creating an IR context");
    return NULL;
  }
  c->arena = tvm_arena_create();
  if (!c->arena) {
    tvm_free(c);
    tvm_diag_set(TVM_ERR_NOMEM, "out of memory creating an IR context");
    return NULL;
  }
  c->next_id = 1;
  return c;
}

/* Frees the context and every node built in it; NULL is ignored. */
void tvm_ctx_destroy(tvm_ctx *c) {
  if (!c) return;
  tvm_arena_destroy(c->arena);
  tvm_free(c);
}

/* n zeroed bytes in the context's arena; on failure sets c->failed and
 * returns NULL. */
void *tvm_ctx_alloc(tvm_ctx *c, size_t n) {
  void *p = tvm_arena_alloc(c->arena, n);
  if (!p && !c->failed) c->failed = 1;
  return p;
}

/* Copy of s in the arena (NULL for NULL); sets c->failed on failure. */
char *tvm_ctx_strdup(tvm_ctx *c, const char *s) {
  if (!s) return NULL;
  char *d = tvm_arena_strdup(c->arena, s);
  if (!d && !c->failed) c->failed = 1;
  return d;
}

/* TVM_OK while nothing failed.  After a constructor rejected its operands
 * (c->failed == TVM__FAILED_INVALID) it is TVM_ERR_INVALID and the
 * constructor's message stays in the diagnostic; after an allocation
 * failure (any other non-zero value) it is TVM_ERR_NOMEM with a message. */
tvm_status tvm_ctx_status(tvm_ctx *c) {
  if (!c) return tvm_diag_set(TVM_ERR_INVALID, "no IR context");
  if (!c->failed) return TVM_OK;
  if (c->failed == TVM__FAILED_INVALID) {
    if (tvm_diag_message()[0] == '\0')
      return tvm_diag_set(TVM_ERR_INVALID, "ill-typed IR was built");
    return tvm_diag_prefix(TVM_ERR_INVALID, "%s", "");
  }
  return tvm_diag_set(TVM_ERR_NOMEM, "out of memory while building IR");
}
