/*
 * plugins/vulkan/spirv.c - the SPIR-V module builder (see spirv.h).
 */
#include "spirv.h"

#include <stdio.h>
#include <string.h>

static void push(spv_module *m, spv_words *s, uint32_t w) {
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    uint32_t *nw = tvm_realloc(s->w, nc * sizeof *nw);
    if (!nw) {
      m->oom = 1;
      return;
    }
    s->w = nw;
    s->cap = nc;
  }
  s->w[s->n++] = w;
}

int spv_init(spv_module *m) {
  memset(m, 0, sizeof *m);
  m->bound = 1;
  m->keys = tvm_arena_create();
  return m->keys ? 0 : -1;
}

void spv_free(spv_module *m) {
  spv_words *all[] = {&m->caps,  &m->imports, &m->memmodel,
                      &m->entry, &m->modes,   &m->debug,
                      &m->annot, &m->types,   &m->funcs};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) tvm_free(all[i]->w);
  tvm_strmap_free(&m->made);
  if (m->keys) tvm_arena_destroy(m->keys);
  memset(m, 0, sizeof *m);
}

uint32_t spv_id(spv_module *m) { return m->bound++; }

void spv_inst(spv_module *m, spv_words *s, uint32_t op, const uint32_t *ops,
              int nops) {
  push(m, s, (uint32_t)(nops + 1) << 16 | op);
  for (int i = 0; i < nops; i++) push(m, s, ops[i]);
}

void spv_append(spv_module *m, spv_words *dst, const spv_words *src) {
  for (size_t i = 0; i < src->n; i++) push(m, dst, src->w[i]);
}

void spv_inst_str(spv_module *m, spv_words *s, uint32_t op,
                  const uint32_t *ops, int nops, const char *str,
                  const uint32_t *tail, int ntail) {
  size_t len = strlen(str), nw = len / 4 + 1; /* NUL included, padded */
  push(m, s, (uint32_t)((size_t)nops + 1 + nw + (size_t)ntail) << 16 | op);
  for (int i = 0; i < nops; i++) push(m, s, ops[i]);
  for (size_t k = 0; k < nw; k++) {
    uint32_t w = 0;
    for (size_t b = 0; b < 4; b++) {
      size_t j = k * 4 + b;
      if (j < len) w |= (uint32_t)(unsigned char)str[j] << (8 * b);
    }
    push(m, s, w);
  }
  for (int i = 0; i < ntail; i++) push(m, s, tail[i]);
}

/* The id recorded under key, or 0. */
static uint32_t lookup(spv_module *m, const char *key) {
  return (uint32_t)(uintptr_t)tvm_strmap_get(&m->made, key);
}

static uint32_t remember(spv_module *m, const char *key, uint32_t id) {
  char *k = tvm_arena_strdup(m->keys, key);
  if (!k || tvm_strmap_put(&m->made, k, (void *)(uintptr_t)id)) m->oom = 1;
  return id;
}

#define MADE(fmt, ...)                                                       \
  char key[96];                                                              \
  snprintf(key, sizeof key, fmt, __VA_ARGS__);                               \
  uint32_t got = lookup(m, key);                                             \
  if (got) return got;                                                       \
  uint32_t id = spv_id(m)

uint32_t spv_t_void(spv_module *m) {
  MADE("%s", "void");
  SPV(m, &m->types, SpvOpTypeVoid, id);
  return remember(m, key, id);
}

uint32_t spv_t_bool(spv_module *m) {
  MADE("%s", "bool");
  SPV(m, &m->types, SpvOpTypeBool, id);
  return remember(m, key, id);
}

uint32_t spv_t_int(spv_module *m, int bits, int is_signed) {
  MADE("i%d:%d", bits, is_signed);
  m->features |= bits == 64 ? SPV_F_INT64 : bits == 16 ? SPV_F_INT16
                 : bits == 8  ? SPV_F_INT8 : 0;
  SPV(m, &m->types, SpvOpTypeInt, id, (uint32_t)bits, (uint32_t)is_signed);
  return remember(m, key, id);
}

uint32_t spv_t_float(spv_module *m, int bits) {
  MADE("f%d", bits);
  m->features |= bits == 64 ? SPV_F_FLOAT64 : bits == 16 ? SPV_F_FLOAT16 : 0;
  SPV(m, &m->types, SpvOpTypeFloat, id, (uint32_t)bits);
  return remember(m, key, id);
}

uint32_t spv_t_vec(spv_module *m, uint32_t elem, int n) {
  MADE("v%u:%d", elem, n);
  SPV(m, &m->types, SpvOpTypeVector, id, elem, (uint32_t)n);
  return remember(m, key, id);
}

uint32_t spv_t_ptr(spv_module *m, uint32_t storage, uint32_t type) {
  MADE("p%u:%u", storage, type);
  SPV(m, &m->types, SpvOpTypePointer, id, storage, type);
  return remember(m, key, id);
}

uint32_t spv_t_array(spv_module *m, uint32_t elem, uint32_t len,
                     uint32_t stride) {
  uint32_t c = spv_c_uint32(m, len);
  MADE("a%u:%u:%u", elem, len, stride);
  SPV(m, &m->types, SpvOpTypeArray, id, elem, c);
  if (stride) SPV(m, &m->annot, SpvOpDecorate, id, SpvDecorationArrayStride,
                  stride);
  return remember(m, key, id);
}

