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

static Sym *tile_named(KernelInfo *ki, const char *name) {
  for (int i = 0; i < ki->tiles.len; i++) {
    Sym *t = ki->tiles.items[i];
    if (strcmp(t->name, name) == 0) return t;
  }
  cr_assert_fail("no tile %s", name);
  return NULL;
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

/* The ring's bytes, its stages and one stage's bytes, as --explain states them. */
static void explained_ring(const char *name, int64_t *bytes, int *stages, int64_t *stage_bytes) {
  char key[64];
  snprintf(key, sizeof key, ": %s: shared, ", name);
  const char *p = strstr(ex_explain, key);
  cr_assert(p, "--explain says nothing of %s:\n%s", name, ex_explain);
  long long b = 0, sb = 0;
  cr_assert_eq(sscanf(p + strlen(key), "%lld bytes, a ring of %d stages of %lld bytes", &b, stages, &sb), 3,
               "--explain does not give %s's ring:\n%s", name, ex_explain);
  *bytes = b;
  *stage_bytes = sb;
}

#define ROWS 16
#define COLS 32
#define STAGES 3

Test(explain, pipelined_tile_bytes_are_the_ring_everywhere, .fini = ex_teardown) {
  char src[1024];
  snprintf(src, sizeof src,
           /* sum() in the condition of a while whose body has a continue keeps
              the kernel on emit.c and its cp.async rings */
           "@launch(128)\n@registers(acc)\n@assume(K %% %d == 0)\n"
           "kernel p(X: tensor<f32>[%d, K], W: tensor<f32>[%d, %d], S: tensor<f32>[%d, %d], P: tensor<f32>[8, 8]) {\n"
           "  var acc: tile<f32>[%d, %d] = 0.0\n"
           "  @pipeline(%d)\n  for k0 in range(0, K, %d) {\n    var x = X[0 :+ %d, k0 :+ %d]\n"
           "    acc += dot(x, W[0 :+ %d, 0 :+ %d])\n  }\n"
           "  S[0 :+ %d, 0 :+ %d] = acc\n  var n = 0\n  while sum(P[0 :+ 8, 0 :+ 8]) > f32(n) && n < 2 {\n    n += 1\n    if n == 1 {\n      continue\n    }\n  }\n}\n",
           COLS, ROWS, COLS, COLS, ROWS, COLS, ROWS, COLS, STAGES, COLS, ROWS, COLS, COLS, COLS, ROWS, COLS);
  cr_assert_eq(ex_translate("sm_90", src), 0, "%s", ex_diag);
  KernelInfo *ki = ex_prog->kernels[0]->info;
  Sym *x = tile_named(ki, "x");
  /* from the kernel's own numbers: a ring of STAGES tiles of ROWS x COLS f32 */
  cr_assert_eq(x->pipe_stages, STAGES, "x is not loaded ahead:\n%s", ex_explain);
  cr_assert_eq(x->ty.dims[0], ROWS);
  cr_assert_eq(x->ty.dims[1], COLS);
  int64_t want = (int64_t)x->pipe_stages * x->ty.dims[0] * x->ty.dims[1] * elem_bytes[x->ty.elem];
  cr_assert_eq(want, (int64_t)STAGES * ROWS * COLS * 4);

  int64_t bytes, stage_bytes;
  int stages;
  explained_ring("x", &bytes, &stages, &stage_bytes);
  cr_assert_eq(bytes, want, "--explain gives x %" PRId64 " bytes, want %" PRId64 ":\n%s", bytes, want, ex_explain);
  cr_assert_eq(stages, STAGES);
  cr_assert_eq(stage_bytes * stages, bytes);

  const SharedTile *s = shared_named(ki, x->cname);
  cr_assert_eq(s->bytes, want, "KernelInfo gives x %" PRId64 " bytes, want %" PRId64, s->bytes, want);
  cr_assert_eq(header_bytes(x->cname), want, "%s", ex_out.data);

  /* the totals: --explain's, the header's and KernelInfo's */
  int64_t sum = 0;
  for (int i = 0; i < ki->nshared; i++) sum = (sum + 15) / 16 * 16 + ki->shared[i].bytes;
  cr_assert_eq(ki->pipeline_bytes, 0);
  cr_assert_eq(ki->shared_bytes, sum);
  cr_assert_eq(number_after(ex_explain, "t.tl: kernel p: "), ki->shared_bytes, "%s", ex_explain);
  cr_assert_eq(number_after(ex_out.data, "//   shared memory: "), ki->shared_bytes, "%s", ex_out.data);
}

Test(explain, padded_pipelined_tiles_agree_with_the_header, .fini = ex_teardown) {
  /* the case of the issue (examples/gemm_f16.tl, which the tile IR now lowers):
   * the direct emitter's cp.async rings, here of an f32 dot in a kernel kept on
   * emit.c by sum() in the condition of a while whose body has a continue */
  cr_assert_eq(ex_translate("sm_90",
                            "@launch(128)\n@registers(acc)\n@grid(cdiv(N, 64), cdiv(M, 64))\n@assume(K % 32 == 0, N % 8 == 0)\n"
                            "kernel g(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N], P: tensor<f32>[8, 8]) {\n"
                            "  var m0 = ctx.block.y * 64\n  var n0 = ctx.block.x * 64\n"
                            "  var acc: tile<f32>[64, 64] = 0.0\n  @pipeline(2)\n  for k0 in range(0, K, 32) {\n"
                            "    var a = A[m0 :+ 64, k0 :+ 32]\n    var b = B[k0 :+ 32, n0 :+ 64]\n"
                            "    acc += dot(a, b)\n  }\n  C[m0 :+ 64, n0 :+ 64] = acc\n  var n = 0\n  while sum(P[0 :+ 8, 0 :+ 8]) > f32(n) && n < 2 {\n    n += 1\n    if n == 1 {\n      continue\n    }\n  }\n}\n"),
               0, "%s", ex_diag);
  KernelInfo *ki = ex_prog->kernels[0]->info;
  const char *names[] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    Sym *t = tile_named(ki, names[i]);
    cr_assert_eq(t->pipe_stages, 2, "%s is not loaded ahead:\n%s", names[i], ex_explain);
    int64_t bytes, stage_bytes;
    int stages;
    explained_ring(names[i], &bytes, &stages, &stage_bytes);
    const SharedTile *s = shared_named(ki, t->cname);
    cr_assert_eq(bytes, s->bytes, "%s: --explain %" PRId64 ", KernelInfo %" PRId64, names[i], bytes, s->bytes);
    cr_assert_eq(stages, 2);
    cr_assert_eq(stage_bytes * 2, bytes);
    /* rows padded, never less than the tile */
    cr_assert_geq(stage_bytes, (int64_t)t->ty.dims[0] * t->ty.dims[1] * elem_bytes[t->ty.elem]);
    cr_assert_eq(header_bytes(t->cname), bytes, "%s", ex_out.data);
  }
  cr_assert_eq(number_after(ex_explain, "t.tl: kernel g: "), ki->shared_bytes, "%s", ex_explain);
  cr_assert_eq(number_after(ex_out.data, "//   shared memory: "), ki->shared_bytes, "%s", ex_out.data);
}

