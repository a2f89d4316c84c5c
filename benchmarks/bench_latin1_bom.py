"""Latin-1 <-> UTF-8 against CPython's decode().encode(), and each byte-order-mark form
against its fixed-order form: same-run ratios, medians of interleaved rounds (thread CPU time;
the Latin-1 rounds time batches of calls, about 2 ms each).

    python benchmarks/bench_latin1_bom.py [CORPUS_DIR]     # default ../shared/corpus

The Latin (lipsum) and French (Wikipedia) corpus texts are converted to Latin-1
(characters above U+00FF dropped), and timed Latin-1 <-> UTF-8, UTF-16LE, UTF-32LE,
Latin-1 -> UTF-16BE, UTF-32BE, and Latin-1 -> UTF-16/32 into out= buffers at three
addresses (0, 16 and 1 byte past a 64-byte boundary).  Each conversion is timed from `bytes` (what a
user passes; for ASCII-only input whose output equals it, the input object itself
is returned) and from a `bytearray` (a new `bytes` must be made), against CPython's
decode().encode() from `bytes`.  "copy bound" is CPython's time over that of
`bytes(bytearray)` alone, a copy of the input: the most any conversion from a
bytearray can reach where the output is the input (ASCII-only text).
"""
import codecs
import ctypes
import os
import statistics
import sys
import time

import utfkit

if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
    print(__doc__.strip(), file=sys.stderr)
    sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus")
def latin1_text(path):
    text = open(path, encoding="utf-8").read()
    return text.encode("latin-1", "ignore").decode("latin-1")
def timed(f, rounds=30):
    best = []
    for _ in range(rounds):
        t = time.perf_counter(); f(); best.append(time.perf_counter() - t)
    return statistics.median(best)
def ratio(cp, uk, rounds=25):
    a, b = [], []
    for _ in range(rounds):
        t = time.thread_time_ns(); cp(); a.append(time.thread_time_ns() - t)
        t = time.thread_time_ns(); uk(); b.append(time.thread_time_ns() - t)
    return statistics.median(a) / statistics.median(b), statistics.median(b)
