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
 * computes; that is the overlap @pipeline asks for. A load that reads the same
 * elements in every iteration (its slice names not even the loop variable: a
 * bias) gets no ring: it is loaded once before the loop, under the first
 * iteration's guard, and the body takes its value (hoist).
 * A load whose value only fills a dot operand's copy goes to shared memory
 * directly instead: a ring of n copies filled by cp.async (stage_rings below);
 * with no cp.async on the target (hw.c) it keeps its register ring.
 * A ring of 1- or 2-byte elements holds them packed, 4 (2) a 32-bit register
 * (TirVar.packed: an int8 weight ring of 32 elements a thread takes 8 registers
 * a slot, not 32), and its budget counts the words.
 * A ring that would take the kernel past its register budget is not made, nor
 * one in a loop with a continue (it would skip the shift).
 *
 * On a path with TMA (hw.c), the stage rings of a wgmma dot are filled by the
 * bulk tensor copy in the fast body instead (tma_rings below): one thread
 * issues each stage's boxes on the stage's "full" mbarrier, every thread
 * waits on that barrier's phase, and each warp arrives on the stage's
 * "empty" barrier once its wgmma no longer reads it, which the issuing thread
 * waits for before it refills the stage. The loop then has no __syncthreads.
 * The general body keeps the cp.async ring (TirOp.only says which op is
 * printed in which body).
 */
#include "t2c.h"

#include <string.h>

static bool written(const TirKernel *K, const Sym *X) {
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].tensor == X) return true;
  return false;
}

typedef struct Assigned {
  const Sym *y;
  bool any;
} Assigned;

static void assigned_fn(Stmt *s, void *ctx) {
  Assigned *a = ctx;
  if (s->kind == S_ASSIGN && s->u.assign.lhs->kind == E_IDENT && s->u.assign.lhs->u.ident.sym == a->y) a->any = true;
}

/* Whether a statement of b (nested ones too) assigns scalar var y. */
static bool assigned_in(const Block *b, const Sym *y) {
  Assigned a = {y, false};
  facts_walk_stmts((Block *)b, assigned_fn, &a);
  return a.any;
}

/* The var y declared at the top of the body of the loop at f, never assigned again,
 * with an initial value (var blk = BT[b, j]; a tile var too, var kk = k0 + rows(32, 1),
 * which a gather's index reads as it would the expression): its declaration, else NULL. */
static const Stmt *loop_local(const Sym *y, const Stmt *f) {
  if (y->kind != SY_VAR || y->reassigned || !y->decl || y->decl->kind != S_VAR || !y->decl->u.decl.init)
    return NULL;
  const Block *b = &f->u.forr.body;
  for (int i = 0; i < b->nstmts; i++)
    if (b->stmts[i] == y->decl) return y->decl;
  return NULL;
}

/* x is the same in every iteration of the loop at f, but for f's variable: an
 * element of a tensor the kernel does not write at such indices (a block table's
 * BT[b, j]) counts, and so does a scalar var declared at the top of the loop's body
 * as such (local: then x must be printed with it inlined, inline_locals). */
/* How many loop-local vars deep (loop_local) a slice index may read through: a persistent
 * GEMM's tile arithmetic (tile, group, first row, group rows, m0) goes five deep. Element
 * reads' indices take none (NO_LOCALS: inline_locals does not go into them). An index so
 * inlined may not pass INLINED_NODES nodes (v1 = v0 + v0, v2 = v1 + v1, ... doubles at each
 * var): the early loads print it whole. */
enum { LOCAL_CHAIN = 16, NO_LOCALS = LOCAL_CHAIN + 1, INLINED_NODES = 256 };

/* A tile var declared before the loop at f and never assigned again (var r = I[m0 :+ 64]
 * ahead of it, X[reshape(r, [64, 1]), k0 + cols(64, 32)] in it): its value, in registers
 * or in its shared copy, is the same in every iteration, and the copy is written before
 * the loop (sync.c puts the barrier between that write and the early loads' reads). */
static bool tile_before(const Sym *y, const Stmt *f) {
  return y && y->kind == SY_VAR && y->ty.rank && !y->reassigned && y->decl && y->decl->loc.line < f->loc.line;
}

static bool invariant(const TirKernel *K, const Expr *x, const Stmt *f, int depth) {
  if (!x) return true;
  /* a value the body computes (a transpose's copy): an early load would read this
   * iteration's; but the copy of a tile var set before the loop holds its one value */
  if (tir_hoisted(K, x)) return false;
  const TirRead *rd = tir_read(K, x);
  if (rd) {
    const TirVar *v = K->bufs[rd->buf].spill_of;
    if (!v || !tile_before(v->sym, f)) return false;
    return rd->kind != TR_WINDOW || (invariant(K, rd->start[0], f, NO_LOCALS) && invariant(K, rd->start[1], f, NO_LOCALS));
  }
  switch (x->kind) {
  case E_INT: case E_FLOAT: case E_BOOL: case E_INF: return true;
  case E_CTX: return true; /* thread and block indices do not change in a loop */
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y) return false;
    if (y == f->u.forr.sym || y->kind == SY_SIZE || y->kind == SY_SCALAR || y->kind == SY_CONST) return true;
    if (y->kind == SY_LOOP) return y->decl != f; /* an enclosing loop's variable */
    const Stmt *d = depth < LOCAL_CHAIN ? loop_local(y, f) : NULL;
    if (d) return invariant(K, d->u.decl.init, f, depth + 1);
    /* a scalar var declared before this loop and never assigned in it (also one
     * assigned again before it: var m0 = 0; if n > 0 { m0 = 16 }) */
    if (y->ty.rank) return tile_before(y, f);
    if (y->kind != SY_VAR || !y->decl || y->decl->loc.line >= f->loc.line) return false;
    return !y->reassigned || !assigned_in(&f->u.forr.body, y);
  }
  case E_UNARY: return invariant(K, x->u.unary.a, f, depth);
  case E_BINARY: return invariant(K, x->u.binary.a, f, depth) && invariant(K, x->u.binary.b, f, depth);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!invariant(K, x->u.call.args[i], f, depth)) return false;
    return x->u.call.builtin != B_SUM && builtin_class[x->u.call.builtin] != BC_RED &&
           builtin_class[x->u.call.builtin] != BC_ARG && builtin_class[x->u.call.builtin] != BC_SCAN;
  case E_INDEX: {
    const Sym *X = x->u.index.base->u.ident.sym;
    if (x->ty.rank || !X || X->kind != SY_TENSOR || written(K, X)) return false;
    for (int d = 0; d < x->u.index.nidx; d++)
      if (x->u.index.idx[d].len || !invariant(K, x->u.index.idx[d].start, f, NO_LOCALS)) return false; /* no locals */
    return true;
  }
  default: return false;
  }
}

/* x with each loop-local var (loop_local) replaced by its initial value, the nodes
 * above it copied (the values' own nodes are shared: an element read keeps its
 * identity, lower.c's K->elems); x itself when it names none. */
static Expr *inline_locals(TirKernel *K, Expr *x, const Stmt *f, int depth, PtrVec *used) {
  if (!x || depth > LOCAL_CHAIN) return x;
  switch (x->kind) {
  case E_IDENT: {
    const Stmt *d = x->u.ident.sym ? loop_local(x->u.ident.sym, f) : NULL;
    if (!d) return x;
    vec_push(K->a, used, x->u.ident.sym);
    Expr *v = inline_locals(K, d->u.decl.init, f, depth + 1, used);
    /* a scalar's value worth a name (not a constant, nor another name): the loads issued
       ahead declare it once, at the top of their block (emit_tir.c ahead_locals) */
    if (!x->u.ident.sym->ty.rank && !(v->flags & EF_CONST) &&
        (v->kind == E_BINARY || v->kind == E_UNARY || v->kind == E_CALL || v->kind == E_INDEX)) {
      vec_push(K->a, &K->ikeys, v);
      vec_push(K->a, &K->ivals, (void *)x->u.ident.sym);
    }
    return v;
  }
  case E_UNARY: {
    Expr *a = inline_locals(K, x->u.unary.a, f, depth, used);
    if (a == x->u.unary.a) return x;
    Expr *c = NEW(K->a, Expr);
    *c = *x;
    c->u.unary.a = a;
    return c;
  }
  case E_BINARY: {
    Expr *a = inline_locals(K, x->u.binary.a, f, depth, used), *b = inline_locals(K, x->u.binary.b, f, depth, used);
    if (a == x->u.binary.a && b == x->u.binary.b) return x;
    Expr *c = NEW(K->a, Expr);
    *c = *x;
    c->u.binary.a = a;
    c->u.binary.b = b;
    return c;
  }
  case E_CALL: {
    Expr **args = NULL;
    for (int i = 0; i < x->u.call.nargs; i++) {
      Expr *a = inline_locals(K, x->u.call.args[i], f, depth, used);
      if (a == x->u.call.args[i] && !args) continue;
      if (!args) {
        args = NEW_ARRAY(K->a, Expr *, x->u.call.nargs);
        for (int k = 0; k < x->u.call.nargs; k++) args[k] = x->u.call.args[k];
      }
      args[i] = a;
    }
    if (!args) return x;
    Expr *c = NEW(K->a, Expr);
    *c = *x;
    c->u.call.args = args;
    return c;
  }
  default: return x; /* an element read's indices name no local (invariant refused them) */
  }
}

/* The nodes of x with its loop-local vars inlined (as inline_locals would print it),
 * counted up to past INLINED_NODES. */
static int inlined_nodes(const Expr *x, const Stmt *f, int depth, int n) {
  if (!x || n > INLINED_NODES) return n;
  n++;
  switch (x->kind) {
  case E_IDENT: {
    const Stmt *d = x->u.ident.sym && depth <= LOCAL_CHAIN ? loop_local(x->u.ident.sym, f) : NULL;
    return d ? inlined_nodes(d->u.decl.init, f, depth + 1, n - 1) : n;
  }
  case E_UNARY: return inlined_nodes(x->u.unary.a, f, depth, n);
  case E_BINARY: return inlined_nodes(x->u.binary.b, f, depth, inlined_nodes(x->u.binary.a, f, depth, n));
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) n = inlined_nodes(x->u.call.args[i], f, depth, n);
    return n;
  default: return n;
  }
}

/* Whether op's slice, its loop-local vars inlined, is too long to print in early loads. */
static bool too_long(const TirOp *op, const Stmt *f) {
  int n = 0;
  for (int d = 0; d < op->slice->u.index.nidx; d++) n = inlined_nodes(op->slice->u.index.idx[d].start, f, 0, n);
  return n > INLINED_NODES;
}

