/* test_options.c: the options that change a translation (options.c): -D
 * NAME=VALUE, and the named warnings with -Wno-NAME, -Werror and -w (diag.c),
 * including one bounds warning per statement with the @assume that drops it
 * (facts.c). Through diag_* directly, through translate(), and through the
 * verbs. A -D translation is compared with the translation of the file edited
 * to say the same value, and every @assume a note proposes is added to the
 * kernel to see that the warning goes. Runs from the repo root. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t2c.h"
#include "npy.h"
#include "unit_util.h"

static Arena op_arena;
static Buf op_out;
static char *op_msgs;
static size_t op_msgs_len;

static void op_teardown(void) {
  free(op_msgs);
  op_msgs = NULL;
  buf_free(&op_out);
  arena_free(&op_arena);
}

TestSuite(options, .fini = op_teardown);

/* Translates src as "t.tl" for sm_90 with the options opts (NULL-terminated,
 * or NULL for none); the exit status, messages in op_msgs, CUDA in op_out. */
static int tr(const char *src, const char *const *opts) {
  static TargetConfig t;
  char err[256];
  cr_assert(config_load("configs/sm_90.yaml", &t, err, sizeof err), "%s", err);
  op_teardown();
  int n = 0;
  while (opts && opts[n]) n++;
  EmitOptions eo = {.file = "t.tl", .opts = opts, .nopts = n};
  FILE *f = open_memstream(&op_msgs, &op_msgs_len);
  Program *p;
  int st = translate("t.tl", src, &t, &eo, &op_out, f, &p, &op_arena);
  fclose(f);
  return st;
}

/* A malloc'd copy of the last translation's CUDA. */
static char *out_copy(void) { return strdup(op_out.data ? op_out.data : ""); }

static int count(const char *s, const char *w) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, w)); p += strlen(w)) n++;
  return n;
}

/* s with the first occurrence of from replaced by to (malloc'd). */
static char *replace(const char *s, const char *from, const char *to) {
  const char *at = strstr(s, from);
  cr_assert_not_null(at, "no '%s' in:\n%s", from, s);
  Buf b = {0};
  buf_putn(&b, s, (size_t)(at - s));
  buf_puts(&b, to);
  buf_puts(&b, at + strlen(from));
  return b.data;
}

/* ------------------------------------------------------------ names */

Test(options, warning_names_are_unique_and_found) {
  for (int w = 0; w < W_COUNT; w++) {
    cr_assert_eq(warn_lookup(warn_names[w]), w, "%s", warn_names[w]);
    cr_assert_gt(strlen(warn_whats[w]), 0);
    for (int v = 0; v < w; v++) cr_assert_str_neq(warn_names[v], warn_names[w]);
  }
  cr_assert_eq(warn_lookup("no-such-warning"), -1);
}

/* ------------------------------------------------------------ diag.c */

static Diag dg;
static char *dg_msgs;
static size_t dg_len;
static FILE *dg_f;

static void dg_start(void) {
  dg_f = open_memstream(&dg_msgs, &dg_len);
  diag_init(&dg, "t.tl", "a\nb\nc = X[i, k] + O[i, k]\nd\ne Y\nf\ng\n", dg_f);
}

static const char *dg_text(void) {
  fflush(dg_f);
  return dg_msgs ? dg_msgs : "";
}

static void dg_end(void) {
  fclose(dg_f);
  free(dg_msgs);
  dg_msgs = NULL;
}

Test(options, off_warning_prints_nothing_and_drops_its_notes, .fini = dg_end) {
  dg_start();
  dg.off[W_PIPELINE] = true;
  diag_warning(&dg, W_PIPELINE, (Loc){1, 1}, "quiet");
  diag_note(&dg, (Loc){2, 1}, "its note");
  diag_warning(&dg, W_REGISTERS_COPY, (Loc){3, 1}, "loud");
  cr_assert_str_eq(dg_text(), "t.tl:3:1: warning: loud [-Wregisters-copy]\nc = X[i, k] + O[i, k]\n^\n");
  cr_assert_eq(dg.warnings, 1);
}

