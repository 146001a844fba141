tshape show tests/fixtures/values/i2_be_fortran.npy
