# core/ir: files of this folder (see Makefile.am)
