/* test_limits.c: hostile input, too large for a golden: each limit of
 * t2c.h through translate(), the source line shown by diagnostics, and
 * the atomic outputs of the tile2cu binary (killed while writing, failing
 * to write). Tests run from the repo root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "t2c.h"
#include "unit_util.h"
#include "../../nvrtc_driver/tile2cu.h"

static Arena lm_arena;
static Buf lm_out;
static char *lm_msgs;
static size_t lm_msgs_len;
static Program *lm_prog;

static void lm_teardown(void) {
  free(lm_msgs);
  lm_msgs = NULL;
  buf_free(&lm_out);
  arena_free(&lm_arena);
}

/* Translates src as "t.tl" for sm_90; returns the exit status, messages in lm_msgs. */
static int lm_translate_opts(const char *src, const EmitOptions *eo) {
  static TargetConfig t;
  char err[256];
  cr_assert(config_load("configs/sm_90.yaml", &t, err, sizeof err), "%s", err);
  free(lm_msgs);
  lm_msgs = NULL;
  buf_free(&lm_out);
  arena_free(&lm_arena);
  FILE *f = open_memstream(&lm_msgs, &lm_msgs_len);
  int st = translate("t.tl", src, &t, eo, &lm_out, f, &lm_prog, &lm_arena);
  fclose(f);
  return st;
}

static int lm_translate(const char *src) {
  EmitOptions eo = {.file = "t.tl"};
  return lm_translate_opts(src, &eo);
}

static int count(const char *s, const char *w) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, w)); p += strlen(w)) n++;
  return n;
}

/* head, unit n times, tail */
static char *repeat(const char *head, const char *unit, int n, const char *tail) {
  Buf b = {0};
  buf_puts(&b, head);
  for (int i = 0; i < n; i++) buf_puts(&b, unit);
  buf_puts(&b, tail);
  return b.data;
}

/* Expects exit status 1 and exactly one error, whose message contains want. */
static void one_error(const char *src, const char *want) {
  cr_assert_eq(lm_translate(src), 1, "accepted");
  cr_assert_eq(count(lm_msgs, ": error: "), 1, "%.2000s", lm_msgs);
  cr_assert(strstr(lm_msgs, want), "want \"%s\" in:\n%.2000s", want, lm_msgs);
}

static void accepted(const char *src) {
  cr_assert_eq(lm_translate(src), 0, "%.2000s", lm_msgs);
  cr_assert_eq(count(lm_msgs, ": error: "), 0);
}

/* ---- expressions */

Test(limits, flat_chain_of_a_million_terms, .fini = lm_teardown) {
  const char *ops[] = {" + 1", " && true", " * 2", " | 1"};
  for (int i = 0; i < 4; i++) {
    char *src = repeat("kernel k(O: tensor<i32>[1]) {\n  var a = 1", ops[i], 1000000, "\n  O[0] = 0\n}\n");
    one_error(src, "error: expression is too long (limit 1024 operators and operands)");
    free(src);
  }
}

Test(limits, call_with_a_million_arguments, .fini = lm_teardown) {
  char *src = repeat("kernel k(O: tensor<f32>[1]) {\n  O[0] = min(1.0", ", 1.0", 1000000, ")\n}\n");
  one_error(src, "error: expression is too long (limit 1024 operators and operands)");
  free(src);
  src = repeat("@grid(1", ", 1", 1000000, ")\nkernel k(O: tensor<f32>[1]) {\n  O[0] = 1.0\n}\n");
  one_error(src, "error: expression is too long (limit 1024 operators and operands)");
  free(src);
}

/* A balanced sum of 2^d leaves: 2^(d+1) - 1 nodes, parentheses d deep. */
static void balanced(Buf *b, int d) {
  if (d == 0) {
    buf_puts(b, "x");
    return;
  }
  buf_puts(b, "(");
  balanced(b, d - 1);
  buf_puts(b, " + ");
  balanced(b, d - 1);
  buf_puts(b, ")");
}

