// MPI C API: point-to-point communication, completion, probe and cancel.
#include <fmt/format.h>

#include <optional>
#include <vector>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

/// What one unsuccessful poll (MPI_Test, MPI_Testall, MPI_Iprobe) costs: the runtime
/// waits this long for an event, so that a program polling in a loop lets simulated
/// time advance (in the simulator nothing else would), and on hardware does not spin
/// harder than a poll of the CQ. 100 ns is of the order of one CQ poll plus the
/// library's bookkeeping on the HCAs the presets model.
constexpr double kIdlePollSeconds = 100e-9;

void idle_poll(Context& ctx) { ctx.progress_or_wait(ctx.runtime().now() + kIdlePollSeconds); }

/// The error a completed receive reports in its status (truncation), as an exception.
/// A nonblocking collective's status (`collective`) names the rank whose message or
/// block failed.
void check_completion(const MessageStatus& st, const char* where, bool collective = false) {
  if (st.error == ErrorClass::MPI_SUCCESS) return;
  if (collective)
    throw Error(st.error, where,
                st.error == ErrorClass::MPI_ERR_TRUNCATE
                    ? fmt::format("the data of rank {} does not fit its receive; the ranks' counts or types do not "
                                  "match",
                                  st.source)
                    : fmt::format("{} (rank {})", error_string(st.error), st.source));
  throw Error(st.error, where,
              st.error == ErrorClass::MPI_ERR_TRUNCATE
                  ? fmt::format("message from rank {} (tag {}) is longer than the receive buffer; {} bytes kept",
                                st.source, st.tag, st.count_bytes)
                  : std::string(error_string(st.error)));
}

int start(const char* where, MPI_Comm comm, MPI_Request* request, RankState& s, RequestId id) {
  *request = s.add_request(id, comm, where);
  return MPI_SUCCESS;
}

int isend(const char* where, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
          MPI_Request* request, SendMode mode) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(request, where, "request");
    return start(where, comm, request, s, s.ctx().isend(buf, count, t, dest, tag, c, mode, where));
  });
}

int send(const char* where, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
         SendMode mode) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    s.ctx().send(buf, count, t, dest, tag, c, mode, where);
    s.reap_detached(false);
    return MPI_SUCCESS;
  });
}

/// After the request behind handle `h` completed: releases the handle, stores the
/// status, and throws for a failed receive (truncation). A generalized request's
/// status is its query_fn's, and its free_fn runs (grequest.cpp).
void finish(RankState& s, MPI_Request& h, const MessageStatus& st, MPI_Status* status, const char* where) {
  RequestEntry& e = *s.request(h, where);
  const char* what = e.what;
  const bool collective = e.collective;
  if (e.grequest) [[unlikely]] {
    const Grequest g = *e.grequest;
    s.release_request(h);
    const MessageStatus gst = finish_generalized(g);
    store_status(gst, status);
    check_generalized(gst, where);
    return;
  }
  s.release_request(h);
  store_status(st, status);
  // Formatted only for a failed receive: this is on every message.
  if (st.error != ErrorClass::MPI_SUCCESS)
    check_completion(st, fmt::format("{} ({} request)", where, what).c_str(), collective);
}

/// The communicator whose error handler reports errors of a request-array call: the
/// first live request's (MPI_COMM_WORLD's when there is none).
MPI_Comm comm_of_requests(RankState* s, int count, const MPI_Request* requests) {
  if (s == nullptr || !s->active() || requests == nullptr) return MPI_COMM_WORLD;
  for (int i = 0; i < count; ++i) {
    try {
      if (RequestEntry* e = s->request(requests[i], "")) return e->comm;
    } catch (const Error&) {
    }
  }
  return MPI_COMM_WORLD;
}

MPI_Comm comm_of_request(const MPI_Request* request) {
  return comm_of_requests(current_state(), 1, request);
}

/// The communicator whose error handler reports errors of a matched receive.
MPI_Comm comm_of_message(const MPI_Message* message) {
  RankState* s = current_state();
  if (s == nullptr || !s->active() || message == nullptr) return MPI_COMM_WORLD;
  return s->comm_of_message(*message);
}

