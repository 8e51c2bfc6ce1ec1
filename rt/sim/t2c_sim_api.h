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
#include <stdio.h>

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

/* ---- Hopper (sm_90a): the swizzle and the tensor map, for the emulation of
 * TMA (cp.async.bulk.tensor) and wgmma descriptors. */

/* The 32-, 64- and 128-byte swizzles, as the CUDA C++ Programming Guide
 * defines them for TMA (Table 24, "Swizzle Pattern Pointer Offset Formula and
 * Index Relation": smem[y][x] <-> smem[y][(y % n) ^ x] for the 16-byte chunk
 * x of the 128-byte row y of shared memory, n = 8, 4, 2) and the PTX ISA for
 * wgmma's canonical layouts (Swizzle<3,4,3>, <2,4,3>, <1,4,3>). Address bits
 * [4, 4+b) are XORed with bits [7, 7+b), b = 3, 2, 1: the pattern repeats
 * every 1024, 512 or 256 bytes. addr is a shared-memory address (the pattern
 * follows the address, not the start of a buffer); swizzle_bytes 0 or 16 is
 * none. The one definition the CPU backend uses (rt.cuh's
 * t2c::swizzle_offset repeats it for the GPU; both are tested). */
static inline unsigned t2c_sim_swizzle(unsigned addr, unsigned swizzle_bytes) {
  unsigned chunks = swizzle_bytes / 16; /* 2, 4, 8: the row index mod chunks */
  return chunks >= 2 ? addr ^ (((addr >> 7) & (chunks - 1)) << 4) : addr;
}

/* The CPU backend's tensor map: what cuTensorMapEncodeTiled takes (the GPU's
 * CUtensorMap is 128 opaque bytes made by the driver). Dimension 0 is the
 * innermost (contiguous) one. Made by t2c_sim_tensor_map_encode. */
enum { T2C_SIM_TMAP_MAGIC = 0x544d4150 /* "TMAP" */, T2C_SIM_TMAP_MAX_RANK = 5 };
typedef struct T2cSimTensorMap {
  unsigned magic;
  int rank;                      /* 1 .. 5 */
  int elem_bytes;                /* 1, 2, 4 or 8 */
  int swizzle;                   /* 0 (none), 32, 64 or 128 bytes */
  void *base;                    /* global address, 16-byte aligned */
  const T2cSimTensor *tensor;    /* the tensor base points into, or null */
  unsigned long long dims[T2C_SIM_TMAP_MAX_RANK];    /* elements */
  unsigned long long strides[T2C_SIM_TMAP_MAX_RANK]; /* bytes; strides[0] = elem_bytes */
  unsigned box[T2C_SIM_TMAP_MAX_RANK];               /* elements, 1 .. 256 */
} T2cSimTensorMap;

/* cuTensorMapEncodeTiled for the CPU backend, with the driver's checks
 * (CUDA Driver API, "Tensor Map Object Management"): rank 1..5; base 16-byte
 * aligned; dims in [1, 2^32]; strides (rank - 1 of them, for dims 1..) multiples
 * of 16 below 2^40; box in [1, 256] with box[0] * elem_bytes a multiple of 16
 * and, when swizzled, at most the swizzle's span; element strides of 1 only
 * (the only ones emulated); no interleave, no L2 promotion, zero OOB fill.
 * When t is given, every element the map reaches must lie inside it. Returns
 * 0, or -1 with a message in err. */
static inline int t2c_sim_tensor_map_encode(T2cSimTensorMap *m, int elem_bytes, int rank, void *base,
                                            const unsigned long long *dims, const unsigned long long *strides,
                                            const unsigned *box, int swizzle, const T2cSimTensor *t,
                                            char *err, size_t errlen) {
#define T2C_SIM_TMAP_FAIL_(...) return (err && errlen ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0), -1
  unsigned long long last = 0; /* the byte offset of the last element reached */
  int i;
  if (rank < 1 || rank > T2C_SIM_TMAP_MAX_RANK) T2C_SIM_TMAP_FAIL_("tensor map of rank %d (1..5)", rank);
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
    T2C_SIM_TMAP_FAIL_("tensor map with %d-byte elements (1, 2, 4 or 8)", elem_bytes);
  if (((unsigned long long)(size_t)base) % 16) T2C_SIM_TMAP_FAIL_("tensor map base %p is not 16-byte aligned", base);
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    T2C_SIM_TMAP_FAIL_("tensor map swizzle of %d bytes (0, 32, 64 or 128)", swizzle);
  for (i = 0; i < rank; i++) {
    if (dims[i] < 1 || dims[i] > (1ULL << 32)) T2C_SIM_TMAP_FAIL_("tensor map dim %d is %llu (1..2^32)", i, dims[i]);
    if (box[i] < 1 || box[i] > 256) T2C_SIM_TMAP_FAIL_("tensor map box dim %d is %u (1..256)", i, box[i]);
    if (i > 0 && (strides[i - 1] % 16 || strides[i - 1] >= (1ULL << 40)))
      T2C_SIM_TMAP_FAIL_("tensor map stride %d is %llu bytes (a multiple of 16 below 2^40)", i, strides[i - 1]);
  }
  if ((box[0] * (unsigned)elem_bytes) % 16)
    T2C_SIM_TMAP_FAIL_("tensor map box's inner dimension is %u bytes, not a multiple of 16", box[0] * (unsigned)elem_bytes);
  if (swizzle && box[0] * (unsigned)elem_bytes > (unsigned)swizzle)
    T2C_SIM_TMAP_FAIL_("tensor map box's inner dimension is %u bytes, more than the %d-byte swizzle", box[0] * (unsigned)elem_bytes, swizzle);
  m->magic = T2C_SIM_TMAP_MAGIC;
  m->rank = rank;
  m->elem_bytes = elem_bytes;
  m->swizzle = swizzle;
  m->base = base;
  m->tensor = t;
  for (i = 0; i < T2C_SIM_TMAP_MAX_RANK; i++) {
    m->dims[i] = i < rank ? dims[i] : 1;
    m->strides[i] = i == 0 ? (unsigned long long)elem_bytes : i < rank ? strides[i - 1] : 0;
    m->box[i] = i < rank ? box[i] : 1;
    last += (m->dims[i] - 1) * m->strides[i];
  }
  if (t) {
    unsigned long long lo = (unsigned long long)(size_t)t->data, at = (unsigned long long)(size_t)base;
    unsigned long long bytes = (unsigned long long)t->nelems * (unsigned long long)t->elem_bytes;
    if (at < lo || at - lo + last + (unsigned long long)elem_bytes > bytes)
      T2C_SIM_TMAP_FAIL_("tensor map reaches byte %llu of tensor '%s', which has %llu bytes", at - lo + last,
                         t->name ? t->name : "?", bytes);
  }
  return 0;
#undef T2C_SIM_TMAP_FAIL_
}

#ifdef __cplusplus
}
#endif

#endif /* T2C_SIM_API_H */
