/* fsafe.c: the checks that keep compiled code from being swapped by another user.
 *
 * A directory is private when it is a real directory (not a symbolic link)
 * of uid that group and others cannot write, and every directory above it,
 * after symbolic links are resolved, belongs to root or uid and is not
 * writable by group or others unless sticky (like /tmp, where others cannot
 * rename or delete what they do not own). A file is private when it is a
 * regular file of uid that group and others cannot write; it is opened with
 * O_NOFOLLOW and checked through the descriptor (fstat), so what was checked
 * is what is read, and the caller keeps reading (or dlopens) that
 * descriptor. The CPU backend (rt/sim/simrun.c), the NVRTC cache
 * (nvrtc_driver/cache.c) and `tile2cu run` (translator/run.c) all use these.
 */
#include "fsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Whether st (a directory above a private one) can be changed only by root
 * or uid: owned by one of them, and writable by group or others only when
 * sticky (like /tmp), where others cannot rename or delete what they do not own. */
static bool trusted_parent(const struct stat *st, uid_t uid) {
  return (st->st_uid == 0 || st->st_uid == uid) && (!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

int fsafe_dir_check(const char *dir, uid_t uid, bool fix, char *err, size_t errlen) {
  struct stat st;
  if (lstat(dir, &st) != 0) {
    seterr(err, errlen, "%s: %s", dir, strerror(errno));
    return 1;
  }
  if (S_ISLNK(st.st_mode)) {
    seterr(err, errlen, "%s is a symbolic link; give the real directory", dir);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    seterr(err, errlen, "%s is not a directory", dir);
    return 1;
  }
  if (st.st_uid != uid) {
    seterr(err, errlen, "%s is owned by uid %u, not by uid %u", dir, (unsigned)st.st_uid, (unsigned)uid);
    return 1;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    if (!fix) {
      seterr(err, errlen, "%s is writable by group or others (mode %04o); chmod go-w it", dir,
             (unsigned)(st.st_mode & 07777));
      return 1;
    }
    if (chmod(dir, 0700) != 0) {
      seterr(err, errlen, "%s is writable by group or others and cannot be made 0700: %s", dir, strerror(errno));
      return 1;
    }
    fprintf(stderr, "tile2cu: %s was writable by group or others (mode %04o); it is now 0700\n", dir,
            (unsigned)(st.st_mode & 07777));
  }
  char real[PATH_MAX];
  if (!realpath(dir, real)) {
    seterr(err, errlen, "%s: %s", dir, strerror(errno));
    return 1;
  }
  for (char *slash = strrchr(real, '/'); slash; slash = strrchr(real, '/')) {
    slash[slash == real] = 0; /* the parent; "/" stays "/" */
    if (stat(real, &st) != 0) {
      seterr(err, errlen, "%s: %s", real, strerror(errno));
      return 1;
    }
    if (!trusted_parent(&st, uid)) {
      seterr(err, errlen, "%s is below %s, which %s", dir, real,
             st.st_uid != 0 && st.st_uid != uid ? "another user owns" : "group or others may write");
      return 1;
    }
    if (slash == real) break;
  }
  return 0;
}

int fsafe_cache_check(const char *root, const char *sub, uid_t uid, char *err, size_t errlen) {
  struct stat st;
  char path[4200];
  /* the root is the cache's own when uid owns it; otherwise (/tmp, say) it
   * only has to be a trusted parent of sub */
  if (lstat(root, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid && fsafe_dir_check(root, uid, true, err, errlen))
    return 1;
  snprintf(path, sizeof path, "%s/%s", root, sub);
  return fsafe_dir_check(path, uid, true, err, errlen);
}

int fsafe_open(const char *path, uid_t uid, bool *suspicious, char *err, size_t errlen) {
  *suspicious = false;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    struct stat st;
    if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
      *suspicious = true;
      seterr(err, errlen, "%s is a symbolic link", path);
    } else {
      seterr(err, errlen, "%s: %s", path, strerror(e));
    }
    errno = e;
    return -1;
  }
  struct stat st;
  const char *why = NULL;
  char buf[96];
  bool statted = fstat(fd, &st) == 0;
  if (!statted) {
    snprintf(buf, sizeof buf, "unreadable: %s", strerror(errno));
    why = buf;
  } else if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else if (st.st_uid != uid) {
    snprintf(buf, sizeof buf, "owned by uid %u, not by uid %u", (unsigned)st.st_uid, (unsigned)uid);
    why = buf;
  } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(buf, sizeof buf, "writable by group or others (mode %04o)", (unsigned)(st.st_mode & 07777));
    why = buf;
  }
  *suspicious = statted && why; /* it exists, and is not what was written here */
  if (why) {
    seterr(err, errlen, "%s is %s", path, why);
    close(fd);
    errno = EPERM;
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}
