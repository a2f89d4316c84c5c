# C-level tests of the utfkit core (no Python involved).
#
#   make ctest       build csrc/tests/*.c with the core at -O2, warnings as errors, and run
#   make ctest-asan  the same at -O1 -g under AddressSanitizer and UBSan
#   make ctest-neon  cross-build for 64-bit ARM (aarch64-linux-gnu-gcc, static) and run
#                    under qemu-aarch64, so the NEON kernel is tested on an x86 machine
#                    (Debian: apt-get install gcc-aarch64-linux-gnu qemu-user); --quick by
#                    default, about 3 minutes
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

# The ARM cross-build: static, so qemu-aarch64 needs no ARM libraries.
AARCH64_CC ?= aarch64-linux-gnu-gcc
QEMU_AARCH64 ?= qemu-aarch64
NEON_CTEST_ARGS ?= --quick
NEON_PROGRAMS := $(patsubst csrc/tests/%.c,$(BIN)/%-aarch64,$(TEST_SOURCES))

.PHONY: ctest ctest-asan ctest-neon clean

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

clean:
	rm -rf $(BIN)
