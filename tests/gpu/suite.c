/* suite.c: the numerical tests of tests/gpu, and the runner.
 *
 *   gpu-tests [--backend sim|gpu] [--tile2cu PATH] [--dir TLDIR] [--examples DIR]
 *             [-j JOBS] [--schedules N] [-v] [TEST ...]
 *
 * Each test function runs its kernel at several sizes (ragged ones, an exact
 * multiple of the tiles, and edge cases smaller than one tile) against a
 * reference computed here in double precision. Test functions run in child
 * processes, JOBS at a time; their lines are printed in table order.
 */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *examples_dir = "examples";
static char ex_path[14][4200];

/* ------------------------------------------------------------ helpers */

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

static void label(char *b, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void label(char *b, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, n, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------ examples */

static void t_squares(Tally *T) {
  static const int Ks[] = {200, 64, 256, 37, 1};
  for (int c = 0; c < 5; c++) {
    int K = Ks[c];
    Rng r = rng_seed("squares", (uint64_t)c);
    Call k;
    call_init(&k, ex_path[0], "squares");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(16, K));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(16, 64));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(16, 1));
    fill_uniform(X, &r, -2, 2);
    for (int i = 0; i < 16; i++) {
      double s = 0;
      for (int j = 0; j < 64; j++) {
        double a = 0;
        for (int kk = j; kk < K; kk += 64) a += A2(X, i, kk) * A2(X, i, kk);
        R2(O, i, j) = a;
        s += a;
      }
      R2(S, i, 0) = s;
    }
    char l[64];
    label(l, sizeof l, "K=%d", K);
    CHECK(T, call_check(&k, "examples/squares", l));
    call_free(&k);
  }
}

/* softmax_ref: Y = softmax of each row of X, in double */
static void softmax_ref(const Ten *X, Ten *Y, int M, int N) {
  for (int i = 0; i < M; i++) {
    double mx = -INFINITY, s = 0;
    for (int j = 0; j < N; j++) mx = dmax(mx, A2(X, i, j));
    for (int j = 0; j < N; j++) s += exp(A2(X, i, j) - mx);
    for (int j = 0; j < N; j++) R2(Y, i, j) = exp(A2(X, i, j) - mx) / s;
  }
}

/* N = 4100 and 4104: 16-byte runs (N % 4 == 0) over more than one chunk, the last one ragged */
static void t_softmax(Tally *T) {
  static const int MN[][2] = {{37, 1000}, {8, 256}, {3, 5}, {13, 513}, {5, 4100}, {2, 4104}};
  for (int c = 0; c < 6; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("softmax", (uint64_t)c);
    Call k;
    call_init(&k, ex_path[1], "softmax");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -8, 8);
    softmax_ref(X, Y, M, N);
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "examples/softmax", l));
    call_free(&k);
  }
}

/* softmax_row: one pass, the whole row in registers (N <= 4096, its @assume) */
static void t_softmax_row(Tally *T) {
  static const int MN[][2] = {{37, 1000}, {4, 4096}, {3, 5}, {6, 4092}, {2, 4095}, {1, 1}};
  for (int c = 0; c < 6; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("softmax_row", (uint64_t)c);
    Call k;
    call_init(&k, ex_path[9], "softmax_row");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -8, 8);
    softmax_ref(X, Y, M, N);
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "examples/softmax_row", l));
    call_free(&k);
  }
}

/* A dot's operands: every i8 value, or uniform in [-1, 1) (f16/bf16 rounding). */
static void fill_operands(Ten *A, Ten *B, Rng *r, bool i8) {
  if (i8) {
    fill_int(A, r, -128, 127);
    fill_int(B, r, -128, 127);
  } else {
    fill_uniform(A, r, -1, 1);
    fill_uniform(B, r, -1, 1);
  }
}

static void gemm_ref(const Ten *A, const Ten *B, Ten *C, int M, int N, int K, double scale) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, kk, j);
      R2(C, i, j) = s * scale;
    }
}

static void t_gemm_f32(Tally *T) {
  static const int MNK[][3] = {{37, 100, 200}, {64, 64, 64}, {128, 64, 48}, {5, 3, 7}, {1, 70, 17}};
  for (int c = 0; c < 5; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("gemm_f32", (uint64_t)c);
    Call k;
    call_init(&k, ex_path[2], "gemm_f32");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F32, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, C, M, N, K, 1);
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "examples/gemm_f32", l));
    call_free(&k);
  }
}

/* layernorm: two-pass mean and variance over rows of any length, 1-D W, Bias;
 * layernorm_row (row, 1): the same in one pass, the row in registers (N <= 4096) */
static void layernorm_cases(Tally *T, bool row) {
  static const int MN[][2] = {{37, 1000}, {8, 512}, {3, 5}, {13, 257}, {1, 1}, {3, 4100}, {4, 4096}, {2, 4095}};
  const char *name = row ? "layernorm_row" : "layernorm", *test = row ? "examples/layernorm_row" : "examples/layernorm";
  for (int c = 0; c < 8; c++) {
    int M = MN[c][0], N = MN[c][1];
    if (row && N > 4096) continue; /* past its @assume: layernorm_row_past_its_row below */
    Rng r = rng_seed("layernorm", (uint64_t)c);
    double eps = round_dt(F32, c == 4 ? 1e-2 : 1e-5);
    Call k;
    call_init(&k, ex_path[row ? 13 : 3], name);
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 1, SHAPE(N));
    Ten *Bi = call_in(&k, "Bias", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -3, 5); /* an offset mean */
    fill_uniform(W, &r, 0.5, 1.5);
    fill_uniform(Bi, &r, -1, 1);
    call_arg(&k, "eps=%.9g", eps);
    for (int i = 0; i < M; i++) {
      double mean = 0, var = 0;
      for (int j = 0; j < N; j++) mean += A2(X, i, j);
      mean /= N;
      for (int j = 0; j < N; j++) var += (A2(X, i, j) - mean) * (A2(X, i, j) - mean);
      var /= N;
      double rstd = 1 / sqrt(var + eps);
      for (int j = 0; j < N; j++) R2(Y, i, j) = (A2(X, i, j) - mean) * rstd * W->v[j] + Bi->v[j];
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, test, l));
    call_free(&k);
  }
}
static void t_layernorm(Tally *T) { layernorm_cases(T, false); }
static void t_layernorm_row(Tally *T) { layernorm_cases(T, true); }

/* layernorm_row with N past its @assume(N <= BN): refused before the launch, nothing written */
static void t_layernorm_row_past(Tally *T) {
  Call k;
  call_init(&k, ex_path[13], "layernorm_row");
  Rng r = rng_seed("layernorm_row_past", 0);
  Ten *X = call_in(&k, "X", F32, 2, SHAPE(2, 4097));
  Ten *W = call_in(&k, "W", F32, 1, SHAPE(4097));
  Ten *Bi = call_in(&k, "Bias", F32, 1, SHAPE(4097));
  call_out(&k, "Y", F32, 2, SHAPE(2, 4097));
  fill_uniform(X, &r, -1, 1);
  fill_uniform(W, &r, -1, 1);
  fill_uniform(Bi, &r, -1, 1);
  call_arg(&k, "eps=1e-05");
  CHECK(T, call_expect_fail(&k, "examples/layernorm_row", "N=4097", "@assume condition 1 of kernel 'layernorm_row'"));
  call_free(&k);
}

/* One low-precision GEMM case of the example at ex_path[ex] (kernel name) on target
 * (NULL: the default): the reference is the exact product rounded once to the output
 * type, within about half an ulp of it (one rounding of an f32 sum). */
static void gemm_case_d(Tally *T, Dt dt, int ex, const char *name, const char *target, int c, const int mnk[3],
                        const char *d1, const char *d2);
static void gemm_lowp_case(Tally *T, Dt dt, int ex, const char *name, const char *target, int c, const int mnk[3]) {
  gemm_case_d(T, dt, ex, name, target, c, mnk, NULL, NULL);
}
/* The same with up to two -D NAME=VALUE for tile2cu run (d1, d2, or NULL), in the label too. */
static void gemm_case_d(Tally *T, Dt dt, int ex, const char *name, const char *target, int c, const int mnk[3],
                        const char *d1, const char *d2) {
  int M = mnk[0], N = mnk[1], K = mnk[2];
  char test[64];
  label(test, sizeof test, "examples/%s", name);
  Rng r = rng_seed(name, (uint64_t)c);
  Call k;
  call_init(&k, ex_path[ex], name);
  if (target) snprintf(k.target, sizeof k.target, "%s", target);
  Ten *A = call_in(&k, "A", dt, 2, SHAPE(M, K));
  Ten *B = call_in(&k, "B", dt, 2, SHAPE(K, N));
  Ten *C = call_out(&k, "C", dt, 2, SHAPE(M, N));
  fill_uniform(A, &r, -1, 1);
  fill_uniform(B, &r, -1, 1);
  gemm_ref(A, B, C, M, N, K, 1);
  for (long long i = 0; i < C->n; i++) C->ref[i] = round_dt(dt, C->ref[i]);
  C->tol = dt == F16 ? 1e-3 : 8e-3;
  if (d1) call_arg(&k, "-D%s", d1);
  if (d2) call_arg(&k, "-D%s", d2);
  char l[96];
  label(l, sizeof l, "%s%s%s%s%s%sM=%d N=%d K=%d", target ? target : "", target ? " " : "", d1 ? d1 : "", d1 ? " " : "",
        d2 ? d2 : "", d2 ? " " : "", M, N, K);
  CHECK(T, call_check(&k, test, l));
  call_free(&k);
}

/* gemm_f16 / gemm_bf16: low-precision inputs, f32 accumulation, a low-precision
 * output, each size on the default target (mma.sync) and on sm_90a (wgmma). */
static void t_gemm_lowp(Tally *T, Dt dt) {
  /* N and K multiples of 8, as gemm_bf16's @assume requires, but not of the tiles;
   * gemm_f16 has no @assume: the last two (N, K not multiples of 8) take its general body.
   * K = 584 is 10 iterations of BK = 64: every stage of the 4-stage ring is refilled
   * (on sm_90a by TMA, after its empty barrier), the last one ragged */
  static const int MNK[][3] = {{37, 104, 200}, {70, 136, 584}, {128, 64, 64}, {65, 136, 40}, {5, 8, 8}, {37, 50, 77}, {130, 3, 5}};
  for (int c2 = 0; c2 < 2 * (dt == F16 ? 7 : 5); c2++)
    gemm_lowp_case(T, dt, dt == F16 ? 4 : 5, dt == F16 ? "gemm_f16" : "gemm_bf16", c2 % 2 ? "sm_90a" : NULL, c2 / 2,
                   MNK[c2 / 2]);
  /* 9 rows of tiles: two of the example's groups of 8 (GROUP), the second of one row */
  static const int grouped[3] = {1100, 136, 24};
  for (int t = 0; t < 2; t++)
    gemm_lowp_case(T, dt, dt == F16 ? 4 : 5, dt == F16 ? "gemm_f16" : "gemm_bf16", t ? "sm_90a" : NULL, 7, grouped);
  /* sm_80's 163 KB hold the 4-stage ring or the staged epilogue's copy, not both side
   * by side: the copy takes the ring's bytes after the loop (smem.c), behind a barrier */
  static const int sm80[] = {1, 4, 5};
  for (int i = 0; i < (dt == F16 ? 3 : 2); i++)
    gemm_lowp_case(T, dt, dt == F16 ? 4 : 5, dt == F16 ? "gemm_f16" : "gemm_bf16", "sm_80", sm80[i], MNK[sm80[i]]);
}
/* gemm_f16_256 / gemm_bf16_256: 128 x 256 tiles on sm_90a (wgmma m64n256k16, 128
 * accumulators per thread, BK = 32 in 6 stages). K = 392 is 13 iterations: every stage is
 * refilled twice, the last one ragged; N = 264 and M = 130 leave a second, ragged tile of
 * 8 columns and 2 rows; 5 x 8 x 8 is one ragged tile; gemm_f16_256's last two (N, K not
 * multiples of 8) take its general body. gemm_f16_256 also on sm_80 (mma.sync, 64 x 64
 * warp tiles), whose staged epilogue's copy takes the bytes of the cp.async ring once its
 * loop is done (smem.c): a barrier orders the ring's last reads before the copy's writes. */
static void t_gemm_256(Tally *T, Dt dt) {
  static const int MNK[][3] = {{70, 264, 392}, {130, 104, 200}, {128, 256, 64}, {5, 8, 8}, {37, 50, 77}, {130, 3, 5}};
  for (int c = 0; c < (dt == F16 ? 6 : 4); c++)
    gemm_lowp_case(T, dt, dt == F16 ? 11 : 12, dt == F16 ? "gemm_f16_256" : "gemm_bf16_256", "sm_90a", c, MNK[c]);
  static const int sm80[] = {0, 3, 4};
  for (int i = 0; dt == F16 && i < 3; i++) gemm_lowp_case(T, dt, 11, "gemm_f16_256", "sm_80", sm80[i], MNK[sm80[i]]);
  /* -D BK=64 -D STAGES=4 on sm_90a: 128 x 256 x 64 in 4 TMA stages, the epilogue's copy in
   * the ring's bytes after the loop (a block barrier after the wgmma wait orders every
   * warpgroup's last reads before it); K = 392 is 7 iterations, the last ragged (make
   * bench times both at this configuration; gemm_bf16_256's @assume leaves out K = 77) */
  for (int i = 0; i < (dt == F16 ? 3 : 2); i++)
    gemm_case_d(T, dt, dt == F16 ? 11 : 12, dt == F16 ? "gemm_f16_256" : "gemm_bf16_256", "sm_90a", sm80[i],
                MNK[sm80[i]], "BK=64", "STAGES=4");
  /* 9 rows of tiles: two of the example's groups of 8 (GROUP), the second of one row */
  static const int grouped[3] = {1100, 264, 32};
  gemm_lowp_case(T, dt, dt == F16 ? 11 : 12, dt == F16 ? "gemm_f16_256" : "gemm_bf16_256", "sm_90a", 6, grouped);
}
/* gemm_i8: C = A B^T, i8 inputs (B stored [N, K]), i32 output, exact. K = 200 and
 * 64 take the 16-byte body (K % 16 == 0), 77 and 5 the general one. Then -D BK=128
 * -D STAGES=4 on sm_90a (make bench times it): 128-byte swizzled stages; K = 400 is 4
 * iterations, the last ragged, and 77 and 5 take the general body, whose runs of 16
 * bytes are copied by a loop (emit_tir.c copy_elem). */
static void t_gemm_i8(Tally *T) {
  static const int MNK[][3] = {{37, 104, 200}, {128, 128, 64}, {130, 50, 77}, {5, 3, 5}, {70, 136, 400}, {1100, 136, 32}};
  /* the last two: 9 rows of tiles, two of the example's groups of 8 (GROUP), the second of one row */
  static const struct { int mnk; const char *target; bool bk128; } cases[] = {
      {0, NULL, false},    {1, NULL, false},    {2, NULL, false},    {3, NULL, false}, {1, "sm_90a", true},
      {2, "sm_90a", true}, {3, "sm_90a", true}, {4, "sm_90a", true}, {5, NULL, false}, {5, "sm_90a", false}};
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    int M = MNK[cases[c].mnk][0], N = MNK[cases[c].mnk][1], K = MNK[cases[c].mnk][2];
    Rng r = rng_seed("gemm_i8", (uint64_t)c);
    Call k;
    call_init(&k, ex_path[10], "gemm_i8");
    Ten *A = call_in(&k, "A", I8, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", I8, 2, SHAPE(N, K));
    Ten *C = call_out(&k, "C", I32, 2, SHAPE(M, N));
    fill_int(A, &r, -128, 127);
    fill_int(B, &r, -128, 127);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, j, kk);
        R2(C, i, j) = s;
      }
    if (cases[c].target) snprintf(k.target, sizeof k.target, "%s", cases[c].target);
    if (cases[c].bk128) {
      call_arg(&k, "-DBK=128");
      call_arg(&k, "-DSTAGES=4");
    }
    char l[64];
    label(l, sizeof l, "%s%s%sM=%d N=%d K=%d", cases[c].target ? cases[c].target : "", cases[c].target ? " " : "",
          cases[c].bk128 ? "BK=128 STAGES=4 " : "", M, N, K);
    CHECK(T, call_check(&k, "examples/gemm_i8", l));
    call_free(&k);
  }
}
static void t_gemm_f16(Tally *T) { t_gemm_lowp(T, F16); }
static void t_gemm_f16_256(Tally *T) { t_gemm_256(T, F16); }
static void t_gemm_bf16_256(Tally *T) { t_gemm_256(T, BF16); }
static void t_gemm_bf16(Tally *T) { t_gemm_lowp(T, BF16); }

/* attention: softmax(Q K^T * scale) V per (batch, head), causal or not */
static void t_attention_k(Tally *T, int causal, const char *tl, const char *kernel, const char *name) {
  static const int Ss[] = {37, 1, 100, 128};
  const int Bn = 2, H = 3, D = 64;
  for (int c = 0; c < 4; c++) {
    int S = Ss[c];
    Rng r = rng_seed("attention", (uint64_t)(2 * c + causal));
    double scale = round_dt(F32, 1 / sqrt((double)D));
    Call k;
    call_init(&k, tl, kernel);
    const long long *sh = SHAPE(Bn, H, S, D);
    Ten *Q = call_in(&k, "Q", F32, 4, sh);
    Ten *K = call_in(&k, "K", F32, 4, sh);
    Ten *V = call_in(&k, "V", F32, 4, sh);
    Ten *O = call_out(&k, "O", F32, 4, sh);
    fill_uniform(Q, &r, -2, 2);
    fill_uniform(K, &r, -2, 2);
    fill_uniform(V, &r, -1, 1);
    call_arg(&k, "scale=%.9g", scale);
    call_arg(&k, "causal=%d", causal);
    double *p = malloc(sizeof(double) * (size_t)S);
    for (long long bh = 0; bh < (long long)Bn * H; bh++) {
      const double *q = Q->v + bh * S * D, *kk = K->v + bh * S * D, *v = V->v + bh * S * D;
      double *o = O->ref + bh * S * D;
      for (int i = 0; i < S; i++) {
        int last = causal ? i : S - 1;
        double mx = -INFINITY, l = 0;
        for (int j = 0; j <= last; j++) {
          double d = 0;
          for (int e = 0; e < D; e++) d += q[i * D + e] * kk[j * D + e];
          p[j] = d * scale;
          mx = dmax(mx, p[j]);
        }
        for (int j = 0; j <= last; j++) l += p[j] = exp(p[j] - mx);
        for (int e = 0; e < D; e++) {
          double a = 0;
          for (int j = 0; j <= last; j++) a += p[j] * v[j * D + e];
          o[i * D + e] = a / l;
        }
      }
    }
    free(p);
    char l[64];
    label(l, sizeof l, "B=%d H=%d S=%d causal=%d", Bn, H, S, causal);
    char tn[64];
    snprintf(tn, sizeof tn, "%s%s", name, causal ? "_causal" : "");
    CHECK(T, call_check(&k, tn, l));
    call_free(&k);
  }
}
static void t_attention(Tally *T) { t_attention_k(T, 0, ex_path[6], "attention", "examples/attention"); }
static void t_attention_causal(Tally *T) { t_attention_k(T, 1, ex_path[6], "attention", "examples/attention"); }
/* attention_rows.tl: the same kernel with m and l placed by the tile IR (row values
 * converted between s's and acc's layouts through shared copies) */
static void t_attention_rows(Tally *T) { t_attention_k(T, 0, "attention_rows.tl", "attention_rows", "attention_rows"); }
static void t_attention_rows_causal(Tally *T) {
  t_attention_k(T, 1, "attention_rows.tl", "attention_rows", "attention_rows");
}

/* attention_f16: the same computation with f16 Q, K, V, O on tensor cores. The
 * reference is exact (double) on the f16 inputs, rounded once to f16; the kernel
 * also rounds P to f16 before P V, so the tolerance is the f16 default (1e-2). */
/* bq192: -D D=128 -D BQ=192 -D THREADS=384 -D MINB=1, 192 query rows a block in 3
 * warpgroups (whose key and value copies, 3 runs of 16 bytes for 2 threads, have padding
 * positions): 450 is 3 query blocks, the last of 66 rows, and 8 key blocks. */
static void t_attention_f16_k(Tally *T, int causal, bool bq192) {
  /* 300: 5 key blocks of 64, the last ragged, so that a 3-stage ring wraps
   * and the dot deferred into the next iteration (sm_90a) crosses 4 of them */
  static const int Ss[] = {37, 1, 100, 128, 300}, Ss192[] = {37, 200, 450};
  const int Bn = bq192 ? 1 : 2, H = 2, D = bq192 ? 128 : 64;
  for (int c = 0; c < (bq192 ? 3 : 5); c++) {
    int S = bq192 ? Ss192[c] : Ss[c];
    Rng r = rng_seed(bq192 ? "attention_f16_bq192" : "attention_f16", (uint64_t)(2 * c + causal));
    double scale = round_dt(F32, 1 / sqrt((double)D));
    Call k;
    call_init(&k, ex_path[8], "attention_f16");
    if (bq192) {
      call_arg(&k, "-DD=128");
      call_arg(&k, "-DBQ=192");
      call_arg(&k, "-DTHREADS=384");
      call_arg(&k, "-DMINB=1");
    }
    const long long *sh = SHAPE(Bn, H, S, D);
    Ten *Q = call_in(&k, "Q", F16, 4, sh);
    Ten *K = call_in(&k, "K", F16, 4, sh);
    Ten *V = call_in(&k, "V", F16, 4, sh);
    Ten *O = call_out(&k, "O", F16, 4, sh);
    fill_uniform(Q, &r, -2, 2);
    fill_uniform(K, &r, -2, 2);
    fill_uniform(V, &r, -1, 1);
    call_arg(&k, "scale=%.9g", scale);
    call_arg(&k, "causal=%d", causal);
    double *p = malloc(sizeof(double) * (size_t)S);
    for (long long bh = 0; bh < (long long)Bn * H; bh++) {
      const double *q = Q->v + bh * S * D, *kk = K->v + bh * S * D, *v = V->v + bh * S * D;
      double *o = O->ref + bh * S * D;
      for (int i = 0; i < S; i++) {
        int last = causal ? i : S - 1;
        double mx = -INFINITY, l = 0;
        for (int j = 0; j <= last; j++) {
          double d = 0;
          for (int e = 0; e < D; e++) d += q[i * D + e] * kk[j * D + e];
          p[j] = d * scale;
          mx = dmax(mx, p[j]);
        }
        for (int j = 0; j <= last; j++) l += p[j] = exp(p[j] - mx);
        for (int e = 0; e < D; e++) {
          double a = 0;
          for (int j = 0; j <= last; j++) a += p[j] * v[j * D + e];
          o[i * D + e] = round_dt(F16, a / l);
        }
      }
    }
    free(p);
    char l[64];
    label(l, sizeof l, "%sB=%d H=%d S=%d causal=%d", bq192 ? "D=128 BQ=192 " : "", Bn, H, S, causal);
    const char *test = bq192 ? (causal ? "examples/attention_f16_bq192_causal" : "examples/attention_f16_bq192")
                             : (causal ? "examples/attention_f16_causal" : "examples/attention_f16");
    CHECK(T, call_check(&k, test, l));
    call_free(&k);
  }
}
static void t_attention_f16(Tally *T) { t_attention_f16_k(T, 0, false); }
static void t_attention_f16_causal(Tally *T) { t_attention_f16_k(T, 1, false); }
static void t_attention_f16_bq192(Tally *T) { t_attention_f16_k(T, 0, true); }
static void t_attention_f16_bq192_causal(Tally *T) { t_attention_f16_k(T, 1, true); }

/* reduce: per-block partial sums of a 1-D tensor, then the final fold */
static void t_reduce(Tally *T) {
  static const int Ns[] = {10000, 8192, 1, 4097};
  for (int c = 0; c < 4; c++) {
    int N = Ns[c];
    long long G = cdivll(N, 4096);
    Rng r = rng_seed("reduce", (uint64_t)c);
    Call k;
    call_init(&k, ex_path[7], "reduce_partial");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *P = call_out(&k, "P", F32, 1, SHAPE(G));
    fill_uniform(X, &r, -1, 2);
    for (long long g = 0; g < G; g++) {
      double s = 0;
      for (long long i = g * 4096; i < N && i < (g + 1) * 4096; i++) s += X->v[i];
      P->ref[g] = s;
    }
    char l[64];
    label(l, sizeof l, "N=%d partials", N);
    CHECK(T, call_check(&k, "examples/reduce", l));
    call_free(&k);
  }
  static const int Gs[] = {3, 1024, 1500};
  for (int c = 0; c < 3; c++) {
    int G = Gs[c];
    Rng r = rng_seed("reduce_final", (uint64_t)c);
    Call k;
    call_init(&k, ex_path[7], "reduce_final");
    Ten *P = call_in(&k, "P", F32, 1, SHAPE(G));
    Ten *Tt = call_out(&k, "T", F32, 1, SHAPE(1));
    fill_uniform(P, &r, -100, 300);
    double s = 0;
    for (int i = 0; i < G; i++) s += P->v[i];
    Tt->ref[0] = s;
    char l[64];
    label(l, sizeof l, "G=%d final", G);
    CHECK(T, call_check(&k, "examples/reduce", l));
    call_free(&k);
  }
}

/* chunk_loop (tests/gpu/chunk_loop.tl): a block's chunk of 1024 read and written 256 at
 * a time, at ctx.block.x * 1024 + j: ragged N (the last chunk partly past N; N = 5, one
 * short chunk) without @assume, and multiples of 1024 with @assume(N % 1024 == 0), which
 * drops the loop's checks. Y past N does not exist; P is each chunk's sum. */
static void t_chunk_loop(Tally *T) {
  static const int Ns[] = {3000, 1025, 5, 4096, 1024, 3072};
  for (int c = 0; c < 6; c++) {
    int N = Ns[c];
    bool assume = c >= 3;
    long long G = cdivll(N, 1024);
    Rng r = rng_seed("chunk_loop", (uint64_t)c);
    Call k;
    call_init(&k, "chunk_loop.tl", assume ? "chunk_loop_assume" : "chunk_loop");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N)), *P = call_out(&k, "P", F32, 1, SHAPE(G));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < N; i++) Y->ref[i] = X->v[i] * 2.0 + 1.0;
    for (long long g = 0; g < G; g++) {
      double s = 0;
      for (long long i = g * 1024; i < N && i < (g + 1) * 1024; i++) s += X->v[i];
      P->ref[g] = s;
    }
    char l[64];
    label(l, sizeof l, "%s N=%d", assume ? "assume" : "ragged", N);
    CHECK(T, call_check(&k, "chunk_loop", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ elementwise */

static void t_ew_f32(Tally *T) {
  static const int MN[][2] = {{37, 1000}, {64, 128}, {5, 3}, {33, 65}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("ew_f32", (uint64_t)c);
    double alpha = round_dt(F32, rng_uniform(&r, 0.5, 2));
    int off = (int)rng_int(&r, -5, 5);
    Call k;
    call_init(&k, "ew_f32.tl", "ew_f32");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Z = call_in(&k, "Z", F32, 2, SHAPE(M, N));
    Ten *Br = call_in(&k, "Brow", F32, 2, SHAPE(1, N));
    Ten *Bc = call_in(&k, "Bcol", F32, 2, SHAPE(M, 1));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *W = call_out(&k, "W", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -3, 3);
    fill_uniform(Z, &r, -3, 3);
    fill_uniform(Br, &r, -1, 1);
    fill_uniform(Bc, &r, -1, 1);
    call_arg(&k, "alpha=%.9g", alpha);
    call_arg(&k, "off=%d", off);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double x = A2(X, i, j), z = A2(Z, i, j), br = Br->v[j], bc = Bc->v[i];
        R2(Y, i, j) = (x * alpha + br - bc * 2.0) / (z * z + 1.0) - (-x) * off + 0.5;
        R2(W, i, j) = x * br + bc - 1.0 / alpha;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "elementwise_f32", l));
    call_free(&k);
  }
}

static void t_ew_i32(Tally *T) {
  static const int Ns[] = {1000, 128, 7};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("ew_i32", (uint64_t)c);
    int off = (int)rng_int(&r, -9, 9);
    Call k;
    call_init(&k, "ew_i32.tl", "ew_i32");
    Ten *A = call_in(&k, "A", I32, 1, SHAPE(N));
    Ten *B = call_in(&k, "B", I32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", I32, 2, SHAPE(8, N));
    fill_int(A, &r, -1000, 1000);
    fill_int(B, &r, 1, 100);
    for (int j = 0; j < N; j += 17) A->v[j] = 7; /* the == 7 branch */
    call_arg(&k, "off=%d", off);
    for (int j = 0; j < N; j++) {
      int32_t a = (int32_t)A->v[j], b = (int32_t)B->v[j];
      R2(Y, 0, j) = a + b * off;
      R2(Y, 1, j) = a - b - off;
      R2(Y, 2, j) = a * b;
      R2(Y, 3, j) = a / b;
      R2(Y, 4, j) = a % b;
      R2(Y, 5, j) = (int32_t)((uint32_t)a << 2) ^ (b >> 1);
      R2(Y, 6, j) = (a & b) | (~a & 3);
      R2(Y, 7, j) = ((a > b && !(a == 7)) || b >= 90) ? a : -b;
    }
    char l[64];
    label(l, sizeof l, "N=%d off=%d", N, off);
    CHECK(T, call_check(&k, "elementwise_i32", l));
    call_free(&k);
  }
}

static void t_math(Tally *T) {
  static const int Ns[] = {1000, 256, 7};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("math", (uint64_t)c);
    Call k;
    call_init(&k, "math.tl", "math_f32");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(16, N));
    fill_uniform(X, &r, -3, 3);
    for (int j = 0; j < N; j++) {
      double x = X->v[j];
      double v[16] = {exp(x), exp2(x), log(fabs(x) + 0.5), log2(fabs(x) + 0.5), sqrt(fabs(x)),
                      1 / sqrt(fabs(x) + 0.25), sin(x), cos(x), tanh(x), sigmoid(x), floor(x), ceil(x),
                      fabs(x), dmin(x, 0.5), dmax(x, -0.5), dmax(dmin(x * x, exp(-x)), sin(x) * cos(x))};
      for (int f = 0; f < 16; f++) R2(Y, f, j) = v[f];
    }
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "math_f32", l));
    call_free(&k);
  }
}

/* x to the nearest integer, ties to the even one: written from the definition (the
 * reference for round(), apart from rintf and the C library's rounding mode) */
static double round_even(double x) {
  double r = floor(x), d = x - r;
  if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0.0)) r += 1.0;
  return r;
}

/* round() of f32, f64 and f16 at quarters in [-10, 10] (every other one a tie at
 * x * 2 or x * 3 too) and uniform values, over a ragged N */
static void t_math_round(Tally *T) {
  static const int Ns[] = {1000, 256, 7};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("math_round", (uint64_t)c);
    Call k;
    call_init(&k, "math.tl", "math_round");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    Ten *D = call_out(&k, "D", F64, 1, SHAPE(N));
    Ten *H = call_out(&k, "H", F16, 1, SHAPE(N));
    for (int j = 0; j < N; j++)
      X->v[j] = j % 3 ? (double)rng_int(&r, -40, 40) / 4.0 : round_dt(F32, rng_uniform(&r, -10, 10));
    for (int j = 0; j < N; j++) {
      double x = X->v[j];
      Y->ref[j] = round_even(x);
      D->ref[j] = round_even(x * 3.0);
      H->ref[j] = round_even(round_dt(F16, round_dt(F32, x * 2.0)));
    }
    Y->tol = D->tol = H->tol = 0;
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "math_round", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ random numbers */

/* Philox4x32-10, written here from the paper (Salmon, Moraes, Dror, Shaw, "Parallel
 * random numbers: as easy as 1, 2, 3", SC11) apart from rt.cuh's: the products as
 * 64-bit numbers, the key of round i computed as key + i * (W0, W1). */
static void philox_ref(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t x[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
  for (uint32_t i = 0; i < 10; i++) {
    uint32_t k0 = key[0] + i * 0x9E3779B9u, k1 = key[1] + i * 0xBB67AE85u;
    uint64_t p0 = (uint64_t)0xD2511F53u * x[0], p1 = (uint64_t)0xCD9E8D57u * x[2];
    uint32_t y[4] = {(uint32_t)(p1 >> 32) ^ x[1] ^ k0, (uint32_t)p1, (uint32_t)(p0 >> 32) ^ x[3] ^ k1, (uint32_t)p0};
    memcpy(x, y, sizeof x);
  }
  memcpy(out, x, sizeof x);
}

/* The reference itself against known answers: Random123 1.07, examples/kat_vectors
 * (as tests/sim/driver.c cites them). */
static bool philox_ref_kat(void) {
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int v = 0; v < 3; v++) {
    uint32_t o[4];
    philox_ref(kat[v], kat[v] + 4, o);
    if (memcmp(o, kat[v] + 6, sizeof o) != 0) return false;
  }
  return true;
}

/* randint, rand and randn (LANGUAGE.md section 7) of element off: counter (off, 0, 0, 0),
 * key (seed low, seed high); randn in double from the words */
static void rand_ref(int64_t seed, uint32_t off, double *ri, double *ru, double *rn) {
  const uint32_t ctr[4] = {off, 0, 0, 0}, key[2] = {(uint32_t)seed, (uint32_t)((uint64_t)seed >> 32)};
  uint32_t w[4];
  philox_ref(ctr, key, w);
  *ri = w[0];
  *ru = (w[0] >> 8) / 16777216.0;
  double u1 = ((w[0] >> 8) + 1) / 16777216.0, u2 = (w[1] >> 8) / 16777216.0;
  *rn = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The float math of randn (logf, sqrtf, cospif of f32 arguments) against the double
 * reference: within 1e-5 * (1 + |ref|) for every element; randint and rand exactly. */
#define RANDN_ETOL 1e-5

/* One kernel of rand.tl / rand_shared.tl at M x N: off = base + i * N + j. */
static bool rand_case(const char *tl, const char *kernel, int M, int N, int64_t seed, int32_t base, bool scalars) {
  Call k;
  call_init(&k, tl, kernel);
  Ten *W = call_out(&k, "W", U32, 2, SHAPE(M, N));
  Ten *U = call_out(&k, "U", F32, 2, SHAPE(M, N));
  Ten *G = call_out(&k, "G", F32, 2, SHAPE(M, N));
  U->tol = 0;
  G->etol = RANDN_ETOL;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      rand_ref(seed, (uint32_t)base + (uint32_t)(i * N + j), &R2(W, i, j), &R2(U, i, j), &R2(G, i, j));
  if (scalars) {
    Ten *V = call_out(&k, "V", U32, 1, SHAPE(1));
    Ten *R = call_out(&k, "R", F32, 1, SHAPE(2));
    R->etol = RANDN_ETOL;
    rand_ref(seed, (uint32_t)base - 1, &V->ref[0], &R->ref[0], &R->ref[1]);
  }
  call_arg(&k, "seed=%lld", (long long)seed);
  call_arg(&k, "base=%d", base);
  char l[96];
  label(l, sizeof l, "M=%d N=%d seed=%lld base=%d", M, N, (long long)seed, base);
  bool ok = call_check(&k, kernel, l);
  call_free(&k);
  return ok;
}

static void t_rand(Tally *T) {
  if (!philox_ref_kat()) {
    printf("  %-26s %-34s %-11s FAIL  the test's own Philox4x32-10 misses Random123's known answers\n", "rand", "-", "-");
    CHECK(T, false);
    return;
  }
  static const struct { int M, N; int64_t seed; int32_t base; } c[] = {
      {37, 1000, 0x0123456789abcdefLL, 0}, {16, 64, 0, 0}, {3, 5, -1, -2147483000},
      {1, 1, 42, 2147483000}, {20, 129, -81985529216486895LL, -64},
  };
  for (int i = 0; i < 5; i++)
    CHECK(T, rand_case("rand.tl", "rand_regs", c[i].M, c[i].N, c[i].seed, c[i].base, true));
  /* an i32 seed: negative ones sign-extend to the 64-bit key */
  static const struct { int M, N; int32_t seed, base; } d[] = {
      {37, 1000, 7, 0}, {32, 96, -5, 1 << 20}, {3, 5, -2147483647 - 1, -2147483000}, {65, 97, 123456789, -100},
  };
  for (int i = 0; i < 4; i++)
    CHECK(T, rand_case("rand_shared.tl", "rand_shared", d[i].M, d[i].N, d[i].seed, d[i].base, false));
}

static void t_casts(Tally *T) {
  static const int Ns[] = {1000, 128, 3};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("casts", (uint64_t)c);
    Call k;
    call_init(&k, "casts.tl", "casts");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *H = call_in(&k, "H", F16, 1, SHAPE(N));
    Ten *B = call_in(&k, "B", BF16, 1, SHAPE(N));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(N));
    Ten *XH = call_out(&k, "XH", F16, 1, SHAPE(N));
    Ten *XB = call_out(&k, "XB", BF16, 1, SHAPE(N));
    Ten *XI = call_out(&k, "XI", I32, 1, SHAPE(N));
    Ten *HF = call_out(&k, "HF", F32, 1, SHAPE(N));
    Ten *BF = call_out(&k, "BF", F32, 1, SHAPE(N));
    Ten *IF = call_out(&k, "IF", F32, 1, SHAPE(N));
    Ten *HB = call_out(&k, "HB", BF16, 1, SHAPE(N));
    Ten *BH = call_out(&k, "BH", F16, 1, SHAPE(N));
    Ten *HA = call_out(&k, "HA", F16, 1, SHAPE(N));
    Ten *BA = call_out(&k, "BA", BF16, 1, SHAPE(N));
    /* values that exercise rounding: many bits below f16/bf16 precision, some
       f16 subnormals, negative values for truncation toward zero */
    for (int j = 0; j < N; j++) {
      double m = rng_uniform(&r, -1, 1);
      int sc = (int)rng_int(&r, 0, 5);
      double scales[] = {1e-6, 1e-3, 1, 37, 1000, 30000};
      X->v[j] = round_dt(F32, m * scales[sc]);
    }
    fill_uniform(H, &r, -40, 40);
    fill_uniform(B, &r, -300, 300);
    fill_int(I, &r, -20000000, 20000000); /* beyond 2^24: f32 rounding */
    for (int j = 0; j < N; j++) {
      XH->ref[j] = round_dt(F16, X->v[j]);
      XB->ref[j] = round_dt(BF16, X->v[j]);
      XI->ref[j] = (double)(int32_t)X->v[j];
      HF->ref[j] = H->v[j];
      BF->ref[j] = B->v[j];
      IF->ref[j] = (float)(int32_t)I->v[j];
      HB->ref[j] = round_dt(BF16, H->v[j]);
      BH->ref[j] = round_dt(F16, B->v[j]);
      HA->ref[j] = H->v[j] * H->v[j] + round_dt(F16, X->v[j]);
      BA->ref[j] = B->v[j] * 2.5 - B->v[j];
    }
    /* conversions are exact (round to nearest even); arithmetic has its dtype's tolerance */
    XH->tol = XB->tol = HF->tol = BF->tol = IF->tol = HB->tol = BH->tol = 0;
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "casts", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ reductions */

static void t_red_rows(Tally *T) {
  static const int MN[][2] = {{37, 200}, {64, 128}, {5, 3}, {16, 1000}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_rows", (uint64_t)c);
    Call k;
    call_init(&k, "red_rows.tl", "red_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *RS = call_out(&k, "RS", F32, 2, SHAPE(M, 1));
    Ten *RX = call_out(&k, "RX", F32, 2, SHAPE(M, 1));
    Ten *RN = call_out(&k, "RN", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -2, 2);
    /* all-positive rows and all-negative rows: a 0 from past the edge would win max/min */
    for (int j = 0; j < N; j++) A2(X, 0, j) = fabs(A2(X, 0, j)) + 0.5;
    if (M > 1)
      for (int j = 0; j < N; j++) A2(X, 1, j) = -fabs(A2(X, 1, j)) - 0.5;
    for (int i = 0; i < M; i++) {
      double s = 0, mx = -INFINITY, mn = INFINITY;
      for (int j = 0; j < N; j++) s += A2(X, i, j), mx = dmax(mx, A2(X, i, j)), mn = dmin(mn, A2(X, i, j));
      RS->ref[i] = s, RX->ref[i] = mx, RN->ref[i] = mn;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_rows_shared", l));
    call_free(&k);
  }
}

/* red_nan (tests/gpu/red_nan.tl): rows and columns of NaNs alone give -inf (max) and inf
 * (min); rows and columns with some NaN give their numbers' max and min */
static void t_red_nan(Tally *T) {
  static const int Ms[] = {32, 37, 16};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], G = (M + 15) / 16;
    Rng r = rng_seed("red_nan", (uint64_t)c);
    Call k;
    call_init(&k, "red_nan.tl", "red_nan");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *RX = call_out(&k, "RX", F32, 1, SHAPE(M)), *RN = call_out(&k, "RN", F32, 1, SHAPE(M));
    Ten *CX = call_out(&k, "CX", F32, 2, SHAPE(G, 64)), *CN = call_out(&k, "CN", F32, 2, SHAPE(G, 64));
    fill_uniform(X, &r, -2, 2);
    /* rows 4i: all NaN; columns 8j + 3: all NaN; row 4i + 1 also NaN at even columns */
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 64; j++)
        if (i % 4 == 0 || j % 8 == 3 || (i % 4 == 1 && j % 2 == 0)) A2(X, i, j) = NAN;
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, mn = INFINITY;
      for (int j = 0; j < 64; j++)
        if (!isnan(A2(X, i, j))) mx = dmax(mx, A2(X, i, j)), mn = dmin(mn, A2(X, i, j));
      RX->ref[i] = mx, RN->ref[i] = mn;
    }
    for (int g = 0; g < G; g++)
      for (int j = 0; j < 64; j++) {
        double mx = -INFINITY, mn = INFINITY;
        for (int i = g * 16; i < g * 16 + 16; i++) { /* rows past M read as 0 (no pad()) */
          double x = i < M ? A2(X, i, j) : 0;
          if (!isnan(x)) mx = dmax(mx, x), mn = dmin(mn, x);
        }
        R2(CX, g, j) = mx, R2(CN, g, j) = mn;
      }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "red_nan", l));
    call_free(&k);
  }
}

/* gemv_reshape (tests/gpu/gemv_reshape.tl): y = A x by dot with reshape(x, [BK, 1]) */
static void t_gemv_reshape(Tally *T) {
  static const int MK[][2] = {{37, 1000}, {16, 256}, {5, 3}, {33, 520}};
  for (int c = 0; c < 4; c++) {
    int M = MK[c][0], K = MK[c][1];
    Rng r = rng_seed("gemv_reshape", (uint64_t)c);
    Call k;
    call_init(&k, "gemv_reshape.tl", "gemv");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K)), *X = call_in(&k, "X", F16, 1, SHAPE(K));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(M));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double a = 0;
      for (int q = 0; q < K; q++) a += A2(A, i, q) * X->v[q];
      Y->ref[i] = a;
    }
    char l[64];
    label(l, sizeof l, "M=%d K=%d", M, K);
    CHECK(T, call_check(&k, "gemv_reshape", l));
    call_free(&k);
  }
}

/* division_row (tests/gpu/division_row.tl): a row softmax whose 1.0 / rowsum(e) is one value a row */
static void t_division_row(Tally *T) {
  static const int MN[][2] = {{5, 300}, {3, 512}, {4, 1}, {2, 77}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("division_row", (uint64_t)c);
    Call k;
    call_init(&k, "division_row.tl", "division_row");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -3, 3);
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, s = 0;
      for (int j = 0; j < N; j++) mx = dmax(mx, A2(X, i, j));
      for (int j = 0; j < N; j++) s += exp(A2(X, i, j) - mx);
      for (int j = 0; j < N; j++) R2(Y, i, j) = exp(A2(X, i, j) - mx) / s;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "division_row", l));
    call_free(&k);
  }
}

/* math_row (division_row.tl): x * rsqrt(mean(x^2) + eps) * sigmoid(w), the rsqrt once a row
 * (the sigmoid at each element); ragged M (rows past it) and N, one column. */
static void t_math_row(Tally *T) {
  static const int MN[][2] = {{5, 300}, {8, 512}, {3, 1}, {9, 77}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    double eps = 1e-5;
    Rng r = rng_seed("math_row", (uint64_t)c);
    Call k;
    call_init(&k, "division_row.tl", "math_row");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    call_arg(&k, "eps=%g", eps);
    fill_uniform(X, &r, -2, 2);
    fill_uniform(W, &r, -3, 3);
    for (int i = 0; i < M; i++) {
      double ms = 0;
      for (int j = 0; j < N; j++) ms += A2(X, i, j) * A2(X, i, j);
      ms /= N;
      for (int j = 0; j < N; j++) R2(Y, i, j) = A2(X, i, j) / sqrt(ms + (float)eps) / (1 + exp(-W->v[j]));
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "math_row", l));
    call_free(&k);
  }
}

/* mma_shared: a shared tile written from an mma-layout register tile, at ragged sizes */
static void t_mma_shared(Tally *T) {
  static const int MNK[][3] = {{37, 100, 200}, {64, 64, 16}, {5, 3, 7}, {130, 65, 33}};
  for (int c = 0; c < 4; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("mma_shared", (uint64_t)c);
    Call k;
    call_init(&k, "mma_shared.tl", "mma_shared");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *O = call_out(&k, "O", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, O, M, N, K, 1);
    for (long long i = 0; i < O->n; i++) O->ref[i] = round_dt(F16, 2 * O->ref[i]);
    O->tol = 1e-3;
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "mma_shared", l));
    call_free(&k);
  }
}

/* epilogue_loop: staged stores of an f16 accumulator inside a loop over column
 * blocks (one shared copy reused by every iteration), on sm_90 (stmatrix), sm_90a
 * (wgmma, stmatrix) and sm_80 (plain shared stores), at ragged sizes: N a
 * multiple of 8 (the 16-byte fast body, ragged last block), N not one (the
 * element-by-element body), a tile exactly, a tile's corner. */
static void t_epilogue_loop(Tally *T) {
  static const int MNK[][3] = {{37, 200, 40}, {64, 128, 16}, {70, 260, 33}, {5, 3, 7}, {130, 136, 48}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 15; c++) {
    int M = MNK[c % 5][0], N = MNK[c % 5][1], K = MNK[c % 5][2];
    Rng r = rng_seed("epilogue_loop", (uint64_t)c);
    Call k;
    call_init(&k, "epilogue_loop.tl", "epilogue_loop");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 5]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, C, M, N, K, 1);
    for (long long i = 0; i < C->n; i++) C->ref[i] = round_dt(F16, C->ref[i] + 1.0);
    C->tol = 1e-3;
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d", k.target, M, N, K);
    CHECK(T, call_check(&k, "epilogue_loop", l));
    call_free(&k);
  }
}

/* epilogue_after_loop (tests/gpu/epilogue_after_loop.tl): an f16 store staged after a
 * loop whose dead temporaries once kept it 4-byte pairs; on sm_90, sm_90a and sm_80 at
 * ragged sizes (N a multiple of 8 or not, K not one of 64, a tile's corner, more than one
 * k block). The reference: per 64-column block and 64-deep k block, S = A B in double,
 * h(S) = S + e + t + u + g rounded to f16, times W's diagonal block. */
static void t_epilogue_after_loop(Tally *T) {
  static const int MNK[][3] = {{70, 136, 100}, {64, 64, 64}, {5, 3, 7}, {130, 90, 200}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    Rng r = rng_seed("epilogue_after_loop", (uint64_t)c);
    Call k;
    call_init(&k, "epilogue_after_loop.tl", "epi_after_loop");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(N, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -0.5, 0.5);
    fill_uniform(B, &r, -0.5, 0.5);
    fill_uniform(W, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        int n0 = j / 64 * 64;
        double acc = 0;
        for (int k0 = 0; k0 < K; k0 += 64)
          for (int n = n0; n < n0 + 64 && n < N; n++) {
            double s = 0;
            for (int kk = k0; kk < k0 + 64 && kk < K; kk++) s += A2(A, i, kk) * A2(B, kk, n);
            double e = exp2(s * 0.125), t = s * e + 1.0, u = t * e - s, g = u * s + t;
            acc += round_dt(F16, s + e + t + u + g) * A2(W, n, j);
          }
        C->ref[(long long)i * N + j] = round_dt(F16, acc);
      }
    C->tol = 1e-2; /* f16 roundings of h(S) in f32 and in double may differ by an ulp */
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d", k.target, M, N, K);
    CHECK(T, call_check(&k, "epilogue_after_loop", l));
    call_free(&k);
  }
}

/* vec_load: 16-byte tile loads (pad -1 past the edge; N a multiple of 4 or 8) */
static void t_vec_load(Tally *T) {
  static const int MN[][2] = {{37, 200}, {8, 64}, {5, 4}, {20, 1000}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("vec_load", (uint64_t)c);
    Call k;
    call_init(&k, "vec_load.tl", "vec_load_f32");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -2, 2);
    int chunks = (N + 63) / 64;
    for (int i = 0; i < M; i++) {
      double s = 0;
      for (int j = 0; j < N; j++) s += A2(X, i, j);
      S->ref[i] = s - (double)(chunks * 64 - N); /* the padded elements read -1 */
    }
    char l[64];
    label(l, sizeof l, "f32 M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "vec_load", l));
    call_free(&k);
  }
  static const int MN16[][2] = {{37, 104}, {16, 32}, {3, 8}};
  for (int c = 0; c < 3; c++) {
    int M = MN16[c][0], N = MN16[c][1];
    Rng r = rng_seed("vec_load_f16", (uint64_t)c);
    Call k;
    call_init(&k, "vec_load_f16.tl", "vec_load_f16");
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -2, 2);
    for (int i = 0; i < M; i++) {
      double s = 0;
      for (int j = 0; j < N; j++) s += A2(X, i, j);
      S->ref[i] = s;
    }
    char l[64];
    label(l, sizeof l, "f16 M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "vec_load", l));
    call_free(&k);
  }
}

static void t_red_cols(Tally *T) {
  static const int MN[][2] = {{200, 37}, {96, 64}, {3, 5}, {1000, 16}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_cols", (uint64_t)c);
    Call k;
    call_init(&k, "red_cols.tl", "red_cols");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *CS = call_out(&k, "CS", F32, 2, SHAPE(1, N));
    Ten *CX = call_out(&k, "CX", F32, 2, SHAPE(1, N));
    Ten *CN = call_out(&k, "CN", F32, 2, SHAPE(1, N));
    fill_uniform(X, &r, -2, 2);
    for (int i = 0; i < M; i++) A2(X, i, 0) = fabs(A2(X, i, 0)) + 0.5;
    if (N > 1)
      for (int i = 0; i < M; i++) A2(X, i, 1) = -fabs(A2(X, i, 1)) - 0.5;
    for (int j = 0; j < N; j++) {
      double s = 0, mx = -INFINITY, mn = INFINITY;
      for (int i = 0; i < M; i++) s += A2(X, i, j), mx = dmax(mx, A2(X, i, j)), mn = dmin(mn, A2(X, i, j));
      CS->ref[j] = s, CX->ref[j] = mx, CN->ref[j] = mn;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_cols_shared", l));
    call_free(&k);
  }
}

/* red_cols_pad: column reductions in registers over [20, 40] tiles, whose
 * layout pads rows 20..31; rows past M read 0, and so take part */
static void t_red_cols_pad(Tally *T) {
  static const int MN[][2] = {{20, 40}, {50, 70}, {7, 3}, {33, 121}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_cols_pad", (uint64_t)c);
    Call k;
    call_init(&k, "red_cols_pad.tl", "red_cols_pad");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *CS = call_out(&k, "CS", F32, 2, SHAPE(1, N));
    Ten *CX = call_out(&k, "CX", F32, 2, SHAPE(1, N));
    Ten *CN = call_out(&k, "CN", F32, 2, SHAPE(1, N));
    /* x in [-3, -1.5]: x * 2 - 1 <= -4 and x * x - 9 >= -6.75, so a padding
     * row folded as its value (-1, -9) would win the max and the min */
    fill_uniform(X, &r, -3, -1.5);
    for (int j = 0; j < N; j++) {
      double s = 0, mx = -INFINITY, mn = INFINITY;
      for (int i = 0; i < 20; i++) {
        double x = i < M ? A2(X, i, j) : 0;
        s += exp(x), mx = dmax(mx, x * 2 - 1), mn = dmin(mn, x * x - 9);
      }
      CS->ref[j] = s, CX->ref[j] = mx, CN->ref[j] = mn;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_cols_padded_rows", l));
    call_free(&k);
  }
}

/* pad_repeats: row reductions over [5, 1100] tiles whose layout's last row
 * and column repeats reach past the tile (padding tests there only); columns
 * past N read 0 and count, the layout's padding must not */
static void t_pad_repeats(Tally *T) {
  static const int MN[][2] = {{5, 1100}, {13, 1000}, {4, 1300}, {9, 37}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("pad_repeats", (uint64_t)c);
    Call k;
    call_init(&k, "pad_repeats.tl", "pad_repeats");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    Ten *MX = call_out(&k, "MX", F32, 2, SHAPE(M, 1));
    /* x in [1, 2]: -x * x - 3 <= -4, below what a padding element (-3) gives */
    fill_uniform(X, &r, 1, 2);
    for (int i = 0; i < M; i++) {
      double s = 0, mx = -INFINITY;
      for (int j = 0; j < 1100; j++) {
        double x = j < N ? A2(X, i, j) : 0;
        s += exp(x), mx = dmax(mx, 0.0 - x * x - 3);
      }
      S->ref[i] = s, MX->ref[i] = mx;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "pad_repeats", l));
    call_free(&k);
  }
}

/* red_cols_types: column reductions of f16 (in f32), i8 (in i32), i32, f64
 * and u32 over [64, 32] tiles; rows past M read 0 */
static void t_red_cols_types(Tally *T) {
  static const int MN[][2] = {{64, 32}, {37, 50}, {3, 5}, {64, 100}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_cols_types", (uint64_t)c);
    Call k;
    call_init(&k, "red_cols_types.tl", "red_cols_types");
    Ten *H = call_in(&k, "H", F16, 2, SHAPE(M, N));
    Ten *B = call_in(&k, "B", I8, 2, SHAPE(M, N));
    Ten *I = call_in(&k, "I", I32, 2, SHAPE(M, N));
    Ten *D = call_in(&k, "D", F64, 2, SHAPE(M, N));
    Ten *U = call_in(&k, "U", U32, 2, SHAPE(M, N));
    Ten *HS = call_out(&k, "HS", F16, 2, SHAPE(1, N));
    Ten *BX = call_out(&k, "BX", I8, 2, SHAPE(1, N));
    Ten *IN = call_out(&k, "IN", I32, 2, SHAPE(1, N));
    Ten *DS = call_out(&k, "DS", F64, 2, SHAPE(1, N));
    Ten *US = call_out(&k, "US", U32, 2, SHAPE(1, N));
    fill_uniform(H, &r, -1, 1);
    fill_int(B, &r, -100, -2); /* all below 0: rows past M (0) win the max */
    fill_int(I, &r, 1, 1000000);
    fill_uniform(D, &r, -1, 1);
    fill_int(U, &r, 0, 4000000000LL);
    for (int j = 0; j < N; j++) {
      double hs = 0, bx = M < 64 ? 0 : -1e9, in = M < 64 ? 0 : 1e9, ds = 0;
      uint32_t us = 0;
      for (int i = 0; i < M; i++) {
        hs += A2(H, i, j), bx = dmax(bx, A2(B, i, j)), in = dmin(in, A2(I, i, j)), ds += A2(D, i, j);
        us += (uint32_t)A2(U, i, j);
      }
      HS->ref[j] = hs, BX->ref[j] = bx, IN->ref[j] = in, DS->ref[j] = ds, US->ref[j] = us;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_cols_types", l));
    call_free(&k);
  }
}

/* red_cols_dot: colsum and colmax of a dot's accumulator (rows past M are 0) */
static void t_red_cols_dot(Tally *T) {
  static const int MNK[][3] = {{64, 64, 64}, {37, 100, 50}, {5, 3, 7}};
  for (int c = 0; c < 3; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("red_cols_dot", (uint64_t)c);
    Call k;
    call_init(&k, "red_cols_dot.tl", "red_cols_dot");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *CS = call_out(&k, "CS", F32, 2, SHAPE(1, N));
    Ten *CX = call_out(&k, "CX", F32, 2, SHAPE(1, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int j = 0; j < N; j++) {
      double s = 0, mx = M < 64 ? 0 : -INFINITY;
      for (int i = 0; i < M; i++) {
        double d = 0;
        for (int kk = 0; kk < K; kk++) d += A2(A, i, kk) * A2(B, kk, j);
        s += d, mx = dmax(mx, d);
      }
      CS->ref[j] = s, CX->ref[j] = mx;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "reduce_cols_dot", l));
    call_free(&k);
  }
}

/* red_deferred: later reductions join an earlier one's barrier while the
 * stores between wait; what reads a waiting op's result keeps its order */
static void t_red_deferred(Tally *T) {
  static const int MN[][2] = {{4, 256}, {10, 200}, {3, 7}, {33, 130}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_deferred", (uint64_t)c);
    Call k;
    call_init(&k, "red_deferred.tl", "red_deferred");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *Z = call_out(&k, "Z", F32, 2, SHAPE(M, 1));
    Ten *V = call_out(&k, "V", F32, 2, SHAPE(M, 1));
    Ten *W = call_out(&k, "W", F32, 2, SHAPE(M, 1));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -2, 2);
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, mn = INFINITY, s = 0, q = 0;
      for (int j = 0; j < N; j++) {
        double x = A2(X, i, j);
        mx = dmax(mx, x), mn = dmin(mn, x), s += x, q += x * x;
      }
      for (int j = 0; j < N; j++) R2(Y, i, j) = A2(X, i, j) - mx;
      double z = round_dt(F32, 3 * s);
      R2(Z, i, 0) = z, R2(V, i, 0) = q, R2(W, i, 0) = 2 * s * z, R2(C, i, 0) = mn + 2 * s;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_deferred", l));
    call_free(&k);
  }
}

static void t_red_all(Tally *T) {
  static const int MN[][2] = {{37, 200}, {64, 128}, {5, 3}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_all", (uint64_t)c);
    Call k;
    call_init(&k, "red_all.tl", "red_all");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Tt = call_out(&k, "T", F32, 1, SHAPE(2));
    fill_uniform(X, &r, -1, 2);
    double s = 0, a = 0;
    for (long long i = 0; i < X->n; i++) s += X->v[i], a += fabs(X->v[i]);
    Tt->ref[0] = s, Tt->ref[1] = a;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_sum_scalar", l));
    call_free(&k);
  }
}

/* red_all sum_pair: two sum()s, a cumsum and a sum of one tile sharing one barrier, with
 * scalar statements between them; elements past N read 0 */
static void t_sum_pair(Tally *T) {
  static const int Ns[] = {3000, 1024, 77};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c], G = (N + 1023) / 1024;
    Rng r = rng_seed("sum_pair", (uint64_t)c);
    Call k;
    call_init(&k, "red_all.tl", "sum_pair");
    Ten *X = call_in(&k, "X", I32, 1, SHAPE(N));
    Ten *C = call_out(&k, "C", I32, 2, SHAPE(G, 3));
    Ten *P = call_out(&k, "P", I32, 2, SHAPE(G, 1024));
    fill_int(X, &r, -50, 50);
    for (int g = 0; g < G; g++) {
      long long a = 0, b = 0, s = 0, p = 0;
      for (int i = 0; i < 1024; i++) {
        long long f = g * 1024 + i < N ? (long long)X->v[g * 1024 + i] : 0;
        a += f, b += f * f % 7, s += f % 5; /* C's truncating %, as the language's */
        p += f % 5;
        R2(P, g, i) = (double)p;
      }
      R2(C, g, 0) = (double)(a + 1);
      R2(C, g, 1) = (double)(b + 2 * g);
      R2(C, g, 2) = (double)(a * 3 - b + s);
    }
    char l[64];
    label(l, sizeof l, "sum_pair N=%d", N);
    CHECK(T, call_check(&k, "reduce_sum_scalar", l));
    call_free(&k);
  }
}

/* carry_registers (tests/gpu/carry_registers.tl): column reductions accumulated across a
 * loop into @registers tiles of their own layout, carried and folded once after the loop;
 * rows past N read 0 (so a ragged N's last slice adds zeros to the max) */
static void t_carry_registers(Tally *T) {
  static const int Ns[] = {100, 64, 1, 33};
  for (int c = 0; c < 8; c++) {
    int N = Ns[c % 4], w = c / 4;
    Rng r = rng_seed("carry_registers", (uint64_t)c);
    Call k;
    char l[64];
    if (w == 0) {
      call_init(&k, "carry_registers.tl", "colsum_acc");
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(N, 256));
      Ten *H = call_out(&k, "H", F32, 1, SHAPE(256));
      fill_uniform(X, &r, -1, 1);
      for (int j = 0; j < 256; j++) {
        double a = 0;
        for (int i = 0; i < N; i++) a += A2(X, i, j);
        H->ref[j] = a;
      }
      label(l, sizeof l, "colsum_acc N=%d", N);
    } else {
      call_init(&k, "carry_registers.tl", "colmax_acc");
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(N, 128));
      Ten *M = call_out(&k, "M", F32, 1, SHAPE(128)), *S = call_out(&k, "S", F32, 1, SHAPE(128));
      fill_uniform(X, &r, -3, -1); /* all negative: the zeros past a ragged N show in the max */
      for (int j = 0; j < 128; j++) {
        double m = N % 16 ? 0.0 : -INFINITY, a = 1.0;
        for (int i = 0; i < N; i++) m = A2(X, i, j) > m ? A2(X, i, j) : m, a += A2(X, i, j);
        M->ref[j] = m, S->ref[j] = a;
      }
      label(l, sizeof l, "colmax_acc N=%d", N);
    }
    CHECK(T, call_check(&k, "carry_registers", l));
    call_free(&k);
  }
}

/* reshape_slice (tests/gpu/reshape_slice.tl): slices made a column or a row load in that
 * shape; at ragged M and N */
static void t_reshape_slice(Tally *T) {
  static const int MN[][2] = {{70, 200}, {32, 128}, {5, 3}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("reshape_slice", (uint64_t)c);
    Call k;
    call_init(&k, "reshape_slice.tl", "rowscale");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N)), *S = call_in(&k, "S", F32, 1, SHAPE(M));
    Ten *V = call_in(&k, "V", F32, 2, SHAPE(N, 1));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(S, &r, -1, 1);
    fill_uniform(V, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(Y, i, j) = A2(X, i, j) * S->v[i] + V->v[j];
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reshape_slice", l));
    call_free(&k);
  }
}

/* bounds_forms (tests/gpu/bounds_forms.tl): indices bounded by their form, unchecked */
static void t_bounds_forms(Tally *T) {
  static const int Ns[] = {1000, 256, 3};
  for (int c = 0; c < 4; c++) {
    Rng r = rng_seed("bounds_forms", (uint64_t)c);
    Call k;
    char l[64];
    if (c == 0) {
      call_init(&k, "bounds_forms.tl", "taps");
      Ten *X = call_in(&k, "X", F32, 3, SHAPE(3, 3, 64)), *W = call_in(&k, "W", F32, 2, SHAPE(3, 64));
      Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(64));
      fill_uniform(X, &r, -1, 1);
      fill_uniform(W, &r, -1, 1);
      for (int j = 0; j < 64; j++) {
        double a = 0;
        for (int t = 0; t < 9; t++) a += X->v[(t / 3 * 3 + t % 3) * 64 + j] * (t + 1) + (t / 2 < 3 ? A2(W, t / 2, j) : 0);
        Y->ref[j] = a;
      }
      label(l, sizeof l, "taps");
    } else {
      int N = Ns[c - 1];
      call_init(&k, "bounds_forms.tl", "stride");
      Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
      Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
      fill_uniform(X, &r, -1, 1);
      for (int i = 0; i < N; i++) Y->ref[i] = 2 * X->v[i];
      label(l, sizeof l, "stride N=%d", N);
    }
    CHECK(T, call_check(&k, "bounds_forms", l));
    call_free(&k);
  }
}

/* rings_share (tests/gpu/rings_share.tl): the stage rings of two loops share bytes */
static void t_rings_share(Tally *T) {
  static const int Ks[] = {200, 64, 1000};
  for (int c = 0; c < 3; c++) {
    int K = Ks[c];
    Rng r = rng_seed("rings_share", (uint64_t)c);
    Call k;
    call_init(&k, "rings_share.tl", "two_loops");
    if (!strcmp(h_target, "sm_90a")) call_arg(&k, "-DSTAGES=6"); /* TMA rings: side by side */
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(64, K)), *B = call_in(&k, "B", F16, 2, SHAPE(K, 64));
    Ten *C = call_in(&k, "C", F16, 2, SHAPE(K, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(64, 64));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(C, &r, -1, 1);
    for (int i = 0; i < 64; i++)
      for (int j = 0; j < 64; j++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += A2(A, i, q) * (A2(B, q, j) + A2(C, q, j));
        R2(O, i, j) = a;
      }
    char l[64];
    label(l, sizeof l, "K=%d", K);
    CHECK(T, call_check(&k, "rings_share", l));
    call_free(&k);
  }
}

/* persistent_gemm (tests/gpu/persistent_gemm.tl): NPROG blocks walk C's tiles, a @pipeline
 * k loop per tile (on sm_90a: TMA rings whose phases count over every run of the loop) */
static void t_persistent_gemm(Tally *T) {
  /* M, N, K, NPROG, STAGES: runs of 2 iterations against 4 stages (ahead of the loop only),
   * of 3 wrapping 3 stages, of 9 in 4 stages with a ragged last one, the general body (K
   * not a multiple of 8), runs of one iteration in 2 stages */
  static const int C5[][5] = {{200, 136, 128, 2, 4}, {130, 72, 192, 3, 3}, {70, 64, 520, 1, 4}, {64, 70, 77, 2, 4},
                              {129, 130, 64, 4, 2}};
  for (int c = 0; c < 5; c++) {
    int M = C5[c][0], N = C5[c][1], K = C5[c][2];
    Rng r = rng_seed("persistent_gemm", (uint64_t)c);
    Call k;
    call_init(&k, "persistent_gemm.tl", "pgemm");
    call_arg(&k, "-DNPROG=%d", C5[c][3]);
    call_arg(&k, "-DSTAGES=%d", C5[c][4]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K)), *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, C, M, N, K, 1);
    char l[80];
    label(l, sizeof l, "M=%d N=%d K=%d NPROG=%d STAGES=%d", M, N, K, C5[c][3], C5[c][4]);
    CHECK(T, call_check(&k, "persistent_gemm", l));
    call_free(&k);
  }
}

/* An integer rounded to bf16 once, to nearest even (8 significant bits), exactly. */
static double int_to_bf16(int64_t v) {
  uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  int e = 63;
  if (a == 0) return 0;
  while (!(a >> e)) e--;
  if (e < 8) return (double)v;
  int sh = e - 7;
  uint64_t q = a >> sh, r = a & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
  if (r > half || (r == half && (q & 1))) q++;
  double m = ldexp((double)q, sh);
  return v < 0 ? -m : m;
}

/* casts_bf16_int (tests/gpu/casts_bf16_int.tl): integers to bf16, rounded once */
static void t_casts_bf16_int(Tally *T) {
  static const int Ns[] = {700, 256, 5};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("casts_bf16_int", (uint64_t)c);
    Call k;
    call_init(&k, "casts_bf16_int.tl", "ibf");
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(N)), *U = call_in(&k, "U", U32, 1, SHAPE(N));
    Ten *L = call_in(&k, "L", I64, 1, SHAPE(N));
    Ten *OI = call_out(&k, "OI", BF16, 1, SHAPE(N)), *OU = call_out(&k, "OU", BF16, 1, SHAPE(N));
    Ten *OL = call_out(&k, "OL", BF16, 1, SHAPE(N));
    static const int64_t special[] = {16842753, -16842753, 16908288 + 65536, 2147483647, -2147483647 - 1, 0, 255, 257};
    for (int i = 0; i < N; i++) {
      /* ties and near-ties past 2^24, where f32 rounds first */
      int64_t b = (int64_t)1 << rng_int(&r, 24, 30), t = b + (b >> 8) * rng_int(&r, 0, 255) + (b >> 9) + rng_int(&r, -1, 1);
      I->v[i] = (double)(i < 8 ? special[i] : rng_int(&r, 0, 1) ? t : -t);
      U->v[i] = (double)(i < 2 ? 4294967295.0 - i : (double)(uint32_t)(t * 2 + 1));
      L->v[i] = (double)((int64_t)1 << 40) + (double)((int64_t)1 << 32) * (double)rng_int(&r, 0, 3) + (double)rng_int(&r, -2, 2);
    }
    for (int i = 0; i < N; i++) {
      OI->ref[i] = int_to_bf16((int64_t)I->v[i]);
      OU->ref[i] = int_to_bf16((int64_t)U->v[i]);
      OL->ref[i] = int_to_bf16((int64_t)L->v[i]);
    }
    OI->tol = OU->tol = OL->tol = 0; /* exact */
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "casts_bf16_int", l));
    call_free(&k);
  }
}

/* copy_two_loops (tests/gpu/copy_two_loops.tl): q's copy made once for two loops, or again
 * when q is written between them; acc = q S + q' S, S the sum of K's 64-row blocks */
static void t_copy_two_loops(Tally *T) {
  static const int Ns[] = {200, 64, 7};
  for (int c = 0; c < 6; c++) {
    int N = Ns[c % 3], w = c / 3;
    Rng r = rng_seed("copy_two_loops", (uint64_t)c);
    Call k;
    call_init(&k, "copy_two_loops.tl", w ? "new_q" : "same_q");
    Ten *Q = call_in(&k, "Q", F16, 2, SHAPE(64, 64)), *K = call_in(&k, "K", F16, 2, SHAPE(N, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(64, 64));
    fill_uniform(Q, &r, -1, 1);
    fill_uniform(K, &r, -1, 1);
    for (int i = 0; i < 64; i++)
      for (int j = 0; j < 64; j++) {
        double a = 0;
        for (int q = 0; q < N; q++) a += A2(Q, i, q % 64) * A2(K, q, j); /* block b: q[:, q - 64 b] */
        R2(O, i, j) = a * (w ? 3 : 2);
      }
    char l[64];
    label(l, sizeof l, "%s N=%d", w ? "new_q" : "same_q", N);
    CHECK(T, call_check(&k, "copy_two_loops", l));
    call_free(&k);
  }
}

static void t_red_i32(Tally *T) {
  static const int MN[][2] = {{20, 24}, {13, 7}};
  for (int c = 0; c < 2; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_i32", (uint64_t)c);
    Call k;
    call_init(&k, "red_i32.tl", "red_i32");
    Ten *X = call_in(&k, "X", I32, 2, SHAPE(M, N));
    Ten *RS = call_out(&k, "RS", I32, 2, SHAPE(M, 1));
    Ten *RX = call_out(&k, "RX", I32, 2, SHAPE(M, 1));
    Ten *CN = call_out(&k, "CN", I32, 2, SHAPE(1, N));
    Ten *Tt = call_out(&k, "T", I32, 1, SHAPE(1));
    fill_int(X, &r, -1000, 1000);
    /* the tile is 20 x 24: where the tensor is smaller, the zeros past its
       edge take part in max and min */
    double tot = 0;
    for (int i = 0; i < M; i++) {
      double s = 0, mx = N < 24 ? 0 : -1e9;
      for (int j = 0; j < N; j++) s += A2(X, i, j), mx = dmax(mx, A2(X, i, j));
      RS->ref[i] = s, RX->ref[i] = mx, tot += s;
    }
    for (int j = 0; j < N; j++) {
      double mn = M < 20 ? 0 : 1e9;
      for (int i = 0; i < M; i++) mn = dmin(mn, A2(X, i, j));
      CN->ref[j] = mn;
    }
    Tt->ref[0] = tot;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_i32_shared", l));
    call_free(&k);
  }
}

/* red_types: row reductions of f16 (in f32) and i8 (in i32), converted back per
 * row, and of u32 (in itself, wrapping), with colsum and sum of u32, in the tile
 * IR; the tile is 16 x 64, so that ragged sizes leave zeros in max and min. */
static void t_red_types(Tally *T) {
  static const int MN[][2] = {{16, 64}, {13, 50}, {3, 17}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("red_types", (uint64_t)c);
    Call k;
    call_init(&k, "red_types.tl", "red_types");
    Ten *H = call_in(&k, "H", F16, 2, SHAPE(M, N));
    Ten *B = call_in(&k, "B", I8, 2, SHAPE(M, N));
    Ten *U = call_in(&k, "U", U32, 2, SHAPE(M, N));
    Ten *HS = call_out(&k, "HS", F16, 2, SHAPE(M, 1));
    Ten *HD = call_out(&k, "HD", F16, 2, SHAPE(M, N));
    Ten *BS = call_out(&k, "BS", I8, 2, SHAPE(M, 1));
    Ten *BN = call_out(&k, "BN", I8, 2, SHAPE(M, 1));
    Ten *US = call_out(&k, "US", U32, 2, SHAPE(M, 1));
    Ten *UC = call_out(&k, "UC", U32, 2, SHAPE(1, N));
    Ten *UT = call_out(&k, "UT", U32, 1, SHAPE(1));
    fill_uniform(H, &r, -1, 1);
    fill_int(B, &r, -1, 1); /* a row's sum fits in i8 */
    fill_int(U, &r, 0, 4000000000LL);
    uint32_t tot = 0;
    for (int i = 0; i < M; i++) {
      double hs = 0, hx = N < 64 ? 0 : -1e9, bs = 0, bn = N < 64 ? 0 : 1e9;
      uint32_t us = 0;
      for (int j = 0; j < N; j++) {
        hs += A2(H, i, j), hx = dmax(hx, A2(H, i, j));
        bs += A2(B, i, j), bn = dmin(bn, A2(B, i, j));
        us += (uint32_t)A2(U, i, j);
      }
      for (int j = 0; j < N; j++) R2(HD, i, j) = A2(H, i, j) - hx;
      R2(HS, i, 0) = hs, R2(BS, i, 0) = bs, R2(BN, i, 0) = bn, R2(US, i, 0) = us;
      tot += us;
    }
    for (int j = 0; j < N; j++) {
      uint32_t s = 0;
      for (int i = 0; i < M; i++) s += (uint32_t)A2(U, i, j);
      UC->ref[j] = s;
    }
    UT->ref[0] = tot;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "reduce_types", l));
    call_free(&k);
  }
}

/* red_shapes: two row reductions of different widths in one statement, row
 * reductions of one column, and a [1, 1] tile broadcast into the operands of
 * rowargmax and rowsum (tile 16 rows; ragged M leaves rows unstored). */
static void t_red_shapes(Tally *T) {
  static const int Ms[] = {16, 11, 1};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("red_shapes", (uint64_t)c);
    Call k;
    call_init(&k, "red_shapes.tl", "red_shapes");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 32));
    Ten *Y = call_in(&k, "Y", F32, 2, SHAPE(M, 64));
    Ten *C = call_in(&k, "C", F32, 2, SHAPE(M, 1));
    Ten *Tt = call_in(&k, "T", F32, 2, SHAPE(1, 1));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    Ten *R = call_out(&k, "R", F32, 2, SHAPE(M, 1));
    Ten *I = call_out(&k, "I", I32, 2, SHAPE(M, 1));
    Ten *Q = call_out(&k, "Q", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(Y, &r, -1, 1);
    fill_uniform(C, &r, -1, 1);
    fill_uniform(Tt, &r, -2, 2);
    double t = Tt->v[0];
    for (int i = 0; i < M; i++) {
      double s = 0, q = 0, mx = -1e30, best = -1e30;
      int arg = 0;
      for (int j = 0; j < 32; j++) {
        s += A2(X, i, j), q += A2(X, i, j) + t;
        if (A2(X, i, j) * t > best) best = A2(X, i, j) * t, arg = j;
      }
      for (int j = 0; j < 64; j++) mx = dmax(mx, A2(Y, i, j));
      R2(S, i, 0) = s + mx;
      R2(R, i, 0) = 3 * A2(C, i, 0);
      R2(I, i, 0) = arg;
      R2(Q, i, 0) = q;
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "reduce_shapes", l));
    call_free(&k);
  }
}

/* big_acc: dot accumulators of more than 64 per thread (tests/gpu/big_acc.tl): in
 * registers as mma fragments (128 per thread), or, past that, on the CUDA cores in
 * shared memory; and f32 dots on the CUDA cores into a column and into a tile
 * smaller than the threads. Ragged sizes cut rows, columns and k. */
static void t_big_acc(Tally *T) {
  static const int MNK[][3] = {{64, 256, 64}, {70, 300, 40}, {5, 3, 7}};
  static const char *const kernels[] = {"acc_mma128", "acc_home", "acc_home_f32", "dot_small", "a_home"};
  for (int c = 0; c < 15; c++) {
    int M = MNK[c % 3][0], N = MNK[c % 3][1], K = MNK[c % 3][2];
    const char *kernel = kernels[c / 3];
    if (c / 3 == 4) K *= 5; /* a_home's k tile is 128: several iterations */
    bool f16 = c / 3 < 2;
    Rng r = rng_seed("big_acc", (uint64_t)c);
    Call k;
    call_init(&k, "big_acc.tl", kernel);
    Ten *A = call_in(&k, "A", f16 ? F16 : F32, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", f16 ? F16 : F32, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, C, M, N, K, 1);
    for (long long i = 0; i < C->n; i++)
      C->ref[i] = c / 3 == 0 ? C->ref[i] * 0.5 : c / 3 == 1 ? C->ref[i] + 1 : c / 3 == 2 ? C->ref[i] - 2 : C->ref[i];
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d", kernel, M, N, K);
    CHECK(T, call_check(&k, "big_acc", l));
    call_free(&k);
  }
  static const int Ms[] = {32, 100, 3};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("big_acc_col", (uint64_t)c);
    Call k;
    call_init(&k, "big_acc.tl", "dot_col");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, 8));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(8, 1));
    Ten *R = call_out(&k, "R", F32, 2, SHAPE(M, 1));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    gemm_ref(A, W, R, M, 1, 8, 1);
    for (long long i = 0; i < R->n; i++) R->ref[i] += 1;
    char l[64];
    label(l, sizeof l, "dot_col M=%d", M);
    CHECK(T, call_check(&k, "big_acc", l));
    call_free(&k);
  }
}

/* ir_more (tests/gpu/ir_more.tl): a one-element store that reads its own tensor,
 * and a tile's element in a while condition, at ragged sizes. */
static void t_ir_more(Tally *T) {
  static const int Ns[] = {1, 100, 300};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("ir_more_own", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "own_store");
    Ten *Z = call_out(&k, "Z", F32, 1, SHAPE(N));
    Ten *W = call_out(&k, "W", F32, 1, SHAPE(N));
    Z->init = calloc((size_t)N, sizeof(double));
    for (int i = 0; i < N; i++) Z->init[i] = round_dt(F32, rng_uniform(&r, -1, 1)), Z->ref[i] = Z->init[i];
    Z->ref[0] = (float)((float)Z->init[N - 1] + (float)Z->init[0] * 2.0f);
    W->init = calloc((size_t)N, sizeof(double)); /* past 128: not written, still 0 */
    for (int i = 0; i < N; i++) W->ref[i] = i < 128 ? Z->ref[i] + 1 : 0;
    char l[64];
    label(l, sizeof l, "own_store N=%d", N);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
  static const int MN[][2] = {{16, 32}, {37, 70}, {3, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("ir_more_while", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "while_elem");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *I = call_out(&k, "I", I32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -8, 6);
    for (int by = 0; by * 16 < M; by++)
      for (int bx = 0; bx * 32 < N; bx++) {
        int r0 = by * 16 + 3, c0 = bx * 32 + 5, it = 0; /* t[3, 5]: 0 outside the tensor */
        float v = r0 < M && c0 < N ? (float)A2(X, r0, c0) : 0.0f;
        while (v < 4.0f && it < 20) v += 0.75f, it++;
        for (int i = by * 16; i < by * 16 + 16 && i < M; i++)
          for (int j = bx * 32; j < bx * 32 + 32 && j < N; j++) {
            float y = (float)A2(X, i, j);
            for (int q = 0; q < it; q++) y += 0.75f;
            R2(Y, i, j) = y;
            R2(I, i, j) = it;
          }
      }
    char l[64];
    label(l, sizeof l, "while_elem M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("ir_more_bcast", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "bcast_load");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *B = call_in(&k, "B", F32, 1, SHAPE(4));
    Ten *O = call_out(&k, "O", F32, 1, SHAPE(N));
    fill_uniform(X, &r, -2, 2);
    fill_uniform(B, &r, -2, 2);
    O->init = calloc((size_t)N, sizeof(double)); /* past 128: not written, still 0 */
    for (int i = 0; i < N; i++) O->ref[i] = i < 128 ? (float)((float)X->v[i] + (float)B->v[2]) : 0;
    char l[64];
    label(l, sizeof l, "bcast_load N=%d", N);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
}

/* while_continue (tests/gpu/while_continue.tl): a while condition with ops of its
 * own (sum(), a tile's element) in a loop whose body has a continue, at ragged
 * sizes. X holds quarters, so every sum is exact in any order. */
static void t_while_continue(Tally *T) {
  static const int Ms[] = {8, 13, 40};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("while_continue_sum", (uint64_t)c);
    Call k;
    call_init(&k, "while_continue.tl", "while_sum");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
    Ten *I = call_out(&k, "I", I32, 2, SHAPE(M, 64));
    for (long long q = 0; q < X->n; q++) X->v[q] = rng_int(&r, -4, 4) * 0.25;
    for (int m0 = 0; m0 < M; m0 += 8) {
      float t[8][64];
      for (int i = 0; i < 8; i++)
        for (int j = 0; j < 64; j++) t[i][j] = m0 + i < M ? (float)A2(X, m0 + i, j) : 0.0f;
      int it = 0;
      for (;;) {
        double s = 0;
        for (int i = 0; i < 8; i++)
          for (int j = 0; j < 64; j++) s += t[i][j];
        if (!(s < 3000.0 && it < 12)) break;
        it++;
        float add = it % 3 == 0 ? 2.0f : 0.5f;
        for (int i = 0; i < 8; i++)
          for (int j = 0; j < 64; j++) t[i][j] += add;
      }
      for (int i = 0; i < 8 && m0 + i < M; i++)
        for (int j = 0; j < 64; j++) R2(Y, m0 + i, j) = t[i][j], R2(I, m0 + i, j) = it;
    }
    char l[64];
    label(l, sizeof l, "while_sum M=%d", M);
    CHECK(T, call_check(&k, "while_continue", l));
    call_free(&k);
  }
  static const int MN[][2] = {{16, 32}, {37, 70}, {3, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("while_continue_elem", (uint64_t)c);
    Call k;
    call_init(&k, "while_continue.tl", "while_elem");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *I = call_out(&k, "I", I32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -8, 6);
    for (int by = 0; by * 16 < M; by++)
      for (int bx = 0; bx * 32 < N; bx++) {
        int r0 = by * 16 + 3, c0 = bx * 32 + 5, it = 0; /* t[3, 5]: 0 outside the tensor */
        float v = r0 < M && c0 < N ? (float)A2(X, r0, c0) : 0.0f;
        while (v < 4.0f && it < 20) {
          it++;
          v += 0.75f;
          if (it % 2 == 1) continue;
          v += 0.25f;
        }
        for (int i = by * 16; i < by * 16 + 16 && i < M; i++)
          for (int j = bx * 32; j < bx * 32 + 32 && j < N; j++) {
            float y = (float)A2(X, i, j);
            for (int q = 1; q <= it; q++) {
              y += 0.75f;
              if (q % 2 == 0) y += 0.25f;
            }
            R2(Y, i, j) = y;
            R2(I, i, j) = it;
          }
      }
    char l[64];
    label(l, sizeof l, "while_elem M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "while_continue", l));
    call_free(&k);
  }
}

/* smem_reuse (tests/gpu/smem_reuse.tl), on sm_75 (64 KB per block): two shared
 * homes in the same bytes, the second accumulated over ragged k. */
static void t_smem_reuse(Tally *T) {
  static const int Ks[] = {20, 5, 8};
  for (int c = 0; c < 3; c++) {
    int K = Ks[c];
    Rng r = rng_seed("smem_reuse", (uint64_t)c);
    Call k;
    call_init(&k, "smem_reuse.tl", "reuse");
    snprintf(k.target, sizeof k.target, "sm_75");
    Ten *P = call_in(&k, "P", F32, 2, SHAPE(128, K));
    Ten *Q = call_in(&k, "Q", F32, 2, SHAPE(K, 80));
    Ten *R = call_out(&k, "R", F32, 2, SHAPE(128, 80));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(128, 80));
    fill_uniform(P, &r, -1, 1);
    fill_uniform(Q, &r, -1, 1);
    for (int i = 0; i < 128; i++)
      for (int j = 0; j < 80; j++) {
        double a = 0, b = 0;
        for (int q = 0; q < K; q++) {
          double p = A2(P, i, q) * A2(Q, q, j);
          if (q < 8) a += p;
          b += p;
        }
        R2(R, i, j) = a;
        R2(S, i, j) = 2 * (1 + b);
      }
    char l[64];
    label(l, sizeof l, "sm_75 K=%d", K);
    CHECK(T, call_check(&k, "smem_reuse", l));
    call_free(&k);
  }
}

/* ir_more, continued: sum() of row and column values, and a @registers tile in a
 * layout of its own (the seed's count per thread). */
static void t_ir_more2(Tally *T) {
  static const int MN[][2] = {{16, 64}, {9, 40}, {30, 100}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("ir_more_slice_sum", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "slice_sum");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(1, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 1, SHAPE(3));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    double s0 = 0, s1 = 0, s2 = 0;
    for (int i = 0; i < 16; i++) {
      double mx = -INFINITY, sm = 0;
      for (int j = 0; j < 64; j++) {
        double t = i < M && j < N ? A2(X, i, j) : 0; /* the slice reads 0 outside */
        mx = t > mx ? t : mx;
        sm += t;
        if (i < M && j < N) R2(O, i, j) = t * A2(W, 0, j);
      }
      s0 += mx, s1 += 2 * sm;
    }
    for (int j = 0; j < 64 && j < N; j++) s2 += A2(W, 0, j);
    S->ref[0] = s0, S->ref[1] = s1, S->ref[2] = s2;
    char l[64];
    label(l, sizeof l, "slice_sum M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
  static const int Ms[] = {4, 2, 7};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("ir_more_reg_own", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "reg_own");
    Ten *R = call_in(&k, "R", F32, 2, SHAPE(M, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
    fill_uniform(R, &r, -1, 1);
    for (int i = 0; i < M && i < 4; i++)
      for (int j = 0; j < 64; j++) R2(O, i, j) = A2(R, i, j) + 3 * A2(R, 0, j);
    char l[64];
    label(l, sizeof l, "reg_own M=%d", M);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("ir_more_reg_three", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "reg_three");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 128));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 128));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M && i < 3; i++)
      for (int j = 0; j < 128; j++) {
        float a = 0.0f;
        for (int q = 0; q < 2; q++) a += i + q < M ? (float)A2(X, i + q, j) * 2.0f : 0.0f;
        R2(O, i, j) = a;
      }
    char l[64];
    label(l, sizeof l, "reg_three M=%d", M);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
}

/* ir_more, continued: a column value against two layouts, and a register-A dot
 * whose rows the warps cannot hold whole (integer values: every sum exact). */
static void t_ir_more3(Tally *T) {
  static const int Ms[] = {16, 3, 10};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("ir_more_col_two", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "col_two");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(1, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
    Ten *P = call_out(&k, "P", F32, 2, SHAPE(M, 64));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 64; j++) {
        if (i < 16) R2(O, i, j) = A2(X, i, j) * A2(W, 0, j);
        if (i < 4) R2(P, i, j) = A2(X, i, j) + A2(W, 0, j);
      }
    char l[64];
    label(l, sizeof l, "col_two M=%d", M);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
  static const int Ks[] = {16, 48, 5};
  for (int c = 0; c < 3; c++) {
    int K = Ks[c];
    Rng r = rng_seed("ir_more_rega", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "rega_copy");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(16, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, 64));
    Ten *V = call_in(&k, "V", F16, 2, SHAPE(64, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(16, 64));
    fill_int(A, &r, -2, 2);
    fill_int(B, &r, -2, 2);
    fill_int(V, &r, -2, 2);
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 64; j++) {
        double o = 1;
        for (int q = 0; q < 64; q++) {
          double acc = 0; /* at most 4 x 48: exact in f16 */
          for (int kk = 0; kk < K; kk++) acc += A2(A, i, kk) * A2(B, kk, q);
          o += acc * A2(V, q, j);
        }
        R2(O, i, j) = o;
      }
    char l[64];
    label(l, sizeof l, "rega_copy K=%d", K);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
  static const int Mb[] = {64, 37};
  for (int c = 0; c < 2; c++) {
    int M = Mb[c];
    Rng r = rng_seed("ir_more_rega_big", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "rega_big");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, 16));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(16, 64));
    Ten *V = call_in(&k, "V", F16, 2, SHAPE(64, 256));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 256));
    fill_int(A, &r, -2, 2);
    fill_int(B, &r, -2, 2);
    fill_int(V, &r, -2, 2);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 256; j++) {
        double o = 0.5;
        for (int q = 0; q < 64; q++) {
          double acc = 0; /* at most 64: exact in f16 */
          for (int kk = 0; kk < 16; kk++) acc += A2(A, i, kk) * A2(B, kk, q);
          o += acc * A2(V, q, j);
        }
        R2(O, i, j) = o;
      }
    char l[64];
    label(l, sizeof l, "rega_big M=%d", M);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
}

/* ir_more, continued: column and whole-tile sums of f16, bf16 and i8 tiles, folded
 * in f32 / i32 (the reference in double, rounded once to the stored type). */
static void t_ir_more4(Tally *T) {
  static const int Ms[] = {32, 20, 3};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("ir_more_narrow", (uint64_t)c);
    Call k;
    call_init(&k, "ir_more.tl", "narrow_sums");
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, 64));
    Ten *B = call_in(&k, "B", BF16, 2, SHAPE(M, 64));
    Ten *Q = call_in(&k, "Q", I8, 2, SHAPE(M, 16));
    Ten *Y = call_out(&k, "Y", F16, 2, SHAPE(1, 64));
    Ten *Z = call_out(&k, "Z", BF16, 2, SHAPE(1, 64));
    Ten *QM = call_out(&k, "QM", I8, 2, SHAPE(1, 16));
    Ten *S = call_out(&k, "S", F16, 1, SHAPE(1));
    Ten *Tt = call_out(&k, "T", BF16, 1, SHAPE(1));
    Ten *U = call_out(&k, "U", I8, 1, SHAPE(1));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_int(Q, &r, -1, 1);
    double sx = 0, sb = 0, sq = 0;
    for (int j = 0; j < 64; j++) {
      double cx = 0, cb = 0;
      for (int i = 0; i < 32 && i < M; i++) cx += A2(X, i, j), cb += A2(B, i, j); /* rows past M read 0 */
      R2(Y, 0, j) = round_dt(F16, cx), R2(Z, 0, j) = round_dt(BF16, cb);
      sx += cx, sb += cb;
    }
    for (int j = 0; j < 16; j++) {
      double mx = -1e30;
      for (int i = 0; i < 4; i++) {
        double q = i < M ? A2(Q, i, j) : 0;
        mx = q > mx ? q : mx;
        sq += q;
      }
      R2(QM, 0, j) = mx;
    }
    S->ref[0] = round_dt(F16, sx), Tt->ref[0] = round_dt(BF16, round_dt(BF16, sb) * 0.5), U->ref[0] = sq;
    Y->tol = S->tol = 1e-3; /* within an ulp of the once-rounded sum (folds in f16 would drift past it) */
    Z->tol = Tt->tol = 8e-3;
    char l[64];
    label(l, sizeof l, "narrow_sums M=%d", M);
    CHECK(T, call_check(&k, "ir_more", l));
    call_free(&k);
  }
}

/* tall_rows (tests/gpu/tall_rows.tl): row reductions of a tall slice over one
 * warp (lanes down the rows), at ragged sizes (the slice reads 0 outside). */
static void t_ir_more5(Tally *T) {
  static const int MN[][2] = {{200, 100}, {5, 300}};
  for (int c = 0; c < 2; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("ir_more_tall", (uint64_t)c);
    Call k;
    call_init(&k, "tall_rows.tl", "tall_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    Ten *A = call_out(&k, "A", I32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double s = 0, mx = -1e30;
      int arg = 0;
      for (int j = 0; j < 256; j++) {
        double t = j < N ? A2(X, i, j) : 0;
        s += t;
        if (t > mx) mx = t, arg = j;
      }
      R2(S, i, 0) = s, R2(A, i, 0) = arg;
    }
    char l[64];
    label(l, sizeof l, "tall_rows M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "tall_rows", l));
    call_free(&k);
  }
}

/* shared_home: values too large for registers in their shared copies (tiles
 * 32 x 256, 64 x 64 and 64 x 128; ragged sizes leave rows and columns out). */
static void t_shared_home(Tally *T) {
  static const struct { int M, N; } rc[] = {{64, 256}, {150, 200}, {7, 3}};
  for (int c = 0; c < 3; c++) {
    int M = rc[c].M, N = rc[c].N;
    Rng r = rng_seed("shared_home_rows", (uint64_t)c);
    Call k;
    call_init(&k, "shared_home.tl", "home_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *R = call_out(&k, "R", F32, 2, SHAPE(M, 1));
    Ten *A = call_out(&k, "A", I32, 2, SHAPE(M, 1));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(1, N));
    Ten *Z = call_out(&k, "Z", F32, 2, SHAPE(M, N));
    Ten *Q = call_out(&k, "Q", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double q = 0;
      for (int j = 0; j < N; j++) R2(Z, i, j) = 3 * A2(X, i, j), q += A2(X, i, j);
      R2(Q, i, 0) = q;
    }
    S->init = calloc((size_t)S->n, sizeof(double));
    for (int j = 0; j < N; j++) S->init[j] = rng_uniform(&r, -1, 1), R2(S, 0, j) = S->init[j];
    int blocks = (int)cdivll(M, 32);
    for (int b = 0; b < blocks; b++)
      for (int i = b * 32; i < b * 32 + 32; i++) {
        double s = 0, mx = -1e30;
        int arg = 0;
        for (int j = 0; j < 256; j++) { /* outside the tensor the slices read 0 */
          double t = i < M && j < N ? A2(X, i, j) : 0, w = j < N ? W->v[j] : 0, u = t * w + 1;
          s += u;
          if (t > mx) mx = t, arg = j;
          if (i < M && j < N) R2(Y, i, j) = u - t * 0.5;
          if (j < N) R2(S, 0, j) += u;
        }
        if (i < M) R2(R, i, 0) = s + mx, R2(A, i, 0) = arg;
      }
    char l[64];
    label(l, sizeof l, "home_rows M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "shared_home", l));
    call_free(&k);
  }
  static const struct { int M, K; } lc[] = {{64, 128}, {100, 150}, {5, 9}, {64, 320}, {70, 200}, {3, 64}};
  for (int c = 0; c < 6; c++) { /* home_loop, then home_pipe (@pipeline) */
    int M = lc[c].M, K = lc[c].K;
    const char *kernel = c < 3 ? "home_loop" : "home_pipe";
    Rng r = rng_seed("shared_home_loop", (uint64_t)c);
    Call k;
    call_init(&k, "shared_home.tl", kernel);
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, K));
    Ten *Tt = call_out(&k, "T", F32, 2, SHAPE(64, M));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double s = 0;
      for (int j = 0; j < 64; j++) { /* T[j, i] = transpose(acc) + c: 3 x the sum over k0 of X[i, k0 + j] */
        double x = 0;
        for (int k0 = 0; k0 + j < K; k0 += 64) x += A2(X, i, k0 + j);
        R2(Tt, j, i) = 3 * x;
      }
      for (int q = 0; q < K; q++) s += 2 * A2(X, i, q);
      R2(S, i, 0) = s;
    }
    char l[64];
    label(l, sizeof l, "%s M=%d K=%d", kernel, M, K);
    CHECK(T, call_check(&k, "shared_home", l));
    call_free(&k);
  }
  for (int c = 0; c < 3; c++) {
    int M = lc[c].M, K = lc[c].K;
    Rng r = rng_seed("shared_home_fused", (uint64_t)c);
    Call k;
    call_init(&k, "shared_home.tl", "home_fused_pipe");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, K));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double s = 0;
      for (int q = 0; q < K; q++) s += A2(X, i, q);
      R2(S, i, 0) = s;
    }
    char l[64];
    label(l, sizeof l, "home_fused_pipe M=%d K=%d", M, K);
    CHECK(T, call_check(&k, "shared_home", l));
    call_free(&k);
  }
  static const int Ns[] = {128, 300, 17};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("shared_home_budget", (uint64_t)c);
    Call k;
    call_init(&k, "shared_home.tl", "home_budget");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(64, N));
    Ten *B = call_in(&k, "B", F32, 2, SHAPE(64, N));
    Ten *C = call_in(&k, "C", F32, 2, SHAPE(64, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(64, N));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(16));
    Ten *D = call_out(&k, "D", F32, 2, SHAPE(32, 1));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(C, &r, -1, 1);
    for (int i = 0; i < 16; i++) I->v[i] = 2 * i + (c & 1); /* distinct rows of D */
    for (int i = 0; i < 64; i++)
      for (int j = 0; j < N; j++) {
        double a = A2(A, i, j), b = A2(B, i, j);
        R2(O, i, j) = A2(C, i, j) + a * b + a + b;
      }
    for (int i = 0; i < 16; i++) R2(D, (int)I->v[i], 0) = i < N ? A2(A, 0, i) : 0;
    char l[64];
    label(l, sizeof l, "home_budget N=%d", N);
    CHECK(T, call_check(&k, "shared_home", l));
    call_free(&k);
  }
}

/* dot_cuda_cores: an f16 dot of a [16, 16] accumulator over 4 warps and an i8
 * dot of k 16, both on the CUDA cores (tile 16 x 16 x 16; ragged sizes). */
static void t_dot_cuda_cores(Tally *T) {
  static const int MNK[][3] = {{16, 16, 16}, {13, 9, 11}, {1, 16, 5}};
  for (int c = 0; c < 6; c++) {
    int M = MNK[c / 2][0], N = MNK[c / 2][1], K = MNK[c / 2][2];
    bool i8 = c % 2;
    Rng r = rng_seed("dot_cuda_cores", (uint64_t)c);
    Call k;
    call_init(&k, "dot_cuda_cores.tl", i8 ? "dot_cc_i8" : "dot_cc_f16");
    Ten *A = call_in(&k, i8 ? "X" : "A", i8 ? I8 : F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, i8 ? "Y" : "B", i8 ? I8 : F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, i8 ? "Z" : "C", i8 ? I32 : F32, 2, SHAPE(M, N));
    fill_operands(A, B, &r, i8);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, kk, j);
        R2(C, i, j) = s;
      }
    if (!i8) C->tol = 1e-5; /* f16 products are exact in f32 */
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d", i8 ? "i8" : "f16", M, N, K);
    CHECK(T, call_check(&k, "dot_cuda_cores", l));
    call_free(&k);
  }
}

static void t_regs16(Tally *T) {
  static const int Ms[] = {64, 37, 200};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("regs16", (uint64_t)c);
    Call k;
    call_init(&k, "regs16.tl", "regs16");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 16));
    Ten *RS = call_out(&k, "RS", F32, 2, SHAPE(M, 1));
    Ten *RX = call_out(&k, "RX", F32, 2, SHAPE(M, 1));
    Ten *RN = call_out(&k, "RN", F32, 2, SHAPE(M, 1));
    Ten *CS = call_out(&k, "CS", F32, 2, SHAPE(1, 16));
    Ten *CX = call_out(&k, "CX", F32, 2, SHAPE(1, 16));
    Ten *CN = call_out(&k, "CN", F32, 2, SHAPE(1, 16));
    Ten *Tt = call_out(&k, "T", F32, 1, SHAPE(1));
    fill_uniform(X, &r, -2, 2);
    for (int i = 0; i < M; i++) {
      double s = 0, mx = -INFINITY, mn = INFINITY;
      for (int j = 0; j < 16; j++) {
        double a = A2(X, i, j) * 2 + 1;
        s += a, mx = dmax(mx, a), mn = dmin(mn, a);
      }
      RS->ref[i] = s, RX->ref[i] = mx, RN->ref[i] = mn;
    }
    /* block 0's 64 rows; rows past M read as 0, so acc = 1 there */
    double tot = 0;
    for (int j = 0; j < 16; j++) {
      double s = 0, mx = -INFINITY, mn = INFINITY;
      for (int i = 0; i < 64; i++) {
        double a = (i < M ? A2(X, i, j) : 0) * 2 + 1;
        s += a, mx = dmax(mx, a), mn = dmin(mn, a);
      }
      CS->ref[j] = s, CX->ref[j] = mx, CN->ref[j] = mn, tot += s;
    }
    Tt->ref[0] = tot;
    char l[64];
    label(l, sizeof l, "M=%d (64x16 tile)", M);
    CHECK(T, call_check(&k, "reduce_registers_f32", l));
    call_free(&k);
  }
}

static void t_regs32(Tally *T) {
  Rng r = rng_seed("regs32", 0);
  Call k;
  call_init(&k, "regs_i32_32.tl", "regs_i32_32");
  Ten *W = call_in(&k, "W", I32, 2, SHAPE(8, 32));
  Ten *V = call_in(&k, "V", F32, 2, SHAPE(128, 4));
  Ten *WS = call_out(&k, "WS", I32, 2, SHAPE(8, 1));
  Ten *WX = call_out(&k, "WX", I32, 2, SHAPE(8, 1));
  Ten *WN = call_out(&k, "WN", I32, 2, SHAPE(8, 1));
  Ten *VS = call_out(&k, "VS", F32, 2, SHAPE(128, 1));
  Ten *VX = call_out(&k, "VX", F32, 2, SHAPE(128, 1));
  Ten *VN = call_out(&k, "VN", F32, 2, SHAPE(128, 1));
  fill_int(W, &r, -100000, 100000);
  fill_uniform(V, &r, -3, 3);
  for (int i = 0; i < 8; i++) {
    double s = 0, mx = -INFINITY, mn = INFINITY;
    for (int j = 0; j < 32; j++) {
      double a = A2(W, i, j) * 3 - 1;
      s += a, mx = dmax(mx, a), mn = dmin(mn, a);
    }
    WS->ref[i] = s, WX->ref[i] = mx, WN->ref[i] = mn;
  }
  for (int i = 0; i < 128; i++) {
    double s = 0, mx = -INFINITY, mn = INFINITY;
    for (int j = 0; j < 4; j++) {
      double a = A2(V, i, j) * A2(V, i, j);
      s += a, mx = dmax(mx, a), mn = dmin(mn, a);
    }
    VS->ref[i] = s, VX->ref[i] = mx, VN->ref[i] = mn;
  }
  CHECK(T, call_check(&k, "reduce_registers_i32_w32", "8x32 i32, 128x4 f32"));
  call_free(&k);
}

/* ------------------------------------------------------------ dot */

static void t_dot_lowp(Tally *T, Dt dt) {
  static const int MNK[][3] = {{37, 50, 200}, {64, 64, 64}, {5, 3, 7}, {33, 32, 100}};
  const char *name = dt == F16 ? "dot_f16" : "dot_bf16";
  for (int c = 0; c < 4; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed(name, (uint64_t)c);
    Call k;
    call_init(&k, dt == F16 ? "dot_f16.tl" : "dot_bf16.tl", name);
    Ten *A = call_in(&k, "A", dt, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", dt, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    Ten *C2 = call_out(&k, dt == F16 ? "C16" : "CB", dt, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, C, M, N, K, 1);
    for (long long i = 0; i < C->n; i++) C2->ref[i] = C->ref[i];
    /* the f32 accumulation of exactly representable products: f32 accuracy */
    C->tol = 1e-5;
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, name, l));
    call_free(&k);
  }
}
static void t_dot_f16(Tally *T) { t_dot_lowp(T, F16); }
static void t_dot_bf16(Tally *T) { t_dot_lowp(T, BF16); }

static void t_dot_f32_shared(Tally *T) {
  static const int MNK[][3] = {{37, 50, 200}, {32, 32, 32}, {3, 2, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("dot_f32_shared", (uint64_t)c);
    double scale = round_dt(F32, rng_uniform(&r, 0.1, 3));
    Call k;
    call_init(&k, "dot_f32_shared.tl", "dot_f32_shared");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F32, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    call_arg(&k, "scale=%.9g", scale);
    gemm_ref(A, B, C, M, N, K, scale);
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "dot_f32_shared_acc", l));
    call_free(&k);
  }
}

static void t_dot_abt(Tally *T) {
  static const int MNK[][3] = {{37, 50, 200}, {16, 32, 16}, {2, 3, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("dot_abt", (uint64_t)c);
    Call k;
    call_init(&k, "dot_abt.tl", "dot_abt");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F32, 2, SHAPE(N, K));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, j, kk);
        R2(C, i, j) = s;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "dot_transposed_b", l));
    call_free(&k);
  }
}

/* atomics: a histogram (element atomics under thread-dependent control) and
 * every block folding its 4 rows of Y into CS (+), MX (max) and MN (min): the
 * references start from the outputs' initial contents */
static void t_atomics(Tally *T) {
  static const int NR[][2] = {{1000, 30}, {129, 9}, {1, 1}};
  for (int c = 0; c < 3; c++) {
    int N = NR[c][0], R = NR[c][1], G = (N + 127) / 128;
    Rng r = rng_seed("atomics", (uint64_t)c);
    Call k;
    call_init(&k, "atomics.tl", "atomics");
    Ten *X = call_in(&k, "X", I32, 1, SHAPE(N));
    Ten *Y = call_in(&k, "Y", F32, 2, SHAPE(R, 32));
    Ten *H = call_out(&k, "H", I32, 1, SHAPE(16));
    Ten *CS = call_out(&k, "CS", F32, 1, SHAPE(32));
    Ten *MX = call_out(&k, "MX", F32, 2, SHAPE(4, 32));
    Ten *MN = call_out(&k, "MN", I32, 2, SHAPE(4, 32));
    Ten *RS = call_out(&k, "RS", F32, 1, SHAPE(R));
    fill_int(X, &r, 0, 1000);
    fill_uniform(Y, &r, -2, 2);
    Ten *outs[] = {H, CS, MX, MN};
    for (int o = 0; o < 4; o++) outs[o]->init = calloc((size_t)outs[o]->n, sizeof(double));
    for (int j = 0; j < 32; j++) CS->init[j] = rng_uniform(&r, -1, 1);
    for (int e = 0; e < 128; e++) MX->init[e] = rng_uniform(&r, -1, 3), MN->init[e] = (double)rng_int(&r, -300, 300);
    for (int o = 0; o < 4; o++)
      for (long long e = 0; e < outs[o]->n; e++) outs[o]->ref[e] = outs[o]->init[e];
    for (int i = 0; i < N; i++) H->ref[(int)X->v[i] % 16] += 1;
    for (int b = 0; b < G; b++)
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 32; j++) {
          int row = 4 * b + i;
          float y = row < R ? (float)A2(Y, row, j) : 0.0f; /* rows past R read 0 */
          CS->ref[j] += y;
          R2(MX, i, j) = R2(MX, i, j) < y ? y : R2(MX, i, j);
          double m = (double)(int)(y * 100.0f);
          R2(MN, i, j) = m < R2(MN, i, j) ? m : R2(MN, i, j);
        }
    for (int i = 0; i < R; i++) {
      double s = 0;
      for (int j = 0; j < 32; j++) s += A2(Y, i, j);
      RS->ref[i] = i < 4 * G ? s : NAN; /* rows no block takes stay unwritten */
    }
    char l[64];
    label(l, sizeof l, "N=%d R=%d", N, R);
    CHECK(T, call_check(&k, "atomics", l));
    call_free(&k);
  }
}

/* atomics hist_loop: one block, atomic_adds under thread-dependent ifs in a loop (no
 * barrier between them), H read back after the loop into G */
static void t_atomics_loop(Tally *T) {
  static const int Ns[] = {1000, 129, 64, 1};
  for (int c = 0; c < 4; c++) {
    int N = Ns[c];
    Rng r = rng_seed("atomics_loop", (uint64_t)c);
    Call k;
    call_init(&k, "atomics.tl", "hist_loop");
    Ten *X = call_in(&k, "X", I32, 1, SHAPE(N));
    Ten *H = call_out(&k, "H", I32, 1, SHAPE(16));
    Ten *G = call_out(&k, "G", I32, 1, SHAPE(16));
    fill_int(X, &r, 0, 1000);
    H->init = calloc(16, sizeof(double));
    for (int e = 0; e < 16; e++) H->ref[e] = H->init[e] = (double)rng_int(&r, 0, 5);
    for (int i = 0; i < N; i++) {
      H->ref[(int)X->v[i] % 16] += 1;
      if (i + 64 < N && (int)X->v[i] % 2 == 0) H->ref[(int)X->v[i + 64] % 16] += 2;
    }
    for (int e = 0; e < 16; e++) G->ref[e] = H->ref[e];
    char l[64];
    label(l, sizeof l, "hist_loop N=%d", N);
    CHECK(T, call_check(&k, "atomics", l));
    call_free(&k);
  }
}

/* atomics argmin_counts: atomic_add at a rowargmin's indices, in the index's replicated
 * layout (its first replica updates) */
static void t_atomics_argmin(Tally *T) {
  static const int Ms[] = {200, 64, 3};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], G = (M + 63) / 64;
    Rng r = rng_seed("atomics_argmin", (uint64_t)c);
    Call k;
    call_init(&k, "atomics.tl", "argmin_counts");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *H = call_out(&k, "H", I32, 1, SHAPE(64));
    fill_uniform(X, &r, -1, 1);
    H->init = calloc(64, sizeof(double));
    for (int e = 0; e < 64; e++) H->ref[e] = H->init[e] = (double)rng_int(&r, 0, 3);
    for (int i = 0; i < M; i++) {
      int b = 0;
      for (int j = 1; j < 64; j++)
        if (A2(X, i, j) < A2(X, i, b)) b = j;
      H->ref[b] += 1;
    }
    H->ref[0] += 64 * G - M; /* rows past M: all 0, the first column the least */
    char l[64];
    label(l, sizeof l, "argmin_counts M=%d", M);
    CHECK(T, call_check(&k, "atomics", l));
    call_free(&k);
  }
}

/* atomics hist_u8: a grid-stride u8 histogram whose indices need no bounds check */
static void t_atomics_u8(Tally *T) {
  static const int Ns[] = {5000, 384, 7};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("atomics_u8", (uint64_t)c);
    Call k;
    call_init(&k, "atomics.tl", "hist_u8");
    Ten *X = call_in(&k, "X", U8, 1, SHAPE(N));
    Ten *H = call_out(&k, "H", I32, 1, SHAPE(256)), *L = call_out(&k, "L", I32, 1, SHAPE(16));
    fill_int(X, &r, 0, 255);
    H->init = calloc(256, sizeof(double));
    L->init = calloc(16, sizeof(double));
    for (int e = 0; e < 256; e++) H->ref[e] = H->init[e] = (double)rng_int(&r, 0, 3);
    for (int e = 0; e < 16; e++) L->ref[e] = L->init[e] = 0;
    for (int i = 0; i < N; i++) H->ref[(int)X->v[i]] += 1, L->ref[(int)X->v[i] * 7 & 15] += 2;
    char l[64];
    label(l, sizeof l, "hist_u8 N=%d", N);
    CHECK(T, call_check(&k, "atomics", l));
    call_free(&k);
  }
}

/* atomic_zeros: float atomic_min / atomic_max over signed zeros take -0.0 as
 * the lesser (checked by the sign bits of the results, which the tolerance
 * of call_check cannot see), in whatever order the blocks come */
static void t_atomic_zeros(Tally *T) {
  static const int Ns[] = {1000, 77, 1};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("atomic_zeros", (uint64_t)c);
    Call k;
    call_init(&k, "atomic_zeros.tl", "atomic_zeros");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *D = call_in(&k, "D", F64, 1, SHAPE(N));
    Ten *Z = call_out(&k, "Z", F32, 1, SHAPE(2));
    Ten *ZD = call_out(&k, "ZD", F64, 1, SHAPE(2));
    bool neg = false, pos = false; /* which signs X holds */
    for (int i = 0; i < N; i++) {
      X->v[i] = rng_int(&r, 0, 1) ? -0.0 : 0.0, D->v[i] = -X->v[i];
      neg |= signbit(X->v[i]) != 0, pos |= signbit(X->v[i]) == 0;
    }
    Ten *outs[] = {Z, ZD};
    for (int o = 0; o < 2; o++) {
      outs[o]->init = calloc(2, sizeof(double));
      outs[o]->init[0] = 0.0, outs[o]->init[1] = -0.0;
      outs[o]->ref[0] = outs[o]->ref[1] = 0.0;
    }
    char l[64];
    label(l, sizeof l, "N=%d", N);
    bool ok = call_check(&k, "atomic_zeros", l);
    /* the min is -0.0 when any value is, the max 0.0 when any value is (D holds X's negations) */
    bool want_z0 = neg, want_z1 = !pos, want_d0 = pos, want_d1 = !neg; /* sign bits */
    if (ok && !k.same && ((signbit(Z->v[0]) != 0) != want_z0 || (signbit(Z->v[1]) != 0) != want_z1 ||
               (signbit(ZD->v[0]) != 0) != want_d0 || (signbit(ZD->v[1]) != 0) != want_d1)) {
      printf("  %-26s %-34s sign bits Z {%d, %d}, ZD {%d, %d}; want {%d, %d}, {%d, %d}   FAIL\n", "atomic_zeros", l,
             signbit(Z->v[0]) != 0, signbit(Z->v[1]) != 0, signbit(ZD->v[0]) != 0, signbit(ZD->v[1]) != 0, want_z0,
             want_z1, want_d0, want_d1);
      ok = false;
    }
    CHECK(T, ok);
    call_free(&k);
  }
}

/* dot_bcast: a one-row (one-column) product broadcast over a whole product's tile */
static void t_dot_bcast(Tally *T) {
  static const int Ms[] = {16, 37, 5};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], G = (M + 15) / 16;
    Rng r = rng_seed("dot_bcast", (uint64_t)c);
    Call k;
    call_init(&k, "dot_bcast.tl", "dot_bcast");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, 16));
    Ten *B = call_in(&k, "B", F32, 2, SHAPE(16, 16));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 16));
    Ten *P = call_out(&k, "P", F32, 2, SHAPE(M, 16));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int b = 0; b < G; b++)
      for (int i = 0; i < 16 && 16 * b + i < M; i++) {
        int m = 16 * b + i;
        for (int j = 0; j < 16; j++) {
          double first = 0, whole = 0, col = 0;
          for (int q = 0; q < 16; q++) {
            first += A2(A, 16 * b, q) * A2(B, q, j);
            whole += A2(A, m, q) * A2(B, q, j);
            col += A2(A, m, q) * A2(B, q, 0);
          }
          R2(O, m, j) = first + whole;
          R2(P, m, j) = col + whole;
        }
      }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "dot_bcast", l));
    call_free(&k);
  }
}

/* dot_vector (tests/gpu/dot_vector.tl): dots of one row or one column, lowered as
 * reductions; K ragged (slices past K read 0), N and M past one block and inside
 * one. Each case runs one kernel (c % 7) at one size (c / 7); references in double
 * from the rounded inputs. */
static void t_dot_vector(Tally *T) {
  static const char *const kn[] = {"gemv_row", "gemv_col", "row_i8", "row_f8", "row_t", "col_t", "vdot", "row_bt", "col_at"};
  static const int KN[][3] = {{200, 300, 37}, {64, 100, 5}}; /* K, N, M */
  for (int c = 0; c < 18; c++) {
    int w = c % 9, K = KN[c / 9][0], N = KN[c / 9][1], M = KN[c / 9][2];
    if (w == 2) K = c < 9 ? 90 : 96;  /* row_i8 reads 96 of K */
    if (w == 3) K = c < 9 ? 50 : 64;  /* row_f8: 64 */
    if (w == 4) K = c < 9 ? 45 : 48;  /* row_t: 48 */
    if (w == 5) K = c < 9 ? 33 : 40;  /* col_t: 40 */
    if (w == 6) K = c < 9 ? 250 : 256; /* vdot: 256 */
    if (w == 7) K = c < 9 ? 120 : 128; /* row_bt: 128 */
    if (w == 8) K = c < 9 ? 45 : 48;  /* col_at: 48 */
    Rng r = rng_seed("dot_vector", (uint64_t)c);
    Call k;
    call_init(&k, "dot_vector.tl", kn[w]);
    Ten *O = NULL;
    if (w == 0) {
      Ten *X = call_in(&k, "X", F16, 2, SHAPE(1, K)), *W = call_in(&k, "W", F16, 2, SHAPE(K, N));
      O = call_out(&k, "Y", F16, 2, SHAPE(1, N));
      fill_uniform(X, &r, -1, 1);
      fill_uniform(W, &r, -1, 1);
      for (int n = 0; n < N; n++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += X->v[q] * A2(W, q, n);
        O->ref[n] = round_dt(F16, a);
      }
    } else if (w == 1) {
      Ten *A = call_in(&k, "A", BF16, 2, SHAPE(M, K)), *X = call_in(&k, "X", BF16, 2, SHAPE(K, 1));
      O = call_out(&k, "Y", F32, 2, SHAPE(M, 1));
      fill_uniform(A, &r, -1, 1);
      fill_uniform(X, &r, -1, 1);
      for (int m = 0; m < M; m++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += A2(A, m, q) * X->v[q];
        O->ref[m] = a;
      }
    } else if (w == 2) {
      Ten *X = call_in(&k, "X", I8, 2, SHAPE(1, K)), *W = call_in(&k, "W", I8, 2, SHAPE(K, N));
      O = call_out(&k, "Y", I32, 2, SHAPE(1, N));
      fill_int(X, &r, -128, 127);
      fill_int(W, &r, -128, 127);
      for (int n = 0; n < N; n++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += X->v[q] * A2(W, q, n);
        O->ref[n] = a;
      }
      O->tol = 0;
    } else if (w == 3) {
      Ten *X = call_in(&k, "X", F8E4M3, 2, SHAPE(1, K)), *W = call_in(&k, "W", F8E4M3, 2, SHAPE(K, N));
      O = call_out(&k, "Y", F32, 2, SHAPE(1, N));
      fill_uniform(X, &r, -4, 4);
      fill_uniform(W, &r, -4, 4);
      call_arg(&k, "s=0.5");
      for (int n = 0; n < N; n++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += X->v[q] * A2(W, q, n);
        O->ref[n] = a * 0.5;
      }
    } else if (w == 4) {
      Ten *X = call_in(&k, "XT", F32, 2, SHAPE(K, 1)), *W = call_in(&k, "W", F32, 2, SHAPE(K, N));
      O = call_out(&k, "Y", F32, 2, SHAPE(1, N));
      fill_uniform(X, &r, -1, 1);
      fill_uniform(W, &r, -1, 1);
      for (int n = 0; n < N; n++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += X->v[q] * A2(W, q, n);
        O->ref[n] = a * 2 + 1;
      }
    } else if (w == 5) {
      Ten *A = call_in(&k, "A", F64, 2, SHAPE(M, K)), *V = call_in(&k, "V", F64, 2, SHAPE(1, K));
      O = call_out(&k, "Y", F64, 2, SHAPE(M, 1));
      fill_uniform(A, &r, -1, 1);
      fill_uniform(V, &r, -1, 1);
      for (int m = 0; m < M; m++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += A2(A, m, q) * V->v[q];
        O->ref[m] = a;
      }
    } else if (w == 7) {
      Ten *Q = call_in(&k, "Q", F16, 2, SHAPE(1, K)), *KT = call_in(&k, "KT", F16, 2, SHAPE(N, K));
      O = call_out(&k, "S", F32, 2, SHAPE(1, N));
      fill_uniform(Q, &r, -1, 1);
      fill_uniform(KT, &r, -1, 1);
      for (int n = 0; n < N; n++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += Q->v[q] * A2(KT, n, q);
        O->ref[n] = a;
      }
    } else if (w == 8) {
      Ten *Z = call_in(&k, "Z", BF16, 2, SHAPE(K, M)), *X = call_in(&k, "X", BF16, 2, SHAPE(K, 1));
      O = call_out(&k, "Y", F32, 2, SHAPE(M, 1));
      fill_uniform(Z, &r, -1, 1);
      fill_uniform(X, &r, -1, 1);
      for (int m = 0; m < M; m++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += A2(Z, q, m) * X->v[q];
        O->ref[m] = a - 1;
      }
    } else {
      Ten *U = call_in(&k, "U", F16, 2, SHAPE(1, K)), *V = call_in(&k, "V", F16, 2, SHAPE(K, 1));
      O = call_out(&k, "D", F32, 2, SHAPE(1, 1));
      fill_uniform(U, &r, -1, 1);
      fill_uniform(V, &r, -1, 1);
      double a = 0;
      for (int q = 0; q < K; q++) a += U->v[q] * V->v[q];
      O->ref[0] = a;
    }
    if (w != 2) O->etol = w == 5 ? 1e-12 : w == 0 ? 2e-3 : 1e-5;
    char l[64];
    label(l, sizeof l, "%s K=%d N=%d M=%d", kn[w], K, N, M);
    CHECK(T, call_check(&k, "dot_vector", l));
    call_free(&k);
  }
}

/* dot_vecmat (tests/gpu/dot_vecmat.tl): a vector-matrix dot whose A row is read as a
 * run (k0 + rows(64, 1)): ragged K, N and M without @assume (the run's kept test reads
 * 0 past K), and K, N multiples of 64 with it (no test; M still ragged). */
static void t_dot_vecmat(Tally *T) {
  static const int KNM[][3] = {{200, 100, 3}, {37, 65, 2}, {1, 1, 1}, {256, 192, 5}, {64, 64, 1}};
  for (int c = 0; c < 5; c++) {
    int K = KNM[c][0], N = KNM[c][1], M = KNM[c][2];
    bool assume = c >= 3;
    Rng r = rng_seed("dot_vecmat", (uint64_t)c);
    Call k;
    call_init(&k, "dot_vecmat.tl", assume ? "vecmat_assume" : "vecmat");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, K)), *B = call_in(&k, "B", F32, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double a = 0;
        for (int q = 0; q < K; q++) a += A2(A, m, q) * A2(B, q, n);
        R2(C, m, n) = a;
      }
    C->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "%s K=%d N=%d M=%d", assume ? "assume" : "ragged", K, N, M);
    CHECK(T, call_check(&k, "dot_vecmat", l));
    call_free(&k);
  }
}

/* dot_window_vec (tests/gpu/dot_window_vec.tl): vector-matrix dots whose vector is a
 * row (f16, of a @registers tile, at column 16) or a column of a tile var, read from
 * the tile's own copy; rows of X and columns of XT past M read 0, W's and V's past N 0 */
static void t_dot_window_vec(Tally *T) {
  static const int MN[][2] = {{37, 100}, {16, 64}, {5, 3}, {50, 130}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("dot_window_vec", (uint64_t)c);
    Call k;
    call_init(&k, "dot_window_vec.tl", "dot_window_vec");
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, 96)), *W = call_in(&k, "W", F16, 2, SHAPE(64, N));
    Ten *V = call_in(&k, "V", F32, 2, SHAPE(N, 64)), *XT = call_in(&k, "XT", F32, 2, SHAPE(64, M));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N)), *Z = call_out(&k, "Z", F32, 2, SHAPE(N, M));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    fill_uniform(V, &r, -1, 1);
    fill_uniform(XT, &r, -1, 1);
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double y = 0, z = 0;
        for (int q = 0; q < 64; q++) y += A2(X, m, 16 + q) * A2(W, q, n), z += A2(V, n, q) * A2(XT, q, m);
        R2(Y, m, n) = y;
        R2(Z, n, m) = z;
      }
    Y->etol = Z->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "dot_window_vec", l));
    call_free(&k);
  }
}

/* rank1_col (tests/gpu/rank1_col.tl): a column [M, 1] assigned to a rank-1 tile var
 * [M] gives it the column's elements in order */
static void t_rank1_col(Tally *T) {
  static const int MN[][2] = {{37, 300}, {8, 128}, {3, 1}};
  for (int c = 0; c < 9; c++) {
    int w = c % 3, M = MN[c / 3][0], N = MN[c / 3][1];
    Rng r = rng_seed("rank1_col", (uint64_t)c);
    Call k;
    static const char *const kn[] = {"rowsums", "column", "rowscale"};
    call_init(&k, "rank1_col.tl", kn[w]);
    char l[64];
    if (w == 0) {
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
      Ten *O = call_out(&k, "O", F32, 1, SHAPE(M));
      fill_uniform(X, &r, -1, 1);
      for (int i = 0; i < M; i++) {
        double a = 0;
        for (int j = 0; j < N; j++) a += A2(X, i, j);
        O->ref[i] = a;
      }
      label(l, sizeof l, "rowsums M=%d N=%d", M, N);
    } else if (w == 2) {
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N)), *S = call_in(&k, "S", F32, 1, SHAPE(M));
      Ten *Tt = call_in(&k, "T", F32, 1, SHAPE(M));
      Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
      fill_uniform(X, &r, -1, 1);
      fill_uniform(S, &r, -1, 1);
      fill_uniform(Tt, &r, -1, 1);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) R2(Y, i, j) = A2(X, i, j) * S->v[i] + Tt->v[i];
      label(l, sizeof l, "rowscale M=%d N=%d", M, N);
    } else {
      Ten *X = call_in(&k, "X", I32, 2, SHAPE(M, 2)), *B = call_in(&k, "B", I32, 1, SHAPE(16));
      Ten *O = call_out(&k, "O", I32, 1, SHAPE(M));
      fill_int(X, &r, -1000, 1000);
      fill_int(B, &r, -1000, 1000);
      for (int i = 0; i < M; i++) O->ref[i] = 3 * A2(X, i, 0) + A2(X, i, 1) + B->v[i % 16];
      label(l, sizeof l, "column M=%d", M);
    }
    CHECK(T, call_check(&k, "rank1_col", l));
    call_free(&k);
  }
}

/* paged_pipeline (tests/gpu/paged_pipeline.tl): @pipeline loads at a block table's
 * entry for the loop variable, issued ahead */
static void t_paged_pipeline(Tally *T) {
  static const int Ls[][3] = {{37, 70, 1}, {16, 80, 33}, {5, 1, 64}};
  for (int c = 0; c < 6; c++) {
    int w = c % 2, B = 3, H = 2, NB = 13, MAXB = 6, D = 64;
    Rng r = rng_seed("paged_pipeline", (uint64_t)c);
    Call k;
    call_init(&k, "paged_pipeline.tl", w ? "scores" : "decode");
    Ten *KC = call_in(&k, "KC", F16, 4, SHAPE(NB, 16, H, D));
    Ten *BT = call_in(&k, "BT", I32, 2, SHAPE(B, MAXB)), *L = call_in(&k, "L", I32, 1, SHAPE(B));
    fill_uniform(KC, &r, -1, 1);
    fill_int(BT, &r, 0, NB - 1);
    for (int b = 0; b < B; b++) L->v[b] = Ls[c / 2][b];
#define KCAT(p, t, h, d) (KC->v[(((long long)(p) * 16 + (t)) * H + (h)) * D + (d)])
    char l[64];
    if (w == 0) {
      Ten *Q = call_in(&k, "Q", F16, 3, SHAPE(B, H, D)), *VC = call_in(&k, "VC", F16, 4, SHAPE(NB, 16, H, D));
      Ten *O = call_out(&k, "O", F32, 3, SHAPE(B, H, D));
      fill_uniform(Q, &r, -1, 1);
      fill_uniform(VC, &r, -1, 1);
      for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
          int len = (int)L->v[b];
          double sc[96], mx = -INFINITY, sum = 0;
          for (int t = 0; t < len; t++) {
            int pg = (int)A2(BT, b, t / 16);
            double a = 0;
            for (int d = 0; d < D; d++) a += Q->v[((long long)b * H + h) * D + d] * KCAT(pg, t % 16, h, d);
            sc[t] = a;
            mx = a > mx ? a : mx;
          }
          for (int t = 0; t < len; t++) sum += sc[t] = exp(sc[t] - mx);
          for (int d = 0; d < D; d++) {
            double a = 0;
            for (int t = 0; t < len; t++) {
              int pg = (int)A2(BT, b, t / 16);
              a += sc[t] * VC->v[(((long long)pg * 16 + t % 16) * H + h) * D + d];
            }
            O->ref[((long long)b * H + h) * D + d] = a / sum;
          }
        }
      label(l, sizeof l, "decode L=%d,%d,%d", (int)L->v[0], (int)L->v[1], (int)L->v[2]);
    } else {
      int N = MAXB * 16;
      Ten *Q = call_in(&k, "Q", F16, 4, SHAPE(B, H, 16, D));
      Ten *S = call_out(&k, "S", F32, 4, SHAPE(B, H, 16, N));
      fill_uniform(Q, &r, -1, 1);
      for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
          for (int i = 0; i < 16; i++)
            for (int t = 0; t < N; t++) {
              double a = NAN;
              if (t < (int)cdivll((long long)L->v[b], 16) * 16) {
                int pg = (int)A2(BT, b, t / 16);
                a = 0;
                for (int d = 0; d < D; d++) a += Q->v[(((long long)b * H + h) * 16 + i) * D + d] * KCAT(pg, t % 16, h, d);
              }
              S->ref[(((long long)b * H + h) * 16 + i) * N + t] = a;
            }
      label(l, sizeof l, "scores L=%d,%d,%d", (int)L->v[0], (int)L->v[1], (int)L->v[2]);
    }
#undef KCAT
    CHECK(T, call_check(&k, "paged_pipeline", l));
    call_free(&k);
  }
  for (int c = 0; c < 2; c++) { /* offset: m0 = 16 when n > 0, else 0 */
    int M = 40, K = 100, m0 = c ? 16 : 0;
    Rng r = rng_seed("paged_pipeline_offset", (uint64_t)c);
    Call k;
    call_init(&k, "paged_pipeline.tl", "offset");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, K)), *B = call_in(&k, "B", F32, 2, SHAPE(M, K));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(16, 32));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    call_arg(&k, "n=%d", c);
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 32; j++) {
        double a = 0;
        for (int k0 = 0; k0 + j < K; k0 += 32) a += A2(A, m0 + i, k0 + j) * A2(B, m0 + i, k0 + j);
        R2(C, i, j) = a;
      }
    char l[64];
    label(l, sizeof l, "offset n=%d", c);
    CHECK(T, call_check(&k, "paged_pipeline", l));
    call_free(&k);
  }
}

/* paged_decode (tests/gpu/paged_decode.tl): paged decoding attention with [1, 1] running
 * max and sum read where they are; ragged lengths, one of a single key */
static void t_paged_decode(Tally *T) {
  static const int Ls[][3] = {{37, 70, 1}, {16, 100, 33}};
  for (int c = 0; c < 2; c++) {
    int B = 3, H = 2, NB = 13, MAXB = 7, D = 128;
    double scale = 0.125;
    Rng r = rng_seed("paged_decode", (uint64_t)c);
    Call k;
    call_init(&k, "paged_decode.tl", "paged_decode");
    Ten *Q = call_in(&k, "Q", F16, 3, SHAPE(B, H, D));
    Ten *KC = call_in(&k, "KC", F16, 4, SHAPE(NB, 16, H, D)), *VC = call_in(&k, "VC", F16, 4, SHAPE(NB, 16, H, D));
    Ten *BT = call_in(&k, "BT", I32, 2, SHAPE(B, MAXB)), *L = call_in(&k, "L", I32, 1, SHAPE(B));
    Ten *O = call_out(&k, "O", F16, 3, SHAPE(B, H, D));
    fill_uniform(Q, &r, -1, 1);
    fill_uniform(KC, &r, -1, 1);
    fill_uniform(VC, &r, -1, 1);
    fill_int(BT, &r, 0, NB - 1);
    for (int b = 0; b < B; b++) L->v[b] = Ls[c][b];
    call_arg(&k, "scale=%g", scale);
    for (int b = 0; b < B; b++)
      for (int h = 0; h < H; h++) {
        int len = (int)L->v[b];
        double sc[112], mx = -INFINITY, sum = 0;
        for (int t = 0; t < len; t++) {
          long long pg = (long long)A2(BT, b, t / 16);
          double a = 0;
          for (int d = 0; d < D; d++)
            a += (double)(float)(Q->v[((long long)b * H + h) * D + d] * scale) * KC->v[((pg * 16 + t % 16) * H + h) * D + d];
          sc[t] = a;
          mx = a > mx ? a : mx;
        }
        for (int t = 0; t < len; t++) sum += sc[t] = exp(sc[t] - mx);
        for (int d = 0; d < D; d++) {
          double a = 0;
          for (int t = 0; t < len; t++) {
            long long pg = (long long)A2(BT, b, t / 16);
            a += sc[t] * VC->v[((pg * 16 + t % 16) * H + h) * D + d];
          }
          O->ref[((long long)b * H + h) * D + d] = a / sum;
        }
      }
    char l[64];
    label(l, sizeof l, "L=%d,%d,%d", Ls[c][0], Ls[c][1], Ls[c][2]);
    CHECK(T, call_check(&k, "paged_decode", l));
    call_free(&k);
  }
}

/* wgmma_two_rega (tests/gpu/wgmma_two_rega.tl): two register-A dots in one block, on
 * the default target and on sm_90a; p rounded to f16 as the dots' A operand is */
static void t_wgmma_two_rega(Tally *T) {
  static const int Ms[] = {100, 64, 7};
  for (int c = 0; c < 6; c++) {
    int M = Ms[c % 3];
    Rng r = rng_seed("wgmma_two_rega", (uint64_t)c);
    Call k;
    call_init(&k, "wgmma_two_rega.tl", "two");
    if (c >= 3) snprintf(k.target, sizeof k.target, "sm_90a");
    Ten *Pt = call_in(&k, "P", F16, 2, SHAPE(M, 64)), *B = call_in(&k, "B", F16, 2, SHAPE(64, 64));
    Ten *C = call_in(&k, "C", F16, 2, SHAPE(64, 64));
    Ten *O1 = call_out(&k, "O1", F32, 2, SHAPE(M, 64)), *O2 = call_out(&k, "O2", F32, 2, SHAPE(M, 64));
    fill_uniform(Pt, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(C, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double p[64], p1[64], p2[64];
      for (int j = 0; j < 64; j++) {
        double a = 0;
        for (int q = 0; q < 64; q++) a += A2(Pt, i, q) * A2(C, q, j);
        p[j] = a;
        p1[j] = round_dt(F16, (float)a);
        p2[j] = round_dt(F16, (float)a * 0.5f);
      }
      for (int j = 0; j < 64; j++) {
        double a1 = 0, a2 = 0;
        for (int q = 0; q < 64; q++) a1 += p1[q] * A2(B, q, j), a2 += p2[q] * A2(C, q, j);
        R2(O1, i, j) = a1;
        R2(O2, i, j) = a2;
      }
      (void)p;
    }
    O1->tol = O2->tol = 1e-3; /* p is f32 before its rounding: a last-bit difference moves one f16 */
    char l[64];
    label(l, sizeof l, "%s M=%d", c >= 3 ? "sm_90a" : "default", M);
    CHECK(T, call_check(&k, "wgmma_two_rega", l));
    call_free(&k);
  }
}

/* byte_runs (tests/gpu/byte_runs.tl): 1-byte tensors move 16-byte runs in the fast
 * body; sizes and starts that are not multiples of 16 take the general body (2-D) or
 * move the run past N element by element (rank 1). */
static void t_byte_runs(Tally *T) {
  for (int c = 0; c < 7; c++) {
    Rng r = rng_seed("byte_runs", (uint64_t)c);
    Call k;
    char l[80];
    if (c < 3) {
      static const int Ns[] = {6144, 5000, 4099};
      int N = Ns[c];
      call_init(&k, "byte_runs.tl", "inv");
      Ten *X = call_in(&k, "X", U8, 1, SHAPE(N));
      Ten *Y = call_out(&k, "Y", U8, 1, SHAPE(N));
      fill_int(X, &r, 1, 255); /* no 0: 255 is the u8 poison (unwritten) */
      for (int i = 0; i < N; i++) Y->ref[i] = 255 - X->v[i];
      label(l, sizeof l, "inv N=%d", N);
    } else {
      static const int MNC[][3] = {{19, 600, 0}, {20, 512, 16}, {9, 1000, 3}, {8, 256, 32}};
      int M = MNC[c - 3][0], N = MNC[c - 3][1], c0 = MNC[c - 3][2], W = N + c0;
      call_init(&k, "byte_runs.tl", "blend");
      Ten *A = call_in(&k, "A", U8, 2, SHAPE(M, W)), *B = call_in(&k, "B", I8, 2, SHAPE(M, N));
      Ten *Y = call_out(&k, "Y", U8, 2, SHAPE(M, N));
      fill_int(A, &r, 0, 255); /* (a >> 1) + (b & 15) <= 142: never the poison 255 */
      fill_int(B, &r, -128, 127);
      call_arg(&k, "c0=%d", c0);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          int a = (int)A2(A, i, c0 + j), b = (int)A2(B, i, j);
          R2(Y, i, j) = ((a >> 1) + (b & 15)) & 255; /* b & 15: the low 4 bits of b's two's complement */
        }
      label(l, sizeof l, "blend M=%d N=%d c0=%d", M, N, c0);
    }
    CHECK(T, call_check(&k, "byte_runs", l));
    call_free(&k);
  }
}

/* mixed_runs (tests/gpu/mixed_runs.tl): f16, f32 and i8 tensors in one kernel, each
 * f32 run of 8 moved in two 16-byte accesses. X's values are 256ths, W's and G's
 * eighths, so y = x * w + g is exact in f32 (fused or not) and i8(y * 4)
 * (truncated toward zero) is checked exactly. N % 8 != 0 takes the general body; N
 * a multiple of 8 but not of 64 the fast body with ragged runs. */
static void t_mixed_runs(Tally *T) {
  static const int MN[][2] = {{37, 50}, {16, 64}, {45, 136}, {5, 8}};
  for (int q = 0; q < 4; q++) {
    int M = MN[q][0], N = MN[q][1];
    Rng r = rng_seed("mixed_runs", (uint64_t)q);
    Call k;
    call_init(&k, "mixed_runs.tl", "mixed_runs");
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(M, N));
    Ten *G = call_in(&k, "G", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *Z = call_out(&k, "Z", F16, 2, SHAPE(M, N));
    Ten *Q = call_out(&k, "Q", I8, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    /* |y * 4| < 127: 127 is the harness's poison for i8 (saturation: cast_saturate) */
    for (long long i = 0; i < (long long)M * N; i++) X->v[i] = (double)rng_int(&r, -2048, 2048) / 256;
    for (long long i = 0; i < (long long)M * N; i++) W->v[i] = (double)rng_int(&r, -16, 16) / 8;
    for (int j = 0; j < N; j++) G->v[j] = (double)rng_int(&r, -32, 32) / 8;
    for (int i = 0; i < M; i++) {
      double sum = 0;
      for (int j = 0; j < N; j++) {
        double y = A2(X, i, j) * A2(W, i, j) + G->v[j], t = trunc(y * 4); /* |t| <= 96 */
        R2(Y, i, j) = y;
        R2(Z, i, j) = round_dt(F16, y * 0.5);
        R2(Q, i, j) = t;
        sum += y;
      }
      R2(S, i, 0) = sum;
    }
    Y->tol = Z->tol = Q->tol = 0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "mixed_runs", l));
    call_free(&k);
  }
}

/* mixed_runs_dot (tests/gpu/mixed_runs_dot.tl): an f32 dot on the CUDA cores whose
 * A is also summed, in runs of 8 (an f16 bias) and stored to its shared copy 16 bytes
 * at a time; ragged M, N, K, and K % 4 != 0 for the general body. */
static void t_mixed_runs_dot(Tally *T) {
  static const int MNK[][3] = {{45, 37, 70}, {64, 64, 96}, {45, 40, 72}, {7, 8, 4}};
  for (int q = 0; q < 4; q++) {
    int M = MNK[q][0], N = MNK[q][1], K = MNK[q][2];
    Rng r = rng_seed("mixed_runs_dot", (uint64_t)q);
    Call k;
    call_init(&k, "mixed_runs_dot.tl", "mixed_runs_dot");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F32, 2, SHAPE(K, N));
    Ten *Bi = call_in(&k, "Bias", F16, 2, SHAPE(M, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(Bi, &r, -4, 4);
    for (int i = 0; i < M; i++) {
      double sum = 0;
      for (int kk = 0; kk < K; kk++) sum += A2(A, i, kk);
      R2(S, i, 0) = sum;
      for (int j = 0; j < N; j++) {
        double c = A2(Bi, i, j);
        for (int kk = 0; kk < K; kk++) c += A2(A, i, kk) * A2(B, kk, j);
        R2(C, i, j) = c;
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "mixed_runs_dot", l));
    call_free(&k);
  }
}

/* gather_dot (tests/gpu/gather_dot.tl): a dot's A operand gathered by rows, X[r, k0 +
 * cols()], r loaded before the loop; rows of R past T read index 0 (their Y rows are
 * not stored). Ragged T, N and K; K % 8 != 0 takes the general body. */
static void t_gather_dot(Tally *T) {
  static const int TMNK[][4] = {{70, 50, 37, 45}, {64, 64, 64, 64}, {100, 9, 130, 96}, {3, 4, 5, 8}};
  for (int q = 0; q < 4; q++) {
    int Tn = TMNK[q][0], M = TMNK[q][1], N = TMNK[q][2], K = TMNK[q][3];
    Rng r = rng_seed("gather_dot", (uint64_t)q);
    Call k;
    call_init(&k, "gather_dot.tl", "gather_dot");
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, K));
    Ten *R = call_in(&k, "R", I32, 1, SHAPE(Tn));
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(K, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(Tn, N));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    fill_int(R, &r, 0, M - 1);
    for (int t = 0; t < Tn; t++)
      for (int j = 0; j < N; j++) {
        double y = 0;
        for (int kk = 0; kk < K; kk++) y += A2(X, (int)R->v[t], kk) * A2(W, kk, j);
        R2(Y, t, j) = y;
      }
    char l[64];
    label(l, sizeof l, "T=%d M=%d N=%d K=%d", Tn, M, N, K);
    CHECK(T, call_check(&k, "gather_dot", l));
    call_free(&k);
  }
}

/* gather_acc_shape_i8 / _f16 (tests/gpu/gather_acc_shape_*.tl): a dot's A operand
 * gathered by rows in the accumulator's shape, its index tile a slice of the gather's
 * layout, read from registers by each @pipeline iteration's cp.async (layout.c
 * gather_loose); indices -1 and T read zero rows; ragged R, N, K (fewer k blocks than
 * stages too); sm_90, sm_90a, sm_80. */
static void t_gather_acc_shape(Tally *T, bool i8) {
  static const int RTNK[][4] = {{70, 50, 37, 200}, {64, 64, 64, 64}, {130, 9, 100, 130}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  const char *name = i8 ? "gather_acc_shape_i8" : "gather_acc_shape_f16";
  for (int q = 0; q < 9; q++) {
    int Rn = RTNK[q % 3][0], Tn = RTNK[q % 3][1], N = RTNK[q % 3][2], K = RTNK[q % 3][3];
    Rng r = rng_seed(name, (uint64_t)q);
    Call k;
    char file[64];
    snprintf(file, sizeof file, "%s.tl", name);
    call_init(&k, file, i8 ? "gather_acc_i8" : "gather_acc_f16");
    snprintf(k.target, sizeof k.target, "%s", targets[q / 3]);
    Ten *X = call_in(&k, "X", i8 ? I8 : F16, 2, SHAPE(Tn, K));
    Ten *W = call_in(&k, "W", i8 ? I8 : F16, 2, SHAPE(N, K));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(Rn));
    Ten *O = call_out(&k, "O", i8 ? I32 : F32, 2, SHAPE(Rn, N));
    if (i8) {
      fill_int(X, &r, -128, 127);
      fill_int(W, &r, -128, 127);
    } else {
      fill_uniform(X, &r, -1, 1);
      fill_uniform(W, &r, -1, 1);
    }
    fill_int(I, &r, -1, Tn); /* -1 and Tn: out of X, zeros */
    for (int t = 0; t < Rn; t++)
      for (int j = 0; j < N; j++) {
        double y = 0;
        int x = (int)I->v[t];
        for (int kk = 0; x >= 0 && x < Tn && kk < K; kk++) y += A2(X, x, kk) * A2(W, j, kk);
        R2(O, t, j) = y;
      }
    char l[64];
    label(l, sizeof l, "%s R=%d T=%d N=%d K=%d", k.target, Rn, Tn, N, K);
    CHECK(T, call_check(&k, name, l));
    call_free(&k);
  }
}

static void t_gather_acc_shape_i8(Tally *T) { t_gather_acc_shape(T, true); }
static void t_gather_acc_shape_f16(Tally *T) { t_gather_acc_shape(T, false); }

/* gather_operand (tests/gpu/gather_operand.tl): S = Q x transpose(E[I[..]]), the B operand
 * gathered by rows in the accumulator's shape [64, 64] (a paged-KV prefill's scores); rows
 * of I past N read index 0 (their columns of S are not stored). Ragged M, N and D; D % 8 != 0
 * takes the general body. */
static void t_gather_operand(Tally *T) {
  static const int MNDR[][4] = {{70, 50, 72, 40}, {64, 128, 64, 64}, {100, 9, 130, 17}, {3, 4, 5, 8}};
  for (int q = 0; q < 4; q++) {
    int M = MNDR[q][0], N = MNDR[q][1], D = MNDR[q][2], Rn = MNDR[q][3];
    Rng r = rng_seed("gather_operand", (uint64_t)q);
    Call k;
    call_init(&k, "gather_operand.tl", "gather_operand");
    Ten *Q = call_in(&k, "Q", F16, 2, SHAPE(M, D));
    Ten *E = call_in(&k, "E", F16, 2, SHAPE(Rn, D));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, N));
    fill_uniform(Q, &r, -1, 1);
    fill_uniform(E, &r, -1, 1);
    fill_int(I, &r, 0, Rn - 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double y = 0;
        for (int kk = 0; kk < D; kk++) y += A2(Q, i, kk) * A2(E, (int)I->v[j], kk);
        R2(S, i, j) = y;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d D=%d R=%d", M, N, D, Rn);
    CHECK(T, call_check(&k, "gather_operand", l));
    call_free(&k);
  }
}

/* pipeline_index_var, pipeline_index_var_kept and pipeline_computed_index (tests/gpu): O = the sum over k < N (in
 * blocks of 32) of E[I[k], :] at row k % 32, the index tile a var at the top of a @pipeline
 * loop, var kk = k0 + rows(32, 1) (the third: transpose(k0 + cols(1, 32)) in place). Rows of I past N read index 0 (E's row 0 is added) unless
 * the kept kernel's where() drops them. Ragged N, R and D (past D nothing is stored); N < 32
 * (one iteration) and an exact N. */
static void t_pipeline_index_var(Tally *T, const char *name, bool kept) {
  static const int NRD[][3] = {{70, 50, 64}, {96, 13, 37}, {5, 3, 70}, {64, 4, 64}};
  for (int q = 0; q < 4; q++) {
    int N = NRD[q][0], Rn = NRD[q][1], D = NRD[q][2];
    Rng r = rng_seed(name, (uint64_t)q);
    Call k;
    char tl[64];
    snprintf(tl, sizeof tl, "%s.tl", name);
    call_init(&k, tl, name);
    Ten *E = call_in(&k, "E", F32, 2, SHAPE(Rn, D));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(32, D));
    fill_uniform(E, &r, -1, 1);
    fill_int(I, &r, 0, Rn - 1);
    for (int i = 0; i < 32; i++)
      for (int j = 0; j < D; j++) {
        double o = 0;
        for (int k0 = 0; k0 < N; k0 += 32) {
          int kk = k0 + i;
          if (kk < N || !kept) o += j < 64 ? A2(E, kk < N ? (int)I->v[kk] : 0, j) : 0;
        }
        R2(O, i, j) = j < 64 ? o : NAN;
      }
    char l[64];
    label(l, sizeof l, "N=%d R=%d D=%d", N, Rn, D);
    CHECK(T, call_check(&k, name, l));
    call_free(&k);
  }
}
/* pipeline_index_before (tests/gpu): Y = X[I] W, the index tile loaded before the @pipeline
 * loop and gathered through in it (its load issued ahead). Indices -1 and T read zero rows.
 * Ragged M, N, K (K % 8 == 0: the 16-byte body; not: the general one), one tile exactly, a
 * corner; on sm_90, sm_90a and sm_80. */
static void t_pipeline_index_before(Tally *T) {
  static const int MNKT[][4] = {{70, 100, 72, 50}, {64, 64, 64, 40}, {5, 3, 7, 9}, {130, 65, 100, 300}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int M = MNKT[c % 4][0], N = MNKT[c % 4][1], K = MNKT[c % 4][2], Tn = MNKT[c % 4][3];
    Rng r = rng_seed("pipeline_index_before", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_index_before.tl", "pipeline_index_before");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(Tn, K));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(M));
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(K, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    fill_int(I, &r, -1, Tn);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        int t = (int)I->v[i];
        double y = 0;
        for (int kk = 0; kk < K && t >= 0 && t < Tn; kk++) y += A2(X, t, kk) * A2(W, kk, j);
        R2(Y, i, j) = y;
      }
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d T=%d", targets[c / 4], M, N, K, Tn);
    CHECK(T, call_check(&k, "pipeline_index_before", l));
    call_free(&k);
  }
}
/* pipeline_gather_chain (tests/gpu): O = the sum of W's rows Idx[j], j < L rounded up to
 * 16 (rows past L read index 0, W's row 0), indices -1 and R reading zeros; the gather of W
 * indexed by the gather of Idx, both issued ahead. Ragged L (one iteration, two, several),
 * D under, at and past 128 (past it nothing is stored); on sm_90, sm_90a and sm_80. */
static void t_pipeline_gather_chain(Tally *T) {
  static const int LRD[][3] = {{70, 50, 100}, {5, 3, 128}, {32, 40, 130}, {200, 300, 64}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int L = LRD[c % 4][0], Rn = LRD[c % 4][1], D = LRD[c % 4][2];
    Rng r = rng_seed("pipeline_gather_chain", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_gather_chain.tl", "pipeline_gather_chain");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(Rn, D));
    Ten *I = call_in(&k, "Idx", I32, 1, SHAPE(L));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(1, D));
    fill_uniform(W, &r, -1, 1);
    fill_int(I, &r, -1, Rn);
    for (int j = 0; j < D; j++) {
      double o = 0;
      for (int i = 0; i < (L + 15) / 16 * 16; i++) {
        int t = i < L ? (int)I->v[i] : 0;
        o += t >= 0 && t < Rn && j < 128 ? A2(W, t, j) : 0;
      }
      R2(O, 0, j) = j < 128 ? o : NAN;
    }
    char l[64];
    label(l, sizeof l, "%s L=%d R=%d D=%d", targets[c / 4], L, Rn, D);
    CHECK(T, call_check(&k, "pipeline_gather_chain", l));
    call_free(&k);
  }
}
/* registers_fills_rolled (tests/gpu): an LSTM cell's gates, g = Bias[q H + j] + X Wx[:, q H + j]
 * + Hp Wh[:, q H + j] for q = 0 .. 3 (i, f, g, o), Cn = i f + g o; four @registers accumulators
 * and five rings a loop, their general body's fills copied by loops. Ragged B and H, I % 8 == 0
 * with H % 8 == 0 (the fast body) and not (the general one: I 100, H 50), one tile exactly, I and H
 * under one k step; on sm_80, sm_90 and sm_90a. */
static void t_registers_fills_rolled(Tally *T) {
  static const int BHI[][3] = {{70, 72, 96}, {70, 50, 100}, {64, 64, 64}, {5, 3, 7}};
  static const char *const targets[] = {"sm_80", "sm_90", "sm_90a"};
  for (int c = 0; c < 12; c++) {
    int B = BHI[c % 4][0], H = BHI[c % 4][1], I = BHI[c % 4][2], G = 4 * H;
    Rng r = rng_seed("registers_fills_rolled", (uint64_t)c);
    Call k;
    call_init(&k, "registers_fills_rolled.tl", "registers_fills_rolled");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(B, I));
    Ten *Hp = call_in(&k, "Hp", F16, 2, SHAPE(B, H));
    Ten *Wx = call_in(&k, "Wx", F16, 2, SHAPE(I, G));
    Ten *Wh = call_in(&k, "Wh", F16, 2, SHAPE(H, G));
    Ten *Bias = call_in(&k, "Bias", F32, 1, SHAPE(G));
    Ten *Cn = call_out(&k, "Cn", F32, 2, SHAPE(B, H));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(Hp, &r, -1, 1);
    fill_uniform(Wx, &r, -0.25, 0.25);
    fill_uniform(Wh, &r, -0.25, 0.25);
    fill_uniform(Bias, &r, -1, 1);
    for (int i = 0; i < B; i++)
      for (int j = 0; j < H; j++) {
        double g[4];
        for (int q = 0; q < 4; q++) {
          int col = q * H + j;
          g[q] = Bias->v[col];
          for (int kk = 0; kk < I; kk++) g[q] += A2(X, i, kk) * A2(Wx, kk, col);
          for (int kk = 0; kk < H; kk++) g[q] += A2(Hp, i, kk) * A2(Wh, kk, col);
        }
        R2(Cn, i, j) = g[0] * g[1] + g[2] * g[3];
      }
    char l[64];
    label(l, sizeof l, "%s B=%d H=%d I=%d", targets[c / 4], B, H, I);
    CHECK(T, call_check(&k, "registers_fills_rolled", l));
    call_free(&k);
  }
}

/* pipeline_invariant (tests/gpu): Y = X * G[b] + Bias, S = Y's column sums over the
 * iterations from t_lo (rows past T adding Bias: X reads 0 there), G and Bias loaded once
 * before the @pipeline loop. Ragged T and C (C % 8 == 0: the 16-byte body; not: the
 * general one), one tile exactly, a start past 0, and t_lo >= T (no iteration: S is 0, Y
 * untouched); on sm_90, sm_90a and sm_80. */
static void t_pipeline_invariant(Tally *T) {
  static const int BTCL[][4] = {{2, 37, 200, 0}, {1, 16, 128, 0}, {3, 5, 3, 0}, {2, 50, 136, 7}, {2, 20, 100, 20}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 15; c++) {
    int Bn = BTCL[c % 5][0], Tn = BTCL[c % 5][1], C = BTCL[c % 5][2], lo = BTCL[c % 5][3];
    Rng r = rng_seed("pipeline_invariant", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_invariant.tl", "pipeline_invariant");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 5]);
    Ten *X = call_in(&k, "X", F16, 3, SHAPE(Bn, Tn, C));
    Ten *G = call_in(&k, "G", F32, 2, SHAPE(Bn, C));
    Ten *Bias = call_in(&k, "Bias", F32, 1, SHAPE(C));
    Ten *Y = call_out(&k, "Y", F32, 3, SHAPE(Bn, Tn, C));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(Bn, C));
    call_arg(&k, "t_lo=%d", lo);
    fill_uniform(X, &r, -1, 1);
    fill_uniform(G, &r, -1, 1);
    fill_uniform(Bias, &r, -1, 1);
    for (int b = 0; b < Bn; b++)
      for (int j = 0; j < C; j++) {
        double s = 0;
        for (int t = 0; t < Tn; t++) Y->ref[((long long)b * Tn + t) * C + j] = NAN;
        for (int t0 = lo; t0 < Tn; t0 += 16)
          for (int t = t0; t < t0 + 16; t++) {
            double y = (t < Tn ? X->v[((long long)b * Tn + t) * C + j] : 0) * A2(G, b, j) + Bias->v[j];
            if (t < Tn) Y->ref[((long long)b * Tn + t) * C + j] = y;
            s += y;
          }
        R2(S, b, j) = s;
      }
    char l[64];
    label(l, sizeof l, "%s B=%d T=%d C=%d t_lo=%d", targets[c / 5], Bn, Tn, C, lo);
    CHECK(T, call_check(&k, "pipeline_invariant", l));
    call_free(&k);
  }
}
/* spill_twice (tests/gpu): w = w * 0.5 + 0.25, acc += A w, (spill_twice: w += bump), then
 * q += w[1, 3] * sum(V[j :+ 128]) for each j < N in steps of 128 with V[j] > 0; O = acc,
 * Q = q. V[j] mixed (some branches run) or all negative (no branch, no barrier in the later
 * loop: the case the race needed); ragged M and N, M one block exactly, N under 128, iters
 * 1 and 0; spill_twice and spill_once, on sm_90, sm_90a and sm_80. */
static void t_spill_twice(Tally *T) {
  static const int MNIV[][4] = {{40, 300, 3, 1}, {40, 300, 3, 0}, {16, 256, 2, 1}, {7, 100, 1, 0}, {33, 129, 0, 1}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 30; c++) {
    int M = MNIV[c % 5][0], N = MNIV[c % 5][1], iters = MNIV[c % 5][2], mixed = MNIV[c % 5][3];
    bool twice = c / 5 % 2 == 0;
    double bump = twice ? 0.375 : 0;
    Rng r = rng_seed("spill_twice", (uint64_t)c);
    Call k;
    call_init(&k, "spill_twice.tl", twice ? "spill_twice" : "spill_once");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 10]);
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, 16));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(16, 16));
    Ten *V = call_in(&k, "V", F32, 1, SHAPE(N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 16));
    Ten *Q = call_out(&k, "Q", F32, 2, SHAPE(M, 1));
    call_arg(&k, "iters=%d", iters);
    if (twice) call_arg(&k, "bump=%.9g", bump);
    fill_uniform(A, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    fill_uniform(V, &r, -1, 1);
    for (int j = 0; j < N; j++)
      if (!mixed) V->v[j] = -1 - fabs(V->v[j]);
    double w[16][16], q = 0;
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 16; j++) w[i][j] = A2(W, i, j);
    double (*o)[16] = calloc((size_t)M, sizeof *o);
    for (int it = 0; it < iters; it++) {
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) w[i][j] = w[i][j] * 0.5 + 0.25;
      for (int i = 0; i < M; i++)
        for (int j = 0; j < 16; j++)
          for (int kk = 0; kk < 16; kk++) o[i][j] += A2(A, i, kk) * w[kk][j];
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) w[i][j] += bump;
      for (int j = 0; j < N; j += 128)
        if (V->v[j] > 0) {
          double s = 0;
          for (int t = j; t < j + 128 && t < N; t++) s += V->v[t];
          q += w[1][3] * s;
        }
    }
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < 16; j++) R2(O, i, j) = o[i][j];
      Q->ref[i] = q;
    }
    free(o);
    char l[80];
    label(l, sizeof l, "%s %s M=%d N=%d iters=%d V %s", targets[c / 10], twice ? "twice" : "once", M, N, iters,
          mixed ? "mixed" : "negative");
    CHECK(T, call_check(&k, "spill_twice", l));
    call_free(&k);
  }
}
/* pipeline_gather_reshape (tests/gpu): O[b, :] = the sum over t < T of W[I[b, t], :] (a
 * token outside [0, V) adds 0s), a token column declared at the top of a @pipeline body
 * and the gather it indexes issued ahead. Ragged T (past T: -1) and D (columns past D: 0,
 * not stored), T one tile exactly, T under one tile, T = 1, tokens outside [0, V)
 * (-3 .. V + 5); on sm_90, sm_90a and sm_80. */
static void t_pipeline_gather_reshape(Tally *T) {
  static const int BTVD[][4] = {{3, 37, 50, 100}, {2, 16, 20, 128}, {2, 5, 9, 7}, {1, 1, 4, 33}, {4, 70, 300, 128}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 15; c++) {
    int Bn = BTVD[c % 5][0], Tn = BTVD[c % 5][1], V = BTVD[c % 5][2], D = BTVD[c % 5][3];
    Rng r = rng_seed("pipeline_gather_reshape", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_gather_reshape.tl", "pipeline_gather_reshape");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 5]);
    Ten *I = call_in(&k, "I", I32, 2, SHAPE(Bn, Tn));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(V, D));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(Bn, D));
    fill_uniform(W, &r, -1, 1);
    fill_int(I, &r, -3, V + 5); /* some outside [0, V) */
    for (int b = 0; b < Bn; b++)
      for (int d = 0; d < D; d++) {
        double s = 0;
        for (int t = 0; t < Tn; t++) {
          int tok = (int)A2(I, b, t);
          if (tok >= 0 && tok < V) s += A2(W, tok, d);
        }
        R2(O, b, d) = s;
      }
    char l[64];
    label(l, sizeof l, "%s B=%d T=%d V=%d D=%d", targets[c / 5], Bn, Tn, V, D);
    CHECK(T, call_check(&k, "pipeline_gather_reshape", l));
    call_free(&k);
  }
}
/* wg_rolled_fills (tests/gpu): C = bf16(A B + R), bf16 A [M, K], B [K, 256], R [M, 256],
 * the residual added in a var, so the ring fills copy their rows in loops; gemm_rows gathers
 * A by rows(). Ragged M, K % 8 != 0 (the general body), K % 32 != 0 (a partial last step),
 * K exact, M one tile; on sm_90a (swizzled wgmma stages: the rolled row was dropped there,
 * every output NaN) and sm_90. */
static void t_wg_rolled_fills(Tally *T) {
  static const int MK[][2] = {{64, 70}, {100, 72}, {70, 96}, {5, 33}};
  static const char *const targets[] = {"sm_90a", "sm_90"};
  for (int c = 0; c < 16; c++) {
    int M = MK[c % 4][0], K = MK[c % 4][1];
    bool rows = c / 4 % 2;
    Rng r = rng_seed("wg_rolled_fills", (uint64_t)c);
    Call k;
    call_init(&k, "wg_rolled_fills.tl", rows ? "gemm_rows" : "wg_rolled_fills");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 8]);
    Ten *A = call_in(&k, "A", BF16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", BF16, 2, SHAPE(K, 256));
    Ten *R = call_in(&k, "R", BF16, 2, SHAPE(M, 256));
    Ten *C = call_out(&k, "C", BF16, 2, SHAPE(M, 256));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(R, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 256; j++) {
        double s = A2(R, i, j);
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, kk, j);
        R2(C, i, j) = s;
      }
    char l[64];
    label(l, sizeof l, "%s %s M=%d K=%d", targets[c / 8], rows ? "rows" : "slice", M, K);
    CHECK(T, call_check(&k, "wg_rolled_fills", l));
    call_free(&k);
  }
}
/* int_reassoc (tests/gpu): Y[i, j] = 3 * (s + i) + j, computed as s + (m0 + rows) + 2 * (s +
 * r) + cols (the first sum printed with its scalars added first); ragged M, one block,
 * a negative s, exactly. */
static void t_int_reassoc(Tally *T) {
  static const int MS[][2] = {{37, -5}, {16, 7}, {3, 100}};
  for (int c = 0; c < 3; c++) {
    int M = MS[c][0], sv = MS[c][1];
    Call k;
    call_init(&k, "int_reassoc.tl", "int_reassoc");
    Ten *Y = call_out(&k, "Y", I32, 2, SHAPE(M, 8));
    call_arg(&k, "s=%d", sv);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 8; j++) R2(Y, i, j) = 3.0 * (sv + i) + j;
    char l[64];
    label(l, sizeof l, "M=%d s=%d", M, sv);
    CHECK(T, call_check(&k, "int_reassoc", l));
    call_free(&k);
  }
}
/* dots_share_a (tests/gpu): Y = f16(silu(X Wg) * (X Wu)), the two dots over one X in one
 * @pipeline loop sharing each k step's A fragments. Ragged M, N and K (K % 8 != 0: the general
 * body; K % 32 != 0: a partial last step), K exact, a corner smaller than one tile; on sm_80,
 * sm_90 and sm_90a (wgmma there: shared by its descriptors, nothing to fuse). */
static void t_dots_share_a(Tally *T) {
  /* K = 200: 7 k steps, so that the 3-stage ring is refilled (on sm_90a by TMA, with both
   * dots' groups left in flight: a stage released before both complete fails) */
  static const int MNK[][3] = {{70, 100, 72}, {64, 64, 96}, {130, 72, 37}, {5, 9, 16}, {70, 72, 200}};
  static const char *const targets[] = {"sm_80", "sm_90", "sm_90a"};
  for (int c = 0; c < 15; c++) {
    int M = MNK[c % 5][0], N = MNK[c % 5][1], K = MNK[c % 5][2];
    Rng r = rng_seed("dots_share_a", (uint64_t)c);
    Call k;
    call_init(&k, "dots_share_a.tl", "dots_share_a");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 5]);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, K));
    Ten *Wg = call_in(&k, "Wg", F16, 2, SHAPE(K, N));
    Ten *Wu = call_in(&k, "Wu", F16, 2, SHAPE(K, N));
    Ten *Y = call_out(&k, "Y", F16, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(Wg, &r, -1, 1);
    fill_uniform(Wu, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double g = 0, u = 0;
        for (int kk = 0; kk < K; kk++) g += A2(X, i, kk) * A2(Wg, kk, j), u += A2(X, i, kk) * A2(Wu, kk, j);
        R2(Y, i, j) = g * sigmoid(g) * u;
      }
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d", targets[c / 5], M, N, K);
    CHECK(T, call_check(&k, "dots_share_a", l));
    call_free(&k);
  }
}
/* dots_share_a3 (tests/gpu): Y = (X A) * (X B) + X C^T, three bf16 dots over one X [M, 48] with
 * no loop, C read transposed, sharing each k step's A fragments. Ragged M and N, one tile
 * exactly, a corner; on sm_80 and sm_90a (mma.sync there too: 32 rows are too few for wgmma). */
static void t_dots_share_a3(Tally *T) {
  static const int MN[][2] = {{70, 45}, {32, 32}, {3, 5}};
  static const char *const targets[] = {"sm_80", "sm_90a"};
  for (int c = 0; c < 6; c++) {
    int M = MN[c % 3][0], N = MN[c % 3][1];
    Rng r = rng_seed("dots_share_a3", (uint64_t)c);
    Call k;
    call_init(&k, "dots_share_a3.tl", "dots_share_a3");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 3]);
    Ten *X = call_in(&k, "X", BF16, 2, SHAPE(M, 48));
    Ten *A = call_in(&k, "A", BF16, 2, SHAPE(48, N));
    Ten *B = call_in(&k, "B", BF16, 2, SHAPE(48, N));
    Ten *C = call_in(&k, "C", BF16, 2, SHAPE(N, 48));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(C, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double p = 0, q = 0, s = 0;
        for (int kk = 0; kk < 48; kk++)
          p += A2(X, i, kk) * A2(A, kk, j), q += A2(X, i, kk) * A2(B, kk, j), s += A2(X, i, kk) * A2(C, j, kk);
        R2(Y, i, j) = p * q + s;
      }
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d", targets[c / 3], M, N);
    CHECK(T, call_check(&k, "dots_share_a3", l));
    call_free(&k);
  }
}
/* grid_stride (tests/gpu): M = 0.9 M + G, P = P - lr M in place over a grid-stride loop of
 * 512-element tiles, with no barrier (its windows never meet: the step is ctx.blocks.x * 512).
 * Ragged N over 3 blocks (several tiles each), N % 4 != 0 (the general body), a grid wider
 * than the tensor, one tile exactly. The CPU backend's race detector checks that no thread
 * reads or writes what another touched. */
static void t_grid_stride(Tally *T) {
  static const int NG[][2] = {{5000, 3}, {4099, 2}, {700, 4}, {512, 1}};
  for (int c = 0; c < 4; c++) {
    int N = NG[c][0], grid = NG[c][1];
    Rng r = rng_seed("grid_stride", (uint64_t)c);
    Call k;
    call_init(&k, "grid_stride.tl", "grid_stride");
    snprintf(k.grid, sizeof k.grid, "%d", grid);
    Ten *G = call_in(&k, "G", F32, 1, SHAPE(N));
    Ten *P = call_out(&k, "P", F32, 1, SHAPE(N));
    Ten *M = call_out(&k, "M", F32, 1, SHAPE(N));
    fill_uniform(G, &r, -1, 1);
    call_arg(&k, "lr=0.25");
    P->init = calloc((size_t)N, sizeof(double));
    M->init = calloc((size_t)N, sizeof(double));
    for (int i = 0; i < N; i++) {
      P->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      M->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      double m = M->init[i] * 0.9 + G->v[i];
      M->ref[i] = m;
      P->ref[i] = P->init[i] - 0.25 * m;
    }
    char l[64];
    label(l, sizeof l, "N=%d grid=%d", N, grid);
    CHECK(T, call_check(&k, "grid_stride", l));
    call_free(&k);
  }
}
/* staged_store_branches (tests/gpu): y = f16(X W) stored to P, Q or R by the block's z and
 * to S[z], every store staged through the one copy of y. Ragged M, N and K (K % 8 == 0: the
 * 16-byte body; not: the general one), one tile exactly, a corner; on sm_90, sm_90a (the
 * fast body's stores by TMA) and sm_80. */
static void t_staged_store_branches(Tally *T) {
  static const int MNK[][3] = {{130, 200, 40}, {128, 128, 32}, {5, 9, 7}, {300, 136, 70}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    Rng r = rng_seed("staged_store_branches", (uint64_t)c);
    Call k;
    call_init(&k, "staged_store_branches.tl", "staged_store_branches");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, K));
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(K, N));
    Ten *out[3] = {call_out(&k, "P", F16, 2, SHAPE(M, N)), call_out(&k, "Q", F16, 2, SHAPE(M, N)),
                   call_out(&k, "R", F16, 2, SHAPE(M, N))};
    Ten *S = call_out(&k, "S", F16, 3, SHAPE(3, M, N));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double y = 0;
        for (int kk = 0; kk < K; kk++) y += A2(X, i, kk) * A2(W, kk, j);
        for (int z = 0; z < 3; z++) R2(out[z], i, j) = y, S->ref[((long long)z * M + i) * N + j] = y;
      }
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d", targets[c / 4], M, N, K);
    CHECK(T, call_check(&k, "staged_store_branches", l));
    call_free(&k);
  }
}
/* pipeline_var_partial (tests/gpu): O = the sum over iterations it (k0 = 16 it < n) of
 * S[g] * Z[(g + it) % NG], g = k0 / 32 (a row of S past NG reads zeros): the loop-local g
 * read by a load issued ahead and by one that is not. n ragged (one iteration, several,
 * past NG's rows, none); on sm_90, sm_90a and sm_80. */
static void t_pipeline_var_partial(Tally *T) {
  static const int NNG[][2] = {{5, 3}, {100, 2}, {300, 4}, {0, 3}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int n = NNG[c % 4][0], NG = NNG[c % 4][1];
    Rng r = rng_seed("pipeline_var_partial", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_var_partial.tl", "pipeline_var_partial");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *S = call_in(&k, "S", F32, 2, SHAPE(NG, 64));
    Ten *Z = call_in(&k, "Z", F32, 2, SHAPE(NG, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(1, 64));
    call_arg(&k, "n=%d", n);
    fill_uniform(S, &r, -1, 1);
    fill_uniform(Z, &r, -1, 1);
    for (int j = 0; j < 64; j++) {
      double o = 0;
      for (int it = 0; 16 * it < n; it++) {
        int g = 16 * it / 32;
        o += (g < NG ? A2(S, g, j) : 0) * A2(Z, (g + it) % NG, j);
      }
      R2(O, 0, j) = o;
    }
    char l[64];
    label(l, sizeof l, "%s n=%d NG=%d", targets[c / 4], n, NG);
    CHECK(T, call_check(&k, "pipeline_var_partial", l));
    call_free(&k);
  }
}
/* pipeline_var_chain (tests/gpu): O = the sum over it < n of X's 16 rows from
 * ((2 (it + 1) - 1) / 3) 16, the start reached through five loop-local vars (rows past M
 * read zeros). n ragged (none, one, several, rows past M); on sm_90, sm_90a and sm_80. */
static void t_pipeline_var_chain(Tally *T) {
  static const int NM[][2] = {{0, 16}, {1, 40}, {7, 100}, {20, 130}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int n = NM[c % 4][0], M = NM[c % 4][1];
    Rng r = rng_seed("pipeline_var_chain", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_var_chain.tl", "pipeline_var_chain");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(16, 64));
    call_arg(&k, "n=%d", n);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 64; j++) {
        double o = 0;
        for (int it = 0; it < n; it++) {
          int row = (2 * (it + 1) - 1) / 3 * 16 + i;
          o += row < M ? A2(X, row, j) : 0;
        }
        R2(O, i, j) = o;
      }
    char l[64];
    label(l, sizeof l, "%s n=%d M=%d", targets[c / 4], n, M);
    CHECK(T, call_check(&k, "pipeline_var_chain", l));
    call_free(&k);
  }
}
/* runs_scaled_start (tests/gpu): O = W[:, 2H :+ 64] - 2 W[:, 3H :+ 64] (zeros past I's rows
 * and G's columns). H % 8 == 0 with G % 8 == 0 (the 16-byte body) and not (the general
 * one), columns past G; on sm_90, sm_90a and sm_80. */
static void t_runs_scaled_start(Tally *T) {
  static const int IGH[][3] = {{70, 96, 16}, {64, 250, 16}, {5, 200, 13}, {130, 304, 72}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int I = IGH[c % 4][0], G = IGH[c % 4][1], H = IGH[c % 4][2];
    Rng r = rng_seed("runs_scaled_start", (uint64_t)c);
    Call k;
    call_init(&k, "runs_scaled_start.tl", "runs_scaled_start");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(I, G));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(I, 64));
    call_arg(&k, "H=%d", H);
    fill_uniform(W, &r, -1, 1);
    for (int i = 0; i < I; i++)
      for (int j = 0; j < 64; j++) {
        double a = 2 * H + j < G ? A2(W, i, 2 * H + j) : 0, b = 3 * H + j < G ? A2(W, i, 3 * H + j) : 0;
        R2(O, i, j) = a - 2 * b;
      }
    char l[64];
    label(l, sizeof l, "%s I=%d G=%d H=%d", targets[c / 4], I, G, H);
    CHECK(T, call_check(&k, "runs_scaled_start", l));
    call_free(&k);
  }
}
/* pipeline_gather_var (tests/gpu): ELL SpMV, Y[r] = the sum over k < K of V[k, r] X[C[k, r]],
 * indices in -1 .. N (outside X: zeros). Ragged R (one block, several, a partial one), K
 * (one, two, several); on sm_90, sm_90a and sm_80. */
static void t_pipeline_gather_var(Tally *T) {
  static const int RKN[][3] = {{100, 5, 50}, {128, 1, 7}, {300, 9, 1000}, {70, 2, 20}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int R = RKN[c % 4][0], K = RKN[c % 4][1], N = RKN[c % 4][2];
    Rng r = rng_seed("pipeline_gather_var", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_gather_var.tl", "pipeline_gather_var");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *C = call_in(&k, "C", I32, 2, SHAPE(K, R));
    Ten *V = call_in(&k, "V", F32, 2, SHAPE(K, R));
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(R));
    fill_int(C, &r, -1, N);
    fill_uniform(V, &r, -1, 1);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < R; i++) {
      double y = 0;
      for (int kk = 0; kk < K; kk++) {
        int col = (int)A2(C, kk, i);
        y += col >= 0 && col < N ? A2(V, kk, i) * X->v[col] : 0;
      }
      Y->ref[i] = y;
    }
    char l[64];
    label(l, sizeof l, "%s R=%d K=%d N=%d", targets[c / 4], R, K, N);
    CHECK(T, call_check(&k, "pipeline_gather_var", l));
    call_free(&k);
  }
}

/* scatter_store_staged (tests/gpu): f16(X W) stored by row scatters along cols() runs, Y
 * at rows r0 + m0 + i and V at rows m0 + i (both staged, 16-byte runs), Z at rows J[i] of a
 * permutation (not staged). Ragged M, N, K (K % 8 == 0: the 16-byte body; not: the general
 * one), R below and above r0 + M, a negative r0, one tile exactly; on sm_90, sm_90a and sm_80. */
static void t_scatter_store_staged(Tally *T) {
  static const int MNKRr[][5] = {{300, 200, 40, 290, 5}, {128, 128, 32, 128, 0}, {5, 9, 7, 3, -2}, {260, 136, 70, 300, 33}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    const int *p = MNKRr[c % 4];
    int M = p[0], N = p[1], K = p[2], R = p[3], r0 = p[4], Mp = (M + 127) / 128 * 128;
    Rng r = rng_seed("scatter_store_staged", (uint64_t)c);
    Call k;
    call_init(&k, "scatter_store_staged.tl", "scatter_store_staged");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, K));
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(K, N));
    Ten *J = call_in(&k, "J", I32, 1, SHAPE(M));
    Ten *Y = call_out(&k, "Y", F16, 2, SHAPE(R, N));
    Ten *Z = call_out(&k, "Z", F16, 2, SHAPE(M, N));
    Ten *V = call_out(&k, "V", F16, 2, SHAPE(M, 128));
    call_arg(&k, "r0=%d", r0);
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    for (int i = 0; i < M; i++) J->v[i] = i;
    for (int i = M - 1; i > 0; i--) { /* a permutation: each row of Z written once */
      int j = (int)rng_int(&r, 0, i);
      double t = J->v[i];
      J->v[i] = J->v[j], J->v[j] = t;
    }
    /* the tile's rows past M are 0 (X read as 0 there): Y's rows r0 + i for them too */
    for (int i = 0; i < Mp; i++)
      for (int j = 0; j < N; j++) {
        double y = 0;
        for (int kk = 0; i < M && kk < K; kk++) y += A2(X, i, kk) * A2(W, kk, j);
        if (r0 + i >= 0 && r0 + i < R) R2(Y, r0 + i, j) = y;
        if (i < M) R2(Z, (int)J->v[i], j) = y;
        if (i < M && j < 128) R2(V, i, j) = y;
      }
    for (int i = 0; i < M; i++)
      for (int j = N; j < 128; j++) R2(V, i, j) = 0; /* W read as 0 past N */
    char l[80];
    label(l, sizeof l, "%s M=%d N=%d K=%d R=%d r0=%d", targets[c / 4], M, N, K, R, r0);
    CHECK(T, call_check(&k, "scatter_store_staged", l));
    call_free(&k);
  }
}
/* scatter_store_staged_var (tests/gpu): scatter_store_staged's row scatters at var r = r0 +
 * m0 + rows(128, 1): Y at rows r, U at rows where(r < rend, r, -1), both staged (the store
 * reads r's expression). Ragged M, N, K, R below and above r0 + M, a negative r0, rend
 * inside the rows, past them and at none of them, one tile exactly; on sm_90, sm_90a, sm_80. */
static void t_scatter_store_staged_var(Tally *T) {
  static const int MNKRre[][6] = {
      {300, 200, 40, 290, 5, 250}, {128, 128, 32, 128, 0, 1000}, {5, 9, 7, 3, -2, 2}, {260, 136, 70, 300, 33, -1}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    const int *p = MNKRre[c % 4];
    int M = p[0], N = p[1], K = p[2], R = p[3], r0 = p[4], rend = p[5], Mp = (M + 127) / 128 * 128;
    Rng r = rng_seed("scatter_store_staged_var", (uint64_t)c);
    Call k;
    call_init(&k, "scatter_store_staged_var.tl", "scatter_store_staged_var");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, K));
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(K, N));
    Ten *Y = call_out(&k, "Y", F16, 2, SHAPE(R, N));
    Ten *U = call_out(&k, "U", F16, 2, SHAPE(R, N));
    call_arg(&k, "r0=%d", r0);
    call_arg(&k, "rend=%d", rend);
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    /* the tile's rows past M are 0 (X read as 0 there): Y's and U's rows r0 + i for them too */
    for (int i = 0; i < Mp; i++)
      for (int j = 0; j < N; j++) {
        double y = 0;
        for (int kk = 0; i < M && kk < K; kk++) y += A2(X, i, kk) * A2(W, kk, j);
        if (r0 + i >= 0 && r0 + i < R) R2(Y, r0 + i, j) = y;
        if (r0 + i >= 0 && r0 + i < R && r0 + i < rend) R2(U, r0 + i, j) = y;
      }
    char l[96];
    label(l, sizeof l, "%s M=%d N=%d K=%d R=%d r0=%d rend=%d", targets[c / 4], M, N, K, R, r0, rend);
    CHECK(T, call_check(&k, "scatter_store_staged_var", l));
    call_free(&k);
  }
}
/* remainder_start (tests/gpu): a GEMM whose A tile starts at column kk % C (@assume(C % 32
 * == 0): 16-byte copies, facts.c) and, for Z, at kk % c of a parameter c (a multiple of 8:
 * the fast body; else, or negative, the general one; columns past C read as 0). Ragged M
 * and KC, KC past C (X read cyclically), one tile exactly; on sm_90, sm_90a and sm_80. */
static void t_remainder_start(Tally *T) {
  static const int MCKc[][4] = {{300, 64, 200, 40}, {128, 32, 96, 48}, {5, 32, 7, 13}, {260, 128, 330, -24}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int k8 = 0; k8 < 12; k8++) {
    const int *p = MCKc[k8 % 4];
    int M = p[0], C = p[1], KC = p[2], c = p[3];
    Rng r = rng_seed("remainder_start", (uint64_t)k8);
    Call k;
    call_init(&k, "remainder_start.tl", "remainder_start");
    snprintf(k.target, sizeof k.target, "%s", targets[k8 / 4]);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, C));
    Ten *Wt = call_in(&k, "Wt", F16, 2, SHAPE(KC, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
    Ten *Z = call_out(&k, "Z", F32, 2, SHAPE(M, 64));
    call_arg(&k, "c=%d", c);
    fill_uniform(X, &r, -1, 1);
    fill_uniform(Wt, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 64; j++) {
        double y = 0, z = 0;
        for (int kk = 0; kk < KC; kk += 32)
          for (int t = 0; t < 32 && kk + t < KC; t++) {
            int cy = kk % C + t, cz = kk % c + t; /* C's remainder, as the kernel's */
            y += A2(X, i, cy) * A2(Wt, kk + t, j);
            if (cz < C) z += A2(X, i, cz) * A2(Wt, kk + t, j);
          }
        R2(Y, i, j) = y;
        R2(Z, i, j) = z;
      }
    char l[64];
    label(l, sizeof l, "%s M=%d C=%d KC=%d c=%d", targets[k8 / 4], M, C, KC, c);
    CHECK(T, call_check(&k, "remainder_start", l));
    call_free(&k);
  }
}
/* conv_implicit (tests/gpu): a 3x3 NHWC conv2d as an implicit GEMM, K walked as (tap = kk /
 * CI, c0 = kk % CI), the A tile gathered at the tap's shifted pixel (zero outside the image).
 * Ragged pixels (NB*H*W not a multiple of 64) and CO, CI of one and two chunks, an image
 * narrower than the taps; on sm_90, sm_90a and sm_80. */
static void t_conv_implicit(Tally *T) {
  static const int S[][5] = {{2, 5, 7, 32, 40}, {1, 9, 3, 64, 70}, {3, 1, 2, 32, 64}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 9; c++) {
    const int *p = S[c % 3];
    int NB = p[0], H = p[1], W = p[2], CI = p[3], CO = p[4];
    Rng r = rng_seed("conv_implicit", (uint64_t)c);
    Call k;
    call_init(&k, "conv_implicit.tl", "conv_implicit");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 3]);
    Ten *X = call_in(&k, "X", F16, 4, SHAPE(NB, H, W, CI));
    Ten *Wt = call_in(&k, "Wt", F16, 4, SHAPE(3, 3, CI, CO));
    Ten *Y = call_out(&k, "Y", F16, 4, SHAPE(NB, H, W, CO));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(Wt, &r, -1, 1);
    for (int n = 0; n < NB; n++)
      for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++)
          for (int o = 0; o < CO; o++) {
            double y = 0;
            for (int dh = 0; dh < 3; dh++)
              for (int dw = 0; dw < 3; dw++) {
                int hi = h + dh - 1, wi = w + dw - 1;
                if (hi < 0 || hi >= H || wi < 0 || wi >= W) continue;
                for (int i = 0; i < CI; i++)
                  y += X->v[(((size_t)n * H + hi) * W + wi) * CI + i] * Wt->v[(((size_t)dh * 3 + dw) * CI + i) * CO + o];
              }
            Y->ref[(((size_t)n * H + h) * W + w) * CO + o] = y;
          }
    char l[80];
    label(l, sizeof l, "%s NB=%d H=%d W=%d CI=%d CO=%d", targets[c / 3], NB, H, W, CI, CO);
    CHECK(T, call_check(&k, "conv_implicit", l));
    call_free(&k);
  }
}
/* scaled_scale_row_mx and scaled_scale_row_i8 (tests/gpu): block-scaled GEMMs, a scale
 * per row of A and of B and block of 32 along K (mx: u8 exponents e, 2^(e - 127); i8: f32),
 * the scale row of B loaded in a layout of its own and read through its shared copy
 * (layout.c col_vals). Ragged M and N, K 32 to 160 (KS 1 to 5: fewer k blocks than the
 * ring's stages, and more), one tile exactly; on sm_90a, sm_90 and sm_80. The references
 * are double sums of the exact inputs, each block's scaled before it is added. */
static void t_scaled_scale_row(Tally *T) {
  static const int MNK[][3] = {{150, 200, 160}, {128, 128, 64}, {37, 20, 32}, {5, 3, 96}};
  static const char *const targets[] = {"sm_90a", "sm_90", "sm_80"};
  for (int f = 0; f < 2; f++)
    for (int c = 0; c < 12; c++) {
      int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2], KS = K / 32;
      const char *kn = f ? "scaled_scale_row_i8" : "scaled_scale_row_mx";
      Rng r = rng_seed(kn, (uint64_t)c);
      Call k;
      call_init(&k, f ? "scaled_scale_row_i8.tl" : "scaled_scale_row_mx.tl", kn);
      snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
      Ten *A = call_in(&k, "A", f ? I8 : F8E4M3, 2, SHAPE(M, K));
      Ten *B = call_in(&k, "B", f ? I8 : F8E4M3, 2, SHAPE(N, K));
      Ten *SA = call_in(&k, "SA", f ? F32 : U8, 2, SHAPE(M, KS));
      Ten *SB = call_in(&k, "SB", f ? F32 : U8, 2, SHAPE(N, KS));
      Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
      if (f) {
        fill_int(A, &r, -8, 8);
        fill_int(B, &r, -8, 8);
        fill_uniform(SA, &r, -2, 2);
        fill_uniform(SB, &r, -2, 2);
      } else {
        fill_uniform(A, &r, -2, 2); /* the sums inside f16's range: scales 2^-5 .. 2^2 */
        fill_uniform(B, &r, -2, 2);
        fill_int(SA, &r, 122, 129);
        fill_int(SB, &r, 122, 129);
      }
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = 0;
          for (int kb = 0; kb < KS; kb++) {
            double d = 0, sa = A2(SA, i, kb), sb = A2(SB, j, kb);
            for (int kk = kb * 32; kk < (kb + 1) * 32; kk++) d += A2(A, i, kk) * A2(B, j, kk);
            s += f ? d * sa * sb : d * exp2(sa - 127) * exp2(sb - 127);
          }
          R2(C, i, j) = s;
        }
      char l[64];
      label(l, sizeof l, "%s M=%d N=%d K=%d", k.target, M, N, K);
      CHECK(T, call_check(&k, kn, l));
      call_free(&k);
    }
}
static void t_pipeline_index_var_plain(Tally *T) { t_pipeline_index_var(T, "pipeline_index_var", false); }
static void t_pipeline_index_var_kept(Tally *T) { t_pipeline_index_var(T, "pipeline_index_var_kept", true); }
static void t_pipeline_computed_index(Tally *T) { t_pipeline_index_var(T, "pipeline_computed_index", false); }

/* reshape_slice_rows (tests/gpu/reshape_slice_rows.tl): per block of 2048 elements, 64
 * rows of 32: W = row sums of B (u8), Y = row maxes of X padded with -inf, Z = row sums of
 * C's column 1, each slice loaded straight in the [64, 32] shape (lower.c reshape_as_gather).
 * NW = cdiv(N, 32): the last row is ragged. Ragged N (1, 100, 3000, 5000) and N = 2048. */
static void t_reshape_slice_rows(Tally *T) {
  static const int NS[] = {1, 100, 2048, 3000, 5000};
  for (int q = 0; q < 5; q++) {
    int N = NS[q], NW = (int)cdivll(N, 32);
    Rng r = rng_seed("reshape_slice_rows", (uint64_t)q);
    Call k;
    call_init(&k, "reshape_slice_rows.tl", "reshape_slice_rows");
    Ten *B = call_in(&k, "B", U8, 1, SHAPE(N));
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *C = call_in(&k, "C", F32, 2, SHAPE(N, 2));
    Ten *W = call_out(&k, "W", U32, 1, SHAPE(NW));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(NW));
    Ten *Z = call_out(&k, "Z", F32, 1, SHAPE(NW));
    fill_int(B, &r, 0, 255);
    fill_uniform(X, &r, -8, -1); /* all negative: a 0 read past N would show */
    fill_uniform(C, &r, -2, 2);
    for (int w = 0; w < NW; w++) {
      double s = 0, mx = -INFINITY, z = 0;
      for (int i = w * 32; i < N && i < (w + 1) * 32; i++) s += B->v[i], mx = fmax(mx, X->v[i]), z += A2(C, i, 1);
      W->ref[w] = s;
      Y->ref[w] = mx;
      Z->ref[w] = z;
    }
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "reshape_slice_rows", l));
    call_free(&k);
  }
}

/* reshape_row_max (tests/gpu/reshape_row_max.tl): per block of 1024, M[b] = max of 2 X
 * (pad -inf), and Y = 2 X - M[b], through reshapes between [1024] and [1, 1024] read in
 * place (lower.c hoist_reshape). Ragged N (1, 1000, 2500, 3071) and N = 1024. */
static void t_reshape_row_max(Tally *T) {
  static const int NS[] = {1, 1000, 1024, 2500, 3071};
  for (int q = 0; q < 5; q++) {
    int N = NS[q], NB = (int)cdivll(N, 1024);
    Rng r = rng_seed("reshape_row_max", (uint64_t)q);
    Call k;
    call_init(&k, "reshape_row_max.tl", "reshape_row_max");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *M = call_out(&k, "M", F32, 1, SHAPE(NB));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    fill_uniform(X, &r, -8, -1); /* all negative: a 0 read past N would show */
    for (int b = 0; b < NB; b++) {
      double mx = -INFINITY;
      for (int i = b * 1024; i < N && i < (b + 1) * 1024; i++) mx = fmax(mx, 2 * X->v[i]);
      M->ref[b] = mx;
      for (int i = b * 1024; i < N && i < (b + 1) * 1024; i++) Y->ref[i] = 2 * X->v[i] - mx;
    }
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "reshape_row_max", l));
    call_free(&k);
  }
}

/* lse_merge_pad (tests/gpu/lse_merge_pad.tl): O[b] = log(sum_s L[b, s] exp(M[b, s] - mx))
 * + mx, mx = max_s M[b, s], over the first 16 splits; M read as a column padded with
 * -inf (splits past S add 0). Ragged S (1, 5, 11) and S = 16. */
static void t_lse_merge_pad(Tally *T) {
  static const int BS[][2] = {{3, 5}, {7, 16}, {2, 11}, {1, 1}};
  for (int q = 0; q < 4; q++) {
    int B = BS[q][0], S = BS[q][1];
    Rng r = rng_seed("lse_merge_pad", (uint64_t)q);
    Call k;
    call_init(&k, "lse_merge_pad.tl", "lse_merge_pad");
    Ten *M = call_in(&k, "M", F32, 2, SHAPE(B, S));
    Ten *Lt = call_in(&k, "L", F32, 2, SHAPE(B, S));
    Ten *O = call_out(&k, "O", F32, 1, SHAPE(B));
    fill_uniform(M, &r, -4, 4);
    fill_uniform(Lt, &r, 0.1, 2);
    for (int b = 0; b < B; b++) {
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < S && j < 16; j++) mx = fmax(mx, A2(M, b, j));
      for (int j = 0; j < S && j < 16; j++) sum += A2(Lt, b, j) * exp(A2(M, b, j) - mx);
      O->ref[b] = log(sum) + mx;
    }
    char l[64];
    label(l, sizeof l, "B=%d S=%d", B, S);
    CHECK(T, call_check(&k, "lse_merge_pad", l));
    call_free(&k);
  }
}

/* rows_var_recomputed and rows_var_kept (tests/gpu): r = m0 + rows(64, 1) gathers A's
 * rows through P and indexes C's; the first computes r again at the store, the second
 * (m0 changed after r) reads its shared copy, and adds the new m0. Ragged M, N, K; rows
 * of P past M read index 0 (not stored). */
static void t_rows_var(Tally *T, const char *name, bool kept) {
  static const int TMNK[][4] = {{50, 70, 130, 45}, {64, 64, 128, 64}, {9, 100, 37, 72}, {5, 3, 5, 8}};
  for (int q = 0; q < 4; q++) {
    int Tn = TMNK[q][0], M = TMNK[q][1], N = TMNK[q][2], K = TMNK[q][3];
    Rng r = rng_seed(name, (uint64_t)q);
    Call k;
    char tl[64];
    snprintf(tl, sizeof tl, "%s.tl", name);
    call_init(&k, tl, name);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(Tn, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(N, K));
    Ten *P = call_in(&k, "P", I32, 1, SHAPE(M));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_int(P, &r, 0, Tn - 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double c = kept ? i / 64 * 64 + 1 : 0;
        for (int kk = 0; kk < K; kk++) c += A2(A, (int)P->v[i], kk) * A2(B, j, kk);
        R2(C, i, j) = c;
      }
    char l[64];
    label(l, sizeof l, "T=%d M=%d N=%d K=%d", Tn, M, N, K);
    CHECK(T, call_check(&k, name, l));
    call_free(&k);
  }
}
static void t_rows_var_recomputed(Tally *T) { t_rows_var(T, "rows_var_recomputed", false); }
static void t_rows_var_kept(Tally *T) { t_rows_var(T, "rows_var_kept", true); }

/* gather_runs (tests/gpu/gather_runs.tl): gathers and scatters at cols() whose other
 * indices have one value along each row move runs in one access in the fast body; the
 * sizes and starts that are not multiples of the run take the general body. */
static void t_gather_runs(Tally *T) {
  for (int c = 0; c < 15; c++) {
    int w = c % 5, v = c / 5;
    Rng r = rng_seed("gather_runs", (uint64_t)c);
    Call k;
    static const char *const kn[] = {"embed", "rope", "cache", "paged", "skew"};
    call_init(&k, "gather_runs.tl", kn[w]);
    char l[80];
    if (w == 0) { /* D % 8 == 0, D % 4 == 0 (runs of 4), D odd (one element) */
      static const int NVD[][3] = {{300, 50, 128}, {77, 9, 104}, {45, 20, 100}};
      int N = NVD[v][0], V = NVD[v][1], D = NVD[v][2];
      Ten *E = call_in(&k, "E", F16, 2, SHAPE(V, D)), *I = call_in(&k, "I", I32, 1, SHAPE(N));
      Ten *O = call_out(&k, "O", F16, 2, SHAPE(N, D));
      fill_uniform(E, &r, -1, 1);
      fill_int(I, &r, -3, V + 2);
      for (int n = 0; n < N; n++) {
        int id = (int)I->v[n];
        for (int j = 0; j < D; j++) R2(O, n, j) = id >= 0 && id < V ? A2(E, id, j) : -1.0;
      }
      label(l, sizeof l, "embed N=%d V=%d D=%d", N, V, D);
    } else if (w == 1) { /* c0 % 2 == 0 and W even: runs of 2; else elements */
      static const int TPWC[][4] = {{50, 13, 40, 4}, {17, 5, 37, 0}, {33, 8, 40, 3}};
      int Tn = TPWC[v][0], P = TPWC[v][1], W = TPWC[v][2], c0 = TPWC[v][3];
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(Tn, 64)), *C = call_in(&k, "C", F32, 2, SHAPE(P, W));
      Ten *S = call_in(&k, "S", F32, 2, SHAPE(P, W)), *Pos = call_in(&k, "Pos", I64, 1, SHAPE(Tn));
      Ten *O = call_out(&k, "O", F32, 2, SHAPE(Tn, 64));
      fill_uniform(X, &r, -1, 1);
      fill_uniform(C, &r, -1, 1);
      fill_uniform(S, &r, -1, 1);
      fill_int(Pos, &r, -2, P + 1);
      call_arg(&k, "c0=%d", c0);
      for (int t = 0; t < Tn; t++) {
        int p = (int)Pos->v[t];
        for (int j = 0; j < 32; j++) {
          bool in = p >= 0 && p < P && c0 + j < W;
          double cv = in ? A2(C, p, c0 + j) : 0, sv = in ? A2(S, p, c0 + j) : 0;
          double x1 = A2(X, t, j), x2 = A2(X, t, j + 32);
          R2(O, t, j) = x1 * cv - x2 * sv;
          R2(O, t, j + 32) = x2 * cv + x1 * sv;
        }
      }
      label(l, sizeof l, "rope T=%d P=%d W=%d c0=%d", Tn, P, W, c0);
    } else if (w == 2) { /* distinct slots, some -1 (skipped), rows past T padded -1 */
      static const int TS[][2] = {{40, 64}, {16, 16}, {7, 30}};
      int Tn = TS[v][0], NS = TS[v][1];
      Ten *K = call_in(&k, "K", F32, 2, SHAPE(Tn, 64)), *Slot = call_in(&k, "Slot", I32, 1, SHAPE(Tn));
      Ten *KC = call_out(&k, "KC", F32, 2, SHAPE(NS, 64));
      fill_uniform(K, &r, -1, 1);
      int perm[64];
      for (int i = 0; i < NS; i++) perm[i] = i;
      for (int i = NS - 1; i > 0; i--) {
        int j = (int)rng_int(&r, 0, i), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
      }
      KC->init = calloc((size_t)KC->n, sizeof(double));
      for (long long i = 0; i < KC->n; i++) KC->ref[i] = KC->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      for (int t = 0; t < Tn; t++) {
        Slot->v[t] = t % 5 == 3 ? -1 : perm[t];
        if (Slot->v[t] >= 0)
          for (int j = 0; j < 64; j++) R2(KC, perm[t], j) = A2(K, t, j);
      }
      label(l, sizeof l, "cache T=%d NS=%d", Tn, NS);
    } else if (w == 3) { /* lengths ragged, one 0, block ids at random */
      static const int BN[][2] = {{5, 12}, {3, 40}, {2, 7}};
      int B = BN[v][0], NB = BN[v][1], MAXB = 6;
      Ten *KC = call_in(&k, "KC", BF16, 3, SHAPE(NB, 16, 64)), *BT = call_in(&k, "BT", I32, 2, SHAPE(B, MAXB));
      Ten *L = call_in(&k, "L", I32, 1, SHAPE(B));
      Ten *O = call_out(&k, "O", F32, 2, SHAPE(B, 64));
      fill_uniform(KC, &r, -1, 1);
      fill_int(BT, &r, 0, NB - 1);
      for (int b = 0; b < B; b++) {
        L->v[b] = b == 1 ? 0 : (double)rng_int(&r, 1, MAXB * 16);
        for (int j = 0; j < 64; j++) {
          double sum = 0;
          for (int t = 0; t < (int)L->v[b]; t++) sum += KC->v[((long long)A2(BT, b, t / 16) * 16 + t % 16) * 64 + j];
          R2(O, b, j) = sum;
        }
      }
      label(l, sizeof l, "paged B=%d NB=%d", B, NB);
    } else { /* rows past M read 0 */
      static const int Ms[] = {40, 16, 9};
      int M = Ms[v];
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
      Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
      fill_uniform(X, &r, -1, 1);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < 64; j++) R2(O, i, j) = i + j % 4 < M ? A2(X, i + j % 4, j) : 0;
      label(l, sizeof l, "skew M=%d", M);
    }
    CHECK(T, call_check(&k, "gather_runs", l));
    call_free(&k);
  }
}

/* gather_run_var (tests/gpu/gather_run_var.tl): a gather and a scatter at a column index
 * held in a tile var, q = o + cols(8, 64), move runs in the fast body (N % 4 == 0 and
 * o % 4 == 0) as the inline form does; runs that start before 0 or reach past N, rows
 * past M, and the general body (N or o not a multiple of 4). */
static void t_gather_run_var(Tally *T) {
  static const int MNO[][3] = {{20, 72, 8}, {17, 130, 68}, {9, 64, -8}, {20, 70, 4}, {13, 100, 2}, {8, 64, 0}};
  for (int c = 0; c < 6; c++) {
    int M = MNO[c][0], N = MNO[c][1], o = MNO[c][2];
    Rng r = rng_seed("gather_run_var", (uint64_t)c);
    Call k;
    call_init(&k, "gather_run_var.tl", "colvar");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64)), *Z = call_out(&k, "Z", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    call_arg(&k, "o=%d", o);
    Z->init = calloc((size_t)Z->n, sizeof(double));
    for (long long i = 0; i < Z->n; i++) Z->ref[i] = Z->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 64; j++) {
        bool in = o + j >= 0 && o + j < N;
        R2(Y, i, j) = in ? A2(X, i, o + j) : 0;
        if (in) R2(Z, i, o + j) = 2 * A2(X, i, o + j);
      }
    char l[80];
    label(l, sizeof l, "colvar M=%d N=%d o=%d", M, N, o);
    CHECK(T, call_check(&k, "gather_run_var", l));
    call_free(&k);
  }
}

/* element_read_once (tests/gpu/element_read_once.tl): G[r], G[r + 1] and G[r - 1] in tile
 * expressions, read once per op into a local: past G's ends (r + 1 == C, r - 1 == -1, and
 * C < R) they read 0 as before; N ragged (the general body) and a multiple of 4. */
static void t_element_read_once(Tally *T) {
  static const int RNC[][3] = {{6, 300, 6}, {9, 512, 5}, {4, 77, 7}, {5, 1000, 3}};
  for (int c = 0; c < 4; c++) {
    int R = RNC[c][0], N = RNC[c][1], C = RNC[c][2];
    Rng r = rng_seed("element_read_once", (uint64_t)c);
    Call k;
    call_init(&k, "element_read_once.tl", "scale");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(R, N)), *G = call_in(&k, "G", F32, 1, SHAPE(C));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(R, N)), *S = call_out(&k, "S", F32, 1, SHAPE(R));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(G, &r, -1, 1);
    Y->init = calloc((size_t)Y->n, sizeof(double));
    for (long long i = 0; i < Y->n; i++) Y->ref[i] = Y->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
    for (int i = 0; i < R; i++) {
      double g = i < C ? G->v[i] : 0, g1 = i + 1 < C ? G->v[i + 1] : 0, g0 = i >= 1 && i - 1 < C ? G->v[i - 1] : 0, s = 0;
      for (int j = 0; j < 512 && j < N; j++) {
        R2(Y, i, j) = A2(X, i, j) * g + g1;
        s += A2(X, i, j) * g0;
      }
      S->ref[i] = s;
    }
    char l[80];
    label(l, sizeof l, "scale R=%d N=%d C=%d", R, N, C);
    CHECK(T, call_check(&k, "element_read_once", l));
    call_free(&k);
  }
}

/* index_i64 (tests/gpu/index_i64.tl): i64 indices past 2^32 (and negative ones)
 * are out of bounds: read as 0, not written. Their low 32 bits are in bounds, so a
 * test of them in 32 bits reads and writes outside the tensors. */
static double i64_index(Rng *r, int i, int n) {
  switch (i % 4) {
  case 0: return 4294967296.0 + (double)rng_int(r, 0, n - 1); /* 2^32 + k: out, k in */
  case 1: return -4294967296.0 + (double)rng_int(r, 0, n - 1);
  default: return (double)i; /* in bounds, distinct */
  }
}

static void t_index_i64(Tally *T) {
  static const int Vs[] = {100, 64};
  for (int c = 0; c < 8; c++) {
    int w = c % 4, V = Vs[c / 4];
    Rng r = rng_seed("index_i64", (uint64_t)c);
    Call k;
    static const char *const kn[] = {"kv_append", "gather", "scatter", "window"};
    call_init(&k, "index_i64.tl", kn[w]);
    if (w == 0) {
      int B = c < 4 ? 5 : 3, S = V / 10;
      Ten *Kn = call_in(&k, "Kn", F32, 2, SHAPE(B, 64)), *Pos = call_in(&k, "Pos", I64, 1, SHAPE(B));
      Ten *Kc = call_out(&k, "Kc", F32, 3, SHAPE(B, S, 64));
      fill_uniform(Kn, &r, -1, 1);
      Kc->init = calloc((size_t)Kc->n, sizeof(double));
      for (long long i = 0; i < Kc->n; i++) Kc->ref[i] = Kc->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      for (int b = 0; b < B; b++) {
        Pos->v[b] = b % 2 ? 4294967296.0 + b : (double)(b % S);
        if (b % 2 == 0)
          for (int e = 0; e < 64; e++) Kc->ref[((long long)b * S + b % S) * 64 + e] = A2(Kn, b, e);
      }
    } else if (w == 1) {
      Ten *I = call_in(&k, "I", I64, 1, SHAPE(64)), *E = call_in(&k, "E", F32, 1, SHAPE(V));
      Ten *O = call_out(&k, "Out", F32, 1, SHAPE(64));
      fill_uniform(E, &r, -1, 1);
      for (int i = 0; i < 64; i++) {
        I->v[i] = i64_index(&r, i, V);
        O->ref[i] = I->v[i] >= 0 && I->v[i] < V ? E->v[(int)I->v[i]] : 0;
      }
    } else if (w == 2) {
      Ten *I = call_in(&k, "I", I64, 1, SHAPE(64)), *X = call_in(&k, "X", F32, 1, SHAPE(64));
      Ten *H = call_out(&k, "H", F32, 1, SHAPE(V));
      fill_uniform(X, &r, -1, 1);
      H->init = calloc((size_t)V, sizeof(double));
      for (int i = 0; i < V; i++) H->ref[i] = H->init[i] = -2;
      for (int i = 0; i < 64; i++) {
        I->v[i] = i64_index(&r, i, V);
        if (I->v[i] >= 0 && I->v[i] < V) H->ref[(int)I->v[i]] = X->v[i];
      }
    } else {
      Ten *Off = call_in(&k, "Off", I64, 1, SHAPE(1)), *X = call_in(&k, "X", F32, 1, SHAPE(V));
      Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(64));
      fill_uniform(X, &r, -1, 1);
      Off->v[0] = c < 4 ? 4294967296.0 + 2 : (double)(V - 40); /* past 2^32; or partly in */
      for (int i = 0; i < 64; i++) {
        double j = Off->v[0] + i;
        Y->ref[i] = j < V ? X->v[(int)j] : 0;
      }
    }
    char l[64];
    label(l, sizeof l, "%s V=%d", kn[w], V);
    CHECK(T, call_check(&k, "index_i64", l));
    call_free(&k);
  }
}

/* carry_fold (tests/gpu/carry_fold.tl): folds carried across a loop as each thread's
 * own fold of its rows (columns); sizes past one tile and short of it, ragged. */
static void t_carry_fold(Tally *T) {
  static const char *const kn[] = {"row_sum", "row_max", "col_sum", "col_min", "nested"};
  static const int MN[][2] = {{9, 5000}, {3, 700}, {130, 300}, {250, 70}, {6, 2100}, /* M, N per kernel */
                              {4, 2048}, {8, 1100}, {64, 256}, {99, 64}, {5, 100}};
  for (int c = 0; c < 10; c++) {
    int w = c % 5, M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("carry_fold", (uint64_t)c);
    Call k;
    call_init(&k, "carry_fold.tl", kn[w]);
    bool rows = w == 0 || w == 1 || w == 4;
    Dt dt = w == 1 ? F64 : w == 3 ? I32 : F32;
    Ten *X = call_in(&k, "X", dt, 2, SHAPE(M, N));
    Ten *O = call_out(&k, rows ? "S" : "C", dt, 1, SHAPE(rows ? M : N));
    if (w == 3) fill_int(X, &r, -100000, 100000);
    else fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < (rows ? M : N); i++) {
      double a = w == 1 ? -INFINITY : w == 3 ? 2147483647.0 : 0;
      for (int j = 0; j < (rows ? N : M); j++) {
        double x = rows ? A2(X, i, j) : A2(X, j, i);
        a = w == 1 ? fmax(a, x) : w == 3 ? fmin(a, x) : a + x;
      }
      O->ref[i] = w == 4 ? 2 * a : a;
    }
    if (w == 3 || w == 1) O->tol = 0;
    else O->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d", kn[w], M, N);
    CHECK(T, call_check(&k, "carry_fold", l));
    call_free(&k);
  }
}

/* carry_rank1 (tests/gpu/carry_rank1.tl): row sums accumulated across a loop into a
 * rank-1 tile var, carried, then folded and copied into the var's row once after the
 * loop (f32 across 2 warps a row; i32 s -= rowsum across two nested loops, exact). Ragged
 * M and N, one iteration and several, rows past M; on sm_90, sm_90a and sm_80. */
static void t_carry_rank1(Tally *T) {
  static const char *const kn[] = {"row_sum", "nested_sub"};
  static const int MN[][2] = {{9, 5000}, {4, 1024}, {3, 7}, {21, 450}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 24; c++) {
    int w = c % 2, M = MN[c / 2 % 4][0], N = MN[c / 2 % 4][1];
    Rng r = rng_seed("carry_rank1", (uint64_t)c);
    Call k;
    call_init(&k, "carry_rank1.tl", kn[w]);
    snprintf(k.target, sizeof k.target, "%s", targets[c / 8]);
    Dt dt = w ? I32 : F32;
    Ten *X = call_in(&k, "X", dt, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", dt, 1, SHAPE(M));
    if (w) fill_int(X, &r, -1000, 1000);
    else fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double a = w ? 7 : 0;
      for (int j = 0; j < N; j++) a += w ? -A2(X, i, j) : A2(X, i, j);
      S->ref[i] = a;
    }
    if (!w) S->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "%s %s M=%d N=%d", targets[c / 8], kn[w], M, N);
    CHECK(T, call_check(&k, "carry_rank1", l));
    call_free(&k);
  }
}

/* bcast_everywhere (tests/gpu/bcast_everywhere.tl): a [1, 1] row reduction every thread
 * holds, broadcast over [4, 512] and [8, 64] tiles from registers: f32 max of X (padded
 * -inf past N), i32 sum (0 past N, exact); ragged N (under one warp's run, one element),
 * M and C (a loop over C: once, several times); on sm_90, sm_90a and sm_80. */
static void t_bcast_everywhere(Tally *T) {
  static const char *const kn[] = {"row_max", "sum_loop"};
  static const int NMC[][3] = {{2048, 9, 512}, {1000, 4, 300}, {1, 5, 1}, {37, 13, 130}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 24; c++) {
    int w = c % 2, N = NMC[c / 2 % 4][0], M = NMC[c / 2 % 4][1], C = NMC[c / 2 % 4][2];
    Rng r = rng_seed("bcast_everywhere", (uint64_t)c);
    Call k;
    call_init(&k, "bcast_everywhere.tl", kn[w]);
    snprintf(k.target, sizeof k.target, "%s", targets[c / 8]);
    Dt dt = w ? I32 : F32;
    Ten *X = call_in(&k, "X", dt, 1, SHAPE(N));
    Ten *Y = call_in(&k, "Y", dt, 2, SHAPE(M, C));
    Ten *Z = call_out(&k, "Z", dt, 2, SHAPE(M, C));
    if (w) fill_int(X, &r, -1000, 1000), fill_int(Y, &r, -1000, 1000);
    else fill_uniform(X, &r, -1, 1), fill_uniform(Y, &r, -1, 1);
    double a = w ? 0 : -INFINITY;
    for (int j = 0; j < N && j < (w ? 1024 : 2048); j++) a = w ? a + X->v[j] : fmax(a, X->v[j]);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < C; j++) R2(Z, i, j) = w ? A2(Y, i, j) * a + a : A2(Y, i, j) - a;
    if (w) Z->tol = 0;
    char l[64];
    label(l, sizeof l, "%s %s N=%d M=%d C=%d", targets[c / 8], kn[w], N, M, C);
    CHECK(T, call_check(&k, "bcast_everywhere", l));
    call_free(&k);
  }
}

/* tiny_rows (tests/gpu/tiny_rows.tl): tiles of a few short rows over many warps, held
 * down the rows so that their row folds and scans stay in a warp: i32 rowsum and cumsum of
 * [2, 8] (exact), f32 softmax of [1, 16] (-inf past N). Ragged M and N (a row shorter than
 * one run, an odd last block), whole tiles; on sm_90, sm_90a and sm_80. */
static void t_tiny_rows(Tally *T) {
  static const char *const kn[] = {"sums", "softmax"};
  static const int MN[][2] = {{7, 5}, {4, 8}, {1, 1}, {9, 16}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 24; c++) {
    int w = c % 2, M = MN[c / 2 % 4][0], N = MN[c / 2 % 4][1];
    if (!w && N > 8) N = 8;
    Rng r = rng_seed("tiny_rows", (uint64_t)c);
    Call k;
    call_init(&k, "tiny_rows.tl", kn[w]);
    snprintf(k.target, sizeof k.target, "%s", targets[c / 8]);
    if (!w) {
      Ten *X = call_in(&k, "X", I32, 2, SHAPE(M, N));
      Ten *S = call_out(&k, "S", I32, 1, SHAPE(M));
      Ten *C = call_out(&k, "C", I32, 2, SHAPE(M, N));
      fill_int(X, &r, -1000, 1000);
      for (int i = 0; i < M; i++) {
        double a = 0;
        for (int j = 0; j < N; j++) a += A2(X, i, j), R2(C, i, j) = a;
        S->ref[i] = a;
      }
      S->tol = C->tol = 0;
    } else {
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
      Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
      fill_uniform(X, &r, -4, 4);
      for (int i = 0; i < M; i++) {
        double m = -INFINITY, s = 0;
        for (int j = 0; j < N; j++) m = fmax(m, A2(X, i, j));
        for (int j = 0; j < N; j++) s += exp(A2(X, i, j) - m);
        for (int j = 0; j < N; j++) R2(Y, i, j) = exp(A2(X, i, j) - m) / s;
      }
      Y->etol = 1e-5;
    }
    char l[64];
    label(l, sizeof l, "%s %s M=%d N=%d", targets[c / 8], kn[w], M, N);
    CHECK(T, call_check(&k, "tiny_rows", l));
    call_free(&k);
  }
}

/* carry_dot (tests/gpu/carry_dot.tl): reductions of a dot's accumulator carried across
 * a loop in the accumulator's layout (mma.sync's fragments, wgmma's on sm_90a), one by
 * one or as each thread's own fold of its rows; ragged M and N, one iteration and
 * several, a tile's rows past M and its columns past N. Small integers: every product and sum is exact in f32, so the
 * order the carried partials add in cannot matter and the check is exact. */
static void t_carry_dot(Tally *T) {
  static const char *const kn[] = {"row_sum", "row_max", "row_wide", "col_sum"};
  static const int MN[][2] = {{70, 300}, {130, 200}, {64, 513}, {100, 190}, /* M, N per kernel */
                              {1, 3}, {5, 1}, {129, 64}, {1, 70}};
  for (int c = 0; c < 8; c++) {
    int w = c % 4, M = MN[c][0], N = MN[c][1], tile = w == 1 ? 128 : w == 2 ? 256 : 64;
    Rng r = rng_seed("carry_dot", (uint64_t)c);
    Call k;
    call_init(&k, "carry_dot.tl", kn[w]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, 64)), *B = call_in(&k, "B", F16, 2, SHAPE(N, 64));
    Ten *O = call_out(&k, w == 3 ? "C" : "S", F32, 1, SHAPE(w == 3 ? N : M));
    fill_int(A, &r, -3, 3);
    fill_int(B, &r, -3, 3);
    int n = w == 3 ? N : M, m = w == 3 ? M : N;
    for (int i = 0; i < n; i++) {
      double a = w == 1 ? -INFINITY : 0;
      for (int j = 0; j < m; j++) {
        double d = 0;
        for (int kk = 0; kk < 64; kk++) d += w == 3 ? A2(A, j, kk) * A2(B, i, kk) : A2(A, i, kk) * A2(B, j, kk);
        a = w == 1 ? fmax(a, d) : a + d;
      }
      if (w == 1 && N % tile) a = fmax(a, 0); /* the last tile's columns past N: B's padding, z = 0 */
      O->ref[i] = a;
    }
    O->tol = 0;
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d", kn[w], M, N);
    CHECK(T, call_check(&k, "carry_dot", l));
    call_free(&k);
  }
}

/* conv_before_loop and conv_written_loop (tests/gpu): row values read in another
 * layout inside loops. The first reads qn = rowsum(Q) in a loop nest that does not
 * write it (one copy before the nest): O = qn * n + X, after the last outer iteration
 * (n = 0: O untouched). The second halves qn in each outer iteration and adds 1 to
 * w = rowmax(Q) after each inner read: O = q / 2^n + (w + (n - 1) * blocks + j / 128)
 * + X. Ragged M and N. */
static void t_conv_loop(Tally *T, const char *name, bool written) {
  static const int MNn[][3] = {{70, 200, 3}, {64, 128, 2}, {100, 300, 1}, {5, 1, 2}, {30, 130, 0}};
  for (int c = 0; c < 5; c++) {
    int M = MNn[c][0], N = MNn[c][1], n = MNn[c][2], blocks = (N + 127) / 128;
    Rng r = rng_seed(name, (uint64_t)c);
    Call k;
    char tl[64];
    snprintf(tl, sizeof tl, "%s.tl", name);
    call_init(&k, tl, name);
    Ten *Q = call_in(&k, "Q", F32, 2, SHAPE(M, 4));
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, N));
    call_arg(&k, "n=%d", n);
    fill_uniform(Q, &r, -1, 1);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double q = 0, w = -INFINITY;
      for (int kk = 0; kk < 4; kk++) q += A2(Q, i, kk), w = fmax(w, A2(Q, i, kk));
      for (int j = 0; j < N; j++)
        R2(O, i, j) = n == 0 ? NAN
                      : written ? ldexp(q, -n) + w + (n - 1) * blocks + j / 128 + A2(X, i, j)
                                : q * n + A2(X, i, j);
    }
    O->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "M=%d N=%d n=%d", M, N, n);
    CHECK(T, call_check(&k, name, l));
    call_free(&k);
  }
}
static void t_conv_before_loop(Tally *T) { t_conv_loop(T, "conv_before_loop", false); }
static void t_conv_written_loop(Tally *T) { t_conv_loop(T, "conv_written_loop", true); }

/* elem_everywhere (tests/gpu/elem_everywhere.tl): element reads of [1, 1] row values
 * every thread holds, read in registers. Per row r: mx = max X[r, :], lse = mx +
 * log(sum exp(X[r, :] - mx)); L = lse - X[r, Y[r]]; t = mx, n times t = t / 2 + lse,
 * O = X - t (n = 0: O untouched); B = lse - mx. Ragged N (at most 1024). */
static void t_elem_everywhere(Tally *T) {
  static const int MNn[][3] = {{3, 1000, 2}, {5, 37, 1}, {2, 1024, 3}, {4, 1, 1}, {3, 200, 0}};
  for (int c = 0; c < 5; c++) {
    int M = MNn[c][0], N = MNn[c][1], n = MNn[c][2];
    Rng r = rng_seed("elem_everywhere", (uint64_t)c);
    Call k;
    call_init(&k, "elem_everywhere.tl", "elem_everywhere");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_in(&k, "Y", I32, 1, SHAPE(M));
    Ten *L = call_out(&k, "L", F32, 1, SHAPE(M));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, N));
    Ten *B = call_out(&k, "B", F32, 2, SHAPE(M, 1));
    call_arg(&k, "n=%d", n);
    fill_uniform(X, &r, -4, 4);
    fill_int(Y, &r, 0, N - 1);
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, se = 0;
      for (int j = 0; j < N; j++) mx = fmax(mx, A2(X, i, j));
      for (int j = 0; j < N; j++) se += exp(A2(X, i, j) - mx);
      double lse = mx + log(se), t = mx;
      for (int q = 0; q < n; q++) t = t * 0.5 + lse;
      L->ref[i] = lse - A2(X, i, (int)Y->v[i]);
      for (int j = 0; j < N; j++) R2(O, i, j) = n ? A2(X, i, j) - t : NAN;
      B->ref[i] = lse - mx;
    }
    L->etol = O->etol = B->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "M=%d N=%d n=%d", M, N, n);
    CHECK(T, call_check(&k, "elem_everywhere", l));
    call_free(&k);
  }
}

/* conv_reuse (tests/gpu/conv_reuse.tl): c = C[n0 :+ 64], read in A's [32, 64]
 * layout and through its shared copy over [8, 64] tiles. reused: O1 = A * c,
 * O = b * c, P = b + c (flag > 0) or b - c, S = (b + n c) * c. recopied: O1 = A * c,
 * O = b * c only where flag > 0 (else untouched), P = b + c, then c = 2 c: S = b - 2 c,
 * T = b * (2 c + n) after n > 0 iterations adding 1 to c (n = 0: untouched), and
 * U = b + 2 c + n. Ragged M <= 32, R <= 8 and N (the tiles' rows and columns past
 * them masked). */
static void t_conv_reuse(Tally *T) {
  static const int MRNfn[][5] = {{20, 5, 100, 1, 3}, {32, 8, 128, 0, 2}, {1, 3, 1, 1, 0}, {7, 8, 200, 0, 1}, {32, 1, 64, 1, 0}};
  for (int c = 0; c < 10; c++) {
    bool re = c % 2;
    const int *p = MRNfn[c / 2];
    int M = p[0], R = p[1], N = p[2], flag = p[3], n = p[4];
    Rng r = rng_seed("conv_reuse", (uint64_t)c);
    Call k;
    call_init(&k, "conv_reuse.tl", re ? "recopied" : "reused");
    Ten *C = call_in(&k, "C", F32, 1, SHAPE(N));
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, N));
    Ten *B = call_in(&k, "B", F32, 2, SHAPE(R, N));
    Ten *O1 = call_out(&k, "O1", F32, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(R, N));
    Ten *P = call_out(&k, "P", F32, 2, SHAPE(R, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(R, N));
    Ten *Tt = re ? call_out(&k, "T", F32, 2, SHAPE(R, N)) : NULL;
    Ten *U = re ? call_out(&k, "U", F32, 2, SHAPE(R, N)) : NULL;
    call_arg(&k, "flag=%d", flag);
    call_arg(&k, "n=%d", n);
    fill_uniform(C, &r, -1, 1);
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int j = 0; j < N; j++) {
      double cj = C->v[j];
      for (int i = 0; i < M; i++) R2(O1, i, j) = A2(A, i, j) * cj;
      for (int i = 0; i < R; i++) {
        double b = A2(B, i, j);
        if (!re) {
          R2(O, i, j) = b * cj;
          R2(P, i, j) = flag > 0 ? b + cj : b - cj;
          R2(S, i, j) = (b + n * cj) * cj;
        } else {
          R2(O, i, j) = flag > 0 ? b * cj : NAN;
          R2(P, i, j) = b + cj;
          R2(S, i, j) = b - 2 * cj;
          R2(Tt, i, j) = n > 0 ? b * (2 * cj + n) : NAN;
          R2(U, i, j) = b + 2 * cj + n;
        }
      }
    }
    O1->etol = O->etol = P->etol = S->etol = 1e-5;
    if (re) Tt->etol = U->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "%s M=%d R=%d N=%d flag=%d n=%d", re ? "recopied" : "reused", M, R, N, flag, n);
    CHECK(T, call_check(&k, "conv_reuse", l));
    call_free(&k);
  }
}

/* copy_halves (tests/gpu/copy_halves.tl): small copies made in a loop alternate
 * halves; column walks of them (colsum, colargmax of a row value) and a transposed
 * read of a slice an @pipeline loop loads read this turn's half. M ragged. */
static void t_copy_halves(Tally *T) {
  static const int MN[][2] = {{50, 20}, {16, 8}, {100, 13}};
  for (int c = 0; c < 6; c++) {
    int M = MN[c % 3][0], N = MN[c % 3][1];
    Rng r = rng_seed("copy_halves", (uint64_t)c);
    Call k;
    char l[64];
    if (c < 3) {
      int G = (N + 7) / 8, Tn = (M + 15) / 16;
      call_init(&k, "copy_halves.tl", "colred");
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
      Ten *C = call_out(&k, "C", F32, 1, SHAPE(N));
      Ten *I = call_out(&k, "I", I32, 2, SHAPE(G, Tn));
      fill_uniform(X, &r, -1, 1);
      for (int b = 0; b < G; b++) {
        double tot = 0;
        for (int t = 0; t < Tn; t++) {
          double best = -INFINITY;
          int at = 0;
          for (int i = 0; i < 16; i++) {
            double rs = 0; /* rows past M read 0 */
            for (int j = 0; j < 8; j++)
              if (16 * t + i < M && 8 * b + j < N) rs += A2(X, 16 * t + i, 8 * b + j);
            tot += rs;
            if (rs > best) best = rs, at = i;
          }
          R2(I, b, t) = at + 16 * t;
        }
        C->ref[8 * b] = tot;
      }
      C->etol = 1e-5;
      label(l, sizeof l, "colred M=%d N=%d", M, N);
    } else {
      call_init(&k, "copy_halves.tl", "piped");
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 32));
      Ten *S = call_out(&k, "S", F32, 1, SHAPE(1));
      fill_uniform(X, &r, -1, 1);
      double t = 0;
      for (long long i = 0; i < X->n; i++) t += 2 * X->v[i];
      S->ref[0] = t;
      S->etol = 1e-5;
      label(l, sizeof l, "piped M=%d", M);
    }
    CHECK(T, call_check(&k, "copy_halves", l));
    call_free(&k);
  }
  /* square: a [32, 32] f32 tile transposed in a loop, its copy in halves; M and K ragged */
  static const int MK[][2] = {{45, 70}, {32, 96}, {1, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MK[c][0], Kd = MK[c][1];
    Rng r = rng_seed("copy_halves_square", (uint64_t)c);
    Call k;
    call_init(&k, "copy_halves.tl", "square");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, Kd));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 32));
    fill_uniform(X, &r, -1, 1);
    /* Y[m0 + i, j] = sum over k blocks of t[j, i] = X[m0 + j, k0 + i] (0 past X's end) */
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 32; j++) {
        int m0 = i / 32 * 32;
        double s = 0;
        for (int k0 = 0; k0 < Kd; k0 += 32)
          if (m0 + j < M && k0 + i % 32 < Kd) s += A2(X, m0 + j, k0 + i % 32);
        R2(Y, i, j) = s;
      }
    Y->etol = 1e-5;
    char l[64];
    label(l, sizeof l, "square M=%d K=%d", M, Kd);
    CHECK(T, call_check(&k, "copy_halves", l));
    call_free(&k);
  }
  /* mixed: a copy made before a loop and in another (in a branch) */
  static const int Ms[] = {7, 70, 1};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("copy_halves_mixed", (uint64_t)c);
    Call k;
    call_init(&k, "copy_halves.tl", "mixed");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *S = call_out(&k, "S", F32, 1, SHAPE(M));
    Ten *P = call_out(&k, "P", F32, 1, SHAPE(M));
    Ten *O = call_out(&k, "O", F32, 1, SHAPE(64));
    fill_uniform(X, &r, -1, 1);
    double t[64];
    for (int j = 0; j < 64; j++) t[j] = A2(X, 0, j);
    for (int i = 0; i < M; i++) S->ref[i] = t[i % 64];
    P->ref[0] = NAN; /* not written */
    for (int i = 1; i < M; i++) {
      if (i % 2 == 0) {
        double t5 = t[5];
        for (int j = 0; j < 64; j++) t[j] = (float)(A2(X, i, j) + t5);
      }
      P->ref[i] = t[3] + i;
    }
    for (int j = 0; j < 64; j++) O->ref[j] = t[j];
    S->etol = P->etol = O->etol = 1e-6;
    char l[64];
    label(l, sizeof l, "mixed M=%d", M);
    CHECK(T, call_check(&k, "copy_halves", l));
    call_free(&k);
  }
}

/* neg_offset: a slice starting at c - 8, in runs when c % 4 == 0 */
static void t_neg_offset(Tally *T) {
  static const int CN[][3] = {{8, 300, 2}, {20, 130, 1}, {9, 141, 3}, {100, 101, 1}};
  for (int q = 0; q < 4; q++) {
    int c = CN[q][0], N = CN[q][1], M = CN[q][2];
    Rng r = rng_seed("neg_offset", (uint64_t)q);
    Call k;
    call_init(&k, "neg_offset.tl", "neg_offset");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    call_arg(&k, "c=%d", c);
    fill_uniform(X, &r, -1, 1);
    for (long long e = 0; e < Y->n; e++) Y->ref[e] = NAN; /* untouched: stays poison */
    for (int j = 0; j < 128 && c + j < N; j++) {
      int s = c - 8 + j;
      R2(Y, 0, c + j) = 2 * (s < N ? A2(X, 0, s) : 0);
    }
    char l[64];
    label(l, sizeof l, "c=%d N=%d M=%d", c, N, M);
    CHECK(T, call_check(&k, "neg_offset", l));
    call_free(&k);
  }
}

/* else_copy: a register tile read through its shared copy in both branches of an if */
static void t_else_copy(Tally *T) {
  static const int MF[][2] = {{32, 0}, {45, 0}, {7, 0}, {32, 1}, {7, 1}};
  for (int q = 0; q < 5; q++) {
    int M = MF[q][0], flag = MF[q][1];
    Rng r = rng_seed("else_copy", (uint64_t)q);
    Call k;
    call_init(&k, "else_copy.tl", "else_copy");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 32));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 2));
    call_arg(&k, "flag=%d", flag);
    fill_uniform(X, &r, -1, 1);
    for (long long e = 0; e < O->n; e++) O->ref[e] = NAN; /* untouched: stays poison */
    for (int m = 0; m < 32 && m < M; m++) {
      if (flag) R2(O, m, 0) = 2 * A2(X, m, 5);
      else R2(O, m, 1) = 2 * A2(X, m, 7) + 1;
    }
    char l[64];
    label(l, sizeof l, "M=%d flag=%d", M, flag);
    CHECK(T, call_check(&k, "else_copy", l));
    call_free(&k);
  }
}

/* loop_bounds: a loop's end and step are taken when it starts, whatever its body assigns */
static void t_loop_bounds(Tally *T) {
  static const int MNn[][3] = {{16, 200, 5}, {21, 64, 0}, {7, 1, 3}, {40, 300, 12}};
  for (int q = 0; q < 4; q++) {
    int M = MNn[q][0], N = MNn[q][1], n = MNn[q][2];
    Rng r = rng_seed("loop_bounds", (uint64_t)q);
    Call k;
    call_init(&k, "loop_bounds.tl", "loop_bounds");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
    call_arg(&k, "n=%d", n);
    fill_uniform(X, &r, -1, 1);
    int trips = 0, end = N, step = 64;
    for (int k0 = 0; k0 < N; k0 += 64) trips++, end -= 64, step += 64; /* the first end and step, as written */
    for (int m = 0; m < M; m++)
      for (int c = 0; c < 64; c++) {
        double s = 0;
        for (int t = 0; t < trips; t++)
          if (t * 64 + c < N) s += A2(X, m, t * 64 + c);
        R2(O, m, c) = s + n + (end - N + step);
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d n=%d", M, N, n);
    CHECK(T, call_check(&k, "loop_bounds", l));
    call_free(&k);
  }
}

/* ring_bounds: a pipelined GEMM whose body lowers the var its loop's end reads */
static void t_ring_bounds(Tally *T) {
  static const int MNK[][3] = {{64, 64, 100}, {70, 33, 32}, {9, 130, 7}};
  for (int q = 0; q < 3; q++) {
    int M = MNK[q][0], N = MNK[q][1], K = MNK[q][2];
    Rng r = rng_seed("ring_bounds", (uint64_t)q);
    Call k;
    call_init(&k, "loop_bounds.tl", "ring_bounds");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    int kend = K;
    for (int k0 = 0; k0 < K; k0 += 32) kend -= 32;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int t = 0; t < K; t++) s += A2(A, i, t) * A2(B, t, j);
        R2(C, i, j) = s + kend;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "ring_bounds", l));
    call_free(&k);
  }
}

/* simt_dot_wg: a CUDA-core dot accumulating into a matrix-unit accumulator that feeds a register-A dot */
static void t_simt_dot_wg(Tally *T) {
  static const int MK[][2] = {{64, 48}, {50, 20}, {9, 5}};
  for (int q = 0; q < 3; q++) {
    int M = MK[q][0], K = MK[q][1];
    Rng r = rng_seed("simt_dot_wg", (uint64_t)q);
    Call k;
    call_init(&k, "simt_dot_wg.tl", "simt_dot_wg");
    Ten *H = call_in(&k, "H", F16, 2, SHAPE(M, K));
    Ten *G = call_in(&k, "G", F16, 2, SHAPE(K, 16));
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(M, 8));
    Ten *Z = call_in(&k, "Z", F32, 2, SHAPE(8, 16));
    Ten *V = call_in(&k, "V", F16, 2, SHAPE(16, 32));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 32));
    fill_uniform(H, &r, -1, 1);
    fill_uniform(G, &r, -1, 1);
    fill_uniform(A, &r, -1, 1);
    fill_uniform(Z, &r, -1, 1);
    fill_uniform(V, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double acc[16];
      for (int j = 0; j < 16; j++) {
        double s = 0;
        for (int t = 0; t < K; t++) s += A2(H, i, t) * A2(G, t, j);
        for (int t = 0; t < 8; t++) s -= A2(A, i, t) * A2(Z, t, j);
        acc[j] = round_dt(F16, s); /* f16(acc): the A operand of the second dot */
      }
      for (int j = 0; j < 32; j++) {
        double s = 0;
        for (int t = 0; t < 16; t++) s += acc[t] * A2(V, t, j);
        R2(O, i, j) = s;
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d K=%d", M, K);
    CHECK(T, call_check(&k, "simt_dot_wg", l));
    call_free(&k);
  }
}

/* dot_i8_pipelined: an i8 GEMM whose B (too large for registers) is copied transposed, in a @pipeline loop */
static void t_dot_i8_pipelined(Tally *T) {
  static const int MNK[][3] = {{11, 99, 45}, {20, 64, 128}, {3, 130, 200}};
  for (int q = 0; q < 3; q++) {
    int M = MNK[q][0], N = MNK[q][1], K = MNK[q][2];
    Rng r = rng_seed("dot_i8_pipelined", (uint64_t)q);
    Call k;
    call_init(&k, "dot_i8_pipelined.tl", "dot_i8_pipelined");
    Ten *A = call_in(&k, "I", I8, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "J", I8, 2, SHAPE(K, N));
    Ten *O = call_out(&k, "O", I32, 2, SHAPE(M, N));
    fill_int(A, &r, -128, 127);
    fill_int(B, &r, -128, 127);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int t = 0; t < K; t++) s += A2(A, i, t) * A2(B, t, j);
        R2(O, i, j) = s;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "dot_i8_pipelined", l));
    call_free(&k);
  }
}

/* slice_rmw: a [1, 32] slice read and stored back in one statement, in a column reduction's layout */
static void t_slice_rmw(Tally *T) {
  static const int MN[][2] = {{64, 71}, {3, 20}, {1, 32}};
  for (int q = 0; q < 3; q++) {
    int M = MN[q][0], N = MN[q][1];
    Rng r = rng_seed("slice_rmw", (uint64_t)q);
    Call k;
    call_init(&k, "slice_rmw.tl", "slice_rmw");
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, N));
    O->init = calloc((size_t)O->n, sizeof(double));
    for (long long e = 0; e < O->n; e++) O->init[e] = round_dt(F32, rng_uniform(&r, -2, 2)), O->ref[e] = O->init[e];
    for (int j = 0; j < 32 && j < N; j++) {
      double o = O->init[j], m = -1; /* rows 0..7 of the where: O[0, j] where row > j, else -1 */
      for (int i = 0; i < 8; i++)
        if (i > j && o > m) m = o;
      R2(O, 0, j) = m - exp(-fabs(o));
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "slice_rmw", l));
    call_free(&k);
  }
}

/* reg_bcast_mma: a @registers [1, 64] tile added down an mma accumulator's rows */
static void t_reg_bcast_mma(Tally *T) {
  static const int Ms[] = {32, 45, 7};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("reg_bcast_mma", (uint64_t)c);
    Call k;
    call_init(&k, "reg_bcast_mma.tl", "reg_bcast_mma");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, 16));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(16, 64));
    Ten *R = call_in(&k, "R", F32, 2, SHAPE(1, 64));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(R, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 64; j++) {
        double s = 0;
        for (int q = 0; q < 16; q++) s += A2(A, i, q) * A2(B, q, j);
        R2(O, i, j) = s + 2 * A2(R, 0, j);
      }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "reg_bcast_mma", l));
    call_free(&k);
  }
}

/* ranks mixing: a rank-1 slice broadcast as a row, a [M, 1] value stored into a rank-1 slice */
static void t_rank_mix(Tally *T) {
  static const int Ms[] = {37, 8, 1};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("rank_mix", (uint64_t)c);
    Call k;
    call_init(&k, "rank_mix.tl", "rank_mix");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 40));
    Ten *W = call_in(&k, "W", F32, 1, SHAPE(40));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 40));
    Ten *R = call_out(&k, "R", F32, 1, SHAPE(M));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double s = 0;
      for (int j = 0; j < 40; j++) {
        double p = A2(X, i, j) * W->v[j];
        R2(Y, i, j) = p + 1.0;
        s += p;
      }
      R->ref[i] = s;
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "rank_mix", l));
    call_free(&k);
  }
}

/* ranks mixing: a [1, 1] value stored into, and atomically added to, rank-1
 * slices broadcasts over them */
static void t_rank_mix_unit(Tally *T) {
  static const int Ms[] = {37, 8, 1};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], G = (M + 7) / 8;
    Rng r = rng_seed("rank_mix_unit", (uint64_t)c);
    Call k;
    call_init(&k, "rank_mix_unit.tl", "rank_mix_unit");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 8));
    Ten *R = call_out(&k, "R", F32, 1, SHAPE(M));
    Ten *S = call_out(&k, "S", F32, 1, SHAPE(8));
    fill_uniform(X, &r, -1, 1);
    S->init = calloc(8, sizeof(double));
    for (int j = 0; j < 8; j++) S->ref[j] = S->init[j] = rng_uniform(&r, -1, 1);
    for (int b = 0; b < G; b++) {
      double s = 0;
      for (int j = 0; j < 8; j++) s += A2(X, 8 * b, j);
      for (int i = 8 * b; i < 8 * b + 8 && i < M; i++) R->ref[i] = s;
      for (int j = 0; j < 8; j++) S->ref[j] += s;
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "rank_mix_unit", l));
    call_free(&k);
  }
}

/* scatter_col_value (tests/gpu/scatter_col_value.tl): an [M, 1] value scattered
 * through rank-1 indices goes to element I[t] for row t (the unit dim drops), as a
 * store, a store at a 2-index target with a scalar head, and an atomic; ragged N,
 * distinct slots with some -1 (skipped), rows past N padded -1 */
/* perm[0..n) = 0..n-1 in a random order */
static void shuffle(Rng *r, int *perm, int n) {
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)rng_int(r, 0, i), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
}

static void t_scatter_col_value(Tally *T) {
  static const int NHS[][3] = {{37, 3, 45}, {16, 2, 16}, {5, 1, 9}};
  for (int c = 0; c < 3; c++) {
    int N = NHS[c][0], H = NHS[c][1], S = NHS[c][2];
    Rng r = rng_seed("scatter_col_value", (uint64_t)c);
    Call k;
    call_init(&k, "scatter_col_value.tl", "scatter_col_value");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(N, 40));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(N)), *Slot = call_in(&k, "Slot", I32, 1, SHAPE(N));
    Ten *O = call_out(&k, "O", F32, 1, SHAPE(N)), *SC = call_out(&k, "SC", F32, 2, SHAPE(S, H));
    Ten *A = call_out(&k, "A", F32, 1, SHAPE(S));
    fill_uniform(X, &r, -1, 1);
    int perm[64], ip[64];
    shuffle(&r, perm, S);
    shuffle(&r, ip, N);
    for (int t = 0; t < N; t++) I->v[t] = ip[t];
    A->init = calloc((size_t)S, sizeof(double));
    for (int s = 0; s < S; s++) A->ref[s] = A->init[s] = round_dt(F32, rng_uniform(&r, -1, 1));
    for (int t = 0; t < N; t++) {
      Slot->v[t] = t % 5 == 3 ? -1 : perm[t];
      O->ref[ip[t]] = A2(X, t, 0);
      if (Slot->v[t] < 0) continue;
      double sum = 0;
      for (int j = 0; j < 40; j++) sum += A2(X, t, j);
      A->ref[perm[t]] += sum;
      for (int h = 0; h < H; h++) {
        double m = 0;
        for (int j = 0; j < 40; j++) m = fmax(m, fabs(A2(X, t, j) * (h + 1)));
        R2(SC, perm[t], h) = m / 127.0;
      }
    }
    char l[64];
    label(l, sizeof l, "N=%d H=%d S=%d", N, H, S);
    CHECK(T, call_check(&k, "scatter_col_value", l));
    call_free(&k);
  }
}

/* ranks mixing in assignments: a rank-1 slice into a rank-2 var, two of its
 * rows and a rank-2 tensor slice (the row broadcast down the rows), at ragged
 * M and N */
static void t_rank_mix_assign(Tally *T) {
  static const int Ms[] = {37, 8, 1}, Ns[] = {45, 64, 7};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], N = Ns[c];
    Rng r = rng_seed("rank_mix_assign", (uint64_t)c);
    Call k;
    call_init(&k, "rank_mix_assign.tl", "rank_mix_assign");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *B = call_in(&k, "B", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *Z = call_out(&k, "Z", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        R2(Y, i, j) = i % 8 < 2 ? 2.0 * B->v[j] : A2(X, i, j) + B->v[j];
        R2(Z, i, j) = B->v[j];
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "rank_mix_assign", l));
    call_free(&k);
  }
}

/* where() of conditions affine in rows() and cols(), tested once per tile where
 * they hold throughout (uniform.c): tiles on both sides of the guard */
static void t_where_uniform(Tally *T) {
  static const int Ms[] = {37, 16, 5}, Ns[] = {45, 64, 3}, Lo[] = {3, 40, 0}, Hi[] = {5, -20, 100};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], N = Ns[c], lo = Lo[c], hi = Hi[c];
    Rng r = rng_seed("where_uniform", (uint64_t)c);
    Call k;
    call_init(&k, "where_uniform.tl", "where_uniform");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *Z = call_out(&k, "Z", F32, 2, SHAPE(M, N));
    call_arg(&k, "lo=%d", lo);
    call_arg(&k, "hi=%d", hi);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double x = A2(X, i, j);
        R2(Y, i, j) = i - 2 * j < hi && -j <= -lo ? x : -x;
        R2(Z, i, j) = x > 0.5 || j >= lo ? 2 * x : x;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d lo=%d hi=%d", M, N, lo, hi);
    CHECK(T, call_check(&k, "where_uniform", l));
    call_free(&k);
  }
}

/* where() conditions named by mask vars (uniform.c, uniform_masks): the guard of the
 * expression each names, ok and right not held, inb kept for a store that reads it */
static void t_where_mask_var(Tally *T) {
  static const int Ms[] = {37, 32, 5, 20}, Ns[] = {45, 64, 3, 33}, Lo[] = {3, -2, 0, 40};
  for (int c = 0; c < 4; c++) {
    int M = Ms[c], N = Ns[c], lo = Lo[c];
    Rng r = rng_seed("where_mask_var", (uint64_t)c);
    Call k;
    call_init(&k, "where_mask_var.tl", "where_mask_var");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *Z = call_out(&k, "Z", F32, 2, SHAPE(M, N));
    Ten *C = call_out(&k, "C", I32, 2, SHAPE(M, N));
    call_arg(&k, "lo=%d", lo);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double x = A2(X, i, j);
        R2(Y, i, j) = j % 32 >= lo || j >= 32 ? exp(x) : -1.0; /* in bounds: ok holds */
        R2(Z, i, j) = 2 * x;
        R2(C, i, j) = 1;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d lo=%d", M, N, lo);
    CHECK(T, call_check(&k, "where_mask_var", l));
    call_free(&k);
  }
}

/* where_index_vars: a sliding-window mask of named index tiles, guarded once per tile
 * (uniform.c); ragged M and N, a window narrower and wider than a tile */
static void t_where_index_vars(Tally *T) {
  static const int Ms[] = {100, 64, 5, 130}, Ns[] = {90, 64, 7, 200}, Ws[] = {40, 100, 3, 17};
  for (int c = 0; c < 4; c++) {
    int M = Ms[c], N = Ns[c], W = Ws[c];
    Rng r = rng_seed("where_index_vars", (uint64_t)c);
    Call k;
    call_init(&k, "where_index_vars.tl", "where_index_vars");
    Ten *S = call_in(&k, "S", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    call_arg(&k, "W=%d", W);
    fill_uniform(S, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(Y, i, j) = A2(S, i, j) + (j <= i && j > i - W ? 0.0 : -1.0);
    char l[64];
    label(l, sizeof l, "M=%d N=%d W=%d", M, N, W);
    CHECK(T, call_check(&k, "where_index_vars", l));
    call_free(&k);
  }
}

/* where_store: a store of a where() in a loop, guarded once per tile (uniform.c); ragged */
static void t_where_store(Tally *T) {
  static const int Ms[] = {100, 64, 5, 130}, Ns[] = {90, 64, 7, 200}, Ws[] = {40, 100, 3, 17};
  for (int c = 0; c < 4; c++) {
    int M = Ms[c], N = Ns[c], W = Ws[c];
    Rng r = rng_seed("where_store", (uint64_t)c);
    Call k;
    call_init(&k, "where_store.tl", "where_store");
    Ten *S = call_in(&k, "S", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    call_arg(&k, "W=%d", W);
    fill_uniform(S, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(Y, i, j) = j <= i && j > i - W ? 2 * A2(S, i, j) : -1.0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d W=%d", M, N, W);
    CHECK(T, call_check(&k, "where_store", l));
    call_free(&k);
  }
}

/* window_var_recompute (tests/gpu/window_var_recompute.tl): tile vars of rows(),
 * cols() and scalars read by partial tile writes, computed again at the window's
 * elements (lower.c recompute_leaf): an index var at a window a column in, a red-black
 * sweep's masks in a loop, a var declared in the loop, one also stored whole; ragged
 * M, n cutting the index or not, c0 positive, zero, negative; sm_90, sm_90a, sm_80. */
static void t_window_var_recompute(Tally *T) {
  static const int Cs[][3] = {{37, 30, 3}, {16, 62, 0}, {5, 0, -5}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 9; c++) {
    int M = Cs[c % 3][0], n = Cs[c % 3][1], c0 = Cs[c % 3][2];
    Rng r = rng_seed("window_var_recompute", (uint64_t)c);
    Call k;
    call_init(&k, "window_var_recompute.tl", "win_remat");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 3]);
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
    Ten *Q = call_out(&k, "Q", I32, 2, SHAPE(M, 8));
    call_arg(&k, "n=%d", n);
    call_arg(&k, "c0=%d", c0);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      int m0 = i / 16 * 16, rr = i % 16;
      double u[64];
      for (int j = 0; j < 64; j++) u[j] = A2(X, i, j);
      for (int j = 1; j < 63; j++)
        if (!(j - 1 < n)) u[j] = j - 1;
      for (int it = 0; it < 3; it++)
        for (int pass = 0; pass < 2 && rr >= 1 && rr < 15; pass++)
          for (int j = 1; j < 63; j++) {
            int s = m0 + (rr - 1) + (j - 1) + c0; /* C's %, as the kernel's */
            bool red = s % 2 == 0, inner = m0 + rr < M - 1 && j - 1 >= c0;
            if (pass == 0 && red && inner) u[j] = u[j] * 0.5 + (j - 1 + it);
            if (pass == 1 && !red && inner) u[j] -= it;
          }
      for (int j = 0; j < 8; j++) {
        R2(Q, i, j) = (m0 + rr) * 8 + j;
        u[56 + j] += (m0 + rr) * 8 + j;
      }
      for (int j = 0; j < 64; j++) R2(Y, i, j) = u[j];
    }
    char l[64];
    label(l, sizeof l, "%s M=%d n=%d c0=%d", k.target, M, n, c0);
    CHECK(T, call_check(&k, "window_var_recompute", l));
    call_free(&k);
  }
}

/* rows()/cols() as operands of * and % at every element of a thread, in values
 * and in a gather's indices (rows past M read pad's -1); rowsum of a where and
 * of a shift folded in-thread */
static void t_index_arith(Tally *T) {
  static const int MN[][2] = {{7, 5}, {3, 9}, {1, 2}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("index_arith", (uint64_t)c);
    Call k;
    call_init(&k, "index_arith.tl", "index_arith");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *A = call_out(&k, "A", I32, 2, SHAPE(4, 64));
    Ten *G = call_out(&k, "G", F32, 2, SHAPE(4, 64));
    Ten *R = call_out(&k, "R", F32, 2, SHAPE(4, 1));
    Ten *I = call_out(&k, "I", I32, 2, SHAPE(4, 1));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < 4; i++) {
      R->ref[i] = I->ref[i] = 0;
      for (int j = 0; j < 64; j++) {
        R2(A, i, j) = j * 3 + i * 100 % 7;
        R2(G, i, j) = 2 * i < M && j % 5 < N ? A2(X, 2 * i, j % 5) : -1.0;
        double x = i % 3 < M && j % 7 < N ? A2(X, i % 3, j % 7) : -1.0;
        R->ref[i] += x > 0 ? 1.0 : 0.5;
        I->ref[i] += (double)(j << (i + 1));
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "index_arith", l));
    call_free(&k);
  }
}

/* gathers and scatters: ids partly outside E (pad -1), a histogram by atomic
 * scatter, a scatter by a permutation (no two threads write one element) */
static void t_gather(Tally *T) {
  static const int NV[][2] = {{300, 50}, {128, 7}, {1, 1}};
  for (int c = 0; c < 3; c++) {
    int N = NV[c][0], V = NV[c][1];
    Rng r = rng_seed("gather", (uint64_t)c);
    Call k;
    call_init(&k, "gather.tl", "gather");
    Ten *E = call_in(&k, "E", F32, 2, SHAPE(V, 32));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(N));
    Ten *J = call_in(&k, "J", I32, 1, SHAPE(N));
    Ten *X = call_in(&k, "X", I32, 1, SHAPE(N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(N, 32));
    Ten *H = call_out(&k, "H", I32, 1, SHAPE(16));
    Ten *P = call_out(&k, "P", F32, 1, SHAPE(N));
    fill_uniform(E, &r, -1, 1);
    fill_int(I, &r, -3, V + 2);
    fill_int(X, &r, 0, 999);
    for (int i = 0; i < N; i++) J->v[i] = i;
    for (int i = N - 1; i > 0; i--) { /* a random permutation */
      int j = (int)rng_int(&r, 0, i);
      double t = J->v[i];
      J->v[i] = J->v[j], J->v[j] = t;
    }
    H->init = calloc(16, sizeof(double));
    for (int i = 0; i < 16; i++) H->ref[i] = 0;
    for (int n = 0; n < N; n++) {
      int id = (int)I->v[n];
      for (int j = 0; j < 32; j++) R2(O, n, j) = id >= 0 && id < V ? A2(E, id, j) : -1.0;
      H->ref[(int)X->v[n] % 16] += 1;
      P->ref[(int)J->v[n]] = X->v[n] * 0.5;
    }
    char l[64];
    label(l, sizeof l, "N=%d V=%d", N, V);
    CHECK(T, call_check(&k, "gather_scatter", l));
    call_free(&k);
  }
}

/* reshape: [4, 8] blocks of X as [8, 4] (x2) and as [32], row-major order kept */
static void t_reshape(Tally *T) {
  static const int Ms[] = {13, 8, 1};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], R = 2 * M, F = 8 * M;
    Rng r = rng_seed("reshape", (uint64_t)c);
    Call k;
    call_init(&k, "reshape.tl", "reshape_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 8));
    Ten *A = call_out(&k, "A", F32, 2, SHAPE(R, 4));
    Ten *B = call_out(&k, "B", F32, 1, SHAPE(F));
    fill_uniform(X, &r, -1, 1);
    for (int e = 0; e < 8 * M; e++) A->ref[e] = 2 * X->v[e], B->ref[e] = X->v[e];
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "reshape", l));
    call_free(&k);
  }
}

static void t_dot_i8(Tally *T) {
  static const int MNK[][3] = {{37, 50, 200}, {16, 16, 64}, {3, 5, 7}};
  for (int c = 0; c < 3; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("dot_i8", (uint64_t)c);
    Call k;
    call_init(&k, "dot_i8.tl", "dot_i8");
    Ten *A = call_in(&k, "A", I8, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", I8, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", I32, 2, SHAPE(M, N));
    fill_int(A, &r, -128, 127);
    fill_int(B, &r, -128, 127);
    gemm_ref(A, B, C, M, N, K, 1);
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "dot_i8", l));
    call_free(&k);
  }
}

/* ---- dot forms on tensor cores (tests/gpu/dot_forms_*.tl): each kernel is lowered
 * through the tile IR (tile2cu --dump-tir shows its `dot` op). Sizes: ragged M, N
 * and K, among them sizes that take the general body and sizes that take the
 * 16-byte one (its condition is the "fast body when" line of --dump-tir: K % 8 == 0
 * for A B^T and the dots in expressions, M % 8 == N % 8 == 0 for A^T B, K % 2 == 0
 * and N % 4 == 0 for the register A operand), one case where everything is a
 * multiple of the tiles, and one smaller than a tile. The references are double sums of
 * the f16/bf16 inputs; f32 outputs get 1e-5, as dot_f16 (exact products, f32
 * accumulation); f16/bf16 outputs are compared with the reference rounded once to
 * their type, within about half an ulp of it, as examples/gemm_f16 and gemm_bf16. */

/* C = A B^T, B stored [N, K]: dot(a, transpose(b)) under @pipeline(2) */
static void t_dot_f16_abt(Tally *T) {
  static const int MNK[][3] = {{37, 50, 100}, {64, 64, 64}, {70, 40, 48}, {5, 3, 7}};
  /* each size on the default target, and on sm_90a (wgmma, B K-major) */
  for (int c2 = 0; c2 < 8; c2++) {
    int c = c2 / 2, M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("dot_f16_transposed_b", (uint64_t)c);
    Call k;
    call_init(&k, "dot_forms_abt.tl", "dot_f16_transposed_b");
    if (c2 % 2) snprintf(k.target, sizeof k.target, "sm_90a");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(N, K));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    Ten *C16 = call_out(&k, "C16", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, j, kk);
        R2(C, i, j) = s;
        R2(C16, i, j) = round_dt(F16, s);
      }
    C->tol = 1e-5;
    C16->tol = 1e-3;
    char l[64];
    label(l, sizeof l, "%sM=%d N=%d K=%d", c2 % 2 ? "sm_90a " : "", M, N, K);
    CHECK(T, call_check(&k, "dot_f16_transposed_b", l));
    call_free(&k);
  }
}

/* pipeline_transpose (tests/gpu/pipeline_abt_f32.tl, pipeline_atb_f32.tl,
 * pipeline_abt_f64.tl, dot_forms_abt.tl): a dot with a transposed operand in a
 * @pipeline loop, whose operands' stage rings cp.async fills. f32 A B^T at 1, 2 and
 * 3 stages (b's ring has an odd pitch: 4-byte cp.async), f32 A^T B, f64 A B^T and f16
 * A B^T (16-byte cp.async); ragged M, N and K (K % 4 == 0 takes the fast body, with
 * runs of 16 bytes), an exact multiple and one smaller than a tile. The references
 * are double sums of the inputs. */
static void t_pipeline_transpose(Tally *T) {
  /* K a multiple of 4 (rows 16-byte aligned: the fast body) but not of BK, and not */
  static const int MNK[][3] = {{70, 100, 76}, {37, 50, 75}, {128, 64, 96}, {5, 3, 7}};
  static const struct {
    const char *tl, *kernel, *d;
    Dt dt;
    bool atb;
  } F[] = {
      {"pipeline_abt_f32.tl", "pipeline_abt_f32", "STAGES=1", F32, false},
      {"pipeline_abt_f32.tl", "pipeline_abt_f32", "STAGES=2", F32, false},
      {"pipeline_abt_f32.tl", "pipeline_abt_f32", "STAGES=3", F32, false},
      {"pipeline_atb_f32.tl", "pipeline_atb_f32", NULL, F32, true},
      {"pipeline_abt_f64.tl", "pipeline_abt_f64", NULL, F64, false},
      {"dot_forms_abt.tl", "dot_f16_transposed_b", NULL, F16, false},
  };
  for (int f = 0; f < (int)(sizeof F / sizeof F[0]); f++)
    for (int c = 0; c < 4; c++) {
      int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
      Rng r = rng_seed(F[f].kernel, (uint64_t)(f * 4 + c));
      Call k;
      call_init(&k, F[f].tl, F[f].kernel);
      if (F[f].d) call_arg(&k, "-D%s", F[f].d);
      Ten *A = F[f].atb ? call_in(&k, "A", F[f].dt, 2, SHAPE(K, M)) : call_in(&k, "A", F[f].dt, 2, SHAPE(M, K));
      Ten *B = F[f].atb ? call_in(&k, "B", F[f].dt, 2, SHAPE(K, N)) : call_in(&k, "B", F[f].dt, 2, SHAPE(N, K));
      Ten *C = call_out(&k, "C", F[f].dt == F16 ? F32 : F[f].dt, 2, SHAPE(M, N));
      Ten *C16 = F[f].dt == F16 ? call_out(&k, "C16", F16, 2, SHAPE(M, N)) : NULL;
      fill_uniform(A, &r, -1, 1);
      fill_uniform(B, &r, -1, 1);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = 0;
          for (int kk = 0; kk < K; kk++) s += F[f].atb ? A2(A, kk, i) * A2(B, kk, j) : A2(A, i, kk) * A2(B, j, kk);
          R2(C, i, j) = s;
          if (C16) R2(C16, i, j) = round_dt(F16, s);
        }
      if (C16) C->tol = 1e-5, C16->tol = 1e-3;
      char l[96];
      label(l, sizeof l, "%s%s%s M=%d N=%d K=%d", F[f].kernel, F[f].d ? " " : "", F[f].d ? F[f].d : "", M, N, K);
      CHECK(T, call_check(&k, "pipeline_transpose", l));
      call_free(&k);
    }
}

/* C = A^T B, A stored [K, M], bf16: dot(transpose(a), b) */
static void t_dot_bf16_atb(Tally *T) {
  static const int MNK[][3] = {{37, 50, 100}, {64, 64, 64}, {40, 56, 45}, {5, 3, 7}};
  for (int c = 0; c < 4; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("dot_bf16_transposed_a", (uint64_t)c);
    Call k;
    call_init(&k, "dot_forms_atb.tl", "dot_bf16_transposed_a");
    Ten *A = call_in(&k, "A", BF16, 2, SHAPE(K, M));
    Ten *B = call_in(&k, "B", BF16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    Ten *CB = call_out(&k, "CB", BF16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, kk, i) * A2(B, kk, j);
        R2(C, i, j) = s;
        R2(CB, i, j) = round_dt(BF16, s);
      }
    C->tol = 1e-5;
    CB->tol = 8e-3;
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "dot_bf16_transposed_a", l));
    call_free(&k);
  }
}

/* The transposed-A forms that wgmma reads MN-major (tests/gpu/dot_wgmma_forms.tl),
 * each size on the default target (mma.sync) and on sm_90a (wgmma): C = A^T B
 * (f16, spilled copies) and C = A^T B^T (bf16, cp.async rings, N = 96). Ragged
 * sizes take the element-by-element body (M or N or K not a multiple of 8). */
static void t_dot_wgmma_forms(Tally *T) {
  static const int MNK[][3] = {{37, 50, 100}, {64, 64, 64}, {130, 96, 128}, {70, 100, 45}, {5, 3, 7}};
  for (int f = 0; f < 2; f++)
    for (int c2 = 0; c2 < 10; c2++) {
      int c = c2 / 2, M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
      const char *kn = f ? "dot_wgmma_atbt" : "dot_wgmma_atb";
      Dt dt = f ? BF16 : F16;
      Rng r = rng_seed(kn, (uint64_t)c);
      Call k;
      call_init(&k, "dot_wgmma_forms.tl", kn);
      if (c2 % 2) snprintf(k.target, sizeof k.target, "sm_90a");
      Ten *A = call_in(&k, "A", dt, 2, SHAPE(K, M));
      Ten *B = call_in(&k, "B", dt, 2, f ? SHAPE(N, K) : SHAPE(K, N));
      Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
      Ten *CB = f ? call_out(&k, "CB", BF16, 2, SHAPE(M, N)) : NULL;
      fill_uniform(A, &r, -1, 1);
      fill_uniform(B, &r, -1, 1);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = 0;
          for (int kk = 0; kk < K; kk++) s += A2(A, kk, i) * (f ? A2(B, j, kk) : A2(B, kk, j));
          R2(C, i, j) = s;
          if (CB) R2(CB, i, j) = round_dt(BF16, s);
        }
      C->tol = 1e-5;
      if (CB) CB->tol = 8e-3;
      char l[64];
      label(l, sizeof l, "%sM=%d N=%d K=%d", c2 % 2 ? "sm_90a " : "", M, N, K);
      CHECK(T, call_check(&k, kn, l));
      call_free(&k);
    }
}

/* wgmma's register-A form (tests/gpu/wgmma_register_a.tl): attention over S keys
 * for 64-row query blocks, each size on the default target (mma.sync) and on
 * sm_90a (wgmma, P packed from registers). The reference is exact (double) on the
 * f16 inputs; the kernel rounds P to f16 before P V, so the tolerance is a few times f16 rounding. */
/* One batched GEMM case of tl's kernel kern, C [Bt, M, 64] in type out (rounded once). */
static void batched_gemm(Tally *T, const char *tl, const char *kern, const char *name, int out, int Bt, int M, int K,
                         bool sm90a, uint64_t seed) {
  int N = 64;
  Rng r = rng_seed(name, seed);
  Call k;
  call_init(&k, tl, kern);
  if (sm90a) snprintf(k.target, sizeof k.target, "sm_90a");
  Ten *A = call_in(&k, "A", F16, 3, SHAPE(Bt, M, K));
  Ten *B = call_in(&k, "B", F16, 3, SHAPE(Bt, K, N));
  Ten *C = call_out(&k, "C", out, 3, SHAPE(Bt, M, N));
  fill_uniform(A, &r, -1, 1);
  fill_uniform(B, &r, -1, 1);
  for (int b = 0; b < Bt; b++)
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++)
          s += A->v[((long long)b * M + i) * K + kk] * B->v[((long long)b * K + kk) * N + j];
        C->ref[((long long)b * M + i) * N + j] = out == F32 ? s : round_dt(out, s);
      }
  C->tol = 1e-3;
  char l[64];
  label(l, sizeof l, "%sBt=%d M=%d K=%d", sm90a ? "sm_90a " : "", Bt, M, K);
  CHECK(T, call_check(&k, name, l));
  call_free(&k);
}

/* A batched GEMM of rank-3 tensors (tests/gpu/tma_batched.tl): on sm_90a its stage
 * rings are filled by rank-3 TMA boxes. K = 584 refills every stage of the 3-stage
 * ring (10 iterations), K = 77 takes the general body (K % 8 != 0), M = 70, 37 and 5
 * leave a block's rows past M (zeros from TMA), and a second batch must read its own
 * rows, not the next batch's. Exact products, f32 sums. */
static void t_tma_batched(Tally *T) {
  static const int BMK[][3] = {{2, 70, 200}, {3, 64, 584}, {1, 5, 8}, {2, 37, 77}};
  for (int c2 = 0; c2 < 8; c2++)
    batched_gemm(T, "tma_batched.tl", "bgemm", "tma_batched", F32, BMK[c2 / 2][0], BMK[c2 / 2][1], BMK[c2 / 2][2],
                 c2 % 2, (uint64_t)(c2 / 2));
}

/* The same GEMM with an f16 output (tests/gpu/tma_store_batched.tl): on sm_90a
 * the fast body stores each warp's tile by a rank-3 TMA box; rows past M (M = 70,
 * 37, 5) are clipped by TMA and must not land in the next batch's rows; K = 77
 * takes the general body (its read-back). The output is rounded to f16 once. */
static void t_tma_store_batched(Tally *T) {
  static const int BMK[][3] = {{2, 70, 200}, {3, 64, 584}, {1, 5, 8}, {2, 37, 77}, {3, 37, 64}};
  for (int c2 = 0; c2 < 10; c2++)
    batched_gemm(T, "tma_store_batched.tl", "bgemm16", "tma_store_batched", F16, BMK[c2 / 2][0], BMK[c2 / 2][1],
                 BMK[c2 / 2][2], c2 % 2, (uint64_t)(c2 / 2));
}

static void t_wgmma_register_a(Tally *T) {
  static const int Ss[] = {37, 64, 100, 1, 130};
  const int D = 64;
  for (int c2 = 0; c2 < 10; c2++) {
    int S = Ss[c2 / 2];
    Rng r = rng_seed("wgmma_register_a", (uint64_t)(c2 / 2));
    Call k;
    call_init(&k, "wgmma_register_a.tl", "attn");
    if (c2 % 2) snprintf(k.target, sizeof k.target, "sm_90a");
    Ten *Q = call_in(&k, "Q", F16, 2, SHAPE(S, D));
    Ten *K = call_in(&k, "K", F16, 2, SHAPE(S, D));
    Ten *V = call_in(&k, "V", F16, 2, SHAPE(S, D));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(S, D));
    fill_uniform(Q, &r, -0.5, 0.5);
    fill_uniform(K, &r, -0.5, 0.5);
    fill_uniform(V, &r, -1, 1);
    double *p = malloc(sizeof(double) * (size_t)S);
    for (int i = 0; i < S; i++) {
      double mx = -INFINITY, l = 0;
      for (int j = 0; j < S; j++) {
        double d = 0;
        for (int e = 0; e < D; e++) d += A2(Q, i, e) * A2(K, j, e);
        p[j] = d;
        mx = dmax(mx, d);
      }
      for (int j = 0; j < S; j++) l += p[j] = exp(p[j] - mx);
      for (int e = 0; e < D; e++) {
        double a = 0;
        for (int j = 0; j < S; j++) a += p[j] * A2(V, j, e);
        R2(O, i, e) = a / l;
      }
    }
    free(p);
    O->tol = 3e-3; /* measured 1.9e-4 at most; a wrong fragment is off by O(1) */
    char l[64];
    label(l, sizeof l, "%sS=%d", c2 % 2 ? "sm_90a " : "", S);
    CHECK(T, call_check(&k, "wgmma_register_a", l));
    call_free(&k);
  }
}

/* i8 dots on tensor cores (mma.sync m16n8k32, i32 accumulation): C = A B^T with B
 * stored [N, K] under @pipeline(3), and C = A^T B + bias with A stored [K, M]
 * (transposed shared copies); the latter again with 64 rows over 4 warps on
 * sm_90a (f = 2: wgmma m64n64k32 from the transposed copies, both K-major).
 * Exact integer references; sizes ragged in every dim (K = 100 takes the
 * element-by-element body, K = 144 the 16-byte one), an exact multiple of the
 * tiles, and one smaller than a tile. */
static void t_dot_i8_forms(Tally *T) {
  static const int MNK[][3] = {{37, 50, 100}, {70, 90, 144}, {64, 64, 128}, {5, 3, 7}};
  for (int f = 0; f < 3; f++)
    for (int c = 0; c < 4; c++) {
      int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
      const char *kn = f == 2 ? "dot_i8_transposed_a_wg" : f ? "dot_i8_transposed_a" : "dot_i8_transposed_b";
      Rng r = rng_seed(kn, (uint64_t)c);
      Call k;
      call_init(&k, f == 2 ? "dot_i8_atb_wg.tl" : f ? "dot_i8_atb.tl" : "dot_i8_abt.tl", kn);
      if (f == 2) snprintf(k.target, sizeof k.target, "sm_90a");
      Ten *A = call_in(&k, "A", I8, 2, f ? SHAPE(K, M) : SHAPE(M, K));
      Ten *B = call_in(&k, "B", I8, 2, f ? SHAPE(K, N) : SHAPE(N, K));
      Ten *bias = f ? call_in(&k, "bias", I32, 1, SHAPE(N)) : NULL;
      Ten *C = call_out(&k, "C", I32, 2, SHAPE(M, N));
      fill_int(A, &r, -128, 127);
      fill_int(B, &r, -128, 127);
      if (bias) fill_int(bias, &r, -1000000, 1000000);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = bias ? bias->v[j] : 0;
          for (int kk = 0; kk < K; kk++) s += f ? A2(A, kk, i) * A2(B, kk, j) : A2(A, i, kk) * A2(B, j, kk);
          R2(C, i, j) = s;
        }
      char l[64];
      label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
      CHECK(T, call_check(&k, kn, l));
      call_free(&k);
    }
}

/* Random finite f8 values: every code but NaN and the infinities, so the
 * inputs cover subnormals, both zeros and the largest values. */
static void fill_f8(Ten *t, Rng *r) {
  for (long long i = 0; i < t->n; i++) {
    double v;
    do v = f8_to_f64(t->dt, (uint8_t)rng_int(r, 0, 255));
    while (isnan(v) || isinf(v));
    t->v[i] = v;
  }
}

/* f8 as storage (tests/gpu/f8.tl): arithmetic in f32, conversions to both f8
 * types checked exactly against the harness's own encoder (nearest, ties to
 * even, saturating), a row sum of f32(X). Ragged M and N. */
static void t_f8(Tally *T) {
  static const int MN[][2] = {{37, 50}, {16, 64}, {3, 130}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("f8_storage", (uint64_t)c);
    Call k;
    call_init(&k, "f8.tl", "f8_storage");
    Ten *X = call_in(&k, "X", F8E4M3, 2, SHAPE(M, N));
    Ten *Y = call_in(&k, "Y", F8E5M2, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, N));
    Ten *R = call_out(&k, "R", F32, 2, SHAPE(M, 1));
    Ten *Z = call_out(&k, "Z", F8E4M3, 2, SHAPE(M, N));
    Ten *W = call_out(&k, "W", F8E5M2, 2, SHAPE(M, N));
    fill_f8(X, &r);
    fill_f8(Y, &r);
    for (int i = 0; i < M; i++) {
      double sum = 0;
      for (int j = 0; j < N; j++) {
        float x = (float)A2(X, i, j), y = (float)A2(Y, i, j);
        R2(S, i, j) = x * y - fabsf(x) + fmaxf(y, 0.5f);
        R2(Z, i, j) = f8_to_f64(F8E4M3, f64_to_f8(F8E4M3, (float)(x * 40.0f + y)));
        R2(W, i, j) = f8_to_f64(F8E5M2, f64_to_f8(F8E5M2, -x * 1000.0f));
        if (j < 64) sum += x;
      }
      R2(R, i, 0) = sum;
    }
    Z->tol = W->tol = 0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "f8_storage", l));
    call_free(&k);
  }
}

/* f8_literals (tests/gpu/f8.tl): f8 casts of min, max and where of untyped
 * literals, computed in f32 and converted once (0.3 rounds to 0.3125 in e4m3,
 * 1.0625 ties to 1.0); ragged M and N. */
static void t_f8_literals(Tally *T) {
  static const int MN[][2] = {{37, 50}, {16, 32}, {5, 97}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("f8_literals", (uint64_t)c);
    Call k;
    call_init(&k, "f8.tl", "f8_literals");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Z = call_out(&k, "Z", F8E4M3, 2, SHAPE(M, N));
    Ten *W = call_out(&k, "W", F8E5M2, 2, SHAPE(M, N));
    fill_uniform(X, &r, -8, 8);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        float x = (float)A2(X, i, j);
        R2(Z, i, j) = f8_to_f64(F8E4M3, f64_to_f8(F8E4M3, x > 0 ? 0.3f : 1.0625f));
        R2(W, i, j) = f8_to_f64(F8E5M2, f64_to_f8(F8E5M2, x * 2.0f + -1.5f));
      }
    Z->tol = W->tol = 0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "f8_literals", l));
    call_free(&k);
  }
}

/* literal_types (tests/gpu/literal_types.tl): min and max of two literals take
 * the type of their context: the double 0.1 against f64 values (its f32 rounding
 * is 1.5e-9 off, far past the 1e-14 allowed), 0.25 in f16 (sums of multiples of
 * 1/8 below 4: exact), f64 in a comparison with an f64 scalar. Ragged N. */
static void t_literal_types(Tally *T) {
  static const int Ns[] = {100, 64, 7};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    double alpha = c == 1 ? -1.0 : 0.5;
    Rng r = rng_seed("literal_types", (uint64_t)c);
    Call k;
    call_init(&k, "literal_types.tl", "literal_types");
    Ten *X = call_in(&k, "X", F64, 1, SHAPE(N));
    Ten *H = call_in(&k, "H", F16, 1, SHAPE(N));
    Ten *O = call_out(&k, "O", F64, 1, SHAPE(N));
    Ten *P = call_out(&k, "P", F16, 1, SHAPE(N));
    call_arg(&k, "alpha=%.17g", alpha);
    fill_uniform(X, &r, -4, 4);
    for (int i = 0; i < N; i++) {
      H->v[i] = rng_int(&r, -24, 24) / 8.0;
      O->ref[i] = X->v[i] * 0.1 + (alpha <= -0.75 ? 1.0 : 2.0);
      P->ref[i] = H->v[i] + 0.25;
    }
    O->tol = 1e-14;
    P->tol = 0;
    char l[64];
    label(l, sizeof l, "N=%d alpha=%g", N, alpha);
    CHECK(T, call_check(&k, "literal_types", l));
    call_free(&k);
  }
}

/* int8_arith (tests/gpu/int8_arith.tl): arithmetic on u8 and i8 wraps in the
 * type even where it is fused into a reduction, a comparison, a division or a
 * conversion (C++ computes it in int). The reference wraps each operation
 * explicitly; columns past N read 0. Ragged M and N. */
static void t_int8_arith(Tally *T) {
  static const int MN[][2] = {{37, 50}, {16, 64}, {5, 13}};
  for (int q = 0; q < 3; q++) {
    int M = MN[q][0], N = MN[q][1];
    Rng r = rng_seed("int8_arith", (uint64_t)q);
    Call k;
    call_init(&k, "int8_arith.tl", "int8_arith");
    Ten *B = call_in(&k, "B", U8, 2, SHAPE(M, N));
    Ten *C = call_in(&k, "C", I8, 2, SHAPE(M, N));
    Ten *R = call_out(&k, "R", I32, 2, SHAPE(M, 4));
    Ten *S = call_out(&k, "S", U8, 2, SHAPE(M, N));
    Ten *F = call_out(&k, "F", F32, 2, SHAPE(M, N));
    for (long long i = 0; i < (long long)M * N; i++) B->v[i] = rng_int(&r, 0, 255), C->v[i] = rng_int(&r, -128, 127);
    for (int i = 0; i < M; i++) {
      int mx = 0, sum = 0, mn = 255, cnt = 0;
      for (int j = 0; j < 64; j++) {
        uint8_t b = j < N ? (uint8_t)A2(B, i, j) : 0;
        int8_t c = j < N ? (int8_t)A2(C, i, j) : 0;
        uint8_t d = (uint8_t)(b - 200), e = (uint8_t)-b, f = (uint8_t)(b * 2);
        mx = d > mx ? d : mx;
        mn = e < mn ? e : mn;
        sum += (int8_t)(c + c);
        cnt += f > 100;
        if (j < N) {
          R2(S, i, j) = (uint8_t)((uint8_t)(b + 100) / 3 + (uint8_t)((uint8_t)~b >> 1)); /* below 255, the harness's poison */
          R2(F, i, j) = (float)(int8_t)(c * 3) + (float)(uint8_t)(b >> 1);
        }
      }
      R2(R, i, 0) = mx, R2(R, i, 1) = sum, R2(R, i, 2) = mn, R2(R, i, 3) = cnt;
    }
    R->tol = S->tol = F->tol = 0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "int8_arith", l));
    call_free(&k);
  }
}

/* cast_saturate (tests/gpu/cast_saturate.tl): f32 and f64 values converted to
 * i32, u8, i8, u32 and i64: truncated toward zero, saturated to the type's range
 * (PTX cvt.rzi). NaN gives 0 when the source is f32 and the target narrower than
 * 64 bits, else 1 << (bits - 1): the signed type's lowest value, 128 or 2^31
 * unsigned (PTX ISA 9.0, cvt). The values include NaN, the infinities, values
 * past every range and just inside one; ragged N. */
static double sat_trunc(double v, double lo, double hi, double nan) {
  if (isnan(v)) return nan;
  return v <= lo ? lo : v >= hi ? hi : trunc(v);
}
/* launch_min_blocks (tests/gpu/launch_min_blocks.tl): @launch(256, 2) leaves a block
 * half an SM's shared memory, so the staged epilogue takes the stage ring's bytes
 * after the loop (sm_90 and sm_90a). M, N ragged; K = 77 takes the general body;
 * K = 200 runs 4 iterations, the ring wrapping. f16 products are exact in f32,
 * and C is rounded once. */
static void t_launch_min_blocks(Tally *T) {
  static const int MNK[][3] = {{200, 136, 200}, {70, 72, 77}, {130, 250, 64}};
  static const char *const targets[] = {NULL, "sm_90a"};
  for (int c = 0; c < 6; c++) {
    int M = MNK[c % 3][0], N = MNK[c % 3][1], K = MNK[c % 3][2];
    Rng r = rng_seed("launch_min_blocks", (uint64_t)c);
    Call k;
    call_init(&k, "launch_min_blocks.tl", "launch_min_blocks");
    if (targets[c / 3]) snprintf(k.target, sizeof k.target, "%s", targets[c / 3]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double t = 0;
        for (int kk = 0; kk < K; kk++) t += A2(A, i, kk) * A2(B, kk, j);
        R2(C, i, j) = t;
      }
    char l[64];
    label(l, sizeof l, "%s%sM=%d N=%d K=%d", targets[c / 3] ? targets[c / 3] : "", targets[c / 3] ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "launch_min_blocks", l));
    call_free(&k);
  }
}

/* defer_dot (tests/gpu/defer_dot.tl): two wgmma dots in a @pipeline loop, the
 * second's A the first's result; on sm_90a with 3 stages the second is deferred
 * into the next iteration (defer_dot_late and defer_dot_2 are not). M and N
 * ragged, N up to 5 iterations so that the 3-stage ring wraps; D = 70 takes the
 * general body. The reference rounds s / 4 to f16 as the kernel's A does; s is
 * exact in f32 but for its last bits, which move the f16 rounding by an ulp at
 * most, so the tolerance is f16's. */
static void t_defer_dot(Tally *T) {
  static const int C[][3] = {{200, 300, 64}, {37, 193, 70}, {130, 64, 70}, {128, 1, 64}};
  static const char *const kernels[] = {"defer_dot", "defer_dot_late", "defer_dot_2"};
  static const char *const targets[] = {"sm_90a", NULL};
  for (int c = 0; c < 4 * 3 * 2; c++) {
    int M = C[c % 4][0], N = C[c % 4][1], D = C[c % 4][2], kn = c / 4 % 3;
    const char *tg = targets[c / 12];
    Rng r = rng_seed("defer_dot", (uint64_t)c);
    Call k;
    call_init(&k, "defer_dot.tl", kernels[kn]);
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *Q = call_in(&k, "Q", F16, 2, SHAPE(M, D));
    Ten *K = call_in(&k, "K", F16, 2, SHAPE(N, D));
    Ten *V = call_in(&k, "V", F16, 2, SHAPE(N, D));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
    fill_uniform(Q, &r, -1, 1);
    fill_uniform(K, &r, -1, 1);
    fill_uniform(V, &r, -1, 1);
    O->tol = 1e-2;
    const double decay = 0.75;
    call_arg(&k, "decay=%.9g", decay);
    for (int i = 0; i < M; i++) {
      double acc[64] = {0};
      for (int n0 = 0; n0 < N; n0 += 64) {
        for (int e = 0; e < 64; e++) acc[e] *= decay;
        for (int j = n0; j < n0 + 64 && j < N; j++) {
          double d = 0;
          for (int e = 0; e < 64; e++) d += A2(Q, i, e) * A2(K, j, e);
          double p = round_dt(F16, d * 0.25);
          for (int e = 0; e < 64; e++) acc[e] += p * A2(V, j, e);
        }
        if (kn == 1)
          for (int e = 0; e < 64; e++) acc[e] = acc[e] < 1000 ? acc[e] : 1000;
      }
      for (int e = 0; e < 64; e++) R2(O, i, e) = acc[e];
    }
    char l[80];
    label(l, sizeof l, "%s %s M=%d N=%d D=%d", kernels[kn], tg ? tg : "", M, N, D);
    CHECK(T, call_check(&k, "defer_dot", l));
    call_free(&k);
  }
}

/* pipeline_reload (tests/gpu/pipeline_reload.tl, pipeline_reload_dot.tl): a tile var
 * loaded twice in one @pipeline loop. regs: O = sum over column blocks c of 2 X[:, c + j] + X[:, j] (zero past
 * N); dot: C = sum over k blocks of A[:, k0 + kk] B[k0 + kk, :] + A[:, kk] B[k0 + kk, :]
 * (zero past K). Ragged M, N, K; several iterations so that every ring refills. */
static void t_pipeline_reload(Tally *T) {
  static const int MN[][2] = {{37, 100}, {64, 32}, {5, 7}, {70, 161}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("pipeline_reload_regs", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_reload.tl", "pipeline_reload_regs");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 32));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 32; j++) {
        double s = 0;
        for (int c0 = 0; c0 < N; c0 += 32) s += (c0 + j < N ? 2 * A2(X, i, c0 + j) : 0) + (j < N ? A2(X, i, j) : 0);
        R2(O, i, j) = s;
      }
    char l[64];
    label(l, sizeof l, "regs M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "pipeline_reload", l));
    call_free(&k);
  }
  static const int MNK[][3] = {{37, 100, 200}, {64, 64, 96}, {70, 136, 20}, {5, 8, 8}};
  static const char *const targets[] = {NULL, "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    Rng r = rng_seed("pipeline_reload_dot", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_reload_dot.tl", "pipeline_reload_dot");
    if (targets[c / 4]) snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int k0 = 0; k0 < K; k0 += 32)
          for (int kk = 0; kk < 32 && k0 + kk < K; kk++)
            s += (A2(A, i, k0 + kk) + (kk < K ? A2(A, i, kk) : 0)) * A2(B, k0 + kk, j);
        R2(C, i, j) = s;
      }
    char l[64];
    label(l, sizeof l, "dot %s%sM=%d N=%d K=%d", targets[c / 4] ? targets[c / 4] : "", targets[c / 4] ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "pipeline_reload", l));
    call_free(&k);
  }
}

/* dot_operand_reduced (tests/gpu/dot_operand_reduced.tl): a dot operand of the
 * accumulator's shape that is also reduced, in a plain blocked layout of its own (it held
 * the mma fragments): operand_rowsum, C = A B and R = A's row sums; cosine, S = the
 * cosine similarities of A's and B's bf16 rows, their norms summed beside the dot, at
 * ragged M, N, D (D % 8 != 0 takes the general body) and on sm_90, sm_90a, sm_80. */
static void t_dot_operand_reduced(Tally *T) {
  static const int MND[][3] = {{70, 100, 200}, {64, 64, 64}, {5, 3, 9}, {130, 65, 328}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int c = 0; c < 15; c++) {
    Rng r = rng_seed("dot_operand_reduced", (uint64_t)c);
    Call k;
    char l[64];
    if (c >= 12) { /* one [64, 64] block */
      call_init(&k, "dot_operand_reduced.tl", "operand_rowsum");
      snprintf(k.target, sizeof k.target, "%s", targets[c - 12]);
      Ten *A = call_in(&k, "A", F16, 2, SHAPE(64, 64)), *B = call_in(&k, "B", F16, 2, SHAPE(64, 64));
      Ten *C = call_out(&k, "C", F32, 2, SHAPE(64, 64)), *R = call_out(&k, "R", F32, 2, SHAPE(64, 1));
      fill_uniform(A, &r, -1, 1);
      fill_uniform(B, &r, -1, 1);
      for (int i = 0; i < 64; i++) {
        double s = 0;
        for (int t = 0; t < 64; t++) s += A2(A, i, t);
        R->ref[i] = s;
        for (int j = 0; j < 64; j++) {
          double d = 0;
          for (int t = 0; t < 64; t++) d += A2(A, i, t) * A2(B, t, j);
          R2(C, i, j) = d;
        }
      }
      label(l, sizeof l, "operand_rowsum %s", targets[c - 12]);
    } else {
      int M = MND[c % 4][0], N = MND[c % 4][1], D = MND[c % 4][2];
      double eps = 1e-3;
      call_init(&k, "dot_operand_reduced.tl", "cosine");
      snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
      Ten *A = call_in(&k, "A", BF16, 2, SHAPE(M, D)), *B = call_in(&k, "B", BF16, 2, SHAPE(N, D));
      Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, N));
      call_arg(&k, "eps=%.9g", eps);
      fill_uniform(A, &r, -1, 1);
      fill_uniform(B, &r, -1, 1);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double d = 0, na = 0, nb = 0;
          for (int t = 0; t < D; t++) d += A2(A, i, t) * A2(B, j, t), na += A2(A, i, t) * A2(A, i, t), nb += A2(B, j, t) * A2(B, j, t);
          R2(S, i, j) = d / (fmax(sqrt(na), eps) * fmax(sqrt(nb), eps));
        }
      label(l, sizeof l, "cosine %s M=%d N=%d D=%d", targets[c / 4], M, N, D);
    }
    CHECK(T, call_check(&k, "dot_operand_reduced", l));
    call_free(&k);
  }
}

/* index_value (tests/gpu/index_value.tl): elements and a slice of computed tiles read in
 * place (colmax(len)[0, 0], rowsum(x)[0 :+ 4, 0 :+ 1], rowsum(x)[i, 0]), in a store, an if
 * and an else if's conditions and a loop's bound. Ragged N (rows past N: len -1, x 0), one
 * block exactly, fewer rows than a block; lengths up to 30 (Flag 1), 10 or 8 (Flag 2 in a
 * padded block, 3 in a full one); on sm_90, sm_80 and sm_90a. */
static void t_index_value(Tally *T) {
  static const int NA[][2] = {{100, 30}, {64, 10}, {5, 10}, {200, 8}, {130, 30}};
  static const char *const targets[] = {"sm_90", "sm_80", "sm_90a"};
  for (int c = 0; c < 15; c++) {
    int N = NA[c % 5][0], amp = NA[c % 5][1], G = (int)cdivll(N, 64);
    Rng r = rng_seed("index_value", (uint64_t)c);
    Call k;
    call_init(&k, "index_value.tl", "index_value");
    snprintf(k.target, sizeof k.target, "%s", targets[c / 5]);
    Ten *L = call_in(&k, "L", I32, 2, SHAPE(N, 1)), *X = call_in(&k, "X", F32, 2, SHAPE(N, 32));
    Ten *Lmax = call_out(&k, "Lmax", I32, 1, SHAPE(G)), *Top = call_out(&k, "Top", F32, 2, SHAPE(4 * G, 1));
    Ten *Flag = call_out(&k, "Flag", I32, 1, SHAPE(G)), *Cnt = call_out(&k, "Cnt", F32, 1, SHAPE(G));
    fill_int(L, &r, 0, amp);
    fill_uniform(X, &r, -1, 1);
    for (int b = 0; b < G; b++) {
      double mx = -1, mn = 1e9, rs[64];
      for (int i = 0; i < 64; i++) {
        int row = b * 64 + i;
        double len = row < N ? L->v[row] : -1;
        mx = fmax(mx, len), mn = fmin(mn, len);
        rs[i] = 0;
        for (int j = 0; j < 32 && row < N; j++) rs[i] += A2(X, row, j);
      }
      Lmax->ref[b] = mx;
      for (int i = 0; i < 4; i++) Top->ref[b * 4 + i] = rs[i];
      Flag->ref[b] = mx > 10 ? 1 : mn < 0 ? 2 : 3;
      double cnt = 0;
      for (int i = 0; i < (int)mx % 8; i++) cnt += rs[i];
      Cnt->ref[b] = cnt;
    }
    char l[64];
    label(l, sizeof l, "%s N=%d lengths 0..%d", targets[c / 5], N, amp);
    CHECK(T, call_check(&k, "index_value", l));
    call_free(&k);
  }
}

/* dequant_pipelined: C = A W^T with W i8, dequantized to f16 in a @pipeline(3) loop
 * (tests/gpu/dequant_pipelined.tl): the copy of f16(w) is written above the stage
 * barrier and shares it. Ragged M, N, K (K % 8 != 0 takes the general body); K of
 * up to 6 iterations, so that each half of the copy is written three times. */
static void t_dequant_pipelined(Tally *T) {
  static const int MNK[][3] = {{70, 100, 328}, {64, 64, 256}, {37, 136, 200}, {5, 7, 8}};
  static const char *const targets[] = {NULL, "sm_80", "sm_90a"};
  for (int c = 0; c < 12; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    Rng r = rng_seed("dequant_pipelined", (uint64_t)c);
    Call k;
    call_init(&k, "dequant_pipelined.tl", "dequant_pipelined");
    if (targets[c / 4]) snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *W = call_in(&k, "W", I8, 2, SHAPE(N, K));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_int(W, &r, -128, 127);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int t = 0; t < K; t++) s += A2(A, i, t) * A2(W, j, t);
        R2(C, i, j) = s;
      }
    char l[64];
    label(l, sizeof l, "%s%sM=%d N=%d K=%d", targets[c / 4] ? targets[c / 4] : "", targets[c / 4] ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "dequant_pipelined", l));
    call_free(&k);
  }
}

/* packed_rings (tests/gpu/packed_rings.tl): rings of 1- and 2-byte elements held packed.
 * w8_gemm: Y = X f16(f32(Wq) * s), Wq i8 in a register ring (on sm_90a with wgmma);
 * pad_ring: O = the row sums of squares of X, read in chunks of 64 columns padded with 2.0
 * (each padded column adds 4); once_ring: Y = X * G, G (f16) loaded once before the loop,
 * packed too. M, N, K ragged and exact. */
static void t_packed_rings(Tally *T) {
  static const int MNK[][3] = {{130, 200, 328}, {128, 128, 128}, {37, 72, 72}, {5, 9, 8}};
  static const char *const targets[] = {NULL, "sm_80", "sm_90a"};
  for (int c = 0; c < 12; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    const char *tg = targets[c / 4];
    Rng r = rng_seed("packed_rings", (uint64_t)c);
    Call k;
    call_init(&k, "packed_rings.tl", "w8_gemm");
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *X = call_in(&k, "X", F16, 2, SHAPE(M, K));
    Ten *W = call_in(&k, "Wq", I8, 2, SHAPE(K, N));
    Ten *S = call_in(&k, "Scale", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F16, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    fill_int(W, &r, -128, 127);
    fill_uniform(S, &r, 0.001, 0.02);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double a = 0;
        for (int t = 0; t < K; t++) a += A2(X, i, t) * round_dt(F16, (float)((float)A2(W, t, j) * (float)S->v[j]));
        R2(Y, i, j) = round_dt(F16, a);
      }
    char l[64];
    label(l, sizeof l, "w8_gemm %s%sM=%d N=%d K=%d", tg ? tg : "", tg ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "packed_rings", l));
    call_free(&k);

    call_init(&k, "packed_rings.tl", "pad_ring");
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *X2 = call_in(&k, "X", F16, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", F32, 1, SHAPE(M));
    fill_uniform(X2, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double a = 4.0 * (double)(cdivll(N, 64) * 64 - N);
      for (int j = 0; j < N; j++) a += A2(X2, i, j) * A2(X2, i, j);
      O->ref[i] = a;
    }
    label(l, sizeof l, "pad_ring %s%sM=%d N=%d", tg ? tg : "", tg ? " " : "", M, N);
    CHECK(T, call_check(&k, "packed_rings", l));
    call_free(&k);

    int N1 = N < 64 ? N : 64 - c % 3 * 13; /* the kernel's 64 columns, ragged: 64, 51, 38 */
    call_init(&k, "packed_rings.tl", "once_ring");
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *X3 = call_in(&k, "X", F16, 2, SHAPE(M, N1));
    Ten *G = call_in(&k, "G", F16, 1, SHAPE(N1));
    Ten *Y3 = call_out(&k, "Y", F32, 2, SHAPE(M, N1));
    fill_uniform(X3, &r, -1, 1);
    fill_uniform(G, &r, -2, 2);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N1; j++) R2(Y3, i, j) = A2(X3, i, j) * G->v[j];
    label(l, sizeof l, "once_ring %s%sM=%d N=%d", tg ? tg : "", tg ? " " : "", M, N1);
    CHECK(T, call_check(&k, "packed_rings", l));
    call_free(&k);
  }
}

/* ring_rotate (tests/gpu/ring_rotate.tl): a W8A16 GEMV whose rings of 3 values rotate (3 copies
 * of the loop body an iteration): Y[n] = sum over groups g of S[n, g] * sum_k W[n, k] X[k], the
 * group sums in f32 as the kernel's. N ragged; K = 128 x 1..7: fewer iterations than slots, as
 * many, one and two more, 2 x 3 + 1. sm_90 and sm_80. */
static void t_ring_rotate(Tally *T) {
  static const int NS[] = {37, 100, 1, 130, 64, 33, 200};
  static const char *const targets[] = {NULL, "sm_80"};
  for (int c = 0; c < 14; c++) {
    int N = NS[c % 7], groups = c % 7 + 1, K = 128 * groups;
    const char *tg = targets[c / 7];
    Rng r = rng_seed("ring_rotate", (uint64_t)c);
    Call k;
    call_init(&k, "ring_rotate.tl", "gemv_w8a16");
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *X = call_in(&k, "X", F16, 1, SHAPE(K));
    Ten *W = call_in(&k, "W", I8, 2, SHAPE(N, K));
    Ten *S = call_in(&k, "S", F16, 2, SHAPE(N, groups));
    Ten *Y = call_out(&k, "Y", F16, 1, SHAPE(N));
    fill_uniform(X, &r, -1, 1);
    fill_int(W, &r, -128, 127);
    fill_uniform(S, &r, 0.001, 0.02);
    for (int n = 0; n < N; n++) {
      double a = 0;
      for (int g = 0; g < groups; g++) {
        double q = 0;
        for (int t = g * 128; t < (g + 1) * 128; t++) q += A2(W, n, t) * X->v[t];
        a += q * A2(S, n, g);
      }
      Y->ref[n] = round_dt(F16, a);
    }
    char l[64];
    label(l, sizeof l, "gemv_w8a16 %s%sN=%d K=%d", tg ? tg : "", tg ? " " : "", N, K);
    CHECK(T, call_check(&k, "ring_rotate", l));
    call_free(&k);
  }
}

/* ring_rotate_rows (tests/gpu/ring_rotate_rows.tl): rings of 2 values that rotate, in a loop that
 * also stores: Y = 2 X, O = the row sums of X (u8, every value 0-255). N gives 1 to 5 iterations
 * of 64 columns, the last one ragged or whole; M ragged. sm_90 and sm_80. */
static void t_ring_rotate_rows(Tally *T) {
  static const int MN[][2] = {{37, 1}, {16, 63}, {5, 64}, {33, 65}, {20, 128}, {17, 200}, {40, 300}};
  static const char *const targets[] = {NULL, "sm_80"};
  for (int c = 0; c < 14; c++) {
    int M = MN[c % 7][0], N = MN[c % 7][1];
    const char *tg = targets[c / 7];
    Rng r = rng_seed("ring_rotate_rows", (uint64_t)c);
    Call k;
    call_init(&k, "ring_rotate_rows.tl", "rows_rotate");
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *X = call_in(&k, "X", U8, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", F32, 1, SHAPE(M));
    fill_int(X, &r, 0, 255);
    for (int i = 0; i < M; i++) {
      double a = 0;
      for (int j = 0; j < N; j++) {
        R2(Y, i, j) = 2.0 * A2(X, i, j);
        a += A2(X, i, j);
      }
      O->ref[i] = a;
    }
    char l[64];
    label(l, sizeof l, "rows_rotate %s%sM=%d N=%d", tg ? tg : "", tg ? " " : "", M, N);
    CHECK(T, call_check(&k, "ring_rotate_rows", l));
    call_free(&k);
  }
}

/* loop_start_if (tests/gpu/loop_start_if.tl): a loop from a var assigned in an if (0, or the
 * block's first row where causal is set): Y[k0 + i] = the sum over q0 = qs, qs + 64, .. < S of
 * X[q0 + i], 0 past S. S ragged and whole, causal 0 and 1. */
static void t_loop_start_if(Tally *T) {
  static const int SS[] = {130, 64, 1, 200, 37};
  for (int c = 0; c < 10; c++) {
    int S = SS[c % 5], causal = c / 5;
    Rng r = rng_seed("loop_start_if", (uint64_t)c);
    Call k;
    call_init(&k, "loop_start_if.tl", "loop_start_if");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(S, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(S, 64));
    call_arg(&k, "causal=%d", causal);
    fill_uniform(X, &r, -1, 1);
    for (int row = 0; row < S; row++) {
      int k0 = row / 64 * 64, i = row % 64;
      for (int j = 0; j < 64; j++) {
        double a = 0;
        for (int q0 = causal ? k0 : 0; q0 < S; q0 += 64)
          if (q0 + i < S) a += A2(X, q0 + i, j);
        R2(Y, row, j) = a;
      }
    }
    char l[64];
    label(l, sizeof l, "S=%d causal=%d", S, causal);
    CHECK(T, call_check(&k, "loop_start_if", l));
    call_free(&k);
  }
}

/* rings_min_blocks (tests/gpu/rings_min_blocks.tl): a W4A16 GEMM whose weights' register
 * rings are not made at @launch(256, 2) (w4_min2: a budget of 96) and made at @launch(256)
 * (w4_plain); ragged M and N, K a multiple of 128 (the kernels assume it), more k blocks
 * than stages; sm_90 and sm_80. w = (q - z) * s rounded to f16 at each step, as the kernel's
 * f16 arithmetic. */
static void t_rings_min_blocks(Tally *T) {
  static const int MNK[][3] = {{130, 200, 256}, {64, 128, 128}, {37, 72, 512}, {5, 9, 384}};
  static const char *const targets[] = {NULL, "sm_80"};
  for (int c = 0; c < 16; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    const char *tg = targets[c / 4 % 2], *kn = c < 8 ? "w4_min2" : "w4_plain";
    Rng r = rng_seed("rings_min_blocks", (uint64_t)c);
    Call k;
    call_init(&k, "rings_min_blocks.tl", kn);
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *Q = call_in(&k, "Q", U8, 2, SHAPE(K / 2, N));
    Ten *S = call_in(&k, "S", F16, 2, SHAPE(K / 128, N));
    Ten *Z = call_in(&k, "Z", F16, 2, SHAPE(K / 128, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_int(Q, &r, 0, 255);
    fill_uniform(S, &r, 0.01, 0.1);
    fill_int(Z, &r, 5, 10);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double a = 0;
        for (int t = 0; t < K; t++) {
          int row = t / 64 * 32 + t % 32, q = (int)A2(Q, row, j);
          int nib = t % 64 < 32 ? q & 15 : q >> 4;
          double w = round_dt(F16, round_dt(F16, nib - A2(Z, t / 128, j)) * A2(S, t / 128, j));
          a += A2(A, i, t) * w;
        }
        R2(C, i, j) = round_dt(F16, a);
      }
    char l[64];
    label(l, sizeof l, "%s %s%sM=%d N=%d K=%d", kn, tg ? tg : "", tg ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "rings_min_blocks", l));
    call_free(&k);
  }
}

/* residual_epilogue (tests/gpu/residual_epilogue.tl): C = f16(A B + R), R staged through
 * shared memory in the epilogue; ragged (the general body's loops over runs) and exact. */
static void t_residual_epilogue(Tally *T) {
  static const int MNK[][3] = {{130, 300, 72}, {128, 256, 64}, {37, 260, 40}};
  static const char *const targets[] = {NULL, "sm_80", "sm_90a"};
  for (int c = 0; c < 9; c++) {
    int M = MNK[c % 3][0], N = MNK[c % 3][1], K = MNK[c % 3][2];
    const char *tg = targets[c / 3];
    Rng r = rng_seed("residual_epilogue", (uint64_t)c);
    Call k;
    call_init(&k, "residual_epilogue.tl", "residual_epilogue");
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *R = call_in(&k, "R", F16, 2, SHAPE(M, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(R, &r, -4, 4);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double a = 0;
        for (int t = 0; t < K; t++) a += A2(A, i, t) * A2(B, t, j);
        R2(C, i, j) = round_dt(F16, a + A2(R, i, j));
      }
    char l[64];
    label(l, sizeof l, "%s%sM=%d N=%d K=%d", tg ? tg : "", tg ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "residual_epilogue", l));
    call_free(&k);
  }
}

/* online_lse (tests/gpu/online_lse.tl): log-sum-exp of each row, X with -inf at masked
 * elements: every other row's first 256 columns (a whole chunk: its elements' running
 * max stays -inf a chunk, then is finite), and every element whose index is 7 mod 11. */
static void t_online_lse(Tally *T) {
  static const int MN[][2] = {{9, 1000}, {4, 512}, {5, 300}, {3, 2100}};
  for (int c = 0; c < 8; c++) { /* online_lse, then online_lse_alpha (its rescale a var) */
    int M = MN[c % 4][0], N = MN[c % 4][1];
    const char *kn = c < 4 ? "online_lse" : "online_lse_alpha";
    Rng r = rng_seed("online_lse", (uint64_t)c % 4);
    Call k;
    call_init(&k, "online_lse.tl", kn);
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *L = call_out(&k, "L", F32, 1, SHAPE(M));
    fill_uniform(X, &r, -8, 8);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++)
        if ((i % 2 == 0 && j < 256) || j % 11 == 7) A2(X, i, j) = -INFINITY;
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, s = 0;
      for (int j = 0; j < N; j++) mx = dmax(mx, A2(X, i, j));
      for (int j = 0; j < N; j++) s += exp(A2(X, i, j) - mx);
      L->ref[i] = log(s) + mx;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, kn, l));
    call_free(&k);
  }
}

/* online_lse_f64 (tests/gpu/online_lse.tl): log-sum-exp of each row in f64, four rows a
 * block (the operands of max and of the sum in the other order); -inf where j is 3 mod 7
 * and in the first 128 columns of every third row. */
static void t_online_lse_f64(Tally *T) {
  static const int MN[][2] = {{9, 300}, {8, 128}, {5, 1000}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("online_lse_f64", (uint64_t)c);
    Call k;
    call_init(&k, "online_lse.tl", "online_lse_f64");
    Ten *X = call_in(&k, "X", F64, 2, SHAPE(M, N));
    Ten *L = call_out(&k, "L", F64, 1, SHAPE(M));
    fill_uniform(X, &r, -30, 30);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++)
        if ((i % 3 == 0 && j < 128 && N > 128) || j % 7 == 3) A2(X, i, j) = -INFINITY;
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, s = 0;
      for (int j = 0; j < N; j++) mx = dmax(mx, A2(X, i, j));
      for (int j = 0; j < N; j++) s += exp(A2(X, i, j) - mx);
      L->ref[i] = log(s) + mx;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "online_lse_f64", l));
    call_free(&k);
  }
}

/* online_sum (tests/gpu/online_lse.tl): sum(exp(x - max)) of each row, every third row
 * only -inf (its sum 0: the fold after the loop must not take -inf - -inf), others with
 * -inf at j % 5 == 1. */
static void t_online_sum(Tally *T) {
  static const int MN[][2] = {{7, 1000}, {3, 512}, {4, 9}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("online_sum", (uint64_t)c);
    Call k;
    call_init(&k, "online_lse.tl", "online_sum");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *L = call_out(&k, "L", F32, 1, SHAPE(M));
    fill_uniform(X, &r, -8, 8);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++)
        if (i % 3 == 0 || j % 5 == 1) A2(X, i, j) = -INFINITY;
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, s = 0;
      for (int j = 0; j < N; j++) mx = dmax(mx, A2(X, i, j));
      for (int j = 0; j < N && mx > -INFINITY; j++) s += exp(A2(X, i, j) - mx);
      L->ref[i] = s;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "online_sum", l));
    call_free(&k);
  }
}

/* online_lse_cols (tests/gpu/online_lse.tl): log-sum-exp of each column, X with -inf at
 * every other column's first 64 rows (a whole chunk, where M > 64) and where i + 2 j is 5
 * mod 13. */
static void t_online_lse_cols(Tally *T) {
  static const int MN[][2] = {{200, 70}, {64, 64}, {300, 5}, {130, 129}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("online_lse_cols", (uint64_t)c);
    Call k;
    call_init(&k, "online_lse.tl", "online_lse_cols");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *L = call_out(&k, "L", F32, 2, SHAPE(1, N));
    fill_uniform(X, &r, -8, 8);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++)
        if ((j % 2 == 0 && i < 64 && M > 64) || (i + 2 * j) % 13 == 5) A2(X, i, j) = -INFINITY;
    for (int j = 0; j < N; j++) {
      double mx = -INFINITY, s = 0;
      for (int i = 0; i < M; i++) mx = dmax(mx, A2(X, i, j));
      for (int i = 0; i < M; i++) s += exp(A2(X, i, j) - mx);
      L->ref[j] = log(s) + mx;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "online_lse_cols", l));
    call_free(&k);
  }
}

/* scatter_halves (tests/gpu/scatter_halves.tl): rows of A to distinct rows Slot[t] of C
 * (a shuffled subset of L), the second half doubled; the other rows keep C's contents. */
static void t_scatter_halves(Tally *T) {
  static const int TL[][2] = {{70, 100}, {64, 64}, {5, 9}};
  for (int c = 0; c < 3; c++) {
    int Tn = TL[c][0], L = TL[c][1];
    Rng r = rng_seed("scatter_halves", (uint64_t)c);
    Call k;
    call_init(&k, "scatter_halves.tl", "scatter_halves");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(Tn, 64));
    Ten *S = call_in(&k, "Slot", I32, 1, SHAPE(Tn));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(L, 64));
    fill_uniform(A, &r, -2, 2);
    int *perm = malloc(sizeof(int) * (size_t)L);
    for (int i = 0; i < L; i++) perm[i] = i;
    for (int i = L - 1; i > 0; i--) {
      int j = rng_int(&r, 0, i), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int t = 0; t < Tn; t++) S->v[t] = perm[t];
    free(perm);
    C->init = calloc((size_t)C->n, sizeof(double));
    for (long long e = 0; e < C->n; e++) C->init[e] = C->ref[e] = round_dt(F16, rng_uniform(&r, -1, 1));
    for (int t = 0; t < Tn; t++)
      for (int j = 0; j < 64; j++) R2(C, (int)S->v[t], j) = round_dt(F16, A2(A, t, j) * (j < 32 ? 1 : 2));
    char l[64];
    label(l, sizeof l, "T=%d L=%d", Tn, L);
    CHECK(T, call_check(&k, "scatter_halves", l));
    call_free(&k);
  }
}

/* loop_end_min (tests/gpu/loop_end_min.tl): rows r of range(r0, min(M, r0 + 32)), their
 * row tests dropped; Y = X - rowmax(X) over N <= 1024 columns (elements past N read 0:
 * they count in the max). */
static void t_loop_end_min(Tally *T) {
  static const int MN[][2] = {{70, 1000}, {64, 1024}, {5, 3}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("loop_end_min", (uint64_t)c);
    Call k;
    call_init(&k, "loop_end_min.tl", "loop_end_min");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -3, -1);
    for (int i = 0; i < M; i++) {
      double m = N < 1024 ? 0.0 : -1e300;
      for (int j = 0; j < N; j++) m = A2(X, i, j) > m ? A2(X, i, j) : m;
      for (int j = 0; j < N; j++) R2(Y, i, j) = (float)A2(X, i, j) - (float)m;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "loop_end_min", l));
    call_free(&k);
  }
}

/* loop_end_min_chunks: a block's column sums over range(r0, min(M, r0 + 128), 32) under
 * @assume(M % 32 == 0), its row tests dropped: M a multiple of 32 and not of 128 (a short
 * last chunk), of 128, and 32; ragged N. */
static void t_loop_end_min_chunks(Tally *T) {
  static const int MN[][2] = {{160, 100}, {256, 64}, {32, 7}, {96, 130}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1], G = (M + 127) / 128;
    Rng r = rng_seed("loop_end_min_chunks", (uint64_t)c);
    Call k;
    call_init(&k, "loop_end_min_chunks.tl", "loop_end_min_chunks");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *P = call_out(&k, "P", F32, 2, SHAPE(G, N));
    fill_uniform(X, &r, -1, 1);
    for (int g = 0; g < G; g++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int i = g * 128; i < g * 128 + 128 && i < M; i++) s += A2(X, i, j);
        R2(P, g, j) = s;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "loop_end_min_chunks", l));
    call_free(&k);
  }
}

/* inplace_epilogue (tests/gpu/inplace_epilogue.tl): C = f16(alpha A B + beta C) in place,
 * C's load staged, the store in pairs after a barrier; ragged (the general body's loops over
 * runs, rows and columns past the tensor) and exact. */
static void t_inplace_epilogue(Tally *T) {
  static const int MNK[][3] = {{130, 300, 72}, {128, 256, 64}, {37, 260, 200}};
  static const char *const targets[] = {NULL, "sm_80", "sm_90a"};
  for (int c = 0; c < 9; c++) {
    int M = MNK[c % 3][0], N = MNK[c % 3][1], K = MNK[c % 3][2];
    const char *tg = targets[c / 3];
    Rng r = rng_seed("inplace_epilogue", (uint64_t)c);
    Call k;
    call_init(&k, "inplace_epilogue.tl", "inplace_epilogue");
    if (tg) snprintf(k.target, sizeof k.target, "%s", tg);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    double alpha = 0.75, beta = -1.5;
    call_arg(&k, "alpha=%g", alpha);
    call_arg(&k, "beta=%g", beta);
    C->init = calloc((size_t)C->n, sizeof(double));
    for (long long e = 0; e < C->n; e++) C->init[e] = round_dt(F16, rng_uniform(&r, -4, 4));
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double a = 0;
        for (int t = 0; t < K; t++) a += A2(A, i, t) * A2(B, t, j);
        R2(C, i, j) = round_dt(F16, alpha * a + beta * C->init[(long long)i * N + j]);
      }
    char l[64];
    label(l, sizeof l, "%s%sM=%d N=%d K=%d", tg ? tg : "", tg ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "inplace_epilogue", l));
    call_free(&k);
  }
}

/* pipeline_nested: a @pipeline loop run twice by an enclosing loop. K = 200 is 7
 * iterations of 32: the last reads stage 0, which the second run's first copy
 * refills; K = 77 takes the general body (element copies). */
static void t_pipeline_nested(Tally *T) {
  static const int MNK[][3] = {{37, 100, 200}, {64, 64, 96}, {70, 136, 77}, {5, 8, 8}};
  static const char *const targets[] = {NULL, "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    Rng r = rng_seed("pipeline_nested", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_nested.tl", "pipeline_nested");
    if (targets[c / 4]) snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 3, SHAPE(2, M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, kk, j);
        for (int q = 0; q < 2; q++) C->ref[((size_t)q * M + i) * N + j] = (q + 1) * s;
      }
    char l[64];
    label(l, sizeof l, "%s%sM=%d N=%d K=%d", targets[c / 4] ? targets[c / 4] : "", targets[c / 4] ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "pipeline_nested", l));
    call_free(&k);
  }
}

/* pipeline_padded: stage rings filled by 384 threads, which do not divide B's stage (its
 * copy's layout has padding positions, which must copy nothing: a zero-filling cp.async
 * there writes past the stage). K = 584 is 19 iterations of 32, every stage refilled
 * (sm_90a: by TMA after its empty barrier), the last ragged; 37 x 50 x 77 (N, K not
 * multiples of 8) takes the general body, whose element copies leave out the padding as
 * well; each on the default target, sm_90a (wgmma, 3 warpgroups) and sm_80. */
static void t_pipeline_padded(Tally *T) {
  static const int MNK[][3] = {{200, 136, 584}, {37, 50, 77}, {192, 128, 64}, {5, 8, 8}};
  static const char *const targets[] = {NULL, "sm_90a", "sm_80"};
  for (int c = 0; c < 12; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    Rng r = rng_seed("pipeline_padded", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline_padded.tl", "pipeline_padded");
    if (targets[c / 4]) snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, C, M, N, K, 1);
    char l[64];
    label(l, sizeof l, "%s%sM=%d N=%d K=%d", targets[c / 4] ? targets[c / 4] : "", targets[c / 4] ? " " : "", M, N, K);
    CHECK(T, call_check(&k, "pipeline_padded", l));
    call_free(&k);
  }
}

/* pipeline_rotated: GEMMs whose mma.sync dot loads each k step's fragments a step
 * ahead, the next stage's first ones after a barrier moved before the last step
 * (pipeline.c rotate_dot; each kernel's translation declares its t2c_fa1 sets).
 * The f16 kernels at 2 k steps an iteration (BK 32, 7 stages: rot_ab, rot_twice),
 * 3 (BK 48, 5 stages: rot_abt) and 4 (BK 64: rot_atb); rot_i8 at 4 k32 steps (BK8
 * 128) and 2 (BK8 64, 6 stages); rot_w4 at 4 warps of 64 x 64 and @launch(128, 2)
 * (BK 64, 3 stages: 2 blocks per SM); rot_qb with A loaded once before the loop (as
 * attention's Q) and B in 8 stages. Sizes: ragged, with more iterations than stages,
 * so that every stage is refilled (200 x 136 x 392: 13 at 32; rot_qb at K = 584, 10
 * iterations of its 8 stages; i8 at K = 1040); N or K not multiples of 8 (the general
 * body's element copies); one iteration shorter than BK (its unused next fragments
 * read a stage never filled). Each for sm_90, rot_ab and rot_i8 (BK8 128) for sm_80
 * too; named targets, so that make test's sm_90a pass leaves them out (on sm_90a these
 * dots take wgmma). */
static void t_pipeline_rotated(Tally *T) {
  static const struct { const char *kn, *bk, *st; int i8, twice; } V[] = {
      {"rot_ab", "BK=32", "STAGES=7", 0, 0},      {"rot_abt", "BK=48", "STAGES=5", 0, 0},
      {"rot_atb", "BK=64", "STAGES=4", 0, 0},     {"rot_twice", "BK=32", "STAGES=7", 0, 1},
      {"rot_i8", "BK8=128", "STAGES8=4", 1, 0},   {"rot_i8", "BK8=64", "STAGES8=6", 1, 0},
      {"rot_w4", "BK=64", "STAGES=4", 0, 0},     {"rot_qb", "BK=64", "STAGES=4", 0, 0}};
  static const int MNK[][3] = {{200, 136, 392}, {37, 100, 77}, {128, 128, 8}};
  static const char *const targets[] = {"sm_90", "sm_80"};
  for (int v = 0; v < 8; v++)
    for (int c = 0; c < 6; c++) {
      int sz = c % 3, M = MNK[sz][0], N = MNK[sz][1], K = MNK[sz][2];
      if (sz == 2 && (v % 3 || c >= 3)) continue; /* the short case: rot_ab, rot_twice, rot_w4, sm_90 */
      if (c >= 3 && v != 0 && v != 4) continue;   /* sm_80: rot_ab and rot_i8 at BK8 128 (a compile each) */
      if (sz == 0 && (V[v].i8 || !strcmp(V[v].kn, "rot_qb"))) K = V[v].i8 ? 1040 : 584;
      const char *tg = targets[c / 3];
      Rng r = rng_seed("pipeline_rotated", (uint64_t)(v * 8 + c));
      Call k;
      call_init(&k, "pipeline_rotated.tl", V[v].kn);
      snprintf(k.target, sizeof k.target, "%s", tg);
      call_arg(&k, "-D%s", V[v].bk);
      call_arg(&k, "-D%s", V[v].st);
      bool ta = !strcmp(V[v].kn, "rot_atb"), tb = !strcmp(V[v].kn, "rot_abt") || V[v].i8;
      bool qb = !strcmp(V[v].kn, "rot_qb"); /* A [M, 64], read in every iteration */
      Dt dt = V[v].i8 ? I8 : F16;
      Ten *A = ta ? call_in(&k, "At", dt, 2, SHAPE(K, M)) : call_in(&k, "A", dt, 2, SHAPE(M, qb ? 64 : K));
      Ten *B = tb ? call_in(&k, V[v].i8 ? "B" : "Bt", dt, 2, SHAPE(N, K)) : call_in(&k, "B", dt, 2, SHAPE(K, N));
      Ten *C = call_out(&k, "C", V[v].i8 ? I32 : F32, 2, SHAPE(M, N));
      fill_operands(A, B, &r, V[v].i8);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = 0;
          for (int kk = 0; kk < K; kk++)
            s += (ta ? A2(A, kk, i) : qb ? A2(A, i, kk % 64) : A2(A, i, kk)) * (tb ? A2(B, j, kk) : A2(B, kk, j));
          R2(C, i, j) = V[v].twice ? 2 * s : s;
        }
      char l[80];
      label(l, sizeof l, "%s %s %s M=%d N=%d K=%d", V[v].kn, V[v].bk, tg, M, N, K);
      CHECK(T, call_check(&k, "pipeline_rotated", l));
      call_free(&k);
    }
}

/* splitk: C += A B by split-K (tests/gpu/splitk.tl): 3 z blocks per tile each
 * fold their part of k into C by f32 atomic_add, onto C's own values. Ragged M
 * and N, K not a multiple of BK (a last part shorter than the others), N odd
 * (the general body), and K = 40, where the third part has no k at all and adds
 * its zeros. Its sums cancel for some elements, where the order of the parts
 * changes the result by far more than rounding of the result would allow
 * (before, the CPU backend took that for a race). sm_90 and sm_80 here; make
 * test's sm_90a pass runs it on wgmma. */
static void t_splitk(Tally *T) {
  static const int MNK[][3] = {{70, 100, 300}, {37, 129, 200}, {130, 64, 40}};
  for (int c = 0; c < 6; c++) {
    int M = MNK[c % 3][0], N = MNK[c % 3][1], K = MNK[c % 3][2];
    Rng r = rng_seed("splitk", (uint64_t)c);
    Call k;
    call_init(&k, "splitk.tl", "splitk");
    if (c >= 3) snprintf(k.target, sizeof k.target, "sm_80");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_operands(A, B, &r, false);
    C->init = calloc((size_t)C->n, sizeof(double));
    for (long long e = 0; e < C->n; e++) C->init[e] = round_dt(F32, rng_uniform(&r, -1, 1));
    gemm_ref(A, B, C, M, N, K, 1);
    for (long long e = 0; e < C->n; e++) C->ref[e] += C->init[e];
    C->etol = 1e-5;
    char l[80];
    label(l, sizeof l, "M=%d N=%d K=%d%s", M, N, K, c >= 3 ? " sm_80" : "");
    CHECK(T, call_check(&k, "splitk", l));
    call_free(&k);
  }
}

/* atomic_runs: float atomic_adds of a thread's runs in one update (tests/gpu/atomic_runs.tl;
 * f32 quads on sm_90, f16/bf16 pairs from sm_80), on sm_90 and sm_80, at sizes that take
 * the fast body (N a multiple of 4) and the general one (N odd), onto the outputs' own
 * values: a bias gradient's column sums from 4 blocks a column, a rank-1 [N] sum whose
 * last run reaches past N, f16 and bf16 tiles (one update an element), and an
 * embedding's backward whose rows repeat (several updates of one element). */
static void t_atomic_runs(Tally *T) {
  static const int MN[][2] = {{150, 260}, {37, 129}, {64, 132}, {5, 3}};
  for (int c = 0; c < 8; c++) {
    int M = MN[c % 4][0], N = MN[c % 4][1];
    const char *tg = c >= 4 ? "sm_80" : "sm_90";
    char l[80];
    { /* col_sums */
      Rng r = rng_seed("atomic_runs/col", (uint64_t)c);
      Call k;
      call_init(&k, "atomic_runs.tl", "col_sums");
      snprintf(k.target, sizeof k.target, "%s", tg);
      Ten *DY = call_in(&k, "DY", F32, 2, SHAPE(M, N));
      Ten *DB = call_out(&k, "DB", F32, 2, SHAPE(1, N));
      fill_uniform(DY, &r, -1, 1);
      DB->init = calloc((size_t)N, sizeof(double));
      for (int j = 0; j < N; j++) {
        DB->init[j] = round_dt(F32, rng_uniform(&r, -1, 1));
        double s = DB->init[j];
        for (int i = 0; i < M; i++) s += A2(DY, i, j);
        DB->ref[j] = s;
      }
      label(l, sizeof l, "col_sums M=%d N=%d %s", M, N, tg);
      CHECK(T, call_check(&k, "atomic_runs", l));
      call_free(&k);
    }
    { /* vec_sums: 3 blocks a column, rows 0 .. 23 of X (past R: 0) */
      int R = M;
      Rng r = rng_seed("atomic_runs/vec", (uint64_t)c);
      Call k;
      call_init(&k, "atomic_runs.tl", "vec_sums");
      snprintf(k.target, sizeof k.target, "%s", tg);
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(R, N));
      Ten *V = call_out(&k, "V", F32, 1, SHAPE(N));
      fill_uniform(X, &r, -1, 1);
      V->init = calloc((size_t)N, sizeof(double));
      for (int j = 0; j < N; j++) {
        V->init[j] = round_dt(F32, rng_uniform(&r, -1, 1));
        double s = V->init[j];
        for (int i = 0; i < R && i < 24; i++) s += A2(X, i, j);
        V->ref[j] = s;
      }
      label(l, sizeof l, "vec_sums R=%d N=%d %s", R, N, tg);
      CHECK(T, call_check(&k, "atomic_runs", l));
      call_free(&k);
    }
    { /* half_sums: one update an element, rounded once to the element's type */
      Rng r = rng_seed("atomic_runs/half", (uint64_t)c);
      Call k;
      call_init(&k, "atomic_runs.tl", "half_sums");
      snprintf(k.target, sizeof k.target, "%s", tg);
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
      Ten *H = call_out(&k, "H", F16, 2, SHAPE(M, N));
      Ten *B = call_out(&k, "B", BF16, 2, SHAPE(M, N));
      fill_uniform(X, &r, -2, 2);
      H->init = calloc((size_t)H->n, sizeof(double));
      B->init = calloc((size_t)B->n, sizeof(double));
      for (long long e = 0; e < H->n; e++) {
        H->init[e] = round_dt(F16, rng_uniform(&r, -1, 1));
        B->init[e] = round_dt(BF16, rng_uniform(&r, -1, 1));
        H->ref[e] = round_dt(F16, H->init[e] + round_dt(F16, X->v[e] * 0.5));
        B->ref[e] = round_dt(BF16, B->init[e] + round_dt(BF16, X->v[e]));
      }
      label(l, sizeof l, "half_sums M=%d N=%d %s", M, N, tg);
      CHECK(T, call_check(&k, "atomic_runs", l));
      call_free(&k);
    }
    { /* embed_grad: T = M tokens into V = 7 rows (repeats) */
      int Tn = M, Vn = 7;
      Rng r = rng_seed("atomic_runs/embed", (uint64_t)c);
      Call k;
      call_init(&k, "atomic_runs.tl", "embed_grad");
      snprintf(k.target, sizeof k.target, "%s", tg);
      Ten *G = call_in(&k, "G", F32, 2, SHAPE(Tn, 64));
      Ten *I = call_in(&k, "I", I32, 1, SHAPE(Tn));
      Ten *DW = call_out(&k, "DW", F32, 2, SHAPE(Vn, 64));
      fill_uniform(G, &r, -1, 1);
      fill_int(I, &r, 0, Vn - 1);
      DW->init = calloc((size_t)DW->n, sizeof(double));
      for (long long e = 0; e < DW->n; e++) DW->ref[e] = DW->init[e] = round_dt(F32, rng_uniform(&r, -1, 1));
      for (int t = 0; t < Tn; t++)
        for (int j = 0; j < 64; j++) R2(DW, (int)I->v[t], j) += A2(G, t, j);
      label(l, sizeof l, "embed_grad T=%d %s", Tn, tg);
      CHECK(T, call_check(&k, "atomic_runs", l));
      call_free(&k);
    }
  }
}

/* epilogue_bias: C = relu(A B + bias) in f16 (tests/gpu/epilogue_bias.tl), at
 * ragged sizes: M and N past a tile, K not a multiple of BK, N odd (the general
 * body), one small corner; sm_90 here, make test's sm_90a pass on wgmma with the
 * staged TMA store. */
static void t_epilogue_bias(Tally *T) {
  static const int MNK[][3] = {{130, 200, 72}, {37, 129, 33}, {5, 3, 7}};
  for (int c = 0; c < 3; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("epilogue_bias", (uint64_t)c);
    Call k;
    call_init(&k, "epilogue_bias.tl", "gemm_bias_relu");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *Bias = call_in(&k, "bias", F32, 1, SHAPE(N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_operands(A, B, &r, false);
    fill_uniform(Bias, &r, -2, 2);
    gemm_ref(A, B, C, M, N, K, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(C, i, j) = round_dt(F16, fmax(R2(C, i, j) + Bias->v[j], 0.0));
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "epilogue_bias", l));
    call_free(&k);
  }
}

/* gemm_bias_res (tests/gpu/gemm_bias_res.tl): C = A @ B + bias + R at 128 x 256 tiles,
 * for sm_90a (wgmma; the bias through a copy of its own, the store staged) and sm_90
 * (mma.sync); M, N, K ragged (K % 8 != 0: the general body), and exact. */
static void t_gemm_bias_res(Tally *T) {
  static const int MNK[][3] = {{200, 300, 136}, {129, 257, 100}, {256, 512, 128}, {5, 3, 8}};
  for (int c = 0; c < 6; c++) {
    int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
    const char *target = c < 4 ? "sm_90a" : "sm_90";
    Rng r = rng_seed("gemm_bias_res", (uint64_t)c);
    Call k;
    call_init(&k, "gemm_bias_res.tl", "gemm_bias_res");
    snprintf(k.target, sizeof k.target, "%s", target);
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *Bias = call_in(&k, "Bias", F16, 1, SHAPE(N));
    Ten *R = call_in(&k, "R", F16, 2, SHAPE(M, N));
    Ten *C = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_operands(A, B, &r, false);
    fill_uniform(Bias, &r, -2, 2);
    fill_uniform(R, &r, -2, 2);
    gemm_ref(A, B, C, M, N, K, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(C, i, j) = R2(C, i, j) + Bias->v[j] + A2(R, i, j);
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d K=%d", target, M, N, K);
    CHECK(T, call_check(&k, "gemm_bias_res", l));
    call_free(&k);
  }
}

/* inplace (tests/gpu/inplace.tl): Adam's moments updated in place with no barrier
 * between each read and its store, and overlapping windows moved by a loop
 * variable, whose barriers must stay (without them the CPU backend reports the
 * race between iterations); ragged N, a single partial block. */
static void t_inplace(Tally *T) {
  static const int Ns[] = {5000, 1024, 37};
  for (int c = 0; c < 6; c++) {
    int N = Ns[c % 3];
    bool win = c >= 3;
    Rng r = rng_seed("inplace", (uint64_t)c);
    Call k;
    call_init(&k, "inplace.tl", win ? "inplace_windows" : "inplace_moments");
    char l[64];
    if (win) {
      Ten *X = call_out(&k, "X", F32, 1, SHAPE(N));
      X->init = calloc((size_t)N, sizeof(double));
      for (int i = 0; i < N; i++) X->init[i] = (round_dt(F32, rng_uniform(&r, -1, 1)));
      for (int i = 0; i < N; i++) {
        double x = X->init[i];
        int o = i % 64, times = (o < 32) + (o >= 16 && o < 48) + (o >= 32);
        for (int t = 0; t < times; t++) x = round_dt(F32, round_dt(F32, x * 2.0) + 1.0);
        X->ref[i] = x;
      }
      X->etol = 0;
      label(l, sizeof l, "windows N=%d", N);
    } else {
      Ten *G = call_in(&k, "G", F32, 1, SHAPE(N));
      Ten *M = call_out(&k, "M", F32, 1, SHAPE(N));
      Ten *V = call_out(&k, "V", F32, 1, SHAPE(N));
      fill_uniform(G, &r, -1, 1);
      M->init = calloc((size_t)N, sizeof(double));
      V->init = calloc((size_t)N, sizeof(double));
      for (int i = 0; i < N; i++) M->init[i] = round_dt(F32, rng_uniform(&r, -1, 1)), V->init[i] = round_dt(F32, rng_uniform(&r, 0, 1));
      call_arg(&k, "b1=0.875");
      call_arg(&k, "b2=0.9990234375");
      for (int i = 0; i < N; i++) {
        double g = G->v[i];
        M->ref[i] = M->init[i] * 0.875 + 0.125 * g;
        V->ref[i] = V->init[i] * 0.9990234375 + 0.0009765625 * g * g;
      }
      M->etol = V->etol = 1e-6;
      label(l, sizeof l, "moments N=%d", N);
    }
    CHECK(T, call_check(&k, "inplace", l));
    call_free(&k);
  }
}

/* inplace_loop (tests/gpu/inplace_loop.tl): tensors updated in place by a loop
 * whose window moves by its length (an Adam step, with no barrier), by its length
 * with the read one element ahead, and by half its length (both keep their
 * barriers: without them the CPU backend reports the race between iterations);
 * stores alone whose windows overlap by half (a barrier) or sit at multiples of
 * their length (none); ragged N, several blocks for Adam. */
static void t_inplace_loop(Tally *T) {
  static const int Ns[] = {5000, 1024, 37, 3001};
  for (int c = 0; c < 20; c++) {
    int N = Ns[c % 4], form = c / 4;
    Rng r = rng_seed("inplace_loop", (uint64_t)c);
    Call k;
    char l[64];
    if (form >= 3) { /* stores alone: each element's last window's value */
      call_init(&k, "inplace_loop.tl", form == 3 ? "store_overlap" : "store_tiled");
      Ten *X = call_out(&k, "X", F32, 1, SHAPE(N));
      for (int i = 0; i < N; i++) /* overlap: the window at a multiple of 128 that starts last at or before i */
        X->ref[i] = form == 3 ? (double)(i / 128 * 128) : (double)(2 * (i / 256) + 1);
      X->etol = 0;
      label(l, sizeof l, "%s N=%d", form == 3 ? "store_overlap" : "store_tiled", N);
    } else if (form == 0) {
      call_init(&k, "inplace_loop.tl", "inplace_adam");
      Ten *P = call_out(&k, "P", F32, 1, SHAPE(N));
      Ten *G = call_in(&k, "G", F32, 1, SHAPE(N));
      Ten *M = call_out(&k, "M", F32, 1, SHAPE(N));
      Ten *V = call_out(&k, "V", F32, 1, SHAPE(N));
      fill_uniform(G, &r, -1, 1);
      P->init = calloc((size_t)N, sizeof(double));
      M->init = calloc((size_t)N, sizeof(double));
      V->init = calloc((size_t)N, sizeof(double));
      for (int i = 0; i < N; i++) {
        P->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
        M->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
        V->init[i] = round_dt(F32, rng_uniform(&r, 0, 1));
      }
      call_arg(&k, "lr=0.0078125");
      call_arg(&k, "b1=0.875");
      call_arg(&k, "b2=0.9990234375");
      call_arg(&k, "eps=0.0001220703125");
      for (int i = 0; i < N; i++) {
        double g = G->v[i];
        double m = 0.875 * M->init[i] + 0.125 * g, v = 0.9990234375 * V->init[i] + 0.0009765625 * g * g;
        M->ref[i] = m;
        V->ref[i] = v;
        P->ref[i] = P->init[i] - 0.0078125 * m / (sqrt(v) + 0.0001220703125);
      }
      P->etol = M->etol = V->etol = 1e-5;
      label(l, sizeof l, "adam N=%d", N);
    } else {
      call_init(&k, "inplace_loop.tl", form == 1 ? "inplace_shifted" : "inplace_overlap");
      Ten *X = call_out(&k, "X", F32, 1, SHAPE(N));
      X->init = calloc((size_t)N, sizeof(double));
      for (int i = 0; i < N; i++) X->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      for (int i = 0; i < N; i++) {
        if (form == 1) /* each element takes half its right neighbour's first value; past the end reads 0 */
          X->ref[i] = i + 1 < N ? X->init[i + 1] * 0.5 : 0.0;
        else /* doubled once by each window of 256 at a multiple of 128 that holds it */
          X->ref[i] = X->init[i] * (i < 128 ? 2.0 : 4.0);
      }
      X->etol = 0;
      label(l, sizeof l, "%s N=%d", form == 1 ? "shifted" : "overlap", N);
    }
    CHECK(T, call_check(&k, "inplace_loop", l));
    call_free(&k);
  }
}

/* row_walk (tests/gpu/row_walk.tl): in-place updates whose threads' elements never
 * cross: column prefix sums down the rows (no barrier), the same read one column to
 * the right (its barrier stays: the race detector needs it), and a butterfly of each
 * block's two halves (no barrier). Ragged sizes. */
static void t_row_walk(Tally *T) {
  static const int RC[][2] = {{37, 1100}, {5, 512}, {64, 300}, {1, 77}};
  for (int c = 0; c < 12; c++) {
    int R = RC[c % 4][0], C = RC[c % 4][1], form = c / 4;
    Rng r = rng_seed("row_walk", (uint64_t)c);
    Call k;
    char l[64];
    if (form < 2) {
      if (form == 1 && C > 512) C = 509; /* one block of 512 columns */
      call_init(&k, "row_walk.tl", form == 0 ? "prefix_rows" : "shifted_rows");
      Ten *X = call_out(&k, "X", F32, 2, SHAPE(R, C));
      X->init = calloc((size_t)R * C, sizeof(double));
      for (long long i = 0; i < (long long)R * C; i++) X->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      for (long long i = 0; i < (long long)R * C; i++) X->ref[i] = X->init[i];
      for (int i = 1; i < R; i++)
        for (int j = 0; j < C; j++) {
          int jj = form == 0 ? j : j + 1; /* past the last column reads 0 */
          X->ref[(long long)i * C + j] += jj < C ? X->ref[(long long)(i - 1) * C + jj] : 0.0;
        }
      X->etol = 1e-5;
      label(l, sizeof l, "%s R=%d C=%d", form == 0 ? "prefix_rows" : "shifted_rows", R, C);
    } else {
      int N = R * C;
      call_init(&k, "row_walk.tl", "butterfly");
      Ten *X = call_out(&k, "X", F32, 1, SHAPE(N));
      X->init = calloc((size_t)N, sizeof(double));
      for (int i = 0; i < N; i++) X->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      for (int b0 = 0; b0 < N; b0 += 1024)
        for (int j = 0; j < 512; j++) {
          double a = b0 + j < N ? X->init[b0 + j] : 0.0, b = b0 + 512 + j < N ? X->init[b0 + 512 + j] : 0.0;
          if (b0 + j < N) X->ref[b0 + j] = a - b;
          if (b0 + 512 + j < N) X->ref[b0 + 512 + j] = a + b;
        }
      X->etol = 1e-6;
      label(l, sizeof l, "butterfly N=%d", N);
    }
    CHECK(T, call_check(&k, "row_walk", l));
    call_free(&k);
  }
}

/* decode (tests/gpu/decode.tl): one query row per (batch, head) against S keys,
 * its P V product as a dot of one row (decode_dot) and as a column sum
 * (decode_colsum); S ragged (past a key block, one block exactly, under one
 * block), B 2, H 3, D 128, f16 in and out, against softmax in double. */
static void t_decode(Tally *T) {
  static const int Ss[] = {200, 64, 5};
  const int Bn = 2, H = 3, D = 128;
  for (int c = 0; c < 6; c++) {
    int S = Ss[c % 3];
    const char *kn = c < 3 ? "decode_dot" : "decode_colsum";
    Rng r = rng_seed("decode", (uint64_t)c);
    double scale = round_dt(F32, 1 / sqrt((double)D));
    Call k;
    call_init(&k, "decode.tl", kn);
    Ten *Q = call_in(&k, "Q", F16, 3, SHAPE(Bn, H, D));
    Ten *K = call_in(&k, "K", F16, 4, SHAPE(Bn, H, S, D));
    Ten *V = call_in(&k, "V", F16, 4, SHAPE(Bn, H, S, D));
    Ten *O = call_out(&k, "O", F16, 3, SHAPE(Bn, H, D));
    fill_uniform(Q, &r, -2, 2);
    fill_uniform(K, &r, -2, 2);
    fill_uniform(V, &r, -1, 1);
    call_arg(&k, "scale=%.9g", scale);
    double *p = malloc(sizeof(double) * (size_t)S);
    for (long long bh = 0; bh < (long long)Bn * H; bh++) {
      const double *q = Q->v + bh * D, *kk = K->v + bh * S * D, *v = V->v + bh * S * D;
      double mx = -INFINITY, l = 0;
      for (int j = 0; j < S; j++) {
        double d = 0;
        for (int e = 0; e < D; e++) d += q[e] * kk[j * D + e];
        p[j] = d * scale;
        mx = dmax(mx, p[j]);
      }
      for (int j = 0; j < S; j++) l += p[j] = exp(p[j] - mx);
      for (int e = 0; e < D; e++) {
        double a = 0;
        for (int j = 0; j < S; j++) a += p[j] * v[j * D + e];
        O->ref[bh * D + e] = round_dt(F16, a / l);
      }
    }
    free(p);
    O->etol = 2e-3;
    char l[64];
    label(l, sizeof l, "%s S=%d", kn, S);
    CHECK(T, call_check(&k, "decode", l));
    call_free(&k);
  }
}

/* rope (tests/gpu/rope.tl): gathers of a row's even and odd columns and scatter
 * stores back, T ragged (two blocks and a part, one part), D 64. */
static void t_rope(Tally *T) {
  static const int Ts[] = {37, 16, 5};
  const int D = 64, H = 32;
  for (int c = 0; c < 3; c++) {
    int Tn = Ts[c];
    Rng r = rng_seed("rope", (uint64_t)c);
    Call k;
    call_init(&k, "rope.tl", "rope");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(Tn, D));
    Ten *C = call_in(&k, "C", F32, 2, SHAPE(Tn, H));
    Ten *S = call_in(&k, "S", F32, 2, SHAPE(Tn, H));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(Tn, D));
    fill_uniform(X, &r, -2, 2);
    for (long long i = 0; i < C->n; i++) {
      double th = rng_uniform(&r, -3.14, 3.14);
      C->v[i] = round_dt(F32, cos(th));
      S->v[i] = round_dt(F32, sin(th));
    }
    for (int t = 0; t < Tn; t++)
      for (int i = 0; i < H; i++) {
        double xe = X->v[t * D + 2 * i], xo = X->v[t * D + 2 * i + 1], cs = C->v[t * H + i], sn = S->v[t * H + i];
        Y->ref[t * D + 2 * i] = xe * cs - xo * sn;
        Y->ref[t * D + 2 * i + 1] = xe * sn + xo * cs;
      }
    Y->etol = 1e-6;
    char l[64];
    label(l, sizeof l, "T=%d D=%d", Tn, D);
    CHECK(T, call_check(&k, "rope", l));
    call_free(&k);
  }
}

/* loop_last (tests/gpu/loop_last.tl): stores whose checks are dropped at a loop
 * variable's last value and at a constant times it, with Y exactly as long as
 * they reach (N 512) and longer (700: past 512, Y keeps its contents); N 500 is
 * refused by @assume(N >= 512) before the launch. */
static void t_loop_last(Tally *T) {
  static const int Ns[] = {512, 700};
  for (int c = 0; c < 2; c++) {
    int N = Ns[c];
    Rng r = rng_seed("loop_last", (uint64_t)c);
    Call k;
    call_init(&k, "loop_last.tl", "loop_last");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(256));
    Ten *O = call_out(&k, "O", F32, 1, SHAPE(256));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    fill_uniform(X, &r, -1, 1);
    Y->init = calloc((size_t)N, sizeof(double));
    for (int i = 0; i < N; i++) Y->init[i] = -7.0;
    for (int i = 0; i < 256; i++) O->ref[i] = 2.0 * X->v[i];
    for (int i = 0; i < N; i++) Y->ref[i] = i < 512 ? i / 128 + 0.5 : -7.0;
    Y->etol = O->etol = 1e-12;
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "loop_last", l));
    call_free(&k);
  }
  Call k;
  call_init(&k, "loop_last.tl", "loop_last");
  call_in(&k, "X", F32, 1, SHAPE(256));
  call_out(&k, "O", F32, 1, SHAPE(256));
  call_out(&k, "Y", F32, 1, SHAPE(500));
  CHECK(T, call_expect_fail(&k, "loop_last", "N=500 (under @assume(N >= 512))", "@assume"));
  call_free(&k);
  /* var_chain: C ragged (rows past C / 4 * 4 stay as they were), HW past and short of
   * s + 64, q under 5 (s = 0) and over it */
  static const int CHQ[][3] = {{10, 70, 2}, {8, 100, 40}, {7, 64, 9}};
  for (int c = 0; c < 3; c++) {
    int C = CHQ[c][0], HW = CHQ[c][1], q = CHQ[c][2], s = q - 5 > 0 ? q - 5 : 0;
    Rng r = rng_seed("loop_last_var_chain", (uint64_t)c);
    call_init(&k, "loop_last.tl", "var_chain");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(C, HW));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(C, HW));
    fill_uniform(X, &r, -1, 1);
    call_arg(&k, "q=%d", q);
    Y->init = calloc((size_t)Y->n, sizeof(double));
    for (long long i = 0; i < Y->n; i++) Y->ref[i] = Y->init[i] = -7.0;
    for (int i = 0; i < C / 4 * 4; i++)
      for (int j = 0; j < 64 && j < HW; j++) R2(Y, i, j) = s + j < HW ? 2.0 * A2(X, i, s + j) : 0.0;
    Y->etol = 1e-12;
    char l[64];
    label(l, sizeof l, "var_chain C=%d HW=%d q=%d", C, HW, q);
    CHECK(T, call_check(&k, "loop_last", l));
    call_free(&k);
  }
}

static void t_cast_saturate(Tally *T) {
  static const double vals[32] = {3e9, -3e9, NAN, INFINITY, -INFINITY, 300.5, -200.7, -0.9,
                                  1e20, -1e20, 127.9, -128.9, 255.5, -1.0, 2147483520.0, 4294967040.0,
                                  1e19, -9.3e18, 5.5, -5.5, 0.0, -0.0, 4294901760.0, 7e9,
                                  128.0, -129.0, 254.99, 1.5, 2.5, -2.5, 100.0, 42.7};
  static const int Ns[] = {32, 29, 1};
  for (int q = 0; q < 3; q++) {
    int N = Ns[q];
    Call k;
    call_init(&k, "cast_saturate.tl", "cast_saturate");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *D = call_in(&k, "D", F64, 1, SHAPE(N));
    Ten *O = call_out(&k, "O", F64, 2, SHAPE(N, 5));
    Ten *P = call_out(&k, "P", F64, 2, SHAPE(N, 5));
    for (int i = 0; i < N; i++) {
      double v = vals[(i + 7 * q) % 32];
      X->v[i] = (float)v, D->v[i] = v;
      for (int w = 0; w < 2; w++) {
        Ten *R = w ? P : O;
        double x = w ? v : (double)(float)v;
        R2(R, i, 0) = sat_trunc(x, -2147483648.0, 2147483647.0, w ? -2147483648.0 : 0);
        R2(R, i, 1) = sat_trunc(x, 0, 255, w ? 128 : 0);
        R2(R, i, 2) = sat_trunc(x, -128, 127, w ? -128 : 0);
        R2(R, i, 3) = sat_trunc(x, 0, 4294967295.0, w ? 2147483648.0 : 0);
        /* 2^63 as f64 */
        R2(R, i, 4) = sat_trunc(x, -9223372036854775808.0, 9223372036854775807.0, -9223372036854775808.0);
      }
    }
    O->tol = P->tol = 0;
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "cast_saturate", l));
    call_free(&k);
  }
}

/* f8 dots: C = A B^T in e4m3 (tensor cores, @pipeline(2)) and C = A B + C0 in
 * e5m2 (B's copy stored transposed), on sm_90a (e4m3: wgmma m64nNk32, both
 * operands K-major; e5m2's transposed copy stays on mma.sync), on sm_90
 * (mma.sync m16n8k32) and on sm_80, where the same kernels run on the CUDA
 * cores. The references are double sums of the (exact) f8 inputs; f32
 * accumulation in any order stays within 1e-5. */
static void t_dot_f8(Tally *T) {
  static const int MNK[][3] = {{37, 50, 100}, {64, 64, 128}, {70, 20, 33}, {5, 3, 7}};
  static const char *const targets[] = {"sm_90a", "sm_90", "sm_80"};
  for (int f = 0; f < 2; f++)
    for (int c = 0; c < 12; c++) {
      int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2];
      Dt dt = f ? F8E5M2 : F8E4M3;
      const char *kn = f ? "dot_f8e5m2" : "dot_f8e4m3";
      Rng r = rng_seed(kn, (uint64_t)c);
      Call k;
      call_init(&k, f ? "dot_f8_e5m2.tl" : "dot_f8.tl", kn);
      snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
      Ten *A = call_in(&k, "A", dt, 2, SHAPE(M, K));
      Ten *B = call_in(&k, "B", dt, 2, f ? SHAPE(K, N) : SHAPE(N, K));
      Ten *C0 = f ? call_in(&k, "C0", F32, 2, SHAPE(M, N)) : NULL;
      Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
      /* inputs of moderate size: uniform in [-4, 4] rounded to the f8 type */
      fill_uniform(A, &r, -4, 4);
      fill_uniform(B, &r, -4, 4);
      if (C0) fill_uniform(C0, &r, -10, 10);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = C0 ? A2(C0, i, j) : 0;
          for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * (f ? A2(B, kk, j) : A2(B, j, kk));
          R2(C, i, j) = s;
        }
      C->tol = 1e-5;
      char l[64];
      label(l, sizeof l, "%s M=%d N=%d K=%d", k.target, M, N, K);
      CHECK(T, call_check(&k, kn, l));
      call_free(&k);
    }
}

/* operand_home_f16, operand_home_f8, operand_home_pipeline (tests/gpu/operand_home_*.tl):
 * 128-deep k blocks on one warpgroup, whose B slice (128 x 128, 128 per thread) is too
 * large for registers and lives in its operand copy: on sm_90a wgmma's 128-byte
 * swizzled copy (a stage ring under @pipeline(3)), on sm_90 ldmatrix's padded one, on
 * sm_80 too (f8: the CUDA cores). f16 C = A B^T; f8e4m3 with one f32 scale per row and
 * k block; the pipelined f8 one also scaled per n block, stored in bf16. Ragged M, N
 * and K (K % 16 != 0: the general body), a tile exactly, a tile's corner, several k
 * blocks. The references are double sums of the exact f16/f8 inputs, each block's sum
 * scaled in double; f32 accumulation in any order stays within 1e-5 (bf16 C: 1e-2). */
static void t_operand_home(Tally *T) {
  static const int MNK[][3] = {{70, 136, 200}, {64, 128, 256}, {5, 3, 7}, {130, 250, 300}};
  static const char *const targets[] = {"sm_90a", "sm_90", "sm_80"};
  static const char *const kns[] = {"operand_home_f16", "operand_home_f8", "operand_home_pipeline"};
  for (int f = 0; f < 3; f++)
    for (int c = 0; c < 12; c++) {
      int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2], KB = (K + 127) / 128, NB = (N + 127) / 128;
      Dt dt = f ? F8E4M3 : F16;
      const char *kn = kns[f];
      Rng r = rng_seed(kn, (uint64_t)c);
      Call k;
      char file[64];
      snprintf(file, sizeof file, "%s.tl", kn);
      call_init(&k, file, kn);
      snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
      Ten *A = call_in(&k, "A", dt, 2, SHAPE(M, K));
      Ten *SA = f ? call_in(&k, f == 1 ? "S" : "SA", F32, 2, SHAPE(M, KB)) : NULL;
      Ten *B = call_in(&k, "B", dt, 2, SHAPE(N, K));
      Ten *SB = f == 2 ? call_in(&k, "SB", F32, 2, SHAPE(NB, KB)) : NULL;
      Ten *C = call_out(&k, "C", f == 2 ? BF16 : F32, 2, SHAPE(M, N));
      fill_uniform(A, &r, f ? -4 : -1, f ? 4 : 1);
      fill_uniform(B, &r, f ? -4 : -1, f ? 4 : 1);
      if (SA) fill_uniform(SA, &r, -2, 2);
      if (SB) fill_uniform(SB, &r, 0.5, 2);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = 0;
          for (int kb = 0; kb < KB; kb++) {
            double d = 0;
            for (int kk = kb * 128; kk < K && kk < (kb + 1) * 128; kk++) d += A2(A, i, kk) * A2(B, j, kk);
            s += d * (SA ? A2(SA, i, kb) : 1) * (SB ? A2(SB, j / 128, kb) : 1);
          }
          R2(C, i, j) = f == 2 ? round_dt(BF16, s) : s;
        }
      C->tol = f == 2 ? 1e-2 : 1e-5;
      char l[64];
      label(l, sizeof l, "%s M=%d N=%d K=%d", k.target, M, N, K);
      CHECK(T, call_check(&k, kn, l));
      call_free(&k);
    }
}

/* Scaled GEMMs whose dot's value is only scaled and added into the accumulator,
 * acc += dot(a, transpose(b)) * s with s one f32 per row and block of K (times a
 * scalar alpha in f16): on sm_90 and sm_80 (f16) the dot runs in parts of its
 * columns, each scaled and added before the next (layout.c split_dots); f8 on
 * sm_90a on wgmma, on sm_80 on the CUDA cores. The references are double sums of
 * the exact f8/f16 inputs, each block's sum scaled (in double) before it is added. */
static void t_dot_scaled(Tally *T) {
  static const int MNK[][3] = {{150, 200, 300}, {128, 128, 256}, {37, 20, 33}, {5, 3, 7}};
  static const char *const targets[] = {"sm_90", "sm_90a", "sm_80"};
  for (int f = 0; f < 2; f++)
    for (int c = 0; c < 12; c++) {
      int M = MNK[c % 4][0], N = MNK[c % 4][1], K = MNK[c % 4][2], bk = f ? 64 : 128, KB = (K + bk - 1) / bk;
      Dt dt = f ? F16 : F8E4M3;
      const char *kn = f ? "dot_scaled_f16" : "dot_scaled_f8";
      Rng r = rng_seed(kn, (uint64_t)c);
      double alpha = f ? round_dt(F32, rng_uniform(&r, 0.5, 2)) : 1;
      Call k;
      call_init(&k, f ? "dot_scaled_f16.tl" : "dot_scaled_f8.tl", kn);
      snprintf(k.target, sizeof k.target, "%s", targets[c / 4]);
      Ten *A = call_in(&k, "A", dt, 2, SHAPE(M, K));
      Ten *As = call_in(&k, "As", F32, 2, SHAPE(M, KB));
      Ten *B = call_in(&k, "B", dt, 2, SHAPE(N, K));
      Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
      fill_uniform(A, &r, f ? -1 : -4, f ? 1 : 4);
      fill_uniform(B, &r, f ? -1 : -4, f ? 1 : 4);
      fill_uniform(As, &r, -2, 2);
      if (f) call_arg(&k, "alpha=%.9g", alpha);
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          double s = 0;
          for (int kb = 0; kb < KB; kb++) {
            double d = 0;
            for (int kk = kb * bk; kk < K && kk < (kb + 1) * bk; kk++) d += A2(A, i, kk) * A2(B, j, kk);
            s += d * A2(As, i, kb) * alpha;
          }
          R2(C, i, j) = s;
        }
      C->tol = 1e-5;
      char l[64];
      label(l, sizeof l, "%s M=%d N=%d K=%d", k.target, M, N, K);
      CHECK(T, call_check(&k, kn, l));
      call_free(&k);
    }
}

/* a dot inside an expression: acc = acc + 2.0 * dot(a, b) over K, then
 * C = acc + bias + beta; and C = 2.0 * dot(..) + bias - beta once (K <= 32) */
static void t_dot_in_expr(Tally *T) {
  static const int MNK[][3] = {{37, 50, 100}, {64, 64, 64}, {70, 24, 40}, {5, 3, 7},
                               {37, 50, 13},  {64, 64, 32}, {70, 40, 24}, {5, 3, 1}};
  /* each size on the default target, and on sm_90a (wgmma: acc = 0, then acc += dot) */
  for (int c2 = 0; c2 < 16; c2++) {
    int c = c2 / 2, M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    bool once = c >= 4;
    const char *kn = once ? "dot_in_expression_once" : "dot_in_expression";
    Rng r = rng_seed("dot_in_expression", (uint64_t)c);
    double beta = round_dt(F32, rng_uniform(&r, -2, 2));
    Call k;
    call_init(&k, "dot_forms_expr.tl", kn);
    if (c2 % 2) snprintf(k.target, sizeof k.target, "sm_90a");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *Bi = call_in(&k, "Bias", F32, 2, SHAPE(1, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    fill_uniform(Bi, &r, -4, 4);
    call_arg(&k, "beta=%.9g", beta);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, kk, j);
        R2(C, i, j) = 2 * s + A2(Bi, 0, j) + (once ? -beta : beta);
      }
    C->tol = 1e-5;
    char l[64];
    label(l, sizeof l, "%s%s M=%d N=%d K=%d", c2 % 2 ? "sm_90a " : "", once ? "once" : "loop", M, N, K);
    CHECK(T, call_check(&k, "dot_in_expression", l));
    call_free(&k);
  }
}

/* o = o * alpha + dot(f16(p), v), p = exp(x * 0.1) of an f32 tile, in blocks of 16
 * columns of K: after the last block, o = sum over blocks b of alpha^(nb-1-b) P_b V_b.
 * p is computed in f32 and rounded to f16 as the kernel does (expf of
 * (float)x * 0.1f); an expf one ulp off could move an element of p across an f16
 * rounding boundary only once in thousands, far inside the tolerance. */
static void t_dot_regs_a(Tally *T) {
  static const int MNK[][3] = {{37, 50, 100}, {64, 64, 64}, {70, 36, 45}, {33, 32, 96}, {5, 3, 7}};
  for (int c = 0; c < 5; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("dot_register_a_carried", (uint64_t)c);
    double alpha = round_dt(F32, rng_uniform(&r, 0.5, 1.5));
    Call k;
    call_init(&k, "dot_forms_regs.tl", "dot_register_a_carried");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, K));
    Ten *V = call_in(&k, "V", F16, 2, SHAPE(K, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -10, 10);
    fill_uniform(V, &r, -1, 1);
    call_arg(&k, "alpha=%.9g", alpha);
    double *p = malloc(sizeof(double) * (size_t)M * (size_t)K);
    for (long long i = 0; i < (long long)M * K; i++) p[i] = round_dt(F16, expf((float)X->v[i] * 0.1f));
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double o = 0;
        for (int k0 = 0; k0 < K; k0 += 16) {
          double s = 0;
          for (int kk = k0; kk < k0 + 16 && kk < K; kk++) s += p[(long long)i * K + kk] * A2(V, kk, j);
          o = o * alpha + s;
        }
        R2(O, i, j) = o;
      }
    free(p);
    O->tol = 1e-5;
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "dot_register_a_carried", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ transpose, pad, masks */

static void t_transpose(Tally *T) {
  static const int MN[][2] = {{37, 100}, {64, 128}, {3, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("transpose", (uint64_t)c);
    Call k;
    call_init(&k, "transpose2d.tl", "transpose2d");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(N, M));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(Y, j, i) = A2(X, i, j);
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "transpose", l));
    call_free(&k);
  }
}

/* transpose_windows: transposes read through column windows, each through one
 * shared copy stored transposed (tests/gpu/transpose_windows.tl); a window's
 * elements past M or N are 0, and what falls outside the outputs is not stored. */
static void t_transpose_windows(Tally *T) {
  static const int MN[][2] = {{37, 100}, {64, 128}, {5, 3}, {70, 65}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("transpose_windows", (uint64_t)c);
    Call k;
    call_init(&k, "transpose_windows.tl", "transpose_windows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(N, M)), *Z = call_out(&k, "Z", F32, 2, SHAPE(N, M));
    Ten *W = call_out(&k, "W", F32, 2, SHAPE(N, M)), *S = call_out(&k, "S", F32, 2, SHAPE(N, M));
    Ten *V = call_out(&k, "V", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    for (int n = 0; n < N; n++)
      for (int m = 0; m < M; m++) {
        int r0 = m / 32 * 32, i = m % 32;
        int other = r0 + (i < 16 ? i + 16 : i - 16); /* Z's halves swapped */
        double x = A2(X, m, n), xo = other < M ? A2(X, other, n) : 0;
        R2(Y, n, m) = x * (i / 8 * 8 + 1);
        R2(Z, n, m) = i < 16 ? 2 * xo : 2 * xo - 1;
        R2(W, n, m) = 3 * x;
        R2(V, m, n) = 2 * x - 1;
        R2(S, n, m) = 3 * x;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "transpose_windows", l));
    call_free(&k);
  }
}

static void t_causal(Tally *T) {
  static const int MNS[][3] = {{37, 45, 0}, {64, 64, 0}, {20, 100, 30}, {5, 3, 0}};
  for (int c = 0; c < 4; c++) {
    int M = MNS[c][0], N = MNS[c][1], shift = MNS[c][2];
    Rng r = rng_seed("causal", (uint64_t)c);
    double scale = round_dt(F32, rng_uniform(&r, 0.1, 1));
    Call k;
    call_init(&k, "causal_softmax.tl", "causal_softmax");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *P = call_out(&k, "P", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -6, 6);
    call_arg(&k, "scale=%.9g", scale);
    call_arg(&k, "shift=%d", shift);
    for (int i = 0; i < M; i++) {
      int last = i + shift < N - 1 ? i + shift : N - 1; /* columns 0 .. last are kept */
      double mx = -INFINITY, s = 0;
      for (int j = 0; j <= last; j++) mx = dmax(mx, A2(X, i, j) * scale);
      for (int j = 0; j <= last; j++) s += exp(A2(X, i, j) * scale - mx);
      for (int j = 0; j < N; j++) R2(P, i, j) = j <= last ? exp(A2(X, i, j) * scale - mx) / s : 0;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d shift=%d", M, N, shift);
    CHECK(T, call_check(&k, "causal_softmax", l));
    call_free(&k);
  }
}

static void t_pad(Tally *T) {
  static const int MN[][2] = {{10, 13}, {16, 16}, {1, 1}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("pad", (uint64_t)c);
    Call k;
    call_init(&k, "pad_value.tl", "pad_value");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(16, 16));
    Ten *R = call_out(&k, "R", I32, 2, SHAPE(16, 16));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 16; j++) {
        R2(Y, i, j) = i < M && j < N ? A2(X, i, j) : 7.0;
        R2(R, i, j) = i * 100 + j;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "pad_rows_cols", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ control flow */

static void t_control(Tally *T) {
  static const int NS[][3] = {{200, 0, 150}, {64, 64, -1}, {5, 7, 3}, {130, 129, 200}};
  for (int c = 0; c < 4; c++) {
    int N = NS[c][0], start = NS[c][1], neg_at = NS[c][2];
    Rng r = rng_seed("control", (uint64_t)c);
    Call k;
    call_init(&k, "control.tl", "control");
    Ten *X = call_in(&k, "X", I32, 1, SHAPE(N));
    Ten *O = call_out(&k, "O", I32, 1, SHAPE(N));
    Ten *C = call_out(&k, "C", I32, 1, SHAPE(4));
    fill_int(X, &r, 0, 5); /* zeros exercise continue */
    if (neg_at >= 0 && neg_at < N) X->v[neg_at] = -3; /* break */
    call_arg(&k, "start=%d", start);
    long long count = 0, zeros = 0, trips = 0, odd = 0;
    for (int i = 0; i < N; i++) {
      if (X->v[i] < 0) break;
      if (X->v[i] == 0) zeros++;
      else count += (long long)X->v[i];
    }
    for (int j = start; j < N; j += 64) trips++;
    for (int j = 0; j < N; j++) {
      if (j % 2 == 0) continue;
      if (j > 40) break;
      odd += j;
    }
    C->ref[0] = (double)count, C->ref[1] = (double)zeros, C->ref[2] = (double)trips, C->ref[3] = (double)odd;
    for (int i = 0; i < N; i++) O->ref[i] = X->v[i] * 2 + (i % 64);
    char l[64];
    label(l, sizeof l, "N=%d start=%d%s", N, start, start >= N ? " (0 trips)" : "");
    CHECK(T, call_check(&k, "scalar_control_flow", l));
    call_free(&k);
  }
}

static void t_neg_literal(Tally *T) {
  static const int Ns[] = {100, 64, 1};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("neg_literal", (uint64_t)c);
    Call k;
    call_init(&k, "neg_literal.tl", "neg_literal");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *I = call_in(&k, "I", I32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    Ten *J = call_out(&k, "J", I32, 1, SHAPE(N));
    fill_uniform(X, &r, -2, 2);
    fill_int(I, &r, -1000, 1000);
    for (int j = 0; j < N; j++) {
      Y->ref[j] = X->v[j] * 2;
      J->ref[j] = I->v[j] - 1;
    }
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "neg_literal", l));
    call_free(&k);
  }
}

static void t_name_c0(Tally *T) {
  static const int MN[][2] = {{32, 48}, {16, 16}, {64, 32}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("name_c0", (uint64_t)c);
    Call k;
    call_init(&k, "name_c0.tl", "name_c0");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -2, 2);
    /* each row reads the next row's element at its block's first column */
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(O, i, j) = i + 1 < M ? A2(X, i + 1, j / 16 * 16) : 0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "name_c0", l));
    call_free(&k);
  }
}

static void t_untyped_int(Tally *T) {
  static const int Cs[][2] = {{100, 1}, {100, -1}, {32, 2}, {5, 0}};
  for (int c = 0; c < 4; c++) {
    int N = Cs[c][0], cv = Cs[c][1];
    Rng r = rng_seed("untyped_int", (uint64_t)c);
    Call k;
    call_init(&k, "untyped_int.tl", "untyped_int");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    call_arg(&k, "c=%d", cv);
    fill_uniform(X, &r, -2, 2);
    /* C's integer division, remainder and shift of the chosen literals */
    int q = (cv > 0 ? 7 : 3) / 2, m = (cv > 0 ? -7 : 5) % 4, h = (cv > 0 ? -8 : 8) / 2;
    for (int j = 0; j < N; j++) Y->ref[j] = X->v[j] * q + m + h;
    char l[64];
    label(l, sizeof l, "N=%d c=%d", N, cv);
    CHECK(T, call_check(&k, "untyped_int", l));
    call_free(&k);
  }
}

static void t_tile_control(Tally *T) {
  static const int NS[][3] = {{200, 0, 1}, {256, 256, 2}, {3, 1, 0}, {100, 300, 1}};
  for (int c = 0; c < 4; c++) {
    int N = NS[c][0], start = NS[c][1], mode = NS[c][2];
    Rng r = rng_seed("tile_control", (uint64_t)c);
    Call k;
    call_init(&k, "tile_control.tl", "tile_control");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    Ten *Tt = call_out(&k, "T", F32, 1, SHAPE(2));
    fill_uniform(X, &r, -1, 1);
    call_arg(&k, "start=%d", start);
    call_arg(&k, "mode=%d", mode);
    double x[256];
    for (int i = 0; i < 256; i++) x[i] = i < N ? X->v[i] : 0;
    int steps = 0;
    for (;;) {
      double s = 0;
      for (int i = 0; i < 256; i++) s += fabs(x[i]);
      if (!(s > 1.0)) break;
      for (int i = 0; i < 256; i++) x[i] *= 0.5;
      if (++steps >= 20) break;
    }
    double tot = 0;
    for (int i = 0; i < 256; i++) {
      x[i] = mode == 1 ? x[i] + 1.0 : mode == 2 ? x[i] * x[i] : -x[i];
      for (int j = start; j < N; j += 64) x[i] += 0.25;
      tot += x[i];
    }
    for (int i = 0; i < N; i++) Y->ref[i] = x[i];
    Tt->ref[0] = steps, Tt->ref[1] = tot;
    char l[64];
    label(l, sizeof l, "N=%d start=%d mode=%d", N, start, mode);
    CHECK(T, call_check(&k, "tile_control_flow", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ tensors of every rank */

static void t_t1d(Tally *T) {
  static const int Ns[] = {1000, 512, 1};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("t1d", (uint64_t)c);
    double scale = round_dt(F32, rng_uniform(&r, -2, 2));
    Call k;
    call_init(&k, "t1d.tl", "t1d");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    fill_uniform(X, &r, -1, 1);
    call_arg(&k, "scale=%.9g", scale);
    for (int i = 0; i < N; i++) Y->ref[i] = X->v[i] * scale + 1.0;
    char l[64];
    label(l, sizeof l, "N=%d", N);
    CHECK(T, call_check(&k, "tensor_1d", l));
    call_free(&k);
  }
}

static void t_t3d(Tally *T) {
  static const int BSN[][3] = {{3, 13, 70}, {2, 16, 64}, {1, 1, 1}};
  for (int c = 0; c < 3; c++) {
    int B = BSN[c][0], S = BSN[c][1], N = BSN[c][2];
    Rng r = rng_seed("t3d", (uint64_t)c);
    Call k;
    call_init(&k, "t3d.tl", "t3d");
    Ten *X = call_in(&k, "X", F32, 3, SHAPE(B, S, N));
    Ten *Y = call_out(&k, "Y", F32, 3, SHAPE(B, S, N));
    fill_uniform(X, &r, -2, 2);
    for (long long i = 0; i < X->n; i++) Y->ref[i] = X->v[i] * X->v[i] - (double)(i / ((long long)S * N));
    char l[64];
    label(l, sizeof l, "B=%d S=%d N=%d (3-D grid)", B, S, N);
    CHECK(T, call_check(&k, "tensor_3d", l));
    call_free(&k);
  }
}

static void t_t4d(Tally *T) {
  static const int BHS[][3] = {{2, 3, 37}, {1, 2, 32}, {2, 1, 5}};
  for (int c = 0; c < 3; c++) {
    int B = BHS[c][0], H = BHS[c][1], S = BHS[c][2];
    Rng r = rng_seed("t4d", (uint64_t)c);
    double scale = round_dt(F32, rng_uniform(&r, -2, 2));
    Call k;
    call_init(&k, "t4d.tl", "t4d");
    Ten *X = call_in(&k, "X", F32, 4, SHAPE(B, H, S, 48));
    Ten *Y = call_out(&k, "Y", F32, 4, SHAPE(B, H, S, 48));
    Ten *Z = call_out(&k, "Z", F32, 3, SHAPE(B, H, 48));
    fill_uniform(X, &r, -1, 1);
    call_arg(&k, "scale=%.9g", scale);
    for (int b = 0; b < B; b++)
      for (int h = 0; h < H; h++) {
        long long base = ((long long)b * H + h) * S * 48;
        for (int s = 0; s < S; s++)
          for (int d = 0; d < 48; d++) Y->ref[base + s * 48 + d] = X->v[base + s * 48 + d] * scale + (h * 10 + b);
        for (int d = 0; d < 48; d++)
          Z->ref[((long long)b * H + h) * 48 + d] = X->v[base + d] + X->v[base + (long long)(S - 1) * 48 + d];
      }
    char l[64];
    label(l, sizeof l, "B=%d H=%d S=%d", B, H, S);
    CHECK(T, call_check(&k, "tensor_4d", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ @assume */

static Call assume_call(int M, int K, Rng *r) {
  Call k;
  call_init(&k, "assume.tl", "assumed");
  Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, K));
  Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
  fill_uniform(X, r, -1, 1);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < 64; j++) {
      double s = 0;
      for (int kk = j; kk < K; kk += 64) s += A2(X, i, kk);
      R2(O, i, j) = s;
    }
  return k;
}

static void t_assume(Tally *T) {
  static const int MK[][2] = {{37, 192}, {8, 64}};
  for (int c = 0; c < 2; c++) {
    Rng r = rng_seed("assume", (uint64_t)c);
    Call k = assume_call(MK[c][0], MK[c][1], &r);
    char l[64];
    label(l, sizeof l, "M=%d K=%d (holds)", MK[c][0], MK[c][1]);
    CHECK(T, call_check(&k, "assume", l));
    call_free(&k);
  }
  Rng r = rng_seed("assume", 9);
  Call k = assume_call(5, 200, &r);
  CHECK(T, call_expect_fail(&k, "assume", "M=5 K=200 (K % 64 != 0)", "@assume"));
  call_free(&k);
}

/* assume_loop_start: range(a, S, 64) over X[i :+ 64] with @assume(S % 64 == 0) and a
 * start a multiple of 64 by its form (b * 64, k0 / 64 * 64): unchecked, each block's
 * column sums from its start to S. One block (64), a start rounded down past the
 * block's own (S = 640: block 9's k0 = 367, from 320), and S = 100 refused. */
static Call assume_loop_start_call(int S, Rng *r) {
  Call k;
  call_init(&k, "assume_loop_start.tl", "suffix");
  Ten *X = call_in(&k, "X", F32, 1, SHAPE(S));
  Ten *O = call_out(&k, "O", F32, 1, SHAPE(S));
  Ten *P = call_out(&k, "P", F32, 1, SHAPE(S));
  fill_uniform(X, r, -1, 1);
  for (int b = 0; b < S / 64; b++)
    for (int j = 0; j < 64; j++) {
      double o = 0, p = 0;
      /* past S (only at S = 100, which the @assume refuses) an element reads 0 */
      for (int i = b * 64; i < S; i += 64) o += i + j < S ? X->v[i + j] : 0;
      for (int i = (b * 40 + 7) / 64 * 64; i < S; i += 64) p += i + j < S ? X->v[i + j] : 0;
      O->ref[b * 64 + j] = o, P->ref[b * 64 + j] = p;
    }
  return k;
}

static void t_assume_loop_start(Tally *T) {
  static const int Ss[] = {64, 640, 1024};
  for (int c = 0; c < 3; c++) {
    Rng r = rng_seed("assume_loop_start", (uint64_t)c);
    Call k = assume_loop_start_call(Ss[c], &r);
    char l[64];
    label(l, sizeof l, "S=%d", Ss[c]);
    CHECK(T, call_check(&k, "assume_loop_start", l));
    call_free(&k);
  }
  Rng r = rng_seed("assume_loop_start", 9);
  Call k = assume_loop_start_call(100, &r);
  CHECK(T, call_expect_fail(&k, "assume_loop_start", "S=100 (S % 64 != 0)", "@assume"));
  call_free(&k);
}

/* ------------------------------------------------------------ partial writes, registers, regions */

static void t_partial(Tally *T) {
  static const int Ms[] = {37, 16, 5};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("partial", (uint64_t)c);
    Call k;
    call_init(&k, "partial.tl", "halves");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 32));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 32));
    Ten *D = call_out(&k, "D", F32, 2, SHAPE(M, 8));
    fill_uniform(X, &r, -1, 1);
    int blocks = (int)cdivll(M, 16);
    for (int b = 0; b < blocks; b++) {
      double t[16][32], d[16][8];
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 32; j++) {
          int row = b * 16 + i, src = j < 16 ? j + 16 : j - 16;
          t[i][j] = row < M ? A2(X, row, src) : 0;
        }
      for (int i = 0; i < 8; i++)
        for (int j = 0; j < 32; j++) t[i][j] = t[i + 8][j] * 2.0 + t[i][j];
      memset(d, 0, sizeof d);
      for (int i = 0; i < 8; i++) {
        d[i][i] = t[i][2 * i] + 1.0;
        d[i + 8][7 - i] = t[i + 8][31 - i];
      }
      for (int i = 0; i < 16; i++) {
        int row = b * 16 + i;
        if (row >= M) continue;
        for (int j = 0; j < 32; j++) R2(Y, row, j) = t[i][j];
        for (int j = 0; j < 8; j++) R2(D, row, j) = d[i][j] + t[i][4 + j];
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "partial_tile_writes", l));
    call_free(&k);
  }
}

/* halo_*: tiles put together from tensor slices by window writes, each window write
 * reading the tensor at its own elements of the tile (lower.c window_load), then read
 * at shifts through the tile's copy. halo_conv: a depthwise causal conv1d with SiLU in
 * f16, its windows keeping the runs of 8 whole (L % 8 == 0: the fast body; L odd: the
 * general one), D and L ragged; halo_odd: windows that cut runs (one element a read),
 * two of them padded slices (-1 past X's edges, 0 past them in the unpadded one);
 * halo_rank1: a backward difference over a rank-1 tile; halo_home: a tile too large for
 * registers, written in its shared copy; halo_written: slices of the tensor the kernel
 * writes, read through copies, stored in place. */
static double halo_x(const Ten *X, int b, int d, int l, int D, int L) {
  return l >= 0 && l < L ? X->v[((long long)b * D + d) * L + l] : 0;
}

static void t_halo(Tally *T) {
  static const int BDL[][3] = {{2, 20, 300}, {1, 16, 256}, {2, 33, 129}, {1, 3, 5}};
  for (int c = 0; c < 4; c++) {
    int B = BDL[c][0], D = BDL[c][1], L = BDL[c][2];
    Rng r = rng_seed("halo_conv", (uint64_t)c);
    Call k;
    call_init(&k, "halo_conv.tl", "halo_conv");
    Ten *X = call_in(&k, "X", F16, 3, SHAPE(B, D, L));
    Ten *W = call_in(&k, "W", F16, 2, SHAPE(D, 4));
    Ten *Bi = call_in(&k, "Bias", F16, 1, SHAPE(D));
    Ten *Y = call_out(&k, "Y", F16, 3, SHAPE(B, D, L));
    fill_uniform(X, &r, -2, 2);
    fill_uniform(W, &r, -1, 1);
    fill_uniform(Bi, &r, -0.2, 0.2);
    for (int b = 0; b < B; b++)
      for (int d = 0; d < D; d++)
        for (int l = 0; l < L; l++) {
          double a = Bi->v[d];
          for (int j = 0; j < 4; j++) a += A2(W, d, j) * halo_x(X, b, d, l - 3 + j, D, L);
          Y->ref[((long long)b * D + d) * L + l] = a * sigmoid(a);
        }
    char l[64];
    label(l, sizeof l, "conv B=%d D=%d L=%d", B, D, L);
    CHECK(T, call_check(&k, "halo", l));
    call_free(&k);
  }
  static const int MN[][2] = {{20, 70}, {8, 64}, {3, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("halo_odd", (uint64_t)c);
    Call k;
    call_init(&k, "halo_odd.tl", "halo_odd");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        int n0 = j / 32 * 32;
        double t[40];
        for (int q = 0; q < 40; q++) { /* tile column q: X's column n0 + q - 3 */
          int col = n0 + q - 3;
          bool in = col >= 0 && col < N;
          t[q] = in ? A2(X, i, col) : q < 3 || q >= 35 ? -1.0 : 0.0;
        }
        int jj = j - n0;
        R2(Y, i, j) = t[jj] + 2.0 * t[jj + 3] + t[jj + 8];
      }
    char l[64];
    label(l, sizeof l, "odd M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "halo", l));
    call_free(&k);
  }
  static const int Ns[] = {300, 256, 7};
  for (int c = 0; c < 3; c++) {
    int N = Ns[c];
    Rng r = rng_seed("halo_rank1", (uint64_t)c);
    Call k;
    call_init(&k, "halo_rank1.tl", "halo_rank1");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    fill_uniform(X, &r, -1, 1);
    for (int n = 0; n < N; n++) Y->ref[n] = X->v[n] - (n ? X->v[n - 1] : 0);
    char l[64];
    label(l, sizeof l, "rank1 N=%d", N);
    CHECK(T, call_check(&k, "halo", l));
    call_free(&k);
  }
  static const int HMN[][2] = {{70, 1000}, {32, 512}, {5, 7}};
  for (int c = 0; c < 3; c++) {
    int M = HMN[c][0], N = HMN[c][1];
    Rng r = rng_seed("halo_home", (uint64_t)c);
    Call k;
    call_init(&k, "halo_home.tl", "halo_home");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double a = j - 4 >= 0 ? A2(X, i, j - 4) : 0, b = j + 4 < N ? A2(X, i, j + 4) : 0;
        R2(Y, i, j) = a + b - 2.0 * A2(X, i, j);
      }
    char l[64];
    label(l, sizeof l, "home M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "halo", l));
    call_free(&k);
  }
  static const int Ws[] = {100, 72, 50};
  for (int c = 0; c < 3; c++) {
    int N = Ws[c];
    Rng r = rng_seed("halo_written", (uint64_t)c);
    Call k;
    call_init(&k, "halo_written.tl", "halo_written");
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
    Y->init = calloc((size_t)N, sizeof(double));
    for (int n = 0; n < N; n++) Y->init[n] = round_dt(F32, rng_uniform(&r, -1, 1));
    for (int n = 0; n < N; n++) Y->ref[n] = n < 64 ? 2.0 * (n + 1 < N ? Y->init[n + 1] : 0) : Y->init[n];
    char l[64];
    label(l, sizeof l, "written N=%d", N);
    CHECK(T, call_check(&k, "halo", l));
    call_free(&k);
  }
}

/* row_shift: row-shifted windows of a tile var read from its copy a run at a time
 * (layout.c copy_vectors): a stencil's vertical taps in f32 and f16 (its rows past M
 * read 0, the last block ragged), and Jacobi sweeps down the rows in a loop that
 * writes a window of the tile (its copy and the sweep's copy made each iteration). */
static void t_row_shift(Tally *T) {
  static const int Ms[] = {64, 37, 5};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("row_shift", (uint64_t)c);
    char l[64];
    for (int h = 0; h < 2; h++) { /* rowshift (f32, 64 columns), rowshift_h (f16, 32) */
      int N = h ? 32 : 64;
      Call k;
      call_init(&k, "row_shift.tl", h ? "rowshift_h" : "rowshift");
      Ten *X = call_in(&k, "X", h ? F16 : F32, 2, SHAPE(M, N));
      Ten *Y = call_out(&k, "Y", h ? F16 : F32, 2, SHAPE(M, N));
      fill_uniform(X, &r, -1, 1);
      for (int b = 0; b < (int)cdivll(M, 30); b++)
        for (int i = 0; i < 30 && b * 30 + i < M; i++)
          for (int j = 0; j < N; j++) {
            double t[3];
            for (int d = 0; d < 3; d++) {
              int row = b * 30 + i + d;
              t[d] = row < M ? (h ? A2(X, row, j) : 2.0 * A2(X, row, j)) : 0;
            }
            R2(Y, b * 30 + i, j) = h ? round_dt(F32, t[0] * t[2]) + t[1] : t[0] + t[2] - t[1];
          }
      label(l, sizeof l, "%s M=%d", h ? "f16" : "f32", M);
      CHECK(T, call_check(&k, "row_shift", l));
      call_free(&k);
    }
    int iters = c + 2;
    Call k;
    call_init(&k, "row_shift.tl", "jacobi_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
    call_arg(&k, "iters=%d", iters);
    fill_uniform(X, &r, -1, 1);
    for (int b = 0; b < (int)cdivll(M, 32); b++) {
      double t[32][64], n[30][64];
      for (int i = 0; i < 32; i++)
        for (int j = 0; j < 64; j++) t[i][j] = b * 32 + i < M ? A2(X, b * 32 + i, j) : 0;
      for (int it = 0; it < iters; it++) {
        for (int i = 0; i < 30; i++)
          for (int j = 0; j < 64; j++) n[i][j] = t[i][j] + t[i + 2][j];
        for (int i = 0; i < 30; i++)
          for (int j = 0; j < 64; j++) t[i + 1][j] = 0.5 * n[i][j];
      }
      for (int i = 0; i < 32 && b * 32 + i < M; i++)
        for (int j = 0; j < 64; j++) R2(Y, b * 32 + i, j) = t[i][j];
    }
    label(l, sizeof l, "jacobi M=%d iters=%d", M, iters);
    CHECK(T, call_check(&k, "row_shift", l));
    call_free(&k);
  }
}

/* two_dot: two dots into one accumulator in a k-loop, each operand computed in the
 * loop, the first dot moved past the second's copies (one barrier an iteration): ragged
 * M and K (A's columns and B's past K2 read 0). */
static void t_two_dot(Tally *T) {
  static const int Ms[] = {64, 37, 130}, Ks[] = {64, 50, 17};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], K = Ks[c], K2 = (K + 1) / 2;
    Rng r = rng_seed("two_dot", (uint64_t)c);
    Call k;
    call_init(&k, "two_dot.tl", "two_dot");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K)), *B = call_in(&k, "B", F16, 2, SHAPE(64, K2));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, 64));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 64; j++) {
        double s = 0;
        for (int k0 = 0; k0 < K; k0 += 32)
          for (int q = 0; q < 16; q++) {
            int bc = k0 / 2 + q;
            double b = bc < K2 ? A2(B, j, bc) : 0;
            double lo = round_dt(F16, 2.0 * b), hi = round_dt(F16, round_dt(F16, 3.0 * b) - 1.0);
            if (k0 + q < K) s += A2(A, i, k0 + q) * lo;
            if (k0 + 16 + q < K) s += A2(A, i, k0 + 16 + q) * hi;
          }
        R2(C, i, j) = s;
      }
    char l[64];
    label(l, sizeof l, "M=%d K=%d", M, K);
    CHECK(T, call_check(&k, "two_dot", l));
    call_free(&k);
  }
}

/* window_reduction: reductions written into one row or column of a tile, read
 * where the writing threads hold them (and through a copy where they do not) */
static void t_window_reduction(Tally *T) {
  static const int Ms[] = {37, 16, 5};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c], M2 = 2 * M;
    Rng r = rng_seed("window_reduction", (uint64_t)c);
    Call k;
    call_init(&k, "window_reduction.tl", "win_red");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64)), *H = call_in(&k, "H", F16, 2, SHAPE(M, 64));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(M2, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(H, &r, -1, 1);
    fill_uniform(W, &r, -1, 1);
    for (int b = 0; b < (int)cdivll(M, 16); b++) {
      double x[16][64], h[16][64], w[32][64], yc[16][64], yh[16][64];
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 64; j++) {
          int row = b * 16 + i;
          x[i][j] = row < M ? A2(X, row, j) : 0;
          h[i][j] = row < M ? A2(H, row, j) : 0;
          yc[i][j] = yh[i][j] = 0;
        }
      for (int i = 0; i < 32; i++)
        for (int j = 0; j < 64; j++) w[i][j] = b * 32 + i < M2 ? A2(W, b * 32 + i, j) : 0;
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 64; j++) {
          double s = 0;
          for (int q = 0; q < 16; q++) s += x[q][j] * (i + 1);
          yc[i][j] = s;
        }
      for (int i = 0; i < 16; i++) {
        double s = 1.0;
        for (int j = 0; j < 64; j++) s += x[i][j];
        yc[i][5] = s;
      }
      for (int j = 0; j < 64; j++) {
        double mh = -INFINITY, mw = -INFINITY, s = 0;
        for (int q = 0; q < 16; q++) mh = dmax(mh, h[q][j]);
        for (int q = 0; q < 32; q++) mw = dmax(mw, w[q][j]);
        for (int q = 0; q < 16 && j < 32; q++) s += x[q][j];
        yh[3][j] = mh;
        yc[2][j] = mw;
        if (j < 32) yc[7][32 + j] = s;
      }
      for (int i = 0; i < 16 && b * 16 + i < M; i++)
        for (int j = 0; j < 64; j++) R2(Y, b * 16 + i, j) = yc[i][j] + yh[i][j];
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "window_reduction", l));
    call_free(&k);
  }
}

/* window_rmw: windows of a tile updated from themselves, read in registers
 * (tests/gpu/window_rmw.tl); a window read inside a reduction and one of
 * other rows go through the copy. Ragged M: the last block's rows past M are 0. */
static void t_window_rmw(Tally *T) {
  static const int Ms[] = {37, 16, 5};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("window_rmw", (uint64_t)c);
    Call k;
    call_init(&k, "window_rmw.tl", "win_rmw");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64)), *H = call_in(&k, "H", F16, 2, SHAPE(M, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64)), *Z = call_out(&k, "Z", F16, 2, SHAPE(M, 64));
    fill_uniform(X, &r, -1, 1);
    fill_uniform(H, &r, -1, 1);
    for (int b = 0; b < (int)cdivll(M, 16); b++) {
      double x[16][64], h[16][64], yc[16][64];
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 64; j++) {
          int row = b * 16 + i;
          x[i][j] = yc[i][j] = row < M ? A2(X, row, j) : 0;
          h[i][j] = row < M ? A2(H, row, j) : 0;
        }
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 64; j++) {
          double s = 0;
          for (int q = 0; q < 16; q++) s += x[q][j] * (i + 1);
          yc[i][j] = s + yc[i][j] * 0.5;
        }
      for (int j = 0; j < 4; j++)
        for (int i = 0; i < 16; i++) {
          double m = -INFINITY;
          for (int q = 0; q < 64; q++) m = dmax(m, x[i][q]);
          yc[i][3 * j] = m - fabs(yc[i][3 * j]) * 0.25;
        }
      double m5 = -INFINITY;
      for (int q = 0; q < 64; q++) m5 = dmax(m5, yc[5][q]);
      for (int q = 0; q < 64; q++) yc[5][q] -= m5;
      for (int i = 0; i < 8; i++)
        for (int j = 0; j < 64; j++) yc[i][j] += yc[i + 8][j];
      for (int j = 0; j < 64; j++) {
        double s = 0;
        for (int q = 0; q < 16; q++) s += x[q][j];
        h[2][j] += s;
      }
      for (int i = 0; i < 16 && b * 16 + i < M; i++)
        for (int j = 0; j < 64; j++) R2(Y, b * 16 + i, j) = yc[i][j], R2(Z, b * 16 + i, j) = h[i][j];
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "window_rmw", l));
    call_free(&k);
  }
}

/* window_same_coords: windows of tiles written from the same window of another tile
 * in their layout, read in registers (tests/gpu/window_same_coords.tl); one at other
 * coordinates and one of a tile in another layout go through copies. Ragged N and M:
 * the elements and rows past them read 0. */
static void t_window_same_coords(Tally *T) {
  static const int C[][2] = {{600, 45}, {256, 16}, {37, 7}};
  for (int k = 0; k < 3; k++) {
    int N = C[k][0], M = C[k][1];
    Rng r = rng_seed("window_same_coords", (uint64_t)k);
    Call c;
    call_init(&c, "window_same_coords.tl", "win_same");
    Ten *F = call_in(&c, "F", F32, 1, SHAPE(N)), *H = call_in(&c, "H", F16, 1, SHAPE(N));
    Ten *A = call_in(&c, "A", F32, 2, SHAPE(M, 64)), *Cm = call_in(&c, "C", F32, 2, SHAPE(M, 64));
    Ten *U = call_out(&c, "U", F32, 1, SHAPE(N)), *V = call_out(&c, "V", F32, 1, SHAPE(N));
    Ten *B = call_out(&c, "B", F32, 2, SHAPE(M, 64));
    fill_uniform(F, &r, -1, 1);
    fill_uniform(H, &r, -1, 1);
    fill_uniform(A, &r, -1, 1);
    fill_uniform(Cm, &r, -1, 1);
    for (int b = 0; b < (int)cdivll(N, 256); b++) {
      double f[256], u[256], v[256], h[256];
      int n0 = b * 256;
      for (int e = 0; e < 256; e++) {
        f[e] = n0 + e < N ? F->v[n0 + e] : 0;
        h[e] = n0 + e < N ? H->v[n0 + e] : 0;
        u[e] = 0;
        v[e] = 1;
      }
      for (int e = 1; e < 255; e++) u[e] = f[e];
      for (int e = 0; e < 256; e++) f[e] *= 2;
      for (int e = 0; e < 128; e++) u[e] += f[e];
      for (int e = 1; e < 256; e++) v[e] = f[e - 1];
      for (int e = 0; e < 64; e++) v[e] = v[e] + h[e] - f[e];
      for (int e = 0; e < 256 && n0 + e < N; e++) U->ref[n0 + e] = u[e], V->ref[n0 + e] = v[e];
      double a[16][64], cc[16][64], w[16][64];
      int m0 = b * 16;
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 64; j++) {
          a[i][j] = m0 + i < M ? A2(A, m0 + i, j) : 0;
          cc[i][j] = m0 + i < M ? A2(Cm, m0 + i, j) : 0;
          w[i][j] = a[i][j] * 0.5;
        }
      for (int i = 0; i < 16; i += 4)
        for (int q = i; q < i + 4; q++)
          for (int j = 8; j < 40; j++) w[q][j] = a[q][j] * (i + 1) + w[q][j];
      for (int i = 0; i < 16; i++) w[i][63] = a[i][63];
      for (int i = 3; i < 5; i++)
        for (int j = 0; j < 64; j++) w[i][j] -= cc[i][j];
      for (int i = 0; i < 16 && m0 + i < M; i++)
        for (int j = 0; j < 64; j++) R2(B, m0 + i, j) = w[i][j];
    }
    char l[64];
    label(l, sizeof l, "N=%d M=%d", N, M);
    CHECK(T, call_check(&c, "window_same_coords", l));
    call_free(&c);
  }
}

/* copy_before_loop: a shared copy made before a loop, read transposed (by
 * other threads) in each iteration; the loop may run no iteration */
static void t_copy_before_loop(Tally *T) {
  static const int Ns[] = {32, 37, 70, 5}, ns[] = {3, 4, 2, 0};
  for (int c = 0; c < 4; c++) {
    int N = Ns[c], n = ns[c];
    Rng r = rng_seed("copy_before_loop", (uint64_t)c);
    Call k;
    call_init(&k, "copy_before_loop.tl", "copy_before_loop");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(N, 32));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(N, 32));
    call_arg(&k, "n=%d", n);
    fill_uniform(X, &r, -1, 1);
    for (int b = 0; b < (int)cdivll(N, 32); b++) {
      double t[32][32], acc[32][32];
      for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++) t[i][j] = acc[i][j] = (b * 32 + i < N ? A2(X, b * 32 + i, j) : 0) + 1.0;
      for (int it = 0; it < n; it++)
        for (int i = 0; i < 32; i++)
          for (int j = 0; j < 32; j++) acc[i][j] = acc[i][j] * 0.5 + t[j][i] * (it + 1);
      for (int i = 0; i < 32 && b * 32 + i < N; i++)
        for (int j = 0; j < 32; j++) R2(Y, b * 32 + i, j) = acc[i][j];
    }
    char l[64];
    label(l, sizeof l, "N=%d n=%d", N, n);
    CHECK(T, call_check(&k, "copy_before_loop", l));
    call_free(&k);
  }
}

/* carry_sum: a row sum and a row max accumulated across a loop from k0
 * (carry.c), rows across two warps; k0 >= N runs no iteration, and S and MX keep
 * S0, whose row 1 is NaN: the sum stays NaN, the max is the row's (fmax). */
static void t_carry_sum(Tally *T) {
  static const int C[][3] = {{37, 700, 0}, {8, 256, 0}, {5, 3, 0}, {13, 1000, 300}, {9, 200, 256}};
  for (int c = 0; c < 5; c++) {
    int M = C[c][0], N = C[c][1], k0 = C[c][2];
    Rng r = rng_seed("carry_sum", (uint64_t)c);
    Call k;
    call_init(&k, "carry_sum.tl", "carry_sum");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *S0 = call_in(&k, "S0", F32, 2, SHAPE(M, 1));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    Ten *MX = call_out(&k, "MX", F32, 2, SHAPE(M, 1));
    call_arg(&k, "k0=%d", k0);
    fill_uniform(X, &r, -2, 2);
    fill_uniform(S0, &r, -1, 1);
    A2(S0, 1, 0) = NAN;
    for (int i = 0; i < M; i++) {
      double s = A2(S0, i, 0), mx = A2(S0, i, 0);
      for (int j = k0; j < N; j++) s += A2(X, i, j), mx = isnan(mx) ? A2(X, i, j) : dmax(mx, A2(X, i, j));
      S->ref[i] = s, MX->ref[i] = mx;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d k0=%d", M, N, k0);
    CHECK(T, call_check(&k, "carry_sum", l));
    call_free(&k);
  }
}

/* arg_value (tests/gpu/arg_value.tl): rowmin (colmax) taken from rowargmin's
 * (colargmax's) values; ragged M and N, NaN rows (all NaN, NaN among numbers), ties. */
static void t_arg_value(Tally *T) {
  static const int MN[][2] = {{37, 200}, {8, 256}, {1, 1}, {13, 77}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("arg_value_rows", (uint64_t)c);
    Call k;
    call_init(&k, "arg_value.tl", "rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *D = call_out(&k, "D", F32, 1, SHAPE(M));
    Ten *I = call_out(&k, "I", I32, 1, SHAPE(M));
    fill_uniform(X, &r, -4, 4);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        if (i % 5 == 1) A2(X, i, j) = NAN;                       /* NaNs alone (then the pad's inf) */
        else if (i % 5 == 2 && j % 3 == 0) A2(X, i, j) = NAN;    /* NaN among numbers */
        else if (i % 5 == 3) A2(X, i, j) = (double)(j % 7 == 2); /* ties: the first 0 */
      }
    for (int i = 0; i < M; i++) {
      double mn = INFINITY;
      int at = -1;
      for (int j = 0; j < 256; j++) {
        double x = j < N ? A2(X, i, j) : INFINITY;
        if (isnan(x)) continue;
        if (at < 0 || x < mn) mn = x, at = j;
      }
      D->ref[i] = mn;
      I->ref[i] = at < 0 ? 0 : at;
    }
    D->tol = 0;
    I->tol = 0;
    char l[64];
    label(l, sizeof l, "rows M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "arg_value", l));
    call_free(&k);
  }
  static const int CN[][2] = {{64, 32}, {50, 70}, {1, 5}, {33, 33}};
  for (int c = 0; c < 4; c++) {
    int M = CN[c][0], N = CN[c][1];
    Rng r = rng_seed("arg_value_cols", (uint64_t)c);
    Call k;
    call_init(&k, "arg_value.tl", "cols");
    Ten *X = call_in(&k, "X", I32, 2, SHAPE(M, N));
    Ten *D = call_out(&k, "D", I32, 1, SHAPE(N));
    Ten *I = call_out(&k, "I", I32, 1, SHAPE(N));
    fill_int(X, &r, -1000, 1000);
    for (int j = 0; j < N; j++) {
      double mx = 0;
      int at = -1;
      for (int i = 0; i < 64; i++) {
        double x = i < M ? A2(X, i, j) : -2147483648.0;
        if (at < 0 || x > mx) mx = x, at = i;
      }
      D->ref[j] = mx;
      I->ref[j] = at;
    }
    D->tol = 0;
    I->tol = 0;
    char l[64];
    label(l, sizeof l, "cols M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "arg_value", l));
    call_free(&k);
  }
}

/* carry_per_column (tests/gpu/carry_per_column.tl): folds carried across a loop as
 * one partial per column (row) a thread holds, not one per element; ragged sizes,
 * one row (column) of a chunk only, more than one chunk. */
static void t_carry_per_column(Tally *T) {
  static const int MN[][2] = {{1000, 128}, {37, 128}, {1, 128}, {96, 128}, /* cols: M */
                              {9, 700}, {4, 256}, {6, 300}, {13, 1}};    /* rows: M, N */
  for (int c = 0; c < 8; c++) {
    bool cols = c < 4;
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("carry_per_column", (uint64_t)c);
    Call k;
    call_init(&k, "carry_per_column.tl", cols ? "cols" : "rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *I = cols ? NULL : call_in(&k, "I", I32, 2, SHAPE(M, N));
    int n = cols ? N : M; /* one result per column (row) */
    Ten *S = call_out(&k, "S", F32, 1, SHAPE(n));
    Ten *MX = call_out(&k, "MX", F32, 1, SHAPE(n));
    Ten *MN_ = cols ? NULL : call_out(&k, "MN", I32, 1, SHAPE(n));
    fill_uniform(X, &r, -2, 2);
    if (I) fill_int(I, &r, -1000000, 1000000);
    for (int i = 0; i < n; i++) {
      double s = 0, mx = -INFINITY, mn = 2147483647.0;
      for (int j = 0; j < (cols ? M : N); j++) {
        double x = cols ? A2(X, j, i) : A2(X, i, j);
        s += x, mx = dmax(mx, x);
        if (I) mn = dmin(mn, A2(I, i, j));
      }
      S->ref[i] = s, MX->ref[i] = mx;
      if (MN_) MN_->ref[i] = mn;
    }
    S->etol = 1e-4; /* f32 sums of up to 1000 elements of [-2, 2], in another order */
    MX->tol = 0;
    if (MN_) MN_->tol = 0;
    char l[64];
    label(l, sizeof l, "%s M=%d N=%d", cols ? "cols" : "rows", M, N);
    CHECK(T, call_check(&k, "carry_per_column", l));
    call_free(&k);
  }
  /* carried_argcol: N times the sum of the [4, 32] corner's column argmins (rows past M
   * read 0, as do columns past N; ties take the first) */
  static const int AN[][2] = {{14, 91}, {3, 20}, {4, 32}};
  for (int c = 0; c < 3; c++) {
    int M = AN[c][0], N = AN[c][1];
    Rng r = rng_seed("carry_argcol", (uint64_t)c);
    Call k;
    call_init(&k, "carry_per_column.tl", "carried_argcol");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *O = call_out(&k, "O", I32, 2, SHAPE(1, 1));
    fill_uniform(X, &r, -1, 1);
    long long s = 0;
    for (int j = 0; j < 32; j++) {
      int at = 0;
      double best = 0;
      for (int i = 0; i < 4; i++) {
        double x = i < M && j < N ? A2(X, i, j) : 0.0;
        if (i == 0 || x < best) best = x, at = i;
      }
      s += at;
    }
    O->ref[0] = (double)(s * N);
    O->tol = 0;
    char l[64];
    label(l, sizeof l, "argcol M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "carry_per_column", l));
    call_free(&k);
  }
}

/* red_grouped: three independent row reductions of one statement share one
 * barrier; a rowsum that reads a rowmax's value waits for it */
static void t_red_grouped(Tally *T) {
  static const int Ms[] = {37, 4, 1};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("red_grouped", (uint64_t)c);
    Call k;
    call_init(&k, "red_grouped.tl", "red_grouped");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 256));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 256));
    Ten *Z = call_out(&k, "Z", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, 0.5, 2); /* positive rows: no sum near 0 */
    for (int i = 0; i < M; i++) {
      double s = 0, mx = -INFINITY, mn = INFINITY, z = 0;
      for (int j = 0; j < 256; j++) s += A2(X, i, j), mx = dmax(mx, A2(X, i, j)), mn = dmin(mn, A2(X, i, j));
      for (int j = 0; j < 256; j++) R2(Y, i, j) = A2(X, i, j) / s + mx - mn, z += A2(X, i, j) - mx;
      Z->ref[i] = z;
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "red_grouped", l));
    call_free(&k);
  }
}

/* carry_scalar: sum() accumulated into scalars across a loop from k0 (t: i32,
 * t = t - sum; u: f32, u += sum), and one read in the loop (w, whose test leaves
 * the loop once it passes 3000000) */
static void t_carry_scalar(Tally *T) {
  static const int C[][3] = {{37, 300, 0}, {8, 64, 0}, {5, 3, 0}, {20, 200, 100}, {9, 70, 64}, {6, 50, 64}};
  for (int c = 0; c < 6; c++) {
    int M = C[c][0], N = C[c][1], k0 = C[c][2], G = (M + 7) / 8;
    Rng r = rng_seed("carry_scalar", (uint64_t)c);
    Call k;
    call_init(&k, "carry_scalar.tl", "carry_scalar");
    Ten *X = call_in(&k, "X", I32, 2, SHAPE(M, N));
    Ten *Tt = call_out(&k, "T", I32, 1, SHAPE(G));
    Ten *U = call_out(&k, "U", F32, 1, SHAPE(G));
    Ten *V = call_out(&k, "V", I32, 1, SHAPE(G));
    call_arg(&k, "k0=%d", k0);
    fill_int(X, &r, -100, 100);
    for (int g = 0; g < G; g++) {
      double t = 7, u = 0.5, w = 0;
      for (int n0 = k0; n0 < N && !(w > 3000000); n0 += 64) /* chunk by chunk, up to w's break */
        for (int i = g * 8; i < g * 8 + 8 && i < M; i++)
          for (int j = n0; j < n0 + 64 && j < N; j++) t -= A2(X, i, j), u += A2(X, i, j) * 0.25, w += A2(X, i, j) * A2(X, i, j);
      Tt->ref[g] = t, U->ref[g] = u, V->ref[g] = w;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d k0=%d", M, N, k0);
    CHECK(T, call_check(&k, "carry_scalar", l));
    call_free(&k);
  }
}

/* carry_sum_rows: sum() into scalars across loops with 16 elements a thread: each thread's
 * own fold of its rows carried (2 partials, and 1 of a rank-1 slice). Ragged HW and L, a
 * first loop that starts past HW (no iteration), one exact tile. */
static void t_carry_sum_rows(Tally *T) {
  static const int C[][4] = {{3, 300, 5000, 0}, {2, 256, 4096, 0}, {4, 37, 100, 64}, {1, 700, 1, 512}};
  for (int c = 0; c < 4; c++) {
    int N = C[c][0], HW = C[c][1], L = C[c][2], h0s = C[c][3];
    Rng r = rng_seed("carry_sum_rows", (uint64_t)c);
    Call k;
    call_init(&k, "carry_sum_rows.tl", "carry_sum_rows");
    Ten *X = call_in(&k, "X", F32, 3, SHAPE(N, 16, HW));
    Ten *Y = call_in(&k, "Y", I32, 2, SHAPE(N, L));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(N, 2));
    Ten *P = call_out(&k, "P", I32, 1, SHAPE(N));
    call_arg(&k, "h0s=%d", h0s);
    fill_uniform(X, &r, -1, 1);
    fill_int(Y, &r, -1000, 1000);
    for (int n = 0; n < N; n++) {
      double s = 0, ss = 0.5, t = 3;
      for (int i = 0; i < 16; i++)
        for (int h = h0s; h < HW; h++) {
          double x = X->v[((size_t)n * 16 + i) * HW + h];
          s += x, ss += x * x;
        }
      for (int l = 0; l < L; l++) t -= Y->v[(size_t)n * L + l];
      R2(O, n, 0) = s;
      R2(O, n, 1) = ss;
      P->ref[n] = t;
    }
    char l[64];
    label(l, sizeof l, "N=%d HW=%d L=%d h0s=%d", N, HW, L, h0s);
    CHECK(T, call_check(&k, "carry_sum_rows", l));
    call_free(&k);
  }
}

/* wide_block_reduce: row reductions whose rows span 16 and 32 warps (512 and 1024 threads),
 * the warps' partials folded by lanes and shuffles: a softmax row of up to 8192 a block,
 * rowmax, rowmin and rowsum of two rows of 4096 a block (odd M: the last block's second
 * row outside), sum() of [64, 64] tiles. Ragged N and M, one element, exact tiles. */
static void t_wide_block_reduce(Tally *T) {
  static const int SM[][2] = {{3, 5000}, {2, 8192}, {1, 1}, {4, 100}};
  for (int c = 0; c < 4; c++) {
    int M = SM[c][0], N = SM[c][1];
    Rng r = rng_seed("wide_block_reduce", (uint64_t)c);
    Call k;
    call_init(&k, "wide_block_reduce.tl", "softmax_1024");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -4, 4);
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, l = 0;
      for (int j = 0; j < N; j++) mx = fmax(mx, A2(X, i, j));
      for (int j = 0; j < N; j++) l += exp(A2(X, i, j) - mx);
      for (int j = 0; j < N; j++) R2(Y, i, j) = exp(A2(X, i, j) - mx) / l;
    }
    char l[64];
    label(l, sizeof l, "softmax_1024 M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "softmax_1024", l));
    call_free(&k);
  }
  static const int RM[][2] = {{5, 4096}, {3, 1000}, {1, 1}, {4, 4000}};
  for (int c = 0; c < 4; c++) {
    int M = RM[c][0], N = RM[c][1];
    Rng r = rng_seed("wide_block_reduce_rows", (uint64_t)c);
    Call k;
    call_init(&k, "wide_block_reduce.tl", "rows_1024");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Mx = call_out(&k, "Mx", F32, 2, SHAPE(M, 1));
    Ten *Mn = call_out(&k, "Mn", F32, 2, SHAPE(M, 1));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, mn = INFINITY, s = 0;
      for (int j = 0; j < N; j++) mx = fmax(mx, A2(X, i, j)), mn = fmin(mn, A2(X, i, j)), s += A2(X, i, j);
      R2(Mx, i, 0) = mx, R2(Mn, i, 0) = mn, R2(S, i, 0) = s;
    }
    char l[64];
    label(l, sizeof l, "rows_1024 M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "rows_1024", l));
    call_free(&k);
  }
  static const int SMs[] = {100, 64, 1, 200};
  for (int c = 0; c < 4; c++) {
    int M = SMs[c], G = (M + 63) / 64;
    Rng r = rng_seed("wide_block_reduce_sum", (uint64_t)c);
    Call k;
    call_init(&k, "wide_block_reduce.tl", "sum_512");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *Tt = call_out(&k, "T", F32, 1, SHAPE(G));
    fill_uniform(X, &r, -1, 1);
    for (int g = 0; g < G; g++) {
      double s = 0;
      for (int i = g * 64; i < g * 64 + 64 && i < M; i++)
        for (int j = 0; j < 64; j++) s += A2(X, i, j);
      Tt->ref[g] = s;
    }
    char l[64];
    label(l, sizeof l, "sum_512 M=%d", M);
    CHECK(T, call_check(&k, "sum_512", l));
    call_free(&k);
  }
  static const int AM[][2] = {{9, 4096}, {3, 1000}, {1, 1}, {4, 3001}, {8, 3500}};
  for (int c = 0; c < 5; c++) {
    int M = AM[c][0], N = AM[c][1];
    Rng r = rng_seed("wide_block_reduce_arg", (uint64_t)c);
    Call k;
    call_init(&k, "wide_block_reduce.tl", "arg_1024");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Imax = call_out(&k, "Imax", I32, 2, SHAPE(M, 1));
    Ten *Imin = call_out(&k, "Imin", I32, 2, SHAPE(M, 1));
    if (c % 2) fill_int(X, &r, -20, 20); /* few values: ties across warps */
    else fill_uniform(X, &r, -1, 1);     /* one max and one min a row, in any warp */
    for (int i = 0; i < M; i++) {
      int a = 0, b = 0;
      for (int j = 1; j < N; j++) {
        if (A2(X, i, j) > A2(X, i, a)) a = j;
        if (A2(X, i, j) < A2(X, i, b)) b = j;
      }
      R2(Imax, i, 0) = a, R2(Imin, i, 0) = b;
    }
    char l[64];
    label(l, sizeof l, "arg_1024 M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "arg_1024", l));
    call_free(&k);
  }
}

/* fastdiv_loop: divisions in a grid-stride loop by sizes and assumed-positive scalars
 * (t2c::FastDiv): a per-channel bias over a flattened NCHW tensor, (i / hw) % C, and the
 * row of i's plane, i % (h * w) / w. Ragged T (not a multiple of 1024, one element, past
 * the grid's 8 blocks), odd planes, a plane of one element, a large plane. */
static void t_fastdiv_loop(Tally *T) {
  static const int P[][4] = {{10000, 3, 3, 5}, {20000, 7, 7, 1}, {1, 1, 1, 1}, {70000, 5, 32, 33}, {3001, 2, 1, 1}};
  for (int c = 0; c < 5; c++) {
    int Tn = P[c][0], C = P[c][1], h = P[c][2], w = P[c][3], hw = h * w;
    Rng r = rng_seed("fastdiv_loop", (uint64_t)c);
    Call k;
    call_init(&k, "fastdiv_loop.tl", "fastdiv_loop");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(Tn));
    Ten *B = call_in(&k, "B", F32, 1, SHAPE(C));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(Tn));
    Ten *R = call_out(&k, "R", I32, 1, SHAPE(Tn));
    call_arg(&k, "hw=%d", hw);
    call_arg(&k, "h=%d", h);
    call_arg(&k, "w=%d", w);
    fill_uniform(X, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < Tn; i++) {
      Y->ref[i] = X->v[i] + B->v[(i / hw) % C];
      R->ref[i] = i % hw / w;
    }
    char l[64];
    label(l, sizeof l, "T=%d C=%d h=%d w=%d", Tn, C, h, w);
    CHECK(T, call_check(&k, "fastdiv_loop", l));
    call_free(&k);
  }
  for (int c = 0; c < 3; c++) { /* fastdiv_elems: no loop, 4 elements a thread */
    int Tn = P[c][0], C = P[c][1], hw = P[c][2] * P[c][3];
    Rng r = rng_seed("fastdiv_elems", (uint64_t)c);
    Call k;
    call_init(&k, "fastdiv_loop.tl", "fastdiv_elems");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(Tn));
    Ten *B = call_in(&k, "B", F32, 1, SHAPE(C));
    Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(Tn));
    call_arg(&k, "hw=%d", hw);
    fill_uniform(X, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < Tn; i++) Y->ref[i] = X->v[i] + B->v[(i / hw) % C];
    char l[64];
    label(l, sizeof l, "elems T=%d C=%d hw=%d", Tn, C, hw);
    CHECK(T, call_check(&k, "fastdiv_elems", l));
    call_free(&k);
  }
}

/* block_quotient: n = ctx.block.z / H, h = ctx.block.z % H under @grid(.., N * H), their
 * checks dropped (facts.c); ragged W, one plane, one column. */
static void t_block_quotient(Tally *T) {
  static const int S[][3] = {{3, 5, 100}, {1, 1, 64}, {2, 7, 1}, {4, 3, 130}};
  for (int c = 0; c < 4; c++) {
    int N = S[c][0], H = S[c][1], W = S[c][2];
    Rng r = rng_seed("block_quotient", (uint64_t)c);
    Call k;
    call_init(&k, "block_quotient.tl", "block_quotient");
    Ten *X = call_in(&k, "X", F32, 3, SHAPE(N, H, W));
    Ten *Y = call_out(&k, "Y", F32, 3, SHAPE(N, H, W));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < N * H * W; i++) Y->ref[i] = X->v[i] * 2.0 + i / (H * W);
    char l[64];
    label(l, sizeof l, "N=%d H=%d W=%d", N, H, W);
    CHECK(T, call_check(&k, "block_quotient", l));
    call_free(&k);
  }
}

/* halo_pipeline: a 3x3 box filter over NHWC f16 (64 channels), the halo tile of each of the
 * 3 rows copied by a cp.async stage ring one row ahead; ragged H and W (edges read 0). */
static void t_halo_pipeline(Tally *T) {
  static const int S[][2] = {{5, 70}, {1, 32}, {3, 1}, {8, 100}};
  for (int c = 0; c < 4; c++) {
    int H = S[c][0], W = S[c][1];
    Rng r = rng_seed("halo_pipeline", (uint64_t)c);
    Call k;
    call_init(&k, "halo_pipeline.tl", "halo_pipeline");
    Ten *X = call_in(&k, "X", F16, 3, SHAPE(H, W, 64));
    Ten *Y = call_out(&k, "Y", F16, 3, SHAPE(H, W, 64));
    fill_uniform(X, &r, -1, 1);
    for (int h = 0; h < H; h++)
      for (int w = 0; w < W; w++)
        for (int ch = 0; ch < 64; ch++) {
          double s = 0;
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
              if (h + dy >= 0 && h + dy < H && w + dx >= 0 && w + dx < W) s += X->v[((size_t)(h + dy) * W + (w + dx)) * 64 + ch];
          Y->ref[((size_t)h * W + w) * 64 + ch] = s;
        }
    char l[64];
    label(l, sizeof l, "H=%d W=%d", H, W);
    CHECK(T, call_check(&k, "halo_pipeline", l));
    call_free(&k);
  }
}

/* carry_gather: a running row sum read by a gather's index in the loop */
static void t_carry_gather(Tally *T) {
  static const int Ms[] = {4, 13, 30, 1};
  for (int c = 0; c < 4; c++) {
    int M = Ms[c];
    Rng r = rng_seed("carry_gather", (uint64_t)c);
    Call k;
    call_init(&k, "carry_gather.tl", "carry_gather");
    Ten *X = call_in(&k, "X", I32, 2, SHAPE(M, 64));
    Ten *Tt = call_in(&k, "T", I32, 1, SHAPE(64));
    Ten *Y = call_out(&k, "Y", I32, 2, SHAPE(M, 1));
    fill_int(X, &r, -50, 50);
    fill_int(Tt, &r, -1000, 1000);
    long long s[4] = {0, 0, 0, 0};
    for (int n0 = 0; n0 < M; n0 += 4)
      for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 64 && n0 + i < M; j++) s[i] += (long long)A2(X, n0 + i, j);
        if (n0 + i < M) R2(Y, n0 + i, 0) = Tt->v[llabs(s[i]) % 64];
      }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "carry_gather", l));
    call_free(&k);
  }
}

/* carry_cols: column sums, maxes (f32) and mins (i32) accumulated across a loop
 * over row chunks from k0; cx's chunk is transposed too */
static void t_carry_cols(Tally *T) {
  static const int C[][3] = {{100, 130, 0}, {32, 64, 0}, {5, 3, 0}, {70, 70, 40}, {20, 100, 32}};
  for (int c = 0; c < 5; c++) {
    int M = C[c][0], N = C[c][1], k0 = C[c][2], G = (N + 63) / 64 * 32;
    Rng r = rng_seed("carry_cols", (uint64_t)c);
    Call k;
    call_init(&k, "carry_cols.tl", "carry_cols");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *CS = call_out(&k, "CS", F32, 2, SHAPE(1, N));
    Ten *CM = call_out(&k, "CM", F32, 2, SHAPE(1, N));
    Ten *CN = call_out(&k, "CN", I32, 2, SHAPE(1, N));
    Ten *CX = call_out(&k, "CX", F32, 2, SHAPE(1, N));
    Ten *I = call_in(&k, "I", I32, 2, SHAPE(M, N));
    Ten *Tt = call_out(&k, "T", F32, 2, SHAPE(64, G));
    call_arg(&k, "k0=%d", k0);
    fill_uniform(X, &r, -2, 2);
    fill_int(I, &r, -1000, 1000);
    for (int j = 0; j < N; j++) {
      double cs = 0.5, cm = -INFINITY, cn = 1000000, cx = 0;
      for (int i = k0; i < M; i++) cs += A2(X, i, j), cm = dmax(cm, A2(X, i, j)), cn = dmin(cn, A2(I, i, j)), cx += A2(X, i, j);
      CS->ref[j] = cs, CM->ref[j] = cm, CN->ref[j] = cn, CX->ref[j] = cx;
    }
    /* T[i][bx * 32 + j] = the sum over the chunks of X[m0 + j][bx * 64 + i] (0 past the edges) */
    for (int bx = 0; bx < (N + 63) / 64; bx++)
      for (int i = 0; i < 64; i++)
        for (int j = 0; j < 32; j++) {
          double t = 0;
          for (int m0 = k0; m0 < M; m0 += 32)
            if (m0 + j < M && bx * 64 + i < N) t += A2(X, m0 + j, bx * 64 + i);
          R2(Tt, i, bx * 32 + j) = t;
        }
    char l[64];
    label(l, sizeof l, "M=%d N=%d k0=%d", M, N, k0);
    CHECK(T, call_check(&k, "carry_cols", l));
    call_free(&k);
  }
}

/* carry_nested: i32 row max and min accumulated across two nested loops, the
 * inner one over chunks of an outer block of 192 columns */
static void t_carry_nested(Tally *T) {
  static const int MN[][2] = {{37, 500}, {8, 192}, {5, 3}, {20, 64}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("carry_nested", (uint64_t)c);
    Call k;
    call_init(&k, "carry_nested.tl", "carry_nested");
    Ten *X = call_in(&k, "X", I32, 2, SHAPE(M, N));
    Ten *MX = call_out(&k, "MX", I32, 2, SHAPE(M, 1));
    Ten *MN_ = call_out(&k, "MN", I32, 2, SHAPE(M, 1));
    fill_int(X, &r, -1000, 1000);
    for (int i = 0; i < M; i++) {
      double mx = -1000000, mn = 1000000;
      for (int j = 0; j < N; j++) mx = dmax(mx, A2(X, i, j)), mn = dmin(mn, A2(X, i, j));
      MX->ref[i] = mx, MN_->ref[i] = mn;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "carry_nested", l));
    call_free(&k);
  }
}

/* carry_while: f64 row sums in a while loop, step apart (chunks of 128 that
 * overlap when step < 128): s carried across the loop, q folded in each
 * iteration because R reads its running value */
static void t_carry_while(Tally *T) {
  static const int C[][3] = {{7, 300, 128}, {4, 128, 128}, {3, 5, 100}, {9, 400, 96}};
  for (int c = 0; c < 4; c++) {
    int M = C[c][0], N = C[c][1], step = C[c][2];
    Rng r = rng_seed("carry_while", (uint64_t)c);
    Call k;
    call_init(&k, "carry_while.tl", "carry_while");
    Ten *X = call_in(&k, "X", F64, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F64, 2, SHAPE(M, 1));
    Ten *R = call_out(&k, "R", F64, 2, SHAPE(M, N));
    call_arg(&k, "step=%d", step);
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++) {
      double s = 0, q = 0;
      for (int n0 = 0; n0 < N; n0 += step) {
        for (int j = n0; j < n0 + 128 && j < N; j++) s += A2(X, i, j) * A2(X, i, j), q += A2(X, i, j);
        for (int j = n0; j < n0 + 128 && j < N; j++) R2(R, i, j) = A2(X, i, j) - q;
      }
      S->ref[i] = s;
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d step=%d", M, N, step);
    CHECK(T, call_check(&k, "carry_while", l));
    call_free(&k);
  }
}

/* slice_at_param: slices whose column start is a scalar parameter (off) or a loop from
 * one: the fast body (16-byte runs) when off % 4 == 0 and N % 4 == 0, the general one
 * otherwise; windows that run past N read 0 and store nothing there. */
static void t_slice_at_param(Tally *T) {
  static const int C[][3] = {{37, 100, 0}, {37, 100, 8}, {37, 100, 3}, {20, 99, 4}, {5, 200, 160}, {16, 64, 0}};
  for (int c = 0; c < 6; c++) {
    int M = C[c][0], N = C[c][1], off = C[c][2];
    char l[64];
    label(l, sizeof l, "M=%d N=%d off=%d", M, N, off);
    for (int kn = 0; kn < 3; kn++) {
      static const char *names[] = {"load_at", "store_at", "sum_from"};
      Rng r = rng_seed(names[kn], (uint64_t)c);
      Call k;
      call_init(&k, "slice_at_param.tl", names[kn]);
      Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, kn == 1 ? 64 : N));
      fill_uniform(X, &r, -2, 2);
      if (kn == 0) {
        Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
        for (int i = 0; i < M; i++)
          for (int j = 0; j < 64; j++) R2(Y, i, j) = off + j < N ? A2(X, i, off + j) * 2.0 : 0.0;
      } else if (kn == 1) {
        Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
        for (int i = 0; i < M; i++)
          for (int j = 0; j < 64 && off + 4 + j < N; j++) R2(Y, i, off + 4 + j) = A2(X, i, j) + 1.0;
      } else {
        Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, 1));
        for (int i = 0; i < M; i++) {
          double t = 0;
          for (int j = off; j < N; j++) t += A2(X, i, j);
          R2(S, i, 0) = t;
        }
      }
      call_arg(&k, "off=%d", off);
      char test[64];
      label(test, sizeof test, "slice_at_param/%s", names[kn]);
      CHECK(T, call_check(&k, test, l));
      call_free(&k);
    }
  }
  /* gemm_from: C = A[:, ks:] B[ks:, :]; ks = 8 takes the fast body (on sm_90a its TMA
   * ring), ks = 3 the general one; M, N ragged, K - ks not a multiple of 64 */
  static const int G[][4] = {{70, 136, 200, 8}, {70, 136, 200, 3}};
  for (int c = 0; c < 4; c++) {
    int M = G[c % 2][0], N = G[c % 2][1], K = G[c % 2][2], ks = G[c % 2][3];
    Rng r = rng_seed("gemm_from", (uint64_t)c);
    Call k;
    call_init(&k, "slice_at_param.tl", "gemm_from");
    if (c >= 2) snprintf(k.target, sizeof k.target, "sm_90a");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *Cc = call_out(&k, "C", F16, 2, SHAPE(M, N));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double t = 0;
        for (int q = ks; q < K; q++) t += A2(A, i, q) * A2(B, q, j);
        R2(Cc, i, j) = round_dt(F16, t);
      }
    Cc->tol = 1e-3;
    call_arg(&k, "ks=%d", ks);
    char l[64];
    label(l, sizeof l, "%sM=%d N=%d K=%d ks=%d", c >= 2 ? "sm_90a " : "", M, N, K, ks);
    CHECK(T, call_check(&k, "slice_at_param/gemm_from", l));
    call_free(&k);
  }
}

/* pipeline_regs: @pipeline loops without dot, their loads issued ahead into registers */
static void t_pipe_rows(Tally *T) {
  static const int MN[][2] = {{37, 1000}, {8, 256}, {3, 5}, {5, 200}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("pipe_rows", (uint64_t)c);
    double decay = round_dt(F32, rng_uniform(&r, 0.3, 0.9));
    Call k;
    call_init(&k, "pipeline_regs.tl", "pipe_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(1, N));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 64));
    fill_uniform(X, &r, -2, 2);
    fill_uniform(W, &r, -1, 1);
    call_arg(&k, "decay=%.9g", decay);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 64; j++) {
        double a = 0;
        for (int n0 = 0; n0 < N; n0 += 64) {
          double x = n0 + j < N ? A2(X, i, n0 + j) : 0, w = n0 + j < N ? W->v[n0 + j] : 0;
          a = a * decay + x * w;
          for (int q = 0; q < 2; q++) a += (q + j < N ? A2(X, i, q + j) : 0) * 0.125;
        }
        R2(O, i, j) = a;
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "pipeline_registers", l));
    call_free(&k);
  }
}

static void t_ema(Tally *T) {
  static const int MK[][2] = {{37, 200}, {64, 64}, {5, 7}};
  for (int c = 0; c < 3; c++) {
    int M = MK[c][0], K = MK[c][1];
    Rng r = rng_seed("ema", (uint64_t)c);
    double decay = round_dt(F32, rng_uniform(&r, 0.3, 0.9));
    Call k;
    call_init(&k, "registers_loop.tl", "ema");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, K));
    Ten *O = call_out(&k, "O", F32, 2, SHAPE(M, 32));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, 32));
    fill_uniform(X, &r, -2, 2);
    call_arg(&k, "decay=%.9g", decay);
    int trips = (int)cdivll(K, 32);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < 32; j++) {
        double a = 0;
        for (int t = 0; t < trips; t++) a = a * decay + (t * 32 + j < K ? A2(X, i, t * 32 + j) : 0);
        for (int q = 0; q < 3; q++) a = dmax(a, -1.0) + 0.125;
        R2(O, i, j) = a;
        R2(C, i, j) = (1.0 + trips) * 0.125;
      }
    char l[64];
    label(l, sizeof l, "M=%d K=%d", M, K);
    CHECK(T, call_check(&k, "registers_through_loops", l));
    call_free(&k);
  }
}

static void t_region(Tally *T) {
  /* (M, N, r0, c0): inside, overhanging the bottom-right edge, and a start above/left of 0;
   * the last two take the fast body (c0 % 4 == 0, N % 4 == 0): 16-byte runs, one left of 0 */
  static const int C4[][4] = {{40, 40, 5, 9}, {20, 37, 10, 30}, {16, 16, 0, 0}, {7, 5, 0, 0}, {30, 30, -4, -9},
                              {24, 36, -3, -8}, {24, 36, 11, 28}};
  for (int c = 0; c < 7; c++) {
    int M = C4[c][0], N = C4[c][1], r0 = C4[c][2], c0 = C4[c][3];
    Rng r = rng_seed("region", (uint64_t)c);
    Call k;
    call_init(&k, "region.tl", "region");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    call_arg(&k, "r0=%d", r0);
    call_arg(&k, "c0=%d", c0);
    /* outside the 16 x 16 region Y keeps its poison (the reference is NaN there) */
    for (int i = r0; i < r0 + 16; i++)
      for (int j = c0; j < c0 + 16; j++)
        if (i >= 0 && i < M && j >= 0 && j < N) R2(Y, i, j) = A2(X, i, j) + 1.0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d at (%d,%d)", M, N, r0, c0);
    CHECK(T, call_check(&k, "store_region_only", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ several kernels in one file */

static void t_multi(Tally *T) {
  static const int Ns[] = {300, 128};
  for (int c = 0; c < 2; c++) {
    int N = Ns[c];
    for (int which = 0; which < 2; which++) {
      Rng r = rng_seed("multi", (uint64_t)(c * 2 + which));
      Call k;
      call_init(&k, "multi_kernel.tl", which ? "second" : "first");
      Ten *X = call_in(&k, "X", F32, 1, SHAPE(N));
      Ten *Y = call_out(&k, "Y", F32, 1, SHAPE(N));
      Ten *Tt = which ? call_out(&k, "T", F32, 1, SHAPE(1)) : NULL;
      fill_uniform(X, &r, -1, 1);
      double t = 0;
      for (int i = 0; i < N; i++) {
        Y->ref[i] = which ? X->v[i] * X->v[i] : X->v[i] * 2;
        t += X->v[i];
      }
      if (Tt) Tt->ref[0] = t;
      char l[64];
      label(l, sizeof l, "kernel %s N=%d", which ? "second" : "first", N);
      CHECK(T, call_check(&k, "multi_kernel_file", l));
      call_free(&k);
    }
  }
}

/* ------------------------------------------------------------ ctx, read-modify-write, dynamic shared */

static void t_ctx(Tally *T) {
  Call k;
  call_init(&k, "ctx_fields.tl", "ctx_fields");
  Ten *O = call_out(&k, "O", I32, 3, SHAPE(24, 64, 6));
  for (int b = 0; b < 24; b++)
    for (int t = 0; t < 64; t++) {
      double *o = &O->ref[((long long)b * 64 + t) * 6];
      o[0] = t + ((t + 15) / 16) * 1000;
      o[1] = t % 32;
      o[2] = t / 32;
      o[3] = 64 + 32 * 1000;
      o[4] = 2;
      o[5] = 2 * 100 + 3 * 10 + 4;
    }
  CHECK(T, call_check(&k, "ctx_fields", "grid (2,3,4) x 64 threads"));
  call_free(&k);
}

static void t_rmw(Tally *T) {
  static const int MN[][2] = {{37, 70}, {32, 64}, {3, 5}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("rmw", (uint64_t)c);
    double alpha = rng_uniform(&r, -2, 2);
    Call k;
    call_init(&k, "rmw.tl", "rmw");
    Ten *X = call_in(&k, "X", F64, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F64, 2, SHAPE(M, N));
    Ten *Z = call_out(&k, "Z", F64, 2, SHAPE(M, N));
    fill_uniform(X, &r, -1, 1);
    Y->init = calloc((size_t)Y->n, sizeof(double));
    Z->init = calloc((size_t)Z->n, sizeof(double));
    for (long long i = 0; i < Y->n; i++) Y->init[i] = rng_uniform(&r, -1, 1), Z->init[i] = rng_uniform(&r, -1, 1);
    call_arg(&k, "alpha=%.17g", alpha);
    for (long long i = 0; i < Y->n; i++) {
      Y->ref[i] = Y->init[i] + X->v[i] * alpha;
      Z->ref[i] = Z->init[i] - (sqrt(fabs(X->v[i])) + Y->ref[i]);
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d (f64)", M, N);
    CHECK(T, call_check(&k, "tensor_read_modify_write", l));
    call_free(&k);
  }
}

/* rmw_runs: *=, -= and += (u8, wrapping) stores in the layout's runs of 4 elements in
 * the fast body (N % 4 == 0: 16 bytes of f32, 8 of f16, 4 of u8), element by element
 * otherwise; outputs with initial contents */
static void t_rmw_runs(Tally *T) {
  static const int MN[][2] = {{37, 128}, {37, 100}, {5, 70}, {16, 64}};
  for (int c = 0; c < 4; c++) { /* N = 70: the general body */
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("rmw_runs", (uint64_t)c);
    Call k;
    call_init(&k, "rmw.tl", "rmw_runs");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, N));
    Ten *H = call_out(&k, "H", F16, 2, SHAPE(M, N));
    Ten *V = call_in(&k, "V", U8, 2, SHAPE(M, N));
    Ten *U = call_out(&k, "U", U8, 2, SHAPE(M, N));
    fill_uniform(X, &r, -2, 2);
    fill_int(V, &r, 0, 255);
    Y->init = calloc((size_t)Y->n, sizeof(double));
    H->init = calloc((size_t)H->n, sizeof(double));
    U->init = calloc((size_t)U->n, sizeof(double));
    for (long long i = 0; i < Y->n; i++) {
      Y->init[i] = round_dt(F32, rng_uniform(&r, -1, 1));
      H->init[i] = round_dt(F16, rng_uniform(&r, -4, 4));
      U->init[i] = (double)rng_int(&r, 0, 254);
      if (((int)U->init[i] + (int)V->v[i]) % 256 == 255) U->init[i] -= 1; /* 255 is u8's poison: unwritten */
      Y->ref[i] = round_dt(F32, Y->init[i] * X->v[i]);
      H->ref[i] = round_dt(F16, H->init[i] - round_dt(F16, X->v[i]));
      U->ref[i] = (double)(((int)U->init[i] + (int)V->v[i]) % 256);
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "tensor_read_modify_write_runs", l));
    call_free(&k);
  }
}

static void t_dynamic(Tally *T) {
  static const int MN[][2] = {{200, 130}, {128, 128}, {5, 3}};
  for (int c = 0; c < 3; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("dynamic", (uint64_t)c);
    Call k;
    call_init(&k, "dynamic_smem.tl", "big_transpose");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(N, M));
    fill_uniform(X, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) R2(Y, j, i) = A2(X, i, j) * 2.0;
    char l[64];
    label(l, sizeof l, "M=%d N=%d (128 KiB shared)", M, N);
    CHECK(T, call_check(&k, "dynamic_shared_memory", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ mixed: register softmax, pipeline, tile loops */

static void t_regs_softmax(Tally *T) {
  static const int Ms[] = {37, 64, 3};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("regs_softmax", (uint64_t)c);
    Call k;
    call_init(&k, "regs_softmax.tl", "regs_softmax");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 32));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 32));
    Ten *Tt = call_out(&k, "T", F32, 2, SHAPE(32, M));
    fill_uniform(X, &r, -5, 5);
    for (int i = 0; i < M; i++) {
      double mx = -INFINITY, s = 0;
      for (int j = 0; j < 32; j++) mx = dmax(mx, A2(X, i, j));
      for (int j = 0; j < 32; j++) s += exp(A2(X, i, j) - mx);
      for (int j = 0; j < 32; j++) R2(Y, i, j) = R2(Tt, j, i) = exp(A2(X, i, j) - mx) / s;
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "registers_softmax", l));
    call_free(&k);
  }
}

static void t_pipeline3(Tally *T) {
  static const int MNK[][3] = {{37, 50, 200}, {32, 32, 64}, {5, 3, 7}};
  for (int c = 0; c < 3; c++) {
    int M = MNK[c][0], N = MNK[c][1], K = MNK[c][2];
    Rng r = rng_seed("pipeline3", (uint64_t)c);
    Call k;
    call_init(&k, "pipeline3.tl", "pipeline3");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, N));
    Ten *P = call_out(&k, "P", I32, 1, SHAPE(1));
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    gemm_ref(A, B, C, M, N, K, 1);
    C->tol = 1e-5;
    P->ref[0] = (double)cdivll(K, 16);
    char l[64];
    label(l, sizeof l, "M=%d N=%d K=%d", M, N, K);
    CHECK(T, call_check(&k, "pipeline3_dot_f16", l));
    call_free(&k);
  }
}

static void t_tile_loops(Tally *T) {
  static const int ML[][2] = {{32, 40}, {20, 1000}, {3, 5}};
  for (int c = 0; c < 3; c++) {
    int M = ML[c][0];
    double limit = ML[c][1];
    Rng r = rng_seed("tile_loops", (uint64_t)c);
    Call k;
    call_init(&k, "tile_loops.tl", "tile_loops");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 16));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(32, 16));
    Ten *C = call_out(&k, "C", I32, 1, SHAPE(1));
    fill_uniform(X, &r, -1, 1);
    call_arg(&k, "limit=%g", limit);
    double t[32][16];
    for (int i = 0; i < 32; i++)
      for (int j = 0; j < 16; j++) t[i][j] = (i < M ? A2(X, i, j) : 0) + (i / 8);
    int n = 0;
    while (n < 50) {
      for (int i = 0; i < 32; i++)
        for (int j = 0; j < 16; j++) t[i][j] = (float)(t[i][j] * 1.5);
      n++;
      if (t[0][0] > limit || t[0][0] < -limit) break;
    }
    for (int i = 0; i < 32; i++)
      for (int j = 0; j < 16; j++) R2(Y, i, j) = t[i][j];
    C->ref[0] = n;
    char l[64];
    label(l, sizeof l, "M=%d limit=%g", M, limit);
    CHECK(T, call_check(&k, "tile_loops_partial_writes", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ arg-reductions and scans */

/* The order of arg-reductions: NaN above every number, NaNs equal; -1, 0 or 1. */
static int arg_cmp(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) == isnan(b) ? 0 : isnan(a) ? 1 : -1;
  return a < b ? -1 : a > b;
}

/* The first index of the greatest (max) or least of n values stride apart. */
static int arg_ref(const double *v, int n, long long stride, bool max) {
  int best = 0;
  for (int j = 1; j < n; j++) {
    int c = arg_cmp(v[j * stride], v[best * stride]);
    if (max ? c > 0 : c < 0) best = j;
  }
  return best;
}

/* Rows (or columns) that test the order: ties among small integers, NaNs here
 * and there, all NaN, all equal, infinities among numbers. */
static void fill_arg(Ten *X, Rng *r, int M, int N, bool by_cols) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int line = by_cols ? j : i;
      double v = (double)rng_int(r, -3, 3);
      switch (line % 5) {
      case 1: if (rng_int(r, 0, 9) == 0) v = NAN; break;
      case 2: v = NAN; break;
      case 3: v = 1; break;
      case 4:
        v = rng_uniform(r, -2, 2);
        if (rng_int(r, 0, 19) == 0) v = rng_int(r, 0, 1) ? INFINITY : -INFINITY;
        break;
      default: break;
      }
      A2(X, i, j) = round_dt(X->dt, v);
    }
}

/* arg_rows: rowargmax / rowargmin over [5, 256] tiles (rows across two warps,
 * one barrier each), padded with -inf / inf past the tensor */
static void t_arg_rows(Tally *T) {
  static const int MN[][2] = {{37, 200}, {8, 256}, {3, 3}, {100, 77}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("arg_rows", (uint64_t)c);
    Call k;
    call_init(&k, "arg_rows.tl", "arg_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *AX = call_out(&k, "AX", I32, 2, SHAPE(M, 1));
    Ten *AN = call_out(&k, "AN", I32, 2, SHAPE(M, 1));
    fill_arg(X, &r, M, N, false);
    double row[256];
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < 256; j++) row[j] = j < N ? A2(X, i, j) : -INFINITY;
      AX->ref[i] = arg_ref(row, 256, 1, true);
      for (int j = N; j < 256; j++) row[j] = INFINITY;
      AN->ref[i] = arg_ref(row, 256, 1, false);
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "argmax_rows_f32", l));
    call_free(&k);
  }
}

/* topk_rows (tests/gpu/topk_rows.tl): a top-8 loop storing each row's max and its
 * column at j :+ 1 and j, from the first of the row's 64 replicas, with no barrier
 * between iterations (the race detector would report one missing). Distinct
 * uniform values; ragged M (a partial last block) and N (the tile padded with -inf). */
static void t_topk_rows(Tally *T) {
  static const int MN[][2] = {{37, 200}, {5, 256}, {3, 9}, {101, 77}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("topk_rows", (uint64_t)c);
    Call k;
    call_init(&k, "topk_rows.tl", "topk_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *V = call_out(&k, "V", F32, 2, SHAPE(M, 8));
    Ten *I = call_out(&k, "I", I32, 2, SHAPE(M, 8));
    fill_uniform(X, &r, -1, 1);
    double row[256];
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < 256; j++) row[j] = j < N ? A2(X, i, j) : -INFINITY;
      for (int j = 0; j < 8; j++) {
        int a = arg_ref(row, 256, 1, true);
        V->ref[i * 8 + j] = row[a];
        I->ref[i * 8 + j] = a;
        row[a] = -INFINITY;
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "topk_rows", l));
    call_free(&k);
  }
}

/* arg_cols: colargmax / colargmin through the shared copy, padded with -inf / inf */
static void t_arg_cols(Tally *T) {
  static const int MN[][2] = {{50, 37}, {64, 64}, {3, 5}, {100, 20}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("arg_cols", (uint64_t)c);
    Call k;
    call_init(&k, "arg_cols.tl", "arg_cols");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *CX = call_out(&k, "CX", I32, 2, SHAPE(1, N));
    Ten *CN = call_out(&k, "CN", I32, 2, SHAPE(1, N));
    fill_arg(X, &r, M, N, true);
    double col[64];
    for (int j = 0; j < N; j++) {
      for (int i = 0; i < 64; i++) col[i] = i < M ? A2(X, i, j) : -INFINITY;
      CX->ref[j] = arg_ref(col, 64, 1, true);
      for (int i = M; i < 64; i++) col[i] = INFINITY;
      CN->ref[j] = arg_ref(col, 64, 1, false);
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "argmax_cols_f32", l));
    call_free(&k);
  }
}

/* arg_cols_types: colargmax / colargmin of f16, i8 and i32 in registers over
 * [20, 40] tiles whose layout pads rows 20..31; zeros past the tensor's edge */
static void t_arg_cols_types(Tally *T) {
  static const int MN[][2] = {{20, 40}, {13, 50}, {3, 5}, {25, 81}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("arg_cols_types", (uint64_t)c);
    Call k;
    call_init(&k, "arg_cols_types.tl", "arg_cols_types");
    Ten *H = call_in(&k, "H", F16, 2, SHAPE(M, N));
    Ten *B = call_in(&k, "B", I8, 2, SHAPE(M, N));
    Ten *I = call_in(&k, "I", I32, 2, SHAPE(M, N));
    Ten *HX = call_out(&k, "HX", I32, 2, SHAPE(1, N));
    Ten *BN = call_out(&k, "BN", I32, 2, SHAPE(1, N));
    Ten *IX = call_out(&k, "IX", I32, 2, SHAPE(1, N));
    for (long long e = 0; e < H->n; e++) H->v[e] = round_dt(F16, -(double)rng_int(&r, 1, 8) / 4); /* ties */
    fill_int(B, &r, 1, 6);
    fill_int(I, &r, -9, -1);
    double h[20], b[20], x[20];
    for (int j = 0; j < N; j++) {
      for (int i = 0; i < 20; i++) {
        h[i] = i < M ? A2(H, i, j) : 0, b[i] = i < M ? A2(B, i, j) : 0, x[i] = i < M ? 2 * A2(I, i, j) : 0;
      }
      HX->ref[j] = arg_ref(h, 20, 1, true);
      BN->ref[j] = arg_ref(b, 20, 1, false);
      IX->ref[j] = arg_ref(x, 20, 1, true);
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "argmax_cols_types", l));
    call_free(&k);
  }
}

/* red_col_of_rows: colsum, colargmax and colmin of a [16, 1] row value */
static void t_red_col_of_rows(Tally *T) {
  static const int Ms[] = {16, 9, 1, 40};
  for (int c = 0; c < 4; c++) {
    int M = Ms[c];
    Rng r = rng_seed("red_col_of_rows", (uint64_t)c);
    Call k;
    call_init(&k, "red_col_of_rows.tl", "red_col_of_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 32));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(1, 1));
    Ten *A = call_out(&k, "A", I32, 2, SHAPE(1, 1));
    Ten *N = call_out(&k, "N", F32, 2, SHAPE(1, 1));
    fill_int(X, &r, -5, 5); /* exact sums; ties go to the smaller row */
    double rs[16], s = 0, mn = INFINITY;
    for (int i = 0; i < 16; i++) {
      rs[i] = 0;
      for (int j = 0; j < 32 && i < M; j++) rs[i] += A2(X, i, j);
      s += rs[i], mn = dmin(mn, rs[i]);
    }
    S->ref[0] = s, A->ref[0] = arg_ref(rs, 16, 1, true), N->ref[0] = mn;
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "reduce_cols_of_a_row_value", l));
    call_free(&k);
  }
}

/* colmax_column_scalar (tests/gpu/colmax_column_scalar.tl): the column max of a
 * [16, 1] value of CSR row lengths, folded by every thread and read in place as a
 * scalar (a thread-0 store and every thread's mask) and as a [1, 1] tile broadcast
 * over [4, 8]; RP read as 0 past its end.
 * Ragged M1: a partial last block, one block of a single offset. */
static void t_colmax_column_scalar(Tally *T) {
  static const int Ms[] = {37, 17, 1, 100};
  for (int c = 0; c < 4; c++) {
    int M1 = Ms[c], G = (M1 + 15) / 16;
    Rng r = rng_seed("colmax_column_scalar", (uint64_t)c);
    Call k;
    call_init(&k, "colmax_column_scalar.tl", "colmax_column_scalar");
    Ten *RP = call_in(&k, "RP", I32, 1, SHAPE(M1));
    Ten *O = call_out(&k, "O", I32, 1, SHAPE(G));
    Ten *C = call_out(&k, "C", I32, 2, SHAPE(G, 64));
    Ten *D = call_out(&k, "D", I32, 2, SHAPE(4 * G, 8));
    double at = 0;
    for (int i = 0; i < M1; i++) RP->v[i] = at, at += (double)rng_int(&r, 0, 70); /* row lengths 0 .. 70 */
    for (int b = 0; b < G; b++) {
      double mx = -INFINITY;
      for (int i = 16 * b; i < 16 * b + 16; i++) {
        double hi = i + 1 < M1 ? RP->v[i + 1] : 0, lo = i < M1 ? RP->v[i] : 0;
        mx = dmax(mx, hi - lo);
      }
      O->ref[b] = mx;
      for (int j = 0; j < 64; j++) C->ref[b * 64 + j] = j < mx ? 1 : 0;
      for (int j = 0; j < 32; j++) D->ref[b * 32 + j] = j + mx;
    }
    char l[64];
    label(l, sizeof l, "M1=%d", M1);
    CHECK(T, call_check(&k, "colmax_column_scalar", l));
    call_free(&k);
  }
}

/* arg_types: rowargmax / rowargmin of f16, i32 and f64 in one warp per row; zeros past the edge */
static void t_arg_types(Tally *T) {
  static const int MN[][2] = {{37, 20}, {16, 32}, {3, 3}, {50, 31}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("arg_types", (uint64_t)c);
    Call k;
    call_init(&k, "arg_types.tl", "arg_types");
    Ten *H = call_in(&k, "H", F16, 2, SHAPE(M, N));
    Ten *I = call_in(&k, "I", I32, 2, SHAPE(M, N));
    Ten *D = call_in(&k, "D", F64, 2, SHAPE(M, N));
    Ten *HX = call_out(&k, "HX", I32, 2, SHAPE(M, 1));
    Ten *IX = call_out(&k, "IX", I32, 2, SHAPE(M, 1));
    Ten *IN = call_out(&k, "IN", I32, 2, SHAPE(M, 1));
    Ten *DN = call_out(&k, "DN", I32, 2, SHAPE(M, 1));
    fill_arg(H, &r, M, N, false);
    fill_int(I, &r, -5, 5);
    fill_arg(D, &r, M, N, false);
    /* f16: values 1 + k / 2048 round to 1 + k / 1024 (ties among distinct inputs) */
    for (int i = 0; i < M; i += 7)
      for (int j = 0; j < N; j++) A2(H, i, j) = round_dt(F16, 1 + (double)rng_int(&r, 0, 7) / 2048);
    double row[32];
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < 32; j++) row[j] = j < N ? A2(H, i, j) : 0;
      HX->ref[i] = arg_ref(row, 32, 1, true);
      for (int j = 0; j < 32; j++) row[j] = j < N ? A2(I, i, j) : 0;
      IX->ref[i] = arg_ref(row, 32, 1, true);
      IN->ref[i] = arg_ref(row, 32, 1, false);
      for (int j = 0; j < 32; j++) row[j] = j < N ? A2(D, i, j) : 0;
      DN->ref[i] = arg_ref(row, 32, 1, false);
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "argmax_types", l));
    call_free(&k);
  }
}

/* arg_dot: rowargmax / rowargmin of a dot's result in the mma accumulator's layout */
static void t_arg_dot(Tally *T) {
  static const int Ms[] = {64, 37, 130};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("arg_dot", (uint64_t)c);
    Call k;
    call_init(&k, "arg_dot.tl", "arg_dot");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, 32));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(32, 64));
    Ten *I = call_out(&k, "I", I32, 2, SHAPE(M, 1));
    Ten *J = call_out(&k, "J", I32, 2, SHAPE(M, 1));
    fill_int(A, &r, -2, 2);
    fill_int(B, &r, -2, 2);
    double row[64];
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < 64; j++) {
        row[j] = 0;
        for (int kk = 0; kk < 32; kk++) row[j] += A2(A, i, kk) * A2(B, kk, j);
      }
      I->ref[i] = arg_ref(row, 64, 1, true);
      J->ref[i] = arg_ref(row, 64, 1, false);
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "argmax_dot_accumulator", l));
    call_free(&k);
  }
}

/* X: values of magnitude 0.8 .. 1.25 and either sign (sums and products stay near 1) */
static void fill_scan(Ten *X, Rng *r) {
  for (long long i = 0; i < X->n; i++) {
    double v = rng_uniform(r, 0.8, 1.25);
    X->v[i] = round_dt(X->dt, rng_int(r, 0, 1) ? v : -v);
  }
}

/* W: small integers (ties), and NaNs and -inf in some rows, for cummax */
static void fill_cummax(Ten *W, Rng *r, int M, int N) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double v = (double)rng_int(r, -3, 3);
      if (i % 3 == 1 && rng_int(r, 0, 49) == 0) v = NAN;
      if (i % 3 == 2 && rng_int(r, 0, 9) == 0) v = -INFINITY;
      A2(W, i, j) = v;
    }
}

/* scan_rows: cumsum along rows chunk by chunk with a carry, cumprod and cummax of the first chunk */
static void t_scan_rows(Tally *T) {
  static const int MN[][2] = {{37, 200}, {8, 1000}, {3, 3}, {64, 256}, {5, 513}};
  for (int c = 0; c < 5; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("scan_rows", (uint64_t)c);
    Call k;
    call_init(&k, "scan_rows.tl", "scan_rows");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, N));
    Ten *P = call_out(&k, "P", F32, 2, SHAPE(M, 256));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(M, 256));
    C->tol = 0; /* cummax is exact */
    fill_scan(X, &r);
    fill_cummax(W, &r, M, N);
    for (int i = 0; i < M; i++) {
      double s = 0, p = 1, mx = -INFINITY;
      for (int j = 0; j < N; j++) R2(S, i, j) = s += A2(X, i, j);
      for (int j = 0; j < 256; j++) {
        R2(P, i, j) = p *= j < N ? A2(X, i, j) : 1.0;
        double w = j < N ? A2(W, i, j) : 0.0; /* past the edge the tile reads 0 */
        mx = isnan(mx) || isnan(w) ? NAN : dmax(mx, w);
        R2(C, i, j) = isnan(mx) ? -1000 : mx;
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "scan_rows_f32", l));
    call_free(&k);
  }
}

/* scan_cols: cumsum down columns chunk by chunk ([50, 24] tiles) with a carry, cumprod and cummax of the first chunk */
static void t_scan_cols(Tally *T) {
  static const int MN[][2] = {{200, 37}, {300, 8}, {3, 3}, {64, 64}, {65, 100}};
  for (int c = 0; c < 5; c++) {
    int M = MN[c][0], N = MN[c][1];
    Rng r = rng_seed("scan_cols", (uint64_t)c);
    Call k;
    call_init(&k, "scan_cols.tl", "scan_cols");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *W = call_in(&k, "W", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, N));
    Ten *P = call_out(&k, "P", F32, 2, SHAPE(50, N));
    Ten *C = call_out(&k, "C", F32, 2, SHAPE(50, N));
    C->tol = 0; /* cummax is exact */
    fill_scan(X, &r);
    fill_cummax(W, &r, M, N);
    for (int j = 0; j < N; j++) {
      double s = 0, p = 1, mx = -INFINITY;
      for (int i = 0; i < M; i++) R2(S, i, j) = s += A2(X, i, j);
      for (int i = 0; i < 50; i++) {
        R2(P, i, j) = p *= i < M ? A2(X, i, j) : 1.0;
        double w = i < M ? A2(W, i, j) : 0.0;
        mx = isnan(mx) || isnan(w) ? NAN : dmax(mx, w);
        R2(C, i, j) = isnan(mx) ? -1000 : mx;
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "scan_cols_f32", l));
    call_free(&k);
  }
}

/* scan_cols_warp_tiles: a column scan in a layout of warp tiles, and the other ops
 * of its shape in that layout */
static void t_scan_cols_warp_tiles(Tally *T) {
  static const int MN[][2] = {{100, 70}, {32, 64}, {5, 3}, {64, 130}};
  for (int c = 0; c < 4; c++) {
    int M = MN[c][0], N = MN[c][1], B = (int)cdivll(N, 64);
    Rng r = rng_seed("scan_cols_warp_tiles", (uint64_t)c);
    Call k;
    call_init(&k, "scan_cols_warp_tiles.tl", "scan_wt");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, N));
    Ten *S = call_out(&k, "S", F32, 2, SHAPE(M, N));
    Ten *R = call_out(&k, "R", F32, 2, SHAPE(32, N)), *Q = call_out(&k, "Q", F32, 2, SHAPE(32, N));
    Ten *RS = call_out(&k, "RS", F32, 2, SHAPE(32, B)), *CS = call_out(&k, "CS", F32, 2, SHAPE(1, N));
    fill_scan(X, &r);
    for (int j = 0; j < N; j++) {
      double s = 0, cs = 0;
      for (int i = 0; i < M; i++) R2(S, i, j) = s += A2(X, i, j);
      for (int i = 0; i < 32 && i < M; i++) cs += A2(X, i, j);
      R2(CS, 0, j) = cs;
    }
    for (int b = 0; b < B; b++)
      for (int i = 0; i < 32; i++) {
        double s = 0, mx = -INFINITY, x[64];
        for (int j = 0; j < 64; j++) {
          x[j] = i < M && b * 64 + j < N ? A2(X, i, b * 64 + j) : 0; /* outside X: 0 */
          mx = dmax(mx, x[j]);
        }
        for (int j = 0; j < 64; j++) {
          s += x[j];
          if (b * 64 + j < N) R2(R, i, b * 64 + j) = s, R2(Q, i, b * 64 + j) = x[j] - mx;
        }
        R2(RS, i, b) = s * 6; /* 1 + 2 + 3 */
      }
    char l[64];
    label(l, sizeof l, "M=%d N=%d", M, N);
    CHECK(T, call_check(&k, "scan_cols_warp_tiles", l));
    call_free(&k);
  }
}

/* scan_cols_home: values of a column scan's warp-tile layout in their shared homes */
static void t_scan_cols_home(Tally *T) {
  static const int Ms[] = {128, 100, 7};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("scan_cols_home", (uint64_t)c);
    Call k;
    call_init(&k, "scan_cols_home.tl", "k");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64)), *W = call_in(&k, "W", F32, 2, SHAPE(M, 64));
    Ten *V = call_in(&k, "V", F32, 2, SHAPE(M, 64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
    fill_scan(X, &r);
    fill_uniform(W, &r, -1, 1);
    fill_uniform(V, &r, -1, 1);
    for (int j = 0; j < 64; j++) {
      double s = 0;
      for (int i = 0; i < M; i++) {
        s += A2(X, i, j);
        R2(Y, i, j) = s * A2(W, i, j) + A2(X, i, j) * A2(V, i, j);
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "scan_cols_home", l));
    call_free(&k);
  }
}

/* window_home: a selective scan's outputs written a column a step into a tile that
 * lives in shared memory (layout.c forward_windows), at ragged D and L */
static void t_window_home(Tally *T) {
  static const int Bs[] = {2, 1, 3, 1}, Ds[] = {100, 64, 130, 5}, Ls[] = {37, 32, 16, 3};
  for (int c = 0; c < 4; c++) {
    int Bn = Bs[c], D = Ds[c], L = Ls[c];
    Rng r = rng_seed("window_home", (uint64_t)c);
    Call k;
    call_init(&k, "window_home.tl", "selscan");
    Ten *A = call_in(&k, "A", F32, 3, SHAPE(Bn, D, L)), *U = call_in(&k, "U", F32, 3, SHAPE(Bn, D, L));
    Ten *C = call_in(&k, "C", F32, 3, SHAPE(Bn, D, L));
    Ten *Y = call_out(&k, "Y", F32, 3, SHAPE(Bn, D, L));
    fill_uniform(A, &r, 0.5, 1);
    fill_uniform(U, &r, -1, 1);
    fill_uniform(C, &r, -1, 1);
    for (int b = 0; b < Bn; b++)
      for (int d = 0; d < D; d++) {
        double h = 0;
        for (int l = 0; l < L; l++) {
          long long i = ((long long)b * D + d) * L + l;
          h = A->v[i] * h + U->v[i];
          Y->ref[i] = h * C->v[i];
        }
      }
    char l[64];
    label(l, sizeof l, "B=%d D=%d L=%d", Bn, D, L);
    CHECK(T, call_check(&k, "window_home", l));
    call_free(&k);
  }
}

/* window_home_rows: a recurrence down the rows, one f16 row of outputs a step into
 * a tile that lives in shared memory, at ragged T and N */
static void t_window_home_rows(Tally *T) {
  static const int Ts[] = {37, 16, 3, 9}, Ns[] = {300, 128, 5, 129};
  for (int c = 0; c < 4; c++) {
    int Tn = Ts[c], N = Ns[c];
    Rng r = rng_seed("window_home_rows", (uint64_t)c);
    Call k;
    call_init(&k, "window_home_rows.tl", "rows");
    Ten *A = call_in(&k, "A", F32, 2, SHAPE(Tn, N)), *U = call_in(&k, "U", F32, 2, SHAPE(Tn, N));
    Ten *Y = call_out(&k, "Y", F16, 2, SHAPE(Tn, N));
    fill_uniform(A, &r, 0.5, 1);
    fill_uniform(U, &r, -1, 1);
    for (int j = 0; j < N; j++) {
      double h = 0;
      for (int i = 0; i < Tn; i++) {
        h = A2(A, i, j) * h + A2(U, i, j);
        R2(Y, i, j) = round_dt(F16, h * 2.0);
      }
    }
    char l[64];
    label(l, sizeof l, "T=%d N=%d", Tn, N);
    CHECK(T, call_check(&k, "window_home_rows", l));
    call_free(&k);
  }
}

/* scan_types: cumsum of i32 and f16 along rows, of f64 down columns, of a rank-1 tile, of rowsum's column */
static void t_scan_types(Tally *T) {
  static const int Ms[] = {37, 16, 3, 100};
  for (int c = 0; c < 4; c++) {
    int M = Ms[c];
    Rng r = rng_seed("scan_types", (uint64_t)c);
    Call k;
    call_init(&k, "scan_types.tl", "scan_types");
    Ten *I = call_in(&k, "I", I32, 2, SHAPE(M, 64));
    Ten *H = call_in(&k, "H", F16, 2, SHAPE(M, 64));
    Ten *D = call_in(&k, "D", F64, 2, SHAPE(M, 64));
    Ten *V = call_in(&k, "V", F32, 1, SHAPE(M));
    Ten *SI = call_out(&k, "SI", I32, 2, SHAPE(M, 64));
    Ten *SH = call_out(&k, "SH", F16, 2, SHAPE(M, 64));
    Ten *SD = call_out(&k, "SD", F64, 2, SHAPE(M, 64));
    Ten *SV = call_out(&k, "SV", F32, 1, SHAPE(M));
    Ten *SR = call_out(&k, "SR", F64, 2, SHAPE(M, 1));
    fill_int(I, &r, -1000, 1000);
    fill_scan(H, &r);
    fill_scan(D, &r);
    fill_scan(V, &r);
    /* f16: the kernel accumulates in f32 and rounds each element once */
    SH->tol = 2e-3;
    for (int i = 0; i < M; i++) {
      double si = 0, sh = 0;
      for (int j = 0; j < 64; j++) {
        R2(SI, i, j) = si += A2(I, i, j);
        R2(SH, i, j) = round_dt(F16, sh += A2(H, i, j));
      }
    }
    for (int i0 = 0; i0 < M; i0 += 16) { /* down the columns of each 16-row block */
      double sr = 0, sv = 0;
      for (int j = 0; j < 64; j++) {
        double sd = 0;
        for (int i = i0; i < i0 + 16 && i < M; i++) R2(SD, i, j) = sd += A2(D, i, j);
      }
      for (int i = i0; i < i0 + 16 && i < M; i++) {
        for (int j = 0; j < 64; j++) sr += A2(D, i, j);
        SR->ref[i] = sr;
        SV->ref[i] = sv += V->v[i];
      }
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "scan_types", l));
    call_free(&k);
  }
}

/* scan_dot / scan_dot_rowsum: scans in the mma accumulator's layout, whose warps hold contiguous blocks */
static void t_scan_dot(Tally *T) {
  static const int Ms[] = {64, 37, 130};
  for (int c = 0; c < 3; c++) {
    for (int which = 0; which < 2; which++) {
      int M = Ms[c];
      Rng r = rng_seed("scan_dot", (uint64_t)(c * 2 + which));
      Call k;
      call_init(&k, which ? "scan_dot_rowsum.tl" : "scan_dot.tl", which ? "scan_dot_rowsum" : "scan_dot");
      Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, 32));
      Ten *B = call_in(&k, "B", F16, 2, SHAPE(32, 64));
      Ten *R = which ? NULL : call_out(&k, "R", F32, 2, SHAPE(M, 64));
      Ten *C = which ? NULL : call_out(&k, "C", F32, 2, SHAPE(M, 64));
      Ten *S = which ? call_out(&k, "S", F32, 2, SHAPE(M, 1)) : NULL;
      fill_int(A, &r, -2, 2);
      fill_int(B, &r, -2, 2);
      static double d[160][64];
      for (int i = 0; i < M; i++)
        for (int j = 0; j < 64; j++) {
          d[i][j] = 0;
          for (int kk = 0; kk < 32; kk++) d[i][j] += A2(A, i, kk) * A2(B, kk, j);
        }
      for (int i0 = 0; i0 < M; i0 += 64) { /* each block's tile: rows past M read 0 */
        double sr = 0;
        for (int i = i0; i < i0 + 64 && i < M; i++) {
          double rs = 0, row = 0;
          for (int j = 0; j < 64; j++) rs += d[i][j];
          if (S) S->ref[i] = sr += rs;
          for (int j = 0; j < 64; j++)
            if (R) R2(R, i, j) = row += d[i][j];
        }
        for (int j = 0; j < 64 && C; j++) {
          double mx = -INFINITY;
          for (int i = i0; i < i0 + 64 && i < M; i++) R2(C, i, j) = mx = dmax(mx, d[i][j]);
        }
      }
      if (C) C->tol = 0;
      char l[64];
      label(l, sizeof l, "%s M=%d", which ? "rowsum" : "rows, columns", M);
      CHECK(T, call_check(&k, "scan_dot_accumulator", l));
      call_free(&k);
    }
  }
}

/* scan_broadcast: cumsum of a rank-1 tile in a slice of a rank-2 layout, rowargmax as a column */
static void t_scan_broadcast(Tally *T) {
  static const int Ms[] = {37, 16, 3};
  for (int c = 0; c < 3; c++) {
    int M = Ms[c];
    Rng r = rng_seed("scan_broadcast", (uint64_t)c);
    Call k;
    call_init(&k, "scan_broadcast.tl", "scan_broadcast");
    Ten *X = call_in(&k, "X", F32, 2, SHAPE(M, 64));
    Ten *W = call_in(&k, "W", F32, 1, SHAPE(64));
    Ten *Y = call_out(&k, "Y", F32, 2, SHAPE(M, 64));
    fill_arg(X, &r, M, 64, false);
    for (int i = 0; i < M; i++) /* no NaN in the output: NaN rows become ties */
      for (int j = 0; j < 64; j++)
        if (isnan(A2(X, i, j)) || isinf(A2(X, i, j))) A2(X, i, j) = 2;
    fill_scan(W, &r);
    for (int i = 0; i < M; i++) {
      double s = 0;
      int a = arg_ref(&A2(X, i, 0), 64, 1, true);
      for (int j = 0; j < 64; j++) R2(Y, i, j) = A2(X, i, j) + (s += W->v[j]) + a;
    }
    char l[64];
    label(l, sizeof l, "M=%d", M);
    CHECK(T, call_check(&k, "scan_broadcast", l));
    call_free(&k);
  }
}

/* ------------------------------------------------------------ @strided views */

/* A view [R, C] of kind: 0 row-major (no --stride: tile2cu run takes the
 * array's own strides), 1 transposed (the buffer holds the [C, R] transpose
 * row-major), 2 sliced (rows C + 3 apart), 3 sliced with rows a multiple of
 * 4 (and of 8) apart, so that the 16-byte body may run, 4 every other
 * column of such rows (an innermost stride of 2: only the test of the
 * innermost stride keeps the 16-byte body out). Sets the strides; returns
 * the elements of the buffer the view lies in. */
static long long view_strides(int kind, long long R, long long C, long long *s0, long long *s1) {
  switch (kind) {
  case 0: *s0 = C, *s1 = 1; return R * C;
  case 1: *s0 = 1, *s1 = R; return R * C;
  case 2: *s0 = C + 3, *s1 = 1; return R * (C + 3);
  case 3: *s0 = (C + 7) / 8 * 8 + 8, *s1 = 1; return R * *s0;
  default: *s0 = (2 * C + 7) / 8 * 8, *s1 = 2; return R * *s0;
  }
}
static const char *const view_kind[] = {"row-major", "transposed", "sliced", "sliced+aligned", "every other column"};

/* The view's tensor: the [R, C] array itself (kind 0), or the flat buffer with --stride. */
static Ten *view_ten(Call *k, const char *name, Dt dt, bool out, int kind, long long R, long long C, long long *s0,
                     long long *s1) {
  long long n = view_strides(kind, R, C, s0, s1);
  Ten *t = out ? call_out(k, name, dt, kind ? 1 : 2, kind ? SHAPE(n) : SHAPE(R, C))
               : call_in(k, name, dt, kind ? 1 : 2, kind ? SHAPE(n) : SHAPE(R, C));
  if (kind) {
    call_arg(k, "--stride");
    call_arg(k, "%s=%lld,%lld", name, *s0, *s1);
  }
  return t;
}
#define AV(t, i, j, s0, s1) ((t)->v[(long long)(i) * (s0) + (long long)(j) * (s1)])
#define RV(t, i, j, s0, s1) ((t)->ref[(long long)(i) * (s0) + (long long)(j) * (s1)])

/* strided_ew: Y = X * alpha + Z over views X and Y at ragged sizes; the
 * buffer's elements outside Y's view must keep their poison. */
static void t_strided_ew(Tally *T) {
  static const int C[][4] = {{37, 50, 1, 2}, {64, 64, 3, 3}, {5, 3, 2, 1}, {16, 128, 0, 0}, {33, 70, 3, 1}, {20, 96, 1, 3},
                                 {32, 64, 4, 4}, {9, 40, 4, 0}};
  for (int c = 0; c < 8; c++) {
    int M = C[c][0], N = C[c][1], kx = C[c][2], ky = C[c][3];
    long long xs0, xs1, ys0, ys1;
    Rng r = rng_seed("strided_ew", (uint64_t)c);
    Call k;
    call_init(&k, "strided_ew.tl", "strided_ew");
    Ten *X = view_ten(&k, "X", F32, false, kx, M, N, &xs0, &xs1);
    Ten *Z = call_in(&k, "Z", F32, 2, SHAPE(M, N));
    Ten *Y = view_ten(&k, "Y", F32, true, ky, M, N, &ys0, &ys1);
    call_arg(&k, "alpha=1.5");
    fill_uniform(X, &r, -2, 2);
    fill_uniform(Z, &r, -2, 2);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) RV(Y, i, j, ys0, ys1) = AV(X, i, j, xs0, xs1) * 1.5 + A2(Z, i, j);
    char l[96];
    label(l, sizeof l, "M=%d N=%d X %s, Y %s", M, N, view_kind[kx], view_kind[ky]);
    CHECK(T, call_check(&k, "strided_elementwise", l));
    call_free(&k);
  }
}

/* strided_rowsum: a row reduction of a view X into a strided column S. */
static void t_strided_rowsum(Tally *T) {
  static const int C[][4] = {{37, 200, 1, 2}, {64, 128, 3, 0}, {5, 3, 2, 2}, {16, 1000, 1, 1}, {50, 64, 0, 2}, {24, 128, 4, 4}};
  for (int c = 0; c < 6; c++) {
    int M = C[c][0], N = C[c][1], kx = C[c][2], ks = C[c][3];
    long long xs0, xs1, ss0, ss1;
    Rng r = rng_seed("strided_rowsum", (uint64_t)c);
    Call k;
    call_init(&k, "strided_rowsum.tl", "strided_rowsum");
    Ten *X = view_ten(&k, "X", F32, false, kx, M, N, &xs0, &xs1);
    Ten *S = view_ten(&k, "S", F32, true, ks, M, 1, &ss0, &ss1);
    call_arg(&k, "M=%d", M);
    call_arg(&k, "N=%d", N);
    fill_uniform(X, &r, -2, 2);
    for (int i = 0; i < M; i++) {
      double s = 0;
      for (int j = 0; j < N; j++) s += AV(X, i, j, xs0, xs1);
      RV(S, i, 0, ss0, ss1) = s;
    }
    char l[96];
    label(l, sizeof l, "M=%d N=%d X %s, S %s", M, N, view_kind[kx], view_kind[ks]);
    CHECK(T, call_check(&k, "strided_rowsum", l));
    call_free(&k);
  }
}

/* strided_dot / strided_dot_f32 / strided_dot_rowsum: C = A B with B a view (on
 * tensor cores with @pipeline, an f32 dot on the CUDA cores, and that over one
 * warp with a tall u32 row sum). */
static void t_strided_dot_one(Tally *T, int mode, int c, int M, int N, int K, int kb) {
  long long bs0, bs1;
  bool f32 = mode > 0;
  const char *name = mode == 2 ? "strided_dot_rowsum" : f32 ? "strided_dot_f32" : "strided_dot";
  Rng r = rng_seed(name, (uint64_t)c);
  Call k;
  call_init(&k, mode == 2 ? "strided_dot_rowsum.tl" : f32 ? "strided_dot_f32.tl" : "strided_dot.tl", name);
  Ten *A = call_in(&k, "A", f32 ? F32 : F16, 2, SHAPE(M, K));
  Ten *B = view_ten(&k, "B", f32 ? F32 : F16, false, kb, K, N, &bs0, &bs1);
  Ten *Cm = call_out(&k, "C", F32, 2, SHAPE(M, N));
  if (mode == 2) {
    Ten *I = call_in(&k, "I", U32, 2, SHAPE(128, 256));
    Ten *L = call_out(&k, "L", U32, 2, SHAPE(128, 1));
    fill_int(I, &r, 0, 4000000000LL);
    for (int i = 0; i < 128; i++) {
      uint32_t s = 0;
      for (int j = 0; j < 256; j++) s += (uint32_t)A2(I, i, j);
      R2(L, i, 0) = s;
    }
  }
  fill_uniform(A, &r, -1, 1);
  fill_uniform(B, &r, -1, 1);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * AV(B, kk, j, bs0, bs1);
      R2(Cm, i, j) = s;
    }
  Cm->tol = 1e-5; /* f16 products are exact in f32 */
  char l[96];
  label(l, sizeof l, "M=%d N=%d K=%d B %s", M, N, K, view_kind[kb]);
  CHECK(T, call_check(&k, name, l));
  call_free(&k);
}
static void t_strided_dot(Tally *T) {
  static const int C[][4] = {{37, 50, 200, 1}, {64, 64, 64, 3}, {5, 3, 7, 2}, {33, 32, 100, 0}, {70, 40, 96, 1}, {64, 64, 64, 4}};
  for (int c = 0; c < 6; c++) t_strided_dot_one(T, 0, c, C[c][0], C[c][1], C[c][2], C[c][3]);
}
static void t_strided_dot_f32(Tally *T) {
  static const int C[][4] = {{37, 100, 200, 1}, {64, 64, 48, 2}, {5, 3, 7, 1}, {64, 64, 48, 3}};
  for (int c = 0; c < 4; c++) t_strided_dot_one(T, 1, c, C[c][0], C[c][1], C[c][2], C[c][3]);
  for (int c = 0; c < 3; c++) t_strided_dot_one(T, 2, c, C[c][0], C[c][1], C[c][2], C[c][3]);
}

/* strided_epilogue: C = A B into an f16 view C (staged through shared memory in the
 * fast body, C_stride1 == 1 and C_stride0 % 8 == 0; element by element at both strides
 * otherwise); the buffer's elements outside the view keep their poison. */
static void t_strided_epilogue(Tally *T) {
  static const int C[][4] = {{130, 200, 96, 3}, {37, 50, 40, 1}, {128, 128, 64, 0}, {70, 136, 32, 2}, {64, 64, 48, 4}};
  for (int c = 0; c < 5; c++) {
    int M = C[c][0], N = C[c][1], K = C[c][2], kc = C[c][3];
    long long cs0, cs1;
    Rng r = rng_seed("strided_epilogue", (uint64_t)c);
    Call k;
    call_init(&k, "strided_epilogue.tl", "strided_epilogue");
    Ten *A = call_in(&k, "A", F16, 2, SHAPE(M, K));
    Ten *B = call_in(&k, "B", F16, 2, SHAPE(K, N));
    Ten *Cv = view_ten(&k, "C", F16, true, kc, M, N, &cs0, &cs1);
    fill_uniform(A, &r, -1, 1);
    fill_uniform(B, &r, -1, 1);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int kk = 0; kk < K; kk++) s += A2(A, i, kk) * A2(B, kk, j);
        RV(Cv, i, j, cs0, cs1) = s;
      }
    Cv->tol = 1e-3;
    char l[96];
    label(l, sizeof l, "M=%d N=%d K=%d C %s", M, N, K, view_kind[kc]);
    CHECK(T, call_check(&k, "strided_epilogue", l));
    call_free(&k);
  }
}

/* strided_t3: a rank-3 view: the [P, M, N] view of an [N, P, M] array
 * (strides M, 1, P * M), or planes and rows with gaps (strides (M + 1) * ld,
 * ld, 1 with ld = N + 2, or ld a multiple of 8 for the 16-byte body). */
static void t_strided_t3(Tally *T) {
  static const int C[][4] = {{3, 37, 50, 0}, {2, 16, 64, 1}, {4, 5, 3, 1}, {2, 20, 72, 2}};
  for (int c = 0; c < 4; c++) {
    long long P = C[c][0], M = C[c][1], N = C[c][2], kind = C[c][3], s[3], n;
    if (kind == 0) s[0] = M, s[1] = 1, s[2] = P * M, n = P * M * N;
    else {
      long long ld = kind == 1 ? N + 2 : (N + 7) / 8 * 8 + 8;
      s[0] = (M + 1) * ld, s[1] = ld, s[2] = 1, n = P * s[0];
    }
    Rng r = rng_seed("strided_t3", (uint64_t)c);
    Call k;
    call_init(&k, "strided_t3.tl", "strided_t3");
    Ten *X = call_in(&k, "X", F32, 1, SHAPE(n));
    Ten *Y = call_out(&k, "Y", F32, 3, SHAPE(P, M, N));
    call_arg(&k, "--stride");
    call_arg(&k, "X=%lld,%lld,%lld", s[0], s[1], s[2]);
    fill_uniform(X, &r, -2, 2);
    for (long long p = 0; p < P; p++)
      for (long long i = 0; i < M; i++)
        for (long long j = 0; j < N; j++)
          Y->ref[(p * M + i) * N + j] = X->v[p * s[0] + i * s[1] + j * s[2]] * 2.0 + X->v[p * s[0] + (N - 1) * s[2]];
    char l[96];
    label(l, sizeof l, "P=%lld M=%lld N=%lld %s", P, M, N, kind == 0 ? "permuted" : kind == 1 ? "gaps" : "gaps, aligned");
    CHECK(T, call_check(&k, "strided_rank3", l));
    call_free(&k);
  }
}

/* tile2cu run refuses --stride on a tensor outside @strided, and a view
 * whose last element lies past its buffer. */
static void t_strided_reject(Tally *T) {
  long long s0, s1;
  Call k;
  call_init(&k, "strided_ew.tl", "strided_ew");
  Ten *X = view_ten(&k, "X", F32, false, 0, 5, 7, &s0, &s1);
  Ten *Z = call_in(&k, "Z", F32, 2, SHAPE(5, 7));
  view_ten(&k, "Y", F32, true, 0, 5, 7, &s0, &s1);
  call_arg(&k, "alpha=1");
  call_arg(&k, "--stride");
  call_arg(&k, "Z=7,1");
  for (long long i = 0; i < X->n; i++) X->v[i] = Z->v[i] = 1;
  CHECK(T, call_expect_fail(&k, "strided_reject", "--stride of a tensor not in @strided", "tensor Z is not in @strided"));
  call_free(&k);
  call_init(&k, "strided_ew.tl", "strided_ew");
  X = call_in(&k, "X", F32, 1, SHAPE(5 * 9 - 3)); /* rows 9 apart: the last element is at 4 * 9 + 6 = 42, one past */
  call_arg(&k, "--stride");
  call_arg(&k, "X=9,1");
  Z = call_in(&k, "Z", F32, 2, SHAPE(5, 7));
  view_ten(&k, "Y", F32, true, 0, 5, 7, &s0, &s1);
  call_arg(&k, "alpha=1");
  for (long long i = 0; i < X->n; i++) X->v[i] = 1;
  for (long long i = 0; i < Z->n; i++) Z->v[i] = 1;
  CHECK(T, call_expect_fail(&k, "strided_reject", "a view past its buffer", "the view's last element is at index 42, but X's file holds 42 elements"));
  call_free(&k);
}

/* scalar_range: a scalar outside its type's range is refused by tile2cu run (exit 2)
 * before the launch, not wrapped (3000000000 for the i32 n of loop_bounds.tl). */
static void t_scalar_range(Tally *T) {
  Call k;
  call_init(&k, "loop_bounds.tl", "loop_bounds");
  Ten *X = call_in(&k, "X", F32, 2, SHAPE(4, 8));
  call_out(&k, "O", F32, 2, SHAPE(4, 64));
  call_arg(&k, "n=3000000000");
  for (long long i = 0; i < X->n; i++) X->v[i] = 1;
  CHECK(T, call_expect_fail(&k, "scalar_range", "n=3000000000 (i32)", "outside [-2147483648, 2147483647], the range of i32"));
  call_free(&k);
}

/* ------------------------------------------------------------ the table */

typedef struct Test { const char *name; void (*fn)(Tally *); } Test;
static const Test tests[] = {
    {"examples/squares", t_squares},
    {"examples/softmax", t_softmax},
    {"examples/softmax_row", t_softmax_row},
    {"examples/layernorm_row", t_layernorm_row},
    {"examples/layernorm_row_past_its_row", t_layernorm_row_past},
    {"examples/gemm_f32", t_gemm_f32},
    {"examples/layernorm", t_layernorm},
    {"examples/gemm_f16", t_gemm_f16},
    {"examples/gemm_bf16", t_gemm_bf16},
    {"examples/gemm_f16_256", t_gemm_f16_256},
    {"examples/gemm_bf16_256", t_gemm_bf16_256},
    {"examples/gemm_i8", t_gemm_i8},
    {"examples/attention", t_attention},
    {"examples/attention_causal", t_attention_causal},
    {"attention_rows", t_attention_rows},
    {"attention_rows_causal", t_attention_rows_causal},
    {"examples/attention_f16", t_attention_f16},
    {"examples/attention_f16_causal", t_attention_f16_causal},
    {"examples/attention_f16_bq192", t_attention_f16_bq192},
    {"examples/attention_f16_bq192_causal", t_attention_f16_bq192_causal},
    {"examples/reduce", t_reduce},
    {"chunk_loop", t_chunk_loop},
    {"elementwise_f32", t_ew_f32},
    {"elementwise_i32", t_ew_i32},
    {"math_f32", t_math},
    {"math_round", t_math_round},
    {"rand_randn_randint", t_rand},
    {"casts", t_casts},
    {"neg_literal", t_neg_literal},
    {"name_c0", t_name_c0},
    {"untyped_int", t_untyped_int},
    {"reduce_rows_shared", t_red_rows},
    {"strided_elementwise", t_strided_ew},
    {"strided_rowsum", t_strided_rowsum},
    {"strided_dot", t_strided_dot},
    {"strided_dot_f32", t_strided_dot_f32},
    {"strided_epilogue", t_strided_epilogue},
    {"strided_rank3", t_strided_t3},
    {"strided_reject", t_strided_reject},
    {"vec_load", t_vec_load},
    {"mma_shared", t_mma_shared},
    {"epilogue_loop", t_epilogue_loop},
    {"reduce_cols_shared", t_red_cols},
    {"reduce_cols_padded_rows", t_red_cols_pad},
    {"pad_repeats", t_pad_repeats},
    {"reduce_deferred", t_red_deferred},
    {"reduce_cols_types", t_red_cols_types},
    {"reduce_cols_dot", t_red_cols_dot},
    {"reduce_sum_scalar", t_red_all},
    {"sum_pair", t_sum_pair},
    {"carry_registers", t_carry_registers},
    {"reshape_slice", t_reshape_slice},
    {"bounds_forms", t_bounds_forms},
    {"rings_share", t_rings_share},
    {"division_row", t_division_row},
    {"math_row", t_math_row},
    {"gemv_reshape", t_gemv_reshape},
    {"red_nan", t_red_nan},
    {"persistent_gemm", t_persistent_gemm},
    {"casts_bf16_int", t_casts_bf16_int},
    {"copy_two_loops", t_copy_two_loops},
    {"reduce_i32_shared", t_red_i32},
    {"reduce_types", t_red_types},
    {"reduce_shapes", t_red_shapes},
    {"shared_home", t_shared_home},
    {"big_acc", t_big_acc},
    {"ir_more", t_ir_more},
    {"while_continue", t_while_continue},
    {"smem_reuse", t_smem_reuse},
    {"ir_more_sums", t_ir_more2},
    {"ir_more_layouts", t_ir_more3},
    {"ir_more_narrow", t_ir_more4},
    {"tall_rows", t_ir_more5},
    {"dot_cuda_cores", t_dot_cuda_cores},
    {"reduce_registers_f32", t_regs16},
    {"reduce_registers_i32_w32", t_regs32},
    {"dot_f16", t_dot_f16},
    {"dot_bf16", t_dot_bf16},
    {"dot_f32_shared_acc", t_dot_f32_shared},
    {"dot_transposed_b", t_dot_abt},
    {"dot_i8", t_dot_i8},
    {"atomics", t_atomics},
    {"atomics_loop", t_atomics_loop},
    {"atomics_argmin", t_atomics_argmin},
    {"atomics_u8", t_atomics_u8},
    {"reg_bcast_mma", t_reg_bcast_mma},
    {"neg_offset", t_neg_offset},
    {"else_copy", t_else_copy},
    {"loop_bounds", t_loop_bounds},
    {"ring_bounds", t_ring_bounds},
    {"simt_dot_wg", t_simt_dot_wg},
    {"dot_i8_pipelined", t_dot_i8_pipelined},
    {"slice_rmw", t_slice_rmw},
    {"dot_bcast", t_dot_bcast},
    {"dot_vector", t_dot_vector},
    {"dot_vecmat", t_dot_vecmat},
    {"dot_window_vec", t_dot_window_vec},
    {"index_i64", t_index_i64},
    {"gather_runs", t_gather_runs},
    {"mixed_runs", t_mixed_runs},
    {"gather_dot", t_gather_dot},
    {"gather_acc_shape_i8", t_gather_acc_shape_i8},
    {"gather_acc_shape_f16", t_gather_acc_shape_f16},
    {"gather_operand", t_gather_operand},
    {"pipeline_index_var", t_pipeline_index_var_plain},
    {"pipeline_index_var_kept", t_pipeline_index_var_kept},
    {"pipeline_index_before", t_pipeline_index_before},
    {"pipeline_gather_chain", t_pipeline_gather_chain},
    {"pipeline_var_partial", t_pipeline_var_partial},
    {"pipeline_var_chain", t_pipeline_var_chain},
    {"runs_scaled_start", t_runs_scaled_start},
    {"pipeline_gather_var", t_pipeline_gather_var},
    {"registers_fills_rolled", t_registers_fills_rolled},
    {"pipeline_invariant", t_pipeline_invariant},
    {"spill_twice", t_spill_twice},
    {"pipeline_gather_reshape", t_pipeline_gather_reshape},
    {"wg_rolled_fills", t_wg_rolled_fills},
    {"int_reassoc", t_int_reassoc},
    {"dots_share_a", t_dots_share_a},
    {"dots_share_a3", t_dots_share_a3},
    {"grid_stride", t_grid_stride},
    {"staged_store_branches", t_staged_store_branches},
    {"scatter_store_staged", t_scatter_store_staged},
    {"scatter_store_staged_var", t_scatter_store_staged_var},
    {"remainder_start", t_remainder_start},
    {"conv_implicit", t_conv_implicit},
    {"scaled_scale_row", t_scaled_scale_row},
    {"pipeline_computed_index", t_pipeline_computed_index},
    {"lse_merge_pad", t_lse_merge_pad},
    {"reshape_row_max", t_reshape_row_max},
    {"reshape_slice_rows", t_reshape_slice_rows},
    {"rows_var_recomputed", t_rows_var_recomputed},
    {"rows_var_kept", t_rows_var_kept},
    {"mixed_runs_dot", t_mixed_runs_dot},
    {"gather_run_var", t_gather_run_var},
    {"element_read_once", t_element_read_once},
    {"byte_runs", t_byte_runs},
    {"wgmma_two_rega", t_wgmma_two_rega},
    {"paged_decode", t_paged_decode},
    {"paged_pipeline", t_paged_pipeline},
    {"rank1_col", t_rank1_col},
    {"carry_fold", t_carry_fold},
    {"carry_dot", t_carry_dot},
    {"arg_value", t_arg_value},
    {"carry_per_column", t_carry_per_column},
    {"epilogue_after_loop", t_epilogue_after_loop},
    {"copy_halves", t_copy_halves},
    {"row_walk", t_row_walk},
    {"conv_before_loop", t_conv_before_loop},
    {"conv_written_loop", t_conv_written_loop},
    {"conv_reuse", t_conv_reuse},
    {"elem_everywhere", t_elem_everywhere},
    {"atomic_zeros", t_atomic_zeros},
    {"rank_mix", t_rank_mix},
    {"rank_mix_unit", t_rank_mix_unit},
    {"scatter_col_value", t_scatter_col_value},
    {"rank_mix_assign", t_rank_mix_assign},
    {"where_uniform", t_where_uniform},
    {"where_mask_var", t_where_mask_var},
    {"gather_scatter", t_gather},
    {"index_arith", t_index_arith},
    {"reshape", t_reshape},
    {"dot_f16_transposed_b", t_dot_f16_abt},
    {"pipeline_transpose", t_pipeline_transpose},
    {"dot_bf16_transposed_a", t_dot_bf16_atb},
    {"dot_wgmma_forms", t_dot_wgmma_forms},
    {"wgmma_register_a", t_wgmma_register_a},
    {"tma_batched", t_tma_batched},
    {"tma_store_batched", t_tma_store_batched},
    {"dot_i8_forms", t_dot_i8_forms},
    {"f8_storage", t_f8},
    {"f8_literals", t_f8_literals},
    {"literal_types", t_literal_types},
    {"int8_arith", t_int8_arith},
    {"cast_saturate", t_cast_saturate},
    {"pipeline_reload", t_pipeline_reload},
    {"dequant_pipelined", t_dequant_pipelined},
    {"packed_rings", t_packed_rings},
    {"ring_rotate", t_ring_rotate},
    {"loop_start_if", t_loop_start_if},
    {"ring_rotate_rows", t_ring_rotate_rows},
    {"rings_min_blocks", t_rings_min_blocks},
    {"residual_epilogue", t_residual_epilogue},
    {"inplace_epilogue", t_inplace_epilogue},
    {"loop_end_min", t_loop_end_min},
    {"scatter_halves", t_scatter_halves},
    {"online_lse", t_online_lse},
    {"online_lse_cols", t_online_lse_cols},
    {"online_lse_f64", t_online_lse_f64},
    {"online_sum", t_online_sum},
    {"dot_operand_reduced", t_dot_operand_reduced},
    {"index_value", t_index_value},
    {"pipeline_padded", t_pipeline_padded},
    {"pipeline_nested", t_pipeline_nested},
    {"pipeline_rotated", t_pipeline_rotated},
    {"splitk", t_splitk},
    {"atomic_runs", t_atomic_runs},
    {"epilogue_bias", t_epilogue_bias},
    {"gemm_bias_res", t_gemm_bias_res},
    {"inplace", t_inplace},
    {"inplace_loop", t_inplace_loop},
    {"decode", t_decode},
    {"rope", t_rope},
    {"loop_last", t_loop_last},
    {"defer_dot", t_defer_dot},
    {"launch_min_blocks", t_launch_min_blocks},
    {"scalar_range", t_scalar_range},
    {"dot_f8", t_dot_f8},
    {"dot_scaled", t_dot_scaled},
    {"operand_home", t_operand_home},
    {"dot_in_expression", t_dot_in_expr},
    {"dot_register_a_carried", t_dot_regs_a},
    {"transpose", t_transpose},
    {"transpose_windows", t_transpose_windows},
    {"causal_softmax", t_causal},
    {"pad_rows_cols", t_pad},
    {"scalar_control_flow", t_control},
    {"tile_control_flow", t_tile_control},
    {"tensor_1d", t_t1d},
    {"tensor_3d", t_t3d},
    {"tensor_4d", t_t4d},
    {"assume", t_assume},
    {"assume_loop_start", t_assume_loop_start},
    {"partial_tile_writes", t_partial},
    {"halo", t_halo},
    {"row_shift", t_row_shift},
    {"two_dot", t_two_dot},
    {"window_reduction", t_window_reduction},
    {"window_rmw", t_window_rmw},
    {"window_same_coords", t_window_same_coords},
    {"window_var_recompute", t_window_var_recompute},
    {"copy_before_loop", t_copy_before_loop},
    {"carry_sum", t_carry_sum},
    {"red_grouped", t_red_grouped},
    {"carry_scalar", t_carry_scalar},
    {"halo_pipeline", t_halo_pipeline},
    {"loop_end_min_chunks", t_loop_end_min_chunks},
    {"block_quotient", t_block_quotient},
    {"fastdiv_loop", t_fastdiv_loop},
    {"wide_block_reduce", t_wide_block_reduce},
    {"carry_sum_rows", t_carry_sum_rows},
    {"carry_cols", t_carry_cols},
    {"carry_gather", t_carry_gather},
    {"tiny_rows", t_tiny_rows},
    {"bcast_everywhere", t_bcast_everywhere},
    {"carry_rank1", t_carry_rank1},
    {"carry_nested", t_carry_nested},
    {"carry_while", t_carry_while},
    {"slice_at_param", t_slice_at_param},
    {"registers_through_loops", t_ema},
    {"pipeline_registers", t_pipe_rows},
    {"store_region_only", t_region},
    {"ctx_fields", t_ctx},
    {"tensor_read_modify_write", t_rmw},
    {"tensor_read_modify_write_runs", t_rmw_runs},
    {"dynamic_shared_memory", t_dynamic},
    {"registers_softmax", t_regs_softmax},
    {"pipeline3_dot_f16", t_pipeline3},
    {"tile_loops_partial_writes", t_tile_loops},
    {"multi_kernel_file", t_multi},
    {"argmax_rows_f32", t_arg_rows},
    {"topk_rows", t_topk_rows},
    {"scan_rows_f32", t_scan_rows},
    {"scan_cols_f32", t_scan_cols},
    {"scan_cols_warp_tiles", t_scan_cols_warp_tiles},
    {"scan_cols_home", t_scan_cols_home},
    {"window_home", t_window_home},
    {"where_index_vars", t_where_index_vars},
    {"where_store", t_where_store},
    {"window_home_rows", t_window_home_rows},
    {"scan_types", t_scan_types},
    {"scan_dot_accumulator", t_scan_dot},
    {"scan_broadcast", t_scan_broadcast},
    {"argmax_cols_f32", t_arg_cols},
    {"argmax_cols_types", t_arg_cols_types},
    {"reduce_cols_of_a_row_value", t_red_col_of_rows},
    {"colmax_column_scalar", t_colmax_column_scalar},
    {"argmax_types", t_arg_types},
    {"argmax_dot_accumulator", t_arg_dot},
};
#define NTESTS ((int)(sizeof tests / sizeof tests[0]))

/* ------------------------------------------------------------ the runner */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Runs `tile2cu run --backend gpu` on a tiny kernel; false when it fails
 * saying that the backend or the device is unavailable (any other failure
 * counts as available: the tests then fail and show why). */
static bool gpu_available(char *why, size_t n) {
  Call k;
  Rng r = rng_seed("probe", 0);
  call_init(&k, "t1d.tl", "t1d");
  Ten *X = call_in(&k, "X", F32, 1, SHAPE(4));
  call_out(&k, "Y", F32, 1, SHAPE(4));
  fill_uniform(X, &r, -1, 1);
  call_arg(&k, "scale=1");
  char dir[4200], log[4300];
  snprintf(dir, sizeof dir, "%s/gpu-probe", h_tmpdir);
  mkdir(dir, 0755);
  snprintf(log, sizeof log, "%s/log.txt", dir);
  char tl[4200], xa[4300], ya[4300];
  snprintf(tl, sizeof tl, "%s/t1d.tl", h_tldir);
  snprintf(xa, sizeof xa, "X=%s/X.npy", dir);
  snprintf(ya, sizeof ya, "Y=%s/Y.npy", dir);
  h_write_input(xa + 2, X);
  pid_t p = fork();
  if (p == 0) {
    FILE *f = freopen(log, "w", stdout);
    (void)f;
    dup2(1, 2);
    execl(h_tile2cu, h_tile2cu, "run", tl, "--kernel", "t1d", "--backend", "gpu", "--schedules", "1", xa, ya, "scale=1",
          (char *)NULL);
    _exit(127);
  }
  int st = 0;
  waitpid(p, &st, 0);
  bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  why[0] = 0;
  bool unavailable = false;
  FILE *f = fopen(log, "r");
  if (f) {
    static const char *says[] = {"not available", "unavailable", "no cuda", "no gpu", "no device", "no usable"};
    char line[1024];
    while (fgets(line, sizeof line, f)) {
      line[strcspn(line, "\n")] = 0;
      for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        if (strcasestr(line, says[i]) && !unavailable) {
          unavailable = true;
          snprintf(why, n, "%s", line);
        }
    }
    fclose(f);
  }
  call_free(&k);
  return ok || !unavailable;
}

int main(int argc, char **argv) {
  int jobs = 2;
  bool timeout_given = false;
  const char *only[64];
  int nonly = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool v = i + 1 < argc;
    if (!strcmp(a, "--backend") && v) h_backend = argv[++i];
    else if (!strcmp(a, "--tile2cu") && v) h_tile2cu = argv[++i];
    else if (!strcmp(a, "--dir") && v) h_tldir = argv[++i];
    else if (!strcmp(a, "--examples") && v) examples_dir = argv[++i];
    else if (!strcmp(a, "--schedules") && v) h_schedules = atoi(argv[++i]);
    else if (!strcmp(a, "--target") && v) h_target = argv[++i];
    else if (!strcmp(a, "--skip-same-as") && v) h_skip_same = argv[++i];
    else if (!strcmp(a, "--timeout") && v) h_timeout = atoi(argv[++i]), timeout_given = true;
    else if (!strcmp(a, "-j") && v) jobs = atoi(argv[++i]);
    else if (!strcmp(a, "-v")) h_verbose = true;
    else if (a[0] == '-') {
      fprintf(stderr, "usage: %s [--backend sim|gpu] [--tile2cu PATH] [--dir TLDIR] [--examples DIR] [-j N] [--schedules N] [--target T [--skip-same-as T0]] [--timeout S] [-v] [TEST ...]\n", argv[0]);
      return 2;
    } else if (nonly < 64) only[nonly++] = a;
  }
  if (jobs < 1) jobs = 1;
  /* on a GPU a kernel that hangs would stop the whole suite: each case gets 120 s unless
   * --timeout says otherwise (0: none); the CPU backend reports its own deadlocks */
  if (!timeout_given && strcmp(h_backend, "sim") != 0) h_timeout = 120;
  char abs_ex[4096];
  if (!realpath(examples_dir, abs_ex)) {
    fprintf(stderr, "gpu-tests: no examples directory %s\n", examples_dir);
    return 2;
  }
  static const char *exs[] = {"squares.tl",  "softmax.tl",  "gemm_f32.tl",   "layernorm.tl",
                              "gemm_f16.tl", "gemm_bf16.tl", "attention.tl", "reduce.tl",
                              "attention_f16.tl", "softmax_row.tl", "gemm_i8.tl", "gemm_f16_256.tl",
                              "gemm_bf16_256.tl", "layernorm_row.tl"};
  for (int i = 0; i < 14; i++) snprintf(ex_path[i], sizeof ex_path[i], "%s/%s", abs_ex, exs[i]);
  static char abs_tl[4096];
  if (!realpath(h_tldir, abs_tl)) {
    fprintf(stderr, "gpu-tests: no test directory %s\n", h_tldir);
    return 2;
  }
  h_tldir = abs_tl;
  static char tmpl[4096];
  const char *td = getenv("TMPDIR");
  snprintf(tmpl, sizeof tmpl, "%s/tile2cu-gpu-tests-XXXXXX", td && *td ? td : "/tmp");
  if (!mkdtemp(tmpl)) {
    perror("mkdtemp");
    return 2;
  }
  h_tmpdir = tmpl;

  if (strcmp(h_backend, "sim") != 0) {
    char why[512];
    if (!gpu_available(why, sizeof why)) {
      printf("tests/gpu: skipped: no GPU backend/device (%s)\n", why);
      char cmd[4200];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", h_tmpdir);
      if (system(cmd)) {}
      return 0;
    }
  }

  int sel[NTESTS], nsel = 0;
  for (int i = 0; i < NTESTS; i++) {
    bool want = nonly == 0;
    for (int j = 0; j < nonly; j++) want |= strstr(tests[i].name, only[j]) != NULL;
    if (want) sel[nsel++] = i;
  }
  printf("tests/gpu: %d tests on the %s backend, %d schedules, %d jobs\n", nsel, h_backend, h_schedules, jobs);
  fflush(stdout);
  double t0 = now();
  pid_t pids[NTESTS];
  int status[NTESTS];
  bool done[NTESTS];
  char outf[NTESTS][4300];
  int next = 0, running = 0, printed = 0;
  memset(done, 0, sizeof done);
  while (printed < nsel) {
    while (running < jobs && next < nsel) {
      int t = sel[next];
      snprintf(outf[next], sizeof outf[next], "%s/out-%d.txt", h_tmpdir, next);
      fflush(stdout);
      pid_t p = fork();
      if (p == 0) {
        if (!freopen(outf[next], "w", stdout)) _exit(3);
        Tally ta = {0, 0};
        double s = now();
        tests[t].fn(&ta);
        printf("    (%s: %d cases, %.1f s)\n", tests[t].name, ta.run - h_same, now() - s);
        if (h_same) printf("    [same %d]\n", h_same);
        fflush(stdout);
        _exit(ta.failed ? 1 : 0);
      }
      pids[next++] = p;
      running++;
    }
    int st;
    pid_t p = wait(&st);
    if (p < 0) break;
    for (int i = 0; i < next; i++)
      if (pids[i] == p) done[i] = true, status[i] = st, running--;
    while (printed < next && done[printed]) {
      FILE *f = fopen(outf[printed], "r");
      char line[4096];
      while (f && fgets(line, sizeof line, f)) {
        if ((!h_verbose && strncmp(line, "    (", 5) == 0) || strncmp(line, "    [same ", 10) == 0) continue;
        fputs(line, stdout);
      }
      if (f) fclose(f);
      printed++;
    }
    fflush(stdout);
  }
  int failed_tests = 0, cases = 0, failed_cases = 0, same = 0;
  for (int i = 0; i < nsel; i++) {
    FILE *f = fopen(outf[i], "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
      int k;
      if (sscanf(line, "    [same %d]", &k) == 1) same += k;
      if (strncmp(line, "  ", 2) || !strncmp(line, "    ", 4)) continue;
      cases++;
      if (strstr(line, " FAIL ") || strstr(line, " FAIL\n")) failed_cases++;
    }
    if (f) fclose(f);
    bool bad = !WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0;
    if (bad && WIFSIGNALED(status[i]))
      printf("  %s: the harness died with signal %d\n", tests[sel[i]].name, WTERMSIG(status[i]));
    failed_tests += bad;
  }
  double el = now() - t0;
  printf("tests/gpu: %d cases, %d failed (%d of %d tests); %.1f s on the %s backend\n", cases, failed_cases, failed_tests,
         nsel, el, h_backend);
  if (h_skip_same[0])
    printf("tests/gpu: %d more cases not run for %s: the same code as for %s (its pass runs them)\n", same, h_target,
           h_skip_same);
  if (!failed_tests) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", h_tmpdir);
    if (system(cmd)) {}
  }
  return failed_tests ? 1 : 0;
}
