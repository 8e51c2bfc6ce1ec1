/* test_lex.c: the lexer, plus the support code it stands on (arena, tables,
 * diagnostics). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "t2c.h"

static Arena arena;
static Diag diag;
static char *msgs;
static size_t msgs_len;
static FILE *msgf;
static Buf shown;

static void teardown(void) {
  if (msgf)
    fclose(msgf);
  free(msgs);
  arena_free(&arena);
  buf_free(&shown);
}

static void start_diag(const char *src) {
  if (msgf) {
    fclose(msgf);
    free(msgs);
    msgs = NULL;
  }
  msgf = open_memstream(&msgs, &msgs_len);
  diag_init(&diag, "t.tl", src, msgf);
}

/* Diagnostics printed so far. */
static const char *messages(void) {
  fflush(msgf);
  return msgs ? msgs : "";
}

static Token *lex_src(const char *src, int *n) {
  start_diag(src);
  Token *t = lex(&arena, &diag, src, n);
  fflush(msgf);
  return t;
}

/* The tokens of src as text: each token's spelling, ";" for a statement end,
 * "$" for the end of the file, separated by spaces. */
static const char *show(const char *src) {
  int n;
  Token *t = lex_src(src, &n);
  buf_free(&shown);
  for (int i = 0; i < n; i++) {
    if (i)
      buf_puts(&shown, " ");
    if (t[i].kind == TK_NEWLINE)
      buf_puts(&shown, ";");
    else if (t[i].kind == TK_EOF)
      buf_puts(&shown, "$");
    else
      buf_putn(&shown, t[i].start, (size_t)t[i].len);
  }
  return shown.data;
}

/* ---- tokens */

Test(lex, identifiers_and_keywords, .fini = teardown) {
  int n;
  Token *t = lex_src("kernel const var for in range if else while break continue true false "
                     "foo _bar b2 tile f32 ctx", &n);
  TokenKind want[] = {TK_KERNEL, TK_CONST, TK_VAR, TK_FOR, TK_IN, TK_RANGE, TK_IF, TK_ELSE,
                      TK_WHILE, TK_BREAK, TK_CONTINUE, TK_TRUE, TK_FALSE, TK_IDENT, TK_IDENT,
                      TK_IDENT, TK_IDENT, TK_IDENT, TK_IDENT, TK_NEWLINE, TK_EOF};
  cr_assert_eq(n, (int)(sizeof want / sizeof *want));
  for (int i = 0; i < n; i++)
    cr_assert_eq(t[i].kind, want[i], "token %d: %s", i, token_names[t[i].kind]);
  cr_assert_eq(t[14].len, 4);
  cr_assert(memcmp(t[14].start, "_bar", 4) == 0);
  cr_assert_eq(diag.errors, 0);
}

Test(lex, every_operator, .fini = teardown) {
  int n;
  Token *t = lex_src("( ) [ ] { } , : ; . @ :+ = += -= *= /= || && == != < <= > >= | ^ & << >> "
                     "+ - * / % ! ~", &n);
  TokenKind want[] = {TK_LPAREN, TK_RPAREN, TK_LBRACK, TK_RBRACK, TK_LBRACE, TK_RBRACE,
                      TK_COMMA, TK_COLON, TK_NEWLINE, TK_DOT, TK_AT, TK_SLICE, TK_ASSIGN,
                      TK_ADD_ASSIGN, TK_SUB_ASSIGN, TK_MUL_ASSIGN, TK_DIV_ASSIGN, TK_OROR,
                      TK_ANDAND, TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_OR, TK_XOR,
                      TK_AND, TK_SHL, TK_SHR, TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH,
                      TK_PERCENT, TK_NOT, TK_TILDE, TK_EOF};
  cr_assert_eq(n, (int)(sizeof want / sizeof *want));
  for (int i = 0; i < n; i++)
    cr_assert_eq(t[i].kind, want[i], "token %d: %s", i, token_names[t[i].kind]);
  cr_assert_eq(diag.errors, 0);
}

