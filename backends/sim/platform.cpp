// Platform description: TOML text -> Platform, with strict validation.
//
// Platform files are edited by hand, and a simulator that silently ignores a misspelt
// key or guesses a unit produces plausible-looking but wrong results. So every key is
// checked against the schema of its table, every unit is explicit, and every error
// names the file (with line:column when toml++ knows it), the dotted key and what is
// allowed. The schema is documented in docs/platforms.md; keep the two in step.

#include "backends/sim/platform.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "backends/sim/platform_overrides.hpp"
#include "fabric/error.hpp"

namespace twinfab::sim {
namespace {

namespace fs = std::filesystem;
using fabric::Error;
using fabric::Status;

// ---------------------------------------------------------------------------------
// Units
// ---------------------------------------------------------------------------------

// value_in_base_units = number * mul / div. Sub-unit prefixes divide by an exact
// power of ten instead of multiplying by an inexact 1e-6, which rounds once instead of
// twice: "1.2us" then comes out as the literal 1.2e-6 (tests compare with ==).
struct Unit {
  std::string_view name;
  double mul;
  double div;
};

constexpr double kKi = 1024.0;
constexpr double kMi = kKi * 1024.0;
constexpr double kGi = kMi * 1024.0;
constexpr double kTi = kGi * 1024.0;

// Rates use decimal SI prefixes (10 Gb/s is 10^10 bit/s on every datasheet); bits vs
// bytes is decided by the case of b/B, as datasheets write it. "GBps" and "mbps" are
// deliberately absent: they are read both ways in the wild.
constexpr Unit kBandwidthUnits[] = {
    {"bps", 1, 8},      {"kbps", 1e3, 8},    {"Kbps", 1e3, 8},   {"Mbps", 1e6, 8},   {"Gbps", 1e9, 8},
    {"Tbps", 1e12, 8},  {"bit/s", 1, 8},     {"kbit/s", 1e3, 8}, {"Kbit/s", 1e3, 8}, {"Mbit/s", 1e6, 8},
    {"Gbit/s", 1e9, 8}, {"Tbit/s", 1e12, 8}, {"b/s", 1, 8},      {"kb/s", 1e3, 8},   {"Kb/s", 1e3, 8},
    {"Mb/s", 1e6, 8},   {"Gb/s", 1e9, 8},    {"Tb/s", 1e12, 8},  {"B/s", 1, 1},      {"kB/s", 1e3, 1},
    {"KB/s", 1e3, 1},   {"MB/s", 1e6, 1},    {"GB/s", 1e9, 1},   {"TB/s", 1e12, 1},  {"KiB/s", kKi, 1},
    {"MiB/s", kMi, 1},  {"GiB/s", kGi, 1},   {"TiB/s", kTi, 1},
};
constexpr std::string_view kBandwidthHelp =
    "bits/s: bps, Kbps, Mbps, Gbps, Tbps (also written Kbit/s, Gbit/s, Gb/s, ...); "
    "bytes/s: B/s, KB/s, MB/s, GB/s, TB/s (decimal: 1 KB = 1000 B) or KiB/s, MiB/s, "
    "GiB/s, TiB/s (binary); a plain number is bytes/s";

constexpr Unit kTimeUnits[] = {
    {"s", 1, 1},           {"ms", 1, 1e3},  {"us", 1, 1e6}, {"\xC2\xB5s", 1, 1e6},  // micro sign
    {"\xCE\xBCs", 1, 1e6},                                                          // Greek mu
    {"ns", 1, 1e9},        {"ps", 1, 1e12},
};
constexpr std::string_view kTimeHelp = "s, ms, us (or \xC2\xB5s), ns, ps; a plain number is seconds";

constexpr Unit kSizeUnits[] = {
    {"", 1, 1},      {"B", 1, 1},     {"kB", 1e3, 1},  {"KB", 1e3, 1},  {"MB", 1e6, 1},  {"GB", 1e9, 1},
    {"TB", 1e12, 1}, {"KiB", kKi, 1}, {"MiB", kMi, 1}, {"GiB", kGi, 1}, {"TiB", kTi, 1},
};
constexpr std::string_view kSizeHelp =
    "B, KB, MB, GB, TB (decimal: 1 KB = 1000 B), KiB, MiB, GiB, TiB (binary: 1 KiB = "
    "1024 B); a plain number is bytes";

enum class Quantity { Bandwidth, Time, Size };

struct QuantitySpec {
  std::string_view noun;  // "a bandwidth"
  std::string_view example;
  std::string_view help;
  const Unit* units;
  size_t unit_count;
};

template <size_t N>
constexpr QuantitySpec make_spec(std::string_view noun, std::string_view example, std::string_view help,
                                 const Unit (&units)[N]) {
  return {noun, example, help, units, N};
}

const QuantitySpec& spec_of(Quantity q) {
  static const QuantitySpec bandwidth =
      make_spec("a bandwidth", "\"10Gbps\" or \"1.25GB/s\"", kBandwidthHelp, kBandwidthUnits);
  static const QuantitySpec time = make_spec("a time", "\"1.2us\" or \"300ns\"", kTimeHelp, kTimeUnits);
  static const QuantitySpec size = make_spec("a size", "\"4096\", \"2KiB\" or \"68KB\"", kSizeHelp, kSizeUnits);
  switch (q) {
    case Quantity::Bandwidth:
      return bandwidth;
    case Quantity::Time:
      return time;
    case Quantity::Size:
      return size;
  }
  return size;
}

// ---------------------------------------------------------------------------------
// Small helpers for messages
// ---------------------------------------------------------------------------------

std::string_view type_phrase(toml::node_type t) {
  switch (t) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time of day";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// How a value was written, for "got ..." (the text as typed, not the converted value).
std::string as_written(const toml::node& node) {
  if (const auto* s = node.as_string()) return fmt::format("\"{}\"", s->get());
  if (const auto* i = node.as_integer()) return fmt::format("{}", i->get());
  if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  return std::string(type_phrase(node.type()));
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// " (did you mean "x"?)" when one candidate is a plausible typo of `word`.
std::string suggestion(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (auto c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  const size_t tolerance = std::max<size_t>(2, word.size() / 3);
  if (best.empty() || best_distance > tolerance) return {};
  return fmt::format(" (did you mean \"{}\"?)", best);
}

std::string join_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

// ---------------------------------------------------------------------------------
// Reader: the file name plus a way to throw with a location
// ---------------------------------------------------------------------------------

class Reader {
 public:
  Reader(std::string source, const std::vector<std::string>& overrides)
      : source_(std::move(source)), overrides_(overrides) {
    if (!overrides_.empty())
      context_note_ = fmt::format(" (with override{} {})", overrides_.size() > 1 ? "s" : "", fmt::join(overrides_, ", "));
  }

  // "file (with override key=value)" for a node an override put there (its source
  // path is the override's text: platform_overrides.hpp); else "file:line:col" when
  // the node carries a position, else "file" -- each followed by the overrides
  // applied, since they may be why a value of the file no longer fits.
  std::string where(const toml::source_region* region) const {
    if (region && region->path &&
        std::find(overrides_.begin(), overrides_.end(), *region->path) != overrides_.end())
      return fmt::format("{} (with override {})", source_, *region->path);
    if (region && region->begin.line > 0)
      return fmt::format("{}:{}:{}{}", source_, region->begin.line, region->begin.column, context_note_);
    return context();
  }
  /// The document, and the overrides applied to it: for errors that no node explains
  /// (a missing key).
  std::string context() const { return source_ + context_note_; }
  std::string where(const toml::node* node) const { return where(node ? &node->source() : nullptr); }

  [[noreturn]] void fail(const toml::node* at, std::string_view message) const {
    throw Error(Status::InvalidArgument, fmt::format("{}: {}", where(at), message));
  }
  [[noreturn]] void fail(const toml::source_region& at, std::string_view message) const {
    throw Error(Status::InvalidArgument, fmt::format("{}: {}", where(&at), message));
  }

  // Converts a bandwidth/time/size node to base units. Does not check the range.
  double quantity(const toml::node& node, const std::string& path, Quantity q) const {
    const QuantitySpec& spec = spec_of(q);
    if (const auto* i = node.as_integer()) return static_cast<double>(i->get());
    if (const auto* f = node.as_floating_point()) {
      if (!std::isfinite(f->get())) fail(&node, fmt::format("{} must be a finite number, got {}", path, f->get()));
      return f->get();
    }
    const auto* s = node.as_string();
    if (!s)
      fail(&node, fmt::format("{} must be {}: a number in base units or a string with a unit such as {} "
                              "(units: {}), got {}",
                              path, spec.noun, spec.example, spec.help, type_phrase(node.type())));
    const std::string_view text = trim_blanks(s->get());
    double number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec == std::errc::result_out_of_range)
      fail(&node, fmt::format("{}: number out of range in \"{}\"", path, s->get()));
    if (ec != std::errc{})
      fail(&node, fmt::format("{} must be {}, a number followed by a unit such as {}, got \"{}\" "
                              "(units: {})",
                              path, spec.noun, spec.example, s->get(), spec.help));
    if (!std::isfinite(number)) fail(&node, fmt::format("{} must be a finite number, got \"{}\"", path, s->get()));
    const std::string_view unit = trim_blanks(std::string_view(end, text.data() + text.size() - end));
    for (size_t u = 0; u < spec.unit_count; ++u) {
      if (spec.units[u].name == unit) return number * spec.units[u].mul / spec.units[u].div;
    }
    if (unit.empty())
      fail(&node, fmt::format("{}: \"{}\" has no unit; write it with a unit such as {}, or as a plain "
                              "number in base units (units: {})",
                              path, s->get(), spec.example, spec.help));
    std::vector<std::string_view> names;
    for (size_t u = 0; u < spec.unit_count; ++u)
      if (!spec.units[u].name.empty()) names.push_back(spec.units[u].name);
    fail(&node, fmt::format("{}: unknown unit \"{}\" in \"{}\"{}; allowed units: {}", path, unit, s->get(),
                            suggestion(unit, names), spec.help));
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
  const std::vector<std::string>& overrides_;
  std::string context_note_;
};

// ---------------------------------------------------------------------------------
// Section: one TOML table with a closed set of keys
// ---------------------------------------------------------------------------------

class Section {
 public:
  // `table` may be null (the table is absent): every getter then keeps the default,
  // and a required key reports that it is missing.
  Section(const Reader& reader, const toml::table* table, std::string path,
          std::initializer_list<std::string_view> allowed)
      : reader_(reader), table_(table), path_(std::move(path)), allowed_(allowed) {
    if (!table_) return;
    for (auto&& [key, node] : *table_) {
      if (std::find(allowed_.begin(), allowed_.end(), key.str()) != allowed_.end()) continue;
      const std::string scope = path_.empty() ? "at the top level" : fmt::format("in [{}]", path_);
      reader_.fail(key.source(), fmt::format("unknown key {}{}; allowed keys {}: {}", join_path(path_, key.str()),
                                             suggestion(key.str(), allowed_), scope, fmt::join(allowed_, ", ")));
    }
  }

  std::string key_path(std::string_view key) const { return join_path(path_, key); }

  const toml::node* find(std::string_view key) const { return table_ ? table_->get(key) : nullptr; }

  // A sub-table, or null when absent. `[x]` written as `x = 5` is an error.
  const toml::table* table(std::string_view key) const {
    const toml::node* node = find(key);
    if (!node) return nullptr;
    if (const auto* t = node->as_table()) return t;
    reader_.fail(node, fmt::format("{} must be a table ([{}]), got {}", key_path(key), key_path(key),
                                   type_phrase(node->type())));
  }

  const toml::node* require(std::string_view key, std::string_view what) const {
    const toml::node* node = find(key);
    if (!node)
      throw Error(Status::InvalidArgument,
                  fmt::format("{}: missing required key {} ({})", reader_.context(), key_path(key), what));
    return node;
  }

  void string(std::string_view key, std::string& out) const {
    if (const toml::node* node = find(key)) out = string_of(*node, key);
  }
  std::string required_string(std::string_view key, std::string_view what) const {
    return string_of(*require(key, what), key);
  }

  void boolean(std::string_view key, bool& out) const {
    const toml::node* node = find(key);
    if (!node) return;
    const auto* b = node->as_boolean();
    if (!b) reader_.fail(node, fmt::format("{} must be true or false, got {}", key_path(key), as_written(*node)));
    out = b->get();
  }

  // An integer count in [lo, hi]; `meaning` explains the range in the message.
  template <class T>
  void integer(std::string_view key, T& out, int64_t lo, int64_t hi, std::string_view meaning = {}) const {
    if (const toml::node* node = find(key)) out = static_cast<T>(integer_of(*node, key_path(key), lo, hi, meaning));
  }
  int64_t integer_of(const toml::node& node, const std::string& path, int64_t lo, int64_t hi,
                     std::string_view meaning) const {
    const auto* i = node.as_integer();
    if (!i || i->get() < lo || i->get() > hi)
      reader_.fail(&node,
                   fmt::format("{} must be an integer in {}..{}{}, got {}", path, lo, hi, meaning, as_written(node)));
    return i->get();
  }

  // Bandwidth in bytes/s; always > 0 (a zero bandwidth would make transfers infinite).
  void bandwidth(std::string_view key, double& out, bool required) const {
    const toml::node* node = required ? require(key, "a bandwidth > 0, e.g. \"10Gbps\" or \"1.25GB/s\"") : find(key);
    if (!node) return;
    const double v = reader_.quantity(*node, key_path(key), Quantity::Bandwidth);
    if (!(v > 0)) reader_.fail(node, fmt::format("{} must be > 0, got {}", key_path(key), as_written(*node)));
    // Below 1 bit/s a message's transfer time overflows the simulated clock (inf).
    if (v < 0.125)
      reader_.fail(node, fmt::format("{} must be at least 1bps, got {}", key_path(key), as_written(*node)));
    out = v;
  }

  // Time in seconds; 0 to 1 hour (beyond, a few such delays overflow the simulated
  // clock's precision or its range: 1e300s gave a ring of 'inf us per iteration').
  void time(std::string_view key, double& out) const {
    const toml::node* node = find(key);
    if (!node) return;
    const double v = reader_.quantity(*node, key_path(key), Quantity::Time);
    if (v < 0) reader_.fail(node, fmt::format("{} must be >= 0, got {}", key_path(key), as_written(*node)));
    if (v > 3600)
      reader_.fail(node, fmt::format("{} must be at most 1 hour (3600s), got {}", key_path(key), as_written(*node)));
    out = v;
  }

  // Size in whole bytes, in [0, max of T].
  template <class T>
  void size(std::string_view key, T& out) const {
    if (const toml::node* node = find(key)) out = size_of<T>(*node, key_path(key));
  }
  template <class T>
  T size_of(const toml::node& node, const std::string& path) const {
    const double v = reader_.quantity(node, path, Quantity::Size);
    constexpr double max = static_cast<double>(std::numeric_limits<T>::max());
    if (v < 0 || v > max)
      reader_.fail(&node, fmt::format("{} must be a size in 0..{} bytes, got {}", path, std::numeric_limits<T>::max(),
                                      as_written(node)));
    if (v != std::floor(v))
      reader_.fail(&node,
                   fmt::format("{} must be a whole number of bytes, got {} (= {} bytes)", path, as_written(node), v));
    return static_cast<T>(v);
  }

  void probability(std::string_view key, double& out) const {
    if (const toml::node* node = find(key)) out = probability_of(*node, key_path(key));
  }
  double probability_of(const toml::node& node, const std::string& path) const {
    double v = 0;
    if (const auto* i = node.as_integer()) {
      v = static_cast<double>(i->get());
    } else if (const auto* f = node.as_floating_point()) {
      v = f->get();
    } else {
      reader_.fail(&node,
                   fmt::format("{} must be a probability, a number in [0, 1], got {}", path, type_phrase(node.type())));
    }
    if (!(v >= 0 && v <= 1))  // also rejects NaN
      reader_.fail(&node, fmt::format("{} must be a probability in [0, 1], got {}", path, as_written(node)));
    return v;
  }

  const Reader& reader() const { return reader_; }

 private:
  std::string string_of(const toml::node& node, std::string_view key) const {
    const auto* s = node.as_string();
    if (!s) reader_.fail(&node, fmt::format("{} must be a string, got {}", key_path(key), type_phrase(node.type())));
    return s->get();
  }

  const Reader& reader_;
  const toml::table* table_;
  std::string path_;
  std::vector<std::string_view> allowed_;
};

// ---------------------------------------------------------------------------------
// The schema, one function per table
// ---------------------------------------------------------------------------------

constexpr std::string_view kSingleSwitch = "single-switch";
constexpr std::string_view kFatTree = "fat-tree";
// SimGrid needs an unsigned host count; far above any run that fits in memory, low
// enough that hosts * ranks_per_host cannot overflow.
constexpr int64_t kMaxHosts = 1 << 24;
constexpr int64_t kMaxRanksPerHost = 1 << 12;

std::vector<unsigned> unsigned_array(const Section& s, std::string_view key, unsigned levels) {
  const std::string path = s.key_path(key);
  const toml::node* node = s.require(key, fmt::format("an array of {} integers >= 1, one per level", levels));
  const auto* array = node->as_array();
  if (!array)
    s.reader().fail(node, fmt::format("{} must be an array of integers >= 1 (one per level), got {}", path,
                                      type_phrase(node->type())));
  if (array->size() != levels)
    s.reader().fail(node, fmt::format("{} must have {} entries (one per level, topology.fat_tree.levels = {}), "
                                      "got {}",
                                      path, levels, levels, array->size()));
  std::vector<unsigned> out;
  for (size_t i = 0; i < array->size(); ++i) {
    out.push_back(
        static_cast<unsigned>(s.integer_of(*array->get(i), fmt::format("{}[{}]", path, i), 1, kMaxHosts, {})));
  }
  return out;
}

void read_topology(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("topology"), "topology", {"hosts", "ranks_per_host", "kind", "fat_tree"});
  s.integer("hosts", p.hosts, 1, kMaxHosts);
  s.integer("ranks_per_host", p.ranks_per_host, 1, kMaxRanksPerHost);

  std::string kind(kSingleSwitch);
  s.string("kind", kind);
  if (kind == kSingleSwitch) {
    p.topology = Topology::SingleSwitch;
  } else if (kind == kFatTree) {
    p.topology = Topology::FatTree;
  } else {
    s.reader().fail(s.find("kind"),
                    fmt::format("topology.kind must be one of \"{}\", \"{}\", got \"{}\"{}", kSingleSwitch, kFatTree,
                                kind, suggestion(kind, {kSingleSwitch, kFatTree})));
  }

  const toml::table* tree = s.table("fat_tree");
  if (p.topology == Topology::SingleSwitch) {
    if (tree)
      s.reader().fail(s.find("fat_tree"),
                      "topology.fat_tree is only used with topology.kind = \"fat-tree\" "
                      "(kind is \"single-switch\"); remove it or set kind = \"fat-tree\"");
    return;
  }
  if (!tree)
    throw Error(Status::InvalidArgument,
                fmt::format("{}: topology.kind = \"fat-tree\" needs a topology.fat_tree table "
                            "(fat_tree = {{ levels = 2, down = [...], up = [...], count = [...] }})",
                            s.reader().context()));
  Section ft(s.reader(), tree, "topology.fat_tree", {"levels", "down", "up", "count"});
  const toml::node* levels_node = ft.require("levels", "the number of switch levels, an integer >= 1");
  p.fat_tree.levels = static_cast<unsigned>(ft.integer_of(*levels_node, "topology.fat_tree.levels", 1, 8, {}));
  p.fat_tree.down = unsigned_array(ft, "down", p.fat_tree.levels);
  p.fat_tree.up = unsigned_array(ft, "up", p.fat_tree.levels);
  p.fat_tree.count = unsigned_array(ft, "count", p.fat_tree.levels);

  // SimGrid builds one leaf per product of the down counts; a mismatch would either
  // leave hosts unattached or fail deep inside SimGrid with a less helpful message.
  uint64_t leaves = 1;
  // Capped so it cannot overflow (each factor <= 2^24); any capped value is > hosts.
  for (unsigned d : p.fat_tree.down) leaves = std::min<uint64_t>(leaves * d, uint64_t{1} << 32);
  if (leaves != p.hosts)
    s.reader().fail(ft.find("down"),
                    fmt::format("topology.fat_tree.down: the product of the down counts ({} = {}) must equal "
                                "topology.hosts ({})",
                                fmt::join(p.fat_tree.down, " * "), leaves, p.hosts));
}

void read_network(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("network"), "network",
            {"link_bandwidth", "link_latency", "switch_latency", "mtu"});
  s.bandwidth("link_bandwidth", p.link_bandwidth, /*required=*/true);
  s.time("link_latency", p.link_latency);
  s.time("switch_latency", p.switch_latency);
  if (const toml::node* node = s.find("mtu")) {
    // The IB path MTUs (IBV_MTU_256 .. IBV_MTU_4096); iWARP and RoCE devices report
    // their Ethernet MTU through the same enum.
    const uint64_t mtu = s.size_of<uint64_t>(*node, "network.mtu");
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
      std::string hint;
      if (mtu == 1000 || mtu == 2000 || mtu == 4000)
        hint = fmt::format(" (KB = 1000 bytes; write \"{}KiB\" for {})", mtu / 1000, mtu / 1000 * 1024);
      else if (mtu > 256)  // an Ethernet MTU (iWARP, RoCE): verbs report the largest IB MTU below it
        hint = fmt::format(" (for an Ethernet MTU of {}, use the largest of these below it: {})", mtu,
                           mtu >= 4096   ? 4096
                           : mtu >= 2048 ? 2048
                           : mtu >= 1024 ? 1024
                           : mtu >= 512  ? 512
                                         : 256);
      s.reader().fail(
          node, fmt::format("network.mtu must be one of 256, 512, 1024, 2048, 4096, got {}{}{}", as_written(*node),
                            node->is_string() ? fmt::format(" = {} bytes", mtu) : std::string(), hint));
    }
    p.mtu = static_cast<uint32_t>(mtu);
  }
}

void read_hca(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("hca"), "hca",
            {"post_overhead", "wqe_processing", "pipeline_latency", "message_gap", "pcie_latency", "pcie_bandwidth", "atomic_latency", "read_response_latency", "poll_overhead",
             "header_bytes", "icm_cache_entries", "icm_miss_penalty", "ack_timeout", "retry_count", "rnr_retry",
             "min_rnr_timer", "event_latency", "pcie_full_duplex"});
  HcaParams& h = p.hca;
  s.time("post_overhead", h.post_overhead);
  s.time("wqe_processing", h.wqe_processing);
  s.time("pipeline_latency", h.pipeline_latency);
  s.time("message_gap", h.message_gap);
  s.time("pcie_latency", h.pcie_latency);
  s.bandwidth("pcie_bandwidth", h.pcie_bandwidth, /*required=*/true);
  s.boolean("pcie_full_duplex", h.pcie_full_duplex);
  s.time("atomic_latency", h.atomic_latency);
  s.time("read_response_latency", h.read_response_latency);
  s.time("poll_overhead", h.poll_overhead);
  s.time("event_latency", h.event_latency);
  s.size("header_bytes", h.header_bytes);
  if (h.header_bytes >= p.mtu)
    s.reader().fail(s.find("header_bytes"),
                    fmt::format("hca.header_bytes must be less than network.mtu ({}), got {}", p.mtu, h.header_bytes));
  s.integer("icm_cache_entries", h.icm_cache_entries, 0, std::numeric_limits<uint32_t>::max(),
            " (QP contexts cached on the HCA; 0 = no cache model)");
  s.time("icm_miss_penalty", h.icm_miss_penalty);
  s.integer("ack_timeout", h.ack_timeout, 0, 31, " (verbs encoding: 4.096 us * 2^ack_timeout; 0 = infinite)");
  s.integer("retry_count", h.retry_count, 0, 7);
  s.integer("rnr_retry", h.rnr_retry, 0, 7, " (7 = retry forever)");
  s.integer("min_rnr_timer", h.min_rnr_timer, 0, 31, " (verbs encoding: 12 = 0.64 ms)");
}

void read_features(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("features"), "features",
            {"atomics", "write_with_imm", "send_with_imm", "ud", "uc", "srq", "in_order_placement",
             "requires_connection_manager", "active_side_sends_first", "max_inline", "max_rd_atomic"});
  DeviceFeatures& f = p.features;
  s.boolean("atomics", f.atomics);
  s.boolean("write_with_imm", f.write_with_imm);
  s.boolean("send_with_imm", f.send_with_imm);
  s.boolean("ud", f.ud);
  s.boolean("uc", f.uc);
  s.boolean("srq", f.srq);
  s.boolean("in_order_placement", f.in_order_placement);
  s.boolean("requires_connection_manager", f.requires_connection_manager);
  s.boolean("active_side_sends_first", f.active_side_sends_first);
  s.size("max_inline", f.max_inline);
  // ibv_qp_attr::max_rd_atomic is a uint8_t.
  s.integer("max_rd_atomic", f.max_rd_atomic, 0, 255, " (outstanding RDMA reads/atomics per QP)");
}

