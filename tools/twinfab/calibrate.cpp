#include "tools/twinfab/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "backends/sim/timing_model.hpp"
#include "fabric/error.hpp"

namespace twinfab::tools {

using fabric::Error;
using fabric::Status;

namespace {

/// The platform MTU (256 .. 4096, a power of two) at most `mtu`.
std::uint32_t platform_mtu(std::uint32_t mtu) {
  std::uint32_t m = 4096;
  while (m > 256 && m > mtu) m /= 2;
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Least-squares line y = a + b x through (x, y, weight) points; {mean, 0} when the
/// points cannot fix a slope.
struct Line {
  double intercept = 0;
  double slope = 0;
};
Line fit_line(const std::vector<std::array<double, 3>>& points) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y, w] : points) {
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  const double d = sw * sxx - sx * sx;
  if (points.size() < 2 || !(d > 0)) return {sw > 0 ? sy / sw : 0.0, 0.0};
  const double slope = (sw * sxy - sx * sy) / d;
  return {(sy - slope * sx) / sw, slope};
}

std::string us(double seconds) { return fmt::format("{:.4g} us", seconds * 1e6); }

}  // namespace

std::pair<std::uint32_t, std::string> header_bytes_for(fabric::LinkKind link) {
  switch (link) {
    case fabric::LinkKind::RoCE:
      return {62, "RoCE v2: Ethernet 14 + FCS 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4"};
    case fabric::LinkKind::IWarp:
      return {88, "iWARP: Ethernet 14 + FCS 4 + IPv4 20 + TCP 20 (+12 timestamps) + MPA 6 + DDP/RDMAP 12"};
    case fabric::LinkKind::InfiniBand:
    case fabric::LinkKind::Simulated:
      break;
  }
  return {30, "InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2, + 4 for delimiters"};
}

