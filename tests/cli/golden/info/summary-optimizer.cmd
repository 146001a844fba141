# issue 20 item 8: one meaning of "parameters" (torch's sum(p.numel() for p
# in model.parameters())). A checkpoint of a 2x3 Linear with Adam's state
# (tests/fixtures/gen_pytorch.py) has 8 parameters, not 26: exp_avg,
# exp_avg_sq and step are optimizer state, counted apart, in the same
# words in the file total (text and JSON) and the model record.
tshape info --summary tests/fixtures/pytorch/adam.pt 2>&1 >/dev/null
tshape --json info --summary tests/fixtures/pytorch/adam.pt | tail -1
tshape info --summary --top 0 tests/fixtures/pytorch/adam.pt | tail -7
tshape --json info --top 0 tests/fixtures/pytorch/adam.pt
