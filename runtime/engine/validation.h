// The coordinator's checks on one tensor that every rank has submitted (or joined past): the requests must agree
// on op, dtype, shape, reduce op, root, scale factors and group, and what needs every rank is checked here (a
// joined root, alltoall after join, GPU support). Each request has already passed its own rank's argument checks
// (runtime/api/argument_checks.h: dtype, scalar, bool and Adasum rules, root range, splits), which are not repeated.
// The result is the Response every rank executes, or one whose `error` names the tensor, the op and the ranks
// that disagree, with their hosts:
//   allreduce 'grad/fc1.weight': rank 1 (h2) sent float16, rank 0 (h1) sent float32; cast before the call
#pragma once

#include <string>
#include <vector>

#include "runtime/engine/message.h"
#include "runtime/engine/rank_names.h"

namespace hvd::detail {

// by_rank[r] is rank r's request, or null when rank r has joined. At least one is non-null.
Response validate(const std::vector<const Request*>& by_rank, const RankNames& names);

}  // namespace hvd::detail
