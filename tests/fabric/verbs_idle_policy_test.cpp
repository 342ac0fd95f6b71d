// When the hardware runtime's waits yield the CPU at once instead of spinning first
// (TWINFAB_YIELD_WHEN_IDLE, backends/verbs/idle_policy.hpp). Pure logic: runs on any
// host, with or without an RDMA device.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

#include "backends/verbs/host_runtime.hpp"
#include "backends/verbs/idle_policy.hpp"
#include "backends/verbs/verbs_backend.hpp"
#include "fabric/error.hpp"

namespace twinfab::verbs {
namespace {

TEST(YieldWhenIdle, AutoYieldsOnlyWhenTheHostRunsMoreProcessesThanCpus) {
  EXPECT_FALSE(decide_yield_when_idle(std::nullopt, nullptr, 2, 2));
  EXPECT_TRUE(decide_yield_when_idle(std::nullopt, nullptr, 3, 2));
  EXPECT_TRUE(decide_yield_when_idle(std::nullopt, "auto", 8, 2));
  EXPECT_FALSE(decide_yield_when_idle(std::nullopt, "", 1, 1));
  // Unknown local process count (a launcher that does not say): spin, as before.
  EXPECT_FALSE(decide_yield_when_idle(std::nullopt, nullptr, 0, 1));
}

TEST(YieldWhenIdle, TheEnvironmentOverridesTheDetection) {
  EXPECT_TRUE(decide_yield_when_idle(std::nullopt, "1", 1, 64));
  EXPECT_TRUE(decide_yield_when_idle(std::nullopt, "yes", 1, 64));
  EXPECT_FALSE(decide_yield_when_idle(std::nullopt, "0", 64, 1));
  EXPECT_FALSE(decide_yield_when_idle(std::nullopt, "off", 64, 1));
}

TEST(YieldWhenIdle, AnExplicitOptionOverridesTheEnvironment) {
  EXPECT_FALSE(decide_yield_when_idle(false, "1", 64, 1));
  EXPECT_TRUE(decide_yield_when_idle(true, "0", 1, 64));
  // Even a malformed variable: the program asked for a mode, the variable is not read.
  EXPECT_TRUE(decide_yield_when_idle(true, "sometimes", 1, 64));
}

TEST(YieldWhenIdle, AMalformedValueIsAnErrorThatNamesTheVariable) {
  try {
    decide_yield_when_idle(std::nullopt, "sometimes", 4, 2);
    FAIL() << "no error for TWINFAB_YIELD_WHEN_IDLE=sometimes";
  } catch (const fabric::Error& e) {
    EXPECT_EQ(e.status(), fabric::Status::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("TWINFAB_YIELD_WHEN_IDLE='sometimes'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("auto"), std::string::npos) << e.what();
  }
}

TEST(YieldWhenIdle, OpenDeviceReportsAMalformedValueBeforeLookingForADevice) {
  // The build host usually has no device: the error must still be about the variable.
  ASSERT_EQ(setenv("TWINFAB_YIELD_WHEN_IDLE", "sometimes", 1), 0);
  try {
    (void)open_device();
    ADD_FAILURE() << "open_device accepted TWINFAB_YIELD_WHEN_IDLE=sometimes";
  } catch (const fabric::Error& e) {
    EXPECT_EQ(e.status(), fabric::Status::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("TWINFAB_YIELD_WHEN_IDLE"), std::string::npos) << e.what();
  }
  unsetenv("TWINFAB_YIELD_WHEN_IDLE");
}

TEST(YieldWhenIdle, OnlineCpusIsPositive) { EXPECT_GE(online_cpus(), 1); }

TEST(YieldWhenIdle, TheRuntimeRemembersItsMode) {
  EXPECT_FALSE(HostRuntime().yields_when_idle());
  EXPECT_FALSE(HostRuntime(false).yields_when_idle());
  EXPECT_TRUE(HostRuntime(true).yields_when_idle());
}

TEST(YieldWhenIdle, AYieldingRuntimeStillKeepsItsDeadline) {
  HostRuntime runtime(true);
  const double start = runtime.now();
  EXPECT_EQ(runtime.wait_for_completion({}, start + 2e-3), fabric::Status::Timeout);
  EXPECT_GE(runtime.now() - start, 2e-3);
}

}  // namespace
}  // namespace twinfab::verbs
