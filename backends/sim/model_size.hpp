// What a platform costs the simulator, and modelling only the hosts a run uses.
//
// SimGrid builds every host of a platform up front (a host, its PCIe and loopback
// links, its cables, and twinfab's simulated HCA beside it): a few kilobytes each, so
// `topology.hosts = 16777216` (the schema's maximum) would take tens of gigabytes
// before the first rank starts. A run places its ranks on hosts 0 .. H-1 only, and the
// hosts above carry no traffic and change no route, so the launchers model those H
// hosts (hosts_in_use); a platform that would still not fit in this machine's memory
// is refused up front with the estimate (check_model_fits).
#pragma once

#include <cstdint>

#include "backends/sim/platform.hpp"

namespace twinfab::sim {

/// `p` with only its first `hosts_used` hosts (at least 2 where it has 2): a single
/// switch with fewer ports; a fat tree with its top levels cut to the subtrees that
/// hold those hosts (each kept host keeps its index, its subtree and its routes). The
/// platform itself when it has no more hosts than that, or when TWINFAB_SIM_ALL_HOSTS=1
/// (every host modelled: a measurement of what ranks alone cost, tests/mpi/c's
/// memory_per_rank). Throws fabric::Error for another value of that variable.
Platform hosts_in_use(const Platform& p, unsigned hosts_used);

/// Bytes the simulator's model of `p` takes (hosts and switches with their links and
/// HCAs), an estimate from measured costs per host and per cable between switches.
std::uint64_t estimate_model_bytes(const Platform& p);

/// Throws fabric::Error(InvalidArgument) when estimate_model_bytes(p) is more than the memory
/// available on this machine (MemAvailable in /proc/meminfo), naming both and what to do.
void check_model_fits(const Platform& p);

/// The least a simulated rank costs (its stack's touched pages, its MPI state, its
/// program copy): the 4096-rank ring measures 28 KB per rank for the library alone.
inline constexpr std::uint64_t kBytesPerRankAtLeast = 24 * 1024;
/// Throws fabric::Error(InvalidArgument) when `nranks` ranks at kBytesPerRankAtLeast
/// each, with the model of `p`, exceed the memory available, naming both: a run of
/// 10^8 ranks is refused before its copies and stacks are made.
void check_ranks_fit(const Platform& p, unsigned nranks);

}  // namespace twinfab::sim
