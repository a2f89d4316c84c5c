#!/bin/sh
# Instructions per byte of utfkit_utf8_validate, or of a conversion,
# counted by callgrind.
#
#   benchmarks/callgrind/instructions_per_byte.sh [--op FROM:TO] [KERNEL...] -- FILE...
#
# Builds validate_driver.c with the core (-O3, as the Python extension is
# built), then for each KERNEL (default: scalar sse4 avx2) and FILE runs it
# under `valgrind --tool=callgrind`, collecting instructions only inside
# utfkit_utf8_validate, and prints Ir / bytes.  With --op FROM:TO (utfkit.h's
# form numbers: 0 UTF-8, 1 UTF-16LE, 2 UTF-16BE, 3 UTF-32LE, 4 UTF-32BE) it
# counts utfkit_transcode from FROM to TO instead (transcode_driver.c: FILE
# converted to FROM first, outside the count), per byte of FROM input.  Valgrind 3.19 does not
# emulate AVX-512 (its virtual CPU does not report it), so the avx512
# kernel cannot be counted this way.
set -eu
cd "$(dirname "$0")/../.."
kernels=""
op=""
if [ "${1:-}" = "--op" ]; then op="$2"; shift 2; fi
while [ $# -gt 0 ] && [ "$1" != "--" ]; do kernels="$kernels $1"; shift; done
[ $# -gt 0 ] && shift
[ -n "$kernels" ] || kernels="scalar sse4 avx2"
[ $# -gt 0 ] || { echo "usage: $0 [--op FROM:TO] [KERNEL...] -- FILE..." >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$op" ]; then
  ${CC:-gcc} -O3 -std=gnu11 -falign-functions=64 -g -Icsrc -o "$work/driver" benchmarks/callgrind/transcode_driver.c csrc/*.c csrc/simd/*.c
  collect=transcode_rounds
  forms=$(echo "$op" | tr ':' ' ')
else
  ${CC:-gcc} -O3 -std=gnu11 -falign-functions=64 -g -Icsrc -o "$work/driver" benchmarks/callgrind/validate_driver.c csrc/*.c csrc/simd/*.c
  collect=utfkit_utf8_validate
  forms=""
fi
rounds=10
printf '%-8s %-32s %12s %14s %10s\n' kernel file bytes instructions "Ir/byte"
for kernel in $kernels; do
  for file in "$@"; do
    # shellcheck disable=SC2086  # $forms is two words, or none
    bytes=$("$work/driver" "$kernel" "$rounds" $forms "$file" | awk '{print $1}')
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file="$work/out" \
      --toggle-collect=$collect "$work/driver" "$kernel" "$rounds" $forms "$file" \
      > /dev/null 2> "$work/log" || { echo "$kernel: not run (see valgrind's log)"; cat "$work/log" >&2; continue; }
    ir=$(callgrind_annotate "$work/out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
    printf '%-8s %-32s %12d %14d %10.3f\n' "$kernel" "$(basename "$file")" "$bytes" "$ir" \
      "$(echo "$ir / $bytes" | bc -l)"
  done
done
