tshape info --filter narrow --filter col --filter base_t --filter chlast tests/fixtures/convert/views.pt; tshape --json info --filter narrow tests/fixtures/convert/views.pt
