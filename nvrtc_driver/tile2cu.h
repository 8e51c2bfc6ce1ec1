/* tile2cu.h: the public C API of libtile2cu, runtime compilation of .tl kernels.
 *
 *   t2c_program *p;
 *   t2c_program_from_file("squares.tl", &p);      translate in-process
 *   t2c_compile(p, NULL);                          NVRTC -> cubin (disk-cached)
 *   t2c_module *m;
 *   t2c_module_load(p, &m);                        cuModuleLoadData
 *   t2c_launch(m, "squares", args, NULL);          grid from @grid, @assume checked
 *
 * or, without a GPU, on host memory through the CPU backend:
 *
 *   t2c_cpu_launch(p, "squares", args, NULL);      args: t2c_host_tensor, scalars, sizes
 *
 * libnvrtc and libcuda are opened with dlopen on first use: linking never
 * fails, compiling works without a GPU, and loading fails with
 * T2C_ERROR_NO_DEVICE when there is no driver or no device.
 *
 * Every function returns a t2c_status; t2c_error_string() names it and
 * t2c_last_error() gives the message of the last failure in the calling thread.
 * No function calls exit().
 *
 * Thread safety: separate programs and modules may be used from separate
 * threads at once. One program or module must not be used from two threads at
 * once. Library-wide state (the dlopen'd libraries, the device context) is set
 * up once under pthread_once; the cache is safe across threads and processes.
 */
#ifndef TILE2CU_PUBLIC_H
#define TILE2CU_PUBLIC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum t2c_status {
  T2C_SUCCESS = 0,
  T2C_ERROR_INVALID_VALUE,  /* a NULL or out-of-range argument */
  T2C_ERROR_IO,             /* a file could not be read or written */
  T2C_ERROR_TRANSLATE,      /* errors in the .tl: see the diagnostics */
  T2C_ERROR_TARGET,         /* unknown target sm_XX */
  T2C_ERROR_NO_NVRTC,       /* libnvrtc could not be loaded */
  T2C_ERROR_COMPILE,        /* NVRTC rejected the generated CUDA: see the diagnostics */
  T2C_ERROR_NOT_COMPILED,   /* the program has no binary yet */
  T2C_ERROR_NO_DEVICE,      /* no CUDA driver (libcuda) or no CUDA device */
  T2C_ERROR_NOT_FOUND,      /* no kernel of that name */
  T2C_ERROR_ASSUME,         /* an @assume is false for these arguments */
  T2C_ERROR_GRID,           /* @grid cannot be evaluated or is out of range */
  T2C_ERROR_CUDA,           /* the driver API failed: see t2c_last_error() */
  T2C_ERROR_OUT_OF_MEMORY,
  T2C_ERROR_CPU,            /* the CPU backend could not build the kernel, or the run failed
                               (a race, an index out of bounds): see t2c_last_error() */
} t2c_status;

typedef struct t2c_program t2c_program;
typedef struct t2c_module t2c_module;
typedef unsigned long long t2c_devptr; /* a CUdeviceptr */

const char *t2c_error_string(t2c_status s);
/* The message of the last failing call in this thread ("" when none). */
const char *t2c_last_error(void);
/* The library version ("0.1.0"). */
const char *t2c_version(void);

/* ---- programs: a translated .tl file */

/* Reads and translates FILE.tl. On T2C_ERROR_TRANSLATE *out is still set, so
 * the diagnostics can be read; destroy it either way. */
t2c_status t2c_program_from_file(const char *path, t2c_program **out);
/* The same for source text in memory; name is used in diagnostics. */
t2c_status t2c_program_from_source(const char *name, const char *source, t2c_program **out);
void t2c_program_destroy(t2c_program *p);

typedef enum t2c_severity { T2C_NOTE, T2C_WARNING, T2C_ERROR } t2c_severity;
typedef struct t2c_diagnostic {
  t2c_severity severity;
  const char *file;    /* the .tl name */
  int line, col;       /* 1-based; col 0 when unknown (NVRTC reports lines only) */
  const char *message;
} t2c_diagnostic;

/* Diagnostics of translation and compilation, in order. */
int t2c_program_num_diagnostics(const t2c_program *p);
t2c_status t2c_program_diagnostic(const t2c_program *p, int i, t2c_diagnostic *out);
/* All of them as text (clang style, with source lines and carets). */
const char *t2c_program_diagnostics_text(const t2c_program *p);
/* The generated CUDA C++ (NULL after a translation error). */
const char *t2c_program_cuda_source(const t2c_program *p);

