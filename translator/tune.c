/* tune.c: `tile2cu tune`, which tries -D combinations of a kernel (docs/tune.md).
 *
 *   tile2cu tune FILE.tl --kernel NAME --space 'BM=64,128 BN=64,128' --sizes 'M=4096 N=4096'
 *                [--target sm_XX] [--dry-run] [--warmup N] [--reps N] [-o OUT.yaml] [-D/-W ...]
 *
 * The candidates are the product of the --space values, each a set of -D
 * options after the command line's own. A file without the kernel is an
 * error (exit 2) that lists its kernels. A candidate is skipped, with the
 * reason, when it does not translate, fails an @assume or
 * @grid at --sizes, does not compile with NVRTC, or fits no block on an SM.
 * --dry-run lists the candidates with the resources `tile2cu report` gives
 * (threads, shared bytes, ptxas registers, stack, spills, occupancy) and
 * needs no GPU. Otherwise tune needs a CUDA device (exit 2 without one):
 * every candidate runs on the same random inputs, is checked against the
 * first candidate that ran (the reference), and is timed with CUDA events
 * (warm-up launches, then the median of --reps); the fastest correct one is
 * written to the tuning file (tuned.c), keyed by the source's SHA-256, the
 * target, the kernel and the size class.
 *
 * Exit status: 0 done, 1 no candidate fits (or none is correct), 2 usage,
 * I/O, no NVRTC for the timing, or no GPU.
 */
#include "t2c.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../nvrtc_driver/tile2cu.h"

enum { MAX_VARS = 8, MAX_VALS = 32, MAX_CANDIDATES = 256, MAX_BINDS = 32 };

typedef struct SpaceVar {
  char name[64];
  char vals[MAX_VALS][32];
  int nvals;
} SpaceVar;

/* One NAME=VALUE of --sizes: the text, read against the kernel (check_binds); a size's
 * value (NaN when the text is no number). */
typedef struct Bind {
  char name[64];
  const char *text;
  double value;
  int64_t ivalue;
} Bind;

typedef struct TuneOpts {
  const char *file, *kernel, *space, *sizes, *target, *output;
  bool dry_run;
  int warmup, reps;
  const char **opts; /* -D and -W options (options.c) */
  int nopts;
  SpaceVar vars[MAX_VARS];
  int nvars;
  Bind binds[MAX_BINDS];
  int nbinds;
} TuneOpts;

/* One candidate: its -D options and what became of it. */
typedef struct Cand {
  char defs[MAX_VARS * 100];      /* "BM=64 BN=128" */
  const char *opts[MAX_VARS + 64];
  int nopts;
  char dopt[MAX_VARS][100];       /* "-DBM=64" */
  bool fits;
  char why[1024];                 /* why it was skipped */
  int threads, regs, stack, spill_st, spill_ld, blocks;
  int64_t smem;
  char occupancy[256];
  t2c_program *tp;
  double median_ms;
  bool timed;
} Cand;

