// twinfab's logger and TWINFAB_LOG_LEVEL (fabric/log.hpp): the names it takes, a clear
// error for any other text instead of spdlog's silent "off", and a level that is
// twinfab's own, not that of spdlog's default logger (the program's).
#include "fabric/log.hpp"

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

TEST(LogLevel, TheEnvironmentSetsTwinfabsLevelAndUnsetLeavesIt) {
  const level_enum before = log().level();
  const level_enum program_before = spdlog::get_level();
  EXPECT_EQ(before, level_enum::info);
  ASSERT_EQ(setenv("TWINFAB_LOG_LEVEL", "debug", 1), 0);
  apply_log_level_from_environment();
  EXPECT_EQ(log().level(), level_enum::debug);
  EXPECT_EQ(spdlog::get_level(), program_before);  // the program's logger is left alone
  ASSERT_EQ(unsetenv("TWINFAB_LOG_LEVEL"), 0);
  apply_log_level_from_environment();
  EXPECT_EQ(log().level(), level_enum::debug);  // unchanged
  ASSERT_EQ(setenv("TWINFAB_LOG_LEVEL", "loud", 1), 0);
  EXPECT_THROW(apply_log_level_from_environment(), Error);
  EXPECT_EQ(log().level(), level_enum::debug);  // a bad value changes nothing
  unsetenv("TWINFAB_LOG_LEVEL");
  log().set_level(before);
}

TEST(LogLevel, TheProgramsSpdlogLevelDoesNotChangeTwinfabs) {
  const level_enum program_before = spdlog::get_level();
  spdlog::set_level(level_enum::off);
  EXPECT_EQ(log().level(), level_enum::info);
  spdlog::set_level(program_before);
}

}  // namespace
}  // namespace twinfab::fabric
