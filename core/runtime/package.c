/*
 * core/runtime/package.c - packages: a compiled plan in one file.
 *
 * Format version 2 (docs/package-format.md says the same at more length;
 * version 1 is still read: it is version 2 without the TARGET section).
 * Every integer is little-endian and fixed-width; nothing depends on the
 * host's struct layout.
 *
 *   offset size
 *     0     8   magic "TVMCPKG\0"
 *     8     4   u32 format version (2; 1 is still read)
 *    12     4   u32 section count n (1..16)
 *    16     8   u64 size of the whole file in bytes
 *    24     8   u64 FNV-1a 64 checksum of bytes [0, 24) followed by the
 *               section table
 *    32  32*n   section table, one entry per section:
 *                 u32 kind, u32 flags, u64 offset, u64 length,
 *                 u64 checksum of the section's bytes: FNV-1a 64 when
 *                 flags is 0, tvm_hash_wide when it is 1 (what this
 *                 writer sets: about 5x faster over a large PARAMS)
 *    ...        the sections, back to back in table order: the first at
 *               32 + 32*n, each next one where the previous ends, the
 *               last ending at the end of the file.  No byte of the file
 *               is outside a checksum.
 *
 * Sections (each exactly once; kinds this reader does not know are
 * checksummed and skipped):
 *   1 META   the plan.  Strings are u32 length + bytes (no NUL), length
 *            0xffffffff meaning NULL.
 *              str target_name, str plugin_name, str plugin_version
 *              u64 activation_bytes_planned, u64 activation_bytes_unplanned
 *              u32 nvalues, then per value:
 *                str name, u32 kind, u8 dtype code, u8 bits, u16 lanes,
 *                u32 ndim, i64 shape[ndim], str layout, i32 storage,
 *                u64 nbytes, u64 offset of its data in PARAMS (0 unless
 *                kind is PARAM)
 *              u32 nsteps, then per step:
 *                str kernel, str label, u32 nargs, u32 args[nargs],
 *                f64 flops (IEEE bits as u64)
 *              u32 nstorage, u64 storage_bytes[nstorage]
 *              u32 ninputs, u32 inputs[ninputs]
 *              u32 noutputs, u32 outputs[noutputs]
 *   2 PARAMS the parameters' bytes, each at a 64-byte aligned offset
 *            (zero padding between them).
 *   3 MODULE the device module: u32 blob format, u32 nkernels, then per
 *            kernel: str name, u32 nargs, u32 grid[3], u32 block[3],
 *            u64 shared_bytes; then u64 size and the blob's bytes.
 *   4 TARGET (version 2) the target's validated attribute values, so that
 *            the runtime can make the target without its YAML file:
 *            u32 n, then per value: str name, u32 type, i64 i, f64 f,
 *            str s (NULL unless STRING).
 *   5 HOST   (version 3 only; optional) the host programs of a device
 *            target's steps (tvm/host_program.h): u32 count, then per
 *            entry: u32 step index, u64 length, the program's serialized
 *            form (tvm_host_program_encode).  A step with a host program
 *            names its host function, not a kernel of the module; every
 *            kernel its program launches must be in the module with the
 *            same argument count.
 *
 *   7 HETERO (version 4 only) a plan spanning a target and its fallback
 *            (plugin-sdk/docs/HETEROGENEOUS.md): str fallback target_name,
 *            str plugin_name, str plugin_version; its attribute values
 *            (as in TARGET); u32 nvalues, i32 device per value; u32
 *            nsteps, then per step i32 device, u32 copy; u32 nstorage,
 *            i32 device per slot; then the fallback's device module, as
 *            in MODULE (its bytes end the section).  A copy step has two
 *            arguments (source, destination) and calls no kernel; a step
 *            on device 1 calls kernels of the fallback's module.
 *
 * Version 3 is version 2 plus the HOST section, version 4 version 3 plus
 * HETERO (HOST optional): a plan without host programs (CPU targets) is
 * still written as version 2, one with them as 3, and this reader accepts
 * 1 to 4.
 *
 * Loading checks the magic, the version, every size against the file size,
 * both kinds of checksum, then decodes with bounds checks (a section must be
 * consumed exactly) and checks the plan's internal consistency (the same
 * check save runs before writing): value kinds, dtypes, ranks, nbytes ==
 * elements x element size, storage slots and their sizes, parameter ranges,
 * step arguments and kernels (present in the module, same argument count),
 * inputs and outputs.  Only then is the target compared.
 *
 * A loaded plan is made like a compiled one (core/runtime/plan.c):
 * tvm_plan_new gives it an arena holding every string, array and
 * parameter; p->blob's data, kernels and names come from tvm_malloc; both
 * die with tvm_plan_free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "package_int.h"
#include "runtime_int.h"
#include "tvm/host_program.h"

#define PARAM_ALIGN 64u
#define NULL_STR 0xffffffffu

/* Checksums are the core's FNV-1a 64 (tvm_hash_bytes; the header, and
 * sections of flags 0) and its wide checksum (tvm_hash_wide; sections of
 * flags PKG_SEC_WIDESUM): in both every step is a bijection of the state
 * for a fixed input, so a change of any single byte always changes the
 * result. */

/* ---- little-endian byte buffer (writer) --------------------------------- */
typedef struct wbuf {
  unsigned char *d;
  size_t len, cap;
  int oom;
} wbuf;

