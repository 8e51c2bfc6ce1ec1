/* driver.c: tests of the CPU backend itself.
 *
 * Builds tests/sim/kernels.cu with sim_build and runs each kernel with
 * sim_run. Correct kernels are checked element by element against results
 * computed here, in C; the planted bugs must fail with a message that names
 * what failed. Usage: driver ROOT BUILD_DIR
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"
#include "simrun.h"

static const char *so, *rt_dir, *sim_dir;
/* ---- a deterministic generator, so failures reproduce */
static uint64_t rng_state = 0x1234567887654321ULL;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}
static float rnd_float(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() % 1000000) / 1e6f; }

/* ---- f16 and bf16, round to nearest even */
static uint16_t f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;
  if (ax > 0x7f800000) return (uint16_t)(sign | 0x7e00);
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
  if (e == 31) x = sign | 0x7f800000 | (m << 13);
  else x = sign | ((e + 112) << 23) | (m << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint16_t f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
static float bf2f(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* ---- launching */
static T2cSimTensor tensor(void *data, long long n, int eb, const char *name) {
  T2cSimTensor t = {data, n, eb, name, 0, NULL, NULL};
  return t;
}

typedef struct Run {
  const char *kernel;
  unsigned grid[3], threads;
  size_t dyn;
  int schedules;
} Run;

/* Runs r with args; the outputs are the tensors among args flagged in outmask. */
static int launch(const Run *r, void **args, int nargs, unsigned outmask, char *err) {
  const T2cSimTensor *outs[16];
  int no = 0;
  for (int i = 0; i < nargs; i++)
    if (outmask >> i & 1) outs[no++] = args[i];
  T2cSimLaunch l = {r->kernel, {r->grid[0], r->grid[1], r->grid[2]}, r->threads, r->dyn,
                    args, nargs, outs, no, r->schedules};
  err[0] = 0;
  return sim_run(so, &l, err, ERRLEN);
}

/* ---- correct kernels */
static void test_reverse(void) {
  enum { NB = 37 };
  int n = NB * 256 - 100;
  float *x = malloc(sizeof(float) * n), *o = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) x[i] = rnd_float(-1, 1), o[i] = -7.0f;
  T2cSimTensor tx = tensor(x, n, 4, "X"), to = tensor(o, n, 4, "O");
  void *args[] = {&tx, &to, &n};
  Run r = {"reverse", {NB, 1, 1}, 256, 0, 4};
  char err[ERRLEN];
  if (expect_ok("reverse", launch(&r, args, 3, 2, err), err))
    for (int i = 0; i < n; i++) {
      int b = i / 256, src = b * 256 + 255 - i % 256;
      float want = src < n ? x[src] : 0.0f;
      if (o[i] != want) {
        fail("reverse", "O[%d] = %g, want %g", i, o[i], want);
        break;
      }
    }
  free(x);
  free(o);
}

static void test_poison(void) {
  float o[32];
  int p[32];
  T2cSimTensor to = tensor(o, 32, 4, "O"), tp = tensor(p, 32, 4, "P");
  void *args[] = {&to, &tp};
  Run r = {"poison", {1, 1, 1}, 32, 0, 1};
  char err[ERRLEN];
  if (!expect_ok("poison", launch(&r, args, 2, 3, err), err)) return;
  for (int i = 0; i < 32; i++) {
    uint32_t bits;
    memcpy(&bits, &o[i], 4);
    if (bits != 0xffffffffu || p[i] != -1) {
      fail("poison", "unwritten shared memory read as 0x%08x / %d", bits, p[i]);
      return;
    }
  }
}

/* The lane a shuffle reads, following the pseudo-code of PTX's shfl.sync
 * with the c operand CUDA's __shfl_*_sync pass for a width. */
static int ptx_shfl_lane(int mode, int lane, unsigned b, int width) {
  unsigned c = ((unsigned)(32 - width) << 8) | (mode == 1 ? 0u : 0x1fu);
  int bval = (int)(b & 31), cval = (int)(c & 31), segmask = (int)((c >> 8) & 31);
  int max_lane = (lane & segmask) | (cval & ~segmask);
  int min_lane = lane & segmask;
  int j, pval;
  switch (mode) {
  case 1: j = lane - bval; pval = j >= max_lane; break;               /* .up */
  case 2: j = lane + bval; pval = j <= max_lane; break;               /* .down */
  case 3: j = lane ^ bval; pval = j <= max_lane; break;               /* .bfly */
  default: j = min_lane | (bval & ~segmask); pval = j <= max_lane; break; /* .idx */
  }
  return pval ? j : lane;
}

static void test_shfl_int(void) {
  static const int bs[] = {0, 1, 2, 3, 5, 7, 8, 13, 16, 31, 32, 33, -1, -5};
  static const int ws[] = {1, 2, 4, 8, 16, 32};
  enum { T = 64, NB = sizeof bs / sizeof *bs, NW = sizeof ws / sizeof *ws, NC = 4 * NB * NW };
  int x[T], ops[NC], b[NC], w[NC], *o = malloc(sizeof(int) * NC * T), nc = NC;
  for (int i = 0; i < T; i++) x[i] = 1000 + 7 * i;
  int c = 0;
  for (int op = 0; op < 4; op++)
    for (int i = 0; i < NB; i++)
      for (int k = 0; k < NW; k++, c++) ops[c] = op, b[c] = bs[i], w[c] = ws[k];
  T2cSimTensor tx = tensor(x, T, 4, "X"), tops = tensor(ops, NC, 4, "OPS"), tb = tensor(b, NC, 4, "BS"),
               tw = tensor(w, NC, 4, "WS"), to = tensor(o, (long long)NC * T, 4, "O");
  void *args[] = {&tx, &tops, &tb, &tw, &to, &nc};
  Run r = {"shfl_int", {1, 1, 1}, T, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("shfl_int", launch(&r, args, 6, 1u << 4, err), err)) goto out;
  static const char *names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"};
  for (c = 0; c < NC; c++)
    for (int t = 0; t < T; t++) {
      int want = x[(t & ~31) + ptx_shfl_lane(ops[c], t & 31, (unsigned)b[c], w[c])];
      if (o[c * T + t] != want) {
        fail("shfl_int", "%s(b=%d, width=%d) in thread %d gave %d, want %d", names[ops[c]], b[c], w[c], t,
             o[c * T + t], want);
        goto out;
      }
    }
out:
  free(o);
}

static void test_shfl_types(void) {
  enum { T = 64 };
  float f[T];
  double d[T];
  long long ll[T];
  unsigned u[T], bal[T];
  uint16_t h[T], bf[T];
  int part[T];
  T2cSimTensor tf = tensor(f, T, 4, "F"), td = tensor(d, T, 8, "D"), tl = tensor(ll, T, 8, "L"),
               tu = tensor(u, T, 4, "U"), th = tensor(h, T, 2, "H"), tb = tensor(bf, T, 2, "B"),
               tbal = tensor(bal, T, 4, "BAL"), tp = tensor(part, T, 4, "PART");
  void *args[] = {&tf, &td, &tl, &tu, &th, &tb, &tbal, &tp};
  Run r = {"shfl_types", {1, 1, 1}, T, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("shfl_types", launch(&r, args, 8, 0xff, err), err)) return;
  for (int t = 0; t < T; t++) {
    int base = t & ~31, lane = t & 31;
    unsigned want_bal = 0;
    for (int l = 0; l < 32; l++) want_bal |= (unsigned)((base + l) % 3 == 0) << l;
    int ok = f[t] == 0.5f + (base + ptx_shfl_lane(2, lane, 3, 32)) &&
             d[t] == 0.25 + (base + ptx_shfl_lane(3, lane, 5, 32)) &&
             ll[t] == (1LL << 40) + base + ptx_shfl_lane(1, lane, 2, 32) &&
             u[t] == 3000000000u + (unsigned)(base + ptx_shfl_lane(0, lane, 7, 32)) &&
             h[t] == f2h((base + ptx_shfl_lane(3, lane, 16, 32)) * 0.5f) &&
             bf[t] == f2bf((float)(base + ptx_shfl_lane(2, lane, 1, 8))) && bal[t] == want_bal &&
             part[t] == (lane < 16 ? (t ^ 1) * 10 : -1);
    if (!ok) {
      fail("shfl_types", "thread %d: f=%g d=%g ll=%lld u=%u h=%04x bf=%04x bal=%08x part=%d", t, f[t], d[t],
           ll[t], u[t], h[t], bf[t], bal[t], part[t]);
      return;
    }
  }
}

static void test_grid(unsigned gx, unsigned gy, unsigned gz) {
  enum { T = 40 };
  long long nb = (long long)gx * gy * gz, n = nb * T * 8;
  int *o = malloc(sizeof(int) * n);
  for (long long i = 0; i < n; i++) o[i] = -1;
  T2cSimTensor to = tensor(o, n, 4, "O");
  void *args[] = {&to};
  Run r = {"grid_ids", {gx, gy, gz}, T, 0, 3};
  char err[ERRLEN];
  if (expect_ok("grid_ids", launch(&r, args, 1, 1, err), err))
    for (unsigned z = 0; z < gz; z++)
      for (unsigned y = 0; y < gy; y++)
        for (unsigned x = 0; x < gx; x++)
          for (int t = 0; t < T; t++) {
            int *p = o + (((z * gy + y) * gx + x) * (long long)T + t) * 8;
            int want[8] = {(int)x, (int)y, (int)z, (int)gx, (int)gy, (int)gz, T, t};
            if (memcmp(p, want, sizeof want)) {
              fail("grid_ids", "grid (%u,%u,%u): block (%u,%u,%u) thread %d saw (%d,%d,%d) of (%d,%d,%d), %d threads, thread %d",
                   gx, gy, gz, x, y, z, t, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
              free(o);
              return;
            }
          }
  free(o);
}

static void test_halfmath(void) {
  enum { T = 64, NB = 2, N = T * NB };
  uint16_t a[N], b[N], oh[N], ob[N], sum[N / 32], scale = f2h(0.75f);
  float of[N];
  for (int i = 0; i < N; i++) a[i] = f2h(rnd_float(-2, 2)), b[i] = f2bf(rnd_float(-3, 3));
  T2cSimTensor ta = tensor(a, N, 2, "A"), tb = tensor(b, N, 2, "B"), toh = tensor(oh, N, 2, "OH"),
               tob = tensor(ob, N, 2, "OB"), tof = tensor(of, N, 4, "OF"), ts = tensor(sum, N / 32, 2, "SUM");
  void *args[] = {&ta, &tb, &toh, &tob, &tof, &ts, &scale};
  Run r = {"halfmath", {NB, 1, 1}, T, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("halfmath", launch(&r, args, 7, 0x3c, err), err)) return;
  for (int i = 0; i < N; i++) {
    float fa = h2f(a[i]), fb = bf2f(b[i]);
    uint16_t want_h = f2h(h2f(f2h(h2f(f2h(fa * fa)) * h2f(scale))) + 1.0f);
    uint16_t want_b = f2bf(fb - bf2f(f2bf(bf2f(f2bf(fb * fb)) / 4.0f)));
    float want_f = (fa < 0.5f ? 1.0f : 0.0f) + 2.0f + (fa < 0.25f ? 0.25f : fa);
    if (oh[i] != want_h || ob[i] != want_b || of[i] != want_f) {
      fail("halfmath", "element %d: f16 %04x want %04x, bf16 %04x want %04x, f32 %g want %g", i, oh[i], want_h,
           ob[i], want_b, of[i], want_f);
      return;
    }
  }
  for (int k = 0; k < N / 32; k++)
    if (h2f(sum[k]) != 112.0f) fail("halfmath", "warp %d f16 fold_sum = %g, want 112", k, h2f(sum[k]));
}

/* t2c::fold_sum<W, S> (max, min): every lane gets the fold of the W lanes S
 * apart in its aligned group of W * S lanes, the lanes that hold one column */
static void test_strided_folds(void) {
  static const int WS[][3] = {{2, 16, 0}, {4, 8, 0}, {8, 4, 0}, {32, 1, 0}, {1, 4, 0}, {4, 2, 1}, {16, 2, 2}};
  int x[32], o[7 * 32];
  for (int i = 0; i < 32; i++) x[i] = (int)(rnd() % 2001) - 1000;
  T2cSimTensor tx = tensor(x, 32, 4, "X"), to = tensor(o, 7 * 32, 4, "O");
  void *args[] = {&tx, &to};
  Run r = {"strided_folds", {1, 1, 1}, 32, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("strided_folds", launch(&r, args, 2, 2, err), err)) return;
  for (int k = 0; k < 7; k++) {
    int W = WS[k][0], S = WS[k][1], op = WS[k][2];
    for (int l = 0; l < 32; l++) {
      int want = op == 1 ? -1000000 : op == 2 ? 1000000 : 0;
      for (int j = 0; j < 32; j++) {
        if (j / (W * S) != l / (W * S) || j % S != l % S) continue;
        want = op == 0 ? want + x[j] : op == 1 ? (x[j] > want ? x[j] : want) : (x[j] < want ? x[j] : want);
      }
      if (o[k * 32 + l] != want) {
        fail("strided_folds", "fold %d (W %d, S %d) at lane %d = %d, want %d", k, W, S, l, o[k * 32 + l], want);
        return;
      }
    }
  }
}

static void test_block_sum(void) {
  enum { NB = 5, T = 1024 };
  float *x = malloc(sizeof(float) * NB * T), o[NB];
  for (int b = 0; b < NB; b++) o[b] = 100.0f;
  for (int i = 0; i < NB * T; i++) x[i] = (float)((int)(rnd() % 17) - 8);
  T2cSimTensor tx = tensor(x, NB * T, 4, "X"), to = tensor(o, NB, 4, "O");
  void *args[] = {&tx, &to};
  Run r = {"block_sum", {NB, 1, 1}, T, 0, 3};
  char err[ERRLEN];
  if (expect_ok("block_sum", launch(&r, args, 2, 2, err), err))
    for (int b = 0; b < NB; b++) {
      double want = 100.0;
      for (int t = 0; t < T; t++) want += x[b * T + t];
      if (o[b] != (float)want) fail("block_sum", "O[%d] = %g, want %g", b, o[b], want);
    }
  free(x);
}

/* The order of arg-reductions: NaN above every number; -1, 0, 1 */
static int arg_cmp(float a, float b) {
  if (a != a || b != b) return (a != a) == (b != b) ? 0 : a != a ? 1 : -1;
  return a < b ? -1 : a > b;
}

static void test_scan_arg(void) {
  static const int shapes[][2] = {{32, 1}, {16, 1}, {8, 1}, {2, 1}, {4, 8}, {8, 4}, {2, 16}, {1, 32}, {4, 4}};
  enum { NS = sizeof shapes / sizeof *shapes };
  int x[32], o[NS * 64], a[96];
  float f[32];
  for (int i = 0; i < 32; i++) x[i] = (int)(rnd() % 1000) - 500, f[i] = (float)(int)(rnd() % 5);
  f[9] = f[20] = NAN; /* argmax: lane 9 (of all 32), and of 8-lane runs 8..15 and 16..23 */
  for (int i = 24; i < 32; i++) f[i] = NAN; /* argmin of that run: its first lane */
  T2cSimTensor tx = tensor(x, 32, 4, "X"), tf = tensor(f, 32, 4, "F"), to = tensor(o, NS * 64, 4, "O"),
               ta = tensor(a, 96, 4, "A");
  void *args[] = {&tx, &tf, &to, &ta};
  Run r = {"scan_arg", {1, 1, 1}, 32, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("scan_arg", launch(&r, args, 4, 0xc, err), err)) return;
  for (int k = 0; k < NS; k++) {
    int n = shapes[k][0], st = shapes[k][1];
    for (int lane = 0; lane < 32; lane++) {
      int pos = lane / st % n, first = lane - pos * st, before = 0, total = 0;
      for (int j = 0; j < n; j++) total += x[first + j * st], before += j < pos ? x[first + j * st] : 0;
      if (o[k * 64 + lane] != before || o[k * 64 + 32 + lane] != total)
        fail("scan_arg", "scan_lanes<%d, %d> lane %d: %d, %d, want %d, %d", n, st, lane, o[k * 64 + lane],
             o[k * 64 + 32 + lane], before, total);
    }
  }
  for (int w = 0; w < 3; w++) {
    int run = w == 2 ? 8 : 32;
    for (int lane = 0; lane < 32; lane++) {
      int first = lane / run * run, best = first;
      for (int j = first + 1; j < first + run; j++) {
        int c = arg_cmp(f[j], f[best]);
        if (w == 1 ? c < 0 : c > 0) best = j;
      }
      if (a[w * 32 + lane] != best)
        fail("scan_arg", "fold_arg%s<%d> lane %d: %d, want %d", w == 1 ? "min" : "max", run, lane, a[w * 32 + lane], best);
    }
  }
}

static void test_dyn_rotate(void) {
  enum { NB = 3, T = 96, N = NB * T };
  float x[N], o[N];
  double scale = 0.5;
  unsigned add = 3;
  for (int i = 0; i < N; i++) x[i] = rnd_float(-4, 4);
  T2cSimTensor tx = tensor(x, N, 4, "X"), to = tensor(o, N, 4, "O");
  void *args[] = {&tx, &to, &scale, &add};
  Run r = {"dyn_rotate", {NB, 1, 1}, T, 1024 + T * 4, 3};
  char err[ERRLEN];
  if (expect_ok("dyn_rotate", launch(&r, args, 4, 2, err), err))
    for (int i = 0; i < N; i++) {
      float want = (float)(x[i / T * T + (i % T + 1) % T] * scale) + (float)add;
      if (o[i] != want) {
        fail("dyn_rotate", "O[%d] = %g, want %g", i, o[i], want);
        return;
      }
    }
}

static void test_mathfns(void) {
  float o[128];
  double d[32];
  T2cSimTensor to = tensor(o, 128, 4, "O"), td = tensor(d, 32, 8, "D");
  void *args[] = {&to, &td};
  Run r = {"mathfns", {1, 1, 1}, 32, 0, 1};
  char err[ERRLEN];
  if (!expect_ok("mathfns", launch(&r, args, 2, 3, err), err)) return;
  for (int i = 0; i < 32; i++) {
    double x = 0.25 + i;
    double want[4] = {1 / sqrt(x), 1 / (1 + exp(-(x - 8))), exp2(x / 8), x};
    for (int k = 0; k < 4; k++)
      if (fabs(o[i * 4 + k] - want[k]) > 1e-6 * fabs(want[k]))
        fail("mathfns", "O[%d] = %.9g, want %.9g", i * 4 + k, o[i * 4 + k], want[k]);
    if (fabs(d[i] - 1 / sqrt(x)) > 1e-15) fail("mathfns", "D[%d] = %.17g", i, d[i]);
  }
}

/* Philox4x32-10 known answers (counter[4], key[2] -> out[4]). The first three are
 * Random123 1.07's examples/kat_vectors, lines 27-29 (D. E. Shaw Research;
 * mirrored at github.com/girving/random123-manual, commit 35ff9a5); the rest its
 * examples/old_kat_vectors, lines 98, 111, 124, 137 and 146, which vary one key word. */
static const uint32_t philox_kats[][10] = {
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
    {1, 0, 0, 0, 1, 0, 0xac08141b, 0xdfc5ccbe, 0x79c07a47, 0xa7f66093},
    {1, 0, 0, 0, 0, 1, 0xccf3076a, 0x6306f434, 0xbea71965, 0xd96fe48a},
    {1, 0, 0, 0, 0, 0xffffffff, 0x473ab778, 0x330bacc0, 0xacd5fc9a, 0x5ede76b3},
    {1, 0, 0, 0, 0, 0x80000000, 0xe29b9f84, 0x2903d316, 0x42a1f56f, 0x1ad02eab},
    {0, 0, 0, 0x80000000, 0, 0x80000000, 0xf7a0b371, 0xe51dc93d, 0x56ce135d, 0x1d4b5580},
};

/* The words bit for bit; where the counter is (off, 0, 0, 0), randint(seed, off) is
 * the first word, rand its top 24 bits times 2^-24 (exactly), randn Box-Muller on
 * the first two words (f32 math against double: within 1e-5 * (1 + |r|)). */
static void test_philox_kat(void) {
  enum { NV = (int)(sizeof philox_kats / sizeof philox_kats[0]) };
  uint32_t k[NV * 6], o[NV * 5];
  float f[NV * 2];
  for (int v = 0; v < NV; v++) memcpy(&k[6 * v], philox_kats[v], 6 * sizeof(uint32_t));
  T2cSimTensor tk = tensor(k, NV * 6, 4, "K"), to = tensor(o, NV * 5, 4, "O"), tf = tensor(f, NV * 2, 4, "F");
  int n = NV;
  void *args[] = {&tk, &to, &tf, &n};
  Run r = {"philox_kat", {1, 1, 1}, 32, 0, 1};
  char err[ERRLEN];
  if (!expect_ok("philox_kat", launch(&r, args, 4, 6, err), err)) return;
  for (int v = 0; v < NV; v++) {
    const uint32_t *want = philox_kats[v] + 6;
    for (int i = 0; i < 4; i++)
      if (o[5 * v + i] != want[i]) fail("philox_kat", "vector %d word %d = %08x, want %08x", v, i, o[5 * v + i], want[i]);
    if (philox_kats[v][1] | philox_kats[v][2] | philox_kats[v][3]) continue;
    double u = (want[0] >> 8) / 16777216.0, u1 = ((want[0] >> 8) + 1) / 16777216.0, u2 = (want[1] >> 8) / 16777216.0;
    double g = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
    if (o[5 * v + 4] != want[0]) fail("philox_kat", "vector %d: randint = %08x, want %08x", v, o[5 * v + 4], want[0]);
    if (f[2 * v] != u) fail("philox_kat", "vector %d: rand = %.9g, want %.9g", v, f[2 * v], u);
    if (fabs(f[2 * v + 1] - g) > 1e-5 * (1 + fabs(g))) fail("philox_kat", "vector %d: randn = %.9g, want %.9g", v, f[2 * v + 1], g);
  }
}

/* t2c::byte_perm against __byte_perm's specification (CUDA Math API; PTX ISA prmt.b32, default
 * mode, selector nibbles 0-7): byte n of the result is byte s<4n+2:4n> of the eight bytes
 * {y, x}, x's lowest first; every selector value in every nibble, on pseudo-random words.
 * t2c::part_f32 exhaustively: byte k of W[i] as f32 is exactly (signed char) and (unsigned
 * char) of that byte, for all 256 values at each of the 4 places. */
static void test_byte_perm(void) {
  enum { N = 256 };
  static unsigned x[N], y[N], sel[N], o[N], w[N];
  static float f[8 * N];
  uint64_t st = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < N; i++) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (unsigned)(st >> 32);
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    y[i] = (unsigned)(st >> 32);
    /* nibble n takes (i >> 3n) & 7: every value in every nibble across i */
    sel[i] = (unsigned)((i & 7) | ((i >> 3) & 7) << 4 | ((i >> 6) & 3) << 8 | (7 - (i & 7)) << 12);
    w[i] = (unsigned)i | (unsigned)((i + 64) & 255) << 8 | (unsigned)((i + 128) & 255) << 16 | (unsigned)((i + 192) & 255) << 24;
  }
  T2cSimTensor tx = tensor(x, N, 4, "X"), ty = tensor(y, N, 4, "Y"), ts = tensor(sel, N, 4, "S"), to = tensor(o, N, 4, "O"),
               tw = tensor(w, N, 4, "W"), tf = tensor(f, 8 * N, 4, "F");
  int n = N;
  void *args[] = {&tx, &ty, &ts, &to, &tw, &tf, &n};
  Run r = {"byte_perm_k", {1, 1, 1}, 64, 0, 1};
  char err[ERRLEN];
  if (!expect_ok("byte_perm", launch(&r, args, 7, 1u << 3 | 1u << 5, err), err)) return;
  for (int i = 0; i < N; i++) {
    unsigned want = 0;
    for (int b = 0; b < 4; b++) {
      unsigned idx = (sel[i] >> (4 * b)) & 7, src = idx < 4 ? x[i] : y[i];
      want |= ((src >> (8 * (idx & 3))) & 0xffu) << (8 * b);
    }
    if (o[i] != want) fail("byte_perm", "byte_perm(%08x, %08x, %04x) = %08x, want %08x", x[i], y[i], sel[i], o[i], want);
    for (int k = 0; k < 4; k++) {
      unsigned char u = (unsigned char)(w[i] >> (8 * k));
      float s8 = (float)(u >= 128 ? (int)u - 256 : (int)u), u8 = (float)u;
      if (f[8 * i + k] != s8) fail("byte_perm", "part_f32<s8>(%08x, %d) = %.9g, want %.9g", w[i], k, f[8 * i + k], s8);
      if (f[8 * i + 4 + k] != u8) fail("byte_perm", "part_f32<u8>(%08x, %d) = %.9g, want %.9g", w[i], k, f[8 * i + 4 + k], u8);
    }
  }
}

