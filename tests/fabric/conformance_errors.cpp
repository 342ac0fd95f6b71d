// Conformance: errors, as hardware reports them.
// - RNR retry exceeded; remote access errors (bad rkey, out of bounds, missing access
//   flag) with the QP moving to ERR and later WRs flushed (on iWARP: the target
//   terminates the connection, see check_remote_access_error); bad lkey.
// - Posting in RESET/INIT, illegal state transitions, malformed work requests,
//   opcodes the device lacks.
// - Bad address blobs at connect() and create_address_handle().
// - Set-up errors: bad memory registration, transports and SRQs the device lacks.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>

#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

class Errors : public ConformanceTest {};

/// The result of a call that must refuse bad input: a non-Ok status (checked by the
/// caller) with a reason, or a fabric::Error with a message.
struct Refusal {
  bool threw = false;
  Status status = Status::Ok;
  std::string why;
};

Refusal refusal_of(const std::function<Status()>& call, const std::function<std::string()>& last_error) {
  Refusal r;
  try {
    r.status = call();
    if (r.status != Status::Ok) r.why = last_error();
  } catch (const fabric::Error& e) {
    r.threw = true;
    r.status = e.status();
    r.why = e.what();
  }
  return r;
}

// ------------------------------------------------------------------ RNR

TEST_P(Errors, RnrRetryExceededFailsTheSendAndMovesTheQpToError) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    if (!has_rnr_flow_control(a)) GTEST_SKIP() << lacks("receiver-not-ready flow control (iWARP)");
    QpConfig config = qp_config(Transport::RC);
    config.rnr_retry = 1;      // one retry, then fail
    config.min_rnr_timer = 1;  // 0.01 ms (the responder's value is the one used)
    auto pair = make_connected_pair(a, b, config, config);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, 64);
    src.fill_pattern(21);
    const Sge s = src.sge(0, 64);
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 1, .sg_list = std::span(&s, 1)}));
    ASSERT_TRUE(posted(*pair->a.qp, SendWr{.wr_id = 2, .sg_list = std::span(&s, 1)}));

    auto wc = poll_n(a, *pair->a.send_cq, 2);
    ASSERT_EQ(wc.size(), 2u) << "a send to a peer without receives must fail after rnr_retry retries";
    EXPECT_EQ(wc[0].wr_id, 1u);
    EXPECT_EQ(wc[0].status, WcStatus::RnrRetryExceededError) << describe(wc[0]);
    EXPECT_EQ(wc[1].wr_id, 2u);
    EXPECT_EQ(wc[1].status, WcStatus::WrFlushError) << describe(wc[1]);
    EXPECT_EQ(pair->a.qp->state(), QpState::Error);
    EXPECT_TRUE(poll_now(*pair->b.recv_cq).empty());
  });
}

// ------------------------------------------------------------------ remote access errors

/// Checks that the faulty WR `make_bad` builds (from the pair's local buffer) is refused
/// and transfers nothing: `target` (with its guard bytes) unchanged and, for a read, the
/// local buffer unchanged.
///
/// InfiniBand/RoCE (remote_access_errors_complete_the_faulty_wr): the faulty WR (wr_id
/// 1) and a valid RDMA write posted behind it (wr_id 2) complete with
/// RemoteAccessError and WrFlushError, the initiator's QP is in ERR, and a WR posted
/// afterwards is accepted and flushed.
///
/// iWARP: the target refuses the access with a TERMINATE and closes the connection.
/// The faulty WR completes with RemoteAccessError or, once the connection is gone,
/// WrFlushError; a write may also complete Success (iWARP writes are not acknowledged:
/// completion means "handed to TCP"). Both QPs reach ERR within kTimeout. A WR posted
/// afterwards is flushed, or refused at post with InvalidState (iWARP providers do
/// not flush WRs posted after the connection ended). No WR is posted behind the faulty
/// one: whether it is sent, flushed or lost depends on when the provider closes the
/// connection (siw ignores WRs posted between its QP entering ERR and rdma_cm reporting
/// the disconnect: they never complete).
///
/// `on_iwarp` = SkipWhenServed: an iWARP device that serves the faulty WR (Success, the
/// connection stays up) skips the test, naming the check the device does not enforce.
enum class OnIwarp { MustRefuse, SkipWhenServed };

