// TWINFAB_LOG_LEVEL (fabric/log_level.hpp): the names it takes, and a clear error for
// any other text instead of spdlog's silent "off".
#include "fabric/log_level.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <string>

#include "fabric/error.hpp"

namespace twinfab::fabric {
namespace {

using spdlog::level::level_enum;

TEST(LogLevel, TakesSpdlogsNamesAndTheirShortForms) {
  EXPECT_EQ(parse_log_level("trace", "V"), level_enum::trace);
  EXPECT_EQ(parse_log_level("debug", "V"), level_enum::debug);
  EXPECT_EQ(parse_log_level("info", "V"), level_enum::info);
  EXPECT_EQ(parse_log_level("warn", "V"), level_enum::warn);
  EXPECT_EQ(parse_log_level("warning", "V"), level_enum::warn);
  EXPECT_EQ(parse_log_level("error", "V"), level_enum::err);
  EXPECT_EQ(parse_log_level("err", "V"), level_enum::err);
  EXPECT_EQ(parse_log_level("critical", "V"), level_enum::critical);
  EXPECT_EQ(parse_log_level("off", "V"), level_enum::off);
  EXPECT_EQ(parse_log_level("", "V"), std::nullopt);
}

TEST(LogLevel, AnythingElseIsAnErrorThatNamesTheVariableAndTheLevels) {
  for (const char* bad : {"DEBUG", "verbose", "5", " info"}) {
    try {
      (void)parse_log_level(bad, "TWINFAB_LOG_LEVEL");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidArgument);
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("TWINFAB_LOG_LEVEL='") + bad + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("trace, debug, info"), std::string::npos) << what;
    }
  }
}

TEST(LogLevel, TheEnvironmentSetsSpdlogsLevelAndUnsetLeavesIt) {
  const level_enum before = spdlog::get_level();
  ASSERT_EQ(setenv("TWINFAB_LOG_LEVEL", "debug", 1), 0);
  apply_log_level_from_environment();
  EXPECT_EQ(spdlog::get_level(), level_enum::debug);
  ASSERT_EQ(unsetenv("TWINFAB_LOG_LEVEL"), 0);
  apply_log_level_from_environment();
  EXPECT_EQ(spdlog::get_level(), level_enum::debug);  // unchanged
  ASSERT_EQ(setenv("TWINFAB_LOG_LEVEL", "loud", 1), 0);
  EXPECT_THROW(apply_log_level_from_environment(), Error);
  EXPECT_EQ(spdlog::get_level(), level_enum::debug);  // a bad value changes nothing
  unsetenv("TWINFAB_LOG_LEVEL");
  spdlog::set_level(before);
}

}  // namespace
}  // namespace twinfab::fabric
