/* test_parse.c: the parser. ASTs are compared as s-expressions. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "t2c.h"

static Arena arena;
static Diag diag;
static char *msgs;
static size_t msgs_len;
static FILE *msgf;
static Buf out;
static char *wrapped;

static void teardown(void) {
  if (msgf)
    fclose(msgf);
  free(msgs);
  free(wrapped);
  arena_free(&arena);
  buf_free(&out);
}

static const char *messages(void) {
  fflush(msgf);
  return msgs ? msgs : "";
}

static Program *parse_src(const char *src) {
  if (msgf) {
    fclose(msgf);
    free(msgs);
    msgs = NULL;
  }
  msgf = open_memstream(&msgs, &msgs_len);
  diag_init(&diag, "t.tl", src, msgf);
  int n;
  Token *t = lex(&arena, &diag, src, &n);
  Program *p = parse(&arena, &diag, t, n);
  fflush(msgf);
  return p;
}

/* ---- the AST as text */

static void dump_expr(Buf *b, Expr *e);
static void dump_block(Buf *b, Block *bl);

static void dump_exprs(Buf *b, Expr **es, int n) {
  for (int i = 0; i < n; i++) {
    buf_puts(b, " ");
    dump_expr(b, es[i]);
  }
}

static void dump_expr(Buf *b, Expr *e) {
  cr_assert_eq(e->ty.elem, T_NONE);
  switch (e->kind) {
  case E_INT: buf_printf(b, "%lld", (long long)e->u.ival); break;
  case E_FLOAT: buf_puts(b, e->u.ftext); break;
  case E_BOOL: buf_puts(b, e->u.ival ? "true" : "false"); break;
  case E_IDENT: buf_puts(b, e->u.ident.name); break;
  case E_MEMBER:
    buf_puts(b, "(. ");
    dump_expr(b, e->u.member.base);
    buf_printf(b, " %s)", e->u.member.name);
    break;
  case E_UNARY:
    buf_printf(b, "(%s ", token_names[e->u.unary.op]);
    dump_expr(b, e->u.unary.a);
    buf_puts(b, ")");
    break;
  case E_BINARY:
    buf_printf(b, "(%s ", token_names[e->u.binary.op]);
    dump_expr(b, e->u.binary.a);
    buf_puts(b, " ");
    dump_expr(b, e->u.binary.b);
    buf_puts(b, ")");
    break;
  case E_CALL:
    cr_assert_eq(e->u.call.builtin, -1);
    cr_assert_eq(e->u.call.cast, T_NONE);
    buf_printf(b, "(call %s", e->u.call.name);
    dump_exprs(b, e->u.call.args, e->u.call.nargs);
    buf_puts(b, ")");
    break;
  case E_INDEX:
    buf_puts(b, "(idx ");
    dump_expr(b, e->u.index.base);
    for (int i = 0; i < e->u.index.nidx; i++) {
      Index *ix = &e->u.index.idx[i];
      buf_puts(b, ix->len ? " (:+ " : " ");
      dump_expr(b, ix->start);
      if (ix->len) {
        buf_puts(b, " ");
        dump_expr(b, ix->len);
        buf_puts(b, ")");
      }
    }
    buf_puts(b, ")");
    break;
  default: cr_assert_fail("parser made expression kind %d", e->kind);
  }
}

static void dump_type(Buf *b, TypeRef *t) {
  const char *elem = t->elem == T_NONE ? "?" : elem_names[t->elem];
  if (t->kind == TR_SCALAR) {
    buf_puts(b, elem);
    return;
  }
  buf_printf(b, "%s<%s>[", t->kind == TR_TILE ? "tile" : "tensor", elem);
  for (int i = 0; i < t->ndims; i++) {
    if (i)
      buf_puts(b, " ");
    dump_expr(b, t->dims[i]);
  }
  buf_puts(b, "]");
}

static void dump_attrs(Buf *b, Attr **as, int n) {
  for (int i = 0; i < n; i++) {
    buf_printf(b, "@%s", as[i]->name);
    if (as[i]->has_parens) {
      buf_puts(b, "(");
      dump_exprs(b, as[i]->args, as[i]->nargs);
      buf_puts(b, ")");
    }
    buf_puts(b, " ");
  }
}

