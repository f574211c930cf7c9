// Provenance of a record (design.md s.6, style.md 14): commit, compiler, flags, build type, CPU,
// date and library versions.
#pragma once
#include <nlohmann/json.hpp>

namespace mb {
nlohmann::json provenance();
}
