/* carry.c: a reduction accumulated across a loop folds across threads once,
 * after the loop (run by layout.c, once every op has its layout and before
 * reductions get their scratch). TirKernel.folds says, for --explain, what
 * became of each such accumulation, and why one stays in the loop.
 *
 * A loop that adds a row reduction into a tile made before it,
 *     for .. { s += rowsum(e) }    (s -= rowsum(e), s = s + rowsum(e), s = s - rowsum(e),
 *                                   s = max(s, rowmax(e)), s = min(s, rowmin(e)))
 * folds each iteration's rows across the lanes that hold them (shuffles) and,
 * when a row spans warps, across warps (a scratch slot per warp and a
 * barrier), only to add one number per row to s. A column reduction into a
 * [1, n] tile (c += colsum(e), colmax, colmin) does the same down the columns. When nothing else in the
 * loop reads or writes s, each thread carries its own elements across the
 * loop instead, as a hand-written kernel does (bench/rowsum.tl):
 *     p = -0.0                     before the loop, p in e's layout (max, min: NaN, or
 *                                  the integer type's least or greatest value)
 *     for .. { p += e }            (p = max(p, e)): no shuffle, no barrier
 *     t = rowsum(p); s += t        after the loop: the one fold across threads (s -= t ...)
 * A thread that holds several elements of each row (column) of e folds them in
 * each iteration into one partial per row (column) it holds, and carries those
 * instead (f->intra, below): the same adds, no shuffle, and rr (rc * vec)
 * registers live across the loop rather than rr * rc * vec (a [32, 128] colsum
 * over 128 threads: 4, not 32; a layout of warp tiles keeps one per element).
 * The same holds for sum() into a scalar (t += sum(e): a block reduction, one
 * barrier per iteration).
 * The loop's floating-point adds then run in another order (each thread's
 * elements first), as a reduction's own do; max and min give the same values.
 * p starts at the fold's identity (identity()), so a loop that runs no
 * iteration leaves s as it was, bit for bit.
 *
 * When: the reduction (no arg-reduction) and the accumulation are ops of the
 * loop's own body, the reduction's value is read by that accumulation only,
 * s is in that value's layout, and no other op of the loop (a nested one, a
 * while's condition, the loop's own bounds) reads or writes s; a row (column)
 * reduction spans threads (lanes or warps: else there is nothing to save);
 * s reads the value where it is or through its shared copy (f->copy: a
 * @registers s of its own layout, or a rank-1 s, which reads the column
 * [M, 1] as its row [1, M]), the copy moving after the loop with A;
 * the reduction accumulates
 * in its operand's own type (f32, f64, i32, u32, i64: a row sum of f16 rounds
 * each row's sum back to f16, which this would not); e runs in a blocked
 * layout (a dot's accumulator too: its fragments, mma.sync's or wgmma's, hold
 * the same elements at the same threads every iteration, and partials in
 * layout_partials' layout tile each warp as it does); a row or column reduction
 * whose thread holds more than one element of a row (column) carries each
 * thread's own fold of each row or column it holds: p in layout_partials'
 * layout, and in the loop a TO_REDUCE marked intra, p += rowsum(e) in each
 * thread with no shuffle; the fold after the loop reads p; of at most
 * CARRY_MAX_REGS partials per thread, and the values live at any op
 * with the partials added stay
 * within TIR_MAX_VALUE_REGS (so that no value moves to shared memory for
 * them); the loop is not under thread-dependent control. Nested loops fold
 * outward: the fold after an inner loop is again an accumulation in the
 * outer one, and the same partials are carried on.
 */
#include "t2c.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* CARRY_MAX_REGS: the most partials a thread carries; past CARRY_SPLIT_REGS
 * elements' worth, its own elements of a row (column) are folded into one */
enum { CARRY_MAX_REGS = 32, CARRY_SPLIT_REGS = 8 };

/* What is accumulated into: a tile (v) or a scalar var (y). */
typedef struct Who {
  const TirVar *v;
  const Sym *y;
} Who;

/* Whether op itself (not the ops inside it) writes or reads w. */
static bool op_touches(const TirKernel *K, const TirOp *op, const Who *w) { return tir_op_mentions(K, op, w->v, w->y); }

/* Whether an op of b, or inside one, other than except writes or reads w. */
static bool block_touches(const TirKernel *K, const TirBlock *b, const Who *w, const TirOp *except) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op != except && op_touches(K, op, w)) return true;
    if (block_touches(K, &op->body, w, except) || block_touches(K, &op->els, w, except)) return true;
  }
  return false;
}

/* How many ops of b, and inside them, write or read v. */
static int uses(const TirKernel *K, const TirBlock *b, const TirVar *v) {
  Who w = {v, NULL};
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    n += op_touches(K, op, &w) + uses(K, &op->body, v) + uses(K, &op->els, v);
  }
  return n;
}

static bool is_call(const Expr *x, BuiltinKind b) {
  return x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == (int)b && x->u.call.nargs == 2;
}

static bool is_call1(const Expr *x, BuiltinKind b) {
  return x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == (int)b && x->u.call.nargs == 1;
}

static bool names_who(const TirKernel *K, const Expr *x, const Who *s) {
  if (x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym == (s->v ? s->v->sym : s->y)) return true;
  return s->v && tir_hoisted(K, x) == s->v;
}

/* Whether a's other operand is s when one of a, b is the reduction's value t. */
static bool pair_of(const TirKernel *K, const Expr *a, const Expr *b, const Who *s, const TirVar *t) {
  return (tir_hoisted(K, b) == t && names_who(K, a, s)) || (tir_hoisted(K, a) == t && names_who(K, b, s));
}

