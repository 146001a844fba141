/*
 * dlpack_view.c - hands the arrays of a saved file to a DLPack consumer
 * without copying them: the file is mapped once, each array is described
 * with ts_array_to_dlpack (data NULL, byte_offset = where its bytes start),
 * the mapping becomes the data pointer, and a managed tensor is made whose
 * deleter a framework would call. Here the "framework" just prints the
 * DLTensor and its first element.
 *
 *   cc dlpack_view.c $(pkg-config --cflags --libs tshape) -o dlpack_view
 *   ./dlpack_view weights.npy
 */
/* DLPack interop (ts_array_to_dlpack, ts_dlpack_managed_new) is in the
 * experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include <tshape.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a consumer does with a DLTensor: read elements at data + byte_offset
 * + index * strides, in elements of bits/8 bytes, unaligned-safe. */
static void consume(const char *name, const ts_dlpack_tensor *t)
{
    printf("%s: dtype (%u,%u,%u) device (%d,%d) shape (", name, (unsigned)t->dtype.code,
           (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes, (int)t->device.device_type,
           (int)t->device.device_id);
    const char *one = t->ndim == 1 ? "," : ""; /* tuple style: (4,) */
    for (int k = 0; k < t->ndim; k++)
        printf("%s%lld", k ? "," : "", (long long)t->shape[k]);
    printf("%s) strides (", one);
    for (int k = 0; k < t->ndim && t->strides; k++)
        printf("%s%lld", k ? "," : "", (long long)t->strides[k]);
    printf("%s) byte_offset %llu", one, (unsigned long long)t->byte_offset);
    int64_t size = 1;
    for (int k = 0; k < t->ndim; k++)
        size *= t->shape[k];
    const unsigned char *first = (const unsigned char *)t->data + t->byte_offset;
    if (size > 0 && t->dtype.code == TS_DLPACK_FLOAT && t->dtype.bits == 64) {
        double x;
        memcpy(&x, first, sizeof x);
        printf(" first %g", x);
    } else if (size > 0 && t->dtype.code == TS_DLPACK_FLOAT && t->dtype.bits == 32) {
        float x;
        memcpy(&x, first, sizeof x);
        printf(" first %g", (double)x);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: dlpack_view FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        perror(argv[1]);
        return 2;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    ts_file *f;
    ts_error err;
    int status = 0;
    if (ts_file_open_memory(map, (size_t)st.st_size, NULL, &f, &err) != TS_OK) {
        fprintf(stderr, "dlpack_view: %s: %s\n", argv[1], err.message);
        munmap(map, (size_t)st.st_size);
        return 2;
    }
    for (size_t i = 0; i < ts_file_count(f); i++) {
        const ts_array *a = ts_file_array(f, i);
        int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
        ts_dlpack_tensor t;
        ts_dlpack_managed *m;
        if (ts_array_to_dlpack(a, shape, strides, &t, &err) != TS_OK) {
            fprintf(stderr, "dlpack_view: %s: %s\n", argv[1], err.message);
            status = 2;
            continue;
        }
        t.data = map; /* DLPack: first element at data + byte_offset */
        if (ts_dlpack_managed_new(&t, NULL, NULL, &m, &err) != TS_OK) {
            fprintf(stderr, "dlpack_view: %s\n", err.message);
            status = 2;
            continue;
        }
        consume(*a->name ? a->name : "-", &m->dl_tensor);
        m->deleter(m); /* the consumer is done: frees tshape's copy, not the data */
    }
    ts_file_close(f);
    munmap(map, (size_t)st.st_size);
    return status;
}
