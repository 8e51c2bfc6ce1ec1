/* verbs.c: `tile2cu compile` and `tile2cu report`, through libtile2cu.
 *
 *   tile2cu compile FILE.tl [--target sm_XX] [--ptx] [--no-cache] [-D NAME=VALUE] [-W...] -o OUT
 *       a cubin (or PTX) through NVRTC, with the disk cache; no nvcc
 *   tile2cu report FILE.tl [--target sm_XX] [--no-cache] [-D NAME=VALUE] [-W...]
 *       per kernel: threads, shared memory per tile, register-tile elements per
 *       thread, and from ptxas (through NVRTC): registers, stack frame, spills
 *       and the occupancy they allow on the target. Warns, in .tl terms, when a
 *       kernel has a stack frame (-Wstack-frame) or spills (-Wspills).
 *
 * The -D and -W options (options.c) go to libtile2cu's compile call as written.
 *
 * Exit status as for translation: 0 ok, 1 errors in the input (or NVRTC
 * rejecting the generated CUDA), 2 usage, I/O or a missing NVRTC.
 */
#include "t2c.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../nvrtc_driver/tile2cu.h"

typedef struct VerbOpts {
  const char *file, *target, *output; /* output NULL with to_stdout: -o - */
  bool ptx, no_cache, to_stdout;
  const char **opts; /* -D and -W options (options.c) */
  int nopts;
} VerbOpts;

static int verb_fail(const char *verb, const char *fmt_, ...) __attribute__((format(printf, 2, 3)));
static int verb_fail(const char *verb, const char *fmt_, ...) {
  va_list ap;
  va_start(ap, fmt_);
  fprintf(stderr, "tile2cu %s: ", verb);
  vfprintf(stderr, fmt_, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

static const char compile_usage[] =
    "usage: tile2cu compile FILE.tl [--target sm_XX] [--ptx] [--no-cache] -o OUT\n"
    "\n"
    "Translates and compiles with NVRTC (no nvcc) to a cubin, or PTX with --ptx,\n"
    "through the disk cache.\n"
    "\n"
    "options:\n"
    "  -o OUT             the cubin or PTX file to write (required); -o -: stdout\n"
    "  --target sm_XX     the target architecture (default sm_90)\n"
    "  --ptx              write PTX instead of a cubin\n"
    "  --no-cache         neither read nor write the compile cache\n"
    OPTS_HELP
    "  --help             print this help\n";

static const char report_usage[] =
    "usage: tile2cu report FILE.tl [--target sm_XX] [--no-cache]\n"
    "\n"
    "Per kernel: threads, shared memory per tile, register tiles, and from ptxas\n"
    "(through NVRTC) registers, stack frame, spills and occupancy on the target.\n"
    "\n"
    "options:\n"
    "  --target sm_XX     the target architecture (default sm_90)\n"
    "  --no-cache         neither read nor write the compile cache\n"
    OPTS_HELP
    "  --help             print this help\n";

/* --help anywhere prints the verb's usage; returns whether it did. */
static bool verb_help(const char *verb, int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(strcmp(verb, "compile") == 0 ? compile_usage : report_usage, stdout);
      return true;
    }
  return false;
}

static int parse_verb_args(const char *verb, int argc, char **argv, VerbOpts *o) {
  bool compile = strcmp(verb, "compile") == 0;
  o->opts = calloc((size_t)argc, sizeof *o->opts);
  if (!o->opts) return verb_fail(verb, "out of memory");
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    bool val = i + 1 < argc;
    if (opts_take(argc, argv, &i, o->opts, &o->nopts)) continue;
    if (strcmp(s, "--target") == 0 && val) o->target = argv[++i];
    else if (strncmp(s, "--target=", 9) == 0) o->target = s + 9;
    else if (compile && strcmp(s, "-o") == 0 && val) o->output = argv[++i];
    else if (compile && strcmp(s, "--ptx") == 0) o->ptx = true;
    else if (strcmp(s, "--no-cache") == 0) o->no_cache = true;
    else if (s[0] == '-') return verb_fail(verb, "unknown or incomplete option '%s'", s);
    else if (o->file) return verb_fail(verb, "more than one .tl file ('%s')", s);
    else o->file = s;
  }
  if (!o->file) return verb_fail(verb, "no .tl file");
  if (compile && !o->output) return verb_fail(verb, "-o OUT is required");
  if (compile && strcmp(o->output, "-") == 0) {
    /* -o -: stdout, as for a translation. A cubin is binary, which a terminal would show
     * as garbage and may take as control sequences: refused there, as gzip refuses */
    if (!o->ptx && isatty(STDOUT_FILENO))
      return verb_fail(verb, "-o -: a cubin is binary and stdout is a terminal; redirect stdout, "
                       "give -o FILE, or --ptx for text");
    o->to_stdout = true;
  }
  if (!o->target) o->target = "sm_90";
  return 0;
}

