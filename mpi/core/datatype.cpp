#include "mpi/core/datatype.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

struct BasicInfo {
  std::string_view name;
  TypeGroup group;
  std::int64_t size;       // MPI_Type_size: data bytes only (a pair's padding excluded)
  std::int64_t extent;     // sizeof the C type
  std::int64_t alignment;  // alignof the C type
  std::int64_t index_offset;  // pairs: offsetof(index); others: unused
};

template <class T>
constexpr BasicInfo make_info(std::string_view name, TypeGroup group) {
  if constexpr (requires(T t) { t.index; }) {
    return {name, group, static_cast<std::int64_t>(sizeof(T::value) + sizeof(int)), sizeof(T), alignof(T),
            static_cast<std::int64_t>(offsetof(T, index))};
  } else {
    return {name, group, sizeof(T), sizeof(T), alignof(T), 0};
  }
}

// Immutable table: not a "mutable global" of rule 1.
constexpr std::array<BasicInfo, kBasicKindCount> kBasicInfo = {{
#define TWINFAB_MPI_BASIC_INFO(kind, name, ctype, group) make_info<ctype>(name, TypeGroup::group),
    TWINFAB_MPI_BASIC_TYPE_LIST(TWINFAB_MPI_BASIC_INFO)
#undef TWINFAB_MPI_BASIC_INFO
}};

const BasicInfo& info(BasicKind kind) { return kBasicInfo[static_cast<std::size_t>(kind)]; }

// Checked arithmetic: a datatype or message whose byte count does not fit in 64 bits
// is a user error (MPI_ERR_COUNT), not silent wrap-around.
std::int64_t mul(std::int64_t a, std::int64_t b, std::string_view where) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw Error(ErrorClass::MPI_ERR_COUNT, where, "the datatype's size or extent overflows 64 bits");
  }
  return r;
}
std::int64_t add(std::int64_t a, std::int64_t b, std::string_view where) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    throw Error(ErrorClass::MPI_ERR_COUNT, where, "the datatype's size or extent overflows 64 bits");
  }
  return r;
}

void require_type(const DatatypePtr& type, std::string_view where) {
  if (!type) throw Error(ErrorClass::MPI_ERR_TYPE, where, "datatype is MPI_DATATYPE_NULL");
}
void require_count(std::int64_t count, std::string_view where) {
  if (count < 0) throw Error(ErrorClass::MPI_ERR_COUNT, where, "count must be non-negative");
}
void require_blocklength(std::int64_t blocklength, std::string_view where) {
  if (blocklength < 0) throw Error(ErrorClass::MPI_ERR_ARG, where, "block length must be non-negative");
}

// Appends a run to a flattened layout, merging it with the previous run when it
// continues it (the merge is what makes "contiguous?" and pack cheap).
void append_block(std::vector<Block>& blocks, std::int64_t offset, std::int64_t length) {
  if (length == 0) return;
  if (!blocks.empty() && blocks.back().offset + blocks.back().length == offset) {
    blocks.back().length += length;
    return;
  }
  blocks.push_back({offset, length});
}

// Visits the memory runs behind the packed bytes [position, position + n) of an
// array of `type`: fn(memory offset from the buffer, offset in the stream chunk, len).
// O(log blocks) to find the start, then O(1) per run.
template <class Fn>
void walk(const Datatype& type, std::size_t position, std::size_t n, Fn&& fn) {
  const auto& blocks = type.blocks();
  if (type.is_contiguous()) {
    fn(blocks.front().offset + static_cast<std::int64_t>(position), std::size_t{0}, n);
    return;
  }
  const auto& starts = type.block_packed_offsets();
  const auto size = static_cast<std::size_t>(type.size());
  std::int64_t element = static_cast<std::int64_t>(position / size);
  const auto within = static_cast<std::int64_t>(position % size);
  std::size_t b = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), within) - starts.begin()) - 1;
  std::int64_t skip = within - starts[b];
  std::size_t done = 0;
  while (done < n) {
    const Block& block = blocks[b];
    const std::size_t len = std::min(static_cast<std::size_t>(block.length - skip), n - done);
    fn(element * type.extent() + block.offset + skip, done, len);
    done += len;
    skip = 0;
    if (++b == blocks.size()) {
      b = 0;
      ++element;
    }
  }
}

}  // namespace

