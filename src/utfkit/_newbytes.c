/*
 * utfkit._newbytes -- a new `bytes` object that the C core fills in place.
 *
 * The one job of this module: call the core's utfkit_transcode_packed on
 * Python buffers where cffi's own cost would dominate.
 *   - transcode_new makes a `bytes` object of a given room without
 *     zero-filling it (PyBytes_FromStringAndSize(NULL, n)), has the core
 *     write the conversion straight into it, and shrinks it to what was
 *     written.  cffi can only hand out a `bytes` it copies into (ffi.unpack)
 *     or one the caller zeroed (bytes(n)); at 64 KiB either costs about as
 *     much as the conversion itself (README, "Latin-1").
 *   - transcode_into writes into a caller's writable buffer (transcode's
 *     out=), taking it with PyObject_GetBuffer instead of ffi.from_buffer,
 *     which alone costs half of a 16-byte call.
 *
 * The core is not linked here a second time: the cffi module utfkit._native
 * holds it, and the binding passes this module the address of
 * utfkit_transcode_packed once, at import (set_transcoder).
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

static PyMethodDef newbytes_methods[] = {
    {"set_transcoder", set_transcoder, METH_O,
     "set_transcoder(address): the address of utfkit_transcode_packed, from the cffi module."},
    {"transcode_new", (PyCFunction)(void (*)(void))transcode_new, METH_FASTCALL,
     "transcode_new(data, how, capacity[, prefix]) -> bytes | None"},
    {"transcode_into", (PyCFunction)(void (*)(void))transcode_into, METH_FASTCALL,
     "transcode_into(data, how, out) -> int | None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef newbytes_module = {
    PyModuleDef_HEAD_INIT,
    "utfkit._newbytes",
    "A new bytes object that utfkit's C core fills in place (no zero-filling, no copy).",
    -1,
    newbytes_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__newbytes(void)
{
    return PyModule_Create(&newbytes_module);
}
