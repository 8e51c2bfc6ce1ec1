/* test_nvrtc.c: libtile2cu (nvrtc_driver/), all without a GPU.
 *
 * Compiles examples/squares.tl through NVRTC for sm_80 and sm_90 and checks
 * the cubin (ELF magic, the kernel's symbol); the disk cache (a miss then a
 * hit, a corrupt or truncated entry recompiled, eight processes filling an
 * empty cache at once, TILE2CU_CACHE=0); loading without libcuda failing with
 * T2C_ERROR_NO_DEVICE; and diagnostics with file:line:col, NVRTC's mapped
 * back to .tl lines; the tensor maps t2c_launch makes for a kernel that TMA
 * feeds, through a fake driver (tests/unit/fake/libcuda.c). Each test gets its own cache directory under /tmp
 * (Criterion runs each test in its own process, so setenv does not leak).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../nvrtc_driver/internal.h"

#define SQUARES "examples/squares.tl"

static char cache_dir[64];

static void fresh_cache(void) {
  snprintf(cache_dir, sizeof cache_dir, "/tmp/t2c-test-cache-XXXXXX");
  cr_assert_not_null(mkdtemp(cache_dir));
  setenv("TILE2CU_CACHE_DIR", cache_dir, 1);
  unsetenv("TILE2CU_CACHE");
}

static void remove_cache(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
  if (system(cmd)) {}
}

TestSuite(nvrtc, .init = fresh_cache, .fini = remove_cache);

/* Compiles file for target; returns the program (binary checked non-empty). */
static t2c_program *compile(const char *file, const char *target) {
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_file(file, &p), T2C_SUCCESS, "%s", t2c_last_error());
  t2c_compile_options o = {target, T2C_OUTPUT_CUBIN, 0};
  t2c_status s = t2c_compile(p, &o);
  cr_assert_eq(s, T2C_SUCCESS, "%s: %s", t2c_error_string(s), t2c_last_error());
  size_t n;
  cr_assert_not_null(t2c_program_binary(p, &n));
  cr_assert_gt(n, 64);
  return p;
}

static void check_cubin(const t2c_program *p, const char *kernel) {
  size_t n;
  const unsigned char *b = t2c_program_binary(p, &n);
  cr_assert(memcmp(b, "\x7f" "ELF", 4) == 0, "not an ELF file");
  cr_assert_not_null(memmem(b, n, kernel, strlen(kernel) + 1), "no symbol %s in the cubin", kernel);
}

/* The single entry file in the cache (path into out); returns the count. */
static int cache_entries(char *out, size_t n) {
  char dir[128];
  snprintf(dir, sizeof dir, "%s/nvrtc", cache_dir);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".bin") && e->d_name[0] != '.') {
      count++;
      if (out && snprintf(out, n, "%s/%s", dir, e->d_name) >= (int)n) out[0] = 0;
    }
  closedir(d);
  return count;
}

Test(nvrtc, cubin_sm80_and_sm90) {
  t2c_program *p80 = compile(SQUARES, "sm_80");
  t2c_program *p90 = compile(SQUARES, "sm_90");
  check_cubin(p80, "squares");
  check_cubin(p90, "squares");
  size_t n80, n90;
  const void *b80 = t2c_program_binary(p80, &n80), *b90 = t2c_program_binary(p90, &n90);
  cr_assert(n80 != n90 || memcmp(b80, b90, n80) != 0, "sm_80 and sm_90 gave the same cubin");
  t2c_kernel_info ki;
  cr_assert_eq(t2c_program_kernel_info(p90, "squares", &ki), T2C_SUCCESS);
  cr_assert_eq(ki.threads, 256);
  cr_assert_gt(ki.registers, 0, "no register count from ptxas -v");
  cr_assert_eq(ki.stack_bytes, 0);
  cr_assert_eq(ki.spill_store_bytes, 0);
  t2c_program_destroy(p80);
  t2c_program_destroy(p90);
}

