# examples/: small programs showing the libraries in use, built by
# `make check` (and run there when a test below needs them).
#
# run_package: a deployable runner linking libtvm_runtime alone; the test
# compiles zoo:mlp with tvmc, runs the package with it, compares its
# outputs with `tvmc run` on the same inputs, and checks with ldd that
# neither it nor libtvm_runtime pulls in libtvm, libyaml, libprotobuf-c
# or LLVM.
check_PROGRAMS += examples/run_package/run_package
examples_run_package_run_package_SOURCES = examples/run_package/run_package.c
examples_run_package_run_package_LDADD = libtvm_runtime.la
if BUILD_LLVM_CPU
TESTS += examples/run_package/test_run_package.sh
endif
EXTRA_DIST += examples/run_package/test_run_package.sh
