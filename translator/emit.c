/* emit.c: CUDA text for checked kernels.
 *
 * Every statement is lowered as one or more *steps*. A step is a piece of code
 * with the list of shared buffers it reads and writes, and whether each access
 * is *aligned* (thread tid touches elements tid, tid + threads, ... of the
 * buffer, the spread of LANGUAGE.md section 8) or not. place.c decides from
 * those lists where barriers go; this file turns expressions into C.
 *
 * Expressions are evaluated per element: ev() returns a C expression for an
 * expression at coordinates (i, j), fusing elementwise nodes. Reductions and
 * dot evaluated once per element become loops in the element body; evaluated
 * more than once (broadcast, dot operands) they are materialised into a
 * temporary shared tile first.
 *
 * Loops are emitted after dry runs of their body (nothing written, no
 * diagnostics) that carry the barrier state around the back edge to a fixpoint.
 */
#include "t2c.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "templates.h"

/* ------------------------------------------------------------ output helpers */

static void line(Emitter *E, Buf *b, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(Emitter *E, Buf *b, const char *fmt, ...) {
  for (int i = 0; i < E->indent; i++) buf_puts(b, "  ");
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(b, fmt, ap);
  va_end(ap);
  buf_puts(b, "\n");
}

static const char *fmt(Emitter *E, const char *f, ...) __attribute__((format(printf, 2, 3)));
static const char *fmt(Emitter *E, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  Buf b = {0};
  buf_vprintf(&b, f, ap);
  va_end(ap);
  char *s = arena_strndup(E->a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return s;
}

static const char *ctype(ElemType t) { return elem_ctypes[t]; }

/* The type reductions and dot accumulate in. */
static ElemType acc_type(ElemType t) {
  switch (t) {
  case T_F16: case T_BF16: case T_F8E4M3: case T_F8E5M2: return T_F32;
  case T_I8: case T_U8: case T_BOOL: return T_I32;
  default: return t;
  }
}

/* A literal of type t. */
const char *emit_literal(Arena *a, ElemType t, bool isf, int64_t iv, double fv) {
  double v = isf ? fv : (double)iv;
  if (elem_is_float(t)) {
    const char *s;
    if (isinf(v)) s = arena_printf(a, "%st2c::inf<%s>()", v < 0 ? "-" : "", t == T_F64 ? "double" : "float");
    else {
      char num[64];
      snprintf(num, sizeof num, t == T_F64 ? "%.17g" : "%.9g", v);
      if (!strpbrk(num, ".en")) strcat(num, ".0");
      s = t == T_F64 ? arena_printf(a, "%s", num) : arena_printf(a, "%sf", num);
    }
    if (t == T_F16 || t == T_BF16 || elem_is_f8(t)) return arena_printf(a, "t2c::cvt<%s>(%s)", ctype(t), s);
    if (t == T_F64 && isinf(v)) return v < 0 ? "-t2c::inf<double>()" : "t2c::inf<double>()";
    return s;
  }
  int64_t n = isf ? (int64_t)fv : iv;
  switch (t) {
  case T_BOOL: return n ? "true" : "false";
  case T_I64: return arena_printf(a, "%" PRId64 "LL", n);
  case T_U32: return arena_printf(a, "%" PRId64 "u", n);
  case T_I8: case T_U8: return arena_printf(a, "(%s)%" PRId64, ctype(t), n);
  default:
    if (n == INT32_MIN) return "(-2147483647 - 1)";
    return arena_printf(a, "%" PRId64, n);
  }
}

static const char *literal(Emitter *E, ElemType t, bool isf, int64_t iv, double fv) {
  return emit_literal(E->a, t, isf, iv, fv);
}

/* ------------------------------------------------------------ forward declarations */
typedef struct At At;
static void emit_elementwise(Emitter *E, const Target *tg, TokenKind op, Expr *rhs, Buf *out);
static void emit_copy(Emitter *E, Sym *r, Buf *out);
static const char *emit_ctx(Emitter *E, CtxField f);
static const char *emit_tensor_read(Emitter *E, Expr *slice, Expr *pad, At at);
static const char *emit_index_read(Emitter *E, Expr *x, At at, Buf *pre);
static int reg_index(Emitter *E, Sym *r);
static int tile_buffer(Emitter *E, Sym *t);

/* The pipelined loop being emitted: its iteration counter, bound, step and stages. */
typedef struct PipeCtx {
  const char *it, *hi, *step;
  int stages;
} PipeCtx;

/* ------------------------------------------------------------ buffers and steps */

/* Whether key is one of the kernel's tile vars (buffer keys are also Exprs and scratch). */
static bool is_tile_sym(Emitter *E, const void *key) {
  for (int i = 0; i < E->ki->tiles.len; i++)
    if (E->ki->tiles.items[i] == key) return true;
  return false;
}

static int emit_buffer(Emitter *E, const void *key, const char *cname, ElemType elem, const Type *shape,
                const char *what) {
  for (int i = 0; i < E->nbufs; i++)
    if (E->bufs[i].key == key) return i;
  if (E->nbufs == MAX_BUFS) die("more than %d shared buffers in one kernel", MAX_BUFS);
  Buffer *b = &E->bufs[E->nbufs];
  memset(b, 0, sizeof *b);
  b->key = key;
  b->cname = cname;
  b->elem = elem;
  b->rank = shape->rank;
  b->dims[0] = shape->rank > 0 ? shape->dims[0] : 1;
  b->dims[1] = shape->rank > 1 ? shape->dims[1] : 1;
  b->numel = (int64_t)b->dims[0] * b->dims[1];
  b->pitch = b->dims[1];
  const Sym *y = key;
  b->stages = 1;
  if (y && is_tile_sym(E, y)) {
    if (shape->rank == 2 && y->mma_operand) b->pitch = b->dims[1] + 8;
    /* a column read by transpose() walks a row apart per thread: 4 more bytes a row
     * put consecutive rows in different banks (not when 16-byte copies fill it) */
    else if (shape->rank == 2 && y->read_transposed && !(y->pipe_stages > 1 && y->pipe_vec > 1) &&
             elem_bytes[elem] <= 4)
      b->pitch = b->dims[1] + 4 / elem_bytes[elem];
    if (y->pipe_stages > 1) b->stages = y->pipe_stages;
  }
  b->bytes = (int64_t)b->dims[0] * b->pitch * elem_bytes[elem] * b->stages;
  b->what = what;
  return E->nbufs++;
}

static void access_map(Emitter *E, int buf, bool write, Mapping map) {
  Step *s = E->step;
  if (!s) die("access outside a step");
  if (s->nacc == MAX_ACCESS) {
    place_overflow(E, s);
    return;
  }
  s->acc[s->nacc++] = (Access){buf, write, map, E->site};
}

static void access(Emitter *E, int buf, bool write, bool aligned) {
  access_map(E, buf, write, aligned ? MAP_SPREAD : MAP_ANY);
}

static void step_begin(Emitter *E, Step *s, Step **saved) {
  memset(s, 0, sizeof *s);
  *saved = E->step;
  E->step = s;
}

/* Places the barrier the step needs, then appends its code to out. */
static void step_end(Emitter *E, Step *s, Step *saved, Buf *code, Buf *out) {
  place_step(E, s, out);
  if (code->len) buf_putn(out, code->data, code->len);
  buf_free(code);
  E->step = saved;
}

/* ------------------------------------------------------------ expressions */

struct At {
  const char *i, *j;  /* coordinates; NULL for a scalar context */
  bool aligned;       /* the statement's own element, in its shape */
  bool once;          /* evaluated once per element of the result */
  int kreg;           /* literal register index when unrolled, else -1 */
};

static const char *ev(Emitter *E, Expr *x, ElemType want, At at, Buf *pre);

static bool same_shape(const Type *a, const Type *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* Coordinates of a child of shape c inside a node of shape p (broadcasting). */
static At child_at(At at, const Type *p, const Type *c) {
  if (c->rank == 0) return (At){NULL, NULL, false, true, -1};
  At r = at;
  if (c->rank >= 1 && c->dims[0] == 1 && p->dims[0] > 1) r.i = "0", r.aligned = false, r.once = false;
  if (c->rank == 2 && c->dims[1] == 1 && p->dims[1] > 1) r.j = "0", r.aligned = false, r.once = false;
  return r;
}

/* The element type an operand is evaluated in (untyped literals follow the other side). */
static ElemType operand_type(Expr *a, Expr *b, ElemType want) {
  if (!a->ty.untyped) return a->ty.elem;
  if (!b->ty.untyped) return b->ty.elem;
  if (want != T_NONE && want != T_BOOL) return want;
  return (a->ty.elem == T_F32 || b->ty.elem == T_F32) ? T_F32 : T_I32;
}

/* s without one pair of parentheses around the whole of it. */
static const char *strip_parens(Emitter *E, const char *s) {
  size_t n = strlen(s);
  if (n < 2 || s[0] != '(' || s[n - 1] != ')') return s;
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0 && i < n - 1) return s; /* "(a) + (b)" */
  }
  return fmt(E, "%.*s", (int)n - 2, s + 1);
}

static bool is_zero(const char *s) { return strcmp(s, "0") == 0; }
static bool needs_parens(const char *s) { return strpbrk(s, "+-*/%<>&|^?") != NULL; }
static const char *paren(Emitter *E, const char *s) { return needs_parens(s) ? fmt(E, "(%s)", s) : s; }

/* i * n + j, simplified. */
static const char *lin2(Emitter *E, const char *i, int n, const char *j) {
  if (n == 1 || is_zero(j)) return n == 1 || is_zero(i) ? i : fmt(E, "%s * %d", paren(E, i), n);
  if (is_zero(i)) return j;
  return fmt(E, "%s * %d + %s", paren(E, i), n, paren(E, j));
}

static const char *index_2d(Emitter *E, const Buffer *b, const char *i, const char *j) {
  if (b->rank <= 1) return i ? i : "0";
  return lin2(E, i, b->pitch, j);
}

/* Whether the statement's elements follow the spread (not an mma layout). */
static bool spread_statement(const Emitter *E) { return E->slayout == NULL; }

/* A read of a shared buffer at coordinates of a tile of the buffer's shape. */
static const char *read_buf(Emitter *E, int bi, At at, const Type *shape) {
  const Buffer *b = &E->bufs[bi];
  bool aligned = at.aligned && same_shape(shape, &E->sshape) && spread_statement(E);
  access(E, bi, false, aligned);
  if (aligned && b->pitch == b->dims[1]) return fmt(E, "%s[e]", b->cname);
  return fmt(E, "%s[%s]", b->cname, index_2d(E, b, at.i, at.j));
}

/* The shared copy of a register tile, made (once, here) when it is not valid. */
static int reg_copy(Emitter *E, Sym *r) {
  int ri = reg_index(E, r);
  int bi = emit_buffer(E, r, r->copy_cname, r->ty.elem, &r->ty, fmt(E, "shared copy of register tile %s", r->name));
  if (!E->st.valid[ri]) {
    E->copy_why[ri] = E->why ? E->why : "it is read at other elements";
    E->copy_req[ri] = 1;
    emit_copy(E, r, E->out);
  }
  return bi;
}

static const char *ev_ident(Emitter *E, Expr *x, ElemType want, At at) {
  Sym *y = x->u.ident.sym;
  if (x->flags & EF_CONST) return literal(E, want != T_NONE && x->ty.untyped ? want : x->ty.elem, x->cv.isf, x->cv.i, x->cv.f);
  if (y->ty.rank == 0) return y->cname;
  if (y->place == PL_REGISTER) {
    bool same_layout = y->mma ? E->slayout && E->slayout->mma && E->slayout->wm == y->wm &&
                                    E->slayout->wn == y->wn
                              : spread_statement(E);
    if (at.aligned && at.kreg >= 0 && same_shape(&y->ty, &E->sshape) && !E->no_reg_reads && same_layout)
      return fmt(E, "%s[%d]", y->cname, at.kreg);
    return read_buf(E, reg_copy(E, y), at, &y->ty);
  }
  return read_buf(E, tile_buffer(E, y), at, &y->ty);
}

static const char *ev_cast(Emitter *E, Expr *x, At at, Buf *pre) {
  Expr *a = x->u.call.args[0];
  const char *v = ev(E, a, x->u.call.cast, child_at(at, &x->ty, &a->ty), pre);
  if (a->ty.untyped || a->ty.elem == x->u.call.cast) return v;
  return fmt(E, "t2c::cvt<%s>(%s)", ctype(x->u.call.cast), v);
}

/* Element k of an mma-layout tile: row and column offsets from t2c_NAME_r / _c. */
static void mma_offsets(const Sym *t, int k, int *ro, int *co) {
  int q = k % 4, tile = k / 4, i = tile / t->nt, j = tile % t->nt;
  *ro = i * 16 + (q / 2) * 8;
  *co = j * 8 + (q % 2);
}

static const char *mma_coord(Emitter *E, const Sym *t, const char *which, int off) {
  return off ? fmt(E, "t2c_%s_%s + %d", t->cname, which, off) : fmt(E, "t2c_%s_%s", t->cname, which);
}

/* A new name for a value computed in the element body. */
static const char *fresh(Emitter *E, const char *stem) { return fmt(E, "t2c_%s%d", stem, E->ctr++); }

/* Row reductions of a register tile folded with shuffles (the seed's second row). */
static bool reg_foldable(Emitter *E, const Expr *x) {
  if (x->kind != E_CALL || (x->u.call.builtin != B_ROWSUM && x->u.call.builtin != B_ROWMAX)) return false;
  const Expr *t = x->u.call.args[0];
  if (t->kind != E_IDENT || !t->u.ident.sym || t->u.ident.sym->place != PL_REGISTER) return false;
  /* the mma layout keeps a row in one warp when warps split rows only: a quad of
   * lanes holds it, with each thread's own columns summed first */
  if (t->u.ident.sym->mma) return t->u.ident.sym->wn == 1;
  int n = t->ty.dims[1];
  return (t->ty.elem == T_F32 || t->ty.elem == T_I32) && n <= E->t->lanes && (n & (n - 1)) == 0;
}

/* The operator of a reduction: "+", or the t2c:: function "max" or "min". */
static const char *red_op(BuiltinKind b) {
  switch (b) {
  case B_ROWSUM: case B_COLSUM: case B_SUM: return "+";
  case B_ROWMAX: case B_COLMAX: return "max";
  default: return "min";
  }
}

static const char *red_init(Emitter *E, BuiltinKind b, ElemType t) {
  const char *op = red_op(b);
  if (op[0] == '+') return literal(E, t, false, 0, 0);
  return fmt(E, "t2c::%s<%s>()", op[1] == 'a' ? "lowest" : "highest", ctype(t));
}

/* rowsum/colsum/... evaluated in the element body: a loop over the reduced dim. */
static const char *ev_reduce_inline(Emitter *E, Expr *x, At at, Buf *pre) {
  BuiltinKind b = (BuiltinKind)x->u.call.builtin;
  Expr *a = x->u.call.args[0];
  ElemType at_t = acc_type(x->ty.elem);
  bool row = b == B_ROWSUM || b == B_ROWMAX || b == B_ROWMIN;
  const char *acc = fresh(E, "r"), *kk = fresh(E, "k");
  int n = row ? a->ty.dims[1] : a->ty.dims[0];
  At in = {row ? at.i : kk, row ? kk : at.j, false, at.once, -1};
  const char *why = E->why;
  E->why = fmt(E, "%s() reads it across threads", builtin_names[b]);
  int coop = row ? E->coop : 0;
  line(E, pre, "%s %s = %s;", ctype(at_t), acc, red_init(E, b, at_t));
  if (coop) /* the threads of a group take every coop-th column; rows past the tile idle */
    line(E, pre, "if (e < %d) for (int %s = t2c_part; %s < %d; %s += %d) {", x->ty.dims[0], kk, kk, n, kk, coop);
  else line(E, pre, "for (int %s = 0; %s < %d; ++%s) {", kk, kk, n, kk);
  E->indent++;
  E->coop = 0;
  Buf inner = {0};
  const char *v = ev(E, a, x->ty.elem, in, &inner);
  E->coop = coop;
  if (inner.len) buf_putn(pre, inner.data, inner.len);
  buf_free(&inner);
  if (at_t != a->ty.elem) v = fmt(E, "t2c::cvt<%s>(%s)", ctype(at_t), v);
  const char *op = red_op(b);
  if (op[0] == '+') line(E, pre, "%s += %s;", acc, v);
  else line(E, pre, "%s = t2c::%s(%s, %s);", acc, op, acc, v);
  E->indent--;
  line(E, pre, "}");
  if (coop) line(E, pre, "%s = t2c::fold_%s<%d>(%s);", acc, op[0] == '+' ? "sum" : op, coop, acc);
  E->why = why;
  if (at_t != x->ty.elem) return fmt(E, "t2c::cvt<%s>(%s)", ctype(x->ty.elem), acc);
  return acc;
}

static bool warned(Emitter *E, const void *key);
static bool target_has_mma(const TargetConfig *t);

/* A dot whose operand type has a matrix-unit path on the target, run here on the CUDA cores: said, once. */
static void dot_off_unit(Emitter *E, const Expr *x) {
  ElemType t = x->u.call.args[0]->ty.elem;
  if ((t != T_F16 && t != T_BF16 && t != T_I8 && !elem_is_f8(t)) || !target_has_mma(E->t) || E->dry || warned(E, x))
    return;
  const char *why = arena_printf(E->a, "the tile IR, which runs f16, bf16, i8 and f8 dots on tensor cores, does "
                                       "not lower this kernel (%s)", E->tir_why ? E->tir_why : "?");
  diag_warning(E->d, W_DOT, x->loc, "this dot of %s operands runs on the CUDA cores, not on tensor cores: %s",
               elem_names[t], why);
}

/* dot(a, b) at (i, j): a loop over k, accumulating in f32 (f16/bf16), f64 or i32. */
static const char *ev_dot_inline(Emitter *E, Expr *x, At at, Buf *pre) {
  dot_off_unit(E, x);
  Expr *a = x->u.call.args[0], *b = x->u.call.args[1];
  ElemType acc_t = x->ty.elem;
  const char *acc = fresh(E, "d"), *kk = fresh(E, "k");
  const char *why = E->why;
  E->why = "dot reads it as an operand";
  line(E, pre, "%s %s = %s;", ctype(acc_t), acc, literal(E, acc_t, false, 0, 0));
  line(E, pre, "for (int %s = 0; %s < %d; ++%s) {", kk, kk, a->ty.dims[1], kk);
  E->indent++;
  Buf inner = {0};
  const char *va = ev(E, a, a->ty.elem, (At){at.i, kk, false, false, -1}, &inner);
  const char *vb = ev(E, b, b->ty.elem, (At){kk, at.j, false, false, -1}, &inner);
  if (inner.len) buf_putn(pre, inner.data, inner.len);
  buf_free(&inner);
  if (a->ty.elem != acc_t) {
    va = fmt(E, "t2c::cvt<%s>(%s)", ctype(acc_t), va);
    vb = fmt(E, "t2c::cvt<%s>(%s)", ctype(acc_t), vb);
  }
  line(E, pre, "%s += %s * %s;", acc, va, vb);
  E->indent--;
  line(E, pre, "}");
  E->why = why;
  return acc;
}

static const char *ev_sum(Emitter *E, Expr *x);

static const char *memo_get(Emitter *E, const void *key) {
  for (int i = 0; i < E->nmemo; i++)
    if (E->memo_key[i] == key) return E->memo_val[i];
  return NULL;
}
static void memo_put(Emitter *E, const void *key, const char *v) {
  if (E->nmemo < 64) {
    E->memo_key[E->nmemo] = key;
    E->memo_val[E->nmemo++] = v;
  }
}

/* A temporary shared tile for `key`, named t2c_tmpN in order of first use. */
static int temp_buffer(Emitter *E, const void *key, ElemType elem, const Type *shape, const char *what) {
  int n = E->nbufs;
  int bi = emit_buffer(E, key, fmt(E, "t2c_tmp%d", E->ntemps), elem, shape, what);
  if (bi == n) E->ntemps++;
  return bi;
}

/* A non-elementwise node evaluated more than once per element goes to a temp tile,
 * computed once per statement. */
static const char *ev_materialised(Emitter *E, Expr *x, At at) {
  int bi = temp_buffer(E, x, x->ty.elem, &x->ty,
                       fmt(E, "temporary for %s() at line %d", x->u.call.name, x->loc.line));
  if (!memo_get(E, x)) {
    memo_put(E, x, E->bufs[bi].cname);
    Type saved_shape = E->sshape;
    bool saved_nr = E->no_reg_reads;
    const Sym *saved_layout = E->slayout;
    int saved_indent = E->indent;
    E->indent = E->stmt_indent;
    E->slayout = NULL;
    emit_elementwise(E, &(Target){.kind = TG_BUFFER, .buf = bi, .shape = x->ty}, TK_ASSIGN, x, E->out);
    E->indent = saved_indent;
    E->sshape = saved_shape;
    E->no_reg_reads = saved_nr;
    E->slayout = saved_layout;
  }
  return read_buf(E, bi, (At){at.i, at.j, false, false, -1}, &x->ty);
}

static const char *ev_call(Emitter *E, Expr *x, ElemType want, At at, Buf *pre) {
  if (x->u.call.cast != T_NONE) return ev_cast(E, x, at, pre);
  BuiltinKind b = (BuiltinKind)x->u.call.builtin;
  Expr **args = x->u.call.args;
  switch (builtin_class[b]) {
  case BC_MATH1:
    return fmt(E, "t2c::%s(%s)", builtin_names[b],
               ev(E, args[0], x->ty.elem, child_at(at, &x->ty, &args[0]->ty), pre));
  case BC_MATH2: {
    ElemType t = operand_type(args[0], args[1], want);
    return fmt(E, "t2c::%s(%s, %s)", builtin_names[b],
               ev(E, args[0], t, child_at(at, &x->ty, &args[0]->ty), pre),
               ev(E, args[1], t, child_at(at, &x->ty, &args[1]->ty), pre));
  }
  case BC_RED:
    if (reg_foldable(E, x) || !at.once) return ev_materialised(E, x, at);
    return ev_reduce_inline(E, x, at, pre);
  case BC_SUM: return ev_sum(E, x);
  case BC_RANDOM: /* an untyped literal seed is an i64; an i32 offset is one counter
                     word, converted explicitly (a negative literal is no unsigned) */
    return fmt(E, args[1]->ty.elem == T_U32 ? "t2c::%s(%s, %s)" : "t2c::%s(%s, (unsigned)(%s))", builtin_names[b],
               ev(E, args[0], args[0]->ty.untyped ? T_I64 : args[0]->ty.elem, child_at(at, &x->ty, &args[0]->ty), pre),
               ev(E, args[1], args[1]->ty.elem, child_at(at, &x->ty, &args[1]->ty), pre));
  case BC_ARG: case BC_SCAN: unreachable(); /* emit_program keeps such kernels out (Kernel.ir_only) */
  case BC_OTHER: break;
  }
  switch (b) {
  case B_WHERE: {
    ElemType t = operand_type(args[1], args[2], want != T_NONE ? want : x->ty.elem);
    const char *c = ev(E, args[0], T_BOOL, child_at(at, &x->ty, &args[0]->ty), pre);
    const char *p = ev(E, args[1], t, child_at(at, &x->ty, &args[1]->ty), pre);
    const char *q = ev(E, args[2], t, child_at(at, &x->ty, &args[2]->ty), pre);
    return fmt(E, "(%s ? %s : %s)", c, p, q);
  }
  case B_CDIV: {
    const char *p = ev(E, args[0], T_I32, at, pre), *q = ev(E, args[1], T_I32, at, pre);
    return fmt(E, "((%s + %s - 1) / %s)", p, q, q);
  }
  case B_ROWS: return at.i;
  case B_COLS: return at.j;
  case B_DOT:
    if (!at.once) return ev_materialised(E, x, at);
    return ev_dot_inline(E, x, at, pre);
  case B_TRANSPOSE: {
    const char *why = E->why;
    E->why = "transpose reads it at other elements";
    const char *v = ev(E, args[0], want, (At){at.j, at.i, false, at.once, -1}, pre);
    E->why = why;
    return v;
  }
  case B_PAD: return emit_tensor_read(E, args[0], args[1], at);
  default: unreachable();
  }
}


static const char *ev(Emitter *E, Expr *x, ElemType want, At at, Buf *pre) {
  if ((x->flags & EF_CONST) && x->kind != E_CALL) {
    ElemType t = x->ty.untyped && want != T_NONE && want != T_BOOL ? want : x->ty.elem;
    return literal(E, t, x->cv.isf, x->cv.i, x->cv.f);
  }
  /* an untyped integer expression that is not a constant (a where() of
   * literals, say) divides, takes remainders and works on bits as an i32, as
   * constant folding does; a float context converts the result */
  if (x->ty.untyped && elem_is_int(x->ty.elem) && want != T_NONE && elem_is_float(want) &&
      ((x->kind == E_BINARY && (x->u.binary.op == TK_SLASH || x->u.binary.op == TK_PERCENT ||
                                x->u.binary.op == TK_SHL || x->u.binary.op == TK_SHR || x->u.binary.op == TK_AND ||
                                x->u.binary.op == TK_OR || x->u.binary.op == TK_XOR)) ||
       (x->kind == E_UNARY && x->u.unary.op == TK_TILDE)))
    return fmt(E, "t2c::cvt<%s>(%s)", ctype(want), ev(E, x, x->ty.elem, at, pre));
  switch (x->kind) {
  case E_INT: return literal(E, want != T_NONE ? want : T_I32, false, x->u.ival, 0);
  case E_FLOAT: return literal(E, want != T_NONE ? want : T_F32, true, 0, x->u.fval);
  case E_BOOL: return x->u.ival ? "true" : "false";
  case E_INF: return literal(E, want != T_NONE ? want : T_F32, true, 0, INFINITY);
  case E_CTX: return emit_ctx(E, x->u.ctx);
  case E_IDENT: return ev_ident(E, x, want, at);
  case E_MEMBER: unreachable();
  case E_UNARY: {
    const char *v = ev(E, x->u.unary.a, x->ty.untyped ? want : x->ty.elem,
                       child_at(at, &x->ty, &x->u.unary.a->ty), pre);
    const char *op = x->u.unary.op == TK_MINUS ? "-" : x->u.unary.op == TK_NOT ? "!" : "~";
    /* a negative literal operand, such as i32(-1.5) emitted as -1, must not make "--" */
    return fmt(E, v[0] == '-' ? "(%s(%s))" : "(%s%s)", op, v);
  }
  case E_BINARY: {
    Expr *a = x->u.binary.a, *b = x->u.binary.b;
    ElemType t = operand_type(a, b, x->ty.elem == T_BOOL ? T_NONE : want != T_NONE ? want : x->ty.elem);
    if (x->u.binary.op == TK_OROR || x->u.binary.op == TK_ANDAND) t = T_BOOL;
    const char *p = ev(E, a, t, child_at(at, &x->ty, &a->ty), pre);
    const char *q = ev(E, b, t, child_at(at, &x->ty, &b->ty), pre);
    /* a signed left shift goes through unsigned bits (t2c::shl): a negative value must not be UB */
    if (x->u.binary.op == TK_SHL && (t == T_I8 || t == T_I32 || t == T_I64))
      return fmt(E, "t2c::shl(%s, %s)", p, q);
    return fmt(E, "(%s %s %s)", p, op_text(x->u.binary.op), q);
  }
  case E_CALL: return ev_call(E, x, want, at, pre);
  case E_INDEX: return emit_index_read(E, x, at, pre);
  }
  unreachable();
}

/* A scalar expression (no coordinates). */
static const char *ev_scalar(Emitter *E, Expr *x, ElemType want, Buf *pre) {
  return ev(E, x, want, (At){NULL, NULL, false, true, -1}, pre);
}

/* ------------------------------------------------------------ sum(): a block reduction */

/* Two steps: per-thread partials folded per warp into a scratch row, then every
 * thread folds the row. The barrier between them comes from place.c, like any other. */
static const char *ev_sum_body(Emitter *E, Expr *x);
static const char *ev_sum(Emitter *E, Expr *x) {
  const char *v = memo_get(E, x);
  if (v) return v;
  Type saved_shape = E->sshape;
  bool saved_nr = E->no_reg_reads;
  const Sym *saved_layout = E->slayout;
  int saved_indent = E->indent;
  E->indent = E->stmt_indent;
  E->slayout = NULL;
  v = ev_sum_body(E, x);
  E->indent = saved_indent;
  E->sshape = saved_shape;
  E->no_reg_reads = saved_nr;
  E->slayout = saved_layout;
  memo_put(E, x, v);
  return v;
}

static const char *ev_sum_body(Emitter *E, Expr *x) {
  Expr *a = x->u.call.args[0];
  ElemType t = acc_type(x->ty.elem);
  const char *v = fresh(E, "sum");
  const char *why = E->why;
  E->why = "sum() reads it across threads";
  Type row = {t, 1, {32, 0}, false};
  int warps = E->ki->threads / E->t->lanes;
  line(E, E->out, "%s %s = %s;", ctype(t), v, literal(E, t, false, 0, 0));
  Target tg = {.kind = TG_ACCUM, .accum = v, .accum_type = t, .shape = a->ty};
  emit_elementwise(E, &tg, TK_ADD_ASSIGN, a, E->out);
  if (warps == 1) {
    line(E, E->out, "%s = t2c::fold_sum<%d>(%s);", v, E->t->lanes, v);
  } else {
    E->use_lane = E->use_warp = true;
    int bi = emit_buffer(E, (void *)&elem_names[t], fmt(E, "t2c_red_%s", elem_names[t]), t, &row,
                         "scratch row of sum()");
    Step s1, *sv;
    Buf code = {0};
    step_begin(E, &s1, &sv);
    access(E, bi, true, false);
    line(E, &code, "%s = t2c::fold_sum<%d>(%s);", v, E->t->lanes, v);
    line(E, &code, "if (lane == 0) %s[warp] = %s;", E->bufs[bi].cname, v);
    step_end(E, &s1, sv, &code, E->out);
    Step s2;
    step_begin(E, &s2, &sv);
    access(E, bi, false, false);
    line(E, &code, "%s = t2c::fold_sum<%d>(lane < %d ? %s[lane] : %s);", v, E->t->lanes, warps,
         E->bufs[bi].cname, literal(E, t, false, 0, 0));
    step_end(E, &s2, sv, &code, E->out);
  }
  E->why = why;
  if (t != x->ty.elem) return fmt(E, "t2c::cvt<%s>(%s)", ctype(x->ty.elem), v);
  return v;
}

/* ------------------------------------------------------------ ctx, registers, tiles */

static const char *emit_ctx(Emitter *E, CtxField f) {
  static const char *const axis[] = {"x", "y", "z"};
  switch (f) {
  case CTX_THREAD: return "tid";
  case CTX_THREADS: return fmt(E, "%d", E->ki->threads);
  case CTX_LANE: E->use_lane = true; return "lane";
  case CTX_LANES: return fmt(E, "%d", E->t->lanes);
  case CTX_WARP: E->use_warp = true; return "warp";
  case CTX_WARPS: return fmt(E, "%d", E->ki->threads / E->t->lanes);
  case CTX_BLOCK_X: case CTX_BLOCK_Y: case CTX_BLOCK_Z:
    return fmt(E, "(int)blockIdx.%s", axis[f - CTX_BLOCK_X]);
  case CTX_BLOCKS_X: case CTX_BLOCKS_Y: case CTX_BLOCKS_Z:
    return fmt(E, "(int)gridDim.%s", axis[f - CTX_BLOCKS_X]);
  }
  unreachable();
}

static int reg_index(Emitter *E, Sym *r) {
  for (int i = 0; i < E->ki->regs.len; i++)
    if (E->ki->regs.items[i] == r) return i;
  unreachable();
}

static int tile_buffer(Emitter *E, Sym *t) {
  return emit_buffer(E, t, t->cname, t->ty.elem, &t->ty, fmt(E, "tile %s", t->name));
}

/* A tensor the kernel writes: its global memory is tracked like a buffer, so a
 * read after another thread's store gets its barrier too. */
static int tensor_buffer(Emitter *E, Sym *X) {
  Type none = {X->ty.elem, 0, {0, 0}, false};
  int bi = emit_buffer(E, X, X->cname, X->ty.elem, &none, fmt(E, "tensor %s", X->name));
  E->bufs[bi].global = true;
  E->bufs[bi].bytes = 0;
  return bi;
}

static void warn(Emitter *E, WarnKind w, Loc loc, const char *msg, const char *note, Loc nloc) {
  if (E->dry) return;
  diag_warning(E->d, w, loc, "%s", msg);
  if (note) diag_note(E->d, nloc, "%s", note);
}

static void explain(Emitter *E, const char *fmt_, ...) __attribute__((format(printf, 2, 3)));
static void explain(Emitter *E, const char *fmt_, ...) {
  if (E->dry || !E->o->explain || !E->o->explain_out) return;
  va_list ap;
  va_start(ap, fmt_);
  fprintf(E->o->explain_out, "%s:%d: ", E->o->file, E->line);
  vfprintf(E->o->explain_out, fmt_, ap);
  fputc('\n', E->o->explain_out);
  va_end(ap);
}

/* Copies a register tile into its shared copy: one aligned write per element. */
static void emit_copy(Emitter *E, Sym *r, Buf *out) {
  int ri = reg_index(E, r);
  int bi = emit_buffer(E, r, r->copy_cname, r->ty.elem, &r->ty, fmt(E, "shared copy of register tile %s", r->name));
  const char *why = E->copy_why[ri] ? E->copy_why[ri] : "it is read at other elements";
  int saved = E->indent;
  E->indent = E->stmt_indent;
  Step s, *sv;
  Buf code = {0};
  step_begin(E, &s, &sv);
  access(E, bi, true, true);
  line(E, &code, "// %s -> %s (shared): %s", r->name, r->copy_cname, why);
  if (r->mma) {
    s.nacc = 0;
    access(E, bi, true, false); /* the fragment layout is not the spread */
    E->use_lane = E->use_warp = true;
    for (int k = 0; k < r->per_thread; k++) {
      int ro, co;
      mma_offsets(r, k, &ro, &co);
      line(E, &code, "%s[(%s) * %d + %s] = %s[%d];", r->copy_cname, mma_coord(E, r, "r", ro), r->ty.dims[1],
           mma_coord(E, r, "c", co), r->cname, k);
    }
  }
  for (int k = 0; k < r->per_thread && !r->mma; k++) {
    if (k == 0) line(E, &code, "%s[tid] = %s[0];", r->copy_cname, r->cname);
    else line(E, &code, "%s[tid + %d] = %s[%d];", r->copy_cname, k * E->ki->threads, r->cname, k);
  }
  step_end(E, &s, sv, &code, out);
  E->indent = saved;
  E->st.valid[ri] = 1;
  char *msg = arena_printf(E->a, "register tile '%s' is copied to shared memory here: %s", r->name, why);
  warn(E, W_REGISTERS_COPY, E->loc, msg, arena_printf(E->a, "'%s' is named in @registers here", r->name), r->reg_loc);
  explain(E, "%s: copied from registers to shared tile %s (%" PRId64 " bytes): %s", r->name,
          r->copy_cname, E->bufs[bi].bytes, why);
}

/* ------------------------------------------------------------ tensors */

/* Whether a warning about this slice index was given already (unrolled bodies
 * evaluate one expression several times). */
static bool warned(Emitter *E, const void *key) {
  for (int i = 0; i < E->nwarned; i++)
    if (E->warned[i] == key) return true;
  if (E->nwarned < (int)(sizeof E->warned / sizeof E->warned[0])) E->warned[E->nwarned++] = key;
  return false;
}

static const char *dim_str(Emitter *E, const Sym *X, int d) {
  return X->tdim_size[d] ? X->tdim_size[d]->cname : fmt(E, "%" PRId64, X->tdim_const[d]);
}

static const char *plus(Emitter *E, const char *a, const char *b) {
  if (!a || strcmp(a, "0") == 0) return b;
  if (!b || strcmp(b, "0") == 0) return a;
  return fmt(E, "%s + %s", a, b);
}

/* The linear index of X[...] at coordinates and the bounds condition (NULL when proven). */
static void tensor_index(Emitter *E, Expr *slice, At at, const char **lin, const char **cond, Buf *pre) {
  Sym *X = slice->u.index.base->u.ident.sym;
  const char *sidx = NULL; /* @strided: sum of p * X_strided in 64 bits */
  const char *coord[2] = {at.i, at.j};
  int kept = 0, nsize = 0;
  for (int d = 0; d < X->trank; d++) nsize += X->tdim_size[d] != NULL;
  bool wide = nsize >= 2 || (nsize >= 1 && X->trank >= 3);
  const char *idx = NULL, *cnd = NULL;
  for (int d = 0; d < X->trank; d++) {
    Index *ix = &slice->u.index.idx[d];
    const char *st = ev_scalar(E, ix->start, T_I32, pre);
    int64_t len = 1;
    const char *p = st;
    if (ix->len) {
      check_const_int(ix->len, &len);
      p = plus(E, st, coord[kept++]);
    }
    bool lo_ok = facts_nonneg(ix->start), hi_ok = facts_fits(E->ki, ix->start, len, X, d);
    const char *D = dim_str(E, X, d);
    const char *c = NULL;
    if (!lo_ok && !hi_ok) c = fmt(E, "(unsigned)(%s) < (unsigned)%s", p, D);
    else if (!lo_ok) c = fmt(E, "%s >= 0", paren(E, p));
    else if (!hi_ok) c = fmt(E, "%s < %s", paren(E, p), D);
    if (c) {
      cnd = cnd ? fmt(E, "%s && %s", cnd, c) : c;
      if (E->loop_depth > 0 && !E->dry && !warned(E, ix)) facts_bounds_warning(E->d, E->a, E->ki, X, d, ix, len);
    }
    if (X->tstride[d]) {
      const char *t = strcmp(p, "1") == 0 ? X->tstride[d]->cname : fmt(E, "(long long)%s * %s", paren(E, p), X->tstride[d]->cname);
      if (strcmp(p, "0") != 0) sidx = plus(E, sidx, t);
      continue;
    }
    if (!idx) idx = wide && strcmp(p, "0") != 0 ? fmt(E, "(long long)%s", paren(E, p)) : p;
    else if (strcmp(D, "1") == 0) idx = plus(E, idx, p);
    else if (strcmp(idx, "0") == 0) idx = p;
    else idx = plus(E, fmt(E, "%s * %s", paren(E, idx), D), paren(E, p));
  }
  *lin = X->tstride[0] ? (sidx ? sidx : "0") : idx;
  *cond = cnd;
}

static const char *emit_tensor_read(Emitter *E, Expr *slice, Expr *pad, At at) {
  /* the slice's own coordinate expressions may need preludes: none do (scalars only) */
  Buf pre = {0};
  const char *lin, *cond;
  tensor_index(E, slice, at, &lin, &cond, &pre);
  if (pre.len) buf_putn(E->out, pre.data, pre.len); /* sum() in an index: statement level */
  buf_free(&pre);
  Sym *X = slice->u.index.base->u.ident.sym;
  if (X->written) access(E, tensor_buffer(E, X), false, false);
  const char *v = fmt(E, "%s[%s]", X->cname, lin);
  if (!cond) return v;
  const char *p = pad ? ev_scalar(E, pad, X->ty.elem, E->out) : literal(E, X->ty.elem, false, 0, 0);
  return fmt(E, "(%s ? %s : %s)", cond, v, p);
}

/* t[i, j] and t[a :+ m, b :+ n] on a tile; X[...] on a tensor. */
static const char *emit_index_read(Emitter *E, Expr *x, At at, Buf *pre) {
  Sym *y = x->u.index.base->u.ident.sym;
  if (y->kind == SY_TENSOR) return emit_tensor_read(E, x, NULL, at);
  const char *why = E->why;
  E->why = x->ty.rank == 0 ? "an element read reads it at one element for all threads"
                           : "a sub-tile read reads it at other elements";
  int bi = y->place == PL_REGISTER ? reg_copy(E, y) : tile_buffer(E, y);
  E->why = why;
  const char *coord[2] = {at.i, at.j}, *p[2] = {"0", "0"};
  int kept = 0;
  for (int d = 0; d < x->u.index.nidx; d++) {
    Index *ix = &x->u.index.idx[d];
    const char *st = ev_scalar(E, ix->start, T_I32, pre);
    p[d] = ix->len ? plus(E, st, coord[kept++]) : st;
  }
  const Buffer *b = &E->bufs[bi];
  const char *ix = b->rank <= 1 ? p[0] : lin2(E, p[0], b->pitch, p[1]);
  /* element e of a statement as large as the tile: the spread of its writers */
  access(E, bi, false, at.aligned && spread_statement(E) && strcmp(ix, "e") == 0 && type_numel(&E->sshape) == b->numel);
  return fmt(E, "%s[%s]", b->cname, ix);
}

/* ------------------------------------------------------------ elementwise statements */

static bool is_elementwise_call(const Expr *x) {
  if (x->u.call.cast != T_NONE) return true;
  int b = x->u.call.builtin;
  return b >= 0 && (builtin_class[b] == BC_MATH1 || builtin_class[b] == BC_MATH2 || builtin_class[b] == BC_RANDOM ||
                    b == B_WHERE);
}

/* Whether x reads a register tile at the statement's own elements. */
static bool aligned_reg(const Expr *x, const Type *shape) {
  if (x->ty.rank == 0 || !same_shape(&x->ty, shape)) return false;
  switch (x->kind) {
  case E_IDENT: return x->u.ident.sym && x->u.ident.sym->place == PL_REGISTER;
  case E_UNARY: return aligned_reg(x->u.unary.a, shape);
  case E_BINARY: return aligned_reg(x->u.binary.a, shape) || aligned_reg(x->u.binary.b, shape);
  case E_CALL:
    if (!is_elementwise_call(x)) return false;
    for (int i = 0; i < x->u.call.nargs; i++)
      if (aligned_reg(x->u.call.args[i], shape)) return true;
    return false;
  default: return false;
  }
}


/* The same tensor slice as the store target: each thread reads what it writes. */
static bool same_slice(const Expr *x, const Expr *lhs) {
  if (!lhs || lhs->kind != E_INDEX || x->u.index.base->u.ident.sym != lhs->u.index.base->u.ident.sym ||
      x->u.index.nidx != lhs->u.index.nidx)
    return false;
  for (int i = 0; i < x->u.index.nidx; i++) {
    const Index *p = &x->u.index.idx[i], *q = &lhs->u.index.idx[i];
    if (!facts_expr_equal(p->start, q->start) || !p->len != !q->len || (p->len && !facts_expr_equal(p->len, q->len))) return false;
  }
  return true;
}

/* A register tile in the mma layout that x reads at the statement's own elements. */
static const Sym *aligned_mma_reg(const Expr *x, const Type *shape) {
  if (x->ty.rank == 0 || !same_shape(&x->ty, shape)) return NULL;
  switch (x->kind) {
  case E_IDENT: return x->u.ident.sym && x->u.ident.sym->place == PL_REGISTER && x->u.ident.sym->mma ? x->u.ident.sym : NULL;
  case E_UNARY: return aligned_mma_reg(x->u.unary.a, shape);
  case E_BINARY: {
    const Sym *a = aligned_mma_reg(x->u.binary.a, shape);
    return a ? a : aligned_mma_reg(x->u.binary.b, shape);
  }
  case E_CALL:
    if (!is_elementwise_call(x)) return NULL;
    for (int i = 0; i < x->u.call.nargs; i++) {
      const Sym *a = aligned_mma_reg(x->u.call.args[i], shape);
      if (a) return a;
    }
    return NULL;
  default: return NULL;
  }
}

/* Whether x reads tile or tensor y anywhere but at the statement's own element; lhs is
 * the tensor slice the statement stores to (or NULL): reading that same slice is aligned. */
static bool reads_unaligned_at(const Expr *x, const Sym *y, const Type *shape, bool aligned, const Expr *lhs) {
  switch (x->kind) {
  case E_IDENT: return x->u.ident.sym == y && (!aligned || !same_shape(&x->ty, shape));
  case E_UNARY: return reads_unaligned_at(x->u.unary.a, y, shape, aligned && same_shape(&x->u.unary.a->ty, &x->ty), lhs);
  case E_BINARY:
    return reads_unaligned_at(x->u.binary.a, y, shape, aligned && same_shape(&x->u.binary.a->ty, &x->ty), lhs) ||
           reads_unaligned_at(x->u.binary.b, y, shape, aligned && same_shape(&x->u.binary.b->ty, &x->ty), lhs);
  case E_CALL: {
    bool ew = is_elementwise_call(x);
    for (int i = 0; i < x->u.call.nargs; i++) {
      const Expr *a = x->u.call.args[i];
      if (reads_unaligned_at(a, y, shape, ew && aligned && same_shape(&a->ty, &x->ty), lhs)) return true;
    }
    return false;
  }
  case E_INDEX:
    if (x->u.index.base->u.ident.sym == y)
      return !(aligned && same_shape(&x->ty, shape) && same_slice(x, lhs));
    for (int i = 0; i < x->u.index.nidx; i++)
      if (reads_unaligned_at(x->u.index.idx[i].start, y, shape, false, lhs)) return true;
    return false;
  default: return false;
  }
}

/* The same, for a statement that stores to no tensor. */
static bool reads_unaligned(const Expr *x, const Sym *y, const Type *shape, bool aligned) {
  return reads_unaligned_at(x, y, shape, aligned, NULL);
}

static const char *assign_op(TokenKind op) {
  switch (op) {
  case TK_ASSIGN: return "=";
  case TK_ADD_ASSIGN: return "+=";
  case TK_SUB_ASSIGN: return "-=";
  case TK_MUL_ASSIGN: return "*=";
  case TK_DIV_ASSIGN: return "/=";
  default: unreachable();
  }
}

static ElemType target_elem(Emitter *E, const Target *tg) {
  switch (tg->kind) {
  case TG_REGISTER: return tg->sym->ty.elem;
  case TG_BUFFER: case TG_PARTIAL: return E->bufs[tg->buf].elem;
  case TG_TENSOR: return tg->lhs->u.index.base->u.ident.sym->ty.elem;
  case TG_ACCUM: return tg->accum_type;
  }
  unreachable();
}

/* The store of one element: `acc[2] += v;`, `x[e] = v;`, `if (...) O[...] = v;`. */
static void store_elem(Emitter *E, const Target *tg, TokenKind op, const char *v, At at, int k, Buf *b) {
  const char *o = assign_op(op);
  switch (tg->kind) {
  case TG_REGISTER: line(E, b, "%s[%d] %s %s;", tg->sym->cname, k, o, v); return;
  case TG_BUFFER: {
    const Buffer *bf = &E->bufs[tg->buf];
    if (k <= 0) access(E, tg->buf, true, !E->coop && spread_statement(E));
    if (bf->pitch == bf->dims[1] && !E->coop && spread_statement(E)) line(E, b, "%s[e] %s %s;", bf->cname, o, v);
    else line(E, b, "%s[%s] %s %s;", bf->cname, index_2d(E, bf, at.i, at.j), o, v);
    return;
  }
  case TG_PARTIAL: {
    Expr *l = tg->lhs;
    const char *coord[2] = {at.i, at.j}, *p[2] = {"0", "0"};
    int kept = 0;
    for (int d = 0; d < l->u.index.nidx; d++) {
      Index *ix = &l->u.index.idx[d];
      const char *st = ev_scalar(E, ix->start, T_I32, b);
      p[d] = ix->len ? plus(E, st, coord[kept++]) : st;
    }
    const Buffer *bf = &E->bufs[tg->buf];
    const char *ix = bf->rank <= 1 ? p[0] : lin2(E, p[0], bf->pitch, p[1]);
    if (k <= 0) access(E, tg->buf, true, !E->coop && strcmp(ix, "e") == 0 && type_numel(&tg->shape) == bf->numel);
    line(E, b, "%s[%s] %s %s;", bf->cname, ix, o, v);
    return;
  }
  case TG_TENSOR: {
    const char *lin, *cond;
    Sym *X = tg->lhs->u.index.base->u.ident.sym;
    tensor_index(E, tg->lhs, at, &lin, &cond, b);
    int bi = tensor_buffer(E, X);
    access(E, bi, true, false);
    if (cond) line(E, b, "if (%s) %s[%s] %s %s;", cond, X->cname, lin, o, v);
    else line(E, b, "%s[%s] %s %s;", X->cname, lin, o, v);
    return;
  }
  case TG_ACCUM: line(E, b, "%s %s %s;", tg->accum, o, v); return;
  }
}

static bool uses_ident(const char *code, const char *id) {
  size_t n = strlen(id);
  for (const char *p = strstr(code, id); p; p = strstr(p + 1, id)) {
    bool before = p == code || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
    char a = p[n];
    bool after = !(a == '_' || (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') || (a >= '0' && a <= '9'));
    if (before && after) return true;
  }
  return false;
}

/* The coordinates of element e of a statement of this shape. */
static void coords(const Type *shape, const char **ci, const char **cj) {
  if (shape->rank == 1) {
    *ci = "e";
    *cj = NULL;
    return;
  }
  int m = shape->dims[0], n = shape->dims[1];
  *ci = m == 1 ? "0" : n == 1 ? "e" : "r";
  *cj = n == 1 ? "0" : m == 1 ? "e" : "c";
}

/* The body of one element: preludes, then the store. Declares r and c when used. */
static void element_body(Emitter *E, const Target *tg, TokenKind op, Expr *rhs, int kreg, Buf *out) {
  const char *ci = "r", *cj = "c";
  if (!E->slayout) coords(&tg->shape, &ci, &cj); /* an mma layout: the caller declares r and c */
  Buf pre = {0}, st = {0};
  ElemType want = target_elem(E, tg);
  At root = {ci, cj, true, true, kreg};
  const char *v = ev(E, rhs, want, child_at(root, &tg->shape, &rhs->ty), &pre);
  if (tg->kind == TG_ACCUM && !rhs->ty.untyped && rhs->ty.elem != tg->accum_type)
    v = fmt(E, "t2c::cvt<%s>(%s)", ctype(tg->accum_type), v);
  store_elem(E, tg, op, v, (At){ci, cj, true, true, kreg}, kreg, &st);
  Buf all = {0};
  if (pre.len) buf_putn(&all, pre.data, pre.len);
  if (st.len) buf_putn(&all, st.data, st.len);
  const char *code = all.data ? all.data : "";
  if (!E->slayout && tg->shape.rank == 2 && (uses_ident(code, "r") || uses_ident(code, "c"))) {
    int n = tg->shape.dims[1];
    if (uses_ident(code, "r") && uses_ident(code, "c")) line(E, out, "const int r = e / %d, c = e %% %d;", n, n);
    else if (uses_ident(code, "r")) line(E, out, "const int r = e / %d;", n);
    else line(E, out, "const int c = e %% %d;", n);
  }
  buf_puts(out, code);
  buf_free(&pre);
  buf_free(&st);
  buf_free(&all);
}

/* A register row reduction folded with shuffles into a shared [M, 1] buffer. */
static void emit_fold(Emitter *E, int bi, Expr *x, TokenKind op, Buf *out) {
  Sym *t = x->u.call.args[0]->u.ident.sym;
  int n = t->ty.dims[1], T = E->ki->threads;
  bool sum = x->u.call.builtin == B_ROWSUM;
  Step s, *sv;
  Buf code = {0};
  step_begin(E, &s, &sv);
  access(E, bi, true, false);
  if (t->mma) {
    E->use_lane = E->use_warp = true;
    line(E, &code, "// %s(%s): each row lives in a quad of lanes (mma layout): own columns, then shuffles",
         x->u.call.name, t->name);
    for (int i = 0; i < t->mt; i++)
      for (int h = 0; h < 2; h++) {
        Buf v = {0};
        for (int j = 0; j < t->nt; j++)
          for (int q = 0; q < 2; q++) {
            int k = (i * t->nt + j) * 4 + h * 2 + q;
            const char *el = fmt(E, "%s[%d]", t->cname, k);
            if (!v.len) buf_puts(&v, el);
            else if (sum) buf_printf(&v, " + %s", el);
            else {
              char *prev = arena_strndup(E->a, v.data, v.len);
              v.len = 0;
              buf_printf(&v, "t2c::max(%s, %s)", prev, el);
            }
          }
        line(E, &code, "{ const float v = t2c::fold_%s<4>(%s); if (lane %% 4 == 0) %s[%s] %s v; }", sum ? "sum" : "max",
             v.data, E->bufs[bi].cname, mma_coord(E, t, "r", i * 16 + h * 8), assign_op(op));
        buf_free(&v);
      }
    step_end(E, &s, sv, &code, out);
    return;
  }
  line(E, &code, "// %s(%s): each row of %d is a run of %d lanes, folded with shuffles", x->u.call.name,
       t->name, n, n);
  for (int k = 0; k < t->per_thread; k++) {
    const char *e = k ? fmt(E, "(tid + %d)", k * T) : "tid";
    if (n == 1) {
      line(E, &code, "%s[%s] %s %s[%d];", E->bufs[bi].cname, e, assign_op(op), t->cname, k);
      continue;
    }
    line(E, &code, "{ const %s v = t2c::fold_%s<%d>(%s[%d]); if (tid %% %d == 0) %s[%s / %d] %s v; }",
         ctype(t->ty.elem), sum ? "sum" : "max", n, t->cname, k, n, E->bufs[bi].cname, e, n, assign_op(op));
  }
  step_end(E, &s, sv, &code, out);
  explain(E, "%s(%s) folded in registers with warp shuffles (rows of %d lanes), into %s", x->u.call.name,
          t->name, n, E->bufs[bi].cname);
}

static bool reg_foldable_target(Emitter *E, const Target *tg, Expr *rhs) {
  return reg_foldable(E, rhs) && tg->kind == TG_BUFFER && same_shape(&rhs->ty, &tg->shape) &&
         E->bufs[tg->buf].elem == rhs->ty.elem;
}

/* Statement targets that are read across threads by their own right-hand side
 * are computed into a temporary first. */
static const Sym *target_sym(const Target *tg) {
  if (tg->kind == TG_PARTIAL || tg->kind == TG_TENSOR) return tg->lhs->u.index.base->u.ident.sym;
  return NULL;
}

/* acc += dot(a, b) with acc in registers: one loop over k updates all of the
 * thread's elements, so each operand element is loaded once per k and the
 * column operand is shared by them all (the thread's elements share a column
 * when the row length divides the thread count). */
static void emit_dot_blocked(Emitter *E, Sym *acc, TokenKind op, Expr *x, Buf *out) {
  dot_off_unit(E, x);
  Expr *a = x->u.call.args[0], *b = x->u.call.args[1];
  int n = acc->ty.dims[1], T = E->ki->threads, K = a->ty.dims[1];
  ElemType at = x->ty.elem;
  E->sshape = acc->ty;
  const char *why = E->why;
  E->why = "dot reads it as an operand";
  Step s, *sv;
  Buf code = {0}, pre = {0};
  step_begin(E, &s, &sv);
  int base = E->indent;
  line(E, &code, "// %s %s dot: one loop over k for this thread's %d elements (rows r + %d*i, column c)",
       acc->name, op == TK_ASSIGN ? "=" : "+=", acc->per_thread, T / n);
  if (op == TK_ASSIGN)
    for (int k = 0; k < acc->per_thread; k++) line(E, &code, "%s[%d] = %s;", acc->cname, k, literal(E, at, false, 0, 0));
  line(E, &code, "{ const int r = tid / %d, c = tid %% %d;", n, n);
  E->indent = base + 1;
  const char *kk = fresh(E, "k");
  line(E, &code, "for (int %s = 0; %s < %d; ++%s) {", kk, kk, K, kk);
  E->indent = base + 2;
  Buf body = {0};
  const char *vb = ev(E, b, b->ty.elem, (At){kk, "c", false, false, -1}, &pre);
  if (b->ty.elem != at) vb = fmt(E, "t2c::cvt<%s>(%s)", ctype(at), vb);
  const char *bv = fresh(E, "b");
  line(E, &body, "const %s %s = %s;", ctype(at), bv, vb);
  for (int k = 0; k < acc->per_thread; k++) {
    const char *row = k ? fmt(E, "r + %d", k * (T / n)) : "r";
    const char *va = ev(E, a, a->ty.elem, (At){row, kk, false, false, -1}, &pre);
    if (a->ty.elem != at) va = fmt(E, "t2c::cvt<%s>(%s)", ctype(at), va);
    line(E, &body, "%s[%d] += %s * %s;", acc->cname, k, va, bv);
  }
  buf_putn(&code, pre.data, pre.len);
  buf_putn(&code, body.data, body.len);
  E->indent = base + 1;
  line(E, &code, "}");
  E->indent = base;
  line(E, &code, "}");
  buf_free(&pre);
  buf_free(&body);
  step_end(E, &s, sv, &code, out);
  E->why = why;
}

/* ------------------------------------------------------------ tensor cores */

static bool target_has_mma(const TargetConfig *t) {
  for (int i = 0; i < t->n_mma_shapes; i++)
    if (strcmp(t->mma_shapes[i], "m16n8k16") == 0) return true;
  return false;
}

/* Warps wm x wn over [m, n] tiles of 16 x 8, every warp the same number of tiles;
 * whole rows per warp (wn = 1) when that divides, so row reductions stay in a warp. */
static bool mma_tiling(int warps, int m, int n, int *wm, int *wn) {
  int tm = m / 16, tn = n / 8;
  for (int a = warps < tm ? warps : tm; a >= 1; a--) {
    if (warps % a || tm % a || tn % (warps / a)) continue;
    *wm = a;
    *wn = warps / a;
    return true;
  }
  return false;
}

/* Whether x is a dot(a, b) that mma.sync m16n8k16 can run into register tile acc. */
static bool mma_dot(Emitter *E, const Sym *acc, const Expr *x);

/* A register tile in the mma layout, cast to f16 or bf16, whose warps hold whole rows of
 * the same row bands as acc's: its accumulator fragments are A fragments as they stand. */
static const Sym *reg_a_operand(Emitter *E, const Sym *acc, const Expr *a) {
  if (a->kind != E_CALL || (a->u.call.cast != T_F16 && a->u.call.cast != T_BF16)) return NULL;
  const Expr *p = a->u.call.args[0];
  if (p->kind != E_IDENT || !p->u.ident.sym) return NULL;
  const Sym *ps = p->u.ident.sym;
  if (ps->place != PL_REGISTER || !ps->mma || ps->wn != 1 || ps == acc || ps->ty.elem != T_F32) return NULL;
  int wm, wn;
  if (!mma_tiling(E->ki->threads / E->t->lanes, acc->ty.dims[0], acc->ty.dims[1], &wm, &wn) || wn != 1 ||
      wm != ps->wm)
    return NULL;
  return ps;
}

/* Whether x is a dot(a, b) that mma.sync m16n8k16 can run into register tile acc. */
static bool mma_dot(Emitter *E, const Sym *acc, const Expr *x) {
  if (x->kind != E_CALL || x->u.call.builtin != B_DOT || !target_has_mma(E->t) || acc->ty.elem != T_F32) return false;
  const Expr *a = x->u.call.args[0], *b = x->u.call.args[1];
  for (int i = 0; i < 2; i++) {
    const Expr *o = x->u.call.args[i];
    bool shared = o->kind == E_IDENT && o->u.ident.sym && o->u.ident.sym->place == PL_SHARED;
    if (!shared && !(i == 0 && reg_a_operand(E, acc, o))) return false;
  }
  if (a->ty.elem != T_F16 && a->ty.elem != T_BF16) return false;
  int m = a->ty.dims[0], k = a->ty.dims[1], n = b->ty.dims[1];
  return m % 16 == 0 && n % 8 == 0 && k % 16 == 0 && m == acc->ty.dims[0] && n == acc->ty.dims[1];
}

/* The dots that update register tile r: counts of the ones mma can run and the others. */
typedef struct DotCount {
  Emitter *E;
  const Sym *r;
  int yes, no;
} DotCount;

/* One statement's dot updates of register tile r: ones mma can run, and others. */
static void count_dots_stmt(Stmt *s, void *ctx) {
  DotCount *dc = ctx;
  if (s->kind != S_ASSIGN && s->kind != S_VAR) return;
  const Expr *l = s->kind == S_ASSIGN ? s->u.assign.lhs : NULL;
  const Sym *t = s->kind == S_VAR ? s->u.decl.sym : l->kind == E_IDENT ? l->u.ident.sym : NULL;
  const Expr *x = s->kind == S_VAR ? s->u.decl.init : s->u.assign.rhs;
  if (t != dc->r || !x) return;
  if (x->kind == E_BINARY && x->u.binary.op == TK_PLUS) {
    const Expr *d = x->u.binary.b->kind == E_CALL ? x->u.binary.b : x->u.binary.a;
    if (d->kind == E_CALL && d->u.call.builtin == B_DOT) x = d;
  }
  if (x->kind == E_CALL && x->u.call.builtin == B_DOT) {
    if (mma_dot(dc->E, dc->r, x) && !reads_unaligned(x, dc->r, &dc->r->ty, false)) dc->yes++;
    else dc->no++;
    return;
  }
  if (!(x->flags & EF_TILE)) return;
  /* a dot elsewhere in an update of r is evaluated per element: not mma */
  const Expr *st[64];
  int n = 0;
  st[n++] = x;
  while (n) {
    const Expr *y = st[--n];
    if (y->kind == E_CALL && y->u.call.builtin == B_DOT) dc->no++;
    if (y->kind == E_BINARY && n < 62) st[n++] = y->u.binary.a, st[n++] = y->u.binary.b;
    if (y->kind == E_UNARY && n < 63) st[n++] = y->u.unary.a;
    if (y->kind == E_CALL)
      for (int j = 0; j < y->u.call.nargs && n < 63; j++) st[n++] = y->u.call.args[j];
  }
}

static void mark_operands(Block *b, const Sym *r);

static void mark_transposed_expr(Expr *x) {
  if (!x) return;
  switch (x->kind) {
  case E_UNARY: mark_transposed_expr(x->u.unary.a); return;
  case E_BINARY: mark_transposed_expr(x->u.binary.a); mark_transposed_expr(x->u.binary.b); return;
  case E_CALL:
    if (x->u.call.builtin == B_TRANSPOSE && x->u.call.args[0]->kind == E_IDENT && x->u.call.args[0]->u.ident.sym &&
        x->u.call.args[0]->u.ident.sym->place == PL_SHARED)
      x->u.call.args[0]->u.ident.sym->read_transposed = true;
    for (int i = 0; i < x->u.call.nargs; i++) mark_transposed_expr(x->u.call.args[i]);
    return;
  case E_INDEX:
    for (int i = 0; i < x->u.index.nidx; i++) mark_transposed_expr(x->u.index.idx[i].start);
    return;
  default: return;
  }
}

static void transposed_stmt(Stmt *s, void *ctx) {
  (void)ctx;
  switch (s->kind) {
  case S_VAR: mark_transposed_expr(s->u.decl.init); break;
  case S_ASSIGN: mark_transposed_expr(s->u.assign.rhs); mark_transposed_expr(s->u.assign.lhs); break;
  case S_WHILE: mark_transposed_expr(s->u.whil.cond); break;
  case S_IF: mark_transposed_expr(s->u.iff.cond); break;
  default: break;
  }
}

/* Marks the shared tiles that transpose() reads. */
static void mark_transposed(Block *b) { facts_walk_stmts(b, transposed_stmt, NULL); }

/* A register tile whose every dot update mma can run holds the fragment layout. */
static void choose_layouts(Emitter *E, Kernel *k) {
  for (int i = 0; i < E->ki->regs.len; i++) ((Sym *)E->ki->regs.items[i])->mma = false;
  /* a tile whose dots read another mma tile's registers can only follow it: repeat */
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < E->ki->regs.len; i++) {
      Sym *r = E->ki->regs.items[i];
      if (r->mma || r->ty.rank != 2) continue;
      DotCount dc = {E, r, 0, 0};
      facts_walk_stmts(&k->body, count_dots_stmt, &dc);
      int wm, wn;
      if (!dc.yes || dc.no || !mma_tiling(E->ki->threads / E->t->lanes, r->ty.dims[0], r->ty.dims[1], &wm, &wn)) continue;
      r->mma = true;
      r->wm = wm;
      r->wn = wn;
      r->mt = r->ty.dims[0] / 16 / wm;
      r->nt = r->ty.dims[1] / 8 / wn;
      mark_operands(&k->body, r);
      changed = true;
    }
  }
}

/* The shared operands of r's dot updates are read by ldmatrix (their rows get padded). */
static void operands_stmt(Stmt *s, void *ctx) {
  const Sym *r = ctx;
  bool assigns = s->kind == S_ASSIGN && s->u.assign.lhs->kind == E_IDENT && s->u.assign.lhs->u.ident.sym == r;
  if (!assigns && !(s->kind == S_VAR && s->u.decl.sym == r && s->u.decl.init)) return;
  const Expr *x = assigns ? s->u.assign.rhs : s->u.decl.init;
  if (x->kind == E_BINARY && x->u.binary.op == TK_PLUS) x = x->u.binary.b->kind == E_CALL ? x->u.binary.b : x->u.binary.a;
  if (x->kind == E_CALL && x->u.call.builtin == B_DOT)
    for (int j = 0; j < 2; j++)
      if (x->u.call.args[j]->kind == E_IDENT) x->u.call.args[j]->u.ident.sym->mma_operand = true;
}

static void mark_operands(Block *b, const Sym *r) { facts_walk_stmts(b, operands_stmt, (void *)r); }

/* acc += dot(f16(p), v) with p's fragments in registers: per 16 columns of p, its two
 * 16 x 8 accumulator tiles, rounded and packed, are the A fragment (no shared memory). */
static void emit_dot_mma_rega(Emitter *E, Sym *acc, const Sym *p, TokenKind op, Expr *x, Buf *out) {
  Expr *a = x->u.call.args[0], *b = x->u.call.args[1];
  int bb = tile_buffer(E, b->u.ident.sym);
  const Buffer *B = &E->bufs[bb];
  int K = a->ty.dims[1];
  ElemType et = a->u.call.cast;
  const char *kind = et == T_F16 ? "f16" : "bf16";
  Step s, *sv;
  Buf code = {0};
  step_begin(E, &s, &sv);
  access(E, bb, false, false);
  E->use_lane = E->use_warp = true;
  line(E, &code, "// %s %s dot(%s(%s), %s) on tensor cores: the A fragments are %s's registers, %s",
       acc->name, op == TK_ASSIGN ? "=" : "+=", kind, p->name, b->u.ident.sym->name, p->name,
       "rounded and packed in pairs");
  if (op == TK_ASSIGN)
    for (int k = 0; k < acc->per_thread; k++) line(E, &code, "%s[%d] = 0.0f;", acc->cname, k);
  for (int kc = 0; kc < K / 16; kc++) {
    line(E, &code, "{");
    E->indent++;
    for (int i = 0; i < acc->mt; i++) {
      int t0 = (i * p->nt + 2 * kc) * 4, t1 = (i * p->nt + 2 * kc + 1) * 4;
      const char *c = ctype(et);
      line(E, &code, "const unsigned t2c_a%d[4] = {", i);
      line(E, &code, "    t2c::pack2(t2c::cvt<%s>(%s[%d]), t2c::cvt<%s>(%s[%d])), t2c::pack2(t2c::cvt<%s>(%s[%d]), t2c::cvt<%s>(%s[%d])),",
           c, p->cname, t0, c, p->cname, t0 + 1, c, p->cname, t0 + 2, c, p->cname, t0 + 3);
      line(E, &code, "    t2c::pack2(t2c::cvt<%s>(%s[%d]), t2c::cvt<%s>(%s[%d])), t2c::pack2(t2c::cvt<%s>(%s[%d]), t2c::cvt<%s>(%s[%d]))};",
           c, p->cname, t1, c, p->cname, t1 + 1, c, p->cname, t1 + 2, c, p->cname, t1 + 3);
    }
    for (int j = 0; j < acc->nt; j++) {
      line(E, &code, "unsigned t2c_b%d[2];", j);
      line(E, &code, "t2c::ldmatrix_x2_trans(t2c_b%d, &%s[(%d + lane %% 16) * %d + t2c_%s_wc + %d]);", j, B->cname,
           kc * 16, B->pitch, acc->cname, j * 8);
    }
    for (int i = 0; i < acc->mt; i++)
      for (int j = 0; j < acc->nt; j++) {
        int k0 = (i * acc->nt + j) * 4;
        line(E, &code, "t2c::mma_16816_%s(%s[%d], %s[%d], %s[%d], %s[%d], t2c_a%d, t2c_b%d);", kind, acc->cname, k0,
             acc->cname, k0 + 1, acc->cname, k0 + 2, acc->cname, k0 + 3, i, j);
      }
    E->indent--;
    line(E, &code, "}");
  }
  step_end(E, &s, sv, &code, out);
  explain(E, "%s: dot on tensor cores with %s's registers as the A operand", acc->name, p->name);
}

/* acc += dot(a, b) on tensor cores: per 16 columns of k, A fragments by ldmatrix,
 * B fragments by ldmatrix.trans, one mma.sync per 16 x 8 tile of the warp. */
static void emit_dot_mma(Emitter *E, Sym *acc, TokenKind op, Expr *x, Buf *out) {
  Expr *a = x->u.call.args[0], *b = x->u.call.args[1];
  const Sym *pa = reg_a_operand(E, acc, a);
  if (pa) {
    emit_dot_mma_rega(E, acc, pa, op, x, out);
    return;
  }
  int ba = tile_buffer(E, a->u.ident.sym), bb = tile_buffer(E, b->u.ident.sym);
  const Buffer *A = &E->bufs[ba], *B = &E->bufs[bb];
  int K = a->ty.dims[1];
  const char *kind = a->ty.elem == T_F16 ? "f16" : "bf16";
  Step s, *sv;
  Buf code = {0};
  step_begin(E, &s, &sv);
  access(E, ba, false, false);
  access(E, bb, false, false);
  E->use_lane = E->use_warp = true;
  int base = E->indent;
  line(E, &code, "// %s %s dot(%s, %s) on tensor cores: mma.sync m16n8k16 (%s), warps %d x %d, %d x %d tiles of 16 x 8 each",
       acc->name, op == TK_ASSIGN ? "=" : "+=", a->u.ident.sym->name, b->u.ident.sym->name, kind, acc->wm, acc->wn,
       acc->mt, acc->nt);
  if (op == TK_ASSIGN)
    for (int k = 0; k < acc->per_thread; k++) line(E, &code, "%s[%d] = 0.0f;", acc->cname, k);
  const char *kk = fresh(E, "k");
  line(E, &code, "for (int %s = 0; %s < %d; %s += 16) {", kk, kk, K, kk);
  E->indent = base + 1;
  for (int i = 0; i < acc->mt; i++) {
    line(E, &code, "unsigned t2c_a%d[4];", i);
    line(E, &code, "t2c::ldmatrix_x4(t2c_a%d, &%s[(t2c_%s_wr + %d + lane %% 16) * %d + %s + (lane / 16) * 8]);", i,
         A->cname, acc->cname, i * 16, A->pitch, kk);
  }
  for (int j = 0; j < acc->nt; j++) {
    line(E, &code, "unsigned t2c_b%d[2];", j);
    line(E, &code, "t2c::ldmatrix_x2_trans(t2c_b%d, &%s[(%s + lane %% 16) * %d + t2c_%s_wc + %d]);", j, B->cname, kk,
         B->pitch, acc->cname, j * 8);
  }
  for (int i = 0; i < acc->mt; i++)
    for (int j = 0; j < acc->nt; j++) {
      int k0 = (i * acc->nt + j) * 4;
      line(E, &code, "t2c::mma_16816_%s(%s[%d], %s[%d], %s[%d], %s[%d], t2c_a%d, t2c_b%d);", kind, acc->cname, k0,
           acc->cname, k0 + 1, acc->cname, k0 + 2, acc->cname, k0 + 3, i, j);
    }
  E->indent = base;
  line(E, &code, "}");
  step_end(E, &s, sv, &code, out);
  explain(E, "%s: dot on tensor cores (mma.sync m16n8k16 %s), %d x %d warps, fragments in registers", acc->name, kind,
          acc->wm, acc->wn);
}

static void emit_dot_update(Emitter *E, Sym *acc, TokenKind op, Expr *x, Buf *out) {
  if (acc->mma && mma_dot(E, acc, x)) emit_dot_mma(E, acc, op, x, out);
  else emit_dot_blocked(E, acc, op, x, out);
}

/* Marks the shared tiles some statement reads at elements other threads own (a
 * reduction, a dot, a transpose, a broadcast, a sub-tile or element read). */
static void mark_across_expr(Expr *x, bool aligned) {
  if (!x) return;
  switch (x->kind) {
  case E_IDENT:
    if (x->u.ident.sym && x->u.ident.sym->place == PL_SHARED && x->ty.rank > 0 && !aligned)
      x->u.ident.sym->read_across = true;
    return;
  case E_UNARY: mark_across_expr(x->u.unary.a, aligned && same_shape(&x->u.unary.a->ty, &x->ty)); return;
  case E_BINARY:
    mark_across_expr(x->u.binary.a, aligned && same_shape(&x->u.binary.a->ty, &x->ty));
    mark_across_expr(x->u.binary.b, aligned && same_shape(&x->u.binary.b->ty, &x->ty));
    return;
  case E_CALL: {
    bool ew = is_elementwise_call(x);
    for (int i = 0; i < x->u.call.nargs; i++)
      mark_across_expr(x->u.call.args[i], ew && aligned && same_shape(&x->u.call.args[i]->ty, &x->ty));
    return;
  }
  case E_INDEX:
    if (x->u.index.base->u.ident.sym && x->u.index.base->u.ident.sym->place == PL_SHARED)
      x->u.index.base->u.ident.sym->read_across = true;
    for (int i = 0; i < x->u.index.nidx; i++) mark_across_expr(x->u.index.idx[i].start, false);
    return;
  default: return;
  }
}

static void across_stmt(Stmt *s, void *ctx) {
  (void)ctx;
  switch (s->kind) {
  case S_VAR:
    if (s->u.decl.init)
      mark_across_expr(s->u.decl.init, s->u.decl.sym && same_shape(&s->u.decl.init->ty, &s->u.decl.sym->ty));
    break;
  case S_ASSIGN:
    mark_across_expr(s->u.assign.rhs, same_shape(&s->u.assign.rhs->ty, &s->u.assign.lhs->ty));
    if (s->u.assign.lhs->kind == E_INDEX)
      for (int d = 0; d < s->u.assign.lhs->u.index.nidx; d++) mark_across_expr(s->u.assign.lhs->u.index.idx[d].start, false);
    break;
  case S_FOR: mark_across_expr(s->u.forr.lo, false); mark_across_expr(s->u.forr.hi, false); break;
  case S_WHILE: mark_across_expr(s->u.whil.cond, false); break;
  case S_IF: mark_across_expr(s->u.iff.cond, false); break;
  default: break;
  }
}

static void mark_across(Block *b) { facts_walk_stmts(b, across_stmt, NULL); }

static int pipe_vec(Emitter *E, const Sym *t, const Expr *x);

/* x = X[...] (or pad(X[...], v)) into a shared tile that is read across threads
 * anyway: 16-byte loads, one chunk of consecutive elements per thread, when the
 * rows and the slice start are provably 16-byte aligned. */
static bool emit_vector_load(Emitter *E, const Target *tg, TokenKind op, Expr *rhs, Buf *out) {
  if (tg->kind != TG_BUFFER || op != TK_ASSIGN || E->td_ctl) return false;
  const Sym *t = E->bufs[tg->buf].key;
  if (!is_tile_sym(E, t) || t->pipe_stages > 1) return false;
  Expr *x = NULL, *pad = NULL;
  if (rhs->kind == E_INDEX && rhs->u.index.base->u.ident.sym->kind == SY_TENSOR) x = rhs;
  if (rhs->kind == E_CALL && rhs->u.call.builtin == B_PAD) x = rhs->u.call.args[0], pad = rhs->u.call.args[1];
  if (!x || !same_shape(&x->ty, &tg->shape) || x->u.index.base->u.ident.sym->written) return false;
  int vec = pipe_vec(E, t, x);
  if (vec <= 1 || !t->read_across) {
    if (!E->dry)
      explain(E, "%s: per-element loads: %s", t->name,
              !t->read_across ? "in the spread, so that reads at each thread's own elements need no barrier"
              : x->u.index.base->u.ident.sym->tstride[0]
                  ? "its tensor is @strided, so no alignment of its rows is provable"
                  : "16-byte accesses need the rows and the slice start provably 16-byte aligned (@assume)");
    return false;
  }
  const Sym *X = x->u.index.base->u.ident.sym;
  const Buffer *b = &E->bufs[tg->buf];
  if ((b->pitch * elem_bytes[b->elem]) % 16 != 0) {
    explain(E, "%s: per-element loads: its rows are padded for transpose(), so they are not 16-byte aligned", t->name);
    return false;
  }
  int rows = t->ty.rank == 2 ? t->ty.dims[0] : 1, cols = t->ty.rank == 2 ? t->ty.dims[1] : t->ty.dims[0];
  int64_t chunks = (int64_t)rows * cols / vec;
  Step s, *sv;
  Buf code = {0};
  step_begin(E, &s, &sv);
  access(E, tg->buf, true, false);
  line(E, &code, "for (int e = tid; e < %" PRId64 "; e += %d) {  // %s: 16-byte loads", chunks, E->ki->threads, t->name);
  E->indent++;
  if (t->ty.rank == 2) line(E, &code, "const int r = e / %d, c = (e %% %d) * %d;", cols / vec, cols / vec, vec);
  else line(E, &code, "const int c = e * %d;", vec);
  const char *lin, *cond;
  At at = t->ty.rank == 2 ? (At){"r", "c", false, false, -1} : (At){"c", NULL, false, false, -1};
  tensor_index(E, x, at, &lin, &cond, &code);
  const char *dst = t->ty.rank == 2 ? fmt(E, "r * %d + c", b->pitch) : "c";
  if (cond) {
    /* rows and starts are multiples of the chunk: a chunk is all inside or all outside */
    line(E, &code, "if (%s) t2c::load16(&%s[%s], %s + %s);", cond, b->cname, dst, X->cname, paren(E, lin));
    const char *pv = pad ? ev_scalar(E, pad, t->ty.elem, &code) : literal(E, t->ty.elem, false, 0, 0);
    line(E, &code, "else for (int t2c_i = 0; t2c_i < %d; ++t2c_i) %s[%s + t2c_i] = %s;", vec, b->cname, dst, pv);
  } else {
    line(E, &code, "t2c::load16(&%s[%s], %s + %s);", b->cname, dst, X->cname, paren(E, lin));
  }
  E->indent--;
  line(E, &code, "}");
  step_end(E, &s, sv, &code, out);
  explain(E, "%s: 16-byte loads (%d elements a thread at a time)", t->name, vec);
  return true;
}


/* Whether storing from x in a chunk-per-thread order adds no barrier: every shared
 * buffer it reads was last written across threads anyway, or not since a barrier. */
static bool reads_ready_for_chunks(Emitter *E, const Expr *x) {
  switch (x->kind) {
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y || y->ty.rank == 0) return true;
    if (y->place == PL_REGISTER) return y->mma; /* its copy is written across threads */
    for (int i = 0; i < E->nbufs; i++)
      if (E->bufs[i].key == y) {
        uint8_t a = E->st.acc[i];
        return !(a & AC_BIT(MAP_SPREAD, 1)) || (a & (AC_BIT(MAP_ANY, 1) | AC_BIT(MAP_THREAD0, 1)));
      }
    return true;
  }
  case E_UNARY: return reads_ready_for_chunks(E, x->u.unary.a);
  case E_BINARY: return reads_ready_for_chunks(E, x->u.binary.a) && reads_ready_for_chunks(E, x->u.binary.b);
  case E_CALL:
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!reads_ready_for_chunks(E, x->u.call.args[i])) return false;
    return true;
  case E_INDEX:
    if (x->u.index.base->u.ident.sym && x->u.index.base->u.ident.sym->kind != SY_TENSOR) return false;
    return true;
  default: return true;
  }
}

