// runtime.cpp: the CPU backend's scheduler. Runs CUDA kernels as fibers.
//
// A launch runs the grid `schedules` times. Each run hands the blocks, in an
// order given by the schedule, to one or two worker threads. A worker runs a
// block to completion before taking the next: every CUDA thread of the block
// is a fiber with its own stack, and the worker's scheduler loop resumes them
// in rounds.
//
//   round:   resume each ready fiber until it blocks (at __syncthreads or a
//            warp collective) or exits.
//   resolve: complete every warp collective whose lanes have all arrived;
//            if none completes and every live fiber waits at the barrier,
//            release the barrier. Whatever is left is divergence.
//
// The ready fibers of each round are ordered by the schedule: in order,
// reversed, or a random permutation seeded from the schedule and the block.
// In order and reversed also stagger the warpgroups of a block of more than
// 128 threads: a round runs one warpgroup's ready fibers only.
// Because a fiber runs until it blocks, the loop cannot deadlock: when no
// fiber is ready and nothing can complete, the state is reported.
//
// Errors (an out-of-bounds index, divergence, a race) are recorded once per
// launch, stop every worker, and come back to the caller as one line of text.
//
// Races on tensors are found by a shadow of each writable tensor (see
// "races" below): every access to it is stamped with its block, thread and
// the block's barrier epoch, the number of __syncthreads() the block has
// passed. Two threads of a block in one epoch, or two blocks, conflict.
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tile2cu_sim.h"

#if !defined(__x86_64__) || defined(T2C_SIM_UCONTEXT)
#define T2C_USE_UCONTEXT 1
#include <ucontext.h>
#endif

// Under AddressSanitizer every switch between stacks is announced, so that
// ASan knows which stack is live (no false reports, and use-after-return
// detection keeps working), and a fiber stack is unpoisoned before reuse.
#if defined(__SANITIZE_ADDRESS__)
#define T2C_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T2C_ASAN 1
#endif
#endif
#ifdef T2C_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace t2c_sim {

enum {
  STACK_BYTES = 256 << 10,    // per thread, including the guard page
  STATIC_SMEM_MAX = 48 << 10, // CUDA's limit on static shared memory
  SMEM_MAX = 227 << 10,       // static + dynamic per block (sm_90)
  CANARY = 64,                // bytes checked after dynamic shared memory
  MAX_BLOCKS = 1 << 24,
};

enum FiberState { F_READY, F_BARRIER, F_WARP, F_EXITED, F_FAILED,
                  F_WG,     // at a warpgroup collective (wgmma)
                  F_MBAR,   // at mbarrier.try_wait.parity whose phase has not completed
                  F_NBAR }; // at bar.sync of a named barrier that has not completed

// One cp.async in flight: the source bytes are read when it is issued, the
// destination is written when a wait completes its group.
struct CpAsync {
  unsigned char *dst;
  unsigned char data[16];
  int size;
  int group;  // -1 until committed
};

// One TMA store in flight (cp.async.bulk.tensor shared -> global): the
// shared chunks it reads, which must not change until a
// cp.async.bulk.wait_group(.read) completes its group.
struct BulkChunk {
  const unsigned char *p;
  unsigned char b[16];
};
struct BulkStore {
  int group;  // -1 until committed
  std::vector<BulkChunk> chunks;
};

struct Fiber {
#ifdef T2C_USE_UCONTEXT
  ucontext_t ctx;
#else
  void *sp;             // saved stack pointer while switched out
#endif
  char *map;            // stack mapping; the lowest page is the guard
  unsigned tid;
  int state;            // FiberState
  const char *what;     // the operation it waits at, for messages
  const char *file;
  int line;
  int op, size, b, width;  // the warp collective it waits at
  unsigned mask;
  uint64_t val, result;
  const void *xin;      // operands and results of a tensor-core collective
  void *xout;
  unsigned shared_next; // index of its next static shared allocation
  std::vector<CpAsync> cp;  // its cp.async copies not yet waited for
  int cp_groups;        // cp.async groups committed so far
  std::vector<BulkStore> bulk;  // its TMA stores not yet waited for
  int bulk_groups;      // cp.async.bulk groups committed so far
#ifdef T2C_ASAN
  void *asan_fake;      // ASan's fake stack of the fiber while switched out
#endif
};

struct SharedAlloc {
  size_t off, bytes;
  const char *name;
};

// The race detector's state of one element: who wrote it last and up to two
// of its readers, as stamps (race_stamp; 0 for none). A lock when two
// workers may touch it at once.
struct RaceCell {
  std::atomic<unsigned> lock;
  unsigned pad;
  uint64_t w, r1, r2;
};

// The shared-memory race detector's state of one byte of the shared window
// ("shared races"): the block run it belongs to, its last write and up to two
// of its reads, as stamps (sh_stamp; 0 for none).
struct ShCell {
  uint32_t gen, w, r1, r2;
};

// A tile of dynamic shared memory, named for race reports (shared_view).
struct ShName {
  size_t off, bytes;
  const char *name;
};

struct RaceShadow {
  const T2cSimTensor *t;
  RaceCell *cells;  // nelems cells, mapped lazily: untouched pages cost nothing
  size_t bytes;
};

// One mbarrier of the block (mbarrier.init). A phase completes when all
// `count` arrivals of it have happened and its tx-count is zero.
struct Mbar {
  unsigned char *addr;
  unsigned count;       // arrivals per phase
  unsigned pending;     // arrivals the current phase still waits for
  long long tx;         // tx-count: bytes expected by expect_tx, less those complete_tx delivered
  unsigned phase;       // phases completed so far; the current one has parity phase & 1
  unsigned init_tid, init_epoch;
  bool fenced;          // fence.mbarrier_init or fence.proxy.async by its initializer since
  // the shared race detector's vector clocks: what the arrivals of the
  // current phase released, and what its last completed phase did (empty: nothing)
  // (done0/done1: by the phase's parity)
  std::vector<uint32_t> acc, done0, done1;
};

// A TMA load in flight: the box, read from global memory at the issue, lands
// in shared memory (swizzled) once no thread can go on without it (resolve),
// one load at a time, then complete_tx.
struct TmaLoad {
  unsigned char *dst;   // the box's first byte
  unsigned win;         // its shared window address
  int swizzle;
  unsigned char *bar;
  std::vector<unsigned char> data;  // the box, dense, unswizzled
};

// Shared bytes written by stmatrix that the async proxy (TMA store, wgmma)
// may read only after the writing thread's fence.proxy.async.
struct Unfenced {
  uintptr_t lo, hi;
  unsigned tid;
};

// A wgmma.mma_async issued and not yet completed by wgmma.wait_group: its
// result, computed at the issue; the accumulators hold poison until then.
struct WgPending {
  int group;            // -1 until committed
  int n;
  const char *file;
  int line;
  std::vector<float *> d;       // each thread's accumulators (f32, or s32 bits for the integer forms)
  std::vector<float> res;       // 128 * n/2 (s32 bits for the integer forms, copied, never converted)
  std::vector<std::pair<const uint8_t *, uint8_t>> reads;  // shared bytes read, and their values
};
struct WgState {
  bool fenced;          // wgmma.fence since the last wgmma.wait_group
  int groups;           // wgmma groups committed
  std::vector<WgPending> pend;
};

// A named barrier (bar.sync / bar.arrive id, count; 0 is __syncthreads()'s).
// A generation completes when count threads have arrived.
struct NamedBar {
  unsigned count;       // the generation's count (set by its first arrival)
  unsigned arrived;     // arrivals of the current generation
  unsigned gen;         // generations completed
  // the race detector's vector clocks: what the current generation's arrivals
  // released, and what its last completed generations did (by parity)
  std::vector<uint32_t> acc, done0, done1;
};
enum { NAMED_BARRIERS = 16 };

struct Launch;

// One per worker thread; reached through the thread_local `tw`. Aligned so
// that two workers never share a cache line.
struct alignas(128) Worker {
  Launch *L;
  std::vector<Fiber> fibers;
#ifdef T2C_USE_UCONTEXT
  ucontext_t sched;
#else
  void *sched_sp;
#endif
  Fiber *cur;
  Dim3 bid;
  unsigned lin;          // the block's linear index
  unsigned epoch;        // barriers the block has passed
  uint64_t stamp;        // race_stamp(lin, epoch, 0): who is accessing, less the thread
  unsigned char *arena;  // static shared memory, STATIC_SMEM_MAX bytes
  size_t arena_used;
  std::vector<SharedAlloc> allocs;
  unsigned char *dyn;    // dynamic shared memory plus a canary
  uint64_t rng;
  std::vector<Mbar> mbars;
  std::vector<TmaLoad> tma_loads;
  std::vector<Unfenced> unfenced;
  std::vector<WgState> wgs;  // one per warpgroup
  NamedBar nbars[NAMED_BARRIERS];
  // the shared-memory race detector ("shared races")
  ShCell *sh_cells;      // one per byte of the shared window, mapped lazily
  size_t sh_ncells;
  uint32_t sh_gen;       // this block run's cell generation
  std::vector<uint32_t> sh_clk;   // each thread's clock
  std::vector<uint32_t> sh_base;  // each thread's clock at the block's last barrier
  std::vector<std::vector<uint32_t>> sh_know;  // what each thread acquired since
  std::vector<uint32_t> sh_know_gen;           // sh_know[u] is valid when this is sh_bgen
  uint32_t sh_bgen;      // barrier generation
  std::vector<uint32_t> sh_join;  // scratch of a __syncwarp
  std::vector<ShName> sh_names;
#ifdef T2C_ASAN
  void *asan_fake;             // the scheduler's fake stack while a fiber runs
  const void *sched_bottom;    // the scheduler's stack, learnt at the first switch
  size_t sched_size;
#endif
};

struct Launch {
  const T2cSimLaunch *l;
  const Registrar *k;
  Dim3 grid, block;
  int schedule;
  std::vector<unsigned> order;       // block order of this run
  alignas(64) std::atomic<size_t> next_block{0};
  alignas(64) std::atomic<bool> failed{false};
  std::mutex mu;
  std::string err;
  std::vector<std::atomic<int>> out_kind;  // ElemKind of each output
  std::vector<std::atomic<bool>> out_fatomic;  // an output a float atomic_add updated
  // per element of such an output, in the first schedule: the sum of the
  // magnitudes its float atomic adds added, and their count (float_atomic);
  // allocated at its first float atomic add, under mu
  struct FaBound {
    double mag;
    unsigned n;
  };
  std::vector<std::atomic<FaBound *>> fa_bound;
  bool shared_cells;     // more than one worker: shadow cells are locked
  std::vector<RaceShadow *> shadows;  // [0, noutputs): the outputs'; then others
  // strided views' masks (view_mask), under mu
  struct View {
    const T2cSimTensor *t;
    std::vector<unsigned char> mask;
    const char *why;  // non-null: the view is invalid, and why
  };
  std::vector<View> views;
};

static thread_local Worker *tw;
static Dim3 block_of(const Launch *L, unsigned lin);
static Registrar *registry;

Registrar::Registrar(const char *n, void (*t)(void *const *)) : name(n), tramp(t), next(registry) {
  registry = this;
}

// ---------------------------------------------------------------- fibers
#ifndef T2C_USE_UCONTEXT
extern "C" void t2c_sim_swap(void **save_sp, void *to_sp);
// Saves the callee-saved registers, MXCSR and the x87 control word on the
// current stack, stores the stack pointer, and restores the other side.
asm(R"(
  .text
  .p2align 4
  .type t2c_sim_swap,@function
t2c_sim_swap:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size t2c_sim_swap, .-t2c_sim_swap
)");
#endif

static void fiber_main();

static void fiber_start(Fiber *f) {
  char *top = f->map + STACK_BYTES;
#ifdef T2C_ASAN
  // frames of the fiber's previous run (it never returns) leave poisoned
  // redzones behind
  __asan_unpoison_memory_region(f->map + 4096, STACK_BYTES - 4096);
  f->asan_fake = nullptr;
#endif
#ifdef T2C_USE_UCONTEXT
  getcontext(&f->ctx);
  f->ctx.uc_stack.ss_sp = f->map + 4096;
  f->ctx.uc_stack.ss_size = STACK_BYTES - 4096;
  f->ctx.uc_link = nullptr;
  makecontext(&f->ctx, fiber_main, 0);
#else
  // The frame t2c_sim_swap pops: control words, r15..rbx, rbp, and the
  // return address at top-16, so fiber_main starts with rsp = 8 (mod 16)
  // as after a call; a zero fake return address above it ends backtraces.
  uint64_t *sp = (uint64_t *)(top - 72);
  unsigned mxcsr = 0x1f80;
  unsigned short fpucw = 0x037f;
  memset(sp, 0, 9 * sizeof *sp);
  memcpy(sp, &mxcsr, 4);
  memcpy((char *)sp + 4, &fpucw, 2);
  sp[7] = (uint64_t)(uintptr_t)&fiber_main;
  f->sp = sp;
#endif
}

// Scheduler -> fiber; returns when the fiber blocks, exits or fails.
static void fiber_resume(Worker *w, Fiber *f) {
  w->cur = f;
#ifdef T2C_ASAN
  __sanitizer_start_switch_fiber(&w->asan_fake, f->map + 4096, STACK_BYTES - 4096);
#endif
#ifdef T2C_USE_UCONTEXT
  swapcontext(&w->sched, &f->ctx);
#else
  t2c_sim_swap(&w->sched_sp, f->sp);
#endif
#ifdef T2C_ASAN
  __sanitizer_finish_switch_fiber(w->asan_fake, nullptr, nullptr);
#endif
  w->cur = nullptr;
}

// Fiber -> scheduler.
static void fiber_yield(Worker *w, Fiber *f) {
#ifdef T2C_ASAN
  // an exited fiber's fake stack is released (nullptr): it never comes back
  __sanitizer_start_switch_fiber((f->state == F_EXITED || f->state == F_FAILED) ? nullptr : &f->asan_fake, w->sched_bottom, w->sched_size);
#endif
#ifdef T2C_USE_UCONTEXT
  swapcontext(&f->ctx, &w->sched);
#else
  t2c_sim_swap(&f->sp, w->sched_sp);
#endif
#ifdef T2C_ASAN
  __sanitizer_finish_switch_fiber(f->asan_fake, nullptr, nullptr);
#endif
}

static void fiber_main() {
  Worker *w = tw;
  Fiber *f = w->cur;
#ifdef T2C_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &w->sched_bottom, &w->sched_size);
#endif
  w->L->k->tramp(w->L->l->args);
  f->state = F_EXITED;
  fiber_yield(w, f);
  abort();  // an exited fiber is never resumed
}

