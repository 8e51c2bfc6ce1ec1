# tile2cu: build, test and install.
#   make            build build/tile2cu
#   make test       every test (unit, golden, nvcc, CPU-backend run tests, examples)
#   make install PREFIX=/usr/local
CC      ?= cc
CXX     ?= g++
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE
PREFIX  ?= /usr/local
CUDA    ?= /usr/local/cuda
NVCC    ?= $(CUDA)/bin/nvcc
B       := build

TR_SRCS := $(filter-out translator/main.c,$(wildcard translator/*.c))
TR_OBJS := $(TR_SRCS:translator/%.c=$(B)/obj/%.o) $(B)/obj/simrun.o
TEMPLATES := $(wildcard templates/*.tmpl)
LIBS    := -lyaml -ldl -lpthread -lm

all: $(B)/tile2cu

$(B)/obj/%.o: translator/%.c translator/tile2cu.h $(wildcard translator/*.def) | $(B)/obj
	$(CC) $(CFLAGS) -DTILE2CU_PREFIX='"$(PREFIX)"' -Itranslator -Irt/sim -I$(B) -c $< -o $@

$(B)/obj/simrun.o: rt/sim/simrun.c rt/sim/simrun.h rt/sim/t2c_sim_api.h | $(B)/obj
	$(CC) $(CFLAGS) -Irt/sim -c $< -o $@

# Templates and the runtime header are embedded into the binary.
$(B)/templates.h: $(TEMPLATES) rt/tile2cu/rt.cuh tools/embed.sh | $(B)
	sh tools/embed.sh $(TEMPLATES) rt/tile2cu/rt.cuh > $@.tmp && mv $@.tmp $@
$(B)/obj/emit.o $(B)/obj/templates.o: $(B)/templates.h

$(B)/tile2cu: $(B)/obj/main.o $(TR_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(B)/obj/main.o: translator/main.c translator/tile2cu.h | $(B)/obj
	$(CC) $(CFLAGS) -DTILE2CU_PREFIX='"$(PREFIX)"' -Itranslator -Irt/sim -I$(B) -c $< -o $@

$(B) $(B)/obj:
	mkdir -p $@

# ---- tests
UNIT_SRCS := $(wildcard tests/unit/*.c)
$(B)/unit-tests: $(UNIT_SRCS) $(TR_OBJS)
	$(CC) $(CFLAGS) -Itranslator -Irt/sim -I$(B) -o $@ $(UNIT_SRCS) $(TR_OBJS) -lcriterion $(LIBS)

unit: $(B)/unit-tests
	$(B)/unit-tests --jobs 2

golden: $(B)/tile2cu
	sh tests/golden/run.sh

golden-update: $(B)/tile2cu
	sh tests/golden/run.sh --update

nvcc-check: $(B)/tile2cu
	sh tests/golden/nvcc_check.sh

examples: $(B)/tile2cu
	$(MAKE) -C examples/nvcc_host TILE2CU=$(CURDIR)/$(B)/tile2cu

sim-selftest:
	sh tests/sim/run.sh

gpu-sim: $(B)/tile2cu
	sh tests/gpu/run.sh --backend sim

test: all unit golden nvcc-check sim-selftest gpu-sim examples

clean:
	rm -rf $(B)
	$(MAKE) -C examples/nvcc_host clean

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/tile2cu $(DESTDIR)$(PREFIX)/share/tile2cu/configs
	install -m 755 $(B)/tile2cu $(DESTDIR)$(PREFIX)/bin/tile2cu
	install -m 644 rt/tile2cu/rt.cuh $(DESTDIR)$(PREFIX)/include/tile2cu/rt.cuh
	install -m 644 configs/*.yaml $(DESTDIR)$(PREFIX)/share/tile2cu/configs/
	install -d $(DESTDIR)$(PREFIX)/share/tile2cu/sim
	install -m 644 rt/sim/tile2cu_sim.h rt/sim/runtime.cpp rt/sim/t2c_sim_api.h $(DESTDIR)$(PREFIX)/share/tile2cu/sim/

.PHONY: all unit golden golden-update nvcc-check sim-selftest gpu-sim examples test clean install
