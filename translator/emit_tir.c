/* emit_tir.c: prints a TirKernel as CUDA. It decides nothing.
 *
 * Every choice was made by the stages: layouts (which thread holds which
 * element, in which register), vector widths and the run-time alignment test,
 * kept bounds checks, scratch buffers and their offsets, barriers and their
 * reasons. This file turns them into text: a register array per value (or
 * its shared copy, TirVar.home), the per-thread element loops unrolled with
 * literal register indices (a rolled op's rows, TirOp.rolled: a loop), a thread's
 * first row and column per layout computed once at entry, and, when the
 * layout stage versioned the kernel, the body twice under one uniform branch.
 */
#include "t2c.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "templates.h"

/* One element of an op's layout: repeat ir down, repeat ic across, v in the run. */
typedef struct At {
  const Layout *lay;
  int ir, ic, v;
} At;

typedef struct Printer {
  TirKernel *K;
  Arena *a;
  const EmitOptions *o;
  const char *line_file;
  int indent;
  bool fast;           /* printing the fast body of a versioned kernel */
  Buf *out;
  int ctr;             /* fresh names */
  const char *shift[2]; /* a window write's first row and column: expressions read relative to them */
  const Sym *subst;     /* a load issued ahead reads this loop variable as subst_text */
  const char *subst_text;
  /* the loop-local scalars the loads issued ahead read (TirKernel.ikeys), named at the top
   * of their block (ahead_locals): nsym[i]'s value prints as nname[i], but in its own
   * declaration (defining) */
  const Sym *nsym[16];
  const char *nname[16];
  int nnamed;
  const Sym *defining;
  int inloop;           /* the loops (for, while) around what is being printed */
  /* the divisors of the divisions in loops printed as t2c::FastDiv (fastdiv_of): declared
   * at the top of the kernel's body as t2c_dv<i> */
  const char *divs[8];
  int ndiv;
  const struct TirOp *uop; /* printing this op's guarded version: its uwhere take their first branch */
  const Layout *roll;   /* printing a rolled op (TirOp.rolled) in this layout: its first row is roll_row */
  const char *roll_row;
  const Layout *rollc;  /* a reduction's column repeats as a loop (TirOp.rolled_cols): repeat ic is roll_col */
  const char *roll_col;
  const char *vsym;     /* a run printed as a loop (copy_elem): the element in the run is this name, not At.v */
  bool roll_runs;       /* the ring fills of the block being printed copy their runs as loops (rolled_fills) */
  bool masked;          /* copy_elem guards each copy by the tile mask: tensor_index leaves it out */
  struct OpenLoop *open; /* the for loops being printed, innermost first */
  bool peeled;          /* printing a loop's first iteration on its own (print_for): no deferred dot yet */
  /* the dots after the one being printed over its A in the same k steps (tir_dots_sharing_a): printed in it */
  struct TirOp *with[TIR_MAX_SHARE_A];
  int nwith;
  int boff;             /* B fragment names t2c_b<j + boff>, t2c_q<j + boff>: a dot of with[] (past the names before it) */
  int ring_at;          /* TO_FRAGS: stage rings read at the stage of their loop's next iteration (1), or
                           at the first stage, before the loop (2); 0: this iteration's */
  /* register-A wgmma dots: the first of each one's A fragment names t2c_a<n> (two
   * such dots in one scope must not both declare t2c_a0; both bodies use the same) */
  const struct TirOp *aop[32];
  int abase[32], naop, anext;
  /* the takes of a rotated loop's copy printed so far (TirOp.mirror): value mv[i] equals the
   * packed slot ms[i] until the copy's end */
  const struct TirVar *mv[8], *ms[8];
  int nmirror;
  struct Once *once;    /* printing an op of many elements: its element reads, each read once */
  int ectr;             /* fresh names of those reads (t2c_e<n>) */
  /* runs of a never-held load (TirVar.fused) read by its reader in one access each
   * (fused_run), declared in the op being printed at indent `indent`: valid until the
   * op ends or a block at that depth closes */
  struct FusedRun {
    const TirVar *v;
    int ir, ic, v0, indent;
    const char *name;
  } frun[16];
  int nfrun;
  /* the runs of copies loaded so far for the op being printed (TirRead.vec, run_loads):
   * read x's elements at..at + n - 1 are name.v[0 .. n - 1] */
  struct RunLoad {
    const Expr *x;
    const char *name;
    At at;
    int n;
  } runs[16];
  int nruns;
  /* by layout id, what the body named of an mma layout's warp tile: its first row
   * t2c_wr<id> (bit 0), its first column t2c_wc<id> (bit 1). The body is printed
   * before ctx_vars, which declares only those (and what t2c_r, t2c_c read): a
   * wgmma accumulator only converted into another dot's A fragments names neither,
   * and nvcc warns of an unread one (#177-D) */
  unsigned char *wtile;
  /* the layouts whose t2c_r<id> (1) and t2c_c<id> (2) the body names (coord): ctx_vars declares
   * only those (an op under a test the printer drops named one of a [1, 32] layout's: #177-D) */
  unsigned char *coords;
} Printer;

/* An op of many elements reads each tensor element of scalar indices (X[i, j] in its
 * expression) once, into a local declared where the op starts (at, in P->out, at indent),
 * rather than at each element: under each element's own bounds test (the general body,
 * a run's test) nvcc cannot merge the copies. The local is the read as it was, with its
 * test: outside the tensor it is 0, as each copy was. */
typedef struct Once {
  size_t at;
  int indent, n;
  const char *text[16], *name[16];
} Once;

/* A for loop being printed: the names its end and step go by inside it (a
 * copy made before the loop, or the expression itself). */
typedef struct OpenLoop {
  const Stmt *f;
  const char *end, *step;
  struct OpenLoop *up;
} OpenLoop;

static void line(Printer *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Printer *P, const char *fmt, ...) {
  for (int i = 0; i < P->indent; i++) buf_puts(P->out, "  ");
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(P->out, fmt, ap);
  va_end(ap);
  buf_puts(P->out, "\n");
  if (fmt[0] == '}') /* a block closed: the runs declared inside it are out of scope */
    for (int i = P->nfrun; i-- > 0;)
      if (P->frun[i].indent > P->indent) P->frun[i] = P->frun[--P->nfrun];
}

#define F(...) arena_printf(P->a, __VA_ARGS__)

/* An mma layout's warp tile's first row and column, as the body names them. */
static const char *wtile_row(Printer *P, const Layout *l) {
  P->wtile[l->id] |= 1;
  return F("t2c_wr%d", l->id);
}

static const char *wtile_col(Printer *P, const Layout *l) {
  P->wtile[l->id] |= 2;
  return F("t2c_wc%d", l->id);
}

/* t2c_r<id> (axis 0) or t2c_c<id> (axis 1): this thread's first row or column in layout l,
 * as the body names it (Printer.coords). */
static const char *coord(Printer *P, const Layout *l, int axis) {
  P->coords[l->id] |= (unsigned char)(1 << axis);
  return F(axis ? "t2c_c%d" : "t2c_r%d", l->id);
}

static const char *ctype(ElemType t) { return elem_ctypes[t]; }

/* ------------------------------------------------------------ coordinates */

static const Layout *parent_of(const Layout *l) { return l->kind == LY_SLICE ? l->parent : l; }

/* a + k, dropping a zero */
static const char *plus_k(Printer *P, const char *a, int k) { return k ? F("%s + %d", a, k) : a; }

/* x + off + element at's place in its run: At.v, or P->vsym where the run is printed as a loop */
static const char *plus_run(Printer *P, const char *x, int off, At at) {
  int k = off + (P->vsym ? 0 : at.v);
  const char *r = strcmp(x, "0") == 0 ? F("%d", k) : plus_k(P, x, k);
  return !P->vsym ? r : strcmp(r, "0") == 0 ? P->vsym : F("%s + %s", r, P->vsym);
}

/* A layout whose lanes and warps all lie along one dim starts every thread at
 * row (or column) 0 of the other: no per-thread base is printed for it. */
static bool row_base_zero(const Layout *p) { return p->lr == 1 && p->wr == 1; }
static bool col_base_zero(const Layout *p) { return p->lc == 1 && p->wc == 1; }

/* The tile row and column of element at (text). */
static const char *row_of(Printer *P, At at) {
  const Layout *p = parent_of(at.lay);
  if (at.lay->kind == LY_SLICE && at.lay->dim == 0) return "0";
  int k = at.ir * p->lr * (layout_warp_tiles(p) ? 1 : p->wr); /* mma: the warp's rows are contiguous */
  if (P->roll == p) return plus_k(P, P->roll_row, k);
  return row_base_zero(p) ? F("%d", k) : plus_k(P, coord(P, p, 0), k);
}

static const char *col_of(Printer *P, At at) {
  const Layout *p = parent_of(at.lay);
  if (at.lay->kind == LY_SLICE && at.lay->dim == 1) return "0";
  if (P->vsym) { /* the run's first column, then + vsym */
    const char *v = P->vsym, *b;
    P->vsym = NULL;
    b = col_of(P, (At){at.lay, at.ir, at.ic, 0});
    P->vsym = v;
    return strcmp(b, "0") == 0 ? v : F("%s + %s", b, v);
  }
  int step = p->lc * (layout_warp_tiles(p) ? 1 : p->wc) * p->vec, k = at.ic * step + at.v;
  if (P->rollc == p) { /* repeat roll_col of the loop */
    const char *j = F("%s * %d", P->roll_col, step);
    const char *b = col_base_zero(p) ? j : F("%s + %s", coord(P, p, 1), j);
    return plus_k(P, b, at.v);
  }
  return col_base_zero(p) ? F("%d", k) : plus_k(P, coord(P, p, 1), k);
}

/* The coordinates an expression sees: relative to a window being written. */
static const char *shifted(Printer *P, const char *x, const char *by) {
  if (!by || strcmp(by, "0") == 0) return x;
  return F("%s - %s", strchr(x, ' ') ? F("(%s)", x) : x, strchr(by, ' ') ? F("(%s)", by) : by);
}
/* x as an operand: parenthesised when it is a sum or a difference */
static const char *operand(Printer *P, const char *x) { return strchr(x, ' ') ? F("(%s)", x) : x; }
static const char *erow(Printer *P, At at) { return shifted(P, row_of(P, at), P->shift[0]); }
static const char *ecol(Printer *P, At at) { return shifted(P, col_of(P, at), P->shift[1]); }

static bool row_padded(const Layout *l) {
  const Layout *p = parent_of(l);
  return !(l->kind == LY_SLICE && l->dim == 0) && p->rr * p->wr * p->lr != p->rows;
}

static bool col_padded(const Layout *l) {
  const Layout *p = parent_of(l);
  return !(l->kind == LY_SLICE && l->dim == 1) && p->rc * p->wc * p->lc * p->vec != p->cols;
}

/* Whether element at lies inside the tile's rows (columns) in every thread,
 * though the layout has padding: a repeat that ends before the padding starts.
 * In a blocked layout (no mma fragment, no warp tiles, not rolled into a
 * loop) a thread's first row is below lr * wr and its first column below
 * lc * wc * vec (ctx_vars). */
static bool row_always_in(Printer *P, At at) {
  const Layout *p = parent_of(at.lay);
  if (p->mma || p->wtiles || P->roll == p) return false;
  return (at.ir + 1) * p->lr * p->wr <= p->rows;
}

static bool col_always_in(Printer *P, At at) {
  const Layout *p = parent_of(at.lay);
  if (p->mma || p->wtiles || P->rollc == p) return false;
  int v = P->vsym ? p->vec - 1 : at.v; /* a run as a loop: its last element decides */
  return at.ic * p->lc * p->wc * p->vec + (p->lc * p->wc - 1) * p->vec + v < p->cols;
}

/* The condition that element at lies inside the tile's rows (columns): NULL
 * when it always does. */
static const char *row_mask(Printer *P, At at) {
  if (!row_padded(at.lay) || row_always_in(P, at)) return NULL;
  return F("%s < %d", row_of(P, at), parent_of(at.lay)->rows);
}

static const char *col_mask(Printer *P, At at) {
  if (!col_padded(at.lay) || col_always_in(P, at)) return NULL;
  return F("%s < %d", col_of(P, at), parent_of(at.lay)->cols);
}

/* The condition that the element lies inside the tile (NULL: always). */
static const char *tile_mask(Printer *P, At at) {
  const char *r = row_mask(P, at), *c = col_mask(P, at);
  if (r && c) return F("%s && %s", r, c);
  return r ? r : c;
}

/* The register of value v that holds element at of the op's layout. */
static int reg_of(const Layout *v, At at) {
  if (v->kind == LY_SCALAR) return 0;
  /* a thread's own partial of each row (column) it holds (layout_partials), read at an
   * element of the layout it is of (carry.c carry_online: exp(e - ps)): the row's one
   * register (the column's) */
  if (v->partials && at.lay && at.lay != v && at.lay->kind == LY_BLOCKED && v->rc == 1 && v->vec == 1 &&
      v->cols == v->lc * v->wc && at.lay->rr == v->rr && at.lay->lr == v->lr && at.lay->wr == v->wr)
    return at.ir;
  if (v->partials && at.lay && at.lay != v && at.lay->kind == LY_BLOCKED && v->rr == 1 && v->rows == v->lr * v->wr &&
      at.lay->rc == v->rc && at.lay->vec == v->vec && at.lay->lc == v->lc && at.lay->wc == v->wc)
    return at.ic * v->vec + at.v;
  const Layout *p = parent_of(v);
  if (v->kind == LY_SLICE) return v->dim == 1 ? at.ir : at.ic * p->vec + at.v;
  if (p->wg) return (at.ic * p->rr + at.ir) * p->vec + at.v; /* wgmma's D fragment order */
  return (at.ir * p->rc + at.ic) * p->vec + at.v;
}

/* The count over every run of stage ring f's loop, when TMA fills it inside another loop
 * (TirBuf.gbase of its barriers), else NULL. */
static const char *ring_gbase(const TirKernel *K, const TirBuf *f) {
  return f->ring_mbar ? K->bufs[f->ring_mbar - 1].gbase : NULL;
}

/* The first element of the stage or half of buffer bi this turn uses, or NULL (neither). */
static const char *stage_of(Printer *P, int bi) {
  const TirBuf *f = &P->K->bufs[bi];
  /* a TMA ring inside another loop counts its stages over every run in the fast body */
  const char *g = P->fast ? ring_gbase(P->K, f) : NULL, *ctr = g ? g : f->counter;
  if (f->stages && P->ring_at == 2) return NULL;
  if (f->stages && P->ring_at == 1) return F("((%s + 1) %% %d) * %d", ctr, f->stages, (int)tir_buf_elems(f));
  if (f->stages) return F("(%s %% %d) * %d", ctr, f->stages, (int)tir_buf_elems(f)); /* a stage ring */
  return f->alternating ? F("t2c_ph%d * %d", bi, (int)tir_buf_elems(f)) : NULL;
}

/* The same as a prefix of an index: "X + ", or "". */
static const char *half_of(Printer *P, int bi) {
  const char *st = stage_of(P, bi);
  return st ? F("%s + ", st) : "";
}

/* Calls fn for every element a thread holds in layout l, or with step > 1 for every
 * step-th element of each run (v = 0, step, ..: one access of step elements each). */
typedef void (*ElemFn)(Printer *P, const TirOp *op, At at, void *ctx);
static void each_elem(Printer *P, const TirOp *op, const Layout *l, int step, ElemFn fn, void *ctx) {
  if (l->kind == LY_SCALAR) die("an op over the scalar layout (line %d)", op->stmt ? op->stmt->loc.line : 0);
  const Layout *p = parent_of(l);
  int nr = l->kind == LY_SLICE && l->dim == 0 ? 1 : p->rr;
  int nc = l->kind == LY_SLICE && l->dim == 1 ? 1 : p->rc;
  int nv = l->kind == LY_SLICE && l->dim == 1 ? 1 : p->vec;
  if (op->rolled && l == op->lay && l->kind == LY_BLOCKED) { /* the rows a loop, the repeats across unrolled */
    const char *i = F("t2c_i%d", P->ctr++);
    int rstep = p->lr * (layout_warp_tiles(p) ? 1 : p->wr); /* as row_of */
    line(P, "for (int %s = 0; %s < %d; %s++) {", i, i, nr, i);
    P->indent++;
    const char *r = rstep == 1 ? i : F("%s * %d", i, rstep);
    P->roll = p;
    P->roll_row = row_base_zero(p) ? r : F("%s + %s", coord(P, p, 0), r);
    nr = 1;
  }
  int c0 = 0;
  if (op->nend && l == op->lay) c0 = op->nbeg, nc = op->nend; /* a part of a dot's value (layout.c split_dots) */
  for (int ir = 0; ir < nr; ir++)
    for (int ic = c0; ic < nc; ic++)
      for (int v = 0; v < nv; v += step > 1 ? step : 1) fn(P, op, (At){l, ir, ic, v}, ctx);
  if (P->roll) {
    P->roll = NULL;
    P->indent--;
    line(P, "}");
  }
}

/* ------------------------------------------------------------ expressions */

static const char *ex(Printer *P, const Expr *x, ElemType want, const At *at);
static const char *element_read(Printer *P, const Expr *x);
static const char *read_once(Printer *P, ElemType t, const char *v);
static const char *strip(Printer *P, const char *s);
/* s in parentheses when it has an operator at its top */
static const char *paren(Printer *P, const char *s) { return strchr(s, ' ') ? F("(%s)", s) : s; }
/* X + lin, the address of a tensor's element: lin in parentheses when it
 * subtracts, so that no pointer before X's first element is formed on the way */
static const char *elem_ptr(Printer *P, const Sym *X, const char *lin) {
  return F("%s + %s", X->cname, strstr(lin, " - ") ? F("(%s)", lin) : lin);
}

static const char *ctx_str(Printer *P, CtxField f) {
  static const char *const axis[] = {"x", "y", "z"};
  switch (f) {
  case CTX_THREAD: return "tid";
  case CTX_THREADS: return F("%d", P->K->ki->threads);
  case CTX_LANE: return "lane";
  case CTX_LANES: return F("%d", P->K->t->lanes);
  case CTX_WARP: return "warp";
  case CTX_WARPS: return F("%d", P->K->ki->threads / P->K->t->lanes);
  case CTX_BLOCK_X: case CTX_BLOCK_Y: case CTX_BLOCK_Z: return F("(int)blockIdx.%s", axis[f - CTX_BLOCK_X]);
  case CTX_BLOCKS_X: case CTX_BLOCKS_Y: case CTX_BLOCKS_Z: return F("(int)gridDim.%s", axis[f - CTX_BLOCKS_X]);
  }
  unreachable();
}

static ElemType operand_type(const Expr *a, const Expr *b, ElemType want) {
  if (!a->ty.untyped) return a->ty.elem;
  if (!b->ty.untyped) return b->ty.elem;
  if (want != T_NONE && want != T_BOOL) return want;
  return (a->ty.elem == T_F32 || b->ty.elem == T_F32) ? T_F32 : T_I32;
}


static const char *elem_idx(Printer *P, const TirBuf *f, const char *r, const char *c);

/* Element at of value v, which lives in its shared copy (TirVar.home), as an lvalue. */
static const char *home_ref(Printer *P, const TirVar *v, At at) {
  const TirBuf *f = &P->K->bufs[v->home - 1];
  at.lay = v->layout;
  return F("%s[%s%s]", f->cname, half_of(P, v->home - 1), elem_idx(P, f, row_of(P, at), col_of(P, at)));
}

/* Element at of value v as an lvalue: its register, or its place in its shared home. */
static const char *elem_ref(Printer *P, const TirVar *v, At at) {
  if (v->packed) { /* a part of a word (pipeline.c) */
    int per = 4 / elem_bytes[v->elem], r = reg_of(v->layout, at);
    return F("t2c::part_ref<%s>(%s[%d], %d)", ctype(v->elem), v->cname, r / per, r % per);
  }
  return v->home ? home_ref(P, v, at) : F("%s[%d]", v->cname, reg_of(v->layout, at));
}

static void tensor_index(Printer *P, const TirOp *op, At at, const char **lin, const char **cond);
static void tensor_index_rc(Printer *P, const TirOp *op, At at, const char *row, const char *col, const char **lin,
                            const char **cond);
static int access_vec(const Printer *P, const TirOp *op);

/* A run of n elements of type e outside the tensor: the load's pad value in each, or
 * zeros (a value-initialised Vec) where it has none. */
static const char *pad_run(Printer *P, ElemType e, int n, const Expr *pad) {
  if (!pad) return F("t2c::Vec<%s, %d>{}", ctype(e), n);
  const char *v = ex(P, pad, e, NULL);
  Buf b = {0};
  for (int k = 0; k < n; k++) buf_printf(&b, "%s%s", k ? ", " : "", v);
  const char *r = F("t2c::Vec<%s, %d>{{%s}}", ctype(e), n, b.data);
  buf_free(&b);
  return r;
}

static const char *win_mask(Printer *P, const TirOp *op, At at, const char **a, const char **b);

/* Whether window write w's columns start and end at multiples of n, and layout l (a
 * plain blocked one) moves runs of a multiple of n: then each n-run of l lies wholly
 * inside the window's columns or wholly outside. */
static bool win_whole_runs(const TirOp *w, const Layout *l, int n) {
  const Layout *p = parent_of(l);
  int64_t b = 0;
  return l->kind == LY_BLOCKED && !p->mma && !p->wg && n > 1 && p->vec % n == 0 && w->win_len[1] % n == 0 &&
         (!w->win[1] || (check_const_int(w->win[1], &b) && b % n == 0));
}

/* The linear index and bounds test of fused load l (TirVar.win_of) at the window's
 * coordinates of element at of the window write; masked: the tile's padding test is
 * the caller's (the window's test has it). */
static void win_index(Printer *P, const TirOp *l, At at, bool masked, const char **lin, const char **cond) {
  bool was = P->masked;
  P->masked = masked;
  tensor_index_rc(P, l, at, erow(P, at), ecol(P, at), lin, cond);
  P->masked = was;
}

/* A never-held load's run of elements (TirVar.fused) that holds element at, read in
 * one access (a Vec local declared before the line being printed, once per run in an
 * op), where the load moves runs (its TirOp.vec in the fast body): its reader (a
 * vector-matrix dot's K^T, 128 f16 a thread) took one 2-byte load an element. A run
 * is all inside or all outside its tensor (the fast body's test), so the first
 * element's test holds for the run; in a reduction whose column repeats are a loop
 * (TirOp.rolled_cols) the loop's body declares it. NULL: element by element (a run
 * at a rank-1 tensor's end, vtail; an op whose rows are a loop's, or a run printed as
 * a loop). */
static const char *fused_run(Printer *P, const TirVar *v, const At *at) {
  const TirOp *l = v->fused;
  int n = access_vec(P, l);
  if (n < 2 || l->vtail || P->roll || P->vsym || (v->win_of && !win_whole_runs(v->win_of, at->lay, n))) return NULL;
  int v0 = at->v - at->v % n;
  for (int i = 0; i < P->nfrun; i++) {
    const struct FusedRun *r = &P->frun[i];
    if (r->v == v && r->ir == at->ir && r->ic == at->ic && r->v0 == v0 && r->indent <= P->indent) return r->name;
  }
  if (P->nfrun == (int)(sizeof P->frun / sizeof P->frun[0])) return NULL;
  const Sym *X = l->slice->u.index.base->u.ident.sym;
  const char *lin, *cond, *t = ctype(X->ty.elem), *w = F("t2c_fw%d", P->ctr++);
  if (v->win_of) { /* at the window's coordinates, and only where the run is inside the window */
    At e = *at;
    e.v = v0;
    const char *a, *b, *m = win_mask(P, v->win_of, e, &a, &b);
    win_index(P, l, e, m != NULL, &lin, &cond);
    cond = m && cond ? F("%s && %s", m, cond) : m ? m : cond;
  } else
    tensor_index(P, l, (At){v->layout, at->ir, at->ic, v0}, &lin, &cond);
  const char *load = F("t2c::ldg_vec<%d>(%s)", n, elem_ptr(P, X, lin));
  if (cond) load = F("%s ? %s : %s", paren(P, cond), load, pad_run(P, X->ty.elem, n, l->pad));
  line(P, "const t2c::Vec<%s, %d> %s = %s;", t, n, w, load);
  P->frun[P->nfrun++] = (struct FusedRun){v, at->ir, at->ic, v0, P->indent, w};
  return w;
}

/* Element at of value v: a register, its shared home (a padding position reads
 * 0), or for a load that is never held the tensor's element. */
static const char *value_at(Printer *P, const TirVar *v, const At *at) {
  if (v->layout->kind == LY_SCALAR || (layout_everywhere(v->layout) && !v->home && !v->fused)) return F("%s[0]", v->cname);
  if (!at) die("a tile value in a scalar expression");
  if (v->fused) { /* the tensor's element, or the load's pad outside it */
    const TirOp *l = v->fused;
    const char *w = fused_run(P, v, at);
    if (w) return F("%s.v[%d]", w, at->v % access_vec(P, l));
    const Sym *X = l->slice->u.index.base->u.ident.sym;
    const char *lin, *cond;
    if (v->win_of) /* at the window's coordinates of the write's element (under its test, which has the tile's) */
      win_index(P, l, *at, true, &lin, &cond);
    else
      tensor_index(P, l, (At){v->layout, at->ir, at->ic, at->v}, &lin, &cond);
    const char *pad = l->pad ? ex(P, l->pad, X->ty.elem, NULL) : emit_literal(P->a, X->ty.elem, false, 0, 0);
    const char *x = F("%s[%s]", X->cname, lin);
    return cond ? F("(%s ? %s : %s)", cond, x, pad) : x;
  }
  if (v->packed) {
    int per = 4 / elem_bytes[v->elem], r = reg_of(v->layout, *at);
    return F("t2c::part<%s>(%s[%d], %d)", ctype(v->elem), v->cname, r / per, r % per);
  }
  const char *m = v->home ? tile_mask(P, (At){v->layout, at->ir, at->ic, at->v}) : NULL;
  const char *r = elem_ref(P, v, *at);
  return m ? F("(%s ? %s : %s)", m, r, emit_literal(P->a, v->elem, false, 0, 0)) : r;
}

/* Element at of op's dst as the lvalue it writes, and the condition of the
 * write (a padding position of a shared home writes nothing), or NULL. */
static const char *dst_at(Printer *P, const TirOp *op, At at, const char **mask) {
  const TirVar *v = op->dst;
  *mask = v->home ? tile_mask(P, (At){v->layout, at.ir, at.ic, at.v}) : NULL;
  return elem_ref(P, v, at);
}

static void guarded_line(Printer *P, const char *m, const char *st) {
  if (m) line(P, "if (%s) %s", m, st);
  else line(P, "%s", st);
}

/* The element of a copy that a read of it reads at element at of the op, as an lvalue. */
static const char *shared_ref(Printer *P, const Expr *x, const TirRead *rd, const At *at);

/* A read of a shared copy at element at of the op (at NULL: one element). A
 * unit dim of what is read broadcasts: its index is 0. */
static const char *shared_read(Printer *P, const Expr *x, const TirRead *rd, const At *at) {
  const TirBuf *f = &P->K->bufs[rd->buf];
  for (int i = 0; at && rd->vec > 1 && i < P->nruns; i++) { /* its run, loaded at the run's first element */
    const struct RunLoad *r = &P->runs[i];
    if (r->x == x && r->at.lay == at->lay && r->at.ir == at->ir && r->at.ic == at->ic && at->v >= r->at.v &&
        at->v < r->at.v + r->n)
      return F("%s.v[%d]", r->name, at->v - r->at.v);
  }
  const char *v = shared_ref(P, x, rd, at);
  /* a padding position of the op's layout reads nothing */
  const char *m = at ? tile_mask(P, *at) : NULL;
  return m ? F("(%s ? %s : %s)", m, v, emit_literal(P->a, f->elem, false, 0, 0)) : v;
}

static const char *shared_ref(Printer *P, const Expr *x, const TirRead *rd, const At *at) {
  const TirBuf *f = &P->K->bufs[rd->buf];
  int rows = x->ty.rank == 2 ? x->ty.dims[0] : 1, cols = x->ty.rank == 2 ? x->ty.dims[1] : x->ty.rank ? x->ty.dims[0] : 1;
  const char *r = at && rows > 1 ? erow(P, *at) : "0", *c = at && cols > 1 ? ecol(P, *at) : "0";
  const char *i, *j;
  if (rd->kind == TR_TRANSPOSE) {
    i = c;
    j = r;
  } else if (rd->kind == TR_RESHAPE) { /* the element's place in row-major order, in the source's shape */
    const char *flat = strcmp(r, "0") == 0 ? c
                       : cols == 1         ? r
                       : strcmp(c, "0") == 0 ? F("%s * %d", paren(P, r), cols)
                                           : F("%s * %d + %s", paren(P, r), cols, paren(P, c));
    /* a source of one row (reshape(idx, [64, 1]) of a [64]): the place is the column */
    bool one_row = rows * cols <= rd->src_cols;
    i = rd->src_cols == 1 ? flat : one_row ? "0" : F("%s / %d", paren(P, flat), rd->src_cols);
    j = rd->src_cols == 1 ? "0" : one_row ? flat : F("%s %% %d", paren(P, flat), rd->src_cols);
  } else {
    /* the read's kept dims take the op's coordinates in order: two kept dims are
     * (row, col); one kept dim is a rank-1 [n], as [1, n]: its col, or a line of the
     * tile read as a column [n, 1] (lower.c hoist_line_reshape): its row */
    const char *coord[2] = {rd->keep[0] && rd->keep[1] ? r : rows > 1 ? r : c, c};
    const char *ix[2] = {"0", "0"};
    for (int d = 0, k = 0; d < rd->rank; d++) {
      const char *st = rd->start[d] ? strip(P, ex(P, rd->start[d], T_I32, NULL)) : "0";
      const char *o = rd->keep[d] ? coord[k++] : "0";
      ix[d] = strcmp(o, "0") == 0 ? st : strcmp(st, "0") == 0 ? o : F("(%s) + %s", st, o);
    }
    i = rd->rank == 2 ? ix[0] : "0";
    j = rd->rank == 2 ? ix[1] : ix[0];
  }
  const char *pi = strchr(i, ' ') ? F("(%s)", i) : i, *pj = strchr(j, ' ') ? F("(%s)", j) : j;
  const char *h = half_of(P, rd->buf);
  return strcmp(i, "0") == 0 ? F("%s[%s%s]", f->cname, h, j) : F("%s[%s%s * %d + %s]", f->cname, h, pi, f->pitch, pj);
}

