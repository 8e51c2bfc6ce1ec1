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
 *
 * Every input is treated as hostile: the header must be printable ASCII, no
 * longer than NPY_MAX_HEADER and inside the file; each key appears once;
 * the shape's element count and byte size are computed with overflow checks
 * and compared with the bytes the file really has before anything is
 * allocated, so a header cannot make the reader allocate more than the file
 * holds.
 */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAX_HEADER (1 << 20)
#define NPY_MAX_STR 32 /* the longest key or descr string the parser keeps */

static const struct {
  const char *descr;
  int bytes;
} npy_types[] = {
  {"<f4", 4}, {"<f2", 2}, {"<f8", 8}, {"<i4", 4}, {"<i8", 8},
  {"<u2", 2}, {"<u4", 4}, {"|u1", 1}, {"|i1", 1}, {"|b1", 1},
  /* raw 2- and 1-byte elements: NumPy saves ml_dtypes' bfloat16 and float8 arrays so */
  {"<V2", 2}, {"|V2", 2}, {"<V1", 1}, {"|V1", 1},
  /* and float8_e5m2 so (ml_dtypes 0.7: its type character is 'f') */
  {"<f1", 1}, {"|f1", 1},
};

static int npy_err(char *err, size_t errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
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

/* Cannot overflow for an Npy that npy_read or npy_parse returned: both check
 * that the product fits (see shape_bytes). */
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

/* string = "'" chars "'" | '"' chars '"', at most NPY_MAX_STR - 1 chars */
static bool parse_str(Hdr *h, char buf[NPY_MAX_STR]) {
  skip_ws(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) {
    h->what = "a quoted string";
    return false;
  }
  char q = *h->p++;
  const char *close = memchr(h->p, q, (size_t)(h->end - h->p));
  if (!close) {
    h->what = "a closing quote";
    return false;
  }
  size_t len = (size_t)(close - h->p);
  if (memchr(h->p, '\n', len) || memchr(h->p, '\r', len)) {
    h->what = "a closing quote before the end of the line";
    return false;
  }
  if (len >= NPY_MAX_STR) {
    h->what = "a string of at most 31 characters";
    return false;
  }
  memcpy(buf, h->p, len);
  buf[len] = 0;
  h->p = close + 1;
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
 * dimensions are counted in *rank but not stored. A '-' before a dimension
 * sets *negative. */
static bool parse_shape(Hdr *h, long long *shape, int *rank, bool *negative) {
  *rank = 0;
  if (!expect(h, '(', "'(' to open the shape")) return false;
  while (!accept(h, ')')) {
    skip_ws(h);
    if (h->p < h->end && *h->p == '-') {
      *negative = true;
      h->what = "a non-negative integer dimension";
      return false;
    }
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
    if (*rank < INT_MAX) (*rank)++;
    if (!accept(h, ',')) return expect(h, ')', "',' or ')' in the shape");
  }
  return true;
}

/* The first bytes of the header for a message: blanks collapse to one space,
 * so the message stays on one line (the header is printable ASCII by now). */
static void snippet(const char *text, size_t len, char *out, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < len && k + 4 < n; i++) {
    char c = text[i] == '\n' || text[i] == '\r' || text[i] == '\t' ? ' ' : text[i];
    if (c == ' ' && (k == 0 || out[k - 1] == ' ')) continue;
    out[k++] = c;
    if (k == 80 && i + 1 < len) {
      memcpy(out + k, "...", 3);
      k += 3;
      break;
    }
  }
  while (k && out[k - 1] == ' ') k--;
  out[k] = 0;
}

/* dict = "{" { string ":" value "," } "}" with the keys descr, fortran_order
 * and shape, each exactly once, then only blanks. */
static int parse_header(const char *path, const char *text, size_t len, Npy *out, char *err, size_t errlen) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c >= 0x80 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f)
      return npy_err(err, errlen, path, "corrupt header: byte 0x%02x at offset %zu is not printable ASCII", c, i);
  }
  Hdr h = {text, text + len, NULL};
  bool have_descr = false, have_order = false, have_shape = false, fortran = false, negative = false;
  char key[NPY_MAX_STR], descr[NPY_MAX_STR] = "";
  if (!expect(&h, '{', "'{' (the header is not a dict)")) goto syntax;
  while (!accept(&h, '}')) {
    if (!parse_str(&h, key) || !expect(&h, ':', "':'")) goto syntax;
    bool dup = false;
    if (!strcmp(key, "descr")) {
      dup = have_descr;
      skip_ws(&h);
      if (!dup && h.p < h.end && *h.p == '[')
        return npy_err(err, errlen, path, "unsupported dtype: structured arrays (a list of fields) are not supported");
      if (!dup && !parse_str(&h, descr)) goto syntax;
      have_descr = true;
    } else if (!strcmp(key, "fortran_order")) {
      dup = have_order;
      if (!dup && !parse_bool(&h, &fortran)) goto syntax;
      have_order = true;
    } else if (!strcmp(key, "shape")) {
      dup = have_shape;
      if (!dup && !parse_shape(&h, out->shape, &out->rank, &negative)) {
        if (negative) return npy_err(err, errlen, path, "corrupt header: negative dimension in the shape");
        goto syntax;
      }
      have_shape = true;
    } else {
      return npy_err(err, errlen, path, "unexpected key '%s' in the header", key);
    }
    if (dup) return npy_err(err, errlen, path, "corrupt header: duplicate key '%s'", key);
    if (!accept(&h, ',')) {
      if (!expect(&h, '}', "',' or '}'")) goto syntax;
      break;
    }
  }
  skip_ws(&h);
  if (h.p < h.end) {
    h.what = "nothing after the closing '}'";
    goto syntax;
  }
  if (!have_descr || !have_order || !have_shape)
    return npy_err(err, errlen, path, "header lacks '%s'",
                   !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  if (descr[0] == '>' && strlen(descr) == 3 && npy_elem_bytes((char[]){'<', descr[1], descr[2], 0}))
    return npy_err(err, errlen, path, "big-endian dtype '%s' is not supported (use '<%s')", descr, descr + 1);
  if (!npy_elem_bytes(descr))
    return npy_err(err, errlen, path,
                   "unsupported dtype '%s' (supported: <f4 <f2 <f8 <i4 <i8 <u2 <u4 |u1 |i1 |b1, and <V2 <V1 for bf16 and f8, <f1 for f8e5m2)", descr);
  if (out->rank > NPY_MAX_RANK)
    return npy_err(err, errlen, path, "rank %d is not supported (at most %d)", out->rank, NPY_MAX_RANK);
  /* rank 0 and 1 are laid out the same either way */
  if (fortran && out->rank >= 2)
    return npy_err(err, errlen, path,
                   "fortran_order arrays are not supported (save np.ascontiguousarray(a) instead)");
  snprintf(out->descr, sizeof out->descr, "%.7s", descr);
  return 0;
syntax:;
  char show[96];
  snippet(text, len, show, sizeof show);
  return npy_err(err, errlen, path, "corrupt header: expected %s at offset %ld of \"%s\"", h.what,
                 (long)(h.p - text), show);
}

