tshape verify tests/fixtures/verify/extra_entry tests/fixtures/verify/unindexed tests/fixtures/verify/duplicate tests/fixtures/verify/total_size tests/fixtures/model/broken
