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
#include <cuda_fp8.h>
#define T2C_DEVICE __device__ __forceinline__
#endif

namespace t2c {

// ---- conversions: t2c::cvt<To>(x) between every element type. The f8 types
// (cuda_fp8.h) convert through f32 (exactly: every f8 value is an f32), and
// to f8 by round-to-nearest-even with saturation to the largest finite value
// (cvt.rn.satfinite; NaN stays NaN).
//
// A float converts to an integer type as PTX's cvt.rzi does: truncated toward
// zero and saturated to the type's range. NaN gives 0, but 1 << (bits - 1) (a
// signed type's lowest value; 128 or 2^31 unsigned) when the source is f64 or
// the target 64-bit (PTX ISA 9.0, cvt; an H200 gave exactly that, 2026-12-04).
// The GPU's conversions to 32- and 64-bit integers are that instruction; the
// 8-bit ones and the CPU backend's (C++ leaves out-of-range values undefined;
// x86 gives INT_MIN) spell it out. Between integer types a value wraps (two's
// complement), on both.
template <typename T> struct IntRange { enum { yes = 0 }; };
template <> struct IntRange<signed char> {
  enum { yes = 1, hw = 0 };
  static T2C_DEVICE signed char lo() { return -128; }
  static T2C_DEVICE signed char hi() { return 127; }
};
template <> struct IntRange<unsigned char> {
  enum { yes = 1, hw = 0 };
  static T2C_DEVICE unsigned char lo() { return 0; }
  static T2C_DEVICE unsigned char hi() { return 255; }
};
template <> struct IntRange<int> {
  enum { yes = 1, hw = 1 };
  static T2C_DEVICE int lo() { return -2147483647 - 1; }
  static T2C_DEVICE int hi() { return 2147483647; }
};
template <> struct IntRange<unsigned> {
  enum { yes = 1, hw = 1 };
  static T2C_DEVICE unsigned lo() { return 0u; }
  static T2C_DEVICE unsigned hi() { return 0xffffffffu; }
};
template <> struct IntRange<long long> {
  enum { yes = 1, hw = 1 };
  static T2C_DEVICE long long lo() { return -9223372036854775807LL - 1; }
  static T2C_DEVICE long long hi() { return 9223372036854775807LL; }
};
template <typename To, int I = IntRange<To>::yes> struct FromFloat {
  template <typename F> static T2C_DEVICE To from(F x) { return static_cast<To>(x); }
};
template <typename To> struct FromFloat<To, 1> {
  /* 1 << (bits - 1): lo() of a signed type, hi() / 2 + 1 of an unsigned one */
  static T2C_DEVICE To nan_int() {
    return IntRange<To>::lo() != 0 ? IntRange<To>::lo() : static_cast<To>(IntRange<To>::hi() / 2 + 1);
  }
  template <typename F> static T2C_DEVICE To from(F x) {
#ifdef __CUDA_ARCH__
    if (IntRange<To>::hw) return static_cast<To>(x);
#endif
    if (!(x == x)) return sizeof(F) == 8 || sizeof(To) == 8 ? nan_int() : To(0);
    /* the bounds as F: lo() is a power of two (or 0), exact; hi() rounds up to one */
    if (x <= static_cast<F>(IntRange<To>::lo())) return IntRange<To>::lo();
    if (x >= static_cast<F>(IntRange<To>::hi())) return IntRange<To>::hi();
    return static_cast<To>(x);
  }
};
template <typename To> struct Cvt {
  template <typename From> static T2C_DEVICE To from(From x) { return static_cast<To>(x); }
  static T2C_DEVICE To from(float x) { return FromFloat<To>::from(x); }
  static T2C_DEVICE To from(double x) { return FromFloat<To>::from(x); }
  static T2C_DEVICE To from(__half x) { return FromFloat<To>::from(__half2float(x)); }
  static T2C_DEVICE To from(__nv_bfloat16 x) { return FromFloat<To>::from(__bfloat162float(x)); }
  static T2C_DEVICE To from(__nv_fp8_e4m3 x) { return FromFloat<To>::from(static_cast<float>(x)); }
  static T2C_DEVICE To from(__nv_fp8_e5m2 x) { return FromFloat<To>::from(static_cast<float>(x)); }
};
template <> struct Cvt<__half> {
  template <typename From> static T2C_DEVICE __half from(From x) { return __float2half(static_cast<float>(x)); }
  static T2C_DEVICE __half from(__half x) { return x; }
  static T2C_DEVICE __half from(__nv_bfloat16 x) { return __float2half(__bfloat162float(x)); }
};
template <> struct Cvt<__nv_bfloat16> {
  template <typename From> static T2C_DEVICE __nv_bfloat16 from(From x) { return __float2bfloat16(static_cast<float>(x)); }
  // integers past 2^24 are not exact in f32: rounded once, to bf16 directly
  static T2C_DEVICE __nv_bfloat16 from(int x) { return __int2bfloat16_rn(x); }
  static T2C_DEVICE __nv_bfloat16 from(unsigned x) { return __uint2bfloat16_rn(x); }
  static T2C_DEVICE __nv_bfloat16 from(long long x) { return __ll2bfloat16_rn(x); }
  static T2C_DEVICE __nv_bfloat16 from(long x) { return __ll2bfloat16_rn(x); }
  static T2C_DEVICE __nv_bfloat16 from(__nv_bfloat16 x) { return x; }
  static T2C_DEVICE __nv_bfloat16 from(__half x) { return __float2bfloat16(__half2float(x)); }
};
template <typename F8> struct CvtF8 {
  template <typename From> static T2C_DEVICE F8 from(From x) { return F8(static_cast<float>(x)); }
  static T2C_DEVICE F8 from(double x) { return F8(x); }
  static T2C_DEVICE F8 from(F8 x) { return x; }
  static T2C_DEVICE F8 from(__half x) { return F8(__half2float(x)); }
  static T2C_DEVICE F8 from(__nv_bfloat16 x) { return F8(__bfloat162float(x)); }
};
template <> struct Cvt<__nv_fp8_e4m3> : CvtF8<__nv_fp8_e4m3> {};
template <> struct Cvt<__nv_fp8_e5m2> : CvtF8<__nv_fp8_e5m2> {};
template <typename To, typename From> T2C_DEVICE To cvt(From x) { return Cvt<To>::from(x); }

// ---- infinity and a quiet NaN of a float type.
template <typename T> T2C_DEVICE T inf() { return cvt<T>(__int_as_float(0x7f800000)); }
template <typename T> T2C_DEVICE T nan() { return cvt<T>(__int_as_float(0x7fffffff)); }
template <> T2C_DEVICE double inf<double>() { return __longlong_as_double(0x7ff0000000000000LL); }
template <> T2C_DEVICE double nan<double>() { return __longlong_as_double(0x7ff8000000000000LL); }

// ---- identities of max and min reductions: -inf and inf of a float type, the
// range of an integer one (IntRange above).
template <typename T, int I = IntRange<T>::yes> struct Extremes {
  static T2C_DEVICE T lo() { return -inf<T>(); }
  static T2C_DEVICE T hi() { return inf<T>(); }
};
template <typename T> struct Extremes<T, 1> : IntRange<T> {};
template <typename T> T2C_DEVICE T lowest() { return Extremes<T>::lo(); }
template <typename T> T2C_DEVICE T highest() { return Extremes<T>::hi(); }

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
// exp and exp2 of f32 (and so of f16 and bf16) are the hardware's approximate
// 2^x, ex2.approx.ftz.f32 (one MUFU.EX2), exp's argument times log2(e) first
// (one FMUL): the accuracy of CUDA's exp2f (2 ulp) and __expf (2 + 1.173 |x|
// ulp), and results below 2^-126 are 0. libm's expf takes about eight
// instructions for the same MUFU.EX2, which in attention's softmax costs more
// issue slots than the tensor cores' work. The CPU backend computes 2^x by the
// host's exp2f and flushes likewise (tests/sim checks both bounds). f64 is exact.
#ifdef TILE2CU_SIM
T2C_DEVICE float ex2_approx_(float x) {
  const float r = exp2f(x);
  return r < 1.17549435e-38f ? 0.0f : r; /* FLT_MIN; NaN stays NaN */
}
#else
T2C_DEVICE float ex2_approx_(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#endif
T2C_DEVICE float exp_approx_(float x) { return ex2_approx_(x * 1.44269504088896341f); }
T2C_MATH1(exp, exp_approx_, ::exp)
T2C_MATH1(exp2, ex2_approx_, ::exp2)
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
T2C_MATH1(round, rintf, ::rint) // to the nearest, ties to even (torch.round, numpy.round; C's rint, not round)
T2C_MATH1(abs, fabsf, ::fabs)
#undef T2C_MATH1
// Element i of a shared copy of EB-byte elements swizzled in W-byte rows (W =
// 32, 64 or 128): the 16-byte chunk bits of its byte offset XORed with the bits
// above each 128 bytes (Swizzle<log2(W/16),4,3>), the layout wgmma reads through
// a swizzled descriptor and TMA writes, for a copy whose first byte is aligned
// to 8 W. A 16-byte chunk stays whole, so a run inside one moves at once.
template <int W, int EB> T2C_DEVICE int swz(int i) {
  static_assert(W == 32 || W == 64 || W == 128, "a swizzle of 32, 64 or 128 bytes");
  static_assert(EB == 1 || EB == 2 || EB == 4 || EB == 8, "elements of 1, 2, 4 or 8 bytes");
  return ((i * EB) ^ ((((i * EB) >> 7) & (W / 16 - 1)) << 4)) / EB;
}
// a << b of a signed value shifts its two's complement bits, as the hardware
// does; a plain << of a negative value is undefined behaviour in C++17.
T2C_DEVICE int shl(int a, int b) { return (int)((unsigned int)a << b); }
T2C_DEVICE long long shl(long long a, long long b) { return (long long)((unsigned long long)a << b); }
// a << b and a >> b of a count the translator cannot prove to be in 0 .. bits - 1:
// undefined (the GPU gives 0 past the width, x86 shifts by the count's low bits),
// so the CPU backend reports one outside as an error of the launch.
template <typename T> T2C_DEVICE void check_shift(long long b) {
#ifdef TILE2CU_SIM
  if (b < 0 || b >= 8 * (long long)sizeof(T))
    t2c_sim::failf("shift count %lld is outside 0 .. %d for %s %d-bit integer", b, 8 * (int)sizeof(T) - 1,
                   sizeof(T) == 1 ? "an" : "a", 8 * (int)sizeof(T));
#else
  (void)b;
#endif
}
T2C_DEVICE unsigned shl(unsigned a, unsigned b) { return a << b; }
T2C_DEVICE signed char shl(signed char a, signed char b) { return (signed char)shl((int)a, (int)b); }
T2C_DEVICE unsigned char shl(unsigned char a, unsigned char b) { return (unsigned char)(a << b); }
template <typename T> T2C_DEVICE T shlv(T a, T b) {
  check_shift<T>(b);
  return shl(a, b);
}
template <typename T> T2C_DEVICE T shrv(T a, T b) {
  check_shift<T>(b);
  return (T)(a >> b);
}
// The step of a range() loop taken at run time: one that is not positive never
// ends the loop (on the GPU it hangs); the CPU backend reports it as an error.
T2C_DEVICE void check_step(int step) {
#ifdef TILE2CU_SIM
  if (step <= 0) t2c_sim::failf("range() step %d is not positive (the loop would never end)", step);
#else
  (void)step;
#endif
}
// a / b and a % b of integers (C's, truncating) whose divisor the translator
// cannot prove to be neither 0 nor -1. The GPU gives an unspecified value for a
// division by 0 (and wraps the lowest value divided by -1); x86 traps on both,
// so the CPU backend reports either as an error of the launch instead.
template <typename T> T2C_DEVICE void check_div(T a, T b) {
#ifdef TILE2CU_SIM
  if (b == 0) t2c_sim::failf("integer division by zero (%lld / 0)", (long long)a);
  if (sizeof(T) >= 4 && T(-1) < T(0) && b == T(-1) && a == lowest<T>())
    t2c_sim::failf("integer division overflow (%lld / -1)", (long long)a);
#else
  (void)a, (void)b;
#endif
}
template <typename T> T2C_DEVICE T idiv(T a, T b) {
  check_div(a, b);
  return a / b;
}
template <typename T> T2C_DEVICE T imod(T a, T b) {
  check_div(a, b);
  return a % b;
}

T2C_DEVICE int abs(int x) { return x < 0 ? -x : x; }
T2C_DEVICE long long abs(long long x) { return x < 0 ? -x : x; }
T2C_DEVICE signed char abs(signed char x) { return (signed char)(x < 0 ? -x : x); }
T2C_DEVICE unsigned int abs(unsigned int x) { return x; }
T2C_DEVICE unsigned char abs(unsigned char x) { return x; }

// min/max: NaN-propagating order is not promised; ties keep the first operand.
// f32 and f64 take fminf/fmaxf (one FMNMX instead of a compare and a select; a
// NaN operand gives the other one, and of two zeros either sign may come back).
template <typename T> T2C_DEVICE T min(T a, T b) { return b < a ? b : a; }
template <typename T> T2C_DEVICE T max(T a, T b) { return a < b ? b : a; }
T2C_DEVICE float min(float a, float b) { return fminf(a, b); }
T2C_DEVICE float max(float a, float b) { return fmaxf(a, b); }
T2C_DEVICE double min(double a, double b) { return ::fmin(a, b); }
T2C_DEVICE double max(double a, double b) { return ::fmax(a, b); }
#ifdef TILE2CU_SIM
// In sim mode an element of a writable tensor or a shared array is a
// t2c_sim::elem_ref<T>, not a T &: a template of two operands that deduces T
// from it is given the element's value (max_nan below too).
#define T2C_SIM_REF2_(name)                                                                              \
  template <typename T> T2C_DEVICE auto name(::t2c_sim::elem_ref<T> a, T b) { return name(a.get(), b); } \
  template <typename T> T2C_DEVICE auto name(T a, ::t2c_sim::elem_ref<T> b) { return name(a, b.get()); } \
  template <typename T> T2C_DEVICE auto name(::t2c_sim::elem_ref<T> a, ::t2c_sim::elem_ref<T> b) {       \
    return name(a.get(), b.get());                                                                        \
  }
T2C_SIM_REF2_(min)
T2C_SIM_REF2_(max)
T2C_SIM_REF2_(shlv)
T2C_SIM_REF2_(shrv)
T2C_SIM_REF2_(check_div)
T2C_SIM_REF2_(idiv)
T2C_SIM_REF2_(imod)
#endif

// ---- random numbers: rand, randn, randint(seed, off). Philox4x32-10 (Salmon,
// Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11),
// exactly as Random123's philox4x32 defines it: integer code only, so the GPU
// and the CPU backend give the same words bit for bit (tests/sim checks them
// against Random123's known-answer vectors).
struct Philox4x32 {
  unsigned w[4];
};
// The high 32 bits of a * b: __umulhi on the GPU, a 64-bit product elsewhere.
T2C_DEVICE unsigned mulhi32(unsigned a, unsigned b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return (unsigned)(((unsigned long long)a * b) >> 32);
#endif
}
// Division of a non-negative i32 n by a positive divisor d that a kernel fixes once
// (a size, or a product of sizes: kk / CI of a conv's k loop), where the translator
// divides in a loop: a multiply-high, an add and a shift (Granlund and Montgomery's
// round-up method, as PyTorch's IntDivider), not the ~20 instructions of a division by
// a register. With s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1 (below 2^32),
// n / d = (mulhi(n, m) + n) >> s for every n < 2^31 (the sum stays below 2^32). d = 0
// divides nothing (m = 0): the CPU backend reports the division, as t2c::idiv does.
struct FastDiv {
  int d;
  unsigned m;
  int s;
  T2C_DEVICE explicit FastDiv(int d_) : d(d_), m(0), s(0) {
    if (d_ <= 0) return;
#ifdef __CUDA_ARCH__
    s = 32 - __clz(d_ - 1);
#else
    while ((1ull << s) < (unsigned long long)d_) s++;
#endif
    m = (unsigned)(((1ull << 32) * ((1ull << s) - (unsigned long long)d_)) / (unsigned long long)d_ + 1);
  }
  T2C_DEVICE int div(int n) const {
    check_div(n, d);
    return (int)((mulhi32((unsigned)n, m) + (unsigned)n) >> s);
  }
  T2C_DEVICE int mod(int n) const { return n - div(n) * d; }
};

// Ten rounds on counter (c0, c1, c2, c3) with key (k0, k1); the key is bumped
// by the Weyl constants before rounds 2 to 10.
T2C_DEVICE Philox4x32 philox4x32_10(unsigned c0, unsigned c1, unsigned c2, unsigned c3, unsigned k0, unsigned k1) {
#pragma unroll
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const unsigned lo0 = 0xD2511F53u * c0, hi0 = mulhi32(0xD2511F53u, c0);
    const unsigned lo1 = 0xCD9E8D57u * c2, hi1 = mulhi32(0xCD9E8D57u, c2);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  Philox4x32 r = {{c0, c1, c2, c3}};
  return r;
}
// The words of element off: counter (off, 0, 0, 0), key (seed's low 32 bits,
// its high 32 bits). An i32 seed arrives sign-extended; an i32 off as its bits.
T2C_DEVICE Philox4x32 philox_at(long long seed, unsigned off) {
  const unsigned long long s = (unsigned long long)seed;
  return philox4x32_10(off, 0u, 0u, 0u, (unsigned)s, (unsigned)(s >> 32));
}
// w >> 8 as a float in [0, 1): 24 bits times 2^-24, both exact.
T2C_DEVICE float u01_24(unsigned w) { return (float)(w >> 8) * 5.9604644775390625e-08f; }
T2C_DEVICE unsigned randint(long long seed, unsigned off) { return philox_at(seed, off).w[0]; }
T2C_DEVICE float rand(long long seed, unsigned off) { return u01_24(philox_at(seed, off).w[0]); }
// Box-Muller on the first two words, in f32: u1 in (0, 1] keeps log finite.
// cos(2 pi u2) is cospi(2 u2): 2 u2 is exact, and cospif reduces its argument
// exactly, where cosf's path for huge arguments keeps a local array (a stack
// frame in every kernel that calls randn). logf, sqrtf and cospif are the
// GPU's (1, 0 and 1 ulp), or in the CPU backend the host's logf and sqrtf and
// cos(pi x) in double, rounded; so randn may differ between them by a few ulp;
// the words and rand never do.
#ifdef TILE2CU_SIM
T2C_DEVICE float cospi_(float x) { return (float)::cos(3.14159265358979323846 * (double)x); }
#else
T2C_DEVICE float cospi_(float x) { return cospif(x); }
#endif
T2C_DEVICE float randn(long long seed, unsigned off) {
  const Philox4x32 p = philox_at(seed, off);
  const float u1 = (float)((p.w[0] >> 8) + 1u) * 5.9604644775390625e-08f;
  const float u2 = u01_24(p.w[1]);
  return sqrtf(-2.0f * logf(u1)) * cospi_(2.0f * u2);
}

// ---- warp folds: every lane of each run of W lanes gets the run's result.
// W is a power of two <= 32; the runs are aligned (lanes k*W .. k*W+W-1).
// With a stride S (a power of two, W * S <= 32), a run is W lanes S apart
// (lanes j, j+S, .., j+(W-1)*S of each aligned group of W * S): a column's
// lanes in a layout of S lanes across the columns.
template <int W, int S = 1, typename T> T2C_DEVICE T fold_sum(T v) {
#pragma unroll
  for (int off = W / 2 * S; off >= S && off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}
template <int W, int S = 1, typename T> T2C_DEVICE T fold_max(T v) {
#pragma unroll
  for (int off = W / 2 * S; off >= S && off > 0; off /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}
template <int W, int S = 1, typename T> T2C_DEVICE T fold_min(T v) {
#pragma unroll
  for (int off = W / 2 * S; off >= S && off > 0; off /= 2) v = min(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}
#ifdef TILE2CU_SIM
// A fold of a tensor element folds its value (the fold assigns to v).
template <int W, int S = 1, typename T> T2C_DEVICE T fold_sum(::t2c_sim::elem_ref<T> v) { return fold_sum<W, S>(v.get()); }
template <int W, int S = 1, typename T> T2C_DEVICE T fold_max(::t2c_sim::elem_ref<T> v) { return fold_max<W, S>(v.get()); }
template <int W, int S = 1, typename T> T2C_DEVICE T fold_min(::t2c_sim::elem_ref<T> v) { return fold_min<W, S>(v.get()); }
#endif

// ---- NaN: x != x, which only a NaN is; false for integer types.
template <typename T> T2C_DEVICE bool is_nan(T) { return false; }
T2C_DEVICE bool is_nan(float x) { return x != x; }
T2C_DEVICE bool is_nan(double x) { return x != x; }

// ---- arg-reductions (rowargmax, colargmin, ...) fold (value, index) pairs in
// the order where NaN is greater than every number (NaNs equal to each other)
// and of equal values the smaller index comes first: argmax keeps the greatest
// pair, argmin the least. f16 and bf16 values are compared as f32.
// greatest<T>(): the greatest value of that order (NaN for floats), which
// loses every argmin; lowest<T>() loses every argmax.
template <typename T> T2C_DEVICE T greatest() { return highest<T>(); }
template <> T2C_DEVICE float greatest<float>() { return __int_as_float(0x7fffffff); }
template <> T2C_DEVICE double greatest<double>() { return __longlong_as_double(0x7fffffffffffffffLL); }
// Whether (w, j) wins over (v, i): MAX for argmax, else argmin.
template <bool MAX, typename T> T2C_DEVICE bool arg_wins(T w, int j, T v, int i) {
  const bool wn = is_nan(w), vn = is_nan(v);
  if (wn != vn) return MAX ? wn : vn;
  if (!wn && w != v) return MAX ? v < w : w < v;
  return j < i;
}
template <typename T> T2C_DEVICE void argmax_step(T &v, int &i, T w, int j) {
  if (arg_wins<true>(w, j, v, i)) v = w, i = j;
}
template <typename T> T2C_DEVICE void argmin_step(T &v, int &i, T w, int j) {
  if (arg_wins<false>(w, j, v, i)) v = w, i = j;
}
// Every lane of each run of W lanes (S apart, as fold_sum) gets the run's winning pair.
template <int W, int S = 1, typename T> T2C_DEVICE void fold_argmax(T &v, int &i) {
#pragma unroll
  for (int off = W / 2 * S; off >= S && off > 0; off /= 2) {
    const T w = __shfl_xor_sync(0xffffffffu, v, off);
    const int j = __shfl_xor_sync(0xffffffffu, i, off);
    argmax_step(v, i, w, j);
  }
}
template <int W, int S = 1, typename T> T2C_DEVICE void fold_argmin(T &v, int &i) {
#pragma unroll
  for (int off = W / 2 * S; off >= S && off > 0; off /= 2) {
    const T w = __shfl_xor_sync(0xffffffffu, v, off);
    const int j = __shfl_xor_sync(0xffffffffu, i, off);
    argmin_step(v, i, w, j);
  }
}

// ---- scans (cumsum, cumprod, cummax): the operators, as functions and as
// objects for scan_lanes. cummax propagates NaN: from the first NaN on, every
// element is NaN (as NumPy's maximum.accumulate).
template <typename T> T2C_DEVICE T max_nan(T a, T b) { return is_nan(a) ? a : is_nan(b) ? b : a < b ? b : a; }
#ifdef TILE2CU_SIM
// A shared array's element is an elem_ref too (the shared-memory race detector).
template <typename T> T2C_DEVICE void argmax_step(T &v, int &i, ::t2c_sim::elem_ref<T> w, int j) { argmax_step(v, i, w.get(), j); }
template <typename T> T2C_DEVICE void argmin_step(T &v, int &i, ::t2c_sim::elem_ref<T> w, int j) { argmin_step(v, i, w.get(), j); }
T2C_SIM_REF2_(max_nan)
#undef T2C_SIM_REF2_
#endif
struct Add {
  template <typename T> T2C_DEVICE T operator()(T a, T b) const { return a + b; }
};
struct Mul {
  template <typename T> T2C_DEVICE T operator()(T a, T b) const { return a * b; }
};
struct MaxNan {
  template <typename T> T2C_DEVICE T operator()(T a, T b) const { return max_nan(a, b); }
};
// A scan over the N lanes of a line that lie S lanes apart (N * S <= 32, both
// powers of two; a line is the lanes of equal lane % S in one run of N * S):
// v becomes op over the lanes before this one in its line (id for the first),
// and the result is op over all N. A row of lc lanes is <lc, 1>, a column
// across lr rows of lanes <lr, lc>.
template <int N, int S, typename T, typename Op> T2C_DEVICE T scan_lanes(int lane, T &v, Op op, T id) {
  const int k = lane / S % N;
  T x = v;
#pragma unroll
  for (int off = 1; off < N; off *= 2) {
    const T y = __shfl_up_sync(0xffffffffu, x, off * S);
    if (k >= off) x = op(y, x);
  }
  const T total = __shfl_sync(0xffffffffu, x, lane + (N - 1 - k) * S);
  const T before = __shfl_up_sync(0xffffffffu, x, S);
  v = k == 0 ? id : before;
  return total;
}

// ---- one thread's run of N contiguous elements of a tensor, moved by one
// access (ld.global.v4 / st.global.v4 for 16 bytes). The address must be
// aligned to the run's size: the kernel tests it at entry (t2c::aligned) and
// takes its general body otherwise.
template <typename T, int N> struct alignas(sizeof(T) * N) Vec {
  T v[N];
};
#ifdef TILE2CU_SIM
template <typename T> T2C_DEVICE bool aligned(const ::t2c_sim::tensor<T> &t, int bytes) {
  return reinterpret_cast<uintptr_t>(t.data()) % (uintptr_t)bytes == 0;
}
// Every element of the run is checked against the tensor, and so is the
// alignment, of the index within the tensor and of the real address.
template <typename T> T2C_DEVICE void check_run_(::t2c_sim::checked_ptr<T> g, int n, bool read) {
  for (int k = 0; k < n; k++)
    if (g.bad(k)) ::t2c_sim::tensor_oob(g.t, g.i + k, read);
  const unsigned long long bytes = sizeof(T) * (unsigned long long)n;
  if ((g.i * sizeof(T)) % bytes != 0 || reinterpret_cast<uintptr_t>(g.base + g.i) % bytes != 0)
    ::t2c_sim::failf("misaligned %llu-byte %s of tensor '%s' at index %lld", bytes, read ? "load" : "store",
                     g.t && g.t->name ? g.t->name : "?", g.i);
}
template <int N, typename T>
T2C_DEVICE Vec<typename std::remove_cv<T>::type, N> ldg_vec(::t2c_sim::checked_ptr<T> g) {
  check_run_(g, N, true);
  g.note(N, ::t2c_sim::RACE_READ);
  Vec<typename std::remove_cv<T>::type, N> w;
  __builtin_memcpy(static_cast<void *>(&w), static_cast<const void *>(g.base + g.i), sizeof w);
  return w;
}
template <int N, typename T> T2C_DEVICE void stg_vec(::t2c_sim::checked_ptr<T> g, const Vec<T, N> &w) {
  check_run_(g, N, false);
  g.note(N, ::t2c_sim::RACE_WRITE);
  __builtin_memcpy(static_cast<void *>(g.base + g.i), static_cast<const void *>(&w), sizeof w);
}
#else
template <typename T> T2C_DEVICE bool aligned(const T *p, int bytes) {
  return reinterpret_cast<unsigned long long>(p) % (unsigned long long)bytes == 0;
}
#endif
// A run of 4, 8 or 16 bytes stored as 32-bit words by one st.v4, st.v2 or st (inline
// PTX): a Vec of __half (or float) assigned as a struct, through a uint4 cast in place
// or a make_uint4 of its words, was split by NVVM into 2- and 4-byte stores where
// nothing guarded it (a 64 x 64 f16 copy: 0 STG.128, 24 STG.U16, 4 STG.32 a thread).
// Loads keep the plain form, which gives LDG.128 / LDS.128.
template <typename T, int N> union VecWords_ {
  Vec<T, N> v;
  unsigned u[sizeof(Vec<T, N>) >= 4 ? sizeof(Vec<T, N>) / 4 : 1];
};
// A run of N 1- or 2-byte elements loaded as 32-bit words, for packed registers: a
// Vec of bytes taken apart into words again cost ptxas a PRMT and LOP3 a byte.
#ifdef TILE2CU_SIM
template <int N, typename T>
T2C_DEVICE Vec<unsigned, N * sizeof(T) / 4> ldg_words(::t2c_sim::checked_ptr<T> g) {
  const Vec<typename std::remove_cv<T>::type, N> v = ldg_vec<N>(g);
  Vec<unsigned, N * sizeof(T) / 4> w;
  __builtin_memcpy(static_cast<void *>(&w), static_cast<const void *>(&v), sizeof w);
  return w;
}
#else
template <int N, typename T> T2C_DEVICE Vec<unsigned, N * sizeof(T) / 4> ldg_words(const T *p) {
  return *reinterpret_cast<const Vec<unsigned, N * sizeof(T) / 4> *>(p);
}
#endif

// ---- packed registers: a value of 1- or 2-byte elements that lives across loop
// iterations (a @pipeline ring's slots) is held as 32-bit words, 4 (2) elements a
// word, as ptxas holds one element a register otherwise (an int8 weight ring of 32
// bytes a thread took 32 registers, not 8). part reads element k of word w;
// part_ref(w, k) = v writes it.
#ifdef TILE2CU_SIM
#define T2C_PART_COPY_(d, s, n) __builtin_memcpy(static_cast<void *>(d), static_cast<const void *>(s), n)
#else
#define T2C_PART_COPY_(d, s, n) memcpy(static_cast<void *>(d), static_cast<const void *>(s), n) /* (NVRTC has no __builtin_memcpy) */
#endif
template <int B> struct PartBits_;
template <> struct PartBits_<1> { typedef unsigned char type; };
template <> struct PartBits_<2> { typedef unsigned short type; };
template <typename T> T2C_DEVICE T part(unsigned w, int k) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2, "packed registers hold 1- and 2-byte elements");
  const typename PartBits_<(int)sizeof(T)>::type u = (typename PartBits_<(int)sizeof(T)>::type)(w >> (8 * (int)sizeof(T) * k));
  T t;
  T2C_PART_COPY_(&t, &u, sizeof(T));
  return t;
}
// byte_perm(x, y, s) is __byte_perm (PTX prmt.b32, default mode): byte n of the result is
// byte s<4n+2:4n> of the eight bytes y:x, x's lowest first (the selectors used here have
// bit 3 of each nibble clear, where prmt's default mode would replicate the byte's sign).
T2C_DEVICE unsigned byte_perm(unsigned x, unsigned y, unsigned s) {
#ifdef TILE2CU_SIM
  const unsigned long long b = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int n = 0; n < 4; n++) r |= (unsigned)((b >> (8 * ((s >> (4 * n)) & 7u))) & 0xffu) << (8 * n);
  return r;
#else
  return __byte_perm(x, y, s);
#endif
}
// part_f32<T>(w, k): 8-bit element k of word w as f32, exactly: byte_perm puts the byte (its
// sign bit flipped for s8, so that it counts from -128) under the exponent of 2^23
// (0x4B000000: the float 2^23 + byte), and one add takes 2^23 (+ 128) off. A PRMT and an
// FADD an element, the word's XOR shared by its four, where cvt.rn.f32.s8 is an I2F, which
// sm_80 and sm_90 issue at a quarter of the FADD's rate (emit_tir.c, a ring's 8-bit slot
// converted where it is read).
template <typename T> T2C_DEVICE float part_f32(unsigned w, int k);
template <> T2C_DEVICE float part_f32<signed char>(unsigned w, int k) {
  return __int_as_float((int)byte_perm(w ^ 0x80808080u, 0x4B000000u, 0x7540u | (unsigned)k)) - 8388736.0f;
}
template <> T2C_DEVICE float part_f32<unsigned char>(unsigned w, int k) {
  return __int_as_float((int)byte_perm(w, 0x4B000000u, 0x7540u | (unsigned)k)) - 8388608.0f;
}
template <typename T> struct PartRef_ {
  unsigned &w;
  int k;
  T2C_DEVICE void operator=(const T &v) const {
    typename PartBits_<(int)sizeof(T)>::type u;
    T2C_PART_COPY_(&u, &v, sizeof(T));
    const int s = 8 * (int)sizeof(T) * k;
    const unsigned m = (sizeof(T) == 1 ? 0xffu : 0xffffu) << s;
    w = (w & ~m) | ((unsigned)u << s);
  }
};
template <typename T> T2C_DEVICE PartRef_<T> part_ref(unsigned &w, int k) { return PartRef_<T>{w, k}; }
#ifndef TILE2CU_SIM
template <int N, typename T> T2C_DEVICE Vec<T, N> ldg_vec(const T *p) {
  return *reinterpret_cast<const Vec<T, N> *>(p);
}
template <int N, typename T> T2C_DEVICE void stg_vec(T *p, const Vec<T, N> &w) {
  constexpr int B = (int)sizeof(Vec<T, N>);
  /* 16-byte runs of 2-, 4- and 8-byte elements, and 8- and 4-byte runs of 2-byte ones: the
   * plain form keeps 8-byte runs of 4-byte elements whole (an int8 GEMM's i32 pairs: 184
   * more address instructions through the asm), and 1-byte elements' words went through a
   * stack frame */
  if constexpr ((B == 16 && sizeof(T) >= 2) || (sizeof(T) == 2 && (B == 8 || B == 4))) {
    VecWords_<T, N> x;
    x.v = w;
    if constexpr (B == 16)
      asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(x.u[0]), "r"(x.u[1]), "r"(x.u[2]),
                   "r"(x.u[3]) : "memory");
    else if constexpr (B == 8)
      asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(x.u[0]), "r"(x.u[1]) : "memory");
    else
      asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(x.u[0]) : "memory");
  } else {
    *reinterpret_cast<Vec<T, N> *>(p) = w;
  }
}
#endif

