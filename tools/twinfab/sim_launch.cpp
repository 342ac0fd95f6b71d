#include "tools/twinfab/sim_launch.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <typeinfo>
#include <xbt/config.hpp>

#include "backends/sim/memory_mappings.hpp"
#include "backends/sim/model_size.hpp"
#include "backends/sim/simulation.hpp"
#include "fabric/error.hpp"
#include "fabric/hook/delay_hook.hpp"
#include "fabric/log.hpp"
#include "mpi/capi/foreign_mpi.hpp"
#include "mpi/capi/rank_host.hpp"
#include "tools/twinfab/computation_meter.hpp"
#include "tools/twinfab/crash_report.hpp"
#include "tools/twinfab/program_arena.hpp"
#include "tools/twinfab/rank_getopt.hpp"

namespace twinfab::tools {

namespace {

namespace fs = std::filesystem;
namespace s4u = simgrid::s4u;
using fabric::Error;
using fabric::Status;

using MainFunction = int (*)(int, char**);

/// A private directory for the per-rank copies, removed when this goes.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/twinfab-sim-XXXXXX", base != nullptr && *base ? base : "/tmp");
    if (mkdtemp(pattern.data()) == nullptr)
      throw Error(Status::IoError, fmt::format("cannot create a temporary directory {}: {} (set TMPDIR)", pattern,
                                               std::strerror(errno)));
    path_ = pattern;
  }
  ~TempDir() { remove(); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  void remove() noexcept {
    if (path_.empty()) return;
    std::error_code ignored;
    fs::remove_all(path_, ignored);
    path_.clear();
  }

 private:
  fs::path path_;
};

/// Each rank's program copy by dlopen costs a few mappings; the kernel caps a
/// process's mappings (vm.max_map_count, 65530 by default). After `loaded` copies,
/// which took the mappings above `before`: what `n` copies would need.
struct MappingEstimate {
  double needed = 0;
  double per_copy = 0;
  std::size_t limit = 0;  ///< 0: unknown
  bool fits() const noexcept { return limit == 0 || needed <= static_cast<double>(limit); }
};

MappingEstimate estimate_mappings(unsigned n, unsigned loaded, std::size_t before) {
  MappingEstimate e;
  e.limit = sim::memory_mapping_limit();
  if (e.limit == 0 || loaded == 0) return MappingEstimate{};
  const std::size_t now = sim::memory_mapping_count();
  e.per_copy = static_cast<double>(now > before ? now - before : 1) / loaded;
  e.needed = static_cast<double>(before) + e.per_copy * n + 1024;  // + stacks, heap growth, SimGrid
  return e;
}

/// Throws when `n` copies by dlopen cannot fit under the cap (--privatization dlopen).
void check_mapping_limit(unsigned n, unsigned loaded, std::size_t before) {
  const MappingEstimate e = estimate_mappings(n, loaded, before);
  if (e.fits()) return;
  throw Error(Status::InvalidArgument,
              fmt::format("{} ranks need ~{:.0f} memory mappings (each rank's private copy of the program takes "
                          "{:.1f} with --privatization dlopen), more than this system's vm.max_map_count ({}): use "
                          "--privatization auto or arena (all copies in one mapping), run fewer ranks, or raise the "
                          "limit (sysctl -w vm.max_map_count={:.0f}, as root)",
                          n, e.needed, e.per_copy, e.limit, e.needed * 1.25));
}

/// The program the user named: a path, or a name found on PATH.
fs::path find_program(const std::string& name) {
  if (name.find('/') == std::string::npos) {
    if (const char* path = std::getenv("PATH")) {
      std::string dirs = path;
      std::size_t start = 0;
      while (start <= dirs.size()) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
        start = end + 1;
      }
    }
  }
  std::error_code ec;
  if (fs::is_directory(name, ec))
    throw Error(Status::InvalidArgument, fmt::format("program '{}' is a directory", name));
  if (!fs::is_regular_file(name, ec))
    throw Error(Status::InvalidArgument,
                name.find('/') == std::string::npos
                    ? fmt::format("program '{}' not found on PATH (give its path, e.g. ./{})", name, name)
                    : fmt::format("program '{}' not found", name));
  // As mpirun does: a file the user could not execute is not launched either.
  if (access(name.c_str(), X_OK) != 0)
    throw Error(Status::InvalidArgument, fmt::format("program '{}' is not executable (chmod +x?)", name));
  return name;
}

