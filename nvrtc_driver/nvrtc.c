/* nvrtc.c: t2c_compile, the generated CUDA through NVRTC.
 *
 *   translate for the target's config (#line directives)
 *   key = SHA-256(version, NVRTC version, target, options, rt.cuh, the -D applied, CUDA)
 *   cache hit: the cubin/PTX and the log from the cache, no NVRTC at all
 *   miss: nvrtcCreateProgram with tile2cu/rt.cuh passed in memory, compile
 *         with -arch=sm_XX[a] (cubin) or compute_XX[a] (PTX) and ptxas -v, store
 *
 * The ptxas -v lines of the log give each kernel's registers, stack frame and
 * spills (KernelRes); the log is cached with the code so a hit has them too.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "templates.h"

/* The config for opts->target, or the device's, or sm_90. */
static t2c_status pick_target(const t2c_compile_options *o, TrTarget **t) {
  if (o && o->target) return program_target(o->target, t);
  char saved[2048];
  snprintf(saved, sizeof saved, "%s", t2c_last_error());
  const Cuda *cu = dl_cuda();
  drv_fail(T2C_SUCCESS, "%s", saved);
  if (cu) {
    /* the newest config at or below the device's compute capability */
    static const int known[] = {120, 100, 90, 89, 86, 80, 75};
    for (int i = 0; i < 7; i++)
      if (known[i] <= cu->sm) {
        char name[16];
        snprintf(name, sizeof name, "sm_%d", known[i]);
        return program_target(name, t);
      }
  }
  return program_target("sm_90", t);
}

/* The start of the number that ends just before end. */
static const char *stack_number(const char *line, const char *end) {
  const char *q = end;
  while (q > line && q[-1] >= '0' && q[-1] <= '9') q--;
  return q < end ? q : NULL;
}

/* "ptxas info    : Compiling entry function 'NAME' for 'sm_90'", then
 * "N bytes stack frame, N bytes spill stores, N bytes spill loads" and
 * "ptxas info    : Used N registers, ...". */
static void parse_ptxas(t2c_program *p, const char *log) {
  int nk = t2c_program_num_kernels(p), cur = -1;
  free(p->res);
  p->res = malloc(sizeof *p->res * (size_t)(nk ? nk : 1));
  for (int i = 0; i < nk; i++) p->res[i] = (KernelRes){-1, -1, -1, -1};
  for (const char *s = log; s && *s;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    const char *q;
    char name[256];
    int a, b, c;
    const char *q1 = memmem(s, n, "entry function '", 16), *q2 = memmem(s, n, "Function properties for ", 24);
    if (q1 || q2) {
      q = q1 ? q1 + 16 : q2 + 24;
      size_t m = strcspn(q, "'\n ");
      snprintf(name, sizeof name, "%.*s", (int)m, q);
      cur = program_kernel(p, name);
    } else if (cur >= 0 && (q = memmem(s, n, " bytes stack frame", 18)) && q > s &&
               (q = stack_number(s, q)) &&
               sscanf(q, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &a, &b, &c) == 3) {
      p->res[cur].stack = a;
      p->res[cur].spill_st = b;
      p->res[cur].spill_ld = c;
    } else if (cur >= 0 && (q = memmem(s, n, "Used ", 5)) && sscanf(q, "Used %d registers", &a) == 1) {
      p->res[cur].registers = a;
    }
    s = nl ? nl + 1 : s + n;
  }
}

static void set_result(t2c_program *p, void *code, size_t len, char *log, t2c_output out, int hit) {
  free(p->binary);
  free(p->log);
  p->binary = code;
  p->binary_size = len;
  p->log = log;
  p->output = out;
  p->cache_hit = hit;
  parse_ptxas(p, log);
}

static char *get_log(const Nvrtc *nv, nvrtcProgram prog) {
  size_t n = 0;
  nv->GetProgramLogSize(prog, &n);
  char *log = calloc(1, n + 1);
  if (log && n) nv->GetProgramLog(prog, log);
  return log;
}

