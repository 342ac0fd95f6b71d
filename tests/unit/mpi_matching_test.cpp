// Unit tests of mpi/core/matching: the posted-receive and unexpected-message queues.
// The central property is MPI's non-overtaking rule with wildcard and specific
// receives mixed; each test drives the queues the way the protocol layer will.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "mpi/core/matching.hpp"

namespace twinfab::mpi {
namespace {

constexpr ContextId kWorld = 0;
constexpr ContextId kOther = 1;

Envelope env(int source, int tag, ContextId context = kWorld) { return Envelope{context, source, tag}; }

// ------------------------------------------------------------------ envelopes

TEST(MpiMatchingTest, EnvelopeMatchingRules) {
  EXPECT_TRUE(matches(env(1, 5), env(1, 5)));
  EXPECT_TRUE(matches(env(kAnySource, 5), env(3, 5)));
  EXPECT_TRUE(matches(env(1, kAnyTag), env(1, 99)));
  EXPECT_TRUE(matches(env(kAnySource, kAnyTag), env(7, 0)));
  EXPECT_FALSE(matches(env(1, 5), env(2, 5)));
  EXPECT_FALSE(matches(env(1, 5), env(1, 6)));
  EXPECT_FALSE(matches(env(kAnySource, kAnyTag, kOther), env(1, 5, kWorld)));  // never across contexts
  EXPECT_EQ(to_string(env(kAnySource, kAnyTag, 3)), "context 3, source MPI_ANY_SOURCE, tag MPI_ANY_TAG");
  EXPECT_EQ(to_string(env(2, 7)), "context 0, source 2, tag 7");
}

// ------------------------------------------------------------------ posted queue

TEST(MpiMatchingTest, PostedReceivesMatchInPostingOrder) {
  PostedQueue<std::string> posted;
  posted.post(env(1, 5), "first");
  posted.post(env(1, 5), "second");
  EXPECT_EQ(posted.size(), 2u);
  EXPECT_EQ(posted.match(env(1, 5)), "first");
  EXPECT_EQ(posted.match(env(1, 5)), "second");
  EXPECT_EQ(posted.match(env(1, 5)), std::nullopt);
  EXPECT_TRUE(posted.empty());
}

TEST(MpiMatchingTest, PostedWildcardPostedFirstWinsOverLaterSpecific) {
  // Non-overtaking across the two lists: whichever was posted first matches first.
  PostedQueue<std::string> posted;
  posted.post(env(kAnySource, 5), "any-source");
  posted.post(env(2, 5), "from-2");
  EXPECT_EQ(posted.match(env(2, 5)), "any-source");
  EXPECT_EQ(posted.match(env(2, 5)), "from-2");

  posted.post(env(2, 5), "from-2 again");
  posted.post(env(kAnySource, kAnyTag), "anything");
  EXPECT_EQ(posted.match(env(2, 5)), "from-2 again");
  EXPECT_EQ(posted.match(env(2, 5)), "anything");
  EXPECT_TRUE(posted.empty());
}

TEST(MpiMatchingTest, PostedMixedWildcardsInterleavedSequence) {
  PostedQueue<int> posted;
  posted.post(env(0, 1), 0);                   // specific
  posted.post(env(kAnySource, 1), 1);          // any source, tag 1
  posted.post(env(0, kAnyTag), 2);             // source 0, any tag
  posted.post(env(kAnySource, kAnyTag), 3);    // any
  posted.post(env(0, 1), 4);                   // specific again
  // Messages from source 0 with tag 1 take the receives in posting order.
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) order.push_back(*posted.match(env(0, 1)));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(MpiMatchingTest, PostedTagMismatchSkipsToTheRightReceive) {
  PostedQueue<int> posted;
  posted.post(env(1, 10), 10);
  posted.post(env(1, 20), 20);
  posted.post(env(kAnySource, 30), 30);
  EXPECT_EQ(posted.match(env(1, 20)), 20);
  EXPECT_EQ(posted.match(env(4, 30)), 30);
  EXPECT_EQ(posted.match(env(1, 30)), std::nullopt);
  EXPECT_EQ(posted.match(env(2, 10)), std::nullopt);  // wrong source
  EXPECT_EQ(posted.match(env(1, 10)), 10);
  EXPECT_TRUE(posted.empty());
}

TEST(MpiMatchingTest, PostedContextsAreSeparate) {
  PostedQueue<int> posted;
  posted.post(env(kAnySource, kAnyTag, kOther), 1);
  EXPECT_EQ(posted.match(env(0, 0, kWorld)), std::nullopt);
  EXPECT_EQ(posted.match(env(0, 0, 99)), std::nullopt);  // a context never seen
  EXPECT_EQ(posted.match(env(0, 0, kOther)), 1);
}

TEST(MpiMatchingTest, CancelRemovesOnlyThatReceive) {
  PostedQueue<int> posted;
  auto a = posted.post(env(1, 5), 1);
  auto b = posted.post(env(kAnySource, 5), 2);
  auto c = posted.post(env(1, 5), 3);
  EXPECT_EQ(posted.cancel(a), 1);
  EXPECT_EQ(posted.cancel(a), std::nullopt);  // already cancelled
  EXPECT_EQ(posted.cancel(b), 2);
  EXPECT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted.match(env(1, 5)), 3);
  EXPECT_EQ(posted.cancel(c), std::nullopt);  // already matched
  EXPECT_EQ(posted.cancel(PostedQueue<int>::Handle{42, 0, 0}), std::nullopt);
  EXPECT_TRUE(posted.empty());
}

// ------------------------------------------------------------------ unexpected queue

TEST(MpiMatchingTest, UnexpectedIsFifoPerSource) {
  UnexpectedQueue<std::string> unexpected;
  unexpected.push(env(1, 5), "a");
  unexpected.push(env(1, 5), "b");
  auto m = unexpected.match(env(1, 5));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->value, "a");
  EXPECT_EQ(m->envelope, env(1, 5));
  EXPECT_EQ(unexpected.match(env(1, 5))->value, "b");
  EXPECT_FALSE(unexpected.match(env(1, 5)));
}