std::string_view to_string(BasicKind kind) noexcept { return info(kind).name; }
TypeGroup group_of(BasicKind kind) noexcept { return info(kind).group; }
std::int64_t basic_size(BasicKind kind) noexcept { return info(kind).size; }
std::int64_t basic_extent(BasicKind kind) noexcept { return info(kind).extent; }

// One input type placed `count` times back to back (at its extent) from `displacement`.
struct Datatype::Placement {
  std::int64_t displacement;
  std::int64_t count;
  const Datatype* type;
};

DatatypePtr Datatype::predefined(BasicKind kind) {
  const BasicInfo& i = info(kind);
  DatatypePtr t(new Datatype());
  t->combiner_ = Combiner::Named;
  t->basic_kind_ = kind;
  t->size_ = i.size;
  t->lb_ = 0;
  t->ub_ = i.extent;
  t->alignment_ = i.alignment;
  if (i.group == TypeGroup::Pair) {
    // The value, then the int index after the compiler's padding.
    const std::int64_t value_size = i.size - static_cast<std::int64_t>(sizeof(int));
    append_block(t->blocks_, 0, value_size);
    append_block(t->blocks_, i.index_offset, sizeof(int));
    t->elements_ = 2;
    t->element_size_ = value_size == static_cast<std::int64_t>(sizeof(int)) ? value_size : 0;
  } else {
    append_block(t->blocks_, 0, i.size);
    t->elements_ = 1;
    t->element_size_ = i.size;
  }
  t->name_ = std::string(i.name);
  t->committed_ = true;
  t->finish_layout();
  return t;
}

DatatypePtr Datatype::build(Combiner combiner, std::span<const Placement> placements, Contents contents) {
  DatatypePtr t(new Datatype());
  t->combiner_ = combiner;
  const std::string_view where = "datatype constructor";
  bool any = false;
  bool first_kind = true;
  bool mixed_sizes = false;  // basic elements of different sizes: keep the pieces
  for (const Placement& p : placements) {
    const Datatype& c = *p.type;
    t->explicit_bounds_ = t->explicit_bounds_ || c.explicit_bounds_;
    t->alignment_ = std::max(t->alignment_, c.alignment_);
    if (p.count == 0) continue;
    if (c.size_ > 0) {
      // The reduction ops need one basic kind across the whole type map.
      if (first_kind) {
        t->basic_kind_ = c.basic_kind_;
        t->element_size_ = c.element_size_;
        first_kind = false;
      } else if (t->basic_kind_ != c.basic_kind_) {
        t->basic_kind_.reset();
      }
      if (c.element_size_ != t->element_size_) mixed_sizes = true;
      if (!t->pieces_.empty() && t->pieces_.back().type == &c)
        t->pieces_.back().count += p.count;
      else
        t->pieces_.push_back({&c, p.count});
    }
    t->size_ = add(t->size_, mul(p.count, c.size_, where), where);
    t->elements_ += p.count * c.elements_;  // at most size_ (every element has a byte)
    const std::int64_t span = mul(p.count - 1, c.extent(), where);
    const std::int64_t lo = add(add(p.displacement, c.lb_, where), std::min<std::int64_t>(0, span), where);
    const std::int64_t hi = add(add(p.displacement, c.ub_, where), std::max<std::int64_t>(0, span), where);
    t->lb_ = any ? std::min(t->lb_, lo) : lo;
    t->ub_ = any ? std::max(t->ub_, hi) : hi;
    any = true;
    if (c.blocks_.empty()) continue;
    if (c.contiguous_) {
      append_block(t->blocks_, p.displacement + c.blocks_.front().offset, p.count * c.size_);
    } else {
      for (std::int64_t j = 0; j < p.count; ++j) {
        const std::int64_t base = p.displacement + j * c.extent();
        for (const Block& b : c.blocks_) append_block(t->blocks_, base + b.offset, b.length);
      }
    }
  }
  if (combiner == Combiner::Struct && any && !t->explicit_bounds_) {
    // MPI's epsilon: pad like a C compiler so that type[i+1] starts where C's would.
    const std::int64_t extent = t->ub_ - t->lb_;
    const std::int64_t rem = extent % t->alignment_;
    if (rem != 0) t->ub_ += t->alignment_ - rem;
  }
  if (mixed_sizes || t->element_size_ == 0) t->element_size_ = 0;
  // One basic type of one size throughout: neither elements_in() nor
  // for_each_basic_run() needs the map (elements_in() does for a pair of unequal halves).
  if (t->basic_kind_ && t->element_size_ != 0) t->pieces_ = {};
  t->contents_ = std::make_shared<const Contents>(std::move(contents));
  t->finish_layout();
  return t;
}

