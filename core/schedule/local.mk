# core/schedule: files of this folder (see Makefile.am)