/* Y[...] = e in 16-byte stores, one chunk of consecutive elements per thread, when
 * the rows and the slice start are provably aligned and it costs no barrier. */
static bool emit_vector_store(Emitter *E, const Target *tg, TokenKind op, Expr *rhs, Buf *out) {
  if (tg->kind != TG_TENSOR || op != TK_ASSIGN || E->td_ctl) return false;
  Expr *x = tg->lhs;
  const Sym *Y = x->u.index.base->u.ident.sym;
  int sz = elem_bytes[Y->ty.elem], d = Y->trank - 1;
  if ((sz != 4 && sz != 2) || Y->ty.elem == T_BOOL || Y->ty.elem == T_U32 || !x->u.index.idx[d].len) return false;
  int vec = 16 / sz, cols = tg->shape.rank == 2 ? tg->shape.dims[1] : tg->shape.dims[0];
  int rows = tg->shape.rank == 2 ? tg->shape.dims[0] : 1;
  bool rowlen = Y->tdim_size[d] ? facts_assumed_multiple(E->ki, Y->tdim_size[d], vec) : Y->tdim_const[d] % vec == 0;
  if (Y->tstride[0]) rowlen = false; /* @strided: no alignment is provable */
  if (cols % vec || !rowlen || !facts_multiple_of(E->ki, x->u.index.idx[d].start, vec) || !reads_ready_for_chunks(E, rhs))
    return false;
  int64_t chunks = (int64_t)rows * cols / vec;
  E->sshape = tg->shape;
  E->slayout = NULL;
  E->no_reg_reads = true;
  const char *why = E->why;
  E->why = "a store to a tensor reads it outside registers";
  Step s, *sv;
  Buf code = {0};
  step_begin(E, &s, &sv);
  line(E, &code, "for (int e = tid; e < %" PRId64 "; e += %d) {  // %s: 16-byte stores", chunks, E->ki->threads, Y->name);
  E->indent++;
  if (tg->shape.rank == 2) line(E, &code, "const int r = e / %d, c0 = (e %% %d) * %d;", cols / vec, cols / vec, vec);
  else line(E, &code, "const int c0 = e * %d;", vec);
  const char *lin, *cond;
  At at0 = tg->shape.rank == 2 ? (At){"r", "c0", false, false, -1} : (At){"c0", NULL, false, false, -1};
  tensor_index(E, x, at0, &lin, &cond, &code);
  access(E, tensor_buffer(E, (Sym *)Y), true, false);
  if (cond) {
    line(E, &code, "if (%s) {", cond);
    E->indent++;
  }
  Buf vals = {0}, args = {0};
  line(E, &vals, "%s t2c_v[%d];", ctype(Y->ty.elem), vec);
  for (int i = 0; i < vec; i++) {
    Buf pre = {0};
    At at = tg->shape.rank == 2 ? (At){"r", "c", false, true, -1} : (At){"c", NULL, false, true, -1};
    E->indent++;
    const char *v = ev(E, rhs, Y->ty.elem, child_at(at, &tg->shape, &rhs->ty), &pre);
    E->indent--;
    if (uses_ident(v, "c") || uses_ident(pre.data ? pre.data : "", "c")) line(E, &vals, "{ const int c = c0 + %d;", i);
    else line(E, &vals, "{");
    buf_putn(&vals, pre.data, pre.len);
    E->indent++;
    line(E, &vals, "t2c_v[%d] = %s;", i, v);
    E->indent--;
    line(E, &vals, "}");
    buf_free(&pre);
    buf_printf(&args, ", t2c_v[%d]", i);
  }
  buf_putn(&code, vals.data, vals.len);
  line(E, &code, "t2c::store16(%s + %s%s);", Y->cname, paren(E, lin), args.data);
  buf_free(&vals);
  buf_free(&args);
  if (cond) {
    E->indent--;
    line(E, &code, "}");
  }
  E->indent--;
  line(E, &code, "}");
  step_end(E, &s, sv, &code, out);
  E->why = why;
  E->no_reg_reads = false;
  explain(E, "%s: 16-byte stores (%d elements a thread at a time)", Y->name, vec);
  return true;
}