static bool candidate(const TirKernel *K, const TirOp *op, const Stmt *f) {
  /* a load an inner @pipeline loop issues ahead already has its ring */
  if (op->kind != TO_LOAD || op->pf_var || written(K, op->slice->u.index.base->u.ident.sym)) return false;
  for (int d = 0; d < op->slice->u.index.nidx; d++)
    if (!invariant(K, op->slice->u.index.idx[d].start, f, 0)) return false;
  return invariant(K, op->pad, f, 0) && !too_long(op, f);
}

/* A candidate's slice with its loop-local vars inlined (its early loads read them
 * for their own iteration). */
static void inline_slice(TirKernel *K, TirOp *op, const Stmt *f, PtrVec *used) {
  Expr *s = op->slice;
  Index *ix = NULL;
  for (int d = 0; d < s->u.index.nidx; d++) {
    /* a gather's index read from another load's ring (ring_index) stays as it is: its
     * early loads take it from there (slice_from) */
    if (!invariant(K, s->u.index.idx[d].start, f, 0)) continue;
    Expr *e = inline_locals(K, s->u.index.idx[d].start, f, 0, used);
    if (e == s->u.index.idx[d].start) continue;
    if (!ix) {
      ix = NEW_ARRAY(K->a, Index, s->u.index.nidx);
      for (int k = 0; k < s->u.index.nidx; k++) ix[k] = s->u.index.idx[k];
    }
    ix[d].start = e;
  }
  if (!ix) return;
  Expr *c = NEW(K->a, Expr);
  *c = *s;
  c->u.index.idx = ix;
  op->slice = c;
}

/* Whether the CUDA printed for x names y: values and copies it reads print as such. */
static bool prints_sym(const TirKernel *K, const Expr *x, const Sym *y) {
  if (!x || tir_hoisted(K, x) || tir_read(K, x)) return false;
  switch (x->kind) {
  case E_IDENT: return x->u.ident.sym == y;
  case E_UNARY: return prints_sym(K, x->u.unary.a, y);
  case E_BINARY: return prints_sym(K, x->u.binary.a, y) || prints_sym(K, x->u.binary.b, y);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (prints_sym(K, x->u.call.args[i], y)) return true;
    return false;
  case E_INDEX:
    for (int i = 0; i < x->u.index.nidx; i++)
      if (prints_sym(K, x->u.index.idx[i].start, y)) return true;
    return false;
  default: return false;
  }
}

/* Whether the indices of a load's or store's slice print y. The slice of a load is the
 * key of the value it loads (tir_hoisted), so prints_sym would take it as that value and
 * look no further: a load left in the loop (Z[g, 0 :+ 64] past the register budget) while
 * another of g's loads was issued ahead then lost g's declaration (nvcc: "g" is undefined). */
static bool slice_prints_sym(const TirKernel *K, const Expr *slice, const Sym *y) {
  if (!slice || slice->kind != E_INDEX) return prints_sym(K, slice, y);
  for (int i = 0; i < slice->u.index.nidx; i++)
    if (prints_sym(K, slice->u.index.idx[i].start, y)) return true;
  return false;
}

typedef struct SymUse {
  const Sym *y;
  const TirOp *decl;
  bool used;
} SymUse;

static void sym_use_fn(TirKernel *K, const TirBlock *b, SymUse *u) {
  for (int i = 0; i < b->ops.len && !u->used; i++) {
    const TirOp *op = b->ops.items[i];
    const Stmt *s = op->stmt;
    if (op != u->decl) {
      u->used |= prints_sym(K, op->expr, u->y) || slice_prints_sym(K, op->slice, u->y) || prints_sym(K, op->pad, u->y) ||
                 prints_sym(K, op->uguard, u->y) || prints_sym(K, op->win[0], u->y) || prints_sym(K, op->win[1], u->y);
      if (s && (op->kind == TO_SCALAR || op->kind == TO_IF || op->kind == TO_FOR || op->kind == TO_WHILE)) {
        if (s->kind == S_VAR) u->used |= tir_names_sym(s->u.decl.init, u->y);
        if (s->kind == S_ASSIGN) u->used |= tir_names_sym(s->u.assign.lhs, u->y) || tir_names_sym(s->u.assign.rhs, u->y);
        if (s->kind == S_IF) u->used |= tir_names_sym(s->u.iff.cond, u->y);
        if (s->kind == S_WHILE) u->used |= tir_names_sym(s->u.whil.cond, u->y);
        if (s->kind == S_FOR)
          u->used |= tir_names_sym(s->u.forr.lo, u->y) || tir_names_sym(s->u.forr.hi, u->y) ||
                     tir_names_sym(s->u.forr.step, u->y);
      }
    }
    sym_use_fn(K, &op->body, u);
    sym_use_fn(K, &op->els, u);
  }
}

/* Whether op declares loop-local tile var y or sets its initial value. */
static bool tile_local_op(const TirOp *op, const Sym *y) {
  return op->dst && op->dst->sym == y && (op->kind == TO_DECL || (op->kind == TO_ASSIGN && op->stmt == y->decl));
}

/* Whether an op of b other than tile_local_op reads tile var y (its value or its copy). */
static bool tile_used(const TirKernel *K, const TirBlock *b, const Sym *y) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    for (int k = 0; k < K->vars.len && !tile_local_op(op, y); k++) {
      const TirVar *v = K->vars.items[k];
      if (v->sym == y && tir_op_touches(K, op, v)) return true;
    }
    if (tile_used(K, &op->body, y) || tile_used(K, &op->els, y)) return true;
  }
  return false;
}

/* Whether op declares or sets inlined loop-local var y, which nothing reads any more. */
static bool inlined_unused(TirKernel *K, const TirOp *op, const Sym *y) {
  if (y->ty.rank) return tile_local_op(op, y) && !tile_used(K, &K->body, y);
  if (op->kind != TO_SCALAR || !op->stmt || op->stmt->kind != S_VAR || op->stmt->u.decl.sym != y) return false;
  SymUse u = {y, op, false};
  sym_use_fn(K, &K->body, &u);
  return !u.used;
}

/* A loop-local var that inline_slice inlined (used) and whose every use it replaced
 * is declared no more (nvcc: "declared but never referenced"; a tile var's elements,
 * "set but never used"). */
static void drop_inlined(TirKernel *K, TirOp *f, const PtrVec *used) {
  /* until none is dropped: one may have been another's only use */
  for (bool again = used->len > 0; again;) {
    again = false;
    PtrVec out = {0};
    for (int i = 0; i < f->body.ops.len; i++) {
      TirOp *op = f->body.ops.items[i];
      bool drop = false;
      for (int k = 0; k < used->len && !drop; k++) drop = inlined_unused(K, op, used->items[k]);
      if (drop) {
        if (op->kind == TO_DECL) op->dst->inlined = true;
        again = true;
        continue;
      }
      vec_push(K->a, &out, op);
    }
    f->body.ops = out;
  }
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

/* name, or name_2, name_3, ...: the first that no var of the kernel has yet (two loads
 * into one tile var in one loop each get a ring of their own) */
static const char *fresh_cname(TirKernel *K, const char *name) {
  const char *c = name;
  for (int n = 2;; n++) {
    bool taken = false;
    for (int i = 0; i < K->vars.len && !taken; i++) {
      const TirVar *v = K->vars.items[i];
      taken = v->cname && strcmp(v->cname, c) == 0;
    }
    if (!taken) return c;
    c = arena_printf(K->a, "%s_%d", name, n);
  }
}

/* The value a gather's index x is, where x is one loaded in the loop body: a load in the
 * index itself (hoisted: X[C[k, 0 :+ 128]]), or a tile var declared at the top of the body
 * from a load and never assigned again (var c = C[k, 0 :+ 128]; X[c]); else NULL. */
static TirVar *index_value(const TirKernel *K, const Expr *x) {
  TirVar *h = tir_hoisted(K, x);
  if (h || x->kind != E_IDENT || !x->u.ident.sym) return h;
  const Sym *y = x->u.ident.sym;
  return y->kind == SY_VAR && y->ty.rank && !y->reassigned ? tir_var_of(K, y) : NULL;
}

/* l's slice with each index that is value ix (a gather's index tile loaded in the loop
 * body: index_value) read from v instead: the slot of ix's own ring that holds the
 * iteration l's early load is for. */
static Expr *slice_from(TirKernel *K, const TirOp *l, const TirVar *ix, TirVar *v) {
  Expr *s = l->slice, *c = NEW(K->a, Expr);
  *c = *s;
  c->u.index.idx = NEW_ARRAY(K->a, Index, s->u.index.nidx);
  for (int d = 0; d < s->u.index.nidx; d++) {
    c->u.index.idx[d] = s->u.index.idx[d];
    if (index_value(K, s->u.index.idx[d].start) == ix) c->u.index.idx[d].start = tir_read_of(K, v);
  }
  return c;
}

/* In the body, where load l was: its value is taken from p (declared first where it
 * is no tile var's: a tile var has its declaration already). */
static void take(TirKernel *K, const TirOp *l, TirVar *p, PtrVec *body) {
  TirOp *t = copy_op(K, l->dst, p, l->stmt);
  t->first = l->first;
  if (!l->dst->sym) {
    TirOp *decl = tir_new_op(K, NULL, TO_DECL, l->stmt);
    decl->dst = l->dst;
    decl->lay = l->dst->layout;
    decl->first = l->first;
    t->first = false;
    vec_push(K->a, body, decl);
  }
  vec_push(K->a, body, t);
}

/* Whether x, which invariant took for the loop at f, names f's variable: itself, in the
 * initial value of a var declared at the top of the body (loop_local), or in the window
 * of a copy it reads. */
static bool names_loop_var(const TirKernel *K, const Expr *x, const Stmt *f, int depth) {
  if (!x) return false;
  const TirRead *rd = tir_read(K, x);
  if (rd)
    return rd->kind == TR_WINDOW && (names_loop_var(K, rd->start[0], f, NO_LOCALS) || names_loop_var(K, rd->start[1], f, NO_LOCALS));
  switch (x->kind) {
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (y == f->u.forr.sym) return true;
    const Stmt *d = y && depth < LOCAL_CHAIN ? loop_local(y, f) : NULL;
    return d && names_loop_var(K, d->u.decl.init, f, depth + 1);
  }
  case E_UNARY: return names_loop_var(K, x->u.unary.a, f, depth);
  case E_BINARY: return names_loop_var(K, x->u.binary.a, f, depth) || names_loop_var(K, x->u.binary.b, f, depth);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (names_loop_var(K, x->u.call.args[i], f, depth)) return true;
    return false;
  case E_INDEX:
    for (int d = 0; d < x->u.index.nidx; d++)
      if (names_loop_var(K, x->u.index.idx[d].start, f, NO_LOCALS)) return true;
    return false;
  default: return false;
  }
}

