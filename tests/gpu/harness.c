/* harness.c: see harness.h. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npy.h"

const char *h_tile2cu = "build/tile2cu", *h_backend = "sim", *h_tldir = "tests/gpu", *h_tmpdir = "/tmp";
const char *h_target = ""; /* --target: for the calls that name none (CPU backend) */
const char *h_skip_same = ""; /* --skip-same-as T: see call_same_as_base */
int h_same = 0;
int h_schedules = 3;
int h_timeout = 0; /* seconds a `tile2cu run` may take (SIGALRM ends it); 0: no limit */
bool h_verbose = false;

/* ------------------------------------------------------------ random numbers */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Rng rng_seed(const char *name, uint64_t k) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a of the name, then the case number */
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  Rng r = {h ^ (k * 0x2545f4914f6cdd1dull)};
  splitmix(&r.s);
  return r;
}

double rng_unit(Rng *r) { return (double)(splitmix(&r->s) >> 11) * (1.0 / 9007199254740992.0); }
double rng_uniform(Rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }
int64_t rng_int(Rng *r, int64_t lo, int64_t hi) {
  return lo + (int64_t)(splitmix(&r->s) % (uint64_t)(hi - lo + 1));
}

/* ------------------------------------------------------------ f16 / bf16 */

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

uint16_t f32_to_f16(float f) {
  uint32_t x = fbits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7fffffff;
  if (ax >= 0x7f800000) return sign | (ax > 0x7f800000 ? 0x7e00 : 0x7c00); /* NaN, inf */
  if (ax >= 0x477ff000) return sign | 0x7c00; /* rounds to >= 65520: inf */
  int e = (int)(ax >> 23) - 127;
  uint32_t m = ax & 0x7fffff;
  if (e >= -14) { /* normal f16 */
    uint32_t h = ((uint32_t)(e + 15) << 10) | (m >> 13);
    uint32_t rest = m & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++; /* carries into the exponent correctly */
    return sign | (uint16_t)h;
  }
  if (e < -25) return sign; /* below half the smallest subnormal: 0 */
  /* subnormal: value = m' * 2^-24 with m' = (1.m) * 2^(e + 24) */
  m |= 0x800000;
  int shift = -e - 1; /* (1.m) has 23 fraction bits; 2^(e+24) => shift right by 23 - (e + 24) = -e - 1 */
  uint32_t h = m >> shift;
  uint32_t rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1))) h++;
  return sign | (uint16_t)h;
}

