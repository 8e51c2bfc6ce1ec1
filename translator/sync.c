/* sync.c: barriers, placed by a dataflow pass over the IR.
 *
 * The state is, for each shared buffer, whether it was written and whether it
 * was read since the last barrier on every path here (and by which op). An
 * op that reads a buffer written since the last barrier (RAW), or writes one
 * read or written by another op since then (WAR, WAW), gets a barrier before
 * it; a barrier clears the state. A write to an alternating buffer (a
 * reduction's scratch in a loop, t2c.h) needs none: the half it writes was
 * last read before the barrier that the other half's write -> read needed
 * (unless the other half was written and something read since the last
 * barrier: then it does). One op never conflicts with itself: the
 * layouts give each of its elements one thread. Branches join; a loop's body
 * runs dry (nothing inserted) with the state at its head joined with the
 * state at its end and at its continues until that state stops changing,
 * then once for real. Only then are barriers inserted, so a loop whose body
 * needs a barrier at its top from the previous iteration gets it there.
 * Before that, a loop whose body would need a block barrier only for what
 * was done before the loop (a copy made once, read by other threads in each
 * iteration) gets one barrier before the loop instead (before_loop). Dry
 * runs of a loop from a state it was already run from reuse that result
 * (dry_loop's memo).
 *
 * Tensors the kernel writes are tracked too (TirBuf.tensor), with whether
 * their accesses since the barrier include some of an earlier iteration
 * (at_back_edge): a load and a store at one slice in one layout are at one
 * thread's elements in one iteration, and across iterations only where the
 * slice stays or moves past its own length (same_elements).
 *
 * A value living in its shared copy (TirVar.home) is read and written there
 * by each thread at its own elements (TirAccess.own): such accesses conflict
 * only with accesses at other elements (a transposed read, a column
 * reduction), never with each other.
 *
 * Buffers that share bytes (smem.c's reuse: TirKernel.alias) conflict with
 * each other as one buffer would, whatever the elements; smem.c runs the pass
 * again once it has made them share.
 *
 * A versioned kernel whose bodies differ (a TMA ring in the fast one, its
 * cp.async ring in the general one: TirOp.only) gets the pass once per body,
 * each over the ops that body prints; a barrier both need at the same place
 * becomes one of both bodies.
 */
#include "t2c.h"

#include <stdlib.h>
#include <string.h>

enum { ST_W = 1, ST_R = 2 };


/* The barriers decided so far, in dry runs too (before_loop compares two
 * runs): how many, and the first block barriers' ops and reasons; and the
 * words a conflict uses for where the op that needs the barrier is. */
enum { PLACED_KEEP = 16 };
typedef struct Placed {
  int block, warp, nkept;
  const TirOp *op[PLACED_KEEP];
  const char *why[PLACED_KEEP];
} Placed;
typedef struct Memo Memo;
typedef struct MemoTable MemoTable;

/* A pass's state (one per thread: libtile2cu translates programs on several
 * at once). view: the body of a versioned kernel the pass is placing
 * barriers for (TIR_FAST, TIR_GENERAL), or 0 when both bodies are the same
 * ops: an op printed in the other body only (TirOp.only) is not there, and
 * the barriers placed carry the view. placed: the barriers counted. here:
 * the words a conflict uses for where the op that needs the barrier is.
 * asking: in before_loop's dry runs. memo: dry_loop's. */
typedef struct Pass {
  int view;
  Placed placed;
  const char *here;
  bool asking;
  MemoTable *memo;
} Pass;
static _Thread_local Pass *ps;

static bool absent(const TirOp *op) { return ps->view && op->only && op->only != ps->view; }

static void count(bool block, const TirOp *op, const char *why) {
  if (!block) {
    ps->placed.warp++;
    return;
  }
  ps->placed.block++;
  if (ps->placed.nkept < PLACED_KEEP) ps->placed.op[ps->placed.nkept] = op, ps->placed.why[ps->placed.nkept++] = why;
}

enum { SYNC_READERS = 4 };

typedef struct SyncState {
  uint8_t acc[TIR_MAX_BUFS];
  uint8_t cross[TIR_MAX_BUFS]; /* what of acc was not at the thread's own elements (TirAccess.own) */
  const TirOp *wop[TIR_MAX_BUFS]; /* the op that wrote it (NULL: several) */
  /* the ops that read it, by address (a set: same() compares them), nrop of them; past
   * SYNC_READERS, more than that (none named) */
  const TirOp *rop[TIR_MAX_BUFS][SYNC_READERS];
  uint8_t nrop[TIR_MAX_BUFS];
  /* the ops that wrote it, the same way (wop names one only; a tensor's conflicts ask all) */
  const TirOp *wset[TIR_MAX_BUFS][SYNC_READERS];
  uint8_t nwset[TIR_MAX_BUFS];
  int wline[TIR_MAX_BUFS], rline[TIR_MAX_BUFS];
  int atom[TIR_MAX_BUFS]; /* when written: the atomic kind of every write (B_ATOMIC_*), or -1 */
  /* some of the reads (writes) were made before a loop began its next iteration (at_back_edge):
   * of an op that may have run since, at another value of the loop variable (same_elements) */
  uint8_t rstale[TIR_MAX_BUFS], wstale[TIR_MAX_BUFS];
} SyncState;

typedef struct SyncLoop {
  const TirOp *op; /* the loop (NULL: none) */
  SyncState brk, cont;
  bool has_brk, has_cont;
} SyncLoop;

/* Adds op to a set of ops (SyncState.rop, wset; NULL: one not named, as past
 * SYNC_READERS, after which the set names none). */
static void add_op(const TirOp **set, uint8_t *nset, const TirOp *op) {
  int n = *nset;
  if (n > SYNC_READERS) return;
  for (int k = 0; k < n; k++)
    if (set[k] == op) return;
  if (!op || n == SYNC_READERS) {
    memset(set, 0, sizeof(const TirOp *) * SYNC_READERS);
    *nset = SYNC_READERS + 1;
    return;
  }
  int k = n;
  for (; k > 0 && (uintptr_t)set[k - 1] > (uintptr_t)op; k--) set[k] = set[k - 1];
  set[k] = op;
  *nset = (uint8_t)(n + 1);
}

