// twinfab: the command-line tool.
//
//   twinfab --version
//   twinfab info  [--backend sim|verbs|all] [--platform P]
//   twinfab perf  TEST --backend sim --platform P [--set KEY=VALUE]... [--loss P] [--seed S]
//                 [--counters] [--size N] [--iters N] [--csv FILE]
//   twinfab calibrate [-d DEVICE] -o FILE [--name NAME] [--iters N] [--reps R]   (device_commands.hpp)
//   twinfab sim   -n N [--platform P] [--set KEY=VALUE]... [--loss P] [--seed S]
//                 [--delay US [--delay-jitter US] [--delay-seed S]]
//                 [--counters[=text|json]] [--result-json FILE] [--ranks-per-host K]
//                 [--privatization auto|dlopen|arena]
//                 [--simulate-computation ...] [--] ./prog args...   (sim_launch.hpp)
//   --set overrides one platform key, as a platform file would set it (repeatable):
//   --set hca.icm_cache_entries=64 --set network.link_bandwidth=20Gbps (platform.hpp).
//   `twinfab sim --counters` takes its format only as --counters=json: a separate
//   word after it is the program.
//   twinfab experiment seed000-regcache [--platform P] [--sizes N...] [--csv FILE]
//   twinfab experiment NAME [--quick] [--out DIR] [--jobs N] [--slurm] | --list
//                 (the Python experiments of scenarios/: experiment_python.hpp)
//
// Exit statuses: 0 success, 1 run failure ("twinfab: error: ..." on stderr), 2 usage
// error (the command line was refused), and under `twinfab sim` the program's own
// status (cli_conventions.hpp; README.md, "Exit statuses").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "backends/sim/model_size.hpp"
#include "backends/sim/simulation.hpp"
#include "fabric/error.hpp"
#include "fabric/log.hpp"
#include "tools/twinfab/cli_conventions.hpp"
#include "tools/twinfab/device_commands.hpp"
#include "tools/twinfab/experiment_python.hpp"
#include "tools/twinfab/experiment_regcache.hpp"
#include "tools/twinfab/perf.hpp"
#include "tools/twinfab/perf_sim.hpp"
#include "tools/twinfab/revision.hpp"
#include "tools/twinfab/sim_launch.hpp"
#include "tools/twinfab/thread_oob.hpp"
#ifdef TWINFAB_HAVE_VERBS
#include "backends/verbs/verbs_backend.hpp"
#endif

