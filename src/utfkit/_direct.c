/*
 * utfkit._direct -- the C core called on Python objects, without cffi.
 *
 * The one job of this module: call the core on Python objects where cffi's
 * own per-call cost, or a Python frame's, would dominate.  Below about
 * 256 bytes either costs more than CPython's own codec spends on the whole
 * input, so utfkit's commonest public calls are C functions here, each
 * answering the calls that need only the core and handing every other call,
 * with the same arguments, to the binding's Python function of the same
 * name (the reference for what it does):
 *   - validate, check, count, sanitize and valid_up_to: `bytes` in UTF-8 or
 *     another form without a byte-order mark;
 *   - decode and encode: UTF-8, strict, written by the core straight into
 *     the new str's storage or read from it, and CPython's own codec
 *     functions for the encodings CPython answers;
 *   - transcode and transcoded_length: the conversions in the binding's
 *     plans, into a new `bytes` made without zero-filling
 *     (PyBytes_FromStringAndSize(NULL, n), shrunk to what was written) or a
 *     caller's out= buffer taken with PyObject_GetBuffer (cffi's
 *     from_buffer alone costs half of a 16-byte call);
 *   - transcode_new and transcode_into, the same two writes for the
 *     binding's own use, and stream_transcode_new, a chunk of
 *     IncrementalTranscoder into a new `bytes`;
 *   - ValidatorBase and DecoderBase, the base types of utfkit.Validator and
 *     utfkit.IncrementalDecoder: a UTF-8 stream's calls answered here.
 *
 * The core is not linked here a second time: the cffi module utfkit._native
 * holds it, and the binding passes this module the addresses of the
 * functions it calls once, at import (the set_* functions, from
 * _binding.py and _entries.py).
 *
 * Built without Py_LIMITED_API: _PyBytes_Resize, the only way to shrink a
 * `bytes` in place, is not in the limited API.  The cffi module stays abi3.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "utfkit.h"

/* The signature of utfkit_transcode_packed, checked against its declaration
 * in utfkit.h below, so the two cannot drift apart. */
typedef int64_t (*transcode_packed_fn)(const uint8_t *src, size_t len, int how, uint8_t *dst, size_t cap);

_Static_assert(_Generic(&utfkit_transcode_packed, transcode_packed_fn: 1, default: 0),
               "transcode_packed_fn must match utfkit_transcode_packed in utfkit.h");

/* Set once by set_transcoder(), before any transcode_new() call. */
static transcode_packed_fn transcode_packed = NULL;

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

static PyObject *
set_transcoder(PyObject *module, PyObject *address)
{
    (void)module;
    void *function = PyLong_AsVoidPtr(address);
    if (function == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "set_transcoder(): the address of utfkit_transcode_packed is NULL");
        return NULL;
    }
    transcode_packed = (transcode_packed_fn)function;
    Py_RETURN_NONE;
}

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

/* The core's conversion of src[0..len) into dst[0..cap), under CORE_CALL's
 * rule for the GIL. */
static int64_t
packed_call(const uint8_t *src, Py_ssize_t len, int how, uint8_t *dst, size_t cap)
{
    int64_t written;
    CORE_CALL(len, written = transcode_packed(src, (size_t)len, how, dst, cap));
    return written;
}

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

/* `prefix`, then the conversion of src[0..len) written into room for
 * `capacity` bytes after it (and ROOM_SLACK more), as one new bytes shrunk
 * to its size; None (a new reference) when the core reports a status other
 * than OK; NULL with an exception set when memory runs out. */
static PyObject *
new_bytes_of(const uint8_t *src, Py_ssize_t len, int how, const char *prefix, Py_ssize_t prefix_length,
             Py_ssize_t capacity)
{
    if (capacity > PY_SSIZE_T_MAX - prefix_length - ROOM_SLACK) {
        PyErr_SetString(PyExc_OverflowError, "transcode_new(): the output would be too large");
        return NULL;
    }
    PyObject *output = PyBytes_FromStringAndSize(NULL, prefix_length + capacity + ROOM_SLACK);
    if (output == NULL)
        return NULL;
    uint8_t *start = (uint8_t *)PyBytes_AS_STRING(output);
    if (prefix_length)
        memcpy(start, prefix, (size_t)prefix_length);
    int64_t written = packed_call(src, len, how, start + prefix_length, (size_t)capacity + ROOM_SLACK);
    if (written < 0) {
        Py_DECREF(output);
        Py_RETURN_NONE;
    }
    /* written <= capacity: the core never writes past cap and reports OK
     * only when everything fit */
    Py_ssize_t size = prefix_length + (Py_ssize_t)written;
    if (size != PyBytes_GET_SIZE(output) && _PyBytes_Resize(&output, size) != 0)
        return NULL; /* _PyBytes_Resize freed it and set MemoryError */
    return output;
}

/* `how` (utfkit_transcode_packed's packed forms and mode) read from a
 * Python int into *how; 0 with an exception set when it is not one, is out
 * of range, or set_transcoder() has not run. */
static int
packed_how(PyObject *value, const char *function, int *how)
{
    if (transcode_packed == NULL) {
        PyErr_Format(PyExc_RuntimeError, "%s(): set_transcoder() was not called", function);
        return 0;
    }
    long number = PyLong_AsLong(value);
    if (number == -1 && PyErr_Occurred())
        return 0;
    if (number < 0 || number > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s(): 'how' out of range", function);
        return 0;
    }
    *how = (int)number;
    return 1;
}

/* transcode_new(data, how, capacity[, prefix]) -> bytes | None
 *
 * `prefix`, then utfkit_transcode_packed(data, how) written into room for
 * `capacity` bytes after it, as one new `bytes`; None when the call reports
 * a status other than OK (the caller calls the core again for the whole
 * result, which is deterministic). */
static PyObject *
transcode_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs < 3 || nargs > 4) {
        PyErr_Format(PyExc_TypeError, "transcode_new() takes 3 or 4 arguments (%zd given)", nargs);
        return NULL;
    }
    int how;
    if (!packed_how(args[1], "transcode_new", &how))
        return NULL;
    Py_ssize_t capacity = PyLong_AsSsize_t(args[2]);
    if (capacity == -1 && PyErr_Occurred())
        return NULL;
    if (capacity < 0) {
        PyErr_SetString(PyExc_ValueError, "transcode_new(): 'capacity' must not be negative");
        return NULL;
    }
    const char *prefix = NULL;
    Py_ssize_t prefix_length = 0;
    if (nargs == 4) {
        if (!PyBytes_Check(args[3])) {
            PyErr_Format(PyExc_TypeError, "transcode_new(): 'prefix' must be bytes, not '%.100s'",
                         Py_TYPE(args[3])->tp_name);
            return NULL;
        }
        prefix = PyBytes_AS_STRING(args[3]);
        prefix_length = PyBytes_GET_SIZE(args[3]);
    }
    /* the whole object's size must fit in a Py_ssize_t (new_bytes_of checks
     * it with its slack; PyBytes_FromStringAndSize checks the header on top) */
    if (capacity > PY_SSIZE_T_MAX - prefix_length - ROOM_SLACK) {
        PyErr_SetString(PyExc_OverflowError, "transcode_new(): the output would be too large");
        return NULL;
    }

    Py_buffer source;
    /* PyBUF_SIMPLE: one C-contiguous run of bytes, as the binding's
     * input_view accepts (a memoryview refuses it when not C-contiguous) */
    if (PyObject_GetBuffer(args[0], &source, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "transcode_new(): 'data' must be a C-contiguous bytes-like object, not '%.100s'",
                     Py_TYPE(args[0])->tp_name);
        return NULL;
    }

    /* `source` stays exported during the call: its memory cannot move or be freed */
    PyObject *output = new_bytes_of(source.buf, source.len, how, prefix, prefix_length, capacity);
    PyBuffer_Release(&source);
    return output;
}

