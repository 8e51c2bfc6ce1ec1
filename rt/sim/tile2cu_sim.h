// tile2cu_sim.h: the CUDA that generated kernels use, for the CPU backend.
//
// rt.cuh includes this header when TILE2CU_SIM is defined; the generated file
// is then compiled by the host C++ compiler (C++17) together with runtime.cpp.
// Every CUDA thread runs as a fiber. Whatever a kernel asks of its thread
// (its indices, a barrier, a shuffle, shared memory) is a call into the
// runtime, which knows which fiber is running. Tensor arguments arrive as
// t2c_sim::tensor<T>, whose operator[] checks every index; an element of a
// writable tensor is an elem_ref, which tells the race detector whether it
// is read or written.
//
// Half and bfloat16 come from the CUDA headers' host support
// (-I/usr/local/cuda/include); their host paths need no extra macros.
#ifndef TILE2CU_SIM_H
#define TILE2CU_SIM_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <type_traits>

#include "t2c_sim_api.h"

// ---- CUDA keywords. The CUDA headers define some of them for host compilers.
#ifndef __global__
#define __global__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __host__
#define __host__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
// A tensor map parameter (`const __grid_constant__ t2c::TensorMap map`) is a
// plain by-value parameter here.
#ifndef __grid_constant__
#define __grid_constant__
#endif
// A plain __shared__ would silently become a per-thread local: refuse it.
#undef __shared__
#define __shared__ t2c_sim_error_plain___shared___is_not_supported_use_T2C_SIM_SHARED
#define T2C_DEVICE inline