namespace {

using namespace twinfab;
using tools::UsageError;

struct Args {
  std::string backend = "sim";
  std::string platform = "connectx-ddr";
  std::string device;
  std::string test;
  std::vector<uint64_t> sizes;
  unsigned iterations = 1000;
  unsigned tx_depth = 128;
  std::uint32_t inline_size = 0;
  std::string csv;
  double loss = -1;        ///< override the platform's per-packet loss probability
  long long seed = -1;     ///< override the platform's loss seed
  bool counters = false;   ///< print the simulator's counters after the table
  std::vector<std::string> overrides;  ///< --set KEY=VALUE: platform overrides
  // Which of the options above were given (their values may be anything then).
  bool loss_given = false;
  bool seed_given = false;
  bool device_given = false;
};

std::string describe_platform(const sim::Platform& p) {
  std::string out;
  out += fmt::format("platform {} ({})\n", p.name, p.source);
  if (!p.description.empty()) out += fmt::format("  {}\n", p.description);
  out += fmt::format("  hosts {} x {} rank(s), {}, link {:.3g} Gb/s, latency {:.3g} us, switch {:.3g} us, MTU {}\n",
                     p.hosts, p.ranks_per_host, p.topology == sim::Topology::SingleSwitch ? "single switch" : "fat tree",
                     p.link_bandwidth * 8 / 1e9, p.link_latency * 1e6, p.switch_latency * 1e6, p.mtu);
  const std::string pipelined =
      p.hca.pipeline_latency > 0 ? fmt::format(" (+ {:.3g} us pipelined)", p.hca.pipeline_latency * 1e6) : "";
  out += fmt::format("  HCA: post {:.3g} us, WQE {:.3g} us{}, PCIe {:.3g} us / {:.3g} GB/s, atomic {:.3g} us, ICM {} "
                     "entries (miss {:.3g} us)\n",
                     p.hca.post_overhead * 1e6, p.hca.wqe_processing * 1e6, pipelined, p.hca.pcie_latency * 1e6,
                     p.hca.pcie_bandwidth / 1e9, p.hca.atomic_latency * 1e6, p.hca.icm_cache_entries,
                     p.hca.icm_miss_penalty * 1e6);
  return out;
}

int cmd_info(const Args& a) {
  if (a.backend == "sim" || a.backend == "all") {
    fmt::print("backend sim: SimGrid-driven simulated fabric (the default)\n");
    if (!a.platform.empty() && a.backend == "sim") {
      sim::Platform p = sim::load_platform(a.platform);
      fmt::print("{}", describe_platform(p));
      // The capabilities do not depend on the number of hosts: two are modelled.
      sim::Simulation s(sim::hosts_in_use(p, 2));
      fmt::print("{}", fabric::describe(s.capabilities()));
    } else {
      fmt::print("  presets:");
      for (const auto& n : sim::list_presets()) fmt::print(" {}", n);
      fmt::print("\n  (twinfab info --backend sim --platform NAME for one preset's parameters and capabilities)\n");
    }
  }
  if (a.backend == "verbs" || a.backend == "all") {
#ifdef TWINFAB_HAVE_VERBS
    fmt::print("backend verbs: rdma-core\n");
    try {
      auto devices = verbs::list_devices();
      if (devices.empty()) {
        // open_device's error says why (no kernel support, no device) and what to do.
        try {
          verbs::open_device({});
        } catch (const fabric::Error& e) {
          fmt::print("  no RDMA devices found: {}\n", e.what());
        }
      }
      for (const auto& d : devices) {
        fmt::print("  {} port {}: {}, transport {}, link layer {}, GID[{}] {}\n", d.name, d.port, d.port_state,
                   d.transport, d.link_layer, d.default_gid_index, d.default_gid.empty() ? "-" : d.default_gid);
        fmt::print("{}", fabric::describe(d.capabilities));
      }
    } catch (const fabric::Error& e) {
      if (a.backend == "verbs") throw;
      fmt::print("  {}\n", e.what());
    }
#else
    if (a.backend == "verbs")
      throw fabric::Error(fabric::Status::Unsupported,
                          "this twinfab was built without rdma-core: run ci/install-deps.sh and rebuild, or use --backend sim");
    fmt::print("backend verbs: not built (rdma-core missing at build time)\n");
#endif
  }
  if (a.backend != "sim" && a.backend != "verbs" && a.backend != "all")
    throw UsageError(fmt::format("unknown backend '{}'; valid: sim, verbs, all", a.backend));
  return 0;
}

tools::PerfReport perf_sim(const tools::PerfOptions& o, const Args& a) {
  sim::Platform p = sim::load_platform(a.platform, a.overrides);
  if (a.device_given)
    throw UsageError(fmt::format("--device '{}' applies to --backend verbs only", a.device));
  if (a.loss_given) {
    if (!(a.loss >= 0 && a.loss <= 1))  // NaN included
      throw UsageError(fmt::format("--loss {} must be a probability in [0, 1]", a.loss));
    p.loss.probability = a.loss;
  }
  if (a.seed_given) {
    if (a.seed < 0)
      throw UsageError(fmt::format("--seed {} must be a non-negative integer", a.seed));
    p.loss.seed = static_cast<uint64_t>(a.seed);
  }
  if (p.hosts < 2)
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("platform '{}' has {} host(s); perf needs two", p.name, p.hosts));
  fmt::print("# twinfab perf {} | backend sim | platform {} ({}{}) | RC | simulated time\n", tools::to_string(o.test),
             p.name, p.source, p.overrides.empty() ? "" : fmt::format(" with {}", fmt::join(p.overrides, ", ")));
  tools::PerfSimResult r = tools::run_perf_sim(o, p);
  fmt::print("{}", tools::format_report(r.report));
  if (a.counters) fmt::print("# counters (loss probability {}, seed {})\n{}", p.loss.probability, p.loss.seed,
                             r.total.to_text());
  return r.report;
}