static void put(wbuf *b, const void *p, size_t n) {
  if (b->oom) return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    unsigned char *nd = tvm_realloc(b->d, cap);
    if (nd == NULL) {
      b->oom = 1;
      return;
    }
    b->d = nd;
    b->cap = cap;
  }
  if (n) memcpy(b->d + b->len, p, n);
  b->len += n;
}
static void put_u8(wbuf *b, uint8_t v) { put(b, &v, 1); }
static void put_u16(wbuf *b, uint16_t v) {
  unsigned char x[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
  put(b, x, 2);
}
static void put_u32(wbuf *b, uint32_t v) {
  unsigned char x[4];
  for (int i = 0; i < 4; i++) x[i] = (unsigned char)(v >> (8 * i));
  put(b, x, 4);
}
static void put_u64(wbuf *b, uint64_t v) {
  unsigned char x[8];
  for (int i = 0; i < 8; i++) x[i] = (unsigned char)(v >> (8 * i));
  put(b, x, 8);
}
static void put_f64(wbuf *b, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  put_u64(b, u);
}
static void put_str(wbuf *b, const char *s) {
  if (s == NULL) {
    put_u32(b, NULL_STR);
    return;
  }
  size_t n = strlen(s);
  put_u32(b, (uint32_t)n);
  put(b, s, n);
}
/* ---- the PARAMS section as pieces (writer) ------------------------------ */
/* The parameters' bytes are written and checksummed where the plan holds
 * them, with the zero padding between them, never copied into one buffer
 * (45 MB of copying and fresh pages for ResNet-18). */
typedef struct pbuf {
  const void **p;
  size_t *n;
  int count, cap;
  size_t len; /* bytes of all the pieces */
  int oom;
} pbuf;

static const unsigned char zeros[PARAM_ALIGN];

static void piece(pbuf *b, const void *p, size_t n) {
  if (b->oom || n == 0) return;
  if (b->count == b->cap) {
    int cap = b->cap ? 2 * b->cap : 64;
    const void **np = tvm_realloc(b->p, (size_t)cap * sizeof *np);
    if (np) b->p = np;
    size_t *nn = np ? tvm_realloc(b->n, (size_t)cap * sizeof *nn) : NULL;
    if (nn) b->n = nn;
    if (!np || !nn) {
      b->oom = 1;
      return;
    }
    b->cap = cap;
  }
  b->p[b->count] = p;
  b->n[b->count++] = n;
  b->len += n;
}
static void poke_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* ---- checksums beside the writing (writer) ------------------------------ */
/* Sections are summed by tvm_hash_wide (PKG_SEC_WIDESUM; 25 ms over
 * the 97 MB of ResNet-18's parameters with Winograd weights; FNV-1a, one
 * serial multiply per byte, 123 ms on a Zen 3).  A large PARAMS section is
 * summed on a thread of its own while the file is written (the header
 * goes last, tvm_write_file_head_last); the header callback joins it,
 * sums the small sections and fills the header's checksums. */
#define THREADED_SUM_BYTES (1u << 20)

typedef struct sums {
  pbuf *const *secs;    /* the sections, in table order */
  int nsec, params;     /* params: index of the PARAMS section */
  unsigned char *head;  /* the header and section table to fill */
  size_t head_len;
  uint64_t params_sum;
  pthread_t thread;
  int threaded;
} sums;

static uint64_t sum_pieces(const pbuf *b) {
  tvm_wsum w;
  tvm_wsum_init(&w);
  for (int k = 0; k < b->count; k++) tvm_wsum_add(&w, b->p[k], b->n[k]);
  return tvm_wsum_final(&w);
}

static void *sum_params(void *arg) {
  sums *s = arg;
  s->params_sum = sum_pieces(s->secs[s->params]);
  return NULL;
}

/* Starts the PARAMS checksum on a thread when the section is large (and a
 * thread can be had; else fill_sums computes it). */
static void start_sums(sums *s) {
  s->threaded = s->secs[s->params]->len >= THREADED_SUM_BYTES &&
                pthread_create(&s->thread, NULL, sum_params, s) == 0;
}

/* The head callback: every section's checksum, then the header's. */
static tvm_status fill_sums(void *ctx) {
  sums *s = ctx;
  if (s->threaded) {
    pthread_join(s->thread, NULL);
    s->threaded = 0;
  } else {
    sum_params(s);
  }
  for (int i = 0; i < s->nsec; i++)
    poke_u64(s->head + PKG_HEADER + (size_t)i * PKG_ENTRY + 24,
             i == s->params ? s->params_sum : sum_pieces(s->secs[i]));
  uint64_t h = tvm_hash_bytes(s->head, 24, TVM_HASH_SEED);
  h = tvm_hash_bytes(s->head + PKG_HEADER, s->head_len - PKG_HEADER, h);
  poke_u64(s->head + 24, h);
  return TVM_OK;
}

/* ---- bounds-checked reader ---------------------------------------------- */
typedef struct rbuf {
  const unsigned char *p, *end;
  int bad; /* sticky: a read ran past the end or a value was malformed */
} rbuf;

static const unsigned char *take(rbuf *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = 1;
    return NULL;
  }
  const unsigned char *q = r->p;
  r->p += n;
  return q;
}
static uint64_t get_le(rbuf *r, int n) {
  const unsigned char *q = take(r, (size_t)n);
  uint64_t v = 0;
  if (q == NULL) return 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)q[i] << (8 * i);
  return v;
}
static uint8_t get_u8(rbuf *r) { return (uint8_t)get_le(r, 1); }
static uint16_t get_u16(rbuf *r) { return (uint16_t)get_le(r, 2); }
static uint32_t get_u32(rbuf *r) { return (uint32_t)get_le(r, 4); }
static uint64_t get_u64(rbuf *r) { return get_le(r, 8); }
static double get_f64(rbuf *r) {
  uint64_t u = get_u64(r);
  double d;
  memcpy(&d, &u, 8);
  return d;
}
/* A count of records of at least min_bytes each that must fit in what
 * remains (so a damaged count cannot ask for a huge allocation). */