int t2c_program_num_kernels(const t2c_program *p);
const char *t2c_program_kernel_name(const t2c_program *p, int i);

typedef struct t2c_kernel_info {
  const char *name;
  int threads;              /* @launch */
  long long shared_bytes;   /* shared memory per block */
  int dynamic_shared;       /* 1: above the static limit, launched as dynamic memory */
  int num_params;           /* declared parameters (tensors and scalars) */
  int num_sizes;            /* size names, passed as int after the declared parameters */
  /* From ptxas, after a cubin compile (-1 before): */
  int registers;
  int stack_bytes;
  int spill_store_bytes, spill_load_bytes;
  int num_strides;          /* @strided: strides, passed as long long after the sizes */
  int num_tensor_maps;      /* TMA tensor maps the kernel takes last (sm_90a); t2c_launch builds
                               them from the arguments, a caller passes none */
} t2c_kernel_info;
t2c_status t2c_program_kernel_info(const t2c_program *p, const char *kernel, t2c_kernel_info *out);

/* One declared parameter of a kernel (t2c_program_param_info). */
typedef struct t2c_param_info {
  const char *name;
  int is_tensor;            /* 1: a tensor; 0: a scalar */
  const char *dtype;        /* "f32" "f16" "bf16" "f64" "i8" "u8" "i32" "u32" "i64" "bool" "f8e4m3" "f8e5m2" */
  int elem_bytes;           /* the size of one element (or of the scalar) */
  int rank;                 /* tensors: 1 to 4 dims, row-major; scalars: 0 */
  const char *dim_size[4];  /* the size name of dim d, or NULL when the dim is a constant */
  long long dim_const[4];   /* dim d when it is a constant */
  int written;              /* 1 when the kernel stores to the tensor */
  int strided;              /* 1 when the tensor is in @strided: a launch passes its rank
                               strides (long long, in elements) after the sizes */
} t2c_param_info;
/* Parameter i (0 <= i < num_params) of kernel, as the last translation declared it. */
t2c_status t2c_program_param_info(const t2c_program *p, const char *kernel, int i, t2c_param_info *out);
/* Size name i (0 <= i < num_sizes) of kernel, in the order the launch takes
 * them (as int, after the declared parameters); NULL when out of range. */
const char *t2c_program_size_name(const t2c_program *p, const char *kernel, int i);
/* Translates the program again, for target (NULL: "sm_90") with translator
 * options as for t2c_compile_args, without compiling. On
 * T2C_ERROR_TRANSLATE the diagnostics say why. A later t2c_compile_args with
 * the same target and options does not translate again. */
t2c_status t2c_program_translate(t2c_program *p, const char *target, const char *const *args, int nargs);

/* ---- compiling */

typedef enum t2c_output { T2C_OUTPUT_CUBIN = 0, T2C_OUTPUT_PTX = 1 } t2c_output;
enum { T2C_NO_CACHE = 1 }; /* t2c_compile_options.flags */

typedef struct t2c_compile_options {
  const char *target;  /* "sm_90"; NULL: the device's, or sm_90 without one */
  t2c_output output;
  unsigned flags;
} t2c_compile_options;

/* Compiles with NVRTC (-arch=sm_XX, ptxas -v), through the disk cache.
 * The program is translated again for the target's config. opts may be NULL.
 * The same as t2c_compile_args(p, opts, NULL, 0). */
t2c_status t2c_compile(t2c_program *p, const t2c_compile_options *opts);
/* t2c_compile with translator options, each a string as on the tile2cu
 * command line: "-D" then "NAME=VALUE", or "-DNAME=VALUE" (the file-level
 * const NAME takes VALUE, an integer or float literal; of several -D of one
 * NAME the last wins), "-Wno-NAME" (no warning NAME), "-WNAME" (NAME on again), "-Werror" (warnings
 * are errors), "-w" (no warnings). args may be NULL when nargs is 0. The
 * program is translated again unless its last translation had the same
 * target and the same args; t2c_program_cuda_source and the diagnostics are
 * then that translation's. A malformed option, a -D of a name that is no
 * file-level const, and under -Werror any warning, fail the translation:
 * T2C_ERROR_TRANSLATE, with the messages in the diagnostics. The -D applied
 * are part of the cache key. */
