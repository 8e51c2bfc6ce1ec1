/* simrun.c: compile a sim-mode .cu into a shared object, and run it.
 *
 * The runtime (runtime.cpp) is compiled once into an object cached next to
 * the shared object, under a name that hashes the runtime's sources and the
 * compiler command, and then the object's own bytes:
 * .t2c_sim_runtime-INPUTS-CONTENT.o. Concurrent builds write it to a
 * temporary name and rename it into place; a cached object is used only when
 * its bytes still hash to its name, and is rebuilt otherwise. Each kernel
 * file is then one compile and link:
 *
 *   $CXX -std=c++17 -Og -shared -fPIC -fvisibility=hidden -pthread
 *        -I rt_dir -I sim_dir -I $CUDA_HOME/include [-include PCH.h] -x c++ FILE.cu
 *        -x none RUNTIME.o -o SO
 *
 * The runtime's headers (tile2cu/rt.cuh, which a sim-mode .cu includes
 * first, after `#define TILE2CU_SIM 1`, and the CUDA half and bf16 headers it
 * includes) take about 0.7 s of every compile. They are precompiled once,
 * with the kernels' own flags, into .t2c_sim_pch-INPUTS-CONTENT.h.gch next to
 * a two-line .t2c_sim_pch-INPUTS-CONTENT.h, and a kernel whose .cu starts
 * with those two lines is compiled with `-include` of that .h: the compiler
 * takes the .gch beside it (g++ and clang++ both look for one). INPUTS hashes
 * the runtime's headers, their directories and the command; when one is
 * built, any other not used for a day goes. Without one
 * (it failed to build, or went meanwhile) the kernel compiles without it.
 *
 * sim_build_kept keeps the object in the directory as
 * .t2c_sim_kernel-INPUTS-CONTENT.so, INPUTS hashing the .cu, the headers it
 * includes, the runtime object's name and the command, CONTENT as above,
 * and links the requested path to it: the same .cu again compiles nothing.
 * The SIM_KEPT_KERNELS most recently used (mtime, touched on use) stay.
 *
 * The compiler's output is captured and becomes the error message.
 *
 * Nothing is built in or loaded from a place another user could change: the
 * directory must pass fsafe_dir_check, a cached runtime object and the shared
 * object must pass fsafe_open (common/fsafe.c), and the shared object is
 * loaded through the descriptor that was checked. The same checks guard the
 * NVRTC cache (nvrtc_driver/cache.c) and the cache directory of `tile2cu run`.
 */
#include "simrun.h"

#include "../../common/fsafe.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

unsigned long long sim_tmp_serial(void) {
  static unsigned long long n;
  return __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED);
}

extern char **environ;

enum { MAX_ARGS = 64 };

typedef struct Argv {
  char *v[MAX_ARGS + 1];
  int n;
  char words[1024]; /* the split $CXX */
} Argv;

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------ building */

static void add(Argv *a, const char *s) {
  if (a->n < MAX_ARGS) a->v[a->n++] = (char *)s;
  a->v[a->n] = NULL;
}

/* $CXX may hold words ("ccache g++"); split it on blanks. */
static void add_cxx(Argv *a) {
  const char *cxx = getenv("CXX");
  snprintf(a->words, sizeof a->words, "%s", cxx && *cxx ? cxx : "g++");
  for (char *w = strtok(a->words, " \t"); w; w = strtok(NULL, " \t")) add(a, w);
}

static const char *cuda_include(char *buf, size_t n) {
  const char *home = getenv("CUDA_HOME");
  snprintf(buf, n, "-I%s/include", home && *home ? home : "/usr/local/cuda");
  return buf;
}

