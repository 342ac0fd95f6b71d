// Unit tests of mpi/core/datatype: predefined layouts, derived constructors (subarray
// and the block-indexed ones too), bounds, the recorded constructor arguments
// (MPI_Type_get_contents), the flattened layout, pack/unpack (whole and resumed in
// chunks), the MPI_Type_free lifetime rule, basic element counts (MPI_Get_elements),
// and every bad-input path.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "mpi/core/datatype.hpp"
#include "mpi/core/error.hpp"

#include "tests/unit/mpi_test_support.hpp"

namespace twinfab::mpi {
namespace {

using Blocks = std::vector<Block>;

using testing::error_of;

class MpiDatatypeTest : public ::testing::Test {
 protected:
  PredefinedDatatypes types_;
  const DatatypePtr& type(BasicKind kind) { return types_.get(kind); }
  DatatypePtr committed(DatatypePtr t) {
    t->commit();
    return t;
  }
};

// Packs all `count` elements in chunks of `chunk` bytes, then unpacks the stream in
// chunks of `chunk` bytes into `out`; returns the packed stream.
std::vector<std::byte> chunked_round_trip(const void* in, void* out, std::int64_t count, const Datatype& t,
                                          std::size_t chunk) {
  std::vector<std::byte> stream(static_cast<std::size_t>(packed_size(count, t)));
  std::size_t position = 0;
  while (position < stream.size()) {
    const std::size_t n = std::min(chunk, stream.size() - position);
    EXPECT_EQ(pack(in, count, t, position, std::span(stream).subspan(position, n)), n);
    position += n;
  }
  position = 0;
  while (position < stream.size()) {
    const std::size_t n = std::min(chunk, stream.size() - position);
    EXPECT_EQ(unpack(std::span<const std::byte>(stream).subspan(position, n), out, count, t, position), n);
    position += n;
  }
  return stream;
}

// ------------------------------------------------------------------ predefined

TEST_F(MpiDatatypeTest, PredefinedLayouts) {
  const auto& i = *type(BasicKind::Int);
  EXPECT_EQ(i.size(), 4);
  EXPECT_EQ(i.extent(), 4);
  EXPECT_EQ(i.lb(), 0);
  EXPECT_TRUE(i.is_contiguous());
  EXPECT_TRUE(i.committed());
  EXPECT_TRUE(i.is_predefined());
  EXPECT_EQ(i.get_name(), "MPI_INT");
  EXPECT_EQ(i.basic_kind(), BasicKind::Int);

  EXPECT_EQ(type(BasicKind::Double)->size(), 8);
  EXPECT_EQ(type(BasicKind::Int8)->size(), 1);
  EXPECT_EQ(type(BasicKind::Uint64)->size(), 8);
  EXPECT_EQ(type(BasicKind::CBool)->size(), static_cast<std::int64_t>(sizeof(bool)));
  EXPECT_EQ(type(BasicKind::Wchar)->size(), static_cast<std::int64_t>(sizeof(wchar_t)));
  EXPECT_EQ(type(BasicKind::LongDouble)->size(), static_cast<std::int64_t>(sizeof(long double)));
  EXPECT_EQ(type(BasicKind::CDoubleComplex)->size(), 16);
  EXPECT_EQ(type(BasicKind::Byte)->size(), 1);
  EXPECT_EQ(type(BasicKind::Packed)->size(), 1);
  EXPECT_EQ(type(BasicKind::Packed)->get_name(), "MPI_PACKED");
}

TEST_F(MpiDatatypeTest, PairTypesExcludeTheirPaddingFromSize) {
  // MPI_DOUBLE_INT is struct { double; int; }: 12 data bytes, extent 16.
  const auto& di = *type(BasicKind::DoubleInt);
  EXPECT_EQ(di.size(), 12);
  EXPECT_EQ(di.extent(), 16);
  EXPECT_TRUE(di.is_contiguous() == false);
  EXPECT_EQ(di.blocks(), (Blocks{{0, 12}}));  // value and index adjacent: one block
  // MPI_SHORT_INT is struct { short; int; }: a hole between value and index.
  const auto& si = *type(BasicKind::ShortInt);
  EXPECT_EQ(si.size(), 6);
  EXPECT_EQ(si.extent(), 8);
  EXPECT_EQ(si.blocks(), (Blocks{{0, 2}, {4, 4}}));
  EXPECT_EQ(type(BasicKind::FloatInt)->size(), 8);
  EXPECT_TRUE(type(BasicKind::FloatInt)->is_contiguous());
  EXPECT_EQ(type(BasicKind::TwoInt)->get_name(), "MPI_2INT");
}

TEST_F(MpiDatatypeTest, EveryPredefinedTypeIsConsistent) {
  for (std::size_t k = 0; k < kBasicKindCount; ++k) {
    const auto kind = static_cast<BasicKind>(k);
    const auto& t = *type(kind);
    SCOPED_TRACE(std::string(to_string(kind)));
    EXPECT_EQ(t.size(), basic_size(kind));
    EXPECT_EQ(t.extent(), basic_extent(kind));
    EXPECT_LE(t.size(), t.extent());
    EXPECT_EQ(t.get_name(), to_string(kind));
    EXPECT_EQ(t.basic_kind(), kind);
    EXPECT_TRUE(t.committed());
  }
}

TEST_F(MpiDatatypeTest, PredefinedTablesArePerRank) {
  // Two ranks in one process must not see each other's MPI_Type_set_name.
  PredefinedDatatypes other_rank;
  type(BasicKind::Int)->set_name("my int");
  EXPECT_EQ(type(BasicKind::Int)->get_name(), "my int");
  EXPECT_EQ(other_rank.get(BasicKind::Int)->get_name(), "MPI_INT");
}

// ------------------------------------------------------------------ derived layouts

TEST_F(MpiDatatypeTest, Contiguous) {
  auto t = Datatype::contiguous(4, type(BasicKind::Int));
  EXPECT_EQ(t->size(), 16);
  EXPECT_EQ(t->extent(), 16);
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_EQ(t->blocks(), (Blocks{{0, 16}}));
  EXPECT_FALSE(t->committed());
  EXPECT_EQ(t->combiner(), Combiner::Contiguous);
  EXPECT_EQ(t->basic_kind(), BasicKind::Int);
  EXPECT_EQ(t->get_name(), "");
  t->commit();
  EXPECT_TRUE(t->committed());
}

TEST_F(MpiDatatypeTest, VectorIsAStridedLayout) {
  auto t = Datatype::vector(3, 2, 4, type(BasicKind::Int));  // 2 ints every 4 ints
  EXPECT_EQ(t->size(), 24);
  EXPECT_EQ(t->lb(), 0);
  EXPECT_EQ(t->extent(), 40);  // ((3-1)*4 + 2) ints
  EXPECT_EQ(t->true_extent(), 40);
  EXPECT_FALSE(t->is_contiguous());
  EXPECT_EQ(t->blocks(), (Blocks{{0, 8}, {16, 8}, {32, 8}}));
  EXPECT_EQ(t->block_packed_offsets(), (std::vector<std::int64_t>{0, 8, 16}));
}

TEST_F(MpiDatatypeTest, VectorWithStrideEqualBlocklengthMergesIntoOneBlock) {
  auto t = Datatype::vector(5, 3, 3, type(BasicKind::Double));
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_EQ(t->blocks(), (Blocks{{0, 120}}));
}

TEST_F(MpiDatatypeTest, NegativeStrideIsLegalAndKeepsTypeMapOrder) {
  // MPI allows negative strides: elements at 0, -2, -4 ints, packed in that order.
  auto t = committed(Datatype::vector(3, 1, -2, type(BasicKind::Int)));
  EXPECT_EQ(t->blocks(), (Blocks{{0, 4}, {-8, 4}, {-16, 4}}));
  EXPECT_EQ(t->lb(), -16);
  EXPECT_EQ(t->ub(), 4);
  EXPECT_EQ(t->extent(), 20);
  std::array<int, 5> data{10, 11, 12, 13, 14};
  std::array<int, 3> packed{};
  pack(&data[4], 1, *t, 0, std::as_writable_bytes(std::span(packed)));
  EXPECT_EQ(packed, (std::array<int, 3>{14, 12, 10}));
}

TEST_F(MpiDatatypeTest, HvectorStridesInBytes) {
  auto t = Datatype::hvector(2, 1, 6, type(BasicKind::Short));
  EXPECT_EQ(t->blocks(), (Blocks{{0, 2}, {6, 2}}));
  EXPECT_EQ(t->extent(), 8);
  EXPECT_EQ(t->combiner(), Combiner::Hvector);
}

TEST_F(MpiDatatypeTest, IndexedKeepsTypeMapOrderNotAddressOrder) {
  const std::array<std::int64_t, 2> lengths{2, 1};
  const std::array<std::int64_t, 2> displacements{3, 0};
  auto t = Datatype::indexed(lengths, displacements, type(BasicKind::Int));
  EXPECT_EQ(t->blocks(), (Blocks{{12, 8}, {0, 4}}));
  EXPECT_EQ(t->size(), 12);
  EXPECT_EQ(t->lb(), 0);
  EXPECT_EQ(t->ub(), 20);
}

TEST_F(MpiDatatypeTest, IndexedMergesAdjacentBlocks) {
  const std::array<std::int64_t, 3> lengths{1, 2, 1};
  const std::array<std::int64_t, 3> displacements{0, 1, 3};
  auto t = Datatype::indexed(lengths, displacements, type(BasicKind::Int));
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_EQ(t->blocks(), (Blocks{{0, 16}}));
}

TEST_F(MpiDatatypeTest, HindexedDisplacementsInBytes) {
  const std::array<std::int64_t, 2> lengths{1, 2};
  const std::array<std::int64_t, 2> displacements{1, 10};
  auto t = Datatype::hindexed(lengths, displacements, type(BasicKind::Char));
  EXPECT_EQ(t->blocks(), (Blocks{{1, 1}, {10, 2}}));
  EXPECT_EQ(t->lb(), 1);
  EXPECT_EQ(t->true_lb(), 1);
  EXPECT_EQ(t->extent(), 11);
}

TEST_F(MpiDatatypeTest, StructIsPaddedLikeACStruct) {
  struct Particle {
    double x;
    char tag;
  };
  const std::array<std::int64_t, 2> lengths{1, 1};
  const std::array<std::int64_t, 2> displacements{offsetof(Particle, x), offsetof(Particle, tag)};
  const std::array<DatatypePtr, 2> members{type(BasicKind::Double), type(BasicKind::Char)};
  auto t = Datatype::create_struct(lengths, displacements, members);
  EXPECT_EQ(t->size(), 9);
  EXPECT_EQ(t->true_extent(), 9);
  EXPECT_EQ(t->extent(), static_cast<std::int64_t>(sizeof(Particle)));
  EXPECT_EQ(t->alignment(), static_cast<std::int64_t>(alignof(double)));
  EXPECT_FALSE(t->basic_kind().has_value());  // mixes double and char
  EXPECT_EQ(t->blocks(), (Blocks{{0, 9}}));
  EXPECT_FALSE(t->is_contiguous());  // the padding separates consecutive elements
}

TEST_F(MpiDatatypeTest, ResizedSetsBoundsAndDisablesStructPadding) {
  auto wide = Datatype::create_resized(type(BasicKind::Int), 0, 12);
  EXPECT_EQ(wide->extent(), 12);
  EXPECT_EQ(wide->size(), 4);
  EXPECT_FALSE(wide->is_contiguous());
  auto three = Datatype::contiguous(3, wide);
  EXPECT_EQ(three->blocks(), (Blocks{{0, 4}, {12, 4}, {24, 4}}));
  EXPECT_EQ(three->extent(), 36);
  // A struct of a resized member keeps the explicit extent, unpadded.
  const std::array<std::int64_t, 1> one{1};
  const std::array<std::int64_t, 1> zero{0};
  auto odd = Datatype::create_resized(type(BasicKind::Double), 0, 9);
  const std::array<DatatypePtr, 1> members{odd};
  EXPECT_EQ(Datatype::create_struct(one, zero, members)->extent(), 9);
}

TEST_F(MpiDatatypeTest, DupCopiesLayoutAndCommittedStateNotName) {
  auto t = committed(Datatype::vector(2, 1, 2, type(BasicKind::Int)));
  t->set_name("column");
  auto d = Datatype::dup(t);
  EXPECT_EQ(d->blocks(), t->blocks());
  EXPECT_EQ(d->extent(), t->extent());
  EXPECT_TRUE(d->committed());
  EXPECT_EQ(d->get_name(), "");
  EXPECT_EQ(d->combiner(), Combiner::Dup);
  EXPECT_EQ(t->get_name(), "column");
}

TEST_F(MpiDatatypeTest, ZeroCountTypesAreEmpty) {
  auto t = committed(Datatype::contiguous(0, type(BasicKind::Int)));
  EXPECT_EQ(t->size(), 0);
  EXPECT_EQ(t->extent(), 0);
  EXPECT_TRUE(t->blocks().empty());
  std::array<std::byte, 4> out{};
  EXPECT_EQ(pack(nullptr, 5, *t, 0, out), 0u);
  EXPECT_EQ(packed_size(5, *t), 0);
}

// ------------------------------------------------------------------ block-indexed and subarray

TEST_F(MpiDatatypeTest, IndexedBlockPlacesEqualBlocksAtElementDisplacements) {
  const std::array<std::int64_t, 3> displacements{4, 0, 9};
  auto t = Datatype::indexed_block(2, displacements, type(BasicKind::Int));
  EXPECT_EQ(t->combiner(), Combiner::IndexedBlock);
  EXPECT_EQ(t->blocks(), (Blocks{{16, 8}, {0, 8}, {36, 8}}));  // type-map order, not address order
  EXPECT_EQ(t->size(), 24);
  EXPECT_EQ(t->lb(), 0);
  EXPECT_EQ(t->extent(), 44);
  EXPECT_EQ(t->basic_kind(), BasicKind::Int);
}

TEST_F(MpiDatatypeTest, HindexedBlockDisplacementsInBytes) {
  const std::array<std::int64_t, 2> displacements{10, 2};
  auto t = Datatype::hindexed_block(3, displacements, type(BasicKind::Short));
  EXPECT_EQ(t->combiner(), Combiner::HindexedBlock);
  EXPECT_EQ(t->blocks(), (Blocks{{10, 6}, {2, 6}}));
  EXPECT_EQ(t->lb(), 2);
  EXPECT_EQ(t->extent(), 14);
}

TEST_F(MpiDatatypeTest, SubarrayInCOrderHasTheWholeArraysExtent) {
  // int a[4][5], the 2 x 3 block at a[1][2]: rows at elements 7 and 12.
  const std::array<std::int64_t, 2> sizes{4, 5}, subsizes{2, 3}, starts{1, 2};
  auto t = Datatype::subarray(sizes, subsizes, starts, ArrayOrder::C, type(BasicKind::Int));
  EXPECT_EQ(t->combiner(), Combiner::Subarray);
  EXPECT_EQ(t->blocks(), (Blocks{{28, 12}, {48, 12}}));
  EXPECT_EQ(t->size(), 24);
  EXPECT_EQ(t->lb(), 0);
  EXPECT_EQ(t->extent(), 80);
  EXPECT_EQ(t->true_lb(), 28);
  EXPECT_EQ(t->true_extent(), 32);
}

TEST_F(MpiDatatypeTest, SubarrayInFortranOrderRunsAlongTheFirstDimension) {
  // a(4,5) in Fortran order, the 2 x 3 block at a(1,2) (0-based): runs of 2 elements
  // at 1 + 4j for j = 2, 3, 4.
  const std::array<std::int64_t, 2> sizes{4, 5}, subsizes{2, 3}, starts{1, 2};
  auto t = Datatype::subarray(sizes, subsizes, starts, ArrayOrder::Fortran, type(BasicKind::Int));
  EXPECT_EQ(t->blocks(), (Blocks{{36, 8}, {52, 8}, {68, 8}}));
  EXPECT_EQ(t->extent(), 80);
}

// The elements of an array `sizes` (slowest dimension first) that the subarray holds, in
// type-map order, by plain nested loops over three dimensions.
std::vector<int> subarray_by_loops(const std::array<std::int64_t, 3>& sizes, const std::array<std::int64_t, 3>& sub,
                                   const std::array<std::int64_t, 3>& start) {
  std::vector<int> picked;
  for (std::int64_t i = start[0]; i < start[0] + sub[0]; ++i)
    for (std::int64_t j = start[1]; j < start[1] + sub[1]; ++j)
      for (std::int64_t k = start[2]; k < start[2] + sub[2]; ++k)
        picked.push_back(static_cast<int>((i * sizes[1] + j) * sizes[2] + k));
  return picked;
}

TEST_F(MpiDatatypeTest, ThreeDimensionalSubarrayPacksWhatNestedLoopsPick) {
  const std::array<std::int64_t, 3> sizes{3, 4, 5}, subsizes{2, 2, 3}, starts{1, 1, 2};
  std::vector<int> array(2 * 3 * 4 * 5);  // two whole arrays: count 2 steps by the extent
  std::iota(array.begin(), array.end(), 0);
  std::vector<int> expected = subarray_by_loops(sizes, subsizes, starts);
  for (std::size_t n = expected.size(), i = 0; i < n; ++i) expected.push_back(expected[i] + 60);

  auto c = committed(Datatype::subarray(sizes, subsizes, starts, ArrayOrder::C, type(BasicKind::Int)));
  std::vector<int> packed(expected.size());
  EXPECT_EQ(pack(array.data(), 2, *c, 0, std::as_writable_bytes(std::span(packed))), packed.size() * sizeof(int));
  EXPECT_EQ(packed, expected);

  // The same subarray described in Fortran order: every array reversed, same elements.
  const std::array<std::int64_t, 3> f_sizes{5, 4, 3}, f_subsizes{3, 2, 2}, f_starts{2, 1, 1};
  auto f = committed(Datatype::subarray(f_sizes, f_subsizes, f_starts, ArrayOrder::Fortran, type(BasicKind::Int)));
  EXPECT_EQ(f->blocks(), c->blocks());
  EXPECT_EQ(f->extent(), c->extent());
}

TEST_F(MpiDatatypeTest, WholeArraySubarrayIsContiguous) {
  const std::array<std::int64_t, 2> sizes{3, 4}, starts{0, 0};
  auto t = Datatype::subarray(sizes, sizes, starts, ArrayOrder::C, type(BasicKind::Double));
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_EQ(t->blocks(), (Blocks{{0, 96}}));
}

TEST_F(MpiDatatypeTest, SubarrayBoundsAreExplicitInAStruct) {
  // {int, then a subarray of 5 chars}: ub 9, not padded to the int's alignment (12).
  const std::array<std::int64_t, 1> five{5}, one{1}, zero{0};
  auto chars = Datatype::subarray(five, one, zero, ArrayOrder::C, type(BasicKind::Char));
  EXPECT_EQ(chars->extent(), 5);
  const std::array<std::int64_t, 2> lengths{1, 1}, displacements{0, 4};
  const std::array<DatatypePtr, 2> members{type(BasicKind::Int), chars};
  EXPECT_EQ(Datatype::create_struct(lengths, displacements, members)->extent(), 9);
}

// ------------------------------------------------------------------ contents (MPI_Type_get_contents)

// The integers of `t`'s contents.
std::vector<std::int64_t> integers_of(const DatatypePtr& t) { return t->contents()->integers; }
std::vector<std::int64_t> addresses_of(const DatatypePtr& t) { return t->contents()->addresses; }
using Ints = std::vector<std::int64_t>;

TEST_F(MpiDatatypeTest, PredefinedTypesHaveNoContents) {
  EXPECT_EQ(type(BasicKind::Int)->contents(), nullptr);
  EXPECT_EQ(type(BasicKind::Int)->combiner(), Combiner::Named);
  EXPECT_TRUE(type(BasicKind::DoubleInt)->inputs().empty());
}

TEST_F(MpiDatatypeTest, ContentsRecordEachConstructorsArguments) {
  const DatatypePtr& i = type(BasicKind::Int);
  const DatatypePtr& d = type(BasicKind::Double);
  auto contiguous = Datatype::contiguous(3, i);
  EXPECT_EQ(integers_of(contiguous), (Ints{3}));
  EXPECT_TRUE(addresses_of(contiguous).empty());
  ASSERT_EQ(contiguous->inputs().size(), 1u);
  EXPECT_EQ(contiguous->inputs()[0], i);

  auto vector = Datatype::vector(2, 3, -4, i);
  EXPECT_EQ(integers_of(vector), (Ints{2, 3, -4}));
  auto hvector = Datatype::hvector(2, 3, -40, vector);
  EXPECT_EQ(integers_of(hvector), (Ints{2, 3}));
  EXPECT_EQ(addresses_of(hvector), (Ints{-40}));
  EXPECT_EQ(hvector->inputs()[0], vector);

  const std::array<std::int64_t, 2> lengths{1, 2}, displacements{5, 0};
  EXPECT_EQ(integers_of(Datatype::indexed(lengths, displacements, i)), (Ints{2, 1, 2, 5, 0}));
  auto hindexed = Datatype::hindexed(lengths, displacements, i);
  EXPECT_EQ(integers_of(hindexed), (Ints{2, 1, 2}));
  EXPECT_EQ(addresses_of(hindexed), (Ints{5, 0}));
  EXPECT_EQ(integers_of(Datatype::indexed_block(3, displacements, i)), (Ints{2, 3, 5, 0}));
  auto hindexed_block = Datatype::hindexed_block(3, displacements, i);
  EXPECT_EQ(integers_of(hindexed_block), (Ints{2, 3}));
  EXPECT_EQ(addresses_of(hindexed_block), (Ints{5, 0}));

  const std::array<std::int64_t, 2> struct_displacements{0, 8};
  const std::array<DatatypePtr, 2> members{i, d};
  auto record = Datatype::create_struct(lengths, struct_displacements, members);
  EXPECT_EQ(integers_of(record), (Ints{2, 1, 2}));
  EXPECT_EQ(addresses_of(record), (Ints{0, 8}));
  ASSERT_EQ(record->inputs().size(), 2u);
  EXPECT_EQ(record->inputs()[1], d);

  const std::array<std::int64_t, 2> sizes{4, 5}, subsizes{2, 3}, starts{1, 2};
  EXPECT_EQ(integers_of(Datatype::subarray(sizes, subsizes, starts, ArrayOrder::Fortran, i)),
            (Ints{2, 4, 5, 2, 3, 1, 2, 57}));

  auto resized = Datatype::create_resized(vector, -4, 16);
  EXPECT_TRUE(integers_of(resized).empty());
  EXPECT_EQ(addresses_of(resized), (Ints{-4, 16}));
  EXPECT_EQ(resized->inputs()[0], vector);
}

TEST_F(MpiDatatypeTest, DupAndResizedKeepTheirOwnContentsNotTheirInputs) {
  auto vector = Datatype::vector(2, 1, 3, type(BasicKind::Int));
  auto dup = Datatype::dup(vector);
  EXPECT_TRUE(integers_of(dup).empty());
  EXPECT_TRUE(addresses_of(dup).empty());
  ASSERT_EQ(dup->inputs().size(), 1u);
  EXPECT_EQ(dup->inputs()[0], vector);
  EXPECT_EQ(integers_of(vector), (Ints{2, 1, 3}));  // the input's own are untouched
  auto dup_of_named = Datatype::dup(type(BasicKind::Int));
  EXPECT_EQ(dup_of_named->combiner(), Combiner::Dup);
  EXPECT_EQ(dup_of_named->inputs()[0], type(BasicKind::Int));
  auto resized = Datatype::create_resized(dup, 0, 100);
  EXPECT_EQ(resized->inputs()[0], dup);
}

// ------------------------------------------------------------------ lifetime

TEST_F(MpiDatatypeTest, FreedInputStaysAliveWhileADerivedTypeUsesIt) {
  auto base = Datatype::contiguous(2, type(BasicKind::Int));
  std::weak_ptr<Datatype> watch = base;
  auto derived = Datatype::vector(2, 1, 2, base);
  base.reset();  // MPI_Type_free(&base)
  EXPECT_FALSE(watch.expired());
  ASSERT_EQ(derived->inputs().size(), 1u);
  EXPECT_EQ(derived->inputs()[0]->size(), 8);
  derived.reset();
  EXPECT_TRUE(watch.expired());
}

// ------------------------------------------------------------------ pack / unpack

TEST_F(MpiDatatypeTest, PackMatrixColumnAndUnpackItBack) {
  // Column 1 of a 4x3 row-major matrix of doubles.
  auto column = committed(Datatype::vector(4, 1, 3, type(BasicKind::Double)));
  std::array<double, 12> matrix{};
  std::iota(matrix.begin(), matrix.end(), 0.0);
  std::array<double, 4> packed{};
  EXPECT_EQ(pack(&matrix[1], 1, *column, 0, std::as_writable_bytes(std::span(packed))), 32u);
  EXPECT_EQ(packed, (std::array<double, 4>{1, 4, 7, 10}));
  std::array<double, 12> back{};
  EXPECT_EQ(unpack(std::as_bytes(std::span(packed)), &back[1], 1, *column, 0), 32u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(back[r * 3 + 1], matrix[r * 3 + 1]);
  EXPECT_EQ(back[0], 0.0);  // untouched
}

TEST_F(MpiDatatypeTest, ContiguousPackIsAPlainCopy) {
  auto t = committed(Datatype::contiguous(3, type(BasicKind::Int)));
  std::array<int, 6> data{1, 2, 3, 4, 5, 6};
  std::array<int, 6> out{};
  EXPECT_EQ(pack(data.data(), 2, *t, 0, std::as_writable_bytes(std::span(out))), 24u);
  EXPECT_EQ(out, data);
  // Resume in the middle of an int: still just an offset into the buffer.
  std::array<std::byte, 5> piece{};
  EXPECT_EQ(pack(data.data(), 2, *t, 7, piece), 5u);
  EXPECT_EQ(std::memcmp(piece.data(), reinterpret_cast<const std::byte*>(data.data()) + 7, 5), 0);
}

TEST_F(MpiDatatypeTest, ShortOutputStopsAndReportsBytesWritten) {
  auto t = committed(Datatype::vector(3, 1, 2, type(BasicKind::Int)));
  std::array<int, 5> data{1, 2, 3, 4, 5};
  std::array<std::byte, 64> out{};
  EXPECT_EQ(pack(data.data(), 1, *t, 0, out), 12u);  // only 12 bytes of data
  EXPECT_EQ(pack(data.data(), 1, *t, 12, out), 0u);  // at the end: nothing more
  EXPECT_EQ(pack(data.data(), 1, *t, 5, std::span(out).first(3)), 3u);
}

TEST_F(MpiDatatypeTest, VectorChunkedRoundTripForEveryChunkSize) {
  auto t = committed(Datatype::vector(4, 3, 5, type(BasicKind::Int)));
  std::vector<int> in(3 * 20);
  std::iota(in.begin(), in.end(), 100);
  const auto whole = [&] {
    std::vector<std::byte> s(static_cast<std::size_t>(packed_size(3, *t)));
    pack(in.data(), 3, *t, 0, s);
    return s;
  }();
  for (std::size_t chunk = 1; chunk <= whole.size(); ++chunk) {
    SCOPED_TRACE(chunk);
    std::vector<int> out(in.size(), -1);
    EXPECT_EQ(chunked_round_trip(in.data(), out.data(), 3, *t, chunk), whole);
    // Exactly the type map's ints came back (elements start every extent = 18 ints);
    // the gaps stayed -1.
    for (std::int64_t e = 0; e < 3; ++e) {
      for (std::int64_t b = 0; b < 4; ++b) {
        for (std::int64_t k = 0; k < 3; ++k) {
          const auto index = static_cast<std::size_t>(e * 18 + b * 5 + k);
          EXPECT_EQ(out[index], in[index]);
        }
      }
    }
    EXPECT_EQ(out[3], -1);
    EXPECT_EQ(out[4], -1);
  }
}

TEST_F(MpiDatatypeTest, NestedIndexedOfStructChunkedRoundTrip) {
  struct Item {
    short a;
    double b;
    int c;
  };
  const std::array<std::int64_t, 3> lengths{1, 1, 1};
  const std::array<std::int64_t, 3> displacements{offsetof(Item, a), offsetof(Item, b), offsetof(Item, c)};
  const std::array<DatatypePtr, 3> members{type(BasicKind::Short), type(BasicKind::Double), type(BasicKind::Int)};
  auto item = Datatype::create_struct(lengths, displacements, members);
  EXPECT_EQ(item->extent(), static_cast<std::int64_t>(sizeof(Item)));
  const std::array<std::int64_t, 2> pick_lengths{2, 1};
  const std::array<std::int64_t, 2> pick_displacements{3, 0};
  auto picks = committed(Datatype::indexed(pick_lengths, pick_displacements, item));
  EXPECT_EQ(picks->size(), 3 * 14);

  std::array<Item, 10> in{};
  for (int i = 0; i < 10; ++i) in[i] = Item{static_cast<short>(i), i * 1.5, -i};
  for (std::size_t chunk : {1u, 3u, 7u, 13u, 42u, 100u}) {
    SCOPED_TRACE(chunk);
    std::array<Item, 10> out{};
    for (auto& o : out) o = Item{-1, -1.0, -1};
    const auto stream = chunked_round_trip(in.data(), out.data(), 2, *picks, chunk);
    // Element 0 picks items 3,4,0; element 1 (one extent = 5 items later) picks 8,9,5.
    short first = 0;
    std::memcpy(&first, stream.data(), sizeof(short));
    EXPECT_EQ(first, 3);
    for (int i : {3, 4, 0, 8, 9, 5}) {
      EXPECT_EQ(out[i].a, in[i].a);
      EXPECT_EQ(out[i].b, in[i].b);
      EXPECT_EQ(out[i].c, in[i].c);
    }
    for (int i : {1, 2, 6, 7}) EXPECT_EQ(out[i].a, -1);
  }
}

TEST_F(MpiDatatypeTest, PairTypeArrayPacksWithoutPadding) {
  std::array<pair::ShortInt, 2> in{{{7, 70}, {8, 80}}};
  std::array<std::byte, 12> out{};
  EXPECT_EQ(pack(in.data(), 2, *type(BasicKind::ShortInt), 0, out), 12u);
  short v = 0;
  int idx = 0;
  std::memcpy(&v, out.data() + 6, sizeof v);
  std::memcpy(&idx, out.data() + 8, sizeof idx);
  EXPECT_EQ(v, 8);
  EXPECT_EQ(idx, 80);
}

TEST_F(MpiDatatypeTest, AbsoluteAddressesWithANullBufferAsMpiBottom) {
  // MPI_Get_address + hindexed + MPI_BOTTOM: the displacements are the addresses.
  int a = 1;
  double b = 2.5;
  const std::array<std::int64_t, 2> lengths{1, 1};
  const std::array<std::int64_t, 2> addresses{static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(&b)),
                                              static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(&a))};
  const std::array<DatatypePtr, 2> members{type(BasicKind::Double), type(BasicKind::Int)};
  auto t = committed(Datatype::create_struct(lengths, addresses, members));
  std::array<std::byte, 12> stream{};
  EXPECT_EQ(pack(nullptr, 1, *t, 0, stream), 12u);
  a = 0;
  b = 0;
  EXPECT_EQ(unpack(stream, nullptr, 1, *t, 0), 12u);
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2.5);
}