/* Whether candidate l of the loop at f reads the same elements in every iteration (its
 * slice and pad name nothing the loop changes, nor the loop's variable: a bias,
 * Bias[c0 :+ 128]). */
static bool same_each_iteration(const TirKernel *K, const TirOp *l, const Stmt *f) {
  for (int d = 0; d < l->slice->u.index.nidx; d++)
    if (names_loop_var(K, l->slice->u.index.idx[d].start, f, 0)) return false;
  return !names_loop_var(K, l->pad, f, 0);
}

/* Load l of the loop at f, the same in every iteration (same_each_iteration): loaded once,
 * before the loop, into h, and taken from h in the body, where a ring would load it again
 * every iteration and hold stages - 1 copies of it. That load is the first iteration's,
 * under its guard (lo < hi, as a ring's first early load): a loop that runs no iteration
 * reads nothing. */
static TirVar *hoist(TirKernel *K, TirOp *f, TirOp *l, PtrVec *before, PtrVec *body) {
  TirVar *h = tir_new_var(K, l->dst->elem, l->dst->rank, l->dst->rows, l->dst->cols,
                          arena_printf(K->a, "%s, the same in every iteration (loaded once)", l->dst->what));
  h->cname = fresh_cname(K, arena_printf(K->a, "%s_once", l->dst->cname));
  h->layout = l->dst->layout;
  TirOp *dc = tir_new_op(K, NULL, TO_DECL, f->stmt);
  dc->dst = h;
  dc->lay = h->layout;
  vec_push(K->a, before, dc);
  TirOp *e = early_load(K, l, h, f->stmt, f->stmt->u.forr.lo, 0);
  e->pf_once = true;
  vec_push(K->a, before, e);
  take(K, l, h, body);
  return h;
}

/* The ring for load l of loop f, d deep; its slots p[1 .. d] (NULL: no ring). With ix, a
 * gather's index value loaded earlier in the body with ring src, d + 1 deep: the early
 * load of iteration lo + k reads ix from src[k + 1] before the loop, and that of
 * iteration i + d from src[d] in it (after src's shift, src[j] holds iteration i + j's,
 * loaded an iteration before). */
static TirVar **ring(TirKernel *K, TirOp *f, TirOp *l, int d, PtrVec *before, PtrVec *body, const TirVar *ix,
                     TirVar **src) {
  TirVar **p = NEW_ARRAY(K->a, TirVar *, d + 1);
  for (int j = 1; j <= d; j++) {
    p[j] = tir_new_var(K, l->dst->elem, l->dst->rank, l->dst->rows, l->dst->cols,
                       arena_printf(K->a, "%s, %d iteration%s ahead", l->dst->what, j, j > 1 ? "s" : ""));
    p[j]->cname = fresh_cname(K, arena_printf(K->a, "%s_p%d", l->dst->cname, j));
    p[j]->layout = l->dst->layout;
    TirOp *dc = tir_new_op(K, NULL, TO_DECL, f->stmt);
    dc->dst = p[j];
    dc->lay = p[j]->layout;
    vec_push(K->a, before, dc);
  }
  for (int j = 1; j <= d; j++) {
    TirOp *e = early_load(K, l, p[j], f->stmt, f->stmt->u.forr.lo, j - 1);
    if (ix) e->slice = slice_from(K, l, ix, src[j]);
    vec_push(K->a, before, e);
  }
  /* in the body, where the load was: take the oldest, shift, issue the newest */
  take(K, l, p[1], body);
  TirOp *t = body->items[body->len - 1];
  t->ring_role = TIR_RING_TAKE;
  t->ring = p;
  for (int j = 1; j < d; j++) {
    TirOp *c = copy_op(K, p[j], p[j + 1], l->stmt);
    c->ring_role = TIR_RING_SHIFT;
    c->ring = p;
    vec_push(K->a, body, c);
  }
  TirOp *e = early_load(K, l, p[d], f->stmt, NULL, d);
  if (ix) e->slice = slice_from(K, l, ix, src[d]);
  e->ring_role = TIR_RING_FILL;
  e->ring = p;
  vec_push(K->a, body, e);
  return p;
}

/* A continue (kind TO_CONTINUE) or break (TO_BREAK) of this loop, not of one
 * inside it: a continue would skip a ring's shift, a break leave TMA in flight. */
static bool has_exit(const TirBlock *b, TirOpKind kind) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind == kind) return true;
    if (op->kind == TO_IF && (has_exit(&op->body, kind) || has_exit(&op->els, kind))) return true;
  }
  return false;
}

/* The first op of kind in b or its ifs (as has_exit), or NULL. */
static const TirOp *find_exit(const TirBlock *b, TirOpKind kind) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind == kind) return op;
    if (op->kind == TO_IF) {
      const TirOp *e = find_exit(&op->body, kind);
      if (!e) e = find_exit(&op->els, kind);
      if (e) return e;
    }
  }
  return NULL;
}

/* ------------------------------------------------------------ stage rings (cp.async) */

typedef struct Uses {
  const TirVar *v;
  const TirOp *loop;
  const TirOp *load;     /* the load that would fill the copy: another load of v is another use */
  bool other;            /* v is used other than by its load and its copies in the loop's body
                            (and, living in its copy, by reads of it inside the loop) */
  const TirOp *by;       /* the first such use */
} Uses;

/* v read by name or as a hoisted value; reads of its copy count apart */
static bool expr_mentions(const TirKernel *K, const Expr *x, const TirVar *v) { return tir_mentions(K, x, v, false); }

static void uses_block(const TirKernel *K, const TirBlock *b, Uses *u, bool top, bool inside) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    /* a second load of v in the loop (v = A[...] twice) would fill the same copy: not mine */
    bool mine = top && (op->kind == TO_DECL || op == u->load || op->kind == TO_SPILL);
    /* a dot reads its operands from their copies; so does every op inside the
     * loop a value living in its copy (TirVar.home), at its own elements */
    bool reads = expr_mentions(K, op->expr, u->v) || expr_mentions(K, op->pad, u->v) || (op->src == u->v && op->kind != TO_DOT);
    if ((op->dst == u->v && !mine) || (reads && !(u->v->home && inside))) {
      if (!u->other) u->by = op;
      u->other = true;
    }
    uses_block(K, &op->body, u, op == u->loop, inside || op == u->loop);
    uses_block(K, &op->els, u, false, inside);
  }
}

/* The operand copy a load's value goes to, when the value is used for nothing
 * else (a dot reads the copy): the load can then fill the copy directly. A
 * value with a copy besides that one (or besides its home: an 8-bit B
 * operand's transposed copy) keeps its load, since the ring would replace the
 * copies it is made into. */
/* Whether the body of loop f (at its top level) copies v into buffer bi, whose rows keep
 * the load's runs aligned (a copy read transposed, its pitch odd against bank conflicts,
 * would take 4-byte cp.async where the load moves 16 bytes: it stays a copy). */
static bool spilled_in(const TirKernel *K, const TirOp *f, const TirOp *l, int bi) {
  const TirBuf *b = &K->bufs[bi];
  const TirVar *v = l->dst;
  if (l->vec > 1 && b->pitch % l->vec) return false;
  for (int i = 0; i < f->body.ops.len; i++) {
    const TirOp *op = f->body.ops.items[i];
    if (op->kind == TO_SPILL && op->dst == v && op->buf == bi) return true;
  }
  return false;
}

static int direct_copy(const TirKernel *K, const TirOp *f, const TirOp *l) {
  /* nacc: room for the ring write async_copy adds to the load's reads */
  if (!K->hw->cp_async || l->pad || l->pf_var || l->vtail || l->nacc >= TIR_MAX_ACCESS) return -1;
  int bi = -1, copies = 0;
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].spill_of == l->dst && i != l->dst->home - 1) {
      if (K->bufs[i].trans) return -1; /* cp.async cannot transpose */
      bi = i;
      copies++;
    }
  if (l->dst->home) { /* the ring is its home: each iteration's ops read their stage */
    if (copies) return -1;
    Uses u = {l->dst, f, l, false, NULL};
    uses_block(K, &K->body, &u, false, false);
    return u.other ? -1 : l->dst->home - 1;
  }
  if (copies != 1 || K->bufs[bi].stages || !(K->bufs[bi].operand ? K->bufs[bi].alternating : spilled_in(K, f, l, bi)))
    return -1; /* an operand copy made in a loop; or any copy that the loop's body makes (a halo tile read
                  through windows: its readers read the ring's stage as they read the copy) */
  Uses u = {l->dst, f, l, false, NULL};
  uses_block(K, &K->body, &u, false, false);
  return u.other ? -1 : bi;
}

/* The statement that reads load l's value other than through its dot operand copy, where
 * that read alone keeps the copy from being l's cp.async ring (direct_copy), or NULL. */
static const Stmt *copy_read_besides(const TirKernel *K, const TirOp *f, const TirOp *l) {
  if (!K->hw->cp_async || l->pad || l->dst->home) return NULL;
  int copies = 0, bi = -1;
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].spill_of == l->dst) bi = i, copies++;
  if (copies != 1 || !K->bufs[bi].operand || K->bufs[bi].trans) return NULL;
  Uses u = {l->dst, f, l, false, NULL};
  uses_block(K, &K->body, &u, false, false);
  return u.other && u.by->stmt ? u.by->stmt : NULL;
}

static TirOp *new_op(TirKernel *K, TirOpKind kind, Stmt *s) { return tir_new_op(K, NULL, kind, s); }

static TirOp *async_copy(TirKernel *K, const TirOp *l, int bi, const Stmt *f, const Expr *base, int k) {
  TirOp *o = new_op(K, TO_ASYNC_COPY, l->stmt);
  *o = *l;
  o->kind = TO_ASYNC_COPY;
  o->first = false;
  o->dst = NULL;
  o->buf = bi;
  o->pf_var = f->u.forr.sym;
  o->pf_base = base;
  o->pf_loop = f;
  o->pf_k = k;
  /* it reads what the load reads (a gather's index through that index's shared copy,
   * written before the loop): sync.c orders those reads after the copy's writes */
  o->nacc = 0;
  for (int i = 0; i < l->nacc; i++)
    if (!l->acc[i].write) o->acc[o->nacc++] = l->acc[i];
  /* a cp.async of a run of vec elements needs the run's address in the stage aligned
   * to its bytes: every row's start is where the pitch is a multiple of vec. The copy
   * of dot(x, transpose(y))'s f32 y has an odd pitch (lower.c: its reads down the
   * columns meet 8 banks, not 2), so it is filled element by element, cp.async of 4
   * bytes, rather than given a 16-byte aligned pitch: it is written once a stage and
   * read K times, and its reads would then be 8-way conflicts */
  while (o->vec > 1 && K->bufs[bi].pitch % o->vec) o->vec /= 2;
  return o;
}

