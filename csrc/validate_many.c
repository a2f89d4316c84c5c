/*
 * validate_many.c -- one call that validates many short buffers.
 *
 * A server checks many small strings; from Python each call costs more than
 * validating 16 or 64 bytes does.  The binding lays the buffers end to end
 * (one bytes.join) with their lengths beside them, and this validates each
 * in turn with the active kernel.
 */
#include "utfkit.h"

size_t utfkit_validate_many(const uint8_t *src, size_t len, const size_t *lengths, size_t count,
                            int form, uint8_t *valid)
{
    /* The lengths must tile src exactly: nothing is read outside it. */
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        if (lengths[i] > len - total)
            return (size_t)-1;
        total += lengths[i];
    }
    if (total != len)
        return (size_t)-1;

    size_t well_formed = 0, offset = 0;
    for (size_t i = 0; i < count; i++) {
        valid[i] = (uint8_t)(utfkit_validate(src + offset, lengths[i], form) != 0);
        well_formed += valid[i];
        offset += lengths[i];
    }
    return well_formed;
}
