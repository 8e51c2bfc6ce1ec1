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
 * After MAX_ERRORS errors one "too many errors" line is printed and every
 * later error, and the notes that follow it, are counted but not printed.
 */
#include "t2c.h"

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
 * that asks for lines in order (emit.c's comments, warnings) stays linear. */
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

/* The source line and a caret under column loc.col. */
static void show_source(Diag *d, Loc loc) {
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
  fprintf(d->out, "%s\n%s\n", text.data ? text.data : "", caret.data);
  buf_free(&line);
  buf_free(&text);
  buf_free(&caret);
}

static void report(Diag *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  if (loc.line > 0)
    fprintf(d->out, "%s:%d:%d: %s: ", d->file, loc.line, loc.col, kind);
  else if (strcmp(kind, "note") == 0)
    fprintf(d->out, "note: ");
  else
    fprintf(d->out, "%s: %s: ", d->file, kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  if (loc.line > 0)
    show_source(d, loc);
}

void diag_error(Diag *d, Loc loc, const char *fmt, ...) {
  d->errors++;
  if (d->errors > MAX_ERRORS) {
    if (!d->capped)
      fprintf(d->out, "%s: error: too many errors, stopping\n", d->file);
    d->capped = true;
    d->last_dropped = true;
    return;
  }
  d->last_dropped = false;
  va_list ap;
  va_start(ap, fmt);
  report(d, "error", loc, fmt, ap);
  va_end(ap);
}

void diag_warning(Diag *d, Loc loc, const char *fmt, ...) {
  d->warnings++;
  d->last_dropped = d->capped; /* once capped, only silence follows */
  if (d->capped)
    return;
  va_list ap;
  va_start(ap, fmt);
  report(d, "warning", loc, fmt, ap);
  va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...) {
  if (d->last_dropped)
    return;
  va_list ap;
  va_start(ap, fmt);
  report(d, "note", loc, fmt, ap);
  va_end(ap);
}
