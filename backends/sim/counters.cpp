#include "backends/sim/counters.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iterator>

namespace twinfab::sim {
namespace {

// Every counter, once, in output order: to_text, to_json and += cannot miss one.
struct Field {
  const char* name;
  uint64_t Counters::*member;
};
constexpr Field kFields[] = {
    {"messages", &Counters::messages},
    {"packets", &Counters::packets},
    {"bytes", &Counters::bytes},
    {"wire_bytes", &Counters::wire_bytes},
    {"packets_dropped", &Counters::packets_dropped},
    {"messages_dropped", &Counters::messages_dropped},
    {"retransmissions", &Counters::retransmissions},
    {"rnr_naks", &Counters::rnr_naks},
    {"icm_hits", &Counters::icm_hits},
    {"icm_misses", &Counters::icm_misses},
    {"registrations", &Counters::registrations},
    {"registered_bytes", &Counters::registered_bytes},
    {"host_software_ns", &Counters::host_software_ns},
    {"memory.qp_context", &Counters::qp_context_bytes},
    {"memory.communication_buffers", &Counters::communication_buffer_bytes},
    {"memory.data_structures", &Counters::data_structure_bytes},
};
// A counter added to the struct must be added above (all are uint64_t).
static_assert(sizeof(Counters) == std::size(kFields) * sizeof(uint64_t));

}  // namespace

Counters& Counters::operator+=(const Counters& other) {
  for (const Field& f : kFields) this->*f.member += other.*f.member;
  return *this;
}

std::string Counters::to_text() const {
  std::string out;
  for (const Field& f : kFields) out += fmt::format("{} {}\n", f.name, this->*f.member);
  return out;
}

std::string Counters::to_json() const {
  nlohmann::ordered_json j;
  for (const Field& f : kFields) j[f.name] = this->*f.member;
  return j.dump();
}

}  // namespace twinfab::sim
