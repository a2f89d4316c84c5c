/*
 * x86_byte_writer.h -- variable-length output of the x86 transcoding
 * blocks (x86_sse4_transcode.c, x86_avx2_transcode.c), 16-byte vectors of
 * which the first `count` bytes count.
 *
 * A vector is stored whole once the next one is known (the next one's
 * bytes go after its `count`), so each store covers the surplus of the one
 * before; the last one is copied exactly (byte_writer_finish), so nothing
 * past the output changes.  Storing each exactly would mean reading back
 * bytes just stored, which stalls store forwarding.
 *
 * Included after the includer has set its target (SSE2 is all this needs),
 * so that these compile with the includer's instruction set.
 */
#ifndef UTFKIT_X86_BYTE_WRITER_H
#define UTFKIT_X86_BYTE_WRITER_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

typedef struct byte_writer {
    uint8_t *out;
    __m128i pending;
    unsigned count;
} byte_writer;

static inline byte_writer byte_writer_at(uint8_t *out)
{
    byte_writer writer = {out, _mm_setzero_si128(), 0};
    return writer;
}

static inline void byte_writer_put(byte_writer *writer, __m128i bytes, unsigned count)
{
    if (count == 0)
        return;
    if (writer->count != 0) {
        _mm_storeu_si128((__m128i *)writer->out, writer->pending);
        writer->out += writer->count;
    }
    writer->pending = bytes;
    writer->count = count;
}

/* Stores what is pending whole, for a store of at least 16 bytes at the
 * returned address to follow. */
static inline uint8_t *byte_writer_before_wide_store(byte_writer *writer)
{
    if (writer->count != 0) {
        _mm_storeu_si128((__m128i *)writer->out, writer->pending);
        writer->out += writer->count;
        writer->count = 0;
    }
    return writer->out;
}

static inline uint8_t *byte_writer_finish(byte_writer *writer)
{
    uint8_t bytes[16];
    _mm_storeu_si128((__m128i *)bytes, writer->pending);
    memcpy(writer->out, bytes, writer->count);
    return writer->out + writer->count;
}

#endif /* UTFKIT_X86_BYTE_WRITER_H */
