/* tir.c: the tile IR's objects, its text dump (--dump-tir), and the driver
 * that runs the stages in order.
 *
 * A TirKernel is a tree of blocks of ops (t2c.h). Elementwise ops keep the
 * checked AST expression they compute; every subexpression that is not
 * elementwise (a tensor slice read, a reduction) was hoisted by lower.c into
 * an op of its own writing a TirVar, and the expression's node maps to that
 * var (TirKernel.hkeys/hvals). So an op's expression reads only values that
 * are already in registers, and every memory access of the kernel is an op.
 */
#include "t2c.h"

#include <inttypes.h>
#include <string.h>

TirVar *tir_new_var(TirKernel *K, ElemType elem, int rank, int rows, int cols, const char *what) {
  TirVar *v = NEW(K->a, TirVar);
  v->id = K->vars.len;
  v->elem = elem;
  v->rank = rank;
  v->rows = rows;
  v->cols = cols;
  v->what = what;
  vec_push(K->a, &K->vars, v);
  return v;
}

void tir_drop_var(TirKernel *K, const TirVar *v) {
  int n = 0;
  for (int i = 0; i < K->vars.len; i++)
    if (K->vars.items[i] != v) {
      ((TirVar *)K->vars.items[i])->id = n;
      K->vars.items[n++] = K->vars.items[i];
    }
  K->vars.len = n;
}

void tir_drop_op(PtrVec *ops, int k) {
  TirOp *op = ops->items[k];
  if (op->first && k + 1 < ops->len && ((TirOp *)ops->items[k + 1])->stmt == op->stmt)
    ((TirOp *)ops->items[k + 1])->first = true; /* the statement's comment stays */
  memmove(&ops->items[k], &ops->items[k + 1], (size_t)(ops->len - k - 1) * sizeof ops->items[0]);
  ops->len--;
}

TirOp *tir_new_op(TirKernel *K, TirBlock *b, TirOpKind kind, Stmt *s) {
  TirOp *op = NEW(K->a, TirOp);
  op->kind = kind;
  op->stmt = s;
  op->op = TK_ASSIGN;
  op->buf = -1;
  if (b) vec_push(K->a, &b->ops, op);
  return op;
}

TirVar *tir_hoisted(const TirKernel *K, const Expr *x) {
  for (int i = 0; i < K->hkeys.len; i++)
    if (K->hkeys.items[i] == x) return K->hvals.items[i];
  return NULL;
}

TirVar *tir_var_of(const TirKernel *K, const Sym *y) {
  TirVar *one = NULL;
  for (int i = 0; i < K->vars.len; i++) {
    TirVar *v = K->vars.items[i];
    if (v->sym == y && one) return NULL;
    if (v->sym == y) one = v;
  }
  return one;
}

TirRead *tir_read(const TirKernel *K, const Expr *x) {
  for (int i = 0; i < K->rkeys.len; i++)
    if (K->rkeys.items[i] == x) return K->rvals.items[i];
  return NULL;
}

bool tir_mentions(const TirKernel *K, const Expr *x, const TirVar *v, bool copies) {
  if (!x) return false;
  const TirRead *rd = tir_read(K, x);
  if (rd) return copies && K->bufs[rd->buf].spill_of == v;
  const TirVar *h = tir_hoisted(K, x);
  if (h) return h == v;
  switch (x->kind) {
  case E_IDENT: return v->sym && x->u.ident.sym == v->sym;
  case E_MEMBER: return tir_mentions(K, x->u.member.base, v, copies);
  case E_UNARY: return tir_mentions(K, x->u.unary.a, v, copies);
  case E_BINARY: return tir_mentions(K, x->u.binary.a, v, copies) || tir_mentions(K, x->u.binary.b, v, copies);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (tir_mentions(K, x->u.call.args[i], v, copies)) return true;
    return false;
  case E_INDEX:
    if (tir_mentions(K, x->u.index.base, v, copies)) return true;
    for (int i = 0; i < x->u.index.nidx; i++)
      if (tir_mentions(K, x->u.index.idx[i].start, v, copies) || tir_mentions(K, x->u.index.idx[i].len, v, copies))
        return true;
    return false;
  default: return false;
  }
}

bool tir_names_sym(const Expr *x, const Sym *y) {
  if (!x) return false;
  switch (x->kind) {
  case E_IDENT: return x->u.ident.sym == y;
  case E_MEMBER: return tir_names_sym(x->u.member.base, y);
  case E_UNARY: return tir_names_sym(x->u.unary.a, y);
  case E_BINARY: return tir_names_sym(x->u.binary.a, y) || tir_names_sym(x->u.binary.b, y);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (tir_names_sym(x->u.call.args[i], y)) return true;
    return false;
  case E_INDEX:
    if (tir_names_sym(x->u.index.base, y)) return true;
    for (int i = 0; i < x->u.index.nidx; i++)
      if (tir_names_sym(x->u.index.idx[i].start, y) || tir_names_sym(x->u.index.idx[i].len, y)) return true;
    return false;
  default: return false;
  }
}

/* Whether the indices of slice (a load's or a store's) mention v. A load's
 * slice is also the key of the value it loads (tir_hoisted), so it is not
 * looked up as a whole. */
bool tir_slice_mentions(const TirKernel *K, const Expr *slice, const TirVar *v) {
  if (!slice || slice->kind != E_INDEX) return tir_mentions(K, slice, v, true);
  for (int i = 0; i < slice->u.index.nidx; i++)
    if (tir_mentions(K, slice->u.index.idx[i].start, v, true) || tir_mentions(K, slice->u.index.idx[i].len, v, true))
      return true;
  return false;
}

bool tir_op_touches(const TirKernel *K, const TirOp *op, const TirVar *v) {
  if (op->dst == v || op->src == v || op->src2 == v) return true;
  if (op->kind == TO_SCALAR && tir_stmt_mentions(K, op, v, NULL)) return true; /* a scalar statement's value */
  return tir_mentions(K, op->expr, v, true) || tir_slice_mentions(K, op->slice, v) || tir_mentions(K, op->pad, v, true) ||
         tir_mentions(K, op->uguard, v, true) || tir_mentions(K, op->win[0], v, true) || tir_mentions(K, op->win[1], v, true);
}

