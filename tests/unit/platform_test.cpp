// Platform files: every shipped preset loads, units convert exactly, and every kind
// of bad input is rejected with a message that names the file, the key and what is
// allowed (a researcher reading only the message must be able to fix the file).

#include "backends/sim/platform.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/timing_model.hpp"
#include "fabric/error.hpp"
#include "tests/support/expect_contains.hpp"

namespace twinfab::sim {
namespace {

namespace fs = std::filesystem;
using fabric::Error;
using fabric::Status;

const fs::path kPresetDir = TWINFAB_TEST_PRESET_DIR;
constexpr const char* kSource = "test-platform.toml";

// Sets (or unsets) an environment variable for the lifetime of the object, so that a
// developer's own TWINFAB_PLATFORM_PATH never changes what these tests see.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh directory under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / (std::string("twinfab-platform-") + info->test_suite_name() + "-" +
                                         info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& file, const std::string& text) const {
    const fs::path p = path_ / file;
    std::ofstream(p) << text;
    return p;
  }

 private:
  fs::path path_;
};

// A minimal valid platform (only the required keys), edited per test.
class Doc {
 public:
  Doc() {
    set("", "name", "\"t\"");
    set("network", "link_bandwidth", "\"10Gbps\"");
    set("hca", "pcie_bandwidth", "\"2GB/s\"");
    set("host", "memcpy_bandwidth", "\"2GB/s\"");
  }
  Doc& set(const std::string& table, const std::string& key, const std::string& value) {
    tables_[table][key] = value;
    return *this;
  }
  Doc& erase(const std::string& table, const std::string& key) {
    tables_[table].erase(key);
    return *this;
  }
  std::string text() const {
    std::string out;
    for (const auto& [table, keys] : tables_) {      // "" (top level) sorts first
      if (!table.empty() && keys.empty()) continue;  // erased down to nothing: leave it out
      if (!table.empty()) out += "[" + table + "]\n";
      for (const auto& [key, value] : keys) out += key + " = " + value + "\n";
    }
    return out;
  }
  Platform parse() const { return parse_platform(text(), kSource); }

 private:
  std::map<std::string, std::map<std::string, std::string>> tables_;
};

Platform with(const std::string& table, const std::string& key, const std::string& value) {
  return Doc().set(table, key, value).parse();
}

// The error a document raises; fails the test if it parses.
Error error_of(const Doc& doc) {
  try {
    doc.parse();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error for:\n" << doc.text();
  return Error(Status::Ok, "");
}
Error error_of(const std::string& table, const std::string& key, const std::string& value) {
  return error_of(Doc().set(table, key, value));
}

// Every validation error must name the file, the key and the allowed values.
void expect_message(const Error& e, std::initializer_list<std::string> parts) {
  EXPECT_EQ(e.status(), Status::InvalidArgument) << e.what();
  const std::string message = e.what();
  EXPECT_CONTAINS(message, kSource);
  for (const auto& part : parts) EXPECT_CONTAINS(message, part);
}

std::vector<fs::path> shipped_preset_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kPresetDir))
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// ---------------------------------------------------------------------------------
// Shipped presets
// ---------------------------------------------------------------------------------

TEST(Presets, TheDocumentedPresetsAreShipped) {
  for (const char* name :
       {"ideal", "infinihost-sdr", "connectx-ddr", "chelsio-t3-iwarp", "connectx6-hdr", "fat-tree-4096"}) {
    EXPECT_TRUE(fs::is_regular_file(kPresetDir / (std::string(name) + ".toml"))) << name;
  }
}

TEST(Presets, EveryShippedFileLoadsAndIsSelfConsistent) {
  const auto files = shipped_preset_files();
  ASSERT_FALSE(files.empty()) << kPresetDir;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    Platform p;
    ASSERT_NO_THROW(p = load_platform(file.string()));
    EXPECT_EQ(p.name, file.stem().string()) << "a preset's name is its file name";
    EXPECT_EQ(p.source, file.string());
    EXPECT_FALSE(p.description.empty());
    EXPECT_EQ(p.loss.probability, 0.0) << "presets ship loss-free; experiments turn loss on";
    EXPECT_TRUE(p.loss.per_host.empty());
    EXPECT_GT(p.link_bandwidth, 0);
    EXPECT_GT(p.hca.pcie_bandwidth, 0);
    EXPECT_GT(p.memcpy_bandwidth, 0);
    EXPECT_GT(p.link_latency, 0) << "non-zero latencies keep event order strict";
    EXPECT_GT(p.switch_latency, 0);
    EXPECT_EQ(p.memory.rc_qp_bytes, 68'000u) << "seed 004's 68 KB per RC QP";
  }
}

