/*
 * utf8_dfa.h -- Table 3-7 of the Unicode Standard (section 3.9) as a DFA.
 *
 * Shared by every UTF-8 reader in the core.  The automaton is a "shift DFA":
 * each state is a multiple of 6 and names a 6-bit field of a 64-bit row;
 * each input byte selects one row, whose field at the current state holds
 * the next state.  One step is therefore
 *
 *     state = utf8_dfa_row[byte] >> (state & 63);
 *
 * a single shift on the critical path (x86 and ARM mask the shift count to
 * 6 bits themselves, so the "& 63" costs nothing).  Only the low 6 bits of
 * `state` are meaningful; compare with UTF8_STATE(state).
 *
 * The error state is 0, so every transition that Table 3-7 does not list
 * leads to it without being written down, and it is absorbing: field 0 of
 * every row is 0.
 *
 * The maximal-subpart rule (D93b) falls out of the automaton: when a byte
 * drives it to UTF8_ERROR, the maximal subpart is what was consumed since
 * the last UTF8_ACCEPT (at least one byte), and the rejecting byte must be
 * read again from UTF8_ACCEPT -- unless the automaton was already in
 * UTF8_ACCEPT, in which case the rejecting byte is itself the subpart.
 */
#ifndef UTFKIT_UTF8_DFA_H
#define UTFKIT_UTF8_DFA_H

#include <stdint.h>

/* ---- states (bit offsets of 6-bit fields) ---- */
#define UTF8_ERROR        0u  /* ill-formed; absorbing */
#define UTF8_ACCEPT       6u  /* at a character boundary */
#define UTF8_NEED_1      12u  /* one more 80..BF ends the character */
#define UTF8_NEED_2      18u  /* two more 80..BF */
#define UTF8_NEED_3      24u  /* three more 80..BF */
#define UTF8_AFTER_E0    30u  /* Table 3-7, row E0: second byte A0..BF */
#define UTF8_AFTER_ED    36u  /* Table 3-7, row ED: second byte 80..9F (no surrogates) */
#define UTF8_AFTER_F0    42u  /* Table 3-7, row F0: second byte 90..BF (no overlongs) */
#define UTF8_AFTER_F4    48u  /* Table 3-7, row F4: second byte 80..8F (<= U+10FFFF) */

#define UTF8_STATE(s) ((unsigned)((s) & 63u))

/* ---- byte classes: bytes that Table 3-7 treats alike ---- */
#define UTF8_CLASS_ASCII      0   /* 00..7F: a whole character */
#define UTF8_CLASS_CONT_80_8F 1   /* continuation, also F4's and ED's second byte */
#define UTF8_CLASS_CONT_90_9F 2   /* continuation, also F0's and ED's second byte */
#define UTF8_CLASS_CONT_A0_BF 3   /* continuation, also E0's and F0's second byte */
#define UTF8_CLASS_NEVER      4   /* C0, C1, F5..FF: never well-formed */
#define UTF8_CLASS_LEAD_2     5   /* C2..DF */
#define UTF8_CLASS_E0         6   /* E0 */
#define UTF8_CLASS_LEAD_3     7   /* E1..EC, EE..EF */
#define UTF8_CLASS_ED         8   /* ED */
#define UTF8_CLASS_F0         9   /* F0 */
#define UTF8_CLASS_LEAD_4    10   /* F1..F3 */
#define UTF8_CLASS_F4        11   /* F4 */
#define UTF8_CLASS_COUNT     12

#define UTF8_CLASS_OF(b)                          \
    ((b) <= 0x7F ? UTF8_CLASS_ASCII :             \
     (b) <= 0x8F ? UTF8_CLASS_CONT_80_8F :        \
     (b) <= 0x9F ? UTF8_CLASS_CONT_90_9F :        \
     (b) <= 0xBF ? UTF8_CLASS_CONT_A0_BF :        \
     (b) <= 0xC1 ? UTF8_CLASS_NEVER :             \
     (b) <= 0xDF ? UTF8_CLASS_LEAD_2 :            \
     (b) == 0xE0 ? UTF8_CLASS_E0 :                \
     (b) == 0xED ? UTF8_CLASS_ED :                \
     (b) <= 0xEF ? UTF8_CLASS_LEAD_3 :            \
     (b) == 0xF0 ? UTF8_CLASS_F0 :                \
     (b) <= 0xF3 ? UTF8_CLASS_LEAD_4 :            \
     (b) == 0xF4 ? UTF8_CLASS_F4 :                \
                   UTF8_CLASS_NEVER)

/* One transition: in state `from`, go to state `to`. */
#define UTF8_GOES(from, to) ((uint64_t)(to) << (from))

/* Transitions shared by all continuation classes: the tails of every row. */
#define UTF8_CONTINUATION_TAIL                    \
    (UTF8_GOES(UTF8_NEED_1, UTF8_ACCEPT) |        \
     UTF8_GOES(UTF8_NEED_2, UTF8_NEED_1) |        \
     UTF8_GOES(UTF8_NEED_3, UTF8_NEED_2))

