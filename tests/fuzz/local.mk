# tests/fuzz: regression inputs that once crashed or hung tvmc
# (tests/fuzz/crashes/), the libFuzzer targets (fuzz_*.c, built by
# `make fuzz` through tests/fuzz/build.sh with clang, never by the normal
# build) and their seed corpora.
TESTS += tests/fuzz/test_regressions.sh
EXTRA_DIST += tests/fuzz/test_regressions.sh tests/fuzz/crashes \
	tests/fuzz/small-relu-add.onnx tests/fuzz/small-relu-add.tvmpkg
