/*
 * core/runtime/host_program.c - host programs (tvm/host_program.h): the
 * consistency check, the text form and the serialized form packages
 * store.  Runtime only: includes base and runtime headers, no compiler.
 *
 * Serialized form (every integer little-endian):
 *   u32 magic "HPG1", str name, u32 nparams,
 *   u32 nkernels, str kernels[nkernels],
 *   u32 ntemps, u64 temp_bytes[ntemps],
 *   u32 nops, per op: u32 kind, u32 kernel, u32 grid[3], u32 block[3],
 *                     u64 shared_bytes, u32 first_arg, u32 nargs,
 *   u32 nargs, per arg: u32 kind, u32 index, i64 i, f64 f (IEEE bits)
 * where str is u32 length + bytes.
 */
#include <string.h>

#include "tvm/host_program.h"

#define HP_MAGIC 0x31475048u /* "HPG1" */
#define HP_MAX_COUNT (1u << 24)

/* See tvm/host_program.h. */
tvm_status tvm_host_program_check(const tvm_host_program *p) {
  if (!p || !p->name)
    return tvm_diag_set(TVM_ERR_INVALID, "host program: NULL or unnamed");
  for (uint32_t k = 0; k < p->nkernels; k++)
    if (!p->kernels || !p->kernels[k] || !*p->kernels[k])
      return tvm_diag_set(TVM_ERR_INVALID,
                          "host program %s: kernel %u has no name", p->name, k);
  for (uint32_t o = 0; o < p->nops; o++) {
    const tvm_host_op *op = &p->ops[o];
    if (op->kind != TVM_HOST_OP_LAUNCH)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "host program %s: operation %u has unknown kind %u",
                          p->name, o, op->kind);
    if (op->kernel >= p->nkernels)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "host program %s: operation %u launches kernel %u "
                          "of %u",
                          p->name, o, op->kernel, p->nkernels);
    for (int d = 0; d < 3; d++)
      if (op->grid[d] == 0 || op->block[d] == 0)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "host program %s: launch %u of %s has an empty "
                            "grid or block",
                            p->name, o, p->kernels[op->kernel]);
    if (op->first_arg > p->nargs || op->nargs > p->nargs - op->first_arg)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "host program %s: launch %u: arguments [%u, +%u) "
                          "outside the %u of the program",
                          p->name, o, op->first_arg, op->nargs, p->nargs);
  }
  for (uint32_t a = 0; a < p->nargs; a++) {
    const tvm_host_arg *x = &p->args[a];
    if ((x->kind == TVM_HOST_ARG_PARAM && x->index >= p->nparams) ||
        (x->kind == TVM_HOST_ARG_TEMP && x->index >= p->ntemps) ||
        x->kind < TVM_HOST_ARG_PARAM || x->kind > TVM_HOST_ARG_FLOAT)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "host program %s: argument %u (kind %u, index %u) "
                          "is out of range",
                          p->name, a, x->kind, x->index);
  }
  return TVM_OK;
}

/* See tvm/host_program.h. */
void tvm_host_program_print(tvm_strbuf *out, const tvm_host_program *p) {
  tvm_strbuf_printf(out, "host %s (%u params, %u temps", p->name, p->nparams,
                    p->ntemps);
  for (uint32_t t = 0; t < p->ntemps; t++)
    tvm_strbuf_printf(out, "%s%llu bytes", t ? ", " : ": ",
                      (unsigned long long)p->temp_bytes[t]);
  tvm_strbuf_append(out, ")\n");
  for (uint32_t o = 0; o < p->nops; o++) {
    const tvm_host_op *op = &p->ops[o];
    tvm_strbuf_printf(out,
                      "  launch %s grid(%u, %u, %u) block(%u, %u, %u) "
                      "shared %llu (",
                      p->kernels[op->kernel], op->grid[0], op->grid[1],
                      op->grid[2], op->block[0], op->block[1], op->block[2],
                      (unsigned long long)op->shared_bytes);
    for (uint32_t a = 0; a < op->nargs; a++) {
      const tvm_host_arg *x = &p->args[op->first_arg + a];
      const char *sep = a ? ", " : "";
      if (x->kind == TVM_HOST_ARG_PARAM)
        tvm_strbuf_printf(out, "%sp%u", sep, x->index);
      else if (x->kind == TVM_HOST_ARG_TEMP)
        tvm_strbuf_printf(out, "%st%u", sep, x->index);
      else if (x->kind == TVM_HOST_ARG_INT)
        tvm_strbuf_printf(out, "%s%lld", sep, (long long)x->i);
      else
        tvm_strbuf_printf(out, "%s%g", sep, x->f);
    }
    tvm_strbuf_append(out, ")\n");
  }
}

/* ---- encoding ------------------------------------------------------------ */

/* Appends v as n little-endian bytes. */
static void put_le(tvm_strbuf *b, uint64_t v, int n) {
  char c[8];
  for (int i = 0; i < n; i++) c[i] = (char)((v >> (8 * i)) & 0xff);
  tvm_strbuf_appendn(b, c, (size_t)n);
}

/* Appends a string as u32 length + bytes. */
static void put_str(tvm_strbuf *b, const char *s) {
  size_t n = s ? strlen(s) : 0;
  put_le(b, n, 4);
  tvm_strbuf_appendn(b, s ? s : "", n);
}