/* ---- transitions, one 64-bit row per byte class ---- */
#define UTF8_ROW_ASCII UTF8_GOES(UTF8_ACCEPT, UTF8_ACCEPT)
/* 80..8F: second byte of ED (80..9F) and of F4 (80..8F); never after E0/F0. */
#define UTF8_ROW_CONT_80_8F (UTF8_CONTINUATION_TAIL |          \
                             UTF8_GOES(UTF8_AFTER_ED, UTF8_NEED_1) | \
                             UTF8_GOES(UTF8_AFTER_F4, UTF8_NEED_2))
/* 90..9F: second byte of ED (80..9F) and of F0 (90..BF). */
#define UTF8_ROW_CONT_90_9F (UTF8_CONTINUATION_TAIL |          \
                             UTF8_GOES(UTF8_AFTER_ED, UTF8_NEED_1) | \
                             UTF8_GOES(UTF8_AFTER_F0, UTF8_NEED_2))
/* A0..BF: second byte of E0 (A0..BF) and of F0 (90..BF). */
#define UTF8_ROW_CONT_A0_BF (UTF8_CONTINUATION_TAIL |          \
                             UTF8_GOES(UTF8_AFTER_E0, UTF8_NEED_1) | \
                             UTF8_GOES(UTF8_AFTER_F0, UTF8_NEED_2))
#define UTF8_ROW_NEVER  ((uint64_t)0)
#define UTF8_ROW_LEAD_2 UTF8_GOES(UTF8_ACCEPT, UTF8_NEED_1)
#define UTF8_ROW_E0     UTF8_GOES(UTF8_ACCEPT, UTF8_AFTER_E0)
#define UTF8_ROW_LEAD_3 UTF8_GOES(UTF8_ACCEPT, UTF8_NEED_2)
#define UTF8_ROW_ED     UTF8_GOES(UTF8_ACCEPT, UTF8_AFTER_ED)
#define UTF8_ROW_F0     UTF8_GOES(UTF8_ACCEPT, UTF8_AFTER_F0)
#define UTF8_ROW_LEAD_4 UTF8_GOES(UTF8_ACCEPT, UTF8_NEED_3)
#define UTF8_ROW_F4     UTF8_GOES(UTF8_ACCEPT, UTF8_AFTER_F4)

#define UTF8_ROW_OF_CLASS(c)                              \
    ((c) == UTF8_CLASS_ASCII      ? UTF8_ROW_ASCII :      \
     (c) == UTF8_CLASS_CONT_80_8F ? UTF8_ROW_CONT_80_8F : \
     (c) == UTF8_CLASS_CONT_90_9F ? UTF8_ROW_CONT_90_9F : \
     (c) == UTF8_CLASS_CONT_A0_BF ? UTF8_ROW_CONT_A0_BF : \
     (c) == UTF8_CLASS_LEAD_2     ? UTF8_ROW_LEAD_2 :     \
     (c) == UTF8_CLASS_E0         ? UTF8_ROW_E0 :         \
     (c) == UTF8_CLASS_LEAD_3     ? UTF8_ROW_LEAD_3 :     \
     (c) == UTF8_CLASS_ED         ? UTF8_ROW_ED :         \
     (c) == UTF8_CLASS_F0         ? UTF8_ROW_F0 :         \
     (c) == UTF8_CLASS_LEAD_4     ? UTF8_ROW_LEAD_4 :     \
     (c) == UTF8_CLASS_F4         ? UTF8_ROW_F4 :         \
                                    UTF8_ROW_NEVER)

/* The row of every byte, folded at compile time (2 KiB, stays in L1). */
#define UTF8_ROW_OF_BYTE(b) UTF8_ROW_OF_CLASS(UTF8_CLASS_OF(b))
#define UTF8_ROWS_4(b)  UTF8_ROW_OF_BYTE(b), UTF8_ROW_OF_BYTE((b) + 1), \
                        UTF8_ROW_OF_BYTE((b) + 2), UTF8_ROW_OF_BYTE((b) + 3)
#define UTF8_ROWS_16(b) UTF8_ROWS_4(b), UTF8_ROWS_4((b) + 4), \
                        UTF8_ROWS_4((b) + 8), UTF8_ROWS_4((b) + 12)
#define UTF8_ROWS_64(b) UTF8_ROWS_16(b), UTF8_ROWS_16((b) + 16), \
                        UTF8_ROWS_16((b) + 32), UTF8_ROWS_16((b) + 48)

static const uint64_t utf8_dfa_row[256] = {
    UTF8_ROWS_64(0x00), UTF8_ROWS_64(0x40), UTF8_ROWS_64(0x80), UTF8_ROWS_64(0xC0)
};

/* One step of the automaton.  `state` may carry garbage above bit 5. */
static inline uint64_t utf8_dfa_step(uint64_t state, uint8_t byte)
{
    return utf8_dfa_row[byte] >> (state & 63u);
}

/* 1 for bytes 80..BF, which can only continue a sequence. */
static inline int utf8_is_continuation(uint8_t byte)
{
    return (byte & 0xC0u) == 0x80u;
}

#endif /* UTFKIT_UTF8_DFA_H */
