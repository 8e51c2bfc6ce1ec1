/* options.c: the options that change a translation, taken by every verb that
 * translates (tile2cu, run, compile, report) and by libtile2cu's compile call.
 *
 *   -D NAME=VALUE, -DNAME=VALUE   the file-level `const NAME` takes VALUE: an
 *                                 integer or float literal, by the language's
 *                                 own rules (lex.c), with an optional '-'; of
 *                                 several -D of one NAME the last wins
 *   -Wno-NAME                     warning NAME is off (warnings.def)
 *   -WNAME                        warning NAME is on (the default; of -WNAME and
 *                                 -Wno-NAME of one NAME the last wins)
 *   -Werror                       warnings are errors
 *   -w                            no warnings
 *
 * A command line keeps them as written (opts_take), so that the verbs that go
 * through libtile2cu hand the same strings to the library. translate() reads
 * them before lexing (opts_read): a malformed one is an error of the file, as
 * every verb and the library report it alike. After parsing, opts_define puts
 * each VALUE in place of its const's value, as the literal it is, so check.c
 * types the const as it would had the file said VALUE (an integer literal
 * makes an integer const, a float literal a float const).
 */
#include "t2c.h"

#include <stdlib.h>
#include <string.h>

bool opts_take(int argc, char **argv, int *i, const char **out, int *nout) {
  const char *s = argv[*i];
  if (strcmp(s, "-D") == 0) {
    out[(*nout)++] = s;
    if (*i + 1 < argc) out[(*nout)++] = argv[++*i];
    return true;
  }
  if (strncmp(s, "-D", 2) == 0 || strncmp(s, "-W", 2) == 0 || strcmp(s, "-w") == 0) {
    out[(*nout)++] = s;
    return true;
  }
  return false;
}

/* The warning names, for messages: "bounds, registers-copy, ...". */
static const char *warning_list(Arena *a) {
  Buf b = {0};
  for (int w = 0; w < W_COUNT; w++) buf_printf(&b, "%s%s", w ? ", " : "", warn_names[w]);
  const char *s = arena_strndup(a, b.data, b.len);
  buf_free(&b);
  return s;
}

static bool read_warning_option(Arena *a, Diag *d, const char *s) {
  if (strcmp(s, "-w") == 0) d->no_warnings = true;
  else if (strcmp(s, "-Werror") == 0) d->werror = true;
  else if (strncmp(s, "-Wno-", 5) == 0 && warn_lookup(s + 5) >= 0) d->off[warn_lookup(s + 5)] = true;
  else if (strncmp(s, "-W", 2) == 0 && warn_lookup(s + 2) >= 0) d->off[warn_lookup(s + 2)] = false; /* on again */
  else {
    diag_error(d, (Loc){0, 0}, "unknown warning option '%s'", s);
    diag_note(d, (Loc){0, 0}, "-Wno-NAME and -WNAME take one of: %s; -Werror and -w take no name", warning_list(a));
    return false;
  }
  return true;
}

/* The lexer's first message on text ("integer literal is too large"), or NULL. */
static const char *lex_error(Arena *a, const char *text) {
  char *msgs = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&msgs, &len);
  if (!f) return NULL;
  Diag d;
  diag_init(&d, "", text, f);
  int n;
  lex(a, &d, text, &n);
  fclose(f);
  const char *m = msgs ? strstr(msgs, "error: ") : NULL;
  const char *r = m ? arena_strndup(a, m + 7, strcspn(m + 7, "\n")) : NULL;
  free(msgs);
  return r;
}

/* VALUE as the expression the file would have for it: INT, FLOAT, or '-' and
 * one of them. NULL when it is not one literal, with *why saying so when the
 * lexer can tell. */
static Expr *literal(Arena *a, const char *text, const char **why) {
  *why = NULL;
  if (!*text || strpbrk(text, " \t\r\n\v\f")) return NULL;
  Diag quiet; /* the lexer's own messages would point into the file */
  diag_init(&quiet, "", text, NULL);
  int n;
  Token *t = lex(a, &quiet, text, &n);
  bool neg = t[0].kind == TK_MINUS;
  Token *num = &t[neg];
  if (quiet.errors) *why = lex_error(a, text);
  if (quiet.errors || (num->kind != TK_INT && num->kind != TK_FLOAT)) return NULL;
  for (int i = neg + 1; i < n; i++)
    if (t[i].kind != TK_NEWLINE && t[i].kind != TK_EOF) return NULL;
  Expr *x = NEW(a, Expr);
  x->ty.elem = T_NONE;
  if (num->kind == TK_INT) {
    x->kind = E_INT;
    x->u.ival = num->ival;
  } else {
    x->kind = E_FLOAT;
    x->u.fval = num->fval;
    char *s = arena_alloc(a, (size_t)num->len + 1), *q = s;
    for (int i = 0; i < num->len; i++)
      if (num->start[i] != '_') *q++ = num->start[i];
    x->u.ftext = s;
  }
  if (!neg) return x;
  Expr *u = NEW(a, Expr);
  u->kind = E_UNARY;
  u->ty.elem = T_NONE;
  u->u.unary.op = TK_MINUS;
  u->u.unary.a = x;
  return u;
}

