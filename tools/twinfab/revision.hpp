// What this twinfab is: the project's version and the source tree's git revision
// (`git describe --always --dirty`, "unknown" outside a git checkout), written at build
// time by cmake/write_revision.cmake into revision.cpp in the build tree (rewritten
// only when it changes). `twinfab --version` prints both; the Python package reports
// them and sweeps key their cache on the revision.
#pragma once

namespace twinfab::tools {

const char* version() noexcept;
const char* revision() noexcept;

}  // namespace twinfab::tools