/* Whether every non-elementwise node evaluated once per element of x is a row
 * reduction over rows of at least 32 (and there is one). */
static bool coop_candidate(Emitter *E, const Expr *x, const Type *shape, bool *found) {
  if (x->ty.rank == 0) return true;
  bool same = same_shape(&x->ty, shape);
  switch (x->kind) {
  case E_UNARY: return !same || coop_candidate(E, x->u.unary.a, shape, found);
  case E_BINARY:
    return !same || (coop_candidate(E, x->u.binary.a, shape, found) && coop_candidate(E, x->u.binary.b, shape, found));
  case E_CALL: {
    if (!same) return true; /* broadcast: materialised, not in the element body */
    if (is_elementwise_call(x)) {
      for (int i = 0; i < x->u.call.nargs; i++)
        if (!coop_candidate(E, x->u.call.args[i], shape, found)) return false;
      return true;
    }
    int b = x->u.call.builtin;
    if ((b == B_ROWSUM || b == B_ROWMAX || b == B_ROWMIN) && !reg_foldable(E, x) &&
        x->u.call.args[0]->ty.dims[1] >= 32) {
      *found = true;
      return true;
    }
    return b == B_SUM || b == B_ROWS || b == B_COLS;
  }
  default: return true;
  }
}

/* Threads per row when a [M, 1] statement reduces rows cooperatively, else 0. */
static int coop_group(Emitter *E, const Target *tg, Expr *rhs) {
  const Type *s = &tg->shape;
  if (tg->kind == TG_REGISTER || tg->kind == TG_ACCUM || s->rank != 2 || s->dims[1] != 1) return 0;
  bool found = false;
  if (!coop_candidate(E, rhs, s, &found) || !found) return 0;
  int g = 1;
  while (g * 2 <= E->t->lanes && g * 2 * s->dims[0] <= E->ki->threads) g *= 2;
  return g >= 4 ? g : 0;
}

