/* lower.c: the checked AST of one kernel becomes a TirKernel.
 *
 * Statements map to ops one to one, but for the parts of an expression that
 * are not elementwise, which are lowered first, into ops of their own:
 * - a tensor slice read becomes a TO_LOAD into a fresh value;
 * - a row reduction (rowargmax too) a TO_REDUCE into a fresh [rows, 1] value,
 *   a column reduction (colargmax too) one into a fresh [1, cols] value, sum()
 *   a TO_SUM into a fresh scalar, a scan (cumsum) a TO_SCAN into a fresh value
 *   of its operand's shape;
 * - a read of a tile at other threads' elements (transpose(t), t[i, j],
 *   t[a :+ m, b :+ n], colsum(r) of a row value r) spills the value to its shared
 *   copy first (TO_SPILL, once per statement), and the expression then reads the
 *   copy (TirKernel.rkeys), or a TO_COLREDUCE folds its column; t = transpose(u)
 *   whose own copy is made for such reads takes u's registers into it stored
 *   transposed instead of a copy of each (one_copy_per_transpose), and a
 *   reshape of one row or column of a tile var reads the var's copy
 *   (hoist_line_reshape).
 * Fusion is the default: an elementwise intermediate is never a value.
 *
 * What the IR covers: scalar statements and control flow, tile vars, tensor
 * slice reads (pad too) and stores, element reads and stores of tensors,
 * every elementwise operator, cast, math function and rand/randn/randint, rows/cols/where,
 * writes of a tile through a window, transpose, element and sub-tile reads of tiles,
 * rowsum/rowmax/rowmin and colsum/colmax/colmin of every numeric type (f16, bf16,
 * f8 in f32, i8, u8 in i32, then converted), sum() of f32, f64, i32, u32 and i64,
 * the arg-reductions (rowargmax, colargmin, ...) and scans (cumsum, cumprod,
 * cummax, along rows or columns) of every numeric type,
 * and dot on the matrix unit: its operands are spilled to copies that ldmatrix
 * reads (transpose(v) is read transposed, not copied twice), or, for a cast to
 * f16/bf16 of f32 values, computed in registers (TO_DOT). v = dot(..),
 * v += dot(..) and v = e + dot(..) accumulate in v; a dot elsewhere goes into a
 * fresh value. Gathers and scatters (tile indices) are loads and stores whose
 * indices are elementwise expressions; atomics are stores (TirOp.atomic).
 * A dot the matrix unit cannot take (its type, its shape, the target) runs on
 * the CUDA cores (TirOp.simt, as f32 and f64 dots do), with a -Wdot warning
 * for a type the unit takes in other shapes. Anything else returns NULL with
 * the reason and the statement: the kernel is an error there (emit.c).
 */
#include "t2c.h"

#include <stdint.h>
#include <string.h>

typedef struct Lower {
  TirKernel *K;
  const char *why;       /* the first thing not covered */
  Loc at;                /* the statement it is in */
  Stmt *stmt;            /* the statement being lowered */
  bool first;            /* its first op is still to come */
  int op_elems;          /* the elements of the op whose expression is being hoisted (0: none known) */
  int td;                /* depth of thread-dependent control */
  int loops;             /* loops around the statement */
  PtrVec read, written;  /* tensors (Sym *) read by loads, written by stores */
  PtrVec spilled;        /* values spilled for the statement being lowered (TirVar *) */
  PtrVec current;        /* values whose shared copy holds their value here (straight-line code) */
  PtrVec loops_op, loops_in; /* the loops around the statement (TirOp *), and the blocks they are in */
  PtrVec loops_cond;     /* for each of them, a while condition's ops (TirBlock *), or NULL */
  PtrVec hoisted;        /* spills moved before a loop: (TirOp *loop, TirVar *) pairs */
  PtrVec made_before;    /* copies made before a loop and current since: (TirBlock *, TirBuf *) pairs,
                            the block the loop is in (a later loop there reads them as they are) */
  PtrVec at_entry;       /* copies current where a loop starts: (TirOp *loop, TirBuf *) pairs */
} Lower;

static void drop(PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) v->items[i--] = v->items[--v->len];
}

static bool fail(Lower *L, const char *why) {
  if (!L->why) {
    L->why = why;
    if (L->stmt) L->at = L->stmt->loc;
  }
  return false;
}

static TirOp *op_new(Lower *L, TirBlock *b, TirOpKind kind) {
  TirOp *op = tir_new_op(L->K, b, kind, L->stmt);
  op->first = L->first;
  L->first = false;
  return op;
}

static TirVar *var_of(Lower *L, const Sym *y) {
  for (int i = 0; i < L->K->vars.len; i++) {
    TirVar *v = L->K->vars.items[i];
    if (v->sym == y) return v;
  }
  return NULL;
}

static void note_tensor(Lower *L, PtrVec *v, Sym *X) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == X) return;
  vec_push(L->K->a, v, X);
}

static bool is_tensor_slice(const Expr *x) {
  return x->kind == E_INDEX && x->u.index.base->u.ident.sym && x->u.index.base->u.ident.sym->kind == SY_TENSOR;
}

static bool is_tile_index(const Expr *x) {
  const Sym *y = x->kind == E_INDEX ? x->u.index.base->u.ident.sym : NULL;
  return y && y->kind == SY_VAR && y->ty.rank > 0;
}

/* A reduction of t accumulates in tir_acc_type(t): f16, bf16 and
 * f8 in f32, i8 and u8 in i32, every other type in itself. colsum() and sum()
 * fold t's own elements, so they take the types that accumulate in themselves. */

static const char *temp_name(Lower *L) { return arena_printf(L->K->a, "t2c_v%d", L->K->vars.len); }

static void map_value(Lower *L, Expr *key, TirVar *v) {
  vec_push(L->K->a, &L->K->hkeys, key);
  vec_push(L->K->a, &L->K->hvals, v);
}

static bool hoist(Lower *L, TirBlock *b, Expr *x);
static bool hoist_sum(Lower *L, TirBlock *b, Expr *x);
static bool hoist_window(Lower *L, TirBlock *b, Expr *x);
/* A fresh value of its own, declared and assigned x here. */
static TirVar *temp_of(Lower *L, TirBlock *b, Expr *x, ElemType elem, int rank, int rows, int cols, const char *what) {
  TirVar *v = tir_new_var(L->K, elem, rank, rows, cols, what);
  v->cname = temp_name(L);
  op_new(L, b, TO_DECL)->dst = v;
  TirOp *o = op_new(L, b, TO_ASSIGN);
  o->dst = v;
  o->expr = x;
  o->rows = rows;
  o->cols = cols;
  return v;
}

static TirVar *value_of(Lower *L, TirBlock *b, Expr *x);

/* A scalar expression; what is not elementwise in it (sum(), t[i, j]) is
 * lowered into ops before the statement when b allows it. */
static bool scalar_ok(Lower *L, TirBlock *b, Expr *x) {
  if (x->ty.rank != 0) return fail(L, "a tile where a scalar is expected");
  switch (x->kind) {
  case E_CTX:
    L->K->use_lane |= x->u.ctx == CTX_LANE; /* the printer declares them */
    L->K->use_warp |= x->u.ctx == CTX_WARP;
    return true;
  case E_INT: case E_FLOAT: case E_BOOL: case E_INF: return true;
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y || y->kind == SY_TENSOR) return fail(L, "a tensor used as a scalar");
    return true;
  }
  case E_UNARY: return scalar_ok(L, b, x->u.unary.a);
  case E_BINARY: return scalar_ok(L, b, x->u.binary.a) && scalar_ok(L, b, x->u.binary.b);
  case E_CALL: {
    int bk = x->u.call.builtin;
    if (x->u.call.cast == T_NONE && bk == B_SUM) return b ? hoist_sum(L, b, x) : fail(L, "sum() in a while condition");
    if (x->u.call.cast == T_NONE && bk != B_CDIV && bk != B_WHERE && builtin_class[bk] != BC_MATH1 &&
        builtin_class[bk] != BC_MATH2 && builtin_class[bk] != BC_RANDOM)
      return fail(L, "a reduction or tile function in a scalar expression");
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!scalar_ok(L, b, x->u.call.args[i])) return false;
    return true;
  }
  case E_INDEX: {
    if (is_tile_index(x)) return b ? hoist_window(L, b, x) : fail(L, "a tile element read in a while condition");
    /* X[i, j] with scalar indices: every thread reads the element (out of bounds: 0) */
    Sym *X = x->u.index.base->u.ident.sym;
    if (!X || X->kind != SY_TENSOR || x->u.index.nidx != X->trank) return fail(L, "an element read");
    for (int d = 0; d < X->trank; d++)
      if (x->u.index.idx[d].len || !scalar_ok(L, b, x->u.index.idx[d].start)) return fail(L, "a gather");
    note_tensor(L, &L->read, X);
    for (int i = 0; i < L->K->elems.len; i++)
      if (L->K->elems.items[i] == x) return true;
    vec_push(L->K->a, &L->K->elems, x);
    vec_push(L->K->a, &L->K->elem_loops, (void *)(intptr_t)L->loops);
    return true;
  }
  case E_MEMBER: return fail(L, "a member expression");
  }
  return fail(L, "an expression kind");
}

/* The tile shape a tensor slice reads: [rows, cols], rank 1 as [1, n]; rank 0: one element. */
static bool slice_shape(Lower *L, TirBlock *b, const Expr *s, int *rank, int *rows, int *cols) {
  const Sym *X = s->u.index.base->u.ident.sym;
  int kept = 0, len[2] = {1, 1};
  for (int d = 0; d < X->trank; d++) {
    Index *ix = &s->u.index.idx[d];
    if (!scalar_ok(L, b, ix->start)) return false;
    if (!ix->len) continue;
    int64_t n;
    if (!check_const_int(ix->len, &n) || kept == 2) return fail(L, "a slice length");
    len[kept++] = (int)n;
  }
  *rank = kept;
  *rows = kept == 2 ? len[0] : kept ? 1 : 0;
  *cols = kept == 2 ? len[1] : kept ? len[0] : 0;
  return true;
}

/* The op loading slice (a slice or a gather; pad: what elements outside read)
 * into dst, or, when dst is NULL, into a fresh value that stands for key. */
static bool load_op(Lower *L, TirBlock *b, Expr *key, Expr *slice, Expr *pad, TirVar *dst, int rank, int rows,
                    int cols, bool gather) {
  if (pad && !scalar_ok(L, b, pad)) return false;
  Sym *X = slice->u.index.base->u.ident.sym;
  note_tensor(L, &L->read, X);
  TirVar *v = dst;
  if (!v) {
    v = tir_new_var(L->K, X->ty.elem, rank, rows, cols,
                    arena_printf(L->K->a, "%s of %s at line %d", gather ? "gather" : pad ? "pad" : "slice", X->name,
                                 key->loc.line));
    v->cname = temp_name(L);
  }
  TirOp *op = op_new(L, b, TO_LOAD);
  op->dst = v;
  op->slice = slice;
  op->pad = pad;
  op->gather = gather;
  op->rows = rows;
  op->cols = cols;
  if (!dst) map_value(L, key, v);
  return true;
}

/* A load of a slice into dst (or a fresh value for key). */
static bool lower_load(Lower *L, TirBlock *b, Expr *key, Expr *slice, Expr *pad, TirVar *dst) {
  int rank, rows, cols;
  if (!slice_shape(L, b, slice, &rank, &rows, &cols)) return false;
  if (!rank) return fail(L, "a tensor element read in a tile expression");
  return load_op(L, b, key, slice, pad, dst, rank, rows, cols, false);
}

/* A gather's or scatter's indices: tile ones are elementwise expressions of the
 * op's layout, like any value it reads; scalar ones are scalars. */
static bool gather_indices(Lower *L, TirBlock *b, Expr *g) {
  for (int d = 0; d < g->u.index.nidx; d++) {
    Expr *ix = g->u.index.idx[d].start;
    if (!(ix->ty.rank ? hoist(L, b, ix) : scalar_ok(L, b, ix))) return false;
  }
  return true;
}

/* A gather X[i, j] with tile indices into dst (or a fresh value for key). */
static bool lower_gather(Lower *L, TirBlock *b, Expr *key, Expr *g, Expr *pad, TirVar *dst) {
  if (!gather_indices(L, b, g)) return false;
  int rows = g->ty.rank == 2 ? g->ty.dims[0] : 1, cols = g->ty.rank == 2 ? g->ty.dims[1] : g->ty.dims[0];
  return load_op(L, b, key, g, pad, dst, g->ty.rank, rows, cols, true);
}

static bool hoist_load(Lower *L, TirBlock *b, Expr *key, Expr *slice, Expr *pad) {
  if (check_is_gather(slice)) return lower_gather(L, b, key, slice, pad, NULL);
  return lower_load(L, b, key, slice, pad, NULL);
}

/* An arg-reduction compares any numeric type (f16 and bf16 as f32: tir_acc_type). */
static bool is_arg(const Expr *x) { return builtin_class[x->u.call.builtin] == BC_ARG; }

