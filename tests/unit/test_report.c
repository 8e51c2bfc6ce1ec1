/* test_report.c: tile2cu report's warnings from ptxas's numbers (verbs.c), in
 * process: a checked kernel and the numbers NVRTC would give, made up here, so
 * that each of the warning's causes is tested without NVRTC or a kernel that
 * makes ptxas spill on this version of it. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "t2c.h"

#include "../../nvrtc_driver/tile2cu.h"

static const char *registers_src = "@launch(128)\n"
                                   "@registers(acc)\n"
                                   "kernel k(X: tensor<f32>[N, 128], Y: tensor<f32>[128]) {\n"
                                   "  var acc: tile<f32>[1, 128] = 0.0\n"
                                   "  for i in range(0, N) {\n"
                                   "    acc += X[i :+ 1, 0 :+ 128]\n"
                                   "  }\n"
                                   "  Y[0 :+ 128] = acc\n"
                                   "}\n";

/* The warnings report_warnings prints for the first kernel of src, given ptxas's
 * registers, stack frame and spill bytes; the caller frees the text. */
static char *warnings_of(const char *src, int regs, int stack, int spill_st, int spill_ld) {
  char err[256], *text = NULL;
  size_t len;
  TargetConfig t;
  cr_assert(config_load("configs/sm_90.yaml", &t, err, sizeof err), "%s", err);
  Arena a = {0};
  FILE *f = open_memstream(&text, &len);
  Diag d;
  diag_init(&d, "t.tl", src, f);
  int n;
  Token *toks = lex(&a, &d, src, &n);
  Program *p = parse(&a, &d, toks, n);
  cr_assert(d.errors == 0 && check_program(&a, &d, p, &t), "check failed");
  t2c_kernel_info ii = {.name = "k", .registers = regs, .stack_bytes = stack, .spill_store_bytes = spill_st,
                        .spill_load_bytes = spill_ld};
  report_warnings(&d, p->kernels[0], &ii);
  fclose(f);
  arena_free(&a);
  return text;
}

/* A stack frame that holds spills is the registers running out: the warning said a
 * register tile was indexed dynamically or too large (attn_bwd: 255 registers, a
 * 16-byte frame, 12 bytes of spills, its register tiles indexed by literals only). */
Test(report, a_stack_frame_with_spills_is_register_pressure) {
  char *w = warnings_of(registers_src, 255, 16, 12, 12);
  cr_assert(strstr(w, "warning: kernel 'k' has a 16-byte stack frame (ptxas) for its register spills (12 bytes "
                      "stored, 12 loaded): its live values need more than the 255 registers per thread it has "
                      "[-Wstack-frame]"), "%s", w);
  cr_assert_null(strstr(w, "indexed dynamically"), "%s", w);
  cr_assert(strstr(w, "[-Wspills]"), "%s", w);
  free(w);
}

/* Without spills the frame is an array: with register tiles, maybe one of theirs. */
Test(report, a_stack_frame_without_spills_is_an_array) {
  char *w = warnings_of(registers_src, 40, 32, 0, 0);
  cr_assert(strstr(w, "warning: kernel 'k' has a 32-byte stack frame (ptxas) and no spills: an array in local "
                      "memory, such as a register tile indexed dynamically or too large to stay in registers "
                      "[-Wstack-frame]"), "%s", w);
  cr_assert_null(strstr(w, "[-Wspills]"), "%s", w);
  free(w);
}

/* Under a register cap from @launch(T, B) the spills are the cap's. */
Test(report, spills_under_a_launch_cap_name_the_cap) {
  const char *src = "@launch(256, 2)\n"
                    "kernel k(X: tensor<f32>[256], Y: tensor<f32>[256]) {\n"
                    "  Y[0 :+ 256] = X[0 :+ 256] * 2.0\n"
                    "}\n";
  char *w = warnings_of(src, 128, 24, 8, 8);
  cr_assert(strstr(w, "has a 24-byte stack frame (ptxas) for its register spills (8 bytes stored, 8 loaded): "
                      "@launch(256, 2) asks for 2 blocks per SM, which holds each thread to 128 registers"), "%s", w);
  char *none = warnings_of(src, 30, 28, 0, 0);
  cr_assert(strstr(none, "has a 28-byte stack frame (ptxas) and no spills at 30 registers per thread: an array "
                         "ptxas keeps in local memory (one it indexes at run time)"), "%s", none);
  free(w);
  free(none);
}

/* Over 256 threads the threads alone cap each thread's registers (@launch(1024): 64), and
 * the spills are that cap's (a user's cross-entropy row at 1024 threads was told "no
 * register cap from @launch"). */
Test(report, spills_under_a_thread_count_cap_name_the_cap) {
  const char *src = "@launch(1024)\n"
                    "kernel k(X: tensor<f32>[1024], Y: tensor<f32>[1024]) {\n"
                    "  Y[0 :+ 1024] = X[0 :+ 1024] * 2.0\n"
                    "}\n";
  char *w = warnings_of(src, 64, 56, 64, 72);
  cr_assert(strstr(w, "has a 56-byte stack frame (ptxas) for its register spills (64 bytes stored, 72 loaded): "
                      "@launch(1024) holds each thread to 64 registers (65536 an SM over 1024 threads)"), "%s", w);
  cr_assert(strstr(w, "spills (64 bytes stored, 72 loaded) with 64 registers per thread: @launch(1024) holds each "
                      "thread to 64 (65536 registers an SM over 1024 threads)"), "%s", w);
  cr_assert_null(strstr(w, "no register cap"), "%s", w);
  free(w);
  /* at 256 threads the cap is 256, past the 255 a thread can have: none */
  const char *src256 = "@launch(256)\n"
                       "kernel k(X: tensor<f32>[256], Y: tensor<f32>[256]) {\n"
                       "  Y[0 :+ 256] = X[0 :+ 256] * 2.0\n"
                       "}\n";
  w = warnings_of(src256, 255, 24, 8, 8);
  cr_assert(strstr(w, "no register cap from @launch"), "%s", w);
  free(w);
}

/* A kernel that calls sin() or cos() has a frame of about 32 bytes without spills: their
 * reduction of a large argument's array. No warning for it (nothing could act on it); a
 * larger frame, or one with spills, is warned as before. */
Test(report, the_frame_of_sin_and_cos_is_no_warning) {
  const char *src = "@launch(128)\n"
                    "kernel k(X: tensor<f32>[128], Y: tensor<f32>[128]) {\n"
                    "  Y[0 :+ 128] = sin(X[0 :+ 128]) + cos(X[0 :+ 128])\n"
                    "}\n";
  char *w = warnings_of(src, 32, 32, 0, 0);
  cr_assert_str_eq(w, "");
  free(w);
  w = warnings_of(src, 32, 96, 0, 0);
  cr_assert(strstr(w, "has a 96-byte stack frame (ptxas) and no spills at 32 registers per thread"), "%s", w);
  free(w);
  w = warnings_of(src, 255, 32, 8, 8);
  cr_assert(strstr(w, "for its register spills (8 bytes stored, 8 loaded)"), "%s", w);
  free(w);
}
