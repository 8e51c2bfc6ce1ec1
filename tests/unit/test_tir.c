/* test_tir.c: the tile IR's stages (layout.c, sync.c, smem.c), observed on
 * the IR itself: layouts, values, buffers and barrier ops, not the CUDA text. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t2c.h"

static TargetConfig target;
static Arena arena;
static char *diag_text;

/* lex -> parse -> check, then the IR stages up to `last` for the first kernel. */
static const char *config_path = "configs/sm_90.yaml";

static TirKernel *build(const char *src, const char *last, const char **why) {
  arena_free(&arena);
  memset(&arena, 0, sizeof arena);
  char err[256];
  cr_assert(config_load(config_path, &target, err, sizeof err), "%s", err);
  size_t dlen;
  free(diag_text);
  diag_text = NULL;
  FILE *df = open_memstream(&diag_text, &dlen);
  Diag d;
  diag_init(&d, "t.tl", src, df);
  int n;
  Token *toks = lex(&arena, &d, src, &n);
  Program *p = parse(&arena, &d, toks, n);
  cr_assert(d.errors == 0 && check_program(&arena, &d, p, &target), "check failed");
  TirKernel *K = tir_build(&arena, &d, p->kernels[0], &target, last, why, NULL);
  fclose(df);
  return K;
}

/* Shared buffers (the tensors a kernel writes are tracked in bufs too). */
static int shared_bufs(const TirKernel *K) {
  int n = 0;
  for (int i = 0; i < K->nbufs; i++) n += K->bufs[i].tensor == NULL;
  return n;
}

static const TirBuf *shared_buf(const TirKernel *K, int k) {
  for (int i = 0; i < K->nbufs; i++)
    if (!K->bufs[i].tensor && k-- == 0) return &K->bufs[i];
  cr_assert_fail("no shared buffer %d", k);
  return NULL;
}

static int count_ops(const TirBlock *b, TirOpKind kind) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    n += op->kind == kind;
    n += count_ops(&op->body, kind) + count_ops(&op->els, kind);
  }
  return n;
}

static const TirOp *find_op(const TirBlock *b, TirOpKind kind) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind == kind) return op;
    const TirOp *r = find_op(&op->body, kind);
    if (!r) r = find_op(&op->els, kind);
    if (r) return r;
  }
  return NULL;
}

static const TirVar *var_named(const TirKernel *K, const char *name) {
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    if (v->sym && strcmp(v->sym->name, name) == 0) return v;
  }
  cr_assert_fail("no value %s", name);
  return NULL;
}

Test(tir_layout, rows_inside_warps_need_no_shared_memory_and_no_barrier) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[8, 32], Y: tensor<f32>[8, 32]) {\n"
                       "  var x = X[0 :+ 8, 0 :+ 32]\n  var m = rowmax(x)\n  Y[0 :+ 8, 0 :+ 32] = x - m\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirVar *x = var_named(K, "x"), *m = var_named(K, "m");
  /* [8, 32] over 2 warps: runs of 4 floats, 8 lanes across a row, 4 rows per warp, one warp per 4 rows */
  cr_assert_eq(x->layout->kind, LY_BLOCKED);
  cr_assert_eq(x->layout->vec, 4);
  cr_assert_eq(x->layout->lc * x->layout->lr, 32);
  cr_assert_eq(x->layout->wc, 1, "a row stays in one warp");
  cr_assert_eq(layout_count(x->layout), 8 * 32 / 64);
  cr_assert_eq(m->layout->kind, LY_SLICE);
  cr_assert_eq(m->layout->parent, x->layout);
  cr_assert_eq(shared_bufs(K), 0);
  cr_assert_eq(K->nbarriers, 0);
  cr_assert_eq(K->ki->shared_bytes, 0);
}

Test(tir_layout, seed_squares_stays_in_registers_with_16_byte_accesses) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\n@registers(acc)\n"
                       "kernel squares(X: tensor<f32>[16, K], O: tensor<f32>[16, 64], S: tensor<f32>[16, 1]) {\n"
                       "  var acc: tile<f32>[16, 64] = 0.0\n  for kt in range(0, K, 64) {\n"
                       "    var x = X[0 :+ 16, kt :+ 64]\n    acc += x * x\n  }\n"
                       "  O[0 :+ 16, 0 :+ 64] = acc\n  var s: tile<f32>[16, 1] = rowsum(acc)\n"
                       "  S[0 :+ 16, 0 :+ 1] = s\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirVar *acc = var_named(K, "acc");
  /* the seed's count (1024 / 256 = 4), in runs of 4 */
  cr_assert_eq(layout_count(acc->layout), acc->sym->per_thread);
  cr_assert_not(layout_padded(acc->layout));
  cr_assert_eq(K->nbarriers, 0);
  cr_assert_eq(K->ki->shared_bytes, 0);
  const TirOp *load = find_op(&K->body, TO_LOAD), *store = find_op(&K->body, TO_STORE);
  cr_assert_eq(load->vec, 4);
  cr_assert_eq(store->vec, 4);
  /* K % 4 and both pointers are tested at run time */
  cr_assert(K->versioned);
  cr_assert_eq(K->nchecks, 3);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->lay->lc, 16, "a 64-wide row is 16 lanes of 4");
}

/* The first load or store of tensor name. */
static const TirOp *access_of(const TirBlock *b, const char *name) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if ((op->kind == TO_LOAD || op->kind == TO_STORE) && op->slice &&
        strcmp(op->slice->u.index.base->u.ident.sym->name, name) == 0)
      return op;
    const TirOp *r = access_of(&op->body, name);
    if (!r) r = access_of(&op->els, name);
    if (r) return r;
  }
  return NULL;
}

