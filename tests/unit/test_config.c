/* test_config.c: target configs (config.c).
 *
 * The shipped configs under configs/ must load with the documented numbers;
 * every kind of bad config must fail with a "FILE:LINE: message" that names
 * the key; config_find must honour TILE2CU_CONFIG_DIR and reject bad target
 * names. Tests run from the repository root. Bad configs are written to
 * mkstemp files under /tmp. Criterion runs each test in its own process, so
 * setenv() in one test does not leak into another.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t2c.h"

/* A valid config; line numbers matter to the error tests below. */
static const char *const good_lines[] = {
  "name: sm_90",                     /* 1 */
  "sm: 90",                          /* 2 */
  "lanes: 32",                       /* 3 */
  "max_threads_per_block: 1024",     /* 4 */
  "registers_per_sm: 65536",         /* 5 */
  "max_registers_per_thread: 255",   /* 6 */
  "shared_memory_per_sm: 233472",    /* 7 */
  "shared_memory_per_block: 232448", /* 8 */
  "shared_memory_static: 49152",     /* 9 */
  "max_blocks_per_sm: 32",           /* 10 */
  "max_warps_per_sm: 64",            /* 11 */
  "features:",                       /* 12 */
  "  cp_async: true",                /* 13 */
  "  wgmma: true",                   /* 14 */
  "  tma: true",                     /* 15 */
  "  mma_shapes: [m16n8k16, m16n8k8]", /* 16 */
};
#define N_GOOD ((int)(sizeof good_lines / sizeof good_lines[0]))

static char tmp_path[64];

static void write_temp(const char *text) {
  strcpy(tmp_path, "/tmp/tile2cu-config-XXXXXX");
  int fd = mkstemp(tmp_path);
  cr_assert(fd >= 0, "mkstemp failed");
  size_t len = strlen(text);
  cr_assert_eq(write(fd, text, len), (ssize_t)len);
  close(fd);
}

static void remove_temp(void) {
  if (tmp_path[0])
    unlink(tmp_path);
}

/* The good config with line `lineno` (1-based) replaced by `line`; NULL drops
 * it; lineno 0 appends `line` instead. */
static void write_good_with(int lineno, const char *line) {
  static char text[4096];
  text[0] = '\0';
  for (int i = 0; i < N_GOOD; i++) {
    const char *l = i + 1 == lineno ? line : good_lines[i];
    if (l) {
      strcat(text, l);
      strcat(text, "\n");
    }
  }
  if (lineno == 0) {
    strcat(text, line);
    strcat(text, "\n");
  }
  write_temp(text);
}

/* Loads tmp_path, expects failure, and checks the message after the path. */
static void expect_error(const char *suffix) {
  TargetConfig cfg;
  char err[256];
  char want[512];
  cr_assert_not(config_load(tmp_path, &cfg, err, sizeof err), "loaded a bad config");
  snprintf(want, sizeof want, "%s%s", tmp_path, suffix);
  cr_assert_str_eq(err, want);
}

static void expect_text_error(const char *text, const char *suffix) {
  write_temp(text);
  expect_error(suffix);
}

static void expect_good_with_error(int lineno, const char *line, const char *suffix) {
  write_good_with(lineno, line);
  expect_error(suffix);
}

static TargetConfig load_shipped(const char *target) {
  char path[256], err[256];
  TargetConfig cfg;
  snprintf(path, sizeof path, "configs/%s.yaml", target);
  cr_assert(config_load(path, &cfg, err, sizeof err), "%s: %s", path, err);
  return cfg;
}

TestSuite(config, .fini = remove_temp);

/* ---------------------------------------------------------------- shipped */

Test(config, shipped_configs_are_sane) {
  static const char *const targets[] = {"sm_75", "sm_80", "sm_86", "sm_89",
                                        "sm_90", "sm_90a", "sm_100", "sm_120"};
  static const int sms[] = {75, 80, 86, 89, 90, 90, 100, 120};
  for (int i = 0; i < 8; i++) {
    TargetConfig c = load_shipped(targets[i]);
    cr_assert_str_eq(c.name, targets[i]);
    cr_assert_eq(c.sm, sms[i]);
    cr_assert_eq(c.lanes, 32);
    cr_assert_eq(c.max_threads, 1024);
    cr_assert_eq(c.regs_per_sm, 65536);
    cr_assert_eq(c.max_regs_per_thread, 255);
    cr_assert_eq(c.smem_static, 49152);
    cr_assert_leq(c.smem_static, c.smem_per_block);
    cr_assert_leq(c.smem_per_block, c.smem_per_sm);
    cr_assert_leq(c.max_threads, c.max_warps_per_sm * c.lanes);
    cr_assert_eq(c.cp_async, c.sm >= 80, "%s cp_async", targets[i]);
    cr_assert_eq(c.wgmma, c.sm == 90, "%s wgmma", targets[i]);
    cr_assert_eq(c.tma, c.sm >= 90, "%s tma", targets[i]);
    cr_assert_geq(c.n_mma_shapes, 1);
  }
}