/* t2c::FastDiv against C's / and % of non-negative ints: every divisor 1..3000 and each
 * power of two and its neighbours up to 2^31 - 1, at the dividends where a quotient steps
 * (0, 1, d - 1, d, d + 1, 2d - 1, ..., the largest multiple of d, INT_MAX) and at
 * pseudo-random ones; then pseudo-random pairs over the whole range. A divisor of 0 is
 * reported as a division by zero, as t2c::idiv's is. */
static void test_fastdiv(void) {
  enum { N = 200000 };
  static int d[N], x[N], q[N], r[N];
  int n = 0;
  uint64_t st = 0x2545f4914f6cdd1dull;
#define T2C_RND() (st = st * 6364136223846793005ull + 1442695040888963407ull, (unsigned)(st >> 33))
  int ds[3200], nd = 0;
  for (int i = 1; i <= 3000; i++) ds[nd++] = i;
  for (int k = 12; k <= 31; k++) {
    long long p = 1ll << k;
    if (p - 1 > 3000) ds[nd++] = (int)(p - 1);
    if (p < 2147483647ll) ds[nd++] = (int)p;
    if (p + 1 < 2147483647ll) ds[nd++] = (int)(p + 1);
  }
  ds[nd++] = 2147483646;
  for (int i = 0; i < nd; i++) {
    long long v = ds[i], m = 2147483647ll;
    long long xs[] = {0, 1, v - 1, v, v + 1, 2 * v - 1, 2 * v, m, m - 1, m - m % v, m - m % v - 1, T2C_RND() % (m + 1), T2C_RND() % (m + 1)};
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++)
      if (xs[k] >= 0 && xs[k] <= m) d[n] = (int)v, x[n++] = (int)xs[k];
  }
  while (n < N) {
    int v = (int)(T2C_RND() % 2147483647u) + 1;
    if (T2C_RND() & 1) v = v >> (T2C_RND() % 31); /* small divisors as often as large */
    d[n] = v > 0 ? v : 1, x[n++] = (int)(T2C_RND() & 0x7fffffff);
  }