/* An mma.sync dot's k step: m16n8k32 for 8-bit operands, m16n8k16 otherwise. */
static int mma_k(const TirOp *d) { return elem_bytes[d->src->elem] == 1 ? 32 : 16; }

/* The loop body's first dot by mma.sync from shared memory (ldmatrix) of two
 * k steps or more, at the top level, or -1. */
static int dot_to_cut(const PtrVec *body) {
  for (int i = 0; i < body->len; i++) {
    const TirOp *op = body->items[i];
    if (op->kind != TO_DOT || op->wgmma || op->simt || !op->src || op->dst->home) continue;
    return op->kdim >= 2 * mma_k(op) ? i : -1;
  }
  return -1;
}

/* The dot cut into parts of its k steps, the next stages' copies issued between
 * them: after the first step the first ring's, after the second the second's,
 * and so on, all of them before the last part (the commit after the last copy).
 * At the top of the iteration every warp has just passed the barrier; with the
 * copies first, the tensor cores idled while each warp computed and issued
 * them (ptxas keeps the copies, which write shared memory, ahead of the
 * ldmatrix reads after them). Now the first step's mma run meanwhile.
 * (gemm_f16.tl on sm_80: 16 mma of the first step, then the copies of A; 16,
 * then those of B; then the last 32.) */
/* After the dot's k step j (of steps): the copies of group j, then the commit
 * after the last group. Ring r is group r, the rings past the groups the last
 * one, so that every copy is issued before the last step. */
static void copies_after_step(TirKernel *K, TirOp **copies, int n, TirOp *commit, int steps, int j, PtrVec *head) {
  int g = n < steps - 1 ? n : steps - 1; /* the groups */
  for (int r = 0; r < n; r++)
    if ((r < g - 1 ? r : g - 1) == j) vec_push(K->a, head, copies[r]);
  if (j == g - 1) vec_push(K->a, head, commit);
}

/* Part j of dot d: k kbeg .. kend - 1 (the first part is d itself). */
static TirOp *dot_part(TirKernel *K, TirOp *d, int j, int kbeg, int kend) {
  TirOp *p = d;
  if (j) {
    p = new_op(K, TO_DOT, d->stmt);
    *p = *d;
    p->first = false;
    if (p->op == TK_ASSIGN) p->op = TK_ADD_ASSIGN; /* the first part zeroed the accumulator */
  }
  p->kbeg = kbeg;
  p->kend = kend;
  return p;
}

/* with are the nwith dots after d that read d's A (tir_dots_sharing_a): each is cut
 * alike, its parts right after d's, so that they share their A fragments
 * (emit_tir.c print_dot). */
static void cut_dot(TirKernel *K, TirOp *d, TirOp **with, int nwith, TirOp **copies, int n, TirOp *commit,
                    PtrVec *head) {
  int ks = mma_k(d), steps = d->kdim / ks;
  int g = n < steps - 1 ? n : steps - 1; /* the groups of copies */
  for (int j = 0; j <= g; j++) {
    int kbeg = j * ks, kend = j == g ? d->kdim : (j + 1) * ks;
    vec_push(K->a, head, dot_part(K, d, j, kbeg, kend));
    for (int w = 0; w < nwith; w++) vec_push(K->a, head, dot_part(K, with[w], j, kbeg, kend));
    if (j == g) break;
    copies_after_step(K, copies, n, commit, steps, j, head);
  }
}

/* Whether the dot that loop f's body (its rings' loads gone) consists of
 * alone can take its fragments a k step ahead (rotate_dot): an mma.sync dot
 * from shared memory of two k steps or more, whose operand copies are this
 * loop's rings or copies the loop does not write (it writes nothing else). */
static bool rotatable(const TirKernel *K, const TirOp *f, const PtrVec *body, int cut) {
  if (cut < 0 || body->len != 1 || has_exit(&f->body, TO_BREAK)) return false;
  const TirOp *d = body->items[cut];
  const TirBuf *a = &K->bufs[d->buf], *b = &K->bufs[d->buf2];
  return (!a->stages || a->counter == f->counter) && (!b->stages || b->counter == f->counter);
}

/* Whether dot d's fragments a step ahead keep the blocks per SM: a thread then
 * holds the accumulator, two sets of fragments (an m16 tile's A 4 registers,
 * an n8 tile's B 2) and about 48 registers of addresses and indices (within 4
 * of ptxas 13.0's count for each GEMM example), which must fit what the
 * blocks that the stage rings' shared memory lets an SM hold (or @launch's
 * min_blocks, if more) leave each thread. Where more blocks fit, they hide
 * the barrier's wait as well; where they would no longer fit, the second set
 * is not worth them (gemm_i8: 2 blocks per SM at 120 registers without it, 1 at
 * 158 with it). */
static bool rotation_fits(TirKernel *K, const TirOp *d) {
  const TargetConfig *t = K->t;
  int set = d->lay->rr / 2 * 4 + d->lay->rc * 2;
  int regs = layout_count(d->dst->layout) + 2 * set + 48;
  int64_t rings = 0;
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].stages) rings += K->bufs[i].bytes;
  int blocks = (int)(t->smem_per_sm / smem_footprint(t, rings)), threads = K->ki->threads;
  if (blocks < K->ki->min_blocks) blocks = K->ki->min_blocks;
  if (blocks > t->max_blocks_per_sm) blocks = t->max_blocks_per_sm;
  if (blocks * threads > t->max_warps_per_sm * t->lanes) blocks = t->max_warps_per_sm * t->lanes / threads;
  if (blocks < 1) blocks = 1;
  if (regs > tir_thread_regs(t, threads, blocks)) return false;
  /* ptxas is told (__launch_bounds__): left to itself, it held a kernel of one block per
   * SM to 128 registers and spilled (the sm_80 translation of the golden
   * epilogue-in-ring-bytes-sm80, compiled for sm_90) */
  if (!K->ki->min_blocks && (!K->ki->plan_blocks || blocks < K->ki->plan_blocks)) K->ki->plan_blocks = blocks;
  return true;
}

/* The fragments of dot d's k step k into set `set` (next: of the next
 * iteration's stage). */
static TirOp *frags_op(TirKernel *K, const TirOp *d, int frag, int k, int set, bool next) {
  TirOp *o = new_op(K, TO_FRAGS, d->stmt);
  *o = *d;
  o->kind = TO_FRAGS;
  o->first = false;
  o->frag = frag;
  o->fset = set;
  o->kbeg = k;
  o->kend = k + mma_k(d);
  o->pf_k = next;
  return o;
}

/* The loop body of a GEMM (one mma.sync dot from the stage rings) with each k
 * step's fragments loaded one step ahead, the first step's of the next stage
 * in the last step of this one, as CUTLASS's sm80 main loop does:
 *   before the loop:  wait for stage 0, barrier, fragments of (stage 0, k 0) -> set 0
 *   step j:           fragments of step j + 1 (the last step: of the next stage's k 0,
 *                     into set 0), the mma of step j from its set, the copies of
 *                     group j (as cut_dot), and after step steps - 2: wait for the next
 *                     stage, barrier
 * Step j >= 1 takes set 1 or 2 by its parity, so that the set being loaded is never
 * the one the mma reads. The barrier orders the copies that landed the next stage
 * and the reads of the stage the next iteration refills: its last fragments were
 * loaded before it (in step steps - 2). The tensor cores have step steps - 2's mma to
 * run while every warp waits for it, and the last step's while the next stage's
 * first fragments load; before, each iteration began with the barrier and then
 * that ldmatrix, with no mma issued. The last iteration loads fragments of a
 * stage it never uses (still inside the ring: harmless). */
static void rotate_dot(TirKernel *K, TirOp *d, TirOp **copies, int n, TirOp *commit, TirOp *wait, TirOp *bar,
                       PtrVec *before, PtrVec *head) {
  int ks = mma_k(d), steps = d->kdim / ks, frag = ++K->nfrags;
  TirOp *w0 = new_op(K, TO_ASYNC_WAIT, d->stmt), *b0 = new_op(K, TO_BARRIER, d->stmt);
  *w0 = *wait;
  *b0 = *bar;
  b0->reason = "the first stage has arrived for every thread";
  K->nbarriers++;
  vec_push(K->a, before, w0);
  vec_push(K->a, before, b0);
  TirOp *f0 = frags_op(K, d, frag, 0, 0, false);
  f0->nsets = steps > 2 ? 3 : 2;
  vec_push(K->a, before, f0);
  bar->reason = "the next iteration's stage has arrived for every thread, and this one's, refilled next, is no "
                "longer read (its last fragments are in registers)";
  bar->stmt = d->stmt; /* between the dot's last two k steps */
  for (int j = 0; j < steps; j++) {
    bool last = j + 1 == steps;
    TirOp *fl = frags_op(K, d, frag, last ? 0 : (j + 1) * ks, last ? 0 : 2 - (j + 1) % 2, last);
    fl->first = j == 0 && d->first;
    vec_push(K->a, head, fl);
    TirOp *p = new_op(K, TO_DOT, d->stmt);
    *p = *d;
    p->first = false;
    if (j && p->op == TK_ASSIGN) p->op = TK_ADD_ASSIGN; /* the first step zeroed the accumulator */
    p->kbeg = j * ks;
    p->kend = (j + 1) * ks;
    p->frag = frag;
    p->fset = j ? 2 - j % 2 : 0;
    p->nacc = 0; /* its operands are registers */
    vec_push(K->a, head, p);
    copies_after_step(K, copies, n, commit, steps, j, head);
    if (j == steps - 2) {
      vec_push(K->a, head, wait);
      vec_push(K->a, head, bar);
    }
  }
}

/* Loads whose values only fill operand copies become a ring of `stages` copies
 * in shared memory, filled stages - 1 iterations ahead:
 *   before the loop:  copy(i := lo + j step) -> stage j, commit   (j < stages - 1)
 *   each iteration:   wait until one group is pending at most (stages - 2), barrier,
 *                     copy(i + (stages - 1) step) -> stage (it + stages - 1) % stages, commit,
 *                     then the body reads stage it % stages
 *   after the loop:   wait for all.
 * The barrier makes every thread's copies for this iteration visible, and
 * every thread is past the reads of the stage refilled next (last iteration's).
 *
 * A wgmma dot that accumulates into a value nothing else in the loop touches,
 * from this loop's stages, with 3 stages or more, is left in flight: its wait
 * keeps one group pending (wgmma.wait_group 1), so the tensor cores run it
 * while the next iteration waits for its stage and issues its copies. The
 * stage it reads is then free only after the next iteration's wait, so the
 * copies go stages - 2 iterations ahead (into the stage read two iterations
 * back, which every warpgroup has completed by the barrier), and a
 * wgmma.wait_group 0 after the loop completes the last dot (several dots: see
 * wgmma_in_flight). */
