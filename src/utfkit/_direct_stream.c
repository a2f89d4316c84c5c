/*
 * _direct_stream.c -- the hot paths of utfkit's stream objects: a chunk of
 * IncrementalTranscoder converted into a new `bytes`, and the C base types of
 * utfkit.IncrementalTranscoder, utfkit.IncrementalDecoder and utfkit.Validator.
 */
#include "_direct.h"

/* ---- utfkit.IncrementalTranscoder's conversion of a chunk ----
 *
 * IncrementalTranscoder.feed and finish convert each chunk with the C
 * stream (utfkit_stream_transcode) into a new `bytes`; through cffi that
 * took a scratch buffer, a call of eight arguments returning a struct and
 * a copy out, about 1.5 us a chunk.  stream_transcode_new does it here, into
 * a `bytes` object made without zero-filling and shrunk to what was
 * written. */

PyObject *
direct_set_stream_entry(PyObject *module, PyObject *address)
{
    (void)module;
    void *function = PyLong_AsVoidPtr(address);
    if (function == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "set_stream_entry(): a NULL address");
        return NULL;
    }
    direct_core.stream_transcode = (stream_transcode_fn)function;
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
PyObject *
direct_stream_transcode_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "stream_transcode_new() takes 6 arguments (%zd given)", nargs);
        return NULL;
    }
    if (direct_core.stream_transcode == NULL) {
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
    CORE_CALL(len, result = direct_core.stream_transcode(stream, src, (size_t)len, (int)numbers[0], (int)numbers[1],
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

/* ---- utfkit.IncrementalTranscoder's hot path ----
 *
 * utfkit.IncrementalTranscoder (stream.py) is a Python class on this base
 * type, as IncrementalDecoder is on DecoderBase.  The base answers feed() of
 * a chunk -- a `bytes` object or any other C-contiguous buffer -- once the
 * source's form is decided (no byte-order mark still being read) and the
 * target's mark, if it has one, written: the C stream converts the chunk
 * into a new `bytes`, as stream_transcode_new does for the class's other
 * calls.  A chunk with an error goes to the class's _failed with the core's
 * (status, position, subpart_length), which raises; every other call goes
 * to the class's _feed_slow, the reference. */

typedef struct {
    PyObject_HEAD
    PyObject *head;             /* _head: the bytes of a source mark not yet decided (None: decided) */
    unsigned long long address; /* _address: the C stream state (a utfkit_stream *) */
    int to_form;                /* _to_form: the target's utfkit_form */
    int mode;                   /* _mode: the error mode */
    Py_ssize_t unit;            /* _unit: bytes in a source code unit */
    Py_ssize_t per_unit;        /* _per_unit: the output's room per source code unit */
    char signed_;               /* _signed: the target's mark is written */
    PyObject *signature;        /* _signature: the target's mark (b"" when it has none) */
    PyObject *token;            /* _token: the class's Exclusive guard's token list, [True] when free */
} TranscoderBase;

static PyObject *feed_slow_name = NULL, *failed_name = NULL;

/* Bytes of an unfinished character the C stream may hold from an earlier
 * chunk, and so write with this one: twice its buffer, as stream.py's
 * _PENDING_ROOM (an encoded surrogate pair of CESU-8 read as two halves). */
#define PENDING_ROOM ((Py_ssize_t)(2 * sizeof(((utfkit_stream *)0)->pending)))

/* The class's own method `name`, called with these arguments. */
static PyObject *
call_method(PyObject *self, PyObject *name, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *method = PyObject_GetAttr(self, name);
    if (method == NULL)
        return NULL;
    PyObject *result = PyObject_Vectorcall(method, args, nargs, kwnames);
    Py_DECREF(method);
    return result;
}

/* The class's Exclusive guard (its token list, [True] when free), taken
 * while a call of `length` bytes may release the GIL (CORE_CALL), so that a
 * call from another thread meanwhile is refused, as the class's own path
 * refuses it: 1 taken, 0 not needed, -1 with an exception set. */
static int
guard_take(PyObject *token, Py_ssize_t length)
{
    if (length < KEEP_GIL_BELOW)
        return 0;
    return PyList_SetSlice(token, 0, 1, NULL) != 0 ? -1 : 1;
}

/* Gives back what guard_take took: 0, or -1 with an exception set. */
static int
guard_give(PyObject *token, int taken)
{
    return taken == 1 && PyList_Append(token, Py_True) != 0 ? -1 : 0;
}

/* 1 when feed() may be answered here: the source's form decided, the
 * target's mark written (or none), the state set, and no caller holding
 * the guard. */
static int
transcoder_direct(const TranscoderBase *self)
{
    return (self->head == NULL || self->head == Py_None)
           && (self->signed_ || (self->signature != NULL && PyBytes_CheckExact(self->signature)
                                 && PyBytes_GET_SIZE(self->signature) == 0))
           && self->address != 0 && self->unit > 0 && self->per_unit > 0 && direct_core.stream_transcode != NULL
           && self->token != NULL && PyList_CheckExact(self->token) && PyList_GET_SIZE(self->token) == 1;
}

static PyObject *
transcoder_feed(TranscoderBase *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    direct_input in;
    if (kwnames != NULL || PyVectorcall_NARGS(nargs) != 1 || !transcoder_direct(self) || !direct_input_take(args[0], &in))
        return call_method((PyObject *)self, feed_slow_name, args, nargs, kwnames);
    /* room for the output's worst case: at least what the class's _convert
     * computes (+3: a lead surrogate held back from the last WTF-8 output);
     * too large a chunk goes the class's way, which reports it */
    Py_ssize_t units = in.length / self->unit + (PENDING_ROOM + self->unit - 1) / self->unit + 1;
    if (units > (PY_SSIZE_T_MAX - 3 - ROOM_SLACK) / self->per_unit) {
        direct_input_release(&in);
        return call_method((PyObject *)self, feed_slow_name, args, nargs, kwnames);
    }
    Py_ssize_t capacity = units * self->per_unit + 3 + ROOM_SLACK;
    PyObject *output = PyBytes_FromStringAndSize(NULL, capacity);
    if (output == NULL) {
        direct_input_release(&in);
        return NULL;
    }
    int guarded = guard_take(self->token, in.length);
    if (guarded < 0) {
        Py_DECREF(output);
        direct_input_release(&in);
        return NULL;
    }
    utfkit_stream *stream = (utfkit_stream *)(uintptr_t)self->address;
    utfkit_result result;
    CORE_CALL(in.length, result = direct_core.stream_transcode(stream, in.start, (size_t)in.length, 0, self->to_form,
                                                              self->mode, (uint8_t *)PyBytes_AS_STRING(output),
                                                              (size_t)capacity));
    direct_input_release(&in);
    if (guard_give(self->token, guarded) < 0) {
        Py_DECREF(output);
        return NULL;
    }
    if (result.status != UTFKIT_OK) {
        Py_DECREF(output);
        PyObject *fields = Py_BuildValue("(inn)", (int)result.status, (Py_ssize_t)result.position,
                                         (Py_ssize_t)result.subpart_length);
        if (fields == NULL)
            return NULL;
        PyObject *failed_args[2] = {fields, args[0]};
        PyObject *raised = call_method((PyObject *)self, failed_name, failed_args, 2, NULL);
        Py_DECREF(fields);
        if (raised != NULL) { /* _failed always raises */
            Py_DECREF(raised);
            PyErr_SetString(PyExc_SystemError, "IncrementalTranscoder._failed() returned");
        }
        return NULL;
    }
    if ((Py_ssize_t)result.written != capacity && _PyBytes_Resize(&output, (Py_ssize_t)result.written) != 0)
        return NULL;
    return output;
}

static int
transcoder_traverse(TranscoderBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->head);
    Py_VISIT(self->signature);
    Py_VISIT(self->token);
    return 0;
}

static int
transcoder_clear(TranscoderBase *self)
{
    Py_CLEAR(self->head);
    Py_CLEAR(self->signature);
    Py_CLEAR(self->token);
    return 0;
}

static void
transcoder_dealloc(TranscoderBase *self)
{
    PyObject_GC_UnTrack(self);
    transcoder_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef transcoder_methods[] = {
    {"feed", (PyCFunction)(void (*)(void))transcoder_feed, METH_FASTCALL | METH_KEYWORDS,
     "feed($self, chunk, /)\n--\n\n"
     "Convert the next chunk (any bytes-like object); returns the output of what it settles."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef transcoder_members[] = {
    {"_head", T_OBJECT, offsetof(TranscoderBase, head), 0, "the bytes of a source mark not yet decided, or None"},
    {"_address", T_ULONGLONG, offsetof(TranscoderBase, address), 0, "the C stream state's address"},
    {"_to_form", T_INT, offsetof(TranscoderBase, to_form), 0, "the target's form"},
    {"_mode", T_INT, offsetof(TranscoderBase, mode), 0, "the error mode"},
    {"_unit", T_PYSSIZET, offsetof(TranscoderBase, unit), 0, "bytes in a source code unit"},
    {"_per_unit", T_PYSSIZET, offsetof(TranscoderBase, per_unit), 0, "the output's room per source code unit"},
    {"_signed", T_BOOL, offsetof(TranscoderBase, signed_), 0, "the target's mark is written"},
    {"_signature", T_OBJECT, offsetof(TranscoderBase, signature), 0, "the target's mark (b'' when none)"},
    {"_token", T_OBJECT, offsetof(TranscoderBase, token), 0, "the Exclusive guard's token list"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject TranscoderBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "utfkit._direct.TranscoderBase",
    .tp_doc = "utfkit.IncrementalTranscoder's base: feed() of a chunk once the marks are settled, answered in C; "
              "every other call goes to the class's _feed_slow.",
    .tp_basicsize = sizeof(TranscoderBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_traverse = (traverseproc)transcoder_traverse,
    .tp_clear = (inquiry)transcoder_clear,
    .tp_dealloc = (destructor)transcoder_dealloc,
    .tp_methods = transcoder_methods,
    .tp_members = transcoder_members,
};

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
          && direct_core.validate_lengths != NULL))
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
    Py_ssize_t held = final ? 0 : (Py_ssize_t)direct_core.incomplete_suffix_length(src, (size_t)len, UTFKIT_UTF8);
    int guarded = guard_take(self->token, len);
    if (guarded < 0) {
        Py_DECREF(data);
        return NULL;
    }
    PyObject *text = direct_decode_utf8(src, len - held);
    if (guard_give(self->token, guarded) < 0) {
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
slow:
    return call_method((PyObject *)self, decode_slow_name, args, nargs, kwnames);
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

static PyObject *reset_slow_name = NULL, *finish_slow_name = NULL; /* (and feed_slow_name, above) */

/* 1 when the stream is UTF-8 between characters and no caller holds its
 * guard: the calls below may then be answered here. */
static int
validator_direct(const ValidatorBase *self)
{
    return self->utf8_direct && self->state == BETWEEN_CHARACTERS && self->token != NULL
           && PyList_CheckExact(self->token) && PyList_GET_SIZE(self->token) == 1;
}

static PyObject *
validator_feed(ValidatorBase *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (kwnames == NULL && PyVectorcall_NARGS(nargs) == 1 && PyBytes_CheckExact(args[0]) && direct_core.utf8_validate != NULL
        && validator_direct(self)) {
        Py_ssize_t length = PyBytes_GET_SIZE(args[0]);
        int guarded = guard_take(self->token, length);
        if (guarded < 0)
            return NULL;
        int valid = direct_utf8_bytes_valid(args[0]);
        if (guard_give(self->token, guarded) < 0)
            return NULL;
        if (valid) {
            self->base += length;
            Py_RETURN_NONE;
        }
    }
    return call_method((PyObject *)self, feed_slow_name, args, nargs, kwnames);
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
    return call_method((PyObject *)self, reset_slow_name, NULL, 0, NULL);
}

static PyObject *
validator_finish(ValidatorBase *self, PyObject *unused)
{
    (void)unused;
    if (validator_direct(self)) { /* between characters: nothing is unfinished */
        self->state = FINISHED;
        Py_RETURN_NONE;
    }
    return call_method((PyObject *)self, finish_slow_name, NULL, 0, NULL);
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

int
direct_add_stream_types(PyObject *module)
{
    if (PyType_Ready(&ValidatorBaseType) != 0 || PyType_Ready(&DecoderBaseType) != 0
        || PyType_Ready(&TranscoderBaseType) != 0)
        return -1;
    PyObject **names[] = {&feed_slow_name, &reset_slow_name, &finish_slow_name, &decode_slow_name, &final_name,
                          &failed_name};
    const char *spellings[] = {"_feed_slow", "_reset_slow", "_finish_slow", "_decode_slow", "final", "_failed"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (*names[i] == NULL && (*names[i] = PyUnicode_InternFromString(spellings[i])) == NULL)
            return -1;
    if (PyModule_AddIntConstant(module, "BETWEEN_CHARACTERS", BETWEEN_CHARACTERS) != 0
        || PyModule_AddIntConstant(module, "IN_C", IN_C) != 0
        || PyModule_AddIntConstant(module, "FINISHED", FINISHED) != 0
        || PyModule_AddIntConstant(module, "FAILED", FAILED) != 0
        || PyModule_AddType(module, &ValidatorBaseType) != 0 || PyModule_AddType(module, &DecoderBaseType) != 0
        || PyModule_AddType(module, &TranscoderBaseType) != 0)
        return -1;
    return 0;
}
