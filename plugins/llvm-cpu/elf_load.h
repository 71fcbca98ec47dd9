/*
 * elf_load.h - llvm-cpu's own loader for the relocatable x86-64 ELF
 * objects its codegen emits (elf_load.c).  Free of LLVM headers: the
 * package fuzzer links it on its own.
 */
#ifndef TVM_LLVM_CPU_ELF_LOAD_H
#define TVM_LLVM_CPU_ELF_LOAD_H
#include <stdint.h>

/* A loaded object: its code, data and GOT mapped with W^X protections,
 * and the addresses of its global symbols. */
typedef struct lc_image lc_image;

/* Validates the object d[0..n) (lc_check_elf), lays out its loaded
 * sections, resolves its external symbols against the allow-list,
 * applies its relocations and protects the pages (code read+execute,
 * constants and GOT read-only, data read+write).  On failure reports
 * through lc_report, returns its status and leaves *out NULL. */
int32_t lc_image_load(const uint8_t *d, uint64_t n, lc_image **out);

/* Address of the global (or weak) symbol `name` defined in the image,
 * NULL when it defines none. */
void *lc_image_symbol(const lc_image *im, const char *name);

/* The symbol's address when it lies in the image's code pages (a
 * function the runtime may call), else NULL: a damaged object may put a
 * kernel's name on data or on an absolute address. */
void *lc_image_code(const lc_image *im, const char *name);

/* The symbol's address when `bytes` bytes from it lie in the image's
 * writable data pages, aligned to `bytes` when that is 1, 2, 4 or 8 (a
 * module global the runtime fills in), else NULL: writing through a
 * symbol of a damaged object must neither fault nor be misaligned. */
void *lc_image_data(const lc_image *im, const char *name, uint64_t bytes);

/* Unmaps the image (NULL is fine). */
void lc_image_free(lc_image *im);

/* May generated code call the external function `name`?  True for the C
 * math library, memcpy/memmove/memset, aligned_alloc/free, the compiler
 * support routines LLVM calls (half conversions, 128-bit arithmetic) and
 * the names the host program lists in $TVM_LLVM_CPU_EXTERNS (separated
 * by commas, colons or spaces). */
int lc_extern_allowed(const char *name);
#endif
