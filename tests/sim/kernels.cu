// kernels.cu: hand-written kernels in the exact form `tile2cu --sim` emits,
// to test the CPU backend itself (driven by tests/sim/driver.c).
// Some are correct; the planted-bug ones must be reported, never run quietly.
#define TILE2CU_SIM 1
#include <tile2cu/rt.cuh>

// Reverses each block's 256 elements through shared memory.
extern "C" __global__ void __launch_bounds__(256)
reverse(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O, int n)
{
  T2C_SIM_SHARED(float, x, 256);
  const int tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * 256 + tid;
  x[tid] = i < n ? X[i] : 0.0f;
  __syncthreads();
  if (i < n) O[i] = x[255 - tid];
}
static void t2c_sim_tramp_reverse(void *const *a) {
  reverse(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
          t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])),
          *static_cast<const int *>(a[2]));
}
T2C_SIM_REGISTER(reverse, t2c_sim_tramp_reverse)

// PLANTED: the same without the barrier.
extern "C" __global__ void __launch_bounds__(256)
reverse_race(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O, int n)
{
  T2C_SIM_SHARED(float, x, 256);
  const int tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * 256 + tid;
  x[tid] = i < n ? X[i] : 0.0f;
  if (i < n) O[i] = x[255 - tid];
}
static void t2c_sim_tramp_reverse_race(void *const *a) {
  reverse_race(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
               t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])),
               *static_cast<const int *>(a[2]));
}
T2C_SIM_REGISTER(reverse_race, t2c_sim_tramp_reverse_race)

// PLANTED: the last thread of the grid reads one past the end of X.
extern "C" __global__ void __launch_bounds__(256)
oob_read(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O)
{
  const int tid = threadIdx.x;
  const long long i = (long long)blockIdx.x * blockDim.x + tid;
  O[i] = X[i + 1];
}
static void t2c_sim_tramp_oob_read(void *const *a) {
  oob_read(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
           t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])));
}
T2C_SIM_REGISTER(oob_read, t2c_sim_tramp_oob_read)

// PLANTED: a write at a negative index.
extern "C" __global__ void __launch_bounds__(64)
oob_write(t2c_sim::tensor<float> O)
{
  O[(int)threadIdx.x - 3] += 1.0f;
}
static void t2c_sim_tramp_oob_write(void *const *a) {
  oob_write(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(oob_write, t2c_sim_tramp_oob_write)

// PLANTED: a shared-array index one past the end.
extern "C" __global__ void __launch_bounds__(64)
oob_shared(t2c_sim::tensor<float> O)
{
  T2C_SIM_SHARED(float, tile, 64);
  const int tid = threadIdx.x;
  tile[tid] = 1.0f;
  __syncthreads();
  O[tid] = tile[tid + 1];
}
static void t2c_sim_tramp_oob_shared(void *const *a) {
  oob_shared(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(oob_shared, t2c_sim_tramp_oob_shared)

// PLANTED: a barrier only the first warp reaches.
extern "C" __global__ void __launch_bounds__(128)
div_barrier(t2c_sim::tensor<float> O)
{
  if (threadIdx.x < 32) __syncthreads();
  O[threadIdx.x] = 1.0f;
}
static void t2c_sim_tramp_div_barrier(void *const *a) {
  div_barrier(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(div_barrier, t2c_sim_tramp_div_barrier)

// PLANTED: two warps wait at two different barriers.
extern "C" __global__ void __launch_bounds__(64)
div_sites(t2c_sim::tensor<float> O)
{
  if (threadIdx.x < 32) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  O[threadIdx.x] = 1.0f;
}
static void t2c_sim_tramp_div_sites(void *const *a) {
  div_sites(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(div_sites, t2c_sim_tramp_div_sites)

// PLANTED: threads 64.. return early while the others wait at a barrier.
extern "C" __global__ void __launch_bounds__(256)
early_exit(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O)
{
  T2C_SIM_SHARED(float, x, 256);
  const int tid = threadIdx.x;
  if (tid >= 64) return;
  x[tid] = X[tid];
  __syncthreads();
  O[tid] = x[63 - tid];
}
static void t2c_sim_tramp_early_exit(void *const *a) {
  early_exit(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
             t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])));
}
T2C_SIM_REGISTER(early_exit, t2c_sim_tramp_early_exit)

// PLANTED: half a warp leaves before a full-mask shuffle.
extern "C" __global__ void __launch_bounds__(32)
div_shfl(t2c_sim::tensor<float> O)
{
  const int tid = threadIdx.x;
  if (tid >= 16) return;
  O[tid] = __shfl_xor_sync(0xffffffffu, (float)tid, 1);
}
static void t2c_sim_tramp_div_shfl(void *const *a) {
  div_shfl(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(div_shfl, t2c_sim_tramp_div_shfl)

// Reads shared memory nobody wrote: must see the poison (all bits set).
extern "C" __global__ void __launch_bounds__(32)
poison(t2c_sim::tensor<float> O, t2c_sim::tensor<int> P)
{
  T2C_SIM_SHARED(float, x, 32);
  T2C_SIM_SHARED(int, y, 32);
  O[threadIdx.x] = x[threadIdx.x];
  P[threadIdx.x] = y[threadIdx.x];
}
static void t2c_sim_tramp_poison(void *const *a) {
  poison(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])),
         t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[1])));
}
T2C_SIM_REGISTER(poison, t2c_sim_tramp_poison)

// Every shuffle for combination c of (op, b, width) in OPS/BS/WS:
// O[c * blockDim.x + tid] = shuffle of X[tid].
extern "C" __global__ void __launch_bounds__(64)
shfl_int(t2c_sim::tensor<const int> X, t2c_sim::tensor<const int> OPS, t2c_sim::tensor<const int> BS,
         t2c_sim::tensor<const int> WS, t2c_sim::tensor<int> O, int ncombo)
{
  const int tid = threadIdx.x;
  const int v = X[tid];
  for (int c = 0; c < ncombo; c++) {
    int r = 0;
    const int b = BS[c], w = WS[c];
    switch (OPS[c]) {
    case 0: r = __shfl_sync(0xffffffffu, v, b, w); break;
    case 1: r = __shfl_up_sync(0xffffffffu, v, (unsigned)b, w); break;
    case 2: r = __shfl_down_sync(0xffffffffu, v, (unsigned)b, w); break;
    case 3: r = __shfl_xor_sync(0xffffffffu, v, b, w); break;
    }
    O[(long long)c * blockDim.x + tid] = r;
  }
}
static void t2c_sim_tramp_shfl_int(void *const *a) {
  shfl_int(t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[0])),
           t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[1])),
           t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[2])),
           t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[3])),
           t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[4])),
           *static_cast<const int *>(a[5]));
}
T2C_SIM_REGISTER(shfl_int, t2c_sim_tramp_shfl_int)

// Shuffles of every other element type (default width), a ballot, and a
// half-warp shuffle with a half-warp mask.
extern "C" __global__ void __launch_bounds__(64)
shfl_types(t2c_sim::tensor<float> F, t2c_sim::tensor<double> D, t2c_sim::tensor<long long> L,
           t2c_sim::tensor<unsigned> U, t2c_sim::tensor<__half> H, t2c_sim::tensor<__nv_bfloat16> B,
           t2c_sim::tensor<unsigned> BAL, t2c_sim::tensor<int> PART)
{
  const int tid = threadIdx.x;
  F[tid] = __shfl_down_sync(0xffffffffu, 0.5f + tid, 3);
  D[tid] = __shfl_xor_sync(0xffffffffu, 0.25 + tid, 5);
  L[tid] = __shfl_up_sync(0xffffffffu, (1LL << 40) + tid, 2);
  U[tid] = __shfl_sync(0xffffffffu, 3000000000u + tid, 7);
  H[tid] = __shfl_xor_sync(0xffffffffu, __float2half(tid * 0.5f), 16, 32);
  B[tid] = __shfl_down_sync(0xffffffffu, __float2bfloat16((float)tid), 1, 8);
  BAL[tid] = __ballot_sync(0xffffffffu, tid % 3 == 0);
  int p = -1;
  if ((tid & 31) < 16) p = __shfl_xor_sync(0x0000ffffu, tid * 10, 1);
  __syncwarp();
  PART[tid] = p;
}
static void t2c_sim_tramp_shfl_types(void *const *a) {
  shfl_types(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])),
             t2c_sim::tensor<double>(static_cast<const T2cSimTensor *>(a[1])),
             t2c_sim::tensor<long long>(static_cast<const T2cSimTensor *>(a[2])),
             t2c_sim::tensor<unsigned>(static_cast<const T2cSimTensor *>(a[3])),
             t2c_sim::tensor<__half>(static_cast<const T2cSimTensor *>(a[4])),
             t2c_sim::tensor<__nv_bfloat16>(static_cast<const T2cSimTensor *>(a[5])),
             t2c_sim::tensor<unsigned>(static_cast<const T2cSimTensor *>(a[6])),
             t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[7])));
}
T2C_SIM_REGISTER(shfl_types, t2c_sim_tramp_shfl_types)

