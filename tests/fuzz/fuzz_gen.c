/* fuzz_gen.c: grammar-aware libFuzzer target.
 *
 * Byte mutation alone rarely gets past the parser, so here the input bytes
 * are the choices of tlgen (tests/fuzz/tlgen.c), which turns any byte string
 * into a valid .tl program. The program goes through the whole translator on
 * every target config, in CUDA and CPU-backend (--sim) form. Invariants,
 * each an abort():
 *
 *   - translate() returns 0 or 1, never crashes, leaks or hangs;
 *   - a program of the generator that tile2cu rejects on sm_90 is reported
 *     with its diagnostics: either the generator or the translator is wrong,
 *     and both are bugs (TLGEN_ALLOW_REJECT=1 in the environment turns this
 *     off while a known one is being fixed);
 *   - translations are deterministic.
 *
 * That the accepted programs compile with nvcc, and compute what tlgen's
 * evaluator computes, is checked outside the fuzzer by difftest (--nvcc and
 * the differential runs), because each check takes a compiler run.
 */
#include "t2c.h"

#include <stdlib.h>
#include <string.h>

#include "configs.h"
#include "fuzz_targets.h"
#include "tlgen.h"

static TargetConfig targets[NTARGETS];
static int sm90 = -1;
static bool allow_reject;

static void fail(const char *what, const char *src, const char *msgs) {
  fprintf(stderr, "fuzz_gen: invariant broken: %s\n--- program:\n%s--- diagnostics:\n%s", what, src,
          msgs ? msgs : "");
  abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  sm90 = fuzz_load_targets(targets, "fuzz_gen");
  const char *e = getenv("TLGEN_ALLOW_REJECT");
  allow_reject = e && *e == '1';
  return 0;
}

/* Translates src; returns the status, the CUDA in out, the messages in *msgs. */
static int run_once(const char *src, const TargetConfig *t, bool sim, Buf *out, char **msgs) {
  Arena a = {0};
  size_t n = 0;
  FILE *diag = open_memstream(msgs, &n);
  if (!diag) abort();
  EmitOptions eo = {.sim = sim, .file = "gen.tl"};
  int st = translate("gen.tl", src, t, &eo, out, diag, NULL, &a);
  fclose(diag);
  arena_free(&a);
  if (st != 0 && st != 1) fail("translate() returned neither 0 nor 1", src, *msgs);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TlgenProgram *p = tlgen_from_bytes(data, size);
  if (!p) return 0; /* out of memory */
  const char *src = tlgen_source(p);
  /* sm_90 in both forms, then one other target picked by the input */
  int other = size ? data[0] % NTARGETS : 0;
  int tries[3][2] = {{sm90, 0}, {sm90, 1}, {other, 0}};
  for (int i = 0; i < 3; i++) {
    const TargetConfig *t = &targets[tries[i][0]];
    Buf a = {0}, b = {0};
    char *m1 = NULL, *m2 = NULL;
    int st = run_once(src, t, tries[i][1], &a, &m1);
    /* other targets may refuse a program for their own limits (shared memory, cp.async) */
    if (st != 0 && tries[i][0] == sm90 && !allow_reject) fail("tile2cu rejected a generated program", src, m1);
    if (st == 0) {
      if (run_once(src, t, tries[i][1], &b, &m2) != 0) fail("the second translation failed", src, m2);
      if (a.len != b.len || memcmp(a.data, b.data, a.len)) fail("two translations differ", src, NULL);
    }
    free(m1);
    free(m2);
    buf_free(&a);
    buf_free(&b);
  }
  tlgen_free(p);
  return 0;
}
