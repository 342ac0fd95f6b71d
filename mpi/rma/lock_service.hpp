// twinfab MPI one-sided: the thread-based passive-target lock designs of seed 001 §4.2
// (TWINFAB_RMA_LOCK=thread|event) for one window at one rank.
//
// Every rank of the window runs a lock agent (fabric::Runtime::spawn: an OS thread on
// hardware, an actor on the rank's host in the simulator) that owns the window's
// LockTable and grants requests that arrive as messages, whatever the rank itself is
// doing (seed 001's "independent progress"):
//  - `thread` (§4.2.1, dedicated thread): the agent polls its CQ (a polling wait: it
//    takes a core's CPU time, shared with the rank in the simulator);
//  - `event` (§4.2.2, event-driven): the agent sleeps on its CQ's completion channel
//    (Runtime::wait_for_event, no CPU) and is woken by the request's send, paying the
//    completion event's latency (`hca.event_latency` in the simulator) per wake-up.
//
// The agent must not touch the rank's Context (not thread-safe), so the service has
// fabric objects of its own, made and connected at window creation: for each other
// member p, a "server" RC QP (on the agent's CQ, with receives posted) connected to p's
// "client" QP for this rank (on the rank's side's CQ). An origin sends a 16-byte
// request (lock type, sequence number) on its client QP; the agent grants it with one
// RDMA write of the sequence number into the origin's control block
// (ControlLayout::lock_grant), which the origin waits for in its own memory. An unlock
// is one more message, not waited for (the epoch's operations completed before it; the
// next request follows it on the same QP). A lock on the rank's own window takes the
// table directly under its mutex (no message); a grant the agent then gives the rank is
// a store into its control block, and a grant the rank's own unlock gives another
// origin is written by the rank through its Context (RmaEngine::write_counter).
//
// Lifetime: window free is collective: every member sends each other member's agent a
// Close after the barrier that ends all epochs; an agent returns once it has one from
// every other member (or their connection failed), and free joins it. The agent also
// looks every kStopCheck seconds at a stop flag, set by the destructor when a window is
// torn down without the collective free (an error during creation).
//
// Failures: a request's send or a grant's write that completes in error makes the
// origin's wait end with MPI_ERR_OTHER naming the target (check()); an origin waiting
// for a grant longer than kLivenessInterval reads a word of the target's control block
// on its client QP, so that a target process that died (its QPs gone) ends the wait by
// the RC retry limit rather than never. The agent drops what an origin whose connection
// failed held or waited for, so the others keep going.
//
// Thread rules: the rank calls everything but the agent's body; the table and the
// close counts are shared with the agent under mutex_ (an AgentMutex: in the simulator
// the rank and its agent are actors of one OS thread), which is never held across a
// runtime call that waits (a post under it is allowed).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>  // std::lock_guard
#include <vector>

#include "fabric/agent_mutex.hpp"
#include "fabric/completion_queue.hpp"
#include "fabric/device.hpp"
#include "fabric/memory_region.hpp"
#include "fabric/queue_pair.hpp"
#include "fabric/runtime.hpp"
#include "mpi/core/config.hpp"
#include "mpi/core/host_work.hpp"
#include "mpi/rma/lock_table.hpp"

namespace twinfab::mpi::rma {

class LockService {
 public:
  /// Where the agent writes grants for one origin, and where that origin's probes read.
  struct Peer {
    std::uint64_t grant_addr = 0;  ///< the origin's lock_grant(this rank) word
    std::uint64_t probe_addr = 0;  ///< any word of the peer's control block
    std::uint32_t rkey = 0;        ///< of the peer's control block
    int world_rank = 0;            ///< decides who sends first where the device requires it
  };
  /// A message between a client and a server QP.
  struct Message {
    enum Kind : std::uint8_t { Request = 1, Unlock, Close, Hello };
    std::uint8_t kind = 0;
    std::uint8_t type = 0;  ///< LockType of a Request
    std::uint8_t pad[6] = {};
    std::uint64_t sequence = 0;
  };
  static_assert(sizeof(Message) == 16);

  static constexpr double kStopCheck = 10e-3;
  static constexpr double kLivenessInterval = 0.5;
  static constexpr double kSelfGrantPoll = 1e-6;