Test(lex, longest_match, .fini = teardown) {
  cr_assert_str_eq(show("a:+b"), "a :+ b ; $");
  cr_assert_str_eq(show("a: +b"), "a : + b ; $");
  cr_assert_str_eq(show("a<<=b"), "a << = b ; $");
  cr_assert_str_eq(show("a<=b>=c==d!=e"), "a <= b >= c == d != e ; $");
  cr_assert_str_eq(show("x+=-1"), "x += - 1 ; $");
  cr_assert_str_eq(show("a&&&b"), "a && & b ; $");
  cr_assert_str_eq(show("tile<f32>[4]"), "tile < f32 > [ 4 ] ; $");
}

Test(lex, locations, .fini = teardown) {
  int n;
  Token *t = lex_src("a\n  bb = 1\n\tc", &n);
  cr_assert_eq(t[0].loc.line, 1);
  cr_assert_eq(t[0].loc.col, 1);
  cr_assert_eq(t[1].kind, TK_NEWLINE);
  cr_assert_eq(t[1].loc.line, 1);
  cr_assert_eq(t[1].loc.col, 2);
  cr_assert_eq(t[2].loc.line, 2);
  cr_assert_eq(t[2].loc.col, 3);
  cr_assert_eq(t[3].loc.col, 6);
  cr_assert_eq(t[4].loc.col, 8);
  cr_assert_eq(t[6].loc.line, 3);
  cr_assert_eq(t[6].loc.col, 2); /* a tab is one column */
}

/* ---- statement ends */

Test(lex, newline_after_enders_only, .fini = teardown) {
  cr_assert_str_eq(show("a\nb"), "a ; b ; $");
  cr_assert_str_eq(show("1\n2.5\n"), "1 ; 2.5 ; $");
  cr_assert_str_eq(show("f()\nx[0]\n}\n"), "f ( ) ; x [ 0 ] ; } ; $");
  cr_assert_str_eq(show("break\ncontinue\ntrue\nfalse\n"), "break ; continue ; true ; false ; $");
  cr_assert_str_eq(show("a +\nb"), "a + b ; $");
  cr_assert_str_eq(show("x =\n1"), "x = 1 ; $");
  cr_assert_str_eq(show("if x {\ny\n}"), "if x { y ; } ; $");
  cr_assert_str_eq(show("kernel\nvar\nconst\n"), "kernel var const $");
}

Test(lex, no_newline_inside_parens_or_brackets, .fini = teardown) {
  cr_assert_str_eq(show("f(a,\nb\n)\n"), "f ( a , b ) ; $");
  cr_assert_str_eq(show("X[0 :+ 16,\n k]\n"), "X [ 0 :+ 16 , k ] ; $");
}

Test(lex, braces_do_not_hide_newlines, .fini = teardown) {
  cr_assert_str_eq(show("f(g{\nx\n})"), "f ( g { x } ) ; $");
  cr_assert_str_eq(show("{\nx\n}"), "{ x ; } ; $");
}

Test(lex, blank_lines_give_one_newline, .fini = teardown) {
  cr_assert_str_eq(show("a\n\n\n\nb\n\n"), "a ; b ; $");
}

Test(lex, semicolon_always_ends, .fini = teardown) {
  int n;
  Token *t = lex_src("a = 1; b;;", &n);
  cr_assert_str_eq(show("a = 1; b;;"), "a = 1 ; b ; ; $");
  t = lex_src("x ;", &n);
  cr_assert_eq(t[1].kind, TK_NEWLINE);
  cr_assert_eq(t[1].loc.col, 3);
  cr_assert_eq(*t[1].start, ';');
  cr_assert_str_eq(show("f(a; b)"), "f ( a ; b ) ; $");
}

