# tests: each layer lists its own tests in its fragment (core/*/local.mk,
# plugins/*/local.mk); the folders owned by the build (tests/abi,
# tests/unit/target, tests/unit/runtime) have fragments of their own,
# included from Makefile.am.  Shell-script tests end in .sh and run with
# $(SHELL) (TEST_EXTENSIONS in Makefile.am); all tests get the environment
# of AM_TESTS_ENVIRONMENT (build-tree plugin and target paths only).
EXTRA_DIST += tests/e2e/onnx/node_tests_floor.sh
# the device suite, run by hand where there is a GPU (CI has none)
EXTRA_DIST += tests/gpu/run_gpu_suite.sh tests/gpu/carry.sh tests/gpu/device_run.sh
