#include "bench/memory_latency.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>

namespace twinfab::bench {

namespace {

constexpr std::size_t kLine = 64;

struct alignas(kLine) Line {
  const Line* next;
};

/// Follows the cycle `loads` times from `start`; returns where it ended, so that the
/// compiler must perform every load.
const Line* chase(const Line* start, std::size_t loads) {
  const Line* p = start;
  for (std::size_t i = 0; i < loads; ++i) p = p->next;
  return p;
}

}  // namespace

std::vector<LoadLatency> dependent_load_latency(const std::vector<std::size_t>& sizes, std::size_t loads) {
  std::vector<LoadLatency> points;
  std::mt19937_64 random(42);
  for (std::size_t bytes : sizes) {
    if (bytes < kLine) throw std::invalid_argument("dependent_load_latency: a size below one 64-byte line");
    const std::size_t lines = bytes / kLine;
    std::vector<Line> buffer(lines);
    // A random order of the lines, linked into one cycle through all of them.
    std::vector<std::size_t> order(lines);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), random);
    for (std::size_t i = 0; i < lines; ++i) buffer[order[i]].next = &buffer[order[(i + 1) % lines]];
    const Line* p = chase(&buffer[order[0]], lines);  // warm: every line once
    const auto start = std::chrono::steady_clock::now();
    p = chase(p, loads);
    const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    // Keeps the chase observable (p is never null: the cycle has no end).
    points.push_back({bytes, p != nullptr ? elapsed.count() / static_cast<double>(loads) : 0.0});
  }
  return points;
}

}  // namespace twinfab::bench
