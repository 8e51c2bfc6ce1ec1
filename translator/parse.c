/* parse.c: tokens -> AST, by recursive descent.
 *
 * One function per grammar rule, the rule in a comment above it. Nodes come
 * zeroed from the arena. A syntax error is reported once and unwinds with
 * longjmp (as Lua's parser does) to the innermost recovery point: each
 * statement of a block, and each declaration at file level. There the parser
 * skips to the end of the statement (the next statement end at the same
 * brace depth, or the '}' that closes the block) or, at file level, to the
 * next `kernel`, `const` or '@', and goes on, so every error of a file is
 * reported. Every recovery path consumes at least one token, and a second
 * error at the token of the previous one is not reported (no cascades).
 * Blocks and expressions nest at most MAX_NEST deep, so no input can
 * overflow the stack; a chain of operators (a + b + c ...) or of calls,
 * subscripts and members (a[0][0] ...) is parsed by a loop, not by recursion.
 * The other limits of t2c.h are checked here too: MAX_EXPR_NODES per
 * expression (it also bounds the depth of the tree a chain builds, which the
 * later phases walk recursively), MAX_KERNELS, MAX_CONSTS, MAX_PARAMS,
 * MAX_STMTS and MAX_ATTRS.
 */
#include "t2c.h"

#include <inttypes.h>
#include <setjmp.h>
#include <string.h>

typedef struct Parser {
  Arena *a;
  Diag *d;
  Token *tok;        /* current token; never moves past TK_EOF */
  int nest;          /* blocks and expressions being parsed */
  int in_expr;       /* expressions being parsed (0: the next expr() is a whole one) */
  int nodes;         /* nodes of the whole expression being parsed */
  const char *kernel;/* the kernel being parsed */
  int stmts;         /* its statements so far */
  int nkernels, nconsts; /* kernels and file-level constants so far */
  Token *last_error; /* token of the last syntax error */
  jmp_buf *recover;  /* where a syntax error unwinds to */
} Parser;

/* ---- tokens and errors */

static TokenKind peek(Parser *p) {
  return p->tok->kind;
}

static Token *advance(Parser *p) {
  Token *t = p->tok;
  if (t->kind != TK_EOF)
    p->tok++;
  return t;
}

static bool accept(Parser *p, TokenKind k) {
  if (peek(p) != k)
    return false;
  advance(p);
  return true;
}

static _Noreturn __attribute__((format(printf, 3, 4)))
void syntax_error(Parser *p, Token *t, const char *fmt, ...) {
  if (t != p->last_error) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(p->d, t->loc, "%s", msg);
  }
  p->last_error = t;
  longjmp(*p->recover, 1);
}

static Token *expect(Parser *p, TokenKind k, const char *msg) {
  if (peek(p) != k)
    syntax_error(p, p->tok, "%s", msg);
  return advance(p);
}

static char *text_of(Parser *p, Token *t) {
  return arena_strndup(p->a, t->start, (size_t)t->len);
}

static bool is_word(Token *t, const char *w) {
  return t->kind == TK_IDENT && (size_t)t->len == strlen(w) && memcmp(t->start, w, (size_t)t->len) == 0;
}

static void enter(Parser *p, Token *t) {
  if (++p->nest > MAX_NEST)
    syntax_error(p, t, "nesting is too deep (limit %d)", MAX_NEST);
}

static void leave(Parser *p) {
  p->nest--;
}

/* ---- expressions */

static Expr *expr(Parser *p);

static Expr *new_expr(Parser *p, ExprKind kind, Loc loc) {
  if (++p->nodes > MAX_EXPR_NODES)
    syntax_error(p, p->tok, "expression is too long (limit %d operators and operands)", MAX_EXPR_NODES);
  Expr *e = NEW(p->a, Expr);
  e->kind = kind;
  e->loc = loc;
  e->ty.elem = T_NONE;
  return e;
}

static Expr *new_binary(Parser *p, Token *op, Expr *a, Expr *b) {
  Expr *e = new_expr(p, E_BINARY, op->loc);
  e->u.binary.op = op->kind;
  e->u.binary.a = a;
  e->u.binary.b = b;
  return e;
}

/* The float's spelling without '_' separators. */
static const char *float_text(Parser *p, Token *t) {
  char *s = arena_alloc(p->a, (size_t)t->len + 1), *q = s;
  for (int i = 0; i < t->len; i++)
    if (t->start[i] != '_')
      *q++ = t->start[i];
  return s;
}