static bool uses_other(const TirKernel *K, const TirBlock *b, const TirVar *v, const TirOp *except) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op != except && (op->dst == v || op->src == v || op->src2 == v || expr_mentions(K, op->expr, v) ||
                         expr_mentions(K, op->pad, v)))
      return true;
    if (uses_other(K, &op->body, v, except) || uses_other(K, &op->els, v, except)) return true;
  }
  return false;
}

enum { MAX_IN_FLIGHT = 4 };

/* The wgmma dots of the body left in flight (into dots, in order; 0: none). Several
 * dots, each into an accumulator of its own (GEGLU's gate and up products over one x),
 * are all left in flight: each commits its group, and the last one's wait keeps as
 * many groups pending as there are dots (pending n; the others, -1, do not wait), so
 * that the previous iteration's groups are complete and this one's run on. Each
 * waited for its group at once before (wait_group 0 twice an iteration). */
static int wgmma_in_flight(const TirKernel *K, const TirOp *f, const PtrVec *body, int stages, TirOp **dots) {
  if (stages < 3) return 0;
  int n = 0;
  for (int i = 0; i < body->len; i++) {
    TirOp *op = body->items[i];
    if (op->kind != TO_DOT || !op->wgmma) continue;
    if (n == MAX_IN_FLIGHT || op->op == TK_ASSIGN || op->buf < 0 || op->buf2 < 0 ||
        K->bufs[op->buf].counter != f->counter || K->bufs[op->buf2].counter != f->counter)
      return 0;
    for (int j = 0; j < n; j++)
      if (dots[j]->dst == op->dst) return 0;
    dots[n++] = op;
  }
  TirBlock b = {*body};
  for (int j = 0; j < n; j++)
    if (uses_other(K, &b, dots[j]->dst, dots[j])) return 0;
  return n;
}

/* Whether op (or an op inside it) reads or writes v. */
static bool touches(const TirKernel *K, const TirOp *op, const TirVar *v) {
  if (op->dst == v || op->src == v || op->src2 == v || expr_mentions(K, op->expr, v) || expr_mentions(K, op->pad, v) ||
      expr_mentions(K, op->slice, v) || expr_mentions(K, op->win[0], v) || expr_mentions(K, op->win[1], v))
    return true;
  TirBlock body = op->body, els = op->els;
  return uses_other(K, &body, v, NULL) || uses_other(K, &els, v, NULL);
}

static int wgmma_dots(const TirBlock *b) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    n += (op->kind == TO_DOT && op->wgmma) + wgmma_dots(&op->body) + wgmma_dots(&op->els);
  }
  return n;
}

static bool declares(const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if ((op->kind == TO_DECL && op->dst == v) || declares(&op->body, v) || declares(&op->els, v)) return true;
  }
  return false;
}

/* The overlap of attention's two products (FlashAttention-3's intra-warpgroup
 * pipelining), for a loop body of this shape:
 *   ... s = dot(..) [D1] ... r: the first use of acc ... acc += dot(f(s), v) [D2] ...
 * with D1 and D2 its only wgmma dots, D2's A in registers and B from this
 * loop's ring, acc a value from before the loop that nothing before r or after
 * D2 touches. D2 is deferred into the next iteration: there its A fragments
 * (packed where D2 stood) and B's stage are issued right after D1, and waited
 * for just before r, so the tensor cores run it while the body works on D1's
 * result; the last iteration's runs after the loop. Every op that D2 moves
 * past leaves acc alone, and D2's operands are its own registers and a stage
 * released only after it completes (3 stages or more, as for a dot left in
 * flight), so each value is the one the program order gives. Returns D2, with
 * r's index in *at, or NULL. */
static TirOp *wgmma_deferred(const TirKernel *K, const TirOp *f, const PtrVec *body, int stages, int *at) {
  TirBlock b = {*body};
  if (stages < 3 || wgmma_dots(&b) != 2 || has_exit(&f->body, TO_BREAK)) return NULL;
  int i1 = -1, i2 = -1;
  for (int i = 0; i < body->len; i++) {
    const TirOp *op = body->items[i];
    if (op->kind == TO_DOT && op->wgmma) {
      if (i1 < 0) i1 = i;
      else i2 = i;
    }
  }
  if (i2 < 0) return NULL;
  TirOp *d1 = body->items[i1], *d2 = body->items[i2];
  const TirVar *acc = d2->dst;
  if (d2->op != TK_ADD_ASSIGN || d2->src || !d2->alay || d2->buf2 < 0 || K->bufs[d2->buf2].counter != f->counter ||
      d1->dst == acc || expr_mentions(K, d2->expr, acc) || declares(&f->body, acc))
    return NULL;
  int r = -1;
  for (int i = 0; i < body->len; i++) {
    const TirOp *op = body->items[i];
    if (i == i2 || !touches(K, op, acc)) continue;
    if (i <= i1 || i > i2) return NULL;
    if (r < 0) r = i;
  }
  *at = r < 0 ? i2 : r;
  return d2;
}

/* ------------------------------------------------------------ TMA rings */

/* Whether TMA can fill load l's ring buffer b: a slice [rows, cols] of the
 * last two dims of a row-major tensor of rank 2 to 4 (one element of each
 * outer dim), stored as it is (not transposed) in swizzled
 * atoms of E = swz / element-bytes columns (TirBuf.swz): each atom is one box
 * of rows x E elements that TMA writes in the same swizzle. The fast body
 * moves the slice in 16-byte runs, so its entry test proves what a tensor
 * map needs (a 16-byte aligned base, rows a multiple of 16 bytes apart). */
static bool tma_load_ok(const TirKernel *K, const TirOp *l, const TirBuf *b) {
  const Sym *X = l->slice->u.index.base->u.ident.sym;
  int eb = elem_bytes[b->elem], nd = l->slice->u.index.nidx;
  if (!b->swz || b->trans || !b->cm8 || b->rows % 8 || b->rows > 256 || b->cols % (b->swz / eb)) return false;
  if (X->trank < 2 || X->trank > 4 || nd != X->trank || l->vec * eb != 16) return false;
  for (int d = 0; d < nd; d++) {
    const Index *ix = &l->slice->u.index.idx[d];
    /* the outer dims one element each (a box of one along them), the last two the copy's */
    if (X->tstride[d] || ix->start->ty.rank || (d < nd - 2) != !ix->len) return false;
  }
  int64_t n;
  const Index *r = &l->slice->u.index.idx[nd - 2], *c = &l->slice->u.index.idx[nd - 1];
  return check_const_int(r->len, &n) && n == b->rows && check_const_int(c->len, &n) && n == b->cols &&
         K->ki->threads % K->t->lanes == 0;
}

/* The tensor map of KernelInfo for X in boxes of rows x cols, swizzled by swz
 * (a load's here, a staged store's in layout.c: the same map either way). */
int tir_tma_map(TirKernel *K, const Sym *X, int rows, int cols, int swz) {
  KernelInfo *ki = K->ki;
  for (int i = 0; i < ki->ntmaps; i++)
    if (ki->tmaps[i].tensor == X && ki->tmaps[i].box_rows == rows && ki->tmaps[i].box_cols == cols && ki->tmaps[i].swizzle == swz)
      return i;
  TmaMap *m = NEW_ARRAY(K->a, TmaMap, ki->ntmaps + 1);
  for (int i = 0; i < ki->ntmaps; i++) m[i] = ki->tmaps[i];
  int same = 0;
  for (int i = 0; i < ki->ntmaps; i++) same += ki->tmaps[i].tensor == X;
  m[ki->ntmaps] = (TmaMap){X, same ? arena_printf(K->a, "t2c_tmap_%s_%d", X->cname, same) : arena_printf(K->a, "t2c_tmap_%s", X->cname),
                           rows, cols, swz, false};
  ki->tmaps = m;
  return ki->ntmaps++;
}

static TirOp *only(TirOp *o, int body) {
  o->only = body;
  return o;
}

/* The TMA issue of the stage k iterations ahead (base: the loop's first value, or NULL: its variable). */
static TirOp *tma_issue(TirKernel *K, TirOp **loads, const int *bufs, int n, const Stmt *f, const Expr *base, int k, int mb) {
  TirOp *o = only(new_op(K, TO_TMA_ISSUE, (Stmt *)f), TIR_FAST);
  o->buf = mb;
  o->pf_var = f->u.forr.sym;
  o->pf_base = base;
  o->pf_loop = f;
  o->pf_k = k;
  for (int r = 0; r < n; r++) {
    const TirBuf *b = &K->bufs[bufs[r]];
    TirOp *l = async_copy(K, loads[r], bufs[r], f, base, k);
    l->kind = TO_TMA_LOAD;
    l->only = TIR_FAST;
    l->first = false;
    l->tmap = tir_tma_map(K, loads[r]->slice->u.index.base->u.ident.sym, b->rows, b->swz / elem_bytes[b->elem], b->swz);
    vec_push(K->a, &o->body.ops, l);
  }
  return o;
}

/* Whether loop f's rings (loads[0..n) into bufs) are filled by TMA: the path
 * has it, every ring is one TMA can fill, and the loop leaves only at its end
 * (no TMA is left in flight). Inside another loop (depth > 0: a persistent
 * kernel's loop over tiles) its barriers' phases count on from one run to the
 * next (TirBuf.gbase), and no dot may be deferred past the loop's end (late). */
static bool tma_rings(TirKernel *K, const TirOp *f, TirOp **loads, const int *bufs, int n, int depth, bool late) {
  if (!K->hw->tma || !K->t->tma || (depth > 0 && late) || has_exit(&f->body, TO_BREAK) || K->nbufs == TIR_MAX_BUFS)
    return false;
  for (int r = 0; r < n; r++)
    if (!tma_load_ok(K, loads[r], &K->bufs[bufs[r]])) return false;
  return true;
}

/* The fast body's ring protocol (the general body keeps the cp.async one):
 *   before the loop:  init the barriers; barrier; issue stages 0 .. ahead - 1
 *   each iteration:   issue the stage `ahead` iterations on (waiting for its
 *                     empty barrier when it was used before), wait for this
 *                     iteration's full barrier, the body, then release: the
 *                     stage of the previous iteration when the dot is left in
 *                     flight (its wgmma is complete after this one's wait),
 *                     else this iteration's. */