/* Whether x is t, or t's column [M, 1] read from its shared copy as the row
 * [1, M] a rank-1 s is (lower.c lower_tile_assign: s += rowsum(e) into
 * tile<T>[M]). */
static bool reads_value(const TirKernel *K, const Expr *x, const TirVar *t) {
  if (tir_hoisted(K, x) == t) return true;
  const TirRead *rd = tir_read(K, x);
  return rd && rd->kind == TR_RESHAPE && K->bufs[rd->buf].spill_of == t && t->cols == 1 && x->ty.rank == 2 && x->ty.dims[0] == 1;
}

/* Whether `s op= x` accumulates the value t of fold red into s. */
static bool accumulates(const TirKernel *K, BuiltinKind red, TokenKind op, const Expr *x, const Who *s, const TirVar *t) {
  if (red == B_ROWSUM || red == B_SUM) { /* s += t, s -= t, s = s + t, s = t + s, s = s - t */
    if (op == TK_ADD_ASSIGN || op == TK_SUB_ASSIGN) return reads_value(K, x, t);
    if (op != TK_ASSIGN || x->kind != E_BINARY) return false;
    if (x->u.binary.op == TK_MINUS) return names_who(K, x->u.binary.a, s) && tir_hoisted(K, x->u.binary.b) == t;
    return x->u.binary.op == TK_PLUS && pair_of(K, x->u.binary.a, x->u.binary.b, s, t);
  }
  BuiltinKind m = red == B_ROWMAX ? B_MAX : B_MIN;
  return op == TK_ASSIGN && is_call(x, m) && pair_of(K, x->u.call.args[0], x->u.call.args[1], s, t);
}

static bool carried_type(ElemType t) { return t == T_F32 || t == T_F64 || t == T_I32 || t == T_U32 || t == T_I64; }

/* The op after the op at i of loop's body that reads t, or NULL. */
static TirOp *reader_after(const TirKernel *K, const TirOp *loop, int i, const TirVar *t) {
  Who w = {t, NULL};
  for (int j = i + 1; j < loop->body.ops.len; j++)
    if (op_touches(K, loop->body.ops.items[j], &w)) return loop->body.ops.items[j];
  return NULL;
}

/* A fold that can carry its partials across a loop: R folds across threads
 * (a row or column reduction, sum()), A accumulates its value. The partials
 * accumulate of (each thread its elements, in R's operand's layout); pre
 * goes with R: a sum()'s value's declaration. */
typedef struct Fold {
  TirOp *R, *A, *pre;
  TirOp *copy;           /* the copy of R's value that A reads it through (A's tile in
                            another layout: a @registers tile's own), or NULL */
  TirVar *of;            /* the value folded, when it is one (else R->expr) */
  BuiltinKind add;       /* B_ROWSUM, B_ROWMAX or B_ROWMIN: how partials combine */
  const Layout *lay;
  bool intra;            /* the partials are each thread's own fold of its elements
                            of each row (column) (layout_partials): the thread holds
                            more than one element of a row (column) */
} Fold;

static BuiltinKind combine(BuiltinKind red) {
  switch (red) {
  case B_ROWMAX: case B_COLMAX: return B_ROWMAX;
  case B_ROWMIN: case B_COLMIN: return B_ROWMIN;
  default: return B_ROWSUM;
  }
}

/* Whether fold R, the op at i of loop's body, accumulated into s by A: *f
 * describes it, NULL when it is not such a fold. Then NULL when it can carry
 * its partials across the loop, else why not (said by --explain). */