/* primary = INT | FLOAT | 'true' | 'false' | IDENT | '(' expr ')' */
static Expr *primary(Parser *p) {
  Token *t = p->tok;
  Expr *e;
  switch (t->kind) {
  case TK_INT:
    e = new_expr(p, E_INT, t->loc);
    e->u.ival = t->ival;
    break;
  case TK_FLOAT:
    e = new_expr(p, E_FLOAT, t->loc);
    e->u.fval = t->fval;
    e->u.ftext = float_text(p, t);
    break;
  case TK_TRUE:
  case TK_FALSE:
    e = new_expr(p, E_BOOL, t->loc);
    e->u.ival = t->kind == TK_TRUE;
    break;
  case TK_IDENT:
    e = new_expr(p, E_IDENT, t->loc);
    e->u.ident.name = text_of(p, t);
    break;
  case TK_LPAREN:
    advance(p);
    e = expr(p);
    if (peek(p) != TK_RPAREN && p->tok != p->last_error) {
      diag_error(p->d, p->tok->loc, "expected ')' after expression");
      diag_note(p->d, t->loc, "to match this '('");
      p->last_error = p->tok;
      longjmp(*p->recover, 1);
    }
    advance(p);
    return e;
  default:
    if (t->kind == TK_COLON && t != p->last_error) { /* NumPy's x[:, 3] */
      diag_error(p->d, t->loc, "expected expression");
      diag_note(p->d, t->loc, "a slice is written start :+ length, as x[0 :+ 8, 3]; there is no ':' alone");
      p->last_error = t;
      longjmp(*p->recover, 1);
    }
    syntax_error(p, t, "expected expression");
  }
  advance(p);
  return e;
}

/* exprs = [ expr { ',' expr } [','] ] CLOSE */
static void expr_list(Parser *p, PtrVec *v, TokenKind close, const char *msg) {
  while (peek(p) != close) {
    vec_push(p->a, v, expr(p));
    if (!accept(p, TK_COMMA))
      break;
  }
  expect(p, close, msg);
}

/* call = IDENT '(' exprs ')' */
static Expr *call_expr(Parser *p, Expr *callee) {
  if (callee->kind != E_IDENT)
    syntax_error(p, p->tok, "only a name can be called");
  advance(p);
  Expr *e = new_expr(p, E_CALL, callee->loc);
  e->u.call.name = callee->u.ident.name;
  e->u.call.name_loc = callee->loc;
  e->u.call.builtin = -1;
  e->u.call.cast = T_NONE;
  PtrVec args = {0};
  e->u.call.shape_at = -1;
  /* args, one of which may be a list [a, b] (reshape's shape): its items become args */
  while (peek(p) != TK_RPAREN) {
    if (peek(p) == TK_LBRACK && e->u.call.shape_at < 0) {
      advance(p);
      e->u.call.shape_at = args.len;
      expr_list(p, &args, TK_RBRACK, "expected ']' after the list");
    } else {
      vec_push(p->a, &args, expr(p));
    }
    if (!accept(p, TK_COMMA)) break;
  }
  expect(p, TK_RPAREN, "expected ')' after arguments");
  e->u.call.args = (Expr **)args.items;
  e->u.call.nargs = args.len;
  if (e->u.call.shape_at < 0) e->u.call.shape_at = args.len;
  return e;
}

/* index = expr [ ':+' expr ] */
static Index *index_item(Parser *p) {
  Index *ix = NEW(p->a, Index);
  ix->start = expr(p);
  if (accept(p, TK_SLICE))
    ix->len = expr(p);
  return ix;
}

/* subscript = postfix '[' index { ',' index } ']' */
static Expr *index_expr(Parser *p, Expr *base) {
  advance(p);
  PtrVec v = {0};
  do
    vec_push(p->a, &v, index_item(p));
  while (accept(p, TK_COMMA));
  expect(p, TK_RBRACK, "expected ']' after index");
  Expr *e = new_expr(p, E_INDEX, base->loc);
  e->u.index.base = base;
  e->u.index.nidx = v.len;
  e->u.index.idx = NEW_ARRAY(p->a, Index, v.len);
  for (int i = 0; i < v.len; i++)
    e->u.index.idx[i] = *(Index *)v.items[i];
  return e;
}

/* member = postfix '.' IDENT */
static Expr *member_expr(Parser *p, Expr *base) {
  advance(p);
  Token *name = expect(p, TK_IDENT, "expected a member name after '.'");
  Expr *e = new_expr(p, E_MEMBER, base->loc);
  e->u.member.base = base;
  e->u.member.name = text_of(p, name);
  e->u.member.name_loc = name->loc;
  return e;
}

