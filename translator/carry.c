/* carry.c: a row reduction accumulated across a loop folds across threads
 * once, after the loop (run by layout.c, once every op has its layout and
 * before reductions get their scratch).
 *
 * A loop that adds a row reduction into a tile made before it,
 *     for .. { s += rowsum(e) }    (s -= rowsum(e), s = s + rowsum(e), s = s - rowsum(e),
 *                                   s = max(s, rowmax(e)), s = min(s, rowmin(e)))
 * folds each iteration's rows across the lanes that hold them (shuffles) and,
 * when a row spans warps, across warps (a scratch slot per warp and a
 * barrier), only to add one number per row to s. When nothing else in the
 * loop reads or writes s, each thread carries its own elements across the
 * loop instead, as a hand-written kernel does (bench/rowsum.tl):
 *     p = -0.0                     before the loop, p in e's layout (max, min: NaN, or
 *                                  the integer type's least or greatest value)
 *     for .. { p += e }            (p = max(p, e)): no shuffle, no barrier
 *     t = rowsum(p); s += t        after the loop: the one fold across threads (s -= t ...)
 * The loop's floating-point adds then run in another order (each thread's
 * column first), as a row sum's own do; max and min give the same values.
 * p starts at the fold's identity (identity()), so a loop that runs no
 * iteration leaves s as it was, bit for bit.
 *
 * When: the reduction (TO_REDUCE, no arg-reduction) and the assignment to s
 * are ops of the loop's own body, the reduction's value is read by that
 * assignment only, s is in that value's layout, and no other op of the loop
 * (a nested one, a while's condition, a for's bounds) reads or writes s; the
 * reduction spans threads (lanes or warps: else there is nothing to save);
 * it accumulates in its operand's own type (f32, f64, i32, u32, i64: a
 * reduction of f16 rounds each row's sum back to f16, which this would not);
 * e runs in a blocked layout that is not a dot's accumulator, of at most
 * CARRY_MAX_REGS registers per thread, and the values live at any op with the
 * partials added stay within TIR_MAX_VALUE_REGS (so that no value moves to
 * shared memory for them); the loop is not under thread-dependent control. Nested loops fold outward: the fold after an inner loop is again an
 * accumulation in the outer one.
 */
#include "t2c.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { CARRY_MAX_REGS = 32 };

static bool mentions(const TirKernel *K, const Expr *x, const TirVar *v) { return tir_mentions(K, x, v, true); }

/* The expressions of op's statement that the op itself evaluates (a scalar
 * statement, a loop's bounds, a condition). */
static bool stmt_mentions(const TirKernel *K, const TirOp *op, const TirVar *v) {
  const Stmt *s = op->stmt;
  if (!s) return false;
  switch (op->kind) {
  case TO_SCALAR:
    if (s->kind == S_ASSIGN) return mentions(K, s->u.assign.lhs, v) || mentions(K, s->u.assign.rhs, v);
    return (s->kind == S_VAR || s->kind == S_CONST) && mentions(K, s->u.decl.init, v);
  case TO_FOR: return mentions(K, s->u.forr.lo, v) || mentions(K, s->u.forr.hi, v) || mentions(K, s->u.forr.step, v);
  case TO_WHILE: return mentions(K, s->u.whil.cond, v);
  case TO_IF: return mentions(K, s->u.iff.cond, v);
  default: return false;
  }
}

/* Whether op itself (not the ops inside it) writes or reads v. */
static bool op_touches(const TirKernel *K, const TirOp *op, const TirVar *v) {
  return op->dst == v || op->src == v || op->src2 == v || stmt_mentions(K, op, v) || mentions(K, op->expr, v) ||
         mentions(K, op->slice, v) || mentions(K, op->pad, v) || mentions(K, op->uguard, v) || mentions(K, op->win[0], v) ||
         mentions(K, op->win[1], v);
}

