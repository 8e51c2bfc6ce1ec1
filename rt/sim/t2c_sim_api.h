/* t2c_sim_api.h: the C interface of the CPU backend's runtime (runtime.cpp).
 *
 * A generated .cu compiled in sim mode, linked with runtime.cpp into a shared
 * object, exports t2c_sim_launch. The caller (rt/sim/simrun.c) loads that
 * object with dlopen and describes one launch with a T2cSimLaunch.
 * This header is plain C11 and C++.
 */
#ifndef T2C_SIM_API_H
#define T2C_SIM_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One tensor argument: a host buffer the kernel reads or writes. */
typedef struct T2cSimTensor {
  void *data;       /* nelems * elem_bytes bytes */
  long long nelems; /* every index must be in [0, nelems) */
  int elem_bytes;   /* must equal sizeof the kernel's element type */
  const char *name; /* used in messages */
  int rank;         /* 0: shape unknown; else shape[0..rank-1], row-major, */
  const long long *shape; /* whose product is nelems (race reports give coordinates) */
  /* NULL: row-major. Else a strided view (@strided): element (i0, ..) of the
   * shape is data[i0 * strides[0] + ..], rank and shape required; every
   * element of the view must lie in [0, nelems), and an access to an index
   * of the buffer that no element of the view maps to is out of bounds. */
  const long long *strides;
} T2cSimTensor;

typedef struct T2cSimLaunch {
  const char *kernel;       /* name given to T2C_SIM_REGISTER */
  unsigned grid[3];         /* each >= 1 */
  unsigned threads;         /* 1-D block, 1 .. 1024 */
  size_t dyn_smem;          /* bytes of dynamic shared memory */
  void *const *args;        /* as the trampoline takes them: a tensor is a
                               const T2cSimTensor *, a scalar a pointer to it */
  int nargs;
  const T2cSimTensor *const *outputs; /* tensors the kernel writes (subset of args) */
  int noutputs;
  int schedules;            /* >= 1: 0 in order, 1 reversed, >= 2 seeded random */
} T2cSimLaunch;

/* Runs the kernel `schedules` times, restoring the outputs' initial contents
 * before each run, and compares the outputs bytewise with the first run.
 * On success returns 0 and leaves the first run's results in the outputs.
 * Otherwise returns nonzero, writes a one-line message into err (a race, an
 * out-of-bounds access, barrier or warp divergence, an unknown kernel, a bad
 * launch) and restores the outputs' initial contents. A race is either two
 * threads touching one element of a writable tensor without a barrier (or
 * from two blocks) with at least one write, or outputs that differ between
 * schedules. */
int t2c_sim_launch(const T2cSimLaunch *l, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* T2C_SIM_API_H */