// Each thread records its indices and the launch shape (8 ints per thread).
extern "C" __global__ void __launch_bounds__(40)
grid_ids(t2c_sim::tensor<int> O)
{
  const long long blk = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);
  const long long base = (blk * blockDim.x + threadIdx.x) * 8;
  O[base + 0] = blockIdx.x;
  O[base + 1] = blockIdx.y;
  O[base + 2] = blockIdx.z;
  O[base + 3] = gridDim.x;
  O[base + 4] = gridDim.y;
  O[base + 5] = gridDim.z;
  O[base + 6] = blockDim.x;
  O[base + 7] = threadIdx.x;
}
static void t2c_sim_tramp_grid_ids(void *const *a) {
  grid_ids(t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(grid_ids, t2c_sim_tramp_grid_ids)

// f16/bf16 arithmetic and comparisons, and a warp fold in f16.
extern "C" __global__ void __launch_bounds__(64)
halfmath(t2c_sim::tensor<const __half> A, t2c_sim::tensor<const __nv_bfloat16> B,
         t2c_sim::tensor<__half> OH, t2c_sim::tensor<__nv_bfloat16> OB, t2c_sim::tensor<float> OF,
         t2c_sim::tensor<__half> SUM, __half scale)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half a = A[i];
  const __nv_bfloat16 b = B[i];
  OH[i] = a * a * scale + __float2half(1.0f);
  OB[i] = b - b * b / __float2bfloat16(4.0f);
  OF[i] = (a < __float2half(0.5f) ? 1.0f : 0.0f) + (b == b ? 2.0f : 0.0f) + __half2float(t2c::max(a, __float2half(0.25f)));
  __half s = t2c::cvt<__half>(t2c::cvt<float>(t2c::exp(__float2half(0.0f))) * (float)(threadIdx.x & 7));
  s = t2c::fold_sum<32>(s);
  if ((threadIdx.x & 31) == 0) SUM[i / 32] = s;
}
static void t2c_sim_tramp_halfmath(void *const *a) {
  halfmath(t2c_sim::tensor<const __half>(static_cast<const T2cSimTensor *>(a[0])),
           t2c_sim::tensor<const __nv_bfloat16>(static_cast<const T2cSimTensor *>(a[1])),
           t2c_sim::tensor<__half>(static_cast<const T2cSimTensor *>(a[2])),
           t2c_sim::tensor<__nv_bfloat16>(static_cast<const T2cSimTensor *>(a[3])),
           t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[4])),
           t2c_sim::tensor<__half>(static_cast<const T2cSimTensor *>(a[5])),
           *static_cast<const __half *>(a[6]));
}
T2C_SIM_REGISTER(halfmath, t2c_sim_tramp_halfmath)

// Warp folds over runs of W lanes S apart (a column's lanes): O[k * 32 + lane]
// is fold k of X over lane's run, for (W, S) = (2, 16), (4, 8), (8, 4), (32, 1), (1, 4)
// (sum), (4, 2) (max), (16, 2) (min), in that order.
extern "C" __global__ void __launch_bounds__(32)
strided_folds(t2c_sim::tensor<const int> X, t2c_sim::tensor<int> O)
{
  const int l = threadIdx.x, x = X[l];
  O[0 * 32 + l] = t2c::fold_sum<2, 16>(x);
  O[1 * 32 + l] = t2c::fold_sum<4, 8>(x);
  O[2 * 32 + l] = t2c::fold_sum<8, 4>(x);
  O[3 * 32 + l] = t2c::fold_sum<32, 1>(x);
  O[4 * 32 + l] = t2c::fold_sum<1, 4>(x);
  O[5 * 32 + l] = t2c::fold_max<4, 2>(x);
  O[6 * 32 + l] = t2c::fold_min<16, 2>(x);
}
static void t2c_sim_tramp_strided_folds(void *const *a) {
  strided_folds(t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[0])),
                t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[1])));
}
T2C_SIM_REGISTER(strided_folds, t2c_sim_tramp_strided_folds)

// A 1024-thread block sums its 1024 elements: warp folds, then shared memory.
extern "C" __global__ void __launch_bounds__(1024)
block_sum(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O)
{
  T2C_SIM_SHARED(float, part, 32);
  const int tid = threadIdx.x;
  float v = X[(long long)blockIdx.x * 1024 + tid];
  v = t2c::fold_sum<32>(v);
  if ((tid & 31) == 0) part[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = t2c::fold_sum<32>(part[tid]);
    if (tid == 0) O[blockIdx.x] += v;
  }
}
static void t2c_sim_tramp_block_sum(void *const *a) {
  block_sum(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
            t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])));
}
T2C_SIM_REGISTER(block_sum, t2c_sim_tramp_block_sum)

// t2c::scan_lanes<N, S> over every line shape a row (S = 1) or a column (S = lc)
// of lanes takes, and t2c::fold_argmax / fold_argmin over runs of 32 and 8
// lanes, with ties and NaNs. O[k][0..31]: what comes before each lane of shape
// k; O[k][32..63]: the line's total. A: argmax, argmin (32), argmax (8).
template <int N, int S>
static void scan_shape(t2c_sim::tensor<const int> X, t2c_sim::tensor<int> O, int k, int lane) {
  int v = X[lane];
  const int t = t2c::scan_lanes<N, S>(lane, v, t2c::Add(), 0);
  O[k * 64 + lane] = v;
  O[k * 64 + 32 + lane] = t;
}
extern "C" __global__ void __launch_bounds__(32)
scan_arg(t2c_sim::tensor<const int> X, t2c_sim::tensor<const float> F, t2c_sim::tensor<int> O, t2c_sim::tensor<int> A)
{
  const int lane = threadIdx.x;
  scan_shape<32, 1>(X, O, 0, lane);
  scan_shape<16, 1>(X, O, 1, lane);
  scan_shape<8, 1>(X, O, 2, lane);
  scan_shape<2, 1>(X, O, 3, lane);
  scan_shape<4, 8>(X, O, 4, lane);
  scan_shape<8, 4>(X, O, 5, lane);
  scan_shape<2, 16>(X, O, 6, lane);
  scan_shape<1, 32>(X, O, 7, lane);
  scan_shape<4, 4>(X, O, 8, lane);
  float v = F[lane];
  int i = lane;
  t2c::fold_argmax<32>(v, i);
  A[lane] = i;
  v = F[lane], i = lane;
  t2c::fold_argmin<32>(v, i);
  A[32 + lane] = i;
  v = F[lane], i = lane;
  t2c::fold_argmax<8>(v, i);
  A[64 + lane] = i;
}
static void t2c_sim_tramp_scan_arg(void *const *a) {
  scan_arg(t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[0])),
           t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[1])),
           t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[2])),
           t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[3])));
}
T2C_SIM_REGISTER(scan_arg, t2c_sim_tramp_scan_arg)

// Dynamic shared memory: a rotate by one through a buffer at byte offset 1024,
// scaled by a double and an unsigned scalar.
extern "C" __global__ void __launch_bounds__(96)
dyn_rotate(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O, double scale, unsigned add)
{
  T2C_SIM_DYNAMIC_SMEM(t2c_smem);
  float *y = reinterpret_cast<float *>(t2c_smem + 1024);
  const int tid = threadIdx.x;
  y[tid] = X[blockIdx.x * 96 + tid];
  __syncthreads();
  O[blockIdx.x * 96 + tid] = (float)(y[(tid + 1) % 96] * scale) + (float)add;
}
static void t2c_sim_tramp_dyn_rotate(void *const *a) {
  dyn_rotate(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
             t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])),
             *static_cast<const double *>(a[2]),
             *static_cast<const unsigned *>(a[3]));
}
T2C_SIM_REGISTER(dyn_rotate, t2c_sim_tramp_dyn_rotate)