Test(options, no_warnings_at_all_with_w, .fini = dg_end) {
  dg_start();
  dg.no_warnings = true;
  for (int w = 0; w < W_COUNT; w++) diag_warning(&dg, (WarnKind)w, (Loc){1, 1}, "w");
  diag_bounds(&dg, (Loc){2, 1}, "X", 0, "N % 4 == 0", NULL);
  diag_flush(&dg);
  cr_assert_str_eq(dg_text(), "");
  cr_assert_eq(dg.warnings + dg.warning_errors + dg.errors, 0);
}

Test(options, werror_prints_an_error_and_counts_apart, .fini = dg_end) {
  dg_start();
  dg.werror = true;
  diag_warning(&dg, W_PIPELINE, (Loc){1, 1}, "slow");
  diag_note(&dg, (Loc){0, 0}, "why");
  cr_assert_str_eq(dg_text(), "t.tl:1:1: error: slow [-Werror,-Wpipeline]\na\n^\nnote: why\n");
  cr_assert_eq(dg.warning_errors, 1);
  cr_assert_eq(dg.errors, 0);
  cr_assert_eq(dg.warnings, 0);
}

Test(options, bounds_of_one_line_make_one_warning, .fini = dg_end) {
  dg_start();
  diag_bounds(&dg, (Loc){3, 5}, "X", 0, "M % 16 == 0", NULL);
  diag_bounds(&dg, (Loc){3, 9}, "X", 1, "K % 8 == 0", NULL);
  diag_bounds(&dg, (Loc){5, 2}, "Y", 0, NULL, "its start may be negative");
  diag_bounds(&dg, (Loc){3, 5}, "X", 0, "M % 16 == 0", NULL); /* the same dim again */
  diag_bounds(&dg, (Loc){3, 20}, "O", 1, "K % 8 == 0", NULL);
  cr_assert_str_eq(dg_text(), "", "printed before the statement's end");
  diag_warning(&dg, W_PIPELINE, (Loc){7, 1}, "then this");
  cr_assert_str_eq(dg_text(),
                   "t.tl:3:5: warning: bounds checks on dims 0 and 1 of 'X' and dim 1 of 'O' kept inside a loop [-Wbounds]\n"
                   "c = X[i, k] + O[i, k]\n    ^\n"
                   "note: @assume(M % 16 == 0, K % 8 == 0) on the kernel lets tile2cu drop them\n"
                   "t.tl:5:2: warning: bounds check on dim 0 of 'Y' kept inside a loop [-Wbounds]\n"
                   "e Y\n ^\n"
                   "note: no @assume can drop it: its start may be negative\n"
                   "t.tl:7:1: warning: then this [-Wpipeline]\ng\n^\n");
  cr_assert_eq(dg.warnings, 3);
}

Test(options, bounds_with_and_without_an_assume, .fini = dg_end) {
  dg_start();
  diag_bounds(&dg, (Loc){2, 1}, "A", 0, NULL, "its start may be negative");
  diag_bounds(&dg, (Loc){2, 3}, "A", 1, "K >= 64", NULL);
  diag_bounds(&dg, (Loc){2, 5}, "B", 2, NULL, "its start may be negative");
  diag_flush(&dg);
  cr_assert_str_eq(dg_text(),
                   "t.tl:2:1: warning: bounds checks on dims 0 and 1 of 'A' and dim 2 of 'B' kept inside a loop [-Wbounds]\n"
                   "b\n^\n"
                   "note: @assume(K >= 64) on the kernel lets tile2cu drop the check on dim 1 of 'A'\n"
                   "note: no @assume can drop the checks on dim 0 of 'A' and dim 2 of 'B': its start may be negative\n");
}

Test(options, bounds_off_with_wno_bounds, .fini = dg_end) {
  dg_start();
  dg.off[W_BOUNDS] = true;
  diag_bounds(&dg, (Loc){2, 1}, "A", 0, NULL, "its start may be negative");
  diag_flush(&dg);
  cr_assert_str_eq(dg_text(), "");
}

