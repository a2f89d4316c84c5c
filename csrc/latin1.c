/*
 * latin1.c -- Latin-1 (ISO/IEC 8859-1) and ASCII, read into every form and
 * written from every form, with CPython's latin-1 and ascii codecs as the
 * reference: a Latin-1 byte is the code point of its value (never
 * ill-formed); an ASCII byte 80..FF is ill-formed, one byte ("ordinal not
 * in range(128)"); as destinations they encode U+0000..U+00FF and
 * U+0000..U+007F, and a character outside that range is, as CPython's
 * encoders do with it, an error (STRICT), '?' (REPLACE) or nothing (IGNORE).
 * A U+FFFD that REPLACE puts for an ill-formed subsequence of the input is
 * such a character too ('?'), as in CPython's decode(errors).encode(errors).
 */
#include "readers.h"

/* The highest code point a narrow destination encodes. */
static inline uint32_t narrow_limit(int to)
{
    return to == UTFKIT_LATIN1 ? 0xFFu : 0x7Fu;
}

/* Appends n one-byte characters to the sink: those that fit are written,
 * and once one does not, nothing more is (sink.h's contract). */
static void sink_append(utfkit_sink *sink, const uint8_t *bytes, size_t n)
{
    if (!sink->full) {
        size_t room = sink->out <= sink->cap ? sink->cap - sink->out : 0;
        size_t fit = n <= room ? n : room;
        if (fit != 0)
            memcpy(sink->dst + sink->out, bytes, fit);
        if (fit < n)
            sink->full = 1;
    }
    sink->out += n;
}

/* ---- reading Latin-1 and ASCII into the Unicode forms ---- */

/* The most bytes one input byte becomes: a Latin-1 byte above 7F is 2
 * bytes of UTF-8 (Table 3-6), a U+FFFD for an ASCII byte above 7F is 3;
 * one UTF-16 or UTF-32 code unit; nothing when counting. */
static UTFKIT_ALWAYS_INLINE size_t output_per_latin1_byte(int to)
{
    return to == UTFKIT_COUNT_ONLY ? 0
         : (to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE) ? 2
         : (to == UTFKIT_UTF32LE || to == UTFKIT_UTF32BE) ? 4 : 3;
}

/* The forms whose code units hold a Latin-1 byte's value as it is. */
static inline int form_is_utf16_or_utf32(int form)
{
    return form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE || form == UTFKIT_UTF32LE ||
           form == UTFKIT_UTF32BE;
}

/* Reads at reader->i a run of ASCII that ends by run_end (found by the
 * active kernel), or one byte above 7F: a code point (Latin-1) or an
 * ill-formed byte (ASCII); writes unchecked.  Into UTF-16 and UTF-32 every
 * Latin-1 byte up to run_end, and every byte of an ASCII run, is one code
 * unit of its value, widened by the active kernel's block (reader->blocks)
 * where it has one, else by put_ascii.  Latin-1 into the forms that write
 * U+0000..U+00FF as UTF-8 does goes to the kernel's block first too. */
static UTFKIT_ALWAYS_INLINE size_t latin1_step(text_reader *reader, uint8_t *dst, size_t out,
                                               size_t run_end, int ascii, int to)
{
    const uint8_t *src = reader->src;
    size_t at = reader->i;
    if (form_is_utf16_or_utf32(to) && (!ascii || src[at] < 0x80)) {
        size_t run = ascii ? reader->kernel->ascii_prefix_length(src + at, run_end - at)
                           : run_end - at;
        size_t taken = 0, written = 0;
        if (reader->blocks != NULL && run >= UTFKIT_TRANSCODE_BLOCK)
            taken = reader->blocks(src + at, run, reader->block_byte_orders, dst + out, &written);
        reader->i = at + run;
        /* (a Latin-1 byte above 7F is zero-extended as an ASCII one is) */
        return put_ascii(dst, out + written, to, src + at + taken, run - taken);
    }
    if (!ascii && form_writes_bmp_as_utf8(to)) {
        if (transcode_blocks_step(reader, dst, &out, run_end))
            return out;
        run_end = scalar_run_end(reader, run_end);
    }
    if (src[at] < 0x80) {
        size_t run = reader->kernel->ascii_prefix_length(src + at, run_end - at);
        reader->i = at + run;
        return put_ascii(dst, out, to, src + at, run);
    }
    if (ascii)
        return step_over_ill_formed(reader, UTFKIT_INVALID_START, 1, at, dst, out, to);
    reader->i = at + 1;
    return put(dst, out, to, src[at]);
}