namespace t2c_sim {

struct Dim3 {
  unsigned x, y, z;
};

// Warp collectives, in runtime.cpp's numbering.
enum WarpOp { OP_IDX, OP_UP, OP_DOWN, OP_XOR, OP_SYNCWARP, OP_BALLOT, OP_ANY, OP_ALL,
              // Tensor-core collectives (rt.cuh's t2c::mma_* and t2c::ldmatrix_*):
              // .sync.aligned, so every lane of a full warp takes part.
              OP_MMA_F16, OP_MMA_BF16, OP_LDMATRIX, OP_LDMATRIX_T, OP_MMA_S8, OP_MMA_E4M3, OP_MMA_E5M2,
              // stmatrix.sync.aligned.m8n8 (sm_90): also every lane of a full warp.
              OP_STMATRIX, OP_STMATRIX_T };

// Warpgroup collectives (wgmma, sm_90a): the 128 threads of warps 4g..4g+3
// all take part (.sync.aligned).
enum WgOp { WG_FENCE, WG_COMMIT, WG_WAIT, WG_MMA };

// The operands of one lane of a stmatrix: its row address (lane 8*i + r: row
// r of matrix i) and its registers.
struct StmIn {
  void *row;
  unsigned r[4];
};

// The operands of one thread of a wgmma.mma_async.m64nNk16.f32.{f16,bf16},
// .m64nNk32.s32.{s8,u8} or .m64nNk32.f32.{e4m3,e5m2}: ty 0 f16, 1 bf16, 2 s8,
// 3 u8, 4 e4m3, 5 e5m2; A from a shared-memory descriptor (a null) or from
// registers (a[0..3], 16-bit types only); B from a descriptor; d the
// thread's N/2 accumulators (f32, or the s32 ones of s8/u8 through a cast).
struct WgmmaIn {
  int n, ty, trans_a, trans_b, scale_d;
  unsigned long long desc_a, desc_b;
  const unsigned *a;
  float *d;
};

// The operands of one lane of an m16n8k16 mma, as the PTX registers hold them.
struct MmaIn {
  unsigned a[4], b[2];
  float c[4];
};

// The operands of one lane of an m16n8k32 s8 mma (four s8 per register).
struct MmaInI {
  unsigned a[4], b[2];
  int c[4];
};

// How to print an element of an output tensor in a race report.
enum ElemKind { K_OTHER, K_F32, K_F64, K_F16, K_BF16, K_SINT, K_UINT };
template <typename T> struct kind_of {
  static constexpr int v = std::is_floating_point<T>::value ? (sizeof(T) == 4 ? K_F32 : K_F64)
                           : std::is_signed<T>::value       ? K_SINT
                           : std::is_unsigned<T>::value     ? K_UINT
                                                            : K_OTHER;
};
template <> struct kind_of<__half> { static constexpr int v = K_F16; };
template <> struct kind_of<__nv_bfloat16> { static constexpr int v = K_BF16; };

// ---- runtime.cpp
Dim3 thread_idx();
Dim3 block_idx();
Dim3 block_dim();
Dim3 grid_dim();
void sync_threads(const char *file, int line);
// bar.sync (wait) / bar.arrive id, count: named barrier id (1..15) completes
// when count threads have arrived; a wait that cannot complete is reported
// as a deadlock naming the barrier, and arrivals left when the block exits
// as an error. Arrivals release, and a completed wait acquires, what the
// arriving threads did (the race detector's happens-before).
void named_barrier(unsigned id, unsigned count, bool wait, const char *file, int line);
uint64_t warp_op(int op, unsigned mask, uint64_t bits, int size, int b, int width,
                 const char *file, int line);
void *shared_alloc(size_t bytes, size_t align, const char *name);
unsigned char *dyn_smem();
// The race detector's shadow of one writable tensor (runtime.cpp, "races").
struct RaceShadow;
enum RaceAccess { RACE_READ, RACE_WRITE };
// Checks the tensor argument; for a writable one returns its shadow (null
// for a read-only tensor, which no thread can race on).
RaceShadow *check_tensor(const T2cSimTensor *t, int elem_bytes, int kind, bool writable);
// The running thread reads or writes elements [i, i + n) of the tensor:
// fails the launch when that races with another thread's access.
void race_access(RaceShadow *s, long long i, long long n, int access);
// Element e of t received a floating-point atomic add of v: its sums depend on
// the order of the updates, so schedules are compared within rounding for it,
// a bound from the magnitudes added (runtime.cpp, within_rounding).
void float_atomic(const T2cSimTensor *t, long long e, double v);
[[noreturn]] void tensor_oob(const T2cSimTensor *t, long long i, bool read_only);
// A strided view's mask over its buffer: 1 where an element of the view
// lies, computed once per launch (fails it when the view leaves the buffer);
// null for a row-major tensor.
const unsigned char *view_mask(const T2cSimTensor *t);
[[noreturn]] void shared_oob(const char *name, long long i, long long n);
// The running thread reads or writes the n bytes of shared memory at p: the
// shared-memory race detector (runtime.cpp, "shared races") fails the launch
// when no __syncthreads(), __syncwarp(), mbarrier wait or named barrier orders that access
// after an earlier one of another thread to the same byte (one of the two a write).
void shared_access(const void *p, size_t n, int access);
// A tile of dynamic shared memory: checked to lie inside it, named for race
// reports; returns p.
void *shared_view(void *p, size_t bytes, const char *name);
// A warp collective whose operands and results are more than 8 bytes per lane:
// `in` and `out` point into the calling fiber's frame until it completes.
// mma: op OP_MMA_F16/BF16/E4M3/E5M2, size 0, in a MmaIn, out float[4];
// OP_MMA_S8: in a MmaInI, out int[4]. ldmatrix: op
// OP_LDMATRIX(_T), size = number of 8x8 matrices, in a const void * (the row
// address), out unsigned[size].
void warp_xop(int op, int size, const void *in, void *out, const char *file, int line);
// cp.async of `size` bytes (4, 8 or 16) into shared memory at dst; `valid`
// (0..size) bytes come from src, the rest are zeros. The copy lands at the
// cp_async_wait that completes its group. `t`/`index` name the source tensor
// for messages (t may be null for a raw source).
// Checks dst (inside one shared allocation, aligned to size) and queues the copy;
// src is read now (only when valid > 0), the destination is poisoned now and
// written at the wait.
void cp_async(void *dst, const void *src, int size, int valid);
void cp_async_commit();
void cp_async_wait(int n);
[[noreturn]] void cp_async_oob(const T2cSimTensor *t, long long i, int size, int valid, int elem_bytes);
// ---- Hopper (sm_90a), runtime.cpp's "hopper" section.
// The shared-memory window address of p (dynamic shared memory from 0, the
// static arrays after it, 1024-aligned, as cvta.to.shared gives one), checking
// that [p, p + bytes) lies in one shared allocation.
unsigned smem_window(const void *p, size_t bytes, const char *what);
// mbarrier.init/arrive/expect_tx/try_wait.parity. A wait that cannot
// complete is reported as a deadlock naming the barrier, never spun on.
void mbar_init(void *bar, unsigned count);
void mbar_arrive(void *bar, unsigned tx_bytes, bool arrive, const char *what);
bool mbar_wait(void *bar, unsigned parity, const char *file, int line);
void fence_proxy_async();
void fence_mbarrier_init();
// cp.async.bulk.tensor.Nd: a tile of the map at coords[0..rank) (dimension 0
// innermost) to or from shared memory.
void tma_load(void *dst, const T2cSimTensorMap *m, const int *coords, int ncoords, void *bar);
void tma_store(const T2cSimTensorMap *m, const int *coords, int ncoords, const void *src);
void bulk_commit();
void bulk_wait(int n, bool read);
// A warpgroup collective: op WgOp; WG_WAIT takes size = N; WG_MMA a WgmmaIn.
void warpgroup_op(int op, int size, const WgmmaIn *in, const char *file, int line);
// Fails the launch from the running thread with a formatted message.
[[noreturn]] void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct Registrar {
  const char *name;
  void (*tramp)(void *const *);
  Registrar *next;
  Registrar(const char *n, void (*t)(void *const *));
};

// The address of element i of a tensor, from `X + i`: what t2c::cp_async_*
// takes as its source in sim mode, so the bytes it reads can be checked.
template <typename T> class elem_ref;

template <typename T> struct checked_ptr {
  T *base;
  long long n;  // elements in the tensor
  const T2cSimTensor *t;
  long long i;  // element index, unchecked until a read
  RaceShadow *rs;  // null for a read-only tensor
  const unsigned char *vm;  // a strided view's mask of the buffer (view_mask), or null
  template <typename I, typename = typename std::enable_if<std::is_integral<I>::value>::type>
  checked_ptr operator+(I k) const { return checked_ptr{base, n, t, i + (long long)k, rs, vm}; }
  // an index read from a shared array (a gather's): its value
  template <typename I> checked_ptr operator+(const elem_ref<I> &k) const { return *this + k.get(); }
  // Whether element i + k is outside the tensor (or outside its strided view).
  bool bad(long long k) const {
    const long long j = i + k;
    return (unsigned long long)j >= (unsigned long long)n || (vm && !vm[j]);
  }
  // Whoever reads or writes through it (a vector access, a cp.async) tells
  // the race detector, after the bounds check.
  void note(long long count, int access) const {
    if (rs) race_access(rs, i, count, access);
  }
};

// An element of a writable tensor, as X[i] gives it, or of a shared array:
// reading it (converting it to T) and writing it (assigning, or op= which does
// both) are told to the race detector, through the tensor's shadow, or (a
// null shadow) to the shared-memory one. An atomic goes through atomic(), which the detector never
// sees: t2c::atomic_* in sim mode is atomicAdd(X[i].atomic(), v) and so on.
template <typename T> class elem_ref {
  T *p_;
  RaceShadow *s_;
  long long i_;
  void note(int access) const {
    if (s_) race_access(s_, i_, 1, access);
    else shared_access(p_, sizeof(T), access);
  }

 public:
  elem_ref(T *p, RaceShadow *s, long long i) : p_(p), s_(s), i_(i) {}
  T get() const {
    note(RACE_READ);
    return *p_;
  }
  void put(const T &v) const {
    note(RACE_WRITE);
    *p_ = v;
  }
  T *atomic() const { return p_; }
  // &s[i] of a shared array: the address, for cp.async, ldmatrix, lds_vec
  // and the like, which tell the detector themselves.
  T *operator&() const { return p_; }
  operator T() const { return get(); }
  // static_cast<float>(X[i]) of an f16 X, as t2c::cvt does: explicit, so
  // that implicit conversions stay unambiguous.
  template <typename U, typename = typename std::enable_if<std::is_arithmetic<U>::value &&
                                                           !std::is_same<U, T>::value>::type>
  explicit operator U() const { return static_cast<U>(get()); }
  elem_ref &operator=(const T &v) { put(v); return *this; }
  elem_ref &operator=(const elem_ref &o) { put(o.get()); return *this; }
#define T2C_SIM_REF_OP_(op)                           \
  template <typename U> elem_ref &operator op(const U &v) { \
    T x = get();                                      \
    x op v;                                           \
    put(x);                                           \
    return *this;                                     \
  }
  T2C_SIM_REF_OP_(+=) T2C_SIM_REF_OP_(-=) T2C_SIM_REF_OP_(*=) T2C_SIM_REF_OP_(/=) T2C_SIM_REF_OP_(%=)
  T2C_SIM_REF_OP_(&=) T2C_SIM_REF_OP_(|=) T2C_SIM_REF_OP_(^=) T2C_SIM_REF_OP_(<<=) T2C_SIM_REF_OP_(>>=)
#undef T2C_SIM_REF_OP_
  elem_ref &operator++() { return *this += 1; }
  elem_ref &operator--() { return *this -= 1; }
  T operator++(int) { T x = get(); put(x + 1); return x; }
  T operator--(int) { T x = get(); put(x - 1); return x; }
};

// A tensor argument. Every element access is checked against the allocation;
// accesses to a writable tensor are also checked for races.
template <typename T> class tensor {
  T *p_;
  long long n_;
  const T2cSimTensor *t_;
  RaceShadow *rs_;
  const unsigned char *vm_;  // a strided view's mask, or null: every index in [0, n_) is an element
  typedef typename std::conditional<std::is_const<T>::value, T &, elem_ref<T>>::type ref;

 public:
  explicit tensor(const T2cSimTensor *t)
      : p_(static_cast<T *>(t->data)), n_(t->nelems), t_(t),
        rs_(check_tensor(t, (int)sizeof(T), kind_of<typename std::remove_cv<T>::type>::v,
                         !std::is_const<T>::value)),
        vm_(view_mask(t)) {}
  ref operator[](long long i) const {
    if ((unsigned long long)i >= (unsigned long long)n_ || (vm_ && !vm_[i])) tensor_oob(t_, i, std::is_const<T>::value);
    if constexpr (std::is_const<T>::value) return p_[i];
    else return elem_ref<T>(p_ + i, rs_, i);
  }
  const void *data() const { return p_; }
  // X + i: a checked address, for t2c::cp_async_*. Nothing is checked until
  // a cp.async reads through it (so any i is fine with bytes_valid == 0).
  template <typename I, typename = typename std::enable_if<std::is_integral<I>::value>::type>
  checked_ptr<T> operator+(I i) const {
    return checked_ptr<T>{p_, n_, t_, (long long)i, rs_, vm_};
  }
  // an index read from a shared array (a gather's, a scatter's): its value
  template <typename I> checked_ptr<T> operator+(const elem_ref<I> &i) const { return *this + i.get(); }
};

// A shared array (static, or a tile of dynamic shared memory): one per
// block, every index checked, every element access told to the
// shared-memory race detector.
template <typename T> class shared_array {
  T *p_;
  long long n_;
  const char *name_;

 public:
  shared_array(void *p, long long n, const char *name) : p_(static_cast<T *>(p)), n_(n), name_(name) {}
  template <typename I, typename = typename std::enable_if<std::is_integral<I>::value>::type>
  elem_ref<T> operator[](I i) const {
    if (i < 0 || (long long)i >= n_) shared_oob(name_, (long long)i, n_);
    return elem_ref<T>(p_ + i, nullptr, (long long)i);
  }
  template <typename I> elem_ref<T> operator[](const elem_ref<I> &i) const { return (*this)[i.get()]; }
  operator T *() const { return p_; }
};

// t2c::cp_async_* in sim mode. From a tensor (`X + i`): the valid bytes must
// lie inside the tensor, and the source must be aligned to the copy's size
// relative to the tensor's start (device allocations are 256-byte aligned).
template <typename T> inline void cp_async_from(void *dst, checked_ptr<T> src, int size, int valid) {
  if (valid < 0 || valid > size)
    failf("cp.async of %d bytes with bytes_valid %d (must be 0..%d)", size, valid, size);
  const long long eb = (long long)sizeof(T);
  if ((src.i * eb) % size != 0)
    failf("misaligned cp.async of %d bytes from tensor '%s' at index %lld (byte offset %lld is not a multiple of %d)",
          size, src.t && src.t->name ? src.t->name : "?", src.i, src.i * eb, size);
  const void *p = nullptr;
  if (valid > 0) {
    if (src.i < 0 || src.i > src.n || (src.n - src.i) * eb < valid) cp_async_oob(src.t, src.i, size, valid, (int)eb);
    for (long long k = 0; src.vm && k < (valid + eb - 1) / eb; k++)
      if (src.bad(k)) cp_async_oob(src.t, src.i, size, valid, (int)eb);
    src.note((valid + eb - 1) / eb, RACE_READ);
    p = src.base + src.i;
  }
  cp_async(dst, p, size, valid);
}
// From a raw pointer (not a tensor): only the alignment can be checked.
inline void cp_async_raw(void *dst, const void *src, int size, int valid) {
  if (valid < 0 || valid > size)
    failf("cp.async of %d bytes with bytes_valid %d (must be 0..%d)", size, valid, size);
  if ((uintptr_t)src % (uintptr_t)size)
    failf("misaligned cp.async of %d bytes from address %p", size, src);
  cp_async(dst, valid > 0 ? src : nullptr, size, valid);
}

template <typename T> inline T shfl(int op, const char *file, int line, unsigned mask, T v, int b,
                                    int width = 32);
// A shuffle of a tensor element shuffles its value.
template <typename T> inline T shfl(int op, const char *file, int line, unsigned mask, elem_ref<T> v, int b,
                                    int width = 32) {
  return shfl(op, file, line, mask, v.get(), b, width);
}
template <typename T> inline T shfl(int op, const char *file, int line, unsigned mask, T v, int b,
                                    int width) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "shuffled values are at most 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, (const void *)&v, sizeof(T));
  bits = warp_op(op, mask, bits, (int)sizeof(T), b, width, file, line);
  T r;
  memcpy((void *)&r, &bits, sizeof(T));
  return r;
}

}  // namespace t2c_sim

