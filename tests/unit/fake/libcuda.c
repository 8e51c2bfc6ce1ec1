/* tests/unit/fake/libcuda.c: a stand-in for the CUDA driver (libcuda.so.1),
 * for testing what libtile2cu hands the driver without a GPU.
 *
 * libtile2cu opens it through TILE2CU_LIBCUDA. It reports one device of
 * compute capability 9.0; allocations are fake addresses (never touched); a
 * launch records its grid and copies the parameters the test asked for
 * (fake_cuda_expect); cuTensorMapEncodeTiled writes its arguments into the
 * map (FakeMap), so a test can read back what the map was made from. The
 * test reaches the recording functions by dlopen of the same file.
 */
#include <stdint.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#include "fakemap.h"

enum { MAX_PARAMS = 32 };
static int nexpect;
static size_t sizes[MAX_PARAMS];
static unsigned char params[MAX_PARAMS][128];
static unsigned grid[3], block[3], smem;
static int launches, encodes;
static unsigned long long next_alloc = 0x7f0000000000ull;

void fake_cuda_expect(int n, const size_t *s) {
  nexpect = n < MAX_PARAMS ? n : MAX_PARAMS;
  for (int i = 0; i < nexpect; i++) sizes[i] = s[i] <= 128 ? s[i] : 128;
  launches = encodes = 0;
}
const void *fake_cuda_param(int i) { return i >= 0 && i < nexpect ? params[i] : NULL; }
int fake_cuda_launches(void) { return launches; }
int fake_cuda_encodes(void) { return encodes; }
const unsigned *fake_cuda_grid(void) { return grid; }

CUresult cuInit(unsigned f) { (void)f; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int i) { *d = i; return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
  (void)d;
  *v = attr == 75 ? 9 : attr == 76 ? 0 : 1; /* compute capability 9.0 */
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = (void *)0x1; return 0; }
CUresult cuCtxSetCurrent(void *c) { (void)c; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuModuleLoadData(void **m, const void *image) { (void)image; *m = (void *)0x2; return 0; }
CUresult cuModuleUnload(void *m) { (void)m; return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { (void)m; (void)name; *f = (void *)0x3; return 0; }
CUresult cuFuncSetAttribute(void *f, int a, int v) { (void)f; (void)a; (void)v; return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sm, void *stream, void **kp, void **extra) {
  (void)f; (void)stream; (void)extra;
  grid[0] = gx, grid[1] = gy, grid[2] = gz, block[0] = bx, block[1] = by, block[2] = bz, smem = sm;
  for (int i = 0; i < nexpect; i++) memcpy(params[i], kp[i], sizes[i]);
  launches++;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  *p = next_alloc;
  next_alloc += (n + 255) / 256 * 256;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) { (void)p; return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { (void)d; (void)s; (void)n; return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { (void)s; memset(d, 0, n); return 0; }
CUresult cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fake driver error"; return 0; }
CUresult cuEventCreate(void **e, unsigned f) { (void)f; *e = (void *)0x4; return 0; }
CUresult cuEventRecord(void *e, void *s) { (void)e; (void)s; return 0; }
CUresult cuEventSynchronize(void *e) { (void)e; return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 1.0f; return 0; }
CUresult cuEventDestroy_v2(void *e) { (void)e; return 0; }
CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *base, const unsigned long long *dims,
                                const unsigned long long *strides, const unsigned *box, const unsigned *estr,
                                int interleave, int swizzle, int l2, int oob) {
  FakeMap m = {FAKEMAP_MAGIC, dtype, rank, interleave, swizzle, l2, oob, (unsigned long long)(uintptr_t)base, {0}, {0}, {0}, {0}};
  for (unsigned d = 0; d < rank && d < 4; d++) {
    m.dims[d] = dims[d];
    m.box[d] = box[d];
    m.estr[d] = estr[d];
    if (d) m.strides[d - 1] = strides[d - 1];
  }
  memset(map, 0, 128);
  memcpy(map, &m, sizeof m);
  encodes++;
  return 0;
}
