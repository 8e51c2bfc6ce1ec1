/* cpu.c: t2c_cpu_launch, a kernel on host memory through the CPU backend.
 *
 * What `tile2cu run --backend sim` does, as a library call that takes host
 * pointers instead of .npy files (docs/nvrtc.md, "The CPU backend"):
 *
 *   1. the program's last translation again, in sim mode (tr_translate_sim);
 *   2. the CPU backend's sources, embedded in the library (rt.cuh,
 *      tile2cu_sim.h, runtime.cpp, t2c_sim_api.h), written once into
 *      <cache dir>/sim/rt-HASH/, so the library needs no source tree;
 *   3. the sim CUDA built with sim_build (rt/sim/simrun.c) into
 *      <cache dir>/sim/k-KEY.so, KEY the SHA-256 of the tile2cu version, the
 *      sim CUDA, the sources' directory, $CXX and $CUDA_HOME: a second
 *      launch of the same translation, in this process or another, builds
 *      nothing. With TILE2CU_CACHE=0 the object is private to the program
 *      (named after the process and the program) and removed with it;
 *   4. the arguments checked (ranks and dims against the declaration and
 *      the sizes, then sizes, @assume and @grid by tr_launch_shape) and the
 *      launch run by sim_run, which loads the object only after the private-
 *      file checks of common/fsafe.c.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsafe.h"
#include "../rt/sim/simrun.h"
#include "simsrc.h"
#include "templates.h"

void cpu_forget(t2c_program *p) {
  if (p->sim_so && !cache_enabled()) unlink(p->sim_so);
  free(p->sim_so);
  p->sim_so = NULL;
}

/* ------------------------------------------------------------ the backend's sources */

static const struct { const char *path; const char *text; } sim_sources[] = {
    {"tile2cu/rt.cuh", embedded_rt_cuh},
    {"tile2cu_sim.h", embedded_tile2cu_sim_h},
    {"runtime.cpp", embedded_runtime_cpp},
    {"t2c_sim_api.h", embedded_t2c_sim_api_h},
};
enum { NSOURCES = sizeof sim_sources / sizeof *sim_sources };

/* Whether path holds exactly text (a private file of this user). */
static bool file_holds(const char *path, const char *text) {
  bool suspicious;
  char why[256];
  int fd = fsafe_open(path, geteuid(), &suspicious, why, sizeof why);
  if (fd < 0) return false;
  size_t n = strlen(text), at = 0;
  char buf[65536];
  bool same = true;
  ssize_t k;
  while (same && (k = read(fd, buf, sizeof buf)) != 0) {
    if (k < 0 && errno == EINTR) continue;
    same = k > 0 && at + (size_t)k <= n && memcmp(buf, text + at, (size_t)k) == 0;
    at += k > 0 ? (size_t)k : 0;
  }
  close(fd);
  return same && at == n;
}

