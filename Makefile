# C-level tests of the utfkit core (no Python involved).
#
#   make ctest       build csrc/tests/*.c with the core at -O2, warnings as errors, and run
#   make ctest-asan  the same at -O1 -g under AddressSanitizer and UBSan
#   make ctest-neon  cross-build for 64-bit ARM (aarch64-linux-gnu-gcc, static) and run
#                    under qemu-aarch64, so the NEON kernel is tested on an x86 machine
#                    (Debian: apt-get install gcc-aarch64-linux-gnu qemu-user); --quick by
#                    default, about 3 minutes
#   make bench       build benchmarks/bench_kernels.c with the core (-O3 -falign-functions=64,
#                    as the Python extension is built) and run it: GB/s per operation, per text file,
#                    per kernel, with memchr's read speed over the same buffer beside it.
#                    BENCH_CORPUS (default: the team's shared corpus, ../shared/corpus
#                    from the main checkout) and BENCH_ARGS (e.g. --ops count,len8to16
#                    --kernels avx2,avx512 --ratios) choose what it measures
#   make clean       remove csrc/tests/bin/ and benchmarks/bin/
#
# Extra arguments for the test program: make ctest CTEST_ARGS=--all-4-byte
#
# Fuzzing (clang with libFuzzer; Debian: clang and libclang-rt-dev):
#   make fuzz        build every fuzz/fuzz_*.c with -fsanitize=fuzzer,address,undefined,
#                    write the seeds (fuzz/make_seeds.py: needs only the source tree)
#                    and run each target for FUZZ_SECONDS (default 60) through
#                    fuzz/campaign.py: inputs up to FUZZ_MAX_LEN bytes, new inputs to
#                    fuzz/corpus/NAME, failing ones to fuzz/artifacts/, logs to
#                    fuzz/logs/; executions, coverage, the SIMD functions reached and
#                    the findings to FUZZ_RESULTS (fuzz/results.txt).  Fails if any
#                    target found anything, printing the input as hex.  What .ci/run runs.
#   make fuzz-long   the same for FUZZ_LONG_SECONDS (default 600) per target, results
#                    to fuzz/results-long.txt
#   make fuzz-build  only build them (fuzz/bin/)
#   make fuzz-coverage  replay saved corpora (FUZZ_CORPUS, default fuzz/corpus: one NAME/
#                    folder per target, e.g. a fuzz-long run's) with the seeds and
#                    regressions through clang source-based coverage builds of every
#                    target (fuzz/bin/cov/), and write per target the SIMD lines and
#                    functions reached, and the SIMD functions no target reaches, to
#                    FUZZ_COVERAGE_RESULTS (fuzz/results-coverage.txt); fails if there
#                    are any.  A few minutes: how to re-check coverage after new kernels

CC ?= gcc
# make predefines CC=cc, which `?=` leaves alone; prefer gcc unless CC was given.
ifeq ($(origin CC),default)
CC := gcc
endif
CTEST_ARGS ?=