// A run of N contiguous elements of a shared array, written by one access
// (st.shared.v4 for 16 bytes); the address must be aligned to the run's size.
template <int N, typename T> T2C_DEVICE void sts_vec(T *p, const Vec<T, N> &w) {
#ifdef TILE2CU_SIM
  if (reinterpret_cast<uintptr_t>(p) % sizeof w != 0)
    ::t2c_sim::failf("misaligned %d-byte shared store", (int)sizeof w);
  ::t2c_sim::shared_access(p, sizeof w, ::t2c_sim::RACE_WRITE);
  *reinterpret_cast<Vec<T, N> *>(p) = w;
#else
  constexpr int B = (int)sizeof(Vec<T, N>);
  if constexpr ((B == 16 && sizeof(T) >= 2) || (sizeof(T) == 2 && B == 8)) { /* as stg_vec */
    VecWords_<T, N> x;
    x.v = w;
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (B == 16)
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(x.u[0]), "r"(x.u[1]), "r"(x.u[2]),
                   "r"(x.u[3]) : "memory");
    else
      asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(a), "r"(x.u[0]), "r"(x.u[1]) : "memory");
  } else {
    *reinterpret_cast<Vec<T, N> *>(p) = w;
  }
#endif
}

// The same run, read by one access (ld.shared.v4 for 16 bytes).
template <int N, typename T> T2C_DEVICE Vec<T, N> lds_vec(const T *p) {
#ifdef TILE2CU_SIM
  if (reinterpret_cast<uintptr_t>(p) % sizeof(Vec<T, N>) != 0)
    ::t2c_sim::failf("misaligned %d-byte shared load", (int)sizeof(Vec<T, N>));
  ::t2c_sim::shared_access(p, sizeof(Vec<T, N>), ::t2c_sim::RACE_READ);
#endif
  return *reinterpret_cast<const Vec<T, N> *>(p);
}