Test(explain, reserved_stages_without_cp_async_are_explained, .fini = ex_teardown) {
  /* sm_75 has no cp.async: plain loads, the extra stages still counted (emit.c's,
   * which an f32 dot accumulator of 96 elements per thread keeps the kernel on:
   * its shared copy would not fit in sm_75's 64 KB next to the IR's other copies) */
  cr_assert_eq(ex_translate("sm_75",
                            "@launch(128)\n@registers(acc)\n@assume(K % 32 == 0)\n"
                            "kernel r(X: tensor<f32>[16, K], W: tensor<f32>[32, 32], S: tensor<f32>[16, 32], "
                            "P: tensor<f32>[128, 16], Q: tensor<f32>[16, 96], R: tensor<f32>[128, 96]) {\n"
                            "  var acc: tile<f32>[16, 32] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 32) {\n"
                            "    var x = X[0 :+ 16, k0 :+ 32]\n    acc += dot(x, W[0 :+ 32, 0 :+ 32])\n  }\n"
                            "  S[0 :+ 16, 0 :+ 32] = acc\n  var big: tile<f32>[128, 96] = 0.0\n"
                            "  big += dot(P[0 :+ 128, 0 :+ 16], Q[0 :+ 16, 0 :+ 96])\n  R[0 :+ 128, 0 :+ 96] = big\n}\n"),
               0, "%s", ex_diag);
  KernelInfo *ki = ex_prog->kernels[0]->info;
  Sym *x = tile_named(ki, "x");
  cr_assert_leq(x->pipe_stages, 1);
  int64_t tile = (int64_t)x->ty.dims[0] * x->ty.dims[1] * elem_bytes[x->ty.elem];
  cr_assert_eq(ki->pipeline_bytes, 2 * tile);
  cr_assert_eq(number_after(ex_explain, ": x: shared, "), shared_named(ki, x->cname)->bytes, "%s", ex_explain);
  cr_assert_eq(number_after(ex_explain, "t.tl: kernel r: "), ki->pipeline_bytes, "%s", ex_explain);
  cr_assert_eq(number_after(ex_out.data, "//   @pipeline: "), ki->pipeline_bytes, "%s", ex_out.data);
  /* the total, on the last line about the kernel, includes the reservation */
  const char *last = NULL;
  for (const char *p = strstr(ex_explain, "t.tl: kernel r: "); p; p = strstr(p + 1, "t.tl: kernel r: ")) last = p;
  cr_assert_eq(number_after(last, "t.tl: kernel r: "), ki->shared_bytes, "%s", ex_explain);
  cr_assert(strstr(last, "bytes of shared memory ("), "%s", ex_explain);
  cr_assert_eq(number_after(ex_out.data, "//   shared memory: "), ki->shared_bytes, "%s", ex_out.data);
}
