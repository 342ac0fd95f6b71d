// twinfab launch: the C API's default RankHost, for MPI programs run as real
// processes: one rank per process, started by a PMIx process manager (or alone, as a
// singleton of one rank), on the RDMA device the verbs backend picks
// (TWINFAB_DEVICE, TWINFAB_GID_INDEX; see docs/hardware.md). TWINFAB_DROP_RATE=P
// wraps the device in the fabric's drop hook (fabric/hook/drop_hook.hpp): each UD/UC
// receive is lost with probability P, seeded by TWINFAB_DROP_SEED (default 1) plus the
// rank, so that UD's reliability is exercised on hardware that loses nothing.
// TWINFAB_DELAY_US=D wraps it in the delay hook (fabric/hook/delay_hook.hpp): every
// work request leaves D microseconds later, +- TWINFAB_DELAY_JITTER_US (uniform,
// default 0), seeded by TWINFAB_DELAY_SEED (default 1) plus the rank; a QP's order is
// kept. With both, the delay hook is outside the drop hook.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "fabric/error.hpp"
#include "fabric/hook/delay_hook.hpp"
#include "fabric/hook/drop_hook.hpp"
#include "fabric/log.hpp"
#include "launch/pmix/singleton_oob.hpp"
#ifdef TWINFAB_HAVE_PMIX
#include "launch/pmix/pmix_oob.hpp"
#endif
#include "mpi/capi/rank_host.hpp"
#ifdef TWINFAB_HAVE_VERBS
#include "backends/verbs/verbs_backend.hpp"
#endif

namespace twinfab::mpi::capi {
namespace {

/// A non-negative number from environment variable `name`, or `fallback` when unset;
/// anything else is an error naming the variable. (Unused without the verbs backend.)
[[maybe_unused]] double number_from_environment(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr) return fallback;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= 0))
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("{}='{}' is not a non-negative number", name, text));
  return value;
}

class PmixRankHost final : public RankHost {
 public:
  void*& state_slot() override { return state_; }