void check_remote_access_error(Device& a, Device& b, RegisteredBuffer& target,
                               const std::function<SendWr(RegisteredBuffer& local, Sge& sge)>& make_bad,
                               OnIwarp on_iwarp = OnIwarp::MustRefuse) {
  auto pair = make_connected_pair(a, b, Transport::RC);
  ASSERT_TRUE(pair);
  RegisteredBuffer local(a, 256);
  RegisteredBuffer spare(b, 256);
  local.fill_pattern(22);
  const std::vector<uint8_t> before(target.with_guards().begin(), target.with_guards().end());
  const std::vector<uint8_t> local_before(local.bytes().begin(), local.bytes().end());
  const bool nak = remote_access_errors_complete_the_faulty_wr(a);

  Sge bad_sge{};
  SendWr bad = make_bad(local, bad_sge);
  bad.wr_id = 1;
  bad.flags = SendFlags::Signaled;
  const bool is_read = bad.opcode == Opcode::RdmaRead;
  ASSERT_TRUE(posted(*pair->a.qp, bad));
  const Sge good_sge = local.sge(0, 16);
  const SendWr good{.wr_id = 2, .opcode = Opcode::RdmaWrite, .sg_list = std::span(&good_sge, 1),
                    .remote_addr = spare.remote_addr(0), .rkey = spare.rkey()};
  SendWr late = good;
  late.wr_id = 3;

  if (nak) {
    ASSERT_TRUE(posted(*pair->a.qp, good));
    auto wc = poll_n(a, *pair->a.send_cq, 2);
    ASSERT_EQ(wc.size(), 2u);
    EXPECT_EQ(wc[0].wr_id, 1u);
    EXPECT_EQ(wc[0].status, WcStatus::RemoteAccessError) << describe(wc[0]);
    EXPECT_EQ(wc[0].qp_num, pair->a.qp_num());
    EXPECT_EQ(wc[1].wr_id, 2u);
    EXPECT_EQ(wc[1].status, WcStatus::WrFlushError) << describe(wc[1]) << ": WRs behind the failed one are flushed";
    EXPECT_EQ(pair->a.qp->state(), QpState::Error) << "a remote access error moves the initiator's QP to ERR";

    // In ERR, a newly posted WR is accepted and flushed.
    ASSERT_TRUE(posted(*pair->a.qp, late));
    auto flushed = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(flushed.size(), 1u) << "a WR posted in ERR must complete (flushed)";
    EXPECT_EQ(flushed[0].wr_id, 3u);
    EXPECT_EQ(flushed[0].status, WcStatus::WrFlushError) << describe(flushed[0]);
  } else {
    auto wc = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u) << "the faulty WR did not complete, not even flushed, within " << kTimeout << " s";
    EXPECT_EQ(wc[0].wr_id, 1u);
    EXPECT_EQ(wc[0].qp_num, pair->a.qp_num());
    if (on_iwarp == OnIwarp::SkipWhenServed && wc[0].status == WcStatus::Success &&
        !wait_for_state(a, *pair->a.qp, QpState::Error, kQuietWindow)) {
      GTEST_SKIP() << "this iWARP device served the faulty " << fabric::to_string(bad.opcode)
                   << " (Success, and the connection stayed up): it does not enforce this access check (Linux "
                      "soft-iWARP checks the region an RDMA read request names for its rkey and bounds only, not "
                      "for the RemoteRead flag: siw_qp_tx.c, siw_qp_sq_proc_tx)";
    }
    if (is_read) {
      EXPECT_TRUE(wc[0].status == WcStatus::RemoteAccessError || wc[0].status == WcStatus::WrFlushError)
          << describe(wc[0]) << ": a refused read must fail";
    } else {
      EXPECT_TRUE(wc[0].status == WcStatus::RemoteAccessError || wc[0].status == WcStatus::WrFlushError ||
                  wc[0].status == WcStatus::Success)
          << describe(wc[0]);
    }
    EXPECT_TRUE(wait_for_state(a, *pair->a.qp, QpState::Error))
        << "the target must terminate the connection, moving the initiator's QP to ERR within " << kTimeout
        << " s; it is in " << fabric::to_string(pair->a.qp->state());
    EXPECT_TRUE(wait_for_state(b, *pair->b.qp, QpState::Error))
        << "the target's QP must reach ERR within " << kTimeout << " s after refusing the access; it is in "
        << fabric::to_string(pair->b.qp->state());

    // In ERR, a newly posted WR is flushed, or refused at post.
    const Status s = pair->a.qp->post_send(late);
    if (s == Status::Ok) {
      auto flushed = poll_n(a, *pair->a.send_cq, 1);
      ASSERT_EQ(flushed.size(), 1u) << "a WR accepted in ERR must complete (flushed)";
      EXPECT_EQ(flushed[0].wr_id, 3u);
      EXPECT_EQ(flushed[0].status, WcStatus::WrFlushError) << describe(flushed[0]);
    } else {
      EXPECT_EQ(s, Status::InvalidState) << pair->a.qp->last_error();
      EXPECT_FALSE(pair->a.qp->last_error().empty());
    }
    auto extra = poll_now(*pair->a.send_cq);
    EXPECT_TRUE(extra.empty()) << "unexpected completion " << describe(extra.front());
  }

  const std::vector<uint8_t> after(target.with_guards().begin(), target.with_guards().end());
  EXPECT_TRUE(before == after) << "the target memory (or the bytes around it) changed";
  if (is_read) {
    EXPECT_TRUE(std::equal(local_before.begin(), local_before.end(), local.bytes().begin()))
        << "a refused read wrote into the local buffer";
  }
}

constexpr size_t kTargetBytes = 128;
constexpr size_t kGuard = 64;

