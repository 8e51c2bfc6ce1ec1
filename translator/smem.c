/* smem.c: shared-memory placement, and KernelInfo complete before printing.
 *
 * Shared buffers (reduction scratch, values' shared copies) get 16-byte aligned offsets in the
 * order the layout stage made them; a swizzled copy (TirBuf.swz, tma_swz), one aligned to its
 * pattern (8 x its swizzle bytes: 1024 for 128), and the block's shared memory is declared
 * so aligned. Above the target's static limit they live
 * in one dynamic buffer; above the per-block limit the kernel is rejected
 * with the list of buffers. KernelInfo's shared figures are filled here, so
 * the generated header, --explain and the launchers read the same numbers.
 *
 * Reuse. A kernel whose buffers in order pass the per-block limit gets a
 * second try: buffers whose accesses lie in disjoint spans of the ops (a
 * span that touches a loop covers the whole loop) share bytes, placed
 * largest first at the lowest offset free over their span. Every shared
 * buffer but mbarriers takes part: values' copies and homes, reduction
 * scratch, alternating halves over their loop, stage rings and what the async
 * proxy reads (reusable() says when each is done). The kernel then uses one
 * dynamic buffer, and sync.c runs again: an access to a buffer conflicts with
 * what other threads did to the buffers sharing its bytes since the last
 * barrier (TirKernel.alias).
 *
 * The layout stage asks (smem_with) whether one more buffer, made for one op,
 * would fit, side by side or sharing bytes: a staged epilogue's copy after a
 * GEMM's loop takes the bytes of its stage ring when the two do not fit side
 * by side (examples/gemm_f16.tl on sm_80, gemm_f16_256.tl at BK = 64 on sm_90a).
 */
#include "t2c.h"

#include <inttypes.h>
#include <string.h>

/* Offsets in order (into f->offset when place); the total. */
static int64_t layout_bufs(TirKernel *K, bool place) {
  int64_t off = 0;
  for (int i = 0; i < K->nbufs; i++) {
    TirBuf *f = &K->bufs[i];
    if (f->tensor) continue; /* global memory */
    int a = tir_buf_align(f);
    off = (off + a - 1) / a * a; /* a swizzle's pattern starts at the copy (TirBuf.swz, tma_swz) */
    if (place) f->offset = off;
    off += (f->bytes + 15) / 16 * 16;
  }
  return off;
}

/* ------------------------------------------------------------ reuse by spans */

/* Spans: the ops numbered in order (a loop's number before its body's); for
 * each buffer the first and last op that touches it, and for the buffer
 * asked about (X, one past the kernel's: smem_with) the op it is made for. */
enum { X = TIR_MAX_BUFS };
typedef struct Spans {
  int pos;
  int drained; /* the last wait for every group: what was touched before it is done */
  const TirOp *at;
  int lo[TIR_MAX_BUFS + 1], hi[TIR_MAX_BUFS + 1];
  int llo[256], lhi[256], nloops;
} Spans;

/* A buffer the async proxy writes or reads (a stage ring, cp.async's or TMA's; a wgmma
 * operand's copy; a TMA store's copy). */
static bool async_buf(const TirBuf *f) { return f->stages || f->ring_mbar || f->swz || f->cm8 || f->tma_swz; }

/* A ring TMA fills: the async proxy writes it first. */
static bool tma_ring(const TirBuf *f) { return f->ring_mbar != 0; }

/* Whether buffers f and g (X: smem_with's) may share bytes: their spans do not
 * meet, and neither is a TMA ring after the other (TMA's writes into bytes a
 * buffer before it used would need a proxy fence). */
static bool may_share(const TirKernel *K, const Spans *S, int f, int g) {
  if (S->lo[f] <= S->hi[g] && S->lo[g] <= S->hi[f]) return false;
  bool f_after = f < X && tma_ring(&K->bufs[f]) && S->lo[g] < S->lo[f];
  bool g_after = g < X && tma_ring(&K->bufs[g]) && S->lo[f] < S->lo[g];
  return !f_after && !g_after;
}