Test(config, sm_90_values) {
  TargetConfig c = load_shipped("sm_90");
  cr_assert_eq(c.smem_per_sm, 233472);
  cr_assert_eq(c.smem_per_block, 232448);
  cr_assert_eq(c.max_blocks_per_sm, 32);
  cr_assert_eq(c.max_warps_per_sm, 64);
  cr_assert(c.cp_async && c.wgmma && c.tma);
  cr_assert_eq(c.n_mma_shapes, 2);
  cr_assert_str_eq(c.mma_shapes[0], "m16n8k16");
  cr_assert_str_eq(c.mma_shapes[1], "m16n8k8");
}

/* sm_90a is sm_90 with the suffix: every limit and feature the same, and the
 * architecture strings nvcc and NVRTC get carry the a. */
Test(config, sm_90a_values) {
  TargetConfig a = load_shipped("sm_90a"), p = load_shipped("sm_90");
  char buf[32];
  cr_assert_str_eq(a.name, "sm_90a");
  cr_assert_str_eq(a.arch_suffix, "a");
  cr_assert_str_eq(p.arch_suffix, "");
  config_arch(&a, "sm", buf, sizeof buf);
  cr_assert_str_eq(buf, "sm_90a");
  config_arch(&a, "compute", buf, sizeof buf);
  cr_assert_str_eq(buf, "compute_90a");
  config_arch(&p, "sm", buf, sizeof buf);
  cr_assert_str_eq(buf, "sm_90");
  memcpy(a.name, p.name, sizeof a.name);
  memcpy(a.arch_suffix, p.arch_suffix, sizeof a.arch_suffix);
  cr_assert(memcmp(&a, &p, sizeof a) == 0, "sm_90a differs from sm_90 beyond its name and suffix");
}

Test(config, arch_suffix_bad_value) {
  expect_good_with_error(0, "arch_suffix: b", ":17: key 'arch_suffix': expected an architecture suffix, a or f, got 'b'");
}

Test(config, arch_suffix_quoted) {
  expect_good_with_error(0, "arch_suffix: \"a\"",
                         ":17: key 'arch_suffix': expected an architecture suffix, a or f, got the quoted string 'a'");
}

Test(config, arch_suffix_name_mismatch) {
  expect_good_with_error(0, "arch_suffix: a",
                         ":17: key 'arch_suffix': the target is sm_90a, so its name must be sm_90a, not sm_90");
}

Test(config, arch_suffix_duplicate) {
  write_good_with(1, "name: sm_90a\narch_suffix: a\narch_suffix: a");
  expect_error(":3: duplicate key 'arch_suffix' (first given on line 2)");
}

Test(config, sm_75_values) {
  TargetConfig c = load_shipped("sm_75");
  cr_assert_eq(c.smem_per_sm, 65536);
  cr_assert_eq(c.smem_per_block, 65536);
  cr_assert_eq(c.max_blocks_per_sm, 16);
  cr_assert_eq(c.max_warps_per_sm, 32);
  cr_assert_not(c.cp_async);
  cr_assert_not(c.wgmma);
  cr_assert_not(c.tma);
  cr_assert_eq(c.n_mma_shapes, 1);
  cr_assert_str_eq(c.mma_shapes[0], "m16n8k8");
}

Test(config, ampere_ada_values) {
  TargetConfig a = load_shipped("sm_80");
  cr_assert_eq(a.smem_per_sm, 167936);
  cr_assert_eq(a.smem_per_block, 166912);
  cr_assert_eq(a.max_blocks_per_sm, 32);
  cr_assert_eq(a.max_warps_per_sm, 64);
  TargetConfig g = load_shipped("sm_86");
  cr_assert_eq(g.smem_per_sm, 102400);
  cr_assert_eq(g.smem_per_block, 101376);
  cr_assert_eq(g.max_blocks_per_sm, 16);
  cr_assert_eq(g.max_warps_per_sm, 48);
  TargetConfig d = load_shipped("sm_89");
  cr_assert_eq(d.smem_per_block, 101376);
  cr_assert_eq(d.max_blocks_per_sm, 24);
  cr_assert_eq(d.max_warps_per_sm, 48);
}

