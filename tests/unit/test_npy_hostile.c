/* test_npy_hostile.c: the .npy reader (npy.c) against hostile input.
 *
 * Each test builds the bytes of one bad file in memory and checks that
 * npy_parse (and npy_read, for what only a file has) refuses it with the
 * specific one-line message; valid files of every kind still load with the
 * right values. `tile2cu run` (run_main) refuses an output tensor whose
 * byte size overflows instead of allocating it.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "t2c.h"
#include "unit_util.h"

typedef struct Bytes {
  unsigned char *p;
  size_t n;
} Bytes;

static void put(Bytes *b, const void *p, size_t n) {
  b->p = realloc(b->p, b->n + n + 1);
  cr_assert_not_null(b->p);
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

/* A file as NumPy writes it: magic, version major.0, the header length
 * (2 bytes for 1.x, else 4) of the header padded with spaces and a newline
 * to a multiple of 64, then data. */
static Bytes npy_bytes(int major, const char *header, const void *data, size_t n) {
  Bytes b = {0};
  size_t lenbytes = major == 1 ? 2 : 4, hl = strlen(header);
  size_t padded = (8 + lenbytes + hl + 1 + 63) / 64 * 64 - 8 - lenbytes;
  unsigned char pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0,
                           (unsigned char)(padded & 0xff), (unsigned char)(padded >> 8), 0, 0};
  put(&b, pre, 8 + lenbytes);
  put(&b, header, hl);
  for (size_t i = hl; i + 1 < padded; i++) put(&b, " ", 1);
  put(&b, "\n", 1);
  if (n) put(&b, data, n);
  return b;
}

/* Parsing b must fail with a message that names the file, contains want,
 * and is one line; nothing is left allocated. */
static void refuse(Bytes b, const char *want) {
  Npy r;
  char err[512];
  cr_assert_neq(npy_parse(b.p, b.n, "x.npy", &r, err, sizeof err), 0, "accepted; expected \"%s\"", want);
  cr_assert_eq(strncmp(err, "x.npy: ", 7), 0, "message lacks the name: %s", err);
  cr_assert(strstr(err, want), "message lacks \"%s\": %s", want, err);
  cr_assert_null(strchr(err, '\n'), "message is more than one line: %s", err);
  cr_assert_null(r.data);
  cr_assert_eq(r.nbytes, 0);
  free(b.p);
}

static void refuse_header(const char *header, size_t data_bytes, const char *want) {
  unsigned char *zeros = calloc(1, data_bytes + 1);
  refuse(npy_bytes(1, header, zeros, data_bytes), want);
  free(zeros);
}

/* ---------------------------------------------------------------- preamble */

Test(npy_hostile, bad_magic) {
  Bytes b = npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  b.p[1] = 'n';
  refuse(b, "not a .npy file (bad magic)");
}

Test(npy_hostile, empty_and_short_files) {
  refuse((Bytes){calloc(1, 1), 0}, "not a .npy file (bad magic)");
  Bytes b = {0};
  put(&b, "\x93NUMPY\x01\x00\x10", 9); /* one of the two length bytes */
  refuse(b, "truncated header: the file ends in the preamble");
}

Test(npy_hostile, unknown_major_version) {
  Bytes b = npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  b.p[6] = 4;
  refuse(b, "unsupported .npy format version 4.0");
  b = npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  b.p[6] = 0;
  refuse(b, "unsupported .npy format version 0.0");
}

Test(npy_hostile, unknown_minor_version) {
  Bytes b = npy_bytes(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  b.p[7] = 1;
  refuse(b, "unsupported .npy format version 2.1");
}

Test(npy_hostile, header_length_past_the_end) {
  Bytes b = npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  size_t after_len = b.n - 10; /* bytes that follow the 2-byte length */
  b.p[8] = 0xff;
  b.p[9] = 0x7f; /* 32767 */
  char want[128];
  snprintf(want, sizeof want, "truncated header: 32767 bytes long, but the file ends %zu bytes into it", after_len);
  refuse(b, want);
}

Test(npy_hostile, header_length_over_the_limit) {
  Bytes b = npy_bytes(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  memcpy(b.p + 8, "\xff\xff\xff\xff", 4);
  refuse(b, "corrupt header: its length 4294967295 is over the limit");
}

/* ---------------------------------------------------------------- header syntax */

Test(npy_hostile, header_not_a_dict) {
  refuse_header("['descr', '<f4']", 0, "expected '{' (the header is not a dict) at offset 0");
}

Test(npy_hostile, missing_descr) {
  refuse_header("{'fortran_order': False, 'shape': (1,), }", 4, "header lacks 'descr'");
}

Test(npy_hostile, missing_shape) {
  refuse_header("{'descr': '<f4', 'fortran_order': False}", 4, "header lacks 'shape'");
}

Test(npy_hostile, duplicate_key) {
  refuse_header("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 4,
                "corrupt header: duplicate key 'descr'");
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2,)}", 4,
                "corrupt header: duplicate key 'shape'");
}