Test(nvrtc, cache_miss_then_hit) {
  t2c_program *a = compile(SQUARES, "sm_90");
  cr_assert_eq(t2c_program_cache_hit(a), 0);
  cr_assert_eq(cache_entries(NULL, 0), 1);
  t2c_program *b = compile(SQUARES, "sm_90");
  cr_assert_eq(t2c_program_cache_hit(b), 1);
  size_t na, nb;
  const void *ba = t2c_program_binary(a, &na), *bb = t2c_program_binary(b, &nb);
  cr_assert(na == nb && memcmp(ba, bb, na) == 0, "the cached cubin differs");
  t2c_kernel_info ki;
  t2c_program_kernel_info(b, "squares", &ki);
  cr_assert_gt(ki.registers, 0, "a hit keeps the ptxas numbers");
  /* another target is another key */
  t2c_program *c = compile(SQUARES, "sm_80");
  cr_assert_eq(t2c_program_cache_hit(c), 0);
  cr_assert_eq(cache_entries(NULL, 0), 2);
  t2c_program_destroy(a);
  t2c_program_destroy(b);
  t2c_program_destroy(c);
}

Test(nvrtc, cache_disabled) {
  setenv("TILE2CU_CACHE", "0", 1);
  t2c_program *a = compile(SQUARES, "sm_90");
  t2c_program *b = compile(SQUARES, "sm_90");
  cr_assert_eq(t2c_program_cache_hit(b), 0);
  cr_assert_eq(cache_entries(NULL, 0), 0);
  char dir[256];
  t2c_cache_dir(dir, sizeof dir);
  cr_assert_str_eq(dir, "");
  t2c_program_destroy(a);
  t2c_program_destroy(b);
}

/* Damages the entry with fn, compiles again: recompiled, same cubin, entry rewritten. */
static void damaged_entry(void (*damage)(const char *path, off_t size)) {
  t2c_program *a = compile(SQUARES, "sm_90");
  char path[256];
  cr_assert_eq(cache_entries(path, sizeof path), 1);
  struct stat st;
  stat(path, &st);
  damage(path, st.st_size);
  t2c_program *b = compile(SQUARES, "sm_90");
  cr_assert_eq(t2c_program_cache_hit(b), 0, "a damaged entry was loaded");
  size_t na, nb;
  const void *ba = t2c_program_binary(a, &na), *bb = t2c_program_binary(b, &nb);
  cr_assert(na == nb && memcmp(ba, bb, na) == 0);
  t2c_program *c = compile(SQUARES, "sm_90");
  cr_assert_eq(t2c_program_cache_hit(c), 1, "the entry was not rewritten");
  t2c_program_destroy(a);
  t2c_program_destroy(b);
  t2c_program_destroy(c);
}

static void flip_byte(const char *path, off_t size) {
  int fd = open(path, O_RDWR);
  unsigned char c;
  cr_assert_eq(pread(fd, &c, 1, size / 2), 1);
  c ^= 0x40;
  cr_assert_eq(pwrite(fd, &c, 1, size / 2), 1);
  close(fd);
}
static void truncate_half(const char *path, off_t size) { cr_assert_eq(truncate(path, size / 2), 0); }
static void truncate_header(const char *path, off_t size) { cr_assert_eq(truncate(path, 10), 0); }
static void append_junk(const char *path, off_t size) {
  int fd = open(path, O_WRONLY | O_APPEND);
  cr_assert_eq(write(fd, "junk", 4), 4);
  close(fd);
}

Test(nvrtc, corrupt_entry_flipped_byte) { damaged_entry(flip_byte); }
Test(nvrtc, corrupt_entry_truncated) {
  damaged_entry(truncate_half);
  remove_cache();
  fresh_cache();
  damaged_entry(truncate_header);
}
Test(nvrtc, corrupt_entry_appended) { damaged_entry(append_junk); }

/* Eight processes compile the same kernel into an empty cache at once. */
Test(nvrtc, eight_processes_one_cache) {
  enum { N = 8 };
  pid_t pids[N];
  for (int i = 0; i < N; i++) {
    pids[i] = fork();
    cr_assert_geq(pids[i], 0);
    if (pids[i] == 0) {
      t2c_program *p = NULL;
      t2c_compile_options o = {"sm_90", T2C_OUTPUT_CUBIN, 0};
      if (t2c_program_from_file(SQUARES, &p) || t2c_compile(p, &o)) _exit(1);
      size_t n;
      const void *b = t2c_program_binary(p, &n);
      char out[128];
      snprintf(out, sizeof out, "%s/out-%d", cache_dir, i);
      FILE *f = fopen(out, "wb");
      if (!f || fwrite(b, 1, n, f) != n || fclose(f)) _exit(2);
      _exit(0);
    }
  }
  for (int i = 0; i < N; i++) {
    int st;
    cr_assert_eq(waitpid(pids[i], &st, 0), pids[i]);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d failed (status %d)", i, st);
  }
  char first[128], cmd[512];
  snprintf(first, sizeof first, "%s/out-0", cache_dir);
  for (int i = 1; i < N; i++) {
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s/out-%d'", first, cache_dir, i);
    cr_assert_eq(system(cmd), 0, "process %d made a different cubin", i);
  }
  cr_assert_eq(cache_entries(NULL, 0), 1, "one entry, no temporary files left behind");
  t2c_program *p = compile(SQUARES, "sm_90");
  cr_assert_eq(t2c_program_cache_hit(p), 1);
  t2c_program_destroy(p);
}

