/* test_cache_security.c: the caches of compiled code against tampering.
 *
 * The NVRTC cache (cache.c) through cache_put and cache_get with made-up
 * entries, so no NVRTC is needed: a symlinked entry is not followed, a
 * corrupted, truncated, group-writable or foreign entry is not loaded (a
 * miss, so it is recompiled), a group-writable cache directory is made 0700,
 * a symlinked one turns the cache off, and a failed write leaves no entry.
 * Ownership is checked through fsafe_dir_check and fsafe_open
 * (common/fsafe.c, which both caches use) with another uid, which needs no
 * privileges. The CPU backend (simrun.c): sim_run loads no symlinked,
 * group-writable or misplaced shared object, sim_build rebuilds a
 * damaged runtime object instead of linking it, and the precompiled runtime
 * header is built once, used only by a .cu that starts with the runtime's
 * two lines, rebuilt when damaged, pruned when unused, and done without when
 * the compiler cannot make one.
 * Each test gets its own cache directory under /tmp.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/fsafe.h"
#include "../../nvrtc_driver/internal.h"
#include "simrun.h"

static char root[64], nvrtc_dir[128], log_path[128];

static void fresh_cache(void) {
  snprintf(root, sizeof root, "/tmp/t2c-cache-sec-XXXXXX");
  cr_assert_not_null(mkdtemp(root));
  snprintf(nvrtc_dir, sizeof nvrtc_dir, "%s/nvrtc", root);
  snprintf(log_path, sizeof log_path, "/tmp/t2c-cache-sec-log-%d", (int)getpid());
  setenv("TILE2CU_CACHE_DIR", root, 1);
  unsetenv("TILE2CU_CACHE");
}

static void remove_cache(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s' '%s'", root, root, log_path);
  cr_assert_eq(system(cmd), 0);
}

TestSuite(cache_security, .init = fresh_cache, .fini = remove_cache);

/* ---------------------------------------------------------------- helpers */

static int saved_stderr = -1;

/* stderr goes to log_path until captured() returns what was written. */
static void capture(void) {
  fflush(stderr);
  saved_stderr = dup(2);
  int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  cr_assert_geq(fd, 0);
  dup2(fd, 2);
  close(fd);
}

