# C-level tests of the utfkit core (no Python involved).
#
#   make ctest       build csrc/tests/*.c with the core at -O2, warnings as errors, and run
#   make ctest-asan  the same at -O1 -g under AddressSanitizer and UBSan
#   make clean       remove csrc/tests/bin/
#
# Extra arguments for the test program: make ctest CTEST_ARGS=--all-4-byte

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

.PHONY: ctest ctest-asan clean

ctest: $(CTEST_PROGRAMS)
	@set -e; for program in $^; do echo "== $$program"; ./$$program $(CTEST_ARGS); done

ctest-asan: $(ASAN_PROGRAMS)
	@set -e; for program in $^; do echo "== $$program"; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./$$program $(CTEST_ARGS); done

$(BIN)/%: csrc/tests/%.c $(CORE_SOURCES) $(CORE_HEADERS) Makefile | $(BIN)
	$(CC) $(CTEST_CFLAGS) -o $@ $< $(CORE_SOURCES)

$(BIN)/%-asan: csrc/tests/%.c $(CORE_SOURCES) $(CORE_HEADERS) Makefile | $(BIN)
	$(CC) $(ASAN_CFLAGS) -o $@ $< $(CORE_SOURCES)

$(BIN):
	mkdir -p $@

clean:
	rm -rf $(BIN)
