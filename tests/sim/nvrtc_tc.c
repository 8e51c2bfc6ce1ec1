/* nvrtc_tc.c: compiles tests/sim/tc_nvcc.cu with NVRTC (as libtile2cu
 * does: -arch=compute_XX -std=c++17 --include-path=CUDA/include), for each
 * architecture on the command line, and checks the PTX for the tensor-core
 * and cp.async instructions (unless the architecture is below 80). An
 * architecture with a suffix (90a) compiles tests/sim/hopper_nvcc.cu instead,
 * checks its PTX for wgmma, TMA, mbarrier and stmatrix, and compiles it to a
 * cubin with -arch=sm_90a as well (what libtile2cu does for --target sm_90a).
 * Usage: nvrtc_tc ROOT CUDA_INCLUDE SM... */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  s[n] = 0;
  fclose(f);
  return s;
}

/* Compiles src with opts; on success returns the program (destroy it), else
 * prints the log and returns NULL. */
static nvrtcProgram compile(const char *src, const char *name, const char *const *opts, int n) {
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src, name, 0, NULL, NULL);
  nvrtcResult r = nvrtcCompileProgram(p, n, opts);
  if (r == NVRTC_SUCCESS) return p;
  size_t len;
  nvrtcGetProgramLogSize(p, &len);
  char *log = malloc(len + 1);
  nvrtcGetProgramLog(p, log);
  fprintf(stderr, "FAIL nvrtc %s %s: %s\n%s\n", name, opts[0], nvrtcGetErrorString(r), log);
  free(log);
  nvrtcDestroyProgram(&p);
  return NULL;
}

/* hopper_nvcc.cu for compute_XXa (PTX) and sm_XXa (cubin): the number of failures. */
static int hopper(const char *src, int sm, const char *rtinc, const char *cudainc) {
  static const char *const want[] = {"wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
                                     "wgmma.wait_group.sync.aligned", "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
                                     "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "mbarrier.try_wait.parity.shared::cta.b64",
                                     "mbarrier.arrive.expect_tx.shared::cta.b64", "fence.proxy.async.shared::cta",
                                     "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
                                     "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
                                     "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"};
  char arch[64], sarch[64];
  int bad = 0;
  snprintf(arch, sizeof arch, "-arch=compute_%da", sm);
  snprintf(sarch, sizeof sarch, "-arch=sm_%da", sm);
  const char *opts[] = {arch, "-std=c++17", rtinc, cudainc};
  nvrtcProgram p = compile(src, "hopper_nvcc.cu", opts, 4);
  if (!p) return 1;
  size_t n;
  nvrtcGetPTXSize(p, &n);
  char *ptx = malloc(n + 1);
  nvrtcGetPTX(p, ptx);
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    if (!strstr(ptx, want[k])) fprintf(stderr, "FAIL nvrtc compute_%da: PTX lacks %s\n", sm, want[k]), bad++;
  free(ptx);
  nvrtcDestroyProgram(&p);
  opts[0] = sarch;
  if (!(p = compile(src, "hopper_nvcc.cu", opts, 4))) return bad + 1;
  nvrtcGetCUBINSize(p, &n);
  if (n == 0) fprintf(stderr, "FAIL nvrtc sm_%da: no cubin\n", sm), bad++;
  nvrtcDestroyProgram(&p);
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 4) return fprintf(stderr, "usage: %s ROOT CUDA_INCLUDE SM...\n", argv[0]), 2;
  char path[4096], hpath[4096], rtinc[4200], cudainc[4200];
  snprintf(path, sizeof path, "%s/tests/sim/tc_nvcc.cu", argv[1]);
  snprintf(hpath, sizeof hpath, "%s/tests/sim/hopper_nvcc.cu", argv[1]);
  snprintf(rtinc, sizeof rtinc, "--include-path=%s/rt", argv[1]);
  snprintf(cudainc, sizeof cudainc, "--include-path=%s", argv[2]);
  char *tc_src = slurp(path), *hopper_src = slurp(hpath);
  if (!tc_src || !hopper_src) return fprintf(stderr, "cannot read %s or %s\n", path, hpath), 1;
  int bad = 0;
  for (int i = 3; i < argc; i++) {
    int sm = atoi(argv[i]);
    if (argv[i][strlen(argv[i]) - 1] == 'a') {
      bad += hopper(hopper_src, sm, rtinc, cudainc);
      continue;
    }
    const char *src = tc_src;
    char arch[64];
    snprintf(arch, sizeof arch, "-arch=compute_%d", sm);
    const char *opts[] = {arch, "-std=c++17", rtinc, cudainc};
    nvrtcProgram p;
    nvrtcCreateProgram(&p, src, "tc_nvcc.cu", 0, NULL, NULL);
    nvrtcResult r = nvrtcCompileProgram(p, 4, opts);
    if (r != NVRTC_SUCCESS) {
      size_t n;
      nvrtcGetProgramLogSize(p, &n);
      char *log = malloc(n + 1);
      nvrtcGetProgramLog(p, log);
      fprintf(stderr, "FAIL nvrtc compute_%d: %s\n%s\n", sm, nvrtcGetErrorString(r), log);
      free(log);
      bad++;
    } else if (sm >= 80) {
      size_t n;
      nvrtcGetPTXSize(p, &n);
      char *ptx = malloc(n + 1);
      nvrtcGetPTX(p, ptx);
      static const char *const want[] = {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                         "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                                         "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                                         "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
                                         "cp.async.cg.shared.global", "cp.async.ca.shared.global",
                                         "cp.async.commit_group", "cp.async.wait_group 1"};
      for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        if (!strstr(ptx, want[k])) fprintf(stderr, "FAIL nvrtc compute_%d: PTX lacks %s\n", sm, want[k]), bad++;
      free(ptx);
    }
    nvrtcDestroyProgram(&p);
  }
  printf("nvrtc: %d architectures, %d failed\n", argc - 3, bad);
  return bad != 0;
}
