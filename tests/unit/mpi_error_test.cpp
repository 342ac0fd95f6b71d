// Unit tests of mpi/core/error: the class values the C API returns, their texts, and
// the message an mpi::Error carries.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "mpi/core/error.hpp"

namespace twinfab::mpi {
namespace {

TEST(MpiErrorTest, ClassesHaveMpichValues) {
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_SUCCESS), 0);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_BUFFER), 1);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_COUNT), 2);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_TYPE), 3);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_RANK), 6);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_OP), 9);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_ARG), 12);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_TRUNCATE), 14);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_IN_STATUS), 17);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_PENDING), 18);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_REQUEST), 19);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_RMA_SYNC), 50);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_RMA_FLAVOR), 58);
  // The tools interface's return codes (MPICH's: the MPI-3.1 list in its order).
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_T_ERR_MEMORY), 59);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_T_ERR_INVALID_HANDLE), 64);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_T_ERR_PVAR_NO_ATOMIC), 72);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_T_ERR_INVALID_NAME), 73);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_T_ERR_INVALID), 74);
  EXPECT_EQ(static_cast<int>(ErrorClass::MPI_ERR_LASTCODE), 0x3fffffff);
}

TEST(MpiErrorTest, EveryClassHasADistinctValueNameAndText) {
  std::set<int> values;
  std::set<std::string> names;
#define CHECK_CLASS(name, value, text)                                             \
  EXPECT_TRUE(values.insert(value).second) << #name " reuses a value";              \
  EXPECT_TRUE(names.insert(std::string(to_string(ErrorClass::name))).second);      \
  EXPECT_EQ(to_string(ErrorClass::name), #name);                                   \
  EXPECT_FALSE(error_string(ErrorClass::name).empty());                            \
  EXPECT_EQ(error_class_from_int(value), ErrorClass::name);
  TWINFAB_MPI_ERROR_CLASS_LIST(CHECK_CLASS)
#undef CHECK_CLASS
  EXPECT_EQ(values.size(), names.size());
}

TEST(MpiErrorTest, TextsFollowMpich) {
  EXPECT_EQ(error_string(ErrorClass::MPI_SUCCESS), "No MPI error");
  EXPECT_EQ(error_string(ErrorClass::MPI_ERR_TYPE), "Invalid datatype");
  EXPECT_EQ(error_string(ErrorClass::MPI_ERR_RANK), "Invalid rank");
  EXPECT_EQ(error_string(ErrorClass::MPI_ERR_TRUNCATE), "Message truncated");
}

TEST(MpiErrorTest, UnknownIntegerMapsToUnknownClass) {
  EXPECT_EQ(error_class_from_int(54), ErrorClass::MPI_ERR_UNKNOWN);  // a hole in MPICH's list
  EXPECT_EQ(error_class_from_int(-1), ErrorClass::MPI_ERR_UNKNOWN);
  EXPECT_EQ(error_class_from_int(1000), ErrorClass::MPI_ERR_UNKNOWN);
  EXPECT_EQ(to_string(static_cast<ErrorClass>(1000)), "MPI_ERR_UNKNOWN");
  EXPECT_EQ(error_string(static_cast<ErrorClass>(1000)), error_string(ErrorClass::MPI_ERR_UNKNOWN));
}

TEST(MpiErrorTest, ErrorNamesFunctionArgumentAndProblem) {
  const Error e(ErrorClass::MPI_ERR_RANK, "MPI_Send(dest=7)", "invalid rank; communicator has 4 ranks");
  EXPECT_EQ(e.error_class(), ErrorClass::MPI_ERR_RANK);
  EXPECT_EQ(e.code(), 6);
  EXPECT_STREQ(e.what(), "MPI_Send(dest=7): invalid rank; communicator has 4 ranks");
  // Catchable as a standard exception at the C API boundary.
  try {
    throw e;
  } catch (const std::exception& caught) {
    EXPECT_STREQ(caught.what(), e.what());
  }
}

}  // namespace
}  // namespace twinfab::mpi