/* ------------------------------------------------------------ warnings through translate() */

/* Two statements, each reading one tensor and writing another, in a loop over
 * a size the step may not divide: two bounds warnings, one per statement. */
static const char ragged[] =
    "@launch(128)\n"
    "kernel k(X: tensor<f32>[N], Y: tensor<f32>[N], O: tensor<f32>[N], P: tensor<f32>[N]) {\n"
    "  for i in range(0, N, 128) {\n"
    "    O[i :+ 128] = X[i :+ 128] * 2.0\n"
    "    P[i :+ 128] = Y[i :+ 128] + X[i :+ 128]\n"
    "  }\n"
    "}\n";

Test(options, one_bounds_warning_per_statement) {
  cr_assert_eq(tr(ragged, NULL), 0, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, ": warning: "), 2, "%s", op_msgs);
  cr_assert(strstr(op_msgs, "t.tl:4:"), "%s", op_msgs);
  cr_assert(strstr(op_msgs, "t.tl:5:"), "%s", op_msgs);
  /* each lists every tensor of its statement */
  const char *w5 = strstr(op_msgs, "t.tl:5:");
  cr_assert(strstr(w5, "'Y'") && strstr(w5, "'X'") && strstr(w5, "'P'"), "%s", op_msgs);
  cr_assert_eq(count(op_msgs, "[-Wbounds]"), 2);
}

Test(options, werror_fails_after_reporting_every_warning) {
  const char *werror[] = {"-Werror", NULL};
  cr_assert_eq(tr(ragged, werror), 1);
  cr_assert_eq(count(op_msgs, ": error: "), 2, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, "[-Werror,-Wbounds]"), 2, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, ": warning: "), 0);
}

Test(options, werror_without_warnings_translates) {
  const char *werror[] = {"-Werror", NULL};
  const char *src = "@launch(32)\nkernel k(O: tensor<f32>[64]) {\n  O[0 :+ 64] = 1.0\n}\n";
  cr_assert_eq(tr(src, werror), 0, "%s", op_msgs);
  cr_assert_str_eq(op_msgs, "");
}

Test(options, wno_silences_one_name_and_w_all) {
  const char *src =
      "@launch(128)\n@registers(t)\n"
      "kernel k(X: tensor<f32>[32, K], O: tensor<f32>[32, 32]) {\n"
      "  var t: tile<f32>[32, 32] = 0.0\n"
      "  for k0 in range(0, K, 32) {\n    t += X[0 :+ 32, k0 :+ 32]\n  }\n"
      "  O[0 :+ 32, 0 :+ 32] = transpose(t)\n}\n";
  cr_assert_eq(tr(src, NULL), 0, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, "[-Wbounds]"), 1, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, "[-Wregisters-copy]"), 1, "%s", op_msgs);
  const char *no_bounds[] = {"-Wno-bounds", NULL}, *no_copy[] = {"-Wno-registers-copy", NULL}, *w[] = {"-w", NULL};
  cr_assert_eq(tr(src, no_bounds), 0);
  cr_assert_eq(count(op_msgs, "[-Wbounds]"), 0, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, "[-Wregisters-copy]"), 1, "%s", op_msgs);
  cr_assert_eq(tr(src, no_copy), 0);
  cr_assert_eq(count(op_msgs, "[-Wbounds]"), 1, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, "[-Wregisters-copy]"), 0, "%s", op_msgs);
  cr_assert_eq(count(op_msgs, "note: 't' is named"), 0, "the silenced warning's note stays: %s", op_msgs);
  cr_assert_eq(tr(src, w), 0);
  cr_assert_str_eq(op_msgs, "");
  /* -WNAME turns NAME on again; of the two the last wins; -w wins over both */
  const char *again[] = {"-Wno-bounds", "-Wbounds", NULL}, *off_again[] = {"-Wbounds", "-Wno-bounds", NULL},
             *w_on[] = {"-w", "-Wbounds", NULL};
  cr_assert_eq(tr(src, again), 0);
  cr_assert_eq(count(op_msgs, "[-Wbounds]"), 1, "%s", op_msgs);
  cr_assert_eq(tr(src, off_again), 0);
  cr_assert_eq(count(op_msgs, "[-Wbounds]"), 0, "%s", op_msgs);
  cr_assert_eq(tr(src, w_on), 0);
  cr_assert_str_eq(op_msgs, "");
}

