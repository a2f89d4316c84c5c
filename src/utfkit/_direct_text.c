/*
 * _direct_text.c -- utfkit.decode and utfkit.encode: UTF-8, strict,
 * between `bytes` and the storage of a `str` (PEP 393), and CPython's own
 * codec functions for the encodings CPython answers.
 */
#include "_direct.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- decode and encode of UTF-8, called straight from Python ----
 *
 * utfkit.decode and utfkit.encode are these functions.  CPython's UTF-8
 * codec copies ASCII at memory speed but converts every other character one
 * at a time (1-2 GB/s, measured here on Cyrillic and CJK text); the core's
 * kernels convert UTF-8 to and from UTF-16 and UTF-32 many times faster.
 * A CPython `str` stores its characters in one of three fixed widths
 * (PEP 393): 1 byte (all below U+0100: Latin-1), 2 bytes (all in the BMP:
 * UTF-16 with no surrogates) or 4 bytes (UTF-32), the narrowest that holds
 * its largest character.  So:
 *   - decode(bytes) counts the characters (the bytes that are not
 *     continuation bytes 80..BF), validates, and has the core write them
 *     into a new str of that many characters: UTF-32 when the UTF-16
 *     length shows supplementary characters, else UTF-16, narrowed to
 *     Latin-1 when no character is above U+00FF;
 *   - encode(str) has the core convert the str's own storage, read as
 *     Latin-1, UTF-16 or UTF-32, into a new bytes.
 * CPython's codec answers what it does as fast (ASCII, short inputs) and
 * everything the core does not decide alone: another encoding or error
 * handler, keywords, another type, and any input that is an error to raise
 * (it raises exactly CPython's error, because it is CPython's codec). */


static PyObject *decode_fallback = NULL, *encode_fallback = NULL;
/* the binding's dicts: encoding name as spelt -> CPython's decoder
 * function, and -> its encoder function (set_cpython_codecs) */
static PyObject *cpython_decoders = NULL, *cpython_encoders = NULL;

/* A str's 2- and 4-byte storage, in this machine's byte order. */
#if PY_LITTLE_ENDIAN
#define NATIVE_UTF16 UTFKIT_UTF16LE
#define NATIVE_UTF32 UTFKIT_UTF32LE
#else
#define NATIVE_UTF16 UTFKIT_UTF16BE
#define NATIVE_UTF32 UTFKIT_UTF32BE
#endif

/* utfkit_transcode_packed's `how` for a strict conversion */
#define STRICT_HOW(from, to) ((from) | (to) << 4 | UTFKIT_STRICT << 8)

/* Decoded texts up to this many bytes of storage are written on the stack
 * first (str_from_utf8). */
#define STAGE_TEXT_UP_TO 16384

/* Inputs shorter than these go to CPython's codec: each of the core's
 * passes costs a few ns to start, and below them CPython was as fast or
 * faster (same-run ratios on Cyrillic, CJK, German, Czech and emoji text,
 * README "decode and encode").  In bytes of UTF-8 for decode, of the str's
 * storage for encode, by its width: the core reads 1-byte (Latin-1) and
 * 4-byte storage with its vector blocks from a few dozen characters, but
 * 2-byte storage one character at a time below a block's length and after
 * its last whole block, so that it wins at every length only from 384
 * bytes (192 characters: 1.2-1.8x of str.encode on Cyrillic, CJK and mixed
 * text from there to 768 bytes; 0.7-1.0x at 256-352 bytes).  -D overrides
 * them, for measuring. */
#ifndef DECODE_CORE_FROM
#define DECODE_CORE_FROM 48
#endif
#ifndef ENCODE_1BYTE_CORE_FROM
#define ENCODE_1BYTE_CORE_FROM 64
#endif
#ifndef ENCODE_2BYTE_CORE_FROM
#define ENCODE_2BYTE_CORE_FROM 384
#endif
#ifndef ENCODE_4BYTE_CORE_FROM
#define ENCODE_4BYTE_CORE_FROM 128
#endif

