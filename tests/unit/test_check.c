/* test_check.c: the checker, in process. Each test lexes, parses and checks a
 * small source against configs/sm_90.yaml (tests run from the repo root) and
 * looks at the annotated AST, the KernelInfo or the messages. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "t2c.h"

static Arena ck_arena;
static Diag ck_diag;
static char *ck_msgs;
static size_t ck_msgs_len;
static FILE *ck_msgf;
static TargetConfig ck_target;
static bool ck_ok;

static void ck_teardown(void) {
  if (ck_msgf)
    fclose(ck_msgf);
  ck_msgf = NULL;
  free(ck_msgs);
  ck_msgs = NULL;
  arena_free(&ck_arena);
}

static const char *ck_messages(void) {
  fflush(ck_msgf);
  return ck_msgs ? ck_msgs : "";
}

/* Lexes, parses and checks src; the parse must succeed. */
static Program *ck_check(const char *src) {
  char err[256];
  cr_assert(config_load("configs/sm_90.yaml", &ck_target, err, sizeof err), "%s", err);
  ck_msgf = open_memstream(&ck_msgs, &ck_msgs_len);
  diag_init(&ck_diag, "t.tl", src, ck_msgf);
  int n;
  Token *t = lex(&ck_arena, &ck_diag, src, &n);
  Program *p = parse(&ck_arena, &ck_diag, t, n);
  cr_assert_eq(ck_diag.errors, 0, "syntax errors: %s", ck_messages());
  ck_ok = check_program(&ck_arena, &ck_diag, p, &ck_target);
  fflush(ck_msgf);
  return p;
}

static Program *ck_ok_src(const char *src) {
  Program *p = ck_check(src);
  cr_assert(ck_ok, "unexpected errors:\n%s", ck_messages());
  cr_assert_eq(ck_diag.errors, 0);
  return p;
}

/* Checks src and expects an error message containing `want`. */
static void ck_error(const char *src, const char *want) {
  ck_check(src);
  cr_assert_not(ck_ok, "accepted:\n%s", src);
  cr_assert(strstr(ck_messages(), want), "want \"%s\" in:\n%s", want, ck_messages());
}

static KernelInfo *ck_info(Program *p, int k) {
  cr_assert_lt(k, p->nkernels);
  return p->kernels[k]->info;
}

static Stmt *ck_stmt(Program *p, int i) {
  Block *b = &p->kernels[0]->body;
  cr_assert_lt(i, b->nstmts);
  return b->stmts[i];
}

/* The value of `var NAME = e` or the rhs of statement i. */
static Expr *ck_init(Program *p, int i) {
  Stmt *s = ck_stmt(p, i);
  if (s->kind == S_VAR)
    return s->u.decl.init;
  cr_assert_eq(s->kind, S_ASSIGN);
  return s->u.assign.rhs;
}

static Sym *ck_var(Program *p, int i) {
  Stmt *s = ck_stmt(p, i);
  cr_assert_eq(s->kind, S_VAR);
  cr_assert_not_null(s->u.decl.sym);
  return s->u.decl.sym;
}

static void ck_type(const Type *t, ElemType el, int rank, int d0, int d1) {
  cr_assert_eq(t->elem, el, "elem %d, want %d", t->elem, el);
  cr_assert_eq(t->rank, rank, "rank %d, want %d", t->rank, rank);
  if (rank > 0)
    cr_assert_eq(t->dims[0], d0, "dim 0: %d, want %d", t->dims[0], d0);
  if (rank > 1)
    cr_assert_eq(t->dims[1], d1, "dim 1: %d, want %d", t->dims[1], d1);
}

/* ---- types and shapes */

Test(check, reductions_shapes, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(X: tensor<f32>[32, 64], O: tensor<f32>[1]) {\n"
                         "  var t = X[0 :+ 32, 0 :+ 64]\n"
                         "  var r = rowsum(t)\n"
                         "  var c = colmax(t)\n"
                         "  var s = sum(t)\n"
                         "  var tt = transpose(t)\n"
                         "  O[0] = s\n"
                         "}\n");
  ck_type(&ck_var(p, 0)->ty, T_F32, 2, 32, 64);
  ck_type(&ck_init(p, 1)->ty, T_F32, 2, 32, 1);
  ck_type(&ck_init(p, 2)->ty, T_F32, 2, 1, 64);
  ck_type(&ck_init(p, 3)->ty, T_F32, 0, 0, 0);
  ck_type(&ck_init(p, 4)->ty, T_F32, 2, 64, 32);
}

