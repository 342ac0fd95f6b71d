// The kernel's cap on a process's memory mappings (vm.max_map_count, 65530 by
// default) is what limits how many ranks one simulation holds: each rank costs a few
// mappings (its program copy under twinfab sim, its stack's guard page). The launcher's
// pre-check and the simulation's choice of stack guards both count with these.
#pragma once

#include <cstddef>

namespace twinfab::sim {

/// Mappings this process has now (lines of /proc/self/maps).
std::size_t memory_mapping_count();
/// vm.max_map_count, or 0 when it cannot be read.
std::size_t memory_mapping_limit();

}  // namespace twinfab::sim
