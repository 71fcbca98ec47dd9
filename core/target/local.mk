# core/target: files of this folder (see Makefile.am)