/// The C handle of a message a matched probe on `comm` returned.
MPI_Message message_handle(RankState& s, MessageId id, MPI_Comm comm) {
  return id == kMessageNoProc ? MPI_MESSAGE_NO_PROC : s.add_message(id, comm);
}

/// MPI_Mrecv and MPI_Imrecv: checks everything (a refused call leaves the message
/// matched and the handle as it was), then starts the receive and sets the handle
/// to MPI_MESSAGE_NULL.
RequestId start_mrecv(RankState& s, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                      const char* where) {
  require_pointer(message, where, "message");
  const DatatypePtr& t = s.type(datatype, where);
  MessageId id = s.message(*message, where);
  const RequestId request = s.ctx().imrecv(buf, count, t, id, where);
  s.release_message(*message);
  return request;
}

/// What the calls completing several requests do for each one they report: the
/// core's wait (at once when it is done), the handle released, and for a generalized
/// request its query_fn and free_fn, whose status replaces the core's.
MessageStatus complete(RankState& s, MPI_Request& h, RequestEntry& e) {
  RequestId id = e.id;
  const MessageStatus st = s.ctx().wait(id);
  if (!e.grequest) [[likely]] {
    s.release_request(h);
    return st;
  }
  const Grequest g = *e.grequest;
  s.release_request(h);
  return finish_generalized(g);
}

void check_request_array(int count, const MPI_Request* requests, const char* where) {
  if (count < 0)
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(count={})", where, count), "must not be negative");
  if (count > 0) require_pointer(requests, where, "array_of_requests");
}

/// MPI_Sendrecv's and MPI_Sendrecv_replace's exchange, once the caller checked the
/// send's arguments: a refused call must not have consumed a message, and the
/// receive's own arguments are checked as it is posted, before anything is sent. The
/// receive is posted first, then the send is a blocking one: while it waits (a
/// rendezvous until the peer's receive is there) the progress engine serves the
/// posted receive too, so two ranks sending to each other cannot deadlock, and a tiny
/// send needs no request at all (it is complete once copied out).
inline void exchange(RankState& s, const char* where, const void* sendbuf, std::int64_t sendcount,
                     const DatatypePtr& sendtype, int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                     const DatatypePtr& recvtype, int source, int recvtag, const Communicator& c, MPI_Status* status,
                     const char* recvcount_name) {
  RequestId recv = s.ctx().irecv(recvbuf, recvcount, recvtype, source, recvtag, c, where);
  try {
    s.ctx().send(sendbuf, sendcount, sendtype, dest, sendtag, c, SendMode::Standard, where);
  } catch (...) {
    s.ctx().cancel(recv);
    s.ctx().wait(recv);
    throw;
  }
  const MessageStatus st = s.ctx().wait(recv);
  store_status(st, status);
  // Formatted only for a failed receive: this is on every message.
  if (st.error != ErrorClass::MPI_SUCCESS)
    check_completion(st, fmt::format("{}({}={})", where, recvcount_name, recvcount).c_str());
}

int irecv(const char* where, void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
          MPI_Request* request) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(request, where, "request");
    return start(where, comm, request, s, s.ctx().irecv(buf, count, t, source, tag, c));
  });
}

int recv(const char* where, void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
         MPI_Status* status) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    RequestId id = s.ctx().irecv(buf, count, t, source, tag, c, where);
    const MessageStatus st = s.ctx().wait(id);
    s.reap_detached(false);
    store_status(st, status);
    // Formatted only for a failed receive: this is on every message.
    if (st.error != ErrorClass::MPI_SUCCESS) check_completion(st, fmt::format("{}(count={})", where, count).c_str());
    return MPI_SUCCESS;
  });
}

int sendrecv(const char* where, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
             MPI_Status* status) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& st_type = s.type(sendtype, where, "sendtype");
    const DatatypePtr& rt_type = s.type(recvtype, where, "recvtype");
    s.ctx().check_send(where, sendbuf, sendcount, st_type, dest, sendtag, c);
    exchange(s, where, sendbuf, sendcount, st_type, dest, sendtag, recvbuf, recvcount, rt_type, source, recvtag, c,
             status, "recvcount");
    return MPI_SUCCESS;
  });
}

