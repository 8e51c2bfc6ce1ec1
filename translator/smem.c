/* smem.c: shared-memory placement, and KernelInfo complete before printing.
 *
 * Shared buffers (reduction scratch, values' shared copies) get 16-byte aligned offsets in the
 * order the layout stage made them; a swizzled copy (TirBuf.swz, tma_swz), one aligned to its
 * pattern (8 x its swizzle bytes: 1024 for 128), and the block's shared memory is declared
 * so aligned. Above the target's static limit they live
 * in one dynamic buffer; above the per-block limit the kernel is rejected
 * with the list of buffers. KernelInfo's shared figures are filled here, so
 * the generated header, --explain and the launchers read the same numbers.
 */
#include "t2c.h"

#include <inttypes.h>

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

bool smem_place(TirKernel *K) {
  int64_t off = layout_bufs(K, true);
  KernelInfo *ki = K->ki;
  ki->shared_bytes = off;
  ki->dynamic_smem = off > K->t->smem_static;
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
