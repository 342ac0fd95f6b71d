// MPI C API: generalized requests (MPI-3.1 §12.2), MPI_Grequest_start and
// MPI_Grequest_complete, and the callbacks the waits and tests of pt2pt.cpp run.
//
// The core keeps a generalized request in the rank's request table
// (Request::Kind::Generalized), done once MPI_Grequest_complete was called, so that
// every wait and test (MPI_Waitany's polling, MPI_Testall's all-or-nothing) treats it
// as any other request. The callbacks are C functions with C statuses, so they stay
// here, in the handle's RequestEntry: the call that reports the request done calls
// query_fn for its status and then free_fn; MPI_Request_get_status calls query_fn
// alone; MPI_Cancel calls cancel_fn. A callback may call MPI (query_fn typically
// calls MPI_Status_set_elements), so each runs on a copy of the entry, after the
// handle's slot has been dealt with.
#include <fmt/format.h>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace twinfab::mpi::capi {

MessageStatus query_generalized(const Grequest& g) {
  // What query_fn starts from: the empty status (it is expected to set everything).
  MPI_Status status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
  const int rc = g.query(g.extra_state, &status);
  MessageStatus st = load_status(status);
  st.error = static_cast<ErrorClass>(rc);
  return st;
}

MessageStatus finish_generalized(const Grequest& g) {
  MessageStatus st = query_generalized(g);
  const int rc = g.free(g.extra_state);  // called even when query_fn failed: it releases the state
  if (st.error == ErrorClass::MPI_SUCCESS) st.error = static_cast<ErrorClass>(rc);
  return st;
}

void check_generalized(const MessageStatus& st, const char* where) {
  if (st.error == ErrorClass::MPI_SUCCESS) return;
  throw Error(st.error, where,
              fmt::format("a callback of the generalized request returned error code {}",
                          static_cast<int>(st.error)));
}

}  // namespace twinfab::mpi::capi

extern "C" {

int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  return entry("MPI_Grequest_start", MPI_COMM_WORLD, [&](RankState& s) {
    // MPI defines no "null function" for these: every wait, test or cancel calls them.
    require_pointer(reinterpret_cast<const void*>(query_fn), "MPI_Grequest_start", "query_fn");
    require_pointer(reinterpret_cast<const void*>(free_fn), "MPI_Grequest_start", "free_fn");
    require_pointer(reinterpret_cast<const void*>(cancel_fn), "MPI_Grequest_start", "cancel_fn");
    require_pointer(request, "MPI_Grequest_start", "request");
    auto g = std::make_unique<Grequest>(Grequest{query_fn, free_fn, cancel_fn, extra_state, false});
    // Errors of its waits go to MPI_COMM_WORLD's handler: it belongs to no communicator.
    *request = s.add_request(s.ctx().start_generalized(), MPI_COMM_WORLD, "MPI_Grequest_start");
    s.request(*request, "MPI_Grequest_start")->grequest = std::move(g);
    return MPI_SUCCESS;
  });
}

int MPI_Grequest_complete(MPI_Request request) {
  return entry("MPI_Grequest_complete", MPI_COMM_WORLD, [&](RankState& s) {
    if (request == MPI_REQUEST_NULL)
      throw Error(ErrorClass::MPI_ERR_REQUEST, "MPI_Grequest_complete(request)", "request is MPI_REQUEST_NULL");
    RequestEntry* e = s.request(request, "MPI_Grequest_complete");
    if (e == nullptr || !e->grequest)
      throw Error(ErrorClass::MPI_ERR_REQUEST, "MPI_Grequest_complete(request)",
                  fmt::format("not a generalized request (this is an {} request); only MPI_Grequest_start's can be "
                              "completed",
                              e == nullptr ? "inactive persistent" : e->what));
    s.ctx().complete_generalized(e->id, "MPI_Grequest_complete");  // MPI_ERR_REQUEST the second time
    if (!e->grequest->freed) return MPI_SUCCESS;  // the wait or test that reports it runs the callbacks
    // MPI_Request_free came first: free_fn runs now (MPI-3.1 §12.2), and no wait will.
    RequestId id = e->id;
    const Grequest g = *e->grequest;
    s.ctx().wait(id);  // done: only releases the core request
    MPI_Request handle = request;
    s.free_request(handle);
    const int rc = g.free(g.extra_state);
    if (rc != MPI_SUCCESS)
      throw Error(static_cast<ErrorClass>(rc), "MPI_Grequest_complete",
                  fmt::format("free_fn of the freed generalized request returned error code {}", rc));
    return MPI_SUCCESS;
  });
}

}  // extern "C"