static const char *ex_ident(Printer *P, const Expr *x, ElemType want, const At *at) {
  const Sym *y = x->u.ident.sym;
  if (y == P->subst) return P->subst_text;
  if (y->ty.rank == 0) return y->cname;
  for (int i = 0; i < P->K->vars.len; i++) {
    const TirVar *v = P->K->vars.items[i];
    if (v->sym == y) return value_at(P, v, at);
  }
  unreachable();
}

/* Whether an integer divisor is a constant other than 0 and -1: a plain / or %
   cannot trap on it (the rest go through t2c::idiv and t2c::imod, which the CPU
   backend checks). */
static bool safe_divisor(const Expr *d) {
  if (!(d->flags & EF_CONST) || d->cv.isf) return false;
  return d->cv.i != 0 && d->cv.i != -1;
}

/* f32(x) at element at, where x is an 8-bit value read as part of a packed word: its own
 * (TirVar.packed) or, after a rotated copy's take, its slot's (TirOp.mirror): t2c::part_f32
 * of the word (rt.cuh), or NULL. */
static const char *packed_f32(Printer *P, const Expr *x, const At *at) {
  if (!at || (x->ty.elem != T_I8 && x->ty.elem != T_U8)) return NULL;
  const TirVar *v = tir_hoisted(P->K, x);
  if (!v && x->kind == E_IDENT && x->ty.rank) v = tir_var_of(P->K, x->u.ident.sym);
  if (!v || tir_read(P->K, x)) return NULL;
  for (int i = 0; i < P->nmirror; i++)
    if (P->mv[i] == v) v = P->ms[i];
  if (!v->packed || v->fused || v->home || v->elem != x->ty.elem || v->layout->kind == LY_SCALAR ||
      layout_everywhere(v->layout))
    return NULL;
  int r = reg_of(v->layout, *at);
  return F("t2c::part_f32<%s>(%s[%d], %d)", ctype(v->elem), v->cname, r / 4, r % 4);
}

static const char *ex_call(Printer *P, const Expr *x, ElemType want, const At *at) {
  Expr **args = x->u.call.args;
  const char *pf = x->u.call.cast == T_F32 ? packed_f32(P, args[0], at) : NULL;
  if (pf) return pf;
  if (x->u.call.cast != T_NONE) {
    /* the literals of an f8 cast's operand take f32, not the cast's type: f8
       values are storage, with no arithmetic of their own (f8e5m2(min(-0.875, -1.5))) */
    if (elem_is_f8(x->u.call.cast) && !elem_is_f8(args[0]->ty.elem))
      return F("t2c::cvt<%s>(%s)", ctype(x->u.call.cast), ex(P, args[0], T_F32, at));
    const char *v = ex(P, args[0], x->u.call.cast, at);
    if (args[0]->ty.untyped || args[0]->ty.elem == x->u.call.cast) return v;
    return F("t2c::cvt<%s>(%s)", ctype(x->u.call.cast), v);
  }
  BuiltinKind b = (BuiltinKind)x->u.call.builtin;
  switch (builtin_class[b]) {
  case BC_MATH1: return F("t2c::%s(%s)", builtin_names[b], ex(P, args[0], x->ty.elem, at));
  case BC_MATH2: {
    ElemType t = operand_type(args[0], args[1], want);
    return F("t2c::%s(%s, %s)", builtin_names[b], ex(P, args[0], t, at), ex(P, args[1], t, at));
  }
  case BC_RANDOM: /* an untyped literal seed is an i64; an i32 offset is one counter
                     word, converted explicitly (a negative literal is no unsigned) */
    return F(args[1]->ty.elem == T_U32 ? "t2c::%s(%s, %s)" : "t2c::%s(%s, (unsigned)(%s))", builtin_names[b],
             ex(P, args[0], args[0]->ty.untyped ? T_I64 : args[0]->ty.elem, at), ex(P, args[1], args[1]->ty.elem, at));
  default: break;
  }
  switch (b) {
  case B_WHERE: {
    ElemType t = operand_type(args[1], args[2], want != T_NONE ? want : x->ty.elem);
    for (int i = 0; P->uop && i < P->uop->nuwhere; i++) /* under its op's guard (uniform.c) */
      if (P->uop->uwhere[i] == x) return ex(P, args[1], t, at);
    return F("(%s ? %s : %s)", ex(P, args[0], T_BOOL, at), ex(P, args[1], t, at), ex(P, args[2], t, at));
  }
  case B_CDIV: {
    const char *p = ex(P, args[0], T_I32, at), *q = ex(P, args[1], T_I32, at);
    if (!safe_divisor(args[1])) return F("t2c::idiv<int>(%s + %s - 1, %s)", p, q, q);
    return F("((%s + %s - 1) / %s)", p, q, q);
  }
  /* broadcast along a unit dim: the index there is 0; a coordinate plus an
     offset is parenthesised, as an operand of any operator */
  case B_ROWS: return x->ty.dims[0] == 1 ? "0" : operand(P, erow(P, *at));
  case B_COLS: return x->ty.dims[1] == 1 ? "0" : operand(P, ecol(P, *at));
  default: unreachable(); /* lower.c hoisted the rest */
  }
}

/* The value of an operation on 8-bit integers, v, back in its type: C++ computes it in
   int (b - 200 of a u8 b is -190 there, 66 as a u8), and a fused use (a comparison, a
   division, a reduction) must see what a materialized tile holds. */
static const char *narrow(Printer *P, ElemType t, const char *v) {
  if (t != T_I8 && t != T_U8) return v;
  return F("((%s)%s)", ctype(t), v);
}

/* The declaration's value of scalar var y, set nowhere else (var hw = H * W), or NULL. */
static const Expr *fixed_var_init(const Sym *y) {
  return y && y->kind == SY_VAR && !y->ty.rank && !y->reassigned && y->decl && y->decl->kind == S_VAR ? y->decl->u.decl.init
                                                                                                     : NULL;
}

/* Whether scalar x is the same for the whole kernel and can be computed at its top: sizes,
 * scalar parameters and consts, vars set once from them, and +, - and * of them. */
static bool kernel_fixed(const Expr *x) {
  if (x->ty.rank) return false;
  if (x->flags & EF_CONST) return true;
  switch (x->kind) {
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    const Expr *init = fixed_var_init(y);
    if (init) return kernel_fixed(init); /* a var of such: its value written out where the divisor is made */
    return y && (y->kind == SY_SIZE || y->kind == SY_SCALAR || y->kind == SY_CONST);
  }
  case E_BINARY:
    return (x->u.binary.op == TK_PLUS || x->u.binary.op == TK_MINUS || x->u.binary.op == TK_STAR) &&
           kernel_fixed(x->u.binary.a) && kernel_fixed(x->u.binary.b);
  default: return false;
  }
}

/* kernel_fixed x with each var replaced by its declaration's value: printable at the top of
 * the kernel's body, before the vars are declared. */
static const Expr *fixed_expr(Printer *P, const Expr *x) {
  const Expr *init = x->kind == E_IDENT ? fixed_var_init(x->u.ident.sym) : NULL;
  if (init) return fixed_expr(P, init);
  if (x->kind != E_BINARY || (x->flags & EF_CONST)) return x;
  const Expr *a = fixed_expr(P, x->u.binary.a), *b = fixed_expr(P, x->u.binary.b);
  if (a == x->u.binary.a && b == x->u.binary.b) return x;
  Expr *c = NEW(P->a, Expr);
  *c = *x;
  c->u.binary.a = (Expr *)a;
  c->u.binary.b = (Expr *)b;
  return c;
}

/* The t2c::FastDiv (rt.cuh) by divisor q, the kernel's i-th (declared by body_text), or NULL
 * past 8 divisors. */
static const char *fastdiv_of(Printer *P, const char *q) {
  for (int i = 0; i < P->ndiv; i++)
    if (strcmp(P->divs[i], q) == 0) return F("t2c_dv%d", i);
  if (P->ndiv == 8) return NULL;
  P->divs[P->ndiv] = q;
  return F("t2c_dv%d", P->ndiv++);
}

/* The loop-local scalar whose inlined value x is (TirKernel.ikeys), or NULL. */
static const Sym *inlined_scalar(const TirKernel *K, const Expr *x) {
  for (int i = 0; i < K->ikeys.len; i++)
    if (K->ikeys.items[i] == x) return K->ivals.items[i];
  return NULL;
}

/* x at element at of the op's layout (at NULL: a scalar expression). */
static const char *ex(Printer *P, const Expr *x, ElemType want, const At *at) {
  if (P->nnamed) {
    const Sym *y = inlined_scalar(P->K, x);
    for (int i = 0; y && y != P->defining && i < P->nnamed; i++)
      if (P->nsym[i] == y) return P->nname[i];
  }
  const TirRead *rd = tir_read(P->K, x);
  if (rd) return shared_read(P, x, rd, at);
  TirVar *h = tir_hoisted(P->K, x);
  if (h && h->elem != x->ty.elem) /* a sum() of f16, bf16, f8, i8, u8 accumulated in the wider type */
    return F("t2c::cvt<%s>(%s)", ctype(x->ty.elem), value_at(P, h, at));
  if (h) return value_at(P, h, at);
  if ((x->flags & EF_CONST) && x->kind != E_CALL) {
    ElemType t = x->ty.untyped && want != T_NONE && want != T_BOOL ? want : x->ty.elem;
    return emit_literal(P->a, t, x->cv.isf, x->cv.i, x->cv.f);
  }
  /* an untyped integer expression that is not a constant works as an i32 */
  if (x->ty.untyped && elem_is_int(x->ty.elem) && want != T_NONE && elem_is_float(want) &&
      ((x->kind == E_BINARY && (x->u.binary.op == TK_SLASH || x->u.binary.op == TK_PERCENT ||
                                x->u.binary.op == TK_SHL || x->u.binary.op == TK_SHR || x->u.binary.op == TK_AND ||
                                x->u.binary.op == TK_OR || x->u.binary.op == TK_XOR)) ||
       (x->kind == E_UNARY && x->u.unary.op == TK_TILDE)))
    return F("t2c::cvt<%s>(%s)", ctype(want), ex(P, x, x->ty.elem, at));
  switch (x->kind) {
  case E_INT: return emit_literal(P->a, want != T_NONE ? want : T_I32, false, x->u.ival, 0);
  case E_FLOAT: return emit_literal(P->a, want != T_NONE ? want : T_F32, true, 0, x->u.fval);
  case E_BOOL: return x->u.ival ? "true" : "false";
  case E_INF: return emit_literal(P->a, want != T_NONE ? want : T_F32, true, 0, INFINITY);
  case E_CTX: return ctx_str(P, x->u.ctx);
  case E_IDENT: return ex_ident(P, x, want, at);
  case E_UNARY: {
    ElemType t = x->ty.untyped ? want : x->ty.elem;
    const char *v = ex(P, x->u.unary.a, t, at);
    const char *op = x->u.unary.op == TK_MINUS ? "-" : x->u.unary.op == TK_NOT ? "!" : "~";
    return narrow(P, t, F(v[0] == '-' ? "(%s(%s))" : "(%s%s)", op, v));
  }
  case E_BINARY: {
    const Expr *a = x->u.binary.a, *b = x->u.binary.b;
    ElemType t = operand_type(a, b, x->ty.elem == T_BOOL ? T_NONE : want != T_NONE ? want : x->ty.elem);
    if (x->u.binary.op == TK_OROR || x->u.binary.op == TK_ANDAND) t = T_BOOL;
    /* scalar + (scalar + tile) of 32- or 64-bit integers: (scalar + scalar) + tile, the scalars
     * added once (a var r = q0 + rows(..) read in qs + r, where a staged store computes it
     * again, then prints as qs + q0 + rows(..) written in place does) */
    if (x->u.binary.op == TK_PLUS && (t == T_I32 || t == T_I64) && a->ty.rank == 0 && b->kind == E_BINARY &&
        b->u.binary.op == TK_PLUS && b->ty.elem == t && b->u.binary.a->ty.rank == 0 && b->u.binary.b->ty.rank > 0) {
      const char *s = narrow(P, t, F("(%s + %s)", ex(P, a, t, at), ex(P, b->u.binary.a, t, at)));
      return narrow(P, t, F("(%s + %s)", s, ex(P, b->u.binary.b, t, at)));
    }
    const char *p = ex(P, a, t, at), *q = ex(P, b, t, at);
    if (x->ty.elem == T_BOOL) return F("(%s %s %s)", p, op_text(x->u.binary.op), q);
    /* a non-negative i32 by a positive constant: unsigned, a shift or a mask for a power of
     * two (signed / and % take a fix-up for negative dividends: kk / 16 and kk % 16 of kk =
     * k0 + rows(64, 1), a paged cache's page and row). A cast, not >> or &, which bind less
     * tightly than the + an index adds it to. */
    int64_t c;
    if ((x->u.binary.op == TK_SLASH || x->u.binary.op == TK_PERCENT) && t == T_I32 && check_const_int(b, &c) &&
        c > 1 && c < ((int64_t)1 << 30) && facts_nonneg(a))
      return F("(int)((unsigned)%s %s %" PRId64 "u)", paren(P, strip(P, p)), op_text(x->u.binary.op), c);
    /* in a loop, or at each of 4 or more elements a thread, a non-negative i32 by a divisor the
     * kernel fixes (sizes): t2c::FastDiv, made once */
    if ((x->u.binary.op == TK_SLASH || x->u.binary.op == TK_PERCENT) && t == T_I32 &&
        (P->inloop || (at && at->lay && layout_count(at->lay) >= 4)) &&
        !(b->flags & EF_CONST) && kernel_fixed(b) && facts_nonneg(a) && facts_nonneg(b)) {
      const char *d = fastdiv_of(P, strip(P, ex(P, fixed_expr(P, b), t, NULL)));
      if (d) return F("%s.%s(%s)", d, x->u.binary.op == TK_SLASH ? "div" : "mod", strip(P, p));
    }
    /* (the templates return their T: nothing to narrow) */
    if ((x->u.binary.op == TK_SLASH || x->u.binary.op == TK_PERCENT) && elem_is_int(t) && !safe_divisor(b))
      return F("t2c::%s<%s>(%s, %s)", x->u.binary.op == TK_SLASH ? "idiv" : "imod", ctype(t), p, q);
    if ((x->u.binary.op == TK_SHL || x->u.binary.op == TK_SHR) && !(b->flags & EF_CONST)) /* checked on the CPU backend */
      return F("t2c::%s<%s>(%s, %s)", x->u.binary.op == TK_SHL ? "shlv" : "shrv", ctype(t), p, q);
    if (x->u.binary.op == TK_SHL && (t == T_I8 || t == T_I32 || t == T_I64)) return narrow(P, t, F("t2c::shl(%s, %s)", p, q));
    return narrow(P, t, F("(%s %s %s)", p, op_text(x->u.binary.op), q));
  }
  case E_CALL: return ex_call(P, x, want, at);
  case E_INDEX: return element_read(P, x);
  default: unreachable();
  }
}

static const char *strip(Printer *P, const char *s) {
  size_t n = strlen(s);
  if (n < 2 || s[0] != '(' || s[n - 1] != ')') return s;
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < n) return s;
  }
  return arena_strndup(P->a, s + 1, n - 2);
}

/* ------------------------------------------------------------ tensor accesses */

/* The linear index of the op's slice at element at, and its bounds condition (NULL: none). */
static const char *dim_text(Printer *P, const Sym *X, int d) {
  return X->tdim_size[d] ? X->tdim_size[d]->cname : F("%" PRId64, X->tdim_const[d]);
}

/* The bounds test of index p on dim d of X that the layout stage kept (chk: TirChk), or
 * NULL. An index of a 64-bit type (ix: its start) is tested in 64 bits: i64 index
 * data (PyTorch's positions) past 2^32 are out of bounds, not their low 32 bits. */
static const char *bound(Printer *P, const Sym *X, int d, const char *p, uint8_t chk, const Expr *ix) {
  const char *D = dim_text(P, X, d);
  if (chk == 3 && ix->ty.elem == T_I64) return F("(unsigned long long)(%s) < (unsigned long long)%s", p, D);
  if (chk == 3) return F("(unsigned)(%s) < (unsigned)%s", p, D);
  if (chk == 1) return F("%s >= 0", paren(P, p));
  if (chk == 2) return F("%s < %s", paren(P, p), D);
  return NULL;
}

static const char *and_then(Printer *P, const char *a, const char *b) { return a && b ? F("%s && %s", a, b) : a ? a : b; }

/* The offset of a @strided X at the dims' index texts p[]: sum of p[d] * X_strided, in 64 bits. */
static const char *strided_linear(Printer *P, const Sym *X, const char *const *p) {
  const char *idx = NULL;
  /* the fast body runs only when X's innermost stride is 1, if the layout stage tested it */
  bool unit = false;
  for (int i = 0; P->fast && i < P->K->nchecks; i++)
    unit |= P->K->checks[i].size == X->tstride[X->trank - 1] && P->K->checks[i].mod == 0;
  for (int d = 0; d < X->trank; d++) {
    if (strcmp(p[d], "0") == 0) continue;
    const char *pp = strchr(p[d], ' ') ? F("(%s)", p[d]) : p[d];
    const char *t = unit && d == X->trank - 1 ? pp
                    : strcmp(pp, "1") == 0 ? X->tstride[d]->cname
                                           : F("(long long)%s * %s", pp, X->tstride[d]->cname);
    idx = idx ? F("%s + %s", idx, t) : t;
  }
  return idx ? idx : "0";
}

/* The linear index of X at the dims' index texts p[], row-major (or by its
 * strides); wide: in 64 bits. */
static const char *linear(Printer *P, const Sym *X, const char *const *p) {
  if (X->tstride[0]) return strided_linear(P, X, p);
  /* in 32 bits only when no offset can pass INT_MAX: a size (up to INT_MAX) with no other
   * dim but 1s ([N], [M, 1]), or constant dims of at most 2^31 elements; [M, 65536] passes
   * it from M = 32768 */
  int nsize = 0;
  int64_t consts = 1;
  for (int d = 0; d < X->trank; d++) {
    nsize += X->tdim_size[d] != NULL;
    if (!X->tdim_size[d] && consts <= INT32_MAX) consts *= X->tdim_const[d];
  }
  bool wide = nsize >= 2 || (nsize == 1 && consts > 1) || consts > (int64_t)INT32_MAX + 1;
  const char *idx = NULL;
  for (int d = 0; d < X->trank; d++) {
    const char *D = dim_text(P, X, d);
    const char *pp = strchr(p[d], ' ') ? F("(%s)", p[d]) : p[d];
    if (!idx) idx = wide && strcmp(p[d], "0") != 0 ? F("(long long)%s", pp) : p[d];
    else if (strcmp(D, "1") == 0) idx = strcmp(p[d], "0") == 0 ? idx : F("%s + %s", idx, pp);
    else if (strcmp(idx, "0") == 0) idx = p[d];
    else idx = F("%s * %s + %s", strchr(idx, ' ') ? F("(%s)", idx) : idx, D, pp);
  }
  return idx ? idx : "0";
}

/* The linear index of the op's slice at element at, and its bounds condition (NULL: none). */
static void tensor_index(Printer *P, const TirOp *op, At at, const char **lin, const char **cond) {
  tensor_index_rc(P, op, at, row_of(P, at), col_of(P, at), lin, cond);
}

/* The same at the element of the op's slice at (row, col), at being the element of the
 * layout being printed (its padding test, a gather's index values). */
static void tensor_index_rc(Printer *P, const TirOp *op, At at, const char *row, const char *col, const char **lin,
                            const char **cond) {
  const Expr *s = op->slice;
  const Sym *X = s->u.index.base->u.ident.sym;
  int nkept = 0;
  for (int d = 0; d < X->trank; d++) nkept += s->u.index.idx[d].len != NULL;
  /* the op's coordinates, in the order of the slice's kept dims */
  const char *coord[2];
  if (nkept == 2) coord[0] = row, coord[1] = col;
  else coord[0] = op->cols == 1 ? row : col;
  const char *p[4] = {"0", "0", "0", "0"}, *cnd = P->masked ? NULL : tile_mask(P, at);
  for (int d = 0, k = 0; d < X->trank; d++) {
    const Index *ix = &s->u.index.idx[d];
    /* a gather's tile index is read at the element, as any value of the op */
    const char *st = strip(P, ex(P, ix->start, T_I32, ix->start->ty.rank ? &at : NULL));
    p[d] = st;
    if (ix->len) {
      const char *c = coord[k++];
      p[d] = strcmp(st, "0") == 0 ? c : strcmp(c, "0") == 0 ? st : F("%s + %s", st, c);
    }
    cnd = and_then(P, cnd, bound(P, X, d, p[d], op->chk[d], ix->start));
  }
  *lin = linear(P, X, p);
  *cond = cnd;
}

/* Element read v of type t in an op that reads each once (Printer.once): the local that
 * holds it, declared at the op's start the first time (the same text is the same value:
 * no scalar changes inside an op); v itself elsewhere, or past the locals' room. */
static const char *read_once(Printer *P, ElemType t, const char *v) {
  Once *o = P->once;
  if (!o) return v;
  for (int i = 0; i < o->n; i++)
    if (strcmp(o->text[i], v) == 0) return o->name[i];
  if (o->n == (int)(sizeof o->text / sizeof o->text[0])) return v;
  const char *name = F("t2c_e%d", P->ectr++);
  Buf d = {0};
  for (int i = 0; i < o->indent; i++) buf_puts(&d, "  ");
  buf_printf(&d, "const %s %s = %s;\n", ctype(t), name, strip(P, v));
  Buf *b = P->out;
  size_t tail = b->len - o->at;
  buf_putn(b, d.data, d.len); /* room at the end, then the op's text so far moves past it */
  memmove(b->data + o->at + d.len, b->data + o->at, tail);
  memcpy(b->data + o->at, d.data, d.len);
  o->at += d.len;
  buf_free(&d);
  o->text[o->n] = v;
  o->name[o->n++] = name;
  return name;
}

/* X[i, j] in a scalar expression: the element, or 0 outside the tensor. */
static const char *element_read(Printer *P, const Expr *x) {
  const Sym *X = x->u.index.base->u.ident.sym;
  int k = 0;
  while (k < P->K->elems.len && P->K->elems.items[k] != x) k++;
  if (k == P->K->elems.len) die("an element read lower.c did not see");
  const char *p[4] = {"0", "0", "0", "0"}, *cnd = NULL;
  for (int d = 0; d < X->trank; d++) {
    p[d] = strip(P, ex(P, x->u.index.idx[d].start, T_I32, NULL));
    cnd = and_then(P, cnd, bound(P, X, d, p[d], P->K->elem_chk[k][d], x->u.index.idx[d].start));
  }
  const char *v = F("%s[%s]", X->cname, linear(P, X, p));
  v = cnd ? F("(%s ? %s : %s)", cnd, v, emit_literal(P->a, X->ty.elem, false, 0, 0)) : v;
  return read_once(P, X->ty.elem, v);
}

static int access_vec(const Printer *P, const TirOp *op) { return P->fast ? op->vec : 1; }

/* A run of a rank-1 tensor that may reach past its end (TirOp.vtail): whether all of it
 * is inside (its first and last elements are), or NULL where no check is kept. */
static const char *run_inside(Printer *P, const TirOp *op, At at, int n) {
  const char *lin, *c0, *c1;
  tensor_index(P, op, at, &lin, &c0);
  at.v += n - 1;
  tensor_index(P, op, at, &lin, &c1);
  return c0 && c1 ? F("%s && %s", c0, c1) : c0 ? c0 : c1;
}

typedef void (*RunFn)(Printer *P, const TirOp *op, At at, int n);

/* A vtail op's run: in one access when all of it is inside (fn with -n: no test), else
 * element by element; false where no test is kept (the caller prints the run as it is). */
static bool tail_run(Printer *P, const TirOp *op, At at, int n, RunFn fn) {
  const char *full = n > 1 && op->vtail ? run_inside(P, op, at, n) : NULL;
  if (!full) return false;
  line(P, "if (%s) {  // the whole run is inside", full);
  P->indent++;
  fn(P, op, at, -n);
  P->indent--;
  line(P, "} else {");
  P->indent++;
  for (int k = 0; k < n; k++) {
    At e = at;
    e.v = at.v + k;
    fn(P, op, e, 1);
  }
  P->indent--;
  line(P, "}");
  return true;
}

static void load_at(Printer *P, const TirOp *op, At at, int n);

/* Where a load's run of n elements from at goes in one shared store, its value
 * living in its shared home (TirVar.home), or NULL (element by element): the run
 * must stay contiguous and aligned there. In a plain copy the pitch keeps it so
 * when n divides it; in core matrices a run up to a core matrix's row of 8; in a
 * swizzled copy one up to 16 bytes (a run starts at a multiple of its length: a
 * 16-byte chunk, which the swizzle moves whole). */
static const char *home_run(Printer *P, const TirOp *op, At at, int n) {
  const TirVar *v = op->dst;
  if (!v->home || n < 2) return NULL;
  const TirBuf *f = &P->K->bufs[v->home - 1];
  const Layout *l = v->layout;
  if (f->trans || f->elem != op->slice->u.index.base->u.ident.sym->ty.elem || l->kind != LY_BLOCKED || col_padded(l) ||
      n * elem_bytes[f->elem] > 16 || f->pitch % n ||
      (f->cm8 && !f->swz && 8 % n))
    return NULL;
  return F("&%s", home_ref(P, v, at));
}

static void load_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  (void)ctx;
  int n = access_vec(P, op);
  if (!tail_run(P, op, at, n, load_at)) load_at(P, op, at, n);
}

/* n elements from at (n < 0: -n, the run known inside: no test) */
static void load_at(Printer *P, const TirOp *op, At at, int n) {
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  const char *lin, *cond;
  tensor_index(P, op, at, &lin, &cond);
  if (n < 0) n = -n, cond = NULL;
  const char *pad = op->pad ? ex(P, op->pad, X->ty.elem, NULL) : emit_literal(P->a, X->ty.elem, false, 0, 0);
  const char *m;
  if (n == 1) {
    const char *v = F("%s[%s]", X->cname, lin), *d = dst_at(P, op, at, &m);
    guarded_line(P, m, F("%s = %s;", d, cond ? F("(%s ? %s : %s)", cond, v, pad) : v));
    return;
  }
  const char *w = F("t2c_w%d", P->ctr++);
  /* into packed registers (pipeline.c): the run's whole words, loaded as words */
  const TirVar *dv = op->dst;
  int per = dv->packed ? 4 / elem_bytes[dv->elem] : 0, r0 = per ? reg_of(dv->layout, at) : 0;
  bool words = per && n % per == 0 && r0 % per == 0;
  const char *load = words ? F("const t2c::Vec<unsigned, %d> %s = t2c::ldg_words<%d>(%s);", n / per, w, n, elem_ptr(P, X, lin))
                           : F("const t2c::Vec<%s, %d> %s = t2c::ldg_vec<%d>(%s);", ctype(X->ty.elem), n, w, n,
                               elem_ptr(P, X, lin));
  const char *hp = home_run(P, op, at, n);
  if (hp) { /* the run straight into the home, in one store (or its pad) */
    dst_at(P, op, at, &m); /* a padding row's mask holds for the whole run (no column padding) */
    if (cond) {
      line(P, "if (%s) {", cond);
      P->indent++;
    }
    line(P, "%s", load);
    guarded_line(P, m, F("t2c::sts_vec<%d>(%s, %s);", n, hp, w));
    if (cond) {
      P->indent--;
      line(P, "} else {");
      P->indent++;
      guarded_line(P, m, F("t2c::sts_vec<%d>(%s, %s);", n, hp, pad_run(P, X->ty.elem, n, op->pad)));
      P->indent--;
      line(P, "}");
    }
    return;
  }
  if (cond) {
    line(P, "if (%s) {", cond);
    P->indent++;
  }
  if (cond || n > 1) line(P, "%s", load);
  for (int k = 0; words && k < n / per; k++) line(P, "%s[%d] = %s.v[%d];", dv->cname, r0 / per + k, w, k);
  for (int k = 0; !words && k < n; k++) {
    At e = at;
    e.v = at.v + k;
    const char *d = dst_at(P, op, e, &m);
    guarded_line(P, m, F("%s = %s.v[%d];", d, w, k));
  }
  if (cond) {
    P->indent--;
    line(P, "} else {");
    P->indent++;
    for (int k = 0; words && !op->pad && k < n / per; k++) line(P, "%s[%d] = 0u;", dv->cname, r0 / per + k);
    for (int k = 0; !(words && !op->pad) && k < n; k++) {
      At e = at;
      e.v = at.v + k;
      const char *d = dst_at(P, op, e, &m);
      guarded_line(P, m, F("%s = %s;", d, pad));
    }
    P->indent--;
    line(P, "}");
  }
}


/* The first replica of a slice stores (its values are the same in every replica). */
static const char *replica_guard(Printer *P, const Layout *l) {
  if (!layout_replicated(l)) return NULL;
  return F("%s == 0", coord(P, l->parent, l->dim == 1));
}

static void store_at(Printer *P, const TirOp *op, At at, int n);

