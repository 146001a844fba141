/* check_nn.c - layer shapes: ts_conv_shape, ts_conv_transpose_shape,
 * ts_pool_shape (PyTorch shape formulas, ONNX auto_pad), ts_matmul_shape,
 * ts_linear_shape, ts_concat_shape, ts_stack_shape: results, weight shapes,
 * and the messages of every error, spelled out. The random cross-check
 * against PyTorch is tests/cli/torch-nn.test.sh. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <stdio.h>
#include <string.h>

/* Asserts shape `s` prints as `want`. */
static void expect_shape(const ts_shape *s, const char *want)
{
    char buf[256];
    ts_shape_format(s, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, want);
}

/* Asserts a failure with `code` and a message equal to `msg`. */
static void expect_err(ts_status st, const ts_error *err, ts_status code, const char *msg)
{
    ck_assert_msg(st == code, "status %d (%s), expected %d", (int)st,
                  st ? err->message : "", (int)code);
    ck_assert_int_eq(err->code, code);
    ck_assert_str_eq(err->message, msg);
}

/* A 2-D (or nsp-D) layer: kernel k, stride s, padding p at both ends,
 * dilation d on every axis. */
static ts_conv_params params(int nsp, int64_t k, int64_t s, int64_t p, int64_t d)
{
    ts_conv_params c = TS_CONV_PARAMS_INIT;
    c.nspatial = nsp;
    for (int i = 0; i < TS_CONV_MAX_SPATIAL; i++) {
        c.kernel[i] = k;
        c.stride[i] = s;
        c.pad_begin[i] = c.pad_end[i] = p;
        c.dilation[i] = d;
    }
    return c;
}

START_TEST(test_conv)
{
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT, w = TS_SHAPE_INIT;
    ts_error err;
    ts_conv_params p = params(2, 3, 2, 1, 1);
    p.out_channels = 64;
    tu_shape(&in, "(8,3,224,224)");
    ck_assert_int_eq(ts_conv_shape(&in, &p, &out, &w, &err), TS_OK);
    expect_shape(&out, "(8,64,112,112)");
    expect_shape(&w, "(64,3,3,3)");
    /* unbatched, 1-D, groups, dilation */
    p = params(1, 3, 1, 0, 2);
    p.out_channels = 8, p.groups = 4;
    tu_shape(&in, "(4,10)");
    ck_assert_int_eq(ts_conv_shape(&in, &p, &out, &w, &err), TS_OK);
    expect_shape(&out, "(8,6)");
    expect_shape(&w, "(8,1,3)");
    /* 3-D, SAME_UPPER with stride 2: ceil(in / stride) */
    p = params(3, 3, 2, 0, 1);
    p.pad_mode = TS_PAD_SAME_UPPER;
    tu_shape(&in, "(1,2,7,8,9)");
    ck_assert_int_eq(ts_conv_shape(&in, &p, &out, NULL, &err), TS_OK);
    expect_shape(&out, "(1,1,4,4,5)");
    p.pad_mode = TS_PAD_VALID;
    ck_assert_int_eq(ts_conv_shape(&in, &p, &out, NULL, &err), TS_OK);
    expect_shape(&out, "(1,1,3,3,4)");
    /* batch 0 is fine */
    p = params(2, 1, 1, 0, 1);
    tu_shape(&in, "(0,3,4,4)");
    ck_assert_int_eq(ts_conv_shape(&in, &p, &out, NULL, &err), TS_OK);
    expect_shape(&out, "(0,1,4,4)");

    /* errors */
    p = params(2, 9, 1, 0, 1);
    tu_shape(&in, "(1,3,7,7)");
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_SIZE,
               "conv2d: axis 2 (spatial 0): the padded input 7 is smaller than the dilated "
               "kernel 9");
    p = params(2, 3, 1, 0, 1);
    tu_shape(&in, "(3,7)");
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_NDIM,
               "conv2d: expected a 3-D (unbatched) or 4-D (batched) input, got (3,7)");
    tu_shape(&in, "(1,3,0,7)");
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_VALUE,
               "conv2d: input (1,3,0,7) is empty at axis 2 (spatial 0)");
    tu_shape(&in, "(1,0,7,7)");
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_VALUE,
               "conv2d: input (1,0,7,7) has 0 channels (axis 1)");
    tu_shape(&in, "(1,3,7,7)");
    p.groups = 2;
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_SIZE,
               "conv2d: in_channels 3 (axis 1 of (1,3,7,7)) is not a multiple of groups 2");
    p.groups = 3, p.out_channels = 4;
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_SIZE,
               "conv2d: out_channels 4 is not a multiple of groups 3");
    p = params(2, 3, 0, 0, 1);
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_VALUE,
               "conv2d: stride 0 at axis 2 (spatial 0) is not positive");
    p = params(2, 3, 1, -1, 1);
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_VALUE,
               "conv2d: padding -1,-1 at axis 2 (spatial 0) is negative");
    p = params(2, 3, 1, 0, 1);
    p.out_channels = 0;
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_VALUE,
               "conv2d: out_channels 0 is not positive");
    p = params(2, 3, 1, 0, 1);
    p.groups = 0;
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_VALUE,
               "conv2d: groups 0 is not positive");
    p = params(2, 3, 1, 0, INT64_MAX);
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_OVERFLOW,
               "conv2d: the output size at axis 2 (spatial 0) does not fit in int64");
    p = params(2, 1, 1, 0, 1);
    p.out_channels = INT64_MAX;
    tu_shape(&in, "(4,3,7,7)");
    expect_err(ts_conv_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_OVERFLOW,
               "conv2d: the output (4,9223372036854775807,7,7) has more than INT64_MAX "
               "elements");
    /* growing struct: a larger struct with unknown bytes set */
    struct {
        ts_conv_params p;
        int64_t extra;
    } big;
    memset(&big, 0, sizeof big);
    big.p = params(2, 1, 1, 0, 1);
    big.p.struct_size = sizeof big;
    ck_assert_int_eq(ts_conv_shape(&in, &big.p, &out, NULL, &err), TS_OK);
    big.extra = 1;
    ck_assert_int_eq(ts_conv_shape(&in, &big.p, &out, NULL, &err), TS_ERR_UNSUPPORTED);
    ts_shape_free(&in);
    ts_shape_free(&out);
    ts_shape_free(&w);
}
END_TEST

