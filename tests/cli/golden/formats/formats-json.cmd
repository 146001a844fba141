tshape formats --json | cut -c1-60; tshape formats extra
