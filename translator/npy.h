/* npy.h: read and write NumPy .npy files (format versions 1.0, 2.0, 3.0).
 *
 * Only what `tile2cu run` needs: little-endian (or byte-sized) element types,
 * C order, rank 0 to 4. Errors are one line, "PATH: message", in err.
 * Files are untrusted: a malformed header, a shape whose size overflows or
 * does not match the data, fortran_order with rank 2 or more, and any other
 * dtype are errors, and nothing is allocated beyond what the file holds.
 */
#ifndef NPY_H
#define NPY_H

#include <stddef.h>

#define NPY_MAX_RANK 4

typedef struct Npy {
  char descr[8];                 /* "<f4" "<f2" "<f8" "<i4" "<i8" "<u2" "<u4" "|u1" "|i1" "|b1", or raw "<V2" "<V1" */
  int rank;                      /* 0 .. NPY_MAX_RANK; rank 0 holds one element */
  long long shape[NPY_MAX_RANK]; /* shape[0] is the slowest-varying dimension */
  void *data;                    /* malloc'd, nbytes bytes; freed by npy_free */
  size_t nbytes;
} Npy;

/* Bytes per element of a supported descr, or 0 for any other. */
int npy_elem_bytes(const char *descr);
/* The product of the shape (1 for rank 0); for an Npy from npy_read or
 * npy_parse, npy_nelems(n) * npy_elem_bytes(n->descr) == n->nbytes. */
long long npy_nelems(const Npy *n);

/* On success returns 0 and fills *out (free it with npy_free). */
int npy_read(const char *path, Npy *out, char *err, size_t errlen);
/* The same for a whole file already in memory (len bytes); name is the
 * file name for messages. The data is copied into out->data. */
int npy_parse(const void *buf, size_t len, const char *name, Npy *out, char *err, size_t errlen);
/* Writes through a temporary file in the same directory, then renames it,
 * so a reader never sees half a file. n->nbytes must match the shape. */
int npy_write(const char *path, const Npy *n, char *err, size_t errlen);
void npy_free(Npy *n);

#endif /* NPY_H */