/* Runs argv, waits for it, and on failure puts the command and its output in err. */
static int run_cmd(Argv *a, char *err, size_t errlen) {
  int fd[2];
  if (pipe(fd) != 0) {
    seterr(err, errlen, "sim build: pipe: %s", strerror(errno));
    return 1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  pid_t pid;
  int rc = posix_spawnp(&pid, a->v[0], &fa, NULL, a->v, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (rc != 0) {
    close(fd[0]);
    seterr(err, errlen, "sim build: cannot run '%s': %s", a->v[0], strerror(rc));
    return 1;
  }
  char out[8192];
  size_t len = 0;
  ssize_t k;
  while ((k = read(fd[0], out + len, sizeof out - 1 - len)) > 0 || (k < 0 && errno == EINTR))
    if (k > 0 && (len += (size_t)k) == sizeof out - 1) {
      char sink[4096]; /* keep draining so the compiler never blocks */
      while (read(fd[0], sink, sizeof sink) > 0) {}
      break;
    }
  out[len] = 0;
  close(fd[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  char cmd[2048] = "";
  for (int i = 0; i < a->n; i++) {
    size_t l = strlen(cmd);
    snprintf(cmd + l, sizeof cmd - l, "%s%s", i ? " " : "", a->v[i]);
  }
  seterr(err, errlen, "sim build failed: %s\n%s", cmd, out);
  return 1;
}

/* FNV-1a over a file's bytes; a missing file hashes as its name. */
static uint64_t hash_file(uint64_t h, const char *path) {
  FILE *f = fopen(path, "rb");
  int c;
  if (!f) {
    for (const char *p = path; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return h;
  }
  while ((c = getc(f)) != EOF) h = (h ^ (unsigned char)c) * 0x100000001b3ULL;
  fclose(f);
  return h;
}

static uint64_t hash_str(uint64_t h, const char *s) {
  for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

static void dir_of(const char *path, char *buf, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(buf, n, ".");
  else snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

/* FNV-1a over what is left of fd, in 8-byte words of the host's byte order (the
 * last one zero-padded; the cache is the host's own) and then its length: the
 * precompiled header is 34 MB, which byte by byte took about 50 ms of every
 * kernel's build. false on a read error. */
static bool hash_fd(int fd, uint64_t *h) {
  unsigned char buf[65536];
  uint64_t len = 0;
  *h = 0xcbf29ce484222325ULL;
  for (;;) {
    size_t n = 0; /* a full buffer, or what is left: the words do not depend on read()'s sizes */
    ssize_t k;
    while (n < sizeof buf && (k = read(fd, buf + n, sizeof buf - n)) != 0) {
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) return false;
      n += (size_t)k;
    }
    if (n == 0) break;
    size_t i = 0;
    for (uint64_t w; i + 8 <= n; i += 8) {
      memcpy(&w, buf + i, 8);
      *h = (*h ^ w) * 0x100000001b3ULL;
    }
    if (i < n) {
      uint64_t w = 0;
      memcpy(&w, buf + i, n - i);
      *h = (*h ^ w) * 0x100000001b3ULL;
    }
    len += n;
    if (n < sizeof buf) break;
  }
  *h = (*h ^ len) * 0x100000001b3ULL;
  return true;
}

/* A cached object in dir for the inputs' hash prefix (".t2c_sim_runtime-INPUTS-",
 * ".t2c_sim_kernel-INPUTS-") and suffix (".o", ".so"): one that is private
 * (fsafe_open) and whose bytes hash to the CONTENT part of its name. Others
 * are deleted: a suspicious one with a note on stderr, a corrupt one
 * silently. touch: the one found gets the current mtime (it orders the
 * pruning of kernel objects). */
static bool find_cached(const char *dir, const char *prefix, const char *suffix, bool touch, char *obj, size_t n) {
  DIR *d = opendir(dir);
  if (!d) return false;
  size_t plen = strlen(prefix);
  bool found = false;
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    unsigned long long want;
    char tail[8];
    if (strncmp(e->d_name, prefix, plen) != 0 || strlen(e->d_name) != plen + 16 + strlen(suffix) ||
        sscanf(e->d_name + plen, "%16llx%7s", &want, tail) != 2 || strcmp(tail, suffix) != 0)
      continue;
    char path[4400], why[4600];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    bool suspicious;
    uint64_t got;
    int fd = fsafe_open(path, geteuid(), &suspicious, why, sizeof why);
    if (fd < 0) {
      if (suspicious) {
        fprintf(stderr, "tile2cu: removing %s from the cache\n", why);
        unlink(path);
      }
      continue;
    }
    found = hash_fd(fd, &got) && got == want;
    if (found && touch) futimens(fd, NULL);
    close(fd);
    if (found) snprintf(obj, n, "%s", path);
    else unlink(path); /* corrupt or truncated: rebuilt */
  }
  closedir(d);
  return found;
}

/* Renames the object just built at tmp into dir as PREFIX-CONTENT.SUFFIX
 * (CONTENT: the hash of its bytes), that path into out. */
static int keep(const char *tmp, const char *dir, const char *prefix, const char *suffix, char *out, size_t n,
                char *err, size_t errlen) {
  bool suspicious;
  uint64_t content;
  int fd = fsafe_open(tmp, geteuid(), &suspicious, err, errlen);
  bool hashed = fd >= 0 && hash_fd(fd, &content);
  if (fd >= 0) close(fd);
  if (!hashed) {
    if (fd >= 0) seterr(err, errlen, "sim build: cannot read %s: %s", tmp, strerror(errno));
    unlink(tmp);
    return 1;
  }
  snprintf(out, n, "%s/%s%016llx%s", dir, prefix, (unsigned long long)content, suffix);
  if (rename(tmp, out) != 0) {
    seterr(err, errlen, "sim build: cannot rename %s to %s: %s", tmp, out, strerror(errno));
    unlink(tmp);
    return 1;
  }
  return 0;
}

/* The cached runtime object next to so_path; compiled when missing. */
static int runtime_object(const char *so_path, const char *sim_dir, char *obj, size_t n,
                          char *err, size_t errlen) {
  static const char *const srcs[] = {"runtime.cpp", "tile2cu_sim.h", "t2c_sim_api.h"};
  char path[4096], dir[4096], inc[4200], cuda[4200], src[4200], tmp[4500], prefix[64];
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
    snprintf(path, sizeof path, "%s/%s", sim_dir, srcs[i]);
    h = hash_file(h, path);
  }
  h = hash_str(h, getenv("CXX"));
  h = hash_str(h, cuda_include(cuda, sizeof cuda));
  dir_of(so_path, dir, sizeof dir);
  snprintf(prefix, sizeof prefix, ".t2c_sim_runtime-%016llx-", (unsigned long long)h);
  if (find_cached(dir, prefix, ".o", false, obj, n)) return 0;

  snprintf(inc, sizeof inc, "-I%s", sim_dir);
  snprintf(src, sizeof src, "%s/runtime.cpp", sim_dir);
  snprintf(tmp, sizeof tmp, "%s/%s%ld.%llu.tmp", dir, prefix, (long)getpid(), sim_tmp_serial());
  Argv a = {.n = 0};
  add_cxx(&a);
  const char *flags[] = {"-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden", "-pthread", "-w", "-c"};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) add(&a, flags[i]);
  add(&a, inc);
  add(&a, cuda);
  add(&a, src);
  add(&a, "-o");
  add(&a, tmp);
  if (run_cmd(&a, err, errlen)) {
    unlink(tmp);
    return 1;
  }
  return keep(tmp, dir, prefix, ".o", obj, n, err, errlen);
}

/* A kernel's object: the command without its file names (part of the cached objects' key).
 * -Og: a GEMM's or attention's kernel compiles in about half the time of -O1's (g++ 12:
 * gemm_f16 0.9 s against 2.1, attention_f16 1.1 against 2.4) and a small one in the same
 * time; it runs 1.15 to 1.3 times as long (softmax at 2048 x 4096, a 512^3 f16 GEMM), and the
 * numerical suite, which compiles some 250 kernels, takes 245 s instead of 390 (2026-12-07).
 * -O0 compiles small kernels slower than -O1 (every rt.cuh helper emitted out of line). */
static const char *const kernel_flags[] = {"-std=c++17", "-Og", "-shared", "-fPIC", "-fvisibility=hidden", "-pthread"};

/* A kernel's compile command up to its input: $CXX, kernel_flags (without -shared
 * when !link: the precompiled header is compiled, not linked) and the include
 * directories, whose texts live in the KernelCmd. */
typedef struct KernelCmd {
  Argv a;
  char rt_inc[4200], sim_inc[4200], cuda[4200];
} KernelCmd;

static void kernel_cmd(KernelCmd *c, const char *rt_dir, const char *sim_dir, bool link) {
  snprintf(c->rt_inc, sizeof c->rt_inc, "-I%s", rt_dir);
  snprintf(c->sim_inc, sizeof c->sim_inc, "-I%s", sim_dir);
  c->a.n = 0;
  add_cxx(&c->a);
  for (size_t i = 0; i < sizeof kernel_flags / sizeof *kernel_flags; i++)
    if (link || strcmp(kernel_flags[i], "-shared") != 0) add(&c->a, kernel_flags[i]);
  add(&c->a, c->rt_inc);
  add(&c->a, c->sim_inc);
  add(&c->a, cuda_include(c->cuda, sizeof c->cuda));
}

/* What a kernel's build depends on besides its .cu, hashed on from seed: the
 * command, the runtime's headers and the runtime object (its name hashes its
 * sources and bytes). */
static uint64_t hash_kernel_inputs(const char *seed, const char *rt_dir, const char *obj) {
  char path[4400];
  uint64_t h = hash_str(0xcbf29ce484222325ULL, seed);
  for (size_t i = 0; i < sizeof kernel_flags / sizeof *kernel_flags; i++) h = hash_str(h, kernel_flags[i]);
  h = hash_str(h, getenv("CXX"));
  h = hash_str(h, cuda_include(path, sizeof path));
  static const char *const hdrs[] = {"tile2cu/rt.cuh", "tile2cu/tma_host.h"};
  for (size_t i = 0; i < sizeof hdrs / sizeof *hdrs; i++) {
    snprintf(path, sizeof path, "%s/%s", rt_dir, hdrs[i]);
    h = hash_file(h, path);
  }
  return hash_str(h, strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj);
}

/* ------------------------------------------------------------ the precompiled runtime header */

#define PCH_PREFIX ".t2c_sim_pch-"
/* what a sim-mode .cu starts with, after its comment lines; the header precompiled */
static const char pch_text[] = "#define TILE2CU_SIM 1\n#include <tile2cu/rt.cuh>\n";
enum { PCH_UNUSED_SECONDS = 24 * 3600 };

/* Whether cu_path starts, after lines of // comments and blank lines, with pch_text:
 * then nothing before the header could change what it means. */
static bool starts_with_runtime(const char *cu_path) {
  char buf[8192];
  FILE *f = fopen(cu_path, "rb");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = buf;
  while (*p == '\n' || (p[0] == '/' && p[1] == '/')) {
    const char *nl = strchr(p, '\n');
    if (!nl) return false;
    p = nl + 1;
  }
  return strncmp(p, pch_text, strlen(pch_text)) == 0;
}

/* Writes text to path through a temporary name in the same directory. */
static bool write_file(const char *path, const char *text) {
  char tmp[4600];
  snprintf(tmp, sizeof tmp, "%s.%ld.%llu.tmp", path, (long)getpid(), sim_tmp_serial());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  size_t len = strlen(text);
  bool ok = write(fd, text, len) == (ssize_t)len;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return false;
  }
  return true;
}

/* Whether path is a private file (fsafe_open) holding exactly text. */
static bool holds(const char *path, const char *text) {
  char why[4600], buf[256];
  bool suspicious;
  int fd = fsafe_open(path, geteuid(), &suspicious, why, sizeof why);
  if (fd < 0) return false;
  ssize_t k = read(fd, buf, sizeof buf - 1);
  close(fd);
  return k == (ssize_t)strlen(text) && memcmp(buf, text, (size_t)k) == 0;
}

/* Removes the precompiled headers in dir other than keep (a path) that no
 * build has used for PCH_UNUSED_SECONDS (their mtime: find_cached touches the
 * one it finds), with their .h: those of other INPUTS, and a twin that a
 * concurrent build made of the same. */
static void prune_pch(const char *dir, const char *keep) {
  const char *kept = strrchr(keep, '/') ? strrchr(keep, '/') + 1 : keep;
  DIR *d = opendir(dir);
  if (!d) return;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct dirent *e;
  while ((e = readdir(d))) {
    struct stat st;
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, PCH_PREFIX, strlen(PCH_PREFIX)) != 0 || !strcmp(e->d_name, kept) ||
        len < 7 || strcmp(e->d_name + len - 6, ".h.gch") != 0 ||
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        now.tv_sec - st.st_mtim.tv_sec < PCH_UNUSED_SECONDS)
      continue;
    char h[256];
    snprintf(h, sizeof h, "%.*s", (int)(len - 4), e->d_name);
    unlinkat(dirfd(d), e->d_name, 0);
    unlinkat(dirfd(d), h, 0);
  }
  closedir(d);
}

