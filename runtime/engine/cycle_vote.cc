#include "runtime/engine/cycle_vote.h"

#include <algorithm>

namespace hvd::detail {

void CycleVote::begin(std::size_t span, const Local& local) {
  span_ = span;
  bytes_.assign(kFlags + 2 * span, 0);
  bytes_[kNoFullNeeded] = local.needs_full ? 0 : 1;
  bytes_[kNothingNew] = local.has_new ? 0 : 1;
  bytes_[kJoined] = local.joined ? 1 : 0;
  // A joined rank contributes zeros to whatever the others run, so it is ready for every slot.
  std::fill(bytes_.begin() + kFlags, bytes_.begin() + kFlags + span, static_cast<std::uint8_t>(local.joined ? 1 : 0));
  std::fill(bytes_.begin() + kFlags + span, bytes_.end(), std::uint8_t{1});
}

}  // namespace hvd::detail
