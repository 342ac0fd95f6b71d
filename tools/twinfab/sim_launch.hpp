// `twinfab sim -n N [--platform P] [--ranks-per-host K] [--simulate-computation
// [--compute-scale F] [--cpu-threshold T]] [--] ./prog args...`: runs an
// unmodified MPI program, built with twinfab-mpicc, as N ranks on the simulated fabric.
//
// Every rank gets private globals and statics: the program is copied once per rank
// into a private temporary directory, the copy's DF_1_PIE flag is cleared (glibc
// refuses to dlopen a PIE executable otherwise), and each copy is dlopen-ed
// RTLD_LOCAL, so each has its own data segment; rank r then calls its copy's main()
// as a SimGrid actor. The copies bind to the one libtwinfab-mpi this tool is linked
// with, where a RankHost whose state slot is per actor gives MPI_Init the rank's
// simulated device and out-of-band exchange. The temporary directory is removed as
// soon as the copies are loaded (and on every error path).
//
// Exit status: 0 when every rank returned 0 from main; otherwise the first nonzero
// status (by rank), with a line naming the rank. MPI_Abort and MPI_ERRORS_ARE_FATAL
// end the whole simulation at once with the error's code; so does a rank that
// returns from main without MPI_Finalize (status 1).
#pragma once

#include <string>
#include <vector>

#include "tools/twinfab/computation_meter.hpp"

namespace twinfab::tools {

struct SimLaunchOptions {
  int nranks = 0;
  std::string platform = "connectx-ddr";
  unsigned ranks_per_host = 0;  ///< 0: the platform's, or packed to fit its hosts
  std::vector<std::string> command;  ///< program and its arguments
  /// --simulate-computation, --compute-scale, --cpu-threshold (computation_meter.hpp).
  ComputationOptions computation;
};

/// Runs the job; returns the exit status. Throws fabric::Error for bad options, a
/// program that cannot be loaded, or a deadlocked simulation.
int run_sim_program(const SimLaunchOptions& options);

}  // namespace twinfab::tools