void read_registration(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("registration"), "registration", {"base", "per_page", "page_size"});
  s.time("base", p.registration.base);
  s.time("per_page", p.registration.per_page);
  if (const toml::node* node = s.find("page_size")) {
    const uint64_t page = s.size_of<uint64_t>(*node, "registration.page_size");
    if (page < 512 || page > (uint64_t{1} << 30) || (page & (page - 1)) != 0)
      s.reader().fail(node, fmt::format("registration.page_size must be a power of two from 512 bytes to 1GiB "
                                        "(e.g. \"4KiB\", \"2MiB\"), got {}",
                                        as_written(*node)));
    p.registration.page_size = static_cast<uint32_t>(page);
  }
}

void read_host(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("host"), "host", {"memcpy_bandwidth", "shm_message_cost", "mpi_send_overhead", "mpi_receive_overhead", "mpi_receive_queue_overhead", "cores"});
  s.bandwidth("memcpy_bandwidth", p.memcpy_bandwidth, /*required=*/true);
  s.time("shm_message_cost", p.shm_message_cost);
  s.time("mpi_send_overhead", p.mpi_send_overhead);
  s.time("mpi_receive_overhead", p.mpi_receive_overhead);
  s.time("mpi_receive_queue_overhead", p.mpi_receive_queue_overhead);
  s.integer("cores", p.cores, 0, kMaxRanksPerHost, " (0 = one core per rank: topology.ranks_per_host)");
}

