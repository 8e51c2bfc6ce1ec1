/* difftest.c: differential testing of tile2cu with programs from tlgen.
 *
 *   difftest --tile2cu PATH --seeds A:B [--runs-per-program R] [--schedules S]
 *            [-j N] [--keep DIR] [--seed-file F] [--target T]
 *       generates the programs of seeds A .. B-1 (and those listed in F), runs
 *       each R times on the CPU backend at random ragged sizes on random data,
 *       and compares every output element with tlgen's evaluation (--backend gpu:
 *       on the GPU, through tile2cu run --backend gpu; a probe kernel first, and
 *       without a usable GPU it says so and exits 2). --target
 *       translates for T (default sm_90); for sm_90a (wgmma, TMA and mbarriers, emulated) the
 *       programs come from tlgen_from_seed_wg, with wgmma-shaped GEMMs.
 *   difftest ... --strided
 *       programs with @strided tensors (tlgen_from_seed_opts with TLGEN_STRIDED):
 *       each run lays every strided tensor out in a buffer of its own, in
 *       row-major, column-major or (inputs) any dim order, with gaps between
 *       rows, an innermost stride of 1 or 2, and for inputs sometimes a stride
 *       of 0; the buffer holds a sentinel outside the view, and an output's
 *       buffer must hold it still after the run.
 *   difftest ... --bf16
 *       programs whose 16-bit float type is bf16 (TLGEN_HALF_BF16): tensors,
 *       tiles, casts and dots; tensors of it go to tile2cu run as <u2 bits.
 *   difftest ... --i8
 *       programs with i8 tensors I and J, which the GEMM idiom takes in most
 *       programs that have one (an i32 accumulator: mma and wgmma on s8).
 *   difftest ... --f8
 *       programs with f8 tensors E and F (f8e4m3 or f8e5m2; F sometimes
 *       stored [N, K] for dot(a, transpose(b))), which the GEMM idiom takes
 *       in most programs that have one (an f32 accumulator: mma and wgmma on
 *       8-bit floats); tensors of them go to tile2cu run as |u1 bits.
 *   difftest ... --f64
 *       programs whose 32-bit float type is f64 (TLGEN_WIDE_F64): tensors,
 *       scalars, tiles and casts; tensors of it go to tile2cu run as <f8.
 *   difftest ... --rand
 *       programs with rand, randn and randint in their expressions (TLGEN_RAND);
 *       tlgen's Philox is checked against Random123's known answers first.
 *   difftest ... --deep
 *       programs that mostly start with the GEMM idiom, its loop stepping k by 4
 *       steps of the matrix instruction in @pipeline(8) (TLGEN_DEEP): stage rings
 *       large enough that some mma.sync dots load their fragments a k step ahead.
 *   difftest ... --online
 *       programs where about half the loops the tile IR could take keep an online
 *       softmax's running max and rescaled sum (TLGEN_ONLINE), which carry.c carries.
 *   difftest --print SEED [--target T] [--strided] [--bf16] [--i8] [--f8] [--f64] [--rand] [--deep] [--online]
 *       prints the program of SEED (for T).
 *   difftest --nvcc --tile2cu PATH --seeds A:B [--nvcc-path P] [--arch sm_90] [-j N]
 *       translates each program and compiles the CUDA with nvcc; an error or a
 *       warning is a failure. --arch T is --target T (sm_90a: tlgen_from_seed_wg).
 *
 * A program that tile2cu rejects counts as rejected (its diagnostics are
 * printed); more than 3% rejected is a failure too. Failing programs keep
 * their files (.tl, .npy, log.txt) in DIR/seed-N with --keep.
 */
#include "npy.h"
#include "tlgen.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { R_PASS = 0, R_FAIL = 1, R_REJECT = 2 };

static const char *tile2cu = "build/tile2cu";
static const char *nvcc_path = "nvcc";
static const char *arch = "sm_90"; /* --arch or --target: the target tile2cu translates for */
static const char *backend = "sim"; /* --backend: where tile2cu run runs the programs */

static int strided; /* --strided: programs with @strided tensors, run on views of wider buffers */
static int bf16;    /* --bf16: the programs' 16-bit float type is bf16 */
static int i8;      /* --i8: i8 GEMMs */
static int f8;      /* --f8: f8 GEMMs */
static int f64;     /* --f64: the programs' 32-bit float type is f64 */
static int rng_fns; /* --rand: random numbers */
static int wg_loop; /* --wg-loop: with --target sm_90a, attention's two products in a loop */
static int deep;    /* --deep: pipelined GEMMs in 8 stages */
static int online;  /* --online: online softmax loops */

/* The program of seed: for an architecture-specific target (sm_90a), from
   the family with wgmma-shaped GEMMs more often. */
static TlgenProgram *program(uint64_t seed) {
  size_t n = strlen(arch);
  unsigned opts = (n && arch[n - 1] == 'a' ? TLGEN_WG : 0) | (strided ? TLGEN_STRIDED : 0) | (bf16 ? TLGEN_HALF_BF16 : 0) |
                   (i8 ? TLGEN_I8 : 0) | (f8 ? TLGEN_F8 : 0) | (f64 ? TLGEN_WIDE_F64 : 0) | (rng_fns ? TLGEN_RAND : 0) | (deep ? TLGEN_DEEP : 0) |
                   (online ? TLGEN_ONLINE : 0);
  if (wg_loop && (opts & TLGEN_WG)) opts |= TLGEN_WG_LOOP;
  return tlgen_from_seed_opts(seed, opts);
}
static int runs_per_program = 2, schedules = 3, jobs = 1;
static char workdir[4096];
static int keep;
static int run_timeout = 300;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char b[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof b) n = sizeof b - 1;
  ssize_t w = write(1, b, (size_t)n);
  (void)w;
}

