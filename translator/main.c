/* main.c: the tile2cu command line.
 *
 *   tile2cu [options] FILE.tl       translate to CUDA C++
 *   tile2cu run FILE.tl ...          run a kernel (see run.c)
 *
 * The pipeline itself is translate() in translate.c. Exit status: 0 ok, 1 errors
 * in the input, 2 usage or I/O problems.
 */
#include "t2c.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static const char usage_text[] =
    "usage: tile2cu [options] FILE.tl\n"
    "       tile2cu run FILE.tl --kernel NAME [--backend sim|gpu] [run options] NAME=VALUE ...\n"
    "       tile2cu compile FILE.tl [--target sm_XX] [--ptx] -o OUT   cubin or PTX through NVRTC\n"
    "       tile2cu report FILE.tl [--target sm_XX]   threads, shared memory, registers, occupancy\n"
    "       tile2cu tune FILE.tl --kernel NAME --space 'BM=64,128 ...' --sizes 'M=4096 ...'   -D candidates\n"
    "       tile2cu VERB --help                    a verb's own options\n"
    "\n"
    "Translates a tile-language file to CUDA C++ (on stdout unless -o).\n"
    "\n"
    "options:\n"
    "  -o FILE            write the CUDA to FILE (nothing is written on errors); -o -: stdout\n"
    "  --target sm_XX     target architecture: configs/sm_XX.yaml (default sm_90)\n"
    "  --config FILE      read the target from a YAML file instead\n"
    "  --standalone       inline the tile2cu runtime header: no include path needed\n"
    "  --line             #line directives instead of source comments\n"
    "  --check            report diagnostics only; write nothing\n"
    "  --explain          print placement and barrier decisions on stderr\n"
    "  --dump-tir         print the tile IR of every kernel, with each value's layout, on stdout\n"
    "  --after STAGE      with --dump-tir: the IR after lower, layout, pipeline, sync or smem (the default)\n"
    "  --sim              emit the CPU-backend variant (used by tile2cu run)\n"
    "  --host             also emit tile2cu_launch_NAME() host launchers\n"
    "  --header FILE.h    write the launchers' declarations to FILE.h (implies --host)\n"
    "  --deps FILE        write a Make-style depfile for the output (needs -o)\n"
    "  -MD                write the depfile next to the output, as OUT.d\n"
    "  -MF FILE           the depfile's path, with -MD\n"
    "  --includes         print the -I flag for the installed runtime header\n"
    "  --tuned FILE.yaml  apply the constants tile2cu tune recorded for this source and\n"
    "                     target (before any -D)\n"
    "  --tuned-sizes SPEC with --tuned: the entry for the size class of 'M=4096 N=4096'\n"
    "  --tuned-kernel NAME  with --tuned: the entries for kernel NAME (the constants\n"
    "                     apply to every kernel of the file)\n"
    OPTS_HELP
    "  --version          print the version\n"
    "  --help             print this help\n";

typedef struct Options {
  const char *input;
  const char *output;
  const char *depfile;
  bool md;
  const char *target;
  const char *config;
  const char *header;
  const char *after;
  const char *tuned, *tuned_sizes, *tuned_kernel; /* --tuned FILE, --tuned-sizes SPEC, --tuned-kernel NAME (tuned.c) */
  bool standalone, line, check, explain, sim, host, dump_tir;
  const char **opts; /* -D and -W options (options.c) */
  int nopts;
} Options;

static int usage_error(const char *fmt_, const char *arg) {
  fprintf(stderr, "tile2cu: ");
  fprintf(stderr, fmt_, arg);
  fprintf(stderr, "\n(tile2cu --help lists the options)\n");
  return 2;
}

/* The directory holding tile2cu/rt.cuh: installed include dir or the source tree. */
static bool find_rt_dir(char *out, size_t n) {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = 0;
    char *dir = dirname(exe);
    const char *cands[] = {"/../include", "/../rt"};
    for (int i = 0; i < 2; i++) {
      char p[PATH_MAX + 64], r[PATH_MAX];
      snprintf(p, sizeof p, "%s%s", dir, cands[i]);
      char probe[PATH_MAX + 96];
      snprintf(probe, sizeof probe, "%s/tile2cu/rt.cuh", p);
      if (access(probe, R_OK) == 0 && realpath(p, r)) {
        snprintf(out, n, "%s", r);
        return true;
      }
    }
  }
  snprintf(out, n, "%s/include", TILE2CU_PREFIX);
  return false;
}

