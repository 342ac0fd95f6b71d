// A program built against another MPI's mpi.h: its handles (Open MPI's MPI_COMM_WORLD
// is a pointer to the struct ompi_mpi_comm_world, MPICH's MPI_INT is 0x4c000405) mean
// nothing to twinfab, whose handles are 32-bit integers of its own encoding
// (rank_state.hpp). Refused at MPI_Init, with what to do, rather than at the first
// handle check as "not a communicator handle".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace twinfab::mpi::capi {

/// The MPI a shared library belongs to, by its file name ("Open MPI", "MPICH or a
/// derivative", "another MPI"), or nullptr when it is no MPI library. Inline: the
/// launcher (tools/twinfab) checks what a program it loads depends on with it too.
inline const char* foreign_mpi_family(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.starts_with("libmpi.so.40") || name.starts_with("libmpi.so.20") || name.starts_with("libopen-rte.so"))
    return "Open MPI";
  if (name.starts_with("libmpich.so") || name.starts_with("libmpi.so.12")) return "MPICH or a derivative";
  if (name.starts_with("libmpi.so.")) return "another MPI";
  return nullptr;
}

/// The other MPI library loaded into this process (its path and a guess of which MPI
/// it is: "Open MPI", "MPICH or a derivative"), or nothing. A program linked against
/// Open MPI loads libmpi.so.40; one linked against MPICH (or Intel MPI, MVAPICH)
/// libmpich.so.12 or libmpi.so.12.
struct ForeignMpi {
  std::string path;
  std::string family;
};
std::optional<ForeignMpi> find_foreign_mpi();

/// The sentence MPI_Init fails with when find_foreign_mpi() finds one.
std::string describe_foreign_mpi(const ForeignMpi& found);

/// For a datatype handle twinfab never made: a hint when it is MPICH's encoding of a
/// predefined datatype (0x4c00SSII: size SS in bytes, index II), else empty.
std::string foreign_datatype_hint(std::uint32_t handle);

}  // namespace twinfab::mpi::capi