Test(limits, expression_nodes_at_the_limit, .fini = lm_teardown) {
  /* -(512 leaves): 1023 + 1 = MAX_EXPR_NODES nodes */
  Buf b = {0};
  buf_puts(&b, "kernel k(O: tensor<f32>[1], x: f32) {\n  O[0] = -");
  balanced(&b, 9);
  buf_puts(&b, "\n}\n");
  accepted(b.data);
  buf_free(&b);
  /* one more: -(512 leaves + 1) */
  buf_puts(&b, "kernel k(O: tensor<f32>[1], x: f32) {\n  O[0] = -(");
  balanced(&b, 9);
  buf_puts(&b, " + x)\n}\n");
  one_error(b.data, "t.tl:2:");
  cr_assert(strstr(lm_msgs, "expression is too long (limit 1024 operators and operands)"), "%s", lm_msgs);
  buf_free(&b);
}

Test(limits, subscript_and_member_chains, .fini = lm_teardown) {
  /* the block and the expression are two levels, each '[' after the first one
   * more and its index one more: the index of the 63rd '[' is the 65th level */
  char *src = repeat("kernel k(O: tensor<f32>[4]) {\n  O[0] = O", "[0]", 100000, "\n}\n");
  one_error(src, "t.tl:2:198: error: nesting is too deep (limit 64)");
  free(src);
  /* the same with members: the 64th '.' is the 65th level */
  src = repeat("kernel k(O: tensor<f32>[4]) {\n  var a = ctx", ".x", 100000, "\n}\n");
  one_error(src, "t.tl:2:140: error: nesting is too deep (limit 64)");
  free(src);
}

/* ---- counts */

Test(limits, kernels, .fini = lm_teardown) {
  Buf b = {0};
  for (int i = 0; i < MAX_KERNELS; i++) buf_printf(&b, "kernel k%d(O: tensor<f32>[1]) {\n  O[0] = 1.0\n}\n", i);
  accepted(b.data);
  cr_assert_eq(lm_prog->nkernels, MAX_KERNELS);
  buf_printf(&b, "kernel k%d(O: tensor<f32>[1]) {\n  O[0] = 1.0\n}\n", MAX_KERNELS);
  one_error(b.data, "t.tl:3073:1: error: the file has more than 1024 kernels");
  buf_free(&b);
}

Test(limits, constants, .fini = lm_teardown) {
  Buf b = {0};
  for (int i = 0; i < MAX_CONSTS; i++) buf_printf(&b, "const c%d = %d\n", i, i);
  buf_puts(&b, "kernel k(O: tensor<i32>[1]) {\n  O[0] = c4095\n}\n");
  accepted(b.data);
  buf_free(&b);
  for (int i = 0; i <= MAX_CONSTS; i++) buf_printf(&b, "const c%d = %d\n", i, i);
  one_error(b.data, "t.tl:4097:1: error: the file has more than 4096 constants");
  buf_free(&b);
}

Test(limits, parameters_and_size_names, .fini = lm_teardown) {
  Buf b = {0};
  buf_puts(&b, "kernel k(");
  for (int i = 0; i < MAX_PARAMS; i++) buf_printf(&b, "X%d: tensor<f32>[N%d], ", i, i);
  buf_puts(&b, ") {\n  X0[0] = 1.0\n}\n");
  accepted(b.data);
  cr_assert_eq(((KernelInfo *)lm_prog->kernels[0]->info)->nsizes, MAX_SIZES);
  buf_free(&b);
  buf_puts(&b, "kernel k(");
  for (int i = 0; i <= MAX_PARAMS; i++) buf_printf(&b, "x%d: f32, ", i);
  buf_puts(&b, ") {\n}\n");
  one_error(b.data, "error: kernel 'k' has more than 256 parameters");
  buf_free(&b);
  /* 129 tensors of two size names each: the 257th name is A128 */
  buf_puts(&b, "kernel k(");
  for (int i = 0; i < 129; i++) buf_printf(&b, "X%d: tensor<f32>[A%d, B%d], ", i, i, i);
  buf_puts(&b, ") {\n  X0[0, 0] = 1.0\n}\n");
  one_error(b.data, "error: kernel 'k' has more than 256 size names");
  cr_assert(strstr(lm_msgs, "A128"), "%s", lm_msgs);
  buf_free(&b);
}

Test(limits, statements, .fini = lm_teardown) {
  char *src = repeat("kernel k(O: tensor<i32>[1]) {\n  var a = 0\n", "  a += 1\n", MAX_STMTS - 2, "  O[0] = a\n}\n");
  accepted(src);
  free(src);
  src = repeat("kernel k(O: tensor<i32>[1]) {\n  var a = 0\n", "  a += 1\n", MAX_STMTS - 1, "  O[0] = a\n}\n");
  one_error(src, "t.tl:8194:3: error: kernel 'k' has more than 8192 statements");
  free(src);
  /* an else-if chain is parsed by a loop: 20000 of them reach the limit, not the stack */
  src = repeat("kernel k(O: tensor<i32>[1]) {\n  var a = 0\n  if a == 0 { }", " else if a == 1 { a = 2 }", 20000,
               "\n  O[0] = a\n}\n");
  one_error(src, "error: kernel 'k' has more than 8192 statements");
  free(src);
}

