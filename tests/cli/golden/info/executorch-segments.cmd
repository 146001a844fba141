tshape info --metadata tests/fixtures/executorch/segments.pte