/* Runs NVRTC; on success the code and the log are malloc'd. */
static t2c_status run_nvrtc(t2c_program *p, const Nvrtc *nv, const char *const *opts, int nopts, t2c_output out,
                            void **code, size_t *len, char **log) {
  const char *hdr_src[] = {embedded_rt_cuh}, *hdr_name[] = {"tile2cu/rt.cuh"};
  nvrtcProgram prog;
  char cu_name[512];
  snprintf(cu_name, sizeof cu_name, "%s.cu", p->name);
  nvrtcResult r = nv->CreateProgram(&prog, p->cuda, cu_name, 1, hdr_src, hdr_name);
  if (r != 0) return drv_fail(T2C_ERROR_COMPILE, "nvrtcCreateProgram: %s", nv->GetErrorString(r));
  r = nv->CompileProgram(prog, nopts, opts);
  *log = get_log(nv, prog);
  if (r != 0) {
    program_add_nvrtc_diags(p, *log);
    t2c_status s = drv_fail(T2C_ERROR_COMPILE, "NVRTC failed to compile %s (%s):\n%s", p->name, nv->GetErrorString(r),
                            *log ? *log : "");
    nv->DestroyProgram(&prog);
    return s;
  }
  r = out == T2C_OUTPUT_PTX ? nv->GetPTXSize(prog, len) : nv->GetCUBINSize(prog, len);
  *code = r == 0 ? malloc(*len ? *len : 1) : NULL;
  if (*code) r = out == T2C_OUTPUT_PTX ? nv->GetPTX(prog, *code) : nv->GetCUBIN(prog, *code);
  nv->DestroyProgram(&prog);
  if (r != 0 || !*code) {
    free(*code);
    return drv_fail(T2C_ERROR_COMPILE, "NVRTC produced no %s: %s", out == T2C_OUTPUT_PTX ? "PTX" : "cubin",
                    r ? nv->GetErrorString(r) : "out of memory");
  }
  return T2C_SUCCESS;
}

t2c_status t2c_compile(t2c_program *p, const t2c_compile_options *o) { return t2c_compile_args(p, o, NULL, 0); }

t2c_status t2c_compile_args(t2c_program *p, const t2c_compile_options *o, const char *const *args, int nargs) {
  if (!p) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_compile: NULL program");
  if (nargs < 0 || (nargs > 0 && !args)) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_compile_args: no args[%d]", nargs);
  for (int i = 0; i < nargs; i++)
    if (!args[i]) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_compile_args: args[%d] is NULL", i);
  t2c_output out = o ? o->output : T2C_OUTPUT_CUBIN;
  TrTarget *t;
  t2c_status s = pick_target(o, &t);
  if (s) return s;
  /* translated for this target and these options already (t2c_program_from_* uses sm_90, none) */
  if (p->translated_ok && tr_target_same(p->target, t) && program_same_args(p, args, nargs)) tr_target_free(t);
  else if ((s = program_translate(p, t, args, nargs))) return s;
  if (!p->translated_ok) return drv_fail(T2C_ERROR_TRANSLATE, "%s: errors in the .tl source", p->name);
  const Nvrtc *nv = dl_nvrtc();
  if (!nv) return T2C_ERROR_NO_NVRTC;
  char arch[48], inc[4200], ver[64];
  char name[32];
  tr_target_arch(p->target, out == T2C_OUTPUT_PTX ? "compute" : "sm", name, sizeof name);
  snprintf(arch, sizeof arch, "-arch=%s", name);
  snprintf(inc, sizeof inc, "--include-path=%s", nv->include_dir[0] ? nv->include_dir : "/usr/local/cuda/include");
  const char *ptxas_v = out == T2C_OUTPUT_PTX ? "" : "--ptxas-options=-v";
  const char *opts[] = {arch, "-std=c++17", inc, ptxas_v};
  int nopts = out == T2C_OUTPUT_PTX ? 3 : 4;
  snprintf(ver, sizeof ver, "tile2cu %s nvrtc %d.%d out %d", tr_version(), nv->major, nv->minor, (int)out);
  /* the include path is left out of the key: the NVRTC version fixes the headers;
   * the -D applied are in it (in the CUDA's header too, but the key says so itself) */
  const char *parts[] = {ver, arch, opts[1], ptxas_v, embedded_rt_cuh, tr_program_defines(p->prog), p->cuda};
  enum { NPARTS = sizeof parts / sizeof *parts };
  size_t lens[NPARTS];
  for (int i = 0; i < NPARTS; i++) lens[i] = strlen(parts[i]);
  char key[65];
  bool use_cache = cache_enabled() && !(o && (o->flags & T2C_NO_CACHE));
  void *code;
  size_t len;
  char *log;
  if (use_cache) {
    cache_key(parts, lens, NPARTS, key);
    if (cache_get(key, &code, &len, &log)) {
      set_result(p, code, len, log, out, 1);
      return T2C_SUCCESS;
    }
  }
  if ((s = run_nvrtc(p, nv, opts, nopts, out, &code, &len, &log))) {
    free(log);
    return s;
  }
  if (use_cache) cache_put(key, code, len, log);
  set_result(p, code, len, log, out, 0);
  return T2C_SUCCESS;
}

const void *t2c_program_binary(const t2c_program *p, size_t *size) {
  if (size) *size = p && p->binary ? p->binary_size : 0;
  return p ? p->binary : NULL;
}

const char *t2c_program_compile_log(const t2c_program *p) { return p && p->log ? p->log : ""; }
int t2c_program_cache_hit(const t2c_program *p) { return p ? p->cache_hit : 0; }