TEST_P(Errors, InvalidRkeyIsARemoteAccessError) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    RegisteredBuffer target(b, kTargetBytes, fabric::kAllAccess, kGuard);
    target.fill(0x33);
    SCOPED_TRACE("RDMA write with an invalid rkey");
    check_remote_access_error(a, b, target, [&](RegisteredBuffer& local, Sge& sge) {
      sge = local.sge(0, 16);
      return SendWr{.opcode = Opcode::RdmaWrite, .sg_list = std::span(&sge, 1), .remote_addr = target.remote_addr(0),
                    .rkey = ~target.rkey()};
    });
  });
}

TEST_P(Errors, OutOfBoundsWriteIsARemoteAccessError) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    RegisteredBuffer target(b, kTargetBytes, fabric::kAllAccess, kGuard);
    target.fill(0x33);
    SCOPED_TRACE("RDMA write of 9 bytes at region end - 8 (one byte past the region)");
    check_remote_access_error(a, b, target, [&](RegisteredBuffer& local, Sge& sge) {
      sge = local.sge(0, 9);
      return SendWr{.opcode = Opcode::RdmaWrite, .sg_list = std::span(&sge, 1),
                    .remote_addr = target.remote_addr(kTargetBytes - 8), .rkey = target.rkey()};
    });
  });
}

TEST_P(Errors, OutOfBoundsReadIsARemoteAccessError) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    RegisteredBuffer target(b, kTargetBytes, fabric::kAllAccess, kGuard);
    target.fill(0x33);
    SCOPED_TRACE("RDMA read of 9 bytes at region end - 8 (one byte past the region)");
    check_remote_access_error(a, b, target, [&](RegisteredBuffer& local, Sge& sge) {
      sge = local.sge(0, 9);
      return SendWr{.opcode = Opcode::RdmaRead, .sg_list = std::span(&sge, 1),
                    .remote_addr = target.remote_addr(kTargetBytes - 8), .rkey = target.rkey()};
    });
  });
}

TEST_P(Errors, WriteWithoutRemoteWriteAccessIsARemoteAccessError) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    RegisteredBuffer target(b, kTargetBytes, Access::LocalWrite | Access::RemoteRead, kGuard);
    target.fill(0x33);
    SCOPED_TRACE("RDMA write into a region registered without RemoteWrite");
    check_remote_access_error(a, b, target, [&](RegisteredBuffer& local, Sge& sge) {
      sge = local.sge(0, 16);
      return SendWr{.opcode = Opcode::RdmaWrite, .sg_list = std::span(&sge, 1), .remote_addr = target.remote_addr(0),
                    .rkey = target.rkey()};
    });
  });
}

TEST_P(Errors, ReadWithoutRemoteReadAccessIsARemoteAccessError) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    RegisteredBuffer target(b, kTargetBytes, Access::LocalWrite | Access::RemoteWrite, kGuard);
    target.fill(0x33);
    SCOPED_TRACE("RDMA read from a region registered without RemoteRead");
    check_remote_access_error(
        a, b, target,
        [&](RegisteredBuffer& local, Sge& sge) {
          sge = local.sge(0, 16);
          return SendWr{.opcode = Opcode::RdmaRead, .sg_list = std::span(&sge, 1),
                        .remote_addr = target.remote_addr(0), .rkey = target.rkey()};
        },
        OnIwarp::SkipWhenServed);
  });
}

TEST_P(Errors, AtomicWithoutRemoteAtomicAccessIsARemoteAccessError) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    if (!a.capabilities().atomics) GTEST_SKIP() << lacks("8-byte remote atomics");
    RegisteredBuffer target(b, kTargetBytes, Access::LocalWrite | Access::RemoteWrite | Access::RemoteRead, kGuard);
    target.fill(0x33);
    const uint64_t word = target.word(0);
    SCOPED_TRACE("CAS on a region registered without RemoteAtomic");
    check_remote_access_error(a, b, target, [&](RegisteredBuffer& local, Sge& sge) {
      sge = local.sge(0, 8);
      return SendWr{.opcode = Opcode::AtomicCompareSwap, .sg_list = std::span(&sge, 1),
                    .remote_addr = target.remote_addr(0), .rkey = target.rkey(), .compare_add = word, .swap = 0};
    });
  });
}

// ------------------------------------------------------------------ bad lkey

