// Every collective algorithm forced by its parameter (TWINFAB_ALLREDUCE=rabenseifner,
// ...), at communicator sizes 1 to 16, powers of two and not, against a reference
// computed locally: counts 0, 1, 7, one not divisible by the size and one large
// enough for the rendezvous protocol and for the long-message pieces to be uneven;
// in place and not; a plain type and a derived one with holes (which must stay
// untouched), and the two mixed on the send and receive sides; blocking and
// nonblocking. Reductions also run a non-commutative op (affine maps composed in
// rank order) with the algorithms that accept it, and expect the error that names
// the algorithms that do apply from those that do not.
//
// The node-aware algorithms (NodeAware below) run the same checks with several ranks
// per simulated host, placed unevenly (7 ranks, 3 per host: hosts of 3, 3 and 1), on
// COMM_WORLD and on sub-communicators whose hosts' members are not consecutive:
// MPI_Comm_split by parity (the odd ranks, the even ones) and a permutation of all
// ranks by key.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "mpi/coll/node_map.hpp"
#include "mpi/coll/selection.hpp"
#include "tests/mpi/coll_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::kInPlace;
using mpi::Mode;
using mpi::ReductionOp;

constexpr std::int64_t kHole = -99;  ///< what a derived type's holes hold; never written

/// One forced algorithm: the collective's parameter and the algorithm's word.
struct Forced {
  const char* variable;
  const char* word;
};
std::ostream& operator<<(std::ostream& out, const Forced& f) { return out << f.variable << "=" << f.word; }

/// How `count` elements of the test type lie in an array of int64: plain, or a
/// vector type with two int64 and a hole per element (MPI_Type_vector(2, 1, 2)).
struct Layout {
  bool holes = false;
  mpi::DatatypePtr type(Context& c) const {
    const auto& int64 = c.datatype(BasicKind::Int64);
    if (!holes) return int64;
    auto t = mpi::Datatype::vector(2, 1, 2, int64);
    t->commit();
    return t;
  }
  std::size_t words(std::int64_t count) const { return static_cast<std::size_t>(holes ? 3 * count : count); }
  std::int64_t values(std::int64_t count) const { return holes ? 2 * count : count; }
  /// The array index of data value d.
  std::size_t at(std::int64_t d) const { return static_cast<std::size_t>(holes ? (d / 2) * 3 + (d % 2) * 2 : d); }
  /// A buffer of `count` elements (and a spare word), values from `value(d)`.
  template <class F>
  std::vector<std::int64_t> make(std::int64_t count, F value) const {
    std::vector<std::int64_t> b(words(count) + 1, kHole);
    for (std::int64_t d = 0; d < values(count); ++d) b[at(d)] = value(d);
    return b;
  }
};

std::int64_t value(int rank, std::int64_t d) { return rank * 1000003LL + d * 31 + 7; }

/// Compares `got` with the values expect(d) and checks that the holes are intact.
template <class F>
void expect_values(const Layout& layout, const std::vector<std::int64_t>& got, std::int64_t count, F expect,
                   const std::string& what) {
  for (std::int64_t d = 0; d < layout.values(count); ++d)
    ASSERT_EQ(got[layout.at(d)], expect(d)) << what << " value " << d;
  if (layout.holes) {
    for (std::int64_t e = 0; e < count; ++e) ASSERT_EQ(got[static_cast<std::size_t>(3 * e + 1)], kHole) << what;
  }
  ASSERT_EQ(got.back(), kHole) << what << ": written past the end";
}

/// A commutative sum as a user op, so that it also serves the derived type.
void add_at_layout(const void* user_data, const void* in, void* inout, std::int64_t count, const mpi::Datatype&) {
  const auto& layout = *static_cast<const Layout*>(user_data);
  const auto* a = static_cast<const std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  for (std::int64_t d = 0; d < layout.values(count); ++d) b[layout.at(d)] += a[layout.at(d)];
}

void compose_affine(const void*, const void* in, void* inout, std::int64_t count, const mpi::Datatype&) {
  const auto* left = static_cast<const Affine*>(in);
  auto* right = static_cast<Affine*>(inout);
  for (std::int64_t i = 0; i < count; ++i) right[i] = then(left[i], right[i]);
}

/// Runs a collective call blocking or nonblocking (then waits for it).
template <class F>
void run(Context& c, Mode mode, F call) {
  mpi::RequestId request = call(mode);
  if (mode == Mode::Nonblocking) {
    const mpi::MessageStatus status = c.wait(request);
    ASSERT_EQ(status.error, mpi::ErrorClass::MPI_SUCCESS);
  }
}

