/* layout.c: a layout for every tile value, and what follows from them.
 *
 * 1. Anchors. Every [rows, cols] shape an op runs over gets one blocked
 *    layout (t2c.h): runs along the columns of 16 bytes of the narrowest
 *    element loaded or stored (the widest global access, hw.c; at most two
 *    accesses of the widest element: run_ebytes), lanes across the columns first, and warps down the
 *    rows first, so that a row stays inside one warp whenever the tile has a
 *    row for every warp. Tile vars of that shape take it.
 * 2. Propagation. A [rows, 1] value (a row reduction's result, a tile var
 *    combined with one) takes the slice of the layout it is reduced from or
 *    broadcast against; values combined in one op share their class.
 * 2b. Staged epilogues. A store of an mma layout's value whose rows allow
 *    16-byte runs goes through a shared copy and leaves in them (epilogues).
 * 3. Checks. Every value an op reads must be where the op's thread has it
 *    (the same layout, or a slice of it). When not, the op reads it through
 *    its shared copy (a layout conversion, placed where it is read).
 * 4. A reduction accumulated into a tile across a loop folds across
 *    threads once, after the loop (carry.c). Reductions whose rows span warps
 *    get a scratch buffer: the first lane of each warp's row run writes its
 *    partial, and every thread folds the wc partials (TO_SCRATCH_WRITE,
 *    TO_SCRATCH_READ; sync.c puts the barrier); an arg-reduction's partials
 *    are (value, index) pairs. A column reduction (colsum, colmax, colmin)
 *    is the same down the columns: in-thread over the rows, across the lr
 *    lanes of a column, then a scratch row per warp when a column spans wr
 *    warps. A scan (TO_SCAN)
 *    runs in its value's layout; when its lines span warps, the warps' run
 *    totals go through a scratch buffer the same way (tir_scan_geom).
 * 5. Vector widths. A load or store whose columns are the tensor's last dim,
 *    start at a multiple of the access and whose row pitch is a multiple of it
 *    moves a whole run per access, or per 16 bytes where the run is longer (an
 *    f32 run of 8 next to f16: two accesses, each its own bounds test). What is not proven at translation time (a
 *    size name's divisibility, the pointers' alignment) becomes a run-time test
 *    at entry: the kernel then has a fast body and a general one.
 * 6. Bounds checks kept, and their warnings (once per slice index).
 * 7. Copies moved a run at a time: a plain copy that nothing reads down a
 *    column across lanes is stored and read in runs, at a pitch of whole runs
 *    (copy_vectors).
 */
#include "t2c.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static int cdiv(int a, int b) { return (a + b - 1) / b; }

/* ------------------------------------------------------------ blocked layouts */

static Layout *find_blocked(TirKernel *K, int rows, int cols) {
  for (int i = 0; i < K->layouts.len; i++) {
    Layout *l = K->layouts.items[i];
    if (l->rows == rows && l->cols == cols) return l;
  }
  return NULL;
}

/* The lanes, warps and repeats of a [rows, cols] tile in runs of vec, at most
 * max_lc lanes across the columns. */
static void spread_lc(Layout *l, int lanes, int warps, int vec, int max_lc) {
  l->vec = vec;
  int chunks = l->cols / vec;
  for (l->lc = 1; l->lc < lanes && l->lc < chunks && l->lc < max_lc;) l->lc *= 2;
  l->lr = lanes / l->lc;
  int groups = cdiv(l->rows, l->lr);
  for (l->wr = warps; l->wr > 1 && (warps % l->wr || l->wr > groups);) l->wr--;
  l->wc = warps / l->wr;
  l->rr = cdiv(l->rows, l->lr * l->wr);
  l->rc = cdiv(chunks, l->lc * l->wc);
}

static void spread(Layout *l, int lanes, int warps, int vec) { spread_lc(l, lanes, warps, vec, lanes); }

/* Runs as wide as a global access allows (hw.c) and the columns divide; a
 * narrower run when the widest would leave threads without elements (a tile
 * smaller than runs x threads), down to the first that gives every thread work.
 * The first layout made for a shape is the shape's (find_blocked); plain: one
 * that is not the mma accumulator, for elements of ebytes (a value that is only
 * loaded and copied to shared memory). */
static Layout *blocked_as(TirKernel *K, int rows, int cols, int ebytes, bool plain) {
  int lanes = K->t->lanes, warps = K->ki->threads / lanes;
  int widest = K->hw->vec_bytes / ebytes;
  while (widest > 1 && cols % widest) widest /= 2;
  Layout *l = find_blocked(K, rows, cols);
  if (l && !plain) return l;
  Layout *t = NEW(K->a, Layout);
  *t = (Layout){.kind = LY_BLOCKED, .rows = rows, .cols = cols};
  for (int vec = widest;; vec /= 2) {
    spread(t, lanes, warps, vec);
    if (vec == 1 || !layout_padded(t)) break;
  }
  if (layout_padded(t)) spread(t, lanes, warps, widest);
  for (int i = 0; plain && i < K->layouts.len; i++) { /* the same plain layout made before */
    l = K->layouts.items[i];
    if (!l->mma && l->rows == rows && l->cols == cols && l->vec == t->vec && l->lc == t->lc) return l;
  }
  t->id = K->layouts.len;
  vec_push(K->a, &K->layouts, t);
  return t;
}

/* A plain layout with no padding, runs as wide as the columns allow and as
 * many lanes across as divide them: what a @registers tile takes when the
 * greedy spread pads (a [3, 128] tile over 4 warps: the warps across the
 * columns, 3 rows each). NULL if no split of lanes and warps divides the shape. */
static Layout *exact_blocked(TirKernel *K, int rows, int cols, int ebytes) {
  int lanes = K->t->lanes, warps = K->ki->threads / lanes;
  for (int vec = K->hw->vec_bytes / ebytes; vec >= 1; vec /= 2) {
    if (cols % vec) continue;
    int chunks = cols / vec;
    for (int lc = lanes; lc >= 1; lc /= 2)
      for (int wr = 1; wr <= warps; wr++) {
        int lr = lanes / lc, wc = warps / wr;
        if (warps % wr || rows % (lr * wr) || chunks % (lc * wc)) continue;
        Layout *t = NEW(K->a, Layout);
        *t = (Layout){.kind = LY_BLOCKED, .rows = rows, .cols = cols, .vec = vec, .lc = lc, .lr = lr, .wc = wc, .wr = wr,
                      .rr = rows / (lr * wr), .rc = chunks / (lc * wc)};
        t->id = K->layouts.len;
        vec_push(K->a, &K->layouts, t);
        return t;
      }
  }
  return NULL;
}

/* The layout of the per-thread partials of a fold over blocked layout l
 * (carry.c): l's threads, each holding one element per row of l it holds (down,
 * for a column fold: per column), of a [l->rows, l->lc * l->wc] tile ([l->lr *
 * l->wr, l->cols]). The element a thread holds there is its own fold of that
 * row's (column's) elements in l: the same rows (columns) at the same threads,
 * since a blocked layout puts row ir * lr * wr + warp_r * lr + lane_r and column
 * ic * lc * wc * vec + (warp_c * lc + lane_c) * vec + v at (lane, warp). Over
 * warp tiles (an mma accumulator's, Layout.wtiles) the partials tile each warp
 * the same way, so that a thread's partial is of rows (columns) it holds. */
const Layout *layout_partials(TirKernel *K, const Layout *l, bool down) {
  Layout t = {.kind = LY_BLOCKED, .rows = l->rows, .cols = l->cols, .vec = l->vec, .lc = l->lc, .lr = l->lr,
              .wc = l->wc, .wr = l->wr, .rc = l->rc, .rr = l->rr, .partials = true, .wtiles = layout_warp_tiles(l)};
  if (down) t.rows = l->lr * l->wr, t.rr = 1;
  else t.cols = l->lc * l->wc, t.vec = 1, t.rc = 1;
  for (int i = 0; i < K->layouts.len; i++) {
    Layout *o = K->layouts.items[i];
    if (o->partials && o->rows == t.rows && o->cols == t.cols && o->vec == t.vec && o->lc == t.lc &&
        o->lr == t.lr && o->wc == t.wc && o->wr == t.wr && o->rc == t.rc && o->rr == t.rr && o->wtiles == t.wtiles)
      return o;
  }
  Layout *n = NEW(K->a, Layout);
  *n = t;
  n->id = K->layouts.len;
  vec_push(K->a, &K->layouts, n);
  return n;
}

/* The layout of a [rows, cols] shape: the mma accumulator when a dot makes one. */
static Layout *blocked(TirKernel *K, int rows, int cols, int ebytes) { return blocked_as(K, rows, cols, ebytes, false); }

static const Layout *slice_of(TirKernel *K, const Layout *p, int dim) {
  for (int i = 0; i < K->vars.len; i++) { /* one slice object per (parent, dim) */
    const TirVar *v = K->vars.items[i];
    if (v->layout && v->layout->kind == LY_SLICE && v->layout->parent == p && v->layout->dim == dim) return v->layout;
  }
  Layout *l = NEW(K->a, Layout);
  *l = *p;
  l->kind = LY_SLICE;
  l->dim = dim;
  l->parent = p;
  return l;
}

typedef void (*LeafFn)(TirKernel *, TirVar *, Expr *, void *);

/* Calls fn on every value an expression reads, with the node that reads it. */
static void leaves(TirKernel *K, Expr *x, LeafFn fn, void *ctx) {
  if (!x || tir_read(K, x)) return; /* a shared copy: any thread reads any element */
  TirVar *h = tir_hoisted(K, x);
  if (h) {
    fn(K, h, x, ctx);
    return;
  }
  switch (x->kind) {
  case E_IDENT:
    for (int i = 0; i < K->vars.len; i++) {
      TirVar *v = K->vars.items[i];
      if (v->sym && v->sym == x->u.ident.sym) fn(K, v, x, ctx);
    }
    return;
  case E_UNARY: leaves(K, x->u.unary.a, fn, ctx); return;
  case E_BINARY: leaves(K, x->u.binary.a, fn, ctx); leaves(K, x->u.binary.b, fn, ctx); return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) leaves(K, x->u.call.args[i], fn, ctx);
    return;
  default: return;
  }
}

/* ------------------------------------------------------------ walking ops */

typedef void (*OpFn)(TirKernel *K, TirOp *op, void *ctx);

static void walk(TirKernel *K, TirBlock *b, OpFn fn, void *ctx) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    fn(K, op, ctx);
    walk(K, &op->body, fn, ctx);
    walk(K, &op->els, fn, ctx);
  }
}

/* ------------------------------------------------------------ mma accumulator layouts */

/* Warps wm x wn over an [m, n] accumulator of 16 x 8 tiles. Each k step a warp
 * reads m / wm rows of A and n / wn columns of B: the least of that is the most
 * mma per byte read (ties: more warps down the rows). whole_rows: wn = 1, so a
 * row's reduction stays in a warp and the accumulator can be an A operand. */
static bool mma_tiling(int warps, int m, int n, bool whole_rows, int *wm, int *wn) {
  int tm = m / 16, tn = n / 8, best = -1;
  for (int a = 1; a <= warps; a++) {
    int c = warps / a;
    if (warps % a || tm % a || tn % c || (whole_rows && c != 1)) continue;
    int cost = m / a + n / c;
    if (best < 0 || cost <= best) {
      best = cost;
      *wm = a;
      *wn = c;
    }
  }
  return best >= 0;
}

/* The mma layout of shape [rows, cols] (made on first use), or NULL when the
 * shape already has a blocked one or the warps cannot tile it. wg: wgmma's
 * (warps stacked down the rows, 16 rows each; the caller checked the shape). */
static const Layout *mma_layout(TirKernel *K, int rows, int cols, bool whole_rows, bool wg) {
  Layout *l = find_blocked(K, rows, cols);
  if (l) return l->mma ? l : NULL;
  int warps = K->ki->threads / K->t->lanes, wm, wn;
  if (wg) {
    l = NEW(K->a, Layout);
    *l = (Layout){.kind = LY_BLOCKED, .id = K->layouts.len, .rows = rows, .cols = cols, .vec = 2, .lc = 4, .lr = 8,
                  .wr = warps, .wc = 1, .rr = 2, .rc = cols / 8, .mma = true, .wg = true};
    vec_push(K->a, &K->layouts, l);
    return l;
  }
  /* whole rows when they fit; a row reduction then still works across warps */
  if (K->t->lanes != 32 ||
      (!mma_tiling(warps, rows, cols, whole_rows, &wm, &wn) && !mma_tiling(warps, rows, cols, false, &wm, &wn)))
    return NULL;
  l = NEW(K->a, Layout);
  *l = (Layout){.kind = LY_BLOCKED, .id = K->layouts.len, .rows = rows, .cols = cols, .vec = 2, .lc = 4, .lr = 8,
                .wr = wm, .wc = wn, .rr = rows / 8 / wm, .rc = cols / 8 / wn, .mma = true};
  vec_push(K->a, &K->layouts, l);
  return l;
}

/* ------------------------------------------------------------ wgmma (hw.c's sm90a) */

/* A dot wgmma m64nNk16 runs: f16/bf16 operands, B from a shared copy and A
 * from one or from registers (an accumulator cast down, attention's
 * dot(f16(p), v): the register-A form), one warpgroup per 64 rows of the
 * accumulator, each warp 16 rows of all its columns, N one of the
 * instruction's widths that rt.cuh provides. */
static bool wgmma_shape(TirKernel *K, TirOp *op) {
  static const int widths[] = {8, 16, 32, 64, 96, 128, 192, 256};
  int warps = K->ki->threads / K->t->lanes;
  ElemType t = op->src ? op->src->elem : op->expr ? op->expr->u.call.cast : T_NONE;
  bool b8 = t == T_I8 || elem_is_f8(t);
  if (!K->hw->wgmma || op->simt || (t != T_F16 && t != T_BF16 && !b8) || K->t->lanes != 32) return false;
  /* why not, for -Wdot, where the user can change it: a result of 64 rows a warpgroup
   * (a multiple of 64) whose @launch does not give it that (a smaller result, a
   * decode step's 16 rows, is mma.sync's without a word) */
  if (op->rows % 64 == 0 && op->rows / 64 * 128 <= 1024 && op->rows != 16 * warps)
    op->offwg = arena_printf(K->a, "wgmma gives each warpgroup (4 warps) 64 rows of the result: its %d rows take "
                             "@launch(%d), and @launch(%d) is %d warp%s", op->rows, op->rows / 64 * 128,
                             K->ki->threads, warps, warps == 1 ? "" : "s");
  else if (op->rows == 16 * warps && warps % 4 == 0 && op->kdim % (b8 ? 32 : 16))
    op->offwg = arena_printf(K->a, "its k of %d is not a multiple of wgmma's %d", op->kdim, b8 ? 32 : 16);
  if (warps % 4 || op->rows != 16 * warps || op->kdim % (b8 ? 32 : 16)) return false;
  if (!b8 && ((op->src && K->bufs[op->buf].trans) || K->bufs[op->buf2].trans)) return false;
  /* 8-bit operands (m64nNk32): both K-major from shared copies (the PTX ISA has
   * no transpose for them), A = a copy [M, K], B = transpose(a copy [N, K]),
   * which lower.c's dot_operand always gives them (an operand that runs the
   * other way gets a copy stored transposed, TirBuf.trans) ... */
  if (b8 && (!K->hw->wgmma_b8 || !op->src || op->atrans || !op->btrans)) return false;
  /* ... swizzled (wg_swizzle: stored rows of 32k bytes take one when they come
   * in 8s; TirBuf.cm8's plain core matrices are 16-bit ones) */
  if (b8 && (tir_buf_srows(&K->bufs[op->buf]) % 8 || tir_buf_srows(&K->bufs[op->buf2]) % 8)) return false;
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
    if (op->cols == widths[i]) return true;
  op->offwg = arena_printf(K->a, "its %d columns are not one of wgmma's widths (8, 16, 32, 64, 96, 128, 192, 256)",
                           op->cols);
  return false;
}

/* Buffers some op other than a wgmma dot (or the spill that fills it) reads. */
static void wg_readers_fn(TirKernel *K, TirOp *op, void *ctx) {
  bool *other = ctx;
  (void)K;
  if (op->kind == TO_SPILL || (op->kind == TO_DOT && op->wgmma)) return;
  if (op->buf >= 0 && op->kind != TO_SCRATCH_WRITE && op->kind != TO_SCRATCH_READ) other[op->buf] = true;
  if (op->kind == TO_DOT && op->buf2 >= 0) other[op->buf2] = true;
}

static void wg_demote_fn(TirKernel *K, TirOp *op, void *ctx) {
  const bool *other = ctx;
  (void)K;
  if (op->kind == TO_DOT && op->wgmma && ((op->src && other[op->buf]) || other[op->buf2])) {
    op->wgmma = false;
    op->offwg = "an operand's shared copy is also read by something other than a wgmma dot (wgmma wants it as "
                "swizzled core matrices)";
  }
}

/* The widest swizzle (128, 64 or 32 bytes) whose rows divide a copy's rows,
 * or 0 (plain core matrices): its rows must be whole groups of 8, and its
 * row bytes a multiple of the swizzle (the atoms of TirBuf.swz). A swizzle
 * makes the 16-byte runs that fill the copy from global rows, 8 lanes at a
 * time, land in 8 different groups of 4 banks. */
static int wg_swizzle(const TirBuf *f) {
  int bytes = tir_buf_scols(f) * elem_bytes[f->elem];
  if (tir_buf_srows(f) % 8) return 0;
  for (int w = 128; w >= 32; w /= 2)
    if (bytes % w == 0) return w;
  return 0;
}

static void wg_mark_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)ctx;
  if (op->kind != TO_DOT || !op->wgmma) return;
  for (int i = op->src ? 0 : 1; i < 2; i++) {
    TirBuf *f = &K->bufs[i ? op->buf2 : op->buf];
    f->cm8 = true;
    f->pitch = tir_buf_scols(f);
    f->swz = wg_swizzle(f);
    tir_buf_size(f);
  }
}

static void wg_count_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)K;
  *(int *)ctx += op->kind == TO_DOT && op->wgmma;
}

static int count_wgmma(TirKernel *K) {
  int n = 0;
  walk(K, &K->body, wg_count_fn, &n);
  return n;
}

/* A wgmma dot's operand copies are laid out as core matrices for its
 * descriptors, so every reader of such a copy must be a wgmma dot: a dot whose
 * copy something else reads runs on mma.sync (ldmatrix) instead. */
static void wgmma_copies(TirKernel *K) {
  for (bool changed = true; changed;) {
    bool other[TIR_MAX_BUFS] = {0};
    walk(K, &K->body, wg_readers_fn, other);
    for (int i = 0; i < K->rvals.len; i++) other[((const TirRead *)K->rvals.items[i])->buf] = true;
    int before = count_wgmma(K);
    walk(K, &K->body, wg_demote_fn, other);
    changed = count_wgmma(K) != before;
  }
  walk(K, &K->body, wg_mark_fn, NULL);
  /* elsewhere the shuffle helped some kernels and cost others registers (softmax_row
   * 40 -> 47; launch-min-blocks-shares-smem spilled at its cap of 128) */
  K->warp_uniform = count_wgmma(K) > 0;
}

typedef struct MmaScan {
  bool whole_rows;       /* some row reduction, or an A operand in registers */
  const char *why;
} MmaScan;

static void mma_scan_fn(TirKernel *K, TirOp *op, void *ctx) {
  MmaScan *m = ctx;
  m->whole_rows |= (op->kind == TO_REDUCE && !tir_down_cols(op)) || (op->kind == TO_DOT && !op->src);
  if (op->kind == TO_DOT) op->wgmma = wgmma_shape(K, op);
}

/* Every dot's accumulator shape takes an mma layout before any blocked one is
 * made; an A operand in registers is evaluated in the mma layout of its shape,
 * whose warps must hold the same rows as the accumulator's. */
static void mma_fn(TirKernel *K, TirOp *op, void *ctx) {
  MmaScan *m = ctx;
  if (op->kind != TO_DOT || m->why || op->simt) return;
  /* the fragments of an accumulator larger than registers hold (TIR_MAX_WG_REGS
   * per thread: tir_value_cap) cannot live anywhere else: the dot runs on the
   * CUDA cores into a blocked accumulator, which then lives in shared memory */
  int per = op->rows * op->cols / K->ki->threads;
  if (per > TIR_MAX_WG_REGS && op->src) {
    op->simt = true;
    op->wgmma = false;
    op->offunit = arena_printf(K->a, "its %d x %d accumulator would hold %d per thread in mma fragments, more than the %d registers "
                                     "one value may take",
                               op->rows, op->cols, per, TIR_MAX_WG_REGS);
    return;
  }
  const Layout *l = mma_layout(K, op->rows, op->cols, m->whole_rows, op->wgmma);
  if (!l && op->src) { /* on the CUDA cores, from the operands' copies */
    op->simt = true;
    op->wgmma = false;
    op->offunit = "a dot accumulator the warps cannot tile in 16 x 8 tiles";
    return;
  }
  if (!l) {
    m->why = "a dot accumulator the warps cannot tile in 16 x 8 tiles (its A operand in registers)";
    return;
  }
  op->wgmma &= l->wg; /* the shape's layout was made for another dot first */
  if (op->src) return;
  op->alay = mma_layout(K, op->rows, op->kdim, true, false);
  if (!op->alay || op->alay->wc != 1 || l->wc != 1 || op->alay->wr != l->wr)
    m->why = "a dot whose A operand in registers cannot have the accumulator's rows";
  else if (op->alay->rr != 2) op->wgmma = false; /* wgmma's A fragments: 16 rows per warp */
}

/* Calls fn on every value a gather's or scatter's tile indices read. */
static void index_leaves(TirKernel *K, TirOp *op, LeafFn fn, void *ctx) {
  if (!op->gather) return;
  for (int d = 0; d < op->slice->u.index.nidx; d++) leaves(K, op->slice->u.index.idx[d].start, fn, ctx);
}

/* ------------------------------------------------------------ classes of unit-dim values */

/* A value an op reads in a layout where its thread does not hold it: read
 * through the value's shared copy instead (a layout conversion). */
typedef struct Conv {
  TirOp *op;
  Expr *x;
  TirVar *v;
  bool remat; /* computed again at the op (recomputed) */
} Conv;

static void convert(TirKernel *K, PtrVec *convs, TirOp *op, Expr *x, TirVar *v) {
  if (v->win_of && v->win_of == op) return; /* the window write reads the tensor at its own elements (lower.c window_load) */
  for (int i = 0; i < convs->len; i++) {
    const Conv *c = convs->items[i];
    if (c->op == op && c->x == x) return;
  }
  Conv *c = NEW(K->a, Conv);
  *c = (Conv){op, x, v, false};
  vec_push(K->a, convs, c);
}

typedef struct Classes {
  PtrVec *convs;
  int *up;               /* union-find over var ids */
  const Layout **parent; /* per root: the blocked layout it slices, or NULL */
  int *dim;
  const char *why;
  TirOp *op;             /* the op being scanned */
  int R, C;              /* the shape its expression runs over */
  TirVar *first;         /* the first unit-dim value of the op */
  const bool *loose;     /* per var: its class holds no value an op binds (gather_loose), or NULL */
} Classes;

static int find(Classes *c, int i) {
  while (c->up[i] != i) i = c->up[i] = c->up[c->up[i]];
  return i;
}

/* Two layouts that give every thread the same rows: a row value (a slice along
 * dim 1) of one is a row value of the other, register for register. */
static bool same_rows(const Layout *a, const Layout *b) {
  return a->rows == b->rows && a->lr == b->lr && a->lc == b->lc && a->wr == b->wr && a->wc == b->wc &&
         a->rr == b->rr && a->mma == b->mma && a->wtiles == b->wtiles;
}

static void set_parent(Classes *c, int v, const Layout *p, int dim) {
  int r = find(c, v);
  if (!c->parent[r]) {
    c->parent[r] = p;
    c->dim[r] = dim;
  } else if ((c->parent[r] != p || c->dim[r] != dim) && !(dim == 1 && c->dim[r] == 1 && same_rows(c->parent[r], p))) {
    c->why = "a value used in two layouts (a layout conversion)";
  }
}

/* Two values of one shape already slices of layouts whose threads hold other
 * rows (rowsum(x) + rowmax(y) of x [16, 32] and y [16, 64]): the op reads the
 * second through its copy, a layout conversion, instead of joining them. */
static bool other_rows(Classes *c, int a, int b) {
  int ra = find(c, a), rb = find(c, b);
  if (ra == rb || !c->parent[ra] || !c->parent[rb] || c->parent[ra] == c->parent[rb]) return false;
  return !(c->dim[ra] == 1 && c->dim[rb] == 1 && same_rows(c->parent[ra], c->parent[rb]));
}

static void join(Classes *c, int a, int b) {
  int ra = find(c, a), rb = find(c, b);
  if (ra == rb) return;
  c->up[rb] = ra;
  if (c->parent[rb]) set_parent(c, ra, c->parent[rb], c->dim[rb]);
}

/* A shape with more than one column anchors a blocked layout; one with a
 * single column is a row value, which lives in a slice of a blocked layout. */
static bool anchored(int rows, int cols) { (void)rows; return cols > 1; }

static int op_ebytes(TirKernel *K, const TirOp *op) {
  (void)K;
  if ((op->kind == TO_LOAD || op->kind == TO_STORE) && op->slice)
    return elem_bytes[op->slice->u.index.base->u.ident.sym->ty.elem];
  return 4;
}

static bool gather_per_row(TirKernel *K, const TirOp *op);

/* The widest and the narrowest element the loads and stores of more than one column
 * move; a gather of one element per row moves no run (an embedding's i32 ids leave its
 * f16 rows runs of 16 bytes). */
typedef struct Widths {
  int widest, narrowest;
} Widths;

static void widths_fn(TirKernel *K, TirOp *op, void *ctx) {
  Widths *w = ctx;
  if ((op->kind != TO_LOAD && op->kind != TO_STORE) || !anchored(op->rows, op->cols) ||
      (op->kind == TO_LOAD && op->gather && gather_per_row(K, op)))
    return;
  int e = op_ebytes(K, op);
  if (e > w->widest) w->widest = e;
  if (!w->narrowest || e < w->narrowest) w->narrowest = e;
}

/* The element size the runs are made for: a run is a whole access of the narrowest
 * element (f16 next to f32: runs of 8, an f16 load of 16 bytes rather than 8, each f32
 * run two accesses of 16), but at most two accesses of the widest (next to f32 an i8
 * run is 8 bytes: a run of 16 would have each f32 access of a warp touch every other
 * 16 bytes of 2 KB). Without loads or stores of runs: as for 4-byte elements. */
static int run_ebytes(TirKernel *K) {
  Widths w = {0, 0};
  walk(K, &K->body, widths_fn, &w);
  if (!w.widest) return 4;
  int cap = w.widest / 2; /* runs of 16 / (widest / 2): two accesses of the widest */
  return w.narrowest > cap ? w.narrowest : cap;
}

/* The first plain blocked layout of [R, C] (not an mma accumulator's, not partials):
 * the one off_acc made for the values of a dot accumulator's shape that are not the
 * accumulator's. */
static Layout *plain_of(TirKernel *K, int rows, int cols) {
  for (int i = 0; i < K->layouts.len; i++) {
    Layout *l = K->layouts.items[i];
    if (l->kind == LY_BLOCKED && !l->mma && !l->partials && l->rows == rows && l->cols == cols) return l;
  }
  return NULL;
}

typedef struct OffAcc {
  int R, C;
  bool hit;
} OffAcc;

static void off_acc_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  (void)K, (void)x;
  OffAcc *o = ctx;
  if (v->off_acc && v->rows == o->R && v->cols == o->C) o->hit = true;
}

/* The blocked layout op runs in over [R, C]: the shape's (find_blocked: an mma
 * accumulator's where a dot makes one), or the plain one where the values of that
 * shape it writes or reads are off_acc (rowsum(f32(a)) of a dot operand a). */
static Layout *op_blocked(TirKernel *K, TirOp *op, int R, int C) {
  Layout *l = find_blocked(K, R, C);
  if (!l || !l->mma || op->kind == TO_DOT) return l;
  OffAcc o = {R, C, op->dst && op->dst->off_acc && op->dst->rows == R && op->dst->cols == C};
  if (!o.hit) leaves(K, op->expr, off_acc_leaf, &o);
  if (!o.hit) index_leaves(K, op, off_acc_leaf, &o);
  Layout *p = o.hit ? plain_of(K, R, C) : NULL;
  return p ? p : l;
}

/* How an op over [R, C] reads value v: the same shape (one class), a row
 * value [R, 1] (a slice of the op's blocked layout along dim 1), or a column
 * value [1, C] broadcast down R > 1 rows (a slice along dim 0). */
static void relate_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  Classes *c = ctx;
  TirOp *op = c->op;
  /* a scalar value: every thread has it; a load a window write reads at its own elements
   * (TirVar.win_of) is read in no layout of its own */
  if (v->rank == 0 || (v->win_of && v->win_of == op)) return;
  int R = c->R, C = c->C;
  if (v->rows == R && v->cols == C) {
    if (!c->first) c->first = v;
    else if (x && other_rows(c, c->first->id, v->id)) return; /* read through its copy (check_leaf) */
    else join(c, c->first->id, v->id);
    return;
  }
  const Layout *p = anchored(R, C) ? op_blocked(K, op, R, C) : NULL;
  /* a gather's row index where the gather's value is only copied to shared memory (a
   * dot operand): the gather runs in the plain layout its class takes (assign_vars),
   * not the accumulator's, and reads the index there, each iteration of a loop */
  if (p && p->mma && x && c->loose && op->kind == TO_LOAD && op->gather && op->dst && c->loose[op->dst->id])
    p = blocked_as(K, R, C, elem_bytes[op->dst->elem], true);
  if (p && v->cols == 1 && v->rows == R) {
    /* a row value already a slice of a layout whose threads hold other rows (s's
     * [BQ, BK] and acc's [BQ, D] in attention): this op reads it through its copy */
    int r = find(c, v->id);
    if (x && c->parent[r] && c->parent[r] != p && !(c->dim[r] == 1 && same_rows(c->parent[r], p))) {
      convert(K, c->convs, op, x, v);
      return;
    }
    set_parent(c, v->id, p, 1);
  }
  else if (p && v->rows == 1 && v->cols == C) {
    /* a column value already a slice of another layout (w [1, C] against tiles
     * [R1, C] and [R2, C]): this op reads it through its copy */
    int r = find(c, v->id);
    if (x && c->parent[r] && (c->parent[r] != p || c->dim[r] != 0)) {
      convert(K, c->convs, op, x, v);
      return;
    }
    set_parent(c, v->id, p, 0);
  }
  else if (x) convert(K, c->convs, op, x, v); /* any other broadcast: through its copy */
  else c->why = "a broadcast the IR does not make yet";
}