Test(limits, attributes, .fini = lm_teardown) {
  char *src = repeat("", "@assume(N > 0)\n", MAX_ATTRS + 1, "kernel k(O: tensor<f32>[N]) {\n  O[0] = 1.0\n}\n");
  one_error(src, "t.tl:65:1: error: more than 64 attributes");
  free(src);
}

/* ---- tokens, identifiers, the file */

Test(limits, tokens, .fini = lm_teardown) {
  char *src = repeat("kernel k(O: tensor<f32>[1]) {\n", ";", MAX_TOKENS, "\n}\n");
  /* 14 tokens before the semicolons (each a token): token MAX_TOKENS + 1 is
   * semicolon MAX_TOKENS - 13, at that column */
  char want[128];
  snprintf(want, sizeof want, "t.tl:2:%d: error: the file has more than %d tokens", MAX_TOKENS - 13, MAX_TOKENS);
  one_error(src, want);
  free(src);
}

Test(limits, source_size, .fini = lm_teardown) {
  size_t n = (size_t)MAX_SOURCE_BYTES + 1;
  char *src = malloc(n + 1);
  memset(src, ' ', n);
  src[n] = 0;
  cr_assert_eq(lm_translate(src), 1);
  cr_assert_str_eq(lm_msgs, "t.tl: error: the file is larger than 16 MiB\n");
  src[n - 1] = 0; /* exactly the limit: an empty program */
  cr_assert_eq(lm_translate(src), 0, "%s", lm_msgs);
  free(src);
}

Test(limits, source_size_through_the_library) {
  /* t2c_program_from_source takes a NUL-terminated string: the same limit applies */
  size_t n = (size_t)MAX_SOURCE_BYTES + 1;
  char *src = malloc(n + 1);
  memset(src, ' ', n);
  src[n] = 0;
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_source("big.tl", src, &p), T2C_ERROR_TRANSLATE);
  cr_assert(strstr(t2c_last_error(), "error: the file is larger than 16 MiB"), "%s", t2c_last_error());
  cr_assert_eq(t2c_program_num_kernels(p), 0);
  t2c_program_destroy(p);
  free(src);
}

static char *name_of(char c, int n) {
  char *s = malloc((size_t)n + 1);
  memset(s, c, (size_t)n);
  s[n] = 0;
  return s;
}

Test(limits, long_identifiers, .fini = lm_teardown) {
  char *big = name_of('a', 10000);
  const char *forms[] = {
      "kernel %s(O: tensor<f32>[1]) {\n  O[0] = 1.0\n}\n",
      "kernel k(%s: tensor<f32>[1]) {\n}\n",
      "kernel k(O: tensor<f32>[%s]) {\n  O[0] = 1.0\n}\n",
      "kernel k(O: tensor<f32>[64]) {\n  var %s: tile<f32>[64] = 1.0\n  O[0 :+ 64] = 1.0\n}\n",
  };
  for (int i = 0; i < 4; i++) {
    Buf b = {0};
    buf_printf(&b, forms[i], big);
    one_error(b.data, "error: identifier is longer than 255 characters");
    buf_free(&b);
  }
  free(big);
}

