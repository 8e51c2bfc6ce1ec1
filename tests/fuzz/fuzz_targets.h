/* fuzz_targets.h: the target configs embedded in the translator, loaded once
 * by the translator's libFuzzer targets (fuzz_translate.c, fuzz_gen.c).
 * Include after t2c.h and configs.h. */
#ifndef FUZZ_TARGETS_H
#define FUZZ_TARGETS_H

#include <stdlib.h>
#include <string.h>

#define NTARGETS ((int)(sizeof embedded_configs / sizeof *embedded_configs))

/* Loads every embedded config into out[NTARGETS]; returns the index of
 * sm_90. Exits with status 2 (as libFuzzer's setup failing) on an error. */
static int fuzz_load_targets(TargetConfig *out, const char *who) {
  int sm90 = -1;
  for (int i = 0; i < NTARGETS; i++) {
    char err[512];
    if (!config_load_text(embedded_configs[i].name, embedded_configs[i].text, &out[i], err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", who, err);
      exit(2);
    }
    if (strcmp(embedded_configs[i].name, "sm_90") == 0) sm90 = i;
  }
  if (sm90 < 0) {
    fprintf(stderr, "%s: no sm_90 config is embedded\n", who);
    exit(2);
  }
  return sm90;
}

#endif /* FUZZ_TARGETS_H */
