#include "fabric/status.hpp"

namespace twinfab::fabric {

std::string_view to_string(Status status) noexcept {
  switch (status) {
#define TWINFAB_STATUS_NAME(name, text) \
  case Status::name:                    \
    return #name;
    TWINFAB_STATUS_LIST(TWINFAB_STATUS_NAME)
#undef TWINFAB_STATUS_NAME
  }
  return "UnknownStatus";
}

std::string_view describe(Status status) noexcept {
  switch (status) {
#define TWINFAB_STATUS_TEXT(name, text) \
  case Status::name:                    \
    return text;
    TWINFAB_STATUS_LIST(TWINFAB_STATUS_TEXT)
#undef TWINFAB_STATUS_TEXT
  }
  return "unknown status";
}

}  // namespace twinfab::fabric