#undef T2C_RND
  T2cSimTensor td = tensor(d, N, 4, "D"), tx = tensor(x, N, 4, "N"), tq = tensor(q, N, 4, "Q"), tr = tensor(r, N, 4, "R");
  void *args[] = {&td, &tx, &tq, &tr, &n};
  Run run = {"fastdiv_k", {1, 1, 1}, 256, 0, 1};
  char err[ERRLEN];
  if (!expect_ok("fastdiv", launch(&run, args, 5, 1u << 2 | 1u << 3, err), err)) return;
  int bad = 0;
  for (int i = 0; i < N && bad < 5; i++)
    if (q[i] != x[i] / d[i] || r[i] != x[i] % d[i])
      fail("fastdiv", "%d / %d: FastDiv gives %d rem %d, want %d rem %d", x[i], d[i], q[i], r[i], x[i] / d[i], x[i] % d[i]), bad++;
  /* a divisor of 0: the launch fails as a division by zero */
  d[0] = 0, x[0] = 5;
  int one = 1;
  void *args0[] = {&td, &tx, &tq, &tr, &one};
  Run run0 = {"fastdiv_k", {1, 1, 1}, 32, 0, 1};
  if (launch(&run0, args0, 5, 1u << 2 | 1u << 3, err) == 0 || !strstr(err, "division by zero"))
    fail("fastdiv", "a FastDiv of 0 divided without the CPU backend's report (%s)", err);
}

/* t2c::exp and t2c::exp2 of f32 against the specification of ex2.approx.ftz.f32
 * (PTX ISA) as CUDA states its accuracy: exp2 within 2 ulp of 2^x, exp within
 * 2 + 1.173 |x| ulp of e^x (__expf's bound: the product x * log2(e) is rounded
 * first); a result below 2^-126 (FLT_MIN) is +0; inf, -inf and NaN map to inf, 0
 * and NaN; 2^0 = 1 exactly. The exact values are computed in double. */
static double ulps(double got, double want) {
  int e;
  frexp(want, &e); /* want = f * 2^e, f in [0.5, 1): an f32 ulp there is 2^(e - 24) */
  return fabs(got - want) / ldexp(1.0, e - 24);
}

static void test_exp_approx(void) {
  enum { N = 4096 };
  static float x[N], e[N], e2[N];
  for (int i = 0; i < N - 6; i++) x[i] = -100.0f + 200.0f * (float)i / (float)(N - 7); /* [-100, 100] */
  x[N - 6] = INFINITY, x[N - 5] = -INFINITY, x[N - 4] = NAN, x[N - 3] = 0.0f, x[N - 2] = -126.5f, x[N - 1] = -125.5f;
  T2cSimTensor tx = tensor(x, N, 4, "X"), te = tensor(e, N, 4, "E"), te2 = tensor(e2, N, 4, "E2");
  int n = N;
  void *args[] = {&tx, &te, &te2, &n};
  Run r = {"exp_approx", {1, 1, 1}, 256, 0, 1};
  char err[ERRLEN];
  if (!expect_ok("exp_approx", launch(&r, args, 4, 6, err), err)) return;
  checks++;
  for (int i = 0; i < N; i++) {
    double xi = x[i], we = exp(xi), w2 = exp2(xi);
    if (isnan(xi)) {
      if (!isnan(e[i]) || !isnan(e2[i])) fail("exp_approx", "x = NaN: exp %g, exp2 %g, want NaN", e[i], e2[i]);
      continue;
    }
    if (isinf(xi)) {
      double w = xi > 0 ? INFINITY : 0.0;
      if (e[i] != w || e2[i] != w) fail("exp_approx", "x = %g: exp %g, exp2 %g, want %g", xi, e[i], e2[i], w);
      continue;
    }
    if (we < FLT_MIN ? e[i] != 0.0f : we > FLT_MAX ? !isinf(e[i]) : ulps(e[i], we) > 2 + 1.173 * fabs(xi))
      fail("exp_approx", "exp(%.9g) = %.9g, want %.9g (%.1f ulp)", xi, e[i], we, ulps(e[i], we));
    if (w2 < FLT_MIN ? e2[i] != 0.0f : w2 > FLT_MAX ? !isinf(e2[i]) : ulps(e2[i], w2) > 2)
      fail("exp_approx", "exp2(%.9g) = %.9g, want %.9g (%.1f ulp)", xi, e2[i], w2, ulps(e2[i], w2));
  }
  if (e[N - 3] != 1.0f || e2[N - 3] != 1.0f) fail("exp_approx", "exp(0) = %.9g, exp2(0) = %.9g, want 1", e[N - 3], e2[N - 3]);
  if (e2[N - 2] != 0.0f || e2[N - 1] == 0.0f) fail("exp_approx", "exp2(-126.5) = %g (want 0), exp2(-125.5) = %g", e2[N - 2], e2[N - 1]);
}

/* ---- planted bugs */
static void test_race(void) {
  int n = 256;
  float x[256], o[256];
  for (int i = 0; i < n; i++) x[i] = (float)i, o[i] = 9.0f;
  T2cSimTensor tx = tensor(x, n, 4, "X"), to = tensor(o, n, 4, "O");
  void *args[] = {&tx, &to, &n};
  Run r = {"reverse_race", {1, 1, 1}, 256, 0, 3};
  char err[ERRLEN];
  /* schedule 0 runs warpgroup 0 first: its thread 127 reads x[128] before
   * thread 128 writes it */
  expect_err("reverse_race", launch(&r, args, 3, 2, err), err,
             "race: shared array 'x' + byte 512 in kernel 'reverse_race', block (0,0,0): thread 127 read it and thread 128 writes it, and no __syncthreads(), __syncwarp(), mbarrier wait or named barrier orders the two",
             NULL);
  for (int i = 0; i < n; i++)
    if (o[i] != 9.0f) {
      fail("reverse_race", "outputs not restored after the failure: O[%d] = %g", i, o[i]);
      break;
    }
}