/* b's set (of b's buffer i) into a's. */
static void join_ops(const TirOp **a, uint8_t *na, const TirOp *const *b, uint8_t nb) {
  for (int k = 0; k < nb && k < SYNC_READERS; k++) add_op(a, na, b[k]);
  if (nb > SYNC_READERS) add_op(a, na, NULL);
}

/* Joins b into a: what either path accessed, and the op that did when both
 * paths name the same one (a's when only a accessed it). In place: the states
 * are large, and the loops' recursion keeps few of them on the stack. */
static void join_in(SyncState *a, const SyncState *b) {
  for (int i = 0; i < TIR_MAX_BUFS; i++) {
    uint8_t had = a->acc[i];
    if (!(had & ST_W)) a->atom[i] = b->atom[i];
    else if ((b->acc[i] & ST_W) && b->atom[i] != a->atom[i]) a->atom[i] = -1;
    a->acc[i] = had | b->acc[i];
    a->cross[i] |= b->cross[i];
    a->rstale[i] |= b->rstale[i];
    a->wstale[i] |= b->wstale[i];
    if (!(had & ST_W)) {
      a->wop[i] = b->wop[i], a->wline[i] = b->wline[i];
      memcpy(a->wset[i], b->wset[i], sizeof a->wset[i]);
      a->nwset[i] = b->nwset[i];
    } else if (b->acc[i] & ST_W) {
      if (b->wop[i] != a->wop[i]) a->wop[i] = NULL;
      join_ops(a->wset[i], &a->nwset[i], b->wset[i], b->nwset[i]);
    }
    if (!(had & ST_R)) {
      a->rline[i] = b->rline[i];
      memcpy(a->rop[i], b->rop[i], sizeof a->rop[i]);
      a->nrop[i] = b->nrop[i];
    } else if (b->acc[i] & ST_R) {
      join_ops(a->rop[i], &a->nrop[i], b->rop[i], b->nrop[i]);
    }
  }
}

static bool same(const SyncState *a, const SyncState *b) {
  return memcmp(a->acc, b->acc, sizeof a->acc) == 0 && memcmp(a->cross, b->cross, sizeof a->cross) == 0 &&
         memcmp(a->wop, b->wop, sizeof a->wop) == 0 &&
         memcmp(a->rop, b->rop, sizeof a->rop) == 0 && memcmp(a->nrop, b->nrop, sizeof a->nrop) == 0 &&
         memcmp(a->wset, b->wset, sizeof a->wset) == 0 && memcmp(a->nwset, b->nwset, sizeof a->nwset) == 0 && memcmp(a->atom, b->atom, sizeof a->atom) == 0 &&
         memcmp(a->rstale, b->rstale, sizeof a->rstale) == 0 && memcmp(a->wstale, b->wstale, sizeof a->wstale) == 0;
}

/* The state at the end of an iteration, as the next one starts: what was done
 * to a tensor so far was done in an earlier iteration (same_elements; a shared
 * buffer's elements do not move between iterations). */
static void at_back_edge(const TirKernel *K, SyncState *st) {
  for (int i = 0; i < K->nbufs; i++) {
    if (!K->bufs[i].tensor) continue;
    if (st->acc[i] & ST_R) st->rstale[i] = 1;
    if (st->acc[i] & ST_W) st->wstale[i] = 1;
  }
}

/* Whether scalar x has one value wherever it is evaluated. FX_UNIFORM: the
 * same for every thread of a block (else per thread: a thread's own ctx fields
 * too). FX_ITER: in one iteration of the loops around it (their variables too,
 * uniform ones with FX_UNIFORM, and the scalar vars assigned only at their
 * declaration: a second run of it is in another iteration); else in the
 * whole launch. Constants, ctx fields, sizes, scalar parameters, and vars
 * assigned only at their declaration from such (facts_resolve), through
 * arithmetic, min, max and cdiv. A var assigned again or a tensor element is
 * not. */
enum { FX_UNIFORM = 1, FX_ITER = 2 };
static bool fixed_value(const Expr *x, int how) {
  const Sym *v = x->kind == E_IDENT ? x->u.ident.sym : NULL;
  if ((how & FX_ITER) && v && v->kind == SY_VAR && !v->ty.rank && !v->reassigned &&
      (!(how & FX_UNIFORM) || !v->thread_dep))
    return true;
  x = facts_resolve(x);
  if (x->ty.rank) return false;
  if (x->flags & EF_CONST) return true;
  switch (x->kind) {
  case E_INT: case E_BOOL: return true;
  case E_CTX:
    return !(how & FX_UNIFORM) || (x->u.ctx != CTX_THREAD && x->u.ctx != CTX_LANE && x->u.ctx != CTX_WARP);
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (y && y->kind == SY_LOOP) return (how & FX_ITER) && (!(how & FX_UNIFORM) || !y->thread_dep);
    return y && (y->kind == SY_CONST || y->kind == SY_SIZE || y->kind == SY_SCALAR);
  }
  case E_UNARY: return fixed_value(x->u.unary.a, how);
  case E_BINARY: return fixed_value(x->u.binary.a, how) && fixed_value(x->u.binary.b, how);
  case E_CALL:
    if (x->u.call.cast == T_NONE && x->u.call.builtin != B_MIN && x->u.call.builtin != B_MAX &&
        x->u.call.builtin != B_CDIV)
      return false;
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!fixed_value(x->u.call.args[i], how)) return false;
    return true;
  default: return false;
  }
}

static bool launch_invariant(const Expr *x) { return fixed_value(x, FX_UNIFORM); }

