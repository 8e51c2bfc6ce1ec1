/* run.c: `tile2cu run`, which runs one kernel of a .tl file on .npy data.
 *
 *   tile2cu run FILE.tl --kernel NAME [--backend sim|gpu] [--grid X,Y,Z]
 *               [--schedules N] [--target sm_XX] [-D NAME=VALUE] [-W...] NAME=VALUE ...
 *
 * The kernel is translated in sim mode, compiled with the host C++ compiler
 * and run on the CPU backend (rt/sim): the generated CUDA itself, every
 * thread a fiber. The compiled object is kept in the cache directory's sim/
 * (simrun.c's sim_build_kept), so running the same translation again
 * compiles nothing; TILE2CU_CACHE=0 builds a private one. Tensors are .npy files, read when they exist; tensors the
 * kernel stores to are written back. Sizes and scalars come from NAME=VALUE;
 * a size left out is inferred from the arrays. @grid gives the grid unless
 * --grid does, and every @assume is checked before the launch (launch.c).
 *
 * A tensor of @strided gets its strides: the row-major ones of its array, or,
 * with --stride X=S0,S1,..., those given: X's file is then the buffer the
 * view lies in (any shape, taken flat; written back whole), the view's shape
 * comes from the sizes, and every element of the view must lie inside it.
 *
 * --backend gpu runs the kernel on the CUDA device through libtile2cu (NVRTC
 * and the driver API) instead, and fails when there is no device. With no
 * --backend the device is used when there is one, otherwise the CPU backend;
 * the line printed on success says which ran.
 */
#include "t2c.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsafe.h"
#include "../nvrtc_driver/tile2cu.h"
#include "npy.h"
#include "simrun.h"

typedef struct RunOpts {
  const char *file, *kernel, *backend, *target;
  unsigned grid[3];
  bool has_grid;
  int schedules;
  char **binds;
  int nbinds;
  char **strides; /* --stride X=S0,S1,... as written */
  int nstrides;
  const char **opts; /* -D and -W options (options.c) */
  int nopts;
} RunOpts;

static int fail(const char *fmt_, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt_, ...) {
  va_list ap;
  va_start(ap, fmt_);
  fprintf(stderr, "tile2cu run: ");
  vfprintf(stderr, fmt_, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

/* ------------------------------------------------------------ arguments */

static const char *descr_of(ElemType t) {
  switch (t) {
  case T_F32: return "<f4";
  case T_F16: return "<f2";
  case T_BF16: return "<u2";
  case T_F64: return "<f8";
  case T_I8: return "|i1";
  case T_U8: return "|u1";
  case T_I32: return "<i4";
  case T_U32: return "<u4";
  case T_I64: return "<i8";
  case T_BOOL: return "|b1";
  case T_F8E4M3: case T_F8E5M2: return "|u1"; /* the bit patterns, as bf16's <u2 */
  default: return "?";
  }
}

static const char *find_bind(const RunOpts *o, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < o->nbinds; i++)
    if (strncmp(o->binds[i], name, n) == 0 && o->binds[i][n] == '=') return o->binds[i] + n + 1;
  return NULL;
}

static bool parse_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 0);
  if (errno || end == s || *end) return false;
  *out = v;
  return true;
}

/* The S0,S1,... of --stride NAME=..., or NULL. */
static const char *find_stride(const RunOpts *o, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < o->nstrides; i++)
    if (strncmp(o->strides[i], name, n) == 0 && o->strides[i][n] == '=') return o->strides[i] + n + 1;
  return NULL;
}

/* A strided view's strides and shape (shape[] is the view's; a->shape the buffer's). */
typedef struct View {
  long long shape[4], stride[4];
} View;

/* --stride of a tensor: rank non-negative integers. */
static int parse_strides(const Sym *X, const char *s, View *v) {
  char buf[256];
  int k = 0;
  if (strlen(s) >= sizeof buf) return fail("--stride %s=%.40s...: too long", X->name, s);
  snprintf(buf, sizeof buf, "%s", s);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","), k++) {
    int64_t x;
    if (k >= X->trank || !parse_int(t, &x) || x < 0)
      return fail("--stride %s=%s: expected %d non-negative integers (one per dim of %s)", X->name, s, X->trank, X->name);
    v->stride[k] = x;
  }
  if (k != X->trank)
    return fail("--stride %s=%s: expected %d non-negative integers (one per dim of %s)", X->name, s, X->trank, X->name);
  return 0;
}