/// The communicators a check runs on: COMM_WORLD, and with `per_host` the parity
/// halves (MPI_Comm_split(rank % 2)) and all ranks in the order 0, 2, 4, ..., 1, 3, ...
/// (so a host's members are not consecutive). Each one's first collective is a
/// blocking barrier, which computes its node map when a node-aware algorithm may run
/// (nonblocking calls cannot).
std::vector<const mpi::Communicator*> comms(Context& c, unsigned per_host) {
  std::vector<const mpi::Communicator*> list{&c.world()};
  if (per_host != 0) {
    const int n = c.world().size();
    const int rank = c.world().rank();
    list.push_back(c.comm_split(c.world(), rank % 2, rank));
    list.push_back(c.comm_split(c.world(), 0, (rank % 2) * n + rank / 2));
  }
  for (const mpi::Communicator* comm : list) mpi::barrier(c, *comm);
  if (per_host != 0) {
    // Several hosts, one with several ranks, unless the placement is a flat one: the
    // map must say so, or nothing node-aware ran.
    const mpi::NodeMap* map = c.world().node_map();
    const int n = c.world().size();
    EXPECT_TRUE(map != nullptr && map->hierarchical == (per_host > 1 && static_cast<int>(per_host) < n));
  }
  return list;
}

/// connectx-ddr with enough hosts for `ranks` at `per_host` per host (0: its own
/// placement).
sim::Platform platform(unsigned ranks, unsigned per_host) {
  sim::Platform p = sim::load_platform("connectx-ddr");
  if (per_host != 0) p.hosts = std::max(p.hosts, (ranks + per_host - 1) / per_host);
  return p;
}

/// The world rank of member `r` of `comm` (the values are those of world ranks).
int world_of(const mpi::Communicator& comm, int r) { return comm.world_rank(r); }

/// The counts each test tries: 0, 1, 7, one not divisible by the size, a large one.
std::vector<std::int64_t> counts(int n, std::int64_t large) { return {0, 1, 7, 3 * n + 1, large}; }

/// Whether the forced algorithm serves a call of this shape, by the selection's own
/// rule; when it does not, the call must fail with the error naming the choices.
template <class E>
bool serves(const mpi::Config& config, E configured, const mpi::coll::CallShape& call) {
  (void)config;
  return mpi::coll::why_not(configured, call).empty();
}

/// The call's shape with what the communicator's node map says (comms() computed it
/// when a node-aware algorithm may run).
mpi::coll::CallShape known(mpi::coll::CallShape call, const mpi::Communicator& comm) {
  mpi::coll::describe_nodes(call, comm.node_map());
  return call;
}

void expect_refusal(const std::function<void()>& call, const std::string& variable) {
  try {
    call();
  } catch (const mpi::Error& e) {
    EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_ARG);
    const std::string text = e.what();
    EXPECT_NE(text.find(variable), std::string::npos) << text;
    EXPECT_NE(text.find("algorithms that serve this call: auto"), std::string::npos) << text;
    return;
  }
  ADD_FAILURE() << variable << ": the call was not refused";
}

// ---------------------------------------------------------------- reductions

void check_allreduce(const mpi::Config& config, unsigned ranks, unsigned per_host) {
  run_ranks(platform(ranks, per_host), ranks, config, [&](Context& c) {
   for (const mpi::Communicator* on : comms(c, per_host)) {
    const mpi::Communicator& comm = *on;
    const int n = comm.size();
    const int rank = world_of(comm, comm.rank());
    for (const Layout layout : {Layout{false}, Layout{true}}) {
      const auto type = layout.type(c);
      const ReductionOp op = ReductionOp::user(&add_at_layout, &layout, true);
      for (const std::int64_t count : counts(n, 20000)) {
        const mpi::coll::CallShape call{n, count, count * type->size(), true};
        for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
          for (const bool in_place : {false, true}) {
            const std::string what = fmt::format("count {} holes {} mode {} in place {}", count, layout.holes,
                                                 static_cast<int>(mode), in_place);
            auto in = layout.make(count, [&](std::int64_t d) { return value(rank, d); });
            auto out = in_place ? in : layout.make(count, [](std::int64_t) { return -1; });
            auto doit = [&](Mode m) {
              return mpi::allreduce(c, in_place ? kInPlace : in.data(), out.data(), count, type, op, comm, m);
            };
            if (!serves(config, config.allreduce_algorithm, known(call, comm))) {
              expect_refusal([&] { doit(mode); }, "TWINFAB_ALLREDUCE");
              continue;
            }
            run(c, mode, doit);
            expect_values(layout, out, count, [&](std::int64_t d) {
              std::int64_t sum = 0;
              for (int r = 0; r < n; ++r) sum += value(world_of(comm, r), d);
              return sum;
            }, what);
          }
        }
      }
    }
    // A non-commutative op: rank order or a refusal.
    auto affine = mpi::Datatype::contiguous(2, c.datatype(BasicKind::Uint64));
    affine->commit();
    const ReductionOp op = ReductionOp::user(&compose_affine, nullptr, false);
    for (const std::int64_t count : counts(n, 3000)) {
      std::vector<Affine> in(static_cast<std::size_t>(count) + 1), out(in.size());
      for (std::int64_t k = 0; k < count; ++k) in[static_cast<std::size_t>(k)] = affine_input(comm.rank(), k);
      const mpi::coll::CallShape call{n, count, count * 16, false};
      if (!serves(config, config.allreduce_algorithm, known(call, comm))) {
        expect_refusal([&] { mpi::allreduce(c, in.data(), out.data(), count, affine, op, comm); },
                       "TWINFAB_ALLREDUCE");
        continue;
      }
      mpi::allreduce(c, in.data(), out.data(), count, affine, op, comm);
      for (std::int64_t k = 0; k < count; ++k)
        ASSERT_EQ(out[static_cast<std::size_t>(k)], affine_fold(0, n, k)) << "non-commutative, count " << count;
    }
   }
  }, per_host);
}

