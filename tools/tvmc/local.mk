# tools/tvmc: files of this folder (see Makefile.am)
