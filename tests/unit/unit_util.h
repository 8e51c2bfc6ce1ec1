/* unit_util.h: helpers shared by the Criterion tests that run tile2cu itself
 * (include after criterion.h and t2c.h). */
#ifndef UNIT_UTIL_H
#define UNIT_UTIL_H

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* build/tile2cu: next to this test binary (make unit builds both). */
static inline void unit_tile2cu_path(char *out, size_t n) {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  cr_assert_gt(len, 0);
  exe[len] = 0;
  snprintf(out, n, "%s/tile2cu", dirname(exe));
  cr_assert_eq(access(out, X_OK), 0, "%s is not built (make all)", out);
}

/* fn(argc, argv) (run_main, compile_main, report_main) with its stderr
 * captured into msg. */
static inline int unit_verb_main(int (*fn)(int, char **), int argc, char **argv, char *msg, size_t n) {
  char log[] = "/tmp/t2c-unit-stderr-XXXXXX";
  int fd = mkstemp(log);
  cr_assert_geq(fd, 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  close(fd);
  int st = fn(argc, argv);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(log, "r");
  cr_assert_not_null(f);
  size_t got = fread(msg, 1, n - 1, f);
  fclose(f);
  msg[got] = 0;
  unlink(log);
  return st;
}

/* run_main(argc, argv) (`tile2cu run`) with its stderr captured into msg. */
static inline int unit_run_main(int argc, char **argv, char *msg, size_t n) {
  return unit_verb_main(run_main, argc, argv, msg, n);
}

#endif /* UNIT_UTIL_H */
