/*
 * tests/unit/runtime/test_npy.c - .npy files: round trips of every
 * supported dtype and rank, files as NumPy writes them (format 1.0 and
 * 2.0, byte for byte), and the errors: bad magic, unsupported dtype,
 * big-endian, Fortran order, truncation, trailing bytes, broken headers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/ir.h"
#include "tvm/npy.h"

static char path[256];

static int setup(void **state) {
  (void)state;
  const char *base = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/tvm-npy-%ld.npy",
           base && *base ? base : "/tmp", (long)getpid());
  return 0;
}

static int teardown(void **state) {
  (void)state;
  remove(path);
  return 0;
}

static unsigned char *read_all(const char *p, size_t *len) {
  FILE *f = fopen(p, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return b;
}

/* Saves a tensor of dtype/shape filled with a byte pattern, loads it back
 * and compares. */
static void roundtrip(tvm_dtype dt, const int64_t *shape, int ndim) {
  DLTensor *t = NULL, *u = NULL;
  assert_int_equal(tvm_npy_alloc(dt, shape, ndim, &t), TVM_OK);
  size_t nb = (size_t)tvm_dtype_bytes(dt);
  for (int i = 0; i < ndim; i++) nb *= (size_t)shape[i];
  unsigned char *d = t->data;
  for (size_t i = 0; i < nb; i++)
    d[i] = dt.bits == 1 ? (unsigned char)(i % 3 == 0) : (unsigned char)(i * 37 + 5);
  assert_int_equal(tvm_npy_save(path, t), TVM_OK);
  size_t len;
  unsigned char *file = read_all(path, &len);
  assert_int_equal((len - nb) % 64, 0); /* data aligned to 64 */
  assert_int_equal(file[len - nb - 1], '\n');
  free(file);
  if (tvm_npy_load(path, &u) != TVM_OK) fail_msg("%s", tvm_diag_message());
  assert_int_equal(u->ndim, ndim);
  assert_true(tvm_dtype_eq(u->dtype, dt));
  for (int i = 0; i < ndim; i++) assert_int_equal(u->shape[i], shape[i]);
  assert_null(u->strides);
  assert_int_equal(u->device.device_type, kDLCPU);
  assert_int_equal((uintptr_t)u->data % 64, 0);
  assert_memory_equal(u->data, t->data, nb);
  tvm_npy_free(t);
  tvm_npy_free(u);
}

static void test_roundtrips(void **state) {
  (void)state;
  const tvm_dtype dts[] = {TVM_F32, TVM_F64, TVM_I32, TVM_I64,
                           TVM_I8,  TVM_U8,  TVM_BOOL};
  const int64_t s3[3] = {2, 3, 5}, s1[1] = {7}, s0[1] = {0};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    roundtrip(dts[i], s3, 3);
    roundtrip(dts[i], s1, 1);
    roundtrip(dts[i], NULL, 0); /* a scalar */
    roundtrip(dts[i], s0, 1);   /* empty */
  }
}

/* The file NumPy writes for np.save(p, np.arange(6, dtype='<f4')
 * .reshape(2, 3)) (format 1.0): the dict, spaces up to byte 127 and '\n',
 * so that the data starts at byte 128. */
static size_t numpy_header(unsigned char *buf) {
  const char *dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  memcpy(buf, "\x93NUMPY\x01\x00\x76\x00", 10); /* 0x76 = 118 = 128 - 10 */
  memset(buf + 10, ' ', 118);
  memcpy(buf + 10, dict, strlen(dict));
  buf[127] = '\n';
  return 128;
}

static void test_numpy_bytes(void **state) {
  (void)state;
  unsigned char buf[256];
  float data[6] = {0, 1, 2, 3, 4, 5};
  size_t hl = numpy_header(buf);
  memcpy(buf + hl, data, sizeof data);
  DLTensor *t = NULL;
  assert_int_equal(tvm_npy_load_buffer(buf, hl + sizeof data, "a.npy", &t),
                   TVM_OK);
  assert_int_equal(t->ndim, 2);
  assert_int_equal(t->shape[0], 2);
  assert_int_equal(t->shape[1], 3);
  assert_memory_equal(t->data, data, sizeof data);
  /* what we write for the same tensor is byte-identical to NumPy's */
  assert_int_equal(tvm_npy_save(path, t), TVM_OK);
  size_t len;
  unsigned char *file = read_all(path, &len);
  assert_int_equal(len, hl + sizeof data);
  assert_memory_equal(file, buf, len);
  free(file);
  tvm_npy_free(t);

  /* format 2.0: 4-byte header length; 1-d shape "(4,)"; int64 */
  const char h2[] = "{\"descr\": \"<i8\", \"fortran_order\": False, "
                    "\"shape\": (4,)}\n";
  size_t n2 = strlen(h2);
  int64_t v[4] = {-1, 2, -3, 1ll << 40};
  buf[0] = 0x93;
  memcpy(buf + 1, "NUMPY", 5);
  buf[6] = 2;
  buf[7] = 0;
  buf[8] = (unsigned char)n2;
  buf[9] = buf[10] = buf[11] = 0;
  memcpy(buf + 12, h2, n2);
  memcpy(buf + 12 + n2, v, sizeof v);
  assert_int_equal(tvm_npy_load_buffer(buf, 12 + n2 + sizeof v, "b.npy", &t),
                   TVM_OK);
  assert_true(tvm_dtype_eq(t->dtype, TVM_I64));
  assert_int_equal(t->ndim, 1);
  assert_int_equal(t->shape[0], 4);
  assert_memory_equal(t->data, v, sizeof v);
  tvm_npy_free(t);
}

