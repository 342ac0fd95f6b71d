// MPI C API: MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10). The core builds
// each as one background operation holding the receive and the send
// (mpi/core/isendrecv.cpp); its request is an ordinary one here: any wait or test
// completes it with the receive's status, and a truncated receive is reported there.
#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

extern "C" {

int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Request* request) {
  return entry("MPI_Isendrecv", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Isendrecv");
    const DatatypePtr& st = s.type(sendtype, "MPI_Isendrecv", "sendtype");
    const DatatypePtr& rt = s.type(recvtype, "MPI_Isendrecv", "recvtype");
    require_pointer(request, "MPI_Isendrecv", "request");
    const RequestId id = s.ctx().isendrecv(sendbuf, sendcount, st, dest, sendtag, recvbuf, recvcount, rt, source,
                                           recvtag, c, "MPI_Isendrecv");
    *request = s.add_request(id, comm, "MPI_Isendrecv");
    return MPI_SUCCESS;
  });
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Request* request) {
  return entry("MPI_Isendrecv_replace", comm, [&](RankState& s) {
    const Communicator& c = s.comm(comm, "MPI_Isendrecv_replace");
    const DatatypePtr& t = s.type(datatype, "MPI_Isendrecv_replace");
    require_pointer(request, "MPI_Isendrecv_replace", "request");
    const RequestId id =
        s.ctx().isendrecv_replace(buf, count, t, dest, sendtag, source, recvtag, c, "MPI_Isendrecv_replace");
    *request = s.add_request(id, comm, "MPI_Isendrecv_replace");
    return MPI_SUCCESS;
  });
}

}  // extern "C"
