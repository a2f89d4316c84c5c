/*
 * test_transcode.c -- checks the form-generic C API (utfkit_transcode,
 * utfkit_transcoded_length, utfkit_well_formed_length, utfkit_check,
 * utfkit_validate, utfkit_count)
 * for every (from, to) pair of the five encoding forms and every errors mode
 * against a reference decoder and encoder written here, independently of
 * csrc/ and as plainly as possible.
 *
 * A standalone C program: no Python.  Built and run by `make ctest`,
 * `make ctest-asan` and tests/test_c_core.py (with --quick).
 *
 * The reference decodes the source into a list of code points the way
 * CPython's codecs do (bytes(src).decode(from, errors)):
 *   - UTF-8 (Unicode 3.9, D92, Table 3-7): an ill-formed subsequence is the
 *     maximal subpart (D93b) -- the longest prefix of a Table 3-7 row found
 *     at the offset, at least one byte -- with CPython's reasons: a byte that
 *     begins no row is INVALID_START, a row broken by a byte outside its range
 *     INVALID_CONTINUATION, a row cut by the end of input END_OF_DATA;
 *   - UTF-16 (D91, Table 3-5): a trail surrogate alone, or a lead surrogate
 *     followed by a code unit that is not a trail surrogate, is a 2-byte
 *     SURROGATE error (the next unit is read again); a lead surrogate cut by
 *     the end of input is END_OF_DATA up to the end; a final odd byte is a
 *     1-byte END_OF_DATA;
 *   - UTF-32 (D90): a surrogate unit is a 4-byte SURROGATE error, a unit
 *     above 10FFFF a 4-byte TOO_LARGE error, a partial final unit
 *     END_OF_DATA up to the end;
 * and then: replace -> one U+FFFD per ill-formed subsequence, ignore ->
 * nothing, strict -> stop at the first, whose status, position and subpart
 * length the API must report (written = the bytes the well-formed prefix
 * converts to).  The code points are then encoded in the destination form
 * (Table 3-6, Table 3-5, D90).
 *
 * For every input, every backend checked, every `to` and every errors mode:
 *   - utfkit_transcoded_length: status, position, subpart, written;
 *   - utfkit_well_formed_length (errors = strict only): exact for
 *     well-formed input; for the rest only called, for the sanitizers;
 *   - utfkit_transcode with cap = needed (status OK, written exact, output
 *     identical), needed+1 and needed+13 (nothing written after the
 *     output), and every cap in 0..min(needed, 40) and needed-40..needed-1
 *     (status OUTPUT_TOO_SMALL, written = needed, and dst[0..cap) a prefix
 *     of the output: the bytes written are the output's first bytes and the
 *     rest of dst[0..cap) is untouched -- utfkit.h says "what fit may be
 *     written", and the summary line reports how much was).  A strict error
 *     takes precedence over a small cap: its status, position and subpart
 *     length whatever cap is, written = the length of the prefix's output.
 *     Each cap is tried in a buffer whose bytes after cap are guard bytes
 *     checked afterwards; in a build with AddressSanitizer (`make
 *     ctest-asan`) also in a heap block of exactly cap bytes, so that any
 *     write at dst[cap] or beyond is reported; cap 0 also with dst NULL;
 * and once per input and backend utfkit_check (status, position, subpart,
 * written 0), utfkit_validate and utfkit_count.  src is always a heap block
 * of exactly len bytes, so an over-read is caught by AddressSanitizer.
 * Long outputs outside the full sweep (section 4 between every 16th
 * offset, section 6, and half the long random texts with --quick) get a
 * lighter one: 0..3, 5, needed/3+1, needed/2, needed-33, needed-4..needed+1,
 * needed+13.
 *
 * Section 0 first checks the reference itself against answers known from
 * CPython and the examples of section 3.9, and on every scalar value.  Then:
 *   1. UTF-8: every 1- and 2-byte sequence; every 3-byte sequence of Table
 *      3-7's boundary bytes, and every 4-byte one that starts F0..F4;
 *   2. UTF-16LE/BE: every 1-byte input; every code unit alone, followed by
 *      an odd byte / A / a lead / a trail surrogate, and after D800 / DBFF;
 *   3. UTF-32LE/BE: every 1- and 2-byte input, every unit 0000xxxx,
 *      xxxx0000 and xxxxFFFF, every pair of boundary units, and each
 *      boundary unit followed by a partial unit;
 *   4. each form: ASCII text, and text of 3-byte BMP characters, with a
 *      character, a lone surrogate, an invalid unit or a truncated sequence
 *      at every offset 0..131 (block boundaries of the fast paths for runs
 *      of ASCII or BMP units), and the text cut one byte after every
 *      character;
 *   5. each form: fixed-seed structured random texts (characters of every
 *      plane, ASCII runs; up to 500 characters) then mutated: bytes deleted
 *      / inserted / replaced, lone surrogates, out-of-range units, truncated
 *      sequences, byte-swapped units, odd lengths;
 *   6. each form: 8192-character texts of each UTF-8 length, clean, cut by
 *      one byte, and with an error near the start, the middle and the end.
 *
 * Backends: every one utfkit_backend_available reports (scalar, sse2, avx2,
 * avx512).  In the default (thorough) mode every input of sections 4-6 and
 * every input of up to one byte runs under every backend; the exhaustive
 * inputs of 2 to 8 bytes in sections 1-3 -- about 1.6 million, too short
 * for any block-wide path -- run each under one backend, in rotation.
 * --quick (tests/test_c_core.py, a few seconds) runs every input under one
 * backend in rotation (so each backend still sees every section), samples
 * the exhaustive sections (by a hash of the index; every surrogate unit and
 * every UTF-8 pair after C0..FF are kept), puts one piece in 3 at each
 * offset of section 4, makes 800 random texts per form instead of 2000 and
 * 4096-character texts in section 6.
 *
 * Exit status 0 when everything holds; 1 after printing each failing input
 * (bytes in hex), from, to, errors, backend, cap and expected versus got;
 * 2 on a usage error or when memory runs out.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "utfkit.h"

/* 1 when built with AddressSanitizer: then every capacity is also tried
 * with dst a heap block of exactly cap bytes. */
#if defined(__SANITIZE_ADDRESS__)
#define EXACT_BLOCK_CALLS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXACT_BLOCK_CALLS 1
#endif
#endif
#ifndef EXACT_BLOCK_CALLS
#define EXACT_BLOCK_CALLS 0
#endif

#define FORMS 5
#define ERROR_MODES 3

static const char *const form_names[FORMS] = {"UTF-8", "UTF-16LE", "UTF-16BE", "UTF-32LE",
                                               "UTF-32BE"};
static const char *const errors_names[ERROR_MODES] = {"strict", "replace", "ignore"};

static size_t code_unit_size(int form)
{
    return form == UTFKIT_UTF8 ? 1 : form <= UTFKIT_UTF16BE ? 2 : 4;
}

static int is_big_endian(int form)
{
    return form == UTFKIT_UTF16BE || form == UTFKIT_UTF32BE;
}

static void out_of_memory(void)
{
    fprintf(stderr, "FATAL out of memory\n");
    exit(2);
}

static void *checked_malloc(size_t size)
{
    void *block = malloc(size);
    if (block == NULL && size != 0)
        out_of_memory();
    return block;
}

/* ------------------------------------------------------------------------
 * Growable arrays of bytes and of code points.
 * ------------------------------------------------------------------------ */

typedef struct byte_string {
    uint8_t *bytes;
    size_t length, capacity;
} byte_string;

static void bytes_reserve(byte_string *s, size_t extra)
{
    if (s->capacity - s->length >= extra)
        return;
    size_t capacity = s->capacity ? s->capacity : 64;
    while (capacity - s->length < extra)
        capacity *= 2;
    uint8_t *grown = realloc(s->bytes, capacity);
    if (grown == NULL)
        out_of_memory();
    s->bytes = grown;
    s->capacity = capacity;
}

static void bytes_append(byte_string *s, const uint8_t *bytes, size_t n)
{
    bytes_reserve(s, n);
    if (n)
        memcpy(s->bytes + s->length, bytes, n);
    s->length += n;
}

/* Inserts n bytes at offset `at` (<= length). */
static void bytes_insert(byte_string *s, size_t at, const uint8_t *bytes, size_t n)
{
    bytes_reserve(s, n);
    memmove(s->bytes + at + n, s->bytes + at, s->length - at);
    memcpy(s->bytes + at, bytes, n);
    s->length += n;
}

static void bytes_erase(byte_string *s, size_t at, size_t n)
{
    memmove(s->bytes + at, s->bytes + at + n, s->length - at - n);
    s->length -= n;
}

typedef struct code_points {
    uint32_t *values;
    size_t length, capacity;
} code_points;

