// Helpers for the collective tests: typed element values for any predefined
// datatype (so one loop covers every op on every basic type), value comparison that
// ignores padding (pair types, long double), the rank counts every collective is
// checked at, and an error expectation.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/coll/collectives.hpp"
#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {

// The type list names the pair structs as pair::X, relative to namespace mpi.
namespace pair = mpi::pair;

/// Powers of two and not: the fold of recursive doubling, the partial tree of the
/// binomial algorithms and the ring's wrap-around all depend on it.
inline const std::vector<unsigned> kCollectiveRankCounts{1, 2, 3, 4, 7, 16, 64};

namespace detail {
template <class T>
void assign(T& x, long v, int index) {
  if constexpr (requires { x.index; }) {
    x.value = static_cast<decltype(x.value)>(v);
    x.index = index;
  } else if constexpr (std::is_same_v<T, std::byte>) {
    x = static_cast<std::byte>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    x = v != 0;
  } else {
    x = static_cast<T>(v);
  }
}
template <class T>
bool same(const T& a, const T& b) {
  if constexpr (requires { a.index; }) {
    return a.value == b.value && a.index == b.index;
  } else {
    return a == b;
  }
}
template <class T>
std::string show(const T& x) {
  if constexpr (requires { x.index; }) {
    return "(" + std::to_string(static_cast<long double>(x.value)) + ", " + std::to_string(x.index) + ")";
  } else if constexpr (std::is_same_v<T, std::byte>) {
    return std::to_string(static_cast<int>(x));
  } else if constexpr (requires { x.imag(); }) {
    return "(" + std::to_string(static_cast<long double>(x.real())) + ", " +
           std::to_string(static_cast<long double>(x.imag())) + ")";
  } else {
    return std::to_string(static_cast<long double>(x));
  }
}
}  // namespace detail

/// Element i of a buffer of `kind` set to value(i) (a pair's index to index(i)); the
/// buffer holds n elements in the C layout (basic_extent each).
template <class Value, class Index>
void fill(mpi::BasicKind kind, void* buffer, std::size_t n, Value value, Index index) {
  switch (kind) {
#define TWINFAB_TEST_FILL(k, name, ctype, group)                                     \
  case BasicKind::k: {                                                               \
    auto* p = static_cast<ctype*>(buffer);                                           \
    for (std::size_t i = 0; i < n; ++i) detail::assign(p[i], value(i), index(i));    \
    return;                                                                          \
  }
    TWINFAB_MPI_BASIC_TYPE_LIST(TWINFAB_TEST_FILL)
#undef TWINFAB_TEST_FILL
  }
}

/// The index of the first element where a and b differ in value (padding ignored),
/// or -1; `what` gets both values printed.
inline long first_difference(mpi::BasicKind kind, const void* a, const void* b, std::size_t n, std::string* what) {
  switch (kind) {
#define TWINFAB_TEST_DIFF(k, name, ctype, group)                                       \
  case BasicKind::k: {                                                                 \
    const auto* pa = static_cast<const ctype*>(a);                                     \
    const auto* pb = static_cast<const ctype*>(b);                                     \
    for (std::size_t i = 0; i < n; ++i)                                                \
      if (!detail::same(pa[i], pb[i])) {                                               \
        *what = detail::show(pa[i]) + " vs " + detail::show(pb[i]);                    \
        return static_cast<long>(i);                                                   \
      }                                                                                \
    return -1;                                                                         \
  }
    TWINFAB_MPI_BASIC_TYPE_LIST(TWINFAB_TEST_DIFF)
#undef TWINFAB_TEST_DIFF
  }
  return -1;
}

/// Runs `f`, which must throw mpi::Error of class `expected` whose message contains
/// `fragment`.
template <class F>
void expect_mpi_error(F&& f, mpi::ErrorClass expected, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected " << mpi::to_string(expected) << " (" << fragment << ")";
  } catch (const mpi::Error& e) {
    EXPECT_EQ(e.error_class(), expected) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

/// The non-commutative op of the reduction tests: x -> a*x + b (mod 2^64), composed; a
/// result is right only if an algorithm kept the operands in rank order.
struct Affine {
  std::uint64_t a;
  std::uint64_t b;
  bool operator==(const Affine&) const = default;
};

/// `left` first, then `right`.
inline Affine then(const Affine& left, const Affine& right) { return {right.a * left.a, right.a * left.b + right.b}; }

/// Rank `rank`'s element `k`.
inline Affine affine_input(int rank, std::int64_t k) {
  const auto r = static_cast<std::uint64_t>(rank);
  const auto i = static_cast<std::uint64_t>(k);
  return {3 + 2 * ((r * 7 + i) % 5), r * 11 + i * 13 + 1};
}

/// Ranks [first, last)'s element `k` composed in rank order.
inline Affine affine_fold(int first, int last, std::int64_t k) {
  Affine acc{1, 0};
  for (int r = first; r < last; ++r) acc = then(acc, affine_input(r, k));
  return acc;
}

}  // namespace twinfab::mpitest
