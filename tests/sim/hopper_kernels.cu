// hopper_kernels.cu: kernels in the form `tile2cu --sim` emits, calling
// rt.cuh's sm_90a runtime (mbarrier, TMA, stmatrix, wgmma), to test the CPU
// backend's emulation of each instruction (driven by tests/sim/hopper.c,
// which computes every expectation from the PTX ISA and the CUDA C++
// Programming Guide). The PLANTED kernels must be reported, never run quietly.
#define TILE2CU_SIM 1
#include <tile2cu/rt.cuh>

#define T2C_ARG(T, i) t2c_sim::tensor<T>(static_cast<const T2cSimTensor *>(a[i]))
#define T2C_INT(i) (*static_cast<const int *>(a[i]))
#define T2C_MAP(i) (static_cast<const t2c::TensorMap *>(a[i]))
#define T2C_REGISTER_(name, ...)                              \
  static void t2c_sim_tramp_##name(void *const *a) { name(__VA_ARGS__); } \
  T2C_SIM_REGISTER(name, t2c_sim_tramp_##name)

typedef unsigned long long u64;

// Three phases of one mbarrier with every thread arriving: after each wait a
// thread reads the slot its neighbour wrote before arriving.
extern "C" __global__ void hop_mbar_phases(t2c_sim::tensor<int> O) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  u64 *bar = reinterpret_cast<u64 *>(sm);
  int *slot = reinterpret_cast<int *>(sm + 16);
  const int tid = threadIdx.x, nt = blockDim.x;
  if (tid == 0) {
    t2c::mbar_init(bar, nt);
    t2c::fence_mbarrier_init();
  }
  __syncthreads();
  for (int ph = 0; ph < 3; ph++) {
    slot[ph * nt + tid] = 1000 * ph + tid;
    t2c::mbar_arrive(bar);
    t2c::mbar_wait_parity(bar, ph & 1);
    O[ph * nt + tid] = slot[ph * nt + (tid + 1) % nt];
  }
  // phase 2 (parity 0) has completed: this returns at once
  O[3 * nt + tid] = t2c::mbar_try_wait_parity(bar, 0) ? 1 : 0;
}
T2C_REGISTER_(hop_mbar_phases, T2C_ARG(int, 0))

// The shared-memory race detector over a tile of dynamic shared memory (s:
// 64 ints at byte 64; an mbarrier at 0), 64 threads, by mode:
// 0 correct: each thread writes s[tid], __syncwarp(), reads its warp
//   neighbour's s[tid ^ 1];
// 1 PLANTED: the same, reading s[(tid + 32) % 64] of the other warp;
// 2 correct: warp 0 writes s[tid] and arrives on the mbarrier (count 32),
//   warp 1 waits for phase 0 and reads s[tid - 32];
// 3 PLANTED: the same without the wait;
// 4 PLANTED: warp 1 writes s[0..31], warp 0 reads them by ldmatrix.x2 with no barrier;
// 5 correct: the same with a __syncthreads() between.
extern "C" __global__ void hop_sh_race(t2c_sim::tensor<int> O, int mode) {
  T2C_SIM_DYNAMIC_SMEM(t2c_smem);
  T2C_SIM_SHARED_AT(u64, bar, t2c_smem, 0, 1);
  T2C_SIM_SHARED_AT(int, s, t2c_smem, 64, 64);
  const int tid = threadIdx.x, lane = tid % 32;
  if (mode <= 1) {
    s[tid] = 10 * tid;
    __syncwarp();
    O[tid] = s[mode == 0 ? tid ^ 1 : (tid + 32) % 64];
  } else if (mode <= 3) {
    if (tid == 0) {
      t2c::mbar_init(&bar[0], 32);
      t2c::fence_mbarrier_init();
    }
    __syncthreads();
    if (tid < 32) {
      s[tid] = 10 * tid;
      t2c::mbar_arrive(&bar[0]);
      O[tid] = 0;
    } else {
      if (mode == 2) t2c::mbar_wait_parity(&bar[0], 0);
      O[tid] = s[tid - 32];
    }
  } else {
    if (tid >= 32) s[tid - 32] = tid;
    if (mode == 5) __syncthreads();
    if (tid < 32) {
      unsigned r[2];
      t2c::ldmatrix_x2(r, &s[4 * (lane % 16)]);
      O[tid] = (int)(r[0] & 0xffff);
    } else {
      O[tid] = 0;
    }
  }
}
T2C_REGISTER_(hop_sh_race, T2C_ARG(int, 0), T2C_INT(1))

