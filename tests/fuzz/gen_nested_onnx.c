/*
 * tests/fuzz/gen_nested_onnx.c - `gen_nested_onnx DEPTH FILE`: writes an
 * ONNX ModelProto whose graph holds a node whose attribute holds a graph
 * ... DEPTH times (Graph -> Node -> Attribute -> Graph).  At 300 000 (a
 * 4 MB file) this overflowed the stack in protobuf-c's recursive
 * unpacker; generated rather than kept because it is large.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Encodes v as a varint into b; returns its length. */
static int varint(uint64_t v, unsigned char *b) {
  int n = 0;
  do {
    b[n] = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) b[n] |= 0x80;
    n++;
  } while (v);
  return n;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  long depth = atol(argv[1]);
  if (depth < 1 || depth > 10000000) return 2;
  /* headers from the innermost out: key + length of what they wrap */
  size_t nh = (size_t)depth * 3 + 1;
  unsigned char (*h)[12] = malloc(nh * sizeof *h);
  unsigned char *hl = malloc(nh);
  if (!h || !hl) return 1;
  static const int fields[3] = {6, 5, 1}; /* Attribute.g, Node.attribute, Graph.node */
  uint64_t len = 0;
  for (size_t i = 0; i < nh; i++) {
    int field = i + 1 == nh ? 7 : fields[i % 3]; /* Model.graph outermost */
    int n = varint((uint64_t)field << 3 | 2, h[i]);
    n += varint(len, h[i] + n);
    hl[i] = (unsigned char)n;
    len += (uint64_t)n;
  }
  FILE *f = fopen(argv[2], "wb");
  if (!f) return 1;
  fputc(1 << 3, f); /* ir_version = 8 */
  fputc(8, f);
  for (size_t i = nh; i-- > 0;) fwrite(h[i], 1, hl[i], f);
  free(h);
  free(hl);
  return fclose(f) != 0;
}
