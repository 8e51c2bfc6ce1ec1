/* host.c: host launchers, `tile2cu --host` (and `--header FILE.h`).
 *
 * For each kernel, `cudaError_t tile2cu_launch_NAME(params..., sizes...,
 * strides..., cudaStream_t stream)` (strides: the long long X_strideD of each
 * @strided tensor, in elements) checks every size >= 1 and every @assume, computes
 * the grid from @grid (an integer division or cdiv whose divisor the values make 0,
 * or below 1 for cdiv, is cudaErrorInvalidValue rather than SIGFPE, as tile2cu run
 * and t2c_launch refuse it), raises cudaFuncAttributeMaxDynamicSharedMemorySize
 * when the kernel's shared memory is dynamic, builds the TMA tensor maps of
 * a kernel that takes them (with the kernel's NAME_tensor_maps, emitted next
 * to it), and launches with <<<>>>.
 * The decisions (the C of @grid and @assume, which checks, the dynamic
 * bytes) are made here; the text lives in templates/host_*.tmpl:
 *
 *   host_prelude   once per file: the cdiv/min/max helpers @grid uses
 *   host_launcher  {{name}} {{params}} {{checks}} {{gx}} {{gy}} {{gz}}
 *                  {{smem}} {{maps}} {{maps_doc}} {{threads}} {{dynamic}} {{args}}
 *                  {{bad_decl}} {{bad_test}}: t2c_bad, when a division needs it
 *   host_smem      {{name}}: raising the dynamic shared memory limit
 *   host_header    {{version}} {{file}} {{guard}} {{includes}} {{decls}}
 */
#include "t2c.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "templates.h"

/* A divisor known to be positive: a literal or a file-level const (a constant cdiv
 * divisor below 1 is an error of the translation). */
static bool host_const_positive(const Expr *e) {
  const Sym *y = e->kind == E_IDENT ? e->u.ident.sym : NULL;
  return (e->kind == E_INT && e->u.ival > 0) || (y && y->kind == SY_CONST && !y->const_float && y->ival > 0);
}

/* A launch expression (@grid, @assume) as host C over the launcher's
 * parameters. Integer +, - and * are done in long long; an integer division
 * by a scalar or size goes through a helper that sets the launcher's t2c_bad
 * when the divisor is 0 (below 1 for cdiv), where the host would take SIGFPE. */
static void host_expr(Buf *b, const Expr *e) {
  switch (e->kind) {
  case E_INT: buf_printf(b, "%" PRId64, e->u.ival); return;
  case E_FLOAT: buf_printf(b, "%.17g", e->u.fval); return;
  case E_BOOL: buf_puts(b, e->u.ival ? "1" : "0"); return;
  case E_IDENT: {
    const Sym *y = e->u.ident.sym;
    if (y && y->kind == SY_CONST && y->const_float) buf_printf(b, "%.17g", y->fval);
    else if (y && y->kind == SY_CONST) buf_printf(b, "%" PRId64 "LL", y->ival);
    else buf_puts(b, y && y->cname ? y->cname : e->u.ident.name);
    return;
  }
  case E_UNARY:
    buf_puts(b, e->u.unary.op == TK_MINUS ? "(-" : e->u.unary.op == TK_NOT ? "(!" : "(~");
    host_expr(b, e->u.unary.a);
    buf_puts(b, ")");
    return;
  case E_BINARY: {
    TokenKind op = e->u.binary.op;
    if (elem_is_int(e->ty.elem) && (op == TK_SLASH || op == TK_PERCENT) && !host_const_positive(e->u.binary.b)) {
      buf_printf(b, "t2c_host_%s(", op == TK_SLASH ? "div" : "mod");
      host_expr(b, e->u.binary.a);
      buf_puts(b, ", ");
      host_expr(b, e->u.binary.b);
      buf_puts(b, ", &t2c_bad)");
      return;
    }
    bool wide = elem_is_int(e->ty.elem) && (op == TK_PLUS || op == TK_MINUS || op == TK_STAR || op == TK_SHL);
    buf_puts(b, wide ? "((long long)" : "(");
    host_expr(b, e->u.binary.a);
    buf_printf(b, " %s ", op_text(op) ? op_text(op) : "?");
    host_expr(b, e->u.binary.b);
    buf_puts(b, ")");
    return;
  }
  case E_CALL:
    if (e->u.call.cast != T_NONE) buf_printf(b, "((%s)", elem_ctypes[e->u.call.cast]);
    else buf_printf(b, "t2c_host_%s(", e->u.call.builtin == B_CDIV ? "cdiv" : e->u.call.builtin == B_MIN ? "min" : "max");
    for (int i = 0; i < e->u.call.nargs; i++) {
      if (i) buf_puts(b, ", ");
      host_expr(b, e->u.call.args[i]);
    }
    buf_puts(b, e->u.call.cast == T_NONE && e->u.call.builtin == B_CDIV && !host_const_positive(e->u.call.args[1])
                    ? ", &t2c_bad)" : ")");
    return;
  default: buf_puts(b, "0"); return;
  }
}