// PLANTED: writes past the end of its dynamic shared memory.
extern "C" __global__ void __launch_bounds__(32)
dyn_overflow(t2c_sim::tensor<float> O)
{
  T2C_SIM_DYNAMIC_SMEM(t2c_smem);
  float *y = reinterpret_cast<float *>(t2c_smem);
  y[threadIdx.x + 1] = 1.0f;
  O[threadIdx.x] = 0.0f;
}
static void t2c_sim_tramp_dyn_overflow(void *const *a) {
  dyn_overflow(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(dyn_overflow, t2c_sim_tramp_dyn_overflow)

// Math helpers that plain <cmath> lacks, and rt.cuh's math.
extern "C" __global__ void __launch_bounds__(32)
mathfns(t2c_sim::tensor<float> O, t2c_sim::tensor<double> D)
{
  const int i = threadIdx.x;
  const float x = 0.25f + i;
  O[i * 4 + 0] = rsqrtf(x);
  O[i * 4 + 1] = t2c::sigmoid(x - 8.0f);
  O[i * 4 + 2] = t2c::inf<float>() > 1e38f ? exp2f(x / 8.0f) : 0.0f;
  O[i * 4 + 3] = __int_as_float(__float_as_int(x)) + (INFINITY > 0.0f ? 0.0f : 1.0f);
  D[i] = t2c::rsqrt((double)x) + (t2c::inf<double>() > 1e300 ? 0.0 : 1.0);
}
static void t2c_sim_tramp_mathfns(void *const *a) {
  mathfns(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])),
          t2c_sim::tensor<double>(static_cast<const T2cSimTensor *>(a[1])));
}
T2C_SIM_REGISTER(mathfns, t2c_sim_tramp_mathfns)

// rt.cuh's Philox4x32-10, one vector per thread: K holds each vector's counter
// (4 words) and key (2 words), O gets the 4 output words, then randint of the
// vector's first counter word with the key as the seed; F gets rand and randn
// of the same. The driver checks them against Random123's known answers.
extern "C" __global__ void __launch_bounds__(32)
philox_kat(t2c_sim::tensor<const unsigned> K, t2c_sim::tensor<unsigned> O, t2c_sim::tensor<float> F, int n)
{
  const int v = threadIdx.x;
  if (v < n) {
    const t2c::Philox4x32 p = t2c::philox4x32_10(K[6 * v], K[6 * v + 1], K[6 * v + 2], K[6 * v + 3], K[6 * v + 4], K[6 * v + 5]);
    for (int i = 0; i < 4; i++) O[5 * v + i] = p.w[i];
    const long long seed = (long long)((unsigned long long)K[6 * v + 5] << 32 | K[6 * v + 4]);
    O[5 * v + 4] = t2c::randint(seed, K[6 * v]);
    F[2 * v] = t2c::rand(seed, K[6 * v]);
    F[2 * v + 1] = t2c::randn(seed, K[6 * v]);
  }
}
static void t2c_sim_tramp_philox_kat(void *const *a) {
  philox_kat(t2c_sim::tensor<const unsigned>(static_cast<const T2cSimTensor *>(a[0])),
             t2c_sim::tensor<unsigned>(static_cast<const T2cSimTensor *>(a[1])),
             t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[2])), *static_cast<const int *>(a[3]));
}
T2C_SIM_REGISTER(philox_kat, t2c_sim_tramp_philox_kat)

// rt.cuh's byte_perm (__byte_perm, PTX prmt.b32) of X[i], Y[i] with selector S[i] into O[i];
// and part_f32 of each byte of W[i], as s8 into F[8 i + k], as u8 into F[8 i + 4 + k].
extern "C" __global__ void __launch_bounds__(64)
byte_perm_k(t2c_sim::tensor<const unsigned> X, t2c_sim::tensor<const unsigned> Y, t2c_sim::tensor<const unsigned> S,
            t2c_sim::tensor<unsigned> O, t2c_sim::tensor<const unsigned> W, t2c_sim::tensor<float> F, int n)
{
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    O[i] = t2c::byte_perm(X[i], Y[i], S[i]);
    for (int k = 0; k < 4; k++) {
      F[8 * i + k] = t2c::part_f32<signed char>(W[i], k);
      F[8 * i + 4 + k] = t2c::part_f32<unsigned char>(W[i], k);
    }
  }
}
static void t2c_sim_tramp_byte_perm_k(void *const *a) {
  byte_perm_k(t2c_sim::tensor<const unsigned>(static_cast<const T2cSimTensor *>(a[0])),
              t2c_sim::tensor<const unsigned>(static_cast<const T2cSimTensor *>(a[1])),
              t2c_sim::tensor<const unsigned>(static_cast<const T2cSimTensor *>(a[2])),
              t2c_sim::tensor<unsigned>(static_cast<const T2cSimTensor *>(a[3])),
              t2c_sim::tensor<const unsigned>(static_cast<const T2cSimTensor *>(a[4])),
              t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[5])), *static_cast<const int *>(a[6]));
}
T2C_SIM_REGISTER(byte_perm_k, t2c_sim_tramp_byte_perm_k)

// t2c::FastDiv: the quotient and remainder of N[i] by D[i], each divisor made for its
// element (a kernel makes one and divides by it in a loop).
extern "C" __global__ void __launch_bounds__(256)
fastdiv_k(t2c_sim::tensor<const int> D, t2c_sim::tensor<const int> N, t2c_sim::tensor<int> Q, t2c_sim::tensor<int> R, int n)
{
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const t2c::FastDiv d(D[i]);
    Q[i] = d.div(N[i]);
    R[i] = d.mod(N[i]);
  }
}
static void t2c_sim_tramp_fastdiv_k(void *const *a) {
  fastdiv_k(t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[0])),
            t2c_sim::tensor<const int>(static_cast<const T2cSimTensor *>(a[1])),
            t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[2])),
            t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[3])), *static_cast<const int *>(a[4]));
}
T2C_SIM_REGISTER(fastdiv_k, t2c_sim_tramp_fastdiv_k)

// t2c::exp and t2c::exp2 of f32 (the CPU backend's ex2.approx.ftz.f32), one
// element per thread.
extern "C" __global__ void __launch_bounds__(256)
exp_approx(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> E, t2c_sim::tensor<float> E2, int n)
{
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    E[i] = t2c::exp(X[i]);
    E2[i] = t2c::exp2(X[i]);
  }
}
static void t2c_sim_tramp_exp_approx(void *const *a) {
  exp_approx(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
             t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])),
             t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[2])), *static_cast<const int *>(a[3]));
}
T2C_SIM_REGISTER(exp_approx, t2c_sim_tramp_exp_approx)

// PLANTED: recursion deep enough to overflow a thread's stack.
static int deep(int n) {
  volatile char buf[4096];
  buf[0] = (char)n;
  return n == 0 ? 0 : deep(n - 1) + buf[0];
}
extern "C" __global__ void __launch_bounds__(32)
stack_overflow(t2c_sim::tensor<int> O)
{
  O[threadIdx.x] = threadIdx.x == 5 ? deep(1000) : 0;
}
static void t2c_sim_tramp_stack_overflow(void *const *a) {
  stack_overflow(t2c_sim::tensor<int>(static_cast<const T2cSimTensor *>(a[0])));
}
T2C_SIM_REGISTER(stack_overflow, t2c_sim_tramp_stack_overflow)

// ======================================================================
// Tensor cores (mma, ldmatrix) and cp.async: rt.cuh's t2c:: helpers.
// The driver checks them against the PTX ISA's layouts computed in C.
#define T2C_ARG(T, i) t2c_sim::tensor<T>(static_cast<const T2cSimTensor *>(a[i]))

template <typename T> static inline void mma_t(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]);
template <> inline void mma_t<__half>(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  t2c::mma_16816_f16(d[0], d[1], d[2], d[3], a, b);
}
template <> inline void mma_t<__nv_bfloat16>(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  t2c::mma_16816_bf16(d[0], d[1], d[2], d[3], a, b);
}

