for d in bad_short bad_size bad_type bad_entity bad_nobin bad_v7; do tshape info tests/fixtures/openvino/$d/model.xml; echo "exit $?"; done