uint32_t spv_t_rtarray(spv_module *m, uint32_t elem, uint32_t stride) {
  MADE("ra%u:%u", elem, stride);
  SPV(m, &m->types, SpvOpTypeRuntimeArray, id, elem);
  SPV(m, &m->annot, SpvOpDecorate, id, SpvDecorationArrayStride, stride);
  return remember(m, key, id);
}

uint32_t spv_t_func_void(spv_module *m) {
  uint32_t v = spv_t_void(m);
  MADE("fn%u", v);
  SPV(m, &m->types, SpvOpTypeFunction, id, v);
  return remember(m, key, id);
}

uint32_t spv_t_block1(spv_module *m, uint32_t member) {
  MADE("blk%u", member);
  SPV(m, &m->types, SpvOpTypeStruct, id, member);
  SPV(m, &m->annot, SpvOpDecorate, id, SpvDecorationBlock);
  SPV(m, &m->annot, SpvOpMemberDecorate, id, 0, SpvDecorationOffset, 0);
  return remember(m, key, id);
}

uint32_t spv_c_int(spv_module *m, uint32_t type, int bits, int64_t v) {
  MADE("c%u:%lld", type, (long long)v);
  if (bits == 64)
    SPV(m, &m->types, SpvOpConstant, type, id, (uint32_t)(uint64_t)v,
        (uint32_t)((uint64_t)v >> 32));
  else
    SPV(m, &m->types, SpvOpConstant, type, id, (uint32_t)v);
  return remember(m, key, id);
}

uint32_t spv_c_uint32(spv_module *m, uint32_t v) {
  return spv_c_int(m, spv_t_int(m, 32, 0), 32, v);
}

uint32_t spv_c_float(spv_module *m, uint32_t type, int bits, double v) {
  uint64_t bitsv;
  if (bits == 64) {
    memcpy(&bitsv, &v, 8);
  } else {
    float f = (float)v;
    uint32_t b32;
    memcpy(&b32, &f, 4);
    bitsv = b32;
  }
  MADE("f%u:%llx", type, (unsigned long long)bitsv);
  if (bits == 64)
    SPV(m, &m->types, SpvOpConstant, type, id, (uint32_t)bitsv,
        (uint32_t)(bitsv >> 32));
  else
    SPV(m, &m->types, SpvOpConstant, type, id, (uint32_t)bitsv);
  return remember(m, key, id);
}

uint32_t spv_c_bool(spv_module *m, int v) {
  uint32_t t = spv_t_bool(m);
  MADE("b%d", v != 0);
  SPV(m, &m->types, v ? SpvOpConstantTrue : SpvOpConstantFalse, t, id);
  return remember(m, key, id);
}

tvm_status spv_finish(spv_module *m, uint32_t **words, size_t *nwords) {
  spv_words caps = {0};
  spv_module *mm = m;
  static const struct { uint32_t f, cap; const char *ext; } need[] = {
      {SPV_F_INT64, SpvCapabilityInt64, NULL},
      {SPV_F_FLOAT64, SpvCapabilityFloat64, NULL},
      {SPV_F_INT8, SpvCapabilityInt8, NULL},
      {SPV_F_INT16, SpvCapabilityInt16, NULL},
      {SPV_F_FLOAT16, SpvCapabilityFloat16, NULL},
      {SPV_F_STORAGE8, SpvCapabilityStorageBuffer8BitAccess,
       "SPV_KHR_8bit_storage"},
      {SPV_F_STORAGE16, SpvCapabilityStorageBuffer16BitAccess,
       "SPV_KHR_16bit_storage"},
      {SPV_F_SUBGROUP, SpvCapabilityGroupNonUniform, NULL},
      {SPV_F_SUBGROUP, SpvCapabilityGroupNonUniformArithmetic, NULL},
  };
  SPV(mm, &caps, SpvOpCapability, SpvCapabilityShader);
  for (size_t i = 0; i < sizeof need / sizeof *need; i++)
    if (m->features & need[i].f)
      SPV(mm, &caps, SpvOpCapability, need[i].cap);
  /* extensions follow every capability (the module layout's order) */
  for (size_t i = 0; i < sizeof need / sizeof *need; i++)
    if ((m->features & need[i].f) && need[i].ext)
      spv_inst_str(mm, &caps, SpvOpExtension, NULL, 0, need[i].ext, NULL, 0);
  const spv_words *all[] = {&caps,     &m->caps,  &m->imports,
                            &m->memmodel, &m->entry, &m->modes,
                            &m->debug, &m->annot, &m->types,
                            &m->funcs};
  size_t n = 5;
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) n += all[i]->n;
  uint32_t *w = m->oom ? NULL : tvm_malloc(n * sizeof *w);
  if (!w) {
    tvm_free(caps.w);
    return tvm_diag_set(TVM_ERR_NOMEM, "vulkan: out of memory writing "
                                       "SPIR-V");
  }
  w[0] = 0x07230203u; /* magic */
  w[1] = 0x00010300u; /* SPIR-V 1.3 (Vulkan 1.1) */
  w[2] = 0;           /* generator */
  w[3] = m->bound;
  w[4] = 0;
  size_t k = 5;
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    if (all[i]->n) memcpy(w + k, all[i]->w, all[i]->n * sizeof *w);
    k += all[i]->n;
  }
  tvm_free(caps.w);
  *words = w;
  *nwords = n;
  return TVM_OK;
}
