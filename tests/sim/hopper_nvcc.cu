// hopper_nvcc.cu: compiled by tests/sim/nvcc_check.sh (never run on a GPU).
// Calls every sm_90a helper of rt.cuh (mbarrier, fences, TMA, stmatrix,
// wgmma in every N, type, form and transpose used), so ptxas must accept
// their inline PTX for sm_90a (-gencode arch=compute_90a,code=sm_90a) and
// the PTX must hold each instruction; for other targets they trap, and the
// file still compiles. NVRTC compiles it too (tests/sim/nvrtc_tc.c, 90a).
// Under nvcc, main() checks tile2cu/tma_host.h: its swizzle table at
// compile time, and at run time the clear error without a driver (or a
// map made with one).
#include <tile2cu/rt.cuh>
#ifndef __CUDACC_RTC__
#include <stdio.h>
#include <string.h>
#include <tile2cu/tma_host.h>
#endif

typedef unsigned long long u64;

// t2c::swizzle_offset against the CUDA C++ Programming Guide's Table 24: chunk
// x of 128-byte row y goes to chunk (y % n) ^ x, n = 8, 4, 2.
__host__ __device__ constexpr bool swizzle_matches_guide() {
  for (unsigned w = 32; w <= 128; w *= 2)
    for (unsigned a = 0; a < 4096; a++) {
      const unsigned y = a / 128, x = a % 128 / 16, n = w / 16;
      if (t2c::swizzle_offset(a, w) != y * 128 + ((y % n) ^ x) * 16 + a % 16) return false;
    }
  for (unsigned a = 0; a < 4096; a++)
    if (t2c::swizzle_offset(a, 0) != a) return false;
  return true;
}
static_assert(swizzle_matches_guide(), "t2c::swizzle_offset differs from the guide's swizzle table");

template <int N> __device__ void wgmma_all(float *o, u64 da, u64 db, const unsigned (&a)[4]) {
  float d[N / 2];
  for (int i = 0; i < N / 2; i++) d[i] = o[i];
  t2c::wgmma_fence();
  t2c::wgmma_f16<N>(d, da, db, false);
  t2c::wgmma_bf16<N, 1, 1>(d, da, db);
  t2c::wgmma_f16_rs<N>(d, a, db);
  t2c::wgmma_bf16_rs<N, 1>(d, a, db);
  t2c::wgmma_f8e4m3<N>(d, da, db);
  t2c::wgmma_f8e5m2<N>(d, da, db, false);
  t2c::wgmma_commit();
  t2c::wgmma_wait<0>();
  int e[N / 2];
  for (int i = 0; i < N / 2; i++) e[i] = (int)o[i];
  t2c::wgmma_fence();
  t2c::wgmma_i8<N>(e, da, db, false);
  t2c::wgmma_u8<N>(e, da, db);
  t2c::wgmma_commit();
  t2c::wgmma_wait<0>();
  for (int i = 0; i < N / 2; i++) o[i] = d[i] + (float)e[i];
}

extern "C" __global__ void __launch_bounds__(128)
hopper_all(const __grid_constant__ t2c::TensorMap map, float *__restrict__ O, int n)
{
  __shared__ alignas(1024) unsigned char buf[16384];
  __shared__ u64 bar;
  const int tid = threadIdx.x;
  if (tid == 0) {
    t2c::mbar_init(&bar, 1);
    t2c::fence_mbarrier_init();
  }
  __syncthreads();
  if (tid == 0) {
    t2c::mbar_expect_tx(&bar, 0);
    t2c::mbar_arrive_expect_tx(&bar, 8192);
    t2c::tma_load_2d(buf, &map, n, 0, &bar);
  }
  t2c::mbar_wait_parity(&bar, 0);
  if (t2c::mbar_try_wait_parity(&bar, 1)) O[tid + 1] = 1.0f;
  if (tid == 1) t2c::mbar_arrive(&bar);
  const unsigned r[4] = {(unsigned)tid, 1u, 2u, 3u}, r2[2] = {r[0], r[1]};
  void *row = buf + 8192 + 16 * (tid % 32) + 512 * (tid / 32);
  t2c::stmatrix_x1(row, r[0]);
  t2c::stmatrix_x2(row, r2);
  t2c::stmatrix_x4(row, r);
  t2c::stmatrix_x1_trans(row, r[0]);
  t2c::stmatrix_x2_trans(row, r2);
  t2c::stmatrix_x4_trans(row, r);
  t2c::fence_proxy_async();
  __syncthreads();
  const u64 da = t2c::wgmma_desc(buf, 16, 1024, 128), db = t2c::wgmma_desc(buf + 4096, 16, 512, 64);
  float *o = O + 256 * tid;
  wgmma_all<8>(o, da, db, r);
  wgmma_all<16>(o, da, db, r);
  wgmma_all<32>(o, da, db, r);
  wgmma_all<64>(o, da, db, r);
  wgmma_all<96>(o, da, db, r);
  wgmma_all<128>(o, da, db, r);
  wgmma_all<192>(o, da, db, r);
  wgmma_all<256>(o, da, db, r);
  float d[32] = {};
  t2c::wgmma_fence();
  t2c::wgmma_f16<64, 0, 1>(d, da, db);
  t2c::wgmma_commit();
  t2c::wgmma_f16<64, 1, 0>(d, da, t2c::wgmma_desc(buf, 128, 256, 0));
  t2c::wgmma_commit();
  t2c::wgmma_wait<1>();
  t2c::wgmma_wait<0>();
  o[0] += d[0] + d[31];
  __syncthreads();
  if (tid == 0) {
    t2c::tma_store_2d(&map, n, 0, buf);
    t2c::tma_store_3d(&map, n, 0, 1, buf);
    t2c::tma_store_4d(&map, n, 0, 1, 2, buf);
    t2c::tma_store_commit();
    t2c::tma_store_wait_read<0>();
    t2c::tma_store_wait<0>();
  }
}

#ifndef __CUDACC_RTC__
int main() {
  static unsigned char host[64 * 160] __attribute__((aligned(128)));
  t2c::TensorMap map;
  char err[256] = "";
  int rc = t2c::tma_encode_2d(&map, t2c::TMA_F16, host, 75, 64, 160, 64, 64, 128, err, sizeof err);
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {  // without a driver: a clear error
    if (rc != -1 || !strstr(err, "cannot load libcuda.so.1 (no NVIDIA driver)")) {
      printf("FAIL tma_host.h without a driver: rc %d, \"%s\"\n", rc, err);
      return 1;
    }
    printf("tma_host.h: no driver here, and it says so: %s\n", err);
    return 0;
  }
  // with one, the driver checks the map (host memory is fine for encoding)
  if (rc != 0) {
    printf("FAIL tma_host.h with a driver: %s\n", err);
    return 1;
  }
  printf("tma_host.h: map made with the driver's cuTensorMapEncodeTiled\n");
  return 0;
}
#endif
