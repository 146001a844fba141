/*
 * json.h - the library's one JSON reader (RFC 8259): a strict scanner over
 * text in memory that builds no tree. Not installed.
 *
 * Used for the JSON headers of tensor files (safetensors) and for the
 * weight_map of sharded models' *.index.json. The caller walks the text
 * with a pull interface (open an object, take the next key, read or skip
 * its value), so nothing is allocated per value: strings are reported as
 * their span in the text plus their decoded length and hash, and decoded
 * only where the caller wants a copy. Only ts__json_skip and the key sets
 * allocate, through the allocator given to ts__json_init (so a reader can
 * use its file's scratch memory, freed if a fault jumps out of it).
 *
 * Strictness (what jansson with JSON_REJECT_DUPLICATES and without
 * JSON_ALLOW_NUL enforced before, so existing messages keep their words):
 *   - text must be valid UTF-8 (no overlong forms, surrogates or code points
 *     above U+10FFFF), inside strings and out;
 *   - strings: no raw control characters (U+0000..U+001F), only the RFC
 *     escapes, \u surrogates must pair (high then low), and \u0000 is
 *     refused (names are C strings);
 *   - numbers: RFC grammar (no leading zeros, no '+', no bare '.');
 *     integers must fit in int64 and reals must be finite;
 *   - duplicate keys in any object are an error (ts__json_skip checks every
 *     nested object; a caller walking an object itself uses a key set);
 *   - nesting is limited to TS__JSON_MAX_DEPTH arrays and objects;
 *   - nothing but whitespace may follow the top value (ts__json_finish).
 *
 * Errors leave the scanner failed: error, error_at (offset in the text of
 * the end of the offending token, or of the bad byte for UTF-8) and
 * error_text (a one-line message in jansson's words, "string or '}'
 * expected near '}'", "duplicate object key near '\"a\"'").
 */
#ifndef TSHAPE_JSON_H
#define TSHAPE_JSON_H

#include <stddef.h>
#include <stdint.h>

/* jansson's JSON_PARSER_MAX_DEPTH. */
#define TS__JSON_MAX_DEPTH 2048

typedef enum ts__json_kind {
    TS__JSON_BAD = 0,           /* not a value: the scanner has failed */
    TS__JSON_OBJECT,
    TS__JSON_ARRAY,
    TS__JSON_STRING,
    TS__JSON_INTEGER,           /* a number without fraction or exponent */
    TS__JSON_REAL,
    TS__JSON_TRUE,
    TS__JSON_FALSE,
    TS__JSON_NULL
} ts__json_kind;

typedef enum ts__json_error {
    TS__JSON_OK = 0,
    TS__JSON_ESYNTAX,           /* not JSON */
    TS__JSON_EUTF8,             /* not UTF-8 */
    TS__JSON_EOVERFLOW,         /* integer beyond int64, real beyond double */
    TS__JSON_EDUPLICATE,        /* a key repeated in one object */
    TS__JSON_EDEPTH,            /* nested deeper than TS__JSON_MAX_DEPTH */
    TS__JSON_ENOMEM
} ts__json_error;

/* A string in the text: raw span (quotes included) and what it decodes to. */
typedef struct ts__json_str {
    size_t at, end;             /* offsets of the opening quote and past the closing one */
    size_t len;                 /* decoded bytes */
    uint64_t hash;              /* FNV-1a of the decoded bytes */
    int escaped;                /* 1 when the raw text holds a backslash */
} ts__json_str;

/* Memory for ts__json_skip's key sets: like realloc(p, n) / free(p). */
typedef void *(*ts__json_realloc_fn)(void *ctx, void *p, size_t n);
typedef void (*ts__json_free_fn)(void *ctx, void *p);

typedef struct ts__json {
    const char *s;
    size_t n, i;                /* text, its length, the scan position */
    int depth;
    ts__json_realloc_fn realloc_fn;
    ts__json_free_fn free_fn;
    void *ctx;
    ts__json_error error;
    size_t error_at;
    char error_text[128];
} ts__json;

/* A set of keys of one object, to find duplicates (grows as needed). */
typedef struct ts__json_keys {
    ts__json_str *v;            /* open addressing; at == 0 is empty (a key's
                                   quote is never at offset 0 of an object) */
    size_t cap, n;
} ts__json_keys;

/* Starts scanning s[0..n). realloc_fn/free_fn NULL: the C library's. */
void ts__json_init(ts__json *j, const char *s, size_t n, ts__json_realloc_fn realloc_fn,
                   ts__json_free_fn free_fn, void *ctx);

/* Kind of the next value (skipping whitespace), without consuming it;
 * TS__JSON_BAD (and the scanner failed) when no value starts there. */
ts__json_kind ts__json_peek(ts__json *j);

/* "an object", "an integer", ... for messages. */
const char *ts__json_kind_text(ts__json_kind k);

/* Object walk: open consumes '{'; next returns 1 with the key in *key and
 * the position at its value (':' consumed), 0 after the closing '}', -1 on
 * error. *count is the caller's member counter, 0 before the first call. */
int ts__json_object_open(ts__json *j);
int ts__json_object_next(ts__json *j, size_t *count, ts__json_str *key);

/* Array walk, the same way: 1 positioned at an element, 0 after ']'. */
int ts__json_array_open(ts__json *j);
int ts__json_array_next(ts__json *j, size_t *count);

/* Scans the string value at the position into *out: 0, or -1 on error. */
int ts__json_string(ts__json *j, ts__json_str *out);

/* Writes the str->len decoded bytes of a string the scanner accepted (s is
 * the same text) to out (no NUL added). */
void ts__json_decode(const char *s, const ts__json_str *str, char *out);

/* Decodes a scanned string starting at its raw offset *pos (initially
 * str->at + 1) into out[0..cap), stopping at a character boundary before
 * out fills; returns the bytes written and advances *pos; 0 at the end.
 * cap >= 4. For streaming long values. */
size_t ts__json_decode_part(const char *s, const ts__json_str *str, size_t *pos, char *out,
                            size_t cap);

/* Reads the integer at the position: 0, or -1 (not an integer, or beyond
 * int64: TS__JSON_EOVERFLOW). */
int ts__json_integer(ts__json *j, int64_t *out);

/* Skips (and fully validates) the value at the position: 0 or -1. */
int ts__json_skip(ts__json *j);

/* Only whitespace may remain: 0 or -1 ("end of file expected"). */
int ts__json_finish(ts__json *j);

/* Adds a key scanned from j's text to the set: 0, or -1 (TS__JSON_EDUPLICATE
 * when an equal key is there, or TS__JSON_ENOMEM). */
int ts__json_keys_add(ts__json *j, ts__json_keys *set, const ts__json_str *key);
void ts__json_keys_free(ts__json *j, ts__json_keys *set);

/* 1 when two keys of j's text decode to the same bytes. */
int ts__json_str_equal(const char *s, const ts__json_str *a, const ts__json_str *b);

/* 1-based line of offset `at` (for messages about files people edit). */
size_t ts__json_line(const ts__json *j, size_t at);

/* Fails the scanner with a message about the token s[start..end). */
int ts__json_fail(ts__json *j, ts__json_error e, size_t start, size_t end, const char *msg);

/* FNV-1a, continued from h (start with TS__JSON_FNV_BASIS). */
#define TS__JSON_FNV_BASIS 1469598103934665603ull
static inline uint64_t ts__json_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *u = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ u[i]) * 1099511628211ull;
    return h;
}

#endif /* TSHAPE_JSON_H */
