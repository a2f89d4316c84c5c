"""The external vectors through the streaming objects (../shared/vectors).

* web-platform-tests' TextDecoder streaming cases, call by call;
* Autobahn's case 6 payloads (valid accepted, invalid rejected -- in the
  frame that delivers the deciding byte) and its fragmented cases 6.4.x;
* autobahn-python's incremental validate() calls through utfkit.compat;
* every UTF-8/UTF-16 vector file re-run split at every byte boundary: the
  Validator's error equals CPython's one-shot error and is raised in the
  chunk holding the deciding byte, and the replace-transcoded stream equals
  the file's expected replacement text.

The WTF-8, CESU-8, MUTF-8 and UTF-E-8 files are not here: streams handle
the Unicode encoding forms (see utfkit.stream).
"""

from __future__ import annotations

import pytest

import utfkit
from test_stream import expected_failing_call, is_decided, validator_failure
from transcode_oracle import cpython_error
from utfkit.compat import Utf8Validator
from vector_files import load_json, missing_reason, vector_params

FFFD = "\ufffd"


def hex_bytes(text: str) -> bytes:
    return bytes.fromhex(text)


def replace_stream(chunks, encoding: str) -> list[str]:
    """Per chunk (and a final call): the text an IncrementalTranscoder with
    errors="replace" emits, decoded for comparison."""
    transcoder = utfkit.IncrementalTranscoder(encoding, "utf-8", "replace")
    outputs = [transcoder.feed(chunk) for chunk in chunks] + [transcoder.finish()]
    return [output.decode("utf-8") for output in outputs]


# ---- WPT streaming ------------------------------------------------------------------
@pytest.mark.parametrize(
    "vector",
    vector_params("wpt_vectors.json", select=lambda d: d["streaming"], case_id=lambda i, v: f"wpt-stream-{i}"),
)
def test_wpt_streaming_textdecoder_calls(vector):
    """Each TextDecoder.decode(chunk, {stream}) call's output, from the
    IncrementalTranscoder (which, like the WHATWG decoder, emits U+FFFD as
    soon as a subpart is decided); the joined output from the
    IncrementalDecoder (CPython's, which holds ED A0 back one call longer)."""
    encoding = vector["codec"]
    chunks = [hex_bytes(call["chunk_hex"]) for call in vector["calls"]]
    transcoder = utfkit.IncrementalTranscoder(encoding, "utf-8", "replace")
    decoder = utfkit.IncrementalDecoder(encoding, "replace")
    joined = ""
    for chunk, call in zip(chunks, vector["calls"]):
        output = transcoder.feed(chunk) if call["stream"] else transcoder.feed(chunk) + transcoder.finish()
        assert output.decode("utf-8") == call["expected"]
        joined += decoder.decode(chunk, final=not call["stream"])
    assert joined == "".join(call["expected"] for call in vector["calls"])
    index, error = validator_failure(chunks, encoding)
    assert error == cpython_error(b"".join(chunks), encoding)
    assert index == expected_failing_call(chunks, encoding)


# ---- Autobahn case 6 ----------------------------------------------------------------
AUTOBAHN = "autobahn_case6_vectors.json"


@pytest.mark.parametrize("vector", vector_params(AUTOBAHN, case_id=lambda i, v: f"case-{v['case']}"))
def test_autobahn_case6_payload_accepted_or_rejected(vector):
    payload = hex_bytes(vector["payload_hex"])
    validator = utfkit.Validator()
    try:
        validator.feed(payload)
        validator.finish()
        accepted = True
    except UnicodeDecodeError:
        accepted = False
    assert accepted is vector["valid"]
    valid, ends_on_code_point, current, total = Utf8Validator().validate(payload)
    assert (valid and ends_on_code_point) is vector["valid"]
    if vector["valid"]:
        assert current == total == len(payload)


@pytest.mark.parametrize("vector", vector_params(AUTOBAHN, case_id=lambda i, v: f"case-{v['case']}"))
def test_autobahn_case6_rejected_in_the_frame_with_the_deciding_byte(vector):
    """The payload as two frames, split at every byte: a valid message is
    accepted whatever the split; an invalid one fails in the frame that
    delivers the first byte that cannot be valid (or at the end of the
    message when it only ends inside a character)."""
    payload = hex_bytes(vector["payload_hex"])
    for cut in range(len(payload) + 1):
        frames = [payload[:cut], payload[cut:]]
        index, error = validator_failure(frames, "utf-8")
        assert (index is None) is vector["valid"]
        assert index == expected_failing_call(frames, "utf-8")
        assert error == cpython_error(payload, "utf-8")


# Autobahn's cases 6.4.1-6.4.4 (fail fast on invalid UTF-8): one text message
# in three parts -- frames (6.4.1, 6.4.2) or chops of one frame (6.4.3,
# 6.4.4); either way the parts reach the validator one after the other.
# The parts are those of the test suite's case descriptions: "κόσμε", then
# F4 90 80 80 (U+110000, out of range), then "edited"; 6.4.2/6.4.4 cut the
# second part right after the rejected byte 90.  The endpoint must fail on
# the second part, before the third arrives.
AUTOBAHN_6_4 = {
    "6.4.1": ["cebae1bdb9cf83cebcceb5", "f4908080", "656469746564"],
    "6.4.2": ["cebae1bdb9cf83cebcceb5f4", "90", "8080656469746564"],
    "6.4.3": ["cebae1bdb9cf83cebcceb5", "f4908080", "656469746564"],
    "6.4.4": ["cebae1bdb9cf83cebcceb5f4", "90", "8080656469746564"],
}


