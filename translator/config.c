/* config.c: target configs (configs/sm_XX.yaml) and where to find them.
 *
 * A config is one YAML mapping of required keys, with a nested `features`
 * mapping. It is read with libyaml's document API: the whole file becomes a
 * node tree, then each key is matched against a table (KeySpec) that names
 * its kind and the TargetConfig field it fills. Every problem is reported as
 * "FILE:LINE: message" naming the key, and loading stops at the first one.
 * Sanity checks between keys (lanes, shared memory order) run after all keys
 * are read. This file uses plain libc and libyaml only, so it can be tested
 * without the rest of the translator.
 */
#include "t2c.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#ifndef TILE2CU_PREFIX
#define TILE2CU_PREFIX "/usr/local"
#endif

typedef enum KeyKind {
  KK_NAME,     /* a short string, copied into name[] */
  KK_INT,      /* a positive int */
  KK_BOOL,     /* true or false */
  KK_SHAPES,   /* a sequence of mma shape strings */
  KK_FEATURES, /* the nested features mapping */
  KK_SUFFIX,   /* an architecture suffix: "a" or "f" (nvcc's sm_90a, sm_100f) */
} KeyKind;

typedef struct KeySpec {
  const char *name;
  KeyKind kind;
  size_t off; /* of the TargetConfig field (KK_NAME, KK_INT, KK_BOOL, KK_SUFFIX) */
  bool optional; /* may be left out: the field stays zero ("" for a string) */
} KeySpec;

#define FIELD(f) offsetof(TargetConfig, f)

static const KeySpec top_keys[] = {
  {"name", KK_NAME, FIELD(name), false},
  {"sm", KK_INT, FIELD(sm), false},
  {"lanes", KK_INT, FIELD(lanes), false},
  {"max_threads_per_block", KK_INT, FIELD(max_threads), false},
  {"registers_per_sm", KK_INT, FIELD(regs_per_sm), false},
  {"max_registers_per_thread", KK_INT, FIELD(max_regs_per_thread), false},
  {"shared_memory_per_sm", KK_INT, FIELD(smem_per_sm), false},
  {"shared_memory_per_block", KK_INT, FIELD(smem_per_block), false},
  {"shared_memory_static", KK_INT, FIELD(smem_static), false},
  {"max_blocks_per_sm", KK_INT, FIELD(max_blocks_per_sm), false},
  {"max_warps_per_sm", KK_INT, FIELD(max_warps_per_sm), false},
  {"arch_suffix", KK_SUFFIX, FIELD(arch_suffix), true},
  {"features", KK_FEATURES, 0, false},
};
#define N_TOP ((int)(sizeof top_keys / sizeof top_keys[0]))

static const KeySpec feature_keys[] = {
  {"cp_async", KK_BOOL, FIELD(cp_async), false},
  {"wgmma", KK_BOOL, FIELD(wgmma), false},
  {"tma", KK_BOOL, FIELD(tma), false},
  {"wg_turns", KK_BOOL, FIELD(wg_turns), true},
  {"mma_shapes", KK_SHAPES, 0, false},
};
#define N_FEATURES ((int)(sizeof feature_keys / sizeof feature_keys[0]))

#define MAX_SHAPES ((int)(sizeof ((TargetConfig *)0)->mma_shapes / sizeof ((TargetConfig *)0)->mma_shapes[0]))
#define SHAPE_LEN ((int)sizeof ((TargetConfig *)0)->mma_shapes[0])

typedef struct Loader {
  const char *path;
  yaml_document_t *doc;
  TargetConfig *cfg;
  char *err;
  size_t errlen;
  char key[64];           /* full name of the key being read, for messages */
  int top_lines[N_TOP];   /* line of each top-level key; 0 = not seen */
  int feature_lines[N_FEATURES];
} Loader;

/* ---------------------------------------------------------------- errors */

/* Writes "PATH:LINE: message" (or "PATH: message" when line is 0) into the
 * error buffer. Always returns false so callers can `return fail(...)`. */