PyObject *
direct_set_text_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "set_text_entries() takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    void *addresses[3];
    for (size_t i = 0; i < 3; i++) {
        addresses[i] = PyLong_AsVoidPtr(args[i]);
        if (addresses[i] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "set_text_entries(): a NULL address");
            return NULL;
        }
    }
    if (!PyCallable_Check(args[3]) || !PyCallable_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "set_text_entries(ascii_length_address, utf8_validate_lengths_address, "
                                         "incomplete_suffix_length_address, decode, encode)");
        return NULL;
    }
    direct_core.ascii_length = (ascii_length_fn)addresses[0];
    direct_core.validate_lengths = (validate_lengths_fn)addresses[1];
    direct_core.incomplete_suffix_length = (incomplete_suffix_length_fn)addresses[2];
    PyObject **slots[] = {&decode_fallback, &encode_fallback};
    for (size_t i = 0; i < 2; i++) {
        Py_INCREF(args[3 + i]);
        Py_XSETREF(*slots[i], args[3 + i]);
    }
    Py_RETURN_NONE;
}

PyObject *
direct_set_cpython_codecs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyDict_CheckExact(args[0]) || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "set_cpython_codecs(decoders_by_spelling: dict, encoders_by_spelling: dict)");
        return NULL;
    }
    Py_INCREF(args[0]);
    Py_XSETREF(cpython_decoders, args[0]);
    Py_INCREF(args[1]);
    Py_XSETREF(cpython_encoders, args[1]);
    Py_RETURN_NONE;
}

/* The value `dict` holds for the exact str `name` (borrowed), or NULL. */
static PyObject *
spelt_in(PyObject *dict, PyObject *name)
{
    if (dict == NULL || !PyUnicode_CheckExact(name))
        return NULL;
    PyObject *value = PyDict_GetItemWithError(dict, name);
    if (value == NULL)
        PyErr_Clear();
    return value;
}

/* A call (data or text, encoding[, errors]) whose encoding is one of
 * CPython's own codecs, positional, errors an exact str when given: 1. */
static int
cpython_codec_call(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    return kwnames == NULL && (given == 2 || (given == 3 && PyUnicode_CheckExact(args[2])));
}

/* 1 when a call's arguments after the first are UTF-8 and strict: none,
 * (encoding) or (encoding, errors), positional, encoding "utf-8" and
 * errors "strict". */
static int
utf8_strict_arguments(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    if (kwnames != NULL || given < 1 || given > 3 || (given >= 2 && !direct_names_utf8(args[1])))
        return 0;
    return given < 3 || (PyUnicode_CheckExact(args[2]) && PyUnicode_CompareWithASCIIString(args[2], "strict") == 0);
}

/* 1 if the well-formed UTF-8 src[0..len) holds a character above U+00FF:
 * a lead byte C4..FF (Unicode 3.9 Table 3-7: C2 and C3 lead exactly the
 * characters U+0080..U+00FF, and no continuation byte is above BF).  SSE2
 * is part of x86-64; elsewhere eight bytes at a time in a word. */
static int
above_latin1(const uint8_t *src, size_t len)
{
    size_t i = 0;
#if defined(__SSE2__)
    /* x ^ 80 as signed bytes: C4..FF become 44..7F, the only values above 43 */
    const __m128i flip = _mm_set1_epi8((char)0x80), limit = _mm_set1_epi8(0x43);
    for (; i + 64 <= len; i += 64) {
        __m128i any = _mm_setzero_si128();
        for (size_t k = 0; k < 64; k += 16) {
            __m128i bytes = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(src + i + k)), flip);
            any = _mm_or_si128(any, _mm_cmpgt_epi8(bytes, limit));
        }
        if (_mm_movemask_epi8(any) != 0)
            return 1;
    }
#endif
    for (; i + 8 <= len; i += 8) {
        uint64_t word;
        memcpy(&word, src + i, 8);
        /* per byte: bit 7 set when bits 7 and 6 are (C0..FF) and one of
         * bits 5..2 is (not C0..C3); no sum crosses into the next byte */
        uint64_t high = word & (word << 1);
        uint64_t rest = (word & 0x3C3C3C3C3C3C3C3Cu) + 0x7C7C7C7C7C7C7C7Cu;
        if (high & rest & 0x8080808080808080u)
            return 1;
    }
    for (; i < len; i++)
        if (src[i] >= 0xC4)
            return 1;
    return 0;
}

