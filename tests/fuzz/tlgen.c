/* tlgen.c: a random generator of valid .tl programs, their printer, and an
 * independent tile-level evaluator.
 *
 * A program is built from a stream of choices (splitmix64 of a seed, or the
 * bytes of a fuzzer input) into a small AST of its own, printed as .tl, and
 * evaluated directly on that AST: every statement runs as if one agent did
 * it on whole tiles, over the blocks of the grid one after the other.
 *
 * Validity is kept by construction:
 * - every expression carries a bound on the magnitude of its values, a
 *   granularity (its values are multiples of 2^-g) and whether it is exact
 *   in f32; comparisons, f32 -> i32 casts and f16 casts only take exact
 *   operands, i32 values stay far from overflow, divisors are never 0 and
 *   exp() only sees bounded arguments;
 * - every mutable var has an envelope fixed at its declaration, and each
 *   update is charged its bound times the most times it can run;
 * - stores of different blocks go to disjoint rows (and columns with a 2-D
 *   grid), a store inside loops indexes a distinct dim with each enclosing
 *   loop's variable (length at most the step), no store sits in a while
 *   loop; with several blocks a block reads only inputs and, through +=, the
 *   elements it stores itself (with one block, outputs are read back too);
 * - register tiles follow the @registers rules; the only thread-dependent
 *   control is an if around a scalar store of each thread's own elements
 *   (or an element atomic), so every tile statement runs under uniform
 *   control.
 *
 * About 45% of the programs of a seed (p->ir; none from a fuzzer's bytes, since
 * the IR still declines about 0.2% of them) also use what only the tile IR lowers,
 * and avoid what it declines (dot, a row reduction of one column, sum() of
 * a row or column, tile reads in while conditions, a unit-dim tile
 * broadcast to two shapes):
 * - atomics (atomic_add / max / min) of slices, elements and gathers into
 *   the tensors HI, AF and AI, which only atomics of one kind update (never
 *   read or stored otherwise), so several blocks may update one element;
 *   an f32 atomic_add takes only exact values and each target is charged
 *   the bound of all its updates, so that every order gives the same sum;
 * - gathers of inputs by i32 index tiles (permutations of rows()/cols(),
 *   abs(x) % D, any i32 tile: out of bounds reads 0 or pad's value), and
 *   scatter stores by permutations of rows()/cols() (no two elements of a
 *   statement meet), inside the block's rows (and columns) with a grid;
 * - scans along rows, columns and rank-1 tiles (cumprod of clamped values);
 * - arg-reductions of exact tiles (ties: the first index);
 * - reshape, rank-1 tiles as rows against rank-2 ones, and [n, 1] / [1, n]
 *   values stored into rank-1 slices;
 * - a [bm, 1] var declared before a loop whose body starts by accumulating a
 *   row reduction into it (+= rowsum, = max(.., rowmax), = min(rowmin, ..)),
 *   a [1, bn] var a column reduction, or a scalar one sum(): the forms the
 *   tile IR carries across the loop (carry.c). This choice comes
 *   from a stream of its own (Gen.aux), so a seed's program without it is the
 *   one it was before the choice existed;
 * - tlgen_from_seed_wg only (difftest --target sm_90a): about 18% of its
 *   programs start with an f16 GEMM idiom whose accumulator has 16 rows per
 *   warp in warps of 4 (128 or 256 threads), wgmma's shape on sm_90a. The
 *   choice comes from a stream of its own (Gen.wg); a seed's program without
 *   it is tlgen_from_seed's.
 * - TLGEN_STRIDED (tlgen_from_seed_opts; difftest --strided): about half of
 *   the tensors, at least one, are named in @strided; a stream of its own
 *   chooses them, so the program is otherwise the seed's. Nothing else
 *   changes: the view's layout is the caller's (difftest picks one per run).
 * - TLGEN_HALF_BF16: the 16-bit float type (TY_F16 inside) prints as bf16,
 *   its exactness rule is bf16's (8 significant bits) and the evaluator rounds
 *   its casts to bf16; its tensors' public elem is TLGEN_BF16. The choices
 *   follow the exactness rule, so such a program may differ from the seed's
 *   f16 one beyond the type's name.
 * - TLGEN_I8: i8 tensors I[M, K] and J[K, N], which gen_gemm takes in 75% of
 *   its idioms (an i32 accumulator, k in 32s or 64s), and half the programs
 *   that can start with the idiom do (choices of a stream of their own).
 * - TLGEN_F8: f8 tensors E[M, K] and F[K, N] or F[N, K] of one 8-bit float
 *   type (f8e4m3 or f8e5m2), which gen_gemm takes in 75% of its idioms when
 *   I8's do not (an f32 accumulator, k in 32s or 64s, dot(a, transpose(b))
 *   of F[N, K]); half the programs that can start with the idiom do, and on
 *   sm_90a the wgmma-shaped idiom takes them as often (streams of their own).
 *   Such a program also has an f8 output U[M, N] (60%), which only '='
 *   stores (f8 += is an error) of f8 values; f8 values are slices of E and F,
 *   f8 tile vars and casts f8e4m3(x) of exact f32 values, which the evaluator
 *   rounds to nearest even and saturates (tlgen_round_f8); f32(f8 value)
 *   joins f32 expressions.
 * - TLGEN_WIDE_F64: TY_F32 prints as f64 (tensors, scalars, tiles, casts);
 *   a dot of 16- or 8-bit floats and rand/randn (f32 values) are cast to f64,
 *   and a function of literals only takes f64() operands (tile2cu types
 *   abs(-1.5) and min(-0.75, 0.625) f32). The evaluator is unchanged: it
 *   computes in double, and f32's exactness rules are stricter than f64's.
 * - TLGEN_RAND: gen_rand puts rand, randn and i32(randint(..) % m) of exact
 *   i32 offsets into about one f32 or i32 expression in ten; the evaluator
 *   computes them with its own Philox4x32-10 (tlgen_philox4x32_10).
 */
#include "tlgen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ choices */

typedef struct Src {
  uint64_t state;
  const uint8_t *d;
  size_t n, pos;
  int bytes;
  int wg;      /* tlgen_from_seed_wg's programs */
  int strided; /* TLGEN_STRIDED */
  int bf16;    /* TLGEN_HALF_BF16 */
  int i8;      /* TLGEN_I8 */
  int f8;      /* TLGEN_F8 */
  int f64;     /* TLGEN_WIDE_F64 */
  int rnd;     /* TLGEN_RAND */
  int wgloop;  /* TLGEN_WG_LOOP */
  int deep;    /* TLGEN_DEEP */
  int online;  /* TLGEN_ONLINE */
} Src;

/* The 16-bit float type (TY_F16) is bf16: set while a TLGEN_HALF_BF16 program
   is generated, printed or evaluated (tlgen is not used from several threads). */
static int half_bf16;
/* The 8-bit float type (TY_F8) is f8e5m2, not f8e4m3: set as half_bf16 is. */
static int f8_e5m2;
/* The 32-bit float type (TY_F32) is f64: set as half_bf16 is. */
static int wide_f64;

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A choice in [0, n); 0 once the bytes are exhausted. */
static int pick(Src *s, int n) {
  if (n <= 1) return 0;
  if (s->bytes) {
    unsigned v = 0;
    if (s->pos < s->n) v = s->d[s->pos++];
    if (n > 256 && s->pos < s->n) v = v << 8 | s->d[s->pos++];
    return (int)(v % (unsigned)n);
  }
  return (int)(splitmix64(&s->state) % (uint64_t)n);
}
/* True with probability pct percent; false once the bytes are exhausted. */
static int chance(Src *s, int pct) { return pick(s, 100) >= 100 - pct; }
static int range_pick(Src *s, int lo, int hi) { return lo + pick(s, hi - lo + 1); }

/* ------------------------------------------------------------ arena */

typedef struct Chunk {
  struct Chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char mem[];
} Chunk;

static void *arena_alloc(Chunk **a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!*a || (*a)->used + n > (*a)->cap) {
    size_t cap = n > 65536 ? n : 65536;
    Chunk *c = malloc(sizeof(Chunk) + cap);
    if (!c) abort();
    c->next = *a;
    c->used = 0;
    c->cap = cap;
    *a = c;
  }
  void *p = (*a)->mem + (*a)->used;
  (*a)->used += n;
  memset(p, 0, n);
  return p;
}

/* ------------------------------------------------------------ AST */

enum { TY_F32 = TLGEN_F32, TY_I32 = TLGEN_I32, TY_F16 = TLGEN_F16, TY_BOOL, TY_I8 = TLGEN_I8I, TY_F8 = TLGEN_F8E4M3 };

enum {
  E_NUM,    /* num */
  E_SYM,    /* sym */
  E_BLOCKX, /* ctx.block.x */
  E_BLOCKY, /* ctx.block.y */
  E_THREADS,
  E_THREAD, /* ctx.thread */
  E_CONST,  /* the file-level const TBM */
  E_BIN,    /* op: + - * / % < <= > >= == != & (&&) | (||) m (min) M (max) */
  E_NEG,
  E_NOT,
  E_FN,     /* fn with a[0] (a[1], a[2]) */
  E_SLICE,  /* tensor sym[idx...] optionally pad(.., a[0]) */
  E_TSLICE, /* tile var sym[idx...] */
  E_GATHER, /* tensor sym[idx...] with i32 tile (or scalar) indices start[], optionally pad(.., a[0]) */
};
enum {
  F_ABS, F_EXP, F_SQRT, F_CVT_F32, F_CVT_I32, F_CVT_F16, F_WHERE, F_DOT, F_TRANSPOSE,
  F_ROWSUM, F_ROWMAX, F_ROWMIN, F_COLSUM, F_COLMAX, F_COLMIN, F_SUM, F_ROWS, F_COLS, F_CDIV,
  F_EXP2, F_LOG, F_LOG2, F_RSQRT, F_SIN, F_COS, F_TANH, F_SIGMOID, F_FLOOR, F_CEIL,
  F_CUMSUM, F_CUMPROD, F_CUMMAX, /* num: the axis, -1 when not printed */
  F_ROWARGMAX, F_ROWARGMIN, F_COLARGMAX, F_COLARGMIN, F_RESHAPE, /* reshape: to the expression's shape */
  F_CVT_F8, /* to the program's 8-bit float type */
  F_RAND, F_RANDN, F_RANDINT, /* (seed, off); randint: i32(randint(seed, off) % num) */
};
static const char *fn_name[] = {
    "abs", "exp", "sqrt", "f32", "i32", "f16", "where", "dot", "transpose",
    "rowsum", "rowmax", "rowmin", "colsum", "colmax", "colmin", "sum", "rows", "cols", "cdiv",
    "exp2", "log", "log2", "rsqrt", "sin", "cos", "tanh", "sigmoid", "floor", "ceil",
    "cumsum", "cumprod", "cummax", "rowargmax", "rowargmin", "colargmax", "colargmin", "reshape",
    "f8e4m3", "rand", "randn", "randint",
};

typedef struct Info {
  double B;  /* |value| <= B */
  int g;     /* values are multiples of 2^-g */
  int exact; /* computed exactly in the element type */
} Info;

typedef struct Expr {
  int k, op, ty, rank, d[2];
  Info in;
  double num;
  int sym;
  struct Expr *a[3];
  int nidx;
  struct Expr *start[TLGEN_MAX_RANK];
  int len[TLGEN_MAX_RANK]; /* 0: a scalar index */
  int pad;                 /* E_SLICE: a[0] is the pad value */
} Expr;

/* S_PERTHREAD: its body runs for each thread (it prints as its body);
   S_ATOMIC: atomic_add / atomic_max / atomic_min (op '+', 'M', 'm') of rhs to lhs */
enum { S_VAR, S_ASSIGN, S_FOR, S_IF, S_WHILE, S_BREAK, S_CONTINUE, S_PERTHREAD, S_ATOMIC };

typedef struct Stmt {
  int k;
  int sym;           /* S_VAR: the declared var; S_FOR: the loop variable */
  int op;            /* S_ASSIGN: '=', '+', '-', '*' */
  Expr *lhs, *rhs;   /* S_VAR: rhs is the initial value */
  Expr *lo, *hi;     /* S_FOR bounds; S_IF / S_WHILE: lo is the condition */
  int step, pipeline, unroll;
  struct Stmt *body, *els, *next;
} Stmt;

enum { SY_SIZE, SY_SPARAM, SY_TENSOR, SY_VAR, SY_LOOP };

typedef struct Sym {
  char name[16];
  int kind, ty, rank, d[2];
  int index;   /* SY_SIZE: size number; SY_SPARAM / SY_TENSOR: param number */
  int is_reg;  /* a tile var named in @registers */
  Info env;    /* bound of every value the symbol takes */
  double used; /* SY_VAR: bound charged so far against env.B */
  int depth;   /* loop depth of its declaration */
  int fixed;   /* not updated by random statements (a while loop's counter) */
  int crank, cd[2]; /* tile IR: the larger shape a var with a unit dim (or rank 1) is broadcast to, crank 0 if none */
} Sym;

#define MAX_SYMS 160
#define MAX_PARAMS 20

struct TlgenProgram {
  Chunk *arena;
  char *src;
  char kname[40];
  int threads;
  int min_blocks; /* @launch's second argument, 0 when absent */
  int grid; /* 0: one block; 1: @grid(cdiv(M, BM)); 2: @grid(cdiv(N, BN), cdiv(M, BM)) */
  int bn;
  int bm;
  int nsizes;
  char size_name[TLGEN_MAX_SIZES][4];
  int size_max[TLGEN_MAX_SIZES], size_mult[TLGEN_MAX_SIZES], size_min[TLGEN_MAX_SIZES];
  int nparams;
  TlgenParam params[MAX_PARAMS];
  int param_sym[MAX_PARAMS];
  int nsyms;
  Sym syms[MAX_SYMS];
  int r0; /* the symbol of the block's first row in grid mode, else -1 */
  int c0; /* the symbol of the block's first column with a 2-D grid, else -1 */
  Stmt *body;
  int nregs;
  int regs[8];
  int const_bm;     /* a file-level const TBM = bm, used in @grid and r0 */
  int aux;          /* a second, unused kernel */
  int ir;           /* uses constructs only the tile IR lowers (and avoids what it declines) */
  int akind[MAX_PARAMS];     /* an atomic target: '+', 'M' or 'm' (every update of it), else 0 */
  double acharge[MAX_PARAMS]; /* atomic_add targets: bound of the sum of all updates of an element */
  int ag[MAX_PARAMS];        /* f32 atomic_add targets: granularity of the updates */
  int bf16;                  /* TLGEN_HALF_BF16: TY_F16 is bf16 */
  int f8;                    /* TLGEN_F8: f8 GEMMs, f8 casts, vars, reads and stores */
  int f8e5m2;                /* TLGEN_F8: TY_F8 is f8e5m2 (else f8e4m3) */
  int f64;                   /* TLGEN_WIDE_F64: TY_F32 is f64 */
  int rnd;                   /* TLGEN_RAND: random numbers in expressions */
  TlgenParam pub[MAX_PARAMS]; /* params as tlgen_param gives them (TLGEN_BF16 for TY_F16 in a bf16 program) */
};

/* ------------------------------------------------------------ generator state */

typedef struct Loop {
  int sym;  /* loop variable, -1 for a while loop */
  int step; /* for: the step */
  double trips;
} Loop;

typedef struct Gen {
  Src s;
  TlgenProgram *p;
  int scope[MAX_SYMS]; /* visible symbols */
  int nscope;
  Loop loops[8];
  int nloops;
  int in_cond;  /* inside an if or a while */
  int in_while; /* inside a while */
  int stmts;    /* statements generated so far */
  int no_tiles; /* under thread-dependent control: scalar expressions that read no tile */
  int bn, bk;   /* the program's column and inner tile dims */
  int sM, sN, sK; /* size numbers, -1 when absent */
  int crank, cd[2]; /* the shape of the elementwise expression being generated (its layout) */
  int red[2][2];    /* in it, the operand shape of its row (0) and column (1) reductions, 0 when none */
  Src aux;          /* choices of their own (a seed's programs without them stay as they were) */
  Src wg;           /* the same for the GEMM idiom's warpgroup-sized accumulators */
  Src on;           /* the same for TLGEN_ONLINE's online softmax loops */
  int acc;          /* a [n, 1] var the next loop's body starts by accumulating into, else -1 */
} Gen;

#define MAX_STMTS 40
#define I32_LIMIT 1048576.0 /* i32 values stay below 2^20 */
#define EXACT_LIMIT 16777216.0 /* f32 holds integers below 2^24 exactly */

static Expr *new_expr(Gen *G, int k, int ty) {
  Expr *e = arena_alloc(&G->p->arena, sizeof(Expr));
  e->k = k;
  e->ty = ty;
  e->in.exact = 1;
  return e;
}
static Stmt *new_stmt(Gen *G, int k) {
  Stmt *s = arena_alloc(&G->p->arena, sizeof(Stmt));
  s->k = k;
  return s;
}

static int add_sym(TlgenProgram *p, const char *name, int kind, int ty, int rank, int d0, int d1) {
  if (p->nsyms >= MAX_SYMS) return -1;
  Sym *y = &p->syms[p->nsyms];
  memset(y, 0, sizeof *y);
  snprintf(y->name, sizeof y->name, "%s", name);
  y->kind = kind;
  y->ty = ty;
  y->rank = rank;
  y->d[0] = d0;
  y->d[1] = d1;
  return p->nsyms++;
}

/* Names that are also names of the generated C++ (its locals, keywords,
   CUDA built-ins, the runtime's prefix): a var may take one of them. */
static const char *const risky_names[] = {
    "r", "c", "e", "v", "i", "j", "kk", "tid", "lane", "warp", "c1", "r1", "e0", "x", "y", "a", "b", "k",
    "int", "float", "half", "auto", "long", "unsigned", "char", "double", "signed", "threadIdx", "blockIdx",
    "blockDim", "gridDim", "warpSize", "t2c", "t2c_next", "t2c_it0", "t2c_v", "t2c_sum0", "t2c_tmp0",
    "t2c_red_f32", "t2c_smem", "t2c_k0", "it", "stage", "main", "printf", "float4", "dim3", "__half",
    "_x", "tid_", "e_", "c_", "acc_s", "NULL", "INFINITY", "std", "asm", "new", "delete", "this", "sizeof",
    "register", "volatile", "static", "extern", "goto", "switch", "case", "default", "do", "return", "struct",
};

/* A fresh name: prefix and number, or now and then a risky one not yet used. */
static void sym_name(Gen *G, char *name, size_t n, const char *prefix) {
  TlgenProgram *p = G->p;
  if (chance(&G->s, 12)) {
    const char *r = risky_names[pick(&G->s, (int)(sizeof risky_names / sizeof *risky_names))];
    int used = 0;
    for (int i = 0; i < p->nsyms && !used; i++) used = !strcmp(p->syms[i].name, r);
    if (!used) {
      snprintf(name, n, "%s", r);
      return;
    }
  }
  snprintf(name, n, "%s%d", prefix, p->nsyms);
}

static double exec_count(const Gen *G) {
  double c = 1;
  for (int i = 0; i < G->nloops; i++) c *= G->loops[i].trips;
  return c;
}

/* Whether info is valid for the type: i32 below its limit; f32 exact only
 * when its values and granularity fit the mantissa. */
static Info fix_info(int ty, Info in) {
  if (ty == TY_F32 && in.exact && (in.g > 40 || in.B * ldexp(1, in.g) >= EXACT_LIMIT)) in.exact = 0;
  /* f16: 11 significant bits, subnormals down to 2^-24; bf16: 8 bits, down to 2^-133 */
  if (ty == TY_F16 && in.exact && !half_bf16 && (in.g > 14 || in.B * ldexp(1, in.g) >= 2048)) in.exact = 0;
  if (ty == TY_F16 && in.exact && half_bf16 && (in.g > 100 || in.B * ldexp(1, in.g) >= 256)) in.exact = 0;
  if (ty == TY_I32) in.g = 0;
  return in;
}
static int info_ok(int ty, Info in) { return ty != TY_I32 || in.B < I32_LIMIT; }

static Expr *lit(Gen *G, int ty, double v) {
  Expr *e = new_expr(G, E_NUM, ty);
  e->num = v;
  e->in.B = fabs(v);
  e->in.g = ty == TY_I32 || ty == TY_I8 ? 0 : 3;
  return e;
}
static Expr *rand_lit(Gen *G, int ty) {
  if (ty == TY_I32) return lit(G, ty, range_pick(&G->s, -4, 6));
  if (ty == TY_BOOL) {
    Expr *e = lit(G, TY_BOOL, pick(&G->s, 2));
    return e;
  }
  if (ty == TY_F8) {
    static const double v[] = {0, 1, -1, 0.5, -2, 1.5};
    return lit(G, ty, v[pick(&G->s, 6)]);
  }
  return lit(G, ty, range_pick(&G->s, -16, 16) / 8.0);
}
static Expr *sym_expr(Gen *G, int sym) {
  const Sym *y = &G->p->syms[sym];
  Expr *e = new_expr(G, E_SYM, y->ty);
  e->sym = sym;
  e->rank = y->rank;
  e->d[0] = y->d[0];
  e->d[1] = y->d[1];
  e->in = y->env;
  return e;
}

static void set_shape(Expr *e, int rank, int d0, int d1) {
  e->rank = rank;
  e->d[0] = rank > 0 ? d0 : 0;
  e->d[1] = rank > 1 ? d1 : 0;
}
/* Broadcast shape of two operands (shapes known to broadcast). */
static void bcast(Expr *e, const Expr *a, const Expr *b) {
  if (a->rank == 0) { set_shape(e, b->rank, b->d[0], b->d[1]); return; }
  if (b->rank == 0) { set_shape(e, a->rank, a->d[0], a->d[1]); return; }
  if (a->rank != b->rank) { /* a rank-1 [n] is the row [1, n] against a rank-2 tile */
    const Expr *two = a->rank == 2 ? a : b, *one = a->rank == 2 ? b : a;
    set_shape(e, 2, two->d[0], two->d[1] > one->d[0] ? two->d[1] : one->d[0]);
    return;
  }
  set_shape(e, a->rank, a->d[0] > b->d[0] ? a->d[0] : b->d[0], a->d[1] > b->d[1] ? a->d[1] : b->d[1]);
}

static Expr *bin(Gen *G, int op, Expr *a, Expr *b) {
  int cmp = strchr("<l>g=n", op) != 0, logic = op == '&' || op == '|';
  Expr *e = new_expr(G, E_BIN, cmp || logic ? TY_BOOL : a->ty);
  e->op = op;
  e->a[0] = a;
  e->a[1] = b;
  bcast(e, a, b);
  Info x = a->in, y = b->in, r = {0, 0, x.exact && y.exact};
  int gm = x.g > y.g ? x.g : y.g;
  switch (op) {
  case '+': case '-': r.B = x.B + y.B; r.g = gm; break;
  case '*': r.B = x.B * y.B; r.g = x.g + y.g; break;
  case '/': r.B = x.B; r.g = gm; if (a->ty != TY_I32) r.exact = 0; break; /* divisors have |d| >= 1 */
  case '%': r.B = x.B; r.g = 0; break;
  case 'a': case 'o': case 'x': r.B = 2 * (x.B > y.B ? x.B : y.B) + 1; r.g = 0; break;
  case 'L': r.B = x.B * 8; r.g = 0; break;
  case 'R': r.B = x.B; r.g = 0; break;
  case 'm': case 'M': r.B = x.B > y.B ? x.B : y.B; r.g = gm; break;
  default: r.B = 1; r.g = 0; r.exact = 1; break;
  }
  e->in = fix_info(e->ty, r);
  return e;
}
static Expr *fn(Gen *G, int f, int ty, Expr *a, Expr *b, Expr *c) {
  Expr *e = new_expr(G, E_FN, ty);
  e->op = f;
  e->a[0] = a;
  e->a[1] = b;
  e->a[2] = c;
  if (a) set_shape(e, a->rank, a->d[0], a->d[1]);
  return e;
}

/* ------------------------------------------------------------ expression generation */

typedef struct Shape {
  int rank, d[2];
} Shape;

