/* lex.c: source text -> array of Tokens.
 *
 * One pass over the NUL-terminated source. Every token points back into the
 * source (start/len); literals also carry their value. Statement ends are
 * inserted Go-style: a newline (or the end of the file) yields TK_NEWLINE
 * when the previous token can end a statement and no '(' or '[' is open;
 * ';' always yields TK_NEWLINE. A block comment that spans lines counts as a
 * newline. Errors (bad characters, bad literals, an unterminated comment,
 * an identifier longer than MAX_IDENT) are reported and skipped, so lex()
 * always returns a usable array. A file of more than MAX_TOKENS tokens is
 * reported once and yields no tokens but TK_EOF.
 */
#include "t2c.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lexer {
  Arena *a;
  Diag *d;
  const char *p;          /* next character */
  const char *line_start; /* first character of the current line */
  int line;
  int depth;              /* open '(' and '[' */
  TokenKind last;         /* kind of the last token emitted */
  Token *toks;
  int ntoks, cap;
} Lexer;

static Loc loc_of(Lexer *lx, const char *s) {
  return (Loc){lx->line, (int)(s - lx->line_start) + 1};
}

static Token *push(Lexer *lx, TokenKind kind, const char *start, int len, Loc loc) {
  if (lx->ntoks == lx->cap) {
    int cap = lx->cap ? lx->cap * 2 : 256;
    Token *t = NEW_ARRAY(lx->a, Token, cap);
    if (lx->ntoks)
      memcpy(t, lx->toks, sizeof(Token) * (size_t)lx->ntoks);
    lx->toks = t;
    lx->cap = cap;
  }
  Token *t = &lx->toks[lx->ntoks++];
  *t = (Token){.kind = kind, .loc = loc, .start = start, .len = len};
  lx->last = kind;
  return t;
}

static bool ends_statement(TokenKind k) {
  switch (k) {
  case TK_IDENT: case TK_INT: case TK_FLOAT: case TK_RPAREN: case TK_RBRACK:
  case TK_RBRACE: case TK_BREAK: case TK_CONTINUE: case TK_TRUE: case TK_FALSE:
    return true;
  default:
    return false;
  }
}

/* A line break at s (a '\n', a multi-line comment, or the end of the file). */
static void line_break(Lexer *lx, const char *s, int len, Loc loc) {
  if (lx->depth == 0 && ends_statement(lx->last))
    push(lx, TK_NEWLINE, s, len, loc);
}

static void newline(Lexer *lx) {
  line_break(lx, lx->p, 1, loc_of(lx, lx->p));
  lx->p++;
  lx->line++;
  lx->line_start = lx->p;
}

static bool is_ident_start(int c) { return isalpha(c) || c == '_'; }
static bool is_ident_char(int c) { return isalnum(c) || c == '_'; }

/* ---- comments */

static void line_comment(Lexer *lx) {
  while (*lx->p && *lx->p != '\n')
    lx->p++;
}

static void block_comment(Lexer *lx) {
  const char *start = lx->p;
  Loc loc = loc_of(lx, start);
  bool multiline = false;
  lx->p += 2;
  for (;;) {
    if (*lx->p == '\0') {
      diag_error(lx->d, loc, "unterminated comment");
      return;
    }
    if (lx->p[0] == '*' && lx->p[1] == '/')
      break;
    if (*lx->p == '\n') {
      multiline = true;
      lx->line++;
      lx->line_start = lx->p + 1;
    }
    lx->p++;
  }
  lx->p += 2;
  if (multiline)
    line_break(lx, start, 2, loc);
}

/* ---- numbers */