  RankResources open() override {
    if (device_) throw fabric::Error(fabric::Status::InvalidState, "the rank's device is already open");
    fabric::apply_log_level_from_environment();
    // Run directly (no process manager): a job of one rank, as MPICH and Open MPI
    // allow. With a process manager's environment, PMIx must work.
#ifdef TWINFAB_HAVE_PMIX
    if (launch::PmixSession::launched_by_process_manager()) {
      session_ = std::make_unique<launch::PmixSession>();
      oob_ = std::make_unique<launch::PmixOobExchange>(*session_);
    }
#else
    if (launched_by_process_manager())
      throw fabric::Error(fabric::Status::Unsupported,
                          "started by a process manager, but this twinfab was built without PMIx (libpmix-dev "
                          "was missing; run ci/install-deps.sh and rebuild)");
#endif
    if (!oob_) oob_ = std::make_unique<launch::SingletonOobExchange>();
#ifdef TWINFAB_HAVE_VERBS
    verbs::OpenOptions options;
    options.connection_rank = static_cast<uint32_t>(oob_->rank());
    // For TWINFAB_YIELD_WHEN_IDLE=auto (the default): more of the job's processes on
    // this host than it has CPUs makes waits yield at once, as Open MPI does.
    options.local_processes = 1;
#ifdef TWINFAB_HAVE_PMIX
    if (session_) options.local_processes = static_cast<uint32_t>(session_->local_size());
#endif
    try {
      device_ = verbs::open_device(options);
      const double drop = number_from_environment("TWINFAB_DROP_RATE", 0);
      if (drop > 0) {
        if (drop > 1)
          throw fabric::Error(fabric::Status::InvalidArgument,
                              fmt::format("TWINFAB_DROP_RATE={} is not a probability (0 to 1)", drop));
        const auto seed = static_cast<std::uint64_t>(number_from_environment("TWINFAB_DROP_SEED", 1)) +
                          static_cast<std::uint64_t>(oob_->rank());
        device_ = std::make_unique<fabric::hook::DropHook>(std::move(device_), drop, seed);
        fabric::log().info("rank {}: UD/UC receives dropped with probability {} (TWINFAB_DROP_RATE, seed {})",
                           oob_->rank(), drop, seed);
      }
      if (std::getenv("TWINFAB_DELAY_US") != nullptr) {
        const double mean = number_from_environment("TWINFAB_DELAY_US", 0) * 1e-6;
        const double jitter = number_from_environment("TWINFAB_DELAY_JITTER_US", 0) * 1e-6;
        try {
          fabric::hook::DelayHook::check_parameters(mean, jitter);
        } catch (const fabric::Error& e) {
          throw fabric::Error(e.status(), fmt::format("TWINFAB_DELAY_US / TWINFAB_DELAY_JITTER_US: {}", e.what()));
        }
        const auto seed = static_cast<std::uint64_t>(number_from_environment("TWINFAB_DELAY_SEED", 1)) +
                          static_cast<std::uint64_t>(oob_->rank());
        device_ = std::make_unique<fabric::hook::DelayHook>(std::move(device_), mean, jitter, seed);
        fabric::log().info("rank {}: every work request delayed by {} us +- {} us (TWINFAB_DELAY_US, seed {})",
                           oob_->rank(), mean * 1e6, jitter * 1e6, seed);
      } else if (std::getenv("TWINFAB_DELAY_JITTER_US") != nullptr || std::getenv("TWINFAB_DELAY_SEED") != nullptr) {
        throw fabric::Error(fabric::Status::InvalidArgument,
                            "TWINFAB_DELAY_JITTER_US or TWINFAB_DELAY_SEED is set without TWINFAB_DELAY_US (the mean "
                            "delay, microseconds): set it too, or unset them");
      }
    } catch (const fabric::Error& e) {
      release();
      throw fabric::Error(e.status(), fmt::format("{}\n(an MPI program built with twinfab-mpicc runs in the "
                                                  "simulator with `twinfab sim -n N ./prog`)",
                                                  e.what()));
    }
#else
    release();
    throw fabric::Error(fabric::Status::Unsupported,
                        "this twinfab was built without the verbs backend (rdma-core was missing), so MPI "
                        "programs cannot run on hardware; run them in the simulator with `twinfab sim -n N ./prog`");
#endif
    return RankResources{*device_, *oob_};
  }

  void close() override { release(); }

  [[noreturn]] void abort(int code, std::string_view message) override {
    // The message names the rank already (fatal()); a prefix here printed it twice.
    std::fprintf(stderr, "twinfab: %.*s\n", static_cast<int>(message.size()), message.data());
    std::fflush(stderr);
    // The process manager ends the other ranks of the job; exit ourselves in any case.
#ifdef TWINFAB_HAVE_PMIX
    if (session_) session_->abort(code, std::string(message));
#endif
    _exit(code == 0 ? 1 : code);
  }

  std::string_view name() const noexcept override {
#ifdef TWINFAB_HAVE_PMIX
    if (session_) return "pmix";
#endif
    return "singleton";
  }

 private:
#ifndef TWINFAB_HAVE_PMIX
  static bool launched_by_process_manager() noexcept { return std::getenv("PMIX_NAMESPACE") != nullptr; }
#endif
  void release() {
    device_.reset();
    oob_.reset();
#ifdef TWINFAB_HAVE_PMIX
    session_.reset();
#endif
  }

  void* state_ = nullptr;
#ifdef TWINFAB_HAVE_PMIX
  std::unique_ptr<launch::PmixSession> session_;
#endif
  std::unique_ptr<fabric::OobExchange> oob_;
  std::unique_ptr<fabric::Device> device_;
};

}  // namespace

RankHost& default_rank_host() {
  // One rank per process on hardware: the host is process-wide by nature (launch/,
  // not mpi/, so rule 1 does not apply). Never destroyed, so it outlives static
  // destructors that might still call MPI.
  static auto* host = new PmixRankHost();
  return *host;
}

}  // namespace twinfab::mpi::capi
