"""Shape arithmetic: the library's shape functions on tuples.

Every function takes shapes as tuples (or lists, ints, or text such as
"(3,4)" and "torch.Size([3, 4])") and returns tuples of ints; every rule is
the library's (include/tshape.h names the rule each follows: NumPy,
PyTorch, MXNet, mshadow, einops) and every error a tshape.Error subclass
with the library's message (BroadcastError naming the clashing
arguments, AxisError, SizeError, SizeOverflowError: products never wrap).
"""
import ctypes

from ._lib import AxisSize, ConvParams, Shape, lib
from ._util import CShape, as_dims, check, enc, new_error

c_int64 = ctypes.c_int64


def _err():
    return new_error()


def _i64s(values):
    values = [int(v) for v in values]
    return (c_int64 * max(len(values), 1))(*values), len(values)


def _call_out(fn, *args):
    """Calls fn(*args, out, err) with a fresh output shape; its dims. CShape
    arguments are passed by reference (and kept alive for the call)."""
    out = CShape()
    err = _err()
    cargs = [a.ref if isinstance(a, CShape) else a for a in args]
    check(fn(*cargs, out.ref, ctypes.byref(err)), err)
    return out.dims()


def parse(text):
    """Parses a shape as the CLI reads it: "(3,4,5)", "[3, 4]", "(3,)",
    "()", "5", "torch.Size([3, 4])", "TensorShape([3, 4])"; negative dims
    allowed (reshape targets). ParseError names the column."""
    b = enc(text)
    out = CShape()
    err = _err()
    used = ctypes.c_size_t(0)
    check(lib.ts_shape_parse(b, len(b), 0x1, out.ref, ctypes.byref(used), ctypes.byref(err)),
          err)
    return out.dims()


