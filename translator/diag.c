/* diag.c: clang-style diagnostics.
 *
 *   FILE:LINE:COL: error: MESSAGE
 *   <the source line>
 *   <spaces (tabs kept as tabs) up to COL>^
 *
 * COL counts bytes. The source line is shown safely: control characters
 * other than tab and bytes that are not well-formed UTF-8 print as \xNN, and
 * the caret counts one column per character (UTF-8 sequence), four per \xNN.
 * A line longer than SHOWN_BYTES is cut to a window around COL, marked "...".
 * Warnings say "warning:", notes "note:". A message without a location
 * (line 0) prints "FILE: error: MESSAGE", or just "note: MESSAGE" for a note.
 * A note the same as one its message already has is dropped: a checker that
 * explains each dim that disagrees would name a var declared once per dim.
 * After MAX_ERRORS errors one "too many errors" line is printed and every
 * later error, and the notes that follow it, are counted but not printed.
 *
 * A warning ends with its name, "[-Wbounds]" (warnings.def). One that is off
 * (-Wno-bounds, -w) prints nothing, its notes neither; under -Werror it
 * prints as "error: ... [-Werror,-Wbounds]" and counts in warning_errors, so
 * that every warning is still reported before translate() fails.
 *
 * Bounds checks come one dim at a time (facts.c); diag_bounds gathers them and
 * prints one warning per source line (a statement) that lists its dims and the
 * @assume conditions that would drop them, before the next error or warning,
 * or at diag_flush.
 *
 * The passes find problems in their own order (the checker's @registers after
 * the kernel's body, its rules after its types; the lexer's before the
 * parser's), so translate() holds the messages (diag_hold) and diag_release
 * prints them sorted by position, as a compiler that reads the file once would:
 * the MAX_ERRORS errors found first, in line order, then the "too many" line.
 */
#include "t2c.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_init(Diag *d, const char *file, const char *src, FILE *out) {
  memset(d, 0, sizeof *d);
  d->file = file;
  d->src = src;
  d->out = out;
}

/* Source lines longer than this are shown as a window around the column. */
#define SHOWN_BYTES 160

/* Start of source line `line` (1-based), or NULL when there is no such line.
 * The search starts at the line found last when it lies before, so a pass
 * that asks for lines in order (the printer's comments, warnings) stays linear. */
static const char *line_start(Diag *d, int line) {
  if (!d->src || line < 1)
    return NULL;
  const char *p = d->src;
  int l = 1;
  if (d->cursor && d->cursor_line <= line) {
    p = d->cursor;
    l = d->cursor_line;
  }
  for (; l < line; l++) {
    p = strchr(p, '\n');
    if (!p)
      return NULL;
    p++;
  }
  d->cursor = p;
  d->cursor_line = line;
  return p;
}

void diag_source_line(Diag *d, int line, Buf *out) {
  const char *s = line_start(d, line);
  if (!s)
    return;
  size_t n = strcspn(s, "\n");
  if (n > 0 && s[n - 1] == '\r')
    n--;
  buf_putn(out, s, n);
}

/* Length of a well-formed UTF-8 sequence of 2 to 4 bytes at s (n bytes
 * available), or 0: no overlong forms, surrogates or code points above U+10FFFF. */
