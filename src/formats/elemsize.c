/*
 * elemsize.c - ts_array_element_size: the size of an array's elements as
 * reports give it (itemsize, bits, block_size, block_bytes), one rule for
 * every kind of element: whole bytes, packed sub-byte types, GGUF blocks.
 */
#include "../core/internal.h"

void ts_array_element_size(const ts_array *a, ts_element_size *out)
{
    if (!out)
        return;
    *out = (ts_element_size){-1, -1, 1, -1};
    if (!a)
        return;
    if (a->block_size > 1) {                      /* GGUF quantized blocks */
        out->block_size = a->block_size;
        out->block_bytes = a->block_bytes;
    } else if (a->bits > 0 && a->bits % 8 != 0) { /* packed sub-byte types */
        int64_t g = a->bits, b = 8;
        while (b) {                               /* gcd(bits, 8) */
            int64_t t = g % b;
            g = b;
            b = t;
        }
        out->bits = a->bits;
        out->block_size = 8 / g;
        out->block_bytes = out->bits * out->block_size / 8;
    } else if (a->itemsize > 0) {
        out->itemsize = out->block_bytes = a->itemsize;
        out->bits = a->bits > 0 ? a->bits : a->itemsize * 8;
    }
}
