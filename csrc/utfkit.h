/*
 * utfkit.h -- the public C API of the utfkit core.
 *
 * This is the only header the Python binding sees: src/utfkit/_ffi_build.py
 * hands the text between the CDEF markers below to cffi's cdef(), so the
 * declarations there must stay in the plain C subset cffi parses (no macros,
 * no #if).  The core uses no Python headers and can be linked from C alone.
 *
 * Conventions (DESIGN.md section 4):
 *   - every function takes (const uint8_t *src, size_t len, ...) and, when it
 *     writes, (uint8_t *dst, size_t cap); it never reads src[len] or beyond
 *     and never writes dst[cap] or beyond: every write is checked against
 *     cap before it is made.  A writer that runs out of room stops writing,
 *     keeps counting, and reports UTFKIT_OUTPUT_TOO_SMALL with the exact
 *     length it needs; dst[0..cap) then holds a prefix of the output;
 *   - positions and lengths are size_t byte offsets, exact for any size;
 *   - nothing is allocated inside the core.
 */
#ifndef UTFKIT_H
#define UTFKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* BEGIN CDEF */

/* What went wrong, if anything.  For UTF-8 input the first three mirror the
 * reasons CPython's decoder gives ("invalid start byte", "invalid
 * continuation byte", "unexpected end of data"). */
typedef enum utfkit_status {
    UTFKIT_OK = 0,
    /* A byte that cannot begin any well-formed sequence: 80..BF, C0, C1,
     * F5..FF (Table 3-7, "First Byte" column). */
    UTFKIT_INVALID_START = 1,
    /* A lead byte followed by a byte outside the range its Table 3-7 row
     * allows; the maximal subpart is the lead and the continuation bytes
     * accepted before it. */
    UTFKIT_INVALID_CONTINUATION = 2,
    /* The input ends inside a sequence that is well-formed so far. */
    UTFKIT_END_OF_DATA = 3,
    /* A surrogate code point or code unit where none is allowed. */
    UTFKIT_SURROGATE = 4,
    /* A value above U+10FFFF. */
    UTFKIT_TOO_LARGE = 5,
    /* dst cannot hold the output; nothing was written past its end. */
    UTFKIT_OUTPUT_TOO_SMALL = 6,
    /* dst[0..cap) and src[0..len) share memory: refused before anything is
     * read or written (a conversion reads ahead of what it writes, and
     * writes more than it reads, so no overlap converts correctly). */
    UTFKIT_OVERLAPPING_BUFFERS = 7,
    /* Latin-1 or ASCII output with errors = STRICT: the text holds a
     * character the destination cannot encode (above U+00FF, or above U+007F).
     * Reported only when the input has no ill-formed subsequence (a decoder
     * runs before an encoder, as in CPython's decode().encode()); written is
     * then the index, in characters, of the first such character. */
    UTFKIT_UNENCODABLE = 8
} utfkit_status;

typedef struct utfkit_result {
    int status;              /* a utfkit_status */
    size_t position;         /* offset of the first ill-formed code unit; len when OK */
    size_t subpart_length;   /* length of its maximal subpart (D93b); 0 when OK */
    size_t written;          /* code units written to dst, or counted */
} utfkit_result;

/* ---- UTF-8 (Unicode 3.9, D92 and Table 3-7) ---- */

/* 1 if src[0..len) is well-formed UTF-8, else 0. */
int utfkit_utf8_validate(const uint8_t *src, size_t len);

/* The first ill-formed subsequence: status, position and maximal-subpart
 * length.  position is also the length of the longest well-formed prefix
 * that ends on a character boundary.  written is 0. */
utfkit_result utfkit_utf8_check(const uint8_t *src, size_t len);

/* Copies src to dst replacing each maximal subpart (D93b) of every
 * ill-formed subsequence by U+FFFD (EF BF BD), as Tables 3-8 to 3-11 show.
 * Returns status OK and written = bytes written; or, when cap is too small,
 * UTFKIT_OUTPUT_TOO_SMALL with written = the exact length needed (what fit
 * may have been written to dst[0..cap), never more).  dst may be NULL when
 * cap is 0.  UTFKIT_TOO_LARGE if the length would not fit in a size_t. */
utfkit_result utfkit_utf8_sanitize(const uint8_t *src, size_t len,
                                   uint8_t *dst, size_t cap);

