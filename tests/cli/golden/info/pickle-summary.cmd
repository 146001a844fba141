tshape info --summary tests/fixtures/scan/routine/module.pt tests/fixtures/scan/clean/torchscript_script.pt tests/fixtures/scan/clean/torchscript_trace.pt tests/fixtures/scan/clean/arrays.pkl