Test(config, blackwell_values) {
  TargetConfig b = load_shipped("sm_100");
  cr_assert_eq(b.smem_per_sm, 233472);
  cr_assert_eq(b.smem_per_block, 232448);
  cr_assert_eq(b.max_warps_per_sm, 64);
  cr_assert_not(b.wgmma);
  cr_assert(b.tma);
  TargetConfig r = load_shipped("sm_120");
  cr_assert_eq(r.smem_per_sm, 102400);
  cr_assert_eq(r.smem_per_block, 101376);
  cr_assert_eq(r.max_blocks_per_sm, 24);
  cr_assert_eq(r.max_warps_per_sm, 48);
  cr_assert_not(r.wgmma);
  cr_assert(r.tma && r.cp_async);
}

Test(config, good_template_loads) {
  TargetConfig c;
  char err[256];
  write_good_with(-1, NULL);
  cr_assert(config_load(tmp_path, &c, err, sizeof err), "%s", err);
  cr_assert_eq(c.smem_per_block, 232448);
  cr_assert_eq(c.n_mma_shapes, 2);
}

/* ---------------------------------------------------------------- bad values */

Test(config, int_not_a_number) {
  expect_good_with_error(3, "lanes: abc",
                         ":3: key 'lanes': expected a positive integer, got 'abc'");
}

Test(config, int_negative) {
  expect_good_with_error(10, "max_blocks_per_sm: -4",
                         ":10: key 'max_blocks_per_sm': expected a positive integer, got '-4'");
}

Test(config, int_zero) {
  expect_good_with_error(2, "sm: 0", ":2: key 'sm': expected a positive integer, got '0'");
}

Test(config, int_quoted) {
  expect_good_with_error(
    2, "sm: \"90\"", ":2: key 'sm': expected a positive integer, got the quoted string '90'");
}

Test(config, int_empty) {
  expect_good_with_error(
    5, "registers_per_sm:",
    ":5: key 'registers_per_sm': expected a positive integer, got an empty value");
}

Test(config, int_too_large) {
  expect_good_with_error(
    7, "shared_memory_per_sm: 99999999999",
    ":7: key 'shared_memory_per_sm': 99999999999 is too large (at most 2147483647)");
}

Test(config, int_is_a_sequence) {
  expect_good_with_error(4, "max_threads_per_block: [1024]",
                         ":4: key 'max_threads_per_block': expected a positive integer, got a sequence");
}

Test(config, bool_maybe) {
  expect_good_with_error(13, "  cp_async: maybe",
                         ":13: key 'features.cp_async': expected true or false, got 'maybe'");
}

Test(config, bool_number) {
  expect_good_with_error(15, "  tma: 1",
                         ":15: key 'features.tma': expected true or false, got '1'");
}

Test(config, features_not_a_mapping) {
  const char *text = "name: sm_90\nsm: 90\nfeatures: yes\n";
  expect_text_error(text, ":3: key 'features': expected a mapping of features, got 'yes'");
}

Test(config, name_too_long) {
  expect_good_with_error(
    1, "name: sm_90_with_a_name_that_is_far_too_long",
    ":1: key 'name': name is too long (at most 31 characters)");
}

Test(config, name_is_a_mapping) {
  const char *text = "name: {a: 1}\n";
  expect_text_error(text, ":1: key 'name': expected a target name such as sm_90, got a mapping");
}

Test(config, shapes_not_a_sequence) {
  expect_good_with_error(
    16, "  mma_shapes: m16n8k16",
    ":16: key 'features.mma_shapes': expected a sequence of mma shapes such as [m16n8k16], "
    "got 'm16n8k16'");
}

Test(config, shapes_bad_shape) {
  expect_good_with_error(
    16, "  mma_shapes: [m16n8k16, m16x8]",
    ":16: key 'features.mma_shapes': expected an mma shape such as m16n8k16, got 'm16x8'");
}

