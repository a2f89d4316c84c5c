"""utfkit.validate, check, count and sanitize are C functions (utfkit._direct)
that answer a UTF-8 ``bytes`` object themselves and pass every other call to
the Python functions in utfkit._oneshot.  Whichever side answers, the answer
must be the same, and equal to CPython's: ``decode()`` succeeding or raising
(with its start, end and reason), ``len(decode(errors="replace"))``,
``decode(errors="replace").encode()``."""

from __future__ import annotations

import inspect

import pytest
from concurrently import on_threads
from hypothesis import given, settings
from hypothesis import strategies as st

import utfkit
from utfkit import _direct, _oneshot

# Table 3-7's rows, their edges and the ill-formed bytes around them
# (Unicode 3.9 section 3.9), and text of every length class
SAMPLES = [
    b"", b"a", b"plain ASCII text", "é".encode(), "€".encode(), "😀".encode(),
    b"\xc2\x80", b"\xdf\xbf", b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xf0\x90\x80\x80",
    b"\xf4\x8f\xbf\xbf", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
    b"\xf5\x80\x80\x80", b"\xff", b"\x80", b"abc\xe2\x82", b"\xe2\x82abc", "Марс 火星 🪐".encode() * 300,
    "Марс 火星 🪐".encode() * 300 + b"\xff",
]
UTF8_SPELLINGS = ["utf-8", "utf8", "UTF-8", "u8", "utf_8", _oneshot.UTF_8]


def cpython_error(data: bytes) -> UnicodeDecodeError | None:
    try:
        data.decode()
    except UnicodeDecodeError as error:
        return error
    return None


def assert_all_four_agree_with_cpython(data: bytes, *encoding: str) -> None:
    error = cpython_error(data)
    assert utfkit.validate(data, *encoding) is (error is None)
    assert utfkit.count(data, *encoding) == len(data.decode("utf-8", "replace"))
    repaired = utfkit.sanitize(data, *encoding)
    assert repaired == data.decode("utf-8", "replace").encode()
    if error is None:
        assert repaired is data  # well-formed bytes: the object itself
        assert utfkit.check(data, *encoding) is None
    else:
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.check(data, *encoding)
        assert (raised.value.start, raised.value.end, raised.value.reason) == (error.start, error.end, error.reason)


@pytest.mark.parametrize("data", SAMPLES)
@pytest.mark.parametrize("encoding", [(), *[(name,) for name in UTF8_SPELLINGS]])
def test_utf8_bytes_answers_equal_cpythons_however_utf8_is_named(data: bytes, encoding: tuple[str, ...]) -> None:
    assert_all_four_agree_with_cpython(data, *encoding)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=60).map(str.encode))
def test_random_bytes_answers_equal_cpythons(data: bytes) -> None:
    assert_all_four_agree_with_cpython(data)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.integers(0, 40), st.binary(min_size=1, max_size=3))
def test_damaged_text_answers_equal_cpythons(text: str, where: int, damage: bytes) -> None:
    data = text.encode()
    cut = min(where, len(data))
    assert_all_four_agree_with_cpython(data[:cut] + damage + data[cut:])


def test_inputs_above_the_size_that_releases_the_gil() -> None:
    for data in [("Марс 火星 " * 1000).encode(), b"x" * 5000 + b"\xed\xa0\x80" + b"y" * 5000]:
        assert_all_four_agree_with_cpython(data)


# --------------------------------------- every other call: the Python side


@pytest.mark.parametrize("function", ["validate", "check", "count", "sanitize"])
def test_other_calls_give_what_the_python_functions_give(function: str) -> None:
    public, reference = getattr(utfkit, function), getattr(_oneshot, function)
    text = "Mars, « la planète rouge » 🪐"
    calls = [
        ((bytearray(text.encode()),), {}),
        ((memoryview(text.encode()),), {}),
        ((text.encode(),), {"encoding": "utf-8"}),
        ((), {"data": text.encode()}),
        ((text.encode("utf-16-le"), "utf-16-le"), {}),
        ((text.encode("utf-32"), "utf-32"), {}),
        ((b"\xef\xbb\xbf" + text.encode(), "utf-8-sig"), {}),
        ((text.encode(), "wtf-8"), {}),
    ]
    for args, kwargs in calls:
        assert public(*args, **kwargs) == reference(*args, **kwargs), (args, kwargs)