static void run_loads(Printer *P, const TirOp *op, At at, int n);

static void store_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  (void)ctx;
  int n = access_vec(P, op);
  if (!op->from_copy) run_loads(P, op, at, n);
  if (!tail_run(P, op, at, n, store_at)) store_at(P, op, at, n);
}

/* n elements from at (n < 0: -n, the run known inside: no test but a replica's guard) */
static void store_at(Printer *P, const TirOp *op, At at, int n) {
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  const char *lin, *cond;
  tensor_index(P, op, at, &lin, &cond);
  if (n < 0) n = -n, cond = NULL;
  const char *g = replica_guard(P, op->lay);
  if (g) cond = cond ? F("%s && %s", g, cond) : g;
  if (n == 1) {
    const char *v = strip(P, ex(P, op->expr, X->ty.elem, &at));
    const char *st = op->atomic ? F("t2c::%s(%s + %s, %s);", builtin_names[op->atomic], X->cname, paren(P, lin), v)
                                : F("%s[%s] %s %s;", X->cname, lin, op_text(op->op), v);
    if (cond) line(P, "if (%s) %s", cond, st);
    else line(P, "%s", st);
    return;
  }
  Buf vals = {0};
  const char *w = NULL, *bop = NULL; /* a read-modify-write (+=): the run read first, and the operator */
  if (op->op != TK_ASSIGN && !op->atomic) {
    w = F("t2c_w%d", P->ctr++);
    const char *t = op_text(op->op);
    bop = arena_strndup(P->a, t, strlen(t) - 1); /* "+=" -> "+" */
  }
  for (int k = 0; k < n; k++) {
    At e = at;
    e.v = at.v + k;
    const char *v = strip(P, ex(P, op->expr, X->ty.elem, &e));
    if (w) { /* narrow integers compute in int: the element converts back as X[..] op= v would */
      bool narrow = X->ty.elem == T_I8 || X->ty.elem == T_U8 || X->ty.elem == T_BOOL;
      v = F("%s.v[%d] %s %s", w, k, bop, paren(P, v));
      if (narrow) v = F("static_cast<%s>(%s)", ctype(X->ty.elem), v);
    }
    buf_printf(&vals, "%s%s", k ? ", " : "", v);
  }
  /* an atomic_add's run in one update of its elements (layout.c atomic_run) */
  const char *st = F("t2c::%s<%d>(%s, t2c::Vec<%s, %d>{{%s}});", op->atomic ? "atomic_add_vec" : "stg_vec", n,
                     elem_ptr(P, X, lin), ctype(X->ty.elem), n, vals.data);
  if (w) {
    buf_free(&vals);
    if (cond) {
      line(P, "if (%s) {", cond);
      P->indent++;
    }
    line(P, "const t2c::Vec<%s, %d> %s = t2c::ldg_vec<%d>(%s);", ctype(X->ty.elem), n, w, n, elem_ptr(P, X, lin));
    line(P, "%s", st);
    if (cond) {
      P->indent--;
      line(P, "}");
    }
    return;
  }
  if (op->from_copy) { /* a staged store: the run in one shared read */
    const TirBuf *f = &P->K->bufs[op->buf];
    st = F("t2c::stg_vec<%d>(%s, t2c::lds_vec<%d>(&%s[%s%s]));", n, elem_ptr(P, X, lin), n, f->cname, half_of(P, op->buf),
           elem_idx(P, f, row_of(P, at), col_of(P, at)));
  }
  buf_free(&vals);
  if (cond) line(P, "if (%s) %s", cond, st);
  else line(P, "%s", st);
}

/* ------------------------------------------------------------ elementwise and reductions */

/* r in [a, a + n): the text of the test, NULL when it always holds */
static const char *in_range(Printer *P, const char *r, const char *a, int n, int dim) {
  if (n == dim && strcmp(a, "0") == 0) return NULL;
  if (n == 1) return F("%s == %s", r, paren(P, a));
  if (strcmp(a, "0") == 0) return F("%s < %d", r, n);
  return F("%s >= %s && %s < %s + %d", r, paren(P, a), r, paren(P, a), n);
}

/* A window write's test that element at lies in the window and the tile (NULL: always),
 * and its first row and column (*a, *b). */
static const char *win_mask(Printer *P, const TirOp *op, At at, const char **a, const char **b) {
  *a = op->win[0] ? strip(P, ex(P, op->win[0], T_I32, NULL)) : "0";
  *b = op->win[1] ? strip(P, ex(P, op->win[1], T_I32, NULL)) : "0";
  /* a window whose columns start and end at multiples of the layout's run: an element's
   * tests are its run's first element's (the tile's columns are a multiple of the run
   * too), one text that the run's elements share */
  const Layout *p = parent_of(at.lay);
  if (!P->vsym && win_whole_runs(op, at.lay, p->vec) && op->dst->cols % p->vec == 0) at.v -= at.v % p->vec;
  const char *mr = in_range(P, row_of(P, at), *a, op->win_len[0], op->dst->rows);
  const char *mc = in_range(P, col_of(P, at), *b, op->win_len[1], op->dst->cols);
  const char *mt = tile_mask(P, at);
  const char *m = mr && mc ? F("%s && %s", mr, mc) : mr ? mr : mc;
  if (mt) m = m ? F("%s && %s", mt, m) : mt;
  return m;
}

/* The test under which an assignment or a store reads its copies at element at (NULL: always). */
static const char *read_mask(Printer *P, const TirOp *op, At at) {
  const char *a, *b;
  return op->kind == TO_ASSIGN && op->has_win ? win_mask(P, op, at, &a, &b) : tile_mask(P, at);
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* The reads of copies a run at a time in x (TirRead.vec) whose run starts in elements
 * at.v .. at.v + n - 1 of the op's layout: each run loaded once, by one shared load, into
 * a local its elements read (shared_read), under the test its elements' reads are under
 * (zeros outside: a padding row of the op's layout, or outside a window written). A run
 * whose elements are under different tests is read one element at a time. */
static void run_loads_in(Printer *P, const TirOp *op, const Expr *x, At at, int n) {
  if (!x) return;
  const TirRead *rd = tir_read(P->K, x);
  if (rd) {
    const Layout *p = parent_of(at.lay);
    if (rd->vec < 2 || at.lay->kind != LY_BLOCKED || p->vec % rd->vec || col_padded(at.lay)) return;
    for (int v = at.v; v < at.v + n; v++) {
      if (v % rd->vec) continue;
      At e = at;
      e.v = v;
      const char *g = read_mask(P, op, e);
      bool same = true;
      for (int k = 1; k < rd->vec && same; k++) {
        At o = e;
        o.v = v + k;
        same = same_text(g, read_mask(P, op, o));
      }
      if (!same || P->nruns == (int)(sizeof P->runs / sizeof P->runs[0])) continue;
      const TirBuf *f = &P->K->bufs[rd->buf];
      const char *name = F("t2c_sr%d", P->ctr++), *vt = F("t2c::Vec<%s, %d>", ctype(f->elem), rd->vec);
      const char *ld = F("t2c::lds_vec<%d>(&%s)", rd->vec, shared_ref(P, x, rd, &e));
      if (g) line(P, "const %s %s = %s ? %s : %s{};", vt, name, g, ld, vt);
      else line(P, "const %s %s = %s;", vt, name, ld);
      int i = 0; /* the run replaces an earlier one of the same read */
      while (i < P->nruns && P->runs[i].x != x) i++;
      if (i == P->nruns) P->nruns++;
      P->runs[i] = (struct RunLoad){x, name, e, rd->vec};
    }
    return;
  }
  if (tir_hoisted(P->K, x)) return;
  switch (x->kind) {
  case E_UNARY: run_loads_in(P, op, x->u.unary.a, at, n); return;
  case E_BINARY:
    run_loads_in(P, op, x->u.binary.a, at, n);
    run_loads_in(P, op, x->u.binary.b, at, n);
    return;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) run_loads_in(P, op, x->u.call.args[i], at, n);
    return;
  default: return;
  }
}

static void run_loads(Printer *P, const TirOp *op, At at, int n) {
  if (at.v == 0 && at.ir == 0 && at.ic == 0) P->nruns = 0; /* the op's first run: none from another op */
  if (op->has_win) { /* the window's coordinates, as its elements read them */
    const char *a, *b;
    win_mask(P, op, at, &a, &b);
    P->shift[0] = a;
    P->shift[1] = b;
  }
  run_loads_in(P, op, op->expr, at, n < 1 ? 1 : n);
  P->shift[0] = P->shift[1] = NULL;
}

/* Whether element at of window write op may lie in the window's rows: in a blocked
 * layout of whole rows per repeat (not warp tiles, not rolled), repeat ir holds rows k ..
 * k + lr wr - 1 (k = ir lr wr), and a window at a constant start that they miss is never
 * written there (a halo tile's 4 rows above a 64-row block: 4 of its 5 row repeats,
 * each a predicated 16-byte load that ptxas kept). */
static bool win_rows_reach(Printer *P, const TirOp *op, At at) {
  const Layout *p = parent_of(at.lay);
  int64_t a = 0;
  if (at.lay->kind != LY_BLOCKED || layout_warp_tiles(p) || P->roll == p || (op->win[0] && !check_const_int(op->win[0], &a)))
    return true;
  int k = at.ir * p->lr * p->wr, span = p->lr * p->wr;
  return k < a + op->win_len[0] && k + span > a;
}

static void assign_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  (void)ctx;
  const char *m = NULL;
  if (op->has_win && !win_rows_reach(P, op, at)) return;
  run_loads(P, op, at, 1);
  if (op->has_win) {
    const char *a, *b;
    m = win_mask(P, op, at, &a, &b);
    P->shift[0] = a;
    P->shift[1] = b;
  }
  const char *v = strip(P, ex(P, op->expr, op->dst->elem, &at));
  P->shift[0] = P->shift[1] = NULL;
  const char *hm;
  const char *st = F("%s %s %s;", dst_at(P, op, at, &hm), op_text(op->op), v);
  if (hm && !op->has_win) m = hm; /* a window's mask has the tile's */
  guarded_line(P, m, st);
}

static const char *red_fold(Printer *P, BuiltinKind b, const char *a, const char *v) {
  switch (b) {
  case B_ROWSUM: return F("%s + %s", a, v);
  case B_ROWMAX: return F("t2c::max(%s, %s)", a, v);
  case B_ROWMIN: return F("t2c::min(%s, %s)", a, v);
  default: unreachable();
  }
}

static const char *red_ident(Printer *P, BuiltinKind b, ElemType t) {
  if (b == B_ROWSUM) return emit_literal(P->a, t, false, 0, 0);
  return F("t2c::%s<%s>()", b == B_ROWMAX ? "lowest" : "highest", ctype(t));
}

/* A float max or min's first element, folded with the identity: fmaxf drops a NaN, so a
 * row (column) of NaNs alone gives -inf (inf), as language.md says, and not NaN (the
 * other partials, the other lanes' and warps' start from a number or NaN, which the
 * folds drop). Not for the fold of carried partials (TirOp.carried), whose NaN says that
 * no element came, so that the accumulator keeps its value. */
static const char *nan_dropped(Printer *P, const TirOp *op, BuiltinKind b, const char *v) {
  if (op->carried || b == B_ROWSUM || !elem_is_float(op->dst->elem)) return v;
  return red_fold(P, b, red_ident(P, b, op->dst->elem), v);
}

/* Row reductions in-thread: started[ir] counts the elements of row ir folded so far.
 * A max or min of f32, f64 or integers whose rows hold 8 or more elements a thread
 * folds them into RED_PARTS partials in turn (element c into partial c % RED_PARTS:
 * dst itself, then dst_t), joined by a tree after the last: the dependent chain is
 * n / 4 + 2 instructions instead of n - 1 (attention's rowmax(s), 16 a row, is on the
 * path from the scores to P). Exact: a max or min does not depend on the order (f32
 * and f64 take fmaxf and fminf: a NaN is dropped wherever it stands). A sum keeps its
 * order. */
enum { RED_PARTS = 4 };

static int red_parts(const TirOp *op, const Layout *l) {
  ElemType t = op->dst->elem;
  bool order_free = op->red == B_ROWMAX || op->red == B_ROWMIN;
  bool exact = t == T_F32 || t == T_F64 || !elem_is_float(t);
  return order_free && exact && !op->rolled && !op->rolled_cols && l->rc * l->vec >= 2 * RED_PARTS ? RED_PARTS : 1;
}

static const char *red_part(Printer *P, const TirOp *op, int rr, int ir, int part) {
  return part ? F("%s_t[%d]", op->dst->cname, (part - 1) * rr + ir) : F("%s[%d]", op->dst->cname, ir);
}

typedef struct RedCtx {
  int *started;
  int parts, rr;
} RedCtx;

static void reduce_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  RedCtx *c = ctx;
  int n = c->started[at.ir]++;
  const char *d = red_part(P, op, c->rr, at.ir, c->parts > 1 ? n % c->parts : 0);
  const char *e = ex(P, op->expr, op->dst->elem, &at), *v = strip(P, e);
  const char *m = col_mask(P, at);
  if (m) v = e = F("(%s ? %s : %s)", m, v, red_ident(P, op->red, op->dst->elem));
  if (n == 0) v = nan_dropped(P, op, op->red, v);
  if (n < c->parts) line(P, "%s = %s;", d, v);
  else line(P, "%s = %s;", d, red_fold(P, op->red, d, op->red == B_ROWSUM ? e : v)); /* a + (c ? x : y) */
}

static const char *fold_name(BuiltinKind b) {
  return b == B_ROWSUM ? "fold_sum" : b == B_ROWMAX ? "fold_max" : "fold_min";
}

/* ---- arg-reductions: dst holds the indices, its companion array dst_v the
 * values (in the type they compare in), folded by t2c::argmax_step and
 * t2c::fold_argmax<lc> (rt.cuh: NaN above every number, ties to the smaller index). */

static bool arg_max(BuiltinKind b) { return b == B_ROWARGMAX || b == B_COLARGMAX; }

/* The value that every element beats: padding positions hold it. */
static const char *arg_none(Printer *P, BuiltinKind b, ElemType t) {
  return F("t2c::%s<%s>()", arg_max(b) ? "lowest" : "greatest", ctype(t));
}

/* x of type t as the type an arg-reduction compares in. */
static const char *as_acc(Printer *P, const char *x, ElemType t) {
  ElemType a = tir_acc_type(t);
  return a == t ? x : F("t2c::cvt<%s>(%s)", ctype(a), x);
}

static void argreduce_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  int *started = ctx;
  ElemType t = op->expr->ty.elem, a = tir_acc_type(t);
  const char *i = F("%s[%d]", op->dst->cname, at.ir), *v = F("%s_v[%d]", op->dst->cname, at.ir);
  const char *x = as_acc(P, strip(P, ex(P, op->expr, t, &at)), t), *c = col_of(P, at);
  const char *m = col_mask(P, at);
  if (m) x = F("(%s ? %s : %s)", m, x, arg_none(P, op->red, a));
  if (!started[at.ir]) {
    line(P, "%s = %s;", v, x);
    line(P, "%s = %s;", i, c);
  } else {
    line(P, "t2c::%s_step(%s, %s, %s, %s);", arg_max(op->red) ? "argmax" : "argmin", v, i, x, c);
  }
  started[at.ir] = 1;
}

/* The row reduction that folds as column reduction b does. */
static BuiltinKind row_fold(BuiltinKind b) {
  return b == B_COLSUM ? B_ROWSUM : b == B_COLMAX ? B_ROWMAX : b == B_COLMIN ? B_ROWMIN : b;
}

/* A column reduction's element: register ic * vec + v of dst folds it (rows
 * past the tile fold the identity). */
static void colfold_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  int *started = ctx;
  BuiltinKind b = row_fold(op->red);
  int k = op->intra ? at.ic * at.lay->vec + at.v : reg_of(op->dst->layout, at); /* partials: one row (layout_partials) */
  const char *d = F("%s[%d]", op->dst->cname, k);
  const char *e = ex(P, op->expr, op->dst->elem, &at), *v = strip(P, e);
  const char *m = row_mask(P, at);
  if (m) v = e = F("(%s ? %s : %s)", m, v, red_ident(P, b, op->dst->elem));
  if (!started[k]) line(P, "%s = %s;", d, nan_dropped(P, op, b, v));
  else line(P, "%s = %s;", d, red_fold(P, b, d, b == B_ROWSUM ? e : v));
  started[k] = 1;
}

/* A column arg-reduction's element: the pair (value, row) joins register
 * ic * vec + v of dst (the indices) and dst_v (the values); rows past the tile
 * hold the value every element beats. A thread's rows come in increasing order. */
static void colarg_fold_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  int *started = ctx;
  ElemType t = op->expr->ty.elem, a = tir_acc_type(t);
  int k = reg_of(op->dst->layout, at);
  const char *i = F("%s[%d]", op->dst->cname, k), *v = F("%s_v[%d]", op->dst->cname, k);
  const char *x = as_acc(P, strip(P, ex(P, op->expr, t, &at)), t), *r = row_of(P, at);
  const char *m = row_mask(P, at);
  if (m) x = F("(%s ? %s : %s)", m, x, arg_none(P, op->red, a));
  if (!started[k]) {
    line(P, "%s = %s;", v, x);
    line(P, "%s = %s;", i, r);
  } else {
    line(P, "t2c::%s_step(%s, %s, %s, %s);", arg_max(op->red) ? "argmax" : "argmin", v, i, x, r);
  }
  started[k] = 1;
}

/* colsum (colmax, colmin, colargmax, colargmin) in op's layout: in-thread down
 * each column the thread holds, then across the lr lanes of the column (lc
 * lanes apart); the warps down the column fold through scratch (print_scratch). */
static void print_colfold(Printer *P, const TirOp *op) {
  const Layout *l = op->lay;
  int n = l->rc * l->vec;
  int *started = NEW_ARRAY(P->a, int, n);
  bool arg = builtin_class[op->red] == BC_ARG;
  if (arg) line(P, "%s %s_v[%d];  // the values at those indices", ctype(tir_acc_type(op->expr->ty.elem)), op->dst->cname, n);
  for (int k = 0; op->intra && k < n; k++) started[k] = 1; /* into the carried partials */
  each_elem(P, op, l, 1, arg ? colarg_fold_elem : colfold_elem, started);
  if (l->lr == 1 || op->intra) return;
  for (int k = 0; k < n; k++) {
    if (arg)
      line(P, "t2c::fold_%s<%d, %d>(%s_v[%d], %s[%d]);", arg_max(op->red) ? "argmax" : "argmin", l->lr, l->lc,
           op->dst->cname, k, op->dst->cname, k);
    else
      line(P, "%s[%d] = t2c::%s<%d, %d>(%s[%d]);", op->dst->cname, k, fold_name(row_fold(op->red)), l->lr, l->lc,
           op->dst->cname, k);
  }
}

/* A max or min that takes an arg-reduction's values (TirOp.from_arg, layout.c
 * arg_values): each register of dst is the companion array's (a float min's
 * all-NaN row gives the highest value, as its own fold's would). */
static void print_from_arg(Printer *P, const TirOp *op) {
  const Layout *l = op->lay;
  int n = tir_down_cols(op) ? l->rc * l->vec : l->rr;
  for (int k = 0; k < n; k++)
    line(P, "%s[%d] = %s;", op->dst->cname, k,
         nan_dropped(P, op, row_fold(op->red), F("%s_v[%d]", op->src->cname, k)));
}

static void print_reduce(Printer *P, const TirOp *op) {
  if (op->from_arg) {
    print_from_arg(P, op);
    return;
  }
  if (tir_down_cols(op)) {
    print_colfold(P, op);
    return;
  }
  const Layout *l = op->lay;
  int *started = NEW_ARRAY(P->a, int, l->rr);
  bool arg = builtin_class[op->red] == BC_ARG;
  ElemFn fn = arg ? argreduce_elem : reduce_elem;
  RedCtx rc = {started, arg || op->intra ? 1 : red_parts(op, l), l->rr};
  void *ctx = arg ? (void *)started : (void *)&rc;
  for (int ir = 0; op->intra && ir < l->rr; ir++) started[ir] = 1; /* into the carried partials, one per row */
  if (arg) line(P, "%s %s_v[%d];  // the values at those indices", ctype(tir_acc_type(op->expr->ty.elem)), op->dst->cname, l->rr);
  if (rc.parts > 1)
    line(P, "%s %s_t[%d];  // partials: each row's elements in %d chains", ctype(op->dst->elem), op->dst->cname,
         (rc.parts - 1) * l->rr, rc.parts);
  if (op->rolled_cols) { /* the first column repeat of every row, then the others in a loop */
    for (int ir = 0; ir < l->rr; ir++)
      for (int v = 0; v < l->vec; v++) fn(P, op, (At){l, ir, 0, v}, ctx);
    const char *j = F("t2c_j%d", P->ctr++);
    line(P, "#pragma unroll %d", op->roll_unroll > 1 ? op->roll_unroll : 1);
    line(P, "for (int %s = 1; %s < %d; %s++) {", j, j, l->rc, j);
    P->indent++;
    P->rollc = l;
    P->roll_col = j;
    for (int ir = 0; ir < l->rr; ir++)
      for (int v = 0; v < l->vec; v++) fn(P, op, (At){l, ir, 1, v}, ctx);
    P->rollc = NULL;
    P->indent--;
    line(P, "}");
  } else {
    each_elem(P, op, l, 1, fn, ctx);
  }
  for (int ir = 0; rc.parts > 1 && ir < l->rr; ir++) { /* the partials' tree: (0, 1), (2, 3), then both */
    const char *d = red_part(P, op, l->rr, ir, 0);
    line(P, "%s = %s;", d,
         red_fold(P, op->red, red_fold(P, op->red, d, red_part(P, op, l->rr, ir, 1)),
                  red_fold(P, op->red, red_part(P, op, l->rr, ir, 2), red_part(P, op, l->rr, ir, 3))));
  }
  if (l->lc == 1 || op->intra) return;
  for (int ir = 0; ir < l->rr; ir++) {
    if (arg)
      line(P, "t2c::fold_%s<%d>(%s_v[%d], %s[%d]);", arg_max(op->red) ? "argmax" : "argmin", l->lc, op->dst->cname, ir,
           op->dst->cname, ir);
    else
      line(P, "%s[%d] = t2c::%s<%d>(%s[%d]);", op->dst->cname, ir, fold_name(op->red), l->lc, op->dst->cname, ir);
  }
}

/* An index kept in a scratch buffer of another type, read back. */
static const char *stored_index(Printer *P, const TirBuf *f, const char *x) {
  return f->elem == T_I32 ? x : F("t2c::cvt<int>(%s)", x);
}

/* An arg-reduction's partials across warps: buf[warp_c][row] holds a value,
 * buf[wc + warp_c][row] its index (exact in the value's type: below 2^20). */
static void print_arg_scratch(Printer *P, const TirOp *op, const char *half) {
  const Layout *l = op->lay;
  const TirBuf *f = &P->K->bufs[op->buf];
  const char *fn = arg_max(op->red) ? "argmax" : "argmin";
  for (int ir = 0; ir < l->rr; ir++) {
    At at = {l, ir, 0, 0};
    const char *row = row_of(P, at), *rmask = row_mask(P, at);
    const char *i = F("%s[%d]", op->dst->cname, ir), *v = F("%s_v[%d]", op->dst->cname, ir);
    if (op->kind == TO_SCRATCH_WRITE) {
      const char *c = l->lc == P->K->t->lanes ? "lane == 0" : l->lc > 1 ? F("lane %% %d == 0", l->lc) : NULL;
      if (rmask) c = c ? F("%s && %s", c, rmask) : rmask;
      const char *w = F("warp %% %d", l->wc);
      const char *st = F("%s[%s(%s) * %d + %s] = %s; %s[%s(%d + %s) * %d + %s] = %s;", f->cname, half, w, l->rows, row,
                         v, f->cname, half, l->wc, w, l->rows, row, f->elem == T_I32 ? i : F("t2c::cvt<%s>(%s)", ctype(f->elem), i));
      if (c) line(P, "if (%s) { %s }", c, st);
      else line(P, "%s", st);
      continue;
    }
    if (rmask) {
      line(P, "if (%s) {", rmask);
      P->indent++;
    }
    line(P, "%s = %s[%s%s];", v, f->cname, half, row);
    line(P, "%s = %s;", i, stored_index(P, f, F("%s[%s%d + %s]", f->cname, half, l->wc * l->rows, row)));
    for (int w = 1; w < l->wc; w++)
      line(P, "t2c::%s_step(%s, %s, %s[%s%d + %s], %s);", fn, v, i, f->cname, half, w * l->rows, row,
           stored_index(P, f, F("%s[%s%d + %s]", f->cname, half, (l->wc + w) * l->rows, row)));
    if (rmask) {
      P->indent--;
      line(P, "}");
    }
  }
}

static void print_decl(Printer *P, const TirVar *v);

/* ---- scans: in-thread over each run, t2c::scan_lanes over the lanes of a line,
 * and, when a line spans warps, the run totals of every warp through scratch
 * (TO_SCRATCH_WRITE, a barrier, TO_SCRATCH_READ). Order along a line is
 * (segment, warp, lane, run): tir_scan_geom. */

static const char *scan_op(Printer *P, BuiltinKind b, const char *x, const char *y) {
  switch (b) {
  case B_CUMSUM: return F("%s + %s", x, y);
  case B_CUMPROD: return F("%s * %s", x, y);
  case B_CUMMAX: return F("t2c::max_nan(%s, %s)", x, y);
  default: unreachable();
  }
}

static const char *scan_ident(Printer *P, BuiltinKind b, ElemType t) {
  if (b == B_CUMMAX) return F("t2c::lowest<%s>()", ctype(t));
  return emit_literal(P->a, t, false, b == B_CUMPROD, 0);
}

static const char *scan_functor(BuiltinKind b) {
  return b == B_CUMSUM ? "t2c::Add()" : b == B_CUMPROD ? "t2c::Mul()" : "t2c::MaxNan()";
}

typedef struct Scan {
  ScanGeom g;
  ElemType acc;     /* the type it accumulates in */
  const char *d;    /* the running values: dst, or its twin in acc */
  const char *x, *t; /* per (line, segment): op over what comes before the thread's run, and the segment's total */
  const char *id;
} Scan;

static Scan scan_of(Printer *P, const TirOp *op) {
  Scan c = {tir_scan_geom(op), tir_acc_type(op->dst->elem), NULL, F("%s_x", op->dst->cname),
            F("%s_t", op->dst->cname), NULL};
  c.d = c.acc == op->dst->elem ? op->dst->cname : F("%s_a", op->dst->cname);
  c.id = scan_ident(P, op->red, c.acc);
  return c;
}

static At scan_at(const TirOp *op, int l, int s, int i) {
  At at = {op->lay, 0, 0, 0};
  tir_scan_at(op, l, s, i, &at.ir, &at.ic, &at.v);
  return at;
}

/* Whether a thread's runs are only part of their line (other lanes, warps or repeats hold the rest). */
static bool scan_split(const ScanGeom *g) { return g->lanes > 1 || g->warps > 1 || g->segs > 1; }

/* Each element takes op over what comes before its run (x), then its type. */
static void scan_finish(Printer *P, const TirOp *op, const Scan *c) {
  const ScanGeom *g = &c->g;
  for (int l = 0; l < g->lines; l++)
    for (int s = 0; s < g->segs; s++)
      for (int i = 0; i < g->inner; i++) {
        int r = reg_of(op->lay, scan_at(op, l, s, i)), k = l * g->segs + s;
        if (scan_split(g))
          line(P, "%s[%d] = %s;", c->d, r, scan_op(P, op->red, F("%s[%d]", c->x, k), F("%s[%d]", c->d, r)));
        if (c->acc != op->dst->elem)
          line(P, "%s[%d] = t2c::cvt<%s>(%s[%d]);", op->dst->cname, r, ctype(op->dst->elem), c->d, r);
      }
}

/* In-thread: each run scanned in registers (padding holds the identity). */
static void scan_runs(Printer *P, const TirOp *op, const Scan *c) {
  const ScanGeom *g = &c->g;
  ElemType t = op->dst->elem;
  for (int l = 0; l < g->lines; l++)
    for (int s = 0; s < g->segs; s++)
      for (int i = 0; i < g->inner; i++) {
        At at = scan_at(op, l, s, i);
        const char *v = ex(P, op->expr, t, &at), *m = tile_mask(P, at);
        if (tir_acc_type(t) != t) v = as_acc(P, strip(P, v), t);
        if (m) v = F("(%s ? %s : %s)", m, strip(P, v), c->id);
        int r = reg_of(op->lay, at);
        if (i == 0) line(P, "%s[%d] = %s;", c->d, r, strip(P, v));
        else line(P, "%s[%d] = %s;", c->d, r, scan_op(P, op->red, F("%s[%d]", c->d, reg_of(op->lay, scan_at(op, l, s, i - 1))), v));
      }
}