/* Translates and compiles; prints diagnostics. Returns an exit status. */
static int verb_build(const char *verb, const VerbOpts *o, t2c_program **p) {
  t2c_status s = t2c_program_from_file(o->file, p);
  if (s && s != T2C_ERROR_TRANSLATE) return verb_fail(verb, "%s", t2c_last_error());
  /* the compile call translates again unless the target is sm_90 and there are no options */
  t2c_compile_options co = {o->target, o->ptx ? T2C_OUTPUT_PTX : T2C_OUTPUT_CUBIN, o->no_cache ? T2C_NO_CACHE : 0};
  s = t2c_compile_args(*p, &co, o->opts, o->nopts);
  fputs(t2c_program_diagnostics_text(*p), stderr); /* the translation's warnings, or errors */
  if (s == T2C_ERROR_TRANSLATE) return 1;
  if (s == T2C_ERROR_COMPILE) {
    fprintf(stderr, "tile2cu %s: %s\n", verb, t2c_last_error());
    return 1;
  }
  if (s) return verb_fail(verb, "%s", t2c_last_error());
  return 0;
}

/* -o -: the whole output on stdout; 0, or -1 with a message in err. */
static int write_stdout(const void *data, size_t len, char *err, size_t n) {
  if (fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0) return 0;
  snprintf(err, n, "cannot write stdout: %s", strerror(errno));
  return -1;
}

int compile_main(int argc, char **argv) {
  if (verb_help("compile", argc, argv)) return 0;
  VerbOpts o = {0};
  int st = parse_verb_args("compile", argc, argv, &o);
  if (st) {
    free(o.opts);
    return st;
  }
  t2c_program *p = NULL;
  st = verb_build("compile", &o, &p);
  if (st == 0) {
    size_t len;
    const void *bin = t2c_program_binary(p, &len);
    /* NVRTC's PTX ends in a NUL (cuModuleLoadData reads it as a C string); a .ptx file
     * is text without one, which ptxas would read as a stray character */
    if (o.ptx)
      while (len && ((const char *)bin)[len - 1] == 0) len--;
    char err[4096 + 256];
    if (o.to_stdout ? write_stdout(bin, len, err, sizeof err) : outfile_write(o.output, bin, len, err, sizeof err))
      st = verb_fail("compile", "%s", err);
    else
      fprintf(stderr, "tile2cu compile: %s: %s for %s, %zu bytes (%s)\n", o.to_stdout ? "stdout" : o.output,
              o.ptx ? "PTX" : "cubin", o.target, len, t2c_program_cache_hit(p) ? "from the cache" : "compiled by NVRTC");
  }
  t2c_program_destroy(p);
  free(o.opts);
  return st;
}

/* ------------------------------------------------------------ report */

typedef struct Occupancy {
  int by_threads, by_regs, by_smem, blocks;
} Occupancy;

/* Blocks per SM, as the CUDA occupancy calculator counts them: registers in
 * units of 256 per warp, shared memory in units of 128 bytes plus the 1 KiB
 * the driver reserves per block from sm_80 on. */
int64_t smem_footprint(const TargetConfig *t, int64_t smem) {
  return (smem + 127) / 128 * 128 + (t->sm >= 80 ? 1024 : 0);
}