/* Writes text to path through a temporary file renamed into place. */
static t2c_status write_file(const char *path, const char *text) {
  char tmp[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%s.%ld.%llu.tmp", path, (long)getpid(), sim_tmp_serial());
  unlink(tmp);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return drv_fail(T2C_ERROR_IO, "cannot write %s: %s", tmp, strerror(errno));
  size_t n = strlen(text), at = 0;
  while (at < n) {
    ssize_t k = write(fd, text + at, n - at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    at += (size_t)k;
  }
  bool ok = at == n && close(fd) == 0;
  if (at != n) close(fd);
  if (!ok || rename(tmp, path) != 0) {
    t2c_status s = drv_fail(T2C_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
    unlink(tmp);
    return s;
  }
  return T2C_SUCCESS;
}

/* <root>/sim, created and checked private. */
static t2c_status sim_dir(char *dir, size_t n) {
  char root[PATH_MAX], why[PATH_MAX + 200];
  tr_cache_root(root, sizeof root);
  snprintf(dir, n, "%.*s/sim", (int)n - 8, root);
  if (tr_cache_mkdirs(dir) != 0) return drv_fail(T2C_ERROR_IO, "cannot create %s: %s", dir, strerror(errno));
  if (fsafe_cache_check(root, "sim", geteuid(), why, sizeof why))
    return drv_fail(T2C_ERROR_IO, "unsafe cache directory: %s (set TILE2CU_CACHE_DIR to a private directory)", why);
  return T2C_SUCCESS;
}

/* The directory holding the backend's sources (tile2cu/rt.cuh and the
 * rest), written when missing or different. */
static t2c_status sources_dir(const char *sim, char *dir, size_t n) {
  const char *parts[NSOURCES];
  size_t lens[NSOURCES];
  for (int i = 0; i < NSOURCES; i++) {
    parts[i] = sim_sources[i].text;
    lens[i] = strlen(parts[i]);
  }
  char hex[65], path[PATH_MAX + 64], why[PATH_MAX + 200];
  cache_key(parts, lens, NSOURCES, hex);
  snprintf(dir, n, "%.*s/rt-%.16s", PATH_MAX - 64, sim, hex);
  snprintf(path, sizeof path, "%.*s/tile2cu", PATH_MAX, dir);
  if (tr_cache_mkdirs(path) != 0) return drv_fail(T2C_ERROR_IO, "cannot create %s: %s", path, strerror(errno));
  if (fsafe_dir_check(dir, geteuid(), true, why, sizeof why) || fsafe_dir_check(path, geteuid(), true, why, sizeof why))
    return drv_fail(T2C_ERROR_IO, "unsafe cache directory: %s", why);
  for (int i = 0; i < NSOURCES; i++) {
    snprintf(path, sizeof path, "%.*s/%s", PATH_MAX, dir, sim_sources[i].path);
    t2c_status s = file_holds(path, sim_sources[i].text) ? T2C_SUCCESS : write_file(path, sim_sources[i].text);
    if (s) return s;
  }
  return T2C_SUCCESS;
}

/* ------------------------------------------------------------ building */

/* The shared object's path for this sim CUDA. */
static void object_path(const t2c_program *p, const char *sim, const char *src, const char *cuda, char *out,
                        size_t n) {
  static unsigned long long serial;
  if (!cache_enabled()) {
    snprintf(out, n, "%s/p-%ld-%p-%llu.so", sim, (long)getpid(), (const void *)p,
             __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
    return;
  }
  const char *cxx = getenv("CXX"), *cuda_home = getenv("CUDA_HOME");
  char ver[64];
  snprintf(ver, sizeof ver, "tile2cu %s sim", tr_version());
  const char *parts[] = {ver, src, cxx ? cxx : "", cuda_home ? cuda_home : "", cuda};
  enum { NPARTS = sizeof parts / sizeof *parts };
  size_t lens[NPARTS];
  for (int i = 0; i < NPARTS; i++) lens[i] = strlen(parts[i]);
  char hex[65];
  cache_key(parts, lens, NPARTS, hex);
  snprintf(out, n, "%s/k-%s.so", sim, hex);
}

/* Builds (or finds) the shared object of p's last translation. */
static t2c_status cpu_build(t2c_program *p) {
  if (p->sim_so) return T2C_SUCCESS;
  char sim[PATH_MAX], src[PATH_MAX + 64], so[PATH_MAX + 200], cu[PATH_MAX + 240], err[8192];
  t2c_status s = sim_dir(sim, sizeof sim);
  if (!s) s = sources_dir(sim, src, sizeof src);
  if (s) return s;
  char *cuda = NULL;
  const char *const *args = (const char *const *)p->args;
  int st = tr_translate_sim(p->name, p->source, p->target, args, p->nargs, &cuda);
  if (st < 0) return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  if (st > 0) return drv_fail(T2C_ERROR_TRANSLATE, "%s: the sim-mode translation failed", p->name);
  object_path(p, sim, src, cuda, so, sizeof so);
  bool suspicious;
  int fd = cache_enabled() ? fsafe_open(so, geteuid(), &suspicious, err, sizeof err) : -1;
  if (fd >= 0) { /* built before; sim_run checks it again when it loads it */
    close(fd);
    free(cuda);
    return (p->sim_so = strdup(so)) ? T2C_SUCCESS : drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  snprintf(cu, sizeof cu, "%s.%ld.%llu.cu", so, (long)getpid(), sim_tmp_serial());
  s = write_file(cu, cuda);
  free(cuda);
  if (s) return s;
  st = sim_build(cu, so, src, src, err, sizeof err);
  unlink(cu);
  if (st) return drv_fail(T2C_ERROR_CPU, "building %s for the CPU backend failed: %s", p->name, err);
  return (p->sim_so = strdup(so)) ? T2C_SUCCESS : drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
}

/* ------------------------------------------------------------ arguments */

/* The value of size name `name` among the launch's sizes. */
static long long size_value(const t2c_program *p, int k, const TrKernelFacts *f, void **args, const char *name) {
  for (int j = 0; j < f->nsizes; j++)
    if (strcmp(tr_kernel_size(p->prog, k, j), name) == 0) return *(const int *)args[f->nparams + j];
  return -1;
}

/* Checks tensor parameter i's host tensor and describes it for the backend;
 * strides: a @strided tensor's strides (NULL: row-major), whose view must then
 * lie in the elements data holds (1 + sum of (dim - 1) * stride). */
static t2c_status bind_tensor(const t2c_program *p, int k, const TrKernelFacts *f, void **args, int i,
                              const long long *strides, T2cSimTensor *t) {
  TrParam q;
  tr_kernel_param(p->prog, k, i, &q);
  const t2c_host_tensor *h = args[i];
  if (h->rank != q.rank || (!h->shape && h->rank))
    return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: tensor %s has %d dims, but %d were given", f->name, q.name,
                    q.rank, h->rank);
  unsigned long long nelems = 1;
  for (int d = 0; d < q.rank; d++) {
    long long want = q.dim_size[d] ? size_value(p, k, f, args, q.dim_size[d]) : q.dim_const[d];
    if (h->shape[d] != want) {
      if (q.dim_size[d])
        return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: dim %d of tensor %s is %lld, but size %s is %lld", f->name,
                        d, q.name, h->shape[d], q.dim_size[d], want);
      return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: dim %d of tensor %s is %lld, but the kernel declares %lld",
                      f->name, d, q.name, h->shape[d], want);
    }
    if (__builtin_mul_overflow(nelems, (unsigned long long)want, &nelems) || nelems > (unsigned long long)LLONG_MAX)
      return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: tensor %s is too large", f->name, q.name);
  }
  if (!h->data && nelems) return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: tensor %s has no data", f->name, q.name);
  if (strides && nelems) { /* the view's extent in its buffer */
    unsigned long long ext = 1;
    for (int d = 0; d < q.rank; d++) {
      unsigned long long span;
      if (strides[d] < 0)
        return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: stride %d of tensor %s is %lld; strides are >= 0", f->name,
                        d, q.name, strides[d]);
      if (__builtin_mul_overflow((unsigned long long)(h->shape[d] - 1), (unsigned long long)strides[d], &span) ||
          __builtin_add_overflow(ext, span, &ext) || ext > (unsigned long long)LLONG_MAX)
        return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: tensor %s's view is too large", f->name, q.name);
    }
    nelems = ext;
  }
  *t = (T2cSimTensor){h->data, (long long)nelems, q.elem_bytes, q.name, h->rank, h->shape, strides};
  return T2C_SUCCESS;
}

/* The backend's arguments: tensors as T2cSimTensor, the rest as given. */
static t2c_status bind_args(const t2c_program *p, int k, const TrKernelFacts *f, void **args, void **sim_args,
                            T2cSimTensor *tens, long long *stride_vals, const T2cSimTensor **outs, int *nout) {
  *nout = 0;
  for (int i = 0; i < f->nparams + f->nsizes + f->nstrides; i++) {
    if (!args[i]) return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: argument %d is NULL", f->name, i);
    sim_args[i] = args[i];
  }
  for (int i = 0; i < f->nsizes; i++)
    if (*(const int *)args[f->nparams + i] < 1)
      return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: size %s is %d; sizes are at least 1", f->name,
                      tr_kernel_size(p->prog, k, i), *(const int *)args[f->nparams + i]);
  /* the strides follow the sizes, rank of them per @strided tensor in parameter order */
  for (int i = 0, st = f->nparams + f->nsizes; i < f->nparams; i++) {
    TrParam q;
    tr_kernel_param(p->prog, k, i, &q);
    if (!q.tensor) continue;
    long long *strides = NULL;
    if (q.strided) {
      strides = &stride_vals[st - f->nparams - f->nsizes];
      for (int d = 0; d < q.rank; d++, st++) strides[d] = *(const long long *)args[st];
    }
    t2c_status s = bind_tensor(p, k, f, args, i, strides, &tens[i]);
    if (s) return s;
    sim_args[i] = &tens[i];
    if (q.written) outs[(*nout)++] = &tens[i];
  }
  return T2C_SUCCESS;
}