static void tma_protocol(TirKernel *K, TirOp *f, TirOp **loads, const int *bufs, int n, int stages, int ahead,
                         int depth, bool behind, PtrVec *top, PtrVec *before, PtrVec *head) {
  int mb = K->nbufs++;
  TirBuf *m = &K->bufs[mb];
  memset(m, 0, sizeof *m);
  m->cname = arena_printf(K->a, "t2c_mbar%d", K->nrings - 1);
  m->what = arena_printf(K->a, "the mbarriers of the TMA ring of the loop at line %d: %d full, %d empty", f->stmt->loc.line,
                         stages, stages);
  m->elem = T_I64;
  m->rows = 2;
  m->cols = m->pitch = m->mbar = stages;
  tir_buf_size(m);
  for (int r = 0; r < n; r++) K->bufs[bufs[r]].ring_mbar = mb + 1;
  K->use_lane = true;
  PtrVec *at = before;
  if (depth > 0) { /* initialized once, at the top of the kernel; the phases count every run's iterations */
    m->gbase = arena_printf(K->a, "t2c_g%d", K->nrings - 1);
    m->gstart = arena_printf(K->a, "t2c_gs%d", K->nrings - 1);
    at = top;
    if (behind) { /* where this run starts: the last stage of the run is released after the loop (TO_TMA_END) */
      TirOp *b = only(new_op(K, TO_TMA_BEGIN, f->stmt), TIR_FAST);
      b->buf = mb;
      vec_push(K->a, before, b);
    }
  }
  TirOp *init = only(new_op(K, TO_TMA_INIT, f->stmt), TIR_FAST);
  init->buf = mb;
  vec_push(K->a, at, init);
  TirOp *bar = only(new_op(K, TO_BARRIER, f->stmt), TIR_FAST);
  bar->reason = "the TMA ring's mbarriers are initialized for every thread";
  K->nbarriers++;
  vec_push(K->a, at, bar);
  for (int j = 0; j < ahead; j++) vec_push(K->a, before, tma_issue(K, loads, bufs, n, f->stmt, f->stmt->u.forr.lo, j, mb));
  vec_push(K->a, head, tma_issue(K, loads, bufs, n, f->stmt, NULL, ahead, mb));
  TirOp *w = only(new_op(K, TO_TMA_WAIT, f->stmt), TIR_FAST);
  w->buf = mb;
  vec_push(K->a, head, w);
}

/* share: the wait and barrier at the top of the body, set when register ops may move above them
 * (share_stage_barrier): no TMA (the fast body has no such barrier), no wgmma still reading a
 * stage (nor, then, an operand copy) past the barrier, no rotated dot (its barrier is at the end) */
static bool stage_rings(TirKernel *K, TirOp *f, int stages, int depth, PtrVec *top, PtrVec *before, PtrVec *after,
                        TirOp **share) {
  TirOp *loads[TIR_MAX_BUFS];
  int bufs[TIR_MAX_BUFS], n = 0;
  for (int i = 0; i < f->body.ops.len && n < TIR_MAX_BUFS; i++) {
    TirOp *op = f->body.ops.items[i];
    int bi = op->kind == TO_LOAD && candidate(K, op, f->stmt) ? direct_copy(K, f, op) : -1;
    if (bi >= 0) inline_slice(K, op, f->stmt, &f->inlined), loads[n] = op, bufs[n++] = bi;
  }
  if (!n) return false;
  const char *it = arena_printf(K->a, "t2c_it%d", K->nrings++);
  f->counter = it;
  for (int r = 0; r < n; r++) {
    TirBuf *b = &K->bufs[bufs[r]];
    loads[r]->dst->direct = true;
    b->what = arena_printf(K->a, "%d stages of %s, filled by cp.async ahead of the loop at line %d", stages,
                           loads[r]->dst->sym ? loads[r]->dst->sym->name : loads[r]->dst->what, f->stmt->loc.line);
    b->alternating = false;
    if (loads[r]->dst->home && !b->cm8) { /* 16-byte cp.async: rows 16-byte aligned, 16 bytes of padding apart
                                             * (a wgmma operand's copy keeps its core matrices' pitch) */
      int pad = 16 / elem_bytes[b->elem];
      b->pitch = (b->cols + pad - 1) / pad * pad + pad;
    }
    b->stages = stages;
    b->counter = it;
    tir_buf_size(b);
  }
  /* the values, their loads and copies leave the body */
  PtrVec body = {0};
  for (int i = 0; i < f->body.ops.len; i++) {
    TirOp *op = f->body.ops.items[i];
    bool gone = false;
    for (int r = 0; r < n; r++)
      gone |= op == loads[r] || ((op->kind == TO_DECL || op->kind == TO_SPILL) && op->dst == loads[r]->dst);
    if (gone && op->first && i + 1 < f->body.ops.len && ((TirOp *)f->body.ops.items[i + 1])->stmt == op->stmt)
      ((TirOp *)f->body.ops.items[i + 1])->first = true;
    if (!gone) vec_push(K->a, &body, op);
  }
  TirOp *dots[MAX_IN_FLIGHT];
  int ndots = wgmma_in_flight(K, f, &body, stages, dots);
  int at = -1;
  TirOp *late = ndots ? NULL : wgmma_deferred(K, f, &body, stages, &at);
  bool behind = ndots || late; /* a wgmma reads a stage into the next iteration */
  int ahead = behind ? stages - 2 : stages - 1;
  for (int j = 0; j < ndots; j++) dots[j]->pending = j + 1 == ndots ? ndots : -1;
  if (late) {
    for (int i = 0; i < body.len; i++) {
      TirOp *op = body.items[i];
      if (op->kind == TO_DOT && op->wgmma && op != late) op->dop = late;
    }
    late->defer = ++K->ndefer;
    TirOp *wg = new_op(K, TO_WG_WAIT, late->stmt);
    wg->pending = 0;
    wg->dst = late->dst;
    wg->dop = late;
    vec_push(K->a, &body, NULL);
    memmove(&body.items[at + 1], &body.items[at], (size_t)(body.len - 1 - at) * sizeof body.items[0]);
    body.items[at] = wg;
    TirOp *saved = new_op(K, TO_WG_DEFER, f->stmt); /* before the loop: under its comment */
    saved->dop = late;
    saved->pending = 0;
    vec_push(K->a, before, saved);
  }
  bool tma = tma_rings(K, f, loads, bufs, n, depth, late != NULL);
  for (int r = 0; tma && r < n; r++)
    K->bufs[bufs[r]].what = arena_printf(K->a, "%d stages of %s, filled ahead of the loop at line %d by TMA (the fast body) "
                                         "or cp.async", stages, loads[r]->dst->sym ? loads[r]->dst->sym->name : loads[r]->dst->what,
                                         f->stmt->loc.line);
  int gen = tma ? TIR_GENERAL : 0; /* the cp.async ring's ops: the general body's only, under TMA */
  for (int j = 0; j < ahead; j++) {
    for (int r = 0; r < n; r++) {
      /* the copies before the loop write the ring: in a loop around this one they refill
       * stages the previous run's last iterations read (sync.c puts a barrier between),
       * and no other buffer may share the ring's bytes from here on (smem.c) */
      TirOp *c = async_copy(K, loads[r], bufs[r], f->stmt, f->stmt->u.forr.lo, j);
      if (c->nacc < TIR_MAX_ACCESS) c->acc[c->nacc++] = (TirAccess){bufs[r], true, false};
      vec_push(K->a, before, only(c, gen));
    }
    vec_push(K->a, before, only(new_op(K, TO_ASYNC_COMMIT, f->stmt), gen));
  }
  PtrVec head = {0};
  if (tma) tma_protocol(K, f, loads, bufs, n, stages, ahead, depth, behind, top, before, &head);
  int cut = tma || behind ? -1 : dot_to_cut(&body);
  bool rotate = rotatable(K, f, &body, cut) && rotation_fits(K, body.items[cut]);
  TirOp *w = only(new_op(K, TO_ASYNC_WAIT, f->stmt), gen);
  w->pending = ahead - 1;
  TirOp *bar = only(new_op(K, TO_BARRIER, f->stmt), gen);
  bar->reason = behind ? "this iteration's stage has arrived for every thread, and every warpgroup's wgmma of two iterations back, "
                      "which read the stage refilled next, has completed"
                    : "this iteration's stage has arrived for every thread, and the stage refilled next is no longer read";
  if (!rotate) {
    vec_push(K->a, &head, w);
    vec_push(K->a, &head, bar);
    if (!tma && !behind) *share = bar;
  }
  K->nbarriers++;
  TirOp *copies[TIR_MAX_BUFS];
  for (int r = 0; r < n; r++) copies[r] = only(async_copy(K, loads[r], bufs[r], f->stmt, NULL, ahead), gen);
  TirOp *commit = only(new_op(K, TO_ASYNC_COMMIT, f->stmt), gen);
  if (cut < 0) {
    for (int r = 0; r < n; r++) vec_push(K->a, &head, copies[r]);
    vec_push(K->a, &head, commit);
  }
  for (int i = 0; i < body.len; i++)
    if (i == cut && rotate) rotate_dot(K, body.items[i], copies, n, commit, w, bar, before, &head);
    else if (i == cut) {
      TirOp *with[TIR_MAX_SHARE_A];
      int nwith = tir_dots_sharing_a(body.items, body.len, i, false, with);
      cut_dot(K, body.items[i], with, nwith, copies, n, commit, &head);
      i += nwith;
    } else vec_push(K->a, &head, body.items[i]);
  if (tma) {
    TirOp *rel = only(new_op(K, TO_TMA_RELEASE, f->stmt), TIR_FAST);
    rel->buf = K->bufs[bufs[0]].ring_mbar - 1;
    rel->pending = behind ? 1 : 0;
    vec_push(K->a, &head, rel);
  }
  f->body.ops = head;
  for (int j = 0; j < ndots; j++) { /* the first waits for every group; each pins its accumulator */
    TirOp *wg = new_op(K, TO_WG_WAIT, f->stmt);
    wg->pending = j ? -1 : 0;
    wg->dst = dots[j]->dst; /* the accumulator it completes */
    vec_push(K->a, after, wg);
  }
  if (tma && depth > 0 && behind) { /* the last iteration's stage, which no iteration after it released */
    TirOp *end = only(new_op(K, TO_TMA_END, f->stmt), TIR_FAST);
    end->buf = K->bufs[bufs[0]].ring_mbar - 1;
    vec_push(K->a, after, end);
  }
  if (late) {
    TirOp *tail = new_op(K, TO_WG_DEFER, late->stmt);
    tail->dop = late;
    tail->dst = late->dst;
    tail->pending = 1;
    tail->nacc = late->nacc; /* it reads the last iteration's stage */
    memcpy(tail->acc, late->acc, sizeof tail->acc);
    vec_push(K->a, after, tail);
  }
  TirOp *drain = only(new_op(K, TO_ASYNC_WAIT, f->stmt), gen);
  drain->pending = 0;
  vec_push(K->a, after, drain);
  return true;
}

/* Whether op may run above the stage ring's wait and barrier: it computes in
 * registers (a register ring's shift and load, a conversion) or writes an
 * alternating copy, and touches no other shared memory. */