START_TEST(test_conv_transpose)
{
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT, w = TS_SHAPE_INIT;
    ts_error err;
    ts_conv_params p = params(2, 3, 2, 1, 1);
    p.out_channels = 4, p.groups = 2;
    p.output_padding[0] = p.output_padding[1] = 1;
    tu_shape(&in, "(1,6,4,4)");
    ck_assert_int_eq(ts_conv_transpose_shape(&in, &p, &out, &w, &err), TS_OK);
    expect_shape(&out, "(1,4,8,8)");
    expect_shape(&w, "(6,2,3,3)");
    p = params(2, 3, 1, 0, 1);
    p.output_padding[0] = 1;
    expect_err(ts_conv_transpose_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_VALUE,
               "conv_transpose2d: output_padding 1 at axis 2 (spatial 0) must be smaller than "
               "the stride 1 or the dilation 1");
    p = params(2, 1, 1, 1, 1);
    tu_shape(&in, "(1,6,1,4)");
    expect_err(ts_conv_transpose_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_SIZE,
               "conv_transpose2d: axis 2 (spatial 0): the output size -1 is below 1 (input 1, "
               "padding 1,1)");
    p.pad_mode = TS_PAD_SAME_LOWER;
    expect_err(ts_conv_transpose_shape(&in, &p, &out, NULL, &err), &err, TS_ERR_UNSUPPORTED,
               "conv_transpose2d: SAME padding is not supported for transposed convolutions");
    ts_shape_free(&in);
    ts_shape_free(&out);
    ts_shape_free(&w);
}
END_TEST

