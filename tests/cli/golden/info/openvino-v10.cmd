tshape info tests/fixtures/openvino/v10/net.xml tests/fixtures/openvino/noconst/model.xml
