#include "backends/sim/platform_overrides.hpp"

#include <fmt/format.h>

#include <sstream>
#include <string_view>
#include <utility>

#include "fabric/error.hpp"

namespace twinfab::sim {
namespace {

using fabric::Error;
using fabric::Status;

// `text` as a TOML basic string, so that any text becomes a string value.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\u{:04X}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The value as TOML reads it in `v = <value>`, or as a string when that is not one
// TOML value ("20Gbps", "fat-tree"). The document's path is the override's text, so
// that every node parsed from it says where it came from.
toml::table parse_value(std::string_view value, const std::string& origin) {
  try {
    toml::table parsed = toml::parse("v = " + std::string(value), origin);
    // "1\nname = 2" is TOML too; only a single value is one.
    if (parsed.size() == 1 && parsed.contains("v")) return parsed;
  } catch (const toml::parse_error&) {
  }
  try {
    return toml::parse("v = " + quoted(trim_blanks(value)), origin);
  } catch (const toml::parse_error& e) {
    // Only text TOML cannot hold at all (invalid UTF-8) gets here.
    throw Error(Status::InvalidArgument,
                fmt::format("override {}: the value is not valid text ({})", origin, e.description()));
  }
}

}  // namespace

void apply_platform_overrides(toml::table& document, const std::vector<std::string>& overrides,
                              const std::string& source) {
  for (const std::string& text : overrides) {
    const auto malformed = [&](std::string_view why) {
      return Error(Status::InvalidArgument,
                   fmt::format("{}: override \"{}\": {}; write KEY=VALUE with a dotted key, e.g. "
                               "hca.icm_cache_entries=64 or network.link_bandwidth=20Gbps",
                               source, text, why));
    };
    const auto equals = text.find('=');
    if (equals == std::string::npos) throw malformed("no '='");
    const std::string_view key = trim_blanks(std::string_view(text).substr(0, equals));
    if (key.empty()) throw malformed("empty key");

    std::vector<std::string_view> parts;
    for (std::string_view rest = key;;) {
      const auto dot = rest.find('.');
      const std::string_view part = trim_blanks(rest.substr(0, dot));
      if (part.empty()) throw malformed(fmt::format("empty part in key \"{}\"", key));
      parts.push_back(part);
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }

    toml::table parsed = parse_value(std::string_view(text).substr(equals + 1), text);
    toml::node& value = *parsed.get("v");
    // Keys the override creates carry its origin too: an unknown one is reported as
    // the override's, not as the file's.
    const toml::source_region origin = value.source();

    toml::table* table = &document;
    std::string walked;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      walked += (walked.empty() ? "" : ".") + std::string(parts[i]);
      toml::node* node = table->get(parts[i]);
      if (node == nullptr) {
        node = &table->insert_or_assign(toml::key(parts[i], origin), toml::table{}).first->second;
      } else if (!node->is_table()) {
        std::ostringstream type;  // toml++'s names: "string", "integer", "array", ...
        type << node->type();
        const bool vowel = std::string_view("aeiou").find(type.str().front()) != std::string_view::npos;
        throw malformed(fmt::format("{} is {} {}, not a table, so it has no key {}", walked, vowel ? "an" : "a",
                                    type.str(), parts[i + 1]));
      }
      table = node->as_table();
    }
    table->insert_or_assign(toml::key(parts.back(), origin), std::move(value));
  }
}

std::string_view trim_blanks(std::string_view text) {
  constexpr std::string_view blanks = " \t";
  const auto b = text.find_first_not_of(blanks);
  if (b == std::string_view::npos) return {};
  return text.substr(b, text.find_last_not_of(blanks) - b + 1);
}

}  // namespace twinfab::sim
