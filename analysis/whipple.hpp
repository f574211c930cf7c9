// The linearized Whipple bicycle (meijaard2007): about upright, straight-ahead motion at forward
// speed v the lean phi and the steer delta, q = (phi, delta), obey
//   M q'' + v C1 q' + (g K0 + v^2 K2) q = 0,
// a 4 x 4 first-order system in x = (phi, delta, phi', delta'). Its four eigenvalues at a speed
// are the weave pair (complex over the self-stable range), the capsize and the castering modes.
// The weave speed v_w is where the weave pair's real part crosses zero, the capsize speed v_c
// where the capsize eigenvalue does; the bicycle is self-stable on (v_w, v_c). The same functions
// take any state matrix (`ref`'s numerical linearization): a speed is a root of an eigenvalue
// function, found by Boost.Math's TOMS 748 to the last bit of v.
#pragma once
#include <array>
#include <optional>
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "analysis/fit.hpp"
#include "models/catalog.hpp"
#include "models/modes.hpp"
#include "records/record.hpp"

namespace mb {

// The largest real part of a complex pair (the weave's), -inf if every eigenvalue is real.
double weave_real_part(const std::array<std::complex<double>, 4>& e);
// The largest real eigenvalue whose size is below `bound` (the capsize mode's, beside the fast
// castering one), -inf if none.
double capsize_eigenvalue(const std::array<std::complex<double>, 4>& e, double bound = 5);

// The speed in [lo, hi] where f changes sign (f(lo) and f(hi) of opposite signs; throws
// std::domain_error naming the interval otherwise), to the last bit of v.
double speed_root(const std::function<double(double)>& f, double lo, double hi);

// v_w and v_c of a state-matrix function A(v): roots of the weave real part and of the capsize
// eigenvalue on [lo, hi] (the benchmark bicycle: [3, 5] and [5, 7]).
double weave_speed(const std::function<Eigen::Matrix4d(double)>& A, double lo, double hi);
double capsize_speed(const std::function<Eigen::Matrix4d(double)>& A, double lo, double hi);

// The bicycle's linearization from our own equations of motion: those `ref` integrates the catalog's
// `bicycle` with (maximal coordinates, the hinges' and rolling rows' multipliers at the acceleration
// level: methods/reduced/maximal_system.hpp). At a state built from z = (phi, delta, phi', delta')
// (bicycle_state, forward speed v) the derivative gives (phi', delta', phi'', delta''); A is its
// Jacobian at z = 0 by central differences of steps eps, eps/2, eps/4 on each coordinate,
// Richardson-extrapolated twice (error O(eps^6)).
Eigen::Matrix4d bicycle_linearization(const BicycleParams& p, double v, double eps = 1e-2);

// A published linearization (meijaard2007's [matrices] and [speeds]): the benchmark bicycle's
// matrices and its printed weave and capsize speeds (Table 2 (a)).
struct PaperLinear {
  WhippleMatrices matrices;
  double weave_speed = 0, capsize_speed = 0;
  std::string source;
};

// The benchmark bicycle beside the published linearization (the report's Meijaard 2007 section):
// at every speed v the records ran, the eigenvalues of the published matrices and of ref's own
// linearization (bicycle_linearization of the catalog's bicycle, Table 1's parameters); the speeds
// v_w, v_c as printed, from the published matrices and from ref's linearization; every record's
// identified eigenvalues (eig_err); and the verdicts, decided here.
constexpr double kModesRefTolerance = 1e-10;   // ref's linearization against the published eigenvalues
constexpr double kModesSpeedTolerance = 1e-9;  // m/s: v_w, v_c of ref's linearization against the printed ones
constexpr double kModesFitTolerance = 1e-4;    // a method's eig_err at its smallest h, at every judged speed
// A speed is judged where no published eigenvalue's real part exceeds kModesGrowth: there the
// perturbation grows at most e^2 over the fit's 2 s and the motion stays linear (below it, v < 4 m/s,
// the bicycle falls and every method's motion, ref's too, leaves the linearization).
constexpr double kModesGrowth = 1;  // 1/s
struct ModesFit {
  std::string method;
  double v = 0, h = 0, err = 0;
  bool within = false;  // err <= kModesFitTolerance
  std::array<std::complex<double>, 4> e{};
};
struct ModesMethod {
  std::string method;
  double h = 0;         // its smallest h with eig_err (the largest over the speeds)
  double worst = 0;     // the largest eig_err over the judged speeds, each at its smallest h
  double worst_v = 0;   // where
  bool within = false;  // worst <= kModesFitTolerance
  // over h at the speed with the most steps, of several the most stable: eig_err and its least-squares
  // order over the points above kModesFloor (the fit's own round-off: ref's motion gives 1e-10)
  double swept_v = 0;
  std::vector<double> hs, errs;
  std::optional<PowerFit> order;
};
constexpr double kModesFloor = 1e-9;
struct ModesAnalysis {
  std::vector<double> v;
  std::vector<std::array<std::complex<double>, 4>> published, ref;
  std::vector<double> ref_err;  // eigenvalue_error(ref, published) at each v
  std::vector<char> ref_err_within;  // at each v: ref_err <= kModesRefTolerance
  std::vector<char> judged;     // at each v: every published real part <= kModesGrowth
  double ref_err_max = 0;
  bool ref_within = false, speeds_within = false;
  std::vector<double> curve_v;  // 0 .. 10 m/s by 0.05: the published eigenvalues for the figure
  std::vector<std::array<std::complex<double>, 4>> curve;
  double weave_printed = 0, capsize_printed = 0, weave_published = 0, capsize_published = 0, weave_ref = 0, capsize_ref = 0;
  std::vector<ModesFit> fits;       // every record with eig_err, by method, v, h
  std::vector<ModesMethod> methods;
};
// none: no record has eig_err
std::optional<ModesAnalysis> analyse_modes(const std::vector<CaseRecord>& records, const PaperLinear& paper);

}  // namespace mb