Test(limits, identifiers_at_the_limit, .fini = lm_teardown) {
  /* 255-character names everywhere, through --host and --explain too */
  char *kn = name_of('k', MAX_IDENT), *pn = name_of('p', MAX_IDENT), *sn = name_of('s', MAX_IDENT),
       *tn = name_of('t', MAX_IDENT);
  Buf b = {0};
  buf_printf(&b, "@grid(cdiv(%s, 64))\nkernel %s(%s: tensor<f32>[%s]) {\n  var %s: tile<f32>[64] = 1.0\n"
                 "  %s[ctx.block.x * 64 :+ 64] = %s\n}\n", sn, kn, pn, sn, tn, pn, tn);
  char *explain = NULL;
  size_t explain_len = 0;
  FILE *ef = open_memstream(&explain, &explain_len);
  EmitOptions eo = {.file = "t.tl", .explain = true, .explain_out = ef};
  cr_assert_eq(lm_translate_opts(b.data, &eo), 0, "%s", lm_msgs);
  fclose(ef);
  cr_assert(strstr(explain, tn), "--explain does not name the tile:\n%.500s", explain);
  Buf cu = {0}, header = {0};
  host_emit(&lm_arena, lm_prog, &eo, &cu, &header);
  char *launcher = malloc(strlen(kn) + 32);
  sprintf(launcher, "tile2cu_launch_%s(", kn);
  cr_assert(strstr(header.data, launcher), "%.500s", header.data);
  cr_assert(strstr(cu.data, launcher), "%.500s", cu.data);
  cr_assert(strstr(lm_out.data, kn) && strstr(lm_out.data, pn) && strstr(lm_out.data, sn) && strstr(lm_out.data, tn));
  free(launcher);
  buf_free(&cu);
  buf_free(&header);
  buf_free(&b);
  free(explain);
  free(kn), free(pn), free(sn), free(tn);
}

/* ---- line endings, control characters, UTF-8 */

Test(limits, crlf_and_no_final_newline, .fini = lm_teardown) {
  const char *lf = "kernel k(O: tensor<f32>[4]) {\n  O[0] = 1.0\n  O[1] = 2.0\n}\n";
  const char *crlf = "kernel k(O: tensor<f32>[4]) {\r\n  O[0] = 1.0\r\n  O[1] = 2.0\r\n}";
  accepted(lf);
  char *want = strdup(lm_out.data);
  accepted(crlf);
  cr_assert_str_eq(lm_out.data, want);
  free(want);
  cr_assert_eq(lm_translate("kernel k(O: tensor<f32>[4]) {\r\n  O[0] = y\r\n}"), 1);
  cr_assert_str_eq(lm_msgs, "t.tl:2:10: error: use of undeclared name 'y'\n"
                            "  O[0] = y\n"
                            "         ^\n");
}

Test(limits, control_characters_stay_out_of_the_cuda, .fini = lm_teardown) {
  /* a lone CR ends a line for the C preprocessor: it must not end the comment */
  accepted("kernel k(O: tensor<f32>[4]) {\n  O[0] = 1.0 // \rint injected;\x1b[2J\x7f\n}\n");
  cr_assert_null(strchr(lm_out.data, '\r'));
  cr_assert_null(strchr(lm_out.data, '\x1b'));
  cr_assert_null(strchr(lm_out.data, '\x7f'));
  cr_assert(strstr(lm_out.data, "// t.tl:2: O[0] = 1.0 //  int injected; [2J \n"), "%s", lm_out.data);
}

static void diag_show(const char *src, Loc loc, char **text) {
  size_t len;
  FILE *f = open_memstream(text, &len);
  Diag d;
  diag_init(&d, "u.tl", src, f);
  diag_error(&d, loc, "m");
  fclose(f);
}

Test(limits, diagnostic_source_line) {
  char *t;
  /* tabs stay tabs; 'é' and '€' are one column each; the caret is under 'y' */
  diag_show("\t\xc3\xa9\t\xe2\x82\xac y\n", (Loc){1, 9}, &t);
  cr_assert_str_eq(t, "u.tl:1:9: error: m\n\t\xc3\xa9\t\xe2\x82\xac y\n\t \t  ^\n");
  free(t);
  /* invalid UTF-8 (a lone continuation byte, an overlong form, a surrogate) and
   * control characters print as \xNN, four columns each */
  diag_show("a\x80\xc0\xaf\xed\xa0\x80\x1b\ry // \xff\n", (Loc){1, 10}, &t);
  cr_assert_str_eq(t, "u.tl:1:10: error: m\n"
                      "a\\x80\\xc0\\xaf\\xed\\xa0\\x80\\x1b\\x0dy // \\xff\n"
                      "                                 ^\n");
  free(t);
}

Test(limits, diagnostic_long_line_is_cut) {
  /* 1000 'a', then 'b' at column 1001, then 1000 'c': a window of 160 bytes,
   * 80 before the caret */
  char *ab = repeat("", "a", 1000, "b");
  char *src = repeat(ab, "c", 1000, "\n");
  free(ab);
  char *t;
  diag_show(src, (Loc){1, 1001}, &t);
  char *a80 = name_of('a', 80), *c79 = name_of('c', 79), *sp = name_of(' ', 83);
  Buf want = {0};
  buf_printf(&want, "u.tl:1:1001: error: m\n...%sb%s...\n%s^\n", a80, c79, sp);
  cr_assert_str_eq(t, want.data);
  buf_free(&want);
  free(t);
  free(a80), free(c79), free(sp);
  free(src);
}

