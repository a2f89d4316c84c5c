#!/bin/sh
# Instructions per byte of utfkit_utf8_validate, counted by callgrind.
#
#   benchmarks/callgrind/instructions_per_byte.sh [KERNEL...] -- FILE...
#
# Builds validate_driver.c with the core (-O3, as the Python extension is
# built), then for each KERNEL (default: scalar sse4 avx2) and FILE runs it
# under `valgrind --tool=callgrind`, collecting instructions only inside
# utfkit_utf8_validate, and prints Ir / bytes.  Valgrind 3.19 does not
# emulate AVX-512 (its virtual CPU does not report it), so the avx512
# kernel cannot be counted this way.
set -eu
cd "$(dirname "$0")/../.."
kernels=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do kernels="$kernels $1"; shift; done
[ $# -gt 0 ] && shift
[ -n "$kernels" ] || kernels="scalar sse4 avx2"
[ $# -gt 0 ] || { echo "usage: $0 [KERNEL...] -- FILE..." >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
${CC:-gcc} -O3 -std=gnu11 -g -Icsrc -o "$work/driver" benchmarks/callgrind/validate_driver.c csrc/*.c csrc/simd/*.c
rounds=10
printf '%-8s %-32s %12s %14s %10s\n' kernel file bytes instructions "Ir/byte"
for kernel in $kernels; do
  for file in "$@"; do
    bytes=$(( $(wc -c < "$file") * rounds ))
    valgrind --tool=callgrind --callgrind-out-file="$work/out" \
      --toggle-collect=utfkit_utf8_validate "$work/driver" "$kernel" "$rounds" "$file" \
      > /dev/null 2> "$work/log" || { echo "$kernel: not run (see valgrind's log)"; cat "$work/log" >&2; continue; }
    ir=$(callgrind_annotate "$work/out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
    printf '%-8s %-32s %12d %14d %10.3f\n' "$kernel" "$(basename "$file")" "$bytes" "$ir" \
      "$(echo "$ir / $bytes" | bc -l)"
  done
done