Expr *tir_read_of(TirKernel *K, TirVar *v) {
  Expr *x = NEW(K->a, Expr);
  x->kind = E_IDENT;
  x->u.ident.name = v->cname;
  x->ty = (Type){v->elem, v->rank, {v->rows, v->cols}, false};
  vec_push(K->a, &K->hkeys, x);
  vec_push(K->a, &K->hvals, v);
  return x;
}

/* ------------------------------------------------------------ scans and arg-reductions */

ElemType tir_acc_type(ElemType t) {
  switch (t) {
  case T_F16: case T_BF16: case T_F8E4M3: case T_F8E5M2: return T_F32;
  case T_I8: case T_U8: return T_I32;
  default: return t;
  }
}

/* Along a row: the thread's rows are its lines, its repeats across are the
 * segments, a run is the inner part, and lanes lc (adjacent) and warps wc lie
 * along the line. Down a column: its columns are the lines (rc runs of vec),
 * the repeats down are the segments, one element each, and lanes lr (lc apart)
 * and warps wr lie along the line. A slice has one line: the value is one
 * column ([rows, 1], dim 1) or one row ([1, cols], dim 0). The mma
 * accumulator has the same parts; its warps hold contiguous blocks, as a
 * blocked layout's do in warp tiles (a column scan's, layout.c colscan_fn). */
ScanGeom tir_scan_geom(const TirOp *op) {
  const Layout *l = op->lay, *p = l->kind == LY_SLICE ? l->parent : l;
  bool one_col = l->kind == LY_SLICE && l->dim == 1, one_row = l->kind == LY_SLICE && l->dim == 0;
  if (op->axis == 1)
    return (ScanGeom){one_row ? 1 : p->rr, p->rc, p->vec, p->lc, 1, p->wc, one_row ? 1 : p->rows, layout_warp_tiles(p)};
  return (ScanGeom){one_col ? 1 : p->rc * p->vec, p->rr, 1, p->lr, p->lc, p->wr, one_col ? 1 : p->cols, layout_warp_tiles(p)};
}

/* Whether dot b reads dot a's A operand as a does (tir_dots_sharing_a). */
static bool shares_a(const TirOp *a, const TirOp *b) {
  if (a->kind != TO_DOT || b->kind != TO_DOT || a->simt || b->simt || a->wgmma || b->wgmma || !a->src || !b->src)
    return false;
  return a->buf >= 0 && a->buf == b->buf && a->atrans == b->atrans && a->lay && a->lay->mma && a->lay == b->lay &&
         !a->frag && !b->frag && !a->nend && !b->nend && !a->rolled_k && !b->rolled_k && a->kdim == b->kdim &&
         a->src->elem == b->src->elem && a->src2->elem == b->src2->elem && !a->dst->home && !b->dst->home &&
         a->only == b->only;
}

int tir_dots_sharing_a(void *const *ops, int len, int i, bool same_k, TirOp **with) {
  const TirOp *a = ops[i];
  int n = 0;
  while (n < TIR_MAX_SHARE_A && i + 1 + n < len) {
    TirOp *b = ops[i + 1 + n];
    if (!shares_a(a, b) || (same_k && (b->kbeg != a->kbeg || b->kend != a->kend)) || b->dst == a->dst) break;
    bool twice = false; /* a value accumulated twice: its mma stay in program order */
    for (int k = 0; k < n; k++) twice |= with[k]->dst == b->dst;
    if (twice) break;
    with[n++] = b;
  }
  return n;
}

bool tir_down_cols(const TirOp *op) {
  return (op->kind == TO_REDUCE || op->kind == TO_SCRATCH_WRITE || op->kind == TO_SCRATCH_READ) &&
         (op->red == B_COLSUM || op->red == B_COLMAX || op->red == B_COLMIN || op->red == B_COLARGMAX ||
          op->red == B_COLARGMIN);
}

void tir_scan_at(const TirOp *op, int l, int s, int i, int *ir, int *ic, int *v) {
  const Layout *p = op->lay->kind == LY_SLICE ? op->lay->parent : op->lay;
  if (op->axis == 1) {
    *ir = l, *ic = s, *v = i;
    return;
  }
  *ir = s, *ic = l / p->vec, *v = l % p->vec;
}

/* ------------------------------------------------------------ the register budget */

/* Live ranges over the ops in program order: a value lives from its first to
 * its last mention, and over a whole loop when it is mentioned both inside the
 * loop and outside it (it is carried from one iteration to the next). Counting
 * what ptxas holds (held: tir_value_held), a declaration mentions nothing (`var e =
 * exp(x - rowmax(x))` declares e before the row max, but its registers are
 * written only at the exp), and a value declared before a loop and mentioned only
 * inside it lives over the whole loop. */
typedef struct Live {
  const TirKernel *K;
  int *first, *last;
  int *decl;                 /* the position of each value's declaration (TO_DECL), or -1 */
  PtrVec assigns;            /* held: the elementwise assigns, and their positions (reuse_credit) */
  PtrVec assign_pos;
  bool held;
  int pos;
  int *lo, *hi, nloops, cap; /* the loops' first and last positions */
  const TirOp *want;         /* tir_value_regs_at's op, and its position */
  int want_pos;
} Live;

static void mention(Live *lv, const TirVar *v) {
  if (!v) return;
  if (lv->first[v->id] < 0) lv->first[v->id] = lv->pos;
  lv->last[v->id] = lv->pos;
}

