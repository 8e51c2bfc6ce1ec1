/* check.c: names, types, shapes, attributes, @registers and uniform control.
 *
 * Per kernel, in order:
 *   1. @launch (ctx.threads is needed by constant dims and @registers);
 *   2. parameters: tensors, scalars, size names (appended in order of first use);
 *   3. the body: scopes, expression types and shapes, constant folding;
 *   4. @registers, @grid and @assume, which refer to what the body declares;
 *   5. thread dependence of scalar vars (a fixpoint over the body);
 *   6. the rules walk: tile statements under uniform control only, and the
 *      @registers update rules of the seed page.
 * Every error is reported; checking goes on at the next statement.
 */
#include "t2c.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Scope {
  struct Scope *up;
  PtrVec syms;
} Scope;

typedef struct Checker {
  Arena *a;
  Diag *d;
  const TargetConfig *t;
  Program *prog;
  Kernel *k;
  KernelInfo *ki;
  Scope *scope;
  Scope file_scope;
  int loops;          /* enclosing loops, for break/continue */
  PtrVec cnames;      /* C names taken in this kernel */
  const char *attr;   /* the kernel attribute whose arguments are being checked */
  bool deep_reported; /* "nested too deeply" said once for this statement */
  const Expr *rows_at, *cols_at; /* the first row and column of the 2-D target whose value is being checked, or NULL */
  TokenKind int_op;   /* the integer-only operator whose operands are being unified, or 0 */
  bool sizes_reported; /* MAX_SIZES said once for this kernel */
  bool launch_bad;    /* @launch's thread count was rejected: what depends on it stays quiet */
  ElemType want;      /* the element type of the var or store the value being checked goes to,
                         or T_NONE: a mismatch's fix-it converts the operand of another type */
  bool subscript;     /* the value being checked is an index (it reaches one as want says): a
                         mismatch of an integer and a float converts the float */
  const Expr *target; /* the store's target being checked (check_lhs), for tensor_outside */
  const Expr *padded; /* pad()'s slice being checked: its elements past the tensor are meant */
  bool hoist_ok;      /* a statement of a block is being checked: an indexed tile value
                         (colmax(len)[0, 0]) becomes a var declared before it (hoist_index) */
  const char *no_hoist; /* where hoist_ok is false inside a statement (a while condition), or NULL */
  PtrVec hoisted;     /* the S_VARs hoist_index made, for check_block to put before the statement */
  PtrVec reg_ctl_noted; /* the register tiles whose update under an if or while was given the way out */
  PtrVec dep_syms, dep_vals; /* block_deps' memo: a var's ctx.block coordinates (as uintptr_t) */
} Checker;

/* Parentheses nest at most MAX_NEST deep (the parser); a flat chain such as
 * a + b + c + ... nests one level per operator here, so it gets more room. */
#define MAX_EXPR_DEPTH (4 * MAX_NEST)

static const Type SCALAR_I32 = {T_I32, 0, {0, 0}, false};
static const Type SCALAR_BOOL = {T_BOOL, 0, {0, 0}, false};

int64_t type_numel(const Type *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

static const char *type_str(Checker *C, const Type *t) {
  const char *el = t->elem == T_NONE ? "?" : elem_names[t->elem];
  if (t->rank == 0) return t->untyped ? (t->elem == T_I32 ? "an integer constant" : "a float constant") : el;
  if (t->rank == 1) return arena_printf(C->a, "tile<%s>[%d]", el, t->dims[0]);
  return arena_printf(C->a, "tile<%s>[%d, %d]", el, t->dims[0], t->dims[1]);
}

/* A float constant as the language writes it, in the fewest digits that read back
 * the same: 70000.0, 1e+40, inf. */
static const char *float_str(Checker *C, double v) {
  if (isinf(v)) return v < 0 ? "-inf" : "inf";
  char b[64];
  bool fixed = fabs(v) >= 1e-4 && fabs(v) < 1e15; /* 70000.0 rather than 7e+04 */
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(b, sizeof b, fixed ? "%.*f" : "%.*g", prec, v);
    if (strtod(b, NULL) == v) break;
  }
  return arena_printf(C->a, "%s%s", b, strpbrk(b, ".en") ? "" : ".0");
}

/* ------------------------------------------------------------ names */

static const char *const reserved_c[] = {
  "alignas", "alignof", "asm", "auto", "bool", "case", "catch", "char", "class", "const",
  "constexpr", "default", "delete", "do", "double", "enum", "explicit", "export", "extern",
  "false", "float", "friend", "goto", "inline", "int", "long", "mutable", "namespace", "new",
  "noexcept", "nullptr", "operator", "private", "protected", "public", "register", "restrict",
  "return", "short", "signed", "sizeof", "static", "struct", "switch", "template", "this",
  "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
  "virtual", "void", "volatile", "while", "for", "if", "else", "break", "continue",
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "t2c", "std", "tid", "lane",
  "warp", "e", "r", "c", "c0", "kk", "v", "i", "j", "NULL", "INFINITY", "min", "max", "abs",
  NULL,
};

static bool name_reserved_c(const char *n) {
  if (n[0] == '_' || strncmp(n, "t2c_", 4) == 0) return true;
  for (int i = 0; reserved_c[i]; i++)
    if (strcmp(reserved_c[i], n) == 0) return true;
  return false;
}

static bool cname_taken(Checker *C, const char *n) {
  for (int i = 0; i < C->cnames.len; i++)
    if (strcmp(C->cnames.items[i], n) == 0) return true;
  return false;
}

/* A C name for `name`, unique in the kernel: reserved words get a '_' suffix. */
static const char *make_cname(Checker *C, const char *name) {
  const char *base = name_reserved_c(name) ? arena_printf(C->a, "%s_", name) : name;
  const char *n = base;
  for (int k = 2; cname_taken(C, n); k++) n = arena_printf(C->a, "%s_%d", base, k);
  vec_push(C->a, &C->cnames, (void *)n);
  return n;
}

static bool name_builtin(const char *n) {
  return builtin_lookup(n) >= 0 || elem_lookup(n, (int)strlen(n)) >= 0 ||
         strcmp(n, "ctx") == 0 || strcmp(n, "inf") == 0 || strcmp(n, "tile") == 0 ||
         strcmp(n, "tensor") == 0;
}

static Sym *lookup(Checker *C, const char *name) {
  for (Scope *s = C->scope; s; s = s->up)
    for (int i = s->syms.len - 1; i >= 0; i--) {
      Sym *y = s->syms.items[i];
      if (strcmp(y->name, name) == 0) return y;
    }
  return NULL;
}

/* Declares a name in the current scope. Redefinition and shadowing are errors:
 * a .tl name means one thing in a kernel. */
/* A var whose declaration failed: uses of the name stay quiet (no cascade). */
static void poison(Checker *C, const char *name, Loc loc) {
  Sym *y = NEW(C->a, Sym);
  y->kind = SY_VAR;
  y->name = name;
  y->loc = loc;
  y->ty.elem = T_NONE;
  vec_push(C->a, &C->scope->syms, y);
}

static Sym *declare(Checker *C, SymKind kind, const char *name, Loc loc) {
  if (name_builtin(name)) {
    diag_error(C->d, loc, "'%s' is a built-in name and cannot be redefined", name);
    if (!lookup(C, name)) poison(C, name, loc);
    return NULL;
  }
  Sym *old = lookup(C, name);
  if (old) {
    diag_error(C->d, loc, "redefinition of '%s'", name);
    if (old->loc.line) diag_note(C->d, old->loc, "'%s' was defined here", name);
    return NULL;
  }
  Sym *y = NEW(C->a, Sym);
  y->kind = kind;
  y->name = name;
  y->loc = loc;
  y->ty.elem = T_NONE;
  vec_push(C->a, &C->scope->syms, y);
  return y;
}

static void push_scope(Checker *C, Scope *s) {
  memset(s, 0, sizeof *s);
  s->up = C->scope;
  C->scope = s;
}
static void pop_scope(Checker *C) { C->scope = C->scope->up; }

/* ------------------------------------------------------------ constants */

bool check_const_int(const Expr *e, int64_t *out) {
  if (!(e->flags & EF_CONST) || e->cv.isf) return false;
  *out = e->cv.i;
  return true;
}

static void set_const_int(Expr *e, int64_t v) {
  e->flags |= EF_CONST;
  e->cv.isf = false;
  e->cv.i = v;
  e->cv.f = (double)v;
}
static void set_const_float(Expr *e, double v) {
  e->flags |= EF_CONST;
  e->cv.isf = true;
  e->cv.f = v;
}

/* After an error about the value of x: when x names a const, where that value comes
 * from (its declaration, or the -D that set it). */
static void note_const(Checker *C, const Expr *x) {
  const Sym *y = x->kind == E_IDENT ? x->u.ident.sym : NULL;
  if (!y || y->kind != SY_CONST || !y->decl) return;
  const char *v = y->const_float ? float_str(C, y->fval) : arena_printf(C->a, "%" PRId64, y->ival);
  if (y->decl->u.decl.define)
    diag_note(C->d, y->decl->u.decl.name_loc, "'%s' is %s, set by %s", y->name, v, y->decl->u.decl.define);
  else
    diag_note(C->d, y->decl->u.decl.name_loc, "'%s' is %s here", y->name, v);
}

/* Whether x is the name of a const. */
static bool is_const_name(const Expr *x) {
  return x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->kind == SY_CONST;
}

/* Whether x is the integer constant 0. */
static bool const_zero(const Expr *x) {
  return (x->flags & EF_CONST) && !x->cv.isf && x->cv.i == 0;
}

/* Expr.flags, private to check.c: a constant expression whose folding failed
 * and was reported (division by zero, overflow); later checks stay quiet. */
#define EF_BADCONST 0x100

/* Folds a binary operator over two constants; false on division by zero etc. */
static void fold_binary(Checker *C, Expr *e) {
  Expr *x = e->u.binary.a, *y = e->u.binary.b;
  if (!(x->flags & EF_CONST) || !(y->flags & EF_CONST)) return;
  TokenKind op = e->u.binary.op;
  if (x->cv.isf || y->cv.isf) {
    double a = x->cv.f, b = y->cv.f;
    switch (op) {
    case TK_PLUS: set_const_float(e, a + b); break;
    case TK_MINUS: set_const_float(e, a - b); break;
    case TK_STAR: set_const_float(e, a * b); break;
    case TK_SLASH: set_const_float(e, a / b); break;
    default: break;
    }
    /* inf from finite operands (not a division by 0.0) would pass for a written inf */
    if ((e->flags & EF_CONST) && isinf(e->cv.f) && isfinite(a) && isfinite(b) && !(op == TK_SLASH && b == 0)) {
      diag_error(C->d, e->loc, "constant expression overflows");
      e->flags = (e->flags & ~EF_CONST) | EF_BADCONST;
    }
    return;
  }
  int64_t a = x->cv.i, b = y->cv.i, r = 0;
  bool ok = true;
  switch (op) {
  case TK_PLUS: ok = !__builtin_add_overflow(a, b, &r); break;
  case TK_MINUS: ok = !__builtin_sub_overflow(a, b, &r); break;
  case TK_STAR: ok = !__builtin_mul_overflow(a, b, &r); break;
  case TK_SLASH:
  case TK_PERCENT:
    if (b == 0) {
      diag_error(C->d, e->loc, "division by zero in a constant expression");
      e->flags |= EF_BADCONST;
      return;
    }
    /* the one quotient outside the type: undefined in CUDA C++, % as well as /
       (the CPU backend traps on it at run time); the type is i64's for an untyped
       constant, an i8 one wraps as its other arithmetic does */
    if (b == -1 && ((a == INT64_MIN && (e->ty.untyped || e->ty.elem == T_I64)) ||
                    (a == INT32_MIN && !e->ty.untyped && e->ty.elem == T_I32))) {
      diag_error(C->d, e->loc, "integer %s %" PRId64 " %s -1 overflows %s (undefined in CUDA C++)",
                 op == TK_PERCENT ? "remainder ('%')" : "division", a, op == TK_PERCENT ? "%" : "/",
                 elem_names[e->ty.untyped ? T_I64 : e->ty.elem]);
      note_const(C, x);
      note_const(C, y);
      e->flags |= EF_BADCONST;
      return;
    }
    r = op == TK_SLASH ? a / b : a % b;
    break;
  case TK_SHL: ok = b >= 0 && b < 63 && a >= 0 && a <= (INT64_MAX >> b); r = ok ? a << b : 0; break;
  case TK_SHR: ok = b >= 0 && b < 64; r = ok ? a >> b : 0; break;
  case TK_AND: r = a & b; break;
  case TK_OR: r = a | b; break;
  case TK_XOR: r = a ^ b; break;
  default: return; /* comparisons are not folded */
  }
  /* an i32 result past i32 (i32(2147483647) + 1): signed overflow, undefined in CUDA C++,
   * was folded to 2147483648 and printed so */
  if (ok && !e->ty.untyped && e->ty.elem == T_I32 && (r < INT32_MIN || r > INT32_MAX) &&
      (op == TK_PLUS || op == TK_MINUS || op == TK_STAR || op == TK_SHL)) {
    diag_error(C->d, e->loc, "constant expression overflows i32: %" PRId64 " (signed overflow is undefined in CUDA "
               "C++; compute in i64, or in u32 to wrap)", r);
    note_const(C, x);
    note_const(C, y);
    e->flags |= EF_BADCONST;
    return;
  }
  if (!ok) {
    diag_error(C->d, e->loc, "constant expression overflows");
    e->flags |= EF_BADCONST;
    return;
  }
  set_const_int(e, r);
}

/* ------------------------------------------------------------ expressions */

static bool check_expr(Checker *C, Expr *e, int depth);
static bool check_subscript(Checker *C, Expr *e, int depth);

static bool is_comparison(TokenKind op) {
  return op == TK_EQ || op == TK_NE || op == TK_LT || op == TK_LE || op == TK_GT || op == TK_GE;
}

static bool is_numeric(ElemType t) { return t != T_BOOL && t != T_NONE; }

/* Broadcasts two shapes (NumPy rules over equal rank; scalars go anywhere). */
static bool broadcast(Checker *C, Loc loc, const Type *x, const Type *y, Type *out) {
  if (x->rank == 0) { out->rank = y->rank; memcpy(out->dims, y->dims, sizeof out->dims); return true; }
  if (y->rank == 0) { out->rank = x->rank; memcpy(out->dims, x->dims, sizeof out->dims); return true; }
  /* ranks mix as NumPy's: a rank-1 [N] is the row [1, N] against a rank-2 tile */
  const Type *ox = x, *oy = y;
  Type x2 = *x, y2 = *y;
  if (x->rank != y->rank && x->rank + y->rank == 3) {
    Type *r1 = x->rank == 1 ? &x2 : &y2;
    *r1 = (Type){r1->elem, 2, {1, r1->dims[0]}, r1->untyped};
    x = &x2, y = &y2;
  }
  if (x->rank != y->rank) {
    diag_error(C->d, loc, "shapes %s and %s have different ranks", type_str(C, x), type_str(C, y));
    return false;
  }
  out->rank = x->rank;
  for (int i = 0; i < x->rank; i++) {
    int a = x->dims[i], b = y->dims[i];
    if (a != b && a != 1 && b != 1) {
      diag_error(C->d, loc, "shapes %s and %s do not broadcast (dim %d: %d vs %d)",
                 type_str(C, ox), type_str(C, oy), i, a, b);
      return false;
    }
    out->dims[i] = a == 1 ? b : a;
  }
  return true;
}

/* Whether the constant e, taking float type t, stays finite: CUDA rounds it to f32 and
 * then to t (to nearest), and a finite one past the largest finite value would become
 * inf unasked. inf itself, and what rounds down to the largest value, are fine; the
 * 8-bit floats saturate. The error is the integers' (below), with how to ask for inf. */
static bool float_fits(Checker *C, const Expr *e, ElemType t) {
  double v = e->cv.f; /* (of an integer constant too) */
  if (isinf(v) || isnan(v) || elem_is_f8(t)) return true;
  float f = (float)v;
  /* the midpoints between the largest finite values and the next power of two, which
     round (to even) to inf */
  double lim = t == T_F16 ? 65520.0 : t == T_BF16 ? ldexp(1.0, 128) - ldexp(1.0, 119) : INFINITY;
  if (t == T_F64 ? isfinite(v) : isfinite(f) && fabs((double)f) < lim) return true;
  const char *max = t == T_F16 ? "65504" : t == T_BF16 ? "3.38953e+38" : "3.40282e+38";
  diag_error(C->d, e->loc, "the constant %s does not fit %s (largest finite %s); write inf if that is meant",
             e->cv.isf ? float_str(C, v) : arena_printf(C->a, "%" PRId64, e->cv.i), elem_names[t], max);
  note_const(C, e);
  return false;
}

/* Whether an untyped integer constant e fits integer type t; if not, an error
   at e (u > -1 of a u32 u would compare with 4294967295, b + 300 of a u8 b add 44). */
static bool literal_fits(Checker *C, const Expr *e, ElemType t) {
  int64_t lo, v = e->cv.i;
  uint64_t hi;
  if ((e->flags & EF_CONST) && elem_is_float(t)) return float_fits(C, e, t);
  if (!(e->flags & EF_CONST) || e->cv.isf || !elem_int_range(t, &lo, &hi)) return true;
  if (v >= lo && (v < 0 || (uint64_t)v <= hi)) return true;
  diag_error(C->d, e->loc, "the constant %" PRId64 " does not fit %s (%" PRId64 " .. %" PRIu64 ")", v, elem_names[t], lo, hi);
  return false;
}

/* The elements of a value of type t (a scalar: 1). */
static int64_t type_elems(const Type *t) {
  int64_t n = 1;
  for (int d = 0; d < t->rank; d++) n *= t->dims[d];
  return n;
}

static const char *widened_sum(const Expr *e, ElemType to);

/* A better fix than to(...) around conv, or NULL: for a sum or scan whose result would
 * be widened, the operand converts (cumsum(f32(x)), not f32(cumsum(x)), which keeps each
 * prefix in the narrow type); a cast whose operand already has the type goes (f16(acc)
 * into f32); a product or sum of narrower floats converts its operands (f32(w) * f32(x):
 * f32(w * x) would multiply, and round or overflow, in the narrow type). */
static const char *conversion_fix(Checker *C, const Expr *conv, ElemType to) {
  const char *sum = widened_sum(conv, to);
  if (sum)
    return arena_printf(C->a, "convert its operand, so that the %s accumulates in %s: %s(%s(...))", sum, elem_names[to],
                        sum, elem_names[to]);
  if (conv->kind == E_CALL && conv->u.call.cast != T_NONE && conv->u.call.nargs == 1 &&
      conv->u.call.args[0]->ty.elem == to && !conv->u.call.args[0]->ty.untyped)
    return arena_printf(C->a, "its operand is %s already: drop the %s() around it", elem_names[to],
                        elem_names[conv->u.call.cast]);
  if (conv->kind == E_BINARY && elem_is_float(conv->ty.elem) && elem_is_float(to) &&
      elem_bytes[conv->ty.elem] < elem_bytes[to]) {
    TokenKind op = conv->u.binary.op;
    const char *what = op == TK_STAR ? "product" : op == TK_SLASH ? "quotient" : op == TK_PLUS ? "sum"
                       : op == TK_MINUS ? "difference" : NULL;
    if (what)
      return arena_printf(C->a, "convert its operands, so that the %s is computed in %s: %s(...) %s %s(...)", what,
                          elem_names[to], elem_names[to], token_names[op], elem_names[to]);
  }
  return NULL;
}

/* The note under a mismatched operand conv: how to convert it to `to`. */
static void convert_note(Checker *C, const Expr *conv, ElemType to, const char *side) {
  const char *fix = conversion_fix(C, conv, to);
  if (fix) {
    diag_note(C->d, conv->loc, "%s", fix);
    return;
  }
  if (conv->kind == E_IDENT)
    diag_note(C->d, conv->loc, "convert %s explicitly, e.g. %s(%s)", side, elem_names[to], conv->u.ident.name);
  else
    diag_note(C->d, conv->loc, "convert %s explicitly, e.g. %s(...) around this operand", side, elem_names[to]);
}

/* Unifies element types: an untyped literal takes the other operand's type.
 * keep, x or y or NULL, is an operand that cannot be converted (pad()'s tensor
 * slice): a mismatch's note converts the other one, pad()'s value, to keep's type. */
static bool unify_elem(Checker *C, Loc loc, Expr *x, Expr *y, const Expr *keep, ElemType *out, bool *untyped) {
  Type *a = &x->ty, *b = &y->ty;
  *untyped = false;
  if (a->untyped && b->untyped) {
    *untyped = true;
    *out = (a->elem == T_F32 || b->elem == T_F32) ? T_F32 : T_I32;
    return true;
  }
  const Type *lit = a->untyped ? a : b->untyped ? b : NULL;
  const Type *typed = a->untyped ? b : a;
  if (lit) {
    if (lit->elem == T_F32 && !elem_is_float(typed->elem)) {
      Expr *le = a->untyped ? x : y;
      if (is_const_name(le)) { /* the const, not the operator: its value may come from -D */
        diag_error(C->d, le->loc, "the float const '%s' cannot take the type %s", le->u.ident.name,
                   elem_names[typed->elem]);
        note_const(C, le);
      } else {
        diag_error(C->d, loc, "a float literal cannot take the type %s", elem_names[typed->elem]);
        /* 1.0 / D of a size or an i32: the integer side converts, where the result need not
           be an integer (a store to an i32 tensor, pad()'s value of an i32 slice) */
        const Expr *le = a->untyped ? x : y;
        if (C->int_op && le->kind == E_FLOAT && le->u.fval == floor(le->u.fval) && fabs(le->u.fval) < 2147483648.0)
          diag_note(C->d, le->loc, "'%s' takes integers: write the literal as one, %.0f", token_names[C->int_op],
                    le->u.fval);
        else if (typed->elem != T_BOOL && !keep && !elem_is_int(C->want) && !C->int_op)
          convert_note(C, a->untyped ? y : x, T_F32, "the integer side");
      }
      return false;
    }
    if (typed->elem == T_BOOL) {
      diag_error(C->d, loc, "a number cannot take the type bool");
      return false;
    }
    if (!literal_fits(C, a->untyped ? x : y, typed->elem)) return false;
    *out = typed->elem;
    return true;
  }
  if (a->elem != b->elem) {
    diag_error(C->d, loc, "mismatched element types %s and %s", elem_names[a->elem],
               elem_names[b->elem]);
    if (keep) {
      const Expr *conv = keep == x ? y : x;
      convert_note(C, conv, keep->ty.elem, "the pad value");
      return false;
    }
    /* Wr[p * h] with p an i32 tile and h an f32: f32(p) would make the index a float,
       another error, so the float converts to the integer's type */
    if (C->subscript && elem_is_float(a->elem) != elem_is_float(b->elem)) {
      bool fa = elem_is_float(a->elem);
      if ((fa ? b->elem : a->elem) != T_BOOL) {
        convert_note(C, fa ? x : y, fa ? b->elem : a->elem, "the float side");
        return false;
      }
    }
    /* acc = acc + X[..] with acc f32 and X f64: f64(acc) would give an f64 sum that
       acc cannot take, so the operand that is not of the target's type converts */
    if ((a->elem == C->want) != (b->elem == C->want)) {
      /* ... but a 16- or 8-bit float target against an f32 (or f64) side: the arithmetic in
         the narrow type would round at every step (beta * C[..] of an f16 C, f16(beta) *
         C[..]); the narrow side widens, and the value is converted once where stored */
      const Expr *narrow = a->elem == C->want ? x : y, *wide = narrow == x ? y : x;
      if (elem_is_float(a->elem) && elem_is_float(b->elem) && elem_bytes[C->want] < 4 &&
          elem_bytes[wide->ty.elem] >= 4) {
        diag_note(C->d, narrow->loc, "compute in %s and round once: %s(...) around this operand, and %s(...) around the "
                  "whole value stored", elem_names[wide->ty.elem], elem_names[wide->ty.elem], elem_names[C->want]);
        return false;
      }
      convert_note(C, a->elem == C->want ? y : x, C->want, "one side");
      return false;
    }
    /* one value (a scalar, or a [1, 1] tile) against a tile of more: the one value converts to
       the tile's type (rowsum(x * x) / f32(D) + eps with an f64 eps: f32(eps); then hf * rstd
       with an f64 [1, 1] rstd: f32(rstd)), not the tile, which would widen every element and
       everything computed from it */
    int64_t na = type_elems(a), nb = type_elems(b);
    bool sa = na == 1 && (nb > 1 || (a->rank == 0 && b->rank > 0)),
         sb = nb == 1 && (na > 1 || (b->rank == 0 && a->rank > 0));
    if ((sa || sb) && elem_is_float(a->elem) == elem_is_float(b->elem)) {
      const Type *one = sa ? a : b;
      convert_note(C, sa ? x : y, sa ? b->elem : a->elem, one->rank == 0 ? "the scalar side" : "the one-element side");
      return false;
    }
    /* Otherwise suggest widening: convert the operand whose type is narrower. */
    bool widen_a = (elem_is_float(b->elem) && !elem_is_float(a->elem)) ||
                   (elem_is_float(b->elem) == elem_is_float(a->elem) && elem_bytes[b->elem] > elem_bytes[a->elem]);
    convert_note(C, widen_a ? x : y, widen_a ? b->elem : a->elem, "one side");
    return false;
  }
  *out = a->elem;
  return true;
}

