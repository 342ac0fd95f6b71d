// Internal: translation between the contract's work requests/completions and
// libibverbs' structures, shared by QPs, SRQs and CQs.
#pragma once

#include <infiniband/verbs.h>

#include <array>
#include <span>
#include <vector>

#include "fabric/types.hpp"

namespace twinfab::verbs {

/// ibv_sge copies of a contract SGE list; small lists live on the stack.
class IbvSgeList final {
 public:
  explicit IbvSgeList(std::span<const fabric::Sge> sges);
  ibv_sge* data() noexcept { return heap_.empty() ? inline_.data() : heap_.data(); }
  int size() const noexcept { return size_; }
  /// Sum of the lengths, in 64 bits so that many large SGEs cannot wrap.
  uint64_t total_bytes() const noexcept { return total_; }

 private:
  std::array<ibv_sge, 16> inline_;  // only the first size_ entries are set and read
  std::vector<ibv_sge> heap_;
  int size_ = 0;
  uint64_t total_ = 0;
};

/// ibv_post_recv / ibv_post_srq_recv of one contract WR (translated here, for QPs and
/// SRQs alike); returns 0 or a positive errno (providers disagree on the sign). A WR
/// without SGEs, which verbs allows but libsiw refuses with EINVAL before queueing
/// anything, is posted again with one zero-length SGE: a receive that takes
/// zero-length messages only, exactly what was asked for.
int post_one_recv(ibv_qp* qp, const fabric::RecvWr& wr);
int post_one_srq_recv(ibv_srq* srq, const fabric::RecvWr& wr);

ibv_wr_opcode to_ibv_opcode(fabric::Opcode opcode) noexcept;
unsigned to_ibv_send_flags(fabric::SendFlags flags) noexcept;
fabric::WcStatus to_fabric_status(ibv_wc_status status) noexcept;
/// A work completion; for error completions verbs defines only wr_id, status, qp_num
/// (and vendor_err), so opcode and lengths are whatever the provider left there.
fabric::WorkCompletion to_fabric_completion(const ibv_wc& wc) noexcept;

}  // namespace twinfab::verbs
