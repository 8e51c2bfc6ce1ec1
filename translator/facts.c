/* facts.c: what the translator can prove about indices and sizes.
 *
 * Bounds checks are dropped, and 16-byte accesses chosen, only where these
 * proofs hold for every execution: constant folding, loop bounds and steps,
 * @grid and @assume (KernelInfo.assumes). Both the legacy emitter and the tile
 * IR's stages (lower.c, layout.c) ask here; nothing here prints code.
 */
#include "t2c.h"

#include <inttypes.h>
#include <stdint.h>

/* The vars facts_resolve may still follow while one kernel is translated: the proofs
 * here and in sync.c follow each var to its value at every reading, so a chain of vars
 * each read twice (a1 = min(a0, a0), a2 = min(a1, a1), ..) would take 2^n steps. Past
 * the budget a var stands for itself, which proves less (a check kept, a barrier
 * kept), never more; a kernel a person writes takes a few thousand. */
enum { RESOLVE_BUDGET = 1 << 22 };
static _Thread_local long resolve_left = RESOLVE_BUDGET; /* per thread: libtile2cu translates on several */

void facts_budget_reset(void) { resolve_left = RESOLVE_BUDGET; }

/* A scalar var assigned only at its declaration stands for its initial value. */
const Expr *facts_resolve(const Expr *x) {
  for (int depth = 0; depth < 16 && x->kind == E_IDENT && x->u.ident.sym; depth++) {
    const Sym *y = x->u.ident.sym;
    if (y->kind != SY_VAR || y->ty.rank != 0 || y->reassigned || !y->decl->u.decl.init) break;
    if (resolve_left <= 0) break;
    resolve_left--;
    x = y->decl->u.decl.init;
  }
  return x;
}

/* Calls fn on every statement of b and of the blocks inside it, outer first. */
void facts_walk_stmts(Block *b, void (*fn)(Stmt *, void *), void *ctx) {
  for (int i = 0; i < b->nstmts; i++) {
    Stmt *s = b->stmts[i];
    fn(s, ctx);
    switch (s->kind) {
    case S_FOR: facts_walk_stmts(&s->u.forr.body, fn, ctx); break;
    case S_WHILE: facts_walk_stmts(&s->u.whil.body, fn, ctx); break;
    case S_BLOCK: facts_walk_stmts(&s->u.block, fn, ctx); break;
    case S_IF:
      facts_walk_stmts(&s->u.iff.then, fn, ctx);
      if (s->u.iff.els) {
        Block one = {&s->u.iff.els, 1, {0, 0}};
        facts_walk_stmts(&one, fn, ctx);
      }
      break;
    default: break;
    }
  }
}

/* A write through a window (t[0 :+ 4, :] = ..) changes the var as much as a whole
 * assignment: the tile var no longer holds only its declaration's value. */
static void reassigned_stmt(Stmt *s, void *ctx) {
  (void)ctx;
  if (s->kind != S_ASSIGN) return;
  const Expr *l = s->u.assign.lhs;
  if (l->kind == E_INDEX) l = l->u.index.base;
  if (!(l->kind == E_IDENT && l->u.ident.sym && l->u.ident.sym->kind == SY_VAR)) return;
  Sym *y = (Sym *)l->u.ident.sym;
  y->reassigned = true;
  if (y->ty.rank || l != s->u.assign.lhs) return;
  for (int i = 0; i < y->nassigns && i < 8; i++)
    if (y->assigns[i] == s) return; /* (marked again: check.c, then lower.c) */
  if (y->nassigns < 8) y->assigns[y->nassigns] = s;
  if (y->nassigns <= 8) y->nassigns++;
}

void facts_mark_reassigned(Block *b) { facts_walk_stmts(b, reassigned_stmt, NULL); }


/* The bits of an unsigned integer type (bool: 1), or 0. */
static int unsigned_bits(ElemType t) { return t == T_BOOL ? 1 : t == T_U8 ? 8 : t == T_U32 ? 32 : 0; }

/* A cast of an unsigned value to an integer type that holds all of its values: i32(x) of
 * a u8, i64(x) of a u32. */
static bool widening_cast(const Expr *x) {
  if (x->kind != E_CALL || x->u.call.cast == T_NONE || x->u.call.nargs != 1) return false;
  int b = unsigned_bits(x->u.call.args[0]->ty.elem);
  ElemType t = x->u.call.cast;
  return b && (t == T_I64 || t == T_U32 || (t == T_I32 && b < 32));
}

static bool nonneg_in(const Expr *x, int *work);

/* A scalar var assigned after its declaration is never negative where its initial value is not
 * and every assignment keeps it so: = of a value that is not, or +=, *=, /= of one (`var qs = 0;
 * if causal != 0 { qs = k0 }`, the start of a causal loop). By induction over the assignments in
 * the order they run: within the proof the var itself (and each var the proof reaches again)
 * counts as non-negative. */
static bool assigned_nonneg(Sym *y, int *work) {
  if (y->nonneg_visit) return true;
  if (y->nassigns > 8 || !y->decl || y->decl->kind != S_VAR || !y->decl->u.decl.init) return false;
  y->nonneg_visit = true;
  bool ok = nonneg_in(y->decl->u.decl.init, work);
  for (int i = 0; ok && i < y->nassigns; i++) {
    const Stmt *a = y->assigns[i];
    TokenKind op = a->u.assign.op;
    ok = (op == TK_ASSIGN || op == TK_ADD_ASSIGN || op == TK_MUL_ASSIGN || op == TK_DIV_ASSIGN) &&
         nonneg_in(a->u.assign.rhs, work);
  }
  y->nonneg_visit = false;
  return ok;
}

