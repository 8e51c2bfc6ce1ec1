/* tables.c: name tables generated from the .def X-macros, and their lookups.
 *
 * Every enum in t2c.h that comes from a .def file gets its strings and
 * properties here, from the same X-macro, so the tables cannot drift apart.
 */
#include "t2c.h"

#include <string.h>

const char *const token_names[TK_COUNT] = {
#define X(k, s) [k] = s,
#include "tokens.def"
#undef X
};

/* ---- element types */

const char *const elem_names[T_COUNT] = {
#define X(k, n, c, b) [k] = n,
#include "types.def"
#undef X
};

const char *const elem_ctypes[T_COUNT] = {
#define X(k, n, c, b) [k] = c,
#include "types.def"
#undef X
};

const int elem_bytes[T_COUNT] = {
#define X(k, n, c, b) [k] = b,
#include "types.def"
#undef X
};

bool elem_is_float(ElemType t) {
  return t == T_F32 || t == T_F16 || t == T_BF16 || t == T_F64 || elem_is_f8(t);
}

bool elem_is_f8(ElemType t) { return t == T_F8E4M3 || t == T_F8E5M2; }

bool elem_is_int(ElemType t) {
  return t == T_I8 || t == T_U8 || t == T_I32 || t == T_U32 || t == T_I64;
}

bool elem_int_range(ElemType t, int64_t *lo, uint64_t *hi) {
  switch (t) {
  case T_I8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
  case T_U8: *lo = 0, *hi = UINT8_MAX; return true;
  case T_I32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
  case T_U32: *lo = 0, *hi = UINT32_MAX; return true;
  case T_I64: *lo = INT64_MIN, *hi = INT64_MAX; return true;
  default: return false;
  }
}

int elem_lookup(const char *name, int len) {
  for (int i = 0; i < T_COUNT; i++)
    if ((int)strlen(elem_names[i]) == len && memcmp(elem_names[i], name, (size_t)len) == 0)
      return i;
  return -1;
}

/* ---- built-in functions */

const char *const builtin_names[B_COUNT] = {
#define X(k, n, a, c) [k] = n,
#include "builtins.def"
#undef X
};

const int builtin_nargs[B_COUNT] = {
#define X(k, n, a, c) [k] = a,
#include "builtins.def"
#undef X
};

const BuiltinClass builtin_class[B_COUNT] = {
#define X(k, n, a, c) [k] = c,
#include "builtins.def"
#undef X
};

int builtin_lookup(const char *name) {
  for (int i = 0; i < B_COUNT; i++)
    if (strcmp(builtin_names[i], name) == 0)
      return i;
  return -1;
}

/* ---- attributes */

const char *const attr_names[A_COUNT] = {
#define X(k, n, w) [k] = n,
#include "attrs.def"
#undef X
};

const AttrWhere attr_where[A_COUNT] = {
#define X(k, n, w) [k] = w,
#include "attrs.def"
#undef X
};

/* The C (and .tl) text of an operator or assignment token; NULL for any other token. */
const char *op_text(TokenKind k) {
  switch (k) {
  case TK_OROR: return "||"; case TK_ANDAND: return "&&"; case TK_EQ: return "==";
  case TK_NE: return "!="; case TK_LT: return "<"; case TK_LE: return "<=";
  case TK_GT: return ">"; case TK_GE: return ">="; case TK_OR: return "|";
  case TK_XOR: return "^"; case TK_AND: return "&"; case TK_SHL: return "<<";
  case TK_SHR: return ">>"; case TK_PLUS: return "+"; case TK_MINUS: return "-";
  case TK_STAR: return "*"; case TK_SLASH: return "/"; case TK_PERCENT: return "%";
  case TK_ASSIGN: return "="; case TK_ADD_ASSIGN: return "+="; case TK_SUB_ASSIGN: return "-=";
  case TK_MUL_ASSIGN: return "*="; case TK_DIV_ASSIGN: return "/=";
  case TK_NOT: return "!"; case TK_TILDE: return "~";
  default: return NULL;
  }
}

/* ---- warnings */

const char *const warn_names[W_COUNT] = {
#define X(k, n, w) [k] = n,
#include "warnings.def"
#undef X
};

const char *const warn_whats[W_COUNT] = {
#define X(k, n, w) [k] = w,
#include "warnings.def"
#undef X
};

int warn_lookup(const char *name) {
  for (int i = 0; i < W_COUNT; i++)
    if (strcmp(warn_names[i], name) == 0)
      return i;
  return -1;
}