/* Writes text to path atomically (outfile.c); 2 on failure. */
static int write_atomic(const char *path, const char *text, size_t len) {
  char err[PATH_MAX + 256];
  if (outfile_write(path, text, len, err, sizeof err) == 0) return 0;
  fprintf(stderr, "tile2cu: %s\n", err);
  return 2;
}

/* Make-style escaping of a path in a depfile. */
static void dep_path(Buf *b, const char *p) {
  for (; *p; p++) {
    if (*p == ' ' || *p == '#') buf_puts(b, "\\");
    if (*p == '$') buf_puts(b, "$");
    buf_putn(b, p, 1);
  }
}

/* OUT [HEADER]: FILE.tl CONFIG.yaml, plus an empty rule for each prerequisite so a
 * deleted input does not break the build. */
static int write_depfile(const Options *o, const char *config_arg) {
  Buf b = {0};
  char path[PATH_MAX], config_path[PATH_MAX];
  if (!realpath(config_arg, config_path)) snprintf(config_path, sizeof config_path, "%s", config_arg);
  if (o->depfile) snprintf(path, sizeof path, "%s", o->depfile);
  else snprintf(path, sizeof path, "%s.d", o->output);
  dep_path(&b, o->output);
  if (o->header) {
    buf_puts(&b, " ");
    dep_path(&b, o->header);
  }
  buf_puts(&b, ": ");
  dep_path(&b, o->input);
  buf_puts(&b, " ");
  dep_path(&b, config_path);
  buf_puts(&b, "\n\n");
  dep_path(&b, o->input);
  buf_puts(&b, ":\n\n");
  dep_path(&b, config_path);
  buf_puts(&b, ":\n");
  int st = write_atomic(path, b.data, b.len);
  buf_free(&b);
  return st;
}