static void dump_stmt(Buf *b, Stmt *s) {
  dump_attrs(b, s->attrs, s->nattrs);
  switch (s->kind) {
  case S_CONST:
    buf_printf(b, "(const %s ", s->u.decl.name);
    dump_expr(b, s->u.decl.init);
    buf_puts(b, ")");
    break;
  case S_VAR:
    buf_printf(b, "(var %s ", s->u.decl.name);
    if (s->u.decl.type)
      dump_type(b, s->u.decl.type);
    else
      buf_puts(b, "_");
    buf_puts(b, " ");
    if (s->u.decl.init)
      dump_expr(b, s->u.decl.init);
    else
      buf_puts(b, "_");
    buf_puts(b, ")");
    break;
  case S_ASSIGN:
    buf_printf(b, "(%s ", token_names[s->u.assign.op]);
    dump_expr(b, s->u.assign.lhs);
    buf_puts(b, " ");
    dump_expr(b, s->u.assign.rhs);
    buf_puts(b, ")");
    break;
  case S_FOR:
    buf_printf(b, "(for %s ", s->u.forr.var);
    dump_expr(b, s->u.forr.lo);
    buf_puts(b, " ");
    dump_expr(b, s->u.forr.hi);
    buf_puts(b, " ");
    if (s->u.forr.step)
      dump_expr(b, s->u.forr.step);
    else
      buf_puts(b, "_");
    buf_puts(b, " ");
    dump_block(b, &s->u.forr.body);
    buf_puts(b, ")");
    break;
  case S_IF:
    buf_puts(b, "(if ");
    dump_expr(b, s->u.iff.cond);
    buf_puts(b, " ");
    dump_block(b, &s->u.iff.then);
    if (s->u.iff.els) {
      buf_puts(b, " else ");
      dump_stmt(b, s->u.iff.els);
    }
    buf_puts(b, ")");
    break;
  case S_WHILE:
    buf_puts(b, "(while ");
    dump_expr(b, s->u.whil.cond);
    buf_puts(b, " ");
    dump_block(b, &s->u.whil.body);
    buf_puts(b, ")");
    break;
  case S_BREAK: buf_puts(b, "break"); break;
  case S_CONTINUE: buf_puts(b, "continue"); break;
  case S_BLOCK: dump_block(b, &s->u.block); break;
  case S_EXPR:
    buf_puts(b, "(expr ");
    dump_expr(b, s->u.expr);
    buf_puts(b, ")");
    break;
  }
}

static void dump_block(Buf *b, Block *bl) {
  buf_puts(b, "{");
  for (int i = 0; i < bl->nstmts; i++) {
    buf_puts(b, i ? " " : "");
    dump_stmt(b, bl->stmts[i]);
  }
  buf_puts(b, "}");
}

static void dump_kernel(Buf *b, Kernel *k) {
  dump_attrs(b, k->attrs, k->nattrs);
  buf_printf(b, "kernel %s(", k->name);
  for (int i = 0; i < k->nparams; i++) {
    buf_printf(b, "%s%s: ", i ? ", " : "", k->params[i].name);
    dump_type(b, k->params[i].type);
  }
  buf_puts(b, ") ");
  dump_block(b, &k->body);
}

/* The whole program, one declaration per line. */
static const char *dump(Program *p) {
  buf_free(&out);
  buf_puts(&out, "");
  for (int i = 0; i < p->nconsts; i++) {
    dump_stmt(&out, p->consts[i]);
    buf_puts(&out, "\n");
  }
  for (int i = 0; i < p->nkernels; i++) {
    dump_kernel(&out, p->kernels[i]);
    buf_puts(&out, "\n");
  }
  return out.data;
}

static Program *parse_body(const char *body) {
  free(wrapped);
  size_t n = strlen(body) + 32;
  wrapped = malloc(n);
  snprintf(wrapped, n, "kernel k() {\n%s\n}\n", body);
  return parse_src(wrapped);
}

/* The statements of a kernel body, with no errors expected. */
static const char *body(const char *src) {
  Program *p = parse_body(src);
  cr_assert_eq(diag.errors, 0, "%s", messages());
  cr_assert_eq(p->nkernels, 1);
  buf_free(&out);
  Block *b = &p->kernels[0]->body;
  for (int i = 0; i < b->nstmts; i++) {
    buf_puts(&out, i ? "\n" : "");
    dump_stmt(&out, b->stmts[i]);
  }
  return out.data ? out.data : "";
}