static void touch(Spans *S, int f, int at) {
  if (S->lo[f] < 0 || at < S->lo[f]) S->lo[f] = at;
  if (at > S->hi[f]) S->hi[f] = at;
}

static void span_block(const TirKernel *K, Spans *S, const TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    int at = ++S->pos;
    for (int a = 0; a < op->nacc; a++) touch(S, op->acc[a].buf, at);
    if (op == S->at) touch(S, X, at);
    /* the wait for every group after a loop: a cp.async ring's copies land there, and a
     * wgmma left in flight (or deferred: issued and completed there) completes its reads there */
    bool drain = (op->kind == TO_ASYNC_WAIT || op->kind == TO_WG_WAIT) && op->pending == 0;
    if (drain || (op->kind == TO_WG_DEFER && op->pending))
      for (int f = 0; f < K->nbufs; f++) /* what it may still have in flight: touched since the last such wait */
        if (async_buf(&K->bufs[f]) && S->lo[f] >= 0 && S->hi[f] > S->drained) touch(S, f, at);
    if (drain) S->drained = at;
    span_block(K, S, &op->body);
    span_block(K, S, &op->els);
    if ((op->kind == TO_FOR || op->kind == TO_WHILE) && S->nloops < 256) {
      S->llo[S->nloops] = at;
      S->lhi[S->nloops++] = S->pos;
    }
  }
}

/* Buffers that may share bytes: every shared buffer but mbarriers. What the
 * async proxy reads or writes is done with it by the end of its span: a
 * cp.async or TMA ring's copies have landed by the last wait of its loop (TMA
 * fills only stages the loop reads) or by the wait for every group after it,
 * a wgmma's reads by its wait (in the op, or after the loop for one left in
 * flight), a TMA store's read by its bulk wait (in the op); and the
 * completion of each is followed by an implicit generic-async proxy fence.
 * The other way round, a generic access before an async one in the same
 * bytes needs fence.proxy.async: the copies wgmma and a TMA store read are
 * written by the generic proxy first and fenced before they are read, but a
 * TMA ring is written by TMA first, so it takes no bytes that a buffer used
 * before it (reuse_bufs). */
static bool reusable(const TirBuf *f) { return !f->tensor && !f->mbar; }

/* Offsets with reuse, the total; with place, into f->offset and K->alias.
 * extra > 0: a plain buffer of that many bytes made for op at is counted too
 * (smem_with). */
