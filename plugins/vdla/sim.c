/*
 * plugins/vdla/sim.c - the VDLA simulator (see vdla_sim.h): on-chip
 * buffers, the fetch/load/compute/store modules, the dependency-token
 * queues, and the three scheduling modes.  Each instruction's effect is
 * computed when the module executes it; in TIMED mode a clock per module
 * and a timestamp per token give the cycle counts.
 */
#include "vdla_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vdla_sim {
  vdla_config c;
  uint8_t *dram;
  uint64_t dram_bytes;
  uint8_t *sram[VDLA_NBUF];
  uint32_t ebytes[VDLA_NBUF], entries[VDLA_NBUF];
};

void vdla_config_default(vdla_config *c) {
  memset(c, 0, sizeof *c);
  c->batch = 1;
  c->block_in = 16;
  c->block_out = 16;
  c->inp_kib = 32;
  c->wgt_kib = 32;
  c->acc_kib = 128;
  c->out_kib = 32;
  c->uop_kib = 32;
  c->clock_mhz = 200;
  c->bus_bytes = 8;
  c->dma_latency = 64;
  c->gemm_pipeline = 4;
}

vdla_sim *vdla_sim_create(const vdla_config *c, uint8_t *dram,
                          uint64_t dram_bytes, const char **why) {
  *why = NULL;
  if (!c->batch || !c->block_in || !c->block_out || c->batch > 64 ||
      c->block_in > 256 || c->block_out > 256) {
    *why = "GEMM shape (batch, block_in, block_out) must be 1..64, 1..256, "
           "1..256";
    return NULL;
  }
  if (!c->bus_bytes || c->clock_mhz <= 0) {
    *why = "bus_bytes and clock_mhz must be positive";
    return NULL;
  }
  vdla_sim *s = calloc(1, sizeof *s);
  if (!s) {
    *why = "out of memory";
    return NULL;
  }
  s->c = *c;
  s->dram = dram;
  s->dram_bytes = dram_bytes;
  s->ebytes[VDLA_BUF_UOP] = 4;
  s->ebytes[VDLA_BUF_WGT] = c->block_out * c->block_in;
  s->ebytes[VDLA_BUF_INP] = c->batch * c->block_in;
  s->ebytes[VDLA_BUF_ACC] = c->batch * c->block_out * 4;
  s->ebytes[VDLA_BUF_OUT] = c->batch * c->block_out;
  const uint32_t kib[VDLA_NBUF] = {c->uop_kib, c->wgt_kib, c->inp_kib,
                                   c->acc_kib, c->out_kib};
  for (int b = 0; b < VDLA_NBUF; b++) {
    s->entries[b] = (uint32_t)((uint64_t)kib[b] * 1024 / s->ebytes[b]);
    if (!s->entries[b]) {
      *why = "a buffer is smaller than one of its entries";
      vdla_sim_destroy(s);
      return NULL;
    }
    s->sram[b] = calloc(s->entries[b], s->ebytes[b]);
    if (!s->sram[b]) {
      *why = "out of memory";
      vdla_sim_destroy(s);
      return NULL;
    }
  }
  return s;
}

void vdla_sim_destroy(vdla_sim *s) {
  if (!s) return;
  for (int b = 0; b < VDLA_NBUF; b++) free(s->sram[b]);
  free(s);
}

const vdla_config *vdla_sim_config(const vdla_sim *s) { return &s->c; }
uint32_t vdla_sim_entry_bytes(const vdla_sim *s, int b) {
  return s->ebytes[b];
}
uint32_t vdla_sim_entries(const vdla_sim *s, int b) { return s->entries[b]; }
uint8_t *vdla_sim_sram(vdla_sim *s, int b) { return s->sram[b]; }

/* ---- one run -------------------------------------------------------------- */

enum { Q_L2C, Q_C2L, Q_C2S, Q_S2C, NQ };
static const char *const qname[NQ] = {"load->compute", "compute->load",
                                      "compute->store", "store->compute"};
static const char *const modname[VDLA_NMOD] = {"load", "compute", "store"};

/* The queue a module pops (or pushes) for prev/next; -1 = none. */
static int pop_queue(int m, int next) {
  if (m == VDLA_MOD_LOAD) return next ? Q_C2L : -1;
  if (m == VDLA_MOD_COMPUTE) return next ? Q_S2C : Q_L2C;
  return next ? -1 : Q_C2S;
}
static int push_queue(int m, int next) {
  if (m == VDLA_MOD_LOAD) return next ? Q_L2C : -1;
  if (m == VDLA_MOD_COMPUTE) return next ? Q_C2S : Q_C2L;
  return next ? -1 : Q_S2C;
}

