/*
 * core/frontend/onnx/node.c - one ONNX NodeProto -> one tvm_graph_apply:
 * the operator looked up in the registry (else the "unsupported operator"
 * error listing the supported ones), inputs resolved by name (absent
 * optional ones NULL), attributes converted (INT, FLOAT, STRING, INTS,
 * FLOATS) plus "_opset", outputs named after the ONNX values.  Constant
 * nodes become CONST values, ConstantOfShape's value a CONST input (see
 * tvm/onnx.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"
#include "tvm/graph_passes.h"

/* The node's name: its ONNX name, else its first named output's (ONNX
 * value names are unique), else "#<index>".  Given to the builder too, so
 * the operators' messages and the printed graph use it. */
static const char *node_label(const Onnx__NodeProto *np, size_t idx,
                              char *buf, size_t cap) {
  if (np->name && np->name[0])
    return np->name;
  for (size_t k = 0; k < np->n_output; k++)
    if (np->output[k] && np->output[k][0])
      return np->output[k];
  snprintf(buf, cap, "#%zu", idx);
  return buf;
}

/* Comparison for qsort of operator names. */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sets the "unsupported operator" diagnostic listing every registered
 * operator (alphabetically). */
static tvm_status unsupported_op(const char *op, const char *domain,
                                 const char *node, int64_t opset) {
  int n = tvm_gop_count();
  const char **names = tvm_calloc((size_t)(n ? n : 1), sizeof *names);
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  if (names) {
    int k = 0;
    for (int i = 0; i < n; i++) {
      const tvm_gop_def *d = tvm_gop_at(i);
      if (d && d->name && d->name[0] != '_')
        names[k++] = d->name;
    }
    qsort(names, (size_t)k, sizeof *names, cmp_str);
    for (int i = 0; i < k; i++) {
      if (i)
        tvm_strbuf_append(&b, ", ");
      tvm_strbuf_append(&b, names[i]);
    }
    tvm_free(names);
  }
  tvm_status st;
  if (domain[0])
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "unsupported operator '%s' of domain '%s' at node '%s': "
                      "only the default ONNX domain is supported",
                      op, domain, node);
  else
    st = tvm_diag_set(TVM_ERR_UNSUPPORTED,
                      "unsupported operator '%s' at node '%s' (opset %lld); "
                      "supported: %s",
                      op, node, (long long)opset,
                      b.data ? b.data : "(none)");
  tvm_strbuf_free(&b);
  return st;
}

/* ---- nodes ---------------------------------------------------------------- */

/* The attribute type of a, inferred from its set fields when the (old)
 * model leaves `type` unset. */
static int attr_type(const Onnx__AttributeProto *a) {
  if (a->has_type)
    return a->type;
  if (a->has_f) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  if (a->has_i) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  if (a->has_s) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
  if (a->t) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
  if (a->g) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  if (a->n_floats) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
  if (a->n_ints) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  if (a->n_strings) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
  if (a->n_tensors) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS;
  if (a->n_graphs) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS;
  return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static const char *attr_type_name(int t) {
  switch (t) {
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return "FLOAT";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return "INT";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return "STRING";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return "TENSOR";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: return "GRAPH";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
    return "SPARSE_TENSOR";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO: return "TYPE_PROTO";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return "FLOATS";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return "INTS";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: return "STRINGS";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS: return "TENSORS";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS: return "GRAPHS";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS:
    return "SPARSE_TENSORS";
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS:
    return "TYPE_PROTOS";
  default: return "UNDEFINED";
  }
}

/* Converts one plain attribute (INT, FLOAT, STRING, INTS, FLOATS) into
 * *out; temporaries live in the graph's arena.  Other types fail naming
 * the attribute (TENSOR ones are handled by the caller). */
static tvm_status convert_attr(importer *im, const Onnx__AttributeProto *a,
                               const char *op, const char *node,
                               tvm_gattr *out) {
  const char *name = onnx_str(a->name);
  int t = attr_type(a);
  tvm_arena *ar = im->g->arena;
  if (a->ref_attr_name && a->ref_attr_name[0])
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s' (%s): attribute '%s' refers to a function "
                        "attribute, which is not supported",
                        node, op, name);
  switch (t) {
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
    *out = tvm_gattr_int(name, a->i);
    return TVM_OK;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
    *out = tvm_gattr_float(name, a->f);
    return TVM_OK;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
    char *s = tvm_arena_alloc(ar, a->s.len + 1);
    if (!s)
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory (attribute '%s')",
                          name);
    if (a->s.len)
      memcpy(s, a->s.data, a->s.len);
    s[a->s.len] = 0;
    if (strlen(s) != a->s.len)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "node '%s' (%s): string attribute '%s' contains a "
                          "NUL byte",
                          node, op, name);
    *out = tvm_gattr_str(name, s);
    return TVM_OK;
  }
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
    if (a->n_ints > (size_t)1 << 24)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "node '%s' (%s): attribute '%s' has %zu ints", node,
                          op, name, a->n_ints);
    *out = tvm_gattr_ints(name, a->ints, (int)a->n_ints);
    return TVM_OK;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: {
    if (a->n_floats > (size_t)1 << 24)
      return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                          "node '%s' (%s): attribute '%s' has %zu floats",
                          node, op, name, a->n_floats);
    double *f = tvm_arena_alloc(ar, sizeof(double) * (a->n_floats + 1));
    if (!f)
      return tvm_diag_set(TVM_ERR_NOMEM, "out of memory (attribute '%s')",
                          name);
    for (size_t k = 0; k < a->n_floats; k++)
      f[k] = a->floats[k];
    *out = tvm_gattr_floats(name, f, (int)a->n_floats);
    return TVM_OK;
  }
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED:
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (%s): attribute '%s' has no type and no "
                        "value",
                        node, op, name);
  default:
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s' (%s): attribute '%s' of type %s is not "
                        "supported",
                        node, op, name, attr_type_name(t));
  }
}

