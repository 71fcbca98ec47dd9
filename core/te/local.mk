# core/te: files of this folder (see Makefile.am)
