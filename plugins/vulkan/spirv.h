/*
 * plugins/vulkan/spirv.h - a small SPIR-V module builder: word sections
 * in the order the specification requires, fresh ids, and types and
 * constants made once each (keyed by their spelling in a tvm_strmap).
 * Only what the Vulkan code generator needs; opcode and enumerant numbers
 * are the SPIR-V 1.3 specification's.
 */
#ifndef VULKAN_SPIRV_H
#define VULKAN_SPIRV_H

#include <stdint.h>

#include "tvm/base.h"

/* Opcodes. */
enum {
  SpvOpName = 5, SpvOpMemberName = 6, SpvOpExtension = 10,
  SpvOpExtInstImport = 11,
  SpvOpExtInst = 12, SpvOpMemoryModel = 14, SpvOpEntryPoint = 15,
  SpvOpExecutionMode = 16, SpvOpCapability = 17, SpvOpTypeVoid = 19,
  SpvOpTypeBool = 20, SpvOpTypeInt = 21, SpvOpTypeFloat = 22,
  SpvOpTypeVector = 23, SpvOpTypeArray = 28, SpvOpTypeRuntimeArray = 29,
  SpvOpTypeStruct = 30, SpvOpTypePointer = 32, SpvOpTypeFunction = 33,
  SpvOpConstantTrue = 41, SpvOpConstantFalse = 42, SpvOpConstant = 43,
  SpvOpFunction = 54, SpvOpFunctionEnd = 56, SpvOpVariable = 59,
  SpvOpLoad = 61, SpvOpStore = 62, SpvOpAccessChain = 65,
  SpvOpDecorate = 71, SpvOpMemberDecorate = 72,
  SpvOpCompositeExtract = 81, SpvOpConvertFToU = 109,
  SpvOpConvertFToS = 110, SpvOpConvertSToF = 111, SpvOpConvertUToF = 112,
  SpvOpUConvert = 113, SpvOpSConvert = 114, SpvOpFConvert = 115,
  SpvOpBitcast = 124, SpvOpSNegate = 126, SpvOpFNegate = 127,
  SpvOpIAdd = 128, SpvOpFAdd = 129, SpvOpISub = 130, SpvOpFSub = 131,
  SpvOpIMul = 132, SpvOpFMul = 133, SpvOpUDiv = 134, SpvOpSDiv = 135,
  SpvOpFDiv = 136, SpvOpUMod = 137, SpvOpSRem = 138, SpvOpSMod = 139,
  SpvOpFRem = 140, SpvOpFMod = 141, SpvOpIsNan = 156,
  SpvOpLogicalEqual = 164, SpvOpLogicalNotEqual = 165, SpvOpLogicalOr = 166, SpvOpLogicalAnd = 167, SpvOpLogicalNot = 168,
  SpvOpSelect = 169, SpvOpIEqual = 170, SpvOpINotEqual = 171,
  SpvOpUGreaterThan = 172, SpvOpSGreaterThan = 173,
  SpvOpUGreaterThanEqual = 174, SpvOpSGreaterThanEqual = 175,
  SpvOpULessThan = 176, SpvOpSLessThan = 177, SpvOpULessThanEqual = 178,
  SpvOpSLessThanEqual = 179, SpvOpFOrdEqual = 180, SpvOpFUnordNotEqual = 183,
  SpvOpFOrdLessThan = 184, SpvOpFOrdGreaterThan = 186,
  SpvOpFOrdLessThanEqual = 188, SpvOpFOrdGreaterThanEqual = 190,
  SpvOpShiftRightLogical = 194, SpvOpShiftRightArithmetic = 195,
  SpvOpShiftLeftLogical = 196, SpvOpBitwiseOr = 197, SpvOpBitwiseXor = 198,
  SpvOpBitwiseAnd = 199, SpvOpControlBarrier = 224, SpvOpLoopMerge = 246,
  SpvOpSelectionMerge = 247, SpvOpLabel = 248, SpvOpBranch = 249,
  SpvOpBranchConditional = 250, SpvOpReturn = 253,
  SpvOpGroupNonUniformElect = 333, SpvOpGroupNonUniformIAdd = 349,
  SpvOpGroupNonUniformFAdd = 350, SpvOpGroupNonUniformSMin = 353,
  SpvOpGroupNonUniformUMin = 354, SpvOpGroupNonUniformFMin = 355,
  SpvOpGroupNonUniformSMax = 356, SpvOpGroupNonUniformUMax = 357,
  SpvOpGroupNonUniformFMax = 358
};

/* Enumerants. */
enum {
  SpvCapabilityShader = 1, SpvCapabilityFloat16 = 9,
  SpvCapabilityFloat64 = 10, SpvCapabilityInt64 = 11,
  SpvCapabilityInt16 = 22, SpvCapabilityInt8 = 39,
  SpvCapabilityStorageBuffer16BitAccess = 4433,
  SpvCapabilityStorageBuffer8BitAccess = 4448,
  SpvAddressingLogical = 0, SpvMemoryModelGLSL450 = 1,
  SpvExecutionModelGLCompute = 5, SpvExecutionModeLocalSize = 17,
  SpvStorageClassUniformConstant = 0, SpvStorageClassInput = 1,
  SpvStorageClassUniform = 2, SpvStorageClassWorkgroup = 4,
  SpvStorageClassPushConstant = 9, SpvStorageClassFunction = 7,
  SpvStorageClassStorageBuffer = 12,
  SpvDecorationBlock = 2, SpvDecorationArrayStride = 6,
  SpvDecorationBuiltIn = 11, SpvDecorationBinding = 33,
  SpvDecorationDescriptorSet = 34, SpvDecorationOffset = 35,
  SpvBuiltInWorkgroupId = 26, SpvBuiltInLocalInvocationId = 27,
  SpvBuiltInNumSubgroups = 38, SpvBuiltInSubgroupId = 40,
  SpvCapabilityGroupNonUniform = 61,
  SpvCapabilityGroupNonUniformArithmetic = 63,
  SpvScopeWorkgroup = 2, SpvScopeSubgroup = 3, SpvGroupOperationReduce = 0,
  SpvMemorySemanticsAcquireRelease = 0x8,
  SpvMemorySemanticsWorkgroupMemory = 0x100,
  SpvFunctionControlNone = 0, SpvSelectionControlNone = 0,
  SpvLoopControlNone = 0
};