/* 1 if the 2-byte storage units[0..n) (PEP 393, this machine's byte order)
 * holds a surrogate code point, D800..DFFF (Unicode 3.9 D71).  SSE2 is part
 * of x86-64; elsewhere one unit at a time. */
static int
holds_surrogate(const uint8_t *units, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    /* u - D800 below 800 (unsigned) <=> u in D800..DFFF: as signed 16-bit
     * values, (u - D800) ^ 8000 below 8800 - 10000 = -7800 */
    const __m128i base = _mm_set1_epi16((short)0xD800), flip = _mm_set1_epi16((short)0x8000),
                  limit = _mm_set1_epi16((short)(0x8000 + 0x0800));
    for (; i + 32 <= n; i += 32) {
        __m128i any = _mm_setzero_si128();
        for (size_t k = 0; k < 32; k += 8) {
            __m128i unit = _mm_loadu_si128((const __m128i *)(units + 2 * (i + k)));
            __m128i shifted = _mm_xor_si128(_mm_sub_epi16(unit, base), flip);
            any = _mm_or_si128(any, _mm_cmplt_epi16(shifted, limit));
        }
        if (_mm_movemask_epi8(any) != 0)
            return 1;
    }
#endif
    for (; i < n; i++) {
        uint16_t unit;
        memcpy(&unit, units + 2 * i, 2);
        if ((unit & 0xF800) == 0xD800)
            return 1;
    }
    return 0;
}

/* The well-formed UTF-8 src[0..len) converted by the core into `to`,
 * exactly `size` bytes, written into a new str made by
 * PyUnicode_New(characters, largest): the str; None (a new reference) when
 * the conversion reports another status or length (Latin-1 meeting a
 * character above U+00FF); NULL with an exception set. */
static PyObject *
str_from_utf8(const uint8_t *src, Py_ssize_t len, Py_ssize_t characters, Py_UCS4 largest, int to, size_t size)
{
    int how = STRICT_HOW(UTFKIT_UTF8, to);
    int64_t written;
    if (size <= STAGE_TEXT_UP_TO) {
        /* the core writes straight into its output only while it has room
         * to spare (ROOM_SLACK): a short text goes through the stack, and
         * the str is made only when the conversion succeeds */
        uint8_t staged[STAGE_TEXT_UP_TO + ROOM_SLACK];
        CORE_CALL(len, written = direct_core.transcode_packed(src, (size_t)len, how, staged, sizeof staged));
        if (written != (int64_t)size)
            Py_RETURN_NONE;
        PyObject *text = PyUnicode_New(characters, largest);
        if (text != NULL)
            memcpy(PyUnicode_DATA(text), staged, size);
        return text;
    }
    PyObject *text = PyUnicode_New(characters, largest);
    if (text == NULL)
        return NULL;
    written = direct_packed_call(src, len, how, PyUnicode_DATA(text), size); /* no other thread sees `text` yet */
    if (written != (int64_t)size) {
        Py_DECREF(text);
        Py_RETURN_NONE;
    }
    return text;
}

/* The UTF-8 src[0..len), whose first `ascii` bytes are ASCII and whose
 * storage fits the stack (len <= STAGE_TEXT_UP_TO), converted by the core
 * to Latin-1, strict, into a new str of 1-byte storage: the conversion
 * validates as it goes and stops at an ill-formed sequence or a character
 * above U+00FF (Unicode 3.9 Table 3-7 again: C2 and C3 lead exactly
 * U+0080..U+00FF), so it needs no validation pass before it.  The str; None
 * (a new reference) when the conversion stopped; NULL with an exception
 * set. */