/* postfix = primary { call | subscript | member }
 * Each one after the first nests the tree one level deeper. */
static Expr *postfix(Parser *p) {
  Expr *e = primary(p);
  for (int n = 0;; n++) {
    TokenKind k = peek(p);
    if (k != TK_LPAREN && k != TK_LBRACK && k != TK_DOT) {
      p->nest -= n > 1 ? n - 1 : 0;
      return e;
    }
    if (n > 0)
      enter(p, p->tok);
    if (k == TK_LPAREN)
      e = call_expr(p, e);
    else if (k == TK_LBRACK)
      e = index_expr(p, e);
    else
      e = member_expr(p, e);
  }
}

/* unary = ( '-' | '!' | '~' ) unary | postfix */
static Expr *unary(Parser *p) {
  TokenKind k = peek(p);
  if (k != TK_MINUS && k != TK_NOT && k != TK_TILDE)
    return postfix(p);
  Token *op = advance(p);
  enter(p, op);
  Expr *e = new_expr(p, E_UNARY, op->loc);
  e->u.unary.op = k;
  e->u.unary.a = unary(p);
  leave(p);
  return e;
}

/* mul = unary { ( '*' | '/' | '%' ) unary } */
static Expr *mul(Parser *p) {
  Expr *e = unary(p);
  while (peek(p) == TK_STAR || peek(p) == TK_SLASH || peek(p) == TK_PERCENT) {
    Token *op = advance(p);
    e = new_binary(p, op, e, unary(p));
  }
  return e;
}

/* add = mul { ( '+' | '-' ) mul } */
static Expr *add(Parser *p) {
  Expr *e = mul(p);
  while (peek(p) == TK_PLUS || peek(p) == TK_MINUS) {
    Token *op = advance(p);
    e = new_binary(p, op, e, mul(p));
  }
  return e;
}

/* shift = add { ( '<<' | '>>' ) add } */
static Expr *shift(Parser *p) {
  Expr *e = add(p);
  while (peek(p) == TK_SHL || peek(p) == TK_SHR) {
    Token *op = advance(p);
    e = new_binary(p, op, e, add(p));
  }
  return e;
}

/* bitand = shift { '&' shift } */
static Expr *bitand(Parser *p) {
  Expr *e = shift(p);
  while (peek(p) == TK_AND) {
    Token *op = advance(p);
    e = new_binary(p, op, e, shift(p));
  }
  return e;
}

/* bitxor = bitand { '^' bitand } */
static Expr *bitxor(Parser *p) {
  Expr *e = bitand(p);
  while (peek(p) == TK_XOR) {
    Token *op = advance(p);
    e = new_binary(p, op, e, bitand(p));
  }
  return e;
}

/* bitor = bitxor { '|' bitxor } */
static Expr *bitor(Parser *p) {
  Expr *e = bitxor(p);
  while (peek(p) == TK_OR) {
    Token *op = advance(p);
    e = new_binary(p, op, e, bitxor(p));
  }
  return e;
}

/* relational = bitor { ( '<' | '<=' | '>' | '>=' ) bitor } */
static Expr *relational(Parser *p) {
  Expr *e = bitor(p);
  while (peek(p) == TK_LT || peek(p) == TK_LE || peek(p) == TK_GT || peek(p) == TK_GE) {
    Token *op = advance(p);
    e = new_binary(p, op, e, bitor(p));
  }
  return e;
}

/* equality = relational { ( '==' | '!=' ) relational } */
static Expr *equality(Parser *p) {
  Expr *e = relational(p);
  while (peek(p) == TK_EQ || peek(p) == TK_NE) {
    Token *op = advance(p);
    e = new_binary(p, op, e, relational(p));
  }
  return e;
}

/* logand = equality { '&&' equality } */
static Expr *logand(Parser *p) {
  Expr *e = equality(p);
  while (peek(p) == TK_ANDAND) {
    Token *op = advance(p);
    e = new_binary(p, op, e, equality(p));
  }
  return e;
}

/* logor = logand { '||' logand } */
static Expr *logor(Parser *p) {
  Expr *e = logand(p);
  while (peek(p) == TK_OROR) {
    Token *op = advance(p);
    e = new_binary(p, op, e, logand(p));
  }
  return e;
}

