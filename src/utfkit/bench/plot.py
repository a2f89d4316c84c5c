"""``utfkit bench --plot FILE``: a size sweep as charts, one per operation.

Each chart puts the ratio to CPython (CPython's time / utfkit's, median of
the same-round ratios; > 1: utfkit faster) against the input size, both on
log scales, one line per text, with the 1.0 line marked; the caption names
the machine, CPU, kernel, Python and utfkit version.  matplotlib is an
optional dependency (the ``plot`` extra); :func:`require_matplotlib` says
how to install it when it is missing.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from .sizes import format_size

__all__ = ["FORMATS", "PlotUnavailable", "plot", "require_matplotlib"]

#: The file types ``--plot`` writes, by suffix.
FORMATS: tuple[str, ...] = (".svg", ".png")

#: Columns of the grid of charts.
_COLUMNS: int = 4

# One colour and one marker per text, so that lines stay apart in grey print
# and for colour-blind readers too (the Okabe-Ito palette).
_COLOURS: tuple[str, ...] = (
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#D55E00", "#0072B2", "#CC79A7", "#999933",
)
_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINESTYLES: tuple[Any, ...] = ("-", "--", "-.", ":")

# The 1.0 line, and the band below it where CPython is faster.
_PARITY: str = "#b00000"
_CPYTHON_FASTER: str = "#f6e3e3"

# Timed per call rather than per text and size: nothing to draw by size.
_SHORT_INPUT_OPERATIONS: frozenset[str] = frozenset({"small", "many"})


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed; the message says how to install it."""