Test(check, arg_reductions_give_i32_indices_scans_keep_the_type, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(X: tensor<f16>[32, 64], V: tensor<i32>[64]) {\n"
                         "  var t = X[0 :+ 32, 0 :+ 64]\n"
                         "  var a = rowargmax(t)\n"
                         "  var b = colargmin(t)\n"
                         "  var c = cumsum(t)\n"
                         "  var d = cummax(t, 0)\n"
                         "  var e = cumprod(V[0 :+ 64], 0)\n"
                         "}\n");
  ck_type(&ck_init(p, 1)->ty, T_I32, 2, 32, 1);
  ck_type(&ck_init(p, 2)->ty, T_I32, 2, 1, 64);
  ck_type(&ck_init(p, 3)->ty, T_F16, 2, 32, 64);
  ck_type(&ck_init(p, 4)->ty, T_F16, 2, 32, 64);
  ck_type(&ck_init(p, 5)->ty, T_I32, 1, 64, 0);
}

Test(check, scan_and_arg_misuse, .fini = ck_teardown) {
  ck_error("kernel k(X: tensor<f32>[8, 8]) {\n  var t = cumsum(X[0 :+ 8, 0 :+ 8], 2)\n}\n",
           "the axis of cumsum() must be the constant 0 (down each column) or 1 (along each row)");
  ck_teardown();
  ck_error("kernel k(X: tensor<f32>[8]) {\n  var t = cummax(X[0 :+ 8], 1)\n}\n", "a rank-1 tile has one axis, 0");
  ck_teardown();
  ck_error("kernel k(X: tensor<f32>[8]) {\n  var t = rowargmax(X[0 :+ 8])\n}\n", "rowargmax() needs a 2-D tile");
  ck_teardown();
  ck_error("kernel k(X: tensor<f32>[8, 8]) {\n  var t = cumsum(X[0 :+ 8, 0 :+ 8], 1, 0)\n}\n",
           "cumsum() takes 1 or 2 arguments, not 3");
}

Test(check, dot_accumulates_wider, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(A: tensor<f16>[64, 32], B: tensor<f16>[32, 16], I: tensor<i8>[16, 32],\n"
                         "         J: tensor<i8>[32, 8], C: tensor<f32>[64, 16], D: tensor<i32>[16, 8]) {\n"
                         "  C[0 :+ 64, 0 :+ 16] = dot(A[0 :+ 64, 0 :+ 32], B[0 :+ 32, 0 :+ 16])\n"
                         "  D[0 :+ 16, 0 :+ 8] = dot(I[0 :+ 16, 0 :+ 32], J[0 :+ 32, 0 :+ 8])\n"
                         "}\n");
  ck_type(&ck_init(p, 0)->ty, T_F32, 2, 64, 16);
  ck_type(&ck_init(p, 1)->ty, T_I32, 2, 16, 8);
}

Test(check, broadcasting, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(X: tensor<f32>[16, 64], O: tensor<f32>[16, 64]) {\n"
                         "  var t = X[0 :+ 16, 0 :+ 64]\n"
                         "  var m = rowmax(t)\n"
                         "  var e = exp(t - m)\n"
                         "  var c = t * colsum(t) + 1.0\n"
                         "  O[0 :+ 16, 0 :+ 64] = e + c\n"
                         "}\n");
  ck_type(&ck_init(p, 2)->ty, T_F32, 2, 16, 64);
  ck_type(&ck_init(p, 3)->ty, T_F32, 2, 16, 64);
}

Test(check, literal_takes_other_type, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(X: tensor<f16>[64], O: tensor<f16>[64], n: i64) {\n"
                         "  var h = X[0 :+ 64] * 2.0\n"
                         "  var b = n * 3\n"
                         "  var i = 7\n"
                         "  var f = 1.5\n"
                         "  var cmp = h > 0.0\n"
                         "  O[0 :+ 64] = h\n"
                         "}\n");
  ck_type(&ck_var(p, 0)->ty, T_F16, 1, 64, 0);
  ck_type(&ck_var(p, 1)->ty, T_I64, 0, 0, 0);
  ck_type(&ck_var(p, 2)->ty, T_I32, 0, 0, 0);
  ck_type(&ck_var(p, 3)->ty, T_F32, 0, 0, 0);
  ck_type(&ck_var(p, 4)->ty, T_BOOL, 1, 64, 0);
  cr_assert_not(ck_var(p, 2)->ty.untyped);
}

Test(check, slices_keep_dims_in_order, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(X: tensor<f32>[4, 8, 16, 32], O: tensor<f32>[8, 32]) {\n"
                         "  var a = X[1, 0 :+ 8, 3, 0 :+ 32]\n"
                         "  var b = X[0, 2, 0 :+ 16, 5]\n"
                         "  var c = X[0, 0, 0, 0]\n"
                         "  var d = a[0 :+ 4, 2]\n"
                         "  O[0 :+ 8, 0 :+ 32] = a\n"
                         "}\n");
  ck_type(&ck_var(p, 0)->ty, T_F32, 2, 8, 32);
  ck_type(&ck_var(p, 1)->ty, T_F32, 1, 16, 0);
  ck_type(&ck_var(p, 2)->ty, T_F32, 0, 0, 0);
  ck_type(&ck_var(p, 3)->ty, T_F32, 1, 4, 0);
  cr_assert(ck_init(p, 0)->flags & EF_TILE);
  cr_assert_not(ck_init(p, 2)->flags & EF_TILE);
}

