tshape stats --filter 'conv.*' --filter 'loop/*' tests/fixtures/openvino/basic/model.xml
