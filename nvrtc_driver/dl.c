/* dl.c: libnvrtc and libcuda, opened with dlopen on first use.
 *
 * Nothing links against either library, so libtile2cu links and compiles
 * kernels on machines without a driver. Each library is opened once per
 * process under pthread_once; the result (the function table, or why it
 * failed) is never written again, so readers need no lock.
 *
 *   libnvrtc: $TILE2CU_NVRTC, the loader's search path, then the CUDA toolkit
 *             ($CUDA_PATH, $CUDA_HOME, /usr/local/cuda). cuda_fp16.h is looked
 *             for next to the library (../include) and in the same places.
 *   libcuda:  $TILE2CU_LIBCUDA, else libcuda.so.1. Device $TILE2CU_DEVICE (0).
 */
#include "internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT, cuda_once = PTHREAD_ONCE_INIT;
static Nvrtc nvrtc;
static bool nvrtc_ok;
static char nvrtc_error[1024];
static Cuda cuda;
static bool cuda_ok;
static char cuda_error[1024];

/* ------------------------------------------------------------ libnvrtc */

static void *open_first(const char *const *names, int n, char *tried, size_t len) {
  for (int i = 0; i < n; i++) {
    if (!names[i] || !*names[i]) continue;
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    size_t used = strlen(tried);
    snprintf(tried + used, len - used, "%s%s", used ? ", " : "", names[i]);
  }
  return NULL;
}

static bool has_fp16(const char *dir) {
  char p[2 * PATH_MAX];
  snprintf(p, sizeof p, "%s/cuda_fp16.h", dir);
  return access(p, R_OK) == 0;
}

static void find_include_dir(void) {
  Dl_info info;
  char lib[PATH_MAX], cand[PATH_MAX];
  if (dladdr((void *)nvrtc.CreateProgram, &info) && info.dli_fname && realpath(info.dli_fname, lib)) {
    char *slash = strrchr(lib, '/');
    if (slash) *slash = 0;
    const char *rel[] = {"/../include", "/../../include", "/../../../include"};
    for (int i = 0; i < 3; i++) {
      snprintf(cand, sizeof cand, "%s%s", lib, rel[i]);
      if (has_fp16(cand) && realpath(cand, nvrtc.include_dir)) return;
    }
  }
  const char *envs[] = {getenv("CUDA_PATH"), getenv("CUDA_HOME")};
  for (int i = 0; i < 2; i++) {
    if (!envs[i]) continue;
    snprintf(cand, sizeof cand, "%s/include", envs[i]);
    if (has_fp16(cand)) { memcpy(nvrtc.include_dir, cand, sizeof cand); return; }
  }
  const char *fixed[] = {"/usr/local/cuda/include", "/usr/include"};
  for (int i = 0; i < 2; i++)
    if (has_fp16(fixed[i])) { snprintf(nvrtc.include_dir, sizeof nvrtc.include_dir, "%s", fixed[i]); return; }
}