Test(lex, end_of_file_ends_a_statement, .fini = teardown) {
  cr_assert_str_eq(show("x = y"), "x = y ; $");
  cr_assert_str_eq(show("x = "), "x = $");
  cr_assert_str_eq(show("f(x"), "f ( x $");
  cr_assert_str_eq(show(""), "$");
}

Test(lex, eof_location_is_on_the_last_line, .fini = teardown) {
  int n;
  Token *t = lex_src("a\nbc {\n", &n);
  cr_assert_eq(t[n - 1].kind, TK_EOF);
  cr_assert_eq(t[n - 1].loc.line, 2);
  cr_assert_eq(t[n - 1].loc.col, 5);
}

/* ---- literals */

Test(lex, integers, .fini = teardown) {
  int n;
  Token *t = lex_src("0 42 1_000 0xff 0XFF_FF 0x7fffffffffffffff 9223372036854775807 007", &n);
  int64_t want[] = {0, 42, 1000, 255, 0xffff, INT64_MAX, INT64_MAX, 7};
  for (int i = 0; i < 8; i++) {
    cr_assert_eq(t[i].kind, TK_INT, "token %d", i);
    cr_assert_eq(t[i].ival, want[i], "token %d: %lld", i, (long long)t[i].ival);
  }
  cr_assert_eq(t[2].len, 5);
  cr_assert_eq(diag.errors, 0);
}

Test(lex, integer_too_large, .fini = teardown) {
  int n;
  Token *t = lex_src("x = 9223372036854775808", &n);
  cr_assert_eq(t[2].kind, TK_INT);
  cr_assert_eq(diag.errors, 1);
  cr_assert(strstr(messages(), "t.tl:1:5: error: integer literal is too large"));
  lex_src("0x10000000000000000 99999999999999999999999", &n);
  cr_assert_eq(diag.errors, 2);
}

Test(lex, floats, .fini = teardown) {
  int n;
  Token *t = lex_src("0.0 1e-3 2.5e+4 1E5 3.25 1_000.5 6.02e23", &n);
  double want[] = {0.0, 1e-3, 2.5e4, 1e5, 3.25, 1000.5, 6.02e23};
  for (int i = 0; i < 7; i++) {
    cr_assert_eq(t[i].kind, TK_FLOAT, "token %d", i);
    cr_assert_float_eq(t[i].fval, want[i], 1e-9 * (want[i] + 1), "token %d", i);
  }
  cr_assert_eq(t[5].len, 7);
  cr_assert_eq(diag.errors, 0);
}

Test(lex, dot_needs_digits_on_both_sides, .fini = teardown) {
  cr_assert_str_eq(show("ctx.block.x"), "ctx . block . x ; $");
  cr_assert_str_eq(show("t.5"), "t . 5 ; $");
  cr_assert_str_eq(show("1.x"), "1 . x ; $");
  cr_assert_eq(diag.errors, 0);
}

Test(lex, bad_numbers, .fini = teardown) {
  int n;
  lex_src("a = 12abc\nb = 1.5f\nc = 0x\nd = 1__0\ne = 1e999\nf = 3_", &n);
  cr_assert_eq(diag.errors, 6, "%s", messages());
  const char *m = messages();
  cr_assert(strstr(m, "t.tl:1:7: error: invalid suffix 'abc' on integer literal"), "%s", m);
  cr_assert(strstr(m, "t.tl:2:8: error: invalid suffix 'f' on float literal"), "%s", m);
  cr_assert(strstr(m, "t.tl:3:5: error: hex literal '0x' has no digits"), "%s", m);
  cr_assert(strstr(m, "t.tl:4:5: error: '_' in a number must separate digits"), "%s", m);
  cr_assert(strstr(m, "t.tl:5:5: error: float literal is too large"), "%s", m);
  cr_assert(strstr(m, "t.tl:6:5: error: '_' in a number must separate digits"), "%s", m);
}

/* ---- comments */

Test(lex, line_comments, .fini = teardown) {
  cr_assert_str_eq(show("a // comment ( [\nb // end"), "a ; b ; $");
  cr_assert_str_eq(show("// only\n"), "$");
}