static const char *carriable(const TirKernel *K, const TirOp *loop, int i, Fold *f, const char **into) {
  TirOp *R = loop->body.ops.items[i];
  *f = (Fold){R, NULL, NULL, NULL, NULL, combine(R->red), R->lay, false};
  const TirVar *t = R->dst;
  int users = 2; /* R writes t, A reads it */
  /* what R folds: f->of, and what goes with R */
  switch (R->kind) {
  case TO_REDUCE:
    if (R->red != B_ROWSUM && R->red != B_ROWMAX && R->red != B_ROWMIN && R->red != B_COLSUM && R->red != B_COLMAX &&
        R->red != B_COLMIN)
      return NULL;
    f->of = tir_hoisted(K, R->expr);
    /* an operand in another layout is read through its copy (layout.c apply_convs):
     * the partials, in R's layout, would read the value's registers at elements the
     * thread does not hold */
    if (tir_read(K, R->expr)) return "it reads its operand through a shared copy (in another layout)";
    break;
  case TO_SUM:
    f->of = R->src;
    users = 3; /* and its declaration */
    for (int j = 0; j < i; j++)
      if (((TirOp *)loop->body.ops.items[j])->kind == TO_DECL && ((TirOp *)loop->body.ops.items[j])->dst == t) f->pre = loop->body.ops.items[j];
    if (!f->pre) return NULL;
    break;
  default: return NULL;
  }
  /* the accumulation: A, R's one reader, s op= R's value */
  TirOp *A = reader_after(K, loop, i, t);
  if (A && A->kind == TO_SPILL && A->dst == t && R->kind == TO_REDUCE) {
    /* s in another layout than R's value (@registers(s): its own) reads it through its copy */
    f->copy = A;
    int j = i + 1;
    while (loop->body.ops.items[j] != A) j++;
    A = reader_after(K, loop, j, t);
    users++;
  }
  if (!A) return NULL;
  Who s = {NULL, NULL};
  if (R->kind == TO_SUM) { /* a scalar statement y op= x */
    const Stmt *st = A->stmt;
    if (A->kind != TO_SCALAR || st->kind != S_ASSIGN || st->u.assign.lhs->kind != E_IDENT) return NULL;
    s.y = st->u.assign.lhs->u.ident.sym;
    if (!s.y || !accumulates(K, f->add, st->u.assign.op, st->u.assign.rhs, &s, t)) return NULL;
    *into = s.y->name;
  } else {
    if (A->kind != TO_ASSIGN || !A->dst->sym) return NULL;
    s.v = A->dst;
    if (!accumulates(K, f->add, A->op, A->expr, &s, t)) return NULL;
    *into = A->dst->sym->name;
  }
  f->A = A;
  /* an accumulation: from here on, why it is not carried */
  const Layout *L = f->lay;
  if (uses(K, &K->body, t) != users) return "its value is read elsewhere too";
  if (block_touches(K, &loop->body, &s, A) || tir_stmt_mentions(K, loop, s.v, s.y))
    return arena_printf(K->a, "%s is read or written elsewhere in the loop", *into);
  if (!L || L->kind != LY_BLOCKED) return "it folds a row or column value, which every thread of the row or column holds";
  if (R->kind == TO_REDUCE && !tir_down_cols(R) && L->lc == 1 && L->wc == 1)
    return "each row is in one thread: nothing to fold across threads";
  if (tir_down_cols(R) && L->lr == 1 && L->wr == 1) return "each column is in one thread: nothing to fold across threads";
  ElemType from = R->kind == TO_REDUCE ? R->expr->ty.elem : f->of->elem;
  if (!carried_type(t->elem) || from != t->elem)
    return arena_printf(K->a, "it folds %s in %s: each iteration's result is rounded, which carried partials would not be",
                        elem_names[from], elem_names[t->elem]);
  const Expr *lhs = R->kind == TO_SUM ? A->stmt->u.assign.lhs : NULL, *rhs = lhs ? A->stmt->u.assign.rhs : A->expr;
  if ((lhs ? lhs->ty.elem : A->dst->elem) != t->elem || rhs->ty.elem != t->elem)
    return arena_printf(K->a, "%s is not of the fold's type, %s", *into, elem_names[t->elem]);
  if (A->has_win) return arena_printf(K->a, "%s is written through a window, part of it in each iteration", *into);
  if (A->uguard || (!lhs && A->dst->layout != t->layout && !f->copy))
    return arena_printf(K->a, "%s is not in the fold's layout", *into);
  int w = elem_bytes[t->elem] > 4 ? 2 : 1, regs = layout_count(L) * w;
  if ((R->kind == TO_REDUCE || (R->kind == TO_SUM && L->kind == LY_BLOCKED)) && (!L->wtiles || L->mma) &&
      regs > CARRY_SPLIT_REGS) { /* (a scan's warp tiles: not tried) */
    /* a thread holding several elements of a row (column) folds them into one
     * partial per row (column) in each iteration (adds it does anyway, with no
     * shuffle), and carries those: one element a partial would hold
     * rr * rc * vec registers across the loop where rr (rc * vec) do. Not for a
     * few: their independent adds keep a loop's chain short (layernorm's 8). A
     * sum() into a scalar folds so along its operand's rows (its partials are
     * summed whole after the loop) */
    bool down = R->kind == TO_REDUCE && tir_down_cols(R);
    int folded = (down ? L->rc * L->vec : L->rr) * w;
    if ((down ? L->rr > 1 : L->rc * L->vec > 1) && folded <= CARRY_MAX_REGS) f->intra = true, regs = folded;
  }
  if (regs > CARRY_MAX_REGS)
    return arena_printf(K->a, "its partials would take %d registers per thread, more than %d", regs, CARRY_MAX_REGS);
  /* the partials live across the whole loop: on top of the most held anywhere, within the budget */
  if (tir_value_regs(K) + regs > TIR_MAX_VALUE_REGS)
    return arena_printf(K->a, "its %d partials per thread would pass the register budget of %d", regs, TIR_MAX_VALUE_REGS);
  return NULL;
}

/* The value red's fold leaves every value as it was: -0.0 (x + -0.0 is x,
 * -0.0 and NaN included) or 0 for a sum; for max and min the type's least or
 * greatest integer, or NaN (fmax and fmin give the other operand, rt.cuh). */
static Expr *identity(TirKernel *K, BuiltinKind red, ElemType t, Loc at) {
  Expr *x = NEW(K->a, Expr);
  x->loc = at;
  x->ty = (Type){t, 0, {0, 0}, false};
  x->flags = EF_CONST;
  bool add = red == B_ROWSUM || red == B_SUM, hi = red == B_ROWMIN;
  if (elem_is_float(t)) {
    x->kind = E_FLOAT;
    x->u.fval = x->cv.f = add ? -0.0 : NAN;
    x->u.ftext = add ? "-0.0" : "nan";
    x->cv.isf = true;
    return x;
  }
  x->kind = E_INT;
  switch (t) {
  case T_I32: x->cv.i = add ? 0 : hi ? INT32_MAX : INT32_MIN; break;
  case T_U32: x->cv.i = add ? 0 : hi ? (int64_t)UINT32_MAX : 0; break;
  default: x->cv.i = add ? 0 : hi ? INT64_MAX : INT64_MIN; break;
  }
  x->u.ival = x->cv.i;
  return x;
}

/* A node: op applied to a and b, or call b(args), of type ty. */
static Expr *node(TirKernel *K, ExprKind kind, Type ty, Loc at) {
  Expr *x = NEW(K->a, Expr);
  x->kind = kind;
  x->loc = at;
  x->ty = ty;
  x->flags = ty.rank ? EF_TILE : 0;
  return x;
}