static Shape shape(int rank, int d0, int d1) {
  Shape s = {rank, {rank > 0 ? d0 : 0, rank > 1 ? d1 : 0}};
  return s;
}
/* Whether a value of shape a broadcasts to target shape t. */
static int fits(int rank, const int *d, Shape t) {
  if (rank == 0) return 1;
  if (rank != t.rank) return 0;
  for (int i = 0; i < rank; i++)
    if (d[i] != t.d[i] && d[i] != 1) return 0;
  return 1;
}
/* A random shape that broadcasts to t: t itself, or with some dims 1, or a scalar. */
static Shape sub_shape(Gen *G, Shape t) {
  if (t.rank == 0) return t;
  int c = pick(&G->s, 8);
  if (c == 7) return shape(0, 0, 0);
  if (c >= 5 && t.rank == 2) {
    Shape r = c == 5 ? shape(2, t.d[0], 1) : shape(2, 1, t.d[1]);
    /* the tile IR declines a [1, 1] tile broadcast in a reduction's operand: a scalar instead */
    if (G->p->ir && r.d[0] == 1 && r.d[1] == 1 && (t.d[0] > 1 || t.d[1] > 1)) return shape(0, 0, 0);
    return r;
  }
  return t;
}

static Expr *gen_expr(Gen *G, int ty, Shape t, int depth);
static Expr *gen_exact(Gen *G, int ty, Shape t, int depth);

/* gen_expr for a value that takes a layout of its own: a statement's value
   (kind 0), the operand of a reduction, a scan, a reshape (other kinds: an
   operand may take another layout than a statement's value of its shape). */
static Expr *gen_in_k(Gen *G, int ty, Shape t, int depth, int kind) {
  int r = G->crank, d0 = G->cd[0], d1 = G->cd[1], red[2][2];
  memcpy(red, G->red, sizeof red);
  memset(G->red, 0, sizeof G->red);
  G->crank = t.rank + 10 * kind;
  G->cd[0] = t.d[0];
  G->cd[1] = t.d[1];
  Expr *e = gen_expr(G, ty, t, depth);
  G->crank = r;
  G->cd[0] = d0;
  G->cd[1] = d1;
  memcpy(G->red, red, sizeof red);
  return e;
}
/* With the tile IR, whether a row (column) reduction of a may join the
   expression: its result's layout is a slice of a's, so all the row
   (column) reductions of one expression reduce operands of one shape. */
static int red_ok(Gen *G, int row, const Expr *a) {
  if (!G->p->ir) return 1;
  int *r = G->red[!row];
  if (r[0]) return r[0] == a->d[0] && r[1] == a->d[1];
  r[0] = a->d[0];
  r[1] = a->d[1];
  return 1;
}
static Expr *gen_in(Gen *G, int ty, Shape t, int depth) { return gen_in_k(G, ty, t, depth, 0); }
/* A statement whose indices and value are one expression of shape t (a scatter, an atomic). */
static void ctx_enter(Gen *G, Shape t) {
  G->crank = t.rank;
  G->cd[0] = t.d[0];
  G->cd[1] = t.d[1];
  memset(G->red, 0, sizeof G->red);
}
static void ctx_leave(Gen *G) { ctx_enter(G, shape(0, 0, 0)); }
/* With the tile IR, whether var sym may be read whole here: a var with a unit
   dim (or of rank 1) is read whole in expressions of one shape only (its
   own or a larger one it broadcasts to: one layout); records that shape. */
static int whole_read_ok(Gen *G, int sym, int record) {
  Sym *y = &G->p->syms[sym];
  if (!G->p->ir || !(y->rank == 1 || y->d[0] == 1 || y->d[1] == 1)) return 1;
  if (G->crank % 10 == 0) return 1; /* a scalar */
  if (y->crank) return y->crank == G->crank && y->cd[0] == G->cd[0] && y->cd[1] == G->cd[1];
  if (record) {
    y->crank = G->crank;
    y->cd[0] = G->cd[0];
    y->cd[1] = G->cd[1];
  }
  return 1;
}
static Expr *gen_gather(Gen *G, int ty, Shape t);

static Expr *blockx(Gen *G) {
  Expr *e = new_expr(G, E_BLOCKX, TY_I32);
  e->in.B = 4096;
  return e;
}
static Expr *blocky(Gen *G) {
  Expr *e = new_expr(G, E_BLOCKY, TY_I32);
  e->in.B = 4096;
  return e;
}

/* A start index for a slice of a tensor dim of (maximum) size dmax and length len. */
static Expr *gen_start(Gen *G, int len, int rowdim, int coldim) {
  TlgenProgram *p = G->p;
  if (coldim && p->c0 >= 0 && chance(&G->s, 70)) {
    Expr *e = sym_expr(G, p->c0);
    if (chance(&G->s, 20)) e = bin(G, '+', e, lit(G, TY_I32, range_pick(&G->s, -2, 3)));
    return e;
  }
  if (rowdim && p->r0 >= 0 && chance(&G->s, 80)) {
    Expr *e = sym_expr(G, p->r0);
    if (chance(&G->s, 20)) e = bin(G, '+', e, lit(G, TY_I32, range_pick(&G->s, -2, 3)));
    return e;
  }
  switch (pick(&G->s, 6)) {
  case 1: case 2: { /* a loop variable, maybe offset */
    int cand[MAX_SYMS], n = 0;
    for (int i = 0; i < G->nscope; i++)
      if (p->syms[G->scope[i]].kind == SY_LOOP) cand[n++] = G->scope[i];
    if (!n) break;
    Expr *e = sym_expr(G, cand[pick(&G->s, n)]);
    if (chance(&G->s, 25)) e = bin(G, chance(&G->s, 50) ? '+' : '-', e, lit(G, TY_I32, range_pick(&G->s, 1, len)));
    return e;
  }
  case 3:
    return lit(G, TY_I32, range_pick(&G->s, -2, 2 * len));
  case 4:
    if (p->grid) return bin(G, '*', p->grid == 2 && chance(&G->s, 50) ? blocky(G) : blockx(G), lit(G, TY_I32, len));
    break;
  default:
    break;
  }
  return lit(G, TY_I32, 0);
}

/* A read of an input tensor of element type ty as shape t (rank 0: one element). */
static Expr *gen_slice(Gen *G, int ty, Shape t) {
  TlgenProgram *p = G->p;
  int cand[MAX_PARAMS], n = 0;
  /* with one block, f32 outputs can be read back (at any element): the
     statements that wrote them come before */
  int outputs = !p->grid && !G->no_tiles && ty == TY_F32 && !(p->ir && t.rank == 0) && chance(&G->s, 15);
  for (int i = 0; i < p->nparams; i++) {
    const TlgenParam *q = &p->params[i];
    if (q->kind == TLGEN_PARAM_TENSOR && q->is_output == outputs && !p->akind[i] && q->elem == ty && q->rank >= t.rank)
      cand[n++] = i;
  }
  if (!n) return 0;
  int pi = cand[pick(&G->s, n)];
  const TlgenParam *q = &p->params[pi];
  Expr *e = new_expr(G, E_SLICE, ty);
  e->sym = p->param_sym[pi];
  e->nidx = q->rank;
  set_shape(e, t.rank, t.d[0], t.d[1]);
  /* the kept dims are the last t.rank dims */
  for (int i = 0; i < q->rank; i++) {
    int kept = i >= q->rank - t.rank;
    int len = kept ? t.d[i - (q->rank - t.rank)] : 0;
    int rowdim = q->dim[i] == -1 - G->sM, coldim = q->dim[i] == -1 - G->sN;
    if (kept) {
      e->start[i] = gen_start(G, len, rowdim, coldim);
      e->len[i] = len;
    } else if (q->dim[i] >= 0 && chance(&G->s, 85)) {
      e->start[i] = lit(G, TY_I32, pick(&G->s, q->dim[i] + 1)); /* may be one past the end: reads 0 */
    } else {
      e->start[i] = gen_start(G, 1, rowdim, coldim);
    }
  }
  e->in.B = ty == TY_I32 ? 8 : 2;
  e->in.g = ty == TY_I32 ? 0 : 3;
  e->in.exact = 1;
  if (q->is_output) { /* whatever was stored */
    e->in.B = 1e6;
    e->in.exact = 0;
  }
  if (t.rank > 0 && chance(&G->s, 20)) {
    e->pad = 1;
    e->a[0] = rand_lit(G, ty == TY_F16 ? TY_F32 : ty);
    e->a[0]->ty = ty;
  }
  return e;
}

/* A tile var (or sub-tile of one, or element) of type ty readable as shape t. */
static Expr *gen_tile_read(Gen *G, int ty, Shape t) {
  TlgenProgram *p = G->p;
  int cand[MAX_SYMS], n = 0;
  for (int i = 0; i < G->nscope; i++) {
    const Sym *y = &p->syms[G->scope[i]];
    if (y->kind != SY_VAR || y->ty != ty || y->rank == 0) continue;
    if (fits(y->rank, y->d, t) && whole_read_ok(G, G->scope[i], 0)) cand[n++] = G->scope[i];
    else if (t.rank == 0 || (t.rank == y->rank && t.d[0] <= y->d[0] && (t.rank < 2 || t.d[1] <= y->d[1])))
      cand[n++] = G->scope[i];
  }
  if (!n) return 0;
  int sym = cand[pick(&G->s, n)];
  const Sym *y = &p->syms[sym];
  if (fits(y->rank, y->d, t) && (t.rank == 0 ? 0 : 1) && whole_read_ok(G, sym, 1)) return sym_expr(G, sym);
  /* an element or a sub-tile at constant starts */
  Expr *e = new_expr(G, E_TSLICE, ty);
  e->sym = sym;
  e->nidx = y->rank;
  e->in = y->env;
  for (int i = 0; i < y->rank; i++) {
    int len = t.rank == 0 ? 0 : t.d[i];
    e->len[i] = len;
    e->start[i] = lit(G, TY_I32, pick(&G->s, y->d[i] - (len ? len : 1) + 1));
  }
  set_shape(e, t.rank, t.d[0], t.d[1]);
  return e;
}

/* A scalar symbol (size, scalar parameter, scalar var, loop variable) of type ty. */
static Expr *gen_scalar_sym(Gen *G, int ty, int need_exact) {
  TlgenProgram *p = G->p;
  int cand[MAX_SYMS], n = 0;
  for (int i = 0; i < G->nscope; i++) {
    const Sym *y = &p->syms[G->scope[i]];
    if (y->rank != 0 || y->ty != ty || (need_exact && !y->env.exact)) continue;
    if (y->kind == SY_TENSOR) continue;
    cand[n++] = G->scope[i];
  }
  if (!n) return 0;
  return sym_expr(G, cand[pick(&G->s, n)]);
}

static int shape_eq(const Expr *e, Shape t) {
  return e->rank == t.rank && e->d[0] == t.d[0] && e->d[1] == t.d[1];
}

static Expr *gen_leaf(Gen *G, int ty, Shape t) {
  Expr *e = 0;
  switch (pick(&G->s, 10)) {
  case 0: case 1: case 2: case 3:
    if (G->p->ir && !G->no_tiles && t.rank && chance(&G->s, 20)) e = gen_gather(G, ty, sub_shape(G, t));
    if (!e) e = gen_slice(G, ty, t.rank ? sub_shape(G, t) : t);
    break;
  case 4: case 5: case 6:
    if (!G->no_tiles) e = gen_tile_read(G, ty, t);
    break;
  case 7: case 8:
    if (ty == TY_I32 && chance(&G->s, 15)) {
      e = new_expr(G, E_THREADS, TY_I32);
      e->in.B = G->p->threads;
      e->in.exact = 1;
    } else if (ty == TY_F32 && chance(&G->s, 30)) {
      Expr *i = gen_scalar_sym(G, TY_I32, 1);
      if (i) e = fn(G, F_CVT_F32, TY_F32, i, 0, 0), e->in = fix_info(TY_F32, i->in);
    } else {
      e = gen_scalar_sym(G, ty, 0);
    }
    break;
  default:
    break;
  }
  if (!e && ty != TY_F16) e = rand_lit(G, ty);
  if (!e) e = gen_slice(G, ty, t.rank ? t : t);
  return e;
}

/* A divisor: a nonzero constant or abs(e) + 1. */
static Expr *gen_divisor(Gen *G, int ty, Shape t, int depth) {
  if (chance(&G->s, 50)) {
    static const double fd[] = {2, 4, 3, -2, 0.5, 8};
    static const double id[] = {2, 3, 4, -3, 5, 7};
    return lit(G, ty, ty == TY_I32 ? id[pick(&G->s, 6)] : fd[pick(&G->s, 6)]);
  }
  Expr *x = gen_expr(G, ty, sub_shape(G, t), depth + 1);
  Expr *a = fn(G, F_ABS, ty, x, 0, 0);
  a->in = x->in;
  return bin(G, '+', a, lit(G, ty, 1));
}

/* A bool of shape broadcasting to t, from comparisons of exact values. */
static Expr *gen_cond(Gen *G, Shape t, int depth) {
  if (depth < 3 && chance(&G->s, 15)) {
    Expr *a = gen_cond(G, t, depth + 1), *b = gen_cond(G, t, depth + 1);
    return bin(G, chance(&G->s, 50) ? '&' : '|', a, b);
  }
  if (depth < 3 && chance(&G->s, 8)) {
    Expr *a = gen_cond(G, t, depth + 1);
    Expr *e = new_expr(G, E_NOT, TY_BOOL);
    e->a[0] = a;
    set_shape(e, a->rank, a->d[0], a->d[1]);
    return e;
  }
  static const char ops[] = "<l>g=n";
  int op = ops[pick(&G->s, 6)];
  if (!G->no_tiles && chance(&G->s, 15)) { /* a bool tile var */
    int cand[MAX_SYMS], n = 0;
    for (int i = 0; i < G->nscope; i++) {
      const Sym *y = &G->p->syms[G->scope[i]];
      if (y->kind == SY_VAR && y->ty == TY_BOOL && y->rank > 0 && fits(y->rank, y->d, t) && whole_read_ok(G, G->scope[i], 0))
        cand[n++] = G->scope[i];
    }
    if (n) {
      int sym = cand[pick(&G->s, n)];
      whole_read_ok(G, sym, 1);
      return sym_expr(G, sym);
    }
  }
  if (t.rank == 2 && chance(&G->s, 15)) {
    Expr *r = fn(G, F_ROWS, TY_I32, 0, 0, 0), *c = fn(G, F_COLS, TY_I32, 0, 0, 0);
    set_shape(r, 2, t.d[0], t.d[1]);
    set_shape(c, 2, t.d[0], t.d[1]);
    r->in.B = t.d[0];
    c->in.B = t.d[1];
    r->in.exact = c->in.exact = 1;
    Expr *a = chance(&G->s, 50) ? r : bin(G, '+', r, lit(G, TY_I32, range_pick(&G->s, -3, 3)));
    return bin(G, op, a, c);
  }
  int ty = chance(&G->s, 60) ? TY_F32 : TY_I32;
  Expr *a = 0;
  if (t.rank == 0 && chance(&G->s, 60)) {
    ty = TY_I32;
    a = gen_scalar_sym(G, TY_I32, 1);
    if (a && chance(&G->s, 30)) a = bin(G, '%', a, lit(G, TY_I32, range_pick(&G->s, 2, 3)));
  }
  int symbolic = a != 0;
  if (!a) a = gen_exact(G, ty, sub_shape(G, t), depth + 1);
  Expr *b = chance(&G->s, 50) ? rand_lit(G, ty) : gen_exact(G, ty, sub_shape(G, t), depth + 1);
  if (symbolic && a->in.B > 6) b = lit(G, TY_I32, pick(&G->s, a->in.B < 100 ? (int)a->in.B : 100));
  return bin(G, op, a, b);
}

/* An expression of type ty whose values are exact (for comparisons and casts). */
static Expr *gen_exact(Gen *G, int ty, Shape t, int depth) {
  for (int tries = 0; tries < 4; tries++) {
    Expr *e = gen_expr(G, ty, t, depth + 1);
    if (e->in.exact) return e;
  }
  if (ty == TY_I32 || chance(&G->s, 50)) {
    Expr *e = gen_leaf(G, ty, t);
    if (e->in.exact && e->ty == ty) return e;
  }
  return rand_lit(G, ty);
}

/* A 2-D operand of dot of element type ty and exact shape [r, c]: a tile var or a slice. */
static Expr *gen_dot_operand(Gen *G, int ty, int r, int c) {
  Shape t = shape(2, r, c);
  TlgenProgram *p = G->p;
  if (chance(&G->s, 50)) {
    int cand[MAX_SYMS], n = 0;
    for (int i = 0; i < G->nscope; i++) {
      const Sym *y = &p->syms[G->scope[i]];
      if (y->kind == SY_VAR && y->ty == ty && y->rank == 2 && y->d[0] == r && y->d[1] == c &&
          whole_read_ok(G, G->scope[i], 0))
        cand[n++] = G->scope[i];
    }
    if (n) {
      int sym = cand[pick(&G->s, n)];
      whole_read_ok(G, sym, 1);
      return sym_expr(G, sym);
    }
  }
  if (ty == TY_F16 && chance(&G->s, 30)) { /* f16(x) of an exact f32 tile var */
    int cand[MAX_SYMS], n = 0;
    for (int i = 0; i < G->nscope; i++) {
      const Sym *y = &p->syms[G->scope[i]];
      if (y->kind == SY_VAR && y->ty == TY_F32 && y->rank == 2 && y->d[0] == r && y->d[1] == c && y->env.exact &&
          y->env.B < 60000)
        cand[n++] = G->scope[i];
    }
    if (n) {
      Expr *x = sym_expr(G, cand[pick(&G->s, n)]);
      Expr *e = fn(G, F_CVT_F16, TY_F16, x, 0, 0);
      e->in = x->in;
      e->in.exact = 0;
      e->in.g = 24;
      return e;
    }
  }
  Expr *e = gen_slice(G, ty, t);
  if (!e && ty == TY_F32) {
    e = gen_expr(G, TY_F32, t, 4);
    if (!shape_eq(e, t)) e = 0;
  }
  return e;
}

/* ------------------------------------------------------------ tile-IR constructs */

static int size_sym(const TlgenProgram *p, int sz) {
  for (int i = 0; i < p->nsyms; i++)
    if (p->syms[i].kind == SY_SIZE && p->syms[i].index == sz) return i;
  return -1;
}
static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

/* rows(h, w) (row) or cols(h, w): an i32 tile whose values run over 0 .. h-1 (w-1). */
static Expr *index_tile(Gen *G, int row, int h, int w) {
  Expr *e = fn(G, row ? F_ROWS : F_COLS, TY_I32, 0, 0, 0);
  set_shape(e, 2, h, w);
  e->in.B = row ? h : w;
  e->in.exact = 1;
  return e;
}
/* A permutation of 0 .. n-1 applied to x (whose values are 0 .. n-1). */
static Expr *gen_perm(Gen *G, Expr *x, int n) {
  switch (n > 1 ? pick(&G->s, 4) : 0) {
  case 1: return bin(G, '-', lit(G, TY_I32, n - 1), x);
  case 2: case 3: {
    static const int ks[] = {3, 5, 7, 1};
    int k = 1;
    for (int i = 0; i < 4; i++)
      if (gcd(ks[i], n) == 1 && chance(&G->s, 70)) { k = ks[i]; break; }
    return bin(G, '%', bin(G, '+', bin(G, '*', x, lit(G, TY_I32, k)), lit(G, TY_I32, range_pick(&G->s, 0, n - 1))),
               lit(G, TY_I32, n));
  }
  default: return x;
  }
}

/* An i32 index of shape s (a tile, or a scalar when s is) for dim i of tensor parameter q. */
static Expr *gen_index(Gen *G, Shape s, const TlgenParam *q, int i) {
  TlgenProgram *p = G->p;
  int rowdim = q->dim[i] == -1 - G->sM, coldim = q->dim[i] == -1 - G->sN;
  int c = pick(&G->s, 8);
  if (s.rank == 2 && c < 4) { /* base + a permutation of rows or cols */
    int row = s.d[1] == 1 ? 1 : s.d[0] == 1 ? 0 : pick(&G->s, 2);
    int n = row ? s.d[0] : s.d[1];
    Expr *x = gen_perm(G, index_tile(G, row, s.d[0], s.d[1]), n);
    return bin(G, '+', gen_start(G, n, rowdim, coldim), x);
  }
  Expr *x = gen_exact(G, TY_I32, s, 2);
  if (c < 7 && x->rank == s.rank) { /* in bounds: abs(x) % D */
    Expr *a = fn(G, F_ABS, TY_I32, x, 0, 0);
    a->in = x->in;
    Expr *d = q->dim[i] >= 0 ? lit(G, TY_I32, q->dim[i]) : sym_expr(G, size_sym(p, -q->dim[i] - 1));
    return bin(G, '%', a, d);
  }
  return x;
}

/* A gather from an input tensor of element type ty readable as shape t (rank >= 1). */
static Expr *gen_gather(Gen *G, int ty, Shape t) {
  TlgenProgram *p = G->p;
  if (t.rank == 0) return 0;
  int cand[MAX_PARAMS], n = 0;
  for (int i = 0; i < p->nparams; i++) {
    const TlgenParam *q = &p->params[i];
    if (q->kind == TLGEN_PARAM_TENSOR && !q->is_output && q->elem == ty) cand[n++] = i;
  }
  if (!n) return 0;
  int pi = cand[pick(&G->s, n)];
  const TlgenParam *q = &p->params[pi];
  Expr *e = new_expr(G, E_GATHER, ty);
  e->sym = p->param_sym[pi];
  e->nidx = q->rank;
  /* the last one or two dims take tile indices, of t's shape or broadcasting to it */
  int ntile = t.rank == 2 && q->rank >= 2 ? 2 : 1;
  Shape is[2];
  if (ntile == 2) {
    int c = pick(&G->s, 4);
    is[0] = c == 1 ? shape(2, t.d[0], 1) : c == 2 ? shape(0, 0, 0) : t;
    is[1] = c == 1 ? shape(2, 1, t.d[1]) : c == 3 ? shape(0, 0, 0) : t;
  } else {
    is[0] = t;
  }
  int tiles = 0;
  for (int i = 0; i < q->rank; i++) {
    int k = i - (q->rank - ntile);
    if (k >= 0) {
      e->start[i] = gen_index(G, is[k], q, i);
      if (e->start[i]->rank) tiles++;
    } else {
      e->start[i] = q->dim[i] >= 0 && chance(&G->s, 85) ? lit(G, TY_I32, pick(&G->s, q->dim[i] + 1))
                                                        : gen_start(G, 1, q->dim[i] == -1 - G->sM, q->dim[i] == -1 - G->sN);
    }
  }
  if (!tiles) return 0;
  /* the shape: the indices' broadcast */
  Expr sh = {0};
  for (int i = 0; i < q->rank; i++) {
    Expr tmp = sh;
    bcast(&sh, &tmp, e->start[i]);
  }
  if (!fits(sh.rank, sh.d, t)) return 0;
  set_shape(e, sh.rank, sh.d[0], sh.d[1]);
  e->in.B = ty == TY_I32 ? 8 : 2;
  e->in.g = ty == TY_I32 ? 0 : 3;
  e->in.exact = 1;
  if (chance(&G->s, 25)) {
    e->pad = 1;
    e->a[0] = rand_lit(G, ty == TY_F16 ? TY_F32 : ty);
    e->a[0]->ty = ty;
  }
  return e;
}

