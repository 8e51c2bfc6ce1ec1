/* tuned.c: tuning files, which `tile2cu tune` writes and `tile2cu --tuned` reads.
 *
 * A tuning file is YAML (docs/tune.md):
 *
 *   # tile2cu tuning file (docs/tune.md)
 *   entries:
 *     - source: "examples/gemm_f16.tl"
 *       sha256: "<SHA-256 of the .tl text>"
 *       target: "sm_90"
 *       kernel: "gemm"
 *       size_class: "K=4096 M=4096 N=4096"
 *       sizes: "M=4096 N=4096 K=4096"
 *       defines: "BM=128 BN=128"
 *       median_us: 812.5
 *       baseline: "BM=64 BN=64"
 *       baseline_us: 1043.2
 *
 * An entry is keyed by sha256, target, kernel and size_class: the --sizes
 * of the tune, each integer rounded up to a power of two, sorted by name.
 * Writing replaces the entry of the same key and keeps the others, through
 * outfile_write (a temporary renamed into place). Reading uses libyaml's
 * document API; anything but a mapping with an `entries` sequence of
 * mappings of scalars is refused with the reason.
 */
#include "t2c.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

enum { MAX_ENTRIES = 4096 };

static const char *const fields[] = {"source", "sha256", "target", "kernel", "size_class", "sizes",
                                     "defines", "median_us", "baseline", "baseline_us"};
enum { F_SOURCE, F_SHA, F_TARGET, F_KERNEL, F_CLASS, F_SIZES, F_DEFINES, F_US, F_BASE, F_BASE_US, NFIELDS };

typedef struct TunedEntry {
  char *f[NFIELDS];
} TunedEntry;

typedef struct TunedFile {
  TunedEntry *e;
  int n;
} TunedFile;

static void tuned_free(TunedFile *tf) {
  for (int i = 0; i < tf->n; i++)
    for (int k = 0; k < NFIELDS; k++) free(tf->e[i].f[k]);
  free(tf->e);
  tf->e = NULL;
  tf->n = 0;
}

void tuned_sha256(const char *text, char hex[65]) {
  unsigned char md[32];
  unsigned len = 32;
  EVP_MD_CTX *c = EVP_MD_CTX_new();
  EVP_DigestInit_ex(c, EVP_sha256(), NULL);
  EVP_DigestUpdate(c, text, strlen(text));
  EVP_DigestFinal_ex(c, md, &len);
  EVP_MD_CTX_free(c);
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static int cmp_words(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void tuned_size_class(const char *sizes, char *out, size_t n) {
  char buf[4096], *words[64];
  int nw = 0;
  snprintf(buf, sizeof buf, "%s", sizes ? sizes : "");
  char *save = NULL;
  for (char *w = strtok_r(buf, " \t", &save); w && nw < 64; w = strtok_r(NULL, " \t", &save)) words[nw++] = w;
  qsort(words, (size_t)nw, sizeof *words, cmp_words);
  out[0] = 0;
  for (int i = 0; i < nw; i++) {
    char *eq = strchr(words[i], '=');
    char *end;
    long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
    size_t l = strlen(out);
    if (eq && *end == 0 && v >= 1) {
      long long p = 1;
      while (p < v && p < (1LL << 40)) p <<= 1;
      snprintf(out + l, n - l, "%s%.*s=%lld", i ? " " : "", (int)(eq - words[i]), words[i], p);
    } else {
      snprintf(out + l, n - l, "%s%s", i ? " " : "", words[i]);
    }
  }
}

/* ------------------------------------------------------------ reading */

static const char *scalar_of(yaml_document_t *d, yaml_node_t *n) {
  (void)d;
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int read_entry(yaml_document_t *d, yaml_node_t *m, TunedEntry *e, char *err, size_t n) {
  if (m->type != YAML_MAPPING_NODE) {
    snprintf(err, n, "line %zu: an entry is a mapping", m->start_mark.line + 1);
    return 1;
  }
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    const char *k = scalar_of(d, yaml_document_get_node(d, p->key));
    const char *v = scalar_of(d, yaml_document_get_node(d, p->value));
    if (!k || !v) {
      snprintf(err, n, "line %zu: an entry's keys and values are scalars", m->start_mark.line + 1);
      return 1;
    }
    for (int f = 0; f < NFIELDS; f++)
      if (strcmp(k, fields[f]) == 0 && !e->f[f] && !(e->f[f] = strdup(v))) {
        snprintf(err, n, "out of memory");
        return 1;
      }
  }
  for (int f = F_SHA; f <= F_DEFINES; f++)
    if (!e->f[f]) {
      snprintf(err, n, "line %zu: the entry has no '%s'", m->start_mark.line + 1, fields[f]);
      return 1;
    }
  return 0;
}

static int read_doc(yaml_document_t *d, TunedFile *tf, char *err, size_t n) {
  yaml_node_t *root = yaml_document_get_root_node(d);
  yaml_node_t *seq = NULL;
  if (!root || root->type != YAML_MAPPING_NODE) {
    snprintf(err, n, "not a tuning file: the top level is not a mapping with 'entries'");
    return 1;
  }
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
    const char *k = scalar_of(d, yaml_document_get_node(d, p->key));
    if (k && strcmp(k, "entries") == 0) seq = yaml_document_get_node(d, p->value);
  }
  if (seq && seq->type == YAML_SCALAR_NODE && !*scalar_of(d, seq)) return 0; /* "entries:" */
  if (!seq || seq->type != YAML_SEQUENCE_NODE) {
    snprintf(err, n, "not a tuning file: 'entries' is not a sequence");
    return 1;
  }
  int count = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
  if (count > MAX_ENTRIES) {
    snprintf(err, n, "more than %d entries", MAX_ENTRIES);
    return 1;
  }
  tf->e = calloc((size_t)count + 1, sizeof *tf->e);
  if (!tf->e) {
    snprintf(err, n, "out of memory");
    return 1;
  }
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++)
    if (read_entry(d, yaml_document_get_node(d, *it), &tf->e[tf->n++], err, n)) return 1;
  return 0;
}