Test(limits, tile_dims_beyond_int64, .fini = lm_teardown) {
  cr_assert_eq(lm_translate("kernel k(O: tensor<f32>[1]) {\n  var t: tile<f32>[1 << 40, 1 << 40]\n}\n"), 1);
  char want[128];
  snprintf(want, sizeof want, "a tile dim must be at most %d, not %lld", MAX_DIM, 1LL << 40);
  cr_assert(strstr(lm_msgs, want), "%s", lm_msgs);
  cr_assert_eq(lm_translate("kernel k(O: tensor<f32>[1]) {\n  var t: tile<f32>[1 << 24, 1 << 24]\n}\n"), 1);
  snprintf(want, sizeof want, "has %lld elements; the limit is %d", 1LL << 48, MAX_TILE_ELEMS);
  cr_assert(strstr(lm_msgs, want), "%s", lm_msgs);
}

/* ---- atomic outputs of the tile2cu binary */

static char lm_dir[64];

static void dir_setup(void) {
  snprintf(lm_dir, sizeof lm_dir, "/tmp/t2c-limits-XXXXXX");
  cr_assert_not_null(mkdtemp(lm_dir));
}

static void dir_teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", lm_dir);
  if (system(cmd)) {}
}

/* The names in lm_dir, sorted, space-separated. */
static void dir_list(char *out, size_t n) {
  char names[16][256];
  int k = 0;
  DIR *d = opendir(lm_dir);
  cr_assert_not_null(d);
  for (struct dirent *e; (e = readdir(d)) && k < 16;)
    if (e->d_name[0] != '.') snprintf(names[k++], sizeof names[0], "%s", e->d_name);
  closedir(d);
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++)
      if (strcmp(names[j], names[i]) < 0) {
        char t[256];
        memcpy(t, names[i], sizeof t), memcpy(names[i], names[j], sizeof t), memcpy(names[j], t, sizeof t);
      }
  out[0] = 0;
  for (int i = 0; i < k; i++) snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", names[i]);
}

static void put_file(const char *name, const char *text) {
  char p[128];
  snprintf(p, sizeof p, "%s/%s", lm_dir, name);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

static char *get_file(const char *name) {
  char p[128];
  snprintf(p, sizeof p, "%s/%s", lm_dir, name);
  FILE *f = fopen(p, "r");
  cr_assert_not_null(f, "%s", p);
  Buf b = {0};
  char chunk[4096];
  size_t n;
  buf_puts(&b, "");
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_putn(&b, chunk, n);
  fclose(f);
  return b.data;
}

/* Starts tile2cu in lm_dir with args; pause (if any) as the test hook. */
static pid_t start(const char *pause, const char *const *args, rlim_t fsize) {
  char bin[PATH_MAX];
  unit_tile2cu_path(bin, sizeof bin);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (chdir(lm_dir) != 0) _exit(126);
    /* the signals the tests send take their default action, even where this runner's
     * environment ignores some (a shell's background job ignores SIGINT, and tile2cu
     * keeps an ignored signal ignored) */
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE};
    for (int i = 0; i < 4; i++) signal(sigs[i], SIG_DFL);
    if (pause) setenv("TILE2CU_TEST_PAUSE_BEFORE_RENAME", pause, 1);
    else unsetenv("TILE2CU_TEST_PAUSE_BEFORE_RENAME");
    if (fsize) {
      struct rlimit r = {fsize, fsize};
      setrlimit(RLIMIT_FSIZE, &r);
      signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG */
    }
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    char *argv[16] = {bin};
    for (int i = 0; args[i]; i++) argv[i + 1] = (char *)args[i];
    execv(bin, argv);
    _exit(127);
  }
  return pid;
}