// Block b: D_b[M][N] = A_b[M][K] x B_b[K][N] + C_b[M][N] (row-major, block b's
// matrices follow each other). A and B go to padded row-major shared tiles
// (plain loads, or with PIPE cp.async in two K stages); WM x WN warps each own
// a (M/WM) x (N/WN) tile: A fragments by ldmatrix_x4, B by ldmatrix_x2_trans.
template <typename T, int M, int N, int K, int WM, int WN, bool PIPE>
static void gemm_body(t2c_sim::tensor<const T> A, t2c_sim::tensor<const T> B, t2c_sim::tensor<const float> C,
                      t2c_sim::tensor<float> D) {
  enum { LA = K + 8, LB = N + 8, TM = M / WM, TN = N / WN, MI = TM / 16, NI = TN / 8 };
  T2C_SIM_SHARED(T, As, M * LA);
  T2C_SIM_SHARED(T, Bs, K * LB);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, nt = blockDim.x;
  const long long ab = (long long)blockIdx.x * M * K, bb = (long long)blockIdx.x * K * N,
                  cb = (long long)blockIdx.x * M * N;
  if (PIPE) {
    // Stage s holds k in [16s, 16s + 16): 16-byte chunks of 8 elements.
    for (int s = 0; s < K / 16; s++) {
      for (int c = tid; c < M * 2; c += nt) {
        const int r = c / 2, k = s * 16 + c % 2 * 8;
        t2c::cp_async_16(&As[r * LA + k], A + (ab + r * K + k), 16);
      }
      for (int c = tid; c < 16 * (N / 8); c += nt) {
        const int k = s * 16 + c / (N / 8), n = c % (N / 8) * 8;
        t2c::cp_async_16(&Bs[k * LB + n], B + (bb + (long long)k * N + n), 16);
      }
      t2c::cp_async_commit();
    }
  } else {
    for (int i = tid; i < M * K; i += nt) As[i / K * LA + i % K] = A[ab + i];
    for (int i = tid; i < K * N; i += nt) Bs[i / N * LB + i % N] = B[bb + i];
    __syncthreads();
  }
  const int wm = warp / WN, wn = warp % WN, g = lane / 4, t = lane % 4;
  float acc[MI][NI][4];
  for (int mi = 0; mi < MI; mi++)
    for (int ni = 0; ni < NI; ni++)
      for (int i = 0; i < 4; i++)
        acc[mi][ni][i] = C[cb + (long long)(wm * TM + mi * 16 + g + i / 2 * 8) * N + wn * TN + ni * 8 + 2 * t + i % 2];
  for (int k0 = 0; k0 < K; k0 += 16) {
    if (PIPE) {
      if (k0 + 16 < K) t2c::cp_async_wait<1>();
      else t2c::cp_async_wait<0>();
      __syncthreads();
    }
    unsigned af[MI][4], bf[NI][2];
    for (int mi = 0; mi < MI; mi++)
      t2c::ldmatrix_x4(af[mi], &As[(wm * TM + mi * 16 + lane % 16) * LA + k0 + lane / 16 * 8]);
    for (int ni = 0; ni < NI; ni++)
      t2c::ldmatrix_x2_trans(bf[ni], &Bs[(k0 + lane % 16) * LB + wn * TN + ni * 8]);
    for (int mi = 0; mi < MI; mi++)
      for (int ni = 0; ni < NI; ni++) mma_t<T>(acc[mi][ni], af[mi], bf[ni]);
  }
  for (int mi = 0; mi < MI; mi++)
    for (int ni = 0; ni < NI; ni++)
      for (int i = 0; i < 4; i++)
        D[cb + (long long)(wm * TM + mi * 16 + g + i / 2 * 8) * N + wn * TN + ni * 8 + 2 * t + i % 2] = acc[mi][ni][i];
}

#define T2C_GEMM_KERNEL(name, T, M, N, K, WM, WN, PIPE)                                                   \
  extern "C" __global__ void __launch_bounds__(WM * WN * 32)                                             \
  name(t2c_sim::tensor<const T> A, t2c_sim::tensor<const T> B, t2c_sim::tensor<const float> C,           \
       t2c_sim::tensor<float> D)                                                                         \
  {                                                                                                      \
    gemm_body<T, M, N, K, WM, WN, PIPE>(A, B, C, D);                                                     \
  }                                                                                                      \
  static void t2c_sim_tramp_##name(void *const *a) {                                                     \
    name(T2C_ARG(const T, 0), T2C_ARG(const T, 1), T2C_ARG(const float, 2), T2C_ARG(float, 3));          \
  }                                                                                                      \
  T2C_SIM_REGISTER(name, t2c_sim_tramp_##name)
T2C_GEMM_KERNEL(gemm_f16_16x8x16, __half, 16, 8, 16, 1, 1, false)
T2C_GEMM_KERNEL(gemm_bf16_16x8x16, __nv_bfloat16, 16, 8, 16, 1, 1, false)
T2C_GEMM_KERNEL(gemm_f16_64x64x32, __half, 64, 64, 32, 2, 2, false)
T2C_GEMM_KERNEL(gemm_bf16_64x64x32, __nv_bfloat16, 64, 64, 32, 2, 2, false)
T2C_GEMM_KERNEL(gemm_f16_64x64x32_pipe, __half, 64, 64, 32, 2, 2, true)
T2C_GEMM_KERNEL(gemm_bf16_64x64x32_pipe, __nv_bfloat16, 64, 64, 32, 2, 2, true)

// Warp w (of the grid) computes D_w = A_w x B_w + C_w for one 16x8x16 tile,
// building the fragments by hand from the PTX ISA's tables (no ldmatrix).
// P[w*32 + lane] = 1 when unpack_lo/unpack_hi give back what pack2 packed.
template <typename T>
static void mma_frag_body(t2c_sim::tensor<const T> A, t2c_sim::tensor<const T> B, t2c_sim::tensor<const float> C,
                          t2c_sim::tensor<float> D, t2c_sim::tensor<int> P) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const long long a0 = w * 256, b0 = w * 128, c0 = w * 128;
#define Aat(r, c) A[a0 + (r) * 16 + (c)]
#define Bat(k, n) B[b0 + (k) * 8 + (n)]
  const unsigned a[4] = {t2c::pack2(Aat(g, 2 * t), Aat(g, 2 * t + 1)), t2c::pack2(Aat(g + 8, 2 * t), Aat(g + 8, 2 * t + 1)),
                         t2c::pack2(Aat(g, 2 * t + 8), Aat(g, 2 * t + 9)),
                         t2c::pack2(Aat(g + 8, 2 * t + 8), Aat(g + 8, 2 * t + 9))};
  const unsigned b[2] = {t2c::pack2(Bat(2 * t, g), Bat(2 * t + 1, g)), t2c::pack2(Bat(2 * t + 8, g), Bat(2 * t + 9, g))};
  float d[4];
  for (int i = 0; i < 4; i++) d[i] = C[c0 + (g + i / 2 * 8) * 8 + 2 * t + i % 2];
  mma_t<T>(d, a, b);
  for (int i = 0; i < 4; i++) D[c0 + (g + i / 2 * 8) * 8 + 2 * t + i % 2] = d[i];
  const T lo = t2c::unpack_lo<T>(a[3]), hi = t2c::unpack_hi<T>(a[3]);
  P[w * 32 + lane] = memcmp(&lo, &Aat(g + 8, 2 * t + 8), 2) == 0 && memcmp(&hi, &Aat(g + 8, 2 * t + 9), 2) == 0;
#undef Aat
#undef Bat
}
extern "C" __global__ void __launch_bounds__(64)
mma_frag_f16(t2c_sim::tensor<const __half> A, t2c_sim::tensor<const __half> B, t2c_sim::tensor<const float> C,
             t2c_sim::tensor<float> D, t2c_sim::tensor<int> P)
{
  mma_frag_body(A, B, C, D, P);
}
static void t2c_sim_tramp_mma_frag_f16(void *const *a) {
  mma_frag_f16(T2C_ARG(const __half, 0), T2C_ARG(const __half, 1), T2C_ARG(const float, 2), T2C_ARG(float, 3),
               T2C_ARG(int, 4));
}
T2C_SIM_REGISTER(mma_frag_f16, t2c_sim_tramp_mma_frag_f16)
extern "C" __global__ void __launch_bounds__(64)
mma_frag_bf16(t2c_sim::tensor<const __nv_bfloat16> A, t2c_sim::tensor<const __nv_bfloat16> B,
              t2c_sim::tensor<const float> C, t2c_sim::tensor<float> D, t2c_sim::tensor<int> P)
{
  mma_frag_body(A, B, C, D, P);
}
static void t2c_sim_tramp_mma_frag_bf16(void *const *a) {
  mma_frag_bf16(T2C_ARG(const __nv_bfloat16, 0), T2C_ARG(const __nv_bfloat16, 1), T2C_ARG(const float, 2),
                T2C_ARG(float, 3), T2C_ARG(int, 4));
}
T2C_SIM_REGISTER(mma_frag_bf16, t2c_sim_tramp_mma_frag_bf16)

// Warp w (of the grid) computes D_w = A_w x B_w + C_w for one 16x8x32 s8 tile
// (s32 accumulators), the fragments packed by hand from the PTX ISA's table
// for mma.m16n8k32 .s8: A register i holds row g (+8 for i odd), columns
// 4t .. 4t+3 (+16 for i >= 2), lowest byte first; B register i holds rows
// 4t .. 4t+3 (+16 for i = 1) of column g.
extern "C" __global__ void __launch_bounds__(64)
mma_frag_s8(t2c_sim::tensor<const signed char> A, t2c_sim::tensor<const signed char> B, t2c_sim::tensor<const int> C,
            t2c_sim::tensor<int> D)
{
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const long long a0 = w * 512, b0 = w * 256, c0 = w * 128;
  unsigned a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      a[i] |= (unsigned)(unsigned char)A[a0 + (g + i % 2 * 8) * 32 + 4 * t + j + i / 2 * 16] << 8 * j;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++) b[i] |= (unsigned)(unsigned char)B[b0 + (4 * t + j + i * 16) * 8 + g] << 8 * j;
  int d[4];
  for (int i = 0; i < 4; i++) d[i] = C[c0 + (g + i / 2 * 8) * 8 + 2 * t + i % 2];
  t2c::mma_16832_i8(d[0], d[1], d[2], d[3], a, b);
  for (int i = 0; i < 4; i++) D[c0 + (g + i / 2 * 8) * 8 + 2 * t + i % 2] = d[i];
}
static void t2c_sim_tramp_mma_frag_s8(void *const *a) {
  mma_frag_s8(T2C_ARG(const signed char, 0), T2C_ARG(const signed char, 1), T2C_ARG(const int, 2), T2C_ARG(int, 3));
}
T2C_SIM_REGISTER(mma_frag_s8, t2c_sim_tramp_mma_frag_s8)

