#include "mpi/core/external32.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>
#include <vector>

#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

// How one scalar of a basic type is converted: the predefined types are one or two
// of these (a complex number two floats, a pair its value then its int index).
enum class Field : std::uint8_t {
  Raw,         // bytes as they are (chars, MPI_BYTE, C bool)
  Signed,      // two's complement integer, resized with a range check
  Unsigned,    // unsigned integer, resized with a range check
  Float,       // IEEE float or double: the byte order only
  LongDouble,  // the native long double <-> IEEE binary128
};

struct Scalar {
  Field field;
  std::uint8_t native;    ///< bytes in the native packed form
  std::uint8_t external;  ///< bytes in external32
};

struct Layout {
  Scalar first;
  Scalar second;  ///< external == 0: none
};

template <class T>
constexpr Scalar integer(std::uint8_t external) {
  return {std::is_signed_v<T> ? Field::Signed : Field::Unsigned, sizeof(T), external};
}
constexpr Scalar kRaw1{Field::Raw, 1, 1};
constexpr Scalar kFloat{Field::Float, sizeof(float), 4};
constexpr Scalar kDouble{Field::Float, sizeof(double), 8};
constexpr Scalar kLongDouble{Field::LongDouble, sizeof(long double), 16};
constexpr Scalar kIndex = integer<int>(4);
constexpr Scalar kNone{Field::Raw, 0, 0};
static_assert(sizeof(bool) == 1 && sizeof(float) == 4 && sizeof(double) == 8);
static_assert(std::numeric_limits<double>::is_iec559 && std::numeric_limits<float>::is_iec559);

// MPI-3.1 Table 13.2. MPI_WCHAR is a 2-byte code unit (unsigned: a wchar_t is a
// character, not a number); MPI_AINT, MPI_OFFSET and MPI_COUNT are 8 bytes.
Layout layout(BasicKind kind) {
  switch (kind) {
    case BasicKind::Char:
    case BasicKind::SignedChar:
    case BasicKind::UnsignedChar:
    case BasicKind::Byte:
    case BasicKind::Packed:
    case BasicKind::Int8:
    case BasicKind::Uint8:
    case BasicKind::CBool: return {kRaw1, kNone};
    case BasicKind::Short: return {integer<short>(2), kNone};
    case BasicKind::UnsignedShort: return {integer<unsigned short>(2), kNone};
    case BasicKind::Int: return {integer<int>(4), kNone};
    case BasicKind::Unsigned: return {integer<unsigned>(4), kNone};
    case BasicKind::Long: return {integer<long>(4), kNone};
    case BasicKind::UnsignedLong: return {integer<unsigned long>(4), kNone};
    case BasicKind::LongLong: return {integer<long long>(8), kNone};
    case BasicKind::UnsignedLongLong: return {integer<unsigned long long>(8), kNone};
    case BasicKind::Float: return {kFloat, kNone};
    case BasicKind::Double: return {kDouble, kNone};
    case BasicKind::LongDouble: return {kLongDouble, kNone};
    case BasicKind::Wchar: return {{Field::Unsigned, sizeof(wchar_t), 2}, kNone};
    case BasicKind::Int16: return {integer<std::int16_t>(2), kNone};
    case BasicKind::Int32: return {integer<std::int32_t>(4), kNone};
    case BasicKind::Int64: return {integer<std::int64_t>(8), kNone};
    case BasicKind::Uint16: return {integer<std::uint16_t>(2), kNone};
    case BasicKind::Uint32: return {integer<std::uint32_t>(4), kNone};
    case BasicKind::Uint64: return {integer<std::uint64_t>(8), kNone};
    case BasicKind::Aint: return {integer<std::ptrdiff_t>(8), kNone};
    case BasicKind::Offset:
    case BasicKind::Count: return {integer<std::int64_t>(8), kNone};
    case BasicKind::CFloatComplex: return {kFloat, kFloat};
    case BasicKind::CDoubleComplex: return {kDouble, kDouble};
    case BasicKind::CLongDoubleComplex: return {kLongDouble, kLongDouble};
    case BasicKind::FloatInt: return {kFloat, kIndex};
    case BasicKind::DoubleInt: return {kDouble, kIndex};
    case BasicKind::LongInt: return {integer<long>(4), kIndex};
    case BasicKind::TwoInt: return {kIndex, kIndex};
    case BasicKind::ShortInt: return {integer<short>(2), kIndex};
    case BasicKind::LongDoubleInt: return {kLongDouble, kIndex};
  }
  return {kNone, kNone};  // not reached
}