# forms without a byte-order mark, as callers spell them: answered in C once
# the name is in _oneshot.FIXED_FORMS (its first call adds it)
FIXED_FORM_NAMES = ["utf-16-le", "UTF-16BE", "utf_32_le", "utf-32-be", "latin-1", "ascii", "wtf-8", "cesu-8",
                    "mutf-8", "utf-e-8"]
FORM_SAMPLES = [b"", b"a", b"ab", b"abc", b"abcd", b"\x00\xd8", b"\x00\xd8\x00\xdc", b"\xff\xff\x10\x00",
                b"\xed\xa0\x80", b"\xc0\x80", b"\xe9t\xe9", "Mars 🪐 火星".encode("utf-16-le") * 50,
                "Mars 🪐 火星".encode("utf-32-be") * 50, "Mars 🪐 火星".encode() * 50]


def form_answers(module: object, data: bytes, encoding: str) -> list[object]:
    answers: list[object] = []
    for function in ("validate", "count", "sanitize", "check"):
        try:
            answers.append(getattr(module, function)(data, encoding))
        except UnicodeDecodeError as error:
            answers.append((error.encoding, error.start, error.end, error.reason))
    return answers


@pytest.mark.parametrize("encoding", FIXED_FORM_NAMES)
@pytest.mark.parametrize("data", FORM_SAMPLES)
def test_forms_without_a_mark_answer_as_the_python_functions(data: bytes, encoding: str) -> None:
    expected = form_answers(_oneshot, data, encoding)  # the reference (and the name looked up)
    assert encoding in _oneshot.FIXED_FORMS
    assert form_answers(utfkit, data, encoding) == expected
    if expected[0]:
        assert utfkit.sanitize(data, encoding) is data  # well-formed bytes: the object itself


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64), st.sampled_from(FIXED_FORM_NAMES))
def test_forms_without_a_mark_answer_random_bytes_as_the_python_functions(data: bytes, encoding: str) -> None:
    assert form_answers(utfkit, data, encoding) == form_answers(_oneshot, data, encoding)


def test_forms_with_a_mark_are_never_answered_in_c() -> None:
    for encoding in ("utf-16", "utf-32", "utf-8-sig", "UTF-16"):
        utfkit.validate(b"\xff\xfea\x00", encoding)
        assert encoding not in _oneshot.FIXED_FORMS
    assert utfkit.validate(b"\xff\xfe\x00\xd8", "utf-16") is False
    assert utfkit.count(b"\xef\xbb\xbfab", "utf-8-sig") == 2


class BytesSubclass(bytes):
    pass


def test_a_bytes_subclass_goes_the_python_way_and_gets_the_same_answer() -> None:
    data = BytesSubclass(b"ab\xffc")
    assert utfkit.validate(data) is False
    assert utfkit.count(data) == 4
    assert utfkit.sanitize(data) == b"ab\xef\xbf\xbdc"


@pytest.mark.parametrize("function", ["validate", "check", "count", "sanitize"])
def test_errors_are_the_python_functions_errors(function: str) -> None:
    public = getattr(utfkit, function)
    with pytest.raises(TypeError, match="encode the text first"):
        public("text")
    with pytest.raises(TypeError):
        public(12)
    with pytest.raises(LookupError):
        public(b"abc", "no-such-encoding")
    with pytest.raises(TypeError):
        public(b"abc", 8)
    with pytest.raises(TypeError):
        public()
    with pytest.raises(TypeError):
        public(b"abc", "utf-8", "extra")
    with pytest.raises(TypeError):
        public(b"abc", nonsense=1)


@pytest.mark.parametrize("function", ["validate", "check", "count", "sanitize"])
def test_signature_and_documentation(function: str) -> None:
    public = getattr(utfkit, function)
    assert str(inspect.signature(public)) == "(data, encoding='utf-8')"
    assert public.__doc__ and public.__doc__.split()[0] == getattr(_oneshot, function).__doc__.split()[0]


