// Reads the memory trace of `valgrind --tool=lackey --trace-mem=yes` on stdin and
// prints every 64-byte data line touched between two hits of a marker instruction,
// with the instruction that touched it first in that window and how often it was
// accessed there. bench/footprint.sh runs it; see there for what the output means.
//
//   footprint_trace_lines MARKER_ADDRESS FIRST_HIT LAST_HIT
//
// The window starts at hit FIRST_HIT + 1 of MARKER_ADDRESS (hex, as lackey prints
// instruction addresses) and ends just before hit LAST_HIT + 1. The whole trace is
// read to its end, so that the traced program is not killed by a broken pipe.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace {

struct Line {
  std::uint64_t first_instruction = 0;
  std::uint64_t accesses = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fmt::print(stderr, "usage: {} MARKER_ADDRESS FIRST_HIT LAST_HIT < lackey-trace\n", argv[0]);
    return 2;
  }
  char *end_marker = nullptr, *end_first = nullptr, *end_last = nullptr;
  const std::uint64_t marker = std::strtoull(argv[1], &end_marker, 16);
  const long first = std::strtol(argv[2], &end_first, 10);
  const long last = std::strtol(argv[3], &end_last, 10);
  if (*end_marker != '\0' || *end_first != '\0' || *end_last != '\0' || marker == 0 || first < 0 || last <= first) {
    fmt::print(stderr, "footprint_trace_lines: bad arguments (marker address in hex, 0 <= FIRST_HIT < LAST_HIT)\n");
    return 2;
  }
  long hits = 0;
  bool inside = false;
  std::uint64_t instruction = 0, instructions = 0;
  std::map<std::uint64_t, Line> lines;  // ordered: stable output
  char text[256];
  // Lackey's lines: "I  04011234,3" (instruction), " L 1ffefff9e0,8" (load),
  // " S ..." (store), " M ..." (modify); anything else is valgrind's own output.
  while (std::fgets(text, sizeof text, stdin) != nullptr) {
    if (text[0] == 'I' && text[1] == ' ') {
      instruction = std::strtoull(text + 3, nullptr, 16);
      if (instruction == marker) {
        ++hits;
        inside = hits > first && hits <= last;
      }
      instructions += inside;
      continue;
    }
    if (!inside || text[0] != ' ' || (text[1] != 'L' && text[1] != 'S' && text[1] != 'M')) continue;
    char* comma = nullptr;
    const std::uint64_t address = std::strtoull(text + 3, &comma, 16);
    const std::uint64_t size = comma != nullptr && *comma == ',' ? std::strtoull(comma + 1, nullptr, 10) : 1;
    for (std::uint64_t l = address >> 6; l <= (address + (size == 0 ? 0 : size - 1)) >> 6; ++l) {
      Line& line = lines[l];
      if (line.accesses++ == 0) line.first_instruction = instruction;
    }
  }
  if (hits <= last) {
    fmt::print(stderr, "footprint_trace_lines: the marker {:#x} was hit {} times, the window needs {}\n", marker, hits,
               last + 1);
    return 1;
  }
  fmt::print("# marker hits {} instructions {} lines {}\n", hits, instructions, lines.size());
  for (const auto& [l, line] : lines) fmt::print("{:x} {:x} {}\n", l << 6, line.first_instruction, line.accesses);
  return 0;
}
