/*
 * check_jagged.c - jagged, tiled and nested shapes (src/ops/jagged.c):
 * every JaggedShape, TiledShape and Nested<T> example of TensorWrapper's
 * shapev1.rst written in tshape's text form, the ragged shapes we reject,
 * slices, layers, formatting and the limits.
 */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

/* shapev1.rst rank4_shape with jagged matrices inside jagged rank 3 */
#define RANK4 "{{{(10,)},{(20,),(30,)}},{{(10,),(30,)},{(20,)},{(10,),(20,),(30,)}}}"
#define TILE30 "{{(5,5),(5,10),(5,15)},{(10,5),(10,10),(10,15)},{(15,5),(15,10),(15,15)}}"

typedef struct parse_case {
    const char *text;
    int rank, depth;
    int64_t size;
    const char *canon;
} parse_case;

static const parse_case parse_cases[] = {
    /* JaggedShape smooth0/1/2_shape(Shape{...}): smooth shapes viewed as jagged */
    {"()", 0, 0, 1, "()"},
    {"(10,)", 1, 0, 10, "(10,)"},
    {"(10,20)", 2, 0, 200, "(10,20)"},
    {"10", 1, 0, 10, "(10,)"},
    /* rank2_shape{s10}: a jagged matrix with one row */
    {"{(10,)}", 2, 1, 10, "{(10,)}"},
    /* rank2_shape2{s10, s20, s30} */
    {"{(10,),(20,),(30,)}", 2, 1, 60, "{(10,),(20,),(30,)}"},
    {"{(10),(20),(30)}", 2, 1, 60, "{(10,),(20,),(30,)}"},
    /* rank3_shape{s10_20, s30_40, s50_60} */
    {"{(10,20),(30,40),(50,60)}", 3, 1, 4400, "{(10,20),(30,40),(50,60)}"},
    /* rank3_shape2{{s10}, {s20, s30}, {s30, s10, s20}} */
    {"{{(10,)},{(20,),(30,)},{(30,),(10,),(20,)}}", 3, 2, 120,
     "{{(10,)},{(20,),(30,)},{(30,),(10,),(20,)}}"},
    /* rank4_shape{s10_20_30, s40_50_60} */
    {"{(10,20,30),(40,50,60)}", 4, 1, 126000, "{(10,20,30),(40,50,60)}"},
    /* rank4_shape2{{s10_20, s30_40}, {s30_40, s10_20, s50_60}} */
    {"{{(10,20),(30,40)},{(30,40),(10,20),(50,60)}}", 4, 2, 5800,
     "{{(10,20),(30,40)},{(30,40),(10,20),(50,60)}}"},
    {RANK4, 4, 3, 180, RANK4},
    /* the seed's js{s, Shape{10,20}} has ragged leaves; this one has its numbers */
    {"{(60,100),(10,20)}", 3, 1, 6200, "{(60,100),(10,20)}"},
    /* TiledShape s{{5, 10, 15}, {5, 10, 15}}: a 30x30 matrix in 3x3 blocks */
    {"tile (5,10,15) (5,10,15)", 4, 2, 900, TILE30},
    {TILE30, 4, 2, 900, TILE30},
    {"tile (2,3)", 2, 1, 5, "{(2,),(3,)}"},
    {"tile", 0, 0, 1, "()"},
    /* no leaves: the rank is the one the text "{}" has (see normalize) */
    {"tile () (4,)", 1, 1, 0, "{}"},
    {"tile (5,15) ()", 2, 2, 0, "{{},{}}"},
    /* spaces, brackets, trailing commas, scalar leaves, empty braces */
    {"  { ( 1 , 2 ) , [3,4], }  ", 3, 1, 14, "{(1,2),(3,4)}"},
    {"{(),()}", 1, 1, 2, "{(),()}"},
    {"{}", 1, 1, 0, "{}"},
    {"{{},{}}", 2, 2, 0, "{{},{}}"},
    {"{{},{(5,)}}", 3, 2, 5, "{{},{(5,)}}"},
    {"{{(5,)},{}}", 3, 2, 5, "{{(5,)},{}}"},
    {"{(0,4),(3,2)}", 3, 1, 6, "{(0,4),(3,2)}"},
};