static PyObject *
latin1_str_from_utf8(const uint8_t *src, size_t len, size_t ascii)
{
    uint8_t staged[STAGE_TEXT_UP_TO + ROOM_SLACK];
    int64_t written;
    CORE_CALL(len - ascii, written = direct_core.transcode_packed(src + ascii, len - ascii,
                                                                  STRICT_HOW(UTFKIT_UTF8, UTFKIT_LATIN1),
                                                                  staged, sizeof staged));
    if (written < 0)
        Py_RETURN_NONE;
    /* at least one character 80..FF (src[ascii] leads one): not ASCII */
    PyObject *text = PyUnicode_New((Py_ssize_t)(ascii + (size_t)written), 0xFF);
    if (text != NULL) {
        memcpy(PyUnicode_DATA(text), src, ascii);
        memcpy((uint8_t *)PyUnicode_DATA(text) + ascii, staged, (size_t)written);
    }
    return text;
}

/* The UTF-8 src[0..len), strict, into a new str: exactly CPython's
 * bytes.decode(), errors included.  src is a bytes object's memory (which
 * no one can change while the GIL is released); NULL with an exception set. */
PyObject *
direct_decode_utf8(const uint8_t *src, Py_ssize_t len)
{
    if (len < DECODE_CORE_FROM)
        return PyUnicode_DecodeUTF8((const char *)src, len, "strict");
    size_t ascii;
    CORE_CALL(len, ascii = direct_core.ascii_length(src, (size_t)len));
    if ((Py_ssize_t)ascii == len) { /* ASCII: its own 1-byte storage */
        PyObject *text = PyUnicode_New(len, 0x7F);
        if (text != NULL)
            memcpy(PyUnicode_DATA(text), src, (size_t)len);
        return text;
    }
    const uint8_t *rest = src + ascii;
    size_t rest_length = (size_t)len - ascii, characters = 0, units = 0;
    /* 1-byte storage (PEP 393's canonical form, which str comparison relies
     * on) when no character is above U+00FF: the scan stops at the first
     * such character, right after the ASCII prefix in most non-Latin text;
     * mostly-Latin text then goes to Latin-1 in one pass.  (The scan reads
     * lead bytes as if the text were well-formed; the strict conversion,
     * or the validation below, sees whether it is.) */
    int wide;
    CORE_CALL(rest_length, wide = above_latin1(rest, rest_length));
    if (!wide && (size_t)len <= STAGE_TEXT_UP_TO) {
        PyObject *text = latin1_str_from_utf8(src, (size_t)len, ascii);
        if (text != Py_None)
            return text;
        Py_DECREF(text); /* ill-formed: CPython raises its own error */
        return PyUnicode_DecodeUTF8((const char *)src, len, "strict");
    }
    /* the rest, from the first byte 80..FF: validated, with its characters
     * and UTF-16 units (a supplementary character is 2) counted, one pass */
    int valid;
    CORE_CALL(rest_length, valid = direct_core.validate_lengths(rest, rest_length, &characters, &units));
    if (!valid) /* CPython raises its own error */
        return PyUnicode_DecodeUTF8((const char *)src, len, "strict");
    Py_ssize_t n = (Py_ssize_t)(ascii + characters);
    PyObject *text;
    if (units != characters) { /* a supplementary character: 4-byte storage */
        text = str_from_utf8(src, len, n, 0x10FFFF, NATIVE_UTF32, 4 * (size_t)n);
    } else {
        /* 2-byte storage if a character is above U+00FF, else 1-byte */
        text = wide ? str_from_utf8(src, len, n, 0xFFFF, NATIVE_UTF16, 2 * (size_t)n)
                    : str_from_utf8(src, len, n, 0xFF, UTFKIT_LATIN1, (size_t)n);
    }
    if (text == Py_None) {
        Py_DECREF(text);
        PyErr_SetString(PyExc_SystemError, "utfkit.decode: the core's output is not the length it counted");
        return NULL;
    }
    return text;
}

/* The first item of what CPython's codec function `codec` returns for
 * (args[0], errors[, final]): a decoder's str or an encoder's bytes.
 * errors is args[2], else "strict"; `final` is passed when not NULL. */
