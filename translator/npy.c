/* npy.c: NumPy .npy files.
 *
 * A file is the magic "\x93NUMPY", a major and minor version byte, the
 * header length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), a
 * header that is a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and a newline, then the raw elements in C order.
 * The header is parsed by a small recursive-descent reader that accepts the
 * keys in any order, either quote, and optional trailing commas; anything
 * else is an error that names the file and what was wrong.
 */
#include "npy.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAX_HEADER (1 << 20)

static const struct {
  const char *descr;
  int bytes;
} npy_types[] = {
  {"<f4", 4}, {"<f2", 2}, {"<f8", 8}, {"<i4", 4}, {"<i8", 8},
  {"<u2", 2}, {"<u4", 4}, {"|u1", 1}, {"|i1", 1}, {"|b1", 1},
};

static int npy_err(char *err, size_t errlen, const char *path, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    int k = snprintf(err, errlen, "%s: ", path);
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < errlen) vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
    va_end(ap);
  }
  return 1;
}

int npy_elem_bytes(const char *descr) {
  for (size_t i = 0; i < sizeof npy_types / sizeof *npy_types; i++)
    if (!strcmp(descr, npy_types[i].descr)) return npy_types[i].bytes;
  return 0;
}

long long npy_nelems(const Npy *n) {
  long long e = 1;
  for (int i = 0; i < n->rank; i++) e *= n->shape[i];
  return e;
}

/* ---- the header dict */
typedef struct Hdr {
  const char *p, *end;
  const char *what; /* set on a syntax error: what was expected */
} Hdr;

static void skip_ws(Hdr *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r')) h->p++;
}

static bool accept(Hdr *h, char c) {
  skip_ws(h);
  if (h->p < h->end && *h->p == c) {
    h->p++;
    return true;
  }
  return false;
}

static bool expect(Hdr *h, char c, const char *what) {
  if (accept(h, c)) return true;
  h->what = what;
  return false;
}

/* string = "'" chars "'" | '"' chars '"' */
static bool parse_str(Hdr *h, char *buf, size_t n) {
  skip_ws(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) {
    h->what = "a quoted string";
    return false;
  }
  char q = *h->p++;
  size_t len = 0;
  while (h->p < h->end && *h->p != q) {
    if (len + 1 < n) buf[len++] = *h->p;
    h->p++;
  }
  buf[len] = 0;
  if (h->p >= h->end) {
    h->what = "a closing quote";
    return false;
  }
  h->p++;
  return true;
}

/* bool = "True" | "False" */
static bool parse_bool(Hdr *h, bool *v) {
  skip_ws(h);
  size_t left = (size_t)(h->end - h->p);
  if (left >= 4 && !memcmp(h->p, "True", 4)) {
    h->p += 4;
    *v = true;
    return true;
  }
  if (left >= 5 && !memcmp(h->p, "False", 5)) {
    h->p += 5;
    *v = false;
    return true;
  }
  h->what = "True or False";
  return false;
}

/* shape = "(" [ int { "," int } [ "," ] ] ")"; more than NPY_MAX_RANK
 * dimensions are counted in *rank but not stored. */
static bool parse_shape(Hdr *h, long long *shape, int *rank) {
  *rank = 0;
  if (!expect(h, '(', "'(' to open the shape")) return false;
  while (!accept(h, ')')) {
    skip_ws(h);
    long long v = 0;
    const char *start = h->p;
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
      if (v > (LLONG_MAX - 9) / 10) {
        h->what = "a dimension that fits in 63 bits";
        return false;
      }
      v = v * 10 + (*h->p++ - '0');
    }
    if (h->p == start) {
      h->what = "a non-negative integer dimension";
      return false;
    }
    if (h->p < h->end && *h->p == 'L') h->p++; /* Python 2 longs */
    if (*rank < NPY_MAX_RANK) shape[*rank] = v;
    (*rank)++;
    if (!accept(h, ',')) return expect(h, ')', "',' or ')' in the shape");
  }
  return true;
}