/* The conversion of `data` written into `out`: the length written, or None
 * (a new reference) for anything the binding's cffi path must handle. */
static PyObject *
into_buffer(PyObject *data, int how, PyObject *out)
{
    Py_buffer source, target;
    if (PyObject_GetBuffer(data, &source, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    /* PyBUF_WRITABLE: one C-contiguous, writable run of bytes, as the
     * binding's output_view accepts */
    if (PyObject_GetBuffer(out, &target, PyBUF_WRITABLE) != 0) {
        PyErr_Clear();
        PyBuffer_Release(&source);
        Py_RETURN_NONE;
    }
    /* both buffers stay exported during the call */
    int64_t written = packed_call(source.buf, source.len, how, target.buf, (size_t)target.len);
    PyBuffer_Release(&target);
    PyBuffer_Release(&source);
    if (written < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong((long long)written);
}

/* transcode_into(data, how, out) -> int | None
 *
 * utfkit_transcode_packed(data, how) written into the writable buffer `out`:
 * the number of bytes written, or None when the core reports another status
 * (output too small, overlap, ill-formed input) or when `data` or `out` is
 * not a buffer of the kind the binding takes.  None hands the call back to
 * the binding's cffi path, which runs it again and raises what that path
 * raises.  Taking both buffers here costs about 60 ns; cffi's from_buffer
 * for `out` alone costs about 150 ns, half of a 16-byte conversion. */
static PyObject *
transcode_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "transcode_into() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    int how;
    if (!packed_how(args[1], "transcode_into", &how))
        return NULL;
    return into_buffer(args[0], how, args[2]);
}

/* ---- validate, check, count and sanitize, called straight from Python ----
 *
 * utfkit.validate, check, count and sanitize are these functions (and
 * valid_up_to, below).  A call with one buffer -- a `bytes` object, or any
 * C-contiguous buffer -- in UTF-8 (the default, "utf-8", "utf8" or the very
 * "utf-8" object the binding passes) or in a form named in fixed_forms is
 * answered here: the core's answer for the valid case, with no Python frame
 * and no cffi call in between (a Python function that only returns True
 * already costs what CPython's bytes.decode() spends on 16 bytes).  Every
 * other call -- another encoding, a str, keywords, an answer that is an
 * error to raise or a repair to make -- goes to the binding's Python
 * function of the same name, with the same arguments. */

typedef int (*utf8_validate_fn)(const uint8_t *src, size_t len);
typedef size_t (*utf8_count_fn)(const uint8_t *src, size_t len);

_Static_assert(_Generic(&utfkit_utf8_validate, utf8_validate_fn: 1, default: 0),
               "utf8_validate_fn must match utfkit_utf8_validate in utfkit.h");
_Static_assert(_Generic(&utfkit_utf8_count, utf8_count_fn: 1, default: 0),
               "utf8_count_fn must match utfkit_utf8_count in utfkit.h");

/* Set once by set_utf8_entries(), before any call below. */
static utf8_validate_fn utf8_validate = NULL;
static utf8_count_fn utf8_count = NULL;
static PyObject *utf8_name = NULL;   /* the binding's "utf-8" object */
static PyObject *strict_name = NULL; /* the binding's "strict" (set_transcode_entry) */
static PyObject *validate_fallback = NULL, *check_fallback = NULL, *count_fallback = NULL,
                *sanitize_fallback = NULL;

static PyObject *
set_utf8_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "set_utf8_entries() takes 7 arguments (%zd given)", nargs);
        return NULL;
    }
    void *validate_address = PyLong_AsVoidPtr(args[0]);
    if (validate_address == NULL && PyErr_Occurred())
        return NULL;
    void *count_address = PyLong_AsVoidPtr(args[1]);
    if (count_address == NULL && PyErr_Occurred())
        return NULL;
    if (validate_address == NULL || count_address == NULL || !PyUnicode_Check(args[2])
        || !PyCallable_Check(args[3]) || !PyCallable_Check(args[4]) || !PyCallable_Check(args[5])
        || !PyCallable_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError, "set_utf8_entries(validate_address, count_address, 'utf-8', "
                                         "validate, check, count, sanitize)");
        return NULL;
    }
    utf8_validate = (utf8_validate_fn)validate_address;
    utf8_count = (utf8_count_fn)count_address;
    PyObject **slots[] = {&utf8_name, &validate_fallback, &check_fallback, &count_fallback, &sanitize_fallback};
    for (size_t i = 0; i < 5; i++) {
        Py_INCREF(args[2 + i]);
        Py_XSETREF(*slots[i], args[2 + i]);
    }
    Py_RETURN_NONE;
}

/* ---- the same four in the other forms without a byte-order mark ----
 * The binding keeps a dict, `fixed_forms`, of the encoding names it has
 * looked up that name a form with no mark to read (as the caller spelt
 * them) -> the core's form; a `bytes` object named with one of them is
 * answered here with utfkit_validate and utfkit_count, as the binding's
 * functions do. */

typedef int (*form_validate_fn)(const uint8_t *src, size_t len, int form);
typedef size_t (*form_count_fn)(const uint8_t *src, size_t len, int form);

_Static_assert(_Generic(&utfkit_validate, form_validate_fn: 1, default: 0),
               "form_validate_fn must match utfkit_validate in utfkit.h");
_Static_assert(_Generic(&utfkit_count, form_count_fn: 1, default: 0),
               "form_count_fn must match utfkit_count in utfkit.h");

/* Set once by set_form_entries(). */
static form_validate_fn form_validate = NULL;
static form_count_fn form_count = NULL;
static PyObject *fixed_forms = NULL;

static PyObject *
set_form_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyDict_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "set_form_entries(validate_address, count_address, fixed_forms: dict)");
        return NULL;
    }
    void *addresses[2];
    for (size_t i = 0; i < 2; i++) {
        addresses[i] = PyLong_AsVoidPtr(args[i]);
        if (addresses[i] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "set_form_entries(): a NULL address");
            return NULL;
        }
    }
    form_validate = (form_validate_fn)addresses[0];
    form_count = (form_count_fn)addresses[1];
    Py_INCREF(args[2]);
    Py_XSETREF(fixed_forms, args[2]);
    Py_RETURN_NONE;
}

/* 1 if `encoding` is the binding's "utf-8" object, or a str spelling
 * "utf-8" or "utf8" exactly (every other alias goes the binding's way, which
 * knows them all). */
static int
names_utf8(PyObject *encoding)
{
    if (encoding == utf8_name)
        return 1;
    if (!PyUnicode_CheckExact(encoding))
        return 0;
    return PyUnicode_CompareWithASCIIString(encoding, "utf-8") == 0
           || PyUnicode_CompareWithASCIIString(encoding, "utf8") == 0;
}

/* The input of a call answered here: a `bytes` object read as it is, or
 * any other C-contiguous buffer, exported for the call (PyBUF_SIMPLE, as the
 * binding's input_view takes it; an exported bytearray cannot be resized
 * meanwhile, so its memory stays put while the GIL is released). */
typedef struct input {
    PyObject *object;
    const uint8_t *start;
    Py_ssize_t length;
    int exported; /* `view` is held: give it back with input_release */
    Py_buffer view;
} input;

/* 1 with *in filled when `data` can be read here, else 0 (no exception
 * set: the binding's function then gives its own error). */
