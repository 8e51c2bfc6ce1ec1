/* diag.c: clang-style diagnostics.
 *
 *   FILE:LINE:COL: error: MESSAGE
 *   <the source line>
 *   <spaces (tabs kept as tabs) up to COL>^
 *
 * Warnings say "warning:", notes "note:". A message without a location
 * (line 0) prints "FILE: error: MESSAGE", or just "note: MESSAGE" for a note.
 * After MAX_ERRORS errors one "too many errors" line is printed and every
 * later error, and the notes that follow it, are counted but not printed.
 */
#include "tile2cu.h"

#include <string.h>

void diag_init(Diag *d, const char *file, const char *src, FILE *out) {
  memset(d, 0, sizeof *d);
  d->file = file;
  d->src = src;
  d->out = out;
}

/* Start of source line `line` (1-based), or NULL when there is no such line. */
static const char *line_start(const Diag *d, int line) {
  if (!d->src || line < 1)
    return NULL;
  const char *p = d->src;
  for (int l = 1; l < line; l++) {
    p = strchr(p, '\n');
    if (!p)
      return NULL;
    p++;
  }
  return p;
}

void diag_source_line(const Diag *d, int line, Buf *out) {
  const char *s = line_start(d, line);
  if (!s)
    return;
  size_t n = strcspn(s, "\n");
  if (n > 0 && s[n - 1] == '\r')
    n--;
  buf_putn(out, s, n);
}

/* The source line and a caret under column loc.col. */
static void show_source(Diag *d, Loc loc) {
  if (!line_start(d, loc.line))
    return;
  Buf text = {0};
  diag_source_line(d, loc.line, &text);
  Buf caret = {0};
  size_t col = loc.col > 1 ? (size_t)loc.col - 1 : 0;
  if (col > text.len)
    col = text.len; /* at most one past the end: where a newline or EOF sits */
  for (size_t i = 0; i < col; i++)
    buf_putn(&caret, text.data[i] == '\t' ? "\t" : " ", 1);
  buf_puts(&caret, "^");
  fprintf(d->out, "%.*s\n%s\n", (int)text.len, text.len ? text.data : "", caret.data);
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
