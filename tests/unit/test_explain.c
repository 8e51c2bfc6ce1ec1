/* test_explain.c: --explain, the .cu header and KernelInfo give the same shared
 * bytes, @pipeline rings included (issue 11: the explanation said 4096 where
 * the header said 10240). Tests run from the repo root. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "t2c.h"

static Arena ex_arena;
static Buf ex_out;
static char *ex_explain, *ex_diag;
static Program *ex_prog;

static void ex_teardown(void) {
  arena_free(&ex_arena);
  memset(&ex_arena, 0, sizeof ex_arena);
  buf_free(&ex_out);
  memset(&ex_out, 0, sizeof ex_out);
  free(ex_explain);
  free(ex_diag);
  ex_explain = ex_diag = NULL;
}

/* translate() with --explain on target; the explanation into ex_explain. */
static int ex_translate(const char *target, const char *src) {
  static TargetConfig t;
  char path[64], err[256];
  snprintf(path, sizeof path, "configs/%s.yaml", target);
  cr_assert(config_load(path, &t, err, sizeof err), "%s", err);
  size_t elen, dlen;
  FILE *ef = open_memstream(&ex_explain, &elen), *df = open_memstream(&ex_diag, &dlen);
  EmitOptions eo = {.file = "t.tl", .explain = true, .explain_out = ef};
  int st = translate("t.tl", src, &t, &eo, &ex_out, df, &ex_prog, &ex_arena);
  fclose(ef);
  fclose(df);
  return st;
}

static const SharedTile *shared_named(KernelInfo *ki, const char *cname) {
  for (int i = 0; i < ki->nshared; i++)
    if (strcmp(ki->shared[i].name, cname) == 0) return &ki->shared[i];
  cr_assert_fail("KernelInfo lists no shared buffer %s", cname);
  return NULL;
}

/* The number after prefix in text (the first line holding prefix), or -1. */
static int64_t number_after(const char *text, const char *prefix) {
  const char *p = strstr(text, prefix);
  return p ? strtoll(p + strlen(prefix), NULL, 10) : -1;
}

/* The bytes the header comment gives buffer cname: "//   x: shared, f32[16, 32], N bytes". */
static int64_t header_bytes(const char *cname) {
  char key[64];
  snprintf(key, sizeof key, "//   %s: shared, ", cname);
  const char *p = strstr(ex_out.data, key);
  cr_assert(p, "no header line for %s:\n%s", cname, ex_out.data);
  p = strstr(p, "], ");
  cr_assert(p);
  return strtoll(p + 3, NULL, 10);
}

/* A buffer's bytes and stages as --explain states them:
 * "  x_s: shared, N bytes at O: S stages of x, ..." (stages 1 when it is no ring). */
static void explained_buf(const char *cname, int64_t *bytes, int *stages) {
  char key[64];
  snprintf(key, sizeof key, "  %s: shared, ", cname);
  const char *p = strstr(ex_explain, key);
  cr_assert(p, "--explain says nothing of %s:\n%s", cname, ex_explain);
  long long b = 0, off = 0;
  int n = 0;
  cr_assert_eq(sscanf(p + strlen(key), "%lld bytes at %lld: %n", &b, &off, &n), 2, "%s", ex_explain);
  *bytes = b;
  *stages = 1;
  sscanf(p + strlen(key) + n, "%d stages of ", stages);
}

/* The totals agree: --explain's, the header's, and KernelInfo's (its buffers
 * laid out 16-byte aligned, in order). */
static void totals_agree(const KernelInfo *ki) {
  int64_t sum = 0;
  for (int i = 0; i < ki->nshared; i++) sum = (sum + 15) / 16 * 16 + ki->shared[i].bytes;
  cr_assert_eq(ki->shared_bytes, sum);
  cr_assert_eq(number_after(ex_explain, "  shared memory: "), ki->shared_bytes, "%s", ex_explain);
  cr_assert_eq(number_after(ex_out.data, "//   shared memory: "), ki->shared_bytes, "%s", ex_out.data);
}

#define ROWS 16
#define COLS 32
#define STAGES 3