/* Every --stride names a tensor of @strided. */
static int check_stride_opts(const RunOpts *o, const KernelInfo *ki) {
  for (int i = 0; i < o->nstrides; i++) {
    const Sym *X = NULL;
    for (int t = 0; t < ki->ntensors; t++) {
      size_t n = strlen(ki->tensors[t]->name);
      if (strncmp(o->strides[i], ki->tensors[t]->name, n) == 0 && o->strides[i][n] == '=') X = ki->tensors[t];
    }
    if (!X) return fail("--stride %s: expected NAME=S0,S1,... naming a tensor of kernel '%s'", o->strides[i], o->kernel);
    if (!X->tstride[0]) return fail("--stride %s: tensor %s is not in @strided of kernel '%s'", o->strides[i], X->name, o->kernel);
    if (find_stride(o, X->name) != o->strides[i] + strlen(X->name) + 1)
      return fail("--stride %s: tensor %s is given strides twice", o->strides[i], X->name);
  }
  return 0;
}

/* The views of the @strided tensors, once the sizes are known: the strides
 * given by --stride, or the row-major ones of the array. */
static int bind_views(const RunOpts *o, const KernelInfo *ki, const Npy *arrays, const int64_t *sizes, View *views) {
  for (int i = 0; i < ki->ntensors; i++) {
    const Sym *X = ki->tensors[i];
    if (!X->tstride[0]) continue;
    View *v = &views[i];
    for (int d = 0; d < X->trank; d++) {
      int si = 0;
      if (X->tdim_size[d])
        while (ki->sizes[si] != X->tdim_size[d]) si++;
      v->shape[d] = X->tdim_size[d] ? sizes[si] : X->tdim_const[d];
    }
    const char *s = find_stride(o, X->name);
    if (!s) {
      long long st = 1;
      for (int d = X->trank - 1; d >= 0; d--) v->stride[d] = st, st *= v->shape[d];
      continue;
    }
    if (parse_strides(X, s, v)) return 2;
    /* the last element of the view must lie in the buffer (strides are >= 0) */
    long double last = 0;
    for (int d = 0; d < X->trank; d++) last += (long double)(v->shape[d] - 1) * v->stride[d];
    long long n = npy_nelems(&arrays[i]);
    if (last >= (long double)n)
      return fail("--stride %s=%s: the view's last element is at index %.0Lf, but %s's file holds %lld elements", X->name,
                  s, last, X->name, n);
  }
  return 0;
}

