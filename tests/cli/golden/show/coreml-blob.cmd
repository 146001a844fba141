tshape show tests/fixtures/coreml/model.mlpackage/Data/com.apple.CoreML/model.mlmodel w_blob