Test(lex, block_comments, .fini = teardown) {
  cr_assert_str_eq(show("a /* x */ + b"), "a + b ; $");
  cr_assert_str_eq(show("a /* spans\nlines */ b"), "a ; b ; $");
  cr_assert_str_eq(show("a + /* spans\nlines */ b"), "a + b ; $");
  cr_assert_str_eq(show("/**/x/***/"), "x ; $");
  int n;
  Token *t = lex_src("/* 1\n2\n3 */ y", &n);
  cr_assert_eq(t[0].loc.line, 3);
  cr_assert_eq(t[0].loc.col, 6);
}

Test(lex, unterminated_block_comment, .fini = teardown) {
  int n;
  Token *t = lex_src("a\n  /* never\nends", &n);
  cr_assert_eq(diag.errors, 1);
  cr_assert_str_eq(messages(), "t.tl:2:3: error: unterminated comment\n  /* never\n  ^\n");
  cr_assert_eq(t[n - 1].kind, TK_EOF);
}

/* ---- errors and hostile input */

Test(lex, unexpected_characters, .fini = teardown) {
  cr_assert_str_eq(show("a $ b # c"), "a b c ; $");
  cr_assert_eq(diag.errors, 2);
  const char *m = messages();
  cr_assert(strstr(m, "t.tl:1:3: error: unexpected character '$'\na $ b # c\n  ^\n"), "%s", m);
  cr_assert(strstr(m, "t.tl:1:7: error: unexpected character '#'"), "%s", m);
}

Test(lex, unexpected_non_ascii, .fini = teardown) {
  cr_assert_str_eq(show("a \xc3\xa9 \x01 \xff b"), "a b ; $");
  cr_assert_eq(diag.errors, 3);
  const char *m = messages();
  cr_assert(strstr(m, "unexpected character '\xc3\xa9'"), "%s", m);
  cr_assert(strstr(m, "unexpected character '\\x01'"), "%s", m);
  cr_assert(strstr(m, "unexpected character '\\xff'"), "%s", m);
}

Test(lex, random_bytes_never_crash, .fini = teardown) {
  srand(7);
  for (int iter = 0; iter < 300; iter++) {
    int len = rand() % 2000;
    char *s = malloc((size_t)len + 1);
    for (int i = 0; i < len; i++)
      s[i] = (char)(rand() % 255 + 1);
    s[len] = '\0';
    FILE *null = fopen("/dev/null", "w");
    Arena a = {0};
    Diag d;
    diag_init(&d, "r.tl", s, null);
    int n;
    Token *t = lex(&a, &d, s, &n);
    cr_assert_gt(n, 0);
    cr_assert_eq(t[n - 1].kind, TK_EOF);
    for (int i = 0; i < n; i++) {
      cr_assert_geq(t[i].start, s);
      cr_assert_leq(t[i].start + t[i].len, s + len);
    }
    fclose(null);
    arena_free(&a);
    free(s);
  }
}

Test(lex, very_long_line, .fini = teardown) {
  size_t len = 1 << 20;
  char *s = malloc(len + 1);
  for (size_t i = 0; i < len; i++)
    s[i] = i % 2 ? '+' : 'a';
  s[len] = '\0';
  int n;
  Token *t = lex_src(s, &n);
  cr_assert_eq(n, (int)len + 1); /* a + a + ... a ; $ (len is even: ends in '+') */
  cr_assert_eq(t[n - 2].kind, TK_PLUS);
  cr_assert_eq(t[n - 2].loc.col, (int)len);
  cr_assert_eq(diag.errors, 0);
  free(s);
}

/* ---- tables */