/* dict = "{" { string ":" value "," } "}" with the keys descr, fortran_order and shape */
static int parse_header(const char *path, const char *text, size_t len, Npy *out, char *err,
                        size_t errlen) {
  Hdr h = {text, text + len, NULL};
  bool have_descr = false, have_order = false, have_shape = false, fortran = false;
  char key[32], descr[32] = "";
  if (!expect(&h, '{', "'{'")) goto syntax;
  while (!accept(&h, '}')) {
    if (!parse_str(&h, key, sizeof key) || !expect(&h, ':', "':'")) goto syntax;
    if (!strcmp(key, "descr")) {
      if (!parse_str(&h, descr, sizeof descr)) goto syntax;
      have_descr = true;
    } else if (!strcmp(key, "fortran_order")) {
      if (!parse_bool(&h, &fortran)) goto syntax;
      have_order = true;
    } else if (!strcmp(key, "shape")) {
      if (!parse_shape(&h, out->shape, &out->rank)) goto syntax;
      have_shape = true;
    } else {
      return npy_err(err, errlen, path, "unexpected key '%s' in the header", key);
    }
    if (!accept(&h, ',')) {
      if (!expect(&h, '}', "',' or '}'")) goto syntax;
      break;
    }
  }
  if (!have_descr || !have_order || !have_shape)
    return npy_err(err, errlen, path, "header lacks '%s'",
                   !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  if (descr[0] == '>' && npy_elem_bytes((char[]){'<', descr[1], descr[2], 0}))
    return npy_err(err, errlen, path, "big-endian dtype '%s' is not supported (use '<%s')", descr, descr + 1);
  if (!npy_elem_bytes(descr))
    return npy_err(err, errlen, path,
                   "unsupported dtype '%s' (supported: <f4 <f2 <f8 <i4 <i8 <u2 <u4 |u1 |i1 |b1)", descr);
  if (out->rank > NPY_MAX_RANK)
    return npy_err(err, errlen, path, "rank %d is not supported (at most %d)", out->rank, NPY_MAX_RANK);
  if (fortran && out->rank >= 2)
    return npy_err(err, errlen, path,
                   "fortran_order arrays are not supported (save np.ascontiguousarray(a) instead)");
  snprintf(out->descr, sizeof out->descr, "%.7s", descr);
  return 0;
syntax:
  return npy_err(err, errlen, path, "corrupt header: expected %s at offset %ld of \"%.*s\"", h.what,
                 (long)(h.p - text), (int)(len > 120 ? 120 : len), text);
}

/* nbytes of the shape, or -1 on overflow. */
static long long shape_bytes(const Npy *n) {
  long long e = npy_elem_bytes(n->descr);
  for (int i = 0; i < n->rank; i++) {
    if (n->shape[i] < 0) return -1;
    if (n->shape[i] && e > LLONG_MAX / n->shape[i]) return -1;
    e *= n->shape[i];
  }
  return e;
}

static int read_header(FILE *f, const char *path, Npy *out, char *err, size_t errlen) {
  unsigned char pre[12];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, NPY_MAGIC, 6))
    return npy_err(err, errlen, path, "not a .npy file (bad magic)");
  int major = pre[6];
  size_t lenbytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    return npy_err(err, errlen, path, "unsupported .npy format version %d.%d", major, pre[7]);
  if (fread(pre + 8, 1, lenbytes, f) != lenbytes) return npy_err(err, errlen, path, "truncated header");
  size_t hlen = pre[8] | (size_t)pre[9] << 8;
  if (lenbytes == 4) hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  if (hlen > NPY_MAX_HEADER) return npy_err(err, errlen, path, "corrupt header: length %zu", hlen);
  char *text = malloc(hlen + 1);
  if (!text) return npy_err(err, errlen, path, "out of memory");
  int rc = 0;
  if (fread(text, 1, hlen, f) != hlen) rc = npy_err(err, errlen, path, "truncated header");
  else rc = parse_header(path, text, hlen, out, err, errlen);
  free(text);
  return rc;
}

int npy_read(const char *path, Npy *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return npy_err(err, errlen, path, "%s", strerror(errno));
  int rc = read_header(f, path, out, err, errlen);
  long long nb = rc ? 0 : shape_bytes(out);
  if (!rc && (nb < 0 || (unsigned long long)nb > SIZE_MAX / 2))
    rc = npy_err(err, errlen, path, "corrupt header: the shape is too large");
  if (!rc && !(out->data = malloc(nb ? (size_t)nb : 1)))
    rc = npy_err(err, errlen, path, "out of memory for %lld bytes", nb);
  if (!rc) {
    out->nbytes = (size_t)nb;
    size_t got = fread(out->data, 1, out->nbytes, f);
    if (got != out->nbytes)
      rc = npy_err(err, errlen, path, "truncated data: the shape needs %zu bytes, the file has %zu",
                   out->nbytes, got);
    else if (getc(f) != EOF)
      rc = npy_err(err, errlen, path, "corrupt: bytes after the %zu bytes of data the shape describes",
                   out->nbytes);
  }
  fclose(f);
  if (rc) npy_free(out);
  return rc;
}

/* The header text, padded so the data starts at a multiple of 64. */
static size_t format_header(const Npy *n, char *buf, size_t cap) {
  char shape[128] = "";
  size_t k = 0;
  for (int i = 0; i < n->rank; i++)
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", i ? ", " : "", n->shape[i]);
  if (n->rank == 1) snprintf(shape + k, sizeof shape - k, ",");
  size_t len = (size_t)snprintf(buf, cap, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                                n->descr, shape);
  size_t total = (10 + len + 1 + 63) / 64 * 64;
  while (10 + len + 1 < total) buf[len++] = ' ';
  buf[len++] = '\n';
  return len;
}

int npy_write(const char *path, const Npy *n, char *err, size_t errlen) {
  if (!npy_elem_bytes(n->descr)) return npy_err(err, errlen, path, "unsupported dtype '%s'", n->descr);
  if (n->rank < 0 || n->rank > NPY_MAX_RANK) return npy_err(err, errlen, path, "bad rank %d", n->rank);
  long long nb = shape_bytes(n);
  if (nb < 0 || (size_t)nb != n->nbytes)
    return npy_err(err, errlen, path, "%zu bytes of data do not match the shape (%lld bytes)", n->nbytes, nb);
  char hdr[256];
  size_t hlen = format_header(n, hdr, sizeof hdr);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                           (unsigned char)(hlen >> 8)};
  size_t plen = strlen(path) + 32;
  char *tmp = malloc(plen);
  if (!tmp) return npy_err(err, errlen, path, "out of memory");
  snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  int rc = 0;
  if (!f) {
    rc = npy_err(err, errlen, path, "cannot create %s: %s", tmp, strerror(errno));
  } else {
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, hlen, f) == hlen &&
              (n->nbytes == 0 || fwrite(n->data, 1, n->nbytes, f) == n->nbytes);
    if (fclose(f) != 0) ok = false;
    if (!ok) rc = npy_err(err, errlen, path, "cannot write %s: %s", tmp, strerror(errno));
    else if (rename(tmp, path) != 0) rc = npy_err(err, errlen, path, "cannot rename %s: %s", tmp, strerror(errno));
    if (rc) unlink(tmp);
  }
  free(tmp);
  return rc;
}

void npy_free(Npy *n) {
  free(n->data);
  n->data = NULL;
  n->nbytes = 0;
}