/* -D's argument NAME=VALUE into the next Define; false after an error. */
static bool read_define(Arena *a, Diag *d, const char *arg, Defines *defs) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg) {
    diag_error(d, (Loc){0, 0}, "-D '%s': expected NAME=VALUE", arg);
    return false;
  }
  Define *def = &defs->v[defs->n];
  def->name = arena_strndup(a, arg, (size_t)(eq - arg));
  def->text = eq + 1;
  const char *why;
  def->value = literal(a, def->text, &why);
  if (!def->value) {
    diag_error(d, (Loc){0, 0}, "-D %s: '%s' is not an integer or float literal%s%s", arg, def->text,
               why ? ": " : "", why ? why : "");
    return false;
  }
  defs->n++;
  return true;
}

bool opts_read(Arena *a, Diag *d, const char *const *opts, int nopts, Defines *defs) {
  defs->v = NEW_ARRAY(a, Define, nopts + 1);
  defs->n = 0;
  bool ok = true;
  for (int i = 0; i < nopts; i++) {
    const char *s = opts[i];
    if (strcmp(s, "-D") == 0) {
      if (i + 1 < nopts) ok &= read_define(a, d, opts[++i], defs);
      else {
        diag_error(d, (Loc){0, 0}, "-D needs NAME=VALUE");
        ok = false;
      }
    } else if (strncmp(s, "-D", 2) == 0) {
      ok &= read_define(a, d, s + 2, defs);
    } else {
      ok &= read_warning_option(a, d, s);
    }
  }
  return ok;
}

/* The file-level const named name, or NULL. */
static Stmt *file_const(Program *p, const char *name) {
  for (int i = 0; i < p->nconsts; i++)
    if (strcmp(p->consts[i]->u.decl.name, name) == 0) return p->consts[i];
  return NULL;
}

/* Whether a later -D names the same const (the last one wins). */
static bool overridden(const Defines *defs, int i) {
  for (int j = i + 1; j < defs->n; j++)
    if (strcmp(defs->v[j].name, defs->v[i].name) == 0) return true;
  return false;
}

static void no_such_const(Arena *a, Diag *d, Program *p, const Define *def) {
  diag_error(d, (Loc){0, 0}, "-D %s=%s: the file has no file-level const '%s'", def->name, def->text, def->name);
  Buf b = {0};
  for (int i = 0; i < p->nconsts; i++) buf_printf(&b, "%s'%s'", i ? ", " : "", p->consts[i]->u.decl.name);
  if (b.len) diag_note(d, (Loc){0, 0}, "-D sets a const declared outside the kernels; this file's are %s", b.data);
  else diag_note(d, (Loc){0, 0}, "-D sets a const declared outside the kernels; this file declares none");
  buf_free(&b);
}

/* Gives x, and what it points to, the location loc. */
static void place(Expr *x, Loc loc) {
  x->loc = loc;
  if (x->kind == E_UNARY) x->u.unary.a->loc = loc;
}

bool opts_define(Arena *a, Diag *d, Program *p, const Defines *defs) {
  bool ok = true;
  p->defines = NULL;
  for (int i = 0; i < defs->n; i++) {
    if (overridden(defs, i)) continue;
    Stmt *c = file_const(p, defs->v[i].name);
    if (!c) {
      no_such_const(a, d, p, &defs->v[i]);
      ok = false;
      continue;
    }
    place(defs->v[i].value, c->u.decl.init ? c->u.decl.init->loc : c->u.decl.name_loc);
    c->u.decl.init = defs->v[i].value;
    c->u.decl.define = arena_printf(a, "-D %s=%s", defs->v[i].name, defs->v[i].text);
  }
  /* which were applied, in the order of the file (the .cu's header says them) */
  Buf b = {0};
  for (int k = 0; k < p->nconsts; k++)
    for (int i = 0; i < defs->n; i++)
      if (!overridden(defs, i) && strcmp(defs->v[i].name, p->consts[k]->u.decl.name) == 0)
        buf_printf(&b, "%s-D %s=%s", b.len ? " " : "", defs->v[i].name, defs->v[i].text);
  if (b.len) p->defines = arena_strndup(a, b.data, b.len);
  buf_free(&b);
  return ok;
}
