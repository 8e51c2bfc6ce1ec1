/* t2c_api.h: the translator's public entry points, for libtile2cu (nvrtc_driver/).
 *
 * The driver sees the translator only through this header: no AST, Arena,
 * Buf, TargetConfig or EmitOptions crosses it. A translation is one call that
 * hands back malloc'd text (the CUDA, with #line directives, and the
 * diagnostics as clang-style lines) and an opaque TrProgram that answers what
 * a launch needs of each kernel: its facts (threads, shared bytes, parameter
 * and size counts) and, from cuLaunchKernel-style arguments, the size and
 * @assume checks and the @grid. Targets are opaque too (TrTarget), loaded
 * from a config file or from YAML text. Implemented in api.c on top of the
 * internals in t2c.h; names take the prefix tr_ ("translator"), which the
 * shared library does not export (it exports t2c_* only).
 */
#ifndef T2C_API_H
#define T2C_API_H

#include <stdbool.h>
#include <stddef.h>

typedef struct TrTarget TrTarget;   /* a target config (configs/NAME.yaml) */
typedef struct TrProgram TrProgram; /* the kernels of one translation; owns their memory */

/* What a launch needs to know of one kernel. name lives as long as its TrProgram. */
typedef struct TrKernelFacts {
  const char *name;
  int threads;              /* @launch: threads per block */
  long long shared_bytes;   /* shared memory of one block */
  bool dynamic_smem;        /* shared_bytes is dynamic (above the static limit) */
  int nparams, nsizes;      /* arguments: nparams declared params, then nsizes int sizes, */
  int nstrides;             /* then nstrides long long strides (@strided), */
  int ntmaps;               /* then ntmaps TMA tensor maps, which the launcher builds (tr_kernel_tmap) */
} TrKernelFacts;

/* TMA tensor map i (0 <= i < ntmaps) of kernel k: tensor parameter `param`,
 * row-major of rank 2 to 4 (dim d is the size argument dim_size[d], counted
 * from the first size, or the constant dim_const[d] when it is -1), read in
 * boxes of box_rows x box_cols elements of its last two dims (one element of
 * each other dim) with a swizzle-byte swizzle. Build it with
 * cuTensorMapEncodeTiled when the tensor's address is 16-byte aligned and its
 * last dim times elem_bytes a multiple of 16; pass zeros otherwise (the
 * kernel then does not read it). */
typedef struct TrTmap {
  int param;
  int rank;
  int dim_size[4];
  long long dim_const[4];
  int elem_bytes;
  int dtype;                /* CUtensorMapDataType */
  unsigned box_rows, box_cols;
  int swizzle;              /* 32, 64 or 128 bytes */
} TrTmap;
void tr_kernel_tmap(const TrProgram *p, int k, int i, TrTmap *out);

/* The result of tr_launch_shape; the message says which size, @assume or dim. */
typedef enum TrLaunch {
  TR_LAUNCH_OK,
  TR_LAUNCH_BAD_SIZE,   /* a size outside 1..INT_MAX */
  TR_LAUNCH_ASSUME,     /* an @assume condition is false */
  TR_LAUNCH_BAD_GRID,   /* @grid cannot be evaluated, or a dim is out of range */
  TR_LAUNCH_NO_MEMORY,
} TrLaunch;

/* "0.1.0" */
const char *tr_version(void);

/* ---- targets */
/* configs/NAME.yaml: $TILE2CU_CONFIG_DIR, then next to the running binary
 * (../share/tile2cu/configs, ../configs), then the build-time PREFIX: true
 * with its path. */
bool tr_target_find(const char *name, char *path, size_t n);
/* A target from a config file, or from YAML text (name is shown in messages).
 * NULL with a message in err when it does not load. Free with tr_target_free. */