t2c_status t2c_compile_args(t2c_program *p, const t2c_compile_options *opts, const char *const *args, int nargs);
/* The cubin or PTX of the last successful compile. */
const void *t2c_program_binary(const t2c_program *p, size_t *size);
/* The NVRTC log of the last compile (ptxas -v lines included). */
const char *t2c_program_compile_log(const t2c_program *p);
/* 1 when the last compile came from the cache, 0 when NVRTC ran. */
int t2c_program_cache_hit(const t2c_program *p);
/* The cache directory in use ("" when TILE2CU_CACHE=0). */
t2c_status t2c_cache_dir(char *buf, size_t size);

/* ---- devices, modules and launches */

/* T2C_SUCCESS when libcuda loads and a device is present; otherwise
 * T2C_ERROR_NO_DEVICE, with the reason in t2c_last_error(). */
t2c_status t2c_device_available(void);
/* Loads the program's cubin (compiling first for the device, with the
 * translator options of its last translation, if it has none). */
t2c_status t2c_module_load(t2c_program *p, t2c_module **out);
void t2c_module_unload(t2c_module *m);

typedef struct t2c_launch_options {
  unsigned grid[3];  /* all 0: from @grid */
  void *stream;      /* a CUstream; NULL: the default stream */
} t2c_launch_options;

/* Launches kernel. args is as for cuLaunchKernel: args[i] points at the value
 * of parameter i, the declared parameters (a t2c_devptr for a tensor), then
 * the size names as int, then the strides of the @strided tensors as long
 * long (X_stride0, ..., in elements; t2c_kernel_info.num_strides of them).
 * Checks every size >= 1 and every @assume first. */
t2c_status t2c_launch(t2c_module *m, const char *kernel, void **args, const t2c_launch_options *opts);

/* ---- the CPU backend (no GPU needed) */

/* A tensor argument of t2c_cpu_launch: row-major host memory, or for a
 * @strided tensor a view whose strides the launch passes after the sizes. */
typedef struct t2c_host_tensor {
  void *data;               /* prod(shape) elements of the parameter's dtype (a @strided
                               tensor: 1 + sum over d of (shape[d] - 1) * stride[d]) */
  int rank;                 /* must equal the parameter's */
  const long long *shape;   /* each dim must equal the declared constant or size */
} t2c_host_tensor;

typedef struct t2c_cpu_options {
  unsigned grid[3];         /* all 0: from @grid */
  int schedules;            /* thread schedules run and compared (0: 1); see docs/cpu-backend.md */
} t2c_cpu_options;

/* Runs kernel on the CPU backend (docs/cpu-backend.md): the program's last
 * translation (target and -D options included) in sim mode, compiled with
 * the host C++ compiler ($CXX, default g++, and the CUDA headers of
 * $CUDA_HOME, default /usr/local/cuda) into a shared object kept in the
 * compile cache (<cache dir>/sim), so a second launch of the same
 * translation compiles nothing. args is as for t2c_launch, except that a
 * tensor parameter's value is a t2c_host_tensor (a @strided one's strides, as
 * long long >= 0 in elements, follow the sizes as for t2c_launch; an access
 * between the view's elements is out of bounds). Checks each tensor's rank
 * and dims against its declaration and the sizes, every @assume, and @grid
 * (T2C_ERROR_INVALID_VALUE, T2C_ERROR_ASSUME, T2C_ERROR_GRID) first. The
 * kernel's outputs are written in place; on T2C_ERROR_CPU (a failed build,
 * a race, an index out of bounds) they keep their contents. Blocks run on
 * worker threads; the call returns when the kernel has finished. */
t2c_status t2c_cpu_launch(t2c_program *p, const char *kernel, void **args, const t2c_cpu_options *opts);

/* Times kernel on the device: warmup launches, then reps launches each
 * between two events on opts->stream; times_ms[0..reps) gets each launch's
 * time in milliseconds (cuEventElapsedTime). Arguments as for t2c_launch. */
t2c_status t2c_time_launch(t2c_module *m, const char *kernel, void **args, const t2c_launch_options *opts,
                           int warmup, int reps, float *times_ms);

t2c_status t2c_mem_alloc(t2c_devptr *out, size_t bytes);
t2c_status t2c_mem_free(t2c_devptr p);
t2c_status t2c_memcpy_htod(t2c_devptr dst, const void *src, size_t bytes);
t2c_status t2c_memcpy_dtoh(void *dst, t2c_devptr src, size_t bytes);
t2c_status t2c_synchronize(void);

#ifdef __cplusplus
}
#endif
#endif