static UTFKIT_ALWAYS_INLINE utfkit_result latin1_read(const uint8_t *src, size_t len, int ascii,
                                                      int errors, utfkit_sink *sink, int to)
{
    text_reader reader = text_reader_over(src, len, errors, 0);
    reader.blocks = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE ? reader.kernel->latin1_to_utf16
                  : to == UTFKIT_UTF32LE || to == UTFKIT_UTF32BE ? reader.kernel->latin1_to_utf32
                                                                 : reader.kernel->latin1_to_utf8;
    reader.block_byte_orders = to == UTFKIT_UTF16BE || to == UTFKIT_UTF32BE;
    sink_window window = SINK_WINDOW_STRETCHED;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len && reader.status == UTFKIT_OK) {
        sink_window_open(sink, &window, scratch, reader.i, len, output_per_latin1_byte(to), 0);
        while (reader.i < window.stop && reader.status == UTFKIT_OK)
            window.out = latin1_step(&reader, window.dst, window.out, window.run_end, ascii, to);
        reader.i = sink_window_close_status(sink, &window, reader.i, to, &reader.status);
    }
    return text_reader_result(&reader, sink);
}

/* ---- Latin-1 and ASCII into Latin-1 and ASCII ---- */

/* Each byte is one character, so whole runs are copied: the bytes below
 * 80 always, the others when the source is Latin-1 and the destination
 * too; any other byte is ill-formed ASCII input (a decode error comes
 * first) or a character ASCII cannot encode. */
static utfkit_result narrow_to_narrow(const uint8_t *src, size_t len, int ascii, int to,
                                      int errors, utfkit_sink *sink)
{
    if (!ascii && to == UTFKIT_LATIN1) {
        sink_append(sink, src, len);
        return sink_result(sink, len);
    }
    static const uint8_t question_mark = '?';
    for (size_t i = 0; i < len;) {
        size_t run = utfkit_kernel_active()->ascii_prefix_length(src + i, len - i);
        sink_append(sink, src + i, run);
        i += run;
        if (i == len)
            break;
        if (!ascii && to == UTFKIT_LATIN1) {
            sink_append(sink, src + i, 1);
        } else if (errors == UTFKIT_STRICT) {
            if (ascii) /* ill-formed input: the decoder's error */
                return sink_error(sink, UTFKIT_INVALID_START, i, 1);
            /* Latin-1 input cannot be ill-formed: this is the first error */
            utfkit_result result = {UTFKIT_UNENCODABLE, len, 0, i};
            return result;
        } else if (errors == UTFKIT_REPLACE) {
            sink_append(sink, &question_mark, 1);
        }
        i++;
    }
    return sink_result(sink, len);
}

#define LATIN1_READ(to) latin1_read(src, len, ascii, errors, sink, to)

utfkit_result latin1_transcode(const uint8_t *src, size_t len, int ascii, int to, int errors,
                               utfkit_sink *sink)
{
    if (to == UTFKIT_LATIN1 || to == UTFKIT_ASCII)
        return narrow_to_narrow(src, len, ascii, to, errors, sink);
    UTFKIT_FOR_EACH_DESTINATION(to, LATIN1_READ)
}

/* ---- every other form into Latin-1 and ASCII ---- */

/* Source bytes per piece: a piece decodes to at most as many code points
 * (a code unit of any form, or a final partial one, yields at most one). */
#define NARROW_PIECE 2048

/* Narrows n code points to one byte each into bytes[], as `errors` says
 * for those above limit; returns the bytes made and sets *first_above to
 * the index of the first code point above limit (n if none). */
static size_t narrow_code_points(const uint32_t *code_points, size_t n, uint32_t limit,
                                 int errors, uint8_t *bytes, size_t *first_above)
{
    uint32_t above = 0;
    if (errors != UTFKIT_IGNORE) {
        for (size_t k = 0; k < n; k++) { /* branch free: vectorised */
            uint32_t code_point = code_points[k];
            above |= code_point > limit;
            bytes[k] = code_point <= limit ? (uint8_t)code_point : (uint8_t)'?';
        }
        *first_above = n;
        if (above)
            for (size_t k = 0; k < n; k++)
                if (code_points[k] > limit) {
                    *first_above = k;
                    break;
                }
        return n;
    }
    size_t made = 0;
    for (size_t k = 0; k < n; k++) {
        bytes[made] = (uint8_t)code_points[k];
        made += code_points[k] <= limit;
    }
    *first_above = n;
    return made;
}

/* Text that UTF-8 and Latin-1 (or ASCII) share the shape of, read
 * straight into dst: ASCII runs (found by the active kernel) copied, and,
 * into Latin-1, the two-byte sequences C2..C3 80..BF (Table 3-7, row
 * C2..DF) of U+0080..U+00FF -- both by the active kernel's narrowing block
 * where it has one.  Stops before anything else; returns the bytes read,
 * which end between characters, and sets *made to the bytes written (dst
 * has room for n). */