static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Runs argv with stdout and stderr to log (appended); returns the exit status, 124 on timeout. */
static int run_cmd(char *const *argv, const char *log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE *f = freopen(log, "a", stdout);
    if (!f) _exit(127);
    dup2(1, 2);
    setpgid(0, 0);
    alarm((unsigned)run_timeout);
    execvp(argv[0], argv);
    fprintf(stderr, "difftest: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFSIGNALED(st)) return WTERMSIG(st) == SIGALRM ? 124 : 128 + WTERMSIG(st);
  return WEXITSTATUS(st);
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t cap = 4096, n = 0;
  char *s = malloc(cap);
  size_t k;
  while (s && (k = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += k;
    if (n + 1 >= cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) { free(s); s = 0; break; }
      s = t;
    }
  }
  fclose(f);
  if (s) s[n] = 0;
  return s;
}

/* The first lines of a log, indented, for a report. */
static void say_log(const char *log, int maxlines) {
  char *s = read_text(log);
  if (!s) return;
  int lines = 0;
  for (char *l = strtok(s, "\n"); l && lines < maxlines; l = strtok(0, "\n"), lines++) say("    %s\n", l);
  free(s);
}

static void rm_rf(const char *dir) {
  char *argv[] = {"rm", "-rf", (char *)dir, 0};
  pid_t pid = fork();
  if (pid == 0) {
    execvp("rm", argv);
    _exit(127);
  }
  if (pid > 0) waitpid(pid, 0, 0);
}

/* ------------------------------------------------------------ f16 */

static uint16_t to_half(double v) {
  /* the values written are small multiples of 1/8: exact in f16 */
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  if (f == 0) return sign;
  int e = (int)((x >> 23) & 0xff) - 127 + 15;
  uint32_t m = x & 0x7fffff;
  if (e <= 0) { /* subnormal */
    m |= 0x800000;
    return (uint16_t)(sign | (m >> (14 - e)));
  }
  return (uint16_t)(sign | (e << 10) | (m >> 13));
}
static double from_half(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
  return h & 0x8000 ? -v : v;
}

/* bf16 as tile2cu run takes it: the bit patterns, <u2 (the values written are exact in bf16) */
static uint16_t to_bf16(double v) {
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, 4);
  return (uint16_t)(x >> 16);
}
static double from_bf16(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* The 8-bit floats as tile2cu run takes them: the bit patterns, |u1. The
   value of a pattern, from the formats' definitions: 1 sign bit, then 4
   exponent bits (bias 7) and 3 mantissa bits for e4m3, whose only non-finite
   patterns are S.1111.111 (NaN); 5 exponent bits (bias 15) and 2 mantissa
   bits for e5m2, IEEE-like (exponent 31: infinity or NaN). */
static double from_f8(uint8_t h, int e5m2) {
  int mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int e = (h & 0x7f) >> mb, m = h & ((1 << mb) - 1);
  double v;
  if (e5m2 && e == 31) v = m ? NAN : INFINITY;
  else if (!e5m2 && (h & 0x7f) == 0x7f) v = NAN;
  else v = e == 0 ? ldexp(m, 1 - bias - mb) : ldexp(m | 1 << mb, e - bias - mb);
  return h & 0x80 ? -v : v;
}
/* The pattern nearest to v among the finite ones (ties to the even
   pattern), by search: the values written are exact in the type. */
static uint8_t to_f8(double v, int e5m2) {
  int best = 0;
  double bd = INFINITY;
  for (int h = 0; h < 256; h++) {
    double x = from_f8((uint8_t)h, e5m2);
    if (!isfinite(x) || (x == 0 && signbit(x) != signbit(v))) continue;
    double d = fabs(x - v);
    if (d < bd || (d == bd && !(h & 1))) bd = d, best = h;
  }
  return (uint8_t)best;
}
static int is_f8(int elem) { return elem == TLGEN_F8E4M3 || elem == TLGEN_F8E5M2; }

/* tlgen's rounding to f8 (its evaluator's f8e4m3(x) and f8e5m2(x)) against the
   search above, at every finite value, every midpoint of two neighbours (a tie)
   and just either side of it, past the largest value, and at both signs; the
   number of disagreements (each printed). */
static int check_round_f8(void) {
  int bad = 0;
  for (int e5m2 = 0; e5m2 < 2; e5m2++) {
    double v[128];
    int n = 0;
    for (int h = 0; h < 128; h++)
      if (isfinite(from_f8((uint8_t)h, e5m2))) v[n++] = from_f8((uint8_t)h, e5m2);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < 6; k++) {
        double next = i + 1 < n ? v[i + 1] : v[i] * 2, mid = (v[i] + next) / 2;
        double x = k == 0 ? v[i] : k == 1 ? mid : k == 2 ? nextafter(mid, 0) : k == 3 ? nextafter(mid, INFINITY)
                 : k == 4 ? next * 1.75 : v[i] / 3;
        for (int sg = 0; sg < 2; sg++) {
          double y = sg ? -x : x, want = from_f8(to_f8(y, e5m2), e5m2), got = tlgen_round_f8(y, e5m2);
          if (want != got && bad++ < 10)
            say("difftest: tlgen_round_f8(%.17g) for %s: %.17g, but the nearest value is %.17g\n", y,
                e5m2 ? "f8e5m2" : "f8e4m3", got, want);
        }
      }
  }
  return bad;
}