def require_matplotlib() -> None:
    """Raises PlotUnavailable unless matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotUnavailable(
            "--plot needs matplotlib, which is not installed; install it with\n"
            "    pip install 'utfkit[plot]'\n"
            "(or: pip install matplotlib), then run the command again"
        ) from None


def _caption(document: Mapping[str, Any]) -> str:
    machine = document["machine"]
    settings = document["settings"]
    kernel = machine.get("backend")
    if machine.get("validation_backend") not in (None, kernel):
        kernel = f"{kernel} (validation: {machine['validation_backend']})"
    clock = "thread CPU time" if settings.get("clock") == "cpu" else "wall time"
    return (
        f"utfkit {machine.get('utfkit')}, kernel {kernel}  |  CPU {machine.get('cpu')} "
        f"({machine.get('cpu_count')} logical), {machine.get('machine')}  |  "
        f"{machine.get('system')} {machine.get('kernel')}  |  {machine.get('python')}\n"
        f"ratio = CPython time / utfkit time, median over {settings.get('repeat')} "
        f"interleaved rounds ({clock}); above 1.0: utfkit faster"
        + (f"  |  measured {document['created'][:10]}" if document.get("created") else "")
    )


def _series(
    rows: Sequence[Mapping[str, Any]],
) -> dict[str, dict[str, list[tuple[int, float]]]]:
    """op -> text -> [(size, ratio)], in the order the rows came."""
    series: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for row in rows:
        ratio = row.get("median_ratio")
        if row.get("size") is None or not isinstance(ratio, (int, float)) or ratio <= 0:
            continue
        points = series.setdefault(row["op"], {}).setdefault(row["text"], [])
        points.append((int(row["size"]), float(ratio)))
    return series


def _ratio_ticks(low: float, high: float) -> list[float]:
    """1-2-5 steps between ``low`` and ``high``: 0.1x, 0.2x, 0.5x, 1x, 2x ..."""
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for step in (1, 2, 5):
            value = step * 10.0**exponent
            if low <= value <= high:
                ticks.append(value)
    return ticks


def plot(document: Mapping[str, Any], path: str) -> None:
    """Draws the sweep in ``document`` (a ``--json`` document) into ``path``,
    SVG or PNG by its suffix.  Raises PlotUnavailable without matplotlib,
    ValueError for another suffix or when there is nothing to draw."""
    suffix = path[path.rfind(".") :].lower() if "." in path else ""
    if suffix not in FORMATS:
        raise ValueError(f"--plot {path}: the file name must end in {' or '.join(FORMATS)}")
    require_matplotlib()
    # The object-oriented API only: no pyplot, so no global state (backend,
    # open figures) is touched in a program that draws charts of its own.
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import (
        FixedLocator,
        FuncFormatter,
        NullFormatter,
        NullLocator,
    )

    found = _series(document["results"])
    order = [op for op in document.get("operations", {}) if op in found]
    order += [op for op in found if op not in order]
    series = {op: found[op] for op in order if op not in _SHORT_INPUT_OPERATIONS}
    if not series:
        raise ValueError("nothing to plot: no operation with a ratio to CPython in this run")
    texts = list(dict.fromkeys(text for lines in series.values() for text in lines))
    style = {
        text: (
            _COLOURS[index % len(_COLOURS)],
            _MARKERS[index % len(_MARKERS)],
            _LINESTYLES[(index // len(_COLOURS)) % len(_LINESTYLES)],
        )
        for index, text in enumerate(texts)
    }
    points_all = [point for lines in series.values() for points in lines.values() for point in points]
    sizes = sorted({size for size, _ in points_all})
    ratios = [ratio for _, ratio in points_all]
    low = min(min(ratios), 1.0) / 1.5
    high = max(max(ratios), 1.0) * 1.5

    columns = min(_COLUMNS, len(series))
    rows = math.ceil(len(series) / columns)
    width = max(4.3 * columns, 6.0)
    legend_entries = len(texts) + 2  # the texts, the 1.0 line, the shading
    legend_columns = min(legend_entries, max(2, int(width / 1.7)))
    legend_rows = math.ceil(legend_entries / legend_columns)
    # Fixed room, in inches, above the charts (title, legend) and below
    # them (caption), whatever the number of rows.
    top = 0.95 + 0.25 * legend_rows
    bottom, panel_height = 1.05, 3.4
    height = top + rows * panel_height + bottom
    figure = Figure(figsize=(width, height))
    axes_grid = figure.subplots(rows, columns, squeeze=False)
    figure.subplots_adjust(
        left=0.75 / width, right=1 - 0.15 / width,
        top=1 - top / height, bottom=bottom / height, wspace=0.28, hspace=0.55,
    )
    operations = document.get("operations", {})
    for axes, (op, lines) in zip(axes_grid.flat, series.items()):
        axes.axhspan(low, 1.0, color=_CPYTHON_FASTER, zorder=0)
        axes.axhline(1.0, color=_PARITY, linewidth=1.6, linestyle="--", zorder=1)
        for text, points in lines.items():
            points.sort()
            colour, marker, linestyle = style[text]
            axes.plot(
                [size for size, _ in points], [ratio for _, ratio in points],
                color=colour, marker=marker, linestyle=linestyle, linewidth=1.5,
                markersize=5, zorder=2,
            )
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xlim(sizes[0] / 1.6, sizes[-1] * 1.6)
        axes.xaxis.set_major_locator(FixedLocator(sizes))
        axes.xaxis.set_minor_locator(NullLocator())
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: format_size(int(value))))
        axes.tick_params(axis="x", labelsize=8)
        axes.set_ylim(low, high)
        axes.yaxis.set_major_locator(FixedLocator(_ratio_ticks(low, high)))
        axes.yaxis.set_minor_formatter(NullFormatter())
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}x"))
        axes.tick_params(axis="y", labelsize=8)
        axes.grid(True, which="major", color="#dddddd", linewidth=0.6)
        call = operations.get(op, {}).get("utfkit", "")
        axes.set_title(op if not call else f"{op}\n{call}", fontsize=9)
        axes.set_xlabel("input size", fontsize=8)
        axes.set_ylabel("ratio to CPython", fontsize=8)
    for axes in axes_grid.flat[len(series):]:
        axes.set_visible(False)
    handles: list[Any] = [
        Line2D([], [], color=style[text][0], marker=style[text][1], linestyle=style[text][2],
               label=text)
        for text in texts
    ]
    handles.append(Line2D([], [], color=_PARITY, linestyle="--", label="1.0: as fast as CPython"))
    handles.append(Patch(color=_CPYTHON_FASTER, label="CPython faster"))
    figure.suptitle("utfkit vs CPython's codecs, by input size (higher is better for utfkit)",
                    y=1 - 0.12 / height, va="top", fontsize=12)
    figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.45 / height),
                  ncol=legend_columns, frameon=False, fontsize=9)
    figure.text(0.5, 0.08 / height, _caption(document), ha="center", va="bottom", fontsize=9)
    if suffix == ".svg":
        # An SVG keeps its words as text (searchable, small), not as outlines.
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            figure.savefig(path)
        return
    # A chart has few colours: as a 256-colour palette image the PNG looks
    # the same at a third of the size.  Pillow comes with matplotlib.
    from PIL import Image

    rendered = io.BytesIO()
    figure.savefig(rendered, format="png", dpi=110)
    rendered.seek(0)
    with Image.open(rendered) as image:
        image.convert("RGB").quantize(256).save(path, format="PNG", optimize=True)