/* x converted to t: a cast node over x (x keeps its value). */
static Expr *cast_to(Lower *L, Expr *x, ElemType t) {
  Expr *c = NEW(L->K->a, Expr); /* zeroed */
  c->kind = E_CALL;
  c->loc = x->loc;
  c->u.call.name = elem_names[t];
  c->u.call.name_loc = x->loc;
  c->u.call.args = NEW_ARRAY(L->K->a, Expr *, 1);
  c->u.call.args[0] = x;
  c->u.call.nargs = c->u.call.shape_at = 1;
  c->u.call.builtin = -1;
  c->u.call.cast = t;
  c->ty = x->ty;
  c->ty.elem = t;
  c->ty.untyped = false;
  c->flags = x->flags & (EF_TD | EF_TILE);
  return c;
}

/* A row reduction (rowargmax too) into a fresh [rows, 1] value, or down the
 * columns (colsum, colargmax, ...: layout.c, tir_down_cols) into a fresh
 * [1, cols] one. Of f16 (bf16, f8, i8, u8) x, the elements are converted to
 * the type it accumulates in (tir_acc_type), reduced into a value of that
 * type, which is then converted back, once per row (column), into a value of
 * x's type (t2c::cvt of the wider sum); an arg-reduction compares in it. Over
 * one element, a sum, max or min is x itself. wide: x's conversion to that
 * wider type (widened_extreme), which is then the wider value itself. */
static bool hoist_reduce(Lower *L, TirBlock *b, Expr *x, Expr *wide) {
  Expr *arg = x->u.call.args[0];
  int bk = x->u.call.builtin;
  bool down = bk == B_COLSUM || bk == B_COLMAX || bk == B_COLMIN || bk == B_COLARGMAX || bk == B_COLARGMIN;
  if (arg->ty.rank != 2) return fail(L, down ? "a column reduction of a rank-1 tile" : "a row reduction of a rank-1 tile");
  if (arg->ty.dims[down ? 0 : 1] == 1 && !(down && is_arg(x))) { /* over one element: its sum, max and min are it */
    if (is_arg(x)) return fail(L, "an arg-reduction of one column");
    TirVar *v = value_of(L, b, arg);
    if (v) map_value(L, x, v);
    return v != NULL;
  }
  if (!hoist(L, b, arg)) return false;
  ElemType acc = is_arg(x) ? x->ty.elem : tir_acc_type(arg->ty.elem);
  const char *what = arena_printf(L->K->a, "%s at line %d", builtin_names[x->u.call.builtin], x->loc.line);
  int rows = down ? 1 : arg->ty.dims[0], cols = down ? arg->ty.dims[1] : 1;
  TirVar *v = tir_new_var(L->K, acc, 2, rows, cols,
                          acc == x->ty.elem ? what : arena_printf(L->K->a, "%s, in %s", what, elem_names[acc]));
  v->cname = temp_name(L);
  TirOp *op = op_new(L, b, TO_REDUCE);
  op->dst = v;
  op->expr = is_arg(x) || acc == arg->ty.elem ? arg : cast_to(L, arg, acc);
  op->red = (BuiltinKind)x->u.call.builtin;
  op->rows = arg->ty.dims[0];
  op->cols = arg->ty.dims[1];
  if (wide) { /* x is read only through wide */
    map_value(L, wide, v);
    return true;
  }
  if (acc != x->ty.elem) v = temp_of(L, b, cast_to(L, tir_read_of(L->K, v), x->ty.elem), x->ty.elem, 2, rows, cols, what);
  map_value(L, x, v);
  return true;
}

/* The max or min reduction that x converts to the wider type it is folded in
 * (f32(rowmax(e)) of an f16, bf16 or f8 e, i32(colmin(e)) of an i8 or u8 one),
 * or NULL. The fold's result is one of e's elements (NaN for NaN), which the
 * narrow type holds exactly, so converting it back and then to the wider type
 * again gives the same value: x is that wider value, rowmax(f32(e)), which
 * carry.c can carry across a loop as it does the form written so (each
 * iteration folded across threads before: the rounding it guards against, a sum's,
 * cannot happen here). */
static Expr *widened_extreme(const Expr *x) {
  if (x->u.call.cast == T_NONE || x->u.call.nargs != 1) return NULL;
  Expr *r = x->u.call.args[0];
  if (r->kind != E_CALL || r->u.call.cast != T_NONE || r->u.call.nargs != 1) return NULL;
  int bk = r->u.call.builtin;
  const Expr *e = r->u.call.args[0];
  bool row = bk == B_ROWMAX || bk == B_ROWMIN, col = bk == B_COLMAX || bk == B_COLMIN;
  /* a column reduction of one column goes through its shared copy (hoist_colreduce) */
  if (!(row || (col && e->ty.rank == 2 && e->ty.dims[1] > 1)) || e->ty.rank != 2 || e->ty.dims[row ? 1 : 0] == 1)
    return NULL;
  ElemType acc = tir_acc_type(e->ty.elem);
  return acc != e->ty.elem && acc == x->u.call.cast ? r : NULL;
}

/* The value x denotes: a tile var, a hoisted value, or a fresh one that x is computed into. */
static TirVar *value_of(Lower *L, TirBlock *b, Expr *x) {
  if (x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->ty.rank > 0) return var_of(L, x->u.ident.sym);
  if (!hoist(L, b, x)) return NULL;
  TirVar *h = tir_hoisted(L->K, x);
  if (h) return h;
  int rows = x->ty.rank == 2 ? x->ty.dims[0] : 1, cols = x->ty.rank == 2 ? x->ty.dims[1] : x->ty.dims[0];
  return temp_of(L, b, x, x->ty.elem, x->ty.rank, rows, cols, arena_printf(L->K->a, "an operand at line %d", x->loc.line));
}

/* v's shared copy, written by a TO_SPILL before the statement reads it (once per
 * statement); a dot operand's copy is laid out for ldmatrix (tir_operand_buf). */
typedef struct Writes {
  const Sym *y;
  bool any;
} Writes;

static void writes_stmt(Stmt *s, void *ctx) {
  Writes *w = ctx;
  if (s->kind == S_VAR) w->any |= s->u.decl.sym == w->y;
  if (s->kind != S_ASSIGN) return;
  const Expr *l = s->u.assign.lhs;
  w->any |= l->kind == E_IDENT ? l->u.ident.sym == w->y : l->u.index.base->u.ident.sym == w->y;
}

/* The outermost loop around the statement that does not write tile var v (its
 * copy, made before that loop, holds v in every iteration), or -1. */
static int invariant_loop(Lower *L, const TirVar *v) {
  if (!v->sym || L->td) return -1;
  for (int i = 0; i < L->loops_op.len; i++) {
    Stmt *f = ((TirOp *)L->loops_op.items[i])->stmt;
    Writes w = {v->sym, false};
    facts_walk_stmts(f->kind == S_WHILE ? &f->u.whil.body : &f->u.forr.body, writes_stmt, &w);
    if (!w.any) return i;
  }
  return -1;
}

/* (The copies made, current and hoisted are tracked by buffer: a value may
 * have a plain and a transposed copy.) */
static int spill_as(Lower *L, TirBlock *b, TirVar *v, const char *why, bool operand, bool trans) {
  TirKernel *K = L->K;
  /* a tile var no enclosing loop writes is copied once, before the outermost such loop */
  int at = invariant_loop(L, v);
  int bi = operand ? tir_operand_buf(K, v, (at >= 0 ? at : L->loops) > 0, trans) : tir_copy_buf(K, v);
  if (bi < 0) return fail(L, "too many shared copies"), -1;
  /* a small copy made in a loop alternates halves, as an operand copy does: the next
   * iteration's copy need not wait for this one's readers (one barrier an iteration,
   * not two), for a tile of at most TIR_ALT_COPY_BYTES (its elements, not the row
   * padding of the copy: a [32, 32] f32 tile is 4 KB, its copy 4224 bytes) */
  TirBuf *cb = &K->bufs[bi];
  if (!operand && !cb->operand) {
    if (at >= 0 || L->loops == 0) cb->one_half = true; /* written outside a loop too: in place, always */
    bool alt = L->loops > 0 && !cb->one_half && (int64_t)cb->rows * cb->cols * elem_bytes[cb->elem] <= TIR_ALT_COPY_BYTES;
    if (alt != cb->alternating) {
      cb->alternating = alt;
      tir_buf_size(cb);
    }
  }
  if (at >= 0) {
    TirOp *f = L->loops_op.items[at];
    for (int i = 0; i + 1 < L->hoisted.len; i += 2)
      if (L->hoisted.items[i] == f && L->hoisted.items[i + 1] == cb) return bi;
    vec_push(K->a, &L->hoisted, f);
    vec_push(K->a, &L->hoisted, cb);
    /* made before an earlier loop of the same block, and v not written since: as it is */
    for (int i = 0; i + 1 < L->made_before.len; i += 2)
      if (L->made_before.items[i] == L->loops_in.items[at] && L->made_before.items[i + 1] == cb) return bi;
    /* made right before the loop (by a statement, not hoisted): as it is (a second copy
     * of an alternating buffer in one iteration would write the half its reader reads) */
    for (int i = 0; i + 1 < L->at_entry.len; i += 2)
      if (L->at_entry.items[i] == f && L->at_entry.items[i + 1] == cb) return bi;
    vec_push(K->a, &L->made_before, L->loops_in.items[at]);
    vec_push(K->a, &L->made_before, cb);
    TirOp *op = tir_new_op(K, NULL, TO_SPILL, f->stmt); /* made at the loop's head */
    op->dst = v;
    op->buf = bi;
    if (v->sym->place == PL_REGISTER) op->reason = why;
    op->rows = v->rows;
    op->cols = v->cols;
    /* right before the loop, in the block that holds it */
    PtrVec *ops = &((TirBlock *)L->loops_in.items[at])->ops;
    vec_push(K->a, ops, NULL);
    int j = ops->len - 1;
    for (; ops->items[j - 1] != f; j--) ops->items[j] = ops->items[j - 1];
    ops->items[j] = f;
    ops->items[j - 1] = op;
    return bi;
  }
  /* once per statement, and not at all while the copy is current */
  if (vec_has(&L->spilled, cb) || vec_has(&L->current, cb)) return bi;
  vec_push(K->a, &L->spilled, cb);
  vec_push(K->a, &L->current, cb);
  TirOp *op = op_new(L, b, TO_SPILL);
  op->dst = v;
  op->buf = bi;
  if (v->sym && v->sym->place == PL_REGISTER) op->reason = why;
  op->rows = v->rows;
  op->cols = v->cols;
  return bi;
}

static int spill(Lower *L, TirBlock *b, TirVar *v, const char *why) { return spill_as(L, b, v, why, false, false); }

static void map_read(Lower *L, Expr *x, TirRead *r) {
  vec_push(L->K->a, &L->K->rkeys, x);
  vec_push(L->K->a, &L->K->rvals, r);
}

static bool hoist_transpose(Lower *L, TirBlock *b, Expr *x) {
  Expr *arg = x->u.call.args[0];
  if (arg->ty.rank != 2) return fail(L, "transpose of a rank-1 tile");
  TirVar *v = value_of(L, b, arg);
  int bi = v ? spill(L, b, v, "transpose reads it at other elements") : -1;
  if (bi < 0) return false;
  TirRead *r = NEW(L->K->a, TirRead);
  *r = (TirRead){TR_TRANSPOSE, bi, 2, {NULL, NULL}, {true, true}, 0, 0};
  map_read(L, x, r);
  return true;
}

/* t[i, j], t[a :+ m, b :+ n] (and mixes) of a tile var, read from its shared copy. */
static bool hoist_window(Lower *L, TirBlock *b, Expr *x) {
  TirVar *v = var_of(L, x->u.index.base->u.ident.sym);
  if (!v) return fail(L, "a read of an undeclared tile");
  TirRead *r = NEW(L->K->a, TirRead);
  r->kind = TR_WINDOW;
  r->rank = v->rank;
  for (int d = 0; d < x->u.index.nidx && d < 2; d++) {
    r->start[d] = x->u.index.idx[d].start;
    r->keep[d] = x->u.index.idx[d].len != NULL;
    if (!scalar_ok(L, b, x->u.index.idx[d].start)) return false;
  }
  bool element = x->ty.rank == 0;
  r->buf = spill(L, b, v, element ? "an element read reads it at one element for all threads"
                                  : "a sub-tile read reads it at other elements");
  if (r->buf < 0) return false;
  map_read(L, x, r);
  return true;
}

static Expr *int_node(Lower *L, int v, Loc at) {
  Expr *n = NEW(L->K->a, Expr); /* zeroed */
  n->kind = E_INT;
  n->loc = at;
  n->ty = (Type){T_I32, 0, {0, 0}, true};
  n->flags = EF_CONST;
  n->u.ival = n->cv.i = v;
  return n;
}

/* Whether x is pad(X[..], p) (no cast). */
static bool is_pad(const Expr *x) {
  return x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == B_PAD;
}

