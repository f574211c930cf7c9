// `linear` (bender2007 s.4-5, "lin."): the impulse step with A x = dv solved through
// H = [M -J^T; -J 0] ordered by a depth-first search so that its block LDL^T makes no fill-in
// (Baraff 1996): O(n) per factorisation and solve. Models with closed loops are split once at
// init into acyclic parts (split_acyclic: a spanning forest, then the remaining joints), each
// solved by its own O(n) factorisation; the parts are iterated (block Gauss-Seidel) until every
// joint is within tolerance (s.5).
#include "methods/impulse/methods.hpp"
#include "methods/solvers/tree_solver.hpp"

namespace mb {

namespace {

// split at init, when the model is known
class LinearCorrector final : public Corrector {
 public:
  void init(const Model& model, const State& state) override {
    // a motor's row beside its joint's would close a cycle, and so would a second wheel's rows (the
    // ground closes it): the motors and the wheels are rows of their own (with_extra_rows), block
    // Gauss-Seidel with the parts
    inner_ = make_group_corrector(split_acyclic(model), make_tree_solver, MotorRows::None, WheelRows::None);
    inner_->init(model, state);
  }
  void update(const Model& m, const State& s, StepStats& st) override { inner_->update(m, s, st); }
  int groups() const override { return inner_->groups(); }
  double correct_position(int g, const Model& m, const StepLoads& l, double h, State& s, double tol, StepStats& st) override {
    return inner_->correct_position(g, m, l, h, s, tol, st);
  }
  double correct_velocity(int g, State& s, double tol, StepStats& st) override { return inner_->correct_velocity(g, s, tol, st); }
  // one acyclic part (a tree): its contacts and limits are coupled to it as sle's are (contacts.hpp)
  ArticulationCoupling* coupling() override { return inner_->coupling(); }
  ArticulationCoupling* response() override { return inner_->response(); }
  bool take_prediction(const State& s, State& out) override { return inner_->take_prediction(s, out); }
  void begin_step(const Model& m, const State& s, double h) override { inner_->begin_step(m, s, h); }
  void begin_warm(WarmPhase phase, double span, State& s) override { inner_->begin_warm(phase, span, s); }
  void end_warm() override { inner_->end_warm(); }
  MotorRows motor_rows() const override { return MotorRows::None; }

 private:
  std::unique_ptr<Corrector> inner_;
};

}  // namespace

std::unique_ptr<Corrector> make_linear_corrector() { return std::make_unique<LinearCorrector>(); }

MethodInfo LinearMethod::describe() {
  MethodInfo i = impulse_method_info();
  i.name = "linear";
  i.description = "impulse-based: A x = dv through H = [M -J^T; -J 0], DFS order, O(n) LDL^T; loops split into acyclic parts";
  i.source = "bender2007 s.4-5";
  i.paper_name = "lin.";
  i.timing_max_joints = 16383;
  i.timing_reference = true;  // O(n): timing ratios (gate, bench) are taken to it
  i.supports |= kRolling | kCoupledJoints;  // the wheels' and couplings' rows after the parts (with_extra_rows)
  i.options.push_back(rolling_slip_option());
  return i;
}

std::unique_ptr<Method> LinearMethod::make(const MethodOptions& s) {
  ImpulseOptions o = parse_impulse_options(s);
  o.rolling_slip_in_position = parse_rolling_slip(s);
  return std::make_unique<ImpulseMethod>(describe(), o, make_linear_corrector());
}

}  // namespace mb