static Expr *call(TirKernel *K, BuiltinKind f, Expr **args, int n, Type ty) {
  Expr *x = node(K, E_CALL, ty, args[0]->loc);
  x->u.call.name = builtin_names[f];
  x->u.call.name_loc = x->loc;
  x->u.call.args = NEW_ARRAY(K->a, Expr *, n);
  for (int i = 0; i < n; i++) x->u.call.args[i] = args[i], x->flags |= args[i]->flags & EF_TD;
  x->u.call.nargs = x->u.call.shape_at = n;
  x->u.call.builtin = f;
  x->u.call.cast = T_NONE;
  return x;
}

/* max(p, e) or min(p, e) of the type and shape of e. */
static Expr *fold_call(TirKernel *K, BuiltinKind b, Expr *p, Expr *e) {
  Expr *args[2] = {p, e};
  Expr *c = call(K, b, args, 2, e->ty);
  c->loc = c->u.call.name_loc = e->loc;
  c->flags = e->flags & (EF_TD | EF_TILE);
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

/* Carries fold f across loop, the op at li of block b. After the loop come
 * the folds carried before (nfold ops), then their assignments (nassign), so
 * that the folds' scratch shares one barrier (layout.c); f's R (after its
 * pre) joins the first, its A the second. When R folds partials carried
 * across an inner loop (made: the partials made so far), those are carried on
 * across this loop: their declaration and start move before it, and R (with
 * its pre) leaves the loop. Else new partials p: declared and started before
 * the loop, and the step p op= (what R folds) takes R's place. */
static TirVar *carry(TirKernel *K, TirBlock *b, int li, int *nfold, int *nassign, const Fold *f, PtrVec *made, bool outer) {
  TirOp *loop = b->ops.items[li], *R = f->R, *A = f->A, *pre = f->pre;
  PtrVec *ops = &loop->body.ops;
  TirVar *t = R->dst, *p = f->of;
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
    /* p: the partials in e's layout, or each thread's own fold of its rows (columns) of e
     * in layout_partials' (f->intra) */
    const char *fold = builtin_names[R->red];
    bool down = R->kind == TO_REDUCE && tir_down_cols(R);
    const Layout *pl = f->intra ? layout_partials(K, f->lay, down) : f->lay;
    int rank = f->intra || !f->of ? 2 : f->of->rank;
    int rows = f->intra ? pl->rows : f->of ? f->of->rows : R->rows, cols = f->intra ? pl->cols : f->of ? f->of->cols : R->cols;
    p = tir_new_var(K, t->elem, rank, rows, cols,
                    arena_printf(K->a, "the partials of %s at line %d%s, carried across the loop at line %d", fold,
                                 R->stmt->loc.line, f->intra ? ", each thread's own fold" : "", loop->stmt->loc.line));
    p->cname = arena_printf(K->a, "t2c_p%d", p->id);
    p->layout = pl;
    vec_push(K->a, made, p);
    decl = tir_new_op(K, NULL, TO_DECL, R->stmt);
    decl->dst = p;
    decl->lay = pl;
    decl->note = arena_printf(K->a, "%s: this thread's %s of the %s at line %d, folded across threads once, after the loop",
                              p->cname, !f->intra ? "partials" : down ? "own fold of its elements of each column"
                                                                      : "own fold of its elements of each row",
                              fold, R->stmt->loc.line);
    init = assign_op(K, R, p, TK_ASSIGN, identity(K, f->add, t->elem, R->stmt->loc));
    Expr *e = f->of ? tir_read_of(K, f->of) : R->expr;
    TirOp *step;
    if (f->intra) { /* the same fold of the same elements, in each thread only, into p */
      step = tir_new_op(K, NULL, TO_REDUCE, R->stmt);
      *step = *R;
      step->dst = p;
      step->intra = true;
      step->expr = e;
      if (R->kind == TO_SUM) { /* sum(): each row's own elements, a row sum in each thread */
        step->kind = TO_REDUCE;
        step->red = B_ROWSUM;
        step->src = NULL;
      }
    } else {
      step = f->add == B_ROWSUM ? assign_op(K, R, p, TK_ADD_ASSIGN, e)
                                : assign_op(K, R, p, TK_ASSIGN, fold_call(K, f->add == B_ROWMAX ? B_MAX : B_MIN, tir_read_of(K, p), e));
      step->first = R->first;
    }
    for (int j = 0; j < ops->len; j++)
      if (ops->items[j] == R) ops->items[j] = step;
    R->expr = tir_read_of(K, p); /* after the loop: the fold across threads of p */
    if (R->kind == TO_SUM) R->src = p;
    if (f->intra) {
      R->lay = pl;
      R->rows = pl->rows;
      R->cols = pl->cols;
      R->rolled_cols = false;
    }
  }
  R->carried = true;
  if (pre) drop_op(ops, pre);
  if (f->copy) drop_op(ops, f->copy);
  drop_op(ops, A);
  TirOp *head = pre ? pre : R; /* the statement's comment heads what comes after the loop */
  R->first = A->first = false;
  if (f->copy) f->copy->first = false;
  if (f->copy && outer && !K->bufs[f->copy->buf].operand) {
    /* written once, after the loop, in no other loop: one half, in place (a copy
     * made in a loop alternates halves so that the next iteration's copy need not
     * wait for this one's readers) */
    TirBuf *cb = &K->bufs[f->copy->buf];
    cb->alternating = false;
    cb->one_half = true;
    tir_buf_size(cb);
  }
  head->first = true;
  head->note = arena_printf(K->a, "%s, carried across the loop above, folded across threads once", p->cname);
  PtrVec out = {0};
  for (int j = 0; j < b->ops.len; j++) {
    if (j == li) vec_push(K->a, &out, decl), vec_push(K->a, &out, init);
    vec_push(K->a, &out, b->ops.items[j]);
    if (j == li + *nfold) {
      if (pre) vec_push(K->a, &out, pre);
      vec_push(K->a, &out, R);
    }
    if (j == li + *nfold + *nassign) {
      if (f->copy) vec_push(K->a, &out, f->copy); /* A reads R's value through it */
      vec_push(K->a, &out, A);
    }
  }
  b->ops = out;
  *nfold += 1 + (pre != NULL);
  *nassign += 1 + (f->copy != NULL);
  return p;
}

