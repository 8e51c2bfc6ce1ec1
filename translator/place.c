/* place.c: where barriers go, and where shared tiles sit.
 *
 * Barriers. For every shared buffer the state records how it was accessed since
 * the last barrier: read or written, and under which mapping of elements to
 * threads (MAP_SPREAD: thread tid touches only elements tid, tid + threads, ...,
 * the same spread in every aligned access; MAP_THREAD0: thread 0 only; MAP_ANY).
 * A step conflicts with the state when a thread could read or overwrite an
 * element another thread wrote or read since the last barrier: a write meets
 * any earlier access, or a read meets an earlier write, and the two are not
 * under the same mapping (MAP_ANY is never the same as anything).
 *
 * A conflicting step gets one __syncthreads() before it, which clears the state.
 * Joins (after an if, around a loop) take the union, so a barrier is placed
 * whenever some path needs it; loops are carried to a fixpoint by emit.c.
 *
 * Layout. Shared buffers live for the whole kernel; their sum, plus the extra
 * @pipeline stages, must fit the target's per-block limit. Above the static
 * limit they move into one dynamic buffer at 16-byte aligned offsets.
 */
#include "t2c.h"

#include <inttypes.h>
#include <string.h>

#define WRITES (AC_BIT(MAP_ANY, 1) | AC_BIT(MAP_SPREAD, 1) | AC_BIT(MAP_THREAD0, 1))
#define READS (AC_BIT(MAP_ANY, 0) | AC_BIT(MAP_SPREAD, 0) | AC_BIT(MAP_THREAD0, 0))

static uint8_t flag_of(const Access *a) { return (uint8_t)AC_BIT(a->map, a->write); }

/* The earlier accesses a new one conflicts with. */
static uint8_t conflicts_with(const Access *a) {
  uint8_t m = a->write ? (WRITES | READS) : WRITES;
  if (a->map != MAP_ANY) m &= (uint8_t)~(AC_BIT(a->map, 0) | AC_BIT(a->map, 1));
  return m;
}

static const char *reason(Emitter *E, const Access *a, uint8_t prior) {
  const Buffer *b = &E->bufs[a->buf];
  bool prior_w = prior & WRITES;
  int ln = prior_w ? E->st.wline[a->buf] : E->st.rline[a->buf];
  return arena_printf(E->a, "%s: %s at line %d, %s here by other threads", b->cname,
                      prior_w ? "written" : "read", ln, a->write ? "overwritten" : "read");
}

void place_barrier(Emitter *E, Buf *out, const char *why) {
  for (int i = 0; i < E->indent; i++) buf_puts(out, "  ");
  buf_printf(out, "__syncthreads();  // %s\n", why);
  memset(E->st.acc, 0, sizeof E->st.acc);
  E->barriers_seen++;
  if (E->dry) return;
  E->nbarriers++;
  if (E->o->explain && E->o->explain_out)
    fprintf(E->o->explain_out, "%s:%d: barrier: %s\n", E->o->file, E->line, why);
}

void place_overflow(Emitter *E, Step *s) { s->overflow = true; }

void place_step(Emitter *E, const Step *s, Buf *out) {
  const char *why = NULL;
  if (s->overflow) why = "this statement touches too many tiles to track";
  for (int i = 0; i < s->nacc && !why; i++) {
    const Access *a = &s->acc[i];
    uint8_t prior = E->st.acc[a->buf] & conflicts_with(a);
    /* Stores of one statement to a tensor (a loop's iterations) are not ordered
     * against each other: only reads of a written tensor are. */
    if (E->bufs[a->buf].global && a->write && !(prior & READS) && E->st.wsite[a->buf] == a->site) prior = 0;
    if (prior) why = reason(E, a, prior);
  }
  /* Under thread-dependent control a barrier would diverge: emit.c places one
   * before the region instead, when the region needs it. */
  if (why && E->td_ctl) E->td_conflict = true;
  else if (why) place_barrier(E, out, why);
  for (int i = 0; i < s->nacc; i++) {
    const Access *a = &s->acc[i];
    if (a->write) {
      bool had = E->st.acc[a->buf] & WRITES;
      E->st.wsite[a->buf] = !had || E->st.wsite[a->buf] == a->site ? a->site : SITE_MANY;
    }
    E->st.acc[a->buf] |= flag_of(a);
    if (a->write) E->st.wline[a->buf] = E->line;
    else E->st.rline[a->buf] = E->line;
  }
}

State place_join(const State *a, const State *b) {
  State r = *a;
  for (int i = 0; i < MAX_BUFS; i++) {
    r.acc[i] = a->acc[i] | b->acc[i];
    if ((b->acc[i] & WRITES) && b->wline[i] > r.wline[i]) r.wline[i] = b->wline[i];
    if ((a->acc[i] & WRITES) && (b->acc[i] & WRITES) && a->wsite[i] != b->wsite[i]) r.wsite[i] = SITE_MANY;
    else if (!(a->acc[i] & WRITES)) r.wsite[i] = b->wsite[i];
    if ((b->acc[i] & READS) && b->rline[i] > r.rline[i]) r.rline[i] = b->rline[i];
  }
  for (int i = 0; i < MAX_REGS; i++) {
    r.valid[i] = a->valid[i] && b->valid[i];
    r.live[i] = a->live[i] && b->live[i];
  }
  return r;
}

