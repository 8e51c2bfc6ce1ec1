/* test_npy.c: .npy reading and writing (npy.c).
 *
 * Round trips every dtype and rank 0..4; reads headers written the way NumPy
 * writes them (1.0 and 2.0, keys in another order, double quotes); and every
 * kind of bad file must fail with a message that names the file and the fault.
 * Files live under mkdtemp directories in /tmp.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"

static char dir[64], path[128];

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/test_npy_XXXXXX");
  cr_assert(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/a.npy", dir);
}

static void teardown(void) {
  unlink(path);
  rmdir(dir);
}

TestSuite(npy, .init = setup, .fini = teardown);

/* Writes a raw file: the 8-byte preamble for the version, the header
 * (padded like NumPy to a multiple of 64), then `data`. */
static void write_raw(int major, const char *header, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert(f);
  size_t lenbytes = major == 1 ? 2 : 4, hl = strlen(header);
  size_t total = (8 + lenbytes + hl + 1 + 63) / 64 * 64, padded = total - 8 - lenbytes;
  unsigned char pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0,
                           (unsigned char)(padded & 0xff), (unsigned char)(padded >> 8), 0, 0};
  fwrite(pre, 1, 8 + lenbytes, f);
  fputs(header, f);
  for (size_t i = hl; i + 1 < padded; i++) fputc(' ', f);
  fputc('\n', f);
  if (n) fwrite(data, 1, n, f);
  fclose(f);
}

static void expect_error(const char *want) {
  Npy n;
  char err[512];
  cr_assert_neq(npy_read(path, &n, err, sizeof err), 0, "read should fail (%s)", want);
  cr_assert(strstr(err, path), "message lacks the path: %s", err);
  cr_assert(strstr(err, want), "message lacks \"%s\": %s", want, err);
  cr_assert_null(n.data);
}

Test(npy, round_trip_every_dtype_and_rank) {
  static const char *const descrs[] = {"<f4", "<f2", "<f8", "<i4", "<i8", "<u2", "<u4", "|u1", "|i1", "|b1"};
  static const long long shapes[5][4] = {{0}, {7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 2}};
  for (size_t d = 0; d < sizeof descrs / sizeof *descrs; d++)
    for (int rank = 0; rank <= 4; rank++) {
      Npy w = {.rank = rank}, r;
      char err[512];
      snprintf(w.descr, sizeof w.descr, "%s", descrs[d]);
      memcpy(w.shape, shapes[rank], sizeof w.shape);
      w.nbytes = (size_t)npy_nelems(&w) * (size_t)npy_elem_bytes(w.descr);
      unsigned char *buf = malloc(w.nbytes);
      for (size_t i = 0; i < w.nbytes; i++) buf[i] = (unsigned char)(i * 37 + d);
      w.data = buf;
      cr_assert_eq(npy_write(path, &w, err, sizeof err), 0, "%s", err);
      cr_assert_eq(npy_read(path, &r, err, sizeof err), 0, "%s", err);
      cr_assert_str_eq(r.descr, descrs[d]);
      cr_assert_eq(r.rank, rank);
      for (int i = 0; i < rank; i++) cr_assert_eq(r.shape[i], shapes[rank][i]);
      cr_assert_eq(r.nbytes, w.nbytes);
      cr_assert_eq(memcmp(r.data, buf, w.nbytes), 0);
      npy_free(&r);
      free(buf);
    }
}