/* A scan (cumsum, cumprod, cummax) of shape broadcasting to t. */
static Expr *gen_scan(Gen *G, int ty, Shape t, int depth) {
  if (t.rank == 0 || (ty != TY_F32 && ty != TY_I32)) return 0;
  int f = F_CUMSUM + pick(&G->s, 3);
  if (f == F_CUMPROD && ty != TY_F32) f = F_CUMSUM;
  int axis0 = chance(&G->s, 40);
  Expr *a = gen_in_k(G, ty, t, depth + 1, 8 + axis0);
  if (a->rank == 0) return 0;
  int axis = a->rank == 2 ? (axis0 ? 0 : chance(&G->s, 50) ? 1 : -1) : chance(&G->s, 50) ? 0 : -1;
  int len = a->rank == 1 ? a->d[0] : axis == 0 ? a->d[0] : a->d[1];
  Info in = a->in;
  if (f == F_CUMPROD) { /* clamped to [-c, c] so that c^len stays small */
    double c = len <= 12 ? 2 : len <= 32 ? 1.5 : len <= 64 ? 1.25 : 1.125;
    Expr *lo = bin(G, 'm', a, lit(G, TY_F32, c));
    a = bin(G, 'M', lo, lit(G, TY_F32, -c));
    in.B = pow(c, len) + 1;
    in.g = 24;
    in.exact = 0;
  } else if (f == F_CUMSUM) {
    in.B = a->in.B * len;
  }
  Expr *e = fn(G, f, ty, a, 0, 0);
  e->num = axis;
  e->in = fix_info(ty, in);
  return e;
}

/* An arg-reduction of an exact tile: i32 [t.d0, 1] or [1, t.d1], as an f32 when ty is. */
static Expr *gen_argred(Gen *G, int ty, Shape t, int depth) {
  TlgenProgram *p = G->p;
  if (t.rank != 2 || (ty != TY_I32 && ty != TY_F32)) return 0;
  int row = t.d[1] == 1 ? 1 : t.d[0] == 1 ? 0 : pick(&G->s, 2);
  static const int ws[] = {1, 4, 8, 16, 32, 64, 3, 5};
  int w = chance(&G->s, 60) ? (row ? G->bn : p->bm) : ws[pick(&G->s, 8)];
  Shape at = row ? shape(2, t.d[0], w) : shape(2, w, t.d[1]);
  int mx = chance(&G->s, 50);
  int c = pick(&G->s, 10);
  int oty = c < 6 ? TY_F32 : c < 9 ? TY_I32 : TY_F16;
  Expr *a = 0;
  if (oty != TY_I32 && chance(&G->s, 30)) { /* a slice padded with the value that loses */
    a = gen_slice(G, oty, at);
    if (a) {
      a->pad = 1;
      a->a[0] = lit(G, oty, mx ? -INFINITY : INFINITY);
      a->a[0]->in.B = 0;
    }
  }
  if (!a && oty == TY_F16) a = gen_slice(G, oty, at);
  if (!a) {
    int r = G->crank, d0 = G->cd[0], d1 = G->cd[1];
    G->crank = 2 + 10 * (4 + !row), G->cd[0] = at.d[0], G->cd[1] = at.d[1];
    a = gen_exact(G, oty == TY_F16 ? TY_F32 : oty, at, depth + 1);
    G->crank = r, G->cd[0] = d0, G->cd[1] = d1;
  }
  if (!a || a->rank != 2 || !a->in.exact || (row && a->d[1] == 1) || !red_ok(G, row, a)) return 0;
  Expr *e = fn(G, (row ? F_ROWARGMAX : F_COLARGMAX) + !mx, TY_I32, a, 0, 0);
  set_shape(e, 2, row ? a->d[0] : 1, row ? 1 : a->d[1]);
  e->in.B = w;
  e->in.g = 0;
  e->in.exact = 1;
  if (ty == TY_F32) {
    Expr *x = fn(G, F_CVT_F32, TY_F32, e, 0, 0);
    x->in = e->in;
    e = x;
  }
  return e;
}

/* reshape of a value of another shape with t's element count. */
static Expr *gen_reshape(Gen *G, int ty, Shape t, int depth) {
  if (t.rank == 0 || (ty != TY_F32 && ty != TY_I32)) return 0;
  Shape os[4];
  int n = 0;
  if (t.rank == 2) {
    int R = t.d[0], C = t.d[1];
    if (R > 1 && C > 1) os[n++] = shape(2, C, R);
    if (R * C <= 2048) os[n++] = shape(1, R * C, 0);
    if (C % 2 == 0) os[n++] = shape(2, R * 2, C / 2);
    if (R % 2 == 0) os[n++] = shape(2, R / 2, C * 2);
  } else {
    for (int a = 2; a <= 8 && n < 3; a *= 2)
      if (t.d[0] % a == 0) os[n++] = shape(2, a, t.d[0] / a);
  }
  if (!n) return 0;
  Shape o = os[pick(&G->s, n)];
  Expr *a = gen_in_k(G, ty, o, depth + 1, 6);
  if (!shape_eq(a, o)) a = gen_slice(G, ty, o);
  if (!a || !shape_eq(a, o)) return 0;
  Expr *e = fn(G, F_RESHAPE, ty, a, 0, 0);
  set_shape(e, t.rank, t.d[0], t.d[1]);
  e->in = a->in;
  return e;
}

/* rand(seed, off) or randn(seed, off) (f32), or i32(randint(seed, off) % m):
   off an i32 value of shape t (any bits: a negative one is its two's
   complement), seed an i32 scalar or an integer literal (an i64 one past
   32 bits). */
static Expr *gen_rand(Gen *G, int ty, Shape t, int depth) {
  Src *s = &G->s;
  Expr *seed = 0;
  if (chance(s, 40)) seed = gen_scalar_sym(G, TY_I32, 1);
  if (!seed) {
    static const double lits[] = {0, 7, -1, 12345678901.0, 4294967296.0, 2147483647};
    seed = lit(G, TY_I32, lits[pick(s, 6)]);
  }
  Expr *off = gen_exact(G, TY_I32, t, depth + 1);
  if (!off->in.exact) return 0;
  int f = ty == TY_I32 ? F_RANDINT : chance(s, 75) ? F_RAND : F_RANDN;
  Expr *e = fn(G, f, ty, seed, off, 0);
  set_shape(e, off->rank, off->d[0], off->d[1]);
  if (f == F_RANDINT) {
    static const double mods[] = {1000, 2, 65536, 7};
    e->num = mods[pick(s, 4)];
    e->in = (Info){e->num - 1, 0, 1};
  } else if (f == F_RAND) {
    e->in = (Info){1 - ldexp(1, -24), 24, 1}; /* multiples of 2^-24 below 1 */
  } else {
    e->in = (Info){6, 24, 0}; /* Box-Muller on 24-bit words: |x| <= sqrt(-2 ln 2^-24) < 5.8 */
  }
  return e;
}

static Expr *gen_expr(Gen *G, int ty, Shape t, int depth) {
  Src *s = &G->s;
  if (ty == TY_BOOL) return gen_cond(G, t, depth);
  if (G->p->rnd && (ty == TY_F32 || ty == TY_I32) && depth < 4 && chance(s, 10)) {
    Expr *e = gen_rand(G, ty, t, depth);
    if (e && fits(e->rank, e->d, t)) return e;
  }
  if (ty == TY_F8) { /* an f8 var, a slice of E or F, or a cast (rounded and saturated, exactly modelled) */
    Expr *e = chance(s, 40) ? gen_tile_read(G, TY_F8, t) : 0;
    if (!e && chance(s, 40)) e = gen_slice(G, TY_F8, t);
    if (e) return e;
    Expr *x = gen_exact(G, TY_F32, t, depth + 1);
    if (!x->in.exact) x = rand_lit(G, TY_F32);
    Expr *c = fn(G, F_CVT_F8, TY_F8, x, 0, 0);
    double fmax = G->p->f8e5m2 ? 57344 : 448;
    int fg = G->p->f8e5m2 ? 16 : 9; /* every value is a multiple of the smallest subnormal */
    c->in = x->in;
    if (c->in.B > fmax) c->in.B = fmax;
    if (c->in.g > fg) c->in.g = fg;
    c->in.exact = 1;
    return c;
  }
  if (ty == TY_F16) {
    Expr *e = gen_slice(G, TY_F16, t);
    if (e && !e->pad && chance(s, 70)) return e;
    if (!e || chance(s, 50)) {
      Expr *x = gen_exact(G, TY_F32, t, depth + 1);
      if (x->in.exact && x->in.B < 60000) { /* rounded to nearest even, exactly modelled */
        Expr *c = fn(G, F_CVT_F16, TY_F16, x, 0, 0);
        c->in = x->in;
        c->in = fix_info(TY_F16, c->in);
        if (!c->in.exact) c->in.g = 24;
        return c;
      }
      Expr *c = fn(G, F_CVT_F16, TY_F16, rand_lit(G, TY_F32), 0, 0);
      c->in = c->a[0]->in;
      return c;
    }
    return e;
  }
  if (depth >= 5 || (depth >= 2 && chance(s, 35))) return gen_leaf(G, ty, t);
  Expr *e = 0;
  if (G->p->ir && !G->no_tiles && chance(s, 22)) {
    int c = pick(s, 20);
    if (c < 7) e = gen_scan(G, ty, t, depth);
    else if (c < 14) e = gen_argred(G, ty, t, depth);
    else if (c < 17) e = gen_gather(G, ty, t);
    else e = gen_reshape(G, ty, t, depth);
    if (e && info_ok(ty, e->in) && e->in.B <= 1e7 && fits(e->rank, e->d, t)) return e;
    e = 0;
  }
  switch (pick(s, 15)) {
  case 0:
    return gen_leaf(G, ty, t);
  case 1: case 2: case 3: { /* arithmetic */
    static const char ops[] = "+-*+-mM";
    int op = ops[pick(s, 7)];
    Expr *a = gen_expr(G, ty, sub_shape(G, t), depth + 1);
    /* ranks mix: a rank-1 [n] operand as the row of a rank-2 one */
    int mix = G->p->ir && t.rank == 2 && a->rank == 2 && a->d[1] == t.d[1] && chance(s, 20);
    Expr *b = gen_expr(G, ty, mix ? shape(1, t.d[1], 0) : sub_shape(G, t), depth + 1);
    if (mix && chance(s, 50)) e = bin(G, op, b, a);
    else e = bin(G, op, a, b);
    break;
  }
  case 12: { /* bitwise operations and shifts of i32 */
    if (ty != TY_I32) break;
    int op = "aoxLR"[pick(s, 5)];
    Expr *a = gen_expr(G, ty, sub_shape(G, t), depth + 1);
    Expr *b = op == 'L' || op == 'R' ? lit(G, TY_I32, pick(s, 4)) : gen_expr(G, ty, sub_shape(G, t), depth + 1);
    if (op == 'L') { /* only non-negative values are shifted left */
      Expr *n = fn(G, F_ABS, ty, a, 0, 0);
      n->in = a->in;
      a = n;
    }
    e = bin(G, op, a, b);
    break;
  }
  case 4: { /* division or modulo */
    Expr *a = gen_expr(G, ty, sub_shape(G, t), depth + 1);
    Expr *b = gen_divisor(G, ty, t, depth);
    e = bin(G, ty == TY_I32 && chance(s, 40) ? '%' : '/', a, b);
    if (ty != TY_I32 && b->k == E_NUM && (b->num == 2 || b->num == 4 || b->num == 8 || b->num == -2 || b->num == 0.5))
      e->in.exact = a->in.exact, e->in.g = a->in.g + 3, e->in.B = a->in.B * 2, e->in = fix_info(ty, e->in);
    break;
  }
  case 5: { /* unary */
    Expr *a = gen_expr(G, ty, t, depth + 1);
    if (chance(s, 50)) {
      e = new_expr(G, E_NEG, ty);
      e->a[0] = a;
      set_shape(e, a->rank, a->d[0], a->d[1]);
    } else {
      e = fn(G, F_ABS, ty, a, 0, 0);
    }
    e->in = a->in;
    break;
  }
  case 6: { /* where */
    Expr *c = gen_cond(G, sub_shape(G, t), depth + 1);
    Expr *a = gen_expr(G, ty, sub_shape(G, t), depth + 1);
    Expr *b = gen_expr(G, ty, sub_shape(G, t), depth + 1);
    e = fn(G, F_WHERE, ty, c, a, b);
    bcast(e, c, a);
    Expr tmp = *e;
    bcast(e, &tmp, b);
    e->in.B = a->in.B > b->in.B ? a->in.B : b->in.B;
    e->in.g = a->in.g > b->in.g ? a->in.g : b->in.g;
    e->in.exact = a->in.exact && b->in.exact;
    break;
  }
  case 7: { /* math and casts */
    if (ty == TY_F32) {
      int w = pick(s, 4);
      if (w == 3) { /* other math: bounded arguments, positive where a log or rsqrt needs it */
        static const int fs[] = {F_EXP2, F_LOG, F_LOG2, F_RSQRT, F_SIN, F_COS, F_TANH, F_SIGMOID, F_FLOOR, F_CEIL};
        int f = fs[pick(s, 10)];
        Expr *a = gen_expr(G, TY_F32, t, depth + 1);
        if (f == F_FLOOR || f == F_CEIL) { /* a step function: only of exact values */
          if (!a->in.exact) break;
          e = fn(G, f, TY_F32, a, 0, 0);
          e->in = a->in;
          e->in.B = a->in.B + 1;
          break;
        }
        if (f == F_LOG || f == F_LOG2 || f == F_RSQRT) { /* abs(a) + 1 */
          Expr *n = fn(G, F_ABS, TY_F32, a, 0, 0);
          n->in = a->in;
          a = bin(G, '+', n, lit(G, TY_F32, 1));
        } else if (a->in.B > 8 && f != F_TANH && f != F_SIGMOID) { /* -abs(a) / 64 ... keep it small */
          a = bin(G, '/', a, lit(G, TY_F32, 1 << ((int)ceil(log2(a->in.B / 8)) < 20 ? (int)ceil(log2(a->in.B / 8)) : 20)));
        }
        e = fn(G, f, TY_F32, a, 0, 0);
        e->in.B = f == F_EXP2 ? exp2(a->in.B) : f == F_LOG || f == F_LOG2 ? log2(a->in.B) + 1 : 1;
        e->in.g = 24;
        e->in.exact = 0;
        break;
      }
      if (w == 0) {
        Expr *a = gen_expr(G, TY_F32, t, depth + 1);
        if (a->in.B > 6) {
          Expr *n = fn(G, F_ABS, TY_F32, a, 0, 0);
          n->in = a->in;
          Expr *m = new_expr(G, E_NEG, TY_F32);
          m->a[0] = n;
          set_shape(m, n->rank, n->d[0], n->d[1]);
          m->in = a->in;
          a = m;
        }
        e = fn(G, F_EXP, TY_F32, a, 0, 0);
        e->in.B = a->in.B > 6 ? 1 : exp(a->in.B);
        e->in.exact = 0;
      } else if (w == 1) {
        Expr *a = gen_expr(G, TY_F32, t, depth + 1);
        Expr *n = fn(G, F_ABS, TY_F32, a, 0, 0);
        n->in = a->in;
        Expr *x = bin(G, '+', n, lit(G, TY_F32, 1));
        e = fn(G, F_SQRT, TY_F32, x, 0, 0);
        e->in.B = sqrt(x->in.B) + 1;
        e->in.exact = 0;
      } else {
        Expr *a = chance(s, 50)                    ? gen_exact(G, TY_I32, t, depth + 1)
                  : G->p->f8 && chance(s, 50) ? gen_expr(G, TY_F8, t, depth + 1)
                                              : gen_expr(G, TY_F16, t, depth + 1);
        e = fn(G, F_CVT_F32, TY_F32, a, 0, 0);
        e->in = a->in;
        e->in = fix_info(TY_F32, e->in);
        if (!e->in.exact) e = 0; /* an i32 above 2^24 would round */
      }
    } else {
      Expr *a = gen_exact(G, TY_F32, t, depth + 1);
      if (a->in.exact && a->in.B < I32_LIMIT) {
        e = fn(G, F_CVT_I32, TY_I32, a, 0, 0);
        e->in.B = a->in.B;
        e->in.g = 0;
        e->in.exact = 1;
      }
    }
    break;
  }
  case 8: case 9: { /* reductions */
    if (t.rank == 2 && (t.d[1] == 1 || t.d[0] == 1) && !(t.d[0] == 1 && t.d[1] == 1 && chance(s, 50))) {
      int row = t.d[1] == 1;
      static const int ws[] = {1, 4, 8, 16, 32, 64, 3};
      int w = chance(s, 60) ? (row ? G->bn : G->p->bm) : ws[pick(s, 7)];
      if (G->p->ir && row && w == 1) w = 4;
      Shape at = row ? shape(2, t.d[0], w) : shape(2, w, t.d[1]);
      const int *rr = G->red[!row];
      if (G->p->ir && rr[0] && (row ? rr[0] == t.d[0] : rr[1] == t.d[1])) at = shape(2, rr[0], rr[1]);
      int k = pick(s, 3);
      int f = (row ? F_ROWSUM : F_COLSUM) + k;
      Expr *a;
      if (k && ty == TY_F32 && chance(s, 30) && (a = gen_slice(G, TY_F32, at)) && !a->pad && red_ok(G, row, a)) {
        /* max/min of a slice padded with -inf/inf, clamped to a finite value */
        a->pad = 1;
        a->a[0] = lit(G, TY_F32, k == 1 ? -INFINITY : INFINITY);
        a->a[0]->in.B = 0;
        Expr *r = fn(G, f, ty, a, 0, 0);
        set_shape(r, 2, t.d[0], t.d[1]);
        r->in = a->in;
        r->in.B = 2;
        e = bin(G, k == 1 ? 'M' : 'm', r, lit(G, TY_F32, k == 1 ? -3 : 3));
        e->in.B = 3;
        break;
      }
      a = gen_in_k(G, ty, at, depth + 1, 1 + !row);
      if (a->rank != 2) break;
      if (G->p->ir && row && a->d[1] == 1) break; /* the tile IR declines a row reduction of one column */
      if (!red_ok(G, row, a)) break;
      e = fn(G, f, ty, a, 0, 0);
      set_shape(e, 2, row ? a->d[0] : 1, row ? 1 : a->d[1]);
      e->in = a->in;
      if (!k) e->in.B = a->in.B * (row ? (a->d[1] ? a->d[1] : 1) : (a->d[0] ? a->d[0] : 1));
      e->in = fix_info(ty, e->in);
    } else if (!G->no_tiles && (t.rank == 0 || chance(s, 30))) {
      static const int ws[] = {1, 4, 8, 16, 32, 64, 3, 5};
      Shape at = chance(s, 70) ? shape(2, G->p->bm, chance(s, 50) ? G->bn : ws[pick(s, 8)])
                               : shape(1, ws[pick(s, 8)], 0);
      Expr *a = gen_in_k(G, ty, at, depth + 1, 3);
      if (a->rank == 0) break;
      if (G->p->ir && a->rank == 2 && (a->d[0] == 1 || a->d[1] == 1)) break; /* declined: sum() of a row or column */
      e = fn(G, F_SUM, ty, a, 0, 0);
      set_shape(e, 0, 0, 0);
      double n = a->rank == 0 ? 1 : a->rank == 1 ? a->d[0] : (double)a->d[0] * a->d[1];
      e->in = a->in;
      e->in.B = a->in.B * n;
      e->in = fix_info(ty, e->in);
    }
    break;
  }
  case 10: { /* dot */
    if (ty != TY_F32 || t.rank != 2 || G->p->ir) break;
    static const int ks[] = {1, 4, 8, 16, 32};
    int kk = chance(s, 60) ? G->bk : ks[pick(s, 5)];
    int oty = chance(s, 30) ? TY_F16 : TY_F32;
    Expr *a = gen_dot_operand(G, oty, t.d[0], kk);
    Expr *b = a ? gen_dot_operand(G, oty, kk, t.d[1]) : 0;
    if (!a || !b) break;
    e = fn(G, F_DOT, TY_F32, a, b, 0);
    set_shape(e, 2, t.d[0], t.d[1]);
    e->in.B = kk * a->in.B * b->in.B;
    e->in.g = a->in.g + b->in.g;
    e->in.exact = a->in.exact && b->in.exact;
    e->in = fix_info(TY_F32, e->in);
    break;
  }
  case 11: { /* transpose of a tile var or a slice */
    if (t.rank != 2) break;
    Shape tt = shape(2, t.d[1], t.d[0]);
    int r = G->crank, d0 = G->cd[0], d1 = G->cd[1];
    G->crank = 72, G->cd[0] = tt.d[0], G->cd[1] = tt.d[1];
    Expr *a = chance(s, 50) ? gen_dot_operand(G, ty, tt.d[0], tt.d[1]) : gen_slice(G, ty, tt);
    G->crank = r, G->cd[0] = d0, G->cd[1] = d1;
    if (!a || !shape_eq(a, tt)) break;
    e = fn(G, F_TRANSPOSE, ty, a, 0, 0);
    set_shape(e, 2, t.d[0], t.d[1]);
    e->in = a->in;
    break;
  }
  default:
    return gen_leaf(G, ty, t);
  }
  if (!e || !info_ok(ty, e->in) || e->in.B > 1e7 || !fits(e->rank, e->d, t)) return gen_leaf(G, ty, t);
  return e;
}

/* ------------------------------------------------------------ statement generation */

static Stmt *gen_block(Gen *G, int nmin, int nmax);

/* How many times a statement here runs per run of the declaration of sym. */
static double runs_since(const Gen *G, int sym) {
  double c = 1;
  for (int i = G->p->syms[sym].depth; i < G->nloops; i++) c *= G->loops[i].trips;
  return c;
}

static void scope_add(Gen *G, int sym) {
  if (sym >= 0 && G->nscope < MAX_SYMS) G->scope[G->nscope++] = sym;
}

static const Shape *pick_tile_shape(Gen *G, Shape *out) {
  TlgenProgram *p = G->p;
  int bm = p->bm, bn = G->bn, bk = G->bk;
  switch (pick(&G->s, 10)) {
  case 1: *out = shape(2, bm, 1); break;
  case 2: *out = shape(2, 1, bn); break;
  case 3: *out = shape(2, bn, bm); break;
  case 4: *out = shape(2, bm, bk); break;
  case 5: *out = shape(2, bk, bn); break;
  case 6: *out = shape(1, bn, 0); break;
  case 7: *out = shape(1, chance(&G->s, 50) ? bm : 2 * bn, 0); break;
  default: *out = shape(2, bm, bn); break;
  }
  return out;
}

/* var NAME[: type] = e */
static Stmt *gen_decl_as(Gen *G, Shape t, int ty, int scalar);

static Stmt *gen_decl(Gen *G, int scalar) {
  Shape t;
  int ty;
  if (scalar) {
    t = shape(0, 0, 0);
    ty = chance(&G->s, 60) ? TY_F32 : TY_I32;
  } else {
    pick_tile_shape(G, &t);
    int c = pick(&G->s, 20);
    ty = c < 14 ? TY_F32 : c < 17 ? TY_I32 : c < 19 ? TY_F16 : TY_BOOL;
    if (ty == TY_F16 && t.rank != 2) ty = TY_F32;
    if (ty == TY_BOOL && G->p->f8 && chance(&G->s, 50)) ty = TY_F8;
  }
  return gen_decl_as(G, t, ty, scalar);
}