// ---- atomics: atomic_add / atomic_max / atomic_min(X + i, v) update one tensor
// element atomically (the language's atomic_*() statements). The order between
// updates is unspecified; max and min of floats compare as the C operators do,
// except that -0.0 counts as less than 0.0, so that the result does not depend
// on that order. A NaN neither replaces nor is replaced.
#ifdef TILE2CU_SIM
// a before b: a < b, or -0.0 against 0.0
template <typename T> T2C_DEVICE bool atomic_before_(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) return a < b || (a == b && std::signbit(a) && !std::signbit(b));
  else return a < b;
}
// The CPU backend runs the blocks on two worker threads at once, so an update
// is a real atomic of the host (a compare-and-swap loop on the element's
// bytes); the element is checked against the tensor. Atomics go around the
// race detector (checked_ptr::note): they never race. T comes from the address
// alone: the value may be a shared array's element (an elem_ref).
template <typename T, typename F> T2C_DEVICE void atomic_update_(::t2c_sim::checked_ptr<T> g, F f) {
  if (g.bad(0)) ::t2c_sim::tensor_oob(g.t, g.i, false);
  T *p = g.base + g.i, old, nv;
  __atomic_load(p, &old, __ATOMIC_SEQ_CST);
  do
    nv = f(old);
  while (!__atomic_compare_exchange(p, &old, &nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}
template <typename T> T2C_DEVICE void atomic_add(::t2c_sim::checked_ptr<T> g, typename std::common_type<T>::type v) {
  atomic_update_(g, [v](T e) { return static_cast<T>(e + v); });
  if constexpr (std::is_same<T, double>::value) ::t2c_sim::float_atomic(g.t, g.i, v); /* the sum depends on the order */
  else if constexpr (!std::is_integral<T>::value) ::t2c_sim::float_atomic(g.t, g.i, static_cast<double>(static_cast<float>(v)));
}
template <typename T> T2C_DEVICE void atomic_max(::t2c_sim::checked_ptr<T> g, typename std::common_type<T>::type v) {
  atomic_update_(g, [v](T e) { return atomic_before_(e, v) ? v : e; });
}
// A run of N elements added at once (the GPU's float2/float4 and half2 atomics):
// aligned to the run's bytes as the instruction requires, each element an update
// of its own, as on the GPU.
template <int N, typename T> T2C_DEVICE void atomic_add_vec(::t2c_sim::checked_ptr<T> g, const Vec<T, N> &w) {
  check_run_(g, N, false);
  for (int k = 0; k < N; k++) atomic_add(g + k, w.v[k]);
}
template <typename T> T2C_DEVICE void atomic_min(::t2c_sim::checked_ptr<T> g, typename std::common_type<T>::type v) {
  atomic_update_(g, [v](T e) { return atomic_before_(v, e) ? v : e; });
}
#else
T2C_DEVICE void atomic_add(float *p, float v) { atomicAdd(p, v); }
T2C_DEVICE void atomic_add(double *p, double v) { atomicAdd(p, v); }
T2C_DEVICE void atomic_add(int *p, int v) { atomicAdd(p, v); }
T2C_DEVICE void atomic_add(unsigned *p, unsigned v) { atomicAdd(p, v); }
T2C_DEVICE void atomic_add(long long *p, long long v) {  // two's complement: the same bits
  atomicAdd(reinterpret_cast<unsigned long long *>(p), static_cast<unsigned long long>(v));
}
// f16 (sm_70 on) and bf16 (sm_90 on): red.global.add.noftz, which returns nothing
// (atomicAdd took a returning ATOM, and for bf16 a compare-and-swap loop through a
// generic address). The hardware has no 16-bit atomic of one element: ptxas makes a
// compare-and-swap loop on its word of the scalar form, but a global one.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
T2C_DEVICE void atomic_add(__half *p, __half v) {
  asm volatile("red.global.add.noftz.f16 [%0], %1;" ::"l"(p), "h"(__half_as_ushort(v)) : "memory");
}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
T2C_DEVICE void atomic_add(__nv_bfloat16 *p, __nv_bfloat16 v) {
  asm volatile("red.global.add.noftz.bf16 [%0], %1;" ::"l"(p), "h"(__bfloat16_as_ushort(v)) : "memory");
}
#elif __CUDA_ARCH__ >= 800
T2C_DEVICE void atomic_add(__nv_bfloat16 *p, __nv_bfloat16 v) { atomicAdd(p, v); }
#endif
// A thread's run of a float atomic_add in one update of its elements (each element
// atomic on its own; layout.c atomic_run chooses where): f16 pairs (sm_70 on) and bf16
// pairs (sm_80 on, atomicAdd of __nv_bfloat162 before sm_90), and 16-bit runs of 4 and 8
// (red.global.add.noftz.v2/v4.f16x2 and .bf16x2, sm_90 on: one instruction for 16
// bytes); f32 pairs and quads (float2 and float4: red.global.v2/v4.f32, sm_90 on).
// p is aligned to the run (the kernel's fast body tests it).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
template <int N> T2C_DEVICE void atomic_add_vec(float *p, const Vec<float, N> &w) {
  static_assert(N == 2 || N == 4, "f32 atomic runs are of 2 or 4");
  if constexpr (N == 2) atomicAdd(reinterpret_cast<float2 *>(p), make_float2(w.v[0], w.v[1]));
  else atomicAdd(reinterpret_cast<float4 *>(p), make_float4(w.v[0], w.v[1], w.v[2], w.v[3]));
}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
// runs of 2, 4 or 8 16-bit floats (H: __half, else __nv_bfloat16), as 1, 2 or 4 packed
// words (no <type_traits> under NVRTC: the caller says which type)
template <bool H, int N, typename T> T2C_DEVICE void red_add_16_(T *p, const Vec<T, N> &w) {
  static_assert(N == 2 || N == 4 || N == 8, "16-bit atomic runs are of 2, 4 or 8");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  static_assert(N == 2 && H, "before sm_90, 16-bit atomic runs are f16 pairs");
#endif
  VecWords_<T, N> x;
  x.v = w;
  if constexpr (N == 2) {
    if constexpr (H) asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(p), "r"(x.u[0]) : "memory");
    else asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(x.u[0]) : "memory");
  } else if constexpr (N == 4) {
    if constexpr (H) asm volatile("red.global.add.noftz.v2.f16x2 [%0], {%1, %2};" ::"l"(p), "r"(x.u[0]), "r"(x.u[1]) : "memory");
    else asm volatile("red.global.add.noftz.v2.bf16x2 [%0], {%1, %2};" ::"l"(p), "r"(x.u[0]), "r"(x.u[1]) : "memory");
  } else {
    if constexpr (H)
      asm volatile("red.global.add.noftz.v4.f16x2 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(x.u[0]), "r"(x.u[1]),
                   "r"(x.u[2]), "r"(x.u[3]) : "memory");
    else
      asm volatile("red.global.add.noftz.v4.bf16x2 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(x.u[0]), "r"(x.u[1]),
                   "r"(x.u[2]), "r"(x.u[3]) : "memory");
  }
}
template <int N> T2C_DEVICE void atomic_add_vec(__half *p, const Vec<__half, N> &w) { red_add_16_<true>(p, w); }
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
template <int N> T2C_DEVICE void atomic_add_vec(__nv_bfloat16 *p, const Vec<__nv_bfloat16, N> &w) { red_add_16_<false>(p, w); }
#elif __CUDA_ARCH__ >= 800
template <int N> T2C_DEVICE void atomic_add_vec(__nv_bfloat16 *p, const Vec<__nv_bfloat16, N> &w) {
  static_assert(N == 2, "bf16 atomic runs are pairs before sm_90");
  atomicAdd(reinterpret_cast<__nv_bfloat162 *>(p), __halves2bfloat162(w.v[0], w.v[1]));
}
#endif
T2C_DEVICE void atomic_max(int *p, int v) { atomicMax(p, v); }
T2C_DEVICE void atomic_max(unsigned *p, unsigned v) { atomicMax(p, v); }
T2C_DEVICE void atomic_max(long long *p, long long v) { atomicMax(p, v); }
T2C_DEVICE void atomic_min(int *p, int v) { atomicMin(p, v); }
T2C_DEVICE void atomic_min(unsigned *p, unsigned v) { atomicMin(p, v); }
T2C_DEVICE void atomic_min(long long *p, long long v) { atomicMin(p, v); }
// Floats: a compare-and-swap loop on the bits, which stops once the element is
// no longer to be replaced. Equal values with other bits are -0.0 and 0.0: the
// one with the sign bit is the lesser.
template <bool Max> T2C_DEVICE void atomic_cas_(float *p, float v) {
  unsigned *a = reinterpret_cast<unsigned *>(p);
  unsigned vb = __float_as_uint(v), old = *a, assumed;
  do {
    assumed = old;
    float cur = __uint_as_float(assumed);
    bool zero = cur == v && assumed != vb; /* -0.0 and 0.0 */
    if (!(Max ? cur < v || (zero && (assumed >> 31)) : v < cur || (zero && (vb >> 31)))) return;
    old = atomicCAS(a, assumed, vb);
  } while (old != assumed);
}
template <bool Max> T2C_DEVICE void atomic_cas_(double *p, double v) {
  unsigned long long *a = reinterpret_cast<unsigned long long *>(p);
  unsigned long long vb = (unsigned long long)__double_as_longlong(v), old = *a, assumed;
  do {
    assumed = old;
    double cur = __longlong_as_double((long long)assumed);
    bool zero = cur == v && assumed != vb;
    if (!(Max ? cur < v || (zero && (assumed >> 63)) : v < cur || (zero && (vb >> 63)))) return;
    old = atomicCAS(a, assumed, vb);
  } while (old != assumed);
}
T2C_DEVICE void atomic_max(float *p, float v) { atomic_cas_<true>(p, v); }
T2C_DEVICE void atomic_max(double *p, double v) { atomic_cas_<true>(p, v); }
T2C_DEVICE void atomic_min(float *p, float v) { atomic_cas_<false>(p, v); }
T2C_DEVICE void atomic_min(double *p, double v) { atomic_cas_<false>(p, v); }
#endif