static int digit_value(int c) {
  if (isdigit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return 99;
}

/* Skips a run of digits in `base` with '_' separators; returns the count of
 * digits. A '_' not followed by a digit is reported once through *bad. */
static int digit_run(Lexer *lx, int base, bool *bad) {
  int n = 0;
  for (;;) {
    int c = (unsigned char)*lx->p;
    if (c == '_') {
      if (digit_value((unsigned char)lx->p[1]) >= base)
        *bad = true;
      lx->p++;
    } else if (digit_value(c) < base) {
      lx->p++;
      n++;
    } else {
      return n;
    }
  }
}

/* Letters glued to a number ("12abc", "1.5f") are an error; skip them. */
static void bad_suffix(Lexer *lx, const char *what) {
  const char *s = lx->p;
  if (!is_ident_char((unsigned char)*s))
    return;
  while (is_ident_char((unsigned char)*lx->p))
    lx->p++;
  diag_error(lx->d, loc_of(lx, s), "invalid suffix '%.*s' on %s", (int)(lx->p - s), s, what);
}

/* Value of the digits in [s, e) in `base`; false on uint64 overflow. */
static bool int_value(const char *s, const char *e, int base, uint64_t *out) {
  uint64_t v = 0;
  for (; s < e; s++) {
    if (*s == '_')
      continue;
    uint64_t dv = (uint64_t)digit_value((unsigned char)*s);
    if (v > (UINT64_MAX - dv) / (uint64_t)base)
      return false;
    v = v * (uint64_t)base + dv;
  }
  *out = v;
  return true;
}

/* A literal past INT64_MAX. There is no u64, so a literal is an i64 constant
 * at most; one that fits 64 bits (a mask such as 0xFFFFFFFFFFFFFFFF) is most
 * likely meant as those bits, which the note spells as an i64 (-1, ~0xFF). */
static void int_too_large(Lexer *lx, Loc loc, bool fits_u64, uint64_t v, int base) {
  diag_error(lx->d, loc, "integer literal is too large: a literal is at most 9223372036854775807 "
             "(0x7FFFFFFFFFFFFFFF), the largest i64");
  if (!fits_u64)
    return;
  if (v == UINT64_MAX)
    diag_note(lx->d, (Loc){0}, "there is no unsigned 64-bit type: for all 64 bits set, write -1");
  else if (base == 16)
    diag_note(lx->d, (Loc){0}, "there is no unsigned 64-bit type: for these 64 bits as an i64, write ~0x%llX",
              (unsigned long long)~v);
  else if (v == (uint64_t)INT64_MAX + 1)
    diag_note(lx->d, (Loc){0}, "there is no unsigned 64-bit type: for these 64 bits as an i64, write "
              "(-9223372036854775807 - 1)");
  else
    diag_note(lx->d, (Loc){0}, "there is no unsigned 64-bit type: for these 64 bits as an i64, write -%llu",
              (unsigned long long)(0 - v));
}

static void finish_int(Lexer *lx, const char *start, const char *digits, int base, bool bad) {
  const char *end = lx->p;
  Loc loc = loc_of(lx, start);
  Token *t = push(lx, TK_INT, start, (int)(end - start), loc);
  if (bad)
    diag_error(lx->d, loc, "'_' in a number must separate digits");
  uint64_t v = 0;
  bool fits = int_value(digits, end, base, &v);
  if (fits && v <= (uint64_t)INT64_MAX)
    t->ival = (int64_t)v;
  else
    int_too_large(lx, loc, fits, v, base);
  bad_suffix(lx, "integer literal");
}

static void hex_number(Lexer *lx) {
  const char *start = lx->p;
  bool bad = false;
  lx->p += 2;
  if (digit_run(lx, 16, &bad) == 0) {
    Loc loc = loc_of(lx, start);
    while (is_ident_char((unsigned char)*lx->p))
      lx->p++;
    push(lx, TK_INT, start, (int)(lx->p - start), loc);
    diag_error(lx->d, loc, "hex literal '%.*s' has no digits", (int)(lx->p - start), start);
    return;
  }
  finish_int(lx, start, start + 2, 16, bad);
}

static bool at_exponent(const char *p) {
  if (*p != 'e' && *p != 'E')
    return false;
  p++;
  if (*p == '+' || *p == '-')
    p++;
  return isdigit((unsigned char)*p);
}

static void float_number(Lexer *lx, const char *start, bool bad) {
  if (*lx->p == '.') {
    lx->p++;
    digit_run(lx, 10, &bad);
  }
  if (at_exponent(lx->p)) {
    lx->p++;
    if (*lx->p == '+' || *lx->p == '-')
      lx->p++;
    digit_run(lx, 10, &bad);
  }
  int len = (int)(lx->p - start);
  Loc loc = loc_of(lx, start);
  Token *t = push(lx, TK_FLOAT, start, len, loc);
  char *clean = arena_alloc(lx->a, (size_t)len + 1), *q = clean;
  for (int i = 0; i < len; i++)
    if (start[i] != '_')
      *q++ = start[i];
  t->fval = strtod(clean, NULL);
  if (bad)
    diag_error(lx->d, loc, "'_' in a number must separate digits");
  if (isinf(t->fval))
    diag_error(lx->d, loc, "float literal is too large");
  bad_suffix(lx, "float literal");
}

static void number(Lexer *lx) {
  const char *start = lx->p;
  if (start[0] == '0' && (start[1] == 'x' || start[1] == 'X')) {
    hex_number(lx);
    return;
  }
  bool bad = false;
  digit_run(lx, 10, &bad);
  bool frac = lx->p[0] == '.' && isdigit((unsigned char)lx->p[1]);
  if (frac || at_exponent(lx->p))
    float_number(lx, start, bad);
  else
    finish_int(lx, start, start, 10, bad);
}

/* ---- identifiers, keywords, punctuation */

static void identifier(Lexer *lx) {
  const char *start = lx->p;
  while (is_ident_char((unsigned char)*lx->p))
    lx->p++;
  int len = (int)(lx->p - start);
  if (len > MAX_IDENT)
    diag_error(lx->d, loc_of(lx, start), "identifier is longer than %d characters", MAX_IDENT);
  TokenKind kind = TK_IDENT;
  for (int k = TK_KERNEL; k <= TK_FALSE; k++)
    if ((int)strlen(token_names[k]) == len && memcmp(token_names[k], start, (size_t)len) == 0)
      kind = (TokenKind)k;
  push(lx, kind, start, len, loc_of(lx, start));
}

/* Longest operator or punctuation token at p; TK_EOF when none matches. */
static TokenKind punct_at(const char *p, int *len) {
  TokenKind best = TK_EOF;
  *len = 0;
  for (int k = TK_LPAREN; k <= TK_TILDE; k++) {
    int n = (int)strlen(token_names[k]);
    if (n > *len && strncmp(p, token_names[k], (size_t)n) == 0) {
      best = (TokenKind)k;
      *len = n;
    }
  }
  return best;
}

static void punct(Lexer *lx, TokenKind kind, int len) {
  Loc loc = loc_of(lx, lx->p);
  if (kind == TK_SEMI)
    kind = TK_NEWLINE;
  push(lx, kind, lx->p, len, loc);
  lx->p += len;
  if (kind == TK_RBRACE)
    lx->depth = 0; /* a '}' ends any unclosed '(' or '[': it must not swallow the rest of the file's newlines */
  else if (kind == TK_LPAREN || kind == TK_LBRACK)
    lx->depth++;
  else if ((kind == TK_RPAREN || kind == TK_RBRACK) && lx->depth > 0)
    lx->depth--;
}

/* Length of a well-formed UTF-8 sequence at p, or 0. */
static int utf8_len(const unsigned char *p) {
  int n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
  if (p[0] > 0xF4)
    return 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80)
      return 0;
  return n;
}

