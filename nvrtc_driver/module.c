/* module.c: loading cubins, launching kernels by name, device memory.
 *
 * A module keeps a pointer to its program, whose kernel facts give the launch
 * shape: the program must outlive its modules and must not be recompiled
 * while they are in use. A launch hands the cuLaunchKernel-style args array
 * to the translator (tr_launch_shape), which reads the scalar and size
 * arguments, checks the sizes and every @assume and evaluates @grid as
 * tile2cu run does; then it raises the dynamic shared memory limit when the
 * kernel needs more than the static 48 KiB, builds the TMA tensor maps of a
 * kernel that takes them (cuTensorMapEncodeTiled, after the caller's
 * arguments), and launches.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct t2c_module {
  t2c_program *p;
  CUmodule mod;
};

t2c_status t2c_device_available(void) { return dl_cuda() ? T2C_SUCCESS : T2C_ERROR_NO_DEVICE; }

/* A program without a binary is compiled for the device with the translator
 * options of its last translation (t2c_program_translate's -D stay). */
static t2c_status compile_for_device(t2c_program *p) {
  char **copy = calloc((size_t)p->nargs + 1, sizeof *copy);
  t2c_status s = copy ? T2C_SUCCESS : drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; !s && i < p->nargs; i++)
    if (!(copy[i] = strdup(p->args[i]))) s = drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  int n = p->nargs;
  if (!s) s = t2c_compile_args(p, NULL, (const char *const *)copy, n);
  for (int i = 0; copy && i < n; i++) free(copy[i]);
  free(copy);
  return s;
}