/* Each kernel's bounds warnings propose an @assume; with it the kernel
 * translates without any. Sizes met as loop bounds with a step, as a grid of
 * blocks, and under a loop with a constant end (SIZE >= v). */
Test(options, every_proposed_assume_drops_the_checks) {
  static const char *kernels[] = {
      "@launch(256)\n@grid(cdiv(N, 64), cdiv(M, 64))\n"
      "kernel k(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {\n"
      "  var m0 = ctx.block.y * 64\n  var n0 = ctx.block.x * 64\n  var acc: tile<f32>[64, 64] = 0.0\n"
      "  for k0 in range(0, K, 16) {\n    acc += dot(A[m0 :+ 64, k0 :+ 16], B[k0 :+ 16, n0 :+ 64])\n  }\n"
      "  C[m0 :+ 64, n0 :+ 64] = acc\n}\n",
      "@launch(128)\nkernel k(X: tensor<f32>[N, M], O: tensor<f32>[N, M]) {\n"
      "  for i in range(0, 256, 32) {\n    O[i :+ 32, 0 :+ 8] = X[i :+ 32, 0 :+ 8] + 1.0\n  }\n}\n",
      ragged,
  };
  for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
    cr_assert_eq(tr(kernels[i], NULL), 0, "%s", op_msgs);
    cr_assert_gt(count(op_msgs, "[-Wbounds]"), 0, "kernel %zu: %s", i, op_msgs);
    /* all the conditions the notes propose, in one @assume */
    Buf conds = {0};
    for (const char *p = op_msgs; (p = strstr(p, "note: @assume(")); p++) {
      const char *c = p + strlen("note: @assume("), *e = strstr(c, ") on the kernel");
      cr_assert_not_null(e);
      buf_printf(&conds, "%s%.*s", conds.len ? ", " : "", (int)(e - c), c);
    }
    cr_assert_gt(conds.len, 0, "kernel %zu proposes no @assume: %s", i, op_msgs);
    char *line = malloc(conds.len + 32);
    snprintf(line, conds.len + 32, "@assume(%s)\nkernel ", conds.data);
    char *with = replace(kernels[i], "kernel ", line);
    cr_assert_eq(tr(with, NULL), 0, "%s\n%s", with, op_msgs);
    cr_assert_eq(count(op_msgs, "[-Wbounds]"), 0, "kernel %zu with %s:\n%s", i, line, op_msgs);
    free(with);
    free(line);
    buf_free(&conds);
  }
}

/* ------------------------------------------------------------ -D */

static const char consts[] =
    "const T = 64\n"
    "const BN = 32\n"
    "const S = 1.5\n"
    "@launch(T)\n"
    "kernel k(X: tensor<f32>[16, BN], O: tensor<f32>[16, BN]) {\n"
    "  O[0 :+ 16, 0 :+ BN] = X[0 :+ 16, 0 :+ BN] * S\n"
    "}\n";

/* The translation with opts equals that of the file with `from` edited to
 * `to`, but for the header's line on the -D, which must be want. */
static void same_as_edited(const char *const *opts, const char *from, const char *to, const char *want) {
  cr_assert_eq(tr(consts, opts), 0, "%s", op_msgs);
  char *with_d = out_copy();
  char *edited = replace(consts, from, to);
  cr_assert_eq(tr(edited, NULL), 0, "%s", op_msgs);
  char *without = replace(with_d, want, "");
  cr_assert_str_eq(without, op_out.data);
  free(with_d);
  free(edited);
  free(without);
}

