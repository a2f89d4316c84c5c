/*
 * sink_drive.h -- the loop every reader runs over a sink (internal): how
 * much of the input the reader's steps may convert straight into the sink,
 * unchecked, and what happens near the sink's end.
 *
 * A reader owns its loop and its variables; it asks for a window before a
 * stretch of steps and hands it back after them:
 *
 *     sink_window window = SINK_WINDOW_START;
 *     uint8_t scratch[SINK_SCRATCH];
 *     while (reader.i < len && reader.status == UTFKIT_OK) {
 *         sink_window_open(sink, &window, scratch, reader.i, len, per_byte, tail);
 *         while (reader.i < window.stop && reader.status == UTFKIT_OK)
 *             window.out = step(&reader, window.dst, window.out, window.run_end, to);
 *         reader.i = sink_window_close(sink, &window, reader.i, to);
 *     }
 *
 * A step reads, at reader.i, one character, one ill-formed subsequence, or
 * a run of simple code units (ASCII, say) that ends at or before run_end;
 * writes at most `per_byte` bytes of output per byte it consumes at
 * dst + out, unchecked; and advances reader.i, or sets reader.status (a
 * strict error) instead.
 *
 * While the sink has room for the worst case, steps run in a tight loop
 * writing straight into it.  Near its end each step writes into a small
 * staging area whose bytes are appended only if they fit -- so nothing is
 * ever written past cap, and out keeps counting once the sink is full;
 * the step that does not fit is taken again one character at a time, so
 * that dst always ends as the longest whole-character prefix of the output
 * that fits cap, whatever steps (scalar or a kernel's blocks) came before.
 * Once the sink is full, nothing more is written: steps run in stretches
 * into a scratch area that is thrown away, so that measuring (cap 0) costs
 * about what converting does.  Steps that start within `tail` bytes of the
 * end (where a reader meets cut-off units, whose replacement may be larger)
 * always take the staged path.  A reader whose windows start as
 * SINK_WINDOW_STRETCHED and close with sink_window_close_status (which
 * clears its status when it takes text again) stages whole stretches of
 * steps rather than one step at a time.
 */
#ifndef UTFKIT_SINK_DRIVE_H
#define UTFKIT_SINK_DRIVE_H

#include "sink.h"

/* The caller's scratch area: where steps write once the sink is full (or
 * only measures), and the staging area near its end. */
#define SINK_SCRATCH 4096

enum sink_window_mode {
    SINK_WINDOW_DIRECT,  /* steps write into the sink itself */
    SINK_WINDOW_MEASURE, /* the sink is full: steps write into scratch, only counted */
    SINK_WINDOW_STAGED   /* one step into scratch, appended if it fits */
};

/* One stretch of steps. */
typedef struct sink_window {
    uint8_t *dst;     /* where the steps write, unchecked */
    size_t out;       /* at dst + out */
    size_t stop;      /* steps start only before this input position */
    size_t run_end;   /* and their runs end by this one */
    int mode;         /* enum sink_window_mode */
    int stretches;    /* staged steps may go a stretch at a time (SINK_WINDOW_STRETCHED) */
    int stepwise;     /* a staged stretch did not fit: one step per window */
    int one_by_one;   /* a staged step did not fit: one character per step */
    size_t started;   /* where the staged step started */
} sink_window;

#define SINK_WINDOW_START {NULL, 0, 0, 0, SINK_WINDOW_DIRECT, 0, 0, 0, 0}
/* For a reader that closes its windows with sink_window_close_status. */
#define SINK_WINDOW_STRETCHED {NULL, 0, 0, 0, SINK_WINDOW_DIRECT, 1, 0, 0, 0}

/* Opens the window for steps from input position i (< len): `per_byte` is
 * the most output bytes a step writes per input byte (0 when it writes
 * none), `tail` how far from the end steps take the staged path. */