/* var name: ty[t] = a random value of the shape. */
static Stmt *gen_decl_as(Gen *G, Shape t, int ty, int scalar) {
  TlgenProgram *p = G->p;
  Expr *init = gen_in(G, ty, t, 0);
  char name[16];
  sym_name(G, name, sizeof name, scalar ? (ty == TY_I32 ? "j" : "s") : "t");
  int sym = add_sym(p, name, SY_VAR, ty, t.rank, t.d[0], t.d[1]);
  if (sym < 0) return 0;
  Sym *y = &p->syms[sym];
  y->depth = G->nloops;
  Info env = init->in;
  if (env.B < 1) env.B = 1;
  if (ty == TY_F16 || ty == TY_BOOL || ty == TY_F8) {
    env.B = init->in.B;
  } else if (ty == TY_I32) {
    env.B = env.B * (1 << pick(&G->s, 8)) + 8;
    if (env.B >= I32_LIMIT) env.B = I32_LIMIT / 2;
  } else {
    if (env.exact && chance(&G->s, 70)) {
      if (env.g < 3) env.g = 3;
      env.B = env.B * (1 << pick(&G->s, 8)) + 4;
      env = fix_info(TY_F32, env);
    } else {
      env.exact = 0;
      env.B = env.B * (1 << pick(&G->s, 10)) + 16;
    }
  }
  y->env = env;
  y->used = init->in.B;
  int n = t.rank == 0 ? 1 : t.rank == 1 ? t.d[0] : t.d[0] * t.d[1];
  /* with the tile IR, a tile with a unit dim may take another tile's layout: not in registers */
  int unit = p->ir && (t.rank == 1 || t.d[0] == 1 || t.d[1] == 1);
  if (t.rank > 0 && !G->in_cond && !unit && ty != TY_F16 && ty != TY_BOOL && p->nregs < 8 && n % p->threads == 0 &&
      n / p->threads <= 64 && chance(&G->s, 40)) {
    y->is_reg = 1;
    p->regs[p->nregs++] = sym;
  }
  Stmt *s = new_stmt(G, S_VAR);
  s->sym = sym;
  s->rhs = init;
  /* print the type unless the value has it already */
  s->op = !(init->ty == ty && shape_eq(init, t) && (ty != TY_F32 || t.rank > 0 || init->k != E_NUM) &&
            (t.rank > 0 || ty == TY_F32 || init->k == E_NUM) && chance(&G->s, 40));
  if (t.rank == 0 && ty == TY_I32 && init->k != E_NUM) s->op = 1;
  scope_add(G, sym);
  if (t.rank > 0 && !y->is_reg && chance(&G->s, 15)) { /* var t: tile<..>[..] then t = e */
    Stmt *a = new_stmt(G, S_ASSIGN);
    a->op = '=';
    a->lhs = sym_expr(G, sym);
    a->rhs = init;
    s->rhs = 0;
    s->op = 1;
    s->next = a;
  }
  return s;
}

/* attention's second product: var v = G[row0 :+ n, 0 :+ n2]; acc2 += dot(f16(x), v)
   (x: [m, n]); returns the first statement, the second after it */
static Stmt *gen_pv(Gen *G, int pb, int v, Expr *row0, int n, int n2, int acc2, int x, int m) {
  TlgenProgram *p = G->p;
  Expr *e = new_expr(G, E_SLICE, TY_F16);
  e->sym = p->param_sym[pb];
  e->nidx = 2;
  e->start[0] = row0;
  e->start[1] = lit(G, TY_I32, 0);
  e->len[0] = n;
  e->len[1] = n2;
  e->in = p->syms[v].env;
  set_shape(e, 2, n, n2);
  Stmt *lv = new_stmt(G, S_VAR);
  lv->sym = v;
  lv->rhs = e;
  Stmt *u2 = new_stmt(G, S_ASSIGN);
  u2->op = '+';
  u2->lhs = sym_expr(G, acc2);
  Expr *cv = fn(G, F_CVT_F16, TY_F16, sym_expr(G, x), 0, 0);
  u2->rhs = fn(G, F_DOT, TY_F32, cv, sym_expr(G, v), 0);
  set_shape(u2->rhs, 2, m, n2);
  lv->next = u2;
  return lv;
}

/* The GEMM idiom: an accumulator (in registers when it can be), a loop over K
   loading operand tiles, acc += dot(a, b). wg: f16, with 16 accumulator rows
   per warp (warps in 4s). */
static Stmt *gen_gemm(Gen *G, int wg) {
  TlgenProgram *p = G->p;
  if (G->sK < 0 || G->in_cond || G->nloops || p->ir) return 0;
  int f16 = 0, pa = -1, pb = -1;
  for (int i = 0; i < p->nparams; i++) {
    if (!strcmp(p->params[i].name, "H")) f16 = 1;
  }
  f16 = wg || (f16 && chance(&G->s, 70));
  /* TLGEN_I8: i8 operands, an i32 accumulator (in most programs that have them) */
  int i8 = 0;
  for (int i = 0; i < p->nparams; i++)
    if (!strcmp(p->params[i].name, "I")) i8 = chance(&G->s, 75);
  /* TLGEN_F8: f8 operands, an f32 accumulator (as often) */
  int f8 = 0;
  for (int i = 0; i < p->nparams && !i8; i++)
    if (!strcmp(p->params[i].name, "E")) f8 = chance(&G->s, 75);
  if (i8 || f8) f16 = 0;
  for (int i = 0; i < p->nparams; i++) {
    if (!strcmp(p->params[i].name, i8 ? "I" : f8 ? "E" : f16 ? "H" : "A")) pa = i;
    if (!strcmp(p->params[i].name, i8 ? "J" : f8 ? "F" : f16 ? "G" : "B")) pb = i;
  }
  int oty = i8 ? TY_I8 : f8 ? TY_F8 : f16 ? TY_F16 : TY_F32;
  /* B stored [N, K]: dot(a, transpose(b)), the 8-bit dots' fast form */
  int bt = f8 && p->params[pb].dim[0] == -1 - G->sN;
  static const int ns[] = {8, 16, 32, 64};
  int m = p->bm >= 16 ? p->bm : 16, n = chance(&G->s, 50) ? G->bn : ns[pick(&G->s, 4)];
  if (wg) m = 16 * (p->threads / 32); /* the shape wgmma takes on sm_90a */
  /* TLGEN_WG_LOOP: attention's loop (below), s's columns the second product's k */
  int loop2 = wg && G->s.wgloop && chance(&G->wg, 70);
  if (loop2) n = 16 << pick(&G->wg, 3);
  if (m * n > 2048) n = 2048 / m;
  int ks = chance(&G->s, 60) ? 16 : 32;
  if (i8 || f8) ks *= 2; /* the 8-bit matrix instructions take k in 32s */
  int deep = G->s.deep && (f16 || i8 || f8); /* TLGEN_DEEP, for a dot the matrix unit takes */
  if (deep) ks = i8 || f8 ? 128 : 64;         /* 4 k steps of the matrix instruction */
  char name[16];
  snprintf(name, sizeof name, "acc%d", p->nsyms);
  int acc = add_sym(p, name, SY_VAR, i8 ? TY_I32 : TY_F32, 2, m, n);
  if (acc < 0) return 0;
  double kmax = p->size_max[G->sK] + ks;
  p->syms[acc].env.B = i8 ? kmax * 8 * 8 + 8 : kmax * 4 * 4 + 8;
  p->syms[acc].env.g = i8 ? 0 : 6;
  p->syms[acc].env.exact = 1;
  p->syms[acc].used = i8 ? kmax * 64 : kmax * 4;
  if (m * n % p->threads == 0 && m * n / p->threads <= 64 && p->nregs < 8 && chance(&G->s, 80)) {
    p->syms[acc].is_reg = 1;
    p->regs[p->nregs++] = acc;
  }
  Stmt *d = new_stmt(G, S_VAR);
  d->sym = acc;
  d->op = 1;
  d->rhs = lit(G, i8 ? TY_I32 : TY_F32, 0);
  Stmt *f = new_stmt(G, S_FOR);
  d->next = f;
  snprintf(name, sizeof name, "k%d", p->nsyms);
  int kv = add_sym(p, name, SY_LOOP, TY_I32, 0, 0, 0);
  if (kv < 0) return 0;
  p->syms[kv].env.B = kmax;
  p->syms[kv].env.exact = 1;
  f->sym = kv;
  f->lo = lit(G, TY_I32, 0);
  int ksym = -1;
  for (int i = 0; i < p->nsyms; i++)
    if (p->syms[i].kind == SY_SIZE && p->syms[i].index == G->sK) ksym = i;
  f->hi = sym_expr(G, ksym);
  f->step = ks;
  if (chance(&G->s, 50)) f->pipeline = range_pick(&G->s, 2, 3);
  if (deep) f->pipeline = 8; /* no draw of its own */
  /* var a = A[r :+ m, k :+ ks]; var b = B[k :+ ks, c :+ n] */
  int ab[2];
  Stmt *ld[2];
  for (int w = 0; w < 2; w++) {
    snprintf(name, sizeof name, "%c%d", w ? 'b' : 'a', p->nsyms);
    int d0 = w ? (bt ? n : ks) : m, d1 = w ? (bt ? ks : n) : ks;
    ab[w] = add_sym(p, name, SY_VAR, oty, 2, d0, d1);
    if (ab[w] < 0) return 0;
    p->syms[ab[w]].env.B = i8 ? 8 : 2;
    p->syms[ab[w]].env.g = i8 ? 0 : 3;
    p->syms[ab[w]].env.exact = 1;
    p->syms[ab[w]].depth = 1;
    Expr *e = new_expr(G, E_SLICE, oty);
    e->sym = p->param_sym[w ? pb : pa];
    e->nidx = 2;
    e->in = p->syms[ab[w]].env;
    Expr *other = w ? lit(G, TY_I32, chance(&G->s, 70) ? 0 : n * pick(&G->s, 3))
                    : p->r0 >= 0 ? sym_expr(G, p->r0) : lit(G, TY_I32, chance(&G->s, 70) ? 0 : pick(&G->s, 20));
    int kd = w && !bt ? 0 : 1; /* the dim k runs along */
    e->start[1 - kd] = other;
    e->start[kd] = sym_expr(G, kv);
    e->len[0] = d0;
    e->len[1] = d1;
    if (!w && chance(&G->s, 20)) {
      e->pad = 1;
      e->a[0] = lit(G, oty, 0);
    }
    set_shape(e, 2, e->len[0], e->len[1]);
    ld[w] = new_stmt(G, S_VAR);
    ld[w]->sym = ab[w];
    ld[w]->rhs = e;
  }
  Stmt *u = new_stmt(G, S_ASSIGN);
  u->op = '+';
  u->lhs = sym_expr(G, acc);
  Expr *bop = sym_expr(G, ab[1]);
  if (bt) {
    bop = fn(G, F_TRANSPOSE, oty, bop, 0, 0);
    set_shape(bop, 2, ks, n);
    bop->in = p->syms[ab[1]].env;
  }
  u->rhs = fn(G, F_DOT, i8 ? TY_I32 : TY_F32, sym_expr(G, ab[0]), bop, 0);
  set_shape(u->rhs, 2, m, n);
  ld[0]->next = ld[1];
  ld[1]->next = u;
  f->body = ld[0];
  scope_add(G, acc);
  if (loop2) {
    /* TLGEN_WG_LOOP: attention's two products in the loop, the second's A the first's
       result in registers (on sm_90a with 3 stages, the second is deferred into the
       next iteration):
         var acc2 = 0
         for k .. { var a, b (as above); var s = dot(a, b); [acc2 += 1.0];
                    var v = G[k :+ n, 0 :+ n2]; acc2 += dot(f16(s), v) }
       acc stays 0. */
    int n2 = ns[1 + pick(&G->wg, 3)];
    snprintf(name, sizeof name, "s%d", p->nsyms);
    int sv = add_sym(p, name, SY_VAR, TY_F32, 2, m, n);
    snprintf(name, sizeof name, "v%d", p->nsyms);
    int v = add_sym(p, name, SY_VAR, TY_F16, 2, n, n2);
    snprintf(name, sizeof name, "acc%d", p->nsyms);
    int acc2 = add_sym(p, name, SY_VAR, TY_F32, 2, m, n2);
    if (sv < 0 || v < 0 || acc2 < 0) return d;
    int bump = chance(&G->wg, 50);
    double iters = kmax / ks + 1, sb = ks * 4.0 + 8;
    p->syms[sv].env = (Info){sb, 6, 1};
    p->syms[sv].used = sb;
    p->syms[sv].depth = 1;
    p->syms[v].env = (Info){2, 3, 1};
    p->syms[v].depth = 1;
    p->syms[acc2].env = (Info){iters * (sb * 2 * n + 1) + 8, 30, 0};
    p->syms[acc2].used = iters * (sb * 2 * n + 1);
    if (m * n2 % p->threads == 0 && m * n2 / p->threads <= 64 && p->nregs < 7) {
      p->syms[acc2].is_reg = 1;
      p->regs[p->nregs++] = acc2;
      if (m * n % p->threads == 0 && m * n / p->threads <= 64) {
        p->syms[sv].is_reg = 1;
        p->regs[p->nregs++] = sv;
      }
    }
    /* var s = dot(a, b) in place of acc += dot(a, b) */
    u->k = S_VAR;
    u->sym = sv;
    u->op = 0;
    u->lhs = 0;
    Stmt *lv = gen_pv(G, pb, v, sym_expr(G, kv), n, n2, acc2, sv, m);
    Stmt *tail = u;
    if (bump) {
      Stmt *b1 = new_stmt(G, S_ASSIGN);
      b1->op = '+';
      b1->lhs = sym_expr(G, acc2);
      b1->rhs = lit(G, TY_F32, 1);
      tail->next = b1;
      tail = b1;
    }
    tail->next = lv;
    Stmt *d2 = new_stmt(G, S_VAR);
    d2->sym = acc2;
    d2->op = 1;
    d2->rhs = lit(G, TY_F32, 0);
    d->next = d2;
    d2->next = f;
    if (chance(&G->wg, 70)) f->pipeline = 3;
    scope_add(G, acc2);
    return d;
  }
  if (f16 && chance(&G->s, 50)) {
    /* attention's second product: var v = G[..]; var acc2 = 0; acc2 += dot(f16(acc), v) */
    int n2 = ns[pick(&G->s, 4)];
    snprintf(name, sizeof name, "v%d", p->nsyms);
    int v = add_sym(p, name, SY_VAR, TY_F16, 2, n, n2);
    snprintf(name, sizeof name, "acc%d", p->nsyms);
    int acc2 = add_sym(p, name, SY_VAR, TY_F32, 2, m, n2);
    if (v < 0 || acc2 < 0) return d;
    p->syms[v].env = (Info){2, 3, 1};
    p->syms[acc2].env = (Info){p->syms[acc].env.B * 2 * n + 8, 30, 0};
    p->syms[acc2].used = p->syms[acc].env.B * 2 * n;
    if (m * n2 % p->threads == 0 && m * n2 / p->threads <= 64 && p->nregs < 8) {
      p->syms[acc2].is_reg = 1;
      p->regs[p->nregs++] = acc2;
    }
    Stmt *lv = gen_pv(G, pb, v, lit(G, TY_I32, 0), n, n2, acc2, acc, m), *u2 = lv->next;
    Stmt *d2 = new_stmt(G, S_VAR);
    d2->sym = acc2;
    d2->op = 1;
    d2->rhs = lit(G, TY_F32, 0);
    f->next = lv;
    lv->next = d2;
    d2->next = u2;
    scope_add(G, v);
    scope_add(G, acc2);
  }
  return d;
}

/* A store by every thread of its own elements, under a thread-dependent if:
   for c in range(0, N, threads) { if ctx.thread + c < N { O[row, ctx.thread + c] = e } } */
static Stmt *gen_perthread(Gen *G) {
  TlgenProgram *p = G->p;
  if (G->in_while || G->nloops || p->grid == 2) return 0;
  int cand[MAX_PARAMS], n = 0;
  for (int i = 0; i < p->nparams; i++) {
    const TlgenParam *q = &p->params[i];
    if (q->is_output && !p->akind[i] && q->elem != TY_F8 && q->rank >= 2 && q->dim[q->rank - 1] == -1 - G->sN &&
        q->dim[q->rank - 2] == -1 - G->sM)
      cand[n++] = i;
  }
  if (!n) return 0;
  int pi = cand[pick(&G->s, n)];
  const TlgenParam *q = &p->params[pi];
  char name[16];
  snprintf(name, sizeof name, "c%d", p->nsyms);
  int cv = add_sym(p, name, SY_LOOP, TY_I32, 0, 0, 0);
  if (cv < 0) return 0;
  p->syms[cv].env.B = p->size_max[G->sN] + p->threads;
  p->syms[cv].env.exact = 1;
  int nsym = -1;
  for (int i = 0; i < p->nsyms; i++)
    if (p->syms[i].kind == SY_SIZE && p->syms[i].index == G->sN) nsym = i;
  Expr *th = new_expr(G, E_THREAD, TY_I32);
  th->in.B = p->threads;
  th->in.exact = 1;
  Expr *col = bin(G, '+', th, sym_expr(G, cv));
  Stmt *f = new_stmt(G, S_FOR);
  f->sym = cv;
  f->lo = lit(G, TY_I32, 0);
  f->hi = sym_expr(G, nsym);
  f->step = p->threads;
  Stmt *c = new_stmt(G, S_IF);
  c->lo = bin(G, '<', col, sym_expr(G, nsym));
  f->body = c;
  Expr *e = new_expr(G, E_SLICE, q->elem);
  e->sym = p->param_sym[pi];
  e->nidx = q->rank;
  for (int i = 0; i < q->rank - 2; i++) e->start[i] = lit(G, TY_I32, pick(&G->s, q->dim[i]));
  int k = pick(&G->s, p->bm);
  e->start[q->rank - 2] = p->r0 >= 0 ? bin(G, '+', sym_expr(G, p->r0), lit(G, TY_I32, k)) : lit(G, TY_I32, k);
  e->start[q->rank - 1] = col;
  Stmt *st = new_stmt(G, S_ASSIGN);
  st->op = chance(&G->s, 70) ? '=' : '+';
  st->lhs = e;
  int mark = G->nscope;
  scope_add(G, cv);
  G->no_tiles = 1;
  Expr *v = gen_expr(G, q->elem, shape(0, 0, 0), 1);
  G->no_tiles = 0;
  G->nscope = mark;
  /* plus the thread's own element of an input, or its index */
  Expr *x = gen_slice(G, q->elem, shape(0, 0, 0));
  if (x && x->nidx >= 2 && chance(&G->s, 70)) {
    x->start[x->nidx - 1] = col;
    x->pad = 0;
  } else {
    x = new_expr(G, E_THREAD, TY_I32);
    x->in.B = p->threads;
    if (q->elem == TY_F32) {
      x = fn(G, F_CVT_F32, TY_F32, x, 0, 0);
      x->in.B = p->threads;
    }
  }
  st->rhs = bin(G, '+', v, x);
  c->body = st;
  Stmt *w = new_stmt(G, S_PERTHREAD);
  w->body = f;
  return w;
}

/* The elements of the var a target covers, for the envelope. */
/* sym += r (k 0), sym = max(sym, r) (1) or sym = min(r, sym) (2) for the fold
   r, charged to sym's envelope; 0 when r does not fit it. */
static Stmt *accumulation_stmt(Gen *G, int sym, Expr *r, int k) {
  Sym *y = &G->p->syms[sym];
  r->in = fix_info(y->ty, r->in);
  if (!info_ok(y->ty, r->in) || (y->env.exact && (!r->in.exact || r->in.g > y->env.g))) return 0;
  Stmt *st = new_stmt(G, S_ASSIGN);
  st->lhs = sym_expr(G, sym);
  if (!k) { /* each run adds at most the sum's bound */
    double charge = runs_since(G, sym) * r->in.B;
    if (y->used + charge > y->env.B) return 0;
    y->used += charge;
    st->op = '+';
    st->rhs = r;
    return st;
  }
  if (r->in.B > y->env.B) return 0; /* max and min stay within the larger bound */
  st->op = '=';
  st->rhs = k == 1 ? bin(G, 'M', sym_expr(G, sym), r) : bin(G, 'm', r, sym_expr(G, sym));
  return st;
}

/* y += sum(a) for the scalar var sym; 0 when the operand does not fit y's envelope. */
static Stmt *gen_sum_accumulation(Gen *G, int sym) {
  Sym *y = &G->p->syms[sym];
  static const int ws[] = {4, 8, 16, 32, 64, 128};
  Shape at = chance(&G->s, 70) ? shape(2, G->p->bm, chance(&G->s, 50) ? G->bn : ws[pick(&G->s, 6)]) : shape(1, ws[pick(&G->s, 6)], 0);
  Expr *a = gen_in_k(G, y->ty, at, 1, 3);
  if (a->rank == 0 || (a->rank == 2 && (a->d[0] == 1 || a->d[1] == 1))) return 0; /* the IR declines sum() of a row or column */
  Expr *r = fn(G, F_SUM, y->ty, a, 0, 0);
  set_shape(r, 0, 0, 0);
  r->in = a->in;
  r->in.B = a->in.B * (a->rank == 1 ? a->d[0] : (double)a->d[0] * a->d[1]);
  return accumulation_stmt(G, sym, r, 0);
}

/* y += rowsum(a), y = max(y, rowmax(a)) or y = min(rowmin(a), y) for the
   [n, 1] var sym (colsum, colmax, colmin for a [1, n] one; y += sum(a) for a
   scalar one); 0 when the operand does not fit y's envelope. */
static Stmt *gen_accumulation(Gen *G, int sym) {
  Sym *y = &G->p->syms[sym];
  if (y->rank == 0) return gen_sum_accumulation(G, sym);
  int row = y->d[1] == 1; /* else a [1, n] var: a column reduction */
  static const int ws[] = {4, 8, 16, 32, 64, 128, 3};
  int w = chance(&G->s, 60) ? (row ? G->bn : G->p->bm) : ws[pick(&G->s, 7)], k = pick(&G->s, 3);
  if (w < 2) w = 4;
  Shape at = row ? shape(2, y->d[0], w) : shape(2, w, y->d[1]);
  Expr *a = 0;
  int ok = 0;
  for (int tries = 0; tries < 4 && !ok; tries++) { /* an operand of the whole shape, not one that broadcasts */
    ctx_enter(G, shape(2, y->d[0], y->d[1]));
    a = gen_in_k(G, y->ty, at, 1, 1 + !row);
    ok = a->rank == 2 && a->d[0] == at.d[0] && a->d[1] == at.d[1] && red_ok(G, row, a);
    ctx_leave(G);
  }
  if (!ok) return 0;
  Expr *r = fn(G, (row ? F_ROWSUM : F_COLSUM) + k, y->ty, a, 0, 0);
  set_shape(r, 2, y->d[0], y->d[1]);
  r->in = a->in;
  if (!k) r->in.B = a->in.B * (row ? a->d[1] : a->d[0]);
  return accumulation_stmt(G, sym, r, k);
}

static Stmt *gen_update(Gen *G) {
  TlgenProgram *p = G->p;
  int cand[MAX_SYMS], n = 0;
  for (int i = 0; i < G->nscope; i++) {
    const Sym *y = &p->syms[G->scope[i]];
    if (y->kind != SY_VAR || y->fixed || G->scope[i] == p->r0 || y->ty == TY_F16 || y->ty == TY_BOOL || y->ty == TY_I8 ||
        y->ty == TY_F8)
      continue;
    if (y->is_reg && G->in_cond) continue;
    cand[n++] = G->scope[i];
  }
  if (!n) return 0;
  int sym = cand[pick(&G->s, n)];
  Sym *y = &p->syms[sym];
  Shape t = shape(y->rank, y->d[0], y->d[1]);
  Expr *lhs = sym_expr(G, sym);
  if (!y->is_reg && y->rank > 0 && chance(&G->s, 25)) { /* a sub-tile or an element */
    Expr *e = new_expr(G, E_TSLICE, y->ty);
    e->sym = sym;
    e->nidx = y->rank;
    int elem = chance(&G->s, 40);
    for (int i = 0; i < y->rank; i++) {
      int len = elem ? 0 : range_pick(&G->s, 1, y->d[i]);
      e->len[i] = len;
      e->start[i] = lit(G, TY_I32, pick(&G->s, y->d[i] - (len ? len : 1) + 1));
    }
    if (elem) set_shape(e, 0, 0, 0);
    else set_shape(e, y->rank, e->len[0], e->len[1]);
    t = shape(e->rank, e->d[0], e->d[1]);
    lhs = e;
  }
  int op = "=+-+*/"[pick(&G->s, 6)];
  Expr *rhs;
  if (op == '/' && (y->ty != TY_F32 || y->env.exact)) op = '*';
  if (op == '*') {
    rhs = lit(G, y->ty, -1);
  } else if (op == '/') {
    rhs = lit(G, y->ty, chance(&G->s, 50) ? 2 : 4);
  } else {
    rhs = gen_in(G, y->ty, t, 0);
    if (y->env.exact && (!rhs->in.exact || rhs->in.g > y->env.g)) return 0;
    double charge = runs_since(G, sym) * rhs->in.B;
    if (y->used + charge > y->env.B) return 0;
    y->used += charge;
  }
  Stmt *s = new_stmt(G, S_ASSIGN);
  s->op = op;
  s->lhs = lhs;
  s->rhs = rhs;
  return s;
}