/* x as k * v + c: v a loop variable, k a constant, c one value in the launch. */
static bool loop_affine(const Expr *x, const Sym **v, int64_t *k) {
  x = facts_resolve(x);
  if (x->ty.rank) return false;
  if (x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->kind == SY_LOOP) {
    *v = x->u.ident.sym, *k = 1;
    return true;
  }
  if (x->kind == E_UNARY && x->u.unary.op == TK_MINUS && loop_affine(x->u.unary.a, v, k)) {
    *k = -*k;
    return true;
  }
  if (x->kind != E_BINARY) return false;
  const Expr *a = x->u.binary.a, *b = x->u.binary.b;
  int64_t c;
  switch (x->u.binary.op) {
  case TK_PLUS: return (launch_invariant(b) && loop_affine(a, v, k)) || (launch_invariant(a) && loop_affine(b, v, k));
  case TK_MINUS:
    if (launch_invariant(b) && loop_affine(a, v, k)) return true;
    if (launch_invariant(a) && loop_affine(b, v, k)) {
      *k = -*k;
      return true;
    }
    return false;
  case TK_STAR:
    if (check_const_int(b, &c) && c > -(1 << 20) && c < (1 << 20) && loop_affine(a, v, k)) return *k *= c, true;
    if (check_const_int(a, &c) && c > -(1 << 20) && c < (1 << 20) && loop_affine(b, v, k)) return *k *= c, true;
    return false;
  default: return false;
  }
}

/* Whether a slice's index ix moves past its own length from one iteration to
 * the next: its start is k * v + c for a loop variable v that runs from a
 * start with one value in the launch by a step s with one value in the launch,
 * and c one value in the launch, with |k| * s at least the length: s a constant,
 * or known to be at least the length over |k| (a grid-stride loop's ctx.blocks.x *
 * T is at least T: facts_at_least). Every value v takes, in any run of its loop,
 * is that start plus a multiple of s: two iterations' windows are the same (one
 * value of v) or do not meet. */
static bool moves_apart(const KernelInfo *ki, const Index *ix) {
  const Sym *v;
  int64_t k, s = 1, len = 1;
  if (!loop_affine(ix->start, &v, &k) || !v->decl || v->decl->kind != S_FOR) return false;
  const Stmt *f = v->decl;
  if (!launch_invariant(f->u.forr.lo) || (ix->len && !check_const_int(ix->len, &len))) return false;
  int64_t ak = k < 0 ? -k : k;
  const Expr *step = f->u.forr.step;
  if (step && !check_const_int(step, &s))
    return ak > 0 && launch_invariant(step) && facts_at_least(ki, step, (len + ak - 1) / ak) &&
           facts_at_least(ki, step, 1);
  int64_t d = k * s < 0 ? -(k * s) : k * s;
  return s != 0 && d >= len;
}

/* Whether op, a load or a store of tensor X (tracked in buf), touches X
 * through its slice alone: no window, no element of X in a load's pad or
 * read by a store's value (an access to buf of the store's own: a slice
 * read in the statement is a load's, hoisted). */
static bool through_slice(const TirOp *op, const Sym *X, int buf) {
  if ((op->kind != TO_LOAD && op->kind != TO_STORE) || op->has_win || tir_names_sym(op->pad, X)) return false;
  for (int i = 0; i < op->nacc; i++)
    if (op->acc[i].buf == buf && op->acc[i].write != (op->kind == TO_STORE)) return false;
  return true;
}

/* A load and a store (or two stores) at the same slice of a tensor, in one
 * layout that does not replicate it: each element is read and written by the
 * same thread, when the slice is where it was. stale: the first op's accesses
 * since the last barrier include some made before an iteration of a loop
 * began again (SyncState.rstale, wstale). Fresh, a's one run since the barrier
 * is of this iteration: of one statement the two are at one slice; of two (a
 * tensor updated in place: Adam's moments, read at one line and stored at a
 * later one) when every index of the slice has one value in the iteration,
 * for every thread, and each op touches the tensor through its slice alone.
 * Stale, a's runs of earlier iterations are at the same elements only where
 * every index also had one value in the launch or moves past its length with
 * a loop variable (moves_apart): then two runs' windows are the same or do
 * not meet. A window that moves by less, a start that is not the loop
 * variable's, or a loop whose start changes between its runs meets other
 * threads' elements of an earlier iteration. */
/* A dim a slice takes one position of (X[i, ..], X[i :+ 1, ..]): no thread of a
 * layout holds another position there, so which thread holds an element depends on
 * the other dims alone. Two ops in one layout that does not replicate it touch an
 * element from the same thread, whatever their indices at such a dim (X[i, 0 :+ 512]
 * stored, then X[i - 1, 0 :+ 512] read in the next iteration, by the thread that
 * holds those columns); same_elements skips them. */
static bool unit_dim(const Index *ix) {
  int64_t len;
  return !ix->len || (check_const_int(ix->len, &len) && len == 1);
}

/* A layout that replicates a slice (layout_replicated) has every replica load an
 * element but only the first store it (emit_tir.c replica_guard): a store against
 * its own runs is still at one thread an element (rowmax(x) stored by the loop
 * for j .. { V[0 :+ 4, j :+ 1] = .. }), a load and a store are not. */
static bool one_thread_each(const TirOp *a, const TirOp *b) {
  return !layout_replicated(a->lay) || (a == b && a->kind == TO_STORE);
}

static bool same_elements(const KernelInfo *ki, const TirOp *a, const TirOp *b, int buf, bool stale) {
  if (!a || !b || !a->slice || !b->slice || a->lay != b->lay || !a->lay) return false;
  if (!one_thread_each(a, b) || a->gather || b->gather || a->pf_var || b->pf_var) return false;
  const Sym *X = a->slice->u.index.base->u.ident.sym;
  if (X != b->slice->u.index.base->u.ident.sym) return false;
  int n = a->slice->u.index.nidx;
  for (int d = 0; d < n; d++) {
    const Index *x = &a->slice->u.index.idx[d], *y = &b->slice->u.index.idx[d];
    if (unit_dim(x) && unit_dim(y)) continue;
    if (!facts_expr_equal(x->start, y->start) || !x->len != !y->len || (x->len && !facts_expr_equal(x->len, y->len)))
      return false;
  }
  if (!stale && a->stmt == b->stmt) return true;
  for (int k = 0; k < 2; k++)
    if (!through_slice(k ? b : a, X, buf)) return false;
  for (int d = 0; d < n; d++) {
    const Index *x = &a->slice->u.index.idx[d];
    if (unit_dim(x) && unit_dim(&b->slice->u.index.idx[d])) continue;
    if (!fixed_value(x->start, stale ? FX_UNIFORM : FX_UNIFORM | FX_ITER) && !(stale && moves_apart(ki, x))) return false;
  }
  return true;
}

