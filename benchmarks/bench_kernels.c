/*
 * bench_kernels.c -- GB/s of the C core per operation, per text file and
 * per kernel, with memchr's read speed over the same buffer beside it.
 *
 *   make bench                                   every file of the default corpus
 *   make bench BENCH_ARGS="--ops count,len8to16 FILE..."
 *   benchmarks/bin/bench_kernels [--ops LIST] [--kernels LIST] [--rounds N] [--ms M]
 *                                [--ratios] [--src-offset B] [--dst-offset B] PATH...
 *
 * A PATH is a UTF-8 text file or a directory (every *.txt below it, one
 * level of subdirectories deep).  Each operation runs over the whole
 * buffer, in cache (the corpus files are 65-600 KB), repeated for at least
 * M milliseconds (default 20) per round; the figure is the median round of
 * N (default 7), rounds of every kernel interleaved so that a busy machine
 * slows all of them alike.  The clock is the thread's CPU time.  Speeds are
 * in GB/s of input (10^9 bytes per second); the input of the UTF-16 and
 * UTF-32 operations is the file converted to that form first, and memchr
 * reads that buffer too (looking for a byte value the buffer does not
 * hold, so that it reads all of it; or, when the buffer holds every byte
 * value, a buffer of the same length); the CESU-8 and MUTF-8 operations
 * read the file converted to that form (the same bytes when it has no
 * supplementary character, nor, for MUTF-8, U+0000).  --ratios prints each figure as a fraction of
 * memchr's speed instead.
 *
 * The operations that write an output (sanitize, the transcodes) get two
 * more columns, the bound their stores set: memset's speed writing as many
 * bytes as the operation writes, into the same output buffer, in GB/s of
 * output (in every mode), and best/ms, the best kernel's output speed as a
 * fraction of it.  Outputs above L1 (48 KiB here) are bound by the stores
 * into L2, and a 64-byte store that is not aligned spans two cache lines:
 * --src-offset and --dst-offset (0..63, default 0) place the input buffers
 * and the output buffer that many bytes past a 64-byte boundary.
 *
 * This program measures; it asserts nothing.  It links the core directly
 * (no Python) and is built -O3 as the Python extension is.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "utfkit.h"

typedef enum input_form {
    INPUT_UTF8,
    INPUT_UTF16LE,
    INPUT_UTF32LE,
    INPUT_DIRTY_UTF8,
    INPUT_CESU8, /* the file in CESU-8 (the same bytes where it has no supplementary character) */
    INPUT_MUTF8  /* in MUTF-8 (the same bytes where it has no supplementary character nor 00) */
} input_form;

/* The dirty text: the file with one byte every DIRTY_EVERY overwritten by
 * FF (never in UTF-8), each an ill-formed subsequence to find. */
#define DIRTY_EVERY 1000

typedef struct operation {
    const char *name;
    input_form input;
    const char *what;
    int writes; /* writes an output (sanitize, the transcodes): it gets the write-ceiling columns */
} operation;

