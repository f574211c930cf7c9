// An out-of-tree method, loaded by `mbbench ... --plugin libeuler_plugin.so`: semi-implicit
// (symplectic) Euler on the reduced coordinates of a tree, composed from mbbench's TreeModel,
// TreeData, articulated-body algorithm (aba.hpp) and state writer (tree_kinematics.hpp).
//   v_{n+1} = v_n + h qdd(q_n, v_n)       (qdd by the ABA)
//   q_{n+1} = q_n + h q'(q_n, v_{n+1})    (q' = v for hinges and rods; 1/2 q [0, w] for quaternions)
// Its positions are those of Stormer-Verlet started with q_1 = q_0 + h v_0 + h^2 qdd_0 (eliminate v:
// q_{n+1} - 2 q_n + q_{n-1} = h^2 qdd(q_n) where q' = v), so on the pendulums the position error is
// second order while velocities and energy are first order (hairer2006 I.1, VI.3). The
// quaternions are normalized after each step. Applied torques enter as their average over the step
// (models/model.hpp average_torques), as in GC4.
#include <memory>
#include <vector>

#include "methods/plugin.hpp"
#include "methods/reduced/aba.hpp"
#include "methods/reduced/tree_kinematics.hpp"

namespace {

using namespace mb;

class SemiImplicitEuler final : public Method {
 public:
  static MethodInfo describe() {
    MethodInfo i;
    i.name = "euler";
    i.family = "reduced";
    i.description = "semi-implicit Euler on reduced coordinates (articulated-body algorithm), fixed step";
    i.source = "hairer2006 I.1 (symplectic Euler)";
    i.orders = {{"position", "pendulum90", 2, 0.00125, 0.01, 1, "", "symplectic Euler: Stormer-Verlet's positions"}};
    i.stated_order = 1;  // the scheme's order (velocities, energy)
    i.supports = kParticles | kRigidBodies | kTrees | kAppliedTorques;
    return i;
  }
  static std::unique_ptr<Method> make(const MethodOptions&) { return std::make_unique<SemiImplicitEuler>(); }
  const MethodInfo& info() const override {
    static const MethodInfo i = describe();
    return i;
  }

 private:
  void do_init(const Model& model, const State& state) override {
    tree_ = TreeModel::build(model);  // UnsupportedModel naming why for a model that is no tree
    data_ = TreeData(tree_);
    tree_.read(state, x_);
    dxdt_.resize(x_.size());
  }
  void do_step(const Model& model, State& state, double h, StepStats&) override {
    const size_t nq = static_cast<size_t>(tree_.nq);
    average_torques(model, state.t, h, data_.tau);
    tree_derivative(tree_, data_, x_, dxdt_);
    for (size_t i = nq; i < x_.size(); ++i) x_[i] += h * dxdt_[i];
    tree_derivative(tree_, data_, x_, dxdt_);  // the coordinates' rates at the new velocities
    for (size_t i = 0; i < nq; ++i) x_[i] += h * dxdt_[i];
    tree_.normalize(x_);
    write_state(tree_, data_, x_, state);
  }
  TreeModel tree_;
  TreeData data_;
  std::vector<double> x_, dxdt_;  // (nq + nv)
};

void register_methods(std::vector<MethodEntry>& methods) { methods.push_back({SemiImplicitEuler::describe(), SemiImplicitEuler::make}); }

}  // namespace

MBBENCH_PLUGIN("euler-plugin 1.0", register_methods)