/* An untyped literal used where a concrete type is needed gets the default. */
static void settle(Expr *e) {
  if (e->ty.untyped) e->ty.untyped = false;
}

static bool check_ctx(Checker *C, Expr *e) {
  /* e is E_MEMBER whose base chain starts at the identifier ctx */
  Expr *b = e->u.member.base;
  const char *n = e->u.member.name;
  static const struct { const char *name; CtxField f; int td; } direct[] = {
    {"thread", CTX_THREAD, 1}, {"threads", CTX_THREADS, 0}, {"lane", CTX_LANE, 1},
    {"lanes", CTX_LANES, 0},   {"warp", CTX_WARP, 1},       {"warps", CTX_WARPS, 0},
  };
  if (b->kind == E_IDENT) {
    for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++)
      if (strcmp(n, direct[i].name) == 0) {
        e->kind = E_CTX;
        e->u.ctx = direct[i].f;
        e->ty = SCALAR_I32;
        if (direct[i].td) e->flags |= EF_TD;
        int v = -1;
        if (direct[i].f == CTX_THREADS) v = C->ki->threads;
        if (direct[i].f == CTX_LANES) v = C->t->lanes;
        if (direct[i].f == CTX_WARPS) v = C->ki->threads / C->t->lanes;
        if (v >= 0 && C->launch_bad && (direct[i].f == CTX_THREADS || direct[i].f == CTX_WARPS))
          e->flags |= EF_BADCONST; /* not the default's 128: a dim made of it stays quiet */
        else if (v >= 0)
          set_const_int(e, v);
        return true;
      }
    diag_error(C->d, e->u.member.name_loc, "ctx has no field '%s'", n);
    diag_note(C->d, (Loc){0, 0}, "ctx fields: thread threads lane lanes warp warps block.x|y|z blocks.x|y|z");
    return false;
  }
  if (b->kind == E_MEMBER && b->u.member.base->kind == E_IDENT &&
      (strcmp(b->u.member.name, "block") == 0 || strcmp(b->u.member.name, "blocks") == 0)) {
    int axis = strcmp(n, "x") == 0 ? 0 : strcmp(n, "y") == 0 ? 1 : strcmp(n, "z") == 0 ? 2 : -1;
    if (axis < 0) {
      diag_error(C->d, e->u.member.name_loc, "ctx.%s has no field '%s' (x, y or z)",
                 b->u.member.name, n);
      return false;
    }
    bool blocks = strcmp(b->u.member.name, "blocks") == 0;
    if (!blocks && C->ki) C->ki->reads_block |= (unsigned char)(1u << axis);
    e->kind = E_CTX;
    e->u.ctx = (CtxField)((blocks ? CTX_BLOCKS_X : CTX_BLOCK_X) + axis);
    e->ty = SCALAR_I32;
    return true;
  }
  diag_error(C->d, e->loc, "unknown ctx field");
  return false;
}

static bool check_member(Checker *C, Expr *e, int depth) {
  Expr *root = e;
  while (root->kind == E_MEMBER) root = root->u.member.base;
  if (root->kind == E_IDENT && strcmp(root->u.ident.name, "ctx") == 0) return check_ctx(C, e);
  diag_error(C->d, e->u.member.name_loc, "'.%s': only ctx has fields", e->u.member.name);
  return false;
}

static Sym *find_var_any(Checker *C, Block *b, const char *name);

/* `name` is not in scope at loc: says so, and where a var of that name is
 * declared when there is one the use cannot see. */
static void undeclared(Checker *C, Loc loc, const char *name) {
  Sym *v = C->k ? find_var_any(C, &C->k->body, name) : NULL;
  if (v && C->attr) {
    diag_error(C->d, loc, "@%s cannot use '%s': it is a var of the kernel body", C->attr, name);
    diag_note(C->d, v->loc, "'%s' is declared here; @%s may use size names, scalar parameters and consts", name, C->attr);
    return;
  }
  if (!v && strcmp(name, "return") == 0) {
    diag_error(C->d, loc, "there is no 'return': a kernel runs to its closing brace");
    diag_note(C->d, loc, "put what follows under an if (if s >= 0 { ... }), or leave a loop with break");
    return;
  }
  diag_error(C->d, loc, "use of undeclared name '%s'", name);
  if (v && v->loc.line) diag_note(C->d, v->loc, "a var '%s' is declared here, in a block that does not enclose this use", name);
}

static bool check_ident(Checker *C, Expr *e) {
  const char *n = e->u.ident.name;
  if (strcmp(n, "inf") == 0) {
    e->kind = E_INF;
    e->ty = (Type){T_F32, 0, {0, 0}, true};
    set_const_float(e, INFINITY);
    return true;
  }
  Sym *y = lookup(C, n);
  if (!y) {
    if (strcmp(n, "ctx") == 0)
      diag_error(C->d, e->loc, "ctx is not a value; use a field such as ctx.thread");
    else if (name_builtin(n))
      diag_error(C->d, e->loc, "'%s' is a built-in function; call it", n);
    else
      undeclared(C, e->loc, n);
    return false;
  }
  e->u.ident.sym = y;
  y->used = true;
  y->reads++;
  switch (y->kind) {
  case SY_CONST:
    e->ty = (Type){y->const_float ? T_F32 : T_I32, 0, {0, 0}, true};
    if (y->const_float) set_const_float(e, y->fval);
    else set_const_int(e, y->ival);
    return true;
  case SY_TENSOR: { /* the example has one index a dim: scalars before the last two (a tile has rank 1 or 2) */
    static const char *const eg[5] = {"", "0 :+ 16", "0 :+ 16, 0 :+ 16", "0, 0 :+ 16, 0 :+ 16", "0, 0, 0 :+ 16, 0 :+ 16"};
    diag_error(C->d, e->loc, "tensor '%s' must be indexed, e.g. %s[%s]", n, n, eg[y->trank]);
    return false;
  }
  case SY_SIZE:
  case SY_LOOP:
  case SY_SCALAR:
  case SY_STRIDE: /* never in scope */
    e->ty = y->ty;
    return true;
  case SY_VAR:
    if (y->ty.elem == T_NONE) return false; /* its declaration failed */
    e->ty = y->ty;
    if (y->ty.rank > 0) e->flags |= EF_TILE;
    return true;
  }
  unreachable();
}

/* f8 values take part in arithmetic, comparisons, math and reductions as f32
 * (LANGUAGE.md §3): *slot becomes f32(*slot), which every printer converts. */
static void widen_f8(Checker *C, Expr **slot) {
  Expr *x = *slot;
  if (!elem_is_f8(x->ty.elem)) return;
  Expr *c = NEW(C->a, Expr);
  memset(c, 0, sizeof *c);
  c->kind = E_CALL;
  c->loc = x->loc;
  c->u.call.name = elem_names[T_F32];
  c->u.call.name_loc = x->loc;
  c->u.call.args = NEW_ARRAY(C->a, Expr *, 1);
  c->u.call.args[0] = x;
  c->u.call.nargs = 1;
  c->u.call.shape_at = 1;
  c->u.call.builtin = -1;
  c->u.call.cast = T_F32;
  c->ty = x->ty;
  c->ty.elem = T_F32;
  c->flags = x->flags & (EF_TD | EF_TILE);
  *slot = c;
}

static bool check_unary(Checker *C, Expr *e, int depth) {
  if (!check_expr(C, e->u.unary.a, depth + 1)) return false;
  if (e->u.unary.op == TK_MINUS) widen_f8(C, &e->u.unary.a);
  Expr *x = e->u.unary.a;
  e->ty = x->ty;
  e->flags |= x->flags & (EF_TD | EF_TILE | EF_BADCONST);
  switch (e->u.unary.op) {
  case TK_MINUS:
    if (!is_numeric(x->ty.elem) || x->ty.elem == T_U8 || x->ty.elem == T_U32) {
      diag_error(C->d, e->loc, "unary '-' needs a signed number, not %s", type_str(C, &x->ty));
      return false;
    }
    if (x->flags & EF_CONST) {
      if (x->cv.isf) set_const_float(e, -x->cv.f);
      else if (x->cv.i != INT64_MIN) set_const_int(e, -x->cv.i);
    }
    return true;
  case TK_NOT:
    if (x->ty.elem != T_BOOL) {
      diag_error(C->d, e->loc, "'!' needs a bool, not %s", type_str(C, &x->ty));
      return false;
    }
    return true;
  case TK_TILDE:
    if (!elem_is_int(x->ty.elem) || (x->ty.untyped && x->ty.elem != T_I32)) {
      diag_error(C->d, e->loc, "'~' needs an integer, not %s", type_str(C, &x->ty));
      return false;
    }
    if (x->flags & EF_CONST) set_const_int(e, ~x->cv.i);
    return true;
  default: unreachable();
  }
}

/* Where dim d of the checked tile expression x gets its size: a slice's length,
 * a tile var (its declaration), or x itself when no part of it says more. */
static const Expr *dim_origin(const Expr *x, int d) {
  switch (x->kind) {
  case E_INDEX: {
    if (check_is_gather(x)) return x;
    for (int i = 0, k = 0; i < x->u.index.nidx; i++)
      if (x->u.index.idx[i].len && k++ == d) return x->u.index.idx[i].len;
    return x;
  }
  case E_UNARY: return dim_origin(x->u.unary.a, d);
  case E_BINARY: {
    const Expr *a = x->u.binary.a, *b = x->u.binary.b;
    if (a->ty.rank == x->ty.rank && a->ty.dims[d] == x->ty.dims[d]) return dim_origin(a, d);
    if (b->ty.rank == x->ty.rank && b->ty.dims[d] == x->ty.dims[d]) return dim_origin(b, d);
    return x;
  }
  case E_CALL: {
    if (x->u.call.cast != T_NONE) return dim_origin(x->u.call.args[0], d);
    int b = x->u.call.builtin;
    if (b == B_TRANSPOSE) return dim_origin(x->u.call.args[0], 1 - d);
    if (b == B_PAD || builtin_class[b] == BC_MATH1) return dim_origin(x->u.call.args[0], d);
    if (b == B_ROWS || b == B_COLS) return x->u.call.args[d];
    if (b == B_DOT) return dim_origin(x->u.call.args[d], d);
    for (int i = 0; i < x->u.call.nargs; i++) {
      const Expr *a = x->u.call.args[i];
      if (a->ty.rank == x->ty.rank && a->ty.dims[d] == x->ty.dims[d]) return dim_origin(a, d);
    }
    return x;
  }
  default: return x;
  }
}

/* After a broadcast error between x and y: where the sizes that disagree come from. */
static void shape_notes(Checker *C, const Expr *x, const Expr *y) {
  if (x->ty.rank == 0 || y->ty.rank == 0 || x->ty.rank > 2 || y->ty.rank > 2) return;
  for (int k = 0; k < 2; k++) {
    const Expr *t = k ? y : x, *o = k ? x : y;
    /* a rank-1 tile against a rank-2 one is its row: its dim 0 meets dim 1 */
    for (int d = 0; d < t->ty.rank; d++) {
      int od = t->ty.rank == o->ty.rank ? d : t->ty.rank == 1 ? 1 : d - 1;
      if (od < 0 || od >= o->ty.rank) continue;
      int a = t->ty.dims[d], b = o->ty.dims[od];
      if (a == b || a == 1 || b == 1) continue;
      const Expr *from = dim_origin(t, d);
      /* a broadcast of a rank-1 operand, the row [1, n], against a rank-2 one gave the columns */
      for (int k = 0; k < 2 && from->kind == E_BINARY && from->ty.rank == 2 && t->ty.rank == 2 && d == 1; k++) {
        const Expr *o = k ? from->u.binary.b : from->u.binary.a;
        if (o->ty.rank == 1 && o->ty.dims[0] == from->ty.dims[1]) from = dim_origin(o, 0);
      }
      const Sym *fy = from->kind == E_IDENT ? from->u.ident.sym : NULL;
      if (fy && fy->decl && fy->ty.rank == 1 && t->ty.rank == 2)
        /* its size reached the columns through a broadcast as a row (xe * c, c a [64]) */
        diag_note(C->d, fy->decl->loc, "'%s' is declared %s here: rank 1, it is the row [1, %d] where it meets a 2-D "
                  "tile, so its %d became columns; as a column, write reshape(%s, [%d, 1])", fy->name,
                  type_str(C, &fy->ty), fy->ty.dims[0], fy->ty.dims[0], fy->name, fy->ty.dims[0]);
      else if (fy && fy->decl && fy->ty.rank > 0)
        diag_note(C->d, fy->decl->loc, "'%s' is declared %s here", fy->name, type_str(C, &fy->ty));
      else if (from->kind == E_IDENT && from->u.ident.sym) /* a const's name: where it sets the size */
        diag_note(C->d, from->loc, "the size %d comes from here ('%s')", a, from->u.ident.sym->name);
      else if (from != t)
        diag_note(C->d, from->loc, "the size %d comes from here", a);
    }
  }
}

/* After a value of a shape the target cannot take (an assignment's): where dim d of the
 * value gets its size. A var declared from a value (no type written) took its shape from
 * it, so the search goes on into that value; a size no operand of the same rank has came
 * from a rank-1 operand, the row [1, n], broadcast against a column: var x = X[0 :+ 128, n]
 * is a [128] (the scalar index drops its dim), and x - mean, with mean [128, 1], is
 * [128, 128], which the error would otherwise show only where it is assigned. */
static void assign_shape_notes(Checker *C, const Expr *rhs, const Type *to) {
  if (rhs->ty.rank != 2 || to->rank != 2) return;
  for (int d = 0; d < 2; d++) {
    if (rhs->ty.dims[d] == to->dims[d] || rhs->ty.dims[d] == 1) continue;
    const Expr *from = dim_origin(rhs, d);
    for (int hops = 0; hops < 8 && from->kind == E_IDENT && from->u.ident.sym; hops++) {
      const Sym *y = from->u.ident.sym;
      const Stmt *st = y->decl;
      if (y->kind != SY_VAR || !st || st->kind != S_VAR || y->ty.rank != 2) break;
      diag_note(C->d, st->loc, "'%s' is declared %s here", y->name, type_str(C, &y->ty));
      if (st->u.decl.type || !st->u.decl.init) return; /* its written type says the shape */
      from = dim_origin(st->u.decl.init, d);
    }
    if (d != 1 || from->ty.rank != 2) return;
    const Expr *ops[3] = {0};
    int n = 0;
    if (from->kind == E_BINARY) ops[n++] = from->u.binary.a, ops[n++] = from->u.binary.b;
    else if (from->kind == E_CALL && from->u.call.cast == T_NONE)
      for (int i = 0; i < from->u.call.nargs && n < 3; i++) ops[n++] = from->u.call.args[i];
    const Expr *row = NULL, *col = NULL;
    for (int i = 0; i < n; i++) {
      if (ops[i]->ty.rank == 1 && ops[i]->ty.dims[0] == from->ty.dims[1]) row = ops[i];
      if (ops[i]->ty.rank == 2 && ops[i]->ty.dims[1] == 1) col = ops[i];
    }
    if (!row || !col) return;
    int m = row->ty.dims[0];
    const char *rn = row->kind == E_IDENT ? arena_printf(C->a, "'%s' (%s)", row->u.ident.name, type_str(C, &row->ty))
                                          : arena_printf(C->a, "this %s", type_str(C, &row->ty));
    const char *cn = col->kind == E_IDENT ? arena_printf(C->a, "'%s' (%s)", col->u.ident.name, type_str(C, &col->ty))
                                          : type_str(C, &col->ty);
    const char *fix = m != from->ty.dims[0] ? "" /* a column of m rows would not broadcast with the other either */
                      : arena_printf(C->a, "; as a column, write reshape(%s, [%d, 1])",
                                     row->kind == E_IDENT ? row->u.ident.name : "..", m);
    const Expr *at = row;
    while (at->kind == E_BINARY) at = at->u.binary.a; /* a binary's loc is its operator's */
    diag_note(C->d, at->loc, "%s is rank 1, the row [1, %d]: against the column %s it broadcasts to [%d, %d]%s", rn, m,
              cn, from->ty.dims[0], m, fix);
    return;
  }
}

/* An integer / or % by the constant 0 (y): undefined in CUDA, an error here as a
 * constant shift count outside the type is. */
static void div_by_zero(Checker *C, const Expr *y, TokenKind op) {
  diag_error(C->d, y->loc, "integer %s by zero", op == TK_PERCENT ? "remainder ('%')" : "division");
  note_const(C, y);
}

static const Expr *under_casts(const Expr *x);

/* Whether a statement of the kernel assigns to (or through a window of) the var named name. */
typedef struct Assigned {
  const char *name;
  bool found;
} Assigned;
static void assigned_stmt(Stmt *s, void *ctx) {
  Assigned *a = ctx;
  if (s->kind != S_ASSIGN) return;
  const Expr *l = s->u.assign.lhs;
  if (l->kind == E_INDEX) l = l->u.index.base;
  if (l->kind == E_IDENT && strcmp(l->u.ident.name, a->name) == 0) a->found = true;
}

/* x through elementwise casts and negation, and through a rank-1 var that nothing
 * assigns after its declaration to the slice it is declared as (var s = S[m0 :+ 64], then
 * X[..] * s): the slice, with *var the var (else NULL). */
static const Expr *slice_of_var(Checker *C, const Expr *x, const Sym **var) {
  x = under_casts(x);
  *var = NULL;
  const Sym *y = x->kind == E_IDENT ? x->u.ident.sym : NULL;
  if (!y || y->kind != SY_VAR || y->ty.rank != 1 || !y->decl || y->decl->kind != S_VAR || !y->decl->u.decl.init ||
      !C->k)
    return x;
  const Expr *init = under_casts(y->decl->u.decl.init);
  if (init->kind != E_INDEX || init->ty.rank != 1) return x;
  Assigned a = {y->name, false};
  facts_walk_stmts(&C->k->body, assigned_stmt, &a);
  if (a.found) return x;
  *var = y;
  return init;
}

/* The note at var's declaration, for a warning about the slice it holds. */
static void var_slice_note(Checker *C, const Sym *var, const Expr *slice) {
  if (var) diag_note(C->d, slice->loc, "'%s' is this slice, declared here", var->name);
}

/* The column slice x is, through elementwise casts and negation: X[a :+ m, j] of a 2-D
 * tensor or tile (a range, then one index), or NULL. */
static const Expr *under_casts(const Expr *x);
static const Expr *column_slice(const Expr *x) {
  x = under_casts(x);
  if (x->kind != E_INDEX || x->u.index.nidx != 2 || !x->u.index.idx[0].len || x->u.index.idx[1].len) return NULL;
  return x;
}

/* A rank-1 column slice against a 2-D tile whose columns it matches: NumPy's rule makes it
 * the row [1, m], so each row of the tile meets the column's m values along it. With a
 * square tile nothing else would say so (a conv's per-channel weights W[d0 :+ 16, 0] times
 * a [16, 16] tile computed the wrong thing silently); with another shape the broadcast
 * fails and its note says the same, and with m columns but not m rows the row is the
 * only reading that broadcasts: no warning. */
static void column_warning(Checker *C, const Expr *r1, const Type *other, Loc at, const char *against) {
  const Sym *var; /* a var declared as the column: said at the use, and noted at its declaration */
  const Expr *c = column_slice(slice_of_var(C, r1, &var));
  int m = r1->ty.dims[0];
  /* rows other than the column's length: as a column it would not broadcast, so the row
   * is what the program can mean (depthwise weights W[c0 :+ 128, j] times a [64, 128] tile) */
  if (!c || other->rank != 2 || other->dims[0] < 2 || other->dims[0] != m) return;
  const Expr *base = c->u.index.base;
  const char *name = base->kind == E_IDENT ? base->u.ident.name : "..";
  if (var)
    diag_warning(C->d, W_COLUMN_ROW, under_casts(r1)->loc, "'%s', a column of '%s', is rank 1, the row [1, %d], %s %s: "
                 "each row of it meets the column's %d values along the row, not one down the rows", var->name, name, m,
                 against, type_str(C, other), m);
  else
    diag_warning(C->d, W_COLUMN_ROW, c->loc, "this column of '%s' is rank 1, the row [1, %d], %s %s: each row of it "
                 "meets the column's %d values along the row, not one down the rows", name, m, against,
                 type_str(C, other), m);
  var_slice_note(C, var, c);
  diag_note(C->d, at, "as a column, slice it with a range: %s[.., j :+ 1] is [%d, 1] (or reshape(.., [%d, 1])); "
            "-Wno-column-as-row keeps the row", name, m, m);
}

/* Through elementwise casts and negation: x's slice, or x. */
static const Expr *under_casts(const Expr *x) {
  while ((x->kind == E_CALL && x->u.call.cast != T_NONE && x->u.call.nargs == 1) ||
         (x->kind == E_UNARY && x->u.unary.op == TK_MINUS))
    x = x->kind == E_CALL ? x->u.call.args[0] : x->u.unary.a;
  return x;
}

/* The start of the first (k 0) or second (k 1) range of slice x, or NULL. */
static const Expr *range_start(const Expr *x, int k) {
  x = under_casts(x);
  if (x->kind != E_INDEX) return NULL;
  for (int i = 0; i < x->u.index.nidx; i++)
    if (x->u.index.idx[i].len && k-- == 0) return x->u.index.idx[i].start;
  return NULL;
}

static bool same_start(const Expr *a, const Expr *b) { return a && b && facts_expr_equal(a, b); }