void check_reduce(const mpi::Config& config, unsigned ranks, unsigned per_host) {
  run_ranks(platform(ranks, per_host), ranks, config, [&](Context& c) {
   for (const mpi::Communicator* on : comms(c, per_host)) {
    const mpi::Communicator& comm = *on;
    const int n = comm.size();
    const int me = comm.rank();
    const int rank = world_of(comm, me);
    for (const Layout layout : {Layout{false}, Layout{true}}) {
      const auto type = layout.type(c);
      const ReductionOp op = ReductionOp::user(&add_at_layout, &layout, true);
      for (const std::int64_t count : counts(n, 20000)) {
        const mpi::coll::CallShape call{n, count, count * type->size(), true};
        for (const int root : {0, n - 1, n / 2}) {
          for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
            for (const bool in_place : {false, true}) {
              const std::string what = fmt::format("count {} holes {} root {} mode {} in place {}", count,
                                                   layout.holes, root, static_cast<int>(mode), in_place);
              auto in = layout.make(count, [&](std::int64_t d) { return value(rank, d); });
              auto out = in_place && me == root ? in : layout.make(count, [](std::int64_t) { return -1; });
              auto doit = [&](Mode m) {
                return mpi::reduce(c, in_place && me == root ? kInPlace : in.data(), out.data(), count, type, op,
                                   root, comm, m);
              };
              if (!serves(config, config.reduce_algorithm, known(call, comm))) {
                expect_refusal([&] { doit(mode); }, "TWINFAB_REDUCE");
                continue;
              }
              run(c, mode, doit);
              if (me == root)
                expect_values(layout, out, count, [&](std::int64_t d) {
                  std::int64_t sum = 0;
                  for (int r = 0; r < n; ++r) sum += value(world_of(comm, r), d);
                  return sum;
                }, what);
            }
          }
        }
      }
    }
    auto affine = mpi::Datatype::contiguous(2, c.datatype(BasicKind::Uint64));
    affine->commit();
    const ReductionOp op = ReductionOp::user(&compose_affine, nullptr, false);
    for (const std::int64_t count : counts(n, 3000)) {
      std::vector<Affine> in(static_cast<std::size_t>(count) + 1), out(in.size());
      for (std::int64_t k = 0; k < count; ++k) in[static_cast<std::size_t>(k)] = affine_input(me, k);
      const mpi::coll::CallShape call{n, count, count * 16, false};
      const int root = n - 1;
      if (!serves(config, config.reduce_algorithm, known(call, comm))) {
        expect_refusal([&] { mpi::reduce(c, in.data(), out.data(), count, affine, op, root, comm); },
                       "TWINFAB_REDUCE");
        continue;
      }
      mpi::reduce(c, in.data(), out.data(), count, affine, op, root, comm);
      if (me == root) {
        for (std::int64_t k = 0; k < count; ++k)
          ASSERT_EQ(out[static_cast<std::size_t>(k)], affine_fold(0, n, k)) << "non-commutative, count " << count;
      }
    }
   }
  }, per_host);
}