static int
input_take(PyObject *data, input *in)
{
    in->object = data;
    if (PyBytes_CheckExact(data)) {
        in->start = (const uint8_t *)PyBytes_AS_STRING(data);
        in->length = PyBytes_GET_SIZE(data);
        in->exported = 0;
        return 1;
    }
    if (PyUnicode_Check(data) || PyObject_GetBuffer(data, &in->view, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        return 0;
    }
    in->start = in->view.buf;
    in->length = in->view.len;
    in->exported = 1;
    return 1;
}

static void
input_release(input *in)
{
    if (in->exported) {
        PyBuffer_Release(&in->view);
        in->exported = 0;
    }
}

/* 1 with the input taken into *in and its form in *form for a call
 * answered here, else 0: one positional buffer argument and either no
 * encoding, UTF-8 named, or a name in fixed_forms. */
static int
form_arguments(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int *form, input *in)
{
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    if (kwnames != NULL || utf8_validate == NULL || given < 1 || given > 2)
        return 0;
    *form = UTFKIT_UTF8;
    if (given == 2 && !names_utf8(args[1])) {
        if (fixed_forms == NULL || form_validate == NULL || !PyUnicode_CheckExact(args[1]))
            return 0;
        PyObject *value = PyDict_GetItemWithError(fixed_forms, args[1]); /* borrowed */
        if (value == NULL) {
            PyErr_Clear();
            return 0;
        }
        long number = PyLong_AsLong(value);
        if (number < 0 || number > INT_MAX) {
            PyErr_Clear();
            return 0;
        }
        *form = (int)number;
    }
    return input_take(args[0], in);
}

/* 1 if the input is well-formed in `form`. */
static int
input_valid(const input *in, int form)
{
    int valid;
    if (form == UTFKIT_UTF8)
        CORE_CALL(in->length, valid = utf8_validate(in->start, (size_t)in->length));
    else
        CORE_CALL(in->length, valid = form_validate(in->start, (size_t)in->length, form));
    return valid;
}

/* 1 if the bytes object `data` is well-formed UTF-8. */
static int
utf8_bytes_valid(PyObject *data)
{
    input in = {data, (const uint8_t *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), 0, {0}};
    return input_valid(&in, UTFKIT_UTF8);
}

static PyObject *
fallback(PyObject *function, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (function == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_utf8_entries() was not called");
        return NULL;
    }
    return PyObject_Vectorcall(function, args, nargs, kwnames);
}

static PyObject *
validate(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return fallback(validate_fallback, args, nargs, kwnames);
    int valid = input_valid(&in, form);
    input_release(&in);
    return PyBool_FromLong(valid);
}

static PyObject *
check(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return fallback(check_fallback, args, nargs, kwnames);
    int valid = input_valid(&in, form);
    input_release(&in);
    if (!valid)
        return fallback(check_fallback, args, nargs, kwnames); /* it raises CPython's error */
    Py_RETURN_NONE;
}

static PyObject *
sanitize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return fallback(sanitize_fallback, args, nargs, kwnames);
    PyObject *result = NULL;
    if (input_valid(&in, form)) {
        /* well-formed: a bytes object itself, as the binding returns it, else a copy */
        if (!in.exported) {
            Py_INCREF(in.object);
            result = in.object;
        } else {
            result = PyBytes_FromStringAndSize((const char *)in.start, in.length);
        }
        input_release(&in);
        return result;
    }
    input_release(&in);
    return fallback(sanitize_fallback, args, nargs, kwnames); /* it repairs */
}

static PyObject *
count(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return fallback(count_fallback, args, nargs, kwnames);
    size_t counted;
    if (form == UTFKIT_UTF8)
        CORE_CALL(in.length, counted = utf8_count(in.start, (size_t)in.length));
    else
        CORE_CALL(in.length, counted = form_count(in.start, (size_t)in.length, form));
    input_release(&in);
    return PyLong_FromSize_t(counted);
}

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

typedef size_t (*well_formed_length_fn)(const uint8_t *src, size_t len, int from, int to);
typedef size_t (*ascii_length_fn)(const uint8_t *src, size_t len);
typedef int (*validate_lengths_fn)(const uint8_t *src, size_t len, size_t *code_points, size_t *utf16_units);
typedef size_t (*incomplete_suffix_length_fn)(const uint8_t *src, size_t len, int form);

_Static_assert(_Generic(&utfkit_well_formed_length, well_formed_length_fn: 1, default: 0),
               "well_formed_length_fn must match utfkit_well_formed_length in utfkit.h");
_Static_assert(_Generic(&utfkit_ascii_length, ascii_length_fn: 1, default: 0),
               "ascii_length_fn must match utfkit_ascii_length in utfkit.h");
_Static_assert(_Generic(&utfkit_utf8_validate_lengths, validate_lengths_fn: 1, default: 0),
               "validate_lengths_fn must match utfkit_utf8_validate_lengths in utfkit.h");
_Static_assert(_Generic(&utfkit_incomplete_suffix_length, incomplete_suffix_length_fn: 1, default: 0),
               "incomplete_suffix_length_fn must match utfkit_incomplete_suffix_length in utfkit.h");

/* Set once by set_text_entries(). */
static well_formed_length_fn well_formed_length = NULL;
static ascii_length_fn ascii_length = NULL;
static validate_lengths_fn validate_lengths = NULL;
static incomplete_suffix_length_fn incomplete_suffix_length = NULL;
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
 * faster (same-run ratios on Cyrillic and CJK text, README "decode and
 * encode").  In bytes of UTF-8 for decode, of the str's storage for
 * encode.  -D overrides them, for measuring. */
#ifndef DECODE_CORE_FROM
#define DECODE_CORE_FROM 96
#endif
#ifndef ENCODE_CORE_FROM
#define ENCODE_CORE_FROM 512
#endif

static PyObject *
set_text_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "set_text_entries() takes 6 arguments (%zd given)", nargs);
        return NULL;
    }
    void *addresses[4];
    for (size_t i = 0; i < 4; i++) {
        addresses[i] = PyLong_AsVoidPtr(args[i]);
        if (addresses[i] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "set_text_entries(): a NULL address");
            return NULL;
        }
    }
    if (!PyCallable_Check(args[4]) || !PyCallable_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "set_text_entries(well_formed_length_address, ascii_length_address, "
                                         "utf8_validate_lengths_address, incomplete_suffix_length_address, "
                                         "decode, encode)");
        return NULL;
    }
    well_formed_length = (well_formed_length_fn)addresses[0];
    ascii_length = (ascii_length_fn)addresses[1];
    validate_lengths = (validate_lengths_fn)addresses[2];
    incomplete_suffix_length = (incomplete_suffix_length_fn)addresses[3];
    PyObject **slots[] = {&decode_fallback, &encode_fallback};
    for (size_t i = 0; i < 2; i++) {
        Py_INCREF(args[4 + i]);
        Py_XSETREF(*slots[i], args[4 + i]);
    }
    Py_RETURN_NONE;
}

static PyObject *
set_cpython_codecs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
    if (kwnames != NULL || given < 1 || given > 3 || (given >= 2 && !names_utf8(args[1])))
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
        CORE_CALL(len, written = transcode_packed(src, (size_t)len, how, staged, sizeof staged));
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
    written = packed_call(src, len, how, PyUnicode_DATA(text), size); /* no other thread sees `text` yet */
    if (written != (int64_t)size) {
        Py_DECREF(text);
        Py_RETURN_NONE;
    }
    return text;
}

/* The UTF-8 src[0..len), strict, into a new str: exactly CPython's
 * bytes.decode(), errors included.  src is a bytes object's memory (which
 * no one can change while the GIL is released); NULL with an exception set. */
