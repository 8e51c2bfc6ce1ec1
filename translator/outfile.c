/* outfile.c: output files written atomically.
 *
 * The text goes to a temporary file in the target's directory (PATH.tmpXXXXXX),
 * which is renamed over PATH once complete. An error leaves PATH as it was and
 * no temporary behind. So does a fatal signal once outfile_catch_signals() has
 * run (the command line does, a library never): the handler removes the
 * temporary being written, then re-raises the signal with its default action.
 * The handler only calls unlink() and raise(), and the path it reads is kept
 * in a static buffer that changes only while those signals are blocked.
 */
#include "t2c.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double outfile_pause_before_rename;

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
#define NFATAL ((int)(sizeof fatal_signals / sizeof *fatal_signals))

static char pending[PATH_MAX + 16];    /* the temporary being written */
static volatile sig_atomic_t has_pending;

/* Other files of this process that a fatal signal removes (tile2cu run's
 * generated .cu and .so): outfile_remove_on_signal / outfile_forget. */
#define NEXTRA 4
static char extra[NEXTRA][PATH_MAX + 16];
static volatile sig_atomic_t extra_used[NEXTRA];

static void on_fatal(int sig) {
  if (has_pending)
    unlink(pending);
  has_pending = 0;
  for (int i = 0; i < NEXTRA; i++)
    if (extra_used[i]) unlink(extra[i]);
  raise(sig); /* SA_RESETHAND: the default action, once this handler returns */
}

void outfile_catch_signals(void) {
  for (int i = 0; i < NFATAL; i++) {
    struct sigaction old, sa;
    if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
      continue; /* an ignored signal stays ignored */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(fatal_signals[i], &sa, NULL);
  }
}

static void block_fatal(sigset_t *old) {
  sigset_t s;
  sigemptyset(&s);
  for (int i = 0; i < NFATAL; i++)
    sigaddset(&s, fatal_signals[i]);
  sigprocmask(SIG_BLOCK, &s, old);
}

int outfile_remove_on_signal(const char *path) {
  if (strlen(path) >= sizeof extra[0]) return -1;
  sigset_t old;
  block_fatal(&old);
  int slot = -1;
  for (int i = 0; i < NEXTRA && slot < 0; i++)
    if (!extra_used[i]) {
      strcpy(extra[i], path);
      extra_used[i] = 1;
      slot = i;
    }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return slot;
}

void outfile_forget(int slot) {
  if (slot < 0 || slot >= NEXTRA) return;
  sigset_t old;
  block_fatal(&old);
  extra_used[slot] = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Removes the temporary (an error path); errno is kept. */
static void drop_pending(void) {
  int e = errno;
  sigset_t old;
  block_fatal(&old);
  if (has_pending)
    unlink(pending);
  has_pending = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  errno = e;
}

static int fail(char *err, size_t n, const char *what, const char *path) {
  snprintf(err, n, "cannot %s %s: %s", what, path, strerror(errno));
  drop_pending();
  return -1;
}

int outfile_write(const char *path, const void *data, size_t len, char *err, size_t n) {
  static const char suffix[] = ".tmpXXXXXX";
  size_t plen = strlen(path);
  if (plen + sizeof suffix > sizeof pending) {
    snprintf(err, n, "cannot write %.64s...: the path is too long", path);
    return -1;
  }
  sigset_t old;
  block_fatal(&old);
  memcpy(pending, path, plen);
  memcpy(pending + plen, suffix, sizeof suffix);
  int fd = mkstemp(pending);
  has_pending = fd >= 0;
  int e = errno;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) {
    errno = e;
    return fail(err, n, "create a temporary file for", path);
  }
  const char *c = data;
  for (size_t done = 0; done < len;) {
    ssize_t w = write(fd, c + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = EIO;
      e = errno;
      close(fd);
      errno = e;
      return fail(err, n, "write", path);
    }
    done += (size_t)w;
  }
  (void)fchmod(fd, 0644); /* as a plain new file would be; mkstemp makes it 0600 */
  if (close(fd) != 0)
    return fail(err, n, "write", path);
  if (outfile_pause_before_rename > 0) {
    double s = outfile_pause_before_rename;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
  block_fatal(&old);
  int r = rename(pending, path);
  e = errno;
  if (r == 0)
    has_pending = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  errno = e;
  return r == 0 ? 0 : fail(err, n, "write", path);
}