void check_reduce_scatter(const mpi::Config& config, unsigned ranks, unsigned /*per_host: world only*/) {
  run_ranks("connectx-ddr", ranks, config, [&](Context& c) {
    const int n = c.world().size();
    const int rank = c.world().rank();
    for (const Layout layout : {Layout{false}, Layout{true}}) {
      const auto type = layout.type(c);
      const ReductionOp op = ReductionOp::user(&add_at_layout, &layout, true);
      // Blocks of `block` elements each, or uneven ones (some empty) for the v form.
      for (const std::int64_t block : counts(n, 3000)) {
        for (const bool uneven : {false, true}) {
          std::vector<std::int64_t> sizes(static_cast<std::size_t>(n), block);
          if (uneven)
            for (int i = 0; i < n; ++i) sizes[static_cast<std::size_t>(i)] = (block + i * 5) % (block + 3);
          std::int64_t total = 0, first = 0;
          for (int i = 0; i < n; ++i) total += sizes[static_cast<std::size_t>(i)];
          for (int i = 0; i < rank; ++i) first += sizes[static_cast<std::size_t>(i)];
          const std::int64_t own = sizes[static_cast<std::size_t>(rank)];
          const mpi::coll::CallShape call{n, total, total * type->size(), true};
          for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
            for (const bool in_place : {false, true}) {
              const std::string what = fmt::format("block {} uneven {} holes {} mode {} in place {}", block, uneven,
                                                   layout.holes, static_cast<int>(mode), in_place);
              auto in = layout.make(total, [&](std::int64_t d) { return value(rank, d); });
              auto out = in_place ? in : layout.make(own, [](std::int64_t) { return -1; });
              auto doit = [&](Mode m) {
                return mpi::reduce_scatter(c, in_place ? kInPlace : in.data(), out.data(), sizes, type, op,
                                           c.world(), m);
              };
              if (!serves(config, config.reduce_scatter_algorithm, call)) {
                expect_refusal([&] { doit(mode); }, "TWINFAB_REDUCE_SCATTER");
                continue;
              }
              run(c, mode, doit);
              if (in_place) out.resize(layout.words(own) + 1), out.back() = kHole;  // the rest is undefined
              const std::int64_t offset = layout.values(first);
              expect_values(layout, out, own, [&](std::int64_t d) {
                std::int64_t sum = 0;
                for (int r = 0; r < n; ++r) sum += value(r, offset + d);
                return sum;
              }, what);
            }
          }
        }
      }
    }
    auto affine = mpi::Datatype::contiguous(2, c.datatype(BasicKind::Uint64));
    affine->commit();
    const ReductionOp op = ReductionOp::user(&compose_affine, nullptr, false);
    for (const std::int64_t block : counts(n, 500)) {
      const std::int64_t total = block * n;
      std::vector<Affine> in(static_cast<std::size_t>(total) + 1), out(static_cast<std::size_t>(block) + 1);
      for (std::int64_t k = 0; k < total; ++k) in[static_cast<std::size_t>(k)] = affine_input(rank, k);
      const mpi::coll::CallShape call{n, total, total * 16, false};
      if (!serves(config, config.reduce_scatter_algorithm, call)) {
        expect_refusal([&] { mpi::reduce_scatter_block(c, in.data(), out.data(), block, affine, op, c.world()); },
                       "TWINFAB_REDUCE_SCATTER");
        continue;
      }
      mpi::reduce_scatter_block(c, in.data(), out.data(), block, affine, op, c.world());
      for (std::int64_t k = 0; k < block; ++k)
        ASSERT_EQ(out[static_cast<std::size_t>(k)], affine_fold(0, n, rank * block + k)) << "non-commutative";
    }
  });
}

// ---------------------------------------------------------------- data movement

void check_bcast(const mpi::Config& config, unsigned ranks, unsigned per_host) {
  run_ranks(platform(ranks, per_host), ranks, config, [&](Context& c) {
   for (const mpi::Communicator* on : comms(c, per_host)) {
    const mpi::Communicator& comm = *on;
    const int n = comm.size();
    const int rank = comm.rank();
    for (const Layout layout : {Layout{false}, Layout{true}}) {
      const auto type = layout.type(c);
      for (const std::int64_t count : counts(n, 70000)) {
        const mpi::coll::CallShape call{n, count, count * type->size()};
        for (const int root : {0, n - 1, n / 2}) {
          for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
            const std::string what =
                fmt::format("count {} holes {} root {} mode {}", count, layout.holes, root, static_cast<int>(mode));
            auto buffer = rank == root ? layout.make(count, [&](std::int64_t d) { return value(root, d); })
                                       : layout.make(count, [](std::int64_t) { return -1; });
            auto doit = [&](Mode m) { return mpi::bcast(c, buffer.data(), count, type, root, comm, m); };
            if (!serves(config, config.bcast_algorithm, known(call, comm))) {
              expect_refusal([&] { doit(mode); }, "TWINFAB_BCAST");
              continue;
            }
            run(c, mode, doit);
            expect_values(layout, buffer, count, [&](std::int64_t d) { return value(root, d); }, what);
          }
        }
      }
    }
   }
  }, per_host);
}