/* *work: the nodes a proof may still visit (a chain of vars each read twice, a1 = a0 + a0,
 * a2 = a1 + a1, .., would take 2^n steps): past it, not proven. */
static bool nonneg_in(const Expr *x, int *work) {
  if (--*work < 0) return false;
  x = facts_resolve(x);
  if (x->flags & EF_CONST) return !x->cv.isf && x->cv.i >= 0;
  if (unsigned_bits(x->ty.elem) && unsigned_bits(x->ty.elem) < 32) return true; /* a u8 value, a bool */
  if (widening_cast(x)) return true;
  switch (x->kind) {
  case E_CTX: return true;
  case E_IDENT: {
    Sym *y = x->u.ident.sym;
    if (!y) return false;
    if (y->kind == SY_SIZE) return true;
    if (y->kind == SY_SCALAR) return y->assumed_nonneg;
    if (y->kind == SY_LOOP) return nonneg_in(y->decl->u.forr.lo, work);
    /* a tile var assigned only at its declaration (facts_resolve follows scalars) */
    if (y->kind == SY_VAR && y->ty.rank > 0 && !y->reassigned && y->decl && y->decl->kind == S_VAR && y->decl->u.decl.init)
      return nonneg_in(y->decl->u.decl.init, work);
    if (y->kind == SY_VAR && y->ty.rank == 0 && y->reassigned) return assigned_nonneg(y, work);
    return false;
  }
  case E_BINARY:
    switch (x->u.binary.op) {
    case TK_AND: /* a non-negative mask: x & 255 of any x */
      return nonneg_in(x->u.binary.a, work) || nonneg_in(x->u.binary.b, work);
    case TK_PERCENT: /* C's truncated remainder takes the dividend's sign, whatever the divisor's: a
                        grouped tile order's ctx.block.x % per % gm, gm a min() of a difference */
      return nonneg_in(x->u.binary.a, work);
    case TK_PLUS: case TK_STAR: case TK_SLASH: case TK_SHL: case TK_SHR:
    case TK_OR: case TK_XOR:
      return nonneg_in(x->u.binary.a, work) && nonneg_in(x->u.binary.b, work);
    default: return false;
    }
  case E_CALL:
    if (x->u.call.cast == T_NONE && (x->u.call.builtin == B_ROWS || x->u.call.builtin == B_COLS)) return true;
    if (x->u.call.builtin != B_CDIV && x->u.call.builtin != B_MIN && x->u.call.builtin != B_MAX)
      return false;
    for (int i = 0; i < x->u.call.nargs; i++) {
      bool nn = nonneg_in(x->u.call.args[i], work);
      if (x->u.call.builtin == B_MAX && nn) return true; /* max(e, 0) */
      if (x->u.call.builtin != B_MAX && !nn) return false;
    }
    return x->u.call.builtin != B_MAX;
  default: return false;
  }
}

bool facts_nonneg(const Expr *x) {
  int work = 4096;
  return nonneg_in(x, &work);
}

/* A lower bound lb of integer x in every execution, where one is known: a constant; a
 * size (0, or what an @assume gives); ctx.block (0) and ctx.blocks (1); sums, and
 * products of non-negative bounds. */
static bool lower_bound(const KernelInfo *ki, const Expr *x, int64_t *lb) {
  const int64_t big = (int64_t)1 << 40;
  x = facts_resolve(x);
  if (x->ty.rank || x->ty.elem == T_F32 || x->ty.elem == T_F64 || x->ty.elem == T_F16 || x->ty.elem == T_BF16) return false;
  if (x->flags & EF_CONST) return !x->cv.isf && (*lb = x->cv.i, x->cv.i > -big && x->cv.i < big);
  switch (x->kind) {
  case E_CTX:
    *lb = x->u.ctx >= CTX_BLOCKS_X && x->u.ctx <= CTX_BLOCKS_Z ? 1 : 0;
    return x->u.ctx >= CTX_BLOCK_X && x->u.ctx <= CTX_BLOCKS_Z;
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y || y->kind != SY_SIZE) return false;
    *lb = 0;
    for (int i = 0; ki && i < ki->nassumes; i++)
      if (ki->assumes[i].size == y && ki->assumes[i].min != INT64_MIN && ki->assumes[i].min > *lb && ki->assumes[i].min < big)
        *lb = ki->assumes[i].min;
    return true;
  }
  case E_BINARY: {
    int64_t a, b;
    if (!lower_bound(ki, x->u.binary.a, &a) || !lower_bound(ki, x->u.binary.b, &b)) return false;
    if (x->u.binary.op == TK_PLUS) return *lb = a + b, true;
    if (x->u.binary.op == TK_STAR && a >= 0 && b >= 0 && a < big && b < big && (a == 0 || b < big / a)) return *lb = a * b, true;
    return false;
  }
  default: return false;
  }
}

