/*
 * plugins/vdla/driver.c - the VDLA runtime driver (see vdla_driver.h):
 * device memory, instruction streams with dependency folding, and the
 * micro-op cache.
 */
#include "vdla_driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvm/base.h"

/* ---- device ---------------------------------------------------------------- */

typedef struct block {
  uint64_t addr, size;
} block;

/* A micro-op sequence the driver has seen. */
typedef struct uop_entry {
  uint64_t hash;
  uint32_t n;
  uint32_t *words;   /* encoded micro-ops */
  uint64_t dram;     /* where they live in device memory */
  int resident;      /* in the on-chip buffer at sram_off */
  uint32_t sram_off;
} uop_entry;

struct vdla_dev {
  vdla_config c;
  uint8_t *dram;
  uint64_t dram_bytes;
  vdla_sim *sim;
  block *blocks; /* allocations, sorted by address */
  size_t nblocks, capblocks;
  uop_entry *uops;
  size_t nuops, capuops;
  uint32_t uop_next; /* first free entry of the micro-op buffer */
  vdla_uop_stats ustats;
};

vdla_dev *vdla_dev_open(const vdla_config *c, uint64_t dram_bytes,
                        const char **why) {
  vdla_dev *d = calloc(1, sizeof *d);
  *why = NULL;
  if (!d || !dram_bytes || !(d->dram = calloc(1, dram_bytes))) {
    *why = "out of memory for the device memory";
    free(d);
    return NULL;
  }
  d->c = *c;
  d->dram_bytes = dram_bytes;
  if (!(d->sim = vdla_sim_create(c, d->dram, dram_bytes, why))) {
    free(d->dram);
    free(d);
    return NULL;
  }
  return d;
}

void vdla_dev_close(vdla_dev *d) {
  if (!d) return;
  for (size_t i = 0; i < d->nuops; i++) free(d->uops[i].words);
  free(d->uops);
  free(d->blocks);
  vdla_sim_destroy(d->sim);
  free(d->dram);
  free(d);
}

uint8_t *vdla_dev_dram(vdla_dev *d) { return d->dram; }
vdla_sim *vdla_dev_sim(vdla_dev *d) { return d->sim; }
vdla_uop_stats vdla_dev_uop_stats(const vdla_dev *d) { return d->ustats; }

uint64_t vdla_dev_used(const vdla_dev *d) {
  uint64_t u = 0;
  for (size_t i = 0; i < d->nblocks; i++) u += d->blocks[i].size;
  return u;
}

int vdla_dev_alloc(vdla_dev *d, uint64_t nbytes, uint64_t align,
                   uint64_t *addr) {
  if (align < 64) align = 64;
  if (align & (align - 1)) return -1;
  if (!nbytes) nbytes = 1;
  uint64_t at = 0;
  size_t i = 0;
  for (;; i++) {
    at = (at + align - 1) & ~(align - 1);
    uint64_t end = i < d->nblocks ? d->blocks[i].addr : d->dram_bytes;
    if (at <= end && end - at >= nbytes) break;
    if (i == d->nblocks) return -1;
    at = d->blocks[i].addr + d->blocks[i].size;
  }
  if (d->nblocks == d->capblocks) {
    size_t nc = d->capblocks ? 2 * d->capblocks : 16;
    block *nb = realloc(d->blocks, nc * sizeof *nb);
    if (!nb) return -1;
    d->blocks = nb;
    d->capblocks = nc;
  }
  memmove(d->blocks + i + 1, d->blocks + i, (d->nblocks - i) * sizeof *d->blocks);
  d->blocks[i] = (block){at, nbytes};
  d->nblocks++;
  *addr = at;
  return 0;
}

void vdla_dev_free(vdla_dev *d, uint64_t addr) {
  for (size_t i = 0; i < d->nblocks; i++)
    if (d->blocks[i].addr == addr) {
      memmove(d->blocks + i, d->blocks + i + 1,
              (d->nblocks - i - 1) * sizeof *d->blocks);
      d->nblocks--;
      return;
    }
}