/// The program's bytes with DF_1_PIE cleared in DT_FLAGS_1, after checking that it is
/// an x86-64/aarch64 ELF position-independent executable.
std::vector<char> load_and_unmark_pie(const fs::path& program) {
  std::ifstream in(program, std::ios::binary);
  if (!in) throw Error(Status::InvalidArgument, fmt::format("cannot read program '{}'", program.string()));
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string hint = "build it with twinfab-mpicc (or twinfab-mpicxx)";
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    throw Error(Status::InvalidArgument, fmt::format("'{}' is not an ELF executable; {}", program.string(), hint));
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    throw Error(Status::InvalidArgument, fmt::format("'{}' is not a 64-bit little-endian ELF program", program.string()));
  if (header.e_type != ET_DYN)
    throw Error(Status::InvalidArgument,
                fmt::format("'{}' is not a position-independent executable, so it cannot be loaded once per rank; {}",
                            program.string(), hint));
  auto fits = [&](std::uint64_t offset, std::uint64_t size) { return offset <= bytes.size() && size <= bytes.size() - offset; };
  if (!fits(header.e_phoff, std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr)))
    throw Error(Status::InvalidArgument, fmt::format("'{}': truncated ELF program headers", program.string()));
  bool has_dynamic = false;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + header.e_phoff + i * sizeof(Elf64_Phdr), sizeof ph);
    // The linker turns a program's accesses to its own thread-local variables into
    // fixed offsets in a main program's thread block (its TLS relaxation for
    // executables): in a rank's copy they would read and write the launcher's.
    if (ph.p_type == PT_TLS)
      throw Error(Status::InvalidArgument,
                  fmt::format("'{}' has thread-local variables (_Thread_local, thread_local or __thread: a PT_TLS "
                              "segment), which twinfab sim cannot give its ranks: the linker made their accesses "
                              "offsets into a main program's thread block, and a rank's copy is not the main "
                              "program; make them ordinary globals (every rank has its own)",
                              program.string()));
    if (ph.p_type != PT_DYNAMIC) continue;
    if (!fits(ph.p_offset, ph.p_filesz))
      throw Error(Status::InvalidArgument, fmt::format("'{}': truncated dynamic section", program.string()));
    has_dynamic = true;
    for (std::uint64_t off = ph.p_offset; off + sizeof(Elf64_Dyn) <= ph.p_offset + ph.p_filesz; off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn dyn;
      std::memcpy(&dyn, bytes.data() + off, sizeof dyn);
      if (dyn.d_tag == DT_NULL) break;
      if (dyn.d_tag == DT_FLAGS_1) {
        dyn.d_un.d_val &= ~static_cast<Elf64_Xword>(DF_1_PIE);
        std::memcpy(bytes.data() + off, &dyn, sizeof dyn);
      }
    }
  }
  if (!has_dynamic)
    throw Error(Status::InvalidArgument,
                fmt::format("'{}' is statically linked; {}", program.string(), hint));
  return bytes;
}

/// What the simulator's RankHost finds through the calling actor.
struct RankRecord {
  sim::RankEnv* env = nullptr;
  void* state = nullptr;
  GetoptPosition getopt;
  ComputationBurst computing;
  /// --delay: the rank's device behind the delay hook, made by MPI_Init (open()); it
  /// outlives the MPI state, which end_rank() destroys before the record goes.
  std::unique_ptr<fabric::hook::DelayHook> delay;
};

/// The program's clock, sleeps and getopt position (linked through mpi/capi's
/// wrappers): the rank's simulated time, as MPI_Wtime's, and its own getopt position;
/// with --simulate-computation, its computation between MPI calls as simulated time.
/// Only ranks reach it (SimRankHost::program_services).
class SimProgramServices final : public mpi::capi::ProgramServices {
 public:
  /// What reading the clock costs the rank: a program that waits by reading the clock
  /// in a loop (STREAM's checktick, `while (MPI_Wtime() < t)`) would otherwise never
  /// see it move. 10 ns, SMPI's default (smpi/wtime).
  static constexpr double kClockReadSeconds = 10e-9;

