/*
 * core/graph/printer.c - the text form of a graph, the debugging view of
 * every graph pass and what the pass tests compare.
 *
 *   graph(%data: float32[1, 3, 224, 224]) {
 *     %w: const float32[64, 3, 7, 7]
 *     %conv1 = Conv(%data, %w) {strides=[2, 2], pads=[3, 3, 3, 3]}
 *              -> float32[1, 64, 112, 112]
 *     %5 = Relu(%conv1) -> float32[1, 64, 112, 112]
 *     return %5
 *   }
 *
 * - The header lists the graph inputs in order.  Constants follow, one a
 *   line, in order of first use by the nodes (then by the outputs).
 * - One line per node in g->nodes order: its outputs ("%a, %b = " when
 *   several), the op, the inputs ("_" for an absent optional one), the
 *   attributes in the order given (those whose name starts with '_', such
 *   as "_opset", are internal and not shown) and "-> type" (a
 *   parenthesized list for several outputs).  When the line would pass 80
 *   columns, "-> type" goes on the next line under the op name.  A node of
 *   a fused group ends with "  # group N", a node placed on the
 *   fallback device of a heterogeneous target with "  # device 1".
 * - A type is dtype[dims], followed by " (LAYOUT)" when the value has a
 *   layout: "float32[1, 4, 56, 56, 16] (NCHW16c)".
 * - Floats print in their shortest exact form ("1e-05", "0.5", "1.0").
 * - The last line is "return %v", "return (%a, %b)" or "return ()".
 */
#include <string.h>

#include "graph_int.h"

#define WRAP_COLUMN 80

/* "float32[1, 64, 112, 112]" plus the layout when set. */
static void print_type(tvm_strbuf *b, const tvm_gvalue *v) {
  char dt[32];
  tvm_strbuf_append(b, tvm_dtype_str(v->dtype, dt));
  tvm_strbuf_append(b, "[");
  for (int i = 0; i < v->ndim; i++)
    tvm_strbuf_printf(b, i ? ", %lld" : "%lld", (long long)v->shape[i]);
  tvm_strbuf_append(b, "]");
  if (v->layout) tvm_strbuf_printf(b, " (%s)", v->layout);
}

/* "%name", or "_" for an absent value. */
static void print_ref(tvm_strbuf *b, const tvm_gvalue *v) {
  if (v)
    tvm_strbuf_printf(b, "%%%s", v->name);
  else
    tvm_strbuf_append(b, "_");
}

/* Prints the constant v once (seen remembers which were printed). */
static void print_const_once(tvm_strbuf *b, tvm_ptrmap *seen,
                             const tvm_gvalue *v) {
  void *unused;
  if (!v || v->kind != TVM_GV_CONST || tvm_ptrmap_get(seen, v, &unused)) return;
  if (tvm_ptrmap_put(seen, v, (void *)v)) {
    b->oom = 1;
    return;
  }
  tvm_strbuf_printf(b, "  %%%s: const ", v->name);
  print_type(b, v);
  tvm_strbuf_append(b, "\n");
}

