/* translate.c: the pipeline, as plain calls.
 *
 *   lex -> parse -> (the -D consts) -> check -> emit
 *
 * emit_program() runs the tile IR's stages (lower -> layout -> uniform -> pipeline -> sync -> smem, tir.c)
 * for each kernel, and prints it with emit_tir.c; a kernel the stages cannot
 * lower is an error at the construct they name.
 *
 * The -D and -W options (options.c) are read first. Each phase
 * reports through the Diag, which holds the messages and prints them in source
 * order at the end (diag_hold); the pipeline stops after a phase with errors,
 * and under -Werror fails after emitting when there were warnings.
 * A source longer than MAX_SOURCE_BYTES is refused here, whoever read it.
 */
#include "t2c.h"

#include <string.h>

/* The pipeline into d; *defines: the consts the command line set, once the file is checked. */
static int run_phases(Diag *d, const char *src, const TargetConfig *t, const EmitOptions *eo, Buf *out,
                      Program **prog_out, Arena *a, const char **defines) {
  if (strnlen(src, (size_t)MAX_SOURCE_BYTES + 1) > MAX_SOURCE_BYTES) {
    diag_error(d, (Loc){0, 0}, "the file is larger than %d MiB", MAX_SOURCE_BYTES >> 20);
    return 1;
  }
  Defines defs;
  if (!opts_read(a, d, eo->opts, eo->nopts, &defs)) return 1;
  int ntok;
  Token *toks = lex(a, d, src, &ntok);
  Program *p = parse(a, d, toks, ntok);
  if (prog_out) *prog_out = p;
  if (d->errors) return 1;
  EmitOptions o = *eo;
  if (!opts_define(a, d, p, &defs)) return 1;
  if (p->defines) o.defines = arena_printf(a, "// Consts set on the command line: %s\n", p->defines);
  bool ok = check_program(a, d, p, t) && emit_program(a, d, p, t, &o, out);
  diag_flush(d); /* the pending bounds warnings: under -Werror, errors */
  *defines = p->defines;
  return ok && !d->errors && !d->warning_errors ? 0 : 1;
}

int translate(const char *file, const char *src, const TargetConfig *t, const EmitOptions *eo, Buf *out,
              FILE *diag_out, Program **prog_out, Arena *a) {
  Diag d;
  diag_init(&d, file, src, diag_out);
  diag_hold(&d); /* printed in source order, whichever phase found them */
  const char *defines = NULL;
  int st = run_phases(&d, src, t, eo, out, prog_out, a, &defines);
  diag_release(&d);
  if (d.errors && defines) /* the values the errors saw are not the file's */
    diag_note(&d, (Loc){0, 0}, "the consts set on the command line: %s", defines);
  return st;
}