int sendrecv_replace(const char* where, void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                     int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& type = s.type(datatype, where, "datatype");
    s.ctx().check_send(where, buf, count, type, dest, sendtag, c);
    // The outgoing message is packed before the receive may overwrite buf; it leaves
    // as bytes (twinfab matches messages by bytes, not by type signature).
    std::vector<std::byte> outgoing(static_cast<std::size_t>(packed_size(count, *type)));
    pack(buf, count, *type, 0, outgoing, where);
    exchange(s, where, outgoing.data(), static_cast<std::int64_t>(outgoing.size()), s.ctx().datatype(BasicKind::Byte),
             dest, sendtag, buf, count, type, source, recvtag, c, status, "count");
    return MPI_SUCCESS;
  });
}

int mrecv(const char* where, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
          MPI_Status* status) {
  return entry(where, comm_of_message(message), [&](RankState& s) {
    RequestId id = start_mrecv(s, buf, count, datatype, message, where);
    const MessageStatus st = s.ctx().wait(id);
    s.reap_detached(false);
    store_status(st, status);
    if (st.error != ErrorClass::MPI_SUCCESS) check_completion(st, fmt::format("{}(count={})", where, count).c_str());
    return MPI_SUCCESS;
  });
}

int imrecv(const char* where, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
           MPI_Request* request) {
  const MPI_Comm comm = comm_of_message(message);
  return entry(where, comm, [&](RankState& s) {
    require_pointer(request, where, "request");
    return start(where, comm, request, s, start_mrecv(s, buf, count, datatype, message, where));
  });
}