static uint32_t get_count(rbuf *r, size_t min_bytes) {
  uint32_t n = get_u32(r);
  if (!r->bad && (uint64_t)n * min_bytes > (uint64_t)(r->end - r->p))
    r->bad = 1;
  return r->bad ? 0 : n;
}
/* A string copied into arena a (or NULL for the NULL marker); strings with
 * an embedded NUL are malformed. */
static const char *get_str(rbuf *r, tvm_arena *a) {
  uint32_t n = get_u32(r);
  if (r->bad || n == NULL_STR) return NULL;
  const unsigned char *q = take(r, n);
  if (q == NULL) return NULL;
  if (memchr(q, 0, n) != NULL) {
    r->bad = 1;
    return NULL;
  }
  char *s = tvm_arena_alloc(a, (size_t)n + 1);
  if (s == NULL) {
    r->bad = 2; /* out of memory */
    return NULL;
  }
  memcpy(s, q, n);
  return s;
}

/* ---- save --------------------------------------------------------------- */
/* Appends a device module (the MODULE section's encoding) to mod. */
static void encode_module(const tvm_plugin_blob *b, wbuf *mod) {
  put_u32(mod, b->format);
  put_u32(mod, b->nkernels);
  for (uint32_t k = 0; k < b->nkernels; k++) {
    const tvm_plugin_kernel *kk = &b->kernels[k];
    put_str(mod, kk->name);
    put_u32(mod, kk->nargs);
    for (int j = 0; j < 3; j++) put_u32(mod, kk->grid[j]);
    for (int j = 0; j < 3; j++) put_u32(mod, kk->block[j]);
    put_u64(mod, kk->shared_bytes);
  }
  put_u64(mod, b->size);
  put(mod, b->data, (size_t)b->size);
}

/* Appends attribute values (the TARGET section's encoding) to w. */
static void encode_attrs(const tvm_plugin_attr_value *a, uint32_t n, wbuf *w) {
  put_u32(w, n);
  for (uint32_t i = 0; i < n; i++) {
    const tvm_plugin_attr_value *v = &a[i];
    put_str(w, v->name);
    put_u32(w, v->type);
    put_u64(w, (uint64_t)v->i);
    put_f64(w, v->f);
    put_str(w, v->type == TVM_PLUGIN_ATTR_STRING ? v->s : NULL);
  }
}

/* Encodes the HETERO section (nothing for a plan on one device). */
static void encode_hetero(const tvm_plan *p, wbuf *w) {
  if (!p->fallback_plugin_name) return;
  put_str(w, p->fallback_target_name);
  put_str(w, p->fallback_plugin_name);
  put_str(w, p->fallback_plugin_version);
  encode_attrs(p->fallback_attrs, p->nfallback_attrs, w);
  put_u32(w, p->nvalues);
  for (uint32_t i = 0; i < p->nvalues; i++)
    put_u32(w, (uint32_t)p->values[i].device);
  put_u32(w, p->nsteps);
  for (uint32_t s = 0; s < p->nsteps; s++) {
    put_u32(w, (uint32_t)p->steps[s].device);
    put_u32(w, p->steps[s].copy);
  }
  put_u32(w, p->nstorage);
  for (uint32_t i = 0; i < p->nstorage; i++)
    put_u32(w, p->storage_device ? (uint32_t)p->storage_device[i] : 0);
  encode_module(&p->fallback_blob, w);
}