bool facts_at_least(const KernelInfo *ki, const Expr *x, int64_t v) {
  int64_t lb;
  return lower_bound(ki, x, &lb) && lb >= v;
}

const Sym *facts_as_size(const Expr *x) {
  return x && x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->kind == SY_SIZE ? x->u.ident.sym : NULL;
}

/* @assume(S % m == 0) with m a multiple of `of`. */
bool facts_assumed_multiple(const KernelInfo *ki, const Sym *size, int64_t of) {
  for (int i = 0; i < ki->nassumes; i++) {
    Assume *a = &ki->assumes[i];
    if (a->size == size && a->mod > 0 && a->mod % of == 0) return true;
  }
  return false;
}

bool facts_assumed_at_least(const KernelInfo *ki, const Sym *size, int64_t v) {
  for (int i = 0; i < ki->nassumes; i++) {
    Assume *a = &ki->assumes[i];
    if (a->size == size && a->min != INT64_MIN && a->min >= v) return true;
  }
  return false;
}

/* ctx.block.A * c, c * ctx.block.A or ctx.block.A (c = 1): returns the axis, or -1. */
static int block_times(const Expr *x, int64_t *c) {
  if (x->kind == E_CTX && x->u.ctx >= CTX_BLOCK_X && x->u.ctx <= CTX_BLOCK_Z) {
    *c = 1;
    return x->u.ctx - CTX_BLOCK_X;
  }
  if (x->kind != E_BINARY || x->u.binary.op != TK_STAR) return -1;
  const Expr *a = facts_resolve(x->u.binary.a), *b = facts_resolve(x->u.binary.b); /* var g = ctx.block.x; g * 4 */
  if (b->kind == E_CTX && b->u.ctx >= CTX_BLOCK_X && b->u.ctx <= CTX_BLOCK_Z) {
    const Expr *t = a;
    a = b;
    b = t;
  }
  if (a->kind == E_CTX && a->u.ctx >= CTX_BLOCK_X && a->u.ctx <= CTX_BLOCK_Z && check_const_int(b, c))
    return a->u.ctx - CTX_BLOCK_X;
  return -1;
}

/* The largest value loop variable v takes, when its range's end b is a constant:
 * lo + (b - 1 - lo) / step * step with a constant start lo and a positive
 * constant step (range(0, 256, 64): 192), else b - 1. */
static bool loop_max(const Sym *v, int64_t *max) {
  const Stmt *f = v->decl;
  int64_t lo, hi, st = 1;
  if (!check_const_int(f->u.forr.hi, &hi)) return false;
  *max = hi - 1;
  if (check_const_int(f->u.forr.lo, &lo) && (!f->u.forr.step || check_const_int(f->u.forr.step, &st)) && st > 0 &&
      lo < hi)
    *max = lo + (hi - 1 - lo) / st * st;
  return true;
}

/* The largest value a non-negative integer x takes, by its type or its form: a u8 value
 * or a widening cast of one (255), x & c (c), x % c of a non-negative x (c - 1), a loop
 * variable of a constant range, and sums, products and quotients by constants of those. */
static bool value_max(const Expr *x, int64_t *m) {
  x = facts_resolve(x);
  int64_t c;
  if (check_const_int(x, m)) return true;
  int b = unsigned_bits(x->ty.elem);
  if (b && b < 32) return *m = ((int64_t)1 << b) - 1, true;
  if (widening_cast(x) && unsigned_bits(x->u.call.args[0]->ty.elem) < 32)
    return *m = ((int64_t)1 << unsigned_bits(x->u.call.args[0]->ty.elem)) - 1, true;
  if (x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->kind == SY_LOOP) return loop_max(x->u.ident.sym, m);
  if (x->kind != E_BINARY) return false;
  const Expr *a = x->u.binary.a, *k = x->u.binary.b;
  int64_t ma, mk;
  bool ha, hk;
  switch (x->u.binary.op) { /* + and * of non-negative operands: the caller's facts_nonneg(x) says so */
  case TK_PLUS: case TK_STAR:
    if (!value_max(a, &ma) || !value_max(k, &mk) || ma > INT32_MAX || mk > INT32_MAX) return false;
    return *m = x->u.binary.op == TK_PLUS ? ma + mk : ma * mk, true;
  case TK_SLASH: /* t / 3 of a loop variable t < 9: at most 2 */
    if (!facts_nonneg(a) || !check_const_int(k, &c) || c <= 0 || !value_max(a, &ma)) return false;
    return *m = ma / c, true;
  case TK_AND: /* at most the least non-negative operand's largest value */
    ha = facts_nonneg(a) && value_max(a, &ma), hk = facts_nonneg(k) && value_max(k, &mk);
    if (!ha && !hk) return false;
    return *m = ha && hk ? (ma < mk ? ma : mk) : ha ? ma : mk, true;
  case TK_PERCENT:
    if (!facts_nonneg(a) || !check_const_int(k, &c) || c <= 0) return false;
    return *m = c - 1, true;
  default: return false;
  }
}

static bool at_most_size(const Expr *x, const Sym *S);

/* Loop f is range(a, e, step) with e at most size S (S itself, or a min() of it: a block's
 * chunk of rows range(r0, min(M, r0 + 512), 32)) and a constant step >= len: *st = step.
 * Its variable v fits v :+ len in S when a and S are multiples of the step (v < e <= S). */