Calibration fit_platform(const CalibrationProbes& p, const std::string& name) {
  if (p.write_latency.empty())
    throw Error(Status::InvalidArgument, "calibrate: no RDMA write latency was measured; nothing to fit");
  for (auto [bytes, t] : p.write_latency)
    if (!(t > 0) || !std::isfinite(t))
      throw Error(Status::InvalidArgument, fmt::format("calibrate: the {}-byte write latency came out as {} s", bytes, t));
  if (!(p.peak_bandwidth > 0) || !(p.small_message_rate > 0))
    throw Error(Status::InvalidArgument,
                fmt::format("calibrate: the streamed bandwidth ({} B/s) and message rate ({}/s) must be positive",
                            p.peak_bandwidth, p.small_message_rate));
  Calibration c;
  sim::Platform& f = c.platform;
  auto note = [&c](std::string key, std::string how) { c.how.emplace_back(std::move(key), std::move(how)); };
  f.name = name;
  f.description = fmt::format("{} ({} link), calibrated from measurements by twinfab calibrate", p.device,
                              fabric::to_string(p.caps.link));
  f.hosts = 2;
  f.ranks_per_host = 1;
  f.topology = sim::Topology::SingleSwitch;

  f.mtu = platform_mtu(p.caps.mtu);
  note("network.mtu", fmt::format("the device's active MTU ({} B), as a platform MTU", p.caps.mtu));
  const auto [header, header_how] = header_bytes_for(p.caps.link);

  // T(s) = fixed + wire_bytes(s) / B is linear in wire_bytes: a least-squares line
  // weighted by 1/T^2 (relative errors: a small message's microseconds count as much
  // as a large one's milliseconds) gives fixed and 1/B. (A per-packet cost as a third
  // term cannot be told from the intercept: every size up to the MTU is one packet.)
  // The streamed bandwidth is the check; it is used instead when the line has no
  // positive slope or intercept (latencies too noisy to pin them down).
  f.hca.header_bytes = header;
  note("hca.header_bytes", header_how);
  std::vector<std::array<double, 3>> latency;
  for (auto [bytes, t] : p.write_latency)
    latency.push_back({static_cast<double>(sim::predicted_wire_bytes(f, bytes)), t, 1.0 / (t * t)});
  const auto [intercept, slope] = fit_line(latency);
  const double streamed_wire_rate = p.peak_bandwidth * (f.mtu + header) / f.mtu;
  const bool line = p.write_latency.size() >= 2 && slope > 0 && intercept > 0;
  const double bandwidth = line ? 1.0 / slope : streamed_wire_rate;
  f.link_bandwidth = bandwidth;
  f.hca.pcie_bandwidth = bandwidth;
  const double model_stream = bandwidth * f.mtu / (f.mtu + header);
  note("network.link_bandwidth",
       line ? fmt::format("derived: the slope of the latency fit; it predicts {:.1f} MB/s streaming {}-byte writes, "
                          "{:.1f} MB/s measured",
                          model_stream / 1e6, p.peak_bytes, p.peak_bandwidth / 1e6)
            : fmt::format("measured: {:.1f} MB/s of payload streaming {}-byte writes, plus the headers (the "
                          "latencies gave no line)",
                          p.peak_bandwidth / 1e6, p.peak_bytes));
  note("hca.pcie_bandwidth", "as the link: one bottleneck, the pair's (the measurement cannot tell them apart)");
  // The measured pair shares one device: no cable or switch of its own. The route
  // still gets a nominal 10 ns of each, taken from the fixed cost below: zero
  // latencies would let events of one date race (tests/unit/platform_test.cpp).
  f.link_latency = 10e-9;
  f.switch_latency = 10e-9;
  note("network.link_latency", "nominal 10 ns (the measured contexts share one device; taken from the fixed cost)");
  note("network.switch_latency", "nominal 10 ns, as the link's");

  // Message rate: the model starts one message per max(post_overhead, wqe_processing,
  // message_gap).
  const double interval = 1.0 / p.small_message_rate;
  f.hca.wqe_processing = interval;
  note("hca.wqe_processing",
       fmt::format("measured: 1 / the 8-byte write rate ({:.3f} M messages/s)", p.small_message_rate / 1e6));

  // The fixed part of T(s): the line's intercept, or (no line) the median residual.
  double fixed_cost = 0;
  if (line) {
    fixed_cost = intercept;
  } else {
    std::vector<double> fixed;
    for (auto [bytes, t] : p.write_latency)
      fixed.push_back(t - static_cast<double>(sim::predicted_wire_bytes(f, bytes)) / bandwidth);
    fixed_cost = median(fixed);
  }
  fixed_cost = std::max(fixed_cost - 2 * f.link_latency - f.switch_latency, 0.0);
  // Posting is part of it; the rest is the HCA and its bus (three crossings in the
  // model). The split is assumed: posting at a quarter of the message interval.
  f.hca.post_overhead = std::min(interval / 4, fixed_cost / 4);
  note("hca.post_overhead", "assumed: a quarter of the measured message interval (the split of the fixed cost "
                            "between CPU and device is not measurable from outside)");
  if (fixed_cost - f.hca.post_overhead - f.hca.wqe_processing < 0) {
    // The message interval exceeds the latency's fixed part: the device pipelines.
    // The device's message rate is then not its latency's: kept as the gap between
    // the work requests the HCA starts, which an isolated message does not pay.
    f.hca.wqe_processing = std::max(0.0, fixed_cost - f.hca.post_overhead);
    note("hca.wqe_processing!", fmt::format("derived: the fixed latency less the post (the measured message "
                                            "interval, {}, is longer than the fixed latency)",
                                            us(interval)));
    f.hca.message_gap = interval;
    note("hca.message_gap", fmt::format("measured: 1 / the 8-byte write rate ({:.3f} M messages/s), longer than "
                                        "the fixed latency leaves for wqe_processing",
                                        p.small_message_rate / 1e6));
  } else {
    f.hca.message_gap = 0;
    note("hca.message_gap", "0: the message rate is 1 / wqe_processing");
  }
  f.hca.pcie_latency = std::max(0.0, (fixed_cost - f.hca.post_overhead - f.hca.wqe_processing) / 3);
  note("hca.pcie_latency", fmt::format("derived: (the fixed part of the write latency, {}, less post and wqe) / 3",
                                       us(fixed_cost)));
  // Reads and atomics: in the model both are a round trip of the fitted latency, plus
  // the responder's read time or the atomic unit's.
  const double round_trip = 2 * sim::predicted_one_way(f, 8);
  f.hca.read_response_latency = std::max(0.0, p.read_latency - round_trip);
  note("hca.read_response_latency", fmt::format("measured: 8-byte read {} less the model's 8-byte round trip {}",
                                                us(p.read_latency), us(round_trip)));
  f.features.atomics = p.caps.atomics && p.atomic_latency > 0;
  if (f.features.atomics) {
    f.hca.atomic_latency = std::max(0.0, p.atomic_latency - round_trip);
    note("hca.atomic_latency", fmt::format("measured: 8-byte fetch-and-add {} less the model's 8-byte round trip {}",
                                           us(p.atomic_latency), us(round_trip)));
  } else {
    f.hca.atomic_latency = 0;
    note("hca.atomic_latency", "0: the device has no remote atomics");
  }
  f.hca.poll_overhead = 0.1e-6;
  note("hca.poll_overhead", "assumed (not charged by the model)");
  f.hca.event_latency = 10e-6;
  note("hca.event_latency", "assumed: not measured (completion-channel wake-up)");
  f.hca.icm_cache_entries = 0;
  note("hca.icm_cache_entries", "0: no context-cache model (not measurable with two QPs)");

  // Registration: base + pages * per_page, the line through the measured lengths.
  std::vector<std::array<double, 3>> pages;
  for (auto [bytes, t] : p.registration)
    pages.push_back({static_cast<double>((bytes + f.registration.page_size - 1) / f.registration.page_size), t, 1.0});
  const auto [base, per_page] = fit_line(pages);
  f.registration.base = std::max(0.0, base);
  f.registration.per_page = std::max(0.0, per_page);
  note("registration.base", pages.empty() ? "not measured" : "measured: least-squares line of register_memory's time "
                                                             "by pages, its intercept");
  note("registration.per_page", pages.empty() ? "not measured" : "measured: that line's slope");

  const fabric::DeviceCapabilities& caps = p.caps;
  f.features.write_with_imm = caps.write_with_imm;
  f.features.send_with_imm = caps.send_with_imm;
  f.features.ud = caps.ud;
  f.features.uc = caps.uc;
  f.features.srq = caps.srq;
  f.features.in_order_placement = caps.in_order_placement;
  f.features.requires_connection_manager = caps.requires_connection_manager;
  f.features.active_side_sends_first = caps.active_side_sends_first;
  f.features.max_inline = caps.max_inline;
  f.features.max_rd_atomic = caps.max_rd_atomic;
  note("features", "the device's capabilities as it reported them");

  f.memcpy_bandwidth = p.memcpy_bandwidth > 0 ? p.memcpy_bandwidth : 1e9;
  note("host.memcpy_bandwidth", p.memcpy_bandwidth > 0 ? "measured: a single-thread memcpy of 64 KiB on this host"
                                                       : "assumed: not measured");
  note("host.mpi_send_overhead", "0: the MPI library's host work is fitted against MPI runs (bench/validate_sim.sh)");

  for (auto [bytes, t] : p.write_latency) c.check.push_back({bytes, {t, sim::predicted_one_way(f, bytes)}});
  return c;
}