Test(npy, header_is_numpy_style_and_aligned) {
  float v[3] = {1, 2, 3};
  Npy w = {.descr = "<f4", .rank = 1, .shape = {3}, .data = v, .nbytes = sizeof v};
  char err[512], buf[256];
  cr_assert_eq(npy_write(path, &w, err, sizeof err), 0, "%s", err);
  FILE *f = fopen(path, "rb");
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  cr_assert_eq(n, 128 + sizeof v); /* as NumPy writes it */
  buf[127] = 0;
  cr_assert_eq(memcmp(buf, "\x93NUMPY\x01\x00\x76\x00", 10), 0);
  cr_assert(strstr(buf + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"), "%s", buf + 10);
}

Test(npy, reads_version_2_and_other_key_orders) {
  float v[6] = {1, 2, 3, 4, 5, 6};
  write_raw(2, "{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<f4\"}", v, sizeof v);
  Npy r;
  char err[512];
  cr_assert_eq(npy_read(path, &r, err, sizeof err), 0, "%s", err);
  cr_assert_eq(r.rank, 2);
  cr_assert_eq(r.shape[0], 2);
  cr_assert_eq(r.shape[1], 3);
  cr_assert_eq(memcmp(r.data, v, sizeof v), 0);
  npy_free(&r);
}

Test(npy, reads_rank_0_and_empty) {
  double x = 2.5;
  write_raw(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", &x, sizeof x);
  Npy r;
  char err[512];
  cr_assert_eq(npy_read(path, &r, err, sizeof err), 0, "%s", err);
  cr_assert_eq(r.rank, 0);
  cr_assert_eq(*(double *)r.data, 2.5);
  npy_free(&r);
  write_raw(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (0, 4), }", NULL, 0);
  cr_assert_eq(npy_read(path, &r, err, sizeof err), 0, "%s", err);
  cr_assert_eq(r.nbytes, 0);
  npy_free(&r);
}

Test(npy, fortran_order_is_an_error) {
  float v[4] = {0};
  write_raw(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", v, sizeof v);
  expect_error("fortran_order arrays are not supported");
}

Test(npy, truncated_data_is_an_error) {
  float v[5] = {0};
  write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
  expect_error("truncated data: the shape needs 24 bytes, the file has 20");
}

Test(npy, trailing_bytes_are_an_error) {
  float v[7] = {0};
  write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
  expect_error("bytes after the 24 bytes of data");
}

Test(npy, truncated_header_is_an_error) {
  FILE *f = fopen(path, "wb");
  fwrite("\x93NUMPY\x01\x00\x76\x00{'descr'", 1, 17, f);
  fclose(f);
  expect_error("truncated header");
}

Test(npy, bad_magic_is_an_error) {
  FILE *f = fopen(path, "wb");
  fputs("hello, not numpy at all", f);
  fclose(f);
  expect_error("not a .npy file");
}

Test(npy, bad_version_is_an_error) {
  write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  FILE *f = fopen(path, "r+b");
  fseek(f, 6, SEEK_SET);
  fputc(9, f);
  fclose(f);
  expect_error("unsupported .npy format version 9.0");
}

Test(npy, unsupported_dtypes_are_errors) {
  write_raw(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "abcdefgh", 8);
  expect_error("unsupported dtype '<c8'");
  write_raw(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  expect_error("big-endian dtype '>f4' is not supported");
}

Test(npy, rank_5_is_an_error) {
  write_raw(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1), }", "a", 1);
  expect_error("rank 5 is not supported");
}

Test(npy, corrupt_headers_are_errors) {
  write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", "", 0);
  expect_error("corrupt header: expected a non-negative integer dimension");
  write_raw(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", "", 0);
  expect_error("corrupt header: expected True or False");
  write_raw(1, "{'descr': '<f4', 'shape': (2,), }", "", 0);
  expect_error("header lacks 'fortran_order'");
  write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", "", 0);
  expect_error("the shape is too large");
  write_raw(1, "{'descr': '<f4', 'colour': 'red', 'fortran_order': False, 'shape': (2,), }", "", 0);
  expect_error("unexpected key 'colour'");
}

Test(npy, missing_file_is_an_error) {
  Npy r;
  char err[512];
  cr_assert_neq(npy_read("/nonexistent/x.npy", &r, err, sizeof err), 0);
  cr_assert(strstr(err, "/nonexistent/x.npy: No such file"), "%s", err);
}

Test(npy, write_checks_size_and_leaves_no_temp_file) {
  float v[2] = {0};
  Npy w = {.descr = "<f4", .rank = 1, .shape = {3}, .data = v, .nbytes = sizeof v};
  char err[512];
  cr_assert_neq(npy_write(path, &w, err, sizeof err), 0);
  cr_assert(strstr(err, "8 bytes of data do not match the shape (12 bytes)"), "%s", err);
  cr_assert_neq(access(path, F_OK), 0);
  char bad[160];
  snprintf(bad, sizeof bad, "%s/no/such/dir/a.npy", dir);
  w.shape[0] = 2;
  cr_assert_neq(npy_write(bad, &w, err, sizeof err), 0);
  cr_assert(strstr(err, "cannot create"), "%s", err);
}