/* Strided views (@strided): a sliced view (rows 5 wide, 8 apart) and a
 * transposed one read correctly; reads between a view's elements, a 16-byte
 * load across its gaps, and a view that leaves its buffer are reported. */
static void test_strided(void) {
  float x[24], o[15];
  for (int i = 0; i < 24; i++) x[i] = (float)(i * 3 + 1);
  const long long shape[2] = {3, 5}, sliced[2] = {8, 1}, transposed[2] = {1, 3};
  T2cSimTensor tx = {x, 24, 4, "X", 2, shape, sliced}, to = tensor(o, 15, 4, "O");
  int R = 3, C = 5, shift = 0;
  long long s0 = 8, s1 = 1;
  void *args[] = {&tx, &to, &R, &C, &s0, &s1, &shift};
  Run r = {"strided_copy", {1, 1, 1}, 64, 0, 2};
  char err[ERRLEN];
  for (int i = 0; i < 15; i++) o[i] = -1.0f;
  if (expect_ok("strided_sliced", launch(&r, args, 7, 2, err), err))
    for (int i = 0; i < 15; i++)
      if (o[i] != x[(i / 5) * 8 + i % 5]) {
        fail("strided_sliced", "O[%d] = %g, expected X[%d] = %g", i, o[i], (i / 5) * 8 + i % 5, x[(i / 5) * 8 + i % 5]);
        break;
      }
  /* the transpose of a [5, 3] row-major array: element (i, j) at j * 3 + i */
  T2cSimTensor tt = {x, 15, 4, "XT", 2, shape, transposed};
  s0 = 1, s1 = 3;
  args[0] = &tt;
  if (expect_ok("strided_transposed", launch(&r, args, 7, 2, err), err))
    for (int i = 0; i < 15; i++)
      if (o[i] != x[(i % 5) * 3 + i / 5]) {
        fail("strided_transposed", "O[%d] = %g, expected %g", i, o[i], x[(i % 5) * 3 + i / 5]);
        break;
      }
  /* every read shifted by one: column 4 + 1 lands in the gap of each row */
  args[0] = &tx, s0 = 8, s1 = 1, shift = 1;
  expect_err("strided_gap", launch(&r, args, 7, 2, err), err,
             "out-of-bounds read of tensor 'X' at index 5: inside its buffer of 24 elements, but no element of its strided view lies there",
             NULL);
  shift = 0;
  T2cSimTensor tshort = {x, 20, 4, "X", 2, shape, sliced}; /* row 2 ends at 2 * 8 + 4 = 20: one past */
  args[0] = &tshort;
  expect_err("strided_outside", launch(&r, args, 7, 2, err), err,
             "tensor 'X' (a buffer of 20 elements): its strided view reaches outside its buffer", NULL);
  T2cSimTensor tnoshape = {x, 24, 4, "X", 0, NULL, sliced};
  args[0] = &tnoshape;
  expect_err("strided_no_shape", launch(&r, args, 7, 2, err), err,
             "tensor 'X' (a buffer of 24 elements): a strided view needs its rank (1 to 16) and shape", NULL);
  void *vargs[] = {&tx, &to};
  Run rv = {"strided_vec", {1, 1, 1}, 32, 0, 1};
  expect_err("strided_vec", launch(&rv, vargs, 2, 2, err), err,
             "out-of-bounds read of tensor 'X' at index 5: inside its buffer", NULL);
  /* a race on a view names the element by the view's coordinates: (1, 2) is
   * index 10 of the sliced view, 7 of the transposed one */
  float w[24] = {0};
  T2cSimTensor tws = {w, 24, 4, "O", 2, shape, sliced}, twt = {w, 15, 4, "O", 2, shape, transposed};
  void *rargs[] = {&tws, &s0, &s1};
  Run rr = {"strided_race", {1, 1, 1}, 32, 0, 1};
  s0 = 8, s1 = 1;
  expect_err("strided_race_sliced", launch(&rr, rargs, 3, 1, err), err,
             "race: tensor 'O' at index 10 ([1, 2] of shape [3, 5])", NULL);
  rargs[0] = &twt, s0 = 1, s1 = 3;
  expect_err("strided_race_transposed", launch(&rr, rargs, 3, 1, err), err,
             "race: tensor 'O' at index 7 ([1, 2] of shape [3, 5])", NULL);
}

static void test_oob(void) {
  float x[1024], o[1024];
  for (int i = 0; i < 1024; i++) x[i] = 1.0f, o[i] = 5.0f;
  T2cSimTensor tx = tensor(x, 1024, 4, "X"), to = tensor(o, 1024, 4, "O");
  void *args[] = {&tx, &to};
  Run r = {"oob_read", {4, 1, 1}, 256, 0, 3};
  char err[ERRLEN];
  expect_err("oob_read", launch(&r, args, 2, 2, err), err,
             "out-of-bounds read of tensor 'X' at index 1024 (size 1024) in kernel 'oob_read', block (3,0,0), thread 255",
             NULL);
  for (int i = 0; i < 1024; i++)
    if (o[i] != 5.0f) {
      fail("oob_read", "outputs not restored after the failure: O[%d] = %g", i, o[i]);
      break;
    }
  float w[64] = {0};
  T2cSimTensor tw = tensor(w, 64, 4, "O");
  void *wargs[] = {&tw};
  Run rw = {"oob_write", {1, 1, 1}, 64, 0, 1};
  expect_err("oob_write", launch(&rw, wargs, 1, 1, err), err,
             "out-of-bounds access of tensor 'O' at index -3 (size 64) in kernel 'oob_write', block (0,0,0), thread 0",
             NULL);
  Run rs = {"oob_shared", {1, 1, 1}, 64, 0, 1};
  expect_err("oob_shared", launch(&rs, wargs, 1, 1, err), err,
             "out-of-bounds access of shared array 'tile' at index 64 (size 64) in kernel 'oob_shared', block (0,0,0), thread 63",
             NULL);
  float d[32];
  T2cSimTensor td = tensor(d, 32, 4, "O");
  void *dargs[] = {&td};
  Run rd = {"dyn_overflow", {1, 1, 1}, 32, 128, 1};
  expect_err("dyn_overflow", launch(&rd, dargs, 1, 1, err), err,
             "write past the end of dynamic shared memory (128 bytes) in kernel 'dyn_overflow', block (0,0,0)", NULL);
}

static void test_divergence(void) {
  float o[256], x[256] = {0};
  T2cSimTensor to = tensor(o, 256, 4, "O"), tx = tensor(x, 256, 4, "X");
  void *args[] = {&to};
  char err[ERRLEN];
  Run r = {"div_barrier", {1, 1, 1}, 128, 0, 1};
  expect_err("div_barrier", launch(&r, args, 1, 1, err), err,
             "barrier divergence in kernel 'div_barrier', block (0,0,0): threads 0-31 wait at __syncthreads() (",
             "kernels.cu:", "threads 32-127 have exited", NULL);
  Run rs = {"div_sites", {1, 1, 1}, 64, 0, 1};
  expect_err("div_sites", launch(&rs, args, 1, 1, err), err,
             "barrier divergence in kernel 'div_sites', block (0,0,0): threads 0-31 wait at __syncthreads() (",
             "; threads 32-63 wait at __syncthreads() (", NULL);
  void *eargs[] = {&tx, &to};
  Run re = {"early_exit", {2, 1, 1}, 256, 0, 1};
  expect_err("early_exit", launch(&re, eargs, 2, 2, err), err,
             "barrier divergence in kernel 'early_exit', block (", "threads 0-63 wait at __syncthreads() (",
             "threads 64-255 have exited", NULL);
  Run rw = {"div_shfl", {1, 1, 1}, 32, 0, 1};
  expect_err("div_shfl", launch(&rw, args, 1, 1, err), err,
             "warp divergence in kernel 'div_shfl', block (0,0,0), warp 0", "threads 0-15 wait at __shfl_xor_sync (",
             "threads 16-31 have exited", NULL);
}

/* ---- tensor cores and cp.async */
static double b16f(uint16_t v, int bf) { return bf ? bf2f(v) : h2f(v); }
static uint16_t f2b16(float f, int bf) { return bf ? f2bf(f) : f2h(f); }

/* D_b = A_b x B_b + C_b for nb row-major problems, in double, rounded once;
 * *tol gets a bound on the error of any f32 sum order. */
static void ref_gemm(const uint16_t *a, const uint16_t *b, const float *c, int bf, int nb, int m, int n, int k,
                     float *want, double *tol) {
  for (int p = 0; p < nb; p++)
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        double s = 0, mag = fabs(c[(p * m + i) * n + j]);
        for (int q = 0; q < k; q++) {
          double x = b16f(a[(p * m + i) * k + q], bf) * b16f(b[(p * k + q) * n + j], bf);
          s += x;
          mag += fabs(x);
        }
        want[(p * m + i) * n + j] = (float)(s + c[(p * m + i) * n + j]);
        tol[(p * m + i) * n + j] = mag * 4e-6;
      }
}

/* Fills A, B with small integers (every sum exact: compare bitwise) or with
 * random values (compare within the tolerance), and C with either. */
static void fill_mats(uint16_t *a, long long na, uint16_t *b, long long nb, float *c, long long nc, int bf, int ints) {
  for (long long i = 0; i < na; i++) a[i] = f2b16(ints ? (float)((int)(rnd() % 17) - 8) : rnd_float(-2, 2), bf);
  for (long long i = 0; i < nb; i++) b[i] = f2b16(ints ? (float)((int)(rnd() % 17) - 8) : rnd_float(-2, 2), bf);
  for (long long i = 0; i < nc; i++) c[i] = ints ? (float)((int)(rnd() % 201) - 100) : rnd_float(-10, 10);
}

static int check_mats(const char *test, const float *got, const float *want, const double *tol, long long n,
                      int ints, int m, int ncol) {
  for (long long i = 0; i < n; i++)
    if (ints ? got[i] != want[i] : !(fabs(got[i] - want[i]) <= tol[i])) {
      fail(test, "%s data: problem %lld, D[%lld][%lld] = %.9g, want %.9g", ints ? "integer" : "random",
           i / (m * ncol), i % (m * ncol) / ncol, i % ncol, got[i], want[i]);
      return 0;
    }
  return 1;
}

/* A kernel of tests/sim/kernels.cu's gemm_body: ldmatrix_x4 for A, ldmatrix_x2_trans for B. */
static void test_gemm(const char *kernel, int bf, int m, int n, int k, unsigned threads) {
  enum { NB = 2 };
  for (int ints = 1; ints >= 0; ints--) {
    uint16_t *a = malloc(2 * NB * m * k), *b = malloc(2 * NB * k * n);
    float *c = malloc(4 * NB * m * n), *d = malloc(4 * NB * m * n), *want = malloc(4 * NB * m * n);
    double *tol = malloc(8 * NB * m * n);
    fill_mats(a, NB * m * k, b, NB * k * n, c, NB * m * n, bf, ints);
    for (int i = 0; i < NB * m * n; i++) d[i] = -1.0f;
    ref_gemm(a, b, c, bf, NB, m, n, k, want, tol);
    T2cSimTensor ta = tensor(a, NB * m * k, 2, "A"), tb = tensor(b, NB * k * n, 2, "B"),
                 tc = tensor(c, NB * m * n, 4, "C"), td = tensor(d, NB * m * n, 4, "D");
    void *args[] = {&ta, &tb, &tc, &td};
    Run r = {kernel, {NB, 1, 1}, threads, 0, 3};
    char err[ERRLEN];
    if (expect_ok(kernel, launch(&r, args, 4, 8, err), err))
      check_mats(kernel, d, want, tol, NB * m * n, ints, m, n);
    free(a), free(b), free(c), free(d), free(want), free(tol);
  }
}