typedef struct tokq {
  uint64_t *t; /* arrival times */
  uint32_t head, tail;
} tokq;

typedef struct run {
  vdla_sim *s;
  vdla_insn *ins;
  uint32_t n;
  uint32_t *cmd[VDLA_NMOD]; /* instruction indexes per module */
  uint32_t ncmd[VDLA_NMOD], head[VDLA_NMOD];
  tokq q[NQ];
  uint64_t t_free[VDLA_NMOD];
  uint32_t executed;
  vdla_stats st;
  char *err;
  size_t errcap;
} run;

#define FAIL(r, ...)                                                         \
  do {                                                                       \
    snprintf((r)->err, (r)->errcap, __VA_ARGS__);                            \
    return -1;                                                               \
  } while (0)

/* Byte address of DRAM entry e of buffer b, checked. */
static int dram_at(run *r, uint32_t k, int b, uint64_t e, uint8_t **p) {
  uint64_t eb = r->s->ebytes[b], off = e * eb;
  if (e > r->s->dram_bytes / eb || off + eb > r->s->dram_bytes)
    FAIL(r, "insn %u (%s): DRAM entry %llu (byte %llu) is past the %llu "
            "bytes of device memory",
         k, vdla_insn_name(&r->ins[k]), (unsigned long long)e,
         (unsigned long long)off, (unsigned long long)r->s->dram_bytes);
  *p = r->s->dram + off;
  return 0;
}

/* SRAM entry e of buffer b, checked. */
static int sram_at(run *r, uint32_t k, int b, uint64_t e, uint8_t **p) {
  static const char *const bn[VDLA_NBUF] = {"UOP", "WGT", "INP", "ACC",
                                            "OUT"};
  if (e >= r->s->entries[b])
    FAIL(r, "insn %u (%s): %s entry %llu is past the %u entries of the %s "
            "buffer",
         k, vdla_insn_name(&r->ins[k]), bn[b], (unsigned long long)e,
         r->s->entries[b], bn[b]);
  *p = r->s->sram[b] + e * r->s->ebytes[b];
  return 0;
}

static int exec_load(run *r, uint32_t k, const vdla_insn *in) {
  uint32_t eb = r->s->ebytes[in->buf];
  uint32_t cols = in->x_pad_0 + in->x_size + in->x_pad_1;
  uint32_t rows = in->y_pad_0 + in->y_size + in->y_pad_1;
  for (uint32_t y = 0; y < rows; y++)
    for (uint32_t x = 0; x < cols; x++) {
      uint8_t *dst, *src;
      if (sram_at(r, k, (int)in->buf, (uint64_t)in->sram_base +
                                          (uint64_t)y * cols + x, &dst))
        return -1;
      if (y < in->y_pad_0 || y >= in->y_pad_0 + in->y_size ||
          x < in->x_pad_0 || x >= in->x_pad_0 + in->x_size) {
        memset(dst, 0, eb);
        continue;
      }
      uint64_t e = (uint64_t)in->dram_base +
                   (uint64_t)(y - in->y_pad_0) * in->x_stride +
                   (x - in->x_pad_0);
      if (dram_at(r, k, (int)in->buf, e, &src)) return -1;
      memcpy(dst, src, eb);
    }
  r->st.bytes[in->buf] += (uint64_t)in->y_size * in->x_size * eb;
  return 0;
}

static int exec_store(run *r, uint32_t k, const vdla_insn *in) {
  uint32_t eb = r->s->ebytes[in->buf];
  for (uint32_t y = 0; y < in->y_size; y++)
    for (uint32_t x = 0; x < in->x_size; x++) {
      uint8_t *dst, *src;
      if (sram_at(r, k, (int)in->buf,
                  (uint64_t)in->sram_base + (uint64_t)y * in->x_size + x,
                  &src) ||
          dram_at(r, k, (int)in->buf,
                  (uint64_t)in->dram_base + (uint64_t)y * in->x_stride + x,
                  &dst))
        return -1;
      memcpy(dst, src, eb);
    }
  r->st.bytes[in->buf] += (uint64_t)in->y_size * in->x_size * eb;
  return 0;
}

/* Narrows acc entry a into out entry o (int8, two's complement). */
static void narrow(const int32_t *a, int8_t *o, uint32_t lanes) {
  for (uint32_t l = 0; l < lanes; l++) o[l] = (int8_t)(uint8_t)(uint32_t)a[l];
}

