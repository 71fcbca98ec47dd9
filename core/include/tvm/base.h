/*
 * tvm/base.h - the base layer: status codes, per-thread diagnostics,
 * the replaceable allocator, arenas and growable vectors.
 *
 * Every function in the project that can fail returns tvm_status (0 on
 * success, a negative code otherwise) and leaves a human-readable message
 * in the calling thread's diagnostic, which tvm_diag_message() returns.
 */
#ifndef TVM_BASE_H
#define TVM_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One export macro: the core is built with -fvisibility=hidden. */
#if defined(__GNUC__)
#define TVM_API __attribute__((visibility("default")))
#define TVM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TVM_API
#define TVM_PRINTF(f, a)
#endif

/* Highest tensor rank anywhere (graphs, plans, packages). */
#define TVM_MAX_DIMS 8

/* ---- status codes -------------------------------------------------- */
typedef int32_t tvm_status;
enum {
  TVM_OK = 0,
  TVM_ERR_INVALID = -1,     /* bad argument or malformed input */
  TVM_ERR_NOMEM = -2,       /* allocation failed */
  TVM_ERR_UNSUPPORTED = -3, /* valid, but not supported (yet) here */
  TVM_ERR_IO = -4,          /* file or OS error */
  TVM_ERR_UNAVAILABLE = -5, /* a device or dependency is missing */
  TVM_ERR_NOT_FOUND = -6,   /* a named thing does not exist */
  TVM_ERR_ABI = -7,         /* plugin ABI negotiation failed */
  TVM_ERR_INTERNAL = -8     /* a bug: an invariant did not hold */
};

/* Short name of a status code ("invalid", "nomem", ...). */
TVM_API const char *tvm_status_name(tvm_status st);

/* ---- diagnostics (per thread) -------------------------------------- */
/* Set the calling thread's diagnostic and return st, so that a failing
 * function can write `return tvm_diag_set(TVM_ERR_INVALID, "...", ...);`. */
TVM_API tvm_status tvm_diag_set(tvm_status st, const char *fmt, ...)
    TVM_PRINTF(2, 3);
TVM_API tvm_status tvm_diag_setv(tvm_status st, const char *fmt, va_list ap);
/* Prepend context ("while compiling foo: ") to the current diagnostic. */
TVM_API tvm_status tvm_diag_prefix(tvm_status st, const char *fmt, ...)
    TVM_PRINTF(2, 3);
/* The message of the last failure on this thread ("" if none). */
TVM_API const char *tvm_diag_message(void);
TVM_API tvm_status tvm_diag_status(void);
TVM_API void tvm_diag_clear(void);

/* Logging to stderr, filtered by TVM_LOG_LEVEL (0 quiet .. 3 debug). */
enum { TVM_LOG_ERROR = 0, TVM_LOG_WARN = 1, TVM_LOG_INFO = 2, TVM_LOG_DEBUG = 3 };
TVM_API void tvm_log(int level, const char *fmt, ...) TVM_PRINTF(2, 3);

/* Seconds on the monotonic clock (for differences only). */
TVM_API double tvm_now_s(void);

/* ---- allocator ------------------------------------------------------ */
/* All heap memory of the core goes through this one function, which the
 * embedder may replace (Lua's lua_Alloc): realloc semantics, with
 * nsize == 0 meaning free.  Returns NULL on failure. */