/* x as base + c for a constant c (base NULL: x is a constant). */
static void split_offset(const Expr *x, const Expr **base, int64_t *c) {
  int64_t k;
  *base = x, *c = 0;
  x = facts_resolve(x);
  if (check_const_int(x, &k)) {
    *base = NULL, *c = k;
    return;
  }
  if (x->kind == E_BINARY && (x->u.binary.op == TK_PLUS || x->u.binary.op == TK_MINUS) &&
      check_const_int(x->u.binary.b, &k) && k > -(1 << 30) && k < (1 << 30)) {
    split_offset(x->u.binary.a, base, c);
    *c += x->u.binary.op == TK_PLUS ? k : -k;
  }
}

/* The values [*lo, *hi) of a tile index that is rows() or cols() plus a constant
 * (32 + cols(32, 32): 32 to 64), the same in every iteration and every thread. */
static bool index_range(const Expr *x, int64_t *lo, int64_t *hi) {
  x = facts_resolve(x);
  int64_t c;
  if (x->kind == E_CALL && x->u.call.cast == T_NONE && (x->u.call.builtin == B_ROWS || x->u.call.builtin == B_COLS) &&
      x->ty.rank == 2) {
    *lo = 0, *hi = x->ty.dims[x->u.call.builtin == B_COLS];
    return true;
  }
  if (x->kind != E_BINARY || (x->u.binary.op != TK_PLUS && x->u.binary.op != TK_MINUS)) return false;
  if (check_const_int(x->u.binary.b, &c) && c > -(1 << 30) && c < (1 << 30) && index_range(x->u.binary.a, lo, hi)) {
    if (x->u.binary.op == TK_MINUS) c = -c;
    *lo += c, *hi += c;
    return true;
  }
  if (x->u.binary.op == TK_PLUS && check_const_int(x->u.binary.a, &c) && c > -(1 << 30) && c < (1 << 30) &&
      index_range(x->u.binary.b, lo, hi)) {
    *lo += c, *hi += c;
    return true;
  }
  return false;
}

/* Whether slices a and b of one tensor never meet: at some dim their windows
 * are base + c with one base that has one value for every thread (of the launch
 * when stale: a's accesses include an earlier iteration's; else in the
 * iteration) and constant offsets and lengths that leave a gap (X[0 :+ 512] and
 * X[512 :+ 512]; X[i, ..] and X[i + 1, ..] in one iteration); or, of a scatter or
 * gather, index tiles there of constant ranges that do not meet (a KV cache's row
 * halves C[slot, cols(32, 32)] and C[slot, 32 + cols(32, 32)], whatever the slots). */
static bool apart(const TirOp *a, const TirOp *b, int buf, bool stale) {
  if (!a || !b || !a->slice || !b->slice || a->pf_var || b->pf_var) return false;
  const Sym *X = a->slice->u.index.base->u.ident.sym;
  if (X != b->slice->u.index.base->u.ident.sym || !through_slice(a, X, buf) || !through_slice(b, X, buf)) return false;
  for (int d = 0; d < a->slice->u.index.nidx; d++) {
    const Index *x = &a->slice->u.index.idx[d], *y = &b->slice->u.index.idx[d];
    int64_t la = 1, lb = 1, ca, cb, ha, hb;
    if (x->start->ty.rank || y->start->ty.rank) {
      if (!x->len && !y->len && index_range(x->start, &ca, &ha) && index_range(y->start, &cb, &hb) && (ha <= cb || hb <= ca))
        return true;
      continue;
    }
    if (a->gather || b->gather) continue; /* (a scalar index of a gather: as one of a slice, but not tried) */
    const Expr *ba, *bb;
    if ((x->len && !check_const_int(x->len, &la)) || (y->len && !check_const_int(y->len, &lb))) continue;
    split_offset(x->start, &ba, &ca);
    split_offset(y->start, &bb, &cb);
    if (!ba != !bb || (ba && (!facts_expr_equal(ba, bb) || !fixed_value(ba, stale ? FX_UNIFORM : FX_UNIFORM | FX_ITER))))
      continue;
    if (ca + la <= cb || cb + lb <= ca) return true;
  }
  return false;
}

/* Whether what a did to the tensor in buf and what b does meet only at elements one
 * thread touches in both (same_elements), or nowhere (apart). */
static bool own_or_apart(const KernelInfo *ki, const TirOp *a, const TirOp *b, int buf, bool stale) {
  return same_elements(ki, a, b, buf, stale) || apart(a, b, buf, stale);
}

/* Whether store op, run again in a later iteration, writes each element it wrote
 * before from the same thread: its window stays (a launch value) or moves past its
 * length (same_elements), or each start is a multiple of its length (a persistent
 * kernel's tile (t / tn) * BM): two runs' windows are then the same or do not meet,
 * and one layout gives an element of the same window to the same thread. A window
 * that moves by less than its length (M[n0 :+ 512] by 256) meets another thread's
 * elements of the run before. */
static bool rewrites_own(const TirKernel *K, const TirOp *op, int buf) {
  if (same_elements(K->ki, op, op, buf, true)) return true;
  bool tma = op->kind == TO_TMA_STORE; /* lane 0 of the warp whose tile it is: one thread a window too */
  if ((op->kind != TO_STORE && !tma) || !op->slice || !op->lay || !one_thread_each(op, op) || op->gather ||
      op->pf_var || op->td)
    return false;
  if (!tma && !through_slice(op, op->slice->u.index.base->u.ident.sym, buf)) return false;
  for (int d = 0; d < op->slice->u.index.nidx; d++) {
    const Index *ix = &op->slice->u.index.idx[d];
    int64_t len = 1;
    if (ix->len && !check_const_int(ix->len, &len)) return false;
    if (len > 1 && !facts_multiple_of(K->ki, ix->start, len)) return false;
  }
  return true;
}

/* A store of one element under uniform control: thread 0 makes it. */
static bool thread0_store(const TirOp *op) { return op->kind == TO_STORE && op->rows == 0 && !op->td; }

/* The conflict of op's access i in state st (what was done to its buffer, and by
 * whom; conflict() prefixes the buffer's name), or NULL. */