static PyObject *
decode_utf8(const uint8_t *src, Py_ssize_t len)
{
    if (len < DECODE_CORE_FROM)
        return PyUnicode_DecodeUTF8((const char *)src, len, "strict");
    size_t ascii;
    CORE_CALL(len, ascii = ascii_length(src, (size_t)len));
    if ((Py_ssize_t)ascii == len) { /* ASCII: its own 1-byte storage */
        PyObject *text = PyUnicode_New(len, 0x7F);
        if (text != NULL)
            memcpy(PyUnicode_DATA(text), src, (size_t)len);
        return text;
    }
    /* the rest, from the first byte 80..FF: validated, with its characters
     * and UTF-16 units (a supplementary character is 2) counted, one pass */
    const uint8_t *rest = src + ascii;
    size_t rest_length = (size_t)len - ascii, characters = 0, units = 0;
    int valid;
    CORE_CALL(rest_length, valid = validate_lengths(rest, rest_length, &characters, &units));
    if (!valid) /* CPython raises its own error */
        return PyUnicode_DecodeUTF8((const char *)src, len, "strict");
    Py_ssize_t n = (Py_ssize_t)(ascii + characters);
    PyObject *text;
    if (units != characters) { /* a supplementary character: 4-byte storage */
        text = str_from_utf8(src, len, n, 0x10FFFF, NATIVE_UTF32, 4 * (size_t)n);
    } else {
        /* 2-byte storage if a character is above U+00FF, else 1-byte: PEP
         * 393's canonical form, which str comparison relies on (the scan
         * stops at the first such character, right after the ASCII prefix
         * in most non-Latin text) */
        int wide;
        CORE_CALL(rest_length, wide = above_latin1(rest, rest_length));
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
    if (strict_name == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_transcode_entry() was not called");
        return NULL;
    }
    PyObject *call[3] = {args[0], PyVectorcall_NARGS(nargs) == 3 ? args[2] : strict_name, final};
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

static PyObject *
decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *decoder;
    if (PyVectorcall_NARGS(nargs) >= 1 && PyBytes_CheckExact(args[0]) && cpython_codec_call(args, nargs, kwnames)
        && !names_utf8(args[1]) && (decoder = spelt_in(cpython_decoders, args[1])) != NULL)
        return cpython_codec(decoder, args, nargs, Py_True); /* as the binding calls it */
    if (validate_lengths == NULL || !utf8_strict_arguments(args, nargs, kwnames)
        || !PyBytes_CheckExact(args[0]))
        return fallback(decode_fallback, args, nargs, kwnames);
    return decode_utf8((const uint8_t *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]));
}

static PyObject *
encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *encoder;
    if (PyVectorcall_NARGS(nargs) >= 1 && PyUnicode_CheckExact(args[0]) && cpython_codec_call(args, nargs, kwnames)
        && !names_utf8(args[1]) && (encoder = spelt_in(cpython_encoders, args[1])) != NULL)
        return cpython_codec(encoder, args, nargs, NULL); /* as str.encode calls it */
    if (well_formed_length == NULL || !utf8_strict_arguments(args, nargs, kwnames) || !PyUnicode_CheckExact(args[0]))
        return fallback(encode_fallback, args, nargs, kwnames);
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    if (PyUnicode_IS_ASCII(text)) /* ASCII is its own UTF-8, stored as 1 byte a character */
        return PyBytes_FromStringAndSize(PyUnicode_DATA(text), n);
    if (n * kind < ENCODE_CORE_FROM)
        return PyUnicode_AsUTF8String(text);
    const uint8_t *src = PyUnicode_DATA(text);
    Py_ssize_t len = n * kind;
    int from = kind == PyUnicode_1BYTE_KIND ? UTFKIT_LATIN1 : kind == PyUnicode_2BYTE_KIND ? NATIVE_UTF16 : NATIVE_UTF32;
    if (kind == PyUnicode_2BYTE_KIND) {
        /* A str may hold surrogates, which strict UTF-8 refuses; read as
         * UTF-16, a lone one fails the conversion below, but a lead followed
         * by a trail would make one supplementary character.  With none,
         * the str's units are its characters. */
        size_t utf32_bytes;
        CORE_CALL(len, utf32_bytes = well_formed_length(src, (size_t)len, NATIVE_UTF16, NATIVE_UTF32));
        if ((Py_ssize_t)(utf32_bytes / 4) != n)
            return PyUnicode_AsUTF8String(text); /* CPython raises its UnicodeEncodeError */
    }
    Py_ssize_t capacity = n * (kind == PyUnicode_1BYTE_KIND ? 2 : kind == PyUnicode_2BYTE_KIND ? 3 : 4);
    PyObject *output = new_bytes_of(src, len, STRICT_HOW(from, UTFKIT_UTF8), NULL, 0, capacity);
    if (output != Py_None)
        return output; /* the bytes, or NULL with MemoryError set */
    Py_DECREF(output);
    return PyUnicode_AsUTF8String(text); /* a surrogate (or one above U+10FFFF): CPython's error */
}

/* ---- transcode, called straight from Python ----
 *
 * utfkit.transcode is this function.  The binding keeps a dict, `plans`,
 * of the conversions that need nothing but the core: (from_, to, errors)
 * as the caller named them -> (how, unit, per_unit, ascii_same), where the
 * output of n input bytes has room -(-n // unit) * per_unit (the binding's
 * worst_case_size) and ascii_same is 1 where an ASCII input is its own
 * output, returned as it is.  A call whose names are in it is answered here: a
 * `bytes` input up to one_pass_room bytes into a new `bytes` (the binding's
 * one-pass rule), any buffer into an `out=` buffer.  Every other call --
 * names not (yet) in the dict, byte-order marks, conversions whose
 * well-formed input is returned as it is, larger inputs, other buffer
 * types, and any error to raise -- goes to the binding's transcode with the
 * same arguments; it adds each new plan of the first kind to the dict. */

static PyObject *plans = NULL, *out_name = NULL, *transcode_fallback = NULL;
static Py_ssize_t one_pass_room = 0;

static PyObject *
set_transcode_entry(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4 || !PyDict_CheckExact(args[0]) || !PyUnicode_CheckExact(args[1]) || !PyCallable_Check(args[2])
        || !PyLong_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "set_transcode_entry(plans: dict, 'strict', transcode, one_pass_room: int)");
        return NULL;
    }
    Py_ssize_t room = PyLong_AsSsize_t(args[3]);
    if (room == -1 && PyErr_Occurred())
        return NULL;
    if (out_name == NULL && (out_name = PyUnicode_InternFromString("out")) == NULL)
        return NULL;
    one_pass_room = room;
    PyObject **slots[] = {&plans, &strict_name, &transcode_fallback};
    for (size_t i = 0; i < 3; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*slots[i], args[i]);
    }
    Py_RETURN_NONE;
}

/* One of the binding's plans: the core's `how`, the output room per input
 * unit, and whether an ASCII input is the output as it is. */
typedef struct plan {
    int how;
    Py_ssize_t unit, per_unit;
    int ascii_same;
} plan;

/* The names of the last plan found, held, and that plan: a caller that
 * names the same objects again (string constants in its code, say) skips
 * building a key and hashing it.  A plan never changes once made. */
static PyObject *last_names[3] = {NULL, NULL, NULL};
static plan last_plan;

/* The plan for from_, to and errors into *found, or 0 when the dict has
 * none (or an entry that is not four small ints). */