def test_threads_share_the_entries() -> None:
    good, bad = ("火星 " * 2000).encode(), ("火星 " * 2000).encode() + b"\xc0"
    failures: list[object] = []

    def work() -> None:
        for _ in range(50):
            if not utfkit.validate(good) or utfkit.validate(bad) or utfkit.count(good) != 6000:
                failures.append("wrong answer")

    on_threads(work)
    assert failures == []


def test_set_utf8_entries_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        _direct.set_utf8_entries(1, 2, "utf-8")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _direct.set_utf8_entries(0, 0, "utf-8", print, print, print, print)
    with pytest.raises(TypeError):
        _direct.set_utf8_entries(1, 2, "utf-8", 1, 2, 3, 4)  # type: ignore[arg-type]


# ---------------------------------------------------------------- transcode

TRANSCODE_PAIRS = [("utf-8", "utf-16-le"), ("utf-8", "utf-32-be"), ("utf-16-le", "utf-8"), ("utf-32-le", "utf-16-le"),
                   ("utf-16-be", "utf-32-le"), ("utf-8", "latin-1"), ("latin-1", "utf-16-le"), ("utf-8", "utf-16"),
                   ("utf-16", "utf-8"), ("utf-8", "utf-8"), ("latin-1", "utf-8"), ("utf-8", "ascii")]
HANDLERS = ["strict", "replace", "ignore"]


def cpython_transcode(data: bytes, from_: str, to: str, errors: str) -> bytes | BaseException:
    try:
        return data.decode(from_, errors).encode(to, errors)
    except UnicodeError as error:
        return error


def assert_transcode_agrees(data: bytes, from_: str, to: str, errors: str) -> None:
    want = cpython_transcode(data, from_, to, errors)
    for call in (lambda: utfkit.transcode(data, from_, to, errors),
                 lambda: utfkit.transcode(data, from_, to, errors, None),
                 lambda: _oneshot.transcode(data, from_, to, errors)):
        if isinstance(want, BaseException):
            with pytest.raises(type(want)) as raised:
                call()
            if isinstance(want, UnicodeDecodeError):
                assert isinstance(raised.value, UnicodeDecodeError)
                got = raised.value
                assert (got.start, got.end, got.reason) == (want.start, want.end, want.reason)
        else:
            assert call() == want
    if not isinstance(want, BaseException):
        out = bytearray(len(want) + 3)
        assert utfkit.transcode(data, from_, to, errors, out) == len(want)
        assert utfkit.transcode(data, from_, to, errors, out=out) == len(want)
        assert bytes(out[:len(want)]) == want


@pytest.mark.parametrize("from_, to", TRANSCODE_PAIRS)
@pytest.mark.parametrize("errors", HANDLERS)
@pytest.mark.parametrize("length", [0, 1, 15, 16, 31, 32, 33, 64, 100, 127, 128, 129, 1000, 5000])
def test_transcode_equals_cpython_at_every_short_length(from_: str, to: str, errors: str, length: int) -> None:
    text = ("Mars, « la planète » 火星 🪐 " * 300)[:length]
    if "latin-1" in (from_, to) or to == "ascii":
        text = text.encode("latin-1", "ignore").decode("latin-1")
    try:
        data = text.encode(from_)
    except UnicodeEncodeError:
        data = text.encode("latin-1", "ignore")
    assert_transcode_agrees(data, from_, to, errors)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(TRANSCODE_PAIRS), st.sampled_from(HANDLERS))
def test_transcode_of_random_bytes_equals_cpython(data: bytes, pair: tuple[str, str], errors: str) -> None:
    assert_transcode_agrees(data, pair[0], pair[1], errors)