/* Exact length of utfkit_utf8_sanitize's output, in written (status OK). */
utfkit_result utfkit_utf8_sanitized_length(const uint8_t *src, size_t len);

/* Copies src to dst leaving out every maximal subpart (what a decoder with
 * errors="ignore" keeps).  Same conventions as utfkit_utf8_sanitize. */
utfkit_result utfkit_utf8_remove_ill_formed(const uint8_t *src, size_t len,
                                            uint8_t *dst, size_t cap);

/* Exact length of utfkit_utf8_remove_ill_formed's output, in written. */
utfkit_result utfkit_utf8_removed_length(const uint8_t *src, size_t len);

/* Number of code points a decoder that substitutes U+FFFD for each maximal
 * subpart produces: characters plus replaced subparts. */
size_t utfkit_utf8_count(const uint8_t *src, size_t len);

/* Validation and the lengths of the other forms in one pass (what a
 * decoder needs to size its output): 1 if src[0..len) is well-formed UTF-8,
 * with *code_points its characters and *utf16_units its UTF-16 code units
 * (a supplementary character is two); 0 if it is not (both then unset). */
int utfkit_utf8_validate_lengths(const uint8_t *src, size_t len, size_t *code_points,
                                 size_t *utf16_units);

/* ---- every encoding form: UTF-8, UTF-16 and UTF-32 (Unicode 3.9, D90-D92) ---- */

/* The encoding forms, each with its byte order where it has one.  Offsets
 * and lengths are always in bytes. */
typedef enum utfkit_form {
    UTFKIT_UTF8 = 0,
    UTFKIT_UTF16LE = 1,
    UTFKIT_UTF16BE = 2,
    UTFKIT_UTF32LE = 3,
    UTFKIT_UTF32BE = 4,
    /* WTF-8 (seed 003 section 6): generalized UTF-8 minus surrogate pair
     * byte sequences -- UTF-8 plus lone surrogates, which it carries to and
     * from UTF-16 (read as potentially ill-formed UTF-16) and MUTF-8. */
    UTFKIT_WTF8 = 5,
    /* CESU-8 (Unicode Technical Report #26): each UTF-16 code unit in 1-3
     * bytes, a supplementary character as two 3-byte surrogate sequences.
     * Ill-formed wherever its UTF-16 would be; no 4-byte form. */
    UTFKIT_CESU8 = 6,
    /* Java's Modified UTF-8 (JNI, class files, DEX): CESU-8 that carries
     * lone surrogates as Java strings do, and writes U+0000 as C0 80 (a raw
     * 00 byte is ill-formed). */
    UTFKIT_MUTF8 = 7,
    /* ISO/IEC 8859-1 as CPython's latin-1 codec reads it: each byte is the
     * code point of its value, so Latin-1 input is never ill-formed; as a
     * destination it encodes U+0000..U+00FF, one byte each. */
    UTFKIT_LATIN1 = 8,
    /* ASCII (ISO/IEC 646 IRV): bytes 00..7F; a byte 80..FF is ill-formed
     * (UTFKIT_INVALID_START, 1 byte); as a destination it encodes
     * U+0000..U+007F.  Into Latin-1 and ASCII, a character the destination
     * cannot encode becomes '?' with REPLACE (as does a U+FFFD that replaces
     * an ill-formed subsequence), is left out with IGNORE, and with STRICT
     * makes the conversion report UTFKIT_UNENCODABLE. */
    UTFKIT_ASCII = 9,
    /* UTF-E-8 (seed 002): UTF-8 extended to code points up to
     * U+7FFFFFFFFFFFFFFF, surrogates included (see the UTF-E-8 section
     * below).  Read into another form, a code point the form cannot hold --
     * a surrogate (UTFKIT_SURROGATE) or one above 10FFFF (UTFKIT_TOO_LARGE),
     * above 7FFFFFFF for RFC 2279 -- is an ill-formed subsequence: the whole
     * sequence.  Written, it is UTF-8's bytes for every scalar value. */
    UTFKIT_UTFE8 = 10,
    /* The original UTF-8 of ISO 10646-1 Annex D and RFC 2279 (seed 004):
     * UTF-E-8's 1-6 byte forms, code points up to U+7FFFFFFF; FE and FF are
     * UTFKIT_TOO_LARGE (1 byte), as is a 6-byte form above 7FFFFFFF. */
    UTFKIT_UTF8_RFC2279 = 11
} utfkit_form;

