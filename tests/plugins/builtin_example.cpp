// A second executable for tests/plugin_test.cpp, which runs the example plugin's method
// (examples/plugin/euler.cpp) compiled in, registered as NAME-builtin, and the same source loaded
// as a plugin (MBBENCH_PLUGINS; the executable exports the library's symbols as mbbench does):
//   steps MODEL METHOD STEPS  steps METHOD on MODEL through the timing harness (bench/harness.hpp:
//                             3 warm-up steps, then windows of 4; h = 0.01 s), for cachegrind
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness.hpp"
#include "methods/plugin.hpp"
#include "models/catalog.hpp"

extern "C" const mb::PluginDescriptor* mbbench_plugin();  // examples/plugin/euler.cpp

int main(int argc, char** argv) {
  try {
    std::vector<mb::MethodEntry> methods;
    mbbench_plugin()->register_methods(methods);
    for (auto& e : methods) {
      e.info.name += "-builtin";
      mb::register_method(std::move(e));
    }
    mb::load_plugins(mb::plugins_from_env());
    if (argc != 5 || std::string(argv[1]) != "steps") {
      std::fprintf(stderr, "usage: %s steps MODEL METHOD STEPS\n", argv[0]);
      return 2;
    }
    const mb::Model model = mb::load_model(argv[2]);
    const int steps = std::atoi(argv[4]);
    mb::StepTimer timer(model, argv[3], 0.01);
    timer.restart();
    for (int k = 0; k < steps; k += 4) timer.window(std::min(4, steps - k));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
