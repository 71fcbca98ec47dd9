# targets: one YAML file per target, installed under $(pkgdatadir)/targets
# (TVM_TARGET_DIR).
dist_targets_DATA += \
	targets/llvm-cpu.yaml \
	targets/llvm-cpu-1thread.yaml \
	targets/llvm-cpu-avx2.yaml