std::optional<std::int64_t> Datatype::elements_in(std::int64_t bytes) const noexcept {
  if (size_ == 0 || bytes <= 0) return 0;
  const std::int64_t whole = bytes / size_ * elements_;
  const std::int64_t rest = bytes % size_;
  if (rest == 0) return whole;
  const std::optional<std::int64_t> partial = partial_elements(rest);
  if (!partial) return std::nullopt;
  return whole + *partial;
}

std::optional<std::int64_t> Datatype::partial_elements(std::int64_t bytes) const noexcept {
  if (element_size_ != 0) {
    if (bytes % element_size_ != 0) return std::nullopt;
    return bytes / element_size_;
  }
  if (pieces_.empty()) {  // a predefined pair of unequal halves: the value is all but the int index
    return bytes == size_ - static_cast<std::int64_t>(sizeof(int)) ? std::optional<std::int64_t>(1) : std::nullopt;
  }
  std::int64_t count = 0;
  for (const Piece& piece : pieces_) {
    const Datatype& c = *piece.type;
    const std::int64_t whole = std::min(piece.count, bytes / c.size_);
    count += whole * c.elements_;
    bytes -= whole * c.size_;
    if (bytes == 0) return count;
    if (whole < piece.count) {  // the bytes end inside this piece's next element
      const std::optional<std::int64_t> inside = c.partial_elements(bytes);
      if (!inside) return std::nullopt;
      return count + *inside;
    }
  }
  return std::nullopt;  // not reached: bytes < size_
}

std::optional<std::int64_t> Datatype::bytes_of_elements(std::int64_t elements) const noexcept {
  if (elements_ == 0 || elements <= 0) return 0;
  std::int64_t whole;
  if (__builtin_mul_overflow(elements / elements_, size_, &whole)) return std::nullopt;
  return whole + partial_bytes(elements % elements_);
}

std::int64_t Datatype::partial_bytes(std::int64_t elements) const noexcept {
  if (elements == 0) return 0;
  if (element_size_ != 0) return elements * element_size_;
  if (pieces_.empty()) return size_ - static_cast<std::int64_t>(sizeof(int));  // the value of an unequal pair
  std::int64_t bytes = 0;
  for (const Piece& piece : pieces_) {
    const Datatype& c = *piece.type;
    if (c.elements_ == 0) continue;
    const std::int64_t whole = std::min(piece.count, elements / c.elements_);
    bytes += whole * c.size_;
    elements -= whole * c.elements_;
    if (elements == 0) return bytes;
    if (whole < piece.count) return bytes + c.partial_bytes(elements);
  }
  return bytes;  // not reached: elements < elements_
}

void Datatype::finish_layout() {
  packed_start_.clear();
  packed_start_.reserve(blocks_.size());
  std::int64_t packed = 0;
  true_lb_ = 0;
  true_ub_ = 0;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    packed_start_.push_back(packed);
    packed += blocks_[i].length;
    const std::int64_t lo = blocks_[i].offset;
    const std::int64_t hi = blocks_[i].offset + blocks_[i].length;
    true_lb_ = i == 0 ? lo : std::min(true_lb_, lo);
    true_ub_ = i == 0 ? hi : std::max(true_ub_, hi);
  }
  contiguous_ = blocks_.empty() || (blocks_.size() == 1 && blocks_.front().length == extent());
}