@pytest.mark.parametrize("case", sorted(AUTOBAHN_6_4))
def test_autobahn_6_4_fails_fast_on_the_second_part(case):
    parts = [hex_bytes(part) for part in AUTOBAHN_6_4[case]]
    validator = utfkit.Validator()
    validator.feed(parts[0])
    with pytest.raises(UnicodeDecodeError) as raised:
        validator.feed(parts[1])
    assert (raised.value.start, raised.value.end) == (11, 12)  # F4, cut short by 90
    assert raised.value.reason == "invalid continuation byte"
    compat = Utf8Validator()
    assert compat.validate(parts[0])[0] is True
    assert compat.validate(parts[1])[:2] == (False, False)


# ---- autobahn-python's incremental validate() ----------------------------------------
@pytest.mark.parametrize(
    "group",
    vector_params(
        "autobahn_incremental_vectors.json", select=lambda d: d["groups"], case_id=lambda i, v: f"group-{i}"
    ),
)
def test_autobahn_incremental_vectors_through_the_compat_adapter(group):
    validator = Utf8Validator()
    for call in group:
        assert validator.validate(hex_bytes(call["chunk_hex"])) == tuple(call["expect"])


def test_compat_validator_after_rejection_and_reset():
    validator = Utf8Validator()
    assert validator.validate(b"ab\xc0") == (False, False, 2, 2)
    assert validator.validate(b"ok") == (False, False, 0, 2)
    assert validator.validate(b"") == (True, False, 0, 2)  # autobahn's answer for an empty chunk
    validator.reset()
    assert validator.validate(b"\xe2\x82") == (True, False, 2, 2)
    assert validator.validate(b"\xac") == (True, True, 1, 3)


def test_compat_decode_eats_one_byte_at_a_time():
    validator = Utf8Validator()
    states = [validator.decode(byte) for byte in "€".encode()]
    assert states[-1] == 0 and all(state > 1 for state in states[:-1])
    assert validator.codepoint == 0x20AC
    assert validator.decode(0x80) == 1  # a lone continuation byte: rejected
    assert validator.decode(0x41) == 1  # and stays rejected
    with pytest.raises(ValueError):
        validator.decode(256)


# ---- every vector file, split at every byte boundary ---------------------------------
def _inputs(filename: str):
    """(encoding, input bytes, expected replace text or None) of a vector file."""
    document = load_json(filename)
    if document is None:
        pytest.skip(missing_reason(filename))
    if filename == "wpt_vectors.json":
        return [(v["codec"], hex_bytes(v["input_hex"]), v["expected_replace"]) for v in document["single"]]
    if filename == "autobahn_case6_vectors.json":
        return [("utf-8", hex_bytes(v["payload_hex"]), None) for v in document]
    if filename == "utf8_chunks_vectors.json":
        return [("utf-8", hex_bytes(v["input_hex"]), v["expected_replace"]) for v in document]
    if filename == "kuhn_vectors.json":
        return [("utf-8", hex_bytes(v["input_hex"]), v["expected_replace"]) for v in document]
    found = []
    for vector in document:  # cpython_vectors.json, encoding_rs_vectors.json
        if "BOM" in vector.get("note", "") and "sniff" in vector.get("note", "").lower():
            continue  # assumes WHATWG BOM sniffing (see test_vectors.py)
        found.append((vector["codec"], hex_bytes(vector["input_hex"]), vector["expected_replace"]))
    return found


@pytest.mark.parametrize(
    "filename",
    [
        "kuhn_vectors.json",
        "cpython_vectors.json",
        "encoding_rs_vectors.json",
        "wpt_vectors.json",
        "utf8_chunks_vectors.json",
        "autobahn_case6_vectors.json",
    ],
)
def test_vector_file_split_at_every_byte_boundary(filename):
    for encoding, data, expected in _inputs(filename):
        one_shot_error = cpython_error(data, encoding)
        for cut in range(len(data) + 1):
            chunks = [data[:cut], data[cut:]]
            index, error = validator_failure(chunks, encoding)
            assert error == one_shot_error, (encoding, data.hex(), cut)
            assert index == expected_failing_call(chunks, encoding), (encoding, data.hex(), cut)
            if expected is not None:
                assert "".join(replace_stream(chunks, encoding)) == expected, (encoding, data.hex(), cut)


def test_kuhn_stress_file_split_at_every_byte_boundary(vectors_dir):
    """Markus Kuhn's UTF-8-test.txt (22 KB, raw ill-formed bytes included)
    fed in two chunks cut at every offset: always the one-shot error, in the
    chunk that holds the deciding byte -- and in 7-byte chunks, the
    replace-transcoded stream equals CPython's replace decoding."""
    data = (vectors_dir / "UTF-8-test.txt").read_bytes()
    expected = cpython_error(data, "utf-8")
    assert expected is not None
    deciding = next(p for p in range(1, len(data) + 1) if is_decided(data[:p], "utf-8"))
    for cut in range(len(data) + 1):
        index, error = validator_failure([data[:cut], data[cut:]], "utf-8")
        assert error == expected
        assert index == (0 if cut >= deciding else 1)
    chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    assert "".join(replace_stream(chunks, "utf-8")) == data.decode("utf-8", "replace")