static bool loop_step_start(const Stmt *f, int64_t len, const Sym *S, int64_t *st) {
  *st = 1;
  if (!at_most_size(f->u.forr.hi, S) || (f->u.forr.step && !check_const_int(f->u.forr.step, st))) return false;
  return *st > 0 && len <= *st;
}

/* Whether x <= size S: S itself, or a min() one of whose operands is (a loop's end
 * range(r0, min(M, r0 + 32)): its variable stays below M). */
static bool at_most_size(const Expr *x, const Sym *S) {
  x = facts_resolve(x);
  if (facts_as_size(x) == S) return true;
  if (x->kind != E_CALL || x->u.call.builtin != B_MIN || x->u.call.cast != T_NONE) return false;
  for (int i = 0; i < x->u.call.nargs; i++)
    if (at_most_size(x->u.call.args[i], S)) return true;
  return false;
}

/* Whether start + len <= dim d of X for every execution the translator can see. */
bool facts_fits(const KernelInfo *ki, const Expr *start, int64_t len, const Sym *X, int d) {
  start = facts_resolve(start);
  const Sym *S = X->tdim_size[d];
  int64_t D = X->tdim_const[d], c;
  if (check_const_int(start, &c)) return S ? facts_assumed_at_least(ki, S, c + len) : c + len <= D;
  if (facts_nonneg(start) && value_max(start, &c) && (S ? facts_assumed_at_least(ki, S, c + len) : c + len <= D))
    return true; /* H[i32(X[i])] of a u8 X with H of 256, H[x & 15] of 16 */
  if (start->kind == E_IDENT && start->u.ident.sym && start->u.ident.sym->kind == SY_LOOP) {
    Stmt *f = start->u.ident.sym->decl;
    int64_t vmax;
    if (loop_max(start->u.ident.sym, &vmax)) /* v <= its last value */
      return S ? facts_assumed_at_least(ki, S, vmax + len) : vmax + len <= D;
    if (len == 1 && S && at_most_size(f->u.forr.hi, S)) return true; /* v < S in the body, whatever the step */
    /* v and S both multiples of the step: v <= S - step (range(ctx.block.x * 64, S, 64),
     * range(k0 / BQ * BQ, S, BQ) as much as range(0, S, 64)) */
    int64_t st;
    if (S && loop_step_start(f, len, S, &st) && facts_multiple_of(ki, f->u.forr.lo, st))
      return len == 1 || facts_assumed_multiple(ki, S, st);
    return false;
  }
  /* v * c or c * v, with v a loop variable of a range whose end is a constant and c > 0:
   * the start is at most c times v's last value (`for i in range(0, 4) { X[i * 128 :+ 128] }`) */
  if (start->kind == E_BINARY && start->u.binary.op == TK_STAR) {
    const Expr *v = facts_resolve(start->u.binary.a), *k = facts_resolve(start->u.binary.b);
    if (check_const_int(v, &c)) v = k; /* c * v */
    else if (!check_const_int(k, &c)) c = 0;
    int64_t vmax;
    if (c > 0 && v->kind == E_IDENT && v->u.ident.sym && v->u.ident.sym->kind == SY_LOOP &&
        loop_max(v->u.ident.sym, &vmax))
      return S ? facts_assumed_at_least(ki, S, vmax * c + len) : vmax * c + len <= D;
  }
  /* a + b with b in [0, m]: a + b + len <= a + m + len, so a fits with the length
   * m + len (ctx.block.x * 1024 + j, j over range(0, 1024, 256), :+ 256: the block's
   * chunk ctx.block.x * 1024 :+ 1024) */
  int64_t m;
  if (start->kind == E_BINARY && start->u.binary.op == TK_PLUS)
    for (int k = 0; k < 2; k++) {
      const Expr *a = k ? start->u.binary.b : start->u.binary.a, *b = k ? start->u.binary.a : start->u.binary.b;
      if (facts_nonneg(b) && value_max(b, &m) && m <= INT32_MAX && facts_fits(ki, a, m + len, X, d)) return true;
    }
  /* a % S, a >= 0: at most S - 1; and at most S - len where it and S are multiples of len
   * (kk % CI :+ 64, kk over range(0, 9 * CI, 64), with @assume(CI % 64 == 0): an implicit GEMM's
   * channel chunk) */
  if (S && start->kind == E_BINARY && start->u.binary.op == TK_PERCENT && facts_as_size(start->u.binary.b) == S &&
      facts_nonneg(start->u.binary.a) &&
      (len == 1 || (facts_assumed_multiple(ki, S, len) && facts_multiple_of(ki, start, len))))
    return true;
  /* min(a, S - c) and min(S - c, a), c >= 1, for an index (len 1): at most S - 1 (a clamped
   * gather index, min(x0 + 1, W - 1); the lower side is facts_nonneg's) */
  if (S && len == 1 && start->kind == E_CALL && start->u.call.cast == T_NONE && start->u.call.builtin == B_MIN)
    for (int i = 0; i < start->u.call.nargs; i++) {
      const Expr *m = facts_resolve(start->u.call.args[i]);
      int64_t k;
      if (m->kind == E_BINARY && m->u.binary.op == TK_MINUS && facts_as_size(m->u.binary.a) == S &&
          check_const_int(m->u.binary.b, &k) && k >= 1)
        return true;
    }
  /* ctx.block / T under a grid of S * T (or T * S) blocks along that axis: at most S - 1 (a
   * block per (n, h) pair, n = ctx.block.z / H with @grid(.., N * H)) */
  if (S && len == 1 && start->kind == E_BINARY && start->u.binary.op == TK_SLASH) {
    const Expr *a = facts_resolve(start->u.binary.a), *t = start->u.binary.b;
    int axis = a->kind == E_CTX && a->u.ctx >= CTX_BLOCK_X && a->u.ctx <= CTX_BLOCK_Z ? (int)(a->u.ctx - CTX_BLOCK_X) : -1;
    const Expr *g = axis >= 0 ? ki->grid[axis] : NULL;
    if (g && g->kind == E_BINARY && g->u.binary.op == TK_STAR && facts_nonneg(t))
      for (int k = 0; k < 2; k++) {
        const Expr *f = k ? g->u.binary.b : g->u.binary.a, *o = k ? g->u.binary.a : g->u.binary.b;
        if (facts_as_size(f) == S && facts_expr_equal(o, t)) return true;
      }
  }
  if (start->kind == E_CTX && (start->u.ctx == CTX_THREAD || start->u.ctx == CTX_LANE || start->u.ctx == CTX_WARP)) {
    int64_t top = start->u.ctx == CTX_THREAD ? ki->threads : start->u.ctx == CTX_LANE ? ki->target->lanes
                                                                 : ki->threads / ki->target->lanes;
    return S ? facts_assumed_at_least(ki, S, top - 1 + len) : top - 1 + len <= D;
  }
  int axis = block_times(start, &c);
  if (axis >= 0 && c > 0) {
    Expr *g = ki->grid[axis];
    if (!g) return S ? facts_assumed_at_least(ki, S, len) : len <= D; /* block index is 0 */
    int64_t gc;
    if (check_const_int(g, &gc)) return S ? facts_assumed_at_least(ki, S, (gc - 1) * c + len) : (gc - 1) * c + len <= D;
    /* a grid of S: what bounds the last block's start bounds its chunk of c, not
     * a slice past it (ctx.block.x * 64 :+ 128 reads the next block's chunk) */
    if (!S || len > c) return false;
    if (facts_as_size(g) == S && c == 1) return true; /* @grid(S): block index < S */
    /* @grid(S / c): the last block ends at or before S */
    if (g->kind == E_BINARY && g->u.binary.op == TK_SLASH && facts_as_size(g->u.binary.a) == S &&
        check_const_int(g->u.binary.b, &gc) && gc == c)
      return true;
    if (g->kind == E_CALL && g->u.call.builtin == B_CDIV && facts_as_size(g->u.call.args[0]) == S &&
        check_const_int(g->u.call.args[1], &gc) && gc == c)
      return c == 1 || facts_assumed_multiple(ki, S, c); /* cdiv(S, 1) blocks: one per index */
  }
  return false;
}


