// Run under a PMIx process manager (mpirun -n N): every rank publishes a blob, fences,
// and checks every other rank's blob; then republishes (a later put replaces the
// earlier one) and checks again; a get of a rank outside the job must be refused.
// Exit status 0 only when every check held.
#include <fmt/format.h>

#include <string>

#include "fabric/error.hpp"
#include "launch/pmix/pmix_oob.hpp"

using twinfab::launch::PmixOobExchange;
using twinfab::launch::PmixSession;

namespace {

std::vector<std::byte> blob_of(const std::string& text) {
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  return {p, p + text.size()};
}

int check_round(PmixOobExchange& oob, const std::string& round) {
  oob.put(blob_of(fmt::format("{} from rank {}", round, oob.rank())));
  oob.fence();
  int failures = 0;
  for (int r = 0; r < oob.size(); ++r) {
    auto got = oob.get(r);
    std::string text(reinterpret_cast<const char*>(got.data()), got.size());
    std::string want = fmt::format("{} from rank {}", round, r);
    if (text != want) {
      fmt::print(stderr, "rank {}: blob of rank {} is '{}', expected '{}'\n", oob.rank(), r, text, want);
      ++failures;
    }
  }
  return failures;
}

}  // namespace

int main() {
  try {
    PmixSession session;
    PmixOobExchange oob(session);
    int failures = check_round(oob, "first") + check_round(oob, "second");
    oob.barrier();
    try {
      (void)oob.get(oob.size());
      fmt::print(stderr, "rank {}: get(size) was not refused\n", oob.rank());
      ++failures;
    } catch (const twinfab::fabric::Error& e) {
      if (e.status() != twinfab::fabric::Status::InvalidArgument) ++failures;
    }
    if (failures == 0) fmt::print("rank {} of {}: pmix exchange ok\n", oob.rank(), oob.size());
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
