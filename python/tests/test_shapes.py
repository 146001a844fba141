"""The shape functions on tuples give the CLI's answers (the library's),
and its errors as tshape.Error subclasses with the library's messages."""
import pytest

import tshape
from conftest import cli


def cli_shape(*args):
    rc, out, err = cli(*args)
    assert rc == 0, err
    return tshape.parse(out.split()[0])


CASES = [
    (lambda: tshape.broadcast((8, 1, 6, 1), (7, 1, 5)), ["broadcast", "(8,1,6,1)", "(7,1,5)"]),
    (lambda: tshape.reshape((2, 3, 4), (-1, 4)), ["reshape", "(-1,4)", "(2,3,4)"]),
    (lambda: tshape.reshape((2, 3, 4), (0, -1), mxnet=True),
     ["reshape", "--mxnet", "(0,-1)", "(2,3,4)"]),
    (lambda: tshape.transpose((2, 3, 4)), ["transpose", "(2,3,4)"]),
    (lambda: tshape.squeeze((1, 3, 1, 4)), ["squeeze", "(1,3,1,4)"]),
    (lambda: tshape.flatten((2, 3, 4, 5), 1, 2), ["flatten", "1", "2", "(2,3,4,5)"]),
    (lambda: tshape.matmul((10, 1, 3, 4), (5, 4, 2)), ["matmul", "(10,1,3,4)", "(5,4,2)"]),
    (lambda: tshape.concat([(2, 3), (2, 5)], -1), ["cat", "-1", "(2,3)", "(2,5)"]),
    (lambda: tshape.stack([(2, 3), (2, 3)], 1), ["stack", "1", "(2,3)", "(2,3)"]),
    (lambda: tshape.conv_output_shape((8, 3, 224, 224), 64, 3, stride=2, padding=1),
     ["conv", "--kernel", "3", "--stride", "2", "--padding", "1", "--out-channels", "64",
      "(8,3,224,224)"]),
    (lambda: tshape.conv_output_shape((1, 3, 17, 17), 8, 3, stride=2, padding="same"),
     ["conv", "--kernel", "3", "--stride", "2", "--padding", "same", "--out-channels", "8",
      "(1,3,17,17)"]),
    (lambda: tshape.conv_transpose_output_shape((1, 16, 7, 7), 8, 4, stride=2, padding=1),
     ["convtranspose", "--kernel", "4", "--stride", "2", "--padding", "1", "--out-channels",
      "8", "(1,16,7,7)"]),
    (lambda: tshape.pool_output_shape((8, 64, 112, 112), 3, 2, 1),
     ["pool", "--kernel", "3", "--stride", "2", "--padding", "1", "(8,64,112,112)"]),
    (lambda: tshape.pool_output_shape((1, 1, 5, 5), 2, 2, ceil_mode=True, kind="avg"),
     ["pool", "--kernel", "2", "--stride", "2", "--ceil-mode", "--kind", "avg", "(1,1,5,5)"]),
    (lambda: tshape.linear((8, 16), 32), ["linear", "--out-features", "32", "(8,16)"]),
    (lambda: tshape.einsum("ij,jk->ik", (2, 3), (3, 4)), ["einsum", "ij,jk->ik", "(2,3)",
                                                          "(3,4)"]),
    (lambda: tshape.rearrange("b c (h h2) w -> b c h h2 w", (2, 3, 8, 5), h2=2),
     ["rearrange", "b c (h h2) w -> b c h h2 w", "(2,3,8,5)", "h2=2"]),
    (lambda: tshape.moveaxis((2, 3, 4), 0, -1), ["moveaxis", "0", "-1", "(2,3,4)"]),
]


@pytest.mark.parametrize("call,args", CASES)
def test_shape_equals_cli(call, args):
    assert call() == cli_shape(*args)


def test_scalars_and_text():
    assert tshape.size(()) == 1
    assert tshape.size("(3, 224, 224)") == 150528
    assert tshape.ndim("torch.Size([3, 4])") == 2
    assert tshape.flat2d(()) == (1, 1)
    assert tshape.flat3d((2, 3, 4, 5), 1, 2) == (2, 12, 5)
    assert tshape.prod((2, 3, 4), 1, 3) == 12
    assert tshape.format((3,)) == "(3,)"
    assert tshape.format((3, 4), spaces=True) == "(3, 4)"
    assert tshape.strides((2, 3), 4) == (12, 4)
    assert tshape.strides((2, 3), 4, order="F") == (4, 8)
    assert tshape.is_contiguous((2, 3), (3, 1))
    assert not tshape.is_contiguous((2, 3), (1, 2))
    assert tshape.is_contiguous((2, 3), (1, 2), order="F")
    assert tshape.ravel_index((1, 2), (2, 3)) == 5
    assert tshape.ravel_index((5, -1), (2, 3), mode="wrap") == 5
    assert tshape.unravel_index(5, (2, 3)) == (1, 2)
    assert tshape.expand_dims((3,), (0, 2)) == (1, 3, 1)
    assert tshape.linear((8, 16), 32, weight=True) == ((8, 32), (32, 16))
    assert tshape.conv_output_shape((3, 32, 32), 8, 3, spatial=2, weight=True) == (
        (8, 30, 30), (8, 3, 3, 3))
    assert tshape.conv_output_shape((3, 32, 32), 8, 3) == (3, 8, 30)  # batched conv1d


def test_errors():
    with pytest.raises(tshape.BroadcastError) as e:
        tshape.broadcast((2, 3), (4, 3))
    assert e.value.code == 8 and "(arg 0)" in e.value.message
    assert isinstance(e.value, ValueError)
    with pytest.raises(tshape.SizeOverflowError):
        tshape.size((2**62, 4))
    with pytest.raises(tshape.ParseError) as e:
        tshape.parse("(3,4,a)")
    assert e.value.column == 6
    with pytest.raises(tshape.SizeError):
        tshape.reshape((2, 3), (4, -1))
    with pytest.raises(tshape.AxisError):
        tshape.transpose((2, 3), (0, 0))
    with pytest.raises(IndexError):
        tshape.unravel_index(6, (2, 3))
    rc, out, err = cli("broadcast", "(2,3)", "(4,3)")
    with pytest.raises(tshape.BroadcastError) as e:
        tshape.broadcast((2, 3), (4, 3))
    assert rc == 2 and err.strip().endswith(": " + e.value.message)