/* Whether an op of b, or inside one, other than except writes or reads v. */
static bool block_touches(const TirKernel *K, const TirBlock *b, const TirVar *v, const TirOp *except) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op != except && op_touches(K, op, v)) return true;
    if (block_touches(K, &op->body, v, except) || block_touches(K, &op->els, v, except)) return true;
  }
  return false;
}

/* How many ops of b, and inside them, write or read v. */
static int uses(const TirKernel *K, const TirBlock *b, const TirVar *v) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    n += op_touches(K, op, v) + uses(K, &op->body, v) + uses(K, &op->els, v);
  }
  return n;
}

static bool is_call(const Expr *x, BuiltinKind b) {
  return x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == (int)b && x->u.call.nargs == 2;
}

static bool names_var(const TirKernel *K, const Expr *x, const TirVar *v) {
  return (x->kind == E_IDENT && v->sym && x->u.ident.sym == v->sym) || tir_hoisted(K, x) == v;
}

/* Whether a's other operand is s when one of a, b is the reduction's value t. */
static bool pair_of(const TirKernel *K, const Expr *a, const Expr *b, const TirVar *s, const TirVar *t) {
  return (tir_hoisted(K, b) == t && names_var(K, a, s)) || (tir_hoisted(K, a) == t && names_var(K, b, s));
}

/* Whether assignment A accumulates R's value t into its destination s as R's reduction folds. */
static bool accumulates(const TirKernel *K, const TirOp *R, const TirOp *A) {
  const TirVar *s = A->dst, *t = R->dst;
  const Expr *x = A->expr;
  if (R->red == B_ROWSUM) { /* s += t, s -= t, s = s + t, s = t + s, s = s - t */
    if (A->op == TK_ADD_ASSIGN || A->op == TK_SUB_ASSIGN) return tir_hoisted(K, x) == t;
    if (A->op != TK_ASSIGN || x->kind != E_BINARY) return false;
    if (x->u.binary.op == TK_MINUS) return names_var(K, x->u.binary.a, s) && tir_hoisted(K, x->u.binary.b) == t;
    return x->u.binary.op == TK_PLUS && pair_of(K, x->u.binary.a, x->u.binary.b, s, t);
  }
  BuiltinKind m = R->red == B_ROWMAX ? B_MAX : B_MIN;
  return A->op == TK_ASSIGN && is_call(x, m) && pair_of(K, x->u.call.args[0], x->u.call.args[1], s, t);
}

static bool carried_type(ElemType t) { return t == T_F32 || t == T_F64 || t == T_I32 || t == T_U32 || t == T_I64; }

/* Whether reduction R, the op at i of loop's body, can carry its partials across the loop. */
static const TirOp *carriable(const TirKernel *K, const TirOp *loop, int i) {
  const TirOp *R = loop->body.ops.items[i];
  if (R->kind != TO_REDUCE || (R->red != B_ROWSUM && R->red != B_ROWMAX && R->red != B_ROWMIN)) return NULL;
  const Layout *L = R->lay;
  const TirVar *t = R->dst;
  if (!L || L->kind != LY_BLOCKED || L->mma || (L->lc == 1 && L->wc == 1)) return NULL;
  if (!carried_type(t->elem) || R->expr->ty.elem != t->elem) return NULL;
  int regs = layout_count(L) * (elem_bytes[t->elem] > 4 ? 2 : 1);
  if (regs > CARRY_MAX_REGS) return NULL;
  const TirOp *A = NULL; /* the op after R that reads t: R's one reader */
  for (int j = i + 1; j < loop->body.ops.len && !A; j++)
    if (op_touches(K, loop->body.ops.items[j], t)) A = loop->body.ops.items[j];
  if (!A || A->kind != TO_ASSIGN || A->has_win || A->uguard || !A->dst->sym || A->dst->layout != t->layout) return NULL;
  if (A->dst->elem != t->elem || A->expr->ty.elem != t->elem || !accumulates(K, R, A)) return NULL;
  if (uses(K, &K->body, t) != 2) return NULL;
  if (block_touches(K, &loop->body, A->dst, A)) return NULL;
  /* the partials live across the whole loop: on top of the most held anywhere, within the budget */
  if (tir_value_regs(K) + regs > TIR_MAX_VALUE_REGS) return NULL;
  return A;
}

