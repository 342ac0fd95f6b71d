#include "mpi/capi/foreign_mpi.hpp"

#include <fmt/format.h>
#include <link.h>

namespace twinfab::mpi::capi {

std::optional<ForeignMpi> find_foreign_mpi() {
  std::optional<ForeignMpi> found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        const char* name = info->dlpi_name;
        if (name == nullptr || *name == '\0') return 0;
        const char* family = foreign_mpi_family(name);
        if (family == nullptr) return 0;
        *static_cast<std::optional<ForeignMpi>*>(data) = ForeignMpi{name, family};
        return 1;  // the first one is enough
      },
      &found);
  return found;
}

std::string describe_foreign_mpi(const ForeignMpi& found) {
  return fmt::format("the program was built against another MPI ({}?): it loaded {}, and its handles "
                     "(MPI_COMM_WORLD, MPI_INT, ...) are that library's, not twinfab's; rebuild it with "
                     "twinfab-mpicc (or twinfab-mpicxx, pkg-config twinfab-mpi)",
                     found.family, found.path);
}

std::string foreign_datatype_hint(std::uint32_t handle) {
  const std::uint32_t size = (handle >> 8) & 0xff;
  const bool mpich_builtin = (handle & 0xffff0000u) == 0x4c000000u && size != 0 && (size & (size - 1)) == 0;
  if (!mpich_builtin) return {};
  return fmt::format("; 0x{:x} is how MPICH encodes a predefined {}-byte datatype: was the program compiled with "
                     "another MPI's mpi.h (MPICH?)? Rebuild it with twinfab-mpicc",
                     handle, size);
}

}  // namespace twinfab::mpi::capi
