/*
 * toyaccel_interp.c - the toyaccel "hardware": parses a blob and runs its
 * bytecode on the host.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toyaccel.h"

/* Reads n bytes at *pos of blob b into dst; 0 when the blob is short. */
static int take(const tvm_plugin_blob *b, uint64_t *pos, void *dst,
                uint64_t n) {
  if (b->size < *pos || b->size - *pos < n) return 0;
  memcpy(dst, b->data + *pos, n);
  *pos += n;
  return 1;
}

/* Frees parsed functions. */
void toy_funcs_free(toy_func *funcs, uint32_t n) {
  for (uint32_t i = 0; funcs && i < n; i++) {
    free(funcs[i].name);
    free(funcs[i].code);
  }
  free(funcs);
}

/* Parses and checks a blob: every jump and slot index in range. */
int32_t toy_parse(const tvm_plugin_blob *b, toy_func **funcs, uint32_t *n) {
  uint64_t pos = 0;
  char magic[4];
  uint32_t cnt;
  if (b->format != TVM_BLOB_CUSTOM || !take(b, &pos, magic, 4) ||
      memcmp(magic, "TOY1", 4) != 0 || !take(b, &pos, &cnt, 4) ||
      cnt > 1u << 16)
    return toy_fail(TVM_ERR_INVALID, "toyaccel: not a toyaccel blob");
  toy_func *fs = calloc(cnt ? cnt : 1, sizeof(*fs));
  if (fs == NULL) return toy_fail(TVM_ERR_NOMEM, "toyaccel: OOM");
  for (uint32_t i = 0; i < cnt; i++) {
    uint32_t len;
    toy_func *f = &fs[i];
    int ok = take(b, &pos, &len, 4) && len < 4096 &&
             (f->name = calloc(1, len + 1)) != NULL &&
             take(b, &pos, f->name, len) && take(b, &pos, &f->nparams, 4) &&
             take(b, &pos, &f->nslots, 4) && take(b, &pos, &f->ninsns, 4) &&
             f->nparams <= f->nslots && f->ninsns > 0 &&
             f->ninsns < (1u << 24) &&
             (f->code = calloc(f->ninsns, sizeof(toy_insn))) != NULL &&
             take(b, &pos, f->code, (uint64_t)f->ninsns * sizeof(toy_insn));
    for (uint32_t k = 0; ok && k < f->ninsns; k++) {
      const toy_insn *in = &f->code[k];
      if (in->op < TOY_PUSH || in->op > TOY_HALT || in->a < 0 ||
          ((in->op == TOY_JMP || in->op == TOY_JZ) &&
           (uint32_t)in->a > f->ninsns) ||
          ((in->op == TOY_GET || in->op == TOY_SET || in->op == TOY_LOAD ||
            in->op == TOY_STORE || in->op == TOY_ALLOC ||
            in->op == TOY_FREE) && (uint32_t)in->a >= f->nslots))
        ok = 0;
    }
    if (!ok) {
      toy_funcs_free(fs, cnt);
      return toy_fail(TVM_ERR_INVALID, "toyaccel: corrupt blob (function %u)",
                      i);
    }
  }
  *funcs = fs;
  *n = cnt;
  return 0;
}

typedef union slot {
  double d;
  void *p;
} slot;

/* Rounds a result to its type: float32 exactly, integers truncated. */
static double fit(double x, uint8_t dt) {
  switch (dt) {
  case TOY_F32: return (double)(float)x;
  case TOY_F64: return x;
  case TOY_BOOL: return x != 0;
  case TOY_I8: return (double)(int8_t)(int64_t)x;
  case TOY_U8: return (double)(uint8_t)(int64_t)x;
  case TOY_I16: return (double)(int16_t)(int64_t)x;
  case TOY_I32: return (double)(int32_t)(int64_t)x;
  default: return (double)(int64_t)x;
  }
}

static int is_int(uint8_t dt) { return dt != TOY_F32 && dt != TOY_F64; }