static bool above_barrier(const TirKernel *K, const TirOp *op) {
  if (op->body.ops.len || op->els.ops.len || op->only) return false;
  switch (op->kind) {
  case TO_DECL: case TO_ASSIGN: case TO_LOAD: return op->nacc == 0;
  case TO_SPILL: {
    const TirBuf *b = &K->bufs[op->buf];
    return op->nacc == 1 && op->acc[0].write && op->acc[0].buf == op->buf && b->alternating && !b->stages &&
           !op->dst->home;
  }
  default: return false;
  }
}

/* An operand copy made from registers at the top of the iteration (a
 * dequantized B, acc += dot(a, transpose(f16(w))) of a w in a register ring)
 * is made above the stage ring's wait and barrier, with the ops it needs,
 * and shares that barrier: before, its write needed a barrier of its own
 * before the dot read it. Each turn writes the other half of the copy (it
 * alternates), and the half written was last read two iterations back, by
 * warps that had all finished that read when they passed the previous
 * iteration's stage barrier, which every warp writing here has passed too
 * (sync.c's rule for alternating writes, the barrier it relies on being the
 * stage barrier). Only the ops up to the last such copy move: a run that
 * makes no copy stays where it was. */
static void share_stage_barrier(TirKernel *K, TirOp *f, TirOp *bar) {
  PtrVec *ops = &f->body.ops;
  if (ops->len < 3 || ((TirOp *)ops->items[0])->kind != TO_ASYNC_WAIT || ops->items[1] != bar) return;
  int last = -1;
  for (int i = 2; i < ops->len && above_barrier(K, ops->items[i]); i++)
    if (((TirOp *)ops->items[i])->kind == TO_SPILL) last = i;
  if (last < 0) return;
  Buf why = {0};
  buf_puts(&why, bar->reason);
  for (int i = 2; i <= last; i++) {
    const TirOp *op = ops->items[i];
    if (op->kind == TO_SPILL)
      buf_printf(&why, "; %s, written above at line %d (the other half from the last iteration's), is read below",
                 K->bufs[op->buf].cname, op->stmt ? op->stmt->loc.line : 0);
  }
  bar->reason = arena_strndup(K->a, why.data, why.len);
  buf_free(&why);
  void *wait = ops->items[0];
  memmove(&ops->items[0], &ops->items[2], (size_t)(last - 1) * sizeof ops->items[0]);
  ops->items[last - 1] = wait;
  ops->items[last] = bar;
}

/* A load the register rings take: a candidate, not living in shared memory nor never held. */
static bool ringable(const TirKernel *K, const TirOp *op, const Stmt *f) {
  return op->kind == TO_LOAD && !op->dst->home && !op->dst->fused && candidate(K, op, f);
}

/* The index value of gather g (ops[at] of the loop at f's body) that stops it being issued
 * ahead, where that is all that does: the value of a load earlier in the body which gets a
 * ring (W[Idx[j0 + rows(16, 1)], cols(16, 128)]: Idx's gather). g's early loads then read
 * it from that ring, one slot deeper (ring). NULL otherwise. */
static TirVar *ring_index(const TirKernel *K, const TirBlock *b, int at, const Stmt *f) {
  const TirOp *g = b->ops.items[at];
  if (g->kind != TO_LOAD || !g->gather || g->dst->home || g->dst->fused || g->pf_var ||
      written(K, g->slice->u.index.base->u.ident.sym) || !invariant(K, g->pad, f, 0))
    return NULL;
  TirVar *ix = NULL;
  for (int d = 0; d < g->slice->u.index.nidx; d++) {
    const Expr *x = g->slice->u.index.idx[d].start;
    if (invariant(K, x, f, 0)) continue;
    TirVar *h = index_value(K, x);
    if (!h || (ix && h != ix)) return NULL;
    ix = h;
  }
  /* the load that sets it, earlier in the body (a var's: the one at its declaration) */
  for (int i = 0; ix && i < at; i++) {
    const TirOp *l = b->ops.items[i];
    if (l->dst == ix && l->kind == TO_LOAD && (!ix->sym || l->stmt == ix->sym->decl)) return ringable(K, l, f) ? ix : NULL;
  }
  return NULL;
}

/* Whether an op of b reads v, but v's declaration and the assignments into it (its take
 * from its ring). */
static bool taken_read(const TirKernel *K, const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (!(op->dst == v && (op->kind == TO_DECL || op->kind == TO_ASSIGN)) && tir_op_touches(K, op, v)) return true;
    if (taken_read(K, &op->body, v) || taken_read(K, &op->els, v)) return true;
  }
  return false;
}

/* Drops the declaration of index value v and its take from its ring, which no op reads
 * any more: the gathers it indexed read its ring's slots (nvcc: "set but never used"). */
static void drop_take(TirKernel *K, TirBlock *b, TirVar *v) {
  PtrVec out = {0};
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    if (op->dst == v && (op->kind == TO_DECL || op->kind == TO_ASSIGN)) {
      if (op->first && i + 1 < b->ops.len) ((TirOp *)b->ops.items[i + 1])->first = true; /* the statement's comment */
      v->inlined = true;
      continue;
    }
    vec_push(K->a, &out, op);
  }
  b->ops = out;
}

/* The registers the values and rings of a kernel may take: TIR_MAX_VALUE_REGS (3/4 of a
 * thread's 255, the rest for addresses, indices and what ptxas loads ahead), or with
 * @launch(threads, min_blocks) 3/4 of what min_blocks blocks leave a thread, if less
 * (__launch_bounds__ holds ptxas to that: a user's W4A16 GEMM at @launch(256, 2) took
 * rings of 40 registers within 192 and spilled 20 bytes at its 128 on sm_90). The blocks
 * its shared memory lets fit are not known yet (smem.c, fit_blocks): min_blocks is the
 * budget's, the stricter. */
/* The registers min_blocks blocks leave a thread where fewer than the target's limit, else 0. */
static int launch_regs(const TirKernel *K) {
  int c = K->ki->min_blocks > 0 ? tir_thread_regs(K->t, K->ki->threads, K->ki->min_blocks) : 0;
  return c < K->t->max_regs_per_thread ? c : 0;
}

static int ring_budget(const TirKernel *K) {
  int c = launch_regs(K);
  return c ? c * TIR_MAX_VALUE_REGS / K->t->max_regs_per_thread : TIR_MAX_VALUE_REGS;
}

/* ring_budget for a message: "192", or "96 (3/4 of the 128 registers a thread of
 * @launch(256, 2) may have)". */
static const char *budget_text(const TirKernel *K) {
  int c = launch_regs(K);
  return c ? arena_printf(K->a, "%d (3/4 of the %d registers a thread of @launch(%d, %d) may have)", ring_budget(K), c,
                          K->ki->threads, K->ki->min_blocks)
           : arena_printf(K->a, "%d", TIR_MAX_VALUE_REGS);
}

static bool rings_rotate(const TirOp *f);

/* Returns whether some load got a ring; into *left, the loads left in the loop because
 * their rings would pass the register budget. */
static bool pipeline_loop(TirKernel *K, TirOp *f, int stages, int depth, PtrVec *top, PtrVec *before, PtrVec *after,
                          PtrVec *left) {
  int d = stages - 1;
  if (has_exit(&f->body, TO_CONTINUE)) return false;
  TirOp *share = NULL;
  bool rings = f->kind == TO_FOR && !f->td && stage_rings(K, f, stages, depth, top, before, after, &share);
  PtrVec body = {0};
  /* the registers of the rings made so far: their loads in the loop are in body, not yet in
   * f->body, so tir_value_regs sees them live only before the loop (decode attention's K and
   * V rings of 64 each passed the budget together, and ptxas spilled) */
  int ringed = 0, budget = ring_budget(K);
  /* register rings made (pipeline_rotate), and whether every one holds d values */
  int made = 0;
  bool plain = !rings && !share;
  /* a gather whose index is another ringed load's value: that ring goes a slot deeper */
  TirVar *ix[TIR_MAX_BUFS];
  TirVar **ixring[TIR_MAX_BUFS];
  int nix = 0;
  for (int i = 0; i < f->body.ops.len && nix < TIR_MAX_BUFS; i++) {
    TirVar *v = ring_index(K, &f->body, i, f->stmt);
    if (v) ix[nix] = v, ixring[nix++] = NULL;
  }
  for (int i = 0; i < f->body.ops.len; i++) {
    TirOp *op = f->body.ops.items[i];
    int deeper = 0, from = -1;
    for (int j = 0; j < nix; j++) {
      deeper |= ix[j] == op->dst;
      if (from < 0 && ixring[j] && ring_index(K, &f->body, i, f->stmt) == ix[j]) from = j;
    }
    bool want = from >= 0 || ringable(K, op, f->stmt);
    /* a gather's index keeps its ring: the gather's ring reads its slots */
    bool once = want && from < 0 && !deeper && same_each_iteration(K, op, f->stmt);
    /* a ring of 1- or 2-byte elements holds them packed in words (TirVar.packed), and so
     * does a value loaded once, but not a gather's index ring, whose slots its gathers read */
    int words = !want || deeper ? 0 : tir_packed_words(op->dst->elem, layout_count(op->dst->layout));
    int regs = !want ? 0 : words ? words * (once ? 1 : d) : layout_count(op->dst->layout) * (once ? 1 : d + deeper);
    if (want && tir_value_regs(K) + ringed + regs <= budget) {
      ringed += regs;
      inline_slice(K, op, f->stmt, &f->inlined);
      if (once) {
        hoist(K, f, op, before, &body)->packed = words > 0;
        continue;
      }
      made++;
      plain &= from < 0 && !deeper; /* a gather's ring and its index's are a slot apart: they do not rotate */
      TirVar **p = ring(K, f, op, d + deeper, before, &body, from >= 0 ? ix[from] : NULL,
                        from >= 0 ? ixring[from] : NULL);
      for (int j = 1; words && j <= d; j++) p[j]->packed = true;
      for (int j = 0; j < nix; j++)
        if (ix[j] == op->dst) ixring[j] = p;
    } else {
      if (want) vec_push(K->a, left, op);
      vec_push(K->a, &body, op);
    }
  }
  f->body.ops = body;
  for (int j = 0; j < nix; j++)
    if (ixring[j] && !taken_read(K, &K->body, ix[j])) drop_take(K, &f->body, ix[j]);
  if (share) share_stage_barrier(K, f, share);
  drop_inlined(K, f, &f->inlined);
  if (plain && made && d <= 4 && rings_rotate(f)) f->rot = d;
  return rings || before->len > 0;
}

/* Whether the ops of a loop body can be printed as copies of it, one an iteration (TirOp.rot):
 * no loop, exit, dot, cp.async, TMA or wgmma op in it, and few ops (each copy is printed whole). */
