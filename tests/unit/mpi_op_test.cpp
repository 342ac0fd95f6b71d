// Unit tests of mpi/core/op: each predefined op on the types it is defined on,
// MAXLOC/MINLOC with ties, derived datatypes, and MPI_ERR_OP/MPI_ERR_TYPE for the
// combinations MPI leaves undefined; user-defined ops (ReductionOp::user): what their
// function receives, on any datatype, and the checks they still get.
#include <gtest/gtest.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "mpi/core/datatype.hpp"
#include "mpi/core/error.hpp"
#include "mpi/core/op.hpp"

#include "tests/unit/mpi_test_support.hpp"

namespace twinfab::mpi {
namespace {

using testing::error_of;

class MpiOpTest : public ::testing::Test {
 protected:
  PredefinedDatatypes types_;
  const Datatype& type(BasicKind kind) { return *types_.get(kind); }
};

TEST_F(MpiOpTest, ArithmeticOnIntegers) {
  const std::array<int, 4> in{1, -2, 3, 10};
  auto run = [&](Op op, std::array<int, 4> inout) {
    reduce_local(op, in.data(), inout.data(), 4, type(BasicKind::Int));
    return inout;
  };
  EXPECT_EQ(run(Op::Sum, {5, 5, 5, 5}), (std::array<int, 4>{6, 3, 8, 15}));
  EXPECT_EQ(run(Op::Prod, {5, 5, 5, 5}), (std::array<int, 4>{5, -10, 15, 50}));
  EXPECT_EQ(run(Op::Max, {0, 0, 4, 4}), (std::array<int, 4>{1, 0, 4, 10}));
  EXPECT_EQ(run(Op::Min, {0, 0, 4, 4}), (std::array<int, 4>{0, -2, 3, 4}));
  EXPECT_EQ(run(Op::Replace, {0, 0, 0, 0}), in);
  EXPECT_EQ(run(Op::NoOp, {7, 7, 7, 7}), (std::array<int, 4>{7, 7, 7, 7}));
}

// MPI lets elements sit at any byte offset (a one-sided accumulate at displacement 3
// of a window with disp_unit 1): the op must not form misaligned references, which
// the sanitizer build (make test-asan) reports.
TEST_F(MpiOpTest, ElementsAtOddByteOffsetsAreCombined) {
  alignas(8) std::array<std::byte, 32> in{};
  alignas(8) std::array<std::byte, 32> inout{};
  const std::array<std::int64_t, 2> a{5, -7};
  const std::array<std::int64_t, 2> b{10, 20};
  std::memcpy(in.data() + 1, a.data(), sizeof a);
  std::memcpy(inout.data() + 3, b.data(), sizeof b);
  reduce_local(Op::Sum, in.data() + 1, inout.data() + 3, 2, type(BasicKind::Int64));
  std::array<std::int64_t, 2> out{};
  std::memcpy(out.data(), inout.data() + 3, sizeof out);
  EXPECT_EQ(out, (std::array<std::int64_t, 2>{15, 13}));
  EXPECT_EQ(inout[2], std::byte{0});   // nothing outside the elements changed
  EXPECT_EQ(inout[19], std::byte{0});

  alignas(8) std::array<std::byte, 16> d_inout{};
  const double x = 1.5;
  const double y = 2.0;
  std::memcpy(in.data() + 5, &x, sizeof x);
  std::memcpy(d_inout.data() + 1, &y, sizeof y);
  reduce_local(Op::Max, in.data() + 5, d_inout.data() + 1, 1, type(BasicKind::Double));
  double got = 0;
  std::memcpy(&got, d_inout.data() + 1, sizeof got);
  EXPECT_EQ(got, 2.0);
}

TEST_F(MpiOpTest, LogicalAndBitwise) {
  const std::array<unsigned, 3> in{0b1100, 0, 5};
  auto run = [&](Op op, std::array<unsigned, 3> inout) {
    reduce_local(op, in.data(), inout.data(), 3, type(BasicKind::Unsigned));
    return inout;
  };
  EXPECT_EQ(run(Op::Band, {0b1010, 1, 4}), (std::array<unsigned, 3>{0b1000, 0, 4}));
  EXPECT_EQ(run(Op::Bor, {0b1010, 1, 4}), (std::array<unsigned, 3>{0b1110, 1, 5}));
  EXPECT_EQ(run(Op::Bxor, {0b1010, 1, 4}), (std::array<unsigned, 3>{0b0110, 1, 1}));
  EXPECT_EQ(run(Op::Land, {7, 1, 0}), (std::array<unsigned, 3>{1, 0, 0}));
  EXPECT_EQ(run(Op::Lor, {0, 0, 0}), (std::array<unsigned, 3>{1, 0, 1}));
  EXPECT_EQ(run(Op::Lxor, {3, 3, 2}), (std::array<unsigned, 3>{0, 1, 0}));

  const std::array<bool, 2> b_in{true, false};
  std::array<bool, 2> b_io{true, true};
  reduce_local(Op::Lxor, b_in.data(), b_io.data(), 2, type(BasicKind::CBool));
  EXPECT_EQ(b_io, (std::array<bool, 2>{false, true}));

  const std::array<std::byte, 1> y_in{std::byte{0xF0}};
  std::array<std::byte, 1> y_io{std::byte{0x3C}};
  reduce_local(Op::Bxor, y_in.data(), y_io.data(), 1, type(BasicKind::Byte));
  EXPECT_EQ(y_io[0], std::byte{0xCC});
}

TEST_F(MpiOpTest, FloatingComplexAndSmallIntegers) {
  const std::array<double, 2> d_in{1.5, -4.0};
  std::array<double, 2> d_io{2.0, 0.5};
  reduce_local(Op::Prod, d_in.data(), d_io.data(), 2, type(BasicKind::Double));
  EXPECT_EQ(d_io, (std::array<double, 2>{3.0, -2.0}));

  const std::array<std::complex<float>, 1> c_in{{{1, 2}}};
  std::array<std::complex<float>, 1> c_io{{{3, 4}}};
  reduce_local(Op::Prod, c_in.data(), c_io.data(), 1, type(BasicKind::CFloatComplex));
  EXPECT_EQ(c_io[0], std::complex<float>(-5, 10));

  // Unsigned arithmetic wraps as in C.
  const std::array<std::uint8_t, 1> u_in{200};
  std::array<std::uint8_t, 1> u_io{100};
  reduce_local(Op::Sum, u_in.data(), u_io.data(), 1, type(BasicKind::Uint8));
  EXPECT_EQ(u_io[0], 44);
}

TEST_F(MpiOpTest, MaxlocAndMinlocTiesKeepLowestIndex) {
  const std::array<pair::DoubleInt, 4> in{{{5.0, 3}, {1.0, 9}, {2.0, 1}, {7.0, 4}}};
  std::array<pair::DoubleInt, 4> io{{{5.0, 2}, {1.0, 0}, {3.0, 8}, {7.0, 6}}};
  reduce_local(Op::Maxloc, in.data(), io.data(), 4, type(BasicKind::DoubleInt));
  EXPECT_EQ(io[0].value, 5.0);
  EXPECT_EQ(io[0].index, 2);  // tie: lower index, though it was on the inout side
  EXPECT_EQ(io[1].index, 0);
  EXPECT_EQ(io[2].value, 3.0);
  EXPECT_EQ(io[2].index, 8);
  EXPECT_EQ(io[3].index, 4);  // tie: lower index from the in side

  const std::array<pair::TwoInt, 2> i_in{{{4, 7}, {-1, 5}}};
  std::array<pair::TwoInt, 2> i_io{{{4, 3}, {0, 1}}};
  reduce_local(Op::Minloc, i_in.data(), i_io.data(), 2, type(BasicKind::TwoInt));
  EXPECT_EQ(i_io[0].value, 4);
  EXPECT_EQ(i_io[0].index, 3);
  EXPECT_EQ(i_io[1].value, -1);
  EXPECT_EQ(i_io[1].index, 5);

  // Ties resolve the same whichever operand order the reduction tree picks.
  std::array<pair::ShortInt, 1> a{{{2, 9}}};
  std::array<pair::ShortInt, 1> b{{{2, 4}}};
  auto a_copy = a;
  auto b_copy = b;
  reduce_local(Op::Maxloc, a.data(), b_copy.data(), 1, type(BasicKind::ShortInt));
  reduce_local(Op::Maxloc, b.data(), a_copy.data(), 1, type(BasicKind::ShortInt));
  EXPECT_EQ(b_copy[0].index, 4);
  EXPECT_EQ(a_copy[0].index, 4);
}

TEST_F(MpiOpTest, DerivedTypesOfOneBasicType) {
  // Every other int of 6: a vector reduces only its own elements.
  auto every_other = Datatype::vector(3, 1, 2, types_.get(BasicKind::Int));
  every_other->commit();
  const std::array<int, 6> in{1, 1, 1, 1, 1, 1};
  std::array<int, 6> io{10, 20, 30, 40, 50, 60};
  reduce_local(Op::Sum, in.data(), io.data(), 1, *every_other);
  EXPECT_EQ(io, (std::array<int, 6>{11, 20, 31, 40, 51, 60}));

  // A contiguous derived type is reduced in place.
  auto three = Datatype::contiguous(3, types_.get(BasicKind::Int));
  three->commit();
  reduce_local(Op::Max, in.data(), io.data(), 2, *three);
  EXPECT_EQ(io, (std::array<int, 6>{11, 20, 31, 40, 51, 60}));

  // MAXLOC through a derived type of a padded pair (packed path).
  auto pairs = Datatype::vector(2, 1, 2, types_.get(BasicKind::ShortInt));
  pairs->commit();
  const std::array<pair::ShortInt, 3> p_in{{{9, 1}, {0, 0}, {3, 7}}};
  std::array<pair::ShortInt, 3> p_io{{{8, 2}, {5, 5}, {3, 6}}};
  reduce_local(Op::Maxloc, p_in.data(), p_io.data(), 1, *pairs);
  EXPECT_EQ(p_io[0].value, 9);
  EXPECT_EQ(p_io[0].index, 1);
  EXPECT_EQ(p_io[1].value, 5);  // not in the type map: untouched
  EXPECT_EQ(p_io[2].index, 6);  // tie: lower index
}

TEST_F(MpiOpTest, OpNotDefinedOnTypeIsErrOp) {
  const std::array<float, 1> f{1.0f};
  std::array<float, 1> g{2.0f};
  std::string message;
  EXPECT_EQ(error_of([&] { reduce_local(Op::Band, f.data(), g.data(), 1, type(BasicKind::Float)); }, &message),
            ErrorClass::MPI_ERR_OP);
  EXPECT_EQ(message, "MPI_Reduce_local(op=MPI_BAND): MPI_BAND is not defined on MPI_FLOAT");
  EXPECT_EQ(g[0], 2.0f);  // nothing written on error

  EXPECT_FALSE(is_defined(Op::Sum, BasicKind::CBool));
  EXPECT_FALSE(is_defined(Op::Max, BasicKind::CDoubleComplex));
  EXPECT_FALSE(is_defined(Op::Sum, BasicKind::Wchar));
  // MPI_CHAR reduces as a C integer, as in MPICH and Open MPI (a documented deviation).
  EXPECT_TRUE(is_defined(Op::Sum, BasicKind::Char));
  EXPECT_TRUE(is_defined(Op::Bxor, BasicKind::Char));
  EXPECT_FALSE(is_defined(Op::Band, BasicKind::Double));
  EXPECT_FALSE(is_defined(Op::Sum, BasicKind::Byte));
  EXPECT_FALSE(is_defined(Op::Maxloc, BasicKind::Int));
  EXPECT_FALSE(is_defined(Op::Sum, BasicKind::DoubleInt));
  EXPECT_FALSE(is_defined(Op::Land, BasicKind::Float));
  EXPECT_FALSE(is_defined(Op::Bor, BasicKind::Packed));
  EXPECT_TRUE(is_defined(Op::Land, BasicKind::CBool));
  EXPECT_TRUE(is_defined(Op::Bxor, BasicKind::Byte));
  EXPECT_TRUE(is_defined(Op::Sum, BasicKind::CLongDoubleComplex));
  EXPECT_TRUE(is_defined(Op::Minloc, BasicKind::LongDoubleInt));
  EXPECT_TRUE(is_defined(Op::Replace, BasicKind::Char));

  EXPECT_EQ(error_of([&] { check_op(Op::Maxloc, &type(BasicKind::Int), "MPI_Allreduce"); }),
            ErrorClass::MPI_ERR_OP);
}

TEST_F(MpiOpTest, MixedOrBadTypesAreErrType) {
  const std::array<std::int64_t, 2> lengths{1, 1};
  const std::array<std::int64_t, 2> displacements{0, 8};
  const std::array<DatatypePtr, 2> members{types_.get(BasicKind::Int), types_.get(BasicKind::Double)};
  auto mixed = Datatype::create_struct(lengths, displacements, members);
  mixed->commit();
  std::array<std::byte, 16> a{};
  std::array<std::byte, 16> b{};
  std::string message;
  EXPECT_EQ(error_of([&] { reduce_local(Op::Sum, a.data(), b.data(), 1, *mixed); }, &message),
            ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(message, "MPI_Reduce_local(datatype): MPI_SUM needs a datatype built from one basic type; this one mixes "
                     "several");
  // REPLACE is a copy: defined on any type (MPI_Accumulate with a struct).
  a[0] = std::byte{1};
  a[8] = std::byte{2};
  reduce_local(Op::Replace, a.data(), b.data(), 1, *mixed);
  EXPECT_EQ(b[0], std::byte{1});
  EXPECT_EQ(b[8], std::byte{2});

  EXPECT_EQ(error_of([&] { check_op(Op::Sum, nullptr, "MPI_Reduce"); }), ErrorClass::MPI_ERR_TYPE);
  auto uncommitted = Datatype::contiguous(1, types_.get(BasicKind::Int));
  EXPECT_EQ(error_of([&] { reduce_local(Op::Sum, a.data(), b.data(), 1, *uncommitted); }), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(error_of([&] { reduce_local(Op::Sum, a.data(), b.data(), -1, type(BasicKind::Int)); }),
            ErrorClass::MPI_ERR_COUNT);
}

TEST_F(MpiOpTest, EveryDefinedCombinationRuns) {
  // Smoke over the whole table: REPLACE of zeros into ones leaves zeros, and no
  // defined combination crashes on zeroed buffers.
  alignas(32) std::array<std::byte, 64> in{};
  for (std::size_t k = 0; k < kBasicKindCount; ++k) {
    const auto kind = static_cast<BasicKind>(k);
    for (Op op : {Op::Max, Op::Min, Op::Sum, Op::Prod, Op::Land, Op::Band, Op::Lor, Op::Bor, Op::Lxor, Op::Bxor,
                  Op::Maxloc, Op::Minloc, Op::Replace, Op::NoOp}) {
      alignas(32) std::array<std::byte, 64> io{};
      const auto result = error_of([&] { reduce_local(op, in.data(), io.data(), 1, type(kind)); });
      EXPECT_EQ(result == ErrorClass::MPI_SUCCESS, is_defined(op, kind)) << to_string(op) << " " << to_string(kind);
    }
  }
}

// ---- user-defined ops

/// What a user function saw, for the test to inspect.
struct Seen {
  int calls = 0;
  const void* in = nullptr;
  void* inout = nullptr;
  std::int64_t count = -1;
  const Datatype* type = nullptr;
};

// inout[i] = in[i] - inout[i] on ints: non-commutative, so the operand roles show.
void subtract(const void* user_data, const void* in, void* inout, std::int64_t count, const Datatype& type) {
  auto& seen = *static_cast<Seen*>(const_cast<void*>(user_data));
  seen = {seen.calls + 1, in, inout, count, &type};
  for (std::int64_t i = 0; i < count; ++i)
    static_cast<int*>(inout)[i] = static_cast<const int*>(in)[i] - static_cast<int*>(inout)[i];
}

TEST_F(MpiOpTest, UserOpGetsTheBuffersCountAndTypeAsGiven) {
  Seen seen;
  const ReductionOp op = ReductionOp::user(&subtract, &seen, false);
  EXPECT_TRUE(op.is_user());
  EXPECT_FALSE(op.is_commutative());
  EXPECT_EQ(to_string(op), "a user-defined op");
  const std::array<int, 3> in{10, 20, 30};
  std::array<int, 3> io{1, 2, 3};
  reduce_local(op, in.data(), io.data(), 3, type(BasicKind::Int));
  EXPECT_EQ(io, (std::array<int, 3>{9, 18, 27}));  // in op inout: `in` on the left
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.in, in.data());
  EXPECT_EQ(seen.inout, io.data());
  EXPECT_EQ(seen.count, 3);
  EXPECT_EQ(seen.type, &type(BasicKind::Int));

  // A derived type goes to the function as it is: one call, the element count of
  // that type, the user's buffers (no packed copy), holes and all.
  auto pairs = Datatype::vector(2, 1, 2, types_.get(BasicKind::Int));  // ints 0 and 2 of 3
  pairs->commit();
  std::array<int, 3> holes{1, 2, 3};
  reduce_local(op, in.data(), holes.data(), 1, *pairs);
  EXPECT_EQ(seen.calls, 2);
  EXPECT_EQ(seen.count, 1);
  EXPECT_EQ(seen.type, pairs.get());
  EXPECT_EQ(seen.inout, holes.data());

  // Count 0 and empty types do not call it.
  reduce_local(op, in.data(), io.data(), 0, type(BasicKind::Int));
  auto empty = Datatype::contiguous(0, types_.get(BasicKind::Int));
  empty->commit();
  reduce_local(op, in.data(), io.data(), 4, *empty);
  EXPECT_EQ(seen.calls, 2);
}

TEST_F(MpiOpTest, UserOpTakesAnyDatatypeButStillChecksIt) {
  Seen seen;
  const ReductionOp op = ReductionOp::user(&subtract, &seen, true);
  EXPECT_TRUE(op.is_commutative());
  // A struct of mixed basic types, which no predefined op but REPLACE takes.
  const std::array<std::int64_t, 2> lengths{1, 1};
  const std::array<std::int64_t, 2> displacements{0, 8};
  const std::array<DatatypePtr, 2> members{types_.get(BasicKind::Int), types_.get(BasicKind::Double)};
  auto mixed = Datatype::create_struct(lengths, displacements, members);
  mixed->commit();
  EXPECT_EQ(error_of([&] { check_op(op, mixed.get(), "MPI_Reduce"); }), ErrorClass::MPI_SUCCESS);
  EXPECT_EQ(error_of([&] { check_op(op, &type(BasicKind::CDoubleComplex), "MPI_Reduce"); }), ErrorClass::MPI_SUCCESS);
  std::string message;
  EXPECT_EQ(error_of([&] { check_op(op, nullptr, "MPI_Reduce"); }, &message), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(message, "MPI_Reduce(datatype): datatype is MPI_DATATYPE_NULL");
  std::array<int, 2> a{}, b{};
  auto uncommitted = Datatype::contiguous(1, types_.get(BasicKind::Int));
  EXPECT_EQ(error_of([&] { reduce_local(op, a.data(), b.data(), 1, *uncommitted); }), ErrorClass::MPI_ERR_TYPE);
  EXPECT_EQ(error_of([&] { reduce_local(op, a.data(), b.data(), -1, type(BasicKind::Int)); }),
            ErrorClass::MPI_ERR_COUNT);
  EXPECT_EQ(seen.calls, 0);
}

TEST_F(MpiOpTest, PredefinedOpsConvertToReductionOps) {
  const ReductionOp sum = Op::Sum;
  EXPECT_FALSE(sum.is_user());
  EXPECT_TRUE(sum.is_commutative());
  EXPECT_EQ(sum.predefined(), Op::Sum);
  EXPECT_EQ(to_string(sum), "MPI_SUM");
  const std::array<int, 2> in{1, 2};
  std::array<int, 2> io{10, 20};
  reduce_local(sum, in.data(), io.data(), 2, type(BasicKind::Int));
  EXPECT_EQ(io, (std::array<int, 2>{11, 22}));
  float f = 1, g = 2;
  EXPECT_EQ(error_of([&] { reduce_local(ReductionOp(Op::Band), &f, &g, 1, type(BasicKind::Float)); }),
            ErrorClass::MPI_ERR_OP);
}

}  // namespace
}  // namespace twinfab::mpi