Test(check, casts_and_index_tiles, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(X: tensor<f32>[64, 64], O: tensor<f16>[64, 64]) {\n"
                         "  var m = where(rows(64, 64) >= cols(64, 64), X[0 :+ 64, 0 :+ 64], -inf)\n"
                         "  O[0 :+ 64, 0 :+ 64] = f16(m)\n"
                         "}\n");
  ck_type(&ck_var(p, 0)->ty, T_F32, 2, 64, 64);
  ck_type(&ck_init(p, 1)->ty, T_F16, 2, 64, 64);
  Expr *w = ck_init(p, 0);
  ck_type(&w->u.call.args[0]->ty, T_BOOL, 2, 64, 64);
}

Test(check, random_numbers_take_the_shape_of_the_offset, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(O: tensor<f32>[16, 64], s: i32, t: i64) {\n"
                         "  var off = rows(16, 64) * 64 + cols(16, 64)\n"
                         "  var a = rand(t, off)\n"
                         "  var b = randint(s, u32(off))\n"
                         "  var c = randn(12345678901, 7)\n"
                         "  O[0 :+ 16, 0 :+ 64] = a + randn(s, off) + f32(b % u32(2)) + c\n"
                         "}\n");
  ck_type(&ck_var(p, 1)->ty, T_F32, 2, 16, 64);
  ck_type(&ck_var(p, 2)->ty, T_U32, 2, 16, 64);
  ck_type(&ck_var(p, 3)->ty, T_F32, 0, 0, 0);
  cr_assert_not(ck_var(p, 3)->ty.untyped);
}

Test(check, random_number_misuse, .fini = ck_teardown) {
  ck_error("kernel a(O: tensor<f32>[64], x: f32) {\n  O[0] = rand(1, x)\n}\n"
           "kernel b(O: tensor<f32>[64], x: f32) {\n  O[0] = randn(x, 1)\n}\n"
           "kernel c(O: tensor<u32>[64], s: u32) {\n  O[0] = randint(s, 1)\n}\n"
           "kernel d(O: tensor<f32>[64], s: i64) {\n  O[0] = rand(s, true)\n}\n",
           "t.tl:2:18: error: rand() offset must be i32 or u32 (a scalar or a tile), not f32");
  const char *m = ck_messages();
  cr_assert(strstr(m, "t.tl:5:16: error: randn() seed must be an i64 or i32 scalar, not f32"), "%s", m);
  cr_assert(strstr(m, "t.tl:8:18: error: randint() seed must be an i64 or i32 scalar, not u32"), "%s", m);
  cr_assert(strstr(m, "t.tl:11:18: error: rand() offset must be i32 or u32 (a scalar or a tile), not bool"), "%s", m);
  cr_assert_eq(ck_diag.errors, 4, "%s", m);
}

/* ---- constants */

Test(check, constant_folding, .fini = ck_teardown) {
  Program *p = ck_ok_src("const N = 64\n"
                         "const H = (N / 2 + 0x10 - 1_0) * 3 % 7\n"
                         "@launch(256)\n"
                         "kernel k(O: tensor<f32>[N]) {\n"
                         "  var t: tile<f32>[N / 2, ctx.threads / 64] = 0.0\n"
                         "  var c = cdiv(N + 1, 8)\n"
                         "  var s = 1 << 4 | 3\n"
                         "  var w = ctx.warps\n"
                         "  O[0 :+ N] = 1.0\n"
                         "}\n");
  int64_t v;
  ck_type(&ck_var(p, 0)->ty, T_F32, 2, 32, 4);
  cr_assert(check_const_int(ck_init(p, 1), &v));
  cr_assert_eq(v, 9);
  cr_assert(check_const_int(ck_init(p, 2), &v));
  cr_assert_eq(v, 19);
  cr_assert(check_const_int(ck_init(p, 3), &v));
  cr_assert_eq(v, 8);
  Sym *h = p->consts[1]->u.decl.sym;
  cr_assert_eq(h->ival, ((64 / 2 + 16 - 10) * 3) % 7);
  cr_assert_eq(ck_info(p, 0)->tensors[0]->tdim_const[0], 64);
}

Test(check, runtime_values_are_not_constant, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(O: tensor<i32>[N], n: i32) {\n"
                         "  var a = n * 2\n"
                         "  var b = N + 1\n"
                         "  var c = ctx.thread\n"
                         "  O[0] = a + b + c\n"
                         "}\n");
  int64_t v;
  cr_assert_not(check_const_int(ck_init(p, 0), &v));
  cr_assert_not(check_const_int(ck_init(p, 1), &v));
  cr_assert_not(check_const_int(ck_init(p, 2), &v));
}

