// gcc 12 with -O1 -fsanitize=address reports a false -Wmaybe-uninitialized in libstdc++'s <regex>
// (std::function move in regex_automaton.h), which Catch's main instantiates
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
