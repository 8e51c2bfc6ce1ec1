// bench/gpu/bench.cu: tile2cu kernels against cuBLAS and a device-to-device copy,
// on the GPU, in one run. A measurement, not a test: it never fails on speed.
//
//   make bench            (translates the .tl files with --host, builds, runs)
//   build/bench/bench [--reps N] [--quick] [--only NAME]... (NAME: a row's name, up to 8)
//
// Methodology: every problem gets fresh uniform random inputs in [-1, 1) (a new
// seed each time, never zeros); each kernel's output is checked against a
// reference before it is timed (GEMMs: cuBLAS over the whole matrix, and a CPU
// double-precision dot on sampled entries for both; the others: a CPU reference on
// a subset of rows); a kernel whose check fails is reported and not timed. Times
// are CUDA events around one launch, after warm-ups, the median of the repeats.
//
// cuBLAS is opened with dlopen (libcublas.so from $CUBLAS_LIB, the loader's path, or
// $CUDA_HOME, /usr/local/cuda/lib64); it is not linked. Without it the GEMMs are still
// run and checked against the CPU samples, with no ratio.
//
// Row-major C[M,N] = A[M,K] B[K,N] with column-major cuBLAS: C^T = B^T A^T, i.e.
// gemm(N, N, m=N, n=M, k=K, B, ldb=N, A, lda=K, C, ldc=N).
//
// Exit status: 0 (also with no CUDA device: "no CUDA device: skipping"), 1 when a
// result check failed, 2 when CUDA failed.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include "gemm_f16.h"
#include "gemm_f16_mb2.h"
#include "gemm_f16_256.h"
#include "gemm_f16_w4.h"
#include "gemm_f16_256_bk64.h"
#include "gemm_bf16.h"
#ifdef HAVE_SM90A
#include "gemm_f16_sm90a.h"
#include "gemm_f16_mb2_sm90a.h"
#include "gemm_bf16_sm90a.h"
#include "gemm_f16_256_sm90a.h"
#include "gemm_f16_256_bk64_sm90a.h"
#include "gemm_bf16_256_sm90a.h"
#include "gemm_bf16_256_bk64_sm90a.h"
#include "gemm_i8_sm90a.h"
#include "gemm_i8_bk128_sm90a.h"
#endif
#include "gemm_f32.h"
#include "gemm_i8.h"
#include "softmax.h"
#include "softmax_row.h"
#include "layernorm.h"
#include "layernorm_row.h"
#include "rowsum.h"
#include "widen.h"
#include "decode.h"
#include "embedding.h"
#include "conv1d.h"
#include "attention.h"
#ifdef HAVE_ATTN_F16
#include "attention_f16.h"
#include "attention_f16_d128.h"
#ifdef HAVE_SM90A
#include "attention_f16_sm90a.h"
#include "attention_f16_d128_sm90a.h"
#include "attention_f16_s2_sm90a.h"
#include "attention_f16_d128_s2_sm90a.h"
#include "attention_f16_bk128_sm90a.h"
#include "attention_f16_d128_bk128_sm90a.h"
#include "attention_f16_bk128_s2_sm90a.h"
#include "attention_f16_s4_sm90a.h"
#include "attention_f16_d128_s4_sm90a.h"
#include "attention_f16_d128_bq192_sm90a.h"
#include "attention_f16_noturns_sm90a.h"
#include "attention_f16_d128_noturns_sm90a.h"
#endif
#endif

// ---- errors
static int g_check_failed = 0;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

// ---- cuBLAS through dlopen (types written out, so no cuBLAS header or library is needed)
typedef void *cublasHandle_t;
typedef int (*fn_create)(cublasHandle_t *);
typedef int (*fn_destroy)(cublasHandle_t);
typedef int (*fn_set_stream)(cublasHandle_t, cudaStream_t);
typedef int (*fn_get_version)(cublasHandle_t, int *);
typedef int (*fn_gemm_ex)(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int,
                          const void *, int, int, const void *, void *, int, int, int, int);
typedef int (*fn_sgemm)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int,
                        const float *, int, const float *, float *, int);
enum { CUBLAS_OP_N_ = 0, CUBLAS_OP_T_ = 1, CUBLAS_COMPUTE_32F_ = 68, CUBLAS_COMPUTE_32I_ = 72, CUBLAS_GEMM_DEFAULT_ = -1 };
enum { R_16F = 2, R_16BF = 14, R_32F = 0, R_8I = 3, R_32I = 10 };  // cudaDataType

static struct {
  cublasHandle_t h;
  fn_gemm_ex gemm_ex;
  fn_sgemm sgemm;
  int version;
  char why[512];
} cb;

static int cublas_open(void) {
  const char *cands[8];
  int n = 0;
  static char p1[1024], p2[1024];
  if (getenv("CUBLAS_LIB")) cands[n++] = getenv("CUBLAS_LIB");
  cands[n++] = "libcublas.so";
  cands[n++] = "libcublas.so.13";
  cands[n++] = "libcublas.so.12";
  if (getenv("CUDA_HOME")) { snprintf(p1, sizeof p1, "%s/lib64/libcublas.so", getenv("CUDA_HOME")); cands[n++] = p1; }
  snprintf(p2, sizeof p2, "/usr/local/cuda/lib64/libcublas.so");
  cands[n++] = p2;
  void *lib = NULL;
  for (int i = 0; i < n && !lib; i++) lib = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { snprintf(cb.why, sizeof cb.why, "cannot dlopen libcublas: %s", dlerror()); return 0; }
  fn_create create = (fn_create)dlsym(lib, "cublasCreate_v2");
  fn_set_stream set_stream = (fn_set_stream)dlsym(lib, "cublasSetStream_v2");
  fn_get_version get_version = (fn_get_version)dlsym(lib, "cublasGetVersion_v2");
  cb.gemm_ex = (fn_gemm_ex)dlsym(lib, "cublasGemmEx");
  cb.sgemm = (fn_sgemm)dlsym(lib, "cublasSgemm_v2");
  if (!create || !set_stream || !cb.gemm_ex || !cb.sgemm) { snprintf(cb.why, sizeof cb.why, "libcublas lacks cublasGemmEx/cublasSgemm_v2"); return 0; }
  int st = create(&cb.h);
  if (st) { snprintf(cb.why, sizeof cb.why, "cublasCreate failed (status %d)", st); return 0; }
  set_stream(cb.h, 0);
  if (get_version) get_version(cb.h, &cb.version);
  return 1;
}