/* The precompiled runtime header for kernels built in dir: its .h into h,
 * built when missing. False when there is none (then kernels compile
 * without it; nothing is reported). obj: the runtime object, whose name
 * hashes the sim headers rt.cuh includes. */
static bool runtime_pch(const char *dir, const char *obj, const char *rt_dir, const char *sim_dir, char *h,
                        size_t n) {
  char prefix[64], gch[4500], tmp[4600], tmp_h[4500], err[512];
  uint64_t x = hash_kernel_inputs("tile2cu sim pch 1", rt_dir, obj);
  x = hash_str(hash_str(hash_str(x, pch_text), rt_dir), sim_dir);
  snprintf(prefix, sizeof prefix, PCH_PREFIX "%016llx-", (unsigned long long)x);
  if (!find_cached(dir, prefix, ".h.gch", true, gch, sizeof gch)) {
    /* compiled from a temporary .h; the .gch does not depend on the .h's name */
    snprintf(tmp_h, sizeof tmp_h, "%s/%s%ld.%llu.tmp.h", dir, prefix, (long)getpid(), sim_tmp_serial());
    snprintf(tmp, sizeof tmp, "%s.gch", tmp_h);
    if (!write_file(tmp_h, pch_text)) return false;
    KernelCmd c;
    kernel_cmd(&c, rt_dir, sim_dir, false);
    add(&c.a, "-x");
    add(&c.a, "c++-header");
    add(&c.a, tmp_h);
    add(&c.a, "-o");
    add(&c.a, tmp);
    bool built = run_cmd(&c.a, err, sizeof err) == 0;
    unlink(tmp_h);
    if (!built) {
      unlink(tmp);
      return false;
    }
    if (keep(tmp, dir, prefix, ".h.gch", gch, sizeof gch, err, sizeof err)) return false;
    prune_pch(dir, gch);
  }
  /* its .h: the same name without .gch */
  size_t len = strlen(gch);
  snprintf(h, n, "%.*s", (int)(len - 4), gch);
  return holds(h, pch_text) || write_file(h, pch_text);
}