/* Reads path; a file that does not exist is empty when missing_ok. 0, or 1 with err. */
static int tuned_read(const char *path, bool missing_ok, TunedFile *tf, char *err, size_t n) {
  FILE *f = fopen(path, "rb");
  tf->e = NULL;
  tf->n = 0;
  if (!f) {
    if (missing_ok && errno == ENOENT) return 0;
    snprintf(err, n, "cannot open %s: %s", path, strerror(errno));
    return 1;
  }
  yaml_parser_t parser;
  yaml_document_t doc;
  int rc = 1;
  char why[512] = "";
  if (!yaml_parser_initialize(&parser)) {
    fclose(f);
    snprintf(err, n, "out of memory");
    return 1;
  }
  yaml_parser_set_input_file(&parser, f);
  if (!yaml_parser_load(&parser, &doc)) {
    snprintf(why, sizeof why, "line %zu: %s", parser.problem_mark.line + 1, parser.problem ? parser.problem : "bad YAML");
  } else {
    rc = read_doc(&doc, tf, why, sizeof why);
    yaml_document_delete(&doc);
  }
  yaml_parser_delete(&parser);
  fclose(f);
  if (rc) {
    snprintf(err, n, "%s: %s", path, why);
    tuned_free(tf);
  }
  return rc;
}

/* ------------------------------------------------------------ writing */

static void put_string(Buf *b, const char *v) {
  buf_puts(b, "\"");
  for (const char *s = v ? v : ""; *s; s++) {
    if (*s == '"' || *s == '\\') buf_printf(b, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) buf_printf(b, "\\x%02x", (unsigned char)*s);
    else buf_printf(b, "%c", *s);
  }
  buf_puts(b, "\"\n");
}

static void put_entry(Buf *b, const TunedEntry *e) {
  bool first = true;
  for (int f = 0; f < NFIELDS; f++) {
    if (!e->f[f]) continue;
    buf_printf(b, "%s%s: ", first ? "  - " : "    ", fields[f]);
    first = false;
    if (f == F_US || f == F_BASE_US) buf_printf(b, "%s\n", e->f[f]);
    else put_string(b, e->f[f]);
  }
}

int tuned_record(const char *out, const char *file, const char *src, const char *target, const char *kernel,
                 const char *sizes, const char *defines, double us, const char *base, double base_us) {
  char path[4096], err[4608], sha[65], cls[1024], usb[64], baseb[64];
  if (out) snprintf(path, sizeof path, "%s", out);
  else snprintf(path, sizeof path, "%s.tuned.yaml", file);
  TunedFile tf;
  if (tuned_read(path, true, &tf, err, sizeof err)) {
    fprintf(stderr, "tile2cu tune: %s\n", err);
    return 2;
  }
  tuned_sha256(src, sha);
  tuned_size_class(sizes, cls, sizeof cls);
  snprintf(usb, sizeof usb, "%.2f", us);
  snprintf(baseb, sizeof baseb, "%.2f", base_us);
  TunedEntry mine = {{(char *)file, sha, (char *)target, (char *)kernel, cls, (char *)sizes, (char *)defines, usb,
                      (char *)base, baseb}};
  Buf b = {0};
  buf_puts(&b, "# tile2cu tuning file (docs/tune.md), written by tile2cu tune\nentries:\n");
  bool replaced = false;
  for (int i = 0; i < tf.n; i++) {
    const TunedEntry *e = &tf.e[i];
    bool same = !strcmp(e->f[F_SHA], sha) && !strcmp(e->f[F_TARGET], target) && !strcmp(e->f[F_KERNEL], kernel) &&
                !strcmp(e->f[F_CLASS], cls);
    put_entry(&b, same ? &mine : e);
    replaced |= same;
  }
  if (!replaced) put_entry(&b, &mine);
  int rc = outfile_write(path, b.data, b.len, err, sizeof err) ? 2 : 0;
  if (rc) fprintf(stderr, "tile2cu tune: %s\n", err);
  else fprintf(stderr, "tile2cu tune: %s: %s for %s, %s on %s\n", path, replaced ? "updated" : "added", kernel, cls,
               target);
  buf_free(&b);
  tuned_free(&tf);
  return rc;
}