def batch(f):
    """Calls of f per timed sample: enough for about 2 ms, so that the clock's own
    cost (a system call, about 0.3 us here) is no part of a 1 us call's time."""
    t = time.perf_counter_ns(); f(); once = max(time.perf_counter_ns() - t, 1)
    return max(1, 2_000_000 // once)
def ratios(cp, others, rounds=21):
    """CPython's median time per call over each of `others`' (interleaved rounds,
    each a batch of calls)."""
    reps = batch(cp)
    times = [[] for _ in range(len(others) + 1)]
    for _ in range(rounds):
        for f, spent in zip([cp] + others, times):
            t = time.thread_time_ns()
            for _ in range(reps):
                f()
            spent.append((time.thread_time_ns() - t) / reps)
    medians = [statistics.median(spent) for spent in times]
    return [medians[0] / m for m in medians[1:]], medians[0]
for name, path in [("latin", f"{CORPUS}/lipsum/Latin-Lipsum.utf8.txt"), ("french", f"{CORPUS}/wikipedia_mars/french.utf8.txt")]:
    text = latin1_text(path)
    for size in [65536, 1 << 20]:
        t = (text * (size // len(text) + 1))[:size]
        l1 = t.encode("latin-1"); u8 = t.encode()
        l1a, u8a = bytearray(l1), bytearray(u8)
        pairs = [("latin-1>utf-8", l1, l1a, "latin-1", "utf-8"), ("utf-8>latin-1", u8, u8a, "utf-8", "latin-1")]
        for wide in ["utf-16-le", "utf-32-le"]:  # the widening and narrowing blocks
            w = t.encode(wide)
            pairs += [(f"latin-1>{wide}", l1, l1a, "latin-1", wide), (f"{wide}>latin-1", w, bytearray(w), wide, "latin-1")]
        pairs += [(f"latin-1>{wide}", l1, l1a, "latin-1", wide) for wide in ["utf-16-be", "utf-32-be"]]
        for label, src, srca, frm, to in pairs:
            (from_bytes, from_bytearray, bound), cp_ns = ratios(
                lambda: src.decode(frm).encode(to),
                [lambda: utfkit.transcode(src, frm, to), lambda: utfkit.transcode(srca, frm, to),
                 lambda: bytes(srca)])
            same = frm in ("utf-8", "latin-1") and to in ("utf-8", "latin-1") and src.isascii()
            shown = f"{bound:5.2f}x" if same else "    -"  # (a bound only where output == input)
            print(f"{name:7} {size:8} {label:19}  bytes {from_bytes:5.2f}x   bytearray {from_bytearray:5.2f}x"
                  f"   copy bound {shown}   (CPython {cp_ns / 1000:7.1f} us)")
# Latin-1 -> UTF-16/UTF-32 into out= at addresses 0, 16 and 1 byte past a 64-byte boundary
# (a user's buffer is where malloc puts it, or a slice of one), over CPython's
# decode().encode() and over the aligned out=: the widening blocks store aligned to dst.
def at_offset(size, offset):
    """A writable view of `size` bytes `offset` bytes past a 64-byte boundary."""
    block = bytearray(size + 128)
    address = ctypes.addressof(ctypes.c_char.from_buffer(block))
    start = (-address & 63) + offset
    return memoryview(block)[start:start + size]
for name, path in [("latin", f"{CORPUS}/lipsum/Latin-Lipsum.utf8.txt"), ("french", f"{CORPUS}/wikipedia_mars/french.utf8.txt")]:
    text = latin1_text(path)
    for size in [65536, 1 << 20]:
        l1 = (text * (size // len(text) + 1))[:size].encode("latin-1")
        for wide in ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]:
            outs = [at_offset(len(l1) * (2 if "16" in wide else 4), offset) for offset in (0, 16, 1)]
            (r0, r16, r1), cp_ns = ratios(lambda: l1.decode("latin-1").encode(wide),
                                          [lambda o=o: utfkit.transcode(l1, "latin-1", wide, out=o) for o in outs])
            print(f"{name:7} {size:8} latin-1>{wide:9} out= at +0 {r0:5.2f}x  +16 {r16:5.2f}x  +1 {r1:5.2f}x"
                  f"   (+16/+0 time {r0 / r16:4.2f}, +1/+0 {r0 / r1:4.2f})")
# BOM forms vs fixed
text = open(f"{CORPUS}/wikipedia_mars/french.utf8.txt", encoding="utf-8").read()
t = (text * 20)[: 1 << 20]
for fixed, marked, bom in [("utf-16-le", "utf-16", codecs.BOM_UTF16_LE), ("utf-32-le", "utf-32", codecs.BOM_UTF32_LE), ("utf-8", "utf-8-sig", codecs.BOM_UTF8)]:
    body = t.encode(fixed); withbom = bytearray(bom + body); body = bytearray(body)
    for label, f_, m_ in [("decode-side", lambda: utfkit.transcode(body, fixed, "utf-16-be" if fixed=="utf-8" else "utf-8"), lambda: utfkit.transcode(withbom, marked, "utf-16-be" if fixed=="utf-8" else "utf-8")),
                          ("validate", lambda: utfkit.validate(body, fixed), lambda: utfkit.validate(withbom, marked))]:
        r, _ = ratio(f_, m_)
        print(f"{marked:9} {label:12} marked/fixed speed {r:5.2f}")
    src_name = "utf-16-le" if fixed == "utf-8" else "utf-8"
    src = bytearray(t.encode(src_name))
    r, _ = ratio(lambda: utfkit.transcode(src, src_name, fixed), lambda: utfkit.transcode(src, src_name, marked))
    print(f"{marked:9} encode-side  marked/fixed speed {r:5.2f}   ({src_name} -> {marked} vs -> {fixed})")