static const char *descr_of(int elem) {
  return elem == TLGEN_I32    ? "<i4"
         : elem == TLGEN_F16  ? "<f2"
         : elem == TLGEN_BF16 ? "<u2"
         : elem == TLGEN_I8I  ? "|i1"
         : is_f8(elem)        ? "|u1"
         : elem == TLGEN_F64  ? "<f8"
                              : "<f4";
}

/* ------------------------------------------------------------ one program */

/* Element index -> "(i, j, ...)" for a report. */
static void coords(const TlgenProgram *p, int i, const long long *sizes, long long k, char *b, size_t n) {
  const TlgenParam *q = tlgen_param(p, i);
  long long c[TLGEN_MAX_RANK];
  for (int j = q->rank - 1; j >= 0; j--) {
    long long D = q->dim[j] >= 0 ? q->dim[j] : sizes[-q->dim[j] - 1];
    c[j] = k % D;
    k /= D;
  }
  size_t o = 0;
  o += (size_t)snprintf(b + o, n - o, "(");
  for (int j = 0; j < q->rank && o < n; j++) o += (size_t)snprintf(b + o, n - o, "%s%lld", j ? ", " : "", c[j]);
  if (o < n) snprintf(b + o, n - o, ")");
}

/* ------------------------------------------------------------ @strided views */

/* A strided tensor's view in its buffer: element (i0, i1, ..) of the view is
   buffer[i0 * stride[0] + i1 * stride[1] + ..]. */
typedef struct View {
  int rank;
  long long dim[TLGEN_MAX_RANK], stride[TLGEN_MAX_RANK];
  long long nbuf;  /* the buffer's elements */
  int overlaps;    /* a stride of 0: several elements of the view share one of the buffer */
} View;

static int rnd(uint64_t *s, int n) { *s = mix(*s, 0x5bd1e995u); return (int)(*s % (uint64_t)n); }

/* The strides of a view of tensor i: its dims laid out in a random order
   (row-major, column-major or any for inputs), each dim's stride past the
   dims inside it, plus a gap of 0 to 8 elements (4 and 8 keep 16-byte runs
   possible), the innermost stride 1 or (sometimes) 2; an input sometimes
   gets a stride of 0 (a broadcast view). Outputs never overlap. The buffer
   ends 0 to 3 elements past the view's last element. */
static void pick_view(const TlgenProgram *p, int i, const long long *sizes, uint64_t s, View *v) {
  const TlgenParam *q = tlgen_param(p, i);
  static const int gaps[] = {0, 0, 0, 1, 3, 4, 8, 5};
  v->rank = q->rank;
  for (int d = 0; d < q->rank; d++) v->dim[d] = q->dim[d] >= 0 ? q->dim[d] : sizes[-q->dim[d] - 1];
  int order[TLGEN_MAX_RANK]; /* order[0] innermost */
  int kind = rnd(&s, 4);
  for (int d = 0; d < q->rank; d++) order[d] = kind == 1 ? d : q->rank - 1 - d; /* 1: column-major */
  if (kind == 3 && !q->is_output)
    for (int d = q->rank - 1; d > 0; d--) { /* any order */
      int k = rnd(&s, d + 1), t = order[d];
      order[d] = order[k], order[k] = t;
    }
  long long st = rnd(&s, 6) == 0 ? 2 : 1;
  for (int k = 0; k < q->rank; k++) {
    int d = order[k];
    v->stride[d] = st;
    st = st * v->dim[d] + (kind == 0 ? 0 : gaps[rnd(&s, 8)]);
  }
  v->overlaps = 0;
  if (!q->is_output && rnd(&s, 6) == 0) {
    v->stride[rnd(&s, q->rank)] = 0;
    v->overlaps = 1;
  }
  long long last = 0;
  for (int d = 0; d < q->rank; d++) last += (v->dim[d] - 1) * v->stride[d];
  v->nbuf = last + 1 + rnd(&s, 4);
}

/* The buffer offset of the view's element k (row-major over the view's dims). */
static long long view_off(const View *v, long long k) {
  long long off = 0;
  for (int d = v->rank - 1; d >= 0; d--) {
    off += (k % v->dim[d]) * v->stride[d];
    k /= v->dim[d];
  }
  return off;
}

/* What a strided buffer holds outside its view: exact in every element type. */
static double sentinel(int elem) {
  return elem == TLGEN_I32 ? 12345678 : elem == TLGEN_I8I ? -100 : is_f8(elem) ? -96 : elem == TLGEN_F16 || elem == TLGEN_BF16 ? -1000.0 : -12345.5;
}

/* Tensor i's contents d as path: its elements in its shape, or, with a view,
   v->nbuf elements of the buffer the view lies in, flat. */
static int save_npy(const char *path, const TlgenProgram *p, int i, const long long *sizes, const double *d,
                    const View *v) {
  const TlgenParam *q = tlgen_param(p, i);
  Npy n;
  memset(&n, 0, sizeof n);
  snprintf(n.descr, sizeof n.descr, "%s", descr_of(q->elem));
  n.rank = v ? 1 : q->rank;
  if (v) n.shape[0] = v->nbuf;
  else
    for (int j = 0; j < q->rank; j++) n.shape[j] = q->dim[j] >= 0 ? q->dim[j] : sizes[-q->dim[j] - 1];
  long long cnt = v ? v->nbuf : tlgen_tensor_elems(p, i, sizes);
  int eb = q->elem == TLGEN_I8I || is_f8(q->elem) ? 1 : q->elem == TLGEN_F16 || q->elem == TLGEN_BF16 ? 2 : q->elem == TLGEN_F64 ? 8 : 4;
  n.nbytes = (size_t)cnt * (size_t)eb;
  n.data = malloc(n.nbytes ? n.nbytes : 1);
  if (!n.data) return -1;
  for (long long j = 0; j < cnt; j++) {
    if (q->elem == TLGEN_I32) ((int32_t *)n.data)[j] = (int32_t)d[j];
    else if (q->elem == TLGEN_I8I) ((int8_t *)n.data)[j] = (int8_t)d[j];
    else if (q->elem == TLGEN_F16) ((uint16_t *)n.data)[j] = to_half(d[j]);
    else if (q->elem == TLGEN_BF16) ((uint16_t *)n.data)[j] = to_bf16(d[j]);
    else if (is_f8(q->elem)) ((uint8_t *)n.data)[j] = to_f8(d[j], q->elem == TLGEN_F8E5M2);
    else if (q->elem == TLGEN_F64) ((double *)n.data)[j] = d[j];
    else ((float *)n.data)[j] = (float)d[j];
  }
  char err[512];
  int rc = npy_write(path, &n, err, sizeof err);
  if (rc) say("difftest: %s\n", err);
  free(n.data);
  return rc;
}

