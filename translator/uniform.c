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

/* An elementwise assign over a whole tile, or in a loop a store of a tile (Y[..] =
 * where(..), each element's value computed as it is stored: printed twice, it is worth
 * it where it runs again). */
static bool guardable(const TirOp *op, int loops) {
  if (op->kind == TO_STORE) return loops > 0 && op->expr && op->rows > 0 && !op->td;
  return op->kind == TO_ASSIGN && op->expr && !op->has_win && !op->win[0] && !op->win[1] && op->rows > 0;
}

static void block(TirKernel *K, TirBlock *b, int loops) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    if (guardable(op, loops)) find_wheres(K, op, op->expr);
    bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
    block(K, &op->body, loops + loop);
    block(K, &op->els, loops + loop);
  }
}

void uniform_wheres(TirKernel *K) { block(K, &K->body, 0); }

/* ------------------------------------------------------------ mask vars
 *
 * var ok = k0 + cols(BQ, BK) < S, then where(ok, s, -inf): the same mask, named. The
 * where() reads a bool tile, which no guard can be derived from, so every element
 * selects and the var's 32 bools stay live from its declaration (before the dots) to
 * the where(). Before layouts, a where() condition that is such a var (or a side of
 * && and || in one), declared once as an expression a guard exists for and never
 * written again (layout_declared_value), reads a copy of that expression instead
 * (layout_recompute: scalars that hold one value from their declaration on), as if
 * written in its place; uniform_wheres then guards it. A var nothing else reads then
 * is no value at all: its declaration and its one write go (nvcc: "set but never
 * used"), and with them its registers, layout and any conversion. */

/* The vars whose reads some where() no longer makes. */
typedef struct Masks {
  PtrVec vars;
} Masks;

/* A copy of x as layout_recompute makes it, with each tile var in it declared so (a
 * var, never written again, of an expression of rows(), cols() and such scalars: var
 * kj = k0 + cols(BQ, BK)) replaced by a copy of its expression, the vars noted in *vars
 * (at most 8); NULL where layout_recompute declines. Index tiles named so guard a mask
 * written with them (where(kj <= qi, ..)) as they do written in place. */
typedef struct Expand {
  const TirVar *vars[8];
  int n;
  int budget;
} Expand;

static Expr *expand(TirKernel *K, const Expr *x, Expand *ex, int depth) {
  if (x->kind == E_IDENT && x->ty.rank == 2 && depth < 4) {
    const Expr *init = layout_declared_value(K, x);
    const TirVar *v = init ? tir_var_of(K, x->u.ident.sym) : NULL;
    if (!v || init->ty.elem != x->ty.elem || init->ty.rank != 2 || init->ty.dims[0] != x->ty.dims[0] ||
        init->ty.dims[1] != x->ty.dims[1] || ex->n == 8)
      return NULL;
    ex->vars[ex->n++] = v;
    return expand(K, init, ex, depth + 1);
  }
  if (tir_hoisted(K, x) || tir_read(K, x)) return NULL;
  switch (x->kind) {
  case E_UNARY: case E_BINARY: {
    if (--ex->budget < 0) return NULL;
    Expr *e = NEW(K->a, Expr);
    *e = *x;
    if (x->kind == E_UNARY) return (e->u.unary.a = expand(K, x->u.unary.a, ex, depth)) ? e : NULL;
    e->u.binary.a = expand(K, x->u.binary.a, ex, depth);
    e->u.binary.b = e->u.binary.a ? expand(K, x->u.binary.b, ex, depth) : NULL;
    return e->u.binary.b ? e : NULL;
  }
  default: return layout_recompute(K, x, &ex->budget);
  }
}

/* c, written with tile vars of such expressions, as their expressions, when a guard
 * exists for that: the op's own node becomes the copy (as layout.c's recomputed
 * conversions), and the vars are noted. */
