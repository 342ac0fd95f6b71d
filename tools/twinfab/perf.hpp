// perftest-style micro-benchmarks over the fabric contract, backend-agnostic.
//
// Two ranks, each with its own device, run the same function; rank 0 measures. The
// tests mirror perftest's: ib_write_lat (RDMA-write ping-pong, each side polling the
// last byte of its buffer), ib_read_lat, ib_send_lat (send/recv ping-pong),
// ib_atomic_lat (fetch-and-add), ib_write_bw and ib_send_bw (a window of tx_depth
// outstanding work requests). Times come from the device's runtime clock: simulated
// time in the simulator, a steady clock on hardware.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"

namespace twinfab::tools {

/// WriteCompleteLat: an RDMA write timed from its post to its completion at the writer,
/// the work of MPI_Put + MPI_Win_flush (perftest has no such test: ib_write_lat times
/// half a ping-pong of writes, each detected by the peer polling its memory).
enum class PerfTest { WriteLat, ReadLat, SendLat, AtomicLat, WriteBw, SendBw, WriteCompleteLat };

/// "write-lat" -> PerfTest::WriteLat; throws fabric::Error(InvalidArgument) listing
/// the valid names otherwise.
PerfTest parse_perf_test(const std::string& name);
std::string to_string(PerfTest t);
std::vector<std::string> perf_test_names();
bool is_latency_test(PerfTest t);

struct PerfOptions {
  PerfTest test = PerfTest::WriteLat;
  std::vector<uint64_t> sizes;  ///< empty: 2 B ... 8 MiB in powers of two
  unsigned iterations = 1000;
  /// Iterations are capped so a size moves at most this many bytes (keeps 8 MiB rows
  /// quick in the simulator); at least 10 iterations always run.
  uint64_t max_bytes_per_size = 256ull << 20;
  unsigned tx_depth = 128;  ///< outstanding WRs in bandwidth tests (perftest -t)
  /// Sends and RDMA writes of at most this many bytes are posted inline (perftest -I;
  /// 0: none). At most the device's max_inline (run_perf_rank checks).
  uint32_t inline_size = 0;
};

struct LatencyRow {
  uint64_t bytes = 0;
  unsigned iterations = 0;
  double t_min = 0, t_max = 0, t_typical = 0, t_avg = 0, t_stdev = 0, p99 = 0, p999 = 0;  ///< microseconds
};

struct BandwidthRow {
  uint64_t bytes = 0;
  unsigned iterations = 0;
  double bw_average = 0;  ///< MB/s with MB = 2^20 bytes, as perftest prints it
  double msg_rate = 0;    ///< millions of messages per second
};

struct PerfReport {
  PerfTest test = PerfTest::WriteLat;
  std::vector<LatencyRow> latency;
  std::vector<BandwidthRow> bandwidth;
};

/// Default size list: 2, 4, ..., 8 MiB.
std::vector<uint64_t> default_sizes();
/// Iterations actually run for `bytes`.
unsigned iterations_for(const PerfOptions& o, uint64_t bytes);

/// One rank of a perf run: both ranks call it with their own device; `oob` connects
/// them. Rank 0 fills `report` (rank 1 may pass nullptr). Throws fabric::Error on
/// set-up failure or if a completion carries an error status.
void run_perf_rank(const PerfOptions& options, fabric::Device& device, fabric::OobExchange& oob,
                   PerfReport* report);

/// perftest-like table.
std::string format_report(const PerfReport& r);
/// CSV with a header row.
std::string format_csv(const PerfReport& r);

}  // namespace twinfab::tools
