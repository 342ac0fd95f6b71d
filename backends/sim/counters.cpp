#include "backends/sim/counters.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace twinfab::sim {
namespace {

template <typename F>
void for_each_counter(const Counters& c, F&& f) {
  f("messages", c.messages);
  f("packets", c.packets);
  f("bytes", c.bytes);
  f("wire_bytes", c.wire_bytes);
  f("packets_dropped", c.packets_dropped);
  f("messages_dropped", c.messages_dropped);
  f("retransmissions", c.retransmissions);
  f("rnr_naks", c.rnr_naks);
  f("icm_hits", c.icm_hits);
  f("icm_misses", c.icm_misses);
  f("registrations", c.registrations);
  f("registered_bytes", c.registered_bytes);
  f("memory.qp_context", c.qp_context_bytes);
  f("memory.communication_buffers", c.communication_buffer_bytes);
  f("memory.data_structures", c.data_structure_bytes);
}

}  // namespace

std::string Counters::to_text() const {
  std::string out;
  for_each_counter(*this, [&](const char* name, uint64_t v) { out += fmt::format("{} {}\n", name, v); });
  return out;
}

std::string Counters::to_json() const {
  nlohmann::ordered_json j;
  for_each_counter(*this, [&](const char* name, uint64_t v) { j[name] = v; });
  return j.dump();
}

}  // namespace twinfab::sim