#define threadIdx (::t2c_sim::thread_idx())
#define blockIdx (::t2c_sim::block_idx())
#define blockDim (::t2c_sim::block_dim())
#define gridDim (::t2c_sim::grid_dim())
#define warpSize 32

#define __syncthreads() ::t2c_sim::sync_threads(__FILE__, __LINE__)
#define __syncwarp(...) ::t2c_sim::Syncwarp{__FILE__, __LINE__}(__VA_ARGS__)
#define __shfl_sync(...) ::t2c_sim::shfl(::t2c_sim::OP_IDX, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) ::t2c_sim::shfl(::t2c_sim::OP_UP, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) ::t2c_sim::shfl(::t2c_sim::OP_DOWN, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) ::t2c_sim::shfl(::t2c_sim::OP_XOR, __FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(mask, p) \
  ((unsigned)::t2c_sim::warp_op(::t2c_sim::OP_BALLOT, (mask), (p) != 0, 4, 0, 32, __FILE__, __LINE__))
#define __any_sync(mask, p) \
  ((int)::t2c_sim::warp_op(::t2c_sim::OP_ANY, (mask), (p) != 0, 4, 0, 32, __FILE__, __LINE__))
#define __all_sync(mask, p) \
  ((int)::t2c_sim::warp_op(::t2c_sim::OP_ALL, (mask), (p) != 0, 4, 0, 32, __FILE__, __LINE__))