/* ------------------------------------------------------------ an online softmax's max and sum
 *
 * A loop that keeps a row's running max and its rescaled sum of exponentials (a
 * softmax over a long row a chunk at a time, examples/softmax.tl; a log-sum-exp; a
 * cross-entropy's normalizer),
 *     mx = -inf, l = 0.0            just before the loop
 *     for .. {
 *       mnew = max(mx, rowmax(e))
 *       l = l * exp(mx - mnew) + rowsum(exp(e - mnew))
 *       mx = mnew
 *     }
 * folds each row across threads twice an iteration (a barrier each where a row spans
 * warps). Each thread instead carries its own running max and sum of each row it holds
 * (layout_partials: one register a row), and the row's are folded once, after the loop:
 *     pm = -inf, pl = 0.0           (the thread's own max and sum of each row)
 *     for .. {
 *       pn = pm, then max(pn, its elements of e)   (in the thread: TO_REDUCE intra)
 *       ps = where(pn == -inf, 0.0, pn)             (a row of only -inf so far, a pad's or
 *       pl = pl * exp(pm - ps)                       a mask's, keeps pl = 0: no -inf - -inf)
 *       pl += exp(e - ps) of its elements           (in the thread)
 *       pm = pn
 *     }
 *     mnew = max(mx, rowmax(pm))                    (across threads)
 *     l = rowsum(where(pm == -inf, 0.0, pl * exp(pm - mnew)))
 *     mx = mnew
 * which is the same sum, exp(a - c) = exp(a - b) exp(b - c), in another order (the
 * loop's adds in another order, as a carried rowsum's; rounding apart). A loop that
 * runs no iteration leaves mx = -inf and l = 0, as before. When: the statements are
 * exactly these (either operand order of max and of the sum), in the loop's own body,
 * mnew, mx, l and the two reductions' values read nowhere else in the loop, mx and l
 * set to -inf and 0 just before it, f32 or f64, e in a blocked layout whose rows span
 * threads, and the four partials (4 registers a row a thread holds) within
 * CARRY_MAX_REGS and the register budget. One exp an element, as before, and one a row
 * and iteration more. */

static bool const_is(const Expr *x, double v) {
  x = facts_resolve(x);
  if (x->kind == E_UNARY && x->u.unary.op == TK_MINUS && x->u.unary.a->kind == E_INF) return isinf(v) && v < 0;
  return (x->flags & EF_CONST) && x->kind != E_CALL && x->cv.isf ? x->cv.f == v : (x->flags & EF_CONST) && !x->cv.isf && (double)x->cv.i == v;
}

static Expr *binary(TirKernel *K, TokenKind op, Expr *a, Expr *b, Type ty) {
  Expr *x = node(K, E_BINARY, ty, a->loc);
  x->u.binary.op = op;
  x->u.binary.a = a;
  x->u.binary.b = b;
  x->flags |= (a->flags | b->flags) & EF_TD;
  return x;
}

static Expr *call1(TirKernel *K, BuiltinKind f, Expr *a) { return call(K, f, &a, 1, a->ty); }

static Expr *constant(TirKernel *K, ElemType t, double v, Loc at) {
  Expr *x = node(K, E_FLOAT, (Type){t, 0, {0, 0}, false}, at);
  x->flags = EF_CONST;
  x->u.fval = x->cv.f = v;
  x->u.ftext = isinf(v) ? "-inf" : "0.0";
  x->cv.isf = true;
  return x;
}

/* where(v == -inf, 0.0, x) over v's shape: an element that has seen only -inf gives 0. */
static Expr *unless_none(TirKernel *K, Expr *v, Expr *x, ElemType t) {
  Type bt = v->ty;
  bt.elem = T_BOOL;
  Expr *args[3] = {binary(K, TK_EQ, v, constant(K, t, -INFINITY, v->loc), bt), constant(K, t, 0.0, v->loc), x};
  return call(K, B_WHERE, args, 3, x->ty);
}

/* Whether an op of b, or inside one, reads v (its declaration and its plain assignments
 * write it: what they read besides counts). */
static bool reads_var(const TirKernel *K, const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind == TO_DECL && op->dst == v) continue;
    TirOp o = *op;
    if (o.dst == v && o.kind == TO_ASSIGN && o.op == TK_ASSIGN) o.dst = NULL; /* (a window of it too) */
    if (tir_op_touches(K, &o, v) || reads_var(K, &op->body, v) || reads_var(K, &op->els, v)) return true;
  }
  return false;
}

