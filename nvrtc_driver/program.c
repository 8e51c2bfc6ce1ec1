/* program.c: programs (a translated .tl file), their diagnostics and kernels.
 *
 * A program translates in-process with tr_translate (translator/t2c_api.h),
 * with #line directives so that NVRTC's messages name .tl lines. Translator
 * messages come back as clang-style text and are parsed into t2c_diagnostic
 * records; NVRTC's "file.tl(LINE): error: ..." lines are added after them.
 *
 * Errors: every failing call sets a thread-local message (t2c_last_error), so
 * there is no shared mutable state here.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "configs.h"

static _Thread_local char last_error[2048];

t2c_status drv_fail(t2c_status s, const char *fmt_, ...) {
  va_list ap;
  va_start(ap, fmt_);
  vsnprintf(last_error, sizeof last_error, fmt_, ap);
  va_end(ap);
  return s;
}

const char *t2c_last_error(void) { return last_error; }
const char *t2c_version(void) { return tr_version(); }

const char *t2c_error_string(t2c_status s) {
  switch (s) {
  case T2C_SUCCESS: return "success";
  case T2C_ERROR_INVALID_VALUE: return "invalid argument";
  case T2C_ERROR_IO: return "cannot read or write a file";
  case T2C_ERROR_TRANSLATE: return "errors in the .tl source";
  case T2C_ERROR_TARGET: return "unknown target";
  case T2C_ERROR_NO_NVRTC: return "NVRTC (libnvrtc) is not available";
  case T2C_ERROR_COMPILE: return "NVRTC failed to compile the generated CUDA";
  case T2C_ERROR_NOT_COMPILED: return "the program is not compiled";
  case T2C_ERROR_NO_DEVICE: return "no CUDA device";
  case T2C_ERROR_NOT_FOUND: return "no kernel of that name";
  case T2C_ERROR_ASSUME: return "an @assume condition is false";
  case T2C_ERROR_GRID: return "the grid cannot be computed";
  case T2C_ERROR_CUDA: return "CUDA driver error";
  case T2C_ERROR_OUT_OF_MEMORY: return "out of memory";
  case T2C_ERROR_CPU: return "the CPU backend failed";
  }
  return "unknown status";
}

/* ------------------------------------------------------------ targets */

#define NCONFIGS (sizeof embedded_configs / sizeof *embedded_configs)

/* The built-in configs/NAME.yaml, or NULL. */
static const char *embedded_config(const char *name) {
  for (size_t i = 0; name && i < NCONFIGS; i++)
    if (strcmp(embedded_configs[i].name, name) == 0) return embedded_configs[i].text;
  return NULL;
}

static t2c_status unknown_target(const char *name) {
  char known[512] = "";
  size_t at = 0;
  for (size_t i = 0; i < NCONFIGS && at < sizeof known; i++)
    at += (size_t)snprintf(known + at, sizeof known - at, "%s%s", i ? " " : "", embedded_configs[i].name);
  return drv_fail(T2C_ERROR_TARGET, "unknown target '%s' (known: %s)", name ? name : "(null)", known);
}

t2c_status program_target(const char *name, TrTarget **t) {
  char path[4096], err[512];
  const char *dir = getenv("TILE2CU_CONFIG_DIR"), *yaml;
  *t = NULL;
  if (dir && *dir && tr_target_find(name, path, sizeof path))
    *t = tr_target_load(path, err, sizeof err);
  else if ((yaml = embedded_config(name)))
    *t = tr_target_parse(name, yaml, err, sizeof err);
  else
    return unknown_target(name);
  return *t ? T2C_SUCCESS : drv_fail(T2C_ERROR_TARGET, "%s", err);
}

/* ------------------------------------------------------------ diagnostics */

/* Appends to diag_text, which stays NUL-terminated (dropped without memory). */
static void diag_text_add(t2c_program *p, const char *s, size_t n) {
  if (p->diag_len + n + 1 > p->diag_cap) {
    size_t cap = p->diag_cap ? p->diag_cap : 256;
    while (cap < p->diag_len + n + 1) cap *= 2;
    char *t = realloc(p->diag_text, cap);
    if (!t) return;
    p->diag_text = t;
    p->diag_cap = cap;
  }
  memcpy(p->diag_text + p->diag_len, s, n);
  p->diag_len += n;
  p->diag_text[p->diag_len] = 0;
}