Test(check, constant_errors, .fini = ck_teardown) {
  ck_error("const N = 64 / 0\nkernel k(O: tensor<f32>[1]) { O[0] = 1.0 }\n",
           "t.tl:1:14: error: division by zero in a constant expression");
  cr_assert_eq(ck_diag.errors, 1, "%s", ck_messages()); /* no second error about N */
}

Test(check, tile_dim_division_by_zero_said_once, .fini = ck_teardown) {
  ck_error("kernel k(O: tensor<f32>[1]) {\n  var t: tile<f32>[(64 / 0) + 1] = 0.0\n  O[0] = 1.0\n}\n",
           "division by zero in a constant expression");
  cr_assert_eq(ck_diag.errors, 1, "%s", ck_messages());
}

/* ---- parameters and size names */

Test(check, size_names_in_order_of_first_appearance, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(A: tensor<f32>[M, K], B: tensor<f32>[K, N], alpha: f32,\n"
                         "         C: tensor<f32>[M, N], D: tensor<f32>[4, P, M]) {\n"
                         "  C[0, 0] = alpha * f32(M + N + K + P)\n"
                         "}\n");
  KernelInfo *ki = ck_info(p, 0);
  cr_assert_eq(ki->nsizes, 4);
  cr_assert_str_eq(ki->sizes[0]->name, "M");
  cr_assert_str_eq(ki->sizes[1]->name, "K");
  cr_assert_str_eq(ki->sizes[2]->name, "N");
  cr_assert_str_eq(ki->sizes[3]->name, "P");
  cr_assert_eq(ki->nparams, 5);
  cr_assert_eq(ki->ntensors, 4);
  /* the same size name is the same Sym in every tensor */
  cr_assert_eq(ki->tensors[0]->tdim_size[1], ki->tensors[1]->tdim_size[0]);
  cr_assert_eq(ki->tensors[3]->tdim_size[2], ki->sizes[0]);
  cr_assert_null(ki->tensors[3]->tdim_size[0]);
  cr_assert_eq(ki->tensors[3]->tdim_const[0], 4);
  ck_type(&ki->sizes[0]->ty, T_I32, 0, 0, 0);
}

/* @strided: X_stride0.. of each named tensor, i64, in the order of the
 * tensors in the parameter list (not of @strided), after the size names. */
Test(check, strided_params_in_tensor_order, .fini = ck_teardown) {
  Program *p = ck_ok_src("@strided(C, A)\n"
                         "kernel k(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N, 2]) {\n"
                         "  C[0, 0, 0] = A[0, 0] + B[0, 0]\n"
                         "}\n");
  KernelInfo *ki = ck_info(p, 0);
  cr_assert_eq(ki->nstrides, 5);
  const char *want[] = {"A_stride0", "A_stride1", "C_stride0", "C_stride1", "C_stride2"};
  for (int i = 0; i < 5; i++) {
    cr_assert_str_eq(ki->strides[i]->name, want[i]);
    cr_assert_str_eq(ki->strides[i]->cname, want[i]);
    cr_assert_eq(ki->strides[i]->kind, SY_STRIDE);
    ck_type(&ki->strides[i]->ty, T_I64, 0, 0, 0);
  }
  cr_assert_eq(ki->tensors[0]->tstride[1], ki->strides[1]);
  cr_assert_null(ki->tensors[1]->tstride[0], "B is row-major");
  cr_assert_eq(ki->tensors[2]->tstride[2], ki->strides[4]);
}

/* A parameter already called X_stride0 keeps its name; the stride's C name moves aside. */
Test(check, strided_cname_taken, .fini = ck_teardown) {
  Program *p = ck_ok_src("@strided(X)\n"
                         "kernel k(X: tensor<f32>[8], X_stride0: i32, O: tensor<f32>[8]) {\n"
                         "  O[0 :+ 8] = X[0 :+ 8] + f32(X_stride0)\n"
                         "}\n");
  KernelInfo *ki = ck_info(p, 0);
  cr_assert_eq(ki->nstrides, 1);
  cr_assert_str_eq(ki->params[1]->cname, "X_stride0");
  cr_assert_str_neq(ki->strides[0]->cname, "X_stride0");
}

Test(check, written_tensors, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(X: tensor<f32>[64], Y: tensor<f32>[64], O: tensor<f32>[64]) {\n"
                         "  O[0 :+ 64] = X[0 :+ 64]\n"
                         "  Y[0 :+ 64] += X[0 :+ 64]\n"
                         "}\n");
  KernelInfo *ki = ck_info(p, 0);
  cr_assert_not(ki->tensors[0]->written);
  cr_assert(ki->tensors[1]->written);
  cr_assert(ki->tensors[2]->written);
}