static int64_t reuse_bufs(TirKernel *K, bool place, const TirOp *at, int64_t extra, int xalign) {
  Spans S;
  memset(&S, 0, sizeof S);
  S.at = extra > 0 ? at : NULL;
  for (int i = 0; i <= X; i++) S.lo[i] = S.hi[i] = -1;
  span_block(K, &S, &K->body);
  /* a loop closes after the loops inside it: an outer loop extends what they extended */
  for (int l = 0; l < S.nloops; l++)
    for (int i = 0; i <= X; i++)
      if (S.lo[i] >= 0 && S.lo[i] <= S.lhi[l] && S.hi[i] >= S.llo[l]) {
        if (S.llo[l] < S.lo[i]) S.lo[i] = S.llo[l];
        if (S.lhi[l] > S.hi[i]) S.hi[i] = S.lhi[l];
      }
  for (int i = 0; i < K->nbufs; i++)
    if (S.lo[i] < 0 || !reusable(&K->bufs[i])) S.lo[i] = 0, S.hi[i] = S.pos + 1; /* the whole kernel */
  if (S.at && S.lo[X] < 0) S.lo[X] = 0, S.hi[X] = S.pos + 1;
  int64_t size[TIR_MAX_BUFS + 1], align[TIR_MAX_BUFS + 1], off[TIR_MAX_BUFS + 1];
  int order[TIR_MAX_BUFS + 1], n = 0;
  for (int i = 0; i < K->nbufs; i++)
    if (!K->bufs[i].tensor) {
      order[n++] = i;
      size[i] = (K->bufs[i].bytes + 15) / 16 * 16;
      align[i] = tir_buf_align(&K->bufs[i]);
    }
  if (S.at) order[n++] = X, size[X] = (extra + 15) / 16 * 16, align[X] = xalign;
  for (int i = 1; i < n; i++) /* largest first; among equals, in order */
    for (int j = i; j > 0 && size[order[j]] > size[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  int64_t total = 0;
  if (place) memset(K->alias, 0, sizeof K->alias);
  for (int i = 0; i < n; i++) {
    int f = order[i];
    int64_t a = align[f], o = 0;
    for (bool moved = true; moved;) { /* the lowest offset no placed buffer live with it covers */
      moved = false;
      o = (o + a - 1) / a * a;
      for (int j = 0; j < i; j++) {
        int g = order[j];
        if (!may_share(K, &S, f, g) && o < off[g] + size[g] && off[g] < o + size[f]) o = off[g] + size[g], moved = true;
      }
    }
    off[f] = o;
    if (o + size[f] > total) total = o + size[f];
    if (!place || f == X) continue;
    K->bufs[f].offset = o;
    for (int j = 0; j < i; j++) {
      int g = order[j];
      if (g != X && o < off[g] + size[g] && off[g] < o + size[f]) {
        K->alias[f] |= 1ull << g;
        K->alias[g] |= 1ull << f;
      }
    }
  }
  return total;
}

/* The shared bytes a block may take: the target's per-block maximum, or with
 * @launch(threads, n) the most whose footprint (smem_footprint) n blocks fit. */
int64_t smem_budget(const TirKernel *K) {
  const TargetConfig *t = K->t;
  int64_t b = t->smem_per_block;
  int n = K->ki->min_blocks;
  if (n > 1) {
    int64_t share = (t->smem_per_sm / n - smem_footprint(t, 0)) / 128 * 128;
    if (share < b) b = share;
  }
  return b;
}

int64_t smem_with(const TirKernel *K, const TirOp *at, int64_t bytes, int align) {
  int64_t plain = layout_bufs((TirKernel *)K, false);
  plain = (plain + align - 1) / align * align + (bytes + 15) / 16 * 16;
  if (plain <= smem_budget(K)) return plain;
  int64_t r = reuse_bufs((TirKernel *)K, false, at, bytes, align);
  return r < plain ? r : plain;
}

/* Without @launch's min_blocks: where the block's shared memory lets an SM hold
 * so few blocks that they leave each thread the most registers the target
 * allows, __launch_bounds__ names those blocks (plan_blocks; pipeline.c may have
 * planned the dot's fragments for fewer), so that ptxas does not save registers
 * for blocks that never fit. Told only the threads, ptxas 13.0 held a @registers
 * GEMM of 145 KB, one block per SM of sm_90, to 128 registers (as if two fit) and
 * spilled 56 bytes; with (256, 1) it took 165 and none. Where the blocks would
 * cap the registers lower, the count stays ptxas's to choose: (256, 3) for an
 * fp8 GEMM of 72 KB held it to 80 registers and spilled 2944 bytes. */
static void plan_smem_blocks(TirKernel *K) {
  const TargetConfig *t = K->t;
  KernelInfo *ki = K->ki;
  if (ki->min_blocks || !ki->shared_bytes) return;
  int by_threads = t->max_warps_per_sm * t->lanes / ki->threads;
  if (by_threads > t->max_blocks_per_sm) by_threads = t->max_blocks_per_sm;
  int blocks = (int)(t->smem_per_sm / smem_footprint(t, ki->shared_bytes));
  if (blocks < 1 || blocks >= by_threads || t->regs_per_sm / (ki->threads * blocks) < t->max_regs_per_thread) return;
  if (!ki->plan_blocks || blocks < ki->plan_blocks) ki->plan_blocks = blocks;
}

bool smem_place(TirKernel *K) {
  int64_t off = layout_bufs(K, true), cap = smem_budget(K);
  bool reused = false;
  if (off > cap) {
    /* shared bytes where the buffers fit the budget only so (or a block at all) */
    int64_t r = reuse_bufs(K, true, NULL, 0, 16);
    if (r <= cap || (off > K->t->smem_per_block && r <= K->t->smem_per_block)) {
      off = r;
      reused = true;
      sync_place(K); /* the barriers the shared bytes need */
    } else {
      layout_bufs(K, true); /* report the plain layout */
      memset(K->alias, 0, sizeof K->alias);
    }
  }
  KernelInfo *ki = K->ki;
  ki->shared_bytes = off;
  ki->dynamic_smem = reused || off > K->t->smem_static;
  plan_smem_blocks(K);
  if (off > cap && off <= K->t->smem_per_block) {
    const Loc *where = &K->k->name_loc;
    for (int i = 0; i < K->k->nattrs; i++)
      if (K->k->attrs[i]->kind == A_LAUNCH) where = &K->k->attrs[i]->loc;
    int fit = (int)(K->t->smem_per_sm / smem_footprint(K->t, off));
    diag_warning(K->d, W_OCCUPANCY, *where,
                 "@launch(%d, %d): kernel '%s' needs %" PRId64 " bytes of shared memory per block, so %d block%s "
                 "per SM of %s fit, not %d (each of %d may have %" PRId64 ")",
                 ki->threads, ki->min_blocks, K->k->name, off, fit, fit == 1 ? "" : "s", K->t->name, ki->min_blocks,
                 ki->min_blocks, cap);
    if (fit >= 1 && fit < ki->min_blocks) {
      /* the registers of min_blocks would buy nothing: attention at D = 128 with @launch(256, 2)
       * and 1 block's shared memory took 128 registers and spilled 96 bytes on sm_90a */
      ki->fit_blocks = fit;
      diag_note(K->d, *where, "__launch_bounds__(%d, %d) instead, so that ptxas does not hold each thread to the "
                "registers of %d blocks (smaller tiles or fewer stages would let %d fit)", ki->threads, fit,
                ki->min_blocks, ki->min_blocks);
    }
  }
  if (off > K->t->smem_per_block) {
    diag_error(K->d, K->k->name_loc, "kernel '%s' needs %" PRId64 " bytes of shared memory; %s allows %d per block",
               K->k->name, off, K->t->name, K->t->smem_per_block);
    for (int i = 0; i < K->nbufs; i++)
      if (!K->bufs[i].tensor)
        diag_note(K->d, (Loc){0, 0}, "%s: %" PRId64 " bytes (%s)", K->bufs[i].cname, K->bufs[i].bytes, K->bufs[i].what);
    /* the most stages every ring could keep (alignment aside) */
    int64_t rings = 0, stage = 0;
    int most = 0;
    for (int i = 0; i < K->nbufs; i++)
      if (K->bufs[i].stages > 1) {
        rings += K->bufs[i].bytes;
        stage += K->bufs[i].bytes / K->bufs[i].stages;
        if (K->bufs[i].stages > most) most = K->bufs[i].stages;
      }
    if (stage) {
      int64_t fit = (K->t->smem_per_block - (off - rings)) / stage;
      if (fit >= 2 && fit < most) diag_note(K->d, (Loc){0, 0}, "@pipeline(%d) would fit", (int)fit);
      else if (fit < 2) diag_note(K->d, (Loc){0, 0}, "even @pipeline(2) would not fit: smaller tiles would");
    }
    return false;
  }
  ki->shared = NEW_ARRAY(K->a, SharedTile, K->nbufs + 1);
  ki->nshared = 0;
  for (int i = 0; i < K->nbufs; i++) {
    const TirBuf *f = &K->bufs[i];
    if (f->tensor) continue;
    ki->shared[ki->nshared++] = (SharedTile){f->cname, f->what, f->elem, 2, {f->rows, f->cols}, f->bytes, f->offset};
  }
  return true;
}
