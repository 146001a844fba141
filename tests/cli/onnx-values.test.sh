#!/bin/sh
# slow: writes a model with a million typed-field values and reads them back
# onnx-values.test.sh - values of ONNX initializers in typed fields
# (float_data, int32_data, ...) agree with onnx.numpy_helper.to_array
# (tests/crosscheck_onnx_values.py, through build/tsvalues).
cd "$(dirname "$0")/../.." || exit 2
if ! /usr/bin/python3 -c 'import numpy, onnx' 2>/dev/null; then
    echo "onnx-values: /usr/bin/python3 has no onnx (apt-get install python3-onnx): skipped"
    exit 77
fi
bin=${TSHAPE:-$(command -v tshape)}
tool=$(dirname "$(readlink -f "$bin")")/tsvalues
if [ ! -x "$tool" ]; then
    echo "onnx-values: no $tool (make builds it with check): skipped"
    exit 77
fi
exec /usr/bin/python3 tests/crosscheck_onnx_values.py "$tool"
