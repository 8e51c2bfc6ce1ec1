# tile2cu: build, test and install.
#   make            build build/tile2cu
#   make test       the tests, near 10 minutes on 2 cores (unit, golden, nvcc on a third
#                   of the goldens, CPU-backend run tests, examples, the CMake example,
#                   the docs and editor checks, the differential tests)
#   make test-wide  what make test leaves out (nvcc on the other goldens, difftest-wide,
#                   the bounded fuzz pass); .ci/run runs it after make test
#   make difftest   tlgen programs on the CPU backend against tlgen's evaluation, and
#                   through nvcc (DIFF_SEEDS, NVCC_SEEDS)
#   make difftest-wide   the rest of the differential sample (more programs, and the nvcc
#                   compiles of every mode); in make test-wide
#   make docs       regenerate docs/diagnostics.md
#   make install PREFIX=/usr/local
#   make lib        build/libtile2cu.a and build/libtile2cu.so (the NVRTC driver)
#   make bench-compile   cold vs warm NVRTC compile times (not part of make test)
#   make bench-static    ptxas registers/stack/spills and PTX features of every example, no GPU
#   make bench           GEMM/softmax/rowsum/layernorm/attention on the GPU against cuBLAS and
#                        a device copy (make bench-build: build only); neither is in make test
#   make python-test  the Python package installed into a fresh venv, and its pytest tests
#   make host-test  the --host and --header outputs through the host compilers, no GPU
#   make tune-test  tile2cu tune without a GPU (argument errors, the no-GPU exit, --dry-run, --tuned)
#   make test-asan  the unit, golden, CPU-backend and differential tests again, with the
#                   translator, the tests and the generated kernels built with AddressSanitizer,
#                   UndefinedBehaviorSanitizer and LeakSanitizer (into build-asan/)
#   make fuzz FUZZ_SECONDS=N   a libFuzzer campaign, then a differential one, recorded in
#                   tests/fuzz/campaigns.tsv (tests/fuzz/README.md); make test-wide runs a
#                   bounded pass (fuzz-smoke) that replays the corpus and every past crash
CC      ?= cc
CXX     ?= g++
CFLAGS  ?= -O2 -g
override CFLAGS += -std=c11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -fPIC
PREFIX  ?= /usr/local
CUDA    ?= /usr/local/cuda
NVCC    ?= $(CUDA)/bin/nvcc
B       ?= build

