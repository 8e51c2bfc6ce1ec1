/* t2c.h: the translator's one internal header.
 *
 * The pipeline is  lex -> parse -> check -> place -> emit  (see main.c).
 * Each section below belongs to one file; data flows forward only.
 * Memory: every node is allocated from an Arena, zeroed, and freed with the
 * arena once per translation. Errors go through diag_*; no phase calls exit().
 */
#ifndef TILE2CU_H
#define TILE2CU_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TILE2CU_VERSION "0.1.0"

/* Limits that keep hostile input from crashing or hanging the translator
 * (docs/language.md, "Limits"). */
#define MAX_SOURCE_BYTES (16 << 20) /* one .tl file */
#define MAX_TOKENS (1 << 22)   /* tokens of one file */
#define MAX_IDENT 255          /* bytes of one identifier */
#define MAX_NEST 64            /* nesting depth of blocks and expressions (parentheses,
                                  calls, unary operators, [...] and '.' chains) */
#define MAX_EXPR_NODES 1024    /* operators and operands of one expression */
#define MAX_KERNELS 1024       /* kernels of one file */
#define MAX_CONSTS 4096        /* file-level constants */
#define MAX_PARAMS 256         /* declared parameters of one kernel */
#define MAX_SIZES 256          /* size names of one kernel */
#define MAX_STMTS 8192         /* statements of one kernel, nested ones included */
#define MAX_ATTRS 64           /* attributes before one kernel or statement */
#define MAX_TILE_ELEMS (1 << 20) /* elements of one tile */
#define MAX_DIM (1 << 24)      /* one constant dimension */
#define MAX_ERRORS 100         /* stop collecting after this many */

/* ---------------------------------------------------------------- arena.c */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  ArenaBlock *head;
} Arena;

void *arena_alloc(Arena *a, size_t size);     /* zeroed, 16-byte aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);
#define NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define NEW_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* Growable array of pointers, arena-backed. */
typedef struct PtrVec {
  void **items;
  int len, cap;
} PtrVec;
void vec_push(Arena *a, PtrVec *v, void *p);
bool vec_has(const PtrVec *v, const void *p);

/* Growable string buffer, malloc-backed (freed with buf_free). */
typedef struct Buf {
  char *data;
  size_t len, cap;
} Buf;
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_puts(Buf *b, const char *s);
void buf_putn(Buf *b, const char *s, size_t n);
void buf_free(Buf *b);

/* Internal failures only; never reachable from user input. */
_Noreturn void die_at(const char *file, int line, const char *fmt, ...);
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
#define unreachable() die_at(__FILE__, __LINE__, "unreachable")

/* ---------------------------------------------------------------- diag.c */
typedef struct Loc {
  int line, col; /* 1-based; line 0 = no location */
} Loc;

/* Every warning has a name (warnings.def), shown as [-Wname] at the end of its
 * line; -Wno-name, -w and -Werror (options.c) set the Diag's switches. */
typedef enum WarnKind {
#define X(k, n, w) k,
#include "warnings.def"
#undef X
  W_COUNT
} WarnKind;
extern const char *const warn_names[W_COUNT]; /* "bounds" */
extern const char *const warn_whats[W_COUNT]; /* what each one says, for the docs */
int warn_lookup(const char *name);            /* -1 when no warning has that name */

/* One dim of a bounds warning not printed yet (diag_bounds). */
typedef struct DiagBound {
  Loc loc;            /* the index's start */
  const char *tensor;
  int dim;
  const char *assume; /* the @assume condition that drops the check, or NULL */
  const char *why;    /* with no condition: why none can */
} DiagBound;
#define MAX_PENDING_BOUNDS 64

/* A message held by diag_hold: its text (an error or warning, its source line
 * and caret, and its notes) and the position it sorts by. */
typedef struct DiagHeld {
  Loc at;
  Buf text;
} DiagHeld;
#define MAX_HELD 4096 /* a longer list prints as it is, in batches */
#define MAX_NOTES_SEEN 32 /* notes of one message kept for diag_note's dedupe; more print as they come */

typedef struct Diag {
  const char *file;   /* name shown in messages */
  const char *src;    /* the whole source text, NUL-terminated */
  FILE *out;          /* where messages go (stderr, or a memstream in tests); NULL: count only */
  int errors, warnings;
  int warning_errors; /* warnings printed as errors under -Werror */
  bool capped;        /* MAX_ERRORS reached; further errors are dropped */
  bool last_dropped;  /* notes after a dropped error are dropped too */
  const char *cursor; /* start of source line cursor_line: lines are found from here */
  int cursor_line;
  bool werror;        /* -Werror: warnings are errors (translate() fails after the last) */
  bool no_warnings;   /* -w */
  bool off[W_COUNT];  /* -Wno-name */
  DiagBound bounds[MAX_PENDING_BOUNDS]; /* bounds dims not printed yet */
  int nbounds;
  bool holding;       /* diag_hold: messages wait in held for diag_release */
  DiagHeld *held;     /* malloc'd */
  int nheld, held_cap;
  uint64_t notes_seen[MAX_NOTES_SEEN]; /* hashes of the notes (text, source line) of the message printed last */
  int nnotes_seen;
} Diag;