/* Reads what save_npy wrote (the same count of elements of the same type) back into d. */
static int load_npy(const char *path, const TlgenProgram *p, int i, const long long *sizes, const View *v, double *d,
                    char *why, size_t whylen) {
  const TlgenParam *q = tlgen_param(p, i);
  Npy n;
  if (npy_read(path, &n, why, whylen)) return -1;
  long long cnt = v ? v->nbuf : tlgen_tensor_elems(p, i, sizes);
  if (strcmp(n.descr, descr_of(q->elem)) || npy_nelems(&n) != cnt) {
    snprintf(why, whylen, "%.400s: dtype %s, %lld elements; expected %s, %lld", path, n.descr, npy_nelems(&n),
             descr_of(q->elem), cnt);
    npy_free(&n);
    return -1;
  }
  for (long long j = 0; j < cnt; j++) {
    if (q->elem == TLGEN_I32) d[j] = ((int32_t *)n.data)[j];
    else if (q->elem == TLGEN_I8I) d[j] = ((int8_t *)n.data)[j];
    else if (q->elem == TLGEN_F16) d[j] = from_half(((uint16_t *)n.data)[j]);
    else if (q->elem == TLGEN_BF16) d[j] = from_bf16(((uint16_t *)n.data)[j]);
    else if (is_f8(q->elem)) d[j] = from_f8(((uint8_t *)n.data)[j], q->elem == TLGEN_F8E5M2);
    else if (q->elem == TLGEN_F64) d[j] = ((double *)n.data)[j];
    else d[j] = ((float *)n.data)[j];
  }
  npy_free(&n);
  return 0;
}


