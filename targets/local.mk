# targets: files of this folder (see Makefile.am)
