/*
 * jansson_lazy.h - jansson, loaded with dlopen on first use (see
 * lazylib.h). Include it instead of <jansson.h>: every jansson function the
 * library calls is routed through src/core/lazylib.c; json_incref and
 * json_decref are jansson's inline functions again, calling the routed
 * json_delete. Function-like macros, so jansson's own macros
 * (json_object_foreach, json_array_foreach) expand to routed calls too.
 */
#ifndef TSHAPE_JANSSON_LAZY_H
#define TSHAPE_JANSSON_LAZY_H

#include <jansson.h>

#include "lazylib.h"

/* The functions whose stand-in without jansson returns zero (NULL, 0):
 * return type, name, parameters, arguments. */
#define TS__JANSSON_FUNCS(X)                                                             \
    X(json_t *, json_array, (void), ())                                                  \
    X(int, json_array_append_new, (json_t * a, json_t * v), (a, v))                      \
    X(json_t *, json_array_get, (const json_t *a, size_t i), (a, i))                     \
    X(size_t, json_array_size, (const json_t *a), (a))                                   \
    X(char *, json_dumps, (const json_t *j, size_t flags), (j, flags))                   \
    X(int, json_equal, (const json_t *a, const json_t *b), (a, b))                       \
    X(json_t *, json_integer, (json_int_t v), (v))                                       \
    X(json_int_t, json_integer_value, (const json_t *i), (i))                            \
    X(json_t *, json_null, (void), ())                                                   \
    X(json_t *, json_object, (void), ())                                                 \
    X(json_t *, json_object_get, (const json_t *o, const char *k), (o, k))               \
    X(void *, json_object_iter, (json_t * o), (o))                                       \
    X(const char *, json_object_iter_key, (void *it), (it))                              \
    X(void *, json_object_iter_next, (json_t * o, void *it), (o, it))                    \
    X(json_t *, json_object_iter_value, (void *it), (it))                                \
    X(void *, json_object_key_to_iter, (const char *k), (k))                             \
    X(int, json_object_set_new, (json_t * o, const char *k, json_t *v), (o, k, v))       \
    X(int, json_object_update, (json_t * o, json_t *other), (o, other))                  \
    X(json_t *, json_real, (double v), (v))                                              \
    X(json_t *, json_string, (const char *s), (s))                                       \
    X(size_t, json_string_length, (const json_t *s), (s))                                \
    X(const char *, json_string_value, (const json_t *s), (s))                           \
    X(json_t *, json_stringn, (const char *s, size_t n), (s, n))

#define TS__X(ret, name, params, args) ret ts__jl_##name params;
TS__JANSSON_FUNCS(TS__X)
#undef TS__X
void ts__jl_json_delete(json_t *j);
json_t *ts__jl_json_loadb(const char *b, size_t n, size_t flags, json_error_t *e);
json_t *ts__jl_json_loads(const char *s, size_t flags, json_error_t *e);
json_t *ts__jl_json_pack(const char *fmt, ...);

static inline json_t *ts__jl_json_incref(json_t *j)
{
    if (j && j->refcount != (size_t)-1)
        JSON_INTERNAL_INCREF(j);
    return j;
}

static inline void ts__jl_json_decref(json_t *j)
{
    if (j && j->refcount != (size_t)-1 && JSON_INTERNAL_DECREF(j) == 0)
        ts__jl_json_delete(j);
}

#define json_array() ts__jl_json_array()
#define json_array_append_new(a, v) ts__jl_json_array_append_new((a), (v))
#define json_array_get(a, i) ts__jl_json_array_get((a), (i))
#define json_array_size(a) ts__jl_json_array_size((a))
#define json_delete(j) ts__jl_json_delete((j))
#define json_dumps(j, f) ts__jl_json_dumps((j), (f))
#define json_equal(a, b) ts__jl_json_equal((a), (b))
#define json_integer(v) ts__jl_json_integer((v))
#define json_integer_value(i) ts__jl_json_integer_value((i))
#define json_loadb(b, n, f, e) ts__jl_json_loadb((b), (n), (f), (e))
#define json_loads(s, f, e) ts__jl_json_loads((s), (f), (e))
#define json_null() ts__jl_json_null()
#define json_object() ts__jl_json_object()
#define json_object_get(o, k) ts__jl_json_object_get((o), (k))
#define json_object_iter(o) ts__jl_json_object_iter((o))
#define json_object_iter_key(it) ts__jl_json_object_iter_key((it))
#define json_object_iter_next(o, it) ts__jl_json_object_iter_next((o), (it))
#define json_object_iter_value(it) ts__jl_json_object_iter_value((it))
#define json_object_key_to_iter(k) ts__jl_json_object_key_to_iter((k))
#define json_object_set_new(o, k, v) ts__jl_json_object_set_new((o), (k), (v))
#define json_object_update(o, other) ts__jl_json_object_update((o), (other))
#define json_real(v) ts__jl_json_real((v))
#define json_string(s) ts__jl_json_string((s))
#define json_string_length(s) ts__jl_json_string_length((s))
#define json_string_value(s) ts__jl_json_string_value((s))
#define json_stringn(s, n) ts__jl_json_stringn((s), (n))
#define json_pack(...) ts__jl_json_pack(__VA_ARGS__)
#define json_incref(j) ts__jl_json_incref((j))
#define json_decref(j) ts__jl_json_decref((j))

#endif