static void column_as_row(Checker *C, const Expr *e, const Expr *x, const Expr *y) {
  const Expr *r1 = x->ty.rank == 1 ? x : y->ty.rank == 1 ? y : NULL, *r2 = r1 == x ? y : x;
  if (!r1) return;
  const Sym *var;
  const Expr *s = slice_of_var(C, r1, &var);
  if (column_slice(s)) {
    column_warning(C, r1, &r2->ty, e->loc, "against");
    return;
  }
  /* a rank-1 slice starting where the rows of the tile it meets start (S[m0 :+ 64] * X[m0 :+ 64, ..],
     or stored to Y[m0 :+ 64, ..]), not a constant and not where its columns start: a per-row
     scale, written as a row (a GEMM epilogue's row scales silently scaled its columns) */
  if (s->kind != E_INDEX || r2->ty.rank != 2 || r2->ty.dims[0] < 2 || r2->ty.dims[0] != r1->ty.dims[0]) return;
  const Expr *st = range_start(s, 0);
  if (!st || (st->flags & EF_CONST) || range_start(s, 1)) return;
  bool rows = same_start(st, range_start(r2, 0)) || same_start(st, C->rows_at);
  bool cols = same_start(st, range_start(r2, 1)) || same_start(st, C->cols_at);
  if (!rows || cols) return;
  const Expr *base = s->u.index.base;
  const char *name = base->kind == E_IDENT ? base->u.ident.name : "..";
  int m = r1->ty.dims[0];
  if (var) {
    diag_warning(C->d, W_COLUMN_ROW, under_casts(r1)->loc, "'%s', a slice of '%s', starts where the rows do, but as a "
                 "rank-1 tile it is the row [1, %d] against %s: its values run along each row, one per column, not one "
                 "per row", var->name, name, m, type_str(C, &r2->ty));
    var_slice_note(C, var, s);
    diag_note(C->d, e->loc, "for one value per row, declare it as reshape(%s[..], [%d, 1]); -Wno-column-as-row keeps the row",
              name, m);
    return;
  }
  diag_warning(C->d, W_COLUMN_ROW, s->loc, "this slice of '%s' starts where the rows do, but as a rank-1 tile it is the "
               "row [1, %d] against %s: its values run along each row, one per column, not one per row", name, m,
               type_str(C, &r2->ty));
  diag_note(C->d, e->loc, "for one value per row, write reshape(%s[..], [%d, 1]); -Wno-column-as-row keeps the row", name, m);
}

static bool check_binary(Checker *C, Expr *e, int depth) {
  bool okx = check_expr(C, e->u.binary.a, depth + 1);
  bool oky = check_expr(C, e->u.binary.b, depth + 1);
  if (!okx || !oky) return false;
  widen_f8(C, &e->u.binary.a);
  widen_f8(C, &e->u.binary.b);
  Expr *x = e->u.binary.a, *y = e->u.binary.b;
  e->flags |= (x->flags | y->flags) & (EF_TD | EF_TILE | EF_BADCONST);
  Type shape = {0};
  if (!broadcast(C, e->loc, &x->ty, &y->ty, &shape)) {
    /* a rank-1 [N] against [N, C]: meant as a column (NumPy's l[:, None]) */
    const Expr *r1 = x->ty.rank == 1 ? x : y->ty.rank == 1 ? y : NULL, *r2 = r1 == x ? y : x;
    if (r1 && r2->ty.rank == 2 && r1->ty.dims[0] == r2->ty.dims[0] && r1->ty.dims[0] != r2->ty.dims[1]) {
      int n = r1->ty.dims[0];
      diag_note(C->d, e->loc, "a rank-1 %s is the row [1, %d] against a 2-D tile; as a column of %d rows (NumPy's "
                "x[:, None]), write reshape(%s, [%d, 1])", type_str(C, &r1->ty), n, n,
                r1->kind == E_IDENT ? r1->u.ident.name : "..", n);
    }
    shape_notes(C, x, y);
    return false;
  }
  column_as_row(C, e, x, y);
  TokenKind op = e->u.binary.op;
  ElemType el;
  bool untyped;
  if (op == TK_OROR || op == TK_ANDAND) {
    if (x->ty.elem != T_BOOL || y->ty.elem != T_BOOL) {
      diag_error(C->d, e->loc, "'%s' needs bool operands, not %s and %s", token_names[op],
                 type_str(C, &x->ty), type_str(C, &y->ty));
      return false;
    }
    e->ty = shape;
    e->ty.elem = T_BOOL;
    return true;
  }
  /* an operator that takes integers only: a float literal against an integer is written
     as an integer (x % 64, not f32(x) % 64.0) */
  C->int_op = op == TK_PERCENT || op == TK_SHL || op == TK_SHR || op == TK_AND || op == TK_OR || op == TK_XOR ? op : TK_EOF;
  bool unified = unify_elem(C, e->loc, x, y, NULL, &el, &untyped);
  C->int_op = TK_EOF;
  if (!unified) return false;
  bool cmp = is_comparison(op);
  bool intop = op == TK_PERCENT || op == TK_SHL || op == TK_SHR || op == TK_AND ||
               op == TK_OR || op == TK_XOR;
  if (el == T_BOOL && !(op == TK_EQ || op == TK_NE)) {
    diag_error(C->d, e->loc, "'%s' does not apply to bool", token_names[op]);
    return false;
  }
  if (intop && !elem_is_int(el)) {
    diag_error(C->d, e->loc, "'%s' needs integer operands, not %s", token_names[op], elem_names[el]);
    return false;
  }
  if ((op == TK_SHL || op == TK_SHR) && !untyped && (y->flags & EF_CONST) && !y->cv.isf &&
      (y->cv.i < 0 || y->cv.i >= 8 * elem_bytes[el])) {
    diag_error(C->d, y->loc, "shift count %" PRId64 " is outside 0 .. %d for %s", y->cv.i, 8 * elem_bytes[el] - 1,
               elem_names[el]);
    return false;
  }
  if ((op == TK_SLASH || op == TK_PERCENT) && elem_is_int(el) && !(x->flags & EF_CONST) && const_zero(y)) {
    /* (of two constants, fold_binary says it) */
    div_by_zero(C, y, op);
    return false;
  }
  e->ty = shape;
  e->ty.elem = cmp ? T_BOOL : el;
  e->ty.untyped = cmp ? false : untyped;
  if (!cmp) fold_binary(C, e);
  if (untyped && !cmp && !(e->flags & EF_CONST)) e->ty.untyped = true;
  return true;
}

/* Where rank-1 tile x lost a dim: the scalar index of the tensor slice it was read from
 * (X[ctx.block.x, 0 :+ 256]), through vars declared from it (with no written type),
 * casts, pad() and elementwise math; NULL when it is not such a slice. *X is the tensor,
 * *dim the dim dropped (of the slice's scalar indices, the one before the dim kept: a
 * row of it; else the one after it: a column), *via the var it was found through (NULL:
 * x itself). */
static const Expr *dropped_index(const Expr *x, const Sym **X, const Sym **via, int *dim, bool *row) {
  *via = NULL;
  for (int hops = 0; hops < 16; hops++) {
    if (x->ty.rank != 1) return NULL;
    if (x->kind == E_IDENT && x->u.ident.sym && x->u.ident.sym->kind == SY_VAR) {
      const Stmt *st = x->u.ident.sym->decl;
      if (!st || st->kind != S_VAR || st->u.decl.type || !st->u.decl.init) return NULL;
      if (!*via) *via = x->u.ident.sym;
      x = st->u.decl.init;
    } else if (x->kind == E_CALL && x->u.call.nargs >= 1 &&
               (x->u.call.cast != T_NONE || x->u.call.builtin == B_PAD ||
                (x->u.call.builtin >= 0 && builtin_class[x->u.call.builtin] == BC_MATH1))) {
      x = x->u.call.args[0];
    } else if (x->kind == E_BINARY) {
      x = x->u.binary.a->ty.rank == 1 ? x->u.binary.a : x->u.binary.b;
    } else if (x->kind == E_INDEX && x->u.index.base->kind == E_IDENT && x->u.index.base->u.ident.sym &&
               x->u.index.base->u.ident.sym->kind == SY_TENSOR && x->u.index.nidx >= 2) {
      /* the one dim kept; the scalar index before it (a row of it), or after it (a column) */
      int kept = -1, n = x->u.index.nidx;
      for (int d = 0; d < n; d++)
        if (x->u.index.idx[d].len) kept = d;
      int d = kept > 0 ? kept - 1 : kept + 1;
      if (kept < 0 || d >= n || x->u.index.idx[d].len || x->u.index.idx[d].start->ty.rank) return NULL;
      *X = x->u.index.base->u.ident.sym, *dim = d, *row = d < kept;
      return x->u.index.idx[d].start;
    } else return NULL;
  }
  return NULL;
}

static bool need_rank2(Checker *C, Expr *call, Expr *arg) {
  if (arg->ty.rank != 2) {
    diag_error(C->d, arg->loc, "%s() needs a 2-D tile, not %s", call->u.call.name,
               type_str(C, &arg->ty));
    const Sym *X = NULL, *via = NULL;
    int dim = 0;
    bool row = true;
    const Expr *ix = dropped_index(arg, &X, &via, &dim, &row);
    if (ix) {
      Buf t = {0};
      expr_text(&t, ix, false, NULL, NULL);
      diag_note(C->d, ix->loc, "%s%s%s is rank 1: the scalar index %s drops dim %d of '%s'; %s :+ 1 keeps it (a %s of one)",
                via ? "'" : "this slice", via ? via->name : "", via ? "'" : "", t.data, dim, X->name, t.data,
                row ? "row" : "column");
      buf_free(&t);
    }
    return false;
  }
  return true;
}

static bool dot_elem(ElemType t) {
  return t == T_F16 || t == T_BF16 || t == T_F32 || t == T_F64 || t == T_I8 || elem_is_f8(t);
}

/* The fix-it of a dot of two element types: which operand converts. A 16-bit float
 * side wins (f16 x f32: f16(b), a dot on the tensor cores; f16 x i8 or f8: f16(w), a
 * dequantization); else an integer side becomes the float's type, else the narrower
 * side the wider's (the first operand's when they are as wide); never to a type dot
 * does not take (i32 x i8: i8(a)). */
static void dot_convert_note(Checker *C, const Expr *a, const Expr *b) {
  ElemType ta = a->ty.elem, tb = b->ty.elem;
  bool ha = ta == T_F16 || ta == T_BF16, hb = tb == T_F16 || tb == T_BF16;
  bool conv_a;
  if (ha != hb) conv_a = hb;
  else if (elem_is_float(ta) != elem_is_float(tb)) conv_a = !elem_is_float(ta);
  else conv_a = elem_bytes[ta] < elem_bytes[tb];
  if (!dot_elem(conv_a ? tb : ta)) conv_a = !conv_a;
  if (!dot_elem(conv_a ? tb : ta)) return;
  convert_note(C, conv_a ? a : b, conv_a ? tb : ta, "one operand");
}

static bool check_dot(Checker *C, Expr *e) {
  Expr *a = e->u.call.args[0], *b = e->u.call.args[1];
  if (!need_rank2(C, e, a) || !need_rank2(C, e, b)) return false;
  if (a->ty.dims[1] != b->ty.dims[0]) {
    diag_error(C->d, e->loc, "dot: inner dims differ: %s x %s (%d vs %d)", type_str(C, &a->ty),
               type_str(C, &b->ty), a->ty.dims[1], b->ty.dims[0]);
    diag_note(C->d, (Loc){0, 0}, "dot(a, b) takes a: [M, K] and b: [K, N]");
    /* b stored [N, K] (attention's k) or a stored [K, M]: the transpose that fits, written out */
    bool tb = b->ty.dims[1] == a->ty.dims[1], ta = !tb && a->ty.dims[0] == b->ty.dims[0];
    if (tb || ta) {
      /* the operand to flip: transpose(x) of an operand that is transpose(x) already is x */
      const Expr *fa = a, *fb = b;
      bool wa = ta, wb = tb;
      if (ta && a->kind == E_CALL && a->u.call.builtin == B_TRANSPOSE && a->u.call.nargs == 1) fa = a->u.call.args[0], wa = false;
      if (tb && b->kind == E_CALL && b->u.call.builtin == B_TRANSPOSE && b->u.call.nargs == 1) fb = b->u.call.args[0], wb = false;
      Buf x = {0}, y = {0};
      expr_text(&x, fa, false, NULL, NULL);
      expr_text(&y, fb, false, NULL, NULL);
      if (wa || wb)
        diag_note(C->d, (tb ? b : a)->loc, "if %s is stored the other way round, dot(%s%s%s, %s%s%s) fits", tb ? "b" : "a",
                  wa ? "transpose(" : "", x.data, wa ? ")" : "", wb ? "transpose(" : "", y.data, wb ? ")" : "");
      else
        diag_note(C->d, (tb ? b : a)->loc, "without this transpose(), dot(%s, %s) fits", x.data, y.data);
      buf_free(&x);
      buf_free(&y);
    }
    return false;
  }
  if (a->ty.elem != b->ty.elem) {
    diag_error(C->d, e->loc, "dot: operands have different element types %s and %s",
               elem_names[a->ty.elem], elem_names[b->ty.elem]);
    dot_convert_note(C, a, b);
    return false;
  }
  ElemType acc;
  switch (a->ty.elem) {
  case T_F16: case T_BF16: case T_F32: case T_F8E4M3: case T_F8E5M2: acc = T_F32; break;
  case T_F64: acc = T_F64; break;
  case T_I8: acc = T_I32; break;
  default:
    diag_error(C->d, e->loc, "dot takes f16, bf16, f32, f64, i8, f8e4m3 or f8e5m2 operands, not %s",
               elem_names[a->ty.elem]);
    return false;
  }
  e->ty = (Type){acc, 2, {a->ty.dims[0], b->ty.dims[1]}, false};
  return true;
}

static bool is_tensor_slice(const Expr *x) {
  return x->kind == E_INDEX && x->u.index.base->kind == E_IDENT && x->u.index.base->u.ident.sym &&
         x->u.index.base->u.ident.sym->kind == SY_TENSOR;
}

/* pad() of a reshaped or transposed slice (pad(reshape(M[0 :+ 128], [128, 1]), 1.0),
 * a padded column): pad reads the elements of a slice past its tensor, so it takes
 * the slice itself, and as it keeps the slice's shape it goes inside the reshape. */
static void pad_inside_note(Checker *C, const Expr *pad) {
  const Expr *x = pad->u.call.args[0];
  if (x->kind != E_CALL || (x->u.call.builtin != B_RESHAPE && x->u.call.builtin != B_TRANSPOSE) ||
      !is_tensor_slice(x->u.call.args[0]))
    return;
  Buf fix = {0};
  buf_printf(&fix, "%s(pad(", x->u.call.name);
  expr_text(&fix, x->u.call.args[0], false, NULL, NULL);
  buf_puts(&fix, ", ");
  expr_text(&fix, pad->u.call.args[1], false, NULL, NULL);
  buf_puts(&fix, x->u.call.nargs > 1 ? "), " : ")");
  expr_args_text(&fix, x, 1, NULL, NULL);
  buf_puts(&fix, ")");
  diag_note(C->d, (Loc){0, 0}, "pad the slice, then %s it: %s", x->u.call.name, fix.data);
  buf_free(&fix);
}

static bool const_dim(Checker *C, Expr *x, const char *what, int *out) {
  int64_t v;
  if (x->flags & EF_BADCONST) return false; /* already reported */
  if (!check_const_int(x, &v)) {
    diag_error(C->d, x->loc, "%s must be a constant integer", what);
    if (x->flags & EF_CONST) note_const(C, x); /* a float const: where its value is set */
    return false;
  }
  if (v < 1) {
    diag_error(C->d, x->loc, "%s must be at least 1, not %" PRId64, what, v);
    note_const(C, x);
    return false;
  }
  if (v > MAX_DIM) {
    diag_error(C->d, x->loc, "%s must be at most %d, not %" PRId64, what, MAX_DIM, v);
    note_const(C, x);
    return false;
  }
  *out = (int)v;
  return true;
}

static bool check_tile_numel(Checker *C, Loc loc, const Type *t) {
  if (type_numel(t) > MAX_TILE_ELEMS) {
    diag_error(C->d, loc, "%s has %" PRId64 " elements; the limit is %d", type_str(C, t),
               type_numel(t), MAX_TILE_ELEMS);
    return false;
  }
  return true;
}

/* rand/randn/randint(seed, off): seed an i64 or i32 scalar (the Philox key), off
 * an i32 or u32 scalar or tile (the first counter word); one number per element of off. */
static bool check_random(Checker *C, Expr *e, BuiltinKind b) {
  Expr *seed = e->u.call.args[0], *off = e->u.call.args[1];
  bool ok = true;
  if (seed->ty.rank != 0 || (seed->ty.elem != T_I64 && seed->ty.elem != T_I32)) {
    diag_error(C->d, seed->loc, "%s() seed must be an i64 or i32 scalar, not %s", builtin_names[b],
               type_str(C, &seed->ty));
    ok = false;
  }
  if (off->ty.elem != T_I32 && off->ty.elem != T_U32) {
    diag_error(C->d, off->loc, "%s() offset must be i32 or u32 (a scalar or a tile), not %s", builtin_names[b],
               type_str(C, &off->ty));
    if (elem_is_int(off->ty.elem))
      diag_note(C->d, off->loc, "the offset is one 32-bit word of the Philox counter; convert it explicitly, e.g. i32(...)");
    ok = false;
  }
  if (!ok) return false;
  e->ty = off->ty;
  e->ty.elem = b == B_RANDINT ? T_U32 : T_F32;
  e->ty.untyped = false;
  return true;
}

/* cumsum(t) and cumsum(t, axis) (cumprod, cummax): axis 1, the default, runs
 * along each row, axis 0 down each column, as NumPy's; a rank-1 tile has one
 * axis, 0, and its scan runs along it. The result has t's type. */
static bool check_scan(Checker *C, Expr *e, BuiltinKind b) {
  Expr **args = e->u.call.args;
  if (args[0]->ty.rank == 0 || !is_numeric(args[0]->ty.elem)) {
    diag_error(C->d, args[0]->loc, "%s() needs a tile of numbers, not %s", builtin_names[b], type_str(C, &args[0]->ty));
    return false;
  }
  if (e->u.call.nargs == 2) {
    Expr *a = args[1];
    int64_t ax = -1;
    if (a->flags & EF_BADCONST) return false; /* already reported */
    if (a->ty.rank != 0 || !elem_is_int(a->ty.elem) || !check_const_int(a, &ax) || (ax != 0 && ax != 1)) {
      diag_error(C->d, a->loc, "the axis of %s() must be the constant 0 (down each column) or 1 (along each row)",
                 builtin_names[b]);
      return false;
    }
    if (args[0]->ty.rank == 1 && ax != 0) {
      diag_error(C->d, a->loc, "a rank-1 tile has one axis, 0: %s(t) runs along it", builtin_names[b]);
      return false;
    }
  }
  e->ty = args[0]->ty;
  settle(e);
  return true;
}

static bool check_builtin(Checker *C, Expr *e, BuiltinKind b) {
  Expr **args = e->u.call.args;
  BuiltinClass bc = builtin_class[b];
  if (bc == BC_MATH1 || bc == BC_MATH2 || bc == BC_RED || bc == BC_ARG || bc == BC_SCAN || bc == BC_SUM)
    for (int i = 0; i < e->u.call.nargs && (i == 0 || bc == BC_MATH2); i++) widen_f8(C, &args[i]);
  switch (bc) {
  case BC_MATH1:
    if ((b == B_SIN || b == B_COS) && C->ki) C->ki->trig = true;
    if (!elem_is_float(args[0]->ty.elem) && !(b == B_ABS && elem_is_int(args[0]->ty.elem))) {
      diag_error(C->d, e->loc, "%s() needs a float operand, not %s", builtin_names[b],
                 type_str(C, &args[0]->ty));
      return false;
    }
    e->ty = args[0]->ty;
    settle(e);
    return true;
  case BC_MATH2: {
    ElemType el;
    bool untyped;
    Type shape = {0};
    if (!broadcast(C, e->loc, &args[0]->ty, &args[1]->ty, &shape)) {
      shape_notes(C, args[0], args[1]);
      return false;
    }
    if (!unify_elem(C, e->loc, args[0], args[1], NULL, &el, &untyped)) return false;
    if (!is_numeric(el)) {
      diag_error(C->d, e->loc, "%s() needs numbers", builtin_names[b]);
      return false;
    }
    e->ty = shape;
    e->ty.elem = el;
    e->ty.untyped = untyped; /* min(-0.75, 0.625) takes its context's type, as a literal and where() do */
    return true;
  }
  case BC_RED:
    if (!need_rank2(C, e, args[0])) return false;
    if (!is_numeric(args[0]->ty.elem)) {
      diag_error(C->d, e->loc, "%s() needs numbers, not %s", builtin_names[b], type_str(C, &args[0]->ty));
      return false;
    }
    e->ty = args[0]->ty;
    settle(e);
    if (b == B_ROWSUM || b == B_ROWMAX || b == B_ROWMIN) e->ty.dims[1] = 1;
    else e->ty.dims[0] = 1;
    return true;
  case BC_ARG:
    if (!need_rank2(C, e, args[0])) return false;
    if (!is_numeric(args[0]->ty.elem)) {
      diag_error(C->d, e->loc, "%s() needs numbers, not %s", builtin_names[b], type_str(C, &args[0]->ty));
      return false;
    }
    e->ty = (Type){T_I32, 2, {args[0]->ty.dims[0], args[0]->ty.dims[1]}, false};
    if (b == B_ROWARGMAX || b == B_ROWARGMIN) e->ty.dims[1] = 1;
    else e->ty.dims[0] = 1;
    return true;
  case BC_SCAN: return check_scan(C, e, b);
  case BC_SUM:
    if (args[0]->ty.rank == 0 || !is_numeric(args[0]->ty.elem)) {
      diag_error(C->d, e->loc, "sum() needs a tile of numbers, not %s", type_str(C, &args[0]->ty));
      return false;
    }
    e->ty = (Type){args[0]->ty.elem, 0, {0, 0}, false};
    return true;
  case BC_RANDOM: return check_random(C, e, b);
  case BC_OTHER: break;
  }
  switch (b) {
  case B_WHERE: {
    if (args[0]->ty.elem != T_BOOL) {
      diag_error(C->d, args[0]->loc, "where() needs a bool condition, not %s", type_str(C, &args[0]->ty));
      return false;
    }
    Type s1 = {0}, s2 = {0};
    ElemType el;
    bool untyped;
    if (!broadcast(C, e->loc, &args[0]->ty, &args[1]->ty, &s1)) {
      shape_notes(C, args[0], args[1]);
      return false;
    }
    s1.elem = T_BOOL;
    if (!broadcast(C, e->loc, &s1, &args[2]->ty, &s2)) {
      shape_notes(C, args[0], args[2]);
      shape_notes(C, args[1], args[2]);
      return false;
    }
    if (!unify_elem(C, e->loc, args[1], args[2], NULL, &el, &untyped)) return false;
    e->ty = s2;
    e->ty.elem = el;
    e->ty.untyped = untyped;
    return true;
  }
  case B_CDIV:
    for (int i = 0; i < 2; i++)
      if (args[i]->ty.rank != 0 || !elem_is_int(args[i]->ty.elem)) {
        diag_error(C->d, args[i]->loc, "cdiv() takes integer scalars, not %s", type_str(C, &args[i]->ty));
        return false;
      }
    e->ty = SCALAR_I32;
    /* a constant divisor is checked whatever a is: cdiv(M, 0) in @grid would divide
       by zero on the host, in a kernel on the GPU */
    if ((args[1]->flags & EF_CONST) && args[1]->cv.i <= 0) {
      diag_error(C->d, args[1]->loc, "cdiv() by a non-positive constant (%" PRId64 ")", args[1]->cv.i);
      note_const(C, args[1]);
      return false;
    }
    if ((args[0]->flags & args[1]->flags & EF_CONST))
      set_const_int(e, (args[0]->cv.i + args[1]->cv.i - 1) / args[1]->cv.i);
    return true;
  case B_ROWS:
  case B_COLS: {
    int m, n;
    const char *what = b == B_ROWS ? "a dim of rows()" : "a dim of cols()";
    if (!const_dim(C, args[0], what, &m) || !const_dim(C, args[1], what, &n))
      return false;
    e->ty = (Type){T_I32, 2, {m, n}, false};
    e->flags |= EF_TILE;
    return check_tile_numel(C, e->loc, &e->ty);
  }
  case B_DOT: return check_dot(C, e);
  case B_ATOMIC_ADD: case B_ATOMIC_MAX: case B_ATOMIC_MIN:
    diag_error(C->d, e->loc, "%s() is a statement: it updates a tensor and gives no value", builtin_names[b]);
    return false;
  case B_TRANSPOSE:
    if (!need_rank2(C, e, args[0])) return false;
    e->ty = args[0]->ty;
    e->ty.dims[0] = args[0]->ty.dims[1];
    e->ty.dims[1] = args[0]->ty.dims[0];
    return true;
  case B_PAD: {
    if (!is_tensor_slice(args[0]) || args[0]->ty.rank == 0) {
      diag_error(C->d, args[0]->loc, "pad() takes a tensor slice such as X[0 :+ 16, k :+ 64]");
      pad_inside_note(C, e);
      return false;
    }
    Expr *v = args[1];
    if (v->ty.rank != 0) {
      diag_error(C->d, v->loc, "pad() value must be a scalar");
      return false;
    }
    ElemType el;
    bool untyped;
    if (!unify_elem(C, v->loc, args[0], v, args[0], &el, &untyped)) return false; /* the value converts */
    e->ty = args[0]->ty;
    return true;
  }
  default: unreachable();
  }
}

