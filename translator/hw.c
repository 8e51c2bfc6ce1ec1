/* hw.c: the hardware paths, one table row each.
 *
 * The stages ask a path what the hardware offers (how wide a thread's global
 * access may be, shuffles, async copies, the matrix instruction) instead of
 * testing the target's number, so a new path joins by adding a row. sm90a
 * adds wgmma for f16/bf16 dots and, k32, for i8 and f8 ones (layout.c decides
 * which dots take it), and the bulk tensor copy (TMA) with mbarriers that
 * fills their stage rings (pipeline.c decides which rings take it). stmatrix
 * (sm_90 on, plain sm_90 included) writes a staged epilogue's 16-bit
 * accumulator (layout.c). A float atomic_add updates runs of a thread's
 * elements in one instruction where the path has them (atom_vec_bytes: f16x2
 * and bf16x2 pairs from sm_80, f32 pairs and quads and 16-bit runs of 4 and 8 from
 * sm_90; each element is still updated atomically on its own). Rows are in order of
 * min_sm; a target takes the last row it reaches.
 */
#include <string.h>

#include "t2c.h"

static const HwPath paths[] = {
  /* name    min_sm  vec_bytes shfl   cp_async mma                  mma_i8               mma_f8               wgmma                       wgmma_b8                    tma                                   arch_a stmatrix atom_vec_bytes */
  {"simt",   0,      16,       true,  false,   NULL,                NULL,                NULL,                NULL,                       NULL,                       NULL,                                 false, false, 0},
  {"sm80",   80,     16,       true,  true,    "mma.sync.m16n8k16", "mma.sync.m16n8k32", NULL,                NULL,                       NULL,                       NULL,                                 false, false, 4},
  {"sm89",   89,     16,       true,  true,    "mma.sync.m16n8k16", "mma.sync.m16n8k32", "mma.sync.m16n8k32", NULL,                       NULL,                       NULL,                                 false, false, 4},
  {"sm90",   90,     16,       true,  true,    "mma.sync.m16n8k16", "mma.sync.m16n8k32", "mma.sync.m16n8k32", NULL,                       NULL,                       NULL,                                 false, true,  16},
  {"sm90a",  90,     16,       true,  true,    "mma.sync.m16n8k16", "mma.sync.m16n8k32", "mma.sync.m16n8k32", "wgmma.mma_async.m64nNk16", "wgmma.mma_async.m64nNk32", "cp.async.bulk.tensor.2d (mbarrier)", true,  true,  16},
};

/* A row for architecture-specific targets only: wgmma exists on sm_90a, and
 * plain sm_90 rejects it (its config's wgmma flag alone does not select it). */
static bool serves(const HwPath *p, const TargetConfig *t) {
  if (t->sm < p->min_sm || (p->cp_async && !t->cp_async)) return false;
  return !p->arch_a || (strcmp(t->arch_suffix, "a") == 0 && t->wgmma);
}

const HwPath *hw_path(const TargetConfig *t) {
  const HwPath *p = &paths[0];
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    if (serves(&paths[i], t)) p = &paths[i];
  return p;
}
