/* simrun.h: build and run a sim-mode .cu on the CPU (C11).
 *
 * sim_build compiles a .cu emitted by `tile2cu --sim` with the host C++
 * compiler (${CXX:-g++}) into a shared object, linked with the runtime
 * (runtime.cpp, compiled once and cached next to the shared object).
 * sim_run loads that object and runs one launch through t2c_sim_launch.
 * Both return 0 on success, or nonzero with a message in err. Neither
 * builds in nor loads from a directory or file another user could change
 * (fsafe_dir_check, fsafe_open in common/fsafe.h).
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
/* sim_build_kept: as sim_build, but the object is kept in so_path's
 * directory, named after a hash of what it is built from (the .cu, the
 * runtime's sources and the compiler command) and of its own bytes, and
 * so_path becomes a link to it: a second build of the same .cu compiles
 * nothing. The SIM_KEPT_KERNELS most recently used are kept. */
enum { SIM_KEPT_KERNELS = 256 };
int sim_build_kept(const char *cu_path, const char *so_path, const char *rt_dir, const char *sim_dir,
                   char *err, size_t errlen);
int sim_run(const char *so_path, const T2cSimLaunch *l, char *err, size_t errlen);
/* A serial for temporary names no other thread or process uses at once (with the process
 * id: libtile2cu builds from several threads at the same time; a pid alone was shared). */
unsigned long long sim_tmp_serial(void);

#endif /* SIMRUN_H */
