/* test_cpu_launch.c: t2c_cpu_launch, t2c_program_translate and the parameter
 * queries of libtile2cu (nvrtc_driver/cpu.c), without a GPU.
 *
 * A kernel Y = X * a + C (C a file-level const) runs on the CPU backend at a
 * ragged size and is compared with the same arithmetic in C; -DC=... through
 * t2c_program_translate changes it; a second launch and a second program of
 * the same source build nothing (one shared object in the cache); shapes
 * that disagree with the declaration or the sizes, a false @assume and a
 * missing kernel fail before anything is built. The cache directory is
 * build/test-cache-cpu, shared by these tests: the CPU backend's runtime
 * object takes seconds to compile, and every entry is keyed by content.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../nvrtc_driver/tile2cu.h"

static const char src[] =
    "const C = 1.0\n"
    "@launch(128)\n"
    "@assume(N >= 3)\n"
    "@grid(cdiv(N, 128))\n"
    "kernel axpc(X: tensor<f32>[N], Y: tensor<f32>[N], P: tensor<i32>[4, 2], a: f32) {\n"
    "  var i0 = ctx.block.x * 128\n"
    "  Y[i0 :+ 128] = X[i0 :+ 128] * a + C\n"
    "}\n";

static void shared_cache(void) {
  setenv("TILE2CU_CACHE_DIR", "build/test-cache-cpu", 1);
  unsetenv("TILE2CU_CACHE");
}

TestSuite(cpu_launch, .init = shared_cache);

enum { N = 1000 };

typedef struct Args {
  float x[N], y[N];
  int pm[8];
  long long xs[1], ys[1], ps[2];
  t2c_host_tensor X, Y, P;
  float a;
  int n;
  void *argv[5];
} Args;

static void make_args(Args *g, int n) {
  for (int i = 0; i < N; i++) {
    g->x[i] = (float)(i % 17) * 0.25f - 2.0f;
    g->y[i] = -7.0f;
  }
  g->xs[0] = g->ys[0] = n;
  g->ps[0] = 4;
  g->ps[1] = 2;
  g->X = (t2c_host_tensor){g->x, 1, g->xs};
  g->Y = (t2c_host_tensor){g->y, 1, g->ys};
  g->P = (t2c_host_tensor){g->pm, 2, g->ps};
  g->a = 3.0f;
  g->n = n;
  void *v[] = {&g->X, &g->Y, &g->P, &g->a, &g->n};
  memcpy(g->argv, v, sizeof v);
}

static t2c_program *program(void) {
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_source("axpc.tl", src, &p), T2C_SUCCESS, "%s", t2c_last_error());
  return p;
}

static int shared_objects(void) {
  DIR *d = opendir("build/test-cache-cpu/sim");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strncmp(e->d_name, "k-", 2) == 0 && strstr(e->d_name, ".so") && !strstr(e->d_name, ".tmp")) n++;
  if (d) closedir(d);
  return n;
}

Test(cpu_launch, param_info) {
  t2c_program *p = program();
  t2c_param_info q;
  cr_assert_eq(t2c_program_param_info(p, "axpc", 2, &q), T2C_SUCCESS);
  cr_assert_str_eq(q.name, "P");
  cr_assert_str_eq(q.dtype, "i32");
  cr_assert_eq(q.is_tensor, 1);
  cr_assert_eq(q.rank, 2);
  cr_assert_null(q.dim_size[0]);
  cr_assert_eq(q.dim_const[0], 4);
  cr_assert_eq(q.dim_const[1], 2);
  cr_assert_eq(q.written, 0);
  cr_assert_eq(t2c_program_param_info(p, "axpc", 1, &q), T2C_SUCCESS);
  cr_assert_str_eq(q.dim_size[0], "N");
  cr_assert_eq(q.written, 1);
  cr_assert_eq(t2c_program_param_info(p, "axpc", 3, &q), T2C_SUCCESS);
  cr_assert_eq(q.is_tensor, 0);
  cr_assert_str_eq(q.dtype, "f32");
  cr_assert_eq(q.elem_bytes, 4);
  cr_assert_eq(t2c_program_param_info(p, "axpc", 4, &q), T2C_ERROR_INVALID_VALUE);
  cr_assert_eq(t2c_program_param_info(p, "nope", 0, &q), T2C_ERROR_NOT_FOUND);
  cr_assert_str_eq(t2c_program_size_name(p, "axpc", 0), "N");
  cr_assert_null(t2c_program_size_name(p, "axpc", 1));
  t2c_program_destroy(p);
}

Test(cpu_launch, runs_defines_and_caches) {
  static Args g;
  t2c_program *p = program();
  make_args(&g, 999);
  t2c_status s = t2c_cpu_launch(p, "axpc", g.argv, NULL);
  cr_assert_eq(s, T2C_SUCCESS, "%s: %s", t2c_error_string(s), t2c_last_error());
  for (int i = 0; i < 999; i++) cr_assert_eq(g.y[i], g.x[i] * 3.0f + 1.0f, "Y[%d] = %g", i, g.y[i]);
  cr_assert_eq(g.y[999], -7.0f, "Y past N was written");
  int built = shared_objects();
  cr_assert_geq(built, 1);
  /* again, and from a second program of the same source: nothing new is built */
  make_args(&g, 999);
  cr_assert_eq(t2c_cpu_launch(p, "axpc", g.argv, NULL), T2C_SUCCESS, "%s", t2c_last_error());
  t2c_program *p2 = program();
  make_args(&g, 998);
  cr_assert_eq(t2c_cpu_launch(p2, "axpc", g.argv, NULL), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(shared_objects(), built);
  /* -DC=2.5: a new translation, a new build, a new result */
  const char *opts[] = {"-DC=2.5"};
  cr_assert_eq(t2c_program_translate(p2, NULL, opts, 1), T2C_SUCCESS, "%s", t2c_last_error());
  make_args(&g, 999);
  cr_assert_eq(t2c_cpu_launch(p2, "axpc", g.argv, NULL), T2C_SUCCESS, "%s", t2c_last_error());
  for (int i = 0; i < 999; i++) cr_assert_eq(g.y[i], g.x[i] * 3.0f + 2.5f, "Y[%d] = %g", i, g.y[i]);
  t2c_program_destroy(p);
  t2c_program_destroy(p2);
}

