tshape verify tests/fixtures/verify/badcrc.pt tests/fixtures/verify/badcrc.npz; echo "headers only: $?"; tshape verify --deep tests/fixtures/verify/badcrc.pt tests/fixtures/verify/badcrc.npz