/// MPI_Get_count and MPI_Get_count_c: whole elements of `datatype` in the status's
/// message, MPI_UNDEFINED when it ends inside one.
long long count_of(RankState& s, const MPI_Status* status, MPI_Datatype datatype, const char* where) {
  if (status == nullptr || status == MPI_STATUS_IGNORE)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(status)", where), "null or MPI_STATUS_IGNORE");
  const DatatypePtr& t = s.type(datatype, where);
  const long long bytes = status->twinfab_count_bytes;
  if (t->size() == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  return bytes % t->size() != 0 ? MPI_UNDEFINED : bytes / t->size();
}

}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send("MPI_Send", buf, count, datatype, dest, tag, comm, SendMode::Standard);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send("MPI_Ssend", buf, count, datatype, dest, tag, comm, SendMode::Synchronous);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return isend("MPI_Isend", buf, count, datatype, dest, tag, comm, request, SendMode::Standard);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return isend("MPI_Issend", buf, count, datatype, dest, tag, comm, request, SendMode::Synchronous);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  return irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return recv("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                  recvtag, comm, status);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return entry("MPI_Wait", comm_of_request(request), [&](RankState& s) {
    require_pointer(request, "MPI_Wait", "request");
    RequestEntry* e = s.request(*request, "MPI_Wait");
    if (e == nullptr) {
      store_status(MessageStatus{kAnySource, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false}, status, true);  // empty: MPI_ERROR too
      return MPI_SUCCESS;
    }
    RequestId id = e->id;
    const MessageStatus st = s.ctx().wait(id);
    finish(s, *request, st, status, "MPI_Wait");
    s.reap_detached(false);
    return MPI_SUCCESS;
  });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return entry("MPI_Test", comm_of_request(request), [&](RankState& s) {
    require_pointer(request, "MPI_Test", "request");
    require_pointer(flag, "MPI_Test", "flag");
    RequestEntry* e = s.request(*request, "MPI_Test");
    if (e == nullptr) {
      *flag = 1;
      store_status(MessageStatus{kAnySource, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false}, status, true);  // empty: MPI_ERROR too
      return MPI_SUCCESS;
    }
    RequestId id = e->id;
    MessageStatus st;
    *flag = s.ctx().test(id, &st) ? 1 : 0;
    if (!*flag) {
      idle_poll(s.ctx());
      *flag = s.ctx().test(id, &st) ? 1 : 0;
    }
    if (*flag) finish(s, *request, st, status, "MPI_Test");
    return MPI_SUCCESS;
  });
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return entry("MPI_Request_get_status", comm_of_request(&request), [&](RankState& s) {
    require_pointer(flag, "MPI_Request_get_status", "flag");
    RequestEntry* e = s.request(request, "MPI_Request_get_status");
    if (e == nullptr) {  // MPI_REQUEST_NULL or an inactive persistent request: an empty status
      *flag = 1;
      store_status(MessageStatus{kAnySource, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false}, status, true);  // empty: MPI_ERROR too
      return MPI_SUCCESS;
    }
    MessageStatus st;
    *flag = s.ctx().peek(e->id, &st) ? 1 : 0;
    if (!*flag) {
      idle_poll(s.ctx());
      *flag = s.ctx().peek(e->id, &st) ? 1 : 0;
    }
    if (*flag && e->grequest) {  // its status is query_fn's; free_fn waits for the completing call
      const Grequest g = *e->grequest;
      st = query_generalized(g);
      store_status(st, status);
      check_generalized(st, "MPI_Request_get_status");
    } else if (*flag) {
      store_status(st, status);
      if (st.error != ErrorClass::MPI_SUCCESS)
        check_completion(st, fmt::format("MPI_Request_get_status ({} request)", e->what).c_str(), e->collective);
    }
    return MPI_SUCCESS;
  });
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status* array_of_statuses) {
  return entry("MPI_Waitall", comm_of_requests(current_state(), count, array_of_requests), [&](RankState& s) {
    check_request_array(count, array_of_requests, "MPI_Waitall");
    for (int i = 0; i < count; ++i) s.request(array_of_requests[i], "MPI_Waitall");  // all valid first
    const bool ignore = array_of_statuses == MPI_STATUSES_IGNORE || array_of_statuses == nullptr;
    bool failed = false;
    for (int i = 0; i < count; ++i) {
      RequestEntry* e = s.request(array_of_requests[i], "MPI_Waitall");
      MessageStatus st{kAnySource, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false};
      if (e != nullptr) st = complete(s, array_of_requests[i], *e);
      if (st.error != ErrorClass::MPI_SUCCESS) failed = true;
      if (!ignore) store_status(st, &array_of_statuses[i], true);
    }
    s.reap_detached(false);
    if (failed)
      throw Error(ErrorClass::MPI_ERR_IN_STATUS, "MPI_Waitall",
                  "a request failed (e.g. a truncated receive); see MPI_ERROR of its status");
    return MPI_SUCCESS;
  });
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status* array_of_statuses) {
  return entry("MPI_Testall", comm_of_requests(current_state(), count, array_of_requests), [&](RankState& s) {
    check_request_array(count, array_of_requests, "MPI_Testall");
    require_pointer(flag, "MPI_Testall", "flag");
    for (int i = 0; i < count; ++i) s.request(array_of_requests[i], "MPI_Testall");
    s.ctx().progress();
    // MPI: either all complete (and are released) or none is.
    *flag = 1;
    for (int i = 0; i < count && *flag; ++i) {
      RequestEntry* e = s.request(array_of_requests[i], "MPI_Testall");
      if (e != nullptr && !s.ctx().is_done(e->id)) *flag = 0;
    }
    if (!*flag) {
      idle_poll(s.ctx());
      return MPI_SUCCESS;
    }
    const bool ignore = array_of_statuses == MPI_STATUSES_IGNORE || array_of_statuses == nullptr;
    bool failed = false;
    for (int i = 0; i < count; ++i) {
      RequestEntry* e = s.request(array_of_requests[i], "MPI_Testall");
      MessageStatus st{kAnySource, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false};
      if (e != nullptr) st = complete(s, array_of_requests[i], *e);  // done: at once
      if (st.error != ErrorClass::MPI_SUCCESS) failed = true;
      if (!ignore) store_status(st, &array_of_statuses[i], true);
    }
    if (failed)
      throw Error(ErrorClass::MPI_ERR_IN_STATUS, "MPI_Testall",
                  "a request failed (e.g. a truncated receive); see MPI_ERROR of its status");
    return MPI_SUCCESS;
  });
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  return entry("MPI_Waitany", comm_of_requests(current_state(), count, array_of_requests), [&](RankState& s) {
    check_request_array(count, array_of_requests, "MPI_Waitany");
    require_pointer(index, "MPI_Waitany", "index");
    bool any = false;
    for (int i = 0; i < count; ++i) any |= s.request(array_of_requests[i], "MPI_Waitany") != nullptr;
    if (!any) {
      *index = MPI_UNDEFINED;
      store_status(MessageStatus{kAnySource, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false}, status, true);  // empty: MPI_ERROR too
      return MPI_SUCCESS;
    }
    for (;;) {
      for (int i = 0; i < count; ++i) {
        RequestEntry* e = s.request(array_of_requests[i], "MPI_Waitany");
        if (e == nullptr || !s.ctx().is_done(e->id)) continue;
        RequestId id = e->id;
        const MessageStatus st = s.ctx().wait(id);
        *index = i;
        finish(s, array_of_requests[i], st, status, "MPI_Waitany");
        return MPI_SUCCESS;
      }
      s.ctx().progress_or_wait();
    }
  });
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) {
  return entry("MPI_Testany", comm_of_requests(current_state(), count, array_of_requests), [&](RankState& s) {
    check_request_array(count, array_of_requests, "MPI_Testany");
    require_pointer(index, "MPI_Testany", "index");
    require_pointer(flag, "MPI_Testany", "flag");
    bool any = false;
    for (int i = 0; i < count; ++i) any |= s.request(array_of_requests[i], "MPI_Testany") != nullptr;
    *index = MPI_UNDEFINED;
    if (!any) {  // MPI: no active request is a success with an empty status
      *flag = 1;
      store_status(MessageStatus{kAnySource, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false}, status, true);  // empty: MPI_ERROR too
      return MPI_SUCCESS;
    }
    s.ctx().progress();
    for (int i = 0; i < count; ++i) {
      RequestEntry* e = s.request(array_of_requests[i], "MPI_Testany");
      if (e == nullptr || !s.ctx().is_done(e->id)) continue;
      RequestId id = e->id;
      const MessageStatus st = s.ctx().wait(id);  // done: returns at once
      *index = i;
      *flag = 1;
      finish(s, array_of_requests[i], st, status, "MPI_Testany");
      return MPI_SUCCESS;
    }
    *flag = 0;
    idle_poll(s.ctx());
    return MPI_SUCCESS;
  });
}

}  // extern "C"

