// libFuzzer target: the UD channel's datagram parser (mpi/channels/ud_wire.hpp) on any
// bytes, and the receive window's verdicts on the sequence numbers it lets through.
// The parser must never read outside its input, and the window must never crash or
// deliver twice whatever sequence of (possibly forged) datagrams arrives.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "mpi/channels/ud_reliability.hpp"
#include "mpi/channels/ud_wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace twinfab::mpi;
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  UdReceiveWindow receive;
  UdSendWindow send;
  std::vector<std::uint32_t> freed;
  for (std::uint32_t i = 0; i < 8; ++i) send.sent(i, 0.0);
  // The input is a series of datagrams, each prefixed by a byte: its length / 8.
  std::size_t at = 0;
  double now = 0;
  while (at < size) {
    const std::size_t length = std::min<std::size_t>(data[at] * 8u, size - at - 1);
    ++at;
    UdDatagram d;
    const std::span<const std::byte> datagram(bytes + at, length);
    at += length;
    now += 1e-6;
    if (parse_ud_datagram(datagram, 16, 2048 - 72, d) != UdParse::Ok) continue;
    send.acknowledged(d.header.ack, freed);
    if (d.header.kind == UdKind::Nack) (void)send.nacked(d.header.seq, now, 1e-4);
    if (d.header.kind != UdKind::Data) continue;
    switch (receive.classify(d.header.seq, 64)) {
      case UdReceiveWindow::Verdict::Deliver:
        receive.delivered(now);
        while (receive.take_next_held()) receive.delivered(now);
        if (receive.classify(d.header.seq, 64) != UdReceiveWindow::Verdict::Duplicate) __builtin_trap();  // once
        break;
      case UdReceiveWindow::Verdict::Hold:
        receive.hold(d.header.seq, std::vector<std::byte>(datagram.begin(), datagram.end()), now);
        break;
      default:
        break;
    }
    (void)receive.nack_due(now, 1e-4);
  }
  return 0;
}