Test(tir_layout, gathers_along_rows_at_cols_move_runs) {
  const char *why = NULL;
  /* the row index: a gather at rows(), through a var; the last: a scalar plus cols() */
  TirKernel *K = build("@launch(128)\nkernel k(E: tensor<f32>[V, D], I: tensor<i32>[16], O: tensor<f32>[16, 64], c0: i32) {\n"
                       "  var p = I[rows(16, 64)] + 1\n  O[0 :+ 16, 0 :+ 64] = E[p, c0 + cols(16, 64)]\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(access_of(&K->body, "E")->vec, 4);
  cr_assert_eq(access_of(&K->body, "I")->vec, 1, "one element of I per row");
  cr_assert(K->versioned);
  /* c0 % 4, D % 4 and the pointers E and O are tested at entry */
  cr_assert_eq(K->nchecks, 4);
  /* the row index moves along a row: elements */
  K = build("@launch(128)\nkernel k(E: tensor<f32>[V, 64], O: tensor<f32>[16, 64]) {\n"
            "  O[0 :+ 16, 0 :+ 64] = E[rows(16, 64) + cols(16, 64) / 8, cols(16, 64)]\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(access_of(&K->body, "E")->vec, 1);
  /* a var one of whose writes moves along a row: elements */
  K = build("@launch(128)\nkernel k(E: tensor<f32>[V, 64], I: tensor<i32>[16], O: tensor<f32>[16, 64], f: i32) {\n"
            "  var p = I[rows(16, 64)]\n  if f > 0 {\n    p = cols(16, 64) % 3\n  }\n"
            "  O[0 :+ 16, 0 :+ 64] = E[p, cols(16, 64)]\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(access_of(&K->body, "E")->vec, 1);
  /* a start that is not a multiple of the run, and a last index of cols() times 2: elements */
  K = build("@launch(128)\nkernel k(E: tensor<f32>[V, 256], I: tensor<i32>[16], O: tensor<f32>[16, 64]) {\n"
            "  var p = I[rows(16, 64)]\n  O[0 :+ 16, 0 :+ 64] = E[p, 1 + cols(16, 64)] + E[p, cols(16, 64) * 2]\n}\n",
            NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(access_of(&K->body, "E")->vec, 1);
  /* a scatter of rows at slots */
  K = build("@launch(128)\nkernel k(X: tensor<f32>[16, 64], S: tensor<i32>[16], C: tensor<f32>[N, 64]) {\n"
            "  C[S[rows(16, 64)], cols(16, 64)] = X[0 :+ 16, 0 :+ 64]\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(access_of(&K->body, "C")->vec, 4);
}

/* facts_nonneg: C's truncated a % b takes a's sign whatever b's, so a grouped tile order's
 * m0 = (first + ctx.block.x % per % gm) * BM (gm a min() of a difference, maybe <= 0 as far
 * as the checker knows) is not negative: the slice's dim-0 test is the upper bound alone. */
Test(facts, a_remainder_of_a_nonnegative_dividend_is_nonnegative) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\n@grid(cdiv(M, 16) * 4)\n"
                       "kernel k(X: tensor<f32>[M, 64], O: tensor<f32>[M, 64], g: i32) {\n"
                       "  var first = ctx.block.x / 4 * 2\n  var gm = min(cdiv(M, 16) - first, g)\n"
                       "  var m0 = (first + ctx.block.x % 4 % gm) * 16\n"
                       "  O[m0 :+ 16, 0 :+ 64] = X[m0 :+ 16, 0 :+ 64]\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *x = access_of(&K->body, "X");
  cr_assert(facts_nonneg(x->slice->u.index.idx[0].start), "m0 >= 0");
  cr_assert_eq(x->chk[0], 2, "dim 0: the upper bound alone (%d)", x->chk[0]);
}

/* facts_nonneg of a var assigned after its declaration (facts.c assigned_nonneg): every value
 * it takes is non-negative (0, or k0 under an if; qs += 64 in a loop), so a loop from it tests
 * only its end; an assignment of a value that may be negative (qs = k0 - 64), or a -=, keeps
 * the test. */
Test(facts, a_var_whose_every_assignment_is_nonnegative_is_nonnegative) {
  static const char *const bodies[][2] = {
      {"  if causal != 0 {\n    qs = k0\n  }\n", "2"},
      {"  while qs < k0 {\n    qs += 64\n  }\n", "2"},
      {"  if causal != 0 {\n    qs = k0 - 64\n  }\n", "3"},
      {"  if causal != 0 {\n    qs -= 1\n  }\n", "3"},
      {"  if causal != 0 {\n    qs = qs * 2 + k0\n  }\n", "2"},
  };
  for (int c = 0; c < 5; c++) {
    char src[1024];
    snprintf(src, sizeof src,
             "@grid(cdiv(S, 64))\nkernel k(X: tensor<f32>[S, 64], Y: tensor<f32>[S, 64], causal: i32) {\n"
             "  var k0 = ctx.block.x * 64\n  var qs = 0\n%s  var acc: tile<f32>[64, 64] = 0.0\n"
             "  for q0 in range(qs, S, 64) {\n    acc += X[q0 :+ 64, 0 :+ 64]\n  }\n  Y[k0 :+ 64, 0 :+ 64] = acc\n}\n",
             bodies[c][0]);
    const char *why = NULL;
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    const TirOp *x = access_of(&K->body, "X");
    cr_assert_eq(x->chk[0], atoi(bodies[c][1]), "case %d: dim 0's tests %d", c, x->chk[0]);
  }
}

/* facts_multiple_of such a var (facts.c assigned_multiple): 0, or k0 (a multiple of 64) under an
 * if, so with @assume(S % 64 == 0) a loop from it by 64 tests nothing; k0 + 1 keeps the end test. */
Test(facts, a_var_whose_every_assignment_is_a_multiple_is_a_multiple) {
  static const char *const rhs[] = {"k0", "k0 + 1", "qs + 128"};
  static const int want[] = {0, 2, 0};
  for (int c = 0; c < 3; c++) {
    char src[1024];
    snprintf(src, sizeof src,
             "@assume(S %% 64 == 0)\n@grid(cdiv(S, 64))\n"
             "kernel k(X: tensor<f32>[S, 64], Y: tensor<f32>[S, 64], causal: i32) {\n"
             "  var k0 = ctx.block.x * 64\n  var qs = 0\n  if causal != 0 {\n    qs = %s\n  }\n"
             "  var acc: tile<f32>[64, 64] = 0.0\n  for q0 in range(qs, S, 64) {\n    acc += X[q0 :+ 64, 0 :+ 64]\n  }\n"
             "  Y[k0 :+ 64, 0 :+ 64] = acc\n}\n",
             rhs[c]);
    const char *why = NULL;
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert_eq(access_of(&K->body, "X")->chk[0], want[c], "qs = %s: dim 0's tests %d", rhs[c], access_of(&K->body, "X")->chk[0]);
  }
}

/* facts_fits of a % S, a >= 0: at most S - len where it and S are multiples of len (an implicit
 * GEMM's channel chunk kk % CI :+ 64); not without @assume(S % len == 0), nor where a may be
 * negative (C's remainder takes the dividend's sign). */
Test(facts, a_remainder_of_a_size_fits_below_it_when_both_are_multiples_of_the_length) {
  static const char *const cases[][3] = {
      {"@assume(C % 32 == 0)\n", "kk % C", "0"},
      {"", "kk % C", "2"},
      {"@assume(C % 32 == 0)\n", "(kk - 64) % C", "3"},
      {"@assume(C % 64 == 0)\n", "(kk + 16) % C", "2"},
  };
  for (int c = 0; c < 4; c++) {
    char src[1024];
    snprintf(src, sizeof src,
             "@launch(128)\n%skernel k(X: tensor<f32>[16, C], O: tensor<f32>[16, 32]) {\n"
             "  var acc: tile<f32>[16, 32] = 0.0\n  for kk in range(0, 4 * C, 32) {\n"
             "    acc += X[0 :+ 16, %s :+ 32]\n  }\n  O[0 :+ 16, 0 :+ 32] = acc\n}\n",
             cases[c][0], cases[c][1]);
    const char *why = NULL;
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert_eq(access_of(&K->body, "X")->chk[1], atoi(cases[c][2]), "%s%s: dim 1's tests %d", cases[c][0], cases[c][1],
                 access_of(&K->body, "X")->chk[1]);
  }
}

/* facts_fits of a block index divided by T under a grid of S * T along its axis (a block per
 * (n, h) pair: n = ctx.block.z / H below N), and of a gather index min(a, S - c), c >= 1 (a
 * clamped neighbour); not under a grid of S * T + 1, nor for T not the grid's other factor,
 * nor min(a, S). */
Test(facts, a_block_quotient_and_a_clamped_index_fit) {
  static const char *const cases[][3] = {
      {"@grid(1, 1, N * H)", "ctx.block.z / H", "0"},
      {"@grid(1, 1, H * N)", "ctx.block.z / H", "0"},
      {"@grid(1, 1, N * H + 1)", "ctx.block.z / H", "2"},
      {"@grid(1, 1, N * H)", "ctx.block.z / W", "2"},
      {"@grid(1, 1, N)", "min(ctx.block.z + 1, N - 1)", "0"},
      {"@grid(1, 1, N)", "min(N - 2, ctx.block.z)", "0"},
      {"@grid(1, 1, N)", "min(ctx.block.z + 1, N)", "2"},
  };
  for (int c = 0; c < 7; c++) {
    char src[1024];
    snprintf(src, sizeof src,
             "@launch(128)\n%s\nkernel k(X: tensor<f32>[N, H, W], Y: tensor<f32>[N, 128]) {\n"
             "  Y[0, 0 :+ 128] = X[%s, 0, 0 :+ 128]\n}\n",
             cases[c][0], cases[c][1]);
    const char *why = NULL;
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert_eq(access_of(&K->body, "X")->chk[0] & 2, atoi(cases[c][2]), "%s, %s: dim 0's tests %d", cases[c][0],
                 cases[c][1], access_of(&K->body, "X")->chk[0]);
  }
}

/* facts_multiple_given: C's truncated a % b is a - (a / b) * b, a multiple of v when a and b
 * both are, whatever their signs; a slice starting there moves runs as kk - kk / C * C did. */
Test(facts, a_remainder_of_multiples_is_a_multiple) {
  const char *why = NULL;
  /* @assume(C % 32 == 0), kk from 0 by 32 (to K, W's size): kk % C is a multiple of 32 and 4, not 64 */
  TirKernel *K = build("@launch(128)\n@assume(C % 32 == 0)\n"
                       "kernel k(X: tensor<f32>[16, C], W: tensor<f32>[K], O: tensor<f32>[16, 32]) {\n"
                       "  var acc: tile<f32>[16, 32] = 0.0\n  for kk in range(0, K, 32) {\n"
                       "    var c0 = kk % C\n    acc += X[0 :+ 16, c0 :+ 32]\n  }\n  O[0 :+ 16, 0 :+ 32] = acc\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *x = access_of(&K->body, "X");
  const Expr *c0 = x->slice->u.index.idx[1].start;
  cr_assert(facts_multiple_of(K->ki, c0, 32));
  cr_assert(facts_multiple_of(K->ki, c0, 4));
  cr_assert_not(facts_multiple_of(K->ki, c0, 64));
  cr_assert_eq(x->vec, 4, "16-byte runs of X");
  /* a parameter divisor: a multiple where the entry test makes c one; a dividend off the run: none */
  K = build("@launch(128)\nkernel k(X: tensor<f32>[16, C], W: tensor<f32>[K], O: tensor<f32>[16, 32], c: i32) {\n"
            "  var acc: tile<f32>[16, 32] = 0.0\n  for kk in range(0, K, 32) {\n"
            "    acc += X[0 :+ 16, kk % c :+ 32]\n  }\n  O[0 :+ 16, 0 :+ 32] = acc\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  x = access_of(&K->body, "X");
  const Expr *s = x->slice->u.index.idx[1].start;
  const Sym *given[4];
  int n = 0;
  cr_assert_not(facts_multiple_of(K->ki, s, 4));
  cr_assert(facts_multiple_given(K->ki, s, 4, given, &n, 4));
  cr_assert_eq(n, 1);
  cr_assert_str_eq(given[0]->name, "c");
  cr_assert_eq(x->vec, 4);
  K = build("@launch(128)\nkernel k(X: tensor<f32>[16, C], W: tensor<f32>[K], O: tensor<f32>[16, 32], c: i32) {\n"
            "  var acc: tile<f32>[16, 32] = 0.0\n  for kk in range(0, K, 32) {\n"
            "    acc += X[0 :+ 16, (kk + 2) % c :+ 32]\n  }\n  O[0 :+ 16, 0 :+ 32] = acc\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  x = access_of(&K->body, "X");
  n = 0;
  cr_assert_not(facts_multiple_given(K->ki, x->slice->u.index.idx[1].start, 4, given, &n, 4));
  cr_assert_eq(x->vec, 1);
}

Test(tir_layout, row_sums_of_many_rows_a_thread_put_a_line_of_lanes_across_a_row) {
  const char *why = NULL;
  /* [64, 128] f32 over 4 warps: 32 lanes across a row held 16 rows a thread, 5 shuffles
   * each; 8 lanes (a 128-byte line of 16-byte runs) hold 4 rows, 3 shuffles each */
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[64, 128], S: tensor<f32>[64, 1]) {\n"
                       "  S[0 :+ 64, 0 :+ 1] = rowsum(X[0 :+ 64, 0 :+ 128])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->lay->vec, 4);
  cr_assert_eq(red->lay->lc, 8);
  cr_assert_eq(red->lay->rr, 4);
  /* a column value of the same columns keeps 32 lanes across (fewer would give each
   * thread more of its columns) */
  K = build("@launch(128)\nkernel k(X: tensor<f32>[64, 128], W: tensor<f32>[1, 128], S: tensor<f32>[64, 1]) {\n"
            "  S[0 :+ 64, 0 :+ 1] = rowsum(X[0 :+ 64, 0 :+ 128] * W[0 :+ 1, 0 :+ 128])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(find_op(&K->body, TO_REDUCE)->lay->lc, 32);
}

static int index_of(const TirBlock *b, TirOpKind kind);

Test(tir_sync, copies_of_two_statements_share_the_barrier_before_their_readers) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[M, 128], S: tensor<f32>[M], T: tensor<f32>[M], "
                       "Y: tensor<f32>[M, 128]) {\n  for m0 in range(0, M, 32) {\n"
                       "    var s = reshape(S[m0 :+ 32] * 2.0, [32, 1])\n    var t = reshape(T[m0 :+ 32] + 1.0, [32, 1])\n"
                       "    Y[m0 :+ 32, 0 :+ 128] = X[m0 :+ 32, 0 :+ 128] * s + t\n  }\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(count_ops(&loop->body, TO_SPILL), 2);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 1, "one barrier for both copies");
  /* both copies are made before it, and both readers come after it */
  int bar = index_of(&loop->body, TO_BARRIER);
  for (int i = 0; i < loop->body.ops.len; i++) {
    const TirOp *op = loop->body.ops.items[i];
    if (op->kind == TO_SPILL) cr_assert_lt(i, bar);
    if (op->kind == TO_ASSIGN && op->nacc) cr_assert_gt(i, bar); /* the readers of the copies */
  }
}

Test(tir_layout, a_slice_reshaped_to_a_column_or_row_loads_in_that_shape) {
  const char *why = NULL;
  /* reshape(S[m0 :+ 32], [32, 1]) loads S as the gather S[m0 + rows(32, 1)]: no copy, no
   * barrier; X[k0 :+ 64, 0 :+ 1] made a row the same (its length-1 dim an index) */
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[M, 128], S: tensor<f32>[M], V: tensor<f32>[M, 1], "
                       "Y: tensor<f32>[M, 128], Z: tensor<f32>[1, 64]) {\n  for m0 in range(0, M, 32) {\n"
                       "    Y[m0 :+ 32, 0 :+ 128] = X[m0 :+ 32, 0 :+ 128] * reshape(S[m0 :+ 32], [32, 1])\n"
                       "    Z[0 :+ 1, 0 :+ 64] = X[m0, 0 :+ 64] * reshape(V[m0 :+ 64, 0 :+ 1], [1, 64])\n  }\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 0, "no copy");
  cr_assert_eq(K->nbarriers, 0);
  cr_assert_eq(shared_bufs(K), 0);
  /* a reshape of anything else still reads its copy */
  K = build("@launch(256)\nkernel k(X: tensor<f32>[M, 128], S: tensor<f32>[M], Y: tensor<f32>[M, 128]) {\n"
            "  Y[0 :+ 32, 0 :+ 128] = X[0 :+ 32, 0 :+ 128] * reshape(S[0 :+ 32] * 2.0, [32, 1])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 1);
}

Test(tir_layout, register_rows_of_16_fold_with_shuffles) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\n@registers(t)\nkernel k(X: tensor<f32>[32, 16], S: tensor<f32>[32, 1]) {\n"
                       "  var t: tile<f32>[32, 16] = X[0 :+ 32, 0 :+ 16]\n  var s: tile<f32>[32, 1] = rowsum(t)\n"
                       "  S[0 :+ 32, 0 :+ 1] = s\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->lay->lc, 4);
  cr_assert_eq(red->lay->wc, 1);
  cr_assert_eq(count_ops(&K->body, TO_SCRATCH_WRITE), 0);
  cr_assert_eq(shared_bufs(K), 0);
}

Test(tir_layout, column_reductions_fold_in_registers_then_one_row_per_warp) {
  const char *why = NULL;
  /* [32, 64] over 8 warps: runs of 4, 16 lanes across, 2 lanes and 8 warps down a column */
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[32, 64], C: tensor<f32>[1, 64]) {\n"
                       "  var x = X[0 :+ 32, 0 :+ 64]\n  C[0 :+ 1, 0 :+ 64] = colsum(x) + colmax(x * 2.0)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_SPILL) + count_ops(&K->body, TO_COLREDUCE), 0, "no copy of x");
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 2);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert(tir_down_cols(red));
  cr_assert_eq(red->lay, var_named(K, "x")->layout, "in x's layout");
  cr_assert_eq(red->dst->layout->kind, LY_SLICE);
  cr_assert_eq(red->dst->layout->dim, 0);
  cr_assert_eq(red->dst->layout->parent, red->lay);
  cr_assert_eq(red->lay->lr, 2);
  cr_assert_eq(red->lay->wr, 8);
  cr_assert_eq(layout_count(red->dst->layout), 4, "the thread's 4 columns");
  /* one scratch row per warp each, both written before one barrier */
  cr_assert_eq(shared_bufs(K), 2);
  cr_assert_eq(shared_buf(K, 0)->rows, 8);
  cr_assert_eq(shared_buf(K, 0)->cols, 64);
  cr_assert_eq(K->nbarriers, 1);
  cr_assert_eq(K->ki->shared_bytes, 2 * 8 * 64 * 4);
  /* a column inside one warp: shuffles only */
  K = build("@launch(32)\nkernel k(X: tensor<i32>[16, 64], C: tensor<i32>[1, 64]) {\n"
            "  C[0 :+ 1, 0 :+ 64] = colmin(X[0 :+ 16, 0 :+ 64])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  red = find_op(&K->body, TO_REDUCE);
  cr_assert(red && tir_down_cols(red));
  cr_assert_eq(red->lay->wr, 1);
  cr_assert_eq(red->lay->lr, 2);
  cr_assert_eq(shared_bufs(K), 0);
  cr_assert_eq(K->nbarriers, 0);
  /* a column reduction of a row value walks its copy */
  K = build("@launch(128)\nkernel k(X: tensor<f32>[16, 32], C: tensor<f32>[1, 1]) {\n"
            "  C[0 :+ 1, 0 :+ 1] = colsum(rowsum(X[0 :+ 16, 0 :+ 32]))\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_COLREDUCE), 1);
}

Test(tir_sync, row_across_warps_one_barrier_per_reduction_in_a_loop) {
  const char *why = NULL;
  /* [4, 256] over 8 warps: each row spans 2 warps */
  /* s * 0.5 + rowsum(..) is no accumulation: the fold stays in the loop (carry.c) */
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[M, N], S: tensor<f32>[M, 1]) {\n"
                       "  var s: tile<f32>[4, 1] = 0.0\n  for n0 in range(0, N, 256) {\n"
                       "    s = s * 0.5 + rowsum(X[0 :+ 4, n0 :+ 256])\n  }\n  S[0 :+ 4, 0 :+ 1] = s\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->lay->wc, 2);
  cr_assert_eq(shared_bufs(K), 1);
  cr_assert(shared_buf(K, 0)->alternating, "a scratch written in a loop alternates halves");
  cr_assert_eq(count_ops(&K->body, TO_BARRIER), 1, "the write -> read barrier only");
  cr_assert_eq(K->nbarriers, 1);
}

/* A nest of loops whose bodies need barriers: every (loop, state) is run dry
 * once (sync.c's memo forgets nothing), so the dry runs grow with the depth,
 * not as the product of the levels' rounds; and the barriers are those of a
 * single loop. */
static TirKernel *nest(int depth) {
  char src[4096];
  int n = snprintf(src, sizeof src,
                   "@launch(128)\nkernel k(X: tensor<f32>[N, 32], Y: tensor<f32>[N, 32], n: i32) {\n"
                   "  var t = X[0 :+ 32, 0 :+ 32]\n  var acc: tile<f32>[32, 32] = 0.0\n");
  for (int i = 0; i < depth; i++) n += snprintf(src + n, sizeof src - (size_t)n, "for j%d in range(0, n) {\n", i);
  n += snprintf(src + n, sizeof src - (size_t)n, "acc = acc * 0.5 + transpose(t)\nt = t + acc\n");
  for (int i = 0; i < depth; i++) n += snprintf(src + n, sizeof src - (size_t)n, "}\n");
  snprintf(src + n, sizeof src - (size_t)n, "  Y[1 :+ 32, 0 :+ 32] = acc\n}\n");
  const char *why = NULL;
  TirKernel *K = build(src, NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  return K;
}

Test(tir_sync, a_nest_of_loops_costs_runs_in_proportion_to_its_depth) {
  long runs[21];
  int bars = nest(1)->nbarriers;
  cr_assert_gt(bars, 0, "the transpose's copy needs barriers");
  for (int d = 1; d <= 20; d++) {
    TirKernel *K = nest(d);
    cr_assert_eq(K->nbarriers, bars, "depth %d: the innermost body's barriers, as in one loop", d);
    runs[d] = K->sync_loop_runs;
  }
  /* each level adds what the third added (a run of it from each state its
   * parent reaches), not a multiple of the levels inside it */
  for (int d = 4; d <= 20; d++)
    cr_assert_leq(runs[d] - runs[d - 1], runs[3] - runs[2], "depth %d: %ld loop runs, %ld at depth %d", d, runs[d],
                  runs[d - 1], d - 1);
}

/* ---- carry.c: row reductions accumulated across a loop */

static const char *carry_src(const char *update, const char *extra) {
  static char src[1024];
  snprintf(src, sizeof src,
           "@launch(256)\nkernel k(X: tensor<f32>[M, N], S: tensor<f32>[M, 1], Y: tensor<f32>[M, N]) {\n"
           "  var s: tile<f32>[4, 1] = 0.0\n  for n0 in range(0, N, 256) {\n    %s\n%s  }\n"
           "  S[0 :+ 4, 0 :+ 1] = s\n}\n",
           update, extra);
  return src;
}

static int index_of(const TirBlock *b, TirOpKind kind);

/* The ops of kind kind in the first loop's body. */
static int in_loop(const TirKernel *K, TirOpKind kind) { return count_ops(&find_op(&K->body, TO_FOR)->body, kind); }

Test(tir_carry, a_row_sum_accumulated_across_a_loop_folds_once_after_it) {
  static const char *forms[] = {"s += rowsum(X[0 :+ 4, n0 :+ 256])", "s = s + rowsum(X[0 :+ 4, n0 :+ 256])",
                                "s = rowsum(X[0 :+ 4, n0 :+ 256]) + s", "s -= rowsum(X[0 :+ 4, n0 :+ 256])",
                                "s = max(s, rowmax(X[0 :+ 4, n0 :+ 256]))", "s = min(rowmin(X[0 :+ 4, n0 :+ 256]), s)"};
  for (int f = 0; f < 6; f++) {
    const char *why = NULL;
    TirKernel *K = build(carry_src(forms[f], ""), NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    /* [4, 256] over 8 warps: each row spans 2 warps */
    const TirOp *red = find_op(&K->body, TO_REDUCE);
    cr_assert_eq(red->lay->wc, 2, "%s", forms[f]);
    cr_assert_eq(in_loop(K, TO_REDUCE) + in_loop(K, TO_BARRIER) + in_loop(K, TO_SCRATCH_WRITE), 0,
                 "%s: no fold, scratch or barrier in the loop", forms[f]);
    cr_assert_eq(count_ops(&K->body, TO_REDUCE), 1, "%s", forms[f]);
    cr_assert_eq(K->nbarriers, 1, "%s: the one fold's barrier", forms[f]);
    cr_assert_not(shared_buf(K, 0)->alternating, "%s: the scratch is written once", forms[f]);
    /* the partials: declared before the loop in the fold's layout, started at the
       fold's identity, the step in the loop, and the fold after it reads them */
    int li = index_of(&K->body, TO_FOR);
    const TirOp *init = K->body.ops.items[li - 1], *step = find_op(&find_op(&K->body, TO_FOR)->body, TO_ASSIGN);
    const TirVar *p = init->dst;
    cr_assert_eq(((const TirOp *)K->body.ops.items[li - 2])->kind, TO_DECL);
    cr_assert_eq(p->layout, red->lay);
    cr_assert_eq(layout_count(p->layout), 4 * 256 / 256);
    cr_assert_eq(step->dst, p, "%s", forms[f]);
    cr_assert_eq(tir_hoisted(K, red->expr), p);
    cr_assert(init->expr->flags & EF_CONST);
    if (f < 4) {
      cr_assert(init->expr->cv.f == 0 && signbit(init->expr->cv.f), "%s: a sum's partials start at -0.0", forms[f]);
      cr_assert_eq(step->op, TK_ADD_ASSIGN, "%s: each thread adds its elements", forms[f]);
    } else {
      cr_assert(isnan(init->expr->cv.f), "%s: max and min start at NaN", forms[f]);
      cr_assert_eq(step->op, TK_ASSIGN);
    }
  }
}

Test(tir_carry, the_fold_stays_in_the_loop_when_the_loop_reads_the_tile_or_the_rows_stay_in_a_thread) {
  static const char *cases[][2] = {
      {"s += rowsum(X[0 :+ 4, n0 :+ 256])", "    Y[0 :+ 4, n0 :+ 256] = X[0 :+ 4, n0 :+ 256] - s\n"}, /* read in the loop */
      {"s += rowsum(X[0 :+ 4, n0 :+ 256])", "    s *= 0.5\n"},                                    /* written again */
      {"s += rowsum(X[0 :+ 4, n0 :+ 256]) * 2.0", ""},                                             /* not the reduction alone */
      {"s = rowsum(X[0 :+ 4, n0 :+ 256]) - s", ""},                                                /* not an accumulation */
      {"s = max(s, rowmin(X[0 :+ 4, n0 :+ 256]))", ""},                                            /* another fold */
      {"s += rowsum(X[0 :+ 4, n0 :+ 256])", "    Y[0 :+ 4, 0 :+ 1] = X[i32(abs(s)) % M, 0]\n"},   /* a gather's index */
  };
  for (int c = 0; c < 6; c++) {
    const char *why = NULL;
    TirKernel *K = build(carry_src(cases[c][0], cases[c][1]), NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert_eq(in_loop(K, TO_REDUCE), 1, "%s / %s", cases[c][0], cases[c][1]);
    cr_assert_eq(in_loop(K, TO_BARRIER), 1, "%s / %s", cases[c][0], cases[c][1]);
  }
  /* [32, 4] over 32 threads: a row per thread, nothing crosses threads: nothing to carry */
  const char *why = NULL;
  TirKernel *K = build("@launch(32)\nkernel k(X: tensor<f32>[M, N], S: tensor<f32>[M, 1]) {\n"
                       "  var s: tile<f32>[32, 1] = 0.0\n  for n0 in range(0, N, 4) {\n"
                       "    s += rowsum(X[0 :+ 32, n0 :+ 4])\n  }\n  S[0 :+ 32, 0 :+ 1] = s\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(in_loop(K, TO_REDUCE), 1);
  cr_assert_eq(find_op(&K->body, TO_REDUCE)->lay->lc, 1, "a row in one thread");
}

Test(tir_sync, row_reductions_next_to_each_other_share_one_barrier) {
  const char *why = NULL;
  /* [4, 256] over 8 warps: rows span 2 warps; rowsum(x - rowmax(x)) reads rowmax's value */
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[4, 256], Y: tensor<f32>[4, 256], Z: tensor<f32>[4, 1]) {\n"
                       "  var x = X[0 :+ 4, 0 :+ 256]\n  Y[0 :+ 4, 0 :+ 256] = x / rowsum(x) + rowmax(x) - rowmin(x)\n"
                       "  Z[0 :+ 4, 0 :+ 1] = rowsum(x - rowmax(x))\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 5);
  cr_assert_eq(K->nbarriers, 2, "one for the first statement's three and the second's rowmax (the store to Y waits), "
                                "one for the rowsum that reads that rowmax");
  /* the first four write, then one barrier, then the four reads, then the store to Y */
  int w = index_of(&K->body, TO_SCRATCH_WRITE), bar = index_of(&K->body, TO_BARRIER), rd = index_of(&K->body, TO_SCRATCH_READ);
  cr_assert(w < bar && bar < rd);
  for (int i = rd; i < rd + 4; i++) cr_assert_eq(((const TirOp *)K->body.ops.items[i])->kind, TO_SCRATCH_READ);
  cr_assert(index_of(&K->body, TO_STORE) > rd + 3);
  /* two accumulations carried across one loop: their folds share the barrier after it */
  K = build("@launch(256)\nkernel k(X: tensor<f32>[M, N], S: tensor<f32>[M, 1]) {\n"
            "  var s: tile<f32>[4, 1] = 0.0\n  var q: tile<f32>[4, 1] = 0.0\n  for n0 in range(0, N, 256) {\n"
            "    s += rowsum(X[0 :+ 4, n0 :+ 256])\n    q = max(q, rowmax(X[0 :+ 4, n0 :+ 256]))\n  }\n"
            "  S[0 :+ 4, 0 :+ 1] = s + q\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(in_loop(K, TO_BARRIER), 0);
  cr_assert_eq(K->nbarriers, 1);
}

Test(tir_carry, a_sum_accumulated_into_a_scalar_folds_once_after_the_loop) {
  static const char *forms[] = {"t += sum(X[i :+ 1024])", "t = t + sum(X[i :+ 1024])", "t = t - sum(X[i :+ 1024])",
                                "t += sum(X[i :+ 1024])\n    if t > 1.0e30 {\n      break\n    }"};
  for (int f = 0; f < 4; f++) {
    char src[512];
    snprintf(src, sizeof src,
             "@launch(256)\nkernel k(X: tensor<f32>[N], P: tensor<f32>[1]) {\n  var t = 0.0\n"
             "  for i in range(0, N, 1024) {\n    %s\n  }\n  P[0] = t\n}\n", forms[f]);
    const char *why = NULL;
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    bool read_in_loop = f == 3;
    cr_assert_eq(in_loop(K, TO_SUM), read_in_loop, "%s", forms[f]);
    cr_assert_eq(in_loop(K, TO_BARRIER), read_in_loop, "%s", forms[f]);
    cr_assert_eq(count_ops(&K->body, TO_SUM), 1);
    cr_assert_eq(K->nbarriers, 1);
    if (read_in_loop) continue;
    const TirOp *sum = find_op(&K->body, TO_SUM);
    cr_assert_eq(sum->src, find_op(&find_op(&K->body, TO_FOR)->body, TO_ASSIGN)->dst, "%s: the fold sums the partials", forms[f]);
    cr_assert_eq(layout_count(sum->src->layout), 1024 / 256);
  }
}

Test(tir_carry, a_column_reduction_accumulated_across_a_loop_folds_once_after_it) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[M, N], C: tensor<f32>[1, 64], D: tensor<f32>[1, 64]) {\n"
                       "  var c: tile<f32>[1, 64] = 0.0\n  var d: tile<f32>[1, 64] = 0.0\n"
                       "  for m0 in range(0, M, 32) {\n    c += colsum(X[m0 :+ 32, 0 :+ 64])\n"
                       "    d = max(colmax(X[m0 :+ 32, 0 :+ 64]), d)\n  }\n"
                       "  C[0 :+ 1, 0 :+ 64] = c\n  D[0 :+ 1, 0 :+ 64] = d\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(in_loop(K, TO_SPILL) + in_loop(K, TO_REDUCE) + in_loop(K, TO_BARRIER) + in_loop(K, TO_SCRATCH_WRITE), 0,
               "no copy, fold or barrier in the loop");
  cr_assert_eq(count_ops(&K->body, TO_SPILL) + count_ops(&K->body, TO_COLREDUCE), 0, "no copy walked");
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 2);
  cr_assert_eq(K->nbarriers, 1, "both folds' scratch written before one barrier");
  /* each fold after the loop is of partials the loop accumulates in place of the chunk */
  const TirBlock *body = &find_op(&K->body, TO_FOR)->body;
  int folds = 0;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *r = K->body.ops.items[i];
    if (r->kind != TO_REDUCE) continue;
    cr_assert(tir_down_cols(r));
    const TirVar *p = tir_hoisted(K, r->expr);
    cr_assert(p, "the fold reads a value");
    bool stepped = false;
    for (int j = 0; j < body->ops.len; j++) stepped |= ((const TirOp *)body->ops.items[j])->kind == TO_ASSIGN && ((const TirOp *)body->ops.items[j])->dst == p;
    cr_assert(stepped, "the fold of %s, which the loop does not accumulate", p->cname);
    cr_assert_eq(layout_count(p->layout), 32 * 64 / 256);
    folds++;
  }
  cr_assert_eq(folds, 2);
  /* the chunk read by a transpose too: its copy stays in the loop for the
   * transpose, and the column sum is carried all the same */
  K = build("@launch(256)\nkernel k(X: tensor<f32>[M, 64], C: tensor<f32>[1, 64], T: tensor<f32>[64, 32]) {\n"
            "  var c: tile<f32>[1, 64] = 0.0\n  var t: tile<f32>[64, 32] = 0.0\n"
            "  for m0 in range(0, M, 32) {\n    var x = X[m0 :+ 32, 0 :+ 64]\n    c += colsum(x)\n    t += transpose(x)\n  }\n"
            "  C[0 :+ 1, 0 :+ 64] = c\n  T[0 :+ 64, 0 :+ 32] = t\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(in_loop(K, TO_REDUCE), 0);
  cr_assert_eq(in_loop(K, TO_SPILL), 1, "the transpose's copy");
}

Test(tir_carry, explain_says_what_became_of_each_accumulation_and_why) {
  const char *why = NULL;
  TirKernel *K = build(carry_src("s += rowsum(X[0 :+ 4, n0 :+ 256])", "    Y[0 :+ 4, n0 :+ 256] = X[0 :+ 4, n0 :+ 256] - s\n"),
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->folds.len, 1);
  cr_assert_str_eq(K->folds.items[0], "rowsum at line 5, accumulated into s across the loop at line 4: folded across threads "
                                      "in each iteration: s is read or written elsewhere in the loop");
  K = build(carry_src("s += rowsum(X[0 :+ 4, n0 :+ 256])", ""), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->folds.len, 1);
  cr_assert(strstr(K->folds.items[0], "each thread carries its elements across the loop (t2c_p") &&
                strstr(K->folds.items[0], ", 4 per thread), folded across threads once, after it"),
            "%s", (const char *)K->folds.items[0]);
  /* one that stays in the loop, before one carried: said once, though carrying looks at the body again */
  K = build("@launch(256)\nkernel k(X: tensor<f32>[M, N], S: tensor<f32>[M, 1], Y: tensor<f32>[M, N]) {\n"
            "  var q: tile<f32>[4, 1] = 0.0\n  var s: tile<f32>[4, 1] = 0.0\n  for n0 in range(0, N, 256) {\n"
            "    q += rowsum(X[0 :+ 4, n0 :+ 256])\n    Y[0 :+ 4, n0 :+ 256] = X[0 :+ 4, n0 :+ 256] - q\n"
            "    s += rowsum(X[0 :+ 4, n0 :+ 256])\n  }\n  S[0 :+ 4, 0 :+ 1] = s + q\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->folds.len, 2);
  cr_assert(strstr(K->folds.items[0], "accumulated into q") && strstr(K->folds.items[0], "in each iteration"));
  cr_assert(strstr(K->folds.items[1], "accumulated into s") && strstr(K->folds.items[1], "carries its elements"));
  /* no accumulation, nothing said */
  K = build(carry_src("s = s * 0.5 + rowsum(X[0 :+ 4, n0 :+ 256])", ""), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->folds.len, 0);
}

Test(tir_carry, f16_rows_and_nested_loops) {
  /* a row sum of f16 rounds each row's f32 sum back to f16: carrying would not */
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f16>[M, N], S: tensor<f16>[M, 1]) {\n"
                       "  var s: tile<f16>[4, 1] = 0.0\n  for n0 in range(0, N, 256) {\n"
                       "    s += rowsum(X[0 :+ 4, n0 :+ 256])\n  }\n  S[0 :+ 4, 0 :+ 1] = s\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(in_loop(K, TO_REDUCE), 1);
  /* nested loops: the partials are carried across both, and fold after the outer one */
  K = build("@launch(256)\nkernel k(X: tensor<f32>[M, N], S: tensor<f32>[M, 1]) {\n"
            "  var s: tile<f32>[4, 1] = 0.0\n  for b0 in range(0, N, 1024) {\n"
            "    for n0 in range(b0, min(b0 + 1024, N), 256) {\n      s += rowsum(X[0 :+ 4, n0 :+ 256])\n    }\n  }\n"
            "  S[0 :+ 4, 0 :+ 1] = s\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *outer = find_op(&K->body, TO_FOR);
  cr_assert_eq(count_ops(&outer->body, TO_REDUCE) + count_ops(&outer->body, TO_DECL), 0,
               "no fold and no partials of their own inside the outer loop");
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 1);
  cr_assert_eq(K->nbarriers, 1);
  const TirOp *step = find_op(&find_op(&outer->body, TO_FOR)->body, TO_ASSIGN);
  cr_assert_eq(tir_hoisted(K, find_op(&K->body, TO_REDUCE)->expr), step->dst, "one set of partials");
}

/* A reduction a few statements on writes its scratch before the held reads
 * when what lies between waits or is independent; what depends on it does not. */
Test(tir_sync, a_later_independent_reduction_joins_the_barrier_of_an_earlier_one) {
  const char *why = NULL;
  const char *head = "@launch(256)\nkernel k(X: tensor<f32>[4, 256], Y: tensor<f32>[4, 256], Z: tensor<f32>[4, 1],\n"
                     "         W: tensor<f32>[4, 1]) {\n  var x = X[0 :+ 4, 0 :+ 256]\n";
  static const struct {
    const char *body;
    int barriers;
    const char *what;
  } cases[] = {
    {"  var m = rowmax(x)\n  var s = rowsum(x)\n  Y[0 :+ 4, 0 :+ 256] = x / s + m\n}\n", 1, "two var statements"},
    {"  Z[0 :+ 4, 0 :+ 1] = rowmax(x)\n  var y = Y[0 :+ 4, 0 :+ 256]\n  W[0 :+ 4, 0 :+ 1] = rowsum(y)\n}\n", 1,
     "a store that waits, a load of another tensor that goes before"},
    {"  var m = rowmax(x)\n  x += m\n  var s = rowsum(x)\n  Y[0 :+ 4, 0 :+ 256] = x / s\n}\n", 2,
     "the second reduction reads x, which an op that waits writes"},
    {"  Z[0 :+ 4, 0 :+ 1] = rowmax(x)\n  var z = Z[0 :+ 4, 0 :+ 1]\n  W[0 :+ 4, 0 :+ 1] = rowsum(x + z)\n}\n", 3,
     "a load of the tensor a waiting store writes waits (Z's own barrier between), and the reduction reads it"},
    {"  var m = rowmax(x)\n  Y[0 :+ 4, 0 :+ 256] = x - m\n  x = X[0 :+ 4, 0 :+ 256] * 2.0\n  W[0 :+ 4, 0 :+ 1] = rowsum(x)\n}\n",
     2, "an op that would go before writes x, which a waiting store reads"},
    {"  var m = rowmax(x)\n  var n = 0\n  var s = rowsum(x)\n  Y[0 :+ 4, 0 :+ 256] = x / s + m\n}\n", 1,
     "a scalar statement in between that reads nothing held goes before"},
    {"  var t = sum(x)\n  var u = t * 2.0\n  var s = rowsum(x)\n  Y[0 :+ 4, 0 :+ 256] = x / s + u\n}\n", 1,
     "a scalar statement that reads the held sum waits"},
    {"  var t = sum(x)\n  var u = t * 2.0\n  W[0 :+ 4, 0 :+ 1] = rowsum(x * u)\n}\n", 2,
     "the reduction reads a scalar that waits"},
    {"  var c = cumsum(x)\n  var s = rowsum(x)\n  Y[0 :+ 4, 0 :+ 256] = c / s\n}\n", 1, "a scan and a reduction"},
    {"  W[0 :+ 4, 0 :+ 1] = rowsum(X[i32(abs(sum(x))) % 4 :+ 4, 0 :+ 256])\n}\n", 2,
     "a load whose index reads the held sum waits, and the reduction reads what it loads"},
  };
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    char src[1024];
    snprintf(src, sizeof src, "%s%s", head, cases[c].body);
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "%s: not lowered: %s", cases[c].what, why ? why : diag_text);
    cr_assert_eq(K->nbarriers, cases[c].barriers, "%s: %d barriers", cases[c].what, K->nbarriers);
  }
}

Test(tir_sync, element_stores_of_thread_0_need_no_barrier_between_them) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[4, 32], S: tensor<f32>[4]) {\n"
                       "  S[0] = 1.0\n  S[1] = 2.0\n  S[0] = 3.0\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->nbarriers, 0, "one thread stores them, in order");
  /* a store by every thread after one of thread 0 is another thread's write */
  K = build("@launch(128)\nkernel k(X: tensor<f32>[4, 32], S: tensor<f32>[4]) {\n"
            "  S[0] = 1.0\n  S[0 :+ 4] = X[0, 0 :+ 4]\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->nbarriers, 1);
  /* and under thread-dependent control each thread stores its own */
  K = build("@launch(128)\nkernel k(X: tensor<f32>[4, 32], S: tensor<f32>[4]) {\n"
            "  if ctx.thread == 5 {\n    S[0] = 1.0\n  }\n  S[0] = 2.0\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->nbarriers, 1);
}

/* A tensor read and stored back at the slice of a loop variable (an in-place
 * update, Adam's moments): each iteration's load and store are by one thread
 * per element, and iterations whose windows are disjoint (a constant step at
 * least the slice's length, the start the loop variable plus a value of the
 * launch, the loop's start one value too) need no barrier between them. Where
 * another thread may touch an element an earlier iteration touched, the
 * barrier before the load stays (and the store after it needs none). */
Test(tir_sync, a_loop_variables_in_place_update_is_ordered_only_where_windows_meet) {
  static const struct {
    const char *what, *body;
    int barriers;
  } cases[] = {
      {"step = length, two statements", "for n0 in range(0, N, 512) {\n var m = M[n0 :+ 512] * 2.0\n M[n0 :+ 512] = m\n}", 0},
      {"one statement", "for n0 in range(0, N, 512) {\n M[n0 :+ 512] = M[n0 :+ 512] * 2.0\n}", 0},
      {"step > length, offset start", "for n0 in range(3, N, 640) {\n var m = M[n0 + 8 :+ 512] * 2.0\n M[n0 + 8 :+ 512] = m\n}", 0},
      {"i * 512", "for i in range(0, cdiv(N, 512)) {\n var m = M[i * 512 :+ 512] * 2.0\n M[i * 512 :+ 512] = m\n}", 0},
      {"an index of one value in the launch", "for i in range(0, 4) {\n var m = M[512 :+ 512] * 2.0\n M[512 :+ 512] = m\n}", 0},
      {"Adam's moments", "for n0 in range(0, N, 512) {\n var g = G[n0 :+ 512]\n var m = M[n0 :+ 512] * b1 + (1.0 - b1) * g\n"
                        " M[n0 :+ 512] = m\n var p = P[n0 :+ 512]\n P[n0 :+ 512] = p - lr * m\n}", 0},
      /* barriers that stay */
      {"step < length", "for n0 in range(0, N, 256) {\n var m = M[n0 :+ 512] * 2.0\n M[n0 :+ 512] = m\n}", 1},
      {"step < length, one statement", "for n0 in range(0, N, 256) {\n M[n0 :+ 512] = M[n0 :+ 512] * 2.0\n}", 1},
      {"a shifted read", "for n0 in range(0, N, 512) {\n var m = M[n0 + 1 :+ 512] * 2.0\n M[n0 :+ 512] = m\n}", 2},
      {"a start that is not the loop variable's", "for n0 in range(0, N, 512) {\n var m = M[n0 / 2 :+ 512] * 2.0\n"
                                                   " M[n0 / 2 :+ 512] = m\n}", 1},
      {"a loop whose start changes", "for i in range(0, 4) {\n for n0 in range(i * 8, N, 512) {\n"
                                     "  var m = M[n0 :+ 512] * 2.0\n  M[n0 :+ 512] = m\n }\n}", 1},
      {"a start read from a tensor", "for i in range(0, 4) {\n var s = S[i]\n var m = M[s :+ 512] * 2.0\n M[s :+ 512] = m\n}", 1},
      /* and the store's: s is assigned in the loop, the pass does not follow where */
      {"a var assigned again", "var s = 0\nfor i in range(0, 4) {\n var m = M[s :+ 512] * 2.0\n M[s :+ 512] = m\n s += 1\n}", 2},
  };
  const char *head = "@launch(128)\nkernel k(M: tensor<f32>[N], G: tensor<f32>[N], P: tensor<f32>[N], S: tensor<i32>[4],"
                     " b1: f32, lr: f32) {\n";
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const char *why = NULL;
    char src[1024];
    snprintf(src, sizeof src, "%s%s\n}\n", head, cases[c].body);
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "%s: not lowered: %s", cases[c].what, why ? why : diag_text);
    cr_assert_eq(K->nbarriers, cases[c].barriers, "%s: %d barriers", cases[c].what, K->nbarriers);
  }
}

/* The same update with its store in another layout: each thread stores
 * elements other threads loaded, in this iteration and the one before. */
Test(tir_sync, an_in_place_update_in_another_layout_keeps_its_barriers) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(M: tensor<f32>[N]) {\n  for n0 in range(0, N, 512) {\n"
                       "    var m = M[n0 :+ 512] * 2.0\n    M[n0 :+ 512] = m\n  }\n}\n", "pipeline", &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  TirOp *st = (TirOp *)find_op(&K->body, TO_STORE);
  cr_assert(st && st->lay);
  Layout *other = arena_alloc(&arena, sizeof *other);
  *other = *st->lay;
  other->lc = 32, other->vec = 1; /* lanes along the runs: another thread at each element */
  st->lay = other;
  sync_place(K);
  cr_assert_eq(K->nbarriers, 2, "the load after the last iteration's store, the store after the load");
}

Test(tir_sync, scratch_outside_loops_write_read_barrier) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[4, 256], S: tensor<f32>[4, 1], T: tensor<f32>[4, 1]) {\n"
                       "  var x = X[0 :+ 4, 0 :+ 256]\n  S[0 :+ 4, 0 :+ 1] = rowsum(x)\n"
                       "  T[0 :+ 4, 0 :+ 1] = rowmax(x)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(shared_bufs(K), 2);
  cr_assert_not(shared_buf(K, 0)->alternating);
  /* each writes its own buffer; the store to S waits, so that rowmax's scratch
   * is written before the one barrier */
  cr_assert_eq(K->nbarriers, 1);
  const TirOp *bar = find_op(&K->body, TO_BARRIER);
  cr_assert(strstr(bar->reason, "written at line 4, read here"), "%s", bar->reason);
  cr_assert(strstr(bar->reason, "(written at line 5)"), "%s", bar->reason);
  cr_assert(index_of(&K->body, TO_STORE) > index_of(&K->body, TO_BARRIER));
}

Test(tir_sync, stages_stop_where_asked) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[4, 256], S: tensor<f32>[4, 1]) {\n"
                       "  S[0 :+ 4, 0 :+ 1] = rowsum(X[0 :+ 4, 0 :+ 256])\n}\n", "layout", &why);
  cr_assert(K);
  cr_assert_str_eq(K->stage, "layout");
  cr_assert_eq(count_ops(&K->body, TO_SCRATCH_WRITE), 1);
  cr_assert_eq(count_ops(&K->body, TO_BARRIER), 0, "sync has not run");
}

Test(tir_smem, offsets_are_16_byte_aligned_and_kernel_info_is_filled) {
  const char *why = NULL;
  TirKernel *K = build("@launch(96)\nkernel k(X: tensor<f32>[3, 96], S: tensor<f32>[3, 1], T: tensor<f32>[3, 1]) {\n"
                       "  var x = X[0 :+ 3, 0 :+ 96]\n  S[0 :+ 3, 0 :+ 1] = rowsum(x)\n"
                       "  T[0 :+ 3, 0 :+ 1] = rowmin(x)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(shared_bufs(K), K->ki->nshared);
  int64_t total = 0;
  for (int i = 0; i < K->ki->nshared; i++) {
    const TirBuf *f = shared_buf(K, i);
    cr_assert_eq(f->offset % 16, 0);
    cr_assert_eq(K->ki->shared[i].bytes, f->bytes);
    cr_assert_eq(f->bytes, (int64_t)f->rows * f->cols * 4);
    total = f->offset + (f->bytes + 15) / 16 * 16;
  }
  cr_assert_eq(K->ki->shared_bytes, total);
}

Test(tir_lower, kernels_outside_the_ir_say_why) {
  const char *why = NULL;
  /* a one-element slice loaded into a longer tile: into a value of the slice's shape, then broadcast */
  TirKernel *K = build("@launch(64)\nkernel k(B: tensor<f32>[4], O: tensor<f32>[64]) {\n"
                       "  var b: tile<f32>[64] = B[2 :+ 1]\n  O[0 :+ 64] = b\n}\n", NULL, &why);
  cr_assert(K, "%s", why ? why : diag_text);
  const TirOp *ld = find_op(&K->body, TO_LOAD);
  cr_assert(ld->dst != var_named(K, "b") && ld->dst->cols == 1);
  cr_assert(find_op(&K->body, TO_ASSIGN)->dst == var_named(K, "b"));
  /* a row sum of a tall tile over one warp: the operand's layout puts more lanes
   * down the rows, so that the [128, 1] result holds at most 64 per thread */
  why = NULL;
  K = build("@launch(32)\nkernel k(I: tensor<f32>[128, 256], L: tensor<f32>[128, 1]) {\n"
            "  L[0 :+ 128, 0 :+ 1] = rowsum(I[0 :+ 128, 0 :+ 256])\n}\n", NULL, &why);
  cr_assert(K, "%s", why ? why : diag_text);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_leq(layout_count(red->dst->layout), MAX_REGS);
  cr_assert_eq(red->lay->vec, 4, "whole 16-byte runs still");
  /* a column sum of f16 is lowered: folded in f32, rounded once */
  why = NULL;
  K = build("@launch(128)\nkernel k(H: tensor<f16>[16, 16], L: tensor<f16>[1, 16]) {\n"
            "  L[0 :+ 1, 0 :+ 16] = colsum(H[0 :+ 16, 0 :+ 16])\n}\n", NULL, &why);
  cr_assert(K, "%s", why ? why : diag_text);
  const TirOp *cred = find_op(&K->body, TO_REDUCE);
  cr_assert(cred && tir_down_cols(cred), "in registers");
  cr_assert_eq(cred->dst->elem, T_F32);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 0);
  /* an f32 dot is lowered, on the CUDA cores */
  why = NULL;
  K = build("@launch(128)\nkernel k(A: tensor<f32>[16, 16], B: tensor<f32>[16, 16], C: tensor<f32>[16, 16]) {\n"
            "  C[0 :+ 16, 0 :+ 16] = dot(A[0 :+ 16, 0 :+ 16], B[0 :+ 16, 0 :+ 16])\n}\n", NULL, &why);
  cr_assert(K, "%s", why ? why : diag_text);
  cr_assert(find_op(&K->body, TO_DOT) && find_op(&K->body, TO_DOT)->simt);
  /* 4 warps cannot share one 16 x 16 accumulator of 16 x 8 tiles: on the CUDA
   * cores, in f32, with the warning's reason */
  why = NULL;
  K = build("@launch(128)\nkernel k(A: tensor<f16>[16, 16], B: tensor<f16>[16, 16], C: tensor<f32>[16, 16]) {\n"
            "  C[0 :+ 16, 0 :+ 16] = dot(A[0 :+ 16, 0 :+ 16], B[0 :+ 16, 0 :+ 16])\n}\n", NULL, &why);
  cr_assert(K, "%s", why ? why : diag_text);
  const TirOp *d = find_op(&K->body, TO_DOT);
  cr_assert(d->simt && !d->wgmma);
  cr_assert_eq(d->dst->elem, T_F32);
  cr_assert_eq(d->src->elem, T_F16);
  cr_assert_str_eq(d->offunit, "a dot accumulator the warps cannot tile in 16 x 8 tiles");
  cr_assert_eq(d->lay->kind, LY_BLOCKED);
  cr_assert_not(d->lay->mma);
  cr_assert(strstr(diag_text, "this dot of f16 operands runs on the CUDA cores"), "%s", diag_text);
  /* an i8 dot with k = 16, below the instruction's 32: on the CUDA cores, in i32 */
  why = NULL;
  K = build("@launch(64)\nkernel k(X: tensor<i8>[16, 16], Y: tensor<i8>[16, 16], Z: tensor<i32>[16, 16]) {\n"
            "  Z[0 :+ 16, 0 :+ 16] = dot(X[0 :+ 16, 0 :+ 16], Y[0 :+ 16, 0 :+ 16])\n}\n", NULL, &why);
  cr_assert(K, "%s", why ? why : diag_text);
  d = find_op(&K->body, TO_DOT);
  cr_assert(d->simt);
  cr_assert_eq(d->dst->elem, T_I32);
  cr_assert_str_eq(d->offunit, "an i8 dot whose shape is not a multiple of the instruction's (16 x 8 x 32)");
}

static const TirOp *find_loop(const TirBlock *b) { return find_op(b, TO_FOR); }

/* The barriers of b (not inside its ops) whose reason has `raw` (a read of another
 * thread's write) and `war` (an overwrite of another thread's read). */
static void count_hazards(const TirBlock *b, int *raw, int *war) {
  *raw = *war = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind != TO_BARRIER) continue;
    *raw += strstr(op->reason, "read here by other threads") != NULL;
    *war += strstr(op->reason, "overwritten here by other threads") != NULL;
  }
}

Test(tir_sync, loop_war_hazard_on_a_large_shared_copy_gets_a_barrier_inside_the_loop) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 32]) {\n"
                       "  for r in range(0, N, 32) {\n    var x = X[r :+ 32, 0 :+ 64]\n"
                       "    Y[r :+ 32, 0 :+ 32] = x[0 :+ 32, 32 :+ 32]\n  }\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_loop(&K->body);
  cr_assert(loop);
  /* x[0 :+ 32, 32 :+ 32] reads x at other threads' elements: x is spilled to its
   * shared copy each iteration, 8 KB, past TIR_ALT_COPY_BYTES, so written in place:
   * a barrier after the copy (RAW), and one before the next iteration's copy
   * overwrites what this one read (WAR) */
  cr_assert_eq(count_ops(&loop->body, TO_SPILL), 1);
  const TirOp *sp = find_op(&loop->body, TO_SPILL);
  cr_assert_not(K->bufs[sp->buf].alternating);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 2);
  int raw, war;
  count_hazards(&loop->body, &raw, &war);
  cr_assert_eq(raw, 1);
  cr_assert_eq(war, 1);
}

Test(tir_sync, a_4kb_tile_alternates_halves_though_its_padded_copy_is_larger) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[N, K], Y: tensor<f32>[N, 32]) {\n"
                       "  var acc: tile<f32>[32, 32] = 0.0\n  for k0 in range(0, K, 32) {\n"
                       "    var t = X[0 :+ 32, k0 :+ 32]\n    acc += transpose(t)\n  }\n"
                       "  Y[0 :+ 32, 0 :+ 32] = acc\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_loop(&K->body);
  cr_assert(loop);
  /* t is [32, 32] f32, 4 KB (TIR_ALT_COPY_BYTES); its copy's rows are padded to 33
   * elements (4224 bytes a half): it alternates all the same, one barrier (RAW) */
  const TirOp *sp = find_op(&loop->body, TO_SPILL);
  cr_assert(sp);
  cr_assert(K->bufs[sp->buf].alternating);
  cr_assert_eq(K->bufs[sp->buf].bytes, 2 * 32 * 33 * 4);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 1);
}