__attribute__((format(printf, 2, 3))) static void diag_text_printf(t2c_program *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *line = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!line) return;
  va_start(ap, fmt);
  vsnprintf(line, (size_t)n + 1, fmt, ap);
  va_end(ap);
  diag_text_add(p, line, (size_t)n);
  free(line);
}

static void add_diag(t2c_program *p, t2c_severity sev, const char *file, size_t flen, int line, int col,
                     const char *msg, size_t mlen) {
  if (p->ndiags == p->cap_diags) {
    int cap = p->cap_diags ? 2 * p->cap_diags : 8;
    t2c_diagnostic *d = realloc(p->diags, sizeof *d * (size_t)cap);
    if (!d) return;
    p->diags = d;
    p->cap_diags = cap;
  }
  p->diags[p->ndiags++] = (t2c_diagnostic){sev, strndup(file, flen), line, col, strndup(msg, mlen)};
}

static void free_diags(t2c_program *p) {
  for (int i = 0; i < p->ndiags; i++) {
    free((char *)p->diags[i].file);
    free((char *)p->diags[i].message);
  }
  p->ndiags = 0;
  p->diag_parsed = 0;
  free(p->diag_text);
  p->diag_text = NULL;
  p->diag_len = p->diag_cap = 0;
}

/* One line of translator output: "FILE:L:C: kind: msg", "FILE: kind: msg" or
 * "note: msg"; source lines and carets match none of them. */
static void parse_diag_line(t2c_program *p, const char *s, size_t n) {
  static const struct { const char *tag; t2c_severity sev; } kinds[] = {
      {": error: ", T2C_ERROR}, {": warning: ", T2C_WARNING}, {": note: ", T2C_NOTE}};
  if (n >= 6 && strncmp(s, "note: ", 6) == 0) {
    add_diag(p, T2C_NOTE, p->name, strlen(p->name), 0, 0, s + 6, n - 6);
    return;
  }
  for (int k = 0; k < 3; k++) {
    const char *tag = memmem(s, n, kinds[k].tag, strlen(kinds[k].tag));
    if (!tag) continue;
    const char *msg = tag + strlen(kinds[k].tag);
    size_t flen = (size_t)(tag - s);
    int line = 0, col = 0;
    /* FILE:LINE:COL (the translator) or FILE:LINE (NVRTC) */
    const char *c2 = flen ? memrchr(s, ':', flen) : NULL;
    const char *c1 = c2 && c2 > s ? memrchr(s, ':', (size_t)(c2 - s)) : NULL;
    bool n2 = c2 && c2 + 1 < tag && strspn(c2 + 1, "0123456789") == (size_t)(tag - c2 - 1);
    bool n1 = n2 && c1 && c1 + 1 < c2 && strspn(c1 + 1, "0123456789") == (size_t)(c2 - c1 - 1);
    if (n1) {
      line = atoi(c1 + 1);
      col = atoi(c2 + 1);
      flen = (size_t)(c1 - s);
    } else if (n2) {
      line = atoi(c2 + 1);
      flen = (size_t)(c2 - s);
    }
    add_diag(p, kinds[k].sev, s, flen, line, col, msg, (size_t)(s + n - msg));
    return;
  }
}

static void parse_new_diags(t2c_program *p) {
  const char *t = p->diag_text;
  size_t i = p->diag_parsed;
  while (t && i < p->diag_len) {
    const char *nl = memchr(t + i, '\n', p->diag_len - i);
    size_t n = nl ? (size_t)(nl - (t + i)) : p->diag_len - i;
    parse_diag_line(p, t + i, n);
    i += n + 1;
  }
  p->diag_parsed = p->diag_len;
}

/* NVRTC: "NAME(LINE): error: msg" or "NAME(LINE): warning #177-D: msg". Lines
 * of the .tl come back through #line; others (the runtime header) keep their file. */
void program_add_nvrtc_diags(t2c_program *p, const char *log) {
  for (const char *s = log; s && *s;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    const char *paren = memmem(s, n, "): ", 3), *open = NULL;
    for (const char *q = paren; q && q > s; q--)
      if (*q == '(') { open = q; break; }
    if (paren && open) {
      const char *kind = paren + 3, *colon = memchr(kind, ':', (size_t)(s + n - kind));
      bool err = strncmp(kind, "error", 5) == 0 || strncmp(kind, "catastrophic error", 18) == 0;
      bool warn = strncmp(kind, "warning", 7) == 0;
      if ((err || warn) && colon) {
        const char *msg = colon + 1 + (colon[1] == ' ');
        int line = atoi(open + 1);
        diag_text_printf(p, "%.*s:%d: %s: %.*s (NVRTC)\n", (int)(open - s), s, line, err ? "error" : "warning",
                   (int)(s + n - msg), msg);
      }
    }
    s = nl ? nl + 1 : s + n;
  }
  parse_new_diags(p);
}