typedef void *(*tvm_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
TVM_API void tvm_set_allocator(tvm_alloc_fn fn, void *ud);
TVM_API void *tvm_malloc(size_t n);
TVM_API void *tvm_calloc(size_t count, size_t size);
TVM_API void *tvm_realloc(void *p, size_t n);
TVM_API void tvm_free(void *p);
TVM_API char *tvm_strdup(const char *s);

/* ---- checked sizes -------------------------------------------------- */
/* Element counts, byte counts, strides and offsets derived from input are
 * computed with these: each returns 1 (and leaves *r unspecified) when the
 * exact result does not fit, 0 otherwise.  They are the compiler's
 * overflow builtins, so they cost one instruction and a branch. */
static inline int tvm_mul_overflow_i64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
static inline int tvm_add_overflow_i64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static inline int tvm_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
static inline int tvm_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static inline int tvm_mul_overflow_size(size_t a, size_t b, size_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
static inline int tvm_add_overflow_size(size_t a, size_t b, size_t *r) {
  return __builtin_add_overflow(a, b, r);
}
/* The product of ndim non-negative dimensions into *numel; TVM_ERR_INVALID
 * (diagnostic naming `what` and the dimension where it overflowed) when a
 * dimension is negative or the product does not fit in int64. */
TVM_API tvm_status tvm_shape_numel(const char *what, const int64_t *shape,
                                   int ndim, int64_t *numel);
/* numel elements of elem_bytes each, as bytes, with the same checks. */
TVM_API tvm_status tvm_shape_bytes(const char *what, const int64_t *shape,
                                   int ndim, int64_t elem_bytes,
                                   int64_t *bytes);

/* ---- arenas ---------------------------------------------------------- */
/* An arena hands out memory that is freed all at once.  IR nodes live in
 * arenas; nothing in an arena is freed one by one. */
typedef struct tvm_arena tvm_arena;
TVM_API tvm_arena *tvm_arena_create(void);
TVM_API void tvm_arena_destroy(tvm_arena *a);
/* Zeroed, 16-byte aligned memory, or NULL when out of memory.  A block
 * that does not fit in the rest of the current chunk starts a chunk (of
 * its own when over 16 KiB), so on a 64-byte boundary. */
TVM_API void *tvm_arena_alloc(tvm_arena *a, size_t n);
TVM_API char *tvm_arena_strdup(tvm_arena *a, const char *s);
TVM_API char *tvm_arena_printf(tvm_arena *a, const char *fmt, ...)
    TVM_PRINTF(2, 3);
TVM_API size_t tvm_arena_bytes(const tvm_arena *a);
/* p (a block of src) when src gave it a chunk of its own (a big
 * allocation, at least n bytes): dst then holds it too, and it is freed
 * with the last of the two arenas; NULL otherwise (copy it instead).
 * Shared memory is read-only to both. */
TVM_API const void *tvm_arena_share(tvm_arena *dst, tvm_arena *src,
                                    const void *p, size_t n);

/* ---- growable vectors (heap, not arena) ------------------------------ */
/* A type-generic vector of pointers, the workhorse container. */
typedef struct tvm_ptrvec {
  void **data;
  size_t len, cap;
} tvm_ptrvec;
TVM_API tvm_status tvm_ptrvec_push(tvm_ptrvec *v, void *p);
TVM_API void tvm_ptrvec_free(tvm_ptrvec *v);

/* A growable string buffer, used by printers and emitters. */
typedef struct tvm_strbuf {
  char *data; /* always NUL-terminated when non-NULL */
  size_t len, cap;
  int oom;    /* set once an append failed; later appends are no-ops */
} tvm_strbuf;
TVM_API void tvm_strbuf_init(tvm_strbuf *b);
TVM_API void tvm_strbuf_append(tvm_strbuf *b, const char *s);
TVM_API void tvm_strbuf_appendn(tvm_strbuf *b, const char *s, size_t n);
TVM_API void tvm_strbuf_printf(tvm_strbuf *b, const char *fmt, ...)
    TVM_PRINTF(2, 3);
TVM_API void tvm_strbuf_free(tvm_strbuf *b);
/* Hands the buffer to the caller (free with tvm_free); resets b. */
TVM_API char *tvm_strbuf_take(tvm_strbuf *b);

/* ---- pointer-keyed hash map (heap) ----------------------------------- */
typedef struct tvm_ptrmap {
  void **keys;
  void **vals;
  size_t cap, len;
} tvm_ptrmap;
TVM_API tvm_status tvm_ptrmap_put(tvm_ptrmap *m, const void *key, void *val);
/* Returns 1 and sets *val when found, 0 otherwise. */
TVM_API int tvm_ptrmap_get(const tvm_ptrmap *m, const void *key, void **val);
TVM_API void tvm_ptrmap_free(tvm_ptrmap *m);

/* ---- hashing and the string-keyed hash map (heap) -------------------- */
#define TVM_HASH_SEED 14695981039346656037ull
/* FNV-1a over n bytes, continuing from h (TVM_HASH_SEED to start). */
TVM_API uint64_t tvm_hash_bytes(const void *p, size_t n, uint64_t h);
/* FNV-1a of a NUL-terminated string. */
TVM_API uint64_t tvm_hash_str(const char *s);
/* The wide checksum of packages' sections: four 64-bit lanes, each taking
 * an 8-byte word per step (state = ((state ^ word) * K) ^ shift), the
 * lanes and the last n % 32 bytes folded at the end.  Every step is a
 * bijection of the state for a fixed word and of the word for a fixed
 * state, so a change of any single byte always changes the result, like
 * FNV-1a, at about 5x its speed (FNV-1a is one multiply per byte in one
 * chain).  Streamed: init, add pieces in order, final. */
typedef struct tvm_wsum {
  uint64_t lane[4];
  unsigned char buf[32]; /* the bytes of an incomplete block */
  size_t nbuf;
} tvm_wsum;
TVM_API void tvm_wsum_init(tvm_wsum *s);
TVM_API void tvm_wsum_add(tvm_wsum *s, const void *p, size_t n);
TVM_API uint64_t tvm_wsum_final(const tvm_wsum *s);
/* init + add + final of one buffer. */
TVM_API uint64_t tvm_hash_wide(const void *p, size_t n);
/* String -> pointer; keys are borrowed (they must outlive the map); the
 * zero-initialized struct is empty. */
typedef struct tvm_strmap {
  const char **keys;
  void **vals;
  size_t cap, len;
} tvm_strmap;
/* The value of key, or NULL when absent. */
TVM_API void *tvm_strmap_get(const tvm_strmap *m, const char *key);
/* Inserts or replaces key; TVM_ERR_NOMEM on failure. */
TVM_API tvm_status tvm_strmap_put(tvm_strmap *m, const char *key, void *val);
TVM_API void tvm_strmap_free(tvm_strmap *m);

/* ---- files ------------------------------------------------------------ */
/* Reads all of path into a tvm_malloc'd buffer followed by one NUL byte
 * (not counted in *size), at most max_bytes (0 = no limit).  `what` names
 * the file's role in messages ("package", "ONNX model").  Fails with
 * TVM_ERR_IO (a missing file included) or TVM_ERR_NOMEM, naming the file. */
TVM_API tvm_status tvm_read_file(const char *path, const char *what,
                                 size_t max_bytes, void **data, size_t *size);

/* The bytes of a file for reading only: a regular file is mapped (no copy
 * and no fresh pages: a model is tens of megabytes), anything else, or a
 * file that cannot be mapped, is read with tvm_read_file.  The file must
 * not be truncated while it is mapped.  tvm_unmap_file releases it. */
typedef struct tvm_file_view {
  const void *data; /* never NULL after success, even for an empty file */
  size_t size;
  int mapped; /* 1: munmap, 0: tvm_free */
} tvm_file_view;
TVM_API tvm_status tvm_map_file(const char *path, const char *what,
                                tvm_file_view *out);
TVM_API void tvm_unmap_file(tvm_file_view *f);
/* The caller is done with bytes [off, off + len) of f: where f is mapped,
 * the whole pages among them leave the process's resident memory (they
 * are read from the file again if touched).  A package's parameters,
 * copied out one by one, then never sit in memory twice. */
TVM_API void tvm_file_view_done(const tvm_file_view *f, size_t off,
                                size_t len);

/* Writes the nparts buffers, one after the other, as the file path (mode:
 * permission bits of a new file, e.g. 0644).  A regular file (or a new
 * one) is written through a temporary file renamed over path, so a
 * failed write leaves what was there; an existing file that is not
 * regular (/dev/null, /dev/stdout, a FIFO) is written in place, never
 * replaced.  Fails with TVM_ERR_IO naming `what` and the path. */
TVM_API tvm_status tvm_write_file(const char *path, const char *what,
                                  const void *const *parts,
                                  const size_t *lens, int nparts, int mode);
/* tvm_write_file whose first part (a header of lens[0] bytes) is filled by
 * head(ctx) while the file is written: a regular file gets the other
 * parts first and parts[0] last, at offset 0, so that head can wait for
 * checksums computed alongside the writing; a file written in place gets
 * head called first.  A failure of head is returned as is and leaves no
 * file behind (a regular file) or what was written (in place). */
TVM_API tvm_status tvm_write_file_head_last(const char *path,
                                            const char *what,
                                            const void *const *parts,
                                            const size_t *lens, int nparts,
                                            int mode,
                                            tvm_status (*head)(void *ctx),
                                            void *ctx);

/* Levenshtein distance, for "did you mean" suggestions. */
TVM_API size_t tvm_edit_distance(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif /* TVM_BASE_H */