/* A store to an output tensor; 0 when the enclosing loops leave no disjoint form. */
static Stmt *gen_store(Gen *G) {
  TlgenProgram *p = G->p;
  if (G->in_while) return 0;
  int cand[MAX_PARAMS], n = 0;
  for (int i = 0; i < p->nparams; i++)
    if (p->params[i].is_output && !p->akind[i]) cand[n++] = i;
  int pi = cand[pick(&G->s, n)];
  const TlgenParam *q = &p->params[pi];
  int rowdim = -1;
  for (int i = 0; i < q->rank; i++)
    if (q->dim[i] == -1 - G->sM) rowdim = i;
  int coldim = -1;
  for (int i = 0; i < q->rank; i++)
    if (q->dim[i] == -1 - G->sN) coldim = i;
  if (p->grid < 2) coldim = -1;
  /* only the blocks at index 0 of a grid axis store to a tensor without that axis's dim */
  int guardx = (p->grid == 1 && rowdim < 0) || (p->grid == 2 && coldim < 0);
  int guardy = p->grid == 2 && rowdim < 0;
  int claimed[TLGEN_MAX_RANK] = {0}, loopof[TLGEN_MAX_RANK];
  for (int i = 0; i < q->rank; i++) loopof[i] = -1;
  if (p->grid && rowdim >= 0) claimed[rowdim] = 1;
  if (coldim >= 0) claimed[coldim] = 1;
  for (int l = 0; l < G->nloops; l++) {
    int free[TLGEN_MAX_RANK], nf = 0;
    for (int i = 0; i < q->rank; i++)
      if (!claimed[i]) free[nf++] = i;
    if (!nf) return 0;
    int d = free[pick(&G->s, nf)];
    claimed[d] = 1;
    loopof[d] = l;
  }
  Expr *e = new_expr(G, E_SLICE, q->elem);
  e->sym = p->param_sym[pi];
  e->nidx = q->rank;
  int kept = 0, kd[2] = {0, 0};
  static const int lens[] = {1, 4, 8, 16, 32, 64, 3};
  for (int i = 0; i < q->rank; i++) {
    int len = 0;
    int maxlen = q->dim[i] >= 0 ? q->dim[i] + 2 : 64;
    if (loopof[i] >= 0) {
      const Loop *L = &G->loops[loopof[i]];
      Expr *v = sym_expr(G, L->sym);
      if (chance(&G->s, 20)) v = bin(G, '+', v, lit(G, TY_I32, range_pick(&G->s, 1, 3)));
      e->start[i] = v;
      if (kept < 2 && chance(&G->s, 75)) len = L->step <= 1 ? 1 : range_pick(&G->s, L->step > 8 ? L->step / 2 : 1, L->step);
    } else if (p->grid && i == rowdim) {
      int k = chance(&G->s, 70) ? 0 : pick(&G->s, p->bm);
      Expr *v = sym_expr(G, p->r0);
      if (k) v = bin(G, '+', v, lit(G, TY_I32, k));
      e->start[i] = v;
      if (kept < 2 && chance(&G->s, 85)) len = chance(&G->s, 70) ? p->bm - k : range_pick(&G->s, 1, p->bm - k);
    } else if (i == coldim) {
      int k = chance(&G->s, 70) ? 0 : pick(&G->s, p->bn);
      Expr *v = sym_expr(G, p->c0);
      if (k) v = bin(G, '+', v, lit(G, TY_I32, k));
      e->start[i] = v;
      if (kept < 2 && chance(&G->s, 85)) len = chance(&G->s, 70) ? p->bn - k : range_pick(&G->s, 1, p->bn - k);
    } else {
      int dimrow = i == rowdim || q->dim[i] == -1 - G->sM;
      if (kept < 2 && (i >= q->rank - 2 || chance(&G->s, 20))) {
        if (dimrow) len = chance(&G->s, 60) ? p->bm : lens[pick(&G->s, 7)];
        else if (q->dim[i] == -1 - G->sN) len = chance(&G->s, 60) ? G->bn : lens[pick(&G->s, 7)];
        else len = lens[pick(&G->s, 7)];
        if (len > maxlen) len = maxlen;
      }
      int st = chance(&G->s, 70) ? 0 : range_pick(&G->s, -2, 12);
      if (len == 0 && q->dim[i] >= 0) st = pick(&G->s, q->dim[i] + 1);
      e->start[i] = lit(G, TY_I32, st);
    }
    e->len[i] = len;
    if (len) kd[kept++] = len;
  }
  set_shape(e, kept, kd[0], kd[1]);
  Shape t = shape(kept, kd[0], kd[1]);
  Stmt *s = new_stmt(G, S_ASSIGN);
  s->op = chance(&G->s, 75) ? '=' : chance(&G->s, 50) ? '+' : '-';
  if (q->elem == TY_F8) s->op = '='; /* f8 += is an error */
  s->lhs = e;
  if (p->ir && kept == 1 && chance(&G->s, 30)) /* ranks mix: a [n, 1] or [1, n] value into a rank-1 slice */
    s->rhs = gen_in(G, q->elem, chance(&G->s, 50) ? shape(2, kd[0], 1) : shape(2, 1, kd[0]), 0);
  else
    s->rhs = gen_in(G, q->elem, t, 0);
  if (guardx || guardy) {
    Stmt *w = new_stmt(G, S_IF);
    Expr *gx = bin(G, '=', blockx(G), lit(G, TY_I32, 0)), *gy = bin(G, '=', blocky(G), lit(G, TY_I32, 0));
    w->lo = guardx && guardy ? bin(G, '&', gx, gy) : guardx ? gx : gy;
    w->body = s;
    return w;
  }
  return s;
}

/* The most blocks of the grid. */
static double max_blocks(const Gen *G) {
  const TlgenProgram *p = G->p;
  double b = p->grid ? ceil((double)p->size_max[G->sM] / p->bm) : 1;
  if (p->grid == 2) b *= ceil((double)p->size_max[G->sN] / p->bn);
  return b;
}

/* Whether atomic updates of target pi by v, each element at most count
   times, keep an atomic_add target exact in any order; charges them. */
static int atomic_charge(Gen *G, int pi, const Expr *v, double count) {
  TlgenProgram *p = G->p;
  if (p->akind[pi] != '+') return 1;
  double total = p->acharge[pi] + v->in.B * count;
  int g = v->in.g > p->ag[pi] ? v->in.g : p->ag[pi];
  if (p->params[pi].elem == TY_I32) {
    if (total >= 1073741824.0) return 0;
  } else if (!v->in.exact || g > 30 || (total + 2) * ldexp(1, g) >= EXACT_LIMIT) {
    return 0;
  }
  p->acharge[pi] = total;
  p->ag[pi] = g;
  return 1;
}

static Expr *tile_elems_shape(Gen *G, Shape *s) {
  TlgenProgram *p = G->p;
  switch (pick(&G->s, 5)) {
  case 0: *s = shape(2, 1, G->bn); break;
  case 1: *s = shape(2, p->bm, 1); break;
  case 2: *s = shape(1, G->bn, 0); break;
  default: *s = shape(2, p->bm, G->bn); break;
  }
  return 0;
}

/* atomic_add / atomic_max / atomic_min of a value to a slice, an element or a
   gather of an atomic target (a tensor only atomics of one kind update). */
static Stmt *gen_atomic(Gen *G) {
  TlgenProgram *p = G->p;
  int cand[MAX_PARAMS], n = 0;
  for (int i = 0; i < p->nparams; i++)
    if (p->akind[i]) cand[n++] = i;
  if (!n) return 0;
  int pi = cand[pick(&G->s, n)];
  const TlgenParam *q = &p->params[pi];
  double count = exec_count(G) * max_blocks(G);
  Expr *tgt;
  Shape vt;
  if (chance(&G->s, 45)) { /* a scatter: every element of the indices may reach one element */
    Shape s;
    tile_elems_shape(G, &s);
    ctx_enter(G, s);
    tgt = new_expr(G, E_GATHER, q->elem);
    tgt->sym = p->param_sym[pi];
    tgt->nidx = q->rank;
    int tiles = 0;
    for (int i = 0; i < q->rank; i++) {
      Shape si = i == q->rank - 1 || chance(&G->s, 50) ? s : shape(0, 0, 0);
      tgt->start[i] = si.rank ? gen_index(G, si, q, i) : lit(G, TY_I32, pick(&G->s, q->dim[i] >= 0 ? q->dim[i] : 4));
      tiles += tgt->start[i]->rank > 0;
    }
    if (!tiles) {
      ctx_leave(G);
      return 0;
    }
    Expr sh = {0};
    for (int i = 0; i < q->rank; i++) {
      Expr tmp = sh;
      bcast(&sh, &tmp, tgt->start[i]);
    }
    set_shape(tgt, sh.rank, sh.d[0], sh.d[1]);
    vt = shape(sh.rank, sh.d[0], sh.d[1]);
    count *= sh.rank == 0 ? 1 : sh.rank == 1 ? sh.d[0] : (double)sh.d[0] * sh.d[1];
  } else { /* a slice or an element: each element once */
    tgt = new_expr(G, E_SLICE, q->elem);
    tgt->sym = p->param_sym[pi];
    tgt->nidx = q->rank;
    int kept = 0, kd[2] = {0, 0}, elem = chance(&G->s, 15);
    static const int lens[] = {1, 4, 8, 16, 32, 3};
    for (int i = 0; i < q->rank; i++) {
      int rowdim = q->dim[i] == -1 - G->sM, coldim = q->dim[i] == -1 - G->sN;
      int len = 0;
      if (!elem && (i == q->rank - 1 || chance(&G->s, 40))) {
        len = rowdim ? (chance(&G->s, 60) ? p->bm : lens[pick(&G->s, 6)])
            : coldim ? (chance(&G->s, 60) ? G->bn : lens[pick(&G->s, 6)])
                     : lens[pick(&G->s, 6)];
        if (q->dim[i] >= 0 && len > q->dim[i]) len = q->dim[i];
      }
      tgt->start[i] = len ? gen_start(G, len, rowdim, coldim)
                          : lit(G, TY_I32, pick(&G->s, q->dim[i] >= 0 ? q->dim[i] + 1 : 8));
      tgt->len[i] = len;
      if (len) kd[kept++] = len;
    }
    set_shape(tgt, kept, kd[0], kd[1]);
    vt = shape(kept, kd[0], kd[1]);
    if (kept == 1 && chance(&G->s, 40)) vt = chance(&G->s, 50) ? shape(2, 1, kd[0]) : shape(2, kd[0], 1);
  }
  Expr *v;
  if (tgt->k == E_GATHER) { /* in the indices' expression */
    v = q->elem == TY_I32 && chance(&G->s, 30) ? lit(G, TY_I32, 1) : gen_expr(G, q->elem, vt, 0);
    ctx_leave(G);
  } else {
    v = q->elem == TY_I32 && chance(&G->s, 30) ? lit(G, TY_I32, 1) : gen_in(G, q->elem, vt, 0);
  }
  if (!atomic_charge(G, pi, v, count)) {
    v = lit(G, q->elem, q->elem == TY_I32 ? 1 : 0.5);
    if (!atomic_charge(G, pi, v, count)) return 0;
  }
  Stmt *st = new_stmt(G, S_ATOMIC);
  st->op = p->akind[pi];
  st->lhs = tgt;
  st->rhs = v;
  return st;
}

/* An element atomic by every thread that reaches it, under thread-dependent control:
   for c in range(0, N, threads) { if ctx.thread + c < N { atomic_add(T[idx], v) } } */
static Stmt *gen_atomic_thread(Gen *G) {
  TlgenProgram *p = G->p;
  if (G->in_while || G->nloops) return 0;
  int cand[MAX_PARAMS], n = 0;
  for (int i = 0; i < p->nparams; i++)
    if (p->akind[i]) cand[n++] = i;
  if (!n) return 0;
  int pi = cand[pick(&G->s, n)];
  const TlgenParam *q = &p->params[pi];
  char name[16];
  snprintf(name, sizeof name, "c%d", p->nsyms);
  int cv = add_sym(p, name, SY_LOOP, TY_I32, 0, 0, 0);
  if (cv < 0) return 0;
  p->syms[cv].env.B = p->size_max[G->sN] + p->threads;
  p->syms[cv].env.exact = 1;
  int nsym = size_sym(p, G->sN);
  Expr *th = new_expr(G, E_THREAD, TY_I32);
  th->in.B = p->threads;
  th->in.exact = 1;
  Expr *col = bin(G, '+', th, sym_expr(G, cv));
  Stmt *f = new_stmt(G, S_FOR);
  f->sym = cv;
  f->lo = lit(G, TY_I32, 0);
  f->hi = sym_expr(G, nsym);
  f->step = p->threads;
  Stmt *c = new_stmt(G, S_IF);
  c->lo = bin(G, '<', col, sym_expr(G, nsym));
  f->body = c;
  int k = pick(&G->s, p->bm);
  Expr *row = p->r0 >= 0 ? bin(G, '+', sym_expr(G, p->r0), lit(G, TY_I32, k)) : lit(G, TY_I32, k);
  /* an element of an input at (row, col) */
  Expr *x = gen_slice(G, chance(&G->s, 50) ? TY_I32 : TY_F32, shape(0, 0, 0));
  if (x && x->nidx >= 2) {
    x->start[x->nidx - 1] = col;
    x->start[x->nidx - 2] = row;
  }
  Expr *tgt = new_expr(G, E_SLICE, q->elem);
  tgt->sym = p->param_sym[pi];
  tgt->nidx = q->rank;
  for (int i = 0; i < q->rank; i++) {
    Expr *ix;
    if (i < q->rank - 1) ix = lit(G, TY_I32, pick(&G->s, q->dim[i] >= 0 ? q->dim[i] : 4));
    else if (x && x->ty == TY_I32 && chance(&G->s, 60)) /* a histogram of the data */
      ix = bin(G, '%', x, lit(G, TY_I32, q->dim[i] >= 0 ? q->dim[i] : 16));
    else if (q->dim[i] == -1 - G->sM) ix = row;
    else if (q->dim[i] == -1 - G->sN) ix = col;
    else ix = bin(G, '%', col, lit(G, TY_I32, q->dim[i] >= 0 ? q->dim[i] : 32));
    tgt->start[i] = ix;
  }
  int mark = G->nscope;
  scope_add(G, cv);
  G->no_tiles = 1;
  Expr *v = chance(&G->s, 40) ? lit(G, q->elem, 1) : gen_expr(G, q->elem, shape(0, 0, 0), 1);
  if (x && x->ty == q->elem && chance(&G->s, 50)) v = bin(G, '+', v, x);
  G->no_tiles = 0;
  G->nscope = mark;
  double count = (p->size_max[G->sN] + p->threads) * max_blocks(G);
  if (!atomic_charge(G, pi, v, count)) {
    v = lit(G, q->elem, 1);
    if (!atomic_charge(G, pi, v, count)) return 0;
  }
  Stmt *st = new_stmt(G, S_ATOMIC);
  st->op = p->akind[pi];
  st->lhs = tgt;
  st->rhs = v;
  c->body = st;
  Stmt *w = new_stmt(G, S_PERTHREAD);
  w->body = f;
  return w;
}

/* A scatter store: an output indexed by permutations of rows() and cols()
   (so no two elements of the statement meet), inside the block's rows (and
   columns) with a grid. */
static Stmt *gen_scatter(Gen *G) {
  TlgenProgram *p = G->p;
  if (G->in_while || G->nloops) return 0;
  int cand[MAX_PARAMS], n = 0;
  for (int i = 0; i < p->nparams; i++)
    if (p->params[i].is_output && !p->akind[i]) cand[n++] = i;
  int pi = cand[pick(&G->s, n)];
  const TlgenParam *q = &p->params[pi];
  int rowdim = -1, coldim = -1;
  for (int i = 0; i < q->rank; i++) {
    if (q->dim[i] == -1 - G->sM) rowdim = i;
    if (q->dim[i] == -1 - G->sN) coldim = i;
  }
  if (p->grid < 2) coldim = -1;
  int guardx = (p->grid == 1 && rowdim < 0) || (p->grid == 2 && coldim < 0);
  int guardy = p->grid == 2 && rowdim < 0;
  static const int lens[] = {1, 4, 8, 16, 3, 2};
  int h = p->grid && rowdim >= 0 ? range_pick(&G->s, 1, p->bm) : chance(&G->s, 50) ? p->bm : lens[pick(&G->s, 6)];
  int w = coldim >= 0 ? range_pick(&G->s, 1, G->bn) : chance(&G->s, 50) ? G->bn : lens[pick(&G->s, 6)];
  if (chance(&G->s, 40)) h = p->grid && rowdim >= 0 ? p->bm : h;
  int two = q->rank >= 2;
  if (!two) h = 1;
  Expr *e = new_expr(G, E_GATHER, q->elem);
  e->sym = p->param_sym[pi];
  e->nidx = q->rank;
  ctx_enter(G, shape(2, h, w));
  int bshape = chance(&G->s, 40); /* indices [h, 1] and [1, w] */
  for (int i = 0; i < q->rank; i++) {
    int k = i - (q->rank - 1 - two); /* 0: the rows index, 1: the cols index */
    if (!two) k = 1;
    if (k < 0) {
      e->start[i] = lit(G, TY_I32, pick(&G->s, q->dim[i] >= 0 ? q->dim[i] + 1 : 4));
      continue;
    }
    int row = k == 0, len = row ? h : w;
    Expr *x = gen_perm(G, index_tile(G, row, bshape ? (row ? h : 1) : h, bshape ? (row ? 1 : w) : w), len);
    Expr *base;
    if (p->grid && i == rowdim) base = sym_expr(G, p->r0);
    else if (i == coldim) base = sym_expr(G, p->c0);
    else base = lit(G, TY_I32, chance(&G->s, 60) ? 0 : range_pick(&G->s, -2, 12));
    e->start[i] = bin(G, '+', base, x);
    if (chance(&G->s, 15)) { /* some elements dropped: an index outside the tensor */
      Expr *c = gen_cond(G, shape(2, h, w), 2);
      Expr *wh = fn(G, F_WHERE, TY_I32, c, e->start[i], lit(G, TY_I32, -1));
      Expr tmp = *wh;
      bcast(wh, &tmp, e->start[i]);
      tmp = *wh;
      bcast(wh, &tmp, c);
      wh->in = e->start[i]->in;
      e->start[i] = wh;
    }
  }
  set_shape(e, 2, h, w);
  Stmt *s = new_stmt(G, S_ASSIGN);
  s->op = chance(&G->s, 80) ? '=' : '+';
  if (q->elem == TY_F8) s->op = '='; /* f8 += is an error */
  s->lhs = e;
  s->rhs = gen_expr(G, q->elem, shape(2, h, w), 0);
  ctx_leave(G);
  if (guardx || guardy) {
    Stmt *g = new_stmt(G, S_IF);
    Expr *gx = bin(G, '=', blockx(G), lit(G, TY_I32, 0)), *gy = bin(G, '=', blocky(G), lit(G, TY_I32, 0));
    g->lo = guardx && guardy ? bin(G, '&', gx, gy) : guardx ? gx : gy;
    g->body = s;
    return g;
  }
  return s;
}

static Expr *gen_scalar_cond(Gen *G) { return gen_cond(G, shape(0, 0, 0), 1); }

/* The sizes a loop may run over (N, K, and M without a grid over its rows); their count. */
static int loop_sizes(const Gen *G, int *sizes) {
  int ns = 0;
  if (G->sN >= 0) sizes[ns++] = G->sN;
  if (G->sK >= 0) sizes[ns++] = G->sK;
  if (!G->p->grid) sizes[ns++] = G->sM;
  return ns;
}

static Stmt *gen_for(Gen *G) {
  TlgenProgram *p = G->p;
  if (G->nloops >= 3 || exec_count(G) > 200) return 0;
  Stmt *s = new_stmt(G, S_FOR);
  double trips;
  int c = pick(&G->s, 10);
  if (c < 6) { /* over a size */
    int sizes[3], ns = loop_sizes(G, sizes);
    int sz = sizes[pick(&G->s, ns)];
    static const int steps[] = {16, 32, 64, 8};
    int step = sz == G->sK ? G->bk : sz == G->sN ? G->bn : p->bm;
    if (chance(&G->s, 25)) step = steps[pick(&G->s, 4)];
    int lo = chance(&G->s, 80) ? 0 : pick(&G->s, step);
    s->lo = lit(G, TY_I32, lo);
    s->hi = sym_expr(G, size_sym(p, sz));
    s->step = step;
    trips = ceil((double)p->size_max[sz] / step);
  } else if (c < 8) { /* constant */
    int lo = pick(&G->s, 3), hi = lo + range_pick(&G->s, 0, 4), step = chance(&G->s, 70) ? 1 : 2;
    s->lo = lit(G, TY_I32, lo);
    s->hi = lit(G, TY_I32, hi);
    s->step = step;
    trips = ceil((double)(hi - lo) / step);
    if (trips < 1) trips = 1;
  } else { /* up to a scalar parameter or a scalar i32 var */
    Expr *h = gen_scalar_sym(G, TY_I32, 1);
    if (!h || h->in.B > 200) h = lit(G, TY_I32, range_pick(&G->s, 0, 5));
    s->lo = lit(G, TY_I32, 0);
    s->hi = h;
    s->step = range_pick(&G->s, 1, 3);
    trips = ceil(h->in.B / s->step);
    if (trips < 1) trips = 1;
  }
  if (exec_count(G) * trips > 400) return 0;
  char name[16];
  sym_name(G, name, sizeof name, "c");
  int sym = add_sym(p, name, SY_LOOP, TY_I32, 0, 0, 0);
  if (sym < 0) return 0;
  p->syms[sym].env.B = s->hi->in.B + s->step;
  p->syms[sym].env.exact = 1;
  s->sym = sym;
  if (chance(&G->s, 25)) s->pipeline = range_pick(&G->s, 2, 3);
  else if (chance(&G->s, 10)) s->unroll = range_pick(&G->s, 1, 4);
  int mark = G->nscope;
  scope_add(G, sym);
  G->loops[G->nloops].sym = sym;
  G->loops[G->nloops].step = s->step;
  G->loops[G->nloops].trips = trips;
  G->nloops++;
  int acc = G->acc;
  G->acc = -1;
  Stmt *first = acc >= 0 ? gen_accumulation(G, acc) : 0;
  s->body = gen_block(G, first ? 0 : 1, first ? 4 : 5);
  if (first) first->next = s->body, s->body = first;
  G->nloops--;
  G->nscope = mark;
  return s;
}

/* var a: ty[bm, 1] = ..; for .. { a += rowsum(..) (or max, min); .. }: a row
   reduction accumulated across a loop, whose partials the tile IR carries
   (carry.c) unless the rest of the body reads a too; the same with a [1, bn]
   var and a column reduction, or a scalar var and sum(). */
static Stmt *gen_reduce_loop(Gen *G) {
  int c = pick(&G->s, 10), scalar = c < 3; /* a scalar, a [1, bn] (column reductions) or a [bm, 1] var */
  Shape t = scalar ? shape(0, 0, 0) : c < 5 ? shape(2, 1, G->bn) : shape(2, G->p->bm, 1);
  Stmt *d = gen_decl_as(G, t, chance(&G->s, 70) ? TY_F32 : TY_I32, scalar);
  if (!d) return gen_for(G);
  Sym *y = &G->p->syms[d->sym];
  /* room for the loop's sums: an inexact f32, an i32 up to half its limit */
  if (y->ty == TY_F32) y->env.exact = 0, y->env.B = y->env.B > 1e7 ? y->env.B : 1e7;
  else y->env.B = I32_LIMIT / 2;
  G->acc = d->sym;
  Stmt *f = gen_for(G), *last = d;
  G->acc = -1;
  while (last->next) last = last->next;
  last->next = f;
  return d;
}

