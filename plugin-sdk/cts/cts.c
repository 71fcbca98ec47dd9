/*
 * plugin-sdk/cts/cts.c - tvm-plugin-cts, the conformance tests any
 * plugin can run:
 *
 *   tvm-plugin-cts TARGET      (a target name or a .yaml path)
 *
 * Checks the plugin's descriptor, attribute schema and target_info, the
 * codegen of a few hand-built loop programs (cts_programs.c), codegen
 * from two threads at once, and, when probe says this machine can run
 * the target, runs every program against its C reference and times one.
 * Then what the plugin adds (cts_strategies.c, cts_intrin.c): every
 * strategy on its operator's example cases, every tensor intrinsic
 * tensorizing a GEMM, every memory scope, and alter_layout on
 * convolutions - compiled always, run and compared where the machine can
 * run the target.
 * Prints TAP ("ok N - ...", "not ok N - ...", "# SKIP") and exits 0 when
 * nothing failed, 1 otherwise, 2 on bad usage.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cts.h"

static int ntests, nfailed;

/* Reports one check: TAP line, with the reason when it failed. */
int cts_check(int ok, const char *what, const char *why) {
  ntests++;
  if (ok) printf("ok %d - %s\n", ntests, what);
  else {
    nfailed++;
    printf("not ok %d - %s: %s\n", ntests, what, why ? why : "");
  }
  return ok;
}

/* Reports a check that cannot run here (TAP SKIP). */
void cts_skip(const char *what, const char *why) {
  ntests++;
  printf("ok %d - %s # SKIP %s\n", ntests, what, why);
}

/* ---- static checks ---------------------------------------------------- */
static void check_descriptor(const tvm_target *t) {
  const tvm_plugin_entry *p = t->plugin;
  char why[512];
  snprintf(why, sizeof why, "descriptor name '%s', target plugin '%s'",
           p->name, t->plugin_name);
  cts_check(strcmp(p->name, t->plugin_name) == 0,
        "descriptor name equals the YAML's plugin:", why);
  cts_check(p->version && *p->version && strcmp(p->version, "?") != 0,
        "descriptor has a version", "version is NULL or empty");
  cts_check(p->desc->description && *p->desc->description,
        "descriptor has a description", "description is NULL or empty");
  snprintf(why, sizeof why, "abi_version %u", p->abi_version);
  cts_check(p->abi_version >= TVM_PLUGIN_ABI_MIN &&
            p->abi_version <= TVM_PLUGIN_ABI_VERSION,
        "negotiated ABI version is one this host speaks", why);
  cts_check(p->desc->struct_size >= sizeof(tvm_plugin_desc),
        "descriptor struct_size covers the descriptor", "too small");
}

/* The attribute schema is well-formed and fully validated. */
static void check_schema(const tvm_target *t) {
  const tvm_plugin_entry *p = t->plugin;
  uint32_t n = tvm_plugin_nattrs(p);
  char why[512] = "";
  int ok = 1;
  for (uint32_t i = 0; i < n && ok; i++) {
    const tvm_plugin_attr *a = tvm_plugin_attr_at(p, i);
    if (a->struct_size < sizeof(tvm_plugin_attr))
      ok = 0, snprintf(why, sizeof why, "attr %u: struct_size %u", i,
                       a->struct_size);
    else if (a->name == NULL || !*a->name)
      ok = 0, snprintf(why, sizeof why, "attr %u has no name", i);
    else if (a->type < TVM_PLUGIN_ATTR_INT || a->type > TVM_PLUGIN_ATTR_STRING)
      ok = 0, snprintf(why, sizeof why, "attr %s: type %u", a->name, a->type);
    else if ((a->type == TVM_PLUGIN_ATTR_INT || a->type == TVM_PLUGIN_ATTR_FLOAT) &&
             a->min > a->max)
      ok = 0, snprintf(why, sizeof why, "attr %s: min > max", a->name);
    else if (a->choices && (a->type != TVM_PLUGIN_ATTR_STRING || !*a->choices))
      ok = 0, snprintf(why, sizeof why, "attr %s: bad choices", a->name);
    else if (a->doc == NULL || !*a->doc)
      ok = 0, snprintf(why, sizeof why, "attr %s: no doc line", a->name);
    for (uint32_t j = 0; j < i && ok; j++)
      if (strcmp(tvm_plugin_attr_at(p, j)->name, a->name) == 0)
        ok = 0, snprintf(why, sizeof why, "attr %s twice", a->name);
  }
  cts_check(ok, "attribute schema is well-formed (names, types, ranges, docs)",
        why);
  cts_check(t->nattrs == n, "every schema attribute has a validated value",
        "count mismatch");
}