static Occupancy occupancy(const TargetConfig *t, int threads, int regs, int64_t smem) {
  Occupancy oc;
  int warps = (threads + t->lanes - 1) / t->lanes;
  oc.by_threads = t->max_warps_per_sm / warps;
  int regs_warp = (regs * t->lanes + 255) / 256 * 256;
  oc.by_regs = regs > 0 ? t->regs_per_sm / regs_warp / warps : t->max_blocks_per_sm;
  int64_t per_block = smem_footprint(t, smem);
  oc.by_smem = per_block > 0 ? (int)(t->smem_per_sm / per_block) : t->max_blocks_per_sm;
  oc.blocks = t->max_blocks_per_sm;
  if (oc.by_threads < oc.blocks) oc.blocks = oc.by_threads;
  if (oc.by_regs < oc.blocks) oc.blocks = oc.by_regs;
  if (oc.by_smem < oc.blocks) oc.blocks = oc.by_smem;
  return oc;
}

int report_occupancy(const TargetConfig *t, int threads, int regs, int64_t smem, char *out, size_t n) {
  Occupancy oc = occupancy(t, threads, regs, smem);
  int warps = (threads + t->lanes - 1) / t->lanes;
  const char *limit = oc.blocks == oc.by_regs ? "registers" : oc.blocks == oc.by_smem ? "shared memory"
                      : oc.blocks == oc.by_threads ? "threads" : "blocks per SM";
  snprintf(out, n, "%d block%s/SM, %d of %d warps (limited by %s; threads allow %d, registers %d, shared memory %d)",
           oc.blocks, oc.blocks == 1 ? "" : "s", oc.blocks * warps, t->max_warps_per_sm, limit, oc.by_threads,
           oc.by_regs, oc.by_smem);
  return oc.blocks;
}

static void report_regs(const KernelInfo *ki, Buf *b) {
  int total = 0;
  for (int i = 0; i < ki->regs.len; i++) {
    const Sym *r = ki->regs.items[i];
    buf_printf(b, "%s%s %d x %s", i ? ", " : "", r->name, r->per_thread, elem_names[r->ty.elem]);
    total += r->per_thread;
  }
  if (!ki->regs.len) buf_puts(b, "none (no @registers)");
  else buf_printf(b, "; %d element%s per thread", total, total == 1 ? "" : "s");
}

/* The stack frame's warning says what ptxas's numbers tell apart: with spills, the
 * frame holds (at least) them, the registers ran out; without, it holds an array
 * indexed at run time (a register tile's, or one too large to stay in registers).
 * A kernel that calls sin() or cos() has, without spills, a frame of about 32 bytes
 * anyway (TRIG_FRAME): their reduction of an argument past about 105,000 (Payne-Hanek)
 * keeps a 28-byte array in local memory, touched only for such arguments; the report
 * says so on its stack frame line, and there is no warning that nothing could act on. */
enum { TRIG_FRAME = 48 };

static bool trig_frame(const KernelInfo *ki, const t2c_kernel_info *ii) {
  return ki->trig && ii->stack_bytes <= TRIG_FRAME && !ii->spill_store_bytes && !ii->spill_load_bytes;
}

static void stack_warning(Diag *d, const Kernel *k, const KernelInfo *ki, const t2c_kernel_info *ii, int cap) {
  if (ii->spill_store_bytes > 0 || ii->spill_load_bytes > 0) {
    if (cap && ki->min_blocks > 1)
      diag_warning(d, W_STACK_FRAME, k->name_loc, "kernel '%s' has a %d-byte stack frame (ptxas) for its register "
                   "spills (%d bytes stored, %d loaded): @launch(%d, %d) asks for %d blocks per SM, which holds each "
                   "thread to %d registers", k->name, ii->stack_bytes, ii->spill_store_bytes, ii->spill_load_bytes,
                   ki->threads, ki->min_blocks, ki->min_blocks, cap);
    else if (cap)
      diag_warning(d, W_STACK_FRAME, k->name_loc, "kernel '%s' has a %d-byte stack frame (ptxas) for its register "
                   "spills (%d bytes stored, %d loaded): @launch(%d) holds each thread to %d registers (65536 an SM "
                   "over %d threads)", k->name, ii->stack_bytes, ii->spill_store_bytes, ii->spill_load_bytes,
                   ki->threads, cap, ki->threads);
    else
      diag_warning(d, W_STACK_FRAME, k->name_loc, "kernel '%s' has a %d-byte stack frame (ptxas) for its register "
                   "spills (%d bytes stored, %d loaded): its live values need more than the %d registers per thread "
                   "it has", k->name, ii->stack_bytes, ii->spill_store_bytes, ii->spill_load_bytes, ii->registers);
  } else if (ki->regs.len) {
    diag_warning(d, W_STACK_FRAME, k->name_loc, "kernel '%s' has a %d-byte stack frame (ptxas) and no spills: an "
                 "array in local memory, such as a register tile indexed dynamically or too large to stay in "
                 "registers", k->name, ii->stack_bytes);
  } else {
    diag_warning(d, W_STACK_FRAME, k->name_loc, "kernel '%s' has a %d-byte stack frame (ptxas) and no spills at %d "
                 "registers per thread: an array ptxas keeps in local memory (one it indexes at run time)", k->name,
                 ii->stack_bytes, ii->registers);
  }
}