// ---- tensor cores and cp.async (sm_80 and later).
// The translator emits these only for sm_80+; on older targets they compile
// and trap if reached. Fragment layouts are the PTX ISA's; in sim mode the
// CPU backend emulates each as a warp collective with the same semantics.
//
// Pack two b16 values into one .b32 (low half = first), and back.
T2C_DEVICE unsigned pack2(__half lo, __half hi) {
  return (unsigned)__half_raw(lo).x | (unsigned)__half_raw(hi).x << 16;
}
T2C_DEVICE unsigned pack2(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return (unsigned)__nv_bfloat16_raw(lo).x | (unsigned)__nv_bfloat16_raw(hi).x << 16;
}
// ---- 16-byte stores to a tensor, from 4 values of 4 bytes or 8 of 2 bytes.
T2C_DEVICE unsigned bits32(float x) { return __float_as_uint(x); }
T2C_DEVICE unsigned bits32(int x) { return (unsigned)x; }
T2C_DEVICE unsigned bits32(unsigned x) { return x; }
template <typename P> T2C_DEVICE void store16_words(P dst, unsigned w0, unsigned w1, unsigned w2, unsigned w3);
// (each value its own type: in sim mode a shared array's element is an elem_ref)
template <typename P, typename A, typename B, typename C, typename D>
T2C_DEVICE void store16(P dst, A a, B b, C c, D d) {
  store16_words(dst, bits32(a), bits32(b), bits32(c), bits32(d));
}
template <typename P, typename A, typename B, typename C, typename D, typename E, typename F, typename G, typename H>
T2C_DEVICE void store16(P dst, A a, B b, C c, D d, E e, F f, G g, H h) {
  store16_words(dst, pack2(a, b), pack2(c, d), pack2(e, f), pack2(g, h));
}
template <typename T> T2C_DEVICE T unpack_lo(unsigned x);
template <typename T> T2C_DEVICE T unpack_hi(unsigned x);
template <> T2C_DEVICE __half unpack_lo<__half>(unsigned x) {
  __half_raw r; r.x = (unsigned short)(x & 0xffffu); return __half(r);
}
template <> T2C_DEVICE __half unpack_hi<__half>(unsigned x) {
  __half_raw r; r.x = (unsigned short)(x >> 16); return __half(r);
}
template <> T2C_DEVICE __nv_bfloat16 unpack_lo<__nv_bfloat16>(unsigned x) {
  __nv_bfloat16_raw r; r.x = (unsigned short)(x & 0xffffu); return __nv_bfloat16(r);
}
template <> T2C_DEVICE __nv_bfloat16 unpack_hi<__nv_bfloat16>(unsigned x) {
  __nv_bfloat16_raw r; r.x = (unsigned short)(x >> 16); return __nv_bfloat16(r);
}

