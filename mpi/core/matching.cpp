#include "mpi/core/matching.hpp"

#include <fmt/format.h>

namespace twinfab::mpi {

std::string to_string(const Envelope& envelope) {
  const std::string source =
      envelope.source == kAnySource ? std::string("MPI_ANY_SOURCE") : std::to_string(envelope.source);
  const std::string tag = envelope.tag == kAnyTag ? std::string("MPI_ANY_TAG") : std::to_string(envelope.tag);
  return fmt::format("context {}, source {}, tag {}", envelope.context_id, source, tag);
}

}  // namespace twinfab::mpi
