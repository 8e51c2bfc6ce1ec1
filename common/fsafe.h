/* fsafe.h: private files, where compiled code is cached and loaded from.
 *
 * Compiled code that tile2cu loads into a process (the CPU backend's shared
 * objects and runtime object, rt/sim/simrun.c; the NVRTC cache's cubins,
 * nvrtc_driver/cache.c; the cache directory of `tile2cu run`,
 * translator/run.c) must come from a place no other user can change. These
 * checks are the one definition of that, shared by all three. uid is the
 * user who must own the files: geteuid() but for tests. Each check returns
 * nonzero with the reason in err; none exits or prints but for a note when
 * it makes a directory private.
 */
#ifndef FSAFE_H
#define FSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* 0 when dir is a directory (not a symbolic link) owned by uid that group
 * and others cannot write, below directories (after resolving symbolic
 * links) owned by root or uid that group and others cannot write unless
 * they are sticky, like /tmp. When fix is set, a directory that uid owns
 * but group or others may write is made 0700 (with a note on stderr).
 * Otherwise 1 with the reason in err. */
int fsafe_dir_check(const char *dir, uid_t uid, bool fix, char *err, size_t errlen);
/* The cache directory root/sub (the NVRTC cache's nvrtc/, the CPU
 * backend's sim/), both existing: root is made 0700 like sub when uid owns
 * it, then fsafe_dir_check(root/sub, uid, true). 0, or 1 with err. */
int fsafe_cache_check(const char *root, const char *sub, uid_t uid, char *err, size_t errlen);
/* Opens a file for reading only when it is not a symbolic link, is a regular
 * file, is owned by uid and cannot be written by group or others; returns
 * the descriptor, or -1 with the reason in err and *suspicious set when the
 * file exists but fails a check (errno ENOENT when it does not exist). */
int fsafe_open(const char *path, uid_t uid, bool *suspicious, char *err, size_t errlen);

#endif /* FSAFE_H */