TR_SRCS := $(filter-out translator/main.c,$(wildcard translator/*.c))
# common/: what the translator, the CPU backend and the driver share (fsafe.c).
TR_OBJS := $(TR_SRCS:translator/%.c=$(B)/obj/%.o) $(B)/obj/simrun.o $(B)/obj/fsafe.o
TEMPLATES := $(wildcard templates/*.tmpl)
CONFIGS := $(wildcard configs/*.yaml)
LIBS    := -lyaml -lcrypto -ldl -lpthread -lm

# libtile2cu: the NVRTC driver (nvrtc_driver/) with the translator linked in.
DRV_SRCS := $(wildcard nvrtc_driver/*.c)
DRV_OBJS := $(DRV_SRCS:nvrtc_driver/%.c=$(B)/obj/drv/%.o)
LIB_OBJS := $(TR_OBJS) $(DRV_OBJS)

all: $(B)/tile2cu lib

lib: $(B)/libtile2cu.a $(B)/libtile2cu.so

$(B)/obj/%.o: translator/%.c translator/t2c.h translator/t2c_api.h translator/npy.h rt/sim/simrun.h common/fsafe.h \
		$(wildcard translator/*.def) | $(B)/obj
	$(CC) $(CFLAGS) -DTILE2CU_PREFIX='"$(PREFIX)"' -Itranslator -Irt/sim -I$(B) -c $< -o $@

$(B)/obj/simrun.o: rt/sim/simrun.c rt/sim/simrun.h rt/sim/t2c_sim_api.h common/fsafe.h | $(B)/obj
	$(CC) $(CFLAGS) -Irt/sim -c $< -o $@

$(B)/obj/fsafe.o: common/fsafe.c common/fsafe.h | $(B)/obj
	$(CC) $(CFLAGS) -c $< -o $@

# Templates and the runtime header are embedded into the binary.
$(B)/templates.h: $(TEMPLATES) rt/tile2cu/rt.cuh rt/tile2cu/tma_host.h tools/embed.sh | $(B)
	sh tools/embed.sh $(TEMPLATES) rt/tile2cu/rt.cuh rt/tile2cu/tma_host.h > $@.tmp && mv $@.tmp $@
$(B)/obj/emit.o $(B)/obj/emit_tir.o $(B)/obj/host.o $(B)/obj/templates.o: $(B)/templates.h

# The target configs are embedded into the library too.
$(B)/configs.h: $(CONFIGS) tools/embed.sh | $(B)
	{ sh tools/embed.sh $(CONFIGS) && \
	  echo 'static const struct { const char *name, *text; } embedded_configs[] = {' && \
	  for f in $(CONFIGS); do n=$$(basename $$f .yaml); echo "  {\"$$n\", embedded_$${n}_yaml},"; done && \
	  echo '};'; } > $@.tmp && mv $@.tmp $@

# The CPU backend's sources are embedded too: t2c_cpu_launch needs no source tree.
SIM_SRCS := rt/sim/tile2cu_sim.h rt/sim/runtime.cpp rt/sim/t2c_sim_api.h
$(B)/simsrc.h: $(SIM_SRCS) tools/embed.sh | $(B)
	sh tools/embed.sh $(SIM_SRCS) > $@.tmp && mv $@.tmp $@

# The driver sees the translator through translator/t2c_api.h only.
$(B)/obj/drv/%.o: nvrtc_driver/%.c nvrtc_driver/tile2cu.h nvrtc_driver/internal.h translator/t2c_api.h \
		common/fsafe.h rt/sim/simrun.h rt/sim/t2c_sim_api.h $(B)/templates.h $(B)/configs.h $(B)/simsrc.h | $(B)/obj/drv
	$(CC) $(CFLAGS) -I$(B) -c $< -o $@

$(B)/libtile2cu.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/libtile2cu.so: $(LIB_OBJS) nvrtc_driver/libtile2cu.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libtile2cu.so.0 -Wl,--version-script=nvrtc_driver/libtile2cu.map \
	  -o $@.0 $(LIB_OBJS) $(LIBS)
	ln -sf libtile2cu.so.0 $@

$(B)/tile2cu: $(B)/obj/main.o $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(B)/obj/main.o: translator/main.c translator/t2c.h | $(B)/obj
	$(CC) $(CFLAGS) -DTILE2CU_PREFIX='"$(PREFIX)"' -Itranslator -Irt/sim -I$(B) -c $< -o $@

$(B) $(B)/obj $(B)/obj/drv:
	mkdir -p $@

# ---- tests
UNIT_SRCS := $(wildcard tests/unit/*.c)
# a stand-in for libcuda.so.1 that test_nvrtc.c loads through TILE2CU_LIBCUDA
$(B)/libfakecuda.so: tests/unit/fake/libcuda.c tests/unit/fake/fakemap.h | $(B)
	$(CC) $(CFLAGS) -shared -o $@ $<

$(B)/unit-tests: $(UNIT_SRCS) $(wildcard tests/unit/*.h tests/unit/fake/*.h) $(LIB_OBJS) nvrtc_driver/tile2cu.h nvrtc_driver/internal.h $(B)/libfakecuda.so
	$(CC) $(CFLAGS) -Itranslator -Irt/sim -I$(B) -o $@ $(UNIT_SRCS) $(LIB_OBJS) -lcriterion $(LIBS)

unit: $(B)/unit-tests $(B)/tile2cu
	T2C_FAKE_LIBCUDA=$(B)/libfakecuda.so $(B)/unit-tests --jobs 2

golden: $(B)/tile2cu
	sh tests/golden/run.sh

golden-update: $(B)/tile2cu
	sh tests/golden/run.sh --update
	sh tests/docs/check_diagnostics.sh --update
	sh tools/gen_diagnostics.sh > docs/diagnostics.md

nvcc-check: $(B)/tile2cu
	sh tests/golden/nvcc_check.sh

# make test's third of nvcc-check; make test-wide compiles the other two
nvcc-check-part: $(B)/tile2cu
	sh tests/golden/nvcc_check.sh --part 1/3

examples: $(B)/tile2cu lib
	$(MAKE) -C examples/nvcc_host TILE2CU=$(CURDIR)/$(B)/tile2cu
	# two --host translations #included into one file (their host helpers once)
	$(B)/tile2cu -w --host examples/squares.tl -o $(B)/host_a.cu
	$(B)/tile2cu -w --host examples/softmax.tl -o $(B)/host_b.cu
	printf '#include "host_a.cu"\n#include "host_b.cu"\n' > $(B)/host_ab.cu
	$(NVCC) -arch=sm_90 -I rt -c $(B)/host_ab.cu -o $(B)/host_ab.o
	# a --header of f16, bf16 and f8 launchers included from C (the types as their bits there)
	$(B)/tile2cu -w --host --header $(B)/host_c.h tests/host/types.tl -o $(B)/host_c.cu
	printf '#include "host_c.h"\nint main(void) { return 0; }\n' > $(B)/host_c.c
	$(CC) -std=c11 -Wall -Wextra -Werror -I $(CUDA)/include -c $(B)/host_c.c -o $(B)/host_c.o
	$(MAKE) -C examples/nvrtc_host T2C_BUILD=$(CURDIR)/$(B)
	cd examples/nvrtc_host && ./nvrtc_host

bench-compile: lib
	$(CC) $(CFLAGS) -Invrtc_driver -o $(B)/bench-compile bench/compile/bench.c $(B)/libtile2cu.a $(LIBS)
	$(B)/bench-compile examples/squares.tl examples/softmax.tl examples/gemm_f32.tl

# bench/README.md: a measurement, never a pass/fail test. BENCH_ARCH: the target of make bench;
# BENCH_TUNED: a tuning file that every bench translation takes as --tuned.
BENCH_ARCH ?= sm_90
BENCH_TUNED ?=
bench-static: $(B)/tile2cu
	sh bench/static.sh

bench-build: $(B)/tile2cu
	$(MAKE) -C bench/gpu TILE2CU=$(CURDIR)/$(B)/tile2cu OUT=$(CURDIR)/$(B)/bench CUDA=$(CUDA) NVCC=$(NVCC) ARCH=$(BENCH_ARCH) \
	  TUNED=$(if $(BENCH_TUNED),$(abspath $(BENCH_TUNED)))

bench: bench-build
	$(B)/bench/bench

sim-selftest:
	sh tests/sim/run.sh

gpu-sim: $(B)/tile2cu
	sh tests/gpu/run.sh --backend sim

# the whole numerical suite translated for sm_90a (wgmma where a dot fits; about 4 minutes on
# 2 cores), every case run again
gpu-sim-sm90a: $(B)/tile2cu
	sh tests/gpu/run.sh --backend sim --target sm_90a

# in make test: the whole suite for sm_90a, one schedule each, leaving out the cases that
# would run just what gpu-sim runs (a call naming its own target, or a file whose CUDA for
# the CPU backend is the same for sm_90a as for sm_90: the harness translates both and
# compares); the count of those is printed
gpu-sim-sm90a-diff: $(B)/tile2cu
	sh tests/gpu/run.sh --backend sim --target sm_90a --schedules 1 --skip-same-as sm_90

# on a GPU, then the sm_90a pass (wgmma, TMA: an H100 or H200) of the cases whose code differs
test-gpu: $(B)/tile2cu
	sh tests/gpu/run.sh --backend gpu
	sh tests/gpu/run.sh --backend gpu --target sm_90a --skip-same-as sm_90

# examples/cmake_host through the CMake package (configure and build only), and
# a staged `make install DESTDIR=build/stage` that find_package finds.
cmake-example: all
	sh tests/cmake/check.sh

# docs/diagnostics.md is generated from tests/golden/errors and tests/golden/warnings.
docs: $(B)/tile2cu
	sh tools/gen_diagnostics.sh > docs/diagnostics.md

# docs/cli.md against --help (both ways), docs/diagnostics.md against its generator
# and the warning goldens, the man page, and the editor grammars against the .def tables.
docs-check: $(B)/tile2cu
	sh tests/docs/check_cli.sh
	sh tests/docs/check_diagnostics.sh
	sh tests/editors/check.sh
	sh tests/docs/check_fuzz.sh

# The Python package (python/, docs/python.md): installed into a fresh venv ($(B)/py-venv)
# with pip, then its pytest tests on NumPy arrays and the CPU backend.
python-test: lib
	B=$(B) sh tests/python/run.sh

# the --host and --header outputs through the host C and C++ compilers (tests/host/run.sh).
host-test: $(B)/tile2cu
	TILE2CU=$(CURDIR)/$(B)/tile2cu CUDA=$(CUDA) sh tests/host/run.sh

# tile2cu tune without a GPU: argument errors, the no-GPU exit, --dry-run, --tuned.
tune-test: $(B)/tile2cu
	TILE2CU=$(CURDIR)/$(B)/tile2cu sh tests/tune/run.sh

# the binaries first, two compiles at a time (the steps after them run one by one)
test-build:
	$(MAKE) -j2 all $(B)/unit-tests $(B)/difftest

# the steps one by one, after the binaries, even under make -j (a parallel top level
# would otherwise build the binaries twice at once)
test: test-build
	$(MAKE) -j1 test-steps

test-steps: all unit golden nvcc-check-part sim-selftest gpu-sim gpu-sim-sm90a-diff examples host-test cmake-example python-test tune-test docs-check difftest

# what make test leaves out to stay near 10 minutes on 2 cores, run by .ci/run after it:
# nvcc on the other two thirds of the goldens, the rest of the differential sample, and the
# bounded fuzz pass (which replays every past crash)
test-wide: test-build
	$(MAKE) -j1 test-wide-steps

test-wide-steps: all nvcc-check-rest difftest-wide fuzz-smoke

nvcc-check-rest: $(B)/tile2cu
	sh tests/golden/nvcc_check.sh --part 2/3
	sh tests/golden/nvcc_check.sh --part 3/3

# ---- differential testing (tests/fuzz/README.md): programs from tlgen, run on the CPU
# backend at ragged sizes and compared with tlgen's own evaluation; a sample compiled
# with nvcc. DIFF_SEEDS / NVCC_SEEDS: A:B ranges of program seeds. tests/fuzz/wg-seeds.txt:
# programs whose GEMMs take wgmma, run and compiled for sm_90a. STRIDED_SEEDS: programs
# with @strided tensors (difftest --strided), run on views of wider buffers and compiled;
# wg-seeds.txt's programs with @strided too, for sm_90a (TMA over strided views).
# tests/fuzz/wgloop-seeds.txt: programs with attention's loop of two wgmma products
# (difftest --wg-loop), the second deferred into the next iteration, for sm_90a.
# BF16_SEEDS: programs whose 16-bit float type is bf16 (difftest --bf16); wg-seeds.txt's
# too, for sm_90a (wgmma on bf16). tests/fuzz/i8-seeds.txt: programs with i8 GEMMs
# (difftest --i8), run and compiled; wg-seeds.txt's with --i8 for sm_90a (wgmma on s8).
# tests/fuzz/f8-seeds.txt: programs with f8 GEMMs (difftest --f8), run and compiled;
# wg-seeds.txt's with --f8 for sm_90a (wgmma on e4m3 and e5m2). F64_SEEDS: programs whose
# 32-bit float type is f64 (difftest --f64), run and compiled. RAND_SEEDS: programs with
# rand, randn and randint (difftest --rand), run and compiled. tests/fuzz/deep-seeds.txt:
# programs whose GEMM loop (difftest --deep: 8 stages) loads its fragments a k step ahead,
# run and compiled (the compiles of every mode past the plain one in difftest-wide).
# tests/fuzz/online-seeds.txt: programs with an online softmax loop that carry.c carries
# (difftest --online), run and compiled. tests/fuzz/rotate-seeds.txt: programs with a
# @pipeline loop whose register rings rotate (pipeline.c rings_rotate), run and compiled.
# The random samples are small to keep make test near 10 minutes on 2
# cores: every session runs wider campaigns of its own (bench/RESULTS.md lists the ranges).
DIFF_SEEDS ?= 1:41
NVCC_SEEDS ?= 1:41
STRIDED_SEEDS ?= 1:51
BF16_SEEDS ?= 1:41
F64_SEEDS ?= 1:41
RAND_SEEDS ?= 1:41
# difftest-wide (in make test-wide, which .ci/run runs after make test): the rest of the
# sample, so that make test stays near 10 minutes and CI still runs all of it: more random
# programs, and the nvcc compiles of the wgmma, strided, bf16, i8, f8, f64, rand and deep
# programs (each mode's programs run on the CPU backend in make test); and
# tests/fuzz/window-seeds.txt's programs, with a window write that reads a tensor slice at
# its own elements of the tile (lower.c window_load), run and compiled.
WIDE_DIFF_SEEDS ?= 41:101
WIDE_NVCC_SEEDS ?= 41:151
$(B)/difftest: tests/fuzz/difftest.c tests/fuzz/tlgen.c tests/fuzz/tlgen.h translator/npy.c translator/npy.h | $(B)
	$(CC) $(CFLAGS) -Itranslator -Itests/fuzz -o $@ tests/fuzz/difftest.c tests/fuzz/tlgen.c translator/npy.c -lm

# every run of difftest below shares one cache: the CPU backend's runtime object is
# compiled once, not once per run (each run's own cache would be its work directory)
DIFFTEST = TILE2CU_CACHE_DIR=$(CURDIR)/$(B)/difftest-cache $(B)/difftest
difftest: $(B)/tile2cu $(B)/difftest
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seeds $(DIFF_SEEDS) -j 2
	[ ! -f tests/fuzz/regress-seeds.txt ] || $(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/regress-seeds.txt -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seeds $(NVCC_SEEDS) --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --target sm_90a -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seeds $(STRIDED_SEEDS) --strided -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/strided-regress-seeds.txt --strided -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wgloop-seeds.txt --target sm_90a --wg-loop -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seeds $(BF16_SEEDS) --bf16 -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/i8-seeds.txt --i8 -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/f8-seeds.txt --f8 -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seeds $(F64_SEEDS) --f64 -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seeds $(RAND_SEEDS) --rand -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/deep-seeds.txt --deep -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/online-seeds.txt --online -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/rotate-seeds.txt -j 2
	@# --backend gpu without a GPU (no driver here, on any machine): one message, exit 2, no program run
	@TILE2CU_LIBCUDA=/nonexistent/libcuda.so.1 $(B)/difftest --tile2cu $(B)/tile2cu --seeds 1:3 --backend gpu \
	  > $(B)/difftest-nogpu.txt 2>&1; st=$$?; \
	  if [ $$st = 2 ] && grep -q "^difftest: --backend gpu: tile2cu run cannot run a kernel on the GPU:" $(B)/difftest-nogpu.txt \
	    && ! grep -q "programs," $(B)/difftest-nogpu.txt; then echo "difftest: --backend gpu without a GPU: exit 2, said so"; \
	  else echo "difftest: --backend gpu without a GPU: exit $$st:"; cat $(B)/difftest-nogpu.txt; exit 1; fi

difftest-wide: $(B)/tile2cu $(B)/difftest
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seeds $(WIDE_DIFF_SEEDS) -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/window-seeds.txt -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/window-seeds.txt --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seeds $(WIDE_NVCC_SEEDS) --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --arch sm_90a --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seeds $(STRIDED_SEEDS) --strided --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --target sm_90a --strided -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --target sm_90a --bf16 -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --arch sm_90a --bf16 --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/i8-seeds.txt --i8 --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --target sm_90a --i8 -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/f8-seeds.txt --f8 --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --target sm_90a --f8 -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/wg-seeds.txt --arch sm_90a --f8 --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seeds $(F64_SEEDS) --f64 --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seeds $(RAND_SEEDS) --rand --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/deep-seeds.txt --deep --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/online-seeds.txt --online --nvcc-path $(NVCC) -j 2
	$(DIFFTEST) --nvcc --tile2cu $(B)/tile2cu --seed-file tests/fuzz/rotate-seeds.txt --nvcc-path $(NVCC) -j 2

# ---- fuzzing (tests/fuzz/README.md): libFuzzer targets built with clang, ASan and UBSan.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_FLAGS   := -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FZ           := $(B)/fuzz
FUZZ_TR_SRCS := $(TR_SRCS) rt/sim/simrun.c common/fsafe.c $(DRV_SRCS)
FUZZ_TR_DEPS := $(FUZZ_TR_SRCS) translator/t2c.h translator/t2c_api.h common/fsafe.h $(wildcard translator/*.def) \
                $(B)/templates.h $(B)/configs.h $(B)/simsrc.h

$(FZ):
	mkdir -p $@

$(FZ)/fuzz_translate: tests/fuzz/fuzz_translate.c tests/fuzz/fuzz_targets.h $(FUZZ_TR_DEPS) | $(FZ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itranslator -Irt/sim -I$(B) -o $@ $< $(FUZZ_TR_SRCS) $(LIBS)

$(FZ)/fuzz_gen: tests/fuzz/fuzz_gen.c tests/fuzz/fuzz_targets.h tests/fuzz/tlgen.c tests/fuzz/tlgen.h $(FUZZ_TR_DEPS) | $(FZ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itranslator -Irt/sim -I$(B) -o $@ $< tests/fuzz/tlgen.c $(FUZZ_TR_SRCS) $(LIBS)

$(FZ)/fuzz_npy: tests/fuzz/fuzz_npy.c translator/npy.c translator/npy.h | $(FZ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itranslator -o $@ $< translator/npy.c

fuzz-build: $(FZ)/fuzz_translate $(FZ)/fuzz_gen $(FZ)/fuzz_npy

# make test: every past crash replayed, then about 60 s of fuzzing from the corpus
fuzz-smoke:
	$(MAKE) -j2 fuzz-build
	B=$(B) sh tests/fuzz/run.sh smoke 60

# a campaign: new crashes land in tests/fuzz/crashes/, the corpus grows, the ledger
# tests/fuzz/campaigns.tsv gets a line per target; then 200 new tlgen programs are run
# against tlgen's evaluation and compiled with nvcc (the long "accepted means compilable")
fuzz: fuzz-build $(B)/tile2cu $(B)/difftest
	B=$(B) sh tests/fuzz/run.sh campaign $(FUZZ_SECONDS)
	B=$(B) sh tests/fuzz/difftest_campaign.sh

# ---- sanitizers: everything above that runs translator or kernel code, rebuilt with
# ASan + UBSan (+ LSan, part of ASan) into build-asan/. Any report fails the step
# (tests/sanitized.sh). Generated kernels run on the CPU backend with UBSan (which
# includes array bounds) for the whole numerical suite, and with ASan too for a
# sample of kernels that covers every lowering (ASan makes fiber code ~30x slower).
ASAN_FLAGS  := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
UBSAN_FLAGS := -O1 -g -fsanitize=undefined -fno-sanitize-recover=all
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ASAN_DIFF_SEEDS := 1:21
ASAN_KERNELS := examples/squares examples/softmax_row elementwise_i32 reduce_rows_shared mma_shared pipeline3_dot_f16 \
                registers_softmax dot_f16 vec_load
test-asan:
	$(MAKE) B=build-asan CC=gcc CFLAGS="$(ASAN_FLAGS)" build-asan/tile2cu build-asan/unit-tests build-asan/difftest
	$(ASAN_ENV) T2C_FAKE_LIBCUDA=build-asan/libfakecuda.so sh tests/sanitized.sh build-asan/unit-tests --jobs 2
	$(ASAN_ENV) TILE2CU=$(CURDIR)/build-asan/tile2cu sh tests/sanitized.sh sh tests/golden/run.sh
	$(ASAN_ENV) SANITIZE=1 CXX="g++ $(ASAN_FLAGS)" BUILD=$(CURDIR)/build-asan NVCC_CHECK=0 \
	  sh tests/sanitized.sh sh tests/sim/run.sh
	$(ASAN_ENV) B=build-asan CXX="g++ $(ASAN_FLAGS)" CFLAGS_EXTRA="$(ASAN_FLAGS)" \
	  sh tests/sanitized.sh sh tests/gpu/run.sh --backend sim $(ASAN_KERNELS)
	$(ASAN_ENV) B=build-asan CXX="g++ $(UBSAN_FLAGS)" CFLAGS_EXTRA="$(ASAN_FLAGS)" \
	  sh tests/sanitized.sh sh tests/gpu/run.sh --backend sim
	$(ASAN_ENV) CXX="g++ $(UBSAN_FLAGS)" sh tests/sanitized.sh \
	  build-asan/difftest --tile2cu build-asan/tile2cu --seeds $(ASAN_DIFF_SEEDS) -j 2

clean:
	rm -rf $(B)
	$(MAKE) -C examples/nvcc_host clean
	$(MAKE) -C examples/nvrtc_host clean

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/tile2cu $(DESTDIR)$(PREFIX)/share/tile2cu/configs
	install -m 755 $(B)/tile2cu $(DESTDIR)$(PREFIX)/bin/tile2cu
	install -m 644 rt/tile2cu/rt.cuh $(DESTDIR)$(PREFIX)/include/tile2cu/rt.cuh
	install -m 644 rt/tile2cu/tma_host.h $(DESTDIR)$(PREFIX)/include/tile2cu/tma_host.h
	install -m 644 configs/*.yaml $(DESTDIR)$(PREFIX)/share/tile2cu/configs/
	install -d $(DESTDIR)$(PREFIX)/share/tile2cu/sim
	install -m 644 rt/sim/tile2cu_sim.h rt/sim/runtime.cpp rt/sim/t2c_sim_api.h $(DESTDIR)$(PREFIX)/share/tile2cu/sim/
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(B)/libtile2cu.a $(DESTDIR)$(PREFIX)/lib/libtile2cu.a
	install -m 755 $(B)/libtile2cu.so.0 $(DESTDIR)$(PREFIX)/lib/libtile2cu.so.0
	ln -sf libtile2cu.so.0 $(DESTDIR)$(PREFIX)/lib/libtile2cu.so
	install -m 644 nvrtc_driver/tile2cu.h $(DESTDIR)$(PREFIX)/include/tile2cu.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|'"$$(sed -n 's/^#define TILE2CU_VERSION "\(.*\)"/\1/p' translator/t2c.h)"'|g' \
	  nvrtc_driver/tile2cu.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tile2cu.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/tile2cu.pc
	install -d $(DESTDIR)$(PREFIX)/lib/cmake/Tile2cu $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 cmake/Tile2cuConfig.cmake cmake/Tile2cuConfigVersion.cmake $(DESTDIR)$(PREFIX)/lib/cmake/Tile2cu/
	install -m 644 man/tile2cu.1 $(DESTDIR)$(PREFIX)/share/man/man1/tile2cu.1
	install -d $(DESTDIR)$(PREFIX)/share/tile2cu/editors/vim/syntax $(DESTDIR)$(PREFIX)/share/tile2cu/editors/vim/ftdetect
	install -m 644 editors/tile2cu.tmLanguage.json $(DESTDIR)$(PREFIX)/share/tile2cu/editors/
	install -m 644 editors/vim/syntax/tile2cu.vim $(DESTDIR)$(PREFIX)/share/tile2cu/editors/vim/syntax/
	install -m 644 editors/vim/ftdetect/tile2cu.vim $(DESTDIR)$(PREFIX)/share/tile2cu/editors/vim/ftdetect/

.PHONY: all lib unit golden golden-update difftest difftest-wide test-build nvcc-check nvcc-check-part nvcc-check-rest test-wide test-wide-steps sim-selftest gpu-sim gpu-sim-sm90a gpu-sim-sm90a-diff examples host-test cmake-example python-test tune-test docs docs-check bench-compile bench-static bench-build bench test test-steps clean install
