// Linearly implicit spring-dampers for the impulse methods (docs/method-notes.md, "Implicit force
// elements"). The impulse step holds its loads constant over the step; an explicit spring-damper
// (its force at the start of the step) is stable only for h below about 2 m / c and 2 sqrt(m / k),
// so a stiff one (IFToMM A05's couplers) sets the step. Here each spring's tension s (force on a
// along u = (p_b - p_a) / l, -s u on b) is instead the value at the end of the step by one implicit
// Euler step of the spring's own length, linearized in the tension:
//   s = k (x + h r') + c r',   r' = r + h r_o - h G s,
// x the stretch, r the rate of length, r_o the rate's acceleration by the step's other loads and G
// the rates' response to the tensions. So
//   (D^-1 + h G) s = D^-1 k x + r + h r_o,   D = diag(h k + c),
// symmetric positive definite. Where the corrector factors the joints' A (sle, linear, tomcin), G
// and r_o are the jointed ones, G = J M^-1 J^T - B^T A^-1 B with B = J_c M^-1 J^T (one solve per
// spring, a dense LDL^T in the springs); otherwise (iterative) the free bodies', which bound the
// jointed ones from above: stable still, but a spring on a light body jointed to heavy ones looks
// far softer than it is. Left out: the turn of u over the step (the lateral stiffness
// k (1 - L / l) / l) and the rate's velocity terms.
#pragma once

#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>

#include "methods/bodies/free_motion.hpp"
#include "methods/contacts/contacts.hpp"

namespace mb {

class ImplicitSprings {
 public:
  // out = step plus the springs' forces and torques with the implicit tensions above (out may be
  // step). Springs with k = c = 0 exert nothing. With `articulation` (the joints' factored system
  // at `state`), G and r_o are the jointed ones (below); without, the free bodies'.
  void loads(const Model& model, const State& state, double h, const StepLoads& step, StepLoads& out,
             ArticulationCoupling* articulation = nullptr);

 private:
  bool articulated(const Model& model, const State& state, double h, const StepLoads& step, ArticulationCoupling& art);
  void apply(StepLoads& out) const;
  struct Side {  // a spring's rate row on one body: sign u and sign (arm x u), world frame
    int body = -1;
    Vec3 lin = Vec3::Zero(), ang = Vec3::Zero();
  };
  struct Row {  // spring i: its bodies, direction, lever arms p - x, stretch, rate, k and D
    int a = -1, b = -1;  // dynamic body indices, -1 for the world or a static body
    Vec3 u, arm_a, arm_b;
    double x = 0, r = 0, k = 0, d = 0;
    Side side_a, side_b;
  };
  struct Entry {
    int spring;
    const Side* side;
  };
  std::vector<Row> rows_;
  std::vector<std::vector<Entry>> by_body_;
  std::vector<Eigen::Triplet<double>> triplets_;
  Eigen::SparseMatrix<double> a_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
  Eigen::VectorXd b_, s_;
  Eigen::MatrixXd dv_, phi_dv_, y_, dense_;  // the articulated path: dense in the springs
  Eigen::LDLT<Eigen::MatrixXd> dense_ldlt_;
  bool analyzed_ = false;
};

}  // namespace mb