tools::PerfReport perf_verbs([[maybe_unused]] const tools::PerfOptions& o, [[maybe_unused]] const Args& a) {
#ifdef TWINFAB_HAVE_VERBS
  verbs::OpenOptions open;
  open.device_name = a.device;
  auto d0 = verbs::open_device(open);
  auto d1 = verbs::open_device(open);
  if (a.loss_given || a.seed_given || a.counters || !a.overrides.empty())
    throw UsageError("--set, --loss, --seed and --counters apply to --backend sim only");
  fmt::print("# twinfab perf {} | backend verbs | device {} | RC | wall-clock time\n", tools::to_string(o.test),
             d0->capabilities().device_name);
  tools::PerfReport report = tools::run_perf_pair(o, *d0, *d1);
  fmt::print("{}", tools::format_report(report));
  return report;
#else
  throw fabric::Error(fabric::Status::Unsupported,
                      "this twinfab was built without rdma-core: run ci/install-deps.sh and rebuild, or use --backend sim");
#endif
}

int cmd_perf(const Args& a) {
  tools::PerfOptions o;
  try {
    o.test = tools::parse_perf_test(a.test);
  } catch (const fabric::Error& e) {
    throw UsageError(e.what());
  }
  o.sizes = a.sizes;
  o.iterations = a.iterations;
  o.tx_depth = a.tx_depth;
  o.inline_size = a.inline_size;
  if (o.iterations == 0) throw UsageError("--iters must be at least 1");
  if (o.tx_depth == 0 || o.tx_depth > 8192) throw UsageError("--tx-depth must be in 1..8192");
  // Opened before the run: a path that cannot be written fails now, not after it.
  std::ofstream csv;
  if (!a.csv.empty()) {
    csv.open(a.csv);
    if (!csv)
      throw fabric::Error(fabric::Status::IoError,
                          fmt::format("--csv: cannot write {}: {}", a.csv, std::strerror(errno)));
  }
  tools::PerfReport report;
  if (a.backend == "sim")
    report = perf_sim(o, a);
  else if (a.backend == "verbs")
    report = perf_verbs(o, a);
  else
    throw UsageError(fmt::format("unknown backend '{}'; valid: sim, verbs", a.backend));
  if (csv.is_open()) {
    csv << tools::format_csv(report);
    if (!csv.flush())
      throw fabric::Error(fabric::Status::IoError,
                          fmt::format("--csv: error writing {}: {}", a.csv, std::strerror(errno)));
  }
  return 0;
}