TEST(Presets, LoadByNameFromTheSearchPath) {
  ScopedEnv env("TWINFAB_PLATFORM_PATH", kPresetDir.string());
  const auto names = list_presets();
  for (const auto& file : shipped_preset_files()) {
    EXPECT_NE(std::find(names.begin(), names.end(), file.stem().string()), names.end()) << file;
    EXPECT_EQ(load_platform(file.stem().string()).name, file.stem().string());
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(Presets, IdealIsNearlyFreeButNotZeroLatency) {
  const Platform p = load_platform((kPresetDir / "ideal.toml").string());
  EXPECT_EQ(p.hosts, 2u);
  EXPECT_EQ(p.mtu, 4096u);
  EXPECT_DOUBLE_EQ(p.link_latency, 1e-9);
  EXPECT_DOUBLE_EQ(p.switch_latency, 1e-9);
  EXPECT_DOUBLE_EQ(p.link_bandwidth, 1e12);
  EXPECT_EQ(p.hca.post_overhead, 0.0);
  EXPECT_EQ(p.hca.wqe_processing, 0.0);
  EXPECT_EQ(p.hca.pcie_latency, 0.0);
  EXPECT_EQ(p.registration.base, 0.0);
  EXPECT_EQ(p.registration.per_page, 0.0);
  EXPECT_TRUE(p.features.atomics && p.features.ud && p.features.uc && p.features.srq);
}

TEST(Presets, InfiniHostSdrIsTheSeedTestbed) {
  const Platform p = load_platform((kPresetDir / "infinihost-sdr.toml").string());
  EXPECT_DOUBLE_EQ(p.link_bandwidth, 1e9);  // 4X SDR: 8 Gb/s of data
  EXPECT_EQ(p.mtu, 2048u);
  EXPECT_EQ(p.hca.icm_cache_entries, 0u);  // contexts in HCA-attached memory
  EXPECT_EQ(p.features.max_rd_atomic, 4u);
}

TEST(Presets, ConnectXDdrCarriesSeed004Figures) {
  const Platform p = load_platform((kPresetDir / "connectx-ddr.toml").string());
  EXPECT_EQ(p.mtu, 2048u);
  EXPECT_DOUBLE_EQ(p.link_bandwidth, 2e9);  // 4X DDR: 16 Gb/s of data
  EXPECT_EQ(p.hca.icm_cache_entries, 128u);
  EXPECT_GT(p.hca.icm_miss_penalty, 0);
  EXPECT_EQ(p.memory.rc_qp_bytes, 68'000u);
  EXPECT_EQ(p.memory.uc_qp_bytes, p.memory.rc_qp_bytes);
}

TEST(Presets, ChelsioT3HasIwarpFeatures) {
  const Platform p = load_platform((kPresetDir / "chelsio-t3-iwarp.toml").string());
  const DeviceFeatures& f = p.features;
  EXPECT_FALSE(f.atomics);
  EXPECT_FALSE(f.write_with_imm);
  EXPECT_FALSE(f.send_with_imm);
  EXPECT_FALSE(f.ud);
  EXPECT_FALSE(f.uc);
  EXPECT_FALSE(f.srq);
  EXPECT_FALSE(f.in_order_placement);
  EXPECT_TRUE(f.requires_connection_manager);
  EXPECT_TRUE(f.active_side_sends_first);
  EXPECT_DOUBLE_EQ(p.link_bandwidth, 1.25e9);
  EXPECT_EQ(p.hca.rnr_retry, 0u);  // iWARP: no RNR retry, a missing receive is fatal
}

TEST(Presets, ConnectX6HdrIsModern) {
  const Platform p = load_platform((kPresetDir / "connectx6-hdr.toml").string());
  EXPECT_DOUBLE_EQ(p.link_bandwidth, 25e9);
  EXPECT_EQ(p.mtu, 4096u);
  EXPECT_EQ(p.features.max_rd_atomic, 16u);
}

// fat-tree-4096 is connectx-ddr on a bigger topology; a value changed in one file but
// not in the other would make scale runs disagree with the pair runs they extend.
TEST(Presets, FatTree4096IsConnectXDdrScaledUp) {
  const Platform big = load_platform((kPresetDir / "fat-tree-4096.toml").string());
  const Platform pair = load_platform((kPresetDir / "connectx-ddr.toml").string());
  EXPECT_EQ(big.hosts, 4096u);
  EXPECT_EQ(big.topology, Topology::FatTree);
  EXPECT_EQ(big.fat_tree.levels, 2u);
  EXPECT_EQ(big.fat_tree.down, (std::vector<unsigned>{32, 128}));
  EXPECT_EQ(big.fat_tree.up, (std::vector<unsigned>{1, 32}));
  EXPECT_EQ(big.fat_tree.count, (std::vector<unsigned>{1, 1}));

  EXPECT_EQ(big.ranks_per_host, pair.ranks_per_host);
  EXPECT_EQ(big.link_bandwidth, pair.link_bandwidth);
  EXPECT_EQ(big.link_latency, pair.link_latency);
  EXPECT_EQ(big.switch_latency, pair.switch_latency);
  EXPECT_EQ(big.mtu, pair.mtu);
  const HcaParams &a = big.hca, &b = pair.hca;
  EXPECT_EQ(a.post_overhead, b.post_overhead);
  EXPECT_EQ(a.wqe_processing, b.wqe_processing);
  EXPECT_EQ(a.pcie_latency, b.pcie_latency);
  EXPECT_EQ(a.pcie_bandwidth, b.pcie_bandwidth);
  EXPECT_EQ(a.atomic_latency, b.atomic_latency);
  EXPECT_EQ(a.poll_overhead, b.poll_overhead);
  EXPECT_EQ(a.event_latency, b.event_latency);
  EXPECT_EQ(a.header_bytes, b.header_bytes);
  EXPECT_EQ(a.icm_cache_entries, b.icm_cache_entries);
  EXPECT_EQ(a.icm_miss_penalty, b.icm_miss_penalty);
  EXPECT_EQ(a.ack_timeout, b.ack_timeout);
  EXPECT_EQ(a.retry_count, b.retry_count);
  EXPECT_EQ(a.rnr_retry, b.rnr_retry);
  EXPECT_EQ(a.min_rnr_timer, b.min_rnr_timer);
  const DeviceFeatures &f = big.features, &g = pair.features;
  EXPECT_EQ(f.atomics, g.atomics);
  EXPECT_EQ(f.write_with_imm, g.write_with_imm);
  EXPECT_EQ(f.send_with_imm, g.send_with_imm);
  EXPECT_EQ(f.ud, g.ud);
  EXPECT_EQ(f.uc, g.uc);
  EXPECT_EQ(f.srq, g.srq);
  EXPECT_EQ(f.in_order_placement, g.in_order_placement);
  EXPECT_EQ(f.requires_connection_manager, g.requires_connection_manager);
  EXPECT_EQ(f.active_side_sends_first, g.active_side_sends_first);
  EXPECT_EQ(f.max_inline, g.max_inline);
  EXPECT_EQ(f.max_rd_atomic, g.max_rd_atomic);
  EXPECT_EQ(big.registration.base, pair.registration.base);
  EXPECT_EQ(big.registration.per_page, pair.registration.per_page);
  EXPECT_EQ(big.registration.page_size, pair.registration.page_size);
  EXPECT_EQ(big.memcpy_bandwidth, pair.memcpy_bandwidth);
  EXPECT_EQ(big.cores, pair.cores);
  EXPECT_EQ(big.loss.probability, pair.loss.probability);
  EXPECT_EQ(big.loss.seed, pair.loss.seed);
  EXPECT_EQ(big.memory.rc_qp_bytes, pair.memory.rc_qp_bytes);
  EXPECT_EQ(big.memory.uc_qp_bytes, pair.memory.uc_qp_bytes);
  EXPECT_EQ(big.memory.ud_qp_bytes, pair.memory.ud_qp_bytes);
  EXPECT_EQ(big.memory.qp_context_bytes, pair.memory.qp_context_bytes);
}

// The presets were fitted to the seeds' measurements with the simulator's closed-form
// timing model (backends/sim/timing_model.hpp). This recomputes the figures that the
// preset comments and docs/platforms.md quote, so that a preset edited without
// redoing the arithmetic, or a model change that moves the presets away from the
// seeds, is noticed: then re-fit the values marked "fitted" in the preset files.
double predicted_peak(const Platform& p) {
  const double bandwidth = std::min(p.link_bandwidth, p.hca.pcie_bandwidth);
  return bandwidth * p.mtu / static_cast<double>(predicted_wire_bytes(p, p.mtu));
}

TEST(Presets, CalibrationMatchesTheSeedsAndTheDocs) {
  struct Expect {
    const char* name;
    double one_way_us;  // 8-byte one-way latency quoted in the file and the docs
    double peak;        // single-flow peak, bytes/s
  };
  for (const Expect& e :
       {Expect{"ideal", 0.003, 1e12}, Expect{"infinihost-sdr", 5.94, 872e6}, Expect{"connectx-ddr", 2.71, 1.429e9},
        Expect{"chelsio-t3-iwarp", 6.49, 1.235e9}, Expect{"connectx6-hdr", 1.00, 24.82e9}}) {
    SCOPED_TRACE(e.name);
    const Platform p = load_platform((kPresetDir / (std::string(e.name) + ".toml")).string());
    EXPECT_NEAR(predicted_one_way(p, 8) * 1e6, e.one_way_us, 0.006);
    EXPECT_NEAR(predicted_peak(p) / e.peak, 1.0, 0.01);
  }
}

// ---------------------------------------------------------------------------------
// Units
// ---------------------------------------------------------------------------------

TEST(Units, BandwidthBitsVersusBytes) {
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"10Gbps\"").link_bandwidth, 1.25e9);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"8Gbit/s\"").link_bandwidth, 1e9);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"10Gb/s\"").link_bandwidth, 1.25e9);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"200Gbps\"").link_bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1.25GB/s\"").link_bandwidth, 1.25e9);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"900MB/s\"").link_bandwidth, 9e8);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"100 Mbps\"").link_bandwidth, 12.5e6);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1Kbps\"").link_bandwidth, 125);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1kB/s\"").link_bandwidth, 1000);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1TB/s\"").link_bandwidth, 1e12);
  // The same number in bits and in bytes differs by exactly 8.
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"8GB/s\"").link_bandwidth,
                   8 * with("network", "link_bandwidth", "\"8Gbps\"").link_bandwidth);
}

