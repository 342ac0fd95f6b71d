// MPI_Reduce_local: one local reduction step, with the argument checks a reduction's
// buffers get (coll_support.hpp), so that it refuses what MPI_Reduce would: as in
// MPICH, MPI_IN_PLACE and overlapping buffers are MPI_ERR_BUFFER here too.
#include <fmt/format.h>

#include "mpi/coll/coll_support.hpp"

namespace twinfab::mpi {

void reduce_local_checked(const void* inbuf, void* inoutbuf, std::int64_t count, const DatatypePtr& type,
                          const ReductionOp& op) {
  const char* where = "MPI_Reduce_local";
  coll::check_buffer(inbuf, count, type, where, "inbuf");
  coll::check_buffer(inoutbuf, count, type, where, "inoutbuf");
  coll::check_reduction(op, type, where);
  if (coll::buffers_overlap(inbuf, count, *type, inoutbuf, count, *type))
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(inoutbuf)", where),
                "inbuf and inoutbuf overlap; the input must be a separate buffer");
  reduce_local(op, inbuf, inoutbuf, count, *type, where);
}

}  // namespace twinfab::mpi