Test(check, size_name_declared_as_param_too, .fini = ck_teardown) {
  ck_error("kernel k(X: tensor<f32>[N], N: i32) { X[0] = 1.0 }\n",
           "t.tl:1:29: error: 'N' is already a size name of an earlier tensor");
  cr_assert_eq(ck_diag.errors, 1, "%s", ck_messages());
}

/* ---- attributes */

Test(check, launch_and_defaults, .fini = ck_teardown) {
  Program *p = ck_ok_src("@launch(256, 2)\n@grid(cdiv(N, 128), 4)\n@assume(N % 64 == 0, N >= 128)\n"
                         "kernel a(X: tensor<f32>[N]) { X[0] = 1.0 }\n"
                         "kernel b(X: tensor<f32>[8]) { X[0] = 1.0 }\n");
  KernelInfo *a = ck_info(p, 0), *b = ck_info(p, 1);
  cr_assert_eq(a->threads, 256);
  cr_assert_eq(a->min_blocks, 2);
  cr_assert_not_null(a->grid[0]);
  cr_assert_not_null(a->grid[1]);
  cr_assert_null(a->grid[2]);
  cr_assert_eq(a->nassumes, 2);
  cr_assert_eq(a->assumes[0].mod, 64);
  cr_assert_eq(a->assumes[0].size, a->sizes[0]);
  cr_assert_eq(a->assumes[1].min, 128);
  cr_assert_eq(b->threads, 128);
  cr_assert_eq(b->min_blocks, 0);
  cr_assert_null(b->grid[0]);
}

Test(check, launch_rules, .fini = ck_teardown) {
  ck_error("@launch(100)\nkernel k(O: tensor<f32>[1]) { O[0] = 1.0 }\n",
           "t.tl:1:9: error: @launch(100): threads must be a multiple of ctx.lanes (32 on sm_90)");
}

Test(check, launch_too_many, .fini = ck_teardown) {
  ck_error("@launch(2048)\nkernel k(O: tensor<f32>[1]) { O[0] = 1.0 }\n",
           "@launch(2048): sm_90 allows at most 1024 threads per block");
}

Test(check, launch_param_is_not_constant, .fini = ck_teardown) {
  ck_error("@launch(n)\nkernel k(O: tensor<f32>[1], n: i32) { O[0] = 1.0 }\n",
           "t.tl:1:9: error: @launch threads must be a constant integer");
}

Test(check, attribute_misuse, .fini = ck_teardown) {
  ck_error("@launch(64)\n@launch(128)\n@unroll\n@bogus\n"
           "kernel k(O: tensor<f32>[4]) {\n"
           "  @pipeline(2)\n  @pipeline(3)\n  @grid(1)\n  for i in range(0, 4) { O[i] = 1.0 }\n"
           "  @unroll\n  var x = 1\n"
           "}\n",
           "t.tl:2:1: error: @launch is given twice");
  const char *m = ck_messages();
  cr_assert(strstr(m, "t.tl:1:1: note: first given here"), "%s", m);
  cr_assert(strstr(m, "t.tl:3:1: error: @unroll does not belong on a kernel; it goes on a for loop"), "%s", m);
  cr_assert(strstr(m, "t.tl:4:1: error: unknown attribute @bogus"), "%s", m);
  cr_assert(strstr(m, "t.tl:7:3: error: @pipeline is given twice"), "%s", m);
  cr_assert(strstr(m, "t.tl:8:3: error: @grid does not belong here; it goes before a kernel"), "%s", m);
  cr_assert(strstr(m, "t.tl:10:3: error: @unroll does not belong here; it goes on a for loop"), "%s", m);
  cr_assert_eq(ck_diag.errors, 6, "%s", m);
}

Test(check, grid_uses_body_var, .fini = ck_teardown) {
  ck_error("@grid(n)\nkernel k(O: tensor<f32>[1]) {\n  var n = 2\n  O[0] = 1.0\n}\n",
           "t.tl:1:7: error: @grid cannot use 'n': it is a var of the kernel body");
}

/* ---- @registers */