/* Separate programs in separate threads at once (the documented guarantee). */
static void *compile_thread(void *arg) {
  const char *file = arg;
  t2c_program *p = NULL;
  t2c_compile_options o = {"sm_90", T2C_OUTPUT_CUBIN, T2C_NO_CACHE};
  t2c_status s = t2c_program_from_file(file, &p);
  if (!s) s = t2c_compile(p, &o);
  size_t n = 0;
  if (!s) t2c_program_binary(p, &n);
  t2c_program_destroy(p);
  return (void *)(intptr_t)(s == T2C_SUCCESS && n > 64);
}

Test(nvrtc, threads_with_separate_programs) {
  const char *files[] = {SQUARES, "examples/softmax.tl", SQUARES, "examples/softmax.tl"};
  pthread_t th[4];
  for (int i = 0; i < 4; i++) cr_assert_eq(pthread_create(&th[i], NULL, compile_thread, (void *)files[i]), 0);
  for (int i = 0; i < 4; i++) {
    void *ok;
    pthread_join(th[i], &ok);
    cr_assert(ok, "thread %d failed", i);
  }
}

/* Translations on several threads at once give what one thread gives: the
 * translator's stages keep no state between threads (sync.c's pass state is
 * per thread). Versioned kernels with barriers in loops, on four targets.
 * With sync.c's pass state shared by the threads this crashes every time;
 * with only its `view` shared (as it was at fdb7b5b) it fails about 3 runs
 * in 5. */
enum { TR_FILES = 6, TR_THREADS = 4, TR_ROUNDS = 32 };
static const char *const tr_files[TR_FILES][2] = {
    {"examples/attention.tl", "sm_90"},          {"examples/gemm_f16.tl", "sm_90a"},
    {"tests/gpu/partial.tl", "sm_80"},           {"tests/gpu/copy_before_loop.tl", "sm_90"},
    {"examples/layernorm.tl", "sm_90a"},         {"tests/gpu/smem_reuse.tl", "sm_75"}};
static char *tr_want[TR_FILES];

static char *translate_file(const char *file, const char *target) {
  t2c_program *p = NULL;
  if (t2c_program_from_file(file, &p) != T2C_SUCCESS) return NULL;
  char *cuda = NULL;
  if (t2c_program_translate(p, target, NULL, 0) == T2C_SUCCESS && t2c_program_cuda_source(p))
    cuda = strdup(t2c_program_cuda_source(p));
  t2c_program_destroy(p);
  return cuda;
}

static void *translate_thread(void *arg) {
  int first = (int)(intptr_t)arg, bad = 0;
  for (int r = 0; r < TR_ROUNDS; r++)
    for (int i = 0; i < TR_FILES; i++) {
      int f = (first + i) % TR_FILES;
      char *got = translate_file(tr_files[f][0], tr_files[f][1]);
      bad += !got || strcmp(got, tr_want[f]) != 0;
      free(got);
    }
  return (void *)(intptr_t)bad;
}

Test(nvrtc, threads_translate_as_one_thread_does) {
  for (int i = 0; i < TR_FILES; i++) {
    tr_want[i] = translate_file(tr_files[i][0], tr_files[i][1]);
    cr_assert_not_null(tr_want[i], "%s does not translate: %s", tr_files[i][0], t2c_last_error());
  }
  pthread_t th[TR_THREADS];
  for (int i = 0; i < TR_THREADS; i++)
    cr_assert_eq(pthread_create(&th[i], NULL, translate_thread, (void *)(intptr_t)i), 0);
  int bad = 0;
  for (int i = 0; i < TR_THREADS; i++) {
    void *n;
    pthread_join(th[i], &n);
    bad += (int)(intptr_t)n;
  }
  for (int i = 0; i < TR_FILES; i++) free(tr_want[i]);
  cr_assert_eq(bad, 0, "%d translations on threads differed from the one-thread ones", bad);
}