TEST_P(Errors, BadLkeyFailsLocallyAndTransfersNothing) {
  // A backend may report a bad lkey as an error completion or refuse the WR at post
  // time with a non-Ok status. Either way nothing may reach the peer. The completion
  // status is LocalProtectionError (the InfiniBand specification's choice, and sim's), or
  // LocalQpOperationError, which rxe and siw report for a WR whose local SGE they
  // cannot use.
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer src(a, 64);
    RegisteredBuffer dst(b, 64);
    src.fill_pattern(23);
    dst.fill(0xcd);
    const Sge r = dst.sge(0, 64);
    ASSERT_TRUE(posted(pair->b, RecvWr{1, std::span(&r, 1)}));
    Sge s = src.sge(0, 64);
    s.lkey = ~s.lkey;
    Status status = pair->a.qp->post_send(SendWr{.wr_id = 2, .sg_list = std::span(&s, 1)});
    if (status == Status::Ok) {
      auto wc = poll_n(a, *pair->a.send_cq, 1);
      ASSERT_EQ(wc.size(), 1u) << "a send with a bad lkey must complete (with an error)";
      EXPECT_EQ(wc[0].wr_id, 2u);
      EXPECT_TRUE(wc[0].status == WcStatus::LocalProtectionError || wc[0].status == WcStatus::LocalQpOperationError)
          << describe(wc[0]) << ": a bad lkey is a local error (IBV_WC_LOC_PROT_ERR or IBV_WC_LOC_QP_OP_ERR)";
      if (remote_access_errors_complete_the_faulty_wr(a)) {
        EXPECT_EQ(pair->a.qp->state(), QpState::Error) << "an error completion moves the QP to ERR";
      } else {
        // iWARP: the provider closes the connection after the error; the QP reaches ERR
        // when that close is seen (through rdma_cm on the verbs backend).
        EXPECT_TRUE(wait_for_state(a, *pair->a.qp, QpState::Error))
            << "the QP did not reach ERR within " << kTimeout << " s of the error completion; it is in "
            << fabric::to_string(pair->a.qp->state());
      }
    } else {
      EXPECT_FALSE(pair->a.qp->last_error().empty()) << "refused at post with " << fabric::to_string(status)
                                                     << " but last_error() is empty";
    }
    auto at_peer = poll_for(b, *pair->b.recv_cq);
    for (const WorkCompletion& wc : at_peer) {
      EXPECT_NE(wc.status, WcStatus::Success) << "the message with a bad lkey was delivered: " << describe(wc);
    }
    for (uint8_t byte : dst.bytes()) ASSERT_EQ(byte, 0xcd) << "bytes of a send with a bad lkey reached the peer";
  });
}

// ------------------------------------------------------------------ state machine

TEST_P(Errors, PostingInResetIsInvalidState) {
  run_on_backend([&](Device& a, Device&) {
    const auto& caps = a.capabilities();
    RegisteredBuffer buffer(a, 256);
    const Sge sge = buffer.sge(0, 256);
    for (Transport t : {Transport::RC, Transport::UC, Transport::UD}) {
      if ((t == Transport::RC && !caps.rc) || (t == Transport::UC && !caps.uc) || (t == Transport::UD && !caps.ud)) {
        continue;
      }
      SCOPED_TRACE(std::string("transport ") + std::string(fabric::to_string(t)));
      Endpoint ep = make_endpoint(a, qp_config(t));
      ASSERT_EQ(ep.qp->state(), QpState::Reset) << "a new QP starts in RESET";
      EXPECT_EQ(ep.qp->post_send(SendWr{.wr_id = 1, .sg_list = std::span(&sge, 1)}), Status::InvalidState);
      EXPECT_FALSE(ep.qp->last_error().empty());
      EXPECT_EQ(ep.qp->post_recv(RecvWr{2, std::span(&sge, 1)}), Status::InvalidState);
      EXPECT_FALSE(ep.qp->last_error().empty());

      // INIT: receives may be posted, sends not yet.
      ASSERT_EQ(ep.qp->to_init(), Status::Ok) << ep.qp->last_error();
      EXPECT_EQ(ep.qp->post_send(SendWr{.wr_id = 3, .sg_list = std::span(&sge, 1)}), Status::InvalidState)
          << "posting a send before RTS";
      EXPECT_EQ(ep.qp->post_recv(RecvWr{4, std::span(&sge, 1)}), Status::Ok) << ep.qp->last_error();
      EXPECT_TRUE(poll_now(*ep.send_cq).empty()) << "a refused post must not complete";
    }
  });
}

TEST_P(Errors, IllegalStateTransitionsAreInvalidState) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    Endpoint ep = make_endpoint(a, qp_config(Transport::RC));
    Endpoint peer = make_endpoint(b, qp_config(Transport::RC));
    const Address remote = peer.qp->local_address();

    EXPECT_EQ(ep.qp->to_rts(), Status::InvalidState) << "RESET -> RTS";
    EXPECT_EQ(ep.qp->state(), QpState::Reset);
    EXPECT_FALSE(ep.qp->last_error().empty());
    EXPECT_EQ(ep.qp->to_rtr(&remote), Status::InvalidState) << "RESET -> RTR";
    EXPECT_EQ(ep.qp->state(), QpState::Reset);
    ASSERT_EQ(ep.qp->to_init(), Status::Ok) << ep.qp->last_error();
    EXPECT_EQ(ep.qp->to_rts(), Status::InvalidState) << "INIT -> RTS";
    EXPECT_EQ(ep.qp->state(), QpState::Init);
    EXPECT_EQ(ep.qp->to_error(), Status::Ok) << "any state -> ERR";
    EXPECT_EQ(ep.qp->state(), QpState::Error);
    EXPECT_EQ(ep.qp->to_rts(), Status::InvalidState) << "ERR -> RTS";
    EXPECT_EQ(ep.qp->to_reset(), Status::Ok) << "any state -> RESET";
    EXPECT_EQ(ep.qp->state(), QpState::Reset);
    // RESET again: a normal connection still works. (A connection-manager QP is not
    // expected to reconnect after a reset: rdma_cm ids connect once.)
    if (!a.capabilities().requires_connection_manager) {
      ASSERT_TRUE(connect_endpoints(ep, peer));
    }
  });
}

