/* cache.c: the content-addressed disk cache of NVRTC output.
 *
 * Where: $TILE2CU_CACHE_DIR, else $XDG_CACHE_HOME/tile2cu, else
 * ~/.cache/tile2cu (tr_cache_root), in its nvrtc/ subdirectory.
 * TILE2CU_CACHE=0 turns the cache off.
 *
 * Key: SHA-256 (libcrypto) over the tile2cu version, the NVRTC version, the
 * target, the options, the runtime header, the -D constants applied
 * (t2c_compile_args) and the generated CUDA, each part length-prefixed. An entry is nvrtc/<key>.bin:
 *
 *   0   "T2CCACHE"    8 bytes
 *   8   version       u32 (1), then u32 0
 *   16  code length   u64
 *   24  log length    u64
 *   32  SHA-256 of key || code || log
 *   64  code, then log
 *
 * An entry is written to a temporary file in the same directory and renamed
 * into place, so readers see a whole entry or none, and any number of
 * processes may write the same entry at once. On read the length and the
 * digest are checked; a corrupt or truncated entry is deleted and reported as
 * a miss, so it is recompiled, never loaded.
 *
 * The directories are created 0700 and used only when no other user can
 * change them (fsafe_cache_check, common/fsafe.c, shared with the CPU
 * backend): one of this user's that group or others may write is made 0700;
 * one that is a symbolic link, belongs to another user or lies below a
 * directory others may write turns the cache off for that compile, with a
 * line on stderr. An entry is opened with O_NOFOLLOW and must be a regular
 * file of this user that group and others cannot write (fsafe_open); one
 * that is not is deleted, said on stderr, and recompiled.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fsafe.h"

#define HEADER 64
#define FORMAT 1

bool cache_enabled(void) {
  const char *e = getenv("TILE2CU_CACHE");
  return !(e && strcmp(e, "0") == 0);
}

void cache_path(char *out, size_t n) {
  char dir[PATH_MAX];
  tr_cache_root(dir, sizeof dir);
  snprintf(out, n, "%s/nvrtc", dir);
}

static void to_hex(const unsigned char *d, int n, char *hex) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < n; i++) {
    hex[2 * i] = digits[d[i] >> 4];
    hex[2 * i + 1] = digits[d[i] & 15];
  }
  hex[2 * n] = 0;
}

/* SHA-256 of the parts, each preceded by its length when prefix is set. */
static void sha256(const void *const *parts, const size_t *lens, int n, bool prefix, unsigned char md[32]) {
  EVP_MD_CTX *c = EVP_MD_CTX_new();
  unsigned len = 32;
  EVP_DigestInit_ex(c, EVP_sha256(), NULL);
  for (int i = 0; i < n; i++) {
    uint64_t l = lens[i];
    if (prefix) EVP_DigestUpdate(c, &l, sizeof l);
    EVP_DigestUpdate(c, parts[i], lens[i]);
  }
  EVP_DigestFinal_ex(c, md, &len);
  EVP_MD_CTX_free(c);
}

void cache_key(const char *const *parts, const size_t *lens, int n, char hex[65]) {
  unsigned char md[32];
  sha256((const void *const *)parts, lens, n, true, md);
  to_hex(md, 32, hex);
}

static void entry_path(const char *hex, char *out, size_t n) {
  char dir[PATH_MAX];
  cache_path(dir, sizeof dir);
  snprintf(out, n, "%s/%s.bin", dir, hex);
}

static void entry_digest(const char *hex, const void *code, size_t code_len, const char *log, size_t log_len,
                         unsigned char md[32]) {
  const void *parts[] = {hex, code, log};
  size_t lens[] = {64, code_len, log_len};
  sha256(parts, lens, 3, false, md);
}

/* The directory, created 0700 when missing, when it is private (see the
 * top); otherwise false, with a line on stderr when warn is set. */
static bool cache_dir_ok(char *dir, size_t n, bool warn) {
  char why[PATH_MAX + 200], root[PATH_MAX];
  tr_cache_root(root, sizeof root);
  cache_path(dir, n);
  if (tr_cache_mkdirs(dir) != 0) {
    if (warn) fprintf(stderr, "tile2cu: compile cache off: cannot create %s: %s\n", dir, strerror(errno));
    return false;
  }
  if (fsafe_cache_check(root, "nvrtc", geteuid(), why, sizeof why) != 0) {
    if (warn) fprintf(stderr, "tile2cu: compile cache off: %s\n", why);
    return false;
  }
  return true;
}