void read_loss(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("loss"), "loss", {"probability", "seed", "per_host"});
  s.probability("probability", p.loss.probability);
  s.integer("seed", p.loss.seed, 0, std::numeric_limits<int64_t>::max());
  const toml::node* node = s.find("per_host");
  if (!node) return;
  const auto* array = node->as_array();
  if (!array)
    s.reader().fail(node, fmt::format("loss.per_host must be an array of tables "
                                      "[{{ host = 0, probability = 0.01 }}, ...], got {}",
                                      type_phrase(node->type())));
  std::set<unsigned> seen;
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    const std::string path = fmt::format("loss.per_host[{}]", i);
    const auto* entry = element.as_table();
    if (!entry)
      s.reader().fail(&element, fmt::format("{} must be a table {{ host = <index>, probability = <0..1> }}, got {}",
                                            path, type_phrase(element.type())));
    Section e(s.reader(), entry, path, {"host", "probability"});
    const toml::node* host_node = e.require("host", fmt::format("a host index in 0..{}", p.hosts - 1));
    const toml::node* prob_node = e.require("probability", "a probability in [0, 1]");
    const auto host = static_cast<unsigned>(
        e.integer_of(*host_node, path + ".host", 0, static_cast<int64_t>(p.hosts) - 1,
                     fmt::format(" (host indices run from 0 to topology.hosts - 1 = {})", p.hosts - 1)));
    if (!seen.insert(host).second)
      s.reader().fail(host_node, fmt::format("{}.host: host {} already has a loss.per_host entry", path, host));
    p.loss.per_host.emplace_back(host, e.probability_of(*prob_node, path + ".probability"));
  }
}