float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 31) return bitsf(sign | 0x7f800000 | (m << 13));
  if (e == 0) {
    float v = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
    return sign ? -v : v;
  }
  return bitsf(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t f32_to_bf16(float f) {
  uint32_t x = fbits(f);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

float bf16_to_f32(uint16_t b) { return bitsf((uint32_t)b << 16); }

double f8_to_f64(Dt dt, uint8_t c) {
  int e4 = dt == F8E4M3, mb = e4 ? 3 : 2, bias = e4 ? 7 : 15;
  int e = (c & 0x7f) >> mb, m = c & ((1 << mb) - 1);
  double s = c & 0x80 ? -1 : 1;
  if (e4 && (c & 0x7f) == 0x7f) return NAN;
  if (!e4 && e == 31) return m ? NAN : s * INFINITY;
  if (e == 0) return s * ldexp(m, 1 - bias - mb);
  return s * ldexp((1 << mb) + m, e - bias - mb);
}

uint8_t f64_to_f8(Dt dt, double x) {
  if (isnan(x)) return dt == F8E4M3 ? 0x7f : 0x7e;
  double ax = fabs(x), maxf = dt == F8E4M3 ? 448 : 57344;
  uint8_t sign = signbit(x) ? 0x80 : 0;
  if (ax >= maxf) return sign | (dt == F8E4M3 ? 0x7e : 0x7b);
  int best = 0;
  double bd = INFINITY;
  for (int c = 0; c < 0x80; c++) {
    double v = f8_to_f64(dt, (uint8_t)c);
    if (isnan(v) || isinf(v)) continue;
    double d = fabs(v - ax);
    if (d < bd || (d == bd && (c & 1) == 0)) bd = d, best = c;
  }
  return sign | (uint8_t)best;
}

double round_dt(Dt dt, double x) {
  switch (dt) {
  case F32: return (float)x;
  case F16: return f16_to_f32(f32_to_f16((float)x));
  case BF16: return bf16_to_f32(f32_to_bf16((float)x));
  case F64: return x;
  case I32: return (double)(int32_t)x;
  case I8: return (double)(int8_t)x;
  case U8: return (double)(uint8_t)x;
  case U32: return (double)(uint32_t)x;
  case F8E4M3: case F8E5M2: return f8_to_f64(dt, f64_to_f8(dt, (float)x));
  case I64: return (double)(int64_t)x;
  }
  return x;
}

static const char *descr(Dt dt) {
  static const char *d[] = {"<f4", "<f2", "<u2", "<f8", "<i4", "|i1", "|u1", "<u4", "|u1", "|u1", "<i8"};
  return d[dt];
}
static const char *dtname(Dt dt) {
  static const char *d[] = {"f32", "f16", "bf16", "f64", "i32", "i8", "u8", "u32", "f8e4m3", "f8e5m2", "i64"};
  return d[dt];
}
static bool is_int(Dt dt) { return dt == I32 || dt == I8 || dt == U8 || dt == U32 || dt == I64; }
static double default_tol(Dt dt) {
  return dt == F16 || dt == BF16 ? 1e-2 : dt == F32 ? 1e-5 : dt == F64 ? 1e-12 : dt == F8E4M3 || dt == F8E5M2 ? 1e-1 : 0;
}
static double int_poison(Dt dt) {
  return dt == I32 ? POISON_INT : dt == I8 ? 0x7f : dt == U8 ? 0xff : dt == I64 ? -0x1p63 : 0xffffffffu;
}

/* ------------------------------------------------------------ calls */

void call_init(Call *c, const char *tl, const char *kernel) {
  memset(c, 0, sizeof *c);
  c->tl = tl;
  c->kernel = kernel;
}

static Ten *add_ten(Call *c, const char *name, Dt dt, int rank, const long long *shape, bool out) {
  if (c->nt >= MAXT) { fprintf(stderr, "harness: too many tensors\n"); exit(2); }
  Ten *t = &c->t[c->nt++];
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  t->dt = dt;
  t->rank = rank;
  t->n = 1;
  for (int d = 0; d < rank; d++) t->shape[d] = shape[d], t->n *= shape[d];
  t->v = calloc((size_t)t->n + 1, sizeof(double));
  t->out = out;
  t->tol = -1;
  if (out) {
    t->ref = calloc((size_t)t->n + 1, sizeof(double));
    for (long long i = 0; i < t->n; i++) t->ref[i] = NAN;
  }
  return t;
}

Ten *call_in(Call *c, const char *name, Dt dt, int rank, const long long *shape) {
  return add_ten(c, name, dt, rank, shape, false);
}
Ten *call_out(Call *c, const char *name, Dt dt, int rank, const long long *shape) {
  return add_ten(c, name, dt, rank, shape, true);
}

void call_arg(Call *c, const char *fmt, ...) {
  if (c->na >= MAXA) { fprintf(stderr, "harness: too many arguments\n"); exit(2); }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->args[c->na++], sizeof c->args[0], fmt, ap);
  va_end(ap);
}

void fill_uniform(Ten *t, Rng *r, double lo, double hi) {
  for (long long i = 0; i < t->n; i++) t->v[i] = round_dt(t->dt, rng_uniform(r, lo, hi));
}
void fill_int(Ten *t, Rng *r, int64_t lo, int64_t hi) {
  for (long long i = 0; i < t->n; i++) t->v[i] = (double)rng_int(r, lo, hi);
}

void call_free(Call *c) {
  for (int i = 0; i < c->nt; i++) free(c->t[i].v), free(c->t[i].init), free(c->t[i].ref);
  c->nt = 0;
}

/* ------------------------------------------------------------ .npy conversion */

static int write_ten(const char *path, const Ten *t, const double *vals, char *err, size_t n) {
  Npy a;
  memset(&a, 0, sizeof a);
  snprintf(a.descr, sizeof a.descr, "%s", descr(t->dt));
  a.rank = t->rank;
  for (int d = 0; d < t->rank; d++) a.shape[d] = t->shape[d];
  size_t eb = (size_t)npy_elem_bytes(a.descr);
  a.nbytes = (size_t)t->n * eb;
  a.data = malloc(a.nbytes + 1);
  for (long long i = 0; i < t->n; i++) {
    double x = vals ? vals[i] : NAN;
    char *p = (char *)a.data + (size_t)i * eb;
    if (is_int(t->dt) && isnan(x)) x = int_poison(t->dt);
    switch (t->dt) {
    case F32: { float f = (float)x; memcpy(p, &f, 4); break; }
    case F64: memcpy(p, &x, 8); break;
    case F16: { uint16_t h = f32_to_f16((float)x); memcpy(p, &h, 2); break; }
    case BF16: { uint16_t h = f32_to_bf16((float)x); memcpy(p, &h, 2); break; }
    case I32: { int32_t v = (int32_t)x; memcpy(p, &v, 4); break; }
    case I8: { int8_t v = (int8_t)x; memcpy(p, &v, 1); break; }
    case U8: { uint8_t v = (uint8_t)x; memcpy(p, &v, 1); break; }
    case U32: { uint32_t v = (uint32_t)x; memcpy(p, &v, 4); break; }
    case F8E4M3: case F8E5M2: { uint8_t v = f64_to_f8(t->dt, x); memcpy(p, &v, 1); break; }
    case I64: { int64_t v = (int64_t)x; memcpy(p, &v, 8); break; }
    }
  }
  int st = npy_write(path, &a, err, n);
  free(a.data);
  return st;
}

static int read_ten(const char *path, Ten *t, char *err, size_t n) {
  Npy a;
  if (npy_read(path, &a, err, n)) return 1;
  int st = 0;
  if (strcmp(a.descr, descr(t->dt)) != 0 || a.rank != t->rank) {
    snprintf(err, n, "%s: dtype %s rank %d, expected %s rank %d", path, a.descr, a.rank, descr(t->dt), t->rank);
    st = 1;
  }
  for (int d = 0; !st && d < t->rank; d++)
    if (a.shape[d] != t->shape[d]) {
      snprintf(err, n, "%s: dim %d is %lld, expected %lld", path, d, a.shape[d], t->shape[d]);
      st = 1;
    }
  for (long long i = 0; !st && i < t->n; i++) {
    const char *p = (const char *)a.data + (size_t)i * (size_t)npy_elem_bytes(a.descr);
    double x = 0;
    switch (t->dt) {
    case F32: { float f; memcpy(&f, p, 4); x = f; break; }
    case F64: memcpy(&x, p, 8); break;
    case F16: { uint16_t h; memcpy(&h, p, 2); x = f16_to_f32(h); break; }
    case BF16: { uint16_t h; memcpy(&h, p, 2); x = bf16_to_f32(h); break; }
    case I32: { int32_t v; memcpy(&v, p, 4); x = v; break; }
    case I8: { int8_t v; memcpy(&v, p, 1); x = v; break; }
    case U8: { uint8_t v; memcpy(&v, p, 1); x = v; break; }
    case U32: { uint32_t v; memcpy(&v, p, 4); x = v; break; }
    case F8E4M3: case F8E5M2: { uint8_t v; memcpy(&v, p, 1); x = f8_to_f64(t->dt, v); break; }
    case I64: { int64_t v; memcpy(&v, p, 8); x = (double)v; break; }
    }
    if (is_int(t->dt) && x == int_poison(t->dt)) x = NAN;
    t->v[i] = x;
  }
  npy_free(&a);
  return st;
}

int h_write_input(const char *path, const Ten *t) {
  char err[512];
  int st = write_ten(path, t, t->v, err, sizeof err);
  if (st) fprintf(stderr, "%s\n", err);
  return st;
}

/* ------------------------------------------------------------ running tile2cu */

static int case_seq;

static void rm_rf(const char *dir) {
  pid_t p = fork();
  if (p == 0) {
    execlp("rm", "rm", "-rf", dir, (char *)NULL);
    _exit(127);
  }
  int st;
  if (p > 0) waitpid(p, &st, 0);
}

static void print_log(const char *log, int maxlines) {
  FILE *f = fopen(log, "r");
  if (!f) return;
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, "warning:") || strstr(line, "note:") || strstr(line, "sim build failed: ") || line[0] == ' ' ||
        line[0] == '^' || line[0] == '@' || line[0] == '\n' || strstr(line, ": In function"))
      continue;
    if (n++ < maxlines) printf("      | %s", line);
  }
  fclose(f);
}