// ------------------------------------------------------------------ malformed WRs, missing opcodes

TEST_P(Errors, MalformedWorkRequestsAreRefusedAtPost) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer local(a, 4096);
    RegisteredBuffer remote(b, 64);
    local.fill_pattern(24);
    QueuePair& qp = *pair->a.qp;
    auto expect_invalid = [&](const SendWr& wr, const char* what) {
      Status s = qp.post_send(wr);
      EXPECT_EQ(s, Status::InvalidArgument) << what;
      if (s != Status::Ok) {
        EXPECT_FALSE(qp.last_error().empty()) << what;
      }
    };

    std::vector<Sge> many;
    for (uint32_t i = 0; i <= caps.max_sge; ++i) many.push_back(local.sge(i, 1));
    expect_invalid(SendWr{.wr_id = 1, .sg_list = many}, "more SGEs than the device's max_sge");

    const uint32_t too_long = caps.max_inline + 1;
    if (too_long <= local.size()) {
      const Sge s = local.sge(0, too_long);
      expect_invalid(SendWr{.wr_id = 2, .flags = SendFlags::Signaled | SendFlags::Inline, .sg_list = std::span(&s, 1)},
                     "inline payload above max_inline");
    }
    if (caps.atomics) {
      const Sge four = local.sge(0, 4);
      expect_invalid(SendWr{.wr_id = 3, .opcode = Opcode::AtomicFetchAdd, .sg_list = std::span(&four, 1),
                            .remote_addr = remote.remote_addr(0), .rkey = remote.rkey(), .compare_add = 1},
                     "atomic with a 4-byte SGE");
    }

    // A value cast to Opcode that names none (both backends posted it as a Send).
    const Sge eight = local.sge(0, 8);
    expect_invalid(SendWr{.wr_id = 4, .opcode = static_cast<Opcode>(99), .sg_list = std::span(&eight, 1)},
                   "opcode 99");
    EXPECT_NE(qp.last_error().find("opcode 99"), std::string::npos) << qp.last_error();

    // Nothing was queued, and the QP still works.
    EXPECT_TRUE(poll_now(*pair->a.send_cq).empty()) << "a refused WR produced a completion";
    EXPECT_EQ(qp.state(), QpState::ReadyToSend);
    RegisteredBuffer dst(b, 64);
    const Sge r = dst.sge(0, 64);
    const Sge s = local.sge(0, 64);
    ASSERT_TRUE(posted(pair->b, RecvWr{5, std::span(&r, 1)}));
    ASSERT_TRUE(posted(qp, SendWr{.wr_id = 6, .sg_list = std::span(&s, 1)}));
    auto wc = poll_n(a, *pair->a.send_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].wr_id, 6u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
  });
}

TEST_P(Errors, MisalignedRemoteAtomicIsRefusedAtPost) {
  // queue_pair.hpp: post_send returns InvalidArgument for an "atomic not 8 bytes or
  // misaligned". (Verbs hardware instead accepts the post and completes it with
  // IBV_WC_REM_INV_REQ_ERR; the contract asks backends to check at post time.)
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (!caps.atomics) GTEST_SKIP() << lacks("8-byte remote atomics");
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer local(a, 64);
    RegisteredBuffer remote(b, 64);
    remote.fill(0x44);
    const Sge eight = local.sge(0, 8);
    Status s = pair->a.qp->post_send(SendWr{.wr_id = 1, .opcode = Opcode::AtomicFetchAdd, .sg_list = std::span(&eight, 1),
                                            .remote_addr = remote.remote_addr(4), .rkey = remote.rkey(), .compare_add = 1});
    EXPECT_EQ(s, Status::InvalidArgument) << "FAA at a remote address that is not 8-byte aligned";
    if (s == Status::Ok) {
      auto wc = poll_n(a, *pair->a.send_cq, 1);
      if (!wc.empty()) ADD_FAILURE() << "accepted at post, then completed as " << describe(wc[0]);
    } else {
      EXPECT_FALSE(pair->a.qp->last_error().empty());
      EXPECT_EQ(pair->a.qp->state(), QpState::ReadyToSend);
    }
    for (uint8_t byte : remote.bytes()) ASSERT_EQ(byte, 0x44) << "a misaligned atomic changed the target";
  });
}