// PLANTED, by mode: 0 a wait for the wrong parity (phase 0 has completed, the
// threads wait for parity 1: the next phase, which nobody completes); 1 a
// phase expecting 64 bytes that never come; 2 a wait on a barrier never
// initialized; 3 another thread's arrival before a __syncthreads() follows
// the init; 4 more arrivals than the count; 5 a waiter whose arriving
// threads have exited.
extern "C" __global__ void hop_mbar_bad(t2c_sim::tensor<int> O, int mode) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  u64 *bar = reinterpret_cast<u64 *>(sm + 64);
  const int tid = threadIdx.x;
  if (mode == 2) {
    t2c::mbar_wait_parity(bar, 0);
    return;
  }
  if (tid == 0) t2c::mbar_init(bar, 1);
  if (mode == 3) {
    if (tid == 1) t2c::mbar_arrive(bar);
    return;
  }
  __syncthreads();
  if (mode == 0) {
    if (tid == 0) t2c::mbar_arrive(bar);
    t2c::mbar_wait_parity(bar, 1);
  } else if (mode == 1) {
    if (tid == 0) t2c::mbar_arrive_expect_tx(bar, 64);
    t2c::mbar_wait_parity(bar, 0);
  } else if (mode == 4) {
    if (tid == 0) t2c::mbar_expect_tx(bar, 64);
    if (tid < 2) t2c::mbar_arrive(bar);
  } else if (mode == 5) {
    if (tid != 0) return;
    t2c::mbar_wait_parity(bar, 0);
  }
  O[tid] = 1;
}
T2C_REGISTER_(hop_mbar_bad, T2C_ARG(int, 0), T2C_INT(1))

// Named barriers (bar.sync / bar.arrive), as the warpgroups of an attention
// loop take turns (emit_tir.c): 2 warpgroups; warpgroup g waits at barrier
// 1 + g, then its first thread takes a ticket from a shared counter, then it
// arrives at the other's barrier; warpgroup 0 arrives at its own first and
// waits at it once more after the loop. Only the named barriers order the
// counter's updates (the race detector's happens-before). O[2 i + g]: the
// ticket of warpgroup g's turn i. Modes: 0 as above; 1 warpgroup 0 does not
// arrive first (deadlock); 2 no final wait (an arrival left at exit);
// 3 warpgroup 1 arrives with count 224; 4 barrier 0; 5 no named barriers
// (the counter races).
extern "C" __global__ void hop_named_bar(t2c_sim::tensor<int> O, int mode, int iters) {
  T2C_SIM_DYNAMIC_SMEM(t2c_smem);
  T2C_SIM_SHARED_AT(int, ctr, t2c_smem, 0, 1);
  T2C_SIM_SHARED_AT(int, log, t2c_smem, 16, 32);
  const int tid = threadIdx.x, g = tid / 128;
  if (tid == 0) ctr[0] = 0;
  __syncthreads();
  if (mode == 4) t2c::bar_arrive(0, 256);
  if (g == 0 && mode != 1 && mode != 5) t2c::bar_arrive(1, 256);
  for (int i = 0; i < iters; i++) {
    if (mode != 5) t2c::bar_sync(1 + g, 256);
    if (tid % 128 == 0) log[2 * i + g] = ctr[0]++;
    if (mode != 5) t2c::bar_arrive(1 + (g + 1) % 2, mode == 3 && g == 1 ? 224 : 256);
  }
  if (g == 0 && mode != 2 && mode != 5) t2c::bar_sync(1, 256);
  __syncthreads();
  if (tid < 2 * iters) O[tid] = log[tid];
}
T2C_REGISTER_(hop_named_bar, T2C_ARG(int, 0), T2C_INT(1), T2C_INT(2))