/* A scalar integer var assigned after its declaration is a multiple of v where its initial
 * value is and every assignment keeps it one: = , += or -= of a multiple, *= of anything (by
 * induction, as assigned_nonneg). */
static bool assigned_multiple(const KernelInfo *ki, Sym *y, int64_t v, const Sym **given, int *n, int max) {
  if (y->multiple_visit) return true;
  if (y->nassigns > 8 || !y->decl || y->decl->kind != S_VAR || !y->decl->u.decl.init || !elem_is_int(y->ty.elem))
    return false;
  y->multiple_visit = true;
  bool ok = facts_multiple_given(ki, y->decl->u.decl.init, v, given, n, max);
  for (int i = 0; ok && i < y->nassigns; i++) {
    const Stmt *a = y->assigns[i];
    TokenKind op = a->u.assign.op;
    ok = op == TK_MUL_ASSIGN || ((op == TK_ASSIGN || op == TK_ADD_ASSIGN || op == TK_SUB_ASSIGN) &&
                                 facts_multiple_given(ki, a->u.assign.rhs, v, given, n, max));
  }
  y->multiple_visit = false;
  return ok;
}

/* Whether x is a multiple of v > 0 (a run, a loop's step): for every execution, or, with
 * given, when each name in given[] is one, a size name (not @assume'd a multiple
 * of v) or an integer scalar parameter; those go to given[] (at most max; *n
 * counts them), the conditions a kernel tests at entry to take its fast body. */