  explicit SimProgramServices(const ComputationOptions& computation) : meter_(computation) {}

  double now() override { return spend(record(), kClockReadSeconds); }
  // The fabric runtime's sleep: the rank's HCA keeps serving meanwhile.
  void sleep_for(double seconds) override { spend(record(), seconds); }
  void before_getopt() override { getopt_.before(record().getopt); }
  void after_getopt() override { getopt_.after(record().getopt); }

  bool measures_computation() noexcept override { return meter_.enabled(); }
  void mpi_call_begins() override {
    RankRecord& r = record();
    if (const double computed = meter_.stop(r.computing); computed > 0) runtime_of(r).sleep_for(computed);
  }
  void mpi_call_ends() override { meter_.start(record().computing); }

 private:
  static RankRecord& record() { return *s4u::Actor::self()->get_data<RankRecord>(); }
  /// The rank's runtime; with --delay the delay hook's, so that held messages leave
  /// on time while the rank computes.
  static fabric::Runtime& runtime_of(RankRecord& r) { return r.delay ? r.delay->runtime() : r.env->runtime; }
  /// Spends the computation so far and then `seconds` (a clock read's cost, a sleep)
  /// as the rank's time, in one wait; returns the rank's clock after it. The burst
  /// stops for the wait (other ranks run meanwhile, on the same thread's CPU clock)
  /// and goes on afterwards.
  double spend(RankRecord& r, double seconds) {
    const bool computing = r.computing.open();
    fabric::Runtime& runtime = runtime_of(r);
    runtime.sleep_for(meter_.stop(r.computing) + seconds);
    const double now = runtime.now();
    if (computing) meter_.start(r.computing);
    return now;
  }

  ComputationMeter meter_;
  RankGetopt getopt_;
};

class SimRankHost final : public mpi::capi::RankHost {
 public:
  SimRankHost(const ComputationOptions& computation, const SimLaunchOptions& options)
      : services_(computation), options_(options) {}
  void*& state_slot() override {
    if (RankRecord* record = current()) return record->state;
    outside_ = nullptr;  // not a rank (global constructor, maestro): never initialized
    return outside_;
  }
  mpi::capi::RankResources open() override {
    RankRecord* record = current();
    if (record == nullptr)
      throw Error(Status::InvalidState, "MPI_Init called outside a simulated rank (from a global constructor?)");
    if (!options_.delay) return {record->env->device, record->env->oob};
    if (!record->delay)
      record->delay = std::make_unique<fabric::hook::DelayHook>(record->env->device, *options_.delay,
                                                                options_.delay_jitter,
                                                                options_.delay_seed + record->env->rank);
    return {*record->delay, record->env->oob};
  }
  void close() override {}
  [[noreturn]] void abort(int code, std::string_view message) override {
    std::fflush(stdout);
    fmt::print(stderr, "twinfab: {}\n", message);
    std::fflush(stderr);
    const int status = code & 0xff;
    std::_Exit(status != 0 || code == 0 ? status : 1);
  }
  std::string_view name() const noexcept override { return "simulator"; }
  /// The crashing rank, for CrashReport (reads the running actor's record only).
  static CrashSite locate_crash() noexcept {
    CrashSite site;
    if (RankRecord* record = current()) {
      site.in_rank = true;
      site.rank = record->env->rank;
      site.mpi_call = mpi::capi::call_in_progress(record->state);
    }
    return site;
  }
  // MPI_Wtime reads the simulated time (s4u::Engine's clock), the same for every rank.
  bool clock_is_global() const noexcept override { return true; }
  mpi::capi::ProgramServices* program_services() noexcept override {
    return current() != nullptr ? &services_ : nullptr;
  }

 private:
  static RankRecord* current() {
    if (s4u::Actor::is_maestro()) return nullptr;
    s4u::Actor* self = s4u::Actor::self();
    return self == nullptr ? nullptr : self->get_data<RankRecord>();
  }
  void* outside_ = nullptr;
  SimProgramServices services_;
  const SimLaunchOptions& options_;
};

