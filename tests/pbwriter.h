/*
 * pbwriter.h - a tiny protobuf encoder for building test inputs in memory
 * (valid and hostile): keys, varints, length-delimited fields, nesting.
 * Static functions, included by the suites of the protobuf readers.
 */
#ifndef TSHAPE_PBWRITER_H
#define TSHAPE_PBWRITER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct pbw {
    unsigned char *p;
    size_t n, cap;
} pbw;

static void pbw_raw(pbw *w, const void *data, size_t n)
{
    if (w->n + n > w->cap) {
        size_t cap = (w->n + n) * 2 + 64;
        unsigned char *q = realloc(w->p, cap);
        ck_assert_ptr_nonnull(q);
        w->p = q;
        w->cap = cap;
    }
    if (n)
        memcpy(w->p + w->n, data, n);
    w->n += n;
}

static void pbw_varint(pbw *w, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;
    do {
        b[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    pbw_raw(w, b, n);
}

static void pbw_key(pbw *w, uint32_t field, int wire)
{
    pbw_varint(w, ((uint64_t)field << 3) | (uint64_t)wire);
}

static void pbw_uint(pbw *w, uint32_t field, uint64_t v)
{
    pbw_key(w, field, 0);
    pbw_varint(w, v);
}

static void pbw_bytes(pbw *w, uint32_t field, const void *data, size_t n)
{
    pbw_key(w, field, 2);
    pbw_varint(w, n);
    pbw_raw(w, data, n);
}

static void pbw_str(pbw *w, uint32_t field, const char *s)
{
    pbw_bytes(w, field, s, strlen(s));
}

/* Appends `sub` as a length-delimited field and frees it. */
static void pbw_msg(pbw *w, uint32_t field, pbw *sub)
{
    pbw_bytes(w, field, sub->p, sub->n);
    free(sub->p);
    memset(sub, 0, sizeof *sub);
}

static void pbw_fixed32(pbw *w, uint32_t field, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    pbw_key(w, field, 5);
    pbw_raw(w, b, 4);
}

#endif
