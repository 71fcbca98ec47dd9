/*
 * plugins/vulkan/blob.c - the vulkan module blob (its layout is in
 * vulkan_int.h): written by vk_codegen from every device function of a
 * lowered module, read back by the runtime with every length checked.
 */
#include <stdio.h>
#include <string.h>

#include "codegen_int.h"

/* ---- the module ---------------------------------------------------------- */

/* A growing byte image of the blob (host allocator). */
typedef struct image {
  uint32_t *w;
  size_t n, cap;
  int oom;
} image;

static void put(image *im, uint32_t v) {
  if (im->n == im->cap) {
    size_t nc = im->cap ? im->cap * 2 : 1024;
    uint32_t *nw = tvm_realloc(im->w, nc * 4);
    if (!nw) {
      im->oom = 1;
      return;
    }
    im->w = nw;
    im->cap = nc;
  }
  im->w[im->n++] = v;
}

static void put_str(image *im, const char *s) {
  size_t len = strlen(s);
  put(im, (uint32_t)len);
  for (size_t k = 0; k < (len + 3) / 4; k++) {
    uint32_t w = 0;
    for (size_t b = 0; b < 4 && k * 4 + b < len; b++)
      w |= (uint32_t)(unsigned char)s[k * 4 + b] << (8 * b);
    put(im, w);
  }
}

int32_t vk_codegen(tvm_plugin_target *t, const tvm_module *m,
                   tvm_plugin_blob *out) {
  image im = {0};
  uint32_t nk = 0;
  for (int i = 0; i < m->nfuncs; i++) nk += m->funcs[i]->kind == TVM_FUNC_DEVICE;
  tvm_plugin_kernel *kt = vk_host->alloc(sizeof *kt * (nk ? nk : 1));
  if (!kt) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  memset(kt, 0, sizeof *kt * (nk ? nk : 1));
  put(&im, VK_BLOB_MAGIC);
  put(&im, nk);
  tvm_status st = TVM_OK;
  uint32_t k = 0;
  for (int i = 0; i < m->nfuncs && !st; i++) {
    const tvm_func *f = m->funcs[i];
    if (f->kind != TVM_FUNC_DEVICE) continue;
    uint32_t kinds[VK_MAX_PARAMS], bits[VK_MAX_PARAMS], local[3], grid[3];
    uint32_t push = 0, ubo = 0;
    uint32_t feats[2] = {0, 0};
    uint32_t *words[2] = {NULL, NULL};
    size_t nwords[2] = {0, 0};
    int used = 0, nvar = 1;
    if (f->nparams > VK_MAX_PARAMS) {
      st = vk_fail(TVM_ERR_UNSUPPORTED, "vulkan: kernel %s has %d "
                                        "parameters (at most %d)",
                   f->name, f->nparams, VK_MAX_PARAMS);
      break;
    }
    /* with subgroup operations where the target allows them; when the
     * kernel used some, its plain variant too, for devices without */
    st = vk_kernel_spirv(t, f, &words[0], &nwords[0], kinds, bits, local,
                         grid, &push, &ubo, &feats[0], (int)t->subgroups,
                         &used);
    if (!st && used) {
      nvar = 2;
      st = vk_kernel_spirv(t, f, &words[1], &nwords[1], kinds, bits, local,
                           grid, &push, &ubo, &feats[1], 0, &used);
    }
    if (st) {
      tvm_free(words[0]);
      break;
    }
    put_str(&im, f->name);
    put(&im, (uint32_t)f->nparams);
    for (int p = 0; p < f->nparams; p++) {
      put(&im, kinds[p]);
      put(&im, bits[p]);
    }
    put(&im, push);
    put(&im, ubo);
    for (int a = 0; a < 3; a++) put(&im, local[a]);
    put(&im, (uint32_t)nvar);
    for (int v = 0; v < nvar; v++) {
      put(&im, feats[v]);
      put(&im, (uint32_t)nwords[v]);
      for (size_t w = 0; w < nwords[v]; w++) put(&im, words[v][w]);
      tvm_free(words[v]);
    }
    size_t nl = strlen(f->name) + 1;
    char *name = vk_host->alloc(nl);
    if (!name) {
      st = vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
      break;
    }
    memcpy(name, f->name, nl);
    kt[k].struct_size = sizeof kt[k];
    kt[k].nargs = (uint32_t)f->nparams;
    kt[k].name = name;
    memcpy(kt[k].grid, grid, sizeof grid);
    memcpy(kt[k].block, local, sizeof local);
    k++;
  }
  if (!st && im.oom) st = vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  if (!st) {
    out->data = vk_host->alloc(im.n * 4);
    if (!out->data) st = vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  }
  if (st) {
    /* codegen failures left their detail in the diagnostic already */
    if (st != TVM_ERR_NOMEM && tvm_diag_status() == st) {
      /* a copy: the host's report may reuse the buffer it reads from */
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", tvm_diag_message());
      vk_host->report(st, msg);
    }
    for (uint32_t j = 0; j < k; j++) vk_host->free((void *)kt[j].name);
    vk_host->free(kt);
    tvm_free(im.w);
    return st;
  }
  memcpy(out->data, im.w, im.n * 4);
  tvm_free(im.w);
  out->struct_size = sizeof *out;
  out->format = TVM_BLOB_SPIRV;
  out->size = im.n * 4;
  out->kernels = kt;
  out->nkernels = nk;
  return 0;
}