// ---- Hopper (sm_90a): wgmma, defined below for each backend.
// D (+)= A x B, m64nNk16, f32 accumulators d[N/2] in the wgmma D fragment
// layout; A and B from shared-memory descriptors (TA, TB: 1 for an MN-major
// operand), or A from registers (the m16n8k16 A fragment layout, a warp per
// 16 rows). accumulate false: D = A x B. Between wgmma_fence() and
// wgmma_wait<>() nothing may touch d.
template <int N, int TA = 0, int TB = 0>
T2C_DEVICE void wgmma_f16(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate = true);
template <int N, int TA = 0, int TB = 0>
T2C_DEVICE void wgmma_bf16(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate = true);
template <int N, int TB = 0>
T2C_DEVICE void wgmma_f16_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, bool accumulate = true);
template <int N, int TB = 0>
T2C_DEVICE void wgmma_bf16_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, bool accumulate = true);
// m64nNk32 with 8-bit operands, both K-major (no transpose exists for
// them) from shared-memory descriptors, a k32 step being 32 bytes as a k16
// step of 16-bit ones is: s8 x s8 (u8 x u8) into s32 accumulators, wrapping
// (no .satfinite), N 8, 16, 24, 32, then multiples of 16; e4m3 x e4m3 (e5m2
// x e5m2) into f32 ones, N a multiple of 8. d in the same D fragment layout.
template <int N> T2C_DEVICE void wgmma_i8(int (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate = true);
template <int N> T2C_DEVICE void wgmma_u8(int (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate = true);
template <int N>
T2C_DEVICE void wgmma_f8e4m3(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate = true);
template <int N>
T2C_DEVICE void wgmma_f8e5m2(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate = true);
#ifdef TILE2CU_SIM
T2C_DEVICE void mma_16816_sim_(int op, float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                               const unsigned (&b)[2]) {
  ::t2c_sim::MmaIn in = {{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {d0, d1, d2, d3}};
  float d[4];
  ::t2c_sim::warp_xop(op, 0, &in, d, __FILE__, __LINE__);
  d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3];
}
// D = A x B + D for one m16n8k16 tile; f16 (or bf16) operands, f32 accumulators.
T2C_DEVICE void mma_16816_f16(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                              const unsigned (&b)[2]) {
  mma_16816_sim_(::t2c_sim::OP_MMA_F16, d0, d1, d2, d3, a, b);
}
T2C_DEVICE void mma_16816_bf16(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                               const unsigned (&b)[2]) {
  mma_16816_sim_(::t2c_sim::OP_MMA_BF16, d0, d1, d2, d3, a, b);
}
// D = A x B + D for one m16n8k32 tile; s8 operands (four per register), s32
// accumulators (wrapping, no .satfinite).
T2C_DEVICE void mma_16832_i8(int &d0, int &d1, int &d2, int &d3, const unsigned (&a)[4], const unsigned (&b)[2]) {
  ::t2c_sim::MmaInI in = {{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {d0, d1, d2, d3}};
  int d[4];
  ::t2c_sim::warp_xop(::t2c_sim::OP_MMA_S8, 0, &in, d, __FILE__, __LINE__);
  d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3];
}
// D = A x B + D for one m16n8k32 tile; e4m3 (or e5m2) operands, four per
// register, f32 accumulators (sm_89 and later).
T2C_DEVICE void mma_16832_f8e4m3(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                                 const unsigned (&b)[2]) {
  mma_16816_sim_(::t2c_sim::OP_MMA_E4M3, d0, d1, d2, d3, a, b);
}
T2C_DEVICE void mma_16832_f8e5m2(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                                 const unsigned (&b)[2]) {
  mma_16816_sim_(::t2c_sim::OP_MMA_E5M2, d0, d1, d2, d3, a, b);
}
// ldmatrix.sync.aligned.m8n8.{x4,x2}{.trans}.shared.b16: each lane passes the
// shared address of the row it provides (lane 8*i + r: row r of matrix i).
T2C_DEVICE void ldmatrix_x4(unsigned (&r)[4], const void *row) {
  ::t2c_sim::warp_xop(::t2c_sim::OP_LDMATRIX, 4, &row, r, __FILE__, __LINE__);
}
T2C_DEVICE void ldmatrix_x2(unsigned (&r)[2], const void *row) {
  ::t2c_sim::warp_xop(::t2c_sim::OP_LDMATRIX, 2, &row, r, __FILE__, __LINE__);
}
T2C_DEVICE void ldmatrix_x4_trans(unsigned (&r)[4], const void *row) {
  ::t2c_sim::warp_xop(::t2c_sim::OP_LDMATRIX_T, 4, &row, r, __FILE__, __LINE__);
}
T2C_DEVICE void ldmatrix_x2_trans(unsigned (&r)[2], const void *row) {
  ::t2c_sim::warp_xop(::t2c_sim::OP_LDMATRIX_T, 2, &row, r, __FILE__, __LINE__);
}
// cp.async: bytes_valid bytes from global, the rest of the 16 (4) zeros. The
// source is `X + i` on a tensor (checked), or a raw pointer (unchecked).
template <typename T> T2C_DEVICE void cp_async_16(void *smem, ::t2c_sim::checked_ptr<T> gmem, int bytes_valid) {
  ::t2c_sim::cp_async_from(smem, gmem, 16, bytes_valid);
}
template <typename T> T2C_DEVICE void cp_async_8(void *smem, ::t2c_sim::checked_ptr<T> gmem, int bytes_valid) {
  ::t2c_sim::cp_async_from(smem, gmem, 8, bytes_valid);
}
template <typename T> T2C_DEVICE void cp_async_4(void *smem, ::t2c_sim::checked_ptr<T> gmem, int bytes_valid) {
  ::t2c_sim::cp_async_from(smem, gmem, 4, bytes_valid);
}
template <typename T> T2C_DEVICE void cp_async_16(void *smem, const ::t2c_sim::tensor<T> &gmem, int bytes_valid) {
  ::t2c_sim::cp_async_from(smem, gmem + 0, 16, bytes_valid);  // a bare tensor is X + 0
}
template <typename T> T2C_DEVICE void cp_async_8(void *smem, const ::t2c_sim::tensor<T> &gmem, int bytes_valid) {
  ::t2c_sim::cp_async_from(smem, gmem + 0, 8, bytes_valid);
}
template <typename T> T2C_DEVICE void cp_async_4(void *smem, const ::t2c_sim::tensor<T> &gmem, int bytes_valid) {
  ::t2c_sim::cp_async_from(smem, gmem + 0, 4, bytes_valid);
}
T2C_DEVICE void cp_async_16(void *smem, const void *gmem, int bytes_valid) {
  ::t2c_sim::cp_async_raw(smem, gmem, 16, bytes_valid);
}
T2C_DEVICE void cp_async_8(void *smem, const void *gmem, int bytes_valid) {
  ::t2c_sim::cp_async_raw(smem, gmem, 8, bytes_valid);
}
T2C_DEVICE void cp_async_4(void *smem, const void *gmem, int bytes_valid) {
  ::t2c_sim::cp_async_raw(smem, gmem, 4, bytes_valid);
}
T2C_DEVICE void cp_async_commit() { ::t2c_sim::cp_async_commit(); }
// bar.sync / bar.arrive on named barrier id (1 .. 15) of count threads: the
// warpgroups of an attention loop issue their wgmma in turn (emit_tir.c).
T2C_DEVICE void bar_sync(unsigned id, unsigned count) { ::t2c_sim::named_barrier(id, count, true, __FILE__, __LINE__); }
T2C_DEVICE void bar_arrive(unsigned id, unsigned count) { ::t2c_sim::named_barrier(id, count, false, __FILE__, __LINE__); }
template <int N> T2C_DEVICE void cp_async_wait() {
  static_assert(N >= 0, "cp.async.wait_group takes N >= 0");
  ::t2c_sim::cp_async_wait(N);
}
// load16: 16 bytes from a tensor to shared memory in one access. The source
// is `X + i` on a read-only tensor; every element is checked, and so is the
// alignment a vector access needs.
template <typename T, typename U> T2C_DEVICE void load16(T *smem, ::t2c_sim::checked_ptr<U> g) {
  const long long n = 16 / (long long)sizeof(U);
  for (long long k = 0; k < n; k++)
    if (g.bad(k)) ::t2c_sim::tensor_oob(g.t, g.i + k, true);
  if ((g.i * (long long)sizeof(U)) % 16 != 0 || reinterpret_cast<unsigned long long>(smem) % 16 != 0)
    ::t2c_sim::failf("misaligned 16-byte load of tensor '%s' at index %lld", g.t->name, g.i);
  g.note(n, ::t2c_sim::RACE_READ);
  __builtin_memcpy(static_cast<void *>(smem), static_cast<const void *>(g.base + g.i), 16);
}
// store16 in sim mode: the destination is `Y + i` on a tensor; every element
// is checked, and so is the alignment.
template <typename P> T2C_DEVICE void store16_words(P g, unsigned w0, unsigned w1, unsigned w2, unsigned w3) {
  typedef typename std::remove_cv<typename std::remove_pointer<decltype(g.base)>::type>::type U;
  const long long n = 16 / (long long)sizeof(U);
  for (long long k = 0; k < n; k++)
    if (g.bad(k)) ::t2c_sim::tensor_oob(g.t, g.i + k, false);
  if ((g.i * (long long)sizeof(U)) % 16 != 0)
    ::t2c_sim::failf("misaligned 16-byte store to tensor '%s' at index %lld", g.t->name, g.i);
  g.note(n, ::t2c_sim::RACE_WRITE);
  const unsigned w[4] = {w0, w1, w2, w3};
  __builtin_memcpy(static_cast<void *>(g.base + g.i), w, 16);
}
// ---- Hopper (sm_90a): mbarrier, TMA, stmatrix, wgmma. The CPU backend's
// emulation is in runtime.cpp ("hopper"), tested on its own in
// tests/sim/hopper.c against the PTX ISA.
typedef ::T2cSimTensorMap TensorMap;
// The 32-, 64- or 128-byte swizzle of shared address addr (0: none).
T2C_DEVICE unsigned swizzle_offset(unsigned addr, unsigned swizzle_bytes) { return t2c_sim_swizzle(addr, swizzle_bytes); }
// The shared window address of p (cvta.to.shared), what descriptors hold.
T2C_DEVICE unsigned smem_u32(const void *p) { return ::t2c_sim::smem_window(p, 1, "shared address"); }
T2C_DEVICE void mbar_init(unsigned long long *bar, unsigned count) { ::t2c_sim::mbar_init(bar, count); }
T2C_DEVICE void fence_mbarrier_init() { ::t2c_sim::fence_mbarrier_init(); }
T2C_DEVICE void fence_proxy_async() { ::t2c_sim::fence_proxy_async(); }
T2C_DEVICE void mbar_arrive(unsigned long long *bar) { ::t2c_sim::mbar_arrive(bar, 0, true, "mbarrier.arrive"); }
T2C_DEVICE void mbar_arrive_expect_tx(unsigned long long *bar, unsigned bytes) {
  ::t2c_sim::mbar_arrive(bar, bytes, true, "mbarrier.arrive.expect_tx");
}
T2C_DEVICE void mbar_expect_tx(unsigned long long *bar, unsigned bytes) {
  ::t2c_sim::mbar_arrive(bar, bytes, false, "mbarrier.expect_tx");
}
// Returns once the phase of that parity has completed (true); a wait that
// can never complete fails the launch as a deadlock naming the barrier.
T2C_DEVICE bool mbar_try_wait_parity(unsigned long long *bar, unsigned parity) {
  return ::t2c_sim::mbar_wait(bar, parity, __FILE__, __LINE__);
}
T2C_DEVICE void mbar_wait_parity(unsigned long long *bar, unsigned parity) {
  ::t2c_sim::mbar_wait(bar, parity, __FILE__, __LINE__);
}
T2C_DEVICE void tma_load_2d(void *smem, const TensorMap *map, int c0, int c1, unsigned long long *bar) {
  const int c[2] = {c0, c1};
  ::t2c_sim::tma_load(smem, map, c, 2, bar);
}
T2C_DEVICE void tma_load_3d(void *smem, const TensorMap *map, int c0, int c1, int c2, unsigned long long *bar) {
  const int c[3] = {c0, c1, c2};
  ::t2c_sim::tma_load(smem, map, c, 3, bar);
}
T2C_DEVICE void tma_load_4d(void *smem, const TensorMap *map, int c0, int c1, int c2, int c3, unsigned long long *bar) {
  const int c[4] = {c0, c1, c2, c3};
  ::t2c_sim::tma_load(smem, map, c, 4, bar);
}
T2C_DEVICE void tma_store_2d(const TensorMap *map, int c0, int c1, const void *smem) {
  const int c[2] = {c0, c1};
  ::t2c_sim::tma_store(map, c, 2, smem);
}
T2C_DEVICE void tma_store_3d(const TensorMap *map, int c0, int c1, int c2, const void *smem) {
  const int c[3] = {c0, c1, c2};
  ::t2c_sim::tma_store(map, c, 3, smem);
}
T2C_DEVICE void tma_store_4d(const TensorMap *map, int c0, int c1, int c2, int c3, const void *smem) {
  const int c[4] = {c0, c1, c2, c3};
  ::t2c_sim::tma_store(map, c, 4, smem);
}
// The tensor map a launcher passes for a row-major tensor of rank 2 to 4,
// rows x cols in its last two dims, read in boxes of box_rows x box_cols with
// a swz-byte swizzle (tile2cu's kernel
// parameters t2c_tmap_*): made when the tensor's base is 16-byte aligned and
// its rows a multiple of 16 bytes apart, zeros otherwise (the kernel reads it
// only in its fast body, whose entry test implies both; a use of a zeroed map
// fails the launch).
// A tensor of rank 3 or 4 gives outer dims d0, d1 (outermost first; 1 for
// rank 2, 3) and a box of one along them.
inline TensorMap tma_map(const T2cSimTensor *t, int rank, long long d0, long long d1, long long rows, long long cols,
                         int box_rows, int box_cols, int swz) {
  TensorMap m;
  __builtin_memset(&m, 0, sizeof m);
  if (!t || (unsigned long long)(size_t)t->data % 16 || (cols * t->elem_bytes) % 16) return m;
  const unsigned long long dims[4] = {(unsigned long long)cols, (unsigned long long)rows,
                                      (unsigned long long)(rank == 4 ? d1 : d0), (unsigned long long)d0};
  const unsigned long long row = (unsigned long long)(cols * t->elem_bytes);
  const unsigned long long strides[3] = {row, row * dims[1], row * dims[1] * dims[2]};
  const unsigned box[4] = {(unsigned)box_cols, (unsigned)box_rows, 1, 1};
  char err[256];
  if (t2c_sim_tensor_map_encode(&m, t->elem_bytes, rank, t->data, dims, strides, box, swz, t, err, sizeof err) != 0)
    ::t2c_sim::failf("tile2cu's tensor map of tensor '%s': %s", t->name ? t->name : "?", err);
  return m;
}
T2C_DEVICE void tma_store_commit() { ::t2c_sim::bulk_commit(); }
template <int N> T2C_DEVICE void tma_store_wait_read() { ::t2c_sim::bulk_wait(N, true); }
template <int N> T2C_DEVICE void tma_store_wait() { ::t2c_sim::bulk_wait(N, false); }
T2C_DEVICE void stmatrix_sim_(int op, int n, void *row, unsigned r0, unsigned r1, unsigned r2, unsigned r3) {
  ::t2c_sim::StmIn in = {row, {r0, r1, r2, r3}};
  ::t2c_sim::warp_xop(op, n, &in, nullptr, __FILE__, __LINE__);
}
T2C_DEVICE void stmatrix_x1(void *row, unsigned r0) { stmatrix_sim_(::t2c_sim::OP_STMATRIX, 1, row, r0, 0, 0, 0); }
T2C_DEVICE void stmatrix_x2(void *row, const unsigned (&r)[2]) {
  stmatrix_sim_(::t2c_sim::OP_STMATRIX, 2, row, r[0], r[1], 0, 0);
}
T2C_DEVICE void stmatrix_x4(void *row, const unsigned (&r)[4]) {
  stmatrix_sim_(::t2c_sim::OP_STMATRIX, 4, row, r[0], r[1], r[2], r[3]);
}
T2C_DEVICE void stmatrix_x1_trans(void *row, unsigned r0) { stmatrix_sim_(::t2c_sim::OP_STMATRIX_T, 1, row, r0, 0, 0, 0); }
T2C_DEVICE void stmatrix_x2_trans(void *row, const unsigned (&r)[2]) {
  stmatrix_sim_(::t2c_sim::OP_STMATRIX_T, 2, row, r[0], r[1], 0, 0);
}
T2C_DEVICE void stmatrix_x4_trans(void *row, const unsigned (&r)[4]) {
  stmatrix_sim_(::t2c_sim::OP_STMATRIX_T, 4, row, r[0], r[1], r[2], r[3]);
}
T2C_DEVICE void wgmma_fence() { ::t2c_sim::warpgroup_op(::t2c_sim::WG_FENCE, 0, nullptr, __FILE__, __LINE__); }
T2C_DEVICE void wgmma_commit() { ::t2c_sim::warpgroup_op(::t2c_sim::WG_COMMIT, 0, nullptr, __FILE__, __LINE__); }
template <int N> T2C_DEVICE void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  ::t2c_sim::warpgroup_op(::t2c_sim::WG_WAIT, N, nullptr, __FILE__, __LINE__);
}
// The CPU backend calls each wgmma in program order: nothing to pin.
template <typename T, int N> T2C_DEVICE void wgmma_fence_operand(T (&)[N]) {}
// TY: 0 f16, 1 bf16, 2 s8, 3 u8, 4 e4m3, 5 e5m2 (WgmmaIn::ty).
template <int N, int TA, int TB, int TY>
T2C_DEVICE void wgmma_sim_(float (&d)[N / 2], unsigned long long da, const unsigned *a, unsigned long long db,
                           bool accumulate) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk16/k32: N is 8..256, a multiple of 8");
  static_assert(!(TY == 2 || TY == 3) || N <= 32 || N % 16 == 0,
                "wgmma m64nNk32 s8/u8: N is 8, 16, 24, 32, then a multiple of 16");
  static_assert((TA == 0 || TA == 1) && (TB == 0 || TB == 1), "the transposes are 0 or 1");
  ::t2c_sim::WgmmaIn in = {N, TY, TA, TB, accumulate ? 1 : 0, da, db, a, d};
  ::t2c_sim::warpgroup_op(::t2c_sim::WG_MMA, 0, &in, __FILE__, __LINE__);
}
template <int N, int TA, int TB>
T2C_DEVICE void wgmma_f16(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_sim_<N, TA, TB, 0>(d, da, nullptr, db, accumulate);
}
template <int N, int TA, int TB>
T2C_DEVICE void wgmma_bf16(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_sim_<N, TA, TB, 1>(d, da, nullptr, db, accumulate);
}
template <int N, int TB>
T2C_DEVICE void wgmma_f16_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, bool accumulate) {
  wgmma_sim_<N, 0, TB, 0>(d, 0, a, db, accumulate);
}
template <int N, int TB>
T2C_DEVICE void wgmma_bf16_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, bool accumulate) {
  wgmma_sim_<N, 0, TB, 1>(d, 0, a, db, accumulate);
}
// The s32 accumulators travel as the f32 array they are bit-copied into
// and out of (runtime.cpp never converts them).
template <int N> T2C_DEVICE void wgmma_i8(int (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_sim_<N, 0, 0, 2>(reinterpret_cast<float(&)[N / 2]>(d), da, nullptr, db, accumulate);
}
template <int N> T2C_DEVICE void wgmma_u8(int (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_sim_<N, 0, 0, 3>(reinterpret_cast<float(&)[N / 2]>(d), da, nullptr, db, accumulate);
}
template <int N>
T2C_DEVICE void wgmma_f8e4m3(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_sim_<N, 0, 0, 4>(d, da, nullptr, db, accumulate);
}
template <int N>
T2C_DEVICE void wgmma_f8e5m2(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_sim_<N, 0, 0, 5>(d, da, nullptr, db, accumulate);
}
#else  // CUDA
// load16: 16 bytes from a read-only tensor to shared memory in one access
// (ld.global.nc.v4); both addresses are 16-byte aligned.
template <typename T> T2C_DEVICE void load16(T *smem, const T *gmem) {
  *reinterpret_cast<uint4 *>(smem) = __ldg(reinterpret_cast<const uint4 *>(gmem));
}
template <typename P> T2C_DEVICE void store16_words(P dst, unsigned w0, unsigned w1, unsigned w2, unsigned w3) {
  *reinterpret_cast<uint4 *>(dst) = make_uint4(w0, w1, w2, w3);
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define T2C_HAS_TC_ 1
#else
#define T2C_HAS_TC_ 0
#endif
T2C_DEVICE unsigned smem_addr_(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// D = A x B + D for one m16n8k16 tile; f16 (or bf16) operands, f32 accumulators.
T2C_DEVICE void mma_16816_f16(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                              const unsigned (&b)[2]) {
#if T2C_HAS_TC_
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}
T2C_DEVICE void mma_16816_bf16(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                               const unsigned (&b)[2]) {
#if T2C_HAS_TC_
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}
// D = A x B + D for one m16n8k32 tile; s8 operands (four per register), s32
// accumulators (wrapping, no .satfinite).
T2C_DEVICE void mma_16832_i8(int &d0, int &d1, int &d2, int &d3, const unsigned (&a)[4], const unsigned (&b)[2]) {
#if T2C_HAS_TC_
  asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}
// D = A x B + D for one m16n8k32 tile; e4m3 (or e5m2) operands, four per
// register, f32 accumulators (sm_89 and later; a trap below).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define T2C_HAS_F8_TC_ 1
#else
#define T2C_HAS_F8_TC_ 0
#endif
T2C_DEVICE void mma_16832_f8e4m3(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                                 const unsigned (&b)[2]) {
#if T2C_HAS_F8_TC_
  asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}
T2C_DEVICE void mma_16832_f8e5m2(float &d0, float &d1, float &d2, float &d3, const unsigned (&a)[4],
                                 const unsigned (&b)[2]) {
#if T2C_HAS_F8_TC_
  asm("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}
// ldmatrix.sync.aligned.m8n8.{x4,x2}{.trans}.shared.b16: each lane passes the
// shared address of the row it provides (lane 8*i + r: row r of matrix i).
T2C_DEVICE void ldmatrix_x4(unsigned (&r)[4], const void *row) {
#if T2C_HAS_TC_
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr_(row)));
#else
  __trap();
  r[0] = r[1] = r[2] = r[3] = 0u;
#endif
}
T2C_DEVICE void ldmatrix_x2(unsigned (&r)[2], const void *row) {
#if T2C_HAS_TC_
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr_(row)));
#else
  __trap();
  r[0] = r[1] = 0u;
#endif
}
T2C_DEVICE void ldmatrix_x4_trans(unsigned (&r)[4], const void *row) {
#if T2C_HAS_TC_
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr_(row)));
#else
  __trap();
  r[0] = r[1] = r[2] = r[3] = 0u;
#endif
}
T2C_DEVICE void ldmatrix_x2_trans(unsigned (&r)[2], const void *row) {
#if T2C_HAS_TC_
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr_(row)));
#else
  __trap();
  r[0] = r[1] = 0u;