static void relate_fn(TirKernel *K, TirOp *op, void *ctx) {
  Classes *c = ctx;
  c->op = op;
  c->first = NULL;
  c->R = op->rows;
  c->C = op->cols;
  if (op->kind == TO_DOT) {
    relate_leaf(K, op->dst, NULL, c);
    c->first = NULL; /* an A operand in registers: over [rows, kdim] */
    c->C = op->kdim;
    leaves(K, op->expr, relate_leaf, c);
    return;
  }
  if (op->kind == TO_REDUCE) set_parent(c, op->dst->id, op_blocked(K, op, op->rows, op->cols), tir_down_cols(op) ? 0 : 1);
  if (op->kind == TO_ASSIGN || op->kind == TO_LOAD || op->kind == TO_SCAN) relate_leaf(K, op->dst, NULL, c);
  if (op->kind == TO_ASSIGN || op->kind == TO_STORE || op->kind == TO_REDUCE || op->kind == TO_SCAN)
    leaves(K, op->expr, relate_leaf, c);
  index_leaves(K, op, relate_leaf, c);
}

static void anchor_fn(TirKernel *K, TirOp *op, void *ctx) {
  int w = *(int *)ctx;
  if ((op->kind == TO_REDUCE || op->kind == TO_ASSIGN || op->kind == TO_STORE || op->kind == TO_LOAD ||
       op->kind == TO_SCAN || (op->kind == TO_DOT && op->simt)) &&
      anchored(op->rows, op->cols))
    blocked(K, op->rows, op->cols, w);
}

static void bound_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  (void)K, (void)x;
  ((bool *)ctx)[v->id] = true;
}

/* The values an op computes in its layout or reads there (all but loads,
 * declarations and copies to shared memory, which run in any layout). */
static void bound_fn(TirKernel *K, TirOp *op, void *ctx) {
  bool *bound = ctx;
  if (op->dst && op->kind != TO_LOAD && op->kind != TO_DECL && op->kind != TO_SPILL) bound[op->dst->id] = true;
  if (op->kind == TO_SUM) bound[op->src->id] = true;
  leaves(K, op->expr, bound_leaf, bound);
  index_leaves(K, op, bound_leaf, bound);
}

typedef struct Leaf1 {
  TirVar *v; /* the last value an expression reads */
  int n;     /* how many it reads */
} Leaf1;

static void leaf1_fn(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  (void)K, (void)x;
  Leaf1 *l = ctx;
  l->v = v;
  l->n++;
}

/* Whether op runs in whatever layout its values have: a load (its gather's
 * indices too), a declaration, a copy to shared memory, or v = w of one shape
 * (the tile var lower.c assigns a gather's value to). */
static bool layout_free(TirKernel *K, const TirOp *op) {
  if (op->kind == TO_LOAD || op->kind == TO_DECL || op->kind == TO_SPILL) return true;
  if (op->kind != TO_ASSIGN || op->op != TK_ASSIGN || op->has_win || !op->expr ||
      (!tir_hoisted(K, op->expr) && op->expr->kind != E_IDENT))
    return false;
  Leaf1 w = {NULL, 0};
  leaves(K, op->expr, leaf1_fn, &w);
  return w.n == 1 && w.v->rank == op->dst->rank && w.v->rows == op->dst->rows && w.v->cols == op->dst->cols;
}

/* The values bound to a layout by an op that is not layout_free: a class none of
 * whose values is (a gather, its indices and the tile var it is assigned to,
 * read only through a dot operand's copy) needs no layout another op shares. */
static void held_fn(TirKernel *K, TirOp *op, void *ctx) {
  if (!layout_free(K, op)) bound_fn(K, op, ctx);
}

/* A @registers row value [R, 1] holds R / threads rows per thread (LANGUAGE.md
 * §8's @registers: thread i holds row i when R is the thread count), but a
 * slice of a blocked [R, C] layout holds rr rows per thread, each in lc lanes.
 * The blocked layouts of R rows then give every thread whole rows instead
 * (lanes and warps down the rows, lc = wc = 1): the slice holds R / threads
 * rows per thread, and every [R, C] value holds the same rows (same_rows), so
 * that the row value is read where it is (attention's m and l, with its s and
 * acc). A row's reduction is then the thread's own. The mma accumulator's
 * layout is the dot's: a row value sliced from it keeps its count. */
static void rows_per_thread(TirKernel *K) {
  int lanes = K->t->lanes, warps = K->ki->threads / lanes;
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    if (!v->sym || v->sym->place != PL_REGISTER || v->rank != 2 || v->cols != 1 || v->rows != v->sym->per_thread * lanes * warps)
      continue;
    for (int j = 0; j < K->layouts.len; j++) {
      Layout *l = K->layouts.items[j];
      if (l->mma || l->rows != v->rows || l->cols < 2 || (l->lc == 1 && l->wc == 1 && l->rr == v->sym->per_thread)) continue;
      l->lc = l->wc = 1;
      l->lr = lanes;
      l->wr = warps;
      l->rr = v->sym->per_thread;
      l->rc = l->cols / l->vec; /* the runs of a whole row, as the anchor made them */
    }
  }
}

/* A row reduction's result holds rr rows per thread (a slice of its operand's
 * layout). Where that would be more than a value may hold (a tall tile over
 * few warps: rowsum of [128, 256] over one warp, 128 rows in every lane), the
 * operand's layout puts fewer lanes across the columns and more down the rows,
 * halving until the rows fit: the result then holds rr rows, each row's lanes
 * still moving whole runs. */
typedef struct Tall {
  int lanes, warps, widest; /* widest: run_ebytes */
} Tall;

/* Whether l is the only blocked layout of its rows (no other shares its rows: same_rows). */
static bool rows_alone(const TirKernel *K, const Layout *l) {
  for (int i = 0; i < K->layouts.len; i++) {
    const Layout *o = K->layouts.items[i];
    if (o != l && o->kind == LY_BLOCKED && o->rows == l->rows) return false;
  }
  return true;
}

/* Whether a value of l's columns and one row ([1, C]: a column value, a slice of l
 * along dim 0, held by every thread of its columns), or a column reduction, may
 * meet l: fewer lanes across the columns would give each thread more of them; or a
 * scan runs over l's shape (its lanes stay as they are). */
typedef struct ColumnsAlong {
  const Layout *l;
  bool hit;
} ColumnsAlong;

static void columns_fn(TirKernel *K, TirOp *op, void *ctx) {
  ColumnsAlong *c = ctx;
  (void)K;
  if (op->kind == TO_REDUCE && tir_down_cols(op) && op->cols == c->l->cols) c->hit = true;
  if (op->kind == TO_SCAN && op->rows == c->l->rows && op->cols == c->l->cols) c->hit = true; /* scans keep their lanes */
}

static bool columns_along(TirKernel *K, const Layout *l) {
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    if (v->rows == 1 && v->cols == l->cols) return true;
  }
  ColumnsAlong c = {l, false};
  walk(K, &K->body, columns_fn, &c);
  return c.hit;
}

/* And a row reduction of a tile of several rows per thread whose rows span more
 * lanes than whole 128-byte lines need (dot(q, transpose(k)) as rowsum(k * q): 64
 * rows of 128 f16 over 4 warps, each row across 32 lanes, 5 shuffles for each of a
 * thread's 16 rows) puts fewer lanes across the columns while a row's lanes still
 * move a line: the same elements per thread in fewer rows, fewer shuffles. Only a
 * layout no other shares its rows with (a changed one would be read through copies). */
static void tall_fn(TirKernel *K, TirOp *op, void *ctx) {
  const Tall *t = ctx;
  if (op->kind != TO_REDUCE || tir_down_cols(op)) return;
  Layout *l = op_blocked(K, op, op->rows, op->cols);
  if (!l || l->mma) return;
  if (l->rr > MAX_REGS) {
    for (int lc = l->lc / 2; lc >= 1 && l->rr > MAX_REGS / 8; lc /= 2) spread_lc(l, t->lanes, t->warps, l->vec, lc);
    return;
  }
  if (l->wc != 1 || layout_padded(l) || !rows_alone(K, l) || columns_along(K, l)) return;
  int line = 128 / (l->vec * t->widest); /* lanes a 128-byte line of the runs' element takes (run_ebytes) */
  while (l->rr > 1 && l->lc / 2 >= line) {
    Layout try = *l;
    spread_lc(&try, t->lanes, t->warps, l->vec, l->lc / 2);
    if (layout_padded(&try) || try.wc != 1) break;
    *l = try;
  }
}

/* A tile whose rows each fit in one warp's lanes but too few rows for every warp (a
 * [1, 8] f32 tile over 8 warps: runs of 4, lanes 16 x 2) spread its spare warps across
 * the columns, where they hold only padding (warps 1 x 8): a row reduction or a scan
 * along its rows then went through scratch and a barrier across 8 warps, 7 of them with
 * nothing to add. Where a row fold or row scan runs over it, its spare warps go down
 * the rows instead (warps 8 x 1, the rows past the tile padding): each row is in one
 * warp, its fold shuffles only. Not where a column fold or scan runs over it (that one
 * would then span the warps), nor where another layout holds its rows at the same
 * threads (a changed one would be read through copies: rows_shared; a [1, 1024] tile
 * of the same kernel over lanes 1 x 32 does not), nor for one row whose lanes lie along it
 * (lanes 1 x 32: every thread holds its fold, layout_everywhere, read where it is). */
typedef struct Narrow {
  int warps;
  Layout *l;
  bool rows, cols; /* a fold or scan along (down) l's rows (columns) */
} Narrow;

static void narrow_ops_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)K;
  Narrow *n = ctx;
  if ((op->kind != TO_REDUCE && op->kind != TO_SCAN) || op->rows != n->l->rows || op->cols != n->l->cols) return;
  bool down = op->kind == TO_SCAN ? op->axis == 0 : tir_down_cols(op);
  if (down) n->cols = true;
  else n->rows = true;
}

/* Whether another blocked layout holds l's rows at the same threads (same_rows): a
 * row value of either is read in the other where it is. */
static bool rows_shared(const TirKernel *K, const Layout *l) {
  for (int i = 0; i < K->layouts.len; i++) {
    const Layout *o = K->layouts.items[i];
    if (o != l && o->kind == LY_BLOCKED && same_rows(o, l)) return true;
  }
  return false;
}

static void narrow_rows(TirKernel *K, int warps) {
  for (int i = 0; i < K->layouts.len; i++) {
    Layout *l = K->layouts.items[i];
    if (l->kind != LY_BLOCKED || l->mma || l->wtiles || l->partials || l->wc == 1 || l->cols / l->vec > l->lc ||
        (l->rows == 1 && l->lr == 1) || rows_shared(K, l))
      continue;
    Narrow n = {warps, l, false, false};
    walk(K, &K->body, narrow_ops_fn, &n);
    if (!n.rows || n.cols) continue;
    l->wr = warps;
    l->wc = 1;
    l->rr = cdiv(l->rows, l->lr * l->wr);
    l->rc = 1;
  }
}

/* A scan down the columns of a blocked layout whose warps split the rows gives
 * its layout warp tiles (Layout.wtiles): each warp then holds a contiguous block
 * of rows, its repeats in order inside it, so that a column's segments chain in
 * registers and only each warp's total of each column goes through the scratch,
 * one pass (tir_scan_geom's warp-major order, as the mma accumulator's). In the
 * plain layout a thread's rows are lr * wr apart: every repeat is a segment of
 * its own whose totals pass through the scratch, [wr, rr * cols], in rr
 * dependent passes (a [64, 64] f32 cumsum(x, 0) over 128 threads: 8 KB and 8
 * passes; 1 KB and one so). The runs, the lanes and the warps stay as they are. */
static void colscan_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)ctx;
  if (op->kind != TO_SCAN || op->axis != 0 || !anchored(op->rows, op->cols)) return;
  Layout *l = op_blocked(K, op, op->rows, op->cols);
  if (l && !l->mma && l->wr > 1 && l->rr > 1) l->wtiles = true;
}

/* The [1, 1] result of a column reduction of a [R, 1] value (TO_COLREDUCE) folds its
 * column from the shared copy, which every thread may read: every thread folds it
 * and holds it (layout_everywhere: a slice of a [1, 1] layout whose lanes and warps
 * all lie along the row), so that an element read (mx[0, 0]) or a broadcast reads it
 * in place, with no copy of its own and no second barrier. */
typedef struct Folded {
  Classes *c;
  bool *root; /* per root: a class a TO_COLREDUCE writes a [1, 1] value of */
} Folded;

static void folded_fn(TirKernel *K, TirOp *op, void *ctx) {
  Folded *f = ctx;
  if (op->kind != TO_COLREDUCE || op->cols != 1) return;
  for (int i = 0; i < K->vars.len; i++)
    if (K->vars.items[i] == op->dst) f->root[find(f->c, i)] = true;
}

static const Layout *everywhere(TirKernel *K) {
  int lanes = K->t->lanes, warps = K->ki->threads / lanes;
  Layout *p = NEW(K->a, Layout);
  *p = (Layout){.kind = LY_BLOCKED, .rows = 1, .cols = 1, .vec = 1, .lc = lanes, .lr = 1, .wc = warps, .wr = 1,
                .rr = 1, .rc = 1};
  p->id = K->layouts.len;
  vec_push(K->a, &K->layouts, p);
  return slice_of(K, p, 1);
}

/* The values of a dot accumulator's shape that are not the accumulator's (TirVar.off_acc):
 * a dot operand of that shape which is also reduced (rowsum(f32(a)) of an A [64, 64]
 * beside a [64, 64] accumulator) took the accumulator's fragments only because the
 * shape's layout is theirs (find_blocked), and its loads moved 2 elements at a time
 * instead of 16 bytes. The classes of values that ops compute or read together (as
 * relate_fn joins them, on a scratch run: a 2-D value's class is the same there) that
 * hold no dot's accumulator and no A operand evaluated in registers (it is read in the
 * fragments' layout) take a plain blocked layout of the shape, runs of w's elements, made
 * here, before the anchors, so that the passes over blocked layouts (tall_fn,
 * rows_per_thread) see it; the ops over them run there (op_blocked). A row value reduced
 * from one that meets the accumulator is read through its copy (relate_leaf), once
 * after a loop where the rowsum is carried. Each value's frag_why is set here too. */
typedef struct AccRoots {
  Classes *c;
  bool *acc; /* per root: holds a value the accumulator's layout must hold */
} AccRoots;

static void acc_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  (void)K, (void)x;
  AccRoots *a = ctx;
  a->acc[find(a->c, v->id)] = true;
  if (!v->frag_why) v->frag_why = "a dot reads it as its A operand in registers";
}

static void acc_fn(TirKernel *K, TirOp *op, void *ctx) {
  AccRoots *a = ctx;
  if (op->kind != TO_DOT) return;
  a->acc[find(a->c, op->dst->id)] = true;
  op->dst->frag_why = "a dot accumulates into it";
  if (!op->src) leaves(K, op->expr, acc_leaf, a);
}

static void off_acc(TirKernel *K, int w) {
  int n = K->vars.len;
  PtrVec scratch = {0};
  Classes c = {&scratch, NEW_ARRAY(K->a, int, n), NEW_ARRAY(K->a, const Layout *, n), NEW_ARRAY(K->a, int, n), NULL,
               NULL, 0, 0, NULL, NULL};
  for (int i = 0; i < n; i++) c.up[i] = i;
  walk(K, &K->body, relate_fn, &c);
  AccRoots a = {&c, NEW_ARRAY(K->a, bool, n)};
  walk(K, &K->body, acc_fn, &a);
  /* only where an op computes or reads one there (bound_fn): a value only loaded and
   * copied to shared memory runs in any layout, and assign_vars gives it its own */
  bool *bound = NEW_ARRAY(K->a, bool, n);
  walk(K, &K->body, bound_fn, bound);
  for (int i = 0; i < n; i++) {
    TirVar *v = K->vars.items[i];
    if (!v->frag_why && a.acc[find(&c, i)])
      v->frag_why = "an op computes or reads it together with a value a dot accumulates into or reads as its A operand "
                    "in registers";
    const Layout *l = v->rank ? find_blocked(K, v->rows, v->cols) : NULL;
    if (!l || !l->mma || !anchored(v->rows, v->cols) || a.acc[find(&c, i)] || !bound[i]) continue;
    v->off_acc = true;
    if (!plain_of(K, v->rows, v->cols)) blocked_as(K, v->rows, v->cols, w, true);
  }
}

/* Column values [1, C] broadcast down an mma accumulator's rows that a loop loads (a
 * block-scaled GEMM's scale row of each k block, reshape(SB[n0 :+ BN, kb], [1, BN])).
 * As a slice of the accumulator's layout each thread holds its columns of every 8 (32
 * of 128 for wgmma), each element loaded by every thread that holds its column (64 of
 * 256), and a @pipeline ring keeps stages - 1 more copies of them in registers. Such a
 * class takes a plain blocked layout of its own instead: each element loaded and
 * computed once, and the accumulator's ops read it through its shared copy (check_leaf:
 * a few hundred bytes). Only a class whose values are loaded, declared or computed over
 * [1, C] (not a column reduction's result), with 8 or more a thread in the slice. */
static bool gather_run(TirKernel *K, const TirOp *op, const Expr **first);

typedef struct ColVals {
  Classes *c;
  bool *loaded;  /* per root: loaded in a loop */
  bool *once;    /* per root: loaded outside loops */
  bool *other;   /* per root: written by another op (a reduction, a dot, a scan) */
  bool *strided; /* per root: a load whose columns are not the tensor's last dim */
  int loops;
} ColVals;

static void col_vals(TirKernel *K, TirBlock *b, ColVals *cv) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
    cv->loops += loop;
    col_vals(K, &op->body, cv);
    col_vals(K, &op->els, cv);
    cv->loops -= loop;
    if (!op->dst || op->dst->rank == 0 || op->kind == TO_DECL) continue;
    int r = find(cv->c, op->dst->id);
    if (op->kind == TO_LOAD && op->rows == 1) {
      const Sym *X = op->slice->u.index.base->u.ident.sym;
      const Expr *first;
      cv->loaded[r] |= cv->loops > 0;
      cv->once[r] |= cv->loops == 0;
      cv->strided[r] |= op->gather ? !gather_run(K, op, &first) : !op->slice->u.index.idx[X->trank - 1].len;
    }
    else if (!(op->kind == TO_LOAD || op->kind == TO_ASSIGN) || op->rows != 1)
      cv->other[r] = true;
  }
}

/* Per var: whether no value of its class (relate_fn's, on a scratch run) is bound to
 * a layout by an op (held_fn): a gather only copied to shared memory for a dot, and
 * the tile var it is assigned to, take a plain layout of their own (assign_vars). */
static const bool *gather_loose(TirKernel *K) {
  int n = K->vars.len;
  PtrVec scratch = {0};
  Classes c = {&scratch, NEW_ARRAY(K->a, int, n), NEW_ARRAY(K->a, const Layout *, n), NEW_ARRAY(K->a, int, n), NULL,
               NULL, 0, 0, NULL, NULL};
  for (int i = 0; i < n; i++) c.up[i] = i;
  walk(K, &K->body, relate_fn, &c);
  bool *held = NEW_ARRAY(K->a, bool, n), *cheld = NEW_ARRAY(K->a, bool, n), *loose = NEW_ARRAY(K->a, bool, n);
  walk(K, &K->body, held_fn, held);
  for (int i = 0; i < n; i++) cheld[find(&c, i)] |= held[i];
  for (int i = 0; i < n; i++) loose[i] = !cheld[find(&c, i)];
  return loose;
}

static bool assign_vars(TirKernel *K, PtrVec *convs, const char **why) {
  MmaScan m = {false, NULL};
  walk(K, &K->body, mma_scan_fn, &m);
  walk(K, &K->body, mma_fn, &m);
  if (!m.why) wgmma_copies(K);
  if (m.why) {
    *why = m.why;
    return false;
  }
  int w = run_ebytes(K);
  off_acc(K, w);
  walk(K, &K->body, anchor_fn, &w);
  Tall tall = {K->t->lanes, K->ki->threads / K->t->lanes, w};
  walk(K, &K->body, tall_fn, &tall);
  narrow_rows(K, tall.warps);
  walk(K, &K->body, colscan_fn, NULL);
  rows_per_thread(K);
  int n = K->vars.len;
  Classes c = {convs, NEW_ARRAY(K->a, int, n), NEW_ARRAY(K->a, const Layout *, n), NEW_ARRAY(K->a, int, n), NULL, NULL,
               0, 0, NULL, gather_loose(K)};
  for (int i = 0; i < n; i++) c.up[i] = i;
  walk(K, &K->body, relate_fn, &c);
  if (c.why) {
    *why = c.why;
    return false;
  }
  /* a value only loaded and copied to shared memory (a dot operand) keeps the
   * plain blocked layout of its shape: 16-byte loads, not the accumulator's */
  bool *bound = NEW_ARRAY(K->a, bool, n), *held = NEW_ARRAY(K->a, bool, n);
  walk(K, &K->body, bound_fn, bound);
  walk(K, &K->body, held_fn, held);
  /* per class: whether an op binds one of its values (held), its narrowest element */
  bool *cheld = NEW_ARRAY(K->a, bool, n);
  int *ceb = NEW_ARRAY(K->a, int, n);
  for (int i = 0; i < n; i++) {
    int r = find(&c, i), eb = elem_bytes[((TirVar *)K->vars.items[i])->elem];
    cheld[r] |= held[i];
    if (!ceb[r] || eb < ceb[r]) ceb[r] = eb;
  }
  ColVals cv = {&c, NEW_ARRAY(K->a, bool, n), NEW_ARRAY(K->a, bool, n), NEW_ARRAY(K->a, bool, n),
                NEW_ARRAY(K->a, bool, n), 0};
  col_vals(K, &K->body, &cv);
  const Layout **own = NEW_ARRAY(K->a, const Layout *, n);
  for (int i = 0; i < n; i++) {
    int r = find(&c, i);
    if (r != i || cv.other[r] || !c.parent[r] || !c.parent[r]->mma || c.dim[r] != 0) continue;
    /* loaded in a loop, 8 or more a thread; or loaded once, 32 or more that with the
     * accumulator's own pass 3/4 of the values' budget: a bias of 256 columns against a
     * 128 x 256 wgmma accumulator took 64 registers a thread beside its 128 (the epilogue
     * spilled with a residual, and its store could not be staged); its copy costs a
     * barrier, once (at 128 x 128, 32 beside 64, it stays) */
    int held = layout_count(slice_of(K, c.parent[r], 0));
    bool once = cv.once[r] && !cv.loaded[r] && held >= 32 &&
                held + layout_count(c.parent[r]) > TIR_MAX_VALUE_REGS * 3 / 4;
    if (!((cv.loaded[r] && held >= 8) || once)) continue;
    /* runs of 16 bytes of its narrowest element where its loads are runs of their
     * tensor; one element a thread where they are not (SB[n0 :+ BN, kb] of SB [N, KS]:
     * a column, KS apart: a run would be a thread's loads one after another) */
    own[r] = blocked_as(K, 1, c.parent[r]->cols, cv.strided[r] ? K->hw->vec_bytes : ceb[r], true);
    c.parent[r] = NULL;
  }
  Layout *scalar = NEW(K->a, Layout);
  scalar->kind = LY_SCALAR;
  Folded fo = {&c, NEW_ARRAY(K->a, bool, n)};
  walk(K, &K->body, folded_fn, &fo);
  const Layout *every = NULL;
  for (int i = 0; i < n; i++) {
    TirVar *v = K->vars.items[i];
    if (v->rank == 0) {
      v->layout = scalar;
      continue;
    }
    int r = find(&c, i);
    if (fo.root[r] && !c.parent[r]) {
      if (!every) every = everywhere(K);
      v->layout = every;
      continue;
    }
    if (c.parent[r] && v->rows > 1 && v->cols > 1) {
      *why = "a tile read as a broadcast of another shape";
      return false;
    }
    const Layout *anchor = find_blocked(K, v->rows, v->cols);
    if (own[r]) v->layout = own[r], v->col_own = true; /* (col_vals, above) */
    else if (c.parent[r]) v->layout = slice_of(K, c.parent[r], c.dim[r]);
    /* a gather whose shape is the accumulator's, its indices and the tile var it
     * is copied to, only read through a dot operand's copy: the class takes one
     * plain layout (runs of its narrowest element), not the fragments */
    else if (!cheld[r] && anchor && anchor->mma) v->layout = blocked_as(K, v->rows, v->cols, ceb[r], true);
    else if (v->off_acc && bound[i]) v->layout = plain_of(K, v->rows, v->cols); /* where its class's ops run */
    else v->layout = blocked_as(K, v->rows, v->cols, bound[i] ? w : elem_bytes[v->elem], !bound[i]);
    /* a @registers tile holds the seed's count per thread (no more registers
     * than it promises): where the layout it shares would hold another, a plain
     * one of its own, which the ops in the other layout read through its copy
     * (a slice of an mma accumulator's layout too; not the accumulator) */
    const Sym *y = v->sym;
    if (y && y->place == PL_REGISTER && v->layout->kind != LY_SCALAR &&
        !(v->layout->kind == LY_BLOCKED && v->layout->mma) &&
        (layout_count(v->layout) != y->per_thread || layout_padded(v->layout))) {
      const Layout *own = blocked_as(K, v->rows, v->cols, elem_bytes[v->elem], true);
      if (layout_count(own) != y->per_thread || layout_padded(own)) own = exact_blocked(K, v->rows, v->cols, elem_bytes[v->elem]);
      if (own && layout_count(own) == y->per_thread) v->layout = own, v->own_layout = true;
    }
  }
  /* a value every thread holds is read where it is by any op (readable): the broadcasts
   * relate_leaf sent through its copy before its layout was known need none. That is
   * a column reduction's [1, 1] (every), and a row reduction's of a [1, n] value whose
   * lanes and warps all lie along its one row (rowmax(reshape(x, [1, n])): each
   * thread ends its fold with the row's value), broadcast over a tile of another shape */
  int k = 0;
  for (int i = 0; i < convs->len; i++)
    if (!layout_everywhere(((const Conv *)convs->items[i])->v->layout)) convs->items[k++] = convs->items[i];
  convs->len = k;
  return true;
}

/* ------------------------------------------------------------ op layouts and checks */

typedef struct Check {
  const Layout *lay;
  const char *why;
  TirOp *op;
  PtrVec *convs;
} Check;

static bool readable(const Layout *v, const Layout *at) {
  if (v == at || v->kind == LY_SCALAR || layout_everywhere(v)) return true;
  if (v->kind == LY_SLICE && at->kind == LY_BLOCKED && v->dim == 1 && same_rows(v->parent, at)) return true;
  if (v->kind == LY_SLICE && at->kind == LY_BLOCKED && v->parent == at) return true;
  if (v->kind == LY_SLICE && at->kind == LY_SLICE && v->parent == at->parent && v->dim == at->dim) return true;
  return false;
}

static void check_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  Check *c = ctx;
  if (readable(v->layout, c->lay)) return;
  if (x) convert(K, c->convs, c->op, x, v); /* a reduction too: its operand reads the copy */
  else c->why = "a value reduced in another layout (a layout conversion)";
}

typedef struct ShapeLeaf {
  int rows, cols;
  const Layout *same;
} ShapeLeaf;

static void shape_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  ShapeLeaf *s = ctx;
  if (v->rank == 0) return; /* a scalar value runs in no layout of its own */
  if (v->rows == s->rows && v->cols == s->cols && !s->same) s->same = v->layout;
}

/* A store runs where its value is: in the layout of a value of its shape,
 * else where a scatter's index of its shape is (atomic_add(H[idx], 1): idx a
 * row value, read in place; a replicated slice's first replica stores), else in
 * the blocked layout of its shape. */
static const Layout *store_layout(TirKernel *K, const TirOp *op) {
  ShapeLeaf s = {op->rows, op->cols, NULL};
  leaves(K, op->expr, shape_leaf, &s);
  if (!s.same) index_leaves(K, (TirOp *)op, shape_leaf, &s);
  if (s.same) return s.same;
  return blocked(K, op->rows, op->cols, 4);
}

