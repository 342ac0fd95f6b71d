# twinfab: the two commands of the quick start, and a few helpers.
#
#   make demo    install dependencies, build what the demo runs (twinfab first, then the
#                MPI example and the Python package), run the main job on the simulated fabric
#   make test    install dependencies, build everything, run every test (unit, sim, cli, vm: rxe/siw)
#
# A fresh `make demo`, timed to its first table: ci/time_demo.sh (README, "Quick start").
#
# Subsets: make test LABELS=unit   (or sim, cli, vm, fuzz; a ctest -L regular expression)
#          make test-fast          (everything but the micro-VM stage)
#          make test-vm            (the micro-VM stage alone, its inner tests streamed)
#          make test-asan          (unit, sim and cli tests built with ASan+UBSan in build-asan/;
#                                   CI runs it after make test)
BUILD  ?= build
JOBS   ?= 2
LABELS ?=
TWINFAB = $(BUILD)/tools/twinfab/twinfab

ASAN_BUILD ?= build-asan
VM_STAGE = ctest --test-dir $(BUILD) --output-on-failure -V -L vm

.PHONY: all deps configure build demo test test-vm test-fast test-asan bench clean

all: build

deps:
	@bash ci/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo; fi

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only the demo's targets, each built just before the step that runs it (ci/demo.sh).
demo: configure
	@bash ci/demo.sh $(BUILD) $(JOBS)

# Without LABELS: everything but the micro-VM stage in parallel, then the VM stage
# verbose, so that each test run inside the VM prints its result line as it ends and
# the inner ctest's count ("100% tests passed, 0 tests failed out of N") shows (ctest
# shows a test's output only at its end otherwise: minutes of silence per device).
test: build
ifeq ($(LABELS),)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE vm
	$(VM_STAGE)
else
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L '$(LABELS)'
endif

test-vm: build
	$(VM_STAGE)

test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE vm

test-asan: deps
	@if [ ! -f $(ASAN_BUILD)/build.ninja ]; then \
	  cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTWINFAB_SANITIZE=ON -DTWINFAB_UNITY=OFF -DTWINFAB_WITH_VERBS=OFF \
	    -DTWINFAB_WITH_PYTHON=OFF; fi
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	# Leak checking is off: SimGrid keeps its engine until exit by design.
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -L 'unit|sim|cli'

# Each comparison exits 3 when its target is missed (1 when a run failed): the `-`
# lines go on after a miss, so that one missed target does not hide the others'
# figures; a failed run of those without `-` stops make bench.
bench: build
	$(BUILD)/bench/bench_sim_pingpong
	-$(BUILD)/bench/bench_ud_scale
	$(BUILD)/bench/bench_srq_memory
	$(BUILD)/bench/bench_regcache
	-bash bench/smpi_compare.sh $(BUILD)
	-bash bench/ud_compare.sh $(BUILD)
	-$(BUILD)/bench/bench_mpi_ring
	-bash bench/smpi_ring.sh $(BUILD)
	-bash bench/smpi_rma_compare.sh $(BUILD)
	-PYTHONPATH=$(BUILD)/python /usr/bin/python3 bench/python/sweep_speedup.py
	-PYTHONPATH=$(BUILD)/python /usr/bin/python3 bench/python/point_overhead.py
	@if [ -x bench/vm_perftest.sh ]; then bash bench/vm_perftest.sh $(BUILD); fi
	@if [ -x bench/vm_mpi_perftest.sh ]; then bash bench/vm_mpi_perftest.sh $(BUILD); fi
	-@if [ -x bench/vm_rma_perftest.sh ]; then bash bench/vm_rma_perftest.sh $(BUILD); fi
	-@if [ -x bench/vm_latency_timeline.sh ]; then bash bench/vm_latency_timeline.sh $(BUILD); fi
	-@if [ -x bench/validate_sim.sh ]; then bash bench/validate_sim.sh $(BUILD); fi

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