TEST(MpiMatchingTest, UnexpectedAnySourceTakesEarliestArrival) {
  UnexpectedQueue<int> unexpected;
  unexpected.push(env(3, 1), 30);
  unexpected.push(env(1, 1), 10);
  unexpected.push(env(3, 1), 31);
  EXPECT_EQ(unexpected.match(env(kAnySource, 1))->value, 30);
  // Specific receive for source 3 gets 3's next message, skipping 1's.
  EXPECT_EQ(unexpected.match(env(3, kAnyTag))->value, 31);
  auto m = unexpected.match(env(kAnySource, kAnyTag));
  EXPECT_EQ(m->value, 10);
  EXPECT_EQ(m->envelope.source, 1);  // the status learns the real source
  EXPECT_TRUE(unexpected.empty());
}

TEST(MpiMatchingTest, UnexpectedTagSelectionDoesNotDisturbOthers) {
  UnexpectedQueue<int> unexpected;
  unexpected.push(env(0, 1), 1);
  unexpected.push(env(0, 2), 2);
  unexpected.push(env(0, 1), 3);
  EXPECT_EQ(unexpected.match(env(0, 2))->value, 2);
  EXPECT_EQ(unexpected.match(env(kAnySource, 1))->value, 1);
  EXPECT_EQ(unexpected.match(env(0, 1))->value, 3);
  EXPECT_FALSE(unexpected.match(env(0, kAnyTag)));
}