namespace {

/// MPI_Waitsome (`block`) and MPI_Testsome: completes every request of the array that
/// is done, at least one when blocking; MPI_UNDEFINED when none is active.
int complete_some(RankState& s, int incount, MPI_Request requests[], int* outcount, int indices[],
                  MPI_Status statuses[], bool block, const char* where) {
  check_request_array(incount, requests, where);
  require_pointer(outcount, where, "outcount");
  bool any = false;
  for (int i = 0; i < incount; ++i) any |= s.request(requests[i], where) != nullptr;
  if (!any) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  require_pointer(indices, where, "array_of_indices");
  const bool ignore = statuses == MPI_STATUSES_IGNORE || statuses == nullptr;
  s.ctx().progress();
  for (;;) {
    int done = 0;
    bool failed = false;
    for (int i = 0; i < incount; ++i) {
      RequestEntry* e = s.request(requests[i], where);
      if (e == nullptr || !s.ctx().is_done(e->id)) continue;
      const MessageStatus st = complete(s, requests[i], *e);  // done: at once
      if (st.error != ErrorClass::MPI_SUCCESS) failed = true;
      if (!ignore) store_status(st, &statuses[done], true);
      indices[done++] = i;
    }
    if (done > 0 || !block) {
      *outcount = done;
      if (failed)
        throw Error(ErrorClass::MPI_ERR_IN_STATUS, where,
                    "a request failed (e.g. a truncated receive); see MPI_ERROR of its status");
      if (done == 0) idle_poll(s.ctx());
      return MPI_SUCCESS;
    }
    s.ctx().progress_or_wait();
  }
}

}  // namespace