static const char *host_str(Arena *a, Buf *b) {
  const char *s = arena_strndup(a, b->data ? b->data : "", b->len);
  buf_free(b);
  return s;
}

/* "const float *X, float *O, int K, cudaStream_t stream" (or the call's arguments). */
static const char *host_params(Arena *a, const KernelInfo *ki, bool call) {
  Buf b = {0};
  for (int i = 0; i < ki->nparams; i++) {
    const Sym *p = ki->params[i];
    if (call) buf_printf(&b, "%s%s", i ? ", " : "", p->cname);
    else if (p->kind == SY_SCALAR) buf_printf(&b, "%s%s %s", i ? ", " : "", elem_ctypes[p->ty.elem], p->cname);
    else buf_printf(&b, "%s%s%s *%s", i ? ", " : "", p->written ? "" : "const ", elem_ctypes[p->ty.elem], p->cname);
  }
  for (int i = 0; i < ki->nsizes; i++)
    buf_printf(&b, "%s%s%s", ki->nparams || i ? ", " : "", call ? "" : "int ", ki->sizes[i]->cname);
  for (int i = 0; i < ki->nstrides; i++)
    buf_printf(&b, "%s%s%s", ki->nparams || ki->nsizes || i ? ", " : "", call ? "" : "long long ", ki->strides[i]->cname);
  if (!call) buf_printf(&b, "%scudaStream_t stream", ki->nparams || ki->nsizes || ki->nstrides ? ", " : "");
  return host_str(a, &b);
}

static const char *host_checks(Arena *a, const KernelInfo *ki, const char *file) {
  Buf b = {0};
  for (int i = 0; i < ki->nsizes; i++)
    buf_printf(&b, "  if (%s < 1) return cudaErrorInvalidValue;\n", ki->sizes[i]->cname);
  for (int i = 0; i < ki->nassumes; i++) {
    Buf c = {0};
    host_expr(&c, ki->assumes[i].e);
    /* a condition that divides by zero is false, as tile2cu run and t2c_launch take it */
    buf_printf(&b, "  if (!%s%s) return cudaErrorInvalidValue; // @assume, %s:%d\n", c.data,
               strstr(c.data, "&t2c_bad") ? " || t2c_bad" : "", file, ki->assumes[i].e->loc.line);
    buf_free(&c);
  }
  return host_str(a, &b);
}

static const char *host_grid(Arena *a, const KernelInfo *ki, int d) {
  if (!ki->grid[d]) return "1";
  Buf b = {0};
  host_expr(&b, ki->grid[d]);
  return host_str(a, &b);
}

static void host_kernel(Arena *a, const Kernel *k, const char *file, Buf *cu, Buf *decls) {
  const KernelInfo *ki = k->info;
  const char *params = host_params(a, ki, false);
  Buf smem = {0};
  if (ki->dynamic_smem) {
    const char *kv[] = {"name", k->name, NULL};
    emit_expand(&smem, tmpl_host_smem, kv);
  }
  /* the tensor maps of a kernel that TMA feeds: built by its NAME_tensor_maps (emit_tir.c) */
  const char *maps = "", *maps_doc = "", *args = host_params(a, ki, true);
  if (ki->ntmaps) {
    maps = arena_printf(a, "  t2c::TensorMap t2c_maps[%d];\n  if (%s_tensor_maps(t2c_maps, %s, nullptr, 0) != 0) return cudaErrorNotSupported;\n",
                        ki->ntmaps, k->name, args);
    maps_doc = ", and cudaErrorNotSupported when\n// its TMA tensor maps cannot be built (no libcuda.so.1, or cuTensorMapEncodeTiled failed)";
    for (int i = 0; i < ki->ntmaps; i++) args = arena_printf(a, "%s, t2c_maps[%d]", args, i);
  }
  const char *checks = host_checks(a, ki, file), *gx = host_grid(a, ki, 0), *gy = host_grid(a, ki, 1),
             *gz = host_grid(a, ki, 2);
  /* the flag of the division helpers, where an expression divides by a scalar or size */
  bool bad = strstr(checks, "&t2c_bad") || strstr(gx, "&t2c_bad") || strstr(gy, "&t2c_bad") || strstr(gz, "&t2c_bad");
  const char *kv[] = {"name", k->name, "params", params, "checks", checks, "maps", maps, "maps_doc", maps_doc,
                      "gx", gx, "gy", gy, "gz", gz,
                      "bad_decl", bad ? "  bool t2c_bad = false; // set by a division by zero in @assume or @grid\n" : "",
                      "bad_test", bad ? "t2c_bad || " : "",
                      "smem", host_str(a, &smem), "threads", arena_printf(a, "%d", ki->threads),
                      "dynamic", ki->dynamic_smem ? arena_printf(a, "TILE2CU_DYNAMIC_SMEM_%s", k->name) : "0",
                      "args", args, NULL};
  emit_expand(cu, tmpl_host_launcher, kv);
  buf_printf(decls, "cudaError_t tile2cu_launch_%s(%s);\n", k->name, params);
}

