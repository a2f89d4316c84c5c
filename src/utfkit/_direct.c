/*
 * utfkit._direct -- the C core called on Python objects, without cffi.
 *
 * The one job of this module: call the core on Python objects where cffi's
 * own per-call cost would dominate.
 *   - transcode_new makes a `bytes` object of a given room without
 *     zero-filling it (PyBytes_FromStringAndSize(NULL, n)), has the core
 *     write the conversion straight into it, and shrinks it to what was
 *     written.  cffi can only hand out a `bytes` it copies into (ffi.unpack)
 *     or one the caller zeroed (bytes(n)); at 64 KiB either costs about as
 *     much as the conversion itself (README, "Latin-1").
 *   - transcode_into writes into a caller's writable buffer (transcode's
 *     out=), taking it with PyObject_GetBuffer instead of ffi.from_buffer,
 *     which alone costs half of a 16-byte call.
 *   - validate, check, count and sanitize are utfkit's public functions of
 *     those names: they answer UTF-8 `bytes` here and hand every other call
 *     to the binding's Python function (below).
 *
 * The core is not linked here a second time: the cffi module utfkit._native
 * holds it, and the binding passes this module the addresses of the
 * functions it calls once, at import (set_transcoder, set_utf8_entries).
 *
 * Built without Py_LIMITED_API: _PyBytes_Resize, the only way to shrink a
 * `bytes` in place, is not in the limited API.  The cffi module stays abi3.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

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
    if (transcode_packed == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "transcode_new(): set_transcoder() was not called");
        return NULL;
    }
    long how = PyLong_AsLong(args[1]);
    if (how == -1 && PyErr_Occurred())
        return NULL;
    if (how < 0 || how > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "transcode_new(): 'how' out of range");
        return NULL;
    }
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
    /* the whole object's size must fit in a Py_ssize_t; PyBytes_FromStringAndSize
     * checks the header on top of it */
    if (capacity > PY_SSIZE_T_MAX - prefix_length) {
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

    PyObject *output = PyBytes_FromStringAndSize(NULL, prefix_length + capacity);
    if (output == NULL) {
        PyBuffer_Release(&source);
        return NULL;
    }
    uint8_t *start = (uint8_t *)PyBytes_AS_STRING(output);
    if (prefix_length)
        memcpy(start, prefix, (size_t)prefix_length);

    int64_t written;
    if (source.len < KEEP_GIL_BELOW) {
        written = transcode_packed(source.buf, (size_t)source.len, (int)how, start + prefix_length, (size_t)capacity);
    } else {
        /* DESIGN.md section 4: the GIL is released around every core call that
         * takes time, so threads scale; `source` stays exported, so its
         * memory cannot move or be freed meanwhile */
        Py_BEGIN_ALLOW_THREADS
        written = transcode_packed(source.buf, (size_t)source.len, (int)how, start + prefix_length, (size_t)capacity);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&source);

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
    if (transcode_packed == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "transcode_into(): set_transcoder() was not called");
        return NULL;
    }
    long how = PyLong_AsLong(args[1]);
    if (how == -1 && PyErr_Occurred())
        return NULL;
    if (how < 0 || how > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "transcode_into(): 'how' out of range");
        return NULL;
    }
    Py_buffer source, target;
    if (PyObject_GetBuffer(args[0], &source, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    /* PyBUF_WRITABLE: one C-contiguous, writable run of bytes, as the
     * binding's output_view accepts */
    if (PyObject_GetBuffer(args[2], &target, PyBUF_WRITABLE) != 0) {
        PyErr_Clear();
        PyBuffer_Release(&source);
        Py_RETURN_NONE;
    }
    int64_t written;
    if (source.len < KEEP_GIL_BELOW) {
        written = transcode_packed(source.buf, (size_t)source.len, (int)how, target.buf, (size_t)target.len);
    } else {
        /* as in transcode_new: both buffers stay exported meanwhile */
        Py_BEGIN_ALLOW_THREADS
        written = transcode_packed(source.buf, (size_t)source.len, (int)how, target.buf, (size_t)target.len);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&target);
    PyBuffer_Release(&source);
    if (written < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong((long long)written);
}

/* ---- validate, check and count of UTF-8 `bytes`, called straight from Python ----
 *
 * utfkit.validate, utfkit.check and utfkit.count are these functions.  A
 * call with a `bytes` object and UTF-8 (the default, or the very "utf-8"
 * object the binding passes) is answered here: the core's answer for the
 * valid case, with no Python frame and no cffi call in between (a Python
 * function that only returns True already costs what CPython's
 * bytes.decode() spends on 16 bytes).  Every other call -- another
 * encoding, another buffer type, keywords, an answer that is an error to
 * raise -- goes to the binding's Python function of the same name, with the
 * same arguments. */

typedef int (*utf8_validate_fn)(const uint8_t *src, size_t len);
typedef size_t (*utf8_count_fn)(const uint8_t *src, size_t len);

_Static_assert(_Generic(&utfkit_utf8_validate, utf8_validate_fn: 1, default: 0),
               "utf8_validate_fn must match utfkit_utf8_validate in utfkit.h");
_Static_assert(_Generic(&utfkit_utf8_count, utf8_count_fn: 1, default: 0),
               "utf8_count_fn must match utfkit_utf8_count in utfkit.h");

/* Set once by set_utf8_entries(), before any call below. */
static utf8_validate_fn utf8_validate = NULL;
static utf8_count_fn utf8_count = NULL;
static PyObject *utf8_name = NULL; /* the binding's "utf-8" object */
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

/* The `bytes` object to answer here, or NULL for the fallback: one
 * positional `bytes` argument and either no encoding or UTF-8 named. */
static PyObject *
utf8_bytes_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    if (kwnames != NULL || utf8_validate == NULL || (given != 1 && !(given == 2 && names_utf8(args[1]))))
        return NULL;
    return PyBytes_CheckExact(args[0]) ? args[0] : NULL;
}

static int
utf8_bytes_valid(PyObject *data)
{
    const uint8_t *start = (const uint8_t *)PyBytes_AS_STRING(data);
    Py_ssize_t length = PyBytes_GET_SIZE(data);
    int valid;
    if (length < KEEP_GIL_BELOW)
        return utf8_validate(start, (size_t)length);
    Py_BEGIN_ALLOW_THREADS /* a bytes object is immutable: nothing can change it meanwhile */
    valid = utf8_validate(start, (size_t)length);
    Py_END_ALLOW_THREADS
    return valid;
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
    PyObject *data = utf8_bytes_argument(args, nargs, kwnames);
    if (data == NULL)
        return fallback(validate_fallback, args, nargs, kwnames);
    return PyBool_FromLong(utf8_bytes_valid(data));
}

static PyObject *
check(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *data = utf8_bytes_argument(args, nargs, kwnames);
    if (data == NULL || !utf8_bytes_valid(data))
        return fallback(check_fallback, args, nargs, kwnames); /* it raises CPython's error */
    Py_RETURN_NONE;
}

static PyObject *
sanitize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *data = utf8_bytes_argument(args, nargs, kwnames);
    if (data == NULL || !utf8_bytes_valid(data))
        return fallback(sanitize_fallback, args, nargs, kwnames); /* it repairs */
    Py_INCREF(data); /* well-formed: the object itself, as the binding returns it */
    return data;
}

