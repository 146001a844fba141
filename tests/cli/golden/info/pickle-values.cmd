tshape info --metadata tests/fixtures/scan/routine/rng_state.pt tests/fixtures/scan/clean/arrays.joblib tests/fixtures/scan/clean/model.pdparams