TEST(Units, BandwidthPrefixesDecimalUnlessBinary) {
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1MB/s\"").link_bandwidth, 1e6);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1MiB/s\"").link_bandwidth, 1048576);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1GiB/s\"").link_bandwidth, 1073741824.0);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "\"1KiB/s\"").link_bandwidth, 1024);
}

TEST(Units, BandwidthPlainNumbersAreBytesPerSecond) {
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "1000").link_bandwidth, 1000);
  EXPECT_DOUBLE_EQ(with("network", "link_bandwidth", "1.5e9").link_bandwidth, 1.5e9);
}

TEST(Units, Times) {
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"1.2us\"").link_latency, 1.2e-6);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"0.5 us\"").link_latency, 0.5e-6);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"300ns\"").link_latency, 300e-9);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"2ms\"").link_latency, 2e-3);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"0s\"").link_latency, 0.0);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"3s\"").link_latency, 3.0);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"1\xC2\xB5s\"").link_latency, 1e-6);  // micro sign
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"1\xCE\xBCs\"").link_latency, 1e-6);  // Greek mu
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"1e3ns\"").link_latency, 1e-6);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "\"500ps\"").link_latency, 500e-12);
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "2.5e-7").link_latency, 2.5e-7);  // plain: seconds
  EXPECT_DOUBLE_EQ(with("network", "link_latency", "0").link_latency, 0.0);
  // Exactly the double nearest to the decimal written in the file.
  EXPECT_EQ(with("hca", "post_overhead", "\"1.2us\"").hca.post_overhead, 1.2e-6);
}