static void print_scan(Printer *P, const TirOp *op) {
  Scan c = scan_of(P, op);
  const ScanGeom *g = &c.g;
  print_decl(P, op->dst);
  if (c.acc != op->dst->elem) line(P, "%s %s[%d];  // accumulated in %s", ctype(c.acc), c.d, layout_count(op->lay), elem_names[c.acc]);
  scan_runs(P, op, &c);
  if (!scan_split(g)) {
    scan_finish(P, op, &c);
    return;
  }
  int n = g->lines * g->segs;
  bool totals = g->segs > 1 || g->warps > 1; /* a segment's total is needed after it, or by other warps */
  if (totals)
    line(P, "%s %s[%d], %s[%d];  // per line and repeat: what the lanes before hold, and all of them", ctype(c.acc),
         c.x, n, c.t, n);
  else
    line(P, "%s %s[%d];  // per line: what the lanes before hold", ctype(c.acc), c.x, n);
  for (int l = 0; l < g->lines; l++)
    for (int s = 0; s < g->segs; s++) {
      int k = l * g->segs + s, last = reg_of(op->lay, scan_at(op, l, s, g->inner - 1));
      const char *t = totals ? F("%s[%d] = ", c.t, k) : "";
      if (g->lanes > 1) {
        line(P, "%s[%d] = %s[%d];", c.x, k, c.d, last);
        line(P, "%st2c::scan_lanes<%d, %d>(lane, %s[%d], %s, %s);", t, g->lanes, g->stride, c.x, k, scan_functor(op->red),
             c.id);
      } else {
        line(P, "%s[%d] = %s;", c.x, k, c.id);
        line(P, "%s%s[%d];", t, c.d, last);
      }
    }
  if (g->warps > 1 && !g->warp_major) return; /* TO_SCRATCH_READ adds the warps and repeats before */
  /* the repeats before each one: their totals (with warps that hold whole
   * blocks, the last total becomes the warp's, for the warps after it) */
  for (int l = 0; l < g->lines; l++)
    for (int s = 1; s < g->segs; s++) {
      int k = l * g->segs + s;
      line(P, "%s[%d] = %s;", c.x, k, scan_op(P, op->red, F("%s[%d]", c.t, k - 1), F("%s[%d]", c.x, k)));
      if (s + 1 < g->segs || g->warps > 1)
        line(P, "%s[%d] = %s;", c.t, k, scan_op(P, op->red, F("%s[%d]", c.t, k - 1), F("%s[%d]", c.t, k)));
    }
  if (g->warps == 1) scan_finish(P, op, &c);
}

/* The index of line l (its row, or column) in the whole value, plus k. */
static const char *line_of(Printer *P, const TirOp *op, int l, int k) {
  At at = scan_at(op, l, 0, 0);
  const Layout *p = parent_of(op->lay);
  if (op->lay->kind == LY_SLICE) return F("%d", k); /* one row or column */
  if (op->axis == 1) {
    int r = at.ir * p->lr * (layout_warp_tiles(p) ? 1 : p->wr) + k;
    return row_base_zero(p) ? F("%d", r) : plus_k(P, coord(P, p, 0), r);
  }
  int c = at.ic * p->lc * (layout_warp_tiles(p) ? 1 : p->wc) * p->vec + at.v + k;
  return col_base_zero(p) ? F("%d", c) : plus_k(P, coord(P, p, 1), c);
}

/* Whether line l lies inside the value (NULL: always). */
static const char *line_mask(Printer *P, const TirOp *op, int l) {
  bool padded = op->axis == 1 ? row_padded(op->lay) : col_padded(op->lay);
  return padded ? F("%s < %d", line_of(P, op, l, 0), tir_scan_geom(op).len) : NULL;
}

/* The first lane of each line writes its segment totals (one replica of a slice). */
static void print_scan_totals(Printer *P, const TirOp *op, const Scan *c, const char *half, const char *me) {
  const ScanGeom *g = &c->g;
  const TirBuf *f = &P->K->bufs[op->buf];
  const char *first = g->lanes == 1 ? NULL
                      : g->stride > 1 ? F("lane < %d", g->stride)
                      : g->lanes == P->K->t->lanes ? "lane == 0"
                                                   : F("lane %% %d == 0", g->lanes);
  first = and_then(P, first, replica_guard(P, op->lay));
  if (first) line(P, "if (%s) {", first);
  P->indent += first != NULL;
  int nseg = g->warp_major ? 1 : g->segs; /* a warp's block: its line total */
  for (int l = 0; l < g->lines; l++) {
    const char *m = line_mask(P, op, l);
    if (m && nseg > 1) line(P, "if (%s) {", m);
    P->indent += m && nseg > 1;
    for (int s = 0; s < nseg; s++) {
      int k = l * g->segs + (g->warp_major ? g->segs - 1 : s);
      const char *st = F("%s[%s%s * %d + %s] = %s[%d];", f->cname, half, paren(P, me), f->cols,
                         line_of(P, op, l, s * g->len), c->t, k);
      if (m && nseg == 1) line(P, "if (%s) %s", m, st);
      else line(P, "%s", st);
    }
    P->indent -= m && nseg > 1;
    if (m && nseg > 1) line(P, "}");
  }
  P->indent -= first != NULL;
  if (first) line(P, "}");
}

/* Warps that hold whole blocks of a line (the mma accumulator): every repeat
 * of a line takes the line totals of the warps before its own. */
static void print_scan_warps_before(Printer *P, const TirOp *op, const Scan *c, const char *half, const char *me) {
  const ScanGeom *g = &c->g;
  const TirBuf *f = &P->K->bufs[op->buf];
  for (int l = 0; l < g->lines; l++) {
    const char *mask = line_mask(P, op, l), *w = F("t2c_w%d", P->ctr++), *b = F("t2c_b%d", P->ctr++);
    if (mask) line(P, "if (%s) {", mask);
    P->indent += mask != NULL;
    line(P, "%s %s = %s;  // the warps before", ctype(c->acc), b, c->id);
    line(P, "for (int %s = 0; %s < %s; ++%s) %s = %s;", w, w, me, w, b,
         scan_op(P, op->red, b, F("%s[%s%s * %d + %s]", f->cname, half, w, f->cols, line_of(P, op, l, 0))));
    for (int s = 0; s < g->segs; s++) {
      const char *x = F("%s[%d]", c->x, l * g->segs + s);
      line(P, "%s = %s;", x, scan_op(P, op->red, b, x));
    }
    P->indent -= mask != NULL;
    if (mask) line(P, "}");
  }
}

/* The run totals of every warp of a line: buf[warp][segment * len + line],
 * written by the first lane of each line; each element then adds those of
 * the warps before its own, and of the whole segments before its own. */
static void print_scan_scratch(Printer *P, const TirOp *op, const char *half) {
  Scan c = scan_of(P, op);
  const ScanGeom *g = &c.g;
  const TirBuf *f = &P->K->bufs[op->buf];
  const Layout *p = parent_of(op->lay);
  const char *me = op->axis == 1 ? (p->wr > 1 ? F("warp %% %d", p->wc) : "warp") : (p->wc > 1 ? F("warp / %d", p->wc) : "warp");
  if (op->kind == TO_SCRATCH_WRITE) {
    print_scan_totals(P, op, &c, half, me);
    return;
  }
  if (g->warp_major) {
    print_scan_warps_before(P, op, &c, half, me);
    scan_finish(P, op, &c);
    return;
  }
  for (int l = 0; l < g->lines; l++) {
    const char *mask = line_mask(P, op, l);
    if (mask) line(P, "if (%s) {", mask);
    P->indent += mask != NULL;
    const char *b = g->segs > 1 ? F("t2c_b%d", P->ctr++) : NULL;
    if (b) line(P, "%s %s = %s;  // the repeats before", ctype(c.acc), b, c.id);
    for (int s = 0; s < g->segs; s++) {
      const char *x = F("%s[%d]", c.x, l * g->segs + s), *w = F("t2c_w%d", P->ctr++), *v = F("t2c_p%d", P->ctr++);
      const char *at = F("%s[%s%s * %d + %s]", f->cname, half, w, f->cols, line_of(P, op, l, s * g->len));
      if (s > 0) line(P, "%s = %s;", x, scan_op(P, op->red, b, x));
      if (s + 1 == g->segs) { /* the last repeat: only the warps before this one */
        line(P, "for (int %s = 0; %s < %s; ++%s) %s = %s;", w, w, me, w, x, scan_op(P, op->red, at, x));
        continue;
      }
      line(P, "for (int %s = 0; %s < %d; ++%s) {", w, w, g->warps, w);
      P->indent++;
      line(P, "const %s %s = %s;", ctype(c.acc), v, at);
      line(P, "if (%s < %s) %s = %s;", w, me, x, scan_op(P, op->red, v, x));
      line(P, "%s = %s;", b, scan_op(P, op->red, b, v));
      P->indent--;
      line(P, "}");
    }
    P->indent -= mask != NULL;
    if (mask) line(P, "}");
  }
  scan_finish(P, op, &c);
}

/* Whether the partials of w warps in scratch are folded by the lanes of each warp, lane l
 * reading warp l % w's slot, then shuffles (t2c::fold_sum<w>): from 16 warps on (512 and
 * 1024 threads), where a chain of w reads and w - 1 dependent adds held every slot in a
 * register at once (a 1024-thread row's max: 32 registers, past the 64 a thread has). */
static bool lane_combine(const Printer *P, int w) { return w >= 16 && w <= P->K->t->lanes && (w & (w - 1)) == 0; }

static void print_sum_scratch(Printer *P, const TirOp *op, const char *half) {
  const TirBuf *f = &P->K->bufs[op->buf];
  const char *d = F("%s[0]", op->dst->cname);
  if (op->kind == TO_SCRATCH_WRITE) {
    line(P, "if (lane == 0) %s[%swarp] = %s;", f->cname, half, d);
    return;
  }
  if (lane_combine(P, f->rows)) { /* each lane reads one warp's slot, and the lanes fold them */
    line(P, "%s = t2c::fold_sum<%d>(%s[%s%s]);", d, f->rows, f->cname, half,
         f->rows == P->K->t->lanes ? "lane" : F("lane %% %d", f->rows));
    return;
  }
  const char *v = F("%s[%s0]", f->cname, half);
  for (int w = 1; w < f->rows; w++) v = F("%s + %s[%s%d]", v, f->cname, half, w);
  line(P, "%s = %s;", d, v);
}

/* A column reduction's partials across warps: buf[warp_r][col], written by
 * the first lane of each column's lanes (lane < lc), folded by every thread
 * over the wr rows; a whole run per access where the rows keep runs aligned. */
static void print_col_scratch(Printer *P, const TirOp *op, const char *half) {
  const Layout *l = op->lay;
  const TirBuf *f = &P->K->bufs[op->buf];
  BuiltinKind b = row_fold(op->red);
  const char *who = l->lr == 1 ? NULL : l->lc == 1 ? "lane == 0" : F("lane < %d", l->lc);
  const char *w = l->wc == 1 ? "warp" : F("(warp / %d)", l->wc);
  bool arg = builtin_class[op->red] == BC_ARG;
  int n = l->vec; /* runs of up to 16 bytes */
  while (n > 1 && n * elem_bytes[f->elem] > 16) n /= 2;
  if (!arg && n > 1 && f->pitch % n == 0 && (n * elem_bytes[f->elem]) % 4 == 0) {
    for (int ic = 0; ic < l->rc; ic++)
    for (int v0 = 0; v0 < l->vec; v0 += n) {
      At at = {op->dst->layout, 0, ic, v0};
      const char *col = col_of(P, at);
      const char *cmask = col_mask(P, at); /* a whole run in or out */
      int k0 = reg_of(op->dst->layout, at);
      const char *vt = F("t2c::Vec<%s, %d>", ctype(f->elem), n);
      if (op->kind == TO_SCRATCH_WRITE) {
        Buf vals = {0};
        for (int k = 0; k < n; k++) buf_printf(&vals, "%s%s[%d]", k ? ", " : "", op->dst->cname, k0 + k);
        const char *c = and_then(P, who, cmask);
        const char *st = F("t2c::sts_vec<%d>(&%s[%s%s * %d + %s], %s{{%s}});", n, f->cname, half, w, f->pitch, col, vt, vals.data);
        buf_free(&vals);
        if (c) line(P, "if (%s) %s", c, st);
        else line(P, "%s", st);
        continue;
      }
      if (cmask) line(P, "if (%s) {", cmask);
      else line(P, "{");
      P->indent++;
      const char *x = F("t2c_s%d", P->ctr++);
      for (int r = 0; r < l->wr; r++) {
        const char *src = F("&%s[%s%s]", f->cname, half, r ? F("%d + %s", r * f->pitch, col) : col);
        line(P, "%s%s = t2c::lds_vec<%d>(%s);", r ? "" : F("%s ", vt), x, n, src);
        for (int k = 0; k < n; k++) {
          const char *d = F("%s[%d]", op->dst->cname, k0 + k), *e = F("%s.v[%d]", x, k);
          line(P, "%s = %s;", d, r ? red_fold(P, b, d, e) : e);
        }
      }
      P->indent--;
      line(P, "}");
    }
    return;
  }
  for (int ic = 0; ic < l->rc; ic++)
    for (int v = 0; v < l->vec; v++) {
      At at = {op->dst->layout, 0, ic, v};
      const char *col = col_of(P, at);
      const char *cmask = col_mask(P, at);
      const char *d = F("%s[%d]", op->dst->cname, reg_of(op->dst->layout, at));
      if (arg) { /* values in rows 0 .. wr - 1, indices in rows wr .. 2 wr - 1 */
        const char *dv = F("%s_v[%d]", op->dst->cname, reg_of(op->dst->layout, at));
        if (op->kind == TO_SCRATCH_WRITE) {
          const char *c = and_then(P, who, cmask);
          const char *st = F("%s[%s%s * %d + %s] = %s; %s[%s(%d + %s) * %d + %s] = %s;", f->cname, half, w, f->pitch, col, dv,
                             f->cname, half, l->wr, w, f->pitch, col, f->elem == T_I32 ? d : F("t2c::cvt<%s>(%s)", ctype(f->elem), d));
          if (c) line(P, "if (%s) { %s }", c, st);
          else line(P, "%s", st);
          continue;
        }
        if (cmask) line(P, "if (%s) {", cmask);
        else line(P, "{");
        P->indent++;
        line(P, "%s = %s[%s%s];", dv, f->cname, half, col);
        line(P, "%s = %s;", d, stored_index(P, f, F("%s[%s%d + %s]", f->cname, half, l->wr * f->pitch, col)));
        for (int r = 1; r < l->wr; r++)
          line(P, "t2c::%s_step(%s, %s, %s[%s%d + %s], %s);", arg_max(op->red) ? "argmax" : "argmin", dv, d, f->cname, half,
               r * f->pitch, col, stored_index(P, f, F("%s[%s%d + %s]", f->cname, half, (l->wr + r) * f->pitch, col)));
        P->indent--;
        line(P, "}");
        continue;
      }
      if (op->kind == TO_SCRATCH_WRITE) {
        const char *c = and_then(P, who, cmask);
        const char *st = F("%s[%s%s * %d + %s] = %s;", f->cname, half, w, f->pitch, col, d);
        if (c) line(P, "if (%s) %s", c, st);
        else line(P, "%s", st);
        continue;
      }
      const char *x = F("%s[%s%s]", f->cname, half, col);
      for (int r = 1; r < l->wr; r++) x = red_fold(P, b, x, F("%s[%s%d + %s]", f->cname, half, r * f->pitch, col));
      if (cmask) line(P, "if (%s) %s = %s;", cmask, d, x);
      else line(P, "%s = %s;", d, x);
    }
}

static void print_scratch(Printer *P, const TirOp *op) {
  const Layout *l = op->lay;
  const TirBuf *f = &P->K->bufs[op->buf];
  /* an alternating buffer: this turn's half */
  const char *half = f->alternating ? F("t2c_ph%d * %d + ", op->buf, f->rows * f->cols) : "";
  if (op->red == B_SUM || tir_down_cols(op) || builtin_class[op->red] == BC_ARG || builtin_class[op->red] == BC_SCAN) {
    if (op->red == B_SUM) print_sum_scratch(P, op, half);
    else if (tir_down_cols(op)) print_col_scratch(P, op, half);
    else if (builtin_class[op->red] == BC_ARG) print_arg_scratch(P, op, half);
    else print_scan_scratch(P, op, half);
    if (op->kind == TO_SCRATCH_READ && f->alternating) line(P, "t2c_ph%d ^= 1;", op->buf);
    return;
  }
  for (int ir = 0; ir < l->rr; ir++) {
    At at = {l, ir, 0, 0};
    const char *row = row_of(P, at);
    const char *rmask = row_mask(P, at);
    const char *d = F("%s[%d]", op->dst->cname, ir);
    if (op->kind == TO_SCRATCH_WRITE) {
      const char *c = l->lc == P->K->t->lanes ? "lane == 0" : l->lc > 1 ? F("lane %% %d == 0", l->lc) : NULL;
      if (rmask) c = c ? F("%s && %s", c, rmask) : rmask;
      const char *st = F("%s[%s(warp %% %d) * %d + %s] = %s;", f->cname, half, l->wc, l->rows, row, d);
      if (c) line(P, "if (%s) %s", c, st);
      else line(P, "%s", st);
      continue;
    }
    const char *v = F("%s[%s%s]", f->cname, half, row);
    if (lane_combine(P, l->wc)) { /* every lane shuffles, in the row or not: the mask guards the assignment */
      const char *ln = l->wc == P->K->t->lanes ? "lane" : F("(lane %% %d)", l->wc);
      const char *ix = l->rows == 1 && strcmp(row, "0") == 0 ? ln : F("%s * %d + %s", ln, l->rows, row);
      v = F("t2c::%s<%d>(%s[%s%s])", fold_name(row_fold(op->red)), l->wc, f->cname, half, ix);
      if (rmask) {
        const char *t = F("t2c_f%d", P->ctr++);
        line(P, "const %s %s = %s;", ctype(op->dst->elem), t, v);
        v = t;
      }
    } else
      for (int w = 1; w < l->wc; w++) v = red_fold(P, op->red, v, F("%s[%s%d + %s]", f->cname, half, w * l->rows, row));
    if (rmask) line(P, "if (%s) %s = %s;", rmask, d, v);
    else line(P, "%s = %s;", d, v);
  }
  if (op->kind == TO_SCRATCH_READ && f->alternating) line(P, "t2c_ph%d ^= 1;", op->buf);
}

/* Element (r, c) of copy f, from its stage or half on: row-major at pitch, or
 * in core matrices (TirBuf.cm8). */
/* A swizzled copy's atoms (TirBuf.swz): E columns each, rows x E elements. */
static int swz_cols(const TirBuf *f) { return f->swz / elem_bytes[f->elem]; }

/* The logical (unswizzled) index of element (r, c) of swizzled copy f. */
static const char *swz_logical(Printer *P, const TirBuf *f, const char *r, const char *c) {
  int e = swz_cols(f);
  bool r0 = strcmp(r, "0") == 0, c0 = strcmp(c, "0") == 0;
  const char *ri = r0 ? NULL : F("%s * %d", paren(P, r), e);
  const char *ci = c0                          ? NULL
                   : tir_buf_scols(f) == e     ? c
                                               : F("%s / %d * %d + %s %% %d", paren(P, c), e, tir_buf_srows(f) * e, paren(P, c), e);
  return ri && ci ? F("%s + %s", ri, ci) : ri ? ri : ci ? ci : "0";
}

static const char *swz_of(Printer *P, const TirBuf *f, const char *logical) {
  return F("t2c::swz<%d, %d>(%s)", f->swz, elem_bytes[f->elem], logical);
}

static const char *elem_idx(Printer *P, const TirBuf *f, const char *r, const char *c) {
  if (f->cm8 && f->swz) return swz_of(P, f, swz_logical(P, f, r, c));
  if (f->cm8) {
    bool r0 = strcmp(r, "0") == 0, c0 = strcmp(c, "0") == 0;
    const char *ri = r0 ? NULL : F("%s / 8 * %d + %s %% 8 * 8", paren(P, r), 8 * f->pitch, paren(P, r));
    const char *ci = c0 ? NULL : F("%s / 8 * 64 + %s %% 8", paren(P, c), paren(P, c));
    return ri && ci ? F("%s + %s", ri, ci) : ri ? ri : ci ? ci : "0";
  }
  return strcmp(r, "0") == 0 ? c : F("%s * %d + %s", paren(P, r), f->pitch, c);
}

/* Element `at` of copy f. In core matrices, row and column offsets from the
 * thread's first row and column that are multiples of 8 move whole core
 * matrices: they are split off as constants, so that every element's index is
 * one of the thread's few bases plus a literal (ptxas keeps fewer addresses
 * live: gemm_f16 161 -> 106 registers on sm_90a, at BK = 32). A run's element v stays in
 * its first element's core-matrix row when the run's length divides 8 (the
 * first column is a multiple of it). */
static const char *at_idx(Printer *P, const TirBuf *f, At at) {
  const Layout *p = parent_of(at.lay);
  if (f->trans) return elem_idx(P, f, col_of(P, at), row_of(P, at)); /* stored transposed (an 8-bit wgmma operand) */
  /* rows rolled into a loop (TirOp.rolled): the row is the loop's, not repeat at.ir */
  if (!f->cm8 || at.lay->kind != LY_BLOCKED || P->roll == p) return elem_idx(P, f, row_of(P, at), col_of(P, at));
  int kr = at.ir * p->lr * (layout_warp_tiles(p) ? 1 : p->wr), kc = at.ic * p->lc * (layout_warp_tiles(p) ? 1 : p->wc) * p->vec;
  const char *rb = row_base_zero(p) ? "0" : coord(P, p, 0), *cb = col_base_zero(p) ? "0" : coord(P, p, 1);
  if (kr % 8 || kc % 8 || 8 % p->vec) return elem_idx(P, f, row_of(P, at), col_of(P, at));
  if (f->swz) { /* whole rows of 8 and whole atoms leave the swizzle's bits alone; so does a run inside a chunk */
    int e = swz_cols(f);
    if (kc % e || p->vec * elem_bytes[f->elem] > 16) return elem_idx(P, f, row_of(P, at), col_of(P, at));
    return plus_run(P, elem_idx(P, f, rb, cb), kr * e + kc / e * f->rows * e, at);
  }
  return plus_run(P, elem_idx(P, f, rb, cb), kr / 8 * 8 * f->pitch + kc / 8 * 64, at);
}

/* TO_SPILL: each thread writes its elements to the shared copy (one replica of a
 * slice); a whole run (or 16 bytes of it) at once when the runs are whole and the
 * pitch keeps them aligned (*runs: the elements an access moves, 1: one by one). */
static void spill_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  const int *runs = ctx;
  const TirBuf *f = &P->K->bufs[op->buf];
  const char *m = tile_mask(P, at), *g = replica_guard(P, at.lay);
  if (g) m = m ? F("%s && %s", g, m) : g;
  const char *r = row_of(P, at), *c = col_of(P, at);
  if (op->has_win) /* into the window of another tile's home (layout.c forward_windows) */
    for (int d = 0; d < 2; d++) {
      const char **x = d ? &c : &r;
      if (!op->win[d]) continue;
      const char *a = strip(P, ex(P, op->win[d], T_I32, NULL));
      int64_t k;
      if (strcmp(a, "0") == 0) continue;
      *x = strcmp(*x, "0") == 0 ? a : F("%s + %s", *x, paren(P, a));
      int n = d ? f->cols : f->rows;
      /* a start computed at run time: what falls outside the tile is not written */
      if (check_const_int(op->win[d], &k) && k >= 0 && k + op->win_len[d] <= n) continue;
      const char *in = facts_nonneg(op->win[d]) ? F("%s < %d", *x, n) : F("%s >= 0 && %s < %d", paren(P, *x), paren(P, *x), n);
      m = m ? F("%s && %s", m, in) : in;
    }
  const char *h = half_of(P, op->buf);
  if (f->trans) { /* element (r, c) at c * pitch + r */
    const char *t = r;
    r = c;
    c = t;
  }
  const char *idx = F("%s%s", h, f->cm8 ? at_idx(P, f, at) : elem_idx(P, f, r, c)); /* at_idx transposes itself */
  const char *st;
  if (*runs > 1) {
    int n = *runs;
    Buf vals = {0};
    for (int k = 0; k < n; k++) {
      At e = at;
      e.v = at.v + k;
      buf_printf(&vals, "%s%s", k ? ", " : "", elem_ref(P, op->dst, e));
    }
    st = F("t2c::sts_vec<%d>(&%s[%s], t2c::Vec<%s, %d>{{%s}});", n, f->cname, idx, ctype(f->elem), n, vals.data);
    buf_free(&vals);
  } else {
    st = F("%s[%s] = %s;", f->cname, idx, elem_ref(P, op->dst, at));
  }
  if (m) line(P, "if (%s) %s", m, st);
  else line(P, "%s", st);
}

/* The fast body's view of a copy it stores by TMA (TirBuf.tma_swz): swizzled
 * atoms as TirBuf.swz describes, no padding. */
static TirBuf tma_view(const TirBuf *f) {
  TirBuf g = *f;
  g.swz = f->tma_swz;
  g.cm8 = true;
  g.pitch = f->cols;
  return g;
}

/* TO_SPILL by stmatrix (op->stm matrices per instruction): the 8 x 8 block
 * (ir, ic) of an mma layout is one matrix, its thread's pair of elements the
 * matrix's fragment; lane 8 * j + q gives the address of row q of matrix j. */
static void print_stmatrix(Printer *P, const TirOp *op) {
  const TirBuf *f = &P->K->bufs[op->buf];
  const Layout *l = op->dst->layout;
  const char *row = F("%s + lane %% 8", wtile_row(P, l)), *col = F("%s + lane / 8 %% %d * 8", wtile_col(P, l), op->stm);
  const char *base = F("%s%s", half_of(P, op->buf), elem_idx(P, f, row, col));
  bool tma = P->fast && f->tma_swz;
  TirBuf g = tma_view(f);
  int e = swz_cols(&g);
  for (int ir = 0; ir < l->rr; ir++)
    for (int ic = 0; ic < l->rc; ic += op->stm) {
      Buf regs = {0};
      for (int j = 0; j < op->stm; j++) {
        int r = reg_of(l, (At){l, ir, ic + j, 0});
        buf_printf(&regs, "%st2c::pack2(%s[%d], %s[%d])", j ? ", " : "", op->dst->cname, r, op->dst->cname, r + 1);
      }
      /* swizzled: whole rows of 8 and whole atoms leave the swizzle's bits alone, a chunk inside an atom does not */
      const char *at = tma ? plus_k(P, elem_idx(P, &g, row, plus_k(P, col, ic * 8 % e)), ir * 8 * e + ic * 8 / e * f->rows * e)
                           : plus_k(P, base, ir * 8 * f->pitch + ic * 8);
      if (op->stm == 1) line(P, "t2c::stmatrix_x1(&%s[%s], %s);", f->cname, at, regs.data);
      else line(P, "t2c::stmatrix_x%d(&%s[%s], {%s});", op->stm, f->cname, at, regs.data);
      buf_free(&regs);
    }
  if (tma) line(P, "t2c::fence_proxy_async();  // TMA reads %s through the async proxy", f->cname);
}

static void print_spill(Printer *P, const TirOp *op) {
  const TirBuf *f = &P->K->bufs[op->buf];
  const Layout *l = op->dst->layout;
  if (op->stm) {
    print_stmatrix(P, op);
    return;
  }
  if (f->alternating) line(P, "t2c_ph%d ^= 1;  // %s: this turn writes the other half", op->buf, f->cname);
  int runs = l->vec; /* 16 bytes at most an access */
  while (runs > 1 && runs * elem_bytes[f->elem] > 16) runs /= 2;
  if (f->trans || l->kind != LY_BLOCKED || f->pitch % runs || col_padded(l)) runs = 1;
  int64_t b0 = 0;
  if (op->has_win && op->win[1] && !(check_const_int(op->win[1], &b0) && b0 % runs == 0)) runs = 1;
  each_elem(P, op, l, runs, spill_elem, &runs);
  if (f->cm8) line(P, "t2c::fence_proxy_async();  // wgmma reads %s through the async proxy", f->cname);
}

/* A wgmma operand's copy among the stage rings: its writes need the async proxy's fence. */
static bool cm8_ring(const TirKernel *K) {
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].cm8 && K->bufs[i].stages) return true;
  return false;
}

/* colargmax: the column's rows in order, from row 0. */
static void colarg_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  (void)ctx;
  const TirBuf *f = &P->K->bufs[op->buf];
  const char *c = col_of(P, at), *d = F("%s[%d]", op->dst->cname, reg_of(op->dst->layout, at));
  const char *v = F("t2c_b%d", P->ctr++), *i = F("t2c_i%d", P->ctr++);
  const char *m = col_padded(at.lay) ? F("%s < %d", c, f->cols) : NULL;
  line(P, "%s = 0;", d);
  if (m) line(P, "if (%s) {", m);
  else line(P, "{");
  P->indent++;
  const char *h = half_of(P, op->buf); /* a copy made in a loop: this turn's half */
  line(P, "%s %s = %s;", ctype(tir_acc_type(f->elem)), v, as_acc(P, F("%s[%s%s]", f->cname, h, c), f->elem));
  if (f->rows > 1)
    line(P, "for (int %s = 1; %s < %d; ++%s) t2c::%s_step(%s, %s, %s, %s);", i, i, f->rows, i,
         arg_max(op->red) ? "argmax" : "argmin", v, d, as_acc(P, F("%s[%s%s * %d + %s]", f->cname, h, i, f->pitch, c), f->elem), i);
  P->indent--;
  line(P, "}");
}

/* TO_COLREDUCE: each element of the result folds its column of the shared copy. */
static void colreduce_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  (void)ctx;
  const TirBuf *f = &P->K->bufs[op->buf];
  BuiltinKind b = row_fold(op->red);
  const char *c = col_of(P, at), *d = F("%s[%d]", op->dst->cname, reg_of(op->dst->layout, at));
  const char *i = F("t2c_i%d", P->ctr++);
  const char *m = col_padded(at.lay) ? F("%s < %d", c, f->cols) : NULL;
  if (m) {
    line(P, "%s = %s;", d, red_ident(P, b, op->dst->elem));
    line(P, "if (%s) {", m);
    P->indent++;
  }
  ElemType at_ = tir_acc_type(f->elem);
  const char *h = half_of(P, op->buf); /* a copy made in a loop: this turn's half */
  if (at_ != f->elem) { /* f16, bf16, f8, i8, u8: folded in the wider type, rounded once */
    const char *a = F("t2c_f%d", P->ctr++);
    line(P, "%s %s = %s;", ctype(at_), a, as_acc(P, F("%s[%s%s]", f->cname, h, c), f->elem));
    if (f->rows > 1)
      line(P, "for (int %s = 1; %s < %d; ++%s) %s = %s;", i, i, f->rows, i, a,
           red_fold(P, b, a, as_acc(P, F("%s[%s%s * %d + %s]", f->cname, h, i, f->pitch, c), f->elem)));
    line(P, "%s = t2c::cvt<%s>(%s);", d, ctype(op->dst->elem), a);
  } else {
    line(P, "%s = %s[%s%s];", d, f->cname, h, c);
    if (f->rows > 1)
      line(P, "for (int %s = 1; %s < %d; ++%s) %s = %s;", i, i, f->rows, i, d,
           red_fold(P, b, d, F("%s[%s%s * %d + %s]", f->cname, h, i, f->pitch, c)));
  }
  if (m) {
    P->indent--;
    line(P, "}");
  }
}