START_TEST(test_parse_table)
{
    const parse_case *c = &parse_cases[_i];
    ts_jagged *j = NULL;
    ts_error err;
    int64_t size = -1;
    ck_assert_msg(ts_jagged_parse(c->text, strlen(c->text), &j, &err) == TS_OK, "case %d: %s",
                  _i, err.message);
    ck_assert_int_eq(ts_jagged_rank(j), c->rank);
    ck_assert_int_eq(ts_jagged_depth(j), c->depth);
    ck_assert_int_eq(ts_jagged_size(j, &size, &err), TS_OK);
    ck_assert_int_eq(size, c->size);
    char buf[512];
    size_t n = ts_jagged_format(j, buf, sizeof buf);
    ck_assert_str_eq(buf, c->canon);
    ck_assert_uint_eq(n, strlen(c->canon));
    ts_jagged_free(j);
}
END_TEST

typedef struct bad_case {
    const char *text;
    ts_status code;
    const char *msg;
    int column;
} bad_case;

static const bad_case bad_cases[] = {
    {"{(10,20,30),(10,20)}", TS_ERR_PARSE,
     "ragged jagged shape: element 1 of {...} at column 13 has rank 2 but element 0 has rank 3 "
     "(the {...} opens at column 1)", 13},
    {"{(10,20),{(5,)},(3,4)}", TS_ERR_PARSE,
     "element 1 of {...} at column 10 has 1 jagged mode but element 0 has 0", 10},
    {"{{(1,)},{{}}}", TS_ERR_PARSE,
     "element 1 of {...} at column 9 has at least 2 jagged modes but element 0 has 1", 9},
    {"{(1,),{}}", TS_ERR_PARSE, "element 1 of {...} at column 7 has at least 1 jagged modes but "
     "element 0 has 0", 7},
    {"{{},{(1,)},{{}}}", TS_ERR_PARSE, "element 2 of {...} at column 12 has at least 2 jagged "
     "modes but element 1 has 1", 12},
    {"{{(1,2)},{(3,)}}", TS_ERR_PARSE, "element 1 of {...} at column 10 has rank 2 but element 0 has rank 3", 10},
    {"{10,20}", TS_ERR_PARSE,
     "expected a shape tuple such as (10,20) or a nested {...} at column 2, found '1'", 2},
    {"{(1,)", TS_ERR_PARSE, "expected ',' or '}' (for the '{' at column 1) at column 6, found the end", 6},
    {"{(1,)}}", TS_ERR_PARSE, "unexpected '}' after the jagged shape at column 7", 7},
    {"{(1,,)}", TS_ERR_PARSE, "expected a dim at column 5, found ','", 5},
    {"{(1 2)}", TS_ERR_PARSE, "expected ',' or ')' (for the '(' at column 2) at column 5, found '2'", 5},
    {"{(-1,)}", TS_ERR_PARSE, "expected a dim or the closing bracket at column 3, found '-'", 3},
    {"{(1,]}", TS_ERR_PARSE, "found ']'", 5},
    {"", TS_ERR_PARSE, "found an empty string", 1},
    {"   ", TS_ERR_PARSE, "found only whitespace", 4},
    {"x", TS_ERR_PARSE, "expected '{', a shape tuple such as (10,20), or 'tile' at column 1", 1},
    {"tile 5", TS_ERR_PARSE, "expected a tuple of tile extents such as (5,10,15) at column 6", 6},
    {"tiles (1,)", TS_ERR_PARSE, "expected a space after 'tile' at column 5", 5},
    {"{(99999999999999999999,)}", TS_ERR_OVERFLOW, "dim at column 3 does not fit in int64", 3},
};