/* expr = logor */
static Expr *expr(Parser *p) {
  if (p->in_expr == 0)
    p->nodes = 0; /* a whole expression starts */
  p->in_expr++;
  enter(p, p->tok);
  Expr *e = logor(p);
  leave(p);
  p->in_expr--;
  return e;
}

/* ---- types */

static void unknown_elem(Parser *p, Token *t) {
  diag_error(p->d, t->loc, "unknown element type '%.*s'", t->len, t->start);
  Buf b = {0};
  for (int i = 0; i < T_COUNT; i++)
    buf_printf(&b, "%s%s", i ? ", " : "", elem_names[i]);
  diag_note(p->d, (Loc){0, 0}, "the element types are %s", b.data);
  buf_free(&b);
}

/* ELEMTYPE = IDENT naming an element type (an unknown name is reported and
 * yields T_NONE; parsing goes on) */
static ElemType elem_type(Parser *p) {
  Token *t = expect(p, TK_IDENT, "expected an element type");
  int e = elem_lookup(t->start, t->len);
  if (e < 0)
    unknown_elem(p, t);
  return (ElemType)e;
}

/* dim = INT | IDENT. An expression that starts as one ([H, 3 * H]) is parsed whole,
 * so that the checker, which knows the consts, can say what to write instead. */
static Expr *tensor_dim(Parser *p) {
  Token *t = p->tok;
  if (t->kind != TK_INT && t->kind != TK_IDENT)
    syntax_error(p, t, "a tensor dimension must be an integer literal or a size name");
  return expr(p);
}

/* dims = '[' DIM { ',' DIM } ']', DIM being expr (tile) or dim (tensor) */
static void type_dims(Parser *p, TypeRef *ty) {
  expect(p, TK_LBRACK, ty->kind == TR_TILE ? "expected '[' after 'tile<T>'" : "expected '[' after 'tensor<T>'");
  PtrVec v = {0};
  do
    vec_push(p->a, &v, ty->kind == TR_TILE ? expr(p) : tensor_dim(p));
  while (accept(p, TK_COMMA));
  expect(p, TK_RBRACK, "expected ']' after dimensions");
  ty->dims = (Expr **)v.items;
  ty->ndims = v.len;
}

/* type = ELEMTYPE
 *      | 'tile' '<' ELEMTYPE '>' '[' expr { ',' expr } ']'
 *      | 'tensor' '<' ELEMTYPE '>' '[' dim { ',' dim } ']' */
static TypeRef *type(Parser *p) {
  Token *t = p->tok;
  if (t->kind != TK_IDENT)
    syntax_error(p, t, "expected a type");
  TypeRef *ty = NEW(p->a, TypeRef);
  ty->loc = t->loc;
  if (!is_word(t, "tile") && !is_word(t, "tensor")) {
    ty->kind = TR_SCALAR;
    ty->elem = elem_type(p);
    return ty;
  }
  ty->kind = is_word(t, "tile") ? TR_TILE : TR_TENSOR;
  advance(p);
  expect(p, TK_LT, ty->kind == TR_TILE ? "expected '<' after 'tile'" : "expected '<' after 'tensor'");
  ty->elem = elem_type(p);
  expect(p, TK_GT, "expected '>' after the element type");
  type_dims(p, ty);
  return ty;
}

/* ---- attributes */

static AttrKind attr_lookup(Token *t) {
  for (int i = 0; i < A_COUNT; i++)
    if (is_word(t, attr_names[i]))
      return (AttrKind)i;
  return A_UNKNOWN;
}

/* attr = '@' IDENT [ '(' exprs ')' ] */
static Attr *attr(Parser *p) {
  Token *at = advance(p);
  Token *name = expect(p, TK_IDENT, "expected an attribute name after '@'");
  Attr *a = NEW(p->a, Attr);
  a->kind = attr_lookup(name);
  a->name = text_of(p, name);
  a->loc = at->loc;
  if (accept(p, TK_LPAREN)) {
    PtrVec args = {0};
    a->has_parens = true;
    p->nodes = 0; /* the arguments count as one expression */
    p->in_expr++;
    expr_list(p, &args, TK_RPAREN, "expected ')' after attribute arguments");
    p->in_expr--;
    a->args = (Expr **)args.items;
    a->nargs = args.len;
  }
  return a;
}