Test(nvrtc, ptx_output) {
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_file(SQUARES, &p), T2C_SUCCESS);
  t2c_compile_options o = {"sm_90", T2C_OUTPUT_PTX, 0};
  cr_assert_eq(t2c_compile(p, &o), T2C_SUCCESS, "%s", t2c_last_error());
  size_t n;
  const char *ptx = t2c_program_binary(p, &n);
  cr_assert_not_null(memmem(ptx, n, ".entry squares", 14));
  cr_assert_not_null(memmem(ptx, n, ".target sm_90", 13));
  t2c_program_destroy(p);
}

/* --target sm_90a: NVRTC gets -arch=compute_90a (PTX) and -arch=sm_90a
 * (cubin), never the bare sm number; the unknown-target message lists it. */
Test(nvrtc, sm_90a_target) {
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_file(SQUARES, &p), T2C_SUCCESS);
  t2c_compile_options o = {"sm_90a", T2C_OUTPUT_PTX, 0};
  cr_assert_eq(t2c_compile(p, &o), T2C_SUCCESS, "%s", t2c_last_error());
  size_t n;
  const char *ptx = t2c_program_binary(p, &n);
  cr_assert_not_null(memmem(ptx, n, ".target sm_90a", 14), "the PTX is not for sm_90a");
  t2c_program_destroy(p);
  p = compile(SQUARES, "sm_90a");
  check_cubin(p, "squares");
  o.target = "sm_90b";
  cr_assert_eq(t2c_compile(p, &o), T2C_ERROR_TARGET);
  cr_assert_not_null(strstr(t2c_last_error(), " sm_90 sm_90a"), "message: %s", t2c_last_error());
  t2c_program_destroy(p);
}

Test(nvrtc, no_libcuda_is_no_device) {
  setenv("TILE2CU_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  cr_assert_eq(t2c_device_available(), T2C_ERROR_NO_DEVICE);
  t2c_program *p = compile(SQUARES, "sm_90"); /* compiling still works */
  t2c_module *m = (t2c_module *)1;
  t2c_status s = t2c_module_load(p, &m);
  cr_assert_eq(s, T2C_ERROR_NO_DEVICE);
  cr_assert_null(m);
  cr_assert_not_null(strstr(t2c_last_error(), "no CUDA device"), "message: %s", t2c_last_error());
  cr_assert_str_eq(t2c_error_string(s), "no CUDA device");
  t2c_devptr d;
  cr_assert_eq(t2c_mem_alloc(&d, 16), T2C_ERROR_NO_DEVICE);
  t2c_program_destroy(p);
}

Test(nvrtc, translator_errors_have_locations) {
  const char *src = "@launch(128)\n"
                    "kernel k(X: tensor<f32>[64]) {\n"
                    "  var a = X[0 :+ 64] + nosuch\n"
                    "}\n";
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_source("bad.tl", src, &p), T2C_ERROR_TRANSLATE);
  cr_assert_not_null(p);
  cr_assert_geq(t2c_program_num_diagnostics(p), 1);
  t2c_diagnostic d;
  cr_assert_eq(t2c_program_diagnostic(p, 0, &d), T2C_SUCCESS);
  cr_assert_eq(d.severity, T2C_ERROR);
  cr_assert_str_eq(d.file, "bad.tl");
  cr_assert_eq(d.line, 3);
  cr_assert_eq(d.col, 24);
  cr_assert_not_null(strstr(d.message, "nosuch"), "message: %s", d.message);
  cr_assert_not_null(strstr(t2c_last_error(), "bad.tl:3:24: error:"), "%s", t2c_last_error());
  cr_assert_not_null(strstr(t2c_program_diagnostics_text(p), "bad.tl:3:24: error:"));
  cr_assert_eq(t2c_compile(p, NULL), T2C_ERROR_TRANSLATE);
  cr_assert_eq(t2c_program_num_kernels(p), 0);
  t2c_program_destroy(p);
}