/* mma with fragments built by hand from the PTX tables (no ldmatrix). */
static void test_mma_frag(const char *kernel, int bf) {
  enum { NB = 3, W = 2, NT = NB * W };
  for (int ints = 1; ints >= 0; ints--) {
    uint16_t a[NT * 256], b[NT * 128];
    float c[NT * 128], d[NT * 128], want[NT * 128];
    double tol[NT * 128];
    int pk[NT * 32];
    fill_mats(a, NT * 256, b, NT * 128, c, NT * 128, bf, ints);
    ref_gemm(a, b, c, bf, NT, 16, 8, 16, want, tol);
    T2cSimTensor ta = tensor(a, NT * 256, 2, "A"), tb = tensor(b, NT * 128, 2, "B"), tc = tensor(c, NT * 128, 4, "C"),
                 td = tensor(d, NT * 128, 4, "D"), tp = tensor(pk, NT * 32, 4, "P");
    void *args[] = {&ta, &tb, &tc, &td, &tp};
    Run r = {kernel, {NB, 1, 1}, W * 32, 0, 3};
    char err[ERRLEN];
    if (!expect_ok(kernel, launch(&r, args, 5, 0x18, err), err)) return;
    if (!check_mats(kernel, d, want, tol, NT * 128, ints, 16, 8)) return;
    for (int i = 0; i < NT * 32; i++)
      if (pk[i] != 1) {
        fail(kernel, "thread %d: unpack_lo/unpack_hi do not give back what pack2 packed", i);
        return;
      }
  }
}

/* mma.m16n8k32 s8 with fragments built by hand (tests/sim/kernels.cu's
 * mma_frag_s8): D = A B + C exactly, wrapping to 32 bits. Extreme values
 * (-128, 127) and accumulators near INT_MAX make the wrap happen. */
static void test_mma_frag_s8(void) {
  enum { NB = 3, W = 2, NT = NB * W };
  static signed char a[NT * 512], b[NT * 256];
  static int c[NT * 128], d[NT * 128];
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < NT * 512; i++) a[i] = (signed char)(i % 97 == 0 ? -128 : i % 89 == 0 ? 127 : (int)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56));
  for (int i = 0; i < NT * 256; i++) b[i] = (signed char)(i % 83 == 0 ? -128 : (int)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56));
  for (int i = 0; i < NT * 128; i++) c[i] = i % 5 == 0 ? INT_MAX - i : (int)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 40), d[i] = -1;
  T2cSimTensor ta = tensor(a, NT * 512, 1, "A"), tb = tensor(b, NT * 256, 1, "B"), tc = tensor(c, NT * 128, 4, "C"),
               td = tensor(d, NT * 128, 4, "D");
  void *args[] = {&ta, &tb, &tc, &td};
  Run r = {"mma_frag_s8", {NB, 1, 1}, W * 32, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("mma_frag_s8", launch(&r, args, 4, 0x8, err), err)) return;
  int wrapped = 0;
  for (int w = 0; w < NT; w++)
    for (int m = 0; m < 16; m++)
      for (int n = 0; n < 8; n++) {
        int64_t s = c[w * 128 + m * 8 + n];
        for (int k = 0; k < 32; k++) s += (int64_t)a[w * 512 + m * 32 + k] * b[w * 256 + k * 8 + n];
        int want = (int)(uint32_t)(uint64_t)s;
        wrapped += s > INT_MAX;
        if (d[w * 128 + m * 8 + n] != want) {
          fail("mma_frag_s8", "warp %d: D[%d][%d] = %d, want %d", w, m, n, d[w * 128 + m * 8 + n], want);
          return;
        }
      }
  if (!wrapped) fail("mma_frag_s8", "no sum wrapped past INT_MAX: the test does not cover the wrap");
}

/* An 8-bit float by the OCP spec's table of normal and subnormal values: E4M3
 * 2^(e-7) * (1 + m/8), subnormals 2^-6 * m/8, S.1111.111 NaN; E5M2 2^(e-15) *
 * (1 + m/4), subnormals 2^-14 * m/4, exponent 31 inf/NaN. */
static double f8_ref(unsigned c, int e5) {
  unsigned e = e5 ? (c >> 2) & 31 : (c >> 3) & 15, m = e5 ? c & 3 : c & 7;
  double sg = c & 0x80 ? -1 : 1, frac = e5 ? m / 4.0 : m / 8.0;
  if (!e5 && e == 15 && m == 7) return NAN;
  if (e5 && e == 31) return m ? NAN : sg * INFINITY;
  if (e == 0) return sg * pow(2, e5 ? -14 : -6) * frac;
  return sg * pow(2, (int)e - (e5 ? 15 : 7)) * (1 + frac);
}

/* mma.m16n8k32 e4m3 and e5m2 with fragments built by hand (kernels.cu's
 * mma_frag_f8): D = A B + C, the sum rounded once to f32 (within 1 ulp of the
 * double sum); finite codes only, subnormals, both zeros and the largest values
 * among them. */
static void test_mma_frag_f8(void) {
  enum { NB = 3, W = 2, NT = NB * W };
  static unsigned char a[NT * 512], b[NT * 256];
  static float c[NT * 128], d[NT * 128];
  for (int e5 = 0; e5 < 2; e5++) {
    uint64_t x = 0x243f6a8885a308d3ull + (uint64_t)e5;
    for (int i = 0; i < NT * 512 + NT * 256; i++) {
      unsigned char v;
      do v = (unsigned char)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56);
      while (!isfinite(f8_ref(v, e5)) || (e5 && fabs(f8_ref(v, e5)) > 1024));
      if (i < NT * 512) a[i] = v;
      else b[i - NT * 512] = v;
    }
    for (int i = 0; i < NT * 128; i++) c[i] = (float)(i % 7) - 3.25f, d[i] = NAN;
    T2cSimTensor ta = tensor(a, NT * 512, 1, "A"), tb = tensor(b, NT * 256, 1, "B"), tc = tensor(c, NT * 128, 4, "C"),
                 td = tensor(d, NT * 128, 4, "D");
    void *args[] = {&ta, &tb, &tc, &td, &e5};
    Run r = {"mma_frag_f8", {NB, 1, 1}, W * 32, 0, 3};
    char err[ERRLEN];
    if (!expect_ok("mma_frag_f8", launch(&r, args, 5, 0x8, err), err)) return;
    for (int w = 0; w < NT; w++)
      for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
          double s = c[w * 128 + m * 8 + n];
          for (int k = 0; k < 32; k++) s += f8_ref(a[w * 512 + m * 32 + k], e5) * f8_ref(b[w * 256 + k * 8 + n], e5);
          double got = d[w * 128 + m * 8 + n];
          if (!(fabs(got - s) <= fabs(s) * 0x1p-23 + 1e-30)) {
            fail("mma_frag_f8", "%s: warp %d: D[%d][%d] = %.9g, want %.9g", e5 ? "e5m2" : "e4m3", w, m, n, got, s);
            return;
          }
        }
  }
}

/* Every ldmatrix variant against the PTX ISA's layout: lane 8*i + r gives row r
 * of matrix i; lane l gets (l/4, 2*(l%4)) and (l/4, 2*(l%4)+1) of matrix i in
 * register i (low half first), or with .trans (2*(l%4), l/4) and (2*(l%4)+1, l/4). */
static void test_ldmatrix(void) {
  enum { T = 64 };
  uint16_t sm[64 * 8];
  int rows[T];
  unsigned o[4 * T * 4];
  for (int i = 0; i < 64 * 8; i++) sm[i] = (uint16_t)(rnd() & 0xffff);
  for (int i = 0; i < T; i++) rows[i] = (int)(rnd() % 64);
  T2cSimTensor ts = tensor(sm, 64 * 8, 2, "S"), tr = tensor(rows, T, 4, "ROWS"), to = tensor(o, 4 * T * 4, 4, "O");
  void *args[] = {&ts, &tr, &to};
  Run r = {"ldm_all", {1, 1, 1}, T, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("ldmatrix", launch(&r, args, 3, 4, err), err)) return;
  static const char *names[] = {"ldmatrix_x4", "ldmatrix_x2", "ldmatrix_x4_trans", "ldmatrix_x2_trans"};
  for (int v = 0; v < 4; v++)
    for (int tid = 0; tid < T; tid++) {
      int w = tid / 32 * 32, l = tid % 32, nmat = v % 2 ? 2 : 4, trans = v >= 2;
      for (int i = 0; i < 4; i++) {
        unsigned want = 0;
        if (i < nmat)
          for (int h = 0; h < 2; h++) {
            int row = trans ? 2 * (l % 4) + h : l / 4, col = trans ? l / 4 : 2 * (l % 4) + h;
            want |= (unsigned)sm[rows[w + 8 * i + row] * 8 + col] << (16 * h);
          }
        unsigned got = o[(v * T + tid) * 4 + i];
        if (got != want) {
          fail("ldmatrix", "%s: thread %d register %d = 0x%08x, want 0x%08x", names[v], tid, i, got, want);
          return;
        }
      }
    }
}

static void test_tc_bad(void) {
  unsigned o[64];
  int mode;
  T2cSimTensor to = tensor(o, 64, 4, "O");
  void *args[] = {&to, &mode};
  char err[ERRLEN];
  Run r = {"tc_bad", {1, 1, 1}, 32, 0, 1}, r48 = {"tc_bad", {1, 1, 1}, 48, 0, 1};
  mode = 0;
  expect_err("ldmatrix divergence", launch(&r, args, 2, 1, err), err,
             "warp divergence in kernel 'tc_bad', block (0,0,0), warp 0 (mask 0xffffffff): threads 0-15 wait at ldmatrix (",
             "rt.cuh:", "threads 16-31 have exited", NULL);
  mode = 1;
  expect_err("ldmatrix misaligned", launch(&r, args, 2, 1, err), err, "ldmatrix (",
             "in kernel 'tc_bad', block (0,0,0), warp 0: thread 9 gives row address ",
             "(row 1 of matrix 1), which is not 16-byte aligned", NULL);
  mode = 2;
  expect_err("ldmatrix outside shared", launch(&r, args, 2, 1, err), err, "ldmatrix.trans (",
             "thread 3 gives row address ", "(row 3 of matrix 0), which is not 16 bytes inside one shared array", NULL);
  mode = 3;
  expect_err("mma partial warp", launch(&r48, args, 2, 1, err), err, "mma.m16n8k16 (f16) (",
             "in kernel 'tc_bad', block (0,0,0), warp 1: needs all 32 lanes of the warp, but the block's last warp has 16 threads",
             NULL);
  mode = 4;
  expect_err("ldmatrix x2 vs x4", launch(&r, args, 2, 1, err), err,
             "warp divergence in kernel 'tc_bad', block (0,0,0), warp 0: thread 0 calls ldmatrix (", NULL);
}

