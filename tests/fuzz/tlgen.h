/* tlgen.h: a random generator of valid .tl programs and an independent
 * tile-level evaluator of the programs it generates.
 *
 * Every program has one kernel (tlgen_kernel_name) whose parameters are
 * tensors and scalars; its size names become i32 parameters after them.
 * tlgen_eval computes, in double, what the kernel leaves in its output
 * tensors, together with a bound on the magnitude of the terms of every
 * output element, from which tlgen_close derives the tolerance.
 */
#ifndef TLGEN_H
#define TLGEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct TlgenProgram TlgenProgram;

/* Both constructors are deterministic and never fail (0 only when out of memory). */
TlgenProgram *tlgen_from_seed(uint64_t seed);              /* choices from splitmix64(seed) */
TlgenProgram *tlgen_from_seed_wg(uint64_t seed);           /* the same, and f16 GEMMs in wgmma's shape more often */
/* The program of a seed with options: TLGEN_WG as tlgen_from_seed_wg;
   TLGEN_STRIDED names about half of the tensors (at least one) in @strided;
   TLGEN_HALF_BF16 makes the program's 16-bit float type bf16 instead of f16
   (tensors, tiles, casts and dots; its params' elem is TLGEN_BF16);
   TLGEN_I8 adds i8 tensors I[M, K] and J[K, N] (TLGEN_I8I), which the GEMM
   idiom takes in most programs that have it: acc (i32) += dot(I.., J..);
   TLGEN_F8 adds f8 tensors E[M, K] and F[K, N] or F[N, K] of one 8-bit float
   type (f8e4m3 or f8e5m2; TLGEN_F8E4M3 or TLGEN_F8E5M2), which the GEMM idiom
   takes in most programs that have them: acc (f32) += dot(E.., F..), or
   dot(a, transpose(b)) of F[N, K];
   TLGEN_WIDE_F64 makes the program's 32-bit float type f64 instead of f32
   (tensors, scalars, tiles, literals' context, casts; its params' elem is
   TLGEN_F64), and a dot of 16- or 8-bit floats (an f32 result) is cast to
   f64; TLGEN_RAND puts rand, randn and randint (i32(randint(..) % m)) of
   i32 offsets into expressions; TLGEN_WG_LOOP (with TLGEN_WG's programs) turns
   most wgmma-shaped GEMM idioms into attention's loop of two products, the
   second's A the first's result: var s = dot(a, b); [acc2 += 1.0]; var v =
   G[k :+ n, 0 :+ n2]; acc2 += dot(f16(s), v), most of them in @pipeline(3);
   TLGEN_DEEP starts most programs that can with the GEMM idiom, whose loop,
   for 16- and 8-bit operands, then steps k by 4 steps of the matrix
   instruction (64, 128 for 8-bit ones) in @pipeline(8): stage rings that
   leave an SM few enough blocks
   that mma.sync dots load their fragments a k step ahead (pipeline.c
   rotate_dot);
   TLGEN_ONLINE makes about half of the loops the tile IR could take an online
   softmax's running max and rescaled sum: mx = -inf, l = 0.0 before a loop over a
   size whose body starts with var x = ..; var mnew = max(mx, rowmax(x)); l = l *
   exp(mx - mnew) + rowsum(exp(x - mnew)); mx = mnew (or colmax, colsum into
   [1, bn] vars), which carry.c carries across it.
   Without an option, the program is tlgen_from_seed's; an option adds only
   what it says (the choices come from streams of their own). */
enum { TLGEN_WG = 1, TLGEN_STRIDED = 2, TLGEN_HALF_BF16 = 4, TLGEN_I8 = 8, TLGEN_F8 = 16, TLGEN_WIDE_F64 = 32, TLGEN_RAND = 64,
       TLGEN_WG_LOOP = 128, TLGEN_DEEP = 256, TLGEN_ONLINE = 512 };