/* A call of rows() or cols() (b) of shape [r, c], at x. */
static Expr *line_node(Lower *L, BuiltinKind b, int r, int c, Loc at) {
  Expr *n = NEW(L->K->a, Expr); /* zeroed */
  n->kind = E_CALL;
  n->loc = at;
  n->ty = (Type){T_I32, 2, {r, c}, false};
  n->flags = EF_TILE;
  n->u.call.builtin = b;
  n->u.call.name = builtin_names[b];
  n->u.call.name_loc = at;
  n->u.call.cast = T_NONE;
  n->u.call.args = NEW_ARRAY(L->K->a, Expr *, 2);
  n->u.call.args[0] = int_node(L, r, at);
  n->u.call.args[1] = int_node(L, c, at);
  n->u.call.nargs = n->u.call.shape_at = 2;
  return n;
}

/* a op b, an integer tile of shape t (b's flags: a tile's). */
static Expr *int_binary(Lower *L, TokenKind op, Expr *a, Expr *b, Type t) {
  Expr *n = NEW(L->K->a, Expr); /* zeroed */
  n->kind = E_BINARY;
  n->loc = a->loc;
  n->ty = t;
  n->flags = ((a->flags | b->flags) & EF_TD) | EF_TILE;
  n->u.binary.op = op;
  n->u.binary.a = a;
  n->u.binary.b = b;
  return n;
}

/* reshape(X[.., a :+ n, ..], [R, C]) of a tensor slice with one ranged index (not a
 * gather; or of pad(X[..], p)): the gather X[.., a + rows(n, 1), ..] for a column
 * [n, 1], a + cols(1, n) for a row, and a + rows(R, 1) * C + cols(1, C) for any other
 * shape: the same elements loaded in the shape asked for, each thread its own, no copy.
 * Along the slice's dim they are its contiguous run a .. a + n - 1 in row-major order;
 * on the tensor's last dim a run of the shape's layout is a run of X, which layout.c
 * (gather_run) loads in one access as it does a slice's. A slice and a gather both read
 * 0 past the tensor's end, or both p (the caller loads a pad's gather with p). NULL for
 * any other reshape. */
static Expr *reshape_as_gather(Lower *L, const Expr *x) {
  const Expr *a = x->u.call.args[0];
  if (is_pad(a)) a = a->u.call.args[0];
  if (x->ty.rank != 2 || a->kind != E_INDEX || !a->u.index.base->u.ident.sym ||
      a->u.index.base->u.ident.sym->kind != SY_TENSOR || check_is_gather(a))
    return NULL;
  int ranged = -1, R = x->ty.dims[0], C = x->ty.dims[1];
  for (int d = 0; d < a->u.index.nidx; d++) {
    int64_t len;
    if (!a->u.index.idx[d].len || (check_const_int(a->u.index.idx[d].len, &len) && len == 1)) continue;
    if (ranged >= 0) return NULL;
    ranged = d;
  }
  if (ranged < 0 || R * C < 2) return NULL;
  Expr *st = (Expr *)a->u.index.idx[ranged].start, *i;
  Type t = {T_I32, 2, {R, C}, false};
  if (C == 1) i = int_binary(L, TK_PLUS, st, line_node(L, B_ROWS, R, 1, x->loc), t);
  else if (R == 1) i = int_binary(L, TK_PLUS, st, line_node(L, B_COLS, 1, C, x->loc), t);
  else { /* (a + rows(R, 1) * C) + cols(1, C): each row's first element, then its run */
    Type col = {T_I32, 2, {R, 1}, false};
    Expr *r = int_binary(L, TK_STAR, line_node(L, B_ROWS, R, 1, x->loc), int_node(L, C, x->loc), col);
    i = int_binary(L, TK_PLUS, int_binary(L, TK_PLUS, st, r, col), line_node(L, B_COLS, 1, C, x->loc), t);
  }
  i->loc = st->loc;
  Expr *g = NEW(L->K->a, Expr);
  *g = *a;
  g->ty = x->ty;
  g->flags = a->flags | EF_TILE;
  g->u.index.idx = NEW_ARRAY(L->K->a, Index, a->u.index.nidx);
  for (int d = 0; d < a->u.index.nidx; d++) g->u.index.idx[d] = (Index){a->u.index.idx[d].start, NULL}; /* a :+ 1: a */
  g->u.index.idx[ranged].start = i;
  return g;
}

/* reshape(t[i :+ 1, j :+ n], [n, 1]) (or of t[i, j :+ n], or of the column
 * t[i :+ n, j :+ 1] to [1, n]): one row or column of tile var t made a column or
 * a row, as a vector-matrix dot's vector is (dot(x[i :+ 1, 0 :+ K], w)). It is
 * read from t's own copy, the window's one long dim along the shape's: without
 * it the window would be read from t's copy into a value of its own, and that
 * value copied again for the reshape (two copies and two barriers). */
static bool hoist_line_reshape(Lower *L, TirBlock *b, Expr *x, bool *done) {
  Expr *w = x->u.call.args[0];
  *done = false;
  if (!is_tile_index(w) || x->ty.rank != 2 || (x->ty.dims[0] != 1 && x->ty.dims[1] != 1)) return true;
  TirVar *v = var_of(L, w->u.index.base->u.ident.sym);
  if (!v || v->rank != 2 || w->u.index.nidx != 2) return true;
  int along = -1;
  for (int d = 0; d < 2; d++) {
    int64_t len;
    const Expr *n = w->u.index.idx[d].len;
    if (!n || (check_const_int(n, &len) && len == 1)) continue;
    if (along >= 0) return true; /* a block of rows and columns: its row-major order is not one line of t */
    along = d;
  }
  if (along < 0) return true;
  TirRead *r = NEW(L->K->a, TirRead);
  *r = (TirRead){TR_WINDOW, -1, 2, {w->u.index.idx[0].start, w->u.index.idx[1].start}, {along == 0, along == 1}, 0, 0};
  for (int d = 0; d < 2; d++)
    if (!scalar_ok(L, b, w->u.index.idx[d].start)) return false;
  r->buf = spill(L, b, v, "a sub-tile read reads it at other elements");
  if (r->buf < 0) return false;
  map_read(L, x, r);
  *done = true;
  return true;
}

/* The [rows, cols] a tile's elements are laid out over: [1, n] for a rank-1 [n]. */
static void shape_of(const Type *t, int *rows, int *cols) {
  *rows = t->rank == 2 ? t->dims[0] : 1;
  *cols = t->rank == 2 ? t->dims[1] : t->dims[0];
}

/* reshape(t, [a, b]): t's elements in row-major order, read from its shared copy.
 * A reshape that keeps the [rows, cols] (a rank-1 [n] and [1, n], the way to take
 * rowmax(reshape(x, [1, n])) of a 1-D tile) keeps every element's place: one layout
 * per shape (layout.c) gives it the same thread and register, so t's value is read
 * as it is, with no copy (layout.c converts where t took another layout). */
static bool hoist_reshape(Lower *L, TirBlock *b, Expr *x) {
  int r0, c0, r1, c1;
  shape_of(&x->u.call.args[0]->ty, &r0, &c0);
  shape_of(&x->ty, &r1, &c1);
  if (r0 == r1 && c0 == c1) {
    TirVar *v = value_of(L, b, x->u.call.args[0]);
    if (v) map_value(L, x, v);
    return v != NULL;
  }
  Expr *g = reshape_as_gather(L, x);
  if (g && is_pad(x->u.call.args[0])) /* the gather loaded with the pad's value, as x itself */
    return hoist_load(L, b, x, g, x->u.call.args[0]->u.call.args[1]);
  if (g) {
    TirVar *v = value_of(L, b, g);
    if (v) map_value(L, x, v);
    return v != NULL;
  }
  bool done;
  if (!hoist_line_reshape(L, b, x, &done)) return false;
  if (done) return true;
  TirVar *v = value_of(L, b, x->u.call.args[0]);
  int bi = v ? spill(L, b, v, "reshape() reads it at other elements") : -1;
  if (bi < 0) return false;
  TirRead *r = NEW(L->K->a, TirRead);
  *r = (TirRead){TR_RESHAPE, bi, x->ty.rank, {NULL, NULL}, {true, true}, v->cols, 0};
  map_read(L, x, r);
  return true;
}

/* A column reduction of a [rows, 1] value (a row value): it is spilled to its
 * shared copy, and the element of the result walks its column there
 * (TO_COLREDUCE). */
static bool hoist_colreduce(Lower *L, TirBlock *b, Expr *x) {
  Expr *arg = x->u.call.args[0];
  if (arg->ty.rank != 2) return fail(L, "a column reduction of a rank-1 tile");
  if (arg->ty.dims[1] > 1) return hoist_reduce(L, b, x, NULL);
  TirVar *v = value_of(L, b, arg);
  int bi = v ? spill(L, b, v, arena_printf(L->K->a, "%s() reads it across threads", builtin_names[x->u.call.builtin]))
             : -1;
  if (bi < 0) return false;
  TirVar *d = tir_new_var(L->K, x->ty.elem, 2, 1, arg->ty.dims[1],
                          arena_printf(L->K->a, "%s at line %d", builtin_names[x->u.call.builtin], x->loc.line));
  d->cname = temp_name(L);
  TirOp *op = op_new(L, b, TO_COLREDUCE);
  op->dst = d;
  op->buf = bi;
  op->red = (BuiltinKind)x->u.call.builtin;
  op->rows = 1;
  op->cols = arg->ty.dims[1];
  map_value(L, x, d);
  return true;
}

/* cumsum(t, axis) (cumprod, cummax): a TO_SCAN into a fresh value of t's shape,
 * run where t's values are (layout.c). A rank-1 tile [n] is [1, n]: its one axis
 * is along the row. Along a dim of length 1 the scan is t itself. */
static bool hoist_scan(Lower *L, TirBlock *b, Expr *x) {
  Expr *arg = x->u.call.args[0];
  int64_t axis = 1;
  if (x->u.call.nargs == 2 && arg->ty.rank == 2) check_const_int(x->u.call.args[1], &axis);
  int rows = arg->ty.rank == 2 ? arg->ty.dims[0] : 1, cols = arg->ty.rank == 2 ? arg->ty.dims[1] : arg->ty.dims[0];
  if ((axis == 1 ? cols : rows) == 1) {
    TirVar *v = value_of(L, b, arg);
    if (v) map_value(L, x, v);
    return v != NULL;
  }
  if (!hoist(L, b, arg)) return false;
  TirVar *d = tir_new_var(L->K, x->ty.elem, arg->ty.rank, rows, cols,
                          arena_printf(L->K->a, "%s at line %d", builtin_names[x->u.call.builtin], x->loc.line));
  d->cname = temp_name(L);
  TirOp *op = op_new(L, b, TO_SCAN);
  op->dst = d;
  op->expr = arg;
  op->red = (BuiltinKind)x->u.call.builtin;
  op->axis = (int)axis;
  op->rows = rows;
  op->cols = cols;
  map_value(L, x, d);
  return true;
}

static bool hoist_sum(Lower *L, TirBlock *b, Expr *x) {
  Expr *arg = x->u.call.args[0];
  TirVar *v = value_of(L, b, arg);
  if (!v) return false;
  /* of f16, bf16, f8, i8, u8: in the wider type (tir_acc_type), rounded where it is read */
  TirVar *d = tir_new_var(L->K, tir_acc_type(x->ty.elem), 0, 1, 1, arena_printf(L->K->a, "sum at line %d", x->loc.line));
  d->cname = temp_name(L);
  op_new(L, b, TO_DECL)->dst = d;
  TirOp *op = op_new(L, b, TO_SUM);
  op->dst = d;
  op->expr = arg;
  op->src = v;
  op->red = B_SUM;
  op->rows = v->rows;
  op->cols = v->cols;
  map_value(L, x, d);
  return true;
}

/* ------------------------------------------------------------ dot */

static bool is_dot(const Expr *x) { return x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == B_DOT; }
static bool is_transpose(const Expr *x) {
  return x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == B_TRANSPOSE;
}

/* Whether x names tile var y anywhere. */
static bool names(const Expr *x, const Sym *y) {
  if (!x || !y) return false;
  switch (x->kind) {
  case E_IDENT: return x->u.ident.sym == y;
  case E_UNARY: return names(x->u.unary.a, y);
  case E_BINARY: return names(x->u.binary.a, y) || names(x->u.binary.b, y);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (names(x->u.call.args[i], y)) return true;
    return false;
  case E_INDEX:
    if (x->u.index.base->u.ident.sym == y) return true;
    for (int i = 0; i < x->u.index.nidx; i++)
      if (names(x->u.index.idx[i].start, y)) return true;
    return false;
  default: return false;
  }
}

/* Why the matrix unit (hw.c) cannot run a dot, or NULL when it can: f16 or
 * bf16 operands (16 x 8 x 16), i8 or f8 (16 x 8 x 32), a multiple of the
 * instruction's shape. */
