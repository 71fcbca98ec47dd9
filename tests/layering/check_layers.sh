#!/bin/sh
# tests/layering/check_layers.sh - no file includes a header of a layer
# above it (docs/architecture.md).
#
# Every #include "..." of every .c and .h under core/, plugins/,
# plugin-sdk/, tools/, examples/ and bench/ is parsed: the including file
# gets the layer of its directory, the included header the layer of the
# public header (tvm/X.h, table HEADERS) or, for a private header, of the
# directory it resolves to.  An include is allowed when both layers are
# the same or the pair is in ALLOWED; a private header (not tvm/...) of
# another layer is never allowed.  A header or directory the tables do
# not know is an error too, so that a new one gets a layer when it is
# added.  Tests (tests/) may include anything and are not checked.
#
# Usage: check_layers.sh [SRCDIR]   (default: $TVM_SRCDIR, else .)
set -u
src=${1:-${TVM_SRCDIR:-.}}
cd "$src" || exit 1

# Directory prefix -> layer (first match wins).
DIRS='
core/base/ base
core/ir/ ir
core/te/ te
core/schedule/ schedule
core/lower/ lower
core/codegen/ codegen
core/graph/ graph
core/tune/ tune
core/compiler/ compiler
core/frontend/ frontend
core/target/ target
core/runtime/ runtime
plugin-sdk/include/ abi
plugin-sdk/example/ plugins
plugin-sdk/example-accel/ plugins
plugin-sdk/lib/ sdk
plugins/ plugins
plugin-sdk/cts/ tools
plugin-sdk/tools/ tools
tools/ tools
examples/ tools
bench/ tools
'

# Public header -> layer.
HEADERS='
tvm/base.h base
tvm/json.h base
tvm/ir.h ir
tvm/te.h te
tvm/schedule.h schedule
tvm/lower.h lower
tvm/plugin.h abi
tvm/plugin_sdk.h sdk
tvm/codegen_c.h codegen
tvm/runtime.h runtime
tvm/host_program.h runtime
tvm/npy.h runtime
tvm/graph.h graph
tvm/graph_passes.h graph
tvm/config.h config
tvm/tune.h tune
tvm/target.h target
tvm/compiler.h compiler
tvm/strategy.h compiler
tvm/gpu_templates.h schedule
tvm/onnx.h frontend
tvm/zoo.h frontend
'

# Layer -> the layers it may include (besides itself).  config is the
# knob-value header (tvm/config.h) that schedules read; tune is the tuner
# (the compiler calls its hooks; it measures through target and runtime);
# codegen is the C-dialect kernel source shared by GPU plugins; sdk is the
# plugin helper library (libtvm_plugin_sdk).
ALLOWED='
base
ir base
te base ir
schedule base ir te config
lower base ir te schedule config runtime
abi base ir te schedule lower config
sdk base ir abi
runtime base ir abi
graph base ir te
config base
codegen base ir te schedule lower abi config
target base ir te schedule lower abi runtime config
tune base config ir te schedule lower abi runtime target
compiler base ir te schedule lower abi runtime target graph config tune
frontend base ir te graph
plugins base ir te schedule lower abi sdk codegen graph config
tools base ir te schedule lower abi sdk codegen runtime target graph config tune compiler frontend
'

# Known exceptions: a directory prefix and the layer above it that its
# files may include, with the reason (docs/architecture.md lists them).
#   core/ir/ te: the loop IR before storage_flatten reads tensors
#   (TREAD, PROVIDE, REALIZE hold a tvm_tensor: name, rank, dtype), as in
#   Halide; splitting them out of the IR is future work.
EXCEPTIONS='
core/ir/ te
'

files=$(find core plugins plugin-sdk tools examples bench \
          \( -name '*.c' -o -name '*.h' \) -type f 2>/dev/null | sort)
[ -n "$files" ] || { echo "check_layers: no sources under $src"; exit 1; }

# shellcheck disable=SC2086
awk -v dirs="$DIRS" -v headers="$HEADERS" -v allowed="$ALLOWED" \
    -v exceptions="$EXCEPTIONS" '
function load(text, arr, multi,    n, lines, i, f, k, j) {
  n = split(text, lines, "\n")
  for (i = 1; i <= n; i++) {
    k = split(lines[i], f, " ")
    if (k == 0) continue
    if (multi) { arr[f[1]] = " "; for (j = 2; j <= k; j++) arr[f[1]] = arr[f[1]] f[j] " " }
    else { order[++norder] = f[1]; arr[f[1]] = f[2] }
  }
}
function layer_of(path,    i) {
  for (i = 1; i <= norder; i++)
    if (index(path, order[i]) == 1) return dirlayer[order[i]]
  return ""
}
# dirname(file) + "/" + rel, with "." and ".." folded.
function resolve(file, rel,    n, parts, out, m, i, d) {
  d = file; sub(/\/[^\/]*$/, "", d)
  n = split(d "/" rel, parts, "/")
  m = 0
  for (i = 1; i <= n; i++) {
    if (parts[i] == "." || parts[i] == "") continue
    if (parts[i] == ".." && m > 0) { m--; continue }
    out[++m] = parts[i]
  }
  d = out[1]
  for (i = 2; i <= m; i++) d = d "/" out[i]
  return d
}
function excepted(file, hl,    n, lines, i, f) {
  n = split(exceptions, lines, "\n")
  for (i = 1; i <= n; i++)
    if (split(lines[i], f, " ") == 2 && index(file, f[1]) == 1 && f[2] == hl)
      return 1
  return 0
}
function bad(msg) { print FILENAME ":" FNR ": " msg; errors++ }
BEGIN {
  load(dirs, dirlayer, 0)
  load(headers, hdrlayer, 1)
  load(allowed, may, 1)
  for (h in hdrlayer) { x = hdrlayer[h]; gsub(/ /, "", x); hdrlayer[h] = x }
}
FNR == 1 {
  fl = layer_of(FILENAME)
  if (FILENAME ~ /^plugin-sdk\/include\/tvm\//) fl = "abi"
  if (FILENAME ~ /^core\/include\/tvm\//) {
    h = FILENAME; sub(/^core\/include\//, "", h)
    fl = hdrlayer[h]
    if (fl == "") bad("public header " h " has no layer: add it to HEADERS in tests/layering/check_layers.sh")
  }
  if (fl == "") bad("directory has no layer: add it to DIRS in tests/layering/check_layers.sh")
  else if (!(fl in may)) bad("layer " fl " has no ALLOWED entry in tests/layering/check_layers.sh")
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
  if (fl == "") next
  inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
  private = 0
  if (index(inc, "tvm/") == 1) {
    hl = hdrlayer[inc]
    if (hl == "") { bad("includes " inc ", which has no layer: add it to HEADERS in tests/layering/check_layers.sh"); next }
  } else {
    target = resolve(FILENAME, inc)
    hl = layer_of(target)
    private = 1
    if (hl == "") { bad("includes " inc " (" target "), outside every layer"); next }
  }
  if (hl == fl) next
  if (private) {
    bad("layer " fl " includes " inc ", a private header of layer " hl \
        ": use (or add to) that layer'"'"'s public header")
  } else if (index(may[fl], " " hl " ") == 0 && !excepted(FILENAME, hl)) {
    bad("layer " fl " includes " inc " of layer " hl ", which it may not " \
        "(allowed: " may[fl] "); move the code or fix the layering")
  }
}
END {
  if (errors) { printf "%d layering error(s); the layers are in docs/architecture.md\n", errors; exit 1 }
}' $files || exit 1
echo "check_layers: $(echo "$files" | wc -l) files, every include within the layering"
