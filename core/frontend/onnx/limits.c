/*
 * core/frontend/onnx/limits.c - a linear pre-pass over a serialized ONNX
 * message that bounds how deeply its messages nest before protobuf-c
 * unpacks it.  protobuf-c's unpacker recurses once per nested message, so
 * a 4 MB model of subgraphs within subgraphs (Graph -> Node -> Attribute
 * -> Graph ...) overflowed the stack and crashed tvmc.  The walk here uses
 * the generated descriptors to know which length-delimited fields are
 * messages, keeps its own stack of ONNX_MAX_NESTING entries, visits every
 * byte once, and leaves malformed input for protobuf-c to report.
 */
#include <string.h>

#include "onnx_int.h"

/* Reads a base-128 varint at *p (< end); 0 when malformed. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return 0;
    uint8_t b = *(*p)++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return 1;
  }
  return 0;
}

/* See onnx_int.h. */
tvm_status onnx_check_nesting(const void *data, size_t size,
                              const ProtobufCMessageDescriptor *desc,
                              const char *what) {
  struct level {
    const uint8_t *end;
    const ProtobufCMessageDescriptor *desc;
  } stack[ONNX_MAX_NESTING];
  int depth = 0;
  const uint8_t *p = data, *end = p + size;
  stack[0].end = end;
  stack[0].desc = desc;
  for (;;) {
    while (depth > 0 && p >= stack[depth].end) depth--;
    if (p >= stack[depth].end) return TVM_OK;
    uint64_t key, v;
    if (!varint(&p, stack[depth].end, &key)) return TVM_OK;
    switch (key & 7) {
    case 0:
      if (!varint(&p, stack[depth].end, &v)) return TVM_OK;
      break;
    case 1:
    case 5: {
      size_t w = (key & 7) == 1 ? 8 : 4;
      if ((size_t)(stack[depth].end - p) < w) return TVM_OK;
      p += w;
      break;
    }
    case 2: {
      if (!varint(&p, stack[depth].end, &v) ||
          v > (uint64_t)(stack[depth].end - p))
        return TVM_OK;
      const ProtobufCFieldDescriptor *f =
          key >> 3 <= UINT32_MAX
              ? protobuf_c_message_descriptor_get_field(stack[depth].desc,
                                                        (unsigned)(key >> 3))
              : NULL;
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && f->descriptor) {
        if (depth + 1 >= ONNX_MAX_NESTING)
          return tvm_diag_set(TVM_ERR_INVALID,
                              "%s: messages nest more than %d deep (at byte "
                              "%zu; subgraphs within subgraphs?), the limit "
                              "of the ONNX importer",
                              what, ONNX_MAX_NESTING,
                              (size_t)(p - (const uint8_t *)data));
        depth++;
        stack[depth].end = p + v;
        stack[depth].desc = f->descriptor;
      } else {
        p += v;
      }
      break;
    }
    default: /* groups and invalid wire types: protobuf-c refuses them */
      return TVM_OK;
    }
  }
}