Test(options, define_int_is_the_literal_in_the_file) {
  const char *o[] = {"-D", "BN=64", NULL};
  same_as_edited(o, "const BN = 32", "const BN = 64", "// Consts set on the command line: -D BN=64\n");
}

Test(options, define_joined_and_negative_float) {
  const char *o[] = {"-DS=-0.25", NULL};
  same_as_edited(o, "const S = 1.5", "const S = -0.25", "// Consts set on the command line: -D S=-0.25\n");
}

Test(options, define_hex_with_separators) {
  const char *o[] = {"-D", "T=0x1_00", NULL};
  same_as_edited(o, "const T = 64", "const T = 0x1_00", "// Consts set on the command line: -D T=0x1_00\n");
}

Test(options, defines_listed_in_file_order_and_last_wins) {
  const char *o[] = {"-D", "S=2.0", "-D", "T=32", "-DT=128", NULL};
  cr_assert_eq(tr(consts, o), 0, "%s", op_msgs);
  cr_assert(strstr(op_out.data, "// Consts set on the command line: -D T=128 -D S=2.0\n"), "%s", op_out.data);
  char *both = out_copy();
  const char *last[] = {"-DS=2.0", "-DT=128", NULL};
  cr_assert_eq(tr(consts, last), 0);
  cr_assert_str_eq(both, op_out.data);
  free(both);
}

Test(options, define_keeps_literal_typing) {
  /* a float where the language needs an integer: the error of the edited file */
  const char *o[] = {"-D", "BN=32.0", NULL};
  cr_assert_eq(tr(consts, o), 1);
  char *with_d = strdup(op_msgs);
  char *edited = replace(consts, "const BN = 32", "const BN = 32.0");
  /* but for the notes at the const, which say what set its value, and show its line */
  while (strstr(with_d, ", set by -D BN=32.0")) {
    char *n = replace(with_d, ", set by -D BN=32.0", " here");
    free(with_d);
    with_d = n;
  }
  cr_assert_eq(tr(edited, NULL), 1);
  for (char *n; (n = strstr(op_msgs, "const BN = 32.0\n")) != NULL;)
    memmove(n + 13, n + 15, strlen(n + 15) + 1); /* "const BN = 32" */
  cr_assert_gt(strlen(op_msgs), 0);
  cr_assert(strncmp(with_d, op_msgs, strlen(op_msgs)) == 0, "-D:\n%s\nedited:\n%s", with_d, op_msgs);
  cr_assert_str_eq(with_d + strlen(op_msgs), "note: the consts set on the command line: -D BN=32.0\n");
  free(with_d);
  free(edited);
}

/* Exit status 1, no CUDA, and the one error says want. */
static void refused(const char *const *opts, const char *want) {
  cr_assert_eq(tr(consts, opts), 1, "accepted: %s", opts[0]);
  cr_assert_eq(op_out.len, 0);
  cr_assert_eq(count(op_msgs, ": error: "), 1, "%s", op_msgs);
  cr_assert(strstr(op_msgs, want), "want \"%s\" in:\n%s", want, op_msgs);
}

Test(options, define_of_no_const_is_an_error) {
  const char *param[] = {"-D", "X=1", NULL}, *missing[] = {"-DNOPE=1", NULL};
  refused(param, "-D X=1: the file has no file-level const 'X'");
  refused(missing, "no file-level const 'NOPE'");
  cr_assert(strstr(op_msgs, "note: -D sets a const declared outside the kernels; this file's are 'T', 'BN', 'S'"),
            "%s", op_msgs);
  /* a const inside a kernel is not one */
  const char *local = "kernel k(O: tensor<f32>[4]) {\n  const C = 2.0\n  O[0 :+ 4] = C\n}\n";
  const char *c[] = {"-D", "C=1.0", NULL};
  cr_assert_eq(tr(local, c), 1);
  cr_assert(strstr(op_msgs, "no file-level const 'C'") && strstr(op_msgs, "this file declares none"), "%s", op_msgs);
}