static void test_cp_async(void) {
  enum { NB = 3, T = 64, NC = NB * T };
  int n = 4 * 175 + 1, nh = 2 * NC - 3;
  float x[4 * 175 + 1], os[4 * NC], ot[NC], ou[NC];
  uint16_t h[2 * NC - 3], oh[2 * NC], oh8[4 * NC];
  unsigned pend[2 * NC];
  for (int i = 0; i < n; i++) x[i] = rnd_float(-5, 5);
  for (int i = 0; i < nh; i++) h[i] = f2h(rnd_float(-5, 5));
  T2cSimTensor tx = tensor(x, n, 4, "X"), th = tensor(h, nh, 2, "H"), tos = tensor(os, 4 * NC, 4, "OS"),
               tot = tensor(ot, NC, 4, "OT"), toh = tensor(oh, 2 * NC, 2, "OH"), tou = tensor(ou, NC, 4, "OU"),
               tp = tensor(pend, 2 * NC, 4, "PEND"), toh8 = tensor(oh8, 4 * NC, 2, "OH8");
  void *args[] = {&tx, &th, &tos, &tot, &toh, &tou, &tp, &n, &nh, &toh8};
  Run r = {"cpa_groups", {NB, 1, 1}, T, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("cp.async groups", launch(&r, args, 10, 0x7c, err), err)) return;
  for (int c = 0; c < NC; c++) {
    int b = c / T, tid = c % T, rc = b * T + T - 1 - tid;
    for (int i = 0; i < 4; i++) {
      float want = 4 * c + i < n ? x[4 * c + i] : 0.0f;
      if (memcmp(&os[4 * c + i], &want, 4))
        return fail("cp.async groups", "16-byte copy with zero fill: OS[%d] = %g, want %g", 4 * c + i, os[4 * c + i], want);
    }
    if (pend[2 * c] != 0xffffffffu)
      return fail("cp.async groups", "thread %d saw 0x%08x in a destination of a pending group after wait_group 2",
                  c, pend[2 * c]);
    if (pend[2 * c + 1] != 0xffffffffu)
      return fail("cp.async groups", "thread %d saw 0x%08x in the destination of an uncommitted copy after wait_group 0",
                  c, pend[2 * c + 1]);
    float want_t = 4 * rc < n ? x[rc] : 0.0f;
    if (memcmp(&ot[c], &want_t, 4)) return fail("cp.async groups", "4-byte copy: OT[%d] = %g, want %g", c, ot[c], want_t);
    if (ou[c] != x[c]) return fail("cp.async groups", "committed late: OU[%d] = %g, want %g", c, ou[c], x[c]);
    for (int j = 0; j < 4; j++) { /* 8 bytes: the halves past H read as zero */
      uint16_t want = 4 * rc + j < nh ? h[4 * rc + j] : 0;
      if (oh8[4 * c + j] != want)
        return fail("cp.async groups", "8-byte f16 copy with zero fill: OH8[%d] = 0x%04x, want 0x%04x", 4 * c + j,
                    oh8[4 * c + j], want);
    }
    for (int j = 0; j < 2; j++) {
      uint16_t want = 2 * rc + j < nh ? h[2 * rc + j] : 0;
      if (oh[2 * c + j] != want)
        return fail("cp.async groups", "4-byte f16 copy with zero fill: OH[%d] = 0x%04x, want 0x%04x", 2 * c + j,
                    oh[2 * c + j], want);
    }
  }
}

static void test_cp_async_bad(void) {
  float x[256], o[64];
  int n = 256, mode;
  for (int i = 0; i < 256; i++) x[i] = (float)i;
  T2cSimTensor tx = tensor(x, 256, 4, "X"), to = tensor(o, 64, 4, "O");
  void *args[] = {&tx, &to, &n, &mode};
  char err[ERRLEN];
  Run r = {"cpa_bad", {1, 1, 1}, 64, 0, 3};
  /* No wait before the barrier: a copy lands at its owner's wait, after the
   * barrier, unordered with the other threads' reads. The shared-memory race
   * detector sees it under one schedule (in order: thread 31's copy lands
   * after the barrier, then thread 32 reads it). */
  mode = 0;
  Run r1 = {"cpa_bad", {1, 1, 1}, 64, 0, 1};
  expect_err("cp.async missing wait", launch(&r1, args, 4, 2, err), err,
             "race: shared array 's' + byte 496 in kernel 'cpa_bad', block (0,0,0): thread 31 wrote it and thread 32 reads it, and no __syncthreads(), __syncwarp(), mbarrier wait or named barrier orders the two",
             NULL);
  /* no barrier between an iteration's reads and the next one's copies:
   * thread 32 reads s[31] of iteration 0 after thread 31's copy of iteration 1 */
  mode = 1;
  expect_err("cp.async ring buffer race", launch(&r1, args, 4, 2, err), err,
             "race: shared array 's' + byte 124 in kernel 'cpa_bad', block (0,0,0): thread 31 wrote it and thread 32 reads it",
             NULL);
  mode = 2;
  n = 250;
  T2cSimTensor tx250 = tensor(x, 250, 4, "X");
  void *args250[] = {&tx250, &to, &n, &mode};
  expect_err("cp.async out of bounds", launch(&r, args250, 4, 2, err), err,
             "out-of-bounds cp.async read of tensor 'X' at index 248: 16 of 16 bytes valid, 4-byte elements (size 250) in kernel 'cpa_bad', block (0,0,0), thread 62",
             NULL);
  n = 256;
  mode = 3;
  expect_err("cp.async misaligned", launch(&r, args, 4, 2, err), err,
             "misaligned cp.async of 16 bytes from tensor 'X' at index 30 (byte offset 120 is not a multiple of 16) in kernel 'cpa_bad', block (0,0,0), thread 7",
             NULL);
  mode = 4;
  expect_err("cp.async not to shared", launch(&r, args, 4, 2, err), err, "cp.async of 16 bytes to ",
             "which is not inside one shared array or dynamic shared memory in kernel 'cpa_bad', block (0,0,0), thread 2",
             NULL);
  mode = 5;
  expect_err("cp.async bytes_valid", launch(&r, args, 4, 2, err), err,
             "cp.async of 16 bytes with bytes_valid 17 (must be 0..16) in kernel 'cpa_bad', block (0,0,0), thread 1", NULL);
  mode = 6;
  expect_err("cp.async refill before the readers are done", launch(&r1, args, 4, 2, err), err,
             "race: shared array 's' + byte 124 in kernel 'cpa_bad', block (0,0,0): thread 31 wrote it and thread 32 reads it",
             NULL);
}

/* ---- the race detector: every planted race is named with its tensor, its
 * element and both threads; the correct kernels run and give their results. */
static void test_tensor_races_intra(void) {
  static const long long shape[] = {2, 32};
  int o[64], mode = 0;
  T2cSimTensor to = tensor(o, 64, 4, "O");
  to.rank = 2;
  to.shape = shape;
  void *args[] = {&to, &mode};
  Run r = {"tr_intra", {1, 1, 1}, 64, 0, 1};
  char err[ERRLEN];
  expect_err("race: write/write", launch(&r, args, 2, 1, err), err,
             "race: tensor 'O' at index 37 ([1, 5] of shape [2, 32]) in kernel 'tr_intra': block (0,0,0), thread 0 wrote it and block (0,0,0), thread 1 writes it, with no barrier in between (both before the block's first __syncthreads())",
             NULL);
  mode = 1;
  expect_err("race: write/write after a barrier", launch(&r, args, 2, 1, err), err,
             "race: tensor 'O' at index 0 ([0, 0] of shape [2, 32]) in kernel 'tr_intra': block (0,0,0), thread 62 wrote it and block (0,0,0), thread 63 writes it, with no barrier in between (both after 1 __syncthreads() of the block)",
             NULL);
  mode = 2;
  expect_err("race: write/read", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 9 ([0, 9] of shape [2, 32])",
             "block (0,0,0), thread 3 wrote it and block (0,0,0), thread 4 reads it, with no barrier", NULL);
  mode = 3;
  expect_err("race: read/write", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 9 ",
             "block (0,0,0), thread 3 read it and block (0,0,0), thread 4 writes it, with no barrier", NULL);
  mode = 4;
  expect_err("race: two readers, one writes", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 20 ",
             "block (0,0,0), thread 2 read it and block (0,0,0), thread 1 writes it", NULL);
  mode = 5;
  Run r3 = {"tr_intra", {1, 1, 1}, 64, 0, 3};
  if (expect_ok("race: barriers between the writes and the reads", launch(&r3, args, 2, 1, err), err))
    for (int t = 0; t < 64; t++)
      if (o[t] != 2 * ((t + 1) % 64)) {
        fail("race: barriers between the writes and the reads", "O[%d] = %d, want %d", t, o[t], 2 * ((t + 1) % 64));
        break;
      }
  mode = 6;
  if (expect_ok("race: one thread's read-modify-writes", launch(&r3, args, 2, 1, err), err))
    for (int t = 0; t < 64; t++)
      if (o[t] != 2 * t + 8) {
        fail("race: one thread's read-modify-writes", "O[%d] = %d, want %d", t, o[t], 2 * t + 8);
        break;
      }
}

static void test_tensor_races_inter(void) {
  enum { NB = 64 };
  static int o[NB * 64 + 1];
  int mode = 0;
  T2cSimTensor to = tensor(o, NB * 64 + 1, 4, "O");
  void *args[] = {&to, &mode};
  char err[ERRLEN];
  Run r = {"tr_inter", {4, 1, 1}, 64, 0, 1};
  setenv("T2C_SIM_WORKERS", "1", 1); /* one worker: the blocks run in order */
  expect_err("race: two blocks write", launch(&r, args, 2, 1, err), err,
             "race: tensor 'O' at index 0 in kernel 'tr_inter': block (0,0,0), thread 0 wrote it and block (1,0,0), thread 1 writes it, from two blocks of one launch, and neither access is atomic",
             NULL);
  mode = 1;
  expect_err("race: a block reads what another wrote", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 1 ",
             "block (0,0,0), thread 0 wrote it and block (1,0,0), thread 2 reads it, from two blocks", NULL);
  mode = 2;
  expect_err("race: a block writes what another read", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 1 ",
             "block (0,0,0), thread 5 read it and block (1,0,0), thread 0 writes it, from two blocks", NULL);
  unsetenv("T2C_SIM_WORKERS");
  mode = 0;
  expect_err("race: two blocks write, two workers", launch(&r, args, 2, 1, err), err, "race: tensor 'O' at index 0 ",
             ", from two blocks of one launch", NULL);
  mode = 3;
  o[NB * 64] = 1000;
  Run rn = {"tr_inter", {NB, 1, 1}, 64, 0, 3};
  if (expect_ok("race: blocks write their own elements", launch(&rn, args, 2, 1, err), err))
    for (int i = 0; i < NB * 64; i++)
      if (o[i] != i + 1000) {
        fail("race: blocks write their own elements", "O[%d] = %d, want %d", i, o[i], i + 1000);
        break;
      }
}

