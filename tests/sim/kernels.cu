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