static int32_t alu(uint32_t op, int32_t a, int32_t b) {
  switch (op) {
  case VDLA_ALU_MIN: return a < b ? a : b;
  case VDLA_ALU_MAX: return a > b ? a : b;
  case VDLA_ALU_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
  case VDLA_ALU_SHR:
    if (b >= 0) return b > 31 ? (a < 0 ? -1 : 0) : a >> b;
    return b < -31 ? 0 : (int32_t)((uint32_t)a << -b);
  default: return (int32_t)((uint32_t)a * (uint32_t)b);
  }
}

/* The int32 dot product of n int8 pairs.  The usual block widths get
 * loops of a constant trip count, which the compiler vectorizes: the
 * functional simulator of a whole ResNet-18 spends its time here. */
static int32_t dot(const int8_t *a, const int8_t *b, uint32_t n) {
  int32_t s = 0;
  if (n == 16) {
    for (uint32_t i = 0; i < 16; i++) s += (int32_t)a[i] * (int32_t)b[i];
  } else if (n == 32) {
    for (uint32_t i = 0; i < 32; i++) s += (int32_t)a[i] * (int32_t)b[i];
  } else {
    for (uint32_t i = 0; i < n; i++) s += (int32_t)a[i] * (int32_t)b[i];
  }
  return s;
}

/* GEMM and ALU: the micro-op loop nest. */
static int exec_compute(run *r, uint32_t k, const vdla_insn *in) {
  const vdla_config *c = &r->s->c;
  uint32_t lanes = c->batch * c->block_out;
  if (in->uop_end < in->uop_bgn)
    FAIL(r, "insn %u (%s): uop_end %u is before uop_bgn %u", k,
         vdla_insn_name(in), in->uop_end, in->uop_bgn);
  for (uint32_t o = 0; o < in->extent_out; o++)
    for (uint32_t i = 0; i < in->extent_in; i++)
      for (uint32_t u = in->uop_bgn; u < in->uop_end; u++) {
        uint8_t *up, *accp, *outp;
        if (sram_at(r, k, VDLA_BUF_UOP, u, &up)) return -1;
        uint32_t w;
        memcpy(&w, up, 4);
        vdla_uop uop;
        vdla_uop_decode(w, &uop);
        uint64_t dst = uop.dst + (uint64_t)o * in->dst_factor_out +
                       (uint64_t)i * in->dst_factor_in;
        uint64_t src = uop.src + (uint64_t)o * in->src_factor_out +
                       (uint64_t)i * in->src_factor_in;
        if (sram_at(r, k, VDLA_BUF_ACC, dst, &accp) ||
            sram_at(r, k, VDLA_BUF_OUT, dst, &outp))
          return -1;
        int32_t *acc = (int32_t *)(void *)accp;
        if (in->reset) {
          memset(acc, 0, lanes * 4);
        } else if (in->op == VDLA_OP_GEMM) {
          uint64_t wgt = uop.wgt + (uint64_t)o * in->wgt_factor_out +
                         (uint64_t)i * in->wgt_factor_in;
          uint8_t *ip, *wp;
          if (sram_at(r, k, VDLA_BUF_INP, src, &ip) ||
              sram_at(r, k, VDLA_BUF_WGT, wgt, &wp))
            return -1;
          const int8_t *x = (const int8_t *)ip, *wt = (const int8_t *)wp;
          for (uint32_t b = 0; b < c->batch; b++)
            for (uint32_t oc = 0; oc < c->block_out; oc++) {
              int32_t sum = dot(x + b * c->block_in, wt + oc * c->block_in,
                                c->block_in);
              acc[b * c->block_out + oc] = (int32_t)(
                  (uint32_t)acc[b * c->block_out + oc] + (uint32_t)sum);
            }
          r->st.gemm_uops++;
        } else {
          const int32_t *srcv = NULL;
          if (!in->use_imm) {
            uint8_t *sp;
            if (sram_at(r, k, VDLA_BUF_ACC, src, &sp)) return -1;
            srcv = (const int32_t *)(const void *)sp;
          }
          for (uint32_t l = 0; l < lanes; l++)
            acc[l] = alu(in->alu_op, acc[l], srcv ? srcv[l] : in->imm);
          r->st.alu_uops++;
        }
        narrow(acc, (int8_t *)outp, lanes);
      }
  return 0;
}