/* One expression, parsed as the right side of an assignment. */
static const char *expr_of(const char *src) {
  char buf[1024];
  snprintf(buf, sizeof buf, "_ = %s", src);
  body(buf);
  const char *s = out.data;
  cr_assert(strncmp(s, "(= _ ", 5) == 0, "%s", s);
  static char e[1024];
  snprintf(e, sizeof e, "%.*s", (int)strlen(s) - 6, s + 5);
  return e;
}

/* ---- declarations */

Test(parse, empty_file, .fini = teardown) {
  Program *p = parse_src("\n// nothing\n");
  cr_assert_eq(p->nkernels, 0);
  cr_assert_eq(p->nconsts, 0);
  cr_assert_eq(diag.errors, 0);
}

Test(parse, kernel_and_params, .fini = teardown) {
  Program *p = parse_src(
      "const BLOCK = 64\n"
      "kernel squares(X: tensor<f32>[16, K], O: tensor<bf16>[M,\n 64], n: i32,\n"
      "               alpha: f32, t: tile<f16>[BLOCK * 2, 4],) {\n"
      "}\n"
      "kernel empty() {}\n");
  cr_assert_eq(diag.errors, 0, "%s", messages());
  cr_assert_str_eq(dump(p),
                   "(const BLOCK 64)\n"
                   "kernel squares(X: tensor<f32>[16 K], O: tensor<bf16>[M 64], n: i32, "
                   "alpha: f32, t: tile<f16>[(* BLOCK 2) 4]) {}\n"
                   "kernel empty() {}\n");
  Kernel *k = p->kernels[0];
  cr_assert_eq(k->loc.line, 2);
  cr_assert_eq(k->loc.col, 1);
  cr_assert_eq(k->name_loc.col, 8);
  cr_assert_eq(k->nparams, 5);
  cr_assert_eq(k->params[0].type->kind, TR_TENSOR);
  cr_assert_eq(k->params[0].type->dims[0]->kind, E_INT);
  cr_assert_eq(k->params[0].type->dims[1]->kind, E_IDENT);
  cr_assert_eq(k->params[0].loc.col, 16);
  cr_assert_eq(k->params[2].type->kind, TR_SCALAR);
  cr_assert_eq(k->params[2].type->elem, T_I32);
  cr_assert_eq(k->params[4].type->kind, TR_TILE);
  cr_assert_eq(k->params[4].type->elem, T_F16);
  cr_assert_eq(k->body.rbrace.line, 5);
  cr_assert_eq(p->consts[0]->u.decl.name_loc.col, 7);
}

Test(parse, kernel_attributes, .fini = teardown) {
  Program *p = parse_src("@launch(256, 2)\n@registers(acc, b)\n@grid(cdiv(N, 128))\n"
                         "@assume(K % 64 == 0) @bogus @unroll()\n"
                         "kernel k() {}\n");
  cr_assert_eq(diag.errors, 0, "%s", messages());
  cr_assert_str_eq(dump(p), "@launch( 256 2) @registers( acc b) @grid( (call cdiv N 128)) "
                            "@assume( (== (% K 64) 0)) @bogus @unroll() kernel k() {}\n");
  Kernel *k = p->kernels[0];
  cr_assert_eq(k->nattrs, 6);
  cr_assert_eq(k->attrs[0]->kind, A_LAUNCH);
  cr_assert_eq(k->attrs[1]->kind, A_REGISTERS);
  cr_assert_eq(k->attrs[2]->kind, A_GRID);
  cr_assert_eq(k->attrs[3]->kind, A_ASSUME);
  cr_assert_eq(k->attrs[4]->kind, A_UNKNOWN);
  cr_assert_not(k->attrs[4]->has_parens);
  cr_assert_eq(k->attrs[5]->kind, A_UNROLL);
  cr_assert(k->attrs[5]->has_parens);
  cr_assert_eq(k->attrs[5]->nargs, 0);
  cr_assert_eq(k->attrs[3]->loc.line, 4);
  cr_assert_eq(k->attrs[3]->loc.col, 1);
  cr_assert_eq(k->attrs[4]->loc.col, 22);
}

Test(parse, attributes_on_a_file_const, .fini = teardown) {
  Program *p = parse_src("@unroll const N = 4\nkernel k() {}\n");
  cr_assert_eq(diag.errors, 1);
  cr_assert_str_eq(messages(), "t.tl:1:1: error: attributes must precede a kernel or a for\n"
                               "@unroll const N = 4\n^\n");
  cr_assert_eq(p->nconsts, 1);
  cr_assert_eq(p->nkernels, 1);
}

/* ---- statements */