/// A rank that calls exit() ends the whole simulation, which is one process: say which
/// and with what status, as mpirun reports a process that exits early (SimGrid's own
/// line says only "Process called exit when leaving"). An on_exit() handler, for the
/// status; exit(0) says nothing (a program may end so after MPI_Finalize).
void report_rank_exit(int status, void*) {
  if (status == 0) return;
  const CrashSite site = SimRankHost::locate_crash();
  if (!site.in_rank) return;
  std::fflush(stdout);
  fmt::print(stderr, "twinfab: rank {} called exit({}){}; the job ends with that status, and the other ranks with it\n",
             site.rank, status, site.mpi_call != nullptr ? fmt::format(" in {}", site.mpi_call) : std::string());
  std::fflush(stderr);
}

/// Uninstalls the host however the run ends.
struct HostInstallation {
  explicit HostInstallation(mpi::capi::RankHost& host) { mpi::capi::install_rank_host(&host); }
  ~HostInstallation() { mpi::capi::install_rank_host(nullptr); }
};

/// Where the ranks are, for the report of a job that deadlocked.
struct RankTracking {
  explicit RankTracking(unsigned n) : killed(n, 0), live(n, nullptr), waiting_in(n, nullptr) {}
  std::vector<char> killed;             ///< SimGrid found it blocked for good and killed it
  std::vector<RankRecord*> live;        ///< its record while its main() runs
  std::vector<const char*> waiting_in;  ///< the MPI function it was blocked in, if known

  /// Notes the MPI call of every rank still inside main() (after the simulation gave up).
  void note_live_calls() {
    for (std::size_t r = 0; r < live.size(); ++r)
      if (live[r] != nullptr) waiting_in[r] = mpi::capi::call_in_progress(live[r]->state);
  }
  /// "rank 0 in MPI_Recv, rank 1 in MPI_Finalize"; empty when no call is known.
  std::string calls() const {
    std::string out;
    for (std::size_t r = 0; r < waiting_in.size(); ++r)
      if (waiting_in[r] != nullptr) out += fmt::format("{}rank {} in {}", out.empty() ? "" : ", ", r, waiting_in[r]);
    return out;
  }
};

/// Runs rank r's main() for every rank; fills `status` (return values) and `tracking`.
void run_ranks(sim::Simulation& simulation, unsigned n, const std::vector<std::string>& command,
               const fs::path& program, const std::vector<MainFunction>& mains, SimRankHost& host,
               std::vector<int>& status, RankTracking& tracking, unsigned ranks_per_host);

/// --privatization auto loads this many copies by dlopen at most (each visible to a
/// debugger; 1024 take 1.9 s to load instead of 0.8 s), more into one arena.
constexpr unsigned kDlopenRanksAtMost = 256;

/// Loads rank `r`'s copy of the program with ld.so, from a file written to `dir`
/// (removed once loaded). The handle stays open: the copy lives until the process ends.
void* load_copy(const fs::path& dir, const std::vector<char>& image, const fs::path& program, unsigned r, unsigned n,
                std::size_t maps_before) {
  const fs::path copy = dir / fmt::format("rank{}-{}", r, program.filename().string());
  {
    std::ofstream out(copy, std::ios::binary);
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
    if (!out) throw Error(Status::IoError, fmt::format("cannot write {} (disk full? set TMPDIR)", copy.string()));
  }
  ::chmod(copy.c_str(), 0700);
  void* handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::error_code ignored;
  fs::remove(copy, ignored);
  if (handle == nullptr) {
    const std::string why = dlerror();
    check_mapping_limit(n, r, maps_before);  // the usual cause at large N: names it
    throw Error(Status::InvalidArgument,
                fmt::format("cannot load '{}' for rank {}: {}; build it with twinfab-mpicc", program.string(), r, why));
  }
  return handle;
}