/* GLSL.std.450 extended instructions. */
enum {
  GLSLstd450Round = 1, GLSLstd450RoundEven = 2, GLSLstd450Trunc = 3,
  GLSLstd450FAbs = 4,
  GLSLstd450Floor = 8, GLSLstd450Ceil = 9, GLSLstd450Sin = 13,
  GLSLstd450Cos = 14, GLSLstd450Tanh = 21, GLSLstd450Pow = 26,
  GLSLstd450Exp = 27, GLSLstd450Log = 28, GLSLstd450Sqrt = 31,
  GLSLstd450InverseSqrt = 32, GLSLstd450FMin = 37, GLSLstd450UMin = 38,
  GLSLstd450SMin = 39, GLSLstd450FMax = 40, GLSLstd450UMax = 41,
  GLSLstd450SMax = 42, GLSLstd450Fma = 50
};

/* What a module needs of the device, as the capabilities spv_finish
 * declares (and the vulkan blob records per kernel):
 * SPV_F_INT64/FLOAT64/INT8/INT16/FLOAT16 for 64-, 8- and 16-bit types
 * (set by spv_t_int / spv_t_float), SPV_F_STORAGE8/16 for 8- and
 * 16-bit elements of storage buffers (set by the code generator),
 * SPV_F_SUBGROUP for OpGroupNonUniform arithmetic. */
enum {
  SPV_F_INT64 = 1u << 0, SPV_F_FLOAT64 = 1u << 1, SPV_F_INT8 = 1u << 2,
  SPV_F_INT16 = 1u << 3, SPV_F_FLOAT16 = 1u << 4, SPV_F_STORAGE8 = 1u << 5,
  SPV_F_STORAGE16 = 1u << 6, SPV_F_SUBGROUP = 1u << 7,
  SPV_F_ALL = (1u << 8) - 1
};

/* A growable list of words. */
typedef struct spv_words {
  uint32_t *w;
  size_t n, cap;
} spv_words;

/* The sections of a module, in the specification's order. */
typedef struct spv_module {
  spv_words caps, imports, memmodel, entry, modes, debug, annot, types,
      funcs;
  uint32_t bound; /* next free id */
  uint32_t glsl;  /* the GLSL.std.450 import */
  tvm_strmap made; /* "i32", "c:i32:7", ... -> id (as intptr) */
  tvm_arena *keys; /* storage of the map's keys */
  uint32_t features; /* SPV_F_* */
  int oom;
} spv_module;

int spv_init(spv_module *m);
void spv_free(spv_module *m);
uint32_t spv_id(spv_module *m);
/* Appends an instruction (opcode + operands) to section s. */
void spv_inst(spv_module *m, spv_words *s, uint32_t op, const uint32_t *ops,
              int nops);
/* Appends an instruction with a string operand after `nops` operands and
 * `ntail` more operands after the string (an entry point's interface). */
void spv_inst_str(spv_module *m, spv_words *s, uint32_t op,
                  const uint32_t *ops, int nops, const char *str,
                  const uint32_t *tail, int ntail);
/* Appends every word of src to dst. */
void spv_append(spv_module *m, spv_words *dst, const spv_words *src);
#define SPV(m, s, op, ...)                                                   \
  spv_inst((m), (s), (op), (const uint32_t[]){__VA_ARGS__},                  \
           (int)(sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)))

/* Types, made once each. */
uint32_t spv_t_void(spv_module *m);
uint32_t spv_t_bool(spv_module *m);
uint32_t spv_t_int(spv_module *m, int bits, int is_signed);
uint32_t spv_t_float(spv_module *m, int bits);
uint32_t spv_t_vec(spv_module *m, uint32_t elem, int n);
uint32_t spv_t_ptr(spv_module *m, uint32_t storage, uint32_t type);
uint32_t spv_t_array(spv_module *m, uint32_t elem, uint32_t len,
                     uint32_t stride);
/* A runtime array of elem with ArrayStride stride. */
uint32_t spv_t_rtarray(spv_module *m, uint32_t elem, uint32_t stride);
uint32_t spv_t_func_void(spv_module *m);
/* struct { member } decorated Block, member at offset 0 (storage buffers) */
uint32_t spv_t_block1(spv_module *m, uint32_t member);
/* Constants, made once each. */
uint32_t spv_c_int(spv_module *m, uint32_t type, int bits, int64_t v);
uint32_t spv_c_uint32(spv_module *m, uint32_t v);
uint32_t spv_c_float(spv_module *m, uint32_t type, int bits, double v);
uint32_t spv_c_bool(spv_module *m, int v);

/* The finished module (header + sections); heap words, free with
 * tvm_free.  Fails only for lack of memory. */
tvm_status spv_finish(spv_module *m, uint32_t **words, size_t *nwords);

#endif /* VULKAN_SPIRV_H */