static int one_run(const TlgenProgram *p, uint64_t seed, int run, const char *dir, const char *tl) {
  int np = tlgen_num_params(p), ns = tlgen_num_sizes(p);
  long long sizes[TLGEN_MAX_SIZES];
  double scalars[32];
  uint64_t rs = mix(seed, (uint64_t)run + 1);
  tlgen_pick_sizes(p, rs, sizes);
  tlgen_pick_scalars(p, rs, scalars);
  double *data[32] = {0}, *mag[32] = {0}, *got = 0, *buf = 0;
  View views[32];
  int result = R_FAIL;
  char log[4400], path[4400], argbuf[32][4440], stridebuf[32][160];
  char *argv[128];
  int na = 0;
  snprintf(log, sizeof log, "%.4000s/log-%d.txt", dir, run);
  argv[na++] = (char *)tile2cu;
  argv[na++] = "run";
  argv[na++] = (char *)tl;
  argv[na++] = "--kernel";
  argv[na++] = (char *)tlgen_kernel_name(p);
  argv[na++] = "--backend";
  argv[na++] = (char *)backend;
  argv[na++] = "--target";
  argv[na++] = (char *)arch;
  argv[na++] = "--schedules";
  char sch[16];
  snprintf(sch, sizeof sch, "%d", schedules);
  argv[na++] = sch;
  for (int i = 0; i < np; i++) {
    const TlgenParam *q = tlgen_param(p, i);
    if (q->kind == TLGEN_PARAM_SCALAR) {
      if (q->elem == TLGEN_I32) snprintf(argbuf[i], sizeof argbuf[i], "%s=%d", q->name, (int)scalars[i]);
      else snprintf(argbuf[i], sizeof argbuf[i], "%s=%.17g", q->name, scalars[i]);
      argv[na++] = argbuf[i];
      continue;
    }
    long long cnt = tlgen_tensor_elems(p, i, sizes);
    data[i] = malloc((size_t)(cnt ? cnt : 1) * sizeof(double));
    mag[i] = malloc((size_t)(cnt ? cnt : 1) * sizeof(double));
    if (!data[i] || !mag[i]) goto out;
    tlgen_fill_tensor(p, i, rs, sizes, data[i]);
    snprintf(path, sizeof path, "%.4000s/%.15s-%d.npy", dir, q->name, run);
    if (q->is_strided) {
      /* the view's elements in a buffer that holds the sentinel elsewhere; where
         the view overlaps itself, the element written last is what it holds */
      View *v = &views[i];
      pick_view(p, i, sizes, mix(rs, 0x57000u + (uint64_t)i), v);
      free(buf);
      if (!(buf = malloc((size_t)v->nbuf * sizeof(double)))) goto out;
      for (long long k = 0; k < v->nbuf; k++) buf[k] = sentinel(q->elem);
      for (long long k = 0; k < cnt; k++) buf[view_off(v, k)] = data[i][k];
      for (long long k = 0; k < cnt && v->overlaps; k++) data[i][k] = buf[view_off(v, k)];
      if (save_npy(path, p, i, sizes, buf, v)) goto out;
      size_t o = (size_t)snprintf(stridebuf[i], sizeof stridebuf[i], "%.15s=", q->name);
      for (int d = 0; d < v->rank; d++)
        o += (size_t)snprintf(stridebuf[i] + o, sizeof stridebuf[i] - o, "%s%lld", d ? "," : "", v->stride[d]);
      argv[na++] = "--stride";
      argv[na++] = stridebuf[i];
    } else if (save_npy(path, p, i, sizes, data[i], 0)) {
      goto out;
    }
    snprintf(argbuf[i], sizeof argbuf[i], "%.15s=%.4400s", q->name, path);
    argv[na++] = argbuf[i];
  }
  char sz[TLGEN_MAX_SIZES][64];
  for (int i = 0; i < ns; i++) {
    snprintf(sz[i], sizeof sz[i], "%s=%lld", tlgen_size_name(p, i), sizes[i]);
    argv[na++] = sz[i];
  }
  argv[na] = 0;
  char sizestr[1024] = "";
  for (int i = 0; i < ns; i++)
    snprintf(sizestr + strlen(sizestr), sizeof sizestr - strlen(sizestr), "%s%s", i ? " " : "", sz[i]);
  for (int i = 0; i < np; i++)
    if (tlgen_param(p, i)->is_strided)
      snprintf(sizestr + strlen(sizestr), sizeof sizestr - strlen(sizestr), " --stride %.150s", stridebuf[i]);
  int rc = run_cmd(argv, log);
  if (rc != 0) {
    say("difftest: seed %llu run %d (%s): tile2cu run exited with %d\n", (unsigned long long)seed, run, sizestr, rc);
    say_log(log, 12);
    goto out;
  }
  if (tlgen_eval(p, sizes, scalars, data, mag)) goto out;
  int bad = 0;
  for (int i = 0; i < np && bad < 5; i++) {
    const TlgenParam *q = tlgen_param(p, i);
    if (q->kind != TLGEN_PARAM_TENSOR || !q->is_output) continue;
    long long cnt = tlgen_tensor_elems(p, i, sizes);
    const View *v = q->is_strided ? &views[i] : 0;
    long long nread = v ? v->nbuf : cnt;
    free(got);
    got = malloc((size_t)(nread ? nread : 1) * sizeof(double));
    char why[600];
    snprintf(path, sizeof path, "%.4000s/%.15s-%d.npy", dir, q->name, run);
    if (!got || load_npy(path, p, i, sizes, v, got, why, sizeof why)) {
      say("difftest: seed %llu run %d: %s\n", (unsigned long long)seed, run, got ? why : "out of memory");
      bad++;
      continue;
    }
    if (v) { /* the buffer outside the view is as it was; then the view, in order */
      free(buf);
      char *in = calloc((size_t)v->nbuf, 1);
      buf = malloc((size_t)cnt * sizeof(double) + 1);
      if (!in || !buf) {
        free(in);
        say("difftest: seed %llu run %d: out of memory\n", (unsigned long long)seed, run);
        bad++;
        continue;
      }
      for (long long k = 0; k < cnt; k++) in[view_off(v, k)] = 1;
      for (long long k = 0; k < v->nbuf && bad < 5; k++) {
        if (in[k] || got[k] == sentinel(q->elem)) continue;
        say("difftest: seed %llu run %d (%s): %s's buffer at %lld, outside the view, = %.9g, was %.9g\n",
            (unsigned long long)seed, run, sizestr, q->name, k, got[k], sentinel(q->elem));
        bad++;
      }
      free(in);
      for (long long k = 0; k < cnt; k++) buf[k] = got[view_off(v, k)];
      double *t = got;
      got = buf, buf = t;
    }
    for (long long k = 0; k < cnt && bad < 5; k++) {
      if (tlgen_close(q->elem, data[i][k], mag[i][k], got[k])) continue;
      char c[128];
      coords(p, i, sizes, k, c, sizeof c);
      say("difftest: seed %llu run %d (%s): %s%s = %.9g, expected %.9g (magnitude %.3g)\n", (unsigned long long)seed,
          run, sizestr, q->name, c, got[k], data[i][k], mag[i][k]);
      bad++;
    }
  }
  result = bad ? R_FAIL : R_PASS;
out:
  for (int i = 0; i < 32; i++) {
    free(data[i]);
    free(mag[i]);
  }
  free(got);
  free(buf);
  return result;
}

static int test_program(uint64_t seed, int *runs_done) {
  TlgenProgram *p = program(seed);
  if (!p) return R_FAIL;
  char dir[4400], tl[4500], log[4500];
  snprintf(dir, sizeof dir, "%s/seed-%llu", workdir, (unsigned long long)seed);
  mkdir(dir, 0777);
  snprintf(tl, sizeof tl, "%s/prog.tl", dir);
  snprintf(log, sizeof log, "%s/check.txt", dir);
  int result = R_PASS;
  *runs_done = 0;
  if (write_text(tl, tlgen_source(p))) {
    say("difftest: cannot write %s\n", tl);
    result = R_FAIL;
    goto out;
  }
  /* for the target the runs take: a program too large for its shared memory is rejected */
  char *argv[] = {(char *)tile2cu, "--check", "--target", (char *)arch, tl, 0};
  int rc = run_cmd(argv, log);
  if (rc != 0) {
    say("difftest: seed %llu: %s (exit %d): build/difftest --print %llu\n", (unsigned long long)seed,
        rc == 1 ? "rejected by tile2cu" : "tile2cu --check failed", rc, (unsigned long long)seed);
    say_log(log, 16);
    result = rc == 1 ? R_REJECT : R_FAIL;
    goto out;
  }
  for (int r = 0; r < runs_per_program && result == R_PASS; r++) {
    result = one_run(p, seed, r, dir, tl);
    ++*runs_done;
  }
  if (result == R_FAIL)
    say("difftest: seed %llu FAILED; reproduce: build/difftest --tile2cu %s --seeds %llu:%llu --runs-per-program %d "
        "--target %s%s%s%s%s%s%s%s%s%s --keep DIR (files in %s)\n",
        (unsigned long long)seed, tile2cu, (unsigned long long)seed, (unsigned long long)seed + 1, runs_per_program,
        arch, strided ? " --strided" : "", bf16 ? " --bf16" : "", i8 ? " --i8" : "", f8 ? " --f8" : "",
        f64 ? " --f64" : "", rng_fns ? " --rand" : "", wg_loop ? " --wg-loop" : "", deep ? " --deep" : "",
        online ? " --online" : "", keep ? dir : "DIR/seed-N");
out:
  if (result != R_FAIL || !keep) rm_rf(dir);
  tlgen_free(p);
  return result;
}

