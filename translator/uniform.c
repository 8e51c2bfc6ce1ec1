/* uniform.c: where() conditions that hold over a whole tile, tested once.
 *
 * A mask such as where(k0 + cols(BQ, BK) < S && (causal == 0 || q0 +
 * rows(BQ, BK) >= k0 + cols(BQ, BK)), 0.0, -inf) costs two compares and a
 * select per element, in every iteration of attention's key loop, although
 * only the last key block (ragged S) and the blocks on the diagonal (causal)
 * mask anything. For a condition built from &&, || and integer comparisons of
 * expressions affine in rows() and cols() (+, -, unary -, * by a constant) over
 * scalars, this stage derives a scalar guard that implies the condition at every
 * element: each comparison with rows() and cols() at the corner of their ranges
 * that is worst for it (max of l - r for < and <=, min for > and >=; each
 * occurrence on its own, so the guard is exact for affine conditions and only
 * stricter otherwise), a scalar part as it is, && of both sides, || of the sides
 * that have a guard. The op (an elementwise assign over a whole tile) then
 * prints twice, `if (guard)` with every such where() replaced by its first
 * branch, else as written (TirOp.uguard, TirOp.uwhere). Comparisons of floats,
 * ==, !=, !, and tile values decline; the where() is then kept as it is.
 * Which branch runs never changes a value: under the guard, each replaced
 * where() would have taken its first branch anyway.
 */
#include "t2c.h"

static Expr *new_expr(const TirKernel *K, ExprKind kind, const Expr *like) {
  Expr *e = NEW(K->a, Expr); /* zeroed */
  e->kind = kind;
  e->loc = like->loc;
  e->ty = like->ty;
  e->ty.rank = 0;
  e->ty.dims[0] = e->ty.dims[1] = 0;
  return e;
}

static Expr *int_lit(const TirKernel *K, const Expr *like, int64_t v) {
  Expr *e = new_expr(K, E_INT, like);
  e->ty.elem = T_I32;
  e->ty.untyped = false;
  e->u.ival = v;
  e->flags = EF_CONST;
  e->cv.i = v;
  return e;
}

static bool is_index_tile(const Expr *x) {
  return x->kind == E_CALL && x->u.call.cast == T_NONE &&
         (x->u.call.builtin == B_ROWS || x->u.call.builtin == B_COLS);
}

/* Whether x is a scalar the printer can evaluate once for the op (no tile in it). */
static bool scalar(const TirKernel *K, const Expr *x) {
  return x->ty.rank == 0 && !(x->flags & EF_TILE) && !tir_read(K, x);
}

/* x with each rows() / cols() at the end of its range that maximizes (max) the
 * comparison's l - r, x's terms counted with sign; NULL when x is not affine in
 * them over scalars. */
static Expr *corner(const TirKernel *K, const Expr *x, int sign, bool max, bool *saw) {
  if (scalar(K, x)) return (Expr *)x;
  if (is_index_tile(x)) {
    int extent = x->ty.dims[x->u.call.builtin == B_ROWS ? 0 : 1];
    *saw = true;
    return int_lit(K, x, (sign > 0) == max ? extent - 1 : 0);
  }
  if (tir_hoisted(K, x) || tir_read(K, x) || !elem_is_int(x->ty.elem)) return NULL;
  if (x->kind == E_UNARY && x->u.unary.op == TK_MINUS) {
    Expr *a = corner(K, x->u.unary.a, -sign, max, saw);
    if (!a) return NULL;
    Expr *e = new_expr(K, E_UNARY, x);
    e->u.unary.op = TK_MINUS;
    e->u.unary.a = a;
    return e;
  }
  if (x->kind != E_BINARY) return NULL;
  TokenKind op = x->u.binary.op;
  const Expr *l = x->u.binary.a, *r = x->u.binary.b;
  int ls = sign, rs = op == TK_MINUS ? -sign : sign;
  if (op == TK_STAR) { /* a constant factor scales the other side: its sign counts */
    const Expr *c = (l->flags & EF_CONST) ? l : (r->flags & EF_CONST) ? r : NULL;
    if (!c || c->cv.isf) return NULL;
    int cs = c->cv.i < 0 ? -1 : 1;
    ls = c == l ? sign : sign * cs;
    rs = c == r ? sign : sign * cs;
  } else if (op != TK_PLUS && op != TK_MINUS) {
    return NULL;
  }
  Expr *a = corner(K, l, ls, max, saw), *b = a ? corner(K, r, rs, max, saw) : NULL;
  if (!b) return NULL;
  if (op != TK_STAR && b->kind == E_INT && b->u.ival == 0) return a; /* a corner at 0 adds nothing */
  if (op == TK_PLUS && a->kind == E_INT && a->u.ival == 0) return b;
  Expr *e = new_expr(K, E_BINARY, x);
  e->u.binary.op = op;
  e->u.binary.a = a;
  e->u.binary.b = b;
  return e;
}

