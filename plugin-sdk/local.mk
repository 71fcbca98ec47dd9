# plugin-sdk: files of this folder (see Makefile.am)