/* attrs = { attr [NEWLINE] }  (past MAX_ATTRS: said once, parsed and dropped) */
static void attrs(Parser *p, PtrVec *v) {
  for (int n = 0; peek(p) == TK_AT; n++) {
    if (n == MAX_ATTRS)
      diag_error(p->d, p->tok->loc, "more than %d attributes", MAX_ATTRS);
    Attr *a = attr(p);
    if (n < MAX_ATTRS)
      vec_push(p->a, v, a);
    accept(p, TK_NEWLINE);
  }
}

/* ---- statements */

static Stmt *stmt(Parser *p);

static Stmt *new_stmt(Parser *p, StmtKind kind, Token *first) {
  if (p->kernel && ++p->stmts == MAX_STMTS + 1) /* said once; parsing goes on */
    diag_error(p->d, first->loc, "kernel '%s' has more than %d statements", p->kernel, MAX_STMTS);
  Stmt *s = NEW(p->a, Stmt);
  s->kind = kind;
  s->loc = first->loc;
  s->line_end = first->loc.line;
  return s;
}

/* Line of the last token consumed. */
static int prev_line(Parser *p) {
  return p->tok[-1].loc.line;
}

static _Noreturn void unclosed_block(Parser *p, Token *lbrace) {
  if (p->tok != p->last_error) {
    diag_error(p->d, p->tok->loc, "expected '}'");
    diag_note(p->d, lbrace->loc, "to match this '{'");
  }
  p->last_error = p->tok;
  longjmp(*p->recover, 1);
}

/* block = '{' { stmt } '}' */
static void block(Parser *p, Block *b, const char *msg) {
  enter(p, p->tok); /* before the '{' is consumed, so recovery sees it */
  Token *lbrace = expect(p, TK_LBRACE, msg);
  PtrVec v = {0};
  for (;;) {
    while (accept(p, TK_NEWLINE))
      ;
    if (peek(p) == TK_RBRACE || peek(p) == TK_EOF)
      break;
    Token *before = p->tok;
    Stmt *s = stmt(p);
    if (s)
      vec_push(p->a, &v, s);
    if (p->tok == before && peek(p) != TK_RBRACE)
      advance(p);
  }
  if (peek(p) == TK_EOF)
    unclosed_block(p, lbrace);
  b->rbrace = advance(p)->loc;
  b->stmts = (Stmt **)v.items;
  b->nstmts = v.len;
  leave(p);
}

/* block_stmt = block */
static Stmt *block_stmt(Parser *p) {
  Stmt *s = new_stmt(p, S_BLOCK, p->tok);
  block(p, &s->u.block, "expected '{'");
  return s;
}

/* const_decl = 'const' IDENT '=' expr */
static Stmt *const_decl(Parser *p) {
  Stmt *s = new_stmt(p, S_CONST, advance(p));
  Token *name = expect(p, TK_IDENT, "expected a name after 'const'");
  s->u.decl.name = text_of(p, name);
  s->u.decl.name_loc = name->loc;
  expect(p, TK_ASSIGN, "expected '=' after the constant's name");
  s->u.decl.init = expr(p);
  s->line_end = prev_line(p);
  return s;
}

/* var_decl = 'var' IDENT [ ':' type ] [ '=' expr ] */
static Stmt *var_decl(Parser *p) {
  Stmt *s = new_stmt(p, S_VAR, advance(p));
  Token *name = expect(p, TK_IDENT, "expected a name after 'var'");
  s->u.decl.name = text_of(p, name);
  s->u.decl.name_loc = name->loc;
  if (accept(p, TK_COLON))
    s->u.decl.type = type(p);
  if (accept(p, TK_ASSIGN))
    s->u.decl.init = expr(p);
  if (!s->u.decl.type && !s->u.decl.init)
    diag_error(p->d, name->loc, "'var %s' needs a type or an initial value", s->u.decl.name);
  s->line_end = prev_line(p);
  return s;
}

/* for_stmt = 'for' IDENT 'in' 'range' '(' expr ',' expr [ ',' expr ] ')' block */
static Stmt *for_stmt(Parser *p) {
  Stmt *s = new_stmt(p, S_FOR, advance(p));
  Token *var = expect(p, TK_IDENT, "expected a loop variable after 'for'");
  s->u.forr.var = text_of(p, var);
  s->u.forr.var_loc = var->loc;
  expect(p, TK_IN, "expected 'in' after the loop variable");
  expect(p, TK_RANGE, "expected 'range' after 'in'");
  expect(p, TK_LPAREN, "expected '(' after 'range'");
  s->u.forr.lo = expr(p);
  expect(p, TK_COMMA, "expected ',' after the start of the range");
  s->u.forr.hi = expr(p);
  if (accept(p, TK_COMMA))
    s->u.forr.step = expr(p);
  expect(p, TK_RPAREN, "expected ')' after the range");
  s->line_end = p->tok->loc.line;
  block(p, &s->u.forr.body, "expected '{' after the range");
  return s;
}

