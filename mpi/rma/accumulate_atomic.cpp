// twinfab MPI one-sided: accumulates by the HCA's atomics (TWINFAB_RMA_ACCUMULATE=atomics;
// seed 001's RDMA design: "accumulates by remote atomics where an 8-byte integer op
// maps to one").
//
// MPI makes accumulates to one location atomic per element against each other, from
// every origin and the target itself (MPI-3.1 §11.7.1), and under the default
// accumulate_ops=same_op_no_op one location sees one op and MPI_NO_OP. Verbs makes the
// HCA's atomics atomic with each other only (IBV_ATOMIC_HCA), not with the CPU's: so
// the choice is per window and element type, never per operation. On a window that
// takes it, every accumulate-class operation on 8-byte integers goes through the HCA,
// whatever its op: MPI_SUM is a fetch-and-add, MPI_NO_OP a fetch-and-add of 0, and any
// other op (MPI_REPLACE, MAX, PROD, the bitwise ones...) a compare-and-swap loop (guess
// the old value, starting from 0, compute, swap; a failure returns the value to guess
// next), as verbs has no remote swap or max. The target's own operations take the same
// path through the loopback pair (loopback.hpp). Each element's atomic is waited for
// before the next is posted: an accumulate is complete when its call returns, which
// keeps MPI's ordering of one origin's accumulates to one location with no more
// machinery, at one round trip per element (the message design moves a vector in one
// message: this design is for the single-element updates of counters and queues).
#include <fmt/format.h>

#include <cstring>

#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

namespace {
constexpr std::size_t kWord = sizeof(std::uint64_t);
/// The control block's result slot of these atomics (the lock designs use 0 to 2).
constexpr std::size_t kAccumulateSlot = 3;
static_assert(kAccumulateSlot < ControlLayout::kResultSlots);

[[noreturn]] void refuse_misaligned(const char* where, std::uint64_t offset, int target) {
  throw Error(ErrorClass::MPI_ERR_RMA_RANGE, fmt::format("{}(target_disp)", where),
              fmt::format("the target element at byte {} of rank {}'s window is not 8-byte aligned, which the "
                          "HCA's atomics need (TWINFAB_RMA_ACCUMULATE=atomics); use TWINFAB_RMA_ACCUMULATE=messages",
                          offset, target));
}
}  // namespace

bool RmaEngine::by_hca_atomics(const Window& window, BasicKind basic) {
  return window.hca_accumulates && basic_size(basic) == static_cast<std::int64_t>(kWord) &&
         is_defined(Op::Band, basic);  // the C integer types (and MPI_AINT, OFFSET, COUNT)
}

std::vector<std::byte> RmaEngine::hca_accumulate(Window& window, int target, std::uint64_t offset,
                                                 const std::vector<Block>& blocks, const std::byte* values, Op op,
                                                 BasicKind basic, const char* where) {
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(target)];
  const std::uint64_t start = peer.base + offset;
  // Every element first: a misaligned one must not leave the others half applied.
  for (const Block& b : blocks)
    if ((start + static_cast<std::uint64_t>(b.offset)) % kWord != 0 || b.length % static_cast<std::int64_t>(kWord))
      refuse_misaligned(where, offset + static_cast<std::uint64_t>(b.offset), target);
  std::vector<std::byte> old;
  std::size_t index = 0;
  for (const Block& b : blocks) {
    for (std::int64_t at = 0; at < b.length; at += static_cast<std::int64_t>(kWord), ++index) {
      const std::uint64_t address = start + static_cast<std::uint64_t>(b.offset + at);
      std::uint64_t value = 0;
      if (op != Op::NoOp) std::memcpy(&value, values + index * kWord, kWord);
      std::uint64_t previous = 0;
      if (op == Op::Sum || op == Op::NoOp) {
        // Two's complement: the HCA's unsigned addition is MPI_SUM for signed types too.
        previous = wait_atomic(window, post_atomic_at(window, target, address, peer.rkey, RdmaOp::Kind::FetchAdd,
                                                      op == Op::NoOp ? 0 : value, 0, kAccumulateSlot));
      } else {
        std::uint64_t guess = 0;
        for (;;) {
          std::uint64_t desired = guess;
          accumulate_into(reinterpret_cast<std::byte*>(&desired), {Block{0, static_cast<std::int64_t>(kWord)}},
                          reinterpret_cast<const std::byte*>(&value), kWord, op, basic);
          previous = wait_atomic(window, post_atomic_at(window, target, address, peer.rkey,
                                                        RdmaOp::Kind::CompareSwap, guess, desired, kAccumulateSlot));
          if (previous == guess) break;
          guess = previous;
        }
      }
      const auto* bytes = reinterpret_cast<const std::byte*>(&previous);
      old.insert(old.end(), bytes, bytes + kWord);
    }
  }
  return old;
}

std::uint64_t RmaEngine::hca_compare_and_swap(Window& window, int target, std::uint64_t offset,
                                              std::uint64_t compare, std::uint64_t swap, const char* where) {
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(target)];
  if ((peer.base + offset) % kWord != 0) refuse_misaligned(where, offset, target);
  return wait_atomic(window, post_atomic_at(window, target, peer.base + offset, peer.rkey, RdmaOp::Kind::CompareSwap,
                                            compare, swap, kAccumulateSlot));
}

}  // namespace twinfab::mpi::rma