DatatypePtr Datatype::contiguous(std::int64_t count, const DatatypePtr& old_type) {
  const auto where = fmt::format("MPI_Type_contiguous(count={})", count);
  require_count(count, where);
  require_type(old_type, "MPI_Type_contiguous(oldtype)");
  const Placement p{0, count, old_type.get()};
  return build(Combiner::Contiguous, {&p, 1}, {{count}, {}, {old_type}});
}

namespace {
std::vector<std::int64_t> strided(std::int64_t count, std::int64_t stride_bytes, std::string_view where) {
  std::vector<std::int64_t> displacements;
  displacements.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) displacements.push_back(mul(i, stride_bytes, where));
  return displacements;
}
}  // namespace

DatatypePtr Datatype::vector(std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                             const DatatypePtr& old_type) {
  require_count(count, fmt::format("MPI_Type_vector(count={})", count));
  require_blocklength(blocklength, fmt::format("MPI_Type_vector(blocklength={})", blocklength));
  require_type(old_type, "MPI_Type_vector(oldtype)");
  const auto where = "MPI_Type_vector";
  const auto displacements = strided(count, mul(stride, old_type->extent(), where), where);
  std::vector<Placement> placements;
  placements.reserve(displacements.size());
  for (auto d : displacements) placements.push_back({d, blocklength, old_type.get()});
  return build(Combiner::Vector, placements, {{count, blocklength, stride}, {}, {old_type}});
}

DatatypePtr Datatype::hvector(std::int64_t count, std::int64_t blocklength, std::int64_t stride_bytes,
                              const DatatypePtr& old_type) {
  require_count(count, fmt::format("MPI_Type_create_hvector(count={})", count));
  require_blocklength(blocklength, fmt::format("MPI_Type_create_hvector(blocklength={})", blocklength));
  require_type(old_type, "MPI_Type_create_hvector(oldtype)");
  const auto displacements = strided(count, stride_bytes, "MPI_Type_create_hvector");
  std::vector<Placement> placements;
  placements.reserve(displacements.size());
  for (auto d : displacements) placements.push_back({d, blocklength, old_type.get()});
  return build(Combiner::Hvector, placements, {{count, blocklength}, {stride_bytes}, {old_type}});
}

namespace {
void require_same_length(std::size_t a, std::size_t b, std::string_view where) {
  if (a != b) {
    throw Error(ErrorClass::MPI_ERR_ARG, where,
                fmt::format("{} block lengths but {} displacements; the arrays must have count entries", a, b));
  }
}

// The integer arguments of the MPI constructors that take arrays: the count, then
// the arrays one after the other (MPI-3.1 §4.1.13).
std::vector<std::int64_t> count_and(std::initializer_list<std::int64_t> scalars,
                                    std::initializer_list<std::span<const std::int64_t>> arrays) {
  std::size_t n = scalars.size();
  for (auto a : arrays) n += a.size();
  std::vector<std::int64_t> integers;
  integers.reserve(n);
  integers.insert(integers.end(), scalars);
  for (auto a : arrays) integers.insert(integers.end(), a.begin(), a.end());
  return integers;
}
}  // namespace

DatatypePtr Datatype::indexed(std::span<const std::int64_t> blocklengths, std::span<const std::int64_t> displacements,
                              const DatatypePtr& old_type) {
  require_same_length(blocklengths.size(), displacements.size(), "MPI_Type_indexed");
  require_type(old_type, "MPI_Type_indexed(oldtype)");
  std::vector<Placement> placements;
  placements.reserve(blocklengths.size());
  for (std::size_t i = 0; i < blocklengths.size(); ++i) {
    require_blocklength(blocklengths[i],
                        fmt::format("MPI_Type_indexed(array_of_blocklengths[{}]={})", i, blocklengths[i]));
    placements.push_back(
        {mul(displacements[i], old_type->extent(), "MPI_Type_indexed"), blocklengths[i], old_type.get()});
  }
  const auto count = static_cast<std::int64_t>(blocklengths.size());
  return build(Combiner::Indexed, placements, {count_and({count}, {blocklengths, displacements}), {}, {old_type}});
}

