// The implementation of toml++ (Debian libtomlplusplus-dev, header files), compiled once into
// mbbench_lib with TOML_FLOAT_CHARCONV=1 (CMakeLists.txt says why).
#define TOML_IMPLEMENTATION
#include "core/toml.hpp"
