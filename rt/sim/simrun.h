/* simrun.h: build and run a sim-mode .cu on the CPU (C11).
 *
 * sim_build compiles a .cu emitted by `tile2cu --sim` with the host C++
 * compiler (${CXX:-g++}) into a shared object, linked with the runtime
 * (runtime.cpp, compiled once and cached next to the shared object).
 * sim_run loads that object and runs one launch through t2c_sim_launch.
 * Both return 0 on success, or nonzero with a message in err. Neither
 * builds in nor loads from a directory or file another user could change
 * (priv_dir_check, priv_open).
 */
#ifndef SIMRUN_H
#define SIMRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "t2c_sim_api.h"

/* rt_dir holds tile2cu/rt.cuh; sim_dir holds tile2cu_sim.h and runtime.cpp.
 * The CUDA headers come from $CUDA_HOME/include (default /usr/local/cuda). */
int sim_build(const char *cu_path, const char *so_path, const char *rt_dir, const char *sim_dir,
              char *err, size_t errlen);
int sim_run(const char *so_path, const T2cSimLaunch *l, char *err, size_t errlen);

/* ---- private files: where compiled code is cached and loaded from (the
 * CPU backend's objects, the NVRTC cache). uid is the user who must own
 * them, geteuid() but for tests. */

/* 0 when dir is a directory (not a symbolic link) owned by uid that group
 * and others cannot write, below directories (after resolving symbolic
 * links) owned by root or uid that group and others cannot write unless
 * they are sticky, like /tmp. When fix is set, a directory that uid owns
 * but group or others may write is made 0700 (with a note on stderr).
 * Otherwise 1 with the reason in err. */
int priv_dir_check(const char *dir, uid_t uid, bool fix, char *err, size_t errlen);
/* The cache directory root/sub (the NVRTC cache's nvrtc/, the CPU
 * backend's sim/), both existing: root is made 0700 like sub when uid owns
 * it, then priv_dir_check(root/sub, uid, true). 0, or 1 with err. */
int priv_cache_check(const char *root, const char *sub, uid_t uid, char *err, size_t errlen);
/* Opens a file for reading only when it is not a symbolic link, is a regular
 * file, is owned by uid and cannot be written by group or others; returns
 * the descriptor, or -1 with the reason in err and *suspicious set when the
 * file exists but fails a check (errno ENOENT when it does not exist). */
int priv_open(const char *path, uid_t uid, bool *suspicious, char *err, size_t errlen);

#endif /* SIMRUN_H */