void read_memory(const Section& root, Platform& p) {
  Section s(root.reader(), root.table("memory"), "memory",
            {"rc_qp_bytes", "uc_qp_bytes", "ud_qp_bytes", "qp_context_bytes"});
  s.size("rc_qp_bytes", p.memory.rc_qp_bytes);
  s.size("uc_qp_bytes", p.memory.uc_qp_bytes);
  s.size("ud_qp_bytes", p.memory.ud_qp_bytes);
  s.size("qp_context_bytes", p.memory.qp_context_bytes);
}

// ---------------------------------------------------------------------------------
// Files and the search path
// ---------------------------------------------------------------------------------

bool is_path_like(std::string_view s) {
  return s.find('/') != std::string_view::npos || (s.size() >= 5 && s.substr(s.size() - 5) == ".toml");
}

Platform parse_file(const fs::path& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) {
    const std::string cwd = path.is_relative() ? fmt::format(" (relative to {})", fs::current_path(ec).string()) : "";
    const std::vector<std::string> presets = list_presets();
    throw Error(Status::NotFound, fmt::format("platform file \"{}\" not found{}; give an existing .toml file or a "
                                              "preset name ({})",
                                              path.string(), cwd,
                                              presets.empty() ? "no presets found: set TWINFAB_PLATFORM_PATH"
                                                              : fmt::format("{}", fmt::join(presets, ", "))));
  }
  if (fs::is_directory(status))
    throw Error(Status::InvalidArgument,
                fmt::format("platform file \"{}\" is a directory; give a .toml file inside it", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Status::IoError, fmt::format("cannot open platform file \"{}\" for reading", path.string()));
  // Read in chunks up to a bound: a platform is a few kilobytes, and a device such as
  // /dev/zero would otherwise be read until memory runs out.
  constexpr std::size_t kMaxBytes = 16u << 20;
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxBytes)
      throw Error(Status::InvalidArgument,
                  fmt::format("platform file \"{}\" is larger than 16 MiB: not a platform description",
                              path.string()));
  }
  // (an empty file parses as an empty document and then fails as "missing name")
  if (in.bad()) throw Error(Status::IoError, fmt::format("error while reading platform file \"{}\"", path.string()));
  return parse_platform(text, path.string(), overrides);
}