// Two TMA loads of map's boxes at (c0, c1) and (d0, d1) into two 1024-aligned
// buffers, completing phases 0 and 1 of one barrier; the raw shared bytes
// (swizzled) go to O. bytes: one box; span: a buffer (a multiple of 1024).
extern "C" __global__ void hop_tma_load(const t2c::TensorMap *map, t2c_sim::tensor<unsigned char> O, int c0,
                                        int c1, int d0, int d1, int bytes, int span) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  u64 *bar = reinterpret_cast<u64 *>(sm + 2 * span);
  const int tid = threadIdx.x, nt = blockDim.x;
  if (tid == 0) {
    t2c::mbar_init(bar, 1);
    t2c::fence_mbarrier_init();
  }
  __syncthreads();
  for (int k = 0; k < 2; k++) {
    if (tid == 0) {
      t2c::mbar_arrive_expect_tx(bar, (unsigned)bytes);
      t2c::tma_load_2d(sm + k * span, map, k ? d0 : c0, k ? d1 : c1, bar);
    }
    t2c::mbar_wait_parity(bar, (unsigned)k);
  }
  for (int i = tid; i < 2 * span; i += nt) O[i] = sm[i];
}
T2C_REGISTER_(hop_tma_load, T2C_MAP(0), T2C_ARG(unsigned char, 1), T2C_INT(2), T2C_INT(3), T2C_INT(4), T2C_INT(5),
              T2C_INT(6), T2C_INT(7))

// PLANTED, by mode: 0 the barrier's init is never fenced for the async
// proxy; 1 the box is read before the load completes (the shared bytes are
// poison until then: the launch runs, the driver sees the poison).
extern "C" __global__ void hop_tma_bad(const t2c::TensorMap *map, t2c_sim::tensor<unsigned char> O, int mode) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  u64 *bar = reinterpret_cast<u64 *>(sm + 4096);
  const int tid = threadIdx.x;
  if (tid == 0) {
    t2c::mbar_init(bar, 1);
    if (mode != 0) t2c::fence_mbarrier_init();
    t2c::mbar_arrive_expect_tx(bar, 128);
    t2c::tma_load_2d(sm, map, 0, 0, bar);
    if (mode == 1) O[0] = sm[0];
    t2c::mbar_wait_parity(bar, 0);
  }
}
T2C_REGISTER_(hop_tma_bad, T2C_MAP(0), T2C_ARG(unsigned char, 1), T2C_INT(2))

// A TMA store of the raw shared image IMG (span bytes) to map's box at (c0, c1).
// PLANTED, by mode: 1 the image changes before cp.async.bulk.wait_group.read;
// 2 no wait at all; 3 the image is written by stmatrix without
// fence.proxy.async (warp 0's lanes give rows of the image); 4 thread 32 stores
// the same box too, with no barrier between the two (a race on the tensor).
extern "C" __global__ void hop_tma_store(const t2c::TensorMap *map, t2c_sim::tensor<const unsigned char> IMG,
                                         int c0, int c1, int span, int mode) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  const int tid = threadIdx.x, nt = blockDim.x;
  for (int i = tid; i < span; i += nt) sm[i] = IMG[i];
  if (mode == 3 && tid < 32) {
    const unsigned r[4] = {1u, 2u, 3u, 4u};
    t2c::stmatrix_x4(sm + 16 * tid, r);
  } else {
    t2c::fence_proxy_async();
  }
  __syncthreads();
  if (tid == 0 || (mode == 4 && tid == 32)) {
    t2c::tma_store_2d(map, c0, c1, sm);
    t2c::tma_store_commit();
    if (mode == 1) sm[5] ^= 1;
    if (mode != 2) t2c::tma_store_wait_read<0>();
  }
}
T2C_REGISTER_(hop_tma_store, T2C_MAP(0), T2C_ARG(const unsigned char, 1), T2C_INT(2), T2C_INT(3), T2C_INT(4),
              T2C_INT(5))

