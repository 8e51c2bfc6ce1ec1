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
 * largest first at the lowest offset free over their span. Only plain
 * buffers take part (values' copies and homes, reduction scratch, alternating
 * halves over their loop); stage rings, mbarriers and copies that the async
 * proxy reads (wgmma operands, a TMA store's) keep bytes of their own for the
 * whole kernel. The kernel then uses one dynamic buffer, and sync.c runs again:
 * an access to a buffer conflicts with what other threads did to the buffers
 * sharing its bytes since the last barrier (TirKernel.alias).
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

int64_t smem_total(const TirKernel *K) { return layout_bufs((TirKernel *)K, false); }

/* ------------------------------------------------------------ reuse by spans */

typedef struct Spans {
  int pos;
  int lo[TIR_MAX_BUFS], hi[TIR_MAX_BUFS];
  int llo[256], lhi[256], nloops;
} Spans;

static void span_block(Spans *S, const TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    int at = ++S->pos;
    for (int a = 0; a < op->nacc; a++) {
      int f = op->acc[a].buf;
      if (S->lo[f] < 0 || at < S->lo[f]) S->lo[f] = at;
      if (at > S->hi[f]) S->hi[f] = at;
    }
    span_block(S, &op->body);
    span_block(S, &op->els);
    if ((op->kind == TO_FOR || op->kind == TO_WHILE) && S->nloops < 256) {
      S->llo[S->nloops] = at;
      S->lhi[S->nloops++] = S->pos;
    }
  }
}

static bool reusable(const TirBuf *f) {
  return !f->tensor && !f->stages && !f->mbar && !f->ring_mbar && !f->swz && !f->tma_swz && !f->cm8;
}

/* Offsets with reuse (into f->offset, K->alias); the total. */
static int64_t reuse_bufs(TirKernel *K) {
  Spans S;
  memset(&S, 0, sizeof S);
  for (int i = 0; i < K->nbufs; i++) S.lo[i] = S.hi[i] = -1;
  span_block(&S, &K->body);
  /* a loop closes after the loops inside it: an outer loop extends what they extended */
  for (int l = 0; l < S.nloops; l++)
    for (int i = 0; i < K->nbufs; i++)
      if (S.lo[i] >= 0 && S.lo[i] <= S.lhi[l] && S.hi[i] >= S.llo[l]) {
        if (S.llo[l] < S.lo[i]) S.lo[i] = S.llo[l];
        if (S.lhi[l] > S.hi[i]) S.hi[i] = S.lhi[l];
      }
  for (int i = 0; i < K->nbufs; i++)
    if (S.lo[i] < 0 || !reusable(&K->bufs[i])) S.lo[i] = 0, S.hi[i] = S.pos + 1; /* the whole kernel */
  int order[TIR_MAX_BUFS], n = 0;
  for (int i = 0; i < K->nbufs; i++)
    if (!K->bufs[i].tensor) order[n++] = i;
  for (int i = 1; i < n; i++) /* largest first; among equals, in order */
    for (int j = i; j > 0 && K->bufs[order[j]].bytes > K->bufs[order[j - 1]].bytes; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  int64_t total = 0;
  memset(K->alias, 0, sizeof K->alias);
  for (int i = 0; i < n; i++) {
    TirBuf *f = &K->bufs[order[i]];
    int64_t a = tir_buf_align(f), size = (f->bytes + 15) / 16 * 16, off = 0;
    for (bool moved = true; moved;) { /* the lowest offset no placed buffer live with it covers */
      moved = false;
      off = (off + a - 1) / a * a;
      for (int j = 0; j < i; j++) {
        const TirBuf *g = &K->bufs[order[j]];
        int64_t gsize = (g->bytes + 15) / 16 * 16;
        bool live = S.lo[order[i]] <= S.hi[order[j]] && S.lo[order[j]] <= S.hi[order[i]];
        if (live && off < g->offset + gsize && g->offset < off + size) off = g->offset + gsize, moved = true;
      }
    }
    f->offset = off;
    if (off + size > total) total = off + size;
    for (int j = 0; j < i; j++) {
      const TirBuf *g = &K->bufs[order[j]];
      int64_t gsize = (g->bytes + 15) / 16 * 16;
      if (off < g->offset + gsize && g->offset < off + size) {
        K->alias[order[i]] |= 1ull << order[j];
        K->alias[order[j]] |= 1ull << order[i];
      }
    }
  }
  return total;
}

bool smem_place(TirKernel *K) {
  int64_t off = layout_bufs(K, true);
  bool reused = false;
  if (off > K->t->smem_per_block) {
    int64_t r = reuse_bufs(K);
    if (r <= K->t->smem_per_block) {
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
