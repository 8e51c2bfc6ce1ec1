/* fuzz_translate.c: libFuzzer target over the whole translator.
 *
 * The input bytes are a .tl source. They go through what `tile2cu FILE.tl`
 * does with them (read_tl_file's checks, then lex -> parse -> check -> place
 * -> emit), on a target and with emission options picked from a hash of the
 * input, so that every target config and the --sim, --line, --standalone,
 * --explain and --host paths are all reached. Invariants, each an abort():
 *
 *   - translate() returns 0 or 1, and 1 only with an error printed;
 *   - an accepted program translates to the same bytes twice (determinism),
 *     and its output is non-empty text with no NUL byte.
 *
 * Crashes, hangs, leaks and undefined behaviour are caught by libFuzzer and
 * the sanitizers it is built with (make fuzz, tests/fuzz/README.md).
 */
#include "t2c.h"

#include <stdlib.h>
#include <string.h>

#include "configs.h"
#include "fuzz_targets.h"

static TargetConfig targets[NTARGETS];
static FILE *sink;

static void fail(const char *what) {
  fprintf(stderr, "fuzz_translate: invariant broken: %s\n", what);
  abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_load_targets(targets, "fuzz_translate");
  sink = fopen("/dev/null", "w");
  if (!sink) exit(2);
  return 0;
}

static uint64_t fnv1a(const uint8_t *d, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

/* One translation; returns its status and leaves the CUDA in out. */
static int run_once(const char *src, const TargetConfig *t, const EmitOptions *eo, Buf *out, bool host) {
  Arena a = {0};
  Program *p = NULL;
  char *msgs = NULL;
  size_t nmsgs = 0;
  FILE *diag = open_memstream(&msgs, &nmsgs);
  if (!diag) abort();
  int st = translate("fuzz.tl", src, t, eo, out, diag, &p, &a);
  fclose(diag);
  if (st != 0 && st != 1) fail("translate() returned neither 0 nor 1");
  if (st == 1 && !strstr(msgs, "error: ")) fail("a program was rejected without an error message");
  free(msgs);
  if (st == 0 && host && p) {
    Buf header = {0};
    host_emit(&a, p, eo, out, &header);
    if (!header.len) fail("--host wrote an empty header");
    buf_free(&header);
  }
  arena_free(&a);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* what read_tl_file refuses never reaches translate() */
  if (size > (16u << 20) || memchr(data, 0, size)) return 0;
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = 0;

  uint64_t h = fnv1a(data, size);
  const TargetConfig *t = &targets[h % (uint64_t)NTARGETS];
  EmitOptions eo = {
    .line_directives = (h >> 8) & 1,
    .standalone = (h >> 9) & 1,
    .sim = (h >> 10) & 1,
    .explain = (h >> 11) & 1,
    .explain_out = sink,
    .file = "fuzz.tl",
  };
  bool host = (h >> 12) & 1;

  Buf a = {0}, b = {0};
  int st = run_once(src, t, &eo, &a, host);
  if (st == 0) {
    if (!a.len) fail("an accepted program wrote nothing");
    if (memchr(a.data, 0, a.len)) fail("the output holds a NUL byte");
    int st2 = run_once(src, t, &eo, &b, host);
    if (st2 != 0) fail("the second translation of an accepted program failed");
    if (a.len != b.len || memcmp(a.data, b.data, a.len)) fail("two translations differ (not deterministic)");
  }
  buf_free(&a);
  buf_free(&b);
  free(src);
  return 0;
}