std::string calibration_toml(const Calibration& c, const CalibrationProbes& p, const std::string& when) {
  const sim::Platform& f = c.platform;
  auto how = [&c](const std::string& key) {
    std::string found = "-";
    for (const auto& [k, h] : c.how)
      if (k == key || k == key + "!") found = h;  // a later note (key!) replaces an earlier one
    return found;
  };
  std::string out;
  out += fmt::format("# {}: written by `twinfab calibrate` on {} from device {} ({}).\n", f.name, when, p.device,
                     fabric::to_string(p.caps.link));
  out += "# Each key's comment says whether it was measured, derived from measurements or assumed.\n";
  out += "# The fit against what was measured (one-way RDMA write, perftest's typical value):\n";
  out += "#     bytes   measured[us]   model[us]   error\n";
  for (const auto& [bytes, pair] : c.check)
    out += fmt::format("# {:9}   {:12.3f}   {:9.3f}   {:+5.1f} %\n", bytes, pair.first * 1e6, pair.second * 1e6,
                       100.0 * (pair.second - pair.first) / pair.first);
  out += fmt::format("# 8-byte read {:.3f} us, fetch-and-add {}, 8-byte write rate {:.3f} M/s, {}-byte write "
                     "bandwidth {:.1f} MB/s.\n\n",
                     p.read_latency * 1e6, p.atomic_latency > 0 ? fmt::format("{:.3f} us", p.atomic_latency * 1e6) : "-",
                     p.small_message_rate / 1e6, p.peak_bytes, p.peak_bandwidth / 1e6);
  auto time = [](double s) { return fmt::format("\"{:.6g}us\"", s * 1e6); };
  auto bw = [](double b) { return fmt::format("\"{:.6g}MB/s\"", b / 1e6); };
  auto flag = [](bool b) { return b ? "true" : "false"; };
  out += fmt::format("name = \"{}\"\ndescription = \"{}\"\n\n", f.name, f.description);
  out += "[topology]\nhosts = 2\nranks_per_host = 1\nkind = \"single-switch\"\n\n";
  out += "[network]\n";
  out += fmt::format("link_bandwidth = {}  # {}\n", bw(f.link_bandwidth), how("network.link_bandwidth"));
  out += fmt::format("link_latency = {}  # {}\n", time(f.link_latency), how("network.link_latency"));
  out += fmt::format("switch_latency = {}  # {}\n", time(f.switch_latency), how("network.switch_latency"));
  out += fmt::format("mtu = {}  # {}\n\n", f.mtu, how("network.mtu"));
  out += "[hca]\n";
  out += fmt::format("post_overhead = {}  # {}\n", time(f.hca.post_overhead), how("hca.post_overhead"));
  out += fmt::format("wqe_processing = {}  # {}\n", time(f.hca.wqe_processing), how("hca.wqe_processing"));
  out += fmt::format("message_gap = {}  # {}\n", time(f.hca.message_gap), how("hca.message_gap"));
  out += fmt::format("pcie_latency = {}  # {}\n", time(f.hca.pcie_latency), how("hca.pcie_latency"));
  out += fmt::format("pcie_bandwidth = {}  # {}\n", bw(f.hca.pcie_bandwidth), how("hca.pcie_bandwidth"));
  out += fmt::format("atomic_latency = {}  # {}\n", time(f.hca.atomic_latency), how("hca.atomic_latency"));
  out += fmt::format("read_response_latency = {}  # {}\n", time(f.hca.read_response_latency),
                     how("hca.read_response_latency"));
  out += fmt::format("poll_overhead = {}  # {}\n", time(f.hca.poll_overhead), how("hca.poll_overhead"));
  out += fmt::format("event_latency = {}  # {}\n", time(f.hca.event_latency), how("hca.event_latency"));
  out += fmt::format("header_bytes = {}  # {}\n", f.hca.header_bytes, how("hca.header_bytes"));
  out += fmt::format("icm_cache_entries = 0  # {}\n\n", how("hca.icm_cache_entries"));
  out += fmt::format("[features]  # {}\n", how("features"));
  out += fmt::format("atomics = {}\nwrite_with_imm = {}\nsend_with_imm = {}\nud = {}\nuc = {}\nsrq = {}\n",
                     flag(f.features.atomics), flag(f.features.write_with_imm), flag(f.features.send_with_imm),
                     flag(f.features.ud), flag(f.features.uc), flag(f.features.srq));
  out += fmt::format("in_order_placement = {}\nrequires_connection_manager = {}\nactive_side_sends_first = {}\n",
                     flag(f.features.in_order_placement), flag(f.features.requires_connection_manager),
                     flag(f.features.active_side_sends_first));
  out += fmt::format("max_inline = {}\nmax_rd_atomic = {}\n\n", f.features.max_inline, f.features.max_rd_atomic);
  out += "[registration]\n";
  out += fmt::format("base = {}  # {}\n", time(f.registration.base), how("registration.base"));
  out += fmt::format("per_page = {}  # {}\n\n", time(f.registration.per_page), how("registration.per_page"));
  out += "[host]\n";
  out += fmt::format("memcpy_bandwidth = {}  # {}\n", bw(f.memcpy_bandwidth), how("host.memcpy_bandwidth"));
  out += fmt::format("mpi_send_overhead = \"0us\"  # {}\nmpi_receive_overhead = \"0us\"\n\n",
                     how("host.mpi_send_overhead"));
  out += "[memory]  # modelled MPI memory (seed 004's categories): seed 004's MVAPICH figures, not measured\n";
  out += "rc_qp_bytes = \"68KB\"\nuc_qp_bytes = \"68KB\"\nud_qp_bytes = \"68KB\"\n";
  return out;
}

}  // namespace twinfab::tools