Test(parse, const_and_var, .fini = teardown) {
  cr_assert_str_eq(body("const N = 64\n"
                        "var a: tile<f32>[16, 64] = 0.0\n"
                        "var b = X[0 :+ 16, kt :+ 64]\n"
                        "var c: tile<bf16>[N]\n"
                        "var d: i32 = 3"),
                   "(const N 64)\n"
                   "(var a tile<f32>[16 64] 0.0)\n"
                   "(var b _ (idx X (:+ 0 16) (:+ kt 64)))\n"
                   "(var c tile<bf16>[N] _)\n"
                   "(var d i32 3)");
}

Test(parse, var_needs_type_or_value, .fini = teardown) {
  parse_body("var x");
  cr_assert_eq(diag.errors, 1);
  cr_assert(strstr(messages(), "t.tl:2:5: error: 'var x' needs a type or an initial value"),
            "%s", messages());
}

Test(parse, assignments, .fini = teardown) {
  cr_assert_str_eq(body("a = 1\nb += 2\nc -= 3\nd *= 4\ne /= 5\nO[0 :+ 16, j] = acc\nt[i, j] = x"),
                   "(= a 1)\n(+= b 2)\n(-= c 3)\n(*= d 4)\n(/= e 5)\n"
                   "(= (idx O (:+ 0 16) j) acc)\n(= (idx t i j) x)");
}

Test(parse, expression_statement, .fini = teardown) {
  cr_assert_str_eq(body("f(x)\na + b"), "(expr (call f x))\n(expr (+ a b))");
}

Test(parse, for_loops, .fini = teardown) {
  cr_assert_str_eq(body("for i in range(0, N) { a = i }\n"
                        "for kt in range(0, K, 64) {\n  x += 1\n  break\n  continue\n}"),
                   "(for i 0 N _ {(= a i)})\n"
                   "(for kt 0 K 64 {(+= x 1) break continue})");
}

Test(parse, for_attributes, .fini = teardown) {
  Program *p = parse_body("@pipeline(2)\n@unroll\nfor i in range(0, 4) {}\n@unroll(4) for j in range(0, 8) {}");
  cr_assert_eq(diag.errors, 0, "%s", messages());
  Block *b = &p->kernels[0]->body;
  cr_assert_eq(b->nstmts, 2);
  Stmt *s = b->stmts[0];
  cr_assert_eq(s->kind, S_FOR);
  cr_assert_eq(s->nattrs, 2);
  cr_assert_eq(s->attrs[0]->kind, A_PIPELINE);
  cr_assert_eq(s->attrs[0]->nargs, 1);
  cr_assert_eq(s->attrs[1]->kind, A_UNROLL);
  cr_assert_eq(s->loc.line, 4); /* the `for`, not the first attribute */
  cr_assert_eq(b->stmts[1]->nattrs, 1);
  cr_assert_eq(b->stmts[1]->attrs[0]->args[0]->u.ival, 4);
}

Test(parse, attributes_on_any_statement_are_kept, .fini = teardown) {
  cr_assert_str_eq(body("@unroll x = 1\n@foo(1)\nvar y = 2"), "@unroll (= x 1)\n@foo( 1) (var y _ 2)");
}

Test(parse, attributes_need_a_statement, .fini = teardown) {
  parse_body("x = 1\n@unroll");
  cr_assert_eq(diag.errors, 1);
  cr_assert(strstr(messages(), "error: expected a statement after attributes"), "%s", messages());
}

Test(parse, if_else_chains, .fini = teardown) {
  cr_assert_str_eq(body("if a { x = 1 }\n"
                        "if a { x = 1 } else { x = 2 }\n"
                        "if a { } else if b { } else if c { } else { y = 3 }\n"
                        "if a {\n}\nelse {\n}\n"
                        "if ctx.thread == 0 { O[0] = x }"),
                   "(if a {(= x 1)})\n"
                   "(if a {(= x 1)} else {(= x 2)})\n"
                   "(if a {} else (if b {} else (if c {} else {(= y 3)})))\n"
                   "(if a {} else {})\n"
                   "(if (== (. ctx thread) 0) {(= (idx O 0) x)})");
}

Test(parse, while_and_blocks, .fini = teardown) {
  cr_assert_str_eq(body("while x < 10 { x += 1; y = 2; }\n{ z = 1 }\n{}"),
                   "(while (< x 10) {(+= x 1) (= y 2)})\n{(= z 1)}\n{}");
}