/* ------------------------------------------------------------ nvcc */

/* Whether name is never read in the .tl text: each of its occurrences is its
   declaration (var name) or the target of an assignment (name = .., name[..] += ..). */
static int never_read(const char *tl, const char *name) {
  size_t n = strlen(name);
  for (const char *s = strstr(tl, name); s; s = strstr(s + 1, name)) {
    int word = (s == tl || !(isalnum((unsigned char)s[-1]) || s[-1] == '_')) &&
               !(isalnum((unsigned char)s[n]) || s[n] == '_');
    if (!word || (s > tl && s[-1] == '.')) continue; /* ctx.block.x is not the var x */
    if (s - tl >= 4 && (!strncmp(s - 4, "var ", 4) || !strncmp(s - 4, "for ", 4))) continue;
    const char *bol = s;
    while (bol > tl && bol[-1] != '\n') bol--;
    if (!strncmp(bol, "@registers(", 11)) continue;
    const char *t = s + n;
    if (*t == '[') { /* skip the index */
      int depth = 0;
      for (; *t; t++) {
        if (*t == '[') depth++;
        else if (*t == ']' && --depth == 0) { t++; break; }
      }
    }
    while (*t == ' ') t++;
    if (t[0] == '=' && t[1] != '=') continue;
    if (strchr("+-*/", t[0]) && t[0] && t[1] == '=') continue;
    return 0;
  }
  return 1;
}

/* Counts the nvcc warnings and errors in a log. Warnings that a variable is
   unused (#177) or set but never used (#550) are not counted when the .tl of
   the file they are in never reads that variable: they come from the program. */
static int nvcc_problems(const char *log, const char *dir) {
  char *s = read_text(log);
  if (!s) return 1;
  int problems = 0;
  for (char *l = strtok(s, "\n"); l; l = strtok(0, "\n")) {
    if ((!strstr(l, "warning") && !strstr(l, "error")) || !strncmp(l, "Remark", 6)) continue;
    const char *v = strstr(l, "variable \"");
    const char *f = strstr(l, "/s");
    if (v && (strstr(l, "#177-D") || strstr(l, "#550-D")) && f && !strstr(l, "error")) {
      char name[128], tl[4500];
      unsigned long long seed;
      if (sscanf(v, "variable \"%127[^\"]\"", name) == 1 && sscanf(strrchr(l, '/'), "/s%llu.cu", &seed) == 1) {
        snprintf(tl, sizeof tl, "%.4000s/s%llu.tl", dir, seed);
        char *text = read_text(tl);
        int unread = text && never_read(text, name);
        free(text);
        if (unread) continue;
      }
    }
    problems++;
  }
  free(s);
  return problems;
}

static int nvcc_batch(const uint64_t *seeds, int n, int batch_no) {
  char dir[4400], cu[4500], all[4500], obj[4500], log[4500];
  snprintf(dir, sizeof dir, "%s/nvcc-%d", workdir, batch_no);
  mkdir(dir, 0777);
  snprintf(all, sizeof all, "%s/all.cu", dir);
  FILE *f = fopen(all, "w");
  if (!f) return -1;
  int failed = 0, rejected = 0;
  char includes[512] = "";
  {
    char ilog[4500];
    snprintf(ilog, sizeof ilog, "%s/includes.txt", dir);
    char *argv[] = {(char *)tile2cu, "--includes", 0};
    if (run_cmd(argv, ilog) == 0) {
      char *s = read_text(ilog);
      if (s) {
        s[strcspn(s, "\n")] = 0;
        snprintf(includes, sizeof includes, "%s", s);
        free(s);
      }
    }
  }
  for (int i = 0; i < n; i++) {
    TlgenProgram *p = program(seeds[i]);
    char tl[4500];
    snprintf(tl, sizeof tl, "%s/s%llu.tl", dir, (unsigned long long)seeds[i]);
    snprintf(cu, sizeof cu, "%s/s%llu.cu", dir, (unsigned long long)seeds[i]);
    snprintf(log, sizeof log, "%s/s%llu.log", dir, (unsigned long long)seeds[i]);
    write_text(tl, tlgen_source(p));
    tlgen_free(p);
    char *argv[] = {(char *)tile2cu, tl, "-o", cu, "--target", (char *)arch, 0};
    int rc = run_cmd(argv, log);
    if (rc != 0) {
      say("difftest: seed %llu: rejected by tile2cu (exit %d)\n", (unsigned long long)seeds[i], rc);
      say_log(log, 16);
      rejected++;
      continue;
    }
    fprintf(f, "#include \"s%llu.cu\"\n", (unsigned long long)seeds[i]);
  }
  fclose(f);
  snprintf(obj, sizeof obj, "%s/all.o", dir);
  snprintf(log, sizeof log, "%s/nvcc.log", dir);
  char archflag[64];
  snprintf(archflag, sizeof archflag, "-arch=%s", arch);
  char *argv[] = {(char *)nvcc_path, "-c", archflag, includes, "-o", obj, all, 0};
  int rc = run_cmd(argv, log);
  int noisy = nvcc_problems(log, dir);
  if (rc != 0 || noisy) {
    say("difftest: nvcc batch %d (seeds %llu..%llu) %s; checking each\n", batch_no, (unsigned long long)seeds[0],
        (unsigned long long)seeds[n - 1], rc ? "failed" : "warned");
    for (int i = 0; i < n; i++) {
      snprintf(cu, sizeof cu, "%s/s%llu.cu", dir, (unsigned long long)seeds[i]);
      if (access(cu, F_OK)) continue;
      snprintf(log, sizeof log, "%s/s%llu.nvcc.log", dir, (unsigned long long)seeds[i]);
      char *a1[] = {(char *)nvcc_path, "-c", archflag, includes, "-o", obj, cu, 0};
      int r1 = run_cmd(a1, log);
      int n1 = nvcc_problems(log, dir);
      if (r1 || n1) {
        say("difftest: seed %llu: nvcc %s (exit %d):\n", (unsigned long long)seeds[i], r1 ? "rejects the CUDA" : "warns",
            r1);
        say_log(log, 16);
        failed++;
      }
    }
    if (!failed) failed = 1;
  }
  if (!keep || !failed) rm_rf(dir);
  return failed * 1000 + rejected;
}

