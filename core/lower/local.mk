# core/lower: files of this folder (see Makefile.am)
