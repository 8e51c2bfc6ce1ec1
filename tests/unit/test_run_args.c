/* test_run_args.c: `tile2cu run` refuses malformed --grid arguments before
 * doing anything (exit status 2, one message on stderr), and leaves no
 * generated file behind when it is killed. Runs from the repo root. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npy.h"
#include "t2c.h"
#include "unit_util.h"

Test(run_args, grid_longer_than_its_buffer_is_refused_not_truncated) {
  /* 200 zeros then 7: truncated to its first 127 bytes it would read as 0 */
  char g[256];
  memset(g, '0', 200);
  snprintf(g + 200, sizeof g - 200, "7");
  char *argv[] = {"run", "examples/squares.tl", "--kernel", "squares", "--backend", "sim", "--grid", g, "K=5", NULL};
  char msg[1024];
  int st = unit_run_main(9, argv, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "tile2cu run: --grid takes X[,Y[,Z]] of positive integers"), "%s", msg);
}

Test(run_args, grid_with_four_parts_is_refused) {
  char *argv[] = {"run", "examples/squares.tl", "--kernel", "squares", "--backend", "sim", "--grid", "1,1,1,1", "K=5", NULL};
  char msg[1024];
  int st = unit_run_main(9, argv, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "not '1,1,1,1'"), "%s", msg);
}

/* The generated .cu (and the .so built from it) live in the cache directory
 * only while tile2cu run builds and runs them: killed meanwhile, it removes
 * them. The test waits until the .cu exists, so it kills at the right time. */
Test(run_args, killed_while_building_leaves_no_files, .timeout = 120) {
  char dir[] = "/tmp/t2c-run-kill-XXXXXX", tl[4200], cache[4200], npy[4200], bin[4200], sim[4300];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(tl, sizeof tl, "%s/k.tl", dir);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  snprintf(npy, sizeof npy, "O=%s/o.npy", dir);
  snprintf(sim, sizeof sim, "%s/sim", cache);
  FILE *f = fopen(tl, "w");
  cr_assert_not_null(f);
  fputs("@launch(32)\nkernel k(O: tensor<f32>[64]) {\n  O[0 :+ 64] = 1.0\n}\n", f);
  fclose(f);
  unit_tile2cu_path(bin, sizeof bin);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    setenv("TILE2CU_CACHE_DIR", cache, 1);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    execl(bin, bin, "run", tl, "--kernel", "k", "--backend", "sim", npy, (char *)NULL);
    _exit(127);
  }
  /* wait for run-PID.cu to appear (at most 60 s) */
  char cu[4400];
  snprintf(cu, sizeof cu, "%s/run-%d.cu", sim, (int)pid);
  bool seen = false;
  for (int i = 0; i < 6000 && !seen; i++) {
    seen = access(cu, F_OK) == 0;
    if (!seen) usleep(10000);
  }
  kill(pid, SIGTERM);
  int status;
  waitpid(pid, &status, 0);
  cr_assert(seen, "tile2cu run never wrote %s", cu);
  cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "tile2cu run was not killed by SIGTERM (status %d)", status);
  DIR *d = opendir(sim);
  cr_assert_not_null(d);
  struct dirent *e;
  while ((e = readdir(d)))
    cr_assert_neq(strncmp(e->d_name, "run-", 4), 0, "%s/%s was left behind", sim, e->d_name);
  closedir(d);
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* ---- --stride: refused before anything is built, each with its reason */

static void run_stride(const char *stride, const char *xfile, const char *zfile, const char *want) {
  char xb[512], zb[512];
  snprintf(xb, sizeof xb, "X=%s", xfile);
  snprintf(zb, sizeof zb, "Z=%s", zfile);
  char *argv[] = {"run", "tests/gpu/strided_ew.tl", "--kernel", "strided_ew", "--backend", "sim",
                  "--stride", (char *)stride, xb, zb, "Y=/nonexistent/y.npy",
                  "alpha=1", "M=3", "N=5", NULL};
  char msg[1024];
  int st = unit_run_main(14, argv, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, want), "wanted '%s' in: %s", want, msg);
}