Test(npy_hostile, unknown_key) {
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4, "unexpected key 'x'");
}

Test(npy_hostile, garbage_values) {
  refuse_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", 4, "expected True or False");
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': 7, }", 4, "expected '(' to open the shape");
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1; 2), }", 4, "expected ',' or ')' in the shape");
  refuse_header("{'descr': 4, 'fortran_order': False, 'shape': (1,), }", 4, "expected a quoted string");
}

Test(npy_hostile, unterminated_string) {
  refuse_header("{'descr: '<f4', 'fortran_order': False, 'shape': (1,), }", 4, "expected ':' at offset 10");
  refuse_header("{'descr", 0, "expected a closing quote");
  refuse_header("{'descr': \"<f4", 0, "expected a closing quote");
}

Test(npy_hostile, line_break_in_a_string) {
  /* the key would otherwise reach the message and break it in two */
  refuse_header("{'descr': '<f4', 'fortran_\norder': False, 'shape': (1,), }", 4,
                "expected a closing quote before the end of the line at offset 18");
}

Test(npy_hostile, unterminated_dict) {
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", 4, "expected ',' or '}'");
}

Test(npy_hostile, text_after_the_dict) {
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", 4,
                "expected nothing after the closing '}'");
}

Test(npy_hostile, overlong_string) {
  char h[256];
  snprintf(h, sizeof h, "{'%0*d': 1}", 40, 0);
  refuse_header(h, 0, "expected a string of at most 31 characters");
}

Test(npy_hostile, non_ascii_byte) {
  refuse_header("{'descr': '<f4\xc3\xa9', 'fortran_order': False, 'shape': (1,), }", 4,
                "corrupt header: byte 0xc3 at offset 14 is not printable ASCII");
}

Test(npy_hostile, control_byte) {
  Bytes b = npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  b.p[10 + 5] = 0; /* inside 'descr' */
  refuse(b, "corrupt header: byte 0x00 at offset 5 is not printable ASCII");
}

Test(npy_hostile, syntax_message_is_one_line) {
  /* the padding and newline of the header must not reach the message */
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ] }", 4,
                "\"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ] }\"");
}

/* ---------------------------------------------------------------- shapes */

Test(npy_hostile, element_count_overflows) {
  /* 2^62 * 4 elements overflow 64 bits */
  refuse_header("{'descr': '|u1', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 0,
                "corrupt header: the shape is too large");
}

Test(npy_hostile, byte_size_overflows) {
  /* 2^61 elements fit, 2^61 * 8 bytes do not */
  refuse_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", 0,
                "corrupt header: the shape is too large");
}

Test(npy_hostile, byte_size_past_int64) {
  /* 2^62 * 2 bytes = 2^63: fits in 64 unsigned bits, not in an int64 */
  refuse_header("{'descr': '<f2', 'fortran_order': False, 'shape': (4611686018427387904,), }", 0,
                "corrupt header: the shape is too large");
}

Test(npy_hostile, overflow_beside_a_zero_dimension) {
  /* no data, but the element count of the other dimensions still overflows */
  refuse_header("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296), }", 0,
                "corrupt header: the shape is too large");
}

Test(npy_hostile, dimension_past_63_bits) {
  refuse_header("{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0,
                "expected a dimension that fits in 63 bits");
}

Test(npy_hostile, huge_shape_is_not_allocated) {
  /* 2^40 bytes fit every integer type; the 0-byte file must be refused
   * before any allocation is tried (it would say "out of memory") */
  refuse_header("{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776,), }", 0,
                "truncated data: the shape needs 1099511627776 bytes, the file has 0");
}

Test(npy_hostile, negative_dimension) {
  refuse_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 0,
                "corrupt header: negative dimension in the shape");
}

Test(npy_hostile, too_many_dimensions) {
  refuse_header("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1), }", 1,
                "rank 5 is not supported (at most 4)");
  char h[1024] = "{'descr': '|u1', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 200; i++) strcat(h, "1, ");
  strcat(h, "), }");
  refuse_header(h, 1, "rank 200 is not supported (at most 4)");
}