/* Compiles cu_path, linked with the runtime object obj, into out; with
 * `-include pch` when pch is not NULL. */
static int compile_with(const char *cu_path, const char *out, const char *obj, const char *pch, const char *rt_dir,
                        const char *sim_dir, char *err, size_t errlen) {
  KernelCmd c;
  kernel_cmd(&c, rt_dir, sim_dir, true);
  Argv *a = &c.a;
  if (pch) {
    add(a, "-include");
    add(a, pch);
  }
  add(a, "-x");
  add(a, "c++");
  add(a, cu_path);
  add(a, "-x");
  add(a, "none");
  add(a, obj);
  add(a, "-o");
  add(a, out);
  if (run_cmd(a, err, errlen)) {
    unlink(out);
    return 1;
  }
  return 0;
}

/* Compiles cu_path, linked with the runtime object obj, into out: with the
 * precompiled runtime header when the .cu starts as one from tile2cu --sim
 * does, and again without it when that failed because the header has gone
 * meanwhile (removed by another process). */
static int compile_kernel(const char *cu_path, const char *out, const char *obj, const char *rt_dir,
                          const char *sim_dir, char *err, size_t errlen) {
  char dir[4096], pch[4500];
  dir_of(out, dir, sizeof dir);
  if (!starts_with_runtime(cu_path) || !runtime_pch(dir, obj, rt_dir, sim_dir, pch, sizeof pch))
    return compile_with(cu_path, out, obj, NULL, rt_dir, sim_dir, err, errlen);
  if (compile_with(cu_path, out, obj, pch, rt_dir, sim_dir, err, errlen) == 0) return 0;
  char gch[4600];
  snprintf(gch, sizeof gch, "%s.gch", pch);
  if (access(pch, F_OK) == 0 && access(gch, F_OK) == 0) return 1;
  return compile_with(cu_path, out, obj, NULL, rt_dir, sim_dir, err, errlen);
}