// Every stmatrix variant: thread t gives REGS[4t..4t+3] and the row
// ROWS[t] of a 64 x 8 b16 array; O gets the array after each variant.
extern "C" __global__ void hop_stmatrix(t2c_sim::tensor<const unsigned> REGS, t2c_sim::tensor<const int> ROWS,
                                        t2c_sim::tensor<unsigned short> O) {
  T2C_SIM_SHARED(unsigned short, s, 64 * 8);
  const int tid = threadIdx.x, nt = blockDim.x;
  const unsigned r4[4] = {REGS[4 * tid], REGS[4 * tid + 1], REGS[4 * tid + 2], REGS[4 * tid + 3]};
  const unsigned r2[2] = {r4[0], r4[1]};
  void *row = &s[ROWS[tid] * 8];
  for (int v = 0; v < 6; v++) {
    for (int i = tid; i < 64 * 8; i += nt) s[i] = 0;
    __syncthreads();
    switch (v) {
    case 0: t2c::stmatrix_x1(row, r4[0]); break;
    case 1: t2c::stmatrix_x2(row, r2); break;
    case 2: t2c::stmatrix_x4(row, r4); break;
    case 3: t2c::stmatrix_x1_trans(row, r4[0]); break;
    case 4: t2c::stmatrix_x2_trans(row, r2); break;
    case 5: t2c::stmatrix_x4_trans(row, r4); break;
    }
    __syncthreads();
    for (int i = tid; i < 64 * 8; i += nt) O[v * 512 + i] = s[i];
    __syncthreads();
  }
}
T2C_REGISTER_(hop_stmatrix, T2C_ARG(const unsigned, 0), T2C_ARG(const int, 1), T2C_ARG(unsigned short, 2))

// D = A x B (+ C) with m64nNk16 steps: the operands' shared images IMGA
// (bytes [0, sa)) and IMGB are copied to 1024-aligned buffers; step s reads
// A at OFFS[s] and B at OFFS[ksteps + s] through descriptors with the given
// lbo, sbo and swizzle (LAY: lbo_a, sbo_a, swz_a, lbo_b, sbo_b, swz_b). A
// from registers instead when AREG has 4 words per thread per step. C and D
// are per thread, in the accumulator fragment's order. split: commit each
// step as its own group and wait with wgmma_wait<1> between.
template <int N, int BF, int TA, int TB>
static void wgmma_body(t2c_sim::tensor<const unsigned char> IMGA, t2c_sim::tensor<const unsigned char> IMGB,
                       t2c_sim::tensor<const int> OFFS, t2c_sim::tensor<const int> LAY,
                       t2c_sim::tensor<const unsigned> AREG, t2c_sim::tensor<const float> C, t2c_sim::tensor<float> D,
                       int sa, int sb, int ksteps, int use_c, int rs, int split) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  const int tid = threadIdx.x, nt = blockDim.x;
  const int ob = (sa + 1023) / 1024 * 1024;
  for (int i = tid; i < sa; i += nt) sm[i] = IMGA[i];
  for (int i = tid; i < sb; i += nt) sm[ob + i] = IMGB[i];
  t2c::fence_proxy_async();
  __syncthreads();
  float d[N / 2];
  for (int i = 0; i < N / 2; i++) d[i] = C[tid * (N / 2) + i];
  t2c::wgmma_fence();
  for (int s = 0; s < ksteps; s++) {
    const u64 db = t2c::wgmma_desc(sm + ob + OFFS[ksteps + s], (unsigned)LAY[3], (unsigned)LAY[4], (unsigned)LAY[5]);
    const bool acc = s > 0 || use_c;
    if (rs) {
      const unsigned a[4] = {AREG[(s * nt + tid) * 4], AREG[(s * nt + tid) * 4 + 1], AREG[(s * nt + tid) * 4 + 2],
                             AREG[(s * nt + tid) * 4 + 3]};
      if (BF) t2c::wgmma_bf16_rs<N, TB>(d, a, db, acc);
      else t2c::wgmma_f16_rs<N, TB>(d, a, db, acc);
    } else {
      const u64 da = t2c::wgmma_desc(sm + OFFS[s], (unsigned)LAY[0], (unsigned)LAY[1], (unsigned)LAY[2]);
      if (BF) t2c::wgmma_bf16<N, TA, TB>(d, da, db, acc);
      else t2c::wgmma_f16<N, TA, TB>(d, da, db, acc);
    }
    if (split) {
      t2c::wgmma_commit();
      t2c::wgmma_wait<1>();
      t2c::wgmma_fence();
    }
  }
  t2c::wgmma_commit();
  t2c::wgmma_wait<0>();
  for (int i = 0; i < N / 2; i++) D[tid * (N / 2) + i] = d[i];
}
#define T2C_WGMMA_KERNEL_(name, N, BF, TA, TB)                                                                      \
  extern "C" __global__ void name(t2c_sim::tensor<const unsigned char> IMGA, t2c_sim::tensor<const unsigned char> IMGB, \
                                  t2c_sim::tensor<const int> OFFS, t2c_sim::tensor<const int> LAY,                 \
                                  t2c_sim::tensor<const unsigned> AREG, t2c_sim::tensor<const float> C,            \
                                  t2c_sim::tensor<float> D, int sa, int sb, int ksteps, int use_c, int rs, int split) { \
    wgmma_body<N, BF, TA, TB>(IMGA, IMGB, OFFS, LAY, AREG, C, D, sa, sb, ksteps, use_c, rs, split);             \
  }                                                                                                              \
  T2C_REGISTER_(name, T2C_ARG(const unsigned char, 0), T2C_ARG(const unsigned char, 1), T2C_ARG(const int, 2),     \
                T2C_ARG(const int, 3), T2C_ARG(const unsigned, 4), T2C_ARG(const float, 5), T2C_ARG(float, 6),     \
                T2C_INT(7), T2C_INT(8), T2C_INT(9), T2C_INT(10), T2C_INT(11), T2C_INT(12))