#endif
}
// cp.async: copies bytes_valid (0..16, 0..8, resp. 0..4) bytes from global to
// shared and zero-fills the rest. With bytes_valid == 0 nothing is read.
T2C_DEVICE void cp_async_16(void *smem, const void *gmem, int bytes_valid) {
#if T2C_HAS_TC_
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
               :: "r"(smem_addr_(smem)), "l"(gmem), "r"(bytes_valid) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void cp_async_8(void *smem, const void *gmem, int bytes_valid) {
#if T2C_HAS_TC_
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;"
               :: "r"(smem_addr_(smem)), "l"(gmem), "r"(bytes_valid) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void cp_async_4(void *smem, const void *gmem, int bytes_valid) {
#if T2C_HAS_TC_
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;"
               :: "r"(smem_addr_(smem)), "l"(gmem), "r"(bytes_valid) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void cp_async_commit() {
#if T2C_HAS_TC_
  asm volatile("cp.async.commit_group;" ::: "memory");
#else
  __trap();
#endif
}
// bar.sync / bar.arrive on named barrier id (1 .. 15; 0 is __syncthreads()'s)
// of count threads (a multiple of 32): bar.sync waits until count threads have
// arrived, bar.arrive only arrives.
T2C_DEVICE void bar_sync(unsigned id, unsigned count) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory"); }
T2C_DEVICE void bar_arrive(unsigned id, unsigned count) { asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count) : "memory"); }
// cp.async.wait_group N: all but the N most recent committed groups of this
// thread are complete (and visible to it; a barrier makes them visible to others).
template <int N> T2C_DEVICE void cp_async_wait() {
#if T2C_HAS_TC_
  asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
#else
  __trap();
#endif
}
#undef T2C_HAS_TC_
// ---- Hopper (sm_90a): mbarrier, TMA, stmatrix, wgmma, as inline PTX
// compiled only for sm_90a (nvcc -gencode arch=compute_90a,code=sm_90a,
// NVRTC -arch=sm_90a: __CUDA_ARCH_FEAT_SM90_ALL); elsewhere they trap.
// Addresses in the shared state space come from __cvta_generic_to_shared.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define T2C_HAS_SM90A_ 1
#else
#define T2C_HAS_SM90A_ 0
#endif
// A tensor map: the driver's CUtensorMap (cuda.h's layout: 16 opaque 64-bit
// words, 128-byte aligned as CUDA 13 declares it), made on the host by
// cuTensorMapEncodeTiled (tile2cu/tma_host.h) and passed to the kernel as a
// `const __grid_constant__ t2c::TensorMap` parameter; the TMA instructions
// take its generic address.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};
// The 32-, 64- or 128-byte swizzle of shared address addr (0: none): bits
// 4.. of the address XORed with bits 7.. (the CPU backend's t2c_sim_swizzle,
// repeated here; tests/sim/hopper_nvcc.cu checks it against the CUDA C++
// Programming Guide's table at compile time).
__host__ __device__ constexpr unsigned swizzle_offset(unsigned addr, unsigned swizzle_bytes) {
  return swizzle_bytes >= 32 ? addr ^ (((addr >> 7) & (swizzle_bytes / 16 - 1)) << 4) : addr;
}
T2C_DEVICE unsigned smem_u32(const void *p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
T2C_DEVICE void mbar_init(unsigned long long *bar, unsigned count) {
#if T2C_HAS_SM90A_
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(bar)), "r"(count) : "memory");
#else
  __trap();
#endif
}
// Makes mbarrier.init visible to the async proxy (TMA's complete_tx) and,
// with a barrier after it, to the other threads.
T2C_DEVICE void fence_mbarrier_init() {
#if T2C_HAS_SM90A_
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  __trap();
#endif
}
// Orders this thread's generic-proxy shared-memory accesses (st.shared,
// stmatrix) before later async-proxy ones (TMA store, wgmma operands).
T2C_DEVICE void fence_proxy_async() {
#if T2C_HAS_SM90A_
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void mbar_arrive(unsigned long long *bar) {
#if T2C_HAS_SM90A_
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}" :: "r"(smem_u32(bar)) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void mbar_arrive_expect_tx(unsigned long long *bar, unsigned bytes) {
#if T2C_HAS_SM90A_
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}"
               :: "r"(smem_u32(bar)), "r"(bytes) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void mbar_expect_tx(unsigned long long *bar, unsigned bytes) {
#if T2C_HAS_SM90A_
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(bar)), "r"(bytes) : "memory");
#else
  __trap();