DatatypePtr Datatype::hindexed(std::span<const std::int64_t> blocklengths,
                               std::span<const std::int64_t> byte_displacements, const DatatypePtr& old_type) {
  require_same_length(blocklengths.size(), byte_displacements.size(), "MPI_Type_create_hindexed");
  require_type(old_type, "MPI_Type_create_hindexed(oldtype)");
  std::vector<Placement> placements;
  placements.reserve(blocklengths.size());
  for (std::size_t i = 0; i < blocklengths.size(); ++i) {
    require_blocklength(blocklengths[i],
                        fmt::format("MPI_Type_create_hindexed(array_of_blocklengths[{}]={})", i, blocklengths[i]));
    placements.push_back({byte_displacements[i], blocklengths[i], old_type.get()});
  }
  const auto count = static_cast<std::int64_t>(blocklengths.size());
  return build(Combiner::Hindexed, placements,
               {count_and({count}, {blocklengths}), {byte_displacements.begin(), byte_displacements.end()},
                {old_type}});
}

DatatypePtr Datatype::indexed_block(std::int64_t blocklength, std::span<const std::int64_t> displacements,
                                    const DatatypePtr& old_type) {
  const auto where = "MPI_Type_create_indexed_block";
  require_blocklength(blocklength, fmt::format("{}(blocklength={})", where, blocklength));
  require_type(old_type, "MPI_Type_create_indexed_block(oldtype)");
  std::vector<Placement> placements;
  placements.reserve(displacements.size());
  for (auto d : displacements) placements.push_back({mul(d, old_type->extent(), where), blocklength, old_type.get()});
  const auto count = static_cast<std::int64_t>(displacements.size());
  return build(Combiner::IndexedBlock, placements, {count_and({count, blocklength}, {displacements}), {}, {old_type}});
}

DatatypePtr Datatype::hindexed_block(std::int64_t blocklength, std::span<const std::int64_t> byte_displacements,
                                     const DatatypePtr& old_type) {
  require_blocklength(blocklength, fmt::format("MPI_Type_create_hindexed_block(blocklength={})", blocklength));
  require_type(old_type, "MPI_Type_create_hindexed_block(oldtype)");
  std::vector<Placement> placements;
  placements.reserve(byte_displacements.size());
  for (auto d : byte_displacements) placements.push_back({d, blocklength, old_type.get()});
  const auto count = static_cast<std::int64_t>(byte_displacements.size());
  return build(Combiner::HindexedBlock, placements,
               {{count, blocklength}, {byte_displacements.begin(), byte_displacements.end()}, {old_type}});
}

namespace {

// MPICH's checks and classes: at least one dimension (MPI_ERR_DIMS); per dimension a
// positive size and subsize, a non-negative start, and a subarray inside the array
// (MPI_ERR_ARG).
void check_subarray(std::span<const std::int64_t> sizes, std::span<const std::int64_t> subsizes,
                    std::span<const std::int64_t> starts) {
  const auto where = "MPI_Type_create_subarray";
  if (sizes.empty()) throw Error(ErrorClass::MPI_ERR_DIMS, "MPI_Type_create_subarray(ndims=0)", "must be positive");
  if (subsizes.size() != sizes.size() || starts.size() != sizes.size()) {
    throw Error(ErrorClass::MPI_ERR_ARG, where,
                fmt::format("{} sizes, {} subsizes and {} starts; each array must have ndims entries", sizes.size(),
                            subsizes.size(), starts.size()));
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 1)
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(array_of_sizes[{}]={})", where, i, sizes[i]),
                  "must be positive");
    if (subsizes[i] < 1 || subsizes[i] > sizes[i])
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(array_of_subsizes[{}]={})", where, i, subsizes[i]),
                  fmt::format("must be between 1 and array_of_sizes[{}]={}", i, sizes[i]));
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
      throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(array_of_starts[{}]={})", where, i, starts[i]),
                  fmt::format("must be between 0 and array_of_sizes[{0}] - array_of_subsizes[{0}] = {1}", i,
                              sizes[i] - subsizes[i]));
  }
}