T2C_WGMMA_KERNEL_(wg_f16_n8_kk, 8, 0, 0, 0)
T2C_WGMMA_KERNEL_(wg_f16_n24_kk, 24, 0, 0, 0)
T2C_WGMMA_KERNEL_(wg_f16_n64_kk, 64, 0, 0, 0)
T2C_WGMMA_KERNEL_(wg_bf16_n64_kk, 64, 1, 0, 0)
T2C_WGMMA_KERNEL_(wg_f16_n128_kk, 128, 0, 0, 0)
T2C_WGMMA_KERNEL_(wg_bf16_n256_kk, 256, 1, 0, 0)
T2C_WGMMA_KERNEL_(wg_f16_n64_kn, 64, 0, 0, 1)
T2C_WGMMA_KERNEL_(wg_bf16_n128_kn, 128, 1, 0, 1)
T2C_WGMMA_KERNEL_(wg_f16_n64_mn, 64, 0, 1, 1)

// The 8-bit forms, m64nNk32 (TY: 2 s8, 3 u8, 4 e4m3, 5 e5m2), K-major A and
// B from descriptors, as wgmma_body without registers or transposes; C and D
// are s32 (in an int tensor) or f32.
template <int N, int TY, typename Acc>
static void wgmma8_body(t2c_sim::tensor<const unsigned char> IMGA, t2c_sim::tensor<const unsigned char> IMGB,
                        t2c_sim::tensor<const int> OFFS, t2c_sim::tensor<const int> LAY, t2c_sim::tensor<const Acc> C,
                        t2c_sim::tensor<Acc> D, int sa, int sb, int ksteps, int use_c, int split) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  const int tid = threadIdx.x, nt = blockDim.x;
  const int ob = (sa + 1023) / 1024 * 1024;
  for (int i = tid; i < sa; i += nt) sm[i] = IMGA[i];
  for (int i = tid; i < sb; i += nt) sm[ob + i] = IMGB[i];
  t2c::fence_proxy_async();
  __syncthreads();
  Acc d[N / 2];
  for (int i = 0; i < N / 2; i++) d[i] = C[tid * (N / 2) + i];
  t2c::wgmma_fence();
  for (int s = 0; s < ksteps; s++) {
    const u64 da = t2c::wgmma_desc(sm + OFFS[s], (unsigned)LAY[0], (unsigned)LAY[1], (unsigned)LAY[2]);
    const u64 db = t2c::wgmma_desc(sm + ob + OFFS[ksteps + s], (unsigned)LAY[3], (unsigned)LAY[4], (unsigned)LAY[5]);
    const bool acc = s > 0 || use_c;
    if constexpr (TY == 2) t2c::wgmma_i8<N>(d, da, db, acc);
    else if constexpr (TY == 3) t2c::wgmma_u8<N>(d, da, db, acc);
    else if constexpr (TY == 4) t2c::wgmma_f8e4m3<N>(d, da, db, acc);
    else t2c::wgmma_f8e5m2<N>(d, da, db, acc);
    if (split) {
      t2c::wgmma_commit();
      t2c::wgmma_wait<1>();
      t2c::wgmma_fence();
    }
  }
  t2c::wgmma_commit();
  t2c::wgmma_wait<0>();
  for (int i = 0; i < N / 2; i++) D[tid * (N / 2) + i] = d[i];
}
#define T2C_WGMMA8_KERNEL_(name, N, TY, Acc)                                                                        \
  extern "C" __global__ void name(t2c_sim::tensor<const unsigned char> IMGA, t2c_sim::tensor<const unsigned char> IMGB, \
                                  t2c_sim::tensor<const int> OFFS, t2c_sim::tensor<const int> LAY,                 \
                                  t2c_sim::tensor<const Acc> C, t2c_sim::tensor<Acc> D, int sa, int sb, int ksteps, \
                                  int use_c, int split) {                                                          \
    wgmma8_body<N, TY, Acc>(IMGA, IMGB, OFFS, LAY, C, D, sa, sb, ksteps, use_c, split);                            \
  }                                                                                                              \
  T2C_REGISTER_(name, T2C_ARG(const unsigned char, 0), T2C_ARG(const unsigned char, 1), T2C_ARG(const int, 2),     \
                T2C_ARG(const int, 3), T2C_ARG(const Acc, 4), T2C_ARG(Acc, 5), T2C_INT(6), T2C_INT(7), T2C_INT(8), \
                T2C_INT(9), T2C_INT(10))