/* Constant's value attribute (value, value_float(s), value_int(s)) as a
 * CONST value named after the node's output (no node is added: operators
 * that need constant inputs, such as Reshape's shape, see the data at
 * import time). */
static tvm_status constant_value(importer *im, const Onnx__NodeProto *np,
                                 const char *node, tvm_gvalue **out) {
  *out = NULL;
  if (np->n_attribute != 1)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (Constant): exactly one value attribute "
                        "is required, %zu given",
                        node, np->n_attribute);
  const Onnx__AttributeProto *a = np->attribute[0];
  const char *an = onnx_str(a->name);
  const char *oname = np->n_output > 0 ? onnx_str(np->output[0]) : "";
  const char *cname = oname;
  char what[400];
  snprintf(what, sizeof what, "node '%s' (Constant): attribute '%s'", node,
           an);
  int t = attr_type(a);
  if (strcmp(an, "value") == 0 &&
      t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR && a->t)
    return onnx_add_const(im, cname, a->t, what, out);
  int64_t len = 0;
  if (strcmp(an, "value_float") == 0 &&
      t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) {
    float f = a->f;
    *out = tvm_graph_const(im->g, cname, TVM_F32, &len, 0, &f);
  } else if (strcmp(an, "value_int") == 0 &&
             t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
    int64_t i = a->i;
    *out = tvm_graph_const(im->g, cname, TVM_I64, &len, 0, &i);
  } else if (strcmp(an, "value_floats") == 0 &&
             (t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS ||
              t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)) {
    len = (int64_t)a->n_floats;
    static const float none = 0;
    *out = tvm_graph_const(im->g, cname, TVM_F32, &len, 1,
                           a->floats ? (const void *)a->floats : &none);
  } else if (strcmp(an, "value_ints") == 0 &&
             (t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS ||
              t == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)) {
    len = (int64_t)a->n_ints;
    static const int64_t none = 0;
    *out = tvm_graph_const(im->g, cname, TVM_I64, &len, 1,
                           a->ints ? (const void *)a->ints : &none);
  } else if (strcmp(an, "value_string") == 0 ||
             strcmp(an, "value_strings") == 0 ||
             strcmp(an, "sparse_value") == 0) {
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "%s: string and sparse constants are not supported",
                        what);
  } else {
    return tvm_diag_set(TVM_ERR_INVALID,
                        "%s of type %s is not a Constant value", what,
                        attr_type_name(t));
  }
  return *out ? TVM_OK : tvm_graph_status(im->g);
}

/* A Constant node: its value becomes the CONST value of its output. */
static tvm_status import_constant(importer *im, const Onnx__NodeProto *np,
                                  const char *node) {
  if (np->n_input > 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (Constant) has inputs; it takes none",
                        node);
  if (np->n_output != 1 || !onnx_str(np->output[0])[0])
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (Constant) must have one named output",
                        node);
  tvm_gvalue *v;
  tvm_status st = constant_value(im, np, node, &v);
  if (st)
    return st;
  char by[400];
  snprintf(by, sizeof by, "node '%s' (Constant)", node);
  return onnx_define_value(im, np->output[0], v, by);
}

