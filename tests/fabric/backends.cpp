// Which backends the conformance suite runs on: the simulator on a zero-cost preset
// and on timed ones, and the verbs backend when an RDMA device is present.
#include "tests/fabric/test_backend.hpp"

namespace twinfab::testing {

std::shared_ptr<TestBackend> make_sim_test_backend(const std::string& preset);
#ifdef TWINFAB_HAVE_VERBS
std::shared_ptr<TestBackend> make_verbs_test_backend();
#endif

std::vector<std::shared_ptr<TestBackend>> available_backends() {
  std::vector<std::shared_ptr<TestBackend>> out;
  out.push_back(make_sim_test_backend("ideal"));
  out.push_back(make_sim_test_backend("connectx-ddr"));
  out.push_back(make_sim_test_backend("chelsio-t3-iwarp"));  // a device without atomics/imm/UD
#ifdef TWINFAB_HAVE_VERBS
  if (auto verbs = make_verbs_test_backend()) out.push_back(verbs);
#endif
  return out;
}

}  // namespace twinfab::testing
