// mpi::config_variables(): one variable per Config field, named as the environment
// variable apply_environment reads for it; set_config_variable checks as MPI_Init would
// and changes nothing when it refuses.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "mpi/core/config.hpp"
#include "mpi/core/config_variables.hpp"
#include "mpi/core/error.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::Config;
using mpi::ConfigVariableKind;

/// Whether two configurations are equal, field by field (through the table: the
/// next test checks that it covers every field).
bool same(const Config& a, const Config& b) {
  for (const auto& v : mpi::config_variables())
    if (v.get(a) != v.get(b)) return false;
  return true;
}

TEST(ConfigVariables, OnePerFieldWithUniqueNames) {
  // Fails to compile when Config gains or loses a field: add its variable then.
  const Config c{};
  [[maybe_unused]] const auto& [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
                                f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36,
                                f37, f38, f39, f40, f41, f42, f43, f44, f45, f46, f47, f48, f49, f50, f51, f52,
                                f53, f54, f55, f56, f57, f58, f59, f60, f61, f62, f63, f64, f65] = c;
  EXPECT_EQ(mpi::config_variables().size(), 65u);
  std::set<std::string> names;
  for (const auto& v : mpi::config_variables()) {
    EXPECT_TRUE(names.insert(std::string(v.name)).second) << v.name;
    EXPECT_EQ(v.name.substr(0, 8), "TWINFAB_") << v.name;
    EXPECT_FALSE(v.description.empty()) << v.name;
    EXPECT_EQ(v.kind == ConfigVariableKind::Choice, !v.choices.empty()) << v.name;
    EXPECT_EQ(mpi::find_config_variable(v.name), std::optional<std::size_t>(&v - mpi::config_variables().data()));
  }
  EXPECT_FALSE(mpi::find_config_variable("TWINFAB_NO_SUCH_THING"));
}

TEST(ConfigVariables, NamesAreTheEnvironmentVariables) {
  // Setting a variable's environment variable to a value (a choice's last word) must
  // give that value through apply_environment, and only that field must change.
  testing::run_forked([] {
    const Config defaults = mpi::apply_environment({});
    for (const auto& v : mpi::config_variables()) {
      std::string text;
      std::uint64_t expected = 0;
      if (v.kind == ConfigVariableKind::Choice) {
        expected = v.choices.size() - 1;
        if (v.get(defaults) == expected) expected = 0;
        text = std::string(v.choices[expected]);
      } else {
        expected = v.get(defaults) == 7 ? 9 : 7;  // valid for the counts; the sizes below
        if (v.name == "TWINFAB_PACKET_SIZE") expected = 4096;
        if (v.name == "TWINFAB_CREDITS") expected = 40;
        if (v.name == "TWINFAB_UD_SEND_BUFFERS") expected = 128;          // at least the window
        if (v.name == "TWINFAB_UD_RETRANSMIT_TIMEOUT") expected = 500000;  // above the ACK delay
        if (v.name == "TWINFAB_UD_THREAD_WAKE") expected = 2000;          // at least 10 us
        if (v.name == "TWINFAB_COLL_NODE_AWARE") expected = 0;            // 0 or 1; 1 by default
        if (v.name == "TWINFAB_SHM") expected = 0;                        // 0 or 1; 1 by default
        if (v.name == "TWINFAB_RMA_LOCK_FAIR") expected = 0;              // 0 or 1; 1 by default
        if (v.name == "TWINFAB_SRQ") expected = 1;                        // 0 or 1; 0 by default
        if (v.name == "TWINFAB_SRQ_SIZE") expected = 1024;                // above the limit, below the maximum
        if (v.name == "TWINFAB_SRQ_MAX_SIZE") expected = 16384;           // at least the size
        text = std::to_string(expected);
      }
      const std::string name(v.name);
      setenv(name.c_str(), text.c_str(), 1);
      const Config c = mpi::apply_environment({});
      unsetenv(name.c_str());
      EXPECT_EQ(v.get(c), expected) << name << "=" << text;
      Config back = c;
      v.put(back, v.get(defaults));
      EXPECT_TRUE(same(back, defaults)) << name << " changed another field";
    }
  });
}

TEST(ConfigVariables, SetChecksAsMpiInitWouldAndChangesNothingWhenRefused) {
  const auto index = [](const char* name) { return *mpi::find_config_variable(name); };
  Config c{};
  mpi::set_config_variable(c, index("TWINFAB_EAGER_THRESHOLD"), 1000);
  EXPECT_EQ(c.eager_threshold, 1000u);
  mpi::set_config_variable(c, index("TWINFAB_RENDEZVOUS"), 2);
  EXPECT_EQ(c.rendezvous, mpi::RendezvousVariant::Read);

  const Config before = c;
  const auto refused = [&](const char* name, std::uint64_t value) {
    try {
      mpi::set_config_variable(c, index(name), value);
    } catch (const mpi::Error& e) {
      EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_ARG);
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      EXPECT_TRUE(same(c, before)) << name << "=" << value << " changed the configuration";
      return true;
    }
    return false;
  };
  EXPECT_TRUE(refused("TWINFAB_PACKET_SIZE", 100));          // below 256
  EXPECT_TRUE(refused("TWINFAB_PACKET_SIZE", 1ull << 32));   // beyond the 32-bit field
  EXPECT_TRUE(refused("TWINFAB_RENDEZVOUS", 4));             // no fifth word
  EXPECT_TRUE(refused("TWINFAB_REGCACHE", 3));
  EXPECT_TRUE(refused("TWINFAB_CREDIT_UPDATE", c.credits));  // must stay below the credits
  EXPECT_TRUE(refused("TWINFAB_CREDITS", 2));
  EXPECT_TRUE(refused("TWINFAB_REGCACHE_MAX_BYTES", 0));
  EXPECT_TRUE(refused("TWINFAB_SRQ", 2));
  EXPECT_TRUE(refused("TWINFAB_SRQ_LIMIT", c.srq_size));       // the pool would grow at once
  EXPECT_TRUE(refused("TWINFAB_SRQ_MAX_SIZE", c.srq_size - 1));
  EXPECT_TRUE(refused("TWINFAB_FASTPATH_BUFFERS", 2));
  EXPECT_TRUE(refused("TWINFAB_RMA_PIGGYBACK", 65537));
  EXPECT_THROW(mpi::set_config_variable(c, mpi::config_variables().size(), 1), mpi::Error);
  EXPECT_TRUE(same(c, before));
}

}  // namespace
}  // namespace twinfab::mpitest