Test(explain, pipelined_tile_bytes_are_the_ring_everywhere, .fini = ex_teardown) {
  char src[1024];
  snprintf(src, sizeof src,
           "@launch(128)\n@registers(acc)\n@assume(K %% %d == 0)\n"
           "kernel p(X: tensor<f16>[%d, K], W: tensor<f16>[K, %d], S: tensor<f32>[%d, %d]) {\n"
           "  var acc: tile<f32>[%d, %d] = 0.0\n"
           "  @pipeline(%d)\n  for k0 in range(0, K, %d) {\n    var x = X[0 :+ %d, k0 :+ %d]\n"
           "    acc += dot(x, W[k0 :+ %d, 0 :+ %d])\n  }\n"
           "  S[0 :+ %d, 0 :+ %d] = acc\n}\n",
           COLS, ROWS, COLS, ROWS, COLS, ROWS, COLS, STAGES, COLS, ROWS, COLS, COLS, COLS, ROWS, COLS);
  cr_assert_eq(ex_translate("sm_80", src), 0, "%s", ex_diag);
  KernelInfo *ki = ex_prog->kernels[0]->info;
  int64_t bytes;
  int stages;
  explained_buf("x_s", &bytes, &stages);
  cr_assert_eq(stages, STAGES, "x is not loaded ahead into a ring:\n%s", ex_explain);
  /* a ring of STAGES tiles of ROWS x COLS f16, rows padded, never less */
  cr_assert_eq(bytes % STAGES, 0);
  cr_assert_geq(bytes / STAGES, (int64_t)ROWS * COLS * 2);
  cr_assert_eq(shared_named(ki, "x_s")->bytes, bytes, "KernelInfo gives x_s %" PRId64 " bytes, --explain %" PRId64,
               shared_named(ki, "x_s")->bytes, bytes);
  cr_assert_eq(header_bytes("x_s"), bytes, "%s", ex_out.data);
  totals_agree(ki);
}

Test(explain, padded_pipelined_tiles_agree_with_the_header, .fini = ex_teardown) {
  /* the case of the issue: examples/gemm_f16.tl's shape, both operands in rings */
  cr_assert_eq(ex_translate("sm_80",
                            "@launch(128)\n@registers(acc)\n@grid(cdiv(N, 64), cdiv(M, 64))\n@assume(K % 32 == 0, N % 8 == 0)\n"
                            "kernel g(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {\n"
                            "  var m0 = ctx.block.y * 64\n  var n0 = ctx.block.x * 64\n"
                            "  var acc: tile<f32>[64, 64] = 0.0\n  @pipeline(2)\n  for k0 in range(0, K, 32) {\n"
                            "    var a = A[m0 :+ 64, k0 :+ 32]\n    var b = B[k0 :+ 32, n0 :+ 64]\n"
                            "    acc += dot(a, b)\n  }\n  C[m0 :+ 64, n0 :+ 64] = acc\n}\n"),
               0, "%s", ex_diag);
  KernelInfo *ki = ex_prog->kernels[0]->info;
  const char *names[] = {"a_s", "b_s"};
  const int rows[] = {64, 32}, cols[] = {32, 64};
  for (int i = 0; i < 2; i++) {
    int64_t bytes;
    int stages;
    explained_buf(names[i], &bytes, &stages);
    cr_assert_eq(stages, 2, "%s is no ring:\n%s", names[i], ex_explain);
    const SharedTile *s = shared_named(ki, names[i]);
    cr_assert_eq(bytes, s->bytes, "%s: --explain %" PRId64 ", KernelInfo %" PRId64, names[i], bytes, s->bytes);
    cr_assert_geq(bytes / 2, (int64_t)rows[i] * cols[i] * 4, "rows padded, never less than the tile");
    cr_assert_eq(header_bytes(names[i]), bytes, "%s", ex_out.data);
  }
  totals_agree(ki);
}

Test(explain, stages_without_cp_async_are_registers_and_explained, .fini = ex_teardown) {
  /* sm_75 has no cp.async: the loads run ahead into registers (x_p1, x_p2), and
   * x's shared copy is no ring, as every report says */
  cr_assert_eq(ex_translate("sm_75",
                            "@launch(128)\n@registers(acc)\n@assume(K % 32 == 0)\n"
                            "kernel r(X: tensor<f32>[16, K], W: tensor<f32>[32, 32], S: tensor<f32>[16, 32]) {\n"
                            "  var acc: tile<f32>[16, 32] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 32) {\n"
                            "    var x = X[0 :+ 16, k0 :+ 32]\n    acc += dot(x, W[0 :+ 32, 0 :+ 32])\n  }\n"
                            "  S[0 :+ 16, 0 :+ 32] = acc\n}\n"),
               0, "%s", ex_diag);
  KernelInfo *ki = ex_prog->kernels[0]->info;
  cr_assert(strstr(ex_explain, "x_p1 (tile x, 1 iteration ahead): registers"), "%s", ex_explain);
  cr_assert(strstr(ex_explain, "x_p2 (tile x, 2 iterations ahead): registers"), "%s", ex_explain);
  int64_t bytes;
  int stages;
  explained_buf("x_s", &bytes, &stages);
  cr_assert_eq(stages, 1);
  cr_assert_eq(shared_named(ki, "x_s")->bytes, bytes);
  cr_assert_geq(bytes, 16 * 32 * 4);
  cr_assert_lt(bytes, 3 * 16 * 32 * 4, "no ring of 3 stages (a dot operand's copy in a loop: two halves)");
  cr_assert_eq(header_bytes("x_s"), bytes, "%s", ex_out.data);
  totals_agree(ki);
}

