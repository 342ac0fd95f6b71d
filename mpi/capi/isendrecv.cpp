// MPI C API: MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10). The core builds
// each as one background operation holding the receive and the send
// (mpi/core/isendrecv.cpp); its request is an ordinary one here: any wait or test
// completes it with the receive's status, and a truncated receive is reported there.
#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

namespace {

int isendrecv(const char* where, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
              MPI_Request* request) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& st = s.type(sendtype, where, "sendtype");
    const DatatypePtr& rt = s.type(recvtype, where, "recvtype");
    require_pointer(request, where, "request");
    const RequestId id =
        s.ctx().isendrecv(sendbuf, sendcount, st, dest, sendtag, recvbuf, recvcount, rt, source, recvtag, c, where);
    *request = s.add_request(id, comm, where);
    return MPI_SUCCESS;
  });
}

int isendrecv_replace(const char* where, void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                      int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return entry(where, comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, where);
    const DatatypePtr& t = s.type(datatype, where);
    require_pointer(request, where, "request");
    const RequestId id = s.ctx().isendrecv_replace(buf, count, t, dest, sendtag, source, recvtag, c, where);
    *request = s.add_request(id, comm, where);
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                   recvtag, comm, request);
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Request* request) {
  return isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                           request);
}

// ---- large counts (MPI-4.0 §5.2.2)

int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Request* request) {
  return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                   recvtag, comm, request);
}

int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                           request);
}

}  // extern "C"
