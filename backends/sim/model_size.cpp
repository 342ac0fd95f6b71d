#include "backends/sim/model_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "fabric/error.hpp"

namespace twinfab::sim {

namespace {

// Measured with bench/bench_model_size (peak resident size of a process that builds
// the whole platform, against one that builds 2 hosts), RelWithDebInfo, SimGrid 3.32:
// 4555 bytes per host on a single switch (65536 and 262144 hosts alike: a host, its
// PCIe and loopback links, its cable, twinfab's HCA); fat-tree-4096 6019 per host, the
// difference being its 4096 leaf-to-spine cables (and 160 switches): ~1460 bytes each.
constexpr std::uint64_t kBytesPerHost = 4608;
constexpr std::uint64_t kBytesPerSwitchLink = 1536;

/// MemAvailable from /proc/meminfo in bytes, or 0 when it cannot be read.
std::uint64_t memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

/// Nodes of SimGrid's fat tree at `level` (0: hosts): prod(down[level..]) *
/// prod(up[..level-1]).
std::uint64_t fat_tree_nodes(const FatTreeShape& f, unsigned level) {
  std::uint64_t n = 1;
  for (unsigned i = level; i < f.levels; ++i) n *= f.down[i];
  for (unsigned i = 0; i < level; ++i) n *= f.up[i];
  return n;
}

/// Cables between switches (a host's own cable is in kBytesPerHost).
std::uint64_t switch_links(const Platform& p) {
  if (p.topology == Topology::SingleSwitch) return 0;
  const auto& f = p.fat_tree;
  std::uint64_t links = 0;
  for (unsigned l = 1; l < f.levels; ++l) links += fat_tree_nodes(f, l) * f.up[l] * f.count[l];
  return links;
}

std::uint64_t switch_count(const Platform& p) {
  if (p.topology == Topology::SingleSwitch) return 1;
  std::uint64_t total = 0;
  for (unsigned l = 1; l <= p.fat_tree.levels; ++l) total += fat_tree_nodes(p.fat_tree, l);
  return total;
}

std::string gigabytes(std::uint64_t bytes) { return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9); }

}  // namespace

Platform hosts_in_use(const Platform& p, unsigned hosts_used) {
  if (const char* all = std::getenv("TWINFAB_SIM_ALL_HOSTS"); all != nullptr && std::string_view(all) != "0") {
    if (std::string_view(all) != "1")
      throw fabric::Error(fabric::Status::InvalidArgument,
                          fmt::format("TWINFAB_SIM_ALL_HOSTS='{}' is not 0 or 1 (1: model every host of the "
                                      "platform, also those no rank uses)",
                                      all));
    return p;
  }
  const unsigned keep = std::max(hosts_used, std::min(p.hosts, 2u));
  if (keep >= p.hosts) return p;
  Platform q = p;
  if (p.topology == Topology::SingleSwitch) {
    q.hosts = keep;
    return q;
  }
  // From the leaves up: the first level whose subtrees together hold `keep` hosts keeps
  // as many of its subtrees as needed; every level above keeps one.
  auto& down = q.fat_tree.down;
  std::uint64_t below = 1;
  unsigned l = 0;
  for (; l < down.size(); ++l) {
    if (below * down[l] >= keep) {
      down[l] = static_cast<unsigned>((keep + below - 1) / below);
      break;
    }
    below *= down[l];
  }
  for (unsigned m = l + 1; m < down.size(); ++m) down[m] = 1;
  std::uint64_t hosts = 1;
  for (unsigned d : down) hosts *= d;
  q.hosts = static_cast<unsigned>(hosts);
  return q;
}

std::uint64_t estimate_model_bytes(const Platform& p) {
  return static_cast<std::uint64_t>(p.hosts) * kBytesPerHost + switch_links(p) * kBytesPerSwitchLink;
}

void check_model_fits(const Platform& p) {
  const std::uint64_t need = estimate_model_bytes(p);
  const std::uint64_t available = memory_available();
  if (available == 0 || need <= available) return;
  throw fabric::Error(fabric::Status::InvalidArgument,
                      fmt::format("platform '{}' models {} hosts and {} switch(es): ~{} of simulator memory, more than "
                                  "this machine has available ({}); run fewer ranks or more ranks per host (a run "
                                  "models only the hosts its ranks use), or give the platform fewer hosts",
                                  p.name, p.hosts, switch_count(p), gigabytes(need), gigabytes(available)));
}

void check_ranks_fit(const Platform& p, unsigned nranks) {
  const std::uint64_t need = estimate_model_bytes(p) + std::uint64_t{nranks} * kBytesPerRankAtLeast;
  const std::uint64_t available = memory_available();
  if (available == 0 || need <= available) return;
  throw fabric::Error(fabric::Status::InvalidArgument,
                      fmt::format("{} ranks need at least ~{} of simulator memory ({} KiB per rank at the least, and "
                                  "~{} for the platform's model), more than this machine has available ({}): run "
                                  "fewer ranks",
                                  nranks, gigabytes(need), kBytesPerRankAtLeast / 1024, gigabytes(estimate_model_bytes(p)),
                                  gigabytes(available)));
}

}  // namespace twinfab::sim