void diag_init(Diag *d, const char *file, const char *src, FILE *out);
void diag_error(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "warning: MESSAGE [-Wname]", or nothing when w is off; an error under -Werror. */
void diag_warning(Diag *d, WarnKind w, Loc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A bounds check kept on dim of tensor: the dims of one statement (one source
 * line) are gathered into one W_BOUNDS warning, printed before the next other
 * diagnostic or by diag_flush. */
void diag_bounds(Diag *d, Loc loc, const char *tensor, int dim, const char *assume, const char *why);
void diag_flush(Diag *d);
/* From diag_hold to diag_release the messages are kept, and then printed in
 * source order (line, then column; stably, each with its notes), whichever phase
 * or pass found them: translate() holds those of a translation. */
void diag_hold(Diag *d);
void diag_release(Diag *d);
/* A note attaches to the error or warning printed just before it; one the
 * same (text and position) as a note it already has is not printed again. */
void diag_note(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The text of source line `line` without its newline, into buf. */
void diag_source_line(Diag *d, int line, Buf *out);

/* ---------------------------------------------------------------- lex.c */
typedef enum TokenKind {
#define X(k, s) k,
#include "tokens.def"
#undef X
  TK_COUNT
} TokenKind;
extern const char *const token_names[TK_COUNT];
/* The text of an operator or assignment token ("+", "+=", "!"); NULL for others (tables.c). */
const char *op_text(TokenKind k);

typedef struct Token {
  TokenKind kind;
  Loc loc;
  const char *start; /* points into the source */
  int len;
  int64_t ival;      /* TK_INT */
  double fval;       /* TK_FLOAT */
} Token;

/* Tokenizes the whole source. Statement ends (TK_NEWLINE) are inserted Go-style:
 * a newline ends a statement only after an identifier, literal, ')', ']', '}',
 * 'break', 'continue', 'true' or 'false', and never inside (...) or [...];
 * ';' also yields TK_NEWLINE. The array ends with TK_EOF. Lexical errors are
 * reported through d; the bad character is skipped. */
Token *lex(Arena *a, Diag *d, const char *src, int *ntokens);

/* ---------------------------------------------------------------- types */
typedef enum ElemType {
#define X(k, n, c, b) k,
#include "types.def"
#undef X
  T_COUNT,
  T_NONE = -1
} ElemType;
extern const char *const elem_names[T_COUNT];  /* "f32" */
extern const char *const elem_ctypes[T_COUNT]; /* "float" */
extern const int elem_bytes[T_COUNT];
bool elem_is_f8(ElemType t); /* f8e4m3, f8e5m2: storage and dot operands, arithmetic in f32 */
bool elem_is_float(ElemType t);
bool elem_is_int(ElemType t);
bool elem_int_range(ElemType t, int64_t *lo, uint64_t *hi); /* an integer type's values; false for others */
int elem_lookup(const char *name, int len); /* -1 when not a type name */

/* ---------------------------------------------------------------- parse.c */
typedef struct Expr Expr;
typedef struct Stmt Stmt;

typedef enum BuiltinKind {
#define X(k, n, a, c) k,
#include "builtins.def"
#undef X
  B_COUNT
} BuiltinKind;
typedef enum BuiltinClass { BC_MATH1, BC_MATH2, BC_RED, BC_SUM, BC_RANDOM, BC_ARG, BC_SCAN, BC_OTHER } BuiltinClass;
extern const char *const builtin_names[B_COUNT];
extern const int builtin_nargs[B_COUNT];
extern const BuiltinClass builtin_class[B_COUNT];
int builtin_lookup(const char *name); /* -1 when not a built-in */

typedef enum AttrKind {
#define X(k, n, w) k,
#include "attrs.def"
#undef X
  A_COUNT,
  A_UNKNOWN = -1
} AttrKind;
typedef enum AttrWhere { AW_KERNEL, AW_FOR } AttrWhere;
extern const char *const attr_names[A_COUNT];
extern const AttrWhere attr_where[A_COUNT];

typedef struct Attr {
  AttrKind kind;     /* A_UNKNOWN when the name is not an attribute */
  const char *name;  /* as written, without '@' */
  Loc loc;           /* of the '@' */
  bool has_parens;   /* @unroll vs @unroll() */
  Expr **args;
  int nargs;
} Attr;

typedef enum TypeRefKind { TR_SCALAR, TR_TILE, TR_TENSOR } TypeRefKind;
typedef struct TypeRef {
  TypeRefKind kind;
  ElemType elem;
  Loc loc;
  Expr **dims; /* TR_TILE: constant exprs; TR_TENSOR: E_INT or E_IDENT */
  int ndims;
} TypeRef;

/* One index of X[...] or t[...]: a scalar, or `start :+ len`. */
typedef struct Index {
  Expr *start;
  Expr *len; /* NULL for a scalar index */
} Index;

typedef enum ExprKind {
  E_INT,     /* u.ival */
  E_FLOAT,   /* u.fval (text in u.ftext) */
  E_BOOL,    /* u.ival 0/1 */
  E_IDENT,   /* u.ident: names, incl. `inf`, `ctx`, size names, vars */
  E_MEMBER,  /* u.member: base.name (ctx.block.x) */
  E_UNARY,   /* u.unary: op is TK_MINUS, TK_NOT, TK_TILDE */
  E_BINARY,  /* u.binary: op is the operator token */
  E_CALL,    /* u.call: name(args); built-ins and casts such as f16(x) */
  E_INDEX,   /* u.index: base[indices] */
  /* Created by the checker, never by the parser: */
  E_CTX,     /* u.ctx */
  E_INF,     /* the constant inf */
} ExprKind;

typedef enum CtxField {
  CTX_THREAD, CTX_THREADS, CTX_LANE, CTX_LANES, CTX_WARP, CTX_WARPS,
  CTX_BLOCK_X, CTX_BLOCK_Y, CTX_BLOCK_Z, CTX_BLOCKS_X, CTX_BLOCKS_Y, CTX_BLOCKS_Z
} CtxField;

struct Sym;

/* The checked type of an expression (filled in by check.c). */
typedef struct Type {
  ElemType elem;  /* T_NONE before checking */
  int rank;       /* 0 scalar, 1 or 2 tile */
  int dims[2];
  bool untyped;   /* a literal that takes the type of the other operand */
} Type;

struct Expr {
  ExprKind kind;
  Loc loc;
  Type ty;        /* check.c */
  int flags;      /* check.c: EF_* */
  struct { bool isf; int64_t i; double f; } cv; /* check.c: value when EF_CONST */
  union {
    int64_t ival;
    struct { double fval; const char *ftext; };
    struct { const char *name; struct Sym *sym; } ident;
    struct { Expr *base; const char *name; Loc name_loc; } member;
    struct { TokenKind op; Expr *a; } unary;
    struct { TokenKind op; Expr *a, *b; } binary;
    struct { const char *name; Loc name_loc; Expr **args; int nargs;
             int builtin; /* BuiltinKind or -1 (check.c) */
             ElemType cast; /* T_NONE unless a cast (check.c) */
             int shape_at;  /* the args from this index on were written as a list [a, b]
                               (reshape's shape); nargs when none */ } call;
    struct { Expr *base; Index *idx; int nidx; } index;
    CtxField ctx;
  } u;
};

typedef enum StmtKind {
  S_CONST,    /* u.decl (name, init) */
  S_VAR,      /* u.decl (name, type or NULL, init or NULL) */
  S_ASSIGN,   /* u.assign */
  S_FOR,      /* u.forr */
  S_IF,       /* u.iff */
  S_WHILE,    /* u.whil */
  S_BREAK,    /* no fields */
  S_CONTINUE, /* no fields */
  S_BLOCK,    /* u.block */
  S_EXPR,     /* u.expr: an expression used as a statement (always an error) */
} StmtKind;

typedef struct Block {
  Stmt **stmts;
  int nstmts;
  Loc rbrace;
} Block;

struct Stmt {
  StmtKind kind;
  Loc loc;          /* first token of the statement */
  int line_end;     /* last source line of the statement header */
  Attr **attrs;     /* attributes written before the statement (only `for` may have them) */
  int nattrs;
  union {
    struct { const char *name; Loc name_loc; TypeRef *type; Expr *init; struct Sym *sym;
             const char *define; /* S_CONST: the "-D NAME=VALUE" that set init (options.c), or NULL */ } decl;
    struct { Expr *lhs; TokenKind op; /* TK_ASSIGN or TK_*_ASSIGN */ Expr *rhs;
             int atomic; /* B_ATOMIC_*: atomic_add(lhs, rhs) etc. (op +=, or = for max/min); 0: a plain store */
    } assign;
    struct { const char *var; Loc var_loc; Expr *lo, *hi, *step; /* step may be NULL */
             Block body; struct Sym *sym; } forr;
    struct { Expr *cond; Block then; Stmt *els; /* NULL, S_IF or S_BLOCK */ } iff;
    struct { Expr *cond; Block body; } whil;
    Block block;
    Expr *expr;
  } u;
};

typedef struct Param {
  const char *name;
  Loc loc;
  TypeRef *type;
  struct Sym *sym;
} Param;

typedef struct Kernel {
  const char *name;
  Loc loc;       /* of the `kernel` keyword */
  Loc name_loc;
  Attr **attrs;
  int nattrs;
  Param *params;
  int nparams;
  Block body;
  void *info;    /* check.c's results (KernelInfo), completed by smem.c */
} Kernel;

typedef struct Program {
  Stmt **consts; /* file-level S_CONST */
  int nconsts;
  Kernel **kernels;
  int nkernels;
  const char *defines; /* the -D applied, "-D BM=64 -D BN=32" in the file's order; NULL: none (options.c) */
} Program;

/* Parses a whole file. Errors are reported through d with recovery at
 * statement level; the returned program holds what parsed. Never NULL. */
Program *parse(Arena *a, Diag *d, Token *toks, int ntoks);
/* e as .tl text into b, spaced as the docs write it: a binary operation in parentheses
 * when it is an operand (nested), reshape's shape as the list it was written as. own,
 * when given, prints a node of its own first, returning true (--dump-tir: a hoisted
 * value as %name). */
typedef bool (*ExprOwnFn)(const void *ctx, const Expr *x, Buf *b);
void expr_text(Buf *b, const Expr *e, bool nested, ExprOwnFn own, const void *ctx);
/* A call's arguments from the from-th on, ", "-separated, those from shape_at on as the
 * list they were written as (reshape's [a, b]). */
void expr_args_text(Buf *b, const Expr *call, int from, ExprOwnFn own, const void *ctx);

/* ---------------------------------------------------------------- config.c */
typedef struct TargetConfig {
  char name[32];            /* "sm_90" */
  int sm;                   /* 90 */
  int lanes;                /* warp size */
  int max_threads;          /* per block */
  int regs_per_sm;          /* 32-bit registers in the register file of one SM */
  int max_regs_per_thread;
  int smem_per_sm;          /* bytes */
  int smem_per_block;       /* bytes, opt-in maximum for one block */
  int smem_static;          /* bytes, the static (no opt-in) limit, 48 KiB */
  int max_blocks_per_sm;
  int max_warps_per_sm;
  char arch_suffix[4];      /* "a" for sm_90a (optional key arch_suffix), else "" */
  bool cp_async;
  bool wgmma;
  bool tma;
  bool wg_turns; /* features.wg_turns: warpgroups take turns issuing a loop's wgmma (emit_tir.c wg_turns) */
  char mma_shapes[8][16];   /* "m16n8k16", ... */
  int n_mma_shapes;
} TargetConfig;

/* Loads a target config from a YAML file. On error writes
 * "FILE:LINE: message naming the key" into err and returns false. */
bool config_load(const char *path, TargetConfig *out, char *err, size_t errlen);
/* Finds configs/<target>.yaml: $TILE2CU_CONFIG_DIR, then next to the binary
 * (../share/tile2cu/configs, ../configs), then the build-time PREFIX. */
bool config_find(const char *target, const char *argv0, char *path, size_t pathlen);
/* Loads a config from YAML text in memory; name is shown in messages. */
bool config_load_text(const char *name, const char *text, TargetConfig *out, char *err, size_t errlen);
/* "sm_90a" (prefix "sm") or "compute_90a" (prefix "compute"): the sm number
 * with the config's arch_suffix, as nvcc and NVRTC take it. */
void config_arch(const TargetConfig *c, const char *prefix, char *buf, size_t len);

/* ---------------------------------------------------------------- check.c */
typedef enum SymKind {
  SY_CONST,   /* const NAME = value */
  SY_TENSOR,  /* tensor parameter */
  SY_SCALAR,  /* scalar parameter (read-only) */
  SY_SIZE,    /* size name: an i32 parameter appended after the declared ones */
  SY_VAR,     /* var, scalar or tile */
  SY_LOOP,    /* for-loop variable (i32, read-only) */
  SY_STRIDE,  /* X_strideD of a tensor in @strided: an i64 parameter after the size names; not in scope */
} SymKind;

typedef enum Placement { PL_NONE, PL_SHARED, PL_REGISTER } Placement;

typedef struct Sym {
  SymKind kind;
  const char *name;
  const char *cname;  /* the name in the emitted CUDA (unique in its kernel) */
  Loc loc;
  Type ty;            /* scalars and tiles; tensors: elem only */
  Stmt *decl;         /* S_VAR / S_CONST / S_FOR that declares it */
  /* SY_CONST */
  bool const_float;
  int64_t ival;
  double fval;
  /* SY_TENSOR */
  int trank;
  struct Sym *tdim_size[4]; /* the size name of dim i, or NULL */
  int64_t tdim_const[4];    /* the constant of dim i when tdim_size[i] is NULL */
  bool written;             /* stored to anywhere: not const */
  struct Sym *tstride[4];   /* @strided: the stride of dim i in elements (SY_STRIDE), else NULL: row-major */
  int param_index;
  /* SY_VAR tiles */
  Placement place;
  int per_thread;           /* PL_REGISTER: elements per thread */
  Loc reg_loc;              /* where @registers named it */
  bool thread_dep;          /* scalar var whose value may differ between threads */
  bool in_if_or_while;      /* declared inside an if/while (register update rule) */
  bool reassigned;          /* var assigned after its declaration, whole or through a window (facts.c) */
  /* a scalar var's assignments after its declaration (facts.c; nassigns past 8: more than that), and
   * whether a proof that it is never negative, or always a multiple, is under way (facts.c
   * assigned_nonneg, assigned_multiple) */
  const struct Stmt *assigns[8];
  int nassigns;
  bool nonneg_visit, multiple_visit;
  bool assumed_nonneg;   /* a scalar parameter that an @assume keeps >= 0 (x >= c, x > c, x == c; c >= 0) */
  bool used;
  int reads;                /* SY_VAR: the reads of it (check.c; a write of it with = is none) */
  bool dead;                /* SY_VAR never read (check.c): said, and its C variable marked used (emit_tir.c) */
} Sym;

/* Expr.flags */
enum {
  EF_TD = 1,      /* value may differ between threads */
  EF_TILE = 2,    /* evaluating it touches a tile (collective) */
  EF_CONST = 4,   /* compile-time constant; value in the folded fields below */
};

typedef struct Assume {
  Expr *e;        /* the condition as written */
  Sym *size;      /* recognised forms: SIZE % c == 0, SIZE >= c */
  int64_t mod;    /* SIZE % mod == 0 (0 = not this form) */
  int64_t min;    /* SIZE >= min (INT64_MIN = not known) */
} Assume;

/* One shared buffer of a kernel, for reports (smem.c fills them). */
typedef struct SharedTile {
  const char *name;       /* its C name */
  const char *what;       /* what it holds, in .tl terms */
  ElemType elem;
  int rank;
  int dims[2];
  int64_t bytes, offset;  /* bytes: padded rows, and every stage of an @pipeline ring */
} SharedTile;

/* A TMA tensor map a kernel takes (pipeline.c), as a `const __grid_constant__
 * t2c::TensorMap` parameter after its sizes and strides: tensor (rank 2,
 * row-major) read in boxes of box_rows x box_cols elements, swizzled by
 * swizzle bytes. Whoever launches builds it (cuTensorMapEncodeTiled on the
 * GPU, t2c_sim_tensor_map_encode on the CPU backend) when the tensor's base is
 * 16-byte aligned and its rows are a multiple of 16 bytes apart, and passes
 * zeros otherwise: the kernel reads the map only in its fast body, whose
 * entry test implies both. */
typedef struct TmaMap {
  const Sym *tensor;
  const char *cname;      /* the parameter's name, t2c_tmap_<tensor> */
  int box_rows, box_cols;
  int swizzle;            /* 32, 64 or 128 */
  bool store;             /* a staged epilogue's TMA store writes through it (layout.c; the same map) */
} TmaMap;

typedef struct KernelInfo {
  int threads;        /* @launch, default 128 */
  int min_blocks;     /* 0 = not given */
  int plan_blocks;    /* without min_blocks: the blocks per SM the registers were planned for (pipeline.c,
                         a dot's fragments a step ahead), in __launch_bounds__ so that ptxas keeps to
                         that plan rather than its own; 0: none */
  int fit_blocks;     /* with min_blocks: the fewer blocks per SM its shared memory lets fit (smem.c,
                         -Woccupancy), which __launch_bounds__ names instead: the registers of
                         min_blocks would buy nothing and ptxas spilled to keep to them; 0: none */
  Expr *grid[3];      /* NULL = 1 */
  unsigned char reads_block; /* bit a: the body reads ctx.block along axis a (tile2cu run notes an axis no @grid sets) */
  bool trig;          /* check.c: the kernel calls sin() or cos(), whose reduction of an argument past about 1e5
                         keeps an array in local memory (tile2cu report: the stack frame that has no spills) */
  Assume *assumes;
  int nassumes;
  Sym **sizes;        /* size names in order of first appearance */
  int nsizes;
  Sym **tensors;
  int ntensors;
  Sym **params;       /* declared params in order (tensor and scalar) */
  int nparams;
  Sym **strides;      /* @strided: X_stride0.. of each strided tensor, in parameter order, as i64 after the sizes */
  int nstrides;
  PtrVec tiles;       /* every tile var (Sym *) */
  PtrVec regs;        /* tile vars in @registers */
  PtrVec cnames;      /* C names taken in the kernel (const char *) */
  const TargetConfig *target;
  int64_t shared_bytes;   /* smem.c: shared memory of the kernel */
  bool dynamic_smem;      /* smem.c: above the static limit, in one dynamic buffer */
  SharedTile *shared;     /* smem.c: the shared buffers, in layout order */
  int nshared;
  TmaMap *tmaps;          /* pipeline.c: the TMA tensor maps the kernel takes after its sizes and strides */
  int ntmaps;
} KernelInfo;

/* Resolves names, types and shapes, checks attributes, the @registers rules
 * and uniform control. Fills Expr.ty/flags, Stmt syms and Kernel.info.
 * Returns false when errors were reported. */
bool check_program(Arena *a, Diag *d, Program *p, const TargetConfig *t);
/* Folds a constant integer expression checked earlier (EF_CONST). */
bool check_const_int(const Expr *e, int64_t *out);
int64_t type_numel(const Type *t);
/* Whether e may differ between threads (after checking). */
bool check_expr_td(const Expr *e);
/* Whether a checked tensor index X[...] is a gather: some index is an integer tile. */
bool check_is_gather(const Expr *x);
/* Whether a break or continue under thread-dependent control leaves this loop body. */
bool check_loop_divergent(const Block *body);

/* ---------------------------------------------------------------- facts.c */
/* A scalar var assigned only at its declaration stands for its initial value
 * (after facts_mark_reassigned). */
const Expr *facts_resolve(const Expr *x);
void facts_budget_reset(void); /* before each kernel: facts_resolve's budget of vars followed */
/* Calls fn on every statement of b and of the blocks inside it, outer first. */
void facts_walk_stmts(Block *b, void (*fn)(Stmt *, void *), void *ctx);
/* Sets Sym.reassigned on every var assigned after its declaration (also through a window). */
void facts_mark_reassigned(Block *b);
bool facts_nonneg(const Expr *x);                 /* x >= 0 in every execution (a tile: at every element) */
/* x >= v in every execution, by a lower bound of its terms (sizes by @assume, ctx.blocks >= 1). */
bool facts_at_least(const KernelInfo *ki, const Expr *x, int64_t v);
const Sym *facts_as_size(const Expr *x);          /* x is a size name */
bool facts_assumed_multiple(const KernelInfo *ki, const Sym *size, int64_t of); /* @assume(S % m == 0), of | m */
bool facts_assumed_at_least(const KernelInfo *ki, const Sym *size, int64_t v);
/* start + len <= dim d of X in every execution. */
bool facts_fits(const KernelInfo *ki, const Expr *start, int64_t len, const Sym *X, int d);
/* x is a multiple of v in every execution (v a power of two). */
bool facts_multiple_of(const KernelInfo *ki, const Expr *x, int64_t v);
/* The same, or when each of the size names and integer scalar parameters it puts in
 * given[] (at most max; *n counts them) is a multiple of v: the fast body's conditions. */
bool facts_multiple_given(const KernelInfo *ki, const Expr *x, int64_t v, const Sym **given, int *n, int max);
/* a and b are the same expression (the same names, operators and constants). */
bool facts_expr_equal(const Expr *a, const Expr *b);
/* The warning for a bounds check on dim d of X kept inside a loop, with the
 * @assume that would remove it when there is one. */
void facts_bounds_warning(Diag *d, Arena *a, const KernelInfo *ki, const Sym *X, int dim, const Index *ix, int64_t len);

/* ---------------------------------------------------------------- emit.c */
typedef struct EmitOptions {
  bool line_directives;  /* --line */
  bool standalone;       /* --standalone */
  bool sim;              /* --sim: CPU-backend variant */
  bool explain;          /* --explain: decisions to explain_out */
  FILE *explain_out;
  const char *file;      /* the .tl path as shown in comments */
  bool dump_tir;         /* --dump-tir: print the tile IR to explain_out instead of CUDA */
  const char *dump_after; /* --after STAGE: lower, layout, sync or smem (NULL: smem) */
  const char *const *opts; /* -D, -Wno-NAME, -Werror, -w as written (options.c) */
  int nopts;
  const char *defines;   /* the header's line on the -D applied (translate() sets it), or NULL */
  const char *only;      /* tile2cu run: print this kernel's CUDA only (every kernel is still checked
                            and lowered, so the diagnostics are the file's), or NULL: all */
} EmitOptions;

/* Runs every kernel through the tile IR's stages and prints its CUDA into out
 * (emit_tir.c). Returns false when errors were reported. */
bool emit_program(Arena *a, Diag *d, Program *p, const TargetConfig *t,
                  const EmitOptions *o, Buf *out);
/* A path as it may appear in generated code: control bytes become '?' (in a
 * comment they could end the line), and with quoted, '"' and '\' are escaped
 * for a string literal such as #line's. */
const char *emit_file_name(Arena *a, const char *file, bool quoted);
/* Expands the {{key}} placeholders of a template; kv is key, value, ..., NULL. */
void emit_expand(Buf *out, const char *tmpl, const char *const *kv);
/* Shared by the printer (emit_tir.c) and the host launchers (host.c). */
const char *emit_literal(Arena *a, ElemType t, bool isf, int64_t iv, double fv);
const char *emit_param_list(Arena *a, const KernelInfo *ki, bool sim);
const char *emit_trampoline_args(Arena *a, const KernelInfo *ki);
/* The comment (or #line) that heads a statement's code. */
void emit_stmt_comment(Diag *d, const EmitOptions *o, const char *line_file, int indent, const Stmt *s, Buf *out);

/* ---------------------------------------------------------------- tir.c: the tile IR
 * The stages between check and emit (LOWERING.md):
 *   lower.c   checked AST -> TirKernel (ops over tile values; loads and reductions hoisted)
 *   layout.c  a Layout for every tile value (carry.c: row reductions accumulated across a
 *             loop fold after it); reduction scratch; vector widths and
 *             the run-time alignment test (the kernel's fast and general bodies)
 *   sync.c    barriers, by a dataflow pass over the ops (loops to a fixed point)
 *   smem.c    shared offsets and sizes; KernelInfo complete before printing
 *   emit_tir.c  prints the IR as CUDA and decides nothing
 * hw.c holds the hardware path's facts (one table per path). A kernel the
 * stages cannot lower is an error at the construct they name (emit.c). */

/* The hardware path a target selects (hw.c). */
typedef struct HwPath {
  const char *name;      /* "sm80" */
  int min_sm;            /* the first target it serves */
  int vec_bytes;         /* widest global access of one thread (ld/st.global.v4) */
  bool shfl;             /* warp shuffles (__shfl_xor_sync) */
  bool cp_async;         /* cp.async (LDGSTS) */
  const char *mma;       /* matrix instruction for f16/bf16 operands, or NULL */
  const char *mma_i8;    /* for i8 operands (s32 accumulators), or NULL */
  const char *mma_f8;    /* for f8e4m3/f8e5m2 operands (f32 accumulators), or NULL */
  const char *wgmma;     /* the warpgroup instruction for f16/bf16 operands from shared memory, or NULL */
  const char *wgmma_b8;  /* for i8 (s32) and f8 (f32) operands, both K-major from shared memory, or NULL */
  const char *tma;       /* the bulk tensor copy that fills a wgmma operand's stage ring, with mbarriers, or NULL */
  bool arch_a;           /* only for architecture-specific targets (sm_90a: the config's arch_suffix "a") */
  bool stmatrix;         /* stmatrix.sync.aligned.m8n8 (sm_90 on): 16-bit accumulators to shared memory */
  int atom_vec_bytes;    /* widest float atomic_add of one thread: 4, f16x2 and bf16x2 pairs (sm_80 on);
                          * 16, f32 runs of 2 and 4 and 16-bit runs of 4 and 8 as well (sm_90 on:
                          * red.global.v2/v4.f32, .v2/.v4.f16x2 and .bf16x2); 0, one element */
} HwPath;
const HwPath *hw_path(const TargetConfig *t);

/* How a tile's elements are spread over threads and registers.
 * LY_BLOCKED over a [rows, cols] tile: each thread holds runs of `vec`
 * contiguous columns; lanes form lr x lc (row-major), warps wr x wc; a thread
 * repeats its pattern rr times down and rc times across. Element (r, c) lives at
 *   r = (ir * wr + warp_r) * lr + lane_r,  c = ((ic * wc + warp_c) * lc + lane_c) * vec + v
 * in register (ir * rc + ic) * vec + v. Positions past the tile are padding
 * (never loaded, stored or reduced).
 * LY_SLICE: what a reduction of a blocked parent along `dim` leaves: dim 1
 * gives [rows, 1] with one register per row repeat (ir), dim 0 gives [1, cols]
 * with rc * vec registers; every thread holding the parent's row (column) has it.
 * A blocked layout with `mma` set is the accumulator of mma.sync m16n8: lanes
 * 8 x 4 in runs of 2, and each warp holds one contiguous [rr * 8, rc * 8]
 * block (its warp tile) of rr / 2 x rc tiles of 16 x 8:
 *   r = warp_r * rr * 8 + ir * 8 + lane / 4,  c = warp_c * rc * 8 + ic * 8 + (lane % 4) * 2 + v
 * (register (ir * rc + ic) * 2 + v, as for any blocked layout). */
typedef enum LayoutKind { LY_BLOCKED, LY_SLICE, LY_SCALAR /* one value, held by every thread */ } LayoutKind;
typedef struct Layout {
  LayoutKind kind;
  int id;                /* LY_BLOCKED: t2c_r<id>/t2c_c<id> are a thread's first row and column */
  int rows, cols;        /* the blocked tile's shape (a slice: its parent's) */
  int vec, lc, lr, wc, wr, rc, rr;
  int dim;               /* LY_SLICE: the reduced dim */
  const struct Layout *parent; /* LY_SLICE: the blocked layout */
  bool used;             /* LY_BLOCKED: some value or op is in it or in a slice of it */
  bool mma;              /* LY_BLOCKED: the mma accumulator (warp tiles; see above) */
  bool wg;               /* mma: wgmma's m64nNk16 D fragments, a warpgroup per 64 rows: warps
                            wr x 1, each 16 rows (rr 2) of all the columns (rc = N / 8); the
                            same positions as mma.sync's, registers in this layout's order */
  bool coord_r, coord_c; /* some op reads a thread's first row (t2c_r<id>), column (t2c_c<id>); each is
                            declared only where one does (nvcc warns of an unread one, #177-D): an mma
                            accumulator only converted and written by stmatrix needs its warp tile's
                            corner alone, a [1, N] slice of it the column alone, a [1, 1] column sum
                            read from a shared copy neither (layout.c, coords_fn) */
  bool partials;         /* LY_BLOCKED: a fold's per-thread partials (layout_partials) */
  bool wtiles;           /* LY_BLOCKED, not mma: each warp holds one contiguous [rr * lr, rc * lc * vec]
                            block (its warp tile), as an mma layout does: warp w is (w / wc, w % wc) and
                              r = warp_r * rr * lr + ir * lr + lane_r,
                              c = warp_c * rc * lc * vec + (ic * lc + lane_c) * vec + v
                            (a staged epilogue's read-back of an mma layout's warp tiles, layout.c) */
} Layout;
/* The layout's warps hold contiguous blocks (an mma layout, or wtiles). */
static inline bool layout_warp_tiles(const Layout *l) { return l->mma || l->wtiles; }
/* A slice whose reduced dim spans threads: several threads (replicas) hold each
 * element; the first one stores it (emit_tir.c), every one loads it (sync.c). */
static inline bool layout_replicated(const Layout *l) {
  if (!l || l->kind != LY_SLICE) return false;
  return l->dim == 1 ? l->parent->lc * l->parent->wc > 1 : l->parent->lr * l->parent->wr > 1;
}
/* A slice of one element that every thread holds: the [1, 1] value of a [1, C] layout
 * all of whose threads hold its row (or of an [R, 1] one all of whose threads hold its
 * column), as decoding attention's running max of one query row is. Any op reads it
 * where it is (layout.c readable), as a scalar (emit_tir.c value_at). */
static inline bool layout_everywhere(const Layout *l) {
  if (!l || l->kind != LY_SLICE || l->parent->mma) return false;
  const struct Layout *p = l->parent;
  return l->dim == 1 ? p->rows == 1 && p->lr == 1 && p->wr == 1 && p->rr == 1
                     : p->cols == 1 && p->lc == 1 && p->wc == 1 && p->rc == 1 && p->vec == 1;
}
int layout_count(const Layout *l);       /* registers per thread */
bool layout_padded(const Layout *l);     /* some positions are past the tile */
const char *layout_str(Arena *a, const Layout *l);

/* A tile value: a tile var, or a temporary the lowering made (a load, a reduction). */
typedef struct TirVar {
  int id;
  const char *cname;     /* its register array */
  const char *what;      /* for the summary and --explain */
  ElemType elem;
  int rank;
  int rows, cols;        /* rank 1 [n] is [1, n] */
  Sym *sym;              /* the tile var, or NULL */
  const Layout *layout;  /* layout.c */
  bool direct;           /* pipeline.c: never in registers; its load fills its copy's stage ring */
  bool inlined;          /* pipeline.c: a loop-local tile var whose readers, loads issued ahead,
                            compute its value in their indices, or a gather's index value whose
                            gathers read its ring's slots (drop_take): never declared */
  bool own_layout;       /* layout.c: a @registers tile given a layout of its own, to hold the seed's
                            count per thread where the layout it would share holds another */
  bool col_own;          /* layout.c: a column value [1, C] a loop loads, broadcast down an mma
                            accumulator's rows, given a compact layout of its own (col_vals): its
                            copy made in the loop alternates halves */
  bool off_acc;          /* layout.c: of a dot accumulator's shape, but no op computes it or reads it
                            together with a value the accumulator's fragments hold: a plain layout */
  const char *frag_why;  /* layout.c: why it would hold a dot's fragments (--explain): a dot accumulates
                            into it, reads it as its A operand in registers, or an op computes or reads
                            it together with such a value */
  /* layout.c: too large for registers, it lives in its shared copy bufs[home - 1]
   * (0: in registers): each op reads and writes the thread's own elements
   * there (TirAccess.own), and the copy needs no spill. Or written a window at a
   * time from values in another layout (win_home: layout.c forward_windows). */
  int home;
  bool win_home;
  const char *home_why;  /* why it is not in registers (--explain) */
  /* layout.c: never held at all: a load's value (this TO_LOAD, which prints
   * nothing) that its one reader, an op of the same statement and layout,
   * reads from the tensor element by element instead (too large for registers). */
  const struct TirOp *fused;
  /* lower.c window_load: a fused load's value whose one reader is this window write of its
   * statement (xx[0 :+ 16, 8 :+ 128] = X[..]), in the written tile's layout: each thread
   * reads the tensor at the window's coordinates of its own elements there, so the load
   * needs no layout and no shared copy of its own (emit_tir.c value_at) */
  const struct TirOp *win_of;
  /* layout.c split_dots: a dot's value computed and read in this many parts of its
   * repeats across (TirOp.nbeg, nend), one part live at a time (0: whole) */
  int parts;
  /* pipeline.c: a ring slot of 1- or 2-byte elements (a load issued ahead) held as 32-bit
   * words, 4 (2) elements a word (tir_var_regs): only its loads and the ring's copies touch
   * it, whole words where they can (emit_tir.c) */
  bool packed;
  /* layout.c stage_store: a staged store's 16- or 8-bit value, whose converts ptxas packs
   * into whole words for stmatrix (F2FP: two f32 to one f16x2): counted in words */
  bool cvt_packed;
  /* carry.c carry_online: the running sum, which only its own update read, is read by no op
   * once that update is carried (l = the fold after the loop): [[maybe_unused]] */
  bool unread;
  /* pipeline.c rotate_loop: a take of it from a packed slot is a mirror (TirOp.mirror): where
   * every read converts to f32 from the slot, nvcc warned it set but never used: [[maybe_unused]] */
  bool mirrored;
} TirVar;

typedef enum TirOpKind {
  TO_SCALAR,        /* stmt: a scalar var declaration or assignment */
  TO_DECL,          /* dst: a tile var's registers (its initial value follows) */
  TO_LOAD,          /* dst = slice (a tensor slice), or pad: elements outside read as pad */
  TO_ASSIGN,        /* dst op= expr, elementwise in dst's layout */
  TO_REDUCE,        /* dst = red(expr) over lay's columns (dim 1) in-thread, then across lc lanes
                       (colsum, colmax, colmin: down its rows, tir_down_cols);
                       an arg-reduction (rowargmax) carries (value, index) pairs: dst holds the
                       indices, the printer's companion array the values */
  TO_SCRATCH_WRITE, /* the first lane of each row run writes dst into buf[warp_c][row] (down the
                       columns: the first lane of each column run, buf[warp_r][col]; an
                       arg-reduction its value, then its index, in buf[wc + warp_c][row]); after a
                       TO_SCAN, the first lane of each line's lane group its run totals */
  TO_SCRATCH_READ,  /* dst = red over the wc partials in buf (wr down the columns); after a TO_SCAN, each element adds
                       the totals of the warps before its own */
  TO_SCAN,          /* dst = red(expr), an inclusive scan along axis (1: each row, 0: each column),
                       in lay: in-thread, across the lanes of a line (shuffles); across the warps
                       of a line by the TO_SCRATCH_* that follow, when a line spans warps */
  TO_STORE,         /* slice op= expr, in lay; a slice of no kept dims is one element (thread 0 stores
                       it, or every thread that reaches it under thread-dependent control: td) */
  TO_SPILL,         /* buf = dst: every thread writes its elements of dst to dst's shared copy
                       (has_win: to the window win of another tile's shared home, layout.c
                       forward_windows) */
  TO_COLREDUCE,     /* dst = red over the rows of buf (a spilled value), one column per element */
  TO_SUM,           /* dst (a scalar) = sum of expr over lay: in-thread, the warp, then buf[warp] */
  TO_DOT,           /* dst op= dot(A, B) on the matrix unit (hw.c), dst in an mma layout: A is src's
                       operand copy buf (atrans: transpose(src)), or, when src is NULL, expr
                       evaluated in alay and packed into fragments in registers; B is src2's
                       copy buf2 (btrans: transpose(src2)); kdim: the reduced length */
  TO_FOR,           /* stmt (S_FOR); body */
  TO_WHILE,         /* stmt (S_WHILE); body */
  TO_IF,            /* stmt (S_IF); body, els (an else if is one TO_IF in els) */
  TO_BREAK, TO_CONTINUE,
  TO_BARRIER,       /* sync.c: reason (or pipeline.c, with a stage ring's protocol) */
  TO_ASYNC_COPY,    /* pipeline.c: slice -> stage pf_k ahead of buf's ring (cp.async in the fast body,
                       plain loads and stores otherwise), each thread its elements of lay */
  TO_ASYNC_COMMIT,  /* cp.async.commit_group */
  TO_ASYNC_WAIT,    /* cp.async.wait_group(pending) */
  TO_WG_WAIT,       /* wgmma.wait_group(pending): after a loop whose wgmma dot left its last group in flight;
                       dst: that dot's accumulator; or, with dop, in the loop before the first use of the
                       accumulator of the dot dop deferred from the previous iteration (pipeline.c) */
  TO_WG_DEFER,      /* dop: a dot deferred into the next iteration (pipeline.c); pending 0: before the loop,
                       its saved operands (none yet); 1: after it, the last iteration's deferred dot issued
                       and completed */
  TO_FRAGS,         /* ldmatrix of the A and B fragments of k step kbeg of mma.sync dot (the op's
                       src, buf, src2, buf2, lay, atrans, btrans are the dot's) into set fset of the
                       fragment arrays t2c_fa<frag>, t2c_fb<frag> (nsets > 0: declares them first);
                       pf_k 1: from the stage of the next iteration of the dot's loop (pipeline.c
                       loads a dot's fragments a k step ahead, across iterations) */
  TO_WG_PIN,        /* wgmma_fence_operand(dst) before such a loop (layout.c): the accumulator's registers
                       hold its value there, so the compiler cannot sink their definitions into the
                       path that skips the loop, which makes ptxas serialise the wgmma (C7515) */
  /* A stage ring filled by TMA (pipeline.c), in the fast body; buf: the ring's
   * mbarriers (TirBuf.mbar), full[s] (one arrival, with the stage's bytes)
   * then empty[s] (an arrival from each warp once it no longer reads stage s): */
  TO_TMA_INIT,      /* one thread initializes every barrier of buf, fenced for the async proxy */
  TO_TMA_ISSUE,     /* one thread fills the stage pf_k iterations ahead (pf_*, as TO_ASYNC_COPY):
                       when that stage was used before, it waits until its empty barrier says no
                       warp reads it, then expects the stage's bytes on its full barrier and issues
                       the body's TO_TMA_LOADs */
  TO_TMA_LOAD,      /* slice -> its ring buf's stage, one box of KernelInfo.tmaps[tmap] per atom */
  TO_TMA_WAIT,      /* every thread waits until this iteration's stage has landed (full[s]'s parity) */
  TO_TMA_RELEASE,   /* lane 0 of each warp arrives on the empty barrier of the stage of pending
                       iterations back: this warp no longer reads it */
  TO_TMA_BEGIN,     /* a ring inside another loop (TirBuf.gbase), its wgmma left in flight: before the
                       loop, where this run's iterations start (TirBuf.gstart) */
  TO_TMA_END,       /* after such a loop, once its last wgmma has completed: lane 0 of each warp
                       arrives on the empty barrier of the run's last stage, if the loop ran */
  TO_TMA_STORE,     /* a staged epilogue's store in the fast body (layout.c): lane 0 of each warp
                       stores the warp's tile of copy buf (TirBuf.tma_swz) to slice, one box of
                       KernelInfo.tmaps[tmap] per atom, then commits and waits until they are read;
                       lay: the copy's writer's (mma) layout, whose warp tiles the boxes are */
} TirOpKind;

typedef struct TirBlock {
  PtrVec ops;            /* TirOp * */
} TirBlock;

typedef uint8_t TirChk[4]; /* per tensor dim, 1: check >= 0, 2: check < dim */
#define TIR_MAX_ACCESS 8
#define TIR_ALT_COPY_BYTES 4096 /* a plain copy made in a loop of at most this alternates halves (lower.c) */

/* A read of a spilled value's shared copy inside an expression: transpose(t),
 * t[i, j] or t[a :+ m, b :+ n]; any thread reads any element. */
typedef enum TirReadKind { TR_TRANSPOSE, TR_WINDOW, TR_RESHAPE /* reshape(t, ..): row-major order kept */ } TirReadKind;
typedef struct TirRead {
  TirReadKind kind;
  int buf;
  int rank;              /* of the value read */
  const Expr *start[2];  /* TR_WINDOW: the row and column of the first element (NULL: 0) */
  bool keep[2];          /* TR_WINDOW: the dim is a range (a :+ m), not one index */
  int src_cols;          /* TR_RESHAPE: the columns of the value read ([1, n] for rank 1) */
  int vec;               /* TR_WINDOW in an assignment or a store: the elements of a run of the op's
                            layout one shared load reads (layout.c copy_vectors); 0: one at a time */
} TirRead;

typedef struct TirAccess {
  int buf;               /* index in TirKernel.bufs */
  bool write;
  bool own;              /* only the elements the op's thread holds in the layout of the value
                            that lives in buf (TirVar.home): two such accesses never conflict */
} TirAccess;

enum { TIR_MAX_UWHERE = 4 };
typedef struct TirOp {
  TirOpKind kind;
  Stmt *stmt;            /* the .tl statement it lowers */
  bool first;            /* the first op of its statement (heads it with a comment) */
  TirVar *dst;
  TirVar *src;           /* TO_SUM: the value summed */
  TokenKind op;          /* TK_ASSIGN or TK_*_ASSIGN */
  Expr *expr;            /* elementwise: its hoisted subexpressions are TirKernel.hoisted */
  Expr *slice, *pad;     /* TO_LOAD / TO_STORE */
  BuiltinKind red;       /* TO_REDUCE, TO_SCRATCH_*, TO_COLREDUCE, TO_SUM, TO_SCAN: the reduction or scan */
  int axis;              /* TO_SCAN, and its TO_SCRATCH_*: 1 along each row, 0 down each column */
  Expr *win[2];          /* TO_ASSIGN to part of a tile, t[a :+ m, b :+ n] = e: the first row and
                            column of the window (NULL: 0, or no window when both NULL and !has_win) */
  int win_len[2];        /* its rows and columns (1 for an index) */
  const Sym *pf_var;     /* TO_LOAD issued ahead by pipeline.c: the loop var it reads ... */
  const Expr *pf_base;   /* ... as pf_base + pf_k * step (pf_base NULL: the loop var itself) */
  const Stmt *pf_loop;   /* the loop (its step and bound), and the load runs only while in range */
  int pf_k;
  bool pf_once;          /* ... a slice the loop does not change: loaded once, before the loop (pf_k 0) */
  bool gather;           /* TO_LOAD / TO_STORE: slice is a gather or scatter X[i, j] with tile indices,
                            evaluated per element of the op's layout (check_is_gather) */
  bool has_win;          /* only elements inside the window are written; e reads at
                            coordinates relative to the window, its values through shared copies
                            (a reduction's result held by the writing threads: in place, lower.c) */
  TirVar *fwd;           /* a window write whose value lower.c made a value of its own (the window's
                            shape), read whole through that value's copy: layout.c may make the copy
                            the tile's shared home and the value's spill the write (forward_windows) */
  int atomic;            /* TO_STORE: B_ATOMIC_* (each element updated atomically), or 0 */
  bool td;               /* TO_STORE of one element, TO_IF/TO_FOR/TO_WHILE: under (or
                            opening) thread-dependent control, where no barrier may go */
  int rows, cols;        /* the shape the op runs over ([1, n] for rank 1) */
  const Layout *lay;     /* the layout the op runs in (layout.c) */
  int vec;               /* TO_LOAD / TO_STORE / TO_ASYNC_COPY: elements per access in the fast body
                            (a cp.async's: what its ring's pitch keeps aligned, pipeline.c) */
  uint8_t chk[4];        /* TO_LOAD / TO_STORE: per tensor dim, 1: check >= 0, 2: check < dim */
  int buf;               /* TO_SCRATCH_*: the scratch buffer */
  TirVar *src2;          /* TO_DOT: B's value, read from its copy buf2 */
  int buf2, kdim;
  int kbeg, kend;        /* TO_DOT by mma.sync from shared memory: the k range this op runs (kend 0: all
                            of kdim); pipeline.c cuts a stage ring's dot, the next stages' copies between */
  int nbeg, nend;        /* TO_DOT by mma.sync into a value in parts, and the TO_ASSIGN that reads it
                            (layout.c split_dots): the repeats across (ic: a warp tile's 8-column tiles)
                            of the op's layout this op runs (nend 0: all of them) */
  struct TirOp *dop;     /* a wgmma TO_DOT: the dot deferred from the previous iteration, issued after
                            this one's (pipeline.c); TO_WG_WAIT, TO_WG_DEFER: that deferred dot */
  int defer;             /* a wgmma TO_DOT, n > 0: deferred into the next iteration; here its A
                            fragments and B's stage are saved in t2c_df<n>_a and t2c_df<n> */
  int frag, fset, nsets; /* TO_FRAGS, and a TO_DOT part that takes its fragments from set fset of the
                            arrays t2c_fa<frag> / t2c_fb<frag> (frag 0: it loads its own) */
  int pending;           /* TO_ASYNC_WAIT, TO_WG_WAIT; a wgmma TO_DOT: the groups it leaves in flight
                            (-1: one of several dots in flight whose last one waits, pipeline.c; a
                            TO_WG_WAIT after their loop: an earlier one waited, this one pins its
                            accumulator only)
                            (pipeline.c: 1 in a stage ring's loop, completed by the next iteration's
                            dot or by the TO_WG_WAIT after the loop) */
  const char *counter;   /* TO_FOR with stage rings: its iteration counter (pipeline.c) */
  uint8_t once;          /* TO_FOR: TIR_ONCE_END, TIR_ONCE_STEP: that bound names something the body
                            assigns, so it is evaluated once, before the loop (lower.c) */
  bool atrans, btrans;
  bool simt;             /* TO_DOT of f32/f64 operands, or one the matrix unit cannot take: on the CUDA
                            cores, in any blocked layout, accumulating in the dot's result type */
  const char *offunit;   /* a simt TO_DOT of operands a matrix instruction takes (f16, bf16, i8, f8): why
                            this one does not (lower.c, layout.c), said in a -Wdot warning at dloc */
  const char *offflip;   /* a TO_DOT on the matrix unit of 8-bit operands whose copy is stored transposed
                            (8-bit ldmatrix and wgmma read along k only): which operand, for -Wdot */
  const char *offwg;     /* a TO_DOT on mma.sync where the target has wgmma (sm_90a): why not on wgmma
                            (layout.c), said in a -Wdot warning at dloc */
  const char *offreg;    /* a TO_DOT on the matrix unit whose A operand, a cast to f16/bf16 of f32 values,
                            goes through a shared copy: why it is not packed from registers (-Wdot) */
  Loc dloc;              /* TO_DOT: the dot() call */
  bool wgmma;            /* TO_DOT: by wgmma (hw.c) from core-matrix copies (TirBuf.cm8), dst in a wg layout */
  int stm;               /* TO_SPILL of a 16-bit value in an mma layout: stmatrix .x<stm> (1, 2 or 4 of its
                            8 x 8 blocks, consecutive along the columns, per instruction); 0: plain stores */
  PtrVec inlined;        /* TO_FOR with @pipeline: the loop-local vars pipeline.c inlined into slices */
  bool vtail;            /* TO_LOAD / TO_STORE of a rank-1 tensor whose size is not known to be a multiple
                            of the run (layout.c vector_width): in the fast body a run that reaches past
                            the end moves element by element, the others in one access */
  bool staged;           /* TO_LOAD: a staged load (layout.c stage_load) into its value's copy: in the general
                            body each run of 8- or 16-bit elements a loop (emit_tir.c home_run_loop) */
  bool from_copy;        /* TO_STORE: expr is read from its copy buf (a staged epilogue, layout.c): in the
                            fast body each run of vec is one shared read of vec elements */
  bool warp;             /* TO_BARRIER: only the warp's own threads need ordering (__syncwarp, sync.c) */
  bool rolled;           /* TO_LOAD, TO_ASSIGN, TO_STORE (layout.c): every tile value it reads or writes
                            lives in shared memory (TirVar.home), so its repeats down the rows run
                            as a loop instead of unrolled */
  bool rolled_k;         /* TO_DOT in parts (layout.c split_dots): its k steps run as a loop, not unrolled */
  bool rolled_cols;      /* TO_REDUCE (layout.c): its operand is never held (TirVar.fused) or lives in
                            shared memory, and its column repeats run as a loop per row */
  int roll_unroll;       /* that loop's #pragma unroll: 1, or 2 or 4 where it reads a tensor (a fused
                            load), so that several repeats' loads are in flight at once */
  bool carried;          /* TO_REDUCE after a loop (carry.c): folds the partials carried across it,
                            which start at the identity (NaN for a float max or min), so an all-NaN
                            result means no element: it is not made -inf (emit_tir.c nan_dropped) */
  bool from_arg;         /* TO_REDUCE of a max or min (layout.c arg_values): folds nothing, its result is
                            the values an arg-reduction of the same operand, src (its indices), folded
                            before it in its companion array (a float min drops an all-NaN row's NaN) */
  bool intra;            /* TO_REDUCE (carry.c): folds in each thread only, into dst's partials
                            (layout_partials), which it adds to (max, min: folds into): no shuffle,
                            no scratch; the fold across threads comes after the loop */
  const Layout *alay;    /* TO_DOT with A in registers: the layout expr is evaluated in */
  TirAccess acc[TIR_MAX_ACCESS]; /* shared accesses (sync.c) */
  int nacc;
  const char *reason;    /* TO_BARRIER; TO_SPILL of a @registers tile: why it is copied (a warning) */
  const TirVar *meets;   /* TO_SPILL of another value, for an op that writes this @registers tile in
                            the tile's own layout: the tile's layout is why it is copied (a warning) */
  int tmap;              /* TO_TMA_LOAD, TO_TMA_STORE: its tensor map (KernelInfo.tmaps) */
  int only;              /* printed in one body of a versioned kernel only: TIR_FAST or TIR_GENERAL
                            (a TMA ring and the cp.async ring it replaces); 0: both */
  Expr *uguard;          /* TO_ASSIGN (uniform.c): a scalar condition under which each where() of
                            uwhere takes its first branch at every element; NULL: none */
  const Expr *uwhere[TIR_MAX_UWHERE];
  int nuwhere;
  const char *note;      /* a comment line printed before the op (carry.c) */
  /* pipeline.c: an op of a register ring in its loop's body (ring): TIR_RING_TAKE (dst = its oldest
   * slot), TIR_RING_SHIFT (a slot = the next), TIR_RING_FILL (the newest slot = the load d ahead);
   * ring: the ring's slots, 1..d */
  uint8_t ring_role;
  TirVar **ring;
  /* TO_FOR (pipeline.c rotate_rings): its register rings all hold rot values, and it is printed as
   * rot copies of its body an iteration of rot steps: copy j takes its value from slot j + 1 and
   * refills that slot in place at its end, with no shifts, so ptxas moves no slot into another
   * (a W8A16 GEMV's two rings of 3: 46 register moves an iteration). rbody: the copies' ops
   * (pipeline_rotate, once sync and smem have placed theirs); NULL until then */
  int rot;
  TirBlock *rbody;
  /* a take in a copy of such a loop (pipeline.c rotate_loop): its 8-bit value equals its packed
   * slot's words until the copy's end (nothing else writes either), so a conversion of an
   * element to f32 reads the slot's word (emit_tir.c: t2c::part_f32, no I2F) */
  bool mirror;
  TirBlock body, els;
  bool has_els;
} TirOp;
enum { TIR_RING_TAKE = 1, TIR_RING_SHIFT, TIR_RING_FILL };
enum { TIR_FAST = 1, TIR_GENERAL = 2 };
enum { TIR_ONCE_END = 1, TIR_ONCE_STEP = 2 };

typedef struct TirBuf {
  const char *cname, *what;
  ElemType elem;
  int rows, cols;
  int pitch;             /* elements from one row to the next (a spilled value's copy: cols + 1;
                            a dot operand's: cols + 16 bytes, rows 16-byte aligned for ldmatrix) */
  const struct TirVar *spill_of; /* the value this buffer is the shared copy of, or NULL */
  const struct TirVar *trans_of; /* stored transposed (trans), the copy of t = transpose(spill_of) too: what
                                    reads t at other threads' elements reads it (lower.c), or NULL */
  const Sym *tensor;     /* not shared memory: a tensor the kernel writes, tracked by sync.c
                            for the threads of one block (smem.c and the printer skip it) */
  int64_t bytes, offset;
  /* Two halves used in turn (t2c_ph<index> says which): a reduction inside a
   * loop writes one half while the other may still be read, so only its
   * write -> read needs a barrier (sync.c). A dot operand's copy inside a
   * loop alternates too: each spill first turns to the other half. */
  bool alternating;
  bool one_half;         /* a plain copy also written outside a loop (or once before one): never
                            alternates (lower.c) */
  bool operand;          /* a dot operand's copy (tir_operand_buf): rows 16-byte aligned, so a load in
                            an @pipeline loop may fill it by cp.async (pipeline.c); a plain copy made
                            in a loop alternates too (lower.c, TIR_ALT_COPY_BYTES) but is never a ring */
  /* A stage ring (pipeline.c): `stages` copies, filled by cp.async ahead of the
   * loop's iterations; an iteration reads stage `counter % stages`. sync.c
   * leaves it to the ring's own wait and barrier. */
  int stages;
  const char *counter;
  /* Stored transposed: element (r, c) at c * pitch + r (pitch over the rows).
   * An 8-bit dot operand read along k by plain ldmatrix (there is no 8-bit
   * ldmatrix .trans): B = the copy ([K, N]), or A = transpose(copy). With cm8
   * (an 8-bit wgmma operand, K-major as stored), the layouts below are of the
   * stored [cols, rows] matrix (tir_buf_srows, tir_buf_scols). */
  bool trans;
  /* Core matrices (a wgmma operand, read through descriptors, no swizzle):
   * 8 x 8 tiles of 16-bit elements, 128 contiguous bytes each, row-major
   * inside and row-major over [rows / 8, pitch / 8] (pitch = cols):
   *   element (r, c) at (r / 8) * 8 * pitch + (c / 8) * 64 + (r % 8) * 8 + c % 8 */
  bool cm8;
  /* With cm8: swizzled in swz-byte rows (32, 64 or 128; 0: the plain core
   * matrices above). The copy is cut along its columns into atoms of
   * E = swz / element-bytes columns, one after another, each rows x E,
   * row-major, rows swz bytes apart; byte b of it is at t2c::swz (the 16-byte
   * chunk bits XORed with the bits above each 128 bytes):
   *   element (r, c) at swz((c / E) * rows * E + r * E + c % E)
   * Its offset (and each stage's size) is a multiple of 8 * swz bytes. */
  int swz;
  /* A staged epilogue's buffer (layout.c) whose every access stays inside the
   * accessing warp's tile (the writer's mma layout and the reader's wtiles one
   * give each warp the same block): its conflicts need only __syncwarp (sync.c). */
  bool warp_tiles;
  bool staged;           /* a staged epilogue's buffer (layout.c): every store of its value staged the
                            same way writes it again just before reading it back (staged_again) */
  /* A staged epilogue's buffer that the fast body stores by TMA (layout.c): in
   * that body it is laid out as TirBuf.swz says with swz = tma_swz (atoms of
   * tma_swz / element-bytes columns, swizzled rows, no padding), which TMA
   * reads with the same swizzle; the general body keeps the padded pitch. */
  int tma_swz;
  /* A TMA ring's mbarriers (pipeline.c): 2 * mbar 64-bit words, full[0 ..
   * mbar) then empty[0 .. mbar), for a ring of mbar stages; rows 2, cols mbar. */
  int mbar;
  int ring_mbar;         /* a stage ring filled by TMA: its barriers' buffer + 1 (0: cp.async) */
  /* A TMA ring's mbarriers when its loop runs inside another (pipeline.c): they are
   * initialized once, at the top of the kernel, and gbase counts the ring's iterations
   * over every run (declared with the init, advanced with the loop's counter in the
   * fast body), so a stage and its phase follow on from the run before; gstart: the
   * count where the run began (TO_TMA_BEGIN). NULL at the kernel's top level. */
  const char *gbase, *gstart;
} TirBuf;

/* A run-time condition of the fast body: size % mod == 0 or a pointer aligned to mod bytes. */
typedef struct TirCheck {
  const Sym *size;       /* a size name or a stride (SY_STRIDE), or NULL: */
  const Sym *tensor;     /* the tensor whose pointer must be aligned */
  int mod;               /* size % mod == 0; mod 0: size == 1 (a @strided tensor's innermost stride) */
} TirCheck;

#define TIR_MAX_BUFS 64
#define TIR_MAX_CHECKS 32
typedef struct TirKernel {
  Kernel *k;
  KernelInfo *ki;
  Loc why_at;            /* layout.c: the statement a refusal's reason is about (line 0: none) */
  bool pressure_late;    /* layout.c: values past the budget that none of which can move: warned once the epilogues are staged */
  const TargetConfig *t;
  const HwPath *hw;
  Arena *a;
  Diag *d;
  TirBlock body;
  PtrVec vars;           /* TirVar * */
  PtrVec layouts;        /* Layout * (blocked ones) */
  PtrVec hkeys, hvals;   /* hoisted Expr * -> TirVar * */
  PtrVec rkeys, rvals;   /* Expr * -> TirRead *: reads of shared copies */
  PtrVec ikeys, ivals;   /* pipeline.c: Expr * -> Sym *, a scalar loop-local var's value inlined
                            into a slice (the early loads print it once, named: emit_tir.c) */
  PtrVec elems;          /* X[i, j]: element reads of tensors in scalar expressions (Expr *) */
  PtrVec elem_loops;     /* the number of loops around each (as intptr_t) */
  TirChk *elem_chk;      /* layout.c: their bounds checks, as TirOp.chk */
  TirBuf bufs[TIR_MAX_BUFS];
  int nbufs;
  uint64_t alias[TIR_MAX_BUFS]; /* smem.c: bit a of alias[b]: buffers a and b share bytes (sync.c orders them) */
  TirCheck checks[TIR_MAX_CHECKS];
  int nchecks;
  bool versioned;        /* printed twice: vector accesses when the checks hold, scalar otherwise */
  int nbarriers;
  int nwarpbars;         /* __syncwarp barriers (TO_BARRIER with warp) */
  long sync_loop_runs;   /* sync.c: the runs of loops its last pass made (real and dry, not taken from its memo) */
  int nrings;            /* loops with stage rings (pipeline.c) */
  int ndefer;            /* dots deferred into the next iteration (pipeline.c) */
  int nfrags;            /* dots whose fragments are loaded a k step ahead (pipeline.c, TO_FRAGS) */
  bool use_lane, use_warp;
  bool warp_uniform;     /* warp is read through a shuffle from lane 0, so that the compiler keeps what
                            is computed from it in uniform registers: a kernel with wgmma dots, whose
                            descriptors must be uniform (layout.c) */
  const char *stage;     /* the last stage run */
  PtrVec folds;          /* carry.c: each reduction a loop accumulates, carried or not and why (--explain) */
  PtrVec remat;          /* lower.c: tile vars a partial tile write read as their declared expression
                            (TirVar *); uniform_masks drops those nothing else reads */
} TirKernel;

/* How a scan (TO_SCAN) runs over its layout. Each thread holds `lines`
 * independent lines (its rows, or its columns); along each, `segs` segments
 * (the layout's repeats) of `inner` contiguous elements of its own (a run, or
 * one element). In a segment, the lanes of a line (`lanes` of them, `stride`
 * apart in the warp) come in order, and the warps (`warps` of them) before
 * them: element order along a line is (segment, warp, lane, inner). `len`: the
 * lines of the whole value (its rows or columns), the scratch's width. */
typedef struct ScanGeom {
  int lines, segs, inner;
  int lanes, stride, warps;
  int len;
  bool warp_major;       /* the mma accumulator or warp tiles: each warp holds a contiguous block, so the
                            order is (warp, segment, lane, inner) */
} ScanGeom;
ScanGeom tir_scan_geom(const TirOp *op);
/* Whether op (a TO_REDUCE, or its TO_SCRATCH_*) folds down the columns (colsum,
 * colmax, colmin, colargmax, colargmin: in-thread over its rows, across lr
 * lanes lc apart, then wr warps) into a [1, cols] value, a slice of lay along
 * dim 0. */
bool tir_down_cols(const TirOp *op);
/* The dots right after ops[i], a dot, that read its A operand as it does, at most
 * TIR_MAX_SHARE_A, into with: each by mma.sync from shared memory (ldmatrix), from
 * the same copy of A read the same way, in the same layout, over as many k (with
 * same_k: the same k range), each whole across (no split_dots parts), loading its
 * own fragments, and into a value of its own. Each k step's A fragments then serve
 * them all (emit_tir.c print_dot; pipeline.c cuts them alike). */
int tir_dots_sharing_a(void *const *ops, int len, int i, bool same_k, struct TirOp **with);
enum { TIR_MAX_SHARE_A = 4 }; /* dots after a dot that share its A fragments, at most */
const Layout *layout_partials(TirKernel *K, const Layout *l, bool down); /* layout.c: a fold's per-thread partials */
/* An element (line l, segment s, inner i) of a scan as (ir, ic, v) of its layout. */
void tir_scan_at(const TirOp *op, int l, int s, int i, int *ir, int *ic, int *v);
/* The type a scan accumulates in and an arg-reduction compares in: f32 for f16
 * and bf16, i32 for i8 and u8, the type itself otherwise. */
ElemType tir_acc_type(ElemType t);

TirVar *tir_new_var(TirKernel *K, ElemType elem, int rank, int rows, int cols, const char *what);
/* Removes v from K->vars (a value no op holds any more), renumbering the others. */
void tir_drop_var(TirKernel *K, const TirVar *v);
/* Removes op k of ops; the statement's comment passes to the next op of its statement. */
void tir_drop_op(PtrVec *ops, int k);
TirOp *tir_new_op(TirKernel *K, TirBlock *b, TirOpKind kind, Stmt *s);
TirVar *tir_hoisted(const TirKernel *K, const Expr *x);
TirVar *tir_var_of(const TirKernel *K, const Sym *y); /* the one value that holds var y, or NULL */
TirRead *tir_read(const TirKernel *K, const Expr *x);
/* v's shared copy (made on first use); -1 when there are too many buffers. */
int tir_copy_buf(TirKernel *K, TirVar *v);
const char *tir_copy_cname(const TirKernel *K, const TirVar *v, bool trans, const TirBuf *f);
/* pipeline.c: the index of KernelInfo's tensor map of X in boxes of rows x cols, swz-byte swizzled (made once). */
int tir_tma_map(TirKernel *K, const Sym *X, int rows, int cols, int swz);
/* The same copy read by ldmatrix: rows 16-byte aligned, padded by 16 bytes. */
int tir_operand_buf(TirKernel *K, TirVar *v, bool in_loop, bool trans);
/* A copy's rows and columns as stored: [cols, rows] when trans (an 8-bit
 * operand's K-major copy). The core-matrix and swizzled layouts (cm8, swz)
 * are of the stored matrix. */
static inline int tir_buf_srows(const TirBuf *f) { return f->trans ? f->cols : f->rows; }
static inline int tir_buf_scols(const TirBuf *f) { return f->trans ? f->rows : f->cols; }
/* The alignment of a buffer's offset: a swizzled copy's pattern starts at it. */
static inline int tir_buf_align(const TirBuf *f) {
  int s = f->swz > f->tma_swz ? f->swz : f->tma_swz;
  return s ? 8 * s : 16;
}
/* Elements of one copy of the buffer (rows x pitch, or cols x pitch when trans). */
const char *tir_buf_shares(const TirKernel *K, int b);
int64_t tir_buf_elems(const TirBuf *f);
/* Bytes a buffer takes: rows x pitch elements, twice when alternating. */
void tir_buf_size(TirBuf *f);
/* A fresh expression node that reads value v (through the hoisted map). */
Expr *tir_read_of(TirKernel *K, TirVar *v);
/* Whether expression x reads value v: by name or as a hoisted value, and, with
 * copies, through v's shared copy (a TirRead of it). */
bool tir_mentions(const TirKernel *K, const Expr *x, const TirVar *v, bool copies);
/* Whether x names symbol y anywhere in it (a tensor's element or slice, a scalar). */
bool tir_names_sym(const Expr *x, const Sym *y);
/* Whether op itself (not the ops inside it) writes or reads value v: its dst,
 * src, src2, or a mention in its expression, slice, pad, guard or window (or a
 * scalar statement's value). */
bool tir_op_touches(const TirKernel *K, const TirOp *op, const TirVar *v);
/* The scalar var a scalar statement's op (TO_SCALAR) assigns, or NULL. */
const Sym *tir_scalar_written(const TirOp *op);
/* Whether the expressions of op's statement that the op itself evaluates (a scalar
 * statement, a loop's bounds, a condition) read value v (v non-NULL) or name symbol y
 * (a scalar statement's declaration of y too). */
bool tir_stmt_mentions(const TirKernel *K, const TirOp *op, const TirVar *v, const Sym *y);
/* Whether op itself (not the ops inside it) writes or reads value v, or names symbol y:
 * tir_stmt_mentions, its dst, src, src2, expression, slice, pad, guard or window. */
bool tir_op_mentions(const TirKernel *K, const TirOp *op, const TirVar *v, const Sym *y);
/* Whether the indices of a load's or store's slice mention v. */
bool tir_slice_mentions(const TirKernel *K, const Expr *slice, const TirVar *v);
/* Register budget: a value holds at most MAX_REGS elements per thread (the
 * @registers cap; tir_value_cap below), the values live at any one op together at most
 * TIR_MAX_VALUE_REGS (32-bit registers; 64-bit elements count twice; a value
 * mentioned inside and outside a loop lives over the whole loop).
 * tir_value_regs: that peak, over the values with a layout now. */
#define TIR_MAX_VALUE_REGS 192
int tir_value_regs(const TirKernel *K);
/* The registers a thread of `threads` may have with `blocks` blocks (at least 1) per SM:
 * the register file over their threads, in steps of 8, at most the target's per-thread
 * limit; 0 where the target gives no figures. */
int tir_thread_regs(const TargetConfig *t, int threads, int blocks);
/* The 32-bit words n elements of e take packed (TirVar.packed), or 0: they cannot be. */
int tir_packed_words(ElemType e, int n);
int tir_value_peak(const TirKernel *K, PtrVec *at);
/* The peak as ptxas holds the values: a declaration holds no registers until the value is
 * written, and an elementwise assign in its value's layout that reads another value for the
 * last time computes each element where that one's dies (their registers shared). For what
 * -Wregister-pressure says will spill; the budget's decisions keep tir_value_regs's margin
 * (ptxas fills the registers left with loads it issues early: rolled fills). */
int tir_value_held(const TirKernel *K, PtrVec *at);
/* The registers of the values live at op (0 where op is not in K's body). */
int tir_value_regs_at(const TirKernel *K, const TirOp *op);
/* The most elements per thread v may hold: MAX_REGS, or TIR_MAX_WG_REGS for a
 * wgmma accumulator (a wg layout) the user did not pin with @registers. */
#define TIR_MAX_WG_REGS 128
int tir_value_cap(const TirVar *v);
void tir_dump(const TirKernel *K, FILE *out);
/* Runs lower .. smem for k, stopping after `last` ("lower", "layout", "sync",
 * "smem"; NULL: all). NULL with *why set (and *at, where at is not NULL: the
 * statement, or line 0 when no one statement is the cause) when the stages
 * cannot lower the kernel, or NULL with *why NULL after a reported error. */
TirKernel *tir_build(Arena *a, Diag *d, Kernel *k, const TargetConfig *t, const char *last, const char **why, Loc *at);

/* lower.c: NULL with *why (and *at) when the kernel uses something the IR does not cover. */
TirKernel *lower_kernel(Arena *a, Diag *d, Kernel *k, const TargetConfig *t, const char **why, Loc *at);
/* layout.c: false with *why when a layout conversion the IR cannot make yet is needed. */
bool layout_assign(TirKernel *K, const char **why);
/* carry.c, run by layout.c before reductions get their scratch: a row reduction accumulated
 * into a tile across a loop carries each thread's partials and folds across threads after it */
void carry_reductions(TirKernel *K);
/* layout.c: the expression a tile var x names holds wherever it is read (its declaration's, its
 * only write), or NULL */
const Expr *layout_declared_value(TirKernel *K, const Expr *x);
/* layout.c: a copy of x (literals, rows(), cols(), arithmetic of scalars that hold one value
 * from their declaration on) that an op may compute in its own place, or NULL; *budget: nodes */
Expr *layout_recompute(TirKernel *K, const Expr *x, int *budget);
/* uniform.c, after lower.c: a where() of a mask var (var ok = n0 + cols(R, C) < N) reads the
 * mask's expression, and the var goes when nothing else reads it */
void uniform_masks(TirKernel *K);
/* uniform.c: tile var v, its declaration and its one write go where no other op reads v nor
 * copies it (every read of it became its declared expression) */
void uniform_drop_unread(TirKernel *K, const TirVar *v);
/* uniform.c, after layout.c: a guard per elementwise assign under which its where()s of rows() and
 * cols() take their first branch at every element (TirOp.uguard) */
void uniform_wheres(TirKernel *K);
/* layout.c, after pipeline.c: stores of mma layouts staged through shared memory where they fit */
void layout_epilogues(TirKernel *K);
void layout_pressure_late(TirKernel *K);
/* pipeline.c: @pipeline(n) loops load n - 1 iterations ahead into registers */
void pipeline_loops(TirKernel *K);
/* The copies of the body of each loop whose rings rotate (TirOp.rot, rbody): after sync and smem. */
void pipeline_rotate(TirKernel *K);
/* sync.c */
void sync_place(TirKernel *K);
/* smem.c: false when the budget is exceeded (reported) */
bool smem_place(TirKernel *K);
/* The shared bytes the buffers there are now and one more, of bytes aligned to
 * align, made for op at, would take: side by side, or sharing bytes where that
 * is less. */
int64_t smem_with(const TirKernel *K, const TirOp *at, int64_t bytes, int align);
/* The shared bytes a block may take: the target's maximum, or with
 * @launch(threads, n) what lets n blocks fit on an SM */
int64_t smem_budget(const TirKernel *K);
/* emit_tir.c */
void emit_tir_kernel(TirKernel *K, const EmitOptions *o, const char *line_file, Buf *out);
void emit_tir_explain(TirKernel *K, FILE *out);

/* ---------------------------------------------------------------- host.c */
/* Host launchers (tile2cu --host) for every kernel of a translated program:
 * definitions appended to cu, declarations (a whole header) into header. */
void host_emit(Arena *a, Program *p, const EmitOptions *o, Buf *cu, Buf *header);

/* ---------------------------------------------------------------- launch.c */
/* @grid for these values; false with a message in err when it cannot be
 * evaluated or a dim is out of range. */
bool launch_grid(const KernelInfo *ki, const double *pv, const int64_t *sv, unsigned g[3], char *err, size_t n);
/* Every size from 1 to INT_MAX. */
bool launch_check_sizes(const KernelInfo *ki, const int64_t *sv, char *err, size_t n);
/* Every @assume true; otherwise a message naming the first false one. */
bool launch_check_assumes(const KernelInfo *ki, const char *kernel, const double *pv, const int64_t *sv,
                          char *err, size_t n);
/* A scalar argument as a kernel takes it: f16 and bf16 as their bits in u16, f8 in u8. */
typedef union ScalarArg {
  float f32; double f64; int i32; unsigned u32; long long i64; signed char i8;
  unsigned char u8; bool b; unsigned short u16;
} ScalarArg;
/* Scalar name of type e from the text s (tile2cu run's NAME=VALUE, tune's --sizes): an
 * integer type takes an integer in its range (a literal exactly, all 64 bits), a float
 * a number, rounded to nearest even into f16, bf16 or f8 (f8 saturating), a bool true,
 * false or a number. *dv gets the value as a double (for @assume and @grid). False with
 * a message in err ("scalar s=abc: expected a number (s is f32)"). */
bool launch_scalar(ElemType e, const char *name, const char *s, ScalarArg *v, double *dv, char *err, size_t n);
/* d's bits in f16, bf16, f8e4m3 or f8e5m2, rounded to nearest even (subnormals kept; an
 * f16 or bf16 overflow is inf, an f8 one the largest finite, as f8() converts). */
uint32_t elem_float_bits(ElemType e, double d);
/* The value of those bits (NaN, inf and subnormals too). */
double elem_float_value(ElemType e, uint32_t bits);
/* $TILE2CU_CACHE_DIR, else $XDG_CACHE_HOME/tile2cu, else ~/.cache/tile2cu. */
void launch_cache_dir(char *out, size_t n);
int launch_mkdirs(const char *path); /* mkdir -p, new directories 0700; 0 or -1 with errno */

/* ---------------------------------------------------------------- outfile.c */
/* Writes data to path atomically (a temporary file renamed over it). On
 * failure returns -1 with a message in err; path is left as it was and no
 * temporary remains. */
int outfile_write(const char *path, const void *data, size_t len, char *err, size_t n);
/* Makes SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGXFSZ remove the temporary
 * outfile_write is writing before the process dies (for the command line). */
void outfile_catch_signals(void);
/* Makes those signals also remove path (a file this process creates and
 * removes itself, such as tile2cu run's generated .cu); returns a slot for
 * outfile_forget, or -1 when the few slots are taken. */
int outfile_remove_on_signal(const char *path);
void outfile_forget(int slot);
/* Seconds outfile_write waits between writing the temporary and renaming it:
 * a test hook (tile2cu reads $TILE2CU_TEST_PAUSE_BEFORE_RENAME), normally 0. */
extern double outfile_pause_before_rename;

/* ---------------------------------------------------------------- options.c
 * -D NAME=VALUE, -Wno-NAME, -Werror and -w: every verb that translates takes
 * them, and libtile2cu's compile call; translate() reads them. */
typedef struct Define {
  const char *name, *text; /* NAME and VALUE as written */
  Expr *value;             /* VALUE as the literal expression it is */
} Define;
typedef struct Defines {
  Define *v;
  int n;
} Defines;
/* When argv[*i] is one of these options: appends it (and -D's separate
 * argument) to out[*nout], moves *i to its last word, and returns true. out
 * has room for argc entries. */
bool opts_take(int argc, char **argv, int *i, const char **out, int *nout);
/* Sets d's warning switches and reads each -D into defs; a malformed option
 * is an error (no location). False after errors. */
bool opts_read(Arena *a, Diag *d, const char *const *opts, int nopts, Defines *defs);
/* Puts each -D's value in place of its file-level const's (the last -D of a
 * name wins); a name that is no file-level const is an error. p->defines
 * gets the -D applied, or NULL. */
bool opts_define(Arena *a, Diag *d, Program *p, const Defines *defs);
/* Their lines in every verb's --help. */
#define OPTS_HELP                                                                                        \
  "  -D NAME=VALUE      the file-level const NAME takes VALUE, an integer or float literal\n"          \
  "                     (repeatable; of several -D of one NAME the last wins)\n"                      \
  "  -Wno-NAME          no warning NAME (bounds, registers-copy, pipeline, ...: docs/diagnostics.md)\n" \
  "  -WNAME             warning NAME on (the default): undoes an earlier -Wno-NAME\n"                \
  "  -Werror            warnings are errors: exit status 1 and nothing written\n"                     \
  "  -w                 no warnings\n"

/* ---------------------------------------------------------------- main.c, run.c, verbs.c */
int run_main(int argc, char **argv);
int compile_main(int argc, char **argv); /* tile2cu compile */
int report_main(int argc, char **argv);  /* tile2cu report */
int tune_main(int argc, char **argv);    /* tile2cu tune (tune.c) */
/* "N blocks/SM, W of T warps (limited by ...)", as tile2cu report prints it,
 * for a block of threads with regs registers per thread (0 or less: not
 * counted) and smem shared bytes; returns the blocks per SM (0: does not fit). */
/* The shared memory a block takes on an SM, as the CUDA occupancy calculator counts
 * it: 128-byte units, plus the 1 KiB the driver reserves per block from sm_80 on. */
int64_t smem_footprint(const TargetConfig *t, int64_t smem);
int report_occupancy(const TargetConfig *t, int threads, int regs, int64_t smem, char *out, size_t n);
/* tile2cu report's warnings about kernel k (checked) from ptxas's numbers ii:
 * -Wstack-frame and -Wspills, each with a note listing the register tiles. */
struct t2c_kernel_info;
void report_warnings(Diag *d, const Kernel *k, const struct t2c_kernel_info *ii);

/* ---------------------------------------------------------------- tuned.c: tuning files */
/* The SHA-256 of text, as 64 hex digits. */
void tuned_sha256(const char *text, char hex[65]);
/* "M=4000 N=100" -> "M=4096 N=128": integers rounded up to powers of two, sorted by name. */
void tuned_size_class(const char *sizes, char *out, size_t n);
/* Adds or replaces the entry of (src's hash, target, kernel, the class of sizes) in the
 * tuning file out (NULL: FILE.tuned.yaml). Returns an exit status (0, or 2 on I/O). */
int tuned_record(const char *out, const char *file, const char *src, const char *target, const char *kernel,
                 const char *sizes, const char *defines, double us, const char *base, double base_us);
/* The defines ("BM=128 BN=64") the tuning file path holds for src on target
 * (and, with kernel, that kernel's entries; with sizes, that size class): 0; 1 when
 * it has none (err says so); 2 when the file is bad or several entries disagree (err). */
int tuned_defines(const char *path, const char *src, const char *target, const char *kernel, const char *sizes,
                  char *defines, size_t n, char *err, size_t errlen);
/* Reads a whole .tl file (NUL-terminated, malloc'd); NULL with a message in err. */
char *read_tl_file(const char *path, char *err, size_t n, int *status);
/* The pipeline: lex, parse, check, emit. Returns the exit status (0, or 1 for
 * errors in the input, reported to diag_out). *prog_out gets the program. */
int translate(const char *file, const char *src, const TargetConfig *t, const EmitOptions *eo, Buf *out,
              FILE *diag_out, Program **prog_out, Arena *a);
/* Evaluates an integer expression of size names, scalar params and consts
 * (@grid, @assume). vals[i] is the value of KernelInfo.params[i] (scalars) and
 * sizes follow in svals. Returns false when it cannot (division by zero). */
bool eval_launch_expr(const Expr *e, const KernelInfo *ki, const double *pvals, const int64_t *svals,
                      double *out);

/* ---------------------------------------------------------------- limits */
#define MAX_REGS 64 /* elements per thread of one @registers tile (the seed's cap) */

#endif