Test(config, shapes_bad_shape_block_sequence) {
  write_good_with(16, "  mma_shapes:\n    - m16n8k16\n    - 42");
  expect_error(":18: key 'features.mma_shapes': expected an mma shape such as m16n8k16, got '42'");
}

Test(config, shapes_too_long) {
  expect_good_with_error(16, "  mma_shapes: [m1600000n8000k16]",
                         ":16: key 'features.mma_shapes': shape 'm1600000n8000k16' is too long");
}

Test(config, shapes_too_many) {
  expect_good_with_error(16,
                         "  mma_shapes: [m16n8k16, m16n8k8, m8n8k4, m16n8k32, m16n8k64, "
                         "m16n8k128, m16n8k256, m8n8k16, m8n8k32]",
                         ":16: key 'features.mma_shapes': too many shapes (at most 8)");
}

Test(config, shapes_empty_and_block_style) {
  TargetConfig c;
  char err[256];
  write_good_with(16, "  mma_shapes: []");
  cr_assert(config_load(tmp_path, &c, err, sizeof err), "%s", err);
  cr_assert_eq(c.n_mma_shapes, 0);
  remove_temp();
  write_good_with(16, "  mma_shapes:\n    - m16n8k8");
  cr_assert(config_load(tmp_path, &c, err, sizeof err), "%s", err);
  cr_assert_eq(c.n_mma_shapes, 1);
  cr_assert_str_eq(c.mma_shapes[0], "m16n8k8");
}

/* ---------------------------------------------------------------- bad keys */

Test(config, unknown_key) {
  expect_good_with_error(0, "colour: red", ":17: unknown key 'colour'");
}

Test(config, unknown_feature_key) {
  expect_good_with_error(14, "  wgmma_v2: true", ":14: unknown key 'features.wgmma_v2'");
}

Test(config, duplicate_key) {
  expect_good_with_error(0, "lanes: 32", ":17: duplicate key 'lanes' (first given on line 3)");
}

Test(config, missing_key) {
  expect_good_with_error(3, NULL, ":1: missing required key 'lanes'");
}

Test(config, missing_feature_key) {
  expect_good_with_error(15, NULL, ":13: missing required key 'features.tma'");
}

Test(config, missing_features) {
  write_temp("# header\nname: sm_90\n");
  expect_error(":2: missing required key 'sm'");
}

Test(config, key_is_a_sequence) {
  expect_text_error("? [a, b]\n: 1\n", ":1: expected a key name, got a sequence");
}

/* ---------------------------------------------------------------- sanity */

Test(config, lanes_not_32) {
  expect_good_with_error(3, "lanes: 64", ":3: key 'lanes': only 32 is supported, got 64");
}

Test(config, threads_not_multiple_of_lanes) {
  expect_good_with_error(
    4, "max_threads_per_block: 1000",
    ":4: key 'max_threads_per_block': 1000 is not a multiple of lanes (32)");
}

Test(config, threads_exceed_sm) {
  expect_good_with_error(
    11, "max_warps_per_sm: 16",
    ":4: key 'max_threads_per_block': 1024 threads do not fit in max_warps_per_sm (16 warps)");
}

Test(config, smem_block_exceeds_sm) {
  expect_good_with_error(
    8, "shared_memory_per_block: 300000",
    ":8: key 'shared_memory_per_block': 300000 exceeds shared_memory_per_sm (233472)");
}

Test(config, smem_static_exceeds_block) {
  expect_good_with_error(
    9, "shared_memory_static: 240000",
    ":9: key 'shared_memory_static': 240000 exceeds shared_memory_per_block (232448)");
}

/* ---------------------------------------------------------------- files */

Test(config, yaml_syntax_error) {
  expect_good_with_error(3, "lanes: 32: 5",
                         ":3: YAML syntax error: mapping values are not allowed in this context");
}

Test(config, yaml_unclosed_flow) {
  write_temp("name: sm_90\nsm: 90\nfeatures: {cp_async: true\n\n");
  expect_error(":5: YAML syntax error: did not find expected ',' or '}' "
               "(while parsing a flow mapping on line 3)");
}

Test(config, top_level_sequence) {
  expect_text_error("# comment\n- sm_90\n- sm_80\n",
                    ":2: expected a mapping of keys at the top level, got a sequence");
}

Test(config, top_level_scalar) {
  expect_text_error("sm_90\n", ":1: expected a mapping of keys at the top level, got 'sm_90'");
}

