# bench: benchmarks, side by side with their peers (see bench/RESULTS.md)
noinst_PROGRAMS += bench/fma_peak
bench_fma_peak_SOURCES = bench/fma_peak.c bench/machine.c bench/machine.h

if HAVE_OPENBLAS
noinst_PROGRAMS += bench/matmul
bench_matmul_SOURCES = bench/matmul.c bench/machine.c bench/machine.h tools/tvmc/matmul_te.c \
	tools/tvmc/matmul_te.h tools/tvmc/matmul_job.c tools/tvmc/matmul_job.h
bench_matmul_CFLAGS = $(AM_CFLAGS) $(OPENBLAS_CFLAGS) \
	-DBENCH_TARGET_DIR=\"$(abs_srcdir)/bench/targets\"
bench_matmul_LDADD = $(TVM_LIBS) $(OPENBLAS_LIBS) -lm
endif
EXTRA_DIST += bench/targets/llvm-cpu-1t.yaml bench/targets/llvm-cpu-2t.yaml
# bench/zoo (helper Z): every zoo model, compile time and latency with and
# without fusion, on bench/targets/llvm-cpu-2t.yaml
noinst_PROGRAMS += bench/zoo
bench_zoo_SOURCES = bench/zoo.c bench/machine.c bench/machine.h
bench_zoo_CFLAGS = $(AM_CFLAGS) \
	-DBENCH_TARGET_DIR=\"$(abs_srcdir)/bench/targets\" \
	-DBENCH_PLUGIN_DIR=\"$(abs_builddir)/plugins/llvm-cpu/.libs\"
bench_zoo_LDADD = $(TVM_LIBS) -lm
# bench/tune_model (tuner): the cost model's pairwise ranking accuracy on
# held-out measured configs of a tuning log, and its prediction time;
# bench/tune/curves.sh: the tuning-curve experiment (see bench/RESULTS.md)
noinst_PROGRAMS += bench/tune_model
bench_tune_model_SOURCES = bench/tune_model.c
bench_tune_model_LDADD = $(TVM_LIBS) -lm
EXTRA_DIST += bench/tune/curves.sh bench/tune/curves.py bench/tune/whole_model.sh bench/compile_time.sh
EXTRA_DIST += bench/gpu/gpu_bench.sh bench/gpu/template_configs.sh bench/gpu/wmma_check.sh bench/gpu/cuda_timing.py bench/ab_runs.sh bench/ab_kernels.sh bench/winograd.py
# bench/kernels: single kernels (ResNet-18 and MobileNetV2 convolutions,
# SGEMM shapes) against oneDNN and OpenBLAS in one interleaved run
if HAVE_OPENBLAS
if HAVE_DNNL
noinst_PROGRAMS += bench/kernels
bench_kernels_SOURCES = bench/kernels.c bench/machine.c bench/machine.h \
	bench/inputs.c bench/inputs.h
bench_kernels_CFLAGS = $(AM_CFLAGS) $(OPENBLAS_CFLAGS) -fopenmp \
	-DBENCH_TARGET_DIR=\"$(abs_srcdir)/bench/targets\" \
	-DBENCH_PLUGIN_DIR=\"$(abs_builddir)/plugins/llvm-cpu/.libs\"
bench_kernels_LDADD = $(TVM_LIBS) $(OPENBLAS_LIBS) -ldnnl -lgomp -lm
endif
endif
# bench/pool: the thread pool's fork/join cost against OpenMP after idle gaps
noinst_PROGRAMS += bench/pool
bench_pool_SOURCES = bench/pool.c bench/machine.c bench/machine.h
bench_pool_CFLAGS = $(AM_CFLAGS) -fopenmp
bench_pool_LDADD = $(TVM_LIBS) -lgomp -lm
# bench/ab_packages: two packages of one model timed in one process
noinst_PROGRAMS += bench/ab_packages
bench_ab_packages_SOURCES = bench/ab_packages.c bench/machine.c bench/machine.h \
	bench/inputs.c bench/inputs.h
bench_ab_packages_LDADD = $(TVM_LIBS) -lm
