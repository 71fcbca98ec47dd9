/*
 * host_cpu.c - LLVM initialization, host CPU and feature detection, and
 * target machines for a target instance.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Target.h>

#include "llvm_cpu.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* LLVM's fatal-error handler.  Since module.c loads objects without LLVM,
 * only code generation can get here: IR the codegen built and verified
 * (LLVMVerifyModule) that LLVM's backend still cannot compile, i.e. a bug
 * in llvm-cpu or LLVM, never a package read from disk.  LLVM exits the
 * process after this returns, whatever it does, so it can only say
 * clearly what happened instead of a bare "LLVM ERROR". */
static void fatal_handler(const char *reason) {
  fprintf(stderr,
          "tvm llvm-cpu: LLVM stopped with a fatal error while compiling: %s\n"
          "  (the process exits now; this is a bug in the llvm-cpu code "
          "generator or in LLVM: please report it with the model and target)"
          "\n", reason ? reason : "?");
}

/* Registers the native target, its assembly printer and parser, and the
 * fatal-error handler. */
static void init_llvm(void) {
  LLVMInstallFatalErrorHandler(fatal_handler);
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
}

/* Initializes LLVM's native target once per process. */
void lc_llvm_init(void) { pthread_once(&init_once, init_llvm); }

/* The host CPU's LLVM name (heap string).  LLVM may not know the newest
 * CPUs and answer "generic"; the features then carry the information. */
char *lc_host_cpu_name(void) {
  char *n = LLVMGetHostCPUName();
  char *r = strdup(n && n[0] ? n : "generic");
  LLVMDisposeMessage(n);
  return r;
}

/* The host CPU's feature string ("+avx2,+fma,-sse4a,..."), heap. */
char *lc_host_cpu_features(void) {
  char *f = LLVMGetHostCPUFeatures();
  char *r = strdup(f ? f : "");
  LLVMDisposeMessage(f);
  return r;
}

/* Is "+feat" listed in the comma-separated feature string? */
static int has_feature(const char *features, const char *feat) {
  size_t n = strlen(feat);
  const char *p = features;
  while (p && *p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n + 1 && p[0] == '+' && strncmp(p + 1, feat, n) == 0) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* SIMD width in bits implied by features, else by a known CPU name. */
int lc_vector_bits_of(const char *cpu, const char *features) {
  if (has_feature(features, "avx512f")) return 512;
  if (has_feature(features, "avx2") || has_feature(features, "avx")) return 256;
  if (features[0]) return 128;
  static const char *const avx512[] = {
      "skylake-avx512", "skx",        "cascadelake", "cooperlake",
      "cannonlake",     "icelake-client", "icelake-server", "tigerlake",
      "sapphirerapids", "rocketlake", "znver4",      "knl", "knm", NULL};
  static const char *const avx2[] = {"haswell", "broadwell", "skylake",
                                     "alderlake", "znver1", "znver2",
                                     "znver3", "x86-64-v3", NULL};
  for (int i = 0; avx512[i]; i++)
    if (strcmp(cpu, avx512[i]) == 0) return 512;
  if (strcmp(cpu, "x86-64-v4") == 0) return 512;
  for (int i = 0; avx2[i]; i++)
    if (strcmp(cpu, avx2[i]) == 0) return 256;
  return 128;
}

/* The SIMD width the CPU target t compiles for has (its mcpu / mattr,
 * not the schedules' vector_bits): 512 with AVX-512F, 256 with AVX or
 * AVX2, 128 for another x86 CPU; 0 when t is not x86. */
int lc_target_simd_bits(const tvm_plugin_target *t) {
  const char *tr = t->triple ? t->triple : "";
  if (strncmp(tr, "x86_64", 6) != 0 && strncmp(tr, "i686", 4) != 0) return 0;
  return lc_vector_bits_of(t->mcpu ? t->mcpu : "", t->mattr ? t->mattr : "");
}

/* Online cores, at least 1. */
int lc_num_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Creates a PIC target machine for the target's triple, CPU and features
 * at its optimization level; reports and returns NULL on failure. */
LLVMTargetMachineRef lc_target_machine(const tvm_plugin_target *t) {
  lc_llvm_init();
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(t->triple, &target, &err)) {
    lc_report(TVM_ERR_UNSUPPORTED, "llvm-cpu: no LLVM target for '%s': %s",
              t->triple, err ? err : "?");
    LLVMDisposeMessage(err);
    return NULL;
  }
  static const LLVMCodeGenOptLevel levels[] = {
      LLVMCodeGenLevelNone, LLVMCodeGenLevelLess, LLVMCodeGenLevelDefault,
      LLVMCodeGenLevelAggressive};
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, t->triple, t->mcpu, t->mattr, levels[t->opt_level & 3],
      LLVMRelocPIC, LLVMCodeModelDefault);
  if (!tm)
    lc_report(TVM_ERR_INVALID,
              "llvm-cpu: LLVM rejected mcpu '%s' / mattr '%s' for %s",
              t->mcpu, t->mattr, t->triple);
  return tm;
}