bool facts_multiple_given(const KernelInfo *ki, const Expr *x, int64_t v, const Sym **given, int *n, int max) {
  x = facts_resolve(x);
  int64_t c;
  if (check_const_int(x, &c)) return c % v == 0;
  switch (x->kind) {
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y) return false;
    if (y->kind == SY_LOOP) {
      Stmt *f = y->decl;
      return facts_multiple_given(ki, f->u.forr.lo, v, given, n, max) &&
             (!f->u.forr.step ? v == 1 : facts_multiple_given(ki, f->u.forr.step, v, given, n, max));
    }
    if (y->kind == SY_SIZE && facts_assumed_multiple(ki, y, v)) return true;
    if (y->kind == SY_VAR && y->ty.rank == 0 && y->reassigned) return assigned_multiple(ki, (Sym *)y, v, given, n, max);
    bool integer = y->ty.rank == 0 && (y->ty.elem == T_I32 || y->ty.elem == T_U32 || y->ty.elem == T_I64);
    if (!given || (y->kind != SY_SIZE && !(y->kind == SY_SCALAR && integer))) return false;
    for (int i = 0; i < *n; i++)
      if (given[i] == y) return true;
    if (*n >= max) return false;
    given[(*n)++] = y;
    return true;
  }
  case E_BINARY:
    switch (x->u.binary.op) {
    case TK_PLUS: case TK_MINUS:
      return facts_multiple_given(ki, x->u.binary.a, v, given, n, max) &&
             facts_multiple_given(ki, x->u.binary.b, v, given, n, max);
    case TK_STAR: { /* a factor that is a multiple for every execution, else one the entry test makes one (2 * H) */
      if (facts_multiple_of(ki, x->u.binary.a, v) || facts_multiple_of(ki, x->u.binary.b, v)) return true;
      if (!given) return false;
      int had = *n;
      if (facts_multiple_given(ki, x->u.binary.a, v, given, n, max)) return true;
      *n = had; /* what a took, it took for nothing */
      if (facts_multiple_given(ki, x->u.binary.b, v, given, n, max)) return true;
      *n = had;
      return false;
    }
    case TK_PERCENT: /* C's truncated a % b is a - (a / b) * b: a multiple when a and b are, whatever their signs */
      return facts_multiple_given(ki, x->u.binary.a, v, given, n, max) &&
             facts_multiple_given(ki, x->u.binary.b, v, given, n, max);
    default: return false;
    }
  default: return false;
  }
}

bool facts_multiple_of(const KernelInfo *ki, const Expr *x, int64_t v) {
  return facts_multiple_given(ki, x, v, NULL, NULL, 0);
}

/* The sizes x names (through the vars it reads and the loops whose variables it
 * reads), but S, each once, into out[] (at most max). */
static void start_sizes(const Expr *x, const Sym *S, const Sym **out, int *n, int max) {
  x = facts_resolve(x);
  switch (x->kind) {
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (y && y->kind == SY_LOOP) {
      start_sizes(y->decl->u.forr.lo, S, out, n, max);
      if (y->decl->u.forr.step) start_sizes(y->decl->u.forr.step, S, out, n, max);
    }
    if (!y || y->kind != SY_SIZE || y == S) return;
    for (int i = 0; i < *n; i++)
      if (out[i] == y) return;
    if (*n < max) out[(*n)++] = y;
    return;
  }
  case E_UNARY: start_sizes(x->u.unary.a, S, out, n, max); return;
  case E_BINARY:
    start_sizes(x->u.binary.a, S, out, n, max);
    start_sizes(x->u.binary.b, S, out, n, max);
    return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) start_sizes(x->u.call.args[i], S, out, n, max);
    return;
  default: return;
  }
}

/* The term of a start that facts_fits proves for a sum (a of a + b, b non-negative of
 * largest value m), through each such sum, and *len grown by each m: the loop variable
 * or block index whose conditions the sum's are (ctx.block.x * 1024 + j :+ 256 is
 * ctx.block.x * 1024 :+ 1024 with j over range(0, 1024, 256)). */
static const Expr *sum_base(const Expr *x, int64_t *len) {
  x = facts_resolve(x);
  int64_t m;
  while (x->kind == E_BINARY && x->u.binary.op == TK_PLUS) {
    const Expr *a = x->u.binary.a, *b = x->u.binary.b;
    if (!(facts_nonneg(b) && value_max(b, &m) && m <= INT32_MAX)) {
      if (!(facts_nonneg(a) && value_max(a, &m) && m <= INT32_MAX)) break;
      a = b;
    }
    *len += m;
    x = facts_resolve(a);
  }
  return x;
}

enum { MAX_CONDS = 4 }; /* the @assume conditions one check's note may name */

/* The least upper bound an @assume gives size S (S <= c, S < c, S == c, c >= S,
 * c > S), and the line of the condition that gives it; false when none does. */
static bool assumed_at_most(const KernelInfo *ki, const Sym *S, int64_t *u, int *line) {
  bool found = false;
  for (int i = 0; i < ki->nassumes; i++) {
    const Expr *e = ki->assumes[i].e;
    if (e->kind != E_BINARY) continue;
    TokenKind op = e->u.binary.op;
    const Expr *l = e->u.binary.a, *r = e->u.binary.b;
    int64_t c;
    if (facts_as_size(r) == S && check_const_int(l, &c)) /* c >= S: S <= c */
      op = op == TK_GE ? TK_LE : op == TK_GT ? TK_LT : op == TK_EQ ? TK_EQ : TK_EOF;
    else if (facts_as_size(l) != S || !check_const_int(r, &c))
      continue;
    if (op != TK_LE && op != TK_LT && op != TK_EQ) continue;
    if (op == TK_LT) c--;
    if (!found || c < *u) *u = c, *line = e->loc.line;
    found = true;
  }
  return found;
}

/* Whether the condition "S % mod == 0" (mod > 0) or "S >= min" (mod 0) leaves S
 * two values at least beside the kernel's own upper bound on S: a condition that
 * contradicts one (@assume(N <= 512) and N >= 600) or fixes S with it (N >= 512)
 * is no advice. If not, *why says so, for the warning's note. */