void report_warnings(Diag *d, const Kernel *k, const t2c_kernel_info *ii) {
  const KernelInfo *ki = k->info;
  Buf regs = {0};
  report_regs(ki, &regs);
  /* @launch(threads, min_blocks) caps each thread's registers (__launch_bounds__): the
   * 65536 registers of an SM over min_blocks blocks of threads (1024 threads: 64) */
  int blocks = ki->min_blocks > 1 ? ki->min_blocks : 1;
  int cap = 65536 / (ki->threads * blocks) / 8 * 8;
  if (cap > 255) cap = 0;
  if (ii->stack_bytes > 0 && !trig_frame(ki, ii)) {
    stack_warning(d, k, ki, ii, cap);
    diag_note(d, (Loc){0, 0}, "register tiles: %s", regs.data);
  }
  if (ii->spill_store_bytes > 0 || ii->spill_load_bytes > 0) {
    if (cap && blocks > 1)
      diag_warning(d, W_SPILLS, k->name_loc, "kernel '%s' spills (%d bytes stored, %d loaded) with %d registers per "
                   "thread: @launch(%d, %d) holds each thread to %d; one block per SM, or smaller tiles, would need fewer",
                   k->name, ii->spill_store_bytes, ii->spill_load_bytes, ii->registers, ki->threads, ki->min_blocks, cap);
    else if (cap)
      diag_warning(d, W_SPILLS, k->name_loc, "kernel '%s' spills (%d bytes stored, %d loaded) with %d registers per "
                   "thread: @launch(%d) holds each thread to %d (65536 registers an SM over %d threads); fewer threads "
                   "with more elements each, or smaller tiles, would need fewer",
                   k->name, ii->spill_store_bytes, ii->spill_load_bytes, ii->registers, ki->threads, cap, ki->threads);
    else if (ki->regs.len)
      diag_warning(d, W_SPILLS, k->name_loc, "kernel '%s' spills (%d bytes stored, %d loaded) with %d registers per "
                   "thread; fewer or smaller @registers tiles, or more threads in @launch, would need fewer",
                   k->name, ii->spill_store_bytes, ii->spill_load_bytes, ii->registers);
    else
      diag_warning(d, W_SPILLS, k->name_loc, "kernel '%s' spills (%d bytes stored, %d loaded) with %d registers per "
                   "thread, with no @registers tile and no register cap from @launch (ptxas's choice)",
                   k->name, ii->spill_store_bytes, ii->spill_load_bytes, ii->registers);
    diag_note(d, (Loc){0, 0}, "register tiles: %s", regs.data);
  }
  buf_free(&regs);
}