// The same for e4m3 (e5m2 when e5 != 0) codes and f32 accumulators: the 8-bit
// fragment table of mma.m16n8k32.
extern "C" __global__ void __launch_bounds__(64)
mma_frag_f8(t2c_sim::tensor<const unsigned char> A, t2c_sim::tensor<const unsigned char> B,
            t2c_sim::tensor<const float> C, t2c_sim::tensor<float> D, int e5)
{
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const long long a0 = w * 512, b0 = w * 256, c0 = w * 128;
  unsigned a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) a[i] |= (unsigned)A[a0 + (g + i % 2 * 8) * 32 + 4 * t + j + i / 2 * 16] << 8 * j;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++) b[i] |= (unsigned)B[b0 + (4 * t + j + i * 16) * 8 + g] << 8 * j;
  float d[4];
  for (int i = 0; i < 4; i++) d[i] = C[c0 + (g + i / 2 * 8) * 8 + 2 * t + i % 2];
  if (e5) t2c::mma_16832_f8e5m2(d[0], d[1], d[2], d[3], a, b);
  else t2c::mma_16832_f8e4m3(d[0], d[1], d[2], d[3], a, b);
  for (int i = 0; i < 4; i++) D[c0 + (g + i / 2 * 8) * 8 + 2 * t + i % 2] = d[i];
}
static void t2c_sim_tramp_mma_frag_f8(void *const *a) {
  mma_frag_f8(T2C_ARG(const unsigned char, 0), T2C_ARG(const unsigned char, 1), T2C_ARG(const float, 2),
              T2C_ARG(float, 3), *static_cast<const int *>(a[4]));
}
T2C_SIM_REGISTER(mma_frag_f8, t2c_sim_tramp_mma_frag_f8)

// Every ldmatrix variant: S (64 rows of 8 b16) goes to shared memory; thread
// tid gives the address of row ROWS[tid] (threads 16-31 of each warp give a
// null address for the .x2 forms: those lanes are ignored). O holds, per
// variant v (x4, x2, x4.trans, x2.trans), thread tid's registers at
// O[(v * blockDim.x + tid) * 4 + i], zeros where there are fewer than 4.
extern "C" __global__ void __launch_bounds__(64)
ldm_all(t2c_sim::tensor<const unsigned short> S, t2c_sim::tensor<const int> ROWS, t2c_sim::tensor<unsigned> O)
{
  T2C_SIM_SHARED(unsigned short, s, 64 * 8);
  const int tid = threadIdx.x, lane = tid % 32, nt = blockDim.x;
  for (int i = tid; i < 64 * 8; i += nt) s[i] = S[i];
  __syncthreads();
  const void *row = &s[ROWS[tid] * 8];
  const void *row16 = lane < 16 ? row : nullptr;
  unsigned r4[4], r2[2];
  t2c::ldmatrix_x4(r4, row);
  for (int i = 0; i < 4; i++) O[(0LL * nt + tid) * 4 + i] = r4[i];
  t2c::ldmatrix_x2(r2, row16);
  for (int i = 0; i < 4; i++) O[(1LL * nt + tid) * 4 + i] = i < 2 ? r2[i] : 0u;
  t2c::ldmatrix_x4_trans(r4, row);
  for (int i = 0; i < 4; i++) O[(2LL * nt + tid) * 4 + i] = r4[i];
  t2c::ldmatrix_x2_trans(r2, row16);
  for (int i = 0; i < 4; i++) O[(3LL * nt + tid) * 4 + i] = i < 2 ? r2[i] : 0u;
}
static void t2c_sim_tramp_ldm_all(void *const *a) {
  ldm_all(T2C_ARG(const unsigned short, 0), T2C_ARG(const int, 1), T2C_ARG(unsigned, 2));
}
T2C_SIM_REGISTER(ldm_all, t2c_sim_tramp_ldm_all)

// PLANTED, by mode: 0 half the warp leaves before an ldmatrix; 1 a row address
// that is not 16-byte aligned; 2 a row address outside shared memory; 3 an mma
// in a block whose last warp has 16 threads; 4 lanes disagree on x4 vs x2.
extern "C" __global__ void __launch_bounds__(48)
tc_bad(t2c_sim::tensor<unsigned> O, int mode)
{
  T2C_SIM_SHARED(unsigned short, s, 32 * 8);
  unsigned short local[8] __attribute__((aligned(16))) = {0};
  const int tid = threadIdx.x, lane = tid % 32;
  if (tid < 32)
    for (int i = 0; i < 8; i++) s[lane * 8 + i] = (unsigned short)(tid * 8 + i);
  __syncthreads();
  unsigned r[4] = {0, 0, 0, 0}, r2[2] = {0, 0};
  if (mode == 0) {
    if (lane >= 16) return;
    t2c::ldmatrix_x2(r2, &s[lane * 8]);
  } else if (mode == 1) {
    t2c::ldmatrix_x4(r, &s[lane * 8 + (lane == 9 ? 4 : 0)]);
  } else if (mode == 2) {
    t2c::ldmatrix_x4_trans(r, lane == 3 ? (const void *)local : &s[lane * 8]);
  } else if (mode == 3) {
    const unsigned b[2] = {0, 0};
    float d[4] = {0, 0, 0, 0};
    t2c::mma_16816_f16(d[0], d[1], d[2], d[3], r, b);
    r[0] = (unsigned)d[0];
  } else if (mode == 4) {
    if (lane < 8) t2c::ldmatrix_x2(r2, &s[lane * 8]);
    else t2c::ldmatrix_x4(r, &s[lane * 8]);
  }
  O[tid] = r[0] + r2[0];
}
static void t2c_sim_tramp_tc_bad(void *const *a) {
  tc_bad(T2C_ARG(unsigned, 0), *static_cast<const int *>(a[1]));
}
T2C_SIM_REGISTER(tc_bad, t2c_sim_tramp_tc_bad)

// cp.async, 64 threads per block; block b, thread tid:
//   group 1: 16 bytes of X from element 4c (c = b*64 + tid) into s[4tid..],
//            bytes_valid = clamp(4 * (n - 4c), 0, 16), source X + 4c even past n;
//   group 2: 4 bytes: X[e] (e = b*64 + tid) into t[tid] while 4e < n, else
//            0 bytes from the bare tensor X (zeros);
//   group 3: 4 bytes of H from element 2c into h[2tid..], bytes_valid =
//            clamp(2 * (nh - 2c), 0, 4), so one may be half valid;
//   then an uncommitted copy of X[...] into u[tid].
// After wait<2> (group 1 complete) a thread reads back its own s (OS) and t
// (PEND[2*i]: group 2 is pending, so poison); after wait<0>, u is still
// pending (uncommitted: PEND[2*i+1]); after a commit and wait<0> and a
// barrier, threads read t and h reversed across the block (OT, OH) and u (OU).
extern "C" __global__ void __launch_bounds__(64)
cpa_groups(t2c_sim::tensor<const float> X, t2c_sim::tensor<const __half> H, t2c_sim::tensor<float> OS,
           t2c_sim::tensor<float> OT, t2c_sim::tensor<__half> OH, t2c_sim::tensor<float> OU,
           t2c_sim::tensor<unsigned> PEND, int n, int nh, t2c_sim::tensor<__half> OH8)
{
  T2C_SIM_SHARED(__half, h8, 64 * 4);
  T2C_SIM_SHARED(float, s, 64 * 4);
  T2C_SIM_SHARED(float, t, 64);
  T2C_SIM_SHARED(__half, h, 64 * 2);
  T2C_SIM_SHARED(float, u, 64);
  const int tid = threadIdx.x;
  const long long c = (long long)blockIdx.x * 64 + tid, e = (long long)blockIdx.x * 64 + tid;
  const long long v16 = 4 * (n - 4 * c), vh = 2 * (nh - 2 * c);
  t2c::cp_async_16(&s[4 * tid], X + 4 * c, (int)(v16 < 0 ? 0 : v16 > 16 ? 16 : v16));
  t2c::cp_async_commit();
  if (4 * e < n) t2c::cp_async_4(&t[tid], X + e, 4);
  else t2c::cp_async_4(&t[tid], X, 0);  // the base pointer, as the translator passes it
  t2c::cp_async_commit();
  t2c::cp_async_4(&h[2 * tid], H + 2 * c, (int)(vh < 0 ? 0 : vh > 4 ? 4 : vh));
  t2c::cp_async_commit();
  const long long v8 = 2 * (nh - 4 * c);  // 8 bytes: 4 halves, the valid ones first
  t2c::cp_async_8(&h8[4 * tid], H + (v8 > 0 ? 4 * c : 0), (int)(v8 < 0 ? 0 : v8 > 8 ? 8 : v8));
  t2c::cp_async_4(&u[tid], X + (e < n ? e : 0), e < n ? 4 : 0);
  t2c::cp_async_wait<2>();
  for (int i = 0; i < 4; i++) OS[4 * c + i] = s[4 * tid + i];
  PEND[2 * e] = __float_as_uint(t[tid]);
  t2c::cp_async_wait<0>();
  PEND[2 * e + 1] = __float_as_uint(u[tid]);
  t2c::cp_async_commit();
  t2c::cp_async_wait<0>();
  __syncthreads();
  OT[e] = t[63 - tid];
  OH[2 * c] = h[2 * (63 - tid)];
  OH[2 * c + 1] = h[2 * (63 - tid) + 1];
  OU[e] = u[tid];
  for (int j = 0; j < 4; j++) OH8[4 * c + j] = h8[4 * (63 - tid) + j];
}
static void t2c_sim_tramp_cpa_groups(void *const *a) {
  cpa_groups(T2C_ARG(const float, 0), T2C_ARG(const __half, 1), T2C_ARG(float, 2), T2C_ARG(float, 3),
             T2C_ARG(__half, 4), T2C_ARG(float, 5), T2C_ARG(unsigned, 6), *static_cast<const int *>(a[7]),
             *static_cast<const int *>(a[8]), T2C_ARG(__half, 9));
}
T2C_SIM_REGISTER(cpa_groups, t2c_sim_tramp_cpa_groups)