static const char *captured(void) {
  static char buf[4096];
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  FILE *f = fopen(log_path, "r");
  cr_assert_not_null(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static void key_of(const char *what, char hex[65]) {
  const char *parts[] = {what};
  size_t lens[] = {strlen(what)};
  cache_key(parts, lens, 1, hex);
}

static void entry_of(const char *hex, char *path, size_t n) { snprintf(path, n, "%s/%s.bin", nvrtc_dir, hex); }

/* cache_get must miss. */
static void expect_miss(const char *hex) {
  void *code = NULL;
  size_t len = 0;
  char *log = NULL;
  cr_assert_eq(cache_get(hex, &code, &len, &log), 0, "a bad entry was loaded");
  cr_assert_null(code);
  cr_assert_null(log);
}

/* cache_get must hit with exactly code and log. */
static void expect_hit(const char *hex, const char *code, size_t code_len, const char *log) {
  void *c;
  size_t len;
  char *l;
  cr_assert_eq(cache_get(hex, &c, &len, &l), 1, "a good entry was not loaded");
  cr_assert_eq(len, code_len);
  cr_assert_eq(memcmp(c, code, len), 0);
  cr_assert_str_eq(l, log);
  free(c);
  free(l);
}

static size_t file_size(const char *path) {
  struct stat st;
  cr_assert_eq(stat(path, &st), 0, "%s is missing", path);
  return (size_t)st.st_size;
}

/* The names in dir, other than . and .., one per line. */
static void list_dir(const char *dir, char *out, size_t n) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  out[0] = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      snprintf(out + strlen(out), n - strlen(out), "%s\n", e->d_name);
  closedir(d);
}

/* ---------------------------------------------------------------- the NVRTC cache */

Test(cache_security, entries_are_private_and_round_trip) {
  char hex[65], path[256];
  key_of("round trip", hex);
  cache_put(hex, "\x7f" "ELF code", 9, "ptxas info");
  expect_hit(hex, "\x7f" "ELF code", 9, "ptxas info");
  struct stat st;
  cr_assert_eq(stat(nvrtc_dir, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0700, "the cache directory is %04o", st.st_mode & 07777);
  entry_of(hex, path, sizeof path);
  cr_assert_eq(lstat(path, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0600, "the entry is %04o", st.st_mode & 07777);
}

Test(cache_security, symlinked_entry_is_not_followed) {
  char hex[65], path[256], outside[256], before[512], after[512];
  key_of("symlinked", hex);
  cache_put(hex, "real code", 9, "");
  entry_of(hex, path, sizeof path);
  /* a valid entry for this very key, moved out and linked back in */
  snprintf(outside, sizeof outside, "%s/outside.bin", root);
  cr_assert_eq(rename(path, outside), 0);
  cr_assert_eq(symlink(outside, path), 0);
  size_t n = file_size(outside);
  FILE *f = fopen(outside, "rb");
  cr_assert_eq(fread(before, 1, sizeof before, f), n);
  fclose(f);
  capture();
  expect_miss(hex);
  const char *err = captured();
  cr_assert(strstr(err, "is a symbolic link"), "stderr: %s", err);
  struct stat st;
  cr_assert_neq(lstat(path, &st), 0, "the symlink was left in place");
  /* the recompiled entry replaces the name, never writes through it */
  cr_assert_eq(symlink(outside, path), 0);
  cache_put(hex, "new code", 8, "");
  cr_assert_eq(lstat(path, &st), 0);
  cr_assert(S_ISREG(st.st_mode), "the entry is still a symlink");
  f = fopen(outside, "rb");
  cr_assert_eq(fread(after, 1, sizeof after, f), n);
  fclose(f);
  cr_assert_eq(memcmp(before, after, n), 0, "the symlink's target was written");
  expect_hit(hex, "new code", 8, "");
}

Test(cache_security, corrupted_entry_is_recompiled) {
  char hex[65], path[256];
  key_of("corrupted", hex);
  cache_put(hex, "0123456789", 10, "log");
  entry_of(hex, path, sizeof path);
  int fd = open(path, O_RDWR);
  cr_assert_geq(fd, 0);
  cr_assert_eq(pwrite(fd, "X", 1, 64 + 3), 1); /* inside the code */
  close(fd);
  capture();
  expect_miss(hex);
  cr_assert_str_eq(captured(), "", "a corrupt entry is not suspicious");
  cr_assert_neq(access(path, F_OK), 0, "the corrupt entry was kept");
  cache_put(hex, "0123456789", 10, "log"); /* what the caller does on a miss */
  expect_hit(hex, "0123456789", 10, "log");
}

Test(cache_security, truncated_entry_is_not_loaded) {
  char hex[65], path[256], code[100];
  key_of("truncated", hex);
  memset(code, 'c', sizeof code);
  cache_put(hex, code, sizeof code, "");
  entry_of(hex, path, sizeof path);
  cr_assert_eq(file_size(path), 64 + sizeof code);
  cr_assert_eq(truncate(path, 64 + 50), 0);
  expect_miss(hex);
  cache_put(hex, code, sizeof code, "");
  cr_assert_eq(truncate(path, 10), 0); /* not even a header */
  expect_miss(hex);
}

Test(cache_security, group_writable_entry_is_refused) {
  char hex[65], path[256];
  key_of("group writable", hex);
  cache_put(hex, "code", 4, "");
  entry_of(hex, path, sizeof path);
  cr_assert_eq(chmod(path, 0660), 0);
  capture();
  expect_miss(hex);
  const char *err = captured();
  cr_assert(strstr(err, "writable by group or others (mode 0660)"), "stderr: %s", err);
}

Test(cache_security, entry_of_another_user_is_refused) {
  char hex[65], path[256], err[512];
  key_of("foreign", hex);
  cache_put(hex, "code", 4, "");
  entry_of(hex, path, sizeof path);
  bool suspicious;
  int fd = fsafe_open(path, geteuid(), &suspicious, err, sizeof err);
  cr_assert_geq(fd, 0, "%s", err);
  close(fd);
  uid_t other = geteuid() + 1;
  cr_assert_eq(fsafe_open(path, other, &suspicious, err, sizeof err), -1);
  cr_assert(suspicious);
  char want[128];
  snprintf(want, sizeof want, "is owned by uid %u, not by uid %u", (unsigned)geteuid(), (unsigned)other);
  cr_assert(strstr(err, want), "%s", err);
}

Test(cache_security, missing_entry_is_a_quiet_miss) {
  char hex[65], err[512], path[256];
  key_of("missing", hex);
  capture();
  expect_miss(hex);
  cr_assert_str_eq(captured(), "");
  entry_of(hex, path, sizeof path);
  bool suspicious = true;
  cr_assert_eq(fsafe_open(path, geteuid(), &suspicious, err, sizeof err), -1);
  cr_assert_not(suspicious);
}

Test(cache_security, group_writable_dir_is_made_private) {
  char hex[65];
  key_of("dir", hex);
  cr_assert_eq(mkdir(nvrtc_dir, 0700), 0);
  cr_assert_eq(chmod(nvrtc_dir, 0775), 0);
  capture();
  cache_put(hex, "code", 4, "");
  expect_hit(hex, "code", 4, "");
  const char *err = captured();
  struct stat st;
  cr_assert_eq(stat(nvrtc_dir, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0700, "the directory is %04o", st.st_mode & 07777);
  cr_assert(strstr(err, "was writable by group or others (mode 0775); it is now 0700"), "stderr: %s", err);
}

Test(cache_security, group_writable_cache_root_is_made_private) {
  char hex[65];
  key_of("root", hex);
  cr_assert_eq(chmod(root, 0770), 0);
  capture();
  cache_put(hex, "code", 4, "");
  expect_hit(hex, "code", 4, "");
  const char *err = captured();
  struct stat st;
  cr_assert_eq(stat(root, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0700, "the cache root is %04o", st.st_mode & 07777);
  cr_assert(strstr(err, "was writable by group or others (mode 0770); it is now 0700"), "stderr: %s", err);
}

Test(cache_security, cache_root_of_another_user_is_left_alone) {
  char err[512], want[128];
  cr_assert_eq(mkdir(nvrtc_dir, 0700), 0);
  cr_assert_eq(chmod(root, 0770), 0);
  uid_t other = geteuid() + 1;
  /* not other's root, so not changed; then nvrtc/ is not other's either */
  cr_assert_eq(fsafe_cache_check(root, "nvrtc", other, err, sizeof err), 1);
  snprintf(want, sizeof want, "nvrtc is owned by uid %u, not by uid %u", (unsigned)geteuid(), (unsigned)other);
  cr_assert(strstr(err, want), "%s", err);
  struct stat st;
  cr_assert_eq(stat(root, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0770, "a directory uid %u does not own was changed", (unsigned)other);
}

Test(cache_security, dir_check_without_fixing_refuses) {
  char err[512];
  cr_assert_eq(mkdir(nvrtc_dir, 0700), 0);
  cr_assert_eq(fsafe_dir_check(nvrtc_dir, geteuid(), false, err, sizeof err), 0, "%s", err);
  cr_assert_eq(chmod(nvrtc_dir, 0707), 0);
  cr_assert_eq(fsafe_dir_check(nvrtc_dir, geteuid(), false, err, sizeof err), 1);
  cr_assert(strstr(err, "is writable by group or others (mode 0707)"), "%s", err);
}

Test(cache_security, dir_of_another_user_is_refused) {
  char err[512], want[128];
  cr_assert_eq(mkdir(nvrtc_dir, 0700), 0);
  cr_assert_eq(chmod(nvrtc_dir, 0770), 0);
  uid_t other = geteuid() + 1;
  cr_assert_eq(fsafe_dir_check(nvrtc_dir, other, true, err, sizeof err), 1);
  snprintf(want, sizeof want, "is owned by uid %u, not by uid %u", (unsigned)geteuid(), (unsigned)other);
  cr_assert(strstr(err, want), "%s", err);
  struct stat st;
  cr_assert_eq(stat(nvrtc_dir, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0770, "another user's directory was changed");
}

Test(cache_security, dir_below_a_writable_parent_is_refused) {
  char open_dir[192], dir[256], err[512];
  snprintf(open_dir, sizeof open_dir, "%s/open", root);
  snprintf(dir, sizeof dir, "%s/cache", open_dir);
  cr_assert_eq(mkdir(open_dir, 0700), 0);
  cr_assert_eq(mkdir(dir, 0700), 0);
  cr_assert_eq(fsafe_dir_check(dir, geteuid(), true, err, sizeof err), 0, "%s", err);
  cr_assert_eq(chmod(open_dir, 0777), 0);
  cr_assert_eq(fsafe_dir_check(dir, geteuid(), true, err, sizeof err), 1);
  cr_assert(strstr(err, "which group or others may write"), "%s", err);
  cr_assert_eq(chmod(open_dir, 01777), 0); /* sticky, like /tmp */
  cr_assert_eq(fsafe_dir_check(dir, geteuid(), true, err, sizeof err), 0, "%s", err);
}

Test(cache_security, symlinked_dir_turns_the_cache_off) {
  char hex[65], elsewhere[128], listing[256];
  key_of("symlinked dir", hex);
  snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", root);
  cr_assert_eq(mkdir(elsewhere, 0700), 0);
  cr_assert_eq(symlink(elsewhere, nvrtc_dir), 0);
  capture();
  cache_put(hex, "code", 4, "");
  expect_miss(hex);
  const char *err = captured();
  cr_assert(strstr(err, "compile cache off") && strstr(err, "is a symbolic link"), "stderr: %s", err);
  list_dir(elsewhere, listing, sizeof listing);
  cr_assert_str_eq(listing, "", "an entry went through the symlink");
}

Test(cache_security, failed_write_leaves_no_entry) {
  char hex[65], path[256], listing[512];
  static char code[4096];
  key_of("failed write", hex);
  memset(code, 'z', sizeof code);
  cr_assert_eq(mkdir(nvrtc_dir, 0700), 0);
  /* the write stops with EFBIG part way through the entry */
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl = {1000, 1000};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
  cache_put(hex, code, sizeof code, "");
  entry_of(hex, path, sizeof path);
  cr_assert_neq(access(path, F_OK), 0, "a partial entry has the final name");
  list_dir(nvrtc_dir, listing, sizeof listing);
  cr_assert_str_eq(listing, "", "a temporary file was left behind");
  expect_miss(hex);
}

/* ---------------------------------------------------------------- the CPU backend */

/* sim_run must refuse so before loading it: the message has want, and no
 * dlopen error (which would mean the file was loaded). */
static void sim_refuses(const char *so, const char *want) {
  char err[2048];
  T2cSimLaunch l = {"k", {1, 1, 1}, 32, 0, NULL, 0, NULL, 0, 1};
  cr_assert_neq(sim_run(so, &l, err, sizeof err), 0);
  cr_assert(strstr(err, want), "message lacks \"%s\": %s", want, err);
}

static void touch(const char *path, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  cr_assert_geq(fd, 0, "%s", path);
  cr_assert_eq(write(fd, "not an ELF file", 15), 15);
  close(fd);
  cr_assert_eq(chmod(path, mode), 0);
}

Test(cache_security, sim_run_checks_before_loading) {
  char so[192], link[192], dir[192], inner[256];
  snprintf(so, sizeof so, "%s/k.so", root);
  touch(so, 0600);
  /* a private file passes the checks and reaches dlopen, which refuses it */
  sim_refuses(so, "cannot load");
  char err[2048];
  T2cSimLaunch l = {"k", {1, 1, 1}, 32, 0, NULL, 0, NULL, 0, 1};
  cr_assert_neq(sim_run(so, &l, err, sizeof err), 0);
  cr_assert_null(strstr(err, "symbolic link"), "%s", err);
  cr_assert_null(strstr(err, "writable"), "%s", err);
  snprintf(link, sizeof link, "%s/link.so", root);
  cr_assert_eq(symlink(so, link), 0);
  sim_refuses(link, "link.so is a symbolic link");
  cr_assert_eq(chmod(so, 0620), 0);
  sim_refuses(so, "k.so is writable by group or others (mode 0620)");
  snprintf(dir, sizeof dir, "%s/shared", root);
  snprintf(inner, sizeof inner, "%s/k.so", dir);
  cr_assert_eq(mkdir(dir, 0700), 0);
  touch(inner, 0600);
  cr_assert_eq(chmod(dir, 0777), 0);
  sim_refuses(inner, "shared is writable by group or others (mode 0777)");
}

/* The runtime objects (.t2c_sim_runtime-*.o) in dir: their count, and the
 * path of the last one. */
static int runtime_objects(const char *dir, char *last, size_t n) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int count = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (!strncmp(e->d_name, ".t2c_sim_runtime-", 17) && strstr(e->d_name, ".o") &&
        !strstr(e->d_name, ".tmp")) {
      snprintf(last, n, "%s/%s", dir, e->d_name);
      count++;
    }
  closedir(d);
  return count;
}

Test(cache_security, sim_build_rebuilds_a_damaged_runtime_object, .timeout = 600) {
  char cwd[1024], rt[1100], sim[1100], cu[256], so[256], obj[512], err[8192];
  cr_assert_not_null(getcwd(cwd, sizeof cwd));
  snprintf(rt, sizeof rt, "%s/rt", cwd);
  snprintf(sim, sizeof sim, "%s/rt/sim", cwd);
  cr_assert_eq(access("rt/sim/runtime.cpp", R_OK), 0, "run from the repository root");
  snprintf(cu, sizeof cu, "%s/empty.cu", root);
  snprintf(so, sizeof so, "%s/empty.so", root);
  FILE *f = fopen(cu, "w");
  cr_assert_not_null(f);
  fputs("#define TILE2CU_SIM 1\n#include <tile2cu/rt.cuh>\n", f);
  fclose(f);
  cr_assert_eq(sim_build(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(runtime_objects(root, obj, sizeof obj), 1);
  size_t good = file_size(obj);
  cr_assert_eq(truncate(obj, (off_t)(good / 2)), 0);
  /* linking the half object would fail; it must be rebuilt instead */
  cr_assert_eq(sim_build(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(runtime_objects(root, obj, sizeof obj), 1, "the damaged object was kept");
  cr_assert_eq(file_size(obj), good);
  T2cSimLaunch l = {"nope", {1, 1, 1}, 32, 0, NULL, 0, NULL, 0, 1};
  cr_assert_neq(sim_run(so, &l, err, sizeof err), 0);
  cr_assert(strstr(err, "unknown kernel 'nope'"), "the object did not load: %s", err);
}

/* The kept kernel objects (.t2c_sim_kernel-*.so) in dir: their count, and the
 * path of the last one. */
static int kept_kernels(const char *dir, char *last, size_t n) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int count = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (!strncmp(e->d_name, ".t2c_sim_kernel-", 16) && !strstr(e->d_name, ".tmp")) {
      if (last) snprintf(last, n, "%s/%s", dir, e->d_name);
      count++;
    }
  closedir(d);
  return count;
}

static void write_cu(const char *cu, const char *extra) {
  FILE *f = fopen(cu, "w");
  cr_assert_not_null(f);
  fprintf(f, "#define TILE2CU_SIM 1\n#include <tile2cu/rt.cuh>\n%s", extra);
  fclose(f);
}

/* sim_run loads so: it reaches the kernel lookup, which fails for "nope". */
static void loads(const char *so) {
  char err[2048];
  T2cSimLaunch l = {"nope", {1, 1, 1}, 32, 0, NULL, 0, NULL, 0, 1};
  cr_assert_neq(sim_run(so, &l, err, sizeof err), 0);
  cr_assert(strstr(err, "unknown kernel 'nope'"), "the object did not load: %s", err);
}

/* Lines in path (the compiler wrapper's log: one per compile). */
static int lines_in(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int n = 0;
  for (int c; (c = getc(f)) != EOF;) n += c == '\n';
  fclose(f);
  return n;
}

Test(cache_security, sim_build_kept_reuses_only_sound_objects_and_prunes, .timeout = 600) {
  char cwd[1024], rt[1100], sim[1100], cu[256], so[256], so2[256], kept[512], err[8192];
  char wrap[256], calls[256], cxx[700];
  cr_assert_not_null(getcwd(cwd, sizeof cwd));
  snprintf(rt, sizeof rt, "%s/rt", cwd);
  snprintf(sim, sizeof sim, "%s/rt/sim", cwd);
  cr_assert_eq(access("rt/sim/runtime.cpp", R_OK), 0, "run from the repository root");
  /* the compiler, through a wrapper that counts its runs */
  const char *cxx0 = getenv("CXX");
  char saved[256] = "";
  if (cxx0) snprintf(saved, sizeof saved, "%s", cxx0);
  snprintf(wrap, sizeof wrap, "%s/cxx.sh", root);
  snprintf(calls, sizeof calls, "%s/calls", root);
  FILE *w = fopen(wrap, "w");
  cr_assert_not_null(w);
  fprintf(w, "echo run >> '%s'\nexec %s \"$@\"\n", calls, cxx0 && *cxx0 ? cxx0 : "g++");
  fclose(w);
  snprintf(cxx, sizeof cxx, "sh %s", wrap);
  setenv("CXX", cxx, 1);
  snprintf(cu, sizeof cu, "%s/k.cu", root);
  snprintf(so, sizeof so, "%s/run-1.so", root);
  snprintf(so2, sizeof so2, "%s/run-2.so", root);
  write_cu(cu, "");
  cr_assert_eq(sim_build_kept(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 3, "the runtime, the precompiled header and the kernel");
  cr_assert_eq(kept_kernels(root, kept, sizeof kept), 1);
  loads(so);
  cr_assert_eq(unlink(so), 0);
  cr_assert_eq(kept_kernels(root, NULL, 0), 1, "so is a link; the kept object stays");
  /* the same .cu again compiles nothing */
  cr_assert_eq(sim_build_kept(cu, so2, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 3, "the same .cu was compiled again");
  loads(so2);
  /* a damaged kept object is not linked: it is removed and built again */
  size_t good = file_size(kept);
  cr_assert_eq(truncate(kept, (off_t)(good / 2)), 0);
  cr_assert_eq(sim_build_kept(cu, so2, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 4, "the damaged object was not rebuilt");
  cr_assert_eq(kept_kernels(root, kept, sizeof kept), 1, "the damaged object was kept");
  cr_assert_eq(file_size(kept), good);
  loads(so2);
  /* a group-writable one too */
  cr_assert_eq(chmod(kept, 0660), 0);
  cr_assert_eq(sim_build_kept(cu, so2, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 5, "the group-writable object was not rebuilt");
  cr_assert_eq(kept_kernels(root, kept, sizeof kept), 1);
  struct stat st;
  cr_assert_eq(stat(kept, &st), 0);
  cr_assert_eq(st.st_mode & 022, 0, "the group-writable object was kept");
  loads(so2);
  /* another .cu is another object */
  write_cu(cu, "// another\n");
  cr_assert_eq(sim_build_kept(cu, so2, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 6);
  cr_assert_eq(kept_kernels(root, NULL, 0), 2);
  /* past SIM_KEPT_KERNELS the least recently used go: 300 old ones, then a build */
  for (int i = 0; i < 300; i++) {
    char old[256];
    snprintf(old, sizeof old, "%s/.t2c_sim_kernel-%016x-%016x.so", root, i, i);
    touch(old, 0600);
    struct timespec t[2] = {{1000 + i, 0}, {1000 + i, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, old, t, 0), 0);
  }
  write_cu(cu, "// a third\n");
  cr_assert_eq(sim_build_kept(cu, so2, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(kept_kernels(root, NULL, 0), SIM_KEPT_KERNELS);
  char first[256], last[256];
  snprintf(first, sizeof first, "%s/.t2c_sim_kernel-%016x-%016x.so", root, 0, 0);
  snprintf(last, sizeof last, "%s/.t2c_sim_kernel-%016x-%016x.so", root, 299, 299);
  cr_assert_neq(access(first, F_OK), 0, "the least recently used was kept");
  cr_assert_eq(access(last, F_OK), 0, "a more recently used one was pruned");
  /* the recent real ones stay: the first .cu compiles nothing */
  write_cu(cu, "");
  cr_assert_eq(sim_build_kept(cu, so2, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 7, "a recently used object was pruned");
  loads(so2);
  if (cxx0) setenv("CXX", saved, 1);
  else unsetenv("CXX");
}

/* The precompiled runtime headers (.t2c_sim_pch-*.h.gch) in dir: their count,
 * and the path of the last one. */
static int pch_files(const char *dir, char *last, size_t n) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int count = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (!strncmp(e->d_name, ".t2c_sim_pch-", 13) && len > 6 && !strcmp(e->d_name + len - 6, ".h.gch")) {
      if (last) snprintf(last, n, "%s/%s", dir, e->d_name);
      count++;
    }
  }
  closedir(d);
  return count;
}

/* Lines of path (the wrapper's log of its arguments) that contain what. */
static int lines_with(const char *path, const char *what) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[8192];
  int n = 0;
  while (fgets(line, sizeof line, f)) n += strstr(line, what) != NULL;
  fclose(f);
  return n;
}

/* CXX becomes a wrapper that logs its arguments to calls, one line a run, and
 * fails the precompiling of a header when fail_pch; the old CXX into saved. */
static void log_compiler(const char *wrap, const char *calls, bool fail_pch, char *saved, size_t n) {
  const char *cxx0 = getenv("CXX");
  snprintf(saved, n, "%s", cxx0 ? cxx0 : "");
  FILE *w = fopen(wrap, "w");
  cr_assert_not_null(w);
  fprintf(w, "echo \"$*\" >> '%s'\n", calls);
  if (fail_pch) fprintf(w, "case \"$*\" in *c++-header*) echo no precompiled headers >&2; exit 1;; esac\n");
  fprintf(w, "exec %s \"$@\"\n", cxx0 && *cxx0 ? cxx0 : "g++");
  fclose(w);
  char cxx[512];
  snprintf(cxx, sizeof cxx, "sh %s", wrap);
  setenv("CXX", cxx, 1);
}

static void restore_compiler(const char *saved) {
  if (*saved) setenv("CXX", saved, 1);
  else unsetenv("CXX");
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

/* The paths the two tests below use: the runtime's directories, the compiler
 * wrapper and its log, a .cu and its shared object. */
typedef struct PchPaths {
  char rt[1100], sim[1100], wrap[256], calls[256], cu[256], so[256];
} PchPaths;

static void pch_paths(PchPaths *p) {
  char cwd[1024];
  cr_assert_not_null(getcwd(cwd, sizeof cwd));
  snprintf(p->rt, sizeof p->rt, "%s/rt", cwd);
  snprintf(p->sim, sizeof p->sim, "%s/rt/sim", cwd);
  cr_assert_eq(access("rt/sim/runtime.cpp", R_OK), 0, "run from the repository root");
  snprintf(p->wrap, sizeof p->wrap, "%s/cxx.sh", root);
  snprintf(p->calls, sizeof p->calls, "%s/calls", root);
  snprintf(p->cu, sizeof p->cu, "%s/k.cu", root);
  snprintf(p->so, sizeof p->so, "%s/run-1.so", root);
}

Test(cache_security, sim_pch_is_built_once_checked_and_pruned, .timeout = 600) {
  PchPaths p;
  pch_paths(&p);
  const char *rt = p.rt, *sim = p.sim, *cu = p.cu, *so = p.so, *calls = p.calls;
  char gch[512], h[512], err[8192], saved[512];
  log_compiler(p.wrap, calls, false, saved, sizeof saved);

  /* the first build: the runtime, the header, then the kernel with it */
  write_text(cu, "// Generated by a test\n\n#define TILE2CU_SIM 1\n#include <tile2cu/rt.cuh>\n");
  cr_assert_eq(sim_build_kept(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 3);
  cr_assert_eq(lines_with(calls, "c++-header"), 1);
  cr_assert_eq(lines_with(calls, "-include"), 1, "the kernel was compiled without the header");
  cr_assert_eq(pch_files(root, gch, sizeof gch), 1);
  snprintf(h, sizeof h, "%.*s", (int)(strlen(gch) - 4), gch);
  cr_assert_eq(access(h, R_OK), 0, "no .h next to the .gch");
  loads(so);
  size_t good = file_size(gch);

  /* another kernel takes the same header */
  write_cu(cu, "// two\n");
  cr_assert_eq(sim_build_kept(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 4);
  cr_assert_eq(lines_with(calls, "c++-header"), 1, "the header was built again");
  cr_assert_eq(lines_with(calls, "-include"), 2);
  loads(so);

  /* a .cu with anything else before the header: no -include */
  write_text(cu, "#define T2C_SOMETHING 1\n#define TILE2CU_SIM 1\n#include <tile2cu/rt.cuh>\n");
  cr_assert_eq(sim_build_kept(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_in(calls), 5);
  cr_assert_eq(lines_with(calls, "-include"), 2, "a .cu that defines a macro first took the header");
  loads(so);

  /* a damaged header is not used: it is removed and built again */
  cr_assert_eq(truncate(gch, (off_t)(good / 2)), 0);
  write_cu(cu, "// three\n");
  cr_assert_eq(sim_build_kept(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_with(calls, "c++-header"), 2, "the damaged header was not rebuilt");
  cr_assert_eq(lines_with(calls, "-include"), 3);
  cr_assert_eq(pch_files(root, gch, sizeof gch), 1, "the damaged header was kept");
  cr_assert_geq(file_size(gch), good / 2 + 1);
  loads(so);

  /* its .h gone: written again, nothing rebuilt */
  snprintf(h, sizeof h, "%.*s", (int)(strlen(gch) - 4), gch);
  cr_assert_eq(unlink(h), 0);
  write_cu(cu, "// four\n");
  cr_assert_eq(sim_build_kept(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_with(calls, "c++-header"), 2);
  cr_assert_eq(lines_with(calls, "-include"), 4);
  cr_assert_eq(access(h, R_OK), 0, "the .h was not written again");
  loads(so);

  /* a new header removes the others not used for a day, and only those */
  char old_gch[256], old_h[256], recent_gch[256];
  snprintf(old_gch, sizeof old_gch, "%s/.t2c_sim_pch-%016x-%016x.h.gch", root, 1, 1);
  snprintf(old_h, sizeof old_h, "%s/.t2c_sim_pch-%016x-%016x.h", root, 1, 1);
  snprintf(recent_gch, sizeof recent_gch, "%s/.t2c_sim_pch-%016x-%016x.h.gch", root, 2, 2);
  touch(old_gch, 0600);
  touch(old_h, 0600);
  touch(recent_gch, 0600);
  struct timespec t[2] = {{1000, 0}, {1000, 0}};
  cr_assert_eq(utimensat(AT_FDCWD, old_gch, t, 0), 0);
  cr_assert_eq(truncate(gch, 1), 0); /* so that the next build makes a new one */
  write_cu(cu, "// five\n");
  cr_assert_eq(sim_build_kept(cu, so, rt, sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_with(calls, "c++-header"), 3);
  cr_assert_neq(access(old_gch, F_OK), 0, "an old header was kept");
  cr_assert_neq(access(old_h, F_OK), 0, "an old header's .h was kept");
  cr_assert_eq(access(recent_gch, F_OK), 0, "a recently used header was removed");
  loads(so);
  restore_compiler(saved);
}

Test(cache_security, sim_build_without_a_precompiled_header, .timeout = 600) {
  PchPaths p;
  pch_paths(&p);
  char err[8192], saved[512];
  /* a compiler that cannot precompile a header: the kernel builds without one */
  log_compiler(p.wrap, p.calls, true, saved, sizeof saved);
  write_cu(p.cu, "");
  cr_assert_eq(sim_build(p.cu, p.so, p.rt, p.sim, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lines_with(p.calls, "c++-header"), 1);
  cr_assert_eq(lines_with(p.calls, "-include"), 0);
  cr_assert_eq(pch_files(root, NULL, 0), 0, "a failed header was kept");
  loads(p.so);
  restore_compiler(saved);
}