/* Checks that every output of the node names a value (or is absent). */
static tvm_status name_outputs(importer *im, const Onnx__NodeProto *np,
                               const tvm_gnode *n, const char *node) {
  char by[400];
  snprintf(by, sizeof by, "node '%s' (%s)", node, n->op);
  for (int k = 0; k < n->noutputs && (size_t)k < np->n_output; k++) {
    const char *oname = onnx_str(np->output[k]);
    if (!oname[0])
      continue; /* absent optional output: stays unnamed and unused */
    tvm_status st = onnx_define_value(im, oname, n->outputs[k], by);
    if (st)
      return st;
  }
  return TVM_OK;
}

/* Appends to the diagnostic (status st) why the non-constant inputs of a
 * refused node could not be computed at import: for each input produced
 * by a node that was not folded, the chain of such nodes is followed to
 * the first one whose own inputs were known (the root cause). */
tvm_status onnx_explain_nonconst(importer *im, tvm_gvalue **in, int nin,
                                 tvm_status st) {
  tvm_strbuf b;
  tvm_strbuf_init(&b);
  tvm_strbuf_append(&b, tvm_diag_message());
  int added = 0;
  for (int i = 0; i < nin; i++) {
    tvm_gvalue *v = in[i];
    if (!v || v->kind != TVM_GV_INTERMEDIATE || !v->producer)
      continue;
    tvm_gnode *p = v->producer, *root = p;
    void *why = NULL;
    if (!tvm_ptrmap_get(&im->why, p, &why) || !why)
      continue;
    /* follow "comes from node ..." to the root (bounded) */
    for (int hop = 0; hop < 10000; hop++) {
      tvm_gnode *next = NULL;
      for (int k = 0; k < root->ninputs && !next; k++) {
        tvm_gvalue *u = root->inputs[k];
        if (u && u->kind == TVM_GV_INTERMEDIATE && u->producer)
          next = u->producer;
        else if (u && u->kind == TVM_GV_INPUT)
          break;
      }
      void *w = NULL;
      if (!next || !tvm_ptrmap_get(&im->why, next, &w) || !w)
        break;
      root = next;
      why = w;
    }
    if (root == p)
      tvm_strbuf_printf(&b, "; input %d ('%s') could not be computed at "
                         "import: node '%s' (%s) was not folded because %s",
                         i, v->name, p->name, p->op, (const char *)why);
    else
      tvm_strbuf_printf(&b, "; input %d ('%s') could not be computed at "
                         "import: it depends on node '%s' (%s), which was "
                         "not folded because %s",
                         i, v->name, root->name, root->op, (const char *)why);
    added = 1;
  }
  if (added && b.data)
    st = tvm_diag_set(st, "%s", b.data);
  tvm_strbuf_free(&b);
  return st;
}