static int load_target(const Options *o, const char *argv0, TargetConfig *t, char *path, size_t pathlen) {
  char err[512];
  const char *target = o->target ? o->target : "sm_90";
  if (o->config) snprintf(path, pathlen, "%s", o->config);
  else if (!config_find(target, argv0, path, pathlen)) {
    fprintf(stderr, "tile2cu: unknown target '%s': no configs/%s.yaml found\n", target, target);
    return 2;
  }
  if (!config_load(path, t, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  return 0;
}

static int parse_args(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (opts_take(argc, argv, &i, o->opts, &o->nopts)) continue;
    if (strcmp(s, "-o") == 0 || strcmp(s, "--target") == 0 || strcmp(s, "--config") == 0 ||
        strcmp(s, "--deps") == 0 || strcmp(s, "-MF") == 0 || strcmp(s, "--header") == 0 ||
        strcmp(s, "--after") == 0 || strcmp(s, "--tuned") == 0 || strcmp(s, "--tuned-sizes") == 0 ||
        strcmp(s, "--tuned-kernel") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a value", s);
      const char *v = argv[++i];
      if (strcmp(s, "-o") == 0) o->output = v;
      else if (strcmp(s, "--target") == 0) o->target = v;
      else if (strcmp(s, "--config") == 0) o->config = v;
      else if (strcmp(s, "--after") == 0) o->after = v;
      else if (strcmp(s, "--tuned") == 0) o->tuned = v;
      else if (strcmp(s, "--tuned-sizes") == 0) o->tuned_sizes = v;
      else if (strcmp(s, "--tuned-kernel") == 0) o->tuned_kernel = v;
      else if (strcmp(s, "--header") == 0) {
        o->header = v;
        o->host = true;
      } else {
        o->depfile = v;
        o->md = true;
      }
    } else if (strcmp(s, "-MD") == 0) o->md = true; else if (strncmp(s, "--target=", 9) == 0) o->target = s + 9;
    else if (strncmp(s, "--config=", 9) == 0) o->config = s + 9;
    else if (strcmp(s, "--standalone") == 0) o->standalone = true;
    else if (strcmp(s, "--line") == 0) o->line = true;
    else if (strcmp(s, "--check") == 0) o->check = true;
    else if (strcmp(s, "--explain") == 0) o->explain = true;
    else if (strcmp(s, "--dump-tir") == 0) o->dump_tir = true;
    else if (strcmp(s, "--sim") == 0) o->sim = true;
    else if (strcmp(s, "--host") == 0) o->host = true;
    else if (s[0] == '-' && s[1] && strcmp(s, "-") != 0) return usage_error("unknown option '%s'", s);
    else if ((strcmp(s, "run") == 0 || strcmp(s, "compile") == 0 || strcmp(s, "report") == 0 ||
              strcmp(s, "tune") == 0) && access(s, F_OK) != 0) { /* tile2cu -w run FILE: a verb only picks in front */
      fprintf(stderr, "tile2cu: '%s' is a verb: it must be the first argument, before the options (tile2cu %s FILE.tl ...)\n"
              "(tile2cu %s --help lists its options)\n", s, s, s);
      return 2;
    } else if (o->input) return usage_error("more than one input file ('%s')", s);
    else o->input = s;
  }
  if (o->output && strcmp(o->output, "-") == 0) o->output = NULL; /* -o -: stdout, as without -o */
  if (!o->input) return usage_error("%sno input file", "");
  if (o->target && o->config) return usage_error("%s--target and --config exclude each other", "");
  if (o->md && !o->output) return usage_error("%sa depfile (--deps, -MD) needs -o FILE", "");
  if (o->host && o->sim) return usage_error("%s--host and --sim exclude each other", "");
  if (o->after && !o->dump_tir) return usage_error("%s--after needs --dump-tir", "");
  if (o->tuned_sizes && !o->tuned) return usage_error("%s--tuned-sizes needs --tuned", "");
  if (o->tuned_kernel && !o->tuned) return usage_error("%s--tuned-kernel needs --tuned", "");
  if (o->after && strcmp(o->after, "lower") != 0 && strcmp(o->after, "layout") != 0 &&
      strcmp(o->after, "pipeline") != 0 && strcmp(o->after, "sync") != 0 && strcmp(o->after, "smem") != 0)
    return usage_error("unknown stage '%s' (lower, layout, pipeline, sync or smem)", o->after);
  if (o->dump_tir && (o->output || o->host || o->md))
    return usage_error("%s--dump-tir prints the IR only (no -o, --host or depfile)", "");
  return 0;
}

/* Whether paths a and b name one file: the same string, or the same existing file. */
static bool same_file(const char *a, const char *b) {
  struct stat x, y;
  if (strcmp(a, b) == 0) return true;
  return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* The outputs (-o, --header, the depfile) before anything is written: each a file of its
 * own, none the input, each in a directory that exists and can be written, so that a bad
 * path writes nothing (it wrote the outputs before it and left them). 0, or 2. */
static int check_outputs(const Options *o) {
  char dep[PATH_MAX];
  const char *paths[3] = {o->output, o->header, NULL}, *names[3] = {"-o", "--header", "the depfile"};
  if (o->md) {
    if (o->depfile) snprintf(dep, sizeof dep, "%s", o->depfile);
    else snprintf(dep, sizeof dep, "%s.d", o->output);
    paths[2] = dep;
  }
  for (int i = 0; i < 3; i++) {
    if (!paths[i]) continue;
    if (same_file(paths[i], o->input)) {
      fprintf(stderr, "tile2cu: %s '%s' is the input file: it would be overwritten\n", names[i], paths[i]);
      return 2;
    }
    for (int j = 0; j < i; j++)
      if (paths[j] && same_file(paths[i], paths[j])) {
        fprintf(stderr, "tile2cu: %s and %s are one file, '%s'\n", names[j], names[i], paths[i]);
        return 2;
      }
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", paths[i]);
    const char *dir = dirname(d);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) {
      fprintf(stderr, "tile2cu: cannot write %s '%s': %s %s\n", names[i], paths[i], dir,
              stat(dir, &st) != 0 ? "does not exist" : !S_ISDIR(st.st_mode) ? "is not a directory" : "is not writable");
      return 2;
    }
  }
  return 0;
}

/* The options with the -D of the tuning file first (the command line's -D win):
 * 0, or an exit status. No entry for the source is a note, not an error. */
static int apply_tuned(const Options *o, const char *src, const TargetConfig *t, Arena *a, const char ***opts,
                       int *nopts) {
  char defs[1024], err[2048];
  *opts = o->opts;
  *nopts = o->nopts;
  if (!o->tuned) return 0;
  int st = tuned_defines(o->tuned, src, t->name, o->tuned_kernel, o->tuned_sizes, defs, sizeof defs, err, sizeof err);
  if (st == 1) fprintf(stderr, "tile2cu: note: %s; the file's own constants are used\n", err);
  if (st == 2) fprintf(stderr, "tile2cu: %s\n", err);
  if (st) return st == 1 ? 0 : 2;
  const char **all = NEW_ARRAY(a, const char *, o->nopts + 64);
  int n = 0;
  for (char *w = strtok(defs, " "); w && n < 64; w = strtok(NULL, " ")) {
    char *d = NEW_ARRAY(a, char, strlen(w) + 3);
    snprintf(d, strlen(w) + 3, "-D%s", w);
    all[n++] = d;
  }
  for (int i = 0; i < o->nopts; i++) all[n++] = o->opts[i];
  *opts = all;
  *nopts = n;
  return 0;
}

/* Translates o->input as the options say; the exit status. */
static int translate_file(const Options *o, const char *argv0) {
  TargetConfig t;
  char config_path[PATH_MAX];
  int st;
  if (!o->check && (st = check_outputs(o))) return st;
  if ((st = load_target(o, argv0, &t, config_path, sizeof config_path))) return st;
  char err[PATH_MAX + 128];
  char *src = read_tl_file(o->input, err, sizeof err, &st);
  if (!src) {
    fprintf(stderr, st == 1 ? "%s\n" : "tile2cu: %s\n", err);
    return st;
  }
  Arena a = {0};
  Buf out = {0};
  const char **opts;
  int nopts;
  if ((st = apply_tuned(o, src, &t, &a, &opts, &nopts))) {
    arena_free(&a);
    free(src);
    return st;
  }
  EmitOptions eo = {.line_directives = o->line, .standalone = o->standalone, .sim = o->sim,
                    .explain = o->explain, .explain_out = o->dump_tir ? stdout : stderr, .file = o->input,
                    .dump_tir = o->dump_tir, .dump_after = o->after, .opts = opts, .nopts = nopts};
  Program *prog = NULL;
  Buf header = {0};
  st = translate(o->input, src, &t, &eo, &out, stderr, &prog, &a);
  if (st == 0 && o->host) host_emit(&a, prog, &eo, &out, o->header ? &header : NULL);
  if (st == 0 && !o->check && o->header) st = write_atomic(o->header, header.data ? header.data : "", header.len);
  if (st == 0 && !o->check && !o->dump_tir) {
    if (o->output) {
      st = write_atomic(o->output, out.data ? out.data : "", out.len);
      if (st == 0 && o->md) st = write_depfile(o, config_path);
    } else if (out.len && fwrite(out.data, 1, out.len, stdout) != out.len) st = 2;
    if (fflush(stdout) != 0) st = 2;
  }
  buf_free(&out);
  buf_free(&header);
  arena_free(&a);
  free(src);
  return st;
}

int main(int argc, char **argv) {
  outfile_catch_signals();
  /* Test hook: seconds to wait before renaming a written output into place, so
   * that a test can deliver a signal while the temporary file exists. */
  const char *pause = getenv("TILE2CU_TEST_PAUSE_BEFORE_RENAME");
  if (pause) outfile_pause_before_rename = atof(pause);
  if (argc >= 2 && strcmp(argv[1], "run") == 0) return run_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "compile") == 0) return compile_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "report") == 0) return report_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "tune") == 0) return tune_main(argc - 1, argv + 1);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (strcmp(argv[i], "--version") == 0) {
      printf("tile2cu %s\n", TILE2CU_VERSION);
      return 0;
    }
    if (strcmp(argv[i], "--includes") == 0) {
      char dir[PATH_MAX];
      find_rt_dir(dir, sizeof dir);
      printf("-I%s\n", dir);
      return 0;
    }
  }
  Options o = {0};
  o.opts = calloc((size_t)argc, sizeof *o.opts);
  int st = !o.opts ? 2 : parse_args(argc, argv, &o);
  if (st == 0) st = translate_file(&o, argv[0]);
  free(o.opts);
  return st;
}