Test(parse, semicolons_and_blank_lines, .fini = teardown) {
  cr_assert_str_eq(body(";;\n\na = 1;; b = 2\n\n\n;c = 3;"), "(= a 1)\n(= b 2)\n(= c 3)");
}

Test(parse, statement_locations, .fini = teardown) {
  Program *p = parse_body("  x = f(a,\n        b)\nfor i in range(0,\n  N) {\n}\nif c ||\n  d {\n}\nbreak");
  cr_assert_eq(diag.errors, 0, "%s", messages());
  Block *b = &p->kernels[0]->body;
  cr_assert_eq(b->nstmts, 4);
  cr_assert_eq(b->stmts[0]->loc.line, 2);
  cr_assert_eq(b->stmts[0]->loc.col, 3);
  cr_assert_eq(b->stmts[0]->line_end, 3);
  cr_assert_eq(b->stmts[1]->loc.line, 4);
  cr_assert_eq(b->stmts[1]->line_end, 5);
  cr_assert_eq(b->stmts[1]->u.forr.var_loc.col, 5);
  cr_assert_eq(b->stmts[1]->u.forr.body.rbrace.line, 6);
  cr_assert_eq(b->stmts[2]->loc.line, 7);
  cr_assert_eq(b->stmts[2]->line_end, 8);
  cr_assert_eq(b->stmts[3]->kind, S_BREAK);
  cr_assert_eq(b->stmts[3]->line_end, 10);
}

/* ---- expressions */

Test(parse, primaries, .fini = teardown) {
  cr_assert_str_eq(expr_of("42"), "42");
  cr_assert_str_eq(expr_of("0x1_0"), "16");
  cr_assert_str_eq(expr_of("2.5e+4"), "2.5e+4");
  cr_assert_str_eq(expr_of("1_000.25"), "1000.25");
  cr_assert_str_eq(expr_of("true"), "true");
  cr_assert_str_eq(expr_of("false"), "false");
  cr_assert_str_eq(expr_of("inf"), "inf");
  cr_assert_str_eq(expr_of("((x))"), "x");
}

Test(parse, literal_values, .fini = teardown) {
  Program *p = parse_body("x = 1.5e3\ny = true");
  Expr *f = p->kernels[0]->body.stmts[0]->u.assign.rhs;
  cr_assert_eq(f->kind, E_FLOAT);
  cr_assert_float_eq(f->u.fval, 1500.0, 1e-9);
  Expr *t = p->kernels[0]->body.stmts[1]->u.assign.rhs;
  cr_assert_eq(t->kind, E_BOOL);
  cr_assert_eq(t->u.ival, 1);
}

Test(parse, precedence_levels, .fini = teardown) {
  cr_assert_str_eq(expr_of("a || b && c"), "(|| a (&& b c))");
  cr_assert_str_eq(expr_of("a && b == c"), "(&& a (== b c))");
  cr_assert_str_eq(expr_of("a != b < c"), "(!= a (< b c))");
  cr_assert_str_eq(expr_of("a <= b | c"), "(<= a (| b c))");
  cr_assert_str_eq(expr_of("a | b ^ c"), "(| a (^ b c))");
  cr_assert_str_eq(expr_of("a ^ b & c"), "(^ a (& b c))");
  cr_assert_str_eq(expr_of("a & b << c"), "(& a (<< b c))");
  cr_assert_str_eq(expr_of("a >> b + c"), "(>> a (+ b c))");
  cr_assert_str_eq(expr_of("a - b * c"), "(- a (* b c))");
  cr_assert_str_eq(expr_of("a % -b"), "(% a (- b))");
  cr_assert_str_eq(expr_of("-a * b"), "(* (- a) b)");
  cr_assert_str_eq(expr_of("!a.b"), "(! (. a b))");
  cr_assert_str_eq(expr_of("~-!x"), "(~ (- (! x)))");
  cr_assert_str_eq(expr_of("a * b + c > d && e || f"), "(|| (&& (> (+ (* a b) c) d) e) f)");
}

Test(parse, left_associative, .fini = teardown) {
  cr_assert_str_eq(expr_of("a - b - c"), "(- (- a b) c)");
  cr_assert_str_eq(expr_of("a / b * c % d"), "(% (* (/ a b) c) d)");
  cr_assert_str_eq(expr_of("a || b || c"), "(|| (|| a b) c)");
  cr_assert_str_eq(expr_of("a < b < c"), "(< (< a b) c)");
  cr_assert_str_eq(expr_of("a - (b - c)"), "(- a (- b c))");
}

