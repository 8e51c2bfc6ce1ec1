/* emit.c: the emit stage's entry, and what the printed file shares.
 *
 * emit_program runs every kernel of a checked program through the tile IR's
 * stages (tir_build: lower -> layout -> pipeline -> sync -> smem) and hands
 * the result to the printer (emit_tir.c), which decides nothing; a kernel the
 * stages refuse is an error at the construct they name. This file also has
 * the file header, literals, the per-statement comments, the kernel's
 * parameter list and the CPU backend's trampoline arguments, which the
 * printer and the host launchers (host.c) use.
 */
#include "t2c.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "templates.h"

static const char *ctype(ElemType t) { return elem_ctypes[t]; }

/* A literal of type t. */
const char *emit_literal(Arena *a, ElemType t, bool isf, int64_t iv, double fv) {
  double v = isf ? fv : (double)iv;
  if (elem_is_float(t)) {
    const char *s;
    if (isinf(v)) s = arena_printf(a, "%st2c::inf<%s>()", v < 0 ? "-" : "", t == T_F64 ? "double" : "float");
    else if (isnan(v)) s = arena_printf(a, "t2c::nan<%s>()", t == T_F64 ? "double" : "float");
    else {
      char num[64];
      snprintf(num, sizeof num, t == T_F64 ? "%.17g" : "%.9g", v);
      if (!strpbrk(num, ".en")) strcat(num, ".0");
      s = t == T_F64 ? arena_printf(a, "%s", num) : arena_printf(a, "%sf", num);
    }
    if (t == T_F16 || t == T_BF16 || elem_is_f8(t)) return arena_printf(a, "t2c::cvt<%s>(%s)", ctype(t), s);
    return s;
  }
  int64_t n = isf ? (int64_t)fv : iv;
  switch (t) {
  case T_BOOL: return n ? "true" : "false";
  case T_I64:
    if (n == INT64_MIN) return "(-9223372036854775807LL - 1)";
    return arena_printf(a, "%" PRId64 "LL", n);
  case T_U32: return arena_printf(a, "%" PRId64 "u", n);
  case T_I8: case T_U8: return arena_printf(a, "(%s)%" PRId64, ctype(t), n);
  default:
    if (n == INT32_MIN) return "(-2147483647 - 1)";
    return arena_printf(a, "%" PRId64, n);
  }
}

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

bool emit_program(Arena *a, Diag *d, Program *p, const TargetConfig *t, const EmitOptions *opts, Buf *out) {
  /* the path appears in comments and #line: no byte of it may end a line there */
  EmitOptions *o = NEW(a, EmitOptions);
  *o = *opts;
  o->file = emit_file_name(a, opts->file, false);
  const char *line_file = emit_file_name(a, opts->file, true);
  int before = d->errors;
  const char *runtime = o->standalone ? embedded_rt_cuh : "#include <tile2cu/rt.cuh>\n";
  const char *kv[] = {"version", TILE2CU_VERSION, "file", o->file, "target", t->name,
                      "sim", o->sim ? "#define TILE2CU_SIM 1\n" : "", "runtime", runtime,
                      "defines", o->defines ? o->defines : "", NULL};
  emit_expand(out, tmpl_file_header, kv);
  for (int i = 0; i < p->nkernels; i++) {
    Kernel *k = p->kernels[i];
    const char *why = NULL;
    Loc at = {0, 0};
    /* tile2cu run: only the kernel it runs is lowered, so that another kernel of the file
     * that this target cannot hold (its shared memory, say) does not stop it */
    if (o->only && strcmp(k->name, o->only) != 0) continue;
    int errs = d->errors;
    TirKernel *K = tir_build(a, d, k, t, o->dump_tir ? o->dump_after : NULL, &why, &at);
    if (d->errors > errs) continue;
    if (!K) {
      diag_error(d, at.line ? at : k->name_loc, "tile2cu cannot lower kernel '%s': %s", k->name, why ? why : "?");
      continue;
    }
    if (o->dump_tir) {
      tir_dump(K, o->explain_out);
      continue;
    }
    if (o->explain) emit_tir_explain(K, o->explain_out);
    emit_tir_kernel(K, o, line_file, out);
  }
  return d->errors == before;
}
