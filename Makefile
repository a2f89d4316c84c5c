# C-level tests of the utfkit core (no Python involved).
#
#   make ctest       build csrc/tests/*.c with the core at -O2, warnings as errors, and run
#   make ctest-asan  the same at -O1 -g under AddressSanitizer and UBSan
#   make ctest-neon  cross-build for 64-bit ARM (aarch64-linux-gnu-gcc, static) and run
#                    under qemu-aarch64, so the NEON kernel is tested on an x86 machine
#                    (Debian: apt-get install gcc-aarch64-linux-gnu qemu-user); --quick by
#                    default, about 3 minutes
#   make bench       build benchmarks/bench_kernels.c with the core (-O3, as the Python
#                    extension is built) and run it: GB/s per operation, per text file,
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
#                    write the seeds (fuzz/make_seeds.py, needs utfkit importable by
#                    $(PYTHON)) and run each target for FUZZ_SECONDS (default 60);
#                    new inputs go to fuzz/corpus/NAME, crashes to fuzz/artifacts/
#   make fuzz-build  only build them (fuzz/bin/)

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

# The ARM cross-build: static, so qemu-aarch64 needs no ARM libraries.
AARCH64_CC ?= aarch64-linux-gnu-gcc
QEMU_AARCH64 ?= qemu-aarch64
NEON_CTEST_ARGS ?= --quick
NEON_PROGRAMS := $(patsubst csrc/tests/%.c,$(BIN)/%-aarch64,$(TEST_SOURCES))

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
PYTHON ?= python3
FUZZ_CFLAGS := -g -O1 -Icsrc -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SOURCES := $(wildcard fuzz/fuzz_*.c)
FUZZ_BIN := fuzz/bin
FUZZ_PROGRAMS := $(patsubst fuzz/%.c,$(FUZZ_BIN)/%,$(FUZZ_SOURCES))

.PHONY: ctest ctest-asan ctest-neon clean fuzz fuzz-build fuzz-seeds bench

BENCH_BIN := benchmarks/bin
BENCH_CORPUS ?= $(firstword $(wildcard ../shared/corpus ../../shared/corpus))
BENCH_ARGS ?=
BENCH_CFLAGS := -O3 -std=gnu11 $(WARNINGS) -Icsrc

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

$(BIN)/%-asan: csrc/tests/%.c $(CORE_SOURCES) $(CORE_HEADERS) Makefile | $(BIN)
	$(CC) $(ASAN_CFLAGS) -o $@ $< $(CORE_SOURCES)

$(BIN):
	mkdir -p $@

fuzz-build: $(FUZZ_PROGRAMS)

$(FUZZ_BIN)/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h) $(CORE_SOURCES) $(CORE_HEADERS) Makefile | $(FUZZ_BIN)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(CORE_SOURCES)

$(FUZZ_BIN):
	mkdir -p $@

fuzz-seeds:
	$(PYTHON) fuzz/make_seeds.py fuzz/seeds

fuzz: fuzz-build fuzz-seeds
	@set -e; for program in $(FUZZ_PROGRAMS); do name=$${program#$(FUZZ_BIN)/fuzz_}; \
	  mkdir -p fuzz/corpus/$$name fuzz/artifacts; echo "== $$program for $(FUZZ_SECONDS) s"; \
	  ./$$program -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=fuzz/artifacts/$$name- fuzz/corpus/$$name \
	    $$(for extra in fuzz/seeds/$$name fuzz/regressions/$$name; do test -d $$extra && echo $$extra; done); \
	done

clean:
	rm -rf $(BIN) $(FUZZ_BIN) $(BENCH_BIN)
