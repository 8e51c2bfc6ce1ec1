// main.cu: launches the squares kernel of ../squares.tl through the host
// launcher tile2cu generates (tile2cu_launch_squares(), declared in squares.h)
// and checks the result against the CPU. With no CUDA device it says so and
// exits 0.
#include <cmath>
#include <cstdio>
#include <vector>

#include "squares.h"

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t err_ = (x);                                                   \
    if (err_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(err_));         \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("squares_host: no CUDA device is present; nothing to run\n");
    return 0;
  }
  const int K = 200;  // not a multiple of the 64-wide tile: the last one is partial
  std::vector<float> x(16 * K), o(16 * 64), s(16);
  for (int i = 0; i < 16 * K; i++) x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
  float *dx, *dout, *ds;
  CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&dout, o.size() * sizeof(float)));
  CHECK(cudaMalloc(&ds, s.size() * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  // The launcher checks K (and every @assume) and picks the grid and block size.
  CHECK(tile2cu_launch_squares(dx, dout, ds, K, 0));
  CHECK(cudaMemcpy(o.data(), dout, o.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.data(), ds, s.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int r = 0; r < 16; r++) {
    double row = 0;
    for (int c = 0; c < 64; c++) {
      double acc = 0;
      for (int k = c; k < K; k += 64) acc += (double)x[r * K + k] * x[r * K + k];
      worst = std::fmax(worst, std::fabs(acc - o[r * 64 + c]) / (1 + std::fabs(acc)));
      row += acc;
    }
    worst = std::fmax(worst, std::fabs(row - s[r]) / (1 + std::fabs(row)));
  }
  // K = 0 is rejected by the launcher before anything is launched.
  bool rejected = tile2cu_launch_squares(dx, dout, ds, 0, 0) == cudaErrorInvalidValue;
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(ds));
  bool ok = worst < 1e-5 && rejected;
  std::printf("squares_host: worst relative error %.3g, K = 0 %s: %s\n", worst,
              rejected ? "rejected" : "NOT rejected", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