static bool leaves_room(Arena *a, const KernelInfo *ki, const Sym *S, int64_t mod, int64_t min, const char **why) {
  int64_t u;
  int line;
  if (!assumed_at_most(ki, S, &u, &line)) return true;
  int64_t first = mod ? mod : min, second = mod ? 2 * mod : min + 1; /* the two least values it allows */
  if (second <= u) return true;
  const char *need = mod ? arena_printf(a, "the slice fits only where %s %% %" PRId64 " == 0", S->name, mod)
                         : arena_printf(a, "the slice fits only where %s >= %" PRId64, S->name, min);
  if (first > u)
    *why = arena_printf(a, "%s, and the @assume at line %d keeps %s <= %" PRId64, need, line, S->name, u);
  else
    *why = arena_printf(a, "%s, and the @assume at line %d keeps %s <= %" PRId64 ": only %s = %" PRId64
                        " has both (a const, if %s is always that)", need, line, S->name, u, S->name, first,
                        S->name);
  return false;
}

/* The @assume conditions under which start + len fits in X's dim d, as
 * facts_fits itself decides with them added to the kernel's: SIZE % m == 0
 * for m the loop's step (and the same of each size its start names: range(T,
 * S, 64) needs T % 64 == 0 too) or the block's stride, else the least SIZE >= v
 * (found by bisection: facts_fits only gets truer as v grows). Into cond[]
 * (at most MAX_CONDS); 0 when no conditions on the sizes do it. */
static int fits_conditions(Arena *a, const KernelInfo *ki, const Expr *start, int64_t len, const Sym *X, int d,
                           const char **cond, const char **why) {
  Sym *S = X->tdim_size[d];
  if (!S) return 0;
  const Sym *given[MAX_CONDS - 1];
  int ng = 0;
  KernelInfo k = *ki;
  k.assumes = NEW_ARRAY(a, Assume, ki->nassumes + MAX_CONDS);
  for (int i = 0; i < ki->nassumes; i++) k.assumes[i] = ki->assumes[i];
  int64_t blen = len; /* the sum's base term, and the length it is proved for */
  const Expr *s = sum_base(start, &blen);
  int64_t m[2] = {0, 0};
  if (s->kind == E_IDENT && s->u.ident.sym && s->u.ident.sym->kind == SY_LOOP) {
    const Stmt *f = s->u.ident.sym->decl;
    if (!f->u.forr.step) m[0] = 1;
    else check_const_int(f->u.forr.step, &m[0]);
    int64_t st;
    if (loop_step_start(f, blen, S, &st) && st > 1 && !facts_multiple_of(ki, f->u.forr.lo, st))
      start_sizes(f->u.forr.lo, S, given, &ng, MAX_CONDS - 1); /* range(T * 2, S, 64): T % 64 == 0 too */
    for (int i = 0; i < ng; i++) k.assumes[k.nassumes++] = (Assume){NULL, (Sym *)given[i], m[0], INT64_MIN};
  }
  Assume *h = &k.assumes[k.nassumes++];
  *h = (Assume){NULL, S, 0, INT64_MIN};
  block_times(s, &m[1]); /* (a loop variable is no block index: the start's sizes go with m[0]) */
  for (int i = 0; i < 2; i++) {
    h->mod = m[i];
    if (m[i] > 1 && facts_fits(&k, start, len, X, d)) {
      int n = 0;
      bool room = leaves_room(a, ki, S, m[i], 0, why);
      for (int j = 0; j < ng; j++) { /* those of the start's sizes it needs */
        k.assumes[ki->nassumes + j].mod = 0;
        if (facts_fits(&k, start, len, X, d)) continue;
        k.assumes[ki->nassumes + j].mod = m[0];
        room = room && leaves_room(a, ki, given[j], m[0], 0, why);
        cond[n++] = arena_printf(a, "%s %% %" PRId64 " == 0", given[j]->name, m[0]);
      }
      cond[n++] = arena_printf(a, "%s %% %" PRId64 " == 0", S->name, m[i]);
      if (room) return n;
      for (int j = 0; j < ng; j++) k.assumes[ki->nassumes + j].mod = m[0]; /* as before the next try */
    }
  }
  h->mod = 0;
  int64_t lo = 1, hi = INT32_MAX;
  h->min = hi;
  if (!facts_fits(&k, start, len, X, d)) return 0;
  while (lo < hi) {
    h->min = lo + (hi - lo) / 2;
    if (facts_fits(&k, start, len, X, d)) hi = h->min;
    else lo = h->min + 1;
  }
  if (!leaves_room(a, ki, S, 0, lo, why)) return 0;
  cond[0] = arena_printf(a, "%s >= %" PRId64, S->name, lo);
  return 1;
}

/* The reason a check stays, and where an @assume condition of another form names the dim's
 * size (KG == K / G), that it proves nothing: only S % c == 0, S >= c (S > c) and S == c. */
