/* translate.c: the pipeline, as plain calls.
 *
 *   lex -> parse -> check -> emit
 *
 * emit_program() runs the tile IR's stages (lower -> layout -> sync -> smem, tir.c)
 * for each kernel, and prints it with emit_tir.c; a kernel the IR does not cover
 * yet is printed by emit.c, which asks place.c for its placement and barriers.
 *
 * Each phase
 * reports through the Diag; the pipeline stops after a phase with errors.
 * A source longer than MAX_SOURCE_BYTES is refused here, whoever read it.
 */
#include "t2c.h"

#include <string.h>

int translate(const char *file, const char *src, const TargetConfig *t, const EmitOptions *eo, Buf *out,
              FILE *diag_out, Program **prog_out, Arena *a) {
  Diag d;
  diag_init(&d, file, src, diag_out);
  if (strnlen(src, (size_t)MAX_SOURCE_BYTES + 1) > MAX_SOURCE_BYTES) {
    diag_error(&d, (Loc){0, 0}, "the file is larger than %d MiB", MAX_SOURCE_BYTES >> 20);
    return 1;
  }
  int ntok;
  Token *toks = lex(a, &d, src, &ntok);
  Program *p = parse(a, &d, toks, ntok);
  if (prog_out) *prog_out = p;
  if (d.errors) return 1;
  if (!check_program(a, &d, p, t)) return 1;
  if (!emit_program(a, &d, p, t, eo, out)) return 1;
  return d.errors ? 1 : 0;
}