/// The main() of a loaded copy, or an error that says how the program was built wrong.
MainFunction main_of(void* handle, const fs::path& program) {
  void* symbol = dlsym(handle, "main");
  if (symbol != nullptr) return reinterpret_cast<MainFunction>(symbol);
  // Built by another MPI's compiler wrapper: say so (foreign_mpi.hpp).
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0)
    for (; map != nullptr; map = map->l_next)
      if (const char* family = mpi::capi::foreign_mpi_family(map->l_name))
        throw Error(Status::InvalidArgument,
                    fmt::format("'{}' was built against another MPI ({}?): it needs {}; rebuild it with twinfab-mpicc",
                                program.string(), family, map->l_name));
  throw Error(Status::InvalidArgument,
              fmt::format("'{}' does not export main, so it was not linked by twinfab-mpicc (which adds "
                          "-pie -Wl,--export-dynamic-symbol=main)",
                          program.string()));
}

}  // namespace

void check_sim_options(const SimLaunchOptions& options) {
  if (options.nranks < 1)
    throw Error(Status::InvalidArgument, fmt::format("-n {}: the number of ranks must be at least 1", options.nranks));
  if (options.command.empty())
    throw Error(Status::InvalidArgument, "no program given: twinfab sim -n N [--] ./prog [args...]");
  (void)ComputationMeter(options.computation);  // refuses bad options before N copies are loaded
  if (options.loss && !(*options.loss >= 0 && *options.loss <= 1))  // NaN included
    throw Error(Status::InvalidArgument,
                fmt::format("--loss {} must be a probability in [0, 1]", *options.loss));
  if (options.delay) {
    try {
      fabric::hook::DelayHook::check_parameters(*options.delay, options.delay_jitter);
    } catch (const Error& e) {
      throw Error(Status::InvalidArgument, fmt::format("--delay {} us --delay-jitter {} us: {}", *options.delay * 1e6,
                                                       options.delay_jitter * 1e6, e.what()));
    }
  }
  if (options.privatization != "auto" && options.privatization != "dlopen" && options.privatization != "arena")
    throw Error(Status::InvalidArgument,
                fmt::format("--privatization {}: expected auto, dlopen or arena", options.privatization));
  if (!options.counters.empty() && options.counters != "text" && options.counters != "json")
    throw Error(Status::InvalidArgument,
                fmt::format("--counters={}: expected text or json (--counters alone is text)", options.counters));
}