/* if_head = 'if' expr block */
static Stmt *if_head(Parser *p) {
  Stmt *s = new_stmt(p, S_IF, advance(p));
  s->u.iff.cond = expr(p);
  s->line_end = p->tok->loc.line;
  block(p, &s->u.iff.then, "expected '{' after the condition");
  return s;
}

/* At 'else', possibly after statement ends: skips to it and says so. */
static bool at_else(Parser *p) {
  Token *t = p->tok;
  while (t->kind == TK_NEWLINE)
    t++;
  if (t->kind != TK_ELSE)
    return false;
  p->tok = t;
  return true;
}

/* if_stmt = if_head { 'else' if_head } [ 'else' block ]
 * (iterative, so a long else-if chain does not nest) */
static Stmt *if_stmt(Parser *p) {
  Stmt *first = if_head(p), *last = first;
  while (at_else(p)) {
    advance(p);
    if (peek(p) == TK_IF) {
      last->u.iff.els = if_head(p);
      last = last->u.iff.els;
    } else {
      if (peek(p) != TK_LBRACE)
        syntax_error(p, p->tok, "expected '{' or 'if' after 'else'");
      last->u.iff.els = block_stmt(p);
      break;
    }
  }
  return first;
}

/* while_stmt = 'while' expr block */
static Stmt *while_stmt(Parser *p) {
  Stmt *s = new_stmt(p, S_WHILE, advance(p));
  s->u.whil.cond = expr(p);
  s->line_end = p->tok->loc.line;
  block(p, &s->u.whil.body, "expected '{' after the condition");
  return s;
}

static bool is_assign_op(TokenKind k) {
  return k == TK_ASSIGN || k == TK_ADD_ASSIGN || k == TK_SUB_ASSIGN || k == TK_MUL_ASSIGN ||
         k == TK_DIV_ASSIGN;
}

/* simple_stmt = expr [ ( '=' | '+=' | '-=' | '*=' | '/=' ) expr ] */
static Stmt *simple_stmt(Parser *p) {
  Token *first = p->tok;
  Expr *lhs = expr(p);
  if (!is_assign_op(peek(p))) {
    Stmt *s = new_stmt(p, S_EXPR, first);
    s->u.expr = lhs;
    s->line_end = prev_line(p);
    return s;
  }
  Stmt *s = new_stmt(p, S_ASSIGN, first);
  s->u.assign.lhs = lhs;
  s->u.assign.op = advance(p)->kind;
  s->u.assign.rhs = expr(p);
  s->line_end = prev_line(p);
  return s;
}

/* end = NEWLINE | (nothing, before '}' or EOF) */
static void end_stmt(Parser *p) {
  if (accept(p, TK_NEWLINE) || peek(p) == TK_RBRACE || peek(p) == TK_EOF)
    return;
  syntax_error(p, p->tok, "expected newline or ';' after statement");
}

/* The statement proper, without attributes and end. */
static Stmt *stmt_body(Parser *p) {
  switch (peek(p)) {
  case TK_CONST: return const_decl(p);
  case TK_VAR: return var_decl(p);
  case TK_FOR: return for_stmt(p);
  case TK_IF: return if_stmt(p);
  case TK_WHILE: return while_stmt(p);
  case TK_BREAK: return new_stmt(p, S_BREAK, advance(p));
  case TK_CONTINUE: return new_stmt(p, S_CONTINUE, advance(p));
  case TK_LBRACE: return block_stmt(p);
  default: return simple_stmt(p);
  }
}

/* stmt1 = attrs ( const_decl | var_decl | for_stmt | if_stmt | while_stmt
 *               | 'break' | 'continue' | block_stmt | simple_stmt ) end */
static Stmt *stmt1(Parser *p) {
  PtrVec v = {0};
  attrs(p, &v);
  if (v.len && (peek(p) == TK_RBRACE || peek(p) == TK_EOF))
    syntax_error(p, p->tok, "expected a statement after attributes");
  Stmt *s = stmt_body(p);
  s->attrs = (Attr **)v.items;
  s->nattrs = v.len;
  end_stmt(p);
  return s;
}