Test(tir_sync, a_small_shared_copy_in_a_loop_alternates_halves_and_needs_one_barrier) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[N, 32], Y: tensor<f32>[N]) {\n"
                       "  for r in range(0, N, 8) {\n    var x = X[r :+ 8, 0 :+ 32]\n"
                       "    var s = rowsum(x)\n    Y[r :+ 8] = s[0 :+ 8, 0]\n  }\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_loop(&K->body);
  cr_assert(loop);
  /* s[0 :+ 8, 0] reads s at other threads' rows: s's copy (32 bytes) is written
   * each iteration into the other half, so the next iteration's write does not
   * wait for this one's reads: the barrier after the copy (RAW) alone */
  cr_assert_eq(count_ops(&loop->body, TO_SPILL), 1);
  const TirOp *sp = find_op(&loop->body, TO_SPILL);
  cr_assert(K->bufs[sp->buf].alternating);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 1);
  int raw, war;
  count_hazards(&loop->body, &raw, &war);
  cr_assert_eq(raw, 1);
  cr_assert_eq(war, 0);
}

/* The index in b's ops of the first op of kind, or -1. */
static int index_of(const TirBlock *b, TirOpKind kind) {
  for (int i = 0; i < b->ops.len; i++)
    if (((const TirOp *)b->ops.items[i])->kind == kind) return i;
  return -1;
}

Test(tir_sync, a_copy_made_before_a_loop_gets_its_barrier_before_the_loop) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[N, 32], Y: tensor<f32>[N, 32], n: i32) {\n"
                       "  var t = X[0 :+ 32, 0 :+ 32]\n  var acc: tile<f32>[32, 32] = 0.0\n"
                       "  for i in range(0, n) {\n    acc = acc + transpose(t)\n  }\n"
                       "  Y[0 :+ 32, 0 :+ 32] = acc\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  /* t is copied once, before the loop; each iteration reads the copy at
   * other threads' elements: one barrier after the copy, before the loop,
   * and none in the loop (reads after reads need none) */
  int at = index_of(&K->body, TO_FOR), spill = index_of(&K->body, TO_SPILL);
  cr_assert(at >= 1 && spill >= 0 && spill < at);
  const TirOp *loop = K->body.ops.items[at], *bar = K->body.ops.items[at - 1];
  cr_assert_eq(bar->kind, TO_BARRIER);
  cr_assert(!bar->warp);
  cr_assert(strstr(bar->reason, "once before the loop"), "%s", bar->reason);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 0);
  cr_assert_eq(K->nbarriers, 1);
}

Test(tir_sync, a_loop_that_needs_its_barrier_in_each_iteration_keeps_it_there) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64], n: i32) {\n"
                       "  var t = X[0 :+ 64, 0 :+ 64]\n"
                       "  for i in range(0, n) {\n    t = transpose(t) * 0.5\n  }\n"
                       "  Y[0 :+ 64, 0 :+ 64] = t\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  /* each iteration copies t (16 KB, written in place: past TIR_ALT_COPY_BYTES) and
   * reads the copy transposed: the copy -> read barrier and the read -> next copy
   * one are needed in every iteration, and a barrier before the loop would remove
   * neither */
  int at = index_of(&K->body, TO_FOR);
  cr_assert(at >= 0);
  const TirOp *loop = K->body.ops.items[at];
  cr_assert(at == 0 || ((const TirOp *)K->body.ops.items[at - 1])->kind != TO_BARRIER);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 2);
}

Test(tir_smem, shared_copies_above_48k_use_dynamic_shared_memory) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel big(X: tensor<f32>[128, 128], Y: tensor<f32>[128, 128]) {\n"
                       "  var a = X[0 :+ 128, 0 :+ 128]\n  var b = transpose(a)\n  Y[0 :+ 128, 0 :+ 128] = a + b\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  /* a's copy: 128 rows of 129 floats (one more: transpose reads its columns) */
  cr_assert_eq(shared_bufs(K), 1);
  cr_assert_eq(shared_buf(K, 0)->pitch, 129);
  cr_assert_eq(shared_buf(K, 0)->bytes, 128 * 129 * 4);
  cr_assert(K->ki->dynamic_smem);
  cr_assert_eq(K->ki->shared_bytes, 128 * 129 * 4);
  cr_assert_eq(K->nbarriers, 1);
}

Test(tir_lower, one_copy_serves_reads_until_the_value_changes) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[16, 32], Y: tensor<f32>[32, 16], C: tensor<f32>[1, 32],\n"
                       "         Z: tensor<f32>[16, 32]) {\n  var x = X[0 :+ 16, 0 :+ 32]\n"
                       "  Y[0 :+ 32, 0 :+ 16] = transpose(x)\n  C[0 :+ 1, 0 :+ 32] = x[2 :+ 1, 0 :+ 32]\n"
                       "  x += 1.0\n  Z[0 :+ 16, 0 :+ 32] = x - x[3 :+ 1, 0 :+ 32]\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  /* transpose and the sub-tile read share the first copy; x += 1.0 makes it stale */
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 2);
  /* after the first copy; before the second (WAR); after the second */
  cr_assert_eq(K->nbarriers, 3);
}

Test(tir_layout, sum_folds_in_registers_and_one_slot_per_warp) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\n@registers(t)\nkernel k(X: tensor<f32>[16, 32], T: tensor<f32>[1]) {\n"
                       "  var t: tile<f32>[16, 32] = X[0 :+ 16, 0 :+ 32]\n  T[0] = sum(t)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *sum = find_op(&K->body, TO_SUM);
  cr_assert(sum);
  cr_assert_eq(sum->dst->layout->kind, LY_SCALAR);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 0, "no copy of the register tile");
  cr_assert_eq(shared_bufs(K), 1);
  cr_assert_eq(shared_buf(K, 0)->rows, 4, "one slot per warp");
  cr_assert_eq(K->nbarriers, 1);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert_eq(st->rows, 0, "one element, stored by thread 0");
  cr_assert_not(st->td);
}

Test(tir_layout, element_writes_into_a_tile_are_made_by_the_thread_that_holds_the_element) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(B: tensor<f32>[48], Y: tensor<f32>[48]) {\n"
                       "  var b: tile<f32>[48] = 0.0\n  for j in range(0, 48) {\n    b[j] = B[j] * 2.0\n  }\n"
                       "  Y[0 :+ 48] = b\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  /* b[j] = ... is an assignment to b over a window of one column: no shared copy
   * (its value is a scalar), no barrier, in the loop or before it */
  const TirOp *loop = find_op(&K->body, TO_FOR);
  const TirOp *w = find_op(&loop->body, TO_ASSIGN);
  cr_assert(w && w->has_win);
  cr_assert_eq(w->win_len[1], 1);
  cr_assert_eq(shared_bufs(K), 0);
  cr_assert_eq(K->nbarriers, 0);
}

/* A window write of a slice of a tensor the kernel does not write reads the tensor at
 * its own elements of the tile (lower.c window_load): the slice is never held and has
 * no copy; t[8 :+ 8, ..] still goes through t's copy, after one barrier. */
Test(tir_sync, a_partial_write_of_a_slice_reads_the_tensor_at_its_own_elements) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel halves(X: tensor<f32>[16, 32], Y: tensor<f32>[16, 32]) {\n"
                       "  var t: tile<f32>[16, 32]\n  t[0 :+ 16, 0 :+ 16] = X[0 :+ 16, 16 :+ 16]\n"
                       "  t[0 :+ 16, 16 :+ 16] = X[0 :+ 16, 0 :+ 16]\n"
                       "  t[0 :+ 8, 0 :+ 32] = t[8 :+ 8, 0 :+ 32] * 2.0\n  Y[0 :+ 16, 0 :+ 32] = t\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *ld = find_op(&K->body, TO_LOAD), *w = find_op(&K->body, TO_ASSIGN);
  cr_assert(ld && w && w->has_win);
  cr_assert_eq(ld->dst->fused, ld, "the slice is never held");
  cr_assert_eq(ld->dst->win_of, w, "the window write reads X itself");
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 1, "t's copy only");
  cr_assert_eq(K->nbarriers, 1, "after t's copy");
}

/* The same slice of a tensor the kernel writes keeps its copy: the window write reads
 * the values loaded at the statement, through the copy, after a barrier. */
Test(tir_sync, a_partial_write_of_a_written_tensor_reads_the_slice_through_its_copy) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel halves(Y: tensor<f32>[16, 32]) {\n"
                       "  var t: tile<f32>[16, 32]\n  t[0 :+ 16, 0 :+ 16] = Y[0 :+ 16, 16 :+ 16]\n"
                       "  t[0 :+ 16, 16 :+ 16] = 1.0\n"
                       "  t[0 :+ 8, 0 :+ 32] = t[8 :+ 8, 0 :+ 32] * 2.0\n  Y[0 :+ 16, 0 :+ 32] = t\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *ld = find_op(&K->body, TO_LOAD);
  cr_assert(ld && !ld->dst->fused && !ld->dst->win_of);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 2, "the slice's copy and t's");
  cr_assert_eq(K->nbarriers, 2, "one after each copy");
}

/* A row value that is a slice of one layout ([64, 32]: lanes 8 x 4 rows) read by an
 * op in another whose threads hold other rows ([64, 64]: lanes 16 x 2) is read
 * through its shared copy (a conversion): one spill right before the op, a barrier,
 * and the op reads the copy. */
Test(tir_layout, a_row_value_read_in_a_layout_of_other_rows_goes_through_its_copy) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\n"
                       "kernel r(X: tensor<f32>[64, 32], Y: tensor<f32>[64, 64], O: tensor<f32>[64, 64]) {\n"
                       "  var s = X[0 :+ 64, 0 :+ 32]\n  var m = rowmax(s)\n"
                       "  O[0 :+ 64, 0 :+ 64] = Y[0 :+ 64, 0 :+ 64] - m\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirVar *m = var_named(K, "m"), *s = var_named(K, "s");
  cr_assert_eq(m->layout->kind, LY_SLICE);
  cr_assert_eq(m->layout->parent, s->layout, "m lives where rowmax(s) made it");
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(st->lay != s->layout && st->lay->lr != s->layout->lr, "the store runs in [64, 64]'s layout, other rows");
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 1);
  const TirOp *sp = find_op(&K->body, TO_SPILL);
  cr_assert_eq(sp->dst, m, "m is copied");
  cr_assert_eq(K->rvals.len, 1, "the store reads m's copy");
  cr_assert_eq(K->nbarriers, 1, "between the copy and the read");
}

Test(tir_layout, a_value_read_where_other_threads_hold_it_goes_through_its_copy) {
  const char *why = NULL;
  /* x[0 :+ 1, 0 :+ 1] broadcast over [8, 32]: no slice of the op's layout holds it */
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[8, 32], Y: tensor<f32>[8, 32]) {\n"
                       "  var x = X[0 :+ 8, 0 :+ 32]\n  var one: tile<f32>[1, 1] = rowsum(X[0 :+ 1, 0 :+ 4])\n"
                       "  Y[0 :+ 8, 0 :+ 32] = x * one\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *sp = find_op(&K->body, TO_SPILL);
  cr_assert(sp, "the [1, 1] value is copied to shared memory");
  cr_assert_str_eq(sp->dst->cname, "one");
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert_eq(st->lay, var_named(K, "x")->layout, "the store runs where x is");
  cr_assert_eq(st->nacc >= 1, 1);
}

Test(tir_pipeline, loads_are_issued_stages_minus_one_iterations_ahead) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n"
                       "  @pipeline(3)\n  for i in range(0, N, 64) {\n    Y[i :+ 64] = X[i :+ 64] * 2.0\n  }\n}\n",
                       "pipeline", &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  /* before the loop: the loads of the first two iterations; in it: the load of i + 2 steps */
  const TirOp *loop = find_op(&K->body, TO_FOR);
  int early = 0;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = K->body.ops.items[i];
    if (op->kind == TO_LOAD) {
      cr_assert(op->pf_var && op->pf_base);
      cr_assert_eq(op->pf_k, early++);
    }
  }
  cr_assert_eq(early, 2);
  const TirOp *in = find_op(&loop->body, TO_LOAD);
  cr_assert(in && in->pf_var && !in->pf_base);
  cr_assert_eq(in->pf_k, 2);
  cr_assert_eq(count_ops(&loop->body, TO_ASSIGN), 2, "take the oldest, shift the other");
}

Test(tir_pipeline, a_continue_keeps_the_loads_in_place) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n"
                       "  @pipeline(3)\n  for i in range(0, N, 64) {\n    if i == 128 {\n      continue\n    }\n"
                       "    Y[i :+ 64] = X[i :+ 64] * 2.0\n  }\n}\n", "pipeline", &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *in = find_op(&K->body, TO_LOAD);
  cr_assert(in && !in->pf_var, "a continue would skip the ring's shift");
}

/* The loop of src (a kernel of X, Z and Y over N, at least one @pipeline loop) after every stage. */
static const TirOp *rotated_loop(const char *body, TirKernel **K) {
  static char src[512];
  snprintf(src, sizeof src, "@launch(64)\nkernel k(X: tensor<f32>[N], Z: tensor<f32>[N], Y: tensor<f32>[N]) {\n%s}\n", body);
  const char *why = NULL;
  *K = build(src, NULL, &why);
  cr_assert(*K, "not lowered: %s", why ? why : diag_text);
  return find_op(&(*K)->body, TO_FOR);
}

