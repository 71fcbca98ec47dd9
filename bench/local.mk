# bench: files of this folder (see Makefile.am)