static const char *off_unit(Lower *L, const Expr *x) {
  const Expr *a = x->u.call.args[0], *b = x->u.call.args[1];
  ElemType t = a->ty.elem;
  if (!L->K->hw->mma) return "a dot on a target without a matrix instruction";
  if (t != T_F16 && t != T_BF16 && t != T_I8 && !elem_is_f8(t)) return "a dot of operands other than f16, bf16, i8 and f8";
  if (t == T_I8 && !L->K->hw->mma_i8) return "an i8 dot on a target without an i8 matrix instruction";
  if (elem_is_f8(t) && !L->K->hw->mma_f8) return "an f8 dot on a target before sm_89 (no f8 matrix instruction)";
  if (elem_bytes[t] == 1 ? a->ty.dims[0] % 16 || b->ty.dims[1] % 8 || a->ty.dims[1] % 32
                         : a->ty.dims[0] % 16 || b->ty.dims[1] % 8 || a->ty.dims[1] % 16)
    return elem_bytes[t] == 1
               ? arena_printf(L->K->a, "an %s dot whose shape is not a multiple of the instruction's (16 x 8 x 32)",
                              elem_names[t])
               : "a dot whose shape is not a multiple of the instruction's (16 x 8 x 16)";
  return NULL;
}

/* A operand computed in registers: a cast to f16/bf16 of f32 values (attention's
 * f16(p)); the layout stage evaluates it in an accumulator layout and packs it. */
static bool register_a(const Expr *a) {
  return a->kind == E_CALL && (a->u.call.cast == T_F16 || a->u.call.cast == T_BF16) && a->u.call.args[0]->ty.elem == T_F32;
}

/* An A operand in registers is computed in the mma layout of its shape with
 * whole rows per warp (layout.c's mma_fn): the warps must divide the rows' 16-row
 * tiles, the shapes be whole mma tiles, and the accumulator fit the fragments'
 * cap (tir_value_cap; past it the dot runs on the CUDA cores, from copies).
 * Otherwise A goes through a copy. */
static bool register_a_fits(const Lower *L, const Expr *x) {
  int warps = L->K->ki->threads / L->K->t->lanes;
  int rows = x->u.call.args[0]->ty.dims[0], kdim = x->u.call.args[0]->ty.dims[1], cols = x->u.call.args[1]->ty.dims[1];
  return L->K->t->lanes == 32 && rows % 16 == 0 && (rows / 16) % warps == 0 && kdim % 16 == 0 && cols % 8 == 0 &&
         rows * cols / L->K->ki->threads <= TIR_MAX_WG_REGS && rows * kdim / L->K->ki->threads <= TIR_MAX_WG_REGS;
}

/* Why register_a_fits declines dot x, for -Wdot (the shape's own multiples are
 * the matrix unit's, checked before: only the warps and the cap are said). */
static const char *register_a_why(const Lower *L, const Expr *x) {
  int threads = L->K->ki->threads, warps = threads / L->K->t->lanes;
  int rows = x->u.call.args[0]->ty.dims[0], kdim = x->u.call.args[0]->ty.dims[1], cols = x->u.call.args[1]->ty.dims[1];
  if (L->K->t->lanes == 32 && rows % 16 == 0 && (rows / 16) % warps) {
    int tiles = rows / 16, d = warps;
    while (tiles % d) d--; /* the most warps that share the tiles out whole */
    const char *rows_ok = arena_printf(L->K->a, "%d rows", 16 * warps * ((tiles + warps - 1) / warps));
    return arena_printf(L->K->a,
                        "its %d rows make %s of 16 rows, which %d warps cannot share out whole, so rows span warps (a "
                        "rowmax or rowsum of them crosses warps too); %s, or @launch(%d), keep it in registers",
                        rows, tiles == 1 ? "one tile" : arena_printf(L->K->a, "%d tiles", tiles), warps, rows_ok, d * 32);
  }
  if (rows * cols / threads > TIR_MAX_WG_REGS || rows * kdim / threads > TIR_MAX_WG_REGS)
    return arena_printf(L->K->a, "it or the accumulator would hold more than %d per thread", TIR_MAX_WG_REGS);
  return NULL;
}

/* An operand read from its copy by ldmatrix: a value, or transpose(value) (trans).
 * ldmatrix reads 8-bit operands along k only (no .trans form), so an 8-bit
 * operand whose copy would run along the other dim gets a transposed copy
 * (`kmajor`: B; A is the other way round) and is read as its transpose. */
static TirVar *dot_operand(Lower *L, TirBlock *b, Expr *x, bool kmajor, bool *trans, bool *flip, int *buf) {
  *trans = is_transpose(x);
  TirVar *v = value_of(L, b, *trans ? x->u.call.args[0] : x);
  if (!v) return NULL;
  *flip = elem_bytes[v->elem] == 1 && *trans != kmajor;
  *buf = spill_as(L, b, v, "dot reads it as an operand", true, *flip);
  if (*flip) *trans = !*trans;
  return *buf < 0 ? NULL : v;
}

/* f32 and f64 dots run on the CUDA cores (no matrix unit takes them here). */
static bool simt_dot(const Expr *x) {
  ElemType t = x->u.call.args[0]->ty.elem;
  return t == T_F32 || t == T_F64;
}

/* A call node of built-in bk over arg, of type ty. */
static Expr *call_node(Lower *L, BuiltinKind bk, Expr *arg, Type ty) {
  Expr *c = NEW(L->K->a, Expr); /* zeroed */
  c->kind = E_CALL;
  c->loc = arg->loc;
  c->ty = ty;
  c->flags = arg->flags & (EF_TD | EF_TILE);
  c->u.call.name = builtin_names[bk];
  c->u.call.name_loc = arg->loc;
  c->u.call.args = NEW_ARRAY(L->K->a, Expr *, 1);
  c->u.call.args[0] = arg;
  c->u.call.nargs = c->u.call.shape_at = 1;
  c->u.call.builtin = bk;
  c->u.call.cast = T_NONE;
  return c;
}

/* x as a [rows, cols] tile of the same elements in the same order: the
 * operand of transpose(y) when y has that shape (a [1, K] or [K, 1] tile is
 * its own transpose, read in order), else reshape(x). */
static Expr *as_shape(Lower *L, Expr *x, int rows, int cols) {
  if (is_transpose(x)) {
    Expr *y = x->u.call.args[0];
    if (y->ty.rank == 2 && y->ty.dims[0] == rows && y->ty.dims[1] == cols) return y;
  }
  /* a reshape of a reshape is one reshape of the first's operand (both keep row-major
   * order): a GEMV's reshape(X[k0 :+ BK], [BK, 1]) read as the row [1, BK] is that slice
   * loaded as a row (reshape_as_gather), not a column copied to shared memory */
  while (x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == B_RESHAPE)
    x = x->u.call.args[0]; /* (its shape's dims follow as args) */
  if (x->ty.rank == 2 && x->ty.dims[0] == rows && x->ty.dims[1] == cols) return x;
  return call_node(L, B_RESHAPE, x, (Type){x->ty.elem, 2, {rows, cols}, false});
}

/* A dot of one row, dot(a[1, K], b[K, N]), or of one column, dot(a[M, K],
 * b[K, 1]), on the CUDA cores: a vector-matrix product, which no tensor-core
 * shape takes. It is the reduction a CUDA developer writes, with the matrix in
 * registers (read once, by 16-byte loads) and no shared copy of it:
 * colsum(reshape(a, [K, 1]) * b), or rowsum(a * reshape(b, [1, K])) (also when
 * both are vectors), each operand converted to the dot's type first. The
 * products are exact in that type for f16, bf16, f8 and i8 operands, as on
 * tensor cores; the sums are a reduction's. NULL for any other dot. */
static Expr *vector_dot(Lower *L, Expr *x) {
  Expr *a = x->u.call.args[0], *bx = x->u.call.args[1];
  int m = a->ty.dims[0], k = a->ty.dims[1], n = bx->ty.dims[1];
  ElemType t = x->ty.elem;
  bool rows = n == 1;
  /* one row against a transposed matrix, dot(a[1, K], transpose(y[N, K])): rowsum(y * a) over
   * y as it is stored, its N sums then made a row (a copy of N elements, not of y); one
   * column, dot(transpose(z[K, M]), b[K, 1]): colsum(z * b), its M sums made a column */
  bool row_t = !rows && m == 1 && is_transpose(bx) && bx->u.call.args[0]->ty.rank == 2;
  bool col_t = rows && m > 1 && is_transpose(a) && a->u.call.args[0]->ty.rank == 2;
  if (row_t || col_t) {
    Expr *w = row_t ? bx->u.call.args[0] : a->u.call.args[0], *v = row_t ? a : bx;
    if (w->ty.elem != t) w = cast_to(L, w, t);
    if (v->ty.elem != t) v = cast_to(L, v, t);
    Expr *p = NEW(L->K->a, Expr); /* zeroed */
    p->kind = E_BINARY;
    p->loc = x->loc;
    p->ty = (Type){t, 2, {w->ty.dims[0], w->ty.dims[1]}, false};
    p->flags = (w->flags | v->flags) & (EF_TD | EF_TILE);
    p->u.binary.op = TK_STAR;
    p->u.binary.a = w;
    p->u.binary.b = v;
    Expr *r = call_node(L, row_t ? B_ROWSUM : B_COLSUM, p, (Type){t, 2, {row_t ? n : 1, row_t ? 1 : m}, false});
    return call_node(L, B_RESHAPE, r, x->ty);
  }
  Expr *va = rows ? a : as_shape(L, a, k, 1), *vb = rows ? as_shape(L, bx, 1, k) : bx;
  if (va->ty.elem != t) va = cast_to(L, va, t);
  if (vb->ty.elem != t) vb = cast_to(L, vb, t);
  Expr *p = NEW(L->K->a, Expr); /* zeroed */
  p->kind = E_BINARY;
  p->loc = x->loc;
  p->ty = (Type){t, 2, {rows ? m : k, rows ? k : n}, false};
  p->flags = (va->flags | vb->flags) & (EF_TD | EF_TILE);
  p->u.binary.op = TK_STAR;
  p->u.binary.a = va;
  p->u.binary.b = vb;
  return call_node(L, rows ? B_ROWSUM : B_COLSUM, p, x->ty);
}

/* Whether dot x runs on the CUDA cores (f32, f64, and a dot the unit cannot
 * take, which a -Wdot warning names when its operands are of a type the unit
 * takes in other shapes). */
static bool on_cuda_cores(Lower *L, const Expr *x) { return simt_dot(x) || off_unit(L, x); }

/* Whether dot x is lowered as a reduction (vector_dot): one row or one column, on the CUDA cores. */
static bool is_vector_dot(Lower *L, const Expr *x) {
  return is_dot(x) && (x->u.call.args[0]->ty.dims[0] == 1 || x->u.call.args[1]->ty.dims[1] == 1) && on_cuda_cores(L, x);
}

/* dst op= dot(a, b) (op: = or +=): on the matrix unit, or on the CUDA cores
 * (on_cuda_cores; not a vector_dot, which hoist() lowers as its reduction). */
static bool lower_dot(Lower *L, TirBlock *b, TirVar *dst, TokenKind op, Expr *x) {
  const char *off = simt_dot(x) ? NULL : off_unit(L, x);
  bool simt = simt_dot(x) || off;
  Expr *a = x->u.call.args[0], *bx = x->u.call.args[1];
  TirVar *va = NULL, *vb;
  int ba = -1, bb = -1;
  bool at = false, bt = false, aflip = false, bflip = false;
  const char *offreg = NULL;
  if (!simt && register_a(a) && register_a_fits(L, x)) {
    if (!hoist(L, b, a)) return false;
  } else if (!(va = dot_operand(L, b, a, false, &at, &aflip, &ba))) {
    return false;
  } else if (!simt && register_a(a)) {
    offreg = register_a_why(L, x);
  }
  if (!(vb = dot_operand(L, b, bx, true, &bt, &bflip, &bb))) return false;
  if (simt && bt && elem_bytes[vb->elem] == 4) {
    /* dot(x, transpose(y)) on the CUDA cores reads y's copy down its columns, each lane
     * rows a run apart (4 for f32): an odd pitch puts 8 of those rows in 8 banks, where
     * the 16-byte padded one (K + 4) put 16 lanes' rows in 2 (the copy is then written
     * by 4-byte stores, once, and read K times; as a @pipeline stage ring, by 4-byte
     * cp.async: pipeline.c's async_copy) */
    TirBuf *f = &L->K->bufs[bb];
    int n = f->cols;
    if (!f->trans && f->pitch % 2 == 0) {
      f->pitch = n % 2 ? n : n + 1;
      tir_buf_size(f);
    }
  }
  TirOp *o = op_new(L, b, TO_DOT);
  o->dst = dst;
  o->op = op;
  o->src = va;
  o->buf = ba;
  o->atrans = at;
  o->expr = va ? NULL : a;
  o->src2 = vb;
  o->buf2 = bb;
  o->btrans = bt;
  o->simt = simt;
  o->offreg = offreg;
  if (!simt) /* an 8-bit operand that runs along the other dim than k: copied transposed */
    o->offflip = bflip ? "B, stored [K, N]" : aflip ? "A, read as transpose of a [K, M] tile" : NULL;
  o->dloc = x->loc;
  ElemType t = a->ty.elem;
  if (off && L->K->hw->mma && (t == T_F16 || t == T_BF16 || t == T_I8 || elem_is_f8(t))) o->offunit = off;
  o->kdim = a->ty.dims[1];
  o->rows = dst->rows;
  o->cols = dst->cols;
  return true;
}