/* An f32 array of zeros, [n] or [n / 5, 5], in a fresh file. */
static const char *buffer_npy(char *path, size_t len, const char *tag, long long n, int rank) {
  snprintf(path, len, "/tmp/t2c-unit-stride-%s-%d.npy", tag, (int)getpid());
  float *v = calloc((size_t)n, sizeof *v);
  Npy a = {"<f4", rank, {rank == 1 ? n : n / 5, 5}, v, (size_t)n * sizeof *v};
  char err[256];
  cr_assert_eq(npy_write(path, &a, err, sizeof err), 0, "%s", err);
  free(v);
  return path;
}

Test(run_args, stride_without_a_name) {
  run_stride("5,1", "/nonexistent/x.npy", "/nonexistent/z.npy", "--stride takes NAME=S0,S1,..., not '5,1'");
}

Test(run_args, stride_of_a_tensor_outside_strided) {
  run_stride("Z=5,1", "/nonexistent/x.npy", "/nonexistent/z.npy", "--stride Z=5,1: tensor Z is not in @strided of kernel 'strided_ew'");
}

Test(run_args, stride_of_no_tensor) {
  run_stride("alpha=5,1", "/nonexistent/x.npy", "/nonexistent/z.npy", "--stride alpha=5,1: expected NAME=S0,S1,... naming a tensor");
}

Test(run_args, stride_given_twice) {
  char *argv[] = {"run", "tests/gpu/strided_ew.tl", "--kernel", "strided_ew", "--backend", "sim", "--stride", "X=5,1",
                  "--stride", "X=6,1", "X=/nonexistent/x.npy", NULL};
  char msg[1024];
  int st = unit_run_main(11, argv, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "--stride X=6,1: tensor X is given strides twice"), "%s", msg);
}

Test(run_args, stride_needs_the_buffer_file) {
  run_stride("X=5,1", "/nonexistent/x.npy", "/nonexistent/z.npy", "with --stride, X's file is the buffer its view lies in");
}

Test(run_args, stride_counts_and_signs) {
  char path[256], z[256];
  buffer_npy(path, sizeof path, "x", 15, 1);
  buffer_npy(z, sizeof z, "z", 15, 2);
  run_stride("X=5", path, z, "--stride X=5: expected 2 non-negative integers (one per dim of X)");
  run_stride("X=5,1,1", path, z, "expected 2 non-negative integers");
  run_stride("X=-5,1", path, z, "expected 2 non-negative integers");
  /* [3, 5] rows 6 apart: the last element is at 2 * 6 + 4 = 16, past 15 */
  run_stride("X=6,1", path, z, "the view's last element is at index 16, but X's file holds 15 elements");
  unlink(path);
  unlink(z);
}

/* ---- bf16 and f8 arrays as NumPy saves ml_dtypes' (descr <V2, <V1): read as
 * the bits they hold, and written back with the dtype they came with; an array
 * of such raw elements for another type is refused. */
static void raw_npy(const char *path, const char *descr, int eb, const void *bits, long long n) {
  Npy a = {"", 1, {n}, (void *)bits, (size_t)(n * eb)};
  snprintf(a.descr, sizeof a.descr, "%s", descr);
  char err[256];
  cr_assert_eq(npy_write(path, &a, err, sizeof err), 0, "%s", err);
}

