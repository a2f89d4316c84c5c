"""How ``utfkit bench`` times a task: interleaved rounds on a noisy machine.

Each contender runs a calibrated number of calls per round (enough for a
few milliseconds, so the timer's resolution and the loop's cost do not
matter); the contenders take turns round by round and swap which goes first
on every round, so that drift in the machine's speed (frequency scaling,
neighbours) falls on all alike.  Every round's time per call is kept: the
report shows the best and the median.  The clock is wall time, or the
thread's CPU time after :func:`use_cpu_time`.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

try:  # Unix only: the page faults a contender causes, reported in --json
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

from .tasks import Task

__all__ = [
    "DEFAULT_REPEAT",
    "ROUND_TARGET_NS",
    "Measurement",
    "Result",
    "clock_name",
    "gbps",
    "measure",
    "use_cpu_time",
]

#: Default number of timed rounds per contender.
DEFAULT_REPEAT: int = 9

#: A round lasts at least this long (calls are repeated until it does), so
#: that the timer's resolution and the cost of the loop do not matter.
ROUND_TARGET_NS: int = 3_000_000


@dataclass
class Measurement:
    """Per-call times of one contender, one entry per round."""

    label: str
    loops: int
    per_call_ns: list[float] = field(default_factory=list)
    # Minor page faults (memory the kernel maps on first touch) during the
    # timed rounds; None where the platform cannot count them.
    minor_faults: int | None = 0

    @property
    def minor_faults_per_call(self) -> float | None:
        if self.minor_faults is None or not self.per_call_ns:
            return None
        return self.minor_faults / (self.loops * len(self.per_call_ns))

    @property
    def best_ns(self) -> float:
        return min(self.per_call_ns)

    @property
    def median_ns(self) -> float:
        return statistics.median(self.per_call_ns)


@dataclass(frozen=True)
class Result:
    """A row of the report: a task's measurements, and the size of the text
    it ran on (the size asked for: ``--size``, or one of ``--sizes``; None
    for a whole ``--corpus`` file)."""

    task: Task
    cpython: Measurement
    utfkit: Measurement | None
    baseline: Measurement | None = None
    size: int | None = None

    @property
    def baseline_gbps(self) -> float | None:
        if self.baseline is None:
            return None
        return gbps(self.task.processed, self.baseline.best_ns)

    @property
    def of_baseline(self) -> float | None:
        """utfkit's speed as a fraction of the read baseline's, same rounds."""
        if self.baseline is None or self.utfkit is None or not self.utfkit.best_ns:
            return None
        return self.baseline.best_ns / self.utfkit.best_ns

    @property
    def cpython_gbps(self) -> float:
        return gbps(self.task.processed, self.cpython.best_ns)

    @property
    def utfkit_gbps(self) -> float | None:
        if self.utfkit is None:
            return None
        return gbps(self.task.processed, self.utfkit.best_ns)

    @property
    def ratio(self) -> float | None:
        """CPython's best round / utfkit's best round (> 1: utfkit faster)."""
        if self.utfkit is None:
            return None
        return self.cpython.best_ns / self.utfkit.best_ns if self.utfkit.best_ns else None

    @property
    def median_ratio(self) -> float | None:
        """The median over rounds of CPython's time / utfkit's time in the
        same round: the two ran back to back, so a slow spell of the machine
        falls on both halves of each ratio (> 1: utfkit faster)."""
        if self.utfkit is None:
            return None
        ratios = [
            theirs / mine
            for theirs, mine in zip(self.cpython.per_call_ns, self.utfkit.per_call_ns)
            if mine > 0
        ]
        return statistics.median(ratios) if ratios else None


def gbps(processed: int, per_call_ns: float) -> float:
    """GB/s = bytes / seconds / 1e9, which is bytes per nanosecond."""
    return processed / per_call_ns if per_call_ns > 0 else float("inf")


#: The clock rounds are timed with: wall time by default; ``--cpu-time``
#: switches to the thread's CPU time, which leaves out the time the thread
#: spends descheduled when other processes share the cores.
_clock: Callable[[], int] = time.perf_counter_ns


def use_cpu_time(enabled: bool) -> None:
    """Time rounds by this thread's CPU time (True) or by wall time (False)."""
    global _clock
    _clock = time.thread_time_ns if enabled else time.perf_counter_ns


def clock_name() -> str:
    """The clock rounds are timed with, as the report names it."""
    return "thread CPU time" if _clock is time.thread_time_ns else "wall time"


def _time_calls(call: Callable[[], object], loops: int) -> int:
    """Nanoseconds ``loops`` calls take."""
    repeat = itertools.repeat(None, loops)
    clock = _clock
    start = clock()
    for _ in repeat:
        call()
    return clock() - start


def _minor_faults() -> int | None:
    if resource is None:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _calibrate(call: Callable[[], object], target_ns: int) -> int:
    """Calls per round so that a round takes at least ``target_ns``."""
    loops = 1
    while True:
        elapsed = _time_calls(call, loops)
        if elapsed >= target_ns:
            return loops
        # Aim 20 % past the target, at least doubling, as timeit.autorange does.
        scale = target_ns * 1.2 / elapsed if elapsed > 0 else 10.0
        loops = max(loops * 2, int(loops * scale))


def measure(task: Task, repeat: int, target_ns: int = ROUND_TARGET_NS) -> Result:
    """Times the contenders of ``task`` in ``repeat`` interleaved rounds."""
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    contenders = [task.cpython] if task.utfkit is None else [task.utfkit, task.cpython]
    if task.baseline is not None:
        contenders.append(task.baseline)
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        measurements = [
            Measurement(contender.label, _calibrate(contender.call, target_ns))
            for contender in contenders
        ]
        pairs = list(zip(contenders, measurements))
        for round_number in range(repeat):
            # Swap who goes first every round, so neither always runs on the
            # heels of the other (warm caches, turbo budget spent).
            order = pairs if round_number % 2 == 0 else pairs[::-1]
            for contender, measurement in order:
                faults_before = _minor_faults()
                elapsed = _time_calls(contender.call, measurement.loops)
                faults_after = _minor_faults()
                measurement.per_call_ns.append(elapsed / measurement.loops)
                if faults_before is None or faults_after is None:
                    measurement.minor_faults = None
                elif measurement.minor_faults is not None:
                    measurement.minor_faults += faults_after - faults_before
    finally:
        if gc_was_enabled:
            gc.enable()
    baseline = measurements[-1] if task.baseline is not None else None
    if task.utfkit is None:
        return Result(task, cpython=measurements[0], utfkit=None, baseline=baseline)
    return Result(task, cpython=measurements[1], utfkit=measurements[0], baseline=baseline)
