/* launch.c: what every way of launching a kernel shares: evaluating @grid and
 * @assume for given sizes and scalars (tile2cu run, the NVRTC driver), and the
 * per-user cache directory.
 *
 * Values: pvals[i] is the value of KernelInfo.params[i] (scalars; tensors are
 * ignored) and svals[i] that of KernelInfo.sizes[i].
 */
#include "t2c.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ launch expressions */

/* A double as an int64, saturated (NaN is 0): converting an out-of-range
 * double is undefined behaviour, and values come from the command line. */
static int64_t to_i64(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

bool eval_launch_expr(const Expr *e, const KernelInfo *ki, const double *pvals, const int64_t *svals,
                      double *out) {
  double a, b;
  switch (e->kind) {
  case E_INT: *out = (double)e->u.ival; return true;
  case E_FLOAT: *out = e->u.fval; return true;
  case E_BOOL: *out = (double)e->u.ival; return true;
  case E_INF: *out = INFINITY; return true;
  case E_IDENT: {
    const Sym *y = e->u.ident.sym;
    if (!y) return false;
    if (y->kind == SY_CONST) { *out = y->const_float ? y->fval : (double)y->ival; return true; }
    for (int i = 0; i < ki->nsizes; i++)
      if (ki->sizes[i] == y) { *out = (double)svals[i]; return true; }
    for (int i = 0; i < ki->nparams; i++)
      if (ki->params[i] == y) { *out = pvals[i]; return true; }
    return false;
  }
  case E_UNARY:
    if (!eval_launch_expr(e->u.unary.a, ki, pvals, svals, &a)) return false;
    *out = e->u.unary.op == TK_MINUS ? -a : e->u.unary.op == TK_NOT ? !a : (double)~to_i64(a);
    return true;
  case E_BINARY: {
    if (!eval_launch_expr(e->u.binary.a, ki, pvals, svals, &a) || !eval_launch_expr(e->u.binary.b, ki, pvals, svals, &b))
      return false;
    bool integer = elem_is_int(e->ty.elem) || (e->u.binary.a->ty.elem != T_F32 && e->u.binary.a->ty.elem != T_F64);
    int64_t x = to_i64(a), y = to_i64(b);
    switch (e->u.binary.op) {
    case TK_PLUS: *out = a + b; return true;
    case TK_MINUS: *out = a - b; return true;
    case TK_STAR: *out = a * b; return true;
    case TK_SLASH:
      if (b == 0) return false;
      *out = integer ? (y == -1 ? -(double)x : (double)(x / y)) : a / b;
      return true;
    case TK_PERCENT: if (y == 0) return false; *out = y == -1 ? 0 : (double)(x % y); return true;
    case TK_SHL: *out = (double)(int64_t)((uint64_t)x << (y & 63)); return true;
    case TK_SHR: *out = (double)(x >> (y & 63)); return true;
    case TK_AND: *out = (double)(x & y); return true;
    case TK_OR: *out = (double)(x | y); return true;
    case TK_XOR: *out = (double)(x ^ y); return true;
    case TK_EQ: *out = a == b; return true;
    case TK_NE: *out = a != b; return true;
    case TK_LT: *out = a < b; return true;
    case TK_LE: *out = a <= b; return true;
    case TK_GT: *out = a > b; return true;
    case TK_GE: *out = a >= b; return true;
    case TK_ANDAND: *out = a && b; return true;
    case TK_OROR: *out = a || b; return true;
    default: return false;
    }
  }
  case E_CALL: {
    if (e->u.call.cast != T_NONE) {
      if (!eval_launch_expr(e->u.call.args[0], ki, pvals, svals, &a)) return false;
      *out = elem_is_int(e->u.call.cast) ? (double)(int64_t)a : a;
      return true;
    }
    if (!eval_launch_expr(e->u.call.args[0], ki, pvals, svals, &a) ||
        !eval_launch_expr(e->u.call.args[1], ki, pvals, svals, &b))
      return false;
    switch (e->u.call.builtin) {
    case B_CDIV: if ((int64_t)b <= 0) return false; *out = (double)(((int64_t)a + (int64_t)b - 1) / (int64_t)b); return true;
    case B_MIN: *out = a < b ? a : b; return true;
    case B_MAX: *out = a < b ? b : a; return true;
    default: return false;
    }
  }
  default: return false;
  }
}

/* ------------------------------------------------------------ grid and assumptions */

bool launch_grid(const KernelInfo *ki, const double *pv, const int64_t *sv, unsigned g[3], char *err, size_t n) {
  static const double maxdim[3] = {2147483647.0, 65535.0, 65535.0};
  for (int d = 0; d < 3; d++) {
    double v = 1;
    if (ki->grid[d] && !eval_launch_expr(ki->grid[d], ki, pv, sv, &v)) {
      snprintf(err, n, "@grid dim %d cannot be evaluated (a division by zero?)", d);
      return false;
    }
    if (!(v >= 1 && v <= maxdim[d])) {
      snprintf(err, n, "@grid dim %d is %.0f; it must be from 1 to %.0f", d, v, maxdim[d]);
      return false;
    }
    g[d] = (unsigned)v;
  }
  return true;
}

bool launch_check_sizes(const KernelInfo *ki, const int64_t *sv, char *err, size_t n) {
  for (int i = 0; i < ki->nsizes; i++)
    if (sv[i] < 1 || sv[i] > 0x7fffffff) {
      snprintf(err, n, "size %s = %lld: sizes are from 1 to 2147483647", ki->sizes[i]->name, (long long)sv[i]);
      return false;
    }
  return true;
}

bool launch_check_assumes(const KernelInfo *ki, const char *kernel, const double *pv, const int64_t *sv,
                          char *err, size_t n) {
  for (int i = 0; i < ki->nassumes; i++) {
    double v;
    if (eval_launch_expr(ki->assumes[i].e, ki, pv, sv, &v) && v != 0) continue;
    Buf vals = {0};
    for (int s = 0; s < ki->nsizes; s++)
      buf_printf(&vals, "%s%s = %lld", s ? ", " : "", ki->sizes[s]->name, (long long)sv[s]);
    snprintf(err, n, "@assume condition %d of kernel '%s' (line %d) is false (%s)", i + 1, kernel,
             ki->assumes[i].e->loc.line, vals.data ? vals.data : "no sizes");
    buf_free(&vals);
    return false;
  }
  return true;
}

/* ------------------------------------------------------------ cache directory */

void launch_cache_dir(char *out, size_t n) {
  const char *c = getenv("TILE2CU_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  if (c && *c) snprintf(out, n, "%s", c);
  else if (x && *x) snprintf(out, n, "%s/tile2cu", x);
  else if (h && *h) snprintf(out, n, "%s/.cache/tile2cu", h);
  else snprintf(out, n, "/tmp/tile2cu-cache-%d", (int)getuid());
}

int launch_mkdirs(const char *path) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return -1;
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      if (mkdir(p, 0700) && errno != EEXIST) return -1;
      *s = '/';
    }
  return mkdir(p, 0700) && errno != EEXIST ? -1 : 0;
}

/* ------------------------------------------------------------ source files */

char *read_tl_file(const char *path, char *err, size_t n, int *status) {
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (status) *status = 2;
  if (!f) {
    snprintf(err, n, "cannot open %s: %s", path, strerror(errno));
    return NULL;
  }
  Buf b = {0};
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= MAX_SOURCE_BYTES) buf_putn(&b, chunk, got);
  bool bad = ferror(f);
  if (!is_stdin) fclose(f);
  if (bad) {
    snprintf(err, n, "cannot read %s", path);
    buf_free(&b);
    return NULL;
  }
  /* the content is wrong: an error in the input (exit status 1) */
  bool big = b.len > MAX_SOURCE_BYTES, nul = !big && b.len && memchr(b.data, 0, b.len);
  if (big || nul) {
    if (big) snprintf(err, n, "%s: error: the file is larger than %d MiB", path, MAX_SOURCE_BYTES >> 20);
    else snprintf(err, n, "%s: error: the file contains a NUL byte; is it a text file?", path);
    if (status) *status = 1;
    buf_free(&b);
    return NULL;
  }
  buf_puts(&b, "");
  return b.data;
}
