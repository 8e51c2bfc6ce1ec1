/* api.c: the translator's public entry points (t2c_api.h), for libtile2cu.
 *
 * Thin wrappers over the internals. A TrTarget is a TargetConfig on the heap.
 * A TrProgram is the Arena and Program of one translation with its own copy
 * of the target and the file name, since KernelInfo.target points at the
 * target: the kernels never outlive what they point to. tr_translate runs
 * translate() with #line directives, collects the diagnostics through
 * open_memstream, and hands the CUDA Buf's malloc'd storage to the caller.
 * tr_launch_shape reads scalars by their declared types and sizes as int,
 * then checks and evaluates them with launch.c, as tile2cu run does.
 */
#include "t2c.h"
#include "t2c_api.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct TrTarget {
  TargetConfig c;
};

struct TrProgram {
  Arena arena;
  Program *prog;
  TargetConfig target;  /* what every KernelInfo.target points at */
};

const char *tr_version(void) { return TILE2CU_VERSION; }

/* ------------------------------------------------------------ targets */

bool tr_target_find(const char *name, char *path, size_t n) { return config_find(name, NULL, path, n); }

static TrTarget *target_new(char *err, size_t n) {
  TrTarget *t = calloc(1, sizeof *t);
  if (!t) snprintf(err, n, "out of memory");
  return t;
}

TrTarget *tr_target_load(const char *path, char *err, size_t n) {
  TrTarget *t = target_new(err, n);
  if (t && !config_load(path, &t->c, err, n)) {
    free(t);
    return NULL;
  }
  return t;
}

TrTarget *tr_target_parse(const char *name, const char *yaml, char *err, size_t n) {
  TrTarget *t = target_new(err, n);
  if (t && !config_load_text(name, yaml, &t->c, err, n)) {
    free(t);
    return NULL;
  }
  return t;
}

void tr_target_free(TrTarget *t) { free(t); }
int tr_target_sm(const TrTarget *t) { return t->c.sm; }
void tr_target_arch(const TrTarget *t, const char *prefix, char *buf, size_t n) { config_arch(&t->c, prefix, buf, n); }
bool tr_target_same(const TrTarget *a, const TrTarget *b) { return memcmp(&a->c, &b->c, sizeof a->c) == 0; }

/* ------------------------------------------------------------ translation */

/* Ends the capture of diagnostics; they stay in *diags ("" at least). */
static bool close_diags(FILE *mem, char **diags) {
  fclose(mem);
  if (!*diags) *diags = strdup("");
  return *diags != NULL;
}

/* translate() into *cuda and *diags; sim picks the CPU backend's variant. */
static int translate_as(const char *name, const char *source, const TrTarget *t, const char *const *opts, int nopts,
                        bool sim, char **cuda, char **diags, TrProgram **prog) {
  *cuda = *diags = NULL;
  *prog = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(diags, &len);
  TrProgram *p = mem ? calloc(1, sizeof *p) : NULL;
  if (!p) {
    if (mem) fclose(mem);
    free(*diags);
    *diags = NULL;
    errno = ENOMEM;
    return -1;
  }
  p->target = t->c;
  const char *file = arena_strndup(&p->arena, name, strlen(name));
  EmitOptions eo = {.line_directives = !sim, .sim = sim, .file = file, .opts = opts, .nopts = nopts};
  Buf out = {0};
  int st = translate(file, source, &p->target, &eo, &out, mem, &p->prog, &p->arena);
  bool ok = close_diags(mem, diags);
  if (st == 0 && ok && !out.data) ok = (out.data = strdup("")) != NULL;
  if (st != 0 || !ok) {
    buf_free(&out);
    tr_program_free(p);
    if (!ok) errno = ENOMEM;
    return ok ? 1 : -1;
  }
  *cuda = out.data;
  *prog = p;
  return 0;
}

int tr_translate(const char *name, const char *source, const TrTarget *t, const char *const *opts, int nopts,
                 char **cuda, char **diags, TrProgram **prog) {
  return translate_as(name, source, t, opts, nopts, false, cuda, diags, prog);
}

int tr_translate_sim(const char *name, const char *source, const TrTarget *t, const char *const *opts, int nopts,
                     char **cuda) {
  char *diags;
  TrProgram *prog;
  int st = translate_as(name, source, t, opts, nopts, true, cuda, &diags, &prog);
  free(diags);
  tr_program_free(prog);
  return st;
}

const char *tr_program_defines(const TrProgram *p) { return p && p->prog && p->prog->defines ? p->prog->defines : ""; }

void tr_program_free(TrProgram *p) {
  if (!p) return;
  arena_free(&p->arena);
  free(p);
}

int tr_num_kernels(const TrProgram *p) { return p && p->prog ? p->prog->nkernels : 0; }