/* Waits until lm_dir lists want (the temporary exists), at most 20 s. */
static void wait_for_temp(const char *prefix) {
  for (int i = 0; i < 2000; i++) {
    char l[1024];
    dir_list(l, sizeof l);
    if (strstr(l, prefix)) return;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  cr_assert_fail("no temporary %s appeared", prefix);
}

static const char *const KERNEL_TL = "kernel k(O: tensor<f32>[64]) {\n  O[0 :+ 64] = 1.0\n}\n";

Test(limits, signal_while_writing_leaves_nothing, .init = dir_setup, .fini = dir_teardown) {
  const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE};
  struct { const char *args[8]; const char *tmp; } runs[] = {
      {{"k.tl", "-o", "out.cu", NULL}, "out.cu.tmp"},
      {{"k.tl", "--header", "out.h", "-o", "out.cu", NULL}, "out.h.tmp"},
      {{"k.tl", "-o", "out.cu", "--deps", "out.d", NULL}, "out.cu.tmp"},
  };
  put_file("k.tl", KERNEL_TL);
  for (int r = 0; r < 3; r++)
    for (int s = 0; s < 4; s++) {
      pid_t pid = start("30", runs[r].args, 0);
      wait_for_temp(runs[r].tmp);
      kill(pid, sigs[s]);
      int status;
      cr_assert_eq(waitpid(pid, &status, 0), pid);
      cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == sigs[s], "run %d: status %#x", r, status);
      char l[1024];
      dir_list(l, sizeof l);
      cr_assert_str_eq(l, "k.tl", "run %d, signal %d left: %s", r, sigs[s], l);
    }
}

Test(limits, signal_keeps_the_old_output, .init = dir_setup, .fini = dir_teardown) {
  put_file("k.tl", KERNEL_TL);
  put_file("out.cu", "old\n");
  const char *args[] = {"k.tl", "-o", "out.cu", NULL};
  pid_t pid = start("30", args, 0);
  wait_for_temp("out.cu.tmp");
  kill(pid, SIGTERM);
  int status;
  waitpid(pid, &status, 0);
  cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  char l[1024];
  dir_list(l, sizeof l);
  cr_assert_str_eq(l, "k.tl out.cu");
  char *t = get_file("out.cu");
  cr_assert_str_eq(t, "old\n");
  free(t);
  /* without a signal the hook only delays: the new output replaces the old */
  pid = start("0.1", args, 0);
  waitpid(pid, &status, 0);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
  dir_list(l, sizeof l);
  cr_assert_str_eq(l, "k.tl out.cu");
  t = get_file("out.cu");
  cr_assert(strstr(t, "__global__"), "%.300s", t);
  free(t);
}

Test(limits, failed_write_leaves_nothing, .init = dir_setup, .fini = dir_teardown) {
  /* files limited to 200 bytes: the CUDA does not fit */
  put_file("k.tl", KERNEL_TL);
  put_file("out.cu", "old\n");
  const char *args[] = {"k.tl", "-o", "out.cu", NULL};
  pid_t pid = start(NULL, args, 200);
  int status;
  waitpid(pid, &status, 0);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %#x", status);
  char l[1024];
  dir_list(l, sizeof l);
  cr_assert_str_eq(l, "k.tl out.cu");
  char *t = get_file("out.cu");
  cr_assert_str_eq(t, "old\n");
  free(t);
}

/* Outputs that cannot all be written are refused before any is: a depfile in a directory
 * that does not exist (it left -o's and --header's files written), an output that is the
 * input, two outputs that are one file. */
Test(limits, bad_output_paths_write_nothing, .init = dir_setup, .fini = dir_teardown) {
  put_file("k.tl", KERNEL_TL);
  struct { const char *args[10]; } runs[] = {
      {{"k.tl", "-o", "out.cu", "--header", "out.h", "--deps", "nodir/out.d", NULL}},
      {{"k.tl", "-o", "nodir/out.cu", "--header", "out.h", NULL}},
      {{"k.tl", "-o", "k.tl", NULL}},
      {{"k.tl", "-o", "./k.tl", NULL}},
      {{"k.tl", "-o", "out.cu", "-MD", "-MF", "out.cu", NULL}},
      {{"k.tl", "-o", "out.cu", "--header", "out.cu", NULL}},
  };
  for (int r = 0; r < 6; r++) {
    pid_t pid = start(NULL, runs[r].args, 0);
    int status;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "run %d: status %#x", r, status);
    char l[1024];
    dir_list(l, sizeof l);
    cr_assert_str_eq(l, "k.tl", "run %d left: %s", r, l);
    char *t = get_file("k.tl");
    cr_assert_str_eq(t, KERNEL_TL, "run %d changed the input", r);
    free(t);
  }
}
