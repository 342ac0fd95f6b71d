// Platform overrides ("dotted.key=value", as `twinfab sim --set` takes them): applied
// to the TOML before validation, so they get the file's checks, and every error names
// the override that caused it.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/sim/platform.hpp"
#include "fabric/error.hpp"
#include "tests/support/expect_contains.hpp"

namespace twinfab::sim {
namespace {

using fabric::Error;
using fabric::Status;

const std::string kPresets = TWINFAB_TEST_PRESET_DIR;
constexpr const char* kOverridesSource = "test-platform.toml";
// The required keys only: no [loss] or [topology] table, which overrides then create.
constexpr const char* kMinimal = R"(name = "t"
[network]
link_bandwidth = "10Gbps"
[hca]
pcie_bandwidth = "2GB/s"
header_bytes = 300
[host]
memcpy_bandwidth = "2GB/s"
)";

Platform with(const std::vector<std::string>& overrides) {
  return parse_platform(kMinimal, kOverridesSource, overrides);
}

// The error the overrides raise (fails the test if there is none).
std::string error_of(const std::vector<std::string>& overrides) {
  try {
    with(overrides);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error for override " << overrides.front();
  return {};
}

TEST(PlatformOverrides, AppliedOnTopOfAPreset) {
  const Platform base = load_platform(kPresets + "/connectx-ddr.toml");
  const std::vector<std::string> overrides = {"hca.icm_cache_entries=64", "features.atomics=false",
                                              "topology.hosts=8", "loss.probability=0.01", "name=foo"};
  const Platform p = load_platform(kPresets + "/connectx-ddr.toml", overrides);
  EXPECT_EQ(p.hca.icm_cache_entries, 64u);
  EXPECT_NE(base.hca.icm_cache_entries, 64u);
  EXPECT_FALSE(p.features.atomics);
  EXPECT_EQ(p.hosts, 8u);
  EXPECT_EQ(p.loss.probability, 0.01);
  EXPECT_EQ(p.name, "foo");
  EXPECT_EQ(p.overrides, overrides);
  // What no override touched is the file's.
  EXPECT_EQ(p.link_bandwidth, base.link_bandwidth);
  EXPECT_EQ(p.hca.header_bytes, base.hca.header_bytes);
}

TEST(PlatformOverrides, NoOverridesIsTheOneArgumentForm) {
  const Platform a = load_platform(kPresets + "/ideal.toml");
  const Platform b = load_platform(kPresets + "/ideal.toml", {});
  EXPECT_EQ(a.link_bandwidth, b.link_bandwidth);
  EXPECT_EQ(a.hca.icm_cache_entries, b.hca.icm_cache_entries);
  EXPECT_TRUE(b.overrides.empty());
}

TEST(PlatformOverrides, UnitStringsNeedNoQuotes) {
  EXPECT_EQ(with({"network.link_bandwidth=20Gbps"}).link_bandwidth, 2.5e9);
  EXPECT_EQ(with({"network.link_bandwidth=\"20Gbps\""}).link_bandwidth, 2.5e9);
  EXPECT_EQ(with({"network.link_latency=1.2us"}).link_latency, 1.2e-6);
  EXPECT_EQ(with({"topology.kind=single-switch"}).topology, Topology::SingleSwitch);
  EXPECT_EQ(with({"description=two words"}).description, "two words");
}

TEST(PlatformOverrides, CreateMissingTablesAndLaterOnesWin) {
  const Platform p = with({"loss.seed=5", "loss.seed=9", "loss.per_host=[{host = 1, probability = 0.5}]"});
  EXPECT_EQ(p.loss.seed, 9u);
  ASSERT_EQ(p.loss.per_host.size(), 1u);
  EXPECT_EQ(p.loss.per_host[0].second, 0.5);
  // A whole table as an inline table.
  EXPECT_EQ(with({"topology={hosts = 3, ranks_per_host = 2}"}).ranks_per_host, 2u);
}

TEST(PlatformOverrides, ValueThatIsMoreThanOneTomlValueIsAString) {
  // Not a way to smuggle a second key in: the whole text is the name.
  EXPECT_EQ(with({"name=\"a\"\ndescription = \"b\""}).name, "\"a\"\ndescription = \"b\"");
  EXPECT_EQ(with({"name=a\ndescription = \"b\""}).name, "a\ndescription = \"b\"");
}

TEST(PlatformOverrides, UnknownKeyNamesTheOverrideAndSuggests) {
  const std::string m = error_of({"hca.icm_cache_entires=64"});
  EXPECT_CONTAINS(m, "test-platform.toml (with override hca.icm_cache_entires=64): unknown key "
                     "hca.icm_cache_entires (did you mean \"icm_cache_entries\"?)");
  // A misspelt table the override would have created.
  const std::string t = error_of({"netwrok.mtu=1024"});
  EXPECT_CONTAINS(t, "(with override netwrok.mtu=1024): unknown key netwrok (did you mean \"network\"?)");
}

TEST(PlatformOverrides, OutOfRangeAndWrongTypeNameTheOverride) {
  EXPECT_CONTAINS(error_of({"hca.ack_timeout=40"}),
                  "test-platform.toml (with override hca.ack_timeout=40): hca.ack_timeout must be an integer in "
                  "0..31");
  EXPECT_CONTAINS(error_of({"hca.icm_cache_entries=abc"}),
                  "(with override hca.icm_cache_entries=abc): hca.icm_cache_entries must be an integer in 0..");
  EXPECT_CONTAINS(error_of({"loss.probability=1.5"}),
                  "(with override loss.probability=1.5): loss.probability must be a probability in [0, 1], got 1.5");
  EXPECT_CONTAINS(error_of({"network.link_bandwidth=20Gbs"}), "unknown unit \"Gbs\"");
  EXPECT_CONTAINS(error_of({"features.atomics=no"}), "(with override features.atomics=no): features.atomics must be "
                                                     "true or false, got \"no\"");
}

TEST(PlatformOverrides, FileErrorsCausedByAnOverrideListIt) {
  // header_bytes = 300 is fine with the default MTU (2048), not with 256: the error
  // is at the file's line, and says which overrides were applied.
  EXPECT_CONTAINS(error_of({"network.mtu=256"}),
                  "test-platform.toml:6:16 (with override network.mtu=256): hca.header_bytes must be less than "
                  "network.mtu (256)");
}

TEST(PlatformOverrides, MalformedOverridesAreRefusedByName) {
  EXPECT_CONTAINS(error_of({"hca.icm_cache_entries"}), "override \"hca.icm_cache_entries\": no '='");
  EXPECT_CONTAINS(error_of({"=5"}), "override \"=5\": empty key");
  EXPECT_CONTAINS(error_of({"hca..ack_timeout=3"}), "override \"hca..ack_timeout=3\": empty part in key");
  EXPECT_CONTAINS(error_of({"hca.=3"}), "empty part in key \"hca.\"");
  EXPECT_CONTAINS(error_of({"name.x=1"}), "override \"name.x=1\": name is a string, not a table, so it has no key x");
  EXPECT_CONTAINS(error_of({"hca.header_bytes.x=1"}), "hca.header_bytes is an integer, not a table");
  // The message says how to write one.
  EXPECT_CONTAINS(error_of({"bogus"}), "write KEY=VALUE");
}

TEST(PlatformOverrides, PresetNotFoundIsStillNotFound) {
  try {
    load_platform("no-such-preset", {"hca.ack_timeout=3"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::NotFound);
  }
}

}  // namespace
}  // namespace twinfab::sim
