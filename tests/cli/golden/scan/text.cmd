tshape scan tests/fixtures/scan/attacks/getattr_chain.pkl tests/fixtures/scan/clean/optimizer_adam.pt tests/fixtures/scan/clean/torchscript_script.pt
