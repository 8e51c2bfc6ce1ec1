/* hopper.c: tests of the CPU backend's sm_90a emulation, one instruction at
 * a time, against references written here from the specifications:
 *   - the swizzles: the CUDA C++ Programming Guide, Table 24 ("Swizzle
 *     Pattern Pointer Offset Formula and Index Relation");
 *   - mbarrier phases, expect_tx and try_wait.parity: PTX ISA 9.7.13.15
 *     ("Parallel Synchronization and Communication Instructions: mbarrier");
 *   - TMA loads and stores (cp.async.bulk.tensor): PTX ISA 9.7.9.25 and the
 *     guide's "Using the Tensor Memory Accelerator" (zero fill, clipping);
 *   - stmatrix: PTX ISA 9.7.14.5.16 (the ldmatrix fragment layout, stored);
 *   - wgmma.mma_async m64nNk16 (f16, bf16) and m64nNk32 (s8, u8, e4m3, e5m2):
 *     PTX ISA 9.7.15.5.1.1 (register fragments),
 *     9.7.15.5.1.2 (matrix descriptor; canonical layouts). The shared images
 *     are laid out here as a TMA load with the same swizzle writes them (one
 *     box of W-byte rows per atom) and as the no-swizzle example of a kernel
 *     that runs on the GPU (microsoft/MMA-Sim tests/nv/cuda/mma_sm90.cu:
 *     8x8 core matrices of 16-byte rows, LBO 128 along K, SBO 256 along M).
 * Planted misuses must fail fast with a message naming what failed; a
 * deadlock (wrong parity, missing bytes or arrivals) is one of them.
 * Usage: hopper ROOT BUILD_DIR
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks.h"
#include "simrun.h"

static const char *so;
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}

/* ---- f16 and bf16 (round to nearest even) */
static uint16_t f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;
  if (ax >= 0x477ff000) return (uint16_t)(sign | 0x7c00);
  if (ax < 0x38800000) {
    float v;
    memcpy(&v, &ax, 4);
    return (uint16_t)(sign | (uint32_t)nearbyintf(v * 16777216.0f));
  }
  uint32_t r = ax + 0xfff + ((ax >> 13) & 1);
  return (uint16_t)(sign | ((r - 0x38000000) >> 13));
}
static float h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
  if (e == 0) {
    float v = ldexpf((float)m, -24);
    return sign ? -v : v;
  }
  x = e == 31 ? sign | 0x7f800000 | (m << 13) : sign | ((e + 112) << 23) | (m << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint16_t f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
static float bf2f(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static double b16f(uint16_t v, int bf) { return bf ? bf2f(v) : h2f(v); }
static uint16_t b16_random(int bf, int ints) {
  float v = ints ? (float)((int)(rnd() % 17) - 8) : (float)(rnd() % 2000000) / 500000.0f - 2.0f;
  return bf ? f2bf(v) : f2h(v);
}

/* ---- launching */
static T2cSimTensor tensor(void *data, long long n, int eb, const char *name) {
  T2cSimTensor t = {data, n, eb, name, 0, NULL, NULL};
  return t;
}

static int launch(const char *kernel, unsigned threads, size_t dyn, void **args, int nargs, unsigned outmask,
                  int schedules, char *err) {
  const T2cSimTensor *outs[16];
  int no = 0;
  for (int i = 0; i < nargs; i++)
    if (outmask >> i & 1) outs[no++] = args[i];
  T2cSimLaunch l = {kernel, {1, 1, 1}, threads, dyn, args, nargs, outs, no, schedules};
  err[0] = 0;
  return sim_run(so, &l, err, ERRLEN);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the swizzles, as the guide's Table 24 states them: the 16-byte chunk
 * x of the 128-byte row y of shared memory (y counted from a 1024-aligned
 * address, so that the table's offset is 0) lands at chunk (y % n) ^ x, n =
 * 8, 4, 2 for the 128-, 64- and 32-byte swizzles. */
static unsigned guide_swizzle(unsigned off, int w) {
  if (w == 0) return off;
  unsigned y = off / 128, x = off % 128 / 16, n = (unsigned)w / 16;
  return y * 128 + ((y % n) ^ x) * 16 + off % 16;
}

static void test_swizzle(void) {
  static const int modes[] = {0, 32, 64, 128};
  checks++;
  for (int m = 0; m < 4; m++)
    for (unsigned a = 0; a < 8192; a++)
      if (t2c_sim_swizzle(a, (unsigned)modes[m]) != guide_swizzle(a, modes[m])) {
        fail("swizzle", "%d-byte swizzle of %u is %u, the guide's table says %u", modes[m], a,
             t2c_sim_swizzle(a, (unsigned)modes[m]), guide_swizzle(a, modes[m]));
        return;
      }
}

/* ---- mbarrier */
static void test_mbar_phases(void) {
  enum { T = 96 };
  int o[4 * T];
  T2cSimTensor to = tensor(o, 4 * T, 4, "O");
  void *args[] = {&to};
  char err[ERRLEN];
  if (!expect_ok("mbarrier phases", launch("hop_mbar_phases", T, 16 + 3 * T * 4, args, 1, 1, 3, err), err)) return;
  for (int ph = 0; ph < 3; ph++)
    for (int t = 0; t < T; t++)
      if (o[ph * T + t] != 1000 * ph + (t + 1) % T) {
        fail("mbarrier phases", "phase %d, thread %d read %d, want %d", ph, t, o[ph * T + t], 1000 * ph + (t + 1) % T);
        return;
      }
  for (int t = 0; t < T; t++)
    if (o[3 * T + t] != 1) {
      fail("mbarrier phases", "thread %d: try_wait.parity 0 after phase 2 gave false", t);
      return;
    }
}

/* hop_sh_race's output for mode m, computed from the kernel's comment. */
static int sh_race_want(int mode, int t) {
  if (mode == 0) return 10 * (t ^ 1);
  if (mode == 2) return t < 32 ? 0 : 10 * (t - 32);
  return t < 32 ? t + 32 : 0; /* mode 5: lane t's low half of ldmatrix row t / 4, column 2 (t % 4): s[t] = t + 32 */
}

/* The shared-memory race detector: __syncwarp() and an mbarrier wait order
 * accesses, their planted absence is reported with the tile, the byte and
 * both threads; ldmatrix's reads are seen too. */
static void test_sh_race(void) {
  int o[64], mode = 0;
  T2cSimTensor to = tensor(o, 64, 4, "O");
  void *args[] = {&to, &mode};
  char err[ERRLEN];
  const size_t dyn = 64 + 64 * 4;
  static const struct {
    int mode;
    const char *name, *msg, *msg2;
  } cases[] = {
      {0, "shared race: __syncwarp orders a warp's exchange", NULL, NULL},
      {1, "shared race: __syncwarp does not order two warps",
       "race: shared tile 's' + byte 128 (dynamic shared memory + 192) in kernel 'hop_sh_race', block (0,0,0): "
       "thread 32 wrote it and thread 0 reads it, and no __syncthreads(), __syncwarp(), mbarrier wait or named barrier orders the two",
       NULL},
      {2, "shared race: an mbarrier wait orders the arrivals' writes", NULL, NULL},
      {3, "shared race: no mbarrier wait",
       "race: shared tile 's' + byte 0 (dynamic shared memory + 64) in kernel 'hop_sh_race', block (0,0,0): ",
       "thread 0 wrote it and thread 32 reads it"},
      {4, "shared race: ldmatrix reads another warp's writes",
       "race: shared tile 's' + byte 0 (dynamic shared memory + 64) in kernel 'hop_sh_race', block (0,0,0): ",
       "thread 32 wrote it and thread 0 reads it"},
      {5, "shared race: a barrier before ldmatrix", NULL, NULL},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    mode = cases[c].mode;
    if (cases[c].msg) {
      expect_err(cases[c].name, launch("hop_sh_race", 64, dyn, args, 2, 1, 1, err), err, cases[c].msg, cases[c].msg2,
                 NULL);
      continue;
    }
    if (!expect_ok(cases[c].name, launch("hop_sh_race", 64, dyn, args, 2, 1, 3, err), err)) continue;
    for (int t = 0; t < 64; t++)
      if (o[t] != sh_race_want(mode, t)) {
        fail(cases[c].name, "O[%d] = %d, want %d", t, o[t], sh_race_want(mode, t));
        break;
      }
  }
}

/* Named barriers (PTX ISA 9.7.13.1, bar / barrier: bar.sync waits until the
 * barrier's count of threads has arrived, bar.arrive arrives without waiting;
 * the arrivals and the completed wait order memory, 8.x "bar{.cta}.sync or
 * bar{.cta}.red or bar{.cta}.arrive synchronizes with bar{.cta}.sync"): two
 * warpgroups take turns in the order the barriers force, their counter's
 * updates ordered by them alone; planted misuses fail fast, naming what. */
static void test_named_bar(void) {
  int o[64], mode = 0, iters = 5;
  T2cSimTensor to = tensor(o, 64, 4, "O");
  void *args[] = {&to, &mode, &iters};
  char err[ERRLEN];
  size_t dyn = 64 * 4;
  for (int sched = 1; sched <= 3; sched += 2) {
    memset(o, 0xff, sizeof o);
    if (!expect_ok("named barriers: turns", launch("hop_named_bar", 256, dyn, args, 3, 1, sched, err), err)) break;
    for (int t = 0; t < 2 * iters; t++)
      if (o[t] != t) {
        fail("named barriers: turns", "O[%d] = %d, want %d (the turns in order)", t, o[t], t);
        break;
      }
  }
  double t0 = now();
  mode = 1;
  expect_err("named barriers: no first arrival", launch("hop_named_bar", 256, dyn, args, 3, 1, 1, err), err,
             "named barrier deadlock in kernel 'hop_named_bar', block (0,0,0): threads 0-255 wait at bar.sync (",
             "; named barrier 1 has 128 of 256 arrivals; named barrier 2 has 128 of 256 arrivals", NULL);
  if (now() - t0 > 5) fail("named barriers: no first arrival", "took %.1f s to report the deadlock", now() - t0);
  mode = 2;
  expect_err("named barriers: an arrival left", launch("hop_named_bar", 256, dyn, args, 3, 1, 1, err), err,
             "named barrier 1 in kernel 'hop_named_bar', block (0,0,0): 128 of 256 arrivals when the threads exited", NULL,
             NULL);
  mode = 3;
  expect_err("named barriers: counts differ", /* which count comes first depends on the schedule */ launch("hop_named_bar", 256, dyn, args, 3, 1, 1, err), err,
             " 1, ", "while the barrier's generation counts ", "(128 arrived)", NULL);
  mode = 4;
  expect_err("named barriers: barrier 0", launch("hop_named_bar", 256, dyn, args, 3, 1, 1, err), err,
             "bar.arrive 0 (", "): a named barrier is 1 .. 15 (0 is __syncthreads()'s)", NULL);
  mode = 5;
  expect_err("named barriers: none", launch("hop_named_bar", 256, dyn, args, 3, 1, 1, err), err,
             "race: shared tile 'ctr' + byte 0 (dynamic shared memory + 0) in kernel 'hop_named_bar', block (0,0,0): ", NULL);
}

static void test_mbar_bad(void) {
  int o[64], mode;
  T2cSimTensor to = tensor(o, 64, 4, "O");
  void *args[] = {&to, &mode};
  char err[ERRLEN];
  double t0 = now();
  mode = 0;
  expect_err("mbarrier wrong parity", launch("hop_mbar_bad", 64, 128, args, 2, 1, 1, err), err,
             "mbarrier deadlock in kernel 'hop_mbar_bad', block (0,0,0): threads 0-63 wait at mbarrier.try_wait.parity (",
             "; mbarrier dynamic shared memory + 64 bytes is waited for with parity 1, but its phase 1 (parity 1) still "
             "waits for 1 of 1 arrivals and tx-count 0",
             NULL);
  if (now() - t0 > 5) fail("mbarrier wrong parity", "took %.1f s to report the deadlock", now() - t0);
  mode = 1;
  expect_err("mbarrier missing bytes", launch("hop_mbar_bad", 64, 128, args, 2, 1, 1, err), err,
             "mbarrier deadlock in kernel 'hop_mbar_bad'",
             "is waited for with parity 0, but its phase 0 (parity 0) still waits for 0 of 1 arrivals and tx-count 64",
             NULL);
  mode = 2;
  expect_err("mbarrier uninitialized", launch("hop_mbar_bad", 64, 128, args, 2, 1, 1, err), err,
             "mbarrier.try_wait.parity on ", "(dynamic shared memory + 64 bytes), which no mbarrier.init has initialized",
             NULL);
  mode = 3;
  expect_err("mbarrier init not synced", launch("hop_mbar_bad", 64, 128, args, 2, 1, 1, err), err,
             "mbarrier.arrive on mbarrier dynamic shared memory + 64 bytes by thread 1 before a __syncthreads() after "
             "its mbarrier.init by thread 0",
             NULL);
  mode = 4;
  expect_err("mbarrier extra arrival", launch("hop_mbar_bad", 64, 128, args, 2, 1, 1, err), err,
             "mbarrier.arrive on mbarrier dynamic shared memory + 64 bytes: more arrivals than its count 1 in phase 0 "
             "(it still waits for 64 bytes)",
             NULL);
  mode = 5;
  expect_err("mbarrier arrivers exited", launch("hop_mbar_bad", 64, 128, args, 2, 1, 1, err), err,
             "mbarrier deadlock in kernel 'hop_mbar_bad', block (0,0,0): thread 0 waits at mbarrier.try_wait.parity (",
             "threads 1-63 have exited", "still waits for 1 of 1 arrivals", NULL);
}

/* ---- TMA: a [37, 75] f16 tensor with rows 80 elements (160 bytes) apart */
enum { TR = 37, TC = 75, TS = 80 };

static int encode(T2cSimTensorMap *m, void *base, const T2cSimTensor *t, unsigned box0, unsigned box1, int swz,
                  unsigned long long d0, unsigned long long d1, unsigned long long stride) {
  unsigned long long dims[2] = {d0, d1}, strides[1] = {stride};
  unsigned box[2] = {box0, box1};
  char err[256];
  if (t2c_sim_tensor_map_encode(m, 2, 2, base, dims, strides, box, swz, t, err, sizeof err)) {
    fail("tensor map", "%s", err);
    return 0;
  }
  return 1;
}

static unsigned box0_of(int w) { return w ? (unsigned)w / 2 : 24; }

static void test_tma_load(void) {
  static uint16_t g[TR * TS];
  static unsigned char o[2 * 4096];
  for (int i = 0; i < TR * TS; i++) g[i] = (uint16_t)(1 + rnd() % 60000);
  T2cSimTensor tg = tensor(g, TR * TS, 2, "G"), to = tensor(o, 2 * 4096, 1, "O");
  static const int modes[] = {0, 32, 64, 128};
  for (int m = 0; m < 4; m++) {
    int w = modes[m];
    unsigned b0 = box0_of(w), b1 = 12;
    int bytes = (int)(b0 * b1 * 2), span = (bytes + 1023) / 1024 * 1024;
    int cs[2][2] = {{TC - (int)b0 / 2, TR - 5}, {-8, -3}};  /* a ragged corner; before the start */
    T2cSimTensorMap map;
    if (!encode(&map, g, &tg, b0, b1, w, TC, TR, TS * 2)) return;
    void *args[] = {&map, &to, &cs[0][0], &cs[0][1], &cs[1][0], &cs[1][1], &bytes, &span};
    char err[ERRLEN], name[64];
    snprintf(name, sizeof name, "tma load, %d-byte swizzle", w);
    memset(o, 0, sizeof o);
    if (!expect_ok(name, launch("hop_tma_load", 64, (size_t)(2 * span + 8), args, 8, 2, 3, err), err)) return;
    for (int k = 0; k < 2; k++)
      for (unsigned i = 0; i < b1; i++)
        for (unsigned j = 0; j < b0; j++) {
          int r = cs[k][1] + (int)i, c = cs[k][0] + (int)j;
          uint16_t want = r >= 0 && r < TR && c >= 0 && c < TC ? g[r * TS + c] : 0, got;
          memcpy(&got, &o[k * span + (int)guide_swizzle((i * b0 + j) * 2, w)], 2);
          if (got != want) {
            fail(name, "load %d, box element (%u, %u) (tensor (%d, %d)) is 0x%04x, want 0x%04x", k, i, j, r, c, got, want);
            return;
          }
        }
  }
  /* the driver's checks of cuTensorMapEncodeTiled */
  T2cSimTensorMap map;
  unsigned long long dims[2] = {TC, TR}, strides[1] = {TS * 2}, bad_stride[1] = {TS * 2 + 8};
  unsigned box[2] = {24, 12}, wide[2] = {64, 12};
  char err[256];
  checks++;
  if (!t2c_sim_tensor_map_encode(&map, 2, 2, g, dims, strides, box, 32, &tg, err, sizeof err) ||
      !strstr(err, "inner dimension is 48 bytes, more than the 32-byte swizzle"))
    fail("tensor map checks", "a 48-byte box under the 32-byte swizzle: %s", err);
  if (!t2c_sim_tensor_map_encode(&map, 2, 2, g, dims, bad_stride, box, 0, &tg, err, sizeof err) ||
      !strstr(err, "stride 1 is 168 bytes (a multiple of 16"))
    fail("tensor map checks", "a 168-byte stride: %s", err);
  if (!t2c_sim_tensor_map_encode(&map, 2, 2, g + 1, dims, strides, box, 0, &tg, err, sizeof err) ||
      !strstr(err, "is not 16-byte aligned"))
    fail("tensor map checks", "a misaligned base: %s", err);
  dims[1] = TR + 1;
  if (!t2c_sim_tensor_map_encode(&map, 2, 2, g, dims, strides, wide, 128, &tg, err, sizeof err) ||
      !strstr(err, "of tensor 'G', which has 5920 bytes"))
    fail("tensor map checks", "a map past the tensor: %s", err);
}

static void test_tma_bad(void) {
  static uint16_t g[TR * TS];
  static unsigned char o[16];
  for (int i = 0; i < TR * TS; i++) g[i] = 0x1234;
  T2cSimTensor tg = tensor(g, TR * TS, 2, "G"), to = tensor(o, 16, 1, "O");
  T2cSimTensorMap map;
  if (!encode(&map, g, &tg, 64, 1, 128, TC, TR, TS * 2)) return;
  int mode = 0;
  void *args[] = {&map, &to, &mode};
  char err[ERRLEN];
  expect_err("tma unfenced barrier", launch("hop_tma_bad", 32, 4096 + 8, args, 3, 2, 1, err), err,
             "cp.async.bulk.tensor (TMA load) completes on mbarrier dynamic shared memory + 4096 bytes, whose "
             "mbarrier.init thread 0 has not made visible to the async proxy",
             NULL);
  mode = 1;
  memset(o, 0, sizeof o);
  if (expect_ok("tma read before the wait", launch("hop_tma_bad", 32, 4096 + 8, args, 3, 2, 1, err), err) && o[0] != 0xff)
    fail("tma read before the wait", "the box read before its load completed is 0x%02x, not poison", o[0]);
}

static void test_tma_store(void) {
  static uint16_t g[TR * TS];
  static unsigned char img[4096];
  T2cSimTensor tg = tensor(g, TR * TS, 2, "G"), ti = tensor(img, 4096, 1, "IMG");
  static const int modes[] = {0, 32, 64, 128};
  for (int m = 0; m < 4; m++) {
    int w = modes[m];
    unsigned b0 = box0_of(w), b1 = 12;
    int span = (int)((b0 * b1 * 2 + 1023) / 1024 * 1024), c0 = TC - (int)b0 / 2 - 1, c1 = TR - 7, mode = 0;
    for (int i = 0; i < TR * TS; i++) g[i] = 0xbeef;
    for (int i = 0; i < 4096; i++) img[i] = (unsigned char)rnd();
    T2cSimTensorMap map;
    if (!encode(&map, g, &tg, b0, b1, w, TC, TR, TS * 2)) return;
    void *args[] = {&map, &ti, &c0, &c1, &span, &mode};
    char err[ERRLEN], name[64];
    snprintf(name, sizeof name, "tma store, %d-byte swizzle", w);
    if (!expect_ok(name, launch("hop_tma_store", 64, (size_t)span, args, 6, 0, 3, err), err)) return;
    for (int r = 0; r < TR; r++)
      for (int c = 0; c < TS; c++) {
        int i = r - c1, j = c - c0;
        uint16_t want = 0xbeef;
        if (i >= 0 && i < (int)b1 && j >= 0 && j < (int)b0 && c < TC)
          memcpy(&want, &img[guide_swizzle((unsigned)(i * (int)b0 + j) * 2, w)], 2);
        if (g[r * TS + c] != want) {
          fail(name, "G[%d][%d] is 0x%04x, want 0x%04x", r, c, g[r * TS + c], want);
          return;
        }
      }
    if (w != 128) continue;
    mode = 1;
    expect_err("tma store source changed", launch("hop_tma_store", 64, (size_t)span, args, 6, 0, 1, err), err,
               ", which a TMA store reads, changed before cp.async.bulk.wait_group.read 0 completed the store", NULL);
    mode = 2;
    expect_err("tma store not waited", launch("hop_tma_store", 64, (size_t)span, args, 6, 0, 1, err), err,
               "thread 0 in kernel 'hop_tma_store', block (0,0,0) exited with a TMA store that no "
               "cp.async.bulk.wait_group.read completed",
               NULL);
    mode = 3;
    expect_err("tma store of unfenced stmatrix", launch("hop_tma_store", 64, (size_t)span, args, 6, 0, 1, err), err,
               "cp.async.bulk.tensor (TMA store) reads shared memory at ", "that thread ",
               "wrote with stmatrix without a fence.proxy.async since", NULL);
    mode = 4;
    expect_err("tma stores of one box by two threads", launch("hop_tma_store", 64, (size_t)span, args, 6, 0, 1, err),
               err, "race: tensor 'G' at index ", "in kernel 'hop_tma_store'", "with no barrier in between", NULL);
  }
}

/* ---- stmatrix: lane 8*i + r gives row r of matrix i; lane l's register i
 * holds (l/4, 2*(l%4)) and (l/4, 2*(l%4)+1) of matrix i, low half first, or
 * with .trans (2*(l%4), l/4) and (2*(l%4)+1, l/4). */
static void test_stmatrix(void) {
  enum { T = 64 };
  unsigned regs[4 * T];
  int rows[T];
  uint16_t o[6 * 512], want[512];
  for (int i = 0; i < 4 * T; i++) regs[i] = rnd() ^ (rnd() << 16);
  for (int i = 0; i < T; i++) rows[i] = i;
  for (int i = T - 1; i > 0; i--) {
    int j = (int)(rnd() % (unsigned)(i + 1)), x = rows[i];
    rows[i] = rows[j];
    rows[j] = x;
  }
  T2cSimTensor tr = tensor(regs, 4 * T, 4, "REGS"), tw = tensor(rows, T, 4, "ROWS"), to = tensor(o, 6 * 512, 2, "O");
  void *args[] = {&tr, &tw, &to};
  char err[ERRLEN];
  if (!expect_ok("stmatrix", launch("hop_stmatrix", T, 0, args, 3, 4, 3, err), err)) return;
  static const int nmats[] = {1, 2, 4, 1, 2, 4};
  for (int v = 0; v < 6; v++) {
    int trans = v >= 3;
    memset(want, 0, sizeof want);
    for (int wp = 0; wp < T / 32; wp++)
      for (int i = 0; i < nmats[v]; i++)
        for (int r = 0; r < 8; r++)
          for (int c = 0; c < 8; c++) {
            int lane = trans ? 4 * c + r / 2 : 4 * r + c / 2, half = trans ? r % 2 : c % 2;
            want[rows[wp * 32 + 8 * i + r] * 8 + c] = (uint16_t)(regs[4 * (wp * 32 + lane) + i] >> (16 * half));
          }
    for (int k = 0; k < 512; k++)
      if (o[v * 512 + k] != want[k]) {
        fail("stmatrix", "variant %d (x%d%s): element %d of the array is 0x%04x, want 0x%04x", v, nmats[v],
             trans ? ".trans" : "", k, o[v * 512 + k], want[k]);
        return;
      }
  }
}

/* ---- wgmma */
/* Where element (r, k) of an operand (r: the M row of A, or the N column of
 * B) lies in its shared image, and the descriptor fields. K-major with a
 * W-byte swizzle: atoms of W/2 k-elements side by side, each `rows` rows of
 * W bytes, swizzled as TMA writes them (the guide's table); no swizzle: a
 * 64x16 block per k16 step of 8x8 core matrices, 16-byte rows (MMA-Sim's
 * layout, LBO 128, SBO 256). MN-major: B stored K x N (N contiguous): atoms
 * of W/2 n-elements, K rows of W bytes each, LBO the atom stride, SBO 8 rows;
 * no swizzle: core matrices of 8 k-rows of 8 n-elements, LBO 128 along K,
 * SBO 256 along N. */
typedef struct Layout {
  int w, mn, rows, k;
} Layout;

static unsigned lay_off(Layout l, int r, int k) {
  unsigned e = (unsigned)l.w / 2;
  if (!l.mn && l.w) return guide_swizzle((unsigned)k / e * (unsigned)(l.rows * l.w) + (unsigned)(r * l.w) + (unsigned)k % e * 2, l.w);
  if (!l.mn) return (unsigned)(k / 16 * l.rows * 32 + r / 8 * 256 + k % 16 / 8 * 128 + r % 8 * 16 + k % 8 * 2);
  if (l.w) return guide_swizzle((unsigned)r / e * (unsigned)(l.k * l.w) + (unsigned)(k * l.w) + (unsigned)r % e * 2, l.w);
  return (unsigned)(k / 16 * l.rows * 32 + r / 8 * 256 + k % 16 / 8 * 128 + k % 8 * 16 + r % 8 * 2);
}
static int lay_bytes(Layout l) {
  int e = l.w / 2, b;
  if (!l.w) b = l.k * l.rows * 2;
  else if (!l.mn) b = (l.k + e - 1) / e * l.rows * l.w;
  else b = (l.rows + e - 1) / e * l.k * l.w;
  return (b + 1023) / 1024 * 1024;
}
static int lay_step(Layout l, int s) {
  int e = l.w / 2;
  if (!l.w) return s * l.rows * 32;
  if (!l.mn) return 16 * s / e * l.rows * l.w + 16 * s % e * 2;
  return 16 * s * l.w;
}
static void lay_fields(Layout l, int *lbo, int *sbo) {
  if (!l.w) *lbo = 128, *sbo = 256;
  else if (!l.mn) *lbo = 16, *sbo = 8 * l.w;
  else *lbo = l.k * l.w, *sbo = 8 * l.w;
}

/* The accumulator fragment: thread t's register i is D[row][col]. */
static int frag_row(int t, int i) { return 16 * (t / 32) + t % 32 / 4 + 8 * (i / 2 % 2); }
static int frag_col(int t, int i) { return 8 * (i / 4) + 2 * (t % 4) + i % 2; }

typedef struct WgCase {
  const char *kernel;
  int n, bf, ta, tb, wa, wb, ksteps, rs, split, use_c;
} WgCase;

static void test_wgmma_case(const WgCase *c, int ints) {
  int n = c->n, K = 16 * c->ksteps;
  Layout la = {c->wa, c->ta, 64, K}, lb = {c->wb, c->tb, n, K};
  int sa = lay_bytes(la), sb = lay_bytes(lb);
  uint16_t *A = malloc(sizeof *A * 64 * (size_t)K), *B = malloc(sizeof *B * (size_t)K * (size_t)n);
  unsigned char *ia = calloc((size_t)sa, 1), *ib = calloc((size_t)sb, 1);
  unsigned *areg = calloc((size_t)c->ksteps * 128 * 4, sizeof *areg);
  float *cf = malloc(sizeof *cf * 64 * (size_t)n), *df = malloc(sizeof *df * 64 * (size_t)n);
  float *cm = malloc(sizeof *cm * 64 * (size_t)n);
  int offs[64], lay[6];
  for (int i = 0; i < 64 * K; i++) A[i] = b16_random(c->bf, ints);
  for (int i = 0; i < K * n; i++) B[i] = b16_random(c->bf, ints);
  for (int i = 0; i < 64 * n; i++) cm[i] = ints ? (float)((int)(rnd() % 201) - 100) : (float)(rnd() % 20000) / 1000.0f - 10.0f;
  for (int r = 0; r < 64; r++)
    for (int k = 0; k < K; k++) memcpy(&ia[lay_off(la, r, k)], &A[r * K + k], 2);
  for (int j = 0; j < n; j++)
    for (int k = 0; k < K; k++) memcpy(&ib[lay_off(lb, j, k)], &B[k * n + j], 2);
  for (int s = 0; s < c->ksteps; s++) {
    offs[s] = lay_step(la, s);
    offs[c->ksteps + s] = lay_step(lb, s);
    for (int t = 0; t < 128; t++)  /* the A fragment: a_i at (frag_row(t, i), 2*(t%4) + i%2 + 8*(i/4)) */
      for (int i = 0; i < 8; i++) {
        int row = frag_row(t, i), col = 16 * s + 2 * (t % 4) + i % 2 + 8 * (i / 4);
        areg[(s * 128 + t) * 4 + i / 2] |= (unsigned)A[row * K + col] << (16 * (i % 2));
      }
  }
  lay_fields(la, &lay[0], &lay[1]);
  lay[2] = c->wa;
  lay_fields(lb, &lay[3], &lay[4]);
  lay[5] = c->wb;
  for (int t = 0; t < 128; t++)
    for (int i = 0; i < n / 2; i++) cf[t * n / 2 + i] = cm[frag_row(t, i) * n + frag_col(t, i)];
  T2cSimTensor tia = tensor(ia, sa, 1, "IMGA"), tib = tensor(ib, sb, 1, "IMGB"), tof = tensor(offs, 2 * c->ksteps, 4, "OFFS"),
               tla = tensor(lay, 6, 4, "LAY"), tar = tensor(areg, c->ksteps * 128 * 4, 4, "AREG"),
               tc = tensor(cf, 64 * n, 4, "C"), td = tensor(df, 64 * n, 4, "D");
  int use_c = c->use_c;
  void *args[] = {&tia, &tib, &tof, &tla, &tar, &tc, &td, &sa, &sb, (void *)&c->ksteps, &use_c, (void *)&c->rs,
                  (void *)&c->split};
  char err[ERRLEN], name[160];
  snprintf(name, sizeof name, "%s (A %s %d-byte swizzle%s, B %s %d-byte swizzle, K %d%s, %s)", c->kernel,
           c->ta ? "MN-major" : "K-major", c->wa, c->rs ? " (from registers)" : "", c->tb ? "MN-major" : "K-major",
           c->wb, K, c->split ? ", a group per step" : "", ints ? "integers" : "random");
  if (expect_ok(name, launch(c->kernel, 128, (size_t)((sa + 1023) / 1024 * 1024 + sb), args, 13, 1u << 6, 2, err), err))
    for (int t = 0; t < 128; t++)
      for (int i = 0; i < n / 2; i++) {
        int row = frag_row(t, i), col = frag_col(t, i);
        double s = use_c ? cm[row * n + col] : 0, mag = fabs(s);
        for (int k = 0; k < K; k++) {
          double x = b16f(A[row * K + k], c->bf) * b16f(B[k * n + col], c->bf);
          s += x;
          mag += fabs(x);
        }
        float got = df[t * n / 2 + i];
        if (ints ? got != (float)s : !(fabs(got - s) <= mag * 4e-6)) {
          fail(name, "D[%d][%d] (thread %d, register %d) = %.9g, want %.9g", row, col, t, i, got, s);
          t = 128;
          break;
        }
      }
  free(A), free(B), free(ia), free(ib), free(areg), free(cf), free(df), free(cm);
}

static void test_wgmma(void) {
  static const WgCase cases[] = {
    {"wg_f16_n8_kk", 8, 0, 0, 0, 0, 0, 1, 0, 0, 1},
    {"wg_f16_n64_kk", 64, 0, 0, 0, 0, 0, 4, 0, 0, 1},
    {"wg_f16_n64_kk", 64, 0, 0, 0, 32, 32, 4, 0, 0, 1},
    {"wg_f16_n64_kk", 64, 0, 0, 0, 64, 64, 4, 0, 0, 1},
    {"wg_f16_n64_kk", 64, 0, 0, 0, 128, 128, 4, 0, 0, 1},
    {"wg_f16_n64_kk", 64, 0, 0, 0, 128, 32, 2, 0, 1, 0},
    {"wg_f16_n64_kk", 64, 0, 0, 0, 0, 128, 4, 1, 0, 1},
    {"wg_bf16_n64_kk", 64, 1, 0, 0, 128, 128, 4, 0, 0, 1},
    {"wg_f16_n24_kk", 24, 0, 0, 0, 32, 64, 2, 0, 0, 1},
    {"wg_f16_n128_kk", 128, 0, 0, 0, 64, 64, 2, 0, 1, 1},
    {"wg_bf16_n256_kk", 256, 1, 0, 0, 128, 128, 4, 0, 0, 0},
    {"wg_f16_n64_kn", 64, 0, 0, 1, 128, 0, 2, 0, 0, 1},
    {"wg_f16_n64_kn", 64, 0, 0, 1, 128, 32, 2, 0, 0, 1},
    {"wg_f16_n64_kn", 64, 0, 0, 1, 128, 64, 2, 0, 0, 1},
    {"wg_f16_n64_kn", 64, 0, 0, 1, 128, 128, 4, 0, 0, 1},
    {"wg_bf16_n128_kn", 128, 1, 0, 1, 0, 128, 4, 1, 0, 1},
    {"wg_f16_n64_mn", 64, 0, 1, 1, 64, 64, 2, 0, 0, 1},
    {"wg_f16_n64_mn", 64, 0, 1, 1, 0, 0, 2, 0, 0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int ints = 1; ints >= 0; ints--) test_wgmma_case(&cases[i], ints);
}

/* The 8-bit forms, m64nNk32: .s32.s8.s8, .s32.u8.u8 (wrapping, no
 * .satfinite), .f32.e4m3.e4m3, .f32.e5m2.e5m2; both operands K-major (the
 * only major-ness the PTX ISA allows them) from descriptors. The canonical
 * K-major layout in bytes (9.7.15.5.1.2.1.3, T = 16 one-byte elements): no
 * swizzle, 8x16-byte core matrices, per k32 step a rows x 32-byte block, LBO
 * 128 (the next 16 k), SBO 256 (the next 8 rows); W-byte swizzle, atoms of W
 * k-elements side by side, each rows x W bytes, swizzled as TMA writes them,
 * SBO 8 W; a k32 step starts 32 bytes further in its atom. */
static unsigned lay8_off(int w, int rows, int r, int k) {
  if (!w) return (unsigned)(k / 32 * rows * 32 + r / 8 * 256 + k % 32 / 16 * 128 + r % 8 * 16 + k % 16);
  return guide_swizzle((unsigned)(k / w * rows * w + r * w + k % w), w);
}
static int lay8_bytes(int w, int rows, int K) {
  int b = w ? (K + w - 1) / w * rows * w : K * rows;
  return (b + 1023) / 1024 * 1024;
}
static int lay8_step(int w, int rows, int s) { return w ? 32 * s / w * rows * w + 32 * s % w : s * rows * 32; }

/* An 8-bit float's value, from the OCP 8-bit floating point specification:
 * e4m3 S.EEEE.MMM, bias 7; e5m2 S.EEEEE.MM, bias 15; subnormal at E = 0. */
static double f8f(unsigned b, int e5m2) {
  unsigned e = e5m2 ? b >> 2 & 31 : b >> 3 & 15, m = e5m2 ? b & 3 : b & 7;
  double v = e5m2 ? (e ? ldexp(4 + m, (int)e - 17) : ldexp(m, -16)) : (e ? ldexp(8 + m, (int)e - 10) : ldexp(m, -9));
  return b & 0x80 ? -v : v;
}
static int f8_finite(unsigned b, int e5m2) { return e5m2 ? (b & 0x7c) != 0x7c : (b & 0x7f) != 0x7f; }

typedef struct Wg8Case {
  const char *kernel;
  int n, ty, wa, wb, ksteps, split, use_c; /* ty: 2 s8, 3 u8, 4 e4m3, 5 e5m2 */
} Wg8Case;

static double wg8_value(int ty, unsigned char b) {
  return ty == 2 ? (double)(signed char)b : ty == 3 ? (double)b : f8f(b, ty == 5);
}
static unsigned char wg8_random(int ty, int ints) {
  for (;;) {
    unsigned char b = (unsigned char)rnd();
    if (ty <= 3) return b;
    if (!f8_finite(b, ty == 5)) continue;
    double v = f8f(b, ty == 5);
    if (!ints || (v == floor(v) && fabs(v) <= 16)) return b;
  }
}

static void test_wgmma8_case(const Wg8Case *c, int ints) {
  int n = c->n, K = 32 * c->ksteps, isint = c->ty <= 3;
  int sa = lay8_bytes(c->wa, 64, K), sb = lay8_bytes(c->wb, n, K);
  unsigned char *A = malloc((size_t)64 * (size_t)K), *B = malloc((size_t)K * (size_t)n);
  unsigned char *ia = calloc((size_t)sa, 1), *ib = calloc((size_t)sb, 1);
  uint32_t *cm = malloc(sizeof *cm * 64 * (size_t)n), *cf = malloc(sizeof *cf * 64 * (size_t)n),
           *df = malloc(sizeof *df * 64 * (size_t)n);
  int offs[64], lay[6];
  for (int i = 0; i < 64 * K; i++) A[i] = wg8_random(c->ty, ints);
  for (int i = 0; i < K * n; i++) B[i] = wg8_random(c->ty, ints);
  for (int i = 0; i < 64 * n; i++) {
    if (isint) cm[i] = ints ? (uint32_t)(int32_t)((int)(rnd() % 2001) - 1000) : rnd() ^ rnd() << 16; /* wraps */
    else {
      float f = ints ? (float)((int)(rnd() % 201) - 100) : (float)(rnd() % 20000) / 1000.0f - 10.0f;
      memcpy(&cm[i], &f, 4);
    }
  }
  for (int r = 0; r < 64; r++)
    for (int k = 0; k < K; k++) ia[lay8_off(c->wa, 64, r, k)] = A[r * K + k];
  for (int j = 0; j < n; j++)
    for (int k = 0; k < K; k++) ib[lay8_off(c->wb, n, j, k)] = B[k * n + j];
  for (int s = 0; s < c->ksteps; s++) {
    offs[s] = lay8_step(c->wa, 64, s);
    offs[c->ksteps + s] = lay8_step(c->wb, n, s);
  }
  lay[0] = c->wa ? 16 : 128, lay[1] = c->wa ? 8 * c->wa : 256, lay[2] = c->wa;
  lay[3] = c->wb ? 16 : 128, lay[4] = c->wb ? 8 * c->wb : 256, lay[5] = c->wb;
  for (int t = 0; t < 128; t++)
    for (int i = 0; i < n / 2; i++) cf[t * n / 2 + i] = cm[frag_row(t, i) * n + frag_col(t, i)];
  T2cSimTensor tia = tensor(ia, sa, 1, "IMGA"), tib = tensor(ib, sb, 1, "IMGB"), tof = tensor(offs, 2 * c->ksteps, 4, "OFFS"),
               tla = tensor(lay, 6, 4, "LAY"), tc = tensor(cf, 64 * n, 4, "C"), td = tensor(df, 64 * n, 4, "D");
  int use_c = c->use_c;
  void *args[] = {&tia, &tib, &tof, &tla, &tc, &td, &sa, &sb, (void *)&c->ksteps, &use_c, (void *)&c->split};
  char err[ERRLEN], name[160];
  snprintf(name, sizeof name, "%s (A %d-byte swizzle, B %d-byte swizzle, K %d%s, %s)", c->kernel, c->wa, c->wb, K,
           c->split ? ", a group per step" : "", ints ? "small values" : "random");
  if (expect_ok(name, launch(c->kernel, 128, (size_t)((sa + 1023) / 1024 * 1024 + sb), args, 11, 1u << 5, 2, err), err))
    for (int t = 0; t < 128; t++)
      for (int i = 0; i < n / 2; i++) {
        int row = frag_row(t, i), col = frag_col(t, i), bad;
        char got_s[40], want_s[40];
        if (isint) {
          int64_t s = use_c ? (int64_t)(int32_t)cm[row * n + col] : 0;
          for (int k = 0; k < K; k++) s += (int64_t)wg8_value(c->ty, A[row * K + k]) * (int64_t)wg8_value(c->ty, B[k * n + col]);
          uint32_t want = (uint32_t)(uint64_t)s;
          bad = df[t * n / 2 + i] != want;
          snprintf(got_s, sizeof got_s, "%d", (int)(int32_t)df[t * n / 2 + i]);
          snprintf(want_s, sizeof want_s, "%d", (int)(int32_t)want);
        } else {
          float cv, got;
          memcpy(&cv, &cm[row * n + col], 4);
          memcpy(&got, &df[t * n / 2 + i], 4);
          double s = use_c ? cv : 0, mag = fabs(s);
          for (int k = 0; k < K; k++) {
            double x = wg8_value(c->ty, A[row * K + k]) * wg8_value(c->ty, B[k * n + col]);
            s += x;
            mag += fabs(x);
          }
          bad = ints ? got != (float)s : !(fabs(got - s) <= mag * 4e-6);
          snprintf(got_s, sizeof got_s, "%.9g", got);
          snprintf(want_s, sizeof want_s, "%.9g", s);
        }
        if (bad) {
          fail(name, "D[%d][%d] (thread %d, register %d) = %s, want %s", row, col, t, i, got_s, want_s);
          t = 128;
          break;
        }
      }
  free(A), free(B), free(ia), free(ib), free(cm), free(cf), free(df);
}

static void test_wgmma8(void) {
  static const Wg8Case cases[] = {
    {"wg_s8_n8", 8, 2, 0, 0, 1, 0, 1},
    {"wg_s8_n64", 64, 2, 0, 0, 4, 0, 1},
    {"wg_s8_n64", 64, 2, 128, 128, 4, 0, 1},
    {"wg_s8_n64", 64, 2, 128, 0, 2, 1, 0},
    {"wg_s8_n24", 24, 2, 64, 32, 2, 0, 1},
    {"wg_s8_n256", 256, 2, 128, 128, 4, 0, 1},
    {"wg_u8_n48", 48, 3, 128, 128, 2, 0, 1},
    {"wg_u8_n48", 48, 3, 0, 0, 2, 1, 1},
    {"wg_e4m3_n8", 8, 4, 0, 0, 2, 0, 1},
    {"wg_e4m3_n64", 64, 4, 0, 0, 4, 0, 1},
    {"wg_e4m3_n64", 64, 4, 128, 128, 4, 0, 1},
    {"wg_e4m3_n64", 64, 4, 64, 128, 2, 1, 0},
    {"wg_e5m2_n128", 128, 5, 128, 128, 4, 0, 1},
    {"wg_e5m2_n40", 40, 5, 0, 128, 2, 0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int ints = 1; ints >= 0; ints--) test_wgmma8_case(&cases[i], ints);
}

static void test_wgmma_bad(void) {
  float d[128];
  int mode;
  T2cSimTensor td = tensor(d, 128, 4, "D");
  void *args[] = {&td, &mode};
  char err[ERRLEN];
  mode = 0;
  expect_err("wgmma without fence", launch("hop_wgmma_bad", 128, 4096, args, 2, 1, 1, err), err, "wgmma.mma_async (",
             "in kernel 'hop_wgmma_bad', block (0,0,0), threads 0-127: no wgmma.fence since the start or the last "
             "wgmma.wait_group",
             NULL);
  mode = 1;
  expect_err("wgmma accumulator touched", launch("hop_wgmma_bad", 128, 4096, args, 2, 1, 1, err), err,
             "thread 5 in kernel 'hop_wgmma_bad', block (0,0,0) wrote its accumulator register 1 of wgmma.mma_async (",
             "before wgmma.wait_group (", NULL);
  mode = 2;
  expect_err("wgmma stage released early", launch("hop_wgmma_bad", 128, 4096, args, 2, 1, 1, err), err,
             ", which wgmma.mma_async (", "changed before wgmma.wait_group 0 (",
             "(a stage released while a wgmma still reads it)", NULL);
  mode = 3;
  expect_err("wgmma divergence", launch("hop_wgmma_bad", 128, 4096, args, 2, 1, 1, err), err,
             "warpgroup divergence in kernel 'hop_wgmma_bad', block (0,0,0), warpgroup 0: threads 0-63 wait at wgmma.fence (",
             "threads 64-127 have exited", NULL);
  mode = 4;
  expect_err("wgmma partial warpgroup", launch("hop_wgmma_bad", 96, 4096, args, 2, 0, 1, err), err,
             "wgmma.fence (", "warpgroup 0 has 96 threads; a wgmma needs all 128 threads of 4 warps", NULL);
  mode = 5;
  expect_err("wgmma not waited", launch("hop_wgmma_bad", 128, 4096, args, 2, 1, 1, err), err,
             "warpgroup 0: no wgmma.wait_group completed it before the threads exited", NULL);
  mode = 6;
  expect_err("wgmma of unfenced stmatrix", launch("hop_wgmma_bad", 128, 4096, args, 2, 1, 1, err), err,
             "wgmma.mma_async (", "reads shared memory at ", "wrote with stmatrix without a fence.proxy.async since",
             NULL);
}

/* TMA (128-byte swizzle) -> mbarrier -> wgmma: D = A x B^T at a ragged K. */
static void test_gemm_tma(void) {
  enum { M = 64, N = 64, K = 200, KS = 208 };
  static uint16_t a[M * KS], b[N * KS];
  static float d[M * N];
  for (int i = 0; i < M * KS; i++) a[i] = f2h((float)((int)(rnd() % 17) - 8));
  for (int i = 0; i < N * KS; i++) b[i] = f2h((float)((int)(rnd() % 17) - 8));
  T2cSimTensor ta = tensor(a, M * KS, 2, "A"), tb = tensor(b, N * KS, 2, "B"), td = tensor(d, M * N, 4, "D");
  T2cSimTensorMap ma, mb;
  if (!encode(&ma, a, &ta, 64, 64, 128, K, M, KS * 2) || !encode(&mb, b, &tb, 64, 64, 128, K, N, KS * 2)) return;
  int k = K;
  void *args[] = {&ma, &mb, &td, &k};
  char err[ERRLEN];
  if (!expect_ok("gemm through tma and wgmma", launch("hop_gemm_tma", 128, 32768 + 16, args, 4, 4, 3, err), err)) return;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int q = 0; q < K; q++) s += (double)h2f(a[i * KS + q]) * h2f(b[j * KS + q]);
      if (d[i * N + j] != (float)s) {
        fail("gemm through tma and wgmma", "D[%d][%d] = %.9g, want %.9g", i, j, d[i * N + j], s);
        return;
      }
    }
}

/* T2C_SIM_SHARED_ALIGNED: 1024-aligned in the shared window and on the host
 * (so the swizzles see the same address bits), after a 16-byte array. */
static void test_smem_align(void) {
  int o[3] = {-1, -1, -1};
  T2cSimTensor to = tensor(o, 3, 4, "O");
  void *args[] = {&to};
  char err[ERRLEN];
  if (!expect_ok("aligned shared array", launch("hop_smem_align", 32, 100, args, 1, 1, 1, err), err)) return;
  if (o[0] != 0 || o[1] != 0 || o[2] != 1026)
    fail("aligned shared array", "window %% 1024 = %d, host %% 1024 = %d, distance from the 16-byte array %d "
         "(want 0, 0 and 1024 + 2)", o[0], o[1], o[2]);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ROOT BUILD_DIR\n", argv[0]);
    return 2;
  }
  char cu[4096], sopath[4096], rt[4096], sim[4096], err[ERRLEN];
  snprintf(cu, sizeof cu, "%s/tests/sim/hopper_kernels.cu", argv[1]);
  snprintf(rt, sizeof rt, "%s/rt", argv[1]);
  snprintf(sim, sizeof sim, "%s/rt/sim", argv[1]);
  snprintf(sopath, sizeof sopath, "%s/hopper_kernels.so", argv[2]);
  double t0 = now();
  if (sim_build(cu, sopath, rt, sim, err, sizeof err)) {
    fprintf(stderr, "FAIL build: %s\n", err);
    return 1;
  }
  double t1 = now();
  so = sopath;
  test_swizzle();
  test_mbar_phases();
  test_mbar_bad();
  test_named_bar();
  test_sh_race();
  test_tma_load();
  test_tma_bad();
  test_tma_store();
  test_stmatrix();
  test_wgmma();
  test_wgmma8();
  test_wgmma_bad();
  test_gemm_tma();
  test_smem_align();
  printf("sim hopper: %d checks, %d failed (build %.2fs, runs %.2fs)\n", checks, failures, t1 - t0, now() - t1);
  return failures != 0;
}