/* What a conversion does with an ill-formed subsequence.  UTF-8 input is
 * cut into maximal subparts (D93b); UTF-16 input into unpaired surrogates,
 * and a truncated final code unit or surrogate pair; UTF-32 input into
 * code units that are surrogates or above 10FFFF, and a truncated final
 * code unit -- the units CPython's codecs report. */
typedef enum utfkit_errors {
    UTFKIT_STRICT = 0,   /* stop at the first one and report it */
    UTFKIT_REPLACE = 1,  /* write U+FFFD for each */
    UTFKIT_IGNORE = 2    /* leave each out */
} utfkit_errors;

/* Statuses for UTF-16 and UTF-32 input: UTFKIT_END_OF_DATA for a final
 * code unit cut short (subpart_length < the unit size) or a lead surrogate
 * with its pair cut short; UTFKIT_SURROGATE for an unpaired surrogate
 * (UTF-16) or a surrogate code unit (UTF-32); UTFKIT_TOO_LARGE for a UTF-32
 * code unit above 10FFFF.  subpart_length is the bytes a replacement
 * covers: 2 for an unpaired UTF-16 surrogate, 4 for a UTF-32 unit. */

/* Lone surrogates.  WTF-8 and MUTF-8 carry them: between those two forms
 * and UTF-16 (either byte order) a lone surrogate is converted like any code
 * point -- UTF-16 read as potentially ill-formed UTF-16 (seed 003 section 4)
 * -- and WTF-8 output joins a lead surrogate followed by a trail surrogate
 * into one 4-byte sequence (seed 003 section 6.1).  Converted to any other
 * form (UTF-8, UTF-32, CESU-8), a lone surrogate of WTF-8 or MUTF-8 input is
 * an ill-formed subsequence: UTFKIT_SURROGATE, its 3 bytes.
 *
 * Ill-formed subsequences of the UTF-8-based forms are cut as UTF-8's are
 * (maximal subparts, D93b), reading each form's own table:
 *   - WTF-8: a surrogate byte sequence (ED A0..BF 80..BF) is one character;
 *     a trail surrogate byte sequence right after a lead surrogate byte
 *     sequence (a surrogate pair byte sequence) is ill-formed:
 *     UTFKIT_SURROGATE, the trail's 3 bytes.
 *   - CESU-8 and MUTF-8: lead bytes 00..7F, C2..DF, E0..EF only; F0..FF are
 *     UTFKIT_INVALID_START (1 byte), as are the continuation bytes after
 *     them.  A lead surrogate sequence followed by a trail surrogate
 *     sequence is one supplementary character (6 bytes).
 *   - CESU-8: a lead surrogate sequence not followed by a trail one, and a
 *     trail surrogate sequence not preceded by a lead one, are
 *     UTFKIT_SURROGATE (3 bytes), as UTF-16 cuts an unpaired surrogate; a
 *     lead surrogate sequence whose trail is cut off by the end of input
 *     (nothing, ED, or ED B0..BF follows) is UTFKIT_END_OF_DATA up to the
 *     end.
 *   - MUTF-8: U+0000 is C0 80; a raw 00 is UTFKIT_INVALID_START; C0 not
 *     followed by 80 is UTFKIT_INVALID_CONTINUATION (1 byte), or
 *     UTFKIT_END_OF_DATA at the end. */

/* Converts src from one form to another.  status OK and written = bytes
 * written; or the first ill-formed subsequence (with errors = STRICT),
 * written = the bytes its well-formed prefix converts to; or, when cap is
 * too small, UTFKIT_OUTPUT_TOO_SMALL with position = len and written = the
 * exact length the whole output needs (whole characters that fit may be
 * written in dst[0..cap), never more).  With STRICT, an ill-formed
 * subsequence is reported even when cap is also too small.  from == to is
 * allowed: validation and repair, or a byte swap.  dst[0..cap) must not
 * overlap src[0..len): UTFKIT_OVERLAPPING_BUFFERS, nothing written. */
utfkit_result utfkit_transcode(const uint8_t *src, size_t len, int from, int to, int errors,
                               uint8_t *dst, size_t cap);