static void test_tensor_races_atomic(void) {
  enum { N = 2000, B = 10 };
  int x[N], h[B], want[B] = {0}, n = N, mode = 0;
  for (int i = 0; i < N; i++) x[i] = (int)(rnd() % B), want[x[i]]++;
  memset(h, 0, sizeof h);
  T2cSimTensor tx = tensor(x, N, 4, "X"), th = tensor(h, B, 4, "H");
  void *args[] = {&tx, &th, &n, &mode};
  Run r = {"tr_hist", {(N + 63) / 64, 1, 1}, 64, 0, 3};
  char err[ERRLEN];
  if (expect_ok("race: atomics never race", launch(&r, args, 4, 2, err), err))
    for (int b = 0; b < B; b++)
      if (h[b] != want[b]) {
        fail("race: atomics never race", "H[%d] = %d, want %d", b, h[b], want[b]);
        break;
      }
  mode = 1;
  memset(h, 0, sizeof h);
  expect_err("race: a histogram without atomics", launch(&r, args, 4, 2, err), err, "race: tensor 'H' at index ",
             "in kernel 'tr_hist': block (", NULL);
}

static void test_tensor_races_vec(void) {
  float o[128];
  int mode = 0;
  T2cSimTensor to = tensor(o, 128, 4, "O");
  void *args[] = {&to, &mode};
  Run r = {"tr_vec", {1, 1, 1}, 32, 0, 1};
  char err[ERRLEN];
  expect_err("race: vector stores", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 0 ",
             "block (0,0,0), thread 0 wrote it and block (0,0,0), thread 1 writes it", NULL);
  mode = 1;
  expect_err("race: vector load of another thread's store", launch(&r, args, 2, 1, err), err,
             "tensor 'O' at index 4 ", "block (0,0,0), thread 0 read it and block (0,0,0), thread 1 writes it", NULL);
  mode = 2;
  Run r3 = {"tr_vec", {1, 1, 1}, 32, 0, 3};
  if (expect_ok("race: vector load after a barrier", launch(&r3, args, 2, 1, err), err))
    for (int t = 0; t < 32; t++)
      if (o[4 * t] != (float)((t + 1) % 32) || o[4 * t + 3] != 4.0f) {
        fail("race: vector load after a barrier", "O[%d] = %g, want %d", 4 * t, o[4 * t], (t + 1) % 32);
        break;
      }
  mode = 3;
  expect_err("race: cp.async of another thread's store", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 1 ",
             "block (0,0,0), thread 0 read it and block (0,0,0), thread 1 writes it", NULL);
  mode = 4;
  expect_err("race: 16-byte stores", launch(&r, args, 2, 1, err), err, "tensor 'O' at index 0 ",
             "block (0,0,0), thread 0 wrote it and block (0,0,0), thread 1 writes it", NULL);
}

/* Elements of a writable tensor passed to templates (t2c::max, a fold, a
 * shuffle, t2c::cvt) are read as values. */
static void test_tensor_races_refs(void) {
  float o[32];
  uint16_t h[32];
  for (int t = 0; t < 32; t++) o[t] = (float)t, h[t] = f2h((float)t);
  T2cSimTensor to = tensor(o, 32, 4, "O"), th = tensor(h, 32, 2, "H");
  void *args[] = {&to, &th};
  Run r = {"tr_refs", {1, 1, 1}, 32, 0, 3};
  char err[ERRLEN];
  if (!expect_ok("race: tensor elements as template arguments", launch(&r, args, 2, 3, err), err)) return;
  for (int t = 0; t < 32; t++) {
    float want = (float)((t > 5 ? t : 5) + (t < 2 ? t : 2) + t + 496 + (t ^ 1) + 2 * t);
    if (o[t] != want || h[t] != f2h((float)(t + 1))) {
      fail("race: tensor elements as template arguments", "O[%d] = %g, want %g; H[%d] = %g", t, o[t], want, t,
           h2f(h[t]));
      return;
    }
  }
}

/* t2c::atomic_*: no race, and no update lost between the two workers. */
static void test_tensor_races_atomics(void) {
  enum { NB = 256 };
  int h[3];
  float f[1];
  T2cSimTensor th = tensor(h, 3, 4, "H"), tf = tensor(f, 1, 4, "F");
  void *args[] = {&th, &tf};
  Run r = {"tr_atomics", {NB, 1, 1}, 256, 0, 3};
  char err[ERRLEN];
  h[0] = h[1] = h[2] = 0;
  f[0] = 0.0f;
  if (expect_ok("race: t2c::atomic_* from two workers", launch(&r, args, 2, 3, err), err) &&
      (h[0] != NB * 256 || h[1] != NB * 256 - 1 || h[2] != -(NB * 256 - 1) || f[0] != (float)(NB * 256)))
    fail("race: t2c::atomic_* from two workers", "H = {%d, %d, %d}, F = %g, want {%d, %d, %d}, %d", h[0], h[1], h[2],
         f[0], NB * 256, NB * 256 - 1, -(NB * 256 - 1), NB * 256);
}

/* Float atomic adds in another order are compared within rounding, by a bound
 * from the magnitudes added (runtime.cpp within_rounding), not from the
 * results: with V = {1, 2^27, -2^27} the f32 sum is 0 in block order and 1
 * reversed (the host computes both below, so the case does differ), which a
 * bound relative to the results (the one before) took for a race. f64 and f16
 * (V / 2^14: 2^-14 lost against 2^13) likewise. A sum that depends on the
 * order beyond rounding (tr_atomic_order) still fails as a race. */
static void test_atomic_cancel(void) {
  float v[3] = {1.0f, 0x1p27f, -0x1p27f}, f[1] = {0.0f};
  double d[1] = {0.0};
  uint16_t h[1] = {0};
  volatile float fwd = ((0.0f + v[0]) + v[1]) + v[2], rev = ((0.0f + v[2]) + v[1]) + v[0];
  if (fwd == rev) fail("atomics: cancellation", "the two orders give the same f32 sum %g: the case tests nothing", fwd);
  T2cSimTensor tv = tensor(v, 3, 4, "V"), tf = tensor(f, 1, 4, "F"), td = tensor(d, 1, 8, "D"), th = tensor(h, 1, 2, "H");
  void *args[] = {&tv, &tf, &td, &th};
  Run r = {"tr_atomic_cancel", {3, 1, 1}, 32, 0, 3};
  char err[ERRLEN];
  if (expect_ok("atomics: cancellation within rounding", launch(&r, args, 4, 14, err), err) &&
      (f[0] != fwd || d[0] != 1.0 || h2f(h[0]) != 0.0f))
    fail("atomics: cancellation within rounding", "F = %g, D = %g, H = %g, want %g, 1, 0 (schedule 0: block order)",
         (double)f[0], d[0], (double)h2f(h[0]), (double)fwd);
  float o[2] = {0.0f, 0.0f};
  T2cSimTensor to = tensor(o, 2, 4, "F");
  void *oargs[] = {&to};
  Run ro = {"tr_atomic_order", {3, 1, 1}, 32, 0, 2};
  expect_err("atomics: an order-dependent sum", launch(&ro, oargs, 1, 1, err), err,
             "race: outputs of kernel 'tr_atomic_order' differ between schedule 0 (in order) and schedule 1 (reversed): "
             "tensor 'F' first differs at index 0 (8 vs 4)", NULL);
}

/* t2c::atomic_min and atomic_max of floats take -0.0 as less than 0.0, so that
 * the result does not depend on the order of the updates: every schedule (in
 * order, reversed, shuffled) gives the same bits. */
static void test_atomic_zeros(void) {
  float z[3] = {0.0f, -0.0f, 1.0f};
  double d[3] = {0.0, -0.0, 1.0};
  T2cSimTensor tz = tensor(z, 3, 4, "Z"), td = tensor(d, 3, 8, "D");
  void *args[] = {&tz, &td};
  Run r = {"tr_atomic_zeros", {4, 1, 1}, 64, 0, 3}; /* three schedules, their outputs compared bit for bit */
  char err[ERRLEN];
  if (!expect_ok("atomics: signed zeros", launch(&r, args, 2, 3, err), err)) return;
  bool ok = z[0] == 0 && signbit(z[0]) && z[1] == 0 && !signbit(z[1]) && z[2] == 0 && signbit(z[2]) && d[0] == 0 &&
            signbit(d[0]) && d[1] == 0 && !signbit(d[1]) && d[2] == 0 && signbit(d[2]);
  if (!ok)
    fail("atomics: signed zeros", "Z = {%g, %g, %g}, D = {%g, %g, %g}, want {-0, 0, -0} twice", (double)z[0],
         (double)z[1], (double)z[2], d[0], d[1], d[2]);
}

/* t2c::ldg_vec and stg_vec move exactly the run at the index, and refuse a run
 * that leaves the tensor or is not aligned to its size; t2c::aligned tests the
 * real address. */
/* shared_operands: rt.cuh's templates take a shared array's element (an
 * elem_ref in sim mode) as an operand; the results, as C computes them. */
static void test_shared_operands(void) {
  int o[10] = {0, 0, 0, 0, 0, 0, 10, 5, 9, 0};
  float f[4] = {0};
  T2cSimTensor to = tensor(o, 10, 4, "O"), tf = tensor(f, 4, 4, "F");
  void *args[] = {&to, &tf};
  Run r = {"shared_operands", {1, 1, 1}, 32, 0, 1};
  char err[ERRLEN];
  if (!expect_ok("shared elements as operands", launch(&r, args, 2, 3, err), err)) return;
  const int want[10] = {7 / 2, 7 % 3, (2 << 3) + 5, 40 >> 2, 5, 4, 10 + 7, 7, 7, 3};
  const float fw[4] = {1.5f, 2.0f, -2.5f, 4.0f};
  for (int i = 0; i < 10; i++)
    if (o[i] != want[i]) fail("shared elements as operands", "O[%d] = %d, want %d", i, o[i], want[i]);
  for (int i = 0; i < 4; i++)
    if (f[i] != fw[i]) fail("shared elements as operands", "F[%d] = %g, want %g", i, f[i], fw[i]);
}