static void report_kernel(const char *file, const TargetConfig *t, const Kernel *k, const t2c_kernel_info *ii) {
  const KernelInfo *ki = k->info;
  printf("kernel %s (%s:%d) for %s\n", k->name, file, k->loc.line, t->name);
  printf("  threads:        %d (%d warps)\n", ki->threads, (ki->threads + t->lanes - 1) / t->lanes);
  printf("  shared memory:  %" PRId64 " bytes%s\n", ki->shared_bytes,
         ki->dynamic_smem ? ", dynamic (above the static limit)" : "");
  for (int i = 0; i < ki->nshared; i++) {
    const SharedTile *s = &ki->shared[i];
    char shape[64];
    if (s->rank <= 1) snprintf(shape, sizeof shape, "%s[%d]", elem_names[s->elem], s->dims[0]);
    else snprintf(shape, sizeof shape, "%s[%d, %d]", elem_names[s->elem], s->dims[0], s->dims[1]);
    printf("    %-14s %-16s %8" PRId64 " bytes  %s\n", s->name, shape, s->bytes, s->what);
  }
  Buf regs = {0};
  report_regs(ki, &regs);
  printf("  register tiles: %s\n", regs.data);
  buf_free(&regs);
  printf("  registers:      %d per thread (ptxas)\n", ii->registers);
  printf("  stack frame:    %d bytes%s; spills: %d bytes stored, %d bytes loaded\n", ii->stack_bytes,
         trig_frame(ki, ii) && ii->stack_bytes ? " (sin() and cos() reduce an argument past about 1e5 through an array "
                                                 "there, touched only then)" : "",
         ii->spill_store_bytes, ii->spill_load_bytes);
  char occ[256];
  report_occupancy(t, ki->threads, ii->registers, ki->shared_bytes, occ, sizeof occ);
  printf("  occupancy:      %s\n", occ);
}

/* The report of every kernel on stdout, after the warnings (-W options) on
 * stderr; under -Werror a warning is an error and there is no report. */
static int report_kernels(const VerbOpts *o, const TargetConfig *t, Arena *a, const Program *p, t2c_program *tp) {
  Diag d;
  diag_init(&d, o->file, NULL, stderr);
  Defines unused;
  opts_read(a, &d, o->opts, o->nopts, &unused); /* the warning switches: the translation checked them */
  t2c_kernel_info *ii = NEW_ARRAY(a, t2c_kernel_info, p->nkernels + 1);
  bool *known = NEW_ARRAY(a, bool, p->nkernels + 1);
  for (int i = 0; i < p->nkernels; i++) {
    known[i] = t2c_program_kernel_info(tp, p->kernels[i]->name, &ii[i]) == T2C_SUCCESS;
    if (known[i]) report_warnings(&d, p->kernels[i], &ii[i]);
  }
  if (d.warning_errors) return 1;
  for (int i = 0, n = 0; i < p->nkernels; i++)
    if (known[i]) {
      if (n++) printf("\n");
      report_kernel(o->file, t, p->kernels[i], &ii[i]);
    }
  return 0;
}

/* Builds o->file through the library and reports on its kernels; the exit status. */
static int report_file(const VerbOpts *o, const char *argv0) {
  char cfg[4096], err[512];
  TargetConfig t;
  if (!config_find(o->target, argv0, cfg, sizeof cfg)) return verb_fail("report", "unknown target '%s'", o->target);
  if (!config_load(cfg, &t, err, sizeof err)) return verb_fail("report", "%s", err);
  t2c_program *tp = NULL;
  int st = verb_build("report", o, &tp);
  if (st) {
    t2c_program_destroy(tp);
    return st;
  }
  /* the shapes come from a translation of our own; the ptxas numbers from the library */
  char *src = read_tl_file(o->file, err, sizeof err, NULL);
  Arena a = {0};
  Buf cu = {0};
  Program *p = NULL;
  EmitOptions eo = {.file = o->file, .opts = o->opts, .nopts = o->nopts};
  FILE *quiet = fopen("/dev/null", "w");
  st = src ? translate(o->file, src, &t, &eo, &cu, quiet ? quiet : stderr, &p, &a) : verb_fail("report", "%s", err);
  if (quiet) fclose(quiet);
  if (st == 0) st = report_kernels(o, &t, &a, p, tp);
  buf_free(&cu);
  arena_free(&a);
  free(src);
  t2c_program_destroy(tp);
  return st;
}

int report_main(int argc, char **argv) {
  if (verb_help("report", argc, argv)) return 0;
  VerbOpts o = {0};
  int st = parse_verb_args("report", argc, argv, &o);
  if (st == 0) st = report_file(&o, argv[0]);
  free(o.opts);
  return st;
}
