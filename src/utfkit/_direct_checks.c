/*
 * _direct_checks.c -- utfkit.validate, check, count, sanitize and
 * valid_up_to, answered in C for a buffer in UTF-8 or in a form without a
 * byte-order mark.
 */
#include "_direct.h"

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

PyObject *direct_utf8_name = NULL; /* the binding's "utf-8" object */
PyObject *direct_valid_up_to_fallback = NULL;
static PyObject *validate_fallback = NULL, *check_fallback = NULL, *count_fallback = NULL,
                *sanitize_fallback = NULL;

PyObject *
direct_set_utf8_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
    direct_core.utf8_validate = (utf8_validate_fn)validate_address;
    direct_core.utf8_count = (utf8_count_fn)count_address;
    PyObject **slots[] = {&direct_utf8_name, &validate_fallback, &check_fallback, &count_fallback, &sanitize_fallback};
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

static PyObject *fixed_forms = NULL;

PyObject *
direct_set_form_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
    direct_core.form_validate = (form_validate_fn)addresses[0];
    direct_core.form_count = (form_count_fn)addresses[1];
    Py_INCREF(args[2]);
    Py_XSETREF(fixed_forms, args[2]);
    Py_RETURN_NONE;
}

/* 1 if `encoding` is the binding's "utf-8" object, or a str spelling
 * "utf-8" or "utf8" exactly (every other alias goes the binding's way, which
 * knows them all). */
int
direct_names_utf8(PyObject *encoding)
{
    if (encoding == direct_utf8_name)
        return 1;
    if (!PyUnicode_CheckExact(encoding))
        return 0;
    return PyUnicode_CompareWithASCIIString(encoding, "utf-8") == 0
           || PyUnicode_CompareWithASCIIString(encoding, "utf8") == 0;
}

int
direct_input_take(PyObject *data, direct_input *in)
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

void
direct_input_release(direct_input *in)
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
form_arguments(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int *form, direct_input *in)
{
    Py_ssize_t given = PyVectorcall_NARGS(nargs);
    if (kwnames != NULL || direct_core.utf8_validate == NULL || given < 1 || given > 2)
        return 0;
    *form = UTFKIT_UTF8;
    if (given == 2 && !direct_names_utf8(args[1])) {
        if (fixed_forms == NULL || direct_core.form_validate == NULL || !PyUnicode_CheckExact(args[1]))
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
    return direct_input_take(args[0], in);
}

/* 1 if the input is well-formed in `form`. */
static int
input_valid(const direct_input *in, int form)
{
    int valid;
    if (form == UTFKIT_UTF8)
        CORE_CALL(in->length, valid = direct_core.utf8_validate(in->start, (size_t)in->length));
    else
        CORE_CALL(in->length, valid = direct_core.form_validate(in->start, (size_t)in->length, form));
    return valid;
}

/* 1 if the bytes object `data` is well-formed UTF-8. */
int
direct_utf8_bytes_valid(PyObject *data)
{
    direct_input in = {data, (const uint8_t *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), 0, {0}};
    return input_valid(&in, UTFKIT_UTF8);
}

PyObject *
direct_fallback(PyObject *function, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (function == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_utf8_entries() was not called");
        return NULL;
    }
    return PyObject_Vectorcall(function, args, nargs, kwnames);
}

PyObject *
direct_validate(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    direct_input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return direct_fallback(validate_fallback, args, nargs, kwnames);
    int valid = input_valid(&in, form);
    direct_input_release(&in);
    return PyBool_FromLong(valid);
}

PyObject *
direct_check(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    direct_input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return direct_fallback(check_fallback, args, nargs, kwnames);
    int valid = input_valid(&in, form);
    direct_input_release(&in);
    if (!valid)
        return direct_fallback(check_fallback, args, nargs, kwnames); /* it raises CPython's error */
    Py_RETURN_NONE;
}

PyObject *
direct_sanitize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    direct_input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return direct_fallback(sanitize_fallback, args, nargs, kwnames);
    PyObject *result = NULL;
    if (input_valid(&in, form)) {
        /* well-formed: a bytes object itself, as the binding returns it, else a copy */
        if (!in.exported) {
            Py_INCREF(in.object);
            result = in.object;
        } else {
            result = PyBytes_FromStringAndSize((const char *)in.start, in.length);
        }
        direct_input_release(&in);
        return result;
    }
    direct_input_release(&in);
    return direct_fallback(sanitize_fallback, args, nargs, kwnames); /* it repairs */
}

PyObject *
direct_count(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    direct_input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return direct_fallback(count_fallback, args, nargs, kwnames);
    size_t counted;
    if (form == UTFKIT_UTF8)
        CORE_CALL(in.length, counted = direct_core.utf8_count(in.start, (size_t)in.length));
    else
        CORE_CALL(in.length, counted = direct_core.form_count(in.start, (size_t)in.length, form));
    direct_input_release(&in);
    return PyLong_FromSize_t(counted);
}

PyObject *
direct_valid_up_to(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    int form;
    direct_input in;
    if (!form_arguments(args, nargs, kwnames, &form, &in))
        return direct_fallback(direct_valid_up_to_fallback, args, nargs, kwnames);
    int valid = input_valid(&in, form);
    direct_input_release(&in);
    if (!valid)
        return direct_fallback(direct_valid_up_to_fallback, args, nargs, kwnames); /* it finds the first error */
    return PyLong_FromSsize_t(in.length);
}
