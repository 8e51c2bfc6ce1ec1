/* nvrtc_host: runs examples/squares.tl from a C program through libtile2cu.
 *
 * The .tl is translated and compiled by NVRTC at runtime (cached on disk), the
 * cubin is loaded with the driver API and the kernel launched by name, its
 * grid taken from @grid and its @assume checked. With a GPU the result is
 * checked against a CPU reference; without one the program says so and
 * exits 0 after compiling.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tile2cu.h"

enum { ROWS = 16, COLS = 64, K = 256 };

static int die(const char *what, t2c_status s, t2c_program *p) {
  fprintf(stderr, "nvrtc_host: %s: %s: %s\n", what, t2c_error_string(s), t2c_last_error());
  if (p) fputs(t2c_program_diagnostics_text(p), stderr);
  return 1;
}

/* O[i][j] = sum over kt of X[i][kt + j]^2, S[i] = sum_j O[i][j]. */
static int verify(const float *x, const float *o, const float *s) {
  int bad = 0;
  for (int i = 0; i < ROWS; i++) {
    double row = 0;
    for (int j = 0; j < COLS; j++) {
      double want = 0;
      for (int kt = 0; kt < K; kt += COLS) want += (double)x[i * K + kt + j] * x[i * K + kt + j];
      row += want;
      if (fabs(o[i * COLS + j] - want) > 1e-4 * (1 + fabs(want))) bad++;
    }
    if (fabs(s[i] - row) > 1e-4 * (1 + fabs(row))) bad++;
  }
  return bad;
}

static int run(t2c_program *p) {
  static float x[ROWS * K], o[ROWS * COLS], s[ROWS];
  for (int i = 0; i < ROWS * K; i++) x[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
  t2c_module *m;
  t2c_devptr dx, dout, ds;
  t2c_status st;
  if ((st = t2c_module_load(p, &m))) return die("loading the module", st, NULL);
  if ((st = t2c_mem_alloc(&dx, sizeof x)) || (st = t2c_mem_alloc(&dout, sizeof o)) || (st = t2c_mem_alloc(&ds, sizeof s)))
    return die("cuMemAlloc", st, NULL);
  if ((st = t2c_memcpy_htod(dx, x, sizeof x))) return die("copying X", st, NULL);
  int k = K;
  void *args[] = {&dx, &dout, &ds, &k}; /* X, O, S, then the size K */
  if ((st = t2c_launch(m, "squares", args, NULL))) return die("launching squares", st, NULL);
  if ((st = t2c_synchronize())) return die("running squares", st, NULL);
  if ((st = t2c_memcpy_dtoh(o, dout, sizeof o)) || (st = t2c_memcpy_dtoh(s, ds, sizeof s))) return die("copying back", st, NULL);
  t2c_mem_free(dx);
  t2c_mem_free(dout);
  t2c_mem_free(ds);
  t2c_module_unload(m);
  int bad = verify(x, o, s);
  if (bad) {
    fprintf(stderr, "nvrtc_host: FAIL: %d wrong values\n", bad);
    return 1;
  }
  printf("nvrtc_host: squares ran on the GPU and matches the CPU reference\n");
  return 0;
}

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "../squares.tl";
  t2c_program *p;
  t2c_status st = t2c_program_from_file(file, &p);
  if (st) return die("translating", st, p);
  st = t2c_compile(p, NULL); /* for the device's architecture, or sm_90 without one */
  if (st) return die("compiling", st, p);
  size_t n;
  t2c_program_binary(p, &n);
  t2c_kernel_info ki;
  t2c_program_kernel_info(p, "squares", &ki);
  printf("nvrtc_host: compiled %s: %zu-byte cubin (%s), squares uses %d registers, %d threads\n", file, n,
         t2c_program_cache_hit(p) ? "from the cache" : "NVRTC", ki.registers, ki.threads);
  int rc = 0;
  if (t2c_device_available() != T2C_SUCCESS)
    printf("nvrtc_host: no CUDA device present (%s); not running the kernel\n", t2c_last_error());
  else
    rc = run(p);
  t2c_program_destroy(p);
  return rc;
}
