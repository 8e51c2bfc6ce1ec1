// tile2cu/rt.cuh: the device runtime that generated kernels include.
//
// This is the only hand-written CUDA in tile2cu. It compiles under nvcc and
// NVRTC (no host headers are needed beyond the CUDA half/bf16 headers), and
// under the CPU backend when TILE2CU_SIM is defined. Each helper has one job.
#ifndef TILE2CU_RT_CUH
#define TILE2CU_RT_CUH

#ifdef TILE2CU_SIM
#include "tile2cu_sim.h"
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define T2C_DEVICE __device__ __forceinline__
#endif

namespace t2c {

// ---- conversions: t2c::cvt<To>(x) between every element type.
template <typename To> struct Cvt {
  template <typename From> static T2C_DEVICE To from(From x) { return static_cast<To>(x); }
  static T2C_DEVICE To from(__half x) { return static_cast<To>(__half2float(x)); }
  static T2C_DEVICE To from(__nv_bfloat16 x) { return static_cast<To>(__bfloat162float(x)); }
};
template <> struct Cvt<__half> {
  template <typename From> static T2C_DEVICE __half from(From x) { return __float2half(static_cast<float>(x)); }
  static T2C_DEVICE __half from(__half x) { return x; }
  static T2C_DEVICE __half from(__nv_bfloat16 x) { return __float2half(__bfloat162float(x)); }
};
template <> struct Cvt<__nv_bfloat16> {
  template <typename From> static T2C_DEVICE __nv_bfloat16 from(From x) { return __float2bfloat16(static_cast<float>(x)); }
  static T2C_DEVICE __nv_bfloat16 from(__nv_bfloat16 x) { return x; }
  static T2C_DEVICE __nv_bfloat16 from(__half x) { return __float2bfloat16(__half2float(x)); }
};
template <typename To, typename From> T2C_DEVICE To cvt(From x) { return Cvt<To>::from(x); }

// ---- infinity of a float type.
template <typename T> T2C_DEVICE T inf() { return cvt<T>(__int_as_float(0x7f800000)); }
template <> T2C_DEVICE double inf<double>() { return __longlong_as_double(0x7ff0000000000000LL); }

// ---- identities of max and min reductions.
template <typename T> T2C_DEVICE T lowest() { return -inf<T>(); }
template <typename T> T2C_DEVICE T highest() { return inf<T>(); }
template <> T2C_DEVICE int lowest<int>() { return -2147483647 - 1; }
template <> T2C_DEVICE int highest<int>() { return 2147483647; }
template <> T2C_DEVICE unsigned lowest<unsigned>() { return 0u; }
template <> T2C_DEVICE unsigned highest<unsigned>() { return 0xffffffffu; }
template <> T2C_DEVICE long long lowest<long long>() { return (-9223372036854775807LL - 1); }
template <> T2C_DEVICE long long highest<long long>() { return 9223372036854775807LL; }
template <> T2C_DEVICE signed char lowest<signed char>() { return -128; }
template <> T2C_DEVICE signed char highest<signed char>() { return 127; }
template <> T2C_DEVICE unsigned char lowest<unsigned char>() { return 0; }
template <> T2C_DEVICE unsigned char highest<unsigned char>() { return 255; }

// ---- elementwise math. f16 and bf16 compute in f32 and round once.
#define T2C_MATH1(name, f32, f64)                                              \
  T2C_DEVICE float name(float x) { return f32(x); }                            \
  T2C_DEVICE double name(double x) { return f64(x); }                          \
  T2C_DEVICE __half name(__half x) { return __float2half(f32(__half2float(x))); } \
  T2C_DEVICE __nv_bfloat16 name(__nv_bfloat16 x) {                             \
    return __float2bfloat16(f32(__bfloat162float(x)));                         \
  }
T2C_DEVICE float sigmoidf_(float x) { return 1.0f / (1.0f + expf(-x)); }
T2C_DEVICE double sigmoid_(double x) { return 1.0 / (1.0 + ::exp(-x)); }
T2C_DEVICE float rsqrtf_(float x) { return rsqrtf(x); }
T2C_DEVICE double rsqrt_(double x) { return ::rsqrt(x); }
T2C_MATH1(exp, expf, ::exp)
T2C_MATH1(exp2, exp2f, ::exp2)
T2C_MATH1(log, logf, ::log)
T2C_MATH1(log2, log2f, ::log2)
T2C_MATH1(sqrt, sqrtf, ::sqrt)
T2C_MATH1(rsqrt, rsqrtf_, rsqrt_)
T2C_MATH1(sin, sinf, ::sin)
T2C_MATH1(cos, cosf, ::cos)
T2C_MATH1(tanh, tanhf, ::tanh)
T2C_MATH1(sigmoid, sigmoidf_, sigmoid_)
T2C_MATH1(floor, floorf, ::floor)
T2C_MATH1(ceil, ceilf, ::ceil)
T2C_MATH1(abs, fabsf, ::fabs)
#undef T2C_MATH1
T2C_DEVICE int abs(int x) { return x < 0 ? -x : x; }
T2C_DEVICE long long abs(long long x) { return x < 0 ? -x : x; }
T2C_DEVICE signed char abs(signed char x) { return (signed char)(x < 0 ? -x : x); }
T2C_DEVICE unsigned int abs(unsigned int x) { return x; }
T2C_DEVICE unsigned char abs(unsigned char x) { return x; }

// min/max: NaN-propagating order is not promised; ties keep the first operand.
template <typename T> T2C_DEVICE T min(T a, T b) { return b < a ? b : a; }
template <typename T> T2C_DEVICE T max(T a, T b) { return a < b ? b : a; }

// ---- warp folds: every lane of each run of W lanes gets the run's result.
// W is a power of two <= 32; the runs are aligned (lanes k*W .. k*W+W-1).
template <int W, typename T> T2C_DEVICE T fold_sum(T v) {
#pragma unroll
  for (int off = W / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}
template <int W, typename T> T2C_DEVICE T fold_max(T v) {
#pragma unroll
  for (int off = W / 2; off > 0; off /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}
template <int W, typename T> T2C_DEVICE T fold_min(T v) {
#pragma unroll
  for (int off = W / 2; off > 0; off /= 2) v = min(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

}  // namespace t2c

#endif  // TILE2CU_RT_CUH