/* false on a miss: no entry, or one that is not private (deleted, with a
 * line on stderr). */
static bool read_all(const char *path, unsigned char **data, size_t *len) {
  char why[PATH_MAX + 200];
  bool suspicious;
  int fd = fsafe_open(path, geteuid(), &suspicious, why, sizeof why);
  if (fd < 0) {
    if (suspicious) {
      fprintf(stderr, "tile2cu: compile cache: not loading %s; recompiling\n", why);
      unlink(path);
    }
    return false;
  }
  struct stat st;
  *data = NULL;
  *len = 0;
  if (fstat(fd, &st) != 0 || st.st_size < HEADER || st.st_size > (1 << 30)) {
    close(fd);
    return true; /* present but not an entry: entry_valid rejects it */
  }
  unsigned char *buf = malloc((size_t)st.st_size);
  size_t got = 0;
  while (buf && got < (size_t)st.st_size) {
    ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  *data = buf;
  *len = got;
  return true;
}

/* Whether data is a whole entry for key hex; fills the lengths. */
static bool entry_valid(const char *hex, const unsigned char *d, size_t len, uint64_t *code_len, uint64_t *log_len) {
  uint32_t format;
  if (!d || len < HEADER || memcmp(d, "T2CCACHE", 8) != 0) return false;
  memcpy(&format, d + 8, 4);
  memcpy(code_len, d + 16, 8);
  memcpy(log_len, d + 24, 8);
  if (format != FORMAT || *code_len > len || *log_len > len || HEADER + *code_len + *log_len != len) return false;
  unsigned char md[32];
  entry_digest(hex, d + HEADER, *code_len, (const char *)d + HEADER + *code_len, *log_len, md);
  return memcmp(md, d + 32, 32) == 0;
}

int cache_get(const char *hex, void **code, size_t *code_len, char **log) {
  char dir[PATH_MAX], path[PATH_MAX + 80];
  if (!cache_dir_ok(dir, sizeof dir, true)) return 0;
  entry_path(hex, path, sizeof path);
  unsigned char *d;
  size_t len;
  if (!read_all(path, &d, &len)) return 0;
  uint64_t cl, ll;
  if (!entry_valid(hex, d, len, &cl, &ll)) {
    free(d);
    unlink(path); /* corrupt or truncated: recompile and rewrite */
    return 0;
  }
  *code = malloc(cl ? cl : 1);
  *log = malloc(ll + 1);
  if (!*code || !*log) {
    free(*code);
    free(*log);
    free(d);
    return 0;
  }
  memcpy(*code, d + HEADER, cl);
  memcpy(*log, d + HEADER + cl, ll);
  (*log)[ll] = 0;
  *code_len = cl;
  free(d);
  return 1;
}

static bool write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w <= 0) {
      if (w < 0 && errno == EINTR) continue;
      return false;
    }
    c += w;
    n -= (size_t)w;
  }
  return true;
}

void cache_put(const char *hex, const void *code, size_t code_len, const char *log) {
  char dir[PATH_MAX], path[PATH_MAX + 80], tmp[PATH_MAX + 80];
  if (!cache_dir_ok(dir, sizeof dir, false)) return;
  entry_path(hex, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, hex);
  int fd = mkstemp(tmp);
  if (fd < 0) return;
  size_t log_len = log ? strlen(log) : 0;
  unsigned char h[HEADER] = "T2CCACHE";
  uint32_t format = FORMAT;
  uint64_t cl = code_len, ll = log_len;
  memcpy(h + 8, &format, 4);
  memcpy(h + 16, &cl, 8);
  memcpy(h + 24, &ll, 8);
  entry_digest(hex, code, code_len, log ? log : "", log_len, h + 32);
  /* mkstemp made it 0600; it stays so */
  bool ok = write_all(fd, h, HEADER) && write_all(fd, code, code_len) && write_all(fd, log ? log : "", log_len);
  if (close(fd) != 0) ok = false;
  if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

t2c_status t2c_cache_dir(char *buf, size_t size) {
  if (!buf || !size) return drv_fail(T2C_ERROR_INVALID_VALUE, "t2c_cache_dir: no buffer");
  if (!cache_enabled()) buf[0] = 0;
  else cache_path(buf, size);
  return T2C_SUCCESS;
}