static size_t utf8_narrow_prefix(const uint8_t *src, size_t n, int to, uint8_t *dst, size_t *made)
{
    const utfkit_kernel *kernel = utfkit_kernel_active();
    utfkit_transcode_block narrow = to == UTFKIT_LATIN1 ? kernel->utf8_to_latin1 : NULL;
    size_t i = 0, o = 0;
    while (i < n) {
        if (narrow != NULL) {
            size_t written;
            i += narrow(src + i, n - i, 0, dst + o, &written);
            o += written;
            if (i == n)
                break;
        }
        size_t at = i;
        size_t run = kernel->ascii_prefix_length(src + i, n - i);
        memcpy(dst + o, src + i, run);
        i += run;
        o += run;
        if (i == n || to != UTFKIT_LATIN1)
            break;
        while (n - i >= 2 && (src[i] & 0xFE) == 0xC2 && (src[i + 1] & 0xC0) == 0x80) {
            dst[o++] = (uint8_t)((src[i] & 0x03) << 6 | (src[i + 1] & 0x3F));
            i += 2;
        }
        if (i == at)
            break;
    }
    *made = o;
    return i;
}

/* Code units of UTF-16 or UTF-32 (`unit` bytes each, in the byte order
 * big_endian says) read straight into dst while they are at most `limit`:
 * each such unit is a code point (never a surrogate) of one byte.  Into
 * Latin-1 the active kernel's narrowing block goes first, where it has one;
 * then whole stretches of 16 units are tested, branch free, so that the
 * loops vectorise.  Returns the bytes read; *made is the bytes written (dst has
 * room for n / unit). */
static size_t wide_narrow_prefix(const uint8_t *src, size_t n, size_t unit, int big_endian,
                                 uint32_t limit, uint8_t *dst, size_t *made)
{
    size_t units = n / unit, k = 0;
    const utfkit_kernel *kernel = utfkit_kernel_active();
    utfkit_transcode_block narrow = limit != 0xFF ? NULL
                                  : unit == 2 ? kernel->utf16_to_latin1 : kernel->utf32_to_latin1;
    if (narrow != NULL && n >= UTFKIT_TRANSCODE_BLOCK) {
        size_t written;
        k = narrow(src, n, big_endian, dst, &written) / unit; /* (written == k) */
    }
    for (; units - k >= 16; k += 16) {
        uint32_t above = 0;
        for (size_t j = 0; j < 16; j++) {
            const uint8_t *p = src + (k + j) * unit;
            above |= (unit == 2 ? load16(p, big_endian) : load32(p, big_endian)) > limit;
        }
        if (above)
            break;
        for (size_t j = 0; j < 16; j++) {
            const uint8_t *p = src + (k + j) * unit;
            dst[k + j] = (uint8_t)(unit == 2 ? load16(p, big_endian) : load32(p, big_endian));
        }
    }
    for (; k < units; k++) {
        const uint8_t *p = src + k * unit;
        uint32_t code_unit = unit == 2 ? load16(p, big_endian) : load32(p, big_endian);
        if (code_unit > limit)
            break;
        dst[k] = (uint8_t)code_unit;
    }
    *made = k;
    return k * unit;
}

/* The straight reading of `from` at src[0..n) into Latin-1 or ASCII: what
 * utf8_narrow_prefix or wide_narrow_prefix takes. */
static size_t narrow_prefix(const uint8_t *src, size_t n, int from, int to, uint8_t *dst,
                            size_t *made)
{
    switch (from) {
    case UTFKIT_UTF16LE:
        return wide_narrow_prefix(src, n, 2, 0, narrow_limit(to), dst, made);
    case UTFKIT_UTF16BE:
        return wide_narrow_prefix(src, n, 2, 1, narrow_limit(to), dst, made);
    case UTFKIT_UTF32LE:
        return wide_narrow_prefix(src, n, 4, 0, narrow_limit(to), dst, made);
    case UTFKIT_UTF32BE:
        return wide_narrow_prefix(src, n, 4, 1, narrow_limit(to), dst, made);
    default:
        return utf8_narrow_prefix(src, n, to, dst, made);
    }
}

/* The bytes of `from` that make at most one byte of Latin-1 or ASCII: a
 * code unit of UTF-16 or UTF-32, any byte of UTF-8 (each character read
 * straight is one byte of output, and at least one code unit of input). */
static size_t narrow_unit(int from)
{
    return from == UTFKIT_UTF16LE || from == UTFKIT_UTF16BE   ? 2
         : from == UTFKIT_UTF32LE || from == UTFKIT_UTF32BE ? 4 : 1;
}

/* The bytes the sink still has room for (0 once it is full or counts). */
static size_t sink_room(const utfkit_sink *sink)
{
    return sink->full || sink->out > sink->cap ? 0 : sink->cap - sink->out;
}

/* 1 if the sink writes (a measuring sink has no dst) and the straight
 * reading of n bytes of `from` fits in its room. */