static void op_layout_fn(TirKernel *K, TirOp *op, void *ctx) {
  Check *c = ctx;
  switch (op->kind) {
  case TO_LOAD: case TO_ASSIGN: case TO_DECL: op->lay = op->dst->layout; break;
  case TO_REDUCE:
    op->lay = blocked(K, op->rows, op->cols, 4);
    if (op->lay->mma) op->lay = op_blocked(K, op, op->rows, op->cols);
    if (tir_down_cols(op)) { /* into a column value of op's layout */
      if (op->dst->layout->kind != LY_SLICE || op->dst->layout->parent != op->lay || op->dst->layout->dim != 0)
        c->why = "a reduction into another layout";
      break;
    }
    /* into a row value of op's layout, or of one whose threads hold the same rows (same_rows) */
    if (op->dst->layout->kind != LY_SLICE ||
        (op->dst->layout->parent != op->lay && (op->dst->layout->dim != 1 || !same_rows(op->dst->layout->parent, op->lay))))
      c->why = "a reduction into another layout";
    break;
  case TO_STORE:
    if (op->rows == 0) { /* one element: its value is a scalar expression */
      c->lay = NULL;
      return;
    }
    if (!op->from_copy) op->lay = store_layout(K, op); /* a staged store's is set (epilogues) */
    break;
  case TO_SPILL: case TO_COLREDUCE: op->lay = op->dst->layout; return;
  case TO_SCAN:
    /* where its value is: a blocked layout, or one row or column of one (a slice) */
    op->lay = op->dst->layout;
    if (op->lay->kind == LY_SCALAR) {
      c->why = "a scan of a scalar value";
      return;
    }
    if (tir_scan_geom(op).lanes > 1) K->use_lane = true;
    break;
  case TO_DOT:
    op->lay = op->dst->layout;
    if (op->simt && op->lay->kind == LY_SCALAR) {
      c->why = "a dot on the CUDA cores into a scalar value";
      return;
    }
    if (op->simt) return;
    if (op->lay->kind != LY_BLOCKED || !op->lay->mma) {
      c->why = "a dot into a value in another layout";
      return;
    }
    if (op->src) return;
    c->lay = op->alay; /* the A operand's values, where the A fragments need them */
    c->op = op;
    leaves(K, op->expr, check_leaf, c);
    return;
  case TO_SUM:
    op->lay = op->src->layout;
    if (op->lay->kind == LY_SCALAR) c->why = "sum() of a scalar value";
    return;
  default: return;
  }
  c->lay = op->lay;
  c->op = op;
  index_leaves(K, op, check_leaf, c); /* a gather's indices, where the op's threads need them */
  if (op->kind == TO_DECL || op->kind == TO_LOAD) return;
  leaves(K, op->expr, check_leaf, c);
}

/* ------------------------------------------------------------ shared homes */

/* A value too large for registers lives in its shared copy instead (TirVar.home):
 * first every value over its cap (tir_value_cap: MAX_REGS, or a wgmma
 * accumulator's), then, while the values live at one op together exceed
 * TIR_MAX_VALUE_REGS, the largest one (the first made among equals). A value may: a blocked one, not a @registers tile, not a stage
 * ring's, written only by its declaration, loads and elementwise assignments
 * that do not also read its copy at other elements, and whose copy is not a
 * stage ring (an alternating one stops alternating: make_home). A wgmma dot's
 * operand copy (core matrices, swizzled: TirBuf.cm8, swz) serves as well as
 * ldmatrix's: wgmma reads the operand from shared memory anyway, and a B slice of
 * 128 x 128 f16 or f8 on one warpgroup (128 per thread) was refused on sm_90a
 * where sm_90 kept it there; the element indices are the copy's (emit_tir.c
 * elem_idx), and a write to it fences the async proxy. Each op then reads and writes the
 * thread's own elements of the copy (TirAccess.own: sync.c orders them only
 * against reads and writes at other elements), a padding position of the
 * layout touching nothing; its spills to the copy go away, and a spill to
 * another copy (a transposed dot operand) reads it. The copy's pitch is the
 * plain one, cols + 1, or a dot operand's. */

typedef struct HomeOk {
  const TirVar *v;
  int buf;         /* its plain copy, or -1 */
  const char *why; /* why it may not, or NULL */
} HomeOk;

static bool reads_buf(const TirOp *op, int buf) {
  for (int i = 0; i < op->nacc; i++)
    if (op->acc[i].buf == buf && !op->acc[i].write) return true;
  return false;
}

static void home_ok_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)K;
  HomeOk *h = ctx;
  if (op->dst != h->v) return;
  switch (op->kind) {
  case TO_DECL: case TO_SPILL: return;
  case TO_LOAD: case TO_ASSIGN:
    if (h->buf >= 0 && reads_buf(op, h->buf)) /* x = transpose(x): other threads' elements */
      h->why = "it is assigned from its own elements at other threads";
    return;
  case TO_DOT:
    if (!op->simt) h->why = "a dot on tensor cores accumulates into it";
    return;
  default:
    h->why = "an op other than a load, an elementwise assignment or a dot on the CUDA cores writes it";
    return;
  }
}

static int plain_copy(const TirKernel *K, const TirVar *v) {
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].spill_of == v && !K->bufs[i].trans) return i;
  return -1;
}

static bool home_ok(TirKernel *K, const TirVar *v, const char **why) {
  const Layout *l = v->layout;
  const char *w = NULL;
  if (!l || l->kind != LY_BLOCKED) w = "it is a row or column value";
  else if (l->mma || l->wg) w = v->frag_why ? v->frag_why : "it holds a dot's fragments";
  else if (v->direct || v->home) w = "it is staged";
  else if (v->sym && v->sym->place == PL_REGISTER) w = "it is a @registers tile";
  HomeOk h = {v, plain_copy(K, v), w};
  if (!h.why && h.buf >= 0) {
    const TirBuf *f = &K->bufs[h.buf];
    if (f->stages) h.why = "its copy is a stage ring";
  }
  if (!h.why) walk(K, &K->body, home_ok_fn, &h);
  if (why) *why = h.why;
  return !h.why;
}

static void drop_home_spills(TirKernel *K, TirBlock *b) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    drop_home_spills(K, &op->body);
    drop_home_spills(K, &op->els);
    if (op->kind == TO_SPILL && op->dst->home == op->buf + 1) continue;
    b->ops.items[n++] = op;
  }
  b->ops.len = n;
}

static bool make_home(TirKernel *K, TirVar *v, const char *why) {
  int bi = plain_copy(K, v);
  if (bi < 0) bi = tir_copy_buf(K, v);
  if (bi < 0) return false;
  TirBuf *f = &K->bufs[bi];
  /* an operand copy made in a loop alternates halves so that the next
   * iteration's copy need not wait for this one's readers; a home is written
   * in place, one half, after a barrier */
  f->alternating = false;
  tir_buf_size(f);
  f->what = arena_printf(K->a, "%s, too large for registers", v->sym ? v->sym->name : v->what);
  v->home = bi + 1;
  v->home_why = why;
  return true;
}

/* A window write that lower.c forwarded (TirOp.fwd: y[a :+ m, b :+ n] = e, e's value
 * t spilled to its copy and read whole there at the window's coordinates): where y
 * may live in shared memory (home_ok) and has no copy of its own, t's copy becomes
 * y's copy and home, t's spill writes t's elements into the window of it in t's
 * layout (TO_SPILL.has_win, at other threads' elements of y: sync.c orders it against
 * y's readers), and the window write goes. A selective scan's step writes the state
 * times c where the state is, with no copy of it and no barrier; y is stored from
 * shared memory after the loop, after one barrier. */
static void forward_windows(TirKernel *K, TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *w = b->ops.items[i];
    forward_windows(K, &w->body);
    forward_windows(K, &w->els);
    if (w->kind != TO_ASSIGN || !w->fwd || !w->has_win) continue;
    TirOp *s = NULL;
    for (int j = i - 1; j >= 0 && !s; j--) {
      TirOp *o = b->ops.items[j];
      if (o->kind == TO_SPILL && o->dst == w->fwd) s = o;
    }
    TirVar *y = w->dst;
    if (!s || plain_copy(K, y) >= 0 || !home_ok(K, y, NULL)) continue;
    TirBuf *f = &K->bufs[s->buf];
    if (f->spill_of != w->fwd || f->trans || f->operand || f->stages || f->cm8) continue;
    f->spill_of = y;
    f->rows = y->rows;
    f->cols = y->cols;
    f->pitch = y->cols + 1;
    f->cname = tir_copy_cname(K, y, false, f);
    make_home(K, y, "it is written a window at a time in a loop from values in another layout, which write it in place");
    f->what = arena_printf(K->a, "%s, written a window at a time", y->sym ? y->sym->name : y->what);
    y->win_home = true;
    s->has_win = true;
    s->win[0] = w->win[0];
    s->win[1] = w->win[1];
    s->win_len[0] = w->win_len[0];
    s->win_len[1] = w->win_len[1];
    tir_drop_op(&b->ops, i--);
  }
}

typedef struct Own {
  TirOp *op;
  bool overflow;
} Own;

static void access_as(TirOp *op, int buf, bool write, bool own, bool *overflow);
static void own_access(TirOp *op, int buf, bool write, bool *overflow) { access_as(op, buf, write, true, overflow); }

static void own_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  (void)K, (void)x;
  Own *o = ctx;
  if (v->home) own_access(o->op, v->home - 1, false, &o->overflow);
}

static void own_fn(TirKernel *K, TirOp *op, void *ctx) {
  Own *o = ctx;
  o->op = op;
  if (op->dst && op->dst->home && (op->kind == TO_LOAD || op->kind == TO_ASSIGN)) {
    own_access(op, op->dst->home - 1, true, &o->overflow);
    if (op->kind == TO_ASSIGN && op->op != TK_ASSIGN) own_access(op, op->dst->home - 1, false, &o->overflow);
  }
  if (op->kind == TO_SPILL && op->dst->home) own_access(op, op->dst->home - 1, false, &o->overflow);
  if (op->kind == TO_DOT && op->dst->home) { /* a dot on the CUDA cores: each thread its own elements */
    own_access(op, op->dst->home - 1, true, &o->overflow);
    if (op->op != TK_ASSIGN) own_access(op, op->dst->home - 1, false, &o->overflow);
    return;
  }
  if (op->kind == TO_SUM && op->src->home) own_access(op, op->src->home - 1, false, &o->overflow);
  if (op->kind == TO_SPILL || op->kind == TO_SUM || op->kind == TO_DECL) return;
  index_leaves(K, op, own_leaf, o);
  leaves(K, op->expr, own_leaf, o);
}

/* TirOp.rolled: an op whose tile values all live in shared memory. */
typedef struct Roll {
  bool ok;
  int fused; /* the elements of a run of the fused loads it reads (a repeat's loads, per row) */
} Roll;

static void roll_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  (void)K, (void)x;
  Roll *r = ctx;
  if (!v->home && !v->fused && v->layout && v->layout->kind != LY_SCALAR) r->ok = false;
  if (v->fused) r->fused += v->layout->vec;
}

/* The 32-bit registers a rolled reduction's loop may give to the loads of repeats in
 * flight (TirOp.roll_unroll): a row sum of [16, 2048] f32 at 128 threads reads one
 * 16-byte run a repeat, and rolled by one it had one load in flight a thread. */
#define ROLL_LOAD_REGS 16

static void roll_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)ctx;
  if (op->kind == TO_REDUCE && !tir_down_cols(op) && op->lay && op->lay->kind == LY_BLOCKED && op->lay->rc >= 4) {
    Roll r = {true, 0};
    leaves(K, op->expr, roll_leaf, &r);
    op->rolled_cols = r.ok;
    /* a repeat's loads per row times the rows: unrolled while they fit ROLL_LOAD_REGS */
    int per = r.fused * op->lay->rr, u = 1;
    while (per && u < 4 && 2 * u * per <= ROLL_LOAD_REGS && 2 * u < op->lay->rc) u *= 2;
    op->roll_unroll = u;
    return;
  }
  if (op->kind != TO_LOAD && op->kind != TO_ASSIGN && op->kind != TO_STORE) return;
  if (!op->lay || op->lay->kind != LY_BLOCKED || op->lay->rr < 2) return;
  if (op->kind != TO_STORE && !op->dst->home) return;
  if (op->kind == TO_STORE && op->td) return; /* one element */
  Roll r = {true, 0};
  index_leaves(K, op, roll_leaf, &r);
  leaves(K, op->expr, roll_leaf, &r);
  op->rolled = r.ok;
}

static int value_count(const TirVar *v) { return layout_count(v->layout) * (elem_bytes[v->elem] > 4 ? 2 : 1); }

static int tensor_buf(const TirKernel *K, const Sym *X);

/* TirVar.fused: a load's value whose one reader is an op of the load's
 * statement in the load's layout, from a tensor the kernel does not write: the
 * reader reads the tensor itself (a row sum of a slice, a store of one). */
typedef struct Fuse {
  const TirVar *v;
  TirOp *load;
  const TirOp *reader;
  int loads, readers, other;
} Fuse;

static void fuse_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  (void)K, (void)x;
  Fuse *f = ctx;
  if (v == f->v) f->readers++;
}

static void fuse_fn(TirKernel *K, TirOp *op, void *ctx) {
  Fuse *f = ctx;
  if (op->dst == f->v) {
    if (op->kind == TO_LOAD && !op->gather) f->loads++, f->load = op;
    else if (op->kind != TO_DECL) f->other++;
  }
  if (op->src == f->v || op->src2 == f->v) f->other++;
  int before = f->readers;
  index_leaves(K, op, fuse_leaf, f);
  leaves(K, op->expr, fuse_leaf, f);
  if (f->readers > before) f->reader = op;
}

static TirOp *fusable(TirKernel *K, const TirVar *v) {
  if (v->sym || !v->layout || v->layout->kind != LY_BLOCKED || v->home || v->direct || v->fused) return NULL;
  Fuse f = {v, NULL, NULL, 0, 0, 0};
  walk(K, &K->body, fuse_fn, &f);
  if (f.loads != 1 || f.readers != 1 || f.other || f.reader->stmt != f.load->stmt || f.reader->lay != v->layout) return NULL;
  if (f.reader->kind != TO_REDUCE && f.reader->kind != TO_STORE && f.reader->kind != TO_ASSIGN) return NULL;
  if (tensor_buf(K, f.load->slice->u.index.base->u.ident.sym) >= 0) return NULL;
  return f.load;
}

typedef struct Writer {
  const TirVar *v;
  const TirOp *op;
} Writer;

static void writer_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)K;
  Writer *w = ctx;
  if (!w->op && op->dst == w->v && op->kind != TO_DECL && op->stmt) w->op = op;
}

/* A refusal about v points at the statement that first computes it. */
static void refuse_at(TirKernel *K, const TirVar *v) {
  Writer w = {v, NULL};
  walk(K, &K->body, writer_fn, &w);
  if (w.op) K->why_at = w.op->stmt->loc;
}

/* The values live together past TIR_MAX_VALUE_REGS, none of which can move to
 * shared memory (dot accumulators on the tensor cores, @registers tiles): they
 * stay, and the warning names them, largest first. */
static void pressure_warning(TirKernel *K, int budget, const char *why) {
  PtrVec at = {0};
  int peak = why ? tir_value_held(K, &at) : tir_value_peak(K, &at);
  Buf b = {0};
  for (int n = 0; n < at.len && n < 4; n++) {
    int best = -1;
    for (int i = 0; i < at.len; i++) {
      const TirVar *v = at.items[i];
      if (v && (best < 0 || layout_count(v->layout) > layout_count(((TirVar *)at.items[best])->layout))) best = i;
    }
    const TirVar *v = at.items[best];
    at.items[best] = NULL;
    buf_printf(&b, "%s%s: %d", n ? ", " : "", v->sym ? v->sym->name : v->what, layout_count(v->layout));
  }
  if (why) {
    diag_warning(K->d, W_PRESSURE, K->k->name_loc,
                 "kernel '%s' keeps values of %d registers per thread live at one op, and %s: with the registers "
                 "its indices and addresses need, ptxas will spill (%s%s)",
                 K->k->name, peak, why, b.data, at.len > 4 ? ", ..." : "");
    int half = K->ki->threads / 2, more = K->t->regs_per_sm / (half > 0 ? half : 1) / 8 * 8;
    if (more > K->t->max_regs_per_thread) more = K->t->max_regs_per_thread;
    diag_note(K->d, K->k->name_loc, "fewer threads in @launch leave each more registers (@launch(%d): %d), or smaller "
              "tiles hold fewer values per thread", half, more);
  } else {
    diag_warning(K->d, W_PRESSURE, K->k->name_loc,
                 "kernel '%s' keeps values of %d registers per thread live at one op, more than its budget of %d, "
                 "and none can live in shared memory: ptxas may spill (%s%s)",
                 K->k->name, peak, budget, b.data, at.len > 4 ? ", ..." : "");
    diag_note(K->d, K->k->name_loc, "more threads in @launch, or smaller tiles, hold fewer per thread");
  }
  buf_free(&b);
}

/* Registers a thread keeps beside its values (indices, addresses, loop counters): a
 * thread's values past its hardware limit less these spill (PRESSURE_RESERVE). */
enum { PRESSURE_RESERVE = 16 };

/* The values against the registers a thread of this block size may have at all: the
 * register file over the threads, in steps of 8, at most the target's per-thread limit
 * (@launch(1024): 64). TIR_MAX_VALUE_REGS is the translator's budget below that. */
/* An mma.sync dot's k steps are unrolled, and ptxas loads fragments of the
 * steps ahead into what registers are left: beside the values live at the dot
 * a thread needs about 48 for addresses and two sets of fragments (an m16
 * tile's A 4, an n8 tile's B 2), of an f8 dot twice that. On sm_90 (ptxas 13.0,
 * 128 x 128 x 128 tiles, 256 threads): acc += dot(a, b) of f8 took 196, of f16
 * acc += dot(a, b) * s (the dot in a value of its own, 64 more) 230, and of f8
 * the same 255 and spilled, where this estimate gives 208, 224 and 272. */
/* The registers of the fragments of two k steps of mma.sync dot d over n of its
 * tiles across (all of its warp tile's rows); of one, when the dot has only one
 * (a LoRA's rank-16 product: nothing to load ahead, and ptxas took 130 to 158
 * registers where two steps' estimate said 256). */
static int dot_frags(const TirOp *d, int n) {
  ElemType t = d->src ? d->src->elem : d->expr->u.call.cast;
  int ks = d->kdim / (elem_bytes[t] == 1 ? 32 : 16); /* k steps: one k step has nothing to load ahead */
  return (ks > 1 ? 2 : 1) * (d->lay->rr / 2 * 4 + n * 2) * (elem_bytes[t] == 1 ? 2 : 1);
}

typedef struct DotPressure {
  int limit;
  const TirOp *dot;
  int need, live, frags;
} DotPressure;

static void dot_pressure_fn(TirKernel *K, TirOp *op, void *ctx) {
  DotPressure *d = ctx;
  if (op->kind != TO_DOT || op->simt || op->wgmma || !op->lay || !op->lay->mma || d->dot) return;
  int frags = dot_frags(op, op->nend ? op->nend - op->nbeg : op->lay->rc);
  int live = tir_value_regs_at(K, op), need = live + 48 + frags;
  if (need > d->limit) *d = (DotPressure){d->limit, op, need, live, frags};
}

/* ------------------------------------------------------------ dots in parts */

/* A dot on mma.sync into a value of its own that one elementwise assign in the
 * dot's layout reads (acc += dot(a, b) * s, the scale a row's or a scalar) holds
 * the dot's value beside the assign's tile: an f8 dot of 128 x 128 tiles at
 * 256 threads, 64 registers each, spilled on sm_90 (the estimate above: 272).
 * When the estimate passes what a thread may have, the dot and the assign run
 * in parts of the warp tile's columns (TirOp.nbeg, nend: its 8-column tiles):
 * each part's k steps into its registers of the value, then the assign of
 * those, so that only one part of the value is live (TirVar.parts). Each
 * part's k steps are a loop (TirOp.rolled_k): unrolled, ptxas 13.0 scheduled
 * the parts together (the next part's fragment loads and mma hoisted, this
 * part's assign sunk to the end of the iteration), which left them all live
 * and spilled as before. Each part loads the A fragments again (B's once, as
 * before); the mma are the same. The parts are the fewest that bring the
 * estimate within the limit (that f8 dot: 2 parts of 4 tiles, 208; ptxas: 244
 * registers, no spill); with none, a part per tile, the least that can be
 * live, and -Wregister-pressure says so (at @launch(512): ptxas spilled 8
 * bytes where the whole dot spilled 64). Only a dot with A from shared memory
 * (a loop over k needs no literal register index). The ops between the dot
 * and the assign (the scale's load) go before the parts. */
typedef struct Split {
  const TirVar *v;
  int touch;
} Split;

static void split_touch_fn(TirKernel *K, TirOp *op, void *ctx) {
  Split *s = ctx;
  if (op->kind != TO_DECL && tir_op_touches(K, op, s->v)) s->touch++;
}

/* The index of the assign that reads dot b->ops[i]'s value, with only loads and
 * declarations of other values between, or -1 when the dot cannot be split. */
static int split_reader(TirKernel *K, const TirBlock *b, int i) {
  const TirOp *d = b->ops.items[i];
  TirVar *v = d->dst;
  if (d->simt || d->wgmma || !d->src || !d->lay || !d->lay->mma || d->kend || d->frag || d->op != TK_ASSIGN ||
      v->home || v->fused || v->parts || d->lay->rc < 2)
    return -1;
  int j = i + 1;
  for (; j < b->ops.len; j++) {
    const TirOp *o = b->ops.items[j];
    if (tir_op_touches(K, o, v)) break;
    if (o->kind != TO_LOAD && o->kind != TO_DECL) return -1;
  }
  if (j == b->ops.len) return -1;
  const TirOp *r = b->ops.items[j];
  if (r->kind != TO_ASSIGN || r->lay != d->lay || r->has_win || r->rolled || r->dst == v || r->dst->layout != d->lay ||
      r->dst->home)
    return -1;
  Split s = {v, 0};
  walk(K, &K->body, split_touch_fn, &s);
  return s.touch == 2 ? j : -1; /* the dot and the assign */
}

/* Dot b->ops[i] and its reader b->ops[j] in `parts` parts; the ops between go first. */
static void split_dot(TirKernel *K, TirBlock *b, int i, int j, int parts) {
  TirOp *d = b->ops.items[i], *r = b->ops.items[j];
  PtrVec out = {0};
  for (int k = 0; k < b->ops.len; k++) {
    TirOp *op = b->ops.items[k];
    if (k == i) continue;
    if (k == i + 1 && k < j && d->first) op->first = true, d->first = false; /* it heads the statement now */
    if (k != j) {
      vec_push(K->a, &out, op);
      continue;
    }
    int w = d->lay->rc / parts;
    for (int p = 0; p < parts; p++) {
      TirOp *dp = p ? NEW(K->a, TirOp) : d, *rp = p ? NEW(K->a, TirOp) : r;
      if (p) *dp = *d, *rp = *r, dp->first = rp->first = false, rp->note = NULL;
      dp->nbeg = rp->nbeg = p * w;
      dp->nend = rp->nend = (p + 1) * w;
      dp->rolled_k = true;
      vec_push(K->a, &out, dp);
      vec_push(K->a, &out, rp);
    }
  }
  b->ops = out;
  d->dst->parts = parts;
}

static void split_dots(TirKernel *K, TirBlock *b, int limit) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *d = b->ops.items[i];
    split_dots(K, &d->body, limit);
    split_dots(K, &d->els, limit);
    if (d->kind != TO_DOT) continue;
    int j = split_reader(K, b, i);
    if (j < 0) continue;
    /* the parts run where the assign is: what is live there beside the value (the scale too) */
    int rc = d->lay->rc, count = layout_count(d->dst->layout), live = tir_value_regs_at(K, b->ops.items[j]) - count;
    if (live + count + 48 + dot_frags(d, rc) <= limit) continue;
    int parts = 2;
    while (parts < rc && (rc % parts || live + count / parts + 48 + dot_frags(d, rc / parts) > limit)) parts++;
    split_dot(K, b, i, j, parts);
    i = j + 2 * parts - 2; /* the last part's assign */
  }
}

static void thread_pressure(TirKernel *K) {
  const TargetConfig *t = K->t;
  int threads = K->ki->threads;
  int limit = tir_thread_regs(t, threads, 1);
  if (!limit) return;
  split_dots(K, &K->body, limit);
  int peak = tir_value_regs(K);
  if (peak <= TIR_MAX_VALUE_REGS && tir_value_held(K, NULL) + PRESSURE_RESERVE > limit) {
    pressure_warning(K, limit, arena_printf(K->a, "@launch(%d) leaves a thread at most %d registers (%d per SM over %d "
                                                  "threads)", threads, limit, t->regs_per_sm, threads));
    return;
  }
  if (peak > TIR_MAX_VALUE_REGS) return; /* said already (place_values) */
  DotPressure d = {limit, NULL, 0, 0, 0};
  walk(K, &K->body, dot_pressure_fn, &d);
  if (!d.dot) return;
  diag_warning(K->d, W_PRESSURE, d.dot->stmt->loc,
               "kernel '%s' keeps values of %d registers per thread live at this dot; with the fragments ptxas loads "
               "ahead for its k steps (about %d) and its addresses (about 48), about %d, more than the %d a thread of "
               "@launch(%d) may have: ptxas will likely spill",
               K->k->name, d.live, d.frags, d.need, limit, threads);
  if (d.dot->nend)
    diag_note(K->d, d.dot->stmt->loc, "the dot already runs in %d parts of its columns, one part of its value live at a "
              "time; smaller tiles hold fewer values per thread", d.dot->dst->parts);
  else
    diag_note(K->d, d.dot->stmt->loc, "%ssmaller tiles hold fewer values per thread",
              d.dot->dst->sym ? "" : "a dot accumulated straight into its tile (acc += dot(a, b)) holds no value of its own; ");
}

static bool place_values(TirKernel *K, const char **why) {
  bool any = false;
  for (int i = 0; i < K->vars.len; i++) {
    TirVar *v = K->vars.items[i];
    if (!v->layout || value_count(v) <= tir_value_cap(v)) continue;
    const char *w = arena_printf(K->a, "%d 32-bit registers per thread, more than the %d one value may hold", value_count(v),
                                 tir_value_cap(v));
    TirOp *l = fusable(K, v);
    if (l) {
      v->fused = l;
      v->home_why = w;
      any = true;
      continue;
    }
    const char *no = NULL;
    if (!home_ok(K, v, &no) || !make_home(K, v, w)) {
      refuse_at(K, v);
      *why = arena_printf(K->a, "%s holds %d per thread, too many for registers, and cannot live in shared memory: %s",
                          v->sym ? v->sym->name : v->what, value_count(v), no ? no : "too many shared copies");
      return false;
    }
    any = true;
  }
  while (tir_value_regs(K) > TIR_MAX_VALUE_REGS) {
    /* the largest value that need not be held, or else can live in shared memory */
    TirVar *best = NULL;
    TirOp *load = NULL;
    for (int i = 0; i < K->vars.len; i++) {
      TirVar *v = K->vars.items[i];
      if (!v->layout || v->home || v->fused || (best && value_count(v) < value_count(best))) continue;
      TirOp *l = fusable(K, v);
      bool better = !best || value_count(v) > value_count(best) || (l && !load);
      if (better && (l || home_ok(K, v, NULL))) best = v, load = l;
    }
    const char *w = arena_printf(K->a, "the values live at one op together would take more than %d registers per thread, and it is one of the largest", TIR_MAX_VALUE_REGS);
    if (best && load) {
      best->fused = load;
      best->home_why = w;
    } else if (!best) {
      K->pressure_late = true; /* layout_pressure_late: a staged epilogue load may take its value out of registers */
      break;
    } else if (!make_home(K, best, w)) {
      *why = "values too large for registers together, and no room for another shared copy";
      return false;
    }
    any = true;
  }
  thread_pressure(K);
  for (int i = 0; i < K->vars.len && !any; i++) any = ((TirVar *)K->vars.items[i])->home; /* forward_windows' */
  if (!any) return true;
  drop_home_spills(K, &K->body);
  Own o = {NULL, false};
  walk(K, &K->body, own_fn, &o);
  walk(K, &K->body, roll_fn, NULL);
  if (o.overflow) {
    *why = "too many shared copies read by one statement";
    return false;
  }
  return true;
}

static bool registers_ok(TirKernel *K, const char **why) {
  if (!place_values(K, why)) return false;
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    if (v->sym && v->sym->place == PL_REGISTER &&
        (layout_count(v->layout) != v->sym->per_thread || layout_padded(v->layout))) {
      refuse_at(K, v);
      *why = arena_printf(K->a, "no layout of its shape holds @registers tile '%s''s %d per thread without padding",
                          v->sym->name, v->sym->per_thread);
      return false;
    }
  }
  return true;
}

/* ------------------------------------------------------------ scratch for reductions across warps */

/* The scratch of a reduction across warps: a row reduction's partials [wc, rows]
 * (a column reduction's [wr, cols])
 * (an arg-reduction's values and then its indices, [2 * wc, rows], in the type
 * it compares in: an index below 2^20, a tile's most elements, is exact in every
 * one); sum()'s [warps, 1]; a scan's run totals [warps along a line, segments x
 * lines] in the type it accumulates in. */
static int new_buf(TirKernel *K, const TirOp *op, bool in_loop) {
  if (K->nbufs == TIR_MAX_BUFS) return -1;
  TirBuf *f = &K->bufs[K->nbufs];
  int n = 0;
  for (int i = 0; i < K->nbufs; i++) n += K->bufs[i].spill_of == NULL && K->bufs[i].tensor == NULL;
  f->cname = arena_printf(K->a, "t2c_red%d", n);
  bool arg = builtin_class[op->red] == BC_ARG;
  const char *what = op->kind == TO_SUM ? "one value per warp"
                     : op->kind == TO_SCAN ? "run totals, one row per warp"
                     : arg ? "values, then indices, one row per warp" : "one row per warp";
  f->what = arena_printf(K->a, "partials of %s at line %d, %s", builtin_names[op->red], op->stmt->loc.line, what);
  f->elem = op->dst->elem;
  f->rows = op->kind == TO_SUM ? K->ki->threads / K->t->lanes : op->lay->wc;
  f->cols = op->kind == TO_SUM ? 1 : op->rows;
  if (tir_down_cols(op)) { /* a row of partials per warp down the columns */
    f->rows = op->lay->wr;
    f->cols = op->cols;
  }
  if (arg) {
    f->elem = tir_acc_type(op->expr->ty.elem);
    f->rows *= 2;
  }
  if (op->kind == TO_SCAN) { /* the mma accumulator's warps: one total per line */
    ScanGeom g = tir_scan_geom(op);
    f->elem = tir_acc_type(op->dst->elem);
    f->rows = g.warps;
    f->cols = (g.warp_major ? 1 : g.segs) * g.len;
  }
  f->pitch = f->cols;
  f->alternating = in_loop;
  f->bytes = (int64_t)f->rows * f->cols * elem_bytes[f->elem] * (in_loop ? 2 : 1);
  return K->nbufs++;
}