/* The target the call runs for: its own or --target's. The CPU backend takes any; on a GPU
 * only the arch-specific ones (sm_90a: wgmma, TMA) are passed on, which the device must
 * be (an H100 or H200), and the older targets' code runs as the device's own target. */
static const char *call_target(const Call *c) {
  const char *t = c->target[0] ? c->target : h_target;
  size_t n = strlen(t);
  return strcmp(h_backend, "sim") == 0 || (n && t[n - 1] == 'a') ? t : "";
}

static void tl_path(const Call *c, char *tl, size_t n) {
  if (c->tl[0] == '/') snprintf(tl, n, "%s", c->tl);
  else snprintf(tl, n, "%s/%s", h_tldir, c->tl);
}

/* Runs argv with stdout in the file out, and stderr there too (with_stderr) or in /dev/null;
 * its exit status, or -1. */
static int run_argv(char **argv, const char *out, bool with_stderr) {
  fflush(stdout);
  pid_t p = fork();
  if (p < 0) return -1;
  if (p == 0) {
    if (h_timeout > 0) alarm((unsigned)h_timeout); /* kept across execv: a hung kernel ends here */
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = with_stderr ? fd : open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, 1);
    if (fe >= 0) dup2(fe, 2);
    execv(argv[0], argv);
    perror(argv[0]);
    _exit(127);
  }
  int st;
  if (waitpid(p, &st, 0) < 0) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Whether files a and b hold the same text after their first lines (false when either
 * cannot be read). */
