/* checks.h: what the CPU backend's test drivers (driver.c, hopper.c) share: the
 * failure count, and the checks that a launch succeeded or failed with the
 * expected message. Included once by each driver. */
#ifndef T2C_TESTS_SIM_CHECKS_H
#define T2C_TESTS_SIM_CHECKS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ERRLEN = 4096 };

static int failures, checks;

static void fail(const char *test, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *test, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL %s: ", test);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  failures++;
}

static int expect_ok(const char *test, int rc, const char *err) {
  checks++;
  if (rc != 0) fail(test, "launch failed: %s", err);
  return rc == 0;
}

/* The launch must fail, and its message must contain every given string (NULL-terminated). */
static void expect_err(const char *test, int rc, const char *err, ...) {
  va_list ap;
  checks++;
  if (rc == 0) {
    fail(test, "launch succeeded, but should have failed");
    return;
  }
  if (getenv("SIM_VERBOSE")) printf("ok %s: %s\n", test, err);
  va_start(ap, err);
  for (const char *s; (s = va_arg(ap, const char *));)
    if (!strstr(err, s)) {
      fail(test, "message lacks \"%s\":\n  %s", s, err);
      break;
    }
  va_end(ap);
}

#endif