static const operation operations[] = {
    {"validate", INPUT_UTF8, "utfkit_utf8_validate", 0},
    {"check", INPUT_UTF8, "utfkit_utf8_check", 0},
    {"count", INPUT_UTF8, "utfkit_utf8_count (validates)", 0},
    {"len8to16", INPUT_UTF8, "utfkit_well_formed_length UTF-8 -> UTF-16LE", 0},
    {"len8to32", INPUT_UTF8, "utfkit_well_formed_length UTF-8 -> UTF-32LE", 0},
    {"len16to8", INPUT_UTF16LE, "utfkit_well_formed_length UTF-16LE -> UTF-8", 0},
    {"len32to8", INPUT_UTF32LE, "utfkit_well_formed_length UTF-32LE -> UTF-8", 0},
    {"tlen8to16", INPUT_UTF8, "utfkit_transcoded_length UTF-8 -> UTF-16LE (validates)", 0},
    {"tlen16to8", INPUT_UTF16LE, "utfkit_transcoded_length UTF-16LE -> UTF-8 (validates)", 0},
    {"sanitize", INPUT_UTF8, "utfkit_utf8_sanitize", 1},
    {"errloop", INPUT_DIRTY_UTF8, "utfkit_utf8_check from each error to the next, over a byte FF every 1000", 0},
    {"8to16", INPUT_UTF8, "utfkit_transcode UTF-8 -> UTF-16LE", 1},
    {"8to32", INPUT_UTF8, "utfkit_transcode UTF-8 -> UTF-32LE", 1},
    {"16to8", INPUT_UTF16LE, "utfkit_transcode UTF-16LE -> UTF-8", 1},
    {"32to8", INPUT_UTF32LE, "utfkit_transcode UTF-32LE -> UTF-8", 1},
    {"16to32", INPUT_UTF16LE, "utfkit_transcode UTF-16LE -> UTF-32LE", 1},
    {"32to16", INPUT_UTF32LE, "utfkit_transcode UTF-32LE -> UTF-16LE", 1},
    /* The forms built on UTF-8, over the same (surrogate-free) text: the
     * figures to set beside validate, 8to16 and 8to32. */
    {"wtf8validate", INPUT_UTF8, "utfkit_validate WTF-8", 0},
    {"cesu8validate", INPUT_CESU8, "utfkit_validate CESU-8", 0},
    {"mutf8validate", INPUT_MUTF8, "utfkit_validate MUTF-8", 0},
    {"wtf8to16", INPUT_UTF8, "utfkit_transcode WTF-8 -> UTF-16LE", 1},
    {"wtf8to32", INPUT_UTF8, "utfkit_transcode WTF-8 -> UTF-32LE", 1},
    {"cesu8to16", INPUT_CESU8, "utfkit_transcode CESU-8 -> UTF-16LE", 1},
    {"cesu8to32", INPUT_CESU8, "utfkit_transcode CESU-8 -> UTF-32LE", 1},
    {"mutf8to16", INPUT_MUTF8, "utfkit_transcode MUTF-8 -> UTF-16LE", 1},
    {"mutf8to32", INPUT_MUTF8, "utfkit_transcode MUTF-8 -> UTF-32LE", 1},
    /* the writers, beside 16to8 and 32to8 */
    {"16tocesu8", INPUT_UTF16LE, "utfkit_transcode UTF-16LE -> CESU-8", 1},
    {"16tomutf8", INPUT_UTF16LE, "utfkit_transcode UTF-16LE -> MUTF-8", 1},
    {"32tocesu8", INPUT_UTF32LE, "utfkit_transcode UTF-32LE -> CESU-8", 1},
    {"32tomutf8", INPUT_UTF32LE, "utfkit_transcode UTF-32LE -> MUTF-8", 1},
    {"16towtf8", INPUT_UTF16LE, "utfkit_transcode UTF-16LE -> WTF-8", 1},
    /* simdutf's count_utf8, which trusts its input (the comparison
     * harness's countv): code points of valid UTF-8, not validated */
    {"countv", INPUT_UTF8, "utfkit_well_formed_length UTF-8 -> UTF-32LE / 4 (code points, not validated)", 0},
    /* UTF-16 validation, and its repair with U+FFFD (the same form: the copy
     * fused with the validation), as benchmarks/callgrind/ops_driver.c names them */
    {"valid16", INPUT_UTF16LE, "utfkit_validate UTF-16LE", 0},
    {"sanit16", INPUT_UTF16LE, "utfkit_transcode UTF-16LE -> UTF-16LE, replace", 1},
};
#define OPERATIONS (sizeof operations / sizeof operations[0])

/* Keeps results alive so that no call is optimised away. */
static volatile size_t sink;

