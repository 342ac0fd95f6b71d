// Internal (platform.cpp and its tests): "dotted.key=value" overrides applied to a
// parsed platform document before its schema is validated.
//
// An override is written as on a command line (`twinfab sim --set KEY=VALUE`, Python's
// `overrides=[...]`): the value is read as a TOML value ("64", "false", "0.01",
// "\"20Gbps\"", "[1, 2]", "{ a = 1 }"), and when it is not one, as a string, so that
// units need no quotes ("20Gbps"). Intermediate tables are created as needed.
//
// Each inserted node (and each key it creates) carries a source region whose path is
// the override's text: the schema's errors then name the override rather than a line
// of the file (see Reader::where in platform.cpp).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

namespace twinfab::sim {

/// Applies `overrides` to `document` in order (a later one replaces an earlier one's
/// value). `source` names the document in errors. Throws fabric::Error(InvalidArgument)
/// naming the override when one is malformed: no '=', an empty key or key part, or a
/// key path that goes through a value that is not a table ("name.x=1").
void apply_platform_overrides(toml::table& document, const std::vector<std::string>& overrides,
                              const std::string& source);

/// `text` without its leading and trailing blanks (spaces and tabs), as the platform
/// reader and the overrides read values, units, names and keys.
std::string_view trim_blanks(std::string_view text);

}  // namespace twinfab::sim