#define SYM(tab, h, f, name, err) \
  do { if (!(*(void **)&(tab).f = dlsym(h, name))) { snprintf(err, sizeof err, "%s lacks %s", #h, name); return; } } while (0)

static void load_nvrtc(void) {
  char p1[PATH_MAX], p2[PATH_MAX], p3[PATH_MAX], tried[2048] = "";
  const char *cp = getenv("CUDA_PATH"), *ch = getenv("CUDA_HOME");
  snprintf(p1, sizeof p1, "%s/lib64/libnvrtc.so", cp ? cp : "");
  snprintf(p2, sizeof p2, "%s/lib64/libnvrtc.so", ch ? ch : "");
  snprintf(p3, sizeof p3, "%s", "/usr/local/cuda/lib64/libnvrtc.so");
  const char *env = getenv("TILE2CU_NVRTC");
  const char *names[] = {env, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", cp ? p1 : NULL, ch ? p2 : NULL, p3,
                         "/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so"};
  void *libnvrtc = env && *env ? open_first(names, 1, tried, sizeof tried)
                               : open_first(names, (int)(sizeof names / sizeof *names), tried, sizeof tried);
  if (!libnvrtc) {
    snprintf(nvrtc_error, sizeof nvrtc_error, "cannot load libnvrtc (tried %s); install the CUDA toolkit or set TILE2CU_NVRTC", tried);
    return;
  }
  SYM(nvrtc, libnvrtc, GetErrorString, "nvrtcGetErrorString", nvrtc_error);
  SYM(nvrtc, libnvrtc, Version, "nvrtcVersion", nvrtc_error);
  SYM(nvrtc, libnvrtc, CreateProgram, "nvrtcCreateProgram", nvrtc_error);
  SYM(nvrtc, libnvrtc, DestroyProgram, "nvrtcDestroyProgram", nvrtc_error);
  SYM(nvrtc, libnvrtc, CompileProgram, "nvrtcCompileProgram", nvrtc_error);
  SYM(nvrtc, libnvrtc, GetProgramLogSize, "nvrtcGetProgramLogSize", nvrtc_error);
  SYM(nvrtc, libnvrtc, GetProgramLog, "nvrtcGetProgramLog", nvrtc_error);
  SYM(nvrtc, libnvrtc, GetCUBINSize, "nvrtcGetCUBINSize", nvrtc_error);
  SYM(nvrtc, libnvrtc, GetCUBIN, "nvrtcGetCUBIN", nvrtc_error);
  SYM(nvrtc, libnvrtc, GetPTXSize, "nvrtcGetPTXSize", nvrtc_error);
  SYM(nvrtc, libnvrtc, GetPTX, "nvrtcGetPTX", nvrtc_error);
  if (nvrtc.Version(&nvrtc.major, &nvrtc.minor) != 0) {
    snprintf(nvrtc_error, sizeof nvrtc_error, "nvrtcVersion failed");
    return;
  }
  find_include_dir();
  nvrtc_ok = true;
}

const Nvrtc *dl_nvrtc(void) {
  pthread_once(&nvrtc_once, load_nvrtc);
  if (!nvrtc_ok) {
    drv_fail(T2C_ERROR_NO_NVRTC, "%s", nvrtc_error);
    return NULL;
  }
  return &nvrtc;
}

/* ------------------------------------------------------------ libcuda */

static bool cu_check(CUresult r, const char *what) {
  if (r == 0) return true;
  const char *msg = NULL;
  if (cuda.GetErrorString) cuda.GetErrorString(r, &msg);
  if (r == 100) /* CUDA_ERROR_NO_DEVICE */
    snprintf(cuda_error, sizeof cuda_error, "no CUDA device: the driver found no device (%s)", msg ? msg : "CUDA_ERROR_NO_DEVICE");
  else
    snprintf(cuda_error, sizeof cuda_error, "no CUDA device: %s failed with error %d (%s)", what, r, msg ? msg : "?");
  return false;
}

static void load_cuda(void) {
  const char *env = getenv("TILE2CU_LIBCUDA");
  const char *name = env && *env ? env : "libcuda.so.1";
  void *libcuda = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!libcuda) {
    snprintf(cuda_error, sizeof cuda_error, "no CUDA device: cannot load the CUDA driver (%s): %s", name, dlerror());
    return;
  }
  SYM(cuda, libcuda, Init, "cuInit", cuda_error);
  SYM(cuda, libcuda, DeviceGetCount, "cuDeviceGetCount", cuda_error);
  SYM(cuda, libcuda, DeviceGet, "cuDeviceGet", cuda_error);
  SYM(cuda, libcuda, DeviceGetAttribute, "cuDeviceGetAttribute", cuda_error);
  SYM(cuda, libcuda, DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", cuda_error);
  SYM(cuda, libcuda, CtxSetCurrent, "cuCtxSetCurrent", cuda_error);
  SYM(cuda, libcuda, CtxSynchronize, "cuCtxSynchronize", cuda_error);
  SYM(cuda, libcuda, ModuleLoadData, "cuModuleLoadData", cuda_error);
  SYM(cuda, libcuda, ModuleUnload, "cuModuleUnload", cuda_error);
  SYM(cuda, libcuda, ModuleGetFunction, "cuModuleGetFunction", cuda_error);
  SYM(cuda, libcuda, FuncSetAttribute, "cuFuncSetAttribute", cuda_error);
  SYM(cuda, libcuda, LaunchKernel, "cuLaunchKernel", cuda_error);
  SYM(cuda, libcuda, MemAlloc, "cuMemAlloc_v2", cuda_error);
  SYM(cuda, libcuda, MemFree, "cuMemFree_v2", cuda_error);
  SYM(cuda, libcuda, MemcpyHtoD, "cuMemcpyHtoD_v2", cuda_error);
  SYM(cuda, libcuda, MemcpyDtoH, "cuMemcpyDtoH_v2", cuda_error);
  SYM(cuda, libcuda, GetErrorString, "cuGetErrorString", cuda_error);
  SYM(cuda, libcuda, EventCreate, "cuEventCreate", cuda_error);
  SYM(cuda, libcuda, EventRecord, "cuEventRecord", cuda_error);
  SYM(cuda, libcuda, EventSynchronize, "cuEventSynchronize", cuda_error);
  SYM(cuda, libcuda, EventElapsedTime, "cuEventElapsedTime", cuda_error);
  SYM(cuda, libcuda, EventDestroy, "cuEventDestroy_v2", cuda_error);
  *(void **)&cuda.TensorMapEncodeTiled = dlsym(libcuda, "cuTensorMapEncodeTiled"); /* optional: only TMA kernels need it */
  int count = 0, major = 0, minor = 0;
  const char *dev_env = getenv("TILE2CU_DEVICE");
  int ordinal = dev_env ? atoi(dev_env) : 0;
  if (!cu_check(cuda.Init(0), "cuInit") || !cu_check(cuda.DeviceGetCount(&count), "cuDeviceGetCount")) return;
  if (count <= ordinal) {
    snprintf(cuda_error, sizeof cuda_error, "no CUDA device: the driver reports %d device%s", count, count == 1 ? "" : "s");
    return;
  }
  if (!cu_check(cuda.DeviceGet(&cuda.dev, ordinal), "cuDeviceGet") ||
      !cu_check(cuda.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuda.dev), "cuDeviceGetAttribute") ||
      !cu_check(cuda.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuda.dev), "cuDeviceGetAttribute") ||
      !cu_check(cuda.DevicePrimaryCtxRetain(&cuda.ctx, cuda.dev), "cuDevicePrimaryCtxRetain"))
    return;
  cuda.sm = major * 10 + minor;
  cuda_ok = true;
}

const Cuda *dl_cuda(void) {
  pthread_once(&cuda_once, load_cuda);
  if (!cuda_ok) {
    drv_fail(T2C_ERROR_NO_DEVICE, "%s", cuda_error);
    return NULL;
  }
  CUresult r = cuda.CtxSetCurrent(cuda.ctx);
  if (r != 0) {
    dl_cuda_fail(&cuda, r, "cuCtxSetCurrent");
    return NULL;
  }
  return &cuda;
}

t2c_status dl_cuda_fail(const Cuda *cu, CUresult r, const char *what) {
  const char *msg = NULL;
  if (cu && cu->GetErrorString) cu->GetErrorString(r, &msg);
  if (r == 2) return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "%s: out of device memory", what);
  return drv_fail(T2C_ERROR_CUDA, "%s failed with CUDA error %d (%s)", what, r, msg ? msg : "unknown");
}
