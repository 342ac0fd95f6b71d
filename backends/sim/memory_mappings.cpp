#include "backends/sim/memory_mappings.hpp"

#include <fstream>
#include <string>

namespace twinfab::sim {

std::size_t memory_mapping_count() {
  std::ifstream maps("/proc/self/maps");
  std::size_t lines = 0;
  for (std::string line; std::getline(maps, line);) ++lines;
  return lines;
}

std::size_t memory_mapping_limit() {
  std::ifstream limit("/proc/sys/vm/max_map_count");
  std::size_t value = 0;
  limit >> value;
  return value;
}

}  // namespace twinfab::sim
