// tc_nvcc.cu: compiled by tests/sim/nvcc_check.sh with nvcc (never run).
// Calls every tensor-core and cp.async helper of rt.cuh, so the PTX for
// sm_80/sm_90 must hold mma.sync.aligned.m16n8k16, ldmatrix and cp.async.
// With -DT2C_NO_CALLS it calls none, and must compile for sm_75 too.
// rand_all calls the random-number helpers (on every target); atomic_runs the
// atomic_add runs, each where the translator emits it (f16 and bf16 pairs from
// sm_80, f32 pairs and quads and 16-bit runs of 4 and 8 from sm_90; layout.c
// atomic_run), and the 16-bit scalars.
#include <tile2cu/rt.cuh>

extern "C" __global__ void __launch_bounds__(32)
tc_all(const __half *__restrict__ A, const __nv_bfloat16 *__restrict__ B, float *__restrict__ O, int n)
{
#ifndef T2C_NO_CALLS
  __shared__ __align__(16) __half sa[16 * 16];
  __shared__ __align__(16) __nv_bfloat16 sb[16 * 16];
  __shared__ __align__(16) float sf[32];
  const int lane = threadIdx.x;
  const int j = lane * 8;
  t2c::cp_async_16(&sa[j], A + (j < n ? j : 0), j < n ? 16 : 0);
  t2c::cp_async_16(&sb[j], B + j, 16);
  t2c::cp_async_commit();
  t2c::cp_async_4(&sf[lane], O + lane, lane < n ? 4 : 0);
  t2c::cp_async_commit();
  t2c::cp_async_wait<1>();
  t2c::cp_async_wait<0>();
  __syncthreads();
  unsigned a[4], b[2], at[4], bt[2];
  t2c::ldmatrix_x4(a, &sa[(lane % 16) * 16 + (lane / 16) * 8]);
  t2c::ldmatrix_x2(b, &sa[(lane % 16) * 16]);
  t2c::ldmatrix_x4_trans(at, &sb[(lane % 16) * 16 + (lane / 16) * 8]);
  t2c::ldmatrix_x2_trans(bt, &sb[(lane % 16) * 16]);
  float d0 = sf[lane], d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
  t2c::mma_16816_f16(d0, d1, d2, d3, a, b);
  t2c::mma_16816_bf16(d0, d1, d2, d3, at, bt);
  int i0 = lane, i1 = 0, i2 = 0, i3 = 0;
  t2c::mma_16832_i8(i0, i1, i2, i3, a, bt);
  d0 += (float)(i0 ^ i1 ^ i2 ^ i3);
  t2c::mma_16832_f8e4m3(d0, d1, d2, d3, a, bt);
  t2c::mma_16832_f8e5m2(d0, d1, d2, d3, at, b);
  const unsigned p = t2c::pack2(__float2half(d0), __float2half(d1)) ^
                     t2c::pack2(__float2bfloat16(d2), __float2bfloat16(d3));
  O[lane] = d0 + d1 + d2 + d3 + __half2float(t2c::unpack_lo<__half>(p)) +
            __bfloat162float(t2c::unpack_hi<__nv_bfloat16>(p));
#else
  O[threadIdx.x] = (float)n;
#endif
}

// rand, randn, randint and the Philox4x32-10 they share: __umulhi on the device
// (mul.hi.u32 in the PTX), the same words as the CPU backend's 64-bit products.
extern "C" __global__ void __launch_bounds__(32)
rand_all(const unsigned *__restrict__ K, unsigned *__restrict__ W, float *__restrict__ F, long long seed)
{
  const int i = threadIdx.x;
  const t2c::Philox4x32 p = t2c::philox4x32_10(K[i], K[i + 32], 0u, 0u, K[64], K[65]);
  W[i] = p.w[0] ^ p.w[1] ^ p.w[2] ^ p.w[3] ^ t2c::randint(seed, i);
  F[i] = t2c::rand(seed, K[i]) + t2c::randn((int)K[66], -i);
}

extern "C" __global__ void __launch_bounds__(32)
atomic_runs(float *__restrict__ F, __half *__restrict__ H, __nv_bfloat16 *__restrict__ B)
{
  const int i = threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  t2c::atomic_add_vec<2>(H + 2 * i, t2c::Vec<__half, 2>{{__float2half(1.0f), __float2half((float)i)}});
  t2c::atomic_add_vec<2>(B + 2 * i, t2c::Vec<__nv_bfloat16, 2>{{__float2bfloat16(1.0f), __float2bfloat16((float)i)}});
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  t2c::atomic_add_vec<4>(F + 4 * i, t2c::Vec<float, 4>{{1.0f, 2.0f, 3.0f, (float)i}});
  t2c::atomic_add_vec<2>(F + 128 + 2 * i, t2c::Vec<float, 2>{{1.0f, (float)i}});
  const __half h = __float2half((float)i);
  const __nv_bfloat16 b = __float2bfloat16((float)i);
  t2c::atomic_add_vec<8>(H + 64 + 8 * i, t2c::Vec<__half, 8>{{h, h, h, h, h, h, h, h}});
  t2c::atomic_add_vec<4>(H + 320 + 4 * i, t2c::Vec<__half, 4>{{h, h, h, h}});
  t2c::atomic_add_vec<8>(B + 64 + 8 * i, t2c::Vec<__nv_bfloat16, 8>{{b, b, b, b, b, b, b, b}});
  t2c::atomic_add_vec<4>(B + 320 + 4 * i, t2c::Vec<__nv_bfloat16, 4>{{b, b, b, b}});
  t2c::atomic_add(B + 448 + i, b);
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  t2c::atomic_add(H + 448 + i, __float2half((float)i));
#endif
  F[192 + i] = (float)i;
}

// packed registers (pipeline.c's rings of 1- and 2-byte elements): ldg_words, part, part_ref
// for every 1- and 2-byte element type a ring may hold
extern "C" __global__ void __launch_bounds__(32)
packed_parts(const signed char *__restrict__ X, const __half *__restrict__ H, const __nv_bfloat16 *__restrict__ B,
             const __nv_fp8_e4m3 *__restrict__ E, float *__restrict__ O)
{
  const int i = threadIdx.x;
  unsigned w[4];
  const t2c::Vec<unsigned, 2> x = t2c::ldg_words<8>(X + 8 * i);
  const t2c::Vec<unsigned, 1> h = t2c::ldg_words<2>(H + 2 * i);
  const t2c::Vec<unsigned, 4> b = t2c::ldg_words<8>(B + 8 * i);
  const t2c::Vec<unsigned, 1> e = t2c::ldg_words<4>(E + 4 * i);
  w[0] = x.v[1], w[1] = h.v[0], w[2] = b.v[3], w[3] = e.v[0];
  t2c::part_ref<signed char>(w[0], 3) = (signed char)i;
  t2c::part_ref<__half>(w[1], 1) = H[0];
  t2c::part_ref<__nv_bfloat16>(w[2], 0) = B[1];
  t2c::part_ref<__nv_fp8_e4m3>(w[3], 2) = E[3];
  t2c::part_ref<unsigned char>(w[3], 1) = (unsigned char)i;
  t2c::part_ref<short>(w[2], 1) = (short)-i;
  O[i] = (float)t2c::part<signed char>(w[0], 3) + __half2float(t2c::part<__half>(w[1], 1)) +
         __bfloat162float(t2c::part<__nv_bfloat16>(w[2], 0)) + (float)t2c::part<__nv_fp8_e4m3>(w[3], 2) +
         (float)t2c::part<unsigned char>(w[3], 1) + (float)t2c::part<short>(w[2], 1);
}