/* An online softmax's running max and rescaled sum across a loop over a size (carry.c
   carry_online carries them), TLGEN_ONLINE only:
     var mx: tile<f32>[bm, 1] = -inf
     var l: tile<f32>[bm, 1] = 0.0
     for v in range(0, S, step) {
       var x = ..                                   [bm, w], finite
       var mnew = max(mx, rowmax(x))
       l = l * exp(mx - mnew) + rowsum(exp(x - mnew))
       mx = mnew
       ..
     }
   or the same down the columns of [1, bn] vars (colmax, colsum). The loop starts at 0 and
   a size is at least 1, so it runs at least once and mx is finite after it; x holds no
   -inf (a chunk of a row of only -inf gives NaN as written, which the carried form does
   not: tests/gpu online_lse covers -inf). 0 when out of room or symbols. */
static Stmt *gen_online_loop(Gen *G) {
  TlgenProgram *p = G->p;
  if (G->nloops >= 2 || exec_count(G) > 100) return 0;
  int row = chance(&G->on, 70);
  static const int ws[] = {4, 8, 16, 32, 64};
  int w = chance(&G->on, 50) ? (row ? G->bn : p->bm) : ws[pick(&G->on, 5)];
  if (w < 2) w = 4;
  Shape ys = row ? shape(2, p->bm, 1) : shape(2, 1, G->bn), xs = row ? shape(2, p->bm, w) : shape(2, w, G->bn);
  if (xs.d[0] * xs.d[1] > 4096) return 0;
  /* the loop: over a size, from 0 */
  int sizes[3], ns = loop_sizes(G, sizes);
  if (!ns) return 0;
  int sz = sizes[pick(&G->on, ns)], ssym = size_sym(p, sz);
  static const int steps[] = {16, 32, 64, 8};
  int step = steps[pick(&G->on, 4)];
  double trips = ceil((double)p->size_max[sz] / step);
  if (ssym < 0 || exec_count(G) * trips > 400) return 0;
  char name[16];
  int mx, l, v, x, mn;
  snprintf(name, sizeof name, "m%d", p->nsyms);
  if ((mx = add_sym(p, name, SY_VAR, TY_F32, 2, ys.d[0], ys.d[1])) < 0) return 0;
  snprintf(name, sizeof name, "l%d", p->nsyms);
  if ((l = add_sym(p, name, SY_VAR, TY_F32, 2, ys.d[0], ys.d[1])) < 0) return 0;
  snprintf(name, sizeof name, "c%d", p->nsyms);
  if ((v = add_sym(p, name, SY_LOOP, TY_I32, 0, 0, 0)) < 0) return 0;
  p->syms[mx].depth = p->syms[l].depth = G->nloops;
  Stmt *dm = new_stmt(G, S_VAR), *dl = new_stmt(G, S_VAR), *f = new_stmt(G, S_FOR);
  dm->sym = mx, dm->rhs = lit(G, TY_F32, -INFINITY), dm->op = 1;
  dl->sym = l, dl->rhs = lit(G, TY_F32, 0), dl->op = 1;
  f->lo = lit(G, TY_I32, 0);
  f->hi = sym_expr(G, ssym);
  f->step = step;
  f->sym = v;
  p->syms[v].env.B = f->hi->in.B + step;
  p->syms[v].env.exact = 1;
  if (chance(&G->on, 20)) f->pipeline = range_pick(&G->on, 2, 3);
  int mark = G->nscope;
  scope_add(G, v);
  G->loops[G->nloops].sym = v;
  G->loops[G->nloops].step = step;
  G->loops[G->nloops].trips = trips;
  G->nloops++;
  /* x: an operand of the whole shape */
  Expr *a = 0;
  for (int tries = 0; tries < 4 && !a; tries++) {
    ctx_enter(G, ys);
    a = gen_in_k(G, TY_F32, xs, 1, 1 + !row);
    ctx_leave(G);
    if (a->rank != 2 || a->d[0] != xs.d[0] || a->d[1] != xs.d[1] || !red_ok(G, row, a)) a = 0;
  }
  snprintf(name, sizeof name, "t%d", p->nsyms);
  if (!a || (x = add_sym(p, name, SY_VAR, TY_F32, 2, xs.d[0], xs.d[1])) < 0) {
    G->nloops--;
    G->nscope = mark;
    return 0;
  }
  snprintf(name, sizeof name, "t%d", p->nsyms);
  if ((mn = add_sym(p, name, SY_VAR, TY_F32, 2, ys.d[0], ys.d[1])) < 0) {
    G->nloops--;
    G->nscope = mark;
    return 0;
  }
  double B = a->in.B > 1 ? a->in.B : 1;
  p->syms[x].env = a->in;
  p->syms[x].used = a->in.B;
  p->syms[x].depth = p->syms[mn].depth = G->nloops;
  p->syms[mn].env = p->syms[mx].env = fix_info(TY_F32, (Info){B, a->in.g, a->in.exact});
  p->syms[mn].used = p->syms[mx].used = B;
  p->syms[l].env = (Info){trips * w * 2 + 16, 0, 0};
  p->syms[l].used = trips * w + 1;
  Stmt *sx = new_stmt(G, S_VAR), *sn = new_stmt(G, S_VAR), *sl = new_stmt(G, S_ASSIGN), *sm = new_stmt(G, S_ASSIGN);
  sx->sym = x, sx->rhs = a;
  int red = row ? F_ROWSUM : F_COLSUM;
  Expr *rm = fn(G, red + 1, TY_F32, sym_expr(G, x), 0, 0);
  set_shape(rm, 2, ys.d[0], ys.d[1]);
  rm->in = a->in;
  sn->sym = mn, sn->rhs = bin(G, 'M', sym_expr(G, mx), rm);
  Expr *sc = fn(G, F_EXP, TY_F32, bin(G, '-', sym_expr(G, mx), sym_expr(G, mn)), 0, 0);
  sc->in = (Info){1, 0, 0};
  Expr *ex = fn(G, F_EXP, TY_F32, bin(G, '-', sym_expr(G, x), sym_expr(G, mn)), 0, 0);
  ex->in = (Info){1, 0, 0};
  Expr *rs = fn(G, red, TY_F32, ex, 0, 0);
  set_shape(rs, 2, ys.d[0], ys.d[1]);
  rs->in = (Info){w, 0, 0};
  sl->op = '=', sl->lhs = sym_expr(G, l), sl->rhs = bin(G, '+', bin(G, '*', sym_expr(G, l), sc), rs);
  sm->op = '=', sm->lhs = sym_expr(G, mx), sm->rhs = sym_expr(G, mn);
  scope_add(G, x);
  scope_add(G, mn);
  scope_add(G, mx);
  scope_add(G, l);
  Stmt *rest = gen_block(G, 0, 3);
  sx->next = sn, sn->next = sl, sl->next = sm, sm->next = rest;
  f->body = sx;
  G->nloops--;
  G->nscope = mark;
  scope_add(G, mx);
  scope_add(G, l);
  dm->next = dl, dl->next = f;
  return dm;
}

static Stmt *gen_if(Gen *G) {
  Stmt *s = new_stmt(G, S_IF);
  s->lo = gen_scalar_cond(G);
  G->in_cond++;
  int mark = G->nscope;
  s->body = gen_block(G, 1, 3);
  G->nscope = mark;
  if (chance(&G->s, 40)) {
    s->els = gen_block(G, 1, 3);
    G->nscope = mark;
  }
  G->in_cond--;
  return s;
}

/* var w = 0; while w < L [&& c] { w += 1; ... } */
static Stmt *gen_while(Gen *G) {
  TlgenProgram *p = G->p;
  if (G->nloops >= 3 || exec_count(G) > 100) return 0;
  char name[16];
  snprintf(name, sizeof name, "w%d", p->nsyms);
  int L = range_pick(&G->s, 1, 4);
  int sym = add_sym(p, name, SY_VAR, TY_I32, 0, 0, 0);
  if (sym < 0) return 0;
  p->syms[sym].env.B = L + 1;
  p->syms[sym].env.exact = 1;
  p->syms[sym].fixed = 1;
  p->syms[sym].depth = G->nloops;
  Stmt *d = new_stmt(G, S_VAR);
  d->sym = sym;
  d->rhs = lit(G, TY_I32, 0);
  Stmt *w = new_stmt(G, S_WHILE);
  d->next = w;
  w->lo = bin(G, '<', sym_expr(G, sym), lit(G, TY_I32, L));
  if (chance(&G->s, 25)) { /* with the tile IR, a condition that reads no tile */
    G->no_tiles += p->ir;
    w->lo = bin(G, '&', w->lo, gen_scalar_cond(G));
    G->no_tiles -= p->ir;
  }
  Stmt *inc = new_stmt(G, S_ASSIGN);
  inc->op = '+';
  inc->lhs = sym_expr(G, sym);
  inc->rhs = lit(G, TY_I32, 1);
  int mark = G->nscope;
  G->loops[G->nloops].sym = -1;
  G->loops[G->nloops].step = 0;
  G->loops[G->nloops].trips = L;
  G->nloops++;
  G->in_cond++;
  G->in_while++;
  inc->next = gen_block(G, 1, 3);
  G->in_while--;
  G->in_cond--;
  G->nloops--;
  G->nscope = mark;
  w->body = inc;
  scope_add(G, sym);
  return d;
}

static Stmt *gen_stmt(Gen *G) {
  Stmt *s = 0;
  G->stmts++;
  for (int tries = 0; !s && tries < 4; tries++) {
    int c = pick(&G->s, 20);
    if (G->stmts > MAX_STMTS) c = 0;
    if (G->p->ir && c && chance(&G->s, 20)) {
      int w = pick(&G->s, 4);
      s = w < 2 ? gen_atomic(G) : w == 2 ? gen_scatter(G) : gen_atomic_thread(G);
      continue;
    }
    switch (c) {
    case 0: case 1: case 2: case 3:
      s = gen_decl(G, 0);
      break;
    case 4: case 5:
      s = gen_decl(G, 1);
      break;
    case 6: case 7: case 8: case 9:
      s = gen_update(G);
      break;
    case 10: case 11: case 12:
      s = gen_store(G);
      break;
    case 13: case 14:
      if (G->s.online && G->p->ir && !G->in_cond && chance(&G->on, 50) && (s = gen_online_loop(G))) break;
      s = G->p->ir && !G->in_cond && chance(&G->aux, 40) ? gen_reduce_loop(G) : gen_for(G);
      break;
    case 15: case 16:
      s = gen_if(G);
      break;
    case 17:
      s = chance(&G->s, 50) ? gen_while(G) : chance(&G->s, 50) ? gen_gemm(G, 0) : gen_perthread(G);
      break;
    default:
      if (G->nloops > 0 && chance(&G->s, 60)) {
        /* under a condition on a size, a loop variable or a parameter: a
           constant one would leave the rest of the body unreachable */
        Expr *v = gen_scalar_sym(G, TY_I32, 1);
        if (!v) break;
        s = new_stmt(G, S_IF);
        s->lo = bin(G, "<l>gn"[pick(&G->s, 5)], chance(&G->s, 40) ? bin(G, '%', v, lit(G, TY_I32, 2)) : v,
                    lit(G, TY_I32, pick(&G->s, v->in.B < 60 ? (int)v->in.B + 1 : 60)));
        if (chance(&G->s, 30)) s->lo = bin(G, '&', s->lo, gen_scalar_cond(G));
        s->body = new_stmt(G, chance(&G->s, 50) ? S_BREAK : S_CONTINUE);
      } else {
        s = gen_decl(G, 0);
      }
      break;
    }
    if (G->stmts > MAX_STMTS && !s) s = gen_decl(G, 1);
  }
  return s;
}

static Stmt *gen_block(Gen *G, int nmin, int nmax) {
  int n = range_pick(&G->s, nmin, nmax);
  Stmt *first = 0, **tail = &first;
  for (int i = 0; i < n; i++) {
    Stmt *s = gen_stmt(G);
    if (!s) continue;
    *tail = s;
    while (s->next) s = s->next;
    tail = &s->next;
  }
  return first;
}

/* ------------------------------------------------------------ program */

static int add_tensor(TlgenProgram *p, const char *name, int elem, int rank, const int *dims, int out) {
  if (p->nparams >= MAX_PARAMS) return -1;
  TlgenParam *q = &p->params[p->nparams];
  memset(q, 0, sizeof *q);
  snprintf(q->name, sizeof q->name, "%s", name);
  q->kind = TLGEN_PARAM_TENSOR;
  q->elem = elem;
  q->rank = rank;
  for (int i = 0; i < rank; i++) q->dim[i] = dims[i];
  q->is_output = out;
  int sym = add_sym(p, name, SY_TENSOR, elem, 0, 0, 0);
  p->syms[sym].index = p->nparams;
  p->param_sym[p->nparams] = sym;
  return p->nparams++;
}
static int add_scalar_param(TlgenProgram *p, const char *name, int elem, double B, int g) {
  TlgenParam *q = &p->params[p->nparams];
  memset(q, 0, sizeof *q);
  snprintf(q->name, sizeof q->name, "%s", name);
  q->kind = TLGEN_PARAM_SCALAR;
  q->elem = elem;
  int sym = add_sym(p, name, SY_SPARAM, elem, 0, 0, 0);
  p->syms[sym].index = p->nparams;
  p->syms[sym].env.B = B;
  p->syms[sym].env.g = g;
  p->syms[sym].env.exact = 1;
  p->param_sym[p->nparams] = sym;
  return p->nparams++;
}

static void generate(TlgenProgram *p, Src src) {
  Gen G0, *G = &G0;
  memset(G, 0, sizeof *G);
  G->s = src;
  G->aux.state = src.state ^ 0x6ull;
  G->wg.state = src.state ^ 0x7ull;
  G->on.state = src.state ^ 0x9ull;
  G->acc = -1;
  G->p = p;
  p->r0 = -1;
  static const int threads[] = {32, 64, 128, 256};
  static const int bms[] = {16, 8, 4, 32, 2, 1};
  static const int bns[] = {32, 16, 64, 8, 4};
  static const int bks[] = {16, 8, 32, 4};
  p->threads = threads[pick(&G->s, 4)];
  p->grid = chance(&G->s, 55) ? (chance(&G->s, 35) ? 2 : 1) : 0;
  p->c0 = -1;
  p->bm = bms[pick(&G->s, 6)];
  G->bn = bns[pick(&G->s, 5)];
  G->bk = bks[pick(&G->s, 4)];
  if (p->bm * G->bn > 1024) G->bn /= 2;
  p->bn = G->bn;
  p->const_bm = chance(&G->s, 25);
  p->min_blocks = chance(&G->s, 15) ? range_pick(&G->s, 1, 2) : 0;
  p->aux = chance(&G->s, 15);
  /* not from a fuzzer's bytes: fuzz_gen fails on any rejection, and the tile IR
     still declines about 0.2% of these programs (layout conversions tlgen does
     not foresee); difftest's seeds count them against its 3% */
  p->ir = !G->s.bytes && chance(&G->s, 45);
  if (p->ir && p->threads == 32 && chance(&G->s, 70)) p->threads = 64; /* fewer values too large for registers */
  int hasK = chance(&G->s, 50);
  /* sizes: M, N (and K) in order of first appearance: X[M, N] comes first */
  G->sM = 0;
  G->sN = 1;
  G->sK = hasK ? 2 : -1;
  p->nsizes = hasK ? 3 : 2;
  static const char *sn[] = {"M", "N", "K"};
  for (int i = 0; i < p->nsizes; i++) {
    snprintf(p->size_name[i], sizeof p->size_name[i], "%s", sn[i]);
    p->size_max[i] = i == 0 ? (p->grid ? p->bm * 5 + 7 : 70) : 150;
    if (i == 1 && p->grid == 2) p->size_max[i] = G->bn * 4 + 7;
    if (p->size_max[i] > 130) p->size_max[i] = 130;
    p->size_min[i] = 1;
    if (chance(&G->s, 15)) p->size_mult[i] = 4 << pick(&G->s, 3);
    else if (chance(&G->s, 10)) p->size_min[i] = range_pick(&G->s, 2, 40);
  }
  int M = -1, N = -2, K = -3;
  int d2[4];
  d2[0] = M; d2[1] = N;
  add_tensor(p, "X", TY_F32, 2, d2, 0);
  int extra = pick(&G->s, 64);
  /* tlgen_from_seed_wg: a program that starts with an f16 GEMM idiom in
     wgmma's shape (a choice of its own stream: without it, the program is
     tlgen_from_seed's) */
  int wg = src.wg && hasK && !p->ir && p->threads >= 128 && chance(&G->wg, 60);
  if (wg) extra |= 2;
  if (extra & 1) { d2[0] = M; d2[1] = N; add_tensor(p, "Y", TY_I32, 2, d2, 0); }
  if (hasK) {
    d2[0] = M; d2[1] = K; add_tensor(p, "A", TY_F32, 2, d2, 0);
    d2[0] = K; d2[1] = N; add_tensor(p, "B", TY_F32, 2, d2, 0);
    if (extra & 2) {
      d2[0] = M; d2[1] = K; add_tensor(p, "H", TY_F16, 2, d2, 0);
      d2[0] = K; d2[1] = N; add_tensor(p, "G", TY_F16, 2, d2, 0);
    }
  }
  if (src.i8 && hasK) { /* TLGEN_I8: the GEMM idiom's i8 operands */
    d2[0] = M; d2[1] = K; add_tensor(p, "I", TY_I8, 2, d2, 0);
    d2[0] = K; d2[1] = N; add_tensor(p, "J", TY_I8, 2, d2, 0);
  }
  Src f8s = {0}; /* TLGEN_F8: choices of a stream of their own */
  f8s.state = src.state ^ 0xaull;
  if (src.f8) p->f8 = 1, p->f8e5m2 = f8_e5m2 = chance(&f8s, 50);
  if (src.f8 && hasK) { /* the GEMM idiom's f8 operands: F is [K, N], or [N, K] for dot(a, transpose(b)) */
    d2[0] = M; d2[1] = K; add_tensor(p, "E", TY_F8, 2, d2, 0);
    if (chance(&f8s, 50)) d2[0] = N, d2[1] = K;
    else d2[0] = K, d2[1] = N;
    add_tensor(p, "F", TY_F8, 2, d2, 0);
  }
  if (extra & 4) { d2[0] = N; add_tensor(p, "V", TY_F32, 1, d2, 0); }
  if (extra & 8) {
    if (chance(&G->s, 50)) { int d[3] = {2, M, N}; add_tensor(p, "Z", TY_F32, 3, d, 0); }
    else { int d[4] = {3, 2, M, N}; add_tensor(p, "Z", TY_F32, 4, d, 0); }
  }
  if (extra & 16) { d2[0] = 16; d2[1] = N; add_tensor(p, "C", TY_F32, 2, d2, 0); }
  if (extra & 32) add_scalar_param(p, "alpha", TY_F32, 2, 3);
  if (chance(&G->s, 40)) add_scalar_param(p, "n", TY_I32, 5, 0);
  d2[0] = M; d2[1] = N;
  add_tensor(p, "O", TY_F32, 2, d2, 1);
  int outs = pick(&G->s, 16);
  if (outs & 1) { d2[0] = M; d2[1] = N; add_tensor(p, "P", TY_I32, 2, d2, 1); }
  if (outs & 2) { d2[0] = M; d2[1] = 1; add_tensor(p, "R", TY_F32, 2, d2, 1); }
  if (outs & 4) { int d[3] = {2, M, N}; add_tensor(p, "Q", TY_F32, 3, d, 1); }
  if (outs & 8) { d2[0] = 8; add_tensor(p, "S", TY_F32, 1, d2, 1); }
  if (src.f8 && chance(&f8s, 60)) { d2[0] = M; d2[1] = N; add_tensor(p, "U", TY_F8, 2, d2, 1); }
  if (p->ir) { /* atomic targets */
    int a = pick(&G->s, 8);
    if (!a) a = 1 << pick(&G->s, 3);
    if (a & 1) { d2[0] = 16; p->akind[add_tensor(p, "HI", TY_I32, 1, d2, 1)] = '+'; }
    if (a & 2) {
      d2[0] = 8; d2[1] = N;
      int pi = add_tensor(p, "AF", TY_F32, 2, d2, 1);
      p->akind[pi] = "+Mm"[pick(&G->s, 3)];
      p->ag[pi] = 3;
    }
    if (a & 4) { d2[0] = M; p->akind[add_tensor(p, "AI", TY_I32, 1, d2, 1)] = "+Mm"[pick(&G->s, 3)]; }
  }
  if (src.strided) { /* @strided: choices of a stream of their own */
    Src st = {0};
    st.state = src.state ^ 0x8ull;
    int any = 0, ntensors = 0;
    for (int i = 0; i < p->nparams; i++)
      if (p->params[i].kind == TLGEN_PARAM_TENSOR) ntensors++, any |= p->params[i].is_strided = chance(&st, 50);
    if (!any && ntensors) {
      int k = pick(&st, ntensors);
      for (int i = 0; i < p->nparams; i++)
        if (p->params[i].kind == TLGEN_PARAM_TENSOR && k-- == 0) p->params[i].is_strided = 1;
    }
  }
  for (int i = 0; i < p->nsizes; i++) {
    int sym = add_sym(p, p->size_name[i], SY_SIZE, TY_I32, 0, 0, 0);
    p->syms[sym].index = i;
    p->syms[sym].env.B = p->size_max[i];
    p->syms[sym].env.exact = 1;
  }
  for (int i = 0; i < p->nsyms; i++)
    if (p->syms[i].kind == SY_SIZE || p->syms[i].kind == SY_SPARAM) scope_add(G, i);
  Stmt *first = 0, **tail = &first;
  if (p->grid) {
    int sym = add_sym(p, "r0", SY_VAR, TY_I32, 0, 0, 0);
    p->syms[sym].env.B = p->size_max[0] + p->bm;
    p->syms[sym].env.exact = 1;
    p->syms[sym].fixed = 1;
    p->r0 = sym;
    Stmt *s = new_stmt(G, S_VAR);
    s->sym = sym;
    Expr *bm = lit(G, TY_I32, p->bm);
    if (p->const_bm) bm->k = E_CONST;
    s->rhs = bin(G, '*', p->grid == 2 ? blocky(G) : blockx(G), bm);
    *tail = s;
    tail = &s->next;
    scope_add(G, sym);
  }
  if (p->grid == 2) {
    int sym = add_sym(p, "c0", SY_VAR, TY_I32, 0, 0, 0);
    p->syms[sym].env.B = p->size_max[1] + p->bn;
    p->syms[sym].env.exact = 1;
    p->syms[sym].fixed = 1;
    p->c0 = sym;
    Stmt *s = new_stmt(G, S_VAR);
    s->sym = sym;
    s->rhs = bin(G, '*', blockx(G), lit(G, TY_I32, p->bn));
    *tail = s;
    tail = &s->next;
    scope_add(G, sym);
  }
  /* TLGEN_I8: half the programs that can start with the GEMM idiom do (a stream of its own) */
  Src i8s = {0};
  i8s.state = src.state ^ 0x9ull;
  int i8first = !wg && src.i8 && hasK && !p->ir && chance(&i8s, 50);
  int f8first = !wg && !i8first && src.f8 && hasK && !p->ir && chance(&f8s, 50);
  /* TLGEN_DEEP: most programs that can start with the GEMM idiom do (a stream of its own) */
  Src deeps = {0};
  deeps.state = src.state ^ 0xbull;
  int deepfirst = !wg && !i8first && !f8first && src.deep && hasK && !p->ir && chance(&deeps, 70);
  if ((wg || i8first || f8first || deepfirst) && (*tail = gen_gemm(G, wg)) != 0)
    while (*tail) tail = &(*tail)->next;
  *tail = gen_block(G, 2, 10);
  while (*tail) tail = &(*tail)->next;
  /* a final store of a whole tile to O */
  {
    int pi = -1;
    for (int i = 0; i < p->nparams; i++)
      if (!strcmp(p->params[i].name, "O")) pi = i;
    Expr *e = new_expr(G, E_SLICE, TY_F32);
    e->sym = p->param_sym[pi];
    e->nidx = 2;
    e->start[0] = p->grid ? sym_expr(G, p->r0) : lit(G, TY_I32, 0);
    e->len[0] = p->bm;
    e->start[1] = p->grid == 2 ? sym_expr(G, p->c0) : lit(G, TY_I32, 0);
    e->len[1] = G->bn;
    set_shape(e, 2, p->bm, G->bn);
    Stmt *s = new_stmt(G, S_ASSIGN);
    s->op = '=';
    s->lhs = e;
    G->stmts = 0;
    Shape t = shape(2, p->bm, G->bn);
    Expr *rhs = gen_in(G, TY_F32, t, 0);
    /* plus the tile vars still in scope, whole when they fit, else summed */
    int terms = 0;
    G->crank = 2, G->cd[0] = t.d[0], G->cd[1] = t.d[1];
    for (int i = G->nscope - 1; i >= 0 && terms < 4; i--) {
      int sym = G->scope[i];
      const Sym *y = &p->syms[sym];
      if (y->kind != SY_VAR || y->rank == 0 || y->ty == TY_F16 || y->ty == TY_I8 || y->ty == TY_F8) continue;
      if ((fits(y->rank, y->d, t) || (y->rank == 1 && y->d[0] == t.d[1])) && !whole_read_ok(G, sym, 1)) continue;
      Expr *v = sym_expr(G, sym), *x = 0;
      if (y->ty == TY_BOOL) {
        if (fits(y->rank, y->d, t)) x = fn(G, F_WHERE, TY_F32, v, lit(G, TY_F32, 1), lit(G, TY_F32, 0));
        if (x) x->in.B = 1, x->in.g = 0;
      } else {
        if (p->ir && y->rank == 1 && y->d[0] == t.d[1] && rhs->rank == 2) {
          /* ranks mix: a rank-1 tile as a row */
        } else if (!fits(y->rank, y->d, t)) {
          if (p->ir && (y->rank == 1 || y->d[0] == 1 || y->d[1] == 1)) continue; /* the tile IR declines sum() of those */
          double n = y->rank == 1 ? y->d[0] : (double)y->d[0] * y->d[1];
          x = fn(G, F_SUM, y->ty, v, 0, 0);
          set_shape(x, 0, 0, 0);
          x->in = y->env;
          x->in.B = y->env.B * n;
          x->in = fix_info(y->ty, x->in);
          v = x;
        }
        if (y->ty == TY_I32) {
          x = v->in.B < EXACT_LIMIT ? fn(G, F_CVT_F32, TY_F32, v, 0, 0) : 0;
          if (x) x->in = fix_info(TY_F32, v->in);
        } else {
          x = v;
        }
      }
      if (!x) continue;
      rhs = bin(G, '+', rhs, x);
      terms++;
    }
    s->rhs = rhs;
    *tail = s;
  }
  p->body = first;
}