static bool alloc_stacks(Worker *w, unsigned n) {
  w->fibers.assign(n, Fiber());
  for (unsigned i = 0; i < n; i++) {
    void *p = mmap(nullptr, STACK_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    mprotect(p, 4096, PROT_NONE);
    w->fibers[i].map = (char *)p;
    w->fibers[i].tid = i;
  }
  return true;
}

static void free_worker(Worker *w) {
  for (Fiber &f : w->fibers)
    if (f.map) munmap(f.map, STACK_BYTES);
  free(w->arena);
  free(w->dyn);
  if (w->sh_cells) munmap(w->sh_cells, w->sh_ncells * sizeof(ShCell));
}

// ---------------------------------------------------------------- errors
static void set_error(Launch *L, const std::string &msg) {
  std::lock_guard<std::mutex> g(L->mu);
  if (!L->failed.load()) {
    L->err = msg;
    L->failed.store(true);
  }
}

static std::string vfmt(const char *fmt, va_list ap) {
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  return buf;
}

static std::string fmt(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vfmt(fmt, ap);
  va_end(ap);
  return s;
}

static std::string where(Worker *w) {
  return fmt("in kernel '%s', block (%u,%u,%u)", w->L->k->name, w->bid.x, w->bid.y, w->bid.z);
}

// Fails the launch from inside the running fiber, which never resumes.
// No heap object may live in a frame of a fiber across this call: its stack
// is abandoned, not unwound, so the messages are formatted into char arrays.
[[noreturn]] static void fiber_fail(const char *what) {
  Worker *w = tw;
  Fiber *f = w->cur;
  set_error(w->L, std::string(what) + " " + where(w) + fmt(", thread %u", f->tid));
  f->state = F_FAILED;
  fiber_yield(w, f);
  abort();
}

void tensor_oob(const T2cSimTensor *t, long long i, bool read_only) {
  if (t->strides && i >= 0 && i < t->nelems)
    failf("out-of-bounds %s of tensor '%s' at index %lld: inside its buffer of %lld elements, but no element of its "
          "strided view lies there",
          read_only ? "read" : "access", t->name ? t->name : "?", i, t->nelems);
  failf("out-of-bounds %s of tensor '%s' at index %lld (size %lld)",
        read_only ? "read" : "access", t->name ? t->name : "?", i, t->nelems);
}

// The view's mask over [0, nelems): every element (i0, ..) of the shape marks
// index sum(i_d * strides[d]). Null when that is done; else why not.
static const char *make_view_mask(const T2cSimTensor *t, std::vector<unsigned char> &m) {
  long long c[16] = {0}, total = 1;
  if (t->rank < 1 || t->rank > 16 || !t->shape) return "a strided view needs its rank (1 to 16) and shape";
  if (t->nelems <= 0) return "its strided view has elements, but its buffer has none";
  for (int d = 0; d < t->rank; d++) {
    if (t->shape[d] <= 0) return "its strided view's shape has a dim below 1";
    if (__builtin_mul_overflow(total, t->shape[d], &total) || total > (1LL << 32))
      return "its strided view has more than 2^32 elements, too many to check";
  }
  m.assign((size_t)t->nelems, 0);
  for (long long e = 0; e < total; e++) {
    long long off = 0, term;
    for (int d = 0; d < t->rank; d++)
      if (__builtin_mul_overflow(c[d], t->strides[d], &term) || __builtin_add_overflow(off, term, &off))
        return "its strided view reaches outside its buffer";
    if (off < 0 || off >= t->nelems) return "its strided view reaches outside its buffer";
    m[(size_t)off] = 1;
    for (int d = t->rank - 1; d >= 0 && ++c[d] == t->shape[d]; d--) c[d] = 0;
  }
  return nullptr;
}

const unsigned char *view_mask(const T2cSimTensor *t) {
  if (!t || !t->strides) return nullptr;
  Launch *L = tw->L;
  const unsigned char *m = nullptr;
  const char *why = nullptr;
  {
    std::lock_guard<std::mutex> g(L->mu);
    size_t k = 0;
    while (k < L->views.size() && L->views[k].t != t) k++;
    if (k == L->views.size()) {
      L->views.push_back(Launch::View{t, std::vector<unsigned char>(), nullptr});
      L->views[k].why = make_view_mask(t, L->views[k].mask);
    }
    why = L->views[k].why;
    m = L->views[k].mask.data();  // stays put: the vector is moved, never copied, when views grows
  }
  if (why) failf("tensor '%s' (a buffer of %lld elements): %s", t->name ? t->name : "?", t->nelems, why);
  return m;
}

void failf(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char m[1024];
  vsnprintf(m, sizeof m, f, ap);
  va_end(ap);
  fiber_fail(m);
}

void cp_async_oob(const T2cSimTensor *t, long long i, int size, int valid, int elem_bytes) {
  failf("out-of-bounds cp.async read of tensor '%s' at index %lld: %d of %d bytes valid, %d-byte elements (size %lld)",
        t && t->name ? t->name : "?", i, valid, size, elem_bytes, t ? t->nelems : 0LL);
}

void shared_oob(const char *name, long long i, long long n) {
  failf("out-of-bounds access of shared array '%s' at index %lld (size %lld)", name, i, n);
}

// ---------------------------------------------------------------- races
// A stamp names one access to a writable tensor: bits 0-9 the thread, 10-33
// the block's linear index, 34-63 the block's barrier epoch plus one (so no
// stamp is 0). Two accesses to one element, at least one a write, race when
//   - they come from two blocks of the launch (no barrier orders blocks), or
//   - from two threads of one block in the same epoch (no barrier between).
// A thread never races with itself. Each element's cell keeps the last
// write and at most two reads, enough for the later access of every racing
// pair to see a conflict (the first race stops the launch):
//   - an earlier write that races with a new access raced with every later
//     write too, so the last one stands for all;
//   - reads of one block are kept from its newest epoch only (the block's
//     later accesses come after a barrier, and against another block any
//     read of it conflicts), and two of them from two threads, since one
//     of the two differs from any later writer;
//   - reads from two blocks conflict with every write, and stay.
// Atomics (elem_ref::atomic) never reach the detector.
enum { RACE_EPOCH_MAX = (1 << 30) - 2 };

static uint64_t race_stamp(unsigned lin, unsigned epoch, unsigned tid) {
  return (uint64_t)(epoch + 1) << 34 | (uint64_t)lin << 10 | tid;
}
static unsigned stamp_tid(uint64_t s) { return (unsigned)(s & 1023); }
static unsigned stamp_block(uint64_t s) { return (unsigned)(s >> 10 & 0xffffff); }
static unsigned stamp_epoch(uint64_t s) { return (unsigned)(s >> 34) - 1; }

// Does the earlier access a race with the access me (one of them a write)?
static bool races_with(uint64_t a, uint64_t me) {
  if (!a) return false;
  if (stamp_block(a) != stamp_block(me)) return true;
  return stamp_tid(a) != stamp_tid(me) && (a >> 34) == (me >> 34);
}

static void note_read(RaceCell *c, uint64_t me) {
  if (!c->r1) {
    c->r1 = me;
    return;
  }
  if (c->r1 == me || c->r2 == me) return;
  unsigned b = stamp_block(c->r1);
  if (c->r2 && stamp_block(c->r2) != b) return;  // two blocks: kept for good
  if (stamp_block(me) != b) {
    c->r2 = me;
  } else if ((me >> 34) != (c->r1 >> 34)) {  // the block's newer epoch
    c->r1 = me;
    c->r2 = 0;
  } else if (!c->r2) {
    c->r2 = me;
  }
}

static RaceShadow *new_shadow(const T2cSimTensor *t) {
  RaceShadow *s = new RaceShadow{t, nullptr, 0};
  if (t->nelems <= 0) return s;
  s->bytes = (size_t)t->nelems * sizeof(RaceCell);
  void *p = mmap(nullptr, s->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    delete s;
    return nullptr;
  }
  s->cells = (RaceCell *)p;
  return s;
}

static void free_shadows(Launch *L) {
  for (RaceShadow *s : L->shadows) {
    if (s->cells) munmap(s->cells, s->bytes);
    delete s;
  }
  L->shadows.clear();
}

// Before each run of the grid: every cell back to zero, in the pages touched.
static void reset_shadows(Launch *L) {
  for (RaceShadow *s : L->shadows)
    if (s->cells) madvise(s->cells, s->bytes, MADV_DONTNEED);
}

// The shadow of a writable tensor. The outputs' are made by the launch and
// read without a lock; another writable tensor gets one at its first use.
static RaceShadow *race_shadow(Launch *L, const T2cSimTensor *t) {
  size_t no = (size_t)L->l->noutputs;
  for (size_t i = 0; i < no; i++)
    if (L->shadows[i]->t == t) return L->shadows[i];
  RaceShadow *s = nullptr;
  {
    std::lock_guard<std::mutex> g(L->mu);
    for (size_t i = no; i < L->shadows.size() && !s; i++)
      if (L->shadows[i]->t == t) s = L->shadows[i];
    if (!s && L->shadows.size() < L->shadows.capacity() && (s = new_shadow(t))) L->shadows.push_back(s);
  }
  if (!s) failf("out of memory for the race detector's shadow of tensor '%s'", t->name ? t->name : "?");
  return s;
}

// " ([1, 3] of shape [4, 2])" for a tensor whose shape is known and has two
// dims or more; "" otherwise.
static void coords(char *buf, size_t n, const T2cSimTensor *t, long long i) {
  buf[0] = 0;
  long long prod = 1;
  if (t->rank < 2 || t->rank > 16 || !t->shape) return;
  for (int d = 0; d < t->rank; d++) prod *= t->shape[d] > 0 ? t->shape[d] : 0;
  if (!t->strides && prod != t->nelems) return;
  long long c[16];
  if (t->strides) {  // a strided view: dims by decreasing stride; shown only when that gives back i
    bool done[16] = {false};
    long long r = i;
    for (int n = 0; n < t->rank; n++) {
      int b = -1;
      for (int d = 0; d < t->rank; d++)
        if (!done[d] && (b < 0 || t->strides[d] > t->strides[b])) b = d;
      done[b] = true;
      c[b] = t->strides[b] > 0 ? r / t->strides[b] : 0;
      if (c[b] >= t->shape[b]) return;
      r -= c[b] * t->strides[b];
    }
    if (r != 0) return;
  } else {
    for (int d = t->rank - 1; d >= 0; d--) {
      c[d] = i % t->shape[d];
      i /= t->shape[d];
    }
  }
  size_t k = (size_t)snprintf(buf, n, " (");
  for (int pass = 0; pass < 2 && k < n; pass++) {
    for (int d = 0; d < t->rank && k < n; d++)
      k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "[", pass ? t->shape[d] : c[d]);
    if (k < n) k += (size_t)snprintf(buf + k, n - k, pass ? "])" : "] of shape ");
  }
}

// Fails the launch from the running thread, whose access `me` races with
// the earlier access `a` to element i. Formats into arrays only (fiber_fail).
[[noreturn]] static void race_fail(const RaceShadow *sh, long long i, uint64_t a, bool a_wrote, uint64_t me,
                                   bool me_writes) {
  Worker *w = tw;
  const Launch *L = w->L;
  char at[512], msg[1024], why[128];
  coords(at, sizeof at, sh->t, i);
  Dim3 ba = block_of(L, stamp_block(a)), bm = block_of(L, stamp_block(me));
  if (stamp_block(a) != stamp_block(me))
    snprintf(why, sizeof why, "from two blocks of one launch, and neither access is atomic");
  else if (stamp_epoch(me) == 0)
    snprintf(why, sizeof why, "with no barrier in between (both before the block's first __syncthreads())");
  else
    snprintf(why, sizeof why, "with no barrier in between (both after %u __syncthreads() of the block)",
             stamp_epoch(me));
  snprintf(msg, sizeof msg,
           "race: tensor '%s' at index %lld%s in kernel '%s': block (%u,%u,%u), thread %u %s it and block (%u,%u,%u), thread %u %s it, %s",
           sh->t->name ? sh->t->name : "?", i, at, L->k->name, ba.x, ba.y, ba.z, stamp_tid(a),
           a_wrote ? "wrote" : "read", bm.x, bm.y, bm.z, stamp_tid(me), me_writes ? "writes" : "reads", why);
  Fiber *f = w->cur;
  set_error(w->L, msg);
  f->state = F_FAILED;
  fiber_yield(w, f);
  abort();
}

static void lock_cell(RaceCell *c) {
  while (c->lock.exchange(1, std::memory_order_acquire))
    while (c->lock.load(std::memory_order_relaxed)) {
    }
}

void race_access(RaceShadow *sh, long long i, long long n, int access) {
  Worker *w = tw;
  const uint64_t me = w->stamp | w->cur->tid;
  const bool lock = w->L->shared_cells;
  for (long long k = i; k < i + n; k++) {
    RaceCell *c = &sh->cells[k];
    if (lock) lock_cell(c);
    uint64_t other = 0;
    bool other_wrote = false;
    if (races_with(c->w, me)) {
      other = c->w;
      other_wrote = true;
    } else if (access == RACE_WRITE) {
      other = races_with(c->r1, me) ? c->r1 : races_with(c->r2, me) ? c->r2 : 0;
      if (!other) c->w = me;
    } else {
      note_read(c, me);
    }
    if (lock) c->lock.store(0, std::memory_order_release);
    if (other) race_fail(sh, k, other, other_wrote, me, access == RACE_WRITE);
  }
}

RaceShadow *check_tensor(const T2cSimTensor *t, int elem_bytes, int kind, bool writable) {
  Launch *L = tw->L;
  if (!t) fiber_fail("null tensor argument");
  if (t->elem_bytes != elem_bytes)
    failf("tensor '%s' has %d-byte elements but the kernel takes %d-byte elements",
          t->name ? t->name : "?", t->elem_bytes, elem_bytes);
  if (t->nelems > 0 && !t->data) failf("tensor '%s' has no data", t->name ? t->name : "?");
  for (int i = 0; i < L->l->noutputs; i++)
    if (L->l->outputs[i] == t && L->out_kind[i].load(std::memory_order_relaxed) != kind)
      L->out_kind[i].store(kind, std::memory_order_relaxed);  // once: workers share the line
  return writable ? race_shadow(L, t) : nullptr;
}