Test(run_args, raw_bf16_and_f8_arrays, .timeout = 120) {
  char dir[] = "/tmp/t2c-run-raw-XXXXXX", tl[4200], x[4200], y[4200], f[4200], g[4200], ax[4300], ay[4300], af[4300], ag[4300];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(tl, sizeof tl, "%s/k.tl", dir);
  snprintf(x, sizeof x, "%s/x.npy", dir);
  snprintf(y, sizeof y, "%s/y.npy", dir);
  snprintf(f, sizeof f, "%s/f.npy", dir);
  snprintf(g, sizeof g, "%s/g.npy", dir);
  FILE *fp = fopen(tl, "w");
  cr_assert_not_null(fp);
  fputs("@launch(32)\nkernel k(X: tensor<bf16>[N], Y: tensor<bf16>[N], F: tensor<f8e4m3>[N], G: tensor<f8e4m3>[N]) {\n"
        "  Y[0 :+ 32] = bf16(f32(X[0 :+ 32]) * 2.0)\n  G[0 :+ 32] = F[0 :+ 32]\n}\n", fp);
  fclose(fp);
  uint16_t xb[5] = {0x3fc0, 0xbf80, 0x4000, 0, 0x3f80}; /* 1.5, -1, 2, 0, 1 */
  uint16_t yb[5] = {0};
  uint8_t fb[5] = {0x38, 0x40, 0xb8, 0, 0x30}; /* e4m3: 1, 2, -1, 0, 0.5 */
  raw_npy(x, "<V2", 2, xb, 5);
  raw_npy(y, "<V2", 2, yb, 5);
  raw_npy(f, "<V1", 1, fb, 5);
  snprintf(ax, sizeof ax, "X=%s", x);
  snprintf(ay, sizeof ay, "Y=%s", y);
  snprintf(af, sizeof af, "F=%s", f);
  snprintf(ag, sizeof ag, "G=%s", g);
  char *argv[] = {"run", tl, "--kernel", "k", "--backend", "sim", ax, ay, af, ag, NULL};
  char msg[2048];
  int st = unit_run_main(10, argv, msg, sizeof msg);
  cr_assert_eq(st, 0, "exit status %d: %s", st, msg);
  Npy out;
  char err[256];
  cr_assert_eq(npy_read(y, &out, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(out.descr, "<V2");
  const uint16_t want[5] = {0x4040, 0xc000, 0x4080, 0, 0x4000}; /* 3, -2, 4, 0, 2 */
  for (int i = 0; i < 5; i++) cr_assert_eq(((uint16_t *)out.data)[i], want[i], "Y[%d] = %#x, want %#x", i, ((uint16_t *)out.data)[i], want[i]);
  free(out.data);
  cr_assert_eq(npy_read(g, &out, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(out.descr, "|u1"); /* created by the run: the bits' own dtype */
  for (int i = 0; i < 5; i++) cr_assert_eq(((uint8_t *)out.data)[i], fb[i], "G[%d] = %#x, want %#x", i, ((uint8_t *)out.data)[i], fb[i]);
  free(out.data);
  /* raw 2-byte elements for an f16 tensor: refused */
  fp = fopen(tl, "w");
  cr_assert_not_null(fp);
  fputs("@launch(32)\nkernel k(X: tensor<f16>[N], Y: tensor<f16>[N]) {\n  Y[0 :+ 32] = X[0 :+ 32]\n}\n", fp);
  fclose(fp);
  char *argv2[] = {"run", tl, "--kernel", "k", "--backend", "sim", ax, ay, NULL};
  st = unit_run_main(8, argv2, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "dtype '<V2', but tensor X is f16 (dtype '<f2')"), "%s", msg);
  /* ml_dtypes' float8_e5m2 saved with descr <f1 (its type character): read as its bits for
   * an f8e5m2 tensor, refused for an f8e4m3 one */
  fp = fopen(tl, "w");
  cr_assert_not_null(fp);
  fputs("@launch(32)\nkernel k(F: tensor<f8e5m2>[N], G: tensor<f8e5m2>[N]) {\n  G[0 :+ 32] = F[0 :+ 32]\n}\n", fp);
  fclose(fp);
  unlink(g);
  uint8_t eb[5] = {0x3c, 0x40, 0xbc, 0, 0x38}; /* e5m2: 1, 2, -1, 0, 0.5 */
  raw_npy(f, "<f1", 1, eb, 5);
  char *argv3[] = {"run", tl, "--kernel", "k", "--backend", "sim", af, ag, NULL};
  st = unit_run_main(8, argv3, msg, sizeof msg);
  cr_assert_eq(st, 0, "exit status %d: %s", st, msg);
  cr_assert_eq(npy_read(g, &out, err, sizeof err), 0, "%s", err);
  for (int i = 0; i < 5; i++) cr_assert_eq(((uint8_t *)out.data)[i], eb[i], "G[%d] = %#x, want %#x", i, ((uint8_t *)out.data)[i], eb[i]);
  free(out.data);
  fp = fopen(tl, "w");
  cr_assert_not_null(fp);
  fputs("@launch(32)\nkernel k(F: tensor<f8e4m3>[N], G: tensor<f8e4m3>[N]) {\n  G[0 :+ 32] = F[0 :+ 32]\n}\n", fp);
  fclose(fp);
  st = unit_run_main(8, argv3, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "dtype '<f1', but tensor F is f8e4m3"), "%s", msg);
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* ---- NAME=VALUE names a tensor, scalar or size of the kernel, once: a misspelt scalar or
 * size was dropped, and the kernel ran without it */
static void run_binds(const char *extra, const char *want) {
  char *argv[] = {"run", "tests/gpu/strided_ew.tl", "--kernel", "strided_ew", "--backend", "sim",
                  "X=/nonexistent/x.npy", "alpha=1", "M=3", "N=5", (char *)extra, NULL};
  char msg[1024];
  int st = unit_run_main(11, argv, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, want), "wanted '%s' in: %s", want, msg);
}

Test(run_args, unknown_name_is_refused) {
  run_binds("alhpa=2", "'alhpa' in 'alhpa=2' is no tensor, scalar or size of kernel 'strided_ew' (it takes ");
}

Test(run_args, name_given_twice_is_refused) { run_binds("alpha=2", "'alpha' is given twice ('alpha=1' and 'alpha=2')"); }

/* ---- scalar values: each run writes its scalars into O (k.tl in a fresh directory) */
typedef struct ScalarRun {
  char dir[64], tl[128], out[128], arg_o[160];
} ScalarRun;

static void scalar_setup(ScalarRun *r, const char *src) {
  snprintf(r->dir, sizeof r->dir, "/tmp/t2c-run-scalar-XXXXXX");
  cr_assert_not_null(mkdtemp(r->dir));
  snprintf(r->tl, sizeof r->tl, "%s/k.tl", r->dir);
  snprintf(r->out, sizeof r->out, "%s/o.npy", r->dir);
  snprintf(r->arg_o, sizeof r->arg_o, "O=%s", r->out);
  FILE *f = fopen(r->tl, "w");
  cr_assert_not_null(f);
  fputs(src, f);
  fclose(f);
}

/* Runs k with O and the scalars binds (NULL-ended); the exit status, stderr in msg. */
static int scalar_run(ScalarRun *r, const char *const *binds, char *msg, size_t n) {
  char *argv[16] = {"run", r->tl, "--kernel", "k", "--backend", "sim", r->arg_o};
  int argc = 7;
  for (int i = 0; binds[i]; i++) argv[argc++] = (char *)binds[i];
  unlink(r->out);
  return unit_run_main(argc, argv, msg, n);
}

/* O's element i, read as raw bytes of size eb. */
static uint64_t scalar_out(ScalarRun *r, int i, int eb) {
  Npy a;
  char err[256];
  cr_assert_eq(npy_read(r->out, &a, err, sizeof err), 0, "%s", err);
  uint64_t v = 0;
  memcpy(&v, (char *)a.data + (size_t)i * (size_t)eb, (size_t)eb);
  free(a.data);
  return v;
}

static void scalar_teardown(ScalarRun *r) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
  cr_assert_eq(system(cmd), 0);
}

/* An i64 literal is taken exactly: 2^63 - 1 and 2^63 - 512 passed through a double were
 * 2^63 and refused, and -2^63 - 1 was -2^63 and taken */
Test(run_args, i64_scalars_are_exact) {
  ScalarRun r;
  scalar_setup(&r, "@launch(32)\nkernel k(O: tensor<i64>[1], e: i64) {\n  O[0] = e\n}\n");
  const struct { const char *arg; int64_t want; } ok[] = {
      {"e=9223372036854775807", INT64_MAX},       {"e=9223372036854775296", INT64_MAX - 511},
      {"e=-9223372036854775808", INT64_MIN},      {"e=9007199254740993", 9007199254740993LL},
      {"e=0x7fffffffffffffff", INT64_MAX},        {"e=-0x10", -16},
      {"e=1e3", 1000}, {"e=010", 10},
  };
  char msg[2048];
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    const char *binds[] = {ok[i].arg, NULL};
    int st = scalar_run(&r, binds, msg, sizeof msg);
    cr_assert_eq(st, 0, "%s: exit status %d: %s", ok[i].arg, st, msg);
    cr_assert_eq((int64_t)scalar_out(&r, 0, 8), ok[i].want, "%s gave %" PRId64, ok[i].arg, (int64_t)scalar_out(&r, 0, 8));
  }
  const char *const out_of_range[] = {"e=-9223372036854775809", "e=9223372036854775808", "e=18446744073709551616",
                                      "e=99999999999999999999999", "e=9.3e18"};
  for (size_t i = 0; i < sizeof out_of_range / sizeof *out_of_range; i++) {
    const char *binds[] = {out_of_range[i], NULL};
    int st = scalar_run(&r, binds, msg, sizeof msg);
    cr_assert_eq(st, 2, "%s: exit status %d: %s", out_of_range[i], st, msg);
    cr_assert(strstr(msg, "outside [-9223372036854775808, 9223372036854775807], the range of i64"), "%s", msg);
  }
  const char *binds[] = {"e=2.5", NULL};
  cr_assert_eq(scalar_run(&r, binds, msg, sizeof msg), 2, "%s", msg);
  cr_assert(strstr(msg, "scalar e=2.5: i64 takes an integer"), "%s", msg);
  scalar_teardown(&r);
}