static void mention_expr(Live *lv, const Expr *x) {
  if (!x || tir_read(lv->K, x)) return;
  const TirVar *h = tir_hoisted(lv->K, x);
  if (h) {
    mention(lv, h);
    return;
  }
  switch (x->kind) {
  case E_IDENT:
    for (int i = 0; i < lv->K->vars.len; i++) {
      const TirVar *v = lv->K->vars.items[i];
      if (v->sym && v->sym == x->u.ident.sym) mention(lv, v);
    }
    return;
  case E_UNARY: mention_expr(lv, x->u.unary.a); return;
  case E_BINARY: mention_expr(lv, x->u.binary.a); mention_expr(lv, x->u.binary.b); return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) mention_expr(lv, x->u.call.args[i]);
    return;
  default: return;
  }
}

static void live_block(Live *lv, const TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    lv->pos++;
    if (op == lv->want) lv->want_pos = lv->pos;
    if (op->kind != TO_DECL || !lv->held) mention(lv, op->dst);
    if (op->kind == TO_DECL && lv->held && op->dst && lv->decl[op->dst->id] < 0) lv->decl[op->dst->id] = lv->pos;
    if (lv->held && op->kind == TO_ASSIGN && op->op == TK_ASSIGN && !op->has_win && !op->win[0] && !op->win[1] && op->dst &&
        op->dst->layout == op->lay && !op->dst->home) {
      vec_push(lv->K->a, &lv->assigns, (void *)op);
      vec_push(lv->K->a, &lv->assign_pos, (void *)(intptr_t)lv->pos);
    }
    if (op->kind != TO_DOT) mention(lv, op->src); /* a dot reads its operands' copies */
    for (int d = 0; op->gather && d < op->slice->u.index.nidx; d++) mention_expr(lv, op->slice->u.index.idx[d].start);
    mention_expr(lv, op->expr);
    bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
    int lo = lv->pos;
    live_block(lv, &op->body);
    live_block(lv, &op->els);
    if (loop && lv->nloops < lv->cap) {
      lv->lo[lv->nloops] = lo;
      lv->hi[lv->nloops++] = lv->pos;
    }
  }
}

/* The most 32-bit registers the values with a layout hold at any one op. */
int tir_value_regs(const TirKernel *K) { return tir_value_peak(K, NULL); }

int tir_thread_regs(const TargetConfig *t, int threads, int blocks) {
  if (!t->regs_per_sm || !t->max_regs_per_thread || threads <= 0) return 0;
  int r = t->regs_per_sm / (threads * (blocks > 0 ? blocks : 1)) / 8 * 8;
  return r < t->max_regs_per_thread ? r : t->max_regs_per_thread;
}

/* The values' live ranges (first and last positions), op's position in want_pos. */
static Live live_ranges(const TirKernel *K, const TirOp *op, bool held) {
  int n = K->vars.len;
  Live lv = {K, NEW_ARRAY(K->a, int, n), NEW_ARRAY(K->a, int, n), NEW_ARRAY(K->a, int, n), {0}, {0}, held,
             0, NEW_ARRAY(K->a, int, 256), NEW_ARRAY(K->a, int, 256), 0, 256, op, -1};
  for (int i = 0; i < n; i++) lv.first[i] = lv.decl[i] = -1;
  live_block(&lv, &K->body);
  /* inner loops come first (they close first): an outer loop extends what they extended */
  for (int l = 0; l < lv.nloops; l++)
    for (int i = 0; i < n; i++) {
      if (lv.first[i] < 0 || lv.last[i] < lv.lo[l] || lv.first[i] > lv.hi[l]) continue;
      if (lv.first[i] < lv.lo[l] || lv.last[i] > lv.hi[l] || (lv.decl[i] >= 0 && lv.decl[i] < lv.lo[l])) {
        if (lv.first[i] > lv.lo[l]) lv.first[i] = lv.lo[l];
        if (lv.last[i] < lv.hi[l]) lv.last[i] = lv.hi[l];
      }
    }
  return lv;
}

static int value_regs(const TirVar *v) {
  if (v->packed || v->cvt_packed) return tir_packed_words(v->elem, layout_count(v->layout));
  return layout_count(v->layout) / (v->parts ? v->parts : 1) * (elem_bytes[v->elem] > 4 ? 2 : 1);
}

/* The 32-bit words that n elements of type e take packed (TirVar.packed), or 0 when they
 * cannot be: elements of 1 or 2 bytes filling whole words. */
int tir_packed_words(ElemType e, int n) {
  int b = elem_bytes[e];
  return (b == 1 || b == 2) && n * b % 4 == 0 ? n * b / 4 : 0;
}

/* An elementwise assign at p in its value's layout, the value's first write, that reads
 * a value of that layout for the last time: each element's result is computed where
 * that element's operand dies, so the two share their registers (e = exp(x - m), x
 * not read again: max(x, e), not x + e). The registers shared, or 0. */
static int reuse_credit(const Live *lv, int p) {
  int best = 0;
  for (int k = 0; k < lv->assigns.len; k++) {
    if ((intptr_t)lv->assign_pos.items[k] != p) continue;
    const TirOp *op = lv->assigns.items[k];
    if (lv->first[op->dst->id] != p) return 0;
    for (int i = 0; i < lv->K->vars.len; i++) {
      const TirVar *v = lv->K->vars.items[i];
      if (v == op->dst || v->layout != op->lay || v->direct || v->home || v->fused || lv->last[i] != p ||
          lv->first[i] >= p || !tir_mentions(lv->K, op->expr, v, false))
        continue;
      int r = value_regs(v) < value_regs(op->dst) ? value_regs(v) : value_regs(op->dst);
      if (r > best) best = r;
    }
  }
  return best;
}

/* The registers of the values live at position p. */
static int live_at(const Live *lv, int p) {
  int sum = lv->held ? -reuse_credit(lv, p) : 0;
  for (int i = 0; i < lv->K->vars.len; i++) {
    const TirVar *v = lv->K->vars.items[i];
    if (v->layout && !v->direct && !v->home && !v->fused && lv->first[i] >= 0 && lv->first[i] <= p && p <= lv->last[i])
      sum += value_regs(v);
  }
  return sum;
}

