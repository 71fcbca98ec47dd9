# core/tune: files of this folder (see Makefile.am)
