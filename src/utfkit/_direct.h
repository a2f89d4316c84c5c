/*
 * _direct.h -- what the C files of utfkit._direct share: the core's entries
 * (set once at import), the rule for the GIL around a core call, and the
 * functions one file calls in another.  The files, one job each:
 *   _direct.c           the module: its functions' table and its types;
 *   _direct_write.c     conversions into a new `bytes` or an out= buffer:
 *                       transcode, transcoded_length and the binding's own
 *                       transcode_new and transcode_into;
 *   _direct_checks.c    validate, check, count, sanitize and valid_up_to;
 *   _direct_text.c      decode and encode, between `bytes` and `str`;
 *   _direct_stream.c    the hot paths of the stream objects: the base types of
 *                       Validator, IncrementalDecoder and IncrementalTranscoder.
 */
#ifndef UTFKIT_DIRECT_H
#define UTFKIT_DIRECT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <string.h>

#include "utfkit.h"

/* ---- the core's entries ----
 * The core is not linked into this module: the cffi module utfkit._native
 * holds it, and the binding passes the addresses of the functions called
 * here once, at import (the set_* functions, from _binding.py, _entries.py
 * and stream.py).  Each signature is checked against its declaration in
 * utfkit.h, so the two cannot drift apart. */

typedef int64_t (*transcode_packed_fn)(const uint8_t *src, size_t len, int how, uint8_t *dst, size_t cap);

_Static_assert(_Generic(&utfkit_transcode_packed, transcode_packed_fn: 1, default: 0),
               "transcode_packed_fn must match utfkit_transcode_packed in utfkit.h");

/* Below this many input bytes the core call keeps the GIL.  Releasing and
 * taking it back costs about 50 ns a call (measured: transcode_new of UTF-8
 * into UTF-16LE, 16 B to 4 KiB, best of 25 rounds, 40-85 ns more with the
 * release), 20 % of a 16-byte call, while the core converts 2 KiB in a few
 * hundred ns: too little time for another thread to use.  The design's rule
 * (DESIGN.md section 4: the GIL released around core calls, so threads
 * scale) holds for every call that takes longer.  -D overrides it, for
 * measuring. */
#ifndef KEEP_GIL_BELOW
#define KEEP_GIL_BELOW 2048
#endif

/* Runs `statement` (a core call over `length` bytes of input) with the GIL
 * kept below KEEP_GIL_BELOW bytes and released around longer calls
 * (DESIGN.md section 4: threads scale).  The caller keeps every memory the
 * call reads or writes alive and unmoved meanwhile (an exported buffer, an
 * immutable bytes or str, or an object no other thread can see yet). */
#define CORE_CALL(length, statement)          \
    do {                                      \
        if ((length) < KEEP_GIL_BELOW) {      \
            statement;                        \
        } else {                              \
            Py_BEGIN_ALLOW_THREADS            \
            statement;                        \
            Py_END_ALLOW_THREADS              \
        }                                     \
    } while (0)

/* Room given to the core beyond a conversion's worst case.  The core's
 * readers write straight into the output only while it has room for the
 * worst case of what they read plus 32 input bytes more (sink_drive.h,
 * SINK_STEP_MAX); nearer its end they stage stretches of steps and copy
 * them, and redo a stretch that does not fit a step at a time.  With room
 * for only the output itself that still costs hundreds of ns a call
 * (benchmarks/c/exact_room_cost.c, avx512: Cyrillic UTF-8 -> UTF-16LE,
 * 1 KiB, 486 ns with exactly the output's room, 77 with 128 bytes more).
 * 32 input bytes are at most 128 output bytes (ASCII into UTF-32). */
#define ROOM_SLACK 128

typedef int (*utf8_validate_fn)(const uint8_t *src, size_t len);
typedef size_t (*utf8_count_fn)(const uint8_t *src, size_t len);

_Static_assert(_Generic(&utfkit_utf8_validate, utf8_validate_fn: 1, default: 0),
               "utf8_validate_fn must match utfkit_utf8_validate in utfkit.h");
_Static_assert(_Generic(&utfkit_utf8_count, utf8_count_fn: 1, default: 0),
               "utf8_count_fn must match utfkit_utf8_count in utfkit.h");

typedef int (*form_validate_fn)(const uint8_t *src, size_t len, int form);
typedef size_t (*form_count_fn)(const uint8_t *src, size_t len, int form);

_Static_assert(_Generic(&utfkit_validate, form_validate_fn: 1, default: 0),
               "form_validate_fn must match utfkit_validate in utfkit.h");
_Static_assert(_Generic(&utfkit_count, form_count_fn: 1, default: 0),
               "form_count_fn must match utfkit_count in utfkit.h");

typedef size_t (*ascii_length_fn)(const uint8_t *src, size_t len);
typedef int (*validate_lengths_fn)(const uint8_t *src, size_t len, size_t *code_points, size_t *utf16_units);
typedef size_t (*incomplete_suffix_length_fn)(const uint8_t *src, size_t len, int form);