int tir_value_regs_at(const TirKernel *K, const TirOp *op) {
  if (!K->vars.len) return 0;
  Live lv = live_ranges(K, op, false);
  return lv.want_pos < 0 ? 0 : live_at(&lv, lv.want_pos);
}

/* The same, and the values live at the first op where they hold the most (into at, when not
 * NULL); held: as ptxas holds them (tir_value_held). */
static int value_peak(const TirKernel *K, PtrVec *at, bool held) {
  int n = K->vars.len;
  if (!n) return 0;
  Live lv = live_ranges(K, NULL, held);
  int peak = 0, where = -1;
  for (int p = 0; p <= lv.pos; p++) {
    int sum = live_at(&lv, p);
    if (sum > peak) peak = sum, where = p;
  }
  for (int i = 0; at && where >= 0 && i < n; i++) {
    TirVar *v = K->vars.items[i];
    if (v->layout && !v->direct && !v->home && !v->fused && lv.first[i] >= 0 && lv.first[i] <= where && where <= lv.last[i])
      vec_push(K->a, at, v);
  }
  return peak;
}

int tir_value_peak(const TirKernel *K, PtrVec *at) { return value_peak(K, at, false); }
int tir_value_held(const TirKernel *K, PtrVec *at) { return value_peak(K, at, true); }

/* A @registers tile keeps the seed's cap of 64 per thread; an mma accumulator
 * the translator placed itself may hold 128 f32 per thread: m64n256k16's (the
 * 128 x 256 tiles of a Hopper GEMM, two warpgroups), or a 64 x 64 warp tile of
 * mma.sync's (the 128 x 256 tiles of an sm_80 GEMM, eight warps). */
int tir_value_cap(const TirVar *v) {
  bool pinned = v->sym && v->sym->place == PL_REGISTER;
  return v->layout && v->layout->mma && !pinned ? TIR_MAX_WG_REGS : MAX_REGS;
}

/* A new copy of v (plain, or transposed). */
/* The name of v's copy f: v's name and _s (_t transposed), numbered where another
 * buffer has it already (a copy lower.c gave another value, t = transpose(v): t's copy
 * holds v; one layout.c made v's, forward_windows). */
const char *tir_copy_cname(const TirKernel *K, const TirVar *v, bool trans, const TirBuf *f) {
  const char *c = arena_printf(K->a, "%s_%s", v->cname, trans ? "t" : "s");
  for (int i = 0, n = 2; i < K->nbufs; i++)
    if (&K->bufs[i] != f && strcmp(K->bufs[i].cname, c) == 0) {
      c = arena_printf(K->a, "%s_%s%d", v->cname, trans ? "t" : "s", n++);
      i = -1;
    }
  return c;
}

static int new_copy(TirKernel *K, TirVar *v, bool trans) {
  if (K->nbufs == TIR_MAX_BUFS) return -1;
  TirBuf *f = &K->bufs[K->nbufs];
  const char *name = v->sym ? v->sym->name : v->what;
  f->cname = tir_copy_cname(K, v, trans, f);
  f->what = trans ? arena_printf(K->a, "transposed shared copy of %s", name) : arena_printf(K->a, "shared copy of %s", name);
  f->elem = v->elem;
  f->rows = v->rows;
  f->cols = v->cols;
  f->trans = trans;
  f->pitch = v->cols > 1 ? v->cols + 1 : 1; /* + 1: a column read meets every bank once */
  f->spill_of = v;
  tir_buf_size(f);
  return K->nbufs++;
}

int tir_copy_buf(TirKernel *K, TirVar *v) {
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].spill_of == v && !K->bufs[i].trans) return i;
  return new_copy(K, v, false);
}

/* ", at byte O, sharing its bytes with a_s, b_s" for a buffer smem.c's reuse
 * gave bytes another one has at other times; "" otherwise. */
const char *tir_buf_shares(const TirKernel *K, int b) {
  if (!K->alias[b]) return "";
  Buf t = {0};
  buf_printf(&t, ", at byte %" PRId64 ", sharing its bytes with ", K->bufs[b].offset);
  int n = 0;
  for (int a = 0; a < K->nbufs; a++)
    if (K->alias[b] >> a & 1) buf_printf(&t, "%s%s", n++ ? ", " : "", K->bufs[a].cname);
  const char *r = arena_strndup(K->a, t.data, t.len);
  buf_free(&t);
  return r;
}

int64_t tir_buf_elems(const TirBuf *f) { return (int64_t)(f->trans ? f->cols : f->rows) * f->pitch; }

void tir_buf_size(TirBuf *f) {
  f->bytes = tir_buf_elems(f) * elem_bytes[f->elem] * (f->stages > 1 ? f->stages : f->alternating ? 2 : 1);
}

/* ldmatrix reads 8 rows of 16 bytes at once: rows 16-byte aligned, and 16 bytes
 * of padding per row put those 8 rows in 8 different groups of 4 banks. A
 * transposed copy is a buffer of its own (other readers want the plain one). */
int tir_operand_buf(TirKernel *K, TirVar *v, bool in_loop, bool trans) {
  int bi = -1;
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].spill_of == v && K->bufs[i].trans == trans) bi = i;
  if (bi < 0) bi = new_copy(K, v, trans);
  if (bi < 0) return -1;
  TirBuf *f = &K->bufs[bi];
  int pad = 16 / elem_bytes[f->elem], n = f->trans ? f->rows : f->cols;
  f->pitch = (n + pad - 1) / pad * pad + pad;
  f->alternating |= in_loop;
  f->operand = true;
  tir_buf_size(f);
  return bi;
}

/* ------------------------------------------------------------ layouts */

int layout_count(const Layout *l) {
  if (l->kind == LY_SCALAR) return 1;
  if (l->kind == LY_SLICE) return l->dim == 1 ? l->rr : l->rc * l->vec;
  return l->rr * l->rc * l->vec;
}

