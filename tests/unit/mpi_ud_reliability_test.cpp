// Unit tests of the UD channel's pure parts with synthetic packets: the datagram
// parser (mpi/channels/ud_wire.hpp) and the sliding-window reliability
// (mpi/channels/ud_reliability.hpp). A simulated lossy, reordering link between two
// windows checks the end-to-end promise: every packet delivered once, in order.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "mpi/channels/ud_reliability.hpp"
#include "mpi/channels/ud_wire.hpp"

namespace twinfab::mpi {
namespace {

std::vector<std::byte> datagram(UdKind kind, int source, std::uint32_t seq, std::uint32_t ack,
                                std::size_t payload = 0, PacketType type = PacketType::Eager) {
  UdHeader h;
  h.kind = kind;
  h.source = source;
  h.seq = seq;
  h.ack = ack;
  std::vector<std::byte> bytes(sizeof h);
  std::memcpy(bytes.data(), &h, sizeof h);
  if (kind == UdKind::Data) {
    PacketHeader p;
    p.type = type;
    bytes.resize(sizeof h + sizeof p + payload, std::byte{0x5a});
    std::memcpy(bytes.data() + sizeof h, &p, sizeof p);
  }
  return bytes;
}

TEST(UdWire, ParsesEachKindAndRefusesEverythingElse) {
  UdDatagram d;
  EXPECT_EQ(parse_ud_datagram(datagram(UdKind::Data, 3, 7, 2, 100), 4, 2000, d), UdParse::Ok);
  EXPECT_EQ(d.header.seq, 7u);
  EXPECT_EQ(d.header.ack, 2u);
  EXPECT_EQ(d.payload.size(), 100u);
  EXPECT_EQ(d.packet.type, PacketType::Eager);
  for (UdKind k : {UdKind::Ack, UdKind::Nack, UdKind::Probe, UdKind::Stop, UdKind::Wake})
    EXPECT_EQ(parse_ud_datagram(datagram(k, 0, 1, 1), 4, 2000, d), UdParse::Ok) << to_string(k);

  EXPECT_EQ(parse_ud_datagram({}, 4, 2000, d), UdParse::Short);
  auto bytes = datagram(UdKind::Data, 1, 0, 0, 10);
  EXPECT_EQ(parse_ud_datagram(std::span(bytes).first(kUdHeaderBytes + 10), 4, 2000, d), UdParse::Short);
  EXPECT_EQ(parse_ud_datagram(datagram(UdKind::Data, 4, 0, 0), 4, 2000, d), UdParse::BadSource);
  EXPECT_EQ(parse_ud_datagram(datagram(UdKind::Data, -1, 0, 0), 4, 2000, d), UdParse::BadSource);
  EXPECT_EQ(parse_ud_datagram(datagram(UdKind::Data, 0, 0, 0, 2001), 4, 2000, d), UdParse::BadLength);
  EXPECT_EQ(parse_ud_datagram(datagram(UdKind::Data, 0, 0, 0, 0, PacketType::Bye), 4, 2000, d), UdParse::BadPacket);
  auto ack = datagram(UdKind::Ack, 0, 0, 0);
  ack.push_back(std::byte{0});
  EXPECT_EQ(parse_ud_datagram(ack, 4, 2000, d), UdParse::BadLength);
  auto foreign = datagram(UdKind::Ack, 0, 0, 0);
  foreign[0] = std::byte{0x12};
  EXPECT_EQ(parse_ud_datagram(foreign, 4, 2000, d), UdParse::BadMagic);
  auto kind = datagram(UdKind::Ack, 0, 0, 0);
  kind[2] = std::byte{99};
  EXPECT_EQ(parse_ud_datagram(kind, 4, 2000, d), UdParse::BadKind);
}

TEST(UdWire, SequenceOrderWrapsAround) {
  EXPECT_TRUE(seq_before(1, 2));
  EXPECT_FALSE(seq_before(2, 2));
  EXPECT_TRUE(seq_before(0xffffffffu, 0));  // wrapped
  EXPECT_FALSE(seq_before(0, 0xffffffffu));
}

TEST(UdSendWindow, CumulativeAcksFreeSlotsAndStaleOrFutureAcksAreIgnored) {
  UdSendWindow w;
  for (std::uint32_t slot = 10; slot < 14; ++slot) w.sent(slot, 0.0);
  EXPECT_FALSE(w.open(4));
  std::vector<std::uint32_t> freed;
  EXPECT_EQ(w.acknowledged(9, freed), 0u) << "ahead of anything sent: forged or stale";
  EXPECT_EQ(w.acknowledged(2, freed), 2u);
  EXPECT_EQ(freed, (std::vector<std::uint32_t>{10, 11}));
  EXPECT_EQ(w.acknowledged(1, freed), 0u) << "old news";
  EXPECT_TRUE(w.open(4));
  EXPECT_EQ(w.acknowledged(4, freed), 2u);
  EXPECT_TRUE(w.empty());
}

TEST(UdSendWindow, TimeoutsResendUpToTheRetryLimit) {
  UdReliabilityParameters p;
  p.retransmit_timeout = 1.0;
  p.max_retries = 2;
  UdSendWindow w;
  w.sent(5, 0.0);
  std::vector<std::uint32_t> slots;
  EXPECT_TRUE(w.expired(0.5, p, slots));
  EXPECT_TRUE(slots.empty());
  EXPECT_TRUE(w.expired(1.0, p, slots));
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{5}));
  EXPECT_TRUE(w.expired(2.0, p, slots));
  EXPECT_EQ(slots.size(), 2u);
  EXPECT_FALSE(w.expired(3.0, p, slots)) << "a third re-send is beyond max_retries: the peer is gone";
  EXPECT_EQ(w.oldest_retries(), 2u);
}