static int
find_plan(PyObject *from_, PyObject *to, PyObject *errors, plan *found)
{
    if (from_ == last_names[0] && to == last_names[1] && errors == last_names[2]) {
        *found = last_plan;
        return 1;
    }
    PyObject *key = PyTuple_Pack(3, from_, to, errors);
    if (key == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *entry = PyDict_GetItemWithError(plans, key); /* borrowed */
    Py_DECREF(key);
    if (entry == NULL || !PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 4) {
        PyErr_Clear(); /* an unhashable name, say: the binding's own error */
        return 0;
    }
    long values[4];
    static const long smallest[4] = {0, 1, 1, 0};
    for (Py_ssize_t i = 0; i < 4; i++) {
        values[i] = PyLong_AsLong(PyTuple_GET_ITEM(entry, i));
        if (values[i] < smallest[i] || values[i] > INT_MAX) {
            PyErr_Clear();
            return 0;
        }
    }
    *found = (plan){(int)values[0], values[1], values[2], values[3] != 0};
    PyObject *names[3] = {from_, to, errors};
    for (size_t i = 0; i < 3; i++) {
        Py_INCREF(names[i]);
        Py_XSETREF(last_names[i], names[i]);
    }
    last_plan = *found;
    return 1;
}

static PyObject *
transcode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    PyObject *out = NULL;
    if (plans == NULL || given < 3)
        goto fallback;
    if (kwnames != NULL) { /* out= by keyword, the usual spelling */
        if (given > 4 || PyTuple_GET_SIZE(kwnames) != 1 || PyTuple_GET_ITEM(kwnames, 0) != out_name)
            goto fallback;
        out = args[given];
    } else if (given == 5) {
        out = args[4];
    } else if (given > 5) {
        goto fallback;
    }
    if (out == Py_None)
        out = NULL;
    plan found;
    if (!find_plan(args[1], args[2], given >= 4 ? args[3] : strict_name, &found))
        goto fallback;
    PyObject *result;
    if (out != NULL) {
        result = into_buffer(args[0], found.how, out);
    } else {
        PyObject *data = args[0];
        if (!PyBytes_CheckExact(data) || PyBytes_GET_SIZE(data) > one_pass_room)
            goto fallback;
        const uint8_t *src = (const uint8_t *)PyBytes_AS_STRING(data);
        Py_ssize_t length = PyBytes_GET_SIZE(data);
        if (found.ascii_same && ascii_length != NULL && ascii_length(src, (size_t)length) == (size_t)length) {
            Py_INCREF(data); /* ASCII is its own output (Latin-1 <-> UTF-8, say): no copy */
            return data;
        }
        Py_ssize_t capacity = (length + found.unit - 1) / found.unit * found.per_unit; /* at most 6 x one_pass_room */
        if (capacity > one_pass_room && capacity > length)
            goto fallback; /* the binding's rule: scratch and a copy, or measure first */
        /* a bytes object is immutable: it needs no export during the call */
        result = new_bytes_of(src, length, found.how, NULL, 0, capacity);
    }
    if (result != Py_None)
        return result; /* the answer, or NULL with MemoryError set */
    Py_DECREF(result);
fallback:
    if (transcode_fallback == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_transcode_entry() was not called");
        return NULL;
    }
    return PyObject_Vectorcall(transcode_fallback, args, nargs, kwnames);
}

/* ---- valid_up_to and transcoded_length, called straight from Python ----
 *
 * utfkit.valid_up_to and utfkit.transcoded_length are these functions.
 * valid_up_to answers a well-formed `bytes` object named as validate()
 * answers it (its length); transcoded_length answers a `bytes` object and a
 * conversion in the binding's plans (set_transcode_entry) with the core's
 * utfkit_transcoded_length, when it reports no error.  Every other call
 * goes to the binding's function of the same name. */

typedef utfkit_result (*transcoded_length_fn)(const uint8_t *src, size_t len, int from, int to, int errors);

_Static_assert(_Generic(&utfkit_transcoded_length, transcoded_length_fn: 1, default: 0),
               "transcoded_length_fn must match utfkit_transcoded_length in utfkit.h");

/* Set once by set_length_entries(). */
static transcoded_length_fn core_transcoded_length = NULL;
static PyObject *valid_up_to_fallback = NULL, *transcoded_length_fallback = NULL;

static PyObject *
set_length_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyCallable_Check(args[1]) || !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "set_length_entries(transcoded_length_address, valid_up_to, "
                                         "transcoded_length)");
        return NULL;
    }
    void *address = PyLong_AsVoidPtr(args[0]);
    if (address == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "set_length_entries(): a NULL address");
        return NULL;
    }
    core_transcoded_length = (transcoded_length_fn)address;
    PyObject **slots[] = {&valid_up_to_fallback, &transcoded_length_fallback};
    for (size_t i = 0; i < 2; i++) {
        Py_INCREF(args[1 + i]);
        Py_XSETREF(*slots[i], args[1 + i]);
    }
    Py_RETURN_NONE;
}

static PyObject *
valid_up_to(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return fallback(valid_up_to_fallback, args, nargs, kwnames);
    int valid = input_valid(&in, form);
    input_release(&in);
    if (!valid)
        return fallback(valid_up_to_fallback, args, nargs, kwnames); /* it finds the first error */
    return PyLong_FromSsize_t(in.length);
}

static PyObject *
transcoded_length(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    plan found;
    if (kwnames == NULL && (given == 3 || given == 4) && PyBytes_CheckExact(args[0]) && plans != NULL
        && core_transcoded_length != NULL && find_plan(args[1], args[2], given == 4 ? args[3] : strict_name, &found)) {
        const uint8_t *src = (const uint8_t *)PyBytes_AS_STRING(args[0]);
        Py_ssize_t length = PyBytes_GET_SIZE(args[0]);
        utfkit_result result;
        /* `how` is from | to << 4 | errors << 8 (utfkit_transcode_packed) */
        CORE_CALL(length, result = core_transcoded_length(src, (size_t)length, found.how & 15, found.how >> 4 & 15,
                                                          found.how >> 8));
        if (result.status == UTFKIT_OK)
            return PyLong_FromSize_t(result.written);
    }
    return fallback(transcoded_length_fallback, args, nargs, kwnames); /* it raises the error */
}

/* ---- utfkit.IncrementalTranscoder's conversion of a chunk ----
 *
 * IncrementalTranscoder.feed and finish convert each chunk with the C
 * stream (utfkit_stream_transcode) into a new `bytes`; through cffi that
 * took a scratch buffer, a call of eight arguments returning a struct and
 * a copy out, about 1.5 us a chunk.  stream_transcode_new does it here, into
 * a `bytes` object made without zero-filling and shrunk to what was
 * written. */

typedef utfkit_result (*stream_transcode_fn)(utfkit_stream *stream, const uint8_t *src, size_t len, int final,
                                             int to, int errors, uint8_t *dst, size_t cap);

_Static_assert(_Generic(&utfkit_stream_transcode, stream_transcode_fn: 1, default: 0),
               "stream_transcode_fn must match utfkit_stream_transcode in utfkit.h");

/* Set once by set_stream_entry(). */
static stream_transcode_fn stream_transcode = NULL;

static PyObject *
set_stream_entry(PyObject *module, PyObject *address)
{
    (void)module;
    void *function = PyLong_AsVoidPtr(address);
    if (function == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "set_stream_entry(): a NULL address");
        return NULL;
    }
    stream_transcode = (stream_transcode_fn)function;
    Py_RETURN_NONE;
}

/* stream_transcode_new(stream_address, chunk, final, to, errors, capacity)
 *     -> bytes | (status, position, subpart_length) | None
 *
 * utfkit_stream_transcode of the `bytes` chunk into a new bytes with room
 * for `capacity` bytes (the conversion's worst case; ROOM_SLACK more is
 * given): the output, or the result's fields when its status is not OK
 * (for the caller to raise), or None for a chunk that is not a `bytes`
 * object (the caller's cffi path takes it).  The caller holds the stream
 * object (its guard taken) for the whole call. */