Test(tir_pipeline, rings_of_equal_depth_rotate_each_copy_taking_and_refilling_its_own_slot) {
  TirKernel *K;
  const TirOp *loop = rotated_loop("  @pipeline(4)\n  for i in range(0, N, 64) {\n    Y[i :+ 64] = X[i :+ 64] * Z[i :+ 64]\n  }\n", &K);
  cr_assert_eq(loop->rot, 3);
  cr_assert(loop->rbody);
  /* the body as pipeline.c made it: per ring a take of slot 1, two shifts, a fill of slot 3 */
  TirVar **rings[2];
  int nr = 0, shifts = 0;
  for (int i = 0; i < loop->body.ops.len; i++) {
    const TirOp *op = loop->body.ops.items[i];
    if (op->ring_role == TIR_RING_TAKE) rings[nr++] = op->ring;
    shifts += op->ring_role == TIR_RING_SHIFT;
  }
  cr_assert_eq(nr, 2);
  cr_assert_eq(shifts, 4);
  for (int j = 0; j < 3; j++) {
    const TirBlock *b = &loop->rbody[j];
    int last_take = -1, first_fill = -1, fills = 0;
    for (int i = 0; i < b->ops.len; i++) {
      const TirOp *op = b->ops.items[i];
      cr_assert_neq(op->ring_role, TIR_RING_SHIFT, "copy %d shifts a ring", j);
      bool mine = false;
      for (int r = 0; r < nr; r++) {
        if (op->kind == TO_ASSIGN && op->expr && tir_hoisted(K, op->expr) == rings[r][1 + j]) last_take = i;
        for (int o = 1; o <= 3; o++)
          if (o != j + 1 && op->expr && tir_hoisted(K, op->expr) == rings[r][o]) cr_assert_fail("copy %d reads slot %d", j, o);
        mine |= op->kind == TO_LOAD && op->dst == rings[r][1 + j];
      }
      if (mine) {
        cr_assert_eq(op->pf_k, 3, "the fill is 3 iterations ahead of its copy's");
        cr_assert(op->pf_var && !op->pf_base);
        if (first_fill < 0) first_fill = i;
        fills++;
      } else if (op->kind == TO_LOAD && op->pf_var) {
        cr_assert_fail("copy %d fills another slot", j);
      }
    }
    cr_assert_eq(fills, 2, "copy %d fills its slot of each ring", j);
    cr_assert(last_take >= 0 && first_fill > last_take, "copy %d refills its slots after it takes them", j);
    for (int i = first_fill; i < b->ops.len; i++)
      cr_assert_eq(((const TirOp *)b->ops.items[i])->kind, TO_LOAD, "only the fills follow the first fill");
  }
}

Test(tir_pipeline, a_ring_of_one_value_is_refilled_at_the_end_and_unrolled_or_nested_loops_do_not_rotate) {
  TirKernel *K;
  const TirOp *loop = rotated_loop("  @pipeline(2)\n  for i in range(0, N, 64) {\n    Y[i :+ 64] = X[i :+ 64] * 2.0\n  }\n", &K);
  cr_assert_eq(loop->rot, 1);
  const TirBlock *b = &loop->rbody[0];
  const TirOp *last = b->ops.items[b->ops.len - 1];
  cr_assert(last->kind == TO_LOAD && last->pf_var && last->pf_k == 1, "the fill comes last");
  loop = rotated_loop("  @pipeline(3)\n  @unroll(2)\n  for i in range(0, N, 64) {\n    Y[i :+ 64] = X[i :+ 64] * 2.0\n  }\n", &K);
  cr_assert(loop->body.ops.len && !loop->rot && !loop->rbody, "the user's unrolling is kept");
  loop = rotated_loop("  @pipeline(3)\n  for i in range(0, N, 64) {\n    Y[i :+ 64] = X[i :+ 64] * 2.0\n"
                      "    for j in range(0, 2) {\n      Z[i :+ 64] = X[i :+ 64] + f32(j)\n    }\n  }\n", &K);
  cr_assert_eq(count_ops(&loop->body, TO_FOR), 1);
  cr_assert(!loop->rot && !loop->rbody, "a loop inside is not copied");
}

/* The takes of rbody[j] of loop (TirOp.mirror): how many, and how many mirror their slot. */
static void takes_of(const TirKernel *K, const TirOp *loop, int j, int *takes, int *mirrors) {
  *takes = *mirrors = 0;
  for (int i = 0; i < loop->rbody[j].ops.len; i++) {
    const TirOp *op = loop->rbody[j].ops.items[i];
    const TirVar *h = op->kind == TO_ASSIGN && op->expr ? tir_hoisted(K, op->expr) : NULL;
    if (h && h->packed) *takes += 1, *mirrors += op->mirror;
  }
}

Test(tir_pipeline, a_rotated_copy_converts_an_8_bit_value_from_its_slot_unless_the_value_is_written_again) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<i8>[N], Y: tensor<f32>[N]) {\n  @pipeline(3)\n"
                       "  for i in range(0, N, 256) {\n    var x = X[i :+ 256]\n    Y[i :+ 256] = f32(x) * 2.0\n  }\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(loop->rot, 2);
  int takes, mirrors;
  for (int j = 0; j < 2; j++) {
    takes_of(K, loop, j, &takes, &mirrors);
    cr_assert_eq(takes, 1);
    cr_assert_eq(mirrors, 1, "copy %d reads the slot's words", j);
  }
  cr_assert(var_named(K, "x")->mirrored);
  K = build("@launch(64)\nkernel k(X: tensor<i8>[N], Y: tensor<f32>[N]) {\n  @pipeline(3)\n"
            "  for i in range(0, N, 256) {\n    var x = X[i :+ 256]\n    x = x + 1\n    Y[i :+ 256] = f32(x) * 2.0\n  }\n}\n",
            NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(loop->rot, 2);
  takes_of(K, loop, 0, &takes, &mirrors);
  cr_assert_eq(takes, 1);
  cr_assert_eq(mirrors, 0, "x = x + 1 makes x differ from its slot");
  cr_assert_not(var_named(K, "x")->mirrored);
}

/* ------------------------------------------------------------ dot */

static const char *gemm_src(int bm, int bn, int threads, const char *tail) {
  static char src[1024];
  snprintf(src, sizeof src,
           "@launch(%d)\n@registers(acc)\n"
           "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N], S: tensor<f32>[M, 1]) {\n"
           "  var acc: tile<f32>[%d, %d] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 32) {\n"
           "    var a = A[0 :+ %d, k0 :+ 32]\n    var b = B[k0 :+ 32, 0 :+ %d]\n    acc += dot(a, b)\n  }\n"
           "  C[0 :+ %d, 0 :+ %d] = acc\n%s}\n",
           threads, bm, bn, bm, bn, bm, bn, tail);
  return src;
}

Test(tir_dot, warp_tiles_give_the_most_mma_per_ldmatrix) {
  const char *why = NULL;
  /* 128 x 128 over 8 warps: 32 x 64 per warp (2 x 8 tiles of 16 x 8), not 16 x 128 */
  TirKernel *K = build(gemm_src(128, 128, 256, ""), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert(dot);
  const Layout *l = dot->lay;
  cr_assert(l->mma);
  cr_assert_eq(l->wr * l->wc, 8);
  cr_assert_eq(l->rr / 2 * 16 * l->rc * 8, 32 * 64, "a warp tile of %d x %d", l->rr / 2 * 16, l->rc * 8);
  cr_assert_geq(l->rr / 2 * 16, 32);
  cr_assert_eq(var_named(K, "acc")->layout, l);
  cr_assert_eq(layout_count(l), var_named(K, "acc")->sym->per_thread);
}

Test(tir_dot, a_row_reduction_keeps_whole_rows_in_each_warp) {
  const char *why = NULL;
  TirKernel *K = build(gemm_src(64, 32, 128, "  S[0 :+ 64, 0 :+ 1] = rowsum(acc)\n"), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert_eq(dot->lay->wc, 1);
  cr_assert_eq(dot->lay->wr, 4);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->lay, dot->lay, "the reduction runs in the accumulator's layout");
  cr_assert_eq(count_ops(&K->body, TO_SCRATCH_WRITE), 0, "rows fold in quads of lanes, no scratch");
}

/* The IR for another target (a config file). */
static TirKernel *build_for(const char *config, const char *src, const char **why) {
  config_path = config;
  TirKernel *K = build(src, NULL, why);
  config_path = "configs/sm_90.yaml";
  return K;
}

/* sm_90a's row (and only sm_90a's: sm_90 has the config's wgmma flag too) takes
 * wgmma for an f16 dot from shared copies: the accumulator in the wg layout
 * (a warpgroup per 64 rows, each warp 16 rows of every column), the copies
 * and their stage rings unpadded, swizzled where their rows allow. */
Test(tir_dot, wgmma_on_sm_90a_only_with_the_warpgroup_layout_and_core_matrix_copies) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml", gemm_src(128, 128, 256, ""), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_str_eq(K->hw->name, "sm90a");
  cr_assert_str_eq(K->hw->wgmma, "wgmma.mma_async.m64nNk16");
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert(dot->wgmma);
  const Layout *l = dot->lay;
  cr_assert(l->mma && l->wg);
  cr_assert_eq(l->wr, 8, "two warpgroups of 4 warps down the rows");
  cr_assert_eq(l->wc, 1);
  cr_assert_eq(l->rr, 2, "16 rows per warp");
  cr_assert_eq(l->rc, 16, "all 128 columns: wgmma n128");
  cr_assert_eq(l->lr * l->lc, 32);
  cr_assert_eq(l->vec, 2);
  cr_assert_eq(layout_count(l), 64);
  cr_assert_eq(var_named(K, "acc")->layout, l);
  cr_assert_eq(shared_bufs(K), 3, "the two stage rings and the TMA ring's mbarriers");
  cr_assert_eq(shared_buf(K, 2)->mbar, 3);
  for (int i = 0; i < 2; i++) {
    const TirBuf *f = shared_buf(K, i);
    cr_assert(f->cm8, "%s in core matrices", f->cname);
    cr_assert_eq(f->pitch, f->cols, "no padding");
    cr_assert_eq(f->stages, 3);
    cr_assert_eq(f->bytes, (int64_t)3 * f->rows * f->cols * 2);
    /* a [128, 32] (64-byte rows): 64-byte swizzle; b [32, 128] (256-byte rows): 128-byte,
     * in atoms of 64 columns; each copy at a multiple of its pattern (8 rows of the swizzle) */
    cr_assert_eq(f->swz, f->cols == 32 ? 64 : 128, "%s: %d-byte swizzle", f->cname, f->swz);
    cr_assert_eq(f->offset % (8 * f->swz), 0, "%s at %lld", f->cname, (long long)f->offset);
  }
  /* rows of 16 bytes (N = 8) cannot be swizzled: plain core matrices */
  K = build_for("configs/sm_90a.yaml", gemm_src(64, 8, 128, ""), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(find_op(&K->body, TO_DOT)->wgmma);
  for (int i = 0; i < 2; i++) {
    const TirBuf *f = shared_buf(K, i);
    cr_assert_eq(f->swz, f->cols == 8 ? 0 : 64, "%s: %d", f->cname, f->swz);
  }
  K = build_for("configs/sm_90.yaml", gemm_src(128, 128, 256, ""), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_null(K->hw->wgmma, "sm_90 (%s) keeps mma.sync", K->hw->name);
  dot = find_op(&K->body, TO_DOT);
  cr_assert_not(dot->wgmma);
  cr_assert_not(dot->lay->wg);
  cr_assert_not(shared_buf(K, 0)->cm8);
  cr_assert_eq(shared_buf(K, 0)->pitch, shared_buf(K, 0)->cols + 8);
}

/* An mma accumulator that no @registers pins may hold 128 f32 per thread
 * (wgmma m64n256k16, examples/gemm_f16_256.tl; the same tile in mma.sync's
 * layout on sm_90, 64 x 64 per warp); any other value keeps the cap of 64. */
Test(tir_dot, mma_accumulator_holds_128_per_thread_other_values_64) {
  static const char *src =
      "@launch(256)\n"
      "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N]) {\n"
      "  var acc: tile<f32>[128, 256] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 32) {\n"
      "    acc += dot(A[0 :+ 128, k0 :+ 32], B[k0 :+ 32, 0 :+ 256])\n  }\n"
      "  C[0 :+ 128, 0 :+ 256] = f16(acc)\n}\n";
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml", src, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert(dot->wgmma && dot->lay->wg);
  const TirVar *acc = var_named(K, "acc");
  cr_assert_eq(layout_count(acc->layout), 128, "wgmma n256: 128 per thread");
  cr_assert_eq(tir_value_cap(acc), TIR_MAX_WG_REGS);
  cr_assert_eq(TIR_MAX_WG_REGS, 2 * MAX_REGS);
  why = NULL;
  K = build_for("configs/sm_90.yaml", src, &why);
  cr_assert(K, "mma.sync, not lowered: %s", why ? why : diag_text);
  dot = find_op(&K->body, TO_DOT);
  acc = var_named(K, "acc");
  cr_assert(!dot->simt && !dot->wgmma && acc->layout->mma && !acc->layout->wg && !acc->home);
  cr_assert_eq(layout_count(acc->layout), 128);
  cr_assert_eq(acc->layout->wr * 64, 128, "warp tiles of 64 x 64: %d x %d warps", acc->layout->wr, acc->layout->wc);
  cr_assert_eq(acc->layout->wc * 64, 256);
  cr_assert_eq(tir_value_cap(acc), TIR_MAX_WG_REGS);
  /* an elementwise value of 128 per thread stays past the cap on sm_90a too: not held in registers */
  why = NULL;
  K = build_for("configs/sm_90a.yaml",
                "@launch(256)\nkernel e(X: tensor<f32>[128, 256], Y: tensor<f32>[128, 256]) {\n"
                "  Y[0 :+ 128, 0 :+ 256] = X[0 :+ 128, 0 :+ 256] * 2.0\n}\n",
                &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *load = find_op(&K->body, TO_LOAD);
  cr_assert_eq(layout_count(load->dst->layout), 128);
  cr_assert(load->dst->fused == load, "the slice is held in registers");
}

/* Shapes wgmma does not take stay on mma.sync on sm_90a: 64 rows over 8 warps
 * (not 16 per warp), N = 40 (no such instruction width), and a copy that
 * something other than a wgmma dot reads (its layout would not be theirs). */
Test(tir_dot, wgmma_falls_back_to_mma_sync_where_it_does_not_fit) {
  const char *why = NULL;
  const char *srcs[] = {
      NULL,
      NULL,
      "@launch(128)\n@registers(acc)\n"
      "kernel g(A: tensor<f16>[M, 32], B: tensor<f16>[32, 64], C: tensor<f32>[M, 64], D: tensor<f32>[32, M]) {\n"
      "  var a = A[0 :+ 64, 0 :+ 32]\n  var acc: tile<f32>[64, 64] = dot(a, B[0 :+ 32, 0 :+ 64])\n"
      "  C[0 :+ 64, 0 :+ 64] = acc\n  D[0 :+ 32, 0 :+ 64] = f32(transpose(a))\n}\n",
  };
  char m64[1024], n40[1024]; /* gemm_src's text is static */
  snprintf(m64, sizeof m64, "%s", gemm_src(64, 128, 256, ""));
  snprintf(n40, sizeof n40, "%s", gemm_src(64, 40, 128, ""));
  srcs[0] = m64;
  srcs[1] = n40;
  for (int i = 0; i < 3; i++) {
    TirKernel *K = build_for("configs/sm_90a.yaml", srcs[i], &why);
    cr_assert(K, "case %d not lowered: %s", i, why ? why : diag_text);
    const TirOp *dot = find_op(&K->body, TO_DOT);
    cr_assert_not(dot->wgmma, "case %d", i);
    for (int b = 0; b < shared_bufs(K); b++) cr_assert_not(shared_buf(K, b)->cm8, "case %d", i);
  }
  /* the same last kernel without the other reader takes wgmma */
  TirKernel *K = build_for("configs/sm_90a.yaml",
                           "@launch(128)\n@registers(acc)\n"
                           "kernel g(A: tensor<f16>[M, 32], B: tensor<f16>[32, 64], C: tensor<f32>[M, 64]) {\n"
                           "  var a = A[0 :+ 64, 0 :+ 32]\n  var acc: tile<f32>[64, 64] = dot(a, B[0 :+ 32, 0 :+ 64])\n"
                           "  C[0 :+ 64, 0 :+ 64] = acc\n}\n",
                           &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(find_op(&K->body, TO_DOT)->wgmma);
}

/* 8-bit dots on sm_90a: i8 and f8e4m3 with both operands K-major (A [M, K],
 * B = transpose of a [N, K] copy) take wgmma m64nNk32 over swizzled copies
 * (64-byte rows: 64-byte swizzle); so does an i8 B [K, N], from its copy
 * stored transposed ([N, K] as stored: K-major), swizzled as stored. */
Test(tir_dot, wgmma_k32_for_8_bit_operands_both_k_major) {
  const char *why = NULL;
  static const char *const types[] = {"i8", "f8e4m3"}, *const accs[] = {"i32", "f32"};
  for (int t = 0; t < 2; t++) {
    char src[1024];
    snprintf(src, sizeof src,
             "@launch(128)\n"
             "kernel g(A: tensor<%s>[64, 64], B: tensor<%s>[64, 64], C: tensor<%s>[64, 64]) {\n"
             "  C[0 :+ 64, 0 :+ 64] = dot(A[0 :+ 64, 0 :+ 64], transpose(B[0 :+ 64, 0 :+ 64]))\n}\n",
             types[t], types[t], accs[t]);
    TirKernel *K = build_for("configs/sm_90a.yaml", src, &why);
    cr_assert(K, "%s not lowered: %s", types[t], why ? why : diag_text);
    cr_assert_str_eq(K->hw->wgmma_b8, "wgmma.mma_async.m64nNk32");
    const TirOp *dot = find_op(&K->body, TO_DOT);
    cr_assert(dot->wgmma, "%s", types[t]);
    cr_assert(dot->lay->wg);
    for (int b = 0; b < shared_bufs(K); b++) {
      const TirBuf *f = shared_buf(K, b);
      cr_assert(f->cm8 && !f->trans, "%s: %s", types[t], f->cname);
      cr_assert_eq(f->swz, 64, "%s: %s %d-byte swizzle", types[t], f->cname, f->swz);
    }
    K = build_for("configs/sm_90.yaml", src, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert_not(find_op(&K->body, TO_DOT)->wgmma, "sm_90 keeps mma.sync");
  }
  /* B [K, N] = [32, 64]: stored [64, 32], rows of 32 bytes: a 32-byte swizzle */
  TirKernel *K = build_for("configs/sm_90a.yaml",
                           "@launch(128)\n"
                           "kernel g(A: tensor<i8>[64, 32], B: tensor<i8>[32, 64], C: tensor<i32>[64, 64]) {\n"
                           "  C[0 :+ 64, 0 :+ 64] = dot(A[0 :+ 64, 0 :+ 32], B[0 :+ 32, 0 :+ 64])\n}\n",
                           &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert(dot->wgmma);
  const TirBuf *fb = &K->bufs[dot->buf2];
  cr_assert(fb->trans && fb->cm8);
  cr_assert_eq(fb->pitch, 32, "stored [64, 32], unpadded");
  cr_assert_eq(fb->swz, 32);
}

/* On sm_90a a wgmma dot of a stage ring's loop whose accumulator nothing else
 * in the loop touches stays in flight (wait_group 1) while the next iteration
 * issues its copies; the copies then go stages - 2 iterations ahead, and one
 * wgmma wait_group 0 follows the loop. A loop that reads the accumulator, or
 * has 2 stages, waits for each dot at once. */
Test(tir_pipeline, a_wgmma_dot_stays_in_flight_across_an_iteration) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml", gemm_src(128, 128, 256, ""), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_loop(&K->body), *dot = find_op(&loop->body, TO_DOT);
  cr_assert(dot->wgmma);
  cr_assert_eq(dot->pending, 1, "one group left in flight");
  cr_assert_eq(find_op(&loop->body, TO_ASYNC_WAIT)->pending, 0, "3 stages, 1 ahead: this iteration's group is the last");
  cr_assert_eq(count_ops(&K->body, TO_ASYNC_COPY), 2 + 2 * 1, "one stage issued before the loop");
  cr_assert_eq(count_ops(&K->body, TO_ASYNC_COMMIT), 1 + 1);
  cr_assert_eq(count_ops(&loop->body, TO_WG_WAIT), 0);
  const TirOp *wg = find_op(&K->body, TO_WG_WAIT);
  cr_assert(wg, "a wgmma wait after the loop");
  cr_assert_eq(wg->pending, 0);
  bool after = false; /* it follows the loop, before the accumulator is stored */
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = K->body.ops.items[i];
    if (op == loop) after = true;
    if (op == wg) cr_assert(after, "the wait follows the loop");
    if (op->kind == TO_STORE) cr_assert(after && count_ops(&K->body, TO_WG_WAIT) == 1);
  }
  cr_assert_eq(K->nbarriers, 2, "the cp.async ring's in the general body, the TMA barriers' init in the fast one");
  cr_assert_eq(find_op(&loop->body, TO_BARRIER)->only, TIR_GENERAL);
  cr_assert_eq(find_op(&loop->body, TO_TMA_RELEASE)->pending, 1, "the stage of the previous iteration, whose wgmma is complete");

  const char *srcs[2];
  char two[1024], reads[1024];
  snprintf(two, sizeof two, "%s", gemm_src(128, 128, 256, ""));
  char *p = strstr(two, "@pipeline(3)");
  cr_assert(p);
  p[10] = '2';
  snprintf(reads, sizeof reads,
           "@launch(256)\n@registers(acc)\n"
           "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N], S: tensor<f32>[M, 1]) {\n"
           "  var acc: tile<f32>[128, 128] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 32) {\n"
           "    var a = A[0 :+ 128, k0 :+ 32]\n    var b = B[k0 :+ 32, 0 :+ 128]\n    acc += dot(a, b)\n"
           "    S[0 :+ 128, 0 :+ 1] = rowsum(acc)\n  }\n  C[0 :+ 128, 0 :+ 128] = acc\n}\n");
  srcs[0] = two;
  srcs[1] = reads;
  for (int i = 0; i < 2; i++) {
    K = build_for("configs/sm_90a.yaml", srcs[i], &why);
    cr_assert(K, "case %d not lowered: %s", i, why ? why : diag_text);
    loop = find_loop(&K->body);
    dot = find_op(&loop->body, TO_DOT);
    cr_assert(dot->wgmma, "case %d", i);
    cr_assert_eq(dot->pending, 0, "case %d: waited for at once", i);
    cr_assert_null(find_op(&K->body, TO_WG_WAIT), "case %d", i);
    cr_assert_eq(find_op(&loop->body, TO_ASYNC_WAIT)->pending, i ? 1 : 0, "case %d: stages - 1 ahead", i);
  }
}

Test(tir_dot, pipelined_operands_fill_cp_async_stage_rings_one_barrier_per_iteration) {
  const char *why = NULL;
  TirKernel *K = build(gemm_src(64, 64, 128, ""), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(shared_bufs(K), 2);
  for (int i = 0; i < 2; i++) {
    const TirBuf *f = shared_buf(K, i);
    cr_assert_eq(f->stages, 3);
    cr_assert_eq(f->pitch % 8, 0, "rows 16-byte aligned for ldmatrix");
    cr_assert_eq(f->pitch, f->cols + 8, "padded by 16 bytes");
    cr_assert_eq(f->bytes, (int64_t)3 * f->rows * f->pitch * 2);
    cr_assert(f->spill_of->direct, "the operand never lives in registers");
  }
  const TirOp *loop = find_loop(&K->body);
  cr_assert(loop->counter);
  cr_assert_eq(count_ops(&loop->body, TO_LOAD), 0);
  cr_assert_eq(count_ops(&loop->body, TO_SPILL), 0);
  cr_assert_eq(count_ops(&loop->body, TO_ASYNC_COPY), 2);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 1);
  cr_assert_eq(find_op(&loop->body, TO_ASYNC_WAIT)->pending, 1, "stages - 2 groups may stay in flight");
  /* two stages issued ahead of the loop, one group each */
  cr_assert_eq(count_ops(&K->body, TO_ASYNC_COPY), 2 + 2 * 2);
  cr_assert_eq(count_ops(&K->body, TO_ASYNC_COMMIT), 2 + 1);
  cr_assert_eq(K->nbarriers, 1);
}

/* The loop's copies go between the mma.sync dot's k steps: BK 32 (two steps) puts both
 * rings' copies and the commit after the first; BK 64 (four) the first ring's after the
 * first step, the second's and the commit after the second, the last two steps together. */
Test(tir_dot, stage_ring_copies_go_between_the_dots_k_steps) {
  const char *why = NULL;
  static const TirOpKind two[] = {TO_ASYNC_WAIT, TO_BARRIER, TO_DOT, TO_ASYNC_COPY, TO_ASYNC_COPY, TO_ASYNC_COMMIT, TO_DOT};
  static const TirOpKind four[] = {TO_ASYNC_WAIT, TO_BARRIER, TO_DOT, TO_ASYNC_COPY, TO_DOT, TO_ASYNC_COPY,
                                   TO_ASYNC_COMMIT, TO_DOT};
  static const int parts2[][2] = {{0, 16}, {16, 32}}, parts4[][2] = {{0, 16}, {16, 32}, {32, 64}};
  for (int c = 0; c < 2; c++) {
    char src[1024];
    snprintf(src, sizeof src, "%s", gemm_src(128, 128, 256, ""));
    if (c) { /* BK 64 */
      char *p;
      while ((p = strstr(src, ":+ 32"))) p[3] = '6', p[4] = '4';
      p = strstr(src, "range(0, K, 32)");
      cr_assert(p);
      p[12] = '6', p[13] = '4';
    }
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "case %d not lowered: %s", c, why ? why : diag_text);
    const TirOp *loop = find_loop(&K->body);
    const TirOpKind *want = c ? four : two;
    int n = c ? 8 : 7, d = 0;
    cr_assert_eq(loop->body.ops.len, n, "case %d: %d ops", c, loop->body.ops.len);
    for (int i = 0; i < n; i++) {
      const TirOp *op = loop->body.ops.items[i];
      cr_assert_eq(op->kind, want[i], "case %d, op %d", c, i);
      if (op->kind != TO_DOT) continue;
      const int *k = c ? parts4[d] : parts2[d];
      cr_assert_eq(op->kbeg, k[0], "case %d, part %d", c, d);
      cr_assert_eq(op->kend, k[1], "case %d, part %d", c, d);
      cr_assert_eq(op->op, TK_ADD_ASSIGN);
      d++;
    }
    cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 1, "case %d: still one barrier an iteration", c);
  }
}

/* A GEMM whose stage rings take an SM's shared memory (BK 64, 4 stages: 143 KB, one
 * block per SM) loads each k step's fragments a step ahead (pipeline.c rotate_dot):
 * the first stage's first ones before the loop, after its wait and barrier; in the
 * loop each step's mma reads the set loaded in the step before, the barrier comes
 * after the third step's mma, and the last step loads the next stage's first
 * fragments. At @launch(256, 2) the second set of fragments would not fit the 128
 * registers a thread of two blocks has: the dot is cut as before. */
Test(tir_dot, a_gemm_of_one_block_per_sm_loads_its_fragments_a_k_step_ahead) {
  const char *why = NULL;
  static const TirOpKind body[] = {TO_FRAGS, TO_DOT, TO_ASYNC_COPY, TO_FRAGS, TO_DOT, TO_ASYNC_COPY, TO_ASYNC_COMMIT,
                                   TO_FRAGS, TO_DOT, TO_ASYNC_WAIT, TO_BARRIER, TO_FRAGS, TO_DOT};
  static const int fk[] = {16, 32, 48, 0}, fset[] = {1, 2, 1, 0}, dset[] = {0, 1, 2, 1};
  for (int c = 0; c < 2; c++) {
    const char *g = gemm_src(128, 128, 256, "");
    cr_assert(strncmp(g, "@launch(256)", 12) == 0);
    char src[1100];
    snprintf(src, sizeof src, "%s%s", c ? "@launch(256, 2)" : "@launch(256)", g + 12);
    char *p;
    while ((p = strstr(src, ":+ 32"))) p[3] = '6', p[4] = '4';
    cr_assert((p = strstr(src, "range(0, K, 32)")));
    p[12] = '6', p[13] = '4';
    cr_assert((p = strstr(src, "@pipeline(3)")));
    p[10] = '4';
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "case %d not lowered: %s", c, why ? why : diag_text);
    const TirOp *loop = find_loop(&K->body);
    if (c) {
      cr_assert_eq(count_ops(&K->body, TO_FRAGS), 0, "two blocks per SM: no second set");
      cr_assert_eq(((const TirOp *)loop->body.ops.items[1])->kind, TO_BARRIER, "the barrier at the top, as before");
      continue;
    }
    /* before the loop: the first stage's wait, a barrier, its first fragments */
    int at = -1;
    for (int i = 0; i < K->body.ops.len; i++)
      if (K->body.ops.items[i] == loop) at = i;
    cr_assert(at >= 3);
    const TirOp *f0 = K->body.ops.items[at - 1];
    cr_assert_eq(f0->kind, TO_FRAGS);
    cr_assert_eq(f0->nsets, 3);
    cr_assert_eq(f0->fset, 0);
    cr_assert_eq(f0->kbeg, 0);
    cr_assert_eq(f0->pf_k, 0);
    cr_assert_eq(((const TirOp *)K->body.ops.items[at - 2])->kind, TO_BARRIER);
    cr_assert_eq(((const TirOp *)K->body.ops.items[at - 3])->kind, TO_ASYNC_WAIT);
    cr_assert_eq(((const TirOp *)K->body.ops.items[at - 3])->pending, 2);
    cr_assert_eq(loop->body.ops.len, 13, "%d ops", loop->body.ops.len);
    int nf = 0, nd = 0;
    for (int i = 0; i < 13; i++) {
      const TirOp *op = loop->body.ops.items[i];
      cr_assert_eq(op->kind, body[i], "op %d", i);
      if (op->kind == TO_FRAGS) {
        cr_assert_eq(op->kbeg, fk[nf], "fragments %d", nf);
        cr_assert_eq(op->fset, fset[nf], "fragments %d", nf);
        cr_assert_eq(op->pf_k, nf == 3, "fragments %d: the next stage's only in the last step", nf);
        cr_assert_eq(op->nsets, 0);
        cr_assert_eq(op->nacc, 2, "fragments %d read both rings", nf);
        nf++;
      } else if (op->kind == TO_DOT) {
        cr_assert_eq(op->kbeg, 16 * nd);
        cr_assert_eq(op->kend, 16 * nd + 16);
        cr_assert_eq(op->fset, dset[nd], "step %d", nd);
        cr_assert_eq(op->nacc, 0, "step %d reads registers only", nd);
        nd++;
      } else if (op->kind == TO_ASYNC_WAIT)
        cr_assert_eq(op->pending, 2, "the next stage has landed: stages - 2 groups in flight");
    }
    cr_assert_eq(K->nbarriers, 2, "one before the loop, one an iteration");
  }
}

Test(tir_dot, attention_forms_transpose_read_register_a_operand_invariant_copy) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\n@registers(acc, s)\n"
                       "kernel at(Q: tensor<f16>[64, 64], K: tensor<f16>[N, 64], V: tensor<f16>[N, 64], "
                       "O: tensor<f32>[64, 64]) {\n"
                       "  var q = Q[0 :+ 64, 0 :+ 64]\n  var acc: tile<f32>[64, 64] = 0.0\n"
                       "  for k0 in range(0, N, 64) {\n    var k = K[k0 :+ 64, 0 :+ 64]\n    var v = V[k0 :+ 64, 0 :+ 64]\n"
                       "    var s: tile<f32>[64, 64] = dot(q, transpose(k))\n    s = exp(s - rowmax(s))\n"
                       "    acc = acc * 0.5 + dot(f16(s), v)\n  }\n  O[0 :+ 64, 0 :+ 64] = acc\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_loop(&K->body);
  cr_assert_eq(count_ops(&loop->body, TO_DOT), 2);
  const TirOp *d1 = NULL, *d2 = NULL;
  for (int i = 0; i < loop->body.ops.len; i++) {
    const TirOp *op = loop->body.ops.items[i];
    if (op->kind == TO_DOT) *(d1 ? &d2 : &d1) = op;
  }
  /* dot(q, transpose(k)): k's copy read transposed, nothing materialised */
  cr_assert(d1->btrans);
  cr_assert_eq(d1->src2, var_named(K, "k"));
  cr_assert_eq(d1->op, TK_ASSIGN);
  /* acc = acc * 0.5 + dot(f16(s), v): acc = acc * 0.5, then acc += dot, A from s's registers */
  cr_assert_eq(d2->dst, var_named(K, "acc"));
  cr_assert_eq(d2->op, TK_ADD_ASSIGN);
  cr_assert_null(d2->src);
  cr_assert(d2->alay && d2->alay->mma && d2->alay->wc == 1);
  cr_assert_eq(var_named(K, "s")->layout, d2->alay);
  /* q, which the loop does not write, is copied once, before the loop */
  cr_assert_eq(count_ops(&loop->body, TO_SPILL), 2, "k and v");
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 3);
  /* k's and v's copies are made together, so the loop needs one barrier for both */
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 1);
  /* operands only loaded and copied keep 16-byte runs, not the accumulator's layout */
  cr_assert_not(var_named(K, "k")->layout->mma);
  cr_assert_eq(var_named(K, "k")->layout->vec, 8);
}