extern "C" {

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]) {
  return entry("MPI_Waitsome", comm_of_requests(current_state(), incount, array_of_requests), [&](RankState& s) {
    return complete_some(s, incount, array_of_requests, outcount, array_of_indices, array_of_statuses, true,
                         "MPI_Waitsome");
  });
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]) {
  return entry("MPI_Testsome", comm_of_requests(current_state(), incount, array_of_requests), [&](RankState& s) {
    return complete_some(s, incount, array_of_requests, outcount, array_of_indices, array_of_statuses, false,
                         "MPI_Testsome");
  });
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return entry("MPI_Probe", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Probe");
    store_status(s.ctx().probe(source, tag, c), status);
    return MPI_SUCCESS;
  });
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return entry("MPI_Iprobe", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Iprobe");
    require_pointer(flag, "MPI_Iprobe", "flag");
    MessageStatus st;
    *flag = s.ctx().iprobe(source, tag, c, &st) ? 1 : 0;
    if (!*flag) idle_poll(s.ctx());
    if (*flag) store_status(st, status);
    return MPI_SUCCESS;
  });
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return entry("MPI_Mprobe", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Mprobe");
    require_pointer(message, "MPI_Mprobe", "message");
    s.check_message_room("MPI_Mprobe");
    MessageStatus st;
    *message = message_handle(s, s.ctx().mprobe(source, tag, c, &st), comm);
    store_status(st, status);
    return MPI_SUCCESS;
  });
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  return entry("MPI_Improbe", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Improbe");
    require_pointer(flag, "MPI_Improbe", "flag");
    require_pointer(message, "MPI_Improbe", "message");
    s.check_message_room("MPI_Improbe");
    MessageStatus st;
    const std::optional<MessageId> id = s.ctx().improbe(source, tag, c, &st);
    *flag = id ? 1 : 0;
    if (!id) {
      *message = MPI_MESSAGE_NULL;
      idle_poll(s.ctx());
      return MPI_SUCCESS;
    }
    *message = message_handle(s, *id, comm);
    store_status(st, status);
    return MPI_SUCCESS;
  });
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  return mrecv("MPI_Mrecv", buf, count, datatype, message, status);
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}

int MPI_Request_free(MPI_Request* request) {
  return entry("MPI_Request_free", comm_of_request(request), [&](RankState& s) {
    require_pointer(request, "MPI_Request_free", "request");
    if (*request == MPI_REQUEST_NULL)
      throw Error(ErrorClass::MPI_ERR_REQUEST, "MPI_Request_free(request)", "request is MPI_REQUEST_NULL");
    RequestEntry* e = s.request(*request, "MPI_Request_free");  // an inactive persistent one is fine
    if (e != nullptr && e->collective)
      throw Error(ErrorClass::MPI_ERR_REQUEST, "MPI_Request_free(request)",
                  fmt::format("a nonblocking collective's request ({}) cannot be freed; complete it with MPI_Wait or "
                              "MPI_Test (MPI-3.1 section 5.12)",
                              e->what));
    if (e != nullptr && e->grequest) {
      // MPI-3.1 §12.2: free_fn runs once both this and MPI_Grequest_complete happened.
      if (!s.ctx().is_done(e->id)) {
        e->grequest->freed = true;  // the slot stays for MPI_Grequest_complete
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
      }
      RequestId id = e->id;
      const Grequest g = *e->grequest;
      s.ctx().wait(id);  // done: only releases the core request
      s.free_request(*request);
      const int rc = g.free(g.extra_state);
      if (rc != MPI_SUCCESS)
        throw Error(static_cast<ErrorClass>(rc), "MPI_Request_free",
                    fmt::format("free_fn of the generalized request returned error code {}", rc));
      return MPI_SUCCESS;
    }
    s.detach_request(*request);  // an active one completes on its own
    s.reap_detached(false);
    return MPI_SUCCESS;
  });
}