static bool same_after_line1(const char *a, const char *b) {
  FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
  bool same = false;
  if (f && g) {
    int c, d;
    while ((c = fgetc(f)) != EOF && c != '\n') {}
    while ((d = fgetc(g)) != EOF && d != '\n') {}
    do c = fgetc(f), d = fgetc(g);
    while (c == d && c != EOF);
    same = c == d;
  }
  if (f) fclose(f);
  if (g) fclose(g);
  return same;
}

/* With --skip-same-as T (a pass for h_target next to the pass for T): true when the call
 * would run exactly what T's pass runs, so that this pass need not. That is a call that
 * names its own target (both passes give it that one), or one whose kernel file, with
 * the call's -D options, translates to the same CUDA for h_target as for T (for the CPU
 * backend, as tile2cu --sim), apart from the first line, the comment naming the target:
 * the CPU backend builds that text with no target of its own, and NVRTC compiles it for
 * the target's arch, which for sm_90a and sm_90 is one device. Either translation
 * failing: false (the call runs, and its own failure shows). Remembered per file and
 * options. */
static bool call_same_as_base(const Call *c) {
  if (!h_skip_same[0] || !h_target[0]) return false;
  if (c->target[0]) return true;
  static struct { char key[4096 + 256]; bool same; } memo[16];
  static int nmemo;
  char tl[4096], key[sizeof memo[0].key];
  tl_path(c, tl, sizeof tl);
  size_t k = (size_t)snprintf(key, sizeof key, "%s", tl);
  for (int i = 0; i < c->na && k < sizeof key; i++)
    if (!strncmp(c->args[i], "-D", 2)) k += (size_t)snprintf(key + k, sizeof key - k, " %s", c->args[i]);
  for (int i = 0; i < nmemo; i++)
    if (!strcmp(memo[i].key, key)) return memo[i].same;
  char out[2][4200];
  bool ok = true;
  for (int t = 0; t < 2 && ok; t++) {
    char *argv[8 + MAXA];
    int n = 0;
    argv[n++] = (char *)h_tile2cu;
    if (strcmp(h_backend, "sim") == 0) argv[n++] = "--sim";
    argv[n++] = "--target";
    argv[n++] = (char *)(t ? h_skip_same : h_target);
    for (int i = 0; i < c->na; i++)
      if (!strncmp(c->args[i], "-D", 2)) argv[n++] = (char *)c->args[i];
    argv[n++] = tl;
    argv[n] = NULL;
    snprintf(out[t], sizeof out[t], "%s/same-%d-%d.cu", h_tmpdir, (int)getpid(), t);
    ok = run_argv(argv, out[t], false) == 0;
  }
  bool same = ok && same_after_line1(out[0], out[1]);
  unlink(out[0]), unlink(out[1]);
  if (nmemo < (int)(sizeof memo / sizeof *memo)) {
    snprintf(memo[nmemo].key, sizeof memo[nmemo].key, "%s", key);
    memo[nmemo++].same = same;
  }
  return same;
}