/* target_info is complete and its arrays well-formed. */
static void check_info(const tvm_target *t) {
  const tvm_plugin_target_info *in = tvm_target_info(t);
  char why[512] = "";
  int ok = in->struct_size >= sizeof(tvm_plugin_target_info);
  if (!ok) snprintf(why, sizeof why, "struct_size %u", in->struct_size);
  cts_check(ok, "target_info is present and complete", why);
  if (!ok) return;
  cts_check(in->description && *in->description, "target_info has a description",
        "description is NULL or empty");
  ok = in->nscopes == 0 || in->scopes != NULL;
  for (uint32_t i = 0; ok && i < in->nscopes; i++) {
    const tvm_plugin_scope *s = &in->scopes[i];
    if (!s->name || !*s->name)
      ok = 0, snprintf(why, sizeof why, "scope %u has no name", i);
    else if (s->visibility == 0 || (s->visibility & ~0xfu))
      ok = 0, snprintf(why, sizeof why, "scope %s: visibility %#x", s->name,
                       s->visibility);
    else if (s->align & (s->align - 1))
      ok = 0, snprintf(why, sizeof why, "scope %s: align %u", s->name,
                       s->align);
    else if (s->queue >= 0 && (uint32_t)s->queue >= in->num_queues)
      ok = 0, snprintf(why, sizeof why, "scope %s: queue %d of %u", s->name,
                       s->queue, in->num_queues);
  }
  cts_check(ok, "memory scopes are well-formed", why);
  ok = in->nstrategies == 0 || in->strategies != NULL;
  for (uint32_t i = 0; ok && i < in->nstrategies; i++) {
    /* the table's stride is its entries' struct_size (ABI 1-3: 32) */
    const tvm_plugin_strategy *s = tvm_plugin_strategy_at(in, i);
    int fn = s && (s->schedule || (s->struct_size >= sizeof *s &&
                                   s->schedule_call));
    if (!s || !s->op || !s->name || !fn)
      ok = 0, snprintf(why, sizeof why, "strategy %u incomplete", i);
  }
  cts_check(ok, "strategies name an op, a template and a schedule function",
        why);
  ok = in->nintrins == 0 || in->intrins != NULL;
  for (uint32_t i = 0; ok && i < in->nintrins; i++)
    if (!in->intrins[i].name || !in->intrins[i].declare)
      ok = 0, snprintf(why, sizeof why, "intrinsic %u incomplete", i);
  cts_check(ok, "tensor intrinsics have a name and a declare function", why);
}

/* ---- codegen ------------------------------------------------------------- */
/* Checks a blob's shape: format, and a kernel named like the function. */
static int blob_ok(const tvm_plugin_blob *b, const cts_program *p,
                   char *why, size_t cap) {
  if (b->format == 0) return snprintf(why, cap, "format 0"), 0;
  if (b->nkernels == 0 || b->kernels == NULL)
    return snprintf(why, cap, "no kernels"), 0;
  for (uint32_t k = 0; k < b->nkernels; k++)
    if (b->kernels[k].name && strcmp(b->kernels[k].name, p->name) == 0) {
      uint32_t want = (uint32_t)(p->nbufs + p->has_n);
      if (b->kernels[k].nargs != want)
        return snprintf(why, cap, "kernel %s: nargs %u, expected %u",
                        p->name, b->kernels[k].nargs, want), 0;
      return 1;
    }
  return snprintf(why, cap, "no kernel named %s", p->name), 0;
}

/* Codegen of program p (lowered with the target's options) succeeds. */
static void check_codegen(const tvm_target *t, const cts_program *p) {
  char what[256], why[1024] = "";
  snprintf(what, sizeof what, "codegen: %s (%s)", p->name, p->what);
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_target_lower_options(t, &o);
  tvm_module *m = c ? p->build(c, p, &o) : NULL;
  if (m == NULL) {
    cts_check(0, what, tvm_diag_message());
    tvm_ctx_destroy(c);
    return;
  }
  tvm_plugin_blob b;
  if (tvm_target_codegen(t, m, &b) != TVM_OK) {
    cts_check(0, what, tvm_diag_message());
  } else {
    cts_check(blob_ok(&b, p, why, sizeof why), what, why);
    tvm_plugin_blob_free(&b);
  }
  tvm_ctx_destroy(c);
}

