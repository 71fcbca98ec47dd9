/*
 * core/base/ptrvec.c - the growable vector of pointers (heap memory).
 */
#include "tvm/base.h"

/* Appends p, doubling the capacity when full.  On out of memory the vector
 * is unchanged and TVM_ERR_NOMEM is returned with a diagnostic. */
tvm_status tvm_ptrvec_push(tvm_ptrvec *v, void *p) {
  if (v->len == v->cap) {
    size_t ncap = v->cap ? v->cap * 2 : 8;
    if (ncap > SIZE_MAX / sizeof(void *))
      return tvm_diag_set(TVM_ERR_NOMEM, "pointer vector too large");
    void **d = tvm_realloc(v->data, ncap * sizeof(void *));
    if (!d)
      return tvm_diag_set(TVM_ERR_NOMEM,
                          "out of memory growing a vector to %zu entries",
                          ncap);
    v->data = d;
    v->cap = ncap;
  }
  v->data[v->len++] = p;
  return TVM_OK;
}

/* Frees the storage (not the pointed-to objects) and resets v. */
void tvm_ptrvec_free(tvm_ptrvec *v) {
  tvm_free(v->data);
  v->data = NULL;
  v->len = v->cap = 0;
}