void tr_kernel_facts(const TrProgram *p, int k, TrKernelFacts *out) {
  const Kernel *kn = p->prog->kernels[k];
  const KernelInfo *ki = kn->info;
  *out = (TrKernelFacts){kn->name, ki->threads, (long long)ki->shared_bytes, ki->dynamic_smem, ki->nparams,
                         ki->nsizes, ki->nstrides, ki->ntmaps};
}

/* CUtensorMapDataType (cuda.h): 8-bit types move as bytes. */
static int tma_dtype(ElemType t) {
  switch (t) {
  case T_F16: return 6;
  case T_BF16: return 9;
  case T_F32: return 7;
  case T_F64: return 8;
  case T_I32: case T_U32: return 3;
  default: return 0;
  }
}

void tr_kernel_tmap(const TrProgram *p, int k, int i, TrTmap *out) {
  const KernelInfo *ki = p->prog->kernels[k]->info;
  const TmaMap *m = &ki->tmaps[i];
  const Sym *X = m->tensor;
  *out = (TrTmap){X->param_index, X->trank, {-1, -1, -1, -1}, {0, 0, 0, 0}, elem_bytes[X->ty.elem], tma_dtype(X->ty.elem),
                  (unsigned)m->box_rows, (unsigned)m->box_cols, m->swizzle};
  for (int d = 0; d < X->trank; d++) {
    out->dim_const[d] = (long long)X->tdim_const[d];
    for (int j = 0; j < ki->nsizes; j++)
      if (ki->sizes[j] == X->tdim_size[d]) out->dim_size[d] = j;
  }
}

void tr_kernel_param(const TrProgram *p, int k, int i, TrParam *out) {
  const KernelInfo *ki = p->prog->kernels[k]->info;
  const Sym *s = ki->params[i];
  *out = (TrParam){s->name, s->kind == SY_TENSOR, elem_names[s->ty.elem], elem_bytes[s->ty.elem], 0, {0}, {0},
                   s->written, s->kind == SY_TENSOR && s->tstride[0] != NULL};
  if (!out->tensor) return;
  out->rank = s->trank;
  for (int d = 0; d < s->trank; d++) {
    out->dim_size[d] = s->tdim_size[d] ? s->tdim_size[d]->name : NULL;
    out->dim_const[d] = (long long)s->tdim_const[d];
  }
}

const char *tr_kernel_size(const TrProgram *p, int k, int i) {
  const KernelInfo *ki = p->prog->kernels[k]->info;
  return ki->sizes[i]->name;
}

/* ------------------------------------------------------------ launches */

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

static TrLaunch check_shape(const Kernel *kn, const double *pv, const int64_t *sv, unsigned grid[3], char *err,
                            size_t n) {
  const KernelInfo *ki = kn->info;
  char why[1024];
  if (!launch_check_sizes(ki, sv, why, sizeof why)) {
    snprintf(err, n, "kernel %s: %s", kn->name, why);
    return TR_LAUNCH_BAD_SIZE;
  }
  if (!launch_check_assumes(ki, kn->name, pv, sv, err, n)) return TR_LAUNCH_ASSUME;
  if (grid && !launch_grid(ki, pv, sv, grid, why, sizeof why)) {
    snprintf(err, n, "kernel %s: %s", kn->name, why);
    return TR_LAUNCH_BAD_GRID;
  }
  return TR_LAUNCH_OK;
}

TrLaunch tr_launch_shape(const TrProgram *p, int k, void *const *args, unsigned grid[3], char *err, size_t n) {
  const Kernel *kn = p->prog->kernels[k];
  const KernelInfo *ki = kn->info;
  double *pv = calloc((size_t)ki->nparams + 1, sizeof *pv);
  int64_t *sv = calloc((size_t)ki->nsizes + 1, sizeof *sv);
  TrLaunch r = TR_LAUNCH_NO_MEMORY;
  if (pv && sv) {
    for (int i = 0; i < ki->nparams; i++)
      if (ki->params[i]->kind == SY_SCALAR) pv[i] = scalar_value(ki->params[i]->ty.elem, args[i]);
    for (int i = 0; i < ki->nsizes; i++) sv[i] = *(const int *)args[ki->nparams + i];
    r = check_shape(kn, pv, sv, grid, err, n);
  } else {
    snprintf(err, n, "out of memory");
  }
  free(pv);
  free(sv);
  return r;
}

/* ------------------------------------------------------------ files */

char *tr_read_source(const char *path, char *err, size_t n) { return read_tl_file(path, err, n, NULL); }
void tr_cache_root(char *out, size_t n) { launch_cache_dir(out, n); }
int tr_cache_mkdirs(const char *path) { return launch_mkdirs(path); }