/* dot(..) in any other place: into a fresh value first. */
static bool hoist_dot(Lower *L, TirBlock *b, Expr *x) {
  TirVar *v = tir_new_var(L->K, x->ty.elem, 2, x->ty.dims[0], x->ty.dims[1],
                          arena_printf(L->K->a, "dot at line %d", x->loc.line));
  v->cname = temp_name(L);
  op_new(L, b, TO_DECL)->dst = v;
  if (!lower_dot(L, b, v, TK_ASSIGN, x)) return false;
  map_value(L, x, v);
  return true;
}

/* Lowers the non-elementwise parts of x into ops before the statement's own. */
/* A float division or math function x of fewer elements than the op's (1.0 / l of a row
 * value l, read across the columns of acc * (1.0 / l); rsqrt(ms + eps) of x * rsqrt(ms +
 * eps)) is computed once, into a value of its own: at each element it was computed again
 * (a division with a slow-path call under each element's bounds test, an MUFU per
 * element), which the compiler does not hoist, where one a row serves. */
static void once_shared(Lower *L, TirBlock *b, Expr *x, const char *what) {
  if (x->ty.rank != 2 || L->op_elems <= 0 || x->ty.dims[0] * x->ty.dims[1] * 2 > L->op_elems) return;
  Expr *c = NEW(L->K->a, Expr);
  *c = *x; /* the value's own expression: x itself now reads the value */
  TirVar *v = temp_of(L, b, c, x->ty.elem, 2, x->ty.dims[0], x->ty.dims[1],
                      arena_printf(L->K->a, "%s at line %d, once for the elements that share it", what, x->loc.line));
  map_value(L, x, v);
}

static bool hoist(Lower *L, TirBlock *b, Expr *x) {
  if (tir_hoisted(L->K, x) || tir_read(L->K, x)) return true;
  if (x->ty.rank == 0) return scalar_ok(L, b, x);
  switch (x->kind) {
  case E_IDENT:
    if (!var_of(L, x->u.ident.sym)) return fail(L, "a tile var the IR has not seen declared");
    return true;
  case E_UNARY: return hoist(L, b, x->u.unary.a);
  case E_BINARY:
    if (!hoist(L, b, x->u.binary.a) || !hoist(L, b, x->u.binary.b)) return false;
    /* a float division of fewer elements than the op's (1.0 / l of a row value l, read
     * across the columns of acc * (1.0 / l)) is computed once, into a value of its own:
     * at each element it was a division (with a slow-path call under each element's
     * bounds test, which the compiler does not hoist) where one a row serves */
    if (x->u.binary.op == TK_SLASH && elem_is_float(x->ty.elem)) once_shared(L, b, x, "a division");
    return true;
  case E_INDEX:
    if (is_tile_index(x)) return hoist_window(L, b, x);
    if (!is_tensor_slice(x)) return fail(L, "an index of something other than a tensor or tile");
    return hoist_load(L, b, x, x, NULL);
  case E_CALL: {
    int bk = x->u.call.builtin;
    Expr *r = widened_extreme(x);
    if (r) return hoist_reduce(L, b, r, x);
    if (x->u.call.cast != T_NONE || builtin_class[bk] == BC_MATH1 || builtin_class[bk] == BC_MATH2 ||
        builtin_class[bk] == BC_RANDOM || bk == B_WHERE) {
      for (int i = 0; i < x->u.call.nargs; i++)
        if (!hoist(L, b, x->u.call.args[i])) return false;
      /* a function of a row value read across the row (x * rsqrt(ms + eps)): once a row. Not
       * of a column value: a layout of whole rows a warp gives each thread its own columns,
       * one function each as before, and the values' registers besides */
      if (x->u.call.cast == T_NONE && builtin_class[bk] == BC_MATH1 && bk != B_ABS && bk != B_FLOOR && bk != B_CEIL &&
          bk != B_ROUND && elem_is_float(x->ty.elem) && x->ty.rank == 2 && x->ty.dims[1] == 1)
        once_shared(L, b, x, arena_printf(L->K->a, "%s()", builtin_names[bk]));
      return true;
    }
    switch (bk) {
    case B_ROWS: case B_COLS: return true;
    case B_PAD: return hoist_load(L, b, x, x->u.call.args[0], x->u.call.args[1]);
    case B_ROWSUM: case B_ROWMAX: case B_ROWMIN: case B_ROWARGMAX: case B_ROWARGMIN: return hoist_reduce(L, b, x, NULL);
    case B_COLSUM: case B_COLMAX: case B_COLMIN: case B_COLARGMAX: case B_COLARGMIN: return hoist_colreduce(L, b, x);
    case B_CUMSUM: case B_CUMPROD: case B_CUMMAX: return hoist_scan(L, b, x);
    case B_TRANSPOSE: return hoist_transpose(L, b, x);
    case B_RESHAPE: return hoist_reshape(L, b, x);
    case B_DOT:
      if (is_vector_dot(L, x)) { /* its reduction's value is the dot's */
        TirVar *v = value_of(L, b, vector_dot(L, x));
        if (!v) return false;
        map_value(L, x, v);
        return true;
      }
      return hoist_dot(L, b, x);
    default: return fail(L, "a tile function");
    }
  }
  default: return fail(L, "an expression kind");
  }
}

static bool lower_block(Lower *L, TirBlock *out, Block *b);

static bool lower_tile_assign(Lower *L, TirBlock *b, TirVar *v, TokenKind op, Expr *rhs) {
  /* a column [M, 1] into a rank-1 var [M] (the unit dim drops): its elements in order, as
   * the row [1, M] a rank-1 value is, read through a shared copy */
  if (v->rank == 1 && rhs->ty.rank == 2 && rhs->ty.dims[1] == 1 && rhs->ty.dims[0] > 1)
    rhs = call_node(L, B_RESHAPE, rhs, (Type){rhs->ty.elem, 2, {1, rhs->ty.dims[0]}, false});
  /* v = X[..] and v = pad(X[..], p) of v's element type load into v's registers */
  bool padded = rhs->kind == E_CALL && rhs->u.call.cast == T_NONE && rhs->u.call.builtin == B_PAD;
  Expr *sl = padded ? rhs->u.call.args[0] : rhs;
  if (op == TK_ASSIGN && is_tensor_slice(sl) && !check_is_gather(sl) && sl->ty.elem == v->elem && rhs->ty.rank == v->rank &&
      (rhs->ty.rank == 1 ? rhs->ty.dims[0] == v->cols : rhs->ty.dims[0] == v->rows && rhs->ty.dims[1] == v->cols) &&
      !names(rhs, v->sym))
    return lower_load(L, b, rhs, sl, padded ? rhs->u.call.args[1] : NULL, v);
  /* a gather too (var a = X[reshape(idx, [64, 1]), k0 + cols(64, 32)]): into v, so that a
   * dot operand gathered in a @pipeline loop fills its stage ring by cp.async as a slice's
   * load does (pipeline.c direct_copy), rather than through a value copied into v */
  if (op == TK_ASSIGN && is_tensor_slice(sl) && check_is_gather(sl) && sl->ty.elem == v->elem && rhs->ty.rank == v->rank &&
      (rhs->ty.rank == 1 ? rhs->ty.dims[0] == v->cols : rhs->ty.dims[0] == v->rows && rhs->ty.dims[1] == v->cols) &&
      !names(rhs, v->sym))
    return lower_gather(L, b, rhs, sl, padded ? rhs->u.call.args[1] : NULL, v);
  /* v = reshape(X[..]) or reshape(pad(X[..], p)): the gather reshape_as_gather makes of it,
   * into v as well (var tok = reshape(I[b, t :+ 16], [16, 1]) at the top of a @pipeline
   * loop is then a load index_value finds, and a gather indexed by tok is issued ahead) */
  if (op == TK_ASSIGN && v->rank == 2 && rhs->kind == E_CALL && rhs->u.call.cast == T_NONE &&
      rhs->u.call.builtin == B_RESHAPE && rhs->ty.elem == v->elem && rhs->ty.rank == 2 && rhs->ty.dims[0] == v->rows &&
      rhs->ty.dims[1] == v->cols && !names(rhs, v->sym)) {
    Expr *a = rhs->u.call.args[0];
    int r0, c0;
    shape_of(&a->ty, &r0, &c0); /* (one of the same shape is the slice's load: hoist_reshape) */
    Expr *g = r0 == v->rows && c0 == v->cols ? NULL : reshape_as_gather(L, rhs);
    if (g) {
      if (!lower_gather(L, b, rhs, g, is_pad(a) ? a->u.call.args[1] : NULL, v)) return false;
      map_value(L, rhs, v); /* the reshape's value is v's (layout.c unpadded_leaf reads the load so) */
      return true;
    }
  }
  /* v = dot(..), v += dot(..), v = e + dot(..): the dot accumulates into v's
   * registers (after v = e), when it does not read v, v has the dot's type
   * (f32; i32 for i8 operands; f64 for f64) and its shape (a product of one
   * row or column broadcast over v is made on its own, then added) */
  const Sym *y = v->sym;
  if (v->rank == 2 && is_dot(rhs) && !is_vector_dot(L, rhs) && v->elem == rhs->ty.elem && (op == TK_ASSIGN || op == TK_ADD_ASSIGN) &&
      !names(rhs, y) && rhs->ty.dims[0] == v->rows && rhs->ty.dims[1] == v->cols)
    return lower_dot(L, b, v, op, rhs);
  if (v->rank == 2 && op == TK_ASSIGN && rhs->kind == E_BINARY && rhs->u.binary.op == TK_PLUS) {
    Expr *d = is_dot(rhs->u.binary.b) ? rhs->u.binary.b : is_dot(rhs->u.binary.a) ? rhs->u.binary.a : NULL;
    Expr *e = d == rhs->u.binary.b ? rhs->u.binary.a : rhs->u.binary.b;
    if (d && !is_vector_dot(L, d) && v->elem == d->ty.elem && !names(d, y) && d->ty.dims[0] == v->rows && d->ty.dims[1] == v->cols)
      return lower_tile_assign(L, b, v, TK_ASSIGN, e) && lower_dot(L, b, v, TK_ADD_ASSIGN, d);
  }
  L->op_elems = v->rows * v->cols;
  bool hoisted = hoist(L, b, rhs);
  L->op_elems = 0;
  if (!hoisted) return false;
  TirOp *o = op_new(L, b, TO_ASSIGN);
  o->dst = v;
  o->op = op;
  o->expr = rhs;
  o->rows = v->rows;
  o->cols = v->cols;
  return true;
}

static bool lower_var(Lower *L, TirBlock *b, Stmt *s) {
  Sym *y = s->u.decl.sym;
  if (y->ty.rank == 0) {
    if (s->u.decl.init && !scalar_ok(L, b, s->u.decl.init)) return false;
    op_new(L, b, TO_SCALAR);
    return true;
  }
  TirVar *v = tir_new_var(L->K, y->ty.elem, y->ty.rank, y->ty.rank == 2 ? y->ty.dims[0] : 1,
                          y->ty.rank == 2 ? y->ty.dims[1] : y->ty.dims[0], arena_printf(L->K->a, "tile %s", y->name));
  v->sym = y;
  v->cname = y->cname;
  TirOp *d = op_new(L, b, TO_DECL);
  d->dst = v;
  return !s->u.decl.init || lower_tile_assign(L, b, v, TK_ASSIGN, s->u.decl.init);
}

/* Whether x reads an element of tensor X (X[i, j] with scalar indices). */
static bool reads_element(const Expr *x, const Sym *X) {
  if (!x) return false;
  switch (x->kind) {
  case E_INDEX:
    if (x->u.index.base->u.ident.sym == X) {
      bool element = true;
      for (int d = 0; d < x->u.index.nidx; d++) element &= x->u.index.idx[d].len == NULL;
      if (element) return true;
    }
    for (int d = 0; d < x->u.index.nidx; d++)
      if (reads_element(x->u.index.idx[d].start, X)) return true;
    return false;
  case E_UNARY: return reads_element(x->u.unary.a, X);
  case E_BINARY: return reads_element(x->u.binary.a, X) || reads_element(x->u.binary.b, X);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (reads_element(x->u.call.args[i], X)) return true;
    return false;
  default: return false;
  }
}