// ---- random inputs: a counter hash, uniform in [-1, 1)
__device__ __forceinline__ float hash_uniform(uint64_t i, uint64_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull ^ (seed + 0x632BE59BD9B4E019ull);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 27; x *= 0x94D049BB133111EBull; x ^= x >> 31;
  return (float)(x >> 40) * (1.0f / 8388608.0f) - 1.0f;  // 24 bits
}
template <class T> __device__ T from_f(float v);
template <> __device__ float from_f<float>(float v) { return v; }
template <> __device__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <class T> __global__ void fill_kernel(T *p, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = from_f<T>(hash_uniform(i, seed) * scale);
}
static uint64_t g_seed = 0x5EED;
template <class T> static void fill(T *p, size_t n, float scale = 1.0f) {
  fill_kernel<<<1024, 256>>>(p, n, ++g_seed * 0x100000001B3ull, scale);
  CK(cudaGetLastError());
}

// ---- host conversions
static float h2f(__half h) { return __half2float(h); }
static float h2f(__nv_bfloat16 h) { return __bfloat162float(h); }
static float h2f(float f) { return f; }

// ---- max |a - b| and max |b| over a whole matrix, on the device
template <class T> __device__ float to_f(T v);
template <> __device__ float to_f<float>(float v) { return v; }
template <> __device__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __global__ void maxdiff_kernel(const T *a, const T *b, size_t n, unsigned *out) {
  float d = 0, m = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float x = to_f<T>(a[i]), y = to_f<T>(b[i]);
    float e = fabsf(x - y);
    if (!(e == e) || isinf(e)) e = 3.0e38f;  // NaN or inf: as bad as it gets
    d = fmaxf(d, e);
    m = fmaxf(m, fabsf(y));
  }
  for (int o = 16; o; o >>= 1) { d = fmaxf(d, __shfl_xor_sync(~0u, d, o)); m = fmaxf(m, __shfl_xor_sync(~0u, m, o)); }
  if ((threadIdx.x & 31) == 0) { atomicMax(&out[0], __float_as_uint(d)); atomicMax(&out[1], __float_as_uint(m)); }
}
template <class T> static void maxdiff(const T *a, const T *b, size_t n, float *d, float *m) {
  unsigned *o, h[2];
  CK(cudaMalloc(&o, 2 * sizeof(unsigned)));
  CK(cudaMemset(o, 0, 2 * sizeof(unsigned)));
  maxdiff_kernel<<<1024, 256>>>(a, b, n, o);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaFree(o));
  memcpy(d, &h[0], 4);
  memcpy(m, &h[1], 4);
}

// ---- timing: events around one launch, warm-ups, the median of the repeats
static int g_reps = 20, g_warm = 3;
// --only NAME: only the rows whose name is NAME (for a profiler run on a few kernels)
static const char *g_only[8];
static int g_nonly;
static bool skipped(const char *name) {
  if (!g_nonly) return false;
  for (int i = 0; i < g_nonly; i++)
    if (!strcmp(name, g_only[i])) return false;
  return true;
}
template <class F> static double time_ms(F f) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < g_warm; i++) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> t(g_reps);
  for (int i = 0; i < g_reps; i++) {
    CK(cudaEventRecord(e0));
    f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&t[i], e0, e1));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  return g_reps % 2 ? t[g_reps / 2] : 0.5 * (t[g_reps / 2 - 1] + t[g_reps / 2]);
}

// ---- report lines
static void line(const char *what, const char *shape, double val, const char *unit, double ms,
                 const char *vs, double ref_val, const char *note) {
  char r[64] = "";
  if (ref_val > 0) snprintf(r, sizeof r, "%6.1f%% of %s (%.1f)", 100.0 * val / ref_val, vs, ref_val);
  printf("%-22s %-22s %9.1f %-7s %9.3f ms  %-34s %s\n", what, shape, val, unit, ms, r, note ? note : "");
  fflush(stdout);
}
static void failed(const char *what, const char *shape, const char *why) {
  printf("%-22s %-22s CHECK FAILED: %s (not timed)\n", what, shape, why);
  fflush(stdout);
  g_check_failed = 1;
}

// ---- GEMM
template <class T> struct gemm_traits;
template <> struct gemm_traits<__half> { static constexpr int dt = R_16F; static constexpr double tol = 1e-2; static constexpr const char *name = "f16"; };
template <> struct gemm_traits<__nv_bfloat16> { static constexpr int dt = R_16BF; static constexpr double tol = 2e-2; static constexpr const char *name = "bf16"; };
template <> struct gemm_traits<float> { static constexpr int dt = R_32F; static constexpr double tol = 1e-3; static constexpr const char *name = "f32"; };

template <class T> static int cublas_gemm(const T *A, const T *B, T *C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  if (gemm_traits<T>::dt == R_32F)
    return cb.sgemm(cb.h, CUBLAS_OP_N_, CUBLAS_OP_N_, N, M, K, &one, (const float *)B, N, (const float *)A, K, &zero, (float *)C, N);
  return cb.gemm_ex(cb.h, CUBLAS_OP_N_, CUBLAS_OP_N_, N, M, K, &one, B, gemm_traits<T>::dt, N, A, gemm_traits<T>::dt, K,
                    &zero, C, gemm_traits<T>::dt, N, CUBLAS_COMPUTE_32F_, CUBLAS_GEMM_DEFAULT_);
}