/* ------------------------------------------------------------ printer */

typedef struct Buf {
  char *s;
  size_t n, cap;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(0, 0, fmt, ap);
  va_end(ap);
  if (k < 0) abort();
  if (b->n + (size_t)k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (b->n + (size_t)k + 1 > cap) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) abort();
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

static const char *ty_name(int ty) {
  return ty == TY_F32   ? (wide_f64 ? "f64" : "f32")
         : ty == TY_I32 ? "i32"
         : ty == TY_F16 ? (half_bf16 ? "bf16" : "f16")
         : ty == TY_I8  ? "i8"
         : ty == TY_F8  ? (f8_e5m2 ? "f8e5m2" : "f8e4m3")
                        : "bool";
}

static void print_num(Buf *b, int ty, double v) {
  if (ty == TY_BOOL) { put(b, v ? "true" : "false"); return; }
  if (ty == TY_I32 || ty == TY_I8) { put(b, v < 0 ? "(%.0f)" : "%.0f", v); return; }
  if (isinf(v)) { put(b, v < 0 ? "(-inf)" : "inf"); return; }
  char t[64];
  snprintf(t, sizeof t, "%.10g", v);
  if (!strpbrk(t, ".e")) strcat(t, ".0");
  put(b, v < 0 ? "(%s)" : "%s", t);
}

static void print_expr(Buf *b, const TlgenProgram *p, const Expr *e);

static void print_index(Buf *b, const TlgenProgram *p, const Expr *e) {
  put(b, "%s[", p->syms[e->sym].name);
  for (int i = 0; i < e->nidx; i++) {
    if (i) put(b, ", ");
    print_expr(b, p, e->start[i]);
    if (e->len[i]) put(b, " :+ %d", e->len[i]);
  }
  put(b, "]");
}

/* Whether e is a float value of literals only (an untyped one, which takes the
   other operand's type). tile2cu gives a function of such a value (abs(-1.5),
   min(-0.75, 0.625)) the default type f32: with f64 for f32 it is cast. */
static int lit_only(const Expr *e) {
  if (e->ty != TY_F32) return 0;
  switch (e->k) {
  case E_NUM: return 1;
  case E_NEG: return lit_only(e->a[0]);
  case E_BIN: return e->op != 'm' && e->op != 'M' && strchr("+-*/", e->op) && lit_only(e->a[0]) && lit_only(e->a[1]);
  case E_FN: return e->op == F_WHERE && lit_only(e->a[1]) && lit_only(e->a[2]);
  default: return 0;
  }
}
static void print_expr(Buf *b, const TlgenProgram *p, const Expr *e);
/* e, cast to f64 when it is a function of literals only and f64 is the 32-bit float type */
static void print_typed(Buf *b, const TlgenProgram *p, const Expr *e) {
  if (!wide_f64 || !lit_only(e)) {
    print_expr(b, p, e);
    return;
  }
  put(b, "f64(");
  print_expr(b, p, e);
  put(b, ")");
}

static void print_expr(Buf *b, const TlgenProgram *p, const Expr *e) {
  switch (e->k) {
  case E_NUM: print_num(b, e->ty, e->num); break;
  case E_SYM: put(b, "%s", p->syms[e->sym].name); break;
  case E_BLOCKX: put(b, "ctx.block.x"); break;
  case E_BLOCKY: put(b, "ctx.block.y"); break;
  case E_THREADS: put(b, "ctx.threads"); break;
  case E_THREAD: put(b, "ctx.thread"); break;
  case E_CONST: put(b, "TBM"); break;
  case E_BIN: {
    if (e->op == 'm' || e->op == 'M') {
      put(b, "%s(", e->op == 'm' ? "min" : "max");
      print_typed(b, p, e->a[0]);
      put(b, ", ");
      print_typed(b, p, e->a[1]);
      put(b, ")");
      break;
    }
    const char *op = e->op == 'l' ? "<=" : e->op == 'g' ? ">=" : e->op == '=' ? "==" : e->op == 'n' ? "!="
                   : e->op == '&' ? "&&" : e->op == '|' ? "||" : e->op == 'a' ? "&" : e->op == 'o' ? "|"
                   : e->op == 'x' ? "^" : e->op == 'L' ? "<<" : e->op == 'R' ? ">>" : 0;
    char one[2] = {(char)e->op, 0};
    put(b, "(");
    print_expr(b, p, e->a[0]);
    put(b, " %s ", op ? op : one);
    print_expr(b, p, e->a[1]);
    put(b, ")");
    break;
  }
  case E_NEG: put(b, "(-"); print_expr(b, p, e->a[0]); put(b, ")"); break;
  case E_NOT: put(b, "(!"); print_expr(b, p, e->a[0]); put(b, ")"); break;
  case E_FN:
    if (e->op == F_RANDINT) {
      put(b, "i32(randint(");
      print_expr(b, p, e->a[0]);
      put(b, ", ");
      print_expr(b, p, e->a[1]);
      put(b, ") %% %.0f)", e->num);
      break;
    }
    /* with f64 for f32, what tile2cu types f32 is cast: rand and randn, a dot of
       16- or 8-bit floats */
    if (wide_f64 && e->ty == TY_F32 &&
        (e->op == F_RAND || e->op == F_RANDN || (e->op == F_DOT && e->a[0]->ty != TY_F32))) {
      put(b, "f64(");
      Expr d = *e;
      d.ty = -1;
      print_expr(b, p, &d);
      put(b, ")");
      break;
    }
    put(b, "%s(", e->op == F_CVT_F16 && half_bf16 ? "bf16"
                  : e->op == F_CVT_F8 && f8_e5m2 ? "f8e5m2"
                  : e->op == F_CVT_F32 && wide_f64 ? "f64"
                                                 : fn_name[e->op]);
    if (e->op == F_ROWS || e->op == F_COLS) {
      put(b, "%d, %d)", e->d[0], e->d[1]);
      break;
    }
    if (e->op == F_RESHAPE) {
      print_typed(b, p, e->a[0]);
      if (e->rank == 1) put(b, ", [%d])", e->d[0]);
      else put(b, ", [%d, %d])", e->d[0], e->d[1]);
      break;
    }
    if (e->op >= F_CUMSUM && e->op <= F_CUMMAX) {
      print_typed(b, p, e->a[0]);
      if (e->num >= 0) put(b, ", %d", (int)e->num);
      put(b, ")");
      break;
    }
    for (int i = 0; i < 3 && e->a[i]; i++) {
      if (i) put(b, ", ");
      if (e->op == F_WHERE || e->op == F_CVT_F32 || e->op == F_CVT_I32 || e->op == F_CVT_F16 || e->op == F_CVT_F8 ||
          e->op == F_RAND || e->op == F_RANDN)
        print_expr(b, p, e->a[i]);
      else
        print_typed(b, p, e->a[i]);
    }
    put(b, ")");
    break;
  case E_SLICE:
  case E_GATHER:
    if (e->pad) put(b, "pad(");
    print_index(b, p, e);
    if (e->pad) {
      put(b, ", ");
      print_expr(b, p, e->a[0]);
      put(b, ")");
    }
    break;
  case E_TSLICE: print_index(b, p, e); break;
  }
}

static void print_block(Buf *b, const TlgenProgram *p, const Stmt *s, int ind);

static void print_stmt(Buf *b, const TlgenProgram *p, const Stmt *s, int ind) {
  put(b, "%*s", ind * 2, "");
  switch (s->k) {
  case S_VAR: {
    const Sym *y = &p->syms[s->sym];
    put(b, "var %s", y->name);
    if (s->op) {
      if (y->rank == 0) put(b, ": %s", ty_name(y->ty));
      else if (y->rank == 1) put(b, ": tile<%s>[%d]", ty_name(y->ty), y->d[0]);
      else put(b, ": tile<%s>[%d, %d]", ty_name(y->ty), y->d[0], y->d[1]);
    }
    if (s->rhs) {
      put(b, " = ");
      if (s->op) print_expr(b, p, s->rhs);
      else print_typed(b, p, s->rhs); /* var s = where(c, 1.5, 0.5): f32 without the cast */
    }
    put(b, "\n");
    break;
  }
  case S_ASSIGN:
    print_expr(b, p, s->lhs);
    if (s->op == '=') put(b, " = ");
    else put(b, " %c= ", s->op);
    print_expr(b, p, s->rhs);
    put(b, "\n");
    break;
  case S_FOR:
    if (s->pipeline) put(b, "@pipeline(%d)\n%*s", s->pipeline, ind * 2, "");
    if (s->unroll == 1) put(b, "@unroll\n%*s", ind * 2, "");
    else if (s->unroll) put(b, "@unroll(%d)\n%*s", s->unroll, ind * 2, "");
    put(b, "for %s in range(", p->syms[s->sym].name);
    print_expr(b, p, s->lo);
    put(b, ", ");
    print_expr(b, p, s->hi);
    if (s->step != 1) put(b, ", %d", s->step);
    put(b, ") {\n");
    print_block(b, p, s->body, ind + 1);
    put(b, "%*s}\n", ind * 2, "");
    break;
  case S_IF:
    put(b, "if ");
    print_expr(b, p, s->lo);
    put(b, " {\n");
    print_block(b, p, s->body, ind + 1);
    while (s->els && s->els->k == S_IF && !s->els->next) { /* else if */
      s = s->els;
      put(b, "%*s} else if ", ind * 2, "");
      print_expr(b, p, s->lo);
      put(b, " {\n");
      print_block(b, p, s->body, ind + 1);
    }
    if (s->els) {
      put(b, "%*s} else {\n", ind * 2, "");
      print_block(b, p, s->els, ind + 1);
    }
    put(b, "%*s}\n", ind * 2, "");
    break;
  case S_WHILE:
    put(b, "while ");
    print_expr(b, p, s->lo);
    put(b, " {\n");
    print_block(b, p, s->body, ind + 1);
    put(b, "%*s}\n", ind * 2, "");
    break;
  case S_ATOMIC:
    put(b, "atomic_%s(", s->op == '+' ? "add" : s->op == 'M' ? "max" : "min");
    print_expr(b, p, s->lhs);
    put(b, ", ");
    print_expr(b, p, s->rhs);
    put(b, ")\n");
    break;
  case S_BREAK: put(b, "break\n"); break;
  case S_CONTINUE: put(b, "continue\n"); break;
  case S_PERTHREAD:
    put(b, "// each thread stores its own elements\n");
    print_block(b, p, s->body, ind);
    break;
  }
}

static void print_block(Buf *b, const TlgenProgram *p, const Stmt *s, int ind) {
  for (; s; s = s->next) print_stmt(b, p, s, ind);
}

static void print_dim(Buf *b, const TlgenProgram *p, int d) {
  if (d >= 0) put(b, "%d", d);
  else put(b, "%s", p->size_name[-d - 1]);
}

static char *print_program(const TlgenProgram *p) {
  Buf b = {0, 0, 0};
  put(&b, "// generated by tlgen\n");
  if (p->const_bm) put(&b, "const TBM = %d\n", p->bm);
  if (p->min_blocks) put(&b, "@launch(%d, %d)\n", p->threads, p->min_blocks);
  else put(&b, "@launch(%d)\n", p->threads);
  if (p->nregs) {
    put(&b, "@registers(");
    for (int i = 0; i < p->nregs; i++) put(&b, "%s%s", i ? ", " : "", p->syms[p->regs[i]].name);
    put(&b, ")\n");
  }
  if (p->grid == 2 && p->const_bm) put(&b, "@grid(cdiv(N, %d), cdiv(M, TBM))\n", p->bn);
  else if (p->grid == 2) put(&b, "@grid(cdiv(N, %d), cdiv(M, %d))\n", p->bn, p->bm);
  if (p->grid == 1 && p->const_bm) put(&b, "@grid(cdiv(M, TBM))\n");
  else if (p->grid == 1) put(&b, "@grid(cdiv(M, %d))\n", p->bm);
  int na = 0;
  for (int i = 0; i < p->nsizes; i++) {
    if (!p->size_mult[i] && p->size_min[i] <= 1) continue;
    put(&b, na++ ? ", " : "@assume(");
    if (p->size_mult[i]) put(&b, "%s %% %d == 0", p->size_name[i], p->size_mult[i]);
    else put(&b, "%s >= %d", p->size_name[i], p->size_min[i]);
  }
  if (na) put(&b, ")\n");
  int ns = 0;
  for (int i = 0; i < p->nparams; i++)
    if (p->params[i].is_strided) put(&b, "%s%s", ns++ ? ", " : "@strided(", p->params[i].name);
  if (ns) put(&b, ")\n");
  put(&b, "kernel %s(", p->kname);
  for (int i = 0; i < p->nparams; i++) {
    const TlgenParam *q = &p->params[i];
    put(&b, "%s%s: ", i ? ", " : "", q->name);
    if (q->kind == TLGEN_PARAM_SCALAR) {
      put(&b, "%s", ty_name(q->elem));
      continue;
    }
    put(&b, "tensor<%s>[", ty_name(q->elem));
    for (int j = 0; j < q->rank; j++) {
      if (j) put(&b, ", ");
      print_dim(&b, p, q->dim[j]);
    }
    put(&b, "]");
  }
  put(&b, ") {\n");
  print_block(&b, p, p->body, 1);
  put(&b, "}\n");
  if (p->aux)
    put(&b, "\n// not run\n@launch(64)\nkernel %s_aux(A: tensor<f32>[L], B: tensor<f32>[L]) {\n"
            "  for i in range(0, L, 64) {\n    B[i :+ 64] = A[i :+ 64] * 2.0 + f32(L)\n  }\n}\n",
        p->kname);
  return b.s;
}

/* ------------------------------------------------------------ API */

static TlgenProgram *build(Src src, const char *kname) {
  TlgenProgram *p = calloc(1, sizeof *p);
  if (!p) return 0;
  snprintf(p->kname, sizeof p->kname, "%s", kname);
  p->bf16 = half_bf16 = src.bf16;
  p->f64 = wide_f64 = src.f64;
  p->rnd = src.rnd;
  f8_e5m2 = 0;
  generate(p, src);
  p->src = print_program(p);
  half_bf16 = f8_e5m2 = wide_f64 = 0;
  for (int i = 0; i < p->nparams; i++) {
    p->pub[i] = p->params[i];
    if (p->bf16 && p->pub[i].elem == TY_F16) p->pub[i].elem = TLGEN_BF16;
    if (p->f8e5m2 && p->pub[i].elem == TY_F8) p->pub[i].elem = TLGEN_F8E5M2;
    if (p->f64 && p->pub[i].elem == TY_F32) p->pub[i].elem = TLGEN_F64;
  }
  /* (TY_I8 is TLGEN_I8I, TY_F16 TLGEN_F16, TY_F8 TLGEN_F8E4M3: the other elems are their own) */
  return p;
}

TlgenProgram *tlgen_from_seed(uint64_t seed) {
  Src s = {0};
  s.state = seed;
  char name[40];
  snprintf(name, sizeof name, "tl_%llu", (unsigned long long)seed);
  return build(s, name);
}

TlgenProgram *tlgen_from_seed_wg(uint64_t seed) { return tlgen_from_seed_opts(seed, TLGEN_WG); }

TlgenProgram *tlgen_from_seed_opts(uint64_t seed, unsigned opts) {
  Src s = {0};
  s.state = seed;
  s.wg = !!(opts & TLGEN_WG);
  s.strided = !!(opts & TLGEN_STRIDED);
  s.bf16 = !!(opts & TLGEN_HALF_BF16);
  s.i8 = !!(opts & TLGEN_I8);
  s.f8 = !!(opts & TLGEN_F8);
  s.f64 = !!(opts & TLGEN_WIDE_F64);
  s.rnd = !!(opts & TLGEN_RAND);
  s.wgloop = !!(opts & TLGEN_WG_LOOP);
  s.deep = !!(opts & TLGEN_DEEP);
  s.online = !!(opts & TLGEN_ONLINE);
  s.wg |= s.wgloop;
  char name[40];
  snprintf(name, sizeof name, "tl_%llu", (unsigned long long)seed);
  return build(s, name);
}

TlgenProgram *tlgen_from_bytes(const uint8_t *d, size_t n) {
  Src s = {0};
  s.bytes = 1;
  s.d = d;
  s.n = n;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull;
  char name[40];
  snprintf(name, sizeof name, "tlb_%016llx", (unsigned long long)h);
  return build(s, name);
}

const char *tlgen_source(const TlgenProgram *p) { return p->src; }
const char *tlgen_kernel_name(const TlgenProgram *p) { return p->kname; }

void tlgen_free(TlgenProgram *p) {
  if (!p) return;
  while (p->arena) {
    Chunk *c = p->arena;
    p->arena = c->next;
    free(c);
  }
  free(p->src);
  free(p);
}

int tlgen_num_params(const TlgenProgram *p) { return p->nparams; }
const TlgenParam *tlgen_param(const TlgenProgram *p, int i) { return &p->pub[i]; }
int tlgen_num_sizes(const TlgenProgram *p) { return p->nsizes; }
const char *tlgen_size_name(const TlgenProgram *p, int i) { return p->size_name[i]; }

void tlgen_pick_sizes(const TlgenProgram *p, uint64_t seed, long long *sizes) {
  Src s = {0};
  s.state = seed ^ 0x5eed5eedull;
  for (int i = 0; i < p->nsizes; i++) {
    int lo = p->size_min[i], hi = p->size_max[i];
    int v = chance(&s, 10) ? range_pick(&s, lo, lo + 3) : range_pick(&s, lo, hi);
    if (p->size_mult[i]) {
      int m = p->size_mult[i];
      v = (v + m - 1) / m * m;
    } else if (v % 2 == 0 && chance(&s, 90)) {
      v = v + 1 <= hi ? v + 1 : v - 1;
      if (v < lo) v = lo;
    }
    sizes[i] = v;
  }
}

void tlgen_pick_scalars(const TlgenProgram *p, uint64_t seed, double *values) {
  Src s = {0};
  s.state = seed ^ 0x5ca1a25ull;
  for (int i = 0; i < p->nparams; i++) {
    if (p->params[i].kind != TLGEN_PARAM_SCALAR) continue;
    values[i] = p->params[i].elem == TY_I32 ? range_pick(&s, -3, 5) : range_pick(&s, -16, 16) / 8.0;
  }
}

static long long dim_value(const TlgenProgram *p, int d, const long long *sizes) {
  (void)p;
  return d >= 0 ? d : sizes[-d - 1];
}

long long tlgen_tensor_elems(const TlgenProgram *p, int i, const long long *sizes) {
  const TlgenParam *q = &p->params[i];
  long long n = 1;
  for (int j = 0; j < q->rank; j++) n *= dim_value(p, q->dim[j], sizes);
  return n;
}

void tlgen_fill_tensor(const TlgenProgram *p, int i, uint64_t seed, const long long *sizes, double *data) {
  Src s = {0};
  s.state = seed * 31 + (uint64_t)i;
  long long n = tlgen_tensor_elems(p, i, sizes);
  int ty = p->params[i].elem;
  for (long long j = 0; j < n; j++) {
    data[j] = ty == TY_I32 || ty == TY_I8 ? range_pick(&s, -8, 8) : range_pick(&s, -16, 16) / 8.0;
    /* f8e5m2 holds 3 significant bits: 9/8, 11/8, 13/8 and 15/8 move one eighth toward 0 */
    if (ty == TY_F8 && p->f8e5m2 && fabs(data[j]) > 1 && fmod(fabs(data[j]) * 8, 2) == 1)
      data[j] -= copysign(0.125, data[j]);
  }
}

int tlgen_close(int elem, double expected, double mag, double got) {
  if (isnan(expected) || isnan(got)) return isnan(expected) && isnan(got);
  if (isinf(expected) || isinf(got)) return expected == got;
  if (elem == TY_I32 || elem == TY_I8) return expected == got;
  if (elem == TLGEN_F8E4M3 || elem == TLGEN_F8E5M2) return expected == got; /* rounded from exact values */
  double tol = (elem == TLGEN_BF16 ? 1.6e-2 : elem == TY_F16 ? 2e-3 : 1e-4) * (1 + fabs(mag)); /* f64 as f32 */
  return fabs(expected - got) <= tol;
}

/* ------------------------------------------------------------ evaluator */

typedef struct Val {
  int rank, d[2];
  long long n;
  double *v, *m; /* values and magnitude bounds */
} Val;

typedef struct Ev {
  const TlgenProgram *p;
  const long long *sizes;
  const double *scalars;
  double *const *data;
  double *const *mag;
  Val *vals[MAX_SYMS];
  long long bx, by;
  int tid;
  int ctl; /* 1: break, 2: continue */
} Ev;

static Val *val_new(int rank, int d0, int d1) {
  Val *x = malloc(sizeof *x);
  if (!x) abort();
  x->rank = rank;
  x->d[0] = rank > 0 ? d0 : 1;
  x->d[1] = rank > 1 ? d1 : 1;
  x->n = (long long)x->d[0] * x->d[1];
  x->v = calloc((size_t)x->n, sizeof(double));
  x->m = calloc((size_t)x->n, sizeof(double));
  if (!x->v || !x->m) abort();
  return x;
}
static void val_free(Val *x) {
  if (!x) return;
  free(x->v);
  free(x->m);
  free(x);
}
/* Element (i, j) of x broadcast to a larger shape of rank rr: a rank-1 x
   against a rank-2 shape is a row; a rank-2 x with a unit dim stored into a
   rank-1 target drops the unit dim. */
static long long bidx(const Val *x, int rr, int i, int j) {
  if (x->rank == 0) return 0;
  if (x->rank == 1) return x->d[0] == 1 ? 0 : rr == 2 ? j : i;
  if (rr == 1) return x->n == 1 ? 0 : i;
  return (long long)(x->d[0] == 1 ? 0 : i) * x->d[1] + (x->d[1] == 1 ? 0 : j);
}

static Val *eval(Ev *E, const Expr *e);

/* x rounded to the nearest f16 value, ties to even (11 significant bits,
   subnormals spaced 2^-24, infinity from 65520 on). */
static double round_f16(double x) {
  if (x == 0 || isnan(x) || isinf(x)) return x;
  double a = fabs(x);
  if (a >= 65520) return copysign(INFINITY, x);
  int e;
  frexp(a, &e);
  int q = e - 11 < -24 ? -24 : e - 11;
  double r = ldexp(nearbyint(ldexp(a, -q)), q);
  return copysign(r, x);
}

/* x rounded to the nearest bf16 value, ties to even (8 significant bits, the
   exponent range of f32: subnormals spaced 2^-133, infinity past the largest
   finite value 0x7f7f). */
static double round_bf16(double x) {
  if (x == 0 || isnan(x) || isinf(x)) return x;
  double a = fabs(x);
  int e;
  frexp(a, &e);
  int q = e - 8 < -133 ? -133 : e - 8;
  double r = ldexp(nearbyint(ldexp(a, -q)), q);
  if (r > ldexp(255, 120)) return copysign(INFINITY, x);
  return copysign(r, x);
}

/* x rounded to the nearest value of an 8-bit float, ties to even, saturated
   to the largest finite one: f8e4m3 (4 significant bits, subnormals spaced
   2^-9, largest 448) or f8e5m2 (3 bits, 2^-16, 57344), as cvt.rn.satfinite. */
double tlgen_round_f8(double x, int e5m2) {
  if (x == 0 || isnan(x)) return x;
  double a = fabs(x), max = e5m2 ? 57344 : 448;
  if (a >= max) return copysign(max, x);
  int e;
  frexp(a, &e);
  int bits = e5m2 ? 3 : 4, qmin = e5m2 ? -16 : -9;
  int q = e - bits < qmin ? qmin : e - bits;
  double r = ldexp(nearbyint(ldexp(a, -q)), q);
  return copysign(r > max ? max : r, x);
}

/* Philox4x32-10 from its definition: ten rounds of (c0, c1, c2, c3) ->
   (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0)), the key
   bumped by the Weyl constants between rounds. */
void tlgen_philox4x32_10(const uint32_t c[4], const uint32_t k[2], uint32_t w[4]) {
  uint32_t x[4] = {c[0], c[1], c[2], c[3]}, k0 = k[0], k1 = k[1];
  for (int r = 0; r < 10; r++) {
    if (r) k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
    uint64_t p0 = (uint64_t)0xD2511F53u * x[0], p1 = (uint64_t)0xCD9E8D57u * x[2];
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0, y1 = (uint32_t)p1, y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1, y3 = (uint32_t)p0;
    x[0] = y0, x[1] = y1, x[2] = y2, x[3] = y3;
  }
  memcpy(w, x, sizeof x);
}
/* rand / randn / randint(seed, off) as the language defines them: counter
   (off's bits, 0, 0, 0), key (seed's low and high words, an i32 seed
   sign-extended). */
static double eval_rand(int f, double seed, double off, double mod) {
  int64_t sd = (int64_t)seed;
  uint32_t c[4] = {(uint32_t)(int32_t)(int64_t)off, 0, 0, 0}, k[2] = {(uint32_t)sd, (uint32_t)((uint64_t)sd >> 32)}, w[4];
  tlgen_philox4x32_10(c, k, w);
  if (f == F_RANDINT) return (double)(w[0] % (uint32_t)mod);
  if (f == F_RAND) return ldexp(w[0] >> 8, -24);
  double u1 = ldexp((w[0] >> 8) + 1.0, -24), u2 = ldexp(w[1] >> 8, -24);
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static double eval_scalar(Ev *E, const Expr *e) {
  Val *x = eval(E, e);
  double v = x->v[0];
  val_free(x);
  return v;
}

static long long tensor_dim(const Ev *E, const TlgenParam *q, int i) { return dim_value(E->p, q->dim[i], E->sizes); }

/* The coordinates of a slice: start of every index, and which dims are kept. */
typedef struct Region {
  long long start[TLGEN_MAX_RANK];
  int kd[2], nk;
} Region;

static void region_of(Ev *E, const Expr *e, Region *r) {
  r->nk = 0;
  for (int i = 0; i < e->nidx; i++) {
    r->start[i] = (long long)eval_scalar(E, e->start[i]);
    if (e->len[i]) r->kd[r->nk++] = i;
  }
}
/* Flat offset of element (a, b) of a tensor slice, or -1 outside the tensor. */
static long long tensor_off(Ev *E, const Expr *e, const Region *r, int a, int b) {
  const TlgenParam *q = &E->p->params[E->p->syms[e->sym].index];
  long long off = 0;
  for (int i = 0; i < q->rank; i++) {
    long long c = r->start[i];
    if (r->nk > 0 && i == r->kd[0]) c += a;
    if (r->nk > 1 && i == r->kd[1]) c += b;
    long long D = tensor_dim(E, q, i);
    if (c < 0 || c >= D) return -1;
    off = off * D + c;
  }
  return off;
}
/* Flat offset of the tensor element that element (i, j) of a gather's
   indices ix (of a result of rank rr) names, or -1 outside the tensor. */
static long long gather_off(Ev *E, const Expr *e, Val *const *ix, int rr, int i, int j) {
  const TlgenParam *q = &E->p->params[E->p->syms[e->sym].index];
  long long off = 0;
  for (int d = 0; d < q->rank; d++) {
    long long c = (long long)ix[d]->v[bidx(ix[d], rr, i, j)];
    long long D = tensor_dim(E, q, d);
    if (c < 0 || c >= D) return -1;
    off = off * D + c;
  }
  return off;
}
static long long tile_off(Ev *E, const Expr *e, const Region *r, int a, int b) {
  const Sym *y = &E->p->syms[e->sym];
  long long c[2] = {r->start[0], y->rank > 1 ? r->start[1] : 0};
  if (r->nk > 0) c[r->kd[0]] += a;
  if (r->nk > 1) c[r->kd[1]] += b;
  return y->rank > 1 ? c[0] * y->d[1] + c[1] : c[0];
}

static double apply_bin(int op, int ty, double a, double b) {
  switch (op) {
  case '+': return a + b;
  case '-': return a - b;
  case '*': return a * b;
  case '/': return ty == TY_I32 ? trunc(a / b) : a / b;
  case '%': return fmod(a, b);
  case 'a': return (double)((long long)a & (long long)b);
  case 'o': return (double)((long long)a | (long long)b);
  case 'x': return (double)((long long)a ^ (long long)b);
  case 'L': return (double)((long long)a * (1LL << (int)b));
  case 'R': return (double)((long long)a >> (int)b);
  case 'm': return a < b ? a : b;
  case 'M': return a > b ? a : b;
  case '<': return a < b;
  case 'l': return a <= b;
  case '>': return a > b;
  case 'g': return a >= b;
  case '=': return a == b;
  case 'n': return a != b;
  case '&': return a != 0 && b != 0;
  case '|': return a != 0 || b != 0;
  }
  return 0;
}
static double bin_mag(int op, int ty, double v, double a, double ma, double b, double mb) {
  (void)a;
  switch (op) {
  case '+': case '-': return ma + mb;
  case '*': return ma * mb;
  case '/': return ty == TY_I32 ? fabs(v) : (ma + fabs(v) * mb) / fabs(b);
  case 'm': case 'M': return ma > mb ? ma : mb;
  default: return fabs(v);
  }
}

static Val *eval(Ev *E, const Expr *e) {
  const TlgenProgram *p = E->p;
  Val *r = val_new(e->rank, e->d[0], e->d[1]);
  int R = r->d[0], C = r->d[1];
  switch (e->k) {
  case E_THREAD:
    r->v[0] = E->tid;
    break;
  case E_CONST:
  case E_NUM:
    r->v[0] = e->num;
    r->m[0] = isinf(e->num) ? 0 : fabs(e->num); /* an infinity carries no rounding (a -inf start) */
    break;
  case E_BLOCKX:
    r->v[0] = (double)E->bx;
    break;
  case E_BLOCKY:
    r->v[0] = (double)E->by;
    break;
  case E_THREADS:
    r->v[0] = p->threads;
    break;
  case E_SYM: {
    const Sym *y = &p->syms[e->sym];
    if (y->kind == SY_SIZE) {
      r->v[0] = (double)E->sizes[y->index];
    } else if (y->kind == SY_SPARAM) {
      r->v[0] = E->scalars[y->index];
      r->m[0] = fabs(r->v[0]);
    } else {
      const Val *x = E->vals[e->sym];
      if (x) {
        memcpy(r->v, x->v, (size_t)r->n * sizeof(double));
        memcpy(r->m, x->m, (size_t)r->n * sizeof(double));
      }
    }
    break;
  }
  case E_BIN: {
    Val *a = eval(E, e->a[0]), *b = eval(E, e->a[1]);
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++) {
        long long ia = bidx(a, r->rank, i, j), ib = bidx(b, r->rank, i, j), k = (long long)i * C + j;
        double v = apply_bin(e->op, e->a[0]->ty, a->v[ia], b->v[ib]);
        r->v[k] = v;
        r->m[k] = bin_mag(e->op, e->a[0]->ty, v, a->v[ia], a->m[ia], b->v[ib], b->m[ib]);
      }
    val_free(a);
    val_free(b);
    break;
  }
  case E_NEG: case E_NOT: {
    Val *a = eval(E, e->a[0]);
    for (long long k = 0; k < r->n; k++) {
      r->v[k] = e->k == E_NEG ? -a->v[k] : !a->v[k];
      r->m[k] = a->m[k];
    }
    val_free(a);
    break;
  }
  case E_SLICE: {
    Region g;
    region_of(E, e, &g);
    int pi = p->syms[e->sym].index;
    double padv = e->pad ? eval_scalar(E, e->a[0]) : 0;
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++) {
        long long off = tensor_off(E, e, &g, i, j), k = (long long)i * C + j;
        r->v[k] = off < 0 ? padv : E->data[pi][off];
        r->m[k] = isinf(r->v[k]) ? 0 : off >= 0 && E->mag && E->mag[pi] ? E->mag[pi][off] : fabs(r->v[k]);
      }
    break;
  }
  case E_GATHER: {
    Val *ix[TLGEN_MAX_RANK] = {0};
    for (int d = 0; d < e->nidx; d++) ix[d] = eval(E, e->start[d]);
    int pi = p->syms[e->sym].index;
    double padv = e->pad ? eval_scalar(E, e->a[0]) : 0;
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++) {
        long long off = gather_off(E, e, ix, r->rank, i, j), k = (long long)i * C + j;
        r->v[k] = off < 0 ? padv : E->data[pi][off];
        r->m[k] = isinf(r->v[k]) ? 0 : off >= 0 && E->mag && E->mag[pi] ? E->mag[pi][off] : fabs(r->v[k]);
      }
    for (int d = 0; d < e->nidx; d++) val_free(ix[d]);
    break;
  }
  case E_TSLICE: {
    Region g;
    region_of(E, e, &g);
    const Val *x = E->vals[e->sym];
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++) {
        long long off = tile_off(E, e, &g, i, j), k = (long long)i * C + j;
        if (x) r->v[k] = x->v[off], r->m[k] = x->m[off];
      }
    break;
  }
  case E_FN: {
    int f = e->op;
    if (f == F_ROWS || f == F_COLS) {
      for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) r->v[(long long)i * C + j] = f == F_ROWS ? i : j;
      break;
    }
    Val *a = e->a[0] ? eval(E, e->a[0]) : 0;
    Val *b = e->a[1] ? eval(E, e->a[1]) : 0;
    Val *c = e->a[2] ? eval(E, e->a[2]) : 0;
    switch (f) {
    case F_ABS: case F_EXP: case F_SQRT: case F_CVT_F32: case F_CVT_I32: case F_CVT_F16: case F_CVT_F8:
    case F_EXP2: case F_LOG: case F_LOG2: case F_RSQRT: case F_SIN: case F_COS: case F_TANH: case F_SIGMOID:
    case F_FLOOR: case F_CEIL:
      for (long long k = 0; k < r->n; k++) {
        double x = a->v[k], m = a->m[k], v;
        switch (f) {
        case F_ABS: v = fabs(x); break;
        case F_EXP: v = exp(x); m = isinf(x) ? 0 : v * (1 + m); break; /* exp(-inf - mnew): an online softmax's first rescale */
        case F_SQRT: v = sqrt(x); m = v + m / (2 * v); break;
        case F_CVT_I32: v = trunc(x); m = fabs(v); break;
        case F_CVT_F16: v = E->p->bf16 ? round_bf16(x) : round_f16(x); break;
        case F_CVT_F8: v = tlgen_round_f8(x, E->p->f8e5m2); m = fabs(v); break;
        case F_EXP2: v = exp2(x); m = v * (1 + m); break;
        case F_LOG: v = log(x); m = fabs(v) + m / x; break;
        case F_LOG2: v = log2(x); m = fabs(v) + m / x; break;
        case F_RSQRT: v = 1 / sqrt(x); m = v + m / x; break;
        case F_SIN: v = sin(x); m = 1 + m; break;
        case F_COS: v = cos(x); m = 1 + m; break;
        case F_TANH: v = tanh(x); m = 1 + m; break;
        case F_SIGMOID: v = 1 / (1 + exp(-x)); m = 1 + m; break;
        case F_FLOOR: v = floor(x); break;
        case F_CEIL: v = ceil(x); break;
        default: v = x; break;
        }
        r->v[k] = v;
        r->m[k] = m;
      }
      break;
    case F_RAND: case F_RANDN: case F_RANDINT:
      for (long long k = 0; k < r->n; k++) {
        r->v[k] = eval_rand(f, a->v[0], b->v[k], e->num);
        r->m[k] = fabs(r->v[k]) + 1;
      }
      break;
    case F_WHERE:
      for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
          long long k = (long long)i * C + j, ic = bidx(a, r->rank, i, j), ia = bidx(b, r->rank, i, j), ib = bidx(c, r->rank, i, j);
          int t = a->v[ic] != 0;
          r->v[k] = t ? b->v[ia] : c->v[ib];
          r->m[k] = t ? b->m[ia] : c->m[ib];
        }
      break;
    case F_DOT: {
      int K = a->d[1];
      for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
          double s = 0, m = 0;
          for (int kk = 0; kk < K; kk++) {
            s += a->v[(long long)i * K + kk] * b->v[(long long)kk * C + j];
            m += a->m[(long long)i * K + kk] * b->m[(long long)kk * C + j];
          }
          r->v[(long long)i * C + j] = s;
          r->m[(long long)i * C + j] = m;
        }
      break;
    }
    case F_CUMSUM: case F_CUMPROD: case F_CUMMAX: { /* inclusive, down the columns for axis 0 */
      int down = a->rank == 1 || e->num == 0;
      for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
          long long k = (long long)i * C + j, q = down ? (i ? k - C : -1) : (j ? k - 1 : -1);
          double x = a->v[k], m = a->m[k];
          if (q >= 0) {
            double pv = r->v[q], pm = r->m[q];
            if (f == F_CUMSUM) x += pv, m += pm;
            else if (f == F_CUMPROD) x *= pv, m *= pm;
            else x = x > pv ? x : pv, m = m > pm ? m : pm;
          }
          r->v[k] = x;
          r->m[k] = m;
        }
      break;
    }
    case F_ROWARGMAX: case F_ROWARGMIN: case F_COLARGMAX: case F_COLARGMIN: { /* the first extreme element */
      int row = f == F_ROWARGMAX || f == F_ROWARGMIN, mx = f == F_ROWARGMAX || f == F_COLARGMAX;
      int n = row ? a->d[0] : a->d[1], len = row ? a->d[1] : a->d[0];
      for (int o = 0; o < n; o++) {
        int best = 0;
        for (int t = 1; t < len; t++) {
          double x = a->v[row ? (long long)o * len + t : (long long)t * n + o];
          double y = a->v[row ? (long long)o * len + best : (long long)best * n + o];
          if (mx ? x > y : x < y) best = t;
        }
        r->v[o] = best;
        r->m[o] = best;
      }
      break;
    }
    case F_RESHAPE: /* row-major order */
      memcpy(r->v, a->v, (size_t)r->n * sizeof(double));
      memcpy(r->m, a->m, (size_t)r->n * sizeof(double));
      break;
    case F_TRANSPOSE:
      for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
          r->v[(long long)i * C + j] = a->v[(long long)j * R + i];
          r->m[(long long)i * C + j] = a->m[(long long)j * R + i];
        }
      break;
    case F_ROWSUM: case F_ROWMAX: case F_ROWMIN: case F_COLSUM: case F_COLMAX: case F_COLMIN: case F_SUM: {
      int kind = f == F_SUM ? 0 : (f - F_ROWSUM) % 3;
      int rows = f == F_ROWSUM || f == F_ROWMAX || f == F_ROWMIN;
      for (long long k = 0; k < r->n; k++) {
        r->v[k] = kind == 0 ? 0 : kind == 1 ? -INFINITY : INFINITY;
        r->m[k] = 0;
      }
      for (int i = 0; i < a->d[0]; i++)
        for (int j = 0; j < a->d[1]; j++) {
          long long s = (long long)i * a->d[1] + j;
          long long k = f == F_SUM ? 0 : rows ? i : j;
          double x = a->v[s];
          if (kind == 0) {
            r->v[k] += x;
            r->m[k] += a->m[s];
          } else {
            if (kind == 1 ? x > r->v[k] : x < r->v[k]) r->v[k] = x;
            if (a->m[s] > r->m[k]) r->m[k] = a->m[s];
          }
        }
      break;
    }
    default:
      break;
    }
    val_free(a);
    val_free(b);
    val_free(c);
    break;
  }
  }
  for (long long k = 0; k < r->n; k++) /* infinities (a -inf pad) carry no rounding */
    if (isinf(r->v[k])) r->m[k] = 0;
    else if (!(r->m[k] >= fabs(r->v[k]))) r->m[k] = fabs(r->v[k]);
  return r;
}