std::string describe_search_path(const std::vector<fs::path>& dirs) {
  if (dirs.empty()) return "no directories (TWINFAB_PLATFORM_PATH is unset and no built-in directory is configured)";
  std::vector<std::string> parts;
  for (const auto& d : dirs) {
    std::error_code ec;
    parts.push_back(fs::is_directory(d, ec) ? d.string()
                    : fs::exists(d, ec)     ? fmt::format("{} (not a directory)", d.string())
                                            : fmt::format("{} (does not exist)", d.string()));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

Platform parse_platform(const std::string& toml_text, const std::string& source) {
  return parse_platform(toml_text, source, {});
}

Platform parse_platform(const std::string& toml_text, const std::string& source,
                        const std::vector<std::string>& overrides) {
  toml::table document;
  try {
    document = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    // The most common slip in these files: a unit-suffixed value left unquoted.
    const std::string_view what = e.description();
    const bool in_number = what.find("integer") != what.npos || what.find("floating-point") != what.npos;
    throw Error(
        Status::InvalidArgument,
        fmt::format("{}:{}:{}: malformed TOML: {}{}", source, at.line, at.column, what,
                    in_number ? " (a value with a unit is a string: quote it, e.g. \"10Gbps\", \"1.2us\")" : ""));
  }

  // Before validation: an override gets the file's checks and messages.
  apply_platform_overrides(document, overrides, source);

  const Reader reader(source, overrides);
  const Section root(
      reader, &document, "",
      {"name", "description", "topology", "network", "hca", "features", "registration", "host", "loss", "memory"});
  Platform p;
  p.source = source;
  p.overrides = overrides;
  p.name = root.required_string("name", "a short name for the platform, e.g. name = \"connectx-ddr\"");
  if (trim_blanks(p.name).empty()) reader.fail(root.find("name"), "name must not be empty");
  root.string("description", p.description);

  // Order matters: network before hca (header_bytes < mtu), topology before loss
  // (per-host indices < hosts).
  read_topology(root, p);
  read_network(root, p);
  read_hca(root, p);
  read_features(root, p);
  read_registration(root, p);
  read_host(root, p);
  read_loss(root, p);
  read_memory(root, p);
  return p;
}

std::vector<fs::path> preset_search_path() {
  std::vector<fs::path> dirs;
  auto add = [&dirs](fs::path dir) {
    if (dir.empty()) return;
    dir = dir.lexically_normal();
    if (!dir.has_filename() && dir.has_parent_path()) dir = dir.parent_path();  // drop a trailing '/'
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(std::move(dir));
  };
  if (const char* env = std::getenv("TWINFAB_PLATFORM_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      add(fs::path(std::string(rest.substr(0, colon))));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
#ifdef TWINFAB_SOURCE_DIR
  add(fs::path(TWINFAB_SOURCE_DIR) / "scenarios" / "platforms");
#endif
#ifdef TWINFAB_INSTALL_DATADIR
  // The installed presets directory itself, ${prefix}/share/twinfab/platforms
  // (defined in backends/sim/CMakeLists.txt).
  add(fs::path(TWINFAB_INSTALL_DATADIR));
#endif
  return dirs;
}

std::vector<std::string> list_presets() {
  std::set<std::string> names;
  for (const auto& dir : preset_search_path()) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code file_ec;
      if (it->path().extension() == ".toml" && it->is_regular_file(file_ec)) names.insert(it->path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

Platform load_platform(const std::string& name_or_path) { return load_platform(name_or_path, {}); }

Platform load_platform(const std::string& name_or_path, const std::vector<std::string>& overrides) {
  if (trim_blanks(name_or_path).empty())
    throw Error(Status::InvalidArgument,
                fmt::format("empty platform name; give a preset name (one of: {}) or a path to a .toml file",
                            fmt::join(list_presets(), ", ")));
  if (is_path_like(name_or_path)) return parse_file(fs::path(name_or_path), overrides);

  const auto dirs = preset_search_path();
  for (const auto& dir : dirs) {
    const fs::path candidate = dir / (name_or_path + ".toml");
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return parse_file(candidate, overrides);
  }
  const auto presets = list_presets();
  std::vector<std::string_view> names(presets.begin(), presets.end());
  std::string hint = suggestion(name_or_path, names);
  if (hint.empty()) {
    // A family name ("connectx") is not a typo of any one preset, but names several.
    std::vector<std::string_view> family;
    std::copy_if(names.begin(), names.end(), std::back_inserter(family),
                 [&](std::string_view n) { return n.find(name_or_path) != std::string_view::npos; });
    if (!family.empty()) hint = fmt::format(" (did you mean one of: {}?)", fmt::join(family, ", "));
  }
  throw Error(Status::NotFound,
              fmt::format("unknown platform preset \"{}\"{}; available presets: {}; searched: {}; add directories "
                          "with TWINFAB_PLATFORM_PATH=dir1:dir2, or pass a path to a .toml file",
                          name_or_path, hint,
                          presets.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(presets, ", ")),
                          describe_search_path(dirs)));
}

}  // namespace twinfab::sim