/* A [M, 1] statement whose rows are reduced by groups of g threads: each group
 * folds its partials with shuffles, and its first thread computes the element. */
static void emit_coop(Emitter *E, const Target *tg, TokenKind op, Expr *rhs, int g, Buf *out) {
  Step s, *sv;
  Buf code = {0}, pre = {0}, st = {0};
  step_begin(E, &s, &sv);
  E->sshape = tg->shape;
  E->no_reg_reads = tg->kind == TG_TENSOR;
  int base = E->indent;
  line(E, &code, "{ const int e = tid / %d, t2c_part = tid %% %d;  // %d threads per row", g, g, g);
  E->indent = base + 1;
  E->coop = g;
  At at = {"e", "0", false, true, -1};
  const char *v = ev(E, rhs, target_elem(E, tg), child_at(at, &tg->shape, &rhs->ty), &pre);
  E->indent = base + 2;
  store_elem(E, tg, op, v, at, -1, &st);
  E->coop = 0;
  E->indent = base + 1;
  buf_putn(&code, pre.data, pre.len);
  line(E, &code, "if (t2c_part == 0 && e < %d) {", tg->shape.dims[0]);
  buf_putn(&code, st.data, st.len);
  line(E, &code, "}");
  E->indent = base;
  line(E, &code, "}");
  buf_free(&pre);
  buf_free(&st);
  step_end(E, &s, sv, &code, out);
  E->no_reg_reads = false;
  explain(E, "rows reduced by groups of %d threads, folded with shuffles", g);
}