/* The value red's fold leaves every value as it was: -0.0 (x + -0.0 is x,
 * -0.0 and NaN included) or 0 for a sum; for max and min the type's least or
 * greatest integer, or NaN (fmax and fmin give the other operand, rt.cuh). */
static Expr *identity(TirKernel *K, BuiltinKind red, ElemType t, Loc at) {
  Expr *x = NEW(K->a, Expr);
  x->loc = at;
  x->ty = (Type){t, 0, {0, 0}, false};
  x->flags = EF_CONST;
  if (elem_is_float(t)) {
    x->kind = E_FLOAT;
    x->u.fval = x->cv.f = red == B_ROWSUM ? -0.0 : NAN;
    x->u.ftext = red == B_ROWSUM ? "-0.0" : "nan";
    x->cv.isf = true;
    return x;
  }
  x->kind = E_INT;
  bool hi = red == B_ROWMIN;
  switch (t) {
  case T_I32: x->cv.i = red == B_ROWSUM ? 0 : hi ? INT32_MAX : INT32_MIN; break;
  case T_U32: x->cv.i = red == B_ROWSUM ? 0 : hi ? (int64_t)UINT32_MAX : 0; break;
  default: x->cv.i = red == B_ROWSUM ? 0 : hi ? INT64_MAX : INT64_MIN; break;
  }
  x->u.ival = x->cv.i;
  return x;
}

/* max(p, e) or min(p, e) of the type and shape of e. */
static Expr *fold_call(TirKernel *K, BuiltinKind b, Expr *p, Expr *e) {
  Expr *c = NEW(K->a, Expr);
  c->kind = E_CALL;
  c->loc = e->loc;
  c->ty = e->ty;
  c->flags = e->flags & (EF_TD | EF_TILE);
  c->u.call.name = builtin_names[b];
  c->u.call.name_loc = e->loc;
  c->u.call.args = NEW_ARRAY(K->a, Expr *, 2);
  c->u.call.args[0] = p;
  c->u.call.args[1] = e;
  c->u.call.nargs = c->u.call.shape_at = 2;
  c->u.call.builtin = b;
  c->u.call.cast = T_NONE;
  return c;
}

static TirOp *assign_op(TirKernel *K, const TirOp *like, TirVar *p, TokenKind op, Expr *x) {
  TirOp *a = tir_new_op(K, NULL, TO_ASSIGN, like->stmt);
  a->dst = p;
  a->op = op;
  a->expr = x;
  a->rows = p->rows;
  a->cols = p->cols;
  a->lay = p->layout;
  return a;
}

/* Removes op from ops, keeping the order of the rest. */
static void drop_op(PtrVec *ops, const TirOp *op) {
  for (int j = 0; j < ops->len; j++)
    if (ops->items[j] == op) {
      memmove(&ops->items[j], &ops->items[j + 1], (size_t)(ops->len - j - 1) * sizeof(void *));
      ops->len--;
      return;
    }
}

/* The declaration in block b of partials p that carry() made, or NULL. */
static TirOp *partials_decl(const TirBlock *b, const TirVar *p, const PtrVec *made) {
  bool ours = false;
  for (int i = 0; i < made->len; i++) ours |= made->items[i] == p;
  for (int j = 0; ours && j + 1 < b->ops.len; j++) {
    TirOp *op = b->ops.items[j];
    if (op->kind == TO_DECL && op->dst == p) return op;
  }
  return NULL;
}