/* Forgets what the micro-op buffer holds. */
static void uop_evict_all(vdla_dev *d) {
  for (size_t i = 0; i < d->nuops; i++) d->uops[i].resident = 0;
  d->uop_next = 0;
}

/* ---- streams --------------------------------------------------------------- */

struct vdla_stream {
  vdla_dev *d;
  vdla_insn *ins;
  uint32_t n, cap;
  int last[VDLA_NMOD];       /* last instruction per module, -1 = none */
  int pending[VDLA_NMOD][2]; /* pops owed by the next instruction:
                                [prev], [next] */
  int made_resident;         /* this stream loaded micro-ops */
  int ran;
  uint64_t *words;
  char err[256];
};

vdla_stream *vdla_stream_new(vdla_dev *d) {
  vdla_stream *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->d = d;
  for (int m = 0; m < VDLA_NMOD; m++) s->last[m] = -1;
  return s;
}

void vdla_stream_free(vdla_stream *s) {
  if (!s) return;
  /* micro-ops this stream meant to load never reached the buffer */
  if (s->made_resident && !s->ran) uop_evict_all(s->d);
  free(s->ins);
  free(s->words);
  free(s);
}

const char *vdla_stream_error(const vdla_stream *s) { return s->err; }

const uint64_t *vdla_stream_words(const vdla_stream *s, uint32_t *n) {
  *n = s->words ? s->n : 0;
  return s->words;
}

static int fail(vdla_stream *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(vdla_stream *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!s->err[0]) vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  return -1;
}

/* Appends an instruction, giving it the pops its module owes. */
static int append(vdla_stream *s, const vdla_insn *in) {
  if (s->n == s->cap) {
    uint32_t nc = s->cap ? 2 * s->cap : 64;
    vdla_insn *ni = realloc(s->ins, nc * sizeof *ni);
    if (!ni) return fail(s, "out of memory");
    s->ins = ni;
    s->cap = nc;
  }
  int m = vdla_insn_module(in);
  vdla_insn *x = &s->ins[s->n];
  *x = *in;
  x->pop_prev = (uint32_t)s->pending[m][0];
  x->pop_next = (uint32_t)s->pending[m][1];
  x->push_prev = x->push_next = 0;
  s->pending[m][0] = s->pending[m][1] = 0;
  s->last[m] = (int)s->n++;
  return 0;
}

/* A no-op instruction on module m (a place for dependency flags). */
static int carrier(vdla_stream *s, int m) {
  vdla_insn in = {0};
  if (m == VDLA_MOD_LOAD) {
    in.op = VDLA_OP_LOAD;
    in.buf = VDLA_BUF_INP;
  } else if (m == VDLA_MOD_STORE) {
    in.op = VDLA_OP_STORE;
    in.buf = VDLA_BUF_OUT;
  } else {
    in.op = VDLA_OP_GEMM; /* zero micro-ops */
    in.extent_out = in.extent_in = 1;
  }
  return append(s, &in);
}

/* Which side of `m` module `other` is: 0 = previous, 1 = next, -1 = not a
 * neighbour. */
static int side(int m, int other) {
  if (other == m - 1) return 0;
  if (other == m + 1) return 1;
  return -1;
}

int vdla_dep_push(vdla_stream *s, int from, int to) {
  int k = from >= 0 && from < VDLA_NMOD ? side(from, to) : -1;
  if (k < 0)
    return fail(s, "dep_push(%d -> %d): only neighbouring modules (load <-> "
                   "compute <-> store) exchange tokens",
                from, to);
  int last = s->last[from];
  /* a push owed after pops that no instruction took yet, or onto an
   * instruction that already pushes that way, needs a carrier */
  int fresh = last < 0 || s->pending[from][0] || s->pending[from][1] ||
              (k ? s->ins[last].push_next : s->ins[last].push_prev);
  if (fresh) {
    if (carrier(s, from)) return -1;
    last = s->last[from];
  }
  if (k) s->ins[last].push_next = 1;
  else s->ins[last].push_prev = 1;
  return 0;
}

