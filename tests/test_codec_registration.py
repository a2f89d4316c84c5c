"""register_codecs(): wtf-8, cesu-8 and mutf-8 through the codecs module --
one-shot, incremental (identical to one-shot however the input is split),
stream readers and writers, and open()."""

from __future__ import annotations

import codecs
import io
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import utfkit
from utf8_family_strategies import utf8_family_bytes

FAMILY = ["wtf-8", "cesu-8", "mutf-8"]

utfkit.register_codecs()


def text_for(form: str):
    """Text every form encodes: CESU-8 takes no surrogates."""
    categories = ("Cs",) if form == "cesu-8" else ()
    return st.text(alphabet=st.characters(blacklist_categories=categories), max_size=30)


def splits(data_length: int):
    return st.lists(st.integers(0, data_length), max_size=5).map(sorted)


def pieces(data, cuts):
    edges = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:])]


def test_nothing_is_registered_at_import():
    program = "import codecs, utfkit\ntry:\n    codecs.lookup('wtf-8')\nexcept LookupError:\n    print('absent')\n"
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "absent", result.stderr


def test_register_codecs_is_idempotent_and_reads_names_as_codecs_does():
    utfkit.register_codecs()
    utfkit.register_codecs()
    for form in FAMILY:
        for spelling in (form, form.upper(), form.replace("-", "_"), form.replace("-", "")):
            assert codecs.lookup(spelling).name == form
    assert codecs.lookup("utf-8").name == "utf-8"  # CPython's own codecs untouched


@pytest.mark.parametrize("form", FAMILY)
def test_str_encode_and_bytes_decode(form):
    text = "a\0\u00e9\U0001f4a9"
    data = text.encode(form)
    assert data == utfkit.encode(text, form)
    assert data.decode(form) == text
    assert codecs.decode(bytearray(data), form) == text
    with pytest.raises(UnicodeDecodeError) as raised:
        (data + b"\xff").decode(form)
    assert raised.value.encoding == form and raised.value.start == len(data)


def test_the_spec_examples_through_codecs():
    assert "\ud83d\udca9".encode("wtf-8") == b"\xf0\x9f\x92\xa9"
    assert "\ud83d".encode("wtf-8") == b"\xed\xa0\xbd"
    assert b"\xc0\x80".decode("mutf-8") == "\0"
    assert "\U00010401".encode("cesu-8") == b"\xed\xa0\x81\xed\xb0\x81"


@pytest.mark.parametrize("form", FAMILY)
@settings(max_examples=80)
@given(data=utf8_family_bytes, cuts=st.data(), errors=st.sampled_from(["strict", "replace", "backslashreplace"]))
def test_incremental_decoder_equals_one_shot_however_split(form, data, cuts, errors):
    chunks = pieces(data, cuts.draw(splits(len(data))))
    decoder = codecs.getincrementaldecoder(form)(errors)
    try:
        expected = utfkit.decode(data, form, errors)
    except UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            for chunk in chunks:
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        return
    got = "".join(decoder.decode(chunk) for chunk in chunks) + decoder.decode(b"", final=True)
    assert got == expected


@pytest.mark.parametrize("form", FAMILY)
def test_a_surrogate_pair_split_across_chunks_decodes_as_one_shot(form):
    data = b"a\xed\xa0\xbd\xed\xb2\xa9b"
    for cut in range(len(data) + 1):
        decoder = codecs.getincrementaldecoder(form)("replace")
        got = decoder.decode(data[:cut]) + decoder.decode(data[cut:]) + decoder.decode(b"", True)
        assert got == utfkit.decode(data, form, "replace"), cut
    # CESU-8 and MUTF-8 join the pair; in WTF-8 the trail is ill-formed
    assert utfkit.decode(data, "mutf-8") == "a\U0001f4a9b"


def test_incremental_decoder_state_round_trips():
    decoder = codecs.getincrementaldecoder("mutf-8")()
    assert decoder.decode(b"x\xed\xa0\xbd") == "x"
    state = decoder.getstate()
    fresh = codecs.getincrementaldecoder("mutf-8")()
    fresh.setstate(state)
    assert fresh.decode(b"\xed\xb2\xa9", final=True) == "\U0001f4a9"


@pytest.mark.parametrize("form", FAMILY)
@given(data=st.data())
def test_incremental_encoder_equals_one_shot_however_split(form, data):
    text = data.draw(text_for(form))
    chunks = pieces(text, data.draw(splits(len(text))))
    encoder = codecs.getincrementalencoder(form)()
    got = b"".join(encoder.encode(chunk) for chunk in chunks) + encoder.encode("", final=True)
    assert got == utfkit.encode(text, form)


def test_wtf8_incremental_encoder_joins_a_pair_split_across_chunks():
    encoder = codecs.getincrementalencoder("wtf-8")()
    assert encoder.encode("a\ud83d") == b"a"
    assert encoder.getstate() == 0xD83D
    assert encoder.encode("\udca9b") == b"\xf0\x9f\x92\xa9b"
    assert encoder.encode("\ud800") == b""
    assert encoder.encode("", final=True) == b"\xed\xa0\x80"


@pytest.mark.parametrize("form", FAMILY)
@given(data=st.data())
def test_stream_writer_and_reader(form, data):
    text = data.draw(text_for(form))
    stream = io.BytesIO()
    writer = codecs.getwriter(form)(stream)
    for chunk in pieces(text, data.draw(splits(len(text)))):
        writer.write(chunk)
    writer.reset()
    encoded = stream.getvalue()
    assert encoded == utfkit.encode(text, form)
    size = data.draw(st.integers(1, 8))
    reader = codecs.getreader(form)(io.BytesIO(encoded))
    got = []
    while True:
        piece = reader.read(size)
        if not piece:
            break
        got.append(piece)
    assert "".join(got) == text


def test_stream_reader_reports_a_truncated_end_instead_of_dropping_it():
    reader = codecs.getreader("cesu-8")(io.BytesIO(b"ab\xe2\x82"))
    with pytest.raises(UnicodeDecodeError):
        reader.read()
    assert codecs.getreader("mutf-8")(io.BytesIO(b"ab\xed\xa0\xbd")).read() == "ab\ud83d"


@pytest.mark.parametrize("form", FAMILY)
def test_open_writes_and_reads_files(form, tmp_path):
    text = "line one \u00e9\nline \0 two \U0001f4a9\n" + ("\ud800 lone\n" if form != "cesu-8" else "")
    path = tmp_path / "text"
    with open(path, "w", encoding=form, newline="") as handle:
        handle.write(text)
    assert path.read_bytes() == utfkit.encode(text, form)
    with open(path, encoding=form, newline="") as handle:
        assert handle.read() == text


@pytest.mark.parametrize("form", FAMILY)
def test_incremental_decoder_on_hand_picked_chunk_ends(form):
    """Ends of chunks whose reading depends on what follows (found by
    hypothesis: CESU-8's lead surrogate, a cut-short ED, then C2)."""
    for data in (b"\x00\xed\xa0\x80\xed\xc2\x80", b"\xed\xa0\x80\xed\xb0\x41", b"\xe1\xe1\xe1\xe1A",
                 b"a\xed\xa0\xbd\xed\xb2", b"\xc0\xc0\x80"):
        expected = utfkit.decode(data, form, "replace")
        for cut in range(len(data) + 1):
            decoder = codecs.getincrementaldecoder(form)("replace")
            got = decoder.decode(data[:cut]) + decoder.decode(data[cut:]) + decoder.decode(b"", True)
            assert got == expected, (data, cut)
