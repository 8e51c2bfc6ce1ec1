/* test_place.c: placement and barrier decisions, observed in the emitted CUDA. */
#include <criterion/criterion.h>
#include <string.h>

#include "t2c.h"

static TargetConfig target;
static char *out_text;
static char *diag_text;

/* lex -> parse -> check -> emit on src; the CUDA goes to out_text. */
static int translate_src(const char *src) {
  static Arena a;
  arena_free(&a);
  memset(&a, 0, sizeof a);
  char err[256];
  cr_assert(config_load("configs/sm_90.yaml", &target, err, sizeof err), "%s", err);
  size_t dlen;
  free(diag_text);
  diag_text = NULL;
  FILE *df = open_memstream(&diag_text, &dlen);
  Diag d;
  diag_init(&d, "t.tl", src, df);
  int n;
  Token *toks = lex(&a, &d, src, &n);
  Program *p = parse(&a, &d, toks, n);
  Buf out = {0};
  EmitOptions eo = {.file = "t.tl"};
  bool ok = d.errors == 0 && check_program(&a, &d, p, &target) && emit_program(&a, &d, p, &target, &eo, &out);
  fclose(df);
  free(out_text);
  out_text = strdup(out.data ? out.data : "");
  buf_free(&out);
  return ok ? 0 : 1;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static int barriers(void) { return count(out_text, "__syncthreads();"); }

Test(place, aligned_write_then_read_needs_no_barrier) {
  cr_assert_eq(translate_src("@launch(64)\nkernel k(X: tensor<f32>[8, 32], Y: tensor<f32>[8, 32]) {\n"
                             "  var x = X[0 :+ 8, 0 :+ 32]\n  Y[0 :+ 8, 0 :+ 32] = x * 2.0\n}\n"), 0, "%s", diag_text);
  cr_assert_eq(barriers(), 0, "%s", out_text);
}

Test(place, copy_hoisted_above_loop_that_does_not_write_the_tile) {
  cr_assert_eq(translate_src("@launch(128)\n@registers(w)\n"
                             "kernel k(W: tensor<f32>[16, 32], X: tensor<f32>[N, 16], Y: tensor<f32>[N, 32]) {\n"
                             "  var w: tile<f32>[16, 32] = W[0 :+ 16, 0 :+ 32]\n  for r0 in range(0, N, 8) {\n"
                             "    var x = X[r0 :+ 8, 0 :+ 16]\n    Y[r0 :+ 8, 0 :+ 32] = dot(x, w)\n  }\n}\n"), 0, "%s", diag_text);
  /* (the tile IR: w's shared copy for the dot on the CUDA cores, one per body) */
  const char *c = "t2c::sts_vec<4>(&w_s[", *copy = strstr(out_text, c), *loop = strstr(out_text, "for (int r0 = 0;");
  cr_assert(copy && loop && copy < loop, "%s", out_text);
  cr_assert_eq(count(out_text, c), count(out_text, "for (int r0 = 0;"), "once per body, outside the loop:\n%s", out_text);
}

Test(place, tensor_stores_of_one_statement_in_a_loop_need_no_barrier) {
  cr_assert_eq(translate_src("@launch(64)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n"
                             "  for i in range(0, N, 64) {\n    Y[i :+ 64] = X[i :+ 64] + 1.0\n  }\n}\n"), 0, "%s", diag_text);
  cr_assert_eq(barriers(), 0, "%s", out_text);
}

Test(place, reading_a_stored_tensor_needs_a_barrier) {
  cr_assert_eq(translate_src("@launch(64)\nkernel k(Y: tensor<f32>[64], Z: tensor<f32>[64]) {\n"
                             "  Y[0 :+ 64] = rows(64, 1)[0 :+ 64, 0] * 1\n  Z[0 :+ 64] = f32(0)\n"
                             "  var t = transpose(Y[0 :+ 64, 0 :+ 1]) \n}\n") , 1, "Y is rank 1: expect a checker error");
}

Test(place, output_is_deterministic) {
  const char *src = "@launch(128)\n@registers(acc)\nkernel g(A: tensor<f32>[M, K], B: tensor<f32>[K, 64], C: tensor<f32>[M, 64]) {\n"
                    "  var acc: tile<f32>[32, 64] = 0.0\n  for k in range(0, K, 16) {\n"
                    "    acc += dot(A[0 :+ 32, k :+ 16], B[k :+ 16, 0 :+ 64])\n  }\n  C[0 :+ 32, 0 :+ 64] = acc\n}\n";
  cr_assert_eq(translate_src(src), 0, "%s", diag_text);
  char *first = strdup(out_text);
  cr_assert_eq(translate_src(src), 0);
  cr_assert_str_eq(first, out_text);
  free(first);
}