static int sink_has_room(const utfkit_sink *sink, size_t n, int from)
{
    return sink->dst != NULL && !sink->full && sink_room(sink) >= n / narrow_unit(from);
}

/* The straight reading (narrow_prefix) of src[0..n) into the sink: into
 * dst itself while it has room for what n bytes make, else through `bytes`
 * (n is at most NARROW_PIECE then). */
static size_t narrow_into(const uint8_t *src, size_t n, int from, int to, utfkit_sink *sink,
                          uint8_t *bytes)
{
    size_t made;
    if (sink_has_room(sink, n, from)) {
        size_t read = narrow_prefix(src, n, from, to, sink->dst + sink->out, &made);
        sink->out += made;
        return read;
    }
    size_t read = narrow_prefix(src, n, from, to, bytes, &made);
    sink_append(sink, bytes, made);
    return read;
}

/* The forms narrow_prefix reads straight. */
static int reads_straight(int from)
{
    return from == UTFKIT_UTF8 || from == UTFKIT_UTF16LE || from == UTFKIT_UTF16BE ||
           from == UTFKIT_UTF32LE || from == UTFKIT_UTF32BE;
}

/* Bytes the piece after a stop of the straight reading covers: the
 * character it stopped at and a few after it -- eight times as many after each
 * stop in a row at which the straight reading took nothing (text mostly
 * above U+00FF), up to a whole piece. */
#define NARROW_DETOUR 16

/* A rest this short after a stop is read in one piece: a detour costs
 * about as much as reading the rest does. */
#define NARROW_SHORT_REST 256

utfkit_result narrow_transcode(const uint8_t *src, size_t len, int from, int to, int errors,
                               utfkit_sink *sink)
{
    const int utf32 = UTFKIT_HOST_BIG_ENDIAN ? UTFKIT_UTF32BE : UTFKIT_UTF32LE;
    uint32_t code_points[NARROW_PIECE];
    uint8_t bytes[NARROW_PIECE];
    size_t unencodable = SIZE_MAX; /* index of the first character to report */
    size_t detour = NARROW_DETOUR;
    for (size_t begin = 0; begin < len;) {
        size_t stretch = NARROW_PIECE;
        if (reads_straight(from)) {
            /* the whole rest when the sink has room for it, else as much
             * of it as the room holds (narrow_into then writes there
             * directly: an out= buffer of the output's exact size is
             * filled at full speed up to its last piece), else a piece */
            size_t n = len - begin;
            if (n > NARROW_PIECE && !sink_has_room(sink, n, from)) {
                size_t fits = sink_room(sink); /* characters, one byte each */
                size_t unit = narrow_unit(from);
                n = fits > NARROW_PIECE && fits < n / unit ? fits * unit : NARROW_PIECE;
            }
            size_t read = narrow_into(src + begin, n, from, to, sink, bytes);
            begin += read;
            if (begin == len)
                break;
            if (read == n) {
                detour = NARROW_DETOUR;
                continue; /* a whole piece read straight: the next one too */
            }
            detour = read != 0 ? NARROW_DETOUR : detour < NARROW_PIECE / 8 ? 8 * detour : NARROW_PIECE;
            stretch = len - begin <= NARROW_SHORT_REST ? len - begin : detour;
        }
        size_t want = len - begin > stretch ? begin + stretch : len;
        size_t end = want == len ? len : reader_restart_point(src, begin, want, len, from);
        if (end == begin)
            end = want; /* (reader_restart_point always finds one in a piece this long) */
        utfkit_sink piece = sink_over((uint8_t *)code_points, sizeof code_points);
        utfkit_result decoded = transcode_read_into(src + begin, end - begin, from, utf32, errors,
                                                    &piece);
        if (decoded.status != UTFKIT_OK) {
            /* A strict decode error, which comes before any encode error.
             * Its reason is the one the reader of the whole rest gives. */
            utfkit_sink measure = sink_over(NULL, 0);
            utfkit_result exact = transcode_read_into(src + begin, len - begin, from, utf32,
                                                      UTFKIT_STRICT, &measure);
            if (exact.status == UTFKIT_OK || exact.status == UTFKIT_OUTPUT_TOO_SMALL)
                exact = decoded;
            exact.position += begin;
            exact.written = sink->out + decoded.written / 4;
            return exact;
        }
        size_t n = decoded.written / 4, first_above;
        size_t made = narrow_code_points(code_points, n, narrow_limit(to), errors, bytes,
                                         &first_above);
        if (errors == UTFKIT_STRICT && first_above != n && unencodable == SIZE_MAX)
            unencodable = sink->out + first_above;
        sink_append(sink, bytes, made);
        begin = end;
    }
    if (unencodable != SIZE_MAX) {
        utfkit_result result = {UTFKIT_UNENCODABLE, len, 0, unencodable};
        return result;
    }
    return sink_result(sink, len);
}