/* Bytes of one element of dt. */
static size_t dt_bytes(uint8_t dt) {
  switch (dt) {
  case TOY_F64: case TOY_I64: return 8;
  case TOY_I8: case TOY_U8: case TOY_BOOL: return 1;
  case TOY_I16: return 2;
  default: return 4;
  }
}

/* Element i of a buffer of dt, as a double. */
static double load(const void *base, int64_t i, uint8_t dt) {
  switch (dt) {
  case TOY_F32: return ((const float *)base)[i];
  case TOY_F64: return ((const double *)base)[i];
  case TOY_I8: return ((const int8_t *)base)[i];
  case TOY_U8: case TOY_BOOL: return ((const uint8_t *)base)[i];
  case TOY_I16: return ((const int16_t *)base)[i];
  case TOY_I64: return (double)((const int64_t *)base)[i];
  default: return ((const int32_t *)base)[i];
  }
}

/* Stores v as element i of a buffer of dt. */
static void store(void *base, int64_t i, uint8_t dt, double v) {
  switch (dt) {
  case TOY_F32: ((float *)base)[i] = (float)v; break;
  case TOY_F64: ((double *)base)[i] = v; break;
  case TOY_I8: ((int8_t *)base)[i] = (int8_t)v; break;
  case TOY_U8: case TOY_BOOL: ((uint8_t *)base)[i] = (uint8_t)v; break;
  case TOY_I16: ((int16_t *)base)[i] = (int16_t)v; break;
  case TOY_I64: /* the stack holds doubles: saturate what int64 cannot hold */
    ((int64_t *)base)[i] = v >= 0x1p63 ? INT64_MAX
                           : v < -0x1p63 ? INT64_MIN : (int64_t)v;
    break;
  default: ((int32_t *)base)[i] = (int32_t)v; break;
  }
}

#define STACK 256