static const char *conflict_on(TirKernel *K, const TirOp *op, const SyncState *st, int i) {
  int b = op->acc[i].buf;
  if (K->bufs[b].stages) {
    /* a stage ring: its own wait and barrier in its loop (pipeline.c); a copy before the loop
     * refills stages that the loop's previous run (in an enclosing loop) may still read */
    if (op->kind == TO_ASYNC_COPY && op->acc[i].write && (st->acc[b] & ST_R))
      return arena_printf(K->a, "read at line %d, refilled %s before the loop by other threads", st->rline[b], ps->here);
    return NULL;
  }
  if (K->bufs[b].tensor) {
    /* global memory: what other threads did at other elements does not conflict (nor, as
     * below, one op's writes with its own) */
    bool rd = !(st->acc[b] & ST_R) || st->nrop[b] <= SYNC_READERS;
    for (int k = 0; rd && k < st->nrop[b]; k++)
      rd = own_or_apart(K->ki, st->rop[b][k], op, b, st->rstale[b]);
    /* each writer since the barrier: this op itself again, or one whose elements meet
     * this op's only at one thread or nowhere */
    bool wr = !(st->acc[b] & ST_W) || st->nwset[b] <= SYNC_READERS;
    for (int k = 0; wr && k < st->nwset[b]; k++) {
      const TirOp *w = st->wset[b][k];
      wr = (op->acc[i].write && w == op && (!st->wstale[b] || rewrites_own(K, op, b))) ||
           own_or_apart(K->ki, w, op, b, st->wstale[b]);
    }
    if (wr && (rd || !op->acc[i].write)) return NULL;
  }
  /* the thread's own elements of a value living in b: only what other threads did conflicts */
  uint8_t have = op->acc[i].own ? st->cross[b] : st->acc[b];
  if (!op->acc[i].write && (have & ST_W))
    return arena_printf(K->a, "written at line %d, read %s by other threads", st->wline[b], ps->here);
  /* an alternating buffer's write goes to the half read before the other half's write; that
   * write's reader needed a barrier, unless it came since the last one (two writes an
   * iteration, the second one's reader in a branch not taken): then this write waits */
  if (op->acc[i].write && K->bufs[b].alternating && (have & (ST_W | ST_R)) != (ST_W | ST_R)) return NULL;
  if (op->acc[i].write && K->bufs[b].alternating)
    return arena_printf(K->a, "read at line %d and its other half written since, overwritten %s by other threads",
                        st->rline[b], ps->here);
  if (op->acc[i].write && (have & ST_R))
    return arena_printf(K->a, "read at line %d, overwritten %s by other threads", st->rline[b], ps->here);
  /* atomics of one kind commute: two of them need no order between them (of one op
   * or several, in a thread-dependent region too) */
  if (op->acc[i].write && op->atomic && (st->acc[b] & ST_W) && st->atom[b] == op->atomic) return NULL;
  /* two element stores of thread 0: one thread, in program order */
  if (op->acc[i].write && st->wop[b] && thread0_store(op) && thread0_store(st->wop[b])) return NULL;
  if (op->acc[i].write && (have & ST_W) &&
      (st->wop[b] != op || (K->bufs[b].tensor && st->wstale[b] && !rewrites_own(K, op, b))))
    return arena_printf(K->a, "written at line %d, overwritten %s by other threads", st->wline[b], ps->here);
  return NULL;
}

/* Why op needs a barrier in state st, or NULL; *block: a conflict on a buffer
 * other threads than the warp's touch (TirBuf.warp_tiles: only __syncwarp is
 * needed when every conflict is on such a buffer). */
/* A conflict through shared bytes (smem.c's reuse, TirKernel.alias): op's
 * access i against what was done to another buffer in the same bytes. */
static const char *alias_conflict(TirKernel *K, const TirOp *op, const SyncState *st, int i) {
  int b = op->acc[i].buf;
  for (int a = 0; K->alias[b] && a < K->nbufs; a++) {
    if (!(K->alias[b] >> a & 1) || !st->acc[a]) continue;
    if (op->acc[i].write) {
      bool rd = (st->acc[a] & ST_R) && (!(st->acc[a] & ST_W) || st->rline[a] >= st->wline[a]);
      return arena_printf(K->a, "%s: shares its bytes with %s, %s at line %d", K->bufs[b].cname, K->bufs[a].cname,
                          rd ? "read" : "written", rd ? st->rline[a] : st->wline[a]);
    }
    if (st->acc[a] & ST_W)
      return arena_printf(K->a, "%s: shares its bytes with %s, written at line %d", K->bufs[b].cname, K->bufs[a].cname,
                          st->wline[a]);
  }
  return NULL;
}

static const char *conflict(TirKernel *K, const TirOp *op, const SyncState *st, bool *block) {
  *block = false;
  for (int i = 0; i < op->nacc; i++) {
    const char *w = alias_conflict(K, op, st, i);
    if (w) {
      *block = true;
      return w;
    }
  }
  /* every buffer the barrier orders is named, once (the dot's A copy made before the loop
   * and its B copy made in it: both); buffers with the same conflict share it ("a_s and
   * b_s: written at line 9, ..."), others follow ("q_s: ...; k_s: ...") */
  const char *why[TIR_MAX_ACCESS];
  int buf[TIR_MAX_ACCESS], n = 0;
  bool warp_only = true;
  for (int i = 0; i < op->nacc; i++) {
    const char *w = conflict_on(K, op, st, i);
    bool seen = false;
    for (int j = 0; j < n; j++) seen |= buf[j] == op->acc[i].buf;
    if (!w || seen) continue;
    bool blk = !K->bufs[op->acc[i].buf].warp_tiles;
    if (blk && warp_only) n = 0; /* only the block conflicts are said when there is one */
    if (!blk && !warp_only) continue;
    warp_only &= !blk;
    why[n] = w;
    buf[n++] = op->acc[i].buf;
  }
  *block = !warp_only;
  if (!n) return NULL;
  if (warp_only) n = 1; /* the first, as before */
  Buf r = {0};
  for (int g = 0; g < n; g++) {
    if (!why[g]) continue; /* said with an earlier group */
    int names[TIR_MAX_ACCESS], k = 0;
    for (int h = g; h < n; h++)
      if (why[h] && strcmp(why[h], why[g]) == 0) names[k++] = h;
    buf_puts(&r, r.len ? "; " : "");
    for (int m = 0; m < k; m++)
      buf_printf(&r, "%s%s", m == 0 ? "" : m + 1 == k ? " and " : ", ", K->bufs[buf[names[m]]].cname);
    buf_printf(&r, ": %s", why[g]);
    for (int m = 1; m < k; m++) why[names[m]] = NULL;
  }
  const char *out = arena_strndup(K->a, r.data, r.len);
  buf_free(&r);
  return out;
}