// ------------------------------------------------------------------ bad input

TEST_F(MpiDatatypeTest, NegativeCountIsErrCount) {
  std::string message;
  EXPECT_EQ(error_of([&] { Datatype::contiguous(-1, type(BasicKind::Int)); }, &message), ErrorClass::MPI_ERR_COUNT);
  EXPECT_EQ(message, "MPI_Type_contiguous(count=-1): count must be non-negative");
  EXPECT_EQ(error_of([&] { Datatype::vector(-2, 1, 1, type(BasicKind::Int)); }), ErrorClass::MPI_ERR_COUNT);
  EXPECT_EQ(error_of([&] { Datatype::hvector(-2, 1, 1, type(BasicKind::Int)); }), ErrorClass::MPI_ERR_COUNT);
}

TEST_F(MpiDatatypeTest, NegativeBlocklengthIsErrArg) {
  std::string message;
  EXPECT_EQ(error_of([&] { Datatype::vector(2, -1, 1, type(BasicKind::Int)); }, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(message, "MPI_Type_vector(blocklength=-1): block length must be non-negative");
  const std::array<std::int64_t, 2> lengths{1, -3};
  const std::array<std::int64_t, 2> displacements{0, 4};
  EXPECT_EQ(error_of([&] { Datatype::indexed(lengths, displacements, type(BasicKind::Int)); }, &message),
            ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(message, "MPI_Type_indexed(array_of_blocklengths[1]=-3): block length must be non-negative");
  EXPECT_EQ(error_of([&] { Datatype::hindexed(lengths, displacements, type(BasicKind::Int)); }),
            ErrorClass::MPI_ERR_ARG);
}

TEST_F(MpiDatatypeTest, BadBlockIndexedArgumentsAreRefused) {
  const std::array<std::int64_t, 2> displacements{0, 4};
  std::string message;
  EXPECT_EQ(error_of([&] { Datatype::indexed_block(-1, displacements, type(BasicKind::Int)); }, &message),
            ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(message, "MPI_Type_create_indexed_block(blocklength=-1): block length must be non-negative");
  EXPECT_EQ(error_of([&] { Datatype::hindexed_block(-2, displacements, type(BasicKind::Int)); }),
            ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(error_of([&] { Datatype::indexed_block(1, displacements, nullptr); }), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(error_of([&] { Datatype::hindexed_block(1, displacements, nullptr); }), ErrorClass::MPI_ERR_TYPE);
}

TEST_F(MpiDatatypeTest, BadSubarrayArgumentsAreRefused) {
  const DatatypePtr& i = type(BasicKind::Int);
  const auto subarray = [&](std::vector<std::int64_t> sizes, std::vector<std::int64_t> subsizes,
                            std::vector<std::int64_t> starts, std::string* message = nullptr) {
    return error_of([&] { Datatype::subarray(sizes, subsizes, starts, ArrayOrder::C, i); }, message);
  };
  std::string message;
  EXPECT_EQ(subarray({}, {}, {}, &message), ErrorClass::MPI_ERR_DIMS);
  EXPECT_EQ(message, "MPI_Type_create_subarray(ndims=0): must be positive");
  EXPECT_EQ(subarray({4, 5}, {2}, {0, 0}), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(subarray({4, 0}, {2, 0}, {0, 0}, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(message, "MPI_Type_create_subarray(array_of_sizes[1]=0): must be positive");
  EXPECT_EQ(subarray({4, 5}, {2, 6}, {0, 0}, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(message, "MPI_Type_create_subarray(array_of_subsizes[1]=6): must be between 1 and array_of_sizes[1]=5");
  EXPECT_EQ(subarray({4, 5}, {0, 5}, {0, 0}), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(subarray({4, 5}, {2, 3}, {-1, 0}), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(subarray({4, 5}, {2, 3}, {0, 3}, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(message,
            "MPI_Type_create_subarray(array_of_starts[1]=3): must be between 0 and array_of_sizes[1] - "
            "array_of_subsizes[1] = 2");
  EXPECT_EQ(subarray({4, 5}, {2, 3}, {2, 2}), ErrorClass::MPI_SUCCESS);  // the last start that fits
  const std::int64_t huge = std::int64_t{1} << 31;
  EXPECT_EQ(subarray({huge, huge, huge}, {1, 1, 1}, {0, 0, 0}), ErrorClass::MPI_ERR_COUNT);  // extent overflows
  const std::array<std::int64_t, 1> one{1}, zero{0};
  EXPECT_EQ(error_of([&] { Datatype::subarray(one, one, zero, ArrayOrder::C, nullptr); }), ErrorClass::MPI_ERR_TYPE);
}

TEST_F(MpiDatatypeTest, MismatchedArraysAreErrArg) {
  const std::array<std::int64_t, 2> lengths{1, 1};
  const std::array<std::int64_t, 1> displacements{0};
  EXPECT_EQ(error_of([&] { Datatype::indexed(lengths, displacements, type(BasicKind::Int)); }),
            ErrorClass::MPI_ERR_ARG);
  const std::array<std::int64_t, 2> two_displacements{0, 8};
  const std::array<DatatypePtr, 1> one_type{type(BasicKind::Int)};
  EXPECT_EQ(error_of([&] { Datatype::create_struct(lengths, two_displacements, one_type); }),
            ErrorClass::MPI_ERR_ARG);
}

TEST_F(MpiDatatypeTest, NullTypeIsErrType) {
  const DatatypePtr null;
  EXPECT_EQ(error_of([&] { Datatype::contiguous(1, null); }), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(error_of([&] { Datatype::create_resized(null, 0, 4); }), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(error_of([&] { Datatype::dup(null); }), ErrorClass::MPI_ERR_TYPE);
  const std::array<std::int64_t, 2> lengths{1, 1};
  const std::array<std::int64_t, 2> displacements{0, 8};
  const std::array<DatatypePtr, 2> members{type(BasicKind::Int), null};
  std::string message;
  EXPECT_EQ(error_of([&] { Datatype::create_struct(lengths, displacements, members); }, &message),
            ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(message, "MPI_Type_create_struct(array_of_types[1]): datatype is MPI_DATATYPE_NULL");
  EXPECT_EQ(error_of([&] { check_buffer_type(1, nullptr, "MPI_Send"); }), ErrorClass::MPI_ERR_TYPE);
}

TEST_F(MpiDatatypeTest, UncommittedTypeCannotCommunicate) {
  auto t = Datatype::contiguous(2, type(BasicKind::Int));
  t->set_name("pair_of_ints");
  std::array<int, 2> data{};
  std::array<std::byte, 8> out{};
  std::string message;
  EXPECT_EQ(error_of([&] { check_buffer_type(1, t.get(), "MPI_Send"); }, &message), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(message,
            "MPI_Send(datatype=pair_of_ints): datatype is not committed; call MPI_Type_commit before using it to "
            "communicate");
  EXPECT_EQ(error_of([&] { pack(data.data(), 1, *t, 0, out); }), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(error_of([&] { unpack(out, data.data(), 1, *t, 0); }), ErrorClass::MPI_ERR_TYPE);
  t->commit();
  EXPECT_EQ(pack(data.data(), 1, *t, 0, out), 8u);
}

TEST_F(MpiDatatypeTest, BadCountOrPositionInPackIsRejected) {
  const auto& i = *type(BasicKind::Int);
  std::array<int, 2> data{};
  std::array<std::byte, 8> out{};
  EXPECT_EQ(error_of([&] { pack(data.data(), -1, i, 0, out); }), ErrorClass::MPI_ERR_COUNT);
  EXPECT_EQ(error_of([&] { check_buffer_type(-5, &i, "MPI_Recv"); }), ErrorClass::MPI_ERR_COUNT);
  std::string message;
  EXPECT_EQ(error_of([&] { pack(data.data(), 2, i, 9, out); }, &message), ErrorClass::MPI_ERR_ARG);
  EXPECT_EQ(message, "MPI_Pack(position=9): position is beyond the 8 bytes of packed data");
  EXPECT_EQ(error_of([&] { unpack(out, data.data(), 2, i, 9); }), ErrorClass::MPI_ERR_ARG);
}

TEST_F(MpiDatatypeTest, OverflowingSizeIsErrCount) {
  auto big = Datatype::contiguous(std::numeric_limits<std::int64_t>::max() / 8, type(BasicKind::Int));
  EXPECT_EQ(error_of([&] { Datatype::contiguous(4, big); }), ErrorClass::MPI_ERR_COUNT);
  const auto& d = *type(BasicKind::Double);
  EXPECT_EQ(error_of([&] { check_buffer_type(std::numeric_limits<std::int64_t>::max() / 4, &d, "MPI_Send"); }),
            ErrorClass::MPI_ERR_COUNT);
}

// ------------------------------------------------------------------ basic elements (MPI_Get_elements)

TEST_F(MpiDatatypeTest, ElementsOfPredefinedAndUniformTypes) {
  const DatatypePtr& i = type(BasicKind::Int);
  EXPECT_EQ(i->element_count(), 1);
  EXPECT_EQ(i->elements_in(12), 3);
  EXPECT_EQ(i->elements_in(0), 0);
  EXPECT_EQ(i->elements_in(10), std::nullopt);  // ends inside an int
  // MPI-3.1 §4.1.11's example: a message of 1 or 3 doubles received as pairs of them.
  auto pair = committed(Datatype::contiguous(2, type(BasicKind::Double)));
  EXPECT_EQ(pair->element_count(), 2);
  EXPECT_EQ(pair->elements_in(8), 1);
  EXPECT_EQ(pair->elements_in(24), 3);
  auto strided = Datatype::vector(3, 2, 5, type(BasicKind::Short));
  EXPECT_EQ(strided->element_count(), 6);
  EXPECT_EQ(strided->elements_in(2 * 6 * 2 + 2), 13);
  EXPECT_EQ(Datatype::contiguous(0, i)->elements_in(0), 0);
}

TEST_F(MpiDatatypeTest, PairTypesCountValueAndIndex) {
  EXPECT_EQ(type(BasicKind::TwoInt)->element_count(), 2);
  EXPECT_EQ(type(BasicKind::TwoInt)->elements_in(4), 1);
  const DatatypePtr& di = type(BasicKind::DoubleInt);
  EXPECT_EQ(di->element_count(), 2);
  EXPECT_EQ(di->elements_in(8), 1);    // the value
  EXPECT_EQ(di->elements_in(12), 2);   // and the index
  EXPECT_EQ(di->elements_in(24 + 8), 5);
  EXPECT_EQ(di->elements_in(4), std::nullopt);
  EXPECT_EQ(di->elements_in(10), std::nullopt);
  auto nested = Datatype::contiguous(2, di);
  EXPECT_EQ(nested->elements_in(12 + 8), 3);
}

TEST_F(MpiDatatypeTest, ElementsOfAStructFollowTheTypeMapOrder) {
  // {int a; double b[2];} then a char: sizes 4, 8, 8, 1.
  const std::array<std::int64_t, 3> lengths{1, 2, 1};
  const std::array<std::int64_t, 3> displacements{0, 8, 24};
  const std::array<DatatypePtr, 3> members{type(BasicKind::Int), type(BasicKind::Double), type(BasicKind::Char)};
  auto item = committed(Datatype::create_struct(lengths, displacements, members));
  EXPECT_EQ(item->size(), 21);
  EXPECT_EQ(item->element_count(), 4);
  EXPECT_EQ(item->elements_in(4), 1);
  EXPECT_EQ(item->elements_in(12), 2);
  EXPECT_EQ(item->elements_in(20), 3);
  EXPECT_EQ(item->elements_in(21), 4);
  EXPECT_EQ(item->elements_in(21 + 12), 6);
  EXPECT_EQ(item->elements_in(6), std::nullopt);
  EXPECT_EQ(item->elements_in(21 + 13), std::nullopt);
  // Nested and repeated: a vector of the struct, then a dup and a resized copy of it.
  auto rows = committed(Datatype::vector(3, 2, 4, item));
  EXPECT_EQ(rows->element_count(), 24);
  EXPECT_EQ(rows->elements_in(5 * 21 + 20), 23);
  EXPECT_EQ(Datatype::dup(rows)->elements_in(5 * 21 + 20), 23);
  EXPECT_EQ(Datatype::create_resized(rows, 0, 1000)->elements_in(5 * 21 + 20), 23);
}

TEST_F(MpiDatatypeTest, ElementsOfAHugeContiguousStructNeedNoExpansion) {
  // A struct without padding, resized to its size: contiguous, so 10^9 of them are one
  // block, and their element map must be one piece, not 2 * 10^9 entries.
  const std::array<std::int64_t, 2> lengths{1, 1};
  const std::array<std::int64_t, 2> displacements{0, 4};
  const std::array<DatatypePtr, 2> members{type(BasicKind::Int), type(BasicKind::Double)};
  auto packed = Datatype::create_resized(Datatype::create_struct(lengths, displacements, members), 0, 12);
  auto huge = Datatype::contiguous(1000000000, packed);
  EXPECT_EQ(huge->element_count(), 2000000000);
  EXPECT_EQ(huge->elements_in(12 * 5 + 4), 11);
  EXPECT_EQ(huge->elements_in(huge->size()), 2000000000);
}

}  // namespace
}  // namespace twinfab::mpi
