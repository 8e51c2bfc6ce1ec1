/* test_run_args.c: `tile2cu run` refuses malformed --grid arguments before
 * doing anything (exit status 2, one message on stderr). Runs from the repo
 * root. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tile2cu.h"

/* run_main(argv) with stderr captured into msg. */
static int ra_run(char **argv, int argc, char *msg, size_t n) {
  char log[] = "/tmp/t2c-run-args-XXXXXX";
  int fd = mkstemp(log);
  cr_assert_geq(fd, 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  close(fd);
  int st = run_main(argc, argv);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(log, "r");
  size_t got = fread(msg, 1, n - 1, f);
  fclose(f);
  msg[got] = 0;
  unlink(log);
  return st;
}

Test(run_args, grid_longer_than_its_buffer_is_refused_not_truncated) {
  /* 200 zeros then 7: truncated to its first 127 bytes it would read as 0 */
  char g[256];
  memset(g, '0', 200);
  snprintf(g + 200, sizeof g - 200, "7");
  char *argv[] = {"run", "examples/squares.tl", "--kernel", "squares", "--backend", "sim", "--grid", g, "K=5", NULL};
  char msg[1024];
  int st = ra_run(argv, 9, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "tile2cu run: --grid takes X[,Y[,Z]] of positive integers"), "%s", msg);
}

Test(run_args, grid_with_four_parts_is_refused) {
  char *argv[] = {"run", "examples/squares.tl", "--kernel", "squares", "--backend", "sim", "--grid", "1,1,1,1", "K=5", NULL};
  char msg[1024];
  int st = ra_run(argv, 9, msg, sizeof msg);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "not '1,1,1,1'"), "%s", msg);
}
