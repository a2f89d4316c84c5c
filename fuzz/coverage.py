"""Replays saved fuzz corpora through coverage builds of the targets and
lists the SIMD block functions no input reaches.

    make fuzz-coverage FUZZ_CORPUS=DIR      (DIR/<name>/ per target)
    python fuzz/coverage.py --corpus DIR --results FILE fuzz/bin/cov/fuzz_*

Each program (a fuzz target built by `make fuzz-coverage` with clang's
source-based coverage, -fprofile-instr-generate -fcoverage-mapping, and no
sanitizer) runs every input of DIR/<name>, fuzz/seeds/<name> and
fuzz/regressions/<name> once (libFuzzer's -runs=0); llvm-profdata merges
its profile and llvm-cov reports, for the files of csrc/simd/ that this
machine compiles (x86 here: the NEON file's body is not built), the lines
covered per file and every function with whether it ran.  The results file
gets one table per target and, at the end, the SIMD functions that no
target reached -- the list to read after new kernels land, in a few
minutes instead of a new campaign.  Exit status 1 if any SIMD function is
reached by no target (0 with --no-fail).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

FUZZ = Path(__file__).resolve().parent
SIMD_FOLDER = "/csrc/simd/"


def tool(name: str) -> str:
    """llvm-profdata / llvm-cov: the unversioned name, else the newest llvm-N one."""
    found = shutil.which(name)
    if found:
        return found
    for version in range(30, 10, -1):
        found = shutil.which(f"{name}-{version}")
        if found:
            return found
    raise SystemExit(f"coverage.py: {name} not found (Debian: apt-get install llvm)")


def replay(program: Path, corpus: Path, work: Path) -> Tuple[Path, int, float]:
    """Runs the program over its inputs once; returns (profdata, inputs, seconds)."""
    name = program.name[len("fuzz_"):]
    folders = [folder for folder in (corpus / name, FUZZ / "seeds" / name, FUZZ / "regressions" / name)
               if folder.is_dir()]
    inputs = sum(1 for folder in folders for path in folder.iterdir() if path.is_file())
    raw = work / f"{name}.profraw"
    profile = work / f"{name}.profdata"
    started = time.monotonic()
    log = work / f"{name}.log"
    with log.open("w") as output:
        subprocess.run([str(program), "-runs=0", "-timeout=120", *map(str, folders)],
                       stdout=output, stderr=subprocess.STDOUT,
                       env={**os.environ, "LLVM_PROFILE_FILE": str(raw)}, check=False)
    if not raw.exists():
        raise SystemExit(f"coverage.py: {program} wrote no profile (not a coverage build?); see {log}")
    subprocess.run([tool("llvm-profdata"), "merge", "-sparse", "-o", str(profile), str(raw)], check=True)
    raw.unlink()
    return profile, inputs, time.monotonic() - started


def simd_coverage(program: Path, profile: Path) -> Dict[str, object]:
    """{"functions": {name: (count, file)}, "files": {file: (covered, lines)}} for csrc/simd/."""
    exported = subprocess.run([tool("llvm-cov"), "export", "-format=text", "-skip-expansions",
                               f"-instr-profile={profile}", str(program)],
                              check=True, capture_output=True, text=True).stdout
    data = json.loads(exported)["data"][0]
    functions: Dict[str, Tuple[int, str]] = {}
    for function in data["functions"]:
        source = function["filenames"][0]
        if SIMD_FOLDER not in source:
            continue
        # static functions of a header are named "file.h:name"; one entry per including file
        name = function["name"].split(":")[-1]
        count, source_name = function["count"], Path(source).name
        key = f"{name} ({source_name})" if source_name.endswith(".h") else name
        previous = functions.get(key, (0, source_name))
        functions[key] = (previous[0] + count, source_name)
    files: Dict[str, Tuple[int, int]] = {}
    for entry in data["files"]:
        if SIMD_FOLDER in entry["filename"]:
            lines = entry["summary"]["lines"]
            if lines["count"]:
                files[Path(entry["filename"]).name] = (lines["covered"], lines["count"])
    return {"functions": functions, "files": files}


def report(results: List[Dict[str, object]], corpus: Path) -> Tuple[str, List[str]]:
    lines = [f"coverage replay, {time.strftime('%Y-%m-%d %H:%M:%S')}: corpora {corpus}/<name> + seeds + regressions,",
             "each input once through a clang source-based coverage build (no sanitizer)", ""]
    lines.append(f"{'target':<10} {'inputs':>7} {'seconds':>7} {'SIMD fns reached':>17}   SIMD lines covered per file")
    for r in results:
        functions: Dict[str, Tuple[int, str]] = r["functions"]  # type: ignore[assignment]
        files: Dict[str, Tuple[int, int]] = r["files"]  # type: ignore[assignment]
        reached = sum(1 for count, _ in functions.values() if count > 0)
        per_file = ", ".join(f"{name} {covered}/{total}" for name, (covered, total) in sorted(files.items()))
        lines.append(f"{r['name']:<10} {r['inputs']:>7} {r['seconds']:>7.0f} {reached:>8}/{len(functions):<8}   {per_file}")
    union: Dict[str, Tuple[int, str]] = {}
    for r in results:
        for key, (count, source) in r["functions"].items():  # type: ignore[attr-defined]
            union[key] = (union.get(key, (0, source))[0] + count, source)
    missed = sorted(key for key, (count, _) in union.items() if count == 0)
    lines += ["", f"SIMD functions reached by some target: {len(union) - len(missed)}/{len(union)}"]
    lines += [f"   NOT REACHED by any target: {key}" for key in missed] or ["   (every one reached)"]
    for r in results:
        functions = r["functions"]  # type: ignore[assignment]
        lines += ["", f"== {r['name']}: SIMD functions, times entered"]
        for key in sorted(functions, key=lambda k: (functions[k][1], k)):
            count, source = functions[key]
            mark = "reached" if count else "NOT REACHED"
            lines.append(f"   {mark:<11} {key:<48} {count:>12}  {source}")
    return "\n".join(lines) + "\n", missed


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("programs", nargs="+", type=Path, help="coverage builds: fuzz/bin/cov/fuzz_*")
    parser.add_argument("--corpus", type=Path, default=FUZZ / "corpus",
                        help="folder of saved corpora, one <name>/ per target (default fuzz/corpus)")
    parser.add_argument("--work", type=Path, default=FUZZ / "coverage",
                        help="where profiles and logs go (default fuzz/coverage/)")
    parser.add_argument("--results", type=Path, default=FUZZ / "results-coverage.txt")
    parser.add_argument("--no-fail", action="store_true", help="exit 0 even if a SIMD function is missed")
    arguments = parser.parse_args(argv)
    arguments.work.mkdir(parents=True, exist_ok=True)
    results = []
    for program in arguments.programs:
        name = program.name[len("fuzz_"):]
        profile, inputs, seconds = replay(program, arguments.corpus, arguments.work)
        found = simd_coverage(program, profile)
        found.update(name=name, inputs=inputs, seconds=seconds)
        functions: Dict[str, Tuple[int, str]] = found["functions"]  # type: ignore[assignment]
        print(f"== fuzz_{name}: {inputs} inputs in {seconds:.0f} s, SIMD functions reached "
              f"{sum(1 for count, _ in functions.values() if count)}/{len(functions)}", flush=True)
        results.append(found)
    text, missed = report(results, arguments.corpus)
    arguments.results.parent.mkdir(parents=True, exist_ok=True)
    arguments.results.write_text(text)
    print(text.split("\n\n== ")[0])
    print(f"results written to {arguments.results}")
    return 1 if missed and not arguments.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
