// When the hardware runtime's waits yield the CPU at once instead of spinning first
// (TWINFAB_YIELD_WHEN_IDLE), and when its long waits sleep until a completion comes
// (TWINFAB_BLOCKING_WAIT; backends/verbs/idle_policy.hpp). Pure logic: runs on any
// host, with or without an RDMA device (verbs_blocking_wait_test runs the blocking
// waits on one).
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

/// open_device() with `variable`=sometimes in the environment fails with an error about
/// the variable. The build host usually has no device: the setting must be checked
/// before one is looked for.
void expect_open_device_refuses_malformed(const std::string& variable) {
  ASSERT_EQ(setenv(variable.c_str(), "sometimes", 1), 0);
  try {
    (void)open_device();
    ADD_FAILURE() << "open_device accepted " << variable << "=sometimes";
  } catch (const fabric::Error& e) {
    EXPECT_EQ(e.status(), fabric::Status::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(variable), std::string::npos) << e.what();
  }
  unsetenv(variable.c_str());
}

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
  expect_open_device_refuses_malformed("TWINFAB_YIELD_WHEN_IDLE");
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

TEST(BlockingWait, OffUnlessAskedFor) {
  EXPECT_FALSE(decide_blocking_wait(std::nullopt, nullptr));
  EXPECT_FALSE(decide_blocking_wait(std::nullopt, ""));
  for (const char* on : {"1", "yes", "true", "on"}) EXPECT_TRUE(decide_blocking_wait(std::nullopt, on)) << on;
  for (const char* off : {"0", "no", "false", "off"}) EXPECT_FALSE(decide_blocking_wait(std::nullopt, off)) << off;
  EXPECT_TRUE(decide_blocking_wait(true, "0"));
  EXPECT_FALSE(decide_blocking_wait(false, "1"));
}

TEST(BlockingWait, AMalformedValueIsAnErrorThatNamesTheVariable) {
  for (const char* bad : {"auto", "2", "blocking"}) {
    try {
      decide_blocking_wait(std::nullopt, bad);
      ADD_FAILURE() << "no error for TWINFAB_BLOCKING_WAIT=" << bad;
    } catch (const fabric::Error& e) {
      EXPECT_EQ(e.status(), fabric::Status::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(std::string("TWINFAB_BLOCKING_WAIT='") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(BlockingWait, OpenDeviceReportsAMalformedValueBeforeLookingForADevice) {
  expect_open_device_refuses_malformed("TWINFAB_BLOCKING_WAIT");
}

TEST(BlockingWait, TheRuntimeRemembersItsMode) {
  EXPECT_FALSE(HostRuntime().blocks_when_idle());
  EXPECT_TRUE(HostRuntime(false, true).blocks_when_idle());
  EXPECT_FALSE(HostRuntime(false, true).yields_when_idle());
}

TEST(BlockingWait, ABlockingRuntimeWithNothingToWaitOnKeepsItsDeadline) {
  HostRuntime runtime(false, true);
  const double start = runtime.now();
  EXPECT_EQ(runtime.wait_for_completion({}, start + 3e-3), fabric::Status::Timeout);
  EXPECT_GE(runtime.now() - start, 3e-3);
}

}  // namespace
}  // namespace twinfab::verbs