_Static_assert(_Generic(&utfkit_ascii_length, ascii_length_fn: 1, default: 0),
               "ascii_length_fn must match utfkit_ascii_length in utfkit.h");
_Static_assert(_Generic(&utfkit_utf8_validate_lengths, validate_lengths_fn: 1, default: 0),
               "validate_lengths_fn must match utfkit_utf8_validate_lengths in utfkit.h");
_Static_assert(_Generic(&utfkit_incomplete_suffix_length, incomplete_suffix_length_fn: 1, default: 0),
               "incomplete_suffix_length_fn must match utfkit_incomplete_suffix_length in utfkit.h");
typedef utfkit_result (*transcoded_length_fn)(const uint8_t *src, size_t len, int from, int to, int errors);

_Static_assert(_Generic(&utfkit_transcoded_length, transcoded_length_fn: 1, default: 0),
               "transcoded_length_fn must match utfkit_transcoded_length in utfkit.h");

typedef utfkit_result (*stream_transcode_fn)(utfkit_stream *stream, const uint8_t *src, size_t len, int final,
                                             int to, int errors, uint8_t *dst, size_t cap);

_Static_assert(_Generic(&utfkit_stream_transcode, stream_transcode_fn: 1, default: 0),
               "stream_transcode_fn must match utfkit_stream_transcode in utfkit.h");


/* The core's functions this module calls, each set once by the binding's
 * set_* call before any call that needs it (NULL until then). */
typedef struct direct_entries {
    transcode_packed_fn transcode_packed;                 /* set_transcoder */
    utf8_validate_fn utf8_validate;                       /* set_utf8_entries */
    utf8_count_fn utf8_count;                             /* set_utf8_entries */
    form_validate_fn form_validate;                       /* set_form_entries */
    form_count_fn form_count;                             /* set_form_entries */
    ascii_length_fn ascii_length;                         /* set_text_entries */
    validate_lengths_fn validate_lengths;                 /* set_text_entries */
    incomplete_suffix_length_fn incomplete_suffix_length; /* set_text_entries */
    transcoded_length_fn transcoded_length;               /* set_length_entries */
    stream_transcode_fn stream_transcode;                 /* set_stream_entry */
} direct_entries;

extern direct_entries direct_core;

/* The binding's "utf-8" (set_utf8_entries) and "strict"
 * (set_transcode_entry) objects, and its valid_up_to function
 * (set_length_entries). */
extern PyObject *direct_utf8_name, *direct_strict_name, *direct_valid_up_to_fallback;

/* ---- called from one file in another ---- */

/* The input of a call answered here: a `bytes` object read as it is, or
 * any other C-contiguous buffer, exported for the call (PyBUF_SIMPLE, as the
 * binding's input_view takes it; an exported bytearray cannot be resized
 * meanwhile, so its memory stays put while the GIL is released). */
typedef struct direct_input {
    PyObject *object;
    const uint8_t *start;
    Py_ssize_t length;
    int exported; /* `view` is held: give it back with direct_input_release */
    Py_buffer view;
} direct_input;

/* _direct_checks.c: 1 with *in filled when `data` can be read as above,
 * else 0 (no exception set: the caller's Python path then gives its own
 * error); and the export given back. */
int direct_input_take(PyObject *data, direct_input *in);
void direct_input_release(direct_input *in);

/* _direct_checks.c: `function` (a binding's Python function) called with
 * the call's own arguments; 1 if `encoding` names UTF-8 as this module
 * answers it; 1 if the bytes object `data` is well-formed UTF-8. */
PyObject *direct_fallback(PyObject *function, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
int direct_names_utf8(PyObject *encoding);
int direct_utf8_bytes_valid(PyObject *data);

/* _direct_write.c: the core's conversion under CORE_CALL's rule; the same
 * into a new bytes (see there). */
int64_t direct_packed_call(const uint8_t *src, Py_ssize_t len, int how, uint8_t *dst, size_t cap);
PyObject *direct_new_bytes_of(const uint8_t *src, Py_ssize_t len, int how, const char *prefix,
                              Py_ssize_t prefix_length, Py_ssize_t capacity);

/* _direct_text.c: UTF-8 bytes, strict, into a new str (see there). */
PyObject *direct_decode_utf8(const uint8_t *src, Py_ssize_t len);

/* _direct_stream.c: its types made ready and added to the module, with the
 * stream state constants the classes read; 0, or -1 with an exception set. */
int direct_add_stream_types(PyObject *module);

/* ---- the module's functions (the table in _direct.c) ---- */

PyObject *direct_set_transcoder(PyObject *module, PyObject *address);
PyObject *direct_transcode_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_transcode_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_set_transcode_entry(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_transcode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *direct_set_length_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_transcoded_length(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

PyObject *direct_set_utf8_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_set_form_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_validate(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *direct_check(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *direct_count(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *direct_sanitize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *direct_valid_up_to(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

PyObject *direct_set_text_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_set_cpython_codecs(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *direct_encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

PyObject *direct_set_stream_entry(PyObject *module, PyObject *address);
PyObject *direct_stream_transcode_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif /* UTFKIT_DIRECT_H */