/* Encodes the three sections of p into meta, params and mod. */
static void encode(const tvm_plan *p, wbuf *meta, pbuf *params, wbuf *mod) {
  put_str(meta, p->target_name);
  put_str(meta, p->plugin_name);
  put_str(meta, p->plugin_version);
  put_u64(meta, p->activation_bytes_planned);
  put_u64(meta, p->activation_bytes_unplanned);
  put_u32(meta, p->nvalues);
  for (uint32_t i = 0; i < p->nvalues; i++) {
    const tvm_plan_value *v = &p->values[i];
    uint64_t off = 0;
    if (v->kind == TVM_PV_PARAM) {
      piece(params, zeros, (PARAM_ALIGN - params->len % PARAM_ALIGN) %
                               PARAM_ALIGN);
      off = params->len;
      piece(params, v->data, (size_t)v->nbytes);
    }
    put_str(meta, v->name);
    put_u32(meta, v->kind);
    put_u8(meta, v->dtype.code);
    put_u8(meta, v->dtype.bits);
    put_u16(meta, v->dtype.lanes);
    put_u32(meta, (uint32_t)v->ndim);
    for (int d = 0; d < v->ndim; d++) put_u64(meta, (uint64_t)v->shape[d]);
    put_str(meta, v->layout);
    put_u32(meta, (uint32_t)v->storage);
    put_u64(meta, v->nbytes);
    put_u64(meta, off);
  }
  put_u32(meta, p->nsteps);
  for (uint32_t s = 0; s < p->nsteps; s++) {
    const tvm_plan_step *st = &p->steps[s];
    put_str(meta, st->kernel);
    put_str(meta, st->label);
    put_u32(meta, st->nargs);
    for (uint32_t a = 0; a < st->nargs; a++) put_u32(meta, st->args[a]);
    put_f64(meta, st->flops);
  }
  put_u32(meta, p->nstorage);
  for (uint32_t i = 0; i < p->nstorage; i++) put_u64(meta, p->storage_bytes[i]);
  put_u32(meta, p->ninputs);
  for (uint32_t i = 0; i < p->ninputs; i++) put_u32(meta, p->inputs[i]);
  put_u32(meta, p->noutputs);
  for (uint32_t i = 0; i < p->noutputs; i++) put_u32(meta, p->outputs[i]);

  encode_module(&p->blob, mod);
}

/* Encodes the HOST section (nothing when no step has a host program). */
static tvm_status encode_host(const tvm_plan *p, wbuf *host) {
  uint32_t n = 0;
  for (uint32_t s = 0; s < p->nsteps; s++) n += p->steps[s].host != NULL;
  if (n == 0) return TVM_OK;
  put_u32(host, n);
  for (uint32_t s = 0; s < p->nsteps; s++) {
    if (!p->steps[s].host) continue;
    tvm_strbuf b;
    tvm_strbuf_init(&b);
    tvm_status st = tvm_host_program_encode(p->steps[s].host, &b);
    if (st == TVM_OK && b.oom) st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
    if (st == TVM_OK) {
      put_u32(host, s);
      put_u64(host, b.len);
      put(host, b.data, b.len);
    }
    tvm_strbuf_free(&b);
    if (st != TVM_OK) return st;
  }
  return TVM_OK;
}

/* Encodes the TARGET section: the target's attribute values. */
static void encode_target(const tvm_plan *p, wbuf *tgt) {
  encode_attrs(p->target_attrs, p->ntarget_attrs, tgt);
}

/* Writes p to path (through a temporary file renamed over path, so a
 * failed save never leaves half a package). */
tvm_status tvm_package_save(const tvm_plan *p, const char *path) {
  char what[4200];
  wbuf meta = {0}, mod = {0}, tgt = {0}, head = {0};
  pbuf params = {0}, one[6] = {{0}}; /* one: encoded sections, a piece each */
  const void **parts = NULL;
  size_t *lens = NULL;
  tvm_status st;
  if (p == NULL || path == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_package_save: NULL argument");
  snprintf(what, sizeof what, "package %s", path);
  if ((st = runtime_pkg_check_plan(p, what)) != TVM_OK)
    return tvm_diag_prefix(st, "cannot save an inconsistent plan: ");

  if (p->ntarget_attrs && p->target_attrs == NULL)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "cannot save a plan with %u target attributes and no "
                        "values", p->ntarget_attrs);
  encode(p, &meta, &params, &mod);
  encode_target(p, &tgt);
  wbuf host = {0}, het = {0};
  if ((st = encode_host(p, &host)) != TVM_OK) goto done;
  encode_hetero(p, &het);
  /* the HOST section (device targets) makes it a version 3 package, the
   * HETERO section (a fallback target) a version 4 one */
  int NSEC = 4;
  wbuf *enc[6] = {&meta, NULL, &mod, &tgt, NULL, NULL}; /* NULL: PARAMS */
  uint32_t kinds[6] = {SEC_META, SEC_PARAMS, SEC_MODULE, SEC_TARGET, 0, 0};
  if (host.len) enc[NSEC] = &host, kinds[NSEC++] = SEC_HOST;
  if (het.len) enc[NSEC] = &het, kinds[NSEC++] = SEC_HETERO;
  pbuf *secs[6];
  int nparts = 1;
  for (int i = 0; i < NSEC; i++) {
    secs[i] = enc[i] ? &one[i] : &params;
    if (enc[i]) piece(&one[i], enc[i]->d, enc[i]->len);
    nparts += secs[i]->count;
  }
  uint64_t off = PKG_HEADER + (uint64_t)NSEC * PKG_ENTRY;
  uint64_t total = off;
  for (int i = 0; i < NSEC; i++) total += secs[i]->len;
  put(&head, PKG_MAGIC, 8);
  put_u32(&head, het.len    ? PKG_VERSION_HETERO
                 : host.len ? PKG_VERSION_HOST
                            : PKG_VERSION);
  put_u32(&head, (uint32_t)NSEC);
  put_u64(&head, total);
  put_u64(&head, 0); /* checksum, filled below */
  for (int i = 0; i < NSEC; i++) {
    put_u32(&head, kinds[i]);
    put_u32(&head, PKG_SEC_WIDESUM);
    put_u64(&head, off);
    put_u64(&head, secs[i]->len);
    put_u64(&head, 0); /* checksum, filled by fill_sums */
    off += secs[i]->len;
  }
  int oom = meta.oom || params.oom || mod.oom || tgt.oom || host.oom ||
            het.oom || head.oom;
  for (int i = 0; i < NSEC; i++) oom |= one[i].oom;
  parts = tvm_malloc((size_t)nparts * sizeof *parts);
  lens = tvm_malloc((size_t)nparts * sizeof *lens);
  if (oom || !parts || !lens) {
    st = tvm_diag_set(TVM_ERR_NOMEM, "out of memory writing %s", what);
    goto done;
  }
  parts[0] = head.d;
  lens[0] = head.len;
  nparts = 1;
  for (int i = 0; i < NSEC; i++)
    for (int k = 0; k < secs[i]->count; k++) {
      parts[nparts] = secs[i]->p[k];
      lens[nparts++] = secs[i]->n[k];
    }
  sums sm = {.secs = secs, .nsec = NSEC, .params = 1, .head = head.d,
             .head_len = head.len};
  start_sums(&sm);
  st = tvm_write_file_head_last(path, "package", parts, lens, nparts, 0666,
                                fill_sums, &sm);
  if (sm.threaded) /* the writer failed before it asked for the header */
    pthread_join(sm.thread, NULL);
done:
  for (int i = 0; i < 6; i++) {
    tvm_free(one[i].p);
    tvm_free(one[i].n);
  }
  tvm_free(parts);
  tvm_free(lens);
  tvm_free(meta.d);
  tvm_free(params.p);
  tvm_free(params.n);
  tvm_free(mod.d);
  tvm_free(tgt.d);
  tvm_free(host.d);
  tvm_free(het.d);
  tvm_free(head.d);
  return st;
}