Test(check, registers_placement_and_per_thread, .fini = ck_teardown) {
  Program *p = ck_ok_src("@launch(256)\n@registers(acc, b)\n"
                         "kernel k(X: tensor<f32>[16, K], O: tensor<f32>[16, 64]) {\n"
                         "  var acc: tile<f32>[16, 64] = 0.0\n"
                         "  var b: tile<f32>[256] = 1.0\n"
                         "  var sh: tile<f32>[16, 64] = 0.0\n"
                         "  for kt in range(0, K, 64) {\n"
                         "    var x = X[0 :+ 16, kt :+ 64]\n"
                         "    acc += x * x\n"
                         "  }\n"
                         "  O[0 :+ 16, 0 :+ 64] = acc + sh\n"
                         "}\n");
  KernelInfo *ki = ck_info(p, 0);
  Sym *acc = ck_var(p, 0), *b = ck_var(p, 1), *sh = ck_var(p, 2);
  cr_assert_eq(acc->place, PL_REGISTER);
  cr_assert_eq(acc->per_thread, 4);
  cr_assert_eq(acc->reg_loc.line, 2);
  cr_assert_eq(acc->reg_loc.col, 12);
  cr_assert_eq(b->place, PL_REGISTER);
  cr_assert_eq(b->per_thread, 1);
  cr_assert_eq(sh->place, PL_SHARED);
  cr_assert_eq(ki->regs.len, 2);
  cr_assert_eq(ki->regs.items[0], acc);
  cr_assert_eq(ki->tiles.len, 4); /* acc, b, sh and the loop's x */
}

Test(check, registers_exactly_64_per_thread, .fini = ck_teardown) {
  Program *p = ck_ok_src("@launch(128)\n@registers(acc)\n"
                         "kernel k(O: tensor<f32>[128, 64]) {\n"
                         "  var acc: tile<f32>[128, 64] = 0.0\n"
                         "  O[0 :+ 128, 0 :+ 64] = acc\n"
                         "}\n");
  cr_assert_eq(ck_var(p, 0)->per_thread, 64);
}

Test(check, registers_seed_example_rejected, .fini = ck_teardown) {
  ck_error("@launch(256)\n@registers(acc)\nkernel k(O: tensor<f32>[3, 5]) {\n"
           "  var acc: tile<f32>[3, 5] = 0.0\n  O[0 :+ 3, 0 :+ 5] = acc\n}\n",
           "t.tl:2:12: error: @registers(acc): tile<f32>[3, 5] has 15 elements, which 256 threads cannot share evenly");
  cr_assert(strstr(ck_messages(), "t.tl:4:7: note: every thread must hold the same number of elements"),
            "%s", ck_messages());
  cr_assert_eq(ck_diag.errors, 1, "%s", ck_messages());
}

Test(check, registers_cap, .fini = ck_teardown) {
  ck_error("@launch(32)\n@registers(acc)\nkernel k(O: tensor<f32>[64, 64]) {\n"
           "  var acc: tile<f32>[64, 64] = 0.0\n  O[0 :+ 64, 0 :+ 64] = acc\n}\n",
           "@registers(acc): 128 elements per thread is more than 64, the cap for one register tile");
}

Test(check, registers_names_nothing, .fini = ck_teardown) {
  ck_error("@registers(acc)\nkernel k(O: tensor<f32>[1]) {\n  var acx: tile<f32>[128] = 0.0\n  O[0] = 1.0\n}\n",
           "t.tl:1:12: error: @registers(acc): the name refers to nothing");
}

Test(check, registers_needs_initial_value, .fini = ck_teardown) {
  ck_error("@registers(acc)\nkernel k(O: tensor<f32>[128]) {\n  var acc: tile<f32>[128]\n"
           "  acc = 1.0\n  O[0 :+ 128] = acc\n}\n",
           "t.tl:3:7: error: register tile 'acc' is declared without an initial value; a register tile needs one");
}

Test(check, registers_update_in_if_and_while, .fini = ck_teardown) {
  ck_error("@registers(acc)\nkernel k(O: tensor<f32>[128], n: i32) {\n  var acc: tile<f32>[128] = 0.0\n"
           "  if n > 0 { acc += 1.0 }\n"
           "  while n > 3 { acc = acc * 2.0 }\n"
           "  for i in range(0, n) { acc += 1.0 }\n"
           "  O[0 :+ 128] = acc\n}\n",
           "t.tl:4:14: error: an update of register tile 'acc' inside an if is not supported");
  cr_assert(strstr(ck_messages(), "t.tl:5:17: error: an update of register tile 'acc' inside a while is not supported"),
            "%s", ck_messages());
  cr_assert_eq(ck_diag.errors, 2, "%s", ck_messages()); /* a for is fine */
}

Test(check, registers_partial_write, .fini = ck_teardown) {
  ck_error("@registers(acc)\nkernel k(O: tensor<f32>[128]) {\n  var acc: tile<f32>[128] = 0.0\n"
           "  acc[0 :+ 64] = 1.0\n  O[0 :+ 128] = acc\n}\n",
           "a partial write to register tile 'acc'");
}

/* ---- thread dependence and uniform control */