/* Runs tile2cu; returns its exit status (or -1), with stdout+stderr in log. */
static int run_tile2cu(Call *c, const char *dir, const char *log) {
  char *argv[64 + MAXT + MAXA];
  char tl[4096], sched[16], paths[MAXT][4200];
  int n = 0;
  tl_path(c, tl, sizeof tl);
  snprintf(sched, sizeof sched, "%d", h_schedules);
  argv[n++] = (char *)h_tile2cu;
  argv[n++] = "run";
  argv[n++] = tl;
  argv[n++] = "--kernel";
  argv[n++] = (char *)c->kernel;
  argv[n++] = "--backend";
  argv[n++] = (char *)h_backend;
  argv[n++] = "--schedules";
  argv[n++] = sched;
  if (c->grid[0]) argv[n++] = "--grid", argv[n++] = c->grid;
  const char *target = call_target(c);
  if (target[0]) argv[n++] = "--target", argv[n++] = (char *)target;
  for (int i = 0; i < c->nt; i++) {
    snprintf(paths[i], sizeof paths[i], "%s=%s/%s.npy", c->t[i].name, dir, c->t[i].name);
    argv[n++] = paths[i];
  }
  for (int i = 0; i < c->na; i++) argv[n++] = c->args[i];
  argv[n] = NULL;
  if (h_verbose) {
    for (int i = 0; i < n; i++) fprintf(stderr, "%s ", argv[i]);
    fputc('\n', stderr);
  }
  return run_argv(argv, log, true);
}

static void sizes_label(const Call *c, char *out, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < c->na && k < n; i++) k += (size_t)snprintf(out + k, n - k, "%s%s", i ? " " : "", c->args[i]);
}

/* Writes the files; returns the case directory, or NULL. */
static bool prepare(Call *c, const char *test, char *dir, size_t n, char *err, size_t en) {
  snprintf(dir, n, "%s/%s-%d-%d", h_tmpdir, test, (int)getpid(), case_seq++);
  for (char *p = dir + strlen(h_tmpdir) + 1; *p; p++)
    if (*p == '/') *p = '_';
  if (mkdir(dir, 0755)) {
    snprintf(err, en, "mkdir %s: %s", dir, strerror(errno));
    return false;
  }
  for (int i = 0; i < c->nt; i++) {
    Ten *t = &c->t[i];
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.npy", dir, t->name);
    if (write_ten(path, t, t->out ? t->init : t->v, err, en)) return false;
  }
  return true;
}

