/*
 * shape_demo.c - the shape API in a few lines: parse a shape, take its size,
 * flatten it to 2-D and 3-D as mshadow does, print it both ways, and save and
 * load it in MXNet's binary layout.
 *
 *   cc shape_demo.c $(pkg-config --cflags --libs tshape) -o shape_demo
 *   ./shape_demo "(2,3,4,5)"
 */
#include <tshape.h>

#include <stdio.h>
#include <string.h>

static int fail(const char *what, const ts_error *err)
{
    fprintf(stderr, "shape_demo: %s: %s\n", what, err->message);
    return 2;
}

int main(int argc, char **argv)
{
    const char *text = argc > 1 ? argv[1] : "(2,3,4,5)";
    ts_shape s = TS_SHAPE_INIT, back = TS_SHAPE_INIT;
    ts_error err;
    int64_t size, two[2], three[3];
    char buf[256];
    unsigned char bin[4 + 8 * TS_MAX_NDIM];
    size_t nbin;
    int status = 0;

    if (ts_shape_parse(text, strlen(text), 0, &s, NULL, &err) != TS_OK) {
        status = fail(text, &err);
        goto done;
    }
    ts_shape_format(&s, 0, buf, sizeof buf);
    printf("shape   %s\n", buf);
    ts_shape_format(&s, TS_SHAPE_PRINT_LIST | TS_SHAPE_PRINT_SPACES, buf, sizeof buf);
    printf("list    %s\n", buf);
    printf("ndim    %d\n", ts_shape_ndim(&s));
    if (ts_shape_size(&s, &size, &err) != TS_OK) {
        status = fail("size", &err);
        goto done;
    }
    printf("size    %lld\n", (long long)size);
    if (ts_shape_flat2d(&s, two, &err) != TS_OK) {
        status = fail("flat2d", &err);
        goto done;
    }
    printf("flat2d  (%lld,%lld)\n", (long long)two[0], (long long)two[1]);
    if (ts_shape_flat3d(&s, 1, 1, three, &err) == TS_OK)
        printf("flat3d  (%lld,%lld,%lld) around axis 1\n", (long long)three[0],
               (long long)three[1], (long long)three[2]);
    else
        printf("flat3d  %s\n", err.message);

    /* nnvm/MXNet TShape::Save: i32 ndim then i64 dims, little-endian */
    if (ts_shape_save(&s, TS_LAYOUT_MXNET, bin, sizeof bin, &nbin, &err) != TS_OK ||
        ts_shape_load(bin, nbin, TS_LAYOUT_MXNET, &back, NULL, &err) != TS_OK) {
        status = fail("save/load", &err);
        goto done;
    }
    printf("saved   %zu bytes, loads back %s\n", nbin,
           ts_shape_equal(&s, &back) ? "equal" : "DIFFERENT");
done:
    ts_shape_free(&back);
    ts_shape_free(&s);
    return status;
}