TEST(UdSendWindow, NackResendsOncePerHoldoff) {
  UdSendWindow w;
  for (std::uint32_t slot = 0; slot < 3; ++slot) w.sent(slot, 0.0);
  EXPECT_EQ(w.nacked(1, 0.1, 0.01), std::optional<std::uint32_t>(1));
  EXPECT_EQ(w.nacked(1, 0.105, 0.01), std::nullopt) << "within the hold-off";
  EXPECT_EQ(w.nacked(1, 0.2, 0.01), std::optional<std::uint32_t>(1));
  EXPECT_EQ(w.nacked(3, 0.2, 0.01), std::nullopt) << "never sent";
}

TEST(UdSendWindow, ProbeAnswerResendsWhatWasSentBeforeTheProbe) {
  UdSendWindow w;
  for (std::uint32_t slot = 0; slot < 4; ++slot) w.sent(slot, 0.0);
  EXPECT_FALSE(w.probe_due(0.001, 0.002));
  EXPECT_TRUE(w.probe_due(0.002, 0.002));
  w.probe_sent();
  EXPECT_FALSE(w.probe_due(0.003, 0.002)) << "one outstanding probe";
  w.sent(4, 0.003);  // after the probe: not covered by its answer
  std::vector<std::uint32_t> freed, slots;
  w.acknowledged(2, freed);  // the answer: packets 0 and 1 arrived
  w.probe_answered(0.004, slots);
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{2, 3}));
  slots.clear();
  w.probe_answered(0.004, slots);
  EXPECT_TRUE(slots.empty()) << "answered once";
}

TEST(UdSendWindow, AnUnansweredProbeIsLeftToTheTimeoutNotRepeated) {
  // A receiver computing outside MPI answers nothing for a second: one Probe, then the
  // timeout's re-send, then one Probe for the re-sent packets -- not one every 2 ms.
  UdReliabilityParameters p;
  p.retransmit_timeout = 0.4;
  p.probe_delay = 0.002;
  UdSendWindow w;
  w.sent(0, 0.0);
  ASSERT_TRUE(w.probe_due(0.002, p.probe_delay));
  w.probe_sent();
  EXPECT_FALSE(w.probe_due(0.004, p.probe_delay));
  EXPECT_FALSE(w.probe_due(0.3, p.probe_delay)) << "probing an unanswering receiver again";
  EXPECT_DOUBLE_EQ(w.deadline(p.retransmit_timeout, p.probe_delay), 0.4) << "the timeout is next";
  std::vector<std::uint32_t> slots;
  ASSERT_TRUE(w.expired(0.4, p, slots));
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{0}));
  EXPECT_FALSE(w.probe_due(0.401, p.probe_delay));
  EXPECT_TRUE(w.probe_due(0.402, p.probe_delay)) << "the re-sent packet may be probed";
}