/* The directory so_path goes in, checked, and the runtime object for it. */
static int prepare(const char *so_path, const char *sim_dir, char *dir, size_t dn, char *obj, size_t on, char *err,
                   size_t errlen) {
  char why[4400];
  dir_of(so_path, dir, dn);
  if (fsafe_dir_check(dir, geteuid(), false, why, sizeof why)) {
    seterr(err, errlen, "sim build: will not build in %s: %s", dir, why);
    return 1;
  }
  return runtime_object(so_path, sim_dir, obj, on, err, errlen);
}

/* Compiles cu_path into a temporary name and renames it to so_path: a new
 * inode, so a process that still maps the old object is unaffected. */
static int build_private(const char *cu_path, const char *so_path, const char *obj, const char *rt_dir,
                         const char *sim_dir, char *err, size_t errlen) {
  char tmp[4500];
  snprintf(tmp, sizeof tmp, "%s.%ld.%llu.tmp", so_path, (long)getpid(), sim_tmp_serial());
  if (compile_kernel(cu_path, tmp, obj, rt_dir, sim_dir, err, errlen)) return 1;
  if (rename(tmp, so_path) != 0) {
    seterr(err, errlen, "sim build: cannot rename %s to %s: %s", tmp, so_path, strerror(errno));
    unlink(tmp);
    return 1;
  }
  return 0;
}

