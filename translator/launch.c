/* launch.c: what every way of launching a kernel shares: evaluating @grid and
 * @assume for given sizes and scalars (tile2cu run, the NVRTC driver), a
 * scalar's value from the command line's text (tile2cu run and tune, one
 * conversion, so that both round an f16 or f8 alike), and the per-user cache
 * directory.
 *
 * Values: pvals[i] is the value of KernelInfo.params[i] (scalars; tensors are
 * ignored) and svals[i] that of KernelInfo.sizes[i].
 */
#include "t2c.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
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

enum { MAX_ASSUME_NAMES = 16 }; /* names a false condition's message lists */

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

/* The value of a name a launch expression reads, as the user wrote it: a size or
 * an integer as an integer, a float scalar or const in %g, a bool as a word. */
static void name_value(Buf *b, const Sym *y, const KernelInfo *ki, const double *pv, const int64_t *sv) {
  for (int i = 0; i < ki->nsizes; i++)
    if (ki->sizes[i] == y) {
      buf_printf(b, "%s = %lld", y->name, (long long)sv[i]);
      return;
    }
  double v = y->kind == SY_CONST ? (y->const_float ? y->fval : (double)y->ival) : 0;
  for (int i = 0; i < ki->nparams; i++)
    if (ki->params[i] == y)
      v = pv[i];
  if (y->ty.elem == T_BOOL)
    buf_printf(b, "%s = %s", y->name, v != 0 ? "true" : "false");
  else if (elem_is_int(y->ty.elem) || (y->kind == SY_CONST && !y->const_float))
    buf_printf(b, "%s = %lld", y->name, (long long)to_i64(v));
  else
    buf_printf(b, "%s = %g", y->name, v);
}

/* The names e reads (sizes, scalars, consts), each once in the order of first
 * reading, with their values: what makes a false condition false. */
static void read_names(const Expr *e, const KernelInfo *ki, const double *pv, const int64_t *sv,
                       const Sym **seen, int *nseen, Buf *b) {
  switch (e->kind) {
  case E_IDENT: {
    const Sym *y = e->u.ident.sym;
    if (!y || *nseen == MAX_ASSUME_NAMES)
      return;
    for (int i = 0; i < *nseen; i++)
      if (seen[i] == y)
        return;
    seen[(*nseen)++] = y;
    if (b->len)
      buf_puts(b, ", ");
    name_value(b, y, ki, pv, sv);
    return;
  }
  case E_UNARY: read_names(e->u.unary.a, ki, pv, sv, seen, nseen, b); return;
  case E_BINARY:
    read_names(e->u.binary.a, ki, pv, sv, seen, nseen, b);
    read_names(e->u.binary.b, ki, pv, sv, seen, nseen, b);
    return;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      read_names(e->u.call.args[i], ki, pv, sv, seen, nseen, b);
    return;
  default: return;
  }
}

bool launch_check_assumes(const KernelInfo *ki, const char *kernel, const double *pv, const int64_t *sv,
                          char *err, size_t n) {
  for (int i = 0; i < ki->nassumes; i++) {
    double v;
    if (eval_launch_expr(ki->assumes[i].e, ki, pv, sv, &v) && v != 0) continue;
    Buf vals = {0};
    const Sym *seen[MAX_ASSUME_NAMES];
    int nseen = 0;
    read_names(ki->assumes[i].e, ki, pv, sv, seen, &nseen, &vals);
    if (vals.len)
      snprintf(err, n, "@assume condition %d of kernel '%s' (line %d) is false (%s)", i + 1, kernel,
               ki->assumes[i].e->loc.line, vals.data);
    else
      snprintf(err, n, "@assume condition %d of kernel '%s' (line %d) is false", i + 1, kernel,
               ki->assumes[i].e->loc.line);
    buf_free(&vals);
    return false;
  }
  return true;
}

/* ------------------------------------------------------------ scalar values */

/* A binary float format of ebits exponent and mbits fraction bits: the largest finite
 * bits, what an overflow gives (inf, or the largest finite under satfinite), NaN's bits. */
typedef struct FloatFormat {
  int ebits, mbits;
  uint32_t max, over, nan;
} FloatFormat;

static const FloatFormat fmt_f16 = {5, 10, 0x7bff, 0x7c00, 0x7e00}, fmt_bf16 = {8, 7, 0x7f7f, 0x7f80, 0x7fc0},
                         fmt_e4m3 = {4, 3, 0x7e, 0x7e, 0x7f}, fmt_e5m2 = {5, 2, 0x7b, 0x7b, 0x7f};

static const FloatFormat *float_format(ElemType e) {
  switch (e) {
  case T_F16: return &fmt_f16;
  case T_BF16: return &fmt_bf16;
  case T_F8E4M3: return &fmt_e4m3;
  case T_F8E5M2: return &fmt_e5m2;
  default: return NULL;
  }
}

/* d's bits in format f, rounded to nearest even as the device's cvt.rn does (f8 with
 * .satfinite, as f8() converts: an overflow or an infinity is the largest finite). */
static uint32_t float_bits(double d, const FloatFormat *f) {
  uint32_t sign = signbit(d) ? 1u << (f->ebits + f->mbits) : 0;
  if (isnan(d)) return sign | f->nan;
  if (isinf(d)) return sign | f->over;
  int bias = (1 << (f->ebits - 1)) - 1, e;
  double a = fabs(d);
  frexp(a, &e); /* a = 1.x * 2^(e - 1) */
  int exp = e - 1 < 1 - bias ? 1 - bias : e - 1; /* a subnormal's quantum is the smallest normal's */
  /* the fraction in units of the quantum, 2^(exp - mbits): scaling by a power of two is exact,
   * and nearbyint rounds to nearest even (the default rounding mode) */
  uint64_t m = (uint64_t)nearbyint(ldexp(a, f->mbits - exp)), one = 1ull << f->mbits;
  /* a normal's implicit bit joins the exponent field; m == 2 * one carries into it */
  uint64_t bits = m < one ? m : ((uint64_t)(exp + bias) << f->mbits) + (m - one);
  return sign | (bits > f->max ? f->over : (uint32_t)bits);
}

