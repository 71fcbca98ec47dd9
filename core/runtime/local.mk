# core/runtime: files of this folder (see Makefile.am)