int vdla_dep_pop(vdla_stream *s, int from, int to) {
  int k = to >= 0 && to < VDLA_NMOD ? side(to, from) : -1;
  if (k < 0)
    return fail(s, "dep_pop(%d -> %d): only neighbouring modules (load <-> "
                   "compute <-> store) exchange tokens",
                from, to);
  /* two pops of one queue before an instruction: the first gets a carrier */
  if (s->pending[to][k] && carrier(s, to)) return -1;
  s->pending[to][k] = 1;
  return 0;
}

int vdla_load(vdla_stream *s, int buf, uint32_t sram, uint64_t dram_addr,
              uint32_t y_size, uint32_t x_size, uint32_t x_stride,
              const uint32_t *pads) {
  if (buf < 0 || buf >= VDLA_NBUF || buf == VDLA_BUF_OUT)
    return fail(s, "load into buffer %d: loads fill UOP, WGT, INP or ACC",
                buf);
  uint32_t eb = vdla_sim_entry_bytes(s->d->sim, buf);
  if (dram_addr % eb)
    return fail(s, "load: DRAM address %llu is not a multiple of the %u-byte "
                   "entries of its buffer",
                (unsigned long long)dram_addr, eb);
  vdla_insn in = {0};
  in.op = VDLA_OP_LOAD;
  in.buf = (uint32_t)buf;
  in.sram_base = sram;
  in.dram_base = (uint32_t)(dram_addr / eb);
  if (dram_addr / eb > UINT32_MAX)
    return fail(s, "load: DRAM entry %llu does not fit 32 bits",
                (unsigned long long)(dram_addr / eb));
  in.y_size = y_size, in.x_size = x_size, in.x_stride = x_stride;
  if (pads) {
    in.y_pad_0 = pads[0], in.y_pad_1 = pads[1];
    in.x_pad_0 = pads[2], in.x_pad_1 = pads[3];
  }
  return append(s, &in);
}

int vdla_store(vdla_stream *s, uint32_t sram, uint64_t dram_addr,
               uint32_t y_size, uint32_t x_size, uint32_t x_stride) {
  uint32_t eb = vdla_sim_entry_bytes(s->d->sim, VDLA_BUF_OUT);
  if (dram_addr % eb)
    return fail(s, "store: DRAM address %llu is not a multiple of the "
                   "%u-byte output entries",
                (unsigned long long)dram_addr, eb);
  vdla_insn in = {0};
  in.op = VDLA_OP_STORE;
  in.buf = VDLA_BUF_OUT;
  in.sram_base = sram;
  in.dram_base = (uint32_t)(dram_addr / eb);
  in.y_size = y_size, in.x_size = x_size, in.x_stride = x_stride;
  return append(s, &in);
}

/* The on-chip offset of micro-op sequence uops, loading it (LOAD UOP on
 * the compute module) when the buffer does not hold it. */