START_TEST(test_pool)
{
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    ts_conv_params p = params(2, 2, 2, 0, 1);
    tu_shape(&in, "(1,3,5,5)");
    ck_assert_int_eq(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), TS_OK);
    expect_shape(&out, "(1,3,2,2)");
    p.ceil_mode = 1;
    ck_assert_int_eq(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), TS_OK);
    expect_shape(&out, "(1,3,3,3)");
    /* ceil_mode: the last window would start in the right padding: dropped */
    p = params(1, 2, 2, 1, 1);
    p.ceil_mode = 1;
    tu_shape(&in, "(1,3,4)");
    ck_assert_int_eq(ts_pool_shape(&in, TS_POOL_AVG, &p, &out, &err), TS_OK);
    expect_shape(&out, "(1,3,3)");
    p = params(2, 3, 2, 1, 1);
    tu_shape(&in, "(1,64,112,112)");
    ck_assert_int_eq(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), TS_OK);
    expect_shape(&out, "(1,64,56,56)");
    /* ceil_mode: a kernel larger than the input still gives one window (PyTorch) */
    p = params(1, 4, 4, 0, 1);
    p.ceil_mode = 1;
    tu_shape(&in, "(1,1)");
    ck_assert_int_eq(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), TS_OK);
    expect_shape(&out, "(1,1)");
    /* SAME: ceil(in / stride) */
    p = params(2, 3, 2, 0, 1);
    p.pad_mode = TS_PAD_SAME_LOWER;
    tu_shape(&in, "(1,3,7,8)");
    ck_assert_int_eq(ts_pool_shape(&in, TS_POOL_AVG, &p, &out, &err), TS_OK);
    expect_shape(&out, "(1,3,4,4)");
    /* 3-D average pooling: each input dim at least its kernel (ATen) */
    p = params(3, 3, 3, 1, 1);
    tu_shape(&in, "(1,2,2,9,7)");
    expect_err(ts_pool_shape(&in, TS_POOL_AVG, &p, &out, &err), &err, TS_ERR_SIZE,
               "avg_pool3d: axis 2 (spatial 0): the input 2 is smaller than the kernel 3 "
               "(PyTorch's 3-D average pooling requires it)");
    ck_assert_int_eq(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), TS_OK);
    expect_shape(&out, "(1,2,1,3,3)");
    tu_shape(&in, "(1,64,112,112)");
    /* errors */
    p = params(2, 2, 2, 2, 1);
    expect_err(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), &err, TS_ERR_VALUE,
               "max_pool2d: padding 2,2 at axis 2 (spatial 0) is more than half the kernel 2");
    p = params(2, 2, 2, 0, 2);
    expect_err(ts_pool_shape(&in, TS_POOL_AVG, &p, &out, &err), &err, TS_ERR_VALUE,
               "avg_pool2d: dilation 2 at axis 2 (spatial 0): average pooling has no dilation");
    p = params(1, 4, 1, 0, 1);
    tu_shape(&in, "(1,3,2)");
    expect_err(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), &err, TS_ERR_SIZE,
               "max_pool1d: axis 2 (spatial 0): the padded input 2 is smaller than the dilated "
               "kernel 4");
    /* torch's max_pool1d would give an empty output here; tshape rejects it */
    p = params(1, 3, 1, 0, 1);
    expect_err(ts_pool_shape(&in, TS_POOL_MAX, &p, &out, &err), &err, TS_ERR_SIZE,
               "max_pool1d: axis 2 (spatial 0): the padded input 2 is smaller than the dilated "
               "kernel 3");
    ts_shape_free(&in);
    ts_shape_free(&out);
}
END_TEST

typedef struct mm_case {
    const char *a, *b, *expect; /* expect NULL: error */
    ts_status code;
    const char *msg;
} mm_case;

static const mm_case mm_cases[] = {
    {"(2,3,4)", "(4,5)", "(2,3,5)", TS_OK, NULL},
    {"(4,)", "(4,)", "()", TS_OK, NULL},
    {"(4,)", "(2,4,5)", "(2,5)", TS_OK, NULL},
    {"(2,3,4)", "(4,)", "(2,3)", TS_OK, NULL},
    {"(5,1,3,4)", "(2,4,6)", "(5,2,3,6)", TS_OK, NULL},
    {"(0,4)", "(4,0)", "(0,0)", TS_OK, NULL},
    {"(2,3)", "(4,5)", NULL, TS_ERR_SIZE,
     "matmul: (2,3) and (4,5): the last dim of a (3) differs from the second last dim of b (4)"},
    {"(3,)", "(4,)", NULL, TS_ERR_SIZE,
     "matmul: (3,) and (4,): the last dim of a (3) differs from the only dim of b (4)"},
    {"()", "(4,)", NULL, TS_ERR_NDIM, "matmul: operand a () is 0-d: it needs at least one dim"},
    {"(2,3,4)", "(3,4,5)", NULL, TS_ERR_BROADCAST,
     "matmul: the batch dims of (2,3,4) and (3,4,5) cannot be broadcast: batch axis 0 has 2 vs 3"},
};