Test(config, empty_file) {
  expect_text_error("", ": empty config, expected a mapping of keys such as 'name: sm_90'");
}

Test(config, comments_only_file) {
  expect_text_error("# nothing here\n\n",
                    ": empty config, expected a mapping of keys such as 'name: sm_90'");
}

Test(config, second_document) {
  write_good_with(0, "---\nname: sm_80");
  expect_error(":18: expected one YAML document, found a second one");
}

Test(config, cannot_open) {
  TargetConfig c;
  char err[256];
  cr_assert_not(config_load("/nonexistent/tile2cu/sm_90.yaml", &c, err, sizeof err));
  cr_assert_str_eq(err,
                   "/nonexistent/tile2cu/sm_90.yaml: cannot open config: No such file or directory");
}

Test(config, output_untouched_on_error) {
  TargetConfig c;
  char err[256];
  memset(&c, 0x5a, sizeof c);
  write_good_with(13, "  cp_async: maybe");
  cr_assert_not(config_load(tmp_path, &c, err, sizeof err));
  cr_assert_eq(c.sm, 0x5a5a5a5a);
}

Test(config, small_error_buffer) {
  TargetConfig c;
  char err[8];
  memset(err, 'x', sizeof err);
  write_good_with(3, "lanes: abc");
  cr_assert_not(config_load(tmp_path, &c, err, sizeof err));
  cr_assert_eq(strlen(err), 7);
  cr_assert_not(config_load(tmp_path, &c, NULL, 0));
}

/* ---------------------------------------------------------------- config_find */

Test(config, find_via_env_dir) {
  char cwd[PATH_MAX], dir[PATH_MAX + 16], path[PATH_MAX + 64], want[PATH_MAX + 64];
  cr_assert(getcwd(cwd, sizeof cwd));
  snprintf(dir, sizeof dir, "%s/configs", cwd);
  setenv("TILE2CU_CONFIG_DIR", dir, 1);
  cr_assert(config_find("sm_90", "tile2cu", path, sizeof path));
  snprintf(want, sizeof want, "%s/sm_90.yaml", dir);
  cr_assert_str_eq(path, want);
  TargetConfig c;
  char err[256];
  cr_assert(config_load(path, &c, err, sizeof err), "%s", err);
  cr_assert_eq(c.sm, 90);
}

Test(config, env_dir_comes_first) {
  char dir[] = "/tmp/tile2cu-configdir-XXXXXX";
  char file[64], path[256];
  cr_assert(mkdtemp(dir));
  snprintf(file, sizeof file, "%s/sm_80.yaml", dir);
  FILE *f = fopen(file, "w");
  cr_assert(f);
  fputs("name: sm_80\n", f);
  fclose(f);
  setenv("TILE2CU_CONFIG_DIR", dir, 1);
  bool found = config_find("sm_80", NULL, path, sizeof path);
  unlink(file);
  rmdir(dir);
  cr_assert(found);
  cr_assert_str_eq(path, file);
}

Test(config, find_missing_target) {
  char path[256];
  setenv("TILE2CU_CONFIG_DIR", "configs", 1);
  cr_assert_not(config_find("sm_99999", "tile2cu", path, sizeof path));
}

Test(config, find_rejects_bad_targets) {
  static const char *const bad[] = {"", "sm_", "sm_9a", "../sm_90", "sm_90/../sm_80",
                                    "SM_90", "compute_90", "sm_123456789", "sm_90 ",
                                    "configs/sm_90", "sm_a", "sm_90b", "sm_90aa", "sm_90A",
                                    "sm_90a/", "sm_9a0", "compute_90a"};
  char path[256];
  setenv("TILE2CU_CONFIG_DIR", "configs", 1);
  cr_assert_not(config_find(NULL, "tile2cu", path, sizeof path));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_not(config_find(bad[i], "tile2cu", path, sizeof path), "accepted '%s'", bad[i]);
}

Test(config, find_suffixed_target) {
  char path[256];
  setenv("TILE2CU_CONFIG_DIR", "configs", 1);
  cr_assert(config_find("sm_90a", "tile2cu", path, sizeof path));
  cr_assert_str_eq(path, "configs/sm_90a.yaml");
}

Test(config, find_path_buffer_too_small) {
  char path[8];
  setenv("TILE2CU_CONFIG_DIR", "configs", 1);
  cr_assert_not(config_find("sm_90", "tile2cu", path, sizeof path));
}