T2C_WGMMA8_KERNEL_(wg_s8_n8, 8, 2, int)
T2C_WGMMA8_KERNEL_(wg_s8_n24, 24, 2, int)
T2C_WGMMA8_KERNEL_(wg_s8_n64, 64, 2, int)
T2C_WGMMA8_KERNEL_(wg_s8_n256, 256, 2, int)
T2C_WGMMA8_KERNEL_(wg_u8_n48, 48, 3, int)
T2C_WGMMA8_KERNEL_(wg_e4m3_n64, 64, 4, float)
T2C_WGMMA8_KERNEL_(wg_e4m3_n8, 8, 4, float)
T2C_WGMMA8_KERNEL_(wg_e5m2_n128, 128, 5, float)
T2C_WGMMA8_KERNEL_(wg_e5m2_n40, 40, 5, float)

// PLANTED, by mode: 0 no wgmma.fence; 1 an accumulator written between the
// wgmma and its wait; 2 the shared operand overwritten before the wait (a
// stage released early); 3 threads 64.. leave before the wgmma; 4 a block of
// 96 threads (a partial warpgroup); 5 no wgmma.wait_group; 6 an operand
// written by stmatrix without fence.proxy.async. A and B: 64 x 16 and 8 x 16,
// K-major, no swizzle, at 0 and 2048.
extern "C" __global__ void hop_wgmma_bad(t2c_sim::tensor<float> D, int mode) {
  T2C_SIM_DYNAMIC_SMEM(sm);
  const int tid = threadIdx.x, nt = blockDim.x;
  for (int i = tid; i < 4096; i += nt) sm[i] = 0;
  if (mode == 6 && tid < 32) {
    const unsigned r[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    t2c::stmatrix_x4(sm + 16 * tid, r);
  }
  if (mode != 6) t2c::fence_proxy_async();
  __syncthreads();
  float d[4] = {0, 0, 0, 0};
  const u64 da = t2c::wgmma_desc(sm, 128, 256, 0), db = t2c::wgmma_desc(sm + 2048, 128, 256, 0);
  if (mode == 3 && tid >= 64) return;
  if (mode != 0) t2c::wgmma_fence();
  t2c::wgmma_f16<8>(d, da, db, true);
  t2c::wgmma_commit();
  if (mode == 1 && tid == 5) d[1] = 2.0f;
  if (mode == 2 && tid == 7) sm[2048 + 16 * 3] = 0x3c;
  if (mode != 5) t2c::wgmma_wait<0>();
  D[tid] = d[0];
}
T2C_REGISTER_(hop_wgmma_bad, T2C_ARG(float, 0), T2C_INT(1))

// The whole Hopper GEMM step, one warpgroup: D (64 x 64, f32) = A (64 x K) x
// B^T, A and B (64 x K, f16, row-major: K-major operands) read through
// tensor maps with the 128-byte swizzle in boxes of 64 x 64 (128-byte
// rows), two stages with a full barrier each (phase parity flips every other
// k-block); four m64n64k16 wgmmas per k-block, K-major descriptors with
// sbo 1024 and the start 32 bytes further per k16 step. Out-of-range K
// columns of a ragged last block are zeros.
extern "C" __global__ void hop_gemm_tma(const __grid_constant__ t2c::TensorMap mapa,
                                        const __grid_constant__ t2c::TensorMap mapb, t2c_sim::tensor<float> D, int K) {
  const t2c::TensorMap *ma = &mapa, *mb = &mapb;
  T2C_SIM_DYNAMIC_SMEM(sm);  // stage s: A at 16384 s, B at 16384 s + 8192; the barriers at 32768
  u64 *full = reinterpret_cast<u64 *>(sm + 32768);
  const int tid = threadIdx.x;
  if (tid == 0) {
    t2c::mbar_init(&full[0], 1);
    t2c::mbar_init(&full[1], 1);
    t2c::fence_mbarrier_init();
  }
  __syncthreads();
  float d[32];
  for (int i = 0; i < 32; i++) d[i] = 0.0f;
  const int kb = (K + 63) / 64;
  for (int it = 0; it < kb + 1; it++) {
    if (it < kb && tid == 0) {  // load k-block it into stage it % 2
      unsigned char *st = sm + 16384 * (it % 2);
      t2c::mbar_arrive_expect_tx(&full[it % 2], 2 * 8192);
      t2c::tma_load_2d(st, ma, 64 * it, 0, &full[it % 2]);
      t2c::tma_load_2d(st + 8192, mb, 64 * it, 0, &full[it % 2]);
    }
    if (it == 0) continue;
    const int c = it - 1;  // compute k-block c
    unsigned char *st = sm + 16384 * (c % 2);
    t2c::mbar_wait_parity(&full[c % 2], (unsigned)(c / 2 % 2));
    t2c::wgmma_fence();
    for (int k = 0; k < 4; k++)
      t2c::wgmma_f16<64>(d, t2c::wgmma_desc(st + 32 * k, 16, 1024, 128), t2c::wgmma_desc(st + 8192 + 32 * k, 16, 1024, 128));
    t2c::wgmma_commit();
    t2c::wgmma_wait<0>();
    __syncthreads();  // every thread is done with the stage before it is loaded again
  }
  const int w = tid / 32, l = tid % 32;
  for (int i = 0; i < 32; i++) D[(16 * w + l / 4 + 8 * (i / 2 % 2)) * 64 + 8 * (i / 4) + 2 * (l % 4) + i % 2] = d[i];
}
T2C_REGISTER_(hop_gemm_tma, *T2C_MAP(0), *T2C_MAP(1), T2C_ARG(float, 2), T2C_INT(3))

// A static shared array aligned to 1024 bytes after a 16-byte one: O gets
// its shared window address mod 1024 (0) and its host address mod 1024 (0).
extern "C" __global__ void hop_smem_align(t2c_sim::tensor<int> O) {
  T2C_SIM_SHARED(unsigned char, pad, 16);
  T2C_SIM_SHARED_ALIGNED(unsigned short, s, 512, 1024);
  if (threadIdx.x < 16) pad[threadIdx.x] = 0;
  if (threadIdx.x == 0) {
    O[0] = (int)(t2c::smem_u32(&s[0]) % 1024);
    O[1] = (int)(reinterpret_cast<unsigned long long>(&s[0]) % 1024);
    O[2] = (int)(t2c::smem_u32(&s[1]) - t2c::smem_u32(&pad[0]));
  }
}
T2C_REGISTER_(hop_smem_align, T2C_ARG(int, 0))
