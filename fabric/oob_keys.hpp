// Several users of one rank's out-of-band blob (fabric/oob_exchange.hpp).
//
// An OobExchange holds one blob per rank, replaced by each put: two parts of a rank
// that publish addresses (the hybrid MPI channel's UD and RC channels) would overwrite
// each other, and both read their peers' blobs lazily, long after start-up. OobKeys
// gives each part a view of its own (key 0, 1, ...): a view's put() keeps the part,
// its fence() publishes every part put so far as one blob on the shared exchange and
// fences it, and its get(rank) returns that rank's part under the same key (empty
// when the rank published none). rank(), size(), node() and barrier() are the shared
// exchange's. Collective rules are the shared exchange's: every rank makes the same
// views and calls them in the same order.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "fabric/oob_exchange.hpp"

namespace twinfab::fabric {

class OobKeys {
 public:
  explicit OobKeys(OobExchange& shared) noexcept;
  ~OobKeys();
  OobKeys(const OobKeys&) = delete;
  OobKeys& operator=(const OobKeys&) = delete;

  /// The view for `key` (made on first use; valid while this object lives).
  OobExchange& view(std::size_t key);

 private:
  class View;
  void publish();
  std::vector<std::byte> part_of(int rank, std::size_t key) const;

  OobExchange& shared_;
  std::vector<std::vector<std::byte>> parts_;  ///< this rank's, by key
  std::vector<std::unique_ptr<View>> views_;
};

}  // namespace twinfab::fabric