// Calls fn(offset) for the first element of every row (the runs along the fastest
// dimension) of the subarray, in type-map order; offsets count elements from the
// array's start. Dimensions are given slowest first.
template <class Fn>
void for_each_row(std::span<const std::int64_t> sizes, std::span<const std::int64_t> subsizes,
                  std::span<const std::int64_t> starts, Fn&& fn) {
  const std::size_t outer = sizes.size() - 1;
  std::vector<std::int64_t> index(outer, 0);  // position within the subarray, outer dimensions
  while (true) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < sizes.size(); ++d) offset = offset * sizes[d] + starts[d] + (d < outer ? index[d] : 0);
    fn(offset);
    // Odometer: the fastest outer dimension advances first.
    std::size_t d = outer;
    while (d > 0 && ++index[d - 1] == subsizes[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

}  // namespace

DatatypePtr Datatype::subarray(std::span<const std::int64_t> sizes, std::span<const std::int64_t> subsizes,
                               std::span<const std::int64_t> starts, ArrayOrder order, const DatatypePtr& old_type) {
  require_type(old_type, "MPI_Type_create_subarray(oldtype)");
  check_subarray(sizes, subsizes, starts);
  const auto where = "MPI_Type_create_subarray";
  // Fortran order is C order with the dimensions reversed: put the slowest first.
  std::vector<std::int64_t> size(sizes.begin(), sizes.end());
  std::vector<std::int64_t> subsize(subsizes.begin(), subsizes.end());
  std::vector<std::int64_t> start(starts.begin(), starts.end());
  if (order == ArrayOrder::Fortran) {
    std::ranges::reverse(size);
    std::ranges::reverse(subsize);
    std::ranges::reverse(start);
  }
  std::int64_t elements = 1;  // of the whole array
  for (auto n : size) elements = mul(elements, n, where);
  const std::int64_t whole_extent = mul(elements, old_type->extent(), where);
  std::vector<Placement> placements;
  for_each_row(size, subsize, start, [&](std::int64_t offset) {
    placements.push_back({offset * old_type->extent(), subsize.back(), old_type.get()});
  });
  std::vector<std::int64_t> integers = count_and({static_cast<std::int64_t>(sizes.size())}, {sizes, subsizes, starts});
  integers.push_back(static_cast<std::int64_t>(order));
  DatatypePtr t = build(Combiner::Subarray, placements, {std::move(integers), {}, {old_type}});
  // MPI's definition: lower bound 0 and the whole array's extent, as explicit bounds
  // (a struct around it does not pad them).
  t->lb_ = 0;
  t->ub_ = whole_extent;
  t->explicit_bounds_ = true;
  t->finish_layout();
  return t;
}

DatatypePtr Datatype::create_struct(std::span<const std::int64_t> blocklengths,
                                    std::span<const std::int64_t> byte_displacements,
                                    std::span<const DatatypePtr> types) {
  require_same_length(blocklengths.size(), byte_displacements.size(), "MPI_Type_create_struct");
  if (types.size() != blocklengths.size()) {
    throw Error(ErrorClass::MPI_ERR_ARG, "MPI_Type_create_struct",
                fmt::format("{} block lengths but {} types; the arrays must have count entries", blocklengths.size(),
                            types.size()));
  }
  std::vector<Placement> placements;
  placements.reserve(blocklengths.size());
  for (std::size_t i = 0; i < blocklengths.size(); ++i) {
    require_blocklength(blocklengths[i],
                        fmt::format("MPI_Type_create_struct(array_of_blocklengths[{}]={})", i, blocklengths[i]));
    require_type(types[i], fmt::format("MPI_Type_create_struct(array_of_types[{}])", i));
    placements.push_back({byte_displacements[i], blocklengths[i], types[i].get()});
  }
  const auto count = static_cast<std::int64_t>(blocklengths.size());
  return build(Combiner::Struct, placements,
               {count_and({count}, {blocklengths}), {byte_displacements.begin(), byte_displacements.end()},
                {types.begin(), types.end()}});
}

DatatypePtr Datatype::create_resized(const DatatypePtr& old_type, std::int64_t lb, std::int64_t extent) {
  require_type(old_type, "MPI_Type_create_resized(oldtype)");
  DatatypePtr t(new Datatype(*old_type));
  t->combiner_ = Combiner::Resized;
  t->lb_ = lb;
  t->ub_ = add(lb, extent, "MPI_Type_create_resized");
  t->explicit_bounds_ = true;
  t->committed_ = false;
  t->name_.clear();
  t->contents_ = std::make_shared<const Contents>(Contents{{}, {lb, extent}, {old_type}});
  t->finish_layout();  // contiguity depends on the extent
  return t;
}

DatatypePtr Datatype::dup(const DatatypePtr& old_type) {
  require_type(old_type, "MPI_Type_dup(oldtype)");
  DatatypePtr t(new Datatype(*old_type));
  t->combiner_ = Combiner::Dup;
  t->name_.clear();
  t->contents_ = std::make_shared<const Contents>(Contents{{}, {}, {old_type}});
  return t;
}

void throw_buffer_type_error(std::int64_t count, const Datatype* type, std::string_view where) {
  if (type == nullptr) {
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype)", where), "datatype is MPI_DATATYPE_NULL");
  }
  if (!type->committed()) {
    const auto& name = type->get_name();
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype{})", where, name.empty() ? "" : "=" + name),
                "datatype is not committed; call MPI_Type_commit before using it to communicate");
  }
  if (count < 0) {
    throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(count={})", where, count), "count must be non-negative");
  }
  throw Error(ErrorClass::MPI_ERR_COUNT, fmt::format("{}(count={})", where, count),
              "the datatype's size or extent overflows 64 bits");
}