/* ---- load --------------------------------------------------------------- */
/* See tvm/runtime.h. */
uint64_t tvm_package_section_checksum(uint32_t flags, const void *p,
                                      size_t n) {
  return flags & PKG_SEC_WIDESUM ? tvm_hash_wide(p, n)
                                 : tvm_hash_bytes(p, n, TVM_HASH_SEED);
}

/* Checks the header, the table, the layout and the checksums; fills
 * secs[kind] for the kinds this reader knows. */
tvm_status runtime_pkg_check_container(const char *what,
                                       const unsigned char *d, size_t size,
                                       section secs[SEC_COUNT]) {
  rbuf r = {d, d + size, 0};
  if (size < PKG_HEADER || memcmp(d, PKG_MAGIC, 8) != 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is not a tvmc package (bad magic; make one with "
                        "tvmc compile)",
                        what);
  take(&r, 8);
  uint32_t version = get_u32(&r);
  uint32_t n = get_u32(&r);
  uint64_t fsize = get_u64(&r);
  uint64_t hsum = get_u64(&r);
  if (version < PKG_VERSION_OLDEST || version > PKG_VERSION_HETERO)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s has package format version %u; this tvmc reads "
                        "versions %u to %u: recompile the model with this "
                        "tvmc",
                        what, version, PKG_VERSION_OLDEST, PKG_VERSION_HETERO);
  if (fsize != size)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged or truncated: its header says %llu "
                        "bytes, the file has %zu",
                        what, (unsigned long long)fsize, size);
  if (n < 1 || n > PKG_MAX_SECTIONS ||
      PKG_HEADER + (uint64_t)n * PKG_ENTRY > size)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged: bad section count %u", what, n);
  uint64_t h = tvm_hash_bytes(d, 24, TVM_HASH_SEED);
  h = tvm_hash_bytes(d + PKG_HEADER, (size_t)n * PKG_ENTRY, h);
  if (h != hsum)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged: header checksum mismatch", what);
  uint64_t expect_off = PKG_HEADER + (uint64_t)n * PKG_ENTRY;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t kind = get_u32(&r);
    uint32_t flags = get_u32(&r);
    uint64_t off = get_u64(&r), len = get_u64(&r), sum = get_u64(&r);
    if (flags & ~PKG_SEC_FLAGS_KNOWN)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "%s: section %u (kind %u) has flags 0x%x this tvmc "
                          "does not know: it was written by a newer tvmc "
                          "(recompile the model with this one) or is damaged",
                          what, i, kind, flags);
    if (off != expect_off || len > size - off)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s is damaged or truncated: section %u (kind %u) "
                          "at %llu+%llu does not fit the file layout",
                          what, i, kind, (unsigned long long)off,
                          (unsigned long long)len);
    if (tvm_package_section_checksum(flags, d + off, (size_t)len) != sum)
      return tvm_diag_set(TVM_ERR_INVALID,
                          "%s is damaged: checksum mismatch in section %u "
                          "(kind %u)",
                          what, i, kind);
    if (kind >= SEC_META && kind <= SEC_LAST) {
      if (secs[kind].seen)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s: section kind %u appears twice", what, kind);
      secs[kind].p = d + off;
      secs[kind].len = len;
      secs[kind].seen = 1;
      secs[kind].index = i;
    }
    expect_off = off + len;
  }
  if (expect_off != size)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged: %llu bytes after the last section",
                        what, (unsigned long long)(size - expect_off));
  int last = version >= 2 ? SEC_TARGET : SEC_MODULE;
  if (version < 2) secs[SEC_TARGET].seen = 0; /* not part of version 1 */
  if (version < 3) secs[SEC_HOST].seen = 0;   /* nor HOST of version 2 */
  if (version < 4) secs[SEC_HETERO].seen = 0; /* nor HETERO of 3 */
  for (int k = SEC_META; k <= last; k++)
    if (!secs[k].seen)
      return tvm_diag_set(TVM_ERR_INVALID, "%s has no section of kind %d",
                          what, k);
  return TVM_OK;
}

