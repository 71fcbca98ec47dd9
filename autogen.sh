#!/bin/sh
# autogen.sh - regenerates configure and the Makefile.in from configure.ac
# and Makefile.am (needs autoconf, automake, libtool, pkg-config).
set -e
cd "$(dirname "$0")"
autoreconf -fi
