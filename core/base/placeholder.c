/* removed once core/base has real files */ typedef int tvm_base_placeholder_;