/* Recovery: skips to the next statement end at this brace depth (consumed)
 * or to the '}' that closes the enclosing block (not consumed). */
static void skip_stmt(Parser *p) {
  int depth = 0;
  for (;;) {
    switch (peek(p)) {
    case TK_EOF: return;
    case TK_NEWLINE:
      if (depth == 0) {
        advance(p);
        return;
      }
      break;
    case TK_LBRACE: depth++; break;
    case TK_RBRACE:
      if (depth == 0)
        return;
      depth--;
      break;
    default: break;
    }
    advance(p);
  }
}

/* stmt = stmt1, or on a syntax error nothing (NULL) after skip_stmt */
static Stmt *stmt(Parser *p) {
  jmp_buf env, *outer = p->recover;
  int nest = p->nest;
  Stmt *volatile s = NULL;
  p->recover = &env;
  if (setjmp(env) == 0) {
    s = stmt1(p);
  } else {
    p->nest = nest;
    p->in_expr = 0;
    skip_stmt(p);
  }
  p->recover = outer;
  return s;
}

/* ---- kernels and the file */

/* param = IDENT ':' type */
static void param(Parser *p, Param *out) {
  p->nodes = 0; /* a tensor's dims count as one expression */
  Token *name = expect(p, TK_IDENT, "expected a parameter name");
  out->name = text_of(p, name);
  out->loc = name->loc;
  expect(p, TK_COLON, "expected ':' and a type after the parameter name");
  out->type = type(p);
}

/* params = '(' [ param { ',' param } [','] ] ')' */
static void params(Parser *p, Kernel *k) {
  expect(p, TK_LPAREN, "expected '(' after the kernel name");
  PtrVec v = {0};
  while (peek(p) != TK_RPAREN) {
    if (v.len == MAX_PARAMS)
      syntax_error(p, p->tok, "kernel '%s' has more than %d parameters", k->name, MAX_PARAMS);
    Param *pm = NEW(p->a, Param);
    param(p, pm);
    vec_push(p->a, &v, pm);
    if (!accept(p, TK_COMMA))
      break;
  }
  expect(p, TK_RPAREN, "expected ',' or ')' after a parameter");
  k->params = NEW_ARRAY(p->a, Param, v.len);
  k->nparams = v.len;
  for (int i = 0; i < v.len; i++)
    k->params[i] = *(Param *)v.items[i];
}

/* kernel = 'kernel' IDENT params block */
static Kernel *kernel(Parser *p, PtrVec *attrv) {
  Kernel *k = NEW(p->a, Kernel);
  k->loc = advance(p)->loc;
  Token *name = expect(p, TK_IDENT, "expected a name after 'kernel'");
  k->name = text_of(p, name);
  k->name_loc = name->loc;
  p->kernel = k->name;
  p->stmts = 0;
  k->attrs = (Attr **)attrv->items;
  k->nattrs = attrv->len;
  params(p, k);
  block(p, &k->body, "expected '{' after the parameters");
  return k;
}

/* decl = const_decl end | attrs kernel */
static void decl(Parser *p, PtrVec *consts, PtrVec *kernels) {
  Token *first = p->tok;
  PtrVec v = {0};
  attrs(p, &v);
  if (peek(p) == TK_KERNEL) {
    if (++p->nkernels == MAX_KERNELS + 1) /* said once: the rest is parsed and dropped */
      diag_error(p->d, p->tok->loc, "the file has more than %d kernels", MAX_KERNELS);
    Kernel *k = kernel(p, &v);
    if (p->nkernels <= MAX_KERNELS)
      vec_push(p->a, kernels, k);
    p->kernel = NULL;
    return;
  }
  if (peek(p) != TK_CONST)
    syntax_error(p, p->tok, v.len ? "expected 'kernel' after attributes" : "expected 'kernel' or 'const'");
  if (v.len)
    diag_error(p->d, first->loc, "attributes must precede a kernel or a for");
  if (++p->nconsts == MAX_CONSTS + 1)
    diag_error(p->d, p->tok->loc, "the file has more than %d constants", MAX_CONSTS);
  Stmt *s = const_decl(p);
  end_stmt(p);
  if (p->nconsts <= MAX_CONSTS)
    vec_push(p->a, consts, s);
}

/* Recovery at file level: skips to the next `kernel`, `const` or '@'
 * outside braces. */
