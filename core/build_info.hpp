// What this binary was built from; filled in by cmake/provenance.cmake.
#pragma once
namespace mb::build {
const char* git_commit();
const char* compiler();
const char* flags();
const char* build_type();
const char* version();
}  // namespace mb::build
