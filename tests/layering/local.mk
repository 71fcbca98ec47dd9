# tests/layering: no file includes a header of a layer above it (the
# layers and the allowed table: docs/architecture.md and the script).
TESTS += tests/layering/check_layers.sh
EXTRA_DIST += tests/layering/check_layers.sh
