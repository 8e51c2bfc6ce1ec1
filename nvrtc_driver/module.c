/* module.c: loading cubins, launching kernels by name, device memory.
 *
 * A module keeps a pointer to its program, whose KernelInfo gives the launch
 * shape: the program must outlive its modules and must not be recompiled
 * while they are in use. A launch reads the scalar and size arguments from
 * the cuLaunchKernel-style args array to check the sizes and every @assume and
 * to evaluate @grid (launch.c, shared with tile2cu run), raises the dynamic
 * shared memory limit when the kernel needs more than the static 48 KiB,
 * and launches.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct t2c_module {
  t2c_program *p;
  CUmodule mod;
};

t2c_status t2c_device_available(void) { return dl_cuda() ? T2C_SUCCESS : T2C_ERROR_NO_DEVICE; }

t2c_status t2c_module_load(t2c_program *p, t2c_module **out) {
  if (!p || !out) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_module_load: NULL argument");
  *out = NULL;
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  t2c_status s;
  if (!p->binary && (s = t2c_compile(p, NULL))) return s;
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

/* The value of a scalar argument, for @grid and @assume. */
static double scalar_value(ElemType t, const void *v) {
  switch (t) {
  case T_F32: return *(const float *)v;
  case T_F64: return *(const double *)v;
  case T_I32: return *(const int *)v;
  case T_U32: return *(const unsigned *)v;
  case T_I64: return (double)*(const long long *)v;
  case T_I8: return *(const signed char *)v;
  case T_U8: return *(const unsigned char *)v;
  case T_BOOL: return *(const unsigned char *)v != 0;
  default: return 0; /* f16/bf16 scalars never appear in launch expressions */
  }
}

/* Reads the arguments, checks sizes and assumptions, computes the grid. */
static t2c_status launch_shape(const Kernel *k, void **args, const t2c_launch_options *o, unsigned grid[3]) {
  const KernelInfo *ki = k->info;
  double *pv = calloc((size_t)ki->nparams + 1, sizeof *pv);
  int64_t *sv = calloc((size_t)ki->nsizes + 1, sizeof *sv);
  if (!pv || !sv) {
    free(pv);
    free(sv);
    return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  t2c_status s = T2C_SUCCESS;
  char err[1024];
  for (int i = 0; i < ki->nparams + ki->nsizes && !s; i++)
    if (!args[i]) s = drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: argument %d is NULL", k->name, i);
  for (int i = 0; i < ki->nparams && !s; i++)
    if (ki->params[i]->kind == SY_SCALAR) pv[i] = scalar_value(ki->params[i]->ty.elem, args[i]);
  for (int i = 0; i < ki->nsizes && !s; i++) sv[i] = *(const int *)args[ki->nparams + i];
  if (!s && !launch_check_sizes(ki, sv, err, sizeof err)) s = drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s: %s", k->name, err);
  if (!s && !launch_check_assumes(ki, k->name, pv, sv, err, sizeof err)) s = drv_fail(T2C_ERROR_ASSUME, "%s", err);
  bool given = o && (o->grid[0] || o->grid[1] || o->grid[2]);
  if (!s && given)
    for (int d = 0; d < 3; d++) grid[d] = o->grid[d] ? o->grid[d] : 1;
  if (!s && !given && !launch_grid(ki, pv, sv, grid, err, sizeof err)) s = drv_fail(T2C_ERROR_GRID, "kernel %s: %s", k->name, err);
  free(pv);
  free(sv);
  return s;
}

t2c_status t2c_launch(t2c_module *m, const char *kernel, void **args, const t2c_launch_options *o) {
  if (!m || !kernel) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_launch: NULL argument");
  const Kernel *k = program_kernel(m->p, kernel, NULL);
  if (!k) return drv_fail(T2C_ERROR_NOT_FOUND, "%s has no kernel '%s'", m->p->name, kernel);
  const KernelInfo *ki = k->info;
  if (!args && ki->nparams + ki->nsizes) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_launch: no arguments");
  unsigned grid[3];
  t2c_status s = launch_shape(k, args, o, grid);
  if (s) return s;
  const Cuda *cu = dl_cuda();
  if (!cu) return T2C_ERROR_NO_DEVICE;
  CUfunction f;
  CUresult r = cu->ModuleGetFunction(&f, m->mod, kernel);
  if (r) return dl_cuda_fail(cu, r, "cuModuleGetFunction");
  unsigned dyn = ki->dynamic_smem ? (unsigned)ki->shared_bytes : 0;
  if (dyn && (r = cu->FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)dyn)))
    return dl_cuda_fail(cu, r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  r = cu->LaunchKernel(f, grid[0], grid[1], grid[2], (unsigned)ki->threads, 1, 1, dyn, o ? (CUstream)o->stream : NULL,
                       args, NULL);
  return r ? dl_cuda_fail(cu, r, "cuLaunchKernel") : T2C_SUCCESS;
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