static void emit_elementwise(Emitter *E, const Target *tg, TokenKind op, Expr *rhs, Buf *out) {
  Type shape = tg->shape;
  int64_t n = type_numel(&shape);
  int T = E->ki->threads;
  if (reg_foldable_target(E, tg, rhs)) {
    emit_fold(E, tg->buf, rhs, op, out);
    return;
  }
  const Sym *self = tg->kind == TG_BUFFER ? E->bufs[tg->buf].key : target_sym(tg);
  bool hazard = self && reads_unaligned_at(rhs, self, &shape, tg->kind == TG_BUFFER || tg->kind == TG_TENSOR,
                                           tg->kind == TG_TENSOR ? tg->lhs : NULL);
  if (hazard) {
    ElemType el = target_elem(E, tg);
    int tb = temp_buffer(E, (const char *)rhs + 1, el, &shape, "temporary: the statement reads its own target");
    emit_elementwise(E, &(Target){.kind = TG_BUFFER, .buf = tb, .shape = shape}, TK_ASSIGN, rhs, out);
    E->sshape = shape;
    /* now target op= temp, element by element */
    Step s, *sv;
    Buf code = {0};
    step_begin(E, &s, &sv);
    access(E, tb, false, true);
    int saved = E->indent;
    if (n < T) line(E, &code, "if (tid < %" PRId64 ") { const int e = tid;", n);
    else if (n == T) line(E, &code, "{ const int e = tid;");
    else line(E, &code, "for (int e = tid; e < %" PRId64 "; e += %d) {", n, T);
    E->indent++;
    Buf body = {0};
    const char *ci, *cj;
    coords(&shape, &ci, &cj);
    store_elem(E, tg, op, fmt(E, "%s[e]", E->bufs[tb].cname), (At){ci, cj, true, true, -1}, -1, &body);
    if (shape.rank == 2 && body.data && (uses_ident(body.data, "r") || uses_ident(body.data, "c")))
      line(E, &code, "const int r = e / %d, c = e %% %d;", shape.dims[1], shape.dims[1]);
    if (body.len) buf_putn(&code, body.data, body.len);
    buf_free(&body);
    E->indent = saved;
    line(E, &code, "}");
    step_end(E, &s, sv, &code, out);
    return;
  }
  if (emit_vector_load(E, tg, op, rhs, out)) return;
  if (emit_vector_store(E, tg, op, rhs, out)) return;
  int g = coop_group(E, tg, rhs);
  if (g) {
    emit_coop(E, tg, op, rhs, g, out);
    return;
  }
  /* t = e + dot(a, b) is t = e, then t += dot(a, b), when the dot does not read t */
  if (tg->kind == TG_REGISTER && (op == TK_ASSIGN || op == TK_ADD_ASSIGN) && rhs->kind == E_BINARY &&
      rhs->u.binary.op == TK_PLUS && same_shape(&rhs->ty, &shape)) {
    Expr *d = rhs->u.binary.b, *rest = rhs->u.binary.a;
    if (!(d->kind == E_CALL && d->u.call.builtin == B_DOT)) {
      d = rhs->u.binary.a;
      rest = rhs->u.binary.b;
    }
    if (d->kind == E_CALL && d->u.call.builtin == B_DOT && same_shape(&d->ty, &shape) &&
        !reads_unaligned(d, tg->sym, &shape, false) && T % shape.dims[1] == 0 && shape.rank == 2 &&
        d->ty.elem == tg->sym->ty.elem) {
      emit_elementwise(E, tg, op, rest, out);
      emit_dot_update(E, tg->sym, TK_ADD_ASSIGN, d, out);
      return;
    }
  }
  if (tg->kind == TG_REGISTER && rhs->kind == E_CALL && rhs->u.call.builtin == B_DOT &&
      (op == TK_ADD_ASSIGN || op == TK_ASSIGN) && shape.rank == 2 && T % shape.dims[1] == 0) {
    emit_dot_update(E, tg->sym, op, rhs, out);
    return;
  }
  bool unrolled = tg->kind == TG_REGISTER ||
                  ((tg->kind == TG_BUFFER || tg->kind == TG_PARTIAL) && n % T == 0 && n / T <= 64 &&
                   aligned_reg(rhs, &shape));
  E->sshape = shape;
  E->no_reg_reads = tg->kind == TG_TENSOR || tg->kind == TG_ACCUM;
  const char *why = E->why;
  if (tg->kind == TG_TENSOR) E->why = "a store to a tensor reads it outside registers";
  if (tg->kind == TG_ACCUM) E->why = "sum() reads it across threads";
  Step s, *sv;
  Buf code = {0};
  step_begin(E, &s, &sv);
  int base = E->indent;
  E->slayout = tg->kind == TG_REGISTER && tg->sym->mma ? tg->sym : NULL;
  if (tg->kind == TG_BUFFER && !E->slayout) E->slayout = aligned_mma_reg(rhs, &shape); /* run where it lives */
  if (E->slayout) {
    /* the tile holds the mma fragment layout: element k sits at fixed offsets from
     * this thread's first row and column */
    for (int k = 0; k < n / T; k++) {
      Buf one = {0};
      E->indent = base + 1;
      element_body(E, tg, op, rhs, k, &one);
      E->indent = base;
      const char *body = one.data ? one.data : "";
      int ro, co;
      mma_offsets(E->slayout, k, &ro, &co);
      if (!uses_ident(body, "r") && !uses_ident(body, "c")) {
        for (const char *p = body; *p;) {
          const char *nl = strchr(p, '\n');
          const char *q = p;
          while (*q == ' ') q++;
          line(E, &code, "%.*s", (int)(nl - q), q);
          p = nl + 1;
        }
      } else {
        bool ur = uses_ident(body, "r"), uc = uses_ident(body, "c");
        if (ur && uc)
          line(E, &code, "{ const int r = %s, c = %s;", mma_coord(E, E->slayout, "r", ro), mma_coord(E, E->slayout, "c", co));
        else if (ur) line(E, &code, "{ const int r = %s;", mma_coord(E, E->slayout, "r", ro));
        else line(E, &code, "{ const int c = %s;", mma_coord(E, E->slayout, "c", co));
        buf_puts(&code, body);
        line(E, &code, "}");
      }
      buf_free(&one);
    }
    E->use_lane = E->use_warp = true;
  } else if (unrolled) {
    for (int k = 0; k < n / T; k++) {
      Buf one = {0};
      E->indent = base + 1;
      element_body(E, tg, op, rhs, k, &one);
      E->indent = base;
      const char *body = one.data ? one.data : "";
      if (!uses_ident(body, "e")) {
        /* no element index needed: the lines stand alone */
        for (const char *p = body; *p;) {
          const char *nl = strchr(p, '\n');
          const char *q = p;
          while (*q == ' ') q++;
          line(E, &code, "%.*s", (int)(nl - q), q);
          p = nl + 1;
        }
      } else {
        if (k == 0) line(E, &code, "{ const int e = tid;");
        else line(E, &code, "{ const int e = tid + %d;", k * T);
        buf_puts(&code, body);
        line(E, &code, "}");
      }
      buf_free(&one);
    }
  } else {
    Buf one = {0};
    E->indent = base + 1;
    element_body(E, tg, op, rhs, -1, &one);
    E->indent = base;
    /* one element per thread at most: e only when the body uses it */
    bool e = n > T || uses_ident(one.data ? one.data : "", "e");
    if (n < T) line(E, &code, "if (tid < %" PRId64 ") {%s", n, e ? " const int e = tid;" : "");
    else if (n == T) line(E, &code, "{%s", e ? " const int e = tid;" : "");
    else line(E, &code, "for (int e = tid; e < %" PRId64 "; e += %d) {", n, T);
    buf_putn(&code, one.data ? one.data : "", one.len);
    buf_free(&one);
    line(E, &code, "}");
  }
  step_end(E, &s, sv, &code, out);
  E->why = why;
  E->no_reg_reads = false;
  E->slayout = NULL;
}

