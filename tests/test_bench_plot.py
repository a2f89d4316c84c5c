"""`utfkit bench --plot FILE`: a valid SVG or PNG of the size sweep, and a
clear exit 2, saying how to install it, when matplotlib is missing."""

from __future__ import annotations

import struct
import sys
import zlib
from xml.etree import ElementTree

import pytest

import utfkit
from utfkit.bench.plot import plot
from utfkit.cli import main

TINY_SWEEP = ["--sizes", "16,64", "--texts", "ascii,cyrillic", "--ops", "validate",
              "--repeat", "1"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: timing runs once."""


def _document(ops=("validate", "utf8>utf16le out="), texts=("ascii", "cyrillic", "cjk")):
    """A saved sweep, made up: ratio = size / 256 for every text."""
    return {
        "schema": "utfkit-bench", "schema_version": 1,
        "machine": {"cpu": "Test CPU 1000", "cpu_count": 2, "machine": "x86_64",
                    "system": "Linux", "kernel": "6.1", "python": "CPython 3.9.18",
                    "utfkit": utfkit.__version__, "backend": "avx2",
                    "validation_backend": "avx2"},
        "settings": {"repeat": 9, "clock": "cpu"},
        "operations": {op: {"utfkit": f"utfkit call for {op}", "cpython": "cpython"}
                       for op in ops},
        "results": [
            {"op": op, "text": text, "size": size, "median_ratio": size / 256}
            for op in ops for text in texts for size in (16, 256, 4096)
        ],
    }


def _png_chunks(data: bytes):
    """(type, body) of each chunk of a PNG, each checked against its CRC (PNG §5.3)."""
    assert data.startswith(PNG_SIGNATURE)
    offset = len(PNG_SIGNATURE)
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        yield kind, body
        offset += 12 + length


def _svg_texts(path) -> list[str]:
    root = ElementTree.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return ["".join(element.itertext()) for element in root.iter("{http://www.w3.org/2000/svg}text")]


def test_svg_has_a_chart_per_operation_a_line_per_text_and_the_caption(tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib (the test extra has it)")
    path = tmp_path / "sweep.svg"
    plot(_document(), str(path))
    texts = _svg_texts(path)
    joined = "\n".join(texts)
    for op in ("validate", "utf8>utf16le out="):
        assert op in joined
    for text in ("ascii", "cyrillic", "cjk"):
        assert text in texts  # the legend
    assert "1.0: as fast as CPython" in texts
    assert any("CPU Test CPU 1000" in text and "kernel avx2" in text
               and f"utfkit {utfkit.__version__}" in text and "CPython 3.9.18" in text
               for text in texts)
    assert {"16 B", "256 B", "4 KiB"} <= set(texts)  # the size axis
    assert "ratio to CPython" in texts and "input size" in texts


def test_png_is_a_well_formed_image(tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib (the test extra has it)")
    path = tmp_path / "sweep.png"
    plot(_document(), str(path))
    chunks = list(_png_chunks(path.read_bytes()))
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height = struct.unpack(">II", chunks[0][1][:8])
    # Two charts side by side, each some 4 inches wide at 110 dpi.
    assert width > 800 and height > 300


def test_bench_plot_draws_the_sweep_it_ran(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib (the test extra has it)")
    path = tmp_path / "run.svg"
    assert main(["bench", *TINY_SWEEP, "--plot", str(path)]) == 0
    assert f"chart written to {path}" in capsys.readouterr().out
    texts = _svg_texts(path)
    assert "validate" in "\n".join(texts) and "ascii" in texts and "cyrillic" in texts


@pytest.mark.parametrize("name", ["chart.pdf", "chart", "chart.svg.txt"])
def test_plot_to_another_format_exits_2_before_measuring(tmp_path, capsys, name):
    assert main(["bench", *TINY_SWEEP, "--plot", str(tmp_path / name)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "must end in .svg or .png" in captured.err


def test_without_matplotlib_plot_says_how_to_install_it_and_exits_2(tmp_path, capsys,
                                                                     monkeypatch):
    # A None entry in sys.modules makes `import matplotlib` raise ImportError.
    for name in [name for name in sys.modules if name.split(".")[0] == "matplotlib"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    path = tmp_path / "chart.png"
    assert main(["bench", *TINY_SWEEP, "--plot", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing was measured
    assert "--plot needs matplotlib" in captured.err
    assert "pip install 'utfkit[plot]'" in captured.err
    assert not path.exists()


def test_nothing_to_plot_is_an_error(tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib (the test extra has it)")
    document = _document()
    document["results"] = [{**row, "median_ratio": None} for row in document["results"]]
    with pytest.raises(ValueError, match="nothing to plot"):
        plot(document, str(tmp_path / "empty.svg"))