Test(npy_hostile, data_too_short) {
  float v[5] = {0};
  refuse(npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v),
         "truncated data: the shape needs 24 bytes, the file has 20");
}

Test(npy_hostile, data_too_long) {
  float v[7] = {0};
  refuse(npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v),
         "corrupt: 4 bytes after the 24 bytes of data the shape describes");
}

/* ---------------------------------------------------------------- layouts and dtypes */

Test(npy_hostile, fortran_order_refused) {
  float v[6] = {0};
  refuse(npy_bytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", v, sizeof v),
         "fortran_order arrays are not supported");
}

Test(npy_hostile, fortran_order_rank_1_is_c_order) {
  int32_t v[3] = {7, -8, 9};
  Bytes b = npy_bytes(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (3,), }", v, sizeof v);
  Npy r;
  char err[512];
  cr_assert_eq(npy_parse(b.p, b.n, "x.npy", &r, err, sizeof err), 0, "%s", err);
  cr_assert_eq(r.rank, 1);
  cr_assert_eq(r.shape[0], 3);
  cr_assert_eq(memcmp(r.data, v, sizeof v), 0);
  npy_free(&r);
  free(b.p);
}

Test(npy_hostile, complex_dtype) {
  refuse_header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 8, "unsupported dtype '<c8'");
}

Test(npy_hostile, object_dtype) {
  refuse_header("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 8, "unsupported dtype '|O'");
}

Test(npy_hostile, big_endian_dtype) {
  refuse_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 4,
                "big-endian dtype '>f4' is not supported (use '<f4')");
}

Test(npy_hostile, unicode_dtype) {
  refuse_header("{'descr': '<U10', 'fortran_order': False, 'shape': (1,), }", 40, "unsupported dtype '<U10'");
}

Test(npy_hostile, structured_dtype) {
  refuse_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4,
                "structured arrays (a list of fields) are not supported");
}

/* ---------------------------------------------------------------- valid files */

Test(npy_hostile, versions_2_and_3_load) {
  for (int major = 2; major <= 3; major++) {
    double v[4] = {1.5, -2.25, 1e300, 0};
    Bytes b = npy_bytes(major, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (2, 2)}", v, sizeof v);
    Npy r;
    char err[512];
    cr_assert_eq(npy_parse(b.p, b.n, "x.npy", &r, err, sizeof err), 0, "%d.0: %s", major, err);
    cr_assert_str_eq(r.descr, "<f8");
    cr_assert_eq(r.rank, 2);
    cr_assert_eq(r.shape[0], 2);
    cr_assert_eq(r.shape[1], 2);
    cr_assert_eq(r.nbytes, sizeof v);
    cr_assert_eq(memcmp(r.data, v, sizeof v), 0);
    npy_free(&r);
    free(b.p);
  }
}

Test(npy_hostile, every_dtype_loads_its_values) {
  static const struct {
    const char *descr;
    size_t size;
  } t[] = {{"<f4", 4}, {"<f2", 2}, {"<f8", 8}, {"<i4", 4}, {"<i8", 8}, {"<u2", 2}, {"<u4", 4},
           {"|u1", 1}, {"|i1", 1}, {"|b1", 1}};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    unsigned char data[3 * 2 * 8];
    size_t nb = 3 * 2 * t[i].size;
    for (size_t k = 0; k < nb; k++) data[k] = (unsigned char)(k * 29 + i + 1);
    char h[128];
    snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (3, 2L), }", t[i].descr);
    Bytes b = npy_bytes(1, h, data, nb);
    Npy r;
    char err[512];
    cr_assert_eq(npy_parse(b.p, b.n, "x.npy", &r, err, sizeof err), 0, "%s: %s", t[i].descr, err);
    cr_assert_str_eq(r.descr, t[i].descr);
    cr_assert_eq(npy_nelems(&r), 6);
    cr_assert_eq(r.nbytes, nb);
    cr_assert_eq(memcmp(r.data, data, nb), 0, "%s: the values differ", t[i].descr);
    npy_free(&r);
    free(b.p);
  }
}