/* ------------------------------------------------------------ a max (min) from its arg-reduction
 *
 * rowmin(d) and rowargmin(d) of one value (a k-NN step takes both) would fold
 * twice: t2c::fold_min shuffles the values, t2c::fold_argmin the values and
 * the indices again, and where rows span warps each goes through scratch. The
 * arg-reduction's companion array already ends with each row's extreme value,
 * so the plain reduction takes it (TirOp.from_arg) and folds nothing: a third
 * of the shuffles. Only where the two agree at every element (language.md):
 * - a min with an argmin: argmin's value is the least of the row's numbers, the
 *   one rowmin gives (-0.0 against 0.0 either sign, as rowmin may give), or NaN
 *   when the row holds only NaN, where rowmin gives the highest value: the copy
 *   folds it with that (emit_tir.c nan_dropped), as rowmin's first element is;
 * - a max with an argmax of integers only: argmax's value is NaN when a row holds
 *   a NaN, which rowmax drops.
 * Both must read the same operand (the same expression of the same values, in
 * the same layout), in one block with nothing between them writing what it
 * reads; an argmin after the min moves up to it (its result is a fresh value
 * no op before it names). Before add_scratch: the min then needs no scratch. */

/* Whether a and b are the same expression of the same values at one point: the
 * same hoisted values, vars and constants, no random numbers, no element or
 * shared-copy reads (which another op may change between). */
static bool same_operand(const TirKernel *K, const Expr *a, const Expr *b) {
  if (tir_read(K, a) || tir_read(K, b)) return false;
  const TirVar *ha = tir_hoisted(K, a), *hb = tir_hoisted(K, b);
  if (ha || hb) return ha == hb;
  if (a->kind != b->kind || a->ty.elem != b->ty.elem || a->ty.rank != b->ty.rank) return false;
  if ((a->flags & EF_CONST) && (b->flags & EF_CONST)) return a->cv.isf == b->cv.isf && a->cv.i == b->cv.i && a->cv.f == b->cv.f;
  switch (a->kind) {
  case E_INT: case E_BOOL: return a->u.ival == b->u.ival;
  case E_FLOAT: return a->u.fval == b->u.fval;
  case E_INF: return true;
  case E_CTX: return a->u.ctx == b->u.ctx;
  case E_IDENT: return a->u.ident.sym && a->u.ident.sym == b->u.ident.sym;
  case E_UNARY: return a->u.unary.op == b->u.unary.op && same_operand(K, a->u.unary.a, b->u.unary.a);
  case E_BINARY:
    return a->u.binary.op == b->u.binary.op && same_operand(K, a->u.binary.a, b->u.binary.a) &&
           same_operand(K, a->u.binary.b, b->u.binary.b);
  case E_CALL:
    if (a->u.call.builtin != b->u.call.builtin || a->u.call.cast != b->u.call.cast || a->u.call.nargs != b->u.call.nargs)
      return false;
    if (a->u.call.builtin >= 0 && builtin_class[a->u.call.builtin] == BC_RANDOM) return false;
    for (int i = 0; i < a->u.call.nargs; i++)
      if (!same_operand(K, a->u.call.args[i], b->u.call.args[i])) return false;
    return true;
  default: return false;
  }
}

/* The arg-reduction whose values max or min reduction m may take (see above). */
static bool arg_partner(const TirOp *m, const TirOp *a) {
  BuiltinKind want = m->red == B_ROWMIN   ? B_ROWARGMIN
                     : m->red == B_COLMIN ? B_COLARGMIN
                     : m->red == B_ROWMAX ? B_ROWARGMAX
                     : m->red == B_COLMAX ? B_COLARGMAX
                                          : B_ROWSUM;
  if (a->kind != TO_REDUCE || a->red != want || a->intra || a->carried || a->from_arg) return false;
  bool max = m->red == B_ROWMAX || m->red == B_COLMAX;
  if (max && elem_is_float(m->dst->elem)) return false;
  /* the value type: the min's accumulator is the type argmin compares in */
  if (m->dst->elem != tir_acc_type(a->expr->ty.elem) || m->dst->home || a->dst->home) return false;
  if (m->lay != a->lay || m->dst->layout->kind != LY_SLICE || a->dst->layout->kind != LY_SLICE ||
      m->dst->layout->parent != a->dst->layout->parent || m->dst->layout->dim != a->dst->layout->dim)
    return false;
  return true;
}

/* Whether op (not in a loop's or if's body: those are refused) writes what x reads. */
static bool writes_operand(const TirKernel *K, const TirOp *op, const Expr *x) {
  if (op->body.ops.len || op->els.ops.len || op->kind == TO_FOR || op->kind == TO_WHILE || op->kind == TO_IF) return true;
  const Sym *y = tir_scalar_written(op);
  return (op->dst && tir_mentions(K, x, op->dst, true)) || (y && tir_names_sym(x, y));
}

static void arg_values(TirKernel *K, TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    arg_values(K, &op->body);
    arg_values(K, &op->els);
  }
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *m = b->ops.items[i];
    if (m->kind != TO_REDUCE || m->intra || m->carried || m->from_arg || builtin_class[m->red] != BC_RED ||
        m->red == B_ROWSUM || m->red == B_COLSUM)
      continue;
    for (int j = 0; j < b->ops.len; j++) {
      TirOp *a = b->ops.items[j];
      if (j == i || !arg_partner(m, a)) continue;
      const Expr *me = m->expr;
      if (m->dst->elem != a->expr->ty.elem && me->kind == E_CALL && me->u.call.builtin < 0 && me->u.call.nargs == 1 &&
          !tir_hoisted(K, me))
        me = me->u.call.args[0]; /* lower.c's conversion to the type it folds in */
      if (!same_operand(K, me, a->expr)) continue;
      bool clear = true;
      for (int k = (j < i ? j : i) + 1; clear && k < (j < i ? i : j); k++)
        clear = !writes_operand(K, b->ops.items[k], a->expr);
      if (!clear) continue;
      if (j > i) { /* the argmin moves up to the min: its statement's comment goes to the op after it */
        TirOp *next = j + 1 < b->ops.len ? b->ops.items[j + 1] : NULL;
        if (a->first && next && next->stmt == a->stmt) next->first = true;
        a->first = false;
        a->note = arena_printf(K->a, "%s at line %d, here: the %s at line %d takes its values", builtin_names[a->red],
                               a->stmt->loc.line, builtin_names[m->red], m->stmt->loc.line);
        memmove(&b->ops.items[i + 1], &b->ops.items[i], (size_t)(j - i) * sizeof b->ops.items[0]);
        b->ops.items[i] = a;
        i++; /* m's place */
      }
      m->from_arg = true;
      m->src = a->dst;
      m->rolled_cols = false;
      if (!m->first && !m->note)
        m->note = arena_printf(K->a, "the %s at line %d: the %s's values", builtin_names[m->red], m->stmt->loc.line,
                               builtin_names[a->red]);
      break;
    }
  }
}

/* Whether op's reduction or scan spans warps, so that it needs a scratch buffer. */
static bool across_warps(const TirKernel *K, const TirOp *op) {
  switch (op->kind) {
  case TO_SUM: return K->ki->threads > K->t->lanes;
  case TO_REDUCE: return !op->intra && !op->from_arg && (tir_down_cols(op) ? op->lay->wr > 1 : op->lay->wc > 1);
  case TO_SCAN: return tir_scan_geom(op).warps > 1;
  default: return false;
  }
}

/* Whether op reads the value of a scratch read held back in reads. */
static bool reads_held(const TirKernel *K, const TirOp *op, const PtrVec *reads) {
  for (int i = 0; i < reads->len; i++) {
    const TirVar *v = ((const TirOp *)reads->items[i])->dst;
    if (op->src == v || tir_mentions(K, op->expr, v, true)) return true;
  }
  return false;
}

/* The held scratch reads, then the ops held back after them (their readers). */
static void flush_reads(TirKernel *K, PtrVec *out, PtrVec *reads, PtrVec *after) {
  for (int i = 0; i < reads->len; i++) vec_push(K->a, out, reads->items[i]);
  for (int i = 0; i < after->len; i++) vec_push(K->a, out, after->items[i]);
  reads->len = after->len = 0;
}

/* The tensor a store writes (NULL for any other op). */
static const Sym *stored_tensor(const TirOp *op) {
  return op->kind == TO_STORE && op->slice ? op->slice->u.index.base->u.ident.sym : NULL;
}

/* Whether op reads or writes what an op of held writes (a value, or a tensor
 * one of its stores writes). */
static bool after_held(const TirKernel *K, const TirOp *op, const PtrVec *held) {
  for (int i = 0; i < held->len; i++) {
    const TirOp *h = held->items[i];
    const Sym *t = stored_tensor(h), *y = tir_scalar_written(h);
    if ((h->dst && tir_op_touches(K, op, h->dst)) || (y && tir_op_mentions(K, op, NULL, y)) ||
        (t && (tir_names_sym(op->expr, t) || tir_names_sym(op->slice, t) || tir_names_sym(op->pad, t))))
      return true;
  }
  return false;
}

/* Whether an op of held reads or writes what op writes. */
static bool before_held(const TirKernel *K, const TirOp *op, const PtrVec *held) {
  const Sym *y = tir_scalar_written(op);
  for (int i = 0; i < held->len; i++)
    if ((op->dst && tir_op_touches(K, held->items[i], op->dst)) || (y && tir_op_mentions(K, held->items[i], NULL, y))) return true;
  return false;
}

static bool groupable(const TirKernel *K, const TirOp *op) {
  return (op->kind == TO_REDUCE || op->kind == TO_SUM || op->kind == TO_SCAN) && across_warps(K, op);
}

/* With scratch reads held back (reads) and ops held after them (after): the
 * index of the next reduction from i on that can write its scratch before
 * the held reads, or -1. The ops before it must each either read or write
 * what is held (a value a held op writes, a tensor a held store writes),
 * and then be an assignment, load or store that waits with the held ops, or
 * else touch nothing held and be a declaration, assignment or load that goes
 * before (one that writes nothing a held op reads). The reduction must touch
 * nothing held. Into *wait, the ops that wait. */
static int next_groupable(const TirKernel *K, const TirBlock *b, int i, const PtrVec *reads, const PtrVec *after,
                          PtrVec *wait) {
  PtrVec held = {0};
  for (int k = 0; k < reads->len; k++) vec_push(K->a, &held, reads->items[k]);
  for (int k = 0; k < after->len; k++) vec_push(K->a, &held, after->items[k]);
  wait->len = 0;
  for (int j = i; j < b->ops.len; j++) {
    TirOp *op = b->ops.items[j];
    if (op->body.ops.len || op->els.ops.len) return -1;
    bool dep = after_held(K, op, &held);
    if (groupable(K, op)) {
      if (dep) return -1;
      return j;
    }
    /* a reduction or scan of one warp (a fold carried in each thread) is an assignment here */
    bool local = (op->kind == TO_REDUCE || op->kind == TO_SCAN) && !across_warps(K, op);
    if (dep) {
      if (op->kind != TO_ASSIGN && op->kind != TO_LOAD && op->kind != TO_STORE && op->kind != TO_SCALAR && !local) return -1;
      vec_push(K->a, &held, op);
      vec_push(K->a, wait, op);
      continue;
    }
    if ((op->kind != TO_DECL && op->kind != TO_ASSIGN && op->kind != TO_LOAD && op->kind != TO_SCALAR && !local) ||
        before_held(K, op, &held))
      return -1;
  }
  return -1;
}

/* Row and column reductions and sum()s next to each other (declarations
 * between them aside), none reading another's value (the folds after a loop
 * of several accumulations carried across it, two row sums of one statement),
 * write their scratch one after the other and read it after: sync.c puts one
 * barrier before the reads, not one per reduction. A reduction a few ops
 * further on joins them (next_groupable) when the ops in between either wait
 * with the held reads (var m = rowmax(x) waits, var s = rowsum(x) joins) or
 * are independent of them; the first op that waits says so in a comment. */
static bool add_scratch(TirKernel *K, TirBlock *b, int depth) {
  PtrVec out = {0}, reads = {0}, after = {0}, wait = {0}; /* the scratch reads held back, the ops after them */
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    bool grouped = groupable(K, op) && !reads_held(K, op, &reads) && !after_held(K, op, &after);
    if (!grouped && op->kind != TO_DECL && reads.len) {
      int j = next_groupable(K, b, i, &reads, &after, &wait);
      if (j > i) { /* the ops up to j go before it or wait */
        const TirOp *R = b->ops.items[j];
        for (int k = i; k < j; k++) {
          TirOp *o = b->ops.items[k];
          bool waits = false;
          for (int w = 0; w < wait.len; w++) waits |= wait.items[w] == o;
          if (!waits) {
            vec_push(K->a, &out, o);
            continue;
          }
          bool first = true; /* of its statement among the ops that wait */
          for (int w = 0; w < after.len; w++) first &= ((TirOp *)after.items[w])->stmt != o->stmt;
          if (first && !o->note && o->stmt && R->stmt && o->stmt != R->stmt)
            o->note = arena_printf(K->a, "line %d, after the reduction at line %d, which shares its barrier", o->stmt->loc.line,
                                   R->stmt->loc.line);
          vec_push(K->a, &after, o);
        }
        i = j;
        op = b->ops.items[i];
        grouped = true;
      }
    }
    if (!grouped && op->kind != TO_DECL) {
      const TirOp *last = after.len ? after.items[after.len - 1] : NULL;
      flush_reads(K, &out, &reads, &after);
      if (last && last->stmt != op->stmt && !op->first && !op->note && op->stmt) /* back to op's statement */
        op->note = arena_printf(K->a, "line %d", op->stmt->loc.line);
    }
    vec_push(K->a, &out, op);
    int d = depth + (op->kind == TO_FOR || op->kind == TO_WHILE);
    if (!add_scratch(K, &op->body, d) || !add_scratch(K, &op->els, d)) return false;
    if (!across_warps(K, op)) continue;
    int bi = new_buf(K, op, depth > 0);
    if (bi < 0) return false;
    for (int k = 0; k < 2; k++) {
      TirOp *s = tir_new_op(K, NULL, k ? TO_SCRATCH_READ : TO_SCRATCH_WRITE, op->stmt);
      s->dst = op->dst;
      s->red = op->red;
      s->axis = op->axis;
      s->lay = op->lay;
      s->rows = op->rows;
      s->cols = op->cols;
      s->buf = bi;
      s->acc[0] = (TirAccess){bi, k == 0, false};
      s->nacc = 1;
      vec_push(K->a, k && grouped ? &reads : &out, s);
    }
    K->use_lane = K->use_warp = true;
  }
  flush_reads(K, &out, &reads, &after);
  b->ops = out;
  return true;
}

/* ------------------------------------------------------------ vector widths and bounds */

static void add_check(TirKernel *K, const Sym *size, const Sym *tensor, int mod) {
  for (int i = 0; i < K->nchecks; i++)
    if (K->checks[i].size == size && K->checks[i].tensor == tensor && (mod ? K->checks[i].mod >= mod : !K->checks[i].mod)) return;
  if (K->nchecks < TIR_MAX_CHECKS) K->checks[K->nchecks++] = (TirCheck){size, tensor, mod};
}

/* The run a load or store may move at once: the layout's run along columns. */
static int run_of(const Layout *l) { return l->kind == LY_SLICE && l->dim == 1 ? 1 : l->vec; }

/* Whether x has one value along each row of the op it indexes: scalars, rows(),
 * a column ([R, 1]) broadcast, elementwise math of such, a gather at such indices,
 * and a tile var every write of which is such (vars: those being decided, taken
 * as such: a var is such when each of its writes is, given that it is). */
typedef struct RowOnly {
  const Sym *deciding[8];
  int n;
} RowOnly;

static bool row_only(TirKernel *K, const Expr *x, RowOnly *ro);

typedef struct VarWrites {
  const Sym *y;
  RowOnly *ro;
  bool ok;
} VarWrites;

static void var_writes_fn(TirKernel *K, TirOp *op, void *ctx) {
  VarWrites *w = ctx;
  if (!w->ok || !op->dst || op->dst->sym != w->y || op->kind == TO_DECL) return;
  if (op->kind == TO_ASSIGN && !op->has_win && !op->win[0] && !op->win[1] && op->expr)
    w->ok = row_only(K, op->expr, w->ro);
  else if (op->kind == TO_LOAD)
    w->ok = op->cols == 1 || (op->gather && row_only(K, op->slice, w->ro));
  else
    w->ok = op->cols == 1;
}

static bool row_only(TirKernel *K, const Expr *x, RowOnly *ro) {
  if (x->ty.rank == 0 || (x->ty.rank == 2 && x->ty.dims[1] == 1) || (x->ty.rank == 1 && x->ty.dims[0] == 1))
    return true;
  switch (x->kind) {
  case E_UNARY: return row_only(K, x->u.unary.a, ro);
  case E_BINARY: return row_only(K, x->u.binary.a, ro) && row_only(K, x->u.binary.b, ro);
  case E_CALL: {
    int b = x->u.call.builtin;
    if (x->u.call.cast == T_NONE && b == B_ROWS) return x->ty.rank == 2;
    if (x->u.call.cast == T_NONE && !(b >= 0 && (builtin_class[b] == BC_MATH1 || builtin_class[b] == BC_MATH2 ||
                                                  b == B_WHERE || b == B_PAD)))
      return false;
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!row_only(K, x->u.call.args[i], ro)) return false;
    return true;
  }
  case E_INDEX: {
    /* a gather (a slice of more than one column is not) */
    if (!check_is_gather(x)) return false;
    for (int d = 0; d < x->u.index.nidx; d++)
      if (x->u.index.idx[d].len || !row_only(K, x->u.index.idx[d].start, ro)) return false;
    return true;
  }
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y || x->ty.rank != 2) return false;
    for (int i = 0; i < ro->n; i++)
      if (ro->deciding[i] == y) return true;
    if (ro->n == (int)(sizeof ro->deciding / sizeof ro->deciding[0])) return false;
    ro->deciding[ro->n++] = y;
    VarWrites w = {y, ro, true};
    walk(K, &K->body, var_writes_fn, &w);
    ro->n--;
    return w.ok;
  }
  default: return false;
  }
}

/* Whether the first n indices of slice s have one value along each row. */
static bool indices_row_only(TirKernel *K, const Expr *s, int n) {
  RowOnly ro = {.n = 0};
  for (int d = 0; d < n; d++)
    if (s->u.index.idx[d].len || !row_only(K, s->u.index.idx[d].start, &ro)) return false;
  return true;
}

/* Whether every index of a gather has one value along each row. */
static bool gather_per_row(TirKernel *K, const TirOp *op) {
  return indices_row_only(K, op->slice, op->slice->u.index.nidx);
}

/* The expression a tile var holds wherever it is read: its declaration's, when that is
 * its only write (TirOp.stmt: the S_VAR; no later assignment, whole or windowed, and no
 * load into it), so that reading it is reading the expression as written in its place
 * (the scalars in it, read at the declaration, are what facts.c reasons about: a scalar
 * var that is assigned again is no fact); NULL otherwise. */
typedef struct OnlyWrite {
  const Sym *y;
  const TirOp *op;
  int n;
} OnlyWrite;

static void only_write_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)K;
  OnlyWrite *w = ctx;
  if (op->dst && op->dst->sym == w->y && op->kind != TO_DECL) w->op = op, w->n++;
}

const Expr *layout_declared_value(TirKernel *K, const Expr *x) {
  const Sym *y = x->kind == E_IDENT ? x->u.ident.sym : NULL;
  if (!y || y->kind != SY_VAR || x->ty.rank != 2 || !y->decl || y->decl->kind != S_VAR || !y->decl->u.decl.init)
    return NULL;
  OnlyWrite w = {y, NULL, 0};
  walk(K, &K->body, only_write_fn, &w);
  const TirOp *op = w.op;
  if (w.n != 1 || op->kind != TO_ASSIGN || op->stmt != y->decl || op->op != TK_ASSIGN || op->has_win || op->win[0] ||
      op->win[1] || !op->expr)
    return NULL;
  return op->expr;
}

/* The first column of the run a gather X[i, .., e + cols(R, C)] reads at each element: e
 * (NULL for cols() alone) when the last index steps by one along each row and every
 * other index has one value along it, so that a run of the op's layout is a run of X.
 * e is a scalar, or has one value along each row itself: a + rows(R, 1) * C, the rows
 * of a contiguous slice reshaped to [R, C] (lower.c reshape_as_gather). */
static bool gather_run(TirKernel *K, const TirOp *op, const Expr **first) {
  const Expr *s = op->slice;
  int last = s->u.index.nidx - 1;
  const Expr *c = s->u.index.idx[last].start, *held = layout_declared_value(K, c);
  *first = NULL;
  if (held) c = held; /* var q = e + cols(R, C), then X[i, q]: as written in its place */
  if (c->kind == E_BINARY && c->u.binary.op == TK_PLUS) {
    bool right = c->u.binary.b->ty.rank == 0;
    *first = right ? c->u.binary.b : c->u.binary.a;
    c = right ? c->u.binary.a : c->u.binary.b;
    RowOnly ro = {.n = 0};
    if ((*first)->ty.rank != 0 && !row_only(K, *first, &ro)) return false;
  }
  if (c->kind != E_CALL || c->u.call.cast != T_NONE || c->u.call.builtin != B_COLS || c->ty.rank != 2 ||
      c->ty.dims[1] != op->cols || s->u.index.idx[last].len)
    return false;
  return indices_row_only(K, s, last);
}

/* The widest run of a thread's elements that one atomic of kind `atomic` updates
 * (at most vec): a float atomic_add of f16 or bf16 pairs (atomicAdd of __half2 and
 * __nv_bfloat162, sm_80 on) or of f32 pairs and quads (of float2 and float4, sm_90
 * on: red.global.v2/v4.f32). Each element is still updated atomically on its own,
 * which is all the language promises; max and min, integers and f64 have no such
 * instruction and go element by element. */
static int atomic_run(const TirKernel *K, int atomic, ElemType e, int vec) {
  if (atomic != B_ATOMIC_ADD) return 1;
  int bytes = K->hw->atom_vec_bytes, most = e == T_F32 && bytes >= 8 ? bytes / 4 : (e == T_F16 || e == T_BF16) && bytes >= 4 ? bytes / 2 : 1;
  while (vec > most) vec /= 2;
  return vec;
}

static void vector_width(TirKernel *K, TirOp *op) {
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  int last = X->trank - 1, vec = run_of(op->lay);
  /* an access of at most 16 bytes: a longer run (of the narrowest element, run_ebytes) in several */
  while (vec > 1 && vec * elem_bytes[X->ty.elem] > K->hw->vec_bytes) vec /= 2;
  op->vec = 1;
  op->vtail = false;
  Index *ix = &op->slice->u.index.idx[last];
  /* the run is along the tensor's last dim, from a multiple of the run; a
   * read-modify-write store (+=) reads the run, then writes it (each element is
   * its thread's); an atomic goes element by element but where the path updates a
   * run at once (a float atomic_add, atomic_run) */
  if (op->kind == TO_STORE && op->atomic) vec = atomic_run(K, op->atomic, X->ty.elem, vec);
  if (vec < 2 || op->cols == 1) return;
  /* a slice's first column, or a gather's along each row (gather_run) */
  const Expr *first = ix->start;
  int64_t len = op->cols;
  if (op->gather ? op->cols % vec || !gather_run(K, op, &first) : !ix->len || !check_const_int(ix->len, &len) || len % vec)
    return;
  /* a start made of size names or scalar parameters is a multiple of the run when
   * they are: the fast body's entry test says so (given) */
  const Sym *given[4];
  int ngiven = 0;
  if (first && !facts_multiple_given(K->ki, first, vec, given, &ngiven, 4)) return;
  if (!X->tdim_size[last] && X->tdim_const[last] % vec) return;
  /* room for every condition this access may add (its start's names, a size, its
   * strides, its pointer): a condition left out would let the fast body run where it must not */
  if (K->nchecks + ngiven + X->trank + 2 > TIR_MAX_CHECKS) return;
  for (int i = 0; i < ngiven; i++) add_check(K, given[i], NULL, vec);
  /* a rank-1 tensor has no rows to align: a run past its end moves element by element
   * (TirOp.vtail) rather than every run of the kernel (a ragged N of an elementwise
   * kernel took the general body) */
  if (X->tdim_size[last] && !facts_assumed_multiple(K->ki, X->tdim_size[last], vec)) {
    if (X->trank == 1 && !X->tstride[last]) op->vtail = true;
    else add_check(K, X->tdim_size[last], NULL, vec);
  }
  /* @strided: runs only along a unit innermost stride, from rows that start aligned */
  if (X->tstride[last]) add_check(K, X->tstride[last], NULL, 0);
  for (int d = 0; d < last && X->tstride[d]; d++) add_check(K, X->tstride[d], NULL, vec);
  add_check(K, NULL, X, vec * elem_bytes[X->ty.elem]);
  op->vec = vec;
  K->versioned = true;
}

/* A rank-1 tensor's runs need no test of their own (TirOp.vtail) where the fast body's
 * entry test already makes its size a multiple of the run (another access's rows). */
static void vtail_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)ctx;
  if (!op->vtail) return;
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  for (int i = 0; i < K->nchecks; i++)
    if (K->checks[i].size == X->tdim_size[0] && !K->checks[i].tensor && K->checks[i].mod % op->vec == 0) op->vtail = false;
}

typedef struct Bounds {
  int depth;
  const void *warned[256];
  int nwarned;
} Bounds;

static bool warned(Bounds *w, const void *key) {
  for (int i = 0; i < w->nwarned; i++)
    if (w->warned[i] == key) return true;
  if (w->nwarned < 256) w->warned[w->nwarned++] = key;
  return false;
}


/* Whether x is the call b() (rows or cols), of shape [r, c]. */
static bool is_line(const Expr *x, BuiltinKind b, int r, int c) {
  return x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == (int)b && x->ty.rank == 2 &&
         x->ty.dims[0] == r && x->ty.dims[1] == c;
}

/* A gather's tile index that is a run, s + rows(R, C) or s + cols(R, C) (either way
 * round) with s a scalar: the values s .. s + R - 1 (or C - 1), as the slice s :+ R
 * has; the gather lower.c makes of a slice reshaped to a row or a column
 * (reshape_as_gather: a vector-matrix dot's A) is one. So is (s + rows(R, 1) * C) +
 * cols(1, C), its gather of a slice reshaped to [R, C]: s .. s + R C - 1. Its start s,
 * and the run's length in *len; NULL for any other index. */
static const Expr *run_index(TirKernel *K, const Expr *x, int64_t *len) {
  if (x->kind == E_CALL && x->u.call.cast == T_NONE && x->ty.rank == 2 &&
      (x->u.call.builtin == B_ROWS || x->u.call.builtin == B_COLS)) {
    /* rows(R, C) or cols(R, C) alone: the run from 0 (a row scatter's D[r0 + rows(128, 1),
     * cols(128, 128)] into 128 columns had an always-true test of each column; bounds()
     * keeps one that may not fit without a warning) */
    Expr *z = NEW(K->a, Expr); /* zeroed */
    z->kind = E_INT;
    z->loc = x->loc;
    z->ty = (Type){T_I32, 0, {0, 0}, true};
    z->flags = EF_CONST;
    *len = x->u.call.builtin == B_ROWS ? x->ty.dims[0] : x->ty.dims[1];
    return z;
  }
  if (x->kind != E_BINARY || x->u.binary.op != TK_PLUS) return NULL;
  const Expr *a = x->u.binary.a, *c = x->u.binary.b;
  if (is_line(c, B_COLS, 1, c->ty.dims[1]) && a->kind == E_BINARY && a->u.binary.op == TK_PLUS && a->ty.rank == 2 &&
      a->u.binary.a->ty.rank == 0) {
    const Expr *m = a->u.binary.b;
    int64_t k, R = a->ty.dims[0];
    if (m->kind == E_BINARY && m->u.binary.op == TK_STAR && is_line(m->u.binary.a, B_ROWS, (int)R, 1) &&
        check_const_int(m->u.binary.b, &k) && k == c->ty.dims[1]) {
      *len = R * k;
      return a->u.binary.a;
    }
  }
  for (int k = 0; k < 2; k++) {
    const Expr *s = k ? x->u.binary.b : x->u.binary.a, *c = k ? x->u.binary.a : x->u.binary.b;
    if (s->ty.rank != 0 || c->kind != E_CALL || c->u.call.cast != T_NONE || c->ty.rank != 2) continue;
    if (c->u.call.builtin == B_ROWS) *len = c->ty.dims[0];
    else if (c->u.call.builtin == B_COLS) *len = c->ty.dims[1];
    else continue;
    return s;
  }
  return NULL;
}

static void bounds(TirKernel *K, TirOp *op, Bounds *w) {
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  for (int d = 0; d < X->trank; d++) {
    Index *ix = &op->slice->u.index.idx[d];
    int64_t len = 1;
    if (ix->start->ty.rank > 0) {
      /* a run's values are proved as the slice's, and its kept check said as one
         (the index of the slice's start: the key and the place of its warning) */
      const Expr *s = run_index(K, ix->start, &len);
      if (s) {
        op->chk[d] = (facts_nonneg(s) ? 0 : 1) | (facts_fits(K->ki, s, len, X, d) ? 0 : 2);
        /* a line alone keeps its check quietly where it may not fit, as it did when any tile
         * index did (E[I[kk], cols(32, 64)] of E: [R, D]) */
        if (op->chk[d] && w->depth > 0 && ix->start->kind != E_CALL && !warned(w, s)) {
          Index *run = NEW(K->a, Index);
          *run = (Index){(Expr *)s, NULL};
          facts_bounds_warning(K->d, K->a, K->ki, X, d, run, len);
        }
        continue;
      }
      /* any other tile index: checked, as its values may come from data, but where facts.c
       * proves every element in range (B[(i / hw) % C] of B: [C], i >= 0; H[i32(x)] of a u8
       * x and H of 256) */
      op->chk[d] = (facts_nonneg(ix->start) ? 0 : 1) | (facts_fits(K->ki, ix->start, 1, X, d) ? 0 : 2);
      continue;
    }
    if (ix->len) check_const_int(ix->len, &len);
    op->chk[d] = (facts_nonneg(ix->start) ? 0 : 1) | (facts_fits(K->ki, ix->start, len, X, d) ? 0 : 2);
    if (op->chk[d] && w->depth > 0 && !warned(w, ix)) facts_bounds_warning(K->d, K->a, K->ki, X, d, ix, len);
  }
}