TEST(UdReceiveWindow, InOrderDuplicatesHoldAndWindow) {
  UdReceiveWindow r;
  using V = UdReceiveWindow::Verdict;
  EXPECT_EQ(r.classify(0, 8), V::Deliver);
  r.delivered(0.0);
  EXPECT_EQ(r.classify(0, 8), V::Duplicate);
  EXPECT_EQ(r.classify(2, 8), V::Hold);
  r.hold(2, {std::byte{2}}, 0.0);
  EXPECT_EQ(r.classify(2, 8), V::Duplicate) << "already held";
  EXPECT_EQ(r.classify(9, 8), V::OutOfWindow);
  EXPECT_FALSE(r.take_next_held()) << "1 is missing";
  EXPECT_EQ(r.classify(1, 8), V::Deliver);
  r.delivered(0.0);
  auto held = r.take_next_held();
  ASSERT_TRUE(held);
  EXPECT_EQ((*held)[0], std::byte{2});
  r.delivered(0.0);
  EXPECT_EQ(r.ack_value(), 3u);
}

TEST(UdReceiveWindow, AcksCoalesceUntilThresholdOrDelay) {
  UdReliabilityParameters p;
  p.ack_after = 3;
  UdReceiveWindow r;
  r.set_ack_delay(0.01);
  r.delivered(0.0);
  r.delivered(0.0);
  EXPECT_FALSE(r.ack_needed(0.005, p));
  EXPECT_TRUE(r.ack_needed(0.01, p)) << "the delay ran out";
  r.delivered(0.0);
  EXPECT_TRUE(r.ack_needed(0.0, p)) << "three owed";
  r.ack_sent();
  EXPECT_FALSE(r.ack_needed(1.0, p));
  EXPECT_EQ(r.ack_deadline(), UdReceiveWindow::kNever);
}

TEST(UdReceiveWindow, GapIsNackedAfterThreePacketsOrTheHoldoffNotOnReordering) {
  UdReceiveWindow r;
  r.hold(1, {}, 0.0);
  EXPECT_FALSE(r.nack_due(0.0001, 0.001)) << "one packet ahead may be a reordering";
  r.hold(2, {}, 0.0);
  EXPECT_FALSE(r.nack_due(0.0002, 0.001));
  r.hold(3, {}, 0.0);
  EXPECT_TRUE(r.nack_due(0.0003, 0.001)) << "three behind the gap: lost";
  EXPECT_FALSE(r.nack_due(0.0004, 0.001)) << "NACKed already";
  EXPECT_TRUE(r.nack_due(0.0014, 0.001)) << "again after the hold-off";
  UdReceiveWindow q;
  q.hold(1, {}, 0.0);
  EXPECT_DOUBLE_EQ(q.nack_deadline(0.001), 0.001);
  EXPECT_TRUE(q.nack_due(0.001, 0.001)) << "a gap that lasts is a loss";
}

TEST(UdSendWindow, AnOverrunResendsWhatIsInFlightExceptTheJustSent) {
  UdSendWindow send;
  std::vector<std::uint32_t> freed, slots;
  for (std::uint32_t i = 0; i < 4; ++i) send.sent(10 + i, 1.0);  // seq 0..3 at t = 1 s
  send.sent(14, 1.5);                                             // seq 4, just sent
  send.acknowledged(1, freed);                                    // seq 0 arrived
  send.overrun(1.5001, 1e-3, slots);
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{11, 12, 13})) << "seq 4 may still be on its way";
  slots.clear();
  send.overrun(1.5002, 1e-3, slots);
  EXPECT_TRUE(slots.empty()) << "a second overrun within the hold-off re-sends nothing";
  send.overrun(1.6, 1e-3, slots);
  EXPECT_EQ(slots, (std::vector<std::uint32_t>{11, 12, 13, 14}));
}

/// Two windows over a link that drops and reorders, driven like the channel drives
/// them: every packet must come out once and in order, whatever the loss.
class LossyLink : public ::testing::TestWithParam<double> {};