int MPI_Cancel(MPI_Request* request) {
  return entry("MPI_Cancel", comm_of_request(request), [&](RankState& s) {
    require_pointer(request, "MPI_Cancel", "request");
    RequestEntry* e = s.request(*request, "MPI_Cancel");
    if (e == nullptr)
      throw Error(ErrorClass::MPI_ERR_REQUEST, "MPI_Cancel(request)",
                  "request is MPI_REQUEST_NULL or an inactive persistent request");
    if (e->grequest) {  // MPI-3.1 §12.2: cancel_fn, told whether it was completed
      const Grequest g = *e->grequest;
      const int rc = g.cancel(g.extra_state, s.ctx().is_done(e->id) ? 1 : 0);
      if (rc != MPI_SUCCESS)
        throw Error(static_cast<ErrorClass>(rc), "MPI_Cancel",
                    fmt::format("cancel_fn of the generalized request returned error code {}", rc));
      return MPI_SUCCESS;
    }
    // A send or a matched receive completes normally; a nonblocking collective's
    // request is refused by the core (MPI_ERR_REQUEST).
    s.ctx().cancel(e->id);
    return MPI_SUCCESS;
  });
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  return entry("MPI_Test_cancelled", MPI_COMM_WORLD, [&](RankState&) {
    if (status == nullptr || status == MPI_STATUS_IGNORE)
      throw Error(ErrorClass::MPI_ERR_ARG, "MPI_Test_cancelled(status)", "null or MPI_STATUS_IGNORE");
    require_pointer(flag, "MPI_Test_cancelled", "flag");
    *flag = status->twinfab_cancelled;
    return MPI_SUCCESS;
  });
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return entry("MPI_Get_count", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(count, "MPI_Get_count", "count");
    const long long n = count_of(s, status, datatype, "MPI_Get_count");
    *count = n > 0x7fffffff ? MPI_UNDEFINED : static_cast<int>(n);  // MPI_Get_count_c has the large counts
    return MPI_SUCCESS;
  });
}

int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return entry("MPI_Get_count_c", MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(count, "MPI_Get_count_c", "count");
    *count = count_of(s, status, datatype, "MPI_Get_count_c");
    return MPI_SUCCESS;
  });
}

}  // extern "C"

namespace {

/// MPI_Get_elements and MPI_Get_elements_x: the basic elements the status's message
/// holds as `datatype` (mpi::Datatype::elements_in), MPI_UNDEFINED when it ends
/// inside one.
long long elements_of(RankState& s, const MPI_Status* status, MPI_Datatype datatype, const char* where) {
  if (status == nullptr || status == MPI_STATUS_IGNORE)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(status)", where), "null or MPI_STATUS_IGNORE");
  const DatatypePtr& t = s.type(datatype, where);
  const std::optional<std::int64_t> n = t->elements_in(status->twinfab_count_bytes);
  return n ? *n : MPI_UNDEFINED;
}

/// MPI_Get_elements_x and its MPI-4.0 twin MPI_Get_elements_c.
int large_elements(const char* where, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    const long long n = elements_of(s, status, datatype, where);
    require_pointer(count, where, "count");
    *count = n;
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return entry("MPI_Get_elements", MPI_COMM_WORLD, [&](RankState& s) {
    const long long n = elements_of(s, status, datatype, "MPI_Get_elements");
    require_pointer(count, "MPI_Get_elements", "count");
    *count = n > 0x7fffffff ? MPI_UNDEFINED : static_cast<int>(n);  // the _x variant has the large counts
    return MPI_SUCCESS;
  });
}

int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return large_elements("MPI_Get_elements_x", status, datatype, count);
}

int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return large_elements("MPI_Get_elements_c", status, datatype, count);
}

// ---- large counts (MPI-4.0 §5.2.2): the bodies above with an MPI_Count count.

int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send("MPI_Send_c", buf, count, datatype, dest, tag, comm, SendMode::Standard);
}

int MPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, SendMode::Synchronous);
}

int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return isend("MPI_Isend_c", buf, count, datatype, dest, tag, comm, request, SendMode::Standard);
}

int MPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return isend("MPI_Issend_c", buf, count, datatype, dest, tag, comm, request, SendMode::Synchronous);
}

int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return irecv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}

int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Status* status) {
  return recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                   MPI_Status* status) {
  return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                  recvtag, comm, status);
}

int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status);
}

int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}

}  // extern "C"
