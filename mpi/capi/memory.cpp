// MPI C API: MPI_Alloc_mem and MPI_Free_mem.
//
// Plain memory from the C library, aligned to a cache line (to the page from 4 KiB
// up, so that a registration of the block covers no neighbour's bytes). Nothing is
// registered with the device in advance: the first rendezvous transfer from or to the
// block registers it through the registration cache, and later ones hit the cache,
// as for any other buffer; no hint of the info argument changes that, so all are
// ignored. The rank remembers its blocks, so that MPI_Free_mem of anything else is
// refused (MPI_ERR_BASE) instead of corrupting the heap, and frees those the program
// left when its state goes (after main returns).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

extern "C" {

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return entry("MPI_Alloc_mem", MPI_COMM_WORLD, [&](RankState& s) {
    if (size < 0)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("MPI_Alloc_mem(size={})", size), "must not be negative");
    s.infos.check_hints(info, "MPI_Alloc_mem");
    require_pointer(baseptr, "MPI_Alloc_mem", "baseptr");
    const std::size_t alignment = size >= 4096 ? 4096 : 64;
    // aligned_alloc wants a multiple of the alignment; size 0 still gets a block of its
    // own, so that the address can be freed like any other.
    const std::size_t bytes = (std::max<std::size_t>(static_cast<std::size_t>(size), 1) + alignment - 1) / alignment *
                              alignment;
    void* block = std::aligned_alloc(alignment, bytes);
    if (block == nullptr)
      throw Error(ErrorClass::MPI_ERR_NO_MEM, fmt::format("MPI_Alloc_mem(size={})", size),
                  "the system has no memory for a block of that size");
    try {
      s.allocated_memory.emplace(block, bytes);
    } catch (...) {
      std::free(block);
      throw;
    }
    *static_cast<void**>(baseptr) = block;
    return MPI_SUCCESS;
  });
}

int MPI_Free_mem(void* base) {
  return entry("MPI_Free_mem", MPI_COMM_WORLD, [&](RankState& s) {
    if (base == nullptr) return MPI_SUCCESS;  // as free(NULL), and as MPICH
    auto it = s.allocated_memory.find(base);
    if (it == s.allocated_memory.end())
      throw Error(ErrorClass::MPI_ERR_BASE, fmt::format("MPI_Free_mem(base={})", base),
                  "not the address of a block MPI_Alloc_mem gave this rank (or freed already)");
    s.allocated_memory.erase(it);
    std::free(base);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
