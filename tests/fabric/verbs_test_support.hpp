// Helpers for the tests of the verbs backend that need a device (rxe or siw in the
// micro-VM): open it or skip with the reason, connect two RC QPs of one device to
// each other from one thread.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backends/verbs/verbs_backend.hpp"
#include "fabric/device.hpp"
#include "fabric/error.hpp"

namespace twinfab::verbs_test {

/// How long a test waits for anything on the device.
constexpr double kTimeout = 10.0;

/// The device to test, opened with `options`, or nullptr with `why` when the host has
/// none. Inside the VM (TWINFAB_IN_VM) a missing device is an error, not a skip.
inline std::unique_ptr<fabric::Device> open_or_skip_reason(std::string& why, const verbs::OpenOptions& options = {}) {
  try {
    return verbs::open_device(options);
  } catch (const fabric::Error& e) {
    if (e.status() != fabric::Status::NotFound || std::getenv("TWINFAB_IN_VM") != nullptr) throw;
    why = e.what();
    return nullptr;
  }
}

/// Calls connect() on both QPs, alternating from this one thread, until both are Ok
/// (an iWARP device connects through a non-blocking rdma_cm handshake).
inline void connect_pair(fabric::Device& device, fabric::QueuePair& x, fabric::QueuePair& y) {
  using fabric::Status;
  const fabric::Address ax = x.local_address();
  const fabric::Address ay = y.local_address();
  bool done_x = false;
  bool done_y = false;
  const double deadline = device.runtime().now() + kTimeout;
  while (!(done_x && done_y)) {
    if (!done_x) {
      Status s = x.connect(&ay);
      ASSERT_TRUE(s == Status::Ok || s == Status::InProgress) << fabric::to_string(s) << ": " << x.last_error();
      done_x = s == Status::Ok;
    }
    if (!done_y) {
      Status s = y.connect(&ax);
      ASSERT_TRUE(s == Status::Ok || s == Status::InProgress) << fabric::to_string(s) << ": " << y.last_error();
      done_y = s == Status::Ok;
    }
    ASSERT_LT(device.runtime().now(), deadline) << "connection not established within " << kTimeout << " s";
    if (!(done_x && done_y)) device.runtime().sleep_for(1e-4);
  }
  EXPECT_EQ(x.state(), fabric::QpState::ReadyToSend);
  EXPECT_EQ(y.state(), fabric::QpState::ReadyToSend);
}

}  // namespace twinfab::verbs_test

#define OPEN_DEVICE_OR_SKIP(var)                                                                             \
  std::string skip_reason_;                                                                                  \
  std::unique_ptr<::twinfab::fabric::Device> var = ::twinfab::verbs_test::open_or_skip_reason(skip_reason_); \
  if (!var) GTEST_SKIP() << "no RDMA device: " << skip_reason_
