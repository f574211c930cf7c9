// An example of adding a method: this one file plus one registration line (tests/main.cpp:
// `mb::register_method(mbtest::example_method_entry());`). Nothing else changes: the method is
// listed with the others, runs through the driver, takes part in the conformance test (its
// declared order is checked) and in a timing run (tests/foundation_test.cpp shows all four).
//
// `example-midpoint`: the reduced (generalized-coordinate) system of GC4 and ref, composed with
// Odeint's modified midpoint stepper (Gragg's method), `substeps` sub-steps per step (an option:
// declared in describe(), checked and typed by the registry, read in the constructor): second order.
#include <boost/numeric/odeint/stepper/modified_midpoint.hpp>

#include "methods/method.hpp"
#include "methods/reduced/reduced_system.hpp"

namespace mbtest {

using namespace mb;

namespace {

class ExampleMidpoint final : public Method {
 public:
  static MethodInfo describe() {
    MethodInfo i;
    i.name = "example-midpoint";
    i.family = "reduced";
    i.description = "example (tests only): reduced coordinates + modified midpoint rule (Gragg, 2 sub-steps), fixed step";
    i.source = "ours (tests/example_method.cpp)";
    i.orders = {{"position", "pendulum90", 2, 0.0025, 0.02, 1, "", "modified midpoint, 2 sub-steps"}};
    i.supports = kParticles | kRigidBodies | kTrees | kAppliedTorques;
    i.options = {OptionInfo::integer("substeps", "2", "midpoint sub-steps per step (Gragg)", 1, 16)};
    return i;
  }
  explicit ExampleMidpoint(const MethodOptions& o) : midpoint_(static_cast<unsigned short>(o.integer("substeps"))) {}
  const MethodInfo& info() const override {
    static const MethodInfo i = describe();
    return i;
  }

 private:
  void do_init(const Model& model, const State& state) override {
    sys_ = ReducedSystem::extract(model);
    sys_.read(state, x_);
  }
  void do_step(const Model& model, State& state, double h, StepStats&) override {
    sys_.set_loads(model, state.t, h);
    auto f = [this](const std::vector<double>& x, std::vector<double>& dxdt, double) { sys_.derivative(x, dxdt); };
    midpoint_.do_step(f, x_, state.t, h);
    sys_.normalize(x_);
    sys_.write(x_, state);
  }
  ReducedSystem sys_;
  std::vector<double> x_;
  boost::numeric::odeint::modified_midpoint<std::vector<double>> midpoint_;  // Gragg
};

}  // namespace

MethodEntry example_method_entry() {
  return {ExampleMidpoint::describe(), [](const MethodOptions& o) -> std::unique_ptr<Method> { return std::make_unique<ExampleMidpoint>(o); }};
}

}  // namespace mbtest