typedef struct cg_thread {
  const tvm_target *t;
  int ok;
} cg_thread;

/* Codegen of every program on one thread (for the reentrancy check). */
static void *codegen_all(void *arg) {
  cg_thread *a = arg;
  a->ok = 1;
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < cts_nprograms; i++) {
      tvm_ctx *c = tvm_ctx_create();
      tvm_lower_options o;
      tvm_target_lower_options(a->t, &o);
      tvm_module *m =
          c ? cts_programs[i].build(c, &cts_programs[i], &o) : NULL;
      tvm_plugin_blob b;
      if (m == NULL || tvm_target_codegen(a->t, m, &b) != TVM_OK) a->ok = 0;
      else tvm_plugin_blob_free(&b);
      tvm_ctx_destroy(c);
    }
  return NULL;
}

/* Two threads compile every program at once. */
static void check_reentrant(const tvm_target *t) {
  cg_thread a[2] = {{t, 0}, {t, 0}};
  pthread_t th[2];
  int started = 0;
  for (int i = 0; i < 2; i++)
    if (pthread_create(&th[i], NULL, codegen_all, &a[i]) == 0) started++;
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  cts_check(started == 2 && a[0].ok && a[1].ok,
        "codegen is reentrant (two threads at once)",
        "a concurrent codegen failed");
}

/* ---- running --------------------------------------------------------------- */
/* Compares an output buffer with its reference: exact for integers,
 * relative 1e-5 for floats. */
static int same(const cts_buf *b, const void *got, const void *want,
                char *why, size_t cap) {
  for (int64_t i = 0; i < b->n; i++) {
    if (b->dtype.code == kDLFloat) {
      float g = ((const float *)got)[i], w = ((const float *)want)[i];
      if (!(fabsf(g - w) <= 1e-5f * fmaxf(1.0f, fabsf(w))))
        return snprintf(why, cap, "element %lld: got %g, expected %g",
                        (long long)i, g, w), 0;
    } else {
      int32_t g = ((const int32_t *)got)[i], w = ((const int32_t *)want)[i];
      if (g != w)
        return snprintf(why, cap, "element %lld: got %d, expected %d",
                        (long long)i, g, w), 0;
    }
  }
  return 1;
}