/* utfkit_transcode for bindings that pay per argument and per returned
 * struct (Python through cffi, where both cost more than converting a short
 * input): `how` is from | to << 4 | errors << 8.  Returns the bytes written
 * when the status is OK, else -1 - status; the call is deterministic, so a
 * caller that needs the rest of the result calls utfkit_transcode again. */
int64_t utfkit_transcode_packed(const uint8_t *src, size_t len, int how, uint8_t *dst, size_t cap);

/* Bounded conversion: converts the longest prefix of src whose output fits
 * in dst[0..cap), cut where a reader of the whole of src would be between
 * characters (or ill-formed subsequences), so that converting src[position..)
 * next continues the output exactly.  With final = 0, an unfinished
 * character at the end of src is left unconverted (the caller passes it
 * again with more input).  position = bytes consumed, written = bytes
 * written; status UTFKIT_OUTPUT_TOO_SMALL when the next character does not
 * fit, else OK (all of src but that unfinished character is converted, or,
 * with STRICT, an error comes next).  With STRICT, the call that starts at
 * an ill-formed subsequence reports it (position in src, written 0), and
 * one that starts at a character `to` cannot encode reports
 * UTFKIT_UNENCODABLE -- except that a WTF-8 lead surrogate byte sequence
 * followed by a trail one (ill-formed, WTF-8 section 4.3: the trail is the
 * error) is reported by the call that starts at the lead, with the lead's
 * output in dst[0..written) as utfkit_transcode writes it (a call that
 * consumed the lead would leave the next one a lone trail, well-formed).
 * WTF-8 output with IGNORE: no call ends its output in a lone lead
 * surrogate that one-shot conversion would join with a trail after dropped
 * bytes (WTF-8 section 6.1); with final = 0 a lead followed only by
 * ill-formed bytes is left unconsumed.  Refuses overlapping buffers as
 * utfkit_transcode. */
utfkit_result utfkit_transcode_partial(const uint8_t *src, size_t len, int from, int to,
                                       int errors, int final, uint8_t *dst, size_t cap);

/* Exact length of utfkit_transcode's output in written (status OK), or the
 * first ill-formed subsequence with errors = STRICT. */
utfkit_result utfkit_transcoded_length(const uint8_t *src, size_t len, int from, int to,
                                       int errors);

/* The exact length of utfkit_transcode's output for src that is
 * well-formed in `from` (check with utfkit_validate first).  Between UTF-8,
 * UTF-16 and UTF-32 it is computed by counting alone -- much faster than a
 * conversion; from or to WTF-8, CESU-8 and MUTF-8 it is a conversion into
 * a measuring sink (nothing is written).  For ill-formed src the
 * number means nothing, but nothing outside src[0..len) is read. */
size_t utfkit_well_formed_length(const uint8_t *src, size_t len, int from, int to);

/* The first ill-formed subsequence of src in the given form, as
 * utfkit_utf8_check does for UTF-8. */
utfkit_result utfkit_check(const uint8_t *src, size_t len, int form);

/* 1 if src is well-formed in the given form, else 0. */
int utfkit_validate(const uint8_t *src, size_t len, int form);

/* The length of the longest prefix of src that is ASCII (bytes 00..7F):
 * len when all of it is. */
size_t utfkit_ascii_length(const uint8_t *src, size_t len);

/* Validates many buffers in one call: the `count` buffers laid end to end
 * in src[0..len), the i-th lengths[i] bytes long.  Sets valid[i] to 1 if
 * the i-th is well-formed in `form`, else 0, and returns how many are well-
 * formed -- or (size_t)-1, writing nothing, if the lengths do not add up
 * to len exactly. */
size_t utfkit_validate_many(const uint8_t *src, size_t len, const size_t *lengths, size_t count,
                            int form, uint8_t *valid);

/* Code points a conversion with errors = REPLACE produces. */
size_t utfkit_count(const uint8_t *src, size_t len, int form);

/* ---- UTF-E-8 (seed 002): code points 0 .. 7FFFFFFFFFFFFFFF ---- */