/* Reads the tensors that exist, fixes the sizes, and checks every shape. */
static int bind_tensors(const RunOpts *o, const KernelInfo *ki, Npy *arrays, bool *exists, int64_t *sizes) {
  for (int i = 0; i < ki->nsizes; i++) {
    const char *v = find_bind(o, ki->sizes[i]->name);
    sizes[i] = -1;
    if (v && (!parse_int(v, &sizes[i]) || sizes[i] < 1))
      return fail("size %s=%s: expected a positive integer", ki->sizes[i]->name, v);
  }
  for (int i = 0; i < ki->ntensors; i++) {
    Sym *X = ki->tensors[i];
    const char *path = find_bind(o, X->name);
    if (!path) return fail("tensor %s needs a value: %s=FILE.npy", X->name, X->name);
    exists[i] = access(path, F_OK) == 0;
    if (!exists[i] && find_stride(o, X->name))
      return fail("%s: no such file; with --stride, %s's file is the buffer its view lies in", path, X->name);
    if (!exists[i]) {
      if (!X->written) return fail("%s: no such file, and kernel '%s' only reads tensor %s", path, o->kernel, X->name);
      continue;
    }
    char err[512];
    if (npy_read(path, &arrays[i], err, sizeof err)) return fail("%s", err);
    Npy *a = &arrays[i];
    /* bf16 and f8 as their bits (<u2, |u1), or as NumPy saves ml_dtypes' arrays (<V2, <V1):
     * written back with the dtype they came with */
    bool raw = (X->ty.elem == T_BF16 && (!strcmp(a->descr, "<V2") || !strcmp(a->descr, "|V2"))) ||
               ((X->ty.elem == T_F8E4M3 || X->ty.elem == T_F8E5M2) && (!strcmp(a->descr, "<V1") || !strcmp(a->descr, "|V1"))) ||
               (X->ty.elem == T_F8E5M2 && (!strcmp(a->descr, "<f1") || !strcmp(a->descr, "|f1"))); /* ml_dtypes' e5m2 */
    if (!raw && strcmp(a->descr, descr_of(X->ty.elem)) != 0)
      return fail("%s: dtype '%s', but tensor %s is %s (dtype '%s')", path, a->descr, X->name,
                  elem_names[X->ty.elem], descr_of(X->ty.elem));
    if (X->ty.elem == T_BOOL) /* a |b1 byte other than 0 and 1 is true, as numpy reads it (a C++ bool must be 0 or 1) */
      for (size_t j = 0; j < a->nbytes; j++) ((unsigned char *)a->data)[j] = ((unsigned char *)a->data)[j] != 0;
    if (find_stride(o, X->name)) continue; /* the buffer of a strided view: any shape */
    if (a->rank != X->trank)
      return fail("%s: %d dims, but tensor %s has %d", path, a->rank, X->name, X->trank);
    for (int d = 0; d < X->trank; d++) {
      if (!X->tdim_size[d]) {
        if (a->shape[d] != X->tdim_const[d])
          return fail("%s: dim %d is %lld, but tensor %s declares %lld", path, d, a->shape[d], X->name,
                      (long long)X->tdim_const[d]);
        continue;
      }
      int si = 0;
      while (ki->sizes[si] != X->tdim_size[d]) si++;
      /* an empty array: a size of 0, which no launch takes (t2c_launch, the --host launchers
       * and M=0 refuse it too), said here, where the tensor it came from is known */
      if (a->shape[d] == 0 && sizes[si] < 0)
        return fail("%s: dim %d is 0: tensor %s is empty, which makes size %s 0; sizes are from 1 to 2147483647",
                    path, d, X->name, ki->sizes[si]->name);
      if (sizes[si] < 0) sizes[si] = a->shape[d];
      else if (sizes[si] != a->shape[d])
        return fail("%s: dim %d is %lld, but size %s is %lld", path, d, a->shape[d], ki->sizes[si]->name,
                    (long long)sizes[si]);
    }
  }
  for (int i = 0; i < ki->nsizes; i++)
    if (sizes[i] < 0) return fail("size %s is not given and no input array fixes it: add %s=VALUE", ki->sizes[i]->name, ki->sizes[i]->name);
  /* outputs that do not exist yet: zeros of the declared shape */
  for (int i = 0; i < ki->ntensors; i++) {
    if (exists[i]) continue;
    Sym *X = ki->tensors[i];
    Npy *a = &arrays[i];
    snprintf(a->descr, sizeof a->descr, "%s", descr_of(X->ty.elem));
    a->rank = X->trank;
    for (int d = 0; d < X->trank; d++) {
      int si = 0;
      if (X->tdim_size[d])
        while (ki->sizes[si] != X->tdim_size[d]) si++;
      a->shape[d] = X->tdim_size[d] ? sizes[si] : X->tdim_const[d];
    }
    unsigned long long nb = (unsigned long long)elem_bytes[X->ty.elem];
    for (int d = 0; d < a->rank; d++)
      if (__builtin_mul_overflow(nb, (unsigned long long)a->shape[d], &nb) || nb > (unsigned long long)LLONG_MAX ||
          nb > SIZE_MAX)
        return fail("tensor %s: its shape is too large to allocate", X->name);
    a->nbytes = (size_t)nb;
    a->data = calloc(1, a->nbytes ? a->nbytes : 1);
    if (!a->data) return fail("out of memory for tensor %s", X->name);
  }
  return 0;
}

static int bind_scalar(const RunOpts *o, Sym *p, ScalarArg *v, double *dv) {
  const char *s = find_bind(o, p->name);
  if (!s) return fail("scalar %s needs a value: %s=VALUE", p->name, p->name);
  char err[512];
  if (!launch_scalar(p->ty.elem, p->name, s, v, dv, err, sizeof err)) return fail("%s", err);
  return 0;
}