static void skip_decl(Parser *p) {
  int depth = 0;
  for (;;) {
    TokenKind k = peek(p);
    if (k == TK_EOF || (depth == 0 && (k == TK_KERNEL || k == TK_CONST || k == TK_AT)))
      return;
    if (k == TK_LBRACE)
      depth++;
    else if (k == TK_RBRACE && depth > 0)
      depth--;
    advance(p);
  }
}

static void decl_or_recover(Parser *p, PtrVec *consts, PtrVec *kernels) {
  jmp_buf env;
  Token *before = p->tok;
  p->recover = &env;
  if (setjmp(env) != 0) {
    p->nest = 0;
    p->in_expr = 0;
    p->kernel = NULL;
    skip_decl(p);
    if (p->tok == before)
      advance(p);
  } else {
    decl(p, consts, kernels);
  }
  p->recover = NULL;
}

/* program = { decl | NEWLINE } EOF */
Program *parse(Arena *a, Diag *d, Token *toks, int ntoks) {
  Parser p = {.a = a, .d = d, .tok = toks};
  Program *prog = NEW(a, Program);
  PtrVec consts = {0}, kernels = {0};
  if (ntoks <= 0 || toks[ntoks - 1].kind != TK_EOF)
    die("parse: the token array must end with TK_EOF");
  while (peek(&p) != TK_EOF) {
    if (!accept(&p, TK_NEWLINE))
      decl_or_recover(&p, &consts, &kernels);
  }
  prog->consts = (Stmt **)consts.items;
  prog->nconsts = consts.len;
  prog->kernels = (Kernel **)kernels.items;
  prog->nkernels = kernels.len;
  return prog;
}

/* ---------------------------------------------------------------- .tl text */

void expr_args_text(Buf *b, const Expr *call, int from, ExprOwnFn own, const void *ctx) {
  for (int i = from; i < call->u.call.nargs; i++) {
    buf_puts(b, i == from ? "" : ", ");
    buf_puts(b, i == call->u.call.shape_at ? "[" : "");
    expr_text(b, call->u.call.args[i], false, own, ctx);
  }
  buf_puts(b, call->u.call.shape_at < call->u.call.nargs && from <= call->u.call.shape_at ? "]" : "");
}

void expr_text(Buf *b, const Expr *e, bool nested, ExprOwnFn own, const void *ctx) {
  static const char *const ctx_names[] = {"thread", "threads", "lane", "lanes", "warp", "warps",
                                          "block.x", "block.y", "block.z", "blocks.x", "blocks.y", "blocks.z"};
  if (own && own(ctx, e, b)) return;
  switch (e->kind) {
  case E_INT: buf_printf(b, "%" PRId64, e->u.ival); return;
  case E_FLOAT: buf_puts(b, e->u.ftext ? e->u.ftext : "?"); return;
  case E_BOOL: buf_puts(b, e->u.ival ? "true" : "false"); return;
  case E_IDENT: buf_puts(b, e->u.ident.name); return;
  case E_INF: buf_puts(b, "inf"); return;
  case E_CTX: buf_printf(b, "ctx.%s", ctx_names[e->u.ctx]); return;
  case E_MEMBER: expr_text(b, e->u.member.base, true, own, ctx); buf_printf(b, ".%s", e->u.member.name); return;
  case E_UNARY:
    buf_puts(b, op_text(e->u.unary.op) ? op_text(e->u.unary.op) : "?");
    expr_text(b, e->u.unary.a, true, own, ctx);
    return;
  case E_BINARY:
    buf_puts(b, nested ? "(" : "");
    expr_text(b, e->u.binary.a, true, own, ctx);
    buf_printf(b, " %s ", op_text(e->u.binary.op) ? op_text(e->u.binary.op) : "?");
    expr_text(b, e->u.binary.b, true, own, ctx);
    buf_puts(b, nested ? ")" : "");
    return;
  case E_CALL:
    buf_printf(b, "%s(", e->u.call.name);
    expr_args_text(b, e, 0, own, ctx);
    buf_puts(b, ")");
    return;
  case E_INDEX:
    expr_text(b, e->u.index.base, true, own, ctx);
    buf_puts(b, "[");
    for (int i = 0; i < e->u.index.nidx; i++) {
      buf_puts(b, i ? ", " : "");
      expr_text(b, e->u.index.idx[i].start, false, own, ctx);
      if (e->u.index.idx[i].len) {
        buf_puts(b, " :+ ");
        expr_text(b, e->u.index.idx[i].len, false, own, ctx);
      }
    }
    buf_puts(b, "]");
    return;
  }
}