/* f16, bf16 and f8 scalars: the value rounded to nearest even into the type's bits (f8
 * saturating, as f8() converts); each was refused ("f16 scalars are not supported"). A bool
 * takes true and false as well as a number. */
Test(run_args, half_bf16_f8_and_bool_scalars) {
  ScalarRun r;
  scalar_setup(&r, "@launch(32)\nkernel k(O: tensor<f32>[5], h: f16, b: bf16, e: f8e4m3, g: f8e5m2, t: bool) {\n"
                   "  O[0] = f32(h)\n  O[1] = f32(b)\n  O[2] = f32(e)\n  O[3] = f32(g)\n  O[4] = where(t, 1.0, 0.0)\n}\n");
  const struct { const char *binds[6]; float want[5]; } runs[] = {
      /* 1 + 2^-11 is halfway between f16's 1 and 1 + 2^-10: even is 1; 1 + 3 * 2^-8 halfway
       * between bf16's 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6 */
      {{"h=1.00048828125", "b=1.01171875", "e=0.3", "g=-0.3", "t=true", NULL}, {1.0f, 1.015625f, 0.3125f, -0.3125f, 1}},
      /* f16's largest and its smallest subnormal; f8 saturates */
      {{"h=65504", "b=-3e38", "e=500", "g=1e6", "t=false", NULL}, {65504.0f, -3.00405527e38f, 448.0f, 57344.0f, 0}},
      {{"h=6e-8", "b=0.1", "e=-inf", "g=0", "t=2", NULL}, {5.9604645e-08f, 0.10009765625f, -448.0f, 0.0f, 1}},
      {{"h=65520", "b=1", "e=0", "g=0", "t=0", NULL}, {INFINITY, 1.0f, 0.0f, 0.0f, 0}},
  };
  char msg[2048];
  for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
    int st = scalar_run(&r, runs[i].binds, msg, sizeof msg);
    cr_assert_eq(st, 0, "run %zu: exit status %d: %s", i, st, msg);
    for (int j = 0; j < 5; j++) {
      uint32_t bits = (uint32_t)scalar_out(&r, j, 4);
      float got;
      memcpy(&got, &bits, 4);
      cr_assert(got == runs[i].want[j], "run %zu, O[%d] = %.9g, want %.9g", i, j, got, runs[i].want[j]);
    }
  }
  const char *binds[] = {"h=1", "b=1", "e=1", "g=1", "t=yes", NULL};
  cr_assert_eq(scalar_run(&r, binds, msg, sizeof msg), 2, "%s", msg);
  cr_assert(strstr(msg, "scalar t=yes: expected a number, true or false"), "%s", msg);
  scalar_teardown(&r);
}

