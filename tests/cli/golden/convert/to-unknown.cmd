tshape convert --to foo examples/checkpoint.npz /nonexistent/o.safetensors