Test(cpu_launch, bad_arguments_fail_before_the_build) {
  static Args g;
  t2c_program *p = program();
  const char *bad[] = {"-DNOPE=1"};
  cr_assert_eq(t2c_program_translate(p, NULL, bad, 1), T2C_ERROR_TRANSLATE);
  cr_assert_not_null(strstr(t2c_program_diagnostics_text(p), "NOPE"), "%s", t2c_program_diagnostics_text(p));
  cr_assert_eq(t2c_cpu_launch(p, "axpc", NULL, NULL), T2C_ERROR_TRANSLATE);
  cr_assert_eq(t2c_program_translate(p, "sm_12", NULL, 0), T2C_ERROR_TARGET);
  cr_assert_eq(t2c_program_translate(p, "sm_80", NULL, 0), T2C_SUCCESS, "%s", t2c_last_error());
  make_args(&g, 999);
  g.ys[0] = 998;
  cr_assert_eq(t2c_cpu_launch(p, "axpc", g.argv, NULL), T2C_ERROR_INVALID_VALUE);
  cr_assert_str_eq(t2c_last_error(), "kernel axpc: dim 0 of tensor Y is 998, but size N is 999");
  make_args(&g, 999);
  g.ps[1] = 3;
  cr_assert_eq(t2c_cpu_launch(p, "axpc", g.argv, NULL), T2C_ERROR_INVALID_VALUE);
  cr_assert_str_eq(t2c_last_error(), "kernel axpc: dim 1 of tensor P is 3, but the kernel declares 2");
  make_args(&g, 999);
  g.X.rank = 2;
  cr_assert_eq(t2c_cpu_launch(p, "axpc", g.argv, NULL), T2C_ERROR_INVALID_VALUE);
  cr_assert_str_eq(t2c_last_error(), "kernel axpc: tensor X has 1 dims, but 2 were given");
  make_args(&g, 2);
  cr_assert_eq(t2c_cpu_launch(p, "axpc", g.argv, NULL), T2C_ERROR_ASSUME);
  cr_assert_not_null(strstr(t2c_last_error(), "is false (N = 2)"), "%s", t2c_last_error());
  make_args(&g, 999);
  g.argv[3] = NULL;
  cr_assert_eq(t2c_cpu_launch(p, "axpc", g.argv, NULL), T2C_ERROR_INVALID_VALUE);
  cr_assert_eq(t2c_cpu_launch(p, "other", g.argv, NULL), T2C_ERROR_NOT_FOUND);
  t2c_cpu_options o = {{0, 0, 0}, 1001};
  make_args(&g, 999);
  cr_assert_eq(t2c_cpu_launch(p, "axpc", g.argv, &o), T2C_ERROR_INVALID_VALUE);
  t2c_program_destroy(p);
}

/* Two threads launching two programs of one source at once on an empty cache: each
 * builds the runtime object, its header and the kernel into temporary files of its
 * own (their names were the process id's alone: the threads wrote into each other's
 * files and both launches failed) and both run. */
typedef struct Launch {
  float y[128];
  t2c_status st;
  char err[256];
} Launch;

static void *launch_once(void *arg) {
  Launch *l = arg;
  t2c_program *p = NULL;
  l->st = t2c_program_from_source("k.tl", "kernel k(Y: tensor<f32>[128]) {\n  Y[0 :+ 128] = Y[0 :+ 128] + 1.0\n}\n", &p);
  long long shape[] = {128};
  t2c_host_tensor Y = {l->y, 1, shape};
  void *av[] = {&Y};
  if (!l->st) l->st = t2c_cpu_launch(p, "k", av, NULL);
  snprintf(l->err, sizeof l->err, "%s", l->st ? t2c_last_error() : "");
  t2c_program_destroy(p);
  return NULL;
}

Test(cpu_launch, threads_on_an_empty_cache) {
  char dir[] = "/tmp/t2c-cpu-threads-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  setenv("TILE2CU_CACHE_DIR", dir, 1);
  Launch l[2];
  pthread_t t[2];
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 128; i++) l[k].y[i] = (float)(i * (k + 1));
    cr_assert_eq(pthread_create(&t[k], NULL, launch_once, &l[k]), 0);
  }
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(l[k].st, T2C_SUCCESS, "thread %d: %s", k, l[k].err);
    for (int i = 0; i < 128; i++) cr_assert_eq(l[k].y[i], (float)(i * (k + 1)) + 1.0f, "thread %d, Y[%d] = %g", k, i, l[k].y[i]);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}