/* ------------------------------------------------------------ statements */

static void emit_block(Emitter *E, Block *b, Buf *out);
static void emit_stmt(Emitter *E, Stmt *s, Buf *out);

void emit_stmt_comment(Diag *d, const EmitOptions *o, const char *line_file, int indent, const Stmt *s, Buf *out) {
  if (o->line_directives) {
    buf_printf(out, "#line %d \"%s\"\n", s->loc.line, line_file);
    return;
  }
  Buf src = {0};
  diag_source_line(d, s->loc.line, &src);
  const char *t = src.data ? src.data : "";
  while (*t == ' ' || *t == '\t') t++;
  size_t n = strlen(t);
  while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\r')) n--;
  const char *base = strrchr(o->file, '/');
  base = base ? base + 1 : o->file;
  for (int i = 0; i < indent; i++) buf_puts(out, "  ");
  buf_printf(out, "// %s:%d: ", base, s->loc.line);
  /* a comment must not be closed or continued by the source text: no backslash,
   * and no control character (a lone carriage return ends a line in C) */
  for (size_t i = 0; i < n; i++)
    buf_putn(out, t[i] == '\\' ? "/" : ((unsigned char)t[i] < 0x20 && t[i] != '\t') || t[i] == 0x7f ? " " : &t[i], 1);
  buf_puts(out, "\n");
  buf_free(&src);
}

static void stmt_comment(Emitter *E, Stmt *s, Buf *out) { emit_stmt_comment(E->d, E->o, E->line_file, E->indent, s, out); }

/* A scalar statement as one step (it may read tiles or write tensors). */
static void invalidate(Emitter *E, Sym *r) {
  if (r && r->place == PL_REGISTER) E->st.valid[reg_index(E, r)] = 0;
}

static void emit_var(Emitter *E, Stmt *s, Buf *out) {
  Sym *y = s->u.decl.sym;
  Expr *init = s->u.decl.init;
  if (y->ty.rank == 0) {
    Step st, *sv;
    Buf code = {0};
    step_begin(E, &st, &sv);
    const char *v = init ? ev_scalar(E, init, y->ty.elem, &code) : literal(E, y->ty.elem, false, 0, 0);
    line(E, &code, "%s %s = %s;", ctype(y->ty.elem), y->cname, v);
    step_end(E, &st, sv, &code, out);
    return;
  }
  if (y->place == PL_REGISTER) {
    int ri = reg_index(E, y);
    line(E, out, "%s %s[%d];", ctype(y->ty.elem), y->cname, y->per_thread);
    E->st.live[ri] = 1;
    E->st.valid[ri] = 0;
    emit_elementwise(E, &(Target){.kind = TG_REGISTER, .sym = y, .shape = y->ty}, TK_ASSIGN, init, out);
    return;
  }
  if (y->pipe_stages > 1) {
    line(E, out, "// %s: loaded ahead by the pipeline (stage %s %% %d)", y->name, E->pipe ? ((PipeCtx *)E->pipe)->it : "?",
         y->pipe_stages);
    return;
  }
  if (init)
    emit_elementwise(E, &(Target){.kind = TG_BUFFER, .buf = tile_buffer(E, y), .shape = y->ty}, TK_ASSIGN,
                     init, out);
}

/* X[i, j] = v with scalar indices: one thread stores, unless the control is per-thread. */
static void emit_scalar_store(Emitter *E, Stmt *s, Buf *out) {
  Expr *l = s->u.assign.lhs;
  Sym *y = l->u.index.base->u.ident.sym;
  Step st, *sv;
  Buf code = {0};
  step_begin(E, &st, &sv);
  const char *v = ev_scalar(E, s->u.assign.rhs, y->ty.elem, &code);
  const char *lin, *cond = NULL, *o = assign_op(s->u.assign.op);
  int bi;
  if (y->kind == SY_TENSOR) {
    tensor_index(E, l, (At){NULL, NULL, false, true, -1}, &lin, &cond, &code);
    bi = tensor_buffer(E, y);
  } else {
    bi = tile_buffer(E, y);
    const char *p0 = ev_scalar(E, l->u.index.idx[0].start, T_I32, &code);
    lin = y->ty.rank == 1 ? p0 : lin2(E, p0, E->bufs[bi].pitch, ev_scalar(E, l->u.index.idx[1].start, T_I32, &code));
  }
  bool per_thread = E->td_ctl || check_expr_td(s->u.assign.rhs);
  for (int d = 0; d < l->u.index.nidx; d++) per_thread |= check_expr_td(l->u.index.idx[d].start);
  access_map(E, bi, true, per_thread ? MAP_ANY : MAP_THREAD0);
  const char *guard = per_thread ? NULL : "tid == 0";
  const char *c = guard && cond ? fmt(E, "%s && %s", guard, cond) : guard ? guard : cond;
  if (c) line(E, &code, "if (%s) %s[%s] %s %s;", c, y->cname, lin, o, v);
  else line(E, &code, "%s[%s] %s %s;", y->cname, lin, o, v);
  step_end(E, &st, sv, &code, out);
}

static void emit_assign(Emitter *E, Stmt *s, Buf *out) {
  Expr *l = s->u.assign.lhs, *r = s->u.assign.rhs;
  TokenKind op = s->u.assign.op;
  if (l->kind == E_IDENT) {
    Sym *y = l->u.ident.sym;
    if (y->ty.rank == 0) {
      Step st, *sv;
      Buf code = {0};
      step_begin(E, &st, &sv);
      const char *v = ev_scalar(E, r, y->ty.elem, &code);
      line(E, &code, "%s %s %s;", y->cname, assign_op(op), v);
      step_end(E, &st, sv, &code, out);
      return;
    }
    if (y->place == PL_REGISTER) {
      emit_elementwise(E, &(Target){.kind = TG_REGISTER, .sym = y, .shape = y->ty}, op, r, out);
      invalidate(E, y);
      return;
    }
    emit_elementwise(E, &(Target){.kind = TG_BUFFER, .buf = tile_buffer(E, y), .shape = y->ty}, op, r, out);
    return;
  }
  Sym *y = l->u.index.base->u.ident.sym;
  if (l->ty.rank == 0) {
    emit_scalar_store(E, s, out);
    return;
  }
  if (y->kind == SY_TENSOR) {
    emit_elementwise(E, &(Target){.kind = TG_TENSOR, .lhs = l, .shape = l->ty}, op, r, out);
    return;
  }
  emit_elementwise(E, &(Target){.kind = TG_PARTIAL, .lhs = l, .buf = tile_buffer(E, y), .shape = l->ty}, op, r, out);
}

/* Whether a block writes register tile r (declaration or assignment). */
static bool block_writes(const Block *b, const Sym *r);
static bool stmt_writes(const Stmt *s, const Sym *r) {
  switch (s->kind) {
  case S_VAR: return s->u.decl.sym == r;
  case S_ASSIGN: {
    const Expr *l = s->u.assign.lhs;
    if (l->kind == E_IDENT) return l->u.ident.sym == r;
    return l->kind == E_INDEX && l->u.index.base->u.ident.sym == r;
  }
  case S_FOR: return block_writes(&s->u.forr.body, r);
  case S_WHILE: return block_writes(&s->u.whil.body, r);
  case S_BLOCK: return block_writes(&s->u.block, r);
  case S_IF: return block_writes(&s->u.iff.then, r) || (s->u.iff.els && stmt_writes(s->u.iff.els, r));
  default: return false;
  }
}
static bool block_writes(const Block *b, const Sym *r) {
  for (int i = 0; i < b->nstmts; i++)
    if (stmt_writes(b->stmts[i], r)) return true;
  return false;
}

typedef void (*BodyFn)(Emitter *E, Stmt *s, Buf *out);

static bool for_divergent(const Stmt *s) {
  return check_expr_td(s->u.forr.lo) || check_expr_td(s->u.forr.hi) ||
         (s->u.forr.step && check_expr_td(s->u.forr.step)) || check_loop_divergent(&s->u.forr.body);
}

static void dry_run(Emitter *E, Stmt *s, BodyFn fn) {
  int ctr = E->ctr, indent = E->indent;
  Buf *out = E->out;
  Buf scratch = {0};
  E->dry++;
  fn(E, s, &scratch);
  E->dry--;
  buf_free(&scratch);
  E->ctr = ctr;
  E->indent = indent;
  E->out = out;
}

/* Runs the body with the loop's context; returns the state at the back edge. */
static State loop_pass(Emitter *E, Stmt *s, BodyFn fn, const State *entry, LoopCtx *lc, bool real, Buf *out) {
  E->st = *entry;
  memset(lc, 0, sizeof *lc);
  lc->up = E->loop;
  E->loop = lc;
  E->loop_depth++;
  if (real) fn(E, s, out);
  else dry_run(E, s, fn);
  E->loop_depth--;
  E->loop = lc->up;
  State end = E->st;
  if (lc->has_cont) end = place_join(&end, &lc->cont);
  return end;
}

/* The loop-entry state at the fixpoint; *barriers = barriers in one pass of the body. */
static State loop_fixpoint(Emitter *E, Stmt *s, BodyFn fn, const State *pre, int rounds, int *barriers,
                           State *brk) {
  LoopCtx lc;
  State entry = *pre;
  *brk = *pre;
  for (int it = 0; it < rounds; it++) {
    int before = E->barriers_seen;
    State end = loop_pass(E, s, fn, &entry, &lc, false, NULL);
    *barriers = E->barriers_seen - before;
    *brk = lc.has_brk ? lc.brk : *pre;
    State next = place_join(pre, &end);
    if (place_same(&next, &entry)) break;
    entry = next;
  }
  return entry;
}

/* A loop: copies hoisted above it, then the barrier state carried around the
 * back edge to a fixpoint by dry runs, then the real body. */
static void emit_loop(Emitter *E, Stmt *s, Buf *out, const char *header, const char *pragma, BodyFn fn) {
  LoopCtx lc;
  State pre = E->st;
  if (E->dry > 3) {
    /* deep inside dry runs only the state after the loop matters: one pass,
     * joined with the state before it, over-approximates it (and keeps the
     * work linear in the nesting depth) */
    State end = loop_pass(E, s, fn, &pre, &lc, false, NULL);
    E->st = place_join(&pre, &end);
    if (lc.has_brk) E->st = place_join(&E->st, &lc.brk);
    return;
  }
  if (E->dry) {
    /* inside a dry run the state after the loop is all that matters */
    int inside = 0;
    State brk, entry = loop_fixpoint(E, s, fn, &pre, 8, &inside, &brk);
    E->st = place_join(&entry, &brk);
    return;
  }
  {
    memset(E->copy_req, 0, sizeof E->copy_req);
    loop_pass(E, s, fn, &pre, &lc, false, NULL);
    E->st = pre;
    const Block *body = s->kind == S_FOR ? &s->u.forr.body : &s->u.whil.body;
    for (int i = 0; i < E->ki->regs.len; i++) {
      Sym *r = E->ki->regs.items[i];
      if (E->copy_req[i] && pre.live[i] && !pre.valid[i] && !block_writes(body, r)) {
        E->stmt_indent = E->indent;
        E->line = s->loc.line;
        E->loc = s->loc;
        emit_copy(E, r, out);
        explain(E, "%s: copy hoisted above the loop, which does not write it", r->name);
      }
    }
    pre = E->st;
  }
  int rounds = 8;
  int inside = 0;
  State brk;
  State entry = loop_fixpoint(E, s, fn, &pre, rounds, &inside, &brk);
  bool any = false;
  for (int i = 0; i < E->nbufs; i++) any |= pre.acc[i] != 0;
  if (any && inside > 0) {
    /* a barrier before the loop instead of one per iteration, when that is enough */
    State clear = pre;
    memset(clear.acc, 0, sizeof clear.acc);
    int inside2 = 0;
    State entry2 = loop_fixpoint(E, s, fn, &clear, rounds, &inside2, &brk);
    if (inside2 < inside) {
      E->st = pre;
      place_barrier(E, out, arena_printf(E->a, "before the loop at line %d, so that its body needs %s", s->loc.line,
                                         inside2 ? "fewer barriers" : "none"));
      pre = E->st;
      entry = entry2;
    }
  }
  if (pragma) line(E, out, "%s", pragma);
  line(E, out, "%s", header);
  E->indent++;
  State end = loop_pass(E, s, fn, &entry, &lc, true, out);
  State back = place_join(&pre, &end);
  if (!place_same(&back, &entry) && !E->dry) /* only when the fixpoint was cut short */
    place_barrier(E, out, "the state at the back edge is not known exactly");
  E->indent--;
  line(E, out, "}");
  E->st = lc.has_brk ? place_join(&entry, &lc.brk) : entry;
}

static void for_body(Emitter *E, Stmt *s, Buf *out) { emit_block(E, &s->u.forr.body, out); }

static bool simple_bound(const Expr *x) {
  if (x->flags & EF_CONST) return true;
  if (x->kind == E_CTX) return true;
  if (x->kind == E_IDENT) {
    SymKind k = x->u.ident.sym->kind;
    return k == SY_SIZE || k == SY_SCALAR || k == SY_CONST;
  }
  return false;
}

static Attr *stmt_attr(Stmt *s, AttrKind k) {
  for (int i = 0; i < s->nattrs; i++)
    if (s->attrs[i]->kind == k) return s->attrs[i];
  return NULL;
}

/* Shared bytes of tiles loaded from tensors directly in a pipelined body. */
static int64_t pipelined_bytes(Emitter *E, Block *b) {
  int64_t n = 0;
  for (int i = 0; i < b->nstmts; i++) {
    Stmt *s = b->stmts[i];
    Expr *init = s->kind == S_VAR ? s->u.decl.init : s->kind == S_ASSIGN ? s->u.assign.rhs : NULL;
    Sym *y = s->kind == S_VAR ? s->u.decl.sym
             : s->kind == S_ASSIGN && s->u.assign.lhs->kind == E_IDENT ? s->u.assign.lhs->u.ident.sym : NULL;
    if (!init || !y || y->ty.rank == 0 || y->place != PL_SHARED || y->pipe_stages > 1) continue;
    bool load = init->kind == E_INDEX && init->u.index.base->u.ident.sym->kind == SY_TENSOR;
    if (init->kind == E_CALL && init->u.call.builtin == B_PAD) load = true;
    if (load) n += type_numel(&y->ty) * elem_bytes[y->ty.elem];
  }
  return n;
}

/* ------------------------------------------------------------ @pipeline with cp.async */