/* reshape(t, [a, b]) (or [n]): the same elements, row-major, in another shape. */
static bool check_reshape(Checker *C, Expr *e, int depth) {
  Expr **args = e->u.call.args;
  int n = e->u.call.nargs, at = e->u.call.shape_at;
  if (at != 1 || n < 2 || n > 3) {
    diag_error(C->d, e->u.call.name_loc, "reshape() takes a tile and a shape list: reshape(t, [a, b]) or reshape(t, [n])");
    return false;
  }
  if (!check_expr(C, args[0], depth + 1)) return false;
  e->flags |= args[0]->flags & (EF_TD | EF_TILE);
  if (args[0]->ty.rank == 0) {
    diag_error(C->d, args[0]->loc, "reshape() takes a tile, not %s", type_str(C, &args[0]->ty));
    return false;
  }
  Type t = {args[0]->ty.elem, n - 1, {1, 1}, args[0]->ty.untyped};
  for (int i = 1; i < n; i++) {
    if (!check_expr(C, args[i], depth + 1) || !const_dim(C, args[i], "a dim of reshape()", &t.dims[i - 1])) return false;
  }
  if (type_numel(&t) != type_numel(&args[0]->ty)) {
    diag_error(C->d, e->loc, "reshape to a different element count: %s has %" PRId64 " elements, %s has %" PRId64,
               type_str(C, &args[0]->ty), type_numel(&args[0]->ty), type_str(C, &t), type_numel(&t));
    return false;
  }
  e->ty = t;
  e->flags |= EF_TILE;
  return true;
}

/* Levenshtein distance of a and b, stopping past 3 (names longer than 31 are not compared). */
static int name_distance(const char *a, const char *b) {
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 31 || lb > 31 || abs(la - lb) > 3) return 4;
  int d[32][32];
  for (int i = 0; i <= la; i++) d[i][0] = i;
  for (int j = 0; j <= lb; j++) d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int c = d[i - 1][j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
      d[i][j] = c;
    }
  return d[la][lb];
}

/* After "unknown function": what the language has instead. The usual names of CUDA's
 * and NumPy's (expf, pow, fmaxf, mean) and of activations (silu, relu, gelu) get their
 * spelling here; another name, the built-in or type name nearest to it (at most 2 edits,
 * 1 for names of 3 letters or fewer). */
static void unknown_function_note(Checker *C, const char *n) {
  static const char *const said[][2] = {
      {"pow", "there is no pow(): x * x for a square, exp2(y * log2(x)) for x > 0"},
      {"powf", "there is no pow(): x * x for a square, exp2(y * log2(x)) for x > 0"},
      {"silu", "silu(x) is x * sigmoid(x)"},
      {"swish", "swish(x) (silu) is x * sigmoid(x)"},
      {"relu", "relu(x) is max(x, 0.0)"},
      {"gelu", "gelu(x), the tanh form, is 0.5 * x * (1.0 + tanh(0.7978845608 * (x + 0.044715 * x * x * x)))"},
      {"softplus", "softplus(x) is log(1.0 + exp(x))"},
      {"mean", "a row's mean is rowsum(x) / n (f32(n) for an integer n)"},
      {"fabs", "abs(x)"}, {"fabsf", "abs(x)"}, {"fmax", "max(a, b)"}, {"fmaxf", "max(a, b)"},
      {"fmin", "min(a, b)"}, {"fminf", "min(a, b)"}, {"argmax", "rowargmax(x) or colargmax(x)"},
      {"argmin", "rowargmin(x) or colargmin(x)"}, {"softmax", "softmax is written out, along each row of a tile: e = exp(x - rowmax(x)), then e / rowsum(e)"},
  };
  for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
    if (strcmp(n, said[i][0]) == 0) {
      diag_note(C->d, (Loc){0, 0}, "%s", said[i][1]);
      return;
    }
  size_t len = strlen(n);
  if (len > 1 && n[len - 1] == 'f') { /* CUDA's float names: expf, sqrtf, tanhf */
    char base[32];
    if (len - 1 < sizeof base) {
      memcpy(base, n, len - 1);
      base[len - 1] = 0;
      if (builtin_lookup(base) >= 0) {
        diag_note(C->d, (Loc){0, 0}, "did you mean '%s'? Each built-in takes any float type", base);
        return;
      }
    }
  }
  const char *best = NULL;
  int bd = len <= 3 ? 2 : 3;
  for (int i = 0; i < B_COUNT; i++) {
    int d = name_distance(n, builtin_names[i]);
    if (d < bd) bd = d, best = builtin_names[i];
  }
  for (int t = 0; t < T_COUNT; t++) {
    int d = elem_names[t] ? name_distance(n, elem_names[t]) : 4;
    if (d < bd) bd = d, best = elem_names[t];
  }
  if (best) diag_note(C->d, (Loc){0, 0}, "did you mean '%s'?", best);
}

static bool check_call(Checker *C, Expr *e, int depth) {
  const char *n = e->u.call.name;
  int b = builtin_lookup(n);
  int cast = elem_lookup(n, (int)strlen(n));
  e->u.call.builtin = b;
  e->u.call.cast = cast >= 0 ? (ElemType)cast : T_NONE;
  if (b < 0 && cast < 0) {
    Sym *y = lookup(C, n);
    if (y) diag_error(C->d, e->u.call.name_loc, "'%s' is not a function", n);
    else {
      diag_error(C->d, e->u.call.name_loc, "unknown function '%s'", n);
      unknown_function_note(C, n);
    }
    return false;
  }
  if (e->u.call.shape_at < e->u.call.nargs && b != B_RESHAPE) {
    diag_error(C->d, e->u.call.args[e->u.call.shape_at]->loc, "only reshape() takes a list [a, b]");
    return false;
  }
  if (b == B_RESHAPE) return check_reshape(C, e, depth);
  int want = b >= 0 ? builtin_nargs[b] : 1;
  if (want < 0 && e->u.call.nargs != 1 && e->u.call.nargs != 2) { /* a scan: the axis is optional */
    diag_error(C->d, e->u.call.name_loc, "%s() takes 1 or 2 arguments, not %d", n, e->u.call.nargs);
    return false;
  }
  if (want >= 0 && e->u.call.nargs != want) {
    diag_error(C->d, e->u.call.name_loc, "%s() takes %d argument%s, not %d", n, want,
               want == 1 ? "" : "s", e->u.call.nargs);
    /* Triton's reductions spelt as they are there (tl.max(x, 1), tl.sum(x, 0)) */
    if ((b == B_MAX || b == B_MIN) && e->u.call.nargs == 1)
      diag_note(C->d, (Loc){0, 0}, "%s(a, b) is elementwise; a reduction is row%s(x) (each row's, [R, 1]) or col%s(x) "
                "(each column's, [1, C]), of a rank-2 tile (a rank-1 one as reshape(x, [1, N]))", n, n, n);
    if (b == B_SUM && e->u.call.nargs == 2)
      diag_note(C->d, (Loc){0, 0}, "sum(x) adds every element; along a dim: rowsum(x) (dim 1: each row's, [R, 1]) "
                "or colsum(x) (dim 0: each column's, [1, C])");
    return false;
  }
  bool ok = true;
  const Expr *padded = C->padded;
  for (int i = 0; i < e->u.call.nargs; i++) {
    C->padded = b == B_PAD && i == 0 ? e->u.call.args[0] : padded;
    ok &= check_expr(C, e->u.call.args[i], depth + 1);
    e->flags |= e->u.call.args[i]->flags & (EF_TD | EF_TILE);
  }
  C->padded = padded;
  if (!ok) return false;
  if (cast >= 0) {
    Expr *x = e->u.call.args[0];
    e->ty = x->ty;
    e->ty.elem = (ElemType)cast;
    e->ty.untyped = false;
    /* (an f8 constant is not folded: its value is the rounded one, which the
     * conversion computes where it runs) */
    if ((x->flags & EF_CONST) && !elem_is_f8((ElemType)cast)) {
      if (elem_is_float((ElemType)cast)) set_const_float(e, x->cv.f);
      else if (!x->cv.isf) set_const_int(e, x->cv.i);
    }
    return true;
  }
  if (!check_builtin(C, e, (BuiltinKind)b)) return false;
  if (b == B_SUM) e->flags |= EF_TILE;
  return true;
}

/* Broadcasts the shape *g of a gather's tile indices so far (the first of them,
 * `first`, when it is one) with index ix. An error names the indices' own types; a
 * rank-1 index meeting a rank-2 one is a row [1, n], so where the first dims agree
 * a column was likely meant: the note says reshape(.., [n, 1]). */
static bool gather_shape(Checker *C, const Expr *first, const Expr *ix, Type *g) {
  Type so_far = *g, out = {0};
  so_far.elem = first->ty.elem;
  if (!broadcast(C, ix->loc, &so_far, &ix->ty, &out)) {
    const Expr *r1 = so_far.rank == 1 && ix->ty.rank == 2 ? first : so_far.rank == 2 && ix->ty.rank == 1 ? ix : NULL;
    const Type *r2 = r1 == first ? &ix->ty : &so_far;
    if (r1 && r1->ty.dims[0] == r2->dims[0]) {
      const char *n = r1->kind == E_IDENT ? r1->u.ident.name : "..";
      diag_note(C->d, r1->loc, "a rank-1 index is a row [1, %d] against a 2-D one; as a column, write reshape(%s, [%d, 1])",
                r1->ty.dims[0], n, r1->ty.dims[0]);
    } else if (first != ix) {
      shape_notes(C, first, ix); /* where the sizes that differ come from (var r = m0 + cols(1, BM)) */
    }
    return false;
  }
  out.elem = g->elem;
  *g = out;
  return true;
}

/* A slice among a gather's tile indices (E[I[0 :+ 16], 0 :+ 64]): the caret under the
 * first slice, and a note that spells it as the gather's form of a run. In the last
 * dim the run goes along the result's rows, cols(R, n) against indices of R rows (g,
 * their shape; a rank-1 one made a column); in another it goes down the columns,
 * rows(n, 1), a column that broadcasts with indices of n rows or one (a rank-1 one
 * is a row): Y[0 :+ 4, cols(4, 64) ^ 1] is Y[rows(4, 1), cols(4, 64) ^ 1]. */
static void gather_slice_error(Checker *C, const Expr *e, const Expr *first, const Type *g) {
  const Index *ix = e->u.index.idx;
  while (!ix->len) ix++;
  bool last = ix == &e->u.index.idx[e->u.index.nidx - 1];
  const Expr *s = ix->start, *left = s;
  while (left->kind == E_BINARY) left = left->u.binary.a; /* a binary's loc is its operator's */
  diag_error(C->d, left->loc, "a %s takes tile or scalar indices only, not slices (a :+ n)",
             e == C->target ? "scatter" : "gather");
  char n[48] = "n", at[64] = ""; /* the length as written: it is not checked yet */
  if (ix->len->kind == E_INT) snprintf(n, sizeof n, "%" PRId64, ix->len->u.ival);
  else if (ix->len->kind == E_IDENT) snprintf(n, sizeof n, "%.40s", ix->len->u.ident.name);
  if (s->flags & EF_CONST) {
    if (s->cv.isf || s->cv.i != 0) snprintf(at, sizeof at, "%" PRId64 " + ", s->cv.i);
  } else
    snprintf(at, sizeof at, "%.40s + ", s->kind == E_IDENT ? s->u.ident.name : "a");
  int r = g->dims[0];
  if (!last) {
    char idx[64];
    if (g->rank == 2) snprintf(idx, sizeof idx, "the [%d, %d] indices", r, g->dims[1]);
    else snprintf(idx, sizeof idx, "the [%d] index (a row [1, %d])", r, r);
    if (g->rank == 1 || r == 1 || ix->len->kind != E_INT || ix->len->u.ival == r)
      diag_note(C->d, (Loc){0, 0}, "%s elements of this dim down the rows are %srows(%s, 1), a [%s, 1] column that "
                "broadcasts with %s", n, at, n, n, idx);
    else
      diag_note(C->d, (Loc){0, 0}, "%s elements of this dim down the rows are %srows(%s, 1), a [%s, 1] column; %s "
                "need %s rows or 1 to broadcast with it", n, at, n, n, idx, n);
  } else if (g->rank == 2)
    diag_note(C->d, (Loc){0, 0}, "%s elements of this dim in each of the %d rows of the indices are %scols(%d, %s)", n, r,
              at, r, n);
  else /* a rank-1 index is a row: as the rows of the result it is a column */
    diag_note(C->d, (Loc){0, 0}, "%s elements of this dim in each of %d rows are %scols(%d, %s), with the [%d] index "
              "made a column: reshape(%s, [%d, 1])", n, r, at, r, n, r, first->kind == E_IDENT ? first->u.ident.name : "..",
              r);
}

/* A constant slice or index of a tensor that reaches outside a constant dim. What
 * is outside reads 0 (pad()'s value) and is not stored, as for any index, so it
 * translates: a warning. Wholly outside, the access does nothing (a slip of a
 * constant, which of a tile var is an error); partly, a read pads the tile with
 * zeros, meant where pad() says so. */
static void tensor_outside(Checker *C, const Expr *e, const Sym *X) {
  bool store = e == C->target, pad = e == C->padded;
  for (int i = 0; i < e->u.index.nidx; i++) {
    const Index *ix = &e->u.index.idx[i];
    int64_t s, n = 1, D = X->tdim_const[i];
    if (X->tdim_size[i] || D < 1 /* rejected at the parameter */ || !check_const_int(ix->start, &s) ||
        (ix->len && !check_const_int(ix->len, &n)))
      continue;
    if (s >= 0 && s + n <= D) continue;
    const char *what = ix->len ? arena_printf(C->a, "slice %" PRId64 " :+ %" PRId64, s, n)
                               : arena_printf(C->a, "index %" PRId64, s);
    if (s >= D || s + n <= 0) {
      diag_warning(C->d, W_OUTSIDE, ix->start->loc, "%s is outside dim %d of '%s' (size %" PRId64 "): %s", what, i,
                   X->name, D, store ? "nothing is stored" : pad ? "it reads only pad()'s value"
                                     : ix->len ? "it reads only zeros" : "it reads 0");
      continue;
    }
    if (pad && !store) continue;
    const char *lo = s < 0 ? arena_printf(C->a, "%" PRId64 " .. -1", s) : NULL;
    const char *hi = s + n > D ? arena_printf(C->a, "%" PRId64 " .. %" PRId64, D, s + n - 1) : NULL;
    diag_warning(C->d, W_OUTSIDE, ix->start->loc, "%s %s dim %d of '%s' (size %" PRId64 "): elements %s%s%s %s",
                 what, lo && hi ? "reaches outside both ends of" : lo ? "starts before" : "reaches past", i, X->name, D, lo ? lo : "",
                 lo && hi ? " and " : "", hi ? hi : "", store ? "are not stored" : "read 0");
    if (!store) diag_note(C->d, (Loc){0, 0}, "pad(%s[...], v) reads them as v, and says they are meant", X->name);
  }
}

/* A tile index (x[rows(4, 64), cols(4, 64) ^ 1]) of tile var y: a gather or scatter,
 * which only a tensor has (its elements are in memory, a tile's in other threads'
 * registers). Said once, at the first such index, with what to do instead. */
static void tile_gather_error(Checker *C, const Expr *e, const Sym *y, const Expr *ix) {
  bool store = e == C->target;
  while (ix->kind == E_BINARY) ix = ix->u.binary.a; /* a binary's loc is its operator's */
  diag_error(C->d, ix->loc, "a %s %s tensors only, and '%s' is a tile var (%s): a tile's indices are integer "
             "scalars or slices", store ? "scatter" : "gather", store ? "writes" : "reads", y->name, type_str(C, &y->ty));
  if (store)
    diag_note(C->d, (Loc){0, 0}, "scatter into a tensor instead, such as the one the tile is stored to");
  else
    diag_note(C->d, (Loc){0, 0}, "gather from the tensor the tile was loaded from, or store the tile to a tensor "
              "and gather from that");
}

/* The name a hoisted value goes by in messages: its call as written when that
 * fits on its line (colmax(len)), else the call's name (colmax(...)), a slice's
 * tensor or var (X[...]), or (...); never an identifier, so no name of the
 * kernel's can clash with it. */
static const char *hoist_name(Checker *C, const Expr *base) {
  const char *fn = base->kind == E_CALL ? base->u.call.name : NULL, *name = fn ? arena_printf(C->a, "%s(...)", fn)
                                                                           : "(...)";
  if (base->kind == E_INDEX && base->u.index.base->kind == E_IDENT) /* X[0 :+ 8, 0 :+ 8][1, 2] */
    name = arena_printf(C->a, "%s[...]", base->u.index.base->u.ident.name);
  Buf line = {0};
  diag_source_line(C->d, base->loc.line, &line);
  size_t at = (size_t)base->loc.col - 1, n = fn ? strlen(fn) : 0, end = at + n;
  if (fn && end < line.len && strncmp(line.data + at, fn, n) == 0 && line.data[end] == '(') {
    int open = 0;
    for (; end < line.len; end++) {
      open += line.data[end] == '(' ? 1 : line.data[end] == ')' ? -1 : 0;
      if (open == 0) break;
    }
    if (end < line.len && end + 1 - at <= 40) name = arena_printf(C->a, "%.*s", (int)(end + 1 - at), line.data + at);
  }
  buf_free(&line);
  const char *unique = name;
  for (int k = 2; lookup(C, unique); k++) unique = arena_printf(C->a, "%s #%d", name, k);
  return unique;
}

/* e indexes a value that is no name (colmax(len)[0, 0], rowsum(x)[0 :+ 4, 0]): a
 * tile value becomes a var of its own, declared in a statement before the one being
 * checked (check_block puts it there), and e indexes that var, as if the user had
 * written `var m = colmax(len)` first. Values are pure, so computing it first changes
 * nothing; a while condition, which is computed again for each iteration, cannot. */
static bool hoist_index(Checker *C, Expr *e, int depth) {
  Expr *base = e->u.index.base;
  if (e == C->target) {
    diag_error(C->d, e->loc, "cannot assign to an element of a computed value; only tensors and tile vars can be "
               "written");
    return false;
  }
  if (!C->hoist_ok) {
    diag_error(C->d, e->loc, "only tensors and tile vars can be indexed %s", C->no_hoist ? C->no_hoist : "here");
    diag_note(C->d, (Loc){0, 0}, "%s", C->no_hoist ? "assign the value to a var before the loop and again at the end "
              "of its body, and index the var" : "assign the value to a var first, and index the var");
    return false;
  }
  ElemType want = C->want;
  bool sub = C->subscript;
  C->want = T_NONE, C->subscript = false; /* the value is a var's: nothing outside it types it */
  bool ok = check_expr(C, base, depth + 1);
  C->want = want, C->subscript = sub;
  if (!ok) return false;
  if (base->ty.rank == 0) {
    const Expr *left = base;
    while (left->kind == E_BINARY) left = left->u.binary.a; /* a binary's loc is its operator's */
    diag_error(C->d, left->loc, "only tensors and tiles can be indexed, and this value is %s", type_str(C, &base->ty));
    return false;
  }
  Type t = base->ty;
  if (t.untyped && !(t.untyped = false, literal_fits(C, base, t.elem))) return false;
  Stmt *s = NEW(C->a, Stmt);
  s->kind = S_VAR;
  s->loc = base->loc;
  s->line_end = base->loc.line;
  s->u.decl.name = hoist_name(C, base);
  s->u.decl.name_loc = base->loc;
  s->u.decl.init = base;
  Sym *y = declare(C, SY_VAR, s->u.decl.name, base->loc);
  if (!y) return false; /* (hoist_name's name is new: never so) */
  y->decl = s;
  const char *stem = base->kind == E_CALL ? base->u.call.name
                     : base->kind == E_INDEX && base->u.index.base->kind == E_IDENT ? base->u.index.base->u.ident.name
                     : NULL;
  y->cname = make_cname(C, stem ? arena_printf(C->a, "%s_val", stem) : "val");
  y->ty = t;
  y->place = PL_SHARED;
  vec_push(C->a, &C->ki->tiles, y);
  s->u.decl.sym = y;
  vec_push(C->a, &C->hoisted, s);
  Expr *id = NEW(C->a, Expr);
  id->kind = E_IDENT;
  id->loc = base->loc;
  id->u.ident.name = s->u.decl.name;
  e->u.index.base = id;
  return true;
}