/* Builds, runs and compares program p on device d; times it if asked. */
static void check_run(const tvm_target *t, tvm_device *d,
                      const cts_program *p, int time_it, int host_in) {
  char what[256], why[1024] = "";
  snprintf(what, sizeof what, "run: %s matches the C reference%s", p->name,
           host_in ? " (inputs passed as host memory: host_memory)" : "");
  void *host[4] = {0}, *ref[4] = {0}, *dev[4] = {0};
  tvm_runtime_module *rm = NULL;
  tvm_runtime_func *f = NULL;
  tvm_plugin_arg args[5];
  int ok = 1;
  tvm_ctx *c = tvm_ctx_create();
  tvm_lower_options o;
  tvm_target_lower_options(t, &o);
  tvm_module *m = c ? p->build(c, p, &o) : NULL;
  if (m == NULL) {
    cts_check(0, what, tvm_diag_message());
    tvm_ctx_destroy(c);
    return;
  }
  for (int i = 0; i < p->nbufs; i++) {
    size_t bytes = (size_t)p->bufs[i].n * 4;
    host[i] = calloc(1, bytes);
    ref[i] = calloc(1, bytes);
    if (!host[i] || !ref[i]) ok = 0;
  }
  if (!ok) snprintf(why, sizeof why, "out of host memory");
  if (ok) p->reference(p, host, ref);
  if (ok && tvm_build(t, m, d, &rm) != TVM_OK) ok = 0;
  if (ok && tvm_runtime_get_func(rm, p->name, &f) != TVM_OK) ok = 0;
  for (int i = 0; ok && i < p->nbufs; i++) {
    size_t bytes = (size_t)p->bufs[i].n * 4;
    args[i].type = TVM_ARG_PTR;
    args[i].reserved = 0;
    args[i].v.ptr = host[i];
    if (host_in && !p->bufs[i].is_output) continue; /* ABI 8 host_memory */
    if (tvm_device_alloc(d, 0, bytes, 64, &dev[i]) != TVM_OK ||
        tvm_device_copy(d, dev[i], 0, host[i], 0, bytes,
                        TVM_COPY_HOST_TO_DEVICE) != TVM_OK)
      ok = 0;
    args[i].v.ptr = dev[i];
  }
  if (p->has_n) {
    args[p->nbufs].type = TVM_ARG_INT;
    args[p->nbufs].reserved = 0;
    args[p->nbufs].v.i = p->n;
  }
  uint32_t nargs = (uint32_t)(p->nbufs + p->has_n);
  if (ok && tvm_runtime_call(f, args, nargs) != TVM_OK) ok = 0;
  if (!ok && !*why) snprintf(why, sizeof why, "%s", tvm_diag_message());
  for (int i = 0; ok && i < p->nbufs; i++) {
    if (!p->bufs[i].is_output) continue;
    size_t bytes = (size_t)p->bufs[i].n * 4;
    if (tvm_device_copy(d, host[i], 0, dev[i], 0, bytes,
                        TVM_COPY_DEVICE_TO_HOST) != TVM_OK) {
      snprintf(why, sizeof why, "%s", tvm_diag_message());
      ok = 0;
    } else if (!same(&p->bufs[i], host[i], ref[i], why, sizeof why)) {
      ok = 0;
    }
  }
  cts_check(ok, what, why);
  if (ok && time_it) {
    double ms[3];
    int tok = tvm_runtime_time(f, args, nargs, 2, 3, ms) == TVM_OK &&
              ms[0] >= 0 && ms[1] >= 0 && ms[2] >= 0;
    snprintf(what, sizeof what, "timing %s (%s timer): %.4f ms", p->name,
             tvm_device_has_timer(d) ? "device" : "host", tok ? ms[0] : -1);
    cts_check(tok, what, tvm_diag_message());
  }
  for (int i = 0; i < p->nbufs; i++) {
    if (dev[i]) tvm_device_free(d, 0, dev[i]);
    free(host[i]);
    free(ref[i]);
  }
  tvm_runtime_module_free(rm);
  tvm_ctx_destroy(c);
}

/* Runs every check on the target named by argv[1]. */
int main(int argc, char **argv) {
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr,
            "usage: tvm-plugin-cts TARGET\n"
            "  Conformance tests of the plugin behind TARGET (a name found\n"
            "  in $TVM_TARGET_PATH or a .yaml path).  Prints TAP.\n");
    return 2;
  }
  tvm_target *t = NULL;
  if (!cts_check(tvm_target_load(argv[1], &t) == TVM_OK, "the target loads",
             tvm_diag_message())) {
    printf("1..%d\n", ntests);
    return 1;
  }
  printf("# target %s, plugin %s %s (ABI %u) from %s\n", t->name,
         t->plugin->name, t->plugin->version, t->plugin->abi_version,
         t->plugin->path);
  check_descriptor(t);
  check_schema(t);
  check_info(t);
  for (int i = 0; i < cts_nprograms; i++) check_codegen(t, &cts_programs[i]);
  check_reentrant(t);
  tvm_device *d = NULL;
  if (tvm_target_probe(t) != TVM_OK) {
    char why[1024];
    snprintf(why, sizeof why, "this machine cannot run it: %s",
             tvm_diag_message());
    for (int i = 0; i < cts_nprograms; i++) cts_skip(cts_programs[i].name, why);
  } else if (cts_check(tvm_device_open(t, &d) == TVM_OK, "a device opens",
                   tvm_diag_message())) {
    for (int i = 0; i < cts_nprograms; i++)
      check_run(t, d, &cts_programs[i], i == 0, 0);
    /* ABI 8: a target whose memory is the host's takes host pointers */
    if (tvm_target_host_memory(t))
      for (int i = 0; i < cts_nprograms; i++)
        check_run(t, d, &cts_programs[i], 0, 1);
  }
  /* what the plugin adds to scheduling and memory (run on d when open) */
  cts_check_strategies(t, d);
  cts_check_intrinsics(t, d);
  cts_check_scopes(t, d);
  cts_check_alter_layout(t, d);
  if (d) tvm_device_close(d);
  tvm_target_free(t);
  printf("1..%d\n", ntests);
  printf("# %d passed, %d failed\n", ntests - nfailed, nfailed);
  return nfailed ? 1 : 0;
}
