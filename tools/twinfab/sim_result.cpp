#include "tools/twinfab/sim_result.hpp"

#include <nlohmann/json.hpp>

namespace twinfab::tools {

std::string to_json(const SimRunResult& r) {
  // Counters are serialized by Counters::to_json only: one list of names and order.
  const auto counters = [](const sim::Counters& c) { return nlohmann::ordered_json::parse(c.to_json()); };
  nlohmann::ordered_json j;
  j["exit_status"] = r.exit_status;
  j["simulated_time"] = r.simulated_time;
  j["wall_time"] = r.wall_time;
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["platform"] = r.platform_name;
  j["nranks"] = r.nranks;
  j["ranks_per_host"] = r.ranks_per_host;
  j["loss_probability"] = r.loss_probability;
  j["loss_seed"] = r.loss_seed;
  j["counters"] = counters(r.total);
  j["per_hca"] = nlohmann::ordered_json::array();
  for (const sim::Counters& c : r.per_hca) j["per_hca"].push_back(counters(c));
  return j.dump();
}

}  // namespace twinfab::tools
