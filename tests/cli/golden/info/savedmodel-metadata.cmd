tshape info --summary --metadata tests/fixtures/savedmodel/basic/saved_model.pb tests/fixtures/savedmodel/novars/saved_model.pb