Test(tables, element_types) {
  cr_assert_eq(elem_lookup("f32", 3), T_F32);
  cr_assert_eq(elem_lookup("bf16", 4), T_BF16);
  cr_assert_eq(elem_lookup("bool", 4), T_BOOL);
  cr_assert_eq(elem_lookup("f32x", 3), T_F32);
  cr_assert_eq(elem_lookup("f3", 2), -1);
  cr_assert_eq(elem_lookup("tile", 4), -1);
  cr_assert_str_eq(elem_ctypes[T_F16], "__half");
  cr_assert_eq(elem_bytes[T_F64], 8);
  cr_assert(elem_is_float(T_BF16) && !elem_is_float(T_I32) && !elem_is_float(T_BOOL));
  cr_assert(elem_is_int(T_U8) && elem_is_int(T_I64) && !elem_is_int(T_BOOL) && !elem_is_int(T_F32));
}

Test(tables, names) {
  cr_assert_str_eq(token_names[TK_SLICE], ":+");
  cr_assert_str_eq(token_names[TK_KERNEL], "kernel");
  cr_assert_eq(builtin_lookup("rowsum"), B_ROWSUM);
  cr_assert_eq(builtin_lookup("pad"), B_PAD);
  cr_assert_eq(builtin_lookup("nope"), -1);
  cr_assert_eq(builtin_nargs[B_WHERE], 3);
  cr_assert_eq(builtin_class[B_EXP], BC_MATH1);
  cr_assert_eq(builtin_class[B_SUM], BC_SUM);
  cr_assert_str_eq(attr_names[A_PIPELINE], "pipeline");
  cr_assert_eq(attr_where[A_UNROLL], AW_FOR);
  cr_assert_eq(attr_where[A_LAUNCH], AW_KERNEL);
}

/* ---- arena and Buf */

Test(arena, zeroed_aligned_and_large, .fini = teardown) {
  for (int i = 1; i < 2000; i += 37) {
    unsigned char *p = arena_alloc(&arena, (size_t)i);
    cr_assert_eq((uintptr_t)p % 16, 0);
    for (int j = 0; j < i; j++)
      cr_assert_eq(p[j], 0);
    memset(p, 0xab, (size_t)i);
  }
  char *big = arena_alloc(&arena, 1 << 20);
  cr_assert_eq(big[(1 << 20) - 1], 0);
  cr_assert_str_eq(arena_strndup(&arena, "hello world", 5), "hello");
  cr_assert_str_eq(arena_printf(&arena, "%s-%d", "x", 42), "x-42");
  PtrVec v = {0};
  for (long i = 0; i < 1000; i++)
    vec_push(&arena, &v, (void *)i);
  cr_assert_eq(v.len, 1000);
  cr_assert_eq((long)v.items[999], 999);
  cr_assert_eq((long)v.items[17], 17);
}

Test(arena, buf) {
  Buf b = {0};
  buf_puts(&b, "ab");
  buf_putn(&b, "cdef", 2);
  buf_printf(&b, "%d%s", 12, "x");
  cr_assert_str_eq(b.data, "abcd12x");
  cr_assert_eq(b.len, 7);
  for (int i = 0; i < 1000; i++)
    buf_printf(&b, "%04d", i);
  cr_assert_eq(b.len, 4007);
  cr_assert_eq(strlen(b.data), 4007);
  buf_free(&b);
  cr_assert_null(b.data);
}

/* ---- diagnostics */

Test(diag, error_with_caret, .fini = teardown) {
  start_diag("line one\n  bad here\n");
  diag_error(&diag, (Loc){2, 7}, "bad %s", "thing");
  cr_assert_str_eq(messages(), "t.tl:2:7: error: bad thing\n  bad here\n      ^\n");
  cr_assert_eq(diag.errors, 1);
}

Test(diag, tabs_are_kept_for_the_caret, .fini = teardown) {
  start_diag("\tx =\t$\n");
  diag_error(&diag, (Loc){1, 6}, "oops");
  cr_assert_str_eq(messages(), "t.tl:1:6: error: oops\n\tx =\t$\n\t   \t^\n");
}

