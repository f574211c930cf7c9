// Linearly implicit spring-dampers for the impulse methods (docs/method-notes.md, "Implicit force
// elements"). The impulse step holds its loads constant over the step; an explicit spring-damper
// (its force at the start of the step) is stable only for h below about 2 m / c and 2 sqrt(m / k),
// so a stiff one (IFToMM A05's couplers) sets the step. Here each spring's tension s (force on a
// along u = (p_b - p_a) / l, -s u on b) is instead the value at the end of the step by one implicit
// Euler step of the spring's own length, linearized in the tension:
//   s = k (x + h r') + c r',   r' = r + h r_o - h G s,
// x the stretch, r the rate of length, r_o the rate's acceleration by the step's other loads, and
// G = J M^-1 J^T the springs' coupling through the free bodies (J_i: spring i's rate row). So
//   (D^-1 + h G) s = D^-1 k x + r + h r_o,   D = diag(h k + c),
// symmetric positive definite; solved sparse (springs couple where they share a body). The joints
// are left out of G: the free-body G bounds the jointed one from above, which keeps the step stable
// for every h (the stiff mode decays); the joints' reaction enters through the impulse corrections
// after it. Also left out: the turn of u over the step (the lateral stiffness k (1 - L / l) / l).
#pragma once

#include <vector>

#include <Eigen/SparseCholesky>

#include "methods/common/free_motion.hpp"

namespace mb {

class ImplicitSprings {
 public:
  // out = step plus the springs' forces and torques with the implicit tensions above (out may be
  // step). Springs with k = c = 0 exert nothing.
  void loads(const Model& model, const State& state, double h, const StepLoads& step, StepLoads& out);

 private:
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
  bool analyzed_ = false;
};

}  // namespace mb