static void test_vec_runs(void) {
  static float xbuf[129] __attribute__((aligned(16)));
  float *x = xbuf, o[128];
  int mode = 0;
  for (int i = 0; i < 129; i++) xbuf[i] = (float)(3 * i + 1);
  T2cSimTensor tx = tensor(x, 128, 4, "X"), to = tensor(o, 128, 4, "O");
  void *args[] = {&tx, &to, &mode};
  char err[ERRLEN];
  Run r = {"vec_runs", {1, 1, 1}, 32, 0, 3};
  memset(o, 0, sizeof o);
  if (expect_ok("vector runs", launch(&r, args, 3, 2, err), err))
    for (int i = 0; i < 128; i++)
      if (o[i] != x[i]) {
        fail("vector runs", "O[%d] = %g, want %g", i, o[i], x[i]);
        break;
      }
  mode = 1;
  expect_err("vector run out of bounds", launch(&r, args, 3, 2, err), err,
             "out-of-bounds read of tensor 'X' at index 128", "thread 31", NULL);
  mode = 2;
  expect_err("vector run misaligned load", launch(&r, args, 3, 2, err), err,
             "misaligned 16-byte load of tensor 'X' at index 21", "thread 5", NULL);
  mode = 3;
  expect_err("vector run misaligned store", launch(&r, args, 3, 2, err), err,
             "misaligned 16-byte store of tensor 'O' at index 14", "thread 3", NULL);
  mode = 4;
  if (expect_ok("aligned, 16-byte address", launch(&r, args, 3, 2, err), err) && o[0] != 1.0f)
    fail("aligned, 16-byte address", "t2c::aligned said no for a 16-byte aligned tensor");
  T2cSimTensor tx1 = tensor(xbuf + 1, 128, 4, "X");
  void *args1[] = {&tx1, &to, &mode};
  if (expect_ok("aligned, 4-byte address", launch(&r, args1, 3, 2, err), err) && o[0] != 0.0f)
    fail("aligned, 4-byte address", "t2c::aligned said yes for an address 4 bytes past a 16-byte boundary");
}

/* packed registers: t2c::ldg_words, part and part_ref against the bytes of the input
 * (little-endian: element k of a word is its bits 8k.. (16k.. for 2-byte elements)) */
static void test_packed_parts(void) {
  static int8_t x[256] __attribute__((aligned(16)));
  static uint16_t h[128] __attribute__((aligned(16)));
  int8_t ox[256];
  uint16_t oh[128];
  for (int i = 0; i < 256; i++) x[i] = (int8_t)(i * 37 + 11);
  for (int i = 0; i < 128; i++) h[i] = (uint16_t)(0x3c00 + i * 129); /* f16 bit patterns, none a NaN */
  T2cSimTensor tx = tensor(x, 256, 1, "X"), th = tensor(h, 128, 2, "H"), tox = tensor(ox, 256, 1, "OX"),
               toh = tensor(oh, 128, 2, "OH");
  void *args[] = {&tx, &th, &tox, &toh};
  char err[ERRLEN];
  Run r = {"packed_parts", {1, 1, 1}, 32, 0, 2};
  if (!expect_ok("packed parts", launch(&r, args, 4, 12, err), err)) return;
  for (int i = 0; i < 256; i++) {
    int t = i / 8, want = i % 8 == t % 8 ? (int8_t)-t : x[i];
    if (ox[i] != want) return fail("packed parts", "OX[%d] = %d, want %d", i, ox[i], want);
  }
  for (int i = 0; i < 128; i++) {
    int t = i / 4;
    unsigned want = i % 4 == t % 4 ? h[0] : h[i];
    if (oh[i] != want) return fail("packed parts", "OH[%d] = 0x%04x, want 0x%04x", i, oh[i], want);
  }
}

/* t2c::atomic_add_vec: each element of a run added on its own (2 blocks of 64 threads,
 * so every element takes 64 updates), and a misaligned or out-of-bounds run is an error */
static void test_atomic_runs(void) {
  static float f[8] __attribute__((aligned(16)));
  static uint16_t h[8] __attribute__((aligned(16))), b[8] __attribute__((aligned(16)));
  int mode = 0;
  T2cSimTensor tf = tensor(f, 8, 4, "F"), th = tensor(h, 8, 2, "H"), tb = tensor(b, 8, 2, "B");
  void *args[] = {&tf, &th, &tb, &mode};
  char err[ERRLEN];
  Run r = {"atomic_runs", {2, 1, 1}, 64, 0, 2};
  memset(f, 0, sizeof f), memset(h, 0, sizeof h), memset(b, 0, sizeof b);
  if (expect_ok("atomic runs", launch(&r, args, 4, 7, err), err)) {
    for (int i = 0; i < 8; i++) {
      float want = 64.0f * (float)(i % 4 + 1); /* 64 threads (of 128) add i % 4 + 1 */
      /* f16 and bf16: 32 threads (of 128) add 1 (even index) or 2 (odd): 32 or 64, exact in both */
      uint16_t hw = i % 2 ? 0x5400 : 0x5000, bw = i % 2 ? 0x4280 : 0x4200;
      if (f[i] != want) fail("atomic runs", "F[%d] = %g, want %g", i, f[i], want);
      if (h[i] != hw) fail("atomic runs", "H[%d] = 0x%04x, want 0x%04x", i, h[i], hw);
      if (b[i] != bw) fail("atomic runs", "B[%d] = 0x%04x, want 0x%04x", i, b[i], bw);
    }
  }
  mode = 1;
  expect_err("atomic run misaligned", launch(&r, args, 4, 7, err), err,
             "misaligned 16-byte store of tensor 'F' at index 1", "thread 5", NULL);
  mode = 2;
  expect_err("atomic run out of bounds", launch(&r, args, 4, 7, err), err,
             "out-of-bounds access of tensor 'F' at index 8", "thread 7", NULL);
  mode = 3;
  expect_err("atomic pair misaligned", launch(&r, args, 4, 7, err), err,
             "misaligned 4-byte store of tensor 'H' at index 3", "thread 2", NULL);
}

/* A fault the process cannot survive: run it in a child, which must die of
 * SIGSEGV after naming the kernel, block and thread on stderr. */
static void test_stack_overflow(void) {
  int fd[2];
  checks++;
  if (pipe(fd) != 0) return fail("stack_overflow", "pipe");
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    dup2(fd[1], 2);
    close(fd[0]);
    int o[32];
    T2cSimTensor to = tensor(o, 32, 4, "O");
    void *args[] = {&to};
    Run r = {"stack_overflow", {1, 1, 1}, 32, 0, 1};
    char err[ERRLEN];
    launch(&r, args, 1, 1, err);
    _exit(0);
  }
  close(fd[1]);
  char out[2048];
  size_t len = 0;
  ssize_t k;
  while ((k = read(fd[0], out + len, sizeof out - 1 - len)) > 0) len += (size_t)k;
  out[len] = 0;
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  if (getenv("SIM_VERBOSE")) printf("ok stack_overflow: %s", out);
  if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
    fail("stack_overflow", "the child did not die of SIGSEGV (status 0x%x)", st);
  else if (!strstr(out, "tile2cu sim: segmentation fault in kernel 'stack_overflow', block (0,0,0), thread 5 (stack overflow"))
    fail("stack_overflow", "stderr lacks the message: %s", out);
}

/* ---- bad launches and builds */
static void test_bad_launches(const char *build) {
  char err[ERRLEN];
  float x[256], o[256];
  int n = 256;
  T2cSimTensor tx = tensor(x, 256, 2, "X"), to = tensor(o, 256, 4, "O");
  void *args[] = {&tx, &to, &n};
  Run r = {"reverse", {1, 1, 1}, 256, 0, 1};
  expect_err("elem_bytes", launch(&r, args, 3, 2, err), err,
             "tensor 'X' has 2-byte elements but the kernel takes 4-byte elements", NULL);
  Run ru = {"nope", {1, 1, 1}, 256, 0, 1};
  expect_err("unknown", launch(&ru, args, 3, 2, err), err, "unknown kernel 'nope'", "reverse", NULL);
  Run rt = {"reverse", {1, 1, 1}, 2048, 0, 1};
  expect_err("threads", launch(&rt, args, 3, 2, err), err, "2048 threads per block", NULL);
  Run rg = {"reverse", {0, 1, 1}, 256, 0, 1};
  expect_err("grid", launch(&rg, args, 3, 2, err), err, "bad grid (0,1,1)", NULL);

  char path[4096], sopath[4096];
  snprintf(path, sizeof path, "%s/bad.cu", build);
  snprintf(sopath, sizeof sopath, "%s/bad.so", build);
  FILE *f = fopen(path, "w");
  fputs("#define TILE2CU_SIM 1\n#include <tile2cu/rt.cuh>\nint broken( { }\n", f);
  fclose(f);
  expect_err("bad build", sim_build(path, sopath, rt_dir, sim_dir, err, ERRLEN), err, "sim build failed: ",
             "bad.cu:3", NULL);
  T2cSimLaunch l = {"reverse", {1, 1, 1}, 32, 0, NULL, 0, NULL, 0, 1};
  expect_err("missing so", sim_run("/nonexistent/k.so", &l, err, ERRLEN), err, "cannot load /nonexistent/k.so",
             NULL);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ROOT BUILD_DIR\n", argv[0]);
    return 2;
  }
  char cu[4096], sopath[4096], rt[4096], sim[4096], err[ERRLEN];
  snprintf(cu, sizeof cu, "%s/tests/sim/kernels.cu", argv[1]);
  snprintf(rt, sizeof rt, "%s/rt", argv[1]);
  snprintf(sim, sizeof sim, "%s/rt/sim", argv[1]);
  snprintf(sopath, sizeof sopath, "%s/kernels.so", argv[2]);
  double t0 = now();
  if (sim_build(cu, sopath, rt, sim, err, sizeof err)) {
    fprintf(stderr, "FAIL build: %s\n", err);
    return 1;
  }
  double t1 = now();
  so = sopath;
  rt_dir = rt;
  sim_dir = sim;
  test_reverse();
  test_poison();
  test_shfl_int();
  test_shfl_types();
  test_grid(37, 1, 1);
  test_grid(4, 3, 2);
  test_halfmath();
  test_strided_folds();
  test_block_sum();
  test_scan_arg();
  test_dyn_rotate();
  test_mathfns();
  test_philox_kat();
  test_byte_perm();
  test_fastdiv();
  test_exp_approx();
  test_race();
  test_oob();
  test_strided();
  test_divergence();
  test_gemm("gemm_f16_16x8x16", 0, 16, 8, 16, 32);
  test_gemm("gemm_bf16_16x8x16", 1, 16, 8, 16, 32);
  test_gemm("gemm_f16_64x64x32", 0, 64, 64, 32, 128);
  test_gemm("gemm_bf16_64x64x32", 1, 64, 64, 32, 128);
  test_gemm("gemm_f16_64x64x32_pipe", 0, 64, 64, 32, 128);
  test_gemm("gemm_bf16_64x64x32_pipe", 1, 64, 64, 32, 128);
  test_mma_frag("mma_frag_f16", 0);
  test_mma_frag("mma_frag_bf16", 1);
  test_mma_frag_s8();
  test_mma_frag_f8();
  test_ldmatrix();
  test_tc_bad();
  test_cp_async();
  test_cp_async_bad();
  test_vec_runs();
  test_packed_parts();
  test_atomic_runs();
  test_tensor_races_intra();
  test_shared_operands();
  test_tensor_races_inter();
  test_tensor_races_atomic();
  test_tensor_races_vec();
  test_tensor_races_refs();
  test_tensor_races_atomics();
  test_atomic_zeros();
  test_atomic_cancel();
  test_stack_overflow();
  test_bad_launches(argv[2]);
  printf("sim: %d checks, %d failed (build %.2fs, runs %.2fs)\n", checks, failures, t1 - t0, now() - t1);
  return failures != 0;
}