static void code_points_push(code_points *c, uint32_t value)
{
    if (c->length == c->capacity) {
        size_t capacity = c->capacity ? 2 * c->capacity : 64;
        uint32_t *grown = realloc(c->values, capacity * sizeof *grown);
        if (grown == NULL)
            out_of_memory();
        c->values = grown;
        c->capacity = capacity;
    }
    c->values[c->length++] = value;
}

/* ------------------------------------------------------------------------
 * Reference encoders.
 * ------------------------------------------------------------------------ */

/* The bit distribution of Table 3-6 for any value below 0x110000, including
 * surrogate code points (used to build ill-formed UTF-8 such as ED A0 80). */
static size_t utf8_bit_distribution(uint32_t value, uint8_t out[4])
{
    if (value < 0x80) {
        out[0] = (uint8_t)value;
        return 1;
    }
    if (value < 0x800) {
        out[0] = (uint8_t)(0xC0 | value >> 6);
        out[1] = (uint8_t)(0x80 | (value & 0x3F));
        return 2;
    }
    if (value < 0x10000) {
        out[0] = (uint8_t)(0xE0 | value >> 12);
        out[1] = (uint8_t)(0x80 | (value >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (value & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | value >> 18);
    out[1] = (uint8_t)(0x80 | (value >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (value >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (value & 0x3F));
    return 4;
}

/* One 16-bit code unit (any value) in the byte order of `form`. */
static size_t store_unit16(int form, uint32_t unit, uint8_t out[2])
{
    if (is_big_endian(form)) {
        out[0] = (uint8_t)(unit >> 8);
        out[1] = (uint8_t)unit;
    } else {
        out[0] = (uint8_t)unit;
        out[1] = (uint8_t)(unit >> 8);
    }
    return 2;
}

/* One 32-bit code unit (any value) in the byte order of `form`. */
static size_t store_unit32(int form, uint32_t unit, uint8_t out[4])
{
    for (int k = 0; k < 4; ++k) {
        int shift = is_big_endian(form) ? 24 - 8 * k : 8 * k;
        out[k] = (uint8_t)(unit >> shift);
    }
    return 4;
}

/* A Unicode scalar value in any form: Table 3-6, Table 3-5, D90. */
static size_t encode_scalar(int form, uint32_t scalar, uint8_t out[4])
{
    switch (form) {
    case UTFKIT_UTF8:
        return utf8_bit_distribution(scalar, out);
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE:
        if (scalar < 0x10000)
            return store_unit16(form, scalar, out);
        store_unit16(form, 0xD800 + ((scalar - 0x10000) >> 10), out);
        store_unit16(form, 0xDC00 + ((scalar - 0x10000) & 0x3FF), out + 2);
        return 4;
    default:
        return store_unit32(form, scalar, out);
    }
}

static void encode_all(int form, const code_points *c, byte_string *out)
{
    out->length = 0;
    for (size_t i = 0; i < c->length; ++i) {
        uint8_t unit[4];
        bytes_append(out, unit, encode_scalar(form, c->values[i], unit));
    }
}

/* ------------------------------------------------------------------------
 * Reference decoder (CPython's rules, see the top of the file).
 * ------------------------------------------------------------------------ */

typedef struct reference_error {
    int status;           /* UTFKIT_OK when the input is well-formed */
    size_t position;      /* len when OK */
    size_t subpart_length;
} reference_error;

/* Reads at src[at..len), at < len: returns 1 with the scalar value and its
 * length in bytes, or 0 with the status and length of the ill-formed
 * subsequence found there. */
static int reference_step(const uint8_t *src, size_t len, size_t at, int form,
                          uint32_t *scalar, size_t *length, int *status)
{
    size_t left = len - at;
    if (form == UTFKIT_UTF8) {
        uint8_t lead_byte = src[at];
        if (lead_byte < 0x80) {
            *scalar = lead_byte;
            *length = 1;
            return 1;
        }
        /* Table 3-7: the row a lead byte starts, and its second byte's range;
         * third and fourth bytes are always 80..BF. */
        size_t row_length;
        uint8_t second_lo = 0x80, second_hi = 0xBF;
        if (lead_byte >= 0xC2 && lead_byte <= 0xDF) {
            row_length = 2;
        } else if (lead_byte == 0xE0) {
            row_length = 3;
            second_lo = 0xA0;
        } else if ((lead_byte >= 0xE1 && lead_byte <= 0xEC) || lead_byte == 0xEE ||
                   lead_byte == 0xEF) {
            row_length = 3;
        } else if (lead_byte == 0xED) {
            row_length = 3;
            second_hi = 0x9F;
        } else if (lead_byte == 0xF0) {
            row_length = 4;
            second_lo = 0x90;
        } else if (lead_byte >= 0xF1 && lead_byte <= 0xF3) {
            row_length = 4;
        } else if (lead_byte == 0xF4) {
            row_length = 4;
            second_hi = 0x8F;
        } else { /* 80..BF, C0, C1, F5..FF */
            *status = UTFKIT_INVALID_START;
            *length = 1;
            return 0;
        }
        uint32_t value = lead_byte & (row_length == 2 ? 0x1Fu : row_length == 3 ? 0x0Fu : 0x07u);
        for (size_t k = 1; k < row_length; ++k) {
            if (k >= left) {
                *status = UTFKIT_END_OF_DATA;
                *length = k;
                return 0;
            }
            uint8_t byte = src[at + k];
            uint8_t lo = k == 1 ? second_lo : 0x80, hi = k == 1 ? second_hi : 0xBF;
            if (byte < lo || byte > hi) {
                *status = UTFKIT_INVALID_CONTINUATION;
                *length = k;
                return 0;
            }
            value = value << 6 | (byte & 0x3Fu);
        }
        *scalar = value;
        *length = row_length;
        return 1;
    }
    if (form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) {
        int big = is_big_endian(form);
        if (left < 2) { /* a final odd byte: "truncated data" */
            *status = UTFKIT_END_OF_DATA;
            *length = left;
            return 0;
        }
        uint32_t unit = big ? (uint32_t)src[at] << 8 | src[at + 1]
                            : (uint32_t)src[at + 1] << 8 | src[at];
        if (unit < 0xD800 || unit > 0xDFFF) {
            *scalar = unit;
            *length = 2;
            return 1;
        }
        if (unit >= 0xDC00) { /* a trail surrogate alone: "illegal encoding" */
            *status = UTFKIT_SURROGATE;
            *length = 2;
            return 0;
        }
        if (left < 4) { /* a lead surrogate cut by the end: "unexpected end of data" */
            *status = UTFKIT_END_OF_DATA;
            *length = left;
            return 0;
        }
        uint32_t next = big ? (uint32_t)src[at + 2] << 8 | src[at + 3]
                            : (uint32_t)src[at + 3] << 8 | src[at + 2];
        if (next < 0xDC00 || next > 0xDFFF) { /* "illegal UTF-16 surrogate" */
            *status = UTFKIT_SURROGATE;
            *length = 2;
            return 0;
        }
        *scalar = 0x10000 + ((unit - 0xD800) << 10) + (next - 0xDC00);
        *length = 4;
        return 1;
    }
    /* UTF-32 */
    if (left < 4) { /* "truncated data" */
        *status = UTFKIT_END_OF_DATA;
        *length = left;
        return 0;
    }
    uint32_t unit = 0;
    for (size_t k = 0; k < 4; ++k)
        unit |= (uint32_t)src[at + k] << (is_big_endian(form) ? 24 - 8 * k : 8 * k);
    if (unit >= 0xD800 && unit <= 0xDFFF) {
        *status = UTFKIT_SURROGATE;
        *length = 4;
        return 0;
    }
    if (unit > 0x10FFFF) {
        *status = UTFKIT_TOO_LARGE;
        *length = 4;
        return 0;
    }
    *scalar = unit;
    *length = 4;
    return 1;
}

/* bytes(src).decode(form, errors) as a list of code points; *first gets the
 * first ill-formed subsequence (status OK, position len if there is none).
 * With errors = STRICT the list stops before it. */
static void reference_decode(const uint8_t *src, size_t len, int form, int errors,
                             code_points *out, reference_error *first)
{
    out->length = 0;
    first->status = UTFKIT_OK;
    first->position = len;
    first->subpart_length = 0;
    size_t at = 0;
    while (at < len) {
        uint32_t scalar = 0;
        size_t length = 0;
        int status = UTFKIT_OK;
        if (reference_step(src, len, at, form, &scalar, &length, &status)) {
            code_points_push(out, scalar);
        } else {
            if (first->status == UTFKIT_OK) {
                first->status = status;
                first->position = at;
                first->subpart_length = length;
            }
            if (errors == UTFKIT_STRICT)
                return;
            if (errors == UTFKIT_REPLACE)
                code_points_push(out, 0xFFFD);
        }
        at += length;
    }
}

/* ------------------------------------------------------------------------
 * Failure reporting.
 * ------------------------------------------------------------------------ */

#define MAX_REPORTED_FAILURES 30

static unsigned long failures;
static const char *current_backend = "(none)";
static const char *current_section = "";

static const char *status_name(int status)
{
    switch (status) {
    case UTFKIT_OK: return "OK";
    case UTFKIT_INVALID_START: return "INVALID_START";
    case UTFKIT_INVALID_CONTINUATION: return "INVALID_CONTINUATION";
    case UTFKIT_END_OF_DATA: return "END_OF_DATA";
    case UTFKIT_SURROGATE: return "SURROGATE";
    case UTFKIT_TOO_LARGE: return "TOO_LARGE";
    case UTFKIT_OUTPUT_TOO_SMALL: return "OUTPUT_TOO_SMALL";
    default: return "(unknown status)";
    }
}

static void print_hex(FILE *stream, const uint8_t *bytes, size_t from, size_t to)
{
    for (size_t i = from; i < to; ++i)
        fprintf(stream, i == from ? "%02X" : " %02X", bytes[i]);
}

/* bytes[0..n) in hex: all of it when short, else its start and a window
 * around `focus`. */
static void print_window(FILE *stream, const uint8_t *bytes, size_t n, size_t focus)
{
    if (n <= 64) {
        print_hex(stream, bytes, 0, n);
        return;
    }
    size_t from = focus > 24 ? focus - 24 : 0;
    size_t to = focus + 24 < n ? focus + 24 : n;
    if (from <= 16) {
        print_hex(stream, bytes, 0, to);
    } else {
        print_hex(stream, bytes, 0, 8);
        fprintf(stream, " ... [%zu] ", from);
        print_hex(stream, bytes, from, to);
    }
    if (to < n)
        fprintf(stream, " ... (%zu bytes in all)", n);
}

/* What is being checked, for the failure message. */
typedef struct case_context {
    const uint8_t *src;
    size_t len;
    int from, to, errors; /* to, errors < 0: not part of this check */
    size_t focus;         /* offset of the input to show when it is long */
    const char *call;     /* the function called */
    const char *buffer;   /* NULL, or the kind of dst buffer given to transcode */
    size_t cap, needed;   /* when buffer is not NULL */
} case_context;

static void fail(const case_context *c, const char *format, ...)
{
    ++failures;
    if (failures > MAX_REPORTED_FAILURES) {
        if (failures == MAX_REPORTED_FAILURES + 1)
            fprintf(stderr, "FAIL ... (further failures are counted, not shown)\n");
        return;
    }
    fprintf(stderr, "FAIL [%s] backend %s, from %s", current_section, current_backend,
            c->from >= 0 ? form_names[c->from] : "-");
    if (c->to >= 0)
        fprintf(stderr, ", to %s", form_names[c->to]);
    if (c->errors >= 0)
        fprintf(stderr, ", errors %s", errors_names[c->errors]);
    fprintf(stderr, "\n  input (%zu bytes): <", c->len);
    print_window(stderr, c->src, c->len, c->focus);
    fprintf(stderr, ">\n  %s", c->call);
    if (c->buffer)
        fprintf(stderr, " with cap %zu (needed %zu), dst %s", c->cap, c->needed, c->buffer);
    fprintf(stderr, ": ");
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n");
}

/* The case being checked, for a crash report: a library call that writes
 * through a NULL dst (as transcoded_length's sink has) or far out of bounds
 * ends the program, and the report says which input did it. */
static const case_context *current_case;

#if !EXACT_BLOCK_CALLS
static void report_crash(int signal_number)
{
    fprintf(stderr, "\nCRASH (signal %d) in a library call; the case being checked:\n",
            signal_number);
    if (current_case)
        fail(current_case, "the program crashed here");
    _exit(1);
}
#endif

/* Not under AddressSanitizer, which reports crashes itself, better. */
static void install_crash_report(void)
{
#if !EXACT_BLOCK_CALLS
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = report_crash;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, NULL);
    sigaction(SIGBUS, &action, NULL);
    sigaction(SIGFPE, &action, NULL);
#endif
}

/* "expected <...> got <...>" for two outputs that differ at byte `at`. */
static void fail_output(const case_context *c, const uint8_t *expected,
                        size_t expected_length, const uint8_t *got, size_t got_length, size_t at)
{
    char expected_text[160] = "", got_text[160] = "";
    size_t from = at > 12 ? at - 12 : 0, to = from + 28;
    size_t used = 0;
    for (size_t i = from; i < expected_length && i < to; ++i)
        used += (size_t)snprintf(expected_text + used, sizeof expected_text - used,
                                 i == from ? "%02X" : " %02X", expected[i]);
    used = 0;
    for (size_t i = from; i < got_length && i < to; ++i)
        used += (size_t)snprintf(got_text + used, sizeof got_text - used,
                                 i == from ? "%02X" : " %02X", got[i]);
    fail(c, "output differs at byte %zu; from byte %zu: expected <%s%s> got <%s%s>", at, from,
         expected_text, expected_length > to ? " ..." : "", got_text,
         got_length > to ? " ..." : "");
}

/* ------------------------------------------------------------------------
 * Backends.
 * ------------------------------------------------------------------------ */

/* At least as many kernels as utfkit_backend_name lists. */
#define MAX_BACKENDS 32
static const char *available_backends[MAX_BACKENDS];
static size_t available_backend_count;

static void use_backend(const char *name)
{
    int rc = utfkit_set_backend(name);
    if (rc != 0) {
        fprintf(stderr, "FATAL utfkit_set_backend(\"%s\") returned %d although "
                        "utfkit_backend_available said 1\n", name, rc);
        exit(2);
    }
    current_backend = name;
}

static void find_backends(void)
{
    for (size_t b = 0; utfkit_backend_name(b) != NULL && available_backend_count < MAX_BACKENDS; ++b)
        if (utfkit_backend_available(utfkit_backend_name(b)) == 1)
            available_backends[available_backend_count++] = utfkit_backend_name(b);
    if (available_backend_count == 0 || strcmp(available_backends[0], "scalar") != 0) {
        fprintf(stderr, "FATAL utfkit_backend_available(\"scalar\") is not 1\n");
        exit(2);
    }
}

/* ------------------------------------------------------------------------
 * Run-wide settings and counters.
 * ------------------------------------------------------------------------ */

static int quick_mode;
static unsigned long long inputs_checked, calls_made, too_small_calls, too_small_filled;
static size_t largest_unfilled_tail; /* max of cap - bytes written, when too small */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------------
 * Destination buffers.
 * ------------------------------------------------------------------------ */

#define GUARD_BYTES 32

#define EXACT_CACHED 128 /* heap blocks of exactly 1..EXACT_CACHED bytes, kept */

static uint8_t *exact_blocks[EXACT_CACHED + 1];
static byte_string guarded; /* cap + GUARD_BYTES bytes for the guard check */

/* The byte dst[i] is filled with before a call: varies with i so that a
 * byte written in the wrong place is unlikely to look untouched.  It
 * depends on i mod 256 only, so fill_pattern (grown on demand) holds it. */
static uint8_t fill_byte(size_t i)
{
    return (uint8_t)(0xA5 ^ (i * 0x3B));
}

static byte_string fill_pattern;

static void fill_pattern_reserve(size_t n)
{
    while (fill_pattern.length < n) {
        uint8_t b = fill_byte(fill_pattern.length);
        bytes_append(&fill_pattern, &b, 1);
    }
}

static void fill(uint8_t *dst, size_t from, size_t to)
{
    fill_pattern_reserve(to);
    if (to > from)
        memcpy(dst + from, fill_pattern.bytes + from, to - from);
}

/* Index of the first byte of dst[from..to) that is not the fill, or to. */
static size_t first_touched(const uint8_t *dst, size_t from, size_t to)
{
    fill_pattern_reserve(to);
    if (to <= from || memcmp(dst + from, fill_pattern.bytes + from, to - from) == 0)
        return to;
    for (size_t i = from; i < to; ++i)
        if (dst[i] != fill_byte(i))
            return i;
    return to;
}

/* ------------------------------------------------------------------------
 * Checks of one conversion.
 * ------------------------------------------------------------------------ */

static void expect_result(const case_context *c, utfkit_result want,
                          utfkit_result got, int check_position)
{
    if (got.status != want.status || got.written != want.written ||
        (check_position &&
         (got.position != want.position || got.subpart_length != want.subpart_length)))
        fail(c, "expected status %s position %zu subpart_length %zu written %zu, "
                "got status %s position %zu subpart_length %zu written %zu",
             status_name(want.status), want.position, want.subpart_length, want.written,
             status_name(got.status), got.position, got.subpart_length, got.written);
}

/* dst[0..cap) after a call whose whole output is expected[0..expected_length)
 * (for a strict error: what the well-formed prefix converts to).  When it
 * all fits, it is there and nothing follows it; when it does not, the bytes
 * written are the output's first bytes and the rest is untouched. */
static void expect_contents(const case_context *c, size_t cap,
                            const uint8_t *dst, const uint8_t *expected, size_t expected_length)
{
    size_t fits = cap < expected_length ? cap : expected_length;
    size_t same = 0;
    while (same < fits && dst[same] == expected[same])
        ++same;
    if (cap >= expected_length) {
        if (same < expected_length) {
            fail_output(c, expected, expected_length, dst, cap, same);
            return;
        }
    }
    size_t touched = first_touched(dst, same, cap);
    if (touched < cap) {
        if (cap >= expected_length)
            fail(c, "dst[%zu] = %02X was written, after the whole output (%zu bytes), "
                    "within cap %zu", touched, dst[touched], expected_length, cap);
        else
            fail(c, "dst[0..cap = %zu) is not a prefix of the output followed by untouched "
                    "bytes: dst[%zu] = %02X (expected output byte %02X, or %02X untouched); "
                    "the first %zu bytes match", cap, touched, dst[touched],
                 expected[touched], fill_byte(touched), same);
        return;
    }
    if (cap < expected_length) {
        ++too_small_calls;
        if (same == cap)
            ++too_small_filled;
        if (cap - same > largest_unfilled_tail)
            largest_unfilled_tail = cap - same;
    }
}

/* utfkit_transcode with one capacity; `want` is the result with enough
 * room and expected[0..want.written) the output.  First into a buffer whose
 * bytes after cap are guard bytes, checked afterwards; then, in builds with
 * AddressSanitizer, into a heap block of exactly cap bytes, so that a write
 * at dst[cap] or beyond is reported however far it goes (without a
 * sanitizer that call would find nothing the guarded one does not); and
 * with cap 0, into dst NULL. */
static void expect_transcode_with_cap(case_context *c, size_t cap, utfkit_result want,
                                      const uint8_t *expected)
{
    size_t needed = want.written;
    utfkit_result want_here = want;
    if (want.status == UTFKIT_OK && cap < needed)
        want_here.status = UTFKIT_OUTPUT_TOO_SMALL;
    /* The position of an OUTPUT_TOO_SMALL result is not part of the contract. */
    int check_position = want_here.status != UTFKIT_OUTPUT_TOO_SMALL;
    c->cap = cap;
    c->needed = needed;

    c->buffer = "followed by guard bytes";
    guarded.length = 0;
    bytes_reserve(&guarded, cap + GUARD_BYTES);
    fill(guarded.bytes, 0, cap + GUARD_BYTES);
    utfkit_result got = utfkit_transcode(c->src, c->len, c->from, c->to, c->errors,
                                         guarded.bytes, cap);
    ++calls_made;
    expect_result(c, want_here, got, check_position);
    size_t touched = first_touched(guarded.bytes, cap, cap + GUARD_BYTES);
    if (touched < cap + GUARD_BYTES)
        fail(c, "wrote dst[%zu] = %02X, at or past cap", touched, guarded.bytes[touched]);
    expect_contents(c, cap, guarded.bytes, expected, needed);

    if (EXACT_BLOCK_CALLS || cap == 0) {
        c->buffer = cap ? "a heap block of exactly cap bytes" : "NULL";
        uint8_t *exact = cap == 0             ? NULL
                         : cap <= EXACT_CACHED ? exact_blocks[cap]
                                               : checked_malloc(cap);
        fill(exact, 0, cap);
        got = utfkit_transcode(c->src, c->len, c->from, c->to, c->errors, exact, cap);
        ++calls_made;
        expect_result(c, want_here, got, check_position);
        if (cap) {
            expect_contents(c, cap, exact, expected, needed);
            if (memcmp(guarded.bytes, exact, cap) != 0)
                fail(c, "dst[0..cap) differs from what the call into a guarded buffer wrote");
        }
        if (cap > EXACT_CACHED)
            free(exact);
    }
    c->buffer = NULL;
}

typedef enum cap_sweep { CAPS_LIGHT, CAPS_FULL } cap_sweep;

/* The capacities tried for an output of `needed` bytes, sorted, unique:
 * FULL is 0..min(needed, 40), needed-40..needed, needed+1 and needed+13;
 * LIGHT a few small ones, needed/3, needed/2, needed-33, needed-4..needed,
 * needed+1 and needed+13. */
static size_t capacities(size_t needed, cap_sweep sweep, size_t *caps)
{
    size_t n = 0;
    if (sweep == CAPS_FULL) {
        for (size_t cap = 0; cap <= needed && cap <= 40; ++cap)
            caps[n++] = cap;
        for (size_t cap = needed > 40 ? needed - 40 : 0; cap <= needed; ++cap)
            caps[n++] = cap;
    } else {
        const size_t candidates[] = {0, 1, 2, 3, 5, needed / 3 + 1, needed / 2,
                                     needed > 33 ? needed - 33 : 0, needed > 4 ? needed - 4 : 0,
                                     needed > 3 ? needed - 3 : 0, needed > 2 ? needed - 2 : 0,
                                     needed > 1 ? needed - 1 : 0, needed};
        for (size_t k = 0; k < sizeof candidates / sizeof candidates[0]; ++k)
            if (candidates[k] <= needed)
                caps[n++] = candidates[k];
    }
    caps[n++] = needed + 1;
    caps[n++] = needed + 13;
    for (size_t k = 1; k < n; ++k) { /* insertion sort: n < 100, nearly sorted */
        size_t value = caps[k], j = k;
        for (; j > 0 && caps[j - 1] > value; --j)
            caps[j] = caps[j - 1];
        caps[j] = value;
    }
    size_t unique = 0;
    for (size_t k = 0; k < n; ++k)
        if (unique == 0 || caps[unique - 1] != caps[k])
            caps[unique++] = caps[k];
    return unique;
}

/* ------------------------------------------------------------------------
 * Checks of one input.
 * ------------------------------------------------------------------------ */

typedef struct expectation {
    byte_string output[FORMS][ERROR_MODES]; /* expected bytes per (to, errors) */
    code_points decoded;
    reference_error first;
    size_t replaced_count; /* code points with errors = REPLACE */
} expectation;

static expectation expected;
static size_t backend_rotation;

#define ALL_BACKENDS 0
#define ONE_BACKEND 1

/* Checks every API on input[0..len) read as `from`.  In quick mode, or with
 * ONE_BACKEND, under one backend (in rotation), else under all. */
static void check_input(const uint8_t *input, size_t len, int from, cap_sweep sweep,
                        int backends)
{
    uint8_t *src = checked_malloc(len); /* ends exactly at src + len */
    if (len)
        memcpy(src, input, len);
    ++inputs_checked;

    for (int errors = 0; errors < ERROR_MODES; ++errors) {
        reference_decode(src, len, from, errors, &expected.decoded, &expected.first);
        if (errors == UTFKIT_REPLACE)
            expected.replaced_count = expected.decoded.length;
        for (int to = 0; to < FORMS; ++to)
            encode_all(to, &expected.decoded, &expected.output[to][errors]);
    }
    const reference_error first = expected.first;
    case_context c = {src, len, from, -1, -1, first.status ? first.position : 0, "", NULL, 0, 0};
    current_case = &c;

    size_t first_backend = 0, last_backend = available_backend_count;
    if (quick_mode || backends == ONE_BACKEND) {
        first_backend = backend_rotation++ % available_backend_count;
        last_backend = first_backend + 1;
    }
    static size_t caps[128];
    for (size_t b = first_backend; b < last_backend; ++b) {
        use_backend(available_backends[b]);
        c.to = c.errors = -1;

        utfkit_result want = {first.status, first.position, first.subpart_length, 0};
        c.call = "check";
        expect_result(&c, want, utfkit_check(src, len, from), 1);
        ++calls_made;
        int valid = utfkit_validate(src, len, from);
        ++calls_made;
        c.call = "validate";
        if (valid != (first.status == UTFKIT_OK))
            fail(&c, "expected %d, got %d", first.status == UTFKIT_OK, valid);
        size_t count = utfkit_count(src, len, from);
        ++calls_made;
        c.call = "count";
        if (count != expected.replaced_count)
            fail(&c, "expected %zu code points, got %zu", expected.replaced_count, count);

        for (c.to = 0; c.to < FORMS; ++c.to) {
            for (c.errors = 0; c.errors < ERROR_MODES; ++c.errors) {
                const byte_string *output = &expected.output[c.to][c.errors];
                int stopped = c.errors == UTFKIT_STRICT && first.status != UTFKIT_OK;
                utfkit_result full = {stopped ? first.status : UTFKIT_OK,
                                      stopped ? first.position : len,
                                      stopped ? first.subpart_length : 0, output->length};
                if (c.errors == UTFKIT_STRICT) {
                    /* Only meaningful for well-formed input; for the rest it
                     * must still read nothing outside src[0..len). */
                    c.call = "well_formed_length";
                    size_t counted = utfkit_well_formed_length(src, len, from, c.to);
                    ++calls_made;
                    if (first.status == UTFKIT_OK && counted != output->length)
                        fail(&c, "expected %zu bytes, got %zu", output->length, counted);
                }
                c.call = "transcoded_length";
                expect_result(&c, full, utfkit_transcoded_length(src, len, from, c.to, c.errors),
                              1);
                ++calls_made;
                size_t n = capacities(output->length, sweep, caps);
                c.call = "transcode";
                for (size_t k = 0; k < n; ++k)
                    expect_transcode_with_cap(&c, caps[k], full, output->bytes);
            }
        }
    }
    current_case = NULL;
    free(src);
}

/* ------------------------------------------------------------------------
 * Sections.
 * ------------------------------------------------------------------------ */

static double section_started;
static unsigned long long section_inputs_before;

static void begin_section(const char *name)
{
    current_section = name;
    section_started = now_seconds();
    section_inputs_before = inputs_checked;
    printf("%s ... ", name);
    fflush(stdout);
}

static void end_section(void)
{
    printf("%llu inputs, %.1f s%s\n", inputs_checked - section_inputs_before,
           now_seconds() - section_started, failures ? " (failures so far)" : "");
    fflush(stdout);
}

/* Table 3-7's range boundaries and a few ordinary bytes. */
static const uint8_t boundary_bytes[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                         0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                         0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
#define BOUNDARY_BYTES (sizeof boundary_bytes / sizeof boundary_bytes[0])

/* In thorough mode 1; in quick mode 1 for about one `index` in `one_in`
 * (by a hash, so that no stride of the loops lines up with it). */
static int sampled(uint64_t index, unsigned one_in)
{
    if (!quick_mode || one_in <= 1)
        return 1;
    uint64_t h = (index + 1) * UINT64_C(0x9E3779B97F4A7C15);
    return (h >> 32) % one_in == 0;
}

static void section_utf8_exhaustive(void)
{
    begin_section("1. UTF-8: every 1- and 2-byte sequence, 3- and 4-byte boundary sequences");
    uint8_t s[4];
    check_input(s, 0, UTFKIT_UTF8, CAPS_FULL, ALL_BACKENDS);
    for (unsigned a = 0; a < 256; ++a) {
        s[0] = (uint8_t)a;
        check_input(s, 1, UTFKIT_UTF8, CAPS_FULL, ALL_BACKENDS);
    }
    /* Quick mode: every pair after a byte C0..FF (where the second byte
     * decides), one in 8 of the others. */
    for (unsigned a = 0; a < 256; ++a)
        for (unsigned b = 0; b < 256; ++b) {
            if (a < 0xC0 && !sampled(a << 8 | b, 8))
                continue;
            s[0] = (uint8_t)a;
            s[1] = (uint8_t)b;
            check_input(s, 2, UTFKIT_UTF8, CAPS_FULL, ONE_BACKEND);
        }
    for (size_t a = 0; a < BOUNDARY_BYTES; ++a)
        for (size_t b = 0; b < BOUNDARY_BYTES; ++b)
            for (size_t d = 0; d < BOUNDARY_BYTES; ++d) {
                s[0] = boundary_bytes[a];
                s[1] = boundary_bytes[b];
                s[2] = boundary_bytes[d];
                size_t index = (a * BOUNDARY_BYTES + b) * BOUNDARY_BYTES + d;
                if (sampled(index, 2))
                    check_input(s, 3, UTFKIT_UTF8, CAPS_FULL, ONE_BACKEND);
                /* 4-byte: only after a lead byte of a 4-byte row, which is
                 * where a fourth byte matters (every other 4-byte input is a
                 * 3-byte case followed by one more byte, covered by 5.). */
                if (boundary_bytes[a] < 0xF0 || boundary_bytes[a] > 0xF4)
                    continue;
                for (size_t e = 0; e < BOUNDARY_BYTES; ++e) {
                    s[3] = boundary_bytes[e];
                    if (sampled(index * BOUNDARY_BYTES + e, 8))
                        check_input(s, 4, UTFKIT_UTF8, CAPS_FULL, ONE_BACKEND);
                }
            }
    end_section();
}

static void section_utf16_exhaustive(void)
{
    begin_section("2. UTF-16LE/BE: every code unit alone, before and after surrogates");
    /* Units placed after every unit, and units every unit is placed after. */
    static const uint32_t followers[] = {0x0041, 0xD800, 0xDC00};
    static const uint32_t leads[] = {0xD800, 0xDBFF};
    uint8_t s[8];
    for (int form = UTFKIT_UTF16LE; form <= UTFKIT_UTF16BE; ++form) {
        for (unsigned a = 0; a < 256; ++a) {
            s[0] = (uint8_t)a;
            check_input(s, 1, form, CAPS_FULL, ALL_BACKENDS);
        }
        for (uint32_t unit = 0; unit <= 0xFFFF; ++unit) {
            int surrogate = unit >= 0xD800 && unit <= 0xDFFF;
            /* Quick mode: every surrogate alone, one in 8 other units; the
             * pairs for one surrogate in 2 and one other unit in 64. */
            if (!sampled(unit, surrogate ? 1 : 8))
                continue;
            store_unit16(form, unit, s);
            check_input(s, 2, form, CAPS_FULL, ONE_BACKEND);
            if (!sampled(unit + 0x10000 * (uint64_t)form, surrogate ? 2 : 8))
                continue;
            s[2] = (uint8_t)(unit * 7); /* an odd final byte */
            check_input(s, 3, form, CAPS_FULL, ONE_BACKEND);
            for (size_t f = 0; f < sizeof followers / sizeof followers[0]; ++f) {
                store_unit16(form, followers[f], s + 2);
                check_input(s, 4, form, CAPS_FULL, ONE_BACKEND);
            }
            for (size_t l = 0; l < sizeof leads / sizeof leads[0]; ++l) {
                store_unit16(form, leads[l], s);
                store_unit16(form, unit, s + 2);
                check_input(s, 4, form, CAPS_FULL, ONE_BACKEND);
            }
        }
    }
    end_section();
}

/* UTF-32 units at the edges of the ranges that matter (D90, D71, D76). */
static const uint32_t boundary_units32[] = {
    0x0, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000,
    0xFFFD, 0xFFFF, 0x10000, 0x10FFFF, 0x110000, 0x1FFFFF, 0xFFFFFF, 0x1000000, 0x7FFFFFFF,
    0x80000000, 0xFFFFFFFF, 0x00D80000, 0x0000D8FF, 0x41000000, 0x00110000, 0xFFFF0000};
#define BOUNDARY_UNITS32 (sizeof boundary_units32 / sizeof boundary_units32[0])

static void section_utf32_exhaustive(void)
{
    begin_section("3. UTF-32LE/BE: every 1-/2-byte input, units 0000xxxx xxxx0000 xxxxFFFF");
    uint8_t s[8];
    for (int form = UTFKIT_UTF32LE; form <= UTFKIT_UTF32BE; ++form) {
        for (unsigned a = 0; a < 256; ++a) {
            s[0] = (uint8_t)a;
            check_input(s, 1, form, CAPS_FULL, ALL_BACKENDS);
        }
        for (unsigned a = 0; a < 65536; ++a) {
            if (!sampled(a, 64))
                continue;
            s[0] = (uint8_t)(a >> 8);
            s[1] = (uint8_t)a;
            check_input(s, 2, form, CAPS_FULL, ONE_BACKEND);
        }
        /* Quick mode: every surrogate unit, one in 8 other 0000xxxx units,
         * one in 64 of the xxxx0000 and xxxxFFFF units. */
        for (uint32_t v = 0; v <= 0xFFFF; ++v) {
            const uint32_t units[] = {v, v << 16, v << 16 | 0xFFFF};
            for (size_t k = 0; k < 3; ++k) {
                int surrogate = k == 0 && v >= 0xD800 && v <= 0xDFFF;
                if (!sampled(v * 3 + k, surrogate ? 1 : k == 0 ? 8 : 64))
                    continue;
                store_unit32(form, units[k], s);
                check_input(s, 4, form, CAPS_FULL, ONE_BACKEND);
            }
        }
        for (size_t a = 0; a < BOUNDARY_UNITS32; ++a) {
            store_unit32(form, boundary_units32[a], s);
            for (size_t cut = 5; cut <= 7; ++cut) { /* a partial unit after it */
                memset(s + 4, 0x10 * (int)cut, 4);
                check_input(s, cut, form, CAPS_FULL, ONE_BACKEND);
            }
            for (size_t b = 0; b < BOUNDARY_UNITS32; ++b) {
                store_unit32(form, boundary_units32[b], s + 4);
                check_input(s, 8, form, CAPS_FULL, ONE_BACKEND);
            }
        }
    }
    end_section();
}

/* An ill-formed or notable piece to put into text of a form. */
typedef struct piece {
    uint8_t bytes[8];
    size_t length;
} piece;

/* The pieces section 4 places at every offset of ASCII text in `form`. */
static size_t pieces_for(int form, piece *out)
{
    size_t n = 0;
    static const uint32_t characters[] = {0xE9, 0x20AC, 0xFFFD, 0x1F600, 0x10FFFF};
    for (size_t k = 0; k < sizeof characters / sizeof characters[0]; ++k, ++n)
        out[n].length = encode_scalar(form, characters[k], out[n].bytes);
    if (form == UTFKIT_UTF8) {
        static const uint8_t ill_formed[][4] = {{0xFF}, {0x80}, {0xC0, 0xAF}, {0xE0, 0x80},
                                                {0xED, 0xA0, 0x80}, {0xF4, 0x90, 0x80, 0x80},
                                                {0xE2, 0x82}, {0xF0, 0x9F, 0x98}};
        static const size_t lengths[] = {1, 1, 2, 2, 3, 4, 2, 3};
        for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; ++k, ++n) {
            memcpy(out[n].bytes, ill_formed[k], lengths[k]);
            out[n].length = lengths[k];
        }
    } else if (code_unit_size(form) == 2) {
        static const uint32_t lone[] = {0xD800, 0xDBFF, 0xDC00, 0xDFFF};
        for (size_t k = 0; k < 4; ++k, ++n)
            out[n].length = store_unit16(form, lone[k], out[n].bytes);
        /* a reversed pair, and one byte (odd length from here on) */
        out[n].length = store_unit16(form, 0xDC00, out[n].bytes);
        out[n].length += store_unit16(form, 0xD800, out[n].bytes + 2);
        ++n;
        out[n].bytes[0] = 0x41;
        out[n++].length = 1;
    } else {
        static const uint32_t bad[] = {0xD800, 0xDFFF, 0x110000, 0xFFFFFFFF};
        for (size_t k = 0; k < 4; ++k, ++n)
            out[n].length = store_unit32(form, bad[k], out[n].bytes);
        for (size_t cut = 1; cut <= 3; ++cut, ++n) { /* a partial unit */
            store_unit32(form, 0x1F600, out[n].bytes);
            out[n].length = cut;
        }
    }
    return n;
}

#define TEXT_CHARACTERS 131

/* The scripts of the texts section 4 puts pieces into: ASCII (the ASCII
 * fast paths), 3-byte BMP characters (UTF-16 units copied in runs), or
 * words of 2-byte characters (U+0080..07FF, Cyrillic here) between spaces
 * (UTF-8 blocks of 1- and 2-byte characters only). */
enum { SCRIPT_ASCII, SCRIPT_BMP, SCRIPT_TWO_BYTE, SCRIPTS };

static uint32_t base_character(int script, size_t i)
{
    if (script == SCRIPT_BMP)
        return 0x4E00 + (uint32_t)(i * 37 % 2000);
    if (script == SCRIPT_TWO_BYTE)
        return i % 7 == 6 ? 0x20 : 0x410 + (uint32_t)(i * 13 % 0x40);
    return (uint32_t)('a' + i % 26);
}

static void section_every_offset(void)
{
    begin_section("4. every form: a piece at every offset 0..131 of ASCII, BMP and 2-byte text");
    byte_string text = {0};
    piece pieces[16];
    for (int form = 0; form < FORMS; ++form) {
        size_t piece_count = pieces_for(form, pieces);
        for (int script = 0; script < SCRIPTS; ++script) {
            int ascii = script == SCRIPT_ASCII;
            for (size_t offset = 0; offset <= TEXT_CHARACTERS; ++offset) {
                for (size_t p = 0; p <= piece_count; ++p) {
                    /* ASCII text: each offset with every piece (one in 3 in
                     * quick mode); other text: with one piece in 2 (in 6). */
                    unsigned one_in = (ascii ? 1 : 2) * (quick_mode ? 3 : 1);
                    if ((offset + p) % one_in != 0)
                        continue;
                    text.length = 0;
                    for (size_t i = 0; i < TEXT_CHARACTERS; ++i) {
                        if (i == offset && p < piece_count)
                            bytes_append(&text, pieces[p].bytes, pieces[p].length);
                        uint8_t unit[4];
                        bytes_append(&text, unit,
                                     encode_scalar(form, base_character(script, i), unit));
                    }
                    if (offset == TEXT_CHARACTERS && p < piece_count)
                        bytes_append(&text, pieces[p].bytes, pieces[p].length);
                    if (p == piece_count) {
                        /* No piece: the text cut after `offset` characters
                         * and one byte more (a truncated character, or code
                         * unit, except after the last ASCII character). */
                        size_t cut = 0;
                        for (size_t i = 0; i < offset; ++i) {
                            uint8_t unit[4];
                            cut += encode_scalar(form, base_character(script, i), unit);
                        }
                        cut += 1;
                        text.length = cut < text.length ? cut : text.length;
                    }
                    cap_sweep sweep = ascii && (offset % 16 == 0 || offset % 16 == 15)
                                          ? CAPS_FULL
                                          : CAPS_LIGHT;
                    check_input(text.bytes, text.length, form, sweep, ALL_BACKENDS);
                }
            }
        }
    }
    free(text.bytes);
    end_section();
}

/* ---- structured random texts ---- */

static uint64_t prng_state;

static uint64_t prng_next(void) /* splitmix64 */
{
    uint64_t z = (prng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static size_t prng_below(size_t n)
{
    return n ? (size_t)(prng_next() % n) : 0;
}

enum { ASCII_RUN, TWO_BYTE, THREE_BYTE, SUPPLEMENTARY, NOTABLE, CHARACTER_KINDS };

/* Scalar values at the edges of UTF-8 lengths, UTF-16 pairs and planes. */
static const uint32_t notable_scalars[] = {0x0,    0x7F,    0x80,    0x7FF,    0x800,
                                           0xD7FF, 0xE000,  0xFEFF,  0xFFFD,   0xFFFE,
                                           0xFFFF, 0x10000, 0x1F600, 0xFFFFF,  0x100000,
                                           0x10FFFF, 0x20000, 0xE0001, 0x10400, 0x103FF};

static uint32_t random_scalar(int kind)
{
    switch (kind) {
    case ASCII_RUN:
        return (uint32_t)prng_below(0x80);
    case TWO_BYTE:
        return 0x80 + (uint32_t)prng_below(0x800 - 0x80);
    case THREE_BYTE: {
        uint32_t v = 0x800 + (uint32_t)prng_below(0x10000 - 0x800 - 0x800);
        return v >= 0xD800 ? v + 0x800 : v; /* skip the surrogates (D71) */
    }
    case SUPPLEMENTARY:
        return 0x10000 + (uint32_t)prng_below(0x100000);
    default:
        return notable_scalars[prng_below(sizeof notable_scalars / sizeof notable_scalars[0])];
    }
}

/* Weights of the character kinds for a few styles of text. */
static const unsigned style_weights[][CHARACTER_KINDS] = {
    {90, 4, 3, 2, 1},    /* mostly ASCII, long runs */
    {25, 25, 25, 20, 5}, /* everything mixed */
    {8, 4, 82, 4, 2},    /* BMP (CJK-like) */
    {10, 5, 10, 70, 5},  /* supplementary planes */
    {30, 60, 5, 3, 2},   /* 2-byte (Latin/Cyrillic-like) */
};
#define STYLES (sizeof style_weights / sizeof style_weights[0])

static void random_valid_text(int form, byte_string *out)
{
    out->length = 0;
    const unsigned *weights = style_weights[prng_below(STYLES)];
    size_t r = prng_below(100), characters;
    if (r < 55)
        characters = prng_below(21);
    else if (r < 90)
        characters = 20 + prng_below(81);
    else
        characters = 100 + prng_below(401);
    unsigned total = 0;
    for (int k = 0; k < CHARACTER_KINDS; ++k)
        total += weights[k];
    size_t produced = 0;
    while (produced < characters) {
        unsigned pick = (unsigned)prng_below(total);
        int kind = 0;
        while (pick >= weights[kind])
            pick -= weights[kind++];
        size_t run = kind == ASCII_RUN ? 1 + prng_below(prng_below(2) ? 80 : 8) : 1;
        for (size_t k = 0; k < run && produced < characters; ++k, ++produced) {
            uint8_t unit[4];
            bytes_append(out, unit, encode_scalar(form, random_scalar(kind), unit));
        }
    }
}

/* An offset in text[0..length]: at a code unit boundary more often than not. */
static size_t random_offset(int form, size_t length)
{
    size_t at = prng_below(length + 1);
    if (prng_below(4) != 0)
        at -= at % code_unit_size(form);
    return at;
}

static uint32_t random_surrogate(void)
{
    static const uint32_t edges[] = {0xD800, 0xDBFF, 0xDC00, 0xDFFF};
    return prng_below(2) ? edges[prng_below(4)] : 0xD800 + (uint32_t)prng_below(0x800);
}

/* Bytes that are interesting in any form: Table 3-7 boundaries, surrogate
 * high bytes, the byte above 10 of a too-large UTF-32 unit. */
static const uint8_t interesting_bytes[] = {0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF,
                                            0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xD8,
                                            0xDB, 0xDC, 0xDF, 0x10, 0x11, 0x9F, 0xA0, 0x90};

static void mutate(int form, byte_string *text)
{
    uint8_t p[8];
    size_t n = 0;
    size_t unit = code_unit_size(form);
    switch (prng_below(9)) {
    case 0: /* delete bytes */
        if (text->length) {
            size_t at = prng_below(text->length);
            size_t count = 1 + prng_below(unit);
            bytes_erase(text, at, count <= text->length - at ? count : text->length - at);
        }
        return;
    case 1: /* insert a byte */
        p[0] = prng_below(2) ? (uint8_t)prng_next()
                             : interesting_bytes[prng_below(sizeof interesting_bytes)];
        n = 1;
        break;
    case 2: /* replace a byte */
        if (text->length)
            text->bytes[prng_below(text->length)] =
                prng_below(2) ? (uint8_t)prng_next()
                              : interesting_bytes[prng_below(sizeof interesting_bytes)];
        return;
    case 3: /* a lone surrogate, or two surrogates in the wrong order */
        if (form == UTFKIT_UTF8) {
            n = utf8_bit_distribution(random_surrogate(), p);
        } else if (unit == 2) {
            n = store_unit16(form, random_surrogate(), p);
            if (prng_below(3) == 0)
                n += store_unit16(form, prng_below(2) ? 0xD800 : random_surrogate(), p + 2);
        } else {
            n = store_unit32(form, random_surrogate(), p);
        }
        break;
    case 4: /* a value out of range, an overlong or otherwise invalid unit */
        if (form == UTFKIT_UTF8) {
            static const uint8_t invalid[][6] = {
                {0xF4, 0x90, 0x80, 0x80}, {0xF5, 0x80, 0x80, 0x80}, {0xF7, 0xBF, 0xBF, 0xBF},
                {0xF8, 0x88, 0x80, 0x80, 0x80}, {0xFC, 0x84, 0x80, 0x80, 0x80, 0x80},
                {0xC0, 0x80}, {0xC1, 0xBF}, {0xE0, 0x80, 0x80}, {0xE0, 0x9F, 0xBF},
                {0xF0, 0x80, 0x80, 0x80}, {0xF0, 0x8F, 0xBF, 0xBF}, {0xFE}, {0xFF},
                {0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80}};
            static const size_t lengths[] = {4, 4, 4, 5, 6, 2, 2, 3, 3, 4, 4, 1, 1, 6};
            size_t k = prng_below(sizeof lengths / sizeof lengths[0]);
            memcpy(p, invalid[k], lengths[k]);
            n = lengths[k];
        } else if (unit == 2) { /* every 16-bit value but a surrogate is a character */
            n = store_unit16(form, 0xDC00 + (uint32_t)prng_below(0x400), p);
        } else {
            static const uint32_t too_large[] = {0x110000, 0x1FFFFF, 0x7FFFFFFF, 0x80000000,
                                                 0xFFFFFFFF, 0x00D80000, 0x0041FFFF};
            uint32_t value = prng_below(2) ? too_large[prng_below(7)]
                                           : 0x110000 + (uint32_t)prng_below(0xFFEF0000u);
            n = store_unit32(form, value, p);
        }
        break;
    case 5: { /* a truncated sequence */
        uint32_t scalar = random_scalar(prng_below(2) ? SUPPLEMENTARY : 1 + (int)prng_below(2));
        size_t whole = encode_scalar(form, scalar, p); /* 2 bytes at least */
        n = 1 + prng_below(whole - 1);
        break;
    }
    case 6: /* cut the end: odd lengths, partial units */
        if (text->length)
            text->length -= 1 + prng_below(text->length < 3 ? text->length : 3);
        return;
    case 7: { /* reverse the bytes of one code unit (UTF-8: swap two bytes) */
        size_t size = unit == 1 ? 2 : unit;
        if (text->length < size)
            return;
        size_t at = prng_below(text->length - size + 1);
        if (unit > 1 && prng_below(4) != 0)
            at -= at % unit;
        for (size_t i = 0; i < size / 2; ++i) {
            uint8_t t = text->bytes[at + i];
            text->bytes[at + i] = text->bytes[at + size - 1 - i];
            text->bytes[at + size - 1 - i] = t;
        }
        return;
    }
    default: /* a stray continuation byte / an odd byte / a partial unit */
        p[0] = (uint8_t)(0x80 + prng_below(0x40));
        n = 1 + prng_below(unit == 4 ? 3 : 1);
        for (size_t i = 1; i < n; ++i)
            p[i] = (uint8_t)prng_next();
        break;
    }
    bytes_insert(text, random_offset(form, text->length), p, n);
}

static void section_random(unsigned long texts_per_form)
{
    begin_section("5. every form: fixed-seed structured random texts, mutated");
    byte_string text = {0};
    for (int form = 0; form < FORMS; ++form) {
        prng_state = UINT64_C(0x7EC0DE0000000000) + (uint64_t)form;
        for (unsigned long i = 0; i < texts_per_form; ++i) {
            random_valid_text(form, &text);
            size_t r = prng_below(10), mutations = r < 2 ? 0 : r < 6 ? 1 : 1 + prng_below(4);
            for (size_t m = 0; m < mutations; ++m)
                mutate(form, &text);
            cap_sweep sweep = !quick_mode || text.length < 48 || i % 4 == 0 ? CAPS_FULL
                                                                           : CAPS_LIGHT;
            check_input(text.bytes, text.length, form, sweep, ALL_BACKENDS);
        }
    }
    free(text.bytes);
    end_section();
}

/* ---- large texts ---- */

static void section_large(void)
{
    const size_t characters = quick_mode ? 4096 : 8192;
    begin_section(quick_mode ? "6. every form: 4096-character texts, an error near the start / "
                               "middle / end"
                             : "6. every form: 8192-character texts, an error near the start / "
                               "middle / end");
    byte_string text = {0};
    prng_state = UINT64_C(0x1A26E7E47);
    for (int form = 0; form < FORMS; ++form) {
        for (int kind = ASCII_RUN; kind <= SUPPLEMENTARY; ++kind) {
            text.length = 0;
            for (size_t i = 0; i < characters; ++i) {
                uint8_t unit[4];
                /* Mostly one kind, with some ASCII between. */
                int this_kind = i % 7 == 3 ? ASCII_RUN : kind;
                bytes_append(&text, unit, encode_scalar(form, random_scalar(this_kind), unit));
            }
            /* Never well-formed: FF (Table 3-7), a lone trail surrogate,
             * a unit above 10FFFF. */
            uint8_t bad[4] = {0xFF};
            size_t bad_length = 1;
            if (code_unit_size(form) == 2)
                bad_length = store_unit16(form, 0xDC00, bad);
            else if (code_unit_size(form) == 4)
                bad_length = store_unit32(form, 0x110000, bad);
            size_t places[] = {0, text.length / 2, text.length - 1, 1, 63, 64, text.length - 64};
            size_t place_count = quick_mode ? 3 : sizeof places / sizeof places[0];
            for (size_t p = 0; p <= place_count; ++p) {
                if (p == place_count) {
                    check_input(text.bytes, text.length, form, CAPS_LIGHT, ALL_BACKENDS);
                    check_input(text.bytes, text.length - 1, form, CAPS_LIGHT, ALL_BACKENDS);
                    continue;
                }
                size_t at = places[p] - places[p] % code_unit_size(form);
                uint8_t saved[4];
                memcpy(saved, text.bytes + at, bad_length);
                memcpy(text.bytes + at, bad, bad_length);
                check_input(text.bytes, text.length, form, CAPS_LIGHT, ALL_BACKENDS);
                memcpy(text.bytes + at, saved, bad_length);
            }
        }
    }
    free(text.bytes);
    end_section();
}

/* ------------------------------------------------------------------------
 * The reference itself, on examples whose answers are known independently
 * (CPython's, for the error positions).  A wrong reference would make every
 * later comparison meaningless.
 * ------------------------------------------------------------------------ */

typedef struct known_case {
    int form;
    uint8_t bytes[16];
    size_t length;
    int status;
    size_t position, subpart_length;
    size_t replaced_count; /* code points with errors = REPLACE */
} known_case;

static const known_case known_cases[] = {
    /* Unicode 3.9, D92 / Table 3-8: C0 AF E0 80 BF F0 81 82 41 -> 8 U+FFFD and A */
    {UTFKIT_UTF8, {0xC0, 0xAF, 0xE0, 0x80, 0xBF, 0xF0, 0x81, 0x82, 0x41}, 9,
     UTFKIT_INVALID_START, 0, 1, 9},
    /* Table 3-9: ED A0 80 ED BF BF ED AF 41 -> 8 U+FFFD and A */
    {UTFKIT_UTF8, {0xED, 0xA0, 0x80, 0xED, 0xBF, 0xBF, 0xED, 0xAF, 0x41}, 9,
     UTFKIT_INVALID_CONTINUATION, 0, 1, 9},
    /* Table 3-11: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 -> a U+FFFD U+FFFD U+FFFD b ... */
    {UTFKIT_UTF8, {0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF, 0x64},
     13, UTFKIT_INVALID_CONTINUATION, 1, 3, 10},
    /* E2 82 at the end: "unexpected end of data", 2 bytes */
    {UTFKIT_UTF8, {0x41, 0xE2, 0x82}, 3, UTFKIT_END_OF_DATA, 1, 2, 2},
    /* b"\x00\xd8\x41\x00".decode("utf-16-le"): "illegal UTF-16 surrogate" 0..2 */
    {UTFKIT_UTF16LE, {0x00, 0xD8, 0x41, 0x00}, 4, UTFKIT_SURROGATE, 0, 2, 2},
    /* b"\x00\xd8\x00".decode("utf-16-le"): "unexpected end of data" 0..3 */
    {UTFKIT_UTF16LE, {0x00, 0xD8, 0x00}, 3, UTFKIT_END_OF_DATA, 0, 3, 1},
    /* b"\xd8\x00\xd8\x00\x00".decode("utf-16-be"): SURROGATE 0..2, then to the end */
    {UTFKIT_UTF16BE, {0xD8, 0x00, 0xD8, 0x00, 0x00}, 5, UTFKIT_SURROGATE, 0, 2, 2},
    /* b"\x00\xd8\x00\xdc\x00".decode("utf-16-le"): U+10000 then "truncated data" 4..5 */
    {UTFKIT_UTF16LE, {0x00, 0xD8, 0x00, 0xDC, 0x00}, 5, UTFKIT_END_OF_DATA, 4, 1, 2},
    /* b"\x00\xdc\x00\xd8".decode("utf-16-le"): "illegal encoding" 0..2 */
    {UTFKIT_UTF16LE, {0x00, 0xDC, 0x00, 0xD8}, 4, UTFKIT_SURROGATE, 0, 2, 2},
    /* b"A\0\0\0\0\0\x11\0\x01".decode("utf-32-le"): "not in range" 4..8, then 8..9 */
    {UTFKIT_UTF32LE, {0x41, 0, 0, 0, 0, 0, 0x11, 0, 0x01}, 9, UTFKIT_TOO_LARGE, 4, 4, 3},
    /* b"\0\0\xd8\0".decode("utf-32-be"): surrogate 0..4 */
    {UTFKIT_UTF32BE, {0, 0, 0xD8, 0}, 4, UTFKIT_SURROGATE, 0, 4, 1},
    /* b"\0\x01\xf6\x00\x00\x00".decode("utf-32-be"): U+1F600 then "truncated data" 4..6 */
    {UTFKIT_UTF32BE, {0, 0x01, 0xF6, 0x00, 0, 0}, 6, UTFKIT_END_OF_DATA, 4, 2, 2},
};

static void section_reference_self_check(void)
{
    begin_section("0. the reference on examples with known answers");
    code_points decoded = {0};
    reference_error first;
    for (size_t k = 0; k < sizeof known_cases / sizeof known_cases[0]; ++k) {
        const known_case *kc = &known_cases[k];
        case_context c = {kc->bytes, kc->length, kc->form, -1, UTFKIT_REPLACE, 0, "reference",
                          NULL, 0, 0};
        reference_decode(kc->bytes, kc->length, kc->form, UTFKIT_REPLACE, &decoded, &first);
        if (first.status != kc->status || first.position != kc->position ||
            first.subpart_length != kc->subpart_length || decoded.length != kc->replaced_count)
            fail(&c, "REFERENCE: expected %s at %zu (%zu bytes), %zu code points; the "
                     "reference says %s at %zu (%zu bytes), %zu code points",
                 status_name(kc->status), kc->position, kc->subpart_length, kc->replaced_count,
                 status_name(first.status), first.position, first.subpart_length,
                 decoded.length);
    }
    /* Every scalar value survives encode -> decode in every form (D76). */
    for (uint32_t scalar = 0; scalar <= 0x10FFFF; ++scalar) {
        if (scalar == 0xD800)
            scalar = 0xE000;
        for (int form = 0; form < FORMS; ++form) {
            uint8_t unit[4];
            size_t n = encode_scalar(form, scalar, unit);
            reference_decode(unit, n, form, UTFKIT_STRICT, &decoded, &first);
            if (first.status != UTFKIT_OK || decoded.length != 1 || decoded.values[0] != scalar) {
                case_context c = {unit, n, form, -1, UTFKIT_STRICT, 0, "reference", NULL, 0, 0};
                fail(&c, "REFERENCE: U+%04X does not decode to itself", (unsigned)scalar);
            }
        }
    }
    free(decoded.values);
    inputs_checked += sizeof known_cases / sizeof known_cases[0];
    end_section();
}

/* ------------------------------------------------------------------------ */

static void usage(const char *program)
{
    fprintf(stderr,
            "usage: %s [--quick] [--random-texts N]\n"
            "  --quick           each input under one backend (in rotation), fewer random\n"
            "                    texts and pairs, lighter capacity sweeps for long outputs\n"
            "                    (for tests/test_c_core.py)\n"
            "  --random-texts N  random texts per source form in section 5\n"
            "                    (default 2000, 800 with --quick)\n"
            "  --all-4-byte      accepted and ignored (an option of test_utf8_table_3_7,\n"
            "                    which `make ctest CTEST_ARGS=...` passes to every program)\n",
            program);
    exit(2);
}

int main(int argc, char **argv)
{
    unsigned long random_texts = 0;
    int random_texts_given = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick_mode = 1;
        } else if (strcmp(argv[i], "--random-texts") == 0 && i + 1 < argc) {
            char *end;
            const char *text = argv[++i];
            random_texts = strtoul(text, &end, 10);
            if (*text == '\0' || *end != '\0')
                usage(argv[0]);
            random_texts_given = 1;
        } else if (strcmp(argv[i], "--all-4-byte") != 0) {
            usage(argv[0]);
        }
    }
    if (!random_texts_given)
        random_texts = quick_mode ? 800 : 2000;
    double started = now_seconds();

    install_crash_report();
    find_backends();
    printf("utfkit transcoding vs a reference decoder/encoder (%s mode) -- CPU features: %s\n"
           "backends:",
           quick_mode ? "quick" : "thorough", utfkit_cpu_features());
    for (size_t b = 0; b < available_backend_count; ++b)
        printf(" %s", available_backends[b]);
    printf("\n");
    fflush(stdout);

    for (size_t n = 1; n <= EXACT_CACHED; ++n)
        exact_blocks[n] = checked_malloc(n);

    section_reference_self_check();
    section_utf8_exhaustive();
    section_utf16_exhaustive();
    section_utf32_exhaustive();
    section_every_offset();
    section_random(random_texts);
    section_large();

    for (size_t n = 1; n <= EXACT_CACHED; ++n)
        free(exact_blocks[n]);
    for (int to = 0; to < FORMS; ++to)
        for (int e = 0; e < ERROR_MODES; ++e)
            free(expected.output[to][e].bytes);
    free(expected.decoded.values);
    free(guarded.bytes);
    free(fill_pattern.bytes);

    printf("partial writes: of %llu calls with cap < needed, %llu filled dst[0..cap) "
           "completely; at most %zu bytes of dst[0..cap) were left unwritten\n",
           too_small_calls, too_small_filled, largest_unfilled_tail);
    printf("%llu inputs, %llu library calls under %zu backend(s) in %.1f s: ", inputs_checked,
           calls_made, available_backend_count, now_seconds() - started);
    if (failures) {
        printf("%lu FAILURE(S)\n", failures);
        return 1;
    }
    printf("all passed\n");
    return 0;
}