void float_atomic(const T2cSimTensor *t, long long e, double v) {
  Launch *L = tw->L;
  for (int i = 0; i < L->l->noutputs; i++) {
    if (L->l->outputs[i] != t) continue;
    if (!L->out_fatomic[i].load(std::memory_order_relaxed)) L->out_fatomic[i].store(true, std::memory_order_relaxed);
    if (L->schedule != 0 || e < 0 || e >= t->nelems) continue;
    Launch::FaBound *f = L->fa_bound[i].load(std::memory_order_acquire);
    if (!f) {
      std::lock_guard<std::mutex> g(L->mu);
      if (!(f = L->fa_bound[i].load(std::memory_order_relaxed))) {
        f = (Launch::FaBound *)calloc((size_t)t->nelems, sizeof *f);
        if (!f) failf("out of memory for the rounding bounds of tensor '%s'", t->name ? t->name : "?");
        L->fa_bound[i].store(f, std::memory_order_release);
      }
    }
    /* two workers may add to one element at once */
    double old, nv;
    __atomic_load(&f[e].mag, &old, __ATOMIC_RELAXED);
    do
      nv = old + fabs(v);
    while (!__atomic_compare_exchange(&f[e].mag, &old, &nv, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    __atomic_fetch_add(&f[e].n, 1u, __ATOMIC_RELAXED);
  }
}

// ---------------------------------------------------------------- thread API
Dim3 thread_idx() { return Dim3{tw->cur->tid, 0, 0}; }
Dim3 block_idx() { return tw->bid; }
Dim3 block_dim() { return tw->L->block; }
Dim3 grid_dim() { return tw->L->grid; }

void sync_threads(const char *file, int line) {
  Worker *w = tw;
  Fiber *f = w->cur;
  f->state = F_BARRIER;
  f->what = "__syncthreads()";
  f->file = file;
  f->line = line;
  fiber_yield(w, f);
}

static const char *op_name(int op) {
  static const char *const names[] = {"__shfl_sync",  "__shfl_up_sync", "__shfl_down_sync",
                                      "__shfl_xor_sync", "__syncwarp", "__ballot_sync",
                                      "__any_sync",   "__all_sync", "mma.m16n8k16 (f16)",
                                      "mma.m16n8k16 (bf16)", "ldmatrix", "ldmatrix.trans",
                                      "mma.m16n8k32 (s8)", "mma.m16n8k32 (e4m3)", "mma.m16n8k32 (e5m2)",
                                      "stmatrix", "stmatrix.trans"};
  return names[op];
}

uint64_t warp_op(int op, unsigned mask, uint64_t bits, int size, int b, int width,
                 const char *file, int line) {
  Worker *w = tw;
  Fiber *f = w->cur;
  if (width < 1 || width > 32 || (width & (width - 1)))
    failf("%s (%s:%d) with width %d, which is not a power of two in 1..32",
          op_name(op), file, line, width);
  f->state = F_WARP;
  f->what = op_name(op);
  f->file = file;
  f->line = line;
  f->op = op;
  f->mask = mask;
  f->val = bits;
  f->size = size;
  f->b = b;
  f->width = width;
  fiber_yield(w, f);
  return f->result;
}

void warp_xop(int op, int size, const void *in, void *out, const char *file, int line) {
  Worker *w = tw;
  Fiber *f = w->cur;
  f->state = F_WARP;
  f->what = op_name(op);
  f->file = file;
  f->line = line;
  f->op = op;
  f->mask = 0xffffffffu;
  f->val = 0;
  f->size = size;
  f->b = 0;
  f->width = 32;
  f->xin = in;
  f->xout = out;
  fiber_yield(w, f);
}

// The shared allocation (static array or dynamic shared memory) holding all
// of [p, p + bytes): its name, or null when there is none.
static const char *shared_range(Worker *w, const void *p, size_t bytes) {
  uintptr_t a = (uintptr_t)p;
  for (const SharedAlloc &s : w->allocs) {
    uintptr_t lo = (uintptr_t)(w->arena + s.off);
    if (a >= lo && a - lo <= s.bytes && bytes <= s.bytes - (a - lo)) return s.name;
  }
  uintptr_t lo = (uintptr_t)w->dyn;
  size_t n = w->L->l->dyn_smem;
  if (a >= lo && a - lo <= n && bytes <= n - (a - lo)) return "dynamic shared memory";
  return nullptr;
}

// ---------------------------------------------------------------- cp.async
void cp_async(void *dst, const void *src, int size, int valid) {
  Worker *w = tw;
  Fiber *f = w->cur;
  if ((uintptr_t)dst % (uintptr_t)size)
    failf("misaligned cp.async of %d bytes to shared address %p", size, dst);
  if (!shared_range(w, dst, (size_t)size))
    failf("cp.async of %d bytes to %p, which is not inside one shared array or dynamic shared memory", size, dst);
  CpAsync c;
  c.dst = (unsigned char *)dst;
  c.size = size;
  c.group = -1;
  memset(c.data, 0, sizeof c.data);
  if (valid > 0) memcpy(c.data, src, (size_t)valid);
  // the race detector sees the write at the issue (no earlier access may be
  // unordered with it) and again where the wait lands it
  shared_access(dst, (size_t)size, RACE_WRITE);
  // Until the wait, the destination holds nothing a thread may rely on.
  memset(dst, 0xff, (size_t)size);
  f->cp.push_back(c);
}

void cp_async_commit() {
  Fiber *f = tw->cur;
  for (CpAsync &c : f->cp)
    if (c.group < 0) c.group = f->cp_groups;
  f->cp_groups++;
}

// cp.async.wait_group n: every committed group but the n most recent completes.
void cp_async_wait(int n) {
  Fiber *f = tw->cur;
  int upto = f->cp_groups - n;  // groups [0, upto) complete
  size_t k = 0;
  for (size_t i = 0; i < f->cp.size(); i++) {
    CpAsync &c = f->cp[i];
    if (c.group >= 0 && c.group < upto) {
      shared_access(c.dst, (size_t)c.size, RACE_WRITE);
      memcpy(c.dst, c.data, (size_t)c.size);
    } else {
      f->cp[k++] = c;
    }
  }
  f->cp.resize(k);
}

void *shared_alloc(size_t bytes, size_t align, const char *name) {
  Worker *w = tw;
  if (align == 0 || (align & (align - 1)) || align > 1024)
    failf("static shared array '%s' aligned to %zu bytes (a power of two up to 1024)", name, align);
  unsigned k = w->cur->shared_next++;
  if (k < w->allocs.size()) {
    const SharedAlloc &a = w->allocs[k];
    if (a.bytes != bytes || strcmp(a.name, name) != 0)
      failf("threads disagree on static shared allocation %u ('%s' of %zu bytes vs '%s' of %zu bytes)",
            k, a.name, a.bytes, name, bytes);
    return w->arena + a.off;
  }
  size_t off = (w->arena_used + align - 1) / align * align;
  if (off + bytes > STATIC_SMEM_MAX)
    failf("static shared memory exceeds %d bytes at array '%s' (%zu bytes)",
          STATIC_SMEM_MAX, name, bytes);
  if (off + bytes + w->L->l->dyn_smem > SMEM_MAX)
    failf("shared memory (%zu static + %zu dynamic bytes) exceeds %d bytes per block",
          off + bytes, w->L->l->dyn_smem, SMEM_MAX);
  memset(w->arena + off, 0xff, bytes);  // poison: NaN for floats, -1 for ints
  w->allocs.push_back(SharedAlloc{off, bytes, name});
  w->arena_used = off + bytes;
  return w->arena + off;
}

unsigned char *dyn_smem() { return tw->dyn; }

// ---------------------------------------------------------------- hopper
// sm_90a's asynchronous machinery: mbarriers, TMA (cp.async.bulk.tensor),
// stmatrix and wgmma. What the PTX ISA leaves undefined is reported:
//   - an mbarrier used before it is initialized, by another thread before a
//     __syncthreads() follows the init, or by TMA before the initializer's
//     fence.mbarrier_init / fence.proxy.async; more arrivals than its count;
//   - a wait that can never complete (wrong parity, missing arrivals or
//     bytes): the block stops with a deadlock naming the barrier and its state;
//   - shared memory that a TMA store or a wgmma still reads, changed before
//     the wait that completes it (a stage released early); accumulators
//     touched between wgmma.mma_async and wgmma.wait_group; a wgmma without
//     wgmma.fence first (before the first one, and after each wait_group);
//   - stmatrix data read by the async proxy without the writer's
//     fence.proxy.async.
// The shared window: dynamic shared memory at 0, the static arrays after it
// at a 1024-byte boundary; both host buffers are 1024-aligned, so a window
// address and its host address agree in the bits the swizzles read.
static size_t static_window(Worker *w) { return (w->L->l->dyn_smem + 1023) / 1024 * 1024; }

static bool window_of(Worker *w, const void *p, size_t bytes, unsigned *win) {
  if (!shared_range(w, p, bytes)) return false;
  uintptr_t a = (uintptr_t)p, dyn = (uintptr_t)w->dyn;
  if (a >= dyn && a - dyn <= w->L->l->dyn_smem) *win = (unsigned)(a - dyn);
  else *win = (unsigned)(static_window(w) + (a - (uintptr_t)w->arena));
  return true;
}

// The host address of window address win, when [win, win + bytes) is shared.
static unsigned char *window_host(Worker *w, unsigned win, size_t bytes) {
  size_t sb = static_window(w);
  unsigned char *p = win < sb ? w->dyn + win : w->arena + (win - sb);
  return shared_range(w, p, bytes) ? p : nullptr;
}

unsigned smem_window(const void *p, size_t bytes, const char *what) {
  unsigned win = 0;
  if (!window_of(tw, p, bytes, &win))
    failf("%s of %zu bytes at %p, which is not inside one shared array or dynamic shared memory", what, bytes, p);
  return win;
}

// The static shared array holding the byte at p, or null.
static const SharedAlloc *static_array_at(const Worker *w, const void *p) {
  uintptr_t a = (uintptr_t)p;
  for (const SharedAlloc &s : w->allocs) {
    uintptr_t lo = (uintptr_t)(w->arena + s.off);
    if (a >= lo && a < lo + s.bytes) return &s;
  }
  return nullptr;
}

// "'bars' + 8" or "dynamic shared memory + 64": where a barrier lives.
static void shared_name(Worker *w, const void *p, char *buf, size_t n) {
  if (const SharedAlloc *s = static_array_at(w, p)) {
    snprintf(buf, n, "'%s' + %zu bytes", s->name, (size_t)((const unsigned char *)p - (w->arena + s->off)));
    return;
  }
  snprintf(buf, n, "dynamic shared memory + %zu bytes", (size_t)((const unsigned char *)p - w->dyn));
}

// ---------------------------------------------------------------- shared races
// Shared memory belongs to one block, and a block runs on one worker, so the
// worker keeps the shadow: a cell per byte of the shared window (dynamic
// shared memory at 0, the static arrays after it), valid in the block run
// whose generation it carries. A cell holds the last write and up to two
// reads, each as a stamp: the thread (bits 22-31) and its clock (bits 0-21).
//
// Happens-before is a vector clock per thread. A thread's clock advances at
// each of its release points: a __syncthreads(), a __syncwarp(), an
// mbarrier arrive. What thread u knows of thread t is
//   max(base[t], know[u][t]):
//   - base[t]: t's clock at the block's last barrier (every thread knows it);
//   - know[u]: what u acquired since, by a __syncwarp() with t's warp lanes
//     or an mbarrier wait whose phase t's arrive (or a chain of them) reached;
//     valid only while know_gen[u] equals the barrier generation.
// An access by u races with an earlier access at stamp (t, c), one of the two
// a write, when t != u and u knows less than c of t. Reads that an access
// dominates (it knows them) are replaced by it; a third concurrent read is
// not kept, so a race with it alone can go unseen.
//
// Only the generic proxy is shadowed: loads and stores, ldmatrix, stmatrix
// and cp.async (a write at its issue and again when its wait lands it). TMA
// and wgmma go through the async proxy, which the hopper checks above cover
// (poison until a load lands, reads that change before the wait); a TMA
// load that lands clears the shadow of its box.
static bool fail_block(Worker *w, const std::string &msg);

enum : uint32_t { SH_CLK_BITS = 22, SH_CLK_MAX = (1u << SH_CLK_BITS) - 1 };

static uint32_t sh_stamp(unsigned tid, uint32_t clk) { return (uint32_t)tid << SH_CLK_BITS | clk; }
static unsigned sh_tid(uint32_t s) { return s >> SH_CLK_BITS; }
static uint32_t sh_clk(uint32_t s) { return s & SH_CLK_MAX; }

// What thread u knows of thread t's clock.
static inline uint32_t sh_knows(const Worker *w, unsigned u, unsigned t) {
  uint32_t b = w->sh_base[t];
  if (w->sh_know_gen[u] == w->sh_bgen) {
    uint32_t k = w->sh_know[u][t];
    if (k > b) b = k;
  }
  return b;
}

static inline bool sh_ordered(const Worker *w, uint32_t s, unsigned u) {
  return sh_tid(s) == u || sh_knows(w, u, sh_tid(s)) >= sh_clk(s);
}

// u's row of acquired knowledge, valid (zero when it was not).
static uint32_t *sh_know_row(Worker *w, unsigned u) {
  std::vector<uint32_t> &k = w->sh_know[u];
  if (k.size() != w->fibers.size()) k.assign(w->fibers.size(), 0);
  if (w->sh_know_gen[u] != w->sh_bgen) {
    std::fill(k.begin(), k.end(), 0);
    w->sh_know_gen[u] = w->sh_bgen;
  }
  return k.data();
}

// A release point of thread t: later accesses of t are not covered by what
// it released. False when t's clock would overflow.
static bool sh_tick(Worker *w, unsigned t) {
  if (w->sh_clk[t] >= SH_CLK_MAX) return false;
  w->sh_clk[t]++;
  return true;
}

// The same from the scheduler (a barrier, a __syncwarp()): fails the block on overflow.
static bool sh_tick_block(Worker *w, unsigned t) {
  return sh_tick(w, t) ||
         fail_block(w, fmt("more than %u release points (barriers, __syncwarp(), mbarrier arrives) of thread %u %s: "
                           "too many for the race detector",
                           SH_CLK_MAX - 1, t, where(w).c_str()));
}

// The window offset of host address p, or -1 when p is not shared memory.
static long long sh_offset(const Worker *w, const void *p) {
  uintptr_t a = (uintptr_t)p, dyn = (uintptr_t)w->dyn, ar = (uintptr_t)w->arena;
  if (a >= dyn && a - dyn < w->L->l->dyn_smem) return (long long)(a - dyn);
  if (a >= ar && a - ar < STATIC_SMEM_MAX) return (long long)(static_window((Worker *)w) + (a - ar));
  return -1;
}

// A race found in the shadow: the byte, the earlier access and the later one.
struct ShRace {
  const unsigned char *p;
  uint32_t other;
  bool other_wrote, me_writes;
  unsigned me;
};

// Thread u reads or writes the n bytes at p. False (and r filled in) on a race.
static bool sh_cell_eq(const ShCell &a, const ShCell &b) {
  return a.gen == b.gen && a.w == b.w && a.r1 == b.r1 && a.r2 == b.r2;
}

static bool sh_note(Worker *w, unsigned u, const void *p, size_t n, int access, ShRace *r) {
  long long off = sh_offset(w, p);
  if (off < 0 || !w->sh_cells) return true;
  if ((size_t)off + n > w->sh_ncells) n = w->sh_ncells - (size_t)off;
  const uint32_t me = sh_stamp(u, w->sh_clk[u]), gen = w->sh_gen;
  // the bytes of one access mostly have equal cells (one writer, the same
  // readers): a cell equal to the last one checked gets the same outcome
  ShCell in = {}, out = {};
  bool have = false;
  for (size_t k = 0; k < n; k++) {
    ShCell *c = &w->sh_cells[off + (long long)k];
    if (c->gen != gen) *c = ShCell{gen, 0, 0, 0};
    if (have && sh_cell_eq(*c, in)) {
      *c = out;
      continue;
    }
    in = *c;
    uint32_t other = 0;
    bool wrote = false;
    if (c->w && !sh_ordered(w, c->w, u)) {
      other = c->w;
      wrote = true;
    } else if (access == RACE_WRITE) {
      if (c->r1 && !sh_ordered(w, c->r1, u)) other = c->r1;
      else if (c->r2 && !sh_ordered(w, c->r2, u)) other = c->r2;
      else {
        c->w = me;
        c->r1 = c->r2 = 0;
      }
    } else if (c->r1 == me || c->r2 == me) {
      // read again by the same thread in the same clock: nothing new
    } else if (!c->r1 || sh_ordered(w, c->r1, u)) {
      c->r1 = me;
      if (c->r2 && sh_ordered(w, c->r2, u)) c->r2 = 0;
    } else if (!c->r2 || sh_ordered(w, c->r2, u)) {
      c->r2 = me;
    }
    if (other) {
      *r = ShRace{(const unsigned char *)p + k, other, wrote, access == RACE_WRITE, u};
      return false;
    }
    out = *c;
    have = true;
  }
  return true;
}

// "shared array 'x' + byte 12" or "shared tile 'a_s' + byte 144 (dynamic shared memory + 73872)".
static void sh_where(Worker *w, const unsigned char *p, char *buf, size_t n) {
  if (const SharedAlloc *s = static_array_at(w, p)) {
    snprintf(buf, n, "shared array '%s' + byte %zu", s->name, (size_t)(p - (w->arena + s->off)));
    return;
  }
  size_t d = (size_t)(p - w->dyn);
  for (const ShName &s : w->sh_names)
    if (d >= s.off && d < s.off + s.bytes) {
      snprintf(buf, n, "shared tile '%s' + byte %zu (dynamic shared memory + %zu)", s.name, d - s.off, d);
      return;
    }
  snprintf(buf, n, "dynamic shared memory + %zu", d);
}

static void sh_race_msg(Worker *w, const ShRace &r, char *buf, size_t n) {
  char at[256];
  sh_where(w, r.p, at, sizeof at);
  snprintf(buf, n,
           "race: %s in kernel '%s', block (%u,%u,%u): thread %u %s it and thread %u %s it, and no "
           "__syncthreads(), __syncwarp(), mbarrier wait or named barrier orders the two",
           at, w->L->k->name, w->bid.x, w->bid.y, w->bid.z, sh_tid(r.other), r.other_wrote ? "wrote" : "read", r.me,
           r.me_writes ? "writes" : "reads");
}

// The running thread reads or writes n bytes of shared memory at p (a plain
// access, lds_vec/sts_vec, cp.async): fails the launch on a race.
void shared_access(const void *p, size_t n, int access) {
  Worker *w = tw;
  ShRace r;
  if (sh_note(w, w->cur->tid, p, n, access, &r)) return;
  char buf[1024];
  sh_race_msg(w, r, buf, sizeof buf);
  Fiber *f = w->cur;
  set_error(w->L, buf);
  f->state = F_FAILED;
  fiber_yield(w, f);
  abort();
}

// The same from the scheduler (ldmatrix, stmatrix: lane u's row).
static bool sh_note_block(Worker *w, unsigned u, const void *p, size_t n, int access) {
  ShRace r;
  if (sh_note(w, u, p, n, access, &r)) return true;
  char buf[1024];
  sh_race_msg(w, r, buf, sizeof buf);
  return fail_block(w, buf);
}

// Thread u's arrive on an mbarrier: what it knows joins what the phase
// releases. False when u's clock would overflow.
static bool sh_release_into(Worker *w, unsigned u, std::vector<uint32_t> &acc) {
  const size_t n = w->fibers.size();
  if (acc.size() != n) acc.assign(n, 0);
  for (size_t t = 0; t < n; t++) {
    uint32_t k = sh_knows(w, u, (unsigned)t);
    if (k > acc[t]) acc[t] = k;
  }
  if (w->sh_clk[u] > acc[u]) acc[u] = w->sh_clk[u];
  return sh_tick(w, u);
}

// Thread u's wait on an mbarrier phase returned: it acquires what the phase released.
static void sh_acquire(Worker *w, unsigned u, const std::vector<uint32_t> &rel) {
  if (rel.empty()) return;
  uint32_t *row = sh_know_row(w, u);
  for (size_t t = 0; t < rel.size(); t++)
    if (rel[t] > row[t]) row[t] = rel[t];
}

// A __syncwarp() of the lanes in mask of warp wp: each learns what all know.
static bool sh_syncwarp(Worker *w, unsigned wp, unsigned mask) {
  const size_t n = w->fibers.size();
  std::vector<uint32_t> &j = w->sh_join;
  j.assign(n, 0);
  for (unsigned l = 0; l < 32; l++) {
    if (!(mask >> l & 1)) continue;
    const unsigned u = wp * 32 + l;
    for (size_t t = 0; t < n; t++) {
      uint32_t k = sh_knows(w, u, (unsigned)t);
      if (k > j[t]) j[t] = k;
    }
    if (w->sh_clk[u] > j[u]) j[u] = w->sh_clk[u];
  }
  for (unsigned l = 0; l < 32; l++) {
    if (!(mask >> l & 1)) continue;
    const unsigned u = wp * 32 + l;
    std::copy(j.begin(), j.end(), sh_know_row(w, u));
    if (!sh_tick_block(w, u)) return false;
  }
  return true;
}

// A TMA load landed on [p, p + n): no earlier access is kept.
static void sh_clear(Worker *w, const void *p, size_t n) {
  long long off = sh_offset(w, p);
  if (off < 0 || !w->sh_cells) return;
  for (size_t k = 0; k < n && (size_t)off + k < w->sh_ncells; k++) w->sh_cells[off + (long long)k] = ShCell{w->sh_gen, 0, 0, 0};
}

// A tile of dynamic shared memory (T2C_SIM_SHARED_AT): checked to lie inside
// it, and named for race reports.
void *shared_view(void *p, size_t bytes, const char *name) {
  Worker *w = tw;
  const size_t off = (size_t)((unsigned char *)p - w->dyn);
  if ((unsigned char *)p < w->dyn || off > w->L->l->dyn_smem || bytes > w->L->l->dyn_smem - off)
    failf("shared tile '%s' of %zu bytes at dynamic shared memory + %lld reaches past its %zu bytes", name, bytes,
          (long long)((unsigned char *)p - w->dyn), w->L->l->dyn_smem);
  for (const ShName &s : w->sh_names)
    if (s.off == off && s.bytes == bytes && !strcmp(s.name, name)) return p;
  w->sh_names.push_back(ShName{off, bytes, name});
  return p;
}

static Mbar *mbar_find(Worker *w, const void *bar) {
  for (Mbar &m : w->mbars)
    if (m.addr == bar) return &m;
  return nullptr;
}

// The barrier at bar, checked for the calling thread's use of it.
static Mbar *mbar_use(const void *bar, const char *what) {
  Worker *w = tw;
  Fiber *f = w->cur;
  char name[160];
  Mbar *m = mbar_find(w, bar);
  shared_name(w, bar, name, sizeof name);
  if (!m) failf("%s on %p (%s), which no mbarrier.init has initialized", what, bar,
                shared_range(w, bar, 8) ? name : "not shared memory");
  if (f->tid != m->init_tid && w->epoch == m->init_epoch)
    failf("%s on mbarrier %s by thread %u before a __syncthreads() after its mbarrier.init by thread %u", what,
          name, f->tid, m->init_tid);
  return m;
}

static void mbar_advance(Mbar *m) {
  if (m->pending == 0 && m->tx == 0) {
    std::vector<uint32_t> &d = m->phase & 1 ? m->done1 : m->done0;
    d.swap(m->acc);
    m->acc.assign(d.size(), 0);
    m->phase++;
    m->pending = m->count;
  }
}

void mbar_init(void *bar, unsigned count) {
  Worker *w = tw;
  if ((uintptr_t)bar % 8 || !shared_range(w, bar, 8))
    failf("mbarrier.init at %p, which is not 8 bytes of shared memory, 8-byte aligned", bar);
  if (count < 1 || count >= (1u << 20)) failf("mbarrier.init with count %u (1 .. 2^20 - 1)", count);
  Mbar *m = mbar_find(w, bar);
  if (!m) {
    w->mbars.push_back(Mbar());
    m = &w->mbars.back();
  }
  *m = Mbar{(unsigned char *)bar, count, count, 0, 0, w->cur->tid, w->epoch, false, {}, {}, {}};
  memset(bar, 0, 8);  // opaque to the kernel; no longer poison
}

void mbar_arrive(void *bar, unsigned tx_bytes, bool arrive, const char *what) {
  Mbar *m = mbar_use(bar, what);
  m->tx += tx_bytes;
  if (arrive) {
    if (m->pending == 0) {
      char name[160];
      shared_name(tw, bar, name, sizeof name);
      failf("%s on mbarrier %s: more arrivals than its count %u in phase %u (it still waits for %lld bytes)", what,
            name, m->count, m->phase, m->tx);
    }
    m->pending--;
    if (!sh_release_into(tw, tw->cur->tid, m->acc))
      failf("more than %u release points (barriers, __syncwarp(), mbarrier arrives) of one thread: too many for the race detector",
            SH_CLK_MAX - 1);
  }
  mbar_advance(m);
}

bool mbar_wait(void *bar, unsigned parity, const char *file, int line) {
  Worker *w = tw;
  Fiber *f = w->cur;
  Mbar *m = mbar_use(bar, "mbarrier.try_wait.parity");
  // true when the phase of that parity has completed: the current one has the other parity
  if ((m->phase & 1) != (parity & 1)) {
    sh_acquire(w, f->tid, parity & 1 ? m->done1 : m->done0);
    return true;
  }
  f->state = F_MBAR;
  f->what = "mbarrier.try_wait.parity";
  f->file = file;
  f->line = line;
  f->xin = bar;
  f->size = (int)(parity & 1);
  f->val = m->phase;
  fiber_yield(w, f);
  if ((m = mbar_find(w, bar))) sh_acquire(w, f->tid, parity & 1 ? m->done1 : m->done0);
  return true;
}

void named_barrier(unsigned id, unsigned count, bool wait, const char *file, int line) {
  Worker *w = tw;
  Fiber *f = w->cur;
  const char *what = wait ? "bar.sync" : "bar.arrive";
  unsigned n = (unsigned)w->fibers.size();
  if (id == 0 || id >= NAMED_BARRIERS)
    failf("%s %u (%s:%d): a named barrier is 1 .. %d (0 is __syncthreads()'s)", what, id, file, line, NAMED_BARRIERS - 1);
  if (count == 0 || count % 32 || count > (n + 31) / 32 * 32)
    failf("%s %u, %u (%s:%d): the count must be a multiple of 32 up to the block's %u threads", what, id, count, file,
          line, n);
  NamedBar &b = w->nbars[id];
  if (b.arrived == 0) b.count = count;
  else if (b.count != count)
    failf("%s %u, %u (%s:%d) by thread %u while the barrier's generation counts %u threads (%u arrived)", what, id,
          count, file, line, f->tid, b.count, b.arrived);
  if (!sh_release_into(w, f->tid, b.acc))
    failf("more than %u release points (barriers, __syncwarp(), mbarrier arrives) of one thread: too many for the race detector",
          SH_CLK_MAX - 1);
  unsigned g = b.gen;
  if (++b.arrived == b.count) {
    std::vector<uint32_t> &d = g & 1 ? b.done1 : b.done0;
    d.swap(b.acc);
    b.acc.assign(d.size(), 0);
    b.arrived = 0;
    b.gen++;
  }
  if (!wait) return;
  if (b.gen == g) {
    f->state = F_NBAR;
    f->what = "bar.sync";
    f->file = file;
    f->line = line;
    f->size = (int)id;
    f->val = g;
    fiber_yield(w, f);
  }
  sh_acquire(w, f->tid, g & 1 ? w->nbars[id].done1 : w->nbars[id].done0);
}

static void fence_mbars(Worker *w, unsigned tid) {
  for (Mbar &m : w->mbars)
    if (m.init_tid == tid) m.fenced = true;
}

void fence_mbarrier_init() { fence_mbars(tw, tw->cur->tid); }

void fence_proxy_async() {
  Worker *w = tw;
  unsigned tid = w->cur->tid;
  fence_mbars(w, tid);
  size_t k = 0;
  for (size_t i = 0; i < w->unfenced.size(); i++)
    if (w->unfenced[i].tid != tid) w->unfenced[k++] = w->unfenced[i];
  w->unfenced.resize(k);
}

// A thread whose stmatrix wrote [p, p + n) and has not fenced since, or -1.
static long long unfenced_writer(Worker *w, const void *p, size_t n) {
  uintptr_t a = (uintptr_t)p;
  for (const Unfenced &u : w->unfenced)
    if (a < u.hi && u.lo < a + n) return u.tid;
  return -1;
}

static void check_map(const T2cSimTensorMap *m, int ncoords, const char *what) {
  if (!m || m->magic != T2C_SIM_TMAP_MAGIC)
    failf("%s with a tensor map that t2c_sim_tensor_map_encode did not make", what);
  if (ncoords != m->rank) failf("%s with %d coordinates on a tensor map of rank %d", what, ncoords, m->rank);
}

static size_t box_bytes(const T2cSimTensorMap *m) {
  size_t b = (size_t)m->elem_bytes;
  for (int d = 0; d < m->rank; d++) b *= m->box[d];
  return b;
}

// The host address of the 16-byte chunk at byte `off` of the dense box whose
// first byte is at window address win (the swizzle moves whole chunks), or
// null when it is not in shared memory.
static unsigned char *box_chunk(Worker *w, unsigned win, int swizzle, size_t off) {
  return window_host(w, t2c_sim_swizzle(win + (unsigned)off, (unsigned)swizzle), 16);
}

// Calls fn(global element address or null when out of range, byte offset in
// the dense box) for every element of the box at coords.
template <typename F> static void box_walk(const T2cSimTensorMap *m, const int *coords, F fn) {
  unsigned i[T2C_SIM_TMAP_MAX_RANK] = {0, 0, 0, 0, 0};
  size_t off = 0, eb = (size_t)m->elem_bytes;
  for (;;) {
    bool in = true;
    long long at = 0;
    for (int d = 0; d < m->rank; d++) {
      long long c = (long long)coords[d] + i[d];
      if (c < 0 || (unsigned long long)c >= m->dims[d]) in = false;
      at += c * (long long)m->strides[d];
    }
    fn(in ? (unsigned char *)m->base + at : nullptr, off);
    off += eb;
    int d = 0;
    while (d < m->rank && ++i[d] == m->box[d]) i[d++] = 0;
    if (d == m->rank) return;
  }
}

// The shared side of a TMA copy: 128-byte aligned, every chunk in shared memory.
static unsigned check_box_smem(Worker *w, const void *p, const T2cSimTensorMap *m, const char *what) {
  unsigned win = 0;
  if ((uintptr_t)p % 128) failf("%s with shared address %p, which is not 128-byte aligned", what, p);
  if (!window_of(w, p, 16, &win)) failf("%s with shared address %p, which is not shared memory", what, p);
  for (size_t off = 0; off < box_bytes(m); off += 16)
    if (!box_chunk(w, win, m->swizzle, off))
      failf("%s: the %zu-byte box at %p (%d-byte swizzle) reaches past its shared array", what, box_bytes(m), p,
            m->swizzle);
  return win;
}

void tma_load(void *dst, const T2cSimTensorMap *m, const int *coords, int ncoords, void *bar) {
  static const char what[] = "cp.async.bulk.tensor (TMA load)";
  Worker *w = tw;
  check_map(m, ncoords, what);
  unsigned win = check_box_smem(w, dst, m, what);
  Mbar *b = mbar_use(bar, what);
  if (!b->fenced) {
    char name[160];
    shared_name(w, bar, name, sizeof name);
    failf("%s completes on mbarrier %s, whose mbarrier.init thread %u has not made visible to the async proxy "
          "(fence.mbarrier_init or fence.proxy.async after the init)", what, name, b->init_tid);
  }
  w->tma_loads.push_back(TmaLoad());
  TmaLoad &t = w->tma_loads.back();
  t.dst = (unsigned char *)dst;
  t.win = win;
  t.swizzle = m->swizzle;
  t.bar = (unsigned char *)bar;
  t.data.assign(box_bytes(m), 0);  // out-of-range elements are zeros
  box_walk(m, coords, [&](const unsigned char *g, size_t off) {
    if (g) memcpy(&t.data[off], g, (size_t)m->elem_bytes);
  });
  // until it lands, the destination holds nothing a thread may rely on
  for (size_t off = 0; off < t.data.size(); off += 16) memset(box_chunk(w, win, m->swizzle, off), 0xff, 16);
}

void tma_store(const T2cSimTensorMap *m, const int *coords, int ncoords, const void *src) {
  static const char what[] = "cp.async.bulk.tensor (TMA store)";
  Worker *w = tw;
  Fiber *f = w->cur;
  check_map(m, ncoords, what);
  unsigned win = check_box_smem(w, src, m, what);
  for (size_t off = 0; off < box_bytes(m); off += 16) {
    const unsigned char *c = box_chunk(w, win, m->swizzle, off);
    long long t = unfenced_writer(w, c, 16);
    if (t >= 0)
      failf("%s reads shared memory at %p that thread %lld wrote with stmatrix without a fence.proxy.async since",
            what, (const void *)c, t);
  }
  f->bulk.push_back(BulkStore());
  BulkStore &s = f->bulk.back();
  s.group = -1;
  for (size_t off = 0; off < box_bytes(m); off += 16) {
    BulkChunk c;
    c.p = box_chunk(w, win, m->swizzle, off);
    memcpy(c.b, c.p, 16);
    s.chunks.push_back(c);
  }
  // global memory gets the in-range elements now; the rest is clipped. The
  // race detector sees each write as the issuing thread's (two TMA stores of
  // one element with no barrier between them race, as plain stores do).
  RaceShadow *rs = m->tensor && m->tensor->data ? race_shadow(w->L, m->tensor) : nullptr;
  box_walk(m, coords, [&](unsigned char *g, size_t off) {
    if (!g) return;
    if (rs) race_access(rs, (long long)((g - (unsigned char *)m->tensor->data) / m->elem_bytes), 1, RACE_WRITE);
    memcpy(g, s.chunks[off / 16].b + off % 16, (size_t)m->elem_bytes);
  });
}

void bulk_commit() {
  Fiber *f = tw->cur;
  for (BulkStore &s : f->bulk)
    if (s.group < 0) s.group = f->bulk_groups;
  f->bulk_groups++;
}

// cp.async.bulk.wait_group(.read) n: every committed group but the n most
// recent completes; the shared memory they read must be as it was at the issue.
void bulk_wait(int n, bool read) {
  Fiber *f = tw->cur;
  int upto = f->bulk_groups - n;
  size_t k = 0;
  for (size_t i = 0; i < f->bulk.size(); i++) {
    BulkStore &s = f->bulk[i];
    if (s.group < 0 || s.group >= upto) {
      if (k != i) f->bulk[k] = std::move(s);
      k++;
      continue;
    }
    for (const BulkChunk &c : s.chunks)
      if (memcmp(c.p, c.b, 16) != 0)
        failf("shared memory at %p, which a TMA store reads, changed before cp.async.bulk.wait_group%s %d completed the store",
              (const void *)c.p, read ? ".read" : "", n);
  }
  f->bulk.resize(k);
}

void warpgroup_op(int op, int size, const WgmmaIn *in, const char *file, int line) {
  static const char *const names[] = {"wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "wgmma.mma_async"};
  Worker *w = tw;
  Fiber *f = w->cur;
  f->state = F_WG;
  f->what = names[op];
  f->file = file;
  f->line = line;
  f->op = op;
  f->size = size;
  f->xin = in;
  fiber_yield(w, f);
}

// ---------------------------------------------------------------- scheduling
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t schedule_seed(int s) {
  uint64_t x = (uint64_t)s * 0x2545f4914f6cdd1dULL;
  return splitmix(&x);
}

// Puts v (sorted by thread index) into the order of schedule s.
static void order(std::vector<unsigned> &v, int s, uint64_t *rng) {
  if (s == 1) {
    std::reverse(v.begin(), v.end());
  } else if (s >= 2) {
    for (size_t i = v.size(); i > 1; i--) std::swap(v[i - 1], v[splitmix(rng) % i]);
  }
}

// "0-31,64,96-127": the set of threads, as ranges.
static std::string ranges(const std::vector<unsigned> &t) {
  std::string s;
  for (size_t i = 0; i < t.size();) {
    size_t j = i;
    while (j + 1 < t.size() && t[j + 1] == t[j] + 1) j++;
    if (!s.empty()) s += ",";
    s += j == i ? fmt("%u", t[i]) : fmt("%u-%u", t[i], t[j]);
    i = j + 1;
  }
  return s;
}

// Every group of threads that waits at the same place, or has exited.
static std::string describe(Worker *w, unsigned lo, unsigned hi) {
  std::string s;
  std::vector<bool> done(hi - lo, false);
  for (unsigned i = lo; i < hi; i++) {
    if (done[i - lo]) continue;
    const Fiber &a = w->fibers[i];
    std::vector<unsigned> g;
    for (unsigned j = i; j < hi; j++) {
      const Fiber &b = w->fibers[j];
      bool same = b.state == a.state &&
                  (a.state == F_EXITED || (b.what == a.what && b.line == a.line && !strcmp(b.file, a.file)));
      if (!done[j - lo] && same) {
        done[j - lo] = true;
        g.push_back(j);
      }
    }
    if (!s.empty()) s += "; ";
    s += fmt("thread%s %s ", g.size() > 1 ? "s" : "", ranges(g).c_str());
    if (a.state == F_EXITED)
      s += g.size() > 1 ? "have exited" : "has exited";
    else
      s += fmt("wait%s at %s (%s:%d)", g.size() > 1 ? "" : "s", a.what, a.file, a.line);
  }
  return s;
}

static bool fail_block(Worker *w, const std::string &msg) {
  set_error(w->L, msg);
  return false;
}

// The source lane of `lane` for a shuffle, as PTX's shfl.sync defines it.
static unsigned shfl_source(int op, unsigned lane, unsigned b, unsigned width) {
  unsigned c = ((32 - width) << 8) | (op == OP_UP ? 0 : 0x1f);
  unsigned segmask = (c >> 8) & 0x1f, cval = c & 0x1f, bval = b & 0x1f;
  int maxl = (int)((lane & segmask) | (cval & ~segmask)), minl = (int)(lane & segmask);
  int j = 0;
  bool p = false;
  switch (op) {
  case OP_UP: j = (int)lane - (int)bval; p = j >= maxl; break;
  case OP_DOWN: j = (int)(lane + bval); p = j <= maxl; break;
  case OP_XOR: j = (int)(lane ^ bval); p = j <= maxl; break;
  case OP_IDX: j = minl | (int)(bval & ~segmask); p = j <= maxl; break;
  }
  return p ? (unsigned)j : lane;
}

static uint16_t lo16(unsigned x) { return (uint16_t)(x & 0xffff); }
static uint16_t hi16(unsigned x) { return (uint16_t)(x >> 16); }
static double b16_value(uint16_t h, bool bf) {
  if (bf) {
    uint32_t x = (uint32_t)h << 16;
    float v;
    memcpy(&v, &x, 4);
    return v;
  }
  __half_raw r;
  r.x = h;
  return (double)__half2float(__half(r));
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 for the
// 32 lanes, with the fragment layouts of the PTX ISA ("Matrix Fragments for
// mma.m16n8k16 with floating point type"); groupID = lane / 4,
// threadID_in_group = lane % 4:
//   A (a0..a7, two per .b32 register, low half first):
//     row = groupID (+8 for a2,a3,a6,a7), col = 2*tig + (i & 1) (+8 for a4..a7)
//   B (b0..b3): row (k) = 2*tig + (i & 1) (+8 for b2,b3), col (n) = groupID
//   C, D (c0..c3): row = groupID (+8 for c2,c3), col = 2*tig + (i & 1)
// Products are exact; each sum is taken in double and rounded once to f32.
static void mma_16816(Fiber *lanes, bool bf) {
  double A[16][16], B[16][8], C[16][8];
  for (unsigned l = 0; l < 32; l++) {
    const MmaIn *in = (const MmaIn *)lanes[l].xin;
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 8; i++) {
      unsigned r = in->a[i / 2];
      unsigned row = g + ((i >> 1) & 1) * 8, col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
      A[row][col] = b16_value(i & 1 ? hi16(r) : lo16(r), bf);
    }
    for (unsigned i = 0; i < 4; i++) {
      unsigned r = in->b[i / 2];
      B[2 * t + (i & 1) + (i >= 2 ? 8 : 0)][g] = b16_value(i & 1 ? hi16(r) : lo16(r), bf);
    }
    for (unsigned i = 0; i < 4; i++) C[g + (i >= 2 ? 8 : 0)][2 * t + (i & 1)] = in->c[i];
  }
  for (unsigned l = 0; l < 32; l++) {
    float *d = (float *)lanes[l].xout;
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; i++) {
      unsigned row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
      double s = 0;
      for (unsigned k = 0; k < 16; k++) s += A[row][k] * B[k][col];
      d[i] = (float)(s + C[row][col]);
    }
  }
}

// mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 for the 32 lanes, with the
// fragment layouts of the PTX ISA ("Matrix Fragments for mma.m16n8k32", .s8):
//   A (a0..a15, four per .b32 register, lowest byte first):
//     row = groupID (+8 for a4..a7, a12..a15), col = 4*tig + (i & 3) (+16 for a8..a15)
//   B (b0..b7): row (k) = 4*tig + (i & 3) (+16 for b4..b7), col (n) = groupID
//   C, D (c0..c3): row = groupID (+8 for c2,c3), col = 2*tig + (i & 1)
// The sums are exact in 64 bits and wrap to 32 (the form without .satfinite).
static void mma_16832_s8(Fiber *lanes) {
  int A[16][32], B[32][8], C[16][8];
  for (unsigned l = 0; l < 32; l++) {
    const MmaInI *in = (const MmaInI *)lanes[l].xin;
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 16; i++) {
      unsigned row = g + ((i >> 2) & 1) * 8, col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
      A[row][col] = (signed char)(in->a[i / 4] >> 8 * (i % 4));
    }
    for (unsigned i = 0; i < 8; i++) B[4 * t + (i & 3) + (i >= 4 ? 16 : 0)][g] = (signed char)(in->b[i / 4] >> 8 * (i % 4));
    for (unsigned i = 0; i < 4; i++) C[g + (i >= 2 ? 8 : 0)][2 * t + (i & 1)] = in->c[i];
  }
  for (unsigned l = 0; l < 32; l++) {
    int *d = (int *)lanes[l].xout;
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; i++) {
      unsigned row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
      int64_t s = C[row][col];
      for (unsigned k = 0; k < 32; k++) s += (int64_t)A[row][k] * B[k][col];
      d[i] = (int)(uint32_t)(uint64_t)s;
    }
  }
}

