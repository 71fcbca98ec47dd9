# targets: one YAML file per target, installed under $(pkgdatadir)/targets
# (TVM_TARGET_DIR).
dist_targets_DATA += \
	targets/llvm-cpu.yaml \
	targets/llvm-cpu-1thread.yaml \
	targets/opencl.yaml \
	targets/mali-t860.yaml \
	targets/mali-g76.yaml \
	targets/cuda-sm80.yaml \
	targets/cuda-sm90.yaml \
	targets/llvm-cpu-avx2.yaml
