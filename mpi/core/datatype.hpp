// twinfab MPI core: datatypes (predefined and derived), their flattened layout, and
// pack/unpack.
//
// A Datatype is immutable once built, except for its name, its committed flag, and
// the mark the C API sets right after an MPI_X_c constructor built it.
// Construction does all the work: each type stores its *flattened* layout, the list
// of (byte offset, length) blocks of one element in type-map order, with adjacent
// blocks merged. So pack/unpack cost O(blocks) per element, "contiguous?" is O(1),
// and a stream can be resumed at any byte position (binary search on the blocks'
// packed offsets). The cost is memory: a vector of 10^6 single-element blocks keeps
// 10^6 blocks (MPICH's dataloops would keep one loop); fine for the workloads here.
//
// Lifetime follows MPI_Type_free: handles are shared_ptr; a derived type holds its
// inputs (for MPI_Type_get_contents, with the other arguments it was made from), so
// freeing an input that a derived type uses frees nothing until the derived type goes
// too.
//
// Predefined types are not globals (ARCHITECTURE rule 1: simulated ranks share one
// process, and MPI_Type_set_name may rename even MPI_INT): each rank's context owns
// a PredefinedDatatypes table.
//
// Errors: constructors and pack/unpack throw mpi::Error (MPI_ERR_COUNT for a
// negative count, MPI_ERR_ARG for a negative block length or mismatched arrays,
// MPI_ERR_TYPE for a null or uncommitted type). Negative strides and displacements
// are legal MPI and supported.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace twinfab::mpi {

/// The C layouts of the MAXLOC/MINLOC pair types (value, then index), as in C's
/// `struct { float f; int i; }`: the padding between and after is part of the layout.
namespace pair {
struct FloatInt { float value; int index; };
struct DoubleInt { double value; int index; };
struct LongInt { long value; int index; };
struct TwoInt { int value; int index; };
struct ShortInt { short value; int index; };
struct LongDoubleInt { long double value; int index; };
}  // namespace pair

/// Which predefined reduction operations a basic type admits (MPI-3 §5.9.2 groups).
enum class TypeGroup {
  CInteger,   // MIN MAX SUM PROD LAND LOR LXOR BAND BOR BXOR
  Floating,   // MIN MAX SUM PROD
  Complex,    // SUM PROD
  Logical,    // LAND LOR LXOR
  Byte,       // BAND BOR BXOR
  Character,  // none (MPI_WCHAR: text, not arithmetic)
  Packed,     // none
  Pair,       // MAXLOC MINLOC
};