def test_transcode_plans_answered_in_c_are_those_that_need_only_the_core() -> None:
    utfkit.transcode(b"abc", "utf-8", "utf-16-le")
    utfkit.transcode(b"abc", "utf-8", "utf-16")  # a byte-order mark to write
    utfkit.transcode(b"abc", "utf-8", "wtf-8")  # well-formed input is returned as it is
    utfkit.transcode(b"abc", "latin-1", "utf-8")  # ASCII input is returned as it is
    assert _oneshot.DIRECT_PLANS[("utf-8", "utf-16-le", "strict")][3] == 0
    assert _oneshot.DIRECT_PLANS[("latin-1", "utf-8", "strict")][3] == 1  # ASCII: the input itself
    for marked_or_itself in [("utf-8", "utf-16", "strict"), ("utf-8", "wtf-8", "strict")]:
        assert marked_or_itself not in _oneshot.DIRECT_PLANS
    short = b"ASCII"
    assert utfkit.transcode(short, "latin-1", "utf-8") is short
    assert utfkit.transcode(short, "utf-8", "latin-1", "replace") is short
    assert utfkit.transcode(b"caf\xe9", "latin-1", "utf-8") == b"caf\xc3\xa9"
    assert utfkit.transcode(b"caf\xc3\xa9", "utf-8", "latin-1") == b"caf\xe9"
    data = b"plain ASCII " * 100  # above the size CPython's codec converts for the Python side
    assert utfkit.transcode(data, "latin-1", "utf-8") is data
    assert utfkit.transcode(data, "utf-8", "utf-8") is data


def test_transcode_of_inputs_above_the_one_pass_room_goes_the_python_way() -> None:
    text = "火星 Mars " * (_oneshot.ONE_PASS_ROOM // 8)
    data = text.encode()
    assert len(data) > _oneshot.ONE_PASS_ROOM
    assert utfkit.transcode(data, "utf-8", "utf-16-le") == text.encode("utf-16-le")
    assert utfkit.transcode(data, "utf-8", "latin-1", "replace") == text.encode("latin-1", "replace")


def test_transcode_errors_are_the_python_functions_errors() -> None:
    with pytest.raises(LookupError):
        utfkit.transcode(b"abc", "utf-8", "no-such-encoding")
    with pytest.raises(TypeError, match="encode the text first"):
        utfkit.transcode("abc", "utf-8", "utf-16-le")  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        utfkit.transcode(b"abc", "utf-8")  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        utfkit.transcode(b"abc", "utf-8", "utf-16-le", "strict", None, "extra")  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        utfkit.transcode(b"abc", "utf-8", "utf-16-le", nonsense=1)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="room for 2 bytes"):
        utfkit.transcode(b"abc", "utf-8", "utf-16-le", out=bytearray(2))
    assert utfkit.transcode(b"abc", "utf-8", "utf-16-le", errors="replace") == "abc".encode("utf-16-le")
    assert utfkit.transcode(data=b"abc", from_="utf-8", to="utf-16-le") == "abc".encode("utf-16-le")
    assert str(inspect.signature(utfkit.transcode)) == "(data, from_, to, errors='strict', out=None)"


def test_set_transcode_entry_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        _direct.set_transcode_entry({}, "strict", print)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _direct.set_transcode_entry([], "strict", print, 10)  # type: ignore[arg-type]


# ------------------------------------------------ valid_up_to, transcoded_length


def length_answers(module: object, data: bytes, pair: tuple[str, str], errors: str) -> list[object]:
    answers: list[object] = []
    calls = [("valid_up_to", (data,)), ("valid_up_to", (data, pair[0])), ("transcoded_length", (data, *pair, errors)),
             ("transcoded_length", (data, *pair))]
    for function, args in calls:
        try:
            answers.append(getattr(module, function)(*args))
        except UnicodeError as error:  # UnicodeEncodeError too: Latin-1 cannot hold every character
            answers.append((type(error).__name__, error.encoding, error.start, error.end, error.reason))
    return answers


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(TRANSCODE_PAIRS + [("utf-8", "latin-1"), ("latin-1", "utf-16-be")]),
       st.sampled_from(HANDLERS))