TEST_P(Errors, OpcodesTheDeviceLacksAreUnsupported) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    if (caps.atomics && caps.send_with_imm && caps.write_with_imm) {
      GTEST_SKIP() << "device has every optional opcode (atomics, send/write with immediate): nothing to refuse";
    }
    auto pair = make_connected_pair(a, b, Transport::RC);
    ASSERT_TRUE(pair);
    RegisteredBuffer local(a, 64);
    RegisteredBuffer remote(b, 64);
    QueuePair& qp = *pair->a.qp;
    const Sge eight = local.sge(0, 8);
    auto expect_unsupported = [&](const SendWr& wr) {
      EXPECT_EQ(qp.post_send(wr), Status::Unsupported) << fabric::to_string(wr.opcode);
      EXPECT_FALSE(qp.last_error().empty());
    };
    if (!caps.atomics) {
      expect_unsupported(SendWr{.wr_id = 1, .opcode = Opcode::AtomicCompareSwap, .sg_list = std::span(&eight, 1),
                                .remote_addr = remote.remote_addr(0), .rkey = remote.rkey()});
      expect_unsupported(SendWr{.wr_id = 2, .opcode = Opcode::AtomicFetchAdd, .sg_list = std::span(&eight, 1),
                                .remote_addr = remote.remote_addr(0), .rkey = remote.rkey()});
    }
    if (!caps.send_with_imm) {
      expect_unsupported(SendWr{.wr_id = 3, .opcode = Opcode::SendWithImm, .sg_list = std::span(&eight, 1)});
    }
    if (!caps.write_with_imm) {
      expect_unsupported(SendWr{.wr_id = 4, .opcode = Opcode::RdmaWriteWithImm, .sg_list = std::span(&eight, 1),
                                .remote_addr = remote.remote_addr(0), .rkey = remote.rkey()});
    }
    EXPECT_TRUE(poll_now(*pair->a.send_cq).empty());
    EXPECT_EQ(qp.state(), QpState::ReadyToSend);
  });
}

// ------------------------------------------------------------------ address blobs

/// Bad blobs for a QP of `transport` built from a valid blob `good` of that transport.
std::vector<std::pair<std::string, Address>> bad_blobs(const Address& good, const std::string& backend,
                                                       Transport transport) {
  std::vector<std::pair<std::string, Address>> out;
  const auto bytes = good.bytes();
  std::span<const std::byte> payload;
  std::string why;
  if (good.parse(backend, transport, payload, why) == Status::Ok) {
    const Transport other = transport == Transport::UD ? Transport::RC : Transport::UD;
    out.emplace_back("blob of another transport", Address::make(backend, other, payload));
    out.emplace_back("blob of another backend", Address::make(backend == "sim" ? "verbs" : "sim", transport, payload));
  } else {
    ADD_FAILURE() << "the device's own blob does not parse: " << why;
  }
  out.emplace_back("blob truncated by one byte", Address::from_bytes(bytes.first(bytes.size() - 1)));
  out.emplace_back("blob truncated to 5 bytes", Address::from_bytes(bytes.first(std::min<size_t>(5, bytes.size()))));
  std::vector<std::byte> garbage(48);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<std::byte>(pattern_byte(99, i));
  out.emplace_back("garbage bytes", Address::from_bytes(garbage));
  out.emplace_back("empty blob", Address{});
  return out;
}

TEST_P(Errors, BadAddressBlobsAreRefusedByConnect) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.rc) GTEST_SKIP() << lacks("RC");
    Endpoint ep = make_endpoint(a, qp_config(Transport::RC));
    Endpoint peer = make_endpoint(b, qp_config(Transport::RC));
    const Address good = peer.qp->local_address();
    auto blobs = bad_blobs(good, caps.backend, Transport::RC);
    if (caps.ud) {
      Endpoint ud = make_endpoint(b, qp_config(Transport::UD));
      blobs.emplace_back("address of a UD QP", ud.qp->local_address());
    }
    for (const auto& [what, blob] : blobs) {
      SCOPED_TRACE(what);
      Refusal r = refusal_of([&] { return ep.qp->connect(&blob); }, [&] { return ep.qp->last_error(); });
      EXPECT_EQ(r.status, Status::InvalidArgument) << (r.threw ? "fabric::Error: " : "status, last_error: ") << r.why;
      EXPECT_FALSE(r.why.empty()) << "refused without saying why";
      EXPECT_NE(ep.qp->state(), QpState::ReadyToSend);
    }
    // Nothing was damaged: the same QP still connects with the right blob.
    ASSERT_TRUE(connect_endpoints(ep, peer));
    RegisteredBuffer src(a, 16), dst(b, 16);
    const Sge r = dst.sge(0, 16), s = src.sge(0, 16);
    ASSERT_TRUE(posted(peer, RecvWr{1, std::span(&r, 1)}));
    ASSERT_TRUE(posted(*ep.qp, SendWr{.wr_id = 2, .sg_list = std::span(&s, 1)}));
    auto wc = poll_n(b, *peer.recv_cq, 1);
    ASSERT_EQ(wc.size(), 1u);
    EXPECT_EQ(wc[0].status, WcStatus::Success) << describe(wc[0]);
  });
}

