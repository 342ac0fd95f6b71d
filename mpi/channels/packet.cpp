#include "mpi/channels/packet.hpp"

namespace twinfab::mpi {

std::string_view to_string(PacketType type) noexcept {
  switch (type) {
    case PacketType::CreditUpdate: return "CreditUpdate";
    case PacketType::Eager: return "Eager";
    case PacketType::EagerData: return "EagerData";
    case PacketType::Rts: return "Rts";
    case PacketType::Cts: return "Cts";
    case PacketType::Fin: return "Fin";
    case PacketType::SyncAck: return "SyncAck";
    case PacketType::Bye: return "Bye";
    case PacketType::EagerWhole: return "EagerWhole";
  }
  return "?";
}

}  // namespace twinfab::mpi
