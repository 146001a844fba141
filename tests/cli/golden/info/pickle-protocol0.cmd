# A protocol 0 pickle has no signature: the error says so; --format pickle reads it
tshape info -s tests/fixtures/scan/clean/protocol0.pkl; echo "exit $?"
tshape info -f pickle tests/fixtures/scan/clean/protocol0.pkl