static bool lower_store(Lower *L, TirBlock *b, Stmt *s) {
  Expr *lhs = s->u.assign.lhs, *rhs = s->u.assign.rhs;
  int rank, rows, cols;
  bool scatter = check_is_gather(lhs);
  if (scatter) { /* X[i, j] = e with tile indices: one element per element of their shape */
    if (!gather_indices(L, b, lhs)) return false;
    rank = lhs->ty.rank;
    rows = rank == 2 ? lhs->ty.dims[0] : 1;
    cols = rank == 2 ? lhs->ty.dims[1] : lhs->ty.dims[0];
  } else if (!slice_shape(L, b, lhs, &rank, &rows, &cols)) {
    return false;
  }
  /* a column [M, 1] into a rank-1 scatter [M] (the unit dim drops): the indices are the
   * row [1, M] a rank-1 value is, so the value is read as that row too, as into a
   * rank-1 var (its elements in order; a shared copy, or a tensor slice loaded so) */
  if (scatter && rank == 1 && rhs->ty.rank == 2 && rhs->ty.dims[1] == 1 && rhs->ty.dims[0] > 1)
    rhs = call_node(L, B_RESHAPE, rhs, (Type){rhs->ty.elem, 2, {1, rhs->ty.dims[0]}, false});
  L->op_elems = rows * cols;
  bool hoisted = hoist(L, b, rhs);
  L->op_elems = 0;
  if (!hoisted) return false;
  const Sym *X = lhs->u.index.base->u.ident.sym;
  if (reads_element(rhs, X)) {
    /* the value is read whole before any of it is stored: into a temporary first
     * (sync puts a barrier between), as a statement that reads its target does */
    TirVar *t;
    if (rhs->ty.rank == 0) /* one value for every thread: a scalar of its own */
      t = temp_of(L, b, rhs, rhs->ty.elem, 0, 1, 1, arena_printf(L->K->a, "value at line %d", rhs->loc.line));
    else if (!(t = value_of(L, b, rhs))) {
      return false;
    }
    rhs = tir_read_of(L->K, t);
  }
  note_tensor(L, &L->written, lhs->u.index.base->u.ident.sym);
  TirOp *o = op_new(L, b, TO_STORE);
  o->slice = lhs;
  o->gather = scatter;
  o->op = s->u.assign.op;
  o->atomic = s->u.assign.atomic;
  o->expr = rhs;
  /* one element: every thread stores when the control, the value or an index
   * differs between threads; thread 0 otherwise */
  o->td = L->td > 0 || check_expr_td(rhs);
  for (int d = 0; d < lhs->u.index.nidx; d++) o->td |= check_expr_td(lhs->u.index.idx[d].start);
  /* a [m, 1] value stored into a rank-1 slice runs over its own shape; a
   * [1, 1] one broadcasts over the slice's */
  if (rhs->ty.rank == 2 && rank == 1 && rhs->ty.dims[1] == 1 && rhs->ty.dims[0] > 1) {
    o->rows = rhs->ty.dims[0];
    o->cols = 1;
  } else {
    o->rows = rows;
    o->cols = cols;
  }
  return true;
}

typedef struct Leaves {
  Lower *L;
  TirBlock *b;
  bool ok;
  const TirVar *dst;      /* the tile written through the window */
  const Expr *start[2];   /* the window's first row and column (NULL: 0) */
  int len[2];             /* its rows and columns */
  PtrVec wins;            /* the values it reads from the tensor itself (window_load) */
} Leaves;

static bool zero_start(const Expr *s) {
  int64_t v;
  return !s || (check_const_int(s, &v) && v == 0);
}

/* Whether the window reads hoisted value v (of x) at the element the writing
 * thread holds: a row or column reduction's result, a row value [R, 1] of the
 * tile's rows in a window starting at row 0 (t[0 :+ R, j :+ 1] = rowsum(x)),
 * or a column value [1, C] of its columns in one starting at column 0
 * (t[i :+ 1, 0 :+ C] = colsum(x)). Element (r, c) of the tile reads element r
 * (c) of it, where every thread that holds row r (column c) of a layout holds
 * it when it is a slice of that layout; layout.c reads it there when the tile's
 * layout is that one (or gives the same rows), and through its copy otherwise
 * (relate_leaf, check_leaf), as any op reads such a value. A tile var keeps
 * its copy: its layout is its own. */
static bool window_in_place(const Leaves *lv, const Expr *x, const TirVar *v) {
  if (v->sym || x->kind != E_CALL || x->u.call.cast != T_NONE || (builtin_class[x->u.call.builtin] != BC_RED && !is_arg(x)))
    return false;
  if (v->rows == 1 && v->cols > 1) return v->cols == lv->dst->cols && zero_start(lv->start[1]);
  if (v->cols == 1 && v->rows > 1) return v->rows == lv->dst->rows && zero_start(lv->start[0]);
  return false;
}

/* A slice of a tensor the kernel does not write, of the window's shape, loaded for
 * this statement alone (xx[0 :+ 16, 8 :+ 128] = X[b, d0 :+ 16, l0 :+ 128], a halo
 * tile put together from slices): the window's threads read the tensor at the
 * window's coordinates of their own elements (TirVar.win_of, emit_tir.c value_at),
 * where reading the load's value took a shared copy and a barrier for each slice
 * (conv1d's halo tile: 3 copies and 3 barriers, now only the tile's own). The load
 * stays, never held (TirVar.fused): it prints nothing, and its bounds and vector
 * width (layout.c) are those of the reads, which run over the same coordinates. Not
 * in a @pipeline loop, whose loads pipeline.c may issue ahead. */
static bool window_load(Leaves *lv, const Expr *x, TirVar *v) {
  if (v->sym || v->rows != lv->len[0] || v->cols != lv->len[1] || v->fused) return false;
  TirOp *load = NULL; /* of the slice, or of pad(slice, v) */
  for (int i = lv->b->ops.len - 1; i >= 0 && !load; i--) {
    TirOp *o = lv->b->ops.items[i];
    if (o->dst == v) load = o;
  }
  if (!load || load->kind != TO_LOAD || (load->slice != x && !(load->pad && x->kind == E_CALL && x->u.call.nargs == 2 &&
                                                               x->u.call.args[0] == load->slice)))
    return false;
  if (load->gather || load->slice->u.index.base->u.ident.sym->written) return false;
  /* in a @pipeline loop the slice's load may be issued ahead (pipeline.c): as it was */
  for (int i = 0; i < lv->L->loops_op.len; i++) {
    const Stmt *ls = ((const TirOp *)lv->L->loops_op.items[i])->stmt;
    for (int j = 0; ls && j < ls->nattrs; j++)
      if (ls->attrs[j]->kind == A_PIPELINE) return false;
  }
  v->fused = load;
  vec_push(lv->L->K->a, &lv->wins, v);
  return true;
}

/* A read x of a tile var declared as an expression of rows(), cols(), literals and
 * scalars that hold one value from their declaration on, and never written again
 * (var j = cols(4, 256), a stencil's var red = (rows(..) + cols(..)) % 2 == 0): x
 * becomes a copy of that expression (layout_recompute), which the window's threads
 * compute at their own elements, as they would cols(4, 256) written in its place:
 * a few integer instructions an element, where reading the var costs its shared
 * copy and a barrier (and, in a loop, a shared load an iteration). layout.c does the
 * same for an op that reads such a var in another layout (recomputed). The var is
 * noted (TirKernel.remat): uniform_masks drops it where nothing else reads it. */
static bool recompute_leaf(Lower *L, Expr *x, TirVar *v) {
  const Sym *y = x->kind == E_IDENT ? x->u.ident.sym : NULL;
  if (!y || v->sym != y || y->kind != SY_VAR || y->reassigned || !y->decl || y->decl->kind != S_VAR)
    return false;
  const Expr *init = y->decl->u.decl.init;
  if (!init || init->ty.elem != x->ty.elem || init->ty.rank != x->ty.rank || init->ty.rank != 2 ||
      init->ty.dims[0] != x->ty.dims[0] || init->ty.dims[1] != x->ty.dims[1])
    return false;
  int budget = 24;
  Expr *e = layout_recompute(L->K, init, &budget);
  if (!e) return false;
  Loc at = x->loc;
  *x = *e; /* the statement's own node, read by this op alone */
  x->loc = at;
  if (!vec_has(&L->K->remat, v)) vec_push(L->K->a, &L->K->remat, v);
  return true;
}

/* The tile values e reads (hoisted ones and tile vars) are read through their
 * shared copies instead, at the coordinates the printer gives (the window's),
 * but for a reduction's result that the writing threads hold (window_in_place)
 * and a var computed again in place (recompute_leaf). */
static void copy_leaves(Leaves *lv, Expr *x) {
  Lower *L = lv->L;
  if (!x || !lv->ok || tir_read(L->K, x)) return;
  TirVar *v = tir_hoisted(L->K, x);
  if (!v && x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->ty.rank > 0) v = var_of(L, x->u.ident.sym);
  if (v && v->rank == 2 && v != lv->dst && recompute_leaf(L, x, v)) return;
  if (v) {
    /* a scalar: every thread has it; the window itself (own_window_reads): the writing thread */
    if (v->rank == 0 || window_in_place(lv, x, v) || (v == lv->dst && x->kind == E_INDEX) || window_load(lv, x, v)) return;
    TirRead *r = NEW(L->K->a, TirRead);
    *r = (TirRead){TR_WINDOW, spill(L, lv->b, v, "a partial tile write reads it at other elements"), v->rank,
                   {NULL, NULL}, {true, v->rank == 2}, 0, 0};
    if (r->buf < 0) {
      lv->ok = false;
      return;
    }
    map_read(L, x, r);
    return;
  }
  switch (x->kind) {
  case E_UNARY: copy_leaves(lv, x->u.unary.a); return;
  case E_BINARY: copy_leaves(lv, x->u.binary.a); copy_leaves(lv, x->u.binary.b); return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) copy_leaves(lv, x->u.call.args[i]);
    return;
  default: return;
  }
}

/* A window write y[a :+ m, b :+ n] = e in a loop, e of the window's shape and reading
 * a tile var that the loop writes (a selective scan's state h, one column of the chunk's
 * outputs a step: y[0 :+ BD, t :+ 1] = h * c[0 :+ BD, t :+ 1]), y written nowhere else:
 * e becomes a value of its own, computed where its operands are, and the window write
 * reads that value through its copy. layout.c (forward_windows) then makes the copy
 * y's shared home, where the value's threads write it in place: the step's copy of h
 * and the barrier before y's threads read it go, and y is read (stored) from shared
 * memory after the loop. Not under thread-dependent control, nor for e a reduction's
 * result or a tensor's slice (window_in_place, window_load: read where they are), nor
 * where y is read through a window or an element (its copy: a stencil's rows). */
typedef struct WinWrites {
  const Sym *y;
  int n;       /* statements that write y */
  bool window; /* y read through a window or an element (its copy: no home of its own) */
} WinWrites;

static bool indexes(const Expr *x, const Sym *y) {
  if (!x) return false;
  switch (x->kind) {
  case E_UNARY: return indexes(x->u.unary.a, y);
  case E_BINARY: return indexes(x->u.binary.a, y) || indexes(x->u.binary.b, y);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (indexes(x->u.call.args[i], y)) return true;
    return false;
  case E_INDEX:
    if (x->u.index.base->kind == E_IDENT && x->u.index.base->u.ident.sym == y) return true;
    for (int i = 0; i < x->u.index.nidx; i++)
      if (indexes(x->u.index.idx[i].start, y)) return true;
    return false;
  default: return false;
  }
}

static void win_writes_stmt(Stmt *s, void *ctx) {
  WinWrites *w = ctx;
  switch (s->kind) {
  case S_VAR: case S_CONST: w->window |= indexes(s->u.decl.init, w->y); return;
  case S_IF: w->window |= indexes(s->u.iff.cond, w->y); return;
  case S_WHILE: w->window |= indexes(s->u.whil.cond, w->y); return;
  case S_FOR: w->window |= indexes(s->u.forr.lo, w->y) || indexes(s->u.forr.hi, w->y) || indexes(s->u.forr.step, w->y); return;
  case S_ASSIGN: break;
  default: return;
  }
  const Expr *l = s->u.assign.lhs;
  w->n += (l->kind == E_IDENT ? l->u.ident.sym : l->u.index.base->u.ident.sym) == w->y;
  w->window |= indexes(s->u.assign.rhs, w->y);
  if (l->kind == E_INDEX)
    for (int i = 0; i < l->u.index.nidx; i++) w->window |= indexes(l->u.index.idx[i].start, w->y);
}

static bool written_in(Stmt *loop, const Sym *y) {
  Writes w = {y, false};
  facts_walk_stmts(loop->kind == S_WHILE ? &loop->u.whil.body : &loop->u.forr.body, writes_stmt, &w);
  return w.any;
}

/* Whether x names a tile var other than y that loop writes. */
static bool loop_leaf(const Expr *x, const Sym *y, Stmt *loop) {
  if (!x) return false;
  switch (x->kind) {
  case E_IDENT: return x->u.ident.sym && x->u.ident.sym != y && x->u.ident.sym->kind == SY_VAR &&
                       x->u.ident.sym->ty.rank > 0 && written_in(loop, x->u.ident.sym);
  case E_UNARY: return loop_leaf(x->u.unary.a, y, loop);
  case E_BINARY: return loop_leaf(x->u.binary.a, y, loop) || loop_leaf(x->u.binary.b, y, loop);
  case E_CALL:
    if (x->u.call.cast == T_NONE && (builtin_class[x->u.call.builtin] == BC_RED || x->u.call.builtin == B_TRANSPOSE ||
                                     x->u.call.builtin == B_DOT))
      return false; /* read at other elements anyway (a cast has no builtin) */
    for (int i = 0; i < x->u.call.nargs; i++)
      if (loop_leaf(x->u.call.args[i], y, loop)) return true;
    return false;
  default: return false;
  }
}