/* One node line (or two, when wrapped). */
static void print_node(tvm_strbuf *b, const tvm_gnode *n) {
  tvm_strbuf lhs, rhs, ty;
  tvm_strbuf_init(&lhs);
  tvm_strbuf_init(&rhs);
  tvm_strbuf_init(&ty);
  tvm_strbuf_append(&lhs, "  ");
  for (int k = 0; k < n->noutputs; k++) {
    if (k) tvm_strbuf_append(&lhs, ", ");
    print_ref(&lhs, n->outputs[k]);
  }
  tvm_strbuf_append(&lhs, " = ");

  tvm_strbuf_printf(&rhs, "%s(", n->op);
  for (int i = 0; i < n->ninputs; i++) {
    if (i) tvm_strbuf_append(&rhs, ", ");
    print_ref(&rhs, n->inputs[i]);
  }
  tvm_strbuf_append(&rhs, ")");
  int shown = 0;
  for (int i = 0; i < n->nattrs; i++) {
    const tvm_gattr *at = &n->attrs[i];
    if (at->name[0] == '_') continue;
    tvm_strbuf_append(&rhs, shown++ ? ", " : " {");
    tvm_strbuf_printf(&rhs, "%s=", at->name);
    graph_attr_value_print(&rhs, at);
  }
  if (shown) tvm_strbuf_append(&rhs, "}");

  tvm_strbuf_append(&ty, "-> ");
  if (n->noutputs != 1) tvm_strbuf_append(&ty, "(");
  for (int k = 0; k < n->noutputs; k++) {
    if (k) tvm_strbuf_append(&ty, ", ");
    if (n->outputs[k])
      print_type(&ty, n->outputs[k]);
    else
      tvm_strbuf_append(&ty, "_");
  }
  if (n->noutputs != 1) tvm_strbuf_append(&ty, ")");

  if (lhs.oom || rhs.oom || ty.oom) {
    b->oom = 1;
  } else {
    tvm_strbuf_append(b, lhs.data);
    tvm_strbuf_append(b, rhs.data);
    if (lhs.len + rhs.len + 1 + ty.len <= WRAP_COLUMN) {
      tvm_strbuf_append(b, " ");
    } else {
      tvm_strbuf_append(b, "\n");
      tvm_strbuf_printf(b, "%*s", (int)lhs.len, "");
    }
    tvm_strbuf_append(b, ty.data);
    if (n->group >= 0) tvm_strbuf_printf(b, "  # group %d", n->group);
    if (n->device > 0) tvm_strbuf_printf(b, "  # device %d", n->device);
    tvm_strbuf_append(b, "\n");
  }
  tvm_strbuf_free(&lhs);
  tvm_strbuf_free(&rhs);
  tvm_strbuf_free(&ty);
}

/* Appends the text form of g to out (see the top of this file).  Out of
 * memory shows as out->oom. */
void tvm_graph_print(tvm_strbuf *out, const tvm_graph *g) {
  if (!out) return;
  if (!g) {
    tvm_strbuf_append(out, "graph(null)\n");
    return;
  }
  tvm_strbuf_append(out, "graph(");
  for (size_t i = 0; i < g->inputs.len; i++) {
    const tvm_gvalue *v = g->inputs.data[i];
    tvm_strbuf_printf(out, i ? ", %%%s: " : "%%%s: ", v->name);
    print_type(out, v);
  }
  tvm_strbuf_append(out, ") {\n");

  tvm_ptrmap seen = {0};
  for (size_t i = 0; i < g->nodes.len; i++) {
    const tvm_gnode *n = g->nodes.data[i];
    for (int k = 0; k < n->ninputs; k++) print_const_once(out, &seen, n->inputs[k]);
  }
  for (size_t i = 0; i < g->outputs.len; i++)
    print_const_once(out, &seen, g->outputs.data[i]);
  tvm_ptrmap_free(&seen);

  for (size_t i = 0; i < g->nodes.len; i++) print_node(out, g->nodes.data[i]);

  tvm_strbuf_append(out, "  return ");
  if (g->outputs.len != 1) tvm_strbuf_append(out, "(");
  for (size_t i = 0; i < g->outputs.len; i++) {
    if (i) tvm_strbuf_append(out, ", ");
    print_ref(out, g->outputs.data[i]);
  }
  if (g->outputs.len != 1) tvm_strbuf_append(out, ")");
  tvm_strbuf_append(out, "\n}\n");
}

/* The text form in a new string (free with tvm_free), or NULL when out of
 * memory. */
char *tvm_graph_str(const tvm_graph *g) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_graph_print(&b, g);
  if (b.oom) {
    tvm_strbuf_free(&b);
    return NULL;
  }
  return tvm_strbuf_take(&b);
}