/* On sm_90a attention's P takes wgmma's register-A form: dot(f16(s), v) with s the
 * wgmma accumulator of dot(q, transpose(k)) (a warp per 16 rows) runs on wgmma with A
 * packed from s's registers and only v's copy in shared memory (swizzled). */
Test(tir_dot, wgmma_register_a_for_a_cast_accumulator) {
  const char *why = NULL;
  const char *fmt = "@launch(%d)\n@registers(acc, s)\n"
                    "kernel at(Q: tensor<f16>[64, 64], K: tensor<f16>[N, 64], V: tensor<f16>[N, 64], "
                    "O: tensor<f32>[64, 64]) {\n"
                    "  var q = Q[0 :+ 64, 0 :+ 64]\n  var acc: tile<f32>[64, 64] = 0.0\n"
                    "  for k0 in range(0, N, 64) {\n    var k = K[k0 :+ 64, 0 :+ 64]\n    var v = V[k0 :+ 64, 0 :+ 64]\n"
                    "    var s: tile<f32>[64, 64] = dot(q, transpose(k))\n    s = exp(s - rowmax(s))\n"
                    "    acc = acc * 0.5 + dot(f16(s), v)\n  }\n  O[0 :+ 64, 0 :+ 64] = acc\n}\n";
  {
    int threads = 128;
    char src[1024];
    snprintf(src, sizeof src, fmt, threads);
    TirKernel *K = build_for("configs/sm_90a.yaml", src, &why);
    cr_assert(K, "%d threads: not lowered: %s", threads, why ? why : diag_text);
    const TirOp *loop = find_loop(&K->body), *d1 = NULL, *d2 = NULL;
    for (int i = 0; i < loop->body.ops.len; i++) {
      const TirOp *op = loop->body.ops.items[i];
      if (op->kind == TO_DOT) *(d1 ? &d2 : &d1) = op;
    }
    cr_assert(d1 && d2);
    cr_assert_null(d2->src, "A from registers");
    cr_assert(d1->wgmma);
    cr_assert(d2->wgmma, "the register-A form");
    cr_assert(d2->lay->wg);
    cr_assert_eq(d2->alay, var_named(K, "s")->layout, "A packed from s's own registers");
    cr_assert(d2->alay->wg && d2->alay->rr == 2);
    cr_assert_eq(d2->pending, 0, "acc is read in the loop: waited for at once");
    const TirBuf *fv = &K->bufs[d2->buf2];
    cr_assert(fv->cm8);
    cr_assert_eq(fv->swz, 128, "v [64, 64] f16: 128-byte rows");
  }
}

/* i8: A B^T with B stored [N, K] reads both copies along k, cp.async rings; A B with
 * B stored [K, N] gets a transposed copy of b (ldmatrix has no 8-bit .trans), filled
 * by a spill, never by cp.async. */
Test(tir_dot, i8_operands_are_read_along_k) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\n@registers(acc)\n"
                       "kernel g(A: tensor<i8>[M, K], B: tensor<i8>[N, K], C: tensor<i32>[M, N]) {\n"
                       "  var acc: tile<i32>[64, 64] = 0\n  @pipeline(3)\n  for k0 in range(0, K, 64) {\n"
                       "    var a = A[0 :+ 64, k0 :+ 64]\n    var b = B[0 :+ 64, k0 :+ 64]\n"
                       "    acc += dot(a, transpose(b))\n  }\n  C[0 :+ 64, 0 :+ 64] = acc\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *dot = find_op(&find_loop(&K->body)->body, TO_DOT);
  cr_assert(dot && !dot->atrans && dot->btrans);
  cr_assert_eq(dot->dst, var_named(K, "acc"), "acc += dot accumulates into the i32 acc itself");
  cr_assert_eq(dot->op, TK_ADD_ASSIGN);
  cr_assert_eq(shared_bufs(K), 2);
  for (int i = 0; i < 2; i++) {
    const TirBuf *f = shared_buf(K, i);
    cr_assert_not(f->trans);
    cr_assert_eq(f->stages, 3);
    cr_assert_eq(f->pitch, 64 + 16, "16 bytes of padding are 16 i8");
  }
  K = build("@launch(128)\n@registers(acc)\n"
            "kernel g(A: tensor<i8>[M, K], B: tensor<i8>[K, N], C: tensor<i32>[M, N]) {\n"
            "  var acc: tile<i32>[64, 32] = 0\n  @pipeline(2)\n  for k0 in range(0, K, 32) {\n"
            "    var a = A[0 :+ 64, k0 :+ 32]\n    var b = B[k0 :+ 32, 0 :+ 32]\n"
            "    acc += dot(a, b)\n  }\n  C[0 :+ 64, 0 :+ 32] = acc\n}\n",
            NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_loop(&K->body);
  dot = find_op(&loop->body, TO_DOT);
  cr_assert(dot);
  const TirBuf *bb = &K->bufs[dot->buf2], *ab = &K->bufs[dot->buf];
  cr_assert(bb->trans, "b [32, 32] is stored as [32 (n), 32 + 16 (k)]");
  cr_assert(dot->btrans, "and read as B = transpose(stored)");
  cr_assert_eq(bb->pitch, 32 + 16);
  cr_assert_eq(bb->bytes, (int64_t)2 * 32 * 48, "two halves of cols x pitch");
  cr_assert_not(ab->trans);
  cr_assert_eq(ab->stages, 2, "a still fills a cp.async ring");
  cr_assert_eq(bb->stages, 0, "cp.async cannot transpose");
  cr_assert_eq(count_ops(&loop->body, TO_SPILL), 1);
  cr_assert_eq(find_op(&loop->body, TO_SPILL)->buf, dot->buf2);
}

/* f32 and f64 dots run on the CUDA cores in the IR: the accumulator in a blocked
 * layout (not the mma one), operands from shared copies padded by 16 bytes,
 * `@pipeline` rings of cp.async as for the tensor cores. */
Test(tir_dot, f32_and_f64_dots_run_on_the_cuda_cores) {
  const char *types[] = {"f32", "f64"};
  for (int t = 0; t < 2; t++) {
    char src[1024];
    snprintf(src, sizeof src,
             "@launch(256)\n@registers(acc)\n"
             "kernel g(A: tensor<%s>[M, K], B: tensor<%s>[K, N], C: tensor<%s>[M, N]) {\n"
             "  var acc: tile<%s>[64, 64] = 0.0\n  @pipeline(2)\n  for k0 in range(0, K, 16) {\n"
             "    var a = A[0 :+ 64, k0 :+ 16]\n    var b = B[k0 :+ 16, 0 :+ 64]\n    acc += dot(a, b)\n  }\n"
             "  C[0 :+ 64, 0 :+ 64] = acc\n}\n",
             types[t], types[t], types[t], types[t]);
    const char *why = NULL;
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "%s: not lowered: %s", types[t], why ? why : diag_text);
    const TirOp *loop = find_loop(&K->body), *dot = find_op(&loop->body, TO_DOT);
    cr_assert(dot && dot->simt);
    cr_assert_eq(dot->dst, var_named(K, "acc"));
    cr_assert_eq(dot->op, TK_ADD_ASSIGN);
    cr_assert_not(dot->lay->mma);
    cr_assert_eq(dot->lay, var_named(K, "acc")->layout);
    cr_assert_eq(layout_count(dot->lay), 64 * 64 / 256);
    cr_assert_eq(count_ops(&loop->body, TO_ASYNC_COPY), 2, "a and b fill rings");
    for (int i = 0; i < 2; i++) {
      const TirBuf *f = shared_buf(K, i);
      cr_assert_eq(f->stages, 2);
      cr_assert_eq(f->pitch * (t ? 8 : 4) % 16, 0, "rows 16-byte aligned");
    }
  }
}

Test(tir_dot, a_dot_in_an_expression_goes_into_a_fresh_value) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel e(A: tensor<f16>[64, 32], B: tensor<f16>[32, 32], C: tensor<f32>[64, 32]) {\n"
                       "  C[0 :+ 64, 0 :+ 32] = 2.0 * dot(A[0 :+ 64, 0 :+ 32], B[0 :+ 32, 0 :+ 32]) + 1.0\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert(dot);
  cr_assert_null(dot->dst->sym, "a temporary");
  cr_assert_eq(dot->op, TK_ASSIGN);
  cr_assert_eq(find_op(&K->body, TO_STORE)->lay, dot->lay, "the store runs where the dot left its value");
}

/* ------------------------------------------------------------ arg-reductions and scans */

Test(tir_arg, rowargmax_across_two_warps_one_barrier_and_a_packed_scratch) {
  const char *why = NULL;
  /* [4, 256] over 8 warps: each row spans 2 warps */
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[4, 256], I: tensor<i32>[4, 1]) {\n"
                       "  I[0 :+ 4, 0 :+ 1] = rowargmax(X[0 :+ 4, 0 :+ 256])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->red, B_ROWARGMAX);
  cr_assert_eq(red->lay->wc, 2);
  cr_assert_eq(red->dst->elem, T_I32);
  cr_assert_eq(red->dst->layout->kind, LY_SLICE);
  cr_assert_eq(red->dst->layout->parent, red->lay);
  /* one buffer: the values of each warp's partial, then their indices */
  cr_assert_eq(shared_bufs(K), 1);
  const TirBuf *f = shared_buf(K, 0);
  cr_assert_eq(f->elem, T_F32);
  cr_assert_eq(f->rows, 2 * 2);
  cr_assert_eq(f->cols, 4);
  cr_assert_eq(K->nbarriers, 1);
  cr_assert_eq(count_ops(&K->body, TO_SCRATCH_WRITE), 1);
  cr_assert_eq(count_ops(&K->body, TO_SCRATCH_READ), 1);
}

Test(tir_arg, rowargmax_inside_warps_needs_no_shared_memory_and_no_barrier) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[8, 32], I: tensor<i32>[8, 1], J: tensor<i32>[8, 1]) {\n"
                       "  var x = X[0 :+ 8, 0 :+ 32]\n  I[0 :+ 8, 0 :+ 1] = rowargmax(x)\n"
                       "  J[0 :+ 8, 0 :+ 1] = rowargmin(x)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(var_named(K, "x")->layout->wc, 1, "a row stays in one warp");
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 2);
  cr_assert_eq(shared_bufs(K), 0);
  cr_assert_eq(K->nbarriers, 0);
  cr_assert_eq(K->ki->shared_bytes, 0);
}

Test(tir_arg, f16_compares_as_f32_and_a_loop_alternates_halves) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f16>[M, 256], I: tensor<i32>[M, 1]) {\n"
                       "  for m0 in range(0, M, 4) {\n"
                       "    I[m0 :+ 4, 0 :+ 1] = rowargmin(X[m0 :+ 4, 0 :+ 256])\n  }\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(shared_bufs(K), 1);
  cr_assert_eq(shared_buf(K, 0)->elem, T_F32, "f16 values compare as f32");
  cr_assert(shared_buf(K, 0)->alternating);
  cr_assert_eq(count_ops(&find_loop(&K->body)->body, TO_BARRIER), 1, "one barrier per iteration");
}

Test(tir_arg, colargmax_folds_in_registers_values_then_indices) {
  const char *why = NULL;
  /* [64, 32] over 128 threads: 8 lanes across, 4 lanes and 4 warps down a column */
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<i32>[64, 32], I: tensor<i32>[1, 32]) {\n"
                       "  I[0 :+ 1, 0 :+ 32] = colargmax(X[0 :+ 64, 0 :+ 32])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *col = find_op(&K->body, TO_REDUCE);
  cr_assert(col && tir_down_cols(col));
  cr_assert_eq(col->red, B_COLARGMAX);
  cr_assert_eq(col->dst->elem, T_I32);
  cr_assert_eq(col->dst->cols, 32);
  cr_assert_eq(col->dst->layout->kind, LY_SLICE);
  cr_assert_eq(col->dst->layout->dim, 0);
  cr_assert_eq(count_ops(&K->body, TO_SPILL) + count_ops(&K->body, TO_COLREDUCE), 0, "no copy walked");
  cr_assert_eq(shared_bufs(K), 1);
  cr_assert_eq(shared_buf(K, 0)->rows, 2 * col->lay->wr, "the warps' values, then their indices");
  cr_assert_eq(shared_buf(K, 0)->cols, 32);
  cr_assert_eq(K->nbarriers, 1);
}

Test(tir_scan, row_scan_across_two_warps_one_barrier) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(X: tensor<f32>[4, 256], Y: tensor<f32>[4, 256]) {\n"
                       "  Y[0 :+ 4, 0 :+ 256] = cumsum(X[0 :+ 4, 0 :+ 256])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *scan = find_op(&K->body, TO_SCAN);
  cr_assert_eq(scan->red, B_CUMSUM);
  cr_assert_eq(scan->axis, 1);
  cr_assert_eq(scan->lay, scan->dst->layout);
  ScanGeom g = tir_scan_geom(scan);
  /* a row: 32 adjacent lanes of runs of 4 in each of 2 warps */
  cr_assert_eq(g.lines, 1);
  cr_assert_eq(g.segs, 1);
  cr_assert_eq(g.inner, 4);
  cr_assert_eq(g.lanes, 32);
  cr_assert_eq(g.stride, 1);
  cr_assert_eq(g.warps, 2);
  cr_assert_eq(shared_bufs(K), 1);
  cr_assert_eq(shared_buf(K, 0)->rows, 2, "one row of totals per warp");
  cr_assert_eq(shared_buf(K, 0)->cols, 4);
  cr_assert_eq(K->nbarriers, 1);
}

Test(tir_scan, row_scan_inside_warps_needs_no_barrier) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[8, 32], Y: tensor<f32>[8, 32]) {\n"
                       "  var x = X[0 :+ 8, 0 :+ 32]\n  Y[0 :+ 8, 0 :+ 32] = cumprod(x) + cummax(x)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_SCAN), 2);
  cr_assert_eq(tir_scan_geom(find_op(&K->body, TO_SCAN)).warps, 1);
  cr_assert_eq(shared_bufs(K), 0);
  cr_assert_eq(K->nbarriers, 0);
}

Test(tir_scan, column_scan_lanes_a_stride_apart_warps_through_scratch) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[M, 32], Y: tensor<f32>[M, 32]) {\n"
                       "  for m0 in range(0, M, 64) {\n"
                       "    Y[m0 :+ 64, 0 :+ 32] = cumsum(X[m0 :+ 64, 0 :+ 32], 0)\n  }\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *scan = find_op(&K->body, TO_SCAN);
  cr_assert_eq(scan->axis, 0);
  /* [64, 32]: lanes 4 x 8 in runs of 4, warps 4 x 1, 4 repeats down, each warp its
   * own 16 rows (warp tiles: the repeats chain inside the warp) */
  cr_assert(scan->lay->wtiles);
  ScanGeom g = tir_scan_geom(scan);
  cr_assert_eq(g.lines, 4, "a thread's columns");
  cr_assert_eq(g.segs, 4);
  cr_assert_eq(g.inner, 1);
  cr_assert_eq(g.lanes, 4);
  cr_assert_eq(g.stride, 8);
  cr_assert_eq(g.warps, 4);
  cr_assert_eq(g.len, 32);
  cr_assert(g.warp_major);
  cr_assert_eq(shared_bufs(K), 1);
  cr_assert(shared_buf(K, 0)->alternating);
  cr_assert_eq(shared_buf(K, 0)->cols, 32, "one total per warp and column, not one per repeat");
  cr_assert_eq(count_ops(&find_loop(&K->body)->body, TO_BARRIER), 1, "one barrier per iteration");
}

Test(tir_scan, a_row_value_scans_down_its_one_column) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[64, 32], Y: tensor<f32>[64, 1]) {\n"
                       "  Y[0 :+ 64, 0 :+ 1] = cumsum(rowsum(X[0 :+ 64, 0 :+ 32]), 0)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *scan = find_op(&K->body, TO_SCAN);
  cr_assert_eq(scan->lay->kind, LY_SLICE);
  cr_assert_eq(scan->lay->dim, 1);
  ScanGeom g = tir_scan_geom(scan);
  cr_assert_eq(g.lines, 1);
  cr_assert_eq(g.len, 1);
  cr_assert_eq(g.warps, 4);
}

Test(tir_scan, along_a_dim_of_one_is_the_value_itself) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(X: tensor<f32>[8, 32], Y: tensor<f32>[8, 1]) {\n"
                       "  Y[0 :+ 8, 0 :+ 1] = cumsum(rowmax(X[0 :+ 8, 0 :+ 32]))\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_SCAN), 0);
}

Test(tir_scan, the_dot_accumulator_scans_warp_block_by_warp_block) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(A: tensor<f16>[64, 32], B: tensor<f16>[32, 64], C: tensor<f32>[64, 64]) {\n"
                       "  C[0 :+ 64, 0 :+ 64] = cumsum(dot(A[0 :+ 64, 0 :+ 32], B[0 :+ 32, 0 :+ 64]))\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *scan = find_op(&K->body, TO_SCAN);
  cr_assert(scan->lay->mma);
  ScanGeom g = tir_scan_geom(scan);
  /* warps 2 x 2, each a 32 x 32 block: a row is 4 tiles of 8 in quads of lanes, in 2 warps */
  cr_assert(g.warp_major);
  cr_assert_eq(g.segs, 4);
  cr_assert_eq(g.inner, 2);
  cr_assert_eq(g.lanes, 4);
  cr_assert_eq(g.warps, 2);
  cr_assert_eq(shared_buf(K, shared_bufs(K) - 1)->cols, 64, "one total per row and warp");
}

Test(tir_scan, values_too_large_for_registers_keep_a_scan_out_of_the_ir) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[256, 256], Y: tensor<f32>[256, 256]) {\n"
                       "  Y[0 :+ 256, 0 :+ 256] = cumsum(X[0 :+ 256, 0 :+ 256])\n}\n", NULL, &why);
  cr_assert_null(K);
  cr_assert_str_eq(why, "cumsum at line 3 holds 512 per thread, too many for registers, and cannot live in shared memory: "
                        "an op other than a load, an elementwise assignment or a dot on the CUDA cores writes it");
}

/* ---- @strided */

static bool has_check(const TirKernel *K, const Sym *size, int mod) {
  for (int i = 0; i < K->nchecks; i++)
    if (K->checks[i].size == size && (mod ? K->checks[i].mod % mod == 0 && K->checks[i].mod : !K->checks[i].mod))
      return true;
  return false;
}

/* Every load or store in runs tests its tensor's strides at entry: the
 * innermost == 1, the others multiples of the run. */