CORE_SOURCES := $(wildcard csrc/*.c csrc/simd/*.c)
CORE_HEADERS := $(wildcard csrc/*.h csrc/simd/*.h)
TEST_SOURCES := $(wildcard csrc/tests/*.c)
BIN := csrc/tests/bin

WARNINGS := -Wall -Wextra -Werror
CTEST_CFLAGS := -O2 $(WARNINGS) -std=c11 -Icsrc
ASAN_CFLAGS := -O1 -g $(WARNINGS) -std=c11 -Icsrc \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

CTEST_PROGRAMS := $(patsubst csrc/tests/%.c,$(BIN)/%,$(TEST_SOURCES))
ASAN_PROGRAMS := $(patsubst csrc/tests/%.c,$(BIN)/%-asan,$(TEST_SOURCES))
# The core compiled once under the sanitizers, linked into every C test.
ASAN_CORE_OBJECTS := $(patsubst csrc/%.c,$(BIN)/asan-core/%.o,$(CORE_SOURCES))

# The ARM cross-build: static, so qemu-aarch64 needs no ARM libraries.
AARCH64_CC ?= aarch64-linux-gnu-gcc
QEMU_AARCH64 ?= qemu-aarch64
NEON_CTEST_ARGS ?= --quick
NEON_PROGRAMS := $(patsubst csrc/tests/%.c,$(BIN)/%-aarch64,$(TEST_SOURCES))

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_LONG_SECONDS ?= 600
FUZZ_MAX_LEN ?= 4200
FUZZ_RESULTS ?= fuzz/results.txt
PYTHON ?= python3
FUZZ_SANITIZERS := address,undefined
FUZZ_CFLAGS := -g -O1 -Icsrc -fno-sanitize-recover=all
FUZZ_SOURCES := $(wildcard fuzz/fuzz_*.c)
FUZZ_BIN := fuzz/bin
FUZZ_PROGRAMS := $(patsubst fuzz/%.c,$(FUZZ_BIN)/%,$(FUZZ_SOURCES))
# The core is compiled once for all targets (instrumented for libFuzzer's
# coverage, not linked with its main).
FUZZ_CORE_OBJECTS := $(patsubst csrc/%.c,$(FUZZ_BIN)/core/%.o,$(CORE_SOURCES))
# Coverage builds (fuzz-coverage): clang source-based coverage, no sanitizer.
FUZZ_CORPUS ?= fuzz/corpus
FUZZ_COVERAGE_RESULTS ?= fuzz/results-coverage.txt
FUZZ_COVERAGE_FLAGS := -g -O1 -Icsrc -fprofile-instr-generate -fcoverage-mapping
FUZZ_COVERAGE_PROGRAMS := $(patsubst fuzz/%.c,$(FUZZ_BIN)/cov/%,$(FUZZ_SOURCES))
FUZZ_COVERAGE_OBJECTS := $(patsubst csrc/%.c,$(FUZZ_BIN)/cov/core/%.o,$(CORE_SOURCES))

.PHONY: ctest ctest-asan ctest-neon clean fuzz fuzz-long fuzz-build fuzz-seeds fuzz-coverage bench

BENCH_BIN := benchmarks/bin
BENCH_CORPUS ?= $(firstword $(wildcard ../shared/corpus ../../shared/corpus))
BENCH_ARGS ?=
# -falign-functions=64: every function starts on a 64-byte line, so a size change in one
# function never moves the code of another within its line (the decoded-instruction cache
# and the loop buffer work in 32/64-byte windows; session 12 measured avx512 UTF-32 -> UTF-8
# losing up to 34 % when an unchanged function moved 16 bytes).  The Python extension is
# built with the same flags (src/utfkit/_ffi_build.py).
BENCH_CFLAGS := -O3 -std=gnu11 -falign-functions=64 $(WARNINGS) -Icsrc

bench: $(BENCH_BIN)/bench_kernels
	@test -n "$(BENCH_CORPUS)$(filter-out -%,$(BENCH_ARGS))" || \
	  { echo "make bench: give BENCH_CORPUS=DIR (a folder of UTF-8 .txt files)"; exit 2; }
	./$(BENCH_BIN)/bench_kernels $(BENCH_ARGS) $(BENCH_CORPUS)

$(BENCH_BIN)/bench_kernels: benchmarks/bench_kernels.c $(CORE_SOURCES) $(CORE_HEADERS) Makefile | $(BENCH_BIN)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(CORE_SOURCES)

$(BENCH_BIN):
	mkdir -p $@

ctest: $(CTEST_PROGRAMS)
	@set -e; for program in $^; do echo "== $$program"; ./$$program $(CTEST_ARGS); done

ctest-asan: $(ASAN_PROGRAMS)
	@set -e; for program in $^; do echo "== $$program"; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./$$program $(CTEST_ARGS); done

ctest-neon: $(NEON_PROGRAMS)
	@set -e; for program in $^; do echo "== $$program (under $(QEMU_AARCH64))"; \
	  $(QEMU_AARCH64) ./$$program $(NEON_CTEST_ARGS); done

$(BIN)/%-aarch64: csrc/tests/%.c $(CORE_SOURCES) $(CORE_HEADERS) Makefile | $(BIN)
	$(AARCH64_CC) $(CTEST_CFLAGS) -static -o $@ $< $(CORE_SOURCES)

$(BIN)/%: csrc/tests/%.c $(CORE_SOURCES) $(CORE_HEADERS) Makefile | $(BIN)
	$(CC) $(CTEST_CFLAGS) -o $@ $< $(CORE_SOURCES)

.SECONDARY: $(ASAN_CORE_OBJECTS)

$(BIN)/asan-core/%.o: csrc/%.c $(CORE_HEADERS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -c -o $@ $<

$(BIN)/%-asan: csrc/tests/%.c $(ASAN_CORE_OBJECTS) $(CORE_HEADERS) Makefile | $(BIN)
	$(CC) $(ASAN_CFLAGS) -o $@ $< $(ASAN_CORE_OBJECTS)

$(BIN):
	mkdir -p $@

fuzz-build: $(FUZZ_PROGRAMS)

# kept between builds (make would delete them as intermediate files)
.SECONDARY: $(FUZZ_CORE_OBJECTS)

$(FUZZ_BIN)/core/%.o: csrc/%.c $(CORE_HEADERS) Makefile
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZERS) -c -o $@ $<

$(FUZZ_BIN)/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h) $(FUZZ_CORE_OBJECTS) Makefile | $(FUZZ_BIN)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SANITIZERS) -o $@ $< $(FUZZ_CORE_OBJECTS)

$(FUZZ_BIN):
	mkdir -p $@

.SECONDARY: $(FUZZ_COVERAGE_OBJECTS)

$(FUZZ_BIN)/cov/core/%.o: csrc/%.c $(CORE_HEADERS) Makefile
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_COVERAGE_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BIN)/cov/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h) $(FUZZ_COVERAGE_OBJECTS) Makefile
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_COVERAGE_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_COVERAGE_OBJECTS)

fuzz-coverage: $(FUZZ_COVERAGE_PROGRAMS) fuzz-seeds
	$(PYTHON) fuzz/coverage.py --corpus $(FUZZ_CORPUS) --results $(FUZZ_COVERAGE_RESULTS) \
	  $(FUZZ_COVERAGE_PROGRAMS)

fuzz-seeds:
	$(PYTHON) fuzz/make_seeds.py fuzz/seeds

fuzz: fuzz-build fuzz-seeds
	$(PYTHON) fuzz/campaign.py --seconds $(FUZZ_SECONDS) --max-len $(FUZZ_MAX_LEN) \
	  --results $(FUZZ_RESULTS) $(FUZZ_PROGRAMS)

fuzz-long: fuzz-build fuzz-seeds
	$(PYTHON) fuzz/campaign.py --seconds $(FUZZ_LONG_SECONDS) --max-len $(FUZZ_MAX_LEN) \
	  --results fuzz/results-long.txt $(FUZZ_PROGRAMS)

clean:
	rm -rf $(BIN) $(FUZZ_BIN) $(BENCH_BIN)