/* X[i, a :+ m, ...] on a tensor or t[i, a :+ m] on a tile. */
static bool check_index(Checker *C, Expr *e, int depth) {
  if (e->u.index.base->kind != E_IDENT && !hoist_index(C, e, depth)) return false;
  Expr *base = e->u.index.base;
  Sym *y = lookup(C, base->u.ident.name);
  if (y && y->kind == SY_VAR && y->ty.elem == T_NONE) return false; /* its declaration failed */
  if (y && y->kind == SY_TENSOR && y->trank == 0) return false;     /* its type was rejected */
  if (!y || (y->kind != SY_TENSOR && !(y->kind == SY_VAR && y->ty.rank > 0))) {
    if (!y) undeclared(C, base->loc, base->u.ident.name);
    else diag_error(C->d, base->loc, "'%s' is %s, not a tensor or a tile, so it cannot be indexed", y->name,
                    y->kind == SY_VAR ? "a scalar var" : y->kind == SY_LOOP ? "a loop variable"
                    : y->kind == SY_CONST ? "a const" : y->kind == SY_SIZE ? "a size" : "a scalar parameter");
    return false;
  }
  base->u.ident.sym = y;
  y->used = true;
  y->reads++;
  int rank = y->kind == SY_TENSOR ? y->trank : y->ty.rank;
  if (e->u.index.nidx != rank) {
    diag_error(C->d, e->loc, "'%s' has %d dim%s but %d index%s given", y->name, rank,
               rank == 1 ? "" : "s", e->u.index.nidx, e->u.index.nidx == 1 ? " is" : "es are");
    return false;
  }
  bool ok = true;
  Type t = {y->ty.elem, 0, {0, 0}, false};
  /* a gather: a tensor indexed by integer tiles (and scalars), one element per
   * element of the indices' broadcast shape */
  bool gather = false, ranged = false, bad[4] = {false}; /* a tensor has rank 1 to 4 */
  const Expr *first = NULL; /* the first tile index */
  Type g = {y->ty.elem, 0, {0, 0}, false};
  for (int i = 0; i < e->u.index.nidx; i++) {
    Index *ix = &e->u.index.idx[i];
    if (y->kind != SY_TENSOR) continue;
    if (!check_subscript(C, ix->start, depth + 1)) {
      bad[i] = true;
      continue;
    }
    ranged |= ix->len != NULL;
    if (ix->start->ty.rank == 0) continue;
    if (!elem_is_int(ix->start->ty.elem) || ix->start->ty.elem == T_BOOL) {
      const Expr *left = ix->start;
      while (left->kind == E_BINARY) left = left->u.binary.a; /* a binary's loc is its operator's */
      diag_error(C->d, left->loc, "a %s index must be an integer tile, not %s", e == C->target ? "scatter" : "gather",
                 type_str(C, &ix->start->ty));
      return false;
    }
    if (gather && !gather_shape(C, first, ix->start, &g)) return false;
    if (!gather) g.rank = ix->start->ty.rank, memcpy(g.dims, ix->start->ty.dims, sizeof g.dims), first = ix->start;
    gather = true;
  }
  if (gather) {
    if (ranged) {
      gather_slice_error(C, e, first, &g);
      return false;
    }
    /* a gather's scalar indices are integers, as a slice's are (the loop below, which a
     * gather skips): an f32 one reached nvcc as a pointer offset */
    for (int i = 0; i < e->u.index.nidx; i++) {
      const Expr *s = e->u.index.idx[i].start;
      if (bad[i]) { ok = false; continue; } /* its check failed above, and said so */
      if (s->ty.rank == 0 && !elem_is_int(s->ty.elem)) {
        diag_error(C->d, s->loc, "an index must be an integer scalar, not %s", type_str(C, &s->ty));
        ok = false;
      }
    }
    if (!ok) return false;
    for (int i = 0; i < e->u.index.nidx; i++) e->flags |= e->u.index.idx[i].start->flags & (EF_TD | EF_TILE);
    e->flags |= EF_TILE;
    e->ty = g;
    return check_tile_numel(C, e->loc, &e->ty);
  }
  bool tile_said = false; /* a tile var's tile index: said once, at the first */
  for (int i = 0; i < e->u.index.nidx; i++) {
    Index *ix = &e->u.index.idx[i];
    if (y->kind != SY_TENSOR && !check_subscript(C, ix->start, depth + 1)) { ok = false; continue; }
    if (y->kind == SY_TENSOR && bad[i]) { ok = false; continue; } /* its check failed above */
    e->flags |= ix->start->flags & (EF_TD | EF_TILE);
    if (y->kind == SY_VAR && ix->start->ty.rank != 0) {
      ok = false;
      if (!tile_said) tile_gather_error(C, e, y, ix->start);
      tile_said = true;
      continue;
    }
    if (ix->start->ty.rank != 0 || !elem_is_int(ix->start->ty.elem)) {
      diag_error(C->d, ix->start->loc, "an index must be an integer scalar, not %s",
                 type_str(C, &ix->start->ty));
      ok = false;
      continue;
    }
    if (!ix->len) {
      /* an element of a tile var at a constant index: inside the tile, as a slice's is */
      if (y->kind == SY_VAR && (ix->start->flags & EF_CONST) && i < y->ty.rank &&
          (ix->start->cv.i < 0 || ix->start->cv.i >= y->ty.dims[i])) {
        diag_error(C->d, ix->start->loc, "index %" PRId64 " is outside dim %d of %s (size %d)", ix->start->cv.i, i,
                   y->name, y->ty.dims[i]);
        ok = false;
      }
      continue;
    }
    if (!check_subscript(C, ix->len, depth + 1)) { ok = false; continue; }
    int len;
    if (!const_dim(C, ix->len, "a slice length", &len)) { ok = false; continue; }
    if (t.rank == 2) {
      diag_error(C->d, ix->start->loc, "a slice keeps at most 2 dims (a tile has rank 1 or 2)");
      ok = false;
      continue;
    }
    t.dims[t.rank++] = len;
    if (y->kind == SY_VAR && (ix->start->flags & EF_CONST)) {
      int64_t s = ix->start->cv.i;
      if (s < 0 || s + len > y->ty.dims[i]) {
        diag_error(C->d, ix->start->loc, "slice %" PRId64 " :+ %d is outside dim %d of %s (size %d)",
                   s, len, i, y->name, y->ty.dims[i]);
        ok = false;
      }
    }
  }
  if (!ok) return false;
  if (y->kind == SY_TENSOR) tensor_outside(C, e, y);
  if (y->kind == SY_VAR) e->flags |= EF_TILE;
  if (t.rank > 0) e->flags |= EF_TILE;
  e->ty = t;
  return check_tile_numel(C, e->loc, &e->ty);
}

bool check_is_gather(const Expr *x) {
  if (x->kind != E_INDEX || x->u.index.base->kind != E_IDENT || !x->u.index.base->u.ident.sym ||
      x->u.index.base->u.ident.sym->kind != SY_TENSOR)
    return false;
  for (int i = 0; i < x->u.index.nidx; i++)
    if (x->u.index.idx[i].start->ty.rank > 0) return true;
  return false;
}

static bool check_node(Checker *C, Expr *e, int depth);

/* Checks e; the target type C->want (and C->subscript) reaches the operands whose value
 * becomes e's, not a subscript, a cast's operand or a comparison's. */
static bool check_expr(Checker *C, Expr *e, int depth) {
  ElemType want = C->want;
  bool subscript = C->subscript;
  if (e->kind == E_INDEX || (e->kind == E_BINARY && is_comparison(e->u.binary.op)) ||
      (e->kind == E_CALL && elem_lookup(e->u.call.name, (int)strlen(e->u.call.name)) >= 0)) {
    C->want = T_NONE;
    C->subscript = false;
  }
  bool ok = check_node(C, e, depth);
  C->want = want;
  C->subscript = subscript;
  return ok;
}

/* check_expr of an index or a slice's start or length. */
static bool check_subscript(Checker *C, Expr *e, int depth) {
  bool subscript = C->subscript;
  C->subscript = true;
  bool ok = check_expr(C, e, depth);
  C->subscript = subscript;
  return ok;
}

/* check_expr of a value assigned to a target of element type want. */
static bool check_value(Checker *C, Expr *e, ElemType want) {
  C->want = want;
  bool ok = check_expr(C, e, 0);
  C->want = T_NONE;
  return ok;
}

static bool check_node(Checker *C, Expr *e, int depth) {
  if (depth > MAX_EXPR_DEPTH) {
    if (!C->deep_reported)
      diag_error(C->d, e->loc, "expression is nested too deeply (limit %d levels, each operator of a chain counting one)",
                 MAX_EXPR_DEPTH);
    C->deep_reported = true;
    return false;
  }
  switch (e->kind) {
  case E_INT:
    e->ty = (Type){T_I32, 0, {0, 0}, true};
    set_const_int(e, e->u.ival);
    return true;
  case E_FLOAT:
    e->ty = (Type){T_F32, 0, {0, 0}, true};
    set_const_float(e, e->u.fval);
    return true;
  case E_BOOL:
    e->ty = SCALAR_BOOL;
    return true;
  case E_IDENT: return check_ident(C, e);
  case E_MEMBER: return check_member(C, e, depth);
  case E_UNARY: return check_unary(C, e, depth);
  case E_BINARY: return check_binary(C, e, depth);
  case E_CALL: return check_call(C, e, depth);
  case E_INDEX: return check_index(C, e, depth);
  case E_CTX:
  case E_INF: return true; /* already checked (re-walk) */
  }
  unreachable();
}

/* The name of e's built-in when it is a sum or product (a reduction or scan that
 * accumulates) whose result would go to a wider type of the same kind `to`: its
 * operand is what to convert; NULL otherwise (a max or min loses nothing either way). */
static const char *widened_sum(const Expr *e, ElemType to) {
  if (e->kind != E_CALL || e->u.call.cast != T_NONE || e->u.call.nargs < 1) return NULL;
  int b = e->u.call.builtin;
  if (b != B_ROWSUM && b != B_COLSUM && b != B_SUM && b != B_CUMSUM && b != B_CUMPROD) return NULL;
  ElemType from = e->ty.elem;
  bool same_kind = (elem_is_float(from) && elem_is_float(to)) || (elem_is_int(from) && elem_is_int(to));
  return same_kind && elem_bytes[to] > elem_bytes[from] ? builtin_names[b] : NULL;
}

/* Checks that a value of type `from` can be assigned to a target of type `to`. */
static bool check_assignable(Checker *C, Loc loc, Expr *rhs, const Type *to, const char *what) {
  const Type *from = &rhs->ty;
  if (from->untyped) {
    if (from->elem == T_F32 && !elem_is_float(to->elem)) {
      diag_error(C->d, loc, "a float value cannot be assigned to %s %s", what, type_str(C, to));
      note_const(C, rhs);
      return false;
    }
    if (to->elem == T_BOOL) {
      diag_error(C->d, loc, "a number cannot be assigned to %s %s", what, type_str(C, to));
      return false;
    }
    if (!literal_fits(C, rhs, to->elem)) return false;
  } else if (from->elem != to->elem) {
    diag_error(C->d, loc, "cannot assign %s to %s %s", type_str(C, from), what, type_str(C, to));
    const char *fix = conversion_fix(C, rhs, to->elem);
    if (fix) /* to(sum(x)) would round the sum to x's type: accumulate in the wider one (and the like) */
      diag_note(C->d, loc, "%s", fix);
    else if (rhs->kind == E_CALL && rhs->u.call.cast == T_NONE && rhs->u.call.builtin == B_DOT)
      /* acc += f16(dot(a, b)) would round every step's sum to the narrow type, off the
         accumulator the matrix unit keeps, and f32(dot(..)) of i8 converts each step's i32
         sum: the target is what should change */
      diag_note(C->d, loc, "a dot accumulates in %s: declare the target %s and convert it once where it is stored "
                "(%s(dot(...)) would %s)", elem_names[from->elem], elem_names[from->elem], elem_names[to->elem],
                elem_bytes[to->elem] < elem_bytes[from->elem] && elem_is_float(to->elem)
                    ? arena_printf(C->a, "round each partial sum to %s", elem_names[to->elem])
                    : "convert each k step's sum, off the matrix unit's accumulator");
    else diag_note(C->d, loc, "convert explicitly, e.g. %s(...)", elem_names[to->elem]);
    return false;
  }
  if (from->rank == 0) return true;
  /* ranks mix as NumPy's: [M, 1] or [1, M] into a rank-1 [M] (the unit dim drops) */
  if (from->rank == 2 && to->rank == 1 && (from->dims[0] == 1 || from->dims[1] == 1)) {
    int m = from->dims[0] == 1 ? from->dims[1] : from->dims[0];
    if (m == to->dims[0] || m == 1) return true;
  }
  /* and a rank-1 [N] into a rank-2 target is the row [1, N], broadcast down the rows */
  if (from->rank == 1 && to->rank == 2) {
    if (from->dims[0] == to->dims[1] || from->dims[0] == 1) {
      if (from->dims[0] > 1) column_warning(C, rhs, to, loc, "copied down each row of");
      return true;
    }
    diag_error(C->d, loc, "cannot assign %s to %s %s: as the row [1, %d] it has %d columns, not %d", type_str(C, from),
               what, type_str(C, to), from->dims[0], from->dims[0], to->dims[1]);
    return false;
  }
  if (from->rank != to->rank) {
    diag_error(C->d, loc, "cannot assign %s to %s %s", type_str(C, from), what, type_str(C, to));
    if (from->rank == 2 && to->rank == 1 && from->dims[0] == to->dims[0]) {
      /* [M, C] into [M]: what takes [M, 1] (a column, as the unit dim drops) says where C came from */
      Type col = {to->elem, 2, {to->dims[0], 1}, false};
      assign_shape_notes(C, rhs, &col);
    }
    return false;
  }
  for (int i = 0; i < to->rank; i++)
    if (from->dims[i] != to->dims[i] && from->dims[i] != 1) {
      diag_error(C->d, loc, "cannot assign %s to %s %s: the shapes differ", type_str(C, from),
                 what, type_str(C, to));
      assign_shape_notes(C, rhs, to);
      return false;
    }
  return true;
}

/* ------------------------------------------------------------ types in declarations */

static bool check_tile_type(Checker *C, TypeRef *tr, Type *out) {
  out->elem = tr->elem;
  out->untyped = false;
  if (tr->kind == TR_SCALAR) {
    out->rank = 0;
    return true;
  }
  if (tr->kind == TR_TENSOR) {
    diag_error(C->d, tr->loc, "tensor types are for kernel parameters only");
    return false;
  }
  if (tr->ndims < 1 || tr->ndims > 2) {
    diag_error(C->d, tr->loc, "a tile has 1 or 2 dims, not %d", tr->ndims);
    return false;
  }
  out->rank = tr->ndims;
  for (int i = 0; i < tr->ndims; i++) {
    if (!check_expr(C, tr->dims[i], 0)) return false;
    if (!const_dim(C, tr->dims[i], "a tile dim", &out->dims[i])) return false;
  }
  return check_tile_numel(C, tr->loc, out);
}

/* ------------------------------------------------------------ statements */

static void check_block(Checker *C, Block *b, int depth);

/* The S_VARs hoist_index made since mark, taken off C->hoisted. */
static Stmt **take_hoisted(Checker *C, int mark, int *n) {
  *n = C->hoisted.len - mark;
  Stmt **v = NEW_ARRAY(C->a, Stmt *, *n > 0 ? *n : 1);
  for (int i = 0; i < *n; i++) v[i] = C->hoisted.items[mark + i];
  C->hoisted.len = mark;
  return v;
}

static void check_for_attrs(Checker *C, Stmt *s) {
  Attr *seen[A_COUNT] = {0};
  for (int i = 0; i < s->nattrs; i++) {
    Attr *at = s->attrs[i];
    if (at->kind == A_UNKNOWN) {
      diag_error(C->d, at->loc, "unknown attribute @%s", at->name);
      diag_note(C->d, (Loc){0, 0}, "loop attributes: @pipeline @unroll; kernel attributes: @launch @registers @grid @assume @strided");
      continue;
    }
    if (s->kind != S_FOR || attr_where[at->kind] != AW_FOR) {
      diag_error(C->d, at->loc, "@%s does not belong here; %s", at->name,
                 attr_where[at->kind] == AW_FOR ? "it goes on a for loop"
                                                : "it goes before a kernel");
      continue;
    }
    if (seen[at->kind]) {
      diag_error(C->d, at->loc, "@%s is given twice", at->name);
      diag_note(C->d, seen[at->kind]->loc, "first given here");
      continue;
    }
    seen[at->kind] = at;
    int maxargs = 1, minargs = at->kind == A_PIPELINE ? 1 : 0;
    if (at->nargs < minargs || at->nargs > maxargs) {
      diag_error(C->d, at->loc, "@%s takes %s, not %d argument%s", at->name,
                 at->kind == A_PIPELINE ? "one argument, the number of stages" : "no argument or one unroll factor",
                 at->nargs, at->nargs == 1 ? "" : "s");
      continue;
    }
    if (at->nargs == 1) {
      int v;
      if (check_expr(C, at->args[0], 0) &&
          const_dim(C, at->args[0], at->kind == A_PIPELINE ? "the number of @pipeline stages" : "the @unroll factor", &v) &&
          at->kind == A_PIPELINE && v > 8)
        diag_error(C->d, at->args[0]->loc, "@pipeline(%d): at most 8 stages are supported", v);
    }
  }
}

static void check_var(Checker *C, Stmt *s) {
  Type t = {T_NONE, 0, {0, 0}, false};
  bool ok = true;
  if (s->u.decl.type) ok = check_tile_type(C, s->u.decl.type, &t);
  if (s->u.decl.init) {
    if (!check_value(C, s->u.decl.init, s->u.decl.type && ok ? t.elem : T_NONE)) ok = false;
    else if (s->u.decl.type && ok) ok = check_assignable(C, s->u.decl.init->loc, s->u.decl.init, &t, "a var of type");
    else if (!s->u.decl.type) {
      t = s->u.decl.init->ty;
      if (t.untyped) t.untyped = false, ok = literal_fits(C, s->u.decl.init, t.elem); /* default: i32 or f32 */
    }
  } else if (!s->u.decl.type) {
    diag_error(C->d, s->u.decl.name_loc, "var '%s' needs a type or an initial value", s->u.decl.name);
    ok = false;
  }
  Sym *y = declare(C, SY_VAR, s->u.decl.name, s->u.decl.name_loc);
  if (!y) return;
  y->decl = s;
  y->cname = make_cname(C, y->name);
  s->u.decl.sym = y;
  if (!ok) return; /* y->ty.elem stays T_NONE: later uses stay quiet */
  y->ty = t;
  if (t.rank > 0) {
    y->place = PL_SHARED;
    vec_push(C->a, &C->ki->tiles, y);
  }
}

static void check_const_stmt(Checker *C, Stmt *s) {
  Expr *x = s->u.decl.init;
  int before = C->d->errors;
  bool ok = check_expr(C, x, 0);
  if (ok && !(x->flags & EF_CONST) && C->d->errors == before) {
    diag_error(C->d, x->loc, "const '%s' needs a constant value", s->u.decl.name);
    ok = false;
  }
  Sym *y = declare(C, SY_CONST, s->u.decl.name, s->u.decl.name_loc);
  if (!y) return;
  y->decl = s;
  s->u.decl.sym = y;
  if (!ok) {
    y->ival = 1; /* keep later uses quiet */
    return;
  }
  y->const_float = x->cv.isf;
  y->ival = x->cv.i;
  y->fval = x->cv.f;
}

static bool check_lhs(Checker *C, Stmt *s) {
  Expr *l = s->u.assign.lhs;
  if (l->kind == E_IDENT) {
    Sym *y = lookup(C, l->u.ident.name);
    if (y && y->kind != SY_VAR) {
      static const char *what[] = {"a const", "a tensor; store to a slice of it", "a scalar parameter",
                                   "a size", "", "a loop variable"};
      diag_error(C->d, l->loc, "cannot assign to '%s': it is %s", y->name, what[y->kind]);
      return false;
    }
    if (!check_expr(C, l, 0)) return false;
    if (s->u.assign.op == TK_ASSIGN) l->u.ident.sym->reads--; /* written, not read (+= reads it) */
    return true;
  }
  if (l->kind == E_INDEX) {
    C->target = l;
    bool ok = check_expr(C, l, 0);
    C->target = NULL;
    if (!ok) return false;
    Sym *y = l->u.index.base->u.ident.sym;
    if (y->kind == SY_TENSOR) y->written = true;
    if (y->kind == SY_VAR && s->u.assign.op == TK_ASSIGN) y->reads--; /* a window written */
    return true;
  }
  if (l->kind == E_MEMBER) {
    diag_error(C->d, l->loc, "cannot assign to a field of ctx: ctx is read-only");
    return false;
  }
  if (l->kind == E_CALL) {
    diag_error(C->d, l->loc, "cannot assign to the result of %s()", l->u.call.name);
    return false;
  }
  diag_error(C->d, l->loc, "cannot assign to this expression; only vars, tile slices and tensor slices can be assigned");
  return false;
}

static void check_assign(Checker *C, Stmt *s) {
  bool okl = check_lhs(C, s);
  /* the target's first row and column, for -Wcolumn-as-row's per-row slices */
  const Expr *lhs = s->u.assign.lhs;
  bool two = okl && lhs->ty.rank == 2 && lhs->kind == E_INDEX;
  C->rows_at = two ? range_start(lhs, 0) : NULL;
  C->cols_at = two ? range_start(lhs, 1) : NULL;
  bool okr = check_value(C, s->u.assign.rhs, okl ? s->u.assign.lhs->ty.elem : T_NONE);
  C->rows_at = C->cols_at = NULL;
  if (!okl || !okr) return;
  Expr *l = s->u.assign.lhs, *r = s->u.assign.rhs;
  if (s->u.assign.op != TK_ASSIGN && !is_numeric(l->ty.elem)) {
    diag_error(C->d, s->loc, "'%s' needs a number, not %s", token_names[s->u.assign.op], type_str(C, &l->ty));
    return;
  }
  if (s->u.assign.op != TK_ASSIGN && elem_is_f8(l->ty.elem) && !s->u.assign.atomic) { /* (an atomic: check_atomic) */
    char op[3] = {token_names[s->u.assign.op][0], 0, 0};
    diag_error(C->d, s->loc, "'%s' on %s: f8 values are storage, and their arithmetic is in f32",
               token_names[s->u.assign.op], type_str(C, &l->ty));
    /* the fix-it names the statement's own target (q, X[0 :+ 128]), written twice */
    Buf t = {0};
    expr_text(&t, l, false, NULL, NULL);
    diag_note(C->d, s->loc, "convert the result back: %s = %s(%s %s ...)", t.data, elem_names[l->ty.elem], t.data, op);
    buf_free(&t);
    return;
  }
  if (s->u.assign.op == TK_DIV_ASSIGN && elem_is_int(l->ty.elem) && const_zero(r)) {
    div_by_zero(C, r, TK_SLASH);
    return;
  }
  bool ok = check_assignable(C, r->loc, r, &l->ty, "a target of type");
  if (!ok && l->kind == E_INDEX && l->ty.rank == 0 && r->ty.rank > 0 && r->ty.dims[0] == 1 &&
      (r->ty.rank == 1 || r->ty.dims[1] == 1) && l->u.index.base->u.ident.sym &&
      l->u.index.base->u.ident.sym->kind == SY_TENSOR)
    diag_note(C->d, l->loc, "a tile of one element is stored through a slice of one: %s[.. :+ 1] (the last index as "
                            "start :+ 1)", l->u.index.base->u.ident.name);
  const Sym *ly = l->kind == E_IDENT ? l->u.ident.sym : NULL;
  if (!ok && ly && ly->kind == SY_VAR && l->ty.rank == 0 && r->ty.rank > 0 && ly->decl && ly->decl->kind == S_VAR) {
    /* a scalar var given a tile (var m = -inf, later m = max(m, rowmax(x))): declare its type */
    const Stmt *d = ly->decl;
    Buf t = {0};
    if (d->u.decl.init) expr_text(&t, d->u.decl.init, false, NULL, NULL);
    diag_note(C->d, d->u.decl.name_loc, "'%s' is declared here as a scalar (%s); a var that holds a tile is declared with "
              "its type: var %s: %s%s%s", ly->name, type_str(C, &l->ty), ly->name, type_str(C, &r->ty), t.len ? " = " : "",
              t.len ? t.data : "");
    buf_free(&t);
    return;
  }
  if (!ok && l->kind == E_IDENT && l->u.ident.sym &&
      l->ty.elem != r->ty.elem && !r->ty.untyped) {
    /* a var typed by its initial literal (var t = 0.0: f32) meeting a value of another type */
    const Sym *y = l->u.ident.sym;
    const Stmt *d = y->decl;
    if (y->kind == SY_VAR && d && d->kind == S_VAR && !d->u.decl.type && d->u.decl.init && d->u.decl.init->ty.untyped)
      diag_note(C->d, d->u.decl.name_loc, "'%s' is %s because its initial value is a literal; declare it as var %s: %s = ...",
                y->name, elem_names[l->ty.elem], y->name, type_str(C, &(Type){r->ty.elem, l->ty.rank,
                                                                               {l->ty.dims[0], l->ty.dims[1]}, false}));
  }
}

/* atomic_add(X[...], v), atomic_max, atomic_min: checked as the store X[...] += v
 * (max, min: X[...] = v), which the statement becomes, each element of the
 * target then updated atomically; the target is a tensor slice or element. */
