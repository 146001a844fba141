# issue 20 item 11: shapes as frameworks print them, in every shape
# command (the one parser): torch.Size([3, 4]) and TensorShape([3, 4]);
# an unknown dim (None) is an error naming it. dtypes as frameworks spell
# them wherever a command takes one.
tshape size 'torch.Size([3, 4])' 'TensorShape([2, 5])' 'torch.Size([])'
printf 'torch.Size([8, 3, 224, 224])\nTensorShape([None, 4])\n(None, 28, 28)\nTensorShape(None)\n' | tshape flat2d; echo "exit $?"
tshape broadcast 'torch.Size([2, 1])' 'TensorShape([1, 5])'
tshape strides --dtype torch.float16 'torch.Size([2, 3])'
tshape strides --dtype half '(2,3)'
tshape strides --dtype tf.float32 '(2,3)'
tshape strides --dtype torch.qint8 '(2,3)'; echo "exit $?"