START_TEST(test_bad_table)
{
    const bad_case *c = &bad_cases[_i];
    ts_jagged *j = (ts_jagged *)&j; /* must be reset to NULL */
    ts_error err;
    ck_assert_int_eq(ts_jagged_parse(c->text, strlen(c->text), &j, &err), c->code);
    ck_assert_ptr_null(j);
    ck_assert_int_eq(err.code, c->code);
    ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                  c->msg);
    ck_assert_int_eq(err.column, c->column);
}
END_TEST

START_TEST(test_limits)
{
    ts_jagged *j = NULL;
    ts_error err;
    /* 33 nested braces */
    char deep[80];
    memset(deep, '{', 33);
    memset(deep + 33, '}', 33);
    deep[66] = '\0';
    ck_assert_int_eq(ts_jagged_parse(deep, 66, &j, &err), TS_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "nests deeper than 32 levels"));
    ck_assert_int_eq(err.column, 33);
    ck_assert_int_eq(ts_jagged_parse(deep + 1, 64, &j, &err), TS_OK); /* 32 levels: fine */
    ck_assert_int_eq(ts_jagged_rank(j), 32);
    ts_jagged_free(j);
    /* a tiling of 64^4 leaves is refused before allocating */
    char tile[2048] = "tile";
    for (int k = 0; k < 4; k++) {
        strcat(tile, " (");
        for (int i = 0; i < 64; i++)
            strcat(tile, i ? ",1" : "1");
        strcat(tile, ")");
    }
    ck_assert_int_eq(ts_jagged_parse(tile, strlen(tile), &j, &err), TS_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "more than 1000000 nodes or leaf dims"));
    /* rank above TS_MAX_NDIM */
    char wide[600] = "{{(";
    for (int i = 0; i < 63; i++)
        strcat(wide, "1,");
    strcat(wide, ")}}");
    ck_assert_int_eq(ts_jagged_parse(wide, strlen(wide), &j, &err), TS_ERR_NDIM);
    /* many leaves from text: a million is fine, one more node is not */
    size_t n = 1000000;
    char *big = malloc(n * 5 + 8);
    size_t pos = 0;
    big[pos++] = '{';
    for (size_t i = 0; i < n; i++) {
        memcpy(big + pos, "(1),", 4);
        pos += 4;
    }
    big[pos++] = '}';
    ck_assert_int_eq(ts_jagged_parse(big, pos, &j, &err), TS_ERR_LIMIT);
    ts_shape many[TS_JAGGED_MAX_DEPTH + 1];
    for (int i = 0; i <= TS_JAGGED_MAX_DEPTH; i++)
        ts_shape_init(&many[i]);
    ck_assert_int_eq(ts_jagged_tile(many, TS_JAGGED_MAX_DEPTH + 1, &j, &err), TS_ERR_LIMIT);
    ck_assert_ptr_null(j);
    free(big);
}
END_TEST

typedef struct slice_case {
    const char *text, *index, *out;   /* out NULL: error */
    ts_status code;
    const char *msg;
} slice_case;

static const slice_case slice_cases[] = {
    /* shapev1.rst: the (0,1) slice of rank4_shape is JaggedShape{s20, s30} */
    {RANK4, "(0,1)", "{(20,),(30,)}", TS_OK, NULL},
    {RANK4, "(1,2,2)", "(30,)", TS_OK, NULL},
    {RANK4, "(1,2,2,29)", "()", TS_OK, NULL},
    {RANK4, "()", RANK4, TS_OK, NULL},
    {"{(10,20),(30,40)}", "(1,)", "(30,40)", TS_OK, NULL},
    {"{(10,20),(30,40)}", "(1,5)", "(40,)", TS_OK, NULL},
    {"tile (5,10,15) (5,10,15)", "(1,)", "{(10,5),(10,10),(10,15)}", TS_OK, NULL},
    {"(10,20)", "(3,)", "(20,)", TS_OK, NULL},
    {RANK4, "(0,2)", NULL, TS_ERR_INDEX,
     "jagged slice: index 2 is out of bounds for jagged mode 1 with 2 elements"},
    {"{(10,20),(30,40)}", "(1,30)", NULL, TS_ERR_INDEX,
     "jagged slice: index 30 is out of bounds for mode 1 with extent 30"},
    {"{(10,20),(30,40)}", "(-1,)", NULL, TS_ERR_INDEX, "index -1 is out of bounds"},
    {"{(10,20),(30,40)}", "(0,0,0,0)", NULL, TS_ERR_NDIM,
     "jagged slice: 4 indices for a shape of rank 3"},
    {"{}", "(0,)", NULL, TS_ERR_INDEX, "with 0 elements"},
    {"{{},{(5,)}}", "(1,)", "{(5,)}", TS_OK, NULL},
};