TrTarget *tr_target_load(const char *path, char *err, size_t n);
TrTarget *tr_target_parse(const char *name, const char *yaml, char *err, size_t n);
void tr_target_free(TrTarget *t);
int tr_target_sm(const TrTarget *t);                       /* 90 for sm_90 and sm_90a */
/* "sm_90a" with prefix "sm", "compute_90a" with "compute": the architecture
 * nvcc and NVRTC take, suffix included (build arch strings with this, never
 * from the sm number: sm_90 rejects wgmma). */
void tr_target_arch(const TrTarget *t, const char *prefix, char *buf, size_t n);
bool tr_target_same(const TrTarget *a, const TrTarget *b); /* every field equal */

/* ---- translation */
/* Translates source (named name in diagnostics and #line directives) for t,
 * with the translator options opts[0..nopts) as on the command line ("-D",
 * "NAME=VALUE", "-DNAME=VALUE", "-Wno-NAME", "-WNAME", "-Werror", "-w"; see options.c).
 * *diags gets the messages (malloc'd, "" when none). Returns 0 with the CUDA
 * in *cuda (malloc'd) and the kernels in *prog; 1 when the source or an
 * option has errors (*cuda and *prog NULL); -1 with errno set when memory ran
 * out (all NULL). */
int tr_translate(const char *name, const char *source, const TrTarget *t, const char *const *opts, int nopts,
                 char **cuda, char **diags, TrProgram **prog);
/* The same translation in sim mode (the CPU backend's variant, no #line
 * directives): 0 with the CUDA in *cuda (malloc'd), 1 on errors (the messages
 * were those of tr_translate), -1 when memory ran out. */
int tr_translate_sim(const char *name, const char *source, const TrTarget *t, const char *const *opts, int nopts,
                     char **cuda);
/* The -D applied, "-D BM=64 -D BN=32" in the file's order ("" when none). */
const char *tr_program_defines(const TrProgram *p);
void tr_program_free(TrProgram *p);
int tr_num_kernels(const TrProgram *p);
/* Kernel k (0 <= k < tr_num_kernels). */
void tr_kernel_facts(const TrProgram *p, int k, TrKernelFacts *out);
/* Declared parameter i (0 <= i < nparams) of kernel k; names live as long
 * as the TrProgram. */
typedef struct TrParam {
  const char *name;
  bool tensor;              /* a tensor; otherwise a scalar */
  const char *elem;         /* "f32", "bf16", ... (types.def) */
  int elem_bytes;
  int rank;                 /* tensors: 1..4 */
  const char *dim_size[4];  /* the size name of dim d, or NULL when constant */
  long long dim_const[4];   /* dim d when constant */
  bool written;             /* the kernel stores to the tensor */
  bool strided;             /* in @strided: the launch passes its rank strides */
} TrParam;
void tr_kernel_param(const TrProgram *p, int k, int i, TrParam *out);
/* Size name i (0 <= i < nsizes) of kernel k. */
const char *tr_kernel_size(const TrProgram *p, int k, int i);
/* Reads the arguments of kernel k (as for cuLaunchKernel: pointers to the
 * nparams params, then to the nsizes sizes as int, then to the nstrides
 * strides as long long; none NULL), checks every
 * size and @assume and, when grid is not NULL, evaluates @grid into it.
 * Anything but TR_LAUNCH_OK comes with a message naming the kernel in err. */
TrLaunch tr_launch_shape(const TrProgram *p, int k, void *const *args, unsigned grid[3], char *err, size_t n);

/* ---- files */
/* A whole .tl file, NUL-terminated and malloc'd ("-" is stdin); NULL with a
 * message in err (unreadable, over the size limit, or holding a NUL byte). */
char *tr_read_source(const char *path, char *err, size_t n);
/* The per-user cache directory that tile2cu run shares: $TILE2CU_CACHE_DIR,
 * else $XDG_CACHE_HOME/tile2cu, else ~/.cache/tile2cu. */
void tr_cache_root(char *out, size_t n);
/* mkdir -p, new directories 0700: 0, or -1 with errno. */
int tr_cache_mkdirs(const char *path);

#endif /* T2C_API_H */