static Expr *logical(const TirKernel *K, const Expr *like, TokenKind op, Expr *a, Expr *b) {
  Expr *e = new_expr(K, E_BINARY, like);
  e->ty.elem = T_BOOL;
  e->ty.untyped = false;
  e->flags = 0;
  e->u.binary.op = op;
  e->u.binary.a = a;
  e->u.binary.b = b;
  return e;
}

/* A scalar condition that implies c at every element, or NULL; *saw: it
 * depends on rows() or cols() at all (a purely scalar condition needs no guard). */
static Expr *guard(const TirKernel *K, const Expr *c, bool *saw) {
  if (scalar(K, c)) return (Expr *)c;
  if (c->kind != E_BINARY || tir_hoisted(K, c) || tir_read(K, c)) return NULL;
  const Expr *l = c->u.binary.a, *r = c->u.binary.b;
  switch (c->u.binary.op) {
  case TK_ANDAND: {
    Expr *a = guard(K, l, saw), *b = a ? guard(K, r, saw) : NULL;
    return b ? logical(K, c, TK_ANDAND, a, b) : NULL;
  }
  case TK_OROR: {
    Expr *a = guard(K, l, saw), *b = guard(K, r, saw);
    return a && b ? logical(K, c, TK_OROR, a, b) : a ? a : b;
  }
  case TK_LT: case TK_LE: case TK_GT: case TK_GE: {
    if (!elem_is_int(l->ty.elem) || !elem_is_int(r->ty.elem)) return NULL;
    bool max = c->u.binary.op == TK_LT || c->u.binary.op == TK_LE;
    Expr *a = corner(K, l, 1, max, saw), *b = a ? corner(K, r, -1, max, saw) : NULL;
    if (!b) return NULL;
    Expr *e = new_expr(K, E_BINARY, c);
    e->flags = 0;
    e->u.binary.op = c->u.binary.op;
    e->u.binary.a = a;
    e->u.binary.b = b;
    return e;
  }
  default: return NULL;
  }
}

static void find_wheres(TirKernel *K, TirOp *op, const Expr *x) {
  if (tir_hoisted(K, x) || tir_read(K, x)) return;
  switch (x->kind) {
  case E_UNARY: find_wheres(K, op, x->u.unary.a); return;
  case E_BINARY:
    find_wheres(K, op, x->u.binary.a);
    find_wheres(K, op, x->u.binary.b);
    return;
  case E_CALL:
    if (x->u.call.cast == T_NONE && x->u.call.builtin == B_WHERE && op->nuwhere < TIR_MAX_UWHERE) {
      bool saw = false;
      Expr *g = guard(K, x->u.call.args[0], &saw);
      if (g && saw) {
        op->uwhere[op->nuwhere++] = x;
        op->uguard = op->uguard ? logical(K, x, TK_ANDAND, op->uguard, g) : g;
      }
    }
    for (int i = 0; i < x->u.call.nargs; i++) find_wheres(K, op, x->u.call.args[i]);
    return;
  default: return;
  }
}

static void block(TirKernel *K, TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    if (op->kind == TO_ASSIGN && op->expr && !op->has_win && !op->win[0] && !op->win[1] && op->rows > 0)
      find_wheres(K, op, op->expr);
    block(K, &op->body);
    block(K, &op->els);
  }
}

void uniform_wheres(TirKernel *K) { block(K, &K->body); }
