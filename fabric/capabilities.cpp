#include "fabric/capabilities.hpp"

#include <fmt/format.h>

namespace twinfab::fabric {

std::string to_string(LinkKind k) {
  switch (k) {
    case LinkKind::InfiniBand: return "InfiniBand";
    case LinkKind::RoCE: return "RoCE";
    case LinkKind::IWarp: return "iWARP";
    case LinkKind::Simulated: return "simulated";
  }
  return "?";
}

std::string describe(const DeviceCapabilities& c) {
  auto yn = [](bool b) { return b ? "yes" : "no"; };
  std::string out;
  out += fmt::format("  device            {} (backend {}, link {})\n", c.device_name, c.backend, to_string(c.link));
  out += fmt::format("  transports        RC {} / UC {} / UD {}\n", yn(c.rc), yn(c.uc), yn(c.ud));
  out += fmt::format("  SRQ               {}\n", yn(c.srq));
  out += fmt::format("  atomics (8 B)     {}\n", yn(c.atomics));
  out += fmt::format("  send with imm     {}\n", yn(c.send_with_imm));
  out += fmt::format("  write with imm    {}\n", yn(c.write_with_imm));
  out += fmt::format("  in-order placement {}\n", yn(c.in_order_placement));
  out += fmt::format("  RNR retry         {}\n", yn(c.receiver_not_ready_retry));
  out += fmt::format("  needs conn. mgr   {}\n", yn(c.requires_connection_manager));
  out += fmt::format("  active sends first {}\n", yn(c.active_side_sends_first));
  out += fmt::format("  MTU               {} B\n", c.mtu);
  out += fmt::format("  max inline        {} B\n", c.max_inline);
  out += fmt::format("  max SGE           {}\n", c.max_sge);
  out += fmt::format("  max QP WR         {}\n", c.max_qp_wr);
  out += fmt::format("  max CQE           {}\n", c.max_cqe);
  out += fmt::format("  max RD/atomic     {}\n", c.max_rd_atomic);
  return out;
}

}  // namespace twinfab::fabric