/* ---- reading a blob back -------------------------------------------------- */

int32_t vk_blob_parse(const tvm_plugin_blob *b, uint32_t **copy,
                      vk_kernel_desc **kernels, uint32_t *n) {
  *copy = NULL;
  *kernels = NULL;
  *n = 0;
  if (b->format != TVM_BLOB_SPIRV || b->size < 8 || b->size % 4)
    return vk_fail(TVM_ERR_INVALID, "vulkan: not a vulkan module (format "
                                    "%u, %llu bytes)",
                   b->format, (unsigned long long)b->size);
  size_t nw = (size_t)(b->size / 4), at = 0;
  uint32_t *w = tvm_malloc(b->size);
  if (!w) return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  memcpy(w, b->data, b->size);
#define NEED(k)                                                              \
  if (at + (k) > nw) goto bad
  NEED(2);
  if (w[0] != VK_BLOB_MAGIC) {
    uint32_t magic = w[0];
    tvm_free(w);
    return vk_fail(TVM_ERR_INVALID,
                   "vulkan: the module blob is not of this plugin's format "
                   "(magic %08x, want %08x \"TVK3\"): rebuild the package",
                   magic, VK_BLOB_MAGIC);
  }
  uint32_t nk = w[1];
  at = 2;
  if (nk > nw) goto bad;
  vk_kernel_desc *ks = tvm_calloc(nk ? nk : 1, sizeof *ks);
  if (!ks) {
    tvm_free(w);
    return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
  }
  *kernels = ks;
  *copy = w;
  *n = nk;
  for (uint32_t k = 0; k < nk; k++) {
    vk_kernel_desc *d = &ks[k];
    NEED(1);
    uint32_t len = w[at++];
    NEED((len + 3) / 4);
    d->name = tvm_malloc(len + 1);
    if (!d->name) goto nomem;
    memcpy(d->name, &w[at], len);
    d->name[len] = 0;
    at += (len + 3) / 4;
    NEED(1);
    d->nparams = w[at++];
    if (d->nparams > VK_MAX_PARAMS) goto bad;
    NEED(2 * (size_t)d->nparams + 6);
    d->kinds = tvm_calloc(d->nparams + 1, 4);
    d->bits = tvm_calloc(d->nparams + 1, 4);
    if (!d->kinds || !d->bits) goto nomem;
    for (uint32_t p = 0; p < d->nparams; p++) {
      d->kinds[p] = w[at++];
      d->bits[p] = w[at++];
      if (d->kinds[p] > VK_PARAM_FLOAT) goto bad;
    }
    d->push_bytes = w[at++];
    d->scalars_ubo = w[at++];
    for (int a = 0; a < 3; a++) d->local[a] = w[at++];
    d->nvariants = w[at++];
    /* the scalar block holds 8 bytes per scalar parameter */
    uint32_t nscalar = 0;
    for (uint32_t p = 0; p < d->nparams; p++)
      nscalar += d->kinds[p] != VK_PARAM_BUFFER;
    if (d->scalars_ubo > 1 || d->push_bytes != 8 * nscalar ||
        d->push_bytes > (d->scalars_ubo ? VK_UBO_MAX : VK_PUSH_MAX) ||
        d->nvariants < 1 || d->nvariants > 2)
      goto bad;
    for (uint32_t v = 0; v < d->nvariants; v++) {
      vk_variant *x = &d->variants[v];
      NEED(2);
      x->features = w[at++];
      x->nwords = w[at++];
      NEED(x->nwords);
      x->words = &w[at];
      at += x->nwords;
      if (x->nwords < 5 || (x->features & ~(uint32_t)SPV_F_ALL)) goto bad;
    }
  }
  return 0;
bad:
  vk_kernels_free(w, *kernels, *n);
  *copy = NULL, *kernels = NULL, *n = 0;
  return vk_fail(TVM_ERR_INVALID, "vulkan: malformed module blob (%llu "
                                  "bytes): rebuild the package",
                 (unsigned long long)b->size);
nomem:
  vk_kernels_free(w, *kernels, *n);
  *copy = NULL, *kernels = NULL, *n = 0;
  return vk_fail(TVM_ERR_NOMEM, "vulkan: out of memory");
#undef NEED
}

void vk_kernels_free(uint32_t *copy, vk_kernel_desc *k, uint32_t n) {
  for (uint32_t i = 0; k && i < n; i++) {
    tvm_free(k[i].name);
    tvm_free(k[i].kinds);
    tvm_free(k[i].bits);
  }
  tvm_free(k);
  tvm_free(copy);
}

