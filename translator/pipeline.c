/* pipeline.c: @pipeline(n) loops load n - 1 iterations ahead, into registers.
 *
 * A load at the top level of a @pipeline loop's body whose slice depends on
 * nothing the loop changes but the loop variable, from a tensor the kernel
 * does not write, becomes a ring of n - 1 register values p1 .. p(n-1):
 *
 *   before the loop:  p1 = load(i := lo), ..., p(n-1) = load(i := lo + (n-2) step)
 *   in the loop:      v = p1; p1 = p2; ...; p(n-1) = load(i := i + (n-1) step)
 *
 * Each early load runs only while its iteration is inside the loop's range, so
 * it reads nothing the loop would not (its bounds checks were proven for that
 * range). The loads of iteration i + n - 1 are in flight while iteration i
 * computes; that is the overlap @pipeline asks for. cp.async rings through
 * shared memory are the other path (emit.c, for loops with dot).
 * A ring that would take the kernel past its register budget is not made, nor
 * one in a loop with a continue (it would skip the shift).
 */
#include "t2c.h"

#include <string.h>

/* x is the same in every iteration of the loop at f, but for f's variable. */
static bool invariant(const Expr *x, const Stmt *f) {
  if (!x) return true;
  switch (x->kind) {
  case E_INT: case E_FLOAT: case E_BOOL: case E_INF: return true;
  case E_CTX: return true; /* thread and block indices do not change in a loop */
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y) return false;
    if (y == f->u.forr.sym || y->kind == SY_SIZE || y->kind == SY_SCALAR || y->kind == SY_CONST) return true;
    if (y->kind == SY_LOOP) return y->decl != f; /* an enclosing loop's variable */
    /* a scalar var assigned only where it is declared, outside this loop */
    if (y->kind != SY_VAR || y->ty.rank || y->reassigned) return false;
    return y->decl->loc.line < f->loc.line;
  }
  case E_UNARY: return invariant(x->u.unary.a, f);
  case E_BINARY: return invariant(x->u.binary.a, f) && invariant(x->u.binary.b, f);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!invariant(x->u.call.args[i], f)) return false;
    return x->u.call.builtin != B_SUM && builtin_class[x->u.call.builtin] != BC_RED;
  default: return false;
  }
}

static bool written(const TirKernel *K, const Sym *X) {
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].tensor == X) return true;
  return false;
}

static bool candidate(const TirKernel *K, const TirOp *op, const Stmt *f) {
  /* a load an inner @pipeline loop issues ahead already has its ring */
  if (op->kind != TO_LOAD || op->pf_var || written(K, op->slice->u.index.base->u.ident.sym)) return false;
  for (int d = 0; d < op->slice->u.index.nidx; d++)
    if (!invariant(op->slice->u.index.idx[d].start, f)) return false;
  return invariant(op->pad, f);
}

static TirOp *copy_op(TirKernel *K, TirVar *dst, TirVar *src, Stmt *s) {
  TirOp *o = tir_new_op(K, NULL, TO_ASSIGN, s);
  o->dst = dst;
  o->expr = tir_read_of(K, src);
  o->lay = dst->layout;
  o->rows = dst->rows;
  o->cols = dst->cols;
  return o;
}

static TirOp *early_load(TirKernel *K, const TirOp *l, TirVar *dst, const Stmt *f, const Expr *base, int k) {
  TirOp *o = tir_new_op(K, NULL, TO_LOAD, l->stmt);
  *o = *l;
  o->first = false;
  o->dst = dst;
  o->pf_var = f->u.forr.sym;
  o->pf_base = base;
  o->pf_loop = f;
  o->pf_k = k;
  return o;
}

/* The ring for load l of loop f (its op in block b at index at), n - 1 deep. */
static void ring(TirKernel *K, TirOp *f, TirOp *l, int d, PtrVec *before, PtrVec *body) {
  TirVar **p = NEW_ARRAY(K->a, TirVar *, d + 1);
  for (int j = 1; j <= d; j++) {
    p[j] = tir_new_var(K, l->dst->elem, l->dst->rank, l->dst->rows, l->dst->cols,
                       arena_printf(K->a, "%s, %d iteration%s ahead", l->dst->what, j, j > 1 ? "s" : ""));
    p[j]->cname = arena_printf(K->a, "%s_p%d", l->dst->cname, j);
    p[j]->layout = l->dst->layout;
    TirOp *dc = tir_new_op(K, NULL, TO_DECL, f->stmt);
    dc->dst = p[j];
    dc->lay = p[j]->layout;
    vec_push(K->a, before, dc);
  }
  for (int j = 1; j <= d; j++)
    vec_push(K->a, before, early_load(K, l, p[j], f->stmt, f->stmt->u.forr.lo, j - 1));
  /* in the body, where the load was: take the oldest, shift, issue the newest */
  TirOp *decl = tir_new_op(K, NULL, TO_DECL, l->stmt);
  decl->dst = l->dst;
  decl->lay = l->dst->layout;
  decl->first = l->first;
  vec_push(K->a, body, decl);
  vec_push(K->a, body, copy_op(K, l->dst, p[1], l->stmt));
  for (int j = 1; j < d; j++) vec_push(K->a, body, copy_op(K, p[j], p[j + 1], l->stmt));
  vec_push(K->a, body, early_load(K, l, p[d], f->stmt, NULL, d));
}

/* A continue of this loop (not of one inside it) would skip the ring's shift. */
static bool has_continue(const TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind == TO_CONTINUE) return true;
    if (op->kind == TO_IF && (has_continue(&op->body) || has_continue(&op->els))) return true;
  }
  return false;
}

/* Returns whether some load got a ring. */
static bool pipeline_loop(TirKernel *K, TirOp *f, int stages, PtrVec *before) {
  int d = stages - 1;
  if (has_continue(&f->body)) return false;
  PtrVec body = {0};
  for (int i = 0; i < f->body.ops.len; i++) {
    TirOp *op = f->body.ops.items[i];
    if (op->kind == TO_LOAD && candidate(K, op, f->stmt) &&
        tir_value_regs(K) + layout_count(op->dst->layout) * d <= TIR_MAX_VALUE_REGS)
      ring(K, f, op, d, before, &body);
    else vec_push(K->a, &body, op);
  }
  f->body.ops = body;
  return before->len > 0;
}

static void pipeline_block(TirKernel *K, TirBlock *b) {
  PtrVec out = {0};
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    pipeline_block(K, &op->body);
    pipeline_block(K, &op->els);
    if (op->kind == TO_FOR)
      for (int a = 0; a < op->stmt->nattrs; a++) {
        const Attr *at = op->stmt->attrs[a];
        if (at->kind == A_PIPELINE && at->args[0]->cv.i > 1) {
          PtrVec before = {0};
          if (!pipeline_loop(K, op, (int)at->args[0]->cv.i, &before))
            diag_warning(K->d, W_PIPELINE, at->loc, "@pipeline(%d): none of the loop's loads can be issued ahead (see --dump-tir); "
                         "they are not overlapped", (int)at->args[0]->cv.i);
          if (before.len) { /* the ring's first loads go after the loop's comment */
            ((TirOp *)before.items[0])->first = op->first;
            op->first = false;
          }
          for (int j = 0; j < before.len; j++) vec_push(K->a, &out, before.items[j]);
        }
      }
    vec_push(K->a, &out, op);
  }
  b->ops = out;
}

void pipeline_loops(TirKernel *K) { pipeline_block(K, &K->body); }