/* The status of a launch check (tr_launch_shape), as module.c maps it. */
static t2c_status shape_status(TrLaunch r) {
  switch (r) {
  case TR_LAUNCH_OK: return T2C_SUCCESS;
  case TR_LAUNCH_BAD_SIZE: return T2C_ERROR_INVALID_VALUE;
  case TR_LAUNCH_ASSUME: return T2C_ERROR_ASSUME;
  case TR_LAUNCH_BAD_GRID: return T2C_ERROR_GRID;
  case TR_LAUNCH_NO_MEMORY: return T2C_ERROR_OUT_OF_MEMORY;
  }
  return T2C_ERROR_INVALID_VALUE;
}

static t2c_status cpu_run(t2c_program *p, int k, const TrKernelFacts *f, void **args, const t2c_cpu_options *o) {
  int n = f->nparams + f->nsizes + f->nstrides;
  void **sim_args = calloc((size_t)n + 1, sizeof *sim_args);
  T2cSimTensor *tens = calloc((size_t)f->nparams + 1, sizeof *tens);
  long long *stride_vals = calloc((size_t)f->nstrides + 1, sizeof *stride_vals);
  const T2cSimTensor **outs = calloc((size_t)f->nparams + 1, sizeof *outs);
  int nout = 0;
  t2c_status s = sim_args && tens && outs && stride_vals ? T2C_SUCCESS : drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  if (!s) s = bind_args(p, k, f, args, sim_args, tens, stride_vals, outs, &nout);
  bool given = o && (o->grid[0] || o->grid[1] || o->grid[2]);
  unsigned grid[3];
  char err[4096];
  if (!s) {
    TrLaunch r = tr_launch_shape(p->prog, k, sim_args, given ? NULL : grid, err, sizeof err);
    if (r != TR_LAUNCH_OK) s = drv_fail(shape_status(r), "%s", err);
  }
  for (int d = 0; given && d < 3; d++) grid[d] = o->grid[d] ? o->grid[d] : 1;
  if (!s) s = cpu_build(p);
  if (!s) {
    T2cSimLaunch l = {f->name, {grid[0], grid[1], grid[2]}, (unsigned)f->threads,
                      f->dynamic_smem ? (size_t)f->shared_bytes : 0, sim_args, n, outs, nout,
                      o && o->schedules > 0 ? o->schedules : 1};
    if (sim_run(p->sim_so, &l, err, sizeof err)) s = drv_fail(T2C_ERROR_CPU, "kernel %s: %s", f->name, err);
  }
  free(sim_args);
  free(tens);
  free(stride_vals);
  free(outs);
  return s;
}

t2c_status t2c_cpu_launch(t2c_program *p, const char *kernel, void **args, const t2c_cpu_options *o) {
  if (!p || !kernel) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_cpu_launch: NULL argument");
  if (!p->translated_ok) return drv_fail(T2C_ERROR_TRANSLATE, "%s: errors in the .tl source", p->name);
  int k = program_kernel(p, kernel);
  if (k < 0) return drv_fail(T2C_ERROR_NOT_FOUND, "%s has no kernel '%s'", p->name, kernel);
  TrKernelFacts f;
  tr_kernel_facts(p->prog, k, &f);
  if (!args && f.nparams + f.nsizes + f.nstrides) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_cpu_launch: no arguments");
  if (o && (o->schedules < 0 || o->schedules > 1000))
    return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_cpu_launch: schedules is 1 to 1000 (0: 1), not %d", o->schedules);
  return cpu_run(p, k, &f, args, o);
}