// ---- integers: native (any byte order) <-> big-endian

std::uint64_t load_native(const std::byte* p, std::size_t n, bool is_signed) {
  switch (n) {
    case 1: { std::int8_t v; std::memcpy(&v, p, 1); return is_signed ? static_cast<std::uint64_t>(std::int64_t{v}) : static_cast<std::uint8_t>(v); }
    case 2: { std::int16_t v; std::memcpy(&v, p, 2); return is_signed ? static_cast<std::uint64_t>(std::int64_t{v}) : static_cast<std::uint16_t>(v); }
    case 4: { std::int32_t v; std::memcpy(&v, p, 4); return is_signed ? static_cast<std::uint64_t>(std::int64_t{v}) : static_cast<std::uint32_t>(v); }
    default: { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

void store_native(std::byte* p, std::size_t n, std::uint64_t v) {
  switch (n) {
    case 1: { auto x = static_cast<std::uint8_t>(v); std::memcpy(p, &x, 1); return; }
    case 2: { auto x = static_cast<std::uint16_t>(v); std::memcpy(p, &x, 2); return; }
    case 4: { auto x = static_cast<std::uint32_t>(v); std::memcpy(p, &x, 4); return; }
    default: std::memcpy(p, &v, 8); return;
  }
}

void store_big(std::byte* p, std::size_t n, std::uint64_t v) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::byte>(v >> (8 * (n - 1 - i)));
}

std::uint64_t load_big(const std::byte* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

/// Whether `v` (sign-extended when is_signed) fits in `bytes` bytes.
bool fits(std::uint64_t v, std::size_t bytes, bool is_signed) {
  if (bytes >= 8) return true;
  const unsigned bits = static_cast<unsigned>(8 * bytes);
  if (!is_signed) return v >> bits == 0;
  const auto s = static_cast<std::int64_t>(v);
  const std::int64_t limit = std::int64_t{1} << (bits - 1);
  return s >= -limit && s < limit;
}

std::uint64_t sign_extend(std::uint64_t v, std::size_t bytes) {
  if (bytes >= 8) return v;
  const unsigned shift = static_cast<unsigned>(64 - 8 * bytes);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
}

// ---- floating point

void reverse_if_little(const std::byte* in, std::byte* out, std::size_t n) {
  if constexpr (std::endian::native == std::endian::little) {
    for (std::size_t i = 0; i < n; ++i) out[i] = in[n - 1 - i];
  } else {
    std::memcpy(out, in, n);
  }
}

// The native long double as IEEE binary128, big-endian. x86's 80-bit extended format
// has binary128's sign and exponent (bias 16383) and an explicit integer bit before 63
// fraction bits, so the conversion moves bits and is exact; back, the 49 fraction bits
// extended precision cannot hold are dropped (truncation). A long double that is
// already binary128 (aarch64) is only byte-swapped.
constexpr int kLongDoubleDigits = std::numeric_limits<long double>::digits;
static_assert(kLongDoubleDigits == 64 || kLongDoubleDigits == 113, "external32: unknown long double format");

void long_double_out(const std::byte* in, std::byte* out) {
  if constexpr (kLongDoubleDigits == 113) {
    reverse_if_little(in, out, 16);
  } else {
    std::uint64_t mantissa;
    std::uint16_t sign_exponent;
    std::memcpy(&mantissa, in, 8);  // x86 (little-endian): mantissa, then sign and exponent
    std::memcpy(&sign_exponent, in + 8, 2);
    const std::uint64_t fraction = mantissa & ~(std::uint64_t{1} << 63);
    store_big(out, 8, (std::uint64_t{sign_exponent} << 48) | (fraction >> 15));
    store_big(out + 8, 8, fraction << 49);
  }
}

void long_double_in(const std::byte* in, std::byte* out) {
  if constexpr (kLongDoubleDigits == 113) {
    reverse_if_little(in, out, 16);
  } else {
    const std::uint64_t hi = load_big(in, 8), lo = load_big(in + 8, 8);
    const auto sign_exponent = static_cast<std::uint16_t>(hi >> 48);
    const std::uint64_t fraction = ((hi & ((std::uint64_t{1} << 48) - 1)) << 15) | (lo >> 49);
    const std::uint64_t integer_bit = (sign_exponent & 0x7fff) != 0 ? std::uint64_t{1} << 63 : 0;
    const std::uint64_t mantissa = integer_bit | fraction;
    std::memset(out, 0, sizeof(long double));
    std::memcpy(out, &mantissa, 8);
    std::memcpy(out + 8, &sign_exponent, 2);
  }
}

[[noreturn]] void refuse(BasicKind kind, std::uint64_t value, bool is_signed, const Scalar& s, std::string_view where) {
  const std::string shown = is_signed ? fmt::format("{}", static_cast<std::int64_t>(value)) : fmt::format("{}", value);
  throw Error(ErrorClass::MPI_ERR_CONVERSION, fmt::format("{}(datarep=\"external32\")", where),
              fmt::format("a {} of value {} does not fit in external32's {} bytes", to_string(kind), shown,
                          s.external));
}

void scalar_out(BasicKind kind, const Scalar& s, const std::byte* in, std::byte* out, std::string_view where) {
  switch (s.field) {
    case Field::Raw: std::memcpy(out, in, s.native); return;
    case Field::Signed:
    case Field::Unsigned: {
      const bool is_signed = s.field == Field::Signed;
      const std::uint64_t v = load_native(in, s.native, is_signed);
      if (!fits(v, s.external, is_signed)) refuse(kind, v, is_signed, s, where);
      store_big(out, s.external, v);
      return;
    }
    case Field::Float: reverse_if_little(in, out, s.native); return;
    case Field::LongDouble: long_double_out(in, out); return;
  }
}

void scalar_in(const Scalar& s, const std::byte* in, std::byte* out) {
  switch (s.field) {
    case Field::Raw: std::memcpy(out, in, s.native); return;
    case Field::Signed: store_native(out, s.native, sign_extend(load_big(in, s.external), s.external)); return;
    case Field::Unsigned: store_native(out, s.native, load_big(in, s.external)); return;
    case Field::Float: reverse_if_little(in, out, s.native); return;
    case Field::LongDouble: long_double_in(in, out); return;
  }
}

/// Walks the basic elements of `count` elements of `type` in the native packed form
/// and in external32 side by side: fn(kind, scalar, native offset, external offset).
template <class Fn>
void each_scalar(std::int64_t count, const Datatype& type, Fn&& fn) {
  std::size_t native = 0, external = 0;
  type.for_each_basic_run(count, [&](BasicKind kind, std::int64_t n) {
    const Layout l = layout(kind);
    for (std::int64_t i = 0; i < n; ++i) {
      for (const Scalar* s : {&l.first, &l.second}) {
        if (s->external == 0) continue;
        fn(kind, *s, native, external);
        native += s->native;
        external += s->external;
      }
    }
  });
}

}  // namespace

std::int64_t external32_size(BasicKind kind) noexcept {
  const Layout l = layout(kind);
  return l.first.external + l.second.external;
}

std::int64_t external32_size(std::int64_t count, const Datatype& type, std::string_view where) {
  check_buffer_type(count, &type, where);
  const std::int64_t one = type.sum_over_basic([](BasicKind kind) { return external32_size(kind); });
  std::int64_t bytes;
  if (__builtin_mul_overflow(count, one, &bytes))
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(count={})", where, count),
                "the external32 size overflows 64 bits");
  return bytes;
}

void pack_external32(const void* buffer, std::int64_t count, const Datatype& type, std::span<std::byte> out,
                     std::string_view where) {
  std::vector<std::byte> native(static_cast<std::size_t>(packed_size(count, type, where)));
  pack(buffer, count, type, 0, native, where);
  each_scalar(count, type, [&](BasicKind kind, const Scalar& s, std::size_t from, std::size_t to) {
    scalar_out(kind, s, native.data() + from, out.data() + to, where);
  });
}

void unpack_external32(std::span<const std::byte> in, void* buffer, std::int64_t count, const Datatype& type,
                       std::string_view where) {
  std::vector<std::byte> native(static_cast<std::size_t>(packed_size(count, type, where)));
  each_scalar(count, type, [&](BasicKind, const Scalar& s, std::size_t to, std::size_t from) {
    scalar_in(s, in.data() + from, native.data() + to);
  });
  unpack(native, buffer, count, type, 0, where);
}

}  // namespace twinfab::mpi