/* Decodes the HOST section (when present) into p's steps. */
static tvm_status decode_host(const char *what, section *sec, tvm_plan *p) {
  if (!sec->seen) return TVM_OK;
  rbuf r = {sec->p, sec->p + sec->len, 0};
  uint32_t n = get_count(&r, 12);
  for (uint32_t i = 0; i < n && !r.bad; i++) {
    uint32_t s = get_u32(&r);
    uint64_t len = get_u64(&r);
    const unsigned char *d = r.bad ? NULL : take(&r, (size_t)len);
    tvm_host_program *hp = NULL;
    size_t used = 0;
    if (r.bad || !d || s >= p->nsteps || p->steps[s].host) {
      r.bad = 1;
      break;
    }
    tvm_status st = tvm_host_program_decode(d, (size_t)len, tvm_plan_arena(p),
                                            &used, &hp);
    if (st != TVM_OK)
      return tvm_diag_prefix(st, "%s: host program of step %u: ", what, s);
    if (used != len) {
      r.bad = 1;
      break;
    }
    p->steps[s].host = hp;
  }
  if (r.bad || r.p != r.end)
    return tvm_diag_set(TVM_ERR_INVALID, "%s is damaged: bad HOST section",
                        what);
  return TVM_OK;
}

/* Decodes META (with PARAMS for the parameters' data, in view) into p. */
static tvm_status decode_meta(const char *what, section *meta,
                              section *params, const tvm_file_view *view,
                              tvm_plan *p) {
  tvm_arena *a = tvm_plan_arena(p);
  rbuf r = {meta->p, meta->p + meta->len, 0};
  p->target_name = get_str(&r, a);
  p->plugin_name = get_str(&r, a);
  p->plugin_version = get_str(&r, a);
  p->activation_bytes_planned = get_u64(&r);
  p->activation_bytes_unplanned = get_u64(&r);
  p->nvalues = get_count(&r, 4 + 4 + 4 + 4 + 4 + 4 + 8 + 8);
  if (p->nvalues) {
    p->values = tvm_arena_alloc(a, sizeof(tvm_plan_value) * p->nvalues);
    if (p->values == NULL) r.bad = 2;
  }
  for (uint32_t i = 0; i < p->nvalues && !r.bad; i++) {
    tvm_plan_value *v = &p->values[i];
    v->name = get_str(&r, a);
    v->kind = get_u32(&r);
    v->dtype.code = get_u8(&r);
    v->dtype.bits = get_u8(&r);
    v->dtype.lanes = get_u16(&r);
    uint32_t nd = get_u32(&r);
    if (nd > TVM_MAX_DIMS) {
      r.bad = 1;
      break;
    }
    v->ndim = (int)nd;
    for (uint32_t d = 0; d < nd; d++) v->shape[d] = (int64_t)get_u64(&r);
    v->layout = get_str(&r, a);
    v->storage = (int32_t)get_u32(&r);
    v->nbytes = get_u64(&r);
    uint64_t off = get_u64(&r);
    if (r.bad) break;
    if (v->kind == TVM_PV_PARAM) {
      if (off > params->len || v->nbytes > params->len - off) {
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s is damaged: parameter %u ('%s') lies outside "
                            "the parameter section",
                            what, i, v->name ? v->name : "?");
      }
      /* on a cache line, so an executor on host memory can pass the
       * parameter in place (tvm_plugin_target_info.host_memory) */
      char *raw = tvm_arena_alloc(a, (size_t)v->nbytes + PARAM_ALIGN - 16);
      if (raw == NULL) {
        r.bad = 2;
        break;
      }
      char *data = raw + (-(uintptr_t)raw & (PARAM_ALIGN - 1));
      memcpy(data, params->p + off, (size_t)v->nbytes);
      tvm_file_view_done(view,
                         (size_t)(params->p + off -
                                  (const unsigned char *)view->data),
                         (size_t)v->nbytes);
      v->data = data;
    } else if (off != 0) {
      r.bad = 1;
    }
  }
  p->nsteps = r.bad ? 0 : get_count(&r, 4 + 4 + 4 + 8);
  if (p->nsteps) {
    p->steps = tvm_arena_alloc(a, sizeof(tvm_plan_step) * p->nsteps);
    if (p->steps == NULL) r.bad = 2;
  }
  for (uint32_t s = 0; s < p->nsteps && !r.bad; s++) {
    tvm_plan_step *st = &p->steps[s];
    st->kernel = get_str(&r, a);
    st->label = get_str(&r, a);
    st->nargs = get_count(&r, 4);
    uint32_t *args = tvm_arena_alloc(a, sizeof(uint32_t) * (st->nargs + 1));
    if (args == NULL) r.bad = 2;
    for (uint32_t i = 0; i < st->nargs && !r.bad; i++) args[i] = get_u32(&r);
    st->args = args;
    st->flops = get_f64(&r);
  }
  p->nstorage = r.bad ? 0 : get_count(&r, 8);
  p->storage_bytes = tvm_arena_alloc(a, sizeof(uint64_t) * (p->nstorage + 1));
  if (p->storage_bytes == NULL) r.bad = 2;
  for (uint32_t i = 0; i < p->nstorage && !r.bad; i++)
    p->storage_bytes[i] = get_u64(&r);
  p->ninputs = r.bad ? 0 : get_count(&r, 4);
  p->inputs = tvm_arena_alloc(a, sizeof(uint32_t) * (p->ninputs + 1));
  if (p->inputs == NULL) r.bad = 2;
  for (uint32_t i = 0; i < p->ninputs && !r.bad; i++) p->inputs[i] = get_u32(&r);
  p->noutputs = r.bad ? 0 : get_count(&r, 4);
  p->outputs = tvm_arena_alloc(a, sizeof(uint32_t) * (p->noutputs + 1));
  if (p->outputs == NULL) r.bad = 2;
  for (uint32_t i = 0; i < p->noutputs && !r.bad; i++)
    p->outputs[i] = get_u32(&r);
  if (r.bad == 2)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory loading %s", what);
  if (r.bad || r.p != r.end)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged: the plan section is malformed", what);
  if (p->target_name == NULL || p->plugin_name == NULL)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged: no target recorded", what);
  return TVM_OK;
}

