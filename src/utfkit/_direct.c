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
 * _binding.py, _entries.py and stream.py).  This file is the module itself:
 * the table of its functions, its types and its constants; the functions
 * are in the files _direct.h lists, one job each.
 *
 * Built without Py_LIMITED_API: _PyBytes_Resize, the only way to shrink a
 * `bytes` in place, is not in the limited API.  The cffi module stays abi3.
 */
#include "_direct.h"

/* The core's entries (_direct.h), set by the set_* functions. */
direct_entries direct_core;

static PyMethodDef direct_methods[] = {
    {"set_transcoder", direct_set_transcoder, METH_O,
     "set_transcoder(address): the address of utfkit_transcode_packed, from the cffi module."},
    {"transcode_new", (PyCFunction)(void (*)(void))direct_transcode_new, METH_FASTCALL,
     "transcode_new(data, how, capacity[, prefix]) -> bytes | None"},
    {"transcode_into", (PyCFunction)(void (*)(void))direct_transcode_into, METH_FASTCALL,
     "transcode_into(data, how, out) -> int | None"},
    {"set_utf8_entries", (PyCFunction)(void (*)(void))direct_set_utf8_entries, METH_FASTCALL,
     "set_utf8_entries(validate_address, count_address, utf8_name, validate, check, count)"},
    {"set_stream_entry", direct_set_stream_entry, METH_O,
     "set_stream_entry(address): the address of utfkit_stream_transcode, from the cffi module."},
    {"stream_transcode_new", (PyCFunction)(void (*)(void))direct_stream_transcode_new, METH_FASTCALL,
     "stream_transcode_new(stream_address, chunk, final, to, errors, capacity) -> bytes | tuple | None"},
    {"set_length_entries", (PyCFunction)(void (*)(void))direct_set_length_entries, METH_FASTCALL,
     "set_length_entries(transcoded_length_address, valid_up_to, transcoded_length)"},
    {"valid_up_to", (PyCFunction)(void (*)(void))direct_valid_up_to, METH_FASTCALL | METH_KEYWORDS,
     "valid_up_to($module, /, data, encoding='utf-8')\n--\n\n"
     "Length in bytes of the longest well-formed prefix ending on a character boundary."},
    {"transcoded_length", (PyCFunction)(void (*)(void))direct_transcoded_length, METH_FASTCALL | METH_KEYWORDS,
     "transcoded_length($module, /, data, from_, to, errors='strict')\n--\n\n"
     "Exact length in bytes of ``transcode(data, from_, to, errors)``.\n\n"
     "Raises UnicodeDecodeError, as transcode does, for ill-formed input with\n"
     "``errors=\"strict\"``."},
    {"set_form_entries", (PyCFunction)(void (*)(void))direct_set_form_entries, METH_FASTCALL,
     "set_form_entries(validate_address, count_address, fixed_forms)"},
    {"set_cpython_codecs", (PyCFunction)(void (*)(void))direct_set_cpython_codecs, METH_FASTCALL,
     "set_cpython_codecs(decoders_by_spelling, names_by_spelling)"},
    {"set_text_entries", (PyCFunction)(void (*)(void))direct_set_text_entries, METH_FASTCALL,
     "set_text_entries(ascii_length_address, utf8_validate_lengths_address, incomplete_suffix_length_address, "
     "decode, encode)"},
    {"decode", (PyCFunction)(void (*)(void))direct_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($module, /, data, encoding='utf-8', errors='strict')\n--\n\n"
     "Identical to ``bytes(data).decode(encoding, errors)``, without the copy.\n\n"
     "UTF-8 ``bytes``, strict, are converted by the C core straight into the new\n"
     "``str``; every other call goes to CPython's codec (every error handler CPython\n"
     "accepts) or, for ``wtf-8``, ``cesu-8``, ``mutf-8``, ``utf-e-8`` and\n"
     "``utf-8-rfc2279``, to utfkit's decoders.  Errors are CPython's exactly."},
    {"encode", (PyCFunction)(void (*)(void))direct_encode, METH_FASTCALL | METH_KEYWORDS,
     "encode($module, /, text, encoding='utf-8', errors='strict')\n--\n\n"
     "Identical to ``text.encode(encoding, errors)``.\n\n"
     "UTF-8, strict, is converted by the C core from the ``str``'s own storage;\n"
     "lone surrogates follow `errors` exactly as CPython's encoders treat them, and\n"
     "``wtf-8``, ``cesu-8``, ``mutf-8`` write them as those forms do."},
    {"set_transcode_entry", (PyCFunction)(void (*)(void))direct_set_transcode_entry, METH_FASTCALL,
     "set_transcode_entry(plans, strict, transcode, one_pass_room)"},
    {"transcode", (PyCFunction)(void (*)(void))direct_transcode, METH_FASTCALL | METH_KEYWORDS,
     "transcode($module, /, data, from_, to, errors='strict', out=None)\n--\n\n"
     "Convert `data` from one encoding form to another, buffer to buffer.\n\n"
     "Equal to ``bytes(data).decode(from_, errors).encode(to)`` with no ``str`` in\n"
     "between.  `errors` is ``\"strict\"`` (raise UnicodeDecodeError with CPython's\n"
     "start, end and reason), ``\"replace\"`` (U+FFFD per maximal subpart of UTF-8, per\n"
     "unpaired surrogate or invalid unit of UTF-16/UTF-32) or ``\"ignore\"``.\n\n"
     "Returns ``bytes``; or, with `out` (any writable buffer), writes there and returns\n"
     "the number of bytes written, raising ValueError if `out` is too small or overlaps\n"
     "`data` -- nothing is ever written past its end."},
    {"validate", (PyCFunction)(void (*)(void))direct_validate, METH_FASTCALL | METH_KEYWORDS,
     "validate($module, /, data, encoding='utf-8')\n--\n\n"
     "True if `data` is well-formed in `encoding` (UTF-8: Unicode 3.9 Table 3-7 exactly)."},
    {"check", (PyCFunction)(void (*)(void))direct_check, METH_FASTCALL | METH_KEYWORDS,
     "check($module, /, data, encoding='utf-8')\n--\n\n"
     "Raise UnicodeDecodeError at the first ill-formed subsequence of `data`.\n\n"
     "``start``, ``end`` and ``reason`` are those of ``bytes(data).decode(encoding)``;\n"
     "for UTF-8, ``end - start`` is the length of the maximal subpart (Unicode 3.9, D93b)."},
    {"count", (PyCFunction)(void (*)(void))direct_count, METH_FASTCALL | METH_KEYWORDS,
     "count($module, /, data, encoding='utf-8')\n--\n\n"
     "Number of code points ``decode(data, encoding, errors=\"replace\")`` yields."},
    {"sanitize", (PyCFunction)(void (*)(void))direct_sanitize, METH_FASTCALL | METH_KEYWORDS,
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
    "validate, check, count and sanitize, decode and encode, and the stream objects' base types.",
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
    PyObject *module = PyModule_Create(&direct_module);
    if (module == NULL)
        return NULL;
    if (PyModule_AddIntConstant(module, "ROOM_SLACK", ROOM_SLACK) != 0 || direct_add_stream_types(module) != 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