int t2c_program_num_diagnostics(const t2c_program *p) { return p ? p->ndiags : 0; }

t2c_status t2c_program_diagnostic(const t2c_program *p, int i, t2c_diagnostic *out) {
  if (!p || !out || i < 0 || i >= p->ndiags) return drv_fail(T2C_ERROR_INVALID_VALUE, "no diagnostic %d", i);
  *out = p->diags[i];
  return T2C_SUCCESS;
}

const char *t2c_program_diagnostics_text(const t2c_program *p) {
  return p && p->diag_text ? p->diag_text : "";
}

/* ------------------------------------------------------------ translation */

/* The status of a translation with errors, naming the first one. */
static t2c_status translate_failed(const t2c_program *p) {
  for (int i = 0; i < p->ndiags; i++)
    if (p->diags[i].severity == T2C_ERROR) {
      const t2c_diagnostic *d = &p->diags[i];
      if (d->line <= 0) /* no place in the file (a -D, an option): as the diagnostics text says it */
        return drv_fail(T2C_ERROR_TRANSLATE, "%s: error: %s", d->file, d->message);
      return drv_fail(T2C_ERROR_TRANSLATE, "%s:%d:%d: error: %s", d->file, d->line, d->col, d->message);
    }
  return drv_fail(T2C_ERROR_TRANSLATE, "%s: errors in the .tl source", p->name);
}

static void free_args(t2c_program *p) {
  for (int i = 0; i < p->nargs; i++) free(p->args[i]);
  free(p->args);
  p->args = NULL;
  p->nargs = 0;
}

bool program_same_args(const t2c_program *p, const char *const *args, int nargs) {
  if (nargs != p->nargs) return false;
  for (int i = 0; i < nargs; i++)
    if (strcmp(args[i], p->args[i]) != 0) return false;
  return true;
}

static bool copy_args(t2c_program *p, const char *const *args, int nargs) {
  free_args(p);
  if (nargs == 0) return true;
  p->args = calloc((size_t)nargs, sizeof *p->args);
  if (!p->args) return false;
  for (p->nargs = 0; p->nargs < nargs; p->nargs++)
    if (!(p->args[p->nargs] = strdup(args[p->nargs]))) return false;
  return true;
}

t2c_status program_translate(t2c_program *p, TrTarget *t, const char *const *args, int nargs) {
  cpu_forget(p);
  /* a binary of an earlier translation is never loaded for this one */
  free(p->binary);
  free(p->res);
  p->binary = NULL;
  p->res = NULL;
  tr_program_free(p->prog);
  free(p->cuda);
  free_diags(p);
  tr_target_free(p->target);
  p->prog = NULL;
  p->cuda = NULL;
  p->translated_ok = false;
  p->target = t;
  if (!copy_args(p, args, nargs)) {
    free_args(p);
    return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  char *text;
  int st = tr_translate(p->name, p->source, t, args, nargs, &p->cuda, &text, &p->prog);
  if (st < 0) return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "translating %s: %s", p->name, strerror(errno));
  diag_text_add(p, text, strlen(text));
  free(text);
  parse_new_diags(p);
  if (st != 0) return translate_failed(p);
  p->translated_ok = true;
  return T2C_SUCCESS;
}