Test(check, thread_dependence_of_vars, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(O: tensor<i32>[256], n: i32) {\n"
                         "  var a = ctx.thread\n"
                         "  var b = n * 2\n"
                         "  var c = b + a\n"
                         "  var d = 0\n"
                         "  if ctx.lane == 0 { d = 1 }\n"
                         "  var e = ctx.threads + ctx.block.x\n"
                         "  var f = 0\n"
                         "  for i in range(0, n) { f = f + e }\n"
                         "  O[a] = b + c + d + e + f\n"
                         "}\n");
  cr_assert(ck_var(p, 0)->thread_dep);
  cr_assert_not(ck_var(p, 1)->thread_dep);
  cr_assert(ck_var(p, 2)->thread_dep);
  cr_assert(ck_var(p, 3)->thread_dep); /* assigned under a thread-dependent if */
  cr_assert_not(ck_var(p, 5)->thread_dep);
  cr_assert_not(ck_var(p, 6)->thread_dep);
  cr_assert(check_expr_td(ck_init(p, 2)));
  cr_assert_not(check_expr_td(ck_init(p, 5)));
}

Test(check, thread_dependence_through_a_loop, .fini = ck_teardown) {
  /* y is tainted by x only on the second iteration: the fixpoint finds it */
  Program *p = ck_ok_src("kernel k(O: tensor<i32>[1], n: i32) {\n"
                         "  var x = 0\n"
                         "  var y = 0\n"
                         "  for i in range(0, n) {\n"
                         "    y = x\n"
                         "    x = ctx.warp\n"
                         "  }\n"
                         "  O[0] = y\n"
                         "}\n");
  cr_assert(ck_var(p, 0)->thread_dep);
  cr_assert(ck_var(p, 1)->thread_dep);
}

Test(check, scalar_statements_under_thread_control_are_fine, .fini = ck_teardown) {
  ck_ok_src("kernel k(X: tensor<f32>[64], O: tensor<f32>[64]) {\n"
            "  var s = sum(X[0 :+ 64])\n"
            "  if ctx.thread == 0 { O[0] = s }\n"
            "  for i in range(ctx.lane, 64, 32) { O[i] = X[i] }\n"
            "}\n");
}

Test(check, tile_statement_under_thread_if, .fini = ck_teardown) {
  ck_error("kernel k(X: tensor<f32>[64], O: tensor<f32>[64]) {\n"
           "  var me = ctx.thread / 32\n"
           "  if me == 1 {\n"
           "    O[0 :+ 64] = X[0 :+ 64]\n"
           "  }\n"
           "}\n",
           "t.tl:4:5: error: a tile statement under thread-dependent control");
  cr_assert(strstr(ck_messages(), "t.tl:3:9: note: this depends on 'me', whose value differs between threads"),
            "%s", ck_messages());
}

Test(check, divergent_break, .fini = ck_teardown) {
  ck_error("kernel k(X: tensor<f32>[64], O: tensor<f32>[64], n: i32) {\n"
           "  var acc: tile<f32>[64] = 0.0\n"
           "  for i in range(0, n) {\n"
           "    acc += X[0 :+ 64]\n"
           "    if ctx.thread == 3 { break }\n"
           "  }\n"
           "  O[0 :+ 64] = acc\n"
           "}\n",
           "t.tl:4:5: error: a tile statement under thread-dependent control");
  cr_assert(strstr(ck_messages(), "t.tl:5:26: note: this 'break' runs for some threads only"), "%s", ck_messages());
}

Test(check, uniform_break_is_fine, .fini = ck_teardown) {
  ck_ok_src("kernel k(X: tensor<f32>[64], O: tensor<f32>[64], n: i32) {\n"
            "  var acc: tile<f32>[64] = 0.0\n"
            "  for i in range(0, n) {\n"
            "    acc += X[0 :+ 64]\n"
            "    if sum(acc) > 10.0 { break }\n"
            "  }\n"
            "  O[0 :+ 64] = acc\n"
            "}\n");
}

/* ---- names */

Test(check, c_names_avoid_reserved_words, .fini = ck_teardown) {
  Program *p = ck_ok_src("kernel k(int: tensor<f32>[64], tid: i32) {\n"
                         "  var float = 1.0\n"
                         "  int[tid] = float\n"
                         "}\n");
  KernelInfo *ki = ck_info(p, 0);
  cr_assert_str_eq(ki->params[0]->cname, "int_");
  cr_assert_str_eq(ki->params[1]->cname, "tid_");
  cr_assert_str_eq(ck_var(p, 0)->cname, "float_");
}

