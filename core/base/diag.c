/*
 * core/base/diag.c - status names, the per-thread diagnostic and logging.
 *
 * Every failing function leaves one human-readable message in the calling
 * thread's diagnostic (a fixed buffer in thread-local storage, so setting it
 * never allocates and never fails).  Messages longer than the buffer are
 * truncated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/base.h"

#define DIAG_CAP 2048

static _Thread_local char diag_msg[DIAG_CAP];
static _Thread_local tvm_status diag_st;

/* Short, stable name of a status code, for messages and logs. */
const char *tvm_status_name(tvm_status st) {
  switch (st) {
  case TVM_OK: return "ok";
  case TVM_ERR_INVALID: return "invalid";
  case TVM_ERR_NOMEM: return "nomem";
  case TVM_ERR_UNSUPPORTED: return "unsupported";
  case TVM_ERR_IO: return "io";
  case TVM_ERR_UNAVAILABLE: return "unavailable";
  case TVM_ERR_NOT_FOUND: return "not-found";
  case TVM_ERR_ABI: return "abi";
  case TVM_ERR_INTERNAL: return "internal";
  default: return "unknown";
  }
}

/* Replaces this thread's diagnostic with the formatted message and records
 * st; returns st so that callers can `return tvm_diag_setv(...)`. */
tvm_status tvm_diag_setv(tvm_status st, const char *fmt, va_list ap) {
  diag_st = st;
  if (!fmt) {
    diag_msg[0] = '\0';
    return st;
  }
  vsnprintf(diag_msg, sizeof diag_msg, fmt, ap);
  return st;
}

/* printf-style front end of tvm_diag_setv. */
tvm_status tvm_diag_set(tvm_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tvm_diag_setv(st, fmt, ap);
  va_end(ap);
  return st;
}

/* Prepends formatted context to the current message (the message keeps
 * its text, the status becomes st); returns st. */
tvm_status tvm_diag_prefix(tvm_status st, const char *fmt, ...) {
  char old[DIAG_CAP];
  char pre[DIAG_CAP];
  va_list ap;
  memcpy(old, diag_msg, sizeof old);
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  size_t np = strlen(pre), no = strlen(old);
  if (np > DIAG_CAP - 1) np = DIAG_CAP - 1;
  if (no > DIAG_CAP - 1 - np) no = DIAG_CAP - 1 - np;
  memcpy(diag_msg, pre, np);
  memcpy(diag_msg + np, old, no);
  diag_msg[np + no] = '\0';
  diag_st = st;
  return st;
}

/* The last message set on this thread ("" when none). */
const char *tvm_diag_message(void) { return diag_msg; }

/* The status recorded with the last message (TVM_OK when none). */
tvm_status tvm_diag_status(void) { return diag_st; }

/* Forgets this thread's diagnostic. */
void tvm_diag_clear(void) {
  diag_msg[0] = '\0';
  diag_st = TVM_OK;
}

/* Threshold from TVM_LOG_LEVEL: a message prints when its level is at most
 * the threshold (0 = errors only, 3 = everything); default 1 (warnings). */
static int log_threshold(void) {
  const char *s = getenv("TVM_LOG_LEVEL");
  if (!s || !*s) return TVM_LOG_WARN;
  char *end;
  long v = strtol(s, &end, 10);
  if (*end != '\0') return TVM_LOG_WARN;
  return v < 0 ? -1 : (int)(v > 3 ? 3 : v);
}

/* Writes one line "tvm: <level>: message" to stderr when level passes the
 * TVM_LOG_LEVEL filter.  A negative TVM_LOG_LEVEL silences everything. */
void tvm_log(int level, const char *fmt, ...) {
  static const char *names[] = {"error", "warning", "info", "debug"};
  if (level > log_threshold()) return;
  char msg[DIAG_CAP];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *name = level >= 0 && level <= 3 ? names[level] : "log";
  size_t n = strlen(msg);
  fprintf(stderr, "tvm: %s: %s%s", name, msg,
          n > 0 && msg[n - 1] == '\n' ? "" : "\n");
}