/* UTF-E-8 is the original 1-6 byte UTF-8 (lead bytes C2..FD) below
 * U+80000000, FE + 6 continuation bytes up to U+FFFFFFFFF and FF + 12
 * continuation bytes up to U+7FFFFFFFFFFFFFFF; surrogates and values above
 * 10FFFF are ordinary code points.  Shortest form only: an overlong
 * sequence is ill-formed (Corrigendum #1), cut where it becomes one --
 * E0 80..9F, F0 80..8F, F8 80..87, FC 80..83, FE 80..81, and FF 80 80 80
 * 80 80 80 (a value below 2^36) -- as UTFKIT_INVALID_CONTINUATION, the
 * maximal subpart being the bytes before the byte that decides.  Above
 * 2^63 - 1 (FF then 81..BF, or FF 80 then 88..BF): UTFKIT_TOO_LARGE.
 * As a form of utfkit_transcode and the other form-generic calls:
 * UTFKIT_UTFE8 and UTFKIT_UTF8_RFC2279. */

/* `limit` (at most 7FFFFFFFFFFFFFFF) restricts both functions to code
 * points 0..limit: 7FFFFFFF reads and writes RFC 2279 exactly.  A sequence
 * above the limit is UTFKIT_TOO_LARGE, cut before the byte that puts it
 * there (at least the lead byte).  A limit above 7FFFFFFFFFFFFFFF is
 * refused: UTFKIT_TOO_LARGE with subpart_length 0. */

/* Writes the UTF-E-8 form of count code points.  status OK and written =
 * bytes; UTFKIT_TOO_LARGE at position = the index of the first code point
 * above limit, subpart_length 1 (written = the bytes before it); or, when
 * cap is too small, UTFKIT_OUTPUT_TOO_SMALL with written = the exact length
 * needed (whole sequences that fit are in dst[0..cap), never more). */
utfkit_result utfkit_utfe8_encode(const uint64_t *code_points, size_t count, uint64_t limit,
                                  uint8_t *dst, size_t cap);

/* Decodes UTF-E-8 into code points: dst has room for cap of them, written
 * counts them.  errors as for utfkit_transcode (REPLACE writes 0xFFFD per
 * maximal subpart); position / subpart_length in bytes. */
utfkit_result utfkit_utfe8_decode(const uint8_t *src, size_t len, int errors, uint64_t limit,
                                  uint64_t *dst, size_t cap);

/* The first ill-formed subsequence of UTF-E-8 input (written = code points
 * before it). */
utfkit_result utfkit_utfe8_check(const uint8_t *src, size_t len);

/* ---- columns: many strings in Apache Arrow's layout ---- */

/* A column of `entries - 1` items (none when entries is 0) laid out as
 * Apache Arrow lays out a binary or string array (Arrow Columnar Format,
 * "Variable-size Binary Layout"): item i is src[offsets[i] .. offsets[i+1]).
 * The offsets are `entries` signed integers of offset_width bytes (4: int32,
 * 8: int64) in native byte order, read from offsets[] whatever its
 * alignment.  Before anything else every function checks them -- each at
 * least 0 and at most len, none below the one before -- so that no item
 * reaches outside src[0..len); a column that fails writes nothing. */
typedef enum utfkit_offsets_status {
    UTFKIT_OFFSETS_OK = 0,
    UTFKIT_OFFSETS_BAD_WIDTH = 1,        /* offset_width is neither 4 nor 8 */
    UTFKIT_OFFSETS_NEGATIVE = 2,         /* offsets[index] < 0 */
    UTFKIT_OFFSETS_DECREASING = 3,       /* offsets[index] < offsets[index - 1] */
    UTFKIT_OFFSETS_PAST_END = 4,         /* offsets[index] > len */
    /* dst or the new offsets cannot hold the output: value is the exact
     * number of bytes needed; dst[0..cap) may hold part of it. */
    UTFKIT_OFFSETS_OUTPUT_TOO_SMALL = 5,
    /* the output's offsets would not fit in offset_width bytes (an int32
     * column growing past 2^31 - 1 bytes) */
    UTFKIT_OFFSETS_TOO_LARGE = 6,
    /* item `index` is ill-formed and errors is UTFKIT_STRICT: `item` says
     * where, counted from the item's first byte */
    UTFKIT_OFFSETS_ILL_FORMED = 7
} utfkit_offsets_status;

typedef struct utfkit_offsets_result {
    int status;          /* a utfkit_offsets_status */
    size_t index;        /* the offset (bad offsets) or the item (ill-formed) at fault */
    size_t value;        /* validate: well-formed items; convert: bytes written (or needed) */
    size_t repaired;     /* utfkit_offsets_sanitize: items that were ill-formed */
    utfkit_result item;  /* UTFKIT_OFFSETS_ILL_FORMED: the item's first ill-formed subsequence */
} utfkit_offsets_result;