/* A CUDA type for C as a struct of its bits, once in a translation unit. */
static void host_c_type(Buf *b, const char *macro, const char *bits, const char *name) {
  buf_printf(b, "#ifndef TILE2CU_C_%s_\n#define TILE2CU_C_%s_\ntypedef struct { %s x; } %s;\n#endif\n", macro, macro, bits,
             name);
}

void host_emit(Arena *a, Program *p, const EmitOptions *o, Buf *cu, Buf *header) {
  const char *file = emit_file_name(a, o->file, false);
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  Buf decls = {0}, guard = {0};
  bool f16 = false, bf16 = false, f8 = false, b1 = false;
  emit_expand(cu, tmpl_host_prelude, (const char *const[]){NULL});
  for (int i = 0; i < p->nkernels; i++) {
    const KernelInfo *ki = p->kernels[i]->info;
    for (int j = 0; j < ki->nparams; j++) {
      f16 |= ki->params[j]->ty.elem == T_F16;
      bf16 |= ki->params[j]->ty.elem == T_BF16;
      f8 |= elem_is_f8(ki->params[j]->ty.elem);
      b1 |= ki->params[j]->ty.elem == T_BOOL;
    }
    host_kernel(a, p->kernels[i], base, cu, &decls);
  }
  if (!header) {
    buf_free(&decls);
    return;
  }
  /* The guard is the file's base name and its first kernel's name: two .tl files of
   * one name in different directories (f32/scale.tl, f16/scale.tl) get guards of
   * their own, and the kernel names, extern "C", are unique in a program that
   * includes both headers. */
  buf_puts(&guard, "TILE2CU_HOST_");
  for (const char *s = base; *s; s++) buf_printf(&guard, "%c", isalnum((unsigned char)*s) ? toupper((unsigned char)*s) : '_');
  if (p->nkernels) buf_printf(&guard, "_%s", p->kernels[0]->name);
  buf_puts(&guard, "_H");
  /* cuda_fp8.h includes the other two; they define the types for C++ only: C gets
   * structs of their bits (the launchers take pointers to them, or them by value),
   * each under a guard of its own, since C cannot define a struct type twice and
   * a C file may include the headers of several .tl files */
  Buf inc = {0};
  if (f16 || bf16 || f8 || b1) {
    buf_puts(&inc, "#ifdef __cplusplus\n");
    buf_puts(&inc, f8 ? "#include <cuda_fp8.h>\n"
                   : f16 && bf16 ? "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
                   : f16 ? "#include <cuda_fp16.h>\n"
                   : bf16 ? "#include <cuda_bf16.h>\n" : "");
    buf_puts(&inc, "#else /* C: the types' bits */\n");
    if (b1) buf_puts(&inc, "#include <stdbool.h>\n");
    if (f16 || f8) host_c_type(&inc, "HALF", "unsigned short", "__half");
    if (bf16 || f8) host_c_type(&inc, "BFLOAT16", "unsigned short", "__nv_bfloat16");
    if (f8) {
      host_c_type(&inc, "FP8_E4M3", "unsigned char", "__nv_fp8_e4m3");
      host_c_type(&inc, "FP8_E5M2", "unsigned char", "__nv_fp8_e5m2");
    }
    buf_puts(&inc, "#endif\n");
  }
  const char *includes = host_str(a, &inc);
  const char *kv[] = {"version", TILE2CU_VERSION, "file", base, "guard", host_str(a, &guard),
                      "includes", includes, "decls", host_str(a, &decls), NULL};
  emit_expand(header, tmpl_host_header, kv);
}