Test(parse, postfix, .fini = teardown) {
  cr_assert_str_eq(expr_of("f()"), "(call f)");
  cr_assert_str_eq(expr_of("where(a > 0, a, -inf)"), "(call where (> a 0) a (- inf))");
  cr_assert_str_eq(expr_of("f16(x)"), "(call f16 x)");
  cr_assert_str_eq(expr_of("f(a,\n b,\n)"), "(call f a b)");
  cr_assert_str_eq(expr_of("ctx.block.x"), "(. (. ctx block) x)");
  cr_assert_str_eq(expr_of("X[i]"), "(idx X i)");
  cr_assert_str_eq(expr_of("X[e, a :+ m, b + 1 :+ 2 * n]"), "(idx X e (:+ a m) (:+ (+ b 1) (* 2 n)))");
  cr_assert_str_eq(expr_of("pad(X[0 :+ 4], -inf)[1].y"), "(. (idx (call pad (idx X (:+ 0 4)) (- inf)) 1) y)");
  cr_assert_str_eq(expr_of("t[i][j]"), "(idx (idx t i) j)");
  cr_assert_str_eq(expr_of("-x[0]"), "(- (idx x 0))");
}

Test(parse, expression_locations, .fini = teardown) {
  Program *p = parse_body("_ = a + f(b)[c].d");
  Expr *e = p->kernels[0]->body.stmts[0]->u.assign.rhs;
  cr_assert_eq(e->kind, E_BINARY);
  cr_assert_eq(e->loc.col, 7); /* the operator */
  Expr *m = e->u.binary.b;
  cr_assert_eq(m->kind, E_MEMBER);
  cr_assert_eq(m->loc.col, 9); /* where the expression starts */
  cr_assert_eq(m->u.member.name_loc.col, 17);
  Expr *ix = m->u.member.base;
  cr_assert_eq(ix->kind, E_INDEX);
  cr_assert_eq(ix->loc.col, 9);
  Expr *call = ix->u.index.base;
  cr_assert_eq(call->kind, E_CALL);
  cr_assert_eq(call->u.call.name_loc.col, 9);
}

/* ---- errors */

Test(parse, only_names_can_be_called, .fini = teardown) {
  /* (f)(2) is a call of f: parentheses leave no trace in the AST */
  parse_body("x = a.b(1)\ny = (f)(2)\nz = t[0](1)");
  cr_assert_eq(diag.errors, 2, "%s", messages());
  cr_assert(strstr(messages(), "t.tl:2:8: error: only a name can be called\nx = a.b(1)\n       ^\n"),
            "%s", messages());
}

Test(parse, unknown_element_type, .fini = teardown) {
  Program *p = parse_src("kernel k(X: tensor<f33>[4], y: float) {\n  var t: tile<half>[4]\n}\n");
  cr_assert_eq(diag.errors, 3, "%s", messages());
  const char *m = messages();
  cr_assert(strstr(m, "t.tl:1:20: error: unknown element type 'f33'\n"
                      "kernel k(X: tensor<f33>[4], y: float) {\n"
                      "                   ^\n"
                      "note: the element types are f32, f16, bf16, f64, i8, u8, i32, u32, i64, bool, f8e4m3, f8e5m2\n"),
            "%s", m);
  cr_assert(strstr(m, "t.tl:1:32: error: unknown element type 'float'"), "%s", m);
  cr_assert(strstr(m, "t.tl:2:15: error: unknown element type 'half'"), "%s", m);
  cr_assert_eq(p->nkernels, 1); /* not a syntax error: parsing goes on */
  cr_assert_eq(p->kernels[0]->params[0].type->elem, T_NONE);
}

Test(parse, bad_types, .fini = teardown) {
  parse_src("kernel a(X: tensor<f32>[N 1]) {}\n"
            "kernel b(X: tile[4]) {}\n"
            "kernel c(X: tile<f32>) {}\n"
            "kernel d(X) {}\n"
            "kernel e(X: 4) {}\n"
            "kernel f(X: tensor<f32[4]) {}\n");
  const char *m = messages();
  cr_assert_eq(diag.errors, 6, "%s", m);
  cr_assert(strstr(m, "t.tl:1:27: error: expected ']' after dimensions"), "%s", m);
  cr_assert(strstr(m, "t.tl:2:17: error: expected '<' after 'tile'"), "%s", m);
  cr_assert(strstr(m, "t.tl:3:22: error: expected '[' after 'tile<T>'"), "%s", m);
  cr_assert(strstr(m, "t.tl:4:11: error: expected ':' and a type after the parameter name"), "%s", m);
  cr_assert(strstr(m, "t.tl:5:13: error: expected a type"), "%s", m);
  cr_assert(strstr(m, "t.tl:6:23: error: expected '>' after the element type"), "%s", m);
}