Test(nvrtc, nvrtc_errors_map_to_tl_lines) {
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_file(SQUARES, &p), T2C_SUCCESS);
  int before = t2c_program_num_diagnostics(p);
  program_add_nvrtc_diags(p, "examples/squares.tl(8): error: identifier \"x\" is undefined\n"
                             "\n1 error detected in the compilation of \"squares.tl.cu\".\n");
  cr_assert_eq(t2c_program_num_diagnostics(p), before + 1);
  t2c_diagnostic d;
  t2c_program_diagnostic(p, before, &d);
  cr_assert_eq(d.severity, T2C_ERROR);
  cr_assert_str_eq(d.file, "examples/squares.tl");
  cr_assert_eq(d.line, 8);
  cr_assert_not_null(strstr(d.message, "identifier \"x\" is undefined"));
  /* the generated CUDA carries the #line directives that make this work */
  cr_assert_not_null(strstr(t2c_program_cuda_source(p), "#line 8 \"examples/squares.tl\""));
  t2c_program_destroy(p);
}

Test(nvrtc, bad_arguments) {
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_file("/nonexistent.tl", &p), T2C_ERROR_IO);
  cr_assert_null(p);
  cr_assert_eq(t2c_program_from_file(SQUARES, &p), T2C_SUCCESS);
  t2c_compile_options o = {"sm_1", T2C_OUTPUT_CUBIN, 0};
  cr_assert_eq(t2c_compile(p, &o), T2C_ERROR_TARGET);
  cr_assert_not_null(strstr(t2c_last_error(), "unknown target 'sm_1'"));
  t2c_kernel_info ki;
  cr_assert_eq(t2c_program_kernel_info(p, "nosuch", &ki), T2C_ERROR_NOT_FOUND);
  cr_assert_eq(t2c_program_kernel_info(p, "squares", &ki), T2C_SUCCESS);
  cr_assert_eq(ki.registers, -1, "no ptxas numbers before a compile");
  cr_assert_eq(ki.num_params, 3);
  cr_assert_eq(ki.num_sizes, 1);
  t2c_program_destroy(p);
}

/* @strided: the strides are counted apart from the sizes, for t2c_launch's arguments */
Test(nvrtc, kernel_info_strides) {
  const char *src = "@grid(cdiv(N, 64))\n@strided(X)\n"
                    "kernel k(X: tensor<f32>[M, N], O: tensor<f32>[N]) {\n"
                    "  O[ctx.block.x * 64 :+ 64] = X[0, ctx.block.x * 64 :+ 64]\n}\n";
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_source("k.tl", src, &p), T2C_SUCCESS);
  t2c_kernel_info ki;
  cr_assert_eq(t2c_program_kernel_info(p, "k", &ki), T2C_SUCCESS);
  cr_assert_eq(ki.num_params, 2);
  cr_assert_eq(ki.num_sizes, 2);
  cr_assert_eq(ki.num_strides, 2);
  t2c_program_destroy(p);
}

/* ---- translator options in the compile call (t2c_compile_args) */

#define CONSTS_SRC "const T = 64\n@launch(T)\nkernel k(O: tensor<f32>[64]) {\n  O[0 :+ 64] = 1.0\n}\n"
#define RAGGED_SRC                                                                      \
  "@launch(128)\nkernel k(X: tensor<f32>[N], O: tensor<f32>[N]) {\n"                   \
  "  for i in range(0, N, 128) {\n    O[i :+ 128] = X[i :+ 128] * 2.0\n  }\n}\n"

static int count_severity(const t2c_program *p, t2c_severity sev, const char *text) {
  int n = 0;
  for (int i = 0; i < t2c_program_num_diagnostics(p); i++) {
    t2c_diagnostic d;
    cr_assert_eq(t2c_program_diagnostic(p, i, &d), T2C_SUCCESS);
    n += d.severity == sev && (!text || strstr(d.message, text));
  }
  return n;
}

static int threads_of(const t2c_program *p) {
  t2c_kernel_info ki;
  cr_assert_eq(t2c_program_kernel_info(p, "k", &ki), T2C_SUCCESS);
  return ki.threads;
}

