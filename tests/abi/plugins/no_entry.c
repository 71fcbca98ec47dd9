/* tests/abi/plugins/no_entry.c - a shared object without the entry
 * symbol: discovery must skip it, naming the missing symbol. */
int tvm_abi_not_a_plugin(void);
int tvm_abi_not_a_plugin(void) { return 7; }