static bool fail(Loader *L, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(Loader *L, int line, const char *fmt, ...) {
  if (!L->err || L->errlen == 0)
    return false;
  int n = line > 0 ? snprintf(L->err, L->errlen, "%s:%d: ", L->path, line)
                   : snprintf(L->err, L->errlen, "%s: ", L->path);
  if (n < 0 || (size_t)n >= L->errlen)
    return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(L->err + n, L->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return false;
}

static int node_line(const yaml_node_t *node) {
  return (int)node->start_mark.line + 1;
}

static const char *scalar_text(const yaml_node_t *node) {
  return (const char *)node->data.scalar.value;
}

/* What a node is, for "got ..." in messages: 'abc', the quoted string '32',
 * an empty value, a mapping. */
static const char *describe(const yaml_node_t *node, char *buf, size_t len) {
  switch (node->type) {
  case YAML_MAPPING_NODE: return "a mapping";
  case YAML_SEQUENCE_NODE: return "a sequence";
  case YAML_SCALAR_NODE:
    if (node->data.scalar.length == 0)
      return "an empty value";
    snprintf(buf, len, "%s'%.40s'%s",
             node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "" : "the quoted string ",
             scalar_text(node), node->data.scalar.length > 40 ? "..." : "");
    return buf;
  default: return "nothing";
  }
}

static bool fail_expected(Loader *L, const yaml_node_t *node, const char *what) {
  char buf[96];
  return fail(L, node_line(node), "key '%s': expected %s, got %s", L->key, what,
              describe(node, buf, sizeof buf));
}

/* ---------------------------------------------------------------- values */

/* Numbers and booleans must be plain scalars: "32" in quotes is a string. */
static bool is_plain_scalar(const yaml_node_t *node) {
  return node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static bool all_digits(const char *s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

static bool load_int(Loader *L, const yaml_node_t *node, int *out) {
  if (!is_plain_scalar(node) || !all_digits(scalar_text(node)))
    return fail_expected(L, node, "a positive integer");
  errno = 0;
  long v = strtol(scalar_text(node), NULL, 10);
  if (errno == ERANGE || v > INT_MAX)
    return fail(L, node_line(node), "key '%s': %.40s is too large (at most %d)", L->key,
                scalar_text(node), INT_MAX);
  if (v <= 0)
    return fail_expected(L, node, "a positive integer");
  *out = (int)v;
  return true;
}

static bool load_bool(Loader *L, const yaml_node_t *node, bool *out) {
  if (is_plain_scalar(node) && strcmp(scalar_text(node), "true") == 0)
    *out = true;
  else if (is_plain_scalar(node) && strcmp(scalar_text(node), "false") == 0)
    *out = false;
  else
    return fail_expected(L, node, "true or false");
  return true;
}

/* The name is copied with a bound; a name that does not fit is an error,
 * never silently cut. */
static bool load_name(Loader *L, const yaml_node_t *node, char *out, size_t len) {
  if (node->type != YAML_SCALAR_NODE || node->data.scalar.length == 0)
    return fail_expected(L, node, "a target name such as sm_90");
  if (node->data.scalar.length >= len)
    return fail(L, node_line(node), "key '%s': name is too long (at most %zu characters)",
                L->key, len - 1);
  memcpy(out, scalar_text(node), node->data.scalar.length + 1);
  return true;
}

/* The suffix of an architecture-specific target: "a" (sm_90a: wgmma,
 * setmaxnreg; code that runs on that chip only) or "f" (a family). */
static bool load_suffix(Loader *L, const yaml_node_t *node, char *out, size_t len) {
  const char *s = node->type == YAML_SCALAR_NODE ? scalar_text(node) : "";
  if (!is_plain_scalar(node) || (strcmp(s, "a") != 0 && strcmp(s, "f") != 0) || len < 2)
    return fail_expected(L, node, "an architecture suffix, a or f");
  memcpy(out, s, 2);
  return true;
}

/* An mma shape: m<digits>n<digits>k<digits>, e.g. m16n8k16. */
static bool is_mma_shape(const char *s) {
  const char *parts = "mnk";
  for (int i = 0; i < 3; i++) {
    if (*s++ != parts[i] || *s < '0' || *s > '9')
      return false;
    while (*s >= '0' && *s <= '9')
      s++;
  }
  return *s == '\0';
}

static bool load_shape(Loader *L, const yaml_node_t *node, char *out) {
  if (node->type != YAML_SCALAR_NODE || !is_mma_shape(scalar_text(node)))
    return fail_expected(L, node, "an mma shape such as m16n8k16");
  if (node->data.scalar.length >= (size_t)SHAPE_LEN)
    return fail(L, node_line(node), "key '%s': shape '%.40s' is too long", L->key,
                scalar_text(node));
  memcpy(out, scalar_text(node), node->data.scalar.length + 1);
  return true;
}

static bool load_shapes(Loader *L, const yaml_node_t *node) {
  if (node->type != YAML_SEQUENCE_NODE)
    return fail_expected(L, node, "a sequence of mma shapes such as [m16n8k16]");
  yaml_node_item_t *start = node->data.sequence.items.start;
  yaml_node_item_t *top = node->data.sequence.items.top;
  if (top - start > MAX_SHAPES)
    return fail(L, node_line(node), "key '%s': too many shapes (at most %d)", L->key, MAX_SHAPES);
  L->cfg->n_mma_shapes = 0;
  for (yaml_node_item_t *it = start; it < top; it++) {
    yaml_node_t *item = yaml_document_get_node(L->doc, *it);
    if (!load_shape(L, item, L->cfg->mma_shapes[L->cfg->n_mma_shapes]))
      return false;
    L->cfg->n_mma_shapes++;
  }
  return true;
}

/* ---------------------------------------------------------------- mappings */

static bool load_mapping(Loader *L, const yaml_node_t *map, const KeySpec *specs, int nspecs,
                         int *lines, const char *prefix);

static bool load_value(Loader *L, const KeySpec *spec, const yaml_node_t *node) {
  char *field = (char *)L->cfg + spec->off;
  switch (spec->kind) {
  case KK_NAME: return load_name(L, node, field, sizeof L->cfg->name);
  case KK_INT: return load_int(L, node, (int *)field);
  case KK_BOOL: return load_bool(L, node, (bool *)field);
  case KK_SHAPES: return load_shapes(L, node);
  case KK_SUFFIX: return load_suffix(L, node, field, sizeof L->cfg->arch_suffix);
  case KK_FEATURES:
    if (node->type != YAML_MAPPING_NODE)
      return fail_expected(L, node, "a mapping of features");
    return load_mapping(L, node, feature_keys, N_FEATURES, L->feature_lines, "features.");
  }
  return false;
}

static int find_spec(const KeySpec *specs, int nspecs, const char *name) {
  for (int i = 0; i < nspecs; i++)
    if (strcmp(specs[i].name, name) == 0)
      return i;
  return -1;
}

/* One `key: value` pair of a mapping. lines[i] records where key i was seen. */
static bool load_pair(Loader *L, const yaml_node_pair_t *pair, const KeySpec *specs, int nspecs,
                      int *lines, const char *prefix) {
  yaml_node_t *key = yaml_document_get_node(L->doc, pair->key);
  yaml_node_t *value = yaml_document_get_node(L->doc, pair->value);
  if (key->type != YAML_SCALAR_NODE)
    return fail(L, node_line(key), "expected a key name, got %s",
                key->type == YAML_MAPPING_NODE ? "a mapping" : "a sequence");
  snprintf(L->key, sizeof L->key, "%s%.40s", prefix, scalar_text(key));
  int i = find_spec(specs, nspecs, scalar_text(key));
  if (i < 0)
    return fail(L, node_line(key), "unknown key '%s'", L->key);
  if (lines[i])
    return fail(L, node_line(key), "duplicate key '%s' (first given on line %d)", L->key, lines[i]);
  lines[i] = node_line(key);
  return load_value(L, &specs[i], value);
}

static bool load_mapping(Loader *L, const yaml_node_t *map, const KeySpec *specs, int nspecs,
                         int *lines, const char *prefix) {
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
    if (!load_pair(L, p, specs, nspecs, lines, prefix))
      return false;
  for (int i = 0; i < nspecs; i++)
    if (!lines[i] && !specs[i].optional)
      return fail(L, node_line(map), "missing required key '%s%s'", prefix, specs[i].name);
  return true;
}

/* ---------------------------------------------------------------- sanity */

static int top_line(const Loader *L, const char *name) {
  return L->top_lines[find_spec(top_keys, N_TOP, name)];
}

/* Relations between keys; each message names the key on whose line it is. */
static bool check_config(Loader *L) {
  const TargetConfig *c = L->cfg;
  if (c->lanes != 32)
    return fail(L, top_line(L, "lanes"), "key 'lanes': only 32 is supported, got %d", c->lanes);
  if (c->max_threads % c->lanes != 0)
    return fail(L, top_line(L, "max_threads_per_block"),
                "key 'max_threads_per_block': %d is not a multiple of lanes (%d)", c->max_threads,
                c->lanes);
  if (c->max_threads > c->max_warps_per_sm * c->lanes)
    return fail(L, top_line(L, "max_threads_per_block"),
                "key 'max_threads_per_block': %d threads do not fit in max_warps_per_sm (%d warps)",
                c->max_threads, c->max_warps_per_sm);
  if (c->smem_static > c->smem_per_block)
    return fail(L, top_line(L, "shared_memory_static"),
                "key 'shared_memory_static': %d exceeds shared_memory_per_block (%d)",
                c->smem_static, c->smem_per_block);
  char arch[48];
  config_arch(c, "sm", arch, sizeof arch);
  if (c->arch_suffix[0] && strcmp(c->name, arch) != 0)
    return fail(L, top_line(L, "arch_suffix"),
                "key 'arch_suffix': the target is %s, so its name must be %s, not %s", arch, arch, c->name);
  if (c->smem_per_block > c->smem_per_sm)
    return fail(L, top_line(L, "shared_memory_per_block"),
                "key 'shared_memory_per_block': %d exceeds shared_memory_per_sm (%d)",
                c->smem_per_block, c->smem_per_sm);
  return true;
}

/* ---------------------------------------------------------------- documents */

/* libyaml's problem mark is where it gave up; its context (say, an unclosed
 * flow sequence) often starts earlier, so it is named too. */
static bool fail_syntax(Loader *L, const yaml_parser_t *parser) {
  int line = (int)parser->problem_mark.line + 1;
  const char *problem = parser->problem ? parser->problem : "unknown problem";
  int ctx_line = (int)parser->context_mark.line + 1;
  if (parser->context && ctx_line != line)
    return fail(L, line, "YAML syntax error: %s (%s on line %d)", problem, parser->context,
                ctx_line);
  return fail(L, line, "YAML syntax error: %s", problem);
}

static bool load_root(Loader *L, yaml_document_t *doc) {
  yaml_node_t *root = yaml_document_get_root_node(doc);
  if (!root)
    return fail(L, 0, "empty config, expected a mapping of keys such as 'name: sm_90'");
  if (root->type != YAML_MAPPING_NODE) {
    char buf[96];
    return fail(L, node_line(root), "expected a mapping of keys at the top level, got %s",
                describe(root, buf, sizeof buf));
  }
  L->doc = doc;
  return load_mapping(L, root, top_keys, N_TOP, L->top_lines, "") && check_config(L);
}

/* A second document in the file is an error, so a stray '---' is not ignored. */
static bool check_single_document(Loader *L, yaml_parser_t *parser) {
  yaml_document_t doc;
  if (!yaml_parser_load(parser, &doc))
    return fail_syntax(L, parser);
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  int line = root ? node_line(root) : 0;
  yaml_document_delete(&doc);
  if (root)
    return fail(L, line, "expected one YAML document, found a second one");
  return true;
}

/* Reads from f, or from text when f is NULL. */
static bool load_file(Loader *L, FILE *f, const char *text) {
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize(&parser))
    return fail(L, 0, "cannot initialize the YAML parser (out of memory)");
  if (f) yaml_parser_set_input_file(&parser, f);
  else yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
  bool ok = yaml_parser_load(&parser, &doc);
  if (!ok) {
    fail_syntax(L, &parser);
  } else {
    ok = load_root(L, &doc) && check_single_document(L, &parser);
    yaml_document_delete(&doc);
  }
  yaml_parser_delete(&parser);
  return ok;
}

bool config_load(const char *path, TargetConfig *out, char *err, size_t errlen) {
  TargetConfig cfg = {0};
  Loader L = {.path = path, .cfg = &cfg, .err = err, .errlen = errlen};
  if (err && errlen)
    err[0] = '\0';
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(&L, 0, "cannot open config: %s", strerror(errno));
  bool ok = load_file(&L, f, NULL);
  fclose(f);
  if (ok)
    *out = cfg;
  return ok;
}

bool config_load_text(const char *name, const char *text, TargetConfig *out, char *err, size_t errlen) {
  TargetConfig cfg = {0};
  Loader L = {.path = name, .cfg = &cfg, .err = err, .errlen = errlen};
  if (err && errlen)
    err[0] = '\0';
  bool ok = load_file(&L, NULL, text);
  if (ok)
    *out = cfg;
  return ok;
}

/* ---------------------------------------------------------------- finding */

/* sm_ followed by 1 to 8 digits and at most one suffix letter, a or f
 * (sm_90a); nothing else may reach a file name. */
static bool valid_target(const char *target) {
  if (!target || strncmp(target, "sm_", 3) != 0)
    return false;
  char digits[10];
  size_t n = strlen(target + 3);
  if (n >= 2 && (target[3 + n - 1] == 'a' || target[3 + n - 1] == 'f'))
    n--;
  if (n < 1 || n > 8)
    return false;
  memcpy(digits, target + 3, n);
  digits[n] = '\0';
  return all_digits(digits);
}

/* PREFIX_<sm><suffix>: "sm_90a", "compute_90a"; what nvcc's -gencode and
 * NVRTC's -arch take. Never the sm number alone: sm_90 rejects wgmma. */
void config_arch(const TargetConfig *c, const char *prefix, char *buf, size_t len) {
  snprintf(buf, len, "%s_%d%s", prefix, c->sm, c->arch_suffix);
}

/* Tries DIR SUB TARGET.yaml; on success it is left in path. */
static bool try_path(const char *dir, const char *sub, const char *target, char *path,
                     size_t pathlen) {
  int n = snprintf(path, pathlen, "%s%s%s.yaml", dir, sub, target);
  if (n < 0 || (size_t)n >= pathlen)
    return false;
  return access(path, R_OK) == 0;
}

/* The directory holding the running binary, from /proc/self/exe or argv0. */
static bool exe_dir(const char *argv0, char *dir, size_t len) {
  ssize_t n = readlink("/proc/self/exe", dir, len - 1);
  if (n > 0) {
    dir[n] = '\0';
  } else {
    if (!argv0 || !strchr(argv0, '/') || strlen(argv0) >= len)
      return false;
    strcpy(dir, argv0);
  }
  char *slash = strrchr(dir, '/');
  if (!slash)
    return false;
  if (slash == dir)
    slash++; /* the binary is in "/" */
  *slash = '\0';
  return true;
}

bool config_find(const char *target, const char *argv0, char *path, size_t pathlen) {
  if (!valid_target(target) || !path || pathlen == 0)
    return false;
  const char *env = getenv("TILE2CU_CONFIG_DIR");
  if (env && *env && try_path(env, "/", target, path, pathlen))
    return true;
  char dir[4096];
  if (exe_dir(argv0, dir, sizeof dir)) {
    if (try_path(dir, "/../share/tile2cu/configs/", target, path, pathlen))
      return true;
    if (try_path(dir, "/../configs/", target, path, pathlen))
      return true;
  }
  if (try_path(TILE2CU_PREFIX, "/share/tile2cu/configs/", target, path, pathlen))
    return true;
  path[0] = '\0';
  return false;
}