Test(nvrtc, compile_args_defines_translate_again_and_key_the_cache) {
  t2c_compile_options o = {"sm_90", T2C_OUTPUT_CUBIN, 0};
  const char *d128[] = {"-D", "T=128"}, *d256[] = {"-DT=256"};
  t2c_program *p = NULL, *q = NULL;
  cr_assert_eq(t2c_program_from_source("k.tl", CONSTS_SRC, &p), T2C_SUCCESS);
  cr_assert_eq(threads_of(p), 64);
  cr_assert_eq(t2c_compile_args(p, &o, d128, 2), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(threads_of(p), 128);
  cr_assert_not_null(strstr(t2c_program_cuda_source(p), "// Consts set on the command line: -D T=128\n"));
  cr_assert_eq(t2c_program_cache_hit(p), 0);
  cr_assert_eq(cache_entries(NULL, 0), 1);
  size_t n128;
  const void *b = t2c_program_binary(p, &n128);
  void *bin128 = malloc(n128);
  memcpy(bin128, b, n128);
  cr_assert_eq(t2c_compile_args(p, &o, d256, 1), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(threads_of(p), 256);
  cr_assert_eq(cache_entries(NULL, 0), 2, "another value, another entry");
  /* without options: the file's value again, and no line on -D */
  cr_assert_eq(t2c_compile(p, &o), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(threads_of(p), 64);
  cr_assert_null(strstr(t2c_program_cuda_source(p), "Consts set on the command line"));
  cr_assert_eq(cache_entries(NULL, 0), 3);
  /* the same -D from another program: a hit, the same cubin */
  cr_assert_eq(t2c_program_from_source("k.tl", CONSTS_SRC, &q), T2C_SUCCESS);
  cr_assert_eq(t2c_compile_args(q, &o, d128, 2), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(t2c_program_cache_hit(q), 1);
  size_t nq;
  const void *bq = t2c_program_binary(q, &nq);
  cr_assert(nq == n128 && memcmp(bq, bin128, nq) == 0);
  cr_assert_eq(cache_entries(NULL, 0), 3);
  free(bin128);
  t2c_program_destroy(p);
  t2c_program_destroy(q);
}

Test(nvrtc, compile_args_errors_are_translation_errors) {
  t2c_compile_options o = {"sm_90", T2C_OUTPUT_CUBIN, 0};
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_source("k.tl", CONSTS_SRC, &p), T2C_SUCCESS);
  const char *nope[] = {"-D", "NOPE=1"}, *bad_value[] = {"-DT=x"}, *wno[] = {"-Wno-nope"}, *null[] = {NULL};
  cr_assert_eq(t2c_compile_args(p, &o, nope, 2), T2C_ERROR_TRANSLATE);
  cr_assert_eq(count_severity(p, T2C_ERROR, "no file-level const 'NOPE'"), 1, "%s", t2c_program_diagnostics_text(p));
  cr_assert_null(t2c_program_cuda_source(p));
  cr_assert_eq(t2c_compile_args(p, &o, bad_value, 1), T2C_ERROR_TRANSLATE);
  cr_assert_eq(count_severity(p, T2C_ERROR, "not an integer or float literal"), 1);
  cr_assert_eq(t2c_compile_args(p, &o, wno, 1), T2C_ERROR_TRANSLATE);
  cr_assert_eq(count_severity(p, T2C_ERROR, "unknown warning option '-Wno-nope'"), 1);
  cr_assert_eq(t2c_compile_args(p, &o, null, 1), T2C_ERROR_INVALID_VALUE);
  cr_assert_eq(t2c_compile_args(p, &o, NULL, 1), T2C_ERROR_INVALID_VALUE);
  cr_assert_eq(t2c_compile_args(p, &o, nope, -1), T2C_ERROR_INVALID_VALUE);
  /* and it recovers without them */
  cr_assert_eq(t2c_compile(p, &o), T2C_SUCCESS, "%s", t2c_last_error());
  t2c_program_destroy(p);
}

Test(nvrtc, compile_args_warning_options) {
  t2c_compile_options o = {"sm_90", T2C_OUTPUT_PTX, 0};
  t2c_program *p = NULL;
  cr_assert_eq(t2c_program_from_source("r.tl", RAGGED_SRC, &p), T2C_SUCCESS);
  cr_assert_eq(count_severity(p, T2C_WARNING, "bounds check"), 1, "%s", t2c_program_diagnostics_text(p));
  cr_assert_not_null(strstr(t2c_program_diagnostics_text(p), "[-Wbounds]"));
  const char *w[] = {"-w"}, *wno[] = {"-Wno-bounds"}, *werror[] = {"-Werror"};
  cr_assert_eq(t2c_compile_args(p, &o, w, 1), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(count_severity(p, T2C_WARNING, NULL), 0, "%s", t2c_program_diagnostics_text(p));
  cr_assert_eq(t2c_compile_args(p, &o, wno, 1), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(count_severity(p, T2C_WARNING, NULL), 0, "%s", t2c_program_diagnostics_text(p));
  cr_assert_eq(t2c_compile_args(p, &o, werror, 1), T2C_ERROR_TRANSLATE);
  cr_assert_eq(count_severity(p, T2C_ERROR, "[-Werror,-Wbounds]"), 1, "%s", t2c_program_diagnostics_text(p));
  cr_assert_not_null(strstr(t2c_last_error(), "r.tl:4:"), "%s", t2c_last_error());
  t2c_program_destroy(p);
}

#include "fake/fakemap.h"

static void check_map(const void *param, unsigned long long base, unsigned long long rows, unsigned long long cols,
                      unsigned box_rows, unsigned box_cols, const char *what) {
  FakeMap m;
  memcpy(&m, param, sizeof m);
  cr_assert_eq(m.magic, FAKEMAP_MAGIC, "%s: not made by cuTensorMapEncodeTiled", what);
  cr_assert_eq(m.dtype, 6, "%s: CU_TENSOR_MAP_DATA_TYPE_FLOAT16", what);
  cr_assert_eq(m.rank, 2u);
  cr_assert_eq(m.base, base, "%s: the tensor's address", what);
  /* the driver API takes the innermost dimension first, and the strides of the others in bytes */
  cr_assert_eq(m.dims[0], cols, "%s: dims[0] is the row length", what);
  cr_assert_eq(m.dims[1], rows, "%s", what);
  cr_assert_eq(m.strides[0], cols * 2, "%s: a row of f16 apart", what);
  cr_assert_eq(m.box[0], box_cols, "%s: box[0]", what);
  cr_assert_eq(m.box[1], box_rows, "%s: box[1]", what);
  cr_assert(m.estr[0] == 1 && m.estr[1] == 1, "%s: element strides", what);
  cr_assert_eq(m.swizzle, 3, "%s: CU_TENSOR_MAP_SWIZZLE_128B", what);
  cr_assert_eq(m.interleave, 0, "%s: no interleave", what);
  cr_assert_eq(m.oob, 0, "%s: out-of-range elements are zeros", what);
}

static bool all_zero(const void *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (((const unsigned char *)p)[i]) return false;
  return true;
}

/* gemm_f16 on sm_90a reads A [M, K] in boxes of 128 x 64 and B [K, N] in boxes
 * of 64 x 64 (128-byte rows of f16, the 128-byte swizzle) by TMA, and writes C
 * [M, N] in boxes of 16 x 64 (each warp's rows, its staged epilogue). t2c_launch
 * takes the same arguments as for any kernel and passes the maps after them;
 * a tensor its fast body cannot take (rows not 16 bytes apart, an address not
 * 16-byte aligned) gets a map of zeros, which that body never reads. */
Test(nvrtc, tensor_maps_of_a_tma_kernel) {
  const char *lib = getenv("T2C_FAKE_LIBCUDA"); /* the Makefile's, next to the unit tests */
  if (!lib || !*lib) lib = "build/libfakecuda.so";
  setenv("TILE2CU_LIBCUDA", lib, 1);
  void *fake = dlopen(lib, RTLD_NOW);
  cr_assert_not_null(fake, "%s", dlerror());
  void (*expect)(int, const size_t *) = (void (*)(int, const size_t *))dlsym(fake, "fake_cuda_expect");
  const void *(*param)(int) = (const void *(*)(int))dlsym(fake, "fake_cuda_param");
  int (*encodes)(void) = (int (*)(void))dlsym(fake, "fake_cuda_encodes");
  const unsigned *(*grid)(void) = (const unsigned *(*)(void))dlsym(fake, "fake_cuda_grid");
  cr_assert(expect && param && encodes && grid);
  t2c_program *p = compile("examples/gemm_f16.tl", "sm_90a");
  t2c_kernel_info ki;
  cr_assert_eq(t2c_program_kernel_info(p, "gemm_f16", &ki), T2C_SUCCESS);
  cr_assert_eq(ki.num_tensor_maps, 3);
  t2c_module *m = NULL;
  cr_assert_eq(t2c_module_load(p, &m), T2C_SUCCESS, "%s", t2c_last_error());
  t2c_devptr A, B, C;
  cr_assert_eq(t2c_mem_alloc(&A, 1 << 20), T2C_SUCCESS);
  cr_assert_eq(t2c_mem_alloc(&B, 1 << 20), T2C_SUCCESS);
  cr_assert_eq(t2c_mem_alloc(&C, 1 << 20), T2C_SUCCESS);
  const size_t sizes[9] = {8, 8, 8, 4, 4, 4, 128, 128, 128};
  struct { int M, K, N; t2c_devptr a; int maps; } cases[] = {
    {256, 512, 384, A, 3},     /* every map */
    {256, 100, 384, A, 2},     /* A's rows are 200 bytes apart: zeros; B [100, 384] and C have maps */
    {256, 512, 384, A + 8, 2}, /* A not 16-byte aligned: zeros */
  };
  for (int c = 0; c < 3; c++) {
    expect(9, sizes);
    int M = cases[c].M, K = cases[c].K, N = cases[c].N;
    t2c_devptr a = cases[c].a;
    void *args[] = {&a, &B, &C, &M, &K, &N};
    cr_assert_eq(t2c_launch(m, "gemm_f16", args, NULL), T2C_SUCCESS, "case %d: %s", c, t2c_last_error());
    cr_assert_eq(encodes(), cases[c].maps, "case %d", c);
    cr_assert_eq(*(const t2c_devptr *)param(0), a, "the caller's arguments come first");
    cr_assert_eq(*(const int *)param(4), K);
    cr_assert(grid()[0] == 6 && grid()[1] == 1 && grid()[2] == 1, "@grid(cdiv(M, BM) * cdiv(N, BN)): 2 x 3 tiles");
    if (cases[c].maps == 3) check_map(param(6), a, (unsigned long long)M, (unsigned long long)K, 128, 64, "A");
    else cr_assert(all_zero(param(6), 128), "case %d: A's map is zeros", c);
    check_map(param(7), B, (unsigned long long)K, (unsigned long long)N, 64, 64, "B");
    check_map(param(8), C, (unsigned long long)M, (unsigned long long)N, 16, 64, "C");
  }
  t2c_module_unload(m);
  t2c_program_destroy(p);

  /* attention_f16 reads K and V [B, H, S, D] by TMA: rank-4 maps, dims innermost
   * first {D, S, H, B}, byte strides {D, S D, H S D} x 2, boxes {64, 64, 1, 1};
   * and writes O [B, H, S, D] in boxes {64, 16, 1, 1} */
  p = compile("examples/attention_f16.tl", "sm_90a");
  cr_assert_eq(t2c_program_kernel_info(p, "attention_f16", &ki), T2C_SUCCESS);
  cr_assert_eq(ki.num_tensor_maps, 3);
  cr_assert_eq(t2c_module_load(p, &m), T2C_SUCCESS, "%s", t2c_last_error());
  const size_t asz[12] = {8, 8, 8, 8, 4, 4, 4, 4, 4, 128, 128, 128}; /* Q K V O, scale causal, B H S, the maps */
  expect(12, asz);
  t2c_devptr Q = A, O = C;
  float scale = 0.125f;
  int causal = 0, Bn = 2, H = 3, S = 200;
  void *aargs[] = {&Q, &B, &B, &O, &scale, &causal, &Bn, &H, &S};
  cr_assert_eq(t2c_launch(m, "attention_f16", aargs, NULL), T2C_SUCCESS, "%s", t2c_last_error());
  cr_assert_eq(encodes(), 3);
  for (int i = 9; i < 12; i++) {
    FakeMap fm;
    memcpy(&fm, param(i), sizeof fm);
    cr_assert_eq(fm.magic, FAKEMAP_MAGIC);
    cr_assert_eq(fm.rank, 4u);
    cr_assert_eq(fm.base, i < 11 ? B : O);
    cr_assert(fm.dims[0] == 64 && fm.dims[1] == 200 && fm.dims[2] == 3 && fm.dims[3] == 2, "dims %llu %llu %llu %llu",
              fm.dims[0], fm.dims[1], fm.dims[2], fm.dims[3]);
    cr_assert(fm.strides[0] == 128 && fm.strides[1] == 128 * 200 && fm.strides[2] == 128 * 200 * 3);
    cr_assert(fm.box[0] == 64 && fm.box[1] == (i < 11 ? 64u : 16u) && fm.box[2] == 1 && fm.box[3] == 1);
    cr_assert_eq(fm.swizzle, 3);
  }
  t2c_module_unload(m);
  t2c_program_destroy(p);
}
