"""Rank R of an MXNet job makes MXNet raise (a reshape that cannot be) while the others wait in an allreduce: the
shared error record names it as hvdrun's root cause. Usage: mxnet_raise.py R"""

import sys

import mxnet as mx

import hvd.mxnet as hvd

hvd.init()
x = mx.nd.ones((2, 3))
if hvd.rank() == int(sys.argv[1]):
    x = x.reshape((4, 4))
print(hvd.allreduce(x, name="x").asnumpy())
