tshape info --metadata tests/fixtures/pt2/linear.pt2