/* A barrier for folds carried out of a loop (carry.c) is placed after the loop:
 * --explain says so, not "before" the line of the loop's body it comes from. */
Test(explain, a_barrier_after_a_loop_for_its_carried_folds_says_where_it_is, .fini = ex_teardown) {
  cr_assert_eq(ex_translate("sm_90", "@launch(256)\nkernel k(X: tensor<f32>[M, 64], C: tensor<f32>[1, 64]) {\n"
                                     "  var c: tile<f32>[1, 64] = 0.0\n"
                                     "  for m0 in range(0, M, 32) {\n    c += colsum(X[m0 :+ 32, 0 :+ 64])\n  }\n"
                                     "  C[0 :+ 1, 0 :+ 64] = c\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "  barrier after the loop at line 4 (for line 5): t2c_red0: written at line 5"),
            "%s", ex_explain);
  cr_assert_null(strstr(ex_explain, "barrier before line 5"), "%s", ex_explain);
  /* a barrier inside the loop's body keeps its line */
  ex_teardown();
  cr_assert_eq(ex_translate("sm_90", "@launch(256)\nkernel k(X: tensor<f32>[M, 64], C: tensor<f32>[M, 64]) {\n"
                                     "  for m0 in range(0, M, 32) {\n    var x = X[m0 :+ 32, 0 :+ 64]\n"
                                     "    C[m0 :+ 32, 0 :+ 64] = x - colsum(x)\n  }\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "  barrier before line 5: t2c_red0"), "%s", ex_explain);
}

Test(explain, an_epilogue_left_unstaged_says_why, .fini = ex_teardown) {
  /* 128 x 256 on mma.sync with a bias row: the accumulator (128), the bias's columns (16)
   * and the staged f16 value (64) pass the register budget; at 128 x 128 it is staged, and
   * on wgmma at 128 x 256 too, whose bias (64 columns a thread) goes through a copy */
  const char *src = "@launch(256)\n@grid(cdiv(N, BN), cdiv(M, 128))\n"
                    "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], Bias: tensor<f16>[N], C: tensor<f16>[M, N]) {\n"
                    "  var acc: tile<f32>[128, BN] = 0.0\n  @pipeline(4)\n  for k0 in range(0, K, 32) {\n"
                    "    acc += dot(A[ctx.block.y * 128 :+ 128, k0 :+ 32], B[k0 :+ 32, ctx.block.x * BN :+ BN])\n  }\n"
                    "  C[ctx.block.y * 128 :+ 128, ctx.block.x * BN :+ BN] = f16(acc + f32(Bias[ctx.block.x * BN :+ BN]))\n}\n";
  char buf[1024];
  snprintf(buf, sizeof buf, "const BN = 256\n%s", src);
  cr_assert_eq(ex_translate("sm_90", buf), 0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "the store at line 10: pairs of elements from the accumulator's layout, not staged through "
                               "shared memory into 16-byte runs: its staged value's 64 registers"),
            "%s", ex_explain);
  ex_teardown();
  cr_assert_eq(ex_translate("sm_90a", buf), 0, "%s", ex_diag);
  cr_assert_null(strstr(ex_explain, "not staged"), "%s", ex_explain);
  cr_assert(strstr(ex_explain, "the store at line 10, staged"), "%s", ex_explain);
  ex_teardown();
  snprintf(buf, sizeof buf, "const BN = 128\n%s", src);
  cr_assert_eq(ex_translate("sm_90a", buf), 0, "%s", ex_diag);
  cr_assert_null(strstr(ex_explain, "not staged"), "%s", ex_explain);
  cr_assert(strstr(ex_explain, "the store at line 10, staged"), "%s", ex_explain);
}

/* docs/language.md, "Arg-reductions": a column arg-reduction runs as colmax does,
 * per-warp partials of values and indices, not through the operand's shared copy (the
 * page said it read that copy); only a [M, 1] operand is read through its copy. */
Test(explain, a_column_argmax_folds_per_warp_partials_as_colmax_does, .fini = ex_teardown) {
  cr_assert_eq(ex_translate("sm_90", "@launch(256)\nkernel k(X: tensor<f32>[32, 64], AM: tensor<i32>[64]) {\n"
                                     "  AM[0 :+ 64] = colargmax(X[0 :+ 32, 0 :+ 64])\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, ": partials of colargmax at line 3, values, then indices, one row per warp"), "%s",
            ex_explain);
  cr_assert_null(strstr(ex_explain, "shared copy of"), "%s", ex_explain);
  ex_teardown();
  cr_assert_eq(ex_translate("sm_90", "@launch(128)\nkernel k(X: tensor<f32>[64], AM: tensor<i32>[1]) {\n"
                                     "  var x = reshape(X[0 :+ 64], [64, 1])\n  AM[0 :+ 1] = colargmax(x)\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "  x_s: shared, 256 bytes at 0: shared copy of x"), "%s", ex_explain);
}

/* A dot operand of the accumulator's shape that is also reduced: in a plain blocked layout
 * (16-byte loads), not the fragments, which --explain gave it with a reason that was
 * false ("a dot accumulates into it, or it is computed with a value that does"). The
 * fragments' values say which it is: the accumulator, or an A operand evaluated in
 * registers. */
Test(explain, a_reduced_dot_operand_is_not_in_the_fragments, .fini = ex_teardown) {
  cr_assert_eq(ex_translate("sm_90", "@launch(128)\nkernel k(A: tensor<f16>[64, 64], B: tensor<f16>[64, 64], "
                                     "C: tensor<f32>[64, 64], R: tensor<f32>[64, 1]) {\n"
                                     "  var a = A[0 :+ 64, 0 :+ 64]\n  var b = B[0 :+ 64, 0 :+ 64]\n"
                                     "  C[0 :+ 64, 0 :+ 64] = dot(a, b)\n  R[0 :+ 64, 0 :+ 1] = rowsum(f32(a))\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "  a (tile a): registers, 32 per thread, L1: each thread computes and reads its own elements"),
            "%s", ex_explain);
  cr_assert(strstr(ex_explain, "(dot at line 5): registers, 32 per thread, L0: the mma accumulator's fragments: a dot "
                               "accumulates into it\n"),
            "%s", ex_explain);
  cr_assert_null(strstr(ex_out.data, "ldg_vec<2>(A"), "%s", ex_out.data);
  cr_assert(strstr(ex_out.data, "ldg_vec<8>(A"), "%s", ex_out.data);
  ex_teardown();
  cr_assert_eq(ex_translate("sm_90", "@launch(128)\nkernel k(A: tensor<f32>[64, 64], B: tensor<f16>[64, 64], "
                                     "C: tensor<f32>[64, 64]) {\n  var x = A[0 :+ 64, 0 :+ 64]\n"
                                     "  C[0 :+ 64, 0 :+ 64] = dot(f16(exp(x)), B[0 :+ 64, 0 :+ 64])\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "  x (tile x): registers, 32 per thread, L0: the mma accumulator's fragments: a dot reads it "
                               "as its A operand in registers\n"),
            "%s", ex_explain);
}

/* A loop whose register rings rotate says so, and names the 8-bit values converted from their
 * slots' words; a ring of one value says it is refilled at the body's end. */
Test(explain, rotating_rings_and_their_8_bit_conversions_are_explained, .fini = ex_teardown) {
  cr_assert_eq(ex_translate("sm_90", "@launch(64)\nkernel k(X: tensor<i8>[N], Y: tensor<f32>[N]) {\n  @pipeline(3)\n"
                                     "  for i in range(0, N, 256) {\n    var x = X[i :+ 256]\n    Y[i :+ 256] = f32(x) * 2.0\n  }\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "  loop at line 4: its register rings rotate: 2 copies of its body an iteration"), "%s", ex_explain);
  cr_assert(strstr(ex_explain, "    its 8-bit values (x) convert to f32 from their ring slots' words"), "%s", ex_explain);
  ex_teardown();
  cr_assert_eq(ex_translate("sm_90", "@launch(64)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  @pipeline(2)\n"
                                     "  for i in range(0, N, 256) {\n    Y[i :+ 256] = X[i :+ 256] * 2.0\n  }\n}\n"),
               0, "%s", ex_diag);
  cr_assert(strstr(ex_explain, "  loop at line 4: its register rings are refilled at the end of its body"), "%s", ex_explain);
  cr_assert_null(strstr(ex_explain, "8-bit values"), "%s", ex_explain);
}
