tshape stats tests/fixtures/savedmodel/basic/saved_model.pb