static PyObject *
stream_transcode_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "stream_transcode_new() takes 6 arguments (%zd given)", nargs);
        return NULL;
    }
    if (stream_transcode == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stream_transcode_new(): set_stream_entry() was not called");
        return NULL;
    }
    if (!PyBytes_CheckExact(args[1]))
        Py_RETURN_NONE;
    utfkit_stream *stream = PyLong_AsVoidPtr(args[0]);
    if (stream == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "stream_transcode_new(): a NULL stream");
        return NULL;
    }
    long numbers[3];
    for (Py_ssize_t i = 0; i < 3; i++) {
        numbers[i] = PyLong_AsLong(args[2 + i]);
        if (numbers[i] == -1 && PyErr_Occurred())
            return NULL;
        if (numbers[i] < 0 || numbers[i] > INT_MAX) {
            PyErr_SetString(PyExc_ValueError, "stream_transcode_new(): final, to or errors out of range");
            return NULL;
        }
    }
    Py_ssize_t capacity = PyLong_AsSsize_t(args[5]);
    if (capacity == -1 && PyErr_Occurred())
        return NULL;
    if (capacity < 0 || capacity > PY_SSIZE_T_MAX - ROOM_SLACK) {
        PyErr_SetString(PyExc_OverflowError, "stream_transcode_new(): capacity out of range");
        return NULL;
    }
    PyObject *output = PyBytes_FromStringAndSize(NULL, capacity + ROOM_SLACK);
    if (output == NULL)
        return NULL;
    const uint8_t *src = (const uint8_t *)PyBytes_AS_STRING(args[1]);
    Py_ssize_t len = PyBytes_GET_SIZE(args[1]);
    utfkit_result result;
    CORE_CALL(len, result = stream_transcode(stream, src, (size_t)len, (int)numbers[0], (int)numbers[1],
                                             (int)numbers[2], (uint8_t *)PyBytes_AS_STRING(output),
                                             (size_t)capacity + ROOM_SLACK));
    if (result.status != UTFKIT_OK) {
        Py_DECREF(output);
        return Py_BuildValue("(inn)", (int)result.status, (Py_ssize_t)result.position,
                             (Py_ssize_t)result.subpart_length);
    }
    if ((Py_ssize_t)result.written != PyBytes_GET_SIZE(output) && _PyBytes_Resize(&output, (Py_ssize_t)result.written) != 0)
        return NULL;
    return output;
}

/* ---- utfkit.IncrementalDecoder's hot path ----
 *
 * utfkit.IncrementalDecoder (stream.py) is a Python class on this base
 * type, as Validator is on ValidatorBase.  The base answers decode() of a
 * UTF-8 decoder with errors "strict", given a `bytes` chunk: after the bytes
 * carried from the last chunk, the bytes a next chunk may still complete
 * (utfkit_incomplete_suffix_length: a Table 3-7 row begun and well-formed
 * so far; none when `final`) are carried, and the rest is decoded as
 * utfkit.decode decodes it.  Every other call, and any chunk with an error
 * to raise, goes to the class's _decode_slow, the reference. */

typedef struct {
    PyObject_HEAD
    int utf8;           /* _utf8: the decoder's encoding is UTF-8 */
    PyObject *errors;   /* errors: the error handler's name (codecs.IncrementalDecoder's attribute) */
    PyObject *carried;  /* _carried: bytes of a character cut at the last chunk's end (NULL: none) */
    PyObject *token;    /* _token: the class's Exclusive guard's token list, [True] when free */
} DecoderBase;

static PyObject *decode_slow_name = NULL, *final_name = NULL;

static PyObject *
decoder_decode(DecoderBase *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    PyObject *final_argument = given == 2 ? args[1] : NULL;
    int keywords_known = kwnames == NULL
                         || (given == 1 && PyTuple_GET_SIZE(kwnames) == 1 && PyTuple_GET_ITEM(kwnames, 0) == final_name);
    if (kwnames != NULL && keywords_known)
        final_argument = args[1];
    PyObject *carried = self->carried;
    if (!(keywords_known && (given == 1 || given == 2) && self->utf8 && PyBytes_CheckExact(args[0])
          && (carried == NULL || PyBytes_CheckExact(carried)) && self->errors != NULL
          && PyUnicode_CheckExact(self->errors) && PyUnicode_CompareWithASCIIString(self->errors, "strict") == 0
          && self->token != NULL && PyList_CheckExact(self->token) && PyList_GET_SIZE(self->token) == 1
          && validate_lengths != NULL))
        goto slow;
    int final = final_argument == NULL ? 0 : PyObject_IsTrue(final_argument);
    if (final < 0)
        return NULL;
    /* the chunk, after the bytes carried from the last one (at most 3) */
    PyObject *data = args[0];
    Py_ssize_t carried_length = carried == NULL ? 0 : PyBytes_GET_SIZE(carried);
    if (carried_length) {
        data = PyBytes_FromStringAndSize(NULL, carried_length + PyBytes_GET_SIZE(args[0]));
        if (data == NULL)
            return NULL;
        memcpy(PyBytes_AS_STRING(data), PyBytes_AS_STRING(carried), (size_t)carried_length);
        memcpy(PyBytes_AS_STRING(data) + carried_length, PyBytes_AS_STRING(args[0]), (size_t)PyBytes_GET_SIZE(args[0]));
    } else {
        Py_INCREF(data);
    }
    const uint8_t *src = (const uint8_t *)PyBytes_AS_STRING(data);
    Py_ssize_t len = PyBytes_GET_SIZE(data);
    Py_ssize_t held = final ? 0 : (Py_ssize_t)incomplete_suffix_length(src, (size_t)len, UTFKIT_UTF8);
    /* the guard taken while decode_utf8 may release the GIL: a call from
     * another thread meanwhile is refused, as the class's own path refuses it */
    int guarded = len >= KEEP_GIL_BELOW;
    if (guarded && PyList_SetSlice(self->token, 0, 1, NULL) != 0) {
        Py_DECREF(data);
        return NULL;
    }
    PyObject *text = decode_utf8(src, len - held);
    if (guarded && PyList_Append(self->token, Py_True) != 0) {
        Py_XDECREF(text);
        Py_DECREF(data);
        return NULL;
    }
    if (text == NULL) {
        Py_DECREF(data);
        if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
            return NULL;
        /* CPython's error names the carried bytes and the chunk as its
         * object: the class's own path raises it (nothing was changed) */
        PyErr_Clear();
        goto slow;
    }
    PyObject *now_carried = PyBytes_FromStringAndSize((const char *)src + len - held, held);
    Py_DECREF(data);
    if (now_carried == NULL) {
        Py_DECREF(text);
        return NULL;
    }
    Py_XSETREF(self->carried, now_carried);
    return text;
slow:;
    PyObject *method = PyObject_GetAttr((PyObject *)self, decode_slow_name);
    if (method == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(method, args, nargs, kwnames);
    Py_DECREF(method);
    return result;
}

static int
decoder_traverse(DecoderBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->errors);
    Py_VISIT(self->carried);
    Py_VISIT(self->token);
    return 0;
}

static int
decoder_clear(DecoderBase *self)
{
    Py_CLEAR(self->errors);
    Py_CLEAR(self->carried);
    Py_CLEAR(self->token);
    return 0;
}