static void combine(int op, double *dst, double *dm, double v, double m) {
  switch (op) {
  case '=': *dst = v; *dm = m; break;
  case '+': *dst += v; *dm += m; break;
  case '-': *dst -= v; *dm += m; break;
  case '*': *dst *= v; *dm *= m; break;
  case '/': *dst /= v; *dm /= fabs(v); break;
  case 'M': if (v > *dst) *dst = v; if (m > *dm) *dm = m; break;
  case 'm': if (v < *dst) *dst = v; if (m > *dm) *dm = m; break;
  }
}

/* A store, scatter or atomic update (op of combine) of x to a tensor slice or gather l. */
static void store_tensor(Ev *E, const Expr *l, int op, const Val *x) {
  const TlgenProgram *p = E->p;
  Region g;
  Val *ix[TLGEN_MAX_RANK] = {0};
  if (l->k == E_GATHER)
    for (int d = 0; d < l->nidx; d++) ix[d] = eval(E, l->start[d]);
  else
    region_of(E, l, &g);
  int R = l->rank > 0 ? l->d[0] : 1, C = l->rank > 1 ? l->d[1] : 1;
  int pi = p->syms[l->sym].index;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      long long b = bidx(x, l->rank, i, j);
      long long off = l->k == E_GATHER ? gather_off(E, l, ix, l->rank, i, j) : tensor_off(E, l, &g, i, j);
      if (off < 0) continue;
      double dummy = 0, *dm = E->mag && E->mag[pi] ? &E->mag[pi][off] : &dummy;
      combine(op, &E->data[pi][off], dm, x->v[b], x->m[b]);
    }
  for (int d = 0; d < l->nidx; d++) val_free(ix[d]);
}

static void exec_block(Ev *E, const Stmt *s);

static void exec_stmt(Ev *E, const Stmt *s) {
  const TlgenProgram *p = E->p;
  switch (s->k) {
  case S_VAR: {
    const Sym *y = &p->syms[s->sym];
    Val *x = s->rhs ? eval(E, s->rhs) : val_new(0, 0, 0);
    Val *t = val_new(y->rank, y->d[0], y->d[1]);
    for (int i = 0; i < t->d[0]; i++)
      for (int j = 0; j < t->d[1]; j++) {
        long long k = (long long)i * t->d[1] + j, b = bidx(x, t->rank, i, j);
        t->v[k] = x->v[b];
        t->m[k] = x->m[b];
      }
    val_free(x);
    val_free(E->vals[s->sym]);
    E->vals[s->sym] = t;
    break;
  }
  case S_ASSIGN: {
    Val *x = eval(E, s->rhs);
    const Expr *l = s->lhs;
    if (l->k == E_SYM) {
      Val *t = E->vals[l->sym];
      for (int i = 0; i < t->d[0]; i++)
        for (int j = 0; j < t->d[1]; j++) {
          long long k = (long long)i * t->d[1] + j, b = bidx(x, t->rank, i, j);
          combine(s->op, &t->v[k], &t->m[k], x->v[b], x->m[b]);
        }
    } else if (l->k == E_TSLICE) {
      Region g;
      region_of(E, l, &g);
      int R = l->rank > 0 ? l->d[0] : 1, C = l->rank > 1 ? l->d[1] : 1;
      Val *t = E->vals[l->sym];
      for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
          long long b = bidx(x, l->rank, i, j), off = tile_off(E, l, &g, i, j);
          combine(s->op, &t->v[off], &t->m[off], x->v[b], x->m[b]);
        }
    } else {
      store_tensor(E, l, s->op, x);
    }
    val_free(x);
    break;
  }
  case S_ATOMIC: {
    Val *x = eval(E, s->rhs);
    store_tensor(E, s->lhs, s->op, x);
    val_free(x);
    break;
  }
  case S_FOR: {
    long long lo = (long long)eval_scalar(E, s->lo), hi = (long long)eval_scalar(E, s->hi);
    for (long long v = lo; v < hi; v += s->step) {
      if (!E->vals[s->sym]) E->vals[s->sym] = val_new(0, 0, 0);
      E->vals[s->sym]->v[0] = (double)v;
      exec_block(E, s->body);
      if (E->ctl == 1) { E->ctl = 0; break; }
      E->ctl = 0;
    }
    break;
  }
  case S_IF:
    if (eval_scalar(E, s->lo) != 0) exec_block(E, s->body);
    else exec_block(E, s->els);
    break;
  case S_WHILE:
    while (eval_scalar(E, s->lo) != 0) {
      exec_block(E, s->body);
      if (E->ctl == 1) { E->ctl = 0; break; }
      E->ctl = 0;
    }
    break;
  case S_BREAK: E->ctl = 1; break;
  case S_CONTINUE: E->ctl = 2; break;
  case S_PERTHREAD:
    for (E->tid = 0; E->tid < p->threads; E->tid++) exec_block(E, s->body);
    E->tid = 0;
    break;
  }
}

static void exec_block(Ev *E, const Stmt *s) {
  for (; s && !E->ctl; s = s->next) exec_stmt(E, s);
}

int tlgen_eval(const TlgenProgram *p, const long long *sizes, const double *scalars,
               double *const *data, double *const *mag) {
  Ev E0, *E = &E0;
  memset(E, 0, sizeof *E);
  E->p = p;
  E->sizes = sizes;
  E->scalars = scalars;
  E->data = data;
  E->mag = mag;
  for (int i = 0; i < p->nparams; i++) {
    if (p->params[i].kind != TLGEN_PARAM_TENSOR || !mag || !mag[i]) continue;
    long long n = tlgen_tensor_elems(p, i, sizes);
    for (long long j = 0; j < n; j++) mag[i][j] = fabs(data[i][j]);
  }
  long long rows = p->grid ? (sizes[0] + p->bm - 1) / p->bm : 1, cols = p->grid == 2 ? (sizes[1] + p->bn - 1) / p->bn : 1;
  for (long long b = 0; b < rows * cols; b++) {
    E->bx = p->grid == 2 ? b % cols : b;
    E->by = p->grid == 2 ? b / cols : 0;
    exec_block(E, p->body);
  }
  for (int i = 0; i < p->nsyms; i++) val_free(E->vals[i]);
  return 0;
}