/// `twinfab sim [options] -- ./prog args`: CLI11 hands what follows "--" to positional
/// arguments, which sim has none of (its program comes through prefix_command), so the
/// program after a "--" among sim's own options is split off before parsing (argc
/// then ends before the "--"). From the program name on, every word is the program's,
/// its own "--" included.
std::optional<std::vector<std::string>> take_program_after_separator(int& argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != "sim") return std::nullopt;
  for (int j = 2; j < argc; ++j) {
    const std::string_view word = argv[j];
    if (word == "--") {
      std::vector<std::string> program(argv + j + 1, argv + argc);
      argc = j;
      return program;
    }
    // The options that take a value as the next word (--counters takes one only as
    // --counters=json, which is one word).
    if (word == "-n" || word == "--np" || word == "--platform" || word == "--ranks-per-host" ||
        word == "--compute-scale" || word == "--cpu-threshold" || word == "--set" || word == "--loss" ||
        word == "--seed" || word == "--result-json" || word == "--delay" || word == "--delay-jitter" ||
        word == "--delay-seed" || word == "--privatization") {
      ++j;  // its value
    } else if (word.empty() || word[0] != '-') {
      break;  // the program
    }
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (tools::is_python_experiment(argc, argv)) return tools::exec_python_experiment(argc, argv);
  CLI::App app{"twinfab: MPI over RDMA fabrics, simulated (SimGrid) and on hardware (rdma-core)"};
  app.set_version_flag("--version", fmt::format("twinfab {} ({})", tools::version(), tools::revision()),
                       "Print the version and the git revision this twinfab was built from, and exit");
  app.require_subcommand(1);
  Args a;

  auto* info = app.add_subcommand("info", "List backends, devices and their capabilities");
  info->add_option("--backend", a.backend, "sim, verbs or all")->capture_default_str();
  info->add_option("--platform", a.platform, "With --backend sim: a preset name or a TOML file");

  auto* perf = app.add_subcommand("perf", "perftest-style latency/bandwidth tables");
  perf->add_option(
          "test", a.test,
          "write-lat, read-lat, send-lat, atomic-lat, write-bw, send-bw or write-complete-lat (a write timed to its "
          "completion, as MPI_Put + MPI_Win_flush)")
      ->required();
  perf->add_option("--backend", a.backend, "sim or verbs")->capture_default_str();
  perf->add_option("--platform", a.platform, "Simulated platform: preset name or TOML path")->capture_default_str();
  perf->add_option("--device,-d", a.device, "RDMA device (verbs; default $TWINFAB_DEVICE or the first active one)");
  perf->add_option("--size,-s", a.sizes, "Message size(s) in bytes (default: 2 B ... 8 MiB)")
      ->check(tools::number_check(true))
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 31));
  perf->add_option("--iters,-n", a.iterations, "Iterations per size (capped to move <= 256 MiB per size)")
      ->check(tools::number_check(true))
      ->capture_default_str();
  perf->add_option("--tx-depth,-t", a.tx_depth, "Outstanding work requests in bandwidth tests")
      ->check(tools::number_check(true))
      ->capture_default_str();
  perf->add_option("--inline-size,-I", a.inline_size,
                   "Post sends and RDMA writes of at most this many bytes inline (perftest's -I; 0: none)")
      ->check(tools::number_check(true))
      ->capture_default_str();
  perf->add_option("--csv", a.csv, "Also write the table as CSV to this file");
  perf->add_option("--loss", a.loss, "Simulator: per-packet loss probability (overrides the platform's)")
      ->check(tools::number_check(false));
  perf->add_option("--seed", a.seed, "Simulator: loss seed (overrides the platform's)")->check(tools::number_check(true));
  perf->add_flag("--counters", a.counters, "Simulator: print packet, drop, retransmission and ICM counters");
  perf->add_option("--set", a.overrides,
                   "Simulator: override a platform key, KEY=VALUE as in the platform file "
                   "(e.g. hca.icm_cache_entries=64, network.link_bandwidth=20Gbps); repeatable")
      ->allow_extra_args(false);

  tools::CalibrateArgs calibrate_args;
  auto* calibrate = app.add_subcommand("calibrate", "Probe an RDMA device and write a simulator platform fitted to it");
  calibrate->add_option("--device,-d", calibrate_args.device,
                        "RDMA device (default $TWINFAB_DEVICE or the first active one)");
  calibrate->add_option("-o,--output", calibrate_args.output, "The platform TOML file to write")->required();
  calibrate->add_option("--name", calibrate_args.name, "The platform's name (default: DEVICE-calibrated)");
  calibrate->add_option("--iters,-n", calibrate_args.iterations, "Iterations per measured point")
      ->check(tools::number_check(true))
      ->check(CLI::Range(10u, 1000000u))
      ->capture_default_str();
  calibrate->add_option("--reps", calibrate_args.reps, "Repetitions of every probe, the best kept")
      ->check(tools::number_check(true))
      ->check(CLI::Range(1u, 100u))
      ->capture_default_str();

  tools::SimLaunchOptions launch;
  auto* simcmd = app.add_subcommand("sim", "Run an MPI program built with twinfab-mpicc as N simulated ranks");
  simcmd->add_option("-n,--np", launch.nranks, "Number of ranks")->check(tools::number_check(true))->required();
  simcmd->add_option("--platform", launch.platform, "Simulated platform: preset name or TOML path")
      ->capture_default_str();
  simcmd->add_option("--ranks-per-host", launch.ranks_per_host,
                     "Ranks sharing one host's HCA (default: the platform's, packed to fit its hosts)")
      ->check(tools::number_check(true))
      ->check(CLI::Range(1u, 4096u));
  simcmd->add_option("--privatization", launch.privatization,
                     "How each rank gets its private copy of the program: dlopen (a file copy per rank, two memory "
                     "mappings each), arena (the copies laid out in one mapping, for runs beyond vm.max_map_count / 2 "
                     "ranks), auto (dlopen while the copies fit, arena beyond)")
      ->check(CLI::IsMember({"auto", "dlopen", "arena"}))
      ->capture_default_str();
  auto* simulate_computation = simcmd->add_flag(
      "--simulate-computation", launch.computation.enabled,
      "Spend the CPU time the program computes between MPI calls as the rank's simulated time (as SMPI; "
      "results then depend on this machine's speed and are not bit-for-bit reproducible)");
  simcmd->add_option("--compute-scale", launch.computation.scale,
                     "With --simulate-computation: simulated seconds per second measured here (2: the simulated "
                     "host computes twice as slowly as this machine)")
      ->check(tools::number_check(false))
      ->needs(simulate_computation)  // the range: ComputationMeter, with a message that says what is expected
      ->capture_default_str();
  simcmd->add_option("--cpu-threshold", launch.computation.threshold,
                     "With --simulate-computation: bursts of computation shorter than this are not spent "
                     "(seconds, or with a unit: 500ns, 1us, 2ms)")
      ->transform(CLI::AsNumberWithUnit(std::map<std::string, double>{{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6},
                                                                       {"ns", 1e-9}},
                                        static_cast<CLI::AsNumberWithUnit::Options>(
                                            CLI::AsNumberWithUnit::CASE_SENSITIVE | CLI::AsNumberWithUnit::UNIT_OPTIONAL),
                                        "TIME"))
      ->needs(simulate_computation)
      ->capture_default_str();
  simcmd->add_option("--set", launch.overrides,
                     "Override a platform key, KEY=VALUE as in the platform file (e.g. hca.icm_cache_entries=64, "
                     "network.link_bandwidth=20Gbps, features.atomics=false); repeatable")
      ->allow_extra_args(false);
  double sim_loss = 0;
  long long sim_seed = 0;
  simcmd->add_option("--loss", sim_loss, "Per-packet loss probability in [0, 1] (overrides the platform's)")
      ->check(tools::number_check(false));
  simcmd->add_option("--seed", sim_seed, "Loss seed (overrides the platform's)")->check(tools::number_check(true));
  double sim_delay_us = 0, sim_jitter_us = 0;
  long long sim_delay_seed = 1;
  simcmd->add_option("--delay", sim_delay_us,
                     "Mean extra delay of every message, in microseconds: each rank's device is wrapped in the "
                     "fabric's delay hook (fabric/hook/delay_hook.hpp; a QP's order is kept)")
      ->check(tools::number_check(false));
  simcmd->add_option("--delay-jitter", sim_jitter_us,
                     "Delay jitter in microseconds: delays are uniform in [delay - jitter, delay + jitter] "
                     "(jitter <= delay)")
      ->check(tools::number_check(false))
      ->needs("--delay");
  simcmd->add_option("--delay-seed", sim_delay_seed, "Seed of the delays (rank r uses seed + r; default 1)")
      ->check(tools::number_check(true))
      ->needs("--delay");
  simcmd->add_flag("--counters{text}", launch.counters,
                   "After the run, print the simulator's counters (summed over HCAs) to stderr; "
                   "--counters=json prints them as one JSON object");
  simcmd->add_option("--result-json", launch.result_json,
                     "After the run, write times, peak memory, the loss settings and the counters (total and "
                     "per HCA) to this file as JSON");
  simcmd->prefix_command();  // everything from the program name on is the program's
  simcmd->footer("The program and its arguments follow the options:\n"
                 "  twinfab sim -n N [--platform P] [--set KEY=VALUE]... [--loss P] [--seed S]\n"
                 "              [--delay US [--delay-jitter US] [--delay-seed S]]\n"
                 "              [--counters[=text|json]] [--result-json FILE] [--ranks-per-host K]\n"
                 "              [--privatization auto|dlopen|arena]\n"
                 "              [--simulate-computation [--compute-scale F] [--cpu-threshold T]]\n"
                 "              [--] ./prog [args...]\n"
                 "--counters takes its format only as --counters=json (a separate word is the program).\n"
                 "Build the program with twinfab-mpicc; docs/mpi.md, \"Running under twinfab sim\".");
  tools::ExperimentCommand experiment(app);

  std::optional<std::vector<std::string>> after_separator = take_program_after_separator(argc, argv);
  // CLI11 reports an unknown first word, or an option before any command, as "A
  // subcommand is required": name it.
  if (argc > 1) {
    const std::string_view word = argv[1];
    if (word[0] != '-' && word != "info" && word != "perf" && word != "calibrate" && word != "sim" &&
        word != "experiment") {
      fmt::print(stderr,
                 "twinfab: unknown command '{}'; commands: info, perf, calibrate, sim, experiment (twinfab --help)\n",
                 word);
      return tools::kExitUsage;
    }
    if (word[0] == '-' && word != "-h" && word != "--help" && word != "--version") {
      fmt::print(stderr,
                 "twinfab: unknown option '{}': the options that come before a command are --help and --version; "
                 "the others follow a command (info, perf, calibrate, sim, experiment; twinfab COMMAND --help)\n",
                 word);
      return tools::kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help, the version: status 0); its own statuses
    // (105, 106, 109, ...) become the one usage status.
    const int status = app.exit(e);
    return status == 0 ? tools::kExitSuccess : tools::kExitUsage;
  }
  a.loss_given = perf->count("--loss") > 0;
  a.seed_given = perf->count("--seed") > 0;
  a.device_given = perf->count("--device") > 0;
  if (simcmd->count("--loss") > 0) launch.loss = sim_loss;  // its range: check_sim_options
  if (simcmd->count("--delay") > 0) {  // the ranges: check_sim_options
    launch.delay = sim_delay_us * 1e-6;
    launch.delay_jitter = sim_jitter_us * 1e-6;
    if (sim_delay_seed < 0) {
      fmt::print(stderr, "twinfab: usage error: --delay-seed {} must be a non-negative integer\n", sim_delay_seed);
      return tools::kExitUsage;
    }
    launch.delay_seed = static_cast<std::uint64_t>(sim_delay_seed);
  }
  // With `info` and no --platform, list every preset instead of describing one.
  if (info->parsed() && info->count("--platform") == 0) a.platform.clear();
  try {
    fabric::apply_log_level_from_environment();
    if (info->parsed()) return cmd_info(a);
    if (perf->parsed()) return cmd_perf(a);
    if (calibrate->parsed()) return tools::cmd_calibrate(calibrate_args);
    if (simcmd->parsed()) {
      if (simcmd->count("--seed") > 0) {
        if (sim_seed < 0)
          throw UsageError(fmt::format("--seed {} must be a non-negative integer", sim_seed));
        launch.seed = static_cast<std::uint64_t>(sim_seed);
      }
      launch.command = simcmd->remaining();
      if (after_separator) {
        if (!launch.command.empty())
          throw UsageError(fmt::format("'{}' before -- is not an option of twinfab sim", launch.command.front()));
        launch.command = std::move(*after_separator);
      } else if (!launch.command.empty() && launch.command.front().size() > 1 && launch.command.front()[0] == '-') {
        // Not an option of sim, and no program starts with '-' unless after "--".
        throw UsageError(fmt::format("unknown option '{}' for twinfab sim (its options: -n, --platform, "
                                        "--set, --loss, --seed, --delay, --delay-jitter, --delay-seed, "
                                        "--counters, --result-json, --ranks-per-host, "
                                        "--simulate-computation, --compute-scale, --cpu-threshold; the program "
                                        "and its arguments come after them, or after --)",
                                        launch.command.front()));
      }
      try {
        tools::check_sim_options(launch);
      } catch (const fabric::Error& e) {
        throw UsageError(e.what());
      }
      return tools::run_sim_program(launch);
    }
    if (experiment.parsed()) return experiment.run();
  } catch (const UsageError& e) {
    fmt::print(stderr, "twinfab: usage error: {}\n", e.what());
    return tools::kExitUsage;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr,
               "twinfab: error: out of memory (std::bad_alloc): the platform's hosts or the ranks need more memory "
               "than this process may have (fewer hosts in the platform file, fewer ranks, or a larger ulimit -v)\n");
    return tools::kExitRunFailure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "twinfab: error: {}\n", e.what());
    return tools::kExitRunFailure;
  }
  return tools::kExitSuccess;
}