Test(check, name_errors, .fini = ck_teardown) {
  ck_error("kernel k(O: tensor<f32>[64], a: f32) {\n"
           "  var exp = 1.0\n"
           "  var t = 1\n"
           "  var t = 2\n"
           "  a = 2.0\n"
           "  O[0] = exp + q\n"
           "  for i in range(0, 2) { i = 1 }\n"
           "  break\n"
           "  O = 1.0\n"
           "}\n",
           "t.tl:2:7: error: 'exp' is a built-in name and cannot be redefined");
  const char *m = ck_messages();
  cr_assert(strstr(m, "t.tl:4:7: error: redefinition of 't'"), "%s", m);
  cr_assert(strstr(m, "t.tl:3:7: note: 't' was defined here"), "%s", m);
  cr_assert(strstr(m, "t.tl:5:3: error: cannot assign to 'a': it is a scalar parameter"), "%s", m);
  cr_assert(strstr(m, "t.tl:6:16: error: use of undeclared name 'q'"), "%s", m);
  cr_assert(strstr(m, "t.tl:7:26: error: cannot assign to 'i': it is a loop variable"), "%s", m);
  cr_assert(strstr(m, "t.tl:8:3: error: 'break' outside a loop"), "%s", m);
  cr_assert(strstr(m, "t.tl:9:3: error: cannot assign to 'O': it is a tensor"), "%s", m);
  cr_assert_eq(ck_diag.errors, 7, "%s", m); /* the use of exp does not cascade */
}

/* ---- type errors */

Test(check, mismatch_has_fixit, .fini = ck_teardown) {
  ck_error("kernel k(O: tensor<f32>[1], x: f32, h: f16) {\n  O[0] = x + h\n}\n",
           "t.tl:2:12: error: mismatched element types f32 and f16\n"
           "  O[0] = x + h\n"
           "           ^\n"
           "t.tl:2:14: note: convert one side explicitly, e.g. f32(h)\n");
}

Test(check, type_and_shape_errors, .fini = ck_teardown) {
  ck_error("kernel k(A: tensor<f32>[16, 64], B: tensor<f32>[16, 32], O: tensor<i32>[64], n: i32) {\n"
           "  var t = A[0 :+ 16, 0 :+ 64] + B[0 :+ 16, 0 :+ 32]\n"
           "  var u: tile<i32>[64] = 0.5\n"
           "  var v = dot(A[0 :+ 16, 0 :+ 64], B[0 :+ 16, 0 :+ 32])\n"
           "  if n { O[0] = 1 }\n"
           "  var w = A[0 :+ n, 0]\n"
           "  var x = A[0 :+ 16]\n"
           "  O[0] = 1.5 * n\n"
           "}\n",
           "shapes tile<f32>[16, 64] and tile<f32>[16, 32] do not broadcast (dim 1: 64 vs 32)");
  const char *m = ck_messages();
  cr_assert(strstr(m, "t.tl:3:26: error: a float value cannot be assigned to a var of type tile<i32>[64]"), "%s", m);
  cr_assert(strstr(m, "dot: inner dims differ: tile<f32>[16, 64] x tile<f32>[16, 32] (64 vs 16)"), "%s", m);
  cr_assert(strstr(m, "t.tl:5:6: error: the condition of if must be a bool scalar, not i32"), "%s", m);
  cr_assert(strstr(m, "t.tl:6:18: error: a slice length must be a constant integer"), "%s", m);
  cr_assert(strstr(m, "t.tl:7:11: error: 'A' has 2 dims but 1 index is given"), "%s", m);
  cr_assert(strstr(m, "t.tl:8:14: error: a float literal cannot take the type i32"), "%s", m);
  cr_assert_eq(ck_diag.errors, 7, "%s", m);
}

Test(check, uninitialised_tile_read, .fini = ck_teardown) {
  ck_error("kernel k(O: tensor<f32>[64]) {\n  var t: tile<f32>[64]\n  O[0 :+ 64] = t\n}\n",
           "t.tl:3:16: error: tile 't' is read before anything writes it");
}

Test(check, uninitialised_tile_written_first_is_fine, .fini = ck_teardown) {
  ck_ok_src("kernel k(X: tensor<f32>[64], O: tensor<f32>[64], n: i32) {\n"
            "  var t: tile<f32>[64]\n"
            "  var u: tile<f32>[64]\n"
            "  t = X[0 :+ 64]\n"
            "  u[0 :+ 32] = t[0 :+ 32]\n"
            "  u[32 :+ 32] = t[32 :+ 32]\n"
            "  O[0 :+ 64] = t + u\n"
            "}\n");
}

Test(check, deep_chain_reported_once, .fini = ck_teardown) {
  Buf src = {0};
  buf_puts(&src, "kernel k(O: tensor<f32>[1], x: f32) {\n  O[0] = x");
  for (int i = 0; i < 400; i++)
    buf_puts(&src, " + x");
  buf_puts(&src, "\n}\n");
  ck_error(src.data, "expression is nested too deeply");
  cr_assert_eq(ck_diag.errors, 1, "%s", ck_messages());
  buf_free(&src);
}

Test(check, long_chain_within_limit, .fini = ck_teardown) {
  Buf src = {0};
  buf_puts(&src, "kernel k(O: tensor<f32>[1], x: f32) {\n  O[0] = x");
  for (int i = 0; i < 200; i++)
    buf_puts(&src, " + x");
  buf_puts(&src, "\n}\n");
  ck_ok_src(src.data);
  buf_free(&src);
}
