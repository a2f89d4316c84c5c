"""Runs libFuzzer targets one after the other and writes what they did.

    python fuzz/campaign.py --seconds 60 --results fuzz/results.txt fuzz/bin/fuzz_*

Each target (built by `make fuzz-build`) runs for --seconds from its corpus
WORK/corpus/<name> plus the seeds (fuzz/seeds/<name>, fuzz/make_seeds.py)
and the kept failures (fuzz/regressions/<name>), with inputs of up to
--max-len bytes and libFuzzer's -print_coverage=1.  Its whole output goes to
WORK/logs/<name>.log.  The results file gets, per target: executions,
libFuzzer's coverage (cov = edges, ft = features), the corpus size, the
findings, and which SIMD block functions (those defined in csrc/simd/, for
every kernel this machine runs) the run reached.

Exit status 1 if any target found anything (a crash, a sanitizer report, a
leak, a timeout, running out of memory, or exiting other than cleanly);
each finding's input is printed as hex, with the end of the target's report,
so that a CI log alone is enough to reproduce it:

    xxd -r -p finding.hex > input && fuzz/bin/fuzz_NAME input
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

FUZZ = Path(__file__).resolve().parent
FINDING_PREFIXES = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")
# libFuzzer's -print_coverage=1 lines: "COVERED_FUNC: hits: 5 edges: 3/4 name file:line"
FUNCTION_LINE = re.compile(r"^(COVERED|UNCOVERED)_FUNC: hits: (\d+) edges: (\d+)/(\d+) (\S+) (\S+):\d+")
DONE_LINE = re.compile(r"^#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)")
COVERAGE_LISTING = re.compile(r"^(COVERED_FUNC|UNCOVERED_FUNC|\s+(UN)?COVERED_PC)")
STATUS_LINE = re.compile(r"^#(\d+)\s+\S+\s+cov: (\d+) ft: (\d+) corp: (\d+)")


def parse_log(text: str) -> Dict[str, object]:
    """Executions, coverage and the SIMD functions reached, from a libFuzzer log."""
    found: Dict[str, object] = {"executions": 0, "cov": 0, "ft": 0, "corpus": 0}
    simd: Dict[str, tuple] = {}
    for line in text.splitlines():
        status = DONE_LINE.match(line) or STATUS_LINE.match(line)
        if status:
            found["cov"], found["ft"], found["corpus"] = (int(status.group(k)) for k in (2, 3, 4))
            found["executions"] = int(status.group(1))
        if line.startswith("stat::number_of_executed_units:"):
            found["executions"] = int(line.split(":")[-1])
        function = FUNCTION_LINE.match(line)
        if function and "/simd/" in function.group(6):
            name = function.group(5)
            covered, total = int(function.group(3)), int(function.group(4))
            hits = int(function.group(2))
            simd[name] = (hits, covered, total, Path(function.group(6)).name)
    found["simd"] = simd
    return found


def hex_lines(data: bytes, width: int = 32) -> List[str]:
    return [data[k : k + width].hex() for k in range(0, len(data), width)] or ["(empty input)"]


def run_target(program: Path, seconds: int, max_len: int, work: Path, extra: List[str]) -> Dict[str, object]:
    name = program.name[len("fuzz_"):]
    corpus = work / "corpus" / name
    artifacts = work / "artifacts"
    logs = work / "logs"
    for folder in (corpus, artifacts, logs):
        folder.mkdir(parents=True, exist_ok=True)
    inputs = [str(folder) for folder in (FUZZ / "seeds" / name, FUZZ / "regressions" / name) if folder.is_dir()]
    before = {path.name for path in artifacts.glob(f"{name}-*")}
    command = [
        str(program),
        f"-max_total_time={seconds}",
        f"-max_len={max_len}",
        "-print_final_stats=1",
        "-print_coverage=1",
        "-timeout=60",
        "-rss_limit_mb=4096",
        f"-artifact_prefix={artifacts}/{name}-",
        *extra,
        str(corpus),
        *inputs,
    ]
    started = time.monotonic()
    log = logs / f"{name}.log"
    with log.open("w") as output:
        finished = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT)
    elapsed = time.monotonic() - started
    text = log.read_text(errors="replace")
    result = parse_log(text)
    new = sorted(path for path in artifacts.glob(f"{name}-*")
                 if path.name not in before and path.name[len(name) + 1:].startswith(FINDING_PREFIXES))
    result.update(name=name, seconds=round(elapsed), exit=finished.returncode, findings=new, log=log,
                  command=" ".join(command))
    return result


def report(results: List[Dict[str, object]], max_len: int) -> str:
    lines = [f"fuzz campaign, {time.strftime('%Y-%m-%d %H:%M:%S')}, inputs up to {max_len} bytes", ""]
    lines.append(f"{'target':<10} {'seconds':>7} {'executions':>11} {'exec/s':>7} {'cov':>6} {'ft':>7} "
                 f"{'corpus':>7} {'simd fns':>9} {'findings':>8}")
    for r in results:
        simd: Dict[str, tuple] = r["simd"]  # type: ignore[assignment]
        reached = sum(1 for hits, *_ in simd.values() if hits > 0)
        seconds = max(int(r["seconds"]), 1)  # type: ignore[call-overload]
        lines.append(f"{r['name']:<10} {r['seconds']:>7} {r['executions']:>11} "
                     f"{int(r['executions']) // seconds:>7} {r['cov']:>6} {r['ft']:>7} {r['corpus']:>7} "  # type: ignore[call-overload]
                     f"{reached:>4}/{len(simd):<4} {len(r['findings']):>8}")  # type: ignore[arg-type]
    lines.append("")
    for r in results:
        simd = r["simd"]  # type: ignore[assignment]
        lines.append(f"== {r['name']}: SIMD block functions (csrc/simd/), edges covered / instrumented")
        for function in sorted(simd, key=lambda f: (simd[f][3], f)):
            hits, covered, total, source = simd[function]
            mark = "reached" if hits > 0 else "NOT REACHED"
            lines.append(f"   {mark:<11} {function:<40} {covered:>4}/{total:<4} {source}")
        for finding in r["findings"]:  # type: ignore[attr-defined]
            lines.append(f"   FINDING {finding}")
        if int(r["exit"]) != 0:  # type: ignore[call-overload]
            lines.append(f"   exit status {r['exit']} (log: {r['log']})")
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("programs", nargs="+", type=Path, help="fuzz/bin/fuzz_* binaries")
    parser.add_argument("--seconds", type=int, default=60, help="per target (default 60)")
    parser.add_argument("--max-len", type=int, default=4200,
                        help="longest input in bytes (default 4200: 4 KiB of text and the header bytes)")
    parser.add_argument("--results", type=Path, default=FUZZ / "results.txt", help="the results file")
    parser.add_argument("--work", type=Path, default=FUZZ,
                        help="where corpus/, artifacts/ and logs/ go (default fuzz/)")
    parser.add_argument("--libfuzzer", action="append", default=[], metavar="FLAG",
                        help="an extra libFuzzer flag, e.g. --libfuzzer=-jobs=2 (repeatable)")
    arguments = parser.parse_args(argv)

    results = []
    for program in arguments.programs:
        print(f"== {program.name}: {arguments.seconds} s", flush=True)
        result = run_target(program, arguments.seconds, arguments.max_len, arguments.work, arguments.libfuzzer)
        simd: Dict[str, tuple] = result["simd"]  # type: ignore[assignment]
        reached = sum(1 for hits, *_ in simd.values() if hits > 0)
        print(f"   {result['executions']} executions, cov {result['cov']}, ft {result['ft']}, "
              f"corpus {result['corpus']}, SIMD functions reached {reached}/{len(simd)}, "
              f"findings {len(result['findings'])}, exit {result['exit']}", flush=True)  # type: ignore[arg-type]
        results.append(result)
    arguments.results.parent.mkdir(parents=True, exist_ok=True)
    arguments.results.write_text(report(results, arguments.max_len))
    print(f"results written to {arguments.results}")

    failed = False
    for r in results:
        findings: List[Path] = r["findings"]  # type: ignore[assignment]
        if not findings and r["exit"] == 0:
            continue
        failed = True
        print(f"\n!! fuzz_{r['name']} FAILED (exit {r['exit']}); the end of its report ({r['log']}):")
        log_lines = Path(str(r["log"])).read_text(errors="replace").splitlines()
        print("\n".join([line for line in log_lines if not COVERAGE_LISTING.match(line)][-60:]))
        for finding in findings:
            data = finding.read_bytes()
            print(f"\n!! input {finding} ({len(data)} bytes), as hex (xxd -r -p to get it back):")
            print("\n".join(hex_lines(data)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