/* Decodes MODULE into p->blob (tvm_malloc'd, freed by
 * tvm_plugin_blob_free). */
static tvm_status decode_blob(const char *what, rbuf r, tvm_plugin_blob *b) {
  b->struct_size = sizeof(*b);
  b->format = get_u32(&r);
  uint32_t nk = get_count(&r, 4 + 4 + 24 + 8);
  if (r.bad) goto bad;
  b->kernels = tvm_calloc(nk ? nk : 1, sizeof(tvm_plugin_kernel));
  if (b->kernels == NULL) goto nomem;
  for (uint32_t k = 0; k < nk; k++) {
    tvm_plugin_kernel *kk = &b->kernels[k];
    uint32_t n = get_u32(&r);
    const unsigned char *q = n == NULL_STR ? NULL : take(&r, n);
    if (q == NULL || memchr(q, 0, n)) goto bad;
    char *name = tvm_malloc((size_t)n + 1);
    if (name == NULL) goto nomem;
    memcpy(name, q, n);
    name[n] = 0;
    kk->name = name;
    b->nkernels = k + 1; /* so that blob_free frees the names so far */
    kk->struct_size = sizeof(*kk);
    kk->nargs = get_u32(&r);
    for (int j = 0; j < 3; j++) kk->grid[j] = get_u32(&r);
    for (int j = 0; j < 3; j++) kk->block[j] = get_u32(&r);
    kk->shared_bytes = get_u64(&r);
  }
  uint64_t size = get_u64(&r);
  if (r.bad || size != (uint64_t)(r.end - r.p)) goto bad;
  b->data = tvm_malloc(size ? (size_t)size : 1);
  if (b->data == NULL) goto nomem;
  memcpy(b->data, r.p, (size_t)size);
  b->size = size;
  return TVM_OK;
bad:
  return tvm_diag_set(TVM_ERR_INVALID,
                      "%s is damaged: the device module section is malformed",
                      what);
nomem:
  return tvm_diag_set(TVM_ERR_NOMEM, "out of memory loading %s", what);
}

/* Decodes MODULE into p->blob. */
static tvm_status decode_module(const char *what, section *mod, tvm_plan *p) {
  rbuf r = {mod->p, mod->p + mod->len, 0};
  return decode_blob(what, r, &p->blob);
}

/* Decodes attribute values (TARGET's encoding) from r into the plan's
 * arena; r->bad = 1 when malformed, 2 when out of memory. */
static void decode_attrs(rbuf *rp, tvm_plan *p,
                         const tvm_plugin_attr_value **out, uint32_t *nout) {
  tvm_arena *a = tvm_plan_arena(p);
  rbuf r = *rp;
  uint32_t n = get_count(&r, 4 + 4 + 8 + 8 + 4);
  tvm_plugin_attr_value *v =
      r.bad ? NULL : tvm_arena_alloc(a, sizeof(*v) * (n ? n : 1));
  if (!r.bad && v == NULL) r.bad = 2;
  for (uint32_t i = 0; i < n && !r.bad; i++) {
    v[i].struct_size = sizeof(v[i]);
    v[i].name = get_str(&r, a);
    v[i].type = get_u32(&r);
    v[i].i = (int64_t)get_u64(&r);
    v[i].f = get_f64(&r);
    v[i].s = get_str(&r, a);
    if (!r.bad && (v[i].name == NULL || v[i].type < TVM_PLUGIN_ATTR_INT ||
                   v[i].type > TVM_PLUGIN_ATTR_STRING ||
                   (v[i].type == TVM_PLUGIN_ATTR_STRING) != (v[i].s != NULL)))
      r.bad = 1;
  }
  *out = v;
  *nout = n;
  *rp = r;
}

/* Decodes TARGET into p->target_attrs (the plan's arena). */
static tvm_status decode_target(const char *what, section *sec, tvm_plan *p) {
  rbuf r = {sec->p, sec->p + sec->len, 0};
  decode_attrs(&r, p, &p->target_attrs, &p->ntarget_attrs);
  if (r.bad == 2)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory loading %s", what);
  if (r.bad || r.p != r.end)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged: the target section is malformed",
                        what);
  return TVM_OK;
}