/* ------------------------------------------------------------ main */

static void usage(void) {
  fprintf(stderr,
          "usage: difftest --tile2cu PATH --seeds A:B [--runs-per-program R] [--schedules S] [-j N] [--keep DIR]\n"
          "                [--seed-file F] [--target T] [--backend sim|gpu] [--strided] [--bf16] [--i8] [--f8]\n"
          "                [--f64] [--rand] [--wg-loop] [--deep] [--online]\n"
          "       difftest --print SEED [--target T] [--strided] [--bf16] [--i8] [--f8] [--f64] [--rand] [--wg-loop] [--deep] [--online]\n"
          "       difftest --nvcc --tile2cu PATH --seeds A:B [--nvcc-path P] [--arch sm_90] [-j N] [--keep DIR]\n"
          "                [--strided] [--bf16] [--i8] [--f8] [--f64] [--rand] [--wg-loop] [--deep] [--online]\n");
  exit(2);
}

int main(int argc, char **argv) {
  unsigned long long a = 0, b = 0;
  int have_seeds = 0, nvcc = 0;
  const char *keep_dir = 0, *seed_file = 0, *print = 0;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : 0;
    if (!strcmp(o, "--print") && v) print = argv[++i];
    else if (!strcmp(o, "--tile2cu") && v) tile2cu = argv[++i];
    else if (!strcmp(o, "--seeds") && v) {
      if (sscanf(v, "%llu:%llu", &a, &b) != 2 || b < a) usage();
      have_seeds = 1;
      i++;
    } else if (!strcmp(o, "--runs-per-program") && v) runs_per_program = atoi(argv[++i]);
    else if (!strcmp(o, "--schedules") && v) schedules = atoi(argv[++i]);
    else if (!strcmp(o, "-j") && v) jobs = atoi(argv[++i]);
    else if (!strcmp(o, "--keep") && v) keep_dir = argv[++i];
    else if (!strcmp(o, "--seed-file") && v) seed_file = argv[++i];
    else if (!strcmp(o, "--nvcc")) nvcc = 1;
    else if (!strcmp(o, "--strided")) strided = 1;
    else if (!strcmp(o, "--bf16")) bf16 = 1;
    else if (!strcmp(o, "--i8")) i8 = 1;
    else if (!strcmp(o, "--f8")) f8 = 1;
    else if (!strcmp(o, "--f64")) f64 = 1;
    else if (!strcmp(o, "--rand")) rng_fns = 1;
    else if (!strcmp(o, "--wg-loop")) wg_loop = 1;
    else if (!strcmp(o, "--deep")) deep = 1;
    else if (!strcmp(o, "--online")) online = 1;
    else if (!strcmp(o, "--nvcc-path") && v) nvcc_path = argv[++i];
    else if ((!strcmp(o, "--arch") || !strcmp(o, "--target")) && v) arch = argv[++i];
    else if (!strcmp(o, "--backend") && v && (!strcmp(v, "sim") || !strcmp(v, "gpu"))) backend = argv[++i];
    else usage();
  }
  if (print) {
    TlgenProgram *p = program(strtoull(print, 0, 0));
    fputs(tlgen_source(p), stdout);
    tlgen_free(p);
    return 0;
  }
  if (!have_seeds && !seed_file) usage();
  if (runs_per_program < 1 || schedules < 1 || jobs < 1) usage();
  if (rng_fns && !nvcc) { /* tlgen's Philox against Random123's known-answer vectors (kat_vectors) */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
         0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
         0x24126ea1}};
    for (int i = 0; i < 3; i++) {
      uint32_t w[4];
      tlgen_philox4x32_10(kat[i], kat[i] + 4, w);
      if (memcmp(w, kat[i] + 6, sizeof w)) {
        say("difftest: tlgen's philox4x32_10 misses Random123's known answer %d (%08x %08x %08x %08x); no programs run\n",
            i, w[0], w[1], w[2], w[3]);
        return 1;
      }
    }
  }
  if (f8 && !nvcc && check_round_f8()) {
    say("difftest: tlgen's rounding to f8 disagrees with the formats' definitions; no programs run\n");
    return 1;
  }
  /* the seed list */
  size_t nseeds = 0, cap = 64;
  uint64_t *seeds = malloc(cap * sizeof *seeds);
  for (unsigned long long s = a; have_seeds && s < b; s++) {
    if (nseeds == cap) seeds = realloc(seeds, (cap *= 2) * sizeof *seeds);
    seeds[nseeds++] = s;
  }
  if (seed_file) {
    FILE *f = fopen(seed_file, "r");
    if (!f) {
      fprintf(stderr, "difftest: cannot open %s: %s\n", seed_file, strerror(errno));
      return 2;
    }
    char line[256];
    while (fgets(line, sizeof line, f)) {
      char *e;
      unsigned long long s = strtoull(line, &e, 0);
      if (e == line) continue; /* blank lines and comments */
      if (nseeds == cap) seeds = realloc(seeds, (cap *= 2) * sizeof *seeds);
      seeds[nseeds++] = s;
    }
    fclose(f);
  }
  if (keep_dir) {
    mkdir(keep_dir, 0777);
    snprintf(workdir, sizeof workdir, "%s", keep_dir);
    keep = 1;
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/difftest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir)) {
      fprintf(stderr, "difftest: mkdtemp: %s\n", strerror(errno));
      return 2;
    }
  }
  /* every tile2cu run shares one cache in the work dir unless the caller set one */
  char cache[4500];
  if (!getenv("TILE2CU_CACHE_DIR")) {
    snprintf(cache, sizeof cache, "%s/cache", workdir);
    setenv("TILE2CU_CACHE_DIR", cache, 1);
  }
  if (!nvcc && !strcmp(backend, "gpu")) { /* one kernel first: without a usable GPU, say so once */
    char tl[4200], y[4200], log[4200], ya[4300];
    snprintf(tl, sizeof tl, "%s/probe.tl", workdir);
    snprintf(y, sizeof y, "%s/probe-y.npy", workdir);
    snprintf(log, sizeof log, "%s/probe.log", workdir);
    FILE *f = fopen(tl, "w");
    if (!f) return 2;
    fputs("@launch(32)\nkernel probe(Y: tensor<f32>[N]) {\n  Y[0 :+ 32] = 1.0\n}\n", f);
    fclose(f);
    snprintf(ya, sizeof ya, "Y=%s", y);
    char *pv[] = {(char *)tile2cu, "run", tl, "--kernel", "probe", "--backend", "gpu", ya, "N=32", 0};
    if (run_cmd(pv, log)) {
      fprintf(stderr, "difftest: --backend gpu: tile2cu run cannot run a kernel on the GPU:\n");
      say_log(log, 4);
      if (!keep) rm_rf(workdir);
      return 2;
    }
  }
  time_t t0 = time(0);
  int programs = 0, runs = 0, rejected = 0, failed = 0;
  int batch = nvcc ? 8 : 1;
  size_t next = 0;
  int running = 0;
  /* each unit (a program, or a batch for nvcc) runs in a child process whose
     exit status says how it went: for a program, the result in bits 0-1 and
     the runs done in bits 2-7; for a batch, the rejected programs in bits 0-3
     and the failed ones in bits 4-7 */
  pid_t *pids = calloc((size_t)jobs, sizeof *pids);
  int *units = calloc((size_t)jobs, sizeof *units);
  if (!pids || !units) return 2;
  while (next < nseeds || running) {
    while (running < jobs && next < nseeds) {
      size_t n = nseeds - next < (size_t)batch ? nseeds - next : (size_t)batch;
      fflush(stdout);
      pid_t pid = fork();
      if (pid < 0) break;
      if (pid == 0) {
        if (nvcc) {
          int r = nvcc_batch(seeds + next, (int)n, (int)(next / (size_t)batch));
          int f = r / 1000, rj = r % 1000;
          _exit((rj > 15 ? 15 : rj) | (f > 15 ? 15 : f) << 4);
        }
        int done = 0;
        int r = test_program(seeds[next], &done);
        _exit(r | (done > 63 ? 63 : done) << 2);
      }
      for (int j = 0; j < jobs; j++)
        if (!pids[j]) {
          pids[j] = pid;
          units[j] = (int)n;
          break;
        }
      running++;
      next += n;
    }
    int st;
    pid_t w = wait(&st);
    if (w < 0) break;
    int n = 1;
    for (int j = 0; j < jobs; j++)
      if (pids[j] == w) {
        n = units[j];
        pids[j] = 0;
      }
    running--;
    programs += n;
    if (!WIFEXITED(st)) {
      say("difftest: a worker died (status %d)\n", st);
      failed++;
      continue;
    }
    int c = WEXITSTATUS(st);
    if (nvcc) {
      rejected += c & 15;
      failed += c >> 4;
    } else {
      rejected += (c & 3) == R_REJECT;
      failed += (c & 3) == R_FAIL;
      runs += c >> 2;
    }
  }
  free(pids);
  free(units);
  int too_many_rejected = programs > 0 && rejected * 100 > programs * 3;
  if (nvcc)
    printf("difftest: %d programs compiled with nvcc (%s), %d rejected by tile2cu, %d failed (%ld s)\n", programs, arch,
           rejected, failed, (long)(time(0) - t0));
  else
    printf("difftest: %d programs, %d runs, %d rejected by tile2cu, %d failed (%ld s)\n", programs, runs, rejected,
           failed, (long)(time(0) - t0));
  if (too_many_rejected) printf("difftest: more than 3%% of the programs were rejected\n");
  if (!keep) rm_rf(workdir);
  free(seeds);
  return failed || too_many_rejected ? 1 : 0;
}
