// Run under a PMIx process manager (mpirun -n N): every rank publishes a blob, fences,
// and checks every other rank's blob; then republishes (a later put replaces the
// earlier one) and checks again; a get of a rank outside the job must be refused.
// node(): every rank knows its node, and (mpirun starts them all on this host) all
// ranks name the same one, exchanged through a third round. local_size(): every rank
// counts the whole job as local (the waits' yield-when-idle decision rests on it).
// Exit status 0 only when every check held.
#include <fmt/format.h>

#include <optional>
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
    const std::optional<int> node = oob.node();
    if (!node || *node < 0) {
      fmt::print(stderr, "rank {}: node() is {}\n", oob.rank(), node ? fmt::format("{}", *node) : "empty");
      ++failures;
    } else {
      oob.put(blob_of(fmt::format("{}", *node)));
      oob.fence();
      for (int r = 0; r < oob.size(); ++r) {
        auto got = oob.get(r);
        const std::string text(reinterpret_cast<const char*>(got.data()), got.size());
        if (text != fmt::format("{}", *node)) {
          fmt::print(stderr, "rank {}: node {}, but rank {} on the same host says {}\n", oob.rank(), *node, r, text);
          ++failures;
        }
      }
    }
    if (session.local_size() != oob.size()) {
      fmt::print(stderr, "rank {}: local_size() is {}, but all {} ranks run on this host\n", oob.rank(),
                 session.local_size(), oob.size());
      ++failures;
    }
    if (failures == 0) fmt::print("rank {} of {}: pmix exchange ok\n", oob.rank(), oob.size());
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
