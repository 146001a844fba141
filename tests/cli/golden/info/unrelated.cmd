tshape info --summary tests/fixtures/folders/unrelated | tail -1; tshape diff tests/fixtures/folders/unrelated/run1.safetensors tests/fixtures/folders/unrelated
