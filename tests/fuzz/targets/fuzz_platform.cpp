// libFuzzer target: the platform TOML loader (backends/sim/platform.cpp) on any text.
// Contract: a platform, or fabric::Error with a message; never a crash, a hang, another
// exception or unbounded memory. The bytes after a NUL, if any, are one --set override
// (KEY=VALUE), so the overrides' parser is fuzzed on the same document.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/sim/platform.hpp"
#include "fabric/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string text = input.substr(0, nul);
  std::vector<std::string> overrides;
  if (nul != std::string::npos) overrides.push_back(input.substr(nul + 1));
  try {
    const twinfab::sim::Platform p = twinfab::sim::parse_platform(text, "fuzz.toml", overrides);
    // What the loader promises of a platform it accepts (platform.hpp).
    if (p.hosts == 0 || p.mtu == 0 || !(p.link_bandwidth > 0)) __builtin_trap();
  } catch (const twinfab::fabric::Error&) {
    // refused with a message: fine
  }
  return 0;
}