// Sampled entries of C against a CPU double dot; returns the worst |c - ref| / scale,
// where scale = sqrt(K) / 3 (the rms of a dot of K products of uniform [-1, 1) values).
template <class T> static double sample_err(const T *dA, const T *dB, const T *dC, int M, int N, int K) {
  const int NS = 24;
  std::vector<T> arow(K), bcol(K);
  double worst = 0;
  for (int s = 0; s < NS; s++) {
    int i = (int)((s * 2654435761u + 17u) % (unsigned)M), j = (int)((s * 40503u * 977u + 5u) % (unsigned)N);
    if (s == 0) i = 0, j = 0;
    if (s == 1) i = M - 1, j = N - 1;
    CK(cudaMemcpy(arow.data(), dA + (size_t)i * K, K * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy2D(bcol.data(), sizeof(T), dB + j, (size_t)N * sizeof(T), sizeof(T), K, cudaMemcpyDeviceToHost));
    T c;
    CK(cudaMemcpy(&c, dC + (size_t)i * N + j, sizeof(T), cudaMemcpyDeviceToHost));
    double ref = 0;
    for (int k = 0; k < K; k++) ref += (double)h2f(arow[k]) * (double)h2f(bcol[k]);
    double e = fabs((double)h2f(c) - ref) / (sqrt((double)K) / 3.0);
    if (!(e == e)) e = 1e30;
    worst = std::max(worst, e);
  }
  return worst;
}

template <class T, class L> static void bench_gemm(const char *what, L launch, int M, int N, int K) {
  if (skipped(what)) return;
  char shape[64];
  snprintf(shape, sizeof shape, "%dx%dx%d", M, N, K);
  T *A, *B, *C, *R;
  CK(cudaMalloc(&A, (size_t)M * K * sizeof(T)));
  CK(cudaMalloc(&B, (size_t)K * N * sizeof(T)));
  CK(cudaMalloc(&C, (size_t)M * N * sizeof(T)));
  CK(cudaMalloc(&R, (size_t)M * N * sizeof(T)));
  fill(A, (size_t)M * K);
  fill(B, (size_t)K * N);
  fill(C, (size_t)M * N);  // garbage, so an unwritten element shows
  fill(R, (size_t)M * N);
  const double tol = gemm_traits<T>::tol;
  double flop = 2.0 * M * N * K;
  double ref_tflops = 0, ms_ref = 0;
  char note[160] = "";
  // cuBLAS: checked against the CPU samples too, then timed
  if (cb.h) {
    int st = cublas_gemm(A, B, R, M, N, K);
    CK(cudaDeviceSynchronize());
    double e = st ? 1e30 : sample_err(A, B, R, M, N, K);
    if (st || e > tol) {
      char why[96];
      snprintf(why, sizeof why, "cuBLAS status %d, sampled error %.3g (tolerance %.3g)", st, e, tol);
      failed("cuBLAS", shape, why);
    } else {
      ms_ref = time_ms([&] { cublas_gemm(A, B, R, M, N, K); });
      ref_tflops = flop / ms_ref / 1e9;
    }
  }
  CK(launch(A, B, C, M, K, N, (cudaStream_t)0));
  CK(cudaDeviceSynchronize());
  double e = sample_err(A, B, C, M, N, K);
  float d = 0, mx = 0;
  bool bad = e > tol;
  if (cb.h && ref_tflops > 0) {
    maxdiff(C, R, (size_t)M * N, &d, &mx);
    bad = bad || !(d <= tol * std::max(1.0f, mx));
  }
  snprintf(note, sizeof note, "check: sampled err %.2g%s", e, "");
  if (cb.h && ref_tflops > 0) snprintf(note + strlen(note), sizeof note - strlen(note), ", max|C-cuBLAS| %.3g of max %.3g", d, mx);
  if (bad) { failed(what, shape, note); goto out; }
  {
    double ms = time_ms([&] { CK(launch(A, B, C, M, K, N, (cudaStream_t)0)); });
    CK(cudaGetLastError());
    line(what, shape, flop / ms / 1e9, "TFLOP/s", ms, "cuBLAS", ref_tflops, note);
    if (ref_tflops > 0) line("  cuBLAS", shape, ref_tflops, "TFLOP/s", ms_ref, "", 0, gemm_traits<T>::dt == R_32F ? "cublasSgemm (default math: no TF32)" : "cublasGemmEx, f32 compute");
  }
out:
  CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(C)); CK(cudaFree(R));
}