static size_t run(size_t op, const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
    switch (op) {
    case 0: return (size_t)utfkit_utf8_validate(src, len);
    case 1: return utfkit_utf8_check(src, len).position;
    case 2: return utfkit_utf8_count(src, len);
    case 3: return utfkit_well_formed_length(src, len, UTFKIT_UTF8, UTFKIT_UTF16LE);
    case 4: return utfkit_well_formed_length(src, len, UTFKIT_UTF8, UTFKIT_UTF32LE);
    case 5: return utfkit_well_formed_length(src, len, UTFKIT_UTF16LE, UTFKIT_UTF8);
    case 6: return utfkit_well_formed_length(src, len, UTFKIT_UTF32LE, UTFKIT_UTF8);
    case 7:
        return utfkit_transcoded_length(src, len, UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_STRICT)
            .written;
    case 8:
        return utfkit_transcoded_length(src, len, UTFKIT_UTF16LE, UTFKIT_UTF8, UTFKIT_STRICT)
            .written;
    case 9: return utfkit_utf8_sanitize(src, len, dst, cap).written;
    case 10: {
        size_t errors = 0;
        for (size_t i = 0; i < len; errors++) {
            utfkit_result first = utfkit_utf8_check(src + i, len - i);
            if (first.status == UTFKIT_OK)
                break;
            i += first.position + first.subpart_length;
        }
        return errors;
    }
    case 11:
        return utfkit_transcode(src, len, UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 12:
        return utfkit_transcode(src, len, UTFKIT_UTF8, UTFKIT_UTF32LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 13:
        return utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_UTF8, UTFKIT_STRICT, dst, cap)
            .written;
    case 14:
        return utfkit_transcode(src, len, UTFKIT_UTF32LE, UTFKIT_UTF8, UTFKIT_STRICT, dst, cap)
            .written;
    case 15:
        return utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_UTF32LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 16:
        return utfkit_transcode(src, len, UTFKIT_UTF32LE, UTFKIT_UTF16LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 17: return (size_t)utfkit_validate(src, len, UTFKIT_WTF8);
    case 18: return (size_t)utfkit_validate(src, len, UTFKIT_CESU8);
    case 19: return (size_t)utfkit_validate(src, len, UTFKIT_MUTF8);
    case 20:
        return utfkit_transcode(src, len, UTFKIT_WTF8, UTFKIT_UTF16LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 21:
        return utfkit_transcode(src, len, UTFKIT_WTF8, UTFKIT_UTF32LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 22:
        return utfkit_transcode(src, len, UTFKIT_CESU8, UTFKIT_UTF16LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 23:
        return utfkit_transcode(src, len, UTFKIT_CESU8, UTFKIT_UTF32LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 24:
        return utfkit_transcode(src, len, UTFKIT_MUTF8, UTFKIT_UTF16LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 25:
        return utfkit_transcode(src, len, UTFKIT_MUTF8, UTFKIT_UTF32LE, UTFKIT_STRICT, dst, cap)
            .written;
    case 26:
        return utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_CESU8, UTFKIT_STRICT, dst, cap)
            .written;
    case 27:
        return utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_MUTF8, UTFKIT_STRICT, dst, cap)
            .written;
    case 28:
        return utfkit_transcode(src, len, UTFKIT_UTF32LE, UTFKIT_CESU8, UTFKIT_STRICT, dst, cap)
            .written;
    case 29:
        return utfkit_transcode(src, len, UTFKIT_UTF32LE, UTFKIT_MUTF8, UTFKIT_STRICT, dst, cap)
            .written;
    case 30:
        return utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_WTF8, UTFKIT_STRICT, dst, cap)
            .written;
    case 32: return (size_t)utfkit_validate(src, len, UTFKIT_UTF16LE);
    case 33:
        return utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_UTF16LE, UTFKIT_REPLACE, dst, cap)
            .written;
    default: return utfkit_well_formed_length(src, len, UTFKIT_UTF8, UTFKIT_UTF32LE) / 4;
    }
}

static double thread_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A byte value that src[0..len) does not hold, so that memchr for it reads
 * the whole buffer; -1 when every value occurs. */
static int absent_byte(const uint8_t *src, size_t len)
{
    size_t seen[256] = {0};
    for (size_t i = 0; i < len; i++)
        seen[src[i]]++;
    for (int value = 0; value < 256; value++)
        if (seen[(value + 0xFF) & 0xFF] == 0) /* 0xFF first, then 00, 01 ... */
            return (value + 0xFF) & 0xFF;
    return -1;
}

/* The two bounds measured beside each operation, after the operations'
 * indexes: memchr reading the input, and memset writing the output. */
#define MEMCHR OPERATIONS
#define MEMSET (OPERATIONS + 1)

/* Bytes per second of `op` over one round of at least `seconds`: of input
 * for an operation and for memchr (reading src[0..len)), of output for
 * memset (writing dst[0..len), the bytes an operation wrote there). */
static double one_round(size_t op, const uint8_t *src, size_t len, uint8_t *dst, size_t cap,
                        double seconds)
{
    int needle = op == MEMCHR ? absent_byte(src, len) : 0;
    uint8_t *stand_in = NULL;
    if (needle < 0) {
        /* Every byte value occurs (UTF-16 of emoji, say): memchr reads a
         * buffer of the same length instead. */
        stand_in = malloc(len ? len : 1);
        memset(stand_in, 'a', len);
        src = stand_in;
        needle = 0;
    }
    size_t repeats = 0;
    double start = thread_seconds(), elapsed;
    do {
        for (int k = 0; k < 8; k++) {
            if (op == MEMCHR)
                sink = (size_t)(const uint8_t *)memchr(src, needle, len);
            else if (op == MEMSET) {
                memset(dst, k, len);
                sink = dst[len / 2];
            } else
                sink = run(op, src, len, dst, cap);
        }
        repeats += 8;
        elapsed = thread_seconds() - start;
    } while (elapsed < seconds);
    free(stand_in);
    return (double)len * (double)repeats / elapsed;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int listed(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t length = comma ? (size_t)(comma - p) : strlen(p);
        if (length == n && strncmp(p, name, n) == 0)
            return 1;
        p += length + (comma != NULL);
    }
    return 0;
}

/* Every input buffer starts the same number of bytes (--src-offset, 0 by
 * default) past a 64-byte boundary, so that two operations on different
 * buffers (UTF-8 validate, CESU-8 validate) meet the same cache-line
 * splits, and their ratio measures the code, not where malloc happened to
 * put each buffer; the output buffer starts --dst-offset bytes past one.
 * (malloc puts large buffers 16 bytes past a boundary, and CPython a
 * bytes object's data 32 past it.) */
static size_t src_offset, dst_offset;

static uint8_t *placed_buffer(size_t size, size_t offset)
{
    void *buffer = NULL;
    if (posix_memalign(&buffer, 64, size + offset > 0 ? size + offset : 1) != 0)
        return NULL;
    return (uint8_t *)buffer + offset;
}

static void free_placed(uint8_t *buffer, size_t offset)
{
    if (buffer != NULL)
        free(buffer - offset);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = placed_buffer(size > 0 ? (size_t)size : 1, src_offset);
    *len = fread(data, 1, (size_t)size, file);
    fclose(file);
    return data;
}

/* ---- the files to measure ---- */

static char **paths;
static size_t path_count, path_room;

static void add_path(const char *path)
{
    if (path_count == path_room) {
        path_room = path_room ? 2 * path_room : 64;
        paths = realloc(paths, path_room * sizeof *paths);
    }
    paths[path_count++] = strdup(path);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_tree(const char *path, int depth)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        add_path(path);
        return;
    }
    if (depth > 1)
        return;
    DIR *dir = opendir(path);
    if (dir == NULL)
        return;
    size_t first = path_count;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
        size_t n = strlen(entry->d_name);
        if (stat(child, &st) == 0 && S_ISDIR(st.st_mode))
            add_tree(child, depth + 1);
        else if (n > 4 && strcmp(entry->d_name + n - 4, ".txt") == 0)
            add_path(child);
    }
    closedir(dir);
    qsort(paths + first, path_count - first, sizeof *paths, compare_strings);
}

static const char *short_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    static char buffer[64];
    snprintf(buffer, sizeof buffer, "%s", name);
    char *dot = strstr(buffer, ".utf8");
    if (dot == NULL)
        dot = strstr(buffer, ".txt");
    if (dot != NULL)
        *dot = '\0';
    char *dash = strstr(buffer, "-Lipsum");
    if (dash != NULL)
        *dash = '\0';
    return buffer;
}