// The value of an 8-bit float (OCP 8-bit floating point: E4M3 with bias 7, no
// infinities, S.1111.111 NaN; E5M2 with bias 15, IEEE-like).
static double f8_value(unsigned c, bool e5m2) {
  int mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int e = (int)(c & 0x7f) >> mb, m = (int)c & ((1 << mb) - 1);
  double s = c & 0x80 ? -1.0 : 1.0;
  if (!e5m2 && (c & 0x7f) == 0x7f) return NAN;
  if (e5m2 && e == 31) return m ? NAN : s * INFINITY;
  return e == 0 ? s * ldexp(m, 1 - bias - mb) : s * ldexp((1 << mb) + m, e - bias - mb);
}

// mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32: the
// fragment layouts of the .s8 form (mma_16832_s8 above; the PTX ISA gives one
// table for the 8-bit types), f32 C and D as in m16n8k16. Products are exact;
// each sum is taken in double and rounded once to f32.
static void mma_16832_f8(Fiber *lanes, bool e5m2) {
  double A[16][32], B[32][8], C[16][8];
  for (unsigned l = 0; l < 32; l++) {
    const MmaIn *in = (const MmaIn *)lanes[l].xin;
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 16; i++) {
      unsigned row = g + ((i >> 2) & 1) * 8, col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
      A[row][col] = f8_value(in->a[i / 4] >> 8 * (i % 4) & 0xff, e5m2);
    }
    for (unsigned i = 0; i < 8; i++)
      B[4 * t + (i & 3) + (i >= 4 ? 16 : 0)][g] = f8_value(in->b[i / 4] >> 8 * (i % 4) & 0xff, e5m2);
    for (unsigned i = 0; i < 4; i++) C[g + (i >= 2 ? 8 : 0)][2 * t + (i & 1)] = in->c[i];
  }
  for (unsigned l = 0; l < 32; l++) {
    float *d = (float *)lanes[l].xout;
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; i++) {
      unsigned row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
      double s = 0;
      for (unsigned k = 0; k < 32; k++) s += A[row][k] * B[k][col];
      d[i] = (float)(s + C[row][col]);
    }
  }
}

// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: lane 8*i + r gives
// the address of row r of matrix i (16 bytes, 16-byte aligned, in shared
// memory). Lane l receives in register i the elements (l/4, 2*(l%4)) and
// (l/4, 2*(l%4)+1) of matrix i, low half first; with .trans, the elements
// (2*(l%4), l/4) and (2*(l%4)+1, l/4).
static bool ldmatrix(Worker *w, Fiber *lanes, unsigned wp, int nmat, bool trans) {
  uint16_t M[4][8][8];
  for (int i = 0; i < nmat; i++)
    for (int r = 0; r < 8; r++) {
      const Fiber &f = lanes[8 * i + r];
      const void *p = *(const void *const *)f.xin;
      if ((uintptr_t)p % 16 || !shared_range(w, p, 16))
        return fail_block(w, fmt("%s (%s:%d) %s, warp %u: thread %u gives row address %p (row %d of matrix %d), which is not %s",
                                 f.what, f.file, f.line, where(w).c_str(), wp, f.tid, p, r, i,
                                 (uintptr_t)p % 16 ? "16-byte aligned" : "16 bytes inside one shared array or dynamic shared memory"));
      if (!sh_note_block(w, f.tid, p, 16, RACE_READ)) return false;
      memcpy(M[i][r], p, 16);
    }
  for (unsigned l = 0; l < 32; l++) {
    unsigned *out = (unsigned *)lanes[l].xout;
    unsigned row = l / 4, col = 2 * (l % 4);
    for (int i = 0; i < nmat; i++)
      out[i] = trans ? (unsigned)M[i][col][row] | (unsigned)M[i][col + 1][row] << 16
                     : (unsigned)M[i][row][col] | (unsigned)M[i][row][col + 1] << 16;
  }
  return true;
}

// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 (PTX ISA,
// "Warp-level matrix store instruction: stmatrix"): the inverse of ldmatrix.
// Lane 8*i + r gives the address of row r of matrix i (16 bytes, 16-byte
// aligned, shared); lane l's register i holds the elements (l/4, 2*(l%4))
// and (l/4, 2*(l%4)+1) of matrix i, low half first; with .trans, the
// elements (2*(l%4), l/4) and (2*(l%4)+1, l/4).
static bool stmatrix(Worker *w, Fiber *lanes, unsigned wp, int nmat, bool trans) {
  uint16_t M[4][8][8];
  for (unsigned l = 0; l < 32; l++) {
    const StmIn *in = (const StmIn *)lanes[l].xin;
    unsigned row = l / 4, col = 2 * (l % 4);
    for (int i = 0; i < nmat; i++)
      for (unsigned h = 0; h < 2; h++) {
        uint16_t v = (uint16_t)(in->r[i] >> (16 * h));
        if (trans) M[i][col + h][row] = v;
        else M[i][row][col + h] = v;
      }
  }
  for (int i = 0; i < nmat; i++)
    for (int r = 0; r < 8; r++) {
      const Fiber &f = lanes[8 * i + r];
      void *p = ((const StmIn *)f.xin)->row;
      if ((uintptr_t)p % 16 || !shared_range(w, p, 16))
        return fail_block(w, fmt("%s (%s:%d) %s, warp %u: thread %u gives row address %p (row %d of matrix %d), which is not %s",
                                 f.what, f.file, f.line, where(w).c_str(), wp, f.tid, p, r, i,
                                 (uintptr_t)p % 16 ? "16-byte aligned" : "16 bytes inside one shared array or dynamic shared memory"));
      if (!sh_note_block(w, f.tid, p, 16, RACE_WRITE)) return false;
      memcpy(p, M[i][r], 16);
      w->unfenced.push_back(Unfenced{(uintptr_t)p, (uintptr_t)p + 16, f.tid});
    }
  return true;
}

// The shared window address of element (r, k) of a wgmma operand (r: the M
// row of A, or the N column of B; k in 0..15 of 16-bit elements, es 2, or
// 0..31 of 8-bit ones, es 1: a k step is 32 bytes either way) from its
// matrix descriptor. PTX ISA 9.7.15.5.1.2 ("Matrix Descriptor Format":
// start address >> 4 in bits 0-13, leading byte offset >> 4 in 16-29, stride
// byte offset >> 4 in 32-45, base offset in 49-51, swizzle in 62-63: 0 none,
// 1 128-byte, 2 64-byte, 3 32-byte) and its canonical layouts (9.7.15.5.1.2.1.3),
// with T = 16 bytes of elements (8 16-bit, 16 8-bit):
//   K-major, none:      ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//   K-major, W-byte:    ((8,m),(T,2k)):((W/16 T,SBO),(1,T))
//   MN-major, none:     ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//   MN-major, W-byte:   ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO))
// then Swizzle<log2(W/16),4,3> on the byte address (t2c_sim_swizzle). 8-bit
// operands are K-major only (the PTX ISA has no transpose for them).
static unsigned wgmma_operand_addr(unsigned long long desc, bool mn_major, unsigned r, unsigned k, unsigned es) {
  unsigned start = (unsigned)(desc & 0x3fff) << 4, lbo = (unsigned)(desc >> 16 & 0x3fff) << 4,
           sbo = (unsigned)(desc >> 32 & 0x3fff) << 4, mode = (unsigned)(desc >> 62);
  unsigned W = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0, a, kb = k * es;
  if (!mn_major)
    a = start + (r % 8) * (W ? W : 16) + (r / 8) * sbo + (kb / 16) * (W ? 16 : lbo) + kb % 16;
  else if (!W)
    a = start + (r % 8) * 2 + (r / 8) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  else
    a = start + (r % 8) * 2 + (r / 8 % (W / 16)) * 16 + r / (8 * (W / 16)) * lbo + (k % 8) * W + (k / 8) * sbo;
  return t2c_sim_swizzle(a, W);
}

// wgmma element types (WgmmaIn::ty): their size and value.
enum { WG_F16, WG_BF16, WG_S8, WG_U8, WG_E4M3, WG_E5M2 };
static unsigned wg_es(int ty) { return ty <= WG_BF16 ? 2 : 1; }
static bool wg_int(int ty) { return ty == WG_S8 || ty == WG_U8; }
static double f8_value(unsigned c, bool e5m2);
static double wg_value(const uint8_t *p, int ty) {
  switch (ty) {
  case WG_F16: case WG_BF16: { uint16_t h; memcpy(&h, p, 2); return b16_value(h, ty == WG_BF16); }
  case WG_S8: return (signed char)*p;
  case WG_U8: return *p;
  default: return f8_value(*p, ty == WG_E5M2);
  }
}

// Reads a 64xK (A) or NxK (B) operand (K: 16 16-bit or 32 8-bit elements)
// through its descriptor into out[r * K + k], noting each byte read.
static bool wgmma_load(Worker *w, const Fiber &f, unsigned long long desc, bool mn_major, unsigned rows, int ty,
                       const char *which, double *out, WgPending &p) {
  if (desc >> 49 & 7)
    return fail_block(w, fmt("%s (%s:%d) %s: the %s descriptor 0x%016llx has a base offset (bits 49-51), which is not emulated",
                             f.what, f.file, f.line, where(w).c_str(), which, desc));
  const unsigned es = wg_es(ty), K = 32 / es;
  for (unsigned r = 0; r < rows; r++)
    for (unsigned k = 0; k < K; k++) {
      unsigned win = wgmma_operand_addr(desc, mn_major, r, k, es);
      const uint8_t *h = (const uint8_t *)window_host(w, win, es);
      if (!h)
        return fail_block(w, fmt("%s (%s:%d) %s: the %s descriptor 0x%016llx reaches shared address 0x%x (element %u, %u), outside shared memory",
                                 f.what, f.file, f.line, where(w).c_str(), which, desc, win, r, k));
      long long t = unfenced_writer(w, h, es);
      if (t >= 0)
        return fail_block(w, fmt("%s (%s:%d) %s reads shared memory at %p that thread %lld wrote with stmatrix without a fence.proxy.async since",
                                 f.what, f.file, f.line, where(w).c_str(), (const void *)h, t));
      out[r * K + k] = wg_value(h, ty);
      for (unsigned b = 0; b < es; b++) p.reads.push_back({h + b, h[b]});
    }
  return true;
}

// wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16},
// .m64nNk32.s32.{s8,u8}.{s8,u8} (no .satfinite) and .m64nNk32.f32.{e4m3,e5m2}
// (both operands of one type) for the warpgroup at lanes[0..128). Register
// fragments (PTX ISA 9.7.15.5.1.1.1, "Matrix
// Fragments for wgmma.mma_async.m64nNk16"): warp v of the group holds rows
// 16v..16v+15; with g = lane/4, t = lane%4,
//   A (registers a0..a7, two per .b32, low half first): row 16v + g + 8*((i/2)%2),
//     col 2t + (i%2) + 8*(i/4)  (the m16n8k16 A layout, a warp per 16 rows);
//   D (d0..d(N/2-1)): row 16v + g + 8*((i/2)%2), col 8*(i/4) + 2t + (i%2)
//   (the same for k32: 9.7.15.5.1.1.2-3 give the k16 D layout for s32 and
//   for the f8 types' f32).
// Floats: products are exact; each sum is taken in double and rounded once
// to f32. Integers: the sum is exact in 64 bits and wraps to 32.
static bool wgmma_exec(Worker *w, Fiber *lanes, WgState &st) {
  const Fiber &f0 = lanes[0];
  const WgmmaIn *in0 = (const WgmmaIn *)f0.xin;
  unsigned n = (unsigned)in0->n;
  const int ty = in0->ty;
  const unsigned K = ty >= WG_S8 ? 32 : 16;
  if (ty < WG_F16 || ty > WG_E5M2)
    return fail_block(w, fmt("%s (%s:%d) %s: element type %d is not one of wgmma's", f0.what, f0.file, f0.line,
                             where(w).c_str(), ty));
  if (n < 8 || n > 256 || n % 8 || (wg_int(ty) && n > 32 && n % 16))
    return fail_block(w, fmt("%s (%s:%d) %s: m64n%uk%u (N must be 8..256, a multiple of 8%s)", f0.what, f0.file, f0.line,
                             where(w).c_str(), n, K, wg_int(ty) ? "; past 32 a multiple of 16 for s8/u8" : ""));
  if (wg_es(ty) == 1 && (in0->trans_a || in0->trans_b || in0->a))
    return fail_block(w, fmt("%s (%s:%d) %s: 8-bit wgmma operands are K-major, from descriptors (no transpose; A from registers not emulated)",
                             f0.what, f0.file, f0.line, where(w).c_str()));
  for (unsigned t = 1; t < 128; t++) {
    const WgmmaIn *in = (const WgmmaIn *)lanes[t].xin;
    if (in->n != in0->n || in->ty != in0->ty || in->trans_a != in0->trans_a || in->trans_b != in0->trans_b ||
        in->scale_d != in0->scale_d || in->desc_b != in0->desc_b || (in->a == nullptr) != (in0->a == nullptr) ||
        (!in->a && in->desc_a != in0->desc_a))
      return fail_block(w, fmt("%s (%s:%d) %s: threads %u and %u of the warpgroup give different shapes, types, descriptors or scale-d",
                               f0.what, f0.file, f0.line, where(w).c_str(), f0.tid, lanes[t].tid));
  }
  if (!st.fenced)
    return fail_block(w, fmt("%s (%s:%d) %s, threads %u-%u: no wgmma.fence since the start or the last wgmma.wait_group",
                             f0.what, f0.file, f0.line, where(w).c_str(), f0.tid, f0.tid + 127));
  st.pend.push_back(WgPending());
  WgPending &p = st.pend.back();
  p.group = -1;
  p.n = (int)n;
  p.file = f0.file;
  p.line = f0.line;
  std::vector<double> A(64 * 32), B(256 * 32);
  const bool bf = ty == WG_BF16;
  if (!in0->a) {
    if (!wgmma_load(w, f0, in0->desc_a, in0->trans_a != 0, 64, ty, "A", A.data(), p)) return false;
  } else {
    for (unsigned t = 0; t < 128; t++) {
      const unsigned *a = ((const WgmmaIn *)lanes[t].xin)->a;
      unsigned v = t / 32, g = t % 32 / 4, q = t % 4;
      for (unsigned i = 0; i < 8; i++)
        A[(16 * v + g + 8 * (i / 2 % 2)) * 16 + 2 * q + i % 2 + 8 * (i / 4)] =
            b16_value(i & 1 ? hi16(a[i / 2]) : lo16(a[i / 2]), bf);
    }
  }
  if (!wgmma_load(w, f0, in0->desc_b, in0->trans_b != 0, n, ty, "B", B.data(), p)) return false;
  p.d.resize(128);
  p.res.resize(128 * n / 2);
  for (unsigned t = 0; t < 128; t++) {
    float *d = ((const WgmmaIn *)lanes[t].xin)->d;
    const float *c = d;
    for (const WgPending &q : st.pend)  // chained on a wgmma still in flight: its result
      if (&q != &p && q.d[t] == d) c = &q.res[t * n / 2];
    unsigned v = t / 32, g = t % 32 / 4, q = t % 4;
    for (unsigned i = 0; i < n / 2; i++) {
      unsigned row = 16 * v + g + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * q + i % 2;
      if (wg_int(ty)) {  // |products| < 2^16, 32 of them: exact in double
        int64_t s = 0;
        int32_t ci;
        for (unsigned k = 0; k < K; k++) s += (int64_t)(A[row * K + k] * B[col * K + k]);
        memcpy(&ci, &c[i], 4);
        if (in0->scale_d) s += ci;
        const uint32_t bits = (uint32_t)(uint64_t)s;
        memcpy(&p.res[t * n / 2 + i], &bits, 4);
        continue;
      }
      double s = 0;
      for (unsigned k = 0; k < K; k++) s += A[row * K + k] * B[col * K + k];
      p.res[t * n / 2 + i] = (float)(s + (in0->scale_d ? (double)c[i] : 0.0));
    }
    p.d[t] = d;
  }
  for (unsigned t = 0; t < 128; t++) memset(p.d[t], 0xff, sizeof(float) * n / 2);  // poison until the wait
  return true;
}

// wgmma.wait_group N: every committed group but the N most recent completes.
static bool wgmma_wait(Worker *w, const Fiber &f0, WgState &st, int nkeep) {
  int upto = st.groups - nkeep;
  std::vector<const float *> written;
  std::vector<WgPending> done, keep;
  for (WgPending &p : st.pend) (p.group < 0 || p.group >= upto ? keep : done).push_back(std::move(p));
  st.pend = std::move(keep);
  for (WgPending &p : done) {
    for (const auto &r : p.reads)
      if (*r.first != r.second)
        return fail_block(w, fmt("shared memory at %p, which wgmma.mma_async (%s:%d) reads, changed before %s %d (%s:%d) completed it %s (a stage released while a wgmma still reads it)",
                                 (const void *)r.first, p.file, p.line, f0.what, nkeep, f0.file, f0.line,
                                 where(w).c_str()));
    for (unsigned t = 0; t < 128; t++) {
      if (std::find(written.begin(), written.end(), p.d[t]) == written.end()) {
        for (int i = 0; i < p.n / 2; i++) {
          uint32_t bits;
          memcpy(&bits, &p.d[t][i], 4);
          if (bits != 0xffffffffu)
            return fail_block(w, fmt("thread %u %s wrote its accumulator register %d of wgmma.mma_async (%s:%d) before %s (%s:%d) completed it",
                                     f0.tid + t, where(w).c_str(), i, p.file, p.line, f0.what, f0.file, f0.line));
        }
        written.push_back(p.d[t]);
      }
      bool chained = false;  // a wgmma still in flight accumulates into the same registers: they stay poison
      for (const WgPending &q : st.pend) chained = chained || q.d[t] == p.d[t];
      if (!chained) memcpy(p.d[t], &p.res[t * p.n / 2], sizeof(float) * p.n / 2);
    }
  }
  st.fenced = false;
  return true;
}

// Completes every warpgroup collective whose 128 threads have all arrived.
static bool resolve_warpgroups(Worker *w, std::vector<unsigned> &ready) {
  unsigned n = (unsigned)w->fibers.size();
  for (unsigned g = 0; g * 128 < n; g++) {
    Fiber *lanes = &w->fibers[g * 128];
    unsigned nl = n - g * 128 < 128 ? n - g * 128 : 128, at = 0;
    for (unsigned l = 0; l < nl; l++) at += lanes[l].state == F_WG;
    if (at == 0) continue;
    const Fiber *a = nullptr;
    for (unsigned l = 0; l < nl && !a; l++)
      if (lanes[l].state == F_WG) a = &lanes[l];
    if (nl < 128)
      return fail_block(w, fmt("%s (%s:%d) %s: warpgroup %u has %u threads; a wgmma needs all 128 threads of 4 warps",
                               a->what, a->file, a->line, where(w).c_str(), g, nl));
    if (at < 128) continue;
    for (unsigned l = 0; l < 128; l++)
      if (lanes[l].op != a->op || lanes[l].size != a->size || lanes[l].line != a->line)
        return fail_block(w, fmt("warpgroup divergence %s, warpgroup %u: thread %u calls %s (%s:%d) while thread %u calls %s (%s:%d)",
                                 where(w).c_str(), g, a->tid, a->what, a->file, a->line, lanes[l].tid, lanes[l].what,
                                 lanes[l].file, lanes[l].line));
    WgState &st = w->wgs[g];
    bool ok = true;
    if (a->op == WG_FENCE) st.fenced = true;
    else if (a->op == WG_COMMIT) {
      for (WgPending &p : st.pend)
        if (p.group < 0) p.group = st.groups;
      st.groups++;
    } else if (a->op == WG_WAIT) ok = wgmma_wait(w, *a, st, a->size);
    else ok = wgmma_exec(w, lanes, st);
    if (!ok) return false;
    for (unsigned l = 0; l < 128; l++) {
      lanes[l].state = F_READY;
      ready.push_back(g * 128 + l);
    }
  }
  return true;
}

