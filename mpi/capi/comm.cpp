// MPI C API: communicators (and their names and hints), groups. Attributes are in
// attributes.cpp; MPI_Comm_dup copies them and MPI_Comm_free deletes them from here.
//
// Communicator hints (MPI_Comm_dup_with_info, MPI_Comm_set_info, the info of
// MPI_Comm_split_type): nothing here has a hint to act on, so every key is ignored, as
// MPICH ignores the keys it does not know. The info argument is still checked
// (MPI_ERR_INFO for anything but MPI_INFO_NULL or a live info object), nothing is
// stored per communicator, and MPI_Comm_get_info says so with an empty info object.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>

#include "mpi/capi/attributes.hpp"
#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

void check_count(int n, const char* where, const char* arg) {
  if (n < 0) throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({}={})", where, arg, n), "must not be negative");
}

/// The set operations share their checks: two live groups and somewhere to put the result.
template <class Operation>
int group_set_operation(const char* where, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, Operation op) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& a = s.group(group1, where, "group1");
    const GroupPtr& b = s.group(group2, where, "group2");
    require_pointer(newgroup, where, "newgroup");
    *newgroup = s.add_group(op(*a, *b));
    return MPI_SUCCESS;
  });
}

/// The end of MPI_Comm_dup and MPI_Comm_dup_with_info, after the collective part:
/// the copy callbacks of comm's attributes attach their copies to `dup` (MPI-3.1
/// §6.7.2). When one fails, the new communicator goes again (freeing it is local) and
/// the call fails with the callback's code; the other ranks keep their duplicates.
MPI_Comm with_copied_attributes(RankState& s, MPI_Comm comm, MPI_Comm dup, const char* where) {
  try {
    copy_attributes(s, Object::comm(comm), Object::comm(dup), where);
  } catch (const std::exception&) {
    s.free_comm(dup, where);
    throw;
  }
  return dup;
}

/// MPI_Comm_dup and MPI_Comm_dup_with_info: the collective dup (topology included),
/// the error handler inherited (MPI-3 §8.3.1), then the attributes' copies.
MPI_Comm duplicate(RankState& s, MPI_Comm comm, const Communicator& c, const char* where) {
  const MPI_Comm dup = s.add_comm(s.ctx().comm_dup(c), s.errhandler_of(comm));
  return with_copied_attributes(s, comm, dup, where);
}

