tshape info --json --filter 't_f[468]*' tests/fixtures/safetensors/good_all_dtypes.safetensors
