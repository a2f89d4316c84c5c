"""What utfkit accepts as `data` and `encoding`, and the errors it raises otherwise.

DESIGN.md section 2: data is any C-contiguous bytes-like object and is never
copied on the way in; positions are byte offsets whatever the item size;
encoding names are matched like the codecs module matches them; the errors
are the standard ones with messages that name what was wrong.
"""

from __future__ import annotations

import array
import mmap
import os
import subprocess
import sys

import pytest

import utfkit
import utfkit._kernels
from utf8_oracle import ERROR_HANDLERS, cpython_decode_outcome, cpython_error, utfkit_decode_outcome, utfkit_error

WELL_FORMED = "héllo, wörld € 😀 ".encode("utf-8")
ILL_FORMED = WELL_FORMED + b"\xed\xa0\x80" + b" then \xe2\x82 more!" + b"\xf0\x9f\x98"
ERROR_OFFSET = len(WELL_FORMED)
assert len(WELL_FORMED) % 2 == 0 and len(ILL_FORMED) % 2 == 0  # array('H') needs whole items

QUERIES = {
    "validate": lambda data, **kw: utfkit.validate(data, **kw),
    "check": lambda data, **kw: utfkit.check(data, **kw),
    "valid_up_to": lambda data, **kw: utfkit.valid_up_to(data, **kw),
    "sanitize": lambda data, **kw: utfkit.sanitize(data, **kw),
    "decode": lambda data, **kw: utfkit.decode(data, **kw),
    "count": lambda data, **kw: utfkit.count(data, **kw),
}


# ---- buffer kinds ---------------------------------------------------------------
def _anonymous_mmap(payload: bytes, request):
    mapped = mmap.mmap(-1, len(payload))
    mapped.write(payload)
    request.addfinalizer(mapped.close)
    return mapped


def _file_mmap(payload: bytes, request):
    tmp_path = request.getfixturevalue("tmp_path")
    path = tmp_path / "payload.bin"
    path.write_bytes(payload)
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    request.addfinalizer(mapped.close)
    return mapped


def _array(typecode):
    def make(payload: bytes, request):
        items = array.array(typecode)
        items.frombytes(payload)
        return items

    return make


def _numpy(dtype, writable):
    def make(payload: bytes, request):
        numpy = pytest.importorskip("numpy", reason="numpy is optional; its buffers are tested when installed")
        items = numpy.frombuffer(payload, dtype=dtype)
        return items.copy() if writable else items

    return make