/// MPI_Comm_idup and MPI_Comm_idup_with_info: the new handle is returned at once and
/// becomes valid when the request completes (using it before is MPI_ERR_COMM, as for
/// a freed one); the error handler is inherited and the attributes copied at the
/// call, as MPI_Comm_dup does (MPICH copies them at the call too). If a copy callback
/// fails, the call fails: the agreement, started already so that the other members
/// are not left waiting, completes on its own and its communicator is freed.
int idup(const char* where, MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    if (info != MPI_INFO_NULL) s.infos.check_hints(info, where);
    require_pointer(newcomm, where, "newcomm");
    require_pointer(request, where, "request");
    const MPI_Comm handle = s.reserve_comm(s.errhandler_of(comm));
    auto copy_failed = std::make_shared<bool>(false);
    MPI_Request r = s.add_collective_request(
        s.ctx().comm_idup(c,
                          [&s, handle, copy_failed](const Communicator* dup) {
                            if (*copy_failed)
                              s.ctx().comm_free(dup);
                            else
                              s.fill_comm(handle, dup);
                          }),
        comm, where, nullptr);
    try {
      copy_attributes(s, Object::comm(comm), Object::comm(handle), where);
    } catch (const std::exception&) {
      *copy_failed = true;
      s.detach_request(r);
      s.abandon_reserved_comm(handle);
      throw;
    }
    *newcomm = handle;
    *request = r;
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  return idup("MPI_Comm_idup", comm, MPI_INFO_NULL, newcomm, request);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  return idup("MPI_Comm_idup_with_info", comm, info, newcomm, request);
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  return entry("MPI_Comm_rank", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_rank");
    require_pointer(rank, "MPI_Comm_rank", "rank");
    *rank = c.rank();
    return MPI_SUCCESS;
  });
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  return entry("MPI_Comm_size", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_size");
    require_pointer(size, "MPI_Comm_size", "size");
    *size = c.size();
    return MPI_SUCCESS;
  });
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return entry("MPI_Comm_dup", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_dup");
    require_pointer(newcomm, "MPI_Comm_dup", "newcomm");
    *newcomm = duplicate(s, comm, c, "MPI_Comm_dup");
    return MPI_SUCCESS;
  });
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return entry("MPI_Comm_dup_with_info", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_dup_with_info");
    s.infos.check_hints(info, "MPI_Comm_dup_with_info");
    require_pointer(newcomm, "MPI_Comm_dup_with_info", "newcomm");
    // As MPI_Comm_dup, but with these hints instead of comm's; none is used either way.
    *newcomm = duplicate(s, comm, c, "MPI_Comm_dup_with_info");
    return MPI_SUCCESS;
  });
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  return entry("MPI_Comm_set_info", comm, [&](RankState& s) {
    s.comm(comm, "MPI_Comm_set_info");
    s.infos.check_hints(info, "MPI_Comm_set_info");
    return MPI_SUCCESS;
  });
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  return entry("MPI_Comm_get_info", comm, [&](RankState& s) {
    s.comm(comm, "MPI_Comm_get_info");
    require_pointer(info_used, "MPI_Comm_get_info", "info_used");
    *info_used = s.infos.add({}, "MPI_Comm_get_info");  // the hints in use: none
    return MPI_SUCCESS;
  });
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return entry("MPI_Comm_split", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_split");
    require_pointer(newcomm, "MPI_Comm_split", "newcomm");
    if (color < 0 && color != MPI_UNDEFINED)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("MPI_Comm_split(color={})", color),
                  "invalid color; must be >= 0 or MPI_UNDEFINED");
    *newcomm = s.add_comm(s.ctx().comm_split(c, color, key), s.errhandler_of(comm));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_free(MPI_Comm* comm) {
  return entry("MPI_Comm_free", comm != nullptr ? *comm : MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(comm, "MPI_Comm_free", "comm");
    s.comm_entry(*comm, "MPI_Comm_free");  // a live handle, before any callback runs
    // The delete callbacks run while comm is still valid (they may use it); one that
    // fails keeps the communicator. COMM_WORLD and COMM_SELF are refused below with
    // their attributes untouched.
    if (*comm != MPI_COMM_WORLD && *comm != MPI_COMM_SELF)
      delete_all_attributes(s, Object::comm(*comm), "MPI_Comm_free");
    // Looked up again: the callbacks may have created communicators (moving the table).
    s.free_comm(*comm, "MPI_Comm_free");  // checks (COMM_WORLD/SELF)
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return entry("MPI_Comm_group", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_group");
    require_pointer(group, "MPI_Comm_group", "group");
    *group = s.add_group(s.ctx().comm_group(c));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return entry("MPI_Comm_test_inter", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_test_inter");
    require_pointer(flag, "MPI_Comm_test_inter", "flag");
    *flag = c.is_inter() ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  return entry("MPI_Comm_remote_size", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_remote_size");
    require_pointer(size, "MPI_Comm_remote_size", "size");
    // MPI-3.1 §6.6.1: an intracommunicator is erroneous here (MPICH: MPI_ERR_COMM).
    if (!c.is_inter())
      throw Error(ErrorClass::MPI_ERR_COMM, "MPI_Comm_remote_size(comm)",
                  "is an intracommunicator, which has no remote group");
    *size = c.peer_count();
    return MPI_SUCCESS;
  });
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  return entry("MPI_Comm_remote_group", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_remote_group");
    require_pointer(group, "MPI_Comm_remote_group", "group");
    *group = s.add_group(s.ctx().comm_remote_group(c));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return entry("MPI_Comm_compare", comm1, [&](RankState& s) {
    const Communicator& a = s.comm(comm1, "MPI_Comm_compare");
    const Communicator& b = s.comm(comm2, "MPI_Comm_compare");
    require_pointer(result, "MPI_Comm_compare", "result");
    if (&a == &b) {
      *result = MPI_IDENT;
    } else if (a.is_inter() != b.is_inter()) {
      *result = MPI_UNEQUAL;
    } else {
      // Intercommunicators: the local groups and the remote groups are compared, and
      // the result is the weaker of the two (MPI-3.1 §6.6.1).
      auto compare = [](std::vector<int> x, std::vector<int> y) {
        if (x == y) return MPI_CONGRUENT;
        std::ranges::sort(x);
        std::ranges::sort(y);
        return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
      };
      auto remote = [](const Communicator& c) {
        std::vector<int> ranks;
        if (c.is_inter())
          for (int r = 0; r < c.peer_count(); ++r) ranks.push_back(c.world_rank(r));
        return ranks;
      };
      *result = std::max(compare(a.world_ranks(), b.world_ranks()), compare(remote(a), remote(b)));
    }
    return MPI_SUCCESS;
  });
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm* newintercomm) {
  const char* where = "MPI_Intercomm_create";
  return entry(where, local_comm, [&](RankState& s) {
    const Communicator& local = s.comm(local_comm, where);
    require_pointer(newintercomm, where, "newintercomm");
    // peer_comm is significant at the local leader only (the core checks it there).
    const Communicator* peer = nullptr;
    if (local.rank() == local_leader && peer_comm != MPI_COMM_NULL) peer = &s.comm(peer_comm, where);
    *newintercomm = s.add_comm(s.ctx().intercomm_create(local, local_leader, peer, remote_leader, tag),
                               s.errhandler_of(local_comm));
    return MPI_SUCCESS;
  });
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  return entry("MPI_Intercomm_merge", intercomm, [&](RankState& s) {
    const Communicator& c = s.comm(intercomm, "MPI_Intercomm_merge");
    require_pointer(newintracomm, "MPI_Intercomm_merge", "newintracomm");
    *newintracomm = s.add_comm(s.ctx().intercomm_merge(c, high != 0), s.errhandler_of(intercomm));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return entry("MPI_Comm_create", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_create");
    const GroupPtr& g = s.group(group, "MPI_Comm_create");
    require_pointer(newcomm, "MPI_Comm_create", "newcomm");
    *newcomm = s.add_comm(s.ctx().comm_create(c, g), s.errhandler_of(comm));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return entry("MPI_Comm_create_group", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Comm_create_group");
    const GroupPtr& g = s.group(group, "MPI_Comm_create_group");
    require_pointer(newcomm, "MPI_Comm_create_group", "newcomm");
    *newcomm = s.add_comm(s.ctx().comm_create_group(c, g, tag), s.errhandler_of(comm));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const char* where = "MPI_Comm_split_type";
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    s.infos.check_hints(info, where);
    require_pointer(newcomm, where, "newcomm");
    // MPI-4.0 §7.4.2. The one hardware level this library knows is the host (its ranks
    // share memory); every rank still takes part in a split, so that the communicator's
    // collective sequence stays the same on all of them.
    constexpr std::string_view kResourceKey = "mpi_hw_resource_type";
    constexpr std::string_view kSharedMemory = "mpi_shared_memory";
    if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
      const std::string* type = info == MPI_INFO_NULL ? nullptr : s.infos.get(info, where).find(kResourceKey);
      const bool host = type != nullptr && (*type == kSharedMemory || *type == "machine");
      *newcomm = s.add_comm(s.ctx().comm_split_type(c, host ? MPI_COMM_TYPE_SHARED : MPI_UNDEFINED, key),
                            s.errhandler_of(comm));
      return MPI_SUCCESS;
    }
    if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
      const Communicator* on_host = s.ctx().comm_split_type(c, MPI_COMM_TYPE_SHARED, key);
      // Whether the host's ranks are a strict subset of comm is the same answer on
      // every rank: all of comm is on one host or none of its hosts holds all of it.
      if (on_host->size() == c.size()) {
        s.ctx().comm_free(on_host);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
      }
      if (info != MPI_INFO_NULL) s.infos.get(info, where).set(kResourceKey, kSharedMemory);
      *newcomm = s.add_comm(on_host, s.errhandler_of(comm));
      return MPI_SUCCESS;
    }
    *newcomm = s.add_comm(s.ctx().comm_split_type(c, split_type, key), s.errhandler_of(comm));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  return entry("MPI_Comm_set_name", comm, [&](RankState& s) {
    CommEntry& e = s.comm_entry(comm, "MPI_Comm_set_name");
    require_pointer(comm_name, "MPI_Comm_set_name", "comm_name");
    // MPI-3.1 §6.8: a longer name is truncated to what MPI_Comm_get_name can return.
    e.name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  return entry("MPI_Comm_get_name", comm, [&](RankState& s) {
    const CommEntry& e = s.comm_entry(comm, "MPI_Comm_get_name");
    require_pointer(comm_name, "MPI_Comm_get_name", "comm_name");
    require_pointer(resultlen, "MPI_Comm_get_name", "resultlen");
    std::memcpy(comm_name, e.name.data(), e.name.size());  // at most MPI_MAX_OBJECT_NAME - 1
    comm_name[e.name.size()] = '\0';
    *resultlen = static_cast<int>(e.name.size());
    return MPI_SUCCESS;
  });
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return entry("MPI_Group_incl", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& g = s.group(group, "MPI_Group_incl");
    check_count(n, "MPI_Group_incl", "n");
    if (n > 0) require_pointer(ranks, "MPI_Group_incl", "ranks");
    require_pointer(newgroup, "MPI_Group_incl", "newgroup");
    *newgroup = s.add_group(g->incl(std::span<const int>(ranks, static_cast<std::size_t>(n))));
    return MPI_SUCCESS;
  });
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return entry("MPI_Group_excl", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& g = s.group(group, "MPI_Group_excl");
    check_count(n, "MPI_Group_excl", "n");
    if (n > 0) require_pointer(ranks, "MPI_Group_excl", "ranks");
    require_pointer(newgroup, "MPI_Group_excl", "newgroup");
    *newgroup = s.add_group(g->excl(std::span<const int>(ranks, static_cast<std::size_t>(n))));
    return MPI_SUCCESS;
  });
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return entry("MPI_Group_range_incl", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& g = s.group(group, "MPI_Group_range_incl");
    check_count(n, "MPI_Group_range_incl", "n");
    if (n > 0) require_pointer(ranges, "MPI_Group_range_incl", "ranges");
    require_pointer(newgroup, "MPI_Group_range_incl", "newgroup");
    *newgroup = s.add_group(g->range_incl(std::span<const int>(n > 0 ? ranges[0] : nullptr, 3 * static_cast<std::size_t>(n))));
    return MPI_SUCCESS;
  });
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return entry("MPI_Group_range_excl", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& g = s.group(group, "MPI_Group_range_excl");
    check_count(n, "MPI_Group_range_excl", "n");
    if (n > 0) require_pointer(ranges, "MPI_Group_range_excl", "ranges");
    require_pointer(newgroup, "MPI_Group_range_excl", "newgroup");
    *newgroup = s.add_group(g->range_excl(std::span<const int>(n > 0 ? ranges[0] : nullptr, 3 * static_cast<std::size_t>(n))));
    return MPI_SUCCESS;
  });
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_set_operation("MPI_Group_union", group1, group2, newgroup, &Group::set_union);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_set_operation("MPI_Group_intersection", group1, group2, newgroup, &Group::intersection);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_set_operation("MPI_Group_difference", group1, group2, newgroup, &Group::difference);
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  return entry("MPI_Group_compare", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& a = s.group(group1, "MPI_Group_compare", "group1");
    const GroupPtr& b = s.group(group2, "MPI_Group_compare", "group2");
    require_pointer(result, "MPI_Group_compare", "result");
    *result = static_cast<int>(Group::compare(*a, *b));
    return MPI_SUCCESS;
  });
}

int MPI_Group_free(MPI_Group* group) {
  return entry("MPI_Group_free", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(group, "MPI_Group_free", "group");
    s.free_group(*group, "MPI_Group_free");
    return MPI_SUCCESS;
  });
}

int MPI_Group_size(MPI_Group group, int* size) {
  return entry("MPI_Group_size", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& g = s.group(group, "MPI_Group_size");
    require_pointer(size, "MPI_Group_size", "size");
    *size = g->size();
    return MPI_SUCCESS;
  });
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  return entry("MPI_Group_rank", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& g = s.group(group, "MPI_Group_rank");
    require_pointer(rank, "MPI_Group_rank", "rank");
    *rank = g->rank();
    return MPI_SUCCESS;
  });
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  return entry("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&](RankState& s) {
    const GroupPtr& a = s.group(group1, "MPI_Group_translate_ranks", "group1");
    const GroupPtr& b = s.group(group2, "MPI_Group_translate_ranks", "group2");
    check_count(n, "MPI_Group_translate_ranks", "n");
    if (n > 0) {
      require_pointer(ranks1, "MPI_Group_translate_ranks", "ranks1");
      require_pointer(ranks2, "MPI_Group_translate_ranks", "ranks2");
    }
    const std::vector<int> out = Group::translate_ranks(a, std::span<const int>(ranks1, static_cast<std::size_t>(n)), b);
    std::ranges::copy(out, ranks2);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