static int utf8_seq(const unsigned char *s, size_t n) {
  int len = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
  if (len == 0 || (size_t)len > n)
    return 0;
  unsigned lo = s[0] == 0xE0 ? 0xA0 : s[0] == 0xF0 ? 0x90 : 0x80;
  unsigned hi = s[0] == 0xED ? 0x9F : s[0] == 0xF4 ? 0x8F : 0xBF;
  if (s[1] < lo || s[1] > hi)
    return 0;
  for (int i = 2; i < len; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  return len;
}

/* Bytes [lo, hi) of the line as shown, with the caret line up to byte c. */
static void render(const unsigned char *s, size_t lo, size_t hi, size_t c, Buf *text, Buf *caret) {
  for (size_t i = lo; i < hi; i++) {
    int n = s[i] >= 0x80 ? utf8_seq(s + i, hi - i) : 1;
    const char *pad = " ";
    if (s[i] == '\t') {
      buf_puts(text, "\t");
      pad = "\t";
    } else if (n == 0 || s[i] < 0x20 || s[i] == 0x7f) {
      buf_printf(text, "\\x%02x", s[i]);
      pad = "    ";
      n = 1;
    } else {
      buf_putn(text, (const char *)s + i, (size_t)n);
    }
    if (i < c)
      buf_puts(caret, pad);
    i += (size_t)n - 1;
  }
}

/* The source line and a caret under column loc.col, into out. */
static void show_source(Diag *d, Loc loc, Buf *out) {
  if (!line_start(d, loc.line))
    return;
  Buf line = {0};
  diag_source_line(d, loc.line, &line);
  const unsigned char *s = (const unsigned char *)(line.data ? line.data : "");
  size_t len = line.len;
  size_t c = loc.col > 1 ? (size_t)loc.col - 1 : 0;
  if (c > len)
    c = len; /* at most one past the end: where a newline or EOF sits */
  size_t lo = 0, hi = len;
  if (len > SHOWN_BYTES) {
    lo = c > SHOWN_BYTES / 2 ? c - SHOWN_BYTES / 2 : 0;
    if (lo > len - SHOWN_BYTES)
      lo = len - SHOWN_BYTES;
    hi = lo + SHOWN_BYTES;
    while (lo > 0 && lo < c && (s[lo] & 0xC0) == 0x80) /* not inside a character */
      lo++;
    while (hi < len && hi > c && (s[hi] & 0xC0) == 0x80)
      hi--;
  }
  Buf text = {0}, caret = {0};
  if (lo > 0) {
    buf_puts(&text, "...");
    buf_puts(&caret, "   ");
  }
  render(s, lo, hi, c, &text, &caret);
  if (hi < len)
    buf_puts(&text, "...");
  buf_puts(&caret, "^");
  buf_printf(out, "%s\n%s\n", text.data ? text.data : "", caret.data);
  buf_free(&line);
  buf_free(&text);
  buf_free(&caret);
}

/* ------------------------------------------------------------ held messages */

/* Prints the held messages in line order and empties the list: each error or
 * warning with its notes, those of one position in the order they came. */
static void print_held(Diag *d) {
  DiagHeld *h = d->held;
  int n = d->nheld;
  d->held = NULL;
  d->nheld = d->held_cap = 0;
  for (int i = 1; i < n; i++) { /* insertion sort: stable, and the list is mostly in order */
    DiagHeld x = h[i];
    int j = i;
    for (; j > 0 && (h[j - 1].at.line > x.at.line || (h[j - 1].at.line == x.at.line && h[j - 1].at.col > x.at.col)); j--)
      h[j] = h[j - 1];
    h[j] = x;
  }
  for (int i = 0; i < n; i++) {
    if (h[i].text.len)
      fwrite(h[i].text.data, 1, h[i].text.len, d->out);
    buf_free(&h[i].text);
  }
  free(h);
}

/* A message's text: printed now, or held. A note joins the message before it;
 * an error or warning of no line sorts where the one before it does, and the
 * "too many errors" line (last) after everything. */
static void put(Diag *d, const char *kind, Loc loc, Buf *text) {
  if (!d->holding) {
    fwrite(text->data, 1, text->len, d->out);
    buf_free(text);
    return;
  }
  bool note = strcmp(kind, "note") == 0;
  if (note && d->nheld > 0) {
    buf_putn(&d->held[d->nheld - 1].text, text->data, text->len);
    buf_free(text);
    return;
  }
  if (d->nheld == MAX_HELD) /* a batch this long prints, in its own order */
    print_held(d);
  if (d->nheld == d->held_cap) {
    d->held_cap = d->held_cap ? 2 * d->held_cap : 16;
    d->held = realloc(d->held, sizeof *d->held * (size_t)d->held_cap);
    if (!d->held)
      die("out of memory");
  }
  Loc at = loc;
  if (strcmp(kind, "last") == 0)
    at = (Loc){INT_MAX, INT_MAX};
  else if (at.line <= 0)
    at = d->nheld ? d->held[d->nheld - 1].at : (Loc){0, 0};
  d->held[d->nheld++] = (DiagHeld){at, *text};
}

void diag_hold(Diag *d) {
  d->holding = d->out != NULL;
}

void diag_release(Diag *d) {
  diag_flush(d);
  if (d->holding)
    print_held(d);
  d->holding = false;
  d->last_dropped = false; /* a note from here on follows what was printed last */
}

/* FNV-1a of a message's text, for the notes of one message: a repeat of the same
 * bytes hashes the same, and two of a handful of different notes will not meet. */
static uint64_t text_hash(const Buf *b) {
  uint64_t h = 14695981039346656037u;
  for (size_t i = 0; i < b->len; i++)
    h = (h ^ (unsigned char)b->data[i]) * 1099511628211u;
  return h;
}

/* Whether note text b is one its message has already: if not, it is one now. */
static bool note_seen(Diag *d, const Buf *b) {
  uint64_t h = text_hash(b);
  for (int i = 0; i < d->nnotes_seen; i++)
    if (d->notes_seen[i] == h)
      return true;
  if (d->nnotes_seen < MAX_NOTES_SEEN)
    d->notes_seen[d->nnotes_seen++] = h;
  return false;
}

/* suffix: NULL, or the warning's name in brackets. */
static void report(Diag *d, const char *kind, Loc loc, const char *suffix, const char *fmt, va_list ap) {
  if (!d->out)
    return;
  Buf b = {0};
  if (loc.line > 0)
    buf_printf(&b, "%s:%d:%d: %s: ", d->file, loc.line, loc.col, kind);
  else if (strcmp(kind, "note") == 0)
    buf_puts(&b, "note: ");
  else
    buf_printf(&b, "%s: %s: ", d->file, kind);
  buf_vprintf(&b, fmt, ap);
  if (suffix)
    buf_printf(&b, " %s", suffix);
  buf_puts(&b, "\n");
  if (loc.line > 0)
    show_source(d, loc, &b);
  if (strcmp(kind, "note") != 0) {
    d->nnotes_seen = 0;
  } else if (note_seen(d, &b)) {
    buf_free(&b);
    return;
  }
  put(d, kind, loc, &b);
}

void diag_error(Diag *d, Loc loc, const char *fmt, ...) {
  diag_flush(d);
  d->errors++;
  if (d->errors > MAX_ERRORS) {
    if (!d->capped && d->out) {
      Buf b = {0};
      buf_printf(&b, "%s: error: too many errors, stopping\n", d->file);
      put(d, "last", (Loc){0, 0}, &b);
    }
    d->capped = true;
    d->last_dropped = true;
    return;
  }
  d->last_dropped = false;
  va_list ap;
  va_start(ap, fmt);
  report(d, "error", loc, NULL, fmt, ap);
  va_end(ap);
}

void diag_warning(Diag *d, WarnKind w, Loc loc, const char *fmt, ...) {
  diag_flush(d);
  d->last_dropped = true; /* off or capped: the notes go with it */
  if (d->no_warnings || d->off[w])
    return;
  if (d->werror)
    d->warning_errors++;
  else
    d->warnings++;
  if (d->capped)
    return;
  d->last_dropped = false;
  char suffix[64];
  snprintf(suffix, sizeof suffix, "[%s-W%s]", d->werror ? "-Werror," : "", warn_names[w]);
  va_list ap;
  va_start(ap, fmt);
  report(d, d->werror ? "error" : "warning", loc, suffix, fmt, ap);
  va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...) {
  if (d->last_dropped)
    return;
  va_list ap;
  va_start(ap, fmt);
  report(d, "note", loc, NULL, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------ bounds warnings */

void diag_bounds(Diag *d, Loc loc, const char *tensor, int dim, const char *assume, const char *why) {
  if (d->no_warnings || d->off[W_BOUNDS])
    return;
  if (!assume && !why)
    why = "";
  for (int i = 0; i < d->nbounds; i++) {
    const DiagBound *b = &d->bounds[i];
    if (b->loc.line == loc.line && b->dim == dim && strcmp(b->tensor, tensor) == 0 && !b->assume == !assume &&
        (assume ? strcmp(b->assume, assume) : strcmp(b->why, why)) == 0)
      return; /* the same access twice in one statement */
  }
  if (d->nbounds == MAX_PENDING_BOUNDS)
    diag_flush(d);
  d->bounds[d->nbounds++] = (DiagBound){loc, tensor, dim, assume, why};
}

/* Whether bound b is one of those a list or a note is about: with pick NULL,
 * those with an @assume; otherwise those without one, for the reason pick. */
static bool picked(const DiagBound *b, const char *pick) {
  return pick ? !b->assume && strcmp(b->why, pick) == 0 : b->assume != NULL;
}

/* "dim 0 of 'X'", "dims 0 and 1 of 'X', dim 2 of 'Y' and dim 0 of 'Z'": the
 * picked bounds of e[0..n), by tensor in the order they came. */
static void dims_text(Buf *out, const DiagBound *e, int n, const char *pick, bool all) {
  int first[MAX_PENDING_BOUNDS], ng = 0;
  for (int i = 0; i < n; i++) {
    if (!all && !picked(&e[i], pick))
      continue;
    bool seen = false;
    for (int g = 0; g < ng && !seen; g++)
      seen = strcmp(e[first[g]].tensor, e[i].tensor) == 0;
    if (!seen)
      first[ng++] = i;
  }
  for (int g = 0; g < ng; g++) {
    const char *t = e[first[g]].tensor;
    int dims[MAX_PENDING_BOUNDS], nd = 0;
    for (int i = first[g]; i < n; i++)
      if ((all || picked(&e[i], pick)) && strcmp(e[i].tensor, t) == 0)
        dims[nd++] = e[i].dim;
    buf_puts(out, g == 0 ? "" : g == ng - 1 ? " and " : ", ");
    buf_puts(out, nd == 1 ? "dim " : "dims ");
    for (int k = 0; k < nd; k++)
      buf_printf(out, "%s%d", k == 0 ? "" : k == nd - 1 ? " and " : ", ", dims[k]);
    buf_printf(out, " of '%s'", t);
  }
}

/* The index of dim (tensor, dim) among u[0..n), or -1. */
static int find_dim(const DiagBound *u, int n, const DiagBound *b) {
  for (int j = 0; j < n; j++)
    if (u[j].dim == b->dim && strcmp(u[j].tensor, b->tensor) == 0)
      return j;
  return -1;
}

/* A condition of facts.c's fits_condition, "SIZE % M == 0" or "SIZE >= V": its
 * size's name, the kind ('%' or '>') and M or V. False for any other text. */
static bool cond_parse(const char *c, char *name, size_t cap, char *kind, long long *v) {
  size_t len = strcspn(c, " ");
  if (len == 0 || len >= cap || !c[len])
    return false;
  memcpy(name, c, len);
  name[len] = 0;
  int end = 0;
  if (sscanf(c + len, " %% %lld == 0%n", v, &end) == 1 && !c[len + end]) {
    *kind = '%';
    return *v > 0;
  }
  if (sscanf(c + len, " >= %lld%n", v, &end) == 1 && !c[len + end]) {
    *kind = '>';
    return true;
  }
  return false;
}

/* Whether condition a implies the other, b, for the same size: SIZE % 512 == 0
 * gives SIZE % 4 == 0 and SIZE >= 100 gives SIZE >= 64, and facts.c draws those
 * consequences from an @assume too (facts_assumed_multiple, _at_least), so a
 * note that names only a still drops b's checks. */
static bool cond_implies(const char *a, const char *b) {
  char na[128], nb[128], ka, kb;
  long long va, vb;
  if (!cond_parse(a, na, sizeof na, &ka, &va) || !cond_parse(b, nb, sizeof nb, &kb, &vb) || ka != kb ||
      strcmp(na, nb) != 0)
    return false;
  return ka == '%' ? va % vb == 0 : va >= vb;
}

/* One warning for the bounds of one statement, and its notes: the @assume
 * conditions (each once) that drop the checks they can, and why the others
 * stay. A dim two accesses check is dropped only when both can be. */
static void bounds_warning(Diag *d, const DiagBound *all, int nall) {
  DiagBound e[MAX_PENDING_BOUNDS];
  int n = 0;
  for (int i = 0; i < nall; i++) {
    int j = find_dim(e, n, &all[i]);
    if (j < 0)
      e[n++] = all[i];
    else if (!all[i].assume && e[j].assume)
      e[j] = (DiagBound){e[j].loc, e[j].tensor, e[j].dim, NULL, all[i].why};
  }
  Buf list = {0}, conds = {0}, sub = {0};
  dims_text(&list, e, n, NULL, true);
  diag_warning(d, W_BOUNDS, e[0].loc, "bounds check%s on %s kept inside a loop", n > 1 ? "s" : "", list.data);
  int nh = 0;
  for (int i = 0; i < n; i++)
    nh += e[i].assume != NULL;
  const char *cs[MAX_PENDING_BOUNDS];
  int nc = 0;
  for (int i = 0; i < nall; i++) { /* every condition of the dims that can go, each once */
    if (!all[i].assume || !e[find_dim(e, n, &all[i])].assume)
      continue;
    bool seen = false;
    for (int j = 0; j < nc && !seen; j++)
      seen = strcmp(cs[j], all[i].assume) == 0;
    if (!seen)
      cs[nc++] = all[i].assume;
  }
  for (int i = 0; i < nc; i++) { /* less those a stronger one implies: T % 512 == 0 of T % 4 == 0 */
    bool implied = false;
    for (int j = 0; j < nc && !implied; j++)
      implied = j != i && cond_implies(cs[j], cs[i]);
    if (!implied)
      buf_printf(&conds, "%s%s", conds.len ? ", " : "", cs[i]);
  }
  const char *them = n == 1 ? "it" : "them";
  if (nh == n) {
    diag_note(d, (Loc){0, 0}, "@assume(%s) on the kernel lets tile2cu drop %s", conds.data, them);
  } else if (nh > 0) {
    dims_text(&sub, e, n, NULL, false);
    diag_note(d, (Loc){0, 0}, "@assume(%s) on the kernel lets tile2cu drop the check%s on %s", conds.data,
              nh > 1 ? "s" : "", sub.data);
  }
  for (int i = 0; i < n; i++) { /* one note per reason */
    bool first = !e[i].assume;
    for (int j = 0; j < i && first; j++)
      first = !picked(&e[j], e[i].why);
    if (!first)
      continue;
    int m = 0;
    for (int j = 0; j < n; j++)
      m += picked(&e[j], e[i].why);
    if (m == n) {
      diag_note(d, (Loc){0, 0}, "no @assume can drop %s: %s", them, e[i].why);
      continue;
    }
    sub.len = 0;
    dims_text(&sub, e, n, e[i].why, false);
    diag_note(d, (Loc){0, 0}, "no @assume can drop the check%s on %s: %s", m > 1 ? "s" : "", sub.data, e[i].why);
  }
  buf_free(&list);
  buf_free(&conds);
  buf_free(&sub);
}

/* Prints the pending bounds, one warning per source line, lines in the order they came. */
void diag_flush(Diag *d) {
  int n = d->nbounds;
  if (n == 0)
    return;
  DiagBound all[MAX_PENDING_BOUNDS], line[MAX_PENDING_BOUNDS];
  memcpy(all, d->bounds, sizeof all[0] * (size_t)n);
  d->nbounds = 0; /* bounds_warning's own diag_warning must find none */
  bool done[MAX_PENDING_BOUNDS] = {0};
  for (int i = 0; i < n; i++) {
    if (done[i])
      continue;
    int m = 0;
    for (int j = i; j < n; j++)
      if (!done[j] && all[j].loc.line == all[i].loc.line) {
        line[m++] = all[j];
        done[j] = true;
      }
    bounds_warning(d, line, m);
  }
}
