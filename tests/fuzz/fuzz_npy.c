/* fuzz_npy.c: libFuzzer target for the .npy reader (translator/npy.c).
 *
 * The input bytes are a whole .npy file, given to npy_parse. Invariants,
 * each an abort():
 *
 *   - a refusal has a one-line message that starts with the file's name,
 *     and leaves no data behind;
 *   - an accepted file has a supported dtype, rank 0 to NPY_MAX_RANK,
 *     non-negative dimensions, element count * element size == nbytes
 *     (computed here with overflow checks), and its data is exactly the
 *     last nbytes bytes of the input.
 *
 * Crashes, leaks and undefined behaviour are caught by libFuzzer and the
 * sanitizers it is built with:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Itranslator \
 *     tests/fuzz/fuzz_npy.c translator/npy.c -o build/fuzz_npy
 *   build/fuzz_npy -max_total_time=60 tests/fuzz/corpus/npy
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static void fail(const char *what) {
  fprintf(stderr, "fuzz_npy: invariant broken: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
  Npy r;
  char err[512];
  memset(&r, 0xa5, sizeof r);
  if (npy_parse(d, n, "in.npy", &r, err, sizeof err)) {
    if (strncmp(err, "in.npy: ", 8) != 0 || !err[8]) fail("a refusal without a message naming the file");
    if (strchr(err, '\n')) fail("a message of more than one line");
    if (r.data || r.nbytes) fail("a refusal left data");
    return 0;
  }
  int eb = npy_elem_bytes(r.descr);
  if (eb <= 0) fail("an unsupported dtype was accepted");
  if (r.rank < 0 || r.rank > NPY_MAX_RANK) fail("a rank out of range was accepted");
  unsigned long long count = 1, bytes;
  for (int i = 0; i < r.rank; i++) {
    if (r.shape[i] < 0) fail("a negative dimension was accepted");
    if (__builtin_mul_overflow(count, (unsigned long long)r.shape[i], &count)) fail("the element count overflows");
  }
  if (__builtin_mul_overflow(count, (unsigned long long)eb, &bytes)) fail("the byte size overflows");
  if ((unsigned long long)npy_nelems(&r) != count) fail("npy_nelems disagrees with the shape");
  if (bytes != r.nbytes) fail("element count * element size != nbytes");
  if (r.nbytes > n) fail("more data than input");
  if (!r.data) fail("no data buffer");
  if (r.nbytes && memcmp(r.data, d + n - r.nbytes, r.nbytes) != 0) fail("the data is not the end of the file");
  npy_free(&r);
  return 0;
}
