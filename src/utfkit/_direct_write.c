/*
 * _direct_write.c -- utfkit._direct's conversions into a new `bytes` or a
 * caller's out= buffer: utfkit.transcode and utfkit.transcoded_length for
 * the conversions in the binding's plans, and transcode_new and
 * transcode_into, the same two writes for the binding's own use.
 */
#include "_direct.h"

PyObject *
direct_set_transcoder(PyObject *module, PyObject *address)
{
    (void)module;
    void *function = PyLong_AsVoidPtr(address);
    if (function == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "set_transcoder(): the address of utfkit_transcode_packed is NULL");
        return NULL;
    }
    direct_core.transcode_packed = (transcode_packed_fn)function;
    Py_RETURN_NONE;
}

/* The core's conversion of src[0..len) into dst[0..cap), under CORE_CALL's
 * rule for the GIL. */
int64_t
direct_packed_call(const uint8_t *src, Py_ssize_t len, int how, uint8_t *dst, size_t cap)
{
    int64_t written;
    CORE_CALL(len, written = direct_core.transcode_packed(src, (size_t)len, how, dst, cap));
    return written;
}

/* `prefix`, then the conversion of src[0..len) written into room for
 * `capacity` bytes after it (and ROOM_SLACK more), as one new bytes shrunk
 * to its size; None (a new reference) when the core reports a status other
 * than OK; NULL with an exception set when memory runs out. */
PyObject *
direct_new_bytes_of(const uint8_t *src, Py_ssize_t len, int how, const char *prefix, Py_ssize_t prefix_length,
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
    int64_t written = direct_packed_call(src, len, how, start + prefix_length, (size_t)capacity + ROOM_SLACK);
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
    if (direct_core.transcode_packed == NULL) {
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
PyObject *
direct_transcode_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
    /* the whole object's size must fit in a Py_ssize_t (direct_new_bytes_of checks
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
    PyObject *output = direct_new_bytes_of(source.buf, source.len, how, prefix, prefix_length, capacity);
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
    int64_t written = direct_packed_call(source.buf, source.len, how, target.buf, (size_t)target.len);
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
PyObject *
direct_transcode_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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

PyObject *direct_strict_name = NULL; /* the binding's "strict" */
static PyObject *plans = NULL, *out_name = NULL, *transcode_fallback = NULL;
static Py_ssize_t one_pass_room = 0;

PyObject *
direct_set_transcode_entry(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
    PyObject **slots[] = {&plans, &direct_strict_name, &transcode_fallback};
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

PyObject *
direct_transcode(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    PyObject *out = NULL;
    if (plans == NULL || given < 3)
        goto direct_fallback;
    if (kwnames != NULL) { /* out= by keyword, the usual spelling */
        if (given > 4 || PyTuple_GET_SIZE(kwnames) != 1 || PyTuple_GET_ITEM(kwnames, 0) != out_name)
            goto direct_fallback;
        out = args[given];
    } else if (given == 5) {
        out = args[4];
    } else if (given > 5) {
        goto direct_fallback;
    }
    if (out == Py_None)
        out = NULL;
    plan found;
    if (!find_plan(args[1], args[2], given >= 4 ? args[3] : direct_strict_name, &found))
        goto direct_fallback;
    PyObject *result;
    if (out != NULL) {
        result = into_buffer(args[0], found.how, out);
    } else {
        PyObject *data = args[0];
        if (!PyBytes_CheckExact(data) || PyBytes_GET_SIZE(data) > one_pass_room)
            goto direct_fallback;
        const uint8_t *src = (const uint8_t *)PyBytes_AS_STRING(data);
        Py_ssize_t length = PyBytes_GET_SIZE(data);
        if (found.ascii_same && direct_core.ascii_length != NULL && direct_core.ascii_length(src, (size_t)length) == (size_t)length) {
            Py_INCREF(data); /* ASCII is its own output (Latin-1 <-> UTF-8, say): no copy */
            return data;
        }
        Py_ssize_t capacity = (length + found.unit - 1) / found.unit * found.per_unit; /* at most 6 x one_pass_room */
        if (capacity > one_pass_room && capacity > length)
            goto direct_fallback; /* the binding's rule: scratch and a copy, or measure first */
        /* a bytes object is immutable: it needs no export during the call */
        result = direct_new_bytes_of(src, length, found.how, NULL, 0, capacity);
    }
    if (result != Py_None)
        return result; /* the answer, or NULL with MemoryError set */
    Py_DECREF(result);
direct_fallback:
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

static PyObject *transcoded_length_fallback = NULL;

PyObject *
direct_set_length_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
    direct_core.transcoded_length = (transcoded_length_fn)address;
    PyObject **slots[] = {&direct_valid_up_to_fallback, &transcoded_length_fallback};
    for (size_t i = 0; i < 2; i++) {
        Py_INCREF(args[1 + i]);
        Py_XSETREF(*slots[i], args[1 + i]);
    }
    Py_RETURN_NONE;
}

PyObject *
direct_transcoded_length(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    plan found;
    if (kwnames == NULL && (given == 3 || given == 4) && PyBytes_CheckExact(args[0]) && plans != NULL
        && direct_core.transcoded_length != NULL && find_plan(args[1], args[2], given == 4 ? args[3] : direct_strict_name, &found)) {
        const uint8_t *src = (const uint8_t *)PyBytes_AS_STRING(args[0]);
        Py_ssize_t length = PyBytes_GET_SIZE(args[0]);
        utfkit_result result;
        /* `how` is from | to << 4 | errors << 8 (utfkit_transcode_packed) */
        CORE_CALL(length, result = direct_core.transcoded_length(src, (size_t)length, found.how & 15, found.how >> 4 & 15,
                                                          found.how >> 8));
        if (result.status == UTFKIT_OK)
            return PyLong_FromSize_t(result.written);
    }
    return direct_fallback(transcoded_length_fallback, args, nargs, kwnames); /* it raises the error */
}