static bool rotatable_ops(const TirBlock *b, int *n) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    switch (op->kind) {
    case TO_SCALAR: case TO_DECL: case TO_LOAD: case TO_ASSIGN: case TO_REDUCE: case TO_SCRATCH_WRITE:
    case TO_SCRATCH_READ: case TO_SCAN: case TO_STORE: case TO_SPILL: case TO_COLREDUCE: case TO_SUM: case TO_IF:
    case TO_BARRIER:
      break;
    default: return false;
    }
    if (++*n > 48 || !rotatable_ops(&op->body, n) || !rotatable_ops(&op->els, n)) return false;
  }
  return true;
}

/* Whether for loop f, whose register rings all hold the same number of values, rotates them
 * (TirOp.rot): not where the user asked for an unrolling of their own. */
static bool rings_rotate(const TirOp *f) {
  if (f->kind != TO_FOR || f->counter) return false;
  for (int i = 0; i < f->stmt->nattrs; i++)
    if (f->stmt->attrs[i]->kind == A_UNROLL) return false;
  int n = 0;
  return rotatable_ops(&f->body, &n);
}

/* The ops in b that write value v. */
static int writers(const TirBlock *b, const TirVar *v) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    n += op->dst == v && op->kind != TO_DECL;
    n += writers(&op->body, v) + writers(&op->els, v);
  }
  return n;
}

/* Loop f's copies (TirOp.rbody): copy j takes its ring values from slot j + 1, shifts none, and
 * refills that slot at its end, after every read of it. */
static void rotate_loop(TirKernel *K, TirOp *f) {
  f->rbody = NEW_ARRAY(K->a, TirBlock, f->rot);
  for (int j = 0; j < f->rot; j++) {
    PtrVec *out = &f->rbody[j].ops, fills = {0};
    for (int i = 0; i < f->body.ops.len; i++) {
      TirOp *op = f->body.ops.items[i];
      if (op->ring_role == TIR_RING_SHIFT) continue;
      if (op->ring_role == TIR_RING_FILL) {
        TirOp *e = early_load(K, op, op->ring[1 + j], f->stmt, NULL, op->pf_k);
        e->ring_role = 0;
        e->ring = NULL;
        vec_push(K->a, &fills, e);
        continue;
      }
      if (op->ring_role == TIR_RING_TAKE) { /* the take as the later stages left it, from slot j + 1 */
        TirOp *t = tir_new_op(K, NULL, TO_ASSIGN, op->stmt);
        *t = *op;
        t->expr = tir_read_of(K, op->ring[1 + j]);
        t->ring_role = 0;
        t->ring = NULL;
        t->mirror = op->ring[1 + j]->packed && (op->dst->elem == T_I8 || op->dst->elem == T_U8) && !op->dst->home &&
                    writers(&f->body, op->dst) == 1;
        op->dst->mirrored |= t->mirror;
        op = t;
      }
      vec_push(K->a, out, op);
    }
    for (int i = 0; i < fills.len; i++) vec_push(K->a, out, fills.items[i]);
  }
}

static void rotate_block(TirKernel *K, TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    if (op->rot) rotate_loop(K, op);
    rotate_block(K, &op->body);
    rotate_block(K, &op->els);
  }
}

void pipeline_rotate(TirKernel *K) { rotate_block(K, &K->body); }

/* The first name in x that makes it change in the loop at f (invariant), or NULL;
 * through a var declared at the top of the body (loop_local), the name in its
 * initial value, that var in *via. */
static const char *changing_name(const TirKernel *K, const Expr *x, const Stmt *f, const char **via) {
  if (!x || invariant(K, x, f, 0)) return NULL;
  switch (x->kind) {
  case E_IDENT: {
    const Stmt *d = x->u.ident.sym ? loop_local(x->u.ident.sym, f) : NULL;
    const char *n = d && !*via ? changing_name(K, d->u.decl.init, f, via) : NULL;
    if (n && !*via) *via = x->u.ident.name;
    return n ? n : x->u.ident.name;
  }
  case E_UNARY: return changing_name(K, x->u.unary.a, f, via);
  case E_BINARY: {
    const char *a = changing_name(K, x->u.binary.a, f, via);
    return a ? a : changing_name(K, x->u.binary.b, f, via);
  }
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) {
      const char *a = changing_name(K, x->u.call.args[i], f, via);
      if (a) return a;
    }
    return x->u.call.name;
  case E_INDEX:
    for (int d = 0; d < x->u.index.nidx; d++) {
      const char *a = changing_name(K, x->u.index.idx[d].start, f, via);
      if (a) return a;
    }
    return x->u.index.base->u.ident.name;
  default: return NULL;
  }
}

/* A @registers tile that an op of b (or of the blocks inside it) writes, or NULL. */
static const TirVar *register_written(const TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    const TirVar *v;
    if (op->kind != TO_DECL && op->dst && op->dst->sym && op->dst->sym->place == PL_REGISTER) return op->dst;
    if ((v = register_written(&op->body)) || (v = register_written(&op->els))) return v;
  }
  return NULL;
}

/* Why no load of the loop at f is issued ahead, and where (*at). */
static const char *no_ahead_why(TirKernel *K, const TirOp *f, int stages, Loc *at) {
  const TirOp *c = find_exit(&f->body, TO_CONTINUE);
  if (c) {
    *at = c->stmt ? c->stmt->loc : f->stmt->loc;
    /* an update of a @registers tile may not sit under an if (check.c): then the list only */
    const TirVar *reg = register_written(&f->body);
    if (reg)
      return arena_printf(K->a, "the loop has a continue, which would skip its rings' shift (walk a list of the "
                          "iterations that do work; the rest of the body under an if would update register tile "
                          "'%s' there, which @registers does not allow)", reg->sym->name);
    return "the loop has a continue, which would skip its rings' shift (put the rest of the body under an if, or "
           "walk a list of the iterations that do work)";
  }
  for (int i = 0; i < f->body.ops.len; i++) {
    const TirOp *op = f->body.ops.items[i];
    if (op->kind != TO_LOAD) continue;
    const Sym *X = op->slice->u.index.base->u.ident.sym;
    *at = op->stmt->loc;
    if (written(K, X)) return arena_printf(K->a, "the load of '%s' at line %d reads a tensor the kernel writes", X->name, op->stmt->loc.line);
    for (int d = 0; d < op->slice->u.index.nidx; d++) {
      const char *via = NULL, *n = changing_name(K, op->slice->u.index.idx[d].start, f->stmt, &via);
      if (n)
        return arena_printf(K->a, "the slice of '%s' at line %d depends on '%s'%s%s%s, which the loop changes (only the "
                                  "loop variable, values set before the loop, and tensor elements at such indices may vary)",
                            X->name, op->stmt->loc.line, via ? via : n, via ? ", set from '" : "", via ? n : "",
                            via ? "'" : "");
    }
    if (too_long(op, f->stmt))
      return arena_printf(K->a, "the slice of '%s' at line %d, with the vars declared in the loop written out, has more "
                                "than %d terms (compute its index in fewer steps)",
                          X->name, op->stmt->loc.line, INLINED_NODES);
    if (op->dst->home || op->dst->fused)
      return arena_printf(K->a, "the value loaded from '%s' at line %d is too large for registers", X->name, op->stmt->loc.line);
    const Stmt *by = copy_read_besides(K, f, op);
    if (by)
      return arena_printf(K->a, "the load of '%s' at line %d feeds a dot through its shared copy, which a cp.async ring "
                          "could fill, but line %d reads the value in registers too, and a ring of %d values in "
                          "registers would take the kernel past its register budget of %s (load the slice again for "
                          "line %d: the dot's copy then gets its ring)",
                          X->name, op->stmt->loc.line, by->loc.line, stages - 1, budget_text(K), by->loc.line);
    return arena_printf(K->a, "a ring of %d values of the load of '%s' at line %d would take the kernel past its register "
                              "budget of %s (fewer stages, or a smaller tile)",
                        stages - 1, X->name, op->stmt->loc.line, budget_text(K));
  }
  *at = f->stmt->loc;
  return "its body has no load at its top level (loads inside an if or an inner loop are not issued ahead)";
}

/* depth: the loops around b; top: ops for the top of the kernel (a nested TMA ring's barriers' init) */
static void pipeline_block(TirKernel *K, TirBlock *b, int depth, PtrVec *top) {
  PtrVec out = {0};
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
    pipeline_block(K, &op->body, depth + loop, top);
    pipeline_block(K, &op->els, depth, top);
    if (op->kind == TO_FOR)
      for (int a = 0; a < op->stmt->nattrs; a++) {
        const Attr *at = op->stmt->attrs[a];
        if (at->kind == A_PIPELINE && at->args[0]->cv.i > 1) {
          PtrVec before = {0}, after = {0}, left = {0};
          int stages = (int)at->args[0]->cv.i;
          if (!pipeline_loop(K, op, stages, depth, top, &before, &after, &left)) {
            Loc where;
            const char *why = no_ahead_why(K, op, stages, &where);
            diag_warning(K->d, W_PIPELINE, at->loc, "@pipeline(%d): none of the loop's loads can be issued ahead; they "
                         "are not overlapped", stages);
            diag_note(K->d, where, "%s", why);
          } else if (left.len) { /* some rings made, not all: the ones that were not are named */
            diag_warning(K->d, W_PIPELINE, at->loc, "@pipeline(%d): %d of the loop's loads %s not issued ahead; %s "
                         "not overlapped", stages, left.len, left.len == 1 ? "is" : "are", left.len == 1 ? "it is" : "they are");
            for (int j = 0; j < left.len; j++) {
              const TirOp *l = left.items[j];
              diag_note(K->d, l->slice->loc, "a ring of %d values of the load of '%s' (%d elements a thread each) would take "
                        "the kernel past its register budget of %s, with the rings made before it (fewer stages, or "
                        "a smaller tile)", stages - 1, l->slice->u.index.base->u.ident.name, layout_count(l->dst->layout),
                        budget_text(K));
            }
          }
          if (before.len) { /* the ring's first loads go after the loop's comment */
            ((TirOp *)before.items[0])->first = op->first;
            op->first = false;
          }
          for (int j = 0; j < before.len; j++) vec_push(K->a, &out, before.items[j]);
          vec_push(K->a, &out, op);
          for (int j = 0; j < after.len; j++) vec_push(K->a, &out, after.items[j]);
          op = NULL;
          break;
        }
      }
    if (op) vec_push(K->a, &out, op);
  }
  b->ops = out;
}

void pipeline_loops(TirKernel *K) {
  PtrVec top = {0};
  pipeline_block(K, &K->body, 0, &top);
  if (!top.len) return;
  for (int i = 0; i < K->body.ops.len; i++) vec_push(K->a, &top, K->body.ops.items[i]);
  K->body.ops = top;
}