/* Sets valid[i] to 1 if item i is well-formed in `form`, else 0; value =
 * the number of well-formed items. */
utfkit_offsets_result utfkit_offsets_validate(const uint8_t *src, size_t len, const uint8_t *offsets,
                                              size_t entries, int offset_width, int form,
                                              uint8_t *valid);

/* Sets counts[i] to the code points utfkit_count gives for item i. */
utfkit_offsets_result utfkit_offsets_count(const uint8_t *src, size_t len, const uint8_t *offsets,
                                           size_t entries, int offset_width, int form,
                                           int64_t *counts);

/* Repairs a column: item i of the output is item i with each ill-formed
 * subsequence replaced by U+FFFD, as utfkit_transcode(form, form,
 * UTFKIT_REPLACE) writes it (UTF-8: utfkit_utf8_sanitize).  When every item
 * is well-formed nothing is written and repaired is 0: the input column is
 * its own repair.  Otherwise dst[0..value) holds the items end to end and
 * new_offsets (`entries` offsets of offset_width bytes, room for
 * new_offsets_cap bytes) their offsets, starting at 0. */
utfkit_offsets_result utfkit_offsets_sanitize(const uint8_t *src, size_t len, const uint8_t *offsets,
                                              size_t entries, int offset_width, int form,
                                              uint8_t *dst, size_t cap,
                                              uint8_t *new_offsets, size_t new_offsets_cap);

/* Converts every item as utfkit_transcode(from, to, errors) does, writing
 * the items end to end in dst and their offsets (offset_width bytes each,
 * starting at 0) in new_offsets.  With UTFKIT_STRICT the first ill-formed
 * item stops it: UTFKIT_OFFSETS_ILL_FORMED. */
utfkit_offsets_result utfkit_offsets_transcode(const uint8_t *src, size_t len, const uint8_t *offsets,
                                               size_t entries, int offset_width, int from, int to,
                                               int errors, uint8_t *dst, size_t cap,
                                               uint8_t *new_offsets, size_t new_offsets_cap);

/* ---- kernels ---- */

/* Name of the active kernel: "scalar", "sse2", "sse4", "avx2", "avx512" or
 * "neon" (utfkit_backend_name lists them).  The first call into the core
 * makes the best kernel this CPU runs the active one, and that one runs
 * every operation. */
const char *utfkit_backend(void);

/* Makes the named kernel active.  0 on success, -1 if the name is unknown,
 * -2 if this CPU cannot run it.  NULL selects the best one for this CPU.
 * A call already running in another thread finishes with either kernel
 * (all give identical results). */
int utfkit_set_backend(const char *name);

/* 1 if this CPU can run the named kernel, else 0. */
int utfkit_backend_available(const char *name);

/* Name of the index-th kernel this build knows, slowest first (whether or
 * not this CPU can run it), or NULL when index is past the last: lets tests
 * and fuzzers visit every kernel, including ones added later. */
const char *utfkit_backend_name(size_t index);

/* Space-separated CPU features the dispatcher looked at and found,
 * e.g. "sse2 ssse3 sse4.2 avx2 avx512f avx512bw". */
const char *utfkit_cpu_features(void);

/* ---- streams: text that arrives in pieces ---- */

/* The state of one stream being checked chunk by chunk; the caller owns it
 * (on its stack, or inside an object) and the core only reads and writes the
 * fields.  Set it up with utfkit_stream_init; read offset, pending_length
 * and the error_* fields freely, write none of them.  Not shared between
 * threads: one stream, one caller at a time. */