/* A misspelt --kernel lists the file's kernels (it said only "has no kernel") */
Test(run_args, unknown_kernel_lists_the_kernels) {
  char *argv[] = {"run", "-w", "tests/gpu/copy_halves.tl", "--kernel", "colsum", "--backend", "sim", NULL};
  char msg[1024]; /* -w: the file's warnings would fill it */
  int st = unit_run_main(7, argv, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "tests/gpu/copy_halves.tl has no kernel 'colsum' (kernels: colred, piped, square, mixed)"), "%s", msg);
}

/* The one conversion of a scalar's text (launch_scalar), which tile2cu run and tile2cu tune
 * --sizes share: tune had its own, which took f16 normals only (6e-8 made a garbage
 * exponent), truncated bf16 and read f8 as an integer. Round to nearest even, subnormals,
 * an f16 overflow to inf and an f8 one saturating, as the run test above shows end to end. */
Test(run_args, scalar_text_conversion_is_shared_with_tune) {
  const struct { ElemType e; const char *text; uint32_t bits; } cases[] = {
      {T_F16, "1.00048828125", 0x3c00}, {T_F16, "1.00146484375", 0x3c02}, /* ties to even, down and up */
      {T_F16, "6e-8", 0x0001},          {T_F16, "-6.097555160522461e-05", 0x83ff}, /* subnormals */
      {T_F16, "2e-8", 0x0000},          {T_F16, "-0", 0x8000},
      {T_F16, "65504", 0x7bff},         {T_F16, "65519", 0x7bff}, {T_F16, "65520", 0x7c00}, {T_F16, "-1e9", 0xfc00},
      {T_F16, "inf", 0x7c00},           {T_F16, "nan", 0x7e00},
      {T_BF16, "1.01171875", 0x3f82},   {T_BF16, "0.1", 0x3dcd}, {T_BF16, "1e-40", 0x0001},
      {T_F8E4M3, "0.3", 0x2a},          {T_F8E4M3, "500", 0x7e}, {T_F8E4M3, "-inf", 0xfe}, {T_F8E4M3, "0.001953125", 0x01},
      {T_F8E5M2, "-0.3", 0xb5},         {T_F8E5M2, "1e6", 0x7b}, {T_F8E5M2, "1.52587890625e-05", 0x01},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ScalarArg v = {0};
    double d;
    char err[256] = "";
    cr_assert(launch_scalar(cases[i].e, "s", cases[i].text, &v, &d, err, sizeof err), "%s", err);
    uint32_t got = elem_bytes[cases[i].e] == 2 ? v.u16 : v.u8;
    cr_assert_eq(got, cases[i].bits, "%s %s: 0x%x, want 0x%x", elem_names[cases[i].e], cases[i].text, got,
                 cases[i].bits);
  }
  /* every finite code decodes to a value that encodes back to it */
  const ElemType fl[] = {T_F16, T_BF16, T_F8E4M3, T_F8E5M2};
  for (size_t t = 0; t < 4; t++)
    for (uint32_t b = 0; b < (elem_bytes[fl[t]] == 2 ? 0x10000u : 0x100u); b++) {
      double v = elem_float_value(fl[t], b);
      if (isnan(v) || isinf(v)) continue; /* f8 saturates: e5m2's inf encodes as its largest */
      cr_assert_eq(elem_float_bits(fl[t], v), b, "%s 0x%x decodes to %g", elem_names[fl[t]], b, v);
    }
  cr_assert(isinf(elem_float_value(T_F8E5M2, 0x7c)) && isnan(elem_float_value(T_F8E4M3, 0x7f)));
  cr_assert_eq(elem_float_value(T_F8E4M3, 0x7e), 448.0);
  ScalarArg v;
  double d;
  char err[256];
  cr_assert_not(launch_scalar(T_F32, "p", "abc", &v, &d, err, sizeof err));
  cr_assert_str_eq(err, "scalar p=abc: expected a number (p is f32)");
  cr_assert_not(launch_scalar(T_I32, "n", "abc", &v, &d, err, sizeof err));
  cr_assert_str_eq(err, "scalar n=abc: expected an integer (n is i32)");
}