/* After a __syncwarp: what every warp did to its own tiles is ordered. */
static void warp_clear(const TirKernel *K, SyncState *st) {
  for (int b = 0; b < K->nbufs; b++)
    if (K->bufs[b].warp_tiles) {
      st->acc[b] = st->cross[b] = st->rstale[b] = st->wstale[b] = 0;
      st->wop[b] = NULL;
      memset(st->rop[b], 0, sizeof st->rop[b]);
      memset(st->wset[b], 0, sizeof st->wset[b]);
      st->nrop[b] = st->nwset[b] = 0;
      st->atom[b] = 0;
    }
}

static void record(const TirOp *op, SyncState *st) {
  for (int i = 0; i < op->nacc; i++) {
    int b = op->acc[i].buf, line = op->stmt ? op->stmt->loc.line : 0;
    if (op->acc[i].write) {
      /* several writers: NULL, but for element stores of thread 0 (one thread, in order) */
      bool one = st->wop[b] && thread0_store(op) && thread0_store(st->wop[b]);
      st->wop[b] = (st->acc[b] & ST_W) && st->wop[b] != op && !one ? NULL : op;
      add_op(st->wset[b], &st->nwset[b], op);
      st->atom[b] = !(st->acc[b] & ST_W) ? (op->atomic ? op->atomic : -1) : st->atom[b] == op->atomic ? op->atomic : -1;
      st->acc[b] |= ST_W;
      if (!op->acc[i].own) st->cross[b] |= ST_W;
      st->wline[b] = line;
    } else {
      add_op(st->rop[b], &st->nrop[b], op);
      st->acc[b] |= ST_R;
      if (!op->acc[i].own) st->cross[b] |= ST_R;
      st->rline[b] = line;
    }
  }
}

static void run_block(TirKernel *K, TirBlock *b, SyncState *st, SyncLoop *loop, bool real, bool nobar);

/* Whether some op of a thread-dependent region would need a barrier in state st. */
static bool region_conflicts(TirKernel *K, const TirBlock *b, const SyncState *st) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    SyncState s = *st;
    for (int k = 0; k < TIR_MAX_BUFS; k++) { /* no op is the writer here */
      s.wop[k] = NULL;
      if (s.nwset[k]) add_op(s.wset[k], &s.nwset[k], NULL);
    }
    bool block;
    if (conflict(K, op, &s, &block) || region_conflicts(K, &op->body, st) || region_conflicts(K, &op->els, st)) return true;
  }
  return false;
}

/* A while loop tests its condition again after each iteration: what the
 * condition reads (a shared copy the body writes again, lower.c) needs a
 * barrier before the next test, at the end of the body and before each of
 * the loop's continues, when the iteration's accesses conflict with it. The
 * barrier goes into out. */
static void test_again(TirKernel *K, const TirOp *op, SyncState *st, bool real, bool nobar, PtrVec *out) {
  if (!op || op->kind != TO_WHILE || !op->nacc) return;
  bool block = true;
  const char *why = nobar ? NULL : conflict(K, op, st, &block);
  if (why) {
    if (block) memset(st, 0, sizeof *st);
    else warp_clear(K, st);
    count(block, op, why);
    if (real) {
      TirOp *bar = tir_new_op(K, NULL, TO_BARRIER, op->stmt);
      bar->reason = block ? arena_printf(K->a, "%s, before the next test", why)
                          : arena_printf(K->a, "%s, all of them in this warp, before the next test", why);
      bar->warp = !block;
      bar->only = ps->view;
      vec_push(K->a, out, bar);
      if (block) K->nbarriers++;
      else K->nwarpbars++;
    }
  }
  record(op, st);
}

/* A dry run of a loop from a state it was run from before gives what it
 * gave then: the results of every dry run (the state after the loop and the
 * barriers counted), by loop, state and the pass's settings, in a table that
 * grows and forgets nothing. Without them a nest of loops costs the product
 * of the fixpoint rounds of its levels; a table that evicted (a slot per
 * hash, as it once was) gave that product back whenever two levels' entries
 * collided, which depended on where the ops were allocated. Past MEMO_MAX
 * entries (some 60 MB), new runs are not kept. */
enum { MEMO_MAX = 1 << 14 };
struct Memo {
  const TirOp *op;
  SyncState in, out;
  bool nobar, asking;
  int view;
  const char *here;
  Placed placed; /* the barriers the run counted */
  uint64_t hash;
};
typedef struct MemoTable {
  Memo *ents;        /* n of them */
  int n, nalloc;
  int *slots;        /* cap of them, a power of two: index + 1 into ents, 0 when empty */
  int cap;
  long runs;         /* run_loop's runs, real and dry (not taken from the table) */
} MemoTable;

