// Hardware start-up of the MPI C API (PMIx + verbs): placeholder until the real
// PMIx host lands. Programs built with twinfab-mpicc run under `twinfab sim` today;
// started any other way, MPI_Init stops with a message that says so.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "fabric/error.hpp"
#include "mpi/capi/rank_host.hpp"

namespace twinfab::mpi::capi {

namespace {

class PmixRankHost final : public RankHost {
 public:
  void*& state_slot() override { return slot_; }
  RankResources open() override {
    throw fabric::Error(fabric::Status::Unsupported,
                        "hardware start-up through PMIx is not built yet; run under `twinfab sim -n N ./prog`");
  }
  void close() override {}
  [[noreturn]] void abort(int code, std::string_view message) override {
    std::fflush(stdout);
    fmt::print(stderr, "twinfab: {}\n", message);
    std::fflush(stderr);
    std::_Exit(code);
  }
  std::string_view name() const noexcept override { return "pmix"; }

 private:
  void* slot_ = nullptr;  // one rank per process on hardware
};

}  // namespace

RankHost& default_rank_host() {
  static PmixRankHost host;
  return host;
}

}  // namespace twinfab::mpi::capi