int sim_build(const char *cu_path, const char *so_path, const char *rt_dir, const char *sim_dir,
              char *err, size_t errlen) {
  char obj[4400], dir[4096];
  if (prepare(so_path, sim_dir, dir, sizeof dir, obj, sizeof obj, err, errlen)) return 1;
  return build_private(cu_path, so_path, obj, rt_dir, sim_dir, err, errlen);
}

/* ------------------------------------------------------------ kept kernel objects */

#define KERNEL_PREFIX ".t2c_sim_kernel-"

typedef struct Kept {
  struct timespec at;
  char name[64];
} Kept;

static int older(const void *a, const void *b) {
  const Kept *x = a, *y = b;
  if (x->at.tv_sec != y->at.tv_sec) return x->at.tv_sec < y->at.tv_sec ? -1 : 1;
  if (x->at.tv_nsec != y->at.tv_nsec) return x->at.tv_nsec < y->at.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Removes the least recently used kernel objects of dir beyond SIM_KEPT_KERNELS. */
static void prune(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  Kept *k = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    struct stat st;
    if (strncmp(e->d_name, KERNEL_PREFIX, strlen(KERNEL_PREFIX)) != 0 || strlen(e->d_name) >= sizeof k->name ||
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    if (n == cap) {
      Kept *m = realloc(k, (cap = cap ? 2 * cap : 64) * sizeof *k);
      if (!m) break;
      k = m;
    }
    k[n].at = st.st_mtim;
    memcpy(k[n++].name, e->d_name, strlen(e->d_name) + 1); /* shorter than name: checked above */
  }
  if (n > SIM_KEPT_KERNELS) {
    qsort(k, n, sizeof *k, older);
    for (size_t i = 0; i < n - SIM_KEPT_KERNELS; i++) unlinkat(dirfd(d), k[i].name, 0);
  }
  closedir(d);
  free(k);
}

int sim_build_kept(const char *cu_path, const char *so_path, const char *rt_dir, const char *sim_dir,
                   char *err, size_t errlen) {
  char obj[4400], tmp[4500], dir[4096], kept[4400], prefix[64];
  if (prepare(so_path, sim_dir, dir, sizeof dir, obj, sizeof obj, err, errlen)) return 1;
  /* the key: what every kernel's build depends on, and the .cu */
  uint64_t h = hash_file(hash_kernel_inputs("tile2cu sim kernel 1", rt_dir, obj), cu_path);
  snprintf(prefix, sizeof prefix, KERNEL_PREFIX "%016llx-", (unsigned long long)h);
  if (!find_cached(dir, prefix, ".so", true, kept, sizeof kept)) {
    snprintf(tmp, sizeof tmp, "%s/%s%ld.%llu.tmp", dir, prefix, (long)getpid(), sim_tmp_serial());
    if (compile_kernel(cu_path, tmp, obj, rt_dir, sim_dir, err, errlen)) return 1;
    if (keep(tmp, dir, prefix, ".so", kept, sizeof kept, err, errlen)) return 1;
    prune(dir);
  }
  unlink(so_path);
  if (link(kept, so_path) == 0) return 0;
  /* gone meanwhile (another process pruned it) */
  return build_private(cu_path, so_path, obj, rt_dir, sim_dir, err, errlen);
}

int sim_run(const char *so_path, const T2cSimLaunch *l, char *err, size_t errlen) {
  char dir[4096], why[4400], path[64];
  bool suspicious;
  dir_of(so_path, dir, sizeof dir);
  if (fsafe_dir_check(dir, geteuid(), false, why, sizeof why)) {
    seterr(err, errlen, "sim: cannot load %s: %s", so_path, why);
    return 1;
  }
  int fd = fsafe_open(so_path, geteuid(), &suspicious, why, sizeof why);
  if (fd < 0) {
    seterr(err, errlen, "sim: cannot load %s: %s", so_path, why);
    return 1;
  }
  /* Load the very file that was checked, through its descriptor, unless
   * there is no /proc; then the path, in the directory just checked. */
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  void *h = dlopen(access(path, F_OK) == 0 ? path : so_path, RTLD_NOW | RTLD_LOCAL);
  close(fd);
  if (!h) {
    seterr(err, errlen, "sim: cannot load %s: %s", so_path, dlerror());
    return 1;
  }
  int (*launch)(const T2cSimLaunch *, char *, size_t);
  *(void **)&launch = dlsym(h, "t2c_sim_launch");
  if (!launch) {
    seterr(err, errlen, "sim: %s has no t2c_sim_launch (not built by sim_build?)", so_path);
    dlclose(h);
    return 1;
  }
  int rc = launch(l, err, errlen);
  dlclose(h);
  return rc;
}