Test(options, malformed_defines_are_errors) {
  static const char *bad[] = {"abc", "", "1.5f", "--1", "+1", "1 2", "0x", "1__0", "1e999", "99999999999999999999", "T"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char arg[64];
    snprintf(arg, sizeof arg, "BN=%s", bad[i]);
    const char *o[] = {"-D", arg, NULL};
    refused(o, "is not an integer or float literal");
  }
  const char *no_eq[] = {"-D", "BN", NULL}, *no_name[] = {"-D=4", NULL}, *no_arg[] = {"-D", NULL};
  refused(no_eq, "-D 'BN': expected NAME=VALUE");
  refused(no_name, "-D '=4': expected NAME=VALUE");
  refused(no_arg, "-D needs NAME=VALUE");
}

Test(options, unknown_warning_options_are_errors) {
  const char *wno[] = {"-Wno-nope", NULL}, *wfoo[] = {"-Wnope", NULL}, *empty[] = {"-Wno-", NULL}, *bare[] = {"-W", NULL};
  refused(wno, "unknown warning option '-Wno-nope'");
  cr_assert(strstr(op_msgs, "bounds, outside, registers-copy, dot, register-pressure, scatter-index, scatter-race, block-race, pipeline, column-as-row, unused, occupancy, stack-frame, spills"), "%s", op_msgs);
  refused(wfoo, "unknown warning option '-Wnope'");
  refused(empty, "unknown warning option '-Wno-'");
  refused(bare, "unknown warning option '-W'");
}

Test(options, take_collects_the_options_as_written) {
  char *argv[] = {"tile2cu", "-D", "A=1", "x.tl", "-DB=2", "-o", "y", "-Wno-bounds", "-w", "-Werror", "-D"};
  int argc = (int)(sizeof argv / sizeof *argv);
  const char *got[16];
  int n = 0;
  bool taken[16] = {false};
  for (int i = 1; i < argc; i++) {
    int at = i;
    if (opts_take(argc, argv, &i, got, &n))
      for (int k = at; k <= i; k++) taken[k] = true;
  }
  const char *want[] = {"-D", "A=1", "-DB=2", "-Wno-bounds", "-w", "-Werror", "-D"};
  cr_assert_eq(n, 7);
  for (int k = 0; k < n; k++) cr_assert_str_eq(got[k], want[k]);
  cr_assert(!taken[3] && !taken[5] && !taken[6], "x.tl, -o and its value are not these options");
}

/* ------------------------------------------------------------ the verbs */