static UTFKIT_ALWAYS_INLINE void sink_window_open(const utfkit_sink *sink, sink_window *window,
                                                  uint8_t *scratch, size_t i, size_t len,
                                                  size_t per_byte, size_t tail)
{
    size_t room = sink->full || sink->out > sink->cap ? 0 : sink->cap - sink->out;
    size_t safe = per_byte == 0 ? SIZE_MAX : room / per_byte;
    size_t fast_end = len > tail ? len - tail : 0;
    if (sink->full && i < fast_end) {
        /* Nothing more is written: measure in the scratch area, in
         * stretches as long as it can hold. */
        size_t budget = (SINK_SCRATCH - SINK_STEP_MAX) / (per_byte != 0 ? per_byte : 1);
        window->mode = SINK_WINDOW_MEASURE;
        window->dst = scratch;
        window->out = 0;
        window->stop = fast_end - i < budget ? fast_end : i + budget;
        window->run_end = window->stop;
    } else if (i < fast_end && safe >= SINK_STEP_MAX &&
               (safe >= 4 * SINK_STEP_MAX || safe - SINK_STEP_MAX >= fast_end - i)) {
        /* Steps starting before stop consume at most safe bytes in all.
         * (A room for the worst case of all the rest, plus SINK_STEP_MAX
         * input bytes' worth, takes the whole rest in one window however
         * short it is: a short text into a buffer with that much room
         * takes no staged steps.) */
        window->mode = SINK_WINDOW_DIRECT;
        window->dst = sink->dst;
        window->out = sink->out;
        window->stop = fast_end - i < safe - SINK_STEP_MAX ? fast_end : i + (safe - SINK_STEP_MAX);
        window->run_end = window->stop;
    } else if (window->stretches && !window->stepwise && i < fast_end && safe != 0) {
        /* Too little room for the worst case of the rest: a stretch of
         * steps into the scratch area (no longer than it holds, as when
         * measuring, nor than 8 times what surely fits), appended whole if
         * it fits -- so that a caller who gives exactly the worst case or
         * exactly the output's length stages a stretch or two, not every
         * step, and nothing lands in dst past the output.  A stretch that
         * does not fit is taken again a step at a time. */
        size_t budget = (SINK_SCRATCH - SINK_STEP_MAX) / per_byte;
        if (budget / 8 > safe)
            budget = 8 * safe;
        window->mode = SINK_WINDOW_STAGED;
        window->dst = scratch;
        window->out = 0;
        window->started = i;
        window->stop = fast_end - i < budget ? fast_end : i + budget;
        window->run_end = window->stop;
    } else {
        window->mode = SINK_WINDOW_STAGED;
        window->dst = scratch;
        window->out = 0;
        window->started = i;
        window->stop = i + 1; /* one step: every step consumes a byte or stops */
        window->run_end = window->one_by_one ? i + 1 : len - i > 8 ? i + 8 : len;
    }
}

/* Closes the window after its steps, the reader now at input position i
 * with *status (UTFKIT_OK, or the strict error that stopped it); returns
 * the position the reader goes on from: the staged stretch's or step's
 * start again when it is to be taken in smaller steps, with *status OK
 * again (an error in it is met again).  status may be NULL for a reader
 * whose window does not stretch (SINK_WINDOW_START). */
static UTFKIT_ALWAYS_INLINE size_t sink_window_close_status(utfkit_sink *sink, sink_window *window,
                                                            size_t i, int to, int *status)
{
    switch (window->mode) {
    case SINK_WINDOW_MEASURE:
        sink->out += window->out;
        return i;
    case SINK_WINDOW_DIRECT:
        sink->out = window->out;
        return i;
    default:
        break;
    }
    size_t produced = window->out;
    if (to != UTFKIT_COUNT_ONLY && !window->one_by_one &&
        (sink->full || sink->out > sink->cap || sink->cap - sink->out < produced)) {
        /* Did not fit: take the same text again a step at a time (after a
         * stretch) or one character at a time (after a step), so that dst
         * ends as the longest whole-character prefix that fits however the
         * steps before were cut (identical for every kernel). */
        if (window->stepwise || !window->stretches)
            window->one_by_one = 1;
        window->stepwise = 1;
        if (status != NULL)
            *status = UTFKIT_OK;
        return window->started;
    }
    sink_append_whole(sink, to, window->dst, produced);
    return i;
}

/* sink_window_close_status for a window that does not stretch. */
static UTFKIT_ALWAYS_INLINE size_t sink_window_close(utfkit_sink *sink, sink_window *window,
                                                     size_t i, int to)
{
    return sink_window_close_status(sink, window, i, to, NULL);
}

#endif /* UTFKIT_SINK_DRIVE_H */
