/* arena.c: memory for one translation.
 *
 * An Arena is a list of large zeroed chunks; arena_alloc bumps a pointer in the
 * newest chunk and starts a new one when it is full. Nothing is freed singly;
 * arena_free releases every chunk at once. PtrVec grows inside the arena (the
 * old storage is simply abandoned). Buf is the one malloc-backed growable
 * string, used for output text that outlives no arena. Out-of-memory is an
 * internal failure and goes through die().
 */
#include "t2c.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (64 * 1024)
#define ALIGN 16

struct ArenaBlock {
  ArenaBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

static size_t align_up(size_t n) {
  return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

static ArenaBlock *new_block(size_t min) {
  size_t cap = min > CHUNK_SIZE ? min : CHUNK_SIZE;
  ArenaBlock *b = calloc(1, sizeof(ArenaBlock) + cap);
  if (!b)
    die("out of memory (%zu bytes)", cap);
  b->cap = cap;
  return b;
}

void *arena_alloc(Arena *a, size_t size) {
  size = align_up(size ? size : 1);
  ArenaBlock *b = a->head;
  if (!b || b->cap - b->used < size) {
    b = new_block(size);
    b->next = a->head;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += size;
  return p; /* chunks come from calloc and are never reused: already zero */
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    die("arena_printf: bad format '%s'", fmt);
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

void arena_free(Arena *a) {
  ArenaBlock *b = a->head;
  while (b) {
    ArenaBlock *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
}

bool vec_has(const PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return true;
  return false;
}

void vec_push(Arena *a, PtrVec *v, void *p) {
  if (v->len == v->cap) {
    int cap = v->cap ? v->cap * 2 : 8;
    void **items = NEW_ARRAY(a, void *, cap);
    if (v->len)
      memcpy(items, v->items, sizeof(void *) * (size_t)v->len);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = p;
}

/* ---- Buf */

static void buf_reserve(Buf *b, size_t extra) {
  size_t need = b->len + extra + 1; /* always room for the terminating NUL */
  if (need <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need)
    cap *= 2;
  char *data = realloc(b->data, cap);
  if (!data)
    die("out of memory (%zu bytes)", cap);
  b->data = data;
  b->cap = cap;
}

void buf_putn(Buf *b, const char *s, size_t n) {
  buf_reserve(b, n);
  if (n) /* s may be NULL when n is 0 (an empty Buf's data) */
    memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void buf_puts(Buf *b, const char *s) {
  buf_putn(b, s, strlen(s));
}

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0)
    die("buf_vprintf: bad format '%s'", fmt);
  buf_reserve(b, (size_t)n);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(b, fmt, ap);
  va_end(ap);
}

void buf_free(Buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* ---- internal failures */

_Noreturn void die_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tile2cu: internal error at %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}
