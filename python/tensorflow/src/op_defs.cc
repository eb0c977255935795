// The hvd TensorFlow op types and their shapes. Every op names its tensor through `tensor_name` (set by the Python
// wrapper from the user's name) or, when `name_from_node` (graph mode without a name), through its node's name;
// process_set_id is hvd.common's id of the ProcessSet. reduce_op is hvd::ReduceOp's value (hvd.Average, ...).
// `eager` (set when called eagerly) makes the kernel wait for its op on the calling thread, which then runs libhvd's
// cycle itself: an eager caller waits anyway, and libhvd's own thread would take the op only after a pause.
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tf = ::tensorflow;
using tf::shape_inference::InferenceContext;

namespace {

constexpr char kTypes[] = "T: {uint8, int8, uint16, int16, int32, int64, half, bfloat16, float, double, bool}";

tf::Status same_as_inputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
  return absl::OkStatus();
}

// The first dimension is known only after the op ran (every rank's rows, or this rank's share).
tf::Status first_dim_unknown(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) {
    tf::shape_inference::ShapeHandle out;
    TF_RETURN_IF_ERROR(c->ReplaceDim(c->input(i), 0, c->UnknownDim(), &out));
    c->set_output(i, out);
  }
  return absl::OkStatus();
}

}  // namespace

REGISTER_OP("HvdAllreduce")
    .Attr(kTypes)
    .Attr("reduce_op: int")
    .Attr("prescale_factor: float = 1.0")
    .Attr("postscale_factor: float = 1.0")
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensor: T")
    .Output("output: T")
    .SetShapeFn(same_as_inputs);

REGISTER_OP("HvdGroupedAllreduce")
    .Attr(kTypes)
    .Attr("N: int >= 1")
    .Attr("reduce_op: int")
    .Attr("prescale_factor: float = 1.0")
    .Attr("postscale_factor: float = 1.0")
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensors: N * T")
    .Output("outputs: N * T")
    .SetShapeFn(same_as_inputs);

REGISTER_OP("HvdAllgather")
    .Attr(kTypes)
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensor: T")
    .Output("output: T")
    .SetShapeFn(first_dim_unknown);

REGISTER_OP("HvdGroupedAllgather")
    .Attr(kTypes)
    .Attr("N: int >= 1")
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensors: N * T")
    .Output("outputs: N * T")
    .SetShapeFn(first_dim_unknown);

REGISTER_OP("HvdBroadcast")
    .Attr(kTypes)
    .Attr("root_rank: int")
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensor: T")
    .Output("output: T")
    .SetShapeFn(same_as_inputs);

REGISTER_OP("HvdAlltoall")
    .Attr(kTypes)
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensor: T")
    .Input("splits: int32")
    .Output("output: T")
    .Output("received_splits: int32")
    .SetShapeFn([](InferenceContext* c) {
      TF_RETURN_IF_ERROR(first_dim_unknown(c));
      c->set_output(1, c->Vector(c->UnknownDim()));
      return absl::OkStatus();
    });

REGISTER_OP("HvdReducescatter")
    .Attr(kTypes)
    .Attr("reduce_op: int")
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensor: T")
    .Output("output: T")
    .SetShapeFn(first_dim_unknown);

REGISTER_OP("HvdGroupedReducescatter")
    .Attr(kTypes)
    .Attr("N: int >= 1")
    .Attr("reduce_op: int")
    .Attr("process_set_id: int = 0")
    .Attr("tensor_name: string = ''")
    .Attr("name_from_node: bool = false")
    .Attr("eager: bool = false")
    .Input("tensors: N * T")
    .Output("outputs: N * T")
    .SetShapeFn(first_dim_unknown);

REGISTER_OP("HvdJoin")
    .Output("last_joined_rank: int32")
    .SetIsStateful()
    .SetShapeFn(tf::shape_inference::ScalarShape);

REGISTER_OP("HvdBarrier")
    .Attr("process_set_id: int = 0")
    .SetIsStateful()
    .SetShapeFn(tf::shape_inference::NoOutputs);

// The job's shape read when the graph runs (Horovod's size_op, ...), so a graph built before an elastic reset
// sees the new values.
REGISTER_OP("HvdSize")
    .Attr("process_set_id: int = 0")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(tf::shape_inference::ScalarShape);
REGISTER_OP("HvdLocalSize").Output("local_size: int32").SetIsStateful().SetShapeFn(tf::shape_inference::ScalarShape);
REGISTER_OP("HvdRank").Output("rank: int32").SetIsStateful().SetShapeFn(tf::shape_inference::ScalarShape);
REGISTER_OP("HvdLocalRank").Output("local_rank: int32").SetIsStateful().SetShapeFn(tf::shape_inference::ScalarShape);
REGISTER_OP("HvdProcessSetIncluded")
    .Attr("process_set_id: int = 0")
    .Output("included: int32")
    .SetIsStateful()
    .SetShapeFn(tf::shape_inference::ScalarShape);