TlgenProgram *tlgen_from_seed_opts(uint64_t seed, unsigned opts);
TlgenProgram *tlgen_from_bytes(const uint8_t *d, size_t n); /* choices read from d; 0 once exhausted */
const char *tlgen_source(const TlgenProgram *p);           /* the .tl text */
const char *tlgen_kernel_name(const TlgenProgram *p);
void tlgen_free(TlgenProgram *p);

enum { TLGEN_F32, TLGEN_I32, TLGEN_F16, TLGEN_BF16, TLGEN_I8I, TLGEN_F8E4M3, TLGEN_F8E5M2, TLGEN_F64 };
enum { TLGEN_PARAM_TENSOR, TLGEN_PARAM_SCALAR };
#define TLGEN_MAX_RANK 4
#define TLGEN_MAX_SIZES 4

typedef struct TlgenParam {
  char name[16];
  int kind;                /* TLGEN_PARAM_TENSOR or TLGEN_PARAM_SCALAR */
  int elem;                /* TLGEN_F32, TLGEN_I32, TLGEN_F16, TLGEN_BF16, TLGEN_I8I (i8), TLGEN_F8E4M3, TLGEN_F8E5M2, TLGEN_F64 */
  int rank;                /* tensors: 1 .. TLGEN_MAX_RANK; scalars: 0 */
  int dim[TLGEN_MAX_RANK]; /* a constant dim when >= 0, else size number -dim - 1 */
  int is_output;           /* tensors the kernel stores to */
  int is_strided;          /* named in @strided: takes one stride per dim at launch */
} TlgenParam;

/* The declared parameters, in order (the size names are not among them). */
int tlgen_num_params(const TlgenProgram *p);
const TlgenParam *tlgen_param(const TlgenProgram *p, int i);
/* The size names, in the order tile2cu appends them. */
int tlgen_num_sizes(const TlgenProgram *p);
const char *tlgen_size_name(const TlgenProgram *p, int i);

/* Ragged sizes (mostly not multiples of the program's tile dims) that satisfy
 * the program's @assume conditions: sizes[i] for size i. */
void tlgen_pick_sizes(const TlgenProgram *p, uint64_t seed, long long *sizes);
/* values[i] for every scalar parameter i (other entries untouched). */
void tlgen_pick_scalars(const TlgenProgram *p, uint64_t seed, double *values);
/* The element count of tensor parameter i at these sizes. */
long long tlgen_tensor_elems(const TlgenProgram *p, int i, const long long *sizes);
/* Random contents for tensor parameter i: multiples of 1/8 in [-2, 2] for
 * floats (with 3 significant bits for f8e5m2), small integers for i32 and i8
 * (all exact in their element types). */
void tlgen_fill_tensor(const TlgenProgram *p, int i, uint64_t seed, const long long *sizes, double *data);

/* Evaluates the kernel over its whole grid. data[i] holds the contents of
 * tensor parameter i (entries of scalar parameters are ignored); the output
 * tensors are updated in place. mag[i], when not 0, receives for every
 * element of output i a bound on the magnitude of the terms its value was
 * computed from (|initial value| for elements the kernel does not store).
 * scalars[i] holds the value of scalar parameter i. Returns 0, or -1 when
 * out of memory. */
int tlgen_eval(const TlgenProgram *p, const long long *sizes, const double *scalars,
               double *const *data, double *const *mag);

/* x rounded to f8e4m3 (e5m2 0) or f8e5m2: to nearest, ties to even, saturated to
 * the largest finite value (what tlgen's f8e4m3(x) and f8e5m2(x) evaluate to). */
double tlgen_round_f8(double x, int e5m2);

/* Philox4x32-10 (Salmon et al., SC11; Random123's philox4x32) of counter c
 * and key k: the four words, into w (tlgen's own, for rand, randn and randint). */
void tlgen_philox4x32_10(const uint32_t c[4], const uint32_t k[2], uint32_t w[4]);

/* Whether got matches expected for an element of this type and magnitude. */
int tlgen_close(int elem, double expected, double mag, double got);

#endif /* TLGEN_H */