/* Expects the buffer made of header text h (format 1.0) and ndata data
 * bytes to be refused with status st and a message containing the file
 * name and `needle`. */
static void refused(const char *h, size_t ndata, tvm_status st,
                    const char *needle) {
  unsigned char buf[512];
  size_t n = strlen(h);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (unsigned char)n;
  buf[9] = 0;
  memcpy(buf + 10, h, n);
  memset(buf + 10 + n, 0, ndata);
  DLTensor *t = (DLTensor *)1;
  assert_int_equal(tvm_npy_load_buffer(buf, 10 + n + ndata, "in.npy", &t), st);
  if (st == TVM_OK) {
    assert_non_null(t);
    tvm_npy_free(t);
    return;
  }
  assert_null(t);
  const char *m = tvm_diag_message();
  if (strstr(m, "in.npy") == NULL || strstr(m, needle) == NULL)
    fail_msg("message '%s' lacks '%s'", m, needle);
}

static void test_errors(void **state) {
  (void)state;
  const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  refused(ok, 8, TVM_OK, ""); /* control: loads */
  DLTensor *t = NULL;
  refused("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", 16,
          TVM_ERR_UNSUPPORTED, "unsupported dtype");
  refused("{'descr': '<m8', 'fortran_order': False, 'shape': (2,), }\n", 16,
          TVM_ERR_UNSUPPORTED, "unsupported dtype");
  refused("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }\n", 4,
          TVM_OK, ""); /* float16 loads */
  refused("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", 8,
          TVM_ERR_UNSUPPORTED, "big-endian");
  refused("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", 16,
          TVM_ERR_UNSUPPORTED, "Fortran");
  refused(ok, 7, TVM_ERR_INVALID, "truncated");
  refused(ok, 9, TVM_ERR_INVALID, "unexpected bytes");
  refused("{'descr': '<f4', 'shape': (2,), }\n", 8, TVM_ERR_INVALID,
          "fortran_order");
  refused("{'descr': '<f4', 'fortran_order': False, }\n", 8, TVM_ERR_INVALID,
          "shape");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }\n", 8,
          TVM_ERR_INVALID, "dimension");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3\n", 8,
          TVM_ERR_INVALID, "shape");
  refused("{'fortran_order': False, 'shape': (2,), }\n", 8, TVM_ERR_INVALID,
          "descr");

  /* bad magic, unknown version, header longer than the file */
  unsigned char bad[32] = "PK\x03\x04 not numpy at all.....";
  assert_int_equal(tvm_npy_load_buffer(bad, sizeof bad, "z.npy", &t),
                   TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "z.npy: not a .npy file"));
  memcpy(bad, "\x93NUMPY\x04\x00", 8);
  assert_int_equal(tvm_npy_load_buffer(bad, sizeof bad, "z.npy", &t),
                   TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "version 4.0"));
  memcpy(bad, "\x93NUMPY\x01\x00\xff\x00", 10);
  assert_int_equal(tvm_npy_load_buffer(bad, sizeof bad, "z.npy", &t),
                   TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), "truncated"));
  assert_int_equal(tvm_npy_load_buffer(bad, 5, "z.npy", &t), TVM_ERR_INVALID);

  /* a missing file names itself */
  assert_int_equal(tvm_npy_load("/nonexistent/x.npy", &t), TVM_ERR_IO);
  assert_non_null(strstr(tvm_diag_message(), "/nonexistent/x.npy"));

  /* saving: unsupported dtype, non-CPU tensor */
  int64_t shape[1] = {2};
  float d[2] = {1, 2};
  DLTensor s;
  memset(&s, 0, sizeof s);
  s.data = d;
  s.ndim = 1;
  s.shape = shape;
  s.device.device_type = kDLCPU;
  s.dtype = tvm_dt(kDLBfloat, 16, 1); /* numpy has no bfloat16 */
  assert_int_equal(tvm_npy_save(path, &s), TVM_ERR_UNSUPPORTED);
  assert_non_null(strstr(tvm_diag_message(), "bfloat16"));
  s.dtype = TVM_F32;
  s.device.device_type = kDLCUDA;
  assert_int_equal(tvm_npy_save(path, &s), TVM_ERR_INVALID);
  assert_non_null(strstr(tvm_diag_message(), path));
}

/* Every truncation of a valid file is refused (never a crash). */
static void test_truncations(void **state) {
  (void)state;
  int64_t shape[2] = {3, 4};
  DLTensor *t = NULL, *u = NULL;
  assert_int_equal(tvm_npy_alloc(TVM_F32, shape, 2, &t), TVM_OK);
  assert_int_equal(tvm_npy_save(path, t), TVM_OK);
  size_t len;
  unsigned char *file = read_all(path, &len);
  for (size_t n = 0; n < len; n++) {
    assert_int_not_equal(tvm_npy_load_buffer(file, n, "cut.npy", &u), TVM_OK);
    assert_null(u);
  }
  assert_int_equal(tvm_npy_load_buffer(file, len, "cut.npy", &u), TVM_OK);
  tvm_npy_free(u);
  free(file);
  tvm_npy_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrips),
      cmocka_unit_test(test_numpy_bytes),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_truncations),
  };
  return cmocka_run_group_tests_name("npy", tests, setup, teardown);
}