int run_sim_program(const SimLaunchOptions& options, SimRunResult* result) {
  const auto started = std::chrono::steady_clock::now();
  check_sim_options(options);
  // Opened before the run: a path that cannot be written fails now, not after it.
  std::ofstream result_file;
  if (!options.result_json.empty()) {
    result_file.open(options.result_json);
    if (!result_file)
      throw Error(Status::IoError, fmt::format("--result-json: cannot write {}: {}", options.result_json,
                                               std::strerror(errno)));
  }
  const fs::path program = find_program(options.command.front());
  std::vector<char> image = load_and_unmark_pie(program);

  sim::Platform platform = sim::load_platform(options.platform, options.overrides);
  if (options.loss) platform.loss.probability = *options.loss;
  if (options.seed) platform.loss.seed = *options.seed;
  unsigned ranks_per_host = options.ranks_per_host;
  const unsigned n = static_cast<unsigned>(options.nranks);
  if (ranks_per_host == 0) {
    // The platform's placement, packed tighter when it has too few hosts for N ranks.
    ranks_per_host = std::max(1u, platform.ranks_per_host);
    const unsigned hosts = std::max(1u, platform.hosts);
    if (ranks_per_host * hosts < n) ranks_per_host = (n + hosts - 1) / hosts;
  }

  // Before anything is copied: a placement that cannot work fails at once, not after
  // N copies were loaded.
  sim::check_placement(platform, n, ranks_per_host);
  // Only the hosts the ranks run on are modelled (the others carry no traffic): a
  // platform of millions of hosts costs what its used ones do; what still does not fit
  // in memory is refused here, before the copies (model_size.hpp).
  platform = sim::hosts_in_use(platform, (n + ranks_per_host - 1) / ranks_per_host);
  sim::check_model_fits(platform);
  sim::check_ranks_fit(platform, n);

  // One private copy per rank; each file goes as soon as it is loaded (the mapping
  // stays), so a run killed while loading leaves at most one copy behind. Rank 0's
  // copy is always loaded by ld.so: the arena's copies take its bound symbols.
  std::vector<MainFunction> mains(n);
  std::unique_ptr<ProgramArena> arena;
  {
    TempDir dir;
    const std::size_t maps_before = sim::memory_mapping_count();
    void* const first = load_copy(dir.path(), image, program, 0, n, maps_before);
    mains[0] = main_of(first, program);
    const MappingEstimate by_dlopen = estimate_mappings(n, 1, maps_before);
    bool use_arena = n > 1 && (options.privatization == "arena" ||
                               (options.privatization == "auto" && (n > kDlopenRanksAtMost || !by_dlopen.fits())));
    if (use_arena) {
      std::vector<char*> argv;
      for (const std::string& word : options.command) argv.push_back(const_cast<char*>(word.c_str()));
      try {
        arena = std::make_unique<ProgramArena>(image, first, program.string(), n - 1, std::move(argv));
      } catch (const Error& e) {
        // A program the arena cannot copy (thread-local variables, say) still runs
        // under auto while its copies by dlopen fit.
        if (options.privatization != "auto" || e.status() != Status::InvalidArgument || !by_dlopen.fits()) throw;
        fabric::log().info("sim: {}; loading the copies by dlopen", e.what());
        use_arena = false;
      }
    }
    if (use_arena) {
      if (!by_dlopen.fits())
        fabric::log().info("sim: {} copies of the program by dlopen would need ~{:.0f} memory mappings, more than "
                           "vm.max_map_count ({}): they share one mapping (--privatization arena)",
                           n, by_dlopen.needed, by_dlopen.limit);
      for (unsigned r = 1; r < n; ++r) mains[r] = arena->main_of(r - 1);
    } else {
      check_mapping_limit(n, 1, maps_before);
      for (unsigned r = 1; r < n; ++r) mains[r] = main_of(load_copy(dir.path(), image, program, r, n, maps_before), program);
    }
  }

  fabric::log().debug("sim: {} rank(s) of {} on platform '{}', {} per host", n, program.string(), options.platform,
                      ranks_per_host);
  SimRankHost host(options.computation, options);
  HostInstallation installation(host);
  static const bool exit_reported = on_exit(report_rank_exit, nullptr) == 0;  // once per process
  (void)exit_reported;
  std::vector<int> status(n, 0);
  RankTracking tracking(n);
  sim::Simulation simulation(platform);
  // After the engine exists: it installs SimGrid's own handler, which this replaces.
  const CrashReport crash_report(n, static_cast<std::size_t>(simgrid::config::get_value<int>("contexts/stack-size")) * 1024,
                                 &SimRankHost::locate_crash);
  const double simulated_start = simulation.now();
  try {
    run_ranks(simulation, n, options.command, program, mains, host, status, tracking, ranks_per_host);
  } catch (const simgrid::ForcefulKillException&) {
    // SimGrid found the remaining ranks blocked for good and killed them.
    std::string stuck;
    for (unsigned r = 0; r < n; ++r)
      if (tracking.killed[r]) stuck += fmt::format("{}{}", stuck.empty() ? "" : ", ", r);
    const std::string calls = tracking.calls();
    host.abort(1, fmt::format("error: simulation deadlocked: rank(s) {} were still waiting in MPI calls when nothing "
                              "else could happen{}",
                              stuck, calls.empty() ? "" : " (" + calls + ")"));
  } catch (const std::exception& e) {
    // Typically "simulation deadlocked": ranks are still parked inside the program's
    // frames, so end here rather than unwind the simulation around them.
    tracking.note_live_calls();
    const std::string calls = tracking.calls();
    host.abort(1, fmt::format("error: {}{}", e.what(), calls.empty() ? "" : " (" + calls + ")"));
  }
  std::fflush(stdout);
  int exit_status = 0;
  for (unsigned r = 0; r < n; ++r) {
    if (status[r] == 0) continue;
    fmt::print(stderr, "twinfab: rank {} exited with status {}\n", r, status[r]);
    exit_status = (status[r] & 0xff) != 0 ? (status[r] & 0xff) : 1;
    break;
  }

  SimRunResult report;
  report.exit_status = exit_status;
  report.simulated_time = simulation.now() - simulated_start;
  report.platform_name = platform.name;
  report.nranks = n;
  report.ranks_per_host = ranks_per_host;
  report.loss_probability = platform.loss.probability;
  report.loss_seed = platform.loss.seed;
  report.total = simulation.counters();
  const unsigned hosts_used = (n + ranks_per_host - 1) / ranks_per_host;
  for (unsigned h = 0; h < hosts_used; ++h) report.per_hca.push_back(simulation.hca_counters(h));
  if (options.counters == "text") {
    fmt::print(stderr, "# counters (platform {}, {} rank(s), loss probability {}, seed {})\n{}", platform.name, n,
               platform.loss.probability, platform.loss.seed, report.total.to_text());
    // The split issue 33 asks for: how much of a rank's time the MPI library's own work
    // took (the host-side cost model, docs/model.md "Host software"), the rest being the
    // network, waiting and the program.
    const double per_rank_us = static_cast<double>(report.total.host_software_ns) / 1e3 / n;
    const double run_us = report.simulated_time * 1e6;
    fmt::print(stderr, "# split: {:.3f} us simulated; MPI library host work {:.3f} us per rank ({:.1f} %), the rest "
               "network, waiting and the program\n",
               run_us, per_rank_us, run_us > 0 ? 100.0 * per_rank_us / run_us : 0.0);
  }
  else if (options.counters == "json")
    fmt::print(stderr, "{}\n", report.total.to_json());
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) report.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  report.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (result_file.is_open()) {
    result_file << to_json(report) << '\n';
    if (!result_file.flush())
      throw Error(Status::IoError, fmt::format("--result-json: error writing {}: {}", options.result_json,
                                               std::strerror(errno)));
  }
  if (result != nullptr) *result = std::move(report);
  return exit_status;
}