/* TO_SUM: in-thread over the value's elements (padding left out), then the warp.
 * A row or column value (a slice) is held by every thread of its row (column):
 * only the first of them, at column (row) 0, counts it. */
typedef struct SumCtx {
  int started;
  const char *holder; /* the thread counts its elements (NULL: always) */
} SumCtx;

static void sum_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  SumCtx *s = ctx;
  const char *d = F("%s[0]", op->dst->cname);
  const char *v = as_acc(P, elem_ref(P, op->src, at), op->src->elem); /* the sum's value is of the wider type */
  const char *m = tile_mask(P, at);
  if (s->holder) m = m ? F("%s && %s", s->holder, m) : s->holder;
  if (m) v = F("(%s ? %s : %s)", m, v, emit_literal(P->a, op->dst->elem, false, 0, 0));
  line(P, s->started ? "%s += %s;" : "%s = %s;", d, v);
  s->started = 1;
}

static void print_sum(Printer *P, const TirOp *op) {
  SumCtx s = {0, NULL};
  const Layout *l = op->lay, *p = parent_of(l);
  if (l->kind == LY_SLICE && l->dim == 1 && !col_base_zero(p)) s.holder = F("%s == 0", coord(P, p, 1));
  if (l->kind == LY_SLICE && l->dim == 0 && !row_base_zero(p)) s.holder = F("%s == 0", coord(P, p, 0));
  each_elem(P, op, op->lay, 1, sum_elem, &s);
  line(P, "%s[0] = t2c::fold_sum<%d>(%s[0]);", op->dst->cname, P->K->t->lanes, op->dst->cname);
}

/* One element of a tensor: thread 0 stores it, or every thread that gets here
 * under thread-dependent control. */
static void print_element_store(Printer *P, const TirOp *op) {
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  const char *p[4] = {"0", "0", "0", "0"}, *cnd = op->td ? NULL : "tid == 0";
  for (int d = 0; d < X->trank; d++) {
    p[d] = strip(P, ex(P, op->slice->u.index.idx[d].start, T_I32, NULL));
    cnd = and_then(P, cnd, bound(P, X, d, p[d], op->chk[d], op->slice->u.index.idx[d].start));
  }
  const char *v = strip(P, ex(P, op->expr, X->ty.elem, NULL)), *lin = linear(P, X, p);
  const char *st = op->atomic ? F("t2c::%s(%s + %s, %s);", builtin_names[op->atomic], X->cname, paren(P, lin), v)
                              : F("%s[%s] %s %s;", X->cname, lin, op_text(op->op), v);
  if (cnd) line(P, "if (%s) %s", cnd, st);
  else line(P, "%s", st);
}

/* ------------------------------------------------------------ dot on the matrix unit */

/* The operand copy's element (row, col) of buffer bi, as an address for ldmatrix. */
static const char *frag_addr(Printer *P, int bi, const char *row, const char *col) {
  const TirBuf *f = &P->K->bufs[bi];
  return F("&%s[%s(%s) * %d + %s]", f->cname, half_of(P, bi), row, f->pitch, col);
}

/* k + rest, as read: rest alone at k step 0 */
static const char *kplus(Printer *P, const char *k, const char *rest) {
  return strcmp(k, "0") == 0 ? rest : F("%s + %s", k, rest);
}

/* B fragments of tiles j (and j + 1 when pair) at k step k: b[k .. k+16, n .. n+8]
 * of B = the copy ([K, N], ldmatrix .trans), or of B = transpose(copy) ([N, K],
 * plain ldmatrix: the copy's rows are B's columns). */
static void load_b(Printer *P, const TirOp *op, const char *k, const char *n, int j, bool pair) {
  const char *set = op->kind == TO_FRAGS ? F("t2c_fb%d[%d]", op->frag, op->fset) : NULL; /* into a fragment set */
  const char *dst = set ? F("%s[%d]", set, j) : F("t2c_b%d", j + P->boff);
  int e = 16 / elem_bytes[op->src2->elem]; /* elements in the 16 bytes of a matrix row */
  if (pair) {
    const char *q = set ? F("%s, %s[%d]", dst, set, j + 1) : F("t2c_q%d", j + P->boff);
    if (!set) line(P, "unsigned %s[4];", q);
    if (op->btrans)
      line(P, "t2c::ldmatrix_x4(%s, %s);", q,
           frag_addr(P, op->buf2, F("%s + (lane / 16) * 8 + lane %% 8", n), kplus(P, k, F("(lane / 8 %% 2) * %d", e))));
    else
      line(P, "t2c::ldmatrix_x4_trans(%s, %s);", q, frag_addr(P, op->buf2, kplus(P, k, "lane % 16"), F("%s + (lane / 16) * 8", n)));
    if (!set) line(P, "const unsigned %s[2] = {%s[0], %s[1]}, t2c_b%d[2] = {%s[2], %s[3]};", dst, q, q, j + 1 + P->boff, q, q);
    return;
  }
  if (!set) line(P, "unsigned %s[2];", dst);
  if (op->btrans)
    line(P, "t2c::ldmatrix_x2(%s, %s);", dst, frag_addr(P, op->buf2, F("%s + lane %% 8", n), kplus(P, k, F("(lane / 8 %% 2) * %d", e))));
  else
    line(P, "t2c::ldmatrix_x2_trans(%s, %s);", dst, frag_addr(P, op->buf2, kplus(P, k, "lane % 16"), n));
}

/* The A fragment of m tile i at k step k from A's copy: [M, K] by ldmatrix, or
 * [K, M] (A = transpose(copy)) by ldmatrix .trans. */
static void load_a(Printer *P, const TirOp *op, const char *k, const char *m, int i) {
  const char *dst = op->kind == TO_FRAGS ? F("t2c_fa%d[%d][%d]", op->frag, op->fset, i) : F("t2c_a%d", i);
  if (op->kind != TO_FRAGS) line(P, "unsigned %s[4];", dst);
  if (op->atrans)
    line(P, "t2c::ldmatrix_x4_trans(%s, %s);", dst,
         frag_addr(P, op->buf, kplus(P, k, "(lane / 16) * 8 + lane % 8"), F("%s + (lane / 8 %% 2) * 8", m)));
  else
    line(P, "t2c::ldmatrix_x4(%s, %s);", dst,
         frag_addr(P, op->buf, F("%s + lane %% 16", m), kplus(P, k, F("(lane / 16) * %d", 16 / elem_bytes[op->src->elem]))));
}

/* TO_FRAGS: a k step's fragments into a set of the arrays declared with the
 * first (pipeline.c rotate_dot). */
static void print_frags(Printer *P, const TirOp *op) {
  const Layout *l = op->lay;
  int mt = l->rr / 2, nt = l->rc;
  if (op->nsets)
    line(P, "unsigned t2c_fa%d[%d][%d][4], t2c_fb%d[%d][%d][2];  // %d sets of a k step's A and B fragments, each loaded "
         "a step ahead of its mma", op->frag, op->nsets, mt, op->frag, op->nsets, nt, op->nsets);
  if (op->pf_k)
    line(P, "// the next iteration's k %d .. %d, from its stage, into set %d", op->kbeg, op->kend - 1, op->fset);
  else
    line(P, "// k %d .. %d into set %d", op->kbeg, op->kend - 1, op->fset);
  const char *k = F("%d", op->kbeg), *wr = wtile_row(P, l), *wc = wtile_col(P, l);
  P->ring_at = op->nsets ? 2 : op->pf_k; /* the op that declares the sets is before the loop */
  for (int i = 0; i < mt; i++) load_a(P, op, k, plus_k(P, wr, i * 16), i);
  for (int j = 0; j < nt; j += 2) load_b(P, op, k, plus_k(P, wc, j * 8), j, j + 1 < nt);
  P->ring_at = 0;
}

/* The A fragment of m tile i, k step kc, from registers: the A operand's
 * elements in its accumulator layout, rounded and packed in pairs. */
static void pack_a(Printer *P, const TirOp *op, int kc, int i, int name, const char *into) {
  ElemType t = op->expr->u.call.cast;
  const char *e[8];
  for (int q = 0; q < 8; q++) { /* a0: rows g, a1: rows g + 8; a2, a3: the next 8 columns */
    At at = {op->alay, 2 * i + (q / 2) % 2, 2 * kc + q / 4, q % 2};
    e[q] = strip(P, ex(P, op->expr, t, &at));
  }
  if (into) { /* an array declared before (a deferred dot's saved fragments) */
    for (int r = 0; r < 4; r++) line(P, "%s[%d] = t2c::pack2(%s, %s);", into, r, e[2 * r], e[2 * r + 1]);
    return;
  }
  line(P, "const unsigned t2c_a%d[4] = {", name);
  line(P, "    t2c::pack2(%s, %s),", e[0], e[1]);
  line(P, "    t2c::pack2(%s, %s),", e[2], e[3]);
  line(P, "    t2c::pack2(%s, %s),", e[4], e[5]);
  line(P, "    t2c::pack2(%s, %s)};", e[6], e[7]);
}

/* An element of an operand's copy: buffer bi at (row, col) of what it stores. */
static const char *copy_at(Printer *P, int bi, const char *row, const char *col) {
  const TirBuf *f = &P->K->bufs[bi];
  return F("%s[%s%s * %d + %s]", f->cname, half_of(P, bi), paren(P, row), f->pitch, col);
}

/* A dot on the CUDA cores (f32, f64, or one the matrix unit cannot take, its
 * products in the result's type): each thread accumulates its own elements of
 * the result in their layout, reading its rows of A and its columns of B from the
 * operands' shared copies, ku steps of k at a time: A's run along k and B's run
 * along n (the layout's vec columns) by one 16-byte read each where the copy is
 * not read transposed. */
/* A row (or column) of an operand's copy that a padding position of the
 * result's layout reads: clamped into the copy (its product is never used). */
static const char *clamped(Printer *P, const char *x, bool padded, int n) {
  return padded ? F("(%s < %d ? %s : %d)", x, n, x, n - 1) : x;
}

static void print_dot_simt(Printer *P, const TirOp *op) {
  const Layout *l = op->lay, *p = parent_of(l);
  ElemType t = op->src->elem;
  const char *ct = ctype(t);
  int eb = elem_bytes[t];
  /* the thread's rows (repeats) and columns (repeats x runs); a slice holds one of either */
  bool rows1 = l->kind == LY_SLICE && l->dim == 0, cols1 = l->kind == LY_SLICE && l->dim == 1;
  int nrep = rows1 ? 1 : p->rr, ncr = cols1 ? 1 : p->rc, nv = cols1 ? 1 : p->vec, nc = ncr * nv;
  bool rpad = row_padded(l), cpad = col_padded(l);
  /* an accumulator in shared memory (TirVar.home): a loop over the thread's
   * rows, each row's elements in registers for the whole of k */
  bool home = op->dst->home;
  int nr = home ? 1 : nrep;
  const char *d = op->dst->cname;
  int ku = 16 / eb;
  while (ku > 1 && (op->kdim % ku || (nr + nc) * ku > 64)) ku /= 2;
  if (home) {
    const TirBuf *f = &P->K->bufs[op->dst->home - 1];
    line(P, "// on the CUDA cores into %s, which lives in shared memory (%s): each of the thread's %d rows in turn, its %d "
            "elements in registers, A and B from shared copies, %d of k at a time",
         op->dst->sym ? op->dst->sym->name : op->dst->what, f->cname, nrep, nc, ku);
    const char *i = F("t2c_i%d", P->ctr++);
    int step = l->lr * (layout_warp_tiles(l) ? 1 : l->wr); /* as row_of */
    line(P, "#pragma unroll 1");
    line(P, "for (int %s = 0; %s < %d; %s++) {", i, i, nrep, i);
    P->indent++;
    const char *r = step == 1 ? i : F("%s * %d", i, step);
    P->roll = l;
    P->roll_row = row_base_zero(l) ? r : F("%s + %s", coord(P, l, 0), r);
    d = F("t2c_d%d", P->ctr++);
    line(P, "%s %s[%d];", ctype(op->dst->elem), d, nc);
    for (int ic = 0; ic < ncr; ic++)
      for (int v = 0; v < nv; v++)
        line(P, "%s[%d] = %s;", d, ic * nv + v,
             op->op == TK_ASSIGN ? emit_literal(P->a, op->dst->elem, false, 0, 0) : value_at(P, op->dst, &(At){l, 0, ic, v}));
  } else {
    line(P, "// on the CUDA cores: each thread's %d x %d elements, A and B from shared copies, %d of k at a time", nr, nc, ku);
    if (op->op == TK_ASSIGN) /* in the result's type: f16, bf16 and f8 products in f32, i8 in i32 (as_acc) */
      for (int k = 0; k < layout_count(l); k++)
        line(P, "%s[%d] = %s;", d, k, emit_literal(P->a, op->dst->elem, false, 0, 0));
  }
  const char *k = F("t2c_k%d", P->ctr++);
  /* whole when short (ptxas spilled under `unroll 2` in gemm_f32's 4 steps); 4 steps at a
   * time up to 16: whole, ptxas hoisted every step's loads (a 64 x 256 f16 dot into a
   * shared accumulator, 16 steps: 255 registers and a spill, 80 under `unroll 4`; a
   * linear attention's f32 dots 255 and 976 bytes of stack, 168 under it), and under
   * `unroll 8` a decode attention's 16 steps spilled at 56 registers on sm_80 */
  int steps = op->kdim / ku;
  line(P, steps <= 8 ? "#pragma unroll" : steps <= 16 ? "#pragma unroll 4" : "#pragma unroll 1");
  line(P, "for (int %s = 0; %s < %d; %s += %d) {", k, k, op->kdim, k, ku);
  P->indent++;
  for (int i = 0; i < nr; i++) {
    const char *r = clamped(P, row_of(P, (At){l, i, 0, 0}), rpad, op->rows), *a = F("t2c_a%d", i);
    if (!op->atrans && ku > 1) {
      line(P, "const t2c::Vec<%s, %d> %s = t2c::lds_vec<%d>(&%s);", ct, ku, a, ku, copy_at(P, op->buf, r, k));
      continue;
    }
    line(P, "t2c::Vec<%s, %d> %s;", ct, ku, a);
    for (int kk = 0; kk < ku; kk++) {
      const char *kx = kk ? F("%s + %d", k, kk) : k;
      line(P, "%s.v[%d] = %s;", a, kk, op->atrans ? copy_at(P, op->buf, kx, r) : copy_at(P, op->buf, r, kx));
    }
  }
  bool bvec = !op->btrans && !cpad && nv > 1 && nv * eb <= 16;
  for (int kk = 0; kk < ku; kk++) {
    const char *kx = kk ? F("%s + %d", k, kk) : k;
    for (int j = 0; j < ncr; j++) {
      const char *b = F("t2c_b%d_%d", j, kk);
      const char *c0 = col_of(P, (At){l, 0, j, 0});
      if (bvec) {
        line(P, "const t2c::Vec<%s, %d> %s = t2c::lds_vec<%d>(&%s);", ct, nv, b, nv, copy_at(P, op->buf2, kx, c0));
      } else {
        line(P, "t2c::Vec<%s, %d> %s;", ct, nv, b);
        for (int v = 0; v < nv; v++) {
          const char *c = clamped(P, col_of(P, (At){l, 0, j, v}), cpad, op->cols);
          line(P, "%s.v[%d] = %s;", b, v, op->btrans ? copy_at(P, op->buf2, c, kx) : copy_at(P, op->buf2, kx, c));
        }
      }
      for (int i = 0; i < nr; i++)
        for (int v = 0; v < nv; v++)
          line(P, "%s[%d] += %s * %s;", d, home ? j * nv + v : reg_of(l, (At){l, i, j, v}),
               as_acc(P, F("t2c_a%d.v[%d]", i, kk), t), as_acc(P, F("%s.v[%d]", b, v), t));
    }
  }
  P->indent--;
  line(P, "}");
  if (!home) return;
  for (int ic = 0; ic < ncr; ic++)
    for (int v = 0; v < nv; v++) {
      const char *m = tile_mask(P, (At){l, 0, ic, v});
      const char *st = F("%s = %s[%d];", home_ref(P, op->dst, (At){l, 0, ic, v}), d, ic * nv + v);
      if (m) line(P, "if (%s) %s", m, st);
      else line(P, "%s", st);
    }
  P->roll = NULL;
  P->indent--;
  line(P, "}");
}

/* A descriptor of a core-matrix copy (TirBuf.cm8) from element `at` on: the
 * copy's rows run along k (K-major; lbo: the next 8 of k, sbo: the next 8
 * rows) or across it (MN-major: its rows are k; lbo: the next 8 rows of k,
 * sbo: the next 8 columns). Swizzled (TirBuf.swz): K-major, sbo the next 8
 * rows (8 swz bytes) and lbo unused (a k16 step stays inside an atom);
 * MN-major, sbo the next 8 rows of k and lbo the next atom of columns. */
/* Printed as the copy's own descriptor plus the stage's and the element's offsets
 * (t2c::wgmma_desc_at): the first is the same in every iteration, a constant element
 * offset folds, and a stage costs one multiply an iteration, where a descriptor made
 * from each address took 6 to 8 instructions a wgmma. stage: the stage's first element, or
 * NULL (stage_of). */
static const char *wg_desc_in(Printer *P, int bi, const char *stage, const char *at, bool kmajor) {
  const TirBuf *f = &P->K->bufs[bi];
  const char *st = stage ? stage : "0";
  if (f->swz)
    return F("t2c::wgmma_desc_at(%s, %d, %d, %d, %s, %s)", f->cname, kmajor ? 16 : f->rows * f->swz, 8 * f->swz, f->swz,
             st, at);
  int lbo = kmajor ? 128 : 16 * f->pitch, sbo = kmajor ? 16 * f->pitch : 128;
  return F("t2c::wgmma_desc_at(%s, %d, %d, 0, %s, %s)", f->cname, lbo, sbo, st, at);
}
static const char *wg_desc(Printer *P, int bi, const char *at, bool kmajor) {
  return wg_desc_in(P, bi, stage_of(P, bi), at, kmajor);
}

/* The register-A form's wgmmas of dot op, k16 step kc from fragment a[kc]
 * (a: "t2c_a%d" for t2c_a<kc>), B from stage `stage` of its copy. */
/* The first number of dot op's A fragment names (Printer.aop). */
static int a_names(Printer *P, const TirOp *op, int steps) {
  for (int i = 0; i < P->naop; i++)
    if (P->aop[i] == op) return P->abase[i];
  if (P->naop == (int)(sizeof P->aop / sizeof P->aop[0])) die("more than 32 register-A wgmma dots in one kernel");
  P->aop[P->naop] = op;
  P->abase[P->naop++] = P->anext;
  P->anext += steps;
  return P->abase[P->naop - 1];
}

static void wgmma_rs(Printer *P, const TirOp *op, const char *a, int abase, const char *stage) {
  const TirBuf *fb = &P->K->bufs[op->buf2];
  for (int kc = 0; kc < op->kdim / 16; kc++) {
    const char *k = F("%d", kc * 16);
    const char *at = fb->swz     ? (op->btrans ? swz_logical(P, fb, "0", k) : swz_logical(P, fb, k, "0"))
                     : op->btrans ? F("%d", kc * 16 * 8)
                                  : F("%d", kc * 16 * fb->pitch);
    line(P, "t2c::wgmma_%s_rs<%d, %d>(%s, %s, %s);", elem_names[op->expr->u.call.cast], op->cols, !op->btrans,
         op->dst->cname, F(a, abase + kc), wg_desc_in(P, op->buf2, stage, at, op->btrans));
  }
}

/* A dot deferred from the previous iteration (TirOp.defer), issued into the
 * open fence: from its saved A fragments and B's saved stage, when an
 * iteration saved them. */
static void issue_deferred(Printer *P, const TirOp *d, bool tail) {
  const char *saved = F("t2c_df%d", d->defer);
  if (tail) {
    line(P, "if (%s >= 0) {  // the dot at line %d, deferred from the last iteration", saved, d->stmt->loc.line);
    P->indent++;
  } else line(P, "// the dot at line %d, deferred from the previous iteration", d->stmt->loc.line);
  line(P, "t2c::wgmma_fence_operand(%s);", d->dst->cname);
  line(P, "t2c::wgmma_fence();");
  wgmma_rs(P, d, F("%s_a[%%d]", saved), 0, saved);
  if (!tail) return;
  line(P, "t2c::wgmma_commit();");
  line(P, "t2c::wgmma_wait<0>();");
  line(P, "t2c::wgmma_fence_operand(%s);", d->dst->cname);
  P->indent--;
  line(P, "}");
}

/* The ops of b, and inside them, that are wgmma dots issuing the deferred dot d. */
static int issuers_of(const TirBlock *b, const TirOp *d) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    n += (op->kind == TO_DOT && op->dop == d) + issuers_of(&op->body, d) + issuers_of(&op->els, d);
  }
  return n;
}

/* The warpgroups that take turns issuing a loop's wgmma, or 0: with a dot
 * deferred into the next iteration (d, TirOp.defer: attention's P V) and two
 * or more warpgroups, each warpgroup waits for its turn at named barrier
 * 1 + (its index) before it issues the iteration's dots (the new one and the
 * deferred one), and then arrives at the next warpgroup's (FlashAttention-3's
 * scheduler barriers): while one warpgroup works on its scores on the CUDA
 * cores, the tensor cores run the other's products, rather than every
 * warpgroup's product finishing at once and all of them then working on
 * scores. Warpgroup 0 arrives at its own barrier before the loop (it goes
 * first) and waits at it once more after the loop (the last warpgroup's last
 * arrival), so that no arrival is left when the threads exit. Only for the
 * kernel's one deferred dot, issued by one dot, and for a target whose
 * config has features.wg_turns (sm_90a's). */
static int wg_turns(const Printer *P, const TirOp *d) {
  int nwg = P->K->ki->threads / 128;
  if (!P->K->t->wg_turns || nwg < 2 || P->K->ki->threads % 128 || nwg > 8 || P->K->ndefer != 1) return 0;
  return issuers_of(&P->K->body, d) == 1 ? nwg : 0;
}

/* "if (warp < 4) t2c::bar_OP(1, 256); else if .. else t2c::bar_OP(N, 256);": warpgroup g
 * at named barrier 1 + (g + next) % n. Each id a constant, so that ptxas reserves the
 * barriers used (3 for 2 warpgroups), not all 16 as for an id in a register. */
static const char *turn_bars(Printer *P, const char *op, int n, int next) {
  Buf b = {0};
  for (int g = 0; g < n; g++) {
    if (g + 1 < n) buf_printf(&b, "%sif (warp < %d) ", g ? "else " : "", 4 * (g + 1));
    else buf_printf(&b, "else ");
    buf_printf(&b, "t2c::bar_%s(%d, 256);%s", op, 1 + (g + next) % n, g + 1 < n ? " " : "");
  }
  const char *r = F("%s", b.data);
  buf_free(&b);
  return r;
}

static void turn_wait(Printer *P, const TirOp *op) {
  int n = op->dop ? wg_turns(P, op->dop) : 0;
  if (!n) return;
  line(P, "%s  // this warpgroup's turn to issue its wgmma (named barrier 1 + its index)", turn_bars(P, "sync", n, 0));
}

static void turn_pass(Printer *P, const TirOp *op) {
  int n = op->dop ? wg_turns(P, op->dop) : 0;
  if (!n) return;
  line(P, "%s  // the next warpgroup's turn", turn_bars(P, "arrive", n, 1));
}

/* A dot by wgmma m64nNk16 (m64nNk32 for i8 and f8 operands, both K-major),
 * N = the accumulator's columns: warpgroup warp / 4
 * computes rows 64 * (warp / 4) .. + 63 from the operands' core-matrix copies.
 * The wg layout numbers its registers in wgmma's D fragment order (reg_of), so
 * the accumulator array is wgmma's operand itself: nothing touches it between
 * the fence and the wait. One commit group per dot, waited for at once
 * (wait_group 0), or, in a stage ring's loop, left in flight while the next
 * iteration's copies are issued (op->pending, pipeline.c). wgmma_fence_operand
 * pins the accumulator's registers before the fence and after the wait that
 * completes it, so that the compiler moves no other use of them into the
 * asynchronous window. */
static void print_dot_wgmma(Printer *P, const TirOp *op) {
  const TirBuf *fa = op->src ? &P->K->bufs[op->buf] : NULL, *fb = &P->K->bufs[op->buf2];
  int n = op->cols, nr = layout_count(op->lay);
  ElemType t = fa ? op->src->elem : op->expr->u.call.cast;
  bool b8 = elem_bytes[t] == 1; /* a k32 step is 32 bytes, as a k16 step of 16-bit elements is */
  int ks = b8 ? 32 : 16;
  const char *acc = op->dst->cname, *k = F("t2c_k%d", P->ctr++);
  const char *bswz = fb->swz ? F("%d-byte swizzled", fb->swz) : "core matrices";
  const char *how = !fa                ? F("A from registers, B from shared memory by descriptor (%s)", bswz)
                    : fa->swz && fb->swz ? F("A and B from shared memory by descriptors (%d- and %d-byte swizzled)", fa->swz, fb->swz)
                    : fa->swz ? F("A and B from shared memory by descriptors (A %d-byte swizzled, B core matrices)", fa->swz)
                    : fb->swz ? F("A and B from shared memory by descriptors (A core matrices, B %d-byte swizzled)", fb->swz)
                              : "A and B from shared memory by descriptors (core matrices, no swizzle)";
  line(P, "// on tensor cores (%s): m64n%dk%d per warpgroup of 4 warps, %s", b8 ? P->K->hw->wgmma_b8 : P->K->hw->wgmma, n,
       ks, how);
  if (op->op == TK_ASSIGN)
    for (int i = 0; i < nr; i++) line(P, "%s[%d] = %s;", acc, i, t == T_I8 ? "0" : "0.0f");
  /* B [K, N]: k along the rows (MN-major); transpose(copy) [N, K]: k along the columns (K-major). */
  const char *b;
  if (fb->swz) b = op->btrans ? swz_logical(P, fb, "0", k) : swz_logical(P, fb, k, "0");
  else b = op->btrans ? F("%s * 8", k) : F("%s * %d", k, fb->pitch);
  if (!fa) {
    /* the register-A form: each warp's 16 rows of A in the m16n8k16 A fragment, as
     * mma.sync's; packed for every k16 step before the fence, which orders those
     * register writes before wgmma reads them */
    int steps = op->kdim / 16;
    if (op->defer) { /* saved for the next iteration, which issues it (issue_deferred) */
      const char *saved = F("t2c_df%d", op->defer);
      line(P, "// deferred: the next iteration issues it after its first dot and waits for it before %s is used again "
              "(the last iteration's after the loop); its A fragments and B's stage are saved here",
           acc);
      for (int kc = 0; kc < steps; kc++) pack_a(P, op, kc, 0, kc, F("%s_a[%d]", saved, kc));
      line(P, "%s = %s0;", saved, half_of(P, op->buf2));
      return;
    }
    int base = a_names(P, op, steps);
    for (int kc = 0; kc < steps; kc++) pack_a(P, op, kc, 0, base + kc, NULL); /* t2c_a<base + kc>: k 16 kc .. + 15 */
    turn_wait(P, op);
    line(P, "t2c::wgmma_fence_operand(%s);", acc);
    line(P, "t2c::wgmma_fence();");
    wgmma_rs(P, op, "t2c_a%d", base, stage_of(P, op->buf2));
  } else {
    /* A [M, K] (K-major): warpgroup g's rows from 64 g, k along the columns; transpose(copy)
     * [K, M] (MN-major): k along the rows, the warpgroup's columns from 64 g. */
    const char *a;
    if (fa->swz) /* a descriptor starts at the unswizzled index: wgmma swizzles what it reads */
      a = op->atrans ? swz_logical(P, fa, k, "warp / 4 * 64") : swz_logical(P, fa, "warp / 4 * 64", k);
    else if (op->atrans) a = F("warp / 4 * 512 + %s * %d", k, fa->pitch); /* k rows of 8 core matrices ... */
    else a = F("warp / 4 * %d + %s * 8", 64 * fa->pitch, k);      /* ... k / 8 core matrices of 64 */
    turn_wait(P, op);
    line(P, "t2c::wgmma_fence_operand(%s);", acc);
    line(P, "t2c::wgmma_fence();");
    line(P, "#pragma unroll");
    line(P, "for (int %s = 0; %s < %d; %s += %d)", k, k, op->kdim, k, ks);
    if (b8) /* K-major both (layout.c): no transposes to give */
      line(P, "  t2c::wgmma_%s<%d>(%s, %s,", elem_names[t], n, acc, wg_desc(P, op->buf, a, true));
    else
      line(P, "  t2c::wgmma_%s<%d, %d, %d>(%s, %s,", elem_names[t], n, op->atrans, !op->btrans, acc,
           wg_desc(P, op->buf, a, !op->atrans));
    line(P, "      %s);", wg_desc(P, op->buf2, b, op->btrans));
  }
  line(P, "t2c::wgmma_commit();");
  bool deferred = op->dop && !P->peeled; /* the iteration before deferred a dot into this one */
  if (deferred) {
    issue_deferred(P, op->dop, false);
    line(P, "t2c::wgmma_commit();");
  }
  turn_pass(P, op);
  if (deferred) {
    line(P, "t2c::wgmma_wait<1>();  // this dot has completed; the deferred one may still run");
    line(P, "t2c::wgmma_fence_operand(%s);", acc);
  } else if (op->pending > 1) {
    line(P, "t2c::wgmma_wait<%d>();  // the previous iteration's %d dots have completed: their stage may be refilled",
         op->pending, op->pending);
  } else if (op->pending == 1) {
    line(P, "t2c::wgmma_wait<%d>();  // the previous iteration's wgmma has completed: its stage may be refilled", op->pending);
  } else if (op->pending < 0) {
    line(P, "// left in flight: the loop's last dot waits for the previous iteration's groups");
  } else {
    line(P, "t2c::wgmma_wait<0>();");
    line(P, "t2c::wgmma_fence_operand(%s);", acc);
  }
}