// ---------------------------------------------------------------- barrier

void check_barrier(const mpi::Config& config, unsigned ranks, unsigned per_host) {
  // Simulated ranks share the address space: a rank can see where the others are.
  std::vector<int> arrived(ranks, 0);
  run_ranks(platform(ranks, per_host), ranks, config, [&](Context& c) {
    int round = 0;
    int first = 0;
    for (const mpi::Communicator* on : comms(c, per_host)) {
      const mpi::Communicator& comm = *on;
      const int n = comm.size();
      // The parity halves take different numbers of rounds: each communicator
      // starts its rounds at the same number on every rank.
      first += 1000;
      round = first;
      for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
        for (int late = 0; late < n; ++late) {
          ++round;
          if (comm.rank() == late) {
            // Make one rank late: a 1 MiB message to itself takes simulated time.
            std::vector<std::byte> big(1 << 20), in(1 << 20);
            const auto& byte = c.datatype(BasicKind::Byte);
            mpi::RequestId r = c.irecv(in.data(), 1 << 20, byte, comm.rank(), 0, comm);
            c.send(big.data(), 1 << 20, byte, comm.rank(), 0, comm);
            c.wait(r);
          }
          arrived[static_cast<std::size_t>(c.world().rank())] = round;
          run(c, mode, [&](Mode m) { return mpi::barrier(c, comm, m); });
          for (int r = 0; r < n; ++r)
            ASSERT_GE(arrived[static_cast<std::size_t>(world_of(comm, r))], round)
                << "member " << r << " of a communicator of " << n << ", late rank " << late;
        }
      }
    }
  }, per_host);
}

/// The (send, receive) sides of the gathers and alltoall: plain both, holes both, or
/// plain int64 sent (twice the count) into the type with holes.
struct Sides {
  Layout send;
  Layout recv;
  std::int64_t send_count(std::int64_t count) const { return send.holes == recv.holes ? count : 2 * count; }
};
const Sides kSides[] = {{{false}, {false}}, {{true}, {true}}, {{false}, {true}}};

void check_allgather(const mpi::Config& config, unsigned ranks, unsigned per_host) {
  run_ranks(platform(ranks, per_host), ranks, config, [&](Context& c) {
   for (const mpi::Communicator* on : comms(c, per_host)) {
    const mpi::Communicator& comm = *on;
    const int n = comm.size();
    const int rank = comm.rank();
    for (const Sides& sides : kSides) {
      const auto send_type = sides.send.type(c);
      const auto recv_type = sides.recv.type(c);
      for (const std::int64_t count : counts(n, 5000)) {
        const mpi::coll::CallShape call{n, count, count * recv_type->size() * n};
        const std::int64_t per_rank = sides.recv.values(count);
        for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
          for (const bool in_place : {false, true}) {
            const std::string what = fmt::format("count {} holes {}/{} mode {} in place {}", count, sides.send.holes,
                                                 sides.recv.holes, static_cast<int>(mode), in_place);
            auto in = sides.send.make(sides.send_count(count), [&](std::int64_t d) { return value(rank, d); });
            auto out = sides.recv.make(count * n, [&](std::int64_t d) {
              return in_place && d / per_rank == rank ? value(rank, d % per_rank) : -1;
            });
            auto doit = [&](Mode m) {
              return in_place ? mpi::allgather(c, kInPlace, 0, send_type, out.data(), count, recv_type, comm, m)
                              : mpi::allgather(c, in.data(), sides.send_count(count), send_type, out.data(), count,
                                               recv_type, comm, m);
            };
            if (!serves(config, config.allgather_algorithm, known(call, comm))) {
              expect_refusal([&] { doit(mode); }, "TWINFAB_ALLGATHER");
              continue;
            }
            run(c, mode, doit);
            expect_values(sides.recv, out, count * n,
                          [&](std::int64_t d) { return value(static_cast<int>(d / per_rank), d % per_rank); }, what);
          }
        }
      }
    }
   }
  }, per_host);
}

