// The source tree's git revision, written at build time by cmake/write_revision.cmake
// into revision.cpp in the build tree (rewritten only when it changes).
#pragma once

namespace twinfab::python {

const char* revision() noexcept;

}  // namespace twinfab::python
