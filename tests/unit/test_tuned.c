/* test_tuned.c: tuning files (translator/tuned.c) as tile2cu tune writes them
 * and tile2cu --tuned reads them: an entry written is read back, one of the
 * same key is replaced, one of another size class is added, entries of the
 * source's other versions and other targets are not used. (The timing that
 * chooses what tune writes needs a GPU and is not tested here.) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t2c.h"

static char path[64];

static void tmpfile_init(void) {
  snprintf(path, sizeof path, "/tmp/t2c-tuned-XXXXXX");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  unlink(path); /* tuned_record creates it */
}

static void tmpfile_fini(void) { unlink(path); }

TestSuite(tuned, .init = tmpfile_init, .fini = tmpfile_fini);

static const char *src = "const BM = 1\n";

Test(tuned, size_class_rounds_up_and_sorts) {
  char c[128];
  tuned_size_class("N=100 M=4096 K=1 eps=0.5", c, sizeof c);
  cr_assert_str_eq(c, "K=1 M=4096 N=128 eps=0.5");
}

Test(tuned, record_read_replace_add) {
  char d[256], err[512];
  cr_assert_eq(tuned_defines(path, src, "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 2); /* no file */
  cr_assert_eq(tuned_record(path, "a.tl", src, "sm_90", "k", "M=4000", "BM=64", 10.0, "BM=32", 12.0), 0);
  cr_assert_eq(tuned_defines(path, src, "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BM=64");
  cr_assert_eq(tuned_defines(path, src, "sm_80", NULL, NULL, d, sizeof d, err, sizeof err), 1);
  cr_assert_eq(tuned_defines(path, "const BM = 2\n", "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 1);
  /* the same class (M=4000 and M=3000 both round to 4096): replaced */
  cr_assert_eq(tuned_record(path, "a.tl", src, "sm_90", "k", "M=3000", "BM=128", 9.0, "BM=32", 12.0), 0);
  cr_assert_eq(tuned_defines(path, src, "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BM=128");
  /* another class: added; then the classes must be told apart */
  cr_assert_eq(tuned_record(path, "a.tl", src, "sm_90", "k", "M=100", "BM=16", 1.0, "BM=32", 2.0), 0);
  cr_assert_eq(tuned_defines(path, src, "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 2);
  cr_assert(strstr(err, "'M=4096', 'M=128'"), "%s", err);
  cr_assert_eq(tuned_defines(path, src, "sm_90", NULL, "M=70", d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BM=16");
  cr_assert_eq(tuned_defines(path, src, "sm_90", NULL, "M=4096", d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BM=128");
  /* a path with a quote survives the YAML round trip */
  cr_assert_eq(tuned_record(path, "we\"ird\\.tl", src, "sm_80", "k", "M=1", "BM=2", 1.0, "BM=2", 1.0), 0);
  cr_assert_eq(tuned_defines(path, src, "sm_80", NULL, NULL, d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BM=2");
}

/* Entries for two kernels of one source (tune --kernel a, then --kernel b): they apply
 * together when their constants agree; when they differ the constants, which are the
 * file's, cannot follow both: an error naming the kernels, and --tuned-kernel picks one
 * (--tuned-sizes did not help: "pick one with --tuned-sizes" of one class) */
Test(tuned, entries_of_two_kernels) {
  char d[256], err[1024];
  const char *two = "const BN = 128\nkernel a() {}\nkernel b() {}\n";
  cr_assert_eq(tuned_record(path, "k.tl", two, "sm_90", "a", "N=1000", "BN=64", 1.0, "BN=128", 2.0), 0);
  cr_assert_eq(tuned_record(path, "k.tl", two, "sm_90", "b", "N=1000", "BN=64", 1.0, "BN=128", 2.0), 0);
  cr_assert_eq(tuned_defines(path, two, "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BN=64");
  cr_assert_eq(tuned_record(path, "k.tl", two, "sm_90", "b", "N=1000", "BN=256", 1.0, "BN=128", 2.0), 0);
  cr_assert_eq(tuned_defines(path, two, "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 2);
  cr_assert(strstr(err, "has entries of different constants for this source on sm_90 (kernels 'a', 'b'): the constants "
                        "apply to every kernel of the file: pick one with --tuned-kernel"), "%s", err);
  cr_assert_eq(tuned_defines(path, two, "sm_90", NULL, "N=1000", d, sizeof d, err, sizeof err), 2);
  cr_assert(strstr(err, "pick one with --tuned-kernel"), "%s", err);
  cr_assert_eq(tuned_defines(path, two, "sm_90", "a", NULL, d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BN=64");
  cr_assert_eq(tuned_defines(path, two, "sm_90", "b", "N=1000", d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BN=256");
  /* a kernel without entries: a note naming those with some */
  cr_assert_eq(tuned_defines(path, two, "sm_90", "c", NULL, d, sizeof d, err, sizeof err), 1);
  cr_assert(strstr(err, "for kernel 'c'; it has entries for kernels 'a', 'b'"), "%s", err);
  /* kernel a in a second class with other constants: both kinds of choice are named */
  cr_assert_eq(tuned_record(path, "k.tl", two, "sm_90", "a", "N=100", "BN=32", 1.0, "BN=128", 2.0), 0);
  cr_assert_eq(tuned_defines(path, two, "sm_90", NULL, NULL, d, sizeof d, err, sizeof err), 2);
  cr_assert(strstr(err, "(kernels 'a', 'b'; size classes 'N=1024', 'N=128')"), "%s", err);
  cr_assert(strstr(err, "pick one with --tuned-kernel and --tuned-sizes"), "%s", err);
  cr_assert_eq(tuned_defines(path, two, "sm_90", "a", NULL, d, sizeof d, err, sizeof err), 2);
  cr_assert(strstr(err, "(size classes 'N=1024', 'N=128'): pick one with --tuned-sizes"), "%s", err);
  cr_assert_eq(tuned_defines(path, two, "sm_90", "a", "N=100", d, sizeof d, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(d, "BN=32");
}