/* Carries R (accumulated by A) across loop, the op at li of block b; after
 * ops of b follow the loop already: the folds carried before, then their
 * assignments (so that the folds' scratch shares one barrier, layout.c).
 * Returns the ops put before the loop. When R folds partials carried across
 * an inner loop (made: the partials made so far), those partials are carried
 * on across this loop: their declaration and start move before it, and R
 * leaves the loop. Else new partials p: declared and started before the loop,
 * and R becomes p's step in it. */
static int carry(TirKernel *K, TirBlock *b, int li, int after, TirOp *R, TirOp *A, PtrVec *made) {
  TirOp *loop = b->ops.items[li];
  PtrVec *ops = &loop->body.ops;
  TirVar *t = R->dst, *p = tir_hoisted(K, R->expr);
  TirOp *decl = p ? partials_decl(&loop->body, p, made) : NULL, *init;
  if (decl) {
    int j = 0;
    while (ops->items[j] != decl) j++;
    init = ops->items[j + 1];
    drop_op(ops, decl);
    drop_op(ops, init);
    drop_op(ops, R);
    p->what = arena_printf(K->a, "%s, and the loop at line %d", p->what, loop->stmt->loc.line);
  } else {
    p = tir_new_var(K, t->elem, 2, R->rows, R->cols,
                    arena_printf(K->a, "the partials of %s at line %d, carried across the loop at line %d",
                                 builtin_names[R->red], R->stmt->loc.line, loop->stmt->loc.line));
    p->cname = arena_printf(K->a, "t2c_p%d", p->id);
    p->layout = R->lay;
    vec_push(K->a, made, p);
    decl = tir_new_op(K, NULL, TO_DECL, R->stmt);
    decl->dst = p;
    decl->lay = p->layout;
    decl->note = arena_printf(K->a, "%s: this thread's partials of the %s at line %d, folded across threads once, after the loop",
                              p->cname, builtin_names[R->red], R->stmt->loc.line);
    init = assign_op(K, R, p, TK_ASSIGN, identity(K, R->red, t->elem, R->stmt->loc));
    TirOp *step = R->red == B_ROWSUM ? assign_op(K, R, p, TK_ADD_ASSIGN, R->expr)
                                     : assign_op(K, R, p, TK_ASSIGN, fold_call(K, R->red == B_ROWMAX ? B_MAX : B_MIN, tir_read_of(K, p), R->expr));
    step->first = R->first;
    for (int j = 0; j < ops->len; j++)
      if (ops->items[j] == R) ops->items[j] = step;
    R->expr = tir_read_of(K, p);
  }
  drop_op(ops, A);
  R->first = true;
  R->note = arena_printf(K->a, "%s, carried across the loop above, folded across threads once", p->cname);
  A->first = false;
  PtrVec out = {0};
  for (int j = 0; j < b->ops.len; j++) {
    if (j == li) vec_push(K->a, &out, decl), vec_push(K->a, &out, init);
    vec_push(K->a, &out, b->ops.items[j]);
    if (j == li + after / 2) vec_push(K->a, &out, R);
    if (j == li + after) vec_push(K->a, &out, A);
  }
  b->ops = out;
  return 2;
}

static void carry_block(TirKernel *K, TirBlock *b, int td, PtrVec *made) {
  for (int li = 0; li < b->ops.len; li++) {
    TirOp *op = b->ops.items[li];
    int inner = td + op->td;
    carry_block(K, &op->body, inner, made);
    carry_block(K, &op->els, inner, made);
    if ((op->kind != TO_FOR && op->kind != TO_WHILE) || inner) continue;
    int after = 0; /* ops carry put after the loop */
    for (int i = 0; i < op->body.ops.len; i++) {
      TirOp *R = op->body.ops.items[i];
      TirOp *A = (TirOp *)carriable(K, op, i);
      if (!A) continue;
      li += carry(K, b, li, after, R, A, made); /* the ops that went before the loop */
      after += 2;
      i = -1; /* the body changed: look again for another accumulation */
    }
  }
}

void carry_reductions(TirKernel *K) {
  PtrVec made = {0};
  carry_block(K, &K->body, 0, &made);
}