static void runs_test_their_strides(const TirKernel *K, const TirBlock *b, int *runs, int *singles) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if ((op->kind == TO_LOAD || op->kind == TO_STORE) && op->slice) {
      const Sym *X = op->slice->u.index.base->u.ident.sym;
      if (op->vec > 1 && X->tstride[0]) {
        (*runs)++;
        cr_assert(has_check(K, X->tstride[X->trank - 1], 0), "%s in runs of %d without %s == 1", X->name, op->vec,
                  X->tstride[X->trank - 1]->name);
        for (int d = 0; d + 1 < X->trank; d++)
          cr_assert(has_check(K, X->tstride[d], op->vec), "%s without %s %% %d", X->name, X->tstride[d]->name, op->vec);
      } else if (X->tstride[0]) {
        (*singles)++;
      }
    }
    runs_test_their_strides(K, &op->body, runs, singles);
    runs_test_their_strides(K, &op->els, runs, singles);
  }
}

Test(tir_layout, strided_runs_test_the_innermost_stride_and_the_row_strides) {
  const char *why = NULL;
  TirKernel *K = build("@strided(X, Y)\n"
                       "kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {\n"
                       "  Y[0 :+ 16, 0 :+ 64] = X[0 :+ 16, 0 :+ 64] * 2.0\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(find_op(&K->body, TO_LOAD)->vec, 4);
  int runs = 0, singles = 0;
  runs_test_their_strides(K, &K->body, &runs, &singles);
  cr_assert_eq(runs, 2);
  /* N % 4, then for each tensor: innermost stride == 1, row stride % 4, pointer */
  cr_assert_eq(K->nchecks, 7);
}

/* More conditions than the table holds: the accesses past it move single
 * elements rather than run without their tests. */
Test(tir_layout, strided_checks_past_the_table_fall_back_to_single_elements) {
  char src[4096];
  size_t k = (size_t)snprintf(src, sizeof src, "@strided(X0, X1, X2, X3, X4, X5, X6, X7)\nkernel k(");
  for (int i = 0; i < 8; i++) k += (size_t)snprintf(src + k, sizeof src - k, "X%d: tensor<f32>[2, 2, 16, N], ", i);
  k += (size_t)snprintf(src + k, sizeof src - k, "Y: tensor<f32>[16, N]) {\n  Y[0 :+ 16, 0 :+ 64] = ");
  for (int i = 0; i < 8; i++) k += (size_t)snprintf(src + k, sizeof src - k, "%sX%d[1, 1, 0 :+ 16, 0 :+ 64]", i ? " + " : "", i);
  snprintf(src + k, sizeof src - k, "\n}\n");
  const char *why = NULL;
  TirKernel *K = build(src, NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  int runs = 0, singles = 0;
  runs_test_their_strides(K, &K->body, &runs, &singles);
  cr_assert(runs > 0 && singles > 0, "runs %d, single elements %d", runs, singles);
  cr_assert_leq(K->nchecks, TIR_MAX_CHECKS);
}

/* A slice whose column start is a scalar parameter moves 16-byte runs in the fast
 * body, whose entry test then says off % 4 == 0; a loop from that parameter in steps of
 * 64 the same; a start with a constant remainder (off + 1, 2 * off + 1) does not: the
 * access moves single elements and tests nothing of off. */
Test(tir_layout, a_slice_at_a_scalar_parameter_runs_when_the_parameter_allows) {
  const char *why = NULL;
  TirKernel *K = build("kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[16, 64], off: i32) {\n"
                       "  Y[0 :+ 16, 0 :+ 64] = X[0 :+ 16, off :+ 64] * 2.0\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const Sym *off = K->k->params[2].sym;
  cr_assert_str_eq(off->name, "off");
  cr_assert_eq(find_op(&K->body, TO_LOAD)->vec, 4);
  cr_assert(K->versioned);
  cr_assert(has_check(K, off, 4), "off %% 4 == 0 in the entry test");

  K = build("kernel k(X: tensor<f32>[M, N], S: tensor<f32>[16, 1], off: i32) {\n"
            "  var s: tile<f32>[16, 1] = 0.0\n  for n0 in range(off, N, 64) {\n"
            "    s += rowsum(X[0 :+ 16, n0 :+ 64])\n  }\n  S[0 :+ 16, 0 :+ 1] = s\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(has_check(K, K->k->params[2].sym, 4), "the loop starts at off");

  for (int v = 0; v < 2; v++) {
    K = build(v ? "kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[16, 64], off: i32) {\n"
                  "  Y[0 :+ 16, 0 :+ 64] = X[0 :+ 16, 2 * off + 1 :+ 64]\n}\n"
                : "kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[16, 64], off: i32) {\n"
                  "  Y[0 :+ 16, 0 :+ 64] = X[0 :+ 16, off + 1 :+ 64]\n}\n",
              NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert_eq(find_op(&K->body, TO_LOAD)->vec, 1);
    cr_assert(!has_check(K, K->k->params[2].sym, 0) && !has_check(K, K->k->params[2].sym, 4));
  }
}

/* A read-modify-write store moves runs in the fast body like a plain one (each
 * element is its thread's). An atomic moves single elements but a float atomic_add
 * where the path has the vector atomic (layout.c atomic_run): f32 quads on sm_90
 * (its tensor's alignment tested), f16 pairs on sm_80, f32 and atomic_max singly. */
static const TirOp *atomic_store(const char *config, const char *ty, const char *fn) {
  static char src[256];
  const char *why = NULL;
  snprintf(src, sizeof src,
           "kernel k(X: tensor<%s>[M, N], Y: tensor<%s>[M, N]) {\n"
           "  %s(Y[0 :+ 16, 0 :+ 64], X[0 :+ 16, 0 :+ 64])\n}\n",
           ty, ty, fn);
  TirKernel *K = build_for(config, src, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(st->atomic);
  if (st->vec > 1) {
    bool y = false;
    for (int i = 0; i < K->nchecks; i++)
      y |= K->checks[i].tensor && !strcmp(K->checks[i].tensor->name, "Y") && K->checks[i].mod == st->vec * (ty[1] == '3' ? 4 : 2);
    cr_assert(y, "the fast body tests Y's alignment to the run");
  }
  return st;
}

Test(tir_layout, read_modify_write_stores_move_runs_and_atomics_by_the_path) {
  const char *why = NULL;
  TirKernel *K = build("kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {\n"
                       "  Y[0 :+ 16, 0 :+ 64] -= X[0 :+ 16, 0 :+ 64] * 2.0\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert_eq(st->op, TK_SUB_ASSIGN);
  cr_assert_eq(st->vec, 4);
  bool y16 = false;
  for (int i = 0; i < K->nchecks; i++) y16 |= K->checks[i].tensor && !strcmp(K->checks[i].tensor->name, "Y") && K->checks[i].mod == 16;
  cr_assert(y16, "the fast body tests Y's alignment");
  cr_assert_eq(atomic_store("configs/sm_90.yaml", "f32", "atomic_add")->vec, 4);
  cr_assert_eq(atomic_store("configs/sm_90.yaml", "f16", "atomic_add")->vec, 8); /* red.global.add.noftz.v4.f16x2 */
  cr_assert_eq(atomic_store("configs/sm_90.yaml", "bf16", "atomic_add")->vec, 8);
  cr_assert_eq(atomic_store("configs/sm_90.yaml", "f32", "atomic_max")->vec, 1);
  cr_assert_eq(atomic_store("configs/sm_90.yaml", "i32", "atomic_add")->vec, 1);
  cr_assert_eq(atomic_store("configs/sm_80.yaml", "f32", "atomic_add")->vec, 1);
  cr_assert_eq(atomic_store("configs/sm_80.yaml", "bf16", "atomic_add")->vec, 2);
  cr_assert_eq(atomic_store("configs/sm_75.yaml", "f16", "atomic_add")->vec, 1);
}

/* ------------------------------------------------------------ staged epilogues (layout.c) */

/* A [bm, bn] f32 accumulator of f16 dots, stored as `ty`, on `threads`; the
 * loop's operands in @pipeline(stages) rings, k steps of bk. */
static const char *epi_src(int bm, int bn, int threads, const char *ty, int stages, int bk) {
  static char src[1024];
  snprintf(src, sizeof src,
           "@launch(%d)\n@registers(acc)\n"
           "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<%s>[M, N]) {\n"
           "  var acc: tile<f32>[%d, %d] = 0.0\n  @pipeline(%d)\n  for k0 in range(0, K, %d) {\n"
           "    var a = A[0 :+ %d, k0 :+ %d]\n    var b = B[k0 :+ %d, 0 :+ %d]\n    acc += dot(a, b)\n  }\n"
           "  C[0 :+ %d, 0 :+ %d] = %s(acc)\n}\n",
           threads, ty, bm, bn, stages, bk, bm, bk, bk, bn, bm, bn, ty);
  return src;
}

/* The top-level op index of the first op of kind (and, for a barrier, warp-ness), or -1. */
static int top_index(const TirKernel *K, TirOpKind kind, int from) {
  for (int i = from; i < K->body.ops.len; i++)
    if (((const TirOp *)K->body.ops.items[i])->kind == kind) return i;
  return -1;
}

static const TirOp *top_op(const TirKernel *K, int i) { return K->body.ops.items[i]; }

static bool has_tensor_check(const TirKernel *K, const char *tensor, int mod) {
  for (int i = 0; i < K->nchecks; i++)
    if (K->checks[i].tensor && strcmp(K->checks[i].tensor->name, tensor) == 0 && K->checks[i].mod == mod) return true;
  return false;
}

/* The staged store of an f16 accumulator on sm_90: converted in the mma layout,
 * written by stmatrix.x4 into a copy whose rows are 16 bytes past a multiple of
 * 128 (128 f16 columns: pitch 136), read back by each warp from its own warp
 * tile in 16-byte runs (8 lanes along a row), with one __syncwarp between and
 * no block barrier after the loop. */
Test(tir_epilogue, f16_accumulator_goes_through_stmatrix_and_leaves_in_16_byte_runs) {
  const char *why = NULL;
  TirKernel *K = build(epi_src(128, 128, 256, "f16", 3, 32), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const Layout *m = var_named(K, "acc")->layout;
  cr_assert(m->mma && !m->wg);
  int is = top_index(K, TO_STORE, 0);
  cr_assert_geq(is, 0);
  const TirOp *st = top_op(K, is);
  cr_assert(st->from_copy);
  const Layout *l = st->lay;
  cr_assert(l->wtiles && !l->mma);
  cr_assert_eq(l->vec, 8, "16-byte runs of f16");
  cr_assert_eq(st->vec, 8, "the fast body stores whole runs");
  cr_assert_geq(l->lc, 8, "a quarter warp reads 128 contiguous bytes of one row");
  cr_assert_eq(l->lr * l->lc, 32);
  cr_assert_eq(l->wr, m->wr);
  cr_assert_eq(l->wc, m->wc);
  cr_assert_eq(l->rr * l->lr, m->rr * 8, "each warp reads back the rows it wrote");
  cr_assert_eq(l->rc * l->lc * l->vec, m->rc * 8, "and the columns");
  const TirBuf *f = &K->bufs[st->buf];
  cr_assert(f->warp_tiles);
  cr_assert_eq(f->elem, T_F16, "converted before it is staged");
  cr_assert_eq(f->pitch, 136);
  cr_assert_eq(f->bytes, 128 * 136 * 2);
  int isp = top_index(K, TO_SPILL, 0);
  cr_assert(isp >= 0 && isp < is);
  const TirOp *sp = top_op(K, isp);
  cr_assert_eq(sp->buf, st->buf);
  cr_assert_eq(sp->stm, 4, "8 blocks of 8 columns per warp row: stmatrix.x4");
  cr_assert_eq(sp->dst->layout, m, "written in the accumulator's layout");
  cr_assert_eq(sp->dst->elem, T_F16);
  int ib = top_index(K, TO_BARRIER, isp);
  cr_assert(ib > isp && ib < is, "a barrier between the copy and the store");
  cr_assert(top_op(K, ib)->warp, "__syncwarp: each warp reads only what it wrote");
  cr_assert_eq(top_index(K, TO_BARRIER, ib + 1), -1);
  cr_assert_eq(K->nwarpbars, 1);
  cr_assert(has_tensor_check(K, "C", 16), "the fast body needs C 16-byte aligned");
  cr_assert(!has_tensor_check(K, "C", 4));
  /* KernelInfo has the copy */
  cr_assert_eq(K->ki->nshared, shared_bufs(K));
  cr_assert_geq(K->ki->shared_bytes, f->offset + f->bytes);
}

/* sm_90a: the wgmma accumulator (each warp 16 rows of every column) reads back
 * its 16 x 128 tile as 2 rows x 16 lanes of 16-byte runs. */
/* A bias [256] added in a 128 x 256 wgmma accumulator's epilogue would hold 64 values a
 * thread as a slice of the accumulator's layout: loaded once, it takes a compact layout of
 * its own (col_own) and the epilogue reads its copy, so the store can still be staged. */
Test(tir_epilogue, a_bias_loaded_once_beside_a_large_accumulator_is_read_from_its_copy) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml",
                           "@launch(256)\n"
                           "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], Bias: tensor<f16>[N], C: tensor<f16>[M, N]) {\n"
                           "  var acc: tile<f32>[128, 256] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 64) {\n"
                           "    acc += dot(A[0 :+ 128, k0 :+ 64], B[k0 :+ 64, 0 :+ 256])\n  }\n"
                           "  C[0 :+ 128, 0 :+ 256] = f16(acc + f32(Bias[0 :+ 256]))\n}\n",
                           &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(var_named(K, "acc")->layout->wg);
  const TirOp *ld = NULL;
  for (int i = 0; i < K->body.ops.len && !ld; i++) {
    const TirOp *o = K->body.ops.items[i];
    if (o->kind == TO_LOAD && o->rows == 1) ld = o;
  }
  cr_assert(ld, "the bias's load");
  cr_assert(ld->dst->col_own && ld->dst->layout->kind == LY_BLOCKED && !ld->dst->layout->mma);
  cr_assert_leq(layout_count(ld->dst->layout), 2, "%d a thread", layout_count(ld->dst->layout));
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(st->from_copy, "the store is staged");
}

Test(tir_epilogue, wgmma_accumulator_reads_back_its_16_row_warp_tiles) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml", epi_src(128, 128, 256, "f16", 3, 32), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const Layout *m = var_named(K, "acc")->layout;
  cr_assert(m->wg);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(st->from_copy && st->lay->wtiles);
  cr_assert_eq(st->lay->wr, 8);
  cr_assert_eq(st->lay->wc, 1);
  cr_assert_eq(st->lay->lr, 2);
  cr_assert_eq(st->lay->lc, 16);
  cr_assert_eq(st->lay->rr * st->lay->lr, 16);
  const TirOp *sp = find_op(&K->body, TO_SPILL);
  cr_assert_eq(sp->stm, 4);
  cr_assert_eq(K->nwarpbars, 2, "one per body: before the fast body's TMA store, before the general one's read-back");
  /* the loop's wgmma stays in flight: its accumulator is pinned right before the loop */
  int il = top_index(K, TO_FOR, 0);
  cr_assert_gt(il, 0);
  cr_assert_eq(top_op(K, il - 1)->kind, TO_WG_PIN);
  cr_assert_eq(top_op(K, il - 1)->dst, var_named(K, "acc"));
  cr_assert_eq(top_op(K, il + 1)->kind, TO_WG_WAIT);
  cr_assert_eq(count_ops(&K->body, TO_WG_PIN), 1);
}

/* sm_90a's fast body: the staged copy is written by stmatrix in 128-byte
 * swizzled atoms, fenced for the async proxy, and each warp's lane 0 stores the
 * warp's 16 x 128 tile by TMA in 2 boxes of 16 x 64; the general body keeps the
 * 16-byte read-back from the padded copy. */
Test(tir_epilogue, fast_body_stores_the_wgmma_accumulator_by_tma) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml", epi_src(128, 128, 256, "f16", 3, 32), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(K->versioned);
  int its = top_index(K, TO_TMA_STORE, 0), is = top_index(K, TO_STORE, 0), isp = top_index(K, TO_SPILL, 0);
  cr_assert(its >= 0 && is >= 0 && isp >= 0);
  const TirOp *ts = top_op(K, its), *st = top_op(K, is), *sp = top_op(K, isp);
  cr_assert_eq(ts->only, TIR_FAST);
  cr_assert_eq(st->only, TIR_GENERAL, "the general body keeps the read-back");
  cr_assert(st->from_copy);
  cr_assert_eq(sp->only, 0, "both bodies write the copy by stmatrix");
  cr_assert_eq(ts->buf, st->buf);
  cr_assert_eq(ts->lay, sp->dst->layout, "boxes of the writer's warp tiles");
  const TirBuf *f = &K->bufs[ts->buf];
  cr_assert_eq(f->tma_swz, 128);
  cr_assert_eq(f->pitch, 136, "the general body's padded rows");
  cr_assert_eq(f->offset % 1024, 0, "the swizzle's pattern starts at the copy");
  cr_assert(f->warp_tiles);
  cr_assert_eq(K->ki->ntmaps, 3);
  const TmaMap *m = &K->ki->tmaps[ts->tmap];
  cr_assert_str_eq(m->tensor->name, "C");
  cr_assert_eq(m->box_rows, 16, "a warp's rows of the wgmma accumulator");
  cr_assert_eq(m->box_cols, 64, "one 128-byte atom of f16");
  cr_assert_eq(m->swizzle, 128);
  bool reads = false, writes_c = false;
  for (int i = 0; i < ts->nacc; i++) {
    reads |= ts->acc[i].buf == ts->buf && !ts->acc[i].write;
    writes_c |= K->bufs[ts->acc[i].buf].tensor && ts->acc[i].write;
  }
  cr_assert(reads && writes_c, "sync.c sees it read the copy and write C");
  /* the fast body's __syncwarp lies between the spill and the TMA store */
  int ib = -1;
  for (int i = isp + 1; i < its; i++) {
    const TirOp *op = top_op(K, i);
    if (op->kind == TO_BARRIER && op->only != TIR_GENERAL) ib = i;
  }
  cr_assert(ib > isp && top_op(K, ib)->warp, "a __syncwarp in the fast body between the copy and the TMA store");

  /* sm_90 has no TMA; a tensor another op writes stays with the read-back */
  K = build_for("configs/sm_90.yaml", epi_src(128, 128, 256, "f16", 3, 32), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_TMA_STORE), 0);
  K = build_for("configs/sm_90a.yaml",
                "@launch(256)\n@registers(acc)\n"
                "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N]) {\n"
                "  var acc: tile<f32>[128, 128] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 32) {\n"
                "    var a = A[0 :+ 128, k0 :+ 32]\n    var b = B[k0 :+ 32, 0 :+ 128]\n    acc += dot(a, b)\n  }\n"
                "  C[0 :+ 128, 0 :+ 128] = f16(acc)\n  C[128 :+ 128, 0 :+ 128] = f16(acc)\n}\n",
                &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_TMA_STORE), 0, "two stores of C: no TMA for either");
}

/* Without stmatrix (sm_80's row) the copy is written by each thread's pairs. */
Test(tir_epilogue, no_stmatrix_on_sm_80_plain_shared_stores) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_80.yaml", epi_src(128, 128, 256, "bf16", 3, 32), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(st->from_copy);
  cr_assert_eq(K->bufs[st->buf].elem, T_BF16);
  cr_assert_eq(find_op(&K->body, TO_SPILL)->stm, 0);
}

/* f32: a warp's 8-byte pairs already fill whole sectors; the store stays as it is. */
Test(tir_epilogue, f32_stores_stay_in_the_accumulator_layout) {
  const char *why = NULL;
  TirKernel *K = build(epi_src(128, 128, 256, "f32", 3, 32), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(!st->from_copy);
  cr_assert(st->lay->mma);
  cr_assert_eq(st->vec, 2);
  cr_assert_eq(K->nwarpbars, 0);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 0);
}

/* 64 x 64 on 4 warps: warp tiles of 32 x 32 (64-byte rows) are too narrow for
 * conflict-free 16-byte reads, the tile's 128-byte rows are not: the whole
 * tile's blocked layout reads back, after a __syncthreads. */
Test(tir_epilogue, narrow_warp_tiles_read_back_the_whole_tile_after_a_block_barrier) {
  const char *why = NULL;
  TirKernel *K = build(epi_src(64, 64, 128, "f16", 2, 32), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const Layout *m = var_named(K, "acc")->layout;
  cr_assert_eq(m->rc * 8, 32, "warp tiles of 32 columns");
  int is = top_index(K, TO_STORE, 0), isp = top_index(K, TO_SPILL, 0);
  const TirOp *st = top_op(K, is);
  cr_assert(st->from_copy);
  cr_assert(!st->lay->wtiles && !st->lay->mma);
  cr_assert_eq(st->lay->vec, 8);
  cr_assert_eq(st->lay->lc, 8);
  cr_assert(!K->bufs[st->buf].warp_tiles);
  cr_assert_eq(K->bufs[st->buf].pitch, 72);
  int ib = top_index(K, TO_BARRIER, isp);
  cr_assert(ib > isp && ib < is);
  cr_assert(!top_op(K, ib)->warp);
  cr_assert_eq(K->nwarpbars, 0);
}

/* Rows of 64 bytes give no thread a conflict-free 16-byte run: not staged. */
Test(tir_epilogue, rows_under_128_bytes_stay_as_they_are) {
  const char *why = NULL;
  TirKernel *K = build(epi_src(32, 32, 128, "f16", 2, 32), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(!find_op(&K->body, TO_STORE)->from_copy);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 0);
}

/* The copy takes extra bytes only where they fit: 128 x 256 with 2 stages of
 * BK 64 (104448 bytes of rings) leaves room for 67584 more on sm_90, side by
 * side. With 4 stages (208896) it does not; there the copy takes bytes of a
 * cp.async ring, whose span ends at the wait for every group after the loop:
 * the kernel's bytes stay the rings', and a block barrier after that wait
 * orders the ring's last reads before the copy's writes. On sm_90a, whose
 * rings TMA fills (their bytes their own for the whole kernel), the 4-stage
 * store stays as it is. */
Test(tir_epilogue, staged_only_within_the_shared_budget) {
  const char *why = NULL;
  TirKernel *K = build(epi_src(128, 256, 512, "f16", 2, 64), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(st->from_copy);
  cr_assert_eq(K->bufs[st->buf].bytes, 128 * 264 * 2);
  cr_assert_eq(K->ki->shared_bytes, 2 * (128 * 72 * 2 + 64 * 264 * 2) + 128 * 264 * 2);
  cr_assert_eq(K->alias[st->buf], 0, "side by side");

  K = build(epi_src(128, 256, 512, "f16", 4, 64), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  st = find_op(&K->body, TO_STORE);
  cr_assert(st->from_copy, "staged in a ring's bytes");
  cr_assert_eq(K->ki->shared_bytes, 4 * (128 * 72 * 2 + 64 * 264 * 2), "no bytes beyond the rings'");
  int ring = -1;
  for (int i = 0; i < K->nbufs; i++)
    if (K->alias[st->buf] >> i & 1) {
      cr_assert(K->bufs[i].stages == 4, "it shares bytes only with a stage ring");
      ring = i;
    }
  cr_assert_geq(ring, 0);
  cr_assert(K->alias[ring] >> st->buf & 1);
  int iw = -1;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = top_op(K, i);
    if (op->kind == TO_ASYNC_WAIT && op->pending == 0 && !op->only) iw = i;
  }
  cr_assert_geq(iw, 0, "the wait for every group after the loop");
  int isp = top_index(K, TO_SPILL, iw), ib = top_index(K, TO_BARRIER, iw);
  cr_assert(isp > iw && ib > iw && ib < isp, "a barrier between the wait and the copy's writes");
  cr_assert(!top_op(K, ib)->warp, "the ring was read by every warp");

  /* sm_90a: the rings TMA fills (and wgmma reads, its last group in flight after the
   * loop until the wgmma wait there) share bytes the same way; the copy, stored by TMA,
   * starts at a multiple of 1024 */
  K = build_for("configs/sm_90a.yaml",
                "@launch(256)\n"
                "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N]) {\n"
                "  var acc: tile<f32>[128, 256] = 0.0\n  @pipeline(4)\n  for k0 in range(0, K, 64) {\n"
                "    acc += dot(A[0 :+ 128, k0 :+ 64], B[k0 :+ 64, 0 :+ 256])\n  }\n"
                "  C[0 :+ 128, 0 :+ 256] = f16(acc)\n}\n",
                &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(var_named(K, "acc")->layout->wg, "wgmma m64n256k16");
  st = find_op(&K->body, TO_STORE);
  cr_assert(st->from_copy);
  cr_assert_eq(count_ops(&K->body, TO_TMA_STORE), 1);
  const TirBuf *c = &K->bufs[st->buf];
  cr_assert_eq(c->offset % 1024, 0);
  ring = -1;
  for (int i = 0; i < K->nbufs; i++)
    if (K->alias[st->buf] >> i & 1) {
      cr_assert(K->bufs[i].ring_mbar && K->bufs[i].stages == 4, "only a TMA ring shares its bytes");
      ring = i;
    }
  cr_assert_geq(ring, 0);
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].mbar) cr_assert_eq(K->alias[i], 0, "mbarriers keep their bytes");
  cr_assert_lt(K->ki->shared_bytes, 4 * (128 * 64 * 2 + 64 * 256 * 2) + 128 * 256 * 2, "less than side by side");
  iw = top_index(K, TO_WG_WAIT, 0);
  cr_assert_geq(iw, 0, "the wgmma left in flight completes after the loop");
  isp = top_index(K, TO_SPILL, iw);
  ib = top_index(K, TO_BARRIER, iw);
  cr_assert(isp > iw && ib > iw && ib < isp && !top_op(K, ib)->warp,
            "a block barrier after the wgmma wait, before the copy is written");
}

/* A TMA ring is written by the async proxy first: it takes no bytes that a buffer
 * used before it had (those generic accesses would need a proxy fence before TMA's
 * writes), while the staged epilogue's copy after the loop, written by the generic
 * proxy first, takes the ring's bytes. t's transposed read needs its copy before the
 * loop; side by side the kernel would take 33280 + 196672 + 67584 bytes. */
Test(tir_smem, a_tma_ring_takes_no_bytes_a_buffer_before_it_used) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml",
                           "@launch(256)\n"
                           "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f16>[M, N], "
                           "X: tensor<f32>[128, 64], Y: tensor<f32>[64, 128]) {\n"
                           "  var t = X[0 :+ 128, 0 :+ 64]\n  Y[0 :+ 64, 0 :+ 128] = transpose(t)\n"
                           "  var acc: tile<f32>[128, 256] = 0.0\n  @pipeline(4)\n  for k0 in range(0, K, 64) {\n"
                           "    acc += dot(A[0 :+ 128, k0 :+ 64], B[k0 :+ 64, 0 :+ 256])\n  }\n"
                           "  C[0 :+ 128, 0 :+ 256] = f16(acc)\n}\n",
                           &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  int tcopy = -1, epi = -1, rings = 0;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = top_op(K, i);
    if (op->kind == TO_STORE && op->from_copy) epi = op->buf;
  }
  cr_assert_geq(epi, 0, "C's store is staged");
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].spill_of && K->bufs[i].spill_of->sym && !strcmp(K->bufs[i].spill_of->sym->name, "t")) tcopy = i;
  cr_assert_geq(tcopy, 0, "t has a shared copy");
  for (int i = 0; i < K->nbufs; i++) {
    if (!K->bufs[i].ring_mbar) continue;
    rings++;
    cr_assert_eq(K->alias[i] >> tcopy & 1, 0, "%s shares bytes with t's copy, used before it", K->bufs[i].cname);
  }
  cr_assert_eq(rings, 2);
  bool epi_in_ring = false;
  for (int i = 0; i < K->nbufs; i++) epi_in_ring |= K->bufs[i].ring_mbar && (K->alias[epi] >> i & 1);
  cr_assert(epi_in_ring, "the epilogue's copy takes a ring's bytes");
  cr_assert_leq(K->ki->shared_bytes, K->t->smem_per_block);
}