/* One node -> tvm_graph_apply. */
tvm_status onnx_import_node(importer *im, const Onnx__NodeProto *np,
                            size_t idx) {
  char lbuf[300];
  const char *node = node_label(np, idx, lbuf, sizeof lbuf);
  const char *op = onnx_str(np->op_type);
  const char *domain = onnx_str(np->domain);
  if (!op[0])
    return tvm_diag_set(TVM_ERR_INVALID, "node '%s' has no op_type", node);
  int default_domain = !domain[0] || strcmp(domain, "ai.onnx") == 0;
  if (default_domain && strcmp(op, "Constant") == 0 && im->opset > 0)
    return import_constant(im, np, node);
  if (default_domain && onnx_is_control_op(op))
    return onnx_import_control(im, np, node, idx); /* control.c */
  if (!default_domain || !tvm_gop_find(op))
    return unsupported_op(op, strcmp(domain, "ai.onnx") ? domain : "", node,
                          im->opset);
  if (im->opset < 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (%s) is in the default ONNX domain but "
                        "the model imports no opset of it (opset_import); "
                        "re-export it with an opset between %d and %d",
                        node, op, OPSET_MIN, OPSET_MAX);
  if (np->n_output == 0)
    return tvm_diag_set(TVM_ERR_INVALID, "node '%s' (%s) has no outputs",
                        node, op);
  if (np->n_input > 64 || np->n_output > 64 || np->n_attribute > 256)
    return tvm_diag_set(TVM_ERR_UNSUPPORTED,
                        "node '%s' (%s) has too many inputs, outputs or "
                        "attributes",
                        node, op);
  int is_cos = strcmp(op, "ConstantOfShape") == 0;
  tvm_status st = onnx_check_version(np, op, node, im->opset);
  if (st)
    return st;

  /* Inputs: "" is an absent optional input; trailing ones are dropped. */
  tvm_gvalue *in[66];
  int nin = 0;
  for (size_t i = 0; i < np->n_input; i++) {
    const char *iname = onnx_str(np->input[i]);
    in[i] = NULL;
    if (iname[0]) {
      in[i] = tvm_strmap_get(&im->values, iname);
      if (!in[i])
        return tvm_diag_set(TVM_ERR_INVALID,
                            "node '%s' (%s): input %zu '%s' is not defined by "
                            "a graph input, an initializer or an earlier node",
                            node, op, i, iname);
      nin = (int)i + 1;
    }
  }

  /* Attributes, then "_opset". */
  tvm_gattr attrs[259];
  int na = 0;
  for (size_t i = 0; i < np->n_attribute; i++) {
    const Onnx__AttributeProto *a = np->attribute[i];
    if (is_cos && strcmp(onnx_str(a->name), "value") == 0 &&
        attr_type(a) == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR &&
        a->t) {
      /* ConstantOfShape's fill value: the node's second input. */
      char what[400];
      snprintf(what, sizeof what,
               "node '%s' (ConstantOfShape): attribute 'value'", node);
      const char *oname = onnx_str(np->output[0]);
      char *cname = tvm_arena_printf(im->g->arena, "%s:value", oname);
      if (!cname)
        return tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
      if (nin < 1)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "node '%s' (ConstantOfShape) has no shape input",
                            node);
      if ((st = onnx_add_const(im, cname, a->t, what, &in[1])))
        return st;
      if (tvm_gvalue_numel(in[1]) != 1)
        return tvm_diag_set(TVM_ERR_INVALID,
                            "%s must hold one element, it holds %lld", what,
                            (long long)tvm_gvalue_numel(in[1]));
      nin = 2;
      continue;
    }
    if ((st = convert_attr(im, a, op, node, &attrs[na])) ||
        (st = onnx_upgrade_attr(op, node, im->opset, &attrs[na])))
      return st;
    na++;
  }
  onnx_default_attrs(np, op, im->opset, attrs, &na);
  attrs[na++] = tvm_gattr_int("_opset", im->opset);

  /* Outputs: trailing absent ones are dropped. */
  int nout = 0;
  for (size_t k = 0; k < np->n_output; k++)
    if (onnx_str(np->output[k])[0])
      nout = (int)k + 1;
  if (nout == 0)
    return tvm_diag_set(TVM_ERR_INVALID,
                        "node '%s' (%s) has no named output", node, op);

  tvm_gnode *n = NULL;
  tvm_gvalue *v =
      tvm_graph_apply(im->g, op, node, in, nin, attrs, na, nout, &n);
  if (!v || !n) {
    st = tvm_graph_status(im->g);
    if (!st)
      st = tvm_diag_set(TVM_ERR_INTERNAL, "node '%s' (%s) was not added",
                        node, op);
    if (strstr(tvm_diag_message(), "must be a constant"))
      st = onnx_explain_nonconst(im, in, nin, st);
    /* The operators name the node; name it when the message does not
     * (the model-level prefix adds the opset). */
    if (strstr(tvm_diag_message(), node))
      return st;
    return tvm_diag_prefix(st, "node '%s' (%s): ", node, op);
  }
  if ((st = name_outputs(im, np, n, node)))
    return st;
  /* Fold now what can be computed (shape chains feeding Reshape, Expand,
   * Range, Pad, ConstantOfShape); remember why the rest could not be. */
  int folded = 0;
  char why[1024];
  st = tvm_graph_fold_node(im->g, n, ONNX_IMPORT_FOLD_MAX, &folded, why,
                           sizeof why);
  if (st) {
    if (strstr(tvm_diag_message(), node))
      return st;
    return tvm_diag_prefix(st, "node '%s' (%s): evaluating it at import: ",
                           node, op);
  }
  if (!folded) {
    char *w = tvm_arena_strdup(im->g->arena, why);
    if (!w || (st = tvm_ptrmap_put(&im->why, n, w)))
      return st ? st : tvm_diag_set(TVM_ERR_NOMEM, "out of memory");
  }
  return TVM_OK;
}