/* Whether every name of a comma-separated list is one of `names`; says
 * which is not on stderr. */
static int names_known(const char *list, const char *what, const char *(*name_of)(size_t))
{
    if (list == NULL)
        return 1;
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        int length = comma ? (int)(comma - p) : (int)strlen(p);
        int known = 0;
        for (size_t k = 0; name_of(k) != NULL && !known; k++)
            known = (int)strlen(name_of(k)) == length && strncmp(p, name_of(k), (size_t)length) == 0;
        if (!known) {
            fprintf(stderr, "unknown %s: %.*s\n", what, length, p);
            return 0;
        }
        p += length + (comma != NULL);
    }
    return 1;
}

static const char *operation_name(size_t op)
{
    return op < OPERATIONS ? operations[op].name : NULL;
}

/* The usage text on `out`; returns the exit status to go with it. */
static int usage(FILE *out, const char *program, int status)
{
    fprintf(out,
            "usage: %s [--ops LIST] [--kernels LIST] [--rounds N] [--ms M] [--ratios] "
            "[--src-offset B] [--dst-offset B] PATH...\noperations:",
            program);
    for (size_t op = 0; op < OPERATIONS; op++)
        fprintf(out, " %s", operations[op].name);
    fprintf(out, "\nkernels:");
    for (size_t k = 0; utfkit_backend_name(k) != NULL; k++)
        fprintf(out, " %s", utfkit_backend_name(k));
    fprintf(out, "\n");
    return status;
}