/* ------------------------------------------------------------ paths */

static bool exe_dir(char *out, size_t n) {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return false;
  exe[len] = 0;
  snprintf(out, n, "%s", dirname(exe));
  return true;
}

/* rt_dir holds tile2cu/rt.cuh, sim_dir holds tile2cu_sim.h and runtime.cpp. */
static bool find_runtime(char *rt_dir, char *sim_dir, size_t n) {
  char dir[PATH_MAX], probe[PATH_MAX + 64];
  if (!exe_dir(dir, sizeof dir)) return false;
  const char *rt_c[] = {"/../rt", "/../include"}, *sim_c[] = {"/../rt/sim", "/../share/tile2cu/sim"};
  for (int i = 0; i < 2; i++) {
    snprintf(probe, sizeof probe, "%s%s/tile2cu/rt.cuh", dir, rt_c[i]);
    if (access(probe, R_OK) != 0) continue;
    snprintf(probe, sizeof probe, "%s%s/runtime.cpp", dir, sim_c[i]);
    if (access(probe, R_OK) != 0) continue;
    snprintf(rt_dir, n, "%s%s", dir, rt_c[i]);
    snprintf(sim_dir, n, "%s%s", dir, sim_c[i]);
    return true;
  }
  return false;
}

/* ------------------------------------------------------------ options */

static int parse_run_args(int argc, char **argv, RunOpts *o) {
  o->schedules = 3;
  o->binds = calloc((size_t)argc, sizeof *o->binds);
  o->opts = calloc((size_t)argc, sizeof *o->opts);
  o->strides = calloc((size_t)argc, sizeof *o->strides);
  if (!o->binds || !o->opts || !o->strides) return fail("out of memory");
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    bool val = i + 1 < argc;
    if (opts_take(argc, argv, &i, o->opts, &o->nopts)) continue;
    if (strcmp(s, "--kernel") == 0 && val) o->kernel = argv[++i];
    else if (strcmp(s, "--backend") == 0 && val) o->backend = argv[++i];
    else if (strcmp(s, "--target") == 0 && val) o->target = argv[++i];
    else if (strcmp(s, "--schedules") == 0 && val) {
      int64_t n;
      if (!parse_int(argv[++i], &n) || n < 1 || n > 1000) return fail("--schedules takes 1 to 1000");
      o->schedules = (int)n;
    } else if (strcmp(s, "--grid") == 0 && val) {
      const char *g = argv[++i];
      int64_t v[3] = {1, 1, 1};
      int k = 0;
      char buf[128];
      if (strlen(g) >= sizeof buf) return fail("--grid takes X[,Y[,Z]] of positive integers, not '%.40s...'", g);
      snprintf(buf, sizeof buf, "%s", g);
      for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","), k++)
        if (k >= 3 || !parse_int(t, &v[k]) || v[k] < 1 || v[k] > 0x7fffffff) return fail("--grid takes X[,Y[,Z]] of positive integers, not '%s'", g);
      if (k == 0) return fail("--grid takes X[,Y[,Z]]");
      for (int d = 0; d < 3; d++) o->grid[d] = (unsigned)v[d];
      o->has_grid = true;
    } else if (strcmp(s, "--stride") == 0 && val) {
      if (!strchr(argv[i + 1], '=')) return fail("--stride takes NAME=S0,S1,..., not '%s'", argv[i + 1]);
      o->strides[o->nstrides++] = argv[++i];
    } else if (strchr(s, '=') && s[0] != '-') o->binds[o->nbinds++] = argv[i];
    else if (s[0] == '-') return fail("unknown or incomplete option '%s'", s);
    else if (o->file) return fail("more than one .tl file ('%s')", s);
    else o->file = s;
  }
  if (!o->file) return fail("no .tl file (usage: tile2cu run FILE.tl --kernel NAME NAME=VALUE ...)");
  if (!o->kernel) return fail("--kernel NAME is required");
  if (o->backend && strcmp(o->backend, "sim") != 0 && strcmp(o->backend, "gpu") != 0)
    return fail("--backend is sim or gpu, not '%s'", o->backend);
  return 0;
}

