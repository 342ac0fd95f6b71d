// GoogleTest without gmock: EXPECT_CONTAINS(text, part), a substring check whose failure
// shows both strings.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace twinfab::testing {

/// Success when `part` occurs in `text`; otherwise a failure that shows both.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n  message: " << text << "\n  lacks:   " << part;
}

}  // namespace twinfab::testing

#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(::twinfab::testing::contains((text), (part)))
