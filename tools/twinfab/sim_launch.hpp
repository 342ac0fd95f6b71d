// `twinfab sim -n N [--platform P] [--set KEY=VALUE]... [--loss P] [--seed S]
// [--delay US [--delay-jitter US] [--delay-seed S]]
// [--counters[=text|json]] [--result-json FILE] [--ranks-per-host K]
// [--simulate-computation [--compute-scale F] [--cpu-threshold T]] [--] ./prog args...`:
// runs an unmodified MPI program, built with twinfab-mpicc, as N ranks on the
// simulated fabric.
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
// returns from main without MPI_Finalize (status 1). The counters and the result file
// are written when the ranks returned (whatever their status), not after such an end.
//
// This is a library (twinfab_sim_launch), so that another binary (the Python module)
// can run programs as the CLI does; it links libtwinfab-mpi.so.0, the instance the
// loaded programs bind to, and a process may run one job at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/twinfab/computation_meter.hpp"
#include "tools/twinfab/sim_result.hpp"

namespace twinfab::tools {

struct SimLaunchOptions {
  int nranks = 0;
  std::string platform = "connectx-ddr";
  unsigned ranks_per_host = 0;  ///< 0: the platform's, or packed to fit its hosts
  std::vector<std::string> command;  ///< program and its arguments
  /// --simulate-computation, --compute-scale, --cpu-threshold (computation_meter.hpp).
  ComputationOptions computation;
  std::vector<std::string> overrides;  // --set KEY=VALUE (repeatable)
  std::optional<double> loss;  // --loss P in [0,1]
  std::optional<std::uint64_t> seed;  // --seed S (loss seed)
  /// --delay: mean seconds of the delay hook each rank's device is wrapped in
  /// (fabric/hook/delay_hook.hpp), with delay_jitter seconds of jitter and seed
  /// delay_seed + rank. Unset: no hook.
  std::optional<double> delay;
  double delay_jitter = 0;
  std::uint64_t delay_seed = 1;
  std::string counters;  // --counters[=text|json]: "" none, "text" or "json"; printed to stderr after the run
  std::string result_json;  // --result-json FILE
  /// --privatization: how each rank gets its private copy of the program. "dlopen":
  /// a file copy per rank, loaded by ld.so (two mappings each; debuggers see every
  /// copy). "arena": the program loaded once, the other ranks' copies laid out in
  /// one shared mapping (program_arena.hpp). "auto": dlopen while the copies fit
  /// under vm.max_map_count, arena beyond.
  std::string privatization = "auto";
};
// overrides: platform overrides as sim::load_platform takes them ("hca.icm_cache_entries=64");
//   loss and seed are applied after them (they win over loss.probability / loss.seed).
// counters: the total over HCAs, after the run, on stderr: "text" is a "# counters ..."
//   line then Counters::to_text; "json" is Counters::to_json on one line.
// result_json: to_json(SimRunResult) is written to this file after the run; the file is
//   opened before anything is loaded, so a path that cannot be written fails at once.

/// The checks of the options themselves (no file or platform read): at least one rank,
/// a program, --loss in [0, 1], the delay hook's parameters (DelayHook::check_parameters),
/// --counters text or json, the computation settings.
/// Throws fabric::Error(InvalidArgument) naming the option. run_sim_program runs them
/// first; the CLI runs them before it, to report them as usage errors.
void check_sim_options(const SimLaunchOptions& options);

/// Runs the job; returns the exit status, and fills `*result` when it is not null
/// (with the same exit status). Throws fabric::Error for bad options (an override the
/// platform refuses, --loss outside [0, 1], --counters other than text or json, a
/// result file that cannot be written), a program that cannot be loaded, or a
/// deadlocked simulation.
int run_sim_program(const SimLaunchOptions& options, SimRunResult* result = nullptr);

}  // namespace twinfab::tools