START_TEST(test_matmul)
{
    const mm_case *c = &mm_cases[_i];
    ts_shape a = TS_SHAPE_INIT, b = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&a, c->a);
    tu_shape(&b, c->b);
    ts_status st = ts_matmul_shape(&a, &b, &out, &err);
    if (c->expect) {
        ck_assert_int_eq(st, TS_OK);
        expect_shape(&out, c->expect);
    } else {
        expect_err(st, &err, c->code, c->msg);
    }
    ts_shape_free(&a);
    ts_shape_free(&b);
    ts_shape_free(&out);
}
END_TEST

START_TEST(test_linear)
{
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT, w = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&in, "(2,5,7)");
    ck_assert_int_eq(ts_linear_shape(&in, -1, 10, &out, &w, &err), TS_OK);
    expect_shape(&out, "(2,5,10)");
    expect_shape(&w, "(10,7)");
    ck_assert_int_eq(ts_linear_shape(&in, 7, 0, &out, NULL, &err), TS_OK);
    expect_shape(&out, "(2,5,0)");
    expect_err(ts_linear_shape(&in, 8, 10, &out, &w, &err), &err, TS_ERR_SIZE,
               "linear: the last dim of (2,5,7) (axis 2) is 7, not in_features 8");
    expect_err(ts_linear_shape(&in, 7, -1, &out, &w, &err), &err, TS_ERR_VALUE,
               "linear: out_features -1 is negative");
    expect_err(ts_linear_shape(&in, -2, 1, &out, &w, &err), &err, TS_ERR_VALUE,
               "linear: in_features -2 is negative");
    tu_shape(&in, "()");
    expect_err(ts_linear_shape(&in, -1, 1, &out, &w, &err), &err, TS_ERR_NDIM,
               "linear: the input () is 0-d: it needs at least one dim (in_features)");
    ts_shape_free(&in);
    ts_shape_free(&out);
    ts_shape_free(&w);
}
END_TEST

/* ts_concat_shape or ts_stack_shape of the shapes in `list` ("(2,3) (2,5)"). */
static ts_status multi(int stack, const char *list, int64_t axis, ts_shape *out, ts_error *err)
{
    ts_shape s[8];
    const ts_shape *p[8];
    size_t n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, " "); tok && n < 8; tok = strtok(NULL, " ")) {
        ts_shape_init(&s[n]);
        ck_assert_int_eq(ts_shape_parse(tok, strlen(tok), TS_PARSE_ALLOW_NEGATIVE, &s[n], NULL,
                                        NULL),
                         TS_OK);
        p[n] = &s[n];
        n++;
    }
    ts_status st = stack ? ts_stack_shape(p, n, axis, out, err)
                         : ts_concat_shape(p, n, axis, out, err);
    for (size_t i = 0; i < n; i++)
        ts_shape_free(&s[i]);
    return st;
}