TEST_P(LossyLink, EveryPacketOnceInOrder) {
  const double loss = GetParam();
  UdReliabilityParameters p;
  p.window = 16;
  p.ack_after = 4;
  p.ack_delay = 1e-4;
  p.retransmit_timeout = 5e-3;
  p.nack_holdoff = 2e-4;
  p.probe_delay = 2e-4;
  p.max_retries = 1000;
  std::mt19937_64 random(42 + static_cast<unsigned>(loss * 100));
  std::uniform_real_distribution<double> coin(0, 1);
  struct Wire {
    double at;
    UdKind kind;
    std::uint32_t seq;
    std::uint32_t ack;
    std::uint8_t flags;
  };
  std::deque<Wire> to_receiver, to_sender;  // in flight; reordering swaps neighbours
  UdSendWindow send;
  UdReceiveWindow receive;
  receive.set_ack_delay(p.ack_delay);
  const std::uint32_t total = 2000;
  std::uint32_t next_payload = 0, delivered = 0;
  double now = 0;
  const double latency = 1e-5;
  auto transmit = [&](std::deque<Wire>& q, Wire w) {
    if (coin(random) < loss) return;
    w.at = now + latency;
    q.push_back(w);
    if (q.size() > 1 && coin(random) < 0.1) std::swap(q[q.size() - 1], q[q.size() - 2]);  // reorder
  };
  std::vector<std::uint32_t> slots, freed;
  while (delivered < total) {
    ASSERT_LT(now, 100.0) << "no progress: " << delivered << " delivered";
    now += 1e-6;
    while (next_payload < total && send.open(p.window)) {
      const std::uint32_t seq = send.sent(next_payload, now);
      EXPECT_EQ(seq, next_payload);  // slot = payload number = sequence here
      ++next_payload;
      transmit(to_receiver, {0, UdKind::Data, seq, 0, 0});
    }
    while (!to_receiver.empty() && to_receiver.front().at <= now) {
      const Wire w = to_receiver.front();
      to_receiver.pop_front();
      if (w.kind == UdKind::Probe) {
        transmit(to_sender, {0, UdKind::Ack, 0, receive.ack_value(), kUdFlagProbeReply});
        receive.ack_sent();
        continue;
      }
      switch (receive.classify(w.seq, p.window)) {
        case UdReceiveWindow::Verdict::Deliver:
          ASSERT_EQ(w.seq, delivered);
          ++delivered;
          receive.delivered(now);
          while (auto h = receive.take_next_held()) {
            std::uint32_t seq;
            std::memcpy(&seq, h->data(), sizeof seq);
            ASSERT_EQ(seq, delivered) << "held packets come out in order";
            ++delivered;
            receive.delivered(now);
          }
          break;
        case UdReceiveWindow::Verdict::Hold: {
          std::vector<std::byte> copy(sizeof w.seq);
          std::memcpy(copy.data(), &w.seq, sizeof w.seq);
          receive.hold(w.seq, std::move(copy), now);
          break;
        }
        case UdReceiveWindow::Verdict::Duplicate:
          transmit(to_sender, {0, UdKind::Ack, 0, receive.ack_value(), 0});
          receive.ack_sent();
          break;
        case UdReceiveWindow::Verdict::OutOfWindow:
          ADD_FAILURE() << "the sender never exceeds its window";
          break;
      }
      if (receive.nack_due(now, p.nack_holdoff)) {
        transmit(to_sender, {0, UdKind::Nack, receive.ack_value(), receive.ack_value(), 0});
        receive.ack_sent();
      } else if (receive.ack_needed(now, p)) {
        transmit(to_sender, {0, UdKind::Ack, 0, receive.ack_value(), 0});
        receive.ack_sent();
      }
    }
    if (receive.ack_needed(now, p)) {
      transmit(to_sender, {0, UdKind::Ack, 0, receive.ack_value(), 0});
      receive.ack_sent();
    }
    if (receive.nack_due(now, p.nack_holdoff)) {
      transmit(to_sender, {0, UdKind::Nack, receive.ack_value(), receive.ack_value(), 0});
      receive.ack_sent();
    }
    while (!to_sender.empty() && to_sender.front().at <= now) {
      const Wire w = to_sender.front();
      to_sender.pop_front();
      freed.clear();
      send.acknowledged(w.ack, freed);
      slots.clear();
      if (w.kind == UdKind::Nack) {
        if (auto s = send.nacked(w.seq, now, p.nack_holdoff)) slots.push_back(*s);
      } else if ((w.flags & kUdFlagProbeReply) != 0) {
        send.probe_answered(now, slots);
      }
      for (std::uint32_t s : slots) transmit(to_receiver, {0, UdKind::Data, s, 0, 0});
    }
    slots.clear();
    ASSERT_TRUE(send.expired(now, p, slots));
    for (std::uint32_t s : slots) transmit(to_receiver, {0, UdKind::Data, s, 0, 0});
    if (send.probe_due(now, p.probe_delay)) {
      send.probe_sent();
      transmit(to_receiver, {0, UdKind::Probe, 0, 0, 0});
    }
  }
  EXPECT_EQ(delivered, total);
}

INSTANTIATE_TEST_SUITE_P(Loss, LossyLink, ::testing::Values(0.0, 0.01, 0.05, 0.2));

}  // namespace
}  // namespace twinfab::mpi