bool call_check(Call *c, const char *test, const char *label) {
  char dir[4096], log[4200], err[1024], what[256];
  bool ok = true;
  double worst = 0;
  char detail[1024] = "";
  size_t dl = 0;
  if ((c->same = call_same_as_base(c))) return h_same++, true;
  if (!prepare(c, test, dir, sizeof dir, err, sizeof err)) {
    printf("  %-26s %-34s %-11s FAIL  harness: %s\n", test, label, "-", err);
    return false;
  }
  snprintf(log, sizeof log, "%s/log.txt", dir);
  int st = run_tile2cu(c, dir, log);
  if (st != 0) {
    sizes_label(c, what, sizeof what);
    if (st == 128 + SIGALRM)
      printf("  %-26s %-34s %-11s FAIL  tile2cu run did not finish in %d s (a hang?) (%s)\n", test, label, "-",
             h_timeout, what);
    else printf("  %-26s %-34s %-11s FAIL  tile2cu run exited %d (%s)\n", test, label, "-", st, what);
    print_log(log, 6);
    printf("      (files kept in %s)\n", dir);
    return false;
  }
  for (int i = 0; i < c->nt; i++) {
    Ten *t = &c->t[i];
    if (!t->out) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.npy", dir, t->name);
    if (read_ten(path, t, err, sizeof err)) {
      dl += (size_t)snprintf(detail + dl, sizeof detail - dl, " %s: %s;", t->name, err);
      ok = false;
      continue;
    }
    double num = 0, den = 0, amax = 0;
    long long unwritten = 0, overwritten = 0, wrongint = 0, infbad = 0, elembad = 0, first = -1;
    for (long long k = 0; k < t->n; k++) {
      double r = t->ref[k], y = t->v[k];
      if (isnan(r)) {
        if (!isnan(y)) { overwritten++; if (first < 0) first = k; }
        continue;
      }
      if (isnan(y)) { unwritten++; if (first < 0) first = k; continue; }
      if (isinf(r)) { if (y != r) { infbad++; if (first < 0) first = k; } continue; }
      if (is_int(t->dt) && y != r) { wrongint++; if (first < 0) first = k; }
      if (t->etol > 0 && fabs(y - r) > t->etol * (1 + fabs(r))) { elembad++; if (first < 0) first = k; }
      num += (y - r) * (y - r);
      den += r * r;
      if (fabs(y - r) > amax) amax = fabs(y - r);
    }
    double e = den > 0 ? sqrt(num / den) : sqrt(num);
    double tol = t->tol >= 0 ? t->tol : default_tol(t->dt);
    bool tok = !(e > tol) && !unwritten && !overwritten && !wrongint && !infbad && !elembad;
    if (e > worst) worst = e;
    if (!tok) {
      ok = false;
      dl += (size_t)snprintf(detail + dl, sizeof detail - dl, " %s(%s): err %.2e > %.0e", t->name, dtname(t->dt), e, tol);
      if (unwritten) dl += (size_t)snprintf(detail + dl, sizeof detail - dl, ", %lld NaN/unwritten", unwritten);
      if (overwritten) dl += (size_t)snprintf(detail + dl, sizeof detail - dl, ", %lld written outside the region", overwritten);
      if (wrongint) dl += (size_t)snprintf(detail + dl, sizeof detail - dl, ", %lld ints differ", wrongint);
      if (infbad) dl += (size_t)snprintf(detail + dl, sizeof detail - dl, ", %lld infinities differ", infbad);
      if (elembad)
        dl += (size_t)snprintf(detail + dl, sizeof detail - dl, ", %lld elements beyond %.0e * (1 + |ref|)", elembad, t->etol);
      if (first >= 0)
        dl += (size_t)snprintf(detail + dl, sizeof detail - dl, "; first at flat index %lld: got %.9g, want %.9g", first, t->v[first], t->ref[first]);
      dl += (size_t)snprintf(detail + dl, sizeof detail - dl, ";");
      if (dl >= sizeof detail) dl = sizeof detail - 1;
    }
  }
  printf("  %-26s %-34s %.2e   %s%s\n", test, label, worst, ok ? "PASS" : "FAIL", detail);
  if (ok) rm_rf(dir);
  else printf("      (files kept in %s)\n", dir);
  return ok;
}

bool call_expect_fail(Call *c, const char *test, const char *label, const char *needle) {
  char dir[4096], log[4200], err[1024];
  if ((c->same = call_same_as_base(c))) return h_same++, true;
  if (!prepare(c, test, dir, sizeof dir, err, sizeof err)) {
    printf("  %-26s %-34s %-11s FAIL  harness: %s\n", test, label, "-", err);
    return false;
  }
  snprintf(log, sizeof log, "%s/log.txt", dir);
  int st = run_tile2cu(c, dir, log);
  bool found = false;
  FILE *f = fopen(log, "r");
  if (f) {
    char line[2048];
    while (fgets(line, sizeof line, f)) found |= strstr(line, needle) != NULL;
    fclose(f);
  }
  bool ok = st != 0 && st < 128 && found;
  printf("  %-26s %-34s %-11s %s  (expected failure: exit %d, %s'%s')\n", test, label, "-", ok ? "PASS" : "FAIL", st,
         found ? "" : "no ", needle);
  if (!ok) print_log(log, 6);
  rm_rf(dir);
  return ok;
}