/* Whether a slice index stays the same through the loop, but for the loop variable. */
static bool loop_invariant(const Expr *x, const Sym *loopvar, const Block *body) {
  switch (x->kind) {
  case E_INT: case E_FLOAT: case E_BOOL: case E_INF: return true;
  case E_CTX: return x->u.ctx != CTX_THREAD && x->u.ctx != CTX_LANE && x->u.ctx != CTX_WARP;
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y) return false;
    if (y == loopvar || y->kind == SY_SIZE || y->kind == SY_SCALAR || y->kind == SY_CONST) return true;
    if (y->kind == SY_LOOP) return true; /* an enclosing loop's variable */
    if (y->kind != SY_VAR || y->reassigned || y->ty.rank) return false;
    for (int i = 0; i < body->nstmts; i++)
      if (body->stmts[i]->kind == S_VAR && body->stmts[i]->u.decl.sym == y) return false;
    return true;
  }
  case E_UNARY: return loop_invariant(x->u.unary.a, loopvar, body);
  case E_BINARY: return loop_invariant(x->u.binary.a, loopvar, body) && loop_invariant(x->u.binary.b, loopvar, body);
  case E_CALL:
    if (x->u.call.builtin != B_CDIV && x->u.call.builtin != B_MIN && x->u.call.builtin != B_MAX && x->u.call.cast == T_NONE)
      return false;
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!loop_invariant(x->u.call.args[i], loopvar, body)) return false;
    return true;
  default: return false;
  }
}

/* The tensor slice a pipelined load reads: X[...] or pad(X[...], 0). */
static Expr *pipe_slice(Expr *init) {
  if (!init) return NULL;
  if (init->kind == E_INDEX && init->u.index.base->u.ident.sym->kind == SY_TENSOR) return init;
  if (init->kind == E_CALL && init->u.call.builtin == B_PAD) {
    Expr *v = init->u.call.args[1];
    if ((v->flags & EF_CONST) && v->cv.f == 0 && v->cv.i == 0) return init->u.call.args[0];
  }
  return NULL;
}

/* Elements per cp.async for a load of tile t from slice x: 16 bytes when the
 * rows and their starts are provably 16-byte aligned, one 4-byte element, or 0. */
static int pipe_vec(Emitter *E, const Sym *t, const Expr *x) {
  const Sym *X = x->u.index.base->u.ident.sym;
  int sz = elem_bytes[t->ty.elem], d = X->trank - 1;
  const Index *last = &x->u.index.idx[d];
  int cols = t->ty.rank == 2 ? t->ty.dims[1] : t->ty.dims[0];
  int vec = 16 / sz;
  bool rowlen = X->tdim_size[d] ? facts_assumed_multiple(E->ki, X->tdim_size[d], vec) : X->tdim_const[d] % vec == 0;
  if (X->tstride[0]) rowlen = false; /* @strided: no alignment is provable (the tile IR tests it at run time) */
  if (last->len && cols % vec == 0 && rowlen && facts_multiple_of(E->ki, last->start, vec)) return vec;
  return sz == 4 ? 1 : 0;
}

/* A @pipeline loop's loads that can be issued ahead with cp.async. */
static void pipeline_stmt(Stmt *s, void *ctx) {
  Emitter *E = ctx;
  if (s->kind != S_FOR) return;
  Attr *p = stmt_attr(s, A_PIPELINE);
  if (!p || p->args[0]->cv.i < 2 || !E->t->cp_async || for_divergent(s)) return;
  Block *body = &s->u.forr.body;
  for (int j = 0; j < body->nstmts; j++) {
    Stmt *v = body->stmts[j];
    if (v->kind != S_VAR || !v->u.decl.sym || v->u.decl.sym->place != PL_SHARED) continue;
    Expr *x = pipe_slice(v->u.decl.init);
    if (!x || x->u.index.base->u.ident.sym->written) continue;
    bool inv = true;
    for (int d = 0; d < x->u.index.nidx; d++) inv &= loop_invariant(x->u.index.idx[d].start, s->u.forr.sym, body);
    int vec = pipe_vec(E, v->u.decl.sym, x);
    if (!inv || !vec || !same_shape(&x->ty, &v->u.decl.sym->ty)) continue;
    v->u.decl.sym->pipe_stages = (int)p->args[0]->cv.i;
    v->u.decl.sym->pipe_vec = vec;
  }
}

/* Marks the loads a @pipeline loop can issue ahead with cp.async. */
static void choose_pipelines(Emitter *E, Block *b) { facts_walk_stmts(b, pipeline_stmt, E); }

static bool pipelined_loop(const Stmt *s) {
  const Block *body = &s->u.forr.body;
  for (int j = 0; j < body->nstmts; j++) {
    const Stmt *v = body->stmts[j];
    if (v->kind == S_VAR && v->u.decl.sym && v->u.decl.sym->pipe_stages > 1) return true;
  }
  return false;
}

/* A @pipeline loop whose loads are not issued ahead still reserves shared memory
 * for its extra stages: decided before the body is emitted, so that --explain,
 * the header and KernelInfo give the same bytes. */
static void reserve_stmt(Stmt *s, void *ctx) {
  Emitter *E = ctx;
  Attr *p = s->kind == S_FOR ? stmt_attr(s, A_PIPELINE) : NULL;
  if (!p || pipelined_loop(s)) return;
  int64_t stages = p->args[0]->cv.i;
  int64_t extra = pipelined_bytes(E, &s->u.forr.body) * (stages - 1);
  if (extra <= 0) return;
  E->pipeline_extra += extra;
  E->pipeline_what = fmt(E, "%s%s%" PRId64 " bytes for %" PRId64 " extra stages of the loads in the loop at line %d",
                         E->pipeline_what ? E->pipeline_what : "", E->pipeline_what ? "; " : "", extra,
                         stages - 1, s->loc.line);
}

static void reserve_pipelines(Emitter *E, Block *b) { facts_walk_stmts(b, reserve_stmt, E); }

/* Issues the cp.async copies of every pipelined load of the body into stage stg,
 * with the loop variable bound to the iteration being loaded. */
static void issue_loads(Emitter *E, Stmt *loop, const char *stg, Buf *code) {
  Block *body = &loop->u.forr.body;
  int T = E->ki->threads;
  for (int j = 0; j < body->nstmts; j++) {
    Stmt *v = body->stmts[j];
    Sym *t = v->kind == S_VAR ? v->u.decl.sym : NULL;
    if (!t || t->pipe_stages < 2) continue;
    Expr *x = pipe_slice(v->u.decl.init);
    const Sym *X = x->u.index.base->u.ident.sym;
    const Buffer *b = &E->bufs[tile_buffer(E, t)];
    int sz = elem_bytes[t->ty.elem], vec = t->pipe_vec, rows = t->ty.rank == 2 ? t->ty.dims[0] : 1;
    int cols = t->ty.rank == 2 ? t->ty.dims[1] : t->ty.dims[0];
    int64_t stage_elems = (int64_t)b->dims[0] * b->pitch, chunks = (int64_t)rows * cols / vec;
    const char *lin, *cond;
    Buf pre = {0};
    At at = t->ty.rank == 2 ? (At){"r", "c", false, false, -1} : (At){"c", NULL, false, false, -1};
    tensor_index(E, x, at, &lin, &cond, &pre);
    buf_free(&pre);
    /* rows and copy starts are multiples of vec, so a copy that starts inside the
     * tensor is whole */
    const char *bytes = fmt(E, "%d", vec * sz);
    if (cond) bytes = fmt(E, "%s ? %s : 0", cond, bytes);
    line(E, code, "for (int e = tid; e < %" PRId64 "; e += %d) {  // %s: %d-byte copies", chunks, T, t->name, vec * sz);
    E->indent++;
    if (t->ty.rank == 2) line(E, code, "const int r = e / %d, c = (e %% %d) * %d;", cols / vec, cols / vec, vec);
    else line(E, code, "const int c = e * %d;", vec);
    const char *base = is_zero(stg) ? "0" : fmt(E, "%s * %" PRId64, stg, stage_elems);
    const char *dst = plus(E, base, t->ty.rank == 2 ? fmt(E, "r * %d + c", b->pitch) : "c");
    line(E, code, "t2c::cp_async_%d(&%s_ring[%s], %s + %s, %s);", vec * sz, b->cname, dst, X->cname,
         cond ? fmt(E, "(%s ? %s : 0)", cond, lin) : lin, bytes);
    E->indent--;
    line(E, code, "}");
  }
}