/* dir/name with text; the path into out. */
static void write_file(const char *dir, const char *name, const char *text, char *out, size_t n) {
  snprintf(out, n, "%s/%s", dir, name);
  FILE *f = fopen(out, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

Test(options, run_takes_defines_and_warning_options, .timeout = 120) {
  char dir[] = "/tmp/t2c-opts-XXXXXX", tl[128], npy[160], cache[128];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("TILE2CU_CACHE_DIR", cache, 1);
  write_file(dir, "k.tl", "const V = 1.0\n@launch(32)\nkernel k(O: tensor<f32>[64]) {\n  O[0 :+ 64] = V\n}\n", tl,
             sizeof tl);
  snprintf(npy, sizeof npy, "O=%s/o.npy", dir);
  char msg[4096];
  char *run[] = {"run", tl, "--kernel", "k", "--backend", "sim", "-D", "V=-2.75", npy, NULL};
  int st = unit_run_main(9, run, msg, sizeof msg);
  cr_assert_eq(st, 0, "%s", msg);
  Npy a;
  char err[256];
  cr_assert_eq(npy_read(npy + 2, &a, err, sizeof err), 0, "%s", err);
  cr_assert_eq(npy_nelems(&a), 64);
  for (int i = 0; i < 64; i++) cr_assert_eq(((float *)a.data)[i], (float)strtod("-2.75", NULL));
  npy_free(&a);
  char *bad[] = {"run", tl, "--kernel", "k", "--backend", "sim", "-D", "W=1", npy, NULL};
  cr_assert_eq(unit_run_main(9, bad, msg, sizeof msg), 1, "%s", msg);
  cr_assert(strstr(msg, "no file-level const 'W'"), "%s", msg);
  char *unknown[] = {"run", tl, "--kernel", "k", "--backend", "sim", "-Wno-nope", npy, NULL};
  cr_assert_eq(unit_run_main(8, unknown, msg, sizeof msg), 1, "%s", msg);
  cr_assert(strstr(msg, "unknown warning option '-Wno-nope'"), "%s", msg);
  char rm[160];
  snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
  cr_assert_eq(system(rm), 0);
}

/* compile --ptx writes PTX text, without the NUL that ends NVRTC's PTX: ptxas takes the
 * file (it said "Unexpected EOF" to the NUL) */
Test(options, compile_ptx_is_a_file_ptxas_takes) {
  char dir[] = "/tmp/t2c-opts-XXXXXX", tl[128], out[128], cache[128];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("TILE2CU_CACHE_DIR", cache, 1);
  write_file(dir, "k.tl", "kernel k(O: tensor<f32>[64]) {\n  O[0 :+ 64] = 1.0\n}\n", tl, sizeof tl);
  snprintf(out, sizeof out, "%s/k.ptx", dir);
  char msg[8192];
  char *argv[] = {"compile", tl, "--ptx", "-o", out, NULL};
  cr_assert_eq(unit_verb_main(compile_main, 5, argv, msg, sizeof msg), 0, "%s", msg);
  FILE *f = fopen(out, "rb");
  cr_assert_not_null(f);
  char ptx[65536];
  size_t n = fread(ptx, 1, sizeof ptx, f);
  fclose(f);
  cr_assert(n > 0 && n < sizeof ptx);
  cr_assert_null(memchr(ptx, 0, n), "a NUL at byte %zu of %zu", (size_t)((char *)memchr(ptx, 0, n) - ptx), n);
  cr_assert_eq(ptx[n - 1], '\n');
  const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s/bin/ptxas", cuda);
  if (access(cmd, X_OK) == 0) {
    snprintf(cmd, sizeof cmd, "%s/bin/ptxas -arch=sm_90 '%s' -o /dev/null", cuda, out);
    cr_assert_eq(system(cmd), 0, "ptxas refused %s", out);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

Test(options, compile_and_report_take_warning_options, .timeout = 300) {
  char dir[] = "/tmp/t2c-opts-XXXXXX", tl[128], out[128], cache[128];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("TILE2CU_CACHE_DIR", cache, 1);
  write_file(dir, "k.tl", ragged, tl, sizeof tl);
  snprintf(out, sizeof out, "%s/k.cubin", dir);
  char msg[8192];
  char *plain[] = {"compile", tl, "-o", out, NULL};
  cr_assert_eq(unit_verb_main(compile_main, 4, plain, msg, sizeof msg), 0, "%s", msg);
  cr_assert_eq(count(msg, "warning: bounds checks on "), 2, "%s", msg);
  char *werror[] = {"compile", tl, "-Werror", "-o", out, NULL};
  cr_assert_eq(unit_verb_main(compile_main, 5, werror, msg, sizeof msg), 1, "%s", msg);
  cr_assert_eq(count(msg, "[-Werror,-Wbounds]"), 2, "%s", msg);
  char *quiet[] = {"report", tl, "-Wno-bounds", NULL};
  cr_assert_eq(unit_verb_main(report_main, 3, quiet, msg, sizeof msg), 0, "%s", msg);
  cr_assert_eq(count(msg, "warning"), 0, "%s", msg);
  char *def[] = {"report", tl, "-w", "-D", "N=4", NULL};
  cr_assert_eq(unit_verb_main(report_main, 5, def, msg, sizeof msg), 1, "%s", msg);
  cr_assert(strstr(msg, "no file-level const 'N'"), "%s", msg);
  char rm[160];
  snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
  cr_assert_eq(system(rm), 0);
}