static bool forwardable(Lower *L, Stmt *s, const TirVar *v, const int len[2]) {
  const Expr *rhs = s->u.assign.rhs;
  const Sym *y = v->sym;
  if (s->u.assign.op != TK_ASSIGN || L->td || !L->loops || !y || y->place == PL_REGISTER || v->rank != 2 ||
      v->rows < 2 || v->cols < 2 || rhs->ty.rank != 2 || rhs->ty.dims[0] != len[0] || rhs->ty.dims[1] != len[1] ||
      names(rhs, y))
    return false;
  Stmt *loop = ((TirOp *)L->loops_op.items[L->loops_op.len - 1])->stmt;
  if (!loop_leaf(rhs, y, loop)) return false;
  WinWrites w = {y, 0, false};
  facts_walk_stmts(&L->K->k->body, win_writes_stmt, &w);
  return w.n == 1 && !w.window;
}

/* The forwarded window write's value (forwardable): e, hoisted, computed into a value
 * of its own, of y's element type (NULL: e is a value already, hoisted or read). */
static TirVar *temp_of_window(Lower *L, TirBlock *b, Expr *rhs, const TirVar *y, const int len[2]) {
  if (tir_hoisted(L->K, rhs) || tir_read(L->K, rhs)) return NULL;
  Expr *e = NEW(L->K->a, Expr);
  *e = *rhs; /* the value's own node: rhs itself stands for the value, read through its copy */
  TirVar *t = temp_of(L, b, e, y->elem, 2, len[0], len[1],
                      arena_printf(L->K->a, "the value written into %s at line %d", y->sym->name, rhs->loc.line));
  map_value(L, rhs, t);
  return t;
}

/* Whether x reads tile var y through the window lhs writes, index for index
 * (the same starts, the same lengths, a range where lhs has one). */
static bool same_window(const Expr *x, const Expr *lhs) {
  if (!is_tile_index(x) || x->u.index.base->u.ident.sym != lhs->u.index.base->u.ident.sym ||
      x->u.index.nidx != lhs->u.index.nidx)
    return false;
  for (int d = 0; d < x->u.index.nidx; d++) {
    const Index *a = &x->u.index.idx[d], *b = &lhs->u.index.idx[d];
    if (!facts_expr_equal(a->start, b->start) || !a->len != !b->len || (a->len && !facts_expr_equal(a->len, b->len)))
      return false;
  }
  return true;
}

/* The reads in e of the window that the statement writes, t[a :+ m, b :+ n] =
 * f(t[a :+ m, b :+ n]) (a read-modify-write: a selective scan's state row, yc[i
 * :+ 1, 0 :+ C] = colsum(x) + yc[i :+ 1, 0 :+ C]), read t itself: at element (r,
 * c) of the window such a read is element (r, c) of t, which the thread writing
 * it holds, in t's layout, the op's. They went through t's shared copy and a
 * barrier. Only through elementwise nodes: the operand of a reduction or a
 * transpose is read elsewhere, at other elements. */
static void own_window_reads(Lower *L, const Expr *lhs, TirVar *v, Expr *x) {
  if (x->ty.rank == 0) return;
  switch (x->kind) {
  case E_INDEX:
    if (same_window(x, lhs)) map_value(L, x, v);
    return;
  case E_UNARY: own_window_reads(L, lhs, v, x->u.unary.a); return;
  case E_BINARY:
    own_window_reads(L, lhs, v, x->u.binary.a);
    own_window_reads(L, lhs, v, x->u.binary.b);
    return;
  case E_CALL: {
    int bk = x->u.call.builtin;
    if (x->u.call.cast == T_NONE && builtin_class[bk] != BC_MATH1 && builtin_class[bk] != BC_MATH2 && bk != B_WHERE)
      return;
    for (int i = 0; i < x->u.call.nargs; i++) own_window_reads(L, lhs, v, x->u.call.args[i]);
    return;
  }
  default: return;
  }
}

/* t[a :+ m, b :+ n] = e (an index for a dim: one row or column). Over the
 * whole of t it is an assignment to t; over part of it, the threads holding the
 * window's elements write them, reading e's tile values through shared copies. */
static bool lower_window_write(Lower *L, TirBlock *b, Stmt *s) {
  Expr *lhs = s->u.assign.lhs, *rhs = s->u.assign.rhs;
  const Sym *y = lhs->u.index.base->u.ident.sym;
  TirVar *v = y ? var_of(L, y) : NULL;
  if (!v || lhs->u.index.nidx != y->ty.rank) return fail(L, "a scatter");
  bool whole = true;
  Expr *start[2] = {NULL, NULL};
  int len[2] = {1, 1};
  for (int d = 0; d < y->ty.rank; d++) {
    Index *ix = &lhs->u.index.idx[d];
    int64_t st, n = 1;
    if (!scalar_ok(L, b, ix->start) || (ix->len && !check_const_int(ix->len, &n))) return fail(L, "a window length");
    whole &= check_const_int(ix->start, &st) && st == 0 && n == y->ty.dims[d];
    /* a rank-1 tile is [1, n]: its dim is the column */
    int k = y->ty.rank == 1 ? 1 : d;
    start[k] = ix->start;
    len[k] = (int)n;
  }
  if (whole) return lower_tile_assign(L, b, v, s->u.assign.op, rhs);
  own_window_reads(L, lhs, v, rhs);
  if (!hoist(L, b, rhs)) return false;
  TirVar *fwd = forwardable(L, s, v, len) ? temp_of_window(L, b, rhs, v, len) : NULL;
  Leaves lv = {L, b, true, v, {start[0], start[1]}, {len[0], len[1]}, {0}};
  copy_leaves(&lv, rhs);
  if (!lv.ok) return false;
  TirOp *o = op_new(L, b, TO_ASSIGN);
  for (int i = 0; i < lv.wins.len; i++) ((TirVar *)lv.wins.items[i])->win_of = o;
  o->dst = v;
  o->op = s->u.assign.op;
  o->expr = rhs;
  o->rows = v->rows;
  o->cols = v->cols;
  o->has_win = true;
  o->win[0] = start[0];
  o->win[1] = start[1];
  o->win_len[0] = len[0];
  o->win_len[1] = len[1];
  o->fwd = fwd;
  return true;
}

static bool lower_assign(Lower *L, TirBlock *b, Stmt *s) {
  Expr *lhs = s->u.assign.lhs;
  if (lhs->kind == E_IDENT) {
    Sym *y = lhs->u.ident.sym;
    if (y->ty.rank == 0) {
      if (!scalar_ok(L, b, s->u.assign.rhs)) return false;
      op_new(L, b, TO_SCALAR);
      return true;
    }
    TirVar *v = var_of(L, y);
    if (!v) return fail(L, "an assignment to an undeclared tile");
    return lower_tile_assign(L, b, v, s->u.assign.op, s->u.assign.rhs);
  }
  if (!is_tensor_slice(lhs)) return lower_window_write(L, b, s);
  return lower_store(L, b, s);
}

/* A while condition with ops of its own (sum() into a scalar value, a tile's
 * element read from the tile's shared copy): they run before the loop, and
 * again, the same ops into the same values, before each next test: at the end
 * of the body and before each continue of the loop. Every thread must run
 * them (sum()'s fold across warps and the copy's read need barriers): no
 * thread may leave the loop, or an iteration, apart from the others. */
static bool while_cond_ok(Lower *L, bool td) {
  if (td || L->td) return fail(L, "sum() or a tile's element in the condition of a while that threads leave apart");
  return true;
}

/* The condition's ops again into b, for the next test (each value declared once, before the loop). */
static void cond_again(Lower *L, TirBlock *b, const TirBlock *cond, Stmt *s) {
  for (int i = 0; cond && i < cond->ops.len; i++) {
    const TirOp *c0 = cond->ops.items[i];
    if (c0->kind == TO_DECL) continue;
    TirOp *c = tir_new_op(L->K, b, c0->kind, s);
    *c = *c0;
    c->first = false;
  }
}

/* The var, tile or tensor an assignment (or atomic) writes. */
static const Sym *written_sym(const Expr *l) {
  while (l && l->kind == E_INDEX) l = l->u.index.base;
  return l && l->kind == E_IDENT ? l->u.ident.sym : NULL;
}

static bool block_writes_named(const Block *b, const Expr *x);

/* Whether s (or a statement inside it) writes something x names. */
static bool stmt_writes_named(const Stmt *s, const Expr *x) {
  if (!s) return false;
  switch (s->kind) {
  case S_ASSIGN: {
    const Sym *y = written_sym(s->u.assign.lhs);
    return y && tir_names_sym(x, y);
  }
  case S_FOR: return block_writes_named(&s->u.forr.body, x);
  case S_WHILE: return block_writes_named(&s->u.whil.body, x);
  case S_IF: return block_writes_named(&s->u.iff.then, x) || stmt_writes_named(s->u.iff.els, x);
  case S_BLOCK: return block_writes_named(&s->u.block, x);
  default: return false;
  }
}

static bool block_writes_named(const Block *b, const Expr *x) {
  for (int i = 0; i < b->nstmts; i++)
    if (stmt_writes_named(b->stmts[i], x)) return true;
  return false;
}

static bool lower_control(Lower *L, TirBlock *b, Stmt *s) {
  TirOp *o = NULL;
  bool td;
  int ncur = L->current.len; /* (at_entry: pushed once the loop's op exists) */
  void **cur = ncur ? arena_alloc(L->K->a, (size_t)ncur * sizeof *cur) : NULL;
  if (ncur) memcpy(cur, L->current.items, (size_t)ncur * sizeof *cur);
  L->current.len = 0; /* copies are tracked in straight-line code only */
  switch (s->kind) {
  case S_FOR:
    /* @unroll, and @pipeline (pipeline.c) */
    if (!scalar_ok(L, b, s->u.forr.lo) || !scalar_ok(L, b, s->u.forr.hi) ||
        (s->u.forr.step && !scalar_ok(L, b, s->u.forr.step)))
      return false;
    td = check_expr_td(s->u.forr.lo) || check_expr_td(s->u.forr.hi) ||
         (s->u.forr.step && check_expr_td(s->u.forr.step)) || check_loop_divergent(&s->u.forr.body);
    o = op_new(L, b, TO_FOR);
    /* range(a, b, step) takes b and step as they are when the loop starts */
    if (!(s->u.forr.hi->flags & EF_CONST) && block_writes_named(&s->u.forr.body, s->u.forr.hi)) o->once |= TIR_ONCE_END;
    if (s->u.forr.step && !(s->u.forr.step->flags & EF_CONST) && block_writes_named(&s->u.forr.body, s->u.forr.step))
      o->once |= TIR_ONCE_STEP;
    o->td = td || L->td;
    L->td += td;
    L->loops++;
    for (int i = 0; i < ncur; i++) vec_push(L->K->a, &L->at_entry, o), vec_push(L->K->a, &L->at_entry, cur[i]);
    vec_push(L->K->a, &L->loops_op, o);
    vec_push(L->K->a, &L->loops_in, b);
    vec_push(L->K->a, &L->loops_cond, NULL);
    if (!lower_block(L, &o->body, &s->u.forr.body)) return false;
    L->loops_op.len--, L->loops_in.len--, L->loops_cond.len--;
    L->loops--;
    L->td -= td;
    return true;
  case S_WHILE: {
    TirBlock cond = {0};
    if (!scalar_ok(L, &cond, s->u.whil.cond)) return false;
    td = check_expr_td(s->u.whil.cond) || check_loop_divergent(&s->u.whil.body);
    if (cond.ops.len && !while_cond_ok(L, td)) return false;
    for (int i = 0; i < cond.ops.len; i++) vec_push(L->K->a, &b->ops, cond.ops.items[i]);
    o = op_new(L, b, TO_WHILE);
    o->td = td || L->td;
    L->td += td;
    L->loops++;
    for (int i = 0; i < ncur; i++) vec_push(L->K->a, &L->at_entry, o), vec_push(L->K->a, &L->at_entry, cur[i]);
    vec_push(L->K->a, &L->loops_op, o);
    vec_push(L->K->a, &L->loops_in, b);
    vec_push(L->K->a, &L->loops_cond, cond.ops.len ? &cond : NULL);
    if (!lower_block(L, &o->body, &s->u.whil.body)) return false;
    cond_again(L, &o->body, L->loops_cond.items[L->loops_cond.len - 1], s);
    L->loops_op.len--, L->loops_in.len--, L->loops_cond.len--;
    L->loops--;
    L->td -= td;
    return true;
  }
  case S_IF:
    if (!scalar_ok(L, b, s->u.iff.cond)) return false;
    td = check_expr_td(s->u.iff.cond);
    o = op_new(L, b, TO_IF);
    o->td = td || L->td;
    L->td += td;
    if (!lower_block(L, &o->body, &s->u.iff.then)) return false;
    if (s->u.iff.els) {
      o->has_els = true;
      L->current.len = 0; /* the copies the then-branch made are not made on this path */
      if (s->u.iff.els->kind == S_BLOCK) {
        if (!lower_block(L, &o->els, &s->u.iff.els->u.block)) return false;
      } else {
        Block one = {&s->u.iff.els, 1, {0, 0}};
        if (!lower_block(L, &o->els, &one)) return false;
      }
    }
    L->td -= td;
    return true;
  default: unreachable();
  }
}

