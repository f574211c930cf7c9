// A program built against an installed mbbench (find_package(mbbench): mbbench::mbbench) that
// runs a model with a method through the library, as `mbbench run MODEL METHOD --h 0.01
// --duration 2` does, then steps the same method by hand (`run_model pendulum10 GC4`):
//   load_model   the model catalog (or a scene, URDF or MJCF file)
//   run_case     one case: the step plan, the driver, the metrics, the error against the reference
//   make_method  a method of the registry, stepped with init() and step()
// It prints the record's status and metrics, then the state after 200 steps of h = 0.01 s.
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL METHOD\n", argv[0]);
    return 2;
  }
  const std::string model_spec = argv[1], method_spec = argv[2];
  try {
    const mb::Model model = mb::load_model(model_spec);
    mb::RunConfig cfg;
    cfg.h = 0.01;
    cfg.duration = 2;
    const mb::CaseRecord r = mb::run_case(model, method_spec, cfg);
    std::printf("status: %s\n", r.ok() ? "ok" : r.reason.c_str());
    std::printf("steps: %ld of h = %.17g s\n", r.steps_done, r.h);
    for (const auto& [name, value] : r.metrics.values) std::printf("%s = %.17g\n", name.c_str(), value);

    const std::unique_ptr<mb::Method> method = mb::make_method(method_spec);
    mb::State state = mb::initial_state(model);
    method->init(model, state);
    mb::StepStats stats;
    for (int k = 0; k < 200; ++k) method->step(model, state, 0.01, stats);
    const mb::Vec3& x = state.bodies.back().x;
    std::printf("by hand: last body at (%.17g, %.17g, %.17g) m after 200 steps\n", x.x(), x.y(), x.z());
    return r.ok() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "run_model: %s\n", e.what());
    return 2;
  }
}