static uint64_t memo_hash(const TirOp *op, const SyncState *st, bool nobar) {
  uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)(uintptr_t)op ^ (uint64_t)nobar << 1 ^ (uint64_t)ps->asking << 2 ^
               (uint64_t)ps->view << 3 ^ (uint64_t)(uintptr_t)ps->here << 5;
  const unsigned char *p = (const unsigned char *)st;
  for (size_t i = 0; i < sizeof *st; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

static bool memo_is(const Memo *m, uint64_t h, const TirOp *op, const SyncState *st, bool nobar) {
  return m->hash == h && m->op == op && m->nobar == nobar && m->asking == ps->asking && m->view == ps->view &&
         m->here == ps->here && !memcmp(&m->in, st, sizeof *st);
}

/* The entry of (op, st, nobar, the pass's settings), or NULL. */
static Memo *memo_find(MemoTable *t, uint64_t h, const TirOp *op, const SyncState *st, bool nobar) {
  if (!t->cap) return NULL;
  for (size_t i = h & (size_t)(t->cap - 1);; i = (i + 1) & (size_t)(t->cap - 1)) {
    if (!t->slots[i]) return NULL;
    Memo *m = &t->ents[t->slots[i] - 1];
    if (memo_is(m, h, op, st, nobar)) return m;
  }
}

static void memo_slot_in(MemoTable *t, int e) {
  size_t i = t->ents[e].hash & (size_t)(t->cap - 1);
  while (t->slots[i]) i = (i + 1) & (size_t)(t->cap - 1);
  t->slots[i] = e + 1;
}

/* Keeps the run of op from in, which gave out and placed (not there yet),
 * unless the table is full or out of memory: a run not kept runs again. */
static void memo_add(MemoTable *t, uint64_t h, const TirOp *op, const SyncState *in, const SyncState *out, bool nobar,
                     const Placed *placed) {
  if (t->n >= MEMO_MAX) return;
  if (t->n == t->nalloc) {
    int na = t->nalloc ? 2 * t->nalloc : 64;
    Memo *e = realloc(t->ents, (size_t)na * sizeof *e);
    if (!e) return;
    t->ents = e, t->nalloc = na;
  }
  if (2 * (t->n + 1) > t->cap) { /* at most half full */
    int nc = t->cap ? 2 * t->cap : 128;
    int *sl = calloc((size_t)nc, sizeof *sl);
    if (!sl) return;
    free(t->slots);
    t->slots = sl, t->cap = nc;
    for (int i = 0; i < t->n; i++) memo_slot_in(t, i);
  }
  Memo *m = &t->ents[t->n];
  m->op = op, m->in = *in, m->out = *out, m->nobar = nobar, m->asking = ps->asking, m->view = ps->view,
  m->here = ps->here, m->placed = *placed, m->hash = h;
  memo_slot_in(t, t->n++);
}

static void run_loop(TirKernel *K, TirOp *op, SyncState *st, bool real, bool nobar);

/* Adds the barriers counted in d to placed. */
static void add_placed(const Placed *d) {
  ps->placed.block += d->block, ps->placed.warp += d->warp;
  for (int i = 0; i < d->nkept && ps->placed.nkept < PLACED_KEEP; i++)
    ps->placed.op[ps->placed.nkept] = d->op[i], ps->placed.why[ps->placed.nkept++] = d->why[i];
}

/* run_loop, dry, through the memo. */
static void dry_loop(TirKernel *K, TirOp *op, SyncState *st, bool nobar) {
  uint64_t h = memo_hash(op, st, nobar);
  const Memo *m = memo_find(ps->memo, h, op, st, nobar);
  if (m) {
    *st = m->out;
    add_placed(&m->placed);
    return;
  }
  Placed before = ps->placed;
  SyncState in = *st;
  memset(&ps->placed, 0, sizeof ps->placed); /* what this loop places, alone */
  run_loop(K, op, st, false, nobar);
  Placed mine = ps->placed;
  memo_add(ps->memo, h, op, &in, st, nobar, &mine);
  ps->placed = before;
  add_placed(&mine);
}

static void run_loop(TirKernel *K, TirOp *op, SyncState *st, bool real, bool nobar) {
  ps->memo->runs++;
  SyncState head = *st, s;
  SyncLoop lp;
  Placed before = ps->placed; /* only the last pass's barriers are the loop's */
  for (int round = 0; round < 64; round++) {
    s = head;
    lp = (SyncLoop){.op = op};
    run_block(K, &op->body, &s, &lp, false, nobar);
    test_again(K, op, &s, false, nobar, NULL);
    if (lp.has_cont) join_in(&s, &lp.cont); /* the state at the end of an iteration */
    at_back_edge(K, &s);
    lp.brk = *st; /* no longer needed this round: the next head, the entry's state joined with it */
    join_in(&lp.brk, &s);
    if (same(&lp.brk, &head)) break;
    head = lp.brk;
  }
  ps->placed = before;
  s = head;
  lp = (SyncLoop){.op = op};
  run_block(K, &op->body, &s, &lp, real, nobar);
  test_again(K, op, &s, real, nobar, &op->body.ops);
  *st = head;
  if (lp.has_brk) join_in(st, &lp.brk);
}

static void run_op(TirKernel *K, TirOp *op, SyncState *st, SyncLoop *loop, bool nobar) {
  switch (op->kind) {
  case TO_FOR: case TO_WHILE: dry_loop(K, op, st, nobar); return; /* real runs come from run_block */
  case TO_IF: {
    SyncState b = *st;
    run_block(K, &op->body, st, loop, false, nobar);
    run_block(K, &op->els, &b, loop, false, nobar);
    join_in(st, &b);
    return;
  }
  case TO_BREAK:
    if (loop->has_brk) join_in(&loop->brk, st);
    else loop->brk = *st;
    loop->has_brk = true;
    return;
  case TO_CONTINUE:
    if (loop->has_cont) join_in(&loop->cont, st);
    else loop->cont = *st;
    loop->has_cont = true;
    return;
  default: return;
  }
}

/* A loop whose body needs a block barrier only for what was done before it
 * (a copy made once, read in each iteration) gets that barrier once, before
 * the loop: the loop runs dry from the state at its entry and from none, and
 * when the second places fewer block barriers (and no more warp ones) the
 * reason the first gave is returned. */
static const char *before_loop(TirKernel *K, TirOp *op, const SyncState *st) {
  /* the dry runs here do not ask again for the loops inside: the counts of
   * both runs leave their hoists out alike */
  bool any = false;
  for (int b = 0; b < TIR_MAX_BUFS; b++) any |= st->acc[b] != 0;
  if (!any || ps->asking) return NULL;
  ps->asking = true;
  Placed saved = ps->placed, entry;
  const char *saved_here = ps->here;
  SyncState s = *st;
  memset(&ps->placed, 0, sizeof ps->placed);
  ps->here = "in the loop";
  record(op, &s);
  dry_loop(K, op, &s, false);
  entry = ps->placed;
  ps->here = saved_here;
  memset(&s, 0, sizeof s);
  memset(&ps->placed, 0, sizeof ps->placed);
  record(op, &s);
  dry_loop(K, op, &s, false);
  Placed none = ps->placed;
  ps->placed = saved;
  ps->asking = false;
  if (!(none.block < entry.block && none.warp <= entry.warp)) return NULL;
  /* the reason: the first barrier the entry state asked for that no state did */
  const char *why = entry.why[0];
  for (int i = 0; i < entry.nkept; i++) {
    bool also = false;
    for (int j = 0; j < none.nkept; j++) also |= none.op[j] == entry.op[i];
    if (!also) {
      why = entry.why[i];
      break;
    }
  }
  return arena_printf(K->a, "%s: once before the loop, not in each iteration", why);
}

/* The scratch reads right after the op at i of b that need the same barrier
 * (row reductions next to each other share one, layout.c): "; B too (written
 * at line L)" for each, or "" when none. */
static const char *served_too(TirKernel *K, const TirBlock *b, int i, const SyncState *st) {
  Buf out = {0};
  for (int j = i + 1; j < b->ops.len; j++) {
    const TirOp *o = b->ops.items[j];
    if (o->kind != TO_SCRATCH_READ || absent(o)) break;
    bool blk;
    if (conflict(K, o, st, &blk))
      buf_printf(&out, "; %s too (written at line %d)", K->bufs[o->buf].cname, st->wline[o->buf]);
  }
  const char *s = arena_printf(K->a, "%s", out.data ? out.data : "");
  buf_free(&out);
  return s;
}

static void run_block(TirKernel *K, TirBlock *b, SyncState *st, SyncLoop *loop, bool real, bool nobar) {
  PtrVec out = {0};
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    /* no barrier may go under thread-dependent control: one before the region
     * covers what its ops need, and none inside it */
    bool region = !nobar && op->td && (op->kind == TO_IF || op->kind == TO_FOR || op->kind == TO_WHILE);
    if (absent(op)) { /* the other body's */
      if (real) vec_push(K->a, &out, op);
      continue;
    }
    if (op->kind == TO_BARRIER) { /* one a stage ring's protocol placed (pipeline.c), or a view before this one */
      if (op->warp) warp_clear(K, st);
      else memset(st, 0, sizeof *st);
      if (real) vec_push(K->a, &out, op);
      continue;
    }
    bool block = true;
    const char *why = nobar ? NULL : conflict(K, op, st, &block);
    if (!why && region && (region_conflicts(K, &op->body, st) || region_conflicts(K, &op->els, st))) {
      why = arena_printf(K->a, "before code that only some threads run (line %d), which touches what other "
                               "threads touched", op->stmt->loc.line);
      block = true;
    }
    if (!why && !nobar && !region && (op->kind == TO_FOR || op->kind == TO_WHILE) && (why = before_loop(K, op, st)))
      block = true;
    if (why && real && block && op->kind == TO_SCRATCH_READ) why = arena_printf(K->a, "%s%s", why, served_too(K, b, i, st));
    if (why) {
      if (block) memset(st, 0, sizeof *st);
      else warp_clear(K, st);
      count(block, op, why);
      if (real) {
        TirOp *bar = tir_new_op(K, NULL, TO_BARRIER, op->stmt);
        bar->reason = block ? why : arena_printf(K->a, "%s, all of them in this warp", why);
        bar->warp = !block;
        bar->only = ps->view;
        bar->first = op->first; /* the statement's comment heads its barrier too */
        op->first = false;
        vec_push(K->a, &out, bar);
        if (block) K->nbarriers++;
        else K->nwarpbars++;
      }
    }
    if (op->kind == TO_CONTINUE) test_again(K, loop->op, st, real, nobar, &out);
    if (real) vec_push(K->a, &out, op);
    record(op, st); /* what the op itself reads (a loop's bounds, a condition) comes first */
    bool nb = nobar || region;
    if (real && (op->kind == TO_FOR || op->kind == TO_WHILE)) run_loop(K, op, st, true, nb);
    else if (real && op->kind == TO_IF) {
      SyncState c = *st;
      run_block(K, &op->body, st, loop, true, nb);
      run_block(K, &op->els, &c, loop, true, nb);
      join_in(st, &c);
    } else run_op(K, op, st, loop, nb);
  }
  if (real) b->ops = out;
}