TEST(Units, Sizes) {
  EXPECT_EQ(with("network", "mtu", "\"2KiB\"").mtu, 2048u);
  EXPECT_EQ(with("network", "mtu", "\"4096\"").mtu, 4096u);
  EXPECT_EQ(with("network", "mtu", "1024").mtu, 1024u);
  EXPECT_EQ(with("network", "mtu", "\"256 B\"").mtu, 256u);
  EXPECT_EQ(with("memory", "rc_qp_bytes", "\"68KB\"").memory.rc_qp_bytes, 68'000u);
  EXPECT_EQ(with("memory", "rc_qp_bytes", "\"68KiB\"").memory.rc_qp_bytes, 69'632u);
  EXPECT_EQ(with("memory", "rc_qp_bytes", "\"1MiB\"").memory.rc_qp_bytes, 1'048'576u);
  EXPECT_EQ(with("memory", "rc_qp_bytes", "\"1.5KiB\"").memory.rc_qp_bytes, 1536u);
  EXPECT_EQ(with("memory", "rc_qp_bytes", "\"2GB\"").memory.rc_qp_bytes, 2'000'000'000u);
  EXPECT_EQ(with("registration", "page_size", "\"2MiB\"").registration.page_size, 2u << 20);
  EXPECT_EQ(with("features", "max_inline", "\"64\"").features.max_inline, 64u);
}

// Every key of the schema reaches its field (catches a key wired to the wrong field).
TEST(Schema, EveryKeyIsReadIntoItsField) {
  const std::string text = R"(
name = "all"
description = "every key"
[topology]
hosts = 8
ranks_per_host = 2
kind = "fat-tree"
fat_tree = { levels = 2, down = [4, 2], up = [1, 2], count = [1, 2] }
[network]
link_bandwidth = "16Gbps"
link_latency = "11ns"
switch_latency = "12ns"
mtu = 1024
[hca]
post_overhead = "1ns"
wqe_processing = "2ns"
pcie_latency = "3ns"
pcie_bandwidth = "3GB/s"
atomic_latency = "4ns"
poll_overhead = "5ns"
event_latency = "7us"
header_bytes = 26
icm_cache_entries = 64
icm_miss_penalty = "6ns"
ack_timeout = 10
retry_count = 3
rnr_retry = 2
min_rnr_timer = 5
[features]
atomics = false
write_with_imm = false
send_with_imm = false
ud = false
uc = false
srq = false
in_order_placement = false
requires_connection_manager = true
active_side_sends_first = true
max_inline = 100
max_rd_atomic = 9
[registration]
base = "7us"
per_page = "8ns"
page_size = "64KiB"
[host]
memcpy_bandwidth = "5GB/s"
cores = 3
[loss]
probability = 0.25
seed = 99
per_host = [{ host = 3, probability = 0.5 }, { host = 7, probability = 1 }]
[memory]
rc_qp_bytes = 1
uc_qp_bytes = 2
ud_qp_bytes = 3
qp_context_bytes = 4
)";
  const Platform p = parse_platform(text, kSource);
  EXPECT_EQ(p.name, "all");
  EXPECT_EQ(p.description, "every key");
  EXPECT_EQ(p.source, kSource);
  EXPECT_EQ(p.hosts, 8u);
  EXPECT_EQ(p.ranks_per_host, 2u);
  EXPECT_EQ(p.topology, Topology::FatTree);
  EXPECT_EQ(p.fat_tree.levels, 2u);
  EXPECT_EQ(p.fat_tree.down, (std::vector<unsigned>{4, 2}));
  EXPECT_EQ(p.fat_tree.up, (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(p.fat_tree.count, (std::vector<unsigned>{1, 2}));
  EXPECT_DOUBLE_EQ(p.link_bandwidth, 2e9);
  EXPECT_DOUBLE_EQ(p.link_latency, 11e-9);
  EXPECT_DOUBLE_EQ(p.switch_latency, 12e-9);
  EXPECT_EQ(p.mtu, 1024u);
  EXPECT_DOUBLE_EQ(p.hca.post_overhead, 1e-9);
  EXPECT_DOUBLE_EQ(p.hca.wqe_processing, 2e-9);
  EXPECT_DOUBLE_EQ(p.hca.pcie_latency, 3e-9);
  EXPECT_DOUBLE_EQ(p.hca.pcie_bandwidth, 3e9);
  EXPECT_DOUBLE_EQ(p.hca.atomic_latency, 4e-9);
  EXPECT_DOUBLE_EQ(p.hca.poll_overhead, 5e-9);
  EXPECT_EQ(p.hca.header_bytes, 26u);
  EXPECT_EQ(p.hca.icm_cache_entries, 64u);
  EXPECT_DOUBLE_EQ(p.hca.icm_miss_penalty, 6e-9);
  EXPECT_EQ(p.hca.ack_timeout, 10u);
  EXPECT_EQ(p.hca.retry_count, 3u);
  EXPECT_EQ(p.hca.rnr_retry, 2u);
  EXPECT_EQ(p.hca.min_rnr_timer, 5u);
  EXPECT_FALSE(p.features.atomics);
  EXPECT_FALSE(p.features.write_with_imm);
  EXPECT_FALSE(p.features.send_with_imm);
  EXPECT_FALSE(p.features.ud);
  EXPECT_FALSE(p.features.uc);
  EXPECT_FALSE(p.features.srq);
  EXPECT_FALSE(p.features.in_order_placement);
  EXPECT_TRUE(p.features.requires_connection_manager);
  EXPECT_TRUE(p.features.active_side_sends_first);
  EXPECT_EQ(p.features.max_inline, 100u);
  EXPECT_EQ(p.features.max_rd_atomic, 9u);
  EXPECT_DOUBLE_EQ(p.registration.base, 7e-6);
  EXPECT_DOUBLE_EQ(p.registration.per_page, 8e-9);
  EXPECT_EQ(p.registration.page_size, 65536u);
  EXPECT_DOUBLE_EQ(p.memcpy_bandwidth, 5e9);
  EXPECT_DOUBLE_EQ(p.hca.event_latency, 7e-6);
  EXPECT_EQ(p.cores, 3u);
  EXPECT_EQ(p.cores_per_host(), 3u);
  EXPECT_DOUBLE_EQ(p.loss.probability, 0.25);
  EXPECT_EQ(p.loss.seed, 99u);
  ASSERT_EQ(p.loss.per_host.size(), 2u);
  EXPECT_EQ(p.loss.per_host[0], (std::pair<unsigned, double>{3, 0.5}));
  EXPECT_EQ(p.loss.per_host[1], (std::pair<unsigned, double>{7, 1.0}));
  EXPECT_EQ(p.memory.rc_qp_bytes, 1u);
  EXPECT_EQ(p.memory.uc_qp_bytes, 2u);
  EXPECT_EQ(p.memory.ud_qp_bytes, 3u);
  EXPECT_EQ(p.memory.qp_context_bytes, 4u);
}

TEST(Schema, OmittedKeysKeepTheDocumentedDefaults) {
  const Platform p = Doc().parse();
  const Platform defaults;
  EXPECT_EQ(p.hosts, defaults.hosts);
  EXPECT_EQ(p.ranks_per_host, defaults.ranks_per_host);
  EXPECT_EQ(p.topology, Topology::SingleSwitch);
  EXPECT_EQ(p.mtu, defaults.mtu);
  EXPECT_EQ(p.link_latency, 0.0);
  EXPECT_EQ(p.hca.ack_timeout, defaults.hca.ack_timeout);
  EXPECT_EQ(p.features.max_inline, defaults.features.max_inline);
  EXPECT_EQ(p.loss.seed, defaults.loss.seed);
}

TEST(Schema, PerHostLossAlsoAsArrayOfTables) {
  const Platform p = parse_platform(Doc().text() + "[[loss.per_host]]\nhost = 1\nprobability = 0.1\n", kSource);
  ASSERT_EQ(p.loss.per_host.size(), 1u);
  EXPECT_EQ(p.loss.per_host[0].first, 1u);
  EXPECT_DOUBLE_EQ(p.loss.per_host[0].second, 0.1);
}

// ---------------------------------------------------------------------------------
// Bad input: file, key and allowed values in every message
// ---------------------------------------------------------------------------------

TEST(Errors, UnknownKeyListsTheTablesKeys) {
  const Error e = error_of("network", "link_bandwith", "\"10Gbps\"");
  expect_message(e, {"unknown key network.link_bandwith", "link_bandwidth, link_latency, switch_latency, mtu",
                     "did you mean \"link_bandwidth\""});
}

TEST(Errors, UnknownTopLevelTableListsTheTables) {
  const Error e = error_of("netwrok", "mtu", "2048");
  expect_message(e, {"unknown key netwrok",
                     "name, description, topology, network, hca, features, registration, "
                     "host, loss, memory"});
}

TEST(Errors, UnknownKeyInInlineTable) {
  const Error e =
      error_of(Doc()
                   .set("topology", "kind", "\"fat-tree\"")
                   .set("topology", "fat_tree", "{ levels = 1, down = [2], up = [1], count = [1], wide = 2 }"));
  expect_message(e, {"topology.fat_tree.wide", "levels, down, up, count"});
}

TEST(Errors, UnknownKeyNamesItsLine) {
  // Doc's layout: line 1 name, line 2 [hca], line 3 pcie_bandwidth, line 4 the typo.
  const Error e = error_of("hca", "pcie_latncy", "\"1us\"");
  EXPECT_CONTAINS(std::string(e.what()), "test-platform.toml:4:1: unknown key hca.pcie_latncy");
}

TEST(Errors, WrongTypes) {
  expect_message(error_of("hca", "ack_timeout", "\"14\""), {"hca.ack_timeout", "integer in 0..31", "\"14\""});
  expect_message(error_of("features", "atomics", "1"), {"features.atomics", "true or false", "got 1"});
  expect_message(error_of("network", "link_bandwidth", "true"),
                 {"network.link_bandwidth", "a bandwidth", "Gbps", "GB/s", "got a boolean"});
  expect_message(error_of("network", "link_latency", "[1]"), {"network.link_latency", "a time", "us", "an array"});
  expect_message(error_of("", "name", "3"), {"name must be a string", "an integer"});
  expect_message(error_of("topology", "hosts", "2.0"), {"topology.hosts", "integer in 1..", "got 2"});
  expect_message(error_of("loss", "probability", "\"0.1\""), {"loss.probability", "[0, 1]", "a string"});
  expect_message(error_of("topology", "kind", "\"torus\""), {"topology.kind", "\"single-switch\", \"fat-tree\""});
}

TEST(Errors, TableWrittenAsValue) {
  const Error e = error_of(Doc().set("", "network", "5").erase("network", "link_bandwidth"));
  expect_message(e, {"network must be a table", "an integer"});
}

TEST(Errors, BadUnitListsTheUnits) {
  expect_message(error_of("network", "link_bandwidth", "\"10Gbs\""),
                 {"network.link_bandwidth", "unknown unit \"Gbs\"", "Gbps", "GB/s", "KiB/s"});
  expect_message(error_of("network", "link_bandwidth", "\"10GBps\""), {"unknown unit \"GBps\"", "GB/s"});
  expect_message(error_of("network", "link_latency", "\"3 sec\""),
                 {"network.link_latency", "unknown unit \"sec\"", "s, ms, us"});
  expect_message(error_of("network", "mtu", "\"2kb\""), {"network.mtu", "unknown unit \"kb\"", "KiB"});
  expect_message(error_of("memory", "rc_qp_bytes", "\"68 kilobytes\""), {"memory.rc_qp_bytes", "KB", "KiB"});
}

TEST(Errors, MissingUnitOrNumber) {
  expect_message(error_of("network", "link_latency", "\"1.2\""), {"network.link_latency", "has no unit", "us"});
  expect_message(error_of("network", "link_bandwidth", "\"fast\""), {"network.link_bandwidth", "a bandwidth", "Gbps"});
  expect_message(error_of("network", "link_bandwidth", "\"infGbps\""), {"network.link_bandwidth", "finite"});
  expect_message(error_of("network", "link_bandwidth", "nan"), {"network.link_bandwidth", "finite"});
}

TEST(Errors, NonPositiveBandwidth) {
  expect_message(error_of("network", "link_bandwidth", "\"-10Gbps\""),
                 {"network.link_bandwidth must be > 0, got \"-10Gbps\""});
  expect_message(error_of("network", "link_bandwidth", "0"), {"network.link_bandwidth must be > 0, got 0"});
  expect_message(error_of("hca", "pcie_bandwidth", "\"0GB/s\""), {"hca.pcie_bandwidth must be > 0"});
  expect_message(error_of("host", "memcpy_bandwidth", "-1.0"), {"host.memcpy_bandwidth must be > 0, got -1"});
}

TEST(Errors, NegativeTime) {
  expect_message(error_of("network", "switch_latency", "\"-1ns\""),
                 {"network.switch_latency must be >= 0, got \"-1ns\""});
}

TEST(Errors, MtuMustBeAnIbMtu) {
  const std::string allowed = "network.mtu must be one of 256, 512, 1024, 2048, 4096";
  expect_message(error_of("network", "mtu", "1500"), {allowed, "got 1500"});
  expect_message(error_of("network", "mtu", "9000"), {allowed});
  expect_message(error_of("network", "mtu", "128"), {allowed});
  expect_message(error_of("network", "mtu", "8192"), {allowed});
  expect_message(error_of("network", "mtu", "\"2KB\""), {allowed, "\"2KB\" = 2000 bytes", "KiB"});
}

TEST(Errors, ProbabilityOutsideZeroOne) {
  expect_message(error_of("loss", "probability", "1.5"), {"loss.probability", "[0, 1]", "got 1.5"});
  expect_message(error_of("loss", "probability", "-0.1"), {"loss.probability", "[0, 1]"});
  expect_message(error_of("loss", "per_host", "[{ host = 0, probability = 2 }]"),
                 {"loss.per_host[0].probability", "[0, 1]", "got 2"});
}

TEST(Errors, HostsMustBePositive) {
  expect_message(error_of("topology", "hosts", "0"), {"topology.hosts", "integer in 1..", "got 0"});
  expect_message(error_of("topology", "ranks_per_host", "0"), {"topology.ranks_per_host", "integer in 1.."});
}

TEST(Errors, PerHostIndexBeyondHosts) {
  expect_message(
      error_of(Doc().set("topology", "hosts", "2").set("loss", "per_host", "[{ host = 2, probability = 0.1 }]")),
      {"loss.per_host[0].host", "integer in 0..1", "got 2"});
  expect_message(error_of("loss", "per_host", "[{ host = 0, probability = 0.1 }, { host = 0, probability = 0.2 }]"),
                 {"loss.per_host[1].host", "already"});
  expect_message(error_of("loss", "per_host", "[{ host = 0 }]"), {"missing required key loss.per_host[0].probability"});
  expect_message(error_of("loss", "per_host", "[{ host = 0, probability = 0.1, rate = 1 }]"),
                 {"loss.per_host[0].rate", "host, probability"});
  expect_message(error_of("loss", "per_host", "[1]"), {"loss.per_host[0]", "must be a table"});
}

TEST(Errors, FatTreeShape) {
  auto tree = [](const std::string& shape) {
    return error_of(Doc()
                        .set("topology", "hosts", "16")
                        .set("topology", "kind", "\"fat-tree\"")
                        .set("topology", "fat_tree", shape));
  };
  expect_message(tree("{ levels = 2, down = [4, 2], up = [1, 2], count = [1, 1] }"),
                 {"topology.fat_tree.down", "4 * 2 = 8", "must equal topology.hosts (16)"});
  expect_message(tree("{ levels = 2, down = [16], up = [1, 2], count = [1, 1] }"),
                 {"topology.fat_tree.down", "must have 2 entries"});
  expect_message(tree("{ levels = 2, down = [4, 4], up = [1, 0], count = [1, 1] }"),
                 {"topology.fat_tree.up[1]", "integer in 1.."});
  expect_message(tree("{ levels = 2, down = [4, 4], up = [1, 2] }"), {"missing required key topology.fat_tree.count"});
  expect_message(error_of(Doc().set("topology", "kind", "\"fat-tree\"")), {"needs a topology.fat_tree table"});
  expect_message(error_of("topology", "fat_tree", "{ levels = 1, down = [2], up = [1], count = [1] }"),
                 {"topology.fat_tree is only used with topology.kind = \"fat-tree\""});
}

TEST(Errors, MalformedTomlGivesLineAndColumn) {
  try {
    parse_platform("name = \"x\"\n[network]\nlink_bandwidth = \"10Gbps\n", kSource);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
    EXPECT_CONTAINS(std::string(e.what()), "test-platform.toml:3:");
    EXPECT_CONTAINS(std::string(e.what()), "malformed TOML");
  }
}

TEST(Errors, UnquotedUnitGetsAHint) {
  for (const char* value : {"10Gbps", "1.2us"}) {
    try {
      parse_platform(std::string("name = \"x\"\n[network]\nlink_latency = ") + value + "\n", kSource);
      ADD_FAILURE() << "expected an error for " << value;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidArgument);
      EXPECT_CONTAINS(std::string(e.what()), "test-platform.toml:3:");
      EXPECT_CONTAINS(std::string(e.what()), "quote it");
    }
  }
}

TEST(Errors, RequiredKeys) {
  expect_message(error_of(Doc().erase("", "name")), {"missing required key name"});
  expect_message(error_of(Doc().erase("network", "link_bandwidth")),
                 {"missing required key network.link_bandwidth", "Gbps"});
  expect_message(error_of(Doc().erase("hca", "pcie_bandwidth")), {"missing required key hca.pcie_bandwidth"});
  expect_message(error_of(Doc().erase("host", "memcpy_bandwidth")), {"missing required key host.memcpy_bandwidth"});
  expect_message(error_of("", "name", "\"  \""), {"name must not be empty"});
}

TEST(Errors, OtherRanges) {
  expect_message(error_of("memory", "rc_qp_bytes", "\"1.5B\""), {"memory.rc_qp_bytes", "whole number of bytes"});
  expect_message(error_of("memory", "rc_qp_bytes", "-1"), {"memory.rc_qp_bytes", "size in 0.."});
  expect_message(error_of("hca", "header_bytes", "\"8GiB\""), {"hca.header_bytes", "size in 0..4294967295"});
  expect_message(error_of("hca", "header_bytes", "4096"), {"hca.header_bytes must be less than network.mtu (2048)"});
  expect_message(error_of("hca", "retry_count", "8"), {"hca.retry_count", "integer in 0..7"});
  expect_message(error_of("features", "max_rd_atomic", "256"), {"features.max_rd_atomic", "integer in 0..255"});
  expect_message(error_of("registration", "page_size", "\"3KiB\""),
                 {"registration.page_size", "power of two from 512 bytes to 1GiB"});
  expect_message(error_of("loss", "seed", "-1"), {"loss.seed", "integer in 0.."});
  expect_message(error_of("host", "cores", "-1"), {"host.cores", "0 = one core per rank"});
  expect_message(error_of("hca", "event_latency", "\"-1us\""), {"hca.event_latency", ">= 0"});
}

TEST(Schema, CoresDefaultToOnePerRank) {
  const Platform p = Doc().set("topology", "ranks_per_host", "4").parse();
  EXPECT_EQ(p.cores, 0u);
  EXPECT_EQ(p.cores_per_host(), 4u);
  EXPECT_EQ(p.hca.event_latency, 0.0);
}

TEST(Presets, EveryHardwarePresetHasACompletionEventLatency) {
  for (const auto& file : shipped_preset_files()) {
    SCOPED_TRACE(file.string());
    const Platform p = load_platform(file.string());
    if (p.name == "ideal") {
      EXPECT_EQ(p.hca.event_latency, 0.0) << "the ideal platform costs nothing";
    } else {
      EXPECT_GE(p.hca.event_latency, 1e-6) << "an interrupt and a thread wake-up take microseconds";
      EXPECT_LE(p.hca.event_latency, 50e-6);
    }
  }
}

// ---------------------------------------------------------------------------------
// Loading: files, presets, the search path
// ---------------------------------------------------------------------------------

TEST(Load, UnknownPresetListsPresetsAndDirectories) {
  ScopedEnv env("TWINFAB_PLATFORM_PATH", kPresetDir.string());
  try {
    load_platform("connectx-hdr");
    FAIL() << "expected NotFound";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::NotFound);
    const std::string message = e.what();
    EXPECT_CONTAINS(message, "unknown platform preset \"connectx-hdr\"");
    EXPECT_CONTAINS(message, "did you mean \"connectx-ddr\"");
    for (const auto& file : shipped_preset_files()) EXPECT_CONTAINS(message, file.stem().string());
    EXPECT_CONTAINS(message, kPresetDir.string());
    EXPECT_CONTAINS(message, "TWINFAB_PLATFORM_PATH");
  }
}

TEST(Load, MissingFileIsNotFound) {
  try {
    load_platform("/nonexistent-twinfab-dir/platform.toml");
    FAIL() << "expected NotFound";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::NotFound);
    EXPECT_CONTAINS(std::string(e.what()), "/nonexistent-twinfab-dir/platform.toml");
  }
  try {
    load_platform("relative-missing.toml");  // ends in .toml: a path, not a preset
    FAIL() << "expected NotFound";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::NotFound);
    EXPECT_CONTAINS(std::string(e.what()), "relative-missing.toml");
  }
}

