tshape info --metadata --json tests/fixtures/openvino/basic/model.xml
