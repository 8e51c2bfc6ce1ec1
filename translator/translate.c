/* translate.c: the pipeline, as plain calls.
 *
 *   lex -> parse -> check -> emit
 *
 * emit.c asks place.c for every placement and barrier decision. Each phase
 * reports through the Diag; the pipeline stops after a phase with errors.
 */
#include "tile2cu.h"

int translate(const char *file, const char *src, const TargetConfig *t, const EmitOptions *eo, Buf *out,
              FILE *diag_out, Program **prog_out, Arena *a) {
  Diag d;
  diag_init(&d, file, src, diag_out);
  int ntok;
  Token *toks = lex(a, &d, src, &ntok);
  Program *p = parse(a, &d, toks, ntok);
  if (prog_out) *prog_out = p;
  if (d.errors) return 1;
  if (!check_program(a, &d, p, t)) return 1;
  if (!emit_program(a, &d, p, t, eo, out)) return 1;
  return d.errors ? 1 : 0;
}