// The oldest TMA load in flight lands; its bytes complete on its barrier.
// resolve() lands one only when no thread can go on otherwise, so a load
// lands as late as the hardware may let it: a wait that does not cover it
// (a wrong parity, too few expected bytes) reads the poison it left.
static bool complete_tma_load(Worker *w) {
  TmaLoad &t = w->tma_loads.front();
  for (size_t off = 0; off < t.data.size(); off += 16) {
    unsigned char *c = box_chunk(w, t.win, t.swizzle, off);
    memcpy(c, &t.data[off], 16);
    sh_clear(w, c, 16);
  }
  Mbar *m = mbar_find(w, t.bar);
  if (!m) return fail_block(w, fmt("a TMA load completes on mbarrier %p %s, which is no longer initialized", (void *)t.bar, where(w).c_str()));
  m->tx -= (long long)t.data.size();
  mbar_advance(m);
  w->tma_loads.erase(w->tma_loads.begin());
  return true;
}

// Threads at mbarrier.try_wait.parity whose phase has completed go on.
static bool wake_mbar_waiters(Worker *w, std::vector<unsigned> &ready) {
  for (Fiber &f : w->fibers) {
    if (f.state != F_MBAR) continue;
    const Mbar *m = mbar_find(w, f.xin);
    if (!m || m->phase == f.val) continue;
    if (m->phase - f.val >= 2) {
      char name[160];
      shared_name(w, f.xin, name, sizeof name);
      return fail_block(w, fmt("mbarrier %s %s completed phases %llu and %u while thread %u waited for parity %d (%s:%d): a phase it never saw",
                               name, where(w).c_str(), (unsigned long long)f.val, m->phase - 1, f.tid, f.size, f.file, f.line));
    }
    f.state = F_READY;
    ready.push_back(f.tid);
  }
  return true;
}

// Threads at bar.sync of a named barrier generation that has completed go on.
static void wake_nbar_waiters(Worker *w, std::vector<unsigned> &ready) {
  for (Fiber &f : w->fibers)
    if (f.state == F_NBAR && w->nbars[f.size].gen != f.val) {
      f.state = F_READY;
      ready.push_back(f.tid);
    }
}

// Every thread is stuck and some wait at named barriers: what each still waits for.
static std::string nbar_deadlock(Worker *w) {
  std::string s = fmt("named barrier deadlock %s: ", where(w).c_str()) + describe(w, 0, (unsigned)w->fibers.size());
  for (unsigned id = 1; id < NAMED_BARRIERS; id++) {
    const NamedBar &b = w->nbars[id];
    bool waited = false;
    for (const Fiber &f : w->fibers) waited |= f.state == F_NBAR && f.size == (int)id;
    if (waited) s += fmt("; named barrier %u has %u of %u arrivals", id, b.arrived, b.count);
  }
  return s;
}

// Every thread is stuck and some wait on mbarriers: what each barrier still waits for.
static std::string mbar_deadlock(Worker *w) {
  std::string s = fmt("mbarrier deadlock %s: ", where(w).c_str()) + describe(w, 0, (unsigned)w->fibers.size());
  std::vector<const void *> seen;
  for (const Fiber &f : w->fibers) {
    if (f.state != F_MBAR || std::find(seen.begin(), seen.end(), f.xin) != seen.end()) continue;
    seen.push_back(f.xin);
    const Mbar *m = mbar_find(w, f.xin);
    char name[160];
    shared_name(w, f.xin, name, sizeof name);
    s += fmt("; mbarrier %s is waited for with parity %d, but its phase %u (parity %u) still waits for %u of %u arrivals and tx-count %lld",
             name, f.size, m->phase, m->phase & 1, m->pending, m->count, m->tx);
  }
  return s;
}

// Completes the collective of the lanes in `mask` of warp `wp`.
static bool complete_warp(Worker *w, unsigned wp, unsigned mask, std::vector<unsigned> &ready) {
  Fiber *lanes = &w->fibers[wp * 32];
  unsigned first = (unsigned)__builtin_ctz(mask);
  const Fiber &a = lanes[first];
  uint64_t ballot = 0;
  for (unsigned l = 0; l < 32; l++) {
    if (!(mask >> l & 1)) continue;
    const Fiber &f = lanes[l];
    if (f.op != a.op || f.size != a.size || f.width != a.width)
      return fail_block(w, fmt("warp divergence %s, warp %u: thread %u calls %s (%s:%d) while thread %u calls %s (%s:%d) with the same mask 0x%08x",
                               where(w).c_str(), wp, a.tid, a.what, a.file, a.line, f.tid, f.what, f.file, f.line, mask));
    ballot |= (uint64_t)(f.val != 0) << l;
  }
  if (a.op >= OP_MMA_F16) {
    if (mask != 0xffffffffu)
      return fail_block(w, fmt("%s (%s:%d) %s, warp %u: needs all 32 lanes of the warp, but the block's last warp has %d threads",
                               a.what, a.file, a.line, where(w).c_str(), wp, __builtin_popcount(mask)));
    if (a.op == OP_MMA_F16 || a.op == OP_MMA_BF16) mma_16816(lanes, a.op == OP_MMA_BF16);
    else if (a.op == OP_MMA_S8) mma_16832_s8(lanes);
    else if (a.op == OP_MMA_E4M3 || a.op == OP_MMA_E5M2) mma_16832_f8(lanes, a.op == OP_MMA_E5M2);
    else if (a.op == OP_STMATRIX || a.op == OP_STMATRIX_T) {
      if (!stmatrix(w, lanes, wp, a.size, a.op == OP_STMATRIX_T)) return false;
    } else if (!ldmatrix(w, lanes, wp, a.size, a.op == OP_LDMATRIX_T)) return false;
  }
  if (a.op == OP_SYNCWARP && !sh_syncwarp(w, wp, mask)) return false;
  for (unsigned l = 0; l < 32; l++) {
    if (!(mask >> l & 1)) continue;
    Fiber &f = lanes[l];
    if (f.op <= OP_XOR) {
      unsigned j = shfl_source(f.op, l, (unsigned)f.b, (unsigned)f.width);
      if (!(mask >> j & 1))
        return fail_block(w, fmt("%s (%s:%d) %s, thread %u: reads lane %u, which is not in the mask 0x%08x",
                                 f.what, f.file, f.line, where(w).c_str(), f.tid, j, f.mask));
      f.result = lanes[j].val;
    } else if (f.op == OP_BALLOT) {
      f.result = ballot;
    } else if (f.op == OP_ANY) {
      f.result = ballot != 0;
    } else if (f.op == OP_ALL) {
      f.result = ballot == mask;
    }
  }
  for (unsigned l = 0; l < 32; l++)
    if (mask >> l & 1) {
      lanes[l].state = F_READY;
      ready.push_back(wp * 32 + l);
    }
  return true;
}

// Completes every warp collective whose named lanes have all arrived.
static bool resolve_warps(Worker *w, std::vector<unsigned> &ready) {
  unsigned n = (unsigned)w->fibers.size();
  for (unsigned wp = 0; wp * 32 < n; wp++) {
    unsigned nl = n - wp * 32 < 32 ? n - wp * 32 : 32;
    unsigned exist = nl == 32 ? 0xffffffffu : (1u << nl) - 1;
    for (unsigned l = 0; l < nl; l++) {
      Fiber &f = w->fibers[wp * 32 + l];
      if (f.state != F_WARP) continue;
      unsigned m = f.mask & exist;
      if (!(m >> l & 1))
        return fail_block(w, fmt("%s (%s:%d) %s, thread %u: mask 0x%08x does not name the calling lane %u",
                                 f.what, f.file, f.line, where(w).c_str(), f.tid, f.mask, l));
      bool all = true;
      for (unsigned j = 0; j < nl && all; j++) {
        const Fiber &g = w->fibers[wp * 32 + j];
        if (m >> j & 1) all = g.state == F_WARP && (g.mask & exist) == m;
      }
      if (all && !complete_warp(w, wp, m, ready)) return false;
    }
  }
  return true;
}

// After a round: which fibers run next. Empty with true: the block is done.
static bool resolve(Worker *w, std::vector<unsigned> &ready) {
  if (!resolve_warps(w, ready) || !resolve_warpgroups(w, ready) || !wake_mbar_waiters(w, ready)) return false;
  wake_nbar_waiters(w, ready);
  while (ready.empty() && !w->tma_loads.empty())
    if (!complete_tma_load(w) || !wake_mbar_waiters(w, ready)) return false;
  if (!ready.empty()) return true;
  unsigned n = (unsigned)w->fibers.size(), exited = 0, barrier = 0, warp = 0, wg = 0, mbar = 0, nbar = 0;
  const Fiber *b0 = nullptr;
  bool same_site = true;
  for (const Fiber &f : w->fibers) {
    if (f.state == F_EXITED) exited++;
    if (f.state == F_WARP) warp++;
    if (f.state == F_WG) wg++;
    if (f.state == F_MBAR) mbar++;
    if (f.state == F_NBAR) nbar++;
    if (f.state != F_BARRIER) continue;
    barrier++;
    if (!b0) b0 = &f;
    else if (f.line != b0->line || strcmp(f.file, b0->file)) same_site = false;
  }
  if (exited == n) return true;
  if (mbar > 0) return fail_block(w, mbar_deadlock(w));
  if (nbar > 0) return fail_block(w, nbar_deadlock(w));
  if (wg > 0)
    for (const Fiber &f : w->fibers)
      if (f.state == F_WG) {
        unsigned g = f.tid / 128, hi = g * 128 + 128 < n ? g * 128 + 128 : n;
        return fail_block(w, fmt("warpgroup divergence %s, warpgroup %u: ", where(w).c_str(), g) + describe(w, g * 128, hi));
      }
  if (warp == 0 && exited == 0 && same_site) {
    if (w->epoch == RACE_EPOCH_MAX)
      return fail_block(w, fmt("more than %d barriers %s: too many for the race detector", RACE_EPOCH_MAX,
                               where(w).c_str()));
    w->epoch++;  // a new epoch: no access before the barrier races with one after it
    w->stamp = race_stamp(w->lin, w->epoch, 0);
    for (size_t t = 0; t < n; t++) {  // every thread knows what every thread did before it
      w->sh_base[t] = w->sh_clk[t];
      if (!sh_tick_block(w, (unsigned)t)) return false;
    }
    w->sh_bgen++;
    for (Fiber &f : w->fibers) {
      f.state = F_READY;
      ready.push_back(f.tid);
    }
    return true;
  }
  if (warp == 0)
    return fail_block(w, fmt("barrier divergence %s: ", where(w).c_str()) + describe(w, 0, n));
  for (const Fiber &f : w->fibers)
    if (f.state == F_WARP) {
      unsigned wp = f.tid / 32, hi = wp * 32 + 32 < n ? wp * 32 + 32 : n;
      return fail_block(w, fmt("warp divergence %s, warp %u (mask 0x%08x): ", where(w).c_str(), wp, f.mask) +
                               describe(w, wp * 32, hi));
    }
  return fail_block(w, "internal error: stalled block");
}

static Dim3 block_of(const Launch *L, unsigned lin) {
  return Dim3{lin % L->grid.x, lin / L->grid.x % L->grid.y, lin / (L->grid.x * L->grid.y)};
}

static bool run_block(Worker *w, unsigned lin) {
  Launch *L = w->L;
  size_t dyn = L->l->dyn_smem;
  w->bid = block_of(L, lin);
  w->lin = lin;
  w->epoch = 0;
  w->stamp = race_stamp(lin, 0, 0);
  w->arena_used = 0;
  w->allocs.clear();
  memset(w->dyn, 0xff, dyn);
  memset(w->dyn + dyn, 0xa5, CANARY);
  w->rng = schedule_seed(L->schedule) ^ ((uint64_t)lin * 0xd1342543de82ef95ULL);
  std::vector<unsigned> ready;
  w->mbars.clear();
  w->tma_loads.clear();
  w->unfenced.clear();
  w->wgs.assign((w->fibers.size() + 127) / 128, WgState());
  for (NamedBar &b : w->nbars) b = NamedBar();
  if (++w->sh_gen == 0) {  // every 2^32 blocks of a worker: no cell may look current
    if (w->sh_cells) madvise(w->sh_cells, w->sh_ncells * sizeof(ShCell), MADV_DONTNEED);
    w->sh_gen = 1;
  }
  const size_t nt = w->fibers.size();
  w->sh_clk.assign(nt, 1);
  w->sh_base.assign(nt, 0);
  w->sh_know.resize(nt);
  w->sh_know_gen.assign(nt, 0);
  w->sh_bgen = 1;
  w->sh_names.clear();
  for (Fiber &f : w->fibers) {
    f.state = F_READY;
    f.shared_next = 0;
    f.cp.clear();
    f.cp_groups = 0;
    f.bulk.clear();
    f.bulk_groups = 0;
    fiber_start(&f);
    ready.push_back(f.tid);
  }
  std::vector<unsigned> later;
  for (;;) {
    std::sort(ready.begin(), ready.end());
    order(ready, L->schedule, &w->rng);
    // Schedules 0 and 1 stagger the warpgroups: a round runs the ready
    // threads of one warpgroup only (the first in the schedule's order), so
    // it runs ahead of the others as far as the kernel's synchronisation lets
    // it (a stage refilled before a lagging warpgroup's wgmma is done with it
    // shows). The others stay ready for the next round.
    later.clear();
    if (L->schedule < 2 && w->fibers.size() > 128) {
      unsigned g = ready[0] / 128;
      size_t k = 0;
      for (unsigned t : ready)
        if (t / 128 == g) ready[k++] = t;
        else later.push_back(t);
      ready.resize(k);
    }
    for (unsigned t : ready) {
      fiber_resume(w, &w->fibers[t]);
      if (L->failed.load(std::memory_order_relaxed)) return false;
    }
    ready.swap(later);
    if (!resolve(w, ready)) return false;
    if (ready.empty()) break;
  }
  for (const Fiber &f : w->fibers)
    if (!f.bulk.empty())
      return fail_block(w, fmt("thread %u %s exited with a TMA store that no cp.async.bulk.wait_group.read completed",
                               f.tid, where(w).c_str()));
  for (unsigned id = 1; id < NAMED_BARRIERS; id++)
    if (w->nbars[id].arrived)
      return fail_block(w, fmt("named barrier %u %s: %u of %u arrivals when the threads exited (bar.arrive with no bar.sync to meet it)",
                               id, where(w).c_str(), w->nbars[id].arrived, w->nbars[id].count));
  for (size_t g = 0; g < w->wgs.size(); g++)
    if (!w->wgs[g].pend.empty())
      return fail_block(w, fmt("wgmma.mma_async (%s:%d) %s, warpgroup %zu: no wgmma.wait_group completed it before the threads exited",
                               w->wgs[g].pend[0].file, w->wgs[g].pend[0].line, where(w).c_str(), g));
  for (int i = 0; i < CANARY; i++)
    if (w->dyn[dyn + i] != 0xa5)
      return fail_block(w, fmt("write past the end of dynamic shared memory (%zu bytes) %s",
                               dyn, where(w).c_str()));
  return true;
}

