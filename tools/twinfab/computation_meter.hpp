// The program's computation between MPI calls as simulated time (`twinfab sim
// --simulate-computation`).
//
// Under the simulator a rank's code runs at this machine's speed but takes no
// simulated time: only communication, registration, copies the library makes and the
// program's sleeps advance a rank's clock. SMPI's answer, followed here: time each
// burst of computation (from the end of one MPI call to the start of the next) with
// the CPU clock of the thread that runs the ranks, and spend it as the rank's
// simulated time before the next MPI call proceeds, scaled by the speed of the
// simulated host relative to this one (SMPI: smpi/simulate-computation,
// smpi/host-speed), ignoring bursts shorter than a threshold (smpi/cpu-threshold, 1 us
// by default) so that the few instructions between the calls of a communication loop
// do not add noise. The CPU clock (CLOCK_THREAD_CPUTIME_ID, as SMPI's timer) leaves
// out the time this process was descheduled; it still depends on this machine's speed
// and load, so a run that measures computation is not bit-for-bit reproducible.
#pragma once

namespace twinfab::tools {

/// `twinfab sim --simulate-computation [--compute-scale F] [--cpu-threshold T]`.
struct ComputationOptions {
  bool enabled = false;
  /// Simulated seconds per second of CPU time measured here (2: the simulated host
  /// computes twice as slowly as this machine). Positive.
  double scale = 1.0;
  /// Bursts shorter than this (measured, in seconds) are not spent. At least 0.
  double threshold = 1e-6;
};

/// One rank's burst of computation: open from mpi_call_ends() to mpi_call_begins().
struct ComputationBurst {
  double started = -1;  ///< CPU clock at its start; < 0 while no burst is open
  bool open() const noexcept { return started >= 0; }
};

class ComputationMeter {
 public:
  /// Seconds of CPU time of the calling thread.
  using CpuClock = double (*)();
  /// Throws fabric::Error (InvalidArgument) for a scale that is not positive or a
  /// negative threshold.
  explicit ComputationMeter(ComputationOptions options, CpuClock clock = &thread_cpu_seconds);

  bool enabled() const noexcept { return options_.enabled; }
  /// Opens `burst` (the rank computes from now on). Nothing when disabled.
  void start(ComputationBurst& burst) const noexcept;
  /// Closes `burst` and returns the simulated seconds it costs: its CPU time times the
  /// scale, 0 below the threshold or when no burst was open.
  double stop(ComputationBurst& burst) const noexcept;

  /// CLOCK_THREAD_CPUTIME_ID in seconds.
  static double thread_cpu_seconds() noexcept;

 private:
  ComputationOptions options_;
  CpuClock clock_;
};

}  // namespace twinfab::tools
