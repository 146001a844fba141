# issue 15 defect 3: --summary has the same columns (file, name, dtype,
# shape) for one file as for several, so cut -f3 is the dtype either way;
# defect 6: flexible types show NumPy's descr (<U3, S5, V4), not bit counts.
tshape info --summary examples/image.npy | cut -f3
tshape info --summary examples/image.npy examples/checkpoint.npz | cut -f3
tshape info --summary tests/fixtures/npy/str_U3.npy tests/fixtures/npy/bytes_S5.npy tests/fixtures/npy/void_V4.npy