START_TEST(test_slice_table)
{
    const slice_case *c = &slice_cases[_i];
    ts_jagged *j = NULL, *s = NULL;
    ts_shape idx = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&idx, c->index);
    ck_assert_int_eq(ts_jagged_parse(c->text, strlen(c->text), &j, NULL), TS_OK);
    ts_status st = ts_jagged_slice(j, ts_shape_dims(&idx), ts_shape_ndim(&idx), &s, &err);
    if (c->out) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        char buf[512];
        ts_jagged_format(s, buf, sizeof buf);
        ck_assert_str_eq(buf, c->out);
        ck_assert_int_eq(ts_jagged_rank(s), ts_jagged_rank(j) - ts_shape_ndim(&idx));
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
    }
    ts_jagged_free(s);
    ts_jagged_free(j);
    ts_shape_free(&idx);
}
END_TEST

typedef struct layer_case {
    const char *text, *layers, *elements;   /* elements NULL: error */
    const char *msg;
} layer_case;

static const layer_case layer_cases[] = {
    /* Nested<Shape> examples: s1_2({1, 2}, Shape{10,20,30}) */
    {"(10,20,30)", "(1,2)", "(10,6000)", NULL},
    {"(10,20,30)", "(3,)", "(6000,)", NULL},
    {"(10,20,30)", "(1,1,1)", "(10,200,6000)", NULL},
    {"(10,)", "(1,0)", "(10,10)", NULL},
    {"(10,)", "(0,1)", "(1,10)", NULL},
    {"(10,20)", "(2,0)", "(200,200)", NULL},
    {"(10,20)", "(0,2)", "(1,200)", NULL},
    {"()", "()", "()", NULL},
    {"()", "(0,0)", "(1,1)", NULL},
    {"(5,10,15,20)", "(2,2)", "(50,15000)", NULL},
    /* Nested<JaggedShape> js1_2({1, 2}, js): 2 elements, then all of them */
    {"{(60,100),(10,20)}", "(1,2)", "(2,6200)", NULL},
    {"{(60,100),(10,20)}", "(2,1)", "(70,6200)", NULL},
    {RANK4, "(1,1,1,1)", "(2,5,9,180)", NULL},
    {RANK4, "(2,2)", "(5,180)", NULL},
    {"{{},{(5,)}}", "(1,1,1)", "(2,1,5)", NULL},
    {"(10,20,30)", "(1,1)", NULL, "layers 1,1 sum to rank 2 but the shape has rank 3"},
    {"(10,20,30)", "()", NULL, "layers () sum to rank 0 but the shape has rank 3"},
    {"(10,20,30)", "(2,-1,2)", NULL, "layer 1 has -1 modes: layers need >= 0"},
    {"(10,20,30)", "(9223372036854775807,9223372036854775807)", NULL,
     "sum to more than 64 but the shape has rank 3"},
};

START_TEST(test_layer_table)
{
    const layer_case *c = &layer_cases[_i];
    ts_jagged *j = NULL;
    ts_shape layers = TS_SHAPE_INIT, want = TS_SHAPE_INIT;
    int64_t got[TS_MAX_NDIM];
    ts_error err;
    tu_shape(&layers, c->layers);
    ck_assert_int_eq(ts_jagged_parse(c->text, strlen(c->text), &j, NULL), TS_OK);
    ts_status st = ts_jagged_layers(j, ts_shape_dims(&layers), ts_shape_ndim(&layers), got, &err);
    if (c->elements) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        tu_shape(&want, c->elements);
        ck_assert_int_eq(ts_shape_ndim(&want), ts_shape_ndim(&layers));
        for (int i = 0; i < ts_shape_ndim(&want); i++)
            ck_assert_int_eq(got[i], ts_shape_dims(&want)[i]);
    } else {
        ck_assert_int_eq(st, TS_ERR_VALUE);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
    }
    ts_jagged_free(j);
    ts_shape_free(&layers);
    ts_shape_free(&want);
}
END_TEST