void check_alltoall(const mpi::Config& config, unsigned ranks, unsigned /*per_host: world only*/) {
  run_ranks("connectx-ddr", ranks, config, [&](Context& c) {
    const int n = c.world().size();
    const int rank = c.world().rank();
    // Value d of the block rank `from` sends to rank `to`.
    const auto sent = [](int from, int to, std::int64_t d) { return value(from, d) * 100 + to; };
    for (const Sides& sides : kSides) {
      const auto send_type = sides.send.type(c);
      const auto recv_type = sides.recv.type(c);
      for (const std::int64_t count : counts(n, 2000)) {
        const std::int64_t send_count = sides.send_count(count);
        const std::int64_t per_block_send = sides.send.values(send_count);
        const std::int64_t per_block = sides.recv.values(count);
        for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
          for (const bool in_place : {false, true}) {
            const std::string what = fmt::format("count {} holes {}/{} mode {} in place {}", count, sides.send.holes,
                                                 sides.recv.holes, static_cast<int>(mode), in_place);
            auto in = sides.send.make(send_count * n, [&](std::int64_t d) {
              return sent(rank, static_cast<int>(d / per_block_send), d % per_block_send);
            });
            auto out = sides.recv.make(count * n, [&](std::int64_t d) {
              return in_place ? sent(rank, static_cast<int>(d / per_block), d % per_block) : -1;
            });
            auto doit = [&](Mode m) {
              return in_place ? mpi::alltoall(c, kInPlace, 0, send_type, out.data(), count, recv_type, c.world(), m)
                              : mpi::alltoall(c, in.data(), send_count, send_type, out.data(), count, recv_type,
                                              c.world(), m);
            };
            run(c, mode, doit);
            expect_values(sides.recv, out, count * n, [&](std::int64_t d) {
              return sent(static_cast<int>(d / per_block), rank, d % per_block);
            }, what);
          }
        }
      }
    }
  });
}

void check_gather(const mpi::Config& config, unsigned ranks, unsigned /*per_host: world only*/) {
  run_ranks("connectx-ddr", ranks, config, [&](Context& c) {
    const int n = c.world().size();
    const int rank = c.world().rank();
    for (const Sides& sides : kSides) {
      const auto send_type = sides.send.type(c);
      const auto recv_type = sides.recv.type(c);
      for (const std::int64_t count : counts(n, 5000)) {
        const std::int64_t per_rank = sides.recv.values(count);
        for (const int root : {0, n - 1, n / 2}) {
          for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
            for (const bool in_place : {false, true}) {
              const bool here = in_place && rank == root;
              const std::string what = fmt::format("count {} holes {}/{} root {} mode {} in place {}", count,
                                                   sides.send.holes, sides.recv.holes, root, static_cast<int>(mode),
                                                   in_place);
              auto in = sides.send.make(sides.send_count(count), [&](std::int64_t d) { return value(rank, d); });
              auto out = sides.recv.make(count * n, [&](std::int64_t d) {
                return here && d / per_rank == rank ? value(rank, d % per_rank) : -1;
              });
              run(c, mode, [&](Mode m) {
                return mpi::gather(c, here ? kInPlace : in.data(), sides.send_count(count), send_type, out.data(),
                                   count, recv_type, root, c.world(), m);
              });
              if (rank == root)
                expect_values(sides.recv, out, count * n, [&](std::int64_t d) {
                  return value(static_cast<int>(d / per_rank), d % per_rank);
                }, what);
            }
          }
        }
      }
    }
  });
}

void check_scatter(const mpi::Config& config, unsigned ranks, unsigned /*per_host: world only*/) {
  run_ranks("connectx-ddr", ranks, config, [&](Context& c) {
    const int n = c.world().size();
    const int rank = c.world().rank();
    // Scatter sends from the root's side: send type with holes, receive plain, too.
    const Sides sides_list[] = {{{false}, {false}}, {{true}, {true}}, {{true}, {false}}};
    for (const Sides& sides : sides_list) {
      const auto send_type = sides.send.type(c);
      const auto recv_type = sides.recv.type(c);
      for (const std::int64_t count : counts(n, 5000)) {
        // The root sends `count` elements of send_type per rank; a rank receives
        // recv_count of recv_type.
        const std::int64_t recv_count = sides.send.holes == sides.recv.holes ? count : 2 * count;
        const std::int64_t per_rank = sides.send.values(count);
        for (const int root : {0, n - 1, n / 2}) {
          for (const Mode mode : {Mode::Blocking, Mode::Nonblocking}) {
            for (const bool in_place : {false, true}) {
              const bool here = in_place && rank == root;
              const std::string what = fmt::format("count {} holes {}/{} root {} mode {} in place {}", count,
                                                   sides.send.holes, sides.recv.holes, root, static_cast<int>(mode),
                                                   in_place);
              auto in = sides.send.make(count * n, [&](std::int64_t d) { return value(root, d) * 10 + d / per_rank; });
              auto out = sides.recv.make(recv_count, [](std::int64_t) { return -1; });
              run(c, mode, [&](Mode m) {
                return mpi::scatter(c, in.data(), count, send_type, here ? kInPlace : out.data(), recv_count,
                                    recv_type, root, c.world(), m);
              });
              if (here) {
                expect_values(sides.send, in, count * n,
                              [&](std::int64_t d) { return value(root, d) * 10 + d / per_rank; }, what + " untouched");
                continue;
              }
              expect_values(sides.recv, out, recv_count, [&](std::int64_t d) {
                const std::int64_t whole = rank * per_rank + d;
                return value(root, whole) * 10 + rank;
              }, what);
            }
          }
        }
      }
    }
  });
}