namespace {
std::size_t stream_length(std::int64_t count, const Datatype& type, std::size_t position, std::size_t available,
                          std::string_view where) {
  const auto total = static_cast<std::size_t>(packed_size(count, type, where));
  if (position > total) {
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(position={})", where, position),
                fmt::format("position is beyond the {} bytes of packed data", total));
  }
  return std::min(available, total - position);
}

// buffer + offset in integer arithmetic: with MPI_BOTTOM the buffer is null and the
// offsets are absolute addresses (MPI_Get_address), which pointer arithmetic on a
// null pointer would make undefined.
void* address(const void* buffer, std::int64_t offset) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(buffer) + static_cast<std::uintptr_t>(offset));
}
}  // namespace

std::size_t pack(const void* buffer, std::int64_t count, const Datatype& type, std::size_t position,
                 std::span<std::byte> out, std::string_view where) {
  const std::size_t n = stream_length(count, type, position, out.size(), where);
  if (n == 0) return 0;
  if (type.is_contiguous()) {  // the common case, one copy (n > 0: there is a block)
    std::memcpy(out.data(), address(buffer, type.blocks().front().offset + static_cast<std::int64_t>(position)), n);
    return n;
  }
  walk(type, position, n, [&](std::int64_t memory, std::size_t stream, std::size_t len) {
    std::memcpy(out.data() + stream, address(buffer, memory), len);
  });
  return n;
}

std::size_t unpack(std::span<const std::byte> in, void* buffer, std::int64_t count, const Datatype& type,
                   std::size_t position, std::string_view where) {
  const std::size_t n = stream_length(count, type, position, in.size(), where);
  if (n == 0) return 0;
  if (type.is_contiguous()) {
    std::memcpy(address(buffer, type.blocks().front().offset + static_cast<std::int64_t>(position)), in.data(), n);
    return n;
  }
  walk(type, position, n, [&](std::int64_t memory, std::size_t stream, std::size_t len) {
    std::memcpy(address(buffer, memory), in.data() + stream, len);
  });
  return n;
}

}  // namespace twinfab::mpi