/* Cycles an instruction takes once started. */
static uint64_t cost(const run *r, const vdla_insn *in) {
  const vdla_config *c = &r->s->c;
  switch (in->op) {
  case VDLA_OP_LOAD:
  case VDLA_OP_STORE: {
    uint64_t bytes =
        (uint64_t)in->y_size * in->x_size * r->s->ebytes[in->buf];
    if (!bytes && !in->y_pad_0 && !in->y_pad_1) return 1; /* a no-op */
    return c->dma_latency + (bytes + c->bus_bytes - 1) / c->bus_bytes;
  }
  case VDLA_OP_GEMM:
  case VDLA_OP_ALU: {
    uint64_t uops = (uint64_t)(in->uop_end - in->uop_bgn) * in->extent_out *
                    in->extent_in;
    return uops ? c->gemm_pipeline + uops : 1; /* no micro-op: a no-op */
  }
  default:
    return 1;
  }
}

/* Can module m run its next instruction now? */
static int ready(const run *r, int m) {
  if (r->head[m] >= r->ncmd[m]) return 0;
  uint32_t k = r->cmd[m][r->head[m]];
  const vdla_insn *in = &r->ins[k];
  if (in->op == VDLA_OP_FINISH && r->executed != k) return 0;
  if (in->pop_prev) {
    const tokq *q = &r->q[pop_queue(m, 0)];
    if (q->head == q->tail) return 0;
  }
  if (in->pop_next) {
    const tokq *q = &r->q[pop_queue(m, 1)];
    if (q->head == q->tail) return 0;
  }
  return 1;
}

/* Executes the next instruction of module m. */
static int step(run *r, int m) {
  uint32_t k = r->cmd[m][r->head[m]++];
  const vdla_insn *in = &r->ins[k];
  uint64_t start = r->t_free[m];
  if (in->op == VDLA_OP_FINISH)
    for (int j = 0; j < VDLA_NMOD; j++)
      if (r->t_free[j] > start) start = r->t_free[j];
  for (int next = 0; next < 2; next++)
    if (next ? in->pop_next : in->pop_prev) {
      tokq *q = &r->q[pop_queue(m, next)];
      uint64_t t = q->t[q->head++];
      if (t > start) start = t;
    }
  int rc = 0;
  switch (in->op) {
  case VDLA_OP_LOAD: rc = exec_load(r, k, in); break;
  case VDLA_OP_STORE: rc = exec_store(r, k, in); break;
  case VDLA_OP_GEMM:
  case VDLA_OP_ALU: rc = exec_compute(r, k, in); break;
  default: break;
  }
  if (rc) return rc;
  uint64_t c = cost(r, in), end = start + c;
  if (getenv("VDLA_TRACE"))
    fprintf(stderr, "T %u %s m%d start %llu end %llu stall %llu pp%u pn%u\n", k,
            vdla_insn_name(in), m, (unsigned long long)start,
            (unsigned long long)end, (unsigned long long)(start - r->t_free[m]),
            in->pop_prev, in->pop_next);
  r->st.stall[m] += start - r->t_free[m];
  r->st.busy[m] += c;
  r->st.insns[m]++;
  r->t_free[m] = end;
  if (end > r->st.cycles) r->st.cycles = end;
  for (int next = 0; next < 2; next++)
    if (next ? in->push_next : in->push_prev) {
      tokq *q = &r->q[push_queue(m, next)];
      q->t[q->tail++] = end;
    }
  r->executed++;
  return 0;
}

/* The deadlock report: every module's next instruction and the queues. */
static int deadlock(run *r) {
  size_t len = 0;
  len += (size_t)snprintf(r->err + len, r->errcap - len,
                          "deadlock after %u of %u instructions:",
                          r->executed, r->n);
  for (int m = 0; m < VDLA_NMOD && len < r->errcap; m++) {
    if (r->head[m] >= r->ncmd[m]) {
      len += (size_t)snprintf(r->err + len, r->errcap - len,
                              " %s: done;", modname[m]);
      continue;
    }
    uint32_t k = r->cmd[m][r->head[m]];
    const vdla_insn *in = &r->ins[k];
    /* the queue it waits on: prev when that one is empty, else next */
    int qp = in->pop_prev ? pop_queue(m, 0) : -1;
    int qn = in->pop_next ? pop_queue(m, 1) : -1;
    int qw = qp >= 0 && r->q[qp].head == r->q[qp].tail ? qp : qn;
    const char *wait = in->op == VDLA_OP_FINISH ? "earlier instructions"
                       : qw >= 0                ? qname[qw]
                                                : "?";
    len += (size_t)snprintf(r->err + len, r->errcap - len,
                            " %s: insn %u (%s) waits for %s%s;", modname[m],
                            k, vdla_insn_name(in), wait,
                            in->op == VDLA_OP_FINISH ? "" : " token");
  }
  for (int q = 0; q < NQ && len < r->errcap; q++)
    len += (size_t)snprintf(r->err + len, r->errcap - len, " %s=%u",
                            qname[q], r->q[q].tail - r->q[q].head);
  return -1;
}

