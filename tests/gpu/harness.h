/* harness.h: the numerical test harness of tests/gpu.
 *
 * A test builds a Call (a .tl file, a kernel, its tensors and NAME=VALUE
 * arguments), fills the inputs with seeded random values, computes the
 * expected outputs itself in double precision, and calls call_check(). The
 * harness writes the inputs as .npy files, poisons every output file (NaN for
 * floats, POISON_INT for integers) unless the test gives initial contents,
 * runs `tile2cu run ... --backend B --schedules 3`, reads the outputs back and
 * compares them with the reference:
 *
 *   - floats: relative-norm error ||y - ref|| / ||ref|| over the elements the
 *     kernel must write, at most 1e-5 for f32/f64 and 1e-2 for f16/bf16 (a
 *     test may set its own tolerance, e.g. 0 for exact casts), and, when the
 *     test sets etol, every element within etol * (1 + |ref|);
 *   - integers: exact;
 *   - an element whose reference is NaN must still hold its poison (the
 *     kernel must not write it); any other element that is NaN (poison left
 *     behind, or a NaN computed) fails, whatever the norm says.
 *
 * All values travel as doubles; an input's values are rounded to its dtype
 * when generated, so the reference sees exactly what the kernel reads.
 */
#ifndef GPU_HARNESS_H
#define GPU_HARNESS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum Dt { F32, F16, BF16, F64, I32, I8, U8, U32, F8E4M3, F8E5M2, I64 } Dt; /* I64: values exact up to 2^53 */

#define POISON_INT 0x7fffffff /* the poison of an i32 output; i8/u8/u32 outputs use 0x7f / 0xff / 0xffffffff */
#define MAXT 16
#define MAXA 16

typedef struct Ten {
  char name[32];
  Dt dt;
  int rank;
  long long shape[4];
  long long n;
  double *v;    /* inputs: the values; outputs: the result, after call_check */
  double *init; /* outputs: initial contents (NaN = poison); NULL = all poison */
  double *ref;  /* outputs: the expected values (NaN = must stay poison) */
  double tol;   /* relative-norm tolerance; < 0: the dtype's default */
  double etol;  /* > 0: also every element within etol * (1 + |ref|) of its reference */
  bool out;     /* the kernel writes it */
} Ten;

typedef struct Call {
  const char *tl, *kernel;
  Ten t[MAXT];
  int nt;
  char args[MAXA][64];
  int na;
  char grid[32]; /* "" or X,Y,Z for --grid */
  char target[16]; /* "" or sm_XX for --target (on a GPU only sm_90a is passed on: harness.c's call_target) */
  bool same;       /* call_check left it out (--skip-same-as): its outputs hold nothing */
} Call;

/* ---- the run context (set by suite.c's main) */
extern const char *h_tile2cu, *h_backend, *h_tldir, *h_tmpdir, *h_target;
/* --skip-same-as T: the calls that would run just what a pass for T runs are left out
 * and counted in h_same (call_check and call_expect_fail return true for them) */
extern const char *h_skip_same;
extern int h_same;
extern int h_schedules;
extern int h_timeout; /* --timeout: seconds a `tile2cu run` may take; 0: no limit */
extern bool h_verbose;

/* ---- random numbers: splitmix64, seeded per test */
typedef struct Rng { uint64_t s; } Rng;
Rng rng_seed(const char *name, uint64_t k);
double rng_unit(Rng *r);                       /* [0, 1) */
double rng_uniform(Rng *r, double lo, double hi);
int64_t rng_int(Rng *r, int64_t lo, int64_t hi); /* [lo, hi] */

/* ---- f16 / bf16 (round to nearest even) */
uint16_t f32_to_f16(float f);
float f16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);
float bf16_to_f32(uint16_t b);
/* The 8-bit floats, from the OCP 8-bit floating point specification (E4M3: bias 7,
 * no infinities, S.1111.111 is NaN, largest 448; E5M2: bias 15, IEEE-like, largest
 * 57344): decoding by the formula; encoding by searching the 256 codes for the
 * nearest value, ties to the even code, magnitudes beyond the largest finite
 * value (infinities too) saturated to it, NaN to NaN. */
double f8_to_f64(Dt dt, uint8_t c);
uint8_t f64_to_f8(Dt dt, double x);
double round_dt(Dt dt, double x); /* x rounded to dt (ints: C truncation) */

/* ---- calls */
void call_init(Call *c, const char *tl, const char *kernel);
Ten *call_in(Call *c, const char *name, Dt dt, int rank, const long long *shape);
Ten *call_out(Call *c, const char *name, Dt dt, int rank, const long long *shape);
void call_arg(Call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fill_uniform(Ten *t, Rng *r, double lo, double hi); /* rounded to t's dtype */
void fill_int(Ten *t, Rng *r, int64_t lo, int64_t hi);
void call_free(Call *c);

/* Writes an input tensor's values to path as .npy. */
int h_write_input(const char *path, const Ten *t);
/* Runs the call and compares; prints one line ("name [label] err PASS/FAIL").
 * Returns true on a pass. */
bool call_check(Call *c, const char *test, const char *label);
/* Runs the call and expects `tile2cu run` to fail with a message containing
 * `needle` on stderr. */
bool call_expect_fail(Call *c, const char *test, const char *label, const char *needle);

#define SHAPE(...) ((const long long[]){__VA_ARGS__})
#define A2(t, i, j) ((t)->v[(long long)(i) * (t)->shape[1] + (j)])
#define R2(t, i, j) ((t)->ref[(long long)(i) * (t)->shape[1] + (j)])
static inline long long cdivll(long long a, long long b) { return (a + b - 1) / b; }

/* the outcome of one test function: cases run and failed */
typedef struct Tally { int run, failed; } Tally;
#define CHECK(tally, ok) ((tally)->run++, (ok) ? 0 : (tally)->failed++)

#endif
