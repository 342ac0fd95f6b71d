#include "tools/twinfab/cli_conventions.hpp"

#include <cerrno>
#include <cstdlib>

namespace twinfab::tools {

CLI::Validator number_check(bool whole) {
  return CLI::Validator(
      [whole](std::string& value) -> std::string {
        const char* begin = value.c_str();
        char* end = nullptr;
        if (!value.empty()) {
          errno = 0;
          std::strtod(begin, &end);
        }
        if (value.empty() || end == begin || *end != '\0') return "'" + value + "' is not a number";
        if (whole) {
          // As CLI11 reads integers: decimal, or 0x / 0 prefixed. A sign is left to the
          // option's range check, which names the range.
          std::strtoll(begin, &end, 0);
          if (*end != '\0') return "'" + value + "' is not a whole number";
        }
        return {};
      },
      "", whole ? "integer" : "number");  // no description: the help already names the type
}

}  // namespace twinfab::tools