static const char *unproved(Arena *a, const KernelInfo *ki, const Sym *S, const char *why) {
  for (int i = 0; S && i < ki->nassumes; i++) {
    const Assume *as = &ki->assumes[i];
    const Expr *e = as->e;
    int64_t c;
    bool bound = e->kind == E_BINARY && (e->u.binary.op == TK_LE || e->u.binary.op == TK_LT ||
                                         e->u.binary.op == TK_GE || e->u.binary.op == TK_GT) &&
                 ((facts_as_size(e->u.binary.a) == S && check_const_int(e->u.binary.b, &c)) ||
                  (facts_as_size(e->u.binary.b) == S && check_const_int(e->u.binary.a, &c)));
    if (as->size || bound || !tir_names_sym(e, S)) continue; /* (an upper bound: said by the notes' own reasons) */
    return arena_printf(a, "%s (the @assume condition at line %d, column %d, names %s but proves nothing: only %s %% c "
                        "== 0, %s >= c and %s == c, c a constant, do; it is checked at launch)",
                        why, as->e->loc.line, as->e->loc.col, S->name, S->name, S->name, S->name);
  }
  return why;
}

/* Why no conditions on the sizes drop the check of a start, nonnegative: most often
 * none bounds its end; in range(a, S, step), a not known to be a multiple of the step;
 * at a block's chunk (plus a loop's values) under a grid of sizes, a slice that passes
 * the chunk, or a grid that is no chunk count of S. */
static const char *unfit_why(Arena *a, const KernelInfo *ki, const Expr *start, int64_t len, const Sym *X, int d) {
  int64_t blen = len;
  const Expr *s = sum_base(start, &blen);
  const Sym *S = X->tdim_size[d];
  int64_t m, st;
  if (S && s->kind == E_IDENT && s->u.ident.sym && s->u.ident.sym->kind == SY_LOOP) {
    const Stmt *f = s->u.ident.sym->decl;
    if (loop_step_start(f, blen, S, &st) && !facts_multiple_of(ki, f->u.forr.lo, st))
      return arena_printf(a, "the start of its loop at line %d is not known to be a multiple of the step %" PRId64,
                          f->loc.line, st);
  }
  int axis = block_times(s, &m);
  /* past the block's chunk under a grid of sizes: the last block's slice passes the
   * last chunk's end, which is all a condition on the sizes can bound */
  if (axis >= 0 && m > 0 && blen > m && ki->grid[axis] && !check_const_int(ki->grid[axis], &st))
    return arena_printf(a, "it reaches %" PRId64 " past ctx.block.%c * %" PRId64 ", into the next block's chunk",
                        blen, "xyz"[axis], m);
  if (axis >= 0 && m > 0 && S && ki->grid[axis] && !check_const_int(ki->grid[axis], &st))
    return arena_printf(a, "its grid on ctx.block.%c is not %s / %" PRId64 " or cdiv(%s, %" PRId64
                        "), so the last block's chunk is not known to end at or before %s",
                        "xyz"[axis], S->name, m, S->name, m, S->name);
  if (!S && value_max(start, &m)) /* a constant dim its values pass */
    return arena_printf(a, "its values reach %" PRId64 ", and the dim's last index is %" PRId64, m + len - 1,
                        X->tdim_const[d] - 1);
  return unproved(a, ki, S, "no condition on the sizes bounds its end");
}

void facts_bounds_warning(Diag *d, Arena *a, const KernelInfo *ki, const Sym *X, int dim, const Index *ix, int64_t len) {
  if (!facts_nonneg(ix->start)) {
    diag_bounds(d, ix->start->loc, X->name, dim, NULL, "its start may be negative");
    return;
  }
  const char *cond[MAX_CONDS], *why = NULL;
  int n = fits_conditions(a, ki, ix->start, len, X, dim, cond, &why);
  /* one entry for each condition: the warning names each once, or only the
   * strongest of those on one size (diag.c) */
  for (int i = 0; i < n; i++) diag_bounds(d, ix->start->loc, X->name, dim, cond[i], NULL);
  if (!n) diag_bounds(d, ix->start->loc, X->name, dim, NULL, why ? why : unfit_why(a, ki, ix->start, len, X, dim));
}

bool facts_expr_equal(const Expr *a, const Expr *b) {
  if (a->kind != b->kind) return false;
  if ((a->flags & EF_CONST) && (b->flags & EF_CONST)) return a->cv.isf == b->cv.isf && a->cv.i == b->cv.i && a->cv.f == b->cv.f;
  switch (a->kind) {
  case E_INT: case E_BOOL: return a->u.ival == b->u.ival;
  case E_FLOAT: return a->u.fval == b->u.fval;
  case E_INF: return true;
  case E_CTX: return a->u.ctx == b->u.ctx;
  case E_IDENT: return a->u.ident.sym == b->u.ident.sym && a->u.ident.sym;
  case E_UNARY: return a->u.unary.op == b->u.unary.op && facts_expr_equal(a->u.unary.a, b->u.unary.a);
  case E_BINARY:
    return a->u.binary.op == b->u.binary.op && facts_expr_equal(a->u.binary.a, b->u.binary.a) &&
           facts_expr_equal(a->u.binary.b, b->u.binary.b);
  case E_CALL:
    if (a->u.call.builtin != b->u.call.builtin || a->u.call.cast != b->u.call.cast || a->u.call.nargs != b->u.call.nargs)
      return false;
    for (int i = 0; i < a->u.call.nargs; i++)
      if (!facts_expr_equal(a->u.call.args[i], b->u.call.args[i])) return false;
    return true;
  default: return false;
  }
}