TEST_P(Errors, BadAddressBlobsAreRefusedByCreateAddressHandle) {
  run_on_backend([&](Device& a, Device& b) {
    const auto& caps = a.capabilities();
    if (!caps.ud) GTEST_SKIP() << lacks("UD");
    Endpoint peer = make_endpoint(b, qp_config(Transport::UD));
    ASSERT_TRUE(activate_ud(peer));
    auto blobs = bad_blobs(peer.qp->local_address(), caps.backend, Transport::UD);
    if (caps.rc) {
      Endpoint rc = make_endpoint(b, qp_config(Transport::RC));
      blobs.emplace_back("address of an RC QP", rc.qp->local_address());
    }
    for (const auto& [what, blob] : blobs) {
      SCOPED_TRACE(what);
      try {
        auto ah = a.create_address_handle(blob);
        ADD_FAILURE() << "create_address_handle accepted it";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::InvalidArgument));
      }
    }
    auto ah = a.create_address_handle(peer.qp->local_address());
    ASSERT_TRUE(ah);
    EXPECT_EQ(ah->remote_qp_num(), peer.qp_num());
  });
}

// ------------------------------------------------------------------ set-up errors

TEST_P(Errors, BadMemoryRegistrationThrowsInvalidArgument) {
  run_on_backend([&](Device& a, Device&) {
    const auto& caps = a.capabilities();
    std::vector<uint64_t> storage(8);
    void* buffer = storage.data();
    auto expect_invalid = [&](void* addr, size_t length, const char* what, Access access = fabric::kAllAccess) {
      try {
        auto mr = a.register_memory(addr, length, access);
        ADD_FAILURE() << what << ": registered";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::InvalidArgument)) << what;
      }
    };
    expect_invalid(nullptr, 64, "null address");
    expect_invalid(buffer, 0, "zero length");
    expect_invalid(reinterpret_cast<void*>(~uintptr_t{0} - 15), 64, "range wrapping the address space");
    if (caps.max_mr_size < SIZE_MAX) expect_invalid(buffer, caps.max_mr_size + 1, "length above max_mr_size");
    // Access flags verbs refuses (the simulator accepted them, so the backends differed).
    expect_invalid(buffer, 64, "RemoteWrite without LocalWrite", Access::RemoteWrite);
    expect_invalid(buffer, 64, "RemoteAtomic without LocalWrite", Access::RemoteAtomic | Access::RemoteRead);
    expect_invalid(buffer, 64, "bits that are no Access flag", static_cast<Access>(0xffff0000u));
    // A valid registration still works afterwards.
    auto mr = a.register_memory(buffer, 64, fabric::kAllAccess);
    ASSERT_TRUE(mr);
    EXPECT_EQ(mr->addr(), buffer);
    EXPECT_EQ(mr->length(), 64u);
  });
}

TEST_P(Errors, TransportsAndSrqTheDeviceLacksThrowUnsupported) {
  run_on_backend([&](Device& a, Device&) {
    const auto& caps = a.capabilities();
    std::vector<Transport> missing;
    if (!caps.rc) missing.push_back(Transport::RC);
    if (!caps.uc) missing.push_back(Transport::UC);
    if (!caps.ud) missing.push_back(Transport::UD);
    if (missing.empty() && caps.srq) GTEST_SKIP() << "device has RC, UC, UD and SRQ: nothing to refuse";
    auto cq = a.create_cq(16);
    for (Transport t : missing) {
      SCOPED_TRACE(std::string("transport ") + std::string(fabric::to_string(t)));
      QpConfig config = qp_config(t);
      config.send_cq = cq.get();
      config.recv_cq = cq.get();
      try {
        auto qp = a.create_qp(config);
        ADD_FAILURE() << "created a QP of a transport the capabilities deny";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::Unsupported));
      }
    }
    if (!caps.srq) {
      try {
        auto srq = a.create_srq(16, 1);
        ADD_FAILURE() << "created an SRQ although capabilities().srq is false";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::Unsupported));
      }
    }
  });
}

// A QP's CQs and SRQ must be the creating device's: the simulator pushed completions
// into the other device's CQ, and a verbs kernel looks them up by handle in the
// caller's context, where the number may name an unrelated object.
TEST_P(Errors, CqsAndSrqsOfAnotherDeviceAreRefusedByCreateQp) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto own = a.create_cq(16);
    auto theirs = b.create_cq(16);
    std::unique_ptr<SharedReceiveQueue> their_srq;
    if (a.capabilities().srq && b.capabilities().srq) their_srq = b.create_srq(16, 1);
    const std::pair<const char*, std::function<void(QpConfig&)>> bad[] = {
        {"send_cq", [&](QpConfig& c) { c.send_cq = theirs.get(); }},
        {"recv_cq", [&](QpConfig& c) { c.recv_cq = theirs.get(); }},
        {"srq", [&](QpConfig& c) { c.srq = their_srq.get(); }},
    };
    for (const auto& [field, change] : bad) {
      if (std::string_view(field) == "srq" && !their_srq) continue;
      QpConfig config = qp_config(Transport::RC);
      config.send_cq = config.recv_cq = own.get();
      change(config);
      try {
        auto qp = a.create_qp(config);
        ADD_FAILURE() << field << " of the other device: created";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::InvalidArgument)) << field;
        EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
      }
    }
    // The same objects on their own device are fine.
    QpConfig config = qp_config(Transport::RC);
    config.send_cq = config.recv_cq = theirs.get();
    config.srq = their_srq.get();
    EXPECT_NO_THROW(b.create_qp(config));
  });
}