/* The op of b that writes v last before index i, or NULL. */
static const TirOp *last_write(const TirKernel *K, const TirBlock *b, int i, const TirVar *v) {
  for (int j = i - 1; j >= 0; j--) {
    const TirOp *op = b->ops.items[j];
    Who w = {v, NULL};
    if (op->kind == TO_DECL && op->dst == v) return NULL;
    if (op_touches(K, op, &w) || block_touches(K, &op->body, &w, NULL) || block_touches(K, &op->els, &w, NULL))
      return op->kind == TO_ASSIGN && op->dst == v && op->op == TK_ASSIGN && !op->has_win ? op : NULL;
  }
  return NULL;
}

/* Whether x is max(a, b) of the values named: m's and t's (either order). */
static bool max_of(const TirKernel *K, const Expr *x, const TirVar *m, const TirVar *t) {
  Who s = {m, NULL};
  return is_call(x, B_MAX) && pair_of(K, x->u.call.args[0], x->u.call.args[1], &s, t);
}

static bool names_var(const TirKernel *K, const Expr *x, const TirVar *v) {
  Who s = {v, NULL};
  return names_who(K, x, &s);
}

/* The online softmax of loop (the op at li of b) carried, or false: not one, or not carried. */
static bool carry_online(TirKernel *K, TirBlock *b, int li) {
  TirOp *loop = b->ops.items[li];
  PtrVec *ops = &loop->body.ops;
  for (int i = 0; i + 4 < ops->len; i++) {
    /* the rescale may be a var of its own between mnew and the sum: var alpha = exp(mx - mnew) */
    TirOp *ad = NULL, *aa = NULL;
    int j0 = i + 2;
    if (j0 + 4 < ops->len && ((TirOp *)ops->items[j0])->kind == TO_DECL &&
        ((TirOp *)ops->items[j0 + 1])->kind == TO_ASSIGN && ((TirOp *)ops->items[j0 + 1])->dst == ((TirOp *)ops->items[j0])->dst)
      ad = ops->items[j0], aa = ops->items[j0 + 1], j0 += 2;
    if (j0 + 2 >= ops->len) continue;
    TirOp *R1 = ops->items[i], *A1 = ops->items[i + 1], *R2 = ops->items[j0], *A2 = ops->items[j0 + 1],
          *A3 = ops->items[j0 + 2];
    TirVar *al = aa ? aa->dst : NULL;
    if (al && (!al->sym || aa->op != TK_ASSIGN || aa->has_win || !is_call1(aa->expr, B_EXP))) continue;
    if (R1->kind != TO_REDUCE || R2->kind != TO_REDUCE || R1->intra || R2->intra || A1->kind != TO_ASSIGN ||
        A2->kind != TO_ASSIGN || A3->kind != TO_ASSIGN)
      continue;
    bool down = R1->red == B_COLMAX; /* the same down the columns: colmax and colsum */
    if (!(R1->red == B_ROWMAX && R2->red == B_ROWSUM) && !(down && R2->red == B_COLSUM)) continue;
    TirVar *t1 = R1->dst, *t2 = R2->dst, *mnew = A1->dst, *l = A2->dst, *mx = A3->dst;
    if (!mnew || !l || !mx || !mnew->sym || !l->sym || !mx->sym || mnew == l || mnew == mx || l == mx) continue;
    if (A1->op != TK_ASSIGN || A2->op != TK_ASSIGN || A3->op != TK_ASSIGN || A1->has_win || A2->has_win || A3->has_win)
      continue;
    /* mnew = max(mx, t1); mx = mnew */
    if (!max_of(K, A1->expr, mx, t1) || !names_var(K, A3->expr, mnew)) continue;
    /* R2 folds exp(e - mnew), e R1's operand */
    const Expr *ex = R2->expr;
    if (!is_call1(ex, B_EXP)) continue;
    const Expr *d = ex->u.call.args[0];
    if (d->kind != E_BINARY || d->u.binary.op != TK_MINUS || !names_var(K, d->u.binary.b, mnew)) continue;
    const TirVar *e = tir_hoisted(K, R1->expr);
    if (!(e ? tir_hoisted(K, d->u.binary.a) == e : facts_expr_equal(d->u.binary.a, R1->expr))) continue;
    /* l = l * exp(mx - mnew) + t2, either order of the sum and of the product */
    const Expr *x = A2->expr, *sc = NULL, *tv = NULL;
    if (x->kind != E_BINARY || x->u.binary.op != TK_PLUS) continue;
    for (int k = 0; k < 2 && !sc; k++) {
      const Expr *p = k ? x->u.binary.b : x->u.binary.a, *q = k ? x->u.binary.a : x->u.binary.b;
      if (tir_hoisted(K, q) == t2 && p->kind == E_BINARY && p->u.binary.op == TK_STAR) sc = p, tv = q;
    }
    if (!sc) continue;
    const Expr *ls = sc->u.binary.a, *es = sc->u.binary.b;
    if (!names_var(K, ls, l)) ls = sc->u.binary.b, es = sc->u.binary.a;
    if (!names_var(K, ls, l)) continue;
    if (al && names_var(K, es, al)) es = aa->expr; /* l * alpha: alpha's exp(mx - mnew) */
    else if (al) continue;
    if (!is_call1(es, B_EXP)) continue;
    const Expr *dm = es->u.call.args[0];
    if (dm->kind != E_BINARY || dm->u.binary.op != TK_MINUS || !names_var(K, dm->u.binary.a, mx) ||
        !names_var(K, dm->u.binary.b, mnew))
      continue;
    /* nothing else in the loop reads or writes them; the values read only here */
    const Who ws[3] = {{mx, NULL}, {l, NULL}, {mnew, NULL}};
    bool other = al && (uses(K, &K->body, al) != 3 || al->layout != mnew->layout || aa->lay != mnew->layout);
    for (int j = 0; j < ops->len && !other; j++) {
      const TirOp *op = ops->items[j];
      if (op == R1 || op == A1 || op == R2 || op == A2 || op == A3 || op == ad || op == aa) continue;
      if (op->kind == TO_DECL && op->dst == mnew) continue;
      for (int k = 0; k < 3 && !other; k++)
        other = op_touches(K, op, &ws[k]) || block_touches(K, &op->body, &ws[k], NULL) ||
                block_touches(K, &op->els, &ws[k], NULL);
    }
    if (other || tir_stmt_mentions(K, loop, mx, NULL) || tir_stmt_mentions(K, loop, l, NULL) ||
        uses(K, &K->body, t1) != 2 || uses(K, &K->body, t2) != 2)
      continue;
    /* mx = -inf and l = 0 just before the loop */
    const TirOp *im = last_write(K, b, li, mx), *il = last_write(K, b, li, l);
    if (!im || !il || !const_is(im->expr, -INFINITY) || !const_is(il->expr, 0.0)) continue;
    /* types and layouts */
    const Layout *L = R1->lay;
    ElemType et = t1->elem;
    if ((et != T_F32 && et != T_F64) || R1->expr->ty.elem != et || t2->elem != et || mx->elem != et || l->elem != et ||
        mnew->elem != et || !L || L->kind != LY_BLOCKED || R2->lay != L || (!down && L->lc == 1 && L->wc == 1) ||
        (down && L->lr == 1 && L->wr == 1) ||
        tir_read(K, R1->expr) || tir_read(K, d->u.binary.a) || R1->expr->ty.rank != 2 || mx->layout != mnew->layout ||
        l->layout != mnew->layout || A1->lay != mnew->layout || A2->lay != mnew->layout || A3->lay != mnew->layout)
      continue;
    /* the partials: each thread's own max and sum of each row (column) it holds (layout_partials) */
    const Layout *PL = layout_partials(K, L, down);
    const char *line_of = down ? "column" : "row";
    int regs = 4 * layout_count(PL) * (et == T_F64 ? 2 : 1);
    const char *what = arena_printf(K->a, "%s at line %d and %s at line %d, a running max and sum of %s and %s "
                                    "across the loop at line %d", builtin_names[R1->red], R1->stmt->loc.line, builtin_names[R2->red], R2->stmt->loc.line,
                                    mx->sym->name, l->sym->name, loop->stmt->loc.line);
    if (regs > CARRY_MAX_REGS || tir_value_regs(K) + regs > TIR_MAX_VALUE_REGS) {
      vec_push(K->a, &K->folds, (void *)arena_printf(K->a, "%s: folded across threads in each iteration: its %d partials "
                                                     "per thread would pass %s", what, regs,
                                                     regs > CARRY_MAX_REGS ? "the most carried" : "the register budget"));
      return false;
    }
    /* pm, pl before the loop; pn, ps in it */
    Type pt = {et, 2, {PL->rows, PL->cols}, false};
    TirVar *v[4];
    const char *names[4] = {"running max", "running sum", "new max", "new max, 0 where it is -inf"};
    TirOp *decl[4];
    for (int k = 0; k < 4; k++) {
      v[k] = tir_new_var(K, et, 2, PL->rows, PL->cols,
                         arena_printf(K->a, "each thread's %s of each %s of the online softmax at line %d, across "
                                      "the loop at line %d", names[k], line_of, R1->stmt->loc.line, loop->stmt->loc.line));
      v[k]->cname = arena_printf(K->a, "t2c_p%d", v[k]->id);
      v[k]->layout = PL;
      decl[k] = tir_new_op(K, NULL, TO_DECL, R1->stmt);
      decl[k]->dst = v[k];
      decl[k]->lay = PL;
    }
    TirVar *pm = v[0], *pl = v[1], *pn = v[2], *ps = v[3];
    decl[0]->note = arena_printf(K->a, "%s, %s: this thread's running max and sum of each %s it holds, folded "
                                 "across threads once, after the loop", pm->cname, pl->cname, line_of);
    TirOp *initm = assign_op(K, R1, pm, TK_ASSIGN, constant(K, et, -INFINITY, R1->stmt->loc));
    TirOp *initl = assign_op(K, R1, pl, TK_ASSIGN, constant(K, et, 0.0, R1->stmt->loc));
    /* in the loop: pn = pm, then max(pn, its elements of e) in the thread; ps; pl *= exp(pm - ps),
     * then pl += exp(e - ps) in the thread; pm = pn */
    TirOp *sn = assign_op(K, R1, pn, TK_ASSIGN, tir_read_of(K, pm));
    TirOp *fm = tir_new_op(K, NULL, TO_REDUCE, R1->stmt);
    *fm = *R1;
    fm->dst = pn;
    fm->intra = true;
    fm->first = false;
    fm->note = NULL;
    TirOp *ss = assign_op(K, R1, ps, TK_ASSIGN, unless_none(K, tir_read_of(K, pn), tir_read_of(K, pn), et));
    TirOp *sl = assign_op(K, R2, pl, TK_ASSIGN, binary(K, TK_STAR, tir_read_of(K, pl),
                                                       call1(K, B_EXP, binary(K, TK_MINUS, tir_read_of(K, pm), tir_read_of(K, ps), pt)), pt));
    TirOp *fs = tir_new_op(K, NULL, TO_REDUCE, R2->stmt);
    *fs = *R2;
    fs->dst = pl;
    fs->intra = true;
    fs->first = false;
    fs->note = NULL;
    Expr *e2 = e ? tir_read_of(K, (TirVar *)e) : R1->expr;
    fs->expr = call1(K, B_EXP, binary(K, TK_MINUS, e2, tir_read_of(K, ps), e2->ty));
    TirOp *sm = assign_op(K, A3, pm, TK_ASSIGN, tir_read_of(K, pn));
    sn->first = R1->first;
    /* after the loop: the folds of pm and pl across threads, then A1, A2 (l = the sum), A3 */
    TirOp *dn = NULL;
    for (int j = 0; j < ops->len; j++) {
      TirOp *op = ops->items[j];
      if (op->kind == TO_DECL && op->dst == mnew) dn = op;
    }
    TirOp *Rs[2] = {R1, R2};
    for (int k = 0; k < 2; k++) {
      Rs[k]->lay = PL;
      Rs[k]->rows = PL->rows;
      Rs[k]->cols = PL->cols;
      Rs[k]->rolled_cols = false;
    }
    R1->expr = tir_read_of(K, pm);
    Expr *w = binary(K, TK_STAR, tir_read_of(K, pl),
                     call1(K, B_EXP, binary(K, TK_MINUS, tir_read_of(K, pm), (Expr *)d->u.binary.b, pt)), pt);
    R2->expr = unless_none(K, tir_read_of(K, pm), w, et);
    A2->expr = (Expr *)tv;
    PtrVec body = {0};
    for (int j = 0; j < ops->len; j++) {
      TirOp *op = ops->items[j];
      if (op == dn || op == A1 || op == R2 || op == A2 || op == A3 || op == ad || op == aa) continue;
      if (op == R1) {
        TirOp *in[8] = {decl[2], sn, fm, decl[3], ss, sl, fs, sm};
        for (int k = 0; k < 8; k++) vec_push(K->a, &body, in[k]);
        continue;
      }
      vec_push(K->a, &body, op);
    }
    loop->body.ops = body;
    R1->first = !dn; /* the statement's comment heads mnew's declaration, or R1 */
    R1->note = arena_printf(K->a, "%s, %s: carried across the loop above, folded across threads once", pm->cname, pl->cname);
    PtrVec out = {0};
    for (int j = 0; j < b->ops.len; j++) {
      if (j == li) {
        TirOp *pre[4] = {decl[0], initm, decl[1], initl};
        for (int k = 0; k < 4; k++) vec_push(K->a, &out, pre[k]);
      }
      vec_push(K->a, &out, b->ops.items[j]);
      if (j == li) {
        TirOp *post[6] = {dn, R1, A1, R2, A2, A3};
        for (int k = 0; k < 6; k++)
          if (post[k]) vec_push(K->a, &out, post[k]);
      }
    }
    b->ops = out;
    A1->first = R2->first = A2->first = A3->first = false;
    if (dn) dn->first = true;
    if (al) tir_drop_var(K, al); /* read by nothing now */
    /* l read by nothing now but its own update did */
    l->unread = !reads_var(K, &K->body, l);
    vec_push(K->a, &K->folds, (void *)arena_printf(K->a, "%s: each thread carries its own max and sum of each %s it holds "
                                                   "across the loop (%s, %s, %d per thread each), folded across threads "
                                                   "once, after it", what, line_of, pm->cname, pl->cname, layout_count(PL)));
    return true;
  }
  return false;
}