int main(int argc, char **argv)
{
    const char *op_list = NULL, *kernel_list = NULL;
    int rounds = 7, ratios = 0;
    double round_seconds = 0.020;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc)
            op_list = argv[++i];
        else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc)
            kernel_list = argv[++i];
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
            round_seconds = atof(argv[++i]) / 1000.0;
        else if (strcmp(argv[i], "--ratios") == 0)
            ratios = 1;
        else if (strcmp(argv[i], "--src-offset") == 0 && i + 1 < argc)
            src_offset = (size_t)atoi(argv[++i]) & 63;
        else if (strcmp(argv[i], "--dst-offset") == 0 && i + 1 < argc)
            dst_offset = (size_t)atoi(argv[++i]) & 63;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(stdout, argv[0], 0);
        else if (argv[i][0] == '-')
            return usage(stderr, argv[0], 2);
        else
            add_tree(argv[i], 0);
    }
    if (!names_known(op_list, "operation", operation_name) ||
        !names_known(kernel_list, "kernel", utfkit_backend_name))
        return usage(stderr, argv[0], 2);
    if (path_count == 0) {
        fprintf(stderr, "%s: no text files given\n", argv[0]);
        return 2;
    }

    const char *kernels[16];
    size_t kernel_count = 0;
    for (size_t k = 0; utfkit_backend_name(k) != NULL && kernel_count < 16; k++) {
        const char *name = utfkit_backend_name(k);
        if (utfkit_backend_available(name) && listed(kernel_list, name))
            kernels[kernel_count++] = name;
    }

    printf("utfkit C core, %sGB/s of input (median of %d rounds of >= %.0f ms, thread CPU "
           "time)%s\nmemset = memset's speed writing the operation's output into the same "
           "buffer (GB/s of output; input at +%zu, output at +%zu from a 64-byte boundary), "
           "best/ms = the best kernel's output speed over it\nCPU features: %s\n",
           ratios ? "fraction of memchr's " : "", rounds, 1000 * round_seconds,
           ratios ? "" : "; memchr = memchr's read speed over the same buffer", src_offset,
           dst_offset, utfkit_cpu_features());
    printf("%-12s %-10s", "file", "operation");
    for (size_t k = 0; k < kernel_count; k++)
        printf(" %8s", kernels[k]);
    printf(" %8s %8s %8s %8s\n", "memchr", "best/mc", "memset", "best/ms");

    /* per kernel, then memchr, then memset */
    double *samples = malloc((size_t)rounds * (kernel_count + 2) * sizeof *samples);
    for (size_t p = 0; p < path_count; p++) {
        size_t len8;
        uint8_t *utf8 = read_file(paths[p], &len8);
        if (utf8 == NULL || !utfkit_utf8_validate(utf8, len8)) {
            fprintf(stderr, "%s: not readable, or not UTF-8; skipped\n", paths[p]);
            free_placed(utf8, src_offset);
            continue;
        }
        size_t len16 = utfkit_well_formed_length(utf8, len8, UTFKIT_UTF8, UTFKIT_UTF16LE);
        size_t len32 = utfkit_well_formed_length(utf8, len8, UTFKIT_UTF8, UTFKIT_UTF32LE);
        uint8_t *utf16 = placed_buffer(len16 + 1, src_offset), *utf32 = placed_buffer(len32 + 1, src_offset);
        utfkit_transcode(utf8, len8, UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_STRICT, utf16, len16);
        utfkit_transcode(utf8, len8, UTFKIT_UTF8, UTFKIT_UTF32LE, UTFKIT_STRICT, utf32, len32);
        /* CESU-8 and MUTF-8: each supplementary character 6 bytes, U+0000 2
         * in MUTF-8, so at most twice as long */
        uint8_t *cesu8 = placed_buffer(2 * len8 + 1, src_offset), *mutf8 = placed_buffer(2 * len8 + 1, src_offset);
        size_t len_cesu8 = utfkit_transcode(utf8, len8, UTFKIT_UTF8, UTFKIT_CESU8, UTFKIT_STRICT,
                                            cesu8, 2 * len8).written;
        size_t len_mutf8 = utfkit_transcode(utf8, len8, UTFKIT_UTF8, UTFKIT_MUTF8, UTFKIT_STRICT,
                                            mutf8, 2 * len8).written;
        uint8_t *dirty = placed_buffer(len8 + 1, src_offset);
        memcpy(dirty, utf8, len8);
        for (size_t i = DIRTY_EVERY / 2; i < len8; i += DIRTY_EVERY)
            dirty[i] = 0xFF;
        size_t cap = 4 * len8 + 64;
        uint8_t *dst = placed_buffer(cap, dst_offset);
        for (size_t op = 0; op < OPERATIONS; op++) {
            if (!listed(op_list, operations[op].name))
                continue;
            input_form input = operations[op].input;
            const uint8_t *src = input == INPUT_UTF8 ? utf8 : input == INPUT_DIRTY_UTF8 ? dirty
                               : input == INPUT_UTF16LE ? utf16 : input == INPUT_UTF32LE ? utf32
                               : input == INPUT_CESU8 ? cesu8 : mutf8;
            size_t len = input == INPUT_UTF8 || input == INPUT_DIRTY_UTF8 ? len8
                       : input == INPUT_UTF16LE ? len16 : input == INPUT_UTF32LE ? len32
                       : input == INPUT_CESU8 ? len_cesu8 : len_mutf8;
            /* the bytes it writes (the same for every kernel) */
            size_t written = operations[op].writes ? run(op, src, len, dst, cap) : 0;
            size_t columns = kernel_count + 1 + (written > 0);
            for (int r = 0; r < rounds; r++) {
                for (size_t k = 0; k < kernel_count; k++) {
                    utfkit_set_backend(kernels[k]);
                    samples[k * (size_t)rounds + (size_t)r] =
                        one_round(op, src, len, dst, cap, round_seconds);
                }
                samples[kernel_count * (size_t)rounds + (size_t)r] =
                    one_round(MEMCHR, src, len, dst, cap, round_seconds);
                if (written > 0)
                    samples[(kernel_count + 1) * (size_t)rounds + (size_t)r] =
                        one_round(MEMSET, src, written, dst, cap, round_seconds);
            }
            double median[18], best = 0;
            for (size_t k = 0; k < columns; k++) {
                qsort(samples + k * (size_t)rounds, (size_t)rounds, sizeof *samples,
                      compare_doubles);
                median[k] = samples[k * (size_t)rounds + (size_t)rounds / 2] / 1e9;
                if (k < kernel_count && median[k] > best)
                    best = median[k];
            }
            double memchr_speed = median[kernel_count];
            printf("%-12s %-10s", short_name(paths[p]), operations[op].name);
            for (size_t k = 0; k < kernel_count; k++)
                printf(" %8.2f", ratios ? median[k] / memchr_speed : median[k]);
            printf(" %8.2f %8.2f", ratios ? 1.0 : memchr_speed, best / memchr_speed);
            if (written > 0) /* best in GB/s of output, over memset's */
                printf(" %8.2f %8.2f\n", median[kernel_count + 1],
                       best * (double)written / (double)len / median[kernel_count + 1]);
            else
                printf(" %8s %8s\n", "-", "-");
            fflush(stdout);
        }
        free_placed(utf8, src_offset);
        free_placed(dirty, src_offset);
        free_placed(cesu8, src_offset);
        free_placed(mutf8, src_offset);
        free_placed(utf16, src_offset);
        free_placed(utf32, src_offset);
        free_placed(dst, dst_offset);
    }
    free(samples);
    utfkit_set_backend(NULL);
    return 0;
}