/* One k step's mma per 16 x 8 tile of the accumulator, from the fragments just
 * loaded (t2c_a<i>, t2c_b<j>) or from set fset of a dot's loaded a step ahead. */
static void print_mmas(Printer *P, const TirOp *op, const char *fn) {
  const Layout *l = op->lay;
  const char *d = op->dst->cname;
  int nbeg = op->nbeg, nend = op->nend ? op->nend : l->rc;
  for (int i = 0; i < l->rr / 2; i++)
    for (int j = nbeg; j < nend; j++) {
      int r0 = reg_of(l, (At){l, 2 * i, j, 0}), r2 = reg_of(l, (At){l, 2 * i + 1, j, 0});
      const char *a = op->frag ? F("t2c_fa%d[%d][%d]", op->frag, op->fset, i) : F("t2c_a%d", i);
      const char *b = op->frag ? F("t2c_fb%d[%d][%d]", op->frag, op->fset, j) : F("t2c_b%d", j + P->boff);
      line(P, "t2c::%s(%s[%d], %s[%d], %s[%d], %s[%d], %s, %s);", fn, d, r0, d, r0 + 1, d, r2, d, r2 + 1, a, b);
    }
}

/* "the dot at line L" or "the dots at lines L, M and N" over the A of op: the lines of
 * the dots printed with it, or "the dot after it" where they are one statement's. */
static const char *share_lines(Printer *P, const TirOp *op, TirOp *const *with, int n) {
  Buf b = {0};
  for (int w = 0; w < n; w++) {
    if (!with[w]->stmt || with[w]->stmt == op->stmt) {
      buf_free(&b);
      return n > 1 ? "the dots after it" : "the dot after it";
    }
    buf_printf(&b, "%s%d", w == 0 ? "" : w < n - 1 ? ", " : " and ", with[w]->stmt->loc.line);
  }
  const char *s = F("the dot%s at line%s %.*s", n > 1 ? "s" : "", n > 1 ? "s" : "", (int)b.len, b.data);
  buf_free(&b);
  return s;
}

/* Zeroes the accumulator of a dot (or of its part, op's tiles across) that assigns. */
static void zero_acc(Printer *P, const TirOp *op, int nbeg, int nend, bool i8) {
  const Layout *l = op->lay;
  if (op->op == TK_ASSIGN)
    for (int i = 0; i < l->rr; i++)
      for (int j = nbeg; j < nend; j++)
        for (int v = 0; v < l->vec; v++)
          line(P, "%s[%d] = %s;", op->dst->cname, reg_of(l, (At){l, i, j, v}), i8 ? "0" : "0.0f");
}

/* A dot by mma.sync: from shared memory, each k step's A and B fragments by ldmatrix,
 * then the mma of each pair of m16 and n8 tiles; or, A in registers, packed from
 * them. P->with are the dots after it over the same A (tir_dots_sharing_a): their B
 * fragments and mma follow in each k step, after this one's, and A's fragments are
 * loaded once for all. */
static void print_dot(Printer *P, const TirOp *op) {
  TirOp *with[TIR_MAX_SHARE_A];
  int nwith = P->nwith;
  memcpy(with, P->with, sizeof with);
  P->nwith = 0;
  if (op->simt) {
    print_dot_simt(P, op);
    return;
  }
  if (op->wgmma) {
    print_dot_wgmma(P, op);
    return;
  }
  const Layout *l = op->lay;
  int mt = l->rr / 2, nt = l->rc;
  int nbeg = op->nbeg, nend = op->nend ? op->nend : nt; /* a part of its tiles across (layout.c split_dots) */
  ElemType t = op->src ? op->src->elem : op->expr->u.call.cast;
  bool i8 = t == T_I8, b8 = elem_bytes[t] == 1;
  int ks = b8 ? 32 : 16; /* the instruction's k */
  const char *fn = b8 ? F("mma_16832_%s", elem_names[t]) : F("mma_16816_%s", elem_names[t]);
  int kbeg = op->kbeg, kend = op->kend ? op->kend : op->kdim; /* a part of a cut dot (pipeline.c) */
  if (op->frag) { /* a k step of a dot whose fragments are loaded a step ahead */
    if (op->op == TK_ASSIGN)
      for (int k = 0; k < layout_count(l); k++) line(P, "%s[%d] = %s;", op->dst->cname, k, i8 ? "0" : "0.0f");
    line(P, "// k %d .. %d of the dot, from set %d", kbeg, kend - 1, op->fset);
    print_mmas(P, op, fn);
    return;
  }
  bool one = op->src && kend - kbeg == ks;
  const char *part = op->nend ? F("tiles across %d .. %d", nbeg, nend - 1) : NULL;
  for (int w = 0; w < nwith; w++) { /* what print_op says before each */
    if (with[w]->first && with[w]->stmt) emit_stmt_comment(P->K->d, P->o, P->line_file, P->indent, with[w]->stmt, P->out);
    if (with[w]->note && !kbeg) line(P, "// %s", with[w]->note);
  }
  if (kbeg && !one)
    line(P, "// k %d .. %d%s of the %s above", kbeg, kend - 1, part ? F(", %s", part) : "", nwith ? "dots" : "dot");
  else if (!kbeg && nbeg)
    line(P, "// %s of the dot above", part);
  else if (!kbeg)
    line(P, "// on tensor cores (%s): %s, warps %d x %d, each %d x %d tiles of 16 x 8%s%s%s",
         i8 ? P->K->hw->mma_i8 : b8 ? P->K->hw->mma_f8 : P->K->hw->mma,
         op->src ? "A and B from shared memory by ldmatrix" : "A from registers, B from shared memory by ldmatrix", l->wr,
         l->wc, mt, nt,
         nwith ? F("; %s over the same A in the same k steps, each step's A fragments loaded once for %s",
                   share_lines(P, op, with, nwith), nwith > 1 ? "all" : "both")
               : "",
         kend < op->kdim ? F("; k %d .. %d, the rest after the copies below", kbeg, kend - 1) : "",
         part ? F("; %s, then the next part (each part's k steps a loop, then added in: register pressure)", part) : "");
  zero_acc(P, op, nbeg, nend, i8);
  for (int w = 0; w < nwith; w++) zero_acc(P, with[w], 0, nt, i8);
  /* (an A operand in registers reads no warp tile row) */
  const char *wr = op->src ? wtile_row(P, l) : NULL, *wc = wtile_col(P, l);
  /* an A operand in registers is indexed by literals: its k steps are unrolled here; a part
   * of one k step is printed with its literal k too */
  int steps = op->src ? 1 : op->kdim / 16;
  const char *k = NULL;
  if (op->src && !one) {
    k = F("t2c_k%d", P->ctr++);
    line(P, op->rolled_k ? "#pragma unroll 1" : "#pragma unroll");
    line(P, "for (int %s = %d; %s < %d; %s += %d) {", k, kbeg, k, kend, k, ks);
    P->indent++;
  }
  for (int kc = 0; kc < steps; kc++) {
    if (!op->src || one) {
      int k0 = one ? kbeg : kc * 16;
      k = F("%d", k0);
      line(P, "{  // k %d .. %d%s", k0, k0 + ks - 1, one && kbeg ? (nwith ? " of the dots above" : " of the dot above") : "");
      P->indent++;
    }
    for (int i = 0; i < mt; i++) {
      if (op->src) load_a(P, op, k, plus_k(P, wr, i * 16), i);
      else pack_a(P, op, kc, i, i, NULL);
    }
    for (int j = nbeg; j < nend; j += 2) load_b(P, op, k, plus_k(P, wc, j * 8), j, j + 1 < nend);
    print_mmas(P, op, fn);
    for (int w = 0; w < nwith; w++) { /* each its own B fragments, named past the dot's before it */
      P->boff = (w + 1) * nt;
      for (int j = 0; j < nt; j += 2) load_b(P, with[w], k, plus_k(P, wc, j * 8), j, j + 1 < nt);
      print_mmas(P, with[w], fn);
      P->boff = 0;
    }
    if (!op->src || one) {
      P->indent--;
      line(P, "}");
    }
  }
  if (op->src && !one) {
    P->indent--;
    line(P, "}");
  }
}

/* ------------------------------------------------------------ ops and blocks */

static void print_block(Printer *P, const TirBlock *b);

static bool simple_bound(const Expr *x) { return (x->flags & EF_CONST) || x->kind == E_IDENT; }

/* The end and the step of a loop f, as read inside it (or ahead of it, where
 * they are the expressions themselves). */
static const char *loop_end(Printer *P, const Stmt *f) {
  for (const OpenLoop *l = P->open; l; l = l->up)
    if (l->f == f) return l->end;
  return strip(P, ex(P, f->u.forr.hi, T_I32, NULL));
}
static const char *loop_step(Printer *P, const Stmt *f) {
  for (const OpenLoop *l = P->open; l; l = l->up)
    if (l->f == f) return l->step;
  return f->u.forr.step ? strip(P, ex(P, f->u.forr.step, T_I32, NULL)) : "1";
}

/* The loop-local scalars that x reads inlined (TirKernel.ikeys), each once, a value
 * after those it reads. */
static void collect_inlined(const TirKernel *K, const Expr *x, const Sym **ys, const Expr **vs, int *n) {
  if (!x) return;
  switch (x->kind) {
  case E_UNARY: collect_inlined(K, x->u.unary.a, ys, vs, n); break;
  case E_BINARY:
    collect_inlined(K, x->u.binary.a, ys, vs, n);
    collect_inlined(K, x->u.binary.b, ys, vs, n);
    break;
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++) collect_inlined(K, x->u.call.args[i], ys, vs, n);
    break;
  case E_INDEX:
    for (int d = 0; d < x->u.index.nidx; d++) collect_inlined(K, x->u.index.idx[d].start, ys, vs, n);
    break;
  default: break;
  }
  const Sym *y = inlined_scalar(K, x);
  for (int i = 0; y && i < *n; i++)
    if (ys[i] == y) y = NULL;
  if (y && *n < 16) ys[*n] = y, vs[(*n)++] = x;
}

/* The loop-local scalars that the slices of ops[0..n) read (a conv's `var tap = kk / CI`),
 * declared at the top of the block of loads issued ahead that P->subst reads for the
 * loop variable: each computed once, not in every index and bounds test (where ptxas
 * repeated a division for each). Until the block closes (P->nnamed = 0) they print by
 * name. */
static void ahead_locals(Printer *P, const TirOp *const *ops, int n, int k) {
  const Sym *ys[16];
  const Expr *vs[16];
  int ny = 0;
  for (int i = 0; i < n; i++) {
    const Expr *s = ops[i]->slice;
    if (!s || s->kind != E_INDEX) continue;
    for (int d = 0; d < s->u.index.nidx; d++) collect_inlined(P->K, s->u.index.idx[d].start, ys, vs, &ny);
    collect_inlined(P->K, ops[i]->pad, ys, vs, &ny);
  }
  P->nnamed = 0;
  for (int i = 0; i < ny; i++) {
    ElemType t = ys[i]->ty.elem;
    const char *name = F("t2c_%s_at%d", ys[i]->name, k);
    P->defining = ys[i];
    const char *v = strip(P, ex(P, vs[i], t, NULL));
    P->defining = NULL;
    line(P, "const %s %s = %s;  // %s", ctype(t), name, v, ys[i]->name);
    P->nsym[P->nnamed] = ys[i], P->nname[P->nnamed++] = name;
  }
}

/* A load issued k iterations ahead (pipeline.c), into registers declared before
 * the loop: the loop variable reads as base + k * step, and the load runs only
 * while that iteration is inside the loop's range (pf_once: the first iteration's,
 * of a slice the loop does not change). */
static void print_early_load(Printer *P, const TirOp *op) {
  const Stmt *f = op->pf_loop;
  const char *base = op->pf_base ? strip(P, ex(P, op->pf_base, T_I32, NULL)) : op->pf_var->cname;
  const char *step = loop_step(P, f);
  const char *it = op->pf_k == 0 ? base
                   : strcmp(step, "1") == 0 ? F("%s + %d", paren(P, base), op->pf_k)
                                            : F("%s + %d * %s", paren(P, base), op->pf_k, paren(P, step));
  if (op->pf_k == 1 && strcmp(step, "1") != 0) it = F("%s + %s", paren(P, base), paren(P, step));
  if (op->pf_once)
    line(P, "if (%s < %s) {  // %s, the same in every iteration: loaded once", it, paren(P, loop_end(P, f)), op->dst->cname);
  else
    line(P, "if (%s < %s) {  // %s, %d iteration%s ahead", it, paren(P, loop_end(P, f)), op->dst->cname, op->pf_k,
         op->pf_k == 1 ? "" : "s");
  P->indent++;
  P->subst = op->pf_var;
  P->subst_text = strchr(it, ' ') ? F("(%s)", it) : it;
  ahead_locals(P, &op, 1, op->pf_k);
  each_elem(P, op, op->dst->layout, access_vec(P, op), load_elem, NULL);
  P->subst = NULL;
  P->nnamed = 0;
  P->indent--;
  line(P, "}");
}

/* TO_ASYNC_COPY: each thread's runs of the slice into its stage of the ring;
 * cp.async of whole 16-, 8- or 4-byte runs in the fast body (bytes_valid 0 outside
 * the tensor: zeros), element by element otherwise. */
/* One cp.async of `bytes` from X + lin (none, zeros, outside the tensor: !cond) to dst;
 * none at all where mask (a padding position of the layout: outside the stage) fails. */
static void cp_async_line(Printer *P, const char *dst, const Sym *X, const char *lin, const char *cond, const char *mask,
                          int bytes) {
  const char *src = cond ? F("%s + (%s ? %s : 0)", X->cname, cond, lin) : F("%s + %s", X->cname, paren(P, lin));
  guarded_line(P, mask, F("t2c::cp_async_%d(&%s, %s, %s);", bytes, dst, src, cond ? F("%s ? %d : 0", cond, bytes) : F("%d", bytes)));
}

/* Whether a slice op reads a tile index (a gather): its index is read at each element. */
static bool gathers(const TirOp *op) {
  const Expr *s = op->slice;
  const Sym *X = s->u.index.base->u.ident.sym;
  for (int d = 0; d < X->trank; d++)
    if (s->u.index.idx[d].start->ty.rank) return true;
  return false;
}

/* A padding position of the layout (a thread past the tile's rows or columns, when
 * the threads do not divide it) copies nothing: its place is outside the stage. Each
 * copy is guarded by the tile mask (copy_elem sets P->masked: the bounds tests leave
 * it out). */
static void copy_elem_at(Printer *P, const TirOp *op, At at, const char *stage) {
  const TirBuf *f = &P->K->bufs[op->buf];
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  const char *lin, *cond;
  tensor_index(P, op, at, &lin, &cond);
  const char *idx = F("%s%s", stage, at_idx(P, f, at));
  int n = access_vec(P, op), bytes = n * elem_bytes[X->ty.elem];
  /* one cp.async for the whole run (in the general body a run of one element), or for
   * each n elements of a longer one (f32 runs of 8 next to f16; a ring whose pitch keeps
   * only shorter runs aligned: TirOp.vec) */
  bool sized = bytes == 16 || bytes == 8 || bytes == 4;
  if (n == parent_of(at.lay)->vec && sized) {
    cp_async_line(P, F("%s[%s]", f->cname, idx), X, lin, cond, tile_mask(P, at), bytes);
    return;
  }
  if (n > 1 && sized) {
    for (int v0 = 0; v0 < parent_of(at.lay)->vec; v0 += n) {
      At e = at;
      e.v = v0;
      tensor_index(P, op, e, &lin, &cond);
      cp_async_line(P, F("%s[%s%s]", f->cname, stage, at_idx(P, f, e)), X, lin, cond, tile_mask(P, e), bytes);
    }
    return;
  }
  int eb = elem_bytes[X->ty.elem];
  const Layout *pl = parent_of(at.lay);
  if ((eb == 1 || eb == 2) && pl->vec > 1 && (pl->rr * pl->rc * pl->vec >= 32 || P->roll_runs) && !gathers(op)) {
    /* a run of 8- or 16-bit elements, element by element (the general body), where a thread
     * copies 32 or more: one loop over the run, a few iterations unrolled, rather than every
     * element's load in flight at once (fully unrolled, ptxas hoists them all: gemm_i8.tl on
     * sm_90a took 159 registers for this body where the fast one takes 90, and with BK = 128
     * it spilled; with 16 per thread, as in attention_f16.tl, the unrolled copy takes fewer).
     * Fewer where the block's fills together would pass the registers (rolled_fills) */
    At e = at;
    e.v = 0;
    P->vsym = "t2c_v";
    tensor_index(P, op, e, &lin, &cond);
    const char *v = F("%s[%s]", X->cname, lin), *dst = F("%s[%s%s]", f->cname, stage, at_idx(P, f, e));
    P->vsym = NULL;
    /* a run lies inside the tile or outside it as a whole (layout.c's runs divide the
     * columns): its first element decides, before the loop, which declares t2c_v */
    const char *mask = tile_mask(P, e);
    if (mask) {
      line(P, "if (%s) {", mask);
      P->indent++;
    }
    line(P, "#pragma unroll 4");
    line(P, "for (int t2c_v = 0; t2c_v < %d; ++t2c_v) %s = %s;", pl->vec, dst,
         cond ? F("(%s ? %s : %s)", cond, v, emit_literal(P->a, X->ty.elem, false, 0, 0)) : v);
    if (mask) {
      P->indent--;
      line(P, "}");
    }
    return;
  }
  for (int k = 0; k < pl->vec; k++) {
    At e = at;
    e.v = k;
    tensor_index(P, op, e, &lin, &cond);
    if (eb == 4 || eb == 8) { /* still asynchronous, one element per cp.async */
      cp_async_line(P, F("%s[%s%s]", f->cname, stage, at_idx(P, f, e)), X, lin, cond, tile_mask(P, e), eb);
      continue;
    }
    const char *v = F("%s[%s]", X->cname, lin);
    guarded_line(P, tile_mask(P, e), F("%s[%s%s] = %s;", f->cname, stage, at_idx(P, f, e),
                                        cond ? F("(%s ? %s : %s)", cond, v, emit_literal(P->a, X->ty.elem, false, 0, 0)) : v));
  }
}

static void copy_elem(Printer *P, const TirOp *op, At at, void *ctx) {
  P->masked = true;
  copy_elem_at(P, op, at, ctx);
  P->masked = false;
}

/* The loop variable's value in the iteration an op issued ahead fills (pf_k on). */
static const char *ahead_iter(Printer *P, const TirOp *op) {
  const Stmt *f = op->pf_loop;
  const char *base = op->pf_base ? strip(P, ex(P, op->pf_base, T_I32, NULL)) : op->pf_var->cname;
  const char *step = loop_step(P, f);
  const char *it = op->pf_k == 0 ? base
                   : strcmp(step, "1") == 0 ? F("%s + %d", paren(P, base), op->pf_k)
                                            : F("%s + %d * %s", paren(P, base), op->pf_k, paren(P, step));
  if (op->pf_k == 1 && strcmp(step, "1") != 0) it = F("%s + %s", paren(P, base), paren(P, step));
  return it;
}

static void print_async_copy(Printer *P, const TirOp *op) {
  const Stmt *f = op->pf_loop;
  const TirBuf *b = &P->K->bufs[op->buf];
  const char *it = ahead_iter(P, op);
  int per = (int)tir_buf_elems(b);
  const char *stage = op->pf_base ? F("%d * %d + ", op->pf_k, per)
                                  : F("((%s + %d) %% %d) * %d + ", b->counter, op->pf_k, b->stages, per);
  if (op->pf_base && op->pf_k == 0) stage = "";
  line(P, "if (%s < %s) {  // %s, %d iteration%s ahead", it, paren(P, loop_end(P, f)),
       b->cname, op->pf_k, op->pf_k == 1 ? "" : "s");
  P->indent++;
  P->subst = op->pf_var;
  P->subst_text = strchr(it, ' ') ? F("(%s)", it) : it;
  ahead_locals(P, &op, 1, op->pf_k);
  each_elem(P, op, op->lay, parent_of(op->lay)->vec, copy_elem, (void *)stage); /* copy_elem_at: a whole run */
  P->subst = NULL;
  P->nnamed = 0;
  P->indent--;
  line(P, "}");
}

/* ------------------------------------------------------------ TMA rings (pipeline.c) */

/* The loop's counter of a TMA ring's barriers (the counter of the stage buffers it serves):
 * its iterations in this run. */
static const char *run_counter(Printer *P, int mb) {
  for (int i = 0; i < P->K->nbufs; i++)
    if (P->K->bufs[i].ring_mbar == mb + 1) return P->K->bufs[i].counter;
  die("a TMA ring's barriers without a stage buffer");
}

/* The count a TMA ring's stage and phase follow: the run's iterations, or over every
 * run for a ring inside another loop (TirBuf.gbase). */
static const char *mbar_counter(Printer *P, int mb) {
  const TirBuf *m = &P->K->bufs[mb];
  return m->gbase ? m->gbase : run_counter(P, mb);
}

/* The stage (index into the ring) that op, issued pf_k iterations ahead, fills. */
static const char *ahead_stage(Printer *P, const TirOp *op, int stages) {
  if (op->pf_base && !P->K->bufs[op->buf].gbase) return F("%d", op->pf_k);
  return op->pf_k ? F("(%s + %d) %% %d", mbar_counter(P, op->buf), op->pf_k, stages)
                  : F("%s %% %d", mbar_counter(P, op->buf), stages);
}

/* The gbase counter of loop op's TMA ring, if it has one. */
static const char *loop_gbase(const Printer *P, const TirOp *op) {
  for (int i = 0; op->counter && i < P->K->nbufs; i++)
    if (P->K->bufs[i].counter == op->counter && ring_gbase(P->K, &P->K->bufs[i])) return ring_gbase(P->K, &P->K->bufs[i]);
  return NULL;
}

static void print_tma_init(Printer *P, const TirOp *op) {
  const TirBuf *m = &P->K->bufs[op->buf];
  if (m->gbase)
    line(P, "int %s = 0;  // the iterations of the loop at line %d over all its runs: %s's stage and phase", m->gbase,
         op->stmt->loc.line, m->cname);
  line(P, "if (tid == 0) {  // %s: full (one arrival and the stage's bytes), empty (one arrival per warp)", m->cname);
  line(P, "  for (int t2c_s = 0; t2c_s < %d; ++t2c_s) {", m->mbar);
  line(P, "    t2c::mbar_init(&%s[t2c_s], 1);", m->cname);
  line(P, "    t2c::mbar_init(&%s[%d + t2c_s], %d);", m->cname, m->mbar, P->K->ki->threads / P->K->t->lanes);
  line(P, "  }");
  line(P, "  t2c::fence_mbarrier_init();  // visible to the async proxy (TMA's complete_tx)");
  line(P, "}");
}

/* A TMA box's slice: its first row and column, and the outer dims' indices,
 * innermost first, as TMA takes coordinates (", i1, i0"). */
typedef struct TmaAt {
  const char *row, *col, *outer;
} TmaAt;

static TmaAt tma_at(Printer *P, const Expr *slice) {
  int nd = slice->u.index.nidx;
  TmaAt t = {strip(P, ex(P, slice->u.index.idx[nd - 2].start, T_I32, NULL)),
             strip(P, ex(P, slice->u.index.idx[nd - 1].start, T_I32, NULL)), ""};
  for (int d = nd - 3; d >= 0; d--) t.outer = F("%s, %s", t.outer, strip(P, ex(P, slice->u.index.idx[d].start, T_I32, NULL)));
  return t;
}

/* One TMA box per atom of the copy (TirBuf.swz): atom a holds columns [a E, a E + E). */
static void print_tma_load(Printer *P, const TirOp *l, const char *stage, const char *full) {
  const TirBuf *b = &P->K->bufs[l->buf];
  const TmaMap *m = &P->K->ki->tmaps[l->tmap];
  int nd = l->slice->u.index.nidx;
  TmaAt t = tma_at(P, l->slice);
  const char *row = t.row, *col = t.col, *outer = t.outer;
  int per = (int)tir_buf_elems(b), atom = b->rows * m->box_cols;
  for (int a = 0; a < b->cols / m->box_cols; a++) {
    const char *off = strcmp(stage, "0") == 0 ? (a ? F("%d", a * atom) : "0")
                                              : a ? F("%s * %d + %d", paren(P, stage), per, a * atom) : F("%s * %d", paren(P, stage), per);
    const char *c = a ? (strcmp(col, "0") == 0 ? F("%d", a * m->box_cols) : F("%s + %d", col, a * m->box_cols)) : col;
    line(P, "t2c::tma_load_%dd(&%s[%s], &%s, %s, %s%s, %s);", nd, b->cname, off, m->cname, c, row, outer, full);
  }
}

static void print_tma_issue(Printer *P, const TirOp *op) {
  const TirBuf *m = &P->K->bufs[op->buf];
  const char *it = ahead_iter(P, op), *stage = ahead_stage(P, op, m->mbar);
  const char *names = "";
  int64_t bytes = 0;
  for (int i = 0; i < op->body.ops.len; i++) {
    const TirOp *l = op->body.ops.items[i];
    const TirBuf *b = &P->K->bufs[l->buf];
    bytes += (int64_t)b->rows * b->cols * elem_bytes[b->elem];
    names = i ? F("%s, %s", names, b->cname) : b->cname;
  }
  line(P, "if (tid == 0 && %s < %s) {  // %s, %d iteration%s ahead, by TMA", it,
       paren(P, loop_end(P, op->pf_loop)), names, op->pf_k, op->pf_k == 1 ? "" : "s");
  P->indent++;
  if (!op->pf_base || m->gbase) { /* a stage used before: every warp has released it (TO_TMA_RELEASE) */
    const char *ctr = mbar_counter(P, op->buf);
    const char *g = op->pf_k ? F("%s + %d", ctr, op->pf_k) : ctr;
    line(P, "if (%s >= %d) t2c::mbar_wait_parity(&%s[%d + %s], (%s / %d + 1) & 1);  // no warp reads the stage any more", g,
         m->mbar, m->cname, m->mbar, stage, op->pf_k ? F("(%s)", g) : g, m->mbar);
  }
  const char *full = F("&%s[%s]", m->cname, stage);
  line(P, "t2c::mbar_arrive_expect_tx(%s, %" PRId64 ");", full, bytes);
  P->subst = op->pf_var;
  P->subst_text = strchr(it, ' ') ? F("(%s)", it) : it;
  ahead_locals(P, (const TirOp *const *)op->body.ops.items, op->body.ops.len, op->pf_k);
  for (int i = 0; i < op->body.ops.len; i++) print_tma_load(P, op->body.ops.items[i], stage, full);
  P->subst = NULL;
  P->nnamed = 0;
  P->indent--;
  line(P, "}");
}

/* TO_TMA_STORE: lane 0 of each warp stores the warp's tile of the copy, one
 * box per atom (atom a: columns [a E, a E + E) of the tile); a box starts at
 * a multiple of 8 rows of an atom, where the swizzle leaves the index alone. */
static void print_tma_store(Printer *P, const TirOp *op) {
  const TirBuf *f = &P->K->bufs[op->buf];
  const TmaMap *m = &P->K->ki->tmaps[op->tmap];
  const Layout *l = op->lay;
  TirBuf g = tma_view(f);
  TmaAt t = tma_at(P, op->slice);
  const char *wr = wtile_row(P, l), *wc = wtile_col(P, l);
  line(P, "if (lane == 0) {  // this warp's %d x %d tile of %s, by TMA (elements out of range are clipped)", l->rr * 8,
       l->rc * 8, f->cname);
  for (int a = 0; a < l->rc * 8 / m->box_cols; a++)
    line(P, "  t2c::tma_store_%dd(&%s, %s + %s, %s + %s%s, &%s[%s]);", op->slice->u.index.nidx, m->cname, paren(P, t.col),
         plus_k(P, wc, a * m->box_cols), paren(P, t.row), wr, t.outer, f->cname,
         plus_k(P, swz_logical(P, &g, wr, wc), a * f->rows * m->box_cols));
  line(P, "  t2c::tma_store_commit();");
  line(P, "  t2c::tma_store_wait_read<0>();  // %s may be written again after the next barrier", f->cname);
  line(P, "}");
}

static void print_tma_wait(Printer *P, const TirOp *op) {
  const TirBuf *m = &P->K->bufs[op->buf];
  const char *ctr = mbar_counter(P, op->buf);
  line(P, "t2c::mbar_wait_parity(&%s[%s %% %d], (%s / %d) & 1);  // this iteration's stage has landed", m->cname, ctr,
       m->mbar, ctr, m->mbar);
}