// QP settings outside their verbs encodings, and a transport value that names none, are
// refused at create_qp (the simulator took ack_timeout = 200 as 4.096 us * 2^200).
TEST_P(Errors, QpSettingsOutsideTheirVerbsEncodingsAreRefused) {
  run_on_backend([&](Device& a, Device&) {
    auto cq = a.create_cq(16);
    // Each entry changes one field of a valid RC config.
    const std::pair<const char*, std::function<void(QpConfig&)>> bad[] = {
        {"ack_timeout 32", [](QpConfig& c) { c.ack_timeout = 32; }},
        {"min_rnr_timer 77", [](QpConfig& c) { c.min_rnr_timer = 77; }},
        {"retry_count 8", [](QpConfig& c) { c.retry_count = 8; }},
        {"rnr_retry 9", [](QpConfig& c) { c.rnr_retry = 9; }},
        {"transport 9", [](QpConfig& c) { c.transport = static_cast<Transport>(9); }},
    };
    for (const auto& [what, change] : bad) {
      QpConfig config = qp_config(Transport::RC);
      change(config);
      config.send_cq = config.recv_cq = cq.get();
      try {
        auto qp = a.create_qp(config);
        ADD_FAILURE() << what << ": created";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::InvalidArgument)) << what << ": " << e.what();
      }
    }
  });
}

// connect() on a QP in ERR is refused with a reason (the simulator returned Ok and did
// nothing); the QP stays in ERR.
TEST_P(Errors, ConnectInErrIsRefused) {
  run_on_backend([&](Device& a, Device& b) {
    if (!a.capabilities().rc) GTEST_SKIP() << lacks("RC");
    auto pair = make_connected_pair(a, b, qp_config(Transport::RC), qp_config(Transport::RC));
    ASSERT_TRUE(pair);
    ASSERT_EQ(pair->a.qp->to_error(), Status::Ok);
    const fabric::Address peer = pair->b.qp->local_address();
    EXPECT_EQ(pair->a.qp->connect(&peer), Status::InvalidState);
    EXPECT_FALSE(pair->a.qp->last_error().empty());
    EXPECT_EQ(pair->a.qp->state(), QpState::Error);
  });
}

// A NaN deadline compares false with every time: a wait for it never ended (the
// simulator spun with its clock frozen).
TEST_P(Errors, ANanDeadlineOrDurationIsRefused) {
  run_on_backend([&](Device& a, Device&) {
    auto cq = a.create_cq(16);
    fabric::CompletionQueue* sources[] = {cq.get()};
    const double nan = std::nan("");
    for (int which = 0; which < 3; ++which) {
      SCOPED_TRACE(which == 0 ? "wait" : which == 1 ? "wait_for_completion" : "sleep_for");
      try {
        if (which == 0) a.runtime().wait(sources, nan);
        if (which == 1) a.runtime().wait_for_completion(sources, nan);
        if (which == 2) a.runtime().sleep_for(nan);
        ADD_FAILURE() << "a NaN time was accepted";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::InvalidArgument));
        EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
      }
    }
  });
}

/// A CQ of no backend's device (another backend's, as far as a runtime can tell).
class ForeignCq final : public fabric::CompletionQueue {
 public:
  size_t poll(std::span<fabric::WorkCompletion>) override { return 0; }
  uint32_t capacity() const noexcept override { return 1; }
  bool overrun() noexcept override { return false; }
};

// A runtime reads the CQs it waits on as its own backend's: a null source, or a CQ it
// cannot read (the simulator took it for one of its own), is refused, not waited on.
TEST_P(Errors, WaitingOnANullOrForeignCqIsRefused) {
  run_on_backend([&](Device& a, Device&) {
    auto cq = a.create_cq(16);
    ForeignCq foreign;
    fabric::CompletionQueue* with_null[] = {cq.get(), nullptr};
    fabric::CompletionQueue* with_foreign[] = {&foreign, cq.get()};
    const double soon = a.runtime().now() + 1e-4;
    for (int which = 0; which < 4; ++which) {
      SCOPED_TRACE(which);
      const bool null_case = which % 2 == 0;
      std::span<fabric::CompletionQueue* const> sources =
          null_case ? std::span<fabric::CompletionQueue* const>(with_null)
                    : std::span<fabric::CompletionQueue* const>(with_foreign);
      try {
        if (which < 2) a.runtime().wait(sources, soon);
        else a.runtime().wait_for_completion(sources, soon);
        ADD_FAILURE() << "the wait was accepted";
      } catch (const fabric::Error& e) {
        EXPECT_TRUE(is_error(e, Status::InvalidArgument));
        EXPECT_NE(std::string(e.what()).find(null_case ? "source 1 is a null CQ" : "source 0 is not a CQ of"),
                  std::string::npos)
            << e.what();
      }
    }
    fabric::CompletionQueue* fine[] = {cq.get()};
    EXPECT_EQ(a.runtime().wait_for_completion(fine, a.runtime().now() + 1e-4), Status::Timeout);
  });
}

}  // namespace

TWINFAB_INSTANTIATE_CONFORMANCE(Errors);

}  // namespace twinfab::testing