TEST(MpiMatchingTest, ProbeFindsWithoutRemoving) {
  UnexpectedQueue<int> unexpected;
  EXPECT_EQ(unexpected.probe(env(kAnySource, kAnyTag)), nullptr);
  unexpected.push(env(2, 9), 90);
  unexpected.push(env(2, 8), 80);
  const auto* p = unexpected.probe(env(kAnySource, 8));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value, 80);
  EXPECT_EQ(p->envelope, env(2, 8));
  EXPECT_EQ(unexpected.size(), 2u);
  EXPECT_EQ(unexpected.probe(env(2, kAnyTag))->value, 90);
  EXPECT_EQ(unexpected.probe(env(5, kAnyTag)), nullptr);
  EXPECT_EQ(unexpected.probe(env(2, 8, kOther)), nullptr);
  // The probed message is the one a receive then gets (MPI_Probe then MPI_Recv).
  EXPECT_EQ(unexpected.match(env(kAnySource, 8))->value, 80);
  // A mutable probe lets the protocol update a queued header (e.g. rendezvous state).
  unexpected.probe(env(2, 9))->value = 91;
  EXPECT_EQ(unexpected.match(env(2, 9))->value, 91);
}

TEST(MpiMatchingTest, MatchedProbeTakesTheMessageOutOfTheQueue) {
  // MPI_Mprobe is match() without a receive: the message taken is the one a receive
  // would have got, and no later probe or match can see it.
  UnexpectedQueue<int> unexpected;
  unexpected.push(env(1, 4), 1);
  unexpected.push(env(1, 4), 2);  // same envelope, sent second
  unexpected.push(env(3, 4), 3);
  auto taken = unexpected.match(env(kAnySource, kAnyTag));
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->value, 1);
  EXPECT_EQ(taken->envelope, env(1, 4));
  // The next probe and receive of that envelope find the second message, not the first.
  EXPECT_EQ(unexpected.probe(env(1, 4))->value, 2);
  EXPECT_EQ(unexpected.probe(env(kAnySource, 4))->value, 2);
  EXPECT_EQ(unexpected.size(), 2u);
  EXPECT_EQ(unexpected.match(env(1, 4))->value, 2);
  EXPECT_EQ(unexpected.probe(env(1, kAnyTag)), nullptr);
  EXPECT_EQ(unexpected.match(env(kAnySource, 4))->value, 3);
  EXPECT_TRUE(unexpected.empty());
}

// ------------------------------------------------------------------ both queues together

// A tiny receiver as the protocol layer will write it: a receive first searches the
// unexpected queue, else posts; an arriving message first searches the posted queue,
// else becomes unexpected. `received` records (receive id, message id) pairs.
struct Receiver {
  PostedQueue<int> posted;
  UnexpectedQueue<int> unexpected;
  std::vector<std::pair<int, int>> received;

  void post_receive(const Envelope& wanted, int receive_id) {
    if (auto m = unexpected.match(wanted)) {
      received.emplace_back(receive_id, m->value);
    } else {
      posted.post(wanted, receive_id);
    }
  }
  void arrive(const Envelope& message, int message_id) {
    if (auto r = posted.match(message)) {
      received.emplace_back(*r, message_id);
    } else {
      unexpected.push(message, message_id);
    }
  }
};

TEST(MpiMatchingTest, NonOvertakingWithMixedWildcardAndSpecificReceives) {
  Receiver rx;
  // Receives posted before anything arrives, wildcard and specific interleaved.
  rx.post_receive(env(1, 7), 100);
  rx.post_receive(env(kAnySource, 7), 101);
  rx.post_receive(env(1, kAnyTag), 102);
  // Sender 1 sends m0, m1, m2 (tag 7); sender 2 sends m3 (tag 7).
  rx.arrive(env(1, 7), 0);
  rx.arrive(env(2, 7), 3);  // takes the any-source receive, the earliest that accepts it
  rx.arrive(env(1, 7), 1);
  rx.arrive(env(1, 7), 2);  // nothing left: unexpected
  // Then a wildcard receive must get sender 1's m2, the earliest unexpected.
  rx.post_receive(env(kAnySource, kAnyTag), 103);
  EXPECT_EQ(rx.received, (std::vector<std::pair<int, int>>{{100, 0}, {101, 3}, {102, 1}, {103, 2}}));
  EXPECT_TRUE(rx.posted.empty());
  EXPECT_TRUE(rx.unexpected.empty());
}

