tshape scan tests/fixtures/pytorch/bad_geometry.pt ../shared/corpus/pytorch/truncated.pt no-such-file