  /// Makes the QPs and buffers (nothing connected yet). `own_grant`: this rank's
  /// lock_grant(rank) word, where the agent stores grants of the rank's own requests.
  /// `messages`: the rank's count of lock messages (RmaCounters::lock_messages), which
  /// the rank's side and the agent add to through std::atomic_ref.
  LockService(fabric::Device& device, RmaLockDesign design, int rank, std::vector<Peer> peers,
              std::uint64_t* own_grant, std::uint64_t* messages);
  /// Counts one lock message (either thread).
  void count_message() noexcept;
  ~LockService();
  LockService(const LockService&) = delete;
  LockService& operator=(const LockService&) = delete;

  /// This rank's part of the collective connection: for each member p in order, the
  /// address of the server QP for p, then of the client QP for p (length-prefixed;
  /// empty for itself).
  std::vector<std::byte> local_addresses() const;
  /// Connects to every member's QPs given everyone's local_addresses() (by rank), and
  /// posts the receives. Throws mpi::Error (MPI_ERR_OTHER) when a connection fails.
  void connect(const std::vector<std::vector<std::byte>>& addresses, const char* where);
  /// After a barrier that follows every member's connect(): on devices whose active
  /// side must send first, the server QPs towards higher members say hello and the
  /// client QPs towards lower members wait for theirs; then the agent starts.
  void start(const char* where);

  /// Origin side. Asks `target` for the lock; returns the sequence number the grant
  /// will carry, in the origin's lock_grant(target) word. For this rank itself the table
  /// is asked at once (and the word stored when it grants at once).
  std::uint64_t request(int target, LockType type, const char* where);
  /// Releases this rank's lock at `target`; for this rank itself returns the grants it
  /// gave other origins (the caller writes them), else sends the Unlock.
  std::vector<LockTable::Grant> release(int target, const char* where);
  /// Polls the client CQ; throws mpi::Error (MPI_ERR_OTHER) when a message to `target`
  /// failed. Sends a liveness probe when `waiting_since` is long ago.
  void check(int target, double waiting_since, const char* where);
  /// The origin saw `target`'s agent's grant in its memory: the library's work for it
  /// is charged as for a packet received (mpi/core/host_work.hpp), as the agent's for
  /// each message it takes and each grant it writes, and the origin's for each message
  /// it sends: the seed's thread designs paid MPICH2's progress engine for all of them.
  void grant_seen() const { work_.packet_received(); }

  /// Collective with the window's free (after its barrier): sends every member's agent
  /// a Close and joins this rank's agent.
  void close(const char* where);

 private:
  struct Link;
  void agent_body();
  void serve(const fabric::WorkCompletion& wc, std::vector<LockTable::Grant>& grants);
  void write_grant(const LockTable::Grant& grant);
  void post_server_recv(int peer, std::uint32_t slot);
  void send(int target, Message message, const char* where);
  void poll_client(const char* where);

  fabric::Device& device_;
  HostWork work_;  ///< charged to whoever does the work: the rank or its agent
  fabric::AgentMutex mutex_;
  RmaLockDesign design_;
  int rank_;
  std::vector<Peer> peers_;
  std::uint64_t* own_grant_;
  std::uint64_t* messages_;
  bool hello_needed_;

  std::unique_ptr<fabric::CompletionQueue> agent_cq_;   ///< server QPs: receives, grant writes
  std::unique_ptr<fabric::CompletionQueue> client_cq_;  ///< client QPs: sends, probes, hellos
  std::vector<std::unique_ptr<Link>> links_;            ///< by member (null for this rank)
  /// Registered buffers: per member, the server's receive slots and grant staging word
  /// (the agent's), the client's send slots, hello receive and probe word (the rank's).
  std::vector<std::byte> buffers_;
  std::unique_ptr<fabric::MemoryRegion> region_;

  LockTable table_;                 ///< under mutex_
  std::vector<bool> closed_;        ///< under mutex_: by member, Close received or link failed
  std::uint32_t writes_in_flight_ = 0;  ///< under mutex_: the agent's grant writes not completed
  std::uint64_t own_sequence_ = 0;      ///< the rank's requests to its own table
  std::atomic<bool> stop_{false};
  std::unique_ptr<fabric::Agent> agent_;
};

}  // namespace twinfab::mpi::rma