Test(parse, bad_tensor_dim, .fini = teardown) {
  parse_src("kernel a(X: tensor<f32>[(4)]) {}\n");
  cr_assert(strstr(messages(), "t.tl:1:25: error: a tensor dimension must be an integer literal or a size name"),
            "%s", messages());
}

/* A dim that starts as a literal or a name is parsed whole, for the checker to say
 * what to write instead of the expression (golden errors/tensor-dim-expr). */
Test(parse, tensor_dim_expression_parses_whole, .fini = teardown) {
  Program *p = parse_src("kernel a(X: tensor<f32>[4, 3 * H]) {}\n");
  cr_assert_eq(diag.errors, 0, "%s", messages());
  Kernel *k = p->kernels[0];
  cr_assert_eq(k->params[0].type->dims[1]->kind, E_BINARY);
}

Test(parse, every_error_is_reported, .fini = teardown) {
  Program *p = parse_src("kernel k(n: i32) {\n"
                         "  b = 3 4\n"
                         "  c = f(1, 2 3)\n"
                         "  if x { y = }\n"
                         "  z = )\n"
                         "  for i in range(0 10) { }\n"
                         "  while { }\n"
                         "  if a {} else b\n"
                         "  ok = 1\n"
                         "}\n"
                         "x = 2\n"
                         "kernel 5 { x = 1 }\n"
                         "kernel fine(a: f32) { a2 = a }\n");
  const char *m = messages();
  cr_assert_str_eq(m,
                   "t.tl:2:9: error: expected newline or ';' after statement\n"
                   "  b = 3 4\n"
                   "        ^\n"
                   "t.tl:3:14: error: expected ')' after arguments\n"
                   "  c = f(1, 2 3)\n"
                   "             ^\n"
                   "t.tl:4:14: error: expected expression\n"
                   "  if x { y = }\n"
                   "             ^\n"
                   "t.tl:5:7: error: expected expression\n"
                   "  z = )\n"
                   "      ^\n"
                   "t.tl:6:20: error: expected ',' after the start of the range\n"
                   "  for i in range(0 10) { }\n"
                   "                   ^\n"
                   "t.tl:7:9: error: expected expression\n"
                   "  while { }\n"
                   "        ^\n"
                   "t.tl:8:16: error: expected '{' or 'if' after 'else'\n"
                   "  if a {} else b\n"
                   "               ^\n"
                   "t.tl:11:1: error: expected 'kernel' or 'const'\n"
                   "x = 2\n"
                   "^\n"
                   "t.tl:12:8: error: expected a name after 'kernel'\n"
                   "kernel 5 { x = 1 }\n"
                   "       ^\n");
  cr_assert_eq(diag.errors, 9);
  cr_assert_eq(p->nkernels, 2);
  /* the statements that parsed are kept */
  cr_assert_str_eq(dump(p), "kernel k(n: i32) {(if x {}) (= ok 1)}\n"
                            "kernel fine(a: f32) {(= a2 a)}\n");
}

Test(parse, unclosed_block, .fini = teardown) {
  Program *p = parse_src("kernel k() {\n  if x {\n    y = 1\n");
  cr_assert_eq(diag.errors, 1);
  cr_assert_str_eq(messages(), "t.tl:3:10: error: expected '}'\n    y = 1\n         ^\n"
                               "t.tl:2:8: note: to match this '{'\n  if x {\n       ^\n");
  cr_assert_eq(p->nkernels, 0);
}

Test(parse, missing_close_paren_at_end, .fini = teardown) {
  parse_src("kernel k() {\n  x = f(1,\n}\nkernel j() {}\n");
  cr_assert_geq(diag.errors, 1);
  cr_assert(strstr(messages(), "t.tl:3:1: error: expected expression"), "%s", messages());
}