TEST(MpiMatchingTest, MessagesFromOneSenderMatchInSendOrderWhateverTheReceives) {
  // Sender 0 sends ids 0..19 with tags alternating 1,2; they arrive before any receive.
  Receiver rx;
  for (int i = 0; i < 20; ++i) rx.arrive(env(0, 1 + i % 2), i);
  // Receives mixing wildcards: every receive must get the earliest message it accepts,
  // so same-tag messages come out in send order.
  const Envelope wanted[] = {env(0, 2), env(kAnySource, kAnyTag), env(0, kAnyTag), env(kAnySource, 1)};
  for (int r = 0; r < 20; ++r) rx.post_receive(wanted[r % 4], 1000 + r);
  int last_tag1 = -1;
  int last_tag2 = -1;
  for (auto [receive, message] : rx.received) {
    int& last = message % 2 == 0 ? last_tag1 : last_tag2;
    EXPECT_GT(message, last) << "receive " << receive << " overtook";
    last = message;
  }
  // The wildcards took tag-1 messages early, so the last tag-1 receive waits and the
  // last tag-2 message (19) stays unexpected; a new tag-1 message completes the receive.
  EXPECT_EQ(rx.received.size(), 19u);
  ASSERT_EQ(rx.unexpected.size(), 1u);
  EXPECT_EQ(rx.unexpected.probe(env(kAnySource, kAnyTag))->value, 19);
  EXPECT_EQ(rx.posted.size(), 1u);
  rx.arrive(env(0, 1), 20);
  EXPECT_EQ(rx.received.back(), (std::pair<int, int>{1019, 20}));
}

TEST(MpiMatchingTest, ManySourcesKeepNoEmptyBuckets) {
  // Matching drains everything; sizes come back to zero (memory does not grow with
  // the number of peers that ever sent).
  Receiver rx;
  for (int s = 0; s < 1000; ++s) rx.arrive(env(s, 0), s);
  for (int s = 999; s >= 0; --s) rx.post_receive(env(s, 0), s);
  for (auto [receive, message] : rx.received) EXPECT_EQ(receive, message);
  for (int s = 0; s < 1000; ++s) rx.post_receive(env(s, 0), s);
  for (int s = 0; s < 1000; ++s) rx.arrive(env(s, 0), s);
  EXPECT_EQ(rx.received.size(), 2000u);
  EXPECT_TRUE(rx.posted.empty());
  EXPECT_TRUE(rx.unexpected.empty());
}

TEST(MpiMatchingTest, PostedLookupCacheSurvivesBucketsComingAndGoing) {
  // The posted queue remembers the context and source bucket it used last; buckets of
  // sources that went quiet are erased. Alternate sources and contexts so that the
  // remembered bucket is erased under it, cancel through it, and check every match.
  PostedQueue<int> q;
  int value = 0;
  for (int round = 0; round < 50; ++round) {
    const int source = round % 3;
    const ContextId context = round % 4 == 0 ? kOther : kWorld;
    q.post(env(source, 7, context), ++value);
    auto cancelled = q.post(env(source, 8, context), -1);
    EXPECT_EQ(q.match(env(source, 7, context)), value) << "round " << round;
    EXPECT_EQ(q.cancel(cancelled), -1) << "round " << round;
    EXPECT_FALSE(q.cancel(cancelled).has_value());
    EXPECT_FALSE(q.match(env(source, 7, context)).has_value());
    EXPECT_FALSE(q.match(env((source + 1) % 3, 7, context)).has_value());
    EXPECT_TRUE(q.empty());
  }
  // A receive still posted from a source whose neighbours' buckets came and went.
  q.post(env(5, 1), 100);
  for (int s = 0; s < 4; ++s) {
    q.post(env(s, 1), s);
    EXPECT_EQ(q.match(env(s, 1)), s);
  }
  EXPECT_EQ(q.match(env(5, 1)), 100);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace twinfab::mpi