namespace {

/// "std::runtime_error" for typeid(std::runtime_error).name().
std::string demangled(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangled);
}

void run_ranks(sim::Simulation& simulation, unsigned n, const std::vector<std::string>& command,
               const fs::path& program, const std::vector<MainFunction>& mains, SimRankHost& host,
               std::vector<int>& status, RankTracking& tracking, unsigned ranks_per_host) {
  simulation.run(
      n,
      [&](sim::RankEnv& env) {
        RankRecord record{&env, nullptr, {}, {}, nullptr};
        s4u::Actor::self()->set_data(&record);
        // However main() is left (a return, SimGrid's kill, a C++ exception), the record
        // dies with this frame: the tracking must not keep pointing at it.
        struct LiveRecord {
          RankRecord*& slot;
          ~LiveRecord() { slot = nullptr; }
        } live{tracking.live[env.rank] = &record};
        // Each rank gets its own argv, as a process would (programs may modify it).
        std::vector<std::string> args = command;
        args.front() = program.string();
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        int rc = 0;
        try {
          rc = mains[env.rank](static_cast<int>(args.size()), argv.data());
        } catch (const simgrid::ForcefulKillException&) {
          tracking.killed[env.rank] = 1;  // an actor must never survive this: pass it on
          tracking.waiting_in[env.rank] = mpi::capi::call_in_progress(record.state);
          s4u::Actor::self()->set_data(nullptr);
          throw;
        } catch (const std::exception& e) {
          // A process would die of std::terminate ("terminate called after throwing an
          // instance of ..."), and mpirun end the job: so does the simulation, naming
          // the rank, instead of leaving the others waiting for it.
          host.abort(1, fmt::format("rank {} ended with an uncaught C++ exception ({}): {}", env.rank,
                                    demangled(typeid(e).name()), e.what()));
        }
        const mpi::capi::RankOutcome outcome = mpi::capi::end_rank();
        s4u::Actor::self()->set_data(nullptr);
        if (outcome.initialized && !outcome.finalized)
          host.abort(1, fmt::format("rank {} returned from main (status {}) without calling MPI_Finalize", env.rank, rc));
        if (outcome.unfinished())
          host.abort(1, fmt::format("rank {} returned from main (status {}) with {} session(s) not finalized "
                                    "(without calling MPI_Session_finalize)",
                                    env.rank, rc, outcome.open_sessions));
        status[env.rank] = rc;
      },
      ranks_per_host);
}

}  // namespace

}  // namespace twinfab::tools
