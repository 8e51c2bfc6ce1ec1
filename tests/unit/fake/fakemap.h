/* tests/unit/fake/fakemap.h: what the fake driver's cuTensorMapEncodeTiled
 * (tests/unit/fake/libcuda.c) writes into the 128 bytes of a map, for
 * test_nvrtc.c to read back. */
#ifndef FAKEMAP_H
#define FAKEMAP_H

typedef struct FakeMap {
  unsigned magic; /* FAKEMAP_MAGIC */
  int dtype;
  unsigned rank;
  int interleave, swizzle, l2, oob;
  unsigned long long base;
  unsigned long long dims[4], strides[3];
  unsigned box[4], estr[4];
} FakeMap;
#define FAKEMAP_MAGIC 0x464d4150u /* "FMAP" */

#endif