static void print_tma_release(Printer *P, const TirOp *op) {
  const TirBuf *m = &P->K->bufs[op->buf];
  const char *ctr = mbar_counter(P, op->buf);
  if (op->pending)
    line(P, "if (lane == 0 && %s >= %d) t2c::mbar_arrive(&%s[%d + (%s - %d) %% %d]);  // this warp's wgmma of %d iteration%s back has completed: "
            "its stage may be refilled",
         run_counter(P, op->buf), op->pending, m->cname, m->mbar, ctr, op->pending, m->mbar, op->pending,
         op->pending == 1 ? "" : "s");
  else
    line(P, "if (lane == 0) t2c::mbar_arrive(&%s[%d + %s %% %d]);  // this warp no longer reads this iteration's stage",
         m->cname, m->mbar, ctr, m->mbar);
}

/* TO_TMA_BEGIN, TO_TMA_END: a ring inside another loop whose last wgmma of a run stays in
 * flight past the run's last iteration, so that iteration's stage is released after the loop. */
static void print_tma_begin(Printer *P, const TirOp *op) {
  const TirBuf *m = &P->K->bufs[op->buf];
  line(P, "const int %s = %s;  // where this run of the loop starts in %s's count", m->gstart, m->gbase, m->cname);
}

static void print_tma_end(Printer *P, const TirOp *op) {
  const TirBuf *m = &P->K->bufs[op->buf];
  line(P, "if (lane == 0 && %s != %s) t2c::mbar_arrive(&%s[%d + (%s - 1) %% %d]);  // this warp's last wgmma has completed: "
          "the next run may refill its stage",
       m->gbase, m->gstart, m->cname, m->mbar, m->gbase, m->mbar);
}

static void print_scalar(Printer *P, const TirOp *op) {
  const Stmt *s = op->stmt;
  if (s->kind == S_VAR) {
    const Sym *y = s->u.decl.sym;
    const char *v = s->u.decl.init ? ex(P, s->u.decl.init, y->ty.elem, NULL)
                                   : emit_literal(P->a, y->ty.elem, false, 0, 0);
    line(P, "%s%s %s = %s;%s", y->dead ? "[[maybe_unused]] " : "", ctype(y->ty.elem), y->cname, strip(P, v),
         y->dead ? "  // never read (-Wunused)" : "");
    return;
  }
  const Sym *y = s->u.assign.lhs->u.ident.sym;
  line(P, "%s %s %s;", y->cname, op_text(s->u.assign.op), strip(P, ex(P, s->u.assign.rhs, y->ty.elem, NULL)));
}

/* The loop's head; its end and step are copied to consts first when they are
 * not a constant or a name, or when the body writes what they read
 * (TirOp.once): range() takes them as they are when the loop starts. */
/* A loop's @unroll, right before its for. */
static void print_unroll(Printer *P, const Stmt *s) {
  for (int i = 0; i < s->nattrs; i++)
    if (s->attrs[i]->kind == A_UNROLL)
      line(P, s->attrs[i]->nargs ? "#pragma unroll %" PRId64 : "#pragma unroll",
           s->attrs[i]->nargs ? s->attrs[i]->args[0]->cv.i : (int64_t)0);
}

/* A for loop's first value, end and step as printed (an end or step the body may change, or not
 * a plain name or literal, taken once before it; a step that is no constant, checked). */
static void loop_bounds(Printer *P, const TirOp *op, const char **lo, const char **hi, const char **step) {
  const Stmt *s = op->stmt;
  *lo = strip(P, ex(P, s->u.forr.lo, T_I32, NULL));
  *hi = strip(P, ex(P, s->u.forr.hi, T_I32, NULL));
  *step = s->u.forr.step ? strip(P, ex(P, s->u.forr.step, T_I32, NULL)) : "1";
  if (!simple_bound(s->u.forr.hi) || (op->once & TIR_ONCE_END)) {
    const char *n = F("t2c_end%d", P->ctr++);
    line(P, "const int %s = %s;", n, *hi);
    *hi = n;
  }
  if (s->u.forr.step && (!simple_bound(s->u.forr.step) || (op->once & TIR_ONCE_STEP))) {
    const char *n = F("t2c_step%d", P->ctr++);
    line(P, "const int %s = %s;", n, *step);
    *step = n;
  }
  if (s->u.forr.step && !(s->u.forr.step->flags & EF_CONST)) /* a step <= 0 never ends: checked on the CPU backend */
    line(P, "t2c::check_step(%s);", *step);
}

/* A loop whose register rings rotate (TirOp.rot, rbody): its copies in turn, an iteration of rot
 * steps; each copy is one iteration of the loop as written, in a block of its own that declares
 * the loop variable, and the copies after the first run only while it is inside the range. */
static void print_rotated(Printer *P, const TirOp *op) {
  const Stmt *s = op->stmt;
  const char *lo, *hi, *step, *it = F("t2c_it%d", P->ctr++);
  loop_bounds(P, op, &lo, &hi, &step);
  OpenLoop open = {s, hi, step, P->open};
  P->open = &open;
  const char *ps = paren(P, step);
  const char *by = strcmp(step, "1") == 0 ? F("%d", op->rot) : F("%d * %s", op->rot, ps);
  line(P, "for (int %s = %s; %s < %s; %s += %s) {  // %d iterations: the rings' slots in turn, none shifted", it, lo, it, hi,
       it, by, op->rot);
  P->indent++;
  for (int j = 0; j < op->rot; j++) {
    const char *at = j == 0 ? it : strcmp(step, "1") == 0 ? F("%s + %d", it, j) : j == 1 ? F("%s + %s", it, ps)
                                                                                         : F("%s + %d * %s", it, j, ps);
    if (j > 0) line(P, "if (%s >= %s) break;", at, hi);
    line(P, "{  // its slot %d of each ring", j + 1);
    P->indent++;
    line(P, "const int %s = %s;", s->u.forr.sym->cname, at);
    P->nmirror = 0;
    P->inloop++;
    print_block(P, &op->rbody[j]);
    P->inloop--;
    P->nmirror = 0;
    P->indent--;
    line(P, "}");
  }
  P->indent--;
  line(P, "}");
  P->open = open.up;
}

static void print_for(Printer *P, const TirOp *op, OpenLoop *open, bool peel) {
  const Stmt *s = op->stmt;
  const Sym *v = s->u.forr.sym;
  const char *lo, *hi, *step;
  loop_bounds(P, op, &lo, &hi, &step);
  *open = (OpenLoop){s, hi, step, P->open};
  P->open = open;
  const char *inc = strcmp(step, "1") == 0 ? F("++%s", v->cname) : F("%s += %s", v->cname, step);
  if (op->counter) inc = F("%s, ++%s", inc, op->counter); /* the stage rings' iteration count */
  const char *g = P->fast ? loop_gbase(P, op) : NULL;
  if (g) inc = F("%s, ++%s", inc, g); /* and the TMA ring's, over every run (TirBuf.gbase) */
  if (!peel) {
    print_unroll(P, s);
    if (op->counter)
      line(P, "for (int %s = %s, %s = 0; %s < %s; %s) {", v->cname, lo, op->counter, v->cname, hi, inc);
    else
      line(P, "for (int %s = %s; %s < %s; %s) {", v->cname, lo, v->cname, hi, inc);
    return;
  }
  /* a loop with a deferred dot (TirOp.dop): its first iteration on its own,
   * where no dot from an iteration before it is issued or waited for (a
   * branch around those would make ptxas wait for every wgmma after it) */
  line(P, "{");
  P->indent++;
  if (op->counter) line(P, "int %s = %s, %s = 0;", v->cname, lo, op->counter);
  else line(P, "int %s = %s;", v->cname, lo);
  line(P, "if (%s < %s) {  // the first iteration: no dot deferred into it", v->cname, hi);
  P->indent++;
  P->peeled = true;
  print_block(P, &op->body);
  P->peeled = false;
  line(P, "%s;", inc);
  P->indent--;
  line(P, "}");
  print_unroll(P, s);
  line(P, "for (; %s < %s; %s) {", v->cname, hi, inc);
}

/* Whether loop op's body has a dot that issues one deferred from the iteration before. */
static bool defers(const TirOp *op) {
  for (int i = 0; i < op->body.ops.len; i++)
    if (((const TirOp *)op->body.ops.items[i])->dop) return true;
  return false;
}

static void print_decl(Printer *P, const TirVar *v) {
  if (v->home) return; /* its shared copy */
  if (v->packed) {
    int n = layout_count(v->layout);
    line(P, "unsigned %s[%d]%s;  // %d %s elements, %d a register", v->cname, tir_packed_words(v->elem, n),
         layout_padded(v->layout) ? " = {}" : "", n, elem_names[v->elem], 4 / elem_bytes[v->elem]);
    return;
  }
  bool dead = v->sym && v->sym->dead; /* never read: nvcc warned that it was set but never used */
  line(P, "%s%s %s[%d]%s;%s", dead || v->unread || v->mirrored ? "[[maybe_unused]] " : "", ctype(v->elem), v->cname,
       layout_count(v->layout), layout_padded(v->layout) ? " = {}" : "",
       dead        ? "  // never read (-Wunused)"
       : v->unread ? "  // read only by its own update, carried (set, never read)"
       : v->mirrored ? "  // its reads as f32 convert its ring slot's words (t2c::part_f32)"
                     : "");
}

static bool reads_once(const TirOp *op);
static void print_op_kind(Printer *P, const TirOp *op);

/* The wgmma operand copy (TirBuf.cm8) that op writes as its value's shared home
 * (TirVar.home), or NULL: its generic-proxy writes need the async proxy's fence
 * before the barrier that hands them to wgmma, as a spill's do (print_spill). */
static const TirBuf *wgmma_home_written(const TirKernel *K, const TirOp *op) {
  if (!op->dst || !op->dst->home || (op->kind != TO_LOAD && op->kind != TO_ASSIGN && op->kind != TO_DOT)) return NULL;
  const TirBuf *f = &K->bufs[op->dst->home - 1];
  return f->cm8 ? f : NULL;
}

static void print_op(Printer *P, const TirOp *op) {
  if (op->first && op->stmt) emit_stmt_comment(P->K->d, P->o, P->line_file, P->indent, op->stmt, P->out);
  if (op->note) line(P, "// %s", op->note);
  if (op->only && op->only != (P->fast ? TIR_FAST : TIR_GENERAL)) return; /* the other body's */
  Once once = {P->out->len, P->indent, 0, {0}, {0}}, *up = P->once;
  P->once = reads_once(op) ? &once : NULL;
  P->nfrun = 0;
  print_op_kind(P, op);
  P->once = up;
  P->nfrun = 0;
  const TirBuf *h = wgmma_home_written(P->K, op);
  if (h) line(P, "t2c::fence_proxy_async();  // wgmma reads %s through the async proxy", h->cname);
}

/* Whether op evaluates its expression at many elements of each thread (Printer.once): an
 * elementwise op, a load, a store, a reduction or scan; not one issued ahead (pipeline.c). */
static bool reads_once(const TirOp *op) {
  switch (op->kind) {
  case TO_LOAD: case TO_ASSIGN: case TO_STORE: case TO_REDUCE: case TO_COLREDUCE: case TO_SCAN: case TO_SUM:
    return !op->pf_var && op->lay && op->lay->kind != LY_SCALAR && layout_count(op->lay) > 1;
  default: return false;
  }
}

/* A staged load's run (layout.c stage_load) in the general body: one loop over the run into
 * the copy, a few iterations unrolled, rather than every element's load in flight at once
 * (a 128 x 256 GEMM's residual, 128 f16 a thread beside 128 accumulators, spilled so), as
 * copy_elem_at does for a stage ring's. */
static void home_run_loop(Printer *P, const TirOp *op, At at, void *ctx) {
  (void)ctx;
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  const char *lin, *cond;
  at.v = 0;
  P->masked = true;
  P->vsym = "t2c_v";
  tensor_index(P, op, at, &lin, &cond);
  const char *v = F("%s[%s]", X->cname, lin), *dst = home_ref(P, op->dst, at);
  const char *mask = tile_mask(P, at);
  P->vsym = NULL;
  P->masked = false;
  const char *pad = op->pad ? ex(P, op->pad, X->ty.elem, NULL) : emit_literal(P->a, X->ty.elem, false, 0, 0);
  if (mask) {
    line(P, "if (%s) {", mask);
    P->indent++;
  }
  line(P, "#pragma unroll 4");
  line(P, "for (int t2c_v = 0; t2c_v < %d; ++t2c_v) %s = %s;", parent_of(at.lay)->vec, dst,
       cond ? F("(%s ? %s : %s)", cond, v, pad) : v);
  if (mask) {
    P->indent--;
    line(P, "}");
  }
}

/* A ring's shift between packed slots (pipeline.c): word by word. */
static bool packed_copy(Printer *P, const TirOp *op) {
  const TirVar *src = op->dst && op->dst->packed && op->expr ? tir_hoisted(P->K, op->expr) : NULL;
  if (!src || !src->packed || src->elem != op->dst->elem || src->layout != op->dst->layout || op->op != TK_ASSIGN ||
      op->has_win || op->uguard)
    return false;
  for (int k = 0; k < tir_packed_words(src->elem, layout_count(src->layout)); k++)
    line(P, "%s[%d] = %s[%d];", op->dst->cname, k, src->cname, k);
  return true;
}

/* op's elements in its layout; an op uniform.c guarded (an assign, a store in a loop)
 * twice: under its guard, where its where()s take their first branch, else as written. */
static void each_elem_guarded(Printer *P, const TirOp *op, int step, ElemFn fn) {
  if (!op->uguard) {
    each_elem(P, op, op->lay, step, fn, NULL);
    return;
  }
  line(P, "if (%s) {  // every element takes the where()'s first branch", strip(P, ex(P, op->uguard, T_BOOL, NULL)));
  P->indent++;
  P->uop = op;
  each_elem(P, op, op->lay, step, fn, NULL);
  P->uop = NULL;
  P->indent--;
  line(P, "} else {");
  P->indent++;
  each_elem(P, op, op->lay, step, fn, NULL);
  P->indent--;
  line(P, "}");
}

static void print_op_kind(Printer *P, const TirOp *op) {
  OpenLoop open;
  switch (op->kind) {
  case TO_SCALAR: print_scalar(P, op); return;
  case TO_DECL: print_decl(P, op->dst); return;
  case TO_LOAD:
    if (op->pf_var) {
      print_early_load(P, op);
      return;
    }
    if (op->dst->fused == op) return; /* its reader reads the tensor */
    if (!op->dst->sym) print_decl(P, op->dst); /* a tile var has its own declaration */
    if (op->staged && access_vec(P, op) == 1 && parent_of(op->dst->layout)->vec > 1 && elem_bytes[op->dst->elem] <= 2) {
      each_elem(P, op, op->dst->layout, parent_of(op->dst->layout)->vec, home_run_loop, NULL);
      return;
    }
    each_elem(P, op, op->dst->layout, access_vec(P, op), load_elem, NULL);
    return;
  case TO_ASSIGN:
    if (op->mirror && P->nmirror < (int)(sizeof P->mv / sizeof P->mv[0])) {
      P->mv[P->nmirror] = op->dst;
      P->ms[P->nmirror++] = tir_hoisted(P->K, op->expr);
    }
    if (packed_copy(P, op)) return;
    if (op->lay->kind == LY_SCALAR) { /* a scalar value (a store's that reads its own tensor) */
      line(P, "%s[0] %s %s;", op->dst->cname, op_text(op->op), strip(P, ex(P, op->expr, op->dst->elem, NULL)));
      return;
    }
    each_elem_guarded(P, op, 1, assign_elem);
    return;
  case TO_REDUCE:
    if (!op->intra) print_decl(P, op->dst); /* (an in-thread fold adds to partials declared before the loop) */
    print_reduce(P, op);
    return;
  case TO_SCRATCH_WRITE: case TO_SCRATCH_READ: print_scratch(P, op); return;
  case TO_STORE:
    if (op->rows == 0) print_element_store(P, op);
    else each_elem_guarded(P, op, access_vec(P, op), store_elem);
    return;
  case TO_SPILL: print_spill(P, op); return;
  case TO_DOT: print_dot(P, op); return;
  case TO_FRAGS: print_frags(P, op); return;
  case TO_COLREDUCE:
    print_decl(P, op->dst);
    each_elem(P, op, op->dst->layout, 1, builtin_class[op->red] == BC_ARG ? colarg_elem : colreduce_elem, NULL);
    return;
  case TO_SCAN: print_scan(P, op); return;
  case TO_SUM: print_sum(P, op); return;
  case TO_BARRIER: line(P, "%s();  // %s", op->warp ? "__syncwarp" : "__syncthreads", op->reason); return;
  case TO_ASYNC_COPY: print_async_copy(P, op); return;
  case TO_ASYNC_COMMIT: line(P, "t2c::cp_async_commit();"); return;
  case TO_WG_WAIT:
    if (op->dop && P->peeled) return; /* nothing deferred into the first iteration */
    if (op->dop)
      line(P, "t2c::wgmma_wait<%d>();  // the previous iteration's dot at line %d, deferred, has completed", op->pending,
           op->dop->stmt->loc.line);
    else if (op->pending >= 0) line(P, "t2c::wgmma_wait<%d>();  // the loop's last wgmma has completed", op->pending);
    line(P, "t2c::wgmma_fence_operand(%s);", op->dst->cname);
    return;
  case TO_WG_DEFER:
    if (op->pending) {
      if (wg_turns(P, op->dop))
        line(P, "if (warp < 4) t2c::bar_sync(1, 256);  // the last warpgroup's last turn has passed to warpgroup 0");
      issue_deferred(P, op->dop, true);
      return;
    }
    line(P, "unsigned t2c_df%d_a[%d][4];  // the dot at line %d, deferred into the next iteration: its A fragments",
         op->dop->defer, op->dop->kdim / 16, op->dop->stmt->loc.line);
    line(P, "int t2c_df%d = -1;  // and B's stage (-1: none yet)", op->dop->defer);
    if (wg_turns(P, op->dop))
      line(P, "if (warp < 4) t2c::bar_arrive(1, 256);  // the warpgroups issue the loop's wgmma in turn: warpgroup 0 first");
    return;
  case TO_WG_PIN: line(P, "t2c::wgmma_fence_operand(%s);  // its registers hold it before the loop", op->dst->cname); return;
  case TO_ASYNC_WAIT:
    line(P, "t2c::cp_async_wait<%d>();", op->pending);
    if (cm8_ring(P->K)) line(P, "t2c::fence_proxy_async();  // wgmma reads the stages through the async proxy");
    return;
  case TO_TMA_INIT: print_tma_init(P, op); return;
  case TO_TMA_ISSUE: print_tma_issue(P, op); return;
  case TO_TMA_LOAD: die("a TMA load outside its issue");
  case TO_TMA_WAIT: print_tma_wait(P, op); return;
  case TO_TMA_RELEASE: print_tma_release(P, op); return;
  case TO_TMA_BEGIN: print_tma_begin(P, op); return;
  case TO_TMA_END: print_tma_end(P, op); return;
  case TO_TMA_STORE: print_tma_store(P, op); return;
  case TO_BREAK: line(P, "break;"); return;
  case TO_CONTINUE: line(P, "continue;"); return;
  case TO_FOR:
    if (op->rbody && op->rot > 1) {
      print_rotated(P, op);
      return;
    }
    print_for(P, op, &open, defers(op));
    break;
  case TO_WHILE: line(P, "while (%s) {", strip(P, ex(P, op->stmt->u.whil.cond, T_BOOL, NULL))); break;
  case TO_IF: line(P, "if (%s) {", strip(P, ex(P, op->stmt->u.iff.cond, T_BOOL, NULL))); break;
  }
  P->indent++;
  P->nmirror = 0;
  bool loop = op->kind == TO_FOR || op->kind == TO_WHILE;
  P->inloop += loop;
  print_block(P, op->rbody ? &op->rbody[0] : &op->body); /* a ring of one value: refilled at the body's end */
  P->inloop -= loop;
  P->nmirror = 0;
  P->indent--;
  if (op->kind == TO_FOR) P->open = open.up;
  if (op->has_els) {
    line(P, "} else {");
    P->indent++;
    print_block(P, &op->els);
    P->indent--;
  }
  line(P, "}");
  if (op->kind == TO_FOR && defers(op)) { /* print_for's peeled first iteration */
    P->indent--;
    line(P, "}");
  }
}

/* The blocks per SM __launch_bounds__ names: the ones that fit where @launch asked for
 * more than its shared memory lets fit (KernelInfo.fit_blocks), @launch's, or those the
 * registers were planned for; 0: none. */
static int bound_blocks(const KernelInfo *ki) {
  return ki->fit_blocks ? ki->fit_blocks : ki->min_blocks ? ki->min_blocks : ki->plan_blocks;
}

/* The elements per thread ring fill op copies one at a time in the body being printed
 * (8- or 16-bit elements in runs no cp.async moves: the general body's, an unaligned
 * slice's in the fast one), else 0. */
static int copied_singly(Printer *P, const TirOp *op) {
  if (op->kind != TO_ASYNC_COPY || (op->only && op->only != (P->fast ? TIR_FAST : TIR_GENERAL))) return 0;
  const Sym *X = op->slice->u.index.base->u.ident.sym;
  int eb = elem_bytes[X->ty.elem], bytes = access_vec(P, op) * eb;
  const Layout *pl = parent_of(op->lay);
  if ((eb != 1 && eb != 2) || bytes == 16 || bytes == 8 || bytes == 4 || gathers(op)) return 0;
  return pl->rr * pl->rc * pl->vec;
}

/* Whether block b's ring fills copy their runs as loops, few elements in flight at once:
 * unrolled, ptxas issues every fill's loads of the block together, before any store (an
 * LSTM cell's general body, four [64, 64] f32 accumulators over 128 threads and five
 * fills of 16 f16 a thread in each iteration of its loops: 80 loads beside the 128
 * accumulators, 255 registers and a spill on sm_80 and sm_90), though each fill alone
 * is under copy_elem_at's 32. So where the values live at the first fill, its loads and
 * about 48 registers of addresses pass what a thread may have (less the margin
 * -Wregister-pressure keeps: 16). */
static bool rolled_fills(Printer *P, const TirBlock *b) {
  const TirOp *first = NULL;
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    int k = copied_singly(P, b->ops.items[i]);
    if (k && !first) first = b->ops.items[i];
    n += k;
  }
  if (n < 32) return false;
  const TargetConfig *t = P->K->t;
  int threads = P->K->ki->threads, blocks = bound_blocks(P->K->ki);
  int limit = tir_thread_regs(t, threads, blocks);
  if (!limit) return false;
  return tir_value_regs_at(P->K, first) + n + 48 > limit - 16;
}

static void print_block(Printer *P, const TirBlock *b) {
  bool up = P->roll_runs;
  P->roll_runs = rolled_fills(P, b);
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    /* the dots right after it over its A, in the same k steps: printed in it */
    int n = op->kind == TO_DOT ? tir_dots_sharing_a(b->ops.items, b->ops.len, i, true, P->with) : 0;
    P->nwith = n;
    print_op(P, op);
    P->nwith = 0;
    i += n;
  }
  P->roll_runs = up;
}

/* ------------------------------------------------------------ the kernel */

/* The barriers a body of the kernel has (TIR_FAST or TIR_GENERAL; the same when it is not versioned). */
static int barriers_in(const TirBlock *b, int body, bool warp) {
  int n = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->only && op->only != body) continue;
    n += op->kind == TO_BARRIER && op->warp == warp;
    n += barriers_in(&op->body, body, warp) + barriers_in(&op->els, body, warp);
  }
  return n;
}

/* The byte widths of the fast body's runs of global memory, a bit per power of two: each
 * tensor access's run of vec elements (a run is 2 bytes or more); bit 0: it has TMA boxes. */
static unsigned run_widths(const TirBlock *b) {
  unsigned w = 0;
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->only == TIR_GENERAL) continue;
    if ((op->kind == TO_LOAD || op->kind == TO_STORE || op->kind == TO_ASYNC_COPY) && op->slice && op->vec > 1)
      w |= (unsigned)(op->vec * elem_bytes[op->slice->u.index.base->u.ident.sym->ty.elem]);
    w |= op->kind == TO_TMA_LOAD || op->kind == TO_TMA_STORE;
    w |= run_widths(&op->body) | run_widths(&op->els);
  }
  return w;
}

/* The fast body's conditions, as the header and --explain write them: "K % 8 == 0, A is
 * 16-byte aligned, ..". */
static const char *fast_conds(const TirKernel *K) {
  Buf b = {0};
  for (int i = 0; i < K->nchecks; i++) {
    const TirCheck *c = &K->checks[i];
    if (c->size && !c->mod) buf_printf(&b, "%s%s == 1", i ? ", " : "", c->size->name);
    else if (c->size) buf_printf(&b, "%s%s %% %d == 0", i ? ", " : "", c->size->name, c->mod);
    else buf_printf(&b, "%s%s is %d-byte aligned", i ? ", " : "", c->tensor->name, c->mod);
  }
  const char *r = arena_printf(K->a, "%s", b.data ? b.data : "");
  buf_free(&b);
  return r;
}

/* What the fast body moves, for the comments that say what its entry test buys: "TMA
 * boxes", then the runs' widths, widest first, as "16-, 8- and 4-byte accesses" (header)
 * or "runs of 16, 8 or 4 bytes" (!header). */
static const char *widths_str(Printer *P, bool header) {
  unsigned w = run_widths(&P->K->body);
  int n = 0, bytes[32];
  for (int bit = 31; bit >= 1; bit--)
    if (w >> bit & 1) bytes[n++] = 1 << bit;
  Buf b = {0};
  if (w & 1) buf_puts(&b, n > 1 ? "TMA boxes, " : n ? "TMA boxes and " : "TMA boxes");
  if (n && !header) buf_puts(&b, "runs of ");
  for (int k = 0; k < n; k++)
    buf_printf(&b, "%s%d%s", k == 0 ? "" : k < n - 1 ? ", " : header ? " and " : " or ", bytes[k],
               k < n - 1 ? (header ? "-" : "") : header ? "-byte accesses" : " bytes");
  const char *s = b.len ? arena_strndup(P->a, b.data, b.len) : header ? "vector accesses" : "runs of elements";
  buf_free(&b);
  return s;
}

static const char *summary(Printer *P) {
  TirKernel *K = P->K;
  Buf b = {0};
  const char *base = strrchr(P->o->file, '/');
  base = base ? base + 1 : P->o->file;
  buf_printf(&b, "// kernel %s (%s:%d): %d threads", K->k->name, base, K->k->loc.line, K->ki->threads);
  if (K->ki->fit_blocks)
    buf_printf(&b, ", @launch asks for %d blocks per SM; its shared memory lets %d fit, which __launch_bounds__ names",
               K->ki->min_blocks, K->ki->fit_blocks);
  else if (K->ki->min_blocks) buf_printf(&b, ", at least %d blocks per SM", K->ki->min_blocks);
  else if (K->ki->plan_blocks)
    buf_printf(&b, ", registers planned for %d block%s per SM (as many as its shared memory allows)",
               K->ki->plan_blocks, K->ki->plan_blocks == 1 ? "" : "s");
  buf_puts(&b, "\n");
  for (int i = 0; i < K->layouts.len; i++) {
    const Layout *l = K->layouts.items[i];
    if (!l->used) continue;
    if (l->wg)
      buf_printf(&b, "//   layout L%d: [%d, %d], the wgmma accumulator: %d warpgroups of 4 x 1 warps, each warp 16 x %d: %d per thread\n",
                 l->id, l->rows, l->cols, l->wr / 4, l->cols, layout_count(l));
    else if (l->mma)
      buf_printf(&b, "//   layout L%d: [%d, %d], the mma accumulator: warps %d x %d, each %d x %d tiles of 16 x 8: %d per thread\n",
                 l->id, l->rows, l->cols, l->wr, l->wc, l->rr / 2, l->rc, layout_count(l));
    else if (l->wtiles)
      buf_printf(&b, "//   layout L%d: [%d, %d], runs of %d, lanes %d x %d, warps %d x %d, each warp its own %d x %d tile: %d per thread\n",
                 l->id, l->rows, l->cols, l->vec, l->lr, l->lc, l->wr, l->wc, l->rr * l->lr, l->rc * l->lc * l->vec,
                 layout_count(l));
    else
      buf_printf(&b, "//   layout L%d: [%d, %d], runs of %d, lanes %d x %d, warps %d x %d: %d per thread\n", l->id,
                 l->rows, l->cols, l->vec, l->lr, l->lc, l->wr, l->wc, layout_count(l));
  }
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    if (!v->sym || v->direct) continue;
    if (v->inlined)
      buf_printf(&b, "//   %s: never held, computed in the indices of the loads issued ahead\n", v->sym->name);
    else if (v->home)
      buf_printf(&b, "//   %s: shared, in %s, %s (%s, %d x %s per thread)\n", v->sym->name, P->K->bufs[v->home - 1].cname,
                 v->win_home ? "written a window at a time from another layout" : "too large for registers",
                 layout_str(P->a, v->layout), layout_count(v->layout), elem_names[v->elem]);
    else
      buf_printf(&b, "//   %s: registers, %d x %s per thread (%s)\n", v->sym->name, layout_count(v->layout),
                 elem_names[v->elem], layout_str(P->a, v->layout));
  }
  for (int i = 0; i < K->nbufs; i++) {
    const TirBuf *f = &K->bufs[i];
    if (f->tensor) continue;
    if (f->mbar) {
      buf_printf(&b, "//   %s: shared, %d mbarriers, %" PRId64 " bytes (%s)\n", f->cname, 2 * f->mbar, f->bytes, f->what);
      continue;
    }
    buf_printf(&b, "//   %s: shared, %s[%d, %d]%s, %" PRId64 " bytes (%s%s)\n", f->cname, elem_names[f->elem], f->rows,
               f->cols,
               f->swz ? F(" in %d-byte swizzled rows (wgmma)", f->swz) : f->cm8 ? " in 8 x 8 core matrices (wgmma)" : "",
               f->bytes, f->what, tir_buf_shares(K, i));
  }
  for (int i = 0; i < K->ki->ntmaps; i++) {
    const TmaMap *m = &K->ki->tmaps[i];
    buf_printf(&b, "//   %s: the tensor map of %s, boxes of %d x %d, %d-byte swizzle (a parameter after the sizes: "
                   "the launcher builds it)\n", m->cname, m->tensor->name, m->box_rows, m->box_cols, m->swizzle);
  }
  if (K->versioned) buf_printf(&b, "//   %s when %s; otherwise single elements\n", widths_str(P, true), fast_conds(K));
  int fast = barriers_in(&K->body, TIR_FAST, false), general = barriers_in(&K->body, TIR_GENERAL, false);
  int wfast = barriers_in(&K->body, TIR_FAST, true), wgeneral = barriers_in(&K->body, TIR_GENERAL, true);
  buf_printf(&b, "//   shared memory: %" PRId64 " bytes%s; barriers: %s%s\n", K->ki->shared_bytes,
             K->ki->dynamic_smem ? ", dynamic" : "",
             fast == general ? F("%d", fast) : F("%d in the fast body, %d in the general one", fast, general),
             !wfast && !wgeneral ? ""
             : wfast == wgeneral ? F(", warp barriers (__syncwarp): %d", wfast)
                                 : F(", warp barriers (__syncwarp): %d in the fast body, %d in the general one", wfast, wgeneral));
  const char *s = arena_strndup(P->a, b.data, b.len);
  buf_free(&b);
  return s;
}