Test(diag, warning_and_notes, .fini = teardown) {
  start_diag("a\nb\n");
  diag_warning(&diag, W_PIPELINE, (Loc){1, 1}, "w%d", 1);
  diag_note(&diag, (Loc){2, 1}, "here");
  diag_note(&diag, (Loc){0, 0}, "no place");
  cr_assert_str_eq(messages(), "t.tl:1:1: warning: w1 [-Wpipeline]\na\n^\nt.tl:2:1: note: here\nb\n^\nnote: no place\n");
  cr_assert_eq(diag.warnings, 1);
  cr_assert_eq(diag.errors, 0);
}

/* A note its message already has is dropped (a checker's note for each dim that
 * differs named a var twice); the same note on the next message prints again,
 * and a note at another place or with other words is not the same. */
Test(diag, same_note_once_per_message, .fini = teardown) {
  for (int hold = 0; hold < 2; hold++) {
    start_diag("a\nb\n");
    if (hold)
      diag_hold(&diag);
    diag_error(&diag, (Loc){1, 1}, "e1");
    diag_note(&diag, (Loc){2, 1}, "here");
    diag_note(&diag, (Loc){2, 1}, "here");
    diag_note(&diag, (Loc){1, 1}, "here");
    diag_note(&diag, (Loc){2, 1}, "there");
    diag_note(&diag, (Loc){2, 1}, "here");
    diag_error(&diag, (Loc){2, 1}, "e2");
    diag_note(&diag, (Loc){2, 1}, "here");
    if (hold)
      diag_release(&diag);
    cr_assert_str_eq(messages(), "t.tl:1:1: error: e1\na\n^\nt.tl:2:1: note: here\nb\n^\n"
                                 "t.tl:1:1: note: here\na\n^\nt.tl:2:1: note: there\nb\n^\n"
                                 "t.tl:2:1: error: e2\nb\n^\nt.tl:2:1: note: here\nb\n^\n",
                     "hold %d", hold);
  }
}

Test(diag, no_location, .fini = teardown) {
  start_diag("a\n");
  diag_error(&diag, (Loc){0, 0}, "whole file");
  diag_warning(&diag, W_BOUNDS, (Loc){0, 0}, "hmm");
  cr_assert_str_eq(messages(), "t.tl: error: whole file\nt.tl: warning: hmm [-Wbounds]\n");
}

Test(diag, caret_at_end_of_line, .fini = teardown) {
  start_diag("abc\r\n");
  diag_error(&diag, (Loc){1, 4}, "end");
  cr_assert_str_eq(messages(), "t.tl:1:4: error: end\nabc\n   ^\n");
}

Test(diag, source_line, .fini = teardown) {
  start_diag("one\ntwo\nthree");
  Buf b = {0};
  diag_source_line(&diag, 2, &b);
  cr_assert_str_eq(b.data, "two");
  b.len = 0;
  diag_source_line(&diag, 3, &b);
  cr_assert_str_eq(b.data, "three");
  b.len = 0;
  diag_source_line(&diag, 9, &b);
  cr_assert_eq(b.len, 0);
  buf_free(&b);
}

Test(diag, too_many_errors, .fini = teardown) {
  start_diag("x\n");
  for (int i = 0; i < MAX_ERRORS + 50; i++) {
    diag_error(&diag, (Loc){1, 1}, "e%d", i);
    diag_note(&diag, (Loc){0, 0}, "n%d", i);
  }
  const char *m = messages();
  cr_assert(strstr(m, "error: e99\n"));
  cr_assert(strstr(m, "note: n99\n"));
  cr_assert_null(strstr(m, "e100"));
  cr_assert_null(strstr(m, "n100"));
  const char *cap = strstr(m, "t.tl: error: too many errors, stopping\n");
  cr_assert(cap);
  cr_assert_null(strstr(cap + strlen("t.tl: error: too many"), "too many"));
  cr_assert(diag.capped);
  cr_assert_geq(diag.errors, MAX_ERRORS);
}