// PLANTED, by mode: 0 no wait before the barrier (__syncthreads does not wait
// for cp.async: the reads see the poison, or data that other threads' later
// waits delivered); 1 a ring buffer refilled without a
// barrier after its last read (a race); 2 bytes_valid of 16 for a chunk that
// crosses the end of X; 3 a source at an element offset that is not 16-byte
// aligned; 4 a destination outside shared memory; 5 bytes_valid 17; 6 a
// buffer refilled while other threads may still read it (the destination is
// undefined from the issue on, so those reads see the poison: a race).
extern "C" __global__ void __launch_bounds__(64)
cpa_bad(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O, int n, int mode)
{
  T2C_SIM_SHARED(float, s, 64 * 4);
  const int tid = threadIdx.x;
  float acc = 0.0f;
  if (mode == 0) {
    t2c::cp_async_16(&s[4 * tid], X + 4 * tid, 16);
    t2c::cp_async_commit();
    __syncthreads();
    acc = s[4 * (63 - tid)];
  } else if (mode == 1) {
    for (int it = 0; it < 4; it++) {
      t2c::cp_async_4(&s[tid], X + (it * 64 + tid), 4);
      t2c::cp_async_commit();
      t2c::cp_async_wait<0>();
      __syncthreads();
      acc = acc * 2.0f + s[63 - tid];
      // missing: __syncthreads();
    }
  } else if (mode == 2) {
    t2c::cp_async_16(&s[4 * tid], X + 4 * tid, 4 * tid < n ? 16 : 0);
  } else if (mode == 3) {
    t2c::cp_async_16(&s[4 * tid], X + (4 * tid + (tid == 7 ? 2 : 0)), 16);
  } else if (mode == 4) {
    float local[4] __attribute__((aligned(16)));
    t2c::cp_async_16(tid == 2 ? (void *)local : (void *)&s[4 * tid], X + 4 * tid, 16);
  } else if (mode == 5) {
    t2c::cp_async_16(&s[4 * tid], X + 4 * tid, tid == 1 ? 17 : 16);
  } else if (mode == 6) {
    t2c::cp_async_4(&s[tid], X + tid, 4);
    t2c::cp_async_commit();
    t2c::cp_async_wait<0>();
    __syncthreads();
    acc = s[63 - tid];
    t2c::cp_async_4(&s[tid], X + (64 + tid), 4);  // missing: __syncthreads() before
    t2c::cp_async_commit();
    __syncthreads();
    O[tid] = acc;
    return;  // (a wait here would let the later readers see the new data instead)
  }
  t2c::cp_async_wait<0>();
  O[tid] = acc;
}
static void t2c_sim_tramp_cpa_bad(void *const *a) {
  cpa_bad(T2C_ARG(const float, 0), T2C_ARG(float, 1), *static_cast<const int *>(a[2]),
          *static_cast<const int *>(a[3]));
}
T2C_SIM_REGISTER(cpa_bad, t2c_sim_tramp_cpa_bad)

// t2c::ldg_vec / stg_vec / aligned, as the tile IR's fast bodies use them.
// mode 0: every thread copies a run of 4 floats X -> O (a correct kernel);
// mode 1: PLANTED, the last thread's run starts 2 elements past the last full run (out of bounds);
// mode 2: PLANTED, thread 5's run starts at an index that is not a multiple of 4 (misaligned);
// mode 3: PLANTED, the store of thread 3 is misaligned;
// mode 4: O[tid] = 1 when t2c::aligned(X, 16), else 0; O[tid + 32] likewise for (X + 1 element) via mode's data.
extern "C" __global__ void __launch_bounds__(32)
vec_runs(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O, int mode)
{
  const int tid = threadIdx.x;
  if (mode == 4) {
    O[tid] = t2c::aligned(X, 16) ? 1.0f : 0.0f;
    return;
  }
  const int i = 4 * tid + (mode == 1 && tid == 31 ? 2 : 0) + (mode == 2 && tid == 5 ? 1 : 0);
  const t2c::Vec<float, 4> w = t2c::ldg_vec<4>(X + i);
  const int o = 4 * tid + (mode == 3 && tid == 3 ? 2 : 0);
  t2c::stg_vec<4>(O + o, t2c::Vec<float, 4>{{w.v[0], w.v[1], w.v[2], w.v[3]}});
}
static void t2c_sim_tramp_vec_runs(void *const *a) {
  vec_runs(T2C_ARG(const float, 0), T2C_ARG(float, 1), *static_cast<const int *>(a[2]));
}
T2C_SIM_REGISTER(vec_runs, t2c_sim_tramp_vec_runs)

// packed_parts: packed registers (pipeline.c's rings of 1- and 2-byte elements). Each
// thread loads 8 i8 of X and 4 f16 of H as words (t2c::ldg_words), writes element
// tid % 8 of its bytes as -tid and element tid % 4 of its halves as H's element 0
// through t2c::part_ref, and stores every element read back with t2c::part.
extern "C" __global__ void __launch_bounds__(32)
packed_parts(t2c_sim::tensor<const signed char> X, t2c_sim::tensor<const __half> H, t2c_sim::tensor<signed char> OX,
             t2c_sim::tensor<__half> OH)
{
  const int tid = threadIdx.x;
  unsigned b[2], h[2];
  const t2c::Vec<unsigned, 2> wb = t2c::ldg_words<8>(X + 8 * tid);
  const t2c::Vec<unsigned, 2> wh = t2c::ldg_words<4>(H + 4 * tid);
  b[0] = wb.v[0], b[1] = wb.v[1], h[0] = wh.v[0], h[1] = wh.v[1];
  t2c::part_ref<signed char>(b[tid % 8 / 4], tid % 4) = (signed char)-tid;
  t2c::part_ref<__half>(h[tid % 4 / 2], tid % 2) = H[0];
  for (int k = 0; k < 8; k++) OX[8 * tid + k] = t2c::part<signed char>(b[k / 4], k % 4);
  for (int k = 0; k < 4; k++) OH[4 * tid + k] = t2c::part<__half>(h[k / 2], k % 2);
}
static void t2c_sim_tramp_packed_parts(void *const *a) {
  packed_parts(T2C_ARG(const signed char, 0), T2C_ARG(const __half, 1), T2C_ARG(signed char, 2), T2C_ARG(__half, 3));
}
T2C_SIM_REGISTER(packed_parts, t2c_sim_tramp_packed_parts)

