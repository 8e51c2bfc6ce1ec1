/* internal.h: libtile2cu's private header (the public one is tile2cu.h).
 *
 *   program.c  programs: translation, diagnostics, kernel info, targets
 *   nvrtc.c    compiling with NVRTC, through the cache; ptxas -v parsing
 *   cache.c    the content-addressed disk cache
 *   dl.c       dlopen of libnvrtc and libcuda, the device context
 *   module.c   modules, launches, device memory
 *   cpu.c      launches on the CPU backend (rt/sim), its build cache
 *
 * Library-wide state lives in dl.c only, set up once under pthread_once.
 * The translator is reached through its entry points only
 * (translator/t2c_api.h: tr_translate, kernel facts, launch checks), the
 * private-file checks through common/fsafe.h.
 */
#ifndef T2C_INTERNAL_H
#define T2C_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "../translator/t2c_api.h"
#include "tile2cu.h"

/* ---------------------------------------------------------------- program.c */
typedef struct KernelRes {
  int registers, stack, spill_st, spill_ld; /* -1 when unknown */
} KernelRes;

struct t2c_program {
  char *name;                /* the .tl path as shown in diagnostics */
  char *source;              /* the .tl text */
  TrProgram *prog;           /* the kernels of the translation */
  TrTarget *target;          /* the config of the last translation */
  char *cuda;                /* the generated CUDA (#line directives) */
  char *diag_text;           /* translator diagnostics, then NVRTC's, as text */
  size_t diag_len, diag_cap;
  t2c_diagnostic *diags;
  int ndiags, cap_diags;
  size_t diag_parsed;        /* how much of diag_text became diags */
  bool translated_ok;
  char **args;               /* the translator options of the last translation (t2c_compile_args) */
  int nargs;
  /* compile results */
  void *binary;
  size_t binary_size;
  t2c_output output;
  char *log;
  int cache_hit;
  KernelRes *res;            /* per kernel, from the log */
  /* the CPU backend (cpu.c) */
  char *sim_so;              /* the shared object of the last translation, once built */
};

/* ---------------------------------------------------------------- cpu.c */
/* Forgets the CPU backend's build of the last translation. */
void cpu_forget(t2c_program *p);

/* Sets the thread's last error message and returns s. */
t2c_status drv_fail(t2c_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Loads configs/NAME.yaml: $TILE2CU_CONFIG_DIR, else the built-in copy. */
t2c_status program_target(const char *name, TrTarget **t);
/* (Re)translates the program for t, which the program then owns, with the
 * translator options args[0..nargs) (copied). */
t2c_status program_translate(t2c_program *p, TrTarget *t, const char *const *args, int nargs);
/* Whether the last translation had these options. */
bool program_same_args(const t2c_program *p, const char *const *args, int nargs);
/* Appends NVRTC's log lines about the .tl as diagnostics. */
void program_add_nvrtc_diags(t2c_program *p, const char *log);
/* The index of the kernel named name, or -1. */
int program_kernel(const t2c_program *p, const char *name);

/* ---------------------------------------------------------------- cache.c */
bool cache_enabled(void);
/* SHA-256 over the parts (each length-prefixed), as 64 hex digits. */
void cache_key(const char *const *parts, const size_t *lens, int n, char hex[65]);
/* 1 on a verified hit (malloc'd code and log), 0 on a miss. A corrupt entry is removed. */
int cache_get(const char *hex, void **code, size_t *code_len, char **log);
/* Best effort: a failure to write leaves the cache without the entry. */
void cache_put(const char *hex, const void *code, size_t code_len, const char *log);
/* <cache dir>/nvrtc */
void cache_path(char *out, size_t n);

/* ---------------------------------------------------------------- dl.c */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef struct Nvrtc {
  const char *(*GetErrorString)(nvrtcResult);
  nvrtcResult (*Version)(int *, int *);
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                               const char *const *);
  nvrtcResult (*DestroyProgram)(nvrtcProgram *);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetPTX)(nvrtcProgram, char *);
  int major, minor;
  char include_dir[4096];    /* holds cuda_fp16.h */
} Nvrtc;

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
typedef struct Cuda {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*FuncSetAttribute)(CUfunction, int, int);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           CUstream, void **, void **);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*GetErrorString)(CUresult, const char **);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*EventDestroy)(CUevent);
  /* cuTensorMapEncodeTiled (CUDA 12+), or NULL: the maps of a kernel that TMA feeds */
  CUresult (*TensorMapEncodeTiled)(void *, int, unsigned, void *, const unsigned long long *, const unsigned long long *,
                                   const unsigned *, const unsigned *, int, int, int, int);
  CUcontext ctx;
  CUdevice dev;
  int sm;                    /* the device's compute capability, 90 */
} Cuda;

#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* NULL (with the thread's last error set) when libnvrtc cannot be loaded. */
const Nvrtc *dl_nvrtc(void);
/* NULL (last error set, T2C_ERROR_NO_DEVICE) without a driver or device;
 * otherwise the primary context is current in the calling thread. */
const Cuda *dl_cuda(void);
/* A driver error as a t2c_status with the driver's message. */
t2c_status dl_cuda_fail(const Cuda *cu, CUresult r, const char *what);

#endif
