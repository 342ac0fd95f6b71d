// The verbs backend as seen by the conformance suite: one RDMA device opened twice
// (two contexts, like rdma-core's own tests: client and server in one process), the
// test body running on the test thread.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>

#include "backends/verbs/verbs_backend.hpp"
#include "fabric/error.hpp"
#include "tests/fabric/test_backend.hpp"

namespace twinfab::testing {
namespace {

std::string test_name_safe(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

class VerbsTestBackend final : public TestBackend {
 public:
  explicit VerbsTestBackend(std::string device) : device_(std::move(device)) {}

  std::string name() const override { return "verbs_" + test_name_safe(device_); }

  void run(const std::function<void(fabric::Device& a, fabric::Device& b)>& body) override {
    // The suite connects the QP on `a` as the active side; on iWARP the higher
    // connection rank is active, so `a` gets rank 1.
    verbs::OpenOptions options_a;
    options_a.device_name = device_;
    options_a.connection_rank = 1;
    verbs::OpenOptions options_b = options_a;
    options_b.connection_rank = 0;
    std::unique_ptr<fabric::Device> a;
    std::unique_ptr<fabric::Device> b;
    try {
      a = verbs::open_device(options_a);
      b = verbs::open_device(options_b);
    } catch (const fabric::Error& e) {
      FAIL() << "opening " << device_ << " failed: " << e.what();
    }
    body(*a, *b);
  }

 private:
  std::string device_;
};

/// Stands in for a device that exists (or was asked for) but cannot be opened, so the
/// problem shows up as failing tests instead of a silently missing backend.
class BrokenVerbsTestBackend final : public TestBackend {
 public:
  explicit BrokenVerbsTestBackend(std::string why) : why_(std::move(why)) {}
  std::string name() const override { return "verbs_unavailable"; }
  void run(const std::function<void(fabric::Device&, fabric::Device&)>&) override {
    FAIL() << "the verbs backend cannot open a device: " << why_;
  }

 private:
  std::string why_;
};

}  // namespace

std::shared_ptr<TestBackend> make_verbs_test_backend() {
  try {
    std::unique_ptr<fabric::Device> probe = verbs::open_device();
    return std::make_shared<VerbsTestBackend>(probe->capabilities().device_name);
  } catch (const fabric::Error& e) {
    // No device on an ordinary host is the normal case: the suite runs without verbs.
    // Inside the micro-VM, or when a device was named, a device is expected.
    const bool expected = std::getenv("TWINFAB_IN_VM") != nullptr || std::getenv("TWINFAB_DEVICE") != nullptr;
    if (e.status() == fabric::Status::NotFound && !expected) return nullptr;
    return std::make_shared<BrokenVerbsTestBackend>(e.what());
  }
}

}  // namespace twinfab::testing