// ---- int8 GEMM: C[M,N] (i32) = A[M,K] B[N,K]^T (i8), the "TN" layout integer GEMMs
// use; in column-major cuBLAS terms C^T = op_T(B) A^T: gemm(T, N, m=N, n=M, k=K, B,
// lda=K, A, ldb=K, C, ldc=N), i32 compute. Inputs uniform in [-128, 127]; the sums
// (|.| <= K * 2^14) are exact, so the check is exact: the whole C against cuBLAS,
// and sampled entries against a CPU dot.
__global__ void fill_i8_kernel(signed char *p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (signed char)(int)floorf((hash_uniform(i, seed) + 1.0f) * 127.999f - 128.0f);
}
__global__ void count_diff_i32(const int *a, const int *b, size_t n, unsigned long long *out) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) c += a[i] != b[i];
  if (c) atomicAdd(out, c);
}
static int cublas_gemm_i8(const signed char *A, const signed char *B, int *C, int M, int N, int K) {
  const int one = 1, zero = 0;
  return cb.gemm_ex(cb.h, CUBLAS_OP_T_, CUBLAS_OP_N_, N, M, K, &one, B, R_8I, K, A, R_8I, K, &zero, C, R_32I, N,
                    CUBLAS_COMPUTE_32I_, CUBLAS_GEMM_DEFAULT_);
}
static long long sample_bad_i8(const signed char *dA, const signed char *dB, const int *dC, int M, int N, int K) {
  std::vector<signed char> a(K), b(K);
  long long bad = 0;
  for (int s = 0; s < 24; s++) {
    int i = s == 0 ? 0 : s == 1 ? M - 1 : (int)((s * 2654435761u + 17u) % (unsigned)M);
    int j = s == 0 ? 0 : s == 1 ? N - 1 : (int)((s * 40503u * 977u + 5u) % (unsigned)N);
    CK(cudaMemcpy(a.data(), dA + (size_t)i * K, K, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), dB + (size_t)j * K, K, cudaMemcpyDeviceToHost));
    int c;
    CK(cudaMemcpy(&c, dC + (size_t)i * N + j, sizeof c, cudaMemcpyDeviceToHost));
    long long ref = 0;
    for (int k = 0; k < K; k++) ref += (long long)a[k] * b[k];
    bad += c != ref;
  }
  return bad;
}
static void bench_gemm_i8(const char *name, cudaError_t (*launch)(const signed char *, const signed char *, int *, int, int, int, cudaStream_t), int M, int N, int K) {
  if (skipped(name)) return;
  char shape[64], note[160];
  snprintf(shape, sizeof shape, "%dx%dx%d", M, N, K);
  signed char *A, *B;
  int *C, *R;
  CK(cudaMalloc(&A, (size_t)M * K));
  CK(cudaMalloc(&B, (size_t)N * K));
  CK(cudaMalloc(&C, (size_t)M * N * sizeof(int)));
  CK(cudaMalloc(&R, (size_t)M * N * sizeof(int)));
  fill_i8_kernel<<<1024, 256>>>(A, (size_t)M * K, ++g_seed * 0x100000001B3ull);
  fill_i8_kernel<<<1024, 256>>>(B, (size_t)N * K, ++g_seed * 0x100000001B3ull);
  CK(cudaGetLastError());
  CK(cudaMemset(C, 0x7f, (size_t)M * N * sizeof(int)));  // garbage, so an unwritten element shows
  double flop = 2.0 * M * N * K, ref_tops = 0, ms_ref = 0;
  if (cb.h) {
    int st = cublas_gemm_i8(A, B, R, M, N, K);
    CK(cudaDeviceSynchronize());
    long long bad = st ? -1 : sample_bad_i8(A, B, R, M, N, K);
    if (bad) {
      snprintf(note, sizeof note, "cuBLAS status %d, %lld of 24 sampled entries wrong", st, bad);
      failed("cuBLAS i8", shape, note);
    } else {
      ms_ref = time_ms([&] { cublas_gemm_i8(A, B, R, M, N, K); });
      ref_tops = flop / ms_ref / 1e9;
    }
  }
  CK(launch(A, B, C, M, K, N, (cudaStream_t)0));
  CK(cudaDeviceSynchronize());
  long long bad = sample_bad_i8(A, B, C, M, N, K);
  unsigned long long ndiff = 0, *d;
  if (cb.h && ref_tops > 0) {
    CK(cudaMalloc(&d, sizeof *d));
    CK(cudaMemset(d, 0, sizeof *d));
    count_diff_i32<<<1024, 256>>>(C, R, (size_t)M * N, d);
    CK(cudaMemcpy(&ndiff, d, sizeof ndiff, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
  }
  snprintf(note, sizeof note, "check: %lld of 24 sampled wrong%s", bad, cb.h && ref_tops > 0 ? "" : "");
  if (cb.h && ref_tops > 0) snprintf(note + strlen(note), sizeof note - strlen(note), ", %llu elements differ from cuBLAS", ndiff);
  if (bad || ndiff) {
    failed(name, shape, note);
  } else {
    double ms = time_ms([&] { CK(launch(A, B, C, M, K, N, (cudaStream_t)0)); });
    CK(cudaGetLastError());
    line(name, shape, flop / ms / 1e9, "TOP/s", ms, "cuBLAS", ref_tops, note);
    if (ref_tops > 0) line("  cuBLAS", shape, ref_tops, "TOP/s", ms_ref, "", 0, "cublasGemmEx, i8 x i8 -> i32 (TN)");
  }
  CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(C)); CK(cudaFree(R));
}

// ---- memory-bound kernels: GB/s of the bytes each must move (its inputs read once,
// its outputs written once), against a device-to-device copy's (read + write) GB/s.
static double g_copy_gbs = 0;

static void bench_copy(size_t bytes) {
  if (skipped("copy")) return;
  void *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  fill((float *)a, bytes / 4);
  double ms = time_ms([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  g_copy_gbs = 2.0 * bytes / ms / 1e6;
  char shape[64];
  snprintf(shape, sizeof shape, "%zu MiB", bytes >> 20);
  line("cudaMemcpy D2D", shape, g_copy_gbs, "GB/s", ms, "", 0, "read + write");
  CK(cudaFree(a));
  CK(cudaFree(b));
}

static std::vector<int> sample_rows(int M, int n) {
  std::vector<int> r;
  for (int s = 0; s < n; s++) r.push_back(s == 0 ? 0 : s == 1 ? M - 1 : (int)((s * 2654435761u) % (unsigned)M));
  return r;
}

template <typename F> static void bench_softmax(const char *name, F launch, int M, int N) {
  if (skipped(name)) return;
  char shape[64];
  snprintf(shape, sizeof shape, "%dx%d f32", M, N);
  float *X, *Y;
  CK(cudaMalloc(&X, (size_t)M * N * 4));
  CK(cudaMalloc(&Y, (size_t)M * N * 4));
  fill(X, (size_t)M * N, 4.0f);
  CK(launch(X, Y, M, N, 0));
  CK(cudaDeviceSynchronize());
  std::vector<float> x(N), y(N);
  double worst = 0;
  for (int i : sample_rows(M, 16)) {
    CK(cudaMemcpy(x.data(), X + (size_t)i * N, N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), Y + (size_t)i * N, N * 4, cudaMemcpyDeviceToHost));
    double mx = -INFINITY, l = 0;
    for (int j = 0; j < N; j++) mx = std::max(mx, (double)x[j]);
    for (int j = 0; j < N; j++) l += exp(x[j] - mx);
    for (int j = 0; j < N; j++) {
      double ref = exp(x[j] - mx) / l, e = fabs(y[j] - ref) / std::max(ref, 1e-30) ;
      if (!(e == e)) e = 1e30;
      worst = std::max(worst, e);
    }
  }
  char note[96];
  snprintf(note, sizeof note, "check: 16 rows, max rel err %.2g", worst);
  if (worst > 1e-4) failed(name, shape, note);
  else {
    double ms = time_ms([&] { CK(launch(X, Y, M, N, 0)); });
    CK(cudaGetLastError());
    line(name, shape, 2.0 * M * N * 4 / ms / 1e6, "GB/s", ms, "copy", g_copy_gbs, note);
  }
  CK(cudaFree(X)); CK(cudaFree(Y));
}

static void bench_rowsum(int M, int N) {
  if (skipped("rowsum")) return;
  char shape[64];
  snprintf(shape, sizeof shape, "%dx%d f32", M, N);
  float *X, *S;
  CK(cudaMalloc(&X, (size_t)M * N * 4));
  CK(cudaMalloc(&S, (size_t)M * 4));
  fill(X, (size_t)M * N);
  CK(tile2cu_launch_rowsum_rows(X, S, M, N, 0));
  CK(cudaDeviceSynchronize());
  std::vector<float> x(N);
  double worst = 0;
  for (int i : sample_rows(M, 64)) {
    float s;
    CK(cudaMemcpy(x.data(), X + (size_t)i * N, N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&s, S + i, 4, cudaMemcpyDeviceToHost));
    double ref = 0, abs_sum = 0;
    for (int j = 0; j < N; j++) ref += x[j], abs_sum += fabs(x[j]);
    double e = fabs(s - ref) / abs_sum;
    if (!(e == e)) e = 1e30;
    worst = std::max(worst, e);
  }
  char note[96];
  snprintf(note, sizeof note, "check: 64 rows, max err %.2g of sum|x|", worst);
  if (worst > 1e-5) failed("rowsum", shape, note);
  else {
    double ms = time_ms([&] { CK(tile2cu_launch_rowsum_rows(X, S, M, N, 0)); });
    CK(cudaGetLastError());
    line("rowsum", shape, ((double)M * N * 4 + M * 4.0) / ms / 1e6, "GB/s", ms, "copy", g_copy_gbs, note);
  }
  CK(cudaFree(X)); CK(cudaFree(S));
}

// tests/gpu/decode.tl: one query row per (batch, head) against S keys of D = 128, f16,
// an online softmax over key blocks of 64; memory-bound (K and V read once): GB/s of K
// and V against the copy. Checked on 4 (batch, head) pairs against softmax in double.
template <typename F> static void bench_decode(const char *name, F launch, int B, int H, int S) {
  if (skipped(name)) return;
  const int D = 128;
  char shape[64];
  snprintf(shape, sizeof shape, "B%d H%d S%d D%d f16", B, H, S, D);
  size_t nq = (size_t)B * H * D, nk = (size_t)B * H * S * D;
  __half *Q, *K, *V, *O;
  CK(cudaMalloc(&Q, nq * 2));
  CK(cudaMalloc(&K, nk * 2));
  CK(cudaMalloc(&V, nk * 2));
  CK(cudaMalloc(&O, nq * 2));
  fill(Q, nq);
  fill(K, nk);
  fill(V, nk);
  const float scale = 1.0f / sqrtf((float)D);
  CK(launch(Q, K, V, O, scale, B, H, S, 0));
  CK(cudaDeviceSynchronize());
  std::vector<__half> q(D), k((size_t)S * D), v((size_t)S * D), o(D);
  std::vector<double> p(S);
  double worst = 0;
  for (int bh : sample_rows(B * H, 4)) {
    CK(cudaMemcpy(q.data(), Q + (size_t)bh * D, D * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(k.data(), K + (size_t)bh * S * D, (size_t)S * D * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(v.data(), V + (size_t)bh * S * D, (size_t)S * D * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.data(), O + (size_t)bh * D, D * 2, cudaMemcpyDeviceToHost));
    double mx = -INFINITY, l = 0;
    for (int j = 0; j < S; j++) {
      double d = 0;
      for (int e = 0; e < D; e++) d += (double)h2f(q[e]) * (double)h2f(k[(size_t)j * D + e]);
      p[j] = d * scale;
      mx = std::max(mx, p[j]);
    }
    for (int j = 0; j < S; j++) l += p[j] = exp(p[j] - mx);
    for (int e = 0; e < D; e++) {
      double a = 0;
      for (int j = 0; j < S; j++) a += p[j] * (double)h2f(v[(size_t)j * D + e]);
      double err = fabs(h2f(o[e]) - a / l);
      if (!(err == err)) err = 1e30;
      worst = std::max(worst, err);
    }
  }
  char note[96];
  snprintf(note, sizeof note, "check: 4 (b, h), max abs err %.2g", worst);
  if (worst > 2e-3) failed(name, shape, note);
  else {
    double ms = time_ms([&] { CK(launch(Q, K, V, O, scale, B, H, S, 0)); });
    CK(cudaGetLastError());
    line(name, shape, 2.0 * nk * 2 / ms / 1e6, "GB/s", ms, "copy", g_copy_gbs, note);
  }
  CK(cudaFree(Q)); CK(cudaFree(K)); CK(cudaFree(V)); CK(cudaFree(O));
}

// bench/embedding.tl: O[n, :] = E[I[n], :], f16 rows of 1024, ids at random over V rows:
// GB/s of the rows read and written (2 N D 2 bytes) against the copy
static void bench_embedding(int N, int V) {
  if (skipped("embedding")) return;
  const int D = 1024;
  char shape[64];
  snprintf(shape, sizeof shape, "N%d V%d D%d f16", N, V, D);
  __half *E, *O;
  int *I;
  CK(cudaMalloc(&E, (size_t)V * D * 2));
  CK(cudaMalloc(&O, (size_t)N * D * 2));
  CK(cudaMalloc(&I, (size_t)N * 4));
  fill(E, (size_t)V * D);
  std::vector<int> ids(N);
  for (int n = 0; n < N; n++) ids[n] = (int)(((uint64_t)n * 2654435761u + 12345u) % (unsigned)V);
  CK(cudaMemcpy(I, ids.data(), (size_t)N * 4, cudaMemcpyHostToDevice));
  CK(tile2cu_launch_embedding(E, I, O, V, N, 0));
  CK(cudaDeviceSynchronize());
  std::vector<__half> e(D), o(D);
  double worst = 0;
  for (int n : sample_rows(N, 16)) {
    CK(cudaMemcpy(e.data(), E + (size_t)ids[n] * D, D * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.data(), O + (size_t)n * D, D * 2, cudaMemcpyDeviceToHost));
    for (int j = 0; j < D; j++) {
      double err = fabs((double)h2f(o[j]) - (double)h2f(e[j]));
      if (!(err == err)) err = 1e30;
      worst = std::max(worst, err);
    }
  }
  char note[96];
  snprintf(note, sizeof note, "check: 16 rows, max abs err %.2g", worst);
  if (worst != 0) failed("embedding", shape, note);
  else {
    double ms = time_ms([&] { CK(tile2cu_launch_embedding(E, I, O, V, N, 0)); });
    CK(cudaGetLastError());
    line("embedding", shape, 2.0 * N * D * 2 / ms / 1e6, "GB/s", ms, "copy", g_copy_gbs, note);
  }
  CK(cudaFree(E)); CK(cudaFree(O)); CK(cudaFree(I));
}

// bench/conv1d.tl: a depthwise causal conv1d with SiLU over f16 [B, D, L], 4 taps: GB/s of
// X read and Y written (2 B D L 2 bytes) against the copy; the halo tile (window writes,
// then shifted reads of its copy) and the four shifted loads
template <typename F> static void bench_conv1d(const char *name, F launch, int B, int D, int L) {
  if (skipped(name)) return;
  char shape[64];
  snprintf(shape, sizeof shape, "B%d D%d L%d f16", B, D, L);
  size_t n = (size_t)B * D * L;
  __half *X, *W, *Bi, *Y;
  CK(cudaMalloc(&X, n * 2));
  CK(cudaMalloc(&W, (size_t)D * 4 * 2));
  CK(cudaMalloc(&Bi, (size_t)D * 2));
  CK(cudaMalloc(&Y, n * 2));
  fill(X, n);
  fill(W, (size_t)D * 4);
  fill(Bi, (size_t)D);
  CK(launch(X, W, Bi, Y, B, D, L, 0));
  CK(cudaDeviceSynchronize());
  std::vector<__half> w((size_t)D * 4), bi(D), x(L), y(L);
  CK(cudaMemcpy(w.data(), W, w.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(bi.data(), Bi, bi.size() * 2, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int r : sample_rows(B * D, 16)) { /* row r: batch r / D, channel r % D */
    int d = r % D;
    CK(cudaMemcpy(x.data(), X + (size_t)r * L, (size_t)L * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), Y + (size_t)r * L, (size_t)L * 2, cudaMemcpyDeviceToHost));
    for (int l = 0; l < L; l++) {
      double a = h2f(bi[d]);
      for (int j = 0; j < 4; j++)
        if (l - 3 + j >= 0) a += (double)h2f(w[(size_t)d * 4 + j]) * h2f(x[l - 3 + j]);
      double err = fabs((double)h2f(y[l]) - a / (1.0 + exp(-a)));
      if (!(err == err)) err = 1e30;
      worst = std::max(worst, err);
    }
  }
  char note[96];
  snprintf(note, sizeof note, "check: 16 rows, max abs err %.2g", worst);
  if (worst > 2e-2) failed(name, shape, note);
  else {
    double ms = time_ms([&] { CK(launch(X, W, Bi, Y, B, D, L, 0)); });
    CK(cudaGetLastError());
    line(name, shape, 2.0 * n * 2 / ms / 1e6, "GB/s", ms, "copy", g_copy_gbs, note);
  }
  CK(cudaFree(X)); CK(cudaFree(W)); CK(cudaFree(Bi)); CK(cudaFree(Y));
}

// bench/widen.tl: Y = f32(X) * W, X f16, W f32 [N], Y f32: element sizes mixed in one
// stream (session 31: runs of 8, X read 16 bytes an access; 6 bytes an element moved)
static void bench_widen(int M, int N) {
  if (skipped("widen")) return;
  char shape[64];
  snprintf(shape, sizeof shape, "%dx%d f16 -> f32", M, N);
  __half *X;
  float *W, *Y;
  CK(cudaMalloc(&X, (size_t)M * N * 2));
  CK(cudaMalloc(&W, (size_t)N * 4));
  CK(cudaMalloc(&Y, (size_t)M * N * 4));
  fill(X, (size_t)M * N);
  fill(W, (size_t)N);
  CK(tile2cu_launch_widen(X, W, Y, M, N, 0));
  CK(cudaDeviceSynchronize());
  std::vector<__half> x(N);
  std::vector<float> w(N), y(N);
  CK(cudaMemcpy(w.data(), W, (size_t)N * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i : sample_rows(M, 16)) {
    CK(cudaMemcpy(x.data(), X + (size_t)i * N, (size_t)N * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), Y + (size_t)i * N, (size_t)N * 4, cudaMemcpyDeviceToHost));
    for (int j = 0; j < N; j++) {
      double err = fabs((double)y[j] - (double)h2f(x[j]) * (double)w[j]);
      if (!(err == err)) err = 1e30;
      worst = std::max(worst, err);
    }
  }
  char note[96];
  snprintf(note, sizeof note, "check: 16 rows, max abs err %.2g", worst);
  if (worst > 1e-6) failed("widen", shape, note);
  else {
    double ms = time_ms([&] { CK(tile2cu_launch_widen(X, W, Y, M, N, 0)); });
    CK(cudaGetLastError());
    line("widen", shape, (double)M * N * 6 / ms / 1e6, "GB/s", ms, "copy", g_copy_gbs, note);
  }
  CK(cudaFree(X)); CK(cudaFree(W)); CK(cudaFree(Y));
}

template <typename F> static void bench_layernorm(const char *name, F launch, int M, int N) {
  if (skipped(name)) return;
  char shape[64];
  snprintf(shape, sizeof shape, "%dx%d f32", M, N);
  float *X, *W, *Bi, *Y;
  const float eps = 1e-5f;
  CK(cudaMalloc(&X, (size_t)M * N * 4));
  CK(cudaMalloc(&Y, (size_t)M * N * 4));
  CK(cudaMalloc(&W, (size_t)N * 4));
  CK(cudaMalloc(&Bi, (size_t)N * 4));
  fill(X, (size_t)M * N, 3.0f);
  fill(W, N);
  fill(Bi, N);
  CK(launch(X, W, Bi, Y, eps, M, N, 0));
  CK(cudaDeviceSynchronize());
  std::vector<float> x(N), y(N), w(N), bi(N);
  CK(cudaMemcpy(w.data(), W, N * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(bi.data(), Bi, N * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i : sample_rows(M, 16)) {
    CK(cudaMemcpy(x.data(), X + (size_t)i * N, N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), Y + (size_t)i * N, N * 4, cudaMemcpyDeviceToHost));
    double mean = 0, var = 0;
    for (int j = 0; j < N; j++) mean += x[j];
    mean /= N;
    for (int j = 0; j < N; j++) var += (x[j] - mean) * (x[j] - mean);
    double rstd = 1.0 / sqrt(var / N + eps);
    for (int j = 0; j < N; j++) {
      double e = fabs(y[j] - ((x[j] - mean) * rstd * w[j] + bi[j]));
      if (!(e == e)) e = 1e30;
      worst = std::max(worst, e);
    }
  }
  char note[96];
  snprintf(note, sizeof note, "check: 16 rows, max abs err %.2g", worst);
  if (worst > 1e-3) failed(name, shape, note);
  else {
    double ms = time_ms([&] { CK(launch(X, W, Bi, Y, eps, M, N, 0)); });
    CK(cudaGetLastError());
    line(name, shape, (2.0 * M * N * 4 + 2.0 * N * 4) / ms / 1e6, "GB/s", ms, "copy", g_copy_gbs, note);
  }
  CK(cudaFree(X)); CK(cudaFree(Y)); CK(cudaFree(W)); CK(cudaFree(Bi));
}

// ---- attention forward: 4 * B * H * S * S * D flops, non-causal; causal (key j masked
// out of query i when j > i) counts the products it needs, 4 * B * H * D * S * (S + 1) / 2
template <class T, class L>
static void bench_attention(const char *what, L launch, int B, int H, int S, int D, double tol, int causal = 0) {
  if (skipped(what)) return;
  char shape[64];
  snprintf(shape, sizeof shape, "B%d H%d S%d D%d%s", B, H, S, D, causal ? " causal" : "");
  size_t n = (size_t)B * H * S * D;
  T *Q, *K, *V, *O;
  CK(cudaMalloc(&Q, n * sizeof(T)));
  CK(cudaMalloc(&K, n * sizeof(T)));
  CK(cudaMalloc(&V, n * sizeof(T)));
  CK(cudaMalloc(&O, n * sizeof(T)));
  fill(Q, n);
  fill(K, n);
  fill(V, n);
  fill(O, n);
  const float scale = 1.0f / sqrtf((float)D);
  CK(launch(Q, K, V, O, scale, causal, B, H, S, (cudaStream_t)0));
  CK(cudaDeviceSynchronize());
  // the CPU reference on 16 query rows of 4 (batch, head) pairs
  size_t sd = (size_t)S * D;
  std::vector<T> q(D), k(sd), v(sd), o(D);
  std::vector<double> p(S);
  double worst_abs = 0, max_ref = 0;
  for (int s = 0; s < 16; s++) {
    int bh = (s / 4) * 37 % (B * H), i = s == 0 ? 0 : s == 1 ? S - 1 : (int)((s * 2654435761u) % (unsigned)S);
    size_t base = (size_t)bh * sd;
    if (s % 4 == 0 || s < 2) {
      CK(cudaMemcpy(k.data(), K + base, sd * sizeof(T), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(v.data(), V + base, sd * sizeof(T), cudaMemcpyDeviceToHost));
    }
    CK(cudaMemcpy(q.data(), Q + base + (size_t)i * D, D * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.data(), O + base + (size_t)i * D, D * sizeof(T), cudaMemcpyDeviceToHost));
    double mx = -INFINITY, l = 0;
    int nj = causal ? i + 1 : S;  // the keys query i sees
    for (int j = 0; j < nj; j++) {
      double dotv = 0;
      for (int d = 0; d < D; d++) dotv += (double)h2f(q[d]) * h2f(k[(size_t)j * D + d]);
      p[j] = dotv * scale;
      mx = std::max(mx, p[j]);
    }
    for (int j = 0; j < nj; j++) l += (p[j] = exp(p[j] - mx));
    for (int d = 0; d < D; d++) {
      double ref = 0;
      for (int j = 0; j < nj; j++) ref += p[j] * h2f(v[(size_t)j * D + d]);
      ref /= l;
      double e = fabs(h2f(o[d]) - ref);
      if (!(e == e)) e = 1e30;
      worst_abs = std::max(worst_abs, e);
      max_ref = std::max(max_ref, fabs(ref));
    }
  }
  double worst = worst_abs / std::max(max_ref, 1e-30);
  char note[96];
  snprintf(note, sizeof note, "check: 16 rows, max err %.2g of max|O|", worst);
  if (worst > tol) failed(what, shape, note);
  else {
    double ms = time_ms([&] { CK(launch(Q, K, V, O, scale, causal, B, H, S, (cudaStream_t)0)); });
    CK(cudaGetLastError());
    double flop = causal ? 4.0 * B * H * D * (double)S * (S + 1) / 2 : 4.0 * B * H * (double)S * S * D;
    line(what, shape, flop / ms / 1e9, "TFLOP/s", ms, "", 0, note);
  }
  CK(cudaFree(Q)); CK(cudaFree(K)); CK(cudaFree(V)); CK(cudaFree(O));
}

int main(int argc, char **argv) {
  bool quick = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = std::max(10, atoi(argv[++i]));
    else if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc && g_nonly < 8) g_only[g_nonly++] = argv[++i];
    else { fprintf(stderr, "usage: %s [--reps N (>= 10)] [--quick] [--only NAME]...\n", argv[0]); return 2; }
  }
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    printf("no CUDA device: skipping (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "no devices");
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  printf("device: %s (sm_%d%d, %d SMs, %.0f GiB), driver %d, runtime %d\n", prop.name, prop.major, prop.minor,
         prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, drv, rt);
  if (cublas_open()) printf("cuBLAS: version %d (dlopen)\n", cb.version);
  else printf("cuBLAS: not available (%s): GEMMs are checked on CPU samples only, no ratios\n", cb.why);
  printf("median of %d repeats after %d warm-ups; inputs uniform random in [-1, 1), fresh per problem\n\n", g_reps, g_warm);
  printf("%-22s %-22s %17s %12s  %-34s %s\n", "kernel", "shape", "rate", "time", "vs", "");

  std::vector<int> sizes = quick ? std::vector<int>{4096} : std::vector<int>{4096, 8192};
  for (int s : sizes) {
    bench_gemm<__half>("gemm_f16", tile2cu_launch_gemm_f16, s, s, s);
    // 3 stages and @launch(256, 2): 2 blocks per SM (105 KiB of shared memory, the
    // epilogue's copy in the ring's bytes; 128 registers)
    bench_gemm<__half>("gemm_f16 2 blocks/SM", tile2cu_launch_gemm_f16_mb2, s, s, s);
    // examples/gemm_f16_256.tl on mma.sync: 128 x 256 tiles, warp tiles of 64 x 64
    bench_gemm<__half>("gemm_f16_256 mma.sync", tile2cu_launch_gemm_f16_256, s, s, s);
    // 4 warps of 64 x 64 (@launch(128, 2), no @registers: 128 accumulator elements a thread),
    // 3 stages: 2 blocks per SM (216 registers, 105 KiB)
    bench_gemm<__half>("gemm_f16 4 warps 2 blocks/SM", tile2cu_launch_gemm_f16_w4, s, s, s);
    // gemm_f16_256 at -D BK=64 -D STAGES=4 on mma.sync (211 registers, 204 KiB)
    bench_gemm<__half>("gemm_f16_256 BK64 mma.sync", tile2cu_launch_gemm_f16_256_bk64, s, s, s);
#ifdef HAVE_SM90A
    if (prop.major == 9) bench_gemm<__half>("gemm_f16 sm_90a wgmma", tile2cu_launch_gemm_f16_sm90a, s, s, s);
    if (prop.major == 9)
      bench_gemm<__half>("gemm_f16 sm_90a 2 blocks/SM", tile2cu_launch_gemm_f16_mb2_sm90a, s, s, s);
    // examples/gemm_f16_256.tl: 128 x 256 tiles, m64n256k16 per warpgroup
    if (prop.major == 9) bench_gemm<__half>("gemm_f16_256 sm_90a", tile2cu_launch_gemm_f16_256_sm90a, s, s, s);
    // the same with -D BK=64 -D STAGES=4: 128 x 256 x 64, the epilogue's copy in the ring's bytes
    if (prop.major == 9)
      bench_gemm<__half>("gemm_f16_256 BK64 sm_90a", tile2cu_launch_gemm_f16_256_bk64_sm90a, s, s, s);
#endif
  }
  for (int s : sizes) {
    bench_gemm<__nv_bfloat16>("gemm_bf16", tile2cu_launch_gemm_bf16, s, s, s);
#ifdef HAVE_SM90A
    if (prop.major == 9) bench_gemm<__nv_bfloat16>("gemm_bf16 sm_90a wgmma", tile2cu_launch_gemm_bf16_sm90a, s, s, s);
    if (prop.major == 9)
      bench_gemm<__nv_bfloat16>("gemm_bf16_256 sm_90a", tile2cu_launch_gemm_bf16_256_sm90a, s, s, s);
    if (prop.major == 9)
      bench_gemm<__nv_bfloat16>("gemm_bf16_256 BK64 sm_90a", tile2cu_launch_gemm_bf16_256_bk64_sm90a, s, s, s);
#endif
  }
  for (int s : sizes) bench_gemm<float>("gemm_f32", tile2cu_launch_gemm_f32, s, s, s);
  for (int s : sizes) {
    bench_gemm_i8("gemm_i8", tile2cu_launch_gemm_i8, s, s, s);
#ifdef HAVE_SM90A
    // the same example translated for sm_90a: wgmma m64n128k32 (s8) from TMA-filled rings
    if (prop.major == 9) bench_gemm_i8("gemm_i8 sm_90a wgmma", tile2cu_launch_gemm_i8_sm90a, s, s, s);
    // -D BK=128 -D STAGES=4: 128-byte rows, 4 k32 steps per stage
    if (prop.major == 9) bench_gemm_i8("gemm_i8 BK128 sm_90a", tile2cu_launch_gemm_i8_bk128_sm90a, s, s, s);
#endif
  }
  printf("\n");

  const int M = 16384, N = 4096;  // 256 MiB of f32: well past the L2
  bench_copy((size_t)M * N * 4);
  bench_softmax("softmax", tile2cu_launch_softmax, M, N);
  bench_softmax("softmax_row (1 pass)", tile2cu_launch_softmax_row, M, N);
  bench_rowsum(M, N);
  bench_layernorm("layernorm", tile2cu_launch_layernorm, M, N);
  bench_layernorm("layernorm_row (1 pass)", tile2cu_launch_layernorm_row, M, N);
  // decoding attention, P V as dot(p, v) of one query row (a column sum since session 27)
  // and written as colsum(reshape(p, [BK, 1]) * v)
  bench_decode("decode dot(p, v)", tile2cu_launch_decode_dot, 16, 32, 4096);
  bench_decode("decode colsum", tile2cu_launch_decode_colsum, 16, 32, 4096);
  // an embedding lookup: 16-byte runs of gathered f16 rows (session 28)
  bench_embedding(65536, 50000);
  bench_widen(M, N);  // f16 in, f32 out: 6 bytes an element (session 31's runs)
  // a depthwise causal conv1d (session 39: the halo tile's window writes read X in place)
  bench_conv1d("conv1d halo tile", tile2cu_launch_conv1d_halo, 8, 1024, 4096);
  bench_conv1d("conv1d shifted loads", tile2cu_launch_conv1d_shift, 8, 1024, 4096);
  printf("\n");

  const int AB = 4, AH = 16, AS = 4096;
  bench_attention<float>("attention (f32)", tile2cu_launch_attention, AB, AH, AS, 64, 1e-4);
#ifdef HAVE_ATTN_F16
  bench_attention<__half>("attention_f16", tile2cu_launch_attention_f16, AB, AH, AS, 64, 1e-2);
  bench_attention<__half>("attention_f16 D128", tile2cu_launch_attention_f16_d128, AB, AH, AS, 128, 1e-2);
  bench_attention<__half>("attention_f16 causal", tile2cu_launch_attention_f16, AB, AH, AS, 64, 1e-2, 1);
#ifdef HAVE_SM90A
  if (prop.major == 9) {
    bench_attention<__half>("attention_f16 sm_90a wgmma", tile2cu_launch_attention_f16_sm90a, AB, AH, AS, 64, 1e-2);
    bench_attention<__half>("attention_f16 D128 sm_90a wgmma", tile2cu_launch_attention_f16_d128_sm90a, AB, AH, AS, 128,
                            1e-2);
    // the same without the warpgroups' turns (named barriers ordering their wgmma issues)
    bench_attention<__half>("attention_f16 sm_90a no turns", tile2cu_launch_attention_f16_noturns_sm90a, AB, AH, AS, 64,
                            1e-2);
    bench_attention<__half>("attention_f16 D128 sm_90a no turns", tile2cu_launch_attention_f16_d128_noturns_sm90a, AB,
                            AH, AS, 128, 1e-2);
    // 2 stages: P V not deferred into the next iteration (3 stages, above: deferred)
    bench_attention<__half>("attention_f16 sm_90a 2 stages", tile2cu_launch_attention_f16_s2_sm90a, AB, AH, AS, 64, 1e-2);
    bench_attention<__half>("attention_f16 D128 sm_90a 2 stages", tile2cu_launch_attention_f16_d128_s2_sm90a, AB, AH, AS,
                            128, 1e-2);
    // 4 stages: filled 2 iterations ahead (3 stages: 1, the deferred P V holding a stage)
    bench_attention<__half>("attention_f16 sm_90a 4 stages", tile2cu_launch_attention_f16_s4_sm90a, AB, AH, AS, 64, 1e-2);
    bench_attention<__half>("attention_f16 D128 sm_90a 4 stages", tile2cu_launch_attention_f16_d128_s4_sm90a, AB, AH, AS,
                            128, 1e-2);
    // 192 query rows a block in 3 warpgroups (-D BQ=192 -D THREADS=384): 12 warps per SM
    bench_attention<__half>("attention_f16 D128 sm_90a BQ192", tile2cu_launch_attention_f16_d128_bq192_sm90a, AB, AH,
                            AS, 128, 1e-2);
    // key blocks of 128 (-D BK=128 -D MINB=1): half the iterations, Q K^T by m64n128
    bench_attention<__half>("attention_f16 sm_90a BK128", tile2cu_launch_attention_f16_bk128_sm90a, AB, AH, AS, 64, 1e-2);
    bench_attention<__half>("attention_f16 D128 sm_90a BK128", tile2cu_launch_attention_f16_d128_bk128_sm90a, AB, AH, AS,
                            128, 1e-2);
    // and at D 64 in 2 stages, 2 blocks per SM (128 registers; nothing deferred)
    bench_attention<__half>("attention_f16 sm_90a BK128 2 stages", tile2cu_launch_attention_f16_bk128_s2_sm90a, AB, AH, AS,
                            64, 1e-2);
    // causal: the key loop of a query block stops after its diagonal block
    bench_attention<__half>("attention_f16 sm_90a causal", tile2cu_launch_attention_f16_sm90a, AB, AH, AS, 64, 1e-2, 1);
    bench_attention<__half>("attention_f16 D128 sm_90a causal", tile2cu_launch_attention_f16_d128_sm90a, AB, AH, AS,
                            128, 1e-2, 1);
  }
#endif
  printf("(attention_f16 D128: examples/attention_f16.tl with const D = 128, made at build time;\n"
         " examples/attention.tl (f32) cannot take D = 128: 128 accumulator elements per thread is over the cap of 64)\n");
#else
  printf("attention D128: no example supports it (examples/attention.tl fixes D = 64, and at D = 128 its\n"
         " accumulator is 128 elements per thread, over the cap of 64)\n");
#endif
  if (g_check_failed) printf("\nsome results did not match their reference: those kernels were not timed\n");
  return g_check_failed ? 1 : 0;
}
