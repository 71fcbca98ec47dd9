/* tests/abi/plugins/gone.c - the library the "missingdep" test plugin
 * links against.  It exists only at link time (tests/abi/deps), so
 * dlopen of that plugin fails with the missing library's name. */
int tvm_abi_gone_function(void);
int tvm_abi_gone_function(void) { return 0; }
