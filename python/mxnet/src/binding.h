// hvd.mxnet._mx: hvd's collectives on MXNet NDArrays, run on MXNet's engine. Python passes arrays as their
// handles (NDArray.handle.value, an integer) and allocates every output beforehand, its shape negotiated in
// Python where only the other ranks know it. module.cc holds the one Runtime (load()); each register_* adds a concern.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "engine_op.h"

namespace hvd::mxnet {

namespace py = pybind11;

// The process's Runtime; a usage error until Python called load().
Runtime& runtime();

void register_collectives(py::module_& m);

}  // namespace hvd::mxnet
