// twinfab._core: the simulated fabric. Platforms (presets, TOML, overrides validated
// by the C++ loader), and one simulation per process: an MPI program under the
// launcher of `twinfab sim`, or a perf test as `twinfab perf --backend sim` runs it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/counters.hpp"
#include "backends/sim/platform.hpp"
#include "python/src/bindings.hpp"
#include "tools/twinfab/perf_sim.hpp"
#include "tools/twinfab/sim_launch.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace twinfab::python {

namespace {

/// "key=value" for the C++ loader, from a Python value: booleans as TOML booleans
/// (Python's str() would give "True"), numbers by str() (shortest round trip for
/// floats), strings as written (the loader reads a unit-suffixed string such as
/// "20Gbps" as a string when it is not a TOML value).
std::string override_text(const std::string& key, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return key + "=" + (value.cast<bool>() ? "true" : "false");
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value) || py::isinstance<py::str>(value))
    return key + "=" + py::str(value).cast<std::string>();
  throw py::type_error("platform override " + key + ": a bool, int, float or str is expected, got " +
                       py::str(value.get_type()).cast<std::string>());
}

std::vector<std::string> override_list(const py::dict& overrides) {
  std::vector<std::string> out;
  for (const auto& [key, value] : overrides) out.push_back(override_text(py::str(key).cast<std::string>(), value));
  return out;
}

/// SimGrid keeps one engine per process (its clock, its platform): a second
/// simulation here would run on the first one's leftovers.
void claim_the_process_simulation() {
  static std::atomic<bool> used{false};
  if (used.exchange(true))
    throw std::runtime_error(
        "this process already ran a simulation: SimGrid keeps one engine per process, so each simulation "
        "runs in a process of its own (twinfab.run() and twinfab.perf() start one per call)");
}

py::dict to_dict(const sim::Platform& p) {
  const char* topology = p.topology == sim::Topology::SingleSwitch ? "single-switch" : "fat-tree";
  py::dict fat_tree = p.topology == sim::Topology::FatTree
                          ? py::dict("levels"_a = p.fat_tree.levels, "down"_a = p.fat_tree.down,
                                     "up"_a = p.fat_tree.up, "count"_a = p.fat_tree.count)
                          : py::dict();
  py::list per_host;
  for (const auto& [host, prob] : p.loss.per_host) per_host.append(py::dict("host"_a = host, "probability"_a = prob));
  const auto& h = p.hca;
  const auto& f = p.features;
  return py::dict(
      "name"_a = p.name, "source"_a = p.source, "description"_a = p.description,
      "topology"_a = py::dict("hosts"_a = p.hosts, "ranks_per_host"_a = p.ranks_per_host, "kind"_a = topology,
                              "fat_tree"_a = fat_tree),
      "network"_a = py::dict("link_bandwidth"_a = p.link_bandwidth, "link_latency"_a = p.link_latency,
                             "switch_latency"_a = p.switch_latency, "mtu"_a = p.mtu),
      "hca"_a = py::dict("post_overhead"_a = h.post_overhead, "wqe_processing"_a = h.wqe_processing,
                         "pipeline_latency"_a = h.pipeline_latency,
                         "message_gap"_a = h.message_gap,
                         "pcie_latency"_a = h.pcie_latency, "pcie_bandwidth"_a = h.pcie_bandwidth,
                         "pcie_full_duplex"_a = h.pcie_full_duplex,
                         "atomic_latency"_a = h.atomic_latency,
                         "read_response_latency"_a = h.read_response_latency, "poll_overhead"_a = h.poll_overhead,
                         "event_latency"_a = h.event_latency, "header_bytes"_a = h.header_bytes,
                         "icm_cache_entries"_a = h.icm_cache_entries, "icm_miss_penalty"_a = h.icm_miss_penalty,
                         "ack_timeout"_a = h.ack_timeout, "retry_count"_a = h.retry_count,
                         "rnr_retry"_a = h.rnr_retry, "min_rnr_timer"_a = h.min_rnr_timer),
      "features"_a = py::dict("atomics"_a = f.atomics, "write_with_imm"_a = f.write_with_imm,
                              "send_with_imm"_a = f.send_with_imm, "ud"_a = f.ud, "uc"_a = f.uc, "srq"_a = f.srq,
                              "in_order_placement"_a = f.in_order_placement,
                              "requires_connection_manager"_a = f.requires_connection_manager,
                              "active_side_sends_first"_a = f.active_side_sends_first,
                              "max_inline"_a = f.max_inline, "max_rd_atomic"_a = f.max_rd_atomic),
      "registration"_a = py::dict("base"_a = p.registration.base, "per_page"_a = p.registration.per_page,
                                  "page_size"_a = p.registration.page_size),
      "host"_a = py::dict("memcpy_bandwidth"_a = p.memcpy_bandwidth, "shm_message_cost"_a = p.shm_message_cost,
                          "mpi_send_overhead"_a = p.mpi_send_overhead, "mpi_receive_overhead"_a = p.mpi_receive_overhead,
                          "mpi_receive_queue_overhead"_a = p.mpi_receive_queue_overhead,
                          "cores"_a = p.cores),
      "loss"_a = py::dict("probability"_a = p.loss.probability, "seed"_a = p.loss.seed, "per_host"_a = per_host),
      "memory"_a = py::dict("rc_qp_bytes"_a = p.memory.rc_qp_bytes, "uc_qp_bytes"_a = p.memory.uc_qp_bytes,
                            "ud_qp_bytes"_a = p.memory.ud_qp_bytes,
                            "qp_context_bytes"_a = p.memory.qp_context_bytes));
}