namespace t2c_sim {
// __syncwarp() and __syncwarp(mask) both expand to a call of this object.
struct Syncwarp {
  const char *file;
  int line;
  void operator()(unsigned mask = 0xffffffffu) const {
    warp_op(OP_SYNCWARP, mask, 0, 0, 0, 32, file, line);
  }
};
}  // namespace t2c_sim

// A static shared array. Checked, it is a shared_array: indexing, &x[i],
// x + i and passing x as a T* work; sizeof(x) and casts of x itself do not.
// With T2C_SIM_UNCHECKED_SHARED it is a reference to a real array instead.
#define T2C_SIM_SHARED_ALLOC_(T, name, n) \
  ::t2c_sim::shared_alloc(sizeof(T) * (n), alignof(T) > 16 ? alignof(T) : 16, #name)
#ifdef T2C_SIM_UNCHECKED_SHARED
#define T2C_SIM_SHARED(T, name, n) T(&name)[n] = *static_cast<T(*)[n]>(T2C_SIM_SHARED_ALLOC_(T, name, n))
#else
#define T2C_SIM_SHARED(T, name, n) \
  ::t2c_sim::shared_array<T> name(T2C_SIM_SHARED_ALLOC_(T, name, n), (n), #name)
#endif
// A static shared array aligned to `align` bytes (a power of two up to 1024),
// as `__shared__ alignas(align) T name[n]`: a swizzled TMA or wgmma buffer.
#define T2C_SIM_SHARED_ALIGNED(T, name, n, align) \
  ::t2c_sim::shared_array<T> name(::t2c_sim::shared_alloc(sizeof(T) * (n), (align), #name), (n), #name)
#define T2C_SIM_DYNAMIC_SMEM(name) unsigned char *name = ::t2c_sim::dyn_smem()
// A tile of n elements at byte off of dynamic shared memory smem, as
// `T *name = reinterpret_cast<T *>(smem + off)`: a checked shared array.
#define T2C_SIM_SHARED_AT(T, name, smem, off, n) \
  ::t2c_sim::shared_array<T> name(::t2c_sim::shared_view((smem) + (off), sizeof(T) * (n), #name), (n), #name)
#define T2C_SIM_REGISTER(name, tramp) static ::t2c_sim::Registrar t2c_sim_reg_##name(#name, tramp);

// ---- device functions that <cmath> lacks.
inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
inline float __uint_as_float(unsigned x) { float f; memcpy(&f, &x, 4); return f; }
inline unsigned __float_as_uint(float x) { unsigned i; memcpy(&i, &x, 4); return i; }
inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : (x != x ? 0.0f : x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
template <typename T> inline T __ldg(const T *p) { return *p; }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// CUDA's global min/max overloads.
#define T2C_SIM_MINMAX(T)                          \
  inline T min(T a, T b) { return b < a ? b : a; } \
  inline T max(T a, T b) { return a < b ? b : a; }
T2C_SIM_MINMAX(int)
T2C_SIM_MINMAX(unsigned)
T2C_SIM_MINMAX(long long)
T2C_SIM_MINMAX(unsigned long long)
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
#undef T2C_SIM_MINMAX

// ---- atomics: blocks run on two worker threads at once.
template <typename T> inline T t2c_sim_atomic_add_(T *p, T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
template <typename T> inline T t2c_sim_atomic_cas_loop_(T *p, T v, int op) {
  T old, nv;
  __atomic_load(p, &old, __ATOMIC_SEQ_CST);
  do {
    nv = op == 0 ? old + v : op == 1 ? (old < v ? v : old) : (v < old ? v : old);
  } while (!__atomic_compare_exchange(p, &old, &nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return old;
}
inline int atomicAdd(int *p, int v) { return t2c_sim_atomic_add_(p, v); }
inline unsigned atomicAdd(unsigned *p, unsigned v) { return t2c_sim_atomic_add_(p, v); }
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return t2c_sim_atomic_add_(p, v); }
inline float atomicAdd(float *p, float v) { return t2c_sim_atomic_cas_loop_(p, v, 0); }
inline double atomicAdd(double *p, double v) { return t2c_sim_atomic_cas_loop_(p, v, 0); }
inline int atomicMax(int *p, int v) { return t2c_sim_atomic_cas_loop_(p, v, 1); }
inline int atomicMin(int *p, int v) { return t2c_sim_atomic_cas_loop_(p, v, 2); }
inline unsigned atomicMax(unsigned *p, unsigned v) { return t2c_sim_atomic_cas_loop_(p, v, 1); }
inline unsigned atomicMin(unsigned *p, unsigned v) { return t2c_sim_atomic_cas_loop_(p, v, 2); }
inline int atomicExch(int *p, int v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicExch(unsigned *p, unsigned v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
inline int atomicCAS(int *p, int cmp, int v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
inline unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}

#endif  // TILE2CU_SIM_H