static void check_atomic(Checker *C, Stmt *s, BuiltinKind b) {
  Expr *x = s->u.expr;
  const char *n = builtin_names[b];
  if (x->u.call.nargs != 2) {
    diag_error(C->d, x->u.call.name_loc, "%s() takes 2 arguments, a tensor slice or element and a value, not %d", n,
               x->u.call.nargs);
    return;
  }
  Expr *t = x->u.call.args[0], *v = x->u.call.args[1];
  Sym *X = t->kind == E_INDEX && t->u.index.base->kind == E_IDENT ? lookup(C, t->u.index.base->u.ident.name) : NULL;
  if (!X || X->kind != SY_TENSOR) {
    diag_error(C->d, t->loc, "%s() updates a tensor slice or element, such as H[i] or X[r :+ 8, 0 :+ 64]", n);
    return;
  }
  s->kind = S_ASSIGN;
  s->u.assign.lhs = t;
  s->u.assign.rhs = v;
  s->u.assign.op = b == B_ATOMIC_ADD ? TK_ADD_ASSIGN : TK_ASSIGN;
  s->u.assign.atomic = b;
  int errors = C->d->errors;
  check_assign(C, s);
  ElemType e = t->ty.elem;
  if (C->d->errors > errors || e == T_NONE || v->ty.elem == T_NONE) return; /* reported (maybe earlier) */
  int sm = b == B_ATOMIC_ADD && e == T_F16 ? 70 : b == B_ATOMIC_ADD && e == T_BF16 ? 80 : 0;
  if (sm && C->t->sm < sm)
    diag_error(C->d, x->u.call.name_loc, "%s() of %s elements needs sm_%d or later; the target is %s", n,
               elem_names[e], sm, C->t->name);
  else if (!sm && e != T_I32 && e != T_U32 && e != T_I64 && e != T_F32 && e != T_F64)
    diag_error(C->d, x->u.call.name_loc, "%s() of %s elements: there is no such atomic (%s takes i32, u32, i64, f32, f64%s)",
               n, elem_names[e], n, b == B_ATOMIC_ADD ? ", and f16 and bf16" : "");
}

static void check_for(Checker *C, Stmt *s, int depth) {
  Expr *ends[3] = {s->u.forr.lo, s->u.forr.hi, s->u.forr.step};
  for (int i = 0; i < 3; i++) {
    if (!ends[i] || !check_expr(C, ends[i], 0)) continue;
    if (ends[i]->ty.rank != 0 || !elem_is_int(ends[i]->ty.elem) || ends[i]->ty.elem == T_I64) {
      diag_error(C->d, ends[i]->loc, "range() takes i32 bounds, not %s", type_str(C, &ends[i]->ty));
      continue;
    }
  }
  if (s->u.forr.step && (s->u.forr.step->flags & EF_CONST) && !s->u.forr.step->cv.isf &&
      s->u.forr.step->cv.i <= 0)
    diag_error(C->d, s->u.forr.step->loc, "range() step must be positive, not %" PRId64,
               s->u.forr.step->cv.i);
  check_for_attrs(C, s);
  Scope sc;
  push_scope(C, &sc);
  Sym *y = declare(C, SY_LOOP, s->u.forr.var, s->u.forr.var_loc);
  if (y) {
    y->ty = SCALAR_I32;
    y->decl = s;
    y->cname = make_cname(C, y->name);
    s->u.forr.sym = y;
  }
  C->loops++;
  check_block(C, &s->u.forr.body, depth + 1);
  C->loops--;
  pop_scope(C);
}

static void check_cond(Checker *C, Expr *cond, const char *what) {
  if (!check_expr(C, cond, 0)) return;
  if (cond->ty.elem != T_BOOL || cond->ty.rank != 0)
    diag_error(C->d, cond->loc, "the condition of %s must be a bool scalar, not %s", what,
               type_str(C, &cond->ty));
}

static void check_stmt(Checker *C, Stmt *s, int depth) {
  C->deep_reported = false;
  if (depth > MAX_NEST) {
    diag_error(C->d, s->loc, "statements are nested too deeply (limit %d)", MAX_NEST);
    return;
  }
  if (s->kind != S_FOR && s->nattrs) check_for_attrs(C, s);
  switch (s->kind) {
  case S_CONST: check_const_stmt(C, s); return;
  case S_VAR: check_var(C, s); return;
  case S_ASSIGN: check_assign(C, s); return;
  case S_FOR: check_for(C, s, depth); return;
  case S_IF: {
    check_cond(C, s->u.iff.cond, "if");
    Scope sc;
    push_scope(C, &sc);
    check_block(C, &s->u.iff.then, depth + 1);
    pop_scope(C);
    if (s->u.iff.els) {
      push_scope(C, &sc);
      int mark = C->hoisted.len, n;
      check_stmt(C, s->u.iff.els, depth + 1);
      Stmt **v = take_hoisted(C, mark, &n);
      if (n > 0) { /* of an else if's condition: into a block of the else, so only it computes them */
        Stmt *blk = NEW(C->a, Stmt);
        blk->kind = S_BLOCK;
        blk->loc = s->u.iff.els->loc;
        blk->line_end = s->u.iff.els->line_end;
        blk->u.block.stmts = NEW_ARRAY(C->a, Stmt *, n + 1);
        memcpy(blk->u.block.stmts, v, sizeof *v * (size_t)n);
        blk->u.block.stmts[n] = s->u.iff.els;
        blk->u.block.nstmts = n + 1;
        blk->u.block.rbrace = s->u.iff.els->u.iff.then.rbrace;
        s->u.iff.els = blk;
      }
      pop_scope(C);
    }
    return;
  }
  case S_WHILE: {
    bool h = C->hoist_ok;
    C->hoist_ok = false, C->no_hoist = "in a while condition, which is computed again for each iteration";
    check_cond(C, s->u.whil.cond, "while");
    C->hoist_ok = h, C->no_hoist = NULL;
    Scope sc;
    push_scope(C, &sc);
    C->loops++;
    check_block(C, &s->u.whil.body, depth + 1);
    C->loops--;
    pop_scope(C);
    return;
  }
  case S_BREAK:
  case S_CONTINUE:
    if (C->loops == 0)
      diag_error(C->d, s->loc, "'%s' outside a loop", s->kind == S_BREAK ? "break" : "continue");
    return;
  case S_BLOCK: {
    Scope sc;
    push_scope(C, &sc);
    check_block(C, &s->u.block, depth + 1);
    pop_scope(C);
    return;
  }
  case S_EXPR:
    if (s->u.expr->kind == E_CALL) {
      int b = builtin_lookup(s->u.expr->u.call.name);
      if (b == B_ATOMIC_ADD || b == B_ATOMIC_MAX || b == B_ATOMIC_MIN) {
        check_atomic(C, s, (BuiltinKind)b);
        return;
      }
    }
    if (check_expr(C, s->u.expr, 0))
      diag_error(C->d, s->loc, "the value of this expression is unused; did you mean an assignment?");
    return;
  }
}

static void check_block(Checker *C, Block *b, int depth) {
  for (int i = 0; i < b->nstmts; i++) {
    int mark = C->hoisted.len, n;
    bool h = C->hoist_ok;
    C->hoist_ok = true;
    check_stmt(C, b->stmts[i], depth);
    C->hoist_ok = h;
    Stmt **v = take_hoisted(C, mark, &n);
    if (n == 0) continue;
    /* the values it indexes are declared before it, in the order they were met */
    Stmt **all = NEW_ARRAY(C->a, Stmt *, b->nstmts + n);
    memcpy(all, b->stmts, sizeof *all * (size_t)i);
    memcpy(all + i, v, sizeof *all * (size_t)n);
    memcpy(all + i + n, b->stmts + i, sizeof *all * (size_t)(b->nstmts - i));
    b->stmts = all;
    b->nstmts += n;
    i += n;
  }
}

/* ------------------------------------------------------------ kernel attributes */

static Attr *find_attr(Kernel *k, AttrKind kind) {
  for (int i = 0; i < k->nattrs; i++)
    if (k->attrs[i]->kind == kind) return k->attrs[i];
  return NULL;
}

static bool attr_nargs(Checker *C, Attr *at, int lo, int hi, const char *form) {
  if (at->nargs >= lo && at->nargs <= hi) return true;
  diag_error(C->d, at->loc, "@%s takes %s, not %d argument%s", at->name, form, at->nargs,
             at->nargs == 1 ? "" : "s");
  return false;
}

/* Unknown, repeated and misplaced kernel attributes. */
static void check_kernel_attr_list(Checker *C, Kernel *k) {
  Attr *seen[A_COUNT] = {0};
  for (int i = 0; i < k->nattrs; i++) {
    Attr *at = k->attrs[i];
    if (at->kind == A_UNKNOWN) {
      diag_error(C->d, at->loc, "unknown attribute @%s", at->name);
      diag_note(C->d, (Loc){0, 0}, "kernel attributes: @launch @registers @grid @assume @strided; loop attributes: @pipeline @unroll");
      continue;
    }
    if (attr_where[at->kind] != AW_KERNEL) {
      diag_error(C->d, at->loc, "@%s does not belong on a kernel; it goes on a for loop", at->name);
      at->kind = A_UNKNOWN;
      continue;
    }
    if (seen[at->kind]) {
      diag_error(C->d, at->loc, "@%s is given twice", at->name);
      diag_note(C->d, seen[at->kind]->loc, "first given here");
      at->kind = A_UNKNOWN;
      continue;
    }
    seen[at->kind] = at;
  }
}

static void check_launch(Checker *C, Kernel *k) {
  C->ki->threads = 128;
  Attr *at = find_attr(k, A_LAUNCH);
  C->launch_bad = at != NULL; /* until its thread count is taken */
  if (!at || !attr_nargs(C, at, 1, 2, "(threads) or (threads, min_blocks)")) return;
  int v;
  C->attr = "launch";
  if (check_expr(C, at->args[0], 0) && const_dim(C, at->args[0], "@launch threads", &v)) {
    if (v % C->t->lanes != 0)
      diag_error(C->d, at->args[0]->loc, "@launch(%d): threads must be a multiple of ctx.lanes (%d on %s)", v,
                 C->t->lanes, C->t->name);
    else if (v > C->t->max_threads)
      diag_error(C->d, at->args[0]->loc, "@launch(%d): %s allows at most %d threads per block", v, C->t->name,
                 C->t->max_threads);
    else {
      C->ki->threads = v;
      C->launch_bad = false;
    }
  }
  if (at->nargs == 2 && check_expr(C, at->args[1], 0) &&
      const_dim(C, at->args[1], "@launch min_blocks", &v)) {
    if (v > C->t->max_blocks_per_sm)
      diag_error(C->d, at->args[1]->loc, "@launch min_blocks %d is more than the %d blocks an SM of %s holds",
                 v, C->t->max_blocks_per_sm, C->t->name);
    else
      C->ki->min_blocks = v;
  }
  C->attr = NULL;
}

/* Collects the tile vars named `name` anywhere in the kernel. */
static int find_tiles(Checker *C, const char *name, Sym **out, int max) {
  int n = 0;
  for (int i = 0; i < C->ki->tiles.len && n < max; i++) {
    Sym *y = C->ki->tiles.items[i];
    if (strcmp(y->name, name) == 0) out[n++] = y;
  }
  return n;
}

static Sym *find_var_any(Checker *C, Block *b, const char *name);

static Sym *find_var_stmt(Checker *C, Stmt *s, const char *name) {
  switch (s->kind) {
  case S_VAR: return s->u.decl.sym && strcmp(s->u.decl.name, name) == 0 ? s->u.decl.sym : NULL;
  case S_FOR: return find_var_any(C, &s->u.forr.body, name);
  case S_WHILE: return find_var_any(C, &s->u.whil.body, name);
  case S_BLOCK: return find_var_any(C, &s->u.block, name);
  case S_IF: {
    Sym *y = find_var_any(C, &s->u.iff.then, name);
    return y ? y : s->u.iff.els ? find_var_stmt(C, s->u.iff.els, name) : NULL;
  }
  default: return NULL;
  }
}

static Sym *find_var_any(Checker *C, Block *b, const char *name) {
  for (int i = 0; i < b->nstmts; i++) {
    Sym *y = find_var_stmt(C, b->stmts[i], name);
    if (y) return y;
  }
  return NULL;
}

/* Whether x calls dot. */
static bool calls_dot(const Expr *x) {
  if (!x) return false;
  switch (x->kind) {
  case E_CALL:
    if (x->u.call.builtin == (int)B_DOT) return true;
    for (int i = 0; i < x->u.call.nargs; i++)
      if (calls_dot(x->u.call.args[i])) return true;
    return false;
  case E_UNARY: return calls_dot(x->u.unary.a);
  case E_BINARY: return calls_dot(x->u.binary.a) || calls_dot(x->u.binary.b);
  default: return false;
  }
}

/* Whether a statement of b (or inside one) assigns to the var named n a value that calls
 * dot (acc += dot(a, b)): a dot's accumulator. */
static bool dot_accumulates(const Block *b, const char *n) {
  for (int i = 0; i < b->nstmts; i++) {
    const Stmt *st = b->stmts[i];
    switch (st->kind) {
    case S_ASSIGN:
      if (st->u.assign.lhs->kind == E_IDENT && strcmp(st->u.assign.lhs->u.ident.name, n) == 0 &&
          calls_dot(st->u.assign.rhs))
        return true;
      break;
    case S_FOR: if (dot_accumulates(&st->u.forr.body, n)) return true; break;
    case S_WHILE: if (dot_accumulates(&st->u.whil.body, n)) return true; break;
    case S_BLOCK: if (dot_accumulates(&st->u.block, n)) return true; break;
    case S_IF: {
      if (dot_accumulates(&st->u.iff.then, n)) return true;
      Block e = {(Stmt **)&st->u.iff.els, st->u.iff.els ? 1 : 0, {0}};
      if (dot_accumulates(&e, n)) return true;
      break;
    }
    default: break;
    }
  }
  return false;
}

/* The @registers rules and rejections of the seed page. */
static void check_registers_one(Checker *C, Kernel *k, Attr *at, Expr *arg) {
  if (arg->kind != E_IDENT) {
    diag_error(C->d, arg->loc, "@registers takes names of tile vars");
    return;
  }
  const char *n = arg->u.ident.name;
  Sym *found[16];
  int nf = find_tiles(C, n, found, 16);
  if (nf == 0) {
    Sym *other = find_var_any(C, &k->body, n);
    if (other && other->ty.elem == T_NONE) return; /* its declaration already failed */
    Sym *param = NULL;
    for (int i = 0; i < C->ki->nparams; i++)
      if (strcmp(C->ki->params[i]->name, n) == 0) param = C->ki->params[i];
    diag_error(C->d, arg->loc, "@registers(%s): the name refers to nothing", n);
    if (other)
      diag_note(C->d, other->loc, "'%s' is a scalar var, not a tile var", n);
    else if (param)
      diag_note(C->d, param->loc, "'%s' is a %s parameter; @registers names a var %s: tile<..>[..] of the kernel", n,
                param->kind == SY_TENSOR ? "tensor" : "scalar", n);
    else
      diag_note(C->d, (Loc){0, 0}, "there is no var %s: tile<..>[..] in kernel '%s'", n, k->name);
    return;
  }
  for (int i = 0; i < nf; i++) {
    Sym *y = found[i];
    if (y->place == PL_REGISTER) {
      diag_error(C->d, arg->loc, "@registers names '%s' twice", n);
      diag_note(C->d, y->reg_loc, "first named here");
      return;
    }
    int64_t numel = type_numel(&y->ty);
    int threads = C->ki->threads;
    Stmt *decl = y->decl;
    bool ok = true;
    if (C->launch_bad) { /* how the tile is shared waits for a valid @launch */
      ok = false;
    } else if (numel % threads != 0) {
      diag_error(C->d, arg->loc,
                 "@registers(%s): tile<%s>[%s] has %" PRId64 " element%s, which %d threads cannot share evenly",
                 n, elem_names[y->ty.elem],
                 y->ty.rank == 1 ? arena_printf(C->a, "%d", y->ty.dims[0])
                                 : arena_printf(C->a, "%d, %d", y->ty.dims[0], y->ty.dims[1]),
                 numel, numel == 1 ? "" : "s", threads);
      diag_note(C->d, y->loc, "every thread must hold the same number of elements");
      /* a row or column of fewer elements than threads: what users reach for @registers
       * for (a row reduction's accumulator) is in registers without it */
      if (numel < threads && y->ty.rank == 2 && (y->ty.dims[0] == 1 || y->ty.dims[1] == 1)) {
        bool col = y->ty.dims[1] == 1;
        diag_note(C->d, arg->loc, "without @registers, tile2cu keeps a %s such as a %s reduction's accumulator (%s) in "
                  "registers, held by the threads of its %s; --explain says where '%s' lives", col ? "column" : "row",
                  col ? "row" : "column", col ? "s += rowsum(x)" : "c += colsum(x)", col ? "row" : "column", n);
      }
      ok = false;
    } else if (numel / threads > 64) {
      diag_error(C->d, arg->loc,
                 "@registers(%s): %" PRId64 " elements per thread is more than 64, the cap for one register tile",
                 n, numel / threads);
      diag_note(C->d, y->loc, "%s has %" PRId64 " elements over %d threads", n, numel, threads);
      if (numel / threads <= 128 && dot_accumulates(&k->body, n))
        diag_note(C->d, arg->loc, "without @registers(%s), a dot's accumulator is kept in registers as tensor-core "
                  "fragments up to 128 per thread; --explain says where '%s' lives", n, n);
      ok = false;
    }
    if (!decl->u.decl.init) {
      diag_error(C->d, y->loc, "register tile '%s' is declared without an initial value; a register tile needs one", n);
      diag_note(C->d, arg->loc, "'%s' is named in @registers here", n);
      ok = false;
    }
    if (!ok) continue;
    y->place = PL_REGISTER;
    y->per_thread = (int)(numel / threads);
    y->reg_loc = arg->loc;
    vec_push(C->a, &C->ki->regs, y);
  }
}

static void check_registers(Checker *C, Kernel *k) {
  Attr *at = find_attr(k, A_REGISTERS);
  if (!at) return;
  if (at->nargs == 0) {
    diag_error(C->d, at->loc, "@registers names no tile; write @registers(t, ...)");
    return;
  }
  for (int i = 0; i < at->nargs; i++) check_registers_one(C, k, at, at->args[i]);
}

/* @grid and @assume expressions may use size names, scalar params and consts. */
static bool launch_expr_ok(Checker *C, Expr *e) {
  switch (e->kind) {
  case E_INT: case E_FLOAT: case E_BOOL: case E_INF: return true;
  case E_IDENT: {
    Sym *y = e->u.ident.sym;
    return !y || y->kind == SY_SIZE || y->kind == SY_SCALAR || y->kind == SY_CONST;
  }
  case E_UNARY: return launch_expr_ok(C, e->u.unary.a);
  case E_BINARY: return launch_expr_ok(C, e->u.binary.a) && launch_expr_ok(C, e->u.binary.b);
  case E_CALL:
    if (e->u.call.builtin != B_CDIV && e->u.call.builtin != B_MIN && e->u.call.builtin != B_MAX &&
        e->u.call.cast == T_NONE)
      return false;
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!launch_expr_ok(C, e->u.call.args[i])) return false;
    return true;
  default: return false;
  }
}

static void check_grid(Checker *C, Kernel *k) {
  Attr *at = find_attr(k, A_GRID);
  if (!at || !attr_nargs(C, at, 1, 3, "one to three integer expressions (x[, y[, z]])")) return;
  C->attr = "grid";
  for (int i = 0; i < at->nargs; i++) {
    Expr *x = at->args[i];
    if (!check_expr(C, x, 0)) continue;
    if (x->ty.rank != 0 || !elem_is_int(x->ty.elem)) {
      diag_error(C->d, x->loc, "@grid takes integer expressions, not %s", type_str(C, &x->ty));
      continue;
    }
    if (!launch_expr_ok(C, x)) {
      diag_error(C->d, x->loc, "@grid is computed on the host: it may use size names, scalar parameters, consts and cdiv/min/max, not ctx or tiles");
      continue;
    }
    if ((x->flags & EF_CONST) && x->cv.i < 1) {
      diag_error(C->d, x->loc, "@grid dim must be at least 1");
      continue;
    }
    C->ki->grid[i] = x;
  }
  C->attr = NULL;
}

static void recognise_assume(Assume *as) {
  Expr *e = as->e;
  as->min = INT64_MIN;
  if (e->kind != E_BINARY) return;
  Expr *l = e->u.binary.a, *r = e->u.binary.b;
  int64_t c;
  /* SCALAR >= c, > c, == c with c >= 0: the scalar is non-negative (facts.c: a division by it
     in a loop takes t2c::FastDiv, unsigned compares) */
  if ((e->u.binary.op == TK_GE || e->u.binary.op == TK_GT || e->u.binary.op == TK_EQ) && l->kind == E_IDENT &&
      l->u.ident.sym && l->u.ident.sym->kind == SY_SCALAR && l->u.ident.sym->ty.rank == 0 &&
      elem_is_int(l->u.ident.sym->ty.elem) && check_const_int(r, &c) && c >= (e->u.binary.op == TK_GT ? -1 : 0)) {
    l->u.ident.sym->assumed_nonneg = true;
    return;
  }
  /* SIZE % c == 0 */
  if (e->u.binary.op == TK_EQ && l->kind == E_BINARY && l->u.binary.op == TK_PERCENT &&
      l->u.binary.a->kind == E_IDENT && l->u.binary.a->u.ident.sym &&
      l->u.binary.a->u.ident.sym->kind == SY_SIZE && check_const_int(l->u.binary.b, &c) && c > 0 &&
      check_const_int(r, &c) && c == 0) {
    as->size = l->u.binary.a->u.ident.sym;
    check_const_int(l->u.binary.b, &as->mod);
    return;
  }
  /* SIZE >= c, SIZE > c; SIZE == c gives both forms (the -Wbounds notes would
     otherwise ask for SIZE >= c beside it, facts.c leaves_room) */
  if ((e->u.binary.op == TK_GE || e->u.binary.op == TK_GT || e->u.binary.op == TK_EQ) && l->kind == E_IDENT &&
      l->u.ident.sym && l->u.ident.sym->kind == SY_SIZE && check_const_int(r, &c)) {
    as->size = l->u.ident.sym;
    as->min = e->u.binary.op == TK_GT ? c + 1 : c;
    if (e->u.binary.op == TK_EQ && c > 0) as->mod = c;
  }
}

static void check_assume(Checker *C, Kernel *k) {
  Attr *at = find_attr(k, A_ASSUME);
  if (!at) return;
  if (at->nargs == 0) {
    diag_error(C->d, at->loc, "@assume takes one or more conditions, e.g. @assume(K %% 64 == 0)");
    return;
  }
  C->ki->assumes = NEW_ARRAY(C->a, Assume, at->nargs);
  C->attr = "assume";
  for (int i = 0; i < at->nargs; i++) {
    Expr *x = at->args[i];
    if (!check_expr(C, x, 0)) continue;
    if (x->ty.elem != T_BOOL || x->ty.rank != 0) {
      diag_error(C->d, x->loc, "@assume takes bool conditions such as K %% 64 == 0, not %s", type_str(C, &x->ty));
      continue;
    }
    if (!launch_expr_ok(C, x)) {
      diag_error(C->d, x->loc, "@assume is checked on the host: it may use size names, scalar parameters and consts, not ctx or tiles");
      continue;
    }
    Assume *as = &C->ki->assumes[C->ki->nassumes++];
    as->e = x;
    recognise_assume(as);
  }
  C->attr = NULL;
}

/* ------------------------------------------------------------ parameters */

static Sym *size_sym(Checker *C, Expr *d) {
  for (int i = 0; i < C->ki->nsizes; i++)
    if (strcmp(C->ki->sizes[i]->name, d->u.ident.name) == 0) return C->ki->sizes[i];
  return NULL;
}

/* A tensor dim written as an expression, as the source spells it (nested operations
 * in parentheses), for the suggestion; false where it holds more than literals,
 * names, operators and calls. */