py::list latency_rows(const tools::PerfReport& r) {
  py::list rows;
  for (const auto& l : r.latency)
    rows.append(py::dict("bytes"_a = l.bytes, "iterations"_a = l.iterations, "t_min_us"_a = l.t_min,
                         "t_max_us"_a = l.t_max, "t_typical_us"_a = l.t_typical, "t_avg_us"_a = l.t_avg,
                         "t_stdev_us"_a = l.t_stdev, "p99_us"_a = l.p99, "p999_us"_a = l.p999));
  return rows;
}

py::list bandwidth_rows(const tools::PerfReport& r) {
  py::list rows;
  for (const auto& b : r.bandwidth)
    rows.append(py::dict("bytes"_a = b.bytes, "iterations"_a = b.iterations, "bw_average_MBps"_a = b.bw_average,
                         "msg_rate_Mpps"_a = b.msg_rate));
  return rows;
}

}  // namespace

void init_sim(py::module_& m) {
  py::class_<sim::Platform>(m, "Platform",
                            "A simulated platform (network, HCA, host, loss, memory model), loaded from a preset or "
                            "a TOML file and validated by the C++ loader (docs/platforms.md). Values in base units: "
                            "seconds, bytes, bytes per second.")
      .def_static(
          "load",
          [](const std::string& name_or_path, const py::dict& overrides) {
            return sim::load_platform(name_or_path, override_list(overrides));
          },
          "name_or_path"_a, "overrides"_a = py::dict(),
          "A preset name or a .toml path, with overrides {'hca.icm_cache_entries': 64, "
          "'network.link_bandwidth': '20Gbps', ...} checked as if written in the file; raises ValueError "
          "naming the key and the allowed values, FileNotFoundError for an unknown preset.")
      .def_static(
          "parse",
          [](const std::string& toml_text, const std::string& source, const py::dict& overrides) {
            return sim::parse_platform(toml_text, source, override_list(overrides));
          },
          "toml_text"_a, "source"_a = "<string>", "overrides"_a = py::dict(), "A platform from TOML text.")
      .def_readonly("name", &sim::Platform::name)
      .def_readonly("source", &sim::Platform::source)
      .def_readonly("description", &sim::Platform::description)
      .def_readonly("hosts", &sim::Platform::hosts)
      .def_readonly("ranks_per_host", &sim::Platform::ranks_per_host)
      .def_readonly("mtu", &sim::Platform::mtu)
      .def_readonly("link_bandwidth", &sim::Platform::link_bandwidth)
      .def_readonly("link_latency", &sim::Platform::link_latency)
      .def("to_dict", &to_dict, "Every parameter, as nested dicts named as the TOML tables.")
      .def("__repr__", [](const sim::Platform& p) {
        return "<twinfab.Platform " + p.name + " (" + p.source + "), " + std::to_string(p.hosts) + " hosts>";
      });

  m.def("presets", &sim::list_presets, "Names of the platform presets on the search path.");
  m.def("override_strings", &override_list, "overrides"_a,
        "The 'key=value' strings a dict of overrides becomes (what `twinfab sim --set` takes).");

  m.def(
      "run_program",
      [](std::vector<std::string> command, int nranks, const std::string& platform, const py::dict& overrides,
         unsigned ranks_per_host, std::optional<double> loss, std::optional<std::uint64_t> seed) {
        tools::SimLaunchOptions o;
        o.command = std::move(command);
        o.nranks = nranks;
        o.platform = platform;
        o.overrides = override_list(overrides);
        o.ranks_per_host = ranks_per_host;
        o.loss = loss;
        o.seed = seed;
        claim_the_process_simulation();
        tools::SimRunResult result;
        {
          py::gil_scoped_release release;
          result.exit_status = tools::run_sim_program(o, &result);
        }
        return tools::to_json(result);
      },
      "command"_a, "nranks"_a, "platform"_a = "connectx-ddr", "overrides"_a = py::dict(), "ranks_per_host"_a = 0,
      "loss"_a = py::none(), "seed"_a = py::none(),
      "Runs an MPI program built with twinfab-mpicc as `twinfab sim` does; returns the result as JSON "
      "(exit status, simulated and wall time, peak memory, counters in total and per HCA). Once per process.");

  m.def(
      "run_perf",
      [](const std::string& test, const std::string& platform, const py::dict& overrides,
         std::vector<std::uint64_t> sizes, unsigned iterations, unsigned tx_depth) {
        tools::PerfOptions o;
        o.test = tools::parse_perf_test(test);
        o.sizes = std::move(sizes);
        o.iterations = iterations;
        o.tx_depth = tx_depth;
        if (o.iterations == 0) throw py::value_error("iterations must be at least 1");
        if (o.tx_depth == 0 || o.tx_depth > 8192) throw py::value_error("tx_depth must be in 1..8192");
        const sim::Platform p = sim::load_platform(platform, override_list(overrides));
        claim_the_process_simulation();
        tools::PerfSimResult r;
        {
          py::gil_scoped_release release;
          r = tools::run_perf_sim(o, p);
        }
        py::module_ json = py::module_::import("json");
        py::list per_hca;
        for (const auto& c : r.per_hca) per_hca.append(json.attr("loads")(c.to_json()));
        return py::dict("test"_a = tools::to_string(r.report.test), "latency"_a = latency_rows(r.report),
                        "bandwidth"_a = bandwidth_rows(r.report), "counters"_a = json.attr("loads")(r.total.to_json()),
                        "per_hca"_a = per_hca, "simulated_time"_a = r.simulated_time, "platform"_a = p.name,
                        "loss_probability"_a = p.loss.probability, "loss_seed"_a = p.loss.seed);
      },
      "test"_a, "platform"_a = "connectx-ddr", "overrides"_a = py::dict(), "sizes"_a = std::vector<std::uint64_t>{},
      "iterations"_a = 1000, "tx_depth"_a = 128,
      "A perftest-style test (write-lat, read-lat, send-lat, atomic-lat, write-bw, send-bw, write-complete-lat) on "
      "two simulated hosts, as `twinfab perf --backend sim`; latencies in microseconds, bandwidth in MB/s (2^20). "
      "Once per process.");
  m.attr("perf_tests") = tools::perf_test_names();
}

}  // namespace twinfab::python