/* An empty array makes a size 0, which no launch takes: refused naming the tensor and the
 * size, with @grid (it said "@grid dim 0 is 0", naming neither) and without (it ran). */
Test(run_args, empty_array_is_refused_naming_tensor_and_size) {
  char dir[] = "/tmp/t2c-run-empty-XXXXXX", tl[128], x[128], argx[160];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(tl, sizeof tl, "%s/k.tl", dir);
  snprintf(x, sizeof x, "%s/x.npy", dir);
  snprintf(argx, sizeof argx, "X=%s", x);
  FILE *f = fopen(tl, "w");
  cr_assert_not_null(f);
  fputs("@grid(cdiv(M, 64))\nkernel g(X: tensor<f32>[M, 64]) {\n  X[ctx.block.x * 64 :+ 64, 0 :+ 64] = 1.0\n}\n"
        "kernel n(X: tensor<f32>[M, 64]) {\n  X[0 :+ 1, 0 :+ 64] = 1.0\n}\n", f);
  fclose(f);
  Npy a = {.descr = "<f4", .rank = 2, .shape = {0, 64}, .nbytes = 0, .data = NULL};
  char err[256], msg[2048], want[512];
  cr_assert_eq(npy_write(x, &a, err, sizeof err), 0, "%s", err);
  snprintf(want, sizeof want, "%s: dim 0 is 0: tensor X is empty, which makes size M 0; sizes are from 1 to 2147483647", x);
  const char *kernels[] = {"g", "n"};
  for (int i = 0; i < 2; i++) {
    char *argv[] = {"run", tl, "--kernel", (char *)kernels[i], "--backend", "sim", argx, NULL};
    int st = unit_run_main(7, argv, msg, sizeof msg);
    cr_assert_eq(st, 2, "kernel %s: exit status %d: %s", kernels[i], st, msg);
    cr_assert(strstr(msg, want), "kernel %s: %s", kernels[i], msg);
  }
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* The closing line counts the schedules: one is "1 schedule" (it said "1 schedule agree":
 * a schedule has nothing to agree with), more "N schedules agree". */
Test(run_args, one_schedule_is_not_said_to_agree) {
  ScalarRun r;
  scalar_setup(&r, "@launch(32)\nkernel k(O: tensor<f32>[1]) {\n  O[0] = 1.0\n}\n");
  char msg[2048];
  const char *one[] = {"--schedules", "1", NULL}, *two[] = {"--schedules", "2", NULL};
  cr_assert_eq(scalar_run(&r, one, msg, sizeof msg), 0, "%s", msg);
  cr_assert(strstr(msg, "grid (1, 1, 1), 32 threads, 1 schedule\n"), "%s", msg);
  cr_assert_eq(scalar_run(&r, two, msg, sizeof msg), 0, "%s", msg);
  cr_assert(strstr(msg, "grid (1, 1, 1), 32 threads, 2 schedules agree\n"), "%s", msg);
  scalar_teardown(&r);
}