/* Element reads X[i, j] in scalar expressions: bounds checks kept, and said inside loops. */
static bool warned(Bounds *w, const void *key);

static void element_bounds(TirKernel *K, Bounds *w) {
  K->elem_chk = NEW_ARRAY(K->a, TirChk, K->elems.len + 1);
  for (int i = 0; i < K->elems.len; i++) {
    const Expr *x = K->elems.items[i];
    const Sym *X = x->u.index.base->u.ident.sym;
    for (int d = 0; d < X->trank; d++) {
      const Expr *st = x->u.index.idx[d].start;
      K->elem_chk[i][d] = (facts_nonneg(st) ? 0 : 1) | (facts_fits(K->ki, st, 1, X, d) ? 0 : 2);
      if (K->elem_chk[i][d] && (intptr_t)K->elem_loops.items[i] > 0 && !warned(w, &x->u.index.idx[d]))
        facts_bounds_warning(K->d, K->a, K->ki, X, d, &x->u.index.idx[d], 1);
    }
  }
}

/* The value x is: a hoisted one (a load, a reduction), or a tile var's. */
static TirVar *value_named(const TirKernel *K, const Expr *x) {
  TirVar *v = tir_hoisted(K, x);
  for (int i = 0; !v && x->kind == E_IDENT && i < K->vars.len; i++) {
    TirVar *w = K->vars.items[i];
    if (w->sym && w->sym == x->u.ident.sym) v = w;
  }
  return v;
}

/* The load of b (or of the blocks inside its ops) into v, or NULL. */
static const TirOp *load_into(const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i], *in;
    if (op->kind == TO_LOAD && op->dst == v) return op;
    if ((in = load_into(&op->body, v)) || (in = load_into(&op->els, v))) return in;
  }
  return NULL;
}

/* Whether x reads a tensor anywhere (a tile var's values may come from one, unless
 * it is only ever its declaration's: var k = k0 + cols(1, 128) reads none). */
static bool reads_tensor(const Expr *x) {
  switch (x->kind) {
  case E_INDEX: return x->u.index.base->u.ident.sym && x->u.index.base->u.ident.sym->kind == SY_TENSOR;
  case E_UNARY: return reads_tensor(x->u.unary.a);
  case E_BINARY: return reads_tensor(x->u.binary.a) || reads_tensor(x->u.binary.b);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (reads_tensor(x->u.call.args[i])) return true;
    return false;
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y || y->kind != SY_VAR || y->ty.rank == 0) return false;
    if (!y->reassigned && y->decl && y->decl->kind == S_VAR && y->decl->u.decl.init)
      return reads_tensor(y->decl->u.decl.init);
    return true;
  }
  default: return false;
  }
}

/* A gather at indices computed without reading data (Seg[n0 + cols(1, 32)]): like a
 * slice, it reaches past its tensor where those indices do. */
static bool computed_gather(const Expr *x) {
  for (int d = 0; d < x->u.index.nidx; d++)
    if (reads_tensor(x->u.index.idx[d].start)) return false;
  return true;
}

/* The tensor slice x reads (a slice itself, a gather at computed indices, or a tile var
 * declared as one and never assigned again), or NULL. */
static const Expr *index_slice(const Expr *x) {
  if (x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->kind == SY_VAR && !x->u.ident.sym->reassigned &&
      x->u.ident.sym->decl && x->u.ident.sym->decl->kind == S_VAR && x->u.ident.sym->decl->u.decl.init)
    x = x->u.ident.sym->decl->u.decl.init;
  if (x->kind != E_INDEX || !x->u.index.base->u.ident.sym || x->u.index.base->u.ident.sym->kind != SY_TENSOR ||
      (check_is_gather(x) && !computed_gather(x)))
    return NULL;
  return x;
}

/* The conditions of the where()s a leaf is reached through, by elementwise operators
 * only: at a position where one is false, its where() gives the other branch there.
 * A node with no condition (INDIRECT) stands for a scan or reduction passed on the way:
 * the masks above it say nothing of the positions below it. */
typedef struct Mask {
  const Expr *c;
  const struct Mask *up;
} Mask;

static const Mask INDIRECT = {NULL, NULL};

/* Whether a where() masks the positions its condition is false at: where its value is the
 * index itself (no scan or reduction between, m), only when the other branch is a negative
 * constant, an index outside any tensor (where(ok, x, 0) sends them all to element 0); where
 * its value is summed or scanned first, always (its other branch is what they add). */
static bool where_masks(const Expr *w, const Mask *m) {
  for (; m; m = m->up)
    if (!m->c) return true;
  const Expr *e = w->u.call.args[2];
  while (e->kind == E_CALL && e->u.call.cast != T_NONE && e->u.call.nargs == 1) e = e->u.call.args[0]; /* i32(-1) */
  return (e->flags & EF_CONST) && e->ty.rank == 0 && !elem_is_float(e->ty.elem) && e->cv.i < 0;
}

/* The declaration of the var x names, when it is only ever that; else x. */
static const Expr *var_init(const Expr *x) {
  const Sym *y = x->kind == E_IDENT ? x->u.ident.sym : NULL;
  if (y && y->kind == SY_VAR && !y->reassigned && y->decl && y->decl->kind == S_VAR && y->decl->u.decl.init)
    return y->decl->u.decl.init;
  return x;
}

/* A where() branch whose value at a position past a slice's end is the branch's own
 * concern (unpadded_leaf looks at it): a negative constant (no element), or a value
 * read from a tensor (its slices padded, masked or warned about themselves). */
static bool branch_safe(const Expr *b) {
  const Expr *e = b;
  while (e->kind == E_CALL && e->u.call.cast != T_NONE && e->u.call.nargs == 1) e = e->u.call.args[0];
  if ((e->flags & EF_CONST) && e->ty.rank == 0 && !elem_is_float(e->ty.elem)) return e->cv.i < 0;
  return reads_tensor(b);
}

/* cols(R, C) or rows(R, C) (not a cast, not broadcast to another rank): 1 or 0, its axis;
 * else -1. */
static int coords_axis(const Expr *c) {
  if (c->kind != E_CALL || c->u.call.cast != T_NONE || c->ty.rank != 2) return -1;
  return c->u.call.builtin == B_COLS ? 1 : c->u.call.builtin == B_ROWS ? 0 : -1;
}

/* The start of a run written with none: cols(1, 512) is 0 + cols(1, 512). */
static const Expr ZERO_START = {.kind = E_INT, .ty = {T_I32, 0, {0, 0}, false}, .flags = EF_CONST};

/* The positions x gives along one axis of a tile: s + cols(R, C) (or cols(R, C) + s, each
 * maybe a var declared as it) the C positions s .. s + C - 1 along axis 1, s + rows(R, C)
 * the R along axis 0 (*axis 1 or 0, *n C or R); cols(R, C) or rows(R, C) alone the same
 * from s = 0 (ZERO_START); a scalar s the one position s (*axis -1, *n 1); false for any
 * other. */
static bool axis_run(const Expr *x, const Expr **s, int *axis, int64_t *n) {
  x = var_init(x);
  if (x->ty.rank == 0) {
    *s = x, *axis = -1, *n = 1;
    return true;
  }
  if (coords_axis(x) >= 0) {
    *s = &ZERO_START, *axis = coords_axis(x), *n = x->ty.dims[*axis];
    return true;
  }
  if (x->kind != E_BINARY || x->u.binary.op != TK_PLUS) return false;
  for (int side = 0; side < 2; side++) {
    const Expr *c = var_init(side ? x->u.binary.a : x->u.binary.b), *o = side ? x->u.binary.b : x->u.binary.a;
    if (o->ty.rank != 0 || coords_axis(c) < 0) continue;
    *s = o, *axis = coords_axis(c), *n = c->ty.dims[*axis];
    return true;
  }
  return false;
}

/* Whether two starts of runs are one: the same expression, or the same constant however
 * written (X[0 :+ 512] tested by cols(1, 512) < N: ZERO_START against the literal 0). */
static bool same_start(const Expr *a, const Expr *b) {
  a = facts_resolve(a), b = facts_resolve(b);
  if ((a->flags & EF_CONST) && (b->flags & EF_CONST)) return !a->cv.isf && !b->cv.isf && a->cv.i == b->cv.i;
  return facts_expr_equal(a, b);
}

/* The positions of one dim of X that a load's slice sl reads, on the axes of its tile: a
 * scalar index the one position s; X[s :+ n], on the tile's own axis (a rank-1 tile is a
 * row, axis 1; a rank-2 one takes its first slice's on axis 0); a gather's computed index
 * s + cols(R, C) or s + rows(R, C), as axis_run. ok false: none of these (no bounds test
 * is recognised for that dim). */
typedef struct DimRun {
  bool ok;
  const Expr *s;
  int axis;
  int64_t n;
} DimRun;

static void slice_runs(const Expr *sl, DimRun *r) {
  int rank = sl->ty.rank, k = 0; /* the slices (a :+ n) seen so far */
  for (int d = 0; d < sl->u.index.nidx; d++) {
    const Index *ix = &sl->u.index.idx[d];
    r[d].ok = false;
    if (!ix->len) {
      r[d].ok = axis_run(ix->start, &r[d].s, &r[d].axis, &r[d].n);
      continue;
    }
    int64_t n = 0;
    if (ix->len->flags & EF_CONST) n = ix->len->cv.i;
    r[d] = (DimRun){n > 0, ix->start, rank == 2 && k == 0 ? 0 : 1, n};
    k++;
  }
}

/* The dims of the slice sl (runs r) whose bounds test is among the terms && joins in c, as
 * a bit set: p < D (or D > p) for X's dim D, where p gives the same positions as the dim
 * reads, from a start s not negative (s + cols(1, n) < N for X[s :+ n] or X[s + cols(1, n)];
 * s + rows(16, 64) < H for the first dim of X[s :+ 16, t :+ 64]; s < H for a scalar index
 * s, or for X[s :+ 1, ..]). Only the test as written is recognised; a condition that
 * merely implies it is not. */
static unsigned tests_ends(const Expr *c, const Expr *sl, const DimRun *r) {
  const Sym *X = sl->u.index.base->u.ident.sym;
  const Expr *p, *D, *ts;
  int taxis;
  int64_t tn;
  c = var_init(c);
  if (c->kind != E_BINARY) return 0;
  switch (c->u.binary.op) {
  case TK_ANDAND: return tests_ends(c->u.binary.a, sl, r) | tests_ends(c->u.binary.b, sl, r);
  case TK_LT: p = c->u.binary.a, D = c->u.binary.b; break;
  case TK_GT: p = c->u.binary.b, D = c->u.binary.a; break;
  default: return 0;
  }
  D = facts_resolve(D);
  if (!axis_run(p, &ts, &taxis, &tn)) return 0;
  unsigned got = 0;
  for (int d = 0; d < X->trank; d++) {
    if (!r[d].ok) continue;
    if (X->tdim_size[d] ? D->kind != E_IDENT || D->u.ident.sym != X->tdim_size[d]
                        : !(D->flags & EF_CONST) || D->cv.i != X->tdim_const[d])
      continue;
    /* one position along the dim's axis (n 1) is the same at every position of the other */
    if (!(taxis == r[d].axis && tn == r[d].n) && !(taxis == -1 && r[d].n == 1)) continue;
    if (facts_nonneg(r[d].s) && (facts_expr_equal(ts, r[d].s) || same_start(ts, r[d].s))) got |= 1u << d;
  }
  return got;
}

static const Expr *unpadded_leaf(TirKernel *K, const Expr *x, const Mask *m, const Expr **top);

/* The first leaf of the operand x of a sum (keep -1: sum(x), to a scalar), rowsum (keep 0:
 * the axis its result keeps) or colsum (keep 1) that unpadded_leaf finds, less those whose
 * elements past their end add nothing to the index. A slice read past its end reads 0, the
 * identity of a sum: a leaf that is a factor of one of the terms + and - join in x (through
 * vars, casts, unary minus; * of floats only by a finite constant, as 0 * inf is NaN) makes that term 0 there,
 * so the sum is that of the elements in bounds (sum(C[0 :+ 256]) is the sum of C, however
 * short), no index taken from a past-the-end one. Not so along an axis the result keeps:
 * rowsum(C[r0 :+ 16, 0 :+ 64]) gives rows past C's end 0 each, an index of its own
 * computed from 0, so a dim checked along that axis still counts. Not so either for max,
 * min or a product (their identity is not 0: a past-the-end 0 may be the max, or zero the
 * product), nor a term that is not 0 with its leaf ((C + 1) * W, C == 0): those are
 * unpadded_leaf's, with no mask, as past any other reduction. factor: x is a factor of
 * a product, where a + no longer keeps a leaf's 0. */
/* A constant that is a finite number (an integer, or a float neither inf nor NaN). */
static bool finite_const(const Expr *e) {
  return (e->flags & EF_CONST) && e->ty.rank == 0 && (!e->cv.isf || isfinite(e->cv.f));
}

/* A where() branch that adds nothing to a sum at a position past a slice's end that its
 * condition reads: the constant 0, or a value read from a tensor (zero past its own end,
 * or padded, masked or warned about itself), as branch_safe's for an index. */
static bool summed_zero(const Expr *b) {
  const Expr *e = b;
  while (e->kind == E_CALL && e->u.call.cast != T_NONE && e->u.call.nargs == 1) e = e->u.call.args[0];
  if ((e->flags & EF_CONST) && e->ty.rank == 0) return e->cv.isf ? e->cv.f == 0.0 : e->cv.i == 0;
  return reads_tensor(b);
}

static const Expr *summed_leaf(TirKernel *K, const Expr *x, int keep, bool factor, const Expr **top) {
  const Expr *sl = index_slice(x);
  if (sl) {
    const Expr *leaf = unpadded_leaf(K, x, &INDIRECT, top);
    if (!leaf || keep < 0) return NULL;
    const TirVar *v = value_named(K, x);
    const TirOp *l = v ? load_into(&K->body, v) : NULL;
    if (!l && sl != x && (v = value_named(K, sl))) l = load_into(&K->body, v);
    if (!l) return leaf;
    DimRun r[4];
    slice_runs(sl, r);
    for (int k = 0; k < sl->u.index.base->u.ident.sym->trank; k++)
      if (l->chk[k] && (!r[k].ok || r[k].axis == keep)) return leaf;
    return NULL;
  }
  switch (x->kind) {
  case E_IDENT: {
    const Expr *init = var_init(x), *r = init != x ? summed_leaf(K, init, keep, factor, top) : NULL;
    if (r) *top = x;
    return r;
  }
  case E_UNARY:
    if (x->u.unary.op == TK_MINUS) return summed_leaf(K, x->u.unary.a, keep, factor, top);
    break;
  case E_BINARY:
    if ((x->u.binary.op == TK_PLUS || x->u.binary.op == TK_MINUS) && !factor) {
      const Expr *a = summed_leaf(K, x->u.binary.a, keep, false, top);
      return a ? a : summed_leaf(K, x->u.binary.b, keep, false, top);
    }
    if (x->u.binary.op == TK_STAR && (!elem_is_float(x->ty.elem) || finite_const(x->u.binary.a) ||
                                      finite_const(x->u.binary.b))) {
      const Expr *a = summed_leaf(K, x->u.binary.a, keep, true, top);
      return a ? a : summed_leaf(K, x->u.binary.b, keep, true, top);
    }
    break;
  case E_CALL:
    if (x->u.call.cast != T_NONE && x->u.call.nargs == 1) return summed_leaf(K, x->u.call.args[0], keep, factor, top);
    /* where(ok, C[..], 0): a branch's 0 is the term's; a leaf left is asked again with
     * the where()'s mask. The condition's zeros past its slice's end pick a branch there,
     * whose value is summed: that adds nothing where each branch is 0 or read from a
     * tensor (its own zeros, or its own concern) and the sum reduces every axis; but
     * where(x > 0.0, 1, 0) counts the positions past x's end whenever 0 passes the test,
     * and a rowsum or colsum keeps an axis, along which a row (or column) wholly past the
     * end sums to an index of its own, whatever it picks: rowsum(where(x > 0.0, 1, 0)),
     * x a [128, 1] column of X, gives each row past X's end index 0. Unless the condition
     * tests that slice's own bounds (its positions past the end then take the other
     * branch), its slice counts as one in a branch does. */
    if (x->u.call.cast == T_NONE && x->u.call.builtin == B_WHERE &&
        !summed_leaf(K, x->u.call.args[1], keep, factor, top) && !summed_leaf(K, x->u.call.args[2], keep, factor, top)) {
      if (keep < 0 && summed_zero(x->u.call.args[1]) && summed_zero(x->u.call.args[2])) return NULL;
      Mask own = {x->u.call.args[0], NULL};
      return unpadded_leaf(K, x->u.call.args[0], &own, top);
    }
    break;
  default: break;
  }
  return unpadded_leaf(K, x, &INDIRECT, top);
}

/* The first leaf of index x (a slice, or a var of one, that elementwise operators
 * and calls combine) whose load kept a bounds check and has no pad(), or NULL. A leaf
 * inside where()s whose conditions test its end (masks), in each dim whose check was kept,
 * is none: its elements past the end take the other branch. *top: the expression of x the leaf was found through (the
 * outermost var, whose declaration holds it), for the caret. */
static const Expr *unpadded_leaf(TirKernel *K, const Expr *x, const Mask *m, const Expr **top) {
  const Expr *sl = index_slice(x);
  if (sl) {
    const TirVar *v = value_named(K, x);
    const TirOp *l = v ? load_into(&K->body, v) : NULL;
    if (!l && sl != x && (v = value_named(K, sl))) /* a var of a gather: loaded to a value, then assigned */
      l = load_into(&K->body, v);
    if (!l || l->pad || l->slice != sl) return NULL;
    /* each dim whose check was kept needs its own test, in any of the masks */
    unsigned need = 0, got = 0;
    for (int k = 0; k < sl->u.index.base->u.ident.sym->trank; k++)
      if (l->chk[k]) need |= 1u << k;
    DimRun r[4];
    slice_runs(sl, r);
    for (; m && (need & ~got); m = m->up)
      if (m->c) got |= tests_ends(m->c, sl, r);
    if (!(need & ~got)) return NULL;
    return *top = x;
  }
  switch (x->kind) {
  case E_IDENT: { /* a var declared as an expression of such (reshape(Slot[t0 :+ 16], [16, 1])) */
    const Expr *init = var_init(x), *r = init != x ? unpadded_leaf(K, init, m, top) : NULL;
    if (r) *top = x; /* the outermost var's, set last */
    return r;
  }
  case E_UNARY: return unpadded_leaf(K, x->u.unary.a, m, top);
  case E_BINARY: {
    const Expr *a = unpadded_leaf(K, x->u.binary.a, m, top);
    return a ? a : unpadded_leaf(K, x->u.binary.b, m, top);
  }
  case E_CALL:
    if (x->u.call.cast == T_NONE && x->u.call.builtin == B_WHERE) {
      /* the condition gives no index value: at each position the where() is one of its
       * branches there, so zeros its slices read past their end only choose between
       * branches that are each looked at here (where(S[..] > 0.0, pad(G[..], -1), -1) is
       * -1 or G's own index wherever S ends) */
      Mask in = {x->u.call.args[0], m};
      const Mask *mm = where_masks(x, m) ? &in : m;
      /* but where a branch is neither a negative constant nor read from a tensor
       * (where(S[..] == 0.0, 5, -1)), the condition's past-the-end zeros pick an index
       * inside the target for positions past the data: the condition counts then */
      const Expr *a = branch_safe(x->u.call.args[1]) && branch_safe(x->u.call.args[2])
                          ? NULL
                          : unpadded_leaf(K, x->u.call.args[0], mm, top);
      if (!a) a = unpadded_leaf(K, x->u.call.args[1], mm, top);
      return a ? a : unpadded_leaf(K, x->u.call.args[2], m, top);
    }
    if (x->u.call.cast == T_NONE && (x->u.call.builtin == B_SUM || x->u.call.builtin == B_ROWSUM ||
                                     x->u.call.builtin == B_COLSUM))
      return summed_leaf(K, x->u.call.args[0], x->u.call.builtin == B_SUM ? -1 : x->u.call.builtin == B_ROWSUM ? 0 : 1,
                         false, top);
    /* past a call that is not elementwise (a scan, a reduction), a position's value
     * may come from others: the masks above it say nothing of them */
    if (x->u.call.cast == T_NONE && (x->u.call.builtin < 0 || (builtin_class[x->u.call.builtin] != BC_MATH1 &&
                                                                 builtin_class[x->u.call.builtin] != BC_MATH2)))
      m = &INDIRECT;
    if (x->u.call.cast == T_NONE && x->u.call.builtin == B_RESHAPE) {
      /* a slice made a column or row loads as a gather in that shape (lower.c) */
      const TirVar *v = value_named(K, x);
      const TirOp *l = v ? load_into(&K->body, v) : NULL;
      if (l && l->gather) {
        for (int k = 0; !l->pad && k < l->slice->u.index.base->u.ident.sym->trank; k++)
          if (l->chk[k]) return x->u.call.args[0];
        return NULL;
      }
    }
    for (int i = 0; i < x->u.call.nargs && x->u.call.builtin != B_PAD; i++) {
      const Expr *a = unpadded_leaf(K, x->u.call.args[i], m, top);
      if (a) return a;
    }
    return NULL;
  default: return NULL;
  }
}

/* The conditions of the where()s that index x of a scatter is itself (where(ok, a, -1),
 * the other branch a negative constant as where_masks asks; nested in its first branch, or
 * through a var declared as one), pushed on ms[n ..] (at most max in all), each over the
 * one before: where one is false, x is outside the tensor, so that element of the scatter
 * updates nothing, whatever its other indices are. Returns the new count. */
static int index_masks(const Expr *x, Mask *ms, int n, int max) {
  for (x = var_init(x); n < max && x->kind == E_CALL && x->u.call.cast == T_NONE && x->u.call.builtin == B_WHERE &&
                        where_masks(x, NULL);
       x = var_init(x->u.call.args[1])) {
    ms[n] = (Mask){x->u.call.args[0], n ? &ms[n - 1] : NULL};
    n++;
  }
  return n;
}

/* The arg-reduction that index x is (rowargmax(t), through vars and reshape()), or NULL. */
static const Expr *arg_index(const Expr *x) {
  for (int n = 0; n < 16; n++) {
    x = var_init(x);
    if (x->kind != E_CALL || x->u.call.cast != T_NONE || x->u.call.builtin < 0) return NULL;
    if (builtin_class[x->u.call.builtin] == BC_ARG) return x;
    if (x->u.call.builtin != B_RESHAPE) return NULL;
    x = x->u.call.args[0];
  }
  return NULL;
}

/* A slice that arg-reduction operand x reads (padded or not) whose lines along the kept
 * axis (0: the rows a rowargmax keeps; 1: colargmax's columns) may lie past its tensor,
 * with no mask of m testing those ends: such a line's index is a real one (0 of a line of
 * pad values), inside the scatter's target. Else NULL. */
static const Expr *arg_leaf(TirKernel *K, const Expr *x, int axis, const Mask *m) {
  /* a padded load is the value of its pad() call, or of the var declared as one */
  const Expr *e = var_init(x);
  bool pad = e->kind == E_CALL && e->u.call.cast == T_NONE && e->u.call.builtin == B_PAD;
  const Expr *sl = index_slice(pad ? e->u.call.args[0] : x);
  if (sl) {
    const TirVar *v = value_named(K, x);
    if (!v && e != x) v = value_named(K, e);
    if (!v && sl != x) v = value_named(K, sl);
    const TirOp *l = v ? load_into(&K->body, v) : NULL;
    if (!l || l->slice != sl) return NULL;
    DimRun r[4];
    slice_runs(sl, r);
    unsigned need = 0, got = 0;
    for (int k = 0; k < sl->u.index.base->u.ident.sym->trank && k < 4; k++)
      if (l->chk[k] && (!r[k].ok || r[k].axis == axis)) need |= 1u << k; /* a scalar index: every line */
    for (; m && (need & ~got); m = m->up)
      if (m->c) got |= tests_ends(m->c, sl, r);
    return need & ~got ? sl : NULL;
  }
  switch (x->kind) {
  case E_IDENT: {
    const Expr *init = var_init(x);
    return init != x ? arg_leaf(K, init, axis, m) : NULL;
  }
  case E_UNARY: return arg_leaf(K, x->u.unary.a, axis, m);
  case E_BINARY: {
    const Expr *a = arg_leaf(K, x->u.binary.a, axis, m);
    return a ? a : arg_leaf(K, x->u.binary.b, axis, m);
  }
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) {
      const Expr *a = arg_leaf(K, x->u.call.args[i], axis, m);
      if (a) return a;
    }
    return NULL;
  default: return NULL;
  }
}

/* What -Wscatter-index says of slice sl ('a gather of' J, which may 'index outside it'). */
static const char *index_from(const Expr *sl) { return check_is_gather(sl) ? "a gather of" : "a slice of"; }
static const char *index_past(const Expr *sl) { return check_is_gather(sl) ? "index outside it" : "reach past its end"; }

/* The note that says how to keep the elements of slice sl past its tensor from writing X:
 * an index read from it directly (direct) takes pad(J[..], -1). */
static void pad_note(TirKernel *K, const Expr *sl, bool direct, const char *X) {
  const char *J = sl->u.index.base->u.ident.sym->name;
  ElemType je = sl->u.index.base->u.ident.sym->ty.elem;
  if (direct)
    diag_note(K->d, (Loc){0, 0}, "pad(%s[..], -1) gives them an index outside '%s', where nothing is written", J, X);
  /* 8-bit: maybe no value of J leads outside X. The where() said as the rule that quiets
     this asks for it (where_masks): a negative constant, not merely one outside X */
  else if (elem_bytes[je] == 1)
    diag_note(K->d, (Loc){0, 0}, "pad(%s[..], v), with a v whose index falls outside '%s', keeps them from writing; "
              "where no %s value does, where(ok, .., -1), with ok testing the %s's own bounds, gives them -1, outside "
              "'%s' (the other branch must be a negative constant)", J, X, elem_names[je],
              check_is_gather(sl) ? "gather" : "slice", X);
  else
    diag_note(K->d, (Loc){0, 0}, "pad(%s[..], v), with a v whose index falls outside '%s', keeps them from writing", J, X);
}

/* -Wscatter-index: a scatter's (or atomic's) tile index that reads a tensor slice
 * (X[J[t0 :+ 128]]; also through a var declared as one, or inside an expression)
 * whose bounds check was kept: its elements past J's end read 0 (no pad()), so they
 * all go where an index of 0 leads (a race for a store; extra updates for an atomic).
 * An index masked by a where() of the slice's own bounds test masks the element, in
 * every index: Cnt[where(n0 + cols(1, 512) < N, PY[n0 :+ 512], -1), PX[n0 :+ 512]]
 * updates nothing past N, whatever PX reads there (index_masks; the test must be PX's
 * slice's own, as for a where() around it, tests_ends).
 * One warning per statement, as -Wbounds: under its first such index, a note under each
 * other one (C[slot / 16, slot % 16, ..], both from one gather, had a warning each), then
 * for each slice they read, where it is read and what keeps its elements from writing. */