// atomic_runs: t2c::atomic_add_vec, a run's elements each added atomically. Every
// thread of 2 blocks of 64 adds {1, 2, 3, 4} at F[4 * (tid % 2)] (F of 8), and
// {1, 2} at H[2 * (tid % 4)] and B[2 * (tid % 4)] (f16 and bf16 of 8); by mode:
// 1 PLANTED thread 5's f32 run starts at index 1 (misaligned);
// 2 PLANTED thread 7's f32 run starts at index 6 (elements 6 .. 9 of 8: out of bounds);
// 3 PLANTED thread 2's f16 pair starts at index 3 (misaligned).
extern "C" __global__ void __launch_bounds__(64)
atomic_runs(t2c_sim::tensor<float> F, t2c_sim::tensor<__half> H, t2c_sim::tensor<__nv_bfloat16> B, int mode)
{
  const int tid = threadIdx.x;
  const int f = mode == 1 && tid == 5 ? 1 : mode == 2 && tid == 7 ? 6 : 4 * (tid % 2);
  t2c::atomic_add_vec<4>(F + f, t2c::Vec<float, 4>{{1.0f, 2.0f, 3.0f, 4.0f}});
  const int h = mode == 3 && tid == 2 ? 3 : 2 * (tid % 4);
  t2c::atomic_add_vec<2>(H + h, t2c::Vec<__half, 2>{{__float2half(1.0f), __float2half(2.0f)}});
  t2c::atomic_add_vec<2>(B + 2 * (tid % 4), t2c::Vec<__nv_bfloat16, 2>{{__float2bfloat16(1.0f), __float2bfloat16(2.0f)}});
}
static void t2c_sim_tramp_atomic_runs(void *const *a) {
  atomic_runs(T2C_ARG(float, 0), T2C_ARG(__half, 1), T2C_ARG(__nv_bfloat16, 2), *static_cast<const int *>(a[3]));
}
T2C_SIM_REGISTER(atomic_runs, t2c_sim_tramp_atomic_runs)

// ---- the race detector on tensors (the expected messages are in driver.c).
// tr_intra, one block of 64 threads, O of shape [2, 32], by mode:
// 0 PLANTED threads 0 and 1 write O[37];
// 1 PLANTED after a barrier, threads 62 and 63 write O[0];
// 2 PLANTED thread 3 writes O[9], which thread 4 reads;
// 3 PLANTED thread 3 reads O[9], which thread 4 writes;
// 4 PLANTED threads 1 and 2 read O[20], and after a shuffle (no barrier)
//   thread 1 writes it;
// 5 correct: O[t] = t; barrier; every thread reads O[t + 1] and O[0];
//   barrier; O[t] = 2 * O[t + 1] + O[0] (a barrier between every write and
//   another thread's read);
// 6 correct: each thread reads, modifies and writes its own O[t] again and again.
extern "C" __global__ void __launch_bounds__(64)
tr_intra(t2c_sim::tensor<int> O, int mode)
{
  const int tid = threadIdx.x;
  if (mode == 0) {
    if (tid < 2) O[37] = tid;
  } else if (mode == 1) {
    O[tid] = tid;
    __syncthreads();
    if (tid >= 62) O[0] = tid;
  } else if (mode == 2) {
    if (tid == 3) O[9] = 1;
    if (tid == 4) O[10] = O[9];
  } else if (mode == 3) {
    if (tid == 3) O[10] = O[9];
    if (tid == 4) O[9] = 1;
  } else if (mode == 4) {
    int v = 0;
    if (tid == 1 || tid == 2) v = O[20];
    v = __shfl_sync(0xffffffffu, v, 2);
    if (tid == 1) O[20] = v + 1;
  } else if (mode == 5) {
    O[tid] = tid;
    __syncthreads();
    const int v = O[(tid + 1) % 64], z = O[0];
    __syncthreads();
    O[tid] = 2 * v + z;
  } else if (mode == 6) {
    O[tid] = tid;
    O[tid] += 3;
    O[tid] *= 2;
    O[tid] = O[tid] + 1;
    O[tid]++;
  }
}
static void t2c_sim_tramp_tr_intra(void *const *a) {
  tr_intra(T2C_ARG(int, 0), *static_cast<const int *>(a[1]));
}
T2C_SIM_REGISTER(tr_intra, t2c_sim_tramp_tr_intra)

// tr_inter, blocks of 64 threads, by mode:
// 0 PLANTED thread b of block b writes O[0];
// 1 PLANTED thread 0 of block 0 writes O[1], which thread 2 of block 1 reads;
// 2 PLANTED thread 5 of block 0 reads O[1], which thread 0 of block 1 writes;
// 3 correct: each block writes its own 64 elements, and every thread reads
//   the last element, which nobody writes.
extern "C" __global__ void __launch_bounds__(64)
tr_inter(t2c_sim::tensor<int> O, int mode)
{
  const int tid = threadIdx.x, b = blockIdx.x;
  if (mode == 0) {
    if (tid == b) O[0] = b;
  } else if (mode == 1) {
    if (b == 0 && tid == 0) O[1] = 7;
    if (b == 1 && tid == 2) O[2] = O[1];
  } else if (mode == 2) {
    if (b == 0 && tid == 5) O[2] = O[1];
    if (b == 1 && tid == 0) O[1] = 7;
  } else if (mode == 3) {
    const int last = O[gridDim.x * 64];
    O[b * 64 + tid] = b * 64 + tid + last;
  }
}
static void t2c_sim_tramp_tr_inter(void *const *a) {
  tr_inter(T2C_ARG(int, 0), *static_cast<const int *>(a[1]));
}
T2C_SIM_REGISTER(tr_inter, t2c_sim_tramp_tr_inter)

// A histogram over blocks of 64 threads: H[X[i]] += 1 through an atomic
// (mode 0: atomics never count as a race), or PLANTED without (mode 1).
extern "C" __global__ void __launch_bounds__(64)
tr_hist(t2c_sim::tensor<const int> X, t2c_sim::tensor<int> H, int n, int mode)
{
  const int i = blockIdx.x * 64 + threadIdx.x;
  if (i >= n) return;
  if (mode == 0) atomicAdd(H[X[i]].atomic(), 1);
  else H[X[i]] += 1;
}
static void t2c_sim_tramp_tr_hist(void *const *a) {
  tr_hist(T2C_ARG(const int, 0), T2C_ARG(int, 1), *static_cast<const int *>(a[2]),
          *static_cast<const int *>(a[3]));
}
T2C_SIM_REGISTER(tr_hist, t2c_sim_tramp_tr_hist)

// The vector and cp.async paths, 32 threads, O of 128 floats, by mode:
// 0 PLANTED thread 1 stores its run of 4 (stg_vec) over thread 0's;
// 1 PLANTED thread t stores run t, then loads run t + 1 (ldg_vec) with no barrier;
// 2 correct: the same with a barrier;
// 3 PLANTED thread t writes O[t], then cp.async reads O[t + 1];
// 4 PLANTED thread 1 stores 16 bytes (store16) over thread 0's.
extern "C" __global__ void __launch_bounds__(32)
tr_vec(t2c_sim::tensor<float> O, int mode)
{
  T2C_SIM_SHARED(float, s, 32);
  const int tid = threadIdx.x, next = (tid + 1) % 32;
  const t2c::Vec<float, 4> w = {{1.0f * tid, 2.0f, 3.0f, 4.0f}};
  if (mode == 0) {
    t2c::stg_vec<4>(O + (tid == 1 ? 0 : 4 * tid), w);
  } else if (mode == 1 || mode == 2) {
    t2c::stg_vec<4>(O + 4 * tid, w);
    if (mode == 2) __syncthreads();
    const t2c::Vec<float, 4> r = t2c::ldg_vec<4>(O + 4 * next);
    if (mode == 2) __syncthreads();
    O[4 * tid] = r.v[0];
  } else if (mode == 3) {
    O[tid] = 1.0f;
    t2c::cp_async_4(&s[tid], O + next, 4);
    t2c::cp_async_commit();
    t2c::cp_async_wait<0>();
  } else if (mode == 4) {
    t2c::store16(O + (tid == 1 ? 0 : 4 * tid), 1.0f, 2.0f, 3.0f, 4.0f);
  }
}
static void t2c_sim_tramp_tr_vec(void *const *a) {
  tr_vec(T2C_ARG(float, 0), *static_cast<const int *>(a[1]));
}
T2C_SIM_REGISTER(tr_vec, t2c_sim_tramp_tr_vec)

// Templates given elements of a writable tensor (elem_ref): t2c::max and min,
// a fold, a shuffle and t2c::cvt take the element's value, and write nothing.
// O[t] = t and H[t] = t on entry.
extern "C" __global__ void __launch_bounds__(32)
tr_refs(t2c_sim::tensor<float> O, t2c_sim::tensor<__half> H)
{
  const int tid = threadIdx.x;
  const float v = t2c::max(O[tid], 5.0f) + t2c::min(2.0f, O[tid]) + t2c::max(O[tid], O[tid]);
  const float s = t2c::fold_sum<32>(O[tid]);
  const float x = __shfl_xor_sync(0xffffffffu, O[tid], 1);
  const float c = t2c::cvt<float>(H[tid]) + (float)t2c::max(H[tid], H[tid]);
  O[tid] = v + s + x + c;
  H[tid] += 1.0f;
}
static void t2c_sim_tramp_tr_refs(void *const *a) {
  tr_refs(T2C_ARG(float, 0), T2C_ARG(__half, 1));
}
T2C_SIM_REGISTER(tr_refs, t2c_sim_tramp_tr_refs)