static bool dim_text(Buf *b, const Expr *e, bool nested) {
  switch (e->kind) {
  case E_INT: buf_printf(b, "%" PRId64, e->u.ival); return true;
  case E_IDENT: buf_puts(b, e->u.ident.name); return true;
  case E_UNARY:
    buf_puts(b, op_text(e->u.unary.op));
    return dim_text(b, e->u.unary.a, true);
  case E_BINARY: {
    buf_puts(b, nested ? "(" : "");
    bool ok = dim_text(b, e->u.binary.a, true);
    buf_printf(b, " %s ", op_text(e->u.binary.op));
    ok = ok && dim_text(b, e->u.binary.b, true);
    buf_puts(b, nested ? ")" : "");
    return ok;
  }
  case E_CALL: {
    bool ok = true;
    buf_printf(b, "%s(", e->u.call.name);
    for (int i = 0; i < e->u.call.nargs; i++) {
      buf_puts(b, i ? ", " : "");
      ok = ok && dim_text(b, e->u.call.args[i], false);
    }
    buf_puts(b, ")");
    return ok;
  }
  default: return false;
  }
}

/* The names and literals of a dim expression, in order: the names spelled into
 * *name ("3 * H" gives "H" then "3": the suggested const H3), and the first name
 * that is no integer const (a size name, or one that would become one) in *size. */
static void dim_names(Checker *C, const Expr *e, Buf *name, Buf *digits, const char **size) {
  switch (e->kind) {
  case E_INT: buf_printf(digits, "%" PRId64, e->u.ival); return;
  case E_IDENT: {
    const Sym *y = lookup(C, e->u.ident.name);
    buf_puts(name, e->u.ident.name);
    if (!(y && y->kind == SY_CONST && !y->const_float) && !*size) *size = e->u.ident.name;
    return;
  }
  case E_UNARY: dim_names(C, e->u.unary.a, name, digits, size); return;
  case E_BINARY:
    dim_names(C, e->u.binary.a, name, digits, size);
    dim_names(C, e->u.binary.b, name, digits, size);
    return;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) dim_names(C, e->u.call.args[i], name, digits, size);
    return;
  default: return;
  }
}

/* A tensor dim written as an expression ([H, 3 * H]): a dim is a literal, a const
 * or a size name, so that the launch binds each size from the tensor passed. What to
 * write instead depends on the names in it: of consts only, a const holding the
 * value; with a size name, a size of its own, since sizes are independent. */
static void dim_expr_error(Checker *C, const Expr *d) {
  const Expr *first = d;
  while (first->kind == E_BINARY) first = first->u.binary.a;
  diag_error(C->d, first->loc, "a tensor dim is an integer literal, a const or a size name, not an expression");
  Buf text = {0}, name = {0}, digits = {0};
  const char *size = NULL;
  bool shown = dim_text(&text, d, false);
  dim_names(C, d, &name, &digits, &size);
  buf_puts(&name, digits.data ? digits.data : "");
  const char *n = name.len && (name.data[0] < '0' || name.data[0] > '9') ? name.data : "D";
  if (!shown)
    diag_note(C->d, (Loc){0, 0}, "name the value with a file-level const and write the const as the dim");
  else if (!size)
    diag_note(C->d, (Loc){0, 0}, "name the value with a file-level const, e.g. 'const %s = %s', and write %s as the dim", n, text.data, n);
  else {
    const Sym *y = lookup(C, size);
    if (!y || y->kind == SY_SIZE)
      diag_note(C->d, (Loc){0, 0}, "'%s' is a size name, and size names are independent: each is bound from the "
                "tensors passed at launch", size);
    else
      diag_note(C->d, (Loc){0, 0}, "'%s' is no integer const", size);
    diag_note(C->d, (Loc){0, 0}, "give this dim a size name of its own, e.g. %s, and state the relation as "
              "@assume(%s == %s) if the kernel relies on it; or make '%s' a const", n, n, text.data, size);
  }
  buf_free(&text);
  buf_free(&name);
  buf_free(&digits);
}

static void check_tensor_param(Checker *C, Param *p, Sym *y) {
  TypeRef *tr = p->type;
  if (tr->ndims < 1 || tr->ndims > 4) {
    diag_error(C->d, tr->loc, "a tensor has 1 to 4 dims, not %d", tr->ndims);
    /* its size names are known, poisoned: a use (@grid(NC)) says nothing more */
    for (int i = 0; i < tr->ndims; i++) {
      const Expr *d = tr->dims[i];
      if (d->kind == E_IDENT && !lookup(C, d->u.ident.name) && !name_builtin(d->u.ident.name) && !size_sym(C, (Expr *)d))
        poison(C, d->u.ident.name, d->loc);
    }
    return;
  }
  y->trank = tr->ndims;
  for (int i = 0; i < tr->ndims; i++) {
    Expr *d = tr->dims[i];
    if (d->kind == E_INT) {
      if (d->u.ival < 1) diag_error(C->d, d->loc, "a tensor dim must be at least 1");
      else if (d->u.ival > INT32_MAX)
        diag_error(C->d, d->loc, "a tensor dim must be at most %d, not %" PRId64, INT32_MAX, d->u.ival);
      y->tdim_const[i] = d->u.ival;
      continue;
    }
    if (d->kind != E_IDENT) {
      dim_expr_error(C, d);
      y->tdim_const[i] = 1;
      continue;
    }
    Sym *c = lookup(C, d->u.ident.name);
    if (c && c->kind == SY_CONST && !c->const_float) {
      /* a const's value is checked as a literal's: [N, 0] would index nothing, and a
         negative dim wrap every bounds check */
      if (c->ival < 1 || c->ival > INT32_MAX) {
        if (c->ival < 1) diag_error(C->d, d->loc, "a tensor dim must be at least 1, not %" PRId64, c->ival);
        else diag_error(C->d, d->loc, "a tensor dim must be at most %d, not %" PRId64, INT32_MAX, c->ival);
        note_const(C, &(Expr){.kind = E_IDENT, .u.ident.sym = c});
      }
      y->tdim_const[i] = c->ival;
      continue;
    }
    if (c && c->kind == SY_CONST) { /* a float one, maybe by -D BN=32.0 */
      diag_error(C->d, d->loc, "a tensor dim must be an integer, and '%s' is a float const", c->name);
      note_const(C, &(Expr){.kind = E_IDENT, .u.ident.sym = c});
      y->tdim_const[i] = 1;
      continue;
    }
    Sym *sz = size_sym(C, d);
    if (!sz && C->ki->nsizes == MAX_SIZES) {
      if (!C->sizes_reported)
        diag_error(C->d, d->loc, "kernel '%s' has more than %d size names", C->k->name, MAX_SIZES);
      C->sizes_reported = true;
      y->tdim_const[i] = 1;
      continue;
    }
    if (!sz) {
      if (c || name_builtin(d->u.ident.name)) {
        diag_error(C->d, d->loc, "'%s' cannot be a size name: it is already defined", d->u.ident.name);
        y->tdim_const[i] = 1;
        continue;
      }
      sz = NEW(C->a, Sym);
      sz->kind = SY_SIZE;
      sz->name = d->u.ident.name;
      sz->loc = d->loc;
      sz->ty = SCALAR_I32;
      C->ki->sizes[C->ki->nsizes++] = sz;
    }
    y->tdim_size[i] = sz;
  }
}

static void check_params(Checker *C, Kernel *k) {
  KernelInfo *ki = C->ki;
  ki->sizes = NEW_ARRAY(C->a, Sym *, k->nparams * 4 + 1);
  ki->tensors = NEW_ARRAY(C->a, Sym *, k->nparams + 1);
  ki->params = NEW_ARRAY(C->a, Sym *, k->nparams + 1);
  for (int i = 0; i < k->nparams; i++) {
    Param *p = &k->params[i];
    SymKind kind = p->type->kind == TR_TENSOR ? SY_TENSOR : SY_SCALAR;
    if (p->type->kind == TR_TILE) {
      diag_error(C->d, p->type->loc, "a tile cannot be a kernel parameter; pass a tensor and slice it");
      if (!lookup(C, p->name)) poison(C, p->name, p->loc);
      continue;
    }
    Sym *sz = NULL;
    for (int j = 0; j < ki->nsizes; j++)
      if (strcmp(ki->sizes[j]->name, p->name) == 0) sz = ki->sizes[j];
    if (sz) {
      diag_error(C->d, p->loc, "'%s' is already a size name of an earlier tensor", p->name);
      diag_note(C->d, sz->loc, "'%s' becomes an i32 parameter here; a size name needs no declaration", p->name);
      continue;
    }
    Sym *y = declare(C, kind, p->name, p->loc);
    if (!y) continue;
    p->sym = y;
    y->cname = make_cname(C, y->name);
    y->ty = (Type){p->type->elem, 0, {0, 0}, false};
    y->param_index = i;
    ki->params[ki->nparams++] = y;
    if (kind == SY_TENSOR) {
      ki->tensors[ki->ntensors++] = y;
      check_tensor_param(C, p, y);
    }
  }
  /* Size names become scalars visible in the body. */
  for (int i = 0; i < ki->nsizes; i++) {
    Sym *sz = ki->sizes[i];
    if (lookup(C, sz->name)) {
      diag_error(C->d, sz->loc, "size name '%s' is also a parameter", sz->name);
      continue;
    }
    vec_push(C->a, &C->scope->syms, sz);
    sz->cname = make_cname(C, sz->name);
  }
}

/* One name of @strided: a tensor parameter, named once. */
static Sym *strided_tensor(Checker *C, Attr *at, int i) {
  Expr *e = at->args[i];
  if (e->kind != E_IDENT) {
    diag_error(C->d, e->loc, "@strided takes names of tensor parameters, e.g. @strided(X, Y)");
    return NULL;
  }
  const char *n = e->u.ident.name;
  Sym *y = lookup(C, n);
  if (!y) {
    diag_error(C->d, e->loc, "@strided names '%s', which is not a parameter of the kernel", n);
    return NULL;
  }
  if (y->kind == SY_VAR && y->ty.elem == T_NONE) return NULL; /* its declaration failed, and said so */
  if (y->kind != SY_TENSOR) {
    const char *what = y->kind == SY_SCALAR ? "a scalar parameter" : y->kind == SY_SIZE ? "a size name" : "a const";
    diag_error(C->d, e->loc, "@strided names '%s', %s; only tensor parameters take strides", n, what);
    if (y->loc.line) diag_note(C->d, y->loc, "'%s' is declared here", n);
    return NULL;
  }
  for (int j = 0; j < i; j++)
    if (at->args[j]->kind == E_IDENT && strcmp(at->args[j]->u.ident.name, n) == 0) {
      diag_error(C->d, e->loc, "@strided names '%s' twice", n);
      diag_note(C->d, at->args[j]->loc, "first named here");
      return NULL;
    }
  return y;
}

/* @strided(X, ...): X_stride0 .. X_stride{rank-1}, i64 parameters after the
 * size names, in the order of the tensors in the parameter list. */
static void check_strided(Checker *C, Kernel *k) {
  Attr *at = find_attr(k, A_STRIDED);
  if (!at) return;
  if (at->nargs == 0) {
    diag_error(C->d, at->loc, "@strided names no tensor; write @strided(X, ...)");
    return;
  }
  KernelInfo *ki = C->ki;
  bool *marked = NEW_ARRAY(C->a, bool, k->nparams + 1);
  for (int i = 0; i < at->nargs; i++) {
    Sym *y = strided_tensor(C, at, i);
    if (y) marked[y->param_index] = true;
  }
  ki->strides = NEW_ARRAY(C->a, Sym *, ki->ntensors * 4 + 1);
  for (int i = 0; i < ki->ntensors; i++) {
    Sym *X = ki->tensors[i];
    if (!marked[X->param_index]) continue;
    for (int d = 0; d < X->trank; d++) {
      Sym *s = NEW(C->a, Sym);
      s->kind = SY_STRIDE;
      s->name = arena_printf(C->a, "%s_stride%d", X->name, d);
      s->cname = make_cname(C, s->name);
      s->loc = X->loc;
      s->ty = (Type){T_I64, 0, {0, 0}, false};
      X->tstride[d] = s;
      ki->strides[ki->nstrides++] = s;
    }
  }
}

/* ------------------------------------------------------------ thread dependence */

/* Whether e depends on the thread, given the current var marks. */
static bool expr_td(const Expr *e) {
  if (!e) return false;
  switch (e->kind) {
  case E_CTX: return e->u.ctx == CTX_THREAD || e->u.ctx == CTX_LANE || e->u.ctx == CTX_WARP;
  case E_IDENT: return e->u.ident.sym && e->u.ident.sym->thread_dep;
  case E_UNARY: return expr_td(e->u.unary.a);
  case E_BINARY: return expr_td(e->u.binary.a) || expr_td(e->u.binary.b);
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (expr_td(e->u.call.args[i])) return true;
    return false;
  case E_INDEX:
    for (int i = 0; i < e->u.index.nidx; i++)
      if (expr_td(e->u.index.idx[i].start)) return true;
    return false;
  default: return false;
  }
}

bool check_expr_td(const Expr *e) { return expr_td(e); }

static bool mark(Sym *y) {
  if (!y || y->thread_dep) return false;
  y->thread_dep = true;
  return true;
}

static bool taint_block(Block *b, bool td);

/* One pass; returns whether a mark changed. */
static bool taint_stmt(Stmt *s, bool td) {
  switch (s->kind) {
  case S_VAR:
    if (s->u.decl.sym && s->u.decl.sym->ty.rank == 0 && (td || expr_td(s->u.decl.init)))
      return mark(s->u.decl.sym);
    return false;
  case S_ASSIGN: {
    Expr *l = s->u.assign.lhs;
    if (l->kind == E_IDENT && l->u.ident.sym && l->u.ident.sym->ty.rank == 0 &&
        (td || expr_td(s->u.assign.rhs)))
      return mark(l->u.ident.sym);
    return false;
  }
  case S_FOR: {
    bool t = td || expr_td(s->u.forr.lo) || expr_td(s->u.forr.hi) || expr_td(s->u.forr.step);
    bool ch = t ? mark(s->u.forr.sym) : false;
    return taint_block(&s->u.forr.body, t) | ch;
  }
  case S_IF: {
    bool t = td || expr_td(s->u.iff.cond);
    bool ch = taint_block(&s->u.iff.then, t);
    return s->u.iff.els ? taint_stmt(s->u.iff.els, t) | ch : ch;
  }
  case S_WHILE: return taint_block(&s->u.whil.body, td || expr_td(s->u.whil.cond));
  case S_BLOCK: return taint_block(&s->u.block, td);
  default: return false;
  }
}

static bool taint_block(Block *b, bool td) {
  bool ch = false;
  for (int i = 0; i < b->nstmts; i++) ch |= taint_stmt(b->stmts[i], td);
  return ch;
}

/* ------------------------------------------------------------ the rules walk */

typedef struct Ctl {
  const Expr *td_cond;   /* outermost thread-dependent condition, or NULL */
  const Stmt *td_exit;   /* or the break/continue under thread-dependent control that makes a loop diverge */
  const char *reg_ctl;   /* "an if" / "a while" when inside one, for the register rule */
  Loc reg_loc;           /* and where that if or while starts */
} Ctl;

static bool stmt_touches_tile(const Stmt *s) {
  switch (s->kind) {
  case S_VAR: return (s->u.decl.sym && s->u.decl.sym->ty.rank > 0) ||
                     (s->u.decl.init && (s->u.decl.init->flags & EF_TILE));
  case S_ASSIGN: return ((s->u.assign.lhs->flags | s->u.assign.rhs->flags) & EF_TILE) != 0;
  default: return false;
  }
}

static const Expr *cond_expr_of(const Stmt *s) {
  switch (s->kind) {
  case S_IF: return s->u.iff.cond;
  case S_WHILE: return s->u.whil.cond;
  default: return NULL;
  }
}

/* A break or continue under thread-dependent control makes its loop divergent;
 * returns the first such statement. */
static const Stmt *divergent_exit(const Block *b, bool td) {
  for (int i = 0; i < b->nstmts; i++) {
    const Stmt *s = b->stmts[i], *x;
    switch (s->kind) {
    case S_BREAK: case S_CONTINUE: if (td) return s; break;
    case S_IF: {
      bool t = td || expr_td(s->u.iff.cond);
      if ((x = divergent_exit(&s->u.iff.then, t))) return x;
      if (s->u.iff.els) {
        Block one = {(Stmt **)&s->u.iff.els, 1, {0, 0}};
        if ((x = divergent_exit(&one, t))) return x;
      }
      break;
    }
    case S_BLOCK: if ((x = divergent_exit(&s->u.block, td))) return x; break;
    default: break; /* inner loops own their break/continue */
    }
  }
  return NULL;
}

/* What makes e thread-dependent, for a note: a ctx field or a var. */
static const char *td_source(Checker *C, const Expr *e) {
  if (!e) return NULL;
  const char *r;
  switch (e->kind) {
  case E_CTX:
    return e->u.ctx == CTX_THREAD ? "ctx.thread" : e->u.ctx == CTX_LANE ? "ctx.lane"
           : e->u.ctx == CTX_WARP ? "ctx.warp" : NULL;
  case E_IDENT:
    return e->u.ident.sym && e->u.ident.sym->thread_dep
               ? arena_printf(C->a, "'%s', whose value differs between threads", e->u.ident.name) : NULL;
  case E_UNARY: return td_source(C, e->u.unary.a);
  case E_BINARY: return (r = td_source(C, e->u.binary.a)) ? r : td_source(C, e->u.binary.b);
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if ((r = td_source(C, e->u.call.args[i]))) return r;
    return NULL;
  case E_INDEX:
    for (int i = 0; i < e->u.index.nidx; i++)
      if ((r = td_source(C, e->u.index.idx[i].start))) return r;
    return NULL;
  default: return NULL;
  }
}

static void note_td(Checker *C, Ctl ctl) {
  if (ctl.td_exit) {
    diag_note(C->d, ctl.td_exit->loc,
              "this '%s' runs for some threads only, so the loop's iterations differ between threads; tile statements run for the whole CTA and their barriers must not diverge",
              ctl.td_exit->kind == S_BREAK ? "break" : "continue");
    return;
  }
  const char *src = td_source(C, ctl.td_cond);
  diag_note(C->d, ctl.td_cond->loc,
            "this depends on %s; tile statements run for the whole CTA and their barriers must not diverge",
            src ? src : "the thread");
}

static void rules_block(Checker *C, Block *b, Ctl ctl);

bool check_loop_divergent(const Block *body) { return divergent_exit(body, false); }

static Sym *register_target(const Stmt *s) {
  Expr *l = NULL;
  if (s->kind == S_VAR) return s->u.decl.sym && s->u.decl.sym->place == PL_REGISTER ? s->u.decl.sym : NULL;
  if (s->kind != S_ASSIGN) return NULL;
  l = s->u.assign.lhs;
  if (l->kind == E_IDENT && l->u.ident.sym && l->u.ident.sym->place == PL_REGISTER) return l->u.ident.sym;
  if (l->kind == E_INDEX && l->u.index.base->kind == E_IDENT && l->u.index.base->u.ident.sym &&
      l->u.index.base->u.ident.sym->place == PL_REGISTER)
    return l->u.index.base->u.ident.sym;
  return NULL;
}

static void rules_simple(Checker *C, Stmt *s, Ctl ctl) {
  if ((ctl.td_cond || ctl.td_exit) && stmt_touches_tile(s)) {
    diag_error(C->d, s->loc, "a tile statement under thread-dependent control");
    note_td(C, ctl);
  }
  Sym *r = register_target(s);
  if (!r) return;
  if (ctl.reg_ctl) {
    diag_error(C->d, s->loc, "an update of register tile '%s' inside %s is not supported", r->name, ctl.reg_ctl);
    diag_note(C->d, ctl.reg_loc, "the %s starts here", ctl.reg_ctl + (ctl.reg_ctl[1] == 'n' ? 3 : 2));
    diag_note(C->d, r->reg_loc, "'%s' is named in @registers here", r->name);
    bool noted = false;
    for (int i = 0; i < C->reg_ctl_noted.len; i++) noted |= C->reg_ctl_noted.items[i] == r;
    if (!noted) {
      vec_push(C->a, &C->reg_ctl_noted, r);
      diag_note(C->d, r->reg_loc, "without @registers(%s), tile2cu keeps '%s' in registers where it can (a dot's "
                "accumulator, a value no other thread reads), inside an if or a while too; --explain says where it lives",
                r->name, r->name);
    }
  }
  if (s->kind == S_ASSIGN && s->u.assign.lhs->kind == E_INDEX) {
    diag_error(C->d, s->u.assign.lhs->loc,
               "a partial write to register tile '%s': a register tile is written whole (t = e or t += e)", r->name);
    diag_note(C->d, r->reg_loc, "'%s' is named in @registers here", r->name);
  }
}

static void rules_stmt(Checker *C, Stmt *s, Ctl ctl) {
  switch (s->kind) {
  case S_VAR:
  case S_ASSIGN: rules_simple(C, s, ctl); return;
  case S_FOR: {
    Ctl in = ctl;
    const Expr *b[3] = {s->u.forr.lo, s->u.forr.hi, s->u.forr.step};
    for (int i = 0; i < 3; i++) {
      /* a bound reading a tile is collective, as a condition is */
      if ((ctl.td_cond || ctl.td_exit) && b[i] && (b[i]->flags & EF_TILE)) {
        diag_error(C->d, b[i]->loc, "a loop bound that reads a tile, under thread-dependent control");
        note_td(C, ctl);
      }
      if (!in.td_cond && !in.td_exit && expr_td(b[i])) in.td_cond = b[i];
    }
    if (!in.td_cond && !in.td_exit) in.td_exit = divergent_exit(&s->u.forr.body, false);
    rules_block(C, &s->u.forr.body, in);
    return;
  }
  case S_IF:
  case S_WHILE: {
    Ctl in = ctl;
    const Expr *c = cond_expr_of(s);
    bool outer_td = ctl.td_cond || ctl.td_exit;
    if (!outer_td && expr_td(c)) in.td_cond = c;
    if (!outer_td && !in.td_cond && s->kind == S_WHILE) in.td_exit = divergent_exit(&s->u.whil.body, false);
    /* a condition reading a tile is collective: fine under uniform control */
    if (outer_td && (c->flags & EF_TILE)) {
      diag_error(C->d, c->loc, "a condition that reads a tile, under thread-dependent control");
      note_td(C, ctl);
    } else if (in.td_exit && (c->flags & EF_TILE)) { /* tested again after some threads left */
      diag_error(C->d, c->loc, "a while condition that reads a tile, in a loop that threads leave apart");
      note_td(C, in);
    }
    in.reg_ctl = s->kind == S_IF ? "an if" : "a while";
    in.reg_loc = s->loc;
    if (s->kind == S_IF) {
      rules_block(C, &s->u.iff.then, in);
      if (s->u.iff.els) rules_stmt(C, s->u.iff.els, in);
    } else {
      rules_block(C, &s->u.whil.body, in);
    }
    return;
  }
  case S_BLOCK: rules_block(C, &s->u.block, ctl); return;
  default: return;
  }
}

/* The elements of a tile var declared without a value that window writes have given a
 * value so far (uninit_read): a map over its [rows, cols] ([1, n] for rank 1). */
#define COVER_MAX (1 << 20)
typedef struct Cover {
  const Sym *y;
  int rows, cols;
  unsigned char *w;
  long long written; /* elements marked */
} Cover;

/* The window of cov's var that x names, when constant: rows r[0] :+ r[1], columns
 * c[0] :+ c[1] (the whole var for its name alone). */