def test_valid_up_to_and_transcoded_length_answer_as_the_python_functions(
        data: bytes, pair: tuple[str, str], errors: str) -> None:
    expected = length_answers(_oneshot, data, pair, errors)  # the reference (and the plans made)
    assert length_answers(utfkit, data, pair, errors) == expected


@pytest.mark.parametrize("data", SAMPLES)
def test_transcoded_length_is_the_length_transcode_writes(data: bytes) -> None:
    for pair in TRANSCODE_PAIRS:
        for errors in HANDLERS:
            try:
                written = len(utfkit.transcode(data, *pair, errors))
            except UnicodeError as error:
                with pytest.raises(type(error)) as raised:
                    utfkit.transcoded_length(data, *pair, errors)
                assert (raised.value.start, raised.value.end) == (error.start, error.end)
            else:
                assert utfkit.transcoded_length(data, *pair, errors) == written
    expected = len(data) if cpython_error(data) is None else cpython_error(data).start  # type: ignore[union-attr]
    assert utfkit.valid_up_to(data) == expected


def test_valid_up_to_and_transcoded_length_errors() -> None:
    with pytest.raises(TypeError):
        utfkit.valid_up_to("text")
    with pytest.raises(LookupError):
        utfkit.valid_up_to(b"abc", "no-such-encoding")
    with pytest.raises(LookupError):
        utfkit.transcoded_length(b"abc", "utf-8", "no-such-encoding")
    with pytest.raises(TypeError):
        utfkit.transcoded_length(b"abc", "utf-8")
    assert utfkit.valid_up_to(data=b"ab\xff") == 2
    assert utfkit.transcoded_length(b"ab", "utf-8", to="utf-16-le") == 4
    assert utfkit.transcoded_length(bytearray(b"ab"), "utf-8", "utf-32-le") == 8


# ------------------------------------------------ every buffer type, read in C


def buffer_kinds(data: bytes) -> list[object]:
    import array
    import mmap

    kinds: list[object] = [bytearray(data), memoryview(data), memoryview(bytearray(data))]
    if len(data) % 2 == 0:
        kinds.append(array.array("H", data))  # item size 2: read as its bytes
    if data:
        mapped = mmap.mmap(-1, len(data))
        mapped.write(data)
        kinds.append(mapped)
    return kinds


@pytest.mark.parametrize("data", FORM_SAMPLES + SAMPLES)
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "latin-1", "cesu-8"])
def test_any_contiguous_buffer_answers_as_the_python_functions(data: bytes, encoding: str) -> None:
    expected = form_answers(_oneshot, data, encoding)
    for buffer in buffer_kinds(data):
        assert form_answers(utfkit, buffer, encoding) == expected, type(buffer)  # type: ignore[arg-type]
        assert form_answers(utfkit, buffer, encoding) == form_answers(_oneshot, buffer, encoding)  # type: ignore[arg-type]
        sanitized = utfkit.sanitize(buffer, encoding)  # type: ignore[arg-type]
        assert type(sanitized) is bytes
        if expected[0]:
            assert sanitized == data and utfkit.valid_up_to(buffer, encoding) == len(data)  # type: ignore[arg-type]


def test_buffers_the_binding_refuses_are_refused_alike() -> None:
    strided = memoryview(b"abcdef")[::2]
    for function in (utfkit.validate, utfkit.check, utfkit.count, utfkit.sanitize, utfkit.valid_up_to):
        with pytest.raises(BufferError):
            function(strided)
        with pytest.raises(TypeError, match="encode the text first"):
            function("text")  # type: ignore[arg-type]


def test_a_bytearray_cannot_be_resized_while_it_is_read_without_the_gil() -> None:
    data = bytearray(("火星 " * 100_000).encode())
    stop = []

    def resize() -> None:
        while not stop:
            try:
                data.extend(b"x")
                del data[-1]
            except BufferError:  # exported: the read holds it in place
                pass

    import threading

    thread = threading.Thread(target=resize)
    thread.start()
    try:
        for _ in range(200):
            assert utfkit.validate(data) is True
            assert utfkit.count(data) in (300_000, 300_001)  # read before or after an "x" came and went
    finally:
        stop.append(True)
        thread.join()