#endif
}
// True when the phase of that parity has completed (it may time out with
// false: call it in a loop, or use mbar_wait_parity).
T2C_DEVICE bool mbar_try_wait_parity(unsigned long long *bar, unsigned parity) {
#if T2C_HAS_SM90A_
  unsigned ok;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.b32 %0, 1, 0, p;\n}"
               : "=r"(ok) : "r"(smem_u32(bar)), "r"(parity) : "memory");
  return ok != 0;
#else
  __trap();
  return false;
#endif
}
T2C_DEVICE void mbar_wait_parity(unsigned long long *bar, unsigned parity) {
  while (!mbar_try_wait_parity(bar, parity)) {
  }
}
// cp.async.bulk.tensor.2d: the box of map at (c0, c1) (c0 innermost) into
// shared memory at smem (128-byte aligned), swizzled as the map says;
// out-of-range elements are zeros; the bytes complete_tx on bar.
T2C_DEVICE void tma_load_2d(void *smem, const TensorMap *map, int c0, int c1, unsigned long long *bar) {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem_u32(smem)), "l"(map), "r"(c0), "r"(c1), "r"(smem_u32(bar)) : "memory");
#else
  __trap();
#endif
}
// The same for a map of rank 3 and 4 (a box of one along the outer dims).
T2C_DEVICE void tma_load_3d(void *smem, const TensorMap *map, int c0, int c1, int c2, unsigned long long *bar) {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
               :: "r"(smem_u32(smem)), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(bar)) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void tma_load_4d(void *smem, const TensorMap *map, int c0, int c1, int c2, int c3, unsigned long long *bar) {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
               :: "r"(smem_u32(smem)), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem_u32(bar)) : "memory");
#else
  __trap();
#endif
}
// The box at (c0, c1) from shared memory at smem to global memory; elements
// out of range are not written. Completes in bulk groups.
T2C_DEVICE void tma_store_2d(const TensorMap *map, int c0, int c1, const void *smem) {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
               :: "l"(map), "r"(c0), "r"(c1), "r"(smem_u32(smem)) : "memory");
#else
  __trap();
#endif
}
// The same for a map of rank 3 and 4 (a box of one along the outer dims).
T2C_DEVICE void tma_store_3d(const TensorMap *map, int c0, int c1, int c2, const void *smem) {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];"
               :: "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(smem)) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void tma_store_4d(const TensorMap *map, int c0, int c1, int c2, int c3, const void *smem) {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
               :: "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem_u32(smem)) : "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void tma_store_commit() {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
  __trap();
#endif
}
// All but the N most recent bulk groups have finished reading shared memory.
template <int N> T2C_DEVICE void tma_store_wait_read() {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
#else
  __trap();
#endif
}
// All but the N most recent bulk groups are complete (their writes done).
template <int N> T2C_DEVICE void tma_store_wait() {
#if T2C_HAS_SM90A_
  asm volatile("cp.async.bulk.wait_group %0;" :: "n"(N) : "memory");
#else
  __trap();
#endif
}
// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: lane 8*i + r
// gives the address of row r of matrix i; register i holds matrix i's
// elements in the ldmatrix fragment layout. Plain sm_90 has it too (PTX ISA:
// sm_90 or higher, no architecture-specific feature), so it is compiled for
// every __CUDA_ARCH__ >= 900 and traps below.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define T2C_STMATRIX_(shape, regs, ...) \
  asm volatile("stmatrix.sync.aligned.m8n8." shape ".shared.b16 [%0], " regs ";" :: "r"(smem_u32(row)), __VA_ARGS__ : "memory")