static void unexpected(Lexer *lx) {
  const unsigned char *s = (const unsigned char *)lx->p;
  Loc loc = loc_of(lx, lx->p);
  int n = utf8_len(s);
  if (n > 0)
    diag_error(lx->d, loc, "unexpected character '%.*s'", n, lx->p);
  else if (isprint(s[0]))
    diag_error(lx->d, loc, "unexpected character '%c'", s[0]);
  else
    diag_error(lx->d, loc, "unexpected character '\\x%02x'", s[0]);
  lx->p += n > 0 ? n : 1;
}

static void token(Lexer *lx) {
  int c = (unsigned char)*lx->p;
  int len;
  TokenKind k;
  if (c == '\n')
    newline(lx);
  else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')
    lx->p++;
  else if (c == '/' && lx->p[1] == '/')
    line_comment(lx);
  else if (c == '/' && lx->p[1] == '*')
    block_comment(lx);
  else if (isdigit(c))
    number(lx);
  else if (is_ident_start(c))
    identifier(lx);
  else if ((k = punct_at(lx->p, &len)) != TK_EOF)
    punct(lx, k, len);
  else
    unexpected(lx);
}

/* The end of the file sits at the final newline when there is one, so that
 * "expected '}'" points at the last line rather than an empty one. */
static Loc eof_loc(Lexer *lx, const char *src) {
  const char *end = lx->p;
  if (end > src && end[-1] == '\n') {
    const char *ls = end - 1;
    while (ls > src && ls[-1] != '\n')
      ls--;
    return (Loc){lx->line - 1, (int)(end - 1 - ls) + 1};
  }
  return loc_of(lx, end);
}

Token *lex(Arena *a, Diag *d, const char *src, int *ntokens) {
  Lexer lx = {.a = a, .d = d, .p = src, .line_start = src, .line = 1, .last = TK_NEWLINE};
  while (*lx.p && lx.ntoks <= MAX_TOKENS)
    token(&lx);
  if (lx.ntoks > MAX_TOKENS) {
    diag_error(d, lx.toks[MAX_TOKENS].loc, "the file has more than %d tokens", MAX_TOKENS);
    lx.ntoks = 0;
    lx.last = TK_NEWLINE;
  }
  Loc loc = eof_loc(&lx, src);
  line_break(&lx, lx.p, 0, loc);
  push(&lx, TK_EOF, lx.p, 0, loc);
  *ntokens = lx.ntoks;
  return lx.toks;
}