def format(shape, *, spaces=False, brackets=False):
    """The text of a shape, "(3,4,5)" ("(3,)" for one dim, "()" for a scalar);
    spaces: "(3, 4)"; brackets: "[3,4]"."""
    s = CShape(as_dims(shape))
    flags = (0x1 if brackets else 0) | (0x2 if spaces else 0)
    fn = lib.ts_shape_format
    n = fn(s.ref, flags, None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    fn(s.ref, flags, buf, n + 1)
    return buf.value.decode()


def size(shape):
    """The element count (mshadow TShape::Size): 1 for (), checked for
    overflow (SizeOverflowError)."""
    s = CShape(as_dims(shape))
    v = c_int64(0)
    err = _err()
    check(lib.ts_shape_size(s.ref, ctypes.byref(v), ctypes.byref(err)), err)
    return v.value


def ndim(shape):
    """The number of dims."""
    return len(as_dims(shape))


def flat2d(shape):
    """(product of all dims but the last, last): mshadow FlatTo2D; () gives
    (1,1)."""
    s = CShape(as_dims(shape))
    out = (c_int64 * 2)()
    err = _err()
    check(lib.ts_shape_flat2d(s.ref, out, ctypes.byref(err)), err)
    return tuple(out)


def flat3d(shape, begin, end):
    """mshadow FlatTo3D(begin, end), end inclusive and bounds-checked."""
    s = CShape(as_dims(shape))
    out = (c_int64 * 3)()
    err = _err()
    check(lib.ts_shape_flat3d(s.ref, begin, end, out, ctypes.byref(err)), err)
    return tuple(out)


def prod(shape, begin, end):
    """The product of dims [begin, end) (mshadow ProdShape)."""
    s = CShape(as_dims(shape))
    v = c_int64(0)
    err = _err()
    check(lib.ts_shape_prod(s.ref, begin, end, ctypes.byref(v), ctypes.byref(err)), err)
    return v.value


def broadcast(*shapes):
    """The broadcast shape of the shapes (NumPy broadcasting);
    BroadcastError names the arguments that clash."""
    cs = [CShape(as_dims(s)) for s in shapes]
    ptrs = (ctypes.POINTER(Shape) * max(len(cs), 1))(*[ctypes.pointer(c.s) for c in cs])
    return _call_out(lib.ts_broadcast, ptrs, len(cs))


def reshape(shape, target, *, mxnet=False, reverse=False):
    """The shape `shape` takes reshaped to `target`: NumPy's rule (one -1
    inferred); mxnet=True: MXNet's special values 0, -1, -2, -3, -4,
    reverse=True matching them right to left. The size always matches
    (SizeError otherwise)."""
    flags = (0x1 if mxnet else 0) | (0x2 if reverse else 0)
    return _call_out(lib.ts_reshape, CShape(as_dims(shape)), CShape(as_dims(target)),
                     flags)


def _axes(shape, axes, fn):
    s = CShape(as_dims(shape))
    if axes is None:
        return _call_out(fn, s.ref, None, 0)
    if isinstance(axes, int):
        axes = (axes,)
    arr, n = _i64s(axes)
    return _call_out(fn, s.ref, arr, n)


def transpose(shape, axes=None):
    """numpy.transpose's shape: axes reversed, or permuted by `axes`."""
    return _axes(shape, axes, lib.ts_transpose)


def squeeze(shape, axis=None):
    """numpy.squeeze's shape: every 1 dim, or those of `axis` (an int or a
    tuple; a dim that is not 1 is an error)."""
    return _axes(shape, axis, lib.ts_squeeze)


def expand_dims(shape, axis):
    """numpy.expand_dims's shape: a 1 dim at each position of `axis`."""
    return _axes(shape, axis, lib.ts_expand_dims)


def moveaxis(shape, source, destination):
    """numpy.moveaxis's shape."""
    if isinstance(source, int):
        source = (source,)
    if isinstance(destination, int):
        destination = (destination,)
    src, n = _i64s(source)
    dst, m = _i64s(destination)
    if n != m:
        from ._errors import AxisError
        raise AxisError(5, "moveaxis: %d source axes and %d destinations" % (n, m))
    return _call_out(lib.ts_moveaxis, CShape(as_dims(shape)), src, dst, n)


def flatten(shape, start_dim=0, end_dim=-1):
    """torch.flatten's shape: dims start_dim..end_dim (inclusive) merged."""
    return _call_out(lib.ts_flatten, CShape(as_dims(shape)), start_dim, end_dim)


def strides(shape, itemsize=1, order="C"):
    """Contiguous strides of a shape in bytes (itemsize 1: in elements), C
    or F order (NumPy's rule: 0-size arrays too)."""
    dims = as_dims(shape)
    out = (c_int64 * max(len(dims), 1))()
    err = _err()
    cs = CShape(dims)
    check(lib.ts_strides(cs.ref, itemsize, order.encode(), out, ctypes.byref(err)),
          err)
    return tuple(out[:len(dims)])


def is_contiguous(shape, strides, order="C", itemsize=1):
    """NumPy's relaxed C (or F) contiguity of `strides` (in units of
    itemsize: 1 for element strides) for `shape`."""
    dims = as_dims(shape)
    arr, _ = _i64s(strides)
    fn = lib.ts_is_c_contiguous if order == "C" else lib.ts_is_f_contiguous
    cs = CShape(dims)
    return bool(fn(cs.ref, arr, itemsize))


def ravel_index(index, shape, order="C", mode="raise"):
    """numpy.ravel_multi_index for one index: the flat index; mode 'raise',
    'wrap' or 'clip' (one for all axes, or one per axis)."""
    modes = {"raise": 0, "wrap": 1, "clip": 2}
    ms = [mode] if isinstance(mode, str) else list(mode)
    marr = (ctypes.c_int * len(ms))(*[modes[m] for m in ms])
    idx, n = _i64s(index)
    v = c_int64(0)
    err = _err()
    cs = CShape(as_dims(shape))
    check(lib.ts_ravel_index(cs.ref, idx, n, order.encode(), marr,
                             len(ms), ctypes.byref(v), ctypes.byref(err)), err)
    return v.value


def unravel_index(flat, shape, order="C"):
    """numpy.unravel_index for one flat index: a tuple."""
    dims = as_dims(shape)
    out = (c_int64 * max(len(dims), 1))()
    err = _err()
    cs = CShape(dims)
    check(lib.ts_unravel_index(cs.ref, flat, order.encode(), out,
                               ctypes.byref(err)), err)
    return tuple(out[:len(dims)])


def einsum(subscripts, *shapes):
    """The output shape of numpy.einsum(subscripts, *operands) for operands
    of these shapes (broadcast ellipses, repeated labels checked)."""
    cs = [CShape(as_dims(s)) for s in shapes]
    arr = (Shape * max(len(cs), 1))()
    for k, c in enumerate(cs):
        arr[k] = c.s
    return _call_out(lib.ts_einsum_shape, enc(subscripts), arr, len(cs))


def _einops(op, pattern, shape, sizes):
    items = list(sizes.items())
    names = [enc(k) for k, _ in items]
    arr = (AxisSize * max(len(items), 1))()
    for k, (name, (_, v)) in enumerate(zip(names, items)):
        arr[k] = AxisSize(name, len(name), int(v))
    return _call_out(lib.ts_einops_shape, op, enc(pattern), CShape(as_dims(shape)), arr,
                     len(items))


def rearrange(pattern, shape, **sizes):
    """einops.rearrange's output shape: rearrange("b c h w -> b (c h w)",
    (2,3,4,5)); axis sizes as keywords (h=2)."""
    return _einops(0, pattern, shape, sizes)


def reduce(pattern, shape, **sizes):
    """einops.reduce's output shape."""
    return _einops(1, pattern, shape, sizes)


def repeat(pattern, shape, **sizes):
    """einops.repeat's output shape."""
    return _einops(2, pattern, shape, sizes)


_PAD = {"valid": 1, "same": 2, "same_upper": 2, "same_lower": 3}


def _params(nspatial, kernel, stride, padding, dilation, groups, out_channels,
            output_padding=0, ceil_mode=False):
    def per_axis(v, what):
        v = (v,) * nspatial if isinstance(v, int) else tuple(int(x) for x in v)
        if len(v) != nspatial:
            from ._errors import InvalidArgumentError
            raise InvalidArgumentError(2, "%s has %d values for %d spatial dims"
                                       % (what, len(v), nspatial))
        return v + (0,) * (3 - nspatial)
    p = ConvParams()
    p.struct_size = ctypes.sizeof(ConvParams)
    p.nspatial = nspatial
    p.kernel[:] = per_axis(kernel, "kernel")
    p.stride[:] = per_axis(stride, "stride")
    p.dilation[:] = per_axis(dilation, "dilation")
    p.output_padding[:] = per_axis(output_padding, "output_padding")
    if isinstance(padding, str):
        p.pad_mode = _PAD[padding.lower()]
        p.pad_begin[:] = p.pad_end[:] = (0, 0, 0)
    else:
        pads = per_axis(padding, "padding")
        p.pad_mode = 0
        p.pad_begin[:] = pads
        p.pad_end[:] = pads
    p.groups = groups
    p.out_channels = out_channels if out_channels is not None else 1
    p.ceil_mode = 1 if ceil_mode else 0
    return p


def _nspatial(shape, kernel, spatial):
    """The spatial dims: `spatial`, else one per kernel value, else the
    shape's dims after N and C (a 3-D shape is a batched 1-d input, as
    `tshape conv` reads it; pass spatial=2 for an unbatched 2-d one)."""
    if spatial is not None:
        return int(spatial)
    if not isinstance(kernel, int):
        return len(tuple(kernel))
    n = len(shape) - 2
    return n if 1 <= n <= 3 else 2


def conv_output_shape(shape, out_channels, kernel, stride=1, padding=0, dilation=1, groups=1,
                      *, spatial=None, weight=False):
    """The output shape of torch.nn.Conv1d/2d/3d on an input of `shape`,
    (N, C, *spatial) or unbatched (C, *spatial). kernel, stride, padding,
    dilation: an int or one per spatial dim; padding may be 'same' or
    'valid' (ONNX auto_pad SAME_UPPER/VALID; 'same_lower' too). spatial:
    1, 2 or 3 spatial dims (default: from a kernel tuple, else the dims
    after N and C). With weight=True, returns (output shape, weight
    shape)."""
    dims = as_dims(shape)
    p = _params(_nspatial(dims, kernel, spatial), kernel, stride, padding, dilation, groups,
                out_channels)
    out, w = CShape(), CShape()
    err = _err()
    cin = CShape(dims)
    check(lib.ts_conv_shape(cin.ref, ctypes.byref(p), out.ref, w.ref,
                            ctypes.byref(err)), err)
    return (out.dims(), w.dims()) if weight else out.dims()


def conv_transpose_output_shape(shape, out_channels, kernel, stride=1, padding=0,
                                output_padding=0, dilation=1, groups=1, *, spatial=None,
                                weight=False):
    """The output shape of torch.nn.ConvTranspose1d/2d/3d (see
    conv_output_shape); output_padding per axis."""
    dims = as_dims(shape)
    p = _params(_nspatial(dims, kernel, spatial), kernel, stride, padding, dilation, groups,
                out_channels, output_padding)
    out, w = CShape(), CShape()
    err = _err()
    cin = CShape(dims)
    check(lib.ts_conv_transpose_shape(cin.ref, ctypes.byref(p), out.ref, w.ref,
                                      ctypes.byref(err)), err)
    return (out.dims(), w.dims()) if weight else out.dims()


def pool_output_shape(shape, kernel, stride=None, padding=0, dilation=1, *, kind="max",
                      ceil_mode=False, spatial=None):
    """The output shape of torch.nn.MaxPool/AvgPool 1d/2d/3d (stride
    defaults to the kernel, as PyTorch's)."""
    dims = as_dims(shape)
    p = _params(_nspatial(dims, kernel, spatial), kernel, kernel if stride is None else stride,
                padding, dilation, 1, 1, ceil_mode=ceil_mode)
    return _call_out(lib.ts_pool_shape, CShape(dims), {"max": 0, "avg": 1}[kind],
                     ctypes.byref(p))


def matmul(a, b):
    """numpy.matmul's output shape (1-D promotion, broadcast batch dims)."""
    return _call_out(lib.ts_matmul_shape, CShape(as_dims(a)), CShape(as_dims(b)))


def linear(shape, out_features, *, in_features=None, weight=False):
    """torch.nn.Linear's output shape: (*, in) -> (*, out); in_features
    defaults to the last dim. weight=True: (output, (out, in))."""
    dims = as_dims(shape)
    if in_features is None:
        in_features = dims[-1] if dims else 0
    out, w = CShape(), CShape()
    err = _err()
    cin = CShape(dims)
    check(lib.ts_linear_shape(cin.ref, in_features, out_features, out.ref, w.ref,
                              ctypes.byref(err)), err)
    return (out.dims(), w.dims()) if weight else out.dims()


def _many(fn, shapes, axis):
    cs = [CShape(as_dims(s)) for s in shapes]
    ptrs = (ctypes.POINTER(Shape) * max(len(cs), 1))(*[ctypes.pointer(c.s) for c in cs])
    return _call_out(fn, ptrs, len(cs), axis)


def concat(shapes, axis=0):
    """numpy.concatenate / torch.cat's output shape along `axis`."""
    return _many(lib.ts_concat_shape, shapes, axis)


def stack(shapes, axis=0):
    """numpy.stack / torch.stack's output shape (a new axis)."""
    return _many(lib.ts_stack_shape, shapes, axis)
