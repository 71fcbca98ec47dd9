/*
 * core/base/strbuf.c - a growable, always NUL-terminated string buffer.
 *
 * Appends never fail loudly: the first failed growth sets b->oom and every
 * later append is a no-op, so a printer checks once at the end.
 */
#include <stdio.h>
#include <string.h>

#include "tvm/base.h"

/* An empty buffer (no memory held yet). */
void tvm_strbuf_init(tvm_strbuf *b) {
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

/* Makes room for extra more bytes plus the terminator; 0 on failure. */
static int reserve(tvm_strbuf *b, size_t extra) {
  if (b->oom) return 0;
  if (extra > SIZE_MAX - b->len - 1) {
    b->oom = 1;
    return 0;
  }
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return 1;
  size_t ncap = b->cap ? b->cap : 64;
  while (ncap < need) ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
  char *d = tvm_realloc(b->data, ncap);
  if (!d) {
    b->oom = 1;
    return 0;
  }
  b->data = d;
  b->cap = ncap;
  return 1;
}

/* Appends the first n bytes of s. */
void tvm_strbuf_appendn(tvm_strbuf *b, const char *s, size_t n) {
  if (!reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

/* Appends the string s (NULL appends nothing). */
void tvm_strbuf_append(tvm_strbuf *b, const char *s) {
  if (s) tvm_strbuf_appendn(b, s, strlen(s));
}

/* Appends formatted text. */
void tvm_strbuf_printf(tvm_strbuf *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    tvm_strbuf_appendn(b, small, (size_t)n);
    return;
  }
  if (!reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* Frees the memory and resets b to empty. */
void tvm_strbuf_free(tvm_strbuf *b) {
  tvm_free(b->data);
  tvm_strbuf_init(b);
}

/* Returns the text (free with tvm_free) and resets b.  An empty buffer
 * yields a fresh "" string; NULL means out of memory (now or earlier). */
char *tvm_strbuf_take(tvm_strbuf *b) {
  char *s;
  if (b->oom) {
    tvm_strbuf_free(b);
    return NULL;
  }
  s = b->data ? b->data : tvm_strdup("");
  tvm_strbuf_init(b);
  return s;
}