/* See tvm/host_program.h. */
tvm_status tvm_host_program_encode(const tvm_host_program *p,
                                   tvm_strbuf *out) {
  tvm_status st = tvm_host_program_check(p);
  if (st != TVM_OK) return st;
  put_le(out, HP_MAGIC, 4);
  put_str(out, p->name);
  put_le(out, p->nparams, 4);
  put_le(out, p->nkernels, 4);
  for (uint32_t k = 0; k < p->nkernels; k++) put_str(out, p->kernels[k]);
  put_le(out, p->ntemps, 4);
  for (uint32_t t = 0; t < p->ntemps; t++) put_le(out, p->temp_bytes[t], 8);
  put_le(out, p->nops, 4);
  for (uint32_t o = 0; o < p->nops; o++) {
    const tvm_host_op *op = &p->ops[o];
    put_le(out, op->kind, 4);
    put_le(out, op->kernel, 4);
    for (int d = 0; d < 3; d++) put_le(out, op->grid[d], 4);
    for (int d = 0; d < 3; d++) put_le(out, op->block[d], 4);
    put_le(out, op->shared_bytes, 8);
    put_le(out, op->first_arg, 4);
    put_le(out, op->nargs, 4);
  }
  put_le(out, p->nargs, 4);
  for (uint32_t a = 0; a < p->nargs; a++) {
    const tvm_host_arg *x = &p->args[a];
    uint64_t fb;
    memcpy(&fb, &x->f, 8);
    put_le(out, x->kind, 4);
    put_le(out, x->index, 4);
    put_le(out, (uint64_t)x->i, 8);
    put_le(out, fb, 8);
  }
  return out->oom ? tvm_diag_set(TVM_ERR_NOMEM, "host program: out of memory")
                  : TVM_OK;
}

/* A bounded reader. */
typedef struct rd {
  const unsigned char *d;
  size_t n, pos;
  int bad;
} rd;

/* Reads n little-endian bytes (0 and bad set past the end). */
static uint64_t get_le(rd *r, int n) {
  uint64_t v = 0;
  if (r->bad || r->n - r->pos < (size_t)n) {
    r->bad = 1;
    return 0;
  }
  for (int i = 0; i < n; i++) v |= (uint64_t)r->d[r->pos + i] << (8 * i);
  r->pos += (size_t)n;
  return v;
}

/* A count that must leave at least min bytes per item in the input. */
static uint32_t get_count(rd *r, size_t min) {
  uint32_t c = (uint32_t)get_le(r, 4);
  if (c > HP_MAX_COUNT || (size_t)c * min > r->n - r->pos) r->bad = 1;
  return r->bad ? 0 : c;
}

/* A string copied into a. */
static const char *get_str(rd *r, tvm_arena *a) {
  uint32_t len = get_count(r, 1);
  char *s = r->bad ? NULL : tvm_arena_alloc(a, (size_t)len + 1);
  if (!s) {
    r->bad = 1;
    return NULL;
  }
  memcpy(s, r->d + r->pos, len);
  s[len] = 0;
  r->pos += len;
  return s;
}

/* Array of n items of size sz from a (at least one byte). */
static void *arr(rd *r, tvm_arena *a, size_t n, size_t sz) {
  void *p = r->bad ? NULL : tvm_arena_alloc(a, n * sz + 1);
  if (!p) r->bad = 1;
  else memset(p, 0, n * sz + 1);
  return p;
}

/* See tvm/host_program.h. */
tvm_status tvm_host_program_decode(const unsigned char *d, size_t n,
                                   tvm_arena *a, size_t *used,
                                   tvm_host_program **out) {
  rd r = {d, n, 0, 0};
  tvm_host_program *p = tvm_arena_alloc(a, sizeof *p);
  if (!p) return tvm_diag_set(TVM_ERR_NOMEM, "host program: out of memory");
  memset(p, 0, sizeof *p);
  if (get_le(&r, 4) != HP_MAGIC) r.bad = 1;
  p->name = get_str(&r, a);
  p->nparams = (uint32_t)get_le(&r, 4);
  p->nkernels = get_count(&r, 4);
  p->kernels = arr(&r, a, p->nkernels, sizeof(char *));
  for (uint32_t k = 0; k < p->nkernels && !r.bad; k++)
    p->kernels[k] = get_str(&r, a);
  p->ntemps = get_count(&r, 8);
  p->temp_bytes = arr(&r, a, p->ntemps, sizeof(uint64_t));
  for (uint32_t t = 0; t < p->ntemps && !r.bad; t++)
    p->temp_bytes[t] = get_le(&r, 8);
  p->nops = get_count(&r, 48);
  p->ops = arr(&r, a, p->nops, sizeof(tvm_host_op));
  for (uint32_t o = 0; o < p->nops && !r.bad; o++) {
    tvm_host_op *op = &p->ops[o];
    op->kind = (uint32_t)get_le(&r, 4);
    op->kernel = (uint32_t)get_le(&r, 4);
    for (int k = 0; k < 3; k++) op->grid[k] = (uint32_t)get_le(&r, 4);
    for (int k = 0; k < 3; k++) op->block[k] = (uint32_t)get_le(&r, 4);
    op->shared_bytes = get_le(&r, 8);
    op->first_arg = (uint32_t)get_le(&r, 4);
    op->nargs = (uint32_t)get_le(&r, 4);
  }
  p->nargs = get_count(&r, 24);
  p->args = arr(&r, a, p->nargs, sizeof(tvm_host_arg));
  for (uint32_t i = 0; i < p->nargs && !r.bad; i++) {
    tvm_host_arg *x = &p->args[i];
    uint64_t fb;
    x->kind = (uint32_t)get_le(&r, 4);
    x->index = (uint32_t)get_le(&r, 4);
    x->i = (int64_t)get_le(&r, 8);
    fb = get_le(&r, 8);
    memcpy(&x->f, &fb, 8);
  }
  if (r.bad)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "host program: truncated or malformed at byte %zu",
                        r.pos);
  tvm_status st = tvm_host_program_check(p);
  if (st != TVM_OK) return st;
  *used = r.pos;
  *out = p;
  return TVM_OK;
}