Test(npy_hostile, zero_sized_and_rank_0_load) {
  Npy r;
  char err[512];
  Bytes b = npy_bytes(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (5, 0, 3), }", NULL, 0);
  cr_assert_eq(npy_parse(b.p, b.n, "x.npy", &r, err, sizeof err), 0, "%s", err);
  cr_assert_eq(npy_nelems(&r), 0);
  cr_assert_eq(r.nbytes, 0);
  npy_free(&r);
  free(b.p);
  int64_t x = -123456789012345;
  b = npy_bytes(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", &x, sizeof x);
  cr_assert_eq(npy_parse(b.p, b.n, "x.npy", &r, err, sizeof err), 0, "%s", err);
  cr_assert_eq(r.rank, 0);
  cr_assert_eq(*(int64_t *)r.data, x);
  npy_free(&r);
  free(b.p);
}

/* ---------------------------------------------------------------- through a file */

static char dir[64], path[128];

static void mkdir_tmp(void) {
  snprintf(dir, sizeof dir, "/tmp/test_npy_hostile_XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/a.npy", dir);
}

static void rm_tmp(void) {
  unlink(path);
  rmdir(dir);
}

Test(npy_hostile, read_checks_the_header_length_against_the_file, .init = mkdir_tmp, .fini = rm_tmp) {
  Bytes b = npy_bytes(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd", 4);
  memcpy(b.p + 8, "\x00\x00\x01\x00", 4); /* 65536 */
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(b.p, 1, b.n, f), b.n);
  fclose(f);
  Npy r;
  char err[512], want[256];
  snprintf(want, sizeof want, "%s: truncated header: 65536 bytes long, but the file ends %zu bytes into it", path,
           b.n - 12);
  cr_assert_neq(npy_read(path, &r, err, sizeof err), 0);
  cr_assert_str_eq(err, want);
  cr_assert_null(r.data);
  free(b.p);
}

Test(npy_hostile, read_refuses_a_directory, .init = mkdir_tmp, .fini = rm_tmp) {
  cr_assert_eq(mkdir(path, 0700), 0);
  Npy r;
  char err[512], want[160];
  snprintf(want, sizeof want, "%s: not a regular file", path);
  cr_assert_neq(npy_read(path, &r, err, sizeof err), 0);
  rmdir(path);
  cr_assert_str_eq(err, want);
}

Test(npy_hostile, read_and_parse_agree, .init = mkdir_tmp, .fini = rm_tmp) {
  uint16_t v[2][3] = {{1, 2, 3}, {65535, 0, 40000}};
  Bytes b = npy_bytes(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(b.p, 1, b.n, f), b.n);
  fclose(f);
  Npy r, m;
  char err[512];
  cr_assert_eq(npy_read(path, &r, err, sizeof err), 0, "%s", err);
  cr_assert_eq(npy_parse(b.p, b.n, path, &m, err, sizeof err), 0, "%s", err);
  cr_assert_eq(r.nbytes, sizeof v);
  cr_assert_eq(m.nbytes, sizeof v);
  cr_assert_eq(memcmp(r.data, v, sizeof v), 0);
  cr_assert_eq(memcmp(m.data, v, sizeof v), 0);
  npy_free(&r);
  npy_free(&m);
  free(b.p);
}

/* ---------------------------------------------------------------- tile2cu run */

Test(npy_hostile, run_refuses_an_output_too_large_to_allocate, .init = mkdir_tmp, .fini = rm_tmp) {
  char tl[128], out[160], bind[200], msg[1024];
  snprintf(tl, sizeof tl, "%s/big.tl", dir);
  FILE *f = fopen(tl, "w");
  cr_assert_not_null(f);
  fputs("@launch(32)\nkernel fill(O: tensor<f32>[M, N, P, Q]) {\n  O[0, 0, 0, 0] = 1.0\n}\n", f);
  fclose(f);
  snprintf(bind, sizeof bind, "O=%s", path);
  char cwd[1024], configs[1100];
  cr_assert_not_null(getcwd(cwd, sizeof cwd));
  snprintf(configs, sizeof configs, "%s/configs", cwd);
  cr_assert_eq(access("configs/sm_90.yaml", R_OK), 0, "run from the repository root");
  setenv("TILE2CU_CONFIG_DIR", configs, 1);
  /* each size fits an int; 4 bytes * (2^31 - 1)^4 overflows 64 bits */
  char *argv[] = {"run", tl, "--kernel", "fill", "--backend", "sim", bind, "M=2147483647", "N=2147483647",
                  "P=2147483647", "Q=2147483647", NULL};
  int st = unit_run_main(11, argv, msg, sizeof msg);
  unlink(tl);
  cr_assert_eq(st, 2, "exit status %d: %s", st, msg);
  cr_assert(strstr(msg, "tile2cu run: tensor O: its shape is too large to allocate"), "stderr: %s", msg);
  snprintf(out, sizeof out, "%s", path);
  cr_assert_neq(access(out, F_OK), 0, "an output file was written");
}
