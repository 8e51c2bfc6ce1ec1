/* run.c: tile2cu run (the CPU backend driver). */
#include "tile2cu.h"

int run_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "tile2cu run: not available in this build\n");
  return 2;
}