Test(parse, errors_are_capped, .fini = teardown) {
  Buf src = {0};
  buf_puts(&src, "kernel k() {\n");
  for (int i = 0; i < 300; i++)
    buf_puts(&src, "x = )\n");
  buf_puts(&src, "}\n");
  parse_src(src.data);
  cr_assert_eq(diag.errors, 300);
  cr_assert(diag.capped);
  cr_assert(strstr(messages(), "t.tl: error: too many errors, stopping\n"));
  buf_free(&src);
}

/* ---- hostile input */

static void parse_repeated(const char *head, const char *unit, int n, const char *tail) {
  Buf src = {0};
  buf_puts(&src, head);
  for (int i = 0; i < n; i++)
    buf_puts(&src, unit);
  buf_puts(&src, tail);
  parse_src(src.data);
  buf_free(&src);
}

Test(parse, deep_parens, .fini = teardown) {
  parse_repeated("kernel k() {\nx = ", "(", 100000, "\n}\n");
  cr_assert_eq(diag.errors, 1, "%s", messages()); /* recovery stops at the '}' */
  cr_assert(strstr(messages(), "error: nesting is too deep (limit 64)"));
}

Test(parse, deep_blocks, .fini = teardown) {
  parse_repeated("kernel k() {\n", "{", 100000, "\n");
  cr_assert(strstr(messages(), "error: nesting is too deep (limit 64)"));
  cr_assert_leq(diag.errors, 3, "%s", messages());
}

Test(parse, deep_but_closed, .fini = teardown) {
  parse_repeated("kernel k() {\n", "{", 1000, "");
  parse_repeated("kernel k() {\n", "{", 1000, "");
  Buf src = {0};
  buf_puts(&src, "kernel k() {\n");
  for (int i = 0; i < 1000; i++)
    buf_puts(&src, "if x {\n");
  for (int i = 0; i < 1000; i++)
    buf_puts(&src, "}\n");
  buf_puts(&src, "}\nkernel after() {}\n");
  Program *p = parse_src(src.data);
  buf_free(&src);
  cr_assert_eq(diag.errors, 1, "%s", messages());
  cr_assert_eq(p->nkernels, 2);
  cr_assert_str_eq(p->kernels[1]->name, "after");
}

Test(parse, deep_unary_and_calls, .fini = teardown) {
  parse_repeated("kernel k() {\nx = ", "-", 100000, "y\n}\n");
  cr_assert_eq(diag.errors, 1, "%s", messages());
  parse_repeated("kernel k() {\nx = ", "f(", 100000, "\n}\nkernel j() {}\n");
  cr_assert_eq(diag.errors, 1, "%s", messages());
}

Test(parse, nesting_within_limit, .fini = teardown) {
  Buf src = {0};
  buf_puts(&src, "x = ");
  for (int i = 0; i < 50; i++)
    buf_puts(&src, "(");
  buf_puts(&src, "1");
  for (int i = 0; i < 50; i++)
    buf_puts(&src, ")");
  cr_assert_str_eq(body(src.data), "(= x 1)");
  buf_free(&src);
}

Test(parse, long_else_if_chain, .fini = teardown) {
  parse_repeated("kernel k() {\nif a { }", " else if b { x = 1 }", MAX_STMTS / 2 - 1, " else { }\n}\n");
  cr_assert_eq(diag.errors, 0, "%s", messages());
}

Test(parse, garbage_never_crashes, .fini = teardown) {
  static const char *frags[] = {"kernel", "k", "(", ")", "[", "]", "{", "}", "\n", ";", ":", ":+",
                                "@", "unroll", "x", "1", "2.5", "for", "in", "range", "if",
                                "else", "while", "var", "const", "=", "+=", "-", "<", ">", "tile",
                                "tensor", "f32", ",", ".", "break", " ", "$", "/*", "*/"};
  srand(11);
  for (int iter = 0; iter < 3000; iter++) {
    Buf src = {0};
    buf_puts(&src, "");
    int n = rand() % 120;
    for (int i = 0; i < n; i++)
      buf_puts(&src, frags[rand() % (int)(sizeof frags / sizeof *frags)]);
    FILE *null = fopen("/dev/null", "w");
    Arena a = {0};
    Diag d;
    diag_init(&d, "g.tl", src.data, null);
    int nt;
    Token *t = lex(&a, &d, src.data, &nt);
    Program *p = parse(&a, &d, t, nt);
    cr_assert_not_null(p);
    for (int i = 0; i < p->nkernels; i++)
      cr_assert_not_null(p->kernels[i]->name);
    fclose(null);
    arena_free(&a);
    buf_free(&src);
  }
}
