/* bench/compile: cold vs warm NVRTC compile times through libtile2cu.
 *
 *   make bench-compile          (not part of make test)
 *   build/bench-compile FILE.tl ...
 *
 * cold: t2c_compile into an empty cache (translation + NVRTC + store);
 * warm: the same with the entry present (translation + a verified cache read);
 * translate: t2c_program_from_source alone. Each is the median of its repeats,
 * so warm - translate is what a cache hit costs on top of translating.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tile2cu.h"

enum { COLD = 5, WARM = 51 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = calloc(1, (size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
  fclose(f);
  return s;
}

/* One compile; returns ms, or -1 on failure. expect_hit: -1 any, 0/1 checked. */
static double one(const char *file, const char *src, int expect_hit) {
  t2c_program *p;
  t2c_compile_options o = {"sm_90", T2C_OUTPUT_CUBIN, 0};
  double t0 = now_ms();
  t2c_status s = t2c_program_from_source(file, src, &p);
  if (!s) s = t2c_compile(p, &o);
  double ms = now_ms() - t0;
  if (s || (expect_hit >= 0 && t2c_program_cache_hit(p) != expect_hit)) {
    fprintf(stderr, "bench-compile: %s: %s %s\n", file, t2c_error_string(s), s ? t2c_last_error() : "(unexpected cache state)");
    ms = -1;
  }
  t2c_program_destroy(p);
  return ms;
}

static double translate_only(const char *file, const char *src) {
  t2c_program *p;
  double t0 = now_ms();
  t2c_program_from_source(file, src, &p);
  double ms = now_ms() - t0;
  t2c_program_destroy(p);
  return ms;
}

int main(int argc, char **argv) {
  char dir[] = "/tmp/tile2cu-bench-XXXXXX", cmd[128];
  if (!mkdtemp(dir)) return 2;
  setenv("TILE2CU_CACHE_DIR", dir, 1);
  unsetenv("TILE2CU_CACHE");
  printf("%-24s %12s %12s %14s %16s\n", "kernel file (sm_90)", "cold ms", "warm ms", "translate ms", "warm - transl.");
  int rc = 0;
  for (int f = 1; f < argc; f++) {
    char *src = slurp(argv[f]);
    if (!src) { fprintf(stderr, "bench-compile: cannot read %s\n", argv[f]); rc = 1; continue; }
    double cold[COLD], warm[WARM], tr[WARM];
    for (int i = 0; i < COLD; i++) {
      snprintf(cmd, sizeof cmd, "rm -rf '%s/nvrtc'", dir);
      if (system(cmd)) {}
      cold[i] = one(argv[f], src, 0);
    }
    for (int i = 0; i < WARM; i++) warm[i] = one(argv[f], src, 1);
    for (int i = 0; i < WARM; i++) tr[i] = translate_only(argv[f], src);
    double c = median(cold, COLD), w = median(warm, WARM), t = median(tr, WARM);
    if (cold[0] < 0 || warm[0] < 0) rc = 1;
    const char *base = strrchr(argv[f], '/');
    printf("%-24s %12.2f %12.3f %14.3f %16.3f\n", base ? base + 1 : argv[f], c, w, t, w - t);
    free(src);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) {}
  return rc;
}