static PyObject *
count(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *data = utf8_bytes_argument(args, nargs, kwnames);
    if (data == NULL)
        return fallback(count_fallback, args, nargs, kwnames);
    const uint8_t *start = (const uint8_t *)PyBytes_AS_STRING(data);
    Py_ssize_t length = PyBytes_GET_SIZE(data);
    size_t counted;
    if (length < KEEP_GIL_BELOW) {
        counted = utf8_count(start, (size_t)length);
    } else {
        Py_BEGIN_ALLOW_THREADS
        counted = utf8_count(start, (size_t)length);
        Py_END_ALLOW_THREADS
    }
    return PyLong_FromSize_t(counted);
}

static PyMethodDef direct_methods[] = {
    {"set_transcoder", set_transcoder, METH_O,
     "set_transcoder(address): the address of utfkit_transcode_packed, from the cffi module."},
    {"transcode_new", (PyCFunction)(void (*)(void))transcode_new, METH_FASTCALL,
     "transcode_new(data, how, capacity[, prefix]) -> bytes | None"},
    {"transcode_into", (PyCFunction)(void (*)(void))transcode_into, METH_FASTCALL,
     "transcode_into(data, how, out) -> int | None"},
    {"set_utf8_entries", (PyCFunction)(void (*)(void))set_utf8_entries, METH_FASTCALL,
     "set_utf8_entries(validate_address, count_address, utf8_name, validate, check, count)"},
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
    "and validate, check, count and sanitize of UTF-8 bytes.",
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
    return PyModule_Create(&direct_module);
}