// X-macro list of the predefined datatypes: enumerator, MPI name, C type, group.
#define TWINFAB_MPI_BASIC_TYPE_LIST(X)                                             \
  /* MPI_CHAR: MPI-3.1 5.9.2 lists it with no op (it is for text); MPICH and Open  \
     MPI reduce it as a C integer, and benchmark suites rely on that (MPI_SUM on   \
     MPI_CHAR is a common default), so twinfab does too: a documented deviation.   \
     MPI_WCHAR stays without ops. */                                               \
  X(Char, "MPI_CHAR", char, CInteger)                                              \
  X(SignedChar, "MPI_SIGNED_CHAR", signed char, CInteger)                          \
  X(UnsignedChar, "MPI_UNSIGNED_CHAR", unsigned char, CInteger)                    \
  X(Short, "MPI_SHORT", short, CInteger)                                           \
  X(UnsignedShort, "MPI_UNSIGNED_SHORT", unsigned short, CInteger)                 \
  X(Int, "MPI_INT", int, CInteger)                                                 \
  X(Unsigned, "MPI_UNSIGNED", unsigned, CInteger)                                  \
  X(Long, "MPI_LONG", long, CInteger)                                              \
  X(UnsignedLong, "MPI_UNSIGNED_LONG", unsigned long, CInteger)                    \
  X(LongLong, "MPI_LONG_LONG", long long, CInteger)                                \
  X(UnsignedLongLong, "MPI_UNSIGNED_LONG_LONG", unsigned long long, CInteger)      \
  X(Float, "MPI_FLOAT", float, Floating)                                           \
  X(Double, "MPI_DOUBLE", double, Floating)                                        \
  X(LongDouble, "MPI_LONG_DOUBLE", long double, Floating)                          \
  X(Wchar, "MPI_WCHAR", wchar_t, Character)                                        \
  X(Int8, "MPI_INT8_T", std::int8_t, CInteger)                                     \
  X(Int16, "MPI_INT16_T", std::int16_t, CInteger)                                  \
  X(Int32, "MPI_INT32_T", std::int32_t, CInteger)                                  \
  X(Int64, "MPI_INT64_T", std::int64_t, CInteger)                                  \
  X(Uint8, "MPI_UINT8_T", std::uint8_t, CInteger)                                  \
  X(Uint16, "MPI_UINT16_T", std::uint16_t, CInteger)                               \
  X(Uint32, "MPI_UINT32_T", std::uint32_t, CInteger)                               \
  X(Uint64, "MPI_UINT64_T", std::uint64_t, CInteger)                               \
  X(Aint, "MPI_AINT", std::ptrdiff_t, CInteger)                                    \
  X(Offset, "MPI_OFFSET", std::int64_t, CInteger)                                  \
  X(Count, "MPI_COUNT", std::int64_t, CInteger)                                    \
  X(CBool, "MPI_C_BOOL", bool, Logical)                                            \
  X(CFloatComplex, "MPI_C_FLOAT_COMPLEX", std::complex<float>, Complex)            \
  X(CDoubleComplex, "MPI_C_DOUBLE_COMPLEX", std::complex<double>, Complex)         \
  X(CLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX", std::complex<long double>, Complex) \
  X(Byte, "MPI_BYTE", std::byte, Byte)                                             \
  X(Packed, "MPI_PACKED", std::byte, Packed)                                       \
  X(FloatInt, "MPI_FLOAT_INT", pair::FloatInt, Pair)                               \
  X(DoubleInt, "MPI_DOUBLE_INT", pair::DoubleInt, Pair)                            \
  X(LongInt, "MPI_LONG_INT", pair::LongInt, Pair)                                  \
  X(TwoInt, "MPI_2INT", pair::TwoInt, Pair)                                        \
  X(ShortInt, "MPI_SHORT_INT", pair::ShortInt, Pair)                               \
  X(LongDoubleInt, "MPI_LONG_DOUBLE_INT", pair::LongDoubleInt, Pair)

/// A predefined datatype.
enum class BasicKind : std::uint8_t {
#define TWINFAB_MPI_BASIC_KIND_ENUM(kind, name, ctype, group) kind,
  TWINFAB_MPI_BASIC_TYPE_LIST(TWINFAB_MPI_BASIC_KIND_ENUM)
#undef TWINFAB_MPI_BASIC_KIND_ENUM
};

inline constexpr std::size_t kBasicKindCount = 0
#define TWINFAB_MPI_BASIC_KIND_COUNT(kind, name, ctype, group) +1
    TWINFAB_MPI_BASIC_TYPE_LIST(TWINFAB_MPI_BASIC_KIND_COUNT)
#undef TWINFAB_MPI_BASIC_KIND_COUNT
    ;

/// The MPI name, e.g. "MPI_DOUBLE_INT".
std::string_view to_string(BasicKind kind) noexcept;
TypeGroup group_of(BasicKind kind) noexcept;
/// MPI_Type_size of the basic type (a pair's padding excluded).
std::int64_t basic_size(BasicKind kind) noexcept;
/// sizeof the C type (a pair's padding included).
std::int64_t basic_extent(BasicKind kind) noexcept;

/// How a datatype was built (MPI_Type_get_envelope's combiner). The values are
/// MPICH's MPI_COMBINER_* (mpi.h defines them; mpi/capi checks they agree), so the C
/// API passes them through. The MPI-1/Fortran variants (HVECTOR_INTEGER, ...) and the
/// F90 ones are never built here.
enum class Combiner : std::uint8_t {
  Named = 1,
  Dup = 2,
  Contiguous = 3,
  Vector = 4,
  Hvector = 6,
  Indexed = 7,
  Hindexed = 9,
  IndexedBlock = 10,
  Struct = 12,
  Subarray = 13,
  Darray = 14,
  Resized = 18,
  HindexedBlock = 19,
};

/// Storage order of MPI_Type_create_subarray and _darray: the values are MPICH's MPI_ORDER_C and
/// MPI_ORDER_FORTRAN, which MPI_Type_get_contents returns among the integers.
enum class ArrayOrder : std::int32_t { C = 56, Fortran = 57 };

/// One contiguous run of bytes of an element: [offset, offset + length) relative to
/// the buffer address the element starts at (offsets may be negative).
struct Block {
  std::int64_t offset;
  std::int64_t length;
  bool operator==(const Block&) const = default;
};

class Datatype;
/// A datatype handle. Copies share the type; the type lives while any handle does.
using DatatypePtr = std::shared_ptr<Datatype>;

/// The arguments a derived type was made from (MPI_Type_get_envelope and
/// MPI_Type_get_contents, MPI-3.1 §4.1.13), in the order the standard lists them for
/// its combiner: e.g. for Indexed `integers` = {count, blocklengths..., displacements...};
/// for Subarray {ndims, sizes..., subsizes..., starts..., order}. Values are kept as
/// given (64-bit, as the constructors take them). `types` are the input types, kept
/// alive by the type made from them.
struct Contents {
  std::vector<std::int64_t> integers;
  std::vector<std::int64_t> addresses;
  std::vector<DatatypePtr> types;
};

class Datatype {
 public:
  // ---- constructors (MPI_Type_*); each returns an uncommitted type
  /// A fresh predefined type (committed). Normally obtained from PredefinedDatatypes.
  static DatatypePtr predefined(BasicKind kind);
  static DatatypePtr contiguous(std::int64_t count, const DatatypePtr& old_type);
  /// `stride` in multiples of old_type's extent.
  static DatatypePtr vector(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                            const DatatypePtr& old_type);
  /// `stride_bytes` in bytes (MPI_Type_create_hvector).
  static DatatypePtr hvector(std::int64_t count, std::int64_t blocklength, std::int64_t stride_bytes,
                             const DatatypePtr& old_type);
  /// Displacements in multiples of old_type's extent. The spans must have equal sizes.
  static DatatypePtr indexed(std::span<const std::int64_t> blocklengths,
                             std::span<const std::int64_t> displacements, const DatatypePtr& old_type);
  /// Displacements in bytes (MPI_Type_create_hindexed).
  static DatatypePtr hindexed(std::span<const std::int64_t> blocklengths,
                              std::span<const std::int64_t> byte_displacements, const DatatypePtr& old_type);
  /// MPI_Type_create_indexed_block: `displacements.size()` blocks of `blocklength`
  /// elements, displacements in multiples of old_type's extent.
  static DatatypePtr indexed_block(std::int64_t blocklength, std::span<const std::int64_t> displacements,
                                   const DatatypePtr& old_type);
  /// MPI_Type_create_hindexed_block: the same with displacements in bytes.
  static DatatypePtr hindexed_block(std::int64_t blocklength, std::span<const std::int64_t> byte_displacements,
                                    const DatatypePtr& old_type);
  /// MPI_Type_create_subarray (MPI-3.1 §4.1.3): the subarray `subsizes` at `starts` of
  /// an array `sizes` of old_type stored in `order`. Lower bound 0 and the extent of
  /// the whole array, so consecutive elements are consecutive whole arrays. Throws
  /// MPI_ERR_DIMS for no dimensions, MPI_ERR_ARG for arrays of unequal sizes, a size
  /// or subsize below 1, a negative start, or a subarray that leaves the array.
  static DatatypePtr subarray(std::span<const std::int64_t> sizes, std::span<const std::int64_t> subsizes,
                              std::span<const std::int64_t> starts, ArrayOrder order, const DatatypePtr& old_type);
  /// How MPI_Type_create_darray distributes one dimension (MPICH's MPI_DISTRIBUTE_*
  /// values, which MPI_Type_get_contents returns among the integers).
  enum class Distribution : std::int32_t { Block = 121, Cyclic = 122, None = 123 };
  /// MPI_DISTRIBUTE_DFLT_DARG: the distribution argument that asks for the default.
  static constexpr std::int64_t kDefaultDarg = -49767;
  /// MPI_Type_create_darray (MPI-3.1 §4.1.4): the part of a global array `gsizes` of
  /// old_type stored in `order` that process `rank` of a `psizes` grid of `size`
  /// processes holds under the distributions `distribs` (dargs: block or cyclic
  /// sizes, or kDefaultDarg). Lower bound 0 and the extent of the global array. Built
  /// from the other constructors as MPICH builds it (darray.cpp). Throws MPI_ERR_ARG
  /// (naming the argument) for a bad size, grid, distribution or argument,
  /// MPI_ERR_RANK for a rank outside [0, size), MPI_ERR_DIMS for no dimensions.
  static DatatypePtr darray(std::int64_t size, std::int64_t rank, std::span<const std::int64_t> gsizes,
                            std::span<const Distribution> distribs, std::span<const std::int64_t> dargs,
                            std::span<const std::int64_t> psizes, ArrayOrder order, const DatatypePtr& old_type);
  /// MPI_Type_create_struct. Unless an input has explicit bounds (resized), the
  /// extent is rounded up to the largest alignment of the basic types inside, as a C
  /// compiler pads a struct, so that arrays of the type line up with C arrays.
  static DatatypePtr create_struct(std::span<const std::int64_t> blocklengths,
                                   std::span<const std::int64_t> byte_displacements,
                                   std::span<const DatatypePtr> types);
  /// MPI_Type_create_resized: same data, explicit lower bound and extent.
  static DatatypePtr create_resized(const DatatypePtr& old_type, std::int64_t lb, std::int64_t extent);
  /// MPI_Type_dup: same layout and committed state, no name.
  static DatatypePtr dup(const DatatypePtr& old_type);

  // ---- properties
  /// Bytes of data in one element (MPI_Type_size).
  std::int64_t size() const noexcept { return size_; }
  std::int64_t lb() const noexcept { return lb_; }
  std::int64_t ub() const noexcept { return ub_; }
  /// ub - lb: the distance between consecutive elements of an array of this type.
  std::int64_t extent() const noexcept { return ub_ - lb_; }
  /// Bounds of the bytes really touched, ignoring explicit bounds and padding.
  std::int64_t true_lb() const noexcept { return true_lb_; }
  std::int64_t true_extent() const noexcept { return true_ub_ - true_lb_; }

  /// True when `count` elements occupy one run of count*size() bytes starting at
  /// buffer + blocks().front().offset (so pack is one memcpy, or no copy at all).
  bool is_contiguous() const noexcept { return contiguous_; }
  /// The flattened layout of one element, in type-map (= pack) order.
  const std::vector<Block>& blocks() const noexcept { return blocks_; }
  /// For each block, where its bytes start in the packed form of one element.
  const std::vector<std::int64_t>& block_packed_offsets() const noexcept { return packed_start_; }

  /// The one predefined type every entry of the type map has, if there is one; what
  /// the predefined reduction operations need.
  std::optional<BasicKind> basic_kind() const noexcept { return basic_kind_; }
  /// Largest alignment of the basic types inside (1 for an empty type).
  std::int64_t alignment() const noexcept { return alignment_; }
  Combiner combiner() const noexcept { return combiner_; }
  bool is_predefined() const noexcept { return combiner_ == Combiner::Named; }
  /// The arguments this type was made from; null for a predefined type.
  const Contents* contents() const noexcept { return contents_.get(); }
  /// The input types (MPI_Type_get_contents), kept alive by this type.
  std::span<const DatatypePtr> inputs() const noexcept {
    return contents_ ? std::span<const DatatypePtr>(contents_->types) : std::span<const DatatypePtr>();
  }

  /// Calls fn(kind, n) for the basic elements of `count` elements of this type, in
  /// type-map (= packed) order, as runs of n consecutive elements of one predefined
  /// type (a pair type such as MPI_2INT is one element of its kind here). What a
  /// conversion of the packed form per basic element (MPI_Pack_external) walks next
  /// to pack()'s traversal. O(pieces) per element of a type that mixes basic types,
  /// O(1) for one that does not.
  template <class Fn>
  void for_each_basic_run(std::int64_t count, Fn&& fn) const {
    if (count == 0 || size_ == 0) return;
    if (basic_kind_) {
      fn(*basic_kind_, count * (size_ / basic_size(*basic_kind_)));
      return;
    }
    for (std::int64_t i = 0; i < count; ++i)
      for (const Piece& piece : pieces_) piece.type->for_each_basic_run(piece.count, fn);
  }

  /// The sum of per_kind(kind) over the basic elements of one element (a pair type
  /// counting once): e.g. the size of an element in another representation. O(pieces),
  /// without visiting the elements one by one.
  template <class Fn>
  std::int64_t sum_over_basic(Fn&& per_kind) const {
    if (size_ == 0) return 0;
    if (basic_kind_) return size_ / basic_size(*basic_kind_) * per_kind(*basic_kind_);
    std::int64_t sum = 0;
    for (const Piece& piece : pieces_) sum += piece.count * piece.type->sum_over_basic(per_kind);
    return sum;
  }

  /// Basic elements in one element: the predefined types of its type map, a pair type
  /// (MPI_2INT, MPI_DOUBLE_INT, ...) counting two, its value and its index, as MPICH
  /// and Open MPI count them.
  std::int64_t element_count() const noexcept { return elements_; }
  /// MPI_Get_elements: how many basic elements `bytes` bytes received with this type
  /// hold (whole elements, then the basic elements of a partial one in type-map order);
  /// empty when the bytes end inside a basic element. 0 for a type of size 0.
  std::optional<std::int64_t> elements_in(std::int64_t bytes) const noexcept;
  /// The inverse, for MPI_Status_set_elements: the bytes that `elements` basic
  /// elements of this type fill (whole elements, then the first basic elements of one
  /// in type-map order), so that elements_in() of the result gives `elements` back.
  /// Empty when that overflows. 0 for a type of size 0.
  std::optional<std::int64_t> bytes_of_elements(std::int64_t elements) const noexcept;

  /// Whether a null buffer (MPI_BOTTOM) can hold data of this type: only a derived
  /// type whose data does not start at offset 0 can have been built from absolute
  /// addresses (MPI_Get_address). MPICH's rule (MPIR_ERRTEST_USERBUFFER): a null
  /// buffer with data is an error for a predefined type or a true lower bound of 0.
  bool may_be_absolute() const noexcept { return !is_predefined() && true_lb_ != 0; }

  bool committed() const noexcept { return committed_; }
  /// MPI_Type_commit. Cheap: the layout was computed at construction.
  void commit() noexcept { committed_ = true; }

  const std::string& get_name() const noexcept { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  /// Whether a large-count constructor (MPI_Type_vector_c, ...) built the type: its
  /// contents' counts then go to MPI_Type_get_contents_c's large counts (MPI-4.0
  /// §5.1.13). The C API marks it once, right after construction.
  bool large_count_constructor() const noexcept { return large_count_constructor_; }
  void mark_large_count_constructor() noexcept { large_count_constructor_ = true; }

 private:
  Datatype() = default;
  // Fills lb/ub/size/blocks etc. from placements of input types; shared by all
  // derived constructors.
  struct Placement;
  static DatatypePtr build(Combiner combiner, std::span<const Placement> placements, Contents contents);
  void finish_layout();
  /// The basic elements in the first `bytes` packed bytes of one element (0 < bytes <
  /// size()), or empty when they end inside one.
  std::optional<std::int64_t> partial_elements(std::int64_t bytes) const noexcept;
  /// The bytes of the first `elements` (< elements_) basic elements of one element.
  std::int64_t partial_bytes(std::int64_t elements) const noexcept;

  /// `count` consecutive elements of an input type, in type-map order: the element map
  /// of a type whose basic elements differ in size, without expanding it (a contiguous
  /// type of 10^9 structs keeps one piece).
  struct Piece {
    const Datatype* type;  ///< kept alive by contents_ (or by the input a dup copied them from)
    std::int64_t count;
  };

  std::int64_t size_ = 0;
  std::int64_t lb_ = 0;
  std::int64_t ub_ = 0;
  std::int64_t true_lb_ = 0;
  std::int64_t true_ub_ = 0;
  std::int64_t alignment_ = 1;
  bool contiguous_ = true;
  bool explicit_bounds_ = false;  // resized somewhere inside: no struct padding
  bool committed_ = false;
  bool large_count_constructor_ = false;
  Combiner combiner_ = Combiner::Named;
  std::optional<BasicKind> basic_kind_;
  std::vector<Block> blocks_;
  std::vector<std::int64_t> packed_start_;  // packed offset of each block within an element
  // Null for a predefined type, which therefore pays one pointer for them. Shared
  // only so that dup and create_resized can copy a type whole; they replace it.
  std::shared_ptr<const Contents> contents_;
  /// For a type whose layout was copied from one built with the other constructors
  /// (darray), that type: its pieces_ point into it. Null otherwise.
  DatatypePtr layout_source_;
  std::string name_;
  std::int64_t elements_ = 0;      ///< basic elements per element
  std::int64_t element_size_ = 0;  ///< their common size; 0 when sizes differ (or there are none)
  /// Only for a derived type whose basic elements differ in size or in type
  /// (for_each_basic_run, elements_in).
  std::vector<Piece> pieces_;
};

/// The predefined datatypes of one rank (owned by the rank's context). Each is made
/// at its first use: a program uses a few of them, and thousands of simulated ranks
/// share one process (memory per rank).
class PredefinedDatatypes {
 public:
  const DatatypePtr& get(BasicKind kind) const {
    DatatypePtr& type = types_[static_cast<std::size_t>(kind)];
    if (!type) type = Datatype::predefined(kind);
    return type;
  }

 private:
  mutable std::array<DatatypePtr, kBasicKindCount> types_;
};

/// Checks a (count, datatype) pair a communication call received: throws
/// MPI_ERR_TYPE for a null or uncommitted type, MPI_ERR_COUNT for a negative count,
/// MPI_ERR_COUNT when count * size overflows. `where` names the call, e.g. "MPI_Send".
/// Inline, with the error messages built out of line: every message is checked.
/// `where` (a C string or a string_view) is read only for an error message, so a C
/// string's length is not computed on every message.
[[noreturn]] void throw_buffer_type_error(std::int64_t count, const Datatype* type, std::string_view where);
template <class Where>
inline void check_buffer_type(std::int64_t count, const Datatype* type, const Where& where) {
  std::int64_t bytes;
  if (type == nullptr || !type->committed() || count < 0 || __builtin_mul_overflow(count, type->size(), &bytes))
      [[unlikely]]
    throw_buffer_type_error(count, type, std::string_view(where));
}

/// Bytes that `count` elements occupy packed (MPI_Pack_size without headroom).
/// Checks as check_buffer_type does.
template <class Where>
inline std::int64_t packed_size(std::int64_t count, const Datatype& type, const Where& where) {
  check_buffer_type(count, &type, where);
  return count * type.size();
}
inline std::int64_t packed_size(std::int64_t count, const Datatype& type) {
  return packed_size(count, type, "MPI_Pack_size");
}

/// Packs the bytes [position, position + out.size()) of the packed form of `count`
/// elements of `type` at `buffer` into `out`, and returns how many it wrote (fewer
/// than out.size() only at the end of the data). Calling it again with position
/// advanced by the result continues the stream, so a protocol can send a message in
/// chunks of any size. Throws as check_buffer_type, and MPI_ERR_ARG for a position
/// beyond the packed size.
std::size_t pack(const void* buffer, std::int64_t count, const Datatype& type, std::size_t position,
                 std::span<std::byte> out, std::string_view where = "MPI_Pack");

/// The inverse of pack: scatters `in`, which holds packed bytes starting at
/// `position`, into `count` elements of `type` at `buffer`; returns the bytes
/// consumed (fewer than in.size() only when the elements are full).
std::size_t unpack(std::span<const std::byte> in, void* buffer, std::int64_t count, const Datatype& type,
                   std::size_t position, std::string_view where = "MPI_Unpack");

}  // namespace twinfab::mpi