static const char *shared_decls(Printer *P) {
  TirKernel *K = P->K;
  Buf b = {0};
  if (K->ki->dynamic_smem) {
    if (P->o->sim) buf_puts(&b, "  T2C_SIM_DYNAMIC_SMEM(t2c_smem);\n"); /* at shared address 0 */
    /* aligned to 1024 bytes (a 128-byte swizzle's pattern starts at a
     * copy's first byte, smem.c) in every kernel, whatever its copies need:
     * the declarations of every kernel of a file are one array to nvcc, and
     * two alignments of it are a warning (#1886) */
    else buf_puts(&b, "  extern __shared__ __align__(1024) unsigned char t2c_smem[];\n");
  }
  for (int i = 0; i < K->nbufs; i++) {
    const TirBuf *f = &K->bufs[i];
    if (f->tensor) continue;
    const char *t = f->mbar ? "unsigned long long" : ctype(f->elem);
    int64_t n = f->bytes / elem_bytes[f->elem];
    int a = tir_buf_align(f);
    if (K->ki->dynamic_smem && P->o->sim) /* a checked, race-tracked view (rt/sim/tile2cu_sim.h) */
      buf_printf(&b, "  T2C_SIM_SHARED_AT(%s, %s, t2c_smem, %" PRId64 ", %" PRId64 ");\n", t, f->cname, f->offset, n);
    else if (K->ki->dynamic_smem)
      buf_printf(&b, "  %s *%s = reinterpret_cast<%s *>(t2c_smem + %" PRId64 ");\n", t, f->cname, t, f->offset);
    else if (P->o->sim && a > 16) buf_printf(&b, "  T2C_SIM_SHARED_ALIGNED(%s, %s, %" PRId64 ", %d);\n", t, f->cname, n, a);
    else if (P->o->sim) buf_printf(&b, "  T2C_SIM_SHARED(%s, %s, %" PRId64 ");\n", t, f->cname, n);
    else buf_printf(&b, "  __shared__ __align__(%d) %s %s[%" PRId64 "];\n", a, t, f->cname, n);
  }
  const char *s = arena_strndup(P->a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return s;
}

/* lane, warp, and each layout's first row and column of this thread. */
static const char *ctx_vars(Printer *P) {
  TirKernel *K = P->K;
  Buf b = {0};
  int lanes = K->t->lanes;
  /* K->warp_uniform: warp through a shuffle from lane 0, which the compiler knows is the same
   * in every lane: what is computed from it stays in uniform registers (attention_f16 on
   * sm_90a: the wgmma descriptors of each warpgroup's rows of q, 127 -> 118 registers);
   * every lane of every warp is there (threads are a multiple of ctx.lanes) */
  const char *warp = K->warp_uniform ? F("__shfl_sync(0xffffffffu, tid / %d, 0)", lanes) : F("tid / %d", lanes);
  if (K->use_lane && K->use_warp) buf_printf(&b, "  const int lane = tid %% %d, warp = %s;\n", lanes, warp);
  else if (K->use_lane) buf_printf(&b, "  const int lane = tid %% %d;\n", lanes);
  else if (K->use_warp) buf_printf(&b, "  const int warp = %s;\n", warp);
  for (int i = 0; i < K->nbufs; i++)
    if (K->bufs[i].alternating)
      buf_printf(&b, "  int t2c_ph%d = 0;  // which half of %s this turn uses\n", i, K->bufs[i].cname);
  for (int i = 0; i < K->layouts.len; i++) {
    const Layout *l = K->layouts.items[i];
    if (!l->used) continue;
    bool coord_r = l->coord_r && (P->coords[l->id] & 1), coord_c = l->coord_c && (P->coords[l->id] & 2);
    if (l->mma) {
      const char *wr = l->wr == 1 ? "0" : F("%s * %d", l->wc == 1 ? "warp" : F("(warp / %d)", l->wc), l->rr * 8);
      const char *wc = l->wc == 1 ? "0" : F("%s * %d", l->wr == 1 ? "warp" : F("(warp %% %d)", l->wc), l->rc * 8);
      bool need_wr = coord_r || (P->wtile[l->id] & 1), need_wc = coord_c || (P->wtile[l->id] & 2);
      if (need_wr && need_wc)
        buf_printf(&b, "  const int t2c_wr%d = %s, t2c_wc%d = %s;  // L%d: this warp's tile\n", l->id, wr, l->id, wc, l->id);
      else if (need_wr)
        buf_printf(&b, "  const int t2c_wr%d = %s;  // L%d: this warp's tile's first row\n", l->id, wr, l->id);
      else if (need_wc)
        buf_printf(&b, "  const int t2c_wc%d = %s;  // L%d: this warp's tile's first column\n", l->id, wc, l->id);
      if (coord_r && coord_c)
        buf_printf(&b, "  const int t2c_r%d = t2c_wr%d + lane / 4, t2c_c%d = t2c_wc%d + lane %% 4 * 2;  // and this thread's first row and column\n",
                   l->id, l->id, l->id, l->id);
      else if (coord_r)
        buf_printf(&b, "  const int t2c_r%d = t2c_wr%d + lane / 4;  // and this thread's first row\n", l->id, l->id);
      else if (coord_c)
        buf_printf(&b, "  const int t2c_c%d = t2c_wc%d + lane %% 4 * 2;  // and this thread's first column\n", l->id, l->id);
      continue;
    }
    if (l->wtiles) { /* each warp's own block, as the mma layout it reads back */
      const char *wr = l->wr == 1 ? "0" : F("%s * %d", l->wc == 1 ? "warp" : F("(warp / %d)", l->wc), l->rr * l->lr);
      const char *wc = l->wc == 1 ? "0" : F("%s * %d", l->wr == 1 ? "warp" : F("(warp %% %d)", l->wc), l->rc * l->lc * l->vec);
      /* only what an op reads (Layout.coord_r, coord_c), as the other layouts: a fold's
       * partials carried across a loop in an mma layout's warp tiles may read neither */
      bool need_r = coord_r, need_c = coord_c;
      if (need_r && need_c) {
        buf_printf(&b, "  const int t2c_wr%d = %s, t2c_wc%d = %s;  // L%d: this warp's tile\n", l->id, wr, l->id, wc, l->id);
        buf_printf(&b, "  const int t2c_r%d = t2c_wr%d + lane / %d, t2c_c%d = t2c_wc%d + lane %% %d * %d;  // and this thread's first row and column\n",
                   l->id, l->id, l->lc, l->id, l->id, l->lc, l->vec);
      } else if (need_r) {
        const char *lr = F("lane / %d", l->lc);
        buf_printf(&b, "  const int t2c_r%d = %s;  // L%d: this thread's first row, in its warp's tile\n", l->id,
                   l->wr == 1 ? lr : F("%s + %s", wr, lr), l->id);
      } else if (need_c) {
        const char *lc = F("lane %% %d * %d", l->lc, l->vec);
        buf_printf(&b, "  const int t2c_c%d = %s;  // L%d: this thread's first column, in its warp's tile\n", l->id,
                   l->wc == 1 ? lc : F("%s + %s", wc, lc), l->id);
      }
      continue;
    }
    const char *lr = l->lc == lanes ? "0" : l->lc == 1 ? "lane" : F("lane / %d", l->lc);
    const char *lc = l->lc == 1 ? "0" : l->lc == lanes ? "lane" : F("lane %% %d", l->lc);
    const char *wr = l->wr == 1 ? "0" : l->wc == 1 ? "warp" : F("warp / %d", l->wc);
    const char *wc = l->wc == 1 ? "0" : l->wr == 1 ? "warp" : F("warp %% %d", l->wc);
    const char *pwr = strchr(wr, ' ') ? F("(%s)", wr) : wr, *pwc = strchr(wc, ' ') ? F("(%s)", wc) : wc;
    const char *r = strcmp(wr, "0") == 0 ? lr
                    : strcmp(lr, "0") == 0 ? (l->lr == 1 ? wr : F("%s * %d", pwr, l->lr))
                                           : F("%s * %d + %s", pwr, l->lr, lr);
    const char *cw = strcmp(wc, "0") == 0 ? lc
                     : strcmp(lc, "0") == 0 ? (l->lc == 1 ? wc : F("%s * %d", pwc, l->lc))
                                            : F("%s * %d + %s", pwc, l->lc, lc);
    const char *c = strcmp(cw, "0") == 0 ? "0" : l->vec == 1 ? cw : F("(%s) * %d", cw, l->vec);
    if (strcmp(cw, "0") != 0 && l->vec > 1 && !strchr(cw, ' ')) c = F("%s * %d", cw, l->vec);
    /* declared where an op reads them alone: nvcc warns of one never read (#177-D; a [1, 1]
     * column sum read whole from a shared copy, in a [1, N] layout, reads neither) */
    bool need_r = !row_base_zero(l) && coord_r, need_c = !col_base_zero(l) && coord_c;
    if (need_r && need_c)
      buf_printf(&b, "  const int t2c_r%d = %s, t2c_c%d = %s;  // L%d: this thread's first row and column\n", l->id,
                 r, l->id, c, l->id);
    else if (need_r)
      buf_printf(&b, "  const int t2c_r%d = %s;  // L%d: this thread's first row%s\n", l->id, r, l->id,
                 col_base_zero(l) ? " (every thread starts at column 0)" : "");
    else if (need_c)
      buf_printf(&b, "  const int t2c_c%d = %s;  // L%d: this thread's first column%s\n", l->id, c, l->id,
                 row_base_zero(l) ? " (every thread starts at row 0)" : "");
  }
  const char *s = arena_strndup(P->a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return s;
}

static const char *fast_test(Printer *P) {
  TirKernel *K = P->K;
  Buf b = {0};
  for (int i = 0; i < K->nchecks; i++) {
    const TirCheck *c = &K->checks[i];
    if (i) buf_puts(&b, " && ");
    if (c->size && !c->mod) buf_printf(&b, "%s == 1", c->size->cname);
    else if (c->size) buf_printf(&b, "%s %% %d == 0", c->size->cname, c->mod);
    else buf_printf(&b, "t2c::aligned(%s, %d)", c->tensor->cname, c->mod);
  }
  const char *s = arena_strndup(P->a, b.data ? b.data : "true", b.len);
  buf_free(&b);
  return s;
}

static const char *body_text(Printer *P) {
  Buf body = {0};
  P->out = &body;
  P->indent = 1;
  if (P->K->versioned) {
    line(P, "// the fast body moves %s; the general one, single elements", widths_str(P, false));
    line(P, "const bool t2c_fast = %s;", fast_test(P));
    line(P, "if (t2c_fast) {");
    P->indent++;
    P->fast = true;
    print_block(P, &P->K->body);
    P->indent--;
    line(P, "} else {");
    P->indent++;
    P->fast = false;
    print_block(P, &P->K->body);
    P->indent--;
    line(P, "}");
  } else {
    print_block(P, &P->K->body);
  }
  /* the divisors of divisions in loops, each made once (t2c::FastDiv) */
  Buf divs = {0};
  for (int i = 0; i < P->ndiv; i++)
    buf_printf(&divs, "  const t2c::FastDiv t2c_dv%d(%s);  // each division by it: a multiply-high, an add, a shift\n",
               i, P->divs[i]);
  const char *s = arena_printf(P->a, "%s%s", divs.data ? divs.data : "", body.data ? body.data : "");
  buf_free(&divs);
  buf_free(&body);
  return s;
}

/* The element type's CUtensorMapDataType in tile2cu/tma_host.h (8-bit types move as bytes). */
static const char *tma_type(ElemType t) {
  switch (t) {
  case T_F16: return "t2c::TMA_F16";
  case T_BF16: return "t2c::TMA_BF16";
  case T_F32: return "t2c::TMA_F32";
  case T_F64: return "t2c::TMA_F64";
  case T_I32: case T_U32: return "t2c::TMA_I32";
  default: return "t2c::TMA_U8";
  }
}

static bool map_uses(const KernelInfo *ki, const Sym *y) {
  for (int i = 0; i < ki->ntmaps; i++) {
    const Sym *X = ki->tmaps[i].tensor;
    if (X == y) return true;
    for (int d = 0; d < X->trank; d++)
      if (X->tdim_size[d] == y) return true;
  }
  return false;
}

/* NAME_tensor_maps: builds the tensor maps a kernel takes from the arguments
 * before them, for a .cu built by nvcc (the --host launcher calls it too). */
static void tensor_maps_helper(Printer *P, Buf *out) {
  const KernelInfo *ki = P->K->ki;
  const char *name = P->K->k->name;
  Buf params = {0}, args = {0};
  for (int i = 0; i < ki->nparams; i++) {
    const Sym *p = ki->params[i];
    const char *t = p->kind == SY_SCALAR ? ctype(p->ty.elem) : F("%s%s *", p->written ? "" : "const ", ctype(p->ty.elem));
    buf_printf(&params, ", %s%s%s", t, p->kind == SY_SCALAR ? " " : "", map_uses(ki, p) ? p->cname : "");
    buf_printf(&args, "%s%s", i ? ", " : "", p->cname);
  }
  for (int i = 0; i < ki->nsizes; i++) {
    buf_printf(&params, ", int%s%s", map_uses(ki, ki->sizes[i]) ? " " : "", map_uses(ki, ki->sizes[i]) ? ki->sizes[i]->cname : "");
    buf_printf(&args, "%s%s", args.len ? ", " : "", ki->sizes[i]->cname);
  }
  for (int i = 0; i < ki->nstrides; i++) {
    buf_puts(&params, ", long long");
    buf_printf(&args, "%s%s", args.len ? ", " : "", ki->strides[i]->cname);
  }
  buf_puts(out, "\n#if !defined(__CUDACC_RTC__)\n");
  buf_puts(out, P->o->standalone ? embedded_tma_host_h : "#include <tile2cu/tma_host.h>\n");
  buf_printf(out, "// %s ", name);
  for (int st = 0; st < 2; st++) { /* the maps it reads through, then those it writes through */
    int n = 0, k = 0;
    for (int i = 0; i < ki->ntmaps; i++) n += ki->tmaps[i].store == st;
    if (n && st && ki->ntmaps > n) buf_puts(out, " and ");
    if (n) buf_puts(out, st ? "writes " : "reads ");
    for (int i = 0; i < ki->ntmaps; i++)
      if (ki->tmaps[i].store == st) {
        buf_printf(out, "%s%s", k ? (k + 1 < n ? ", " : " and ") : "", ki->tmaps[i].tensor->name);
        k++;
      }
  }
  buf_printf(out, " by TMA in its fast body, through %d tensor map%s after its sizes. %s_tensor_maps\n", ki->ntmaps,
             ki->ntmaps == 1 ? "" : "s", name);
  buf_printf(out, "// builds them from the arguments that come before them; pass them by value:\n");
  buf_printf(out, "//   t2c::TensorMap maps[%d];\n", ki->ntmaps);
  buf_printf(out, "//   if (%s_tensor_maps(maps, %s, err, sizeof err) != 0) ...  // err says why\n", name, args.data);
  buf_printf(out, "//   %s<<<grid, %d, %s, stream>>>(%s", name, ki->threads,
             ki->dynamic_smem ? F("TILE2CU_DYNAMIC_SMEM_%s", name) : "0", args.data);
  for (int i = 0; i < ki->ntmaps; i++) buf_printf(out, ", maps[%d]", i);
  buf_puts(out, ");\n");
  buf_puts(out, "// Returns 0, or -1 with a message in err: no driver (libcuda.so.1), or cuTensorMapEncodeTiled failed.\n");
  buf_printf(out, "inline int %s_tensor_maps(t2c::TensorMap *maps%s, char *err, size_t errlen) {\n", name, params.data);
  for (int i = 0; i < ki->ntmaps; i++) {
    const TmaMap *m = &ki->tmaps[i];
    const Sym *X = m->tensor;
    const char *dim[4] = {"1", "1", "1", "1"};
    for (int d = 0; d < X->trank; d++) /* dims at the end, outer ones first, 1 for those it lacks */
      dim[4 - X->trank + d] = X->tdim_size[d] ? X->tdim_size[d]->cname : F("%" PRId64, X->tdim_const[d]);
    buf_printf(out, "  if (t2c::tma_map(&maps[%d], %s, %d, %s, %d, %s, %s, %s, %s, %d, %d, %d, err, errlen) != 0) return -1;\n",
               i, tma_type(X->ty.elem), elem_bytes[X->ty.elem], X->cname, X->trank, X->trank == 4 ? dim[0] : dim[1],
               X->trank == 4 ? dim[1] : "1", dim[2], dim[3], m->box_rows, m->box_cols, m->swizzle);
  }
  buf_puts(out, "  return 0;\n}\n#endif\n");
  buf_free(&params);
  buf_free(&args);
}

void emit_tir_kernel(TirKernel *K, const EmitOptions *o, const char *line_file, Buf *out) {
  Printer pr = {.K = K, .a = K->a, .o = o, .line_file = line_file};
  Printer *P = &pr;
  P->wtile = NEW_ARRAY(K->a, unsigned char, K->layouts.len);
  P->coords = NEW_ARRAY(K->a, unsigned char, K->layouts.len);
  const char *body = body_text(P);
  /* __launch_bounds__ where ptxas must keep to it: a count of blocks per SM (@launch's, or
   * the translator's plan), or more threads than the target's most registers a thread
   * let launch (512 and up). Told only the threads where any count launches, ptxas 13.0
   * spilled to keep more blocks than the kernel asked for: a 64-thread kernel at 72
   * registers spilled 12 bytes (80 and none without), a @registers GEMM of 256 threads at
   * 128 spilled 56 (142 and none without); a memory-bound kernel keeps about its count
   * without them (layernorm 46 -> 48), where (256, 1) took 72. */
  int minb = bound_blocks(K->ki);
  const TargetConfig *t = K->t;
  bool bound = minb || !t->max_regs_per_thread || (int64_t)K->ki->threads * t->max_regs_per_thread > t->regs_per_sm;
  const char *bounds = !bound ? "" : minb ? F(" __launch_bounds__(%d, %d)", K->ki->threads, minb)
                                          : F(" __launch_bounds__(%d)", K->ki->threads);
  if (K->ki->dynamic_smem) {
    const char *why = K->ki->shared_bytes > K->t->smem_static
                          ? F("above the %d-byte static limit", K->t->smem_static)
                          : "one buffer, as its shared copies share bytes (smem.c)";
    const char *kv[] = {"name", K->k->name, "bytes", F("%" PRId64, K->ki->shared_bytes), "why", why, NULL};
    buf_puts(out, "\n");
    emit_expand(out, tmpl_dynamic_smem, kv);
  }
  const char *kv[] = {"summary", summary(P), "bounds", bounds, "name", K->k->name,
                      "params", emit_param_list(K->a, K->ki, o->sim), "shared", shared_decls(P),
                      "ctxvars", ctx_vars(P), "body", body, NULL};
  emit_expand(out, tmpl_kernel, kv);
  if (o->sim) {
    const char *tv[] = {"name", K->k->name, "args", emit_trampoline_args(K->a, K->ki), NULL};
    emit_expand(out, tmpl_sim_trampoline, tv);
  } else if (K->ki->ntmaps) {
    tensor_maps_helper(P, out);
  }
}

/* Whether an op of b, or inside one, lowers statement s. */
static bool lowers_stmt(const TirBlock *b, const Stmt *s) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->stmt == s || lowers_stmt(&op->body, s) || lowers_stmt(&op->els, s)) return true;
  }
  return false;
}

/* --explain for a kernel lowered through the IR: where each value lives and why, each barrier's reason. */
static void explain_barriers(TirKernel *K, const TirBlock *b, FILE *out) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->kind == TO_BARRIER) {
      /* a barrier for a statement of a loop before it (a fold carried out of the loop: carry.c) */
      const TirOp *loop = NULL;
      for (int j = i - 1; j >= 0 && !loop; j--) {
        const TirOp *o = b->ops.items[j];
        if ((o->kind == TO_FOR || o->kind == TO_WHILE) && lowers_stmt(&o->body, op->stmt)) loop = o;
      }
      const char *where = loop ? arena_printf(K->a, "after the loop at line %d (for line %d)", loop->stmt->loc.line, op->stmt->loc.line)
                               : arena_printf(K->a, "before line %d", op->stmt->loc.line);
      fprintf(out, "  %s %s%s: %s\n", op->warp ? "warp barrier (__syncwarp)" : "barrier", where,
              op->only == TIR_FAST ? " (fast body)" : op->only == TIR_GENERAL ? " (general body)" : "", op->reason);
    }
    explain_barriers(K, &op->body, out);
    explain_barriers(K, &op->els, out);
  }
}

/* --explain: each loop whose register rings rotate or are refilled at its end (pipeline.c
 * rings_rotate), and the values whose f32 conversions read their slot's words (TirOp.mirror). */
static void explain_rings(TirKernel *K, const TirBlock *b, FILE *out) {
  for (int i = 0; i < b->ops.len; i++) {
    const TirOp *op = b->ops.items[i];
    if (op->rot > 1)
      fprintf(out, "  loop at line %d: its register rings rotate: %d copies of its body an iteration, copy j taking "
                   "slot j + 1 of each ring and refilling it at its end (no slot copied into another)\n",
              op->stmt->loc.line, op->rot);
    else if (op->rot)
      fprintf(out, "  loop at line %d: its register rings are refilled at the end of its body, after every read of them\n",
              op->stmt->loc.line);
    if (op->rbody) {
      Buf b8 = {0};
      for (int j = 0; j < op->rbody[0].ops.len; j++) {
        const TirOp *t = op->rbody[0].ops.items[j];
        if (t->mirror) buf_printf(&b8, "%s%s", b8.len ? ", " : "", t->dst->sym ? t->dst->sym->name : t->dst->what);
      }
      if (b8.len)
        fprintf(out, "    its 8-bit values (%s) convert to f32 from their ring slots' words (t2c::part_f32: a PRMT and an "
                     "FADD an element, no I2F)\n", b8.data);
      buf_free(&b8);
    }
    explain_rings(K, &op->body, out);
    explain_rings(K, &op->els, out);
  }
}

void emit_tir_explain(TirKernel *K, FILE *out) {
  fprintf(out, "kernel %s: lowered through the tile IR (%d threads)\n", K->k->name, K->ki->threads);
  for (int i = 0; i < K->vars.len; i++) {
    const TirVar *v = K->vars.items[i];
    const Layout *l = v->layout;
    if (v->direct) {
      fprintf(out, "  %s (%s): shared only: its load fills a stage ring that %s\n", v->sym ? v->sym->name : v->cname, v->what,
              v->home ? arena_printf(K->a, "each thread reads at its %d elements of %s (%s)", layout_count(l), layout_str(K->a, l),
                                     v->home_why)
                      : "a dot reads");
      continue;
    }
    if (v->inlined) {
      fprintf(out, "  %s (%s): never held: the loads a @pipeline loop issues ahead compute it in their indices or read "
                   "it from its ring\n",
              v->sym ? v->sym->name : v->cname, v->what);
      continue;
    }
    if (v->win_of) {
      const char *how = !v->fused->vtail && win_whole_runs(v->win_of, v->win_of->lay, v->fused->vec)
                            ? arena_printf(K->a, "a run of %d at a time in the fast body", v->fused->vec)
                            : "element by element";
      fprintf(out, "  %s (%s): never held, the window write of %s at line %d reads the tensor at its own elements of "
                   "%s (%s): no layout or shared copy of its own\n",
              v->cname, v->what, v->win_of->dst->sym ? v->win_of->dst->sym->name : v->win_of->dst->cname,
              v->fused->stmt->loc.line, layout_str(K->a, v->win_of->lay), how);
      continue;
    }
    if (v->fused) {
      const char *how = v->fused->vec > 1 && !v->fused->vtail
                            ? arena_printf(K->a, "a run of %d at a time in the fast body", v->fused->vec)
                            : "element by element";
      fprintf(out, "  %s (%s): never held, its reader at line %d reads the tensor %s (%d per thread, %s): %s\n",
              v->sym ? v->sym->name : v->cname, v->what, v->fused->stmt->loc.line, how, layout_count(l),
              layout_str(K->a, l), v->home_why);
      continue;
    }
    if (v->home) {
      fprintf(out, "  %s (%s): shared, in %s, each thread at its %d elements of %s: %s\n", v->sym ? v->sym->name : v->cname,
              v->what, K->bufs[v->home - 1].cname, layout_count(l), layout_str(K->a, l), v->home_why);
      continue;
    }
    /* why it is in the fragments (layout.c frag_why): a value of the accumulator's shape
     * that no op joins to one is not (off_acc) */
    const char *frag = v->frag_why ? v->frag_why : "it holds a dot's fragments";
    const char *why = l->kind == LY_BLOCKED && l->wg
                          ? arena_printf(K->a, "wgmma's accumulator fragments (a warpgroup per 64 rows): %s", frag)
                      : l->kind == LY_BLOCKED && l->mma
                          ? arena_printf(K->a, "the mma accumulator's fragments: %s", frag)
                      : l->kind == LY_SLICE && l->dim == 0
                          ? "a column value: every thread that holds a column of the parent layout holds it, so it is read where it is"
                      : l->kind == LY_SLICE
                          ? "a row value: every thread that holds a row of the parent layout holds it, so it is read where it is"
                          : "no element is read by a thread other than the one that holds it";
    const char *copy = NULL; /* its shared copies: what reads it at other threads' elements reads them */
    for (int b = 0; b < K->nbufs; b++)
      if ((K->bufs[b].spill_of == v || K->bufs[b].trans_of == v) && !K->bufs[b].tensor && !K->bufs[b].stages)
        copy = copy ? arena_printf(K->a, "%s and %s", copy, K->bufs[b].cname) : K->bufs[b].cname;
    if (copy && l->kind == LY_BLOCKED && !l->mma)
      why = arena_printf(K->a, "each thread computes and reads its own elements here; what reads other threads' elements "
                               "reads %s", copy);
    else if (copy)
      why = arena_printf(K->a, "%s; what reads it elsewhere reads %s", why, copy);
    fprintf(out, "  %s (%s): registers, %d per thread, %s: %s\n", v->sym ? v->sym->name : v->cname, v->what,
            layout_count(l), layout_str(K->a, l), why);
  }
  for (int i = 0; i < K->nbufs; i++)
    if (!K->bufs[i].tensor)
      fprintf(out, "  %s: shared, %" PRId64 " bytes at %" PRId64 ": %s%s\n", K->bufs[i].cname, K->bufs[i].bytes,
              K->bufs[i].offset, K->bufs[i].what,
              K->bufs[i].swz ? arena_printf(K->a, ", in %d-byte swizzled rows that wgmma reads through descriptors", K->bufs[i].swz)
              : K->bufs[i].cm8 ? ", in 8 x 8 core matrices that wgmma reads through descriptors"
                               : tir_buf_shares(K, i));
  for (int i = 0; i < K->folds.len; i++) fprintf(out, "  %s\n", (const char *)K->folds.items[i]);
  explain_rings(K, &K->body, out);
  explain_barriers(K, &K->body, out);
  if (K->versioned) {
    /* one test for the whole kernel: a condition of one tensor sends every access to the general body */
    Buf views = {0};
    for (int i = 0; i < K->nchecks; i++) {
      const TirCheck *c = &K->checks[i];
      if (c->size && c->size->kind == SY_STRIDE && !c->mod)
        buf_printf(&views, "; a view with %s != 1 (a transposed one) takes it too", c->size->name);
    }
    fprintf(out, "  fast body when %s; otherwise the general body, where every access of the kernel moves one element%s\n",
            fast_conds(K), views.data ? views.data : "");
    buf_free(&views);
  }
  int fast = barriers_in(&K->body, TIR_FAST, false), general = barriers_in(&K->body, TIR_GENERAL, false);
  int wfast = barriers_in(&K->body, TIR_FAST, true), wgeneral = barriers_in(&K->body, TIR_GENERAL, true);
  const char *w = !wfast && !wgeneral ? ""
                  : wfast == wgeneral ? arena_printf(K->a, ", warp barriers (__syncwarp): %d", wfast)
                                      : arena_printf(K->a, ", warp barriers (__syncwarp): %d in the fast body, %d in the general one", wfast, wgeneral);
  if (fast == general) fprintf(out, "  shared memory: %" PRId64 " bytes; barriers: %d%s\n", K->ki->shared_bytes, fast, w);
  else
    fprintf(out, "  shared memory: %" PRId64 " bytes; barriers: %d in the fast body, %d in the general one%s\n",
            K->ki->shared_bytes, fast, general, w);
}