/* On sm_90a the stage rings of a wgmma dot are filled by TMA in the fast body:
 * one tensor map per (tensor, box), a box per swizzle atom (b [32, 128] f16 in
 * 128-byte rows: two 32 x 64 boxes); the ring's mbarriers (full and empty per
 * stage); before the loop the barriers' init, one barrier, and the issues of
 * the stages ahead; in the loop the issue of the stage ahead, the wait for
 * this one, the dot and the release; no __syncthreads in the fast body's loop.
 * The general body keeps the cp.async ring. A ring in a loop inside another
 * loop (its barriers' phases would not restart) keeps cp.async in both. */
Test(tir_pipeline, tma_fills_the_wgmma_stage_rings_in_the_fast_body) {
  const char *why = NULL;
  TirKernel *K = build_for("configs/sm_90a.yaml", gemm_src(128, 128, 256, ""), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_str_eq(K->hw->tma, "cp.async.bulk.tensor.2d (mbarrier)");
  cr_assert(K->versioned);
  cr_assert_eq(K->ki->ntmaps, 2);
  const TmaMap *ma = &K->ki->tmaps[0], *mb = &K->ki->tmaps[1];
  cr_assert_str_eq(ma->tensor->name, "A");
  cr_assert_eq(ma->box_rows, 128);
  cr_assert_eq(ma->box_cols, 32, "a [128, 32] f16 copy: one 64-byte swizzled box");
  cr_assert_eq(ma->swizzle, 64);
  cr_assert_str_eq(mb->tensor->name, "B");
  cr_assert_eq(mb->box_rows, 32);
  cr_assert_eq(mb->box_cols, 64, "b's 256-byte rows: atoms of 64 columns");
  cr_assert_eq(mb->swizzle, 128);
  const TirBuf *m = shared_buf(K, 2);
  cr_assert_eq(m->mbar, 3);
  cr_assert_eq(m->bytes, 2 * 3 * 8);
  cr_assert_eq(m->offset % 8, 0);
  const TirOp *loop = find_loop(&K->body);
  int at_init = -1, at_bar = -1, at_loop = -1, issues = 0;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = K->body.ops.items[i];
    if (op->kind == TO_TMA_INIT) at_init = i;
    if (op->kind == TO_BARRIER && op->only == TIR_FAST) at_bar = i;
    if (op == loop) at_loop = i;
    if (op->kind == TO_TMA_ISSUE) {
      cr_assert(at_bar >= 0 && op->pf_base, "stages issued before the loop follow the barrier");
      cr_assert_eq(op->pf_k, issues++);
      cr_assert_eq(op->body.ops.len, 2);
      cr_assert_eq(((const TirOp *)op->body.ops.items[0])->kind, TO_TMA_LOAD);
    }
    if (op->kind == TO_ASYNC_COPY || op->kind == TO_ASYNC_COMMIT) cr_assert_eq(op->only, TIR_GENERAL);
  }
  cr_assert(at_init >= 0 && at_init < at_bar && at_bar < at_loop);
  cr_assert_eq(issues, 1, "3 stages with the dot in flight: 1 ahead");
  const TirOp *first = loop->body.ops.items[0], *wait = loop->body.ops.items[1];
  cr_assert_eq(first->kind, TO_TMA_ISSUE);
  cr_assert(!first->pf_base && first->pf_k == 1, "in the loop: the stage 1 iteration ahead");
  cr_assert_eq(wait->kind, TO_TMA_WAIT);
  const TirOp *last = loop->body.ops.items[loop->body.ops.len - 1];
  cr_assert_eq(last->kind, TO_TMA_RELEASE);
  for (int i = 0; i < loop->body.ops.len; i++) {
    const TirOp *op = loop->body.ops.items[i];
    if (op->kind == TO_BARRIER) cr_assert_eq(op->only, TIR_GENERAL, "no __syncthreads in the fast body's loop");
  }
  cr_assert(find_op(&loop->body, TO_DOT)->wgmma);

  /* sm_90 (mma.sync) has no TMA row; on sm_90a a ring in a nested loop takes TMA too, its
   * barriers initialized at the top of the kernel, its phases counted over every run */
  K = build_for("configs/sm_90.yaml", gemm_src(128, 128, 256, ""), &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->ki->ntmaps, 0);
  cr_assert_eq(count_ops(&K->body, TO_TMA_ISSUE), 0);
  char nested[1024];
  snprintf(nested, sizeof nested,
           "@launch(256)\n@registers(acc)\n"
           "kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {\n"
           "  for r in range(0, 2, 1) {\n"
           "  var acc: tile<f32>[128, 128] = 0.0\n  @pipeline(3)\n  for k0 in range(0, K, 32) {\n"
           "    var a = A[0 :+ 128, k0 :+ 32]\n    var b = B[k0 :+ 32, 0 :+ 128]\n    acc += dot(a, b)\n  }\n"
           "  C[0 :+ 128, 0 :+ 128] = acc\n  }\n}\n");
  K = build_for("configs/sm_90a.yaml", nested, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(K->ki->ntmaps, 2, "a ring in a loop inside another takes TMA");
  const TirOp *outer = find_loop(&K->body), *init = NULL;
  for (int i = 0; i < K->body.ops.len && K->body.ops.items[i] != outer; i++)
    if (((const TirOp *)K->body.ops.items[i])->kind == TO_TMA_INIT) init = K->body.ops.items[i];
  cr_assert(init, "the barriers are initialized once, before the outer loop");
  cr_assert_str_eq(K->bufs[init->buf].gbase, "t2c_g0", "stages and phases count every run's iterations");
  cr_assert_eq(count_ops(&outer->body, TO_TMA_INIT), 0);
  cr_assert_eq(count_ops(&outer->body, TO_TMA_BEGIN), 1);
  cr_assert_eq(count_ops(&outer->body, TO_TMA_END), 1, "the run's last stage is released after the loop");
  cr_assert_gt(count_ops(&K->body, TO_ASYNC_COPY), 0, "the general body keeps cp.async");
}

/* @registers(m, l): [64, 1] row values at 64 threads, one row per thread (the
 * seed's count), read with the [64, 32] and [64, 64] values of the same rows:
 * every layout of 64 rows gives each thread one whole row (attention.tl). */
Test(tir_layout, register_row_values_hold_one_row_per_thread) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\n@registers(acc, m, l)\n"
                       "kernel k(S: tensor<f32>[64, N], V: tensor<f32>[N, 64], O: tensor<f32>[64, 64]) {\n"
                       "  var acc: tile<f32>[64, 64] = 0.0\n  var m: tile<f32>[64, 1] = -inf\n"
                       "  var l: tile<f32>[64, 1] = 0.0\n"
                       "  for k0 in range(0, N, 32) {\n"
                       "    var s = S[0 :+ 64, k0 :+ 32]\n    var v = V[k0 :+ 32, 0 :+ 64]\n"
                       "    var mnew = max(m, rowmax(s))\n    var p = exp(s - mnew)\n    var alpha = exp(m - mnew)\n"
                       "    l = l * alpha + rowsum(p)\n    acc *= alpha\n    acc += dot(p, v)\n    m = mnew\n  }\n"
                       "  O[0 :+ 64, 0 :+ 64] = acc / l\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirVar *m = var_named(K, "m"), *l = var_named(K, "l"), *acc = var_named(K, "acc"), *s = var_named(K, "s");
  cr_assert_eq(m->layout->kind, LY_SLICE);
  cr_assert_eq(layout_count(m->layout), 1, "thread i holds row i");
  cr_assert_eq(layout_count(l->layout), 1);
  cr_assert_eq(layout_count(acc->layout), acc->sym->per_thread);
  const Layout *p = m->layout->parent;
  cr_assert_eq(p, s->layout);
  cr_assert_eq(p->lc, 1, "a whole row per thread");
  cr_assert_eq(p->wc, 1);
  cr_assert_eq(p->lr * p->wr, 64);
  cr_assert_eq(acc->layout->lc, 1, "acc holds the same rows: alpha and l are read where they are");
  cr_assert_eq(acc->layout->lr * acc->layout->wr, 64);
  /* the reductions are each thread's own: no shuffles, no scratch */
  cr_assert_eq(find_op(&K->body, TO_REDUCE)->lay->lc, 1);
  cr_assert_eq(count_ops(&K->body, TO_SCRATCH_WRITE), 0);
  /* the copies are the dot's operands only (p and v), none of a row value */
  for (int i = 0; i < K->nbufs; i++)
    cr_assert(!K->bufs[i].spill_of || K->bufs[i].spill_of->cols > 1, "%s", K->bufs[i].cname);
}

/* A row reduction of f16 accumulates in f32 and is converted
 * back once per row; one of i64 or u32 accumulates in its own type. */
Test(tir_lower, row_reductions_accumulate_in_the_wider_type) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(H: tensor<f16>[16, 64], S: tensor<f16>[16, 1], I: tensor<i64>[16, 64],\n"
                       "         L: tensor<i64>[16, 1], T: tensor<i64>[1]) {\n"
                       "  S[0 :+ 16, 0 :+ 1] = rowsum(H[0 :+ 16, 0 :+ 64])\n"
                       "  var i = I[0 :+ 16, 0 :+ 64]\n  L[0 :+ 16, 0 :+ 1] = rowmax(i)\n  T[0] = sum(i)\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->dst->elem, T_F32, "rowsum of f16 accumulates in f32");
  cr_assert_eq(red->expr->kind, E_CALL);
  cr_assert_eq(red->expr->u.call.cast, T_F32, "each element converted to f32");
  /* then an assign converts the row sums to f16, in the reduction's slice */
  const TirOp *back = NULL;
  for (int i = 0; i < K->body.ops.len && !back; i++) {
    const TirOp *op = K->body.ops.items[i];
    if (op->kind == TO_ASSIGN && op->dst->elem == T_F16 && op->dst->cols == 1) back = op;
  }
  cr_assert(back, "no conversion back to f16");
  cr_assert_eq(back->expr->u.call.cast, T_F16);
  cr_assert_eq(back->dst->layout, red->dst->layout);
  int i64 = 0;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = K->body.ops.items[i];
    if ((op->kind == TO_REDUCE || op->kind == TO_SUM) && op->dst->elem == T_I64) i64++;
  }
  cr_assert_eq(i64, 2, "rowmax and sum of i64 in i64");
}

/* sum() in a while condition: its ops run before the loop and again at the
 * end of each iteration, into the same value (declared once); a continue,
 * which would skip the second run, keeps the kernel out of the IR. */
Test(tir_lower, sum_in_a_while_condition_runs_before_each_test) {
  const char *why = NULL;
  const char *src = "@launch(128)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n"
                    "  var x = X[0 :+ 256]\n  var n = 0\n"
                    "  while sum(abs(x)) > 1.0 && n < 8 {\n    x = x * 0.5\n    n += 1\n%s  }\n"
                    "  Y[0 :+ 256] = x\n}\n";
  char buf[512];
  snprintf(buf, sizeof buf, src, "");
  TirKernel *K = build(buf, NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *before = NULL, *loop = NULL;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = K->body.ops.items[i];
    if (op->kind == TO_SUM && !loop) before = op;
    if (op->kind == TO_WHILE) loop = op;
  }
  cr_assert(before && loop, "the condition's sum before the loop");
  const TirOp *again = NULL;
  for (int i = 0; i < loop->body.ops.len; i++) {
    const TirOp *op = loop->body.ops.items[i];
    cr_assert(op->kind != TO_DECL || op->dst != before->dst, "declared once");
    if (op->kind == TO_SUM) again = op;
  }
  cr_assert(again, "the condition's sum again in the body");
  cr_assert_eq(again->dst, before->dst, "into the same value");
  cr_assert_eq(again->src, before->src);
  cr_assert_eq(count_ops(&K->body, TO_SUM), 2);
  /* with a continue: the condition's ops again before it, as at the end of the body */
  snprintf(buf, sizeof buf, src, "    if n == 3 {\n      continue\n    }\n");
  why = NULL;
  K = build(buf, NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_SUM), 3);
  loop = find_op(&K->body, TO_WHILE);
  const TirOp *iff = find_op(&loop->body, TO_IF);
  cr_assert(iff);
  const TirBlock *t = &iff->body;
  cr_assert_eq(((const TirOp *)t->ops.items[t->ops.len - 1])->kind, TO_CONTINUE);
  const TirOp *sum = find_op(t, TO_SUM);
  cr_assert(sum && sum->dst == find_op(&K->body, TO_SUM)->dst, "the condition's sum before the continue, into the same value");
}

/* Shapes the IR once declined: rowsum(x) + rowmax(y) of x [16, 32] and y
 * [16, 64], whose layouts hold other rows (y's row maxima are read through
 * their copy); a row reduction of one column (the element itself); a [1, 1]
 * tile broadcast into rowargmax's operand (read through its copy). */
Test(tir_layout, row_reductions_of_other_widths_one_column_and_broadcast_operands) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\n"
                       "kernel k(X: tensor<f32>[16, 32], Y: tensor<f32>[16, 64], S: tensor<f32>[16, 1]) {\n"
                       "  var x = X[0 :+ 16, 0 :+ 32]\n  var y = Y[0 :+ 16, 0 :+ 64]\n"
                       "  S[0 :+ 16, 0 :+ 1] = rowsum(x) + rowmax(y)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 2);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 1, "one row value converted through its copy");
  const TirOp *sp = find_op(&K->body, TO_SPILL);
  cr_assert_eq(sp->dst->cols, 1);
  cr_assert_eq(sp->dst->layout->parent, var_named(K, "y")->layout);
  cr_assert_eq(find_op(&K->body, TO_STORE)->lay->parent, var_named(K, "x")->layout);

  K = build("@launch(128)\nkernel k(C: tensor<f32>[16, 1], S: tensor<f32>[16, 1]) {\n"
            "  var c = C[0 :+ 16, 0 :+ 1]\n  S[0 :+ 16, 0 :+ 1] = rowsum(c) + rowmax(c)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 0, "a row of one element is its own sum and max");

  K = build("@launch(128)\n"
            "kernel k(X: tensor<f32>[16, 32], T: tensor<f32>[1, 1], I: tensor<i32>[16, 1]) {\n"
            "  var x = X[0 :+ 16, 0 :+ 32]\n  var t = T[0 :+ 1, 0 :+ 1]\n"
            "  I[0 :+ 16, 0 :+ 1] = rowargmax(x + t)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *red = find_op(&K->body, TO_REDUCE);
  cr_assert_eq(red->nacc, 1, "the reduction reads t's copy");
  cr_assert_eq(find_op(&K->body, TO_SPILL)->dst, var_named(K, "t"));
}

/* ---- uniform.c: where() guards */

/* The first elementwise assign anywhere in b that has a where() guard, or NULL. */
static const TirOp *guarded_assign(const TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind == TO_ASSIGN && op->uguard) return op;
    const TirOp *in = guarded_assign(&op->body);
    if (in) return in;
  }
  return NULL;
}

/* Evaluates a guard over integer scalars named in names/vals (an independent
 * evaluator: the guard must be a scalar expression of these names and literals). */
static int64_t eval_guard(const Expr *x, const char *const *names, const int64_t *vals) {
  switch (x->kind) {
  case E_INT: return x->u.ival;
  case E_IDENT:
    for (int i = 0; names[i]; i++)
      if (strcmp(names[i], x->u.ident.name) == 0) return vals[i];
    cr_assert_fail("the guard reads '%s'", x->u.ident.name);
    return 0;
  case E_UNARY: cr_assert_eq(x->u.unary.op, TK_MINUS); return -eval_guard(x->u.unary.a, names, vals);
  case E_BINARY: {
    int64_t a = eval_guard(x->u.binary.a, names, vals), b = eval_guard(x->u.binary.b, names, vals);
    switch (x->u.binary.op) {
    case TK_PLUS: return a + b;
    case TK_MINUS: return a - b;
    case TK_STAR: return a * b;
    case TK_LT: return a < b;
    case TK_LE: return a <= b;
    case TK_GT: return a > b;
    case TK_GE: return a >= b;
    case TK_EQ: return a == b;
    case TK_ANDAND: return a && b;
    case TK_OROR: return a || b;
    default: cr_assert_fail("operator %d in a guard", x->u.binary.op); return 0;
    }
  }
  default: cr_assert_fail("expression kind %d in a guard", x->kind); return 0;
  }
}

static const char *mask_src =
    "@launch(128)\n"
    "kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], causal: i32) {\n"
    "  var q0 = ctx.block.x * 64\n"
    "  for k0 in range(0, N, 32) {\n"
    "    var s: tile<f32>[64, 32] = where(k0 + cols(64, 32) < N &&\n"
    "                                     (causal == 0 || q0 + rows(64, 32) >= k0 + cols(64, 32)), 0.0, -inf)\n"
    "    s += X[q0 :+ 64, k0 :+ 32]\n"
    "    Y[q0 :+ 64, k0 :+ 32] = s\n"
    "  }\n"
    "}\n";

Test(tir_uniform, an_attention_mask_is_tested_once_per_tile) {
  const char *why = NULL;
  TirKernel *K = build(mask_src, NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *op = guarded_assign(&K->body);
  cr_assert(op, "the mask's assign has a guard");
  cr_assert_eq(op->nuwhere, 1);
  cr_assert_eq(op->uwhere[0]->u.call.builtin, B_WHERE);
  static const char *const names[] = {"k0", "N", "causal", "q0", NULL};
  /* the guard holds exactly when every (row, col) of the tile passes the mask */
  for (int64_t k0 = 0; k0 <= 96; k0 += 32)
    for (int64_t n = 1; n <= 130; n += 43)
      for (int64_t causal = 0; causal <= 1; causal++)
        for (int64_t q0 = 0; q0 <= 128; q0 += 64) {
          const int64_t vals[] = {k0, n, causal, q0};
          bool all = true;
          for (int r = 0; r < 64; r++)
            for (int c = 0; c < 32; c++) all = all && k0 + c < n && (causal == 0 || q0 + r >= k0 + c);
          cr_assert_eq(eval_guard(op->uguard, names, vals) != 0, all, "k0 %d N %d causal %d q0 %d", (int)k0, (int)n,
                       (int)causal, (int)q0);
        }
}

Test(tir_uniform, conditions_without_an_affine_guard_keep_their_where) {
  static const char *const conds[] = {
      "x > 0.5",                               /* a float compare of a tile */
      "rows(16, 32) == 3",                     /* == has no corner */
      "rows(16, 32) * n < 5",                  /* a factor that is no constant */
      "x > 0.5 && cols(16, 32) < n",           /* && needs both sides */
      "n > 3",                                 /* no rows() or cols(): nothing to hoist */
  };
  for (size_t i = 0; i < sizeof conds / sizeof conds[0]; i++) {
    char src[512];
    snprintf(src, sizeof src,
             "@launch(64)\n"
             "kernel k(X: tensor<f32>[16, 32], Y: tensor<f32>[16, 32], n: i32) {\n"
             "  var x = X[0 :+ 16, 0 :+ 32]\n"
             "  var y: tile<f32>[16, 32] = 0.0\n"
             "  y = where(%s, x, -x)\n"
             "  Y[0 :+ 16, 0 :+ 32] = y\n"
             "}\n",
             conds[i]);
    const char *why = NULL;
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "%s: not lowered: %s", conds[i], why ? why : diag_text);
    cr_assert_null(guarded_assign(&K->body), "%s: no guard", conds[i]);
  }
}

Test(tir_uniform, a_window_write_keeps_its_where) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\n"
                       "kernel k(X: tensor<f32>[16, 32], Y: tensor<f32>[16, 32], n: i32) {\n"
                       "  var y = X[0 :+ 16, 0 :+ 32]\n"
                       "  y[0 :+ 8, 0 :+ 32] = where(cols(8, 32) < n, 1.0, 2.0)\n"
                       "  Y[0 :+ 16, 0 :+ 32] = y\n"
                       "}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_null(guarded_assign(&K->body));
}

/* ---- values too large for registers */

/* Every op's own accesses to buf, and whether some op writes it other than at its own elements. */
static void own_accesses(const TirBlock *b, int buf, int *own, int *other) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    for (int a = 0; a < op->nacc; a++)
      if (op->acc[a].buf == buf) {
        if (op->acc[a].own) ++*own;
        else ++*other;
      }
    own_accesses(&op->body, buf, own, other);
    own_accesses(&op->els, buf, own, other);
  }
}

Test(tir_home, a_value_over_the_cap_lives_in_its_copy_and_only_reads_elsewhere_need_a_barrier) {
  const char *why = NULL;
  /* 32 threads, [64, 64]: 128 per thread; b is written in the loop and read transposed */
  TirKernel *K = build("@launch(32)\nkernel k(X: tensor<f32>[64, K], T: tensor<f32>[64, 64], S: tensor<f32>[64, 1]) {\n"
                       "  var acc: tile<f32>[64, 64] = 0.0\n  var c: tile<f32>[64, 64] = 0.0\n"
                       "  for k0 in range(0, K, 64) {\n    var b = X[0 :+ 64, k0 :+ 64]\n"
                       "    acc += b * 2.0\n    c += transpose(b)\n  }\n"
                       "  T[0 :+ 64, 0 :+ 64] = c\n  S[0 :+ 64, 0 :+ 1] = rowsum(acc)\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const char *names[] = {"acc", "c", "b"};
  for (int i = 0; i < 3; i++) {
    const TirVar *v = var_named(K, names[i]);
    cr_assert(v->home, "%s is in registers", names[i]);
    cr_assert_eq(K->bufs[v->home - 1].spill_of, v);
    cr_assert_eq(layout_count(v->layout), 128);
  }
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 0, "a value living in its copy is never spilled");
  cr_assert_leq(tir_value_regs(K), TIR_MAX_VALUE_REGS);
  /* acc and c: only their own elements; b: its own, and the transposed read */
  int own = 0, other = 0;
  own_accesses(&K->body, var_named(K, "acc")->home - 1, &own, &other);
  cr_assert(own >= 3 && other == 0, "acc: %d own, %d other", own, other);
  own = other = 0;
  own_accesses(&K->body, var_named(K, "b")->home - 1, &own, &other);
  cr_assert(own >= 2 && other == 1, "b: %d own, %d other", own, other);
  /* the loop: one barrier before the transposed read (b written), one before b's write
   * (read transposed the iteration before); none between acc's own reads and writes */
  const TirOp *loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 2);
  cr_assert_eq(count_ops(&K->body, TO_BARRIER), 2, "T = c and rowsum(acc) read their own elements");
  /* ops whose values all live in shared memory run their rows as a loop */
  const TirOp *assign = NULL;
  for (int i = 0; i < loop->body.ops.len; i++) {
    const TirOp *op = loop->body.ops.items[i];
    if (op->kind == TO_ASSIGN && op->dst == var_named(K, "acc")) assign = op;
  }
  cr_assert(assign && assign->rolled);
}

Test(tir_home, a_load_read_by_one_op_is_never_held) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(I: tensor<i64>[128, 256], L: tensor<i64>[128, 1]) {\n"
                       "  L[0 :+ 128, 0 :+ 1] = rowsum(I[0 :+ 128, 0 :+ 256])\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *load = find_op(&K->body, TO_LOAD);
  cr_assert(load && load->dst->fused == load, "the slice is held");
  cr_assert_eq(load->dst->home, 0);
  cr_assert_eq(shared_bufs(K), 0, "no copy of the slice");
}