static bool inline_expanded(TirKernel *K, Masks *m, Expr *c) {
  Expand ex = {{0}, 0, 24};
  Expr *e = expand(K, c, &ex, 0);
  bool saw = false;
  if (!e || !ex.n || !guard(K, e, &saw) || !saw) return false;
  Loc at = c->loc;
  *c = *e;
  c->loc = at;
  for (int i = 0; i < ex.n; i++)
    if (!vec_has(&m->vars, ex.vars[i])) vec_push(K->a, &m->vars, (void *)ex.vars[i]);
  return true;
}

static void inline_mask(TirKernel *K, Masks *m, Expr *c) {
  if (tir_hoisted(K, c) || tir_read(K, c)) return;
  if (c->kind == E_BINARY && (c->u.binary.op == TK_ANDAND || c->u.binary.op == TK_OROR)) {
    inline_mask(K, m, c->u.binary.a);
    inline_mask(K, m, c->u.binary.b);
    return;
  }
  if (c->kind == E_BINARY && c->u.binary.op >= TK_LT && c->u.binary.op <= TK_GE) { /* kj <= qi */
    inline_expanded(K, m, c);
    return;
  }
  if (c->kind != E_IDENT || c->ty.elem != T_BOOL) return;
  inline_expanded(K, m, c); /* var ok = k0 + cols(..) < S, or = kj <= qi */
}

static void mask_wheres(TirKernel *K, Masks *m, Expr *x) {
  if (tir_hoisted(K, x) || tir_read(K, x)) return;
  switch (x->kind) {
  case E_UNARY: mask_wheres(K, m, x->u.unary.a); return;
  case E_BINARY:
    mask_wheres(K, m, x->u.binary.a);
    mask_wheres(K, m, x->u.binary.b);
    return;
  case E_CALL:
    if (x->u.call.cast == T_NONE && x->u.call.builtin == B_WHERE) inline_mask(K, m, x->u.call.args[0]);
    for (int i = 0; i < x->u.call.nargs; i++) mask_wheres(K, m, x->u.call.args[i]);
    return;
  default: return;
  }
}

static void mask_block(TirKernel *K, Masks *m, TirBlock *b, int loops) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    if (guardable(op, loops)) mask_wheres(K, m, op->expr);
    bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
    mask_block(K, m, &op->body, loops + loop);
    mask_block(K, m, &op->els, loops + loop);
  }
}

/* Whether an op other than v's declaration and its one write (an assign of the var's
 * statement) touches v. */
static bool read_elsewhere(const TirKernel *K, const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (read_elsewhere(K, &op->body, v) || read_elsewhere(K, &op->els, v)) return true;
    bool own = op->dst == v && (op->kind == TO_DECL || (op->kind == TO_ASSIGN && op->stmt == v->sym->decl));
    if (!own && tir_op_mentions(K, op, v, NULL)) return true;
  }
  return false;
}

static void drop_writes(TirBlock *b, const TirVar *v) {
  for (int i = b->ops.len - 1; i >= 0; i--) {
    TirOp *op = b->ops.items[i];
    drop_writes(&op->body, v);
    drop_writes(&op->els, v);
    if (op->dst == v) tir_drop_op(&b->ops, i);
  }
}

void uniform_drop_unread(TirKernel *K, const TirVar *v) {
  bool copied = false;
  for (int j = 0; j < K->nbufs; j++) copied |= K->bufs[j].spill_of == v;
  if (copied || !vec_has(&K->vars, v) || read_elsewhere(K, &K->body, v)) return;
  drop_writes(&K->body, v);
  tir_drop_var(K, v);
}

void uniform_masks(TirKernel *K) {
  Masks m = {{0}};
  mask_block(K, &m, &K->body, 0);
  for (int i = 0; i < K->remat.len; i++) /* read by partial tile writes as their expression (lower.c) */
    if (!vec_has(&m.vars, K->remat.items[i])) vec_push(K->a, &m.vars, K->remat.items[i]);
  /* until none goes: a var may be read only by another one's declaration (var near = kj > qi - W) */
  for (int before = -1; before != K->vars.len;) {
    before = K->vars.len;
    for (int i = 0; i < m.vars.len; i++) uniform_drop_unread(K, m.vars.items[i]);
  }
}