static void scatter_index(TirKernel *K, const TirOp *st) {
  const Expr *g = st->slice;
  Mask ms[16];
  int nm = 0;
  for (int d = 0; d < g->u.index.nidx; d++) nm = index_masks(g->u.index.idx[d].start, ms, nm, 16);
  const Mask *all = nm ? &ms[nm - 1] : NULL;
  /* an index that is an arg-reduction: its lines past the data give real indices, whatever
   * they were padded with (a row of -inf argmaxes to 0) */
  for (int d = 0; d < g->u.index.nidx; d++) {
    const Expr *ix = g->u.index.idx[d].start, *a = ix->ty.rank ? arg_index(ix) : NULL;
    BuiltinKind b = a ? (BuiltinKind)a->u.call.builtin : B_SUM;
    bool rows = b == B_ROWARGMAX || b == B_ROWARGMIN;
    const Expr *sl = a ? arg_leaf(K, a->u.call.args[0], rows ? 0 : 1, all) : NULL;
    if (!sl) continue;
    const char *J = sl->u.index.base->u.ident.sym->name, *X = g->u.index.base->u.ident.sym->name;
    diag_warning(K->d, W_SCATTER_INDEX, ix->loc,
                 "the indices of this %s are %s over %s '%s' whose %s may lie past its end: such a %s's index is a "
                 "real one (a %s of pad values gives 0), so it %s element 0 of '%s' too",
                 st->atomic ? builtin_names[st->atomic] : "scatter", builtin_names[b], index_from(sl), J,
                 rows ? "rows" : "columns", rows ? "row" : "column", rows ? "row" : "column",
                 st->atomic ? "updates" : "writes", X);
    DimRun r[4];
    slice_runs(sl, r);
    const char *end = NULL;
    for (int k = 0; k < sl->u.index.base->u.ident.sym->trank && k < 4 && !end; k++)
      if (r[k].ok && r[k].axis == (rows ? 0 : 1) && sl->u.index.base->u.ident.sym->tdim_size[k])
        end = sl->u.index.base->u.ident.sym->tdim_size[k]->name;
    diag_note(K->d, (Loc){0, 0}, "where(ok, %s(..), -1), with ok testing each %s against the end of '%s' (its start + "
              "%s(..) < %s), gives them -1, outside '%s'; pad() does not, as its values are reduced", builtin_names[b],
              rows ? "row" : "column", J, rows ? "rows" : "cols", end ? end : "the size", X);
    return;
  }
  const Expr *tops[8], *sls[8];
  bool direct[8];
  int n = 0;
  for (int d = 0; d < g->u.index.nidx && n < 8; d++) {
    const Expr *ix = g->u.index.idx[d].start, *top = NULL, *leaf = ix->ty.rank ? unpadded_leaf(K, ix, all, &top) : NULL;
    if (!leaf) continue;
    sls[n] = index_slice(leaf);
    /* the caret goes under this scatter's own index (the var the leaf was found through,
     * not the leaf inside that var's declaration: a where()'s mask, say); the leaf itself
     * when it is written in the index (reshape(Slot[t0 :+ 16], [16, 1])) */
    tops[n] = top ? top : leaf;
    direct[n++] = leaf == ix;
  }
  if (!n) return;
  const char *J = sls[0]->u.index.base->u.ident.sym->name, *X = g->u.index.base->u.ident.sym->name;
  const char *what = st->atomic ? builtin_names[st->atomic] : "scatter", *does = st->atomic ? "update" : "write";
  /* a gather's own indices may be masked below 0 (J[where(k < e, k, -1)]), not only past the end */
  if (direct[0])
    diag_warning(K->d, W_SCATTER_INDEX, tops[0]->loc,
                 "the indices of this %s are read from %s '%s' that may %s: those elements "
                 "read 0, so they %s element 0 of '%s'", what, index_from(sls[0]), J, index_past(sls[0]), does, X);
  else
    diag_warning(K->d, W_SCATTER_INDEX, tops[0]->loc,
                 "the indices of this %s are computed from %s '%s' that may %s: those "
                 "elements read 0, so they %s the element of '%s' that an index computed from 0 gives", what,
                 index_from(sls[0]), J, index_past(sls[0]), does, X);
  for (int k = 1; k < n; k++) {
    const char *Jk = sls[k]->u.index.base->u.ident.sym->name;
    if (sls[k] == sls[0])
      diag_note(K->d, tops[k]->loc, "so is this index: %s the same %s '%s'", direct[k] ? "read from" : "computed from",
                check_is_gather(sls[k]) ? "gather of" : "slice of", Jk);
    else
      diag_note(K->d, tops[k]->loc, "and this index is %s %s '%s', which may %s too",
                direct[k] ? "read from" : "computed from", index_from(sls[k]), Jk, index_past(sls[k]));
  }
  /* each slice once, in the order of the indices: where it is read, and its pad */
  for (int k = 0; k < n; k++) {
    bool seen = false;
    for (int j = 0; j < k && !seen; j++) seen = sls[j] == sls[k];
    if (seen) continue;
    if (tops[k] != sls[k])
      diag_note(K->d, sls[k]->loc, "%s '%s' is read here", index_from(sls[k]), sls[k]->u.index.base->u.ident.sym->name);
    pad_note(K, sls[k], direct[k], X);
  }
}

/* The tensor whose elements index x of a scatter reads (H[X[..]], or through vars
 * declared from such a read, X[..] inside an expression), or NULL: a var assigned again
 * is not followed (its values could be anything the loop made of them). */
static const Sym *index_data(const Expr *x, int depth) {
  if (depth > 32) return NULL;
  x = var_init(x);
  switch (x->kind) {
  case E_INDEX: {
    const Expr *base = x->u.index.base;
    if (base->kind == E_IDENT && base->u.ident.sym && base->u.ident.sym->kind == SY_TENSOR) return base->u.ident.sym;
    return index_data(base, depth + 1);
  }
  case E_UNARY: return index_data(x->u.unary.a, depth + 1);
  case E_BINARY: {
    const Sym *a = index_data(x->u.binary.a, depth + 1);
    return a ? a : index_data(x->u.binary.b, depth + 1);
  }
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) {
      const Sym *a = index_data(x->u.call.args[i], depth + 1);
      if (a) return a;
    }
    return NULL;
  default: return NULL;
  }
}

/* -Wscatter-race: a read-modify-write store (+=, -=, *=, /=, and the rest) through a
 * scatter whose indices are read from a tensor: where two elements' indices meet, two
 * threads read, change and write one element, and one update is lost (the CPU backend
 * reports the race when it happens). atomic_add updates each element atomically; a
 * plain store (=) through data indices may be meant (a permutation, a KV append), and
 * is not warned about. */
static void scatter_race(TirKernel *K, const TirOp *st) {
  const Stmt *s = st->stmt;
  if (st->atomic || st->op == TK_ASSIGN || !s || s->kind != S_ASSIGN) return;
  const Expr *g = st->slice, *at = NULL;
  const Sym *J = NULL;
  for (int d = 0; d < g->u.index.nidx && !J; d++) {
    const Expr *ix = g->u.index.idx[d].start;
    if (ix->ty.rank) J = index_data(ix, 0), at = ix;
  }
  if (!J) return;
  const char *X = g->u.index.base->u.ident.sym->name, *op = token_names[st->op];
  diag_warning(K->d, W_SCATTER_RACE, at->loc,
               "this '%s' updates '%s' at indices read from '%s' without atomics: where two of them are equal, two "
               "threads read and write one element, and an update is lost (a race)", op, X, J->name);
  Buf t = {0}, v = {0};
  expr_text(&t, s->u.assign.lhs, false, NULL, NULL);
  expr_text(&v, s->u.assign.rhs, false, NULL, NULL);
  if (st->op == TK_ADD_ASSIGN || st->op == TK_SUB_ASSIGN)
    diag_note(K->d, s->loc, "atomic_add(%s, %s%s%s) updates each element atomically", t.data,
              st->op == TK_SUB_ASSIGN ? "-(" : "", v.data, st->op == TK_SUB_ASSIGN ? ")" : "");
  else
    diag_note(K->d, s->loc, "there is no atomic '%s': indices that are never equal make it safe", op);
  buf_free(&t);
  buf_free(&v);
}

static void accesses(TirKernel *K, TirBlock *b, Bounds *w) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    if (op->kind == TO_SPILL && op->reason) { /* the seed's "copied to a shared tile", said */
      const Sym *y = op->dst->sym;
      diag_warning(K->d, W_REGISTERS_COPY, op->stmt->loc, "register tile '%s' is copied to shared memory here: %s", y->name, op->reason);
      diag_note(K->d, y->reg_loc, "'%s' is named in @registers here", y->name);
    }
    if (op->kind == TO_SPILL && op->meets) { /* another value, copied because of a register tile's layout */
      const Sym *y = op->meets->sym;
      int n = layout_count(op->meets->layout);
      diag_warning(K->d, W_REGISTERS_COPY, op->stmt->loc,
                   "the value of %s is copied to shared memory here: register tile '%s' holds %d element%s per thread "
                   "in a layout of its own, and this value, %d per thread in another, is read there", op->dst->what,
                   y->name, n, n == 1 ? "" : "s", layout_count(op->dst->layout));
      diag_note(K->d, y->reg_loc, "'%s' is named in @registers here; without it, it would share the value's layout", y->name);
    }
    if (op->kind == TO_DOT && op->offunit)
      diag_warning(K->d, W_DOT, op->dloc, "this dot of %s operands runs on the CUDA cores, not on tensor cores: %s",
                   elem_names[op->src->elem], op->offunit);
    if (op->kind == TO_DOT && op->offwg && !op->simt && !op->wgmma)
      diag_warning(K->d, W_DOT, op->dloc, "this dot runs on mma.sync, not wgmma: %s", op->offwg);
    /* sm_90 has no f8 form of mma.sync (sm_89's QMMA): ptxas converts each fragment to f16
     * and runs HMMA, about twice the instructions and registers of sm_89's or of wgmma */
    if (op->kind == TO_DOT && !op->simt && !op->wgmma && !op->offunit && K->t->sm == 90 && elem_is_f8(op->src2->elem))
      diag_warning(K->d, W_DOT, op->dloc, "this dot of %s operands runs on mma.sync, which %s has no f8 form of: ptxas "
                   "converts each fragment to f16 and runs f16 mma; --target sm_90a runs it on wgmma",
                   elem_names[op->src2->elem], K->t->name);
    if (op->kind == TO_DOT && op->offflip && !op->simt)
      diag_warning(K->d, W_DOT, op->dloc, "this dot of %s operands copies %s, to shared memory transposed, one byte at "
                   "a time (8-bit ldmatrix and wgmma read along k only): %s", elem_names[op->src2->elem], op->offflip,
                   op->offflip[0] == 'B' ? "B stored [N, K] and written dot(a, transpose(b)) is read as it is stored"
                                         : "A stored [M, K] is read as it is stored");
    if (op->kind == TO_DOT && op->offreg && !op->offunit && !op->simt)
      diag_warning(K->d, W_DOT, op->dloc, "this dot's A operand, a cast of f32 values to %s, goes through a shared copy "
                   "and a barrier instead of being packed from registers: %s", elem_names[op->src->elem], op->offreg);
    if (op->kind == TO_LOAD || op->kind == TO_STORE) {
      /* a load a window write reads at its own elements (TirVar.win_of) moves the runs of
       * the write's layout, not of its own (a [32, 4] slice spread one element a thread
       * beside a [32, 520] tile's runs of 4) */
      const Layout *own = op->lay;
      if (op->kind == TO_LOAD && op->dst && op->dst->win_of && op->dst->win_of->lay) op->lay = op->dst->win_of->lay;
      if (op->lay) vector_width(K, op);
      else op->vec = 1; /* one element */
      op->lay = own;
      bounds(K, op, w);
      if (op->kind == TO_STORE && op->gather) scatter_index(K, op), scatter_race(K, op);
    }
    bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
    w->depth += loop;
    accesses(K, &op->body, w);
    accesses(K, &op->els, w);
    w->depth -= loop;
  }
}

/* A copy of x that an op may compute in its own layout, or NULL: literals, rows(),
 * cols(), casts, arithmetic, min, max and where() of scalars that hold one value in every
 * thread from their declaration on (parameters, sizes, consts, loop variables, ctx.block,
 * vars never assigned again that depend on no thread), at most 24 nodes. A few integer
 * instructions an element, where a copy costs a shared store, a barrier and a load. */
Expr *layout_recompute(TirKernel *K, const Expr *x, int *budget) {
  if (--*budget < 0) return NULL;
  Expr *e = NEW(K->a, Expr);
  *e = *x;
  switch (x->kind) {
  case E_INT: case E_FLOAT: case E_BOOL: case E_INF: return e;
  case E_CTX: return x->u.ctx == CTX_THREAD || x->u.ctx == CTX_LANE || x->u.ctx == CTX_WARP ? NULL : e;
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y || (x->flags & EF_TD)) return NULL;
    if (x->ty.rank != 0) { /* a tile var declared as such an expression itself (nn = p / hw of p = m0 + rows(..)) */
      const Expr *init = y->kind == SY_VAR && !y->reassigned ? layout_declared_value(K, x) : NULL;
      return init && init->ty.rank == x->ty.rank && init->ty.dims[0] == x->ty.dims[0] && init->ty.dims[1] == x->ty.dims[1]
                 ? layout_recompute(K, init, budget)
                 : NULL;
    }
    if (y->kind == SY_CONST || y->kind == SY_SCALAR || y->kind == SY_SIZE || y->kind == SY_LOOP) return e;
    return y->kind == SY_VAR && !y->reassigned && !y->thread_dep ? e : NULL;
  }
  case E_UNARY: return (e->u.unary.a = layout_recompute(K, x->u.unary.a, budget)) ? e : NULL;
  case E_BINARY:
    e->u.binary.a = layout_recompute(K, x->u.binary.a, budget);
    e->u.binary.b = e->u.binary.a ? layout_recompute(K, x->u.binary.b, budget) : NULL;
    return e->u.binary.b ? e : NULL;
  case E_CALL: {
    int b = x->u.call.builtin;
    if (x->u.call.cast == T_NONE && b != B_ROWS && b != B_COLS && b != B_MIN && b != B_MAX && b != B_WHERE) return NULL;
    e->u.call.args = NEW_ARRAY(K->a, Expr *, x->u.call.nargs);
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!(e->u.call.args[i] = layout_recompute(K, x->u.call.args[i], budget))) return NULL;
    return e;
  }
  default: return NULL;
  }
}

/* A conversion of a tile var declared as such an expression and never written again
 * (var r = m0 + rows(64, 1), read by a gather in one layout and by an accumulator's store
 * in another) computes it again at the op instead: x, the op's read of the var, becomes
 * the copy (an op reads its own nodes: no other op shares x). */
static Expr *recompute_copy(TirKernel *K, const Expr *x, const TirVar *v) {
  const Expr *init = x->kind == E_IDENT && v->sym && x->u.ident.sym == v->sym ? layout_declared_value(K, x) : NULL;
  int budget = 24;
  return init && init->ty.elem == x->ty.elem && init->ty.rank == x->ty.rank && init->ty.dims[0] == x->ty.dims[0] &&
                 init->ty.dims[1] == x->ty.dims[1]
             ? layout_recompute(K, init, &budget)
             : NULL;
}

/* x, an op's read, becomes e, a copy of what it reads (at x's place in the source). */
static void read_as(Expr *x, const Expr *e) {
  Loc at = x->loc;
  *x = *e;
  x->loc = at;
}

static bool recomputed(TirKernel *K, Conv *c) {
  Expr *e = recompute_copy(K, c->x, c->v);
  if (e) read_as(c->x, e);
  return e != NULL;
}

/* Whether an op of b (inside its control too) writes v; a copy of v reads it. */
static bool block_writes(const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if ((op->dst == v && op->kind != TO_SPILL) || block_writes(&op->body, v) || block_writes(&op->els, v)) return true;
  }
  return false;
}

/* The control around the op being converted, outermost first (TirOp *), the
 * copies made before its loops: (TirOp *loop, TirOp *copy) pairs, and the copies
 * that hold their value where the walk is (held: TirOp *, each a TO_SPILL). */
typedef struct Around {
  PtrVec ctl;
  PtrVec before;
  PtrVec held;
} Around;

/* Whether a copy of v to bi may serve a later read of v: one written in place,
 * whole, by a spill of v (not a value living in shared memory or never held,
 * not a copy that alternates halves, a dot operand's or a stage ring: a later
 * write of those turns to other bytes). */
static bool copy_kept(const TirKernel *K, const TirVar *v, int bi) {
  const TirBuf *f = &K->bufs[bi];
  return !v->home && !v->fused && !f->alternating && !f->operand && !f->stages && !f->trans && !f->cm8;
}

/* Whether op itself writes the value copy s holds, or s's buffer with another value. */
static bool clobbers(const TirOp *op, const TirOp *s) {
  return (op->dst == s->dst && op->kind != TO_SPILL) || (op->kind == TO_SPILL && op->buf == s->buf && op->dst != s->dst);
}

static bool block_clobbers(const TirBlock *b, const TirOp *s) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (clobbers(op, s) || block_clobbers(&op->body, s) || block_clobbers(&op->els, s)) return true;
  }
  return false;
}

/* The copies held at the head of op's body (or else-branch): on an if's paths,
 * those held before it; in a loop's body, those of values the loop does not
 * write (its later iterations start where the last one ended); under
 * thread-dependent control, none (as conv_loop: no copy is made there for later). */
static PtrVec held_inside(TirKernel *K, const PtrVec *held, const TirOp *op) {
  PtrVec in = {0};
  if (op->td) return in;
  for (int i = 0; i < held->len; i++) {
    const TirOp *s = held->items[i];
    if ((op->kind != TO_FOR && op->kind != TO_WHILE) || !block_clobbers(&op->body, s))
      vec_push(K->a, &in, held->items[i]);
  }
  return in;
}

static bool is_held(const Around *a, const TirVar *v, int bi) {
  for (int i = 0; i < a->held.len; i++) {
    const TirOp *s = a->held.items[i];
    if (s->dst == v && s->buf == bi) return true;
  }
  return false;
}

static bool under_td(const Around *a) {
  for (int i = 0; i < a->ctl.len; i++)
    if (((const TirOp *)a->ctl.items[i])->td) return true;
  return false;
}

/* The outermost loop around the op that does not write v, or -1: v's copy, made
 * once before that loop, holds v in every iteration (as lower.c's copies of tile
 * vars; docs/language.md). Not under thread-dependent control (as lower.c), nor
 * for a copy of a value that lives in shared memory or is never held, nor one that
 * alternates halves or is a dot operand's (written in the loop by another copy,
 * its halves turn there). A loop that writes v, anywhere in it, copies v each time. */
static int conv_loop(const TirKernel *K, const Around *a, const TirVar *v, int bi) {
  const TirBuf *f = &K->bufs[bi];
  if (v->home || v->fused || f->alternating || f->operand || f->stages) return -1;
  for (int i = 0; i < a->ctl.len; i++)
    if (((const TirOp *)a->ctl.items[i])->td) return -1;
  for (int i = 0; i < a->ctl.len; i++) {
    const TirOp *l = a->ctl.items[i];
    if ((l->kind == TO_FOR || l->kind == TO_WHILE) && !block_writes(&l->body, v)) return i;
  }
  return -1;
}

/* The conversions: each value an op reads where its thread does not hold it is
 * copied to shared memory right before the op, which reads the copy (or computes it
 * again there: recomputed); or, for a value no loop around the op writes, once,
 * right before the outermost such loop (conv_loop); or not at all where an earlier
 * copy of the value still holds it (Around.held: made before the op in its block
 * or in one around it that every path to the op passes, and nothing written since
 * to the value or to the copy; not one made in a branch, nor in a loop's body for
 * after the loop). docs/language.md: a copy is written once while the value does
 * not change. */
static bool apply_convs(TirKernel *K, TirBlock *b, PtrVec *convs, Around *a) {
  PtrVec out = {0};
  bool td = under_td(a);
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    for (int k = 0; k < convs->len; k++) {
      Conv *c = convs->items[k];
      if (c->op != op) continue;
      if (c->remat || (c->remat = recomputed(K, c))) continue;
      int bi = tir_copy_buf(K, c->v);
      if (bi < 0) return false;
      TirRead *r = NEW(K->a, TirRead);
      *r = (TirRead){TR_WINDOW, bi, c->v->rank, {NULL, NULL}, {true, c->v->rank == 2}, 0, 0};
      vec_push(K->a, &K->rkeys, c->x);
      vec_push(K->a, &K->rvals, r);
      bool spilled = false; /* one copy of a value per op */
      for (int j = 0; j < k; j++) {
        const Conv *d = convs->items[j];
        spilled |= d->op == op && d->v == c->v && !d->remat;
      }
      if (spilled || is_held(a, c->v, bi)) continue;
      int at = conv_loop(K, a, c->v, bi);
      TirOp *loop = at >= 0 ? a->ctl.items[at] : NULL;
      for (int j = 0; loop && j + 1 < a->before.len; j += 2) /* one copy before a loop */
        spilled |= a->before.items[j] == loop && ((const TirOp *)a->before.items[j + 1])->buf == bi;
      if (spilled) continue;
      TirOp *s = tir_new_op(K, NULL, TO_SPILL, loop ? loop->stmt : op->stmt); /* made at the loop's head */
      s->dst = c->v;
      s->buf = bi;
      s->lay = c->v->layout;
      s->rows = c->v->rows;
      s->cols = c->v->cols;
      if (c->v->sym && c->v->sym->place == PL_REGISTER) s->reason = "it is read where other threads hold its elements";
      else if (op->dst && op->dst->own_layout && op->lay == op->dst->layout)
        s->meets = op->dst;
      if (!td && copy_kept(K, c->v, bi)) vec_push(K->a, &a->held, s); /* before the loop, too: no iteration writes v */
      if (loop) {
        vec_push(K->a, &a->before, loop);
        vec_push(K->a, &a->before, s);
        continue;
      }
      s->first = op->first; /* the statement's comment heads its copy */
      op->first = false;
      vec_push(K->a, &out, s);
      /* a compact column value's copy, written each iteration of the loop around: in
       * alternate halves, so that writing the next one need not wait for this one's
       * readers (one barrier an iteration, not two), as lower.c's small copies do */
      TirBuf *f = &K->bufs[bi];
      if (c->v->col_own && !td && a->ctl.len && !f->alternating && !f->operand && !f->stages &&
          tir_buf_elems(f) * elem_bytes[f->elem] <= TIR_ALT_COPY_BYTES) {
        f->alternating = true;
        tir_buf_size(f);
      }
    }
    if (op->body.ops.len || op->els.ops.len) {
      PtrVec held = a->held;
      vec_push(K->a, &a->ctl, op);
      a->held = held_inside(K, &held, op);
      bool ok = apply_convs(K, &op->body, convs, a);
      a->held = held_inside(K, &held, op);
      ok = ok && apply_convs(K, &op->els, convs, a);
      a->ctl.len--;
      a->held = held;
      if (!ok) return false;
    }
    /* what op writes, in it too, leaves the copies of the values it wrote stale */
    int n = 0;
    for (int j = 0; j < a->held.len; j++) {
      const TirOp *s = a->held.items[j];
      if (!clobbers(op, s) && !block_clobbers(&op->body, s) && !block_clobbers(&op->els, s))
        a->held.items[n++] = a->held.items[j];
    }
    a->held.len = n;
    /* a copy lower.c made holds its value as one made here does */
    if (op->kind == TO_SPILL && !td && !op->only && copy_kept(K, op->dst, op->buf)) vec_push(K->a, &a->held, op);
    for (int j = 0; j + 1 < a->before.len; j += 2) /* right before the loop, in the block that holds it */
      if (a->before.items[j] == op) {
        vec_push(K->a, &out, a->before.items[j + 1]);
        const TirOp *s = a->before.items[j + 1];
        if (!td && copy_kept(K, s->dst, s->buf)) vec_push(K->a, &a->held, a->before.items[j + 1]); /* and after it: the loop does not write v */
      }
    vec_push(K->a, &out, op);
  }
  b->ops = out;
  return true;
}

/* ------------------------------------------------------------ shared accesses */

typedef struct Reads {
  TirOp *op;
  bool overflow;
} Reads;

static void access_as(TirOp *op, int buf, bool write, bool own, bool *overflow) {
  for (int i = 0; i < op->nacc; i++)
    if (op->acc[i].buf == buf && op->acc[i].write == write && op->acc[i].own == own) return;
  if (op->nacc == TIR_MAX_ACCESS) *overflow = true;
  else op->acc[op->nacc++] = (TirAccess){buf, write, own};
}

static void add_access(TirOp *op, int buf, bool write, bool *overflow) { access_as(op, buf, write, false, overflow); }

/* The tracked buffer of a tensor the kernel writes, or -1. */
static int tensor_buf(const TirKernel *K, const Sym *X) {
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].tensor == X) return i;
  return -1;
}

static void expr_reads(TirKernel *K, const Expr *x, Reads *r) {
  if (!x) return;
  TirRead *rd = tir_read(K, x); /* first: a value read through its copy may also be hoisted */
  if (rd) {
    add_access(r->op, rd->buf, false, &r->overflow);
    for (int d = 0; d < 2; d++) expr_reads(K, rd->start[d], r);
    return;
  }
  if (tir_hoisted(K, x)) return; /* a hoisted value's op has the access */
  switch (x->kind) {
  case E_UNARY: expr_reads(K, x->u.unary.a, r); return;
  case E_BINARY: expr_reads(K, x->u.binary.a, r); expr_reads(K, x->u.binary.b, r); return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) expr_reads(K, x->u.call.args[i], r);
    return;
  case E_INDEX: {
    int t = tensor_buf(K, x->u.index.base->u.ident.sym);
    if (t >= 0) add_access(r->op, t, false, &r->overflow); /* an element read of a written tensor */
    for (int i = 0; i < x->u.index.nidx; i++) expr_reads(K, x->u.index.idx[i].start, r);
    return;
  }
  default: return;
  }
}

/* Every expression an op evaluates, as far as shared copies go. */
static void reads_fn(TirKernel *K, TirOp *op, void *ctx) {
  Reads *r = ctx;
  r->op = op;
  const Stmt *s = op->stmt;
  switch (op->kind) {
  case TO_SPILL: add_access(op, op->buf, true, &r->overflow); return;
  case TO_COLREDUCE: add_access(op, op->buf, false, &r->overflow); return;
  case TO_DOT:
    if (op->src) add_access(op, op->buf, false, &r->overflow);
    add_access(op, op->buf2, false, &r->overflow);
    expr_reads(K, op->expr, r);
    return;
  case TO_SCALAR:
    expr_reads(K, s->kind == S_VAR ? s->u.decl.init : s->u.assign.rhs, r);
    return;
  case TO_IF: expr_reads(K, s->u.iff.cond, r); return;
  case TO_WHILE: expr_reads(K, s->u.whil.cond, r); return;
  case TO_FOR:
    expr_reads(K, s->u.forr.lo, r);
    expr_reads(K, s->u.forr.hi, r);
    expr_reads(K, s->u.forr.step, r);
    return;
  case TO_ASSIGN: case TO_REDUCE: case TO_STORE: case TO_LOAD: case TO_SCAN:
    expr_reads(K, op->win[0], r);
    expr_reads(K, op->win[1], r);
    if (op->slice) {
      int t = tensor_buf(K, op->slice->u.index.base->u.ident.sym);
      if (t >= 0) add_access(op, t, op->kind == TO_STORE, &r->overflow);
    }
    expr_reads(K, op->expr, r);
    expr_reads(K, op->pad, r);
    if (op->slice)
      for (int i = 0; i < op->slice->u.index.nidx; i++) expr_reads(K, op->slice->u.index.idx[i].start, r);
    return;
  default: return;
  }
}

/* ------------------------------------------------------------ element reads in place */

/* lower.c reads an element of a tile (t[i, j]) through the tile's shared copy, before
 * layouts are known. Where t's layout gives every thread that element (a [1, 1] value
 * that every thread holds: layout_everywhere, a reduction of the block's one row),
 * the element is read where it is, a register of the thread's own: the read becomes
 * one of the value (TirKernel.hkeys), printed as t[0] (emit_tir.c value_at). A copy
 * nothing reads any more (no other element read, window, transpose, column reduction
 * or dot operand) goes, with its spills. */
static bool zero_index(const Expr *x) { return !x || ((x->flags & EF_CONST) && !x->cv.isf && x->cv.i == 0); }

static bool element_everywhere(const TirKernel *K, const Expr *x, const TirRead *r) {
  const TirBuf *f = &K->bufs[r->buf];
  const TirVar *v = f->spill_of;
  if (r->kind != TR_WINDOW || x->ty.rank != 0 || !v || f->trans || !v->layout || v->home || v->fused) return false;
  if (!layout_everywhere(v->layout) || v->rows != 1 || v->cols != 1 || x->ty.elem != v->elem) return false;
  for (int d = 0; d < r->rank; d++)
    if (r->keep[d] || !zero_index(r->start[d])) return false;
  return true;
}

static bool buf_read(const TirBlock *b, int bi) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if ((op->kind != TO_SPILL && op->buf == bi) || (op->kind == TO_DOT && op->buf2 == bi)) return true;
    if (buf_read(&op->body, bi) || buf_read(&op->els, bi)) return true;
  }
  return false;
}

/* b without its spills to buffer bi (a statement's comment moves to its next op),
 * and every op's buffers past bi one lower (bi is gone). */
static void drop_buf_ops(TirBlock *b, int bi) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    drop_buf_ops(&op->body, bi);
    drop_buf_ops(&op->els, bi);
    if (op->kind == TO_SPILL && op->buf == bi) {
      TirOp *next = i + 1 < b->ops.len ? b->ops.items[i + 1] : NULL;
      if (op->first && next && next->stmt == op->stmt) next->first = true;
      continue;
    }
    if (op->buf > bi) op->buf--;
    if (op->buf2 > bi) op->buf2--;
    b->ops.items[n++] = op;
  }
  b->ops.len = n;
}

/* Whether op (or an op inside it) reads or writes buffer bi: its expressions as
 * reads_fn sees them (on a scratch op: the accesses are the ones of later). */
static bool touches_copy(TirKernel *K, const TirOp *op, int bi) {
  TirOp tmp = *op;
  tmp.nacc = 0;
  Reads rd = {NULL, false};
  reads_fn(K, &tmp, &rd);
  if (rd.overflow) return true;
  for (int i = 0; i < tmp.nacc; i++)
    if (tmp.acc[i].buf == bi) return true;
  for (int i = 0; i < op->body.ops.len; i++)
    if (touches_copy(K, op->body.ops.items[i], bi)) return true;
  for (int i = 0; i < op->els.ops.len; i++)
    if (touches_copy(K, op->els.ops.items[i], bi)) return true;
  return false;
}

/* The spills to bi that nothing reads now (a read of them moved to registers): in
 * their block, the next op that touches the copy is another spill to it (past
 * control that does not touch it), or none follows at the kernel's top level. */
static void drop_unread_spills(TirKernel *K, TirBlock *b, int bi) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    drop_unread_spills(K, &op->body, bi);
    drop_unread_spills(K, &op->els, bi);
    bool unread = false;
    if (op->kind == TO_SPILL && op->buf == bi) {
      int j = i + 1;
      for (; j < b->ops.len; j++) {
        const TirOp *p = b->ops.items[j];
        if (p->kind == TO_BREAK || p->kind == TO_CONTINUE) break;
        if (p->kind == TO_SPILL && p->buf == bi) {
          unread = true;
          break;
        }
        if (touches_copy(K, p, bi)) break;
      }
      if (j == b->ops.len) unread = b == &K->body;
    }
    if (unread) {
      TirOp *next = i + 1 < b->ops.len ? b->ops.items[i + 1] : NULL;
      if (op->first && next && next->stmt == op->stmt) next->first = true;
      continue;
    }
    b->ops.items[n++] = op;
  }
  b->ops.len = n;
}

/* A window write u[a :+ m, b :+ n] = e (lower.c lower_window_write) reads the tile vars in
 * e through their copies, at the window's coordinates: f[a :+ m, b :+ n], the same window
 * of a tile of u's shape, is element (r, c) of f at element (r, c) of u, which the writing
 * thread holds where f's layout is the op's (u[1 :+ 510] = f[1 :+ 510], both [512] in one
 * layout). Such a read is of f's registers instead, as lower.c own_window_reads makes
 * one of u itself. Only a read with every dim a range (not an index) of the window's
 * lengths, at starts written alike (facts_expr_equal, or both 0), in a value that
 * registers hold (no shared home, not a load never held). */