/* Interprets f: parameters in the first slots, a value stack of 256. */
int32_t toy_run(const toy_func *f, const tvm_plugin_arg *args,
                uint32_t nargs, int trace) {
  if (nargs != f->nparams)
    return toy_fail(TVM_ERR_INVALID, "toyaccel: %s takes %u arguments, %u given",
                    f->name, f->nparams, nargs);
  slot *s = calloc(f->nslots ? f->nslots : 1, sizeof(*s));
  if (s == NULL) return toy_fail(TVM_ERR_NOMEM, "toyaccel: OOM");
  for (uint32_t i = 0; i < nargs; i++) {
    if (args[i].type == TVM_ARG_PTR) s[i].p = args[i].v.ptr;
    else if (args[i].type == TVM_ARG_INT) s[i].d = (double)args[i].v.i;
    else s[i].d = args[i].v.f;
  }
  double st[STACK];
  int sp = 0;
  uint64_t steps = 0;
  int32_t rc = 0;
  for (uint32_t pc = 0; rc == 0;) {
    const toy_insn *in = &f->code[pc++];
    steps++;
    if (sp > STACK - 4) {
      rc = toy_fail(TVM_ERR_UNSUPPORTED, "toyaccel: expression too deep");
      break;
    }
    double a, b;
    switch (in->op) {
    case TOY_PUSH: st[sp++] = in->imm; break;
    case TOY_GET: st[sp++] = s[in->a].d; break;
    case TOY_SET: s[in->a].d = st[--sp]; break;
    case TOY_POP: sp--; break;
#define BIN(OP, EXPR)                                                    \
  case OP:                                                               \
    b = st[--sp];                                                        \
    a = st[sp - 1];                                                      \
    st[sp - 1] = fit(EXPR, in->dt);                                      \
    break;
    BIN(TOY_ADD, a + b)
    BIN(TOY_SUB, a - b)
    BIN(TOY_MUL, a * b)
    BIN(TOY_MIN, a < b ? a : b)
    BIN(TOY_MAX, a > b ? a : b)
#undef BIN
    case TOY_DIV: case TOY_MOD: case TOY_FLOORDIV: case TOY_FLOORMOD:
      b = st[--sp];
      a = st[sp - 1];
      if (is_int(in->dt) && b == 0) {
        rc = toy_fail(TVM_ERR_INVALID, "toyaccel: integer division by zero");
        break;
      }
      if (!is_int(in->dt)) st[sp - 1] = fit(in->op == TOY_DIV ? a / b
                                            : in->op == TOY_FLOORDIV
                                                ? floor(a / b)
                                                : a - floor(a / b) * b,
                                            in->dt);
      else {
        int64_t x = (int64_t)a, y = (int64_t)b, q = x / y, r = x % y;
        if ((in->op == TOY_FLOORDIV || in->op == TOY_FLOORMOD) && r != 0 &&
            ((r < 0) != (y < 0)))
          q--, r += y;
        st[sp - 1] = fit((double)(in->op == TOY_DIV || in->op == TOY_FLOORDIV
                                      ? q : r), in->dt);
      }
      break;
#define CMP(OP, EXPR)                                                    \
  case OP:                                                               \
    b = st[--sp];                                                        \
    a = st[sp - 1];                                                      \
    st[sp - 1] = (EXPR) ? 1.0 : 0.0;                                     \
    break;
    CMP(TOY_EQ, a == b)
    CMP(TOY_NE, a != b)
    CMP(TOY_LT, a < b)
    CMP(TOY_LE, a <= b)
    CMP(TOY_GT, a > b)
    CMP(TOY_GE, a >= b)
    CMP(TOY_AND, a != 0 && b != 0)
    CMP(TOY_OR, a != 0 || b != 0)
#undef CMP
    case TOY_NOT: st[sp - 1] = st[sp - 1] == 0; break;
    case TOY_SELECT:
      b = st[--sp];
      a = st[--sp];
      st[sp - 1] = st[sp - 1] != 0 ? a : b;
      break;
    case TOY_CAST: st[sp - 1] = fit(is_int(in->dt) ? trunc(st[sp - 1])
                                                   : st[sp - 1], in->dt);
      break;
    case TOY_EXP: st[sp - 1] = fit(exp(st[sp - 1]), in->dt); break;
    case TOY_LOG: st[sp - 1] = fit(log(st[sp - 1]), in->dt); break;
    case TOY_SQRT: st[sp - 1] = fit(sqrt(st[sp - 1]), in->dt); break;
    case TOY_FABS: st[sp - 1] = fit(fabs(st[sp - 1]), in->dt); break;
    case TOY_TANH: st[sp - 1] = fit(tanh(st[sp - 1]), in->dt); break;
    case TOY_FLOOR: st[sp - 1] = fit(floor(st[sp - 1]), in->dt); break;
    case TOY_LOAD:
      st[sp - 1] = load(s[in->a].p, (int64_t)st[sp - 1], in->dt);
      break;
    case TOY_STORE:
      b = st[--sp];
      a = st[--sp];
      store(s[in->a].p, (int64_t)a, in->dt, b);
      break;
    case TOY_ALLOC:
      s[in->a].p = calloc((size_t)st[--sp] + 1, dt_bytes(in->dt));
      if (s[in->a].p == NULL) rc = toy_fail(TVM_ERR_NOMEM, "toyaccel: OOM");
      break;
    case TOY_FREE:
      free(s[in->a].p);
      s[in->a].p = NULL;
      break;
    case TOY_JMP: pc = (uint32_t)in->a; break;
    case TOY_JZ:
      if (st[--sp] == 0) pc = (uint32_t)in->a;
      break;
    case TOY_TRAP:
      rc = toy_fail(TVM_ERR_INVALID, "toyaccel: assertion failed in %s",
                    f->name);
      break;
    case TOY_HALT: goto done;
    default:
      rc = toy_fail(TVM_ERR_INVALID, "toyaccel: bad opcode %u", in->op);
    }
    if (sp < 0 || pc >= f->ninsns) {
      rc = toy_fail(TVM_ERR_INVALID, "toyaccel: corrupt program %s", f->name);
    }
  }
done:
  if (trace && rc == 0)
    tvm_sdk_log(toy_host, TVM_LOG_INFO, "toyaccel: %s ran %llu instructions",
                f->name, (unsigned long long)steps);
  free(s);
  return rc;
}