static PyObject *
cpython_codec(PyObject *codec, PyObject *const *args, Py_ssize_t nargs, PyObject *final)
{
    if (direct_strict_name == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_transcode_entry() was not called");
        return NULL;
    }
    PyObject *call[3] = {args[0], PyVectorcall_NARGS(nargs) == 3 ? args[2] : direct_strict_name, final};
    PyObject *result = PyObject_Vectorcall(codec, call, final != NULL ? 3 : 2, NULL);
    if (result == NULL)
        return NULL;
    if (!PyTuple_CheckExact(result) || PyTuple_GET_SIZE(result) != 2) {
        Py_DECREF(result);
        PyErr_SetString(PyExc_TypeError, "a codec function must return a tuple of two items");
        return NULL;
    }
    PyObject *first = PyTuple_GET_ITEM(result, 0);
    Py_INCREF(first);
    Py_DECREF(result);
    return first;
}

PyObject *
direct_decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *decoder;
    if (PyVectorcall_NARGS(nargs) >= 1 && PyBytes_CheckExact(args[0]) && cpython_codec_call(args, nargs, kwnames)
        && !direct_names_utf8(args[1]) && (decoder = spelt_in(cpython_decoders, args[1])) != NULL)
        return cpython_codec(decoder, args, nargs, Py_True); /* as the binding calls it */
    if (direct_core.validate_lengths == NULL || !utf8_strict_arguments(args, nargs, kwnames)
        || !PyBytes_CheckExact(args[0]))
        return direct_fallback(decode_fallback, args, nargs, kwnames);
    return direct_decode_utf8((const uint8_t *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]));
}

PyObject *
direct_encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *encoder;
    if (PyVectorcall_NARGS(nargs) >= 1 && PyUnicode_CheckExact(args[0]) && cpython_codec_call(args, nargs, kwnames)
        && !direct_names_utf8(args[1]) && (encoder = spelt_in(cpython_encoders, args[1])) != NULL)
        return cpython_codec(encoder, args, nargs, NULL); /* as str.encode calls it */
    if (direct_core.transcode_packed == NULL || !utf8_strict_arguments(args, nargs, kwnames) || !PyUnicode_CheckExact(args[0]))
        return direct_fallback(encode_fallback, args, nargs, kwnames);
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    if (PyUnicode_IS_ASCII(text)) /* ASCII is its own UTF-8, stored as 1 byte a character */
        return PyBytes_FromStringAndSize(PyUnicode_DATA(text), n);
    Py_ssize_t core_from = kind == PyUnicode_1BYTE_KIND   ? ENCODE_1BYTE_CORE_FROM
                           : kind == PyUnicode_2BYTE_KIND ? ENCODE_2BYTE_CORE_FROM
                                                          : ENCODE_4BYTE_CORE_FROM;
    if (n * kind < core_from)
        return PyUnicode_AsUTF8String(text);
    const uint8_t *src = PyUnicode_DATA(text);
    Py_ssize_t len = n * kind;
    int from = kind == PyUnicode_1BYTE_KIND ? UTFKIT_LATIN1 : kind == PyUnicode_2BYTE_KIND ? NATIVE_UTF16 : NATIVE_UTF32;
    /* A str may hold surrogates, which strict UTF-8 refuses; read as UTF-16,
     * a lone one fails the conversion below, but a lead followed by a trail
     * would make one supplementary character.  With none, the str's units
     * are its characters. */
    if (kind == PyUnicode_2BYTE_KIND && holds_surrogate(src, (size_t)n))
        return PyUnicode_AsUTF8String(text); /* CPython raises its UnicodeEncodeError */
    Py_ssize_t capacity = n * (kind == PyUnicode_1BYTE_KIND ? 2 : kind == PyUnicode_2BYTE_KIND ? 3 : 4);
    PyObject *output = direct_new_bytes_of(src, len, STRICT_HOW(from, UTFKIT_UTF8), NULL, 0, capacity);
    if (output != Py_None)
        return output; /* the bytes, or NULL with MemoryError set */
    Py_DECREF(output);
    return PyUnicode_AsUTF8String(text); /* a surrogate (or one above U+10FFFF): CPython's error */
}