BUFFER_KINDS = {
    "bytes": lambda payload, request: payload,
    "bytearray": lambda payload, request: bytearray(payload),
    "memoryview": lambda payload, request: memoryview(payload),
    "memoryview-of-bytearray": lambda payload, request: memoryview(bytearray(payload)),
    "memoryview-sliced": lambda payload, request: memoryview(b"\xff\xfe\xfd" + payload + b"\xc2")[3:-1],
    "memoryview-2d": lambda payload, request: memoryview(payload).cast("B", (2, len(payload) // 2)),
    "mmap-anonymous": _anonymous_mmap,
    "mmap-file": _file_mmap,
    "array-B": _array("B"),
    "array-H": _array("H"),
    "numpy-uint8": _numpy("uint8", writable=False),
    "numpy-uint8-writable": _numpy("uint8", writable=True),
    "numpy-uint16": _numpy("uint16", writable=False),
}


@pytest.fixture(params=list(BUFFER_KINDS), ids=list(BUFFER_KINDS))
def as_buffer(request):
    """Wraps bytes in one kind of C-contiguous buffer."""
    make = BUFFER_KINDS[request.param]
    return lambda payload: make(payload, request)


def test_every_buffer_kind_of_ill_formed_text_gives_byte_positions(as_buffer):
    data = as_buffer(ILL_FORMED)
    expected_error = cpython_error(ILL_FORMED)
    assert expected_error[0] == ERROR_OFFSET
    replaced = ILL_FORMED.decode("utf-8", "replace")

    assert utfkit.validate(data) is False
    assert utfkit.valid_up_to(data) == ERROR_OFFSET
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.check(data)
    assert (raised.value.start, raised.value.end, raised.value.reason) == expected_error
    assert raised.value.object == ILL_FORMED
    del raised
    sanitized = utfkit.sanitize(data)
    assert type(sanitized) is bytes
    assert sanitized == replaced.encode("utf-8")
    assert utfkit.count(data) == len(replaced)
    for errors in ERROR_HANDLERS:
        assert utfkit_decode_outcome(data, errors) == cpython_decode_outcome(ILL_FORMED, errors)


def test_every_buffer_kind_of_well_formed_text(as_buffer):
    data = as_buffer(WELL_FORMED)
    assert utfkit.validate(data) is True
    assert utfkit.valid_up_to(data) == len(WELL_FORMED)
    assert utfkit.check(data) is None
    sanitized = utfkit.sanitize(data)
    assert type(sanitized) is bytes
    assert sanitized == WELL_FORMED
    assert utfkit.decode(data) == WELL_FORMED.decode("utf-8")
    assert utfkit.count(data) == len(WELL_FORMED.decode("utf-8"))


def test_buffers_are_released_after_each_call():
    """A buffer still exported after the call would stop a bytearray resizing
    and an mmap closing."""
    growing = bytearray(ILL_FORMED)
    mapped = mmap.mmap(-1, len(ILL_FORMED))
    mapped.write(ILL_FORMED)
    for data in (growing, mapped):
        utfkit.validate(data)
        utfkit.valid_up_to(data)
        utfkit_error(data)
        utfkit.sanitize(data)
        utfkit.count(data)
        for errors in ERROR_HANDLERS:
            utfkit_decode_outcome(data, errors)
    growing.extend(b"more")  # BufferError if a view were still exported
    mapped.close()


def test_mutating_a_bytearray_changes_the_next_answer():
    """Nothing is cached from one call to the next."""
    data = bytearray(WELL_FORMED)
    assert utfkit.validate(data) is True
    data[3] = 0xFF
    assert utfkit.validate(data) is False
    assert utfkit.valid_up_to(data) == 3
    data[3] = ord("x")
    assert utfkit.validate(data) is True


def test_sanitize_returns_well_formed_bytes_object_itself():
    assert utfkit.sanitize(WELL_FORMED) is WELL_FORMED
    copy_source = bytearray(WELL_FORMED)
    sanitized = utfkit.sanitize(copy_source)
    assert type(sanitized) is bytes and sanitized == WELL_FORMED


# ---- empty input ------------------------------------------------------------------
@pytest.mark.parametrize(
    "empty",
    [b"", bytearray(), memoryview(b""), memoryview(b"abc")[3:], array.array("B"), array.array("H")],
    ids=["bytes", "bytearray", "memoryview", "memoryview-sliced", "array-B", "array-H"],
)
def test_empty_input_for_every_function(empty):
    assert utfkit.validate(empty) is True
    assert utfkit.check(empty) is None
    assert utfkit.valid_up_to(empty) == 0
    assert utfkit.sanitize(empty) == b""
    assert type(utfkit.sanitize(empty)) is bytes
    assert utfkit.count(empty) == 0
    for errors in ERROR_HANDLERS:
        assert utfkit.decode(empty, errors=errors) == ""
    if type(empty) is bytes:
        assert utfkit.sanitize(empty) is empty


# ---- non-contiguous buffers ---------------------------------------------------------------
def _strided_buffers():
    buffers = {"memoryview-step-2": memoryview(b"a\xffb\xfec\xfd" + "é".encode() * 4)[::2]}
    buffers["memoryview-reversed"] = memoryview(ILL_FORMED)[::-1]
    try:
        import numpy
    except ImportError:
        return buffers
    buffers["numpy-step-2"] = numpy.frombuffer(ILL_FORMED, dtype=numpy.uint8)[::2]
    buffers["numpy-fortran-2d"] = numpy.frombuffer(ILL_FORMED, dtype=numpy.uint8).reshape(2, -1).T
    return buffers


STRIDED = _strided_buffers()


@pytest.mark.parametrize("name", list(STRIDED))
@pytest.mark.parametrize("query", list(QUERIES))
def test_non_contiguous_buffer_is_refused_or_answered_correctly(name, query):
    """BufferError with a message, or the answer for the bytes it holds -- never a wrong answer."""
    data = STRIDED[name]
    as_bytes = data.tobytes()
    call = QUERIES[query]
    try:
        expected = ("returned", call(as_bytes))
    except UnicodeDecodeError as exc:
        expected = ("UnicodeDecodeError", exc.start, exc.end, exc.reason)
    try:
        got = ("returned", call(data))
    except BufferError as exc:
        assert str(exc), "BufferError without a message"
        return
    except UnicodeDecodeError as exc:
        got = ("UnicodeDecodeError", exc.start, exc.end, exc.reason)
    assert got == expected


# ---- wrong argument types --------------------------------------------------------------------
NOT_BUFFERS = [
    ("text", "str"),
    (5, "int"),
    (None, "None"),
    ([0x61, 0x62], "list"),
    (1.5, "float"),
]


@pytest.mark.parametrize("query", list(QUERIES))
@pytest.mark.parametrize("not_a_buffer, type_name", NOT_BUFFERS, ids=[name for _, name in NOT_BUFFERS])
def test_non_buffer_data_raises_type_error_naming_the_type(query, not_a_buffer, type_name):
    with pytest.raises(TypeError) as raised:
        QUERIES[query](not_a_buffer)
    assert type_name in str(raised.value)


@pytest.mark.parametrize("query", list(QUERIES))
@pytest.mark.parametrize("name", ["utf-9", "no-such-encoding", "latin-9x", ""])
def test_unknown_encoding_raises_lookup_error(query, name):
    with pytest.raises(LookupError) as raised:
        QUERIES[query](WELL_FORMED, encoding=name)
    if name:
        assert name in str(raised.value)


@pytest.mark.parametrize("query", list(QUERIES))
@pytest.mark.parametrize("encoding", [8, None, b"utf-8"], ids=["int", "None", "bytes"])
def test_encoding_that_is_not_a_str_raises_type_error(query, encoding):
    with pytest.raises(TypeError):
        QUERIES[query](WELL_FORMED, encoding=encoding)


UTF8_ALIASES = ["utf-8", "UTF-8", "utf8", "UTF8", "utf_8", "Utf_8", "utf 8", "u8", "U8"]


@pytest.mark.parametrize("alias", UTF8_ALIASES)
def test_utf8_aliases_are_accepted(alias):
    assert utfkit.validate(ILL_FORMED, encoding=alias) is False
    assert utfkit.validate(WELL_FORMED, encoding=alias) is True
    assert utfkit.valid_up_to(ILL_FORMED, encoding=alias) == ERROR_OFFSET
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.check(ILL_FORMED, encoding=alias)
    assert (raised.value.start, raised.value.end, raised.value.reason) == cpython_error(ILL_FORMED)
    assert utfkit.sanitize(ILL_FORMED, encoding=alias) == ILL_FORMED.decode(alias, "replace").encode()
    assert utfkit.count(ILL_FORMED, encoding=alias) == len(ILL_FORMED.decode(alias, "replace"))
    assert utfkit.decode(ILL_FORMED, encoding=alias, errors="surrogateescape") == ILL_FORMED.decode(
        alias, "surrogateescape"
    )


# ---- error handlers -----------------------------------------------------------------------------
def test_unknown_error_handler_is_only_looked_up_when_an_error_is_met():
    assert utfkit.decode(WELL_FORMED, errors="no-such-handler") == WELL_FORMED.decode("utf-8", "no-such-handler")
    outcome = utfkit_decode_outcome(ILL_FORMED, "no-such-handler")
    assert outcome[0] == "LookupError"
    assert outcome == cpython_decode_outcome(ILL_FORMED, "no-such-handler")


@pytest.mark.parametrize("errors", [5, None, b"strict"], ids=["int", "None", "bytes"])
def test_error_handler_that_is_not_a_str_raises_type_error(errors):
    with pytest.raises(TypeError):
        ILL_FORMED.decode("utf-8", errors)  # what CPython does
    with pytest.raises(TypeError):
        utfkit.decode(ILL_FORMED, errors=errors)


def test_strict_decode_error_is_cpythons():
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.decode(ILL_FORMED)
    error = raised.value
    assert (error.encoding, error.object, error.start, error.end, error.reason) == (
        "utf-8",
        ILL_FORMED,
        *cpython_error(ILL_FORMED),
    )


# ---- kernels ---------------------------------------------------------------------------------------
def test_backend_reports_the_active_kernel(kernel):
    assert utfkit.backend() == kernel
    assert kernel in utfkit._kernels.available_backends()


def test_available_backends_list_scalar_first():
    kernels = utfkit._kernels.available_backends()
    assert kernels[0] == "scalar"
    assert set(kernels) <= {"scalar", "sse2", "sse4", "avx2", "avx512", "neon"}
    assert len(set(kernels)) == len(kernels)


@pytest.mark.parametrize("name", ["no-such-kernel", "", "SCALAR-ish"])
def test_set_backend_rejects_unknown_names(kernel, name):
    with pytest.raises(ValueError):
        utfkit._kernels.set_backend(name)
    assert utfkit.backend() == kernel


def test_set_backend_rejects_kernels_this_cpu_cannot_run(kernel):
    missing = sorted({"scalar", "sse2", "sse4", "avx2", "avx512", "neon"} - set(utfkit._kernels.available_backends()))
    if not missing:
        pytest.skip("this CPU runs every kernel utfkit has")
    for name in missing:
        with pytest.raises(ValueError):
            utfkit._kernels.set_backend(name)
        assert utfkit.backend() == kernel


@pytest.mark.parametrize("forced", utfkit._kernels.available_backends())
def test_utfkit_backend_environment_variable_forces_a_kernel(forced):
    environment = dict(os.environ, UTFKIT_BACKEND=forced)
    completed = subprocess.run(
        [sys.executable, "-c", "import utfkit; print(utfkit.backend())"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert completed.stdout.strip() == forced


def test_the_best_kernel_runs_everything_when_none_is_forced(kernel):
    utfkit._kernels.set_backend(None)
    try:
        assert utfkit.backend() == utfkit._kernels.available_backends()[-1]
    finally:
        utfkit._kernels.set_backend(kernel)
    assert utfkit.backend() == kernel


def test_known_backends_come_from_the_c_table():
    known = utfkit._kernels.known_backends()
    assert known[0] == "scalar"
    assert set(known) == {"scalar", "sse2", "sse4", "avx2", "avx512", "neon"}
    assert set(utfkit._kernels.available_backends()) <= set(known)
