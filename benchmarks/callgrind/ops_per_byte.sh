#!/bin/sh
# Instructions per input byte of C-core operations, counted by callgrind.
#
#   benchmarks/callgrind/ops_per_byte.sh [KERNEL...] -- OPERATION[,OPERATION...] FILE...
#
# Builds ops_driver.c with the core (-O3, as the Python extension is built),
# then for each KERNEL (default: sse4 avx2), OPERATION (see ops_driver.c)
# and FILE runs it under `valgrind --tool=callgrind`, collecting
# instructions only inside run_operation (the input is converted to the
# operation's form before), and prints Ir per input byte.  Valgrind 3.19 does
# not emulate AVX-512, so the avx512 kernel cannot be counted this way.
set -eu
cd "$(dirname "$0")/../.."
kernels=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do kernels="$kernels $1"; shift; done
[ $# -gt 0 ] && shift
[ -n "$kernels" ] || kernels="sse4 avx2"
[ $# -gt 1 ] || { echo "usage: $0 [KERNEL...] -- OPERATION[,OPERATION...] FILE..." >&2; exit 2; }
ops=$(echo "$1" | tr ',' ' ')
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
${CC:-gcc} -O3 -std=gnu11 -falign-functions=64 -g -Icsrc -o "$work/driver" benchmarks/callgrind/ops_driver.c csrc/*.c csrc/simd/*.c
rounds=4
printf '%-8s %-10s %-28s %12s %14s %10s\n' kernel operation file bytes instructions "Ir/byte"
for op in $ops; do
  for file in "$@"; do
    for kernel in $kernels; do
      bytes=$(valgrind --tool=callgrind --callgrind-out-file="$work/out" \
        --toggle-collect=run_operation "$work/driver" "$kernel" "$op" "$rounds" "$file" \
        2> "$work/log") || { echo "$kernel $op: not run (see valgrind's log)"; cat "$work/log" >&2; continue; }
      ir=$(callgrind_annotate "$work/out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
      printf '%-8s %-10s %-28s %12d %14d %10.3f\n' "$kernel" "$op" "$(basename "$file")" "$bytes" "$ir" \
        "$(echo "$ir / $bytes" | bc -l)"
    done
  done
done