bool place_same(const State *a, const State *b) {
  for (int i = 0; i < MAX_BUFS; i++)
    if ((a->acc[i] & WRITES) && a->wsite[i] != b->wsite[i]) return false;
  return memcmp(a->acc, b->acc, sizeof a->acc) == 0 && memcmp(a->valid, b->valid, sizeof a->valid) == 0 &&
         memcmp(a->live, b->live, sizeof a->live) == 0;
}

int64_t place_shared_bytes(const Emitter *E) {
  int64_t n = 0;
  for (int i = 0; i < E->nbufs; i++) {
    if (E->bufs[i].global) continue;
    n = (n + 15) / 16 * 16 + E->bufs[i].bytes;
  }
  return n + E->pipeline_extra;
}

bool place_dynamic(const Emitter *E) { return place_shared_bytes(E) > E->t->smem_static; }

static void assign_offsets(Emitter *E) {
  int64_t off = 0;
  for (int i = 0; i < E->nbufs; i++) {
    Buffer *b = &E->bufs[i];
    if (b->global) continue;
    off = (off + 15) / 16 * 16;
    b->offset = off;
    off += b->bytes;
  }
}

void place_kernel_info(Emitter *E) {
  KernelInfo *ki = E->ki;
  assign_offsets(E);
  ki->shared = NEW_ARRAY(E->a, SharedTile, E->nbufs + 1);
  ki->nshared = 0;
  for (int i = 0; i < E->nbufs; i++) {
    const Buffer *b = &E->bufs[i];
    if (!b->global)
      ki->shared[ki->nshared++] = (SharedTile){b->cname, b->what, b->elem, b->rank, {b->dims[0], b->dims[1]},
                                               b->bytes, b->offset};
  }
  ki->shared_bytes = place_shared_bytes(E);
  ki->dynamic_smem = place_dynamic(E);
  ki->pipeline_bytes = E->pipeline_extra;
}

bool place_layout(Emitter *E) {
  assign_offsets(E);
  int64_t total = place_shared_bytes(E);
  if (total <= E->t->smem_per_block) {
    if (E->o->explain && E->o->explain_out)
      fprintf(E->o->explain_out, "%s: kernel %s: %" PRId64 " bytes of shared memory (%s; %s allows %d per block)\n",
              E->o->file, E->k->name, total, total > E->t->smem_static ? "dynamic" : "static", E->t->name,
              E->t->smem_per_block);
    return true;
  }
  diag_error(E->d, E->k->name_loc, "kernel '%s' needs %" PRId64 " bytes of shared memory; %s allows %d per block",
             E->k->name, total, E->t->name, E->t->smem_per_block);
  for (int i = 0; i < E->nbufs; i++) {
    Buffer *b = &E->bufs[i];
    if (b->global) continue;
    if (b->stages > 1)
      diag_note(E->d, (Loc){0, 0}, "%s: %" PRId64 " bytes (%s, %d stages for @pipeline; fewer stages would fit)",
                b->cname, b->bytes, b->what, b->stages);
    else
      diag_note(E->d, (Loc){0, 0}, "%s: %" PRId64 " bytes (%s)", b->cname, b->bytes, b->what);
  }
  if (E->pipeline_extra)
    diag_note(E->d, (Loc){0, 0}, "@pipeline: %s; fewer stages would fit", E->pipeline_what);
  if (E->ki->regs.len == 0)
    diag_note(E->d, (Loc){0, 0}, "@registers on an accumulator frees its shared memory");
  return false;
}

/* From KernelInfo, filled before the body is emitted: a tile's bytes are its
 * buffer's (padded rows, every stage of an @pipeline ring), as in the header. */
void place_explain_tiles(Emitter *E) {
  if (!E->o->explain || !E->o->explain_out) return;
  FILE *f = E->o->explain_out;
  KernelInfo *ki = E->ki;
  for (int i = 0; i < ki->tiles.len; i++) {
    Sym *t = ki->tiles.items[i];
    int64_t n = type_numel(&t->ty);
    const SharedTile *st = NULL;
    for (int j = 0; j < ki->nshared && !st; j++)
      if (strcmp(ki->shared[j].name, t->cname) == 0) st = &ki->shared[j];
    if (t->place == PL_REGISTER)
      fprintf(f, "%s:%d: %s: registers, %d elements per thread (%" PRId64 " elements over %d threads), named in @registers\n",
              E->o->file, t->loc.line, t->name, t->per_thread, n, ki->threads);
    else if (st && t->pipe_stages > 1)
      fprintf(f, "%s:%d: %s: shared, %" PRId64 " bytes, a ring of %d stages of %" PRId64 " bytes for @pipeline(%d): "
              "a named tile lives in shared memory unless @registers names it\n",
              E->o->file, t->loc.line, t->name, st->bytes, t->pipe_stages, st->bytes / t->pipe_stages, t->pipe_stages);
    else
      fprintf(f, "%s:%d: %s: shared, %" PRId64 " bytes: a named tile lives in shared memory unless @registers names it\n",
              E->o->file, t->loc.line, t->name, st ? st->bytes : n * elem_bytes[t->ty.elem]);
  }
  if (ki->pipeline_bytes)
    fprintf(f, "%s: kernel %s: %" PRId64 " bytes of shared memory reserved for @pipeline: %s\n", E->o->file, E->k->name,
            ki->pipeline_bytes, E->pipeline_what);
}