bool layout_padded(const Layout *l) {
  if (l->kind == LY_SCALAR) return false;
  const Layout *p = l->kind == LY_SLICE ? l->parent : l;
  return p->rr * p->wr * p->lr != p->rows || p->rc * p->wc * p->lc * p->vec != p->cols;
}

const char *layout_str(Arena *a, const Layout *l) {
  if (l->kind == LY_SCALAR) return "scalar (every thread)";
  if (l->kind == LY_SLICE) return arena_printf(a, "slice(L%d, dim %d)", l->parent->id, l->dim);
  return arena_printf(a, "L%d", l->id);
}

static const char *blocked_str(Arena *a, const Layout *l) {
  if (l->wg)
    return arena_printf(a, "[%d, %d] wgmma accumulator: warpgroups %d, warps 4 x 1 each, each warp 16 x %d", l->rows,
                        l->cols, l->wr / 4, l->cols);
  if (l->mma)
    return arena_printf(a, "[%d, %d] mma accumulator: warps %d x %d, each %d x %d tiles of 16 x 8", l->rows, l->cols,
                        l->wr, l->wc, l->rr / 2, l->rc);
  if (l->wtiles)
    return arena_printf(a, "[%d, %d] blocked in warp tiles: runs of %d, lanes %d x %d, warps %d x %d, each warp %d x %d, repeats %d x %d",
                        l->rows, l->cols, l->vec, l->lr, l->lc, l->wr, l->wc, l->rr * l->lr, l->rc * l->lc * l->vec, l->rr, l->rc);
  return arena_printf(a, "[%d, %d] blocked: runs of %d, lanes %d x %d, warps %d x %d, repeats %d x %d", l->rows,
                      l->cols, l->vec, l->lr, l->lc, l->wr, l->wc, l->rr, l->rc);
}

/* ------------------------------------------------------------ the dump */

static const char *op_names[] = {
  [TO_SCALAR] = "scalar", [TO_DECL] = "decl", [TO_LOAD] = "load", [TO_ASSIGN] = "assign",
  [TO_REDUCE] = "reduce", [TO_SCRATCH_WRITE] = "scratch_write", [TO_SCRATCH_READ] = "scratch_read",
  [TO_STORE] = "store", [TO_SPILL] = "spill", [TO_COLREDUCE] = "colreduce", [TO_SUM] = "sum", [TO_DOT] = "dot",
  [TO_FOR] = "for", [TO_WHILE] = "while", [TO_IF] = "if", [TO_BREAK] = "break",
  [TO_CONTINUE] = "continue", [TO_BARRIER] = "barrier", [TO_ASYNC_COPY] = "async_copy", [TO_SCAN] = "scan",
  [TO_ASYNC_COMMIT] = "async_commit", [TO_ASYNC_WAIT] = "async_wait", [TO_WG_WAIT] = "wgmma_wait", [TO_WG_PIN] = "wgmma_pin",
  [TO_WG_DEFER] = "wgmma_defer", [TO_FRAGS] = "fragments",
  [TO_TMA_INIT] = "tma_init", [TO_TMA_ISSUE] = "tma_issue", [TO_TMA_LOAD] = "tma_load", [TO_TMA_WAIT] = "tma_wait",
  [TO_TMA_RELEASE] = "tma_release", [TO_TMA_STORE] = "tma_store",
  [TO_TMA_BEGIN] = "tma_begin", [TO_TMA_END] = "tma_end",
};

static const char *tok_str(TokenKind k) {
  const char *t = op_text(k);
  return t ? t : "?";
}

static void expr_str(const TirKernel *K, const Expr *x, Buf *b);

static void index_str(const TirKernel *K, const Expr *x, Buf *b) {
  buf_printf(b, "%s[", x->u.index.base->u.ident.name);
  for (int i = 0; i < x->u.index.nidx; i++) {
    if (i) buf_puts(b, ", ");
    expr_str(K, x->u.index.idx[i].start, b);
    if (x->u.index.idx[i].len) {
      buf_puts(b, " :+ ");
      expr_str(K, x->u.index.idx[i].len, b);
    }
  }
  buf_puts(b, "]");
}

/* --dump-tir's own nodes: a value read from a shared copy (the copy), a hoisted one (%vN). */
static bool tir_own(const void *ctx, const Expr *x, Buf *b) {
  const TirKernel *K = ctx;
  TirRead *rd = tir_read(K, x);
  if (rd) {
    buf_printf(b, "%s%s", rd->kind == TR_TRANSPOSE ? "transpose " : "", K->bufs[rd->buf].cname);
    if (rd->kind == TR_WINDOW) {
      buf_puts(b, "[");
      for (int d = 0; d < rd->rank; d++) {
        if (d) buf_puts(b, ", ");
        if (rd->start[d]) expr_str(K, rd->start[d], b);
        else buf_puts(b, "0");
        if (rd->keep[d]) buf_puts(b, " :+");
      }
      buf_puts(b, "]");
    }
    return true;
  }
  TirVar *h = tir_hoisted(K, x);
  if (h) buf_printf(b, "%%%s", h->cname);
  return h != NULL;
}

/* The expression as .tl text, hoisted subexpressions as %vN. */
static void expr_str(const TirKernel *K, const Expr *x, Buf *b) { expr_text(b, x, false, tir_own, K); }

static void dump_block(const TirKernel *K, const TirBlock *blk, int depth, FILE *out);

