// twinfab launch: the fabric's out-of-band exchange over PMIx, for jobs started by a
// PMIx process manager (Open MPI's mpirun/prterun, Slurm's srun --mpi=pmix).
//
// The contract says get() returns a rank's blob "as of the last fence", even when that
// rank has already put a new one for the next fence. PMIx keeps only the latest value
// of a key, so each fence has its own key: fence number k publishes (PMIx_Put with
// PMIX_GLOBAL, PMIx_Commit) the rank's current blob under "twinfab.address.k", then
// runs PMIx_Fence over the namespace with PMIX_COLLECT_DATA; get() reads key k of the
// peer. Every rank calls fence() the same number of times, so k agrees. PMIx itself must be initialised and stay so
// for the object's lifetime (PmixSession does both).
#pragma once

#include <pmix.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fabric/oob_exchange.hpp"

namespace twinfab::launch {

/// PMIx_Init / PMIx_Finalize, and what the process learnt from them.
class PmixSession {
 public:
  /// PMIx_Init. Throws fabric::Error(NotFound) when there is no PMIx server to talk to,
  /// with a message saying how to start the job.
  PmixSession();
  ~PmixSession();
  PmixSession(const PmixSession&) = delete;
  PmixSession& operator=(const PmixSession&) = delete;

  /// True when the environment says a PMIx server started this process (PMIX_* set).
  static bool launched_by_process_manager() noexcept;

  const pmix_proc_t& self() const noexcept { return self_; }
  int rank() const noexcept { return static_cast<int>(self_.rank); }
  int size() const noexcept { return size_; }
  /// The node this process runs on, read once at PMIx_Init: the lowest rank of the
  /// job on the node (from PMIX_LOCAL_PEERS), else the server's PMIX_NODEID; empty when
  /// the server gives neither.
  std::optional<int> node() const noexcept { return node_; }
  /// The job's processes on this node (PMIX_LOCAL_PEERS), read once at PMIx_Init; 0
  /// when the server does not say.
  int local_size() const noexcept { return local_size_; }
  /// Those processes' ranks, ascending; empty when the server does not say.
  const std::vector<int>& local_ranks() const noexcept { return local_ranks_; }
  /// PMIx_Abort: asks the process manager to end the whole job.
  void abort(int code, const std::string& message) noexcept;

 private:
  pmix_proc_t self_{};
  int size_ = 0;
  int local_size_ = 0;
  std::vector<int> local_ranks_;
  std::optional<int> node_;
};

class PmixOobExchange final : public fabric::OobExchange {
 public:
  explicit PmixOobExchange(PmixSession& session) : session_(session) {}
  int rank() const noexcept override { return session_.rank(); }
  int size() const noexcept override { return session_.size(); }
  /// Keeps the blob; the next fence() publishes it.
  void put(std::span<const std::byte> blob) override;
  void fence() override;
  std::vector<std::byte> get(int rank) const override;
  void barrier() override;
  std::optional<int> node() const noexcept override { return session_.node(); }
  std::vector<int> local_ranks() const override { return session_.local_ranks(); }

 private:
  void publish();
  void fence_impl(bool collect_data);
  PmixSession& session_;
  std::vector<std::byte> blob_;
  bool have_blob_ = false;
  unsigned fences_ = 0;  ///< data fences so far: the key suffix of the current epoch
};

}  // namespace twinfab::launch