START_TEST(test_concat_stack)
{
    ts_shape out = TS_SHAPE_INIT;
    ts_error err;
    ck_assert_int_eq(multi(0, "(2,3) (2,5) (2,0)", 1, &out, &err), TS_OK);
    expect_shape(&out, "(2,8)");
    ck_assert_int_eq(multi(0, "(2,3) (4,3)", -2, &out, &err), TS_OK);
    expect_shape(&out, "(6,3)");
    expect_err(multi(0, "(2,3) (3,5)", -1, &out, &err), &err, TS_ERR_SIZE,
               "concat: shapes (2,3) (arg 0) and (3,5) (arg 1) differ at axis 0 (2 vs 3), "
               "which is not the concatenation axis 1");
    ck_assert_int_eq(err.index, 1);
    expect_err(multi(0, "(2,3) (2,3,1)", 0, &out, &err), &err, TS_ERR_NDIM,
               "concat: shapes (2,3) (arg 0) and (2,3,1) (arg 1) have 2 and 3 dims");
    expect_err(multi(0, "() ()", 0, &out, &err), &err, TS_ERR_NDIM,
               "concat: shape () (arg 0) is 0-d: 0-d shapes cannot be concatenated");
    expect_err(multi(0, "(2,3)", 2, &out, &err), &err, TS_ERR_AXIS,
               "concat: axis 2 is out of bounds for array of dimension 2");
    expect_err(multi(0, "(9223372036854775807,) (1,)", 0, &out, &err), &err, TS_ERR_OVERFLOW,
               "concat: the sum of the dims at axis 0 does not fit in int64");
    ck_assert_int_eq(multi(1, "(2,3) (2,3) (2,3)", 1, &out, &err), TS_OK);
    expect_shape(&out, "(2,3,3)");
    ck_assert_int_eq(multi(1, "(2,3) (2,3)", -1, &out, &err), TS_OK);
    expect_shape(&out, "(2,3,2)");
    ck_assert_int_eq(multi(1, "()", 0, &out, &err), TS_OK);
    expect_shape(&out, "(1,)");
    expect_err(multi(1, "(2,3) (2,4)", 0, &out, &err), &err, TS_ERR_SIZE,
               "stack: shapes (2,3) (arg 0) and (2,4) (arg 1) differ: stacked shapes must be "
               "equal");
    expect_err(multi(1, "(2,3)", 3, &out, &err), &err, TS_ERR_AXIS,
               "stack: axis 3 is out of bounds for array of dimension 3");
    expect_err(multi(1, "(2,-3)", 0, &out, &err), &err, TS_ERR_VALUE,
               "stack: shape (2,-3) (arg 0) has a negative dim at axis 1");
    ts_shape_free(&out);
}
END_TEST

/* Adaptive pooling (PyTorch AdaptiveAvgPool/AdaptiveMaxPool 1d/2d/3d): the
 * output size whatever the input; -1 (None) keeps an axis; 0 channels, an
 * empty axis, an output size 0 are refused. */
START_TEST(test_adaptive_pool)
{
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    int64_t one[3] = {1, 1, 1}, mixed[2] = {-1, 3}, zero[1] = {0};
    tu_shape(&in, "(8,512,7,7)"); /* ResNet's head */
    ck_assert_int_eq(ts_adaptive_pool_shape(&in, 2, one, &out, &err), TS_OK);
    expect_shape(&out, "(8,512,1,1)");
    ck_assert_int_eq(ts_adaptive_pool_shape(&in, 2, mixed, &out, &err), TS_OK);
    expect_shape(&out, "(8,512,7,3)");
    tu_shape(&in, "(3,4,4)"); /* unbatched 2-D */
    ck_assert_int_eq(ts_adaptive_pool_shape(&in, 2, one, &out, &err), TS_OK);
    expect_shape(&out, "(3,1,1)");
    tu_shape(&in, "(0,3,4,5,6)"); /* an empty batch is fine */
    ck_assert_int_eq(ts_adaptive_pool_shape(&in, 3, one, &out, &err), TS_OK);
    expect_shape(&out, "(0,3,1,1,1)");
    tu_shape(&in, "(5,)");
    expect_err(ts_adaptive_pool_shape(&in, 1, one, &out, &err), &err, TS_ERR_NDIM,
               "AdaptivePool1d: expected a 2-D (unbatched) or 3-D (batched) input, got (5,)");
    tu_shape(&in, "(2,3,0,7)");
    expect_err(ts_adaptive_pool_shape(&in, 2, one, &out, &err), &err, TS_ERR_VALUE,
               "AdaptivePool2d: input (2,3,0,7) is empty at axis 2");
    tu_shape(&in, "(2,3,7)");
    expect_err(ts_adaptive_pool_shape(&in, 1, zero, &out, &err), &err, TS_ERR_VALUE,
               "AdaptivePool1d: output size 0 at axis 2 (spatial 0) is not positive (-1: keep "
               "the input's, PyTorch's None)");
    ts_shape_free(&in);
    ts_shape_free(&out);
}
END_TEST

Suite *nn_suite(void)
{
    Suite *s = suite_create("nn");
    TCase *tc = tcase_create("layer shapes");
    tcase_add_test(tc, test_conv);
    tcase_add_test(tc, test_conv_transpose);
    tcase_add_test(tc, test_pool);
    tcase_add_test(tc, test_adaptive_pool);
    tcase_add_loop_test(tc, test_matmul, 0, (int)(sizeof mm_cases / sizeof mm_cases[0]));
    tcase_add_test(tc, test_linear);
    tcase_add_test(tc, test_concat_stack);
    suite_add_tcase(s, tc);
    return s;
}