/* ------------------------------------------------------------ the run */

static int compute_grid(const RunOpts *o, const KernelInfo *ki, const double *pv, const int64_t *sv, unsigned g[3]) {
  char err[256];
  if (o->has_grid) {
    memcpy(g, o->grid, sizeof o->grid);
    return 0;
  }
  return launch_grid(ki, pv, sv, g, err, sizeof err) ? 0 : fail("%s", err);
}

static int check_assumes(const RunOpts *o, const KernelInfo *ki, const double *pv, const int64_t *sv) {
  char err[1024];
  return launch_check_assumes(ki, o->kernel, pv, sv, err, sizeof err) ? 0 : fail("%s: %s", o->file, err);
}

static int launch(const RunOpts *o, const KernelInfo *ki, const char *cu, Npy *arrays, const View *views, void **args,
                  int nargs, const unsigned grid[3]) {
  char rt_dir[PATH_MAX], sim_dir[PATH_MAX], cdir[PATH_MAX], err[4096];
  if (!find_runtime(rt_dir, sim_dir, sizeof rt_dir)) return fail("cannot find the CPU backend (rt/ and rt/sim/) next to the tile2cu binary");
  char croot[PATH_MAX];
  launch_cache_dir(croot, sizeof croot);
  snprintf(cdir, sizeof cdir, "%.*s/sim", (int)sizeof cdir - 8, croot);
  if (launch_mkdirs(cdir)) return fail("cannot create the cache directory %s: %s", cdir, strerror(errno));
  /* the shared object built here is loaded into this process */
  if (fsafe_cache_check(croot, "sim", geteuid(), err, sizeof err))
    return fail("unsafe cache directory: %s (set TILE2CU_CACHE_DIR to a private directory)", err);
  char cu_path[PATH_MAX + 32], so_path[PATH_MAX + 32];
  snprintf(cu_path, sizeof cu_path, "%s/run-%d.cu", cdir, (int)getpid());
  snprintf(so_path, sizeof so_path, "%s/run-%d.so", cdir, (int)getpid());
  unlink(cu_path); /* left by a process that had this pid */
  /* killed while building or running, tile2cu leaves neither behind */
  int cu_slot = outfile_remove_on_signal(cu_path), so_slot = outfile_remove_on_signal(so_path);
  int fd = open(cu_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
  if (!f && fd >= 0) close(fd);
  bool written = f && fputs(cu, f) >= 0;
  if (f && fclose(f) != 0) written = false;
  if (!written) {
    unlink(cu_path);
    outfile_forget(cu_slot);
    outfile_forget(so_slot);
    return fail("cannot write %s", cu_path);
  }
  /* the object is kept for the next run of the same .cu unless TILE2CU_CACHE=0 */
  const char *keep = getenv("TILE2CU_CACHE");
  int st = (keep && strcmp(keep, "0") == 0 ? sim_build : sim_build_kept)(cu_path, so_path, rt_dir, sim_dir, err,
                                                                         sizeof err);
  unlink(cu_path);
  outfile_forget(cu_slot);
  if (st) {
    unlink(so_path);
    outfile_forget(so_slot);
    return fail("building the kernel for the CPU backend failed:\n%s", err);
  }
  T2cSimTensor *tens = calloc((size_t)ki->ntensors + 1, sizeof *tens);
  const T2cSimTensor **outs = calloc((size_t)ki->ntensors + 1, sizeof *outs);
  int nout = 0;
  for (int i = 0, t = 0; i < ki->nparams; i++) {
    Sym *p = ki->params[i];
    if (p->kind != SY_TENSOR) continue;
    tens[t] = (T2cSimTensor){arrays[t].data, npy_nelems(&arrays[t]), elem_bytes[p->ty.elem], p->name,
                             arrays[t].rank, arrays[t].shape, NULL};
    if (p->tstride[0]) /* a strided view: its shape and strides over the array, every index checked against them */
      tens[t].rank = p->trank, tens[t].shape = views[t].shape, tens[t].strides = views[t].stride;
    args[i] = &tens[t];
    if (p->written) outs[nout++] = &tens[t];
    t++;
  }
  T2cSimLaunch l = {o->kernel, {grid[0], grid[1], grid[2]}, (unsigned)ki->threads,
                    ki->dynamic_smem ? (size_t)ki->shared_bytes : 0, args, nargs, outs, nout, o->schedules};
  st = sim_run(so_path, &l, err, sizeof err);
  unlink(so_path);
  outfile_forget(so_slot);
  free(tens);
  free(outs);
  if (st) {
    fprintf(stderr, "tile2cu run: %s\n", err);
    return 1;
  }
  return 0;
}

/* The kernel on the CUDA device: compiled through NVRTC, tensors copied in and out. */
static int launch_gpu(const RunOpts *o, const KernelInfo *ki, const char *src, Npy *arrays, void **args,
                      const unsigned grid[3]) {
  t2c_program *p = NULL;
  t2c_module *m = NULL;
  t2c_devptr *dev = calloc((size_t)ki->ntensors + 1, sizeof *dev);
  t2c_compile_options co = {o->target, T2C_OUTPUT_CUBIN, 0};
  t2c_status s = t2c_program_from_source(o->file, src, &p);
  if (!s) s = t2c_compile_args(p, &co, o->opts, o->nopts);
  if (!s) s = t2c_module_load(p, &m);
  for (int i = 0, t = 0; !s && i < ki->nparams; i++) {
    if (ki->params[i]->kind != SY_TENSOR) continue;
    s = t2c_mem_alloc(&dev[t], arrays[t].nbytes);
    if (!s) s = t2c_memcpy_htod(dev[t], arrays[t].data, arrays[t].nbytes);
    args[i] = &dev[t++];
  }
  t2c_launch_options lo = {{grid[0], grid[1], grid[2]}, NULL};
  if (!s) s = t2c_launch(m, o->kernel, args, &lo);
  if (!s) s = t2c_synchronize();
  for (int t = 0; !s && t < ki->ntensors; t++)
    if (ki->tensors[t]->written) s = t2c_memcpy_dtoh(arrays[t].data, dev[t], arrays[t].nbytes);
  int st = 0;
  if (s) {
    if (p && (s == T2C_ERROR_TRANSLATE || s == T2C_ERROR_COMPILE)) fputs(t2c_program_diagnostics_text(p), stderr);
    st = fail("gpu backend: %s", t2c_last_error());
  }
  for (int t = 0; t < ki->ntensors; t++)
    if (dev[t]) t2c_mem_free(dev[t]);
  free(dev);
  t2c_module_unload(m);
  t2c_program_destroy(p);
  return st;
}

/* --backend gpu needs a device; with no --backend, the device when there is one. */
static int pick_backend(RunOpts *o) {
  if (o->backend && strcmp(o->backend, "sim") == 0) return 0;
  if (t2c_device_available() == T2C_SUCCESS) {
    o->backend = "gpu";
    return 0;
  }
  if (o->backend) return fail("--backend gpu: %s", t2c_last_error());
  fprintf(stderr, "tile2cu run: %s; using the CPU backend (sim)\n", t2c_last_error());
  o->backend = "sim";
  return 0;
}

static const char run_usage[] =
    "usage: tile2cu run FILE.tl --kernel NAME [options] NAME=VALUE ...\n"
    "\n"
    "Runs one kernel on .npy files, on the CPU backend (sim) or on the CUDA device.\n"
    "Tensors are NAME=FILE.npy (read when the file exists; written back when the\n"
    "kernel stores to them); sizes and scalars are NAME=VALUE.\n"
    "\n"
    "options:\n"
    "  --kernel NAME      the kernel to run (required)\n"
    "  --backend sim|gpu  the CPU backend or the device (default: the device when\n"
    "                     there is one, else the CPU backend)\n"
    "  --grid X[,Y[,Z]]   the grid, instead of the one @grid gives\n"
    "  --schedules N      thread schedules the CPU backend compares, 1 to 1000 (default 3)\n"
    "  --stride X=S0,S1,...  the strides of a @strided tensor X, in elements: X's file\n"
    "                     is the buffer its view lies in (default: the array's own,\n"
    "                     row-major strides)\n"
    "  --target sm_XX     the target config (default sm_90)\n"
    OPTS_HELP
    "  --help             print this help\n";

/* Every NAME=VALUE names a tensor, scalar parameter or size of the kernel, once (a
 * misspelt size or scalar was dropped, and the kernel ran without it). */
static int check_binds(const RunOpts *o, const KernelInfo *ki) {
  for (int i = 0; i < o->nbinds; i++) {
    size_t n = (size_t)(strchr(o->binds[i], '=') - o->binds[i]);
    bool known = false;
    for (int j = 0; j < ki->ntensors && !known; j++)
      known = strlen(ki->tensors[j]->name) == n && strncmp(ki->tensors[j]->name, o->binds[i], n) == 0;
    for (int j = 0; j < ki->nparams && !known; j++)
      known = strlen(ki->params[j]->name) == n && strncmp(ki->params[j]->name, o->binds[i], n) == 0;
    for (int j = 0; j < ki->nsizes && !known; j++)
      known = strlen(ki->sizes[j]->name) == n && strncmp(ki->sizes[j]->name, o->binds[i], n) == 0;
    if (!known) {
      Buf names = {0};
      for (int j = 0; j < ki->nparams; j++) buf_printf(&names, "%s%s", names.len ? ", " : "", ki->params[j]->name);
      for (int j = 0; j < ki->nsizes; j++) buf_printf(&names, "%s%s", names.len ? ", " : "", ki->sizes[j]->name);
      int st = fail("'%.*s' in '%s' is no tensor, scalar or size of kernel '%s' (it takes %s)", (int)n, o->binds[i],
                    o->binds[i], o->kernel, names.len ? names.data : "none");
      buf_free(&names);
      return st;
    }
    for (int j = 0; j < i; j++)
      if (strncmp(o->binds[j], o->binds[i], n + 1) == 0)
        return fail("'%.*s' is given twice ('%s' and '%s')", (int)n, o->binds[i], o->binds[j], o->binds[i]);
  }
  return 0;
}

/* Translates o->file, binds the arguments and runs the kernel; the exit status. */
static int run_kernel(RunOpts *o, const char *argv0) {
  int st;
  bool gpu = strcmp(o->backend, "gpu") == 0;
  char cfg[PATH_MAX], err[512];
  TargetConfig t;
  const char *target = o->target ? o->target : "sm_90";
  if (!config_find(target, argv0, cfg, sizeof cfg)) return fail("unknown target '%s'", target);
  if (!config_load(cfg, &t, err, sizeof err)) return fail("%s", err);
  char rerr[PATH_MAX + 128];
  int rst;
  char *text = read_tl_file(o->file, rerr, sizeof rerr, &rst);
  if (!text) {
    fail("%s", rerr);
    return rst;
  }
  Buf src = {text, strlen(text), strlen(text) + 1};
  Arena a = {0};
  Buf cu = {0};
  Program *p = NULL;
  /* only the kernel to run is compiled: a file of many kernels builds in a fraction of the time */
  EmitOptions eo = {.sim = true, .file = o->file, .opts = o->opts, .nopts = o->nopts, .only = o->kernel};
  st = translate(o->file, src.data, &t, &eo, &cu, stderr, &p, &a);
  Kernel *k = NULL;
  for (int i = 0; st == 0 && i < p->nkernels; i++)
    if (strcmp(p->kernels[i]->name, o->kernel) == 0) k = p->kernels[i];
  if (st == 0 && !k) { /* a misspelt name: the ones there are */
    Buf names = {0};
    for (int i = 0; i < p->nkernels; i++) buf_printf(&names, "%s%s", i ? ", " : "", p->kernels[i]->name);
    st = fail("%s has no kernel '%s' (kernels: %s)", o->file, o->kernel, names.len ? names.data : "none");
    buf_free(&names);
  }
  if (st == 0) st = check_binds(o, k->info);
  if (st == 0) {
    KernelInfo *ki = k->info;
    Npy *arrays = calloc((size_t)ki->ntensors + 1, sizeof *arrays);
    bool *exists = calloc((size_t)ki->ntensors + 1, sizeof *exists);
    int64_t *sizes = calloc((size_t)ki->nsizes + 1, sizeof *sizes);
    double *pv = calloc((size_t)ki->nparams + 1, sizeof *pv);
    ScalarArg *sc = calloc((size_t)ki->nparams + 1, sizeof *sc);
    int *sz = calloc((size_t)ki->nsizes + 1, sizeof *sz);
    View *views = calloc((size_t)ki->ntensors + 1, sizeof *views);
    long long *strides = calloc((size_t)ki->nstrides + 1, sizeof *strides);
    int nargs = ki->nparams + ki->nsizes + ki->nstrides;
    void **args = calloc((size_t)nargs + 1, sizeof *args);
    unsigned grid[3];
    st = check_stride_opts(o, ki);
    if (st == 0) st = bind_tensors(o, ki, arrays, exists, sizes);
    for (int i = 0; st == 0 && i < ki->nparams; i++)
      if (ki->params[i]->kind == SY_SCALAR) {
        st = bind_scalar(o, ki->params[i], &sc[i], &pv[i]);
        args[i] = &sc[i];
      }
    for (int i = 0; st == 0 && i < ki->nsizes; i++) {
      if (sizes[i] > 0x7fffffff) st = fail("size %s = %lld does not fit an int", ki->sizes[i]->name, (long long)sizes[i]);
      sz[i] = (int)sizes[i];
      args[ki->nparams + i] = &sz[i];
    }
    if (st == 0) st = bind_views(o, ki, arrays, sizes, views);
    /* X_stride0.. of each strided tensor, in the order of KernelInfo.strides (the tensors' order) */
    for (int t = 0, n = 0; st == 0 && t < ki->ntensors; t++)
      for (int d = 0; ki->tensors[t]->tstride[0] && d < ki->tensors[t]->trank; d++, n++) {
        strides[n] = views[t].stride[d];
        args[ki->nparams + ki->nsizes + n] = &strides[n];
      }
    if (st == 0) st = compute_grid(o, ki, pv, sizes, grid);
    for (int d = 0; st == 0 && !o->has_grid && d < 3; d++) /* a forgotten @grid: one block where the kernel indexes by it */
      if ((ki->reads_block >> d & 1) && !ki->grid[d]) {
        fprintf(stderr, "tile2cu run: note: kernel %s reads ctx.block.%c, and no @grid sets that dim: it runs 1 block "
                "along %c (@grid on the kernel, or --grid, gives it more)\n", o->kernel, "xyz"[d], "xyz"[d]);
        break;
      }
    if (st == 0) st = check_assumes(o, ki, pv, sizes);
    if (st == 0) st = gpu ? launch_gpu(o, ki, src.data, arrays, args, grid) : launch(o, ki, cu.data, arrays, views, args, nargs, grid);
    for (int i = 0; st == 0 && i < ki->ntensors; i++) {
      if (!ki->tensors[i]->written) continue;
      if (npy_write(find_bind(o, ki->tensors[i]->name), &arrays[i], err, sizeof err)) st = fail("%s", err);
    }
    if (st == 0 && gpu)
      fprintf(stderr, "tile2cu run: kernel %s ran on the GPU: grid (%u, %u, %u), %d threads\n", o->kernel, grid[0],
              grid[1], grid[2], ki->threads);
    else if (st == 0)
      fprintf(stderr, "tile2cu run: kernel %s ran on the CPU backend (sim): grid (%u, %u, %u), %d threads, %d %s\n",
              o->kernel, grid[0], grid[1], grid[2], ki->threads, o->schedules,
              o->schedules == 1 ? "schedule" : "schedules agree"); /* one has nothing to agree with */
    for (int i = 0; i < ki->ntensors; i++) npy_free(&arrays[i]);
    free(arrays); free(exists); free(sizes); free(pv); free(sc); free(sz); free(views); free(strides); free(args);
  }
  buf_free(&cu);
  buf_free(&src);
  arena_free(&a);
  return st;
}

int run_main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(run_usage, stdout);
      return 0;
    }
  RunOpts o = {0};
  int st = parse_run_args(argc, argv, &o);
  if (st == 0) st = pick_backend(&o);
  if (st == 0) st = run_kernel(&o, argv[0]);
  free(o.binds);
  free(o.opts);
  free(o.strides);
  return st;
}