class Algorithm : public ::testing::TestWithParam<std::tuple<Forced, unsigned>> {
 protected:
  mpi::Config config() const {
    const Forced f = std::get<0>(GetParam());
    return mpi::apply_variables({}, {{f.variable, f.word}});
  }
  std::string variable() const { return std::get<0>(GetParam()).variable; }
  unsigned ranks() const { return std::get<1>(GetParam()); }
};


using Check = void (*)(const mpi::Config&, unsigned, unsigned);
const std::map<std::string, Check> kChecks{
    {"TWINFAB_ALLREDUCE", &check_allreduce},   {"TWINFAB_REDUCE", &check_reduce},
    {"TWINFAB_REDUCE_SCATTER", &check_reduce_scatter}, {"TWINFAB_BCAST", &check_bcast},
    {"TWINFAB_ALLGATHER", &check_allgather},   {"TWINFAB_ALLTOALL", &check_alltoall},
    {"TWINFAB_GATHER", &check_gather},         {"TWINFAB_SCATTER", &check_scatter},
    {"TWINFAB_BARRIER", &check_barrier},
};

TEST_P(Algorithm, MatchesTheLocalReference) {
  kChecks.at(variable())(config(), ranks(), 0);
}

const Forced kForced[] = {
    {"TWINFAB_ALLREDUCE", "recursive_doubling"},
    {"TWINFAB_ALLREDUCE", "rabenseifner"},
    {"TWINFAB_ALLREDUCE", "auto"},
    {"TWINFAB_REDUCE", "binomial"},
    {"TWINFAB_REDUCE", "rabenseifner"},
    {"TWINFAB_REDUCE_SCATTER", "recursive_halving"},
    {"TWINFAB_REDUCE_SCATTER", "pairwise"},
    {"TWINFAB_REDUCE_SCATTER", "reduce_scatterv"},
    {"TWINFAB_BCAST", "binomial"},
    {"TWINFAB_BCAST", "scatter_recursive_doubling_allgather"},
    {"TWINFAB_BCAST", "scatter_ring_allgather"},
    {"TWINFAB_ALLGATHER", "recursive_doubling"},
    {"TWINFAB_ALLGATHER", "bruck"},
    {"TWINFAB_ALLGATHER", "ring"},
    {"TWINFAB_ALLTOALL", "bruck"},
    {"TWINFAB_ALLTOALL", "scattered"},
    {"TWINFAB_ALLTOALL", "pairwise"},
    {"TWINFAB_GATHER", "binomial"},
    {"TWINFAB_GATHER", "linear"},
    {"TWINFAB_SCATTER", "binomial"},
    {"TWINFAB_SCATTER", "linear"},
    {"TWINFAB_BARRIER", "dissemination"},
};

std::string forced_case_name(const ::testing::TestParamInfo<std::tuple<Forced, unsigned>>& info) {
  const Forced f = std::get<0>(info.param);
  return std::string(f.variable + 8) + "_" + f.word + "_" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Forced, Algorithm,
                         ::testing::Combine(::testing::ValuesIn(kForced),
                                            ::testing::Values(1u, 2u, 3u, 4u, 5u, 7u, 8u, 16u)),
                         forced_case_name);

// ---------------------------------------------------------------- node-aware

/// A placement: ranks, and ranks per simulated host (block placement: rank r on host
/// r / per_host).
struct Placement {
  unsigned ranks;
  unsigned per_host;
};

class NodeAware : public ::testing::TestWithParam<std::tuple<Forced, Placement>> {};

TEST_P(NodeAware, MatchesTheLocalReference) {
  const Forced f = std::get<0>(GetParam());
  const Placement p = std::get<1>(GetParam());
  kChecks.at(f.variable)(mpi::apply_variables({}, {{f.variable, f.word}}), p.ranks, p.per_host);
}