uint32_t elem_float_bits(ElemType e, double d) {
  const FloatFormat *f = float_format(e);
  if (!f) die("elem_float_bits: %s is no 16- or 8-bit float", elem_names[e]);
  return float_bits(d, f);
}

double elem_float_value(ElemType e, uint32_t bits) {
  const FloatFormat *f = float_format(e);
  if (!f) die("elem_float_value: %s is no 16- or 8-bit float", elem_names[e]);
  int bias = (1 << (f->ebits - 1)) - 1, emax = (1 << f->ebits) - 1;
  uint32_t m = bits & ((1u << f->mbits) - 1), ef = (bits >> f->mbits) & (uint32_t)emax;
  double v;
  bool e4m3 = f == &fmt_e4m3; /* one NaN, all ones, and no infinity; the others IEEE's */
  if (e4m3 ? (bits & 0x7f) == 0x7f : (int)ef == emax) v = e4m3 || m ? NAN : INFINITY;
  else if (ef == 0) v = ldexp(m, 1 - bias - f->mbits);
  else v = ldexp((double)((1u << f->mbits) + m), (int)ef - bias - f->mbits);
  return bits >> (f->ebits + f->mbits) & 1 ? -v : v;
}

/* An integer literal, exactly: [+-] then decimal digits or 0x and hex digits. false when
 * s is no such literal; *big when its magnitude passes 2^64 - 1. */
static bool parse_exact_int(const char *s, bool *neg, uint64_t *mag, bool *big) {
  *neg = *s == '-';
  if (*s == '-' || *s == '+') s++;
  bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char *d = hex ? s + 2 : s;
  if (!*d) return false;
  for (const char *c = d; *c; c++)
    if (hex ? !isxdigit((unsigned char)*c) : !isdigit((unsigned char)*c)) return false;
  char *end;
  errno = 0;
  *mag = strtoull(d, &end, hex ? 16 : 10); /* base 10 for 010 too, as strtod reads it */
  *big = errno == ERANGE;
  return true;
}

/* An integer scalar: a literal taken exactly (an i64, a rand() seed say, may need all 64
 * bits, which a double does not hold), else any number that is an integer (3.0, 1e3). */
static bool int_scalar(ElemType e, const char *name, const char *s, int64_t *v, char *err, size_t n) {
  int64_t lo;
  uint64_t hi;
  elem_int_range(e, &lo, &hi);
  bool neg, big, in;
  uint64_t mag;
  if (parse_exact_int(s, &neg, &mag, &big)) {
    /* -lo as an unsigned magnitude: 2^63 for i64 */
    in = !big && (neg ? mag <= (uint64_t)0 - (uint64_t)lo : mag <= hi);
    if (in) *v = neg ? (int64_t)((uint64_t)0 - mag) : (int64_t)mag;
  } else {
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s || *end) {
      snprintf(err, n, "scalar %s=%s: expected an integer (%s is %s)", name, s, name, elem_names[e]);
      return false;
    }
    if (d != floor(d)) {
      snprintf(err, n, "scalar %s=%s: %s takes an integer", name, s, elem_names[e]);
      return false;
    }
    /* lo is a power of two's negation and 2^63 is exact: the comparisons are too */
    in = d >= (double)lo && (e == T_I64 ? d < 9223372036854775808.0 : d <= (double)hi);
    if (in) *v = (int64_t)d;
  }
  if (!in)
    snprintf(err, n, "scalar %s=%s: outside [%" PRId64 ", %" PRIu64 "], the range of %s", name, s, lo, hi, elem_names[e]);
  return in;
}

bool launch_scalar(ElemType e, const char *name, const char *s, ScalarArg *v, double *dv, char *err, size_t n) {
  if (e == T_BOOL && (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)) {
    v->b = s[0] == 't';
    *dv = v->b;
    return true;
  }
  if (elem_is_int(e)) {
    int64_t iv = 0;
    if (!int_scalar(e, name, s, &iv, err, n)) return false;
    switch (e) {
    case T_I32: v->i32 = (int)iv; break;
    case T_U32: v->u32 = (unsigned)iv; break;
    case T_I64: v->i64 = (long long)iv; break;
    case T_I8: v->i8 = (signed char)iv; break;
    case T_U8: v->u8 = (unsigned char)iv; break;
    default: unreachable();
    }
    *dv = (double)iv;
    return true;
  }
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if (errno || end == s || *end) {
    snprintf(err, n, "scalar %s=%s: expected a number%s (%s is %s)", name, s, e == T_BOOL ? ", true or false" : "", name,
             elem_names[e]);
    return false;
  }
  *dv = d;
  switch (e) {
  case T_F32: v->f32 = (float)d; break;
  case T_F64: v->f64 = d; break;
  case T_BOOL: v->b = d != 0; break;
  case T_F16: case T_BF16: v->u16 = (unsigned short)elem_float_bits(e, d); break;
  case T_F8E4M3: case T_F8E5M2: v->u8 = (unsigned char)elem_float_bits(e, d); break;
  default:
    snprintf(err, n, "scalar %s: %s scalars are not supported", name, elem_names[e]);
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
