// The registry of methods: one line per method, in name order (ASCII); the peer engines come from
// the table cmake/peers.cmake generates. Adding a method = its file in methods/<family>/ plus one
// line here. (An explicit list, not self-registering statics, which a static library can drop.)
#include <algorithm>

#include "methods/higher_order/imp.hpp"
#include "methods/impulse/methods.hpp"
#include "methods/lagrange/lagrange_method.hpp"
#include "methods/method.hpp"
#include "methods/peers/peers.hpp"
#include "methods/reduced/gc4.hpp"
#include "methods/reduced/gc_contact.hpp"
#include "methods/reduced/ref.hpp"

namespace mb {

std::vector<MethodEntry> builtin_methods() {
  std::vector<MethodEntry> v = {
        {Gc4::describe(), Gc4::make},
        {describe_imp(5), [](const MethodOptions& o) { return make_imp(5, o); }},
        {describe_imp(1), [](const MethodOptions& o) { return make_imp(1, o); }},
        {describe_imp(2), [](const MethodOptions& o) { return make_imp(2, o); }},
        {describe_imp(3), [](const MethodOptions& o) { return make_imp(3, o); }},
        {describe_imp(4), [](const MethodOptions& o) { return make_imp(4, o); }},
        Lagrange::alias("LM4", "stab=none,solver=lu", "schmitt2005 s.5", "Lagrange multipliers + RK4, unstabilised",
                        {{"position", "pendulum90", 4, 0.0025, 0.04, 1, "", "classic RK4"}}),
        // LMBS4, LMV4, LMVD4: the readings of schmitt2005 s.5 that reproduce its s.6 Pendulum10 rows
        // (docs/findings.md); the other readings stay options (e.g. LMBS4:stab_on=form, LMV4:apply=above_tol,tol_v=1e-10)
        Lagrange::alias("LMBS4", "stab=baumgarte,alpha=10,beta=10,gains=2alpha_beta2,stab_on=squared,solver=lu", "schmitt2005 s.5",
                        "Lagrange multipliers + RK4, Baumgarte stabilisation (his Example 1) of |d|^2 - L^2"),
        Lagrange::alias("LMV4", "stab=v,apply=always,tol_v=0,solver=lu", "schmitt2005 s.5",
                        "Lagrange multipliers + RK4 + impulse velocity correction after each step",
                        {{"position", "double-pendulum", 4, 0.000625, 0.01, 1, "", "RK4; the correction to round-off after every step"}}),
        Lagrange::alias("LMVD4", "stab=vd,apply=always,tol_p=0,tol_v=0,solver=lu", "schmitt2005 s.5",
                        "Lagrange multipliers + RK4 + impulse projection and velocity correction (steps (a)-(d))",
                        {{"position", "double-pendulum", 4, 0.000625, 0.02, 1, "", "RK4; the corrections to round-off after every step"}}),
        Lagrange::alias("baraff", "stab=baumgarte,alpha=10,beta=10,solver=baraff", "bender2007 s.6", "Lagrange multipliers + RK4, Baumgarte, Baraff's O(n) LDL^T of H"),
        {GcContact::describe(), GcContact::make},
        {IterativeMethod::describe(), IterativeMethod::make},
        {Lagrange::describe(), Lagrange::make},
        {LinearMethod::describe(), LinearMethod::make},
        {ParticlesMethod::describe(), ParticlesMethod::make},
        {Ref::describe(), Ref::make},
        {SleMethod::describe(), SleMethod::make},
        {TomcinMethod::describe(), TomcinMethod::make},
  };
  // the peer engines built (cmake/peers.cmake's table), in name order with the rest
#define MBBENCH_PEER(engine) v.push_back({describe_##engine(), make_##engine});
#define MBBENCH_PEER_OFF(engine, why)
#include "peers_table.inc"
#undef MBBENCH_PEER
#undef MBBENCH_PEER_OFF
  std::sort(v.begin(), v.end(), [](const MethodEntry& a, const MethodEntry& b) { return a.info.name < b.info.name; });
  return v;
}

}  // namespace mb
