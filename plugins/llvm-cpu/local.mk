# plugins/llvm-cpu: files of this folder (see Makefile.am)