static bool same_start_or_zero(const Expr *a, const Expr *b) {
  return (zero_index(a) && zero_index(b)) || (a && b && facts_expr_equal(a, b));
}

static bool window_own_read(const TirKernel *K, const TirOp *op, const Expr *x, const TirRead *r) {
  const TirBuf *f = &K->bufs[r->buf];
  const TirVar *v = f->spill_of;
  if (r->kind != TR_WINDOW || !v || f->trans || v == op->dst || v->home || v->fused || !v->layout) return false;
  if (v->layout != op->lay || op->dst->layout != op->lay || v->rows != op->dst->rows || v->cols != op->dst->cols ||
      x->ty.elem != v->elem || x->ty.rank != r->rank || r->rank != v->rank)
    return false;
  /* the read's first row and column, and its rows and columns, in the tile's [rows, cols] */
  const Expr *st[2] = {r->rank == 2 ? r->start[0] : NULL, r->start[r->rank - 1]};
  int len[2] = {x->ty.rank == 2 ? x->ty.dims[0] : 1, x->ty.dims[x->ty.rank - 1]};
  for (int d = 0; d < r->rank; d++)
    if (!r->keep[d]) return false;
  for (int a = 0; a < 2; a++)
    if (len[a] != op->win_len[a] || !same_start_or_zero(st[a], op->win[a])) return false;
  return true;
}

/* Per read of rkeys: 1 while every op that reads it is a window write that reads it in
 * place (window_own_read), 2 once one is not; 0 where none reads it. Below a value
 * hoisted, another op reads (as ex() in emit_tir.c: a read first). */
typedef struct WinReads {
  const TirOp *op;
  uint8_t *state;
} WinReads;

static void win_reads_in(TirKernel *K, WinReads *w, const Expr *x) {
  if (!x) return;
  const TirRead *r = tir_read(K, x);
  if (r) {
    for (int i = 0; i < K->rkeys.len; i++)
      if (K->rkeys.items[i] == x) {
        const TirOp *op = w->op;
        bool own = op->kind == TO_ASSIGN && op->has_win && op->lay && op->dst && window_own_read(K, op, x, r);
        w->state[i] = own && w->state[i] != 2 ? 1 : 2;
      }
    return;
  }
  if (tir_hoisted(K, x)) return;
  switch (x->kind) {
  case E_UNARY: win_reads_in(K, w, x->u.unary.a); return;
  case E_BINARY:
    win_reads_in(K, w, x->u.binary.a);
    win_reads_in(K, w, x->u.binary.b);
    return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) win_reads_in(K, w, x->u.call.args[i]);
    return;
  case E_INDEX:
    for (int i = 0; i < x->u.index.nidx; i++) {
      win_reads_in(K, w, x->u.index.idx[i].start);
      win_reads_in(K, w, x->u.index.idx[i].len);
    }
    return;
  default: return;
  }
}

/* The expressions of op, as reads_fn finds them. */
static void win_reads_fn(TirKernel *K, TirOp *op, void *ctx) {
  WinReads *w = ctx;
  const Stmt *s = op->stmt;
  w->op = op;
  switch (op->kind) {
  case TO_SCALAR: win_reads_in(K, w, s->kind == S_VAR ? s->u.decl.init : s->u.assign.rhs); return;
  case TO_IF: win_reads_in(K, w, s->u.iff.cond); return;
  case TO_WHILE: win_reads_in(K, w, s->u.whil.cond); return;
  case TO_FOR:
    win_reads_in(K, w, s->u.forr.lo);
    win_reads_in(K, w, s->u.forr.hi);
    win_reads_in(K, w, s->u.forr.step);
    return;
  default: break;
  }
  win_reads_in(K, w, op->expr);
  win_reads_in(K, w, op->pad);
  win_reads_in(K, w, op->win[0]);
  win_reads_in(K, w, op->win[1]);
  if (op->slice)
    for (int i = 0; i < op->slice->u.index.nidx; i++) {
      win_reads_in(K, w, op->slice->u.index.idx[i].start);
      win_reads_in(K, w, op->slice->u.index.idx[i].len);
    }
}

static void own_element_reads(TirKernel *K) {
  uint64_t moved = 0; /* the buffers some read left */
  int n = 0;
  WinReads w = {NULL, NEW_ARRAY(K->a, uint8_t, K->rkeys.len + 1)};
  walk(K, &K->body, win_reads_fn, &w);
  for (int i = 0; i < K->rkeys.len; i++) {
    Expr *x = K->rkeys.items[i];
    TirRead *r = K->rvals.items[i];
    if (element_everywhere(K, x, r) || w.state[i] == 1) {
      moved |= (uint64_t)1 << r->buf;
      vec_push(K->a, &K->hkeys, x);
      vec_push(K->a, &K->hvals, (TirVar *)K->bufs[r->buf].spill_of);
      continue;
    }
    K->rkeys.items[n] = x;
    K->rvals.items[n++] = r;
  }
  K->rkeys.len = K->rvals.len = n;
  for (int bi = K->nbufs - 1; bi >= 0; bi--) { /* from the last: the indices below stay */
    if (!(moved >> bi & 1) || K->bufs[bi].operand) continue;
    bool read = buf_read(&K->body, bi);
    for (int i = 0; i < K->rvals.len; i++) read |= ((const TirRead *)K->rvals.items[i])->buf == bi;
    for (int i = 0; i < K->vars.len; i++) read |= ((const TirVar *)K->vars.items[i])->home == bi + 1;
    if (read) { /* still read: only the spills whose reads all moved go */
      if (!K->bufs[bi].alternating) drop_unread_spills(K, &K->body, bi);
      continue;
    }
    drop_buf_ops(&K->body, bi);
    for (int i = 0; i < K->rvals.len; i++) {
      TirRead *r = K->rvals.items[i];
      if (r->buf > bi) r->buf--;
    }
    for (int i = 0; i < K->vars.len; i++) {
      TirVar *v = K->vars.items[i];
      if (v->home > bi + 1) v->home--;
    }
    for (int i = bi; i + 1 < K->nbufs; i++) K->bufs[i] = K->bufs[i + 1];
    K->bufs[--K->nbufs] = (TirBuf){0}; /* a buffer made later starts from zeros */
  }
}

/* ------------------------------------------------------------ early copies */

static bool touches_buf(const TirOp *op, int buf) {
  for (int i = 0; i < op->nacc; i++)
    if (op->acc[i].buf == buf) return true;
  return false;
}

/* A copy to shared memory moves up its block to right after the op that last
 * wrote its value (never past an op that touches its buffer, nor past control
 * flow): copies made together share the barrier their readers need, one
 * barrier for k and v in attention instead of one before each dot. */
static void early_spills(TirKernel *K, TirBlock *b) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    early_spills(K, &op->body);
    early_spills(K, &op->els);
    if (op->kind != TO_SPILL) continue;
    int j = i;
    for (; j > 0; j--) {
      const TirOp *p = b->ops.items[j - 1];
      if (p->dst == op->dst || touches_buf(p, op->buf) || p->kind == TO_FOR || p->kind == TO_WHILE ||
          p->kind == TO_IF || p->kind == TO_BREAK || p->kind == TO_CONTINUE)
        break;
    }
    if (j == i) { /* made where its value was written already: said so (a copy made before a loop for it) */
      const TirOp *p = j > 0 ? b->ops.items[j - 1] : NULL;
      if (p && p->dst == op->dst && p->stmt && p->stmt != op->stmt && !op->first) op->stmt = p->stmt;
      continue;
    }
    if (op->first && i + 1 < b->ops.len && ((TirOp *)b->ops.items[i + 1])->stmt == op->stmt)
      ((TirOp *)b->ops.items[i + 1])->first = true; /* the statement's comment stays with it */
    op->first = false;
    if (j > 0 && ((TirOp *)b->ops.items[j - 1])->dst == op->dst)
      op->stmt = ((TirOp *)b->ops.items[j - 1])->stmt; /* made where its value was written */
    for (int k = i; k > j; k--) b->ops.items[k] = b->ops.items[k - 1];
    b->ops.items[j] = op;
  }
}

/* A reader of shared copies (an assignment whose expression reads them, as a
 * reshape's or a transpose's; a dot, from its operands' copies) moves down its
 * block past the ops that touch neither its value nor what it reads, and touch
 * no shared memory but by copies of their own (loads, declarations, register
 * assignments, copies): up to the first op that uses its value. Copies made one
 * after the other in a statement each (s = reshape(S[..]), t = reshape(T[..])),
 * or for two dots into one accumulator whose operands are computed (a W4A16
 * GEMM's low and high nibbles: acc += dot(a0, f16(lo)); acc += dot(a1, f16(hi))),
 * then share the barrier before their readers, one barrier instead of one each:
 * the first dot waits for the second's copies, and stops at the second dot (it
 * writes the accumulator). */
static bool reads_shared(const TirKernel *K, const TirOp *op) {
  bool any = false;
  for (int i = 0; i < op->nacc; i++) {
    if (op->acc[i].write) return false;
    any |= !K->bufs[op->acc[i].buf].tensor;
  }
  return any;
}

static bool sinks_past(const TirKernel *K, const TirOp *r, const TirOp *p) {
  if (p->body.ops.len || p->els.ops.len || tir_op_touches(K, p, r->dst) || (p->dst && tir_op_touches(K, r, p->dst)))
    return false;
  switch (p->kind) {
  case TO_DECL: case TO_LOAD: case TO_SPILL: case TO_ASSIGN: break;
  default: return false;
  }
  if (p->kind == TO_LOAD && (p->pf_var || p->gather)) return false;
  for (int i = 0; i < p->nacc; i++) {
    if (p->kind != TO_SPILL || !p->acc[i].write) return false;
    for (int j = 0; j < r->nacc; j++)
      if (r->acc[j].buf == p->acc[i].buf) return false;
  }
  return true;
}

/* Whether the shared buffers fit the block side by side: smem.c then gives none
 * another's bytes, and a dot read later keeps no copies live that it would have. */
static bool bufs_fit(const TirKernel *K) {
  int64_t off = 0;
  for (int i = 0; i < K->nbufs; i++) {
    const TirBuf *f = &K->bufs[i];
    if (f->tensor) continue;
    int a = tir_buf_align(f);
    off = (off + a - 1) / a * a + (f->bytes + 15) / 16 * 16;
  }
  return off <= smem_budget(K);
}

/* in_loop: b is (inside) a loop's body, whose every buffer smem.c keeps live over the
 * whole loop: a dot there moves with no cost in shared bytes; outside loops, only
 * while the buffers fit side by side (reuse could have given a later copy an earlier
 * one's bytes, which the moved dot still reads). */
static void late_reads(TirKernel *K, TirBlock *b, bool in_loop) {
  for (int i = b->ops.len - 1; i >= 0; i--) {
    TirOp *op = b->ops.items[i];
    bool loop = in_loop || op->kind == TO_FOR || op->kind == TO_WHILE;
    late_reads(K, &op->body, loop);
    late_reads(K, &op->els, in_loop);
    bool reader = (op->kind == TO_ASSIGN && !op->has_win && !op->win[0] && !op->win[1]) ||
                  (op->kind == TO_DOT && (in_loop || bufs_fit(K)));
    if (!reader || !op->dst || op->first || !reads_shared(K, op)) continue;
    /* just past the last copy it can pass; nowhere when it passes none */
    int j = i;
    for (int k = i + 1; k < b->ops.len && sinks_past(K, op, b->ops.items[k]); k++)
      if (((TirOp *)b->ops.items[k])->kind == TO_SPILL) j = k;
    if (j == i) continue;
    /* it runs where the next statement's ops are: its line is said there */
    const TirOp *next = j + 1 < b->ops.len ? b->ops.items[j + 1] : NULL;
    const TirOp *copy = b->ops.items[j];
    if (!op->note && op->stmt && copy->stmt && (!next || next->stmt != op->stmt))
      op->note = arena_printf(K->a, "line %d, read after the copy at line %d: one barrier serves both", op->stmt->loc.line,
                              copy->stmt->loc.line);
    for (int k = i; k < j; k++) b->ops.items[k] = b->ops.items[k + 1];
    b->ops.items[j] = op;
  }
}

/* ------------------------------------------------------------ copies moved a run at a time */

/* A plain copy (tir_copy_buf) has a pitch of cols + 1 and is written and read one
 * element at a time: a read down a column across lanes (a transpose, a column of a
 * window, a conversion to a column layout) then meets every bank once. A copy that
 * nothing reads that way, written by spills of its value in a blocked layout and
 * read only by an assignment or a store at whole windows of the op's width in a
 * blocked layout, t[a :+ m, b :+ n] with b a multiple of the op's runs (a stencil's
 * row-shifted taps; a conversion between two blocked layouts), or at single
 * elements (one address for every lane), is moved a run at a time
 * instead (16 bytes at most an access): its spills store runs (emit_tir.c
 * print_spill), and each such read loads its run once (TirRead.vec). Its pitch is
 * then a multiple of the runs, padded by whole runs where that leaves fewer bank
 * conflicts (rows that share a phase of the access: lc * runs under 128 bytes),
 * each access counted as the hardware serves it (a phase of 128 bytes). */
enum { RUNS_MAX_ACC = 8 };
typedef struct RunAcc {
  int lc, vec, runs; /* the layout's lanes across the columns, its run, and the elements one access moves */
} RunAcc;
typedef struct CopyRuns {
  int8_t ok[TIR_MAX_BUFS]; /* 0: no access seen, 1: every access moves runs, -1: one does not */
  RunAcc acc[TIR_MAX_BUFS][RUNS_MAX_ACC];
  int nacc[TIR_MAX_BUFS];
  PtrVec reads[TIR_MAX_BUFS]; /* the TirReads that would load runs */
} CopyRuns;

/* The elements one access of layout l moves in a copy of eb-byte elements (0: none
 * that a run at a time serves: no blocked layout of whole runs over a warp's lanes). */
static int copy_runs(const TirKernel *K, const Layout *l, int eb) {
  if (!l || l->kind != LY_BLOCKED || layout_warp_tiles(l) || l->lr * l->lc != K->t->lanes) return 0;
  if (l->rc * l->wc * l->lc * l->vec != l->cols) return 0; /* padded columns: each element its own test */
  int n = l->vec;
  while (n > 1 && n * eb > 16) n /= 2;
  return n * eb >= 4 && n > 1 ? n : 0;
}

static void runs_refuse(CopyRuns *c, int b) {
  if (b >= 0) c->ok[b] = -1;
}

static void runs_add(CopyRuns *c, int b, const Layout *l, int runs) {
  if (c->ok[b] < 0) return;
  RunAcc a = {l->lc, l->vec, runs};
  for (int i = 0; i < c->nacc[b]; i++)
    if (c->acc[b][i].lc == a.lc && c->acc[b][i].vec == a.vec && c->acc[b][i].runs == a.runs) return;
  if (c->nacc[b] == RUNS_MAX_ACC) {
    c->ok[b] = -1;
    return;
  }
  c->acc[b][c->nacc[b]++] = a;
  c->ok[b] = 1;
}

/* x is a constant multiple of n (NULL: 0). */
static bool const_multiple(const Expr *x, int n) {
  int64_t v;
  return !x || (check_const_int(x, &v) && v % n == 0);
}

/* The reads of copies in x, an expression op evaluates; elementwise: at each element of
 * op's layout, op an assignment or a store (a read there may move runs). */
static void runs_expr(TirKernel *K, const TirOp *op, const Expr *x, bool elementwise, CopyRuns *c) {
  if (!x) return;
  TirRead *rd = tir_read(K, x);
  if (rd) {
    for (int d = 0; d < 2; d++) runs_expr(K, op, rd->start[d], false, c);
    if (x->ty.rank == 0) return; /* one element: every lane reads one address */
    const TirBuf *f = &K->bufs[rd->buf];
    int runs = elementwise ? copy_runs(K, op->lay, elem_bytes[f->elem]) : 0;
    int cols = op->has_win ? op->win_len[1] : op->cols;
    bool whole = rd->kind == TR_WINDOW && rd->rank == 2 && rd->keep[0] && rd->keep[1] && x->ty.rank == 2 &&
                 x->ty.dims[1] == cols && cols > 1 && (x->ty.dims[0] == 1 || x->ty.dims[0] == (op->has_win ? op->win_len[0] : op->rows));
    if (runs && whole && const_multiple(rd->start[1], runs) && (!op->has_win || const_multiple(op->win[1], runs)) &&
        (!rd->vec || rd->vec == runs)) {
      rd->vec = runs;
      runs_add(c, rd->buf, op->lay, runs);
      vec_push(K->a, &c->reads[rd->buf], rd);
    } else {
      runs_refuse(c, rd->buf);
    }
    return;
  }
  if (tir_hoisted(K, x)) return;
  switch (x->kind) {
  case E_UNARY: runs_expr(K, op, x->u.unary.a, elementwise, c); return;
  case E_BINARY:
    runs_expr(K, op, x->u.binary.a, elementwise, c);
    runs_expr(K, op, x->u.binary.b, elementwise, c);
    return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) runs_expr(K, op, x->u.call.args[i], elementwise, c);
    return;
  case E_INDEX:
    for (int i = 0; i < x->u.index.nidx; i++) runs_expr(K, op, x->u.index.idx[i].start, false, c);
    return;
  default: return;
  }
}

/* Every access of op to a copy (as reads_fn finds them). */
static void runs_fn(TirKernel *K, TirOp *op, void *ctx) {
  CopyRuns *c = ctx;
  const Stmt *s = op->stmt;
  if (op->kind == TO_SPILL) {
    const TirBuf *f = &K->bufs[op->buf];
    int runs = op->stm || op->dst != f->spill_of ? 0 : copy_runs(K, op->dst->layout, elem_bytes[f->elem]);
    if (runs) runs_add(c, op->buf, op->dst->layout, runs);
    else runs_refuse(c, op->buf);
    return;
  }
  runs_refuse(c, op->buf); /* a column reduction, a dot, a scratch, a staged store: read its own way */
  if (op->kind == TO_DOT) runs_refuse(c, op->buf2);
  bool each = (op->kind == TO_ASSIGN || op->kind == TO_STORE) && !op->from_copy && op->lay && op->lay->kind != LY_SCALAR;
  runs_expr(K, op, op->expr, each, c);
  runs_expr(K, op, op->pad, false, c);
  runs_expr(K, op, op->uguard, false, c);
  runs_expr(K, op, op->win[0], false, c);
  runs_expr(K, op, op->win[1], false, c);
  runs_expr(K, op, op->slice, false, c);
  if (!s) return;
  switch (op->kind) {
  case TO_SCALAR: runs_expr(K, op, s->kind == S_ASSIGN ? s->u.assign.rhs : s->u.decl.init, false, c); return;
  case TO_IF: runs_expr(K, op, s->u.iff.cond, false, c); return;
  case TO_WHILE: runs_expr(K, op, s->u.whil.cond, false, c); return;
  case TO_FOR:
    runs_expr(K, op, s->u.forr.lo, false, c);
    runs_expr(K, op, s->u.forr.hi, false, c);
    runs_expr(K, op, s->u.forr.step, false, c);
    return;
  default: return;
  }
}

/* The shared wavefronts of one warp's access a of a copy at pitch p: a phase of 128
 * bytes of lanes at a time, each bank serving its distinct words one a wavefront. */
static int wavefronts(RunAcc a, int eb, int p) {
  int bytes = a.runs * eb, phase = 128 / bytes, n = 0;
  for (int l0 = 0; l0 < 32; l0 += phase) {
    int words[32][32], nw[32] = {0}, most = 1;
    for (int l = l0; l < l0 + phase; l++) {
      int w0 = ((l / a.lc) * p + (l % a.lc) * a.vec) * eb / 4;
      for (int w = w0; w < w0 + bytes / 4; w++) {
        int b = w % 32, k = 0;
        while (k < nw[b] && words[b][k] != w) k++;
        if (k == nw[b]) words[b][nw[b]++] = w;
        if (nw[b] > most) most = nw[b];
      }
    }
    n += most;
  }
  return n * (a.vec / a.runs);
}

static void copy_vectors(TirKernel *K) {
  CopyRuns *c = NEW(K->a, CopyRuns);
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    if (v->home) c->ok[v->home - 1] = -1; /* a value living there: its ops' own ways */
  }
  walk(K, &K->body, runs_fn, c);
  for (int b = 0; b < K->nbufs; b++) {
    TirBuf *f = &K->bufs[b];
    bool plain = f->spill_of && !f->spill_of->fused && !f->trans && !f->trans_of && !f->operand && !f->cm8 &&
                 !f->stages && !f->swz && f->pitch == f->cols + 1;
    if (c->ok[b] == 1 && plain) {
      int eb = elem_bytes[f->elem], r = 1;
      for (int i = 0; i < c->nacc[b]; i++)
        if (c->acc[b][i].runs > r) r = c->acc[b][i].runs;
      int base = cdiv(f->cols, r) * r, best = -1, cost = 0;
      for (int p = base; p <= base + 128 / eb; p += r) {
        int n = 0;
        for (int i = 0; i < c->nacc[b]; i++) n += wavefronts(c->acc[b][i], eb, p);
        if (best < 0 || n < cost) best = p, cost = n;
      }
      f->pitch = best;
      tir_buf_size(f);
      continue;
    }
    for (int i = 0; i < c->reads[b].len; i++) ((TirRead *)c->reads[b].items[i])->vec = 0;
  }
}

/* ------------------------------------------------------------ the stage */

static void used_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)K, (void)ctx;
  if (op->kind == TO_LOAD && op->dst && op->dst->win_of) return; /* read by the window write: prints nothing */
  if (op->lay && op->lay->kind != LY_SCALAR)
    ((Layout *)(op->lay->kind == LY_SLICE ? op->lay->parent : op->lay))->used = true;
  if (op->alay) ((Layout *)op->alay)->used = true;
}

/* The layouts some value or op uses (the printer computes their coordinates). */
static void mark_used(TirKernel *K) {
  for (int i = 0; i < K->vars.len; i++) {
    const Layout *l = ((TirVar *)K->vars.items[i])->layout;
    if (((TirVar *)K->vars.items[i])->win_of) continue;
    if (l->kind != LY_SCALAR) ((Layout *)(l->kind == LY_SLICE ? l->parent : l))->used = true;
  }
  walk(K, &K->body, used_fn, NULL);
}

/* A layout's first row and column are computed from the lane and, with more than one warp, the warp. */
static void lanes_warps(TirKernel *K) {
  for (int i = 0; i < K->layouts.len; i++) {
    const Layout *l = K->layouts.items[i];
    if (!l->used) continue;
    K->use_lane = true;
    if (l->wc * l->wr > 1) K->use_warp = true;
  }
}

bool layout_assign(TirKernel *K, const char **why) {
  PtrVec convs = {0};
  if (!assign_vars(K, &convs, why)) return false;
  Check c = {NULL, NULL, NULL, &convs};
  walk(K, &K->body, op_layout_fn, &c);
  if (c.why) {
    *why = c.why;
    return false;
  }
  own_element_reads(K);
  Around around = {{0}, {0}, {0}};
  if (!apply_convs(K, &K->body, &convs, &around)) {
    *why = "too many shared copies";
    return false;
  }
  forward_windows(K, &K->body);
  carry_reductions(K);
  arg_values(K, &K->body);
  if (!add_scratch(K, &K->body, 0)) {
    *why = "too many reductions";
    return false;
  }
  Reads rd = {NULL, false};
  walk(K, &K->body, reads_fn, &rd);
  if (rd.overflow) {
    *why = "too many shared copies read by one statement";
    return false;
  }
  early_spills(K, &K->body);
  late_reads(K, &K->body, false);
  /* the budget counts live ranges, which the early copies shorten */
  if (!registers_ok(K, why)) return false;
  mark_used(K);
  lanes_warps(K);
  /* from here on the kernel is the IR's: warnings are given */
  copy_vectors(K);
  Bounds w = {0};
  accesses(K, &K->body, &w);
  walk(K, &K->body, vtail_fn, NULL);
  element_bounds(K, &w);
  return true;
}

/* ------------------------------------------------------------ staged epilogues */

/* A store of a value in an mma layout (a dot's accumulator, or one computed
 * with it) would give each thread pairs of elements: one 4-byte access each,
 * 8 rows x 16 bytes per warp instruction. When the stored tile's rows give
 * every thread whole 16-byte runs, the store goes through shared memory
 * instead, as a layout conversion made of the IR's usual ops:
 *   decl t; t = expr      in the mma layout, in the stored type (a value of its own);
 *   spill t -> t's copy   (stmatrix for 16-bit types where hw.c has it, plain
 *                         shared stores of each thread's pairs otherwise);
 *   store X[..] = t       read from the copy in a blocked layout of 16-byte runs
 *                         (TirOp.from_copy: one 16-byte shared read per 16-byte store).
 * The read-back layout keeps each warp inside its own warp tile (Layout.wtiles)
 * when a warp tile's rows are at least 128 bytes: the copy is then each warp's
 * own (TirBuf.warp_tiles) and sync.c orders it with __syncwarp. Otherwise a
 * blocked layout of the whole tile, whose rows must be at least 128 bytes, and
 * a __syncthreads; otherwise the store stays as it is. Only 8- and 16-bit
 * stored types are staged (4-byte pairs of a warp already fill whole sectors),
 * only outside thread-dependent control (stmatrix and the barrier are warp-
 * and block-wide), and only where the copy fits the shared budget and its
 * value the register budget (else the store stays as it is). A scatter along
 * rows at a cols() run (gather_run) is staged too: a row of the read-back is a
 * run of the tensor at its row's index, which the read-back's threads evaluate
 * at their own rows (so an index value held by the accumulator's rows keeps the
 * pairs: no conversion is made for it here).
 * Bank conflicts: the copy's pitch is padded so that a row is 16 bytes past a
 * multiple of 128 (a tile of 128 f16 columns: 136). The 8 rows of an 8 x 8
 * block that one stmatrix matrix (or a warp's pair stores: 8 rows x 4 lanes)
 * writes then start in 8 different groups of 4 banks, and each quarter warp of
 * the read-back (8 lanes, lc >= 8) reads 128 contiguous bytes of one row:
 * neither side has a conflict. The runs, the vector width (its run-time test),
 * the bounds checks at ragged edges are the store's as for any blocked store. */

/* By TMA (a path with it, hw.c): in the fast body a store whose copy each warp
 * writes by stmatrix and reads back itself, of the last two dims of a
 * row-major tensor of rank 2 to 4 (one element of each outer dim) that no other
 * op of the kernel touches, leaves by the bulk tensor copy instead of the
 * read-back (TO_TMA_STORE; the general body keeps the read-back, TirOp.only):
 *   spill t -> t's copy   stmatrix into the copy in 128-byte swizzled atoms of
 *                         128 / element-bytes columns (TirBuf.tma_swz: TMA's
 *                         SWIZZLE_128B, and the 8 rows of each stmatrix matrix
 *                         fall in 8 different 16-byte chunks: no bank conflict),
 *                         then each thread's fence.proxy.async (its generic
 *                         writes before the async proxy's reads);
 *   __syncwarp            (sync.c, as for the read-back);
 *   tma_store             lane 0 of each warp: one box of the warp tile's rows x
 *                         one atom per atom, commit, wait_group.read 0 (the copy
 *                         may be written again after the next barrier).
 * The map's global dims are the tensor's sizes: TMA clips what falls outside,
 * so a ragged edge needs no predicate. The fast body's entry test already
 * proves what the map needs (the base 16-byte aligned, rows a multiple of 16
 * bytes apart: the read-back's 16-byte runs). A tensor that another op reads
 * or writes is left to the read-back: TMA's writes are the async proxy's,
 * complete only at a wait_group that the kernel does not make. */

/* td: the thread-dependent regions around the ops walked (no warp-wide
 * stmatrix nor barrier may go there). */
typedef struct Epi {
  bool loads; /* the second pass: staged loads (stage_load), after the stores' copies are made */
  int td;
  PtrVec remat; /* tile vars a staged store's index read as their declared expression (HeldIdx) */
} Epi;

/* The read-back layout of mma layout m for elements of eb bytes: each warp's
 * own tile in runs of 16 bytes, else the whole tile's, else NULL. */
static const Layout *epilogue_layout(TirKernel *K, const Layout *m, int eb) {
  int vec = 16 / eb, tr = m->rr * 8, tc = m->rc * 8;
  if (K->hw->vec_bytes < 16 || K->t->lanes != 32) return NULL;
  if (tc * eb >= 128 && tc % vec == 0) {
    int chunks = tc / vec, lc = 1;
    while (lc * 2 <= chunks && lc * 2 <= 32) lc *= 2;
    int lr = 32 / lc;
    if (chunks % lc == 0 && tr % lr == 0) {
      Layout *l = NEW(K->a, Layout);
      *l = (Layout){.kind = LY_BLOCKED, .id = K->layouts.len, .rows = m->rows, .cols = m->cols, .vec = vec, .lc = lc,
                    .lr = lr, .wr = m->wr, .wc = m->wc, .rr = tr / lr, .rc = chunks / lc, .wtiles = true};
      vec_push(K->a, &K->layouts, l);
      return l;
    }
  }
  if (m->cols * eb < 128 || m->cols % vec) return NULL;
  const Layout *b = blocked_as(K, m->rows, m->cols, eb, true);
  return b->vec == vec && b->lc >= 8 && !layout_padded(b) ? b : NULL;
}

/* The copy's pitch: rows 16 bytes past a multiple of 128 (see above). */
static int epilogue_pitch(int cols, int eb) {
  int bytes = cols * eb;
  return (bytes + (16 - bytes % 128 + 128) % 128) / eb;
}

/* --explain: why the store at line keeps its pairs of elements (not staged). */
static void unstaged(TirKernel *K, int line, const char *why) {
  vec_push(K->a, &K->folds,
           (void *)arena_printf(K->a, "the store at line %d: pairs of elements from the accumulator's layout, not staged "
                                "through shared memory%s", line, why));
}