static bool lower_stmt(Lower *L, TirBlock *b, Stmt *s) {
  L->stmt = s;
  L->first = true;
  L->spilled.len = 0;
  int ops = b->ops.len;
  bool ok;
  switch (s->kind) {
  case S_CONST: return true;
  case S_VAR: ok = lower_var(L, b, s); break;
  case S_ASSIGN: ok = lower_assign(L, b, s); break;
  case S_FOR: case S_WHILE: case S_IF:
    ok = lower_control(L, b, s);
    L->current.len = 0;
    return ok;
  case S_BREAK: op_new(L, b, TO_BREAK); return true;
  case S_CONTINUE: /* the loop's while condition first, for the next test */
    cond_again(L, b, L->loops_cond.items[L->loops_cond.len - 1], s);
    op_new(L, b, TO_CONTINUE);
    return true;
  case S_BLOCK: return lower_block(L, b, &s->u.block);
  case S_EXPR: unreachable();
  default: unreachable();
  }
  /* a value written here has a stale copy */
  for (int i = ops; i < b->ops.len; i++) {
    const TirOp *o = b->ops.items[i];
    if (o->dst && o->kind != TO_SPILL)
      for (int j = 0; j < L->K->nbufs; j++)
        if (L->K->bufs[j].spill_of == o->dst) {
          drop(&L->current, &L->K->bufs[j]);
          for (int k = 0; k + 1 < L->made_before.len; k += 2) /* (block, buf) pairs */
            if (L->made_before.items[k + 1] == &L->K->bufs[j]) {
              L->made_before.items[k] = L->made_before.items[L->made_before.len - 2];
              L->made_before.items[k + 1] = L->made_before.items[L->made_before.len - 1];
              L->made_before.len -= 2;
              k -= 2;
            }
        }
  }
  /* a barrier may not sit under thread-dependent control: no shared traffic there */
  if (ok && L->td)
    for (int i = ops; i < b->ops.len; i++) {
      TirOpKind k = ((TirOp *)b->ops.items[i])->kind;
      if (k == TO_SPILL || k == TO_SUM || k == TO_COLREDUCE || k == TO_REDUCE || k == TO_DOT || k == TO_SCAN)
        return fail(L, "a tile read under thread-dependent control");
    }
  return ok;
}

static bool lower_block(Lower *L, TirBlock *out, Block *b) {
  for (int i = 0; i < b->nstmts; i++)
    if (!lower_stmt(L, out, b->stmts[i])) return false;
  return true;
}

/* ------------------------------------------------------------ one copy for a transpose */

/* t = transpose(u) whose own copy is then made for reads at other elements
 * (t[0 :+ R, j :+ 8] windows in a loop) would cost two copies that hold the
 * same elements, one the other's transpose: u's, which only the transpose
 * reads, and t's, made from the registers the transpose just filled (two
 * copies and two barriers). Instead u's registers go straight into t's copy
 * stored transposed (TirBuf.trans: element (r, c) of u at c * pitch + r, which
 * is where element (c, r) of t is read), the transpose reads t's own elements
 * from it, and u's copy and t's spill are gone: one copy, one barrier. */
typedef struct BufUse {
  int bu, bt;          /* u's copy and t's */
  int bu_other;        /* ops and reads of bu other than the spill and the transpose */
  int bt_writes;       /* spills to bt, and ops that read it other than by a TirRead */
  const TirOp *a, *b;  /* the spill of u, the transpose */
} BufUse;

static void buf_uses(const TirBlock *blk, BufUse *u) {
  for (int i = 0; i < blk->ops.len; i++) {
    const TirOp *op = blk->ops.items[i];
    buf_uses(&op->body, u);
    buf_uses(&op->els, u);
    bool uses = op->kind == TO_SPILL || op->kind == TO_DOT || op->kind == TO_COLREDUCE; /* op->buf */
    if (uses && op->buf == u->bu && op != u->a) u->bu_other++;
    if (op->kind == TO_DOT && op->buf2 == u->bu) u->bu_other++;
    if (uses && op->buf == u->bt) u->bt_writes++;
    if (op->kind == TO_DOT && op->buf2 == u->bt) u->bt_writes++;
  }
}

/* Between the transpose and t's spill: declarations, loads, copies and
 * register assignments that touch neither t nor its copy (nor u's, which
 * nothing but the transpose may read: one_transposed_copy). */
static bool passes(const TirKernel *K, const TirOp *op, const TirVar *t, int bu) {
  switch (op->kind) {
  case TO_DECL: case TO_LOAD: break;
  case TO_SPILL: if (op->buf == bu) return false; break;
  case TO_ASSIGN: if (op->has_win || op->win[0] || op->win[1]) return false; break;
  default: return false;
  }
  return !tir_op_touches(K, op, t);
}

/* t's spill after the transpose b = ops[i + 1] in ops, or -1. */
static int spill_after(const TirKernel *K, const PtrVec *ops, int i, const TirVar *t, int bu) {
  for (int k = i + 2; k < ops->len; k++) {
    const TirOp *op = ops->items[k];
    if (op->kind == TO_SPILL && op->dst == t) return k;
    if (!passes(K, op, t, bu)) return -1;
  }
  return -1;
}

static void renumber(TirBlock *blk, int gone) {
  for (int i = 0; i < blk->ops.len; i++) {
    TirOp *op = blk->ops.items[i];
    renumber(&op->body, gone);
    renumber(&op->els, gone);
    if (op->buf > gone) op->buf--;
    if (op->buf2 > gone) op->buf2--;
  }
}

/* Buffer gone is read and written by nothing: it leaves K->bufs. */
static void drop_buf(TirKernel *K, int gone) {
  renumber(&K->body, gone);
  for (int i = 0; i < K->rvals.len; i++) {
    TirRead *rd = K->rvals.items[i];
    if (rd->buf > gone) rd->buf--;
  }
  memmove(&K->bufs[gone], &K->bufs[gone + 1], (size_t)(K->nbufs - gone - 1) * sizeof K->bufs[0]);
  memset(&K->bufs[--K->nbufs], 0, sizeof K->bufs[0]);
}

/* Whether an op other than t's declaration, the transpose b and t's spill c
 * reads or writes t's registers (t's copy has no spill_of while this is asked:
 * what reads the copy does not read them). */
static bool held_elsewhere(const TirKernel *K, const TirBlock *blk, const TirVar *t, const TirOp *b, const TirOp *c) {
  for (int i = 0; i < blk->ops.len; i++) {
    const TirOp *op = blk->ops.items[i];
    if (held_elsewhere(K, &op->body, t, b, c) || held_elsewhere(K, &op->els, t, b, c)) return true;
    if (op != b && op != c && !(op->kind == TO_DECL && op->dst == t) && tir_op_mentions(K, op, t, NULL)) return true;
  }
  return false;
}

/* t, read only at other threads' elements, which are read from the copy, is
 * not held at all: its declaration and the transpose into its registers go,
 * and so does t (nvcc: "set but never used"). */
static void drop_writes(TirBlock *blk, const TirVar *t, const TirOp *b) {
  for (int i = blk->ops.len - 1; i >= 0; i--) {
    TirOp *op = blk->ops.items[i];
    drop_writes(&op->body, t, b);
    drop_writes(&op->els, t, b);
    if (op == b || (op->kind == TO_DECL && op->dst == t)) tir_drop_op(&blk->ops, i);
  }
}

static void drop_unheld(TirKernel *K, TirVar *t, TirOp *b) {
  drop_writes(&K->body, t, b);
  tir_drop_var(K, t);
}

static bool one_transposed_copy(TirKernel *K, TirBlock *blk, int i) {
  PtrVec *ops = &blk->ops;
  TirOp *a = ops->items[i], *b = ops->items[i + 1];
  TirRead *rd = b->expr ? tir_read(K, b->expr) : NULL;
  if (a->kind != TO_SPILL || b->kind != TO_ASSIGN || b->op != TK_ASSIGN || b->has_win || b->win[0] || b->win[1] || !rd ||
      rd->kind != TR_TRANSPOSE || rd->buf != a->buf || !b->dst || b->dst->rank != 2)
    return false;
  TirVar *u = a->dst, *t = b->dst;
  /* a @registers t keeps its copy, and the warning that says so */
  if (t->sym && t->sym->place == PL_REGISTER) return false;
  int k = spill_after(K, ops, i, t, a->buf);
  if (k < 0) return false;
  TirOp *c = ops->items[k];
  BufUse use = {a->buf, c->buf, 0, 0, a, b};
  TirBuf *fu = &K->bufs[use.bu], *f = &K->bufs[use.bt];
  if (fu->operand || fu->trans || f->operand || f->trans || fu->spill_of != u || f->spill_of != t) return false;
  buf_uses(&K->body, &use);
  for (int j = 0; j < K->rvals.len; j++)
    if (K->rvals.items[j] != rd && ((TirRead *)K->rvals.items[j])->buf == use.bu) use.bu_other++;
  for (int j = 0; j < K->nbufs; j++) /* another copy of u (a dot operand's) would be taken for this one */
    if (j != use.bu && K->bufs[j].spill_of == u) use.bu_other++;
  if (use.bu_other || use.bt_writes != 1) return false;
  /* a t held in registers too that is too large for them would live in a copy of its own
   * (TirVar.home, layout.c): the one it has already */
  f->spill_of = NULL;
  bool held = held_elsewhere(K, &K->body, t, b, c);
  f->spill_of = t;
  if (held && (int64_t)t->rows * t->cols * (elem_bytes[t->elem] > 4 ? 2 : 1) > (int64_t)MAX_REGS * K->ki->threads)
    return false;
  /* t's [C, R] copy, pitch R + 1, becomes u's [R, C] one stored transposed, written where u's was: it
   * alternates halves as u's did (t's, made before a loop of the same block, did not) */
  f->what = arena_printf(K->a, "%s, written transposed from %s", f->what, u->sym ? u->sym->name : u->what);
  f->spill_of = u;
  f->trans_of = t;
  f->rows = u->rows;
  f->cols = u->cols;
  f->trans = true;
  f->one_half = fu->one_half;
  f->alternating = fu->alternating && tir_buf_elems(f) * elem_bytes[f->elem] <= TIR_ALT_COPY_BYTES;
  tir_buf_size(f);
  a->buf = use.bt;
  *rd = (TirRead){TR_WINDOW, use.bt, 2, {NULL, NULL}, {true, true}, 0, 0};
  tir_drop_op(ops, k);
  drop_buf(K, use.bu);
  if (!held) drop_unheld(K, t, b);
  return true;
}

static void one_copy_per_transpose(TirKernel *K, TirBlock *blk) {
  for (int i = 0; i < blk->ops.len; i++) {
    TirOp *op = blk->ops.items[i];
    one_copy_per_transpose(K, &op->body);
    one_copy_per_transpose(K, &op->els);
    if (i + 1 < blk->ops.len && one_transposed_copy(K, blk, i)) i = -1; /* ops went: from the top again */
  }
}

/* A tensor the kernel writes is tracked like a shared buffer: a thread may
 * read, or overwrite, an element another thread of the block wrote (sync.c). */
static bool track_tensors(Lower *L) {
  TirKernel *K = L->K;
  for (int i = 0; i < L->written.len; i++) {
    if (K->nbufs == TIR_MAX_BUFS) return fail(L, "too many buffers");
    TirBuf *f = &K->bufs[K->nbufs++];
    const Sym *X = L->written.items[i];
    f->cname = X->cname;
    f->what = arena_printf(K->a, "tensor %s", X->name);
    f->elem = X->ty.elem;
    f->tensor = X;
  }
  return true;
}

TirKernel *lower_kernel(Arena *a, Diag *d, Kernel *k, const TargetConfig *t, const char **why, Loc *at) {
  TirKernel *K = NEW(a, TirKernel);
  K->a = a;
  K->d = d;
  K->k = k;
  K->ki = k->info;
  K->t = t;
  K->hw = hw_path(t);
  Lower L = {.K = K};
  facts_budget_reset();
  facts_mark_reassigned(&k->body);
  if (!lower_block(&L, &K->body, &k->body)) {
    *why = L.why;
    if (at) *at = L.at;
    return NULL;
  }
  one_copy_per_transpose(K, &K->body);
  if (!track_tensors(&L)) {
    *why = L.why;
    if (at) *at = L.at;
    return NULL;
  }
  return K;
}
