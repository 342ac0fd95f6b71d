// TWINFAB_* parameters as MPI_Init reads them (mpi::apply_environment): a refused value
// is MPI_ERR_ARG with a message that names the variable, whether the parser or the
// range check refuses it, and only plain decimal digits are numbers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "mpi/core/config.hpp"
#include "mpi/core/error.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab::mpitest {
namespace {

/// The message apply_environment refuses `name=value` with ("" if it accepts it).
std::string refusal(const char* name, const char* value) {
  setenv(name, value, 1);
  std::string text;
  try {
    mpi::apply_environment({});
  } catch (const mpi::Error& e) {
    EXPECT_EQ(e.error_class(), mpi::ErrorClass::MPI_ERR_ARG) << e.what();
    text = e.what();
  }
  unsetenv(name);
  return text;
}

TEST(ConfigEnvironment, EveryRefusalNamesItsVariable) {
  testing::run_forked([] {
    const std::pair<const char*, const char*> bad[] = {
        {"TWINFAB_PACKET_SIZE", "0"},          {"TWINFAB_PACKET_SIZE", "99999999"},
        {"TWINFAB_CREDITS", "0"},              {"TWINFAB_CREDITS", "5000"},
        {"TWINFAB_SEND_BUFFERS", "1"},         {"TWINFAB_SEND_BUFFERS", "100000000"},
        {"TWINFAB_CREDIT_UPDATE", "32"},       {"TWINFAB_REGCACHE_MAX_ENTRIES", "0"},
        {"TWINFAB_REGCACHE_MAX_BYTES", "0"},   {"TWINFAB_EAGER_THRESHOLD", "abc"},
        {"TWINFAB_RMA_LOCK_BACKOFF", "1001"},  {"TWINFAB_RMA_LOCK_FAIR", "2"},
        {"TWINFAB_UD_RECV_INITIAL", "1"},      {"TWINFAB_UD_RECV_INITIAL", "65537"},
        {"TWINFAB_RMA_PIGGYBACK", "65537"},
    };
    for (const auto& [name, value] : bad) {
      const std::string text = refusal(name, value);
      EXPECT_NE(text.find(name), std::string::npos) << name << "=" << value << " gave: '" << text << "'";
    }
  });
}

TEST(ConfigEnvironment, SendBuffersAreBoundedByCountAndRegisteredBytes) {
  testing::run_forked([] {
    setenv("TWINFAB_SEND_BUFFERS", "65536", 1);
    setenv("TWINFAB_PACKET_SIZE", "4096", 1);
    EXPECT_EQ(mpi::apply_environment({}).send_buffers, 65536u);  // 256 MiB
    setenv("TWINFAB_PACKET_SIZE", "131072", 1);                 // 8 GiB
    std::string text;
    try {
      mpi::apply_environment({});
    } catch (const mpi::Error& e) {
      text = e.what();
    }
    EXPECT_NE(text.find("more than 4 GiB"), std::string::npos) << text;
    unsetenv("TWINFAB_PACKET_SIZE");
    unsetenv("TWINFAB_SEND_BUFFERS");
  });
}

TEST(ConfigEnvironment, OnlyDecimalDigitsAreANumber) {
  testing::run_forked([] {
    for (const char* value : {" -1", "-1", " 5", "+5", "5 ", "0x10", "1e3", ""}) {
      const std::string text = refusal("TWINFAB_EAGER_THRESHOLD", value);
      EXPECT_NE(text.find("is not a non-negative integer"), std::string::npos)
          << "'" << value << "' gave: '" << text << "'";
    }
    setenv("TWINFAB_EAGER_THRESHOLD", "4096", 1);
    EXPECT_EQ(mpi::apply_environment({}).eager_threshold, 4096u);
    unsetenv("TWINFAB_EAGER_THRESHOLD");
  });
}

}  // namespace
}  // namespace twinfab::mpitest