static void
decoder_dealloc(DecoderBase *self)
{
    PyObject_GC_UnTrack(self);
    decoder_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef decoder_methods[] = {
    {"decode", (PyCFunction)(void (*)(void))decoder_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($self, input, final=False)\n--\n\n"
     "Decode the next chunk: what one-shot decoding of the whole input gives, however it is split."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef decoder_members[] = {
    {"_utf8", T_INT, offsetof(DecoderBase, utf8), 0, "1: the encoding is UTF-8 (decode answered in C when strict)"},
    {"errors", T_OBJECT, offsetof(DecoderBase, errors), 0, "the error handler's name"},
    {"_carried", T_OBJECT, offsetof(DecoderBase, carried), 0, "bytes of a character cut at the last chunk's end"},
    {"_token", T_OBJECT, offsetof(DecoderBase, token), 0, "the Exclusive guard's token list"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject DecoderBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "utfkit._direct.DecoderBase",
    .tp_doc = "utfkit.IncrementalDecoder's base: decode() of UTF-8 bytes, strict, answered in C; every other "
              "call goes to the class's _decode_slow.",
    .tp_basicsize = sizeof(DecoderBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_traverse = (traverseproc)decoder_traverse,
    .tp_clear = (inquiry)decoder_clear,
    .tp_dealloc = (destructor)decoder_dealloc,
    .tp_methods = decoder_methods,
    .tp_members = decoder_members,
};

/* ---- utfkit.Validator's hot path ----
 *
 * utfkit.Validator (stream.py) is a Python class on this base type.  One
 * message of a stream a connection keeps is three calls -- reset(), feed(),
 * finish() -- and three Python frames cost more than CPython's incremental
 * decoder spends on a short message.  So the base answers here the calls of
 * a UTF-8 stream whose form is decided (no byte-order mark pending) while it
 * is between characters: a `bytes` chunk that is well-formed as a whole
 * moves the offset on; reset() and finish() set the state.  Every other
 * call -- another form, a mark still undecided, another buffer type, a chunk
 * that is not well-formed as a whole, a stream inside a character, failed
 * or finished, a guard held by another caller -- goes to the class's
 * _feed_slow, _reset_slow or _finish_slow, with the same arguments; they
 * are the reference for what each call does.  The fields below are the
 * class's own state, which its Python methods read and write as attributes
 * (_state, _base, ...). */

enum validator_state { /* stream.py's _BETWEEN_CHARACTERS, _IN_C, _FINISHED, _FAILED */
    BETWEEN_CHARACTERS = 0, /* no C stream state needed */
    IN_C = 1,               /* the C stream state (csrc/stream.c) holds the stream */
    FINISHED = 2,
    FAILED = 3              /* its error kept in `error` */
};

typedef struct {
    PyObject_HEAD
    int state;          /* _state: enum validator_state */
    int utf8_direct;    /* _utf8_direct: the stream is UTF-8, its form decided */
    int plain_reset;    /* _plain_reset: reset() only moves back to offset 0 (no mark to read) */
    Py_ssize_t base;    /* _base: the stream offset where the C state starts counting */
    PyObject *error;    /* _error: the error kept after a failure (NULL: None) */
    PyObject *token;    /* _token: the class's Exclusive guard's token list, [True] when free */
} ValidatorBase;

static PyObject *feed_slow_name = NULL, *reset_slow_name = NULL, *finish_slow_name = NULL;

/* 1 when the stream is UTF-8 between characters and no caller holds its
 * guard: the calls below may then be answered here. */
static int
validator_direct(const ValidatorBase *self)
{
    return self->utf8_direct && self->state == BETWEEN_CHARACTERS && self->token != NULL
           && PyList_CheckExact(self->token) && PyList_GET_SIZE(self->token) == 1;
}

/* The class's own method `name`, called with these arguments. */
static PyObject *
validator_slow(ValidatorBase *self, PyObject *name, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *method = PyObject_GetAttr((PyObject *)self, name);
    if (method == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(method, args, nargs, kwnames);
    Py_DECREF(method);
    return result;
}

static PyObject *
validator_feed(ValidatorBase *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (kwnames == NULL && PyVectorcall_NARGS(nargs) == 1 && PyBytes_CheckExact(args[0]) && utf8_validate != NULL
        && validator_direct(self)) {
        Py_ssize_t length = PyBytes_GET_SIZE(args[0]);
        /* utf8_bytes_valid releases the GIL from KEEP_GIL_BELOW bytes (CORE_CALL):
         * the guard is taken meanwhile, so that a call from another thread is
         * refused, as the class's own path refuses it */
        int guarded = length >= KEEP_GIL_BELOW;
        if (guarded && PyList_SetSlice(self->token, 0, 1, NULL) != 0)
            return NULL;
        int valid = utf8_bytes_valid(args[0]);
        if (guarded && PyList_Append(self->token, Py_True) != 0)
            return NULL;
        if (valid) {
            self->base += length;
            Py_RETURN_NONE;
        }
    }
    return validator_slow(self, feed_slow_name, args, nargs, kwnames);
}

static PyObject *
validator_reset(ValidatorBase *self, PyObject *unused)
{
    (void)unused;
    /* a fixed UTF-8 stream: only the position, the state and the error restart */
    if (self->plain_reset && self->utf8_direct && self->token != NULL && PyList_CheckExact(self->token)
        && PyList_GET_SIZE(self->token) == 1) {
        Py_CLEAR(self->error);
        self->base = 0;
        self->state = BETWEEN_CHARACTERS;
        Py_RETURN_NONE;
    }
    return validator_slow(self, reset_slow_name, NULL, 0, NULL);
}

static PyObject *
validator_finish(ValidatorBase *self, PyObject *unused)
{
    (void)unused;
    if (validator_direct(self)) { /* between characters: nothing is unfinished */
        self->state = FINISHED;
        Py_RETURN_NONE;
    }
    return validator_slow(self, finish_slow_name, NULL, 0, NULL);
}

static int
validator_traverse(ValidatorBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->error);
    Py_VISIT(self->token);
    return 0;
}

static int
validator_clear(ValidatorBase *self)
{
    Py_CLEAR(self->error);
    Py_CLEAR(self->token);
    return 0;
}

static void
validator_dealloc(ValidatorBase *self)
{
    PyObject_GC_UnTrack(self);
    validator_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef validator_methods[] = {
    {"feed", (PyCFunction)(void (*)(void))validator_feed, METH_FASTCALL | METH_KEYWORDS,
     "feed($self, chunk, /)\n--\n\n"
     "Check the next chunk of the stream (any bytes-like object, read in place)."},
    {"reset", (PyCFunction)validator_reset, METH_NOARGS,
     "reset($self, /)\n--\n\nStart a new stream at offset 0."},
    {"finish", (PyCFunction)validator_finish, METH_NOARGS,
     "finish($self, /)\n--\n\nEnd the stream: raise if it ends inside a character."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef validator_members[] = {
    {"_state", T_INT, offsetof(ValidatorBase, state), 0, "BETWEEN_CHARACTERS, IN_C, FINISHED or FAILED"},
    {"_utf8_direct", T_INT, offsetof(ValidatorBase, utf8_direct), 0,
     "1: the stream is UTF-8, its form decided (feed, reset, finish answered in C)"},
    {"_plain_reset", T_INT, offsetof(ValidatorBase, plain_reset), 0,
     "1: reset() only moves back to offset 0 (no byte-order mark to read again)"},
    {"_base", T_PYSSIZET, offsetof(ValidatorBase, base), 0,
     "the stream offset where the C stream state starts counting"},
    {"_error", T_OBJECT, offsetof(ValidatorBase, error), 0, "the error kept after a failure, or None"},
    {"_token", T_OBJECT, offsetof(ValidatorBase, token), 0, "the Exclusive guard's token list"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject ValidatorBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "utfkit._direct.ValidatorBase",
    .tp_doc = "utfkit.Validator's base: feed(), reset() and finish() of a UTF-8 stream between characters, "
              "answered in C; every other call goes to the class's _feed_slow, _reset_slow, _finish_slow.",
    .tp_basicsize = sizeof(ValidatorBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_traverse = (traverseproc)validator_traverse,
    .tp_clear = (inquiry)validator_clear,
    .tp_dealloc = (destructor)validator_dealloc,
    .tp_methods = validator_methods,
    .tp_members = validator_members,
};

static PyMethodDef direct_methods[] = {
    {"set_transcoder", set_transcoder, METH_O,
     "set_transcoder(address): the address of utfkit_transcode_packed, from the cffi module."},
    {"transcode_new", (PyCFunction)(void (*)(void))transcode_new, METH_FASTCALL,
     "transcode_new(data, how, capacity[, prefix]) -> bytes | None"},
    {"transcode_into", (PyCFunction)(void (*)(void))transcode_into, METH_FASTCALL,
     "transcode_into(data, how, out) -> int | None"},
    {"set_utf8_entries", (PyCFunction)(void (*)(void))set_utf8_entries, METH_FASTCALL,
     "set_utf8_entries(validate_address, count_address, utf8_name, validate, check, count)"},
    {"set_stream_entry", set_stream_entry, METH_O,
     "set_stream_entry(address): the address of utfkit_stream_transcode, from the cffi module."},
    {"stream_transcode_new", (PyCFunction)(void (*)(void))stream_transcode_new, METH_FASTCALL,
     "stream_transcode_new(stream_address, chunk, final, to, errors, capacity) -> bytes | tuple | None"},
    {"set_length_entries", (PyCFunction)(void (*)(void))set_length_entries, METH_FASTCALL,
     "set_length_entries(transcoded_length_address, valid_up_to, transcoded_length)"},
    {"valid_up_to", (PyCFunction)(void (*)(void))valid_up_to, METH_FASTCALL | METH_KEYWORDS,
     "valid_up_to($module, /, data, encoding='utf-8')\n--\n\n"
     "Length in bytes of the longest well-formed prefix ending on a character boundary."},
    {"transcoded_length", (PyCFunction)(void (*)(void))transcoded_length, METH_FASTCALL | METH_KEYWORDS,
     "transcoded_length($module, /, data, from_, to, errors='strict')\n--\n\n"
     "Exact length in bytes of ``transcode(data, from_, to, errors)``.\n\n"
     "Raises UnicodeDecodeError, as transcode does, for ill-formed input with\n"
     "``errors=\"strict\"``."},
    {"set_form_entries", (PyCFunction)(void (*)(void))set_form_entries, METH_FASTCALL,
     "set_form_entries(validate_address, count_address, fixed_forms)"},
    {"set_cpython_codecs", (PyCFunction)(void (*)(void))set_cpython_codecs, METH_FASTCALL,
     "set_cpython_codecs(decoders_by_spelling, names_by_spelling)"},
    {"set_text_entries", (PyCFunction)(void (*)(void))set_text_entries, METH_FASTCALL,
     "set_text_entries(well_formed_length_address, decode, encode)"},
    {"decode", (PyCFunction)(void (*)(void))decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($module, /, data, encoding='utf-8', errors='strict')\n--\n\n"
     "Identical to ``bytes(data).decode(encoding, errors)``, without the copy.\n\n"
     "UTF-8 ``bytes``, strict, are converted by the C core straight into the new\n"
     "``str``; every other call goes to CPython's codec (every error handler CPython\n"
     "accepts) or, for ``wtf-8``, ``cesu-8``, ``mutf-8``, ``utf-e-8`` and\n"
     "``utf-8-rfc2279``, to utfkit's decoders.  Errors are CPython's exactly."},
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL | METH_KEYWORDS,
     "encode($module, /, text, encoding='utf-8', errors='strict')\n--\n\n"
     "Identical to ``text.encode(encoding, errors)``.\n\n"
     "UTF-8, strict, is converted by the C core from the ``str``'s own storage;\n"
     "lone surrogates follow `errors` exactly as CPython's encoders treat them, and\n"
     "``wtf-8``, ``cesu-8``, ``mutf-8`` write them as those forms do."},
    {"set_transcode_entry", (PyCFunction)(void (*)(void))set_transcode_entry, METH_FASTCALL,
     "set_transcode_entry(plans, strict, transcode, one_pass_room)"},
    {"transcode", (PyCFunction)(void (*)(void))transcode, METH_FASTCALL | METH_KEYWORDS,
     "transcode($module, /, data, from_, to, errors='strict', out=None)\n--\n\n"
     "Convert `data` from one encoding form to another, buffer to buffer.\n\n"
     "Equal to ``bytes(data).decode(from_, errors).encode(to)`` with no ``str`` in\n"
     "between.  `errors` is ``\"strict\"`` (raise UnicodeDecodeError with CPython's\n"
     "start, end and reason), ``\"replace\"`` (U+FFFD per maximal subpart of UTF-8, per\n"
     "unpaired surrogate or invalid unit of UTF-16/UTF-32) or ``\"ignore\"``.\n\n"
     "Returns ``bytes``; or, with `out` (any writable buffer), writes there and returns\n"
     "the number of bytes written, raising ValueError if `out` is too small or overlaps\n"
     "`data` -- nothing is ever written past its end."},
    {"validate", (PyCFunction)(void (*)(void))validate, METH_FASTCALL | METH_KEYWORDS,
     "validate($module, /, data, encoding='utf-8')\n--\n\n"
     "True if `data` is well-formed in `encoding` (UTF-8: Unicode 3.9 Table 3-7 exactly)."},
    {"check", (PyCFunction)(void (*)(void))check, METH_FASTCALL | METH_KEYWORDS,
     "check($module, /, data, encoding='utf-8')\n--\n\n"
     "Raise UnicodeDecodeError at the first ill-formed subsequence of `data`.\n\n"
     "``start``, ``end`` and ``reason`` are those of ``bytes(data).decode(encoding)``;\n"
     "for UTF-8, ``end - start`` is the length of the maximal subpart (Unicode 3.9, D93b)."},
    {"count", (PyCFunction)(void (*)(void))count, METH_FASTCALL | METH_KEYWORDS,
     "count($module, /, data, encoding='utf-8')\n--\n\n"
     "Number of code points ``decode(data, encoding, errors=\"replace\")`` yields."},
    {"sanitize", (PyCFunction)(void (*)(void))sanitize, METH_FASTCALL | METH_KEYWORDS,
     "sanitize($module, /, data, encoding='utf-8')\n--\n\n"
     "`data` with each ill-formed subsequence replaced by U+FFFD, in the same form.\n\n"
     "For UTF-8 each maximal subpart becomes EF BF BD; for UTF-16 and UTF-32, each\n"
     "unit CPython's ``replace`` handler replaces.  Returns `data` itself when it is a\n"
     "``bytes`` object and already valid."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef direct_module = {
    PyModuleDef_HEAD_INIT,
    "utfkit._direct",
    "utfkit's C core called on Python objects without cffi: transcode into a new bytes or an out= buffer, "
    "validate, check, count and sanitize of UTF-8 bytes, and utfkit.Validator's base type.",
    -1,
    direct_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__direct(void)
{
    if (PyType_Ready(&ValidatorBaseType) != 0 || PyType_Ready(&DecoderBaseType) != 0)
        return NULL;
    PyObject **names[] = {&feed_slow_name, &reset_slow_name, &finish_slow_name, &decode_slow_name, &final_name};
    const char *spellings[] = {"_feed_slow", "_reset_slow", "_finish_slow", "_decode_slow", "final"};
    for (size_t i = 0; i < 5; i++)
        if (*names[i] == NULL && (*names[i] = PyUnicode_InternFromString(spellings[i])) == NULL)
            return NULL;
    PyObject *module = PyModule_Create(&direct_module);
    if (module == NULL)
        return NULL;
    if (PyModule_AddIntConstant(module, "ROOM_SLACK", ROOM_SLACK) != 0
        || PyModule_AddIntConstant(module, "BETWEEN_CHARACTERS", BETWEEN_CHARACTERS) != 0
        || PyModule_AddIntConstant(module, "IN_C", IN_C) != 0
        || PyModule_AddIntConstant(module, "FINISHED", FINISHED) != 0
        || PyModule_AddIntConstant(module, "FAILED", FAILED) != 0
        || PyModule_AddType(module, &ValidatorBaseType) != 0 || PyModule_AddType(module, &DecoderBaseType) != 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
