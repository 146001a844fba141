tshape info --all --summary tests/fixtures/executorch/segments.pte tests/fixtures/executorch/inline.pte tests/fixtures/executorch/bad_seg.pte