typedef struct utfkit_stream {
    int form;                /* a utfkit_form */
    int status;              /* UTFKIT_OK, or the first ill-formed subsequence's status: once
                                set, every later call reports the same error */
    uint64_t offset;         /* bytes fed so far (a failing feed adds none) */
    uint64_t error_position; /* stream offset of the first ill-formed subsequence */
    uint64_t error_length;   /* its length in bytes: the maximal subpart for UTF-8 */
    uint32_t error_unit;     /* its first code unit: for UTF-16, tells an unpaired
                                lead surrogate from an unpaired trail surrogate; for
                                WTF-8, CESU-8, MUTF-8 the first byte, or the surrogate
                                a surrogate byte sequence encodes */
    uint32_t pending_length; /* bytes of an unfinished character kept from earlier
                                chunks: it began at offset - pending_length */
    uint32_t held_lead;      /* utfkit_stream_transcode into WTF-8: the lone lead
                                surrogate (D800..DBFF) the output so far ends in, not
                                yet written, since a trail surrogate that begins the
                                next output joins it (WTF-8 section 6.1); else 0 */
    uint8_t pending[16];     /* at most 12: a UTF-E-8 13-byte sequence less one */
} utfkit_stream;

/* Starts a stream of the given form (any utfkit_form) at offset 0.  0, or
 * -1 if the form is unknown (the stream is then left unusable). */
int utfkit_stream_init(utfkit_stream *stream, int form);

/* Feeds the next len bytes of the stream.  Fail-fast: reports the first
 * ill-formed subsequence in the very call that delivers the byte deciding
 * it (UTF-8: the first byte that cannot continue or begin well-formed text,
 * RFC 6455 section 8.1; UTF-16 and UTF-32: the last byte of the code unit
 * that decides it; WTF-8, CESU-8, MUTF-8: the byte that decides it, as for
 * UTF-8), with position and subpart_length counted from the start of the
 * stream and equal to what utfkit_check reports for the whole stream.
 * status OK (position = len) otherwise.  The bytes the next chunk may change
 * the reading of (utfkit_incomplete_suffix_length) are kept in the stream,
 * not re-read. */
utfkit_result utfkit_stream_feed(utfkit_stream *stream, const uint8_t *src, size_t len);

/* Ends the stream: UTFKIT_END_OF_DATA (position and subpart_length as
 * utfkit_check reports them for the whole stream) if it ends inside a
 * character, the earlier error if there was one, else OK. */
utfkit_result utfkit_stream_finish(utfkit_stream *stream);

/* Converts the next len bytes of a stream of the stream's form into `to`,
 * writing to dst what utfkit_transcode writes for them in the whole stream,
 * and keeping the bytes the next chunk may change the reading of.  With
 * final = 1 the stream ends: the kept bytes are converted too, and the
 * stream then starts again at offset 0.  status OK and written = bytes
 * written; or (errors = STRICT) the first ill-formed subsequence, decided
 * by the bytes seen so far (fail-fast, as utfkit_stream_feed), position
 * counted from the start of the stream; or UTFKIT_OUTPUT_TOO_SMALL.  On
 * any error the stream is left as it was before the call -- the chunk is
 * not consumed -- except that error_position, error_length and error_unit
 * describe the error.  dst needs room for the conversion of
 * pending_length + len bytes, and 3 more when held_lead is set.
 * Into WTF-8 the output of a call never ends in a lone lead surrogate
 * unless the call is final: the lead is held back (held_lead) and written
 * at the start of the next call's output, joined into one 4-byte sequence
 * with a trail surrogate that begins it -- as one-shot conversion joins a
 * lead and a trail that only dropped (IGNORE) bytes separate (WTF-8
 * section 6.1).  `to` stays the same for the whole stream. */
utfkit_result utfkit_stream_transcode(utfkit_stream *stream, const uint8_t *src, size_t len,
                                      int final, int to, int errors, uint8_t *dst, size_t cap);

/* Length of what must be held back at the end of src, read as the
 * beginning of a longer stream: the bytes whose reading the next bytes may
 * change.  UTF-8: a Table 3-7 row begun and well-formed so far; UTF-16: a
 * final odd byte, after a lead surrogate or not, or a final lead surrogate;
 * UTF-32: a final partial unit; WTF-8, CESU-8, MUTF-8: a sequence cut short,
 * and a lead surrogate byte sequence before it when what follows may still
 * be its trail (csrc/stream.c says more).  At most 7 bytes.  Cutting
 * a stream at len - this, for every chunk, cuts it only where a reader of
 * the whole stream is between characters or ill-formed subsequences and
 * what follows cannot change what came before.  0 for an unknown form. */
size_t utfkit_incomplete_suffix_length(const uint8_t *src, size_t len, int form);

/* END CDEF */

#ifdef __cplusplus
}
#endif

#endif /* UTFKIT_H */