const Forced kNodeAware[] = {
    {"TWINFAB_BARRIER", "node-aware"},
    {"TWINFAB_ALLREDUCE", "node-aware"},
    {"TWINFAB_BCAST", "node-aware"},
    {"TWINFAB_REDUCE", "node-aware"},
    {"TWINFAB_ALLGATHER", "node-aware"},
};

// 7 on hosts of 3, 3, 1 (uneven; the parity halves then have hosts of 2, 1, 1 and
// 1, 2: the odd ranks 1 | 3, 5); 8 on 4 hosts of 2 (a power of two of hosts); 16 on 2
// hosts of 8 (Rabenseifner and the scatter + allgather bcast among hosts need enough
// elements or hosts: the large counts take them); 9 on hosts of 4, 4, 1; and the flat
// cases, where node-aware runs the flat algorithm: 4 ranks on one host, 5 on hosts of
// one rank each.
const Placement kPlacements[] = {{7, 3}, {8, 2}, {16, 8}, {9, 4}, {4, 4}, {5, 1}};

std::string node_aware_name(const ::testing::TestParamInfo<std::tuple<Forced, Placement>>& info) {
  const Forced f = std::get<0>(info.param);
  const Placement p = std::get<1>(info.param);
  return std::string(f.variable + 8) + "_" + std::to_string(p.ranks) + "_ranks_" + std::to_string(p.per_host) +
         "_per_host";
}

INSTANTIATE_TEST_SUITE_P(Hosts, NodeAware,
                         ::testing::Combine(::testing::ValuesIn(kNodeAware), ::testing::ValuesIn(kPlacements)),
                         node_aware_name);

// A nonblocking call cannot compute the node map: before a blocking collective has,
// a named node-aware algorithm is refused (TWINFAB_COLL_FALLBACK=error), naming why.
TEST(NodeAwareMap, ANonblockingCallBeforeTheMapIsKnownIsRefused) {
  const mpi::Config config = mpi::apply_variables({}, {{"TWINFAB_ALLREDUCE", "node-aware"}});
  run_ranks("connectx-ddr", 6, config, [&](Context& c) {
    const auto& int64 = c.datatype(BasicKind::Int64);
    std::int64_t in = c.world().rank(), out = -1;
    expect_error([&] { mpi::allreduce(c, &in, &out, 1, int64, mpi::Op::Sum, c.world(), Mode::Nonblocking); },
                 mpi::ErrorClass::MPI_ERR_ARG, "node map is not known yet");
    // A blocking one computes it; then the nonblocking form runs node-aware.
    mpi::allreduce(c, &in, &out, 1, int64, mpi::Op::Sum, c.world());
    EXPECT_EQ(out, 15);
    ASSERT_NE(c.world().node_map(), nullptr);
    EXPECT_TRUE(c.world().node_map()->hierarchical);
    EXPECT_EQ(c.world().node_map()->hosts, 2);
    out = -1;
    mpi::RequestId request = mpi::allreduce(c, &in, &out, 1, int64, mpi::Op::Sum, c.world(), Mode::Nonblocking);
    c.wait(request);
    EXPECT_EQ(out, 15);
  }, 3);
}

// The map of each placement, as every rank derives it.
TEST(NodeAwareMap, HostsAreNumberedByTheirLowestMember) {
  // Hosts 40, 7, 40, 9, 7 (ids need not be small or sorted).
  const std::vector<int> nodes{40, 7, 40, 9, 7};
  const auto map = mpi::make_node_map(nodes, 4);
  ASSERT_TRUE(map->hierarchical);
  EXPECT_EQ(map->hosts, 3);
  EXPECT_EQ(map->leaders, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(map->host_of, (std::vector<std::int32_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(map->members, (std::vector<int>{1, 4}));
  EXPECT_EQ(map->my_host, 1);
  EXPECT_EQ(map->my_index, 1);
  EXPECT_EQ(map->representative_index(4), 1);  // the root stands for its host
  EXPECT_EQ(map->representative_index(2), 0);  // another host's root: the leader
  // Flat: one host, one rank per host, a host unknown; none keeps a table.
  for (const std::vector<int>& flat : {std::vector<int>{5, 5, 5}, std::vector<int>{1, 2, 3}, std::vector<int>{1, 1, -1}}) {
    const auto m = mpi::make_node_map(flat, 0);
    EXPECT_FALSE(m->hierarchical);
    EXPECT_TRUE(m->host_of.empty() && m->leaders.empty() && m->members.empty());
  }
}

}  // namespace
}  // namespace twinfab::mpitest