/* ------------------------------------------------------------ applying */

/* Adds ", 'v'" to list unless it holds 'v' already; the count of values in it. */
static int add_distinct(char *list, size_t n, const char *v, int count) {
  char q[1040];
  snprintf(q, sizeof q, "'%s'", v);
  if (strstr(list, q)) return count;
  size_t l = strlen(list);
  snprintf(list + l, n - l, "%s%s", l ? ", " : "", q);
  return count + 1;
}

/* The entries of one source and target, and of kernel and sizes' class when given, must
 * agree: the constants are the file's, one set for every kernel in it and for any sizes.
 * When they do not, err names the kernels or size classes that differ and the option
 * that picks one. */
int tuned_defines(const char *path, const char *src, const char *target, const char *kernel, const char *sizes,
                  char *defines, size_t n, char *err, size_t errlen) {
  TunedFile tf;
  if (tuned_read(path, false, &tf, err, errlen)) return 2;
  char sha[65], cls[1024];
  tuned_sha256(src, sha);
  if (sizes) tuned_size_class(sizes, cls, sizeof cls);
  const TunedEntry *hit = NULL;
  bool differ = false;
  int nclasses = 0, nkernels = 0, nothers = 0;
  char classes[1024] = "", kernels[1024] = "", others[1024] = "";
  for (int i = 0; i < tf.n; i++) {
    const TunedEntry *e = &tf.e[i];
    if (strcmp(e->f[F_SHA], sha) != 0 || strcmp(e->f[F_TARGET], target) != 0) continue;
    if (kernel && strcmp(e->f[F_KERNEL], kernel) != 0) {
      nothers = add_distinct(others, sizeof others, e->f[F_KERNEL], nothers);
      continue;
    }
    if (sizes && strcmp(e->f[F_CLASS], cls) != 0) continue;
    differ |= hit && strcmp(hit->f[F_DEFINES], e->f[F_DEFINES]) != 0;
    nclasses = add_distinct(classes, sizeof classes, e->f[F_CLASS], nclasses);
    nkernels = add_distinct(kernels, sizeof kernels, e->f[F_KERNEL], nkernels);
    if (!hit) hit = e;
  }
  int rc = 0;
  if (!hit) {
    snprintf(err, errlen, "%s has no entry for this source (sha256 %.12s...) on %s%s%s%s%s%s%s%s", path, sha, target,
             kernel ? " for kernel '" : "", kernel ? kernel : "", kernel ? "'" : "", sizes ? " for sizes of class " : "",
             sizes ? cls : "", nothers ? "; it has entries for kernels " : "", nothers ? others : "");
    rc = 1;
  } else if (differ && nkernels < 2 && nclasses < 2) { /* only where the file was edited by hand */
    snprintf(err, errlen, "%s has entries of different constants for this source on %s, kernel %s and size class %s", path,
             target, kernels, classes);
  } else if (differ) {
    snprintf(err, errlen, "%s has entries of different constants for this source on %s (%s%s%s%s%s): %spick one with %s",
             path, target, nkernels > 1 ? "kernels " : "", nkernels > 1 ? kernels : "",
             nkernels > 1 && nclasses > 1 ? "; " : "", nclasses > 1 ? "size classes " : "", nclasses > 1 ? classes : "",
             nkernels > 1 ? "the constants apply to every kernel of the file: " : "",
             nkernels > 1 && nclasses > 1 ? "--tuned-kernel and --tuned-sizes" : nkernels > 1 ? "--tuned-kernel" : "--tuned-sizes");
  } else {
    snprintf(defines, n, "%s", hit->f[F_DEFINES]);
  }
  if (differ) rc = 2;
  tuned_free(&tf);
  return rc;
}