Test(tir_home, over_the_budget_the_first_of_the_largest_moves_to_shared_memory) {
  const char *why = NULL;
  /* four values of 64 per thread live together: 256 registers */
  TirKernel *K = build("@launch(128)\nkernel k(A: tensor<f32>[64, 128], B: tensor<f32>[64, 128], C: tensor<f32>[64, 128], "
                       "O: tensor<f32>[64, 128]) {\n  var a = A[0 :+ 64, 0 :+ 128]\n  var b = B[0 :+ 64, 0 :+ 128]\n"
                       "  var c = C[0 :+ 64, 0 :+ 128]\n  var d = a * b\n  O[0 :+ 64, 0 :+ 128] = c + d + a + b\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert(var_named(K, "a")->home);
  cr_assert(!var_named(K, "b")->home && !var_named(K, "c")->home && !var_named(K, "d")->home);
  cr_assert_leq(tir_value_regs(K), TIR_MAX_VALUE_REGS);
}

/* An f32 dot (CUDA cores) into an accumulator over the cap: the accumulator
 * lives in its shared copy, and the dot reads and writes each thread's own
 * elements of it. */
Test(tir_home, a_cuda_core_dot_accumulates_into_a_shared_home) {
  const char *why = NULL;
  TirKernel *K = build("@launch(32)\nkernel k(A: tensor<f32>[64, 16], B: tensor<f32>[16, 64], C: tensor<f32>[64, 64]) {\n"
                       "  var acc: tile<f32>[64, 64] = 0.0\n  acc += dot(A[0 :+ 64, 0 :+ 16], B[0 :+ 16, 0 :+ 64])\n"
                       "  C[0 :+ 64, 0 :+ 64] = acc\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirVar *acc = var_named(K, "acc");
  cr_assert(acc->home);
  cr_assert_eq(layout_count(acc->layout), 128);
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert(dot->simt);
  bool rd = false, wr = false;
  for (int i = 0; i < dot->nacc; i++)
    if (dot->acc[i].buf == acc->home - 1) {
      cr_assert(dot->acc[i].own, "the dot touches only the thread's own elements of the home");
      if (dot->acc[i].write) wr = true;
      else rd = true;
    }
  cr_assert(rd && wr, "+= reads and writes the home");
}

/* An f16 dot whose accumulator would hold more than 128 per thread as mma
 * fragments runs on the CUDA cores instead (a -Wdot warning says why), into a
 * shared home; one whose home would not fit shared memory is an error. */
Test(tir_home, an_accumulator_past_128_per_thread_leaves_the_tensor_cores) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\nkernel k(A: tensor<f16>[64, 16], B: tensor<f16>[16, 256], C: tensor<f32>[64, 256]) {\n"
                       "  var acc: tile<f32>[64, 256] = 0.0\n  acc += dot(A[0 :+ 64, 0 :+ 16], B[0 :+ 16, 0 :+ 256])\n"
                       "  C[0 :+ 64, 0 :+ 256] = acc\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *dot = find_op(&K->body, TO_DOT);
  cr_assert(dot->simt && !dot->wgmma);
  cr_assert_str_eq(dot->offunit, "its 64 x 256 accumulator would hold 256 per thread in mma fragments, more than the 128 "
                                 "registers one value may take");
  cr_assert(var_named(K, "acc")->home);
  why = NULL;
  K = build("@launch(64)\nkernel k(A: tensor<f16>[128, 16], B: tensor<f16>[16, 512], C: tensor<f32>[128, 512]) {\n"
            "  var acc: tile<f32>[128, 512] = 0.0\n  acc += dot(A[0 :+ 128, 0 :+ 16], B[0 :+ 16, 0 :+ 512])\n"
            "  C[0 :+ 128, 0 :+ 512] = acc\n}\n", NULL, &why);
  cr_assert_null(K);
  cr_assert_null(why, "reported, not refused: %s", why);
  cr_assert(strstr(diag_text, "bytes of shared memory; sm_90 allows"), "%s", diag_text);
  char home[64];
  snprintf(home, sizeof home, "acc_s: %d bytes", 128 * (512 + 1) * 4); /* the home's rows padded by one */
  cr_assert(strstr(diag_text, home), "%s", diag_text);
}

/* A tile's element in a while condition: the tile is spilled before the loop and
 * again at the end of the body, and sync.c puts a barrier after that spill,
 * before the next test (and one before the first). */
Test(tir_sync, a_while_condition_reading_a_copy_gets_a_barrier_before_each_test) {
  const char *why = NULL;
  TirKernel *K = build("kernel k(X: tensor<f32>[8, 8], C: tensor<f32>[8, 8]) {\n"
                       "  var t: tile<f32>[8, 8] = X[0 :+ 8, 0 :+ 8]\n  while t[0, 0] < 3.0 {\n    t = t + 1.0\n  }\n"
                       "  C[0 :+ 8, 0 :+ 8] = t\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_op(&K->body, TO_WHILE);
  cr_assert(loop);
  int i = 0;
  while (K->body.ops.items[i] != loop) i++;
  cr_assert_eq(((const TirOp *)K->body.ops.items[i - 1])->kind, TO_BARRIER, "a barrier before the first test");
  cr_assert_eq(((const TirOp *)K->body.ops.items[i - 2])->kind, TO_SPILL);
  const TirBlock *b = &loop->body;
  cr_assert_geq(b->ops.len, 2);
  cr_assert_eq(((const TirOp *)b->ops.items[b->ops.len - 1])->kind, TO_BARRIER, "a barrier before the next test");
  cr_assert_eq(((const TirOp *)b->ops.items[b->ops.len - 2])->kind, TO_SPILL, "the condition's spill again");
}

/* A row value the layout stage converts (a slice of [64, 4]'s layout read over
 * [64, 128]) in a loop nest that does not write it: copied once, before the outer
 * loop, with no barrier in either loop; written in the outer loop, it is copied there,
 * before the inner loop. */
Test(tir_sync, a_converted_value_no_loop_writes_is_copied_once_before_the_loops) {
  static const char *src[] = {
      "@launch(256)\nkernel k(Q: tensor<f32>[64, 4], X: tensor<f32>[64, N], O: tensor<f32>[64, N]) {\n"
      "  var qn = rowsum(Q[0 :+ 64, 0 :+ 4])\n  for r in range(0, 2) {\n    for p0 in range(0, N, 128) {\n"
      "      O[0 :+ 64, p0 :+ 128] = qn + X[0 :+ 64, p0 :+ 128]\n    }\n  }\n}\n",
      "@launch(256)\nkernel k(Q: tensor<f32>[64, 4], X: tensor<f32>[64, N], O: tensor<f32>[64, N]) {\n"
      "  var qn = rowsum(Q[0 :+ 64, 0 :+ 4])\n  for r in range(0, 2) {\n    qn = qn * 0.5\n"
      "    for p0 in range(0, N, 128) {\n      O[0 :+ 64, p0 :+ 128] = qn + X[0 :+ 64, p0 :+ 128]\n    }\n  }\n}\n"};
  for (int w = 0; w < 2; w++) {
    const char *why = NULL;
    TirKernel *K = build(src[w], NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    const TirOp *outer = find_loop(&K->body), *inner = find_loop(&outer->body);
    cr_assert(inner);
    cr_assert_eq(count_ops(&K->body, TO_SPILL), 1);
    cr_assert_eq(count_ops(&inner->body, TO_SPILL) + count_ops(&inner->body, TO_BARRIER), 0, "nothing in the inner loop");
    cr_assert_eq(count_ops(&outer->body, TO_SPILL), w, "%s", w ? "copied in the loop that writes it" : "before the loops");
  }
}

/* An element read of a [1, 1] value every thread holds (a row reduction of the
 * block's one row) reads the thread's register: no copy, no spill, the read a value
 * read (hkeys); with another read of the copy (transpose), the copy stays for it, and
 * only the spill that read alone needed goes. */
Test(tir_layout, an_element_every_thread_holds_is_read_in_registers) {
  const char *why = NULL;
  TirKernel *K = build("@launch(256)\nkernel k(G: tensor<f32>[1, 4096], A: tensor<f32>[1]) {\n"
                       "  var m = rowmax(abs(G[0 :+ 1, 0 :+ 4096]))\n  A[0] = m[0, 0]\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 0);
  for (int i = 0; i < K->nbufs; i++) cr_assert_null(K->bufs[i].spill_of, "no copy: %s", K->bufs[i].cname);
  const TirOp *st = find_op(&K->body, TO_STORE);
  cr_assert(st && !tir_read(K, st->expr) && tir_hoisted(K, st->expr));
  K = build("@launch(128)\nkernel k(G: tensor<f32>[1, 512], A: tensor<f32>[1], C: tensor<f32>[4], "
            "B: tensor<f32>[1, 1]) {\n  var m = rowmax(G[0 :+ 1, 0 :+ 512])\n  A[0] = m[0, 0]\n"
            "  for i in range(0, 4) {\n    C[i] = G[0, i]\n  }\n"
            "  B[0 :+ 1, 0 :+ 1] = transpose(m) + m[0, 0]\n}\n",
            NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  /* the copy made for A[0]'s read goes (none is current past the loop: the transpose makes its own) */
  cr_assert_eq(count_ops(&K->body, TO_SPILL), 1, "the transpose's spill alone");
  const TirOp *loop = find_loop(&K->body);
  int at = 0, sp = 0;
  for (int i = 0; i < K->body.ops.len; i++) {
    if (K->body.ops.items[i] == loop) at = i;
    if (((const TirOp *)K->body.ops.items[i])->kind == TO_SPILL) sp = i;
  }
  cr_assert_gt(sp, at, "after the loop");
}

/* A value converted for two ops (c, read in A's [32, 64] layout, then by two
 * statements over [8, 64] tiles) is copied once while it does not change: one
 * spill, one barrier. Written between the two reads, or copied in one branch of an
 * if only, it is copied again. */
Test(tir_sync, a_converted_value_read_again_unchanged_reuses_its_copy) {
  static const char *head =
      "@launch(128)\nkernel k(C: tensor<f32>[64], A: tensor<f32>[32, 64], B: tensor<f32>[8, 64], O: tensor<f32>[8, 64], "
      "P: tensor<f32>[8, 64], flag: i32) {\n  var c = C[0 :+ 64]\n  A[0 :+ 32, 0 :+ 64] = A[0 :+ 32, 0 :+ 64] * c\n"
      "  var b = B[0 :+ 8, 0 :+ 64]\n";
  static const struct {
    const char *body;
    int spills, barriers;
  } cases[] = {
      {"  O[0 :+ 8, 0 :+ 64] = b * c\n  P[0 :+ 8, 0 :+ 64] = b + c\n}\n", 1, 1},
      {"  O[0 :+ 8, 0 :+ 64] = b * c\n  if flag > 0 {\n    P[0 :+ 8, 0 :+ 64] = b + c\n  }\n}\n", 1, 1},
      {"  O[0 :+ 8, 0 :+ 64] = b * c\n  c = c * 2.0\n  P[0 :+ 8, 0 :+ 64] = b + c\n}\n", 2, 3},
      {"  if flag > 0 {\n    O[0 :+ 8, 0 :+ 64] = b * c\n  }\n  P[0 :+ 8, 0 :+ 64] = b + c\n}\n", 2, 3},
  };
  for (int w = 0; w < 4; w++) {
    const char *why = NULL;
    char src[1024]; /* build() frees the arena */
    snprintf(src, sizeof src, "%s%s", head, cases[w].body);
    TirKernel *K = build(src, NULL, &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert_eq(count_ops(&K->body, TO_SPILL), cases[w].spills, "case %d", w);
    cr_assert_eq(count_ops(&K->body, TO_BARRIER), cases[w].barriers, "case %d", w);
  }
}

/* A one-element store whose value reads its own tensor: the value goes into a
 * scalar of its own, then a barrier, then the store. */
Test(tir_sync, an_element_store_reading_its_tensor_computes_first) {
  const char *why = NULL;
  TirKernel *K = build("kernel k(Z: tensor<f32>[4, 4]) {\n  Z[0, 0] = Z[1, 1] + 1.0\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *ops[4];
  cr_assert_eq(K->body.ops.len, 4);
  for (int i = 0; i < 4; i++) ops[i] = K->body.ops.items[i];
  cr_assert(ops[0]->kind == TO_DECL && ops[1]->kind == TO_ASSIGN && ops[2]->kind == TO_BARRIER && ops[3]->kind == TO_STORE);
  cr_assert_eq(ops[1]->dst, ops[0]->dst);
  cr_assert_eq(ops[1]->lay->kind, LY_SCALAR);
}

/* sum() of a row value: over its slice layout, each row counted once. */
Test(tir_layout, sum_of_a_row_value_runs_in_its_slice) {
  const char *why = NULL;
  TirKernel *K = build("@launch(128)\nkernel k(X: tensor<f32>[16, 64], S: tensor<f32>[1]) {\n"
                       "  S[0] = sum(rowsum(X[0 :+ 16, 0 :+ 64]))\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *s = find_op(&K->body, TO_SUM);
  cr_assert(s && s->lay->kind == LY_SLICE && s->lay->dim == 1);
}

/* A @registers tile whose shared layout would hold more than the seed's count
 * per thread gets a plain layout of its own that holds exactly it. */
Test(tir_layout, a_registers_tile_keeps_the_seeds_count) {
  const char *why = NULL;
  TirKernel *K = build("@launch(32)\n@registers(t)\nkernel k(R: tensor<f32>[4, 64], O: tensor<f32>[4, 64]) {\n"
                       "  var t: tile<f32>[1, 64] = R[0 :+ 1, 0 :+ 64]\n  O[0 :+ 4, 0 :+ 64] = R[0 :+ 4, 0 :+ 64] + t\n}\n",
                       NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirVar *t = var_named(K, "t");
  cr_assert_eq(t->layout->kind, LY_BLOCKED);
  cr_assert_eq(layout_count(t->layout), 2, "64 elements over 32 threads: 2 each");
  cr_assert(!layout_padded(t->layout));
  /* [3, 128] over 4 warps: the greedy spread pads the rows; one with the warps across does not */
  why = NULL;
  K = build("@launch(128)\n@registers(t)\nkernel k(R: tensor<f32>[3, 128], O: tensor<f32>[3, 128]) {\n"
            "  var t: tile<f32>[3, 128] = 0.0\n  t += R[0 :+ 3, 0 :+ 128]\n  O[0 :+ 3, 0 :+ 128] = t\n}\n", NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  t = var_named(K, "t");
  cr_assert_eq(layout_count(t->layout), 3);
  cr_assert(!layout_padded(t->layout));
}

/* Two shared homes that do not fit side by side share their bytes when their
 * spans of ops do not meet (a span touching a loop covers the loop); the
 * second's first write waits at a barrier for the first's last readers, and
 * the kernel takes one dynamic buffer. Without the reuse it would need both. */
Test(tir_smem, homes_whose_spans_do_not_meet_share_their_bytes) {
  const char *why = NULL;
  const char *src = "@launch(128)\n"
                    "kernel k(P: tensor<f32>[128, K], Q: tensor<f32>[K, 80], R: tensor<f32>[128, 80], S: tensor<f32>[128, 80]) {\n"
                    "  var a: tile<f32>[128, 80] = 0.0\n  a += dot(P[0 :+ 128, 0 :+ 8], Q[0 :+ 8, 0 :+ 80])\n"
                    "  R[0 :+ 128, 0 :+ 80] = a\n  var b: tile<f32>[128, 80] = 1.0\n"
                    "  for k0 in range(0, K, 8) {\n    b += dot(P[0 :+ 128, k0 :+ 8], Q[k0 :+ 8, 0 :+ 80])\n  }\n"
                    "  S[0 :+ 128, 0 :+ 80] = b * 2.0\n}\n";
  TirKernel *K = build_for("configs/sm_75.yaml", src, &why);
  cr_assert(K, "not lowered: %s%s", why ? why : "", diag_text);
  int a = var_named(K, "a")->home - 1, b = var_named(K, "b")->home - 1;
  cr_assert(a >= 0 && b >= 0);
  cr_assert_eq(K->bufs[a].offset, K->bufs[b].offset);
  cr_assert(K->alias[a] >> b & 1 && K->alias[b] >> a & 1);
  int64_t sum = 0;
  for (int i = 0; i < K->nbufs; i++) sum += K->bufs[i].tensor ? 0 : (K->bufs[i].bytes + 15) / 16 * 16;
  cr_assert_gt(sum, K->t->smem_per_block, "side by side they would not fit");
  cr_assert_leq(K->ki->shared_bytes, K->t->smem_per_block);
  cr_assert(K->ki->dynamic_smem);
  /* the barrier before b's first write, for a's readers */
  const TirOp *prev = NULL, *first_b = NULL;
  for (int i = 0; i < K->body.ops.len && !first_b; i++) {
    const TirOp *op = K->body.ops.items[i];
    if (op->dst == var_named(K, "b") && op->kind == TO_ASSIGN) first_b = op;
    else prev = op;
  }
  cr_assert(first_b && prev && prev->kind == TO_BARRIER, "a barrier right before b = 1.0");
  cr_assert(strstr(prev->reason, "shares its bytes with"), "%s", prev->reason);
  /* on sm_90 they fit side by side: no reuse */
  K = build(src, NULL, &why);
  cr_assert(K);
  for (int i = 0; i < K->nbufs; i++) cr_assert_eq(K->alias[i], 0);
}

/* range() takes its end and step when the loop starts: lower.c marks a bound
 * that names something the body assigns (a var, or a tensor the body stores
 * to), and only such a bound. */
Test(tir_lower, loop_bounds_the_body_assigns_are_taken_once) {
  const char *why = NULL;
  TirKernel *K = build("@launch(64)\n"
                       "kernel k(X: tensor<i32>[N], O: tensor<f32>[N]) {\n"
                       "  var e = N\n"
                       "  var s = 1\n"
                       "  for i in range(0, e, s) {\n"
                       "    e -= 1\n"
                       "  }\n"
                       "  for i in range(0, N, s) {\n"
                       "    if e > 2 {\n"
                       "      s += 1\n"
                       "    }\n"
                       "  }\n"
                       "  for i in range(0, X[0]) {\n"
                       "    X[0] = 1\n"
                       "  }\n"
                       "  for i in range(0, e, s) {\n"
                       "    O[0] = 1.0\n"
                       "  }\n"
                       "}\n",
                       NULL, &why);
  cr_assert(K, "%s", why ? why : "?");
  int once[4], n = 0;
  for (int i = 0; i < K->body.ops.len; i++) {
    const TirOp *op = K->body.ops.items[i];
    if (op->kind == TO_FOR && n < 4) once[n++] = op->once;
  }
  cr_assert_eq(n, 4);
  cr_assert_eq(once[0], TIR_ONCE_END, "e -= 1 in the body: the end is taken once, the step (s) is not written");
  cr_assert_eq(once[1], TIR_ONCE_STEP, "s += 1 under an if: the step is taken once");
  cr_assert_eq(once[2], TIR_ONCE_END, "the end reads X[0], which the body stores to");
  cr_assert_eq(once[3], 0, "a body that writes neither e nor s");
}

/* An in-place GEMM epilogue at 128 x 256 on 256 threads: the slice of C beside the 128
 * accumulator elements a thread holds would take it past the budget, but a 16-bit C's
 * load is staged after the pipeline (its slice then in a copy, no registers): the
 * -Wregister-pressure warning place_values found is given only if the values are still
 * past the budget then (layout_pressure_late). An f32 C cannot be staged: it warns. */
static const char *inplace_src(const char *et) {
  static char src[1024];
  snprintf(src, sizeof src,
           "@launch(256)\n"
           "kernel k(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<%s>[M, N], beta: f32) {\n"
           "  var acc: tile<f32>[128, 256] = 0.0\n"
           "  @pipeline(3)\n"
           "  for k0 in range(0, K, 64) {\n"
           "    acc += dot(A[0 :+ 128, k0 :+ 64], B[k0 :+ 64, 0 :+ 256])\n"
           "  }\n"
           "  C[0 :+ 128, 0 :+ 256] = %s(acc + beta * f32(C[0 :+ 128, 0 :+ 256]))\n"
           "}\n", et, et);
  return src;
}

Test(tir_pressure, a_staged_epilogue_load_is_no_register_pressure) {
  const char *configs[] = {"configs/sm_90.yaml", "configs/sm_90a.yaml"};
  for (int c = 0; c < 2; c++) {
    const char *why = NULL;
    TirKernel *K = build_for(configs[c], inplace_src("f16"), &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    const TirOp *ld = find_op(&K->body, TO_LOAD);
    cr_assert(ld && ld->staged && ld->dst->home, "%s: C's load staged into a copy", configs[c]);
    cr_assert(tir_value_regs(K) <= TIR_MAX_VALUE_REGS, "%s: %d", configs[c], tir_value_regs(K));
    cr_assert(!strstr(diag_text, "register-pressure"), "%s: %s", configs[c], diag_text);
    K = build_for(configs[c], inplace_src("f32"), &why);
    cr_assert(K, "not lowered: %s", why ? why : diag_text);
    cr_assert(strstr(diag_text, "ptxas may spill (acc: 128, slice of C at line 8: 128) [-Wregister-pressure]"), "%s: %s",
              configs[c], diag_text);
  }
}

/* Two scatters through one index column into column windows of constant ranges: the
 * halves of a row (cols(32, 32) and 32 + cols(32, 32)) never meet, whatever the slots,
 * and need no barrier between them (sync.c apart, index_range); windows that meet
 * (16 + cols(32, 32)) keep it: another thread may write an element the first wrote. */
static const char *halves_src(const char *second) {
  static char src[768];
  snprintf(src, sizeof src,
           "@grid(cdiv(T, 32))\n"
           "kernel k(A: tensor<f16>[T, 64], Slot: tensor<i32>[T], C: tensor<f16>[L, 64]) {\n"
           "  var t0 = ctx.block.x * 32\n"
           "  var sl = reshape(pad(Slot[t0 :+ 32], -1), [32, 1])\n"
           "  C[sl, cols(32, 32)] = A[t0 :+ 32, 0 :+ 32]\n"
           "  C[sl, %s] = A[t0 :+ 32, 32 :+ 32]\n"
           "}\n", second);
  return src;
}

Test(tir_sync, scatters_into_column_windows_that_never_meet_need_no_barrier) {
  const char *why = NULL;
  TirKernel *K = build(halves_src("32 + cols(32, 32)"), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_BARRIER), 0);
  K = build(halves_src("cols(32, 32) + 32"), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_BARRIER), 0);
  K = build(halves_src("16 + cols(32, 32)"), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  cr_assert_eq(count_ops(&K->body, TO_BARRIER), 1, "the windows meet at columns 16 to 31");
}

/* An online softmax's running max and sum (carry.c carry_online): in the loop each thread
 * folds its own elements into its partials (in-thread reductions, no barrier); the two
 * folds across threads come after it. With l read elsewhere in the loop it stays as
 * written: two folds an iteration. */
static const char *online_src(bool alpha, const char *extra) {
  static char src[1024];
  snprintf(src, sizeof src,
           "@launch(256)\n@grid(M)\n"
           "kernel k(X: tensor<f32>[M, N], L: tensor<f32>[M], Q: tensor<f32>[M]) {\n"
           "  var mx: tile<f32>[1, 1] = -inf\n  var l: tile<f32>[1, 1] = 0.0\n"
           "  for n0 in range(0, N, 2048) {\n"
           "    var x = pad(X[ctx.block.x :+ 1, n0 :+ 2048], -inf)\n"
           "    var mnew = max(mx, rowmax(x))\n"
           "%s"
           "    mx = mnew\n%s"
           "  }\n"
           "  L[ctx.block.x :+ 1] = log(l) + mx\n}\n",
           alpha ? "    var alpha = exp(mx - mnew)\n    l = l * alpha + rowsum(exp(x - mnew))\n"
                 : "    l = l * exp(mx - mnew) + rowsum(exp(x - mnew))\n",
           extra);
  return src;
}

Test(tir_carry, an_online_softmax_folds_across_threads_once_after_its_loop) {
  const char *why = NULL;
  TirKernel *K = build(online_src(false, ""), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 0);
  cr_assert_eq(count_ops(&loop->body, TO_SCRATCH_WRITE), 0);
  int intra = 0;
  for (int i = 0; i < loop->body.ops.len; i++) {
    const TirOp *op = loop->body.ops.items[i];
    if (op->kind == TO_REDUCE) {
      cr_assert(op->intra);
      intra++;
    }
  }
  cr_assert_eq(intra, 2);
  cr_assert_eq(count_ops(&K->body, TO_REDUCE), 4, "the two in the loop, and the two folds across threads after it");
  cr_assert_eq(count_ops(&K->body, TO_BARRIER), 2);
  K = build(online_src(false, "    Q[ctx.block.x :+ 1] = l\n"), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 2, "l read in the loop: folded each iteration");
}

/* The rescale as a var of its own (var alpha = exp(mx - mnew); l = l * alpha + ..) is
 * carried the same, alpha gone; alpha read elsewhere too keeps the folds in the loop. */
Test(tir_carry, an_online_softmax_with_its_rescale_in_a_var_is_carried) {
  const char *why = NULL;
  TirKernel *K = build(online_src(true, ""), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  const TirOp *loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 0);
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    cr_assert(!v->sym || strcmp(v->sym->name, "alpha") != 0, "alpha is read by nothing once carried");
  }
  K = build(online_src(true, "    Q[ctx.block.x :+ 1] = alpha\n"), NULL, &why);
  cr_assert(K, "not lowered: %s", why ? why : diag_text);
  loop = find_op(&K->body, TO_FOR);
  cr_assert_eq(count_ops(&loop->body, TO_BARRIER), 2, "alpha stored too: folded each iteration");
}