/* The mma layout a 2-D store runs in (its value's), when the store may be staged. */
static const Layout *staged_value(TirKernel *K, const TirOp *op, const Epi *e) {
  if (op->kind != TO_STORE || op->td || e->td || op->rows < 2 || op->cols < 2 || op->op != TK_ASSIGN ||
      op->atomic || op->has_win || !op->expr || !op->lay || op->lay->kind != LY_BLOCKED || !op->lay->mma)
    return NULL;
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  const Index *ix = &op->slice->u.index.idx[X->trank - 1];
  int eb = elem_bytes[X->ty.elem];
  /* where it pays: a warp's pair stores of 4-byte elements already fill whole
   * 32-byte sectors (8 rows x 32 bytes); 16- and 8-bit ones fill half or a quarter */
  if (eb > 2) return NULL;
  /* a scatter along rows at cols() (gather_run: D[r0 + rows(128, 1), cols(128, 128)], a
   * grouped GEMM's rows of each problem) stores each row's run as a slice does: staged the same */
  const Expr *first = ix->start;
  if (op->gather && (!gather_run(K, op, &first) || (first && first->ty.rank))) return NULL;
  if (!op->gather && !ix->len) return NULL;
  if (first && !facts_multiple_of(K->ki, first, 16 / eb)) return NULL;
  if (!X->tdim_size[X->trank - 1] && X->tdim_const[X->trank - 1] % (16 / eb)) return NULL;
  return op->lay;
}

/* A staged store's wider runs add conditions that imply ones its pairs added
 * (C aligned to 16 bytes, C aligned to 4): the stronger takes the weaker's place. */
static void stronger_checks(TirKernel *K) {
  for (int i = 0; i < K->nchecks; i++)
    for (int j = i + 1; j < K->nchecks; j++) {
      TirCheck *a = &K->checks[i], *b = &K->checks[j];
      if (a->size != b->size || a->tensor != b->tensor || !a->mod || !b->mod || b->mod % a->mod) continue;
      a->mod = b->mod;
      memmove(b, b + 1, sizeof *b * (size_t)(K->nchecks - j - 1));
      K->nchecks--;
      j--;
    }
}

/* The value expression x is, when it is one of type et in layout m that has no
 * shared copy yet (the staging copy is then its copy), or NULL. */
static TirVar *stored_value(TirKernel *K, const Expr *x, ElemType et, const Layout *m) {
  TirVar *v = value_named(K, x);
  if (!v || v->elem != et || v->layout != m || v->direct) return NULL;
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].spill_of == v) return NULL;
  return v;
}

/* Whether op touches tensor X: a load, a store, a TMA box or an element read. */
static bool touches(const TirKernel *K, const TirBlock *b, const Sym *X, const TirOp *skip) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op != skip && op->slice && op->slice->kind == E_INDEX && op->slice->u.index.base->u.ident.sym == X) return true;
    if (touches(K, &op->body, X, skip) || touches(K, &op->els, X, skip)) return true;
  }
  return false;
}

/* Whether the fast body stores op's tile by TMA (see above): m the copy's
 * writer's layout, rd the read-back's, stm its stmatrix. */
static bool tma_store_ok(const TirKernel *K, const TirOp *op, const Layout *m, const Layout *rd, int stm, int vec) {
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  int eb = elem_bytes[X->ty.elem], nd = op->slice->u.index.nidx, e = 128 / eb;
  if (!K->hw->tma || !K->t->tma || !rd->wtiles || !stm || vec * eb != 16) return false;
  if (X->trank < 2 || X->trank > 4 || nd != X->trank || (m->rc * 8) % e || m->rr * 8 > 256) return false;
  for (int d = 0; d < nd; d++) {
    const Index *ix = &op->slice->u.index.idx[d];
    if (X->tstride[d] || ix->start->ty.rank || (d < nd - 2) != !ix->len) return false;
  }
  for (int i = 0; i < K->elems.len; i++) {
    const Expr *x = K->elems.items[i];
    if (x->u.index.base->u.ident.sym == X) return false;
  }
  return !touches(K, &K->body, X, op);
}

/* The staging copy that an earlier staged store made of the value op stores, where op
 * would make the same one (its pitch, its readers' warp tiles, a TMA store's swizzle or
 * none): the same value stored again, as in each branch of an if (`if w == 0 { P[..] = y }
 * else { Q[..] = y }`, a QKV projection's three outputs picked by ctx.block.z). Each store
 * writes the copy just before it reads it back, so the one copy serves every such store;
 * before, each after the first staged a value and a copy of its own (y's 34,816 bytes
 * again per branch). *v: the value. -1: none. */
static int staged_again(TirKernel *K, const TirOp *op, ElemType et, const Layout *m, const Layout *rd, bool tma,
                        TirVar **v) {
  TirVar *w = value_named(K, op->expr);
  if (!w || w->elem != et || w->layout != m || w->direct) return -1;
  int pitch = epilogue_pitch(op->cols, elem_bytes[et]);
  for (int i = 0; i < K->nbufs; i++) {
    const TirBuf *f = &K->bufs[i];
    if (f->spill_of == w && f->staged && f->pitch == pitch && f->warp_tiles == rd->wtiles && (f->tma_swz != 0) == tma) {
      *v = w;
      return i;
    }
  }
  return -1;
}

/* The runs store op would move in read-back layout rd (vector_width's, its entry test's
 * conditions left as they were): whether it may go by TMA is known before its copy is chosen. */
static int staged_vec(TirKernel *K, const TirOp *op, const Layout *rd) {
  TirOp o = *op;
  int n = K->nchecks;
  bool versioned = K->versioned;
  o.lay = rd;
  o.from_copy = true;
  vector_width(K, &o);
  K->nchecks = n;
  K->versioned = versioned;
  return o.vec;
}

/* Stages store op of block b at index *i: the ops above go in before it. */
static bool stage_store(TirKernel *K, TirBlock *b, int *i, const Layout *m, const Layout *rd) {
  TirOp *op = b->ops.items[*i];
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  ElemType et = X->ty.elem;
  int eb = elem_bytes[et];
  /* 16-bit elements in pairs, as cvt packs them for stmatrix: m64n256k16's 128 f32 and their 64 f16x2 fit */
  int regs = eb == 2 ? (layout_count(m) + 1) / 2 : layout_count(m) * (eb > 4 ? 2 : 1);
  /* the staged value lives from just before the store to it: what counts is what is live at
   * the store, not the kernel's peak (a loop's temporaries and operand tiles are dead after
   * it: attention backward's dK and dV stores after its loop hold only dk and dv) */
  int live = tir_value_regs_at(K, op);
  if (live + regs > TIR_MAX_VALUE_REGS) { /* as it is */
    unstaged(K, op->stmt->loc.line,
             arena_printf(K->a, " into 16-byte runs: its staged value's %d registers a thread would take the values live there to %d, "
                          "past the budget of %d", regs, live + regs, TIR_MAX_VALUE_REGS));
    return true;
  }
  /* stmatrix: each 8 x 8 block of a 16-bit mma layout is one of its matrices */
  int stm = K->hw->stmatrix && (et == T_F16 || et == T_BF16) ? (m->rc % 4 == 0 ? 4 : m->rc % 2 == 0 ? 2 : 1) : 0;
  bool tma = tma_store_ok(K, op, m, rd, stm, staged_vec(K, op, rd));
  TirVar *t = NULL;
  int bi = staged_again(K, op, et, m, rd, tma, &t);
  if (bi < 0) {
    int64_t bytes = (int64_t)op->rows * epilogue_pitch(op->cols, eb) * eb;
    int align = K->hw->tma && K->t->tma ? 1024 : 16; /* a TMA store's copy starts at 1024 bytes (tma_swz) */
    /* side by side, or in bytes that buffers dead by then had (smem.c's reuse: a stage ring after its loop) */
    if (smem_with(K, op, bytes, align) > smem_budget(K)) { /* no room: as it is */
      unstaged(K, op->stmt->loc.line,
               arena_printf(K->a, " into 16-byte runs: its copy's %" PRId64 " bytes do not fit the shared budget of %" PRId64
                            " next to the kernel's other buffers", bytes, (int64_t)smem_budget(K)));
      return true;
    }
    t = stored_value(K, op->expr, et, m);
  }
  bool own = !t; /* the value is not a value of the stored type already: one of its own */
  if (own) {
    t = tir_new_var(K, et, 2, op->rows, op->cols,
                    arena_printf(K->a, "the value stored at line %d, in %s", op->stmt->loc.line, elem_names[et]));
    t->cname = arena_printf(K->a, "t2c_epi%d", t->id); /* lower.c names its temporaries t2c_v<n> */
    t->layout = m;
    t->cvt_packed = tir_packed_words(et, layout_count(m)) > 0;
  }
  bool again = bi >= 0;
  if (!again) bi = tir_copy_buf(K, t);
  if (bi < 0) return false;
  TirBuf *f = &K->bufs[bi];
  if (!again) {
    f->pitch = epilogue_pitch(op->cols, eb);
    f->warp_tiles = rd->wtiles;
    f->staged = true;
    tir_buf_size(f);
  }
  TirVar *h = tir_hoisted(K, op->expr);
  Expr *x = h ? tir_read_of(K, h) : NEW(K->a, Expr);
  if (!h) *x = *op->expr; /* the same value, a node the store's read of the copy is not keyed on */
  TirOp *d = tir_new_op(K, NULL, TO_DECL, op->stmt), *a = tir_new_op(K, NULL, TO_ASSIGN, op->stmt);
  TirOp *sp = tir_new_op(K, NULL, TO_SPILL, op->stmt);
  d->dst = a->dst = sp->dst = t;
  d->rows = a->rows = sp->rows = op->rows;
  d->cols = a->cols = sp->cols = op->cols;
  a->expr = x;
  sp->buf = bi;
  d->lay = a->lay = sp->lay = m;
  sp->stm = stm;
  if (again)
    f->what = arena_printf(K->a, "%s; the store at line %d stages the same value here", f->what, op->stmt->loc.line);
  else
    f->what = arena_printf(K->a, "the store at line %d, staged: written in %s's layout by %s, read back in 16-byte runs%s",
                           op->stmt->loc.line, m->wg ? "wgmma's accumulator" : "the mma accumulator",
                           sp->stm ? arena_printf(K->a, "stmatrix.x%d", sp->stm) : "each thread's pairs",
                           rd->wtiles ? " by the warp that wrote them" : "");
  d->first = op->first;
  op->first = false;
  TirRead *r = NEW(K->a, TirRead);
  *r = (TirRead){TR_WINDOW, bi, 2, {NULL, NULL}, {true, true}, 0, 0};
  vec_push(K->a, &K->rkeys, op->expr);
  vec_push(K->a, &K->rvals, r);
  op->lay = rd;
  op->from_copy = true;
  op->buf = bi;
  /* what layout_assign found for the other ops, for these: shared accesses, the store's runs */
  Reads acc = {NULL, false};
  reads_fn(K, sp, &acc);
  reads_fn(K, op, &acc);
  reads_fn(K, a, &acc);
  op->vec = 1;
  vector_width(K, op);
  stronger_checks(K);
  TirOp *ts = NULL; /* the fast body's TMA store (above) */
  if (tma) {
    f->tma_swz = 128;
    ts = tir_new_op(K, NULL, TO_TMA_STORE, op->stmt);
    ts->slice = op->slice;
    ts->buf = bi;
    ts->lay = m;
    ts->rows = op->rows;
    ts->cols = op->cols;
    ts->only = TIR_FAST;
    ts->tmap = tir_tma_map(K, X, m->rr * 8, 128 / eb, 128);
    K->ki->tmaps[ts->tmap].store = true;
    memcpy(ts->acc, op->acc, sizeof op->acc);
    ts->nacc = op->nacc;
    op->only = TIR_GENERAL;
    if (!again)
      f->what = arena_printf(K->a, "%s; in the fast body stored by TMA from %d-byte swizzled rows, a box of %d x %d "
                             "per warp and atom, by lane 0 of each warp", f->what, f->tma_swz, m->rr * 8, 128 / eb);
  }
  TirOp *ins[3] = {d, a, sp};
  int first = own ? 0 : 2; /* a value of its own: declared and computed first */
  if (!own) sp->first = d->first;
  PtrVec out = {0};
  for (int k = 0; k < b->ops.len; k++) {
    if (k == *i)
      for (int j = first; j < 3; j++) vec_push(K->a, &out, ins[j]);
    vec_push(K->a, &out, b->ops.items[k]);
    if (k == *i && ts) vec_push(K->a, &out, ts);
  }
  b->ops = out;
  *i += 3 - first + (ts != NULL);
  return true;
}

/* A scatter's index values that read-back layout rd's threads do not hold (held in the
 * accumulator's rows: a gather's, Z[J[m0 + rows(128, 1)], ..]): *name is one. A tile var
 * declared as an expression the read-back may compute again (var r = m0 + rows(128, 1),
 * then Y[r, cols(128, 128)] or Y[where(r < rend, r, -1), ..]: recompute_copy) is no such
 * value: its reads (xs) become their copies (es) where the store is staged, as if the
 * expression were written in its place, which stages the same (docs/language.md). */
typedef struct HeldIdx {
  const Layout *rd;
  const char *name;
  PtrVec xs, es, vs;
} HeldIdx;

static void held_idx_leaf(TirKernel *K, TirVar *v, Expr *x, void *ctx) {
  HeldIdx *h = ctx;
  if (h->name || readable(v->layout, h->rd)) return;
  Expr *e = x ? recompute_copy(K, x, v) : NULL;
  if (!e) {
    h->name = v->what;
    return;
  }
  vec_push(K->a, &h->xs, x);
  vec_push(K->a, &h->es, e);
  vec_push(K->a, &h->vs, v);
}

/* A staged load: the mirror of a staged store. A 2-D load of 8- or 16-bit elements in an
 * mma layout (a residual or bias tile an epilogue adds to a dot's accumulator: acc +=
 * f32(R[..])) gives each thread pairs of elements, one 4-byte load each, and ptxas issues
 * them all at once: a 128 x 256 GEMM's residual (64 pairs a thread beside its 128
 * accumulators) took 185 -> 246 registers, and its general body's 128 single loads
 * spilled. Staged, it is loaded in the read-back layout of 16-byte runs (each warp its
 * own warp tile) straight into a copy (the value's shared home, TirVar.home: no
 * registers held), and its readers read the copy in the mma layout after a __syncwarp:
 *   load t = R[..]        in rd, 16-byte runs, into t's copy;
 *   acc += f32(t)         read from the copy at the accumulator's elements.
 * When: the load's value is a temporary (no tile var) that only ops of the same block
 * after it read, all in its layout, assignments and stores; outside thread-dependent
 * control; the tensor's last dim as a staged store wants it; and the copy fits the
 * shared budget. */
/* Whether an op of b, or inside one, writes or reads v. */
static bool block_reads_var(const TirKernel *K, const TirBlock *b, const TirVar *v) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *o = b->ops.items[i];
    if (tir_op_touches(K, o, v) || block_reads_var(K, &o->body, v) || block_reads_var(K, &o->els, v)) return true;
  }
  return false;
}

static bool staged_load(TirKernel *K, TirBlock *b, int i, const Epi *e, const Layout **mp) {
  TirOp *op = b->ops.items[i];
  if (op->kind != TO_LOAD || op->td || e->td || op->pf_var || op->gather || op->has_win || op->rows < 2 ||
      op->cols < 2 || !op->lay || op->lay->kind != LY_BLOCKED || !op->lay->mma || !op->dst || op->dst->sym ||
      op->dst->home || op->dst->layout != op->lay)
    return false;
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  const Index *ix = &op->slice->u.index.idx[X->trank - 1];
  int eb = elem_bytes[X->ty.elem];
  if (eb > 2 || !ix->len || X->tstride[X->trank - 1]) return false;
  if (!facts_multiple_of(K->ki, ix->start, 16 / eb)) return false;
  if (!X->tdim_size[X->trank - 1] && X->tdim_const[X->trank - 1] % (16 / eb)) return false;
  /* its readers: ops of this block after it, in its layout */
  for (int j = 0; j < b->ops.len; j++) {
    const TirOp *o = b->ops.items[j];
    if (o == op) continue;
    bool in = tir_op_touches(K, o, op->dst), inner = block_reads_var(K, &o->body, op->dst) ||
                                                    block_reads_var(K, &o->els, op->dst);
    if (inner || (in && (j < i || o->lay != op->lay || (o->kind != TO_ASSIGN && o->kind != TO_STORE) || o->dst == op->dst)))
      return false;
  }
  *mp = op->lay;
  return true;
}

static bool stage_load(TirKernel *K, TirBlock *b, int i, const Layout *m, const Layout *rd) {
  TirOp *op = b->ops.items[i];
  TirVar *v = op->dst;
  ElemType et = op->slice->u.index.base->u.ident.sym->ty.elem;
  int eb = elem_bytes[et];
  int64_t bytes = (int64_t)op->rows * epilogue_pitch(op->cols, eb) * eb;
  /* no room, or fewer blocks per SM than the kernel's shared memory lets fit without the copy
   * (a 64 x 256 GEMM at 128 threads: 2 -> 1): as it is */
  int64_t before = smem_with(K, op, 0, 16), after = smem_with(K, op, bytes, 16);
  if (after > smem_budget(K) ||
      K->t->smem_per_sm / smem_footprint(K->t, after) < K->t->smem_per_sm / smem_footprint(K->t, before))
    return true;
  TirVar *t = tir_new_var(K, et, 2, op->rows, op->cols, arena_printf(K->a, "%s, staged", v->what));
  t->cname = arena_printf(K->a, "t2c_epl%d", t->id);
  t->layout = rd;
  int bi = tir_copy_buf(K, t);
  if (bi < 0) return false;
  TirBuf *f = &K->bufs[bi];
  f->pitch = epilogue_pitch(op->cols, eb);
  f->warp_tiles = rd->wtiles;
  tir_buf_size(f);
  f->what = arena_printf(K->a, "the load at line %d, staged: loaded in 16-byte runs%s, read in %s's layout",
                         op->stmt->loc.line, rd->wtiles ? " by the warp that reads them" : "",
                         m->wg ? "wgmma's accumulator" : "the mma accumulator");
  t->home = bi + 1;
  t->home_why = "a staged load";
  op->dst = t;
  op->lay = rd;
  op->staged = true;
  bool ov = false;
  own_access(op, bi, true, &ov);
  /* the readers read the copy, at their own elements */
  for (int k = 0; k < K->hkeys.len; k++)
    if (K->hvals.items[k] == v) {
      TirRead *r = NEW(K->a, TirRead);
      *r = (TirRead){TR_WINDOW, bi, 2, {NULL, NULL}, {true, true}, 0, 0};
      vec_push(K->a, &K->rkeys, K->hkeys.items[k]);
      vec_push(K->a, &K->rvals, r);
    }
  for (int j = i + 1; j < b->ops.len; j++) {
    Reads acc = {NULL, false};
    reads_fn(K, b->ops.items[j], &acc);
    ov |= acc.overflow;
  }
  op->vec = 1;
  vector_width(K, op);
  stronger_checks(K);
  return !ov;
}

/* false: out of buffers (the stores not staged yet stay as they are) */
static bool epilogues(TirKernel *K, TirBlock *b, Epi *e) {
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    bool td = op->td && (op->kind == TO_IF || op->kind == TO_FOR || op->kind == TO_WHILE);
    e->td += td;
    bool ok = epilogues(K, &op->body, e) && epilogues(K, &op->els, e);
    e->td -= td;
    if (!ok) return false;
    const Layout *lm;
    if (e->loads) {
      if (!staged_load(K, b, i, e, &lm)) continue;
      const Layout *rd = epilogue_layout(K, lm, elem_bytes[op->slice->u.index.base->u.ident.sym->ty.elem]);
      if (rd && !stage_load(K, b, i, lm, rd)) return false;
      continue;
    }
    const Layout *m = staged_value(K, op, e);
    if (!m) continue;
    int eb = elem_bytes[op->slice->u.index.base->u.ident.sym->ty.elem];
    const Layout *rd = epilogue_layout(K, m, eb);
    HeldIdx h = {rd, NULL, {0}, {0}, {0}};
    if (rd) index_leaves(K, op, held_idx_leaf, &h);
    if (!h.name && h.xs.len) {
      for (int k = 0; k < h.xs.len; k++) {
        read_as(h.xs.items[k], h.es.items[k]);
        if (!vec_has(&e->remat, h.vs.items[k])) vec_push(K->a, &e->remat, h.vs.items[k]);
      }
      Bounds w = {0}; /* its bounds tests, the expression's (m0 + rows(128, 1) >= 0: none) */
      bounds(K, op, &w);
    }
    if (h.name) { /* the read-back's rows are not the fragments' (no conversion of an index here) */
      unstaged(K, op->stmt->loc.line,
               arena_printf(K->a, ": its scatter index reads the %s, held by the accumulator's rows, and a read-back "
                            "in 16-byte runs stores other rows in each thread", h.name));
      continue;
    }
    if (rd && !stage_store(K, b, &i, m, rd)) return false;
    if (!rd && K->hw->vec_bytes >= 16)
      unstaged(K, op->stmt->loc.line,
               arena_printf(K->a, ": a warp's rows of %d bytes (and the tile's of %d) are under the 128 bytes a read-back "
                            "in 16-byte runs needs", m->rc * 8 * eb, m->cols * eb));
  }
  return true;
}

/* A loop whose wgmma dot pipeline.c left in flight (a TO_WG_WAIT follows it)
 * or deferred (a TO_WG_DEFER issues its last one after it) gets its accumulator
 * pinned before it (TO_WG_PIN). Without it NVVM may sink
 * the accumulator's initial moves into the path that skips the loop, and ptxas
 * then serialises every wgmma (C7515): gemm_f16 on sm_90a did so once its store
 * was staged. */
static void wg_pins(TirKernel *K, TirBlock *b) {
  PtrVec out = {0};
  for (int i = 0; i < b->ops.len; i++) {
    TirOp *op = b->ops.items[i];
    wg_pins(K, &op->body);
    wg_pins(K, &op->els);
    const TirOp *next = i + 1 < b->ops.len ? b->ops.items[i + 1] : NULL;
    bool completes = next && (next->kind == TO_WG_WAIT || (next->kind == TO_WG_DEFER && next->pending));
    if ((op->kind == TO_FOR || op->kind == TO_WHILE) && completes)
      for (int j = i + 1; j < b->ops.len; j++) { /* several dots in flight: a wait for each accumulator */
        const TirOp *w = b->ops.items[j];
        if (j > i + 1 && (w->kind != TO_WG_WAIT || w->pending >= 0)) break;
        TirOp *pin = tir_new_op(K, NULL, TO_WG_PIN, op->stmt);
        pin->dst = w->dst;
        vec_push(K->a, &out, pin);
      }
    vec_push(K->a, &out, op);
  }
  b->ops = out;
}

/* Which coordinates evaluating x at an element reads: 1 its row (rows()), 2 its column
 * (cols()); a read of a shared copy, the element's row and column but for a unit dim of
 * what is read, which broadcasts (emit_tir.c shared_read: a row value [R, 1] reads at
 * the row alone); a hoisted value is its registers. */
static int expr_coord_bits(const TirKernel *K, const Expr *x) {
  if (!x) return 0;
  if (tir_read(K, x)) {
    int rows = x->ty.rank == 2 ? (int)x->ty.dims[0] : 1;
    int cols = x->ty.rank == 2 ? (int)x->ty.dims[1] : x->ty.rank ? (int)x->ty.dims[0] : 1;
    return (rows > 1 ? 1 : 0) | (cols > 1 ? 2 : 0);
  }
  if (tir_hoisted(K, x)) return 0;
  switch (x->kind) {
  case E_UNARY: return expr_coord_bits(K, x->u.unary.a);
  case E_BINARY: return expr_coord_bits(K, x->u.binary.a) | expr_coord_bits(K, x->u.binary.b);
  case E_CALL: {
    if (x->u.call.cast == T_NONE && x->u.call.builtin == B_ROWS) return 1;
    if (x->u.call.cast == T_NONE && x->u.call.builtin == B_COLS) return 2;
    int b = 0;
    for (int i = 0; i < x->u.call.nargs; i++) b |= expr_coord_bits(K, x->u.call.args[i]);
    return b;
  }
  default: return 0;
  }
}

static bool expr_coords(const TirKernel *K, const Expr *x) { return expr_coord_bits(K, x) != 0; }

/* Whether x reads a shared copy (tir_read): in an op of a padded layout each such
 * read is under the tile mask of its element (emit_tir.c read_mask), which names the
 * thread's first row or column (a padded dim's) even where the copy is [1, 1]. */
static bool expr_reads_copy(const TirKernel *K, const Expr *x) {
  if (!x) return false;
  if (tir_read(K, x)) return true;
  if (tir_hoisted(K, x)) return false;
  switch (x->kind) {
  case E_UNARY: return expr_reads_copy(K, x->u.unary.a);
  case E_BINARY: return expr_reads_copy(K, x->u.binary.a) || expr_reads_copy(K, x->u.binary.b);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (expr_reads_copy(K, x->u.call.args[i])) return true;
    return false;
  default: return false;
  }
}

/* Layout.coord_r and coord_c (ctx_vars declares a layout's first row and column
 * only where these say an op reads them): an op in a layout reads the thread's
 * first row and column; in an mma layout, unless it only declares, computes without coordinates, writes
 * by stmatrix, stores by TMA or accumulates a dot on the matrix unit (warp tile
 * and lane) or waits for one. An op in a slice of it reads the row alone (a
 * [M, 1] slice, dim 1 reduced) or the column alone ([1, N]). A dot on the CUDA
 * cores (TirOp.simt) reads its operands' rows and columns at the thread's
 * elements. */
static void coords_fn(TirKernel *K, TirOp *op, void *ctx) {
  (void)ctx;
  if (op->alay && op->kind == TO_DOT && expr_coords(K, op->expr))
    ((Layout *)op->alay)->coord_r = ((Layout *)op->alay)->coord_c = true;
  if (!op->lay || op->lay->kind == LY_SCALAR) return;
  Layout *l = (Layout *)(op->lay->kind == LY_SLICE ? op->lay->parent : op->lay);
  /* (a slice of an mma layout has no padding positions either: its declaration and
   * assignments of values read where they are need no coordinates) */
  bool none = (op->lay->kind == LY_BLOCKED || (l->mma && (op->kind == TO_DECL || op->kind == TO_ASSIGN))) &&
              ((op->kind == TO_REDUCE && builtin_class[op->red] == BC_RED && l->mma && !tir_down_cols(op) && op->expr &&
                !expr_coords(K, op->expr)) ||
               op->kind == TO_DECL || (op->kind == TO_DOT && !op->simt) || op->kind == TO_FRAGS || op->kind == TO_WG_WAIT || op->kind == TO_WG_PIN ||
               (op->kind == TO_SPILL && op->stm) || op->kind == TO_TMA_STORE ||
               (op->kind == TO_ASSIGN && !op->has_win && !expr_coords(K, op->expr)));
  if (none && op->kind == TO_ASSIGN && expr_reads_copy(K, op->expr)) {
    /* its copy reads' tile masks name the dims with padding positions (a slice's own) */
    bool slice = op->lay->kind == LY_SLICE;
    if ((!slice || op->lay->dim == 1) && l->rr * l->wr * l->lr != l->rows) l->coord_r = true;
    if ((!slice || op->lay->dim == 0) && l->rc * l->wc * l->lc * l->vec != l->cols) l->coord_c = true;
  }
  if (none) return;
  if (l->partials && op->lay == l) { /* the partials' fold: unpadded along it; a row fold's scratch at the
                                        rows (a column fold's is at its result's columns, emit_tir.c) */
    if (op->kind == TO_REDUCE) return;
    if (op->kind == TO_SCRATCH_WRITE || op->kind == TO_SCRATCH_READ) {
      if (!tir_down_cols(op)) l->coord_r = true;
      return;
    }
  }
  /* an elementwise assignment over an mma layout reads the coordinates its
   * expression names (a mask of cols() alone: the column) */
  int bits = op->kind == TO_ASSIGN && l->mma && op->lay == l && !op->has_win ? expr_coord_bits(K, op->expr) : 3;
  /* an op of a replicated slice but for a computation may guard by the other
   * coordinate (its first replica stores, writes the scratch: t2c_c0 == 0) */
  if (layout_replicated(op->lay) && (op->kind == TO_STORE || op->kind == TO_SCRATCH_WRITE || op->kind == TO_SPILL))
    l->coord_r = l->coord_c = true;
  if ((op->lay->kind != LY_SLICE || op->lay->dim == 1) && (bits & 1)) l->coord_r = true;
  if ((op->lay->kind != LY_SLICE || op->lay->dim == 0) && (bits & 2)) l->coord_c = true;
}

/* The warning place_values deferred: the values past the budget, none of which could move
 * to shared memory then, once layout_epilogues has staged what it could (an in-place
 * GEMM epilogue's C slice, 128 a thread beside a 128 x 256 accumulator, lives in its copy). */
void layout_pressure_late(TirKernel *K) {
  if (K->pressure_late && tir_value_regs(K) > TIR_MAX_VALUE_REGS) pressure_warning(K, TIR_MAX_VALUE_REGS, NULL);
  K->pressure_late = false;
}

/* The staged epilogues (above), after pipeline.c: the stage rings' bytes are
 * known then, and a store is staged only where its copy fits the budget. */
void layout_epilogues(TirKernel *K) {
  Epi e = {false, 0, {0}};
  bool ok = epilogues(K, &K->body, &e);
  e.loads = true;
  ok = ok && epilogues(K, &K->body, &e);
  /* a var no op reads now: its registers and its computation go (as uniform_masks's) */
  for (int i = 0; i < e.remat.len; i++) uniform_drop_unread(K, e.remat.items[i]);
  if (ok) {
    mark_used(K);
    lanes_warps(K);
  }
  wg_pins(K, &K->body);
  walk(K, &K->body, coords_fn, NULL);
}