static const char *pipe_names(Emitter *E, Stmt *loop) {
  Buf b = {0};
  Block *body = &loop->u.forr.body;
  for (int j = 0; j < body->nstmts; j++) {
    Stmt *v = body->stmts[j];
    if (v->kind == S_VAR && v->u.decl.sym && v->u.decl.sym->pipe_stages > 1)
      buf_printf(&b, "%s%s", b.len ? ", " : "", v->u.decl.sym->name);
  }
  const char *s = arena_strndup(E->a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return s;
}


/* The body of a pipelined loop: wait for this iteration's stage, one barrier,
 * issue the loads of iteration + stages - 1, then the body on this stage. */
static void pipe_body(Emitter *E, Stmt *s, Buf *out) {
  PipeCtx *pc = E->pipe;
  Sym *v = s->u.forr.sym;
  E->out = out;
  E->line = s->loc.line;
  line(E, out, "t2c::cp_async_wait<%d>();", pc->stages - 2);
  place_barrier(E, out, "this iteration's stage has arrived in every thread, and the stage refilled next is no longer read");
  line(E, out, "{ const int t2c_next = %s;",
       pc->stages == 2 ? fmt(E, "%s + %s", v->cname, pc->step) : fmt(E, "%s + %d * %s", v->cname, pc->stages - 1, pc->step));
  E->indent++;
  line(E, out, "if (t2c_next < %s) {", pc->hi);
  E->indent++;
  Buf loads = {0};
  issue_loads(E, s, fmt(E, "((%s + %d) %% %d)", pc->it, pc->stages - 1, pc->stages), &loads);
  if (uses_ident(loads.data ? loads.data : "", v->cname)) line(E, out, "const int %s = t2c_next;", v->cname);
  buf_putn(out, loads.data ? loads.data : "", loads.len);
  buf_free(&loads);
  E->indent--;
  line(E, out, "}");
  E->indent--;
  line(E, out, "}");
  line(E, out, "t2c::cp_async_commit();");
  Block *body = &s->u.forr.body;
  for (int j = 0; j < body->nstmts; j++) {
    Stmt *ld = body->stmts[j];
    Sym *t = ld->kind == S_VAR ? ld->u.decl.sym : NULL;
    if (!t || t->pipe_stages < 2) continue;
    const Buffer *b = &E->bufs[tile_buffer(E, t)];
    line(E, out, "%s *const %s = %s_ring + (%s %% %d) * %" PRId64 ";", ctype(t->ty.elem), b->cname, b->cname, pc->it,
         pc->stages, (int64_t)b->dims[0] * b->pitch);
  }
  emit_block(E, body, out);
}

static void emit_pipelined_for(Emitter *E, Stmt *s, Buf *out, const char *lo, const char *hi, const char *step,
                               const char *pragma) {
  Sym *v = s->u.forr.sym;
  int stages = (int)stmt_attr(s, A_PIPELINE)->args[0]->cv.i;
  const char *names = pipe_names(E, s);
  Step st, *sv;
  Buf code = {0};
  step_begin(E, &st, &sv);
  Block *body = &s->u.forr.body;
  for (int j = 0; j < body->nstmts; j++) {
    Stmt *ld = body->stmts[j];
    if (ld->kind == S_VAR && ld->u.decl.sym && ld->u.decl.sym->pipe_stages > 1) access(E, tile_buffer(E, ld->u.decl.sym), true, false);
  }
  line(E, &code, "// @pipeline(%d): %s loaded %d iteration%s ahead with cp.async, into %d stages", stages, names,
       stages - 1, stages == 2 ? "" : "s", stages);
  for (int k = 0; k < stages - 1; k++) {
    line(E, &code, "{ const int %s = %s;", v->cname, k ? fmt(E, "%s + %d * %s", lo, k, step) : lo);
    E->indent++;
    line(E, &code, "if (%s < %s) {", v->cname, hi);
    E->indent++;
    issue_loads(E, s, fmt(E, "%d", k), &code);
    E->indent--;
    line(E, &code, "}");
    E->indent--;
    line(E, &code, "}");
    line(E, &code, "t2c::cp_async_commit();");
  }
  step_end(E, &st, sv, &code, out);
  const char *it = fresh(E, "it");
  PipeCtx pc = {it, hi, step, stages};
  void *saved = E->pipe;
  E->pipe = &pc;
  const char *inc = strcmp(step, "1") == 0 ? fmt(E, "++%s", v->cname) : fmt(E, "%s += %s", v->cname, step);
  const char *header = fmt(E, "for (int %s = %s, %s = 0; %s < %s; %s, ++%s) {", v->cname, lo, it, v->cname, hi, inc, it);
  emit_loop(E, s, out, header, pragma, pipe_body);
  E->pipe = saved;
  line(E, out, "t2c::cp_async_wait<0>();");
  explain(E, "@pipeline(%d): %s issued %d iteration(s) ahead with cp.async into %d stages", stages, names, stages - 1,
          stages);
}

static void emit_for_inner(Emitter *E, Stmt *s, Buf *out) {
  Sym *v = s->u.forr.sym;
  Step st, *sv;
  Buf code = {0};
  step_begin(E, &st, &sv);
  const char *lo = ev_scalar(E, s->u.forr.lo, T_I32, &code);
  const char *hi = ev_scalar(E, s->u.forr.hi, T_I32, &code);
  const char *step = s->u.forr.step ? ev_scalar(E, s->u.forr.step, T_I32, &code) : "1";
  if (!simple_bound(s->u.forr.hi)) {
    const char *n = fresh(E, "end");
    line(E, &code, "const int %s = %s;", n, hi);
    hi = n;
  }
  if (s->u.forr.step && !simple_bound(s->u.forr.step)) {
    const char *n = fresh(E, "step");
    line(E, &code, "const int %s = %s;", n, step);
    step = n;
  }
  step_end(E, &st, sv, &code, out);
  const char *pragma = NULL;
  Attr *u = stmt_attr(s, A_UNROLL), *p = stmt_attr(s, A_PIPELINE);
  if (u) pragma = u->nargs ? fmt(E, "#pragma unroll %" PRId64, u->args[0]->cv.i) : "#pragma unroll";
  if (p && pipelined_loop(s)) {
    bool td = E->td_ctl;
    emit_pipelined_for(E, s, out, lo, hi, step, pragma);
    E->td_ctl = td;
    return;
  }
  if (p && !E->dry) {
    int64_t stages = p->args[0]->cv.i;
    if (stages > 1)
      diag_warning(E->d, W_PIPELINE, p->loc, "@pipeline(%" PRId64 "): %s", stages,
                   E->t->cp_async ? "none of the loop's loads can be issued ahead (see --explain); they are not overlapped"
                                  : arena_printf(E->a, "%s has no cp.async; loads are not overlapped", E->t->name));
  }
  const char *inc = strcmp(step, "1") == 0 ? fmt(E, "++%s", v->cname) : fmt(E, "%s += %s", v->cname, step);
  const char *header = fmt(E, "for (int %s = %s; %s < %s; %s) {", v->cname, lo, v->cname, hi, inc);
  bool td = E->td_ctl;
  E->td_ctl = td || for_divergent(s);
  emit_loop(E, s, out, header, pragma, for_body);
  E->td_ctl = td;
}

/* A while whose condition reads tiles evaluates it inside the loop, as a step. */
static void while_body(Emitter *E, Stmt *s, Buf *out) {
  Expr *c = s->u.whil.cond;
  if (c->flags & EF_TILE) {
    E->out = out;
    E->line = s->loc.line;
    E->loc = s->loc;
    E->stmt_indent = E->indent;
    E->nmemo = 0;
    Step st, *sv;
    Buf code = {0};
    step_begin(E, &st, &sv);
    const char *v = ev_scalar(E, c, T_BOOL, &code);
    line(E, &code, "if (!%s) break;", paren(E, v));
    step_end(E, &st, sv, &code, out);
  }
  emit_block(E, &s->u.whil.body, out);
}

static void emit_while_inner(Emitter *E, Stmt *s, Buf *out) {
  Expr *c = s->u.whil.cond;
  const char *header = "while (true) {";
  if (!(c->flags & EF_TILE)) {
    Buf none = {0};
    header = fmt(E, "while (%s) {", strip_parens(E, ev_scalar(E, c, T_BOOL, &none)));
    buf_free(&none);
  }
  bool td = E->td_ctl;
  E->td_ctl = td || check_expr_td(c) || check_loop_divergent(&s->u.whil.body);
  emit_loop(E, s, out, header, NULL, while_body);
  E->td_ctl = td;
}

/* Code that only some threads run cannot hold a barrier. When it touches what
 * other threads touched since the last barrier, the barrier goes before it. */
static void td_prebarrier(Emitter *E, Stmt *s, BodyFn fn, Buf *out) {
  State save = E->st;
  bool td = E->td_ctl;
  E->td_ctl = true;
  E->td_conflict = false;
  dry_run(E, s, fn);
  bool need = E->td_conflict;
  E->st = save;
  E->td_ctl = td;
  E->td_conflict = false;
  E->line = s->loc.line;
  if (need)
    place_barrier(E, out, arena_printf(E->a, "before line %d, which only some threads run and which touches what other threads touched", s->loc.line));
}

static void emit_for(Emitter *E, Stmt *s, Buf *out) {
  if (!E->td_ctl && for_divergent(s)) td_prebarrier(E, s, emit_for_inner, out);
  emit_for_inner(E, s, out);
}

static void emit_while(Emitter *E, Stmt *s, Buf *out) {
  if (!E->td_ctl && (check_expr_td(s->u.whil.cond) || check_loop_divergent(&s->u.whil.body)))
    td_prebarrier(E, s, emit_while_inner, out);
  emit_while_inner(E, s, out);
}

static void if_branches(Emitter *E, Stmt *s, Buf *out) {
  emit_block(E, &s->u.iff.then, out);
  if (s->u.iff.els) emit_stmt(E, s->u.iff.els, out);
}

static void emit_if(Emitter *E, Stmt *s, Buf *out) {
  Step st, *sv;
  Buf code = {0};
  step_begin(E, &st, &sv);
  const char *c = ev_scalar(E, s->u.iff.cond, T_BOOL, &code);
  step_end(E, &st, sv, &code, out);
  if (!E->td_ctl && check_expr_td(s->u.iff.cond)) td_prebarrier(E, s, if_branches, out);
  line(E, out, "if (%s) {", strip_parens(E, c));
  bool td = E->td_ctl;
  E->td_ctl = td || check_expr_td(s->u.iff.cond);
  State before = E->st;
  E->indent++;
  emit_block(E, &s->u.iff.then, out);
  E->indent--;
  State then = E->st;
  E->st = before;
  if (s->u.iff.els) {
    line(E, out, "} else {");
    E->indent++;
    if (s->u.iff.els->kind == S_BLOCK) emit_block(E, &s->u.iff.els->u.block, out);
    else emit_stmt(E, s->u.iff.els, out);
    E->indent--;
  }
  line(E, out, "}");
  E->st = place_join(&then, &E->st);
  E->td_ctl = td;
}

static void emit_stmt(Emitter *E, Stmt *s, Buf *out) {
  E->out = out;
  E->site = s;
  E->line = s->loc.line;
  E->loc = s->loc;
  E->stmt_indent = E->indent;
  E->nmemo = 0;
  if (s->kind != S_BLOCK && s->kind != S_CONST) stmt_comment(E, s, out);
  switch (s->kind) {
  case S_CONST: return;
  case S_VAR: emit_var(E, s, out); return;
  case S_ASSIGN: emit_assign(E, s, out); return;
  case S_FOR: emit_for(E, s, out); return;
  case S_WHILE: emit_while(E, s, out); return;
  case S_IF: emit_if(E, s, out); return;
  case S_BREAK:
  case S_CONTINUE: {
    LoopCtx *lc = E->loop;
    if (lc && s->kind == S_BREAK) {
      lc->brk = lc->has_brk ? place_join(&lc->brk, &E->st) : E->st;
      lc->has_brk = true;
    } else if (lc) {
      lc->cont = lc->has_cont ? place_join(&lc->cont, &E->st) : E->st;
      lc->has_cont = true;
    }
    line(E, out, "%s;", s->kind == S_BREAK ? "break" : "continue");
    return;
  }
  case S_BLOCK:
    line(E, out, "{");
    E->indent++;
    emit_block(E, &s->u.block, out);
    E->indent--;
    line(E, out, "}");
    return;
  case S_EXPR: unreachable();
  }
}

static void emit_block(Emitter *E, Block *b, Buf *out) {
  for (int i = 0; i < b->nstmts; i++) emit_stmt(E, b->stmts[i], out);
}

/* ------------------------------------------------------------ kernels */

/* Expands {{key}} placeholders of a template. Unknown keys are internal errors. */
void emit_expand(Buf *out, const char *tmpl, const char *const *kv) {
  for (const char *p = tmpl; *p;) {
    const char *open = strstr(p, "{{");
    if (!open) {
      buf_puts(out, p);
      return;
    }
    buf_putn(out, p, (size_t)(open - p));
    const char *close = strstr(open, "}}");
    if (!close) die("unterminated placeholder in a template");
    size_t n = (size_t)(close - open - 2);
    const char *val = NULL;
    for (int i = 0; kv[i]; i += 2)
      if (strlen(kv[i]) == n && strncmp(kv[i], open + 2, n) == 0) val = kv[i + 1];
    if (!val) die("template placeholder {{%.*s}} has no value", (int)n, open + 2);
    buf_puts(out, val);
    p = close + 2;
  }
}

const char *emit_param_list(Arena *a, const KernelInfo *ki, bool sim) {
  Buf b = {0};
  for (int i = 0; i < ki->nparams; i++) {
    Sym *p = ki->params[i];
    if (i) buf_puts(&b, ", ");
    const char *t = elem_ctypes[p->ty.elem];
    if (p->kind == SY_SCALAR) buf_printf(&b, "%s %s", t, p->cname);
    else if (sim) buf_printf(&b, "t2c_sim::tensor<%s%s> %s", p->written ? "" : "const ", t, p->cname);
    else buf_printf(&b, "%s%s *__restrict__ %s", p->written ? "" : "const ", t, p->cname);
  }
  for (int i = 0; i < ki->nsizes; i++) buf_printf(&b, "%sint %s", ki->nparams || i ? ", " : "", ki->sizes[i]->cname);
  for (int i = 0; i < ki->nstrides; i++)
    buf_printf(&b, "%slong long %s", ki->nparams || ki->nsizes || i ? ", " : "", ki->strides[i]->cname);
  for (int i = 0; i < ki->ntmaps; i++)
    buf_printf(&b, "%sconst __grid_constant__ t2c::TensorMap %s", b.len ? ", " : "", ki->tmaps[i].cname);
  const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return s;
}

/* A tensor dim as C over the trampoline's arguments (a size's value, or the constant). */
static const char *tramp_dim(Arena *a, const KernelInfo *ki, const Sym *X, int d) {
  if (!X->tdim_size[d]) return arena_printf(a, "%" PRId64 "LL", X->tdim_const[d]);
  for (int i = 0; i < ki->nsizes; i++)
    if (ki->sizes[i] == X->tdim_size[d]) return arena_printf(a, "*static_cast<const int *>(a[%d])", ki->nparams + i);
  die("a tensor dim that is no size of its kernel");
}

const char *emit_trampoline_args(Arena *a, const KernelInfo *ki) {
  Buf b = {0};
  int n = 0;
  for (int i = 0; i < ki->nparams; i++, n++) {
    Sym *p = ki->params[i];
    const char *t = elem_ctypes[p->ty.elem];
    if (n) buf_puts(&b, ",\n      ");
    if (p->kind == SY_TENSOR)
      buf_printf(&b, "t2c_sim::tensor<%s%s>(static_cast<const T2cSimTensor *>(a[%d]))", p->written ? "" : "const ", t, n);
    else buf_printf(&b, "*static_cast<const %s *>(a[%d])", t, n);
  }
  for (int i = 0; i < ki->nsizes; i++, n++) buf_printf(&b, "%s*static_cast<const int *>(a[%d])", n ? ",\n      " : "", n);
  for (int i = 0; i < ki->nstrides; i++, n++)
    buf_printf(&b, "%s*static_cast<const long long *>(a[%d])", n ? ",\n      " : "", n);
  /* the CPU backend builds the tensor maps itself, as a launcher does on the GPU */
  for (int i = 0; i < ki->ntmaps; i++) {
    const TmaMap *m = &ki->tmaps[i];
    const Sym *X = m->tensor;
    int r = X->trank;
    buf_printf(&b, "%st2c::tma_map(static_cast<const T2cSimTensor *>(a[%d]), %d, %s, %s, %s, %s, %d, %d, %d)",
               n ? ",\n      " : "", X->param_index, r, r > 2 ? tramp_dim(a, ki, X, 0) : "1", r > 3 ? tramp_dim(a, ki, X, 1) : "1",
               tramp_dim(a, ki, X, r - 2), tramp_dim(a, ki, X, r - 1), m->box_rows, m->box_cols, m->swizzle);
  }
  const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return s;
}

static const char *shape_str(Emitter *E, const Buffer *b) {
  if (b->rank <= 1) return fmt(E, "[%d]", b->dims[0]);
  return fmt(E, "[%d, %d]", b->dims[0], b->dims[1]);
}

static const char *summary(Emitter *E) {
  KernelInfo *ki = E->ki;
  Buf b = {0};
  const char *base = strrchr(E->o->file, '/');
  base = base ? base + 1 : E->o->file;
  buf_printf(&b, "// kernel %s (%s:%d): %d threads", E->k->name, base, E->k->loc.line, ki->threads);
  if (ki->min_blocks) buf_printf(&b, ", at least %d blocks per SM", ki->min_blocks);
  buf_puts(&b, "\n");
  for (int i = 0; i < ki->regs.len; i++) {
    Sym *r = ki->regs.items[i];
    buf_printf(&b, "//   %s: registers, %d x %s per thread\n", r->name, r->per_thread, elem_names[r->ty.elem]);
  }
  for (int i = 0; i < E->nbufs; i++) {
    Buffer *f = &E->bufs[i];
    if (f->global) continue;
    buf_printf(&b, "//   %s: shared, %s%s, %" PRId64 " bytes (%s)\n", f->cname, elem_names[f->elem],
               shape_str(E, f), f->bytes, f->what);
  }
  if (ki->pipeline_bytes)
    buf_printf(&b, "//   @pipeline: %" PRId64 " bytes reserved (%s)\n", ki->pipeline_bytes, E->pipeline_what);
  buf_printf(&b, "//   shared memory: %" PRId64 " bytes%s; barriers: %d\n", ki->shared_bytes,
             ki->dynamic_smem ? ", dynamic" : "", E->nbarriers);
  const char *s = arena_strndup(E->a, b.data, b.len);
  buf_free(&b);
  return s;
}

static const char *shared_decls(Emitter *E) {
  Buf b = {0};
  bool dyn = place_dynamic(E);
  if (dyn) buf_puts(&b, E->o->sim ? "  T2C_SIM_DYNAMIC_SMEM(t2c_smem);\n"
                                   : "  extern __shared__ __align__(16) unsigned char t2c_smem[];\n");
  for (int i = 0; i < E->nbufs; i++) {
    Buffer *f = &E->bufs[i];
    if (f->global) continue;
    const char *t = ctype(f->elem);
    const char *name = f->stages > 1 ? fmt(E, "%s_ring", f->cname) : f->cname;
    int64_t n = f->bytes / elem_bytes[f->elem];
    if (dyn)
      buf_printf(&b, "  %s *%s = reinterpret_cast<%s *>(t2c_smem + %" PRId64 ");\n", t, name, t, f->offset);
    else if (E->o->sim)
      buf_printf(&b, "  T2C_SIM_SHARED(%s, %s, %" PRId64 ");\n", t, name, n);
    else
      buf_printf(&b, "  __shared__ __align__(16) %s %s[%" PRId64 "];\n", t, name, n);
  }
  const char *s = arena_strndup(E->a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return s;
}

static void name_copies(Emitter *E) {
  KernelInfo *ki = E->ki;
  for (int i = 0; i < ki->regs.len; i++) {
    Sym *r = ki->regs.items[i];
    const char *base = fmt(E, "%s_s", r->cname), *n = base;
    for (int k = 2;; k++) {
      bool taken = false;
      for (int j = 0; j < ki->cnames.len; j++)
        if (strcmp(ki->cnames.items[j], n) == 0) taken = true;
      if (!taken) break;
      n = fmt(E, "%s%d", base, k);
    }
    vec_push(E->a, &ki->cnames, (void *)n);
    r->copy_cname = n;
  }
}

static void emit_kernel(Emitter *E, Kernel *k, Buf *out) {
  E->k = k;
  E->ki = k->info;
  E->nbufs = E->ntemps = E->ctr = E->nbarriers = 0;
  E->pipeline_extra = 0;
  E->pipeline_what = NULL;
  E->use_lane = E->use_warp = false;
  E->nwarned = 0;
  memset(&E->st, 0, sizeof E->st);
  memset(E->copy_why, 0, sizeof E->copy_why);
  if (E->ki->regs.len > MAX_REGS) {
    diag_error(E->d, k->name_loc, "more than %d register tiles in one kernel", MAX_REGS);
    return;
  }
  name_copies(E);
  facts_mark_reassigned(&k->body);
  choose_layouts(E, k);
  choose_pipelines(E, &k->body);
  mark_transposed(&k->body);
  mark_across(&k->body);
  for (int i = 0; i < E->ki->tiles.len; i++) {
    Sym *t = E->ki->tiles.items[i];
    if (t->place == PL_SHARED) tile_buffer(E, t);
  }
  reserve_pipelines(E, &k->body);
  place_kernel_info(E);
  place_explain_tiles(E);
  Buf body = {0};
  E->indent = 1;
  emit_block(E, &k->body, &body);
  if (!place_layout(E)) {
    buf_free(&body);
    return;
  }
  place_kernel_info(E);
  const char *ctxvars = "";
  if (E->use_lane && E->use_warp) ctxvars = fmt(E, "  const int lane = tid %% %d, warp = tid / %d;\n", E->t->lanes, E->t->lanes);
  else if (E->use_lane) ctxvars = fmt(E, "  const int lane = tid %% %d;\n", E->t->lanes);
  else if (E->use_warp) ctxvars = fmt(E, "  const int warp = tid / %d;\n", E->t->lanes);
  for (int i = 0; i < E->ki->regs.len; i++) {
    Sym *r = E->ki->regs.items[i];
    if (!r->mma) continue;
    int rows = r->ty.dims[0] / r->wm, cols = r->ty.dims[1] / r->wn;
    const char *text = body.data ? body.data : "";
    const char *n[4] = {fmt(E, "t2c_%s_wr", r->cname), fmt(E, "t2c_%s_wc", r->cname), fmt(E, "t2c_%s_r", r->cname),
                        fmt(E, "t2c_%s_c", r->cname)};
    bool use[4];
    for (int j = 0; j < 4; j++) use[j] = uses_ident(text, n[j]);
    use[0] |= use[2];
    use[1] |= use[3];
    ctxvars = fmt(E, "%s  // %s: mma fragment layout, warps %d x %d\n", ctxvars, r->name, r->wm, r->wn);
    if (use[0]) ctxvars = fmt(E, "%s  const int %s = (warp / %d) * %d;\n", ctxvars, n[0], r->wn, rows);
    if (use[1]) ctxvars = fmt(E, "%s  const int %s = (warp %% %d) * %d;\n", ctxvars, n[1], r->wn, cols);
    if (use[2]) ctxvars = fmt(E, "%s  const int %s = %s + lane / 4;  // this thread's first row\n", ctxvars, n[2], n[0]);
    if (use[3]) ctxvars = fmt(E, "%s  const int %s = %s + (lane %% 4) * 2;  // and column\n", ctxvars, n[3], n[1]);
  }
  const char *bounds = E->ki->min_blocks ? fmt(E, "%d, %d", E->ki->threads, E->ki->min_blocks)
                                         : fmt(E, "%d", E->ki->threads);
  if (place_dynamic(E)) {
    const char *kv[] = {"name", k->name, "bytes", fmt(E, "%" PRId64, place_shared_bytes(E)),
                        "static", fmt(E, "%d", E->t->smem_static), NULL};
    buf_puts(out, "\n");
    emit_expand(out, tmpl_dynamic_smem, kv);
  }
  const char *kv[] = {"summary", summary(E), "bounds", bounds, "name", k->name,
                      "params", emit_param_list(E->a, E->ki, E->o->sim), "shared", shared_decls(E), "ctxvars", ctxvars,
                      "body", body.data ? arena_strndup(E->a, body.data, body.len) : "", NULL};
  emit_expand(out, tmpl_kernel, kv);
  buf_free(&body);
  if (E->o->sim) {
    const char *tv[] = {"name", k->name, "args", emit_trampoline_args(E->a, E->ki), NULL};
    emit_expand(out, tmpl_sim_trampoline, tv);
  }
}

const char *emit_file_name(Arena *a, const char *file, bool quoted) {
  Buf b = {0};
  for (const unsigned char *c = (const unsigned char *)(file ? file : ""); *c; c++) {
    if (*c < 0x20 || *c == 0x7f) buf_putn(&b, "?", 1);
    else if (quoted && (*c == '"' || *c == '\\')) buf_printf(&b, "\\%c", *c);
    else buf_putn(&b, (const char *)c, 1);
  }
  char *r = arena_strndup(a, b.data ? b.data : "", b.len);
  buf_free(&b);
  return r;
}

static void atomic_stmt(Stmt *s, void *ctx) {
  const Stmt **first = ctx;
  if (!*first && s->kind == S_ASSIGN && s->u.assign.atomic) *first = s;
}

/* The first atomic_*() statement of a kernel body, or NULL. */
static const Stmt *first_atomic(Block *b) {
  const Stmt *first = NULL;
  facts_walk_stmts(b, atomic_stmt, &first);
  return first;
}

bool emit_program(Arena *a, Diag *d, Program *p, const TargetConfig *t, const EmitOptions *opts, Buf *out) {
  Emitter *E = NEW(a, Emitter);
  /* the path appears in comments and #line: no byte of it may end a line there */
  EmitOptions *o = NEW(a, EmitOptions);
  *o = *opts;
  o->file = emit_file_name(a, opts->file, false);
  E->line_file = emit_file_name(a, opts->file, true);
  E->a = a;
  E->d = d;
  E->t = t;
  E->o = o;
  int before = d->errors;
  const char *runtime = o->standalone ? embedded_rt_cuh : "#include <tile2cu/rt.cuh>\n";
  const char *kv[] = {"version", TILE2CU_VERSION, "file", o->file, "target", t->name,
                      "sim", o->sim ? "#define TILE2CU_SIM 1\n" : "", "runtime", runtime,
                      "defines", o->defines ? o->defines : "", NULL};
  emit_expand(out, tmpl_file_header, kv);
  for (int i = 0; i < p->nkernels; i++) {
    /* the tile IR's pipeline, where it covers the kernel; this file's printer otherwise */
    const char *why = NULL;
    int errs = d->errors;
    TirKernel *K = tir_build(a, d, p->kernels[i], t, o->dump_tir ? o->dump_after : NULL, &why);
    if (d->errors > errs) continue;
    if (o->dump_tir) {
      if (K) tir_dump(K, o->explain_out);
      else fprintf(o->explain_out, "kernel %s: not lowered through the tile IR yet (%s); emit.c prints it\n",
                   p->kernels[i]->name, why ? why : "?");
      continue;
    }
    if (!K) {
      const Stmt *at = first_atomic(&p->kernels[i]->body);
      if (at) { /* this printer has no atomics */
        diag_error(d, at->loc, "%s() needs the tile IR, which does not lower kernel '%s' (%s)",
                   builtin_names[at->u.assign.atomic], p->kernels[i]->name, why ? why : "?");
        continue;
      }
      const Kernel *k = p->kernels[i];
      if (k->ir_only.line) { /* nor gathers, mixed ranks, reshape, arg-reductions, scans */
        diag_error(d, k->ir_only, "%s needs the tile IR, which does not lower kernel '%s' (%s)", k->ir_only_what, k->name,
                   why ? why : "?");
        continue;
      }
      E->tir_why = why;
      emit_kernel(E, p->kernels[i], out);
      continue;
    }
    if (o->explain) emit_tir_explain(K, o->explain_out);
    emit_tir_kernel(K, o, E->line_file, out);
  }
  return d->errors == before;
}