TEST(Load, DirectoryIsInvalid) {
  TempDir dir;
  try {
    load_platform(dir.path().string() + "/");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
    EXPECT_CONTAINS(std::string(e.what()), "is a directory");
  }
}

TEST(Load, ErrorsInAFileNameThatFile) {
  TempDir dir;
  const fs::path file = dir.write("broken.toml", Doc().set("network", "mtu", "1500").text());
  try {
    load_platform(file.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
    EXPECT_CONTAINS(std::string(e.what()), file.string() + ":");
    EXPECT_CONTAINS(std::string(e.what()), "network.mtu must be one of");
  }
}

TEST(Load, EnvironmentPathComesFirst) {
  TempDir dir;
  dir.write("ideal.toml", Doc().set("", "name", "\"my-ideal\"").text());
  dir.write("mine.toml", Doc().set("", "name", "\"mine\"").text());
  ScopedEnv env("TWINFAB_PLATFORM_PATH", dir.path().string() + ":" + kPresetDir.string() + "::");
  const auto path = preset_search_path();
  ASSERT_GE(path.size(), 2u);
  EXPECT_EQ(path[0], dir.path());
  EXPECT_EQ(path[1], kPresetDir);
  EXPECT_EQ(std::count(path.begin(), path.end(), kPresetDir), 1) << "no duplicates";
  EXPECT_EQ(load_platform("ideal").name, "my-ideal");  // shadows the shipped preset
  EXPECT_EQ(load_platform("mine").name, "mine");
  const auto names = list_presets();
  EXPECT_EQ(std::count(names.begin(), names.end(), "ideal"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "mine"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "connectx-ddr"), 1);
}

TEST(Load, EmptyNameIsInvalid) {
  try {
    load_platform("");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
  }
}

}  // namespace
}  // namespace twinfab::sim