static int tfail(const char *fmt_, ...) __attribute__((format(printf, 1, 2)));
static int tfail(const char *fmt_, ...) {
  va_list ap;
  va_start(ap, fmt_);
  fprintf(stderr, "tile2cu tune: ");
  vfprintf(stderr, fmt_, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

static const char tune_usage[] =
    "usage: tile2cu tune FILE.tl --kernel NAME --space 'A=1,2 B=3,4' --sizes 'M=4096 ...' [options]\n"
    "\n"
    "Tries every combination of the --space values as -D constants: skips those that do\n"
    "not translate or fit, checks each on random inputs against the first that ran, times\n"
    "them on the GPU and writes the fastest to a tuning file. Without a GPU it says so and\n"
    "exits 2; --dry-run lists the candidates and their resources without one.\n"
    "\n"
    "options:\n"
    "  --kernel NAME      the kernel to tune (required)\n"
    "  --space SPEC       NAME=V1,V2,... separated by spaces: the -D values to try (required)\n"
    "  --sizes SPEC       NAME=VALUE separated by spaces: every size name and scalar of the\n"
    "                     kernel (required but with --dry-run; scalars not given are 1)\n"
    "  --target sm_XX     the target config (default sm_90)\n"
    "  --dry-run          list the candidates with threads, shared memory, registers and\n"
    "                     occupancy (as tile2cu report gives them); needs no GPU\n"
    "  --warmup N         launches before timing, 0 to 1000 (default 3)\n"
    "  --reps N           timed launches, 1 to 10000; the median counts (default 20)\n"
    "  -o OUT.yaml        the tuning file to write or update (default FILE.tuned.yaml); not -\n"
    OPTS_HELP
    "  --help             print this help\n";

/* ------------------------------------------------------------ arguments */

static bool is_name(const char *s, size_t n) {
  if (n == 0 || n >= 64 || !(s[0] == '_' || ((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z'))) return false;
  for (size_t i = 1; i < n; i++)
    if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z'))) return false;
  return true;
}

static bool is_number(const char *s, double *out) {
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(d)) return false;
  if (out) *out = d;
  return true;
}

/* One "NAME=V1,V2" word of --space. */
static int parse_space_word(TuneOpts *o, char *w) {
  char *eq = strchr(w, '=');
  if (!eq || !is_name(w, (size_t)(eq - w)))
    return tfail("--space: '%s' is not NAME=V1,V2,... (NAME a file-level const)", w);
  *eq = 0;
  for (int i = 0; i < o->nvars; i++)
    if (strcmp(o->vars[i].name, w) == 0) return tfail("--space: %s is given twice", w);
  if (o->nvars == MAX_VARS) return tfail("--space: at most %d names", MAX_VARS);
  SpaceVar *v = &o->vars[o->nvars++];
  snprintf(v->name, sizeof v->name, "%s", w);
  char *save = NULL;
  if (!eq[1]) return tfail("--space: %s has no values", w);
  if (eq[1] == ',' || eq[strlen(eq + 1)] == ',' || strstr(eq + 1, ",,"))
    return tfail("--space: %s has an empty value", w);
  for (char *t = strtok_r(eq + 1, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (!is_number(t, NULL) || strlen(t) >= sizeof v->vals[0])
      return tfail("--space: %s=%s: a value is an integer or float literal", w, t);
    for (int i = 0; i < v->nvals; i++)
      if (strcmp(v->vals[i], t) == 0) return tfail("--space: %s lists %s twice", w, t);
    if (v->nvals == MAX_VALS) return tfail("--space: %s has more than %d values", w, MAX_VALS);
    snprintf(v->vals[v->nvals++], sizeof v->vals[0], "%s", t);
  }
  return 0;
}

static int parse_space(TuneOpts *o) {
  char buf[4096];
  if (strlen(o->space) >= sizeof buf) return tfail("--space is too long");
  snprintf(buf, sizeof buf, "%s", o->space);
  char *save = NULL;
  int st = 0;
  for (char *w = strtok_r(buf, " \t", &save); w && !st; w = strtok_r(NULL, " \t", &save)) st = parse_space_word(o, w);
  if (st) return st;
  if (o->nvars == 0) return tfail("--space is empty: give NAME=V1,V2,...");
  long n = 1;
  for (int i = 0; i < o->nvars; i++) n *= o->vars[i].nvals;
  if (n > MAX_CANDIDATES) return tfail("--space gives %ld candidates; at most %d", n, MAX_CANDIDATES);
  return 0;
}

/* The words of --sizes; their values are read against the kernel (check_binds), whose
 * types say what each takes. */
static int parse_sizes(TuneOpts *o) {
  static char buf[4096]; /* the binds' text: one tune per process */
  if (!o->sizes) return 0;
  if (strlen(o->sizes) >= sizeof buf) return tfail("--sizes is too long");
  snprintf(buf, sizeof buf, "%s", o->sizes);
  char *save = NULL;
  for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(w, '=');
    double d = NAN;
    if (!eq || !is_name(w, (size_t)(eq - w)))
      return tfail("--sizes: '%s' is not NAME=VALUE", w);
    is_number(eq + 1, &d);
    *eq = 0;
    for (int i = 0; i < o->nbinds; i++)
      if (strcmp(o->binds[i].name, w) == 0) return tfail("--sizes: %s is given twice", w);
    if (o->nbinds == MAX_BINDS) return tfail("--sizes: at most %d names", MAX_BINDS);
    Bind *b = &o->binds[o->nbinds++];
    snprintf(b->name, sizeof b->name, "%s", w);
    b->text = eq + 1;
    b->value = d;
    b->ivalue = d >= 1 && d <= 0x7fffffff ? (int64_t)d : 0;
  }
  return 0;
}

static bool parse_count(const char *s, int lo, int hi, int *out) {
  double d;
  if (!is_number(s, &d) || d != floor(d) || d < lo || d > hi) return false;
  *out = (int)d;
  return true;
}

static int parse_tune_args(int argc, char **argv, TuneOpts *o) {
  o->warmup = 3;
  o->reps = 20;
  o->opts = calloc((size_t)argc + 1, sizeof *o->opts);
  if (!o->opts) return tfail("out of memory");
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    bool val = i + 1 < argc;
    if (opts_take(argc, argv, &i, o->opts, &o->nopts)) continue;
    if (strcmp(s, "--kernel") == 0 && val) o->kernel = argv[++i];
    else if (strcmp(s, "--space") == 0 && val) o->space = argv[++i];
    else if (strcmp(s, "--sizes") == 0 && val) o->sizes = argv[++i];
    else if (strcmp(s, "--target") == 0 && val) o->target = argv[++i];
    else if (strcmp(s, "-o") == 0 && val) o->output = argv[++i];
    else if (strcmp(s, "--dry-run") == 0) o->dry_run = true;
    else if (strcmp(s, "--warmup") == 0 && val) {
      if (!parse_count(argv[++i], 0, 1000, &o->warmup)) return tfail("--warmup takes 0 to 1000, not '%s'", argv[i]);
    } else if (strcmp(s, "--reps") == 0 && val) {
      if (!parse_count(argv[++i], 1, 10000, &o->reps)) return tfail("--reps takes 1 to 10000, not '%s'", argv[i]);
    } else if (s[0] == '-' && s[1]) return tfail("unknown or incomplete option '%s'", s);
    else if (o->file) return tfail("more than one .tl file ('%s')", s);
    else o->file = s;
  }
  if (o->nopts > 64) return tfail("more than 64 -D and -W options");
  if (!o->file) return tfail("no .tl file (usage: tile2cu tune FILE.tl --kernel NAME --space SPEC --sizes SPEC)");
  if (!o->kernel) return tfail("--kernel NAME is required");
  if (!o->space) return tfail("--space 'NAME=V1,V2 ...' is required");
  if (!o->sizes && !o->dry_run) return tfail("--sizes 'M=4096 ...' is required (but with --dry-run)");
  /* the tuning file is updated in place (its other entries kept), and stdout carries the
   * candidates' lines: neither leaves room for the file on stdout */
  if (o->output && strcmp(o->output, "-") == 0)
    return tfail("-o -: the tuning file cannot go to stdout (tune prints the candidates there, and updates "
                 "the file in place); give -o FILE.yaml");
  int st = parse_space(o);
  return st ? st : parse_sizes(o);
}

/* ------------------------------------------------------------ candidates */

/* Candidate number idx of the product, in the order of --space (the last name varies fastest). */
static void make_candidate(const TuneOpts *o, long idx, Cand *c) {
  c->nopts = 0;
  for (int i = 0; i < o->nopts; i++) c->opts[c->nopts++] = o->opts[i];
  c->defs[0] = 0;
  long r = idx;
  int pick[MAX_VARS];
  for (int v = o->nvars - 1; v >= 0; v--) {
    pick[v] = (int)(r % o->vars[v].nvals);
    r /= o->vars[v].nvals;
  }
  for (int v = 0; v < o->nvars; v++) {
    size_t l = strlen(c->defs);
    snprintf(c->defs + l, sizeof c->defs - l, "%s%s=%s", v ? " " : "", o->vars[v].name, o->vars[v].vals[pick[v]]);
    snprintf(c->dopt[v], sizeof c->dopt[v], "-D%s=%s", o->vars[v].name, o->vars[v].vals[pick[v]]);
    c->opts[c->nopts++] = c->dopt[v];
  }
}

/* The first error line of a translation's diagnostics. */
static void first_error(const char *diags, char *out, size_t n) {
  const char *e = diags ? strstr(diags, "error: ") : NULL;
  if (!e) {
    snprintf(out, n, "the translation failed");
    return;
  }
  const char *start = e;
  while (start > diags && start[-1] != '\n') start--;
  size_t len = strcspn(start, "\n");
  snprintf(out, n, "%.*s", (int)len, start);
}

static const Bind *find_bind(const TuneOpts *o, const char *name) {
  for (int i = 0; i < o->nbinds; i++)
    if (strcmp(o->binds[i].name, name) == 0) return &o->binds[i];
  return NULL;
}

/* Scalar p's value: its --sizes text, or 1 when not given, as tile2cu run reads a
 * scalar (launch_scalar). False with a message in err. */
static bool scalar_value(const TuneOpts *o, ElemType e, const char *name, ScalarArg *v, double *dv, char *err,
                         size_t n) {
  const Bind *b = find_bind(o, name);
  return launch_scalar(e, name, b ? b->text : "1", v, dv, err, n);
}

/* --sizes against the kernel: every size given, every name a size or scalar, every
 * value one its size or scalar takes. */
static int check_binds(const TuneOpts *o, const KernelInfo *ki) {
  for (int i = 0; i < o->nbinds; i++) {
    bool known = false;
    for (int s = 0; s < ki->nsizes; s++) known |= strcmp(ki->sizes[s]->name, o->binds[i].name) == 0;
    for (int p = 0; p < ki->nparams; p++)
      known |= ki->params[p]->kind == SY_SCALAR && strcmp(ki->params[p]->name, o->binds[i].name) == 0;
    if (!known) return tfail("--sizes: kernel %s has no size or scalar '%s'", o->kernel, o->binds[i].name);
  }
  for (int s = 0; s < ki->nsizes; s++) {
    const Bind *b = find_bind(o, ki->sizes[s]->name);
    if (!b) return tfail("--sizes: size %s of kernel %s is not given", ki->sizes[s]->name, o->kernel);
    if (b->value != floor(b->value) || b->value < 1 || b->value > 0x7fffffff)
      return tfail("--sizes: %s=%s: a size is an integer from 1 to 2147483647", b->name, b->text);
  }
  for (int p = 0; p < ki->nparams; p++) {
    const Sym *y = ki->params[p];
    ScalarArg v;
    double d;
    char err[512];
    if (y->kind == SY_SCALAR && !scalar_value(o, y->ty.elem, y->name, &v, &d, err, sizeof err))
      return tfail("--sizes: %s", err);
  }
  return 0;
}

/* The values of the scalars (1 unless given) and sizes, for @assume and @grid (after
 * check_binds, so every scalar reads). */
static void launch_values(const TuneOpts *o, const KernelInfo *ki, double *pv, int64_t *sv) {
  for (int p = 0; p < ki->nparams; p++) {
    const Sym *y = ki->params[p];
    ScalarArg v;
    char err[512];
    pv[p] = 0;
    if (y->kind == SY_SCALAR) scalar_value(o, y->ty.elem, y->name, &v, &pv[p], err, sizeof err);
  }
  for (int s = 0; s < ki->nsizes; s++) sv[s] = find_bind(o, ki->sizes[s]->name)->ivalue;
}

/* The translator's facts of a candidate, @assume and @grid at --sizes. 0, 1 (skipped) or 2 (usage). */
static int candidate_facts(const TuneOpts *o, const TargetConfig *t, const char *src, Cand *c, unsigned grid[3]) {
  Arena a = {0};
  Buf cu = {0};
  Program *p = NULL;
  char *dtext = NULL;
  size_t dlen = 0;
  FILE *mem = open_memstream(&dtext, &dlen);
  EmitOptions eo = {.file = o->file, .opts = c->opts, .nopts = c->nopts};
  int st = mem ? translate(o->file, src, t, &eo, &cu, mem, &p, &a) : 2;
  if (mem) fclose(mem);
  int rc = 0;
  Kernel *k = NULL;
  for (int i = 0; st == 0 && i < p->nkernels; i++)
    if (strcmp(p->kernels[i]->name, o->kernel) == 0) k = p->kernels[i];
  if (st != 0) {
    first_error(dtext, c->why, sizeof c->why);
    rc = 1;
  } else if (!k) {
    /* a misspelt name, not a candidate's fault: the kernels are the file's whatever the
     * constants, so every candidate would lack it. The ones there are, as run says */
    Buf names = {0};
    for (int i = 0; i < p->nkernels; i++) buf_printf(&names, "%s%s", i ? ", " : "", p->kernels[i]->name);
    rc = tfail("%s has no kernel '%s' (kernels: %s)", o->file, o->kernel, names.len ? names.data : "none");
    buf_free(&names);
  } else {
    KernelInfo *ki = k->info;
    c->threads = ki->threads;
    c->smem = ki->shared_bytes;
    if (o->sizes && (rc = check_binds(o, ki)) == 0) {
      double *pv = calloc((size_t)ki->nparams + 1, sizeof *pv);
      int64_t *sv = calloc((size_t)ki->nsizes + 1, sizeof *sv);
      char err[1024];
      launch_values(o, ki, pv, sv);
      if (!launch_check_assumes(ki, o->kernel, pv, sv, err, sizeof err) ||
          !launch_grid(ki, pv, sv, grid, err, sizeof err)) {
        snprintf(c->why, sizeof c->why, "at --sizes: %.1000s", err);
        rc = 1;
      }
      free(pv);
      free(sv);
    }
  }
  free(dtext);
  buf_free(&cu);
  arena_free(&a);
  return rc;
}

/* NVRTC: registers, stack and spills, then the occupancy. 0, 1 (skipped) or 2 (no NVRTC). */
static int candidate_resources(const TuneOpts *o, const TargetConfig *t, const char *src, Cand *c) {
  t2c_status s = t2c_program_from_source(o->file, src, &c->tp);
  t2c_compile_options co = {t->name, T2C_OUTPUT_CUBIN, 0};
  if (!s || s == T2C_ERROR_TRANSLATE) s = t2c_compile_args(c->tp, &co, c->opts, c->nopts);
  if (s == T2C_ERROR_NO_NVRTC) return tfail("%s (the registers and the timing need NVRTC)", t2c_last_error());
  if (s) {
    snprintf(c->why, sizeof c->why, "%s", t2c_last_error());
    return 1;
  }
  t2c_kernel_info ki;
  t2c_program_kernel_info(c->tp, o->kernel, &ki);
  c->regs = ki.registers;
  c->stack = ki.stack_bytes;
  c->spill_st = ki.spill_store_bytes;
  c->spill_ld = ki.spill_load_bytes;
  c->blocks = report_occupancy(t, c->threads, c->regs, c->smem, c->occupancy, sizeof c->occupancy);
  if (c->blocks < 1) {
    snprintf(c->why, sizeof c->why, "does not fit on an SM of %s: %s", t->name, c->occupancy);
    return 1;
  }
  return 0;
}

static void print_candidate(const Cand *c, int n) {
  if (!c->fits) {
    printf("skipped   %s: %s\n", c->defs, c->why);
    return;
  }
  printf("candidate %d: %s: %d threads, %" PRId64 " shared bytes, %d registers, %d bytes stack, spills %d/%d bytes; "
         "occupancy %s\n", n, c->defs, c->threads, c->smem, c->regs, c->stack, c->spill_st, c->spill_ld, c->occupancy);
}

/* ------------------------------------------------------------ the run */

static int load_target(const TuneOpts *o, const char *argv0, TargetConfig *t) {
  char cfg[4096], err[512];
  const char *name = o->target ? o->target : "sm_90";
  if (!config_find(name, argv0, cfg, sizeof cfg)) return tfail("unknown target '%s'", name);
  if (!config_load(cfg, t, err, sizeof err)) return tfail("%s", err);
  return 0;
}

/* Every candidate's facts and resources; the number that fit, or -1 after a usage error. */
static int evaluate(const TuneOpts *o, const TargetConfig *t, const char *src, Cand *cands, int ncands) {
  int fit = 0;
  for (int i = 0; i < ncands; i++) {
    Cand *c = &cands[i];
    make_candidate(o, i, c);
    unsigned grid[3];
    int st = candidate_facts(o, t, src, c, grid);
    if (st == 0) st = candidate_resources(o, t, src, c);
    if (st == 2) return -1;
    c->fits = st == 0;
    fit += c->fits;
  }
  return fit;
}

/* ------------------------------------------------------------ on the GPU */

/* One tensor of a launch: host and device copies. */
typedef struct DevTensor {
  t2c_param_info info;
  size_t bytes;
  void *host, *ref;       /* the initial contents; the reference's outputs */
  t2c_devptr dev;
} DevTensor;

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Random contents for a tensor of type dt: small values every candidate's arithmetic keeps exact or close. */
static void fill_random(const char *dt, void *buf, size_t n, uint64_t *seed) {
  for (size_t i = 0; i < n; i++) {
    int r = (int)(rng_next(seed) % 17) - 8; /* -8..8 */
    float f = (float)r / 8;
    if (!strcmp(dt, "f32")) ((float *)buf)[i] = f;
    else if (!strcmp(dt, "f64")) ((double *)buf)[i] = f;
    else if (!strcmp(dt, "f16")) ((uint16_t *)buf)[i] = (uint16_t)elem_float_bits(T_F16, f);
    else if (!strcmp(dt, "bf16")) ((uint16_t *)buf)[i] = (uint16_t)elem_float_bits(T_BF16, f);
    else if (!strcmp(dt, "f8e4m3")) ((uint8_t *)buf)[i] = (uint8_t)elem_float_bits(T_F8E4M3, f);
    else if (!strcmp(dt, "f8e5m2")) ((uint8_t *)buf)[i] = (uint8_t)elem_float_bits(T_F8E5M2, f);
    else if (!strcmp(dt, "i8")) ((int8_t *)buf)[i] = (int8_t)r;
    else if (!strcmp(dt, "u8")) ((uint8_t *)buf)[i] = (uint8_t)(r + 8);
    else if (!strcmp(dt, "i32")) ((int32_t *)buf)[i] = r;
    else if (!strcmp(dt, "u32")) ((uint32_t *)buf)[i] = (uint32_t)(r + 8);
    else if (!strcmp(dt, "i64")) ((int64_t *)buf)[i] = r;
    else ((uint8_t *)buf)[i] = (uint8_t)(r > 0);
  }
}

static double elem_value(const char *dt, const void *buf, size_t i) {
  if (!strcmp(dt, "f32")) return ((const float *)buf)[i];
  if (!strcmp(dt, "f64")) return ((const double *)buf)[i];
  if (!strcmp(dt, "f16")) return elem_float_value(T_F16, ((const uint16_t *)buf)[i]);
  if (!strcmp(dt, "bf16")) return elem_float_value(T_BF16, ((const uint16_t *)buf)[i]);
  if (!strcmp(dt, "f8e4m3")) return elem_float_value(T_F8E4M3, ((const uint8_t *)buf)[i]);
  if (!strcmp(dt, "f8e5m2")) return elem_float_value(T_F8E5M2, ((const uint8_t *)buf)[i]);
  if (!strcmp(dt, "i8")) return ((const int8_t *)buf)[i];
  if (!strcmp(dt, "u8") || !strcmp(dt, "bool")) return ((const uint8_t *)buf)[i];
  if (!strcmp(dt, "i32")) return ((const int32_t *)buf)[i];
  if (!strcmp(dt, "u32")) return ((const uint32_t *)buf)[i];
  return (double)((const int64_t *)buf)[i];
}

/* The largest difference from the reference, relative to its largest magnitude. */
static double max_rel_error(const DevTensor *d, const void *got) {
  size_t n = d->bytes / (size_t)d->info.elem_bytes;
  double scale = 1, err = 0;
  for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(elem_value(d->info.dtype, d->ref, i)));
  for (size_t i = 0; i < n; i++) {
    double a = elem_value(d->info.dtype, got, i), b = elem_value(d->info.dtype, d->ref, i);
    if (isnan(a) != isnan(b)) return INFINITY;
    if (!isnan(a)) err = fmax(err, fabs(a - b) / scale);
  }
  return err;
}

static double tolerance(const char *dt) {
  if (!strcmp(dt, "f16") || !strcmp(dt, "bf16")) return 2e-2;
  if (!strcmp(dt, "f8e4m3")) return 1.25e-1; /* 3 fraction bits: an ulp is 2^-3 of the value */
  if (!strcmp(dt, "f8e5m2")) return 2.5e-1;
  if (!strcmp(dt, "f32")) return 1e-4;
  if (!strcmp(dt, "f64")) return 1e-10;
  return 0;
}

/* Device buffers for the kernel's tensors of candidate c, filled from the same seed. */
static t2c_status alloc_tensors(const TuneOpts *o, const Cand *c, DevTensor *ts, int nparams) {
  uint64_t seed = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < nparams; i++) {
    DevTensor *d = &ts[i];
    t2c_status s = t2c_program_param_info(c->tp, o->kernel, i, &d->info);
    if (s) return s;
    if (!d->info.is_tensor) continue;
    size_t n = 1;
    for (int k = 0; k < d->info.rank; k++)
      n *= (size_t)(d->info.dim_size[k] ? find_bind(o, d->info.dim_size[k])->ivalue : d->info.dim_const[k]);
    d->bytes = n * (size_t)d->info.elem_bytes;
    d->host = calloc(1, d->bytes + 1);
    if (!d->host) return T2C_ERROR_OUT_OF_MEMORY;
    fill_random(d->info.dtype, d->host, n, &seed);
    if ((s = t2c_mem_alloc(&d->dev, d->bytes)) || (s = t2c_memcpy_htod(d->dev, d->host, d->bytes))) return s;
  }
  return T2C_SUCCESS;
}

static void free_tensors(DevTensor *ts, int nparams) {
  for (int i = 0; i < nparams; i++) {
    if (ts[i].dev) t2c_mem_free(ts[i].dev);
    free(ts[i].host);
    free(ts[i].ref);
  }
}

/* Runs candidate c once, checks its outputs against ref (or makes them the
 * reference), and times it. 0, 1 (wrong or failed: c->why) or 2. */
static int run_candidate(const TuneOpts *o, Cand *c, DevTensor *ref, int nparams, bool *have_ref) {
  int nsizes = 0;
  while (t2c_program_size_name(c->tp, o->kernel, nsizes)) nsizes++;
  DevTensor *ts = calloc((size_t)nparams + 1, sizeof *ts);
  void **args = calloc((size_t)(nparams + nsizes) + 1, sizeof *args);
  ScalarArg *sc = calloc((size_t)nparams + 1, sizeof *sc);
  int *sz = calloc((size_t)nsizes + 1, sizeof *sz);
  t2c_module *m = NULL;
  float *times = calloc((size_t)o->reps, sizeof *times);
  t2c_status s = ts && args && sc && sz && times ? alloc_tensors(o, c, ts, nparams) : T2C_ERROR_OUT_OF_MEMORY;
  for (int i = 0; !s && i < nparams; i++) {
    if (ts[i].info.is_tensor) {
      args[i] = &ts[i].dev;
      continue;
    }
    /* as check_binds read it, and as tile2cu run would pass it */
    const char *dt = ts[i].info.dtype;
    double v;
    int e = elem_lookup(dt, (int)strlen(dt));
    if (e < 0 || !scalar_value(o, (ElemType)e, ts[i].info.name, &sc[i], &v, c->why, sizeof c->why))
      s = T2C_ERROR_INVALID_VALUE;
    args[i] = &sc[i];
  }
  for (int i = 0; !s && i < nsizes; i++) {
    sz[i] = (int)find_bind(o, t2c_program_size_name(c->tp, o->kernel, i))->ivalue;
    args[nparams + i] = &sz[i];
  }
  if (!s) s = t2c_module_load(c->tp, &m);
  if (!s) s = t2c_launch(m, o->kernel, args, NULL);
  if (!s) s = t2c_synchronize();
  int rc = s ? 1 : 0;
  if (s) snprintf(c->why, sizeof c->why, "%s", t2c_last_error());
  bool first = !*have_ref;
  for (int i = 0; !rc && i < nparams; i++) {
    DevTensor *d = &ts[i];
    if (!d->info.is_tensor || !d->info.written) continue;
    void *got = malloc(d->bytes + 1);
    if (!got || (s = t2c_memcpy_dtoh(got, d->dev, d->bytes))) {
      snprintf(c->why, sizeof c->why, "reading %s back: %s", d->info.name, got ? t2c_last_error() : "out of memory");
      free(got);
      rc = 1;
      break;
    }
    if (first) {
      ref[i] = *d;
      ref[i].ref = got;
      ref[i].host = NULL;
      ref[i].dev = 0;
      continue;
    }
    double err = ref[i].bytes == d->bytes ? max_rel_error(&ref[i], got) : INFINITY;
    free(got);
    if (err > tolerance(d->info.dtype)) {
      snprintf(c->why, sizeof c->why, "tensor %s differs from the reference's (largest error %g of its largest value)",
               d->info.name, err);
      rc = 1;
    }
  }
  if (first && rc) /* a failed first candidate is no reference */
    for (int i = 0; i < nparams; i++) {
      free(ref[i].ref);
      memset(&ref[i], 0, sizeof ref[i]);
    }
  if (first && !rc) *have_ref = true;
  if (!rc && (s = t2c_time_launch(m, o->kernel, args, NULL, o->warmup, o->reps, times))) {
    snprintf(c->why, sizeof c->why, "timing: %s", t2c_last_error());
    rc = 1;
  }
  if (!rc) {
    for (int i = 1; i < o->reps; i++) /* insertion sort: the median */
      for (int j = i; j > 0 && times[j - 1] > times[j]; j--) {
        float x = times[j];
        times[j] = times[j - 1];
        times[j - 1] = x;
      }
    c->median_ms = o->reps % 2 ? times[o->reps / 2] : (times[o->reps / 2 - 1] + times[o->reps / 2]) / 2;
    c->timed = true;
  }
  t2c_module_unload(m);
  if (ts) free_tensors(ts, nparams);
  free(ts); free(args); free(sc); free(sz); free(times);
  return rc;
}

static int tune_gpu(const TuneOpts *o, const TargetConfig *t, const char *src, Cand *cands, int ncands) {
  t2c_kernel_info ki;
  int nparams = 0;
  for (int i = 0; i < ncands; i++)
    if (cands[i].fits && t2c_program_kernel_info(cands[i].tp, o->kernel, &ki) == T2C_SUCCESS) {
      nparams = ki.num_params;
      break;
    }
  DevTensor *ref = calloc((size_t)nparams + 1, sizeof *ref);
  if (!ref) return tfail("out of memory");
  const Cand *best = NULL, *baseline = NULL;
  bool have_ref = false;
  for (int i = 0; i < ncands; i++) {
    Cand *c = &cands[i];
    if (!c->fits) continue;
    if (run_candidate(o, c, ref, nparams, &have_ref)) {
      printf("failed    %s: %s\n", c->defs, c->why);
      continue;
    }
    printf("timed     %s: median %.2f us over %d launches%s\n", c->defs, c->median_ms * 1000, o->reps,
           baseline ? "" : " (the reference)");
    if (!baseline) baseline = c;
    if (!best || c->median_ms < best->median_ms) best = c;
  }
  for (int i = 0; i < nparams; i++) free(ref[i].ref);
  free(ref);
  if (!best) {
    fprintf(stderr, "tile2cu tune: no candidate ran correctly\n");
    return 1;
  }
  printf("best      %s: median %.2f us (the first correct candidate, %s: %.2f us)\n", best->defs,
         best->median_ms * 1000, baseline->defs, baseline->median_ms * 1000);
  return tuned_record(o->output, o->file, src, t->name, o->kernel, o->sizes, best->defs, best->median_ms * 1000,
                      baseline->defs, baseline->median_ms * 1000);
}

int tune_main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(tune_usage, stdout);
      return 0;
    }
  TuneOpts *o = calloc(1, sizeof *o);
  if (!o) return tfail("out of memory");
  int st = parse_tune_args(argc, argv, o);
  if (st == 0 && !o->dry_run && t2c_device_available() != T2C_SUCCESS)
    st = tfail("timing needs a GPU, and there is none (%s); --dry-run lists the candidates without one",
               t2c_last_error());
  TargetConfig t;
  if (st == 0) st = load_target(o, argv[0], &t);
  char err[PATH_MAX + 128];
  char *src = NULL;
  if (st == 0 && !(src = read_tl_file(o->file, err, sizeof err, NULL))) st = tfail("%s", err);
  long ncands = 1;
  for (int i = 0; i < o->nvars; i++) ncands *= o->vars[i].nvals;
  Cand *cands = st == 0 ? calloc((size_t)ncands, sizeof *cands) : NULL;
  if (st == 0 && !cands) st = tfail("out of memory");
  int fit = st == 0 ? evaluate(o, &t, src, cands, (int)ncands) : 0;
  if (fit < 0) st = 2;
  if (st == 0) {
    printf("tile2cu tune: %s, kernel %s, %s: %ld candidate%s, %d fit, %ld skipped\n", o->file, o->kernel, t.name,
           ncands, ncands == 1 ? "" : "s", fit, ncands - fit);
    for (int i = 0, n = 0; i < ncands; i++) print_candidate(&cands[i], cands[i].fits ? ++n : 0);
    if (fit == 0) st = 1;
    else if (!o->dry_run) st = tune_gpu(o, &t, src, cands, (int)ncands);
  }
  for (int i = 0; cands && i < ncands; i++) t2c_program_destroy(cands[i].tp);
  free(cands);
  free(src);
  free(o->opts);
  free(o);
  return st;
}