/* Decodes and checks the program; fills the command queues. */
static int load_program(run *r, const uint64_t *prog) {
  for (uint32_t k = 0; k < r->n; k++) {
    vdla_insn *in = &r->ins[k];
    if (vdla_decode(prog + 2 * k, in))
      FAIL(r, "insn %u: malformed (opcode %u, or an unknown buffer or ALU "
              "operation)",
           k, (unsigned)(prog[2 * k] & 7));
    int m = vdla_insn_module(in);
    if ((in->pop_prev || in->push_prev) && pop_queue(m, 0) < 0)
      FAIL(r, "insn %u (%s): the %s module has no previous module to "
              "exchange tokens with",
           k, vdla_insn_name(in), modname[m]);
    if ((in->pop_next || in->push_next) && pop_queue(m, 1) < 0)
      FAIL(r, "insn %u (%s): the %s module has no next module to exchange "
              "tokens with",
           k, vdla_insn_name(in), modname[m]);
    if (in->op == VDLA_OP_LOAD && in->buf == VDLA_BUF_OUT)
      FAIL(r, "insn %u: LOAD OUT: the output buffer is written by GEMM/ALU "
              "and read by STORE only",
           k);
    if (in->op == VDLA_OP_STORE && in->buf != VDLA_BUF_OUT)
      FAIL(r, "insn %u: STORE from %s: stores read the output buffer only",
           k, vdla_insn_name(in) + 5);
    if (in->op == VDLA_OP_FINISH && k != r->n - 1)
      FAIL(r, "insn %u: FINISH before the end of the program (%u "
              "instructions)",
           k, r->n);
    r->cmd[m][r->ncmd[m]++] = k;
  }
  return 0;
}

int vdla_sim_run(vdla_sim *s, const uint64_t *prog, uint32_t n, int mode,
                 uint64_t seed, vdla_stats *stats, char *err, size_t errcap) {
  char scratch[512];
  run r;
  memset(&r, 0, sizeof r);
  r.s = s;
  r.n = n;
  r.err = err && errcap ? err : scratch;
  r.errcap = err && errcap ? errcap : sizeof scratch;
  r.err[0] = 0;
  int rc = -1;
  r.ins = calloc(n + 1, sizeof *r.ins);
  for (int m = 0; m < VDLA_NMOD; m++) r.cmd[m] = calloc(n + 1, 4);
  for (int q = 0; q < NQ; q++) r.q[q].t = calloc(n + 1, 8);
  int oom = !r.ins;
  for (int m = 0; m < VDLA_NMOD; m++) oom |= !r.cmd[m];
  for (int q = 0; q < NQ; q++) oom |= !r.q[q].t;
  if (oom) {
    snprintf(r.err, r.errcap, "out of memory for a %u-instruction program",
             n);
    goto out;
  }
  if (load_program(&r, prog)) goto out;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  while (r.executed < n) {
    int cand[VDLA_NMOD], nc = 0;
    for (int m = 0; m < VDLA_NMOD; m++)
      if (ready(&r, m)) cand[nc++] = m;
    if (!nc) {
      deadlock(&r);
      goto out;
    }
    int pick = cand[0];
    if (mode == VDLA_SHUFFLE) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      pick = cand[x % (uint64_t)nc];
    } else {
      for (int i = 1; i < nc; i++)
        if (r.cmd[cand[i]][r.head[cand[i]]] < r.cmd[pick][r.head[pick]])
          pick = cand[i];
    }
    if (step(&r, pick)) goto out;
  }
  for (int q = 0; q < NQ; q++)
    if (r.q[q].head != r.q[q].tail) {
      size_t len = (size_t)snprintf(r.err, r.errcap, "token imbalance:");
      for (int j = 0; j < NQ && len < r.errcap; j++)
        if (r.q[j].head != r.q[j].tail)
          len += (size_t)snprintf(r.err + len, r.errcap - len,
                                  " %u token(s) left on %s;",
                                  r.q[j].tail - r.q[j].head, qname[j]);
      goto out;
    }
  r.st.gemm_utilization =
      r.st.cycles ? (double)r.st.gemm_uops / (double)r.st.cycles : 0;
  rc = 0;
out:
  if (stats) *stats = r.st;
  free(r.ins);
  for (int m = 0; m < VDLA_NMOD; m++) free(r.cmd[m]);
  for (int q = 0; q < NQ; q++) free(r.q[q].t);
  return rc;
}