// t2c::atomic_add / atomic_max / atomic_min, as the language's atomics lower:
// every thread of every block updates H[0] (a count), H[1] (a max) and F[0] (a
// float sum), from two workers at once. Atomics never race.
extern "C" __global__ void __launch_bounds__(256)
tr_atomics(t2c_sim::tensor<int> H, t2c_sim::tensor<float> F)
{
  const int i = blockIdx.x * 256 + threadIdx.x;
  t2c::atomic_add(H + 0, 1);
  t2c::atomic_max(H + 1, i);
  t2c::atomic_min(H + 2, -i);
  t2c::atomic_add(F + 0, 1.0f);
}
static void t2c_sim_tramp_tr_atomics(void *const *a) {
  tr_atomics(T2C_ARG(int, 0), T2C_ARG(float, 1));
}
T2C_SIM_REGISTER(tr_atomics, t2c_sim_tramp_tr_atomics)

// Float atomic_min and atomic_max where the only difference is the sign of
// zero: odd threads give -0.0, even ones 0.0, in whatever order the schedule
// runs them. Z[0] (from 0.0) takes the min, Z[1] (from -0.0) the max, Z[2]
// (from 1.0) the min; D the same in f64. -0.0 is the lesser, whatever the order.
extern "C" __global__ void __launch_bounds__(64)
tr_atomic_zeros(t2c_sim::tensor<float> Z, t2c_sim::tensor<double> D)
{
  const int i = blockIdx.x * 64 + threadIdx.x;
  const float z = i % 2 ? -0.0f : 0.0f;
  const double zd = i % 2 ? -0.0 : 0.0;
  t2c::atomic_min(Z + 0, z);
  t2c::atomic_max(Z + 1, z);
  t2c::atomic_min(Z + 2, z);
  t2c::atomic_min(D + 0, zd);
  t2c::atomic_max(D + 1, zd);
  t2c::atomic_min(D + 2, zd);
}
static void t2c_sim_tramp_tr_atomic_zeros(void *const *a) {
  tr_atomic_zeros(T2C_ARG(float, 0), T2C_ARG(double, 1));
}
T2C_SIM_REGISTER(tr_atomic_zeros, t2c_sim_tramp_tr_atomic_zeros)

// Float atomic adds whose sum cancels: block b adds V[b] to F[0] (f32), to
// D[0] (f64, the same values) and to H[0] (f16, V[b] / 2^14): one worker for 3
// blocks, so schedule 0 adds them in block order and schedule 1 in reverse.
// With V = {1, 2^27, -2^27} the f32 orders give 0 and 1.
extern "C" __global__ void __launch_bounds__(32)
tr_atomic_cancel(t2c_sim::tensor<const float> V, t2c_sim::tensor<float> F, t2c_sim::tensor<double> D,
                 t2c_sim::tensor<__half> H)
{
  if (threadIdx.x == 0) {
    const float v = V[blockIdx.x];
    t2c::atomic_add(F + 0, v);
    t2c::atomic_add(D + 0, (double)v);
    t2c::atomic_add(H + 0, __float2half(v * 0x1p-14f));
  }
}
static void t2c_sim_tramp_tr_atomic_cancel(void *const *a) {
  tr_atomic_cancel(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])), T2C_ARG(float, 1),
                   T2C_ARG(double, 2), T2C_ARG(__half, 3));
}
T2C_SIM_REGISTER(tr_atomic_cancel, t2c_sim_tramp_tr_atomic_cancel)

// PLANTED: block b adds (b + 1) times the count in F[1] to F[0], then counts
// itself in F[1] (both float atomic adds); F[1]'s read is no atomic, so F[0]
// depends on the order of the blocks by far more than rounding: 0 + 2 + 6 in
// block order, 0 + 2 + 2 reversed.
extern "C" __global__ void __launch_bounds__(32)
tr_atomic_order(t2c_sim::tensor<float> F)
{
  if (threadIdx.x == 0) {
    const float c = F[1];
    t2c::atomic_add(F + 0, c * (float)(blockIdx.x + 1));
    t2c::atomic_add(F + 1, 1.0f);
  }
}
static void t2c_sim_tramp_tr_atomic_order(void *const *a) { tr_atomic_order(T2C_ARG(float, 0)); }
T2C_SIM_REGISTER(tr_atomic_order, t2c_sim_tramp_tr_atomic_order)

// A strided view X [R, C] (strides s0, s1) copied into row-major O, one
// element per thread; `shift` moves every read that many elements along the
// buffer (PLANTED when nonzero: reads fall between the view's elements).
extern "C" __global__ void __launch_bounds__(64)
strided_copy(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O, int R, int C, long long s0, long long s1,
             int shift)
{
  const int tid = threadIdx.x;
  const int r = tid / C, c = tid % C;
  if (r < R) O[(long long)r * C + c] = X[(long long)r * s0 + (long long)c * s1 + shift];
}
static void t2c_sim_tramp_strided_copy(void *const *a) {
  strided_copy(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
               t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])), *static_cast<const int *>(a[2]),
               *static_cast<const int *>(a[3]), *static_cast<const long long *>(a[4]),
               *static_cast<const long long *>(a[5]), *static_cast<const int *>(a[6]));
}
T2C_SIM_REGISTER(strided_copy, t2c_sim_tramp_strided_copy)

// PLANTED: a 16-byte load of row r of a strided view from column 4 (every
// row is 5 wide in a buffer 8 per row, so 3 of its 4 elements are gaps).
extern "C" __global__ void __launch_bounds__(32)
strided_vec(t2c_sim::tensor<const float> X, t2c_sim::tensor<float> O)
{
  const int tid = threadIdx.x;
  if (tid < 2) {
    const t2c::Vec<float, 4> w = t2c::ldg_vec<4>(X + (long long)tid * 8 + 4);
    O[tid] = w.v[0];
  }
}
static void t2c_sim_tramp_strided_vec(void *const *a) {
  strided_vec(t2c_sim::tensor<const float>(static_cast<const T2cSimTensor *>(a[0])),
              t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[1])));
}
T2C_SIM_REGISTER(strided_vec, t2c_sim_tramp_strided_vec)

// PLANTED: threads 0 and 1 both write element (1, 2) of a strided view O.
extern "C" __global__ void __launch_bounds__(32)
strided_race(t2c_sim::tensor<float> O, long long s0, long long s1)
{
  if (threadIdx.x < 2) O[1 * s0 + 2 * s1] = (float)threadIdx.x;
}
static void t2c_sim_tramp_strided_race(void *const *a) {
  strided_race(t2c_sim::tensor<float>(static_cast<const T2cSimTensor *>(a[0])), *static_cast<const long long *>(a[1]),
               *static_cast<const long long *>(a[2]));
}
T2C_SIM_REGISTER(strided_race, t2c_sim_tramp_strided_race)

// A shared array's elements as operands of rt.cuh's templates (in sim mode an
// element is an elem_ref, which a template must not take for its type): one
// thread, s = {7, 2, 40, 3}; O (int) gets idiv(s0, s1), imod(s0, 3), shlv(s1, s3),
// shrv(s2, s1), min(s2, 5), max(4, s1), and atomic_add/max/min of s0 on O[6..8];
// then O[s1] += 5 through an atomic at O + s1 (an index from shared memory, as a
// gather's) and O[9] = s[s3]; F (float) gets store16 of {f0, 2, f1, 4} (f = {1.5, -2.5}).
extern "C" __global__ void __launch_bounds__(32)
shared_operands(t2c_sim::tensor<int> O, t2c_sim::tensor<float> F)
{
  T2C_SIM_SHARED(int, s, 4);
  T2C_SIM_SHARED(float, f, 2);
  if (threadIdx.x != 0) return;
  s[0] = 7, s[1] = 2, s[2] = 40, s[3] = 3;
  f[0] = 1.5f, f[1] = -2.5f;
  O[0] = t2c::idiv(s[0], s[1]);
  O[1] = t2c::imod(s[0], 3);
  O[2] = t2c::shlv(s[1], s[3]);
  O[3] = t2c::shrv(s[2], s[1]);
  O[4] = t2c::min(s[2], 5);
  O[5] = t2c::max(4, s[1]);
  t2c::atomic_add(O + 6, s[0]);
  t2c::atomic_max(O + 7, s[0]);
  t2c::atomic_min(O + 8, s[0]);
  t2c::atomic_add(O + s[1], 5);
  O[9] = s[s[3]];
  t2c::store16(F + 0, f[0], 2.0f, f[1], 4.0f);
}
static void t2c_sim_tramp_shared_operands(void *const *a) { shared_operands(T2C_ARG(int, 0), T2C_ARG(float, 1)); }
T2C_SIM_REGISTER(shared_operands, t2c_sim_tramp_shared_operands)
