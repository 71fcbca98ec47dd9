/*
 * tests/plugins/vdla/vdla_harness.h - compiles VDLA's int8 conv2d and
 * dense (plugins/vdla/vdla_workload.h) with the plugin's strategies and
 * pass, runs them on the plugin's simulated device, and compares them
 * with the scalar references.  Shared by test_vdla_plugin and bench/vdla.
 * The plugin's sources are linked in (its statistics are read directly).
 */
#ifndef VDLA_HARNESS_H
#define VDLA_HARNESS_H

#include "vdla_plugin.h"
#include "vdla_workload.h"

typedef struct vh {
  const tvm_plugin_vtable *vt;
  tvm_plugin_target *t;
  tvm_lower_options lo;
  tvm_scope_info scopes[3];
  tvm_plugin_device *dev;
} vh;

/* Opens a target with hardware hw (NULL: the paper's) and its device. */
tvm_status vh_open(vh *h, const vdla_config *hw);
void vh_close(vh *h);

/* What a run does and gives. */
typedef struct vh_run {
  int nvt;          /* knob n_vt: 1 serial, 2 latency hiding */
  int mode;         /* VDLA_FUNCTIONAL / TIMED / SHUFFLE */
  uint64_t seed;
  int keep_stream;  /* fill stream with the command list */
  /* knobs forced to a split whose inner part is the value (NULL name:
   * none) */
  const char *force[4];
  int64_t force_inner[4];
  int drop_tokens;  /* remove the dependency tokens before codegen */
  int ignore_reject; /* lower even when the template rejects the knobs */
  int64_t config_index; /* > 0: tvm_config_set_index(index - 1) */
  int rejected;       /* the template rejected the knobs (not run) */
  uint64_t space;     /* size of the knob space */
  /* results */
  vdla_stats st;
  int64_t mismatches; /* elements differing from the reference */
  int64_t elems;
  char config[256];   /* the knob values */
  char *stream;       /* vdla_kernel_str of the kernel (free()) */
  char *program;      /* the driver's instructions, one a line (free()) */
  uint64_t uop_misses;
} vh_run;

tvm_status vh_conv2d(vh *h, const vdla_conv_shape *s, vh_run *r);
tvm_status vh_dense(vh *h, const vdla_dense_shape *s, vh_run *r);

#endif /* VDLA_HARNESS_H */
