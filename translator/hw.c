/* hw.c: the hardware paths, one table row each.
 *
 * The stages ask a path what the hardware offers (how wide a thread's global
 * access may be, shuffles, async copies, the matrix instruction) instead of
 * testing the target's number, so a new path (sm_90a: wgmma, TMA, mbarrier)
 * joins by adding a row, without touching the stages. Rows are in order of
 * min_sm; a target takes the last row it reaches.
 */
#include "t2c.h"

static const HwPath paths[] = {
  /* name    min_sm  vec_bytes shfl   cp_async mma                  mma_i8               mma_f8 */
  {"simt",   0,      16,       true,  false,   NULL,                NULL,                NULL},
  {"sm80",   80,     16,       true,  true,    "mma.sync.m16n8k16", "mma.sync.m16n8k32", NULL},
  {"sm89",   89,     16,       true,  true,    "mma.sync.m16n8k16", "mma.sync.m16n8k32", "mma.sync.m16n8k32"},
};

const HwPath *hw_path(const TargetConfig *t) {
  const HwPath *p = &paths[0];
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    if (t->sm >= paths[i].min_sm && (paths[i].cp_async ? t->cp_async : true)) p = &paths[i];
  return p;
}