static void dump_op(const TirKernel *K, const TirOp *op, int depth, FILE *out) {
  Buf b = {0};
  buf_printf(&b, "%*s%s", 2 * depth, "", op_names[op->kind]);
  if (op->dst) buf_printf(&b, " %%%s", op->dst->cname);
  switch (op->kind) {
  case TO_SCALAR: {
    Stmt *s = op->stmt;
    if (s->kind == S_VAR) {
      buf_printf(&b, " %s = ", s->u.decl.name);
      expr_str(K, s->u.decl.init, &b);
    } else {
      buf_puts(&b, " ");
      expr_str(K, s->u.assign.lhs, &b);
      buf_printf(&b, " %s ", tok_str(s->u.assign.op));
      expr_str(K, s->u.assign.rhs, &b);
    }
    break;
  }
  case TO_DECL:
    buf_printf(&b, ": %s%s", elem_names[op->dst->elem],
               op->dst->rank == 1 ? arena_printf(K->a, "[%d]", op->dst->cols)
                                  : arena_printf(K->a, "[%d, %d]", op->dst->rows, op->dst->cols));
    break;
  case TO_LOAD:
    if (op->pf_once) {
      buf_puts(&b, " (once, before the loop)");
    } else if (op->pf_var && op->pf_base) {
      buf_printf(&b, " (%s = ", op->pf_var->name);
      expr_str(K, op->pf_base, &b);
      buf_printf(&b, " + %d steps, before the loop)", op->pf_k);
    } else if (op->pf_var) {
      buf_printf(&b, " (%s + %d steps)", op->pf_var->name, op->pf_k);
    }
    buf_puts(&b, " = ");
    if (op->pad) buf_puts(&b, "pad(");
    index_str(K, op->slice, &b);
    if (op->pad) {
      buf_puts(&b, ", ");
      expr_str(K, op->pad, &b);
      buf_puts(&b, ")");
    }
    break;
  case TO_ASSIGN:
    buf_printf(&b, " %s ", tok_str(op->op));
    expr_str(K, op->expr, &b);
    if (op->nend) buf_printf(&b, "  {tiles across %d .. %d}", op->nbeg, op->nend - 1);
    if (op->uguard) {
      buf_printf(&b, "  {where() %s the first branch when ", op->nuwhere > 1 ? "each takes" : "takes");
      expr_str(K, op->uguard, &b);
      buf_puts(&b, "}");
    }
    break;
  case TO_REDUCE:
    buf_printf(&b, " %s %s(", op->intra ? (op->red == B_ROWSUM || op->red == B_COLSUM ? "+=" : "<-") : "=",
               builtin_names[op->red]);
    expr_str(K, op->expr, &b);
    buf_puts(&b, op->intra ? ") in each thread" : ")");
    if (op->from_arg) buf_printf(&b, " from %%%s's values", op->src->cname);
    break;
  case TO_SCAN:
    buf_printf(&b, " = %s(", builtin_names[op->red]);
    expr_str(K, op->expr, &b);
    buf_printf(&b, ") %s", op->axis == 1 ? "along rows" : "down columns");
    break;
  case TO_SPILL: buf_printf(&b, " -> %s%s", K->bufs[op->buf].cname, op->stm ? arena_printf(K->a, " by stmatrix.x%d", op->stm) : ""); break;
  case TO_COLREDUCE: buf_printf(&b, " = %s(%s)", builtin_names[op->red], K->bufs[op->buf].cname); break;
  case TO_SUM:
    buf_puts(&b, " = sum(");
    expr_str(K, op->expr, &b);
    buf_puts(&b, ")");
    break;
  case TO_DOT: {
    /* the program's operands: a transposed copy is read the other way round */
    bool ta = op->src && op->buf >= 0 && K->bufs[op->buf].trans, tb = op->buf2 >= 0 && K->bufs[op->buf2].trans;
    buf_printf(&b, " %s dot(", tok_str(op->op));
    if (op->src) buf_printf(&b, op->atrans != ta ? "transpose(%%%s)" : "%%%s", op->src->cname);
    else expr_str(K, op->expr, &b);
    buf_printf(&b, op->btrans != tb ? ", transpose(%%%s))" : ", %%%s)", op->src2->cname);
    if (op->src && op->buf >= 0) buf_printf(&b, " A from %s%s", K->bufs[op->buf].cname, ta ? " (stored transposed)" : "");
    if (!op->src && op->alay) buf_printf(&b, " A in registers (%s)", layout_str(K->a, op->alay));
    if (op->buf2 >= 0) buf_printf(&b, ", B from %s%s", K->bufs[op->buf2].cname, tb ? " (stored transposed)" : "");
    if (op->kend) buf_printf(&b, ", k %d .. %d of %d", op->kbeg, op->kend - 1, op->kdim);
    if (op->nend) buf_printf(&b, ", tiles across %d .. %d of %d", op->nbeg, op->nend - 1, op->lay->rc);
    if (op->rolled_k) buf_puts(&b, ", k steps in a loop");
    if (op->frag) buf_printf(&b, ", from fragment set %d", op->fset);
    if (op->wgmma) {
      bool b8 = op->src && elem_bytes[op->src->elem] == 1;
      buf_printf(&b, " by %s (m64n%dk%d)%s", b8 ? K->hw->wgmma_b8 : K->hw->wgmma, op->cols, b8 ? 32 : 16,
                 op->pending ? ", left in flight" : "");
      if (op->defer) buf_puts(&b, ", deferred into the next iteration");
      if (op->dop) buf_printf(&b, ", then the deferred dot of line %d", op->dop->stmt->loc.line);
    }
    break;
  }
  case TO_FRAGS:
    buf_printf(&b, " of dot(%%%s, %%%s), k %d .. %d, from %s%s and %s%s -> set %d%s", op->src->cname, op->src2->cname, op->kbeg,
               op->kend - 1, K->bufs[op->buf].cname, op->pf_k && K->bufs[op->buf].stages ? " (the next iteration's stage)" : "",
               K->bufs[op->buf2].cname, op->pf_k && K->bufs[op->buf2].stages ? " (the next iteration's stage)" : "", op->fset,
               op->nsets ? arena_printf(K->a, " (declares %d sets)", op->nsets) : "");
    break;
  case TO_SCRATCH_WRITE: case TO_SCRATCH_READ:
    buf_printf(&b, " %s %s (%s)", op->kind == TO_SCRATCH_WRITE ? "->" : "<-", K->bufs[op->buf].cname,
               builtin_names[op->red]);
    break;
  case TO_STORE:
    buf_puts(&b, " ");
    index_str(K, op->slice, &b);
    buf_printf(&b, " %s ", tok_str(op->op));
    expr_str(K, op->expr, &b);
    if (op->from_copy) buf_puts(&b, " (runs read from the copy)");
    break;
  case TO_FOR:
    buf_printf(&b, " %s in range(", op->stmt->u.forr.var);
    expr_str(K, op->stmt->u.forr.lo, &b);
    buf_puts(&b, ", ");
    expr_str(K, op->stmt->u.forr.hi, &b);
    if (op->stmt->u.forr.step) {
      buf_puts(&b, ", ");
      expr_str(K, op->stmt->u.forr.step, &b);
    }
    buf_puts(&b, ")");
    if (op->once)
      buf_printf(&b, " (%s taken once: the body assigns what %s)",
                 op->once == (TIR_ONCE_END | TIR_ONCE_STEP) ? "end and step" : op->once & TIR_ONCE_END ? "end" : "step",
                 op->once == (TIR_ONCE_END | TIR_ONCE_STEP) ? "they read" : "it reads");
    if (op->rot > 1)
      buf_printf(&b, " (rings rotate: %d copies of the body an iteration, each taking and refilling its own slot)", op->rot);
    else if (op->rot)
      buf_puts(&b, " (its rings refilled at the body's end)");
    break;
  case TO_WHILE: case TO_IF:
    buf_puts(&b, " ");
    expr_str(K, op->kind == TO_IF ? op->stmt->u.iff.cond : op->stmt->u.whil.cond, &b);
    break;
  case TO_BARRIER: buf_printf(&b, "%s (%s)", op->warp ? " __syncwarp" : "", op->reason); break;
  case TO_ASYNC_WAIT: case TO_WG_WAIT:
    buf_printf(&b, op->pending < 0 ? " (none: an earlier wait completed it)" : " (%d pending)", op->pending);
    if (op->dop) buf_printf(&b, ": the deferred dot of line %d has completed", op->dop->stmt->loc.line);
    break;
  case TO_WG_DEFER:
    buf_printf(&b, op->pending ? " the last iteration's dot of line %d, issued and completed"
                               : " the saved operands of the dot of line %d",
               op->dop->stmt->loc.line);
    break;
  case TO_ASYNC_COPY:
    buf_printf(&b, " %s stage +%d = ", K->bufs[op->buf].cname, op->pf_k);
    index_str(K, op->slice, &b);
    break;
  case TO_TMA_INIT: case TO_TMA_WAIT: case TO_TMA_BEGIN: case TO_TMA_END: buf_printf(&b, " %s", K->bufs[op->buf].cname); break;
  case TO_TMA_RELEASE: buf_printf(&b, " %s, the stage of %d iteration%s back", K->bufs[op->buf].cname, op->pending, op->pending == 1 ? "" : "s"); break;
  case TO_TMA_ISSUE: buf_printf(&b, " %s stage +%d:", K->bufs[op->buf].cname, op->pf_k); break;
  case TO_TMA_LOAD: {
    const TmaMap *m = &K->ki->tmaps[op->tmap];
    buf_printf(&b, " %s = ", K->bufs[op->buf].cname);
    index_str(K, op->slice, &b);
    buf_printf(&b, " by %s (boxes of %d x %d, %d-byte swizzle)", m->cname, m->box_rows, m->box_cols, m->swizzle);
    break;
  }
  case TO_TMA_STORE: {
    const TmaMap *m = &K->ki->tmaps[op->tmap];
    buf_puts(&b, " ");
    index_str(K, op->slice, &b);
    buf_printf(&b, " = %s by %s (each warp's tile, boxes of %d x %d, %d-byte swizzle, out-of-range elements clipped)",
               K->bufs[op->buf].cname, m->cname, m->box_rows, m->box_cols, m->swizzle);
    break;
  }
  default: break;
  }
  if (op->only) buf_puts(&b, op->only == TIR_FAST ? "  {fast body}" : "  {general body}");
  /* what the stages decided */
  if (op->lay) buf_printf(&b, "  [%s", layout_str(K->a, op->lay));
  if (op->lay && (op->kind == TO_LOAD || op->kind == TO_STORE)) buf_printf(&b, ", vec %d", op->vec);
  if (op->lay) buf_puts(&b, "]");
  for (int i = 0; i < op->nacc; i++)
    buf_printf(&b, "  %s %s", op->acc[i].write ? "writes" : "reads", K->bufs[op->acc[i].buf].cname);
  if (op->stmt && op->kind != TO_BARRIER) buf_printf(&b, "  ; line %d", op->stmt->loc.line);
  fprintf(out, "%s\n", b.data);
  buf_free(&b);
  if (op->kind == TO_FOR || op->kind == TO_WHILE || op->kind == TO_IF || op->kind == TO_TMA_ISSUE)
    dump_block(K, &op->body, depth + 1, out);
  if (op->has_els) {
    fprintf(out, "%*selse\n", 2 * depth, "");
    dump_block(K, &op->els, depth + 1, out);
  }
}

