tshape --json scan tests/fixtures/scan/attacks/newobj_ex.pkl tests/fixtures/scan/routine/mixed.pt
