// tile2cu/tma_host.h: builds a t2c::TensorMap on the host, for a .cu that
// calls rt.cuh's TMA helpers (t2c::tma_load_2d, t2c::tma_store_2d) in your
// own build. It calls the driver's cuTensorMapEncodeTiled through
// dlopen("libcuda.so.1"), so the program needs no -lcuda, and says so
// clearly when the driver is absent. nvcc only (not NVRTC); Linux (dlopen).
//
//   t2c::TensorMap map;   // pass it as a `const __grid_constant__ t2c::TensorMap` parameter
//   char err[256];
//   if (t2c::tma_encode_2d(&map, t2c::TMA_F16, d_a, K, M, K * 2, 64, 64, 128, err, sizeof err) != 0)
//     fprintf(stderr, "%s\n", err);
//
// A is M rows of K f16 elements, rows K * 2 bytes apart (a multiple of 16);
// a box is 64 x 64 elements, 128-byte swizzled (its inner dimension, 64 * 2
// bytes, is at most the swizzle's span). Elements of a box outside the
// tensor are read as zeros and not written.
#ifndef TILE2CU_TMA_HOST_H
#define TILE2CU_TMA_HOST_H

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#ifndef TILE2CU_RT_CUH  // inlined above it by tile2cu --standalone
#include "rt.cuh"
#endif

namespace t2c {

// CUtensorMapDataType values of the element types tile2cu uses.
enum TmaType {
  TMA_U8 = CU_TENSOR_MAP_DATA_TYPE_UINT8,
  TMA_I32 = CU_TENSOR_MAP_DATA_TYPE_INT32,
  TMA_F16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
  TMA_BF16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
  TMA_F32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
  TMA_F64 = CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
};

static_assert(sizeof(TensorMap) == sizeof(CUtensorMap) && alignof(TensorMap) >= 64,
              "t2c::TensorMap must have CUtensorMap's size and alignment");

typedef CUresult (*TmaEncodeTiledFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// cuTensorMapEncodeTiled from libcuda.so.1, looked up once; null with a
// message in err when the driver is absent.
inline TmaEncodeTiledFn tma_encode_fn(char *err, size_t errlen) {
  static void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  static TmaEncodeTiledFn fn = lib ? (TmaEncodeTiledFn)dlsym(lib, "cuTensorMapEncodeTiled") : nullptr;
  if (!fn && err && errlen)
    snprintf(err, errlen, "tile2cu: cannot build a TMA tensor map: %s",
             lib ? "libcuda.so.1 has no cuTensorMapEncodeTiled (a driver older than CUDA 12)"
                 : "cannot load libcuda.so.1 (no NVIDIA driver)");
  return fn;
}

// The tensor map of a rows x cols row-major matrix at base (16-byte aligned)
// whose rows are row_bytes apart, read and written in boxes of box_rows x
// box_cols elements, swizzled by swizzle_bytes (0, 32, 64 or 128). Returns
// 0, or -1 with a message in err.
inline int tma_encode_2d(TensorMap *map, TmaType type, const void *base, unsigned long long cols,
                         unsigned long long rows, unsigned long long row_bytes, unsigned box_cols, unsigned box_rows,
                         unsigned swizzle_bytes, char *err, size_t errlen) {
  TmaEncodeTiledFn fn = tma_encode_fn(err, errlen);
  if (!fn) return -1;
  const cuuint64_t dims[2] = {cols, rows}, strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_cols, box_rows}, elem_strides[2] = {1, 1};
  const CUtensorMapSwizzle swz = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                       : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult r = fn(reinterpret_cast<CUtensorMap *>(map), (CUtensorMapDataType)type, 2, const_cast<void *>(base), dims,
                  strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swz, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    if (err && errlen)
      snprintf(err, errlen, "tile2cu: cuTensorMapEncodeTiled failed (CUresult %d) for a %llu x %llu map, box %u x %u, "
               "%u-byte swizzle", (int)r, rows, cols, box_rows, box_cols, swizzle_bytes);
    return -1;
  }
  return 0;
}

// The tensor map a tile2cu kernel takes for a row-major tensor at base whose
// last two dims are rows x cols, read in boxes of box_rows x box_cols elements of elem_bytes bytes
// with a swizzle_bytes swizzle (its parameters t2c_tmap_*, which the
// generated NAME_tensor_maps helper fills; tma_map below). A tensor whose base is not
// 16-byte aligned, or whose rows are not a multiple of 16 bytes apart, gets
// zeros: the kernel then takes its general body, which does not read the map.
// Returns 0, or -1 with a message in err (no driver, or the encode failed).
// A tensor of rank 3 or 4: its outer dims d0, d1 (outermost first; pass 1 for
// the ones it lacks) get boxes of one element.
inline int tma_map(TensorMap *map, TmaType type, int elem_bytes, const void *base, int rank, long long d0, long long d1,
                   long long rows, long long cols, unsigned box_rows, unsigned box_cols, unsigned swizzle_bytes, char *err,
                   size_t errlen) {
  memset(map, 0, sizeof *map);
  if ((unsigned long long)(size_t)base % 16 || (cols * elem_bytes) % 16) return 0;
  if (rank == 2)
    return tma_encode_2d(map, type, base, (unsigned long long)cols, (unsigned long long)rows,
                         (unsigned long long)(cols * elem_bytes), box_cols, box_rows, swizzle_bytes, err, errlen);
  TmaEncodeTiledFn fn = tma_encode_fn(err, errlen);
  if (!fn) return -1;
  const cuuint64_t dims[4] = {(cuuint64_t)cols, (cuuint64_t)rows, (cuuint64_t)(rank == 4 ? d1 : d0), (cuuint64_t)d0};
  const cuuint64_t row = (cuuint64_t)(cols * elem_bytes), strides[3] = {row, row * dims[1], row * dims[1] * dims[2]};
  const cuuint32_t box[4] = {box_cols, box_rows, 1, 1}, elem_strides[4] = {1, 1, 1, 1};
  const CUtensorMapSwizzle swz = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                       : CU_TENSOR_MAP_SWIZZLE_32B;
  CUresult r = fn(reinterpret_cast<CUtensorMap *>(map), (CUtensorMapDataType)type, (cuuint32_t)rank, const_cast<void *>(base),
                  dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swz, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    if (err && errlen)
      snprintf(err, errlen, "tile2cu: cuTensorMapEncodeTiled failed (CUresult %d) for a rank-%d map, box %u x %u", (int)r,
               rank, box_rows, box_cols);
    return -1;
  }
  return 0;
}

}  // namespace t2c

#endif  // TILE2CU_TMA_HOST_H