#else
#define T2C_STMATRIX_(shape, regs, ...) __trap()
#endif
T2C_DEVICE void stmatrix_x1(void *row, unsigned r0) { T2C_STMATRIX_("x1", "{%1}", "r"(r0)); }
T2C_DEVICE void stmatrix_x2(void *row, const unsigned (&r)[2]) { T2C_STMATRIX_("x2", "{%1, %2}", "r"(r[0]), "r"(r[1])); }
T2C_DEVICE void stmatrix_x4(void *row, const unsigned (&r)[4]) {
  T2C_STMATRIX_("x4", "{%1, %2, %3, %4}", "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
}
T2C_DEVICE void stmatrix_x1_trans(void *row, unsigned r0) { T2C_STMATRIX_("x1.trans", "{%1}", "r"(r0)); }
T2C_DEVICE void stmatrix_x2_trans(void *row, const unsigned (&r)[2]) {
  T2C_STMATRIX_("x2.trans", "{%1, %2}", "r"(r[0]), "r"(r[1]));
}
T2C_DEVICE void stmatrix_x4_trans(void *row, const unsigned (&r)[4]) {
  T2C_STMATRIX_("x4.trans", "{%1, %2, %3, %4}", "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
}
#undef T2C_STMATRIX_
T2C_DEVICE void wgmma_fence() {
#if T2C_HAS_SM90A_
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
  __trap();
#endif
}
T2C_DEVICE void wgmma_commit() {
#if T2C_HAS_SM90A_
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
  __trap();
#endif
}
template <int N> T2C_DEVICE void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
#if T2C_HAS_SM90A_
  asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
#else
  __trap();
#endif
}
// Pins a wgmma accumulator's registers at this point of the program: the
// compiler sees wgmma's inline PTX define them at issue, so without this it may
// move other reads and writes of them past wgmma_fence() or before
// wgmma_wait<>() (a wrong result, and ptxas serialising the wgmma). Called
// before the fence and after each wait that completes the accumulator.
template <int N> T2C_DEVICE void wgmma_fence_operand(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}
template <int N> T2C_DEVICE void wgmma_fence_operand(int (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+r"(d[i])::"memory");
}
// ---- generated by tools/gen_wgmma.py: wgmma.mma_async for N in 8 16 32 64 96 128 192 256
#define T2C_WGMMA_NS_(N) ((N) == 8 || (N) == 16 || (N) == 32 || (N) == 64 || (N) == 96 || (N) == 128 || (N) == 192 || (N) == 256)
#define T2C_WGMMA_SS_8(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n8k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3" \
               "}, %4, %5, p, 1, 1, %7, %8;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_8(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n8k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3" \
               "}, {%4, %5, %6, %7}, %8, p, 1, 1, %10;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_8(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n8k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3" \
               "}, %4, %5, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_8(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n8k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3" \
               "}, %4, %5, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_SS_16(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n16k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7" \
               "}, %8, %9, p, 1, 1, %11, %12;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_16(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n16k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7" \
               "}, {%8, %9, %10, %11}, %12, p, 1, 1, %14;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_16(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n16k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7" \
               "}, %8, %9, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_16(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n16k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7" \
               "}, %8, %9, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_SS_32(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n32k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
               "}, %16, %17, p, 1, 1, %19, %20;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_32(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n32k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
               "}, {%16, %17, %18, %19}, %20, p, 1, 1, %22;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_32(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n32k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
               "}, %16, %17, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
      "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_32(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n32k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
               "}, %16, %17, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_SS_64(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, %32, %33, p, 1, 1, %35, %36;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_64(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_64(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, %32, %33, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
      "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), \
      "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
      "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_64(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, %32, %33, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_SS_96(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n96k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
               "}, %48, %49, p, 1, 1, %51, %52;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_96(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n96k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
               "}, {%48, %49, %50, %51}, %52, p, 1, 1, %54;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_96(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n96k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
               "}, %48, %49, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
      "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), \
      "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
      "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), \
      "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), \
      "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_96(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n96k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
               "}, %48, %49, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_SS_128(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63" \
               "}, %64, %65, p, 1, 1, %67, %68;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_128(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63" \
               "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_128(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63" \
               "}, %64, %65, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
      "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), \
      "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
      "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), \
      "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), \
      "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), \
      "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), \
      "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_128(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63" \
               "}, %64, %65, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_SS_192(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n192k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95" \
               "}, %96, %97, p, 1, 1, %99, %100;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_192(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n192k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95" \
               "}, {%96, %97, %98, %99}, %100, p, 1, 1, %102;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_192(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n192k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95" \
               "}, %96, %97, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
      "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), \
      "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
      "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), \
      "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), \
      "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), \
      "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), \
      "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), \
      "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), \
      "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), \
      "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), \
      "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_192(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n192k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95" \
               "}, %96, %97, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_SS_256(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107," \
               "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122," \
               "%123, %124, %125, %126, %127" \
               "}, %128, %129, p, 1, 1, %131, %132;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "l"(da), "l"(db), "r"(scale_d), "n"(TA), "n"(TB))
#define T2C_WGMMA_RS_256(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107," \
               "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122," \
               "%123, %124, %125, %126, %127" \
               "}, {%128, %129, %130, %131}, %132, p, 1, 1, %134;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB))
#define T2C_WGMMA_S8_256(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n256k32.s32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107," \
               "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122," \
               "%123, %124, %125, %126, %127" \
               "}, %128, %129, p;\n}\n" \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), \
      "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), \
      "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
      "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), \
      "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), \
      "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), \
      "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), \
      "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), \
      "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), \
      "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), \
      "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), \
      "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), \
      "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]), \
      "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), \
      "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), \
      "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_F8_256(TY) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n256k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19," \
               "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37," \
               "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55," \
               "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73," \
               "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91," \
               "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107," \
               "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122," \
               "%123, %124, %125, %126, %127" \
               "}, %128, %129, p, 1, 1;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "l"(da), "l"(db), "r"(scale_d))
#define T2C_WGMMA_DISPATCH_(FORM, N, TY) \
  if constexpr (N == 8) T2C_WGMMA_##FORM##_8(TY); \
  else if constexpr (N == 16) T2C_WGMMA_##FORM##_16(TY); \
  else if constexpr (N == 32) T2C_WGMMA_##FORM##_32(TY); \
  else if constexpr (N == 64) T2C_WGMMA_##FORM##_64(TY); \
  else if constexpr (N == 96) T2C_WGMMA_##FORM##_96(TY); \
  else if constexpr (N == 128) T2C_WGMMA_##FORM##_128(TY); \
  else if constexpr (N == 192) T2C_WGMMA_##FORM##_192(TY); \
  else if constexpr (N == 256) T2C_WGMMA_##FORM##_256(TY); \
  else static_assert(N < 0, "no wgmma for this N")
// ---- end of generated code
template <int N, int TA, int TB, int BF>
T2C_DEVICE void wgmma_ss_(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  static_assert(T2C_WGMMA_NS_(N), "wgmma m64nNk16 on the GPU: N is 8, 16, 32, 64, 96, 128, 192 or 256");
  static_assert((TA == 0 || TA == 1) && (TB == 0 || TB == 1), "the transposes are 0 or 1");
#if T2C_HAS_SM90A_
  const unsigned scale_d = accumulate ? 1u : 0u;
  if constexpr (BF) {
    T2C_WGMMA_DISPATCH_(SS, N, "bf16");
  } else {
    T2C_WGMMA_DISPATCH_(SS, N, "f16");
  }
#else
  __trap();
#endif
}
template <int N, int TB, int BF>
T2C_DEVICE void wgmma_rs_(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, bool accumulate) {
  static_assert(T2C_WGMMA_NS_(N), "wgmma m64nNk16 on the GPU: N is 8, 16, 32, 64, 96, 128, 192 or 256");
  static_assert(TB == 0 || TB == 1, "the transpose is 0 or 1");
#if T2C_HAS_SM90A_
  const unsigned scale_d = accumulate ? 1u : 0u;
  if constexpr (BF) {
    T2C_WGMMA_DISPATCH_(RS, N, "bf16");
  } else {
    T2C_WGMMA_DISPATCH_(RS, N, "f16");
  }
#else
  __trap();
#endif
}
template <int N, int TA, int TB>
T2C_DEVICE void wgmma_f16(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_ss_<N, TA, TB, 0>(d, da, db, accumulate);
}
template <int N, int TA, int TB>
T2C_DEVICE void wgmma_bf16(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_ss_<N, TA, TB, 1>(d, da, db, accumulate);
}
template <int N, int TB>
T2C_DEVICE void wgmma_f16_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, bool accumulate) {
  wgmma_rs_<N, TB, 0>(d, a, db, accumulate);
}
template <int N, int TB>
T2C_DEVICE void wgmma_bf16_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, bool accumulate) {
  wgmma_rs_<N, TB, 1>(d, a, db, accumulate);
}
// 8-bit operands, k32 (TY: 2 s8, 3 u8, 4 e4m3, 5 e5m2).
template <int N, int TY, typename Acc>
T2C_DEVICE void wgmma_k32_(Acc (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  static_assert(T2C_WGMMA_NS_(N), "wgmma m64nNk32 on the GPU: N is 8, 16, 32, 64, 96, 128, 192 or 256");
#if T2C_HAS_SM90A_
  const unsigned scale_d = accumulate ? 1u : 0u;
  if constexpr (TY == 2) {
    T2C_WGMMA_DISPATCH_(S8, N, "s8");
  } else if constexpr (TY == 3) {
    T2C_WGMMA_DISPATCH_(S8, N, "u8");
  } else if constexpr (TY == 4) {
    T2C_WGMMA_DISPATCH_(F8, N, "e4m3");
  } else {
    T2C_WGMMA_DISPATCH_(F8, N, "e5m2");
  }
#else
  __trap();
#endif
}
template <int N> T2C_DEVICE void wgmma_i8(int (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_k32_<N, 2>(d, da, db, accumulate);
}
template <int N> T2C_DEVICE void wgmma_u8(int (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_k32_<N, 3>(d, da, db, accumulate);
}
template <int N>
T2C_DEVICE void wgmma_f8e4m3(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_k32_<N, 4>(d, da, db, accumulate);
}
template <int N>
T2C_DEVICE void wgmma_f8e5m2(float (&d)[N / 2], unsigned long long da, unsigned long long db, bool accumulate) {
  wgmma_k32_<N, 5>(d, da, db, accumulate);
}
#undef T2C_HAS_SM90A_
#endif  // TILE2CU_SIM

// ---- Hopper (sm_90a), both backends: the shared-memory matrix descriptor of
// wgmma (PTX ISA 9.7.15.5.1.2, "Matrix Descriptor Format"): start address
// >> 4 in bits 0-13, leading byte offset >> 4 in 16-29, stride byte offset
// >> 4 in 32-45, base offset 0, swizzle in 62-63 (1: 128-byte, 2: 64-byte,
// 3: 32-byte, 0: none). For a K-major operand in the W-byte swizzle (the
// layout a TMA load with that swizzle and a W-byte inner box writes), sbo is
// 8 * W (the next 8 rows) and lbo is unused; each k16 step adds 32 bytes to
// the start. Without swizzle, 8x8 core matrices of 16-byte rows: lbo steps
// along K, sbo along M/N (the other way round for MN-major operands).
T2C_DEVICE unsigned long long wgmma_desc(const void *smem, unsigned lbo_bytes, unsigned sbo_bytes, unsigned swizzle_bytes) {
  const unsigned long long mode = swizzle_bytes == 128 ? 1 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 32 ? 3 : 0;
  return (unsigned long long)((smem_u32(smem) & 0x3ffffu) >> 4) | (unsigned long long)((lbo_bytes & 0x3ffffu) >> 4) << 16 |
         (unsigned long long)((sbo_bytes & 0x3ffffu) >> 4) << 32 | mode << 62;
}

// The descriptor of the copy at base + stage + at elements (each offset a multiple of 16
// bytes): base's own descriptor plus their 16-byte units, added to the start address field
// (bits 0-13: a block's shared memory, under 256 KiB, never carries out of it). Each
// offset is shifted on its own, so that base's descriptor is computed once, before any
// loop, a constant `at` folds, and a stage ((counter % stages) * elements) costs one
// multiply an iteration.
// (base: a pointer into shared memory or a static shared array.)
template <typename A>
T2C_DEVICE unsigned long long wgmma_desc_at(const A &base, unsigned lbo_bytes, unsigned sbo_bytes, unsigned swizzle_bytes,
                                            unsigned stage, unsigned at) {
  const unsigned e = (unsigned)sizeof(*&base[0]);  // (in sim mode base[0] is an elem_ref; &base[0] a T *)
  return wgmma_desc(&base[0], lbo_bytes, sbo_bytes, swizzle_bytes) + ((stage * e) >> 4) + ((at * e) >> 4);
}

// ---- both backends: ldmatrix .x4 into two B fragments of two registers each
// (the n tiles j and j + 1 of an mma.sync k step): how a dot whose fragments
// are loaded a k step ahead keeps them (t2c_fb<n>[set][j]).
T2C_DEVICE void ldmatrix_x4(unsigned (&lo)[2], unsigned (&hi)[2], const void *row) {
  unsigned r[4];
  ldmatrix_x4(r, row);
  lo[0] = r[0], lo[1] = r[1], hi[0] = r[2], hi[1] = r[3];
}
T2C_DEVICE void ldmatrix_x4_trans(unsigned (&lo)[2], unsigned (&hi)[2], const void *row) {
  unsigned r[4];
  ldmatrix_x4_trans(r, row);
  lo[0] = r[0], lo[1] = r[1], hi[0] = r[2], hi[1] = r[3];
}

}  // namespace t2c

#endif  // TILE2CU_RT_CUH
