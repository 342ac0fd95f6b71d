// `twinfab sim --simulate-computation`: what a burst of computation costs a rank
// (tools/twinfab/computation_meter.hpp), against a clock the test sets.
#include "tools/twinfab/computation_meter.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "fabric/error.hpp"

namespace twinfab::tools {
namespace {

double fake_now = 0;
double fake_clock() { return fake_now; }

ComputationOptions enabled(double scale = 1.0, double threshold = 1e-6) { return {true, scale, threshold}; }

TEST(ComputationMeter, SpendsTheBurstTimesTheScale) {
  const ComputationMeter meter(enabled(2.5), &fake_clock);
  ComputationBurst burst;
  fake_now = 10.0;
  meter.start(burst);
  EXPECT_TRUE(burst.open());
  fake_now = 10.004;
  EXPECT_NEAR(meter.stop(burst), 0.010, 1e-12);
  EXPECT_FALSE(burst.open());
}

TEST(ComputationMeter, BurstsBelowTheThresholdCostNothing) {
  const ComputationMeter meter(enabled(1.0, 1e-6), &fake_clock);
  ComputationBurst burst;
  fake_now = 1.0;
  meter.start(burst);
  fake_now = 1.0 + 0.9e-6;
  EXPECT_EQ(meter.stop(burst), 0.0);
  meter.start(burst);
  fake_now += 1.1e-6;  // the threshold is per burst: the short one is not carried over
  EXPECT_NEAR(meter.stop(burst), 1.1e-6, 1e-15);
}

TEST(ComputationMeter, AZeroThresholdSpendsEveryBurst) {
  const ComputationMeter meter(enabled(1.0, 0.0), &fake_clock);
  ComputationBurst burst;
  fake_now = 3.0;
  meter.start(burst);
  fake_now = 3.0 + 5e-9;
  EXPECT_NEAR(meter.stop(burst), 5e-9, 1e-15);
}

TEST(ComputationMeter, NoBurstOpenCostsNothing) {
  const ComputationMeter meter(enabled(), &fake_clock);
  ComputationBurst burst;
  fake_now = 7.0;
  EXPECT_EQ(meter.stop(burst), 0.0);  // never started (before MPI_Init)
  meter.start(burst);
  fake_now = 8.0;
  EXPECT_EQ(meter.stop(burst), 1.0);
  fake_now = 9.0;
  EXPECT_EQ(meter.stop(burst), 0.0);  // stopped twice: the second finds none
}

TEST(ComputationMeter, DisabledOpensNoBurst) {
  const ComputationMeter meter(ComputationOptions{}, &fake_clock);
  EXPECT_FALSE(meter.enabled());
  ComputationBurst burst;
  fake_now = 1.0;
  meter.start(burst);
  EXPECT_FALSE(burst.open());
  fake_now = 2.0;
  EXPECT_EQ(meter.stop(burst), 0.0);
}

TEST(ComputationMeter, RefusesABadScaleOrThreshold) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double scale : {0.0, -1.0, nan, inf}) {
    try {
      ComputationMeter meter(enabled(scale), &fake_clock);
      FAIL() << "scale " << scale << " was accepted";
    } catch (const fabric::Error& e) {
      EXPECT_EQ(e.status(), fabric::Status::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("--compute-scale"), std::string::npos) << e.what();
    }
  }
  for (const double threshold : {-1e-6, nan, inf}) {
    try {
      ComputationMeter meter(enabled(1.0, threshold), &fake_clock);
      FAIL() << "threshold " << threshold << " was accepted";
    } catch (const fabric::Error& e) {
      EXPECT_NE(std::string(e.what()).find("--cpu-threshold"), std::string::npos) << e.what();
    }
  }
}

TEST(ComputationMeter, TheThreadCpuClockCountsComputation) {
  const double start = ComputationMeter::thread_cpu_seconds();
  volatile double x = 0;
  while (ComputationMeter::thread_cpu_seconds() - start < 0.002) x = x + 1;
  EXPECT_GE(ComputationMeter::thread_cpu_seconds() - start, 0.002);
}

}  // namespace
}  // namespace twinfab::tools