t2c_status t2c_module_load(t2c_program *p, t2c_module **out) {
  if (!p || !out) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_module_load: NULL argument");
  *out = NULL;
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  t2c_status s;
  if (!p->binary && (s = compile_for_device(p))) return s;
  if (p->output != T2C_OUTPUT_CUBIN && p->output != T2C_OUTPUT_PTX) return drv_fail(T2C_ERROR_NOT_COMPILED, "no binary");
  /* PTX must be NUL-terminated for cuModuleLoadData */
  void *image = p->binary;
  char *ptx = NULL;
  if (p->output == T2C_OUTPUT_PTX) {
    ptx = malloc(p->binary_size + 1);
    if (!ptx) return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
    memcpy(ptx, p->binary, p->binary_size);
    ptx[p->binary_size] = 0;
    image = ptx;
  }
  t2c_module *m = calloc(1, sizeof *m);
  if (!m) {
    free(ptx);
    return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  CUresult r = cu->ModuleLoadData(&m->mod, image);
  free(ptx);
  if (r != 0) {
    free(m);
    return dl_cuda_fail(cu, r, "cuModuleLoadData");
  }
  m->p = p;
  *out = m;
  return T2C_SUCCESS;
}

void t2c_module_unload(t2c_module *m) {
  if (!m) return;
  const Cuda *cu = dl_cuda();
  if (cu) cu->ModuleUnload(m->mod);
  free(m);
}

/* The status of a launch check (tr_launch_shape). */
static t2c_status launch_status(TrLaunch r) {
  switch (r) {
  case TR_LAUNCH_OK: return T2C_SUCCESS;
  case TR_LAUNCH_BAD_SIZE: return T2C_ERROR_INVALID_VALUE;
  case TR_LAUNCH_ASSUME: return T2C_ERROR_ASSUME;
  case TR_LAUNCH_BAD_GRID: return T2C_ERROR_GRID;
  case TR_LAUNCH_NO_MEMORY: return T2C_ERROR_OUT_OF_MEMORY;
  }
  return T2C_ERROR_INVALID_VALUE;
}

/* Checks the arguments, sizes and assumptions; computes the grid unless given. */
static t2c_status launch_shape(const t2c_program *p, int k, const TrKernelFacts *f, void **args,
                               const t2c_launch_options *o, unsigned grid[3]) {
  for (int i = 0; i < f->nparams + f->nsizes + f->nstrides; i++)
    if (!args[i]) return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: argument %d is NULL", f->name, i);
  bool given = o && (o->grid[0] || o->grid[1] || o->grid[2]);
  char err[1024];
  TrLaunch r = tr_launch_shape(p->prog, k, args, given ? NULL : grid, err, sizeof err);
  if (r != TR_LAUNCH_OK) return drv_fail(launch_status(r), "%s", err);
  if (given)
    for (int d = 0; d < 3; d++) grid[d] = o->grid[d] ? o->grid[d] : 1;
  return T2C_SUCCESS;
}

/* A CUtensorMap: 128 opaque bytes, 64-byte aligned (cuda.h; 128 under CUDA 13). */
typedef struct TensorMap {
  _Alignas(128) unsigned long long opaque[16];
} TensorMap;

/* The TMA tensor maps of kernel k from its arguments (tr_kernel_tmap): built
 * where the tensor allows them, zeros where it does not. */
static t2c_status build_tmaps(const t2c_program *p, int k, const TrKernelFacts *f, void **args, TensorMap *maps) {
  const Cuda *cu = dl_cuda();
  for (int i = 0; i < f->ntmaps; i++) {
    TrTmap t;
    tr_kernel_tmap(p->prog, k, i, &t);
    memset(&maps[i], 0, sizeof maps[i]);
    CUdeviceptr base = *(const CUdeviceptr *)args[t.param];
    /* the driver takes the innermost dim first, and the byte strides of the others */
    unsigned long long dims[4], strides[3];
    unsigned box[4] = {t.box_cols, t.box_rows, 1, 1}, estr[4] = {1, 1, 1, 1};
    for (int d = 0; d < t.rank; d++) {
      int sz = t.dim_size[t.rank - 1 - d];
      dims[d] = (unsigned long long)(sz < 0 ? t.dim_const[t.rank - 1 - d] : *(const int *)args[f->nparams + sz]);
    }
    if (base % 16 || (dims[0] * (unsigned long long)t.elem_bytes) % 16) continue; /* the kernel's general body runs */
    for (int d = 1; d < t.rank; d++) strides[d - 1] = (d == 1 ? (unsigned long long)t.elem_bytes : strides[d - 2]) * dims[d - 1];
    if (!cu->TensorMapEncodeTiled)
      return drv_fail(T2C_ERROR_NO_DEVICE, "kernel %s reads by TMA, and the CUDA driver has no cuTensorMapEncodeTiled "
                      "(a driver older than CUDA 12)", f->name);
    int swz = t.swizzle == 128 ? 3 : t.swizzle == 64 ? 2 : 1; /* CU_TENSOR_MAP_SWIZZLE_* */
    /* no interleave, L2 promotion of 128 bytes (2), zero fill */
    CUresult r = cu->TensorMapEncodeTiled(&maps[i], t.dtype, (unsigned)t.rank, (void *)(uintptr_t)base, dims, strides, box,
                                          estr, 0, swz, 2, 0);
    if (r) return dl_cuda_fail(cu, r, "cuTensorMapEncodeTiled");
  }
  return T2C_SUCCESS;
}

t2c_status t2c_launch(t2c_module *m, const char *kernel, void **args, const t2c_launch_options *o) {
  if (!m || !kernel) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_launch: NULL argument");
  int k = program_kernel(m->p, kernel);
  if (k < 0) return drv_fail(T2C_ERROR_NOT_FOUND, "%s has no kernel '%s'", m->p->name, kernel);
  TrKernelFacts f;
  tr_kernel_facts(m->p->prog, k, &f);
  if (!args && f.nparams + f.nsizes + f.nstrides) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_launch: no arguments");
  unsigned grid[3];
  t2c_status s = launch_shape(m->p, k, &f, args, o, grid);
  if (s) return s;
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUfunction fn;
  CUresult r = cu->ModuleGetFunction(&fn, m->mod, kernel);
  if (r) return dl_cuda_fail(cu, r, "cuModuleGetFunction");
  unsigned dyn = f.dynamic_smem ? (unsigned)f.shared_bytes : 0;
  if (dyn && (r = cu->FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)dyn)))
    return dl_cuda_fail(cu, r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  /* a kernel that TMA feeds takes its tensor maps after the caller's arguments */
  int n = f.nparams + f.nsizes + f.nstrides;
  TensorMap *maps = NULL;
  void **all = args;
  if (f.ntmaps) {
    maps = aligned_alloc(128, sizeof *maps * (size_t)f.ntmaps);
    all = calloc((size_t)(n + f.ntmaps), sizeof *all);
    if (!maps || !all) {
      free(maps);
      free(all);
      return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    if ((s = build_tmaps(m->p, k, &f, args, maps))) {
      free(maps);
      free(all);
      return s;
    }
    for (int i = 0; i < n; i++) all[i] = args[i];
    for (int i = 0; i < f.ntmaps; i++) all[n + i] = &maps[i];
  }
  r = cu->LaunchKernel(fn, grid[0], grid[1], grid[2], (unsigned)f.threads, 1, 1, dyn, o ? (CUstream)o->stream : NULL,
                       all, NULL);
  if (f.ntmaps) { /* cuLaunchKernel copies the parameters */
    free(maps);
    free(all);
  }
  return r ? dl_cuda_fail(cu, r, "cuLaunchKernel") : T2C_SUCCESS;
}

/* ------------------------------------------------------------ timing */

t2c_status t2c_time_launch(t2c_module *m, const char *kernel, void **args, const t2c_launch_options *o, int warmup,
                           int reps, float *times_ms) {
  if (!m || !kernel || warmup < 0 || reps < 1 || !times_ms)
    return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_time_launch: bad argument");
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUstream stream = o ? (CUstream)o->stream : NULL;
  t2c_status s = T2C_SUCCESS;
  for (int i = 0; !s && i < warmup; i++) s = t2c_launch(m, kernel, args, o);
  CUevent ev[2] = {NULL, NULL};
  CUresult r = 0;
  for (int i = 0; !s && !r && i < 2; i++) r = cu->EventCreate(&ev[i], 0);
  for (int i = 0; !s && !r && i < reps; i++) {
    r = cu->EventRecord(ev[0], stream);
    if (!r && (s = t2c_launch(m, kernel, args, o))) break;
    if (!r) r = cu->EventRecord(ev[1], stream);
    if (!r) r = cu->EventSynchronize(ev[1]);
    if (!r) r = cu->EventElapsedTime(&times_ms[i], ev[0], ev[1]);
  }
  for (int i = 0; i < 2; i++)
    if (ev[i]) cu->EventDestroy(ev[i]);
  if (!s && r) s = dl_cuda_fail(cu, r, "timing with CUDA events");
  return s;
}

/* ------------------------------------------------------------ memory */

t2c_status t2c_mem_alloc(t2c_devptr *out, size_t bytes) {
  const Cuda *cu = dl_cuda();
  if (!out) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_mem_alloc: NULL argument");
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUresult r = cu->MemAlloc(out, bytes ? bytes : 1);
  return r ? dl_cuda_fail(cu, r, "cuMemAlloc") : T2C_SUCCESS;
}

t2c_status t2c_mem_free(t2c_devptr p) {
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUresult r = p ? cu->MemFree(p) : 0;
  return r ? dl_cuda_fail(cu, r, "cuMemFree") : T2C_SUCCESS;
}

t2c_status t2c_memcpy_htod(t2c_devptr dst, const void *src, size_t bytes) {
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUresult r = bytes ? cu->MemcpyHtoD(dst, src, bytes) : 0;
  return r ? dl_cuda_fail(cu, r, "cuMemcpyHtoD") : T2C_SUCCESS;
}

t2c_status t2c_memcpy_dtoh(void *dst, t2c_devptr src, size_t bytes) {
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUresult r = bytes ? cu->MemcpyDtoH(dst, src, bytes) : 0;
  return r ? dl_cuda_fail(cu, r, "cuMemcpyDtoH") : T2C_SUCCESS;
}

t2c_status t2c_synchronize(void) {
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUresult r = cu->CtxSynchronize();
  return r ? dl_cuda_fail(cu, r, "cuCtxSynchronize") : T2C_SUCCESS;
}