static bool has_only(const TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->only || has_only(&op->body) || has_only(&op->els)) return true;
  }
  return false;
}

/* A barrier the two views both placed before the same op is one barrier of both bodies. */
static void merge_views(TirKernel *K, TirBlock *b) {
  PtrVec out = {0};
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    merge_views(K, &op->body);
    merge_views(K, &op->els);
    TirOp *prev = out.len ? out.items[out.len - 1] : NULL;
    if (op->kind == TO_BARRIER && prev && prev->kind == TO_BARRIER && prev->only == TIR_FAST && op->only == TIR_GENERAL &&
        prev->warp == op->warp && prev->reason && op->reason && !strcmp(prev->reason, op->reason)) {
      prev->only = 0;
      if (op->first) prev->first = true;
      if (op->warp) K->nwarpbars--;
      else K->nbarriers--;
      continue;
    }
    vec_push(K->a, &out, op);
  }
  b->ops = out;
}

static void place(TirKernel *K) {
  SyncState st;
  memset(&st, 0, sizeof st);
  SyncLoop top = {0};
  run_block(K, &K->body, &st, &top, true, false);
}

static void place_views(TirKernel *K) {
  if (!K->versioned || !has_only(&K->body)) {
    ps->view = 0;
    place(K);
    return;
  }
  /* the fast body first: its barriers are in place (and absent from the
   * general view) when the general body's are placed */
  ps->view = TIR_FAST;
  place(K);
  ps->view = TIR_GENERAL;
  place(K);
  ps->view = 0;
  merge_views(K, &K->body);
}

void sync_place(TirKernel *K) {
  /* a fresh memo each time: smem.c runs the pass again once buffers share bytes */
  MemoTable memo = {0};
  Pass pass = {.here = "here", .memo = &memo}, *outer = ps;
  ps = &pass;
  place_views(K);
  K->sync_loop_runs = memo.runs;
  free(memo.ents);
  free(memo.slots);
  ps = outer;
}