t2c_status t2c_program_from_source(const char *name, const char *source, t2c_program **out) {
  if (!out || !source) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_program_from_source: NULL argument");
  *out = NULL;
  t2c_program *p = calloc(1, sizeof *p);
  if (!p) return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  p->name = strdup(name ? name : "<source>");
  p->source = strdup(source);
  if (!p->name || !p->source) {
    t2c_program_destroy(p);
    return drv_fail(T2C_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  *out = p;
  TrTarget *t;
  t2c_status s = program_target("sm_90", &t);
  return s ? s : program_translate(p, t, NULL, 0);
}

t2c_status t2c_program_from_file(const char *path, t2c_program **out) {
  if (!out || !path) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_program_from_file: NULL argument");
  *out = NULL;
  char err[512];
  char *src = tr_read_source(path, err, sizeof err);
  if (!src) return drv_fail(T2C_ERROR_IO, "%s", err);
  t2c_status s = t2c_program_from_source(path, src, out);
  free(src);
  return s;
}

void t2c_program_destroy(t2c_program *p) {
  if (!p) return;
  cpu_forget(p);
  /* a binary of an earlier translation is never loaded for this one */
  free(p->binary);
  free(p->res);
  p->binary = NULL;
  p->res = NULL;
  tr_program_free(p->prog);
  tr_target_free(p->target);
  free(p->cuda);
  free_diags(p);
  free_args(p);
  free(p->diags);
  free(p->binary);
  free(p->log);
  free(p->res);
  free(p->name);
  free(p->source);
  free(p);
}

const char *t2c_program_cuda_source(const t2c_program *p) {
  return p && p->translated_ok ? p->cuda : NULL;
}

/* ------------------------------------------------------------ kernels */

int t2c_program_num_kernels(const t2c_program *p) {
  return p && p->translated_ok ? tr_num_kernels(p->prog) : 0;
}

const char *t2c_program_kernel_name(const t2c_program *p, int i) {
  if (i < 0 || i >= t2c_program_num_kernels(p)) return NULL;
  TrKernelFacts f;
  tr_kernel_facts(p->prog, i, &f);
  return f.name;
}

int program_kernel(const t2c_program *p, const char *name) {
  for (int i = 0; name && i < t2c_program_num_kernels(p); i++)
    if (strcmp(t2c_program_kernel_name(p, i), name) == 0) return i;
  return -1;
}

t2c_status t2c_program_kernel_info(const t2c_program *p, const char *kernel, t2c_kernel_info *out) {
  int i = program_kernel(p, kernel);
  if (!out) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_program_kernel_info: NULL argument");
  if (i < 0) return drv_fail(T2C_ERROR_NOT_FOUND, "no kernel '%s'", kernel ? kernel : "(null)");
  TrKernelFacts f;
  tr_kernel_facts(p->prog, i, &f);
  KernelRes r = p->res ? p->res[i] : (KernelRes){-1, -1, -1, -1};
  *out = (t2c_kernel_info){f.name, f.threads, f.shared_bytes, f.dynamic_smem, f.nparams,
                           f.nsizes, r.registers, r.stack, r.spill_st, r.spill_ld, f.nstrides, f.ntmaps};
  return T2C_SUCCESS;
}

t2c_status t2c_program_param_info(const t2c_program *p, const char *kernel, int i, t2c_param_info *out) {
  int k = program_kernel(p, kernel);
  if (!out) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_program_param_info: NULL argument");
  if (k < 0) return drv_fail(T2C_ERROR_NOT_FOUND, "no kernel '%s'", kernel ? kernel : "(null)");
  TrKernelFacts f;
  tr_kernel_facts(p->prog, k, &f);
  if (i < 0 || i >= f.nparams) return drv_fail(T2C_ERROR_INVALID_VALUE, "kernel %s has no parameter %d", f.name, i);
  TrParam q;
  tr_kernel_param(p->prog, k, i, &q);
  *out = (t2c_param_info){q.name, q.tensor, q.elem, q.elem_bytes, q.rank, {0}, {0}, q.written, q.strided};
  for (int d = 0; d < q.rank; d++) {
    out->dim_size[d] = q.dim_size[d];
    out->dim_const[d] = q.dim_const[d];
  }
  return T2C_SUCCESS;
}

const char *t2c_program_size_name(const t2c_program *p, const char *kernel, int i) {
  int k = program_kernel(p, kernel);
  if (k < 0) return NULL;
  TrKernelFacts f;
  tr_kernel_facts(p->prog, k, &f);
  return i >= 0 && i < f.nsizes ? tr_kernel_size(p->prog, k, i) : NULL;
}

t2c_status t2c_program_translate(t2c_program *p, const char *target, const char *const *args, int nargs) {
  if (!p || nargs < 0 || (nargs && !args)) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_program_translate: bad argument");
  for (int i = 0; i < nargs; i++)
    if (!args[i]) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_program_translate: option %d is NULL", i);
  TrTarget *t;
  t2c_status s = program_target(target ? target : "sm_90", &t);
  return s ? s : program_translate(p, t, args, nargs);
}