/* The data size of the shape in bytes, or false when it does not fit:
 * the product of the nonzero dimensions times the element size must fit
 * both in a long long and in a size_t (so npy_nelems never overflows). */
static bool shape_bytes(const Npy *n, size_t *out) {
  unsigned long long prod = (unsigned long long)npy_elem_bytes(n->descr), all = prod;
  if (n->rank < 0 || n->rank > NPY_MAX_RANK) return false;
  for (int i = 0; i < n->rank; i++) {
    if (n->shape[i] < 0) return false;
    if (n->shape[i] == 0) {
      all = 0;
      continue;
    }
    if (__builtin_mul_overflow(prod, (unsigned long long)n->shape[i], &prod) || prod > (unsigned long long)LLONG_MAX)
      return false;
    all *= (unsigned long long)n->shape[i];
  }
  if (prod > SIZE_MAX) return false;
  *out = (size_t)all;
  return true;
}

/* The preamble (magic, version, header length) at the start of buf, whose
 * file has file_size bytes in all; sets *hoff and *hlen (the header text). */
static int parse_preamble(const unsigned char *buf, size_t avail, unsigned long long file_size, const char *path,
                          size_t *hoff, size_t *hlen, char *err, size_t errlen) {
  if (avail < 8 || memcmp(buf, NPY_MAGIC, 6))
    return npy_err(err, errlen, path, "not a .npy file (bad magic)");
  int major = buf[6], minor = buf[7];
  if (major < 1 || major > 3 || minor != 0)
    return npy_err(err, errlen, path, "unsupported .npy format version %d.%d (supported: 1.0, 2.0, 3.0)", major,
                   minor);
  size_t lenbytes = major == 1 ? 2 : 4;
  if (avail < 8 + lenbytes) return npy_err(err, errlen, path, "truncated header: the file ends in the preamble");
  size_t len = buf[8] | (size_t)buf[9] << 8;
  if (lenbytes == 4) len |= (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
  if (len > NPY_MAX_HEADER)
    return npy_err(err, errlen, path, "corrupt header: its length %zu is over the limit of %d bytes", len,
                   NPY_MAX_HEADER);
  if (8 + lenbytes + len > file_size)
    return npy_err(err, errlen, path, "truncated header: %zu bytes long, but the file ends %llu bytes into it", len,
                   file_size - 8 - lenbytes);
  *hoff = 8 + lenbytes;
  *hlen = len;
  return 0;
}

/* Sets out->nbytes from the shape and checks it against the data_bytes the file has. */
static int check_data_size(const char *path, Npy *out, unsigned long long data_bytes, char *err, size_t errlen) {
  size_t nb;
  if (!shape_bytes(out, &nb)) return npy_err(err, errlen, path, "corrupt header: the shape is too large");
  if (data_bytes < nb)
    return npy_err(err, errlen, path, "truncated data: the shape needs %zu bytes, the file has %llu", nb, data_bytes);
  if (data_bytes > nb)
    return npy_err(err, errlen, path, "corrupt: %llu bytes after the %zu bytes of data the shape describes",
                   data_bytes - nb, nb);
  out->nbytes = nb;
  return 0;
}

int npy_parse(const void *buf, size_t len, const char *name, Npy *out, char *err, size_t errlen) {
  const unsigned char *b = buf;
  memset(out, 0, sizeof *out);
  size_t hoff, hlen;
  if (parse_preamble(b, len, len, name, &hoff, &hlen, err, errlen) ||
      parse_header(name, (const char *)b + hoff, hlen, out, err, errlen) ||
      check_data_size(name, out, len - hoff - hlen, err, errlen)) {
    npy_free(out);
    return 1;
  }
  if (!(out->data = malloc(out->nbytes ? out->nbytes : 1))) {
    npy_free(out);
    return npy_err(err, errlen, name, "out of memory for %zu bytes", out->nbytes);
  }
  if (out->nbytes) memcpy(out->data, b + hoff + hlen, out->nbytes);
  return 0;
}

/* Reads exactly n bytes; returns how many there were. */
static size_t read_full(int fd, void *p, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

int npy_read(const char *path, Npy *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return npy_err(err, errlen, path, "%s", strerror(errno));
  struct stat st;
  unsigned char pre[12];
  char *text = NULL;
  size_t hoff, hlen, got;
  int rc = 0;
  if (fstat(fd, &st) != 0) rc = npy_err(err, errlen, path, "%s", strerror(errno));
  else if (!S_ISREG(st.st_mode)) rc = npy_err(err, errlen, path, "not a regular file");
  if (!rc) {
    got = read_full(fd, pre, sizeof pre < (size_t)st.st_size ? sizeof pre : (size_t)st.st_size);
    rc = parse_preamble(pre, got, (unsigned long long)st.st_size, path, &hoff, &hlen, err, errlen);
  }
  if (!rc && lseek(fd, (off_t)hoff, SEEK_SET) < 0) rc = npy_err(err, errlen, path, "%s", strerror(errno));
  if (!rc && !(text = malloc(hlen + 1))) rc = npy_err(err, errlen, path, "out of memory");
  if (!rc && read_full(fd, text, hlen) != hlen) rc = npy_err(err, errlen, path, "truncated header");
  if (!rc) rc = parse_header(path, text, hlen, out, err, errlen);
  free(text);
  if (!rc) rc = check_data_size(path, out, (unsigned long long)st.st_size - hoff - hlen, err, errlen);
  if (!rc && !(out->data = malloc(out->nbytes ? out->nbytes : 1)))
    rc = npy_err(err, errlen, path, "out of memory for %zu bytes", out->nbytes);
  if (!rc) {
    /* the file may change while it is read */
    char extra;
    if ((got = read_full(fd, out->data, out->nbytes)) != out->nbytes)
      rc = npy_err(err, errlen, path, "truncated data: the shape needs %zu bytes, the file has %zu", out->nbytes,
                   got);
    else if (read_full(fd, &extra, 1) != 0)
      rc = npy_err(err, errlen, path, "corrupt: bytes after the %zu bytes of data the shape describes", out->nbytes);
  }
  close(fd);
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

static bool write_full(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= (size_t)w;
  }
  return true;
}

int npy_write(const char *path, const Npy *n, char *err, size_t errlen) {
  if (!npy_elem_bytes(n->descr)) return npy_err(err, errlen, path, "unsupported dtype '%s'", n->descr);
  if (n->rank < 0 || n->rank > NPY_MAX_RANK) return npy_err(err, errlen, path, "bad rank %d", n->rank);
  size_t nb;
  if (!shape_bytes(n, &nb)) return npy_err(err, errlen, path, "the shape is too large");
  if (nb != n->nbytes)
    return npy_err(err, errlen, path, "%zu bytes of data do not match the shape (%zu bytes)", n->nbytes, nb);
  char hdr[256];
  size_t hlen = format_header(n, hdr, sizeof hdr);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                           (unsigned char)(hlen >> 8)};
  size_t plen = strlen(path) + 32;
  char *tmp = malloc(plen);
  if (!tmp) return npy_err(err, errlen, path, "out of memory");
  snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
  /* a new file: never through a symlink or into a file someone left there */
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  int rc = 0;
  if (fd < 0) {
    rc = npy_err(err, errlen, path, "cannot create %s: %s", tmp, strerror(errno));
  } else {
    bool ok = write_full(fd, pre, 10) && write_full(fd, hdr, hlen) && write_full(fd, n->data, n->nbytes);
    if (close(fd) != 0) ok = false;
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