// A segmentation fault inside a kernel (a wild pointer into dynamic shared
// memory, a stack overflow) cannot be recovered from. While a launch runs,
// the handler names the kernel, block and thread on stderr before the
// process dies of the signal as it would have anyway.
static struct sigaction old_segv, old_bus;

static void on_fault(int sig, siginfo_t *si, void *) {
  Worker *w = tw;
  if (w && w->cur) {
    char buf[512];
    uintptr_t a = (uintptr_t)si->si_addr, lo = (uintptr_t)w->cur->map;
    bool guard = a >= lo && a < lo + 4096;
    int n = snprintf(buf, sizeof buf, "tile2cu sim: %s in kernel '%s', block (%u,%u,%u), thread %u%s\n",
                     sig == SIGSEGV ? "segmentation fault" : "bus error", w->L->k->name, w->bid.x, w->bid.y,
                     w->bid.z, w->cur->tid,
                     guard ? " (stack overflow: each thread has a 256 KiB stack)" : "");
    if (n > 0) (void)!write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
  }
  signal(sig, SIG_DFL);  // returning re-raises it, to the default action
}

static void work(Worker *w) {
  tw = w;
  stack_t ss = {}, old_ss;
  ss.ss_size = 64 << 10;
  ss.ss_sp = malloc(ss.ss_size);
  if (ss.ss_sp) sigaltstack(&ss, &old_ss);
  Launch *L = w->L;
  for (;;) {
    size_t i = L->next_block.fetch_add(1);
    if (i >= L->order.size() || L->failed.load()) break;
    if (!run_block(w, L->order[i])) break;
  }
  if (ss.ss_sp) {
    sigaltstack(&old_ss, nullptr);
    free(ss.ss_sp);
  }
  tw = nullptr;
}

// One run of the whole grid under schedule s.
static void run_grid(Launch *L, std::vector<Worker> &ws, int s) {
  L->schedule = s;
  unsigned nb = (unsigned)L->order.size();
  for (unsigned i = 0; i < nb; i++) L->order[i] = i;
  uint64_t rng = schedule_seed(s);
  order(L->order, s, &rng);
  L->next_block = 0;
  std::vector<std::thread> th;
  for (size_t i = 1; i < ws.size(); i++) th.emplace_back(work, &ws[i]);
  Worker *saved = tw;
  work(&ws[0]);
  tw = saved;
  for (std::thread &t : th) t.join();
}

// ---------------------------------------------------------------- launch
static std::string schedule_name(int s) {
  if (s == 0) return "schedule 0 (in order)";
  if (s == 1) return "schedule 1 (reversed)";
  return fmt("schedule %d (random, seed 0x%016" PRIx64 ")", s, schedule_seed(s));
}

static std::string elem_str(const unsigned char *p, int bytes, int kind) {
  bool ones = bytes > 0;
  for (int i = 0; i < bytes; i++) ones = ones && p[i] == 0xff;
  if (ones && kind >= K_F32 && kind <= K_BF16) return "nan (all bits set: unwritten shared memory)";
  if (kind == K_F32 && bytes == 4) { float v; memcpy(&v, p, 4); return fmt("%.9g", v); }
  if (kind == K_F64 && bytes == 8) { double v; memcpy(&v, p, 8); return fmt("%.17g", v); }
  if (kind == K_F16 && bytes == 2) { __half v; memcpy(&v, p, 2); return fmt("%.5g", __half2float(v)); }
  if (kind == K_BF16 && bytes == 2) { __nv_bfloat16 v; memcpy(&v, p, 2); return fmt("%.4g", __bfloat162float(v)); }
  if (kind == K_SINT || kind == K_UINT) {
    uint64_t u = 0;
    memcpy(&u, p, bytes);
    if (kind == K_SINT && bytes < 8 && (u >> (bytes * 8 - 1) & 1)) u |= ~0ULL << (bytes * 8);
    return kind == K_SINT ? fmt("%" PRId64, (int64_t)u) : fmt("%" PRIu64, u);
  }
  std::string s = "0x";
  for (int i = bytes - 1; i >= 0; i--) s += fmt("%02x", p[i]);
  return s;
}

static size_t out_bytes(const T2cSimTensor *t) { return (size_t)t->nelems * (size_t)t->elem_bytes; }

// The element as a double (floats only).
static double float_value(const unsigned char *p, int bytes, int kind) {
  if (kind == K_F32 && bytes == 4) { float v; memcpy(&v, p, 4); return v; }
  if (kind == K_F64 && bytes == 8) { double v; memcpy(&v, p, 8); return v; }
  if (kind == K_F16 && bytes == 2) { __half v; memcpy(&v, p, 2); return __half2float(v); }
  if (kind == K_BF16 && bytes == 2) { __nv_bfloat16 v; memcpy(&v, p, 2); return __bfloat162float(v); }
  return NAN;
}

// Two results of n float atomic adds to one element in different orders,
// from the value init: equal up to rounding. Each add rounds its sum once, by
// at most u of its magnitude (u the type's unit roundoff), or by half the
// smallest subnormal eta below the normal range; every partial sum is at most
// m = |init| + the sum of the added magnitudes. So each order's result lies
// within n (u m + eta) of the exact sum, and two orders' within twice that.
// This holds under cancellation, where the result is far smaller than its
// terms (split-K GEMM's partial sums), as a bound relative to the results
// does not.
static bool within_rounding(const unsigned char *a, const unsigned char *b, const unsigned char *init, int bytes,
                            int kind, double mag, unsigned n) {
  double x = float_value(a, bytes, kind), y = float_value(b, bytes, kind), z = float_value(init, bytes, kind);
  double u = kind == K_F16 ? 0x1p-11 : kind == K_BF16 ? 0x1p-8 : kind == K_F64 ? 0x1p-53 : 0x1p-24;
  double eta = kind == K_F16 ? 0x1p-25 : kind == K_BF16 ? 0x1p-134 : kind == K_F64 ? 0x1p-1075 : 0x1p-150;
  if (x == y) return true;
  if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z)) return false;
  return fabs(x - y) <= 2.0 * n * (u * (fabs(z) + mag) + eta);
}

// "" when the outputs equal the first run's; otherwise the race report.
static std::string compare(Launch *L, const std::vector<std::vector<unsigned char>> &first,
                           const std::vector<std::vector<unsigned char>> &init, int s) {
  for (int i = 0; i < L->l->noutputs; i++) {
    const T2cSimTensor *t = L->l->outputs[i];
    const unsigned char *a = first[i].data(), *b = (const unsigned char *)t->data;
    size_t eb = (size_t)t->elem_bytes;
    if (!memcmp(a, b, out_bytes(t))) continue;
    long long at = -1, ndiff = 0;
    int kind = L->out_kind[i].load();
    const Launch::FaBound *f = L->out_fatomic[i].load() ? L->fa_bound[i].load() : nullptr;
    const unsigned char *z = init[i].data();
    for (long long e = 0; e < t->nelems; e++)
      if (memcmp(a + e * eb, b + e * eb, eb) &&
          !(f && within_rounding(a + e * eb, b + e * eb, z + e * eb, t->elem_bytes, kind, f[e].mag, f[e].n))) {
        if (at < 0) at = e;
        ndiff++;
      }
    if (ndiff == 0) continue; /* float atomic adds in another order: the same up to rounding */
    return fmt("race: outputs of kernel '%s' differ between %s and %s: tensor '%s' first differs at index %lld (%s vs %s); %lld of %lld elements differ",
               L->k->name, schedule_name(0).c_str(), schedule_name(s).c_str(), t->name ? t->name : "?", at,
               elem_str(a + at * eb, t->elem_bytes, kind).c_str(), elem_str(b + at * eb, t->elem_bytes, kind).c_str(),
               ndiff, t->nelems);
  }
  return "";
}

static std::string check_launch(const T2cSimLaunch *l, const Registrar **k) {
  if (!l->kernel) return "no kernel named in the launch";
  for (*k = registry; *k; *k = (*k)->next)
    if (!strcmp((*k)->name, l->kernel)) break;
  if (!*k) {
    std::string known;
    for (const Registrar *r = registry; r; r = r->next) known += std::string(known.empty() ? "" : ", ") + r->name;
    return fmt("unknown kernel '%s' (this object has: %s)", l->kernel, known.c_str());
  }
  if (!l->grid[0] || !l->grid[1] || !l->grid[2] || l->grid[1] > 65535 || l->grid[2] > 65535)
    return fmt("kernel '%s': bad grid (%u,%u,%u)", l->kernel, l->grid[0], l->grid[1], l->grid[2]);
  if ((uint64_t)l->grid[0] * l->grid[1] * l->grid[2] > MAX_BLOCKS)
    return fmt("kernel '%s': grid (%u,%u,%u) has more than %d blocks, too many for the CPU backend",
               l->kernel, l->grid[0], l->grid[1], l->grid[2], MAX_BLOCKS);
  if (l->threads < 1 || l->threads > 1024)
    return fmt("kernel '%s': %u threads per block (must be 1..1024)", l->kernel, l->threads);
  if (l->dyn_smem > SMEM_MAX)
    return fmt("kernel '%s': %zu bytes of dynamic shared memory (limit %d)", l->kernel, l->dyn_smem, SMEM_MAX);
  if (l->schedules < 1) return fmt("kernel '%s': schedules must be >= 1", l->kernel);
  if (l->nargs < 0 || (l->nargs > 0 && !l->args)) return fmt("kernel '%s': bad argument list", l->kernel);
  for (int i = 0; i < l->noutputs; i++)
    if (!l->outputs[i] || (l->outputs[i]->nelems > 0 && !l->outputs[i]->data))
      return fmt("kernel '%s': output %d has no data", l->kernel, i);
  return "";
}

static int workers_for(const T2cSimLaunch *l) {
  unsigned nb = l->grid[0] * l->grid[1] * l->grid[2];
  int n = 2;
  if (const char *e = getenv("T2C_SIM_WORKERS")) n = atoi(e) < 1 ? 1 : atoi(e) > 64 ? 64 : atoi(e);
  else if (std::thread::hardware_concurrency() < 2) n = 1;
  return nb < 4 ? 1 : n;
}

static int launch(const T2cSimLaunch *l, char *err, size_t errlen) {
  auto report = [&](const std::string &m) {
    if (err && errlen) snprintf(err, errlen, "%s", m.c_str());
    return 1;
  };
  const Registrar *k = nullptr;
  std::string bad = check_launch(l, &k);
  if (!bad.empty()) return report(bad);

  Launch L;
  L.l = l;
  L.k = k;
  L.grid = Dim3{l->grid[0], l->grid[1], l->grid[2]};
  L.block = Dim3{l->threads, 1, 1};
  L.order.resize((size_t)l->grid[0] * l->grid[1] * l->grid[2]);
  L.out_kind = std::vector<std::atomic<int>>(l->noutputs);
  for (auto &a : L.out_kind) a = K_OTHER;
  L.out_fatomic = std::vector<std::atomic<bool>>(l->noutputs);
  for (auto &a : L.out_fatomic) a = false;
  L.fa_bound = std::vector<std::atomic<Launch::FaBound *>>(l->noutputs);
  for (auto &a : L.fa_bound) a = nullptr;

  std::vector<Worker> ws(workers_for(l));
  for (Worker &w : ws) {
    w = Worker();
    w.L = &L;
    void *arena = nullptr, *dyn = nullptr;
    // 1024-aligned, so that the swizzles (which follow address bits 4-9) see
    // the same bits in host addresses as in shared window addresses
    if (posix_memalign(&arena, 1024, STATIC_SMEM_MAX) == 0) w.arena = (unsigned char *)arena;
    if (posix_memalign(&dyn, 1024, l->dyn_smem + CANARY) == 0) w.dyn = (unsigned char *)dyn;
    if (!w.arena || !w.dyn || !alloc_stacks(&w, l->threads)) {
      for (Worker &x : ws) free_worker(&x);
      return report(fmt("kernel '%s': out of memory for %u fiber stacks", l->kernel, l->threads));
    }
    // the shared race detector's cells: one per byte of the shared window
    w.sh_ncells = (l->dyn_smem + 1023) / 1024 * 1024 + STATIC_SMEM_MAX;
    void *cells = mmap(nullptr, w.sh_ncells * sizeof(ShCell), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (cells == MAP_FAILED) {
      w.sh_ncells = 0;
      for (Worker &x : ws) free_worker(&x);
      return report(fmt("kernel '%s': out of memory for the shared-memory race detector", l->kernel));
    }
    w.sh_cells = (ShCell *)cells;
  }

  L.shared_cells = ws.size() > 1;
  // room for every tensor argument: the vector never moves while workers read it
  L.shadows.reserve((size_t)l->noutputs + (size_t)l->nargs);
  for (int i = 0; i < l->noutputs; i++) {
    RaceShadow *s = new_shadow(l->outputs[i]);
    if (!s) {
      free_shadows(&L);
      for (Worker &w : ws) free_worker(&w);
      return report(fmt("kernel '%s': out of memory for the race detector's shadow of tensor '%s'", l->kernel,
                        l->outputs[i]->name ? l->outputs[i]->name : "?"));
    }
    L.shadows.push_back(s);
  }

  std::vector<std::vector<unsigned char>> init(l->noutputs), first(l->noutputs);
  for (int i = 0; i < l->noutputs; i++) {
    const unsigned char *p = (const unsigned char *)l->outputs[i]->data;
    init[i].assign(p, p + out_bytes(l->outputs[i]));
  }
  auto restore = [&](const std::vector<std::vector<unsigned char>> &from) {
    for (int i = 0; i < l->noutputs; i++)
      if (!from[i].empty()) memcpy(l->outputs[i]->data, from[i].data(), from[i].size());
  };

  struct sigaction sa = {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, &old_segv);
  sigaction(SIGBUS, &sa, &old_bus);
  std::string msg;
  for (int s = 0; s < l->schedules && msg.empty(); s++) {
    if (s > 0) {
      restore(init);
      reset_shadows(&L);
    }
    run_grid(&L, ws, s);
    if (L.failed) msg = L.err;
    else if (s == 0)
      for (int i = 0; i < l->noutputs; i++) {
        const unsigned char *p = (const unsigned char *)l->outputs[i]->data;
        first[i].assign(p, p + out_bytes(l->outputs[i]));
      }
    else msg = compare(&L, first, init, s);
  }
  sigaction(SIGSEGV, &old_segv, nullptr);
  sigaction(SIGBUS, &old_bus, nullptr);
  for (Worker &w : ws) free_worker(&w);
  free_shadows(&L);
  for (auto &a : L.fa_bound) free(a.load());
  restore(msg.empty() ? first : init);
  return msg.empty() ? 0 : report(msg);
}

}  // namespace t2c_sim

extern "C" __attribute__((visibility("default"))) int t2c_sim_launch(const T2cSimLaunch *l, char *err,
                                                                    size_t errlen) {
  if (!l) {
    if (err && errlen) snprintf(err, errlen, "no launch given");
    return 1;
  }
  return t2c_sim::launch(l, err, errlen);
}