static int uop_place(vdla_stream *s, const vdla_uop *uops, uint32_t n,
                     uint32_t *off) {
  vdla_dev *d = s->d;
  uint32_t cap = vdla_sim_entries(d->sim, VDLA_BUF_UOP);
  if (n > cap)
    return fail(s, "%u micro-ops do not fit the %u-entry micro-op buffer "
                   "(attrs.uop_kib)",
                n, cap);
  uint32_t words[4096], *w = n <= 4096 ? words : malloc(n * 4u);
  if (!w) return fail(s, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    const char *why = NULL;
    if (vdla_uop_encode(&uops[i], &w[i], &why)) {
      if (w != words) free(w);
      return fail(s, "micro-op %u: %s out of range", i, why);
    }
  }
  uint64_t h = tvm_hash_bytes(w, n * 4u, TVM_HASH_SEED);
  uop_entry *e = NULL;
  for (size_t i = 0; i < d->nuops && !e; i++)
    if (d->uops[i].hash == h && d->uops[i].n == n &&
        !memcmp(d->uops[i].words, w, n * 4u))
      e = &d->uops[i];
  int rc = 0;
  if (!e) { /* first sight: keep it in device memory */
    uint64_t addr;
    if (d->nuops == d->capuops) {
      size_t nc = d->capuops ? 2 * d->capuops : 16;
      uop_entry *nu = realloc(d->uops, nc * sizeof *nu);
      if (!nu) {
        rc = fail(s, "out of memory");
        goto out;
      }
      d->uops = nu;
      d->capuops = nc;
    }
    if (vdla_dev_alloc(d, n * 4u, 64, &addr)) {
      rc = fail(s, "device memory full: no room for %u micro-ops", n);
      goto out;
    }
    uint32_t *copy = malloc(n * 4u + 4);
    if (!copy) {
      vdla_dev_free(d, addr);
      rc = fail(s, "out of memory");
      goto out;
    }
    memcpy(copy, w, n * 4u);
    memcpy(d->dram + addr, w, n * 4u);
    e = &d->uops[d->nuops++];
    *e = (uop_entry){h, n, copy, addr, 0, 0};
  }
  if (e->resident) {
    d->ustats.hits++;
  } else {
    d->ustats.misses++;
    if (d->uop_next + n > cap) {
      uop_evict_all(d);
      d->ustats.evictions++;
    }
    if ((rc = vdla_load(s, VDLA_BUF_UOP, d->uop_next, e->dram, 1, n, n, NULL)))
      goto out;
    e->resident = 1;
    e->sram_off = d->uop_next;
    d->uop_next += n;
    s->made_resident = 1;
  }
  *off = e->sram_off;
out:
  if (w != words) free(w);
  return rc;
}

int vdla_compute(vdla_stream *s, const vdla_insn *in, const vdla_uop *uops,
                 uint32_t n) {
  if (in->op != VDLA_OP_GEMM && in->op != VDLA_OP_ALU)
    return fail(s, "vdla_compute takes GEMM or ALU, not %s",
                vdla_insn_name(in));
  uint32_t off = 0;
  if (n && uop_place(s, uops, n, &off)) return -1;
  vdla_insn x = *in;
  x.uop_bgn = off;
  x.uop_end = off + n;
  return append(s, &x);
}

int vdla_stream_run(vdla_stream *s, int mode, uint64_t seed,
                    vdla_stats *stats, char *err, size_t errcap) {
  if (s->err[0]) {
    snprintf(err, errcap, "%s", s->err);
    return -1;
  }
  /* pops nobody took get carriers; FINISH ends the program */
  for (int m = 0; m < VDLA_NMOD; m++)
    if ((s->pending[m][0] || s->pending[m][1]) && carrier(s, m)) break;
  vdla_insn fin = {0};
  fin.op = VDLA_OP_FINISH;
  if (s->err[0] || append(s, &fin)) {
    snprintf(err, errcap, "%s", s->err);
    return -1;
  }
  free(s->words);
  s->words = malloc((size_t)s->n * 16);
  if (!s->words) {
    snprintf(err, errcap, "out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < s->n; i++) {
    const char *why = NULL;
    if (vdla_encode(&s->ins[i], s->words + 2 * i, &why)) {
      snprintf(err, errcap, "insn %u (%s): field %s out of range", i,
               vdla_insn_name(&s->ins[i]), why ? why : "?");
      return -1;
    }
  }
  int rc = vdla_sim_run(s->d->sim, s->words, s->n, mode, seed, stats, err,
                        errcap);
  s->ran = rc == 0;
  if (rc) uop_evict_all(s->d); /* the buffer's contents are unknown now */
  return rc;
}