static bool cover_window(const Cover *cov, const Expr *x, long long r[2], long long c[2]) {
  if (x->kind == E_IDENT) {
    r[0] = c[0] = 0, r[1] = cov->rows, c[1] = cov->cols;
    return true;
  }
  const Sym *y = cov->y;
  if (x->kind != E_INDEX || x->u.index.nidx != y->ty.rank) return false;
  long long w[2][2] = {{0, 1}, {0, 1}};
  for (int d = 0; d < y->ty.rank; d++) {
    const Index *ix = &x->u.index.idx[d];
    int64_t st, n = 1;
    if (!check_const_int(ix->start, &st) || (ix->len && !check_const_int(ix->len, &n))) return false;
    int k = y->ty.rank == 1 ? 1 : d;
    w[k][0] = st, w[k][1] = n;
  }
  r[0] = w[0][0], r[1] = w[0][1], c[0] = w[1][0], c[1] = w[1][1];
  return r[0] >= 0 && c[0] >= 0 && r[0] + r[1] <= cov->rows && c[0] + c[1] <= cov->cols;
}

/* The first element of window x that nothing has written (*er, *ec; *n: how many of the
 * window's are not), or false; a window that is not constant proves nothing. */
static bool cover_gap(const Cover *cov, const Expr *x, long long *er, long long *ec, long long *n) {
  long long r[2], c[2];
  if (!cover_window(cov, x, r, c)) return false;
  *n = 0;
  for (long long i = r[0]; i < r[0] + r[1]; i++)
    for (long long j = c[0]; j < c[0] + c[1]; j++)
      if (!cov->w[i * cov->cols + j] && (*n)++ == 0) *er = i, *ec = j;
  return *n > 0;
}

static void cover_mark(Cover *cov, const Expr *x) {
  long long r[2], c[2];
  if (!cover_window(cov, x, r, c)) return;
  for (long long i = r[0]; i < r[0] + r[1]; i++)
    for (long long j = c[0]; j < c[0] + c[1]; j++)
      if (!cov->w[i * cov->cols + j]) cov->w[i * cov->cols + j] = 1, cov->written++;
}

typedef struct Gap {
  const Expr *at; /* the read, or NULL */
  long long r, c, n;
} Gap;

/* The first read of cov's var in e at an element nothing has written. */
static Gap unwritten_read(const Cover *cov, const Expr *e) {
  Gap g = {NULL, 0, 0, 0};
  if (!e) return g;
  switch (e->kind) {
  case E_IDENT:
    if (e->u.ident.sym == cov->y && cover_gap(cov, e, &g.r, &g.c, &g.n)) g.at = e;
    return g;
  case E_UNARY: return unwritten_read(cov, e->u.unary.a);
  case E_BINARY:
    g = unwritten_read(cov, e->u.binary.a);
    return g.at ? g : unwritten_read(cov, e->u.binary.b);
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && !g.at; i++) g = unwritten_read(cov, e->u.call.args[i]);
    return g;
  case E_INDEX:
    for (int i = 0; i < e->u.index.nidx && !g.at; i++) {
      g = unwritten_read(cov, e->u.index.idx[i].start);
      if (!g.at) g = unwritten_read(cov, e->u.index.idx[i].len);
    }
    if (g.at) return g;
    if (e->u.index.base->kind == E_IDENT && e->u.index.base->u.ident.sym == cov->y) {
      if (cover_gap(cov, e, &g.r, &g.c, &g.n)) g.at = e;
      return g;
    }
    return unwritten_read(cov, e->u.index.base);
  default: return g;
  }
}

/* A tile var declared without a value and read, in straight-line code after the
 * declaration (what can be proven cheaply), before anything writes it, or at elements
 * no window write has written: constant windows are tracked element by element, so a
 * halo tile one of whose window writes was left out reads an error, not zeros. */
static void uninit_read(Checker *C, Block *b, int decl) {
  Stmt *d = b->stmts[decl];
  Sym *y = d->u.decl.sym;
  Cover cov = {y, y->ty.rank == 2 ? y->ty.dims[0] : 1, y->ty.dims[y->ty.rank - 1], NULL, 0};
  if ((long long)cov.rows * cov.cols > COVER_MAX) cov.rows = 0; /* not tracked: a partial write ends the proof */
  else cov.w = NEW_ARRAY(C->a, unsigned char, (size_t)cov.rows * cov.cols);
  for (int i = decl + 1; i < b->nstmts; i++) {
    Stmt *s = b->stmts[i];
    Gap g = {NULL, 0, 0, 0};
    const Expr *r = NULL;
    if (s->kind == S_VAR) g = unwritten_read(&cov, s->u.decl.init);
    else if (s->kind == S_ASSIGN) {
      Expr *l = s->u.assign.lhs;
      g = unwritten_read(&cov, s->u.assign.rhs);
      if (!g.at && l->kind == E_IDENT && l->u.ident.sym == y) {
        if (s->u.assign.op == TK_ASSIGN) return; /* written whole */
        g = unwritten_read(&cov, l);             /* t += e reads t */
      }
      if (!g.at && l->kind == E_INDEX) {
        bool own = l->u.index.base->kind == E_IDENT && l->u.index.base->u.ident.sym == y;
        for (int k = 0; k < l->u.index.nidx && !g.at; k++) {
          g = unwritten_read(&cov, l->u.index.idx[k].start);
          if (!g.at) g = unwritten_read(&cov, l->u.index.idx[k].len);
        }
        if (!g.at && own) {
          long long wr[2], wc[2];
          if (!cov.w || !cover_window(&cov, l, wr, wc)) return; /* a window not known: no longer provable */
          if (s->u.assign.op != TK_ASSIGN && cover_gap(&cov, l, &g.r, &g.c, &g.n)) g.at = l; /* t[..] += e reads it */
          else cover_mark(&cov, l);
        }
      }
    } else if (s->kind == S_IF) g = unwritten_read(&cov, s->u.iff.cond);
    else if (s->kind == S_WHILE) g = unwritten_read(&cov, s->u.whil.cond);
    else if (s->kind == S_FOR) {
      g = unwritten_read(&cov, s->u.forr.lo);
      if (!g.at) g = unwritten_read(&cov, s->u.forr.hi);
      if (!g.at) g = unwritten_read(&cov, s->u.forr.step);
    }
    r = g.at;
    if (r && !cov.written) {
      diag_error(C->d, r->loc, "tile '%s' is read before anything writes it", y->name);
      diag_note(C->d, y->loc, "'%s' is declared here without an initial value", y->name);
      return;
    }
    if (r) {
      const char *el = y->ty.rank == 1 ? arena_printf(C->a, "[%lld]", g.c) : arena_printf(C->a, "[%lld, %lld]", g.r, g.c);
      diag_error(C->d, r->loc, "this read of tile '%s' includes %lld element%s that nothing has written, the first %s",
                 y->name, g.n, g.n == 1 ? "" : "s", el);
      diag_note(C->d, y->loc, "'%s' is declared here without an initial value; only its window writes give elements "
                "one (a halo tile needs a write for every part it reads)", y->name);
      return;
    }
    if (s->kind != S_VAR && s->kind != S_ASSIGN && s->kind != S_CONST) return; /* control flow: stop proving */
  }
}

static void rules_block(Checker *C, Block *b, Ctl ctl) {
  for (int i = 0; i < b->nstmts; i++) {
    Stmt *s = b->stmts[i];
    if (s->kind == S_VAR && !s->u.decl.init && s->u.decl.sym && s->u.decl.sym->ty.rank > 0 &&
        s->u.decl.sym->place != PL_REGISTER)
      uninit_read(C, b, i);
    rules_stmt(C, s, ctl);
  }
}

/* ------------------------------------------------------------ driver */

/* Vars never read (only declared, or only written with =) are said at their declaration
 * (Sym.dead): a computation no one sees, and nvcc warned about the C variable (set but never
 * used, declared but never referenced), which emit_tir.c now marks used. They are
 * translated as written: what they read stays read (the differential tests' generated
 * programs leave half their vars unread, and run what they compute all the same). */
static void dead_vars(Checker *C, Block *b);

static void dead_stmt(Checker *C, Stmt *s) {
  switch (s->kind) {
  case S_VAR: {
    Sym *y = s->u.decl.sym;
    if (!y || y->kind != SY_VAR || y->reads > 0) return;
    y->dead = true;
    diag_warning(C->d, W_UNUSED, s->u.decl.name_loc, "'%s' is %s but never read", y->name,
                 s->u.decl.init || y->ty.rank ? "set" : "declared");
    return;
  }
  case S_FOR: dead_vars(C, &s->u.forr.body); return;
  case S_WHILE: dead_vars(C, &s->u.whil.body); return;
  case S_IF:
    dead_vars(C, &s->u.iff.then);
    if (s->u.iff.els) dead_stmt(C, s->u.iff.els);
    return;
  case S_BLOCK: dead_vars(C, &s->u.block); return;
  default: return;
  }
}

/* A tensor parameter the kernel neither reads nor writes (nor names in an attribute):
 * most often a typo that read another tensor in its place (var z = S[..] for Z[..]),
 * which nothing else would say. Its pointer stays a parameter: the launch is as written. */
static void unused_tensors(Checker *C, const Kernel *k) {
  for (int i = 0; i < k->nparams; i++) {
    const Sym *y = k->params[i].sym;
    if (y && y->kind == SY_TENSOR && !y->used)
      diag_warning(C->d, W_UNUSED, k->params[i].loc, "tensor parameter '%s' is never read or written", y->name);
  }
}

static void dead_vars(Checker *C, Block *b) {
  for (int i = 0; i < b->nstmts; i++) dead_stmt(C, b->stmts[i]);
}

/* ------------------------------------------------------------ stores every block makes */

/* The ctx.block coordinates x depends on (bit a: axis a), through vars and loop
 * variables to what they are declared as; ~0u when that cannot be told (a var
 * assigned again, one declared without a value, a chain too long). After
 * facts_mark_reassigned (the whole body checked: every name resolved). */
static unsigned block_deps(Checker *C, const Expr *x, int depth) {
  if (!x || depth > 24) return x ? ~0u : 0;
  switch (x->kind) {
  case E_CTX:
    return x->u.ctx == CTX_BLOCK_X ? 1u : x->u.ctx == CTX_BLOCK_Y ? 2u : x->u.ctx == CTX_BLOCK_Z ? 4u : 0;
  case E_IDENT: {
    const Sym *y = x->u.ident.sym;
    if (!y || (y->kind != SY_VAR && y->kind != SY_LOOP)) return 0; /* a const, a size, a scalar parameter: one value */
    const Stmt *d = y->decl;
    if (!d) return ~0u;
    for (int i = 0; i < C->dep_syms.len; i++) /* each var once: a chain of vars each read twice is not walked 2^n times */
      if (C->dep_syms.items[i] == y) return (unsigned)(uintptr_t)C->dep_vals.items[i];
    unsigned m;
    if (d->kind == S_FOR) { /* a loop variable: the values its bounds give */
      m = block_deps(C, d->u.forr.lo, depth + 1) | block_deps(C, d->u.forr.hi, depth + 1) |
          block_deps(C, d->u.forr.step, depth + 1);
    } else if (d->kind != S_VAR || !d->u.decl.init) {
      m = ~0u;
    } else {
      m = y->reassigned ? ~0u : block_deps(C, d->u.decl.init, depth + 1);
    }
    vec_push(C->a, &C->dep_syms, (void *)y);
    vec_push(C->a, &C->dep_vals, (void *)(uintptr_t)m);
    return m;
  }
  case E_UNARY: return block_deps(C, x->u.unary.a, depth + 1);
  case E_BINARY: return block_deps(C, x->u.binary.a, depth + 1) | block_deps(C, x->u.binary.b, depth + 1);
  case E_CALL: {
    unsigned m = 0;
    for (int i = 0; i < x->u.call.nargs; i++) m |= block_deps(C, x->u.call.args[i], depth + 1);
    return m;
  }
  case E_INDEX: {
    unsigned m = block_deps(C, x->u.index.base, depth + 1);
    for (int i = 0; i < x->u.index.nidx; i++)
      m |= block_deps(C, x->u.index.idx[i].start, depth + 1) | block_deps(C, x->u.index.idx[i].len, depth + 1);
    return m;
  }
  case E_MEMBER: return block_deps(C, x->u.member.base, depth + 1);
  default: return 0;
  }
}

/* Whether @grid may launch more than one block along axis a. */
static bool grid_axis_many(const KernelInfo *ki, int a) {
  const Expr *g = ki->grid[a];
  return g && !((g->flags & EF_CONST) && !g->cv.isf && g->cv.i <= 1);
}

static const char *const axis_names[3] = {"x", "y", "z"};

/* -Wblock-race: a plain store (or +=) to a tensor slice whose indices do not depend on
 * ctx.block along an axis where the @grid has more than one block: every block along it
 * writes the same elements (a split-K GEMM's C[m0 :+ BM, n0 :+ BN] += acc, each block of
 * ctx.block.z a slice of K). guarded: the axes an enclosing if or while tests (if
 * ctx.block.z == 0 { .. } leaves one block to store). Gathers and scatters are
 * -Wscatter-race's. */
static void block_races(Checker *C, const Block *b, unsigned guarded) {
  for (int i = 0; i < b->nstmts; i++) {
    const Stmt *s = b->stmts[i];
    switch (s->kind) {
    case S_IF:
      block_races(C, &s->u.iff.then, guarded | block_deps(C, s->u.iff.cond, 0));
      if (s->u.iff.els) {
        Block one = {(Stmt **)&s->u.iff.els, 1, {0, 0}};
        block_races(C, &one, guarded | block_deps(C, s->u.iff.cond, 0));
      }
      break;
    case S_WHILE: block_races(C, &s->u.whil.body, guarded | block_deps(C, s->u.whil.cond, 0)); break;
    case S_FOR: block_races(C, &s->u.forr.body, guarded); break;
    case S_BLOCK: block_races(C, &s->u.block, guarded); break;
    case S_ASSIGN: {
      const Expr *l = s->u.assign.lhs;
      if (s->u.assign.atomic || l->kind != E_INDEX || l->u.index.base->kind != E_IDENT) break;
      const Sym *X = l->u.index.base->u.ident.sym;
      if (!X || X->kind != SY_TENSOR) break;
      unsigned deps = 0;
      bool scatter = false;
      for (int k = 0; k < l->u.index.nidx; k++) {
        const Index *ix = &l->u.index.idx[k];
        scatter |= ix->start && ix->start->ty.rank > 0;
        deps |= block_deps(C, ix->start, 0) | block_deps(C, ix->len, 0);
      }
      if (scatter) break;
      for (int a = 0; a < 3; a++) {
        if (!grid_axis_many(C->ki, a) || (deps >> a & 1) || (guarded >> a & 1)) continue;
        bool rmw = s->u.assign.op != TK_ASSIGN;
        diag_warning(C->d, W_BLOCK_RACE, l->loc, "every block along ctx.block.%s writes these elements of '%s': its "
                     "indices do not depend on ctx.block.%s, and the @grid has more than one block along it%s",
                     axis_names[a], X->name, axis_names[a], rmw ? ", so their updates race and some are lost" : ", so they race");
        if (rmw)
          diag_note(C->d, l->loc, "for a sum over the blocks (split-K), write atomic_add(%s[..], ..); else index the "
                    "store by ctx.block.%s, or store from one block (if ctx.block.%s == 0 { .. })", X->name,
                    axis_names[a], axis_names[a]);
        else
          diag_note(C->d, l->loc, "index the store by ctx.block.%s, or store from one block (if ctx.block.%s == 0 { .. })",
                    axis_names[a], axis_names[a]);
        break;
      }
      break;
    }
    default: break;
    }
  }
}

static void check_kernel(Checker *C, Kernel *k) {
  C->k = k;
  facts_budget_reset();
  C->sizes_reported = false;
  C->ki = NEW(C->a, KernelInfo);
  C->ki->target = C->t;
  k->info = C->ki;
  memset(&C->cnames, 0, sizeof C->cnames);
  Scope ks;
  push_scope(C, &ks);
  check_kernel_attr_list(C, k);
  check_params(C, k);
  check_strided(C, k);
  check_launch(C, k);
  Scope body;
  push_scope(C, &body);
  check_block(C, &k->body, 1);
  pop_scope(C);
  check_registers(C, k);
  check_grid(C, k);
  check_assume(C, k);
  while (taint_block(&k->body, false)) {
  }
  rules_block(C, &k->body, (Ctl){0});
  if (!C->d->errors) dead_vars(C, &k->body);
  if (!C->d->errors) unused_tensors(C, k);
  C->dep_syms.len = C->dep_vals.len = 0;
  if (!C->d->errors) {
    facts_mark_reassigned(&k->body);
    block_races(C, &k->body, 0);
  }
  pop_scope(C);
  C->ki->cnames = C->cnames;
}

/* ------------------------------------------------------------ kernel names */

/* A kernel's name is an extern "C" symbol the caller links to, so unlike a
 * parameter's it cannot be renamed: what the C++ compiler or the generated code
 * already means by it is an error here, not a compile failure later. */
static const char *const cxx_keywords[] = {
  "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
  "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
  "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
  "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
  "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
  "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
  "requires", "restrict", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast",
  "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
  "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
  NULL,
};

/* Names the generated code or the CUDA headers declare at file scope. */
static const char *const cuda_globals[] = {
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "half", "half2", "t2c", "std", "NULL",
  "INFINITY", "printf", "fprintf", "sprintf", "snprintf", "puts", "malloc", "calloc", "realloc", "free",
  "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strcpy", "assert", "abort", "exit", "atexit",
  "clock", "time", "rand", "srand", "qsort", "div", "atoi", "atof", NULL,
};

/* The C library's types that CUDA's headers bring in. */
static const char *const c_types[] = {
  "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
  "uintptr_t", "intmax_t", "uintmax_t", "size_t", "ssize_t", "ptrdiff_t", "off_t", "time_t", "clock_t", "FILE",
  NULL,
};

/* CUDA's vector types: int4, uchar2, float3, longlong1, ... */
static bool cuda_vector_type(const char *n) {
  static const char *const base[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                                     "longlong", "ulonglong", "float", "double", NULL};
  size_t len = strlen(n);
  if (len < 2 || n[len - 1] < '1' || n[len - 1] > '4') return false;
  for (int i = 0; base[i]; i++)
    if (strlen(base[i]) == len - 1 && !strncmp(base[i], n, len - 1)) return true;
  return false;
}

/* The C math library's functions (extern "C" in CUDA's headers too), and with a
 * suffix f their float versions: expf, sqrtf. */
static const char *const c_math[] = {
  "acos", "asin", "atan", "atan2", "cos", "cosh", "sin", "sinh", "tan", "tanh", "exp", "exp2", "expm1",
  "log", "log2", "log10", "log1p", "pow", "sqrt", "rsqrt", "cbrt", "hypot", "fabs", "abs", "labs", "floor",
  "ceil", "round", "trunc", "fmod", "fmin", "fmax", "min", "max", "erf", "erfc", "lgamma", "tgamma", NULL,
};

static bool in_list(const char *const *list, const char *n) {
  for (int i = 0; list[i]; i++)
    if (strcmp(list[i], n) == 0) return true;
  return false;
}

static bool c_math_name(const char *n) {
  size_t len = strlen(n);
  if (in_list(c_math, n)) return true;
  if (len < 2 || len > 16 || n[len - 1] != 'f') return false;
  char b[16];
  memcpy(b, n, len - 1);
  b[len - 1] = 0;
  return in_list(c_math, b);
}

/* Why n cannot name a kernel, or NULL. */
static const char *kernel_name_clash(const char *n) {
  if (in_list(cxx_keywords, n)) return "it is a keyword of C or C++";
  if (strcmp(n, "main") == 0) return "main is the program's entry point in C and C++";
  if (n[0] == '_' && (n[1] == '_' || (n[1] >= 'A' && n[1] <= 'Z')))
    return "names starting with __ or _ and a capital are reserved in C and C++";
  if (!strncmp(n, "t2c_", 4) || !strncmp(n, "T2C_", 4) || !strncmp(n, "tile2cu_", 8) || !strncmp(n, "TILE2CU_", 8))
    return "names starting with t2c_ or tile2cu_ (either case) are the generated code's, such as the launcher "
           "tile2cu_launch_NAME of --host";
  if (!strncmp(n, "cuda", 4) || (n[0] == 'C' && n[1] == 'U' && (n[2] == '_' || (n[2] >= 'a' && n[2] <= 'z'))) || (n[0] == 'c' && n[1] == 'u' && n[2] >= 'A' && n[2] <= 'Z'))
    return "names starting with cuda, cu and a capital, CU_ or CU and a small letter are the CUDA runtime's "
           "and driver's (cudaMalloc, cuInit, CUresult)";
  if (cuda_vector_type(n) || !strncmp(n, "nv_", 3) || in_list(c_types, n))
    return "CUDA's headers declare such type names (int4, nv_bfloat16, int32_t)";
  if (c_math_name(n)) return "it is a function of the C math library, which CUDA's headers declare (as extern \"C\")";
  if (in_list(cuda_globals, n)) return "CUDA's headers (the C library's functions among them) or the generated code declare it";
  return NULL;
}

static void check_kernel_name(Diag *d, Kernel *k, bool *noted) {
  const char *why = kernel_name_clash(k->name);
  if (!why) return;
  diag_error(d, k->name_loc, "'%s' cannot name a kernel: %s", k->name, why);
  if (!*noted)
    diag_note(d, (Loc){0, 0}, "a kernel's name is the extern \"C\" symbol its callers use, so tile2cu cannot rename it");
  *noted = true;
}

/* The names the generated code derives from a kernel's name without a reserved
 * prefix: a kernel that TMA feeds (sm_90a) gets a helper NAME_tensor_maps next to it
 * (emit_tir.c), which a kernel of that name would clash with in the .cu and in the
 * --host launcher's call. Rejected on every target, so that a file that translates
 * for one target does not fail for another. (The other derived names,
 * tile2cu_launch_NAME, TILE2CU_DYNAMIC_SMEM_NAME, t2c_sim_tramp_NAME, have prefixes
 * kernel_name_clash reserves.) */
static const char *const derived_suffixes[] = {"_tensor_maps", NULL};

/* Whether n is base's name with suffix s appended. */
static bool derived_from(const char *n, const char *base, const char *s) {
  size_t bl = strlen(base);
  return !strncmp(n, base, bl) && !strcmp(n + bl, s);
}

/* Reported at the later kernel of a clashing pair, as a kernel defined twice is. */
static void check_derived_name(Diag *d, Program *p, int i) {
  Kernel *k = p->kernels[i];
  for (int j = 0; j < i; j++)
    for (int s = 0; derived_suffixes[s]; s++) {
      Kernel *o = p->kernels[j];
      Kernel *base = derived_from(k->name, o->name, derived_suffixes[s]) ? o
                     : derived_from(o->name, k->name, derived_suffixes[s]) ? k : NULL;
      if (!base) continue;
      diag_error(d, k->name_loc,
                 "kernel '%s' clashes with kernel '%s': the generated code names the tensor-map builder of "
                 "kernel '%s' %s%s (on sm_90a)",
                 k->name, o->name, base->name, base->name, derived_suffixes[s]);
      diag_note(d, o->name_loc, "'%s' is defined here; rename one of the two", o->name);
      return;
    }
}

bool check_program(Arena *a, Diag *d, Program *p, const TargetConfig *t) {
  Checker C = {.a = a, .d = d, .t = t, .prog = p};
  int before = d->errors;
  bool name_noted = false;
  C.scope = &C.file_scope;
  for (int i = 0; i < p->nconsts; i++) check_const_stmt(&C, p->consts[i]);
  for (int i = 0; i < p->nkernels; i++) {
    Kernel *k = p->kernels[i];
    for (int j = 0; j < i; j++)
      if (strcmp(p->kernels[j]->name, k->name) == 0) {
        diag_error(d, k->name_loc, "kernel '%s' is defined twice", k->name);
        diag_note(d, p->kernels[j]->name_loc, "first defined here");
      }
    check_kernel_name(d, k, &name_noted);
    check_derived_name(d, p, i);
    check_kernel(&C, k);
  }
  return d->errors == before;
}
