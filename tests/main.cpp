// Catch2's main. GCC 12 at -O1 with the sanitizers reports a false -Wmaybe-uninitialized inside
// libstdc++'s std::function, instantiated by Catch2's own code; with -Werror (CI) that stops the
// build, so it is silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