START_TEST(test_tile_api_and_format)
{
    ts_shape t[2];
    ts_jagged *j = NULL;
    ts_error err;
    ts_shape_init(&t[0]);
    ts_shape_init(&t[1]);
    tu_shape(&t[0], "(5,10,15)");
    tu_shape(&t[1], "(5,10,15)");
    ck_assert_int_eq(ts_jagged_tile(t, 2, &j, &err), TS_OK);
    /* snprintf semantics: the full length, truncated text */
    ck_assert_uint_eq(ts_jagged_format(j, NULL, 0), strlen(TILE30));
    char small[8];
    ck_assert_uint_eq(ts_jagged_format(j, small, sizeof small), strlen(TILE30));
    ck_assert_str_eq(small, "{{(5,5)");
    ts_shape smooth = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_jagged_smooth(j, &smooth, &err), TS_ERR_NDIM);
    ck_assert_str_eq(err.message, "jagged shape {{(5,5),(5,10),(5,15)},{(10,5),(10,10),(10,15)},"
                                  "{(15,5),(15,10),(15,15)}} has 2 jagged modes: it is not smooth");
    ts_jagged_free(j);
    tu_shape(&t[1], "(5,-1)");
    ck_assert_int_eq(ts_jagged_tile(t, 2, &j, &err), TS_ERR_VALUE);
    ck_assert_str_eq(err.message, "tile: extent -1 of tiled mode 1 is negative");
    ck_assert_int_eq(ts_jagged_parse("(3,4)", 5, &j, NULL), TS_OK);
    ck_assert_int_eq(ts_jagged_smooth(j, &smooth, NULL), TS_OK);
    tu_assert_shape(&smooth, "(3,4)");
    ts_jagged_free(j);
    ts_jagged_free(NULL);
    ts_shape_free(&smooth);
    ts_shape_free(&t[0]);
    ts_shape_free(&t[1]);
}
END_TEST

/* Sizes that overflow int64 are reported, not wrapped. */
START_TEST(test_size_overflow)
{
    ts_jagged *j = NULL;
    ts_error err;
    int64_t size;
    const char *t = "{(9223372036854775807,),(1,)}";
    ck_assert_int_eq(ts_jagged_parse(t, strlen(t), &j, NULL), TS_OK);
    ck_assert_int_eq(ts_jagged_size(j, &size, &err), TS_ERR_OVERFLOW);
    ck_assert_str_eq(err.message, "the element count of the jagged shape does not fit in int64");
    ts_jagged_free(j);
    t = "{(4294967296,4294967296)}";
    ck_assert_int_eq(ts_jagged_parse(t, strlen(t), &j, NULL), TS_OK);
    ck_assert_int_eq(ts_jagged_size(j, &size, &err), TS_ERR_OVERFLOW);
    ts_jagged_free(j);
}
END_TEST

Suite *jagged_suite(void)
{
    Suite *s = suite_create("jagged");
    TCase *tc = tcase_create("parse");
    tcase_add_loop_test(tc, test_parse_table, 0, N(parse_cases));
    tcase_add_loop_test(tc, test_bad_table, 0, N(bad_cases));
    tcase_add_test(tc, test_limits);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    tc = tcase_create("ops");
    tcase_add_loop_test(tc, test_slice_table, 0, N(slice_cases));
    tcase_add_loop_test(tc, test_layer_table, 0, N(layer_cases));
    tcase_add_test(tc, test_tile_api_and_format);
    tcase_add_test(tc, test_size_overflow);
    suite_add_tcase(s, tc);
    return s;
}