static void carry_block(TirKernel *K, TirBlock *b, int td, int loops, PtrVec *made) {
  for (int li = 0; li < b->ops.len; li++) {
    TirOp *op = b->ops.items[li];
    int inner = td + op->td;
    bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
    carry_block(K, &op->body, inner, loops + loop, made);
    carry_block(K, &op->els, inner, loops + loop, made);
    if (!loop || inner) continue;
    if (carry_online(K, b, li)) {
      li += 4; /* the partials' declarations and starts went before the loop */
      continue;
    }
    int nfold = 0, nassign = 0; /* the ops carry put after the loop */
    PtrVec told = {0};          /* the folds that stay in the loop, said once though the body is looked at again */
    for (int i = 0; i < op->body.ops.len; i++) {
      Fold f;
      const char *into = NULL, *no = carriable(K, op, i, &f, &into);
      if (!f.A) continue; /* no accumulation */
      const char *what = arena_printf(K->a, "%s at line %d, accumulated into %s across the loop at line %d", builtin_names[f.R->red],
                                      f.R->stmt->loc.line, into, op->stmt->loc.line);
      if (no) {
        bool said = false;
        for (int k = 0; k < told.len; k++) said |= told.items[k] == f.R;
        if (!said) vec_push(K->a, &told, f.R);
        if (!said) vec_push(K->a, &K->folds, (void *)arena_printf(K->a, "%s: folded across threads in each iteration: %s", what, no));
        continue;
      }
      const TirVar *p = carry(K, b, li, &nfold, &nassign, &f, made, loops == 0);
      vec_push(K->a, &K->folds,
               (void *)arena_printf(K->a, "%s: each thread carries %s across the loop (%s, %d per thread), folded across threads once, after it",
                                    what, f.intra ? (tir_down_cols(f.R) ? "its own fold of each column it holds" : "its own fold of each row it holds")
                                                  : "its elements",
                                    p->cname, layout_count(p->layout)));
      li += 2; /* the partials' declaration and start went before the loop */
      i = -1;  /* the body changed: look again for another accumulation */
    }
  }
}

void carry_reductions(TirKernel *K) {
  PtrVec made = {0};
  carry_block(K, &K->body, 0, 0, &made);
}