static void dump_block(const TirKernel *K, const TirBlock *blk, int depth, FILE *out) {
  for (int i = 0; i < blk->ops.len; i++) dump_op(K, blk->ops.items[i], depth, out);
}

void tir_dump(const TirKernel *K, FILE *out) {
  fprintf(out, "kernel %s: %d threads, path %s, after %s\n", K->k->name, K->ki->threads, K->hw->name, K->stage);
  for (int i = 0; i < K->layouts.len; i++) {
    const Layout *l = K->layouts.items[i];
    fprintf(out, "  layout L%d = %s: %d per thread\n", l->id, blocked_str(K->a, l), layout_count(l));
  }
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    fprintf(out, "  value %%%s: %s[%d, %d] (%s)", v->cname, elem_names[v->elem], v->rows, v->cols, v->what);
    if (v->direct) fprintf(out, " in its copy's stage ring only");
    else if (v->layout) fprintf(out, " in %s, %d per thread", layout_str(K->a, v->layout), layout_count(v->layout));
    if (v->home) fprintf(out, ", living in %s (too large for registers)", K->bufs[v->home - 1].cname);
    if (v->packed) fprintf(out, ", packed: %d registers", tir_packed_words(v->elem, layout_count(v->layout)));
    if (v->win_of) fprintf(out, ", never held: the window write of its statement reads the tensor at its coordinates");
    else if (v->fused) fprintf(out, ", never held: its one reader reads the tensor (too large for registers)");
    fprintf(out, "\n");
  }
  for (int i = 0; i < K->nbufs; i++) {
    const TirBuf *f = &K->bufs[i];
    if (f->tensor) {
      fprintf(out, "  tracked %s: %s, written by the kernel\n", f->cname, f->what);
      continue;
    }
    if (f->mbar) {
      fprintf(out, "  shared %s: %d mbarriers, %" PRId64 " bytes at %" PRId64 " (%s)\n", f->cname, 2 * f->mbar, f->bytes,
              f->offset, f->what);
      continue;
    }
    fprintf(out, "  shared %s: %s[%d, %d]%s, %" PRId64 " bytes at %" PRId64 " (%s)\n", f->cname, elem_names[f->elem],
            f->rows, f->cols,
            f->swz ? arena_printf(K->a, " in %d-byte swizzled rows", f->swz) : f->cm8 ? " in 8 x 8 core matrices" : "",
            f->bytes, f->offset, f->what);
  }
  for (int i = 0; i < K->ki->ntmaps; i++) {
    const TmaMap *m = &K->ki->tmaps[i];
    fprintf(out, "  tensor map %s: %s in boxes of %d x %d, %d-byte swizzle\n", m->cname, m->tensor->name, m->box_rows,
            m->box_cols, m->swizzle);
  }
  if (K->versioned) {
    fprintf(out, "  fast body when:");
    for (int i = 0; i < K->nchecks; i++) {
      const TirCheck *c = &K->checks[i];
      if (c->size && !c->mod) fprintf(out, " %s == 1", c->size->name);
      else if (c->size) fprintf(out, " %s %% %d == 0", c->size->name, c->mod);
      else fprintf(out, " %s aligned to %d bytes", c->tensor->name, c->mod);
      fprintf(out, i + 1 < K->nchecks ? "," : "\n");
    }
  }
  fprintf(out, "  body:\n");
  dump_block(K, &K->body, 2, out);
}