/* Decodes HETERO (when present): the fallback target, the devices of
 * values, steps and slots, and the fallback's module. */
static tvm_status decode_hetero(const char *what, section *sec, tvm_plan *p) {
  if (!sec->seen) return TVM_OK;
  tvm_arena *a = tvm_plan_arena(p);
  rbuf r = {sec->p, sec->p + sec->len, 0};
  int32_t *sdev = NULL;
  p->fallback_target_name = get_str(&r, a);
  p->fallback_plugin_name = get_str(&r, a);
  p->fallback_plugin_version = get_str(&r, a);
  if (!r.bad) decode_attrs(&r, p, &p->fallback_attrs, &p->nfallback_attrs);
  if (!r.bad && get_u32(&r) != p->nvalues) r.bad = 1;
  for (uint32_t i = 0; i < p->nvalues && !r.bad; i++)
    p->values[i].device = (int32_t)get_u32(&r);
  if (!r.bad && get_u32(&r) != p->nsteps) r.bad = 1;
  for (uint32_t s = 0; s < p->nsteps && !r.bad; s++) {
    p->steps[s].device = (int32_t)get_u32(&r);
    p->steps[s].copy = get_u32(&r);
  }
  if (!r.bad && get_u32(&r) != p->nstorage) r.bad = 1;
  if (!r.bad) {
    sdev = tvm_arena_alloc(a, sizeof(int32_t) * (p->nstorage + 1));
    if (sdev == NULL) r.bad = 2;
  }
  for (uint32_t i = 0; i < p->nstorage && !r.bad; i++)
    sdev[i] = (int32_t)get_u32(&r);
  p->storage_device = sdev;
  if (r.bad == 2)
    return tvm_diag_set(TVM_ERR_NOMEM, "out of memory loading %s", what);
  if (r.bad || p->fallback_target_name == NULL ||
      p->fallback_plugin_name == NULL)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s is damaged: the HETERO section is malformed",
                        what);
  return decode_blob(what, r, &p->fallback_blob);
}

/* Refuses a package built for another target than expect. */
static tvm_status check_target(const char *path, const tvm_plan *p,
                               const tvm_target *expect) {
  const char *want_plugin = expect->plugin_name;
  if (strcmp(p->plugin_name, want_plugin) != 0 ||
      strcmp(p->target_name, expect->name) != 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "package %s was built for target '%s' (plugin %s "
                        "%s), not '%s': recompile with tvmc compile "
                        "--target %s",
                        path, p->target_name, p->plugin_name,
                        p->plugin_version ? p->plugin_version : "?",
                        expect->name, expect->name);
  const char *have = expect->plugin ? expect->plugin->version : NULL;
  if (have && p->plugin_version && strcmp(have, p->plugin_version) != 0)
    tvm_log(TVM_LOG_WARN,
            "package %s was built with plugin %s %s; this is %s %s "
            "(recompile if it fails)",
            path, p->plugin_name, p->plugin_version, p->plugin_name, have);
  return TVM_OK;
}

/* Loads and checks a package. */
tvm_status tvm_package_load(const char *path, const tvm_target *expect,
                            tvm_plan **out) {
  char what[4200];
  tvm_file_view view;
  section secs[SEC_COUNT];
  tvm_plan *p = NULL;
  tvm_status st;

  if (out) *out = NULL;
  if (path == NULL || out == NULL)
    return tvm_diag_set(TVM_ERR_INVALID, "tvm_package_load: NULL argument");
  snprintf(what, sizeof what, "package %s", path);
  memset(secs, 0, sizeof secs);
  /* mapped, not read: the parameters are copied once, into the plan */
  if ((st = tvm_map_file(path, "package", &view)) != TVM_OK) return st;
  const unsigned char *buf = view.data;
  size_t size = view.size;
  if ((st = runtime_pkg_check_container(what, buf, size, secs)) != TVM_OK ||
      (st = runtime_pkg_check_trust(what, buf, size, secs)) != TVM_OK)
    goto fail;
  if ((st = tvm_plan_new(&p)) != TVM_OK) goto fail;
  if ((st = decode_meta(what, &secs[SEC_META], &secs[SEC_PARAMS], &view, p)) !=
          TVM_OK ||
      (st = decode_module(what, &secs[SEC_MODULE], p)) != TVM_OK ||
      (secs[SEC_TARGET].seen &&
       (st = decode_target(what, &secs[SEC_TARGET], p)) != TVM_OK) ||
      (st = decode_host(what, &secs[SEC_HOST], p)) != TVM_OK ||
      (st = decode_hetero(what, &secs[SEC_HETERO], p)) != TVM_OK)
    goto fail;
  if ((st = runtime_pkg_check_plan(p, what)) != TVM_OK) {
    tvm_diag_prefix(st, "inconsistent plan: ");
    goto fail;
  }
  if (expect && (st = check_target(path, p, expect)) != TVM_OK) goto fail;
  tvm_unmap_file(&view);
  *out = p;
  return TVM_OK;
fail:
  tvm_plan_free(p);
  tvm_unmap_file(&view);
  return st;
}