/* ------------------------------------------------------------ the stages in order */

TirKernel *tir_build(Arena *a, Diag *d, Kernel *k, const TargetConfig *t, const char *last, const char **why, Loc *at) {
  TirKernel *K = lower_kernel(a, d, k, t, why, at);
  if (!K) return NULL;
  uniform_masks(K); /* before layouts: a mask var only where()s read is no value to place */
  K->stage = "lower";
  if (last && strcmp(last, "lower") == 0) return K;
  if (!layout_assign(K, why)) {
    if (at) *at = K->why_at;
    return NULL;
  }
  uniform_wheres(K);
  K->stage = "layout";
  if (last && strcmp(last, "layout") == 0) {
    layout_pressure_late(K);
    return K;
  }
  pipeline_loops(K);
  layout_epilogues(K); /* needs the stage rings' bytes */
  layout_pressure_late(K);
  K->stage = "pipeline";
  if (last && strcmp(last, "pipeline") == 0) return K;
  sync_place(K);
  K->stage = "sync";
  if (last && strcmp(last, "sync") == 0) return K;
  if (!smem_place(K)) {
    *why = NULL; /* reported */
    return NULL;
  }
  pipeline_rotate(K);
  K->stage = "smem";
  return K;
}

const Sym *tir_scalar_written(const TirOp *op) {
  const Stmt *s = op->stmt;
  if (op->kind != TO_SCALAR || !s) return NULL;
  if (s->kind == S_ASSIGN) return s->u.assign.lhs->kind == E_IDENT ? s->u.assign.lhs->u.ident.sym : NULL;
  return s->kind == S_VAR ? s->u.decl.sym : NULL;
}

/* Whether x reads value v (through its copy too) or names symbol y. */
static bool mentions_either(const TirKernel *K, const Expr *x, const TirVar *v, const Sym *y) {
  return v ? tir_mentions(K, x, v, true) : tir_names_sym(x, y);
}

bool tir_stmt_mentions(const TirKernel *K, const TirOp *op, const TirVar *v, const Sym *y) {
  const Stmt *s = op->stmt;
  if (!s) return false;
  switch (op->kind) {
  case TO_SCALAR:
    if (s->kind == S_ASSIGN) return mentions_either(K, s->u.assign.lhs, v, y) || mentions_either(K, s->u.assign.rhs, v, y);
    return (s->kind == S_VAR || s->kind == S_CONST) && (mentions_either(K, s->u.decl.init, v, y) || (y && s->u.decl.sym == y));
  case TO_FOR:
    return mentions_either(K, s->u.forr.lo, v, y) || mentions_either(K, s->u.forr.hi, v, y) ||
           mentions_either(K, s->u.forr.step, v, y);
  case TO_WHILE: return mentions_either(K, s->u.whil.cond, v, y);
  case TO_IF: return mentions_either(K, s->u.iff.cond, v, y);
  default: return false;
  }
}

bool tir_op_mentions(const TirKernel *K, const TirOp *op, const TirVar *v, const Sym *y) {
  if (v && (op->dst == v || op->src == v || op->src2 == v)) return true;
  bool slice = v ? tir_slice_mentions(K, op->slice, v) : tir_names_sym(op->slice, y);
  return tir_stmt_mentions(K, op, v, y) || mentions_either(K, op->expr, v, y) || slice || mentions_either(K, op->pad, v, y) ||
         mentions_either(K, op->uguard, v, y) || mentions_either(K, op->win[0], v, y) || mentions_either(K, op->win[1], v, y);
}
