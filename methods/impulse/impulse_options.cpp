#include "methods/impulse/impulse_method.hpp"

namespace mb {

std::vector<OptionInfo> impulse_options_info() {
  return {OptionInfo::number("tol_p", "1e-6", "position correction tolerance, m (rad for rotational rows); 0: to round-off", 0),
          OptionInfo::number("tol_v", "1e-6", "velocity correction tolerance, m/s (rad/s); 0: to round-off", 0),
          OptionInfo::integer("max_iter", "1000", "maximum sweeps per correction; more is a failure", 1, 1e9),
          OptionInfo::integer("budget", "0",
                              "anytime (schmitt2003 s.3): N > 0 = every correction phase stops after N sweeps and the step goes "
                              "on with the error reached (stats budget_stops; only a non-finite error fails); 0 = off",
                              0, 1e9),
          OptionInfo::choice("adaptive", "off",
                             "on = a step whose corrections fail is taken again as two of half the size (down to h / 1024), "
                             "the size doubling back after 8 good internal steps (stats internal_steps, rejected_steps, "
                             "h_min, h_max); off = a failed correction fails the run",
                             {"off", "on"}),
          OptionInfo::choice("repair", "project",
                             "joints broken at the start (broken-chain): project = each step first moves the bodies onto the "
                             "joints in at most max_iter position sweeps (budget's, if set), velocities kept (no energy added); "
                             "while still open beyond tol_p the step is the free motion and a velocity correction of as many "
                             "sweeps; step = the look-ahead correction closes them at once, the gap over h becoming velocity",
                             {"project", "step"}),
          warm_start_option(),
          contact_coupling_option(), contact_iterations_option(), contact_margin_option(), contact_detection_option(),
          spring_treatment_option()};
}

OptionInfo warm_start_option() {
  return OptionInfo::choice("warm_start", "off",
                            "on = each correction phase (the preview's, the step's position, the velocity) begins with the "
                            "impulses that phase ended with a step before (joints, unbounded motors, contacts found again on the "
                            "same shape pair), applied to the velocities, and iterates to the same tolerances; off = every phase "
                            "from zero impulses (schmitt2003, bender2007)",
                            {"off", "on"});
}

bool parse_warm_start(const MethodOptions& s) { return s.choice("warm_start") == "on"; }

OptionInfo contact_detection_option() {
  return OptionInfo::choice("contact_detection", "start",
                            "contacts: start = a shape pair within contact_margin at the step's start keeps the contacts found "
                            "there (normal and points), the preview adds new pairs (a block resting on a thin rod at h = 0.25 s, "
                            "whose preview passes through it, stays); preview = every contact from the preview (tomcin2014 s.7)",
                            {"start", "preview"});
}

bool parse_contact_detection(const MethodOptions& s) { return s.choice("contact_detection") == "start"; }

OptionInfo contact_margin_option() {
  return OptionInfo::number("contact_margin", "1e-4",
                            "contacts: pairs closer than this on the preview are found too, m (speculative contacts: they act only "
                            "if the step would close them; a body resting on another that the floor holds is never missed); "
                            "0: only pairs penetrating on the preview",
                            0, 1);
}

double parse_contact_margin(const MethodOptions& s) { return s.number("contact_margin"); }

OptionInfo spring_treatment_option() {
  return OptionInfo::choice("springs", "explicit",
                            "force elements: explicit = each spring-damper's force at the step's start, held over it (stable "
                            "for h below about 2 m / c); implicit = its tension at the step's end by a linearly implicit "
                            "Euler step through the free bodies (stable at any h, first order; docs/method-notes.md)",
                            {"explicit", "implicit"});
}

bool parse_spring_treatment(const MethodOptions& s) { return s.choice("springs") == "implicit"; }

OptionInfo contact_iterations_option() {
  return OptionInfo::integer("contact_iterations", "0",
                             "contacts: sweeps with contacts stop after N > 0 (tomcin2014 s.3, s.7), or unconverged at the sweep "
                             "limit with 0; the contacts keep their impulses, the joints alone go on to the tolerance (stats "
                             "contact_stops; the rest shows as penetration)",
                             0, 1000000);
}

long parse_contact_iterations(const MethodOptions& s) { return s.integer("contact_iterations"); }

OptionInfo contact_coupling_option() {
  return OptionInfo::choice("coupling", "on",
                            "contacts: on = each contact coupled to the joints through the factored system (tomcin2014 s.7; "
                            "where the whole A is factored), off = contacts and joints alternate (Gauss-Seidel)",
                            {"on", "off"});
}

MethodInfo impulse_method_info() {
  MethodInfo i;
  i.family = "impulse";
  i.options = impulse_options_info();
  // O(h^3) local error (schmitt2005 s.2); with the default tolerances 1e-6 the order is lost once
  // the error nears the tolerance, so the declaration holds with tight ones
  i.orders = {{"position", "pendulum90", 2, 0.0025, 0.04, 1, "tol_p=1e-12,tol_v=1e-12",
               "O(h^3) local error (schmitt2005 s.2); at the default tolerances 1e-6 only while the error exceeds about 1e-5"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kAppliedTorques | kAppliedForces | kContacts | kForces | kJointDampers |
               kMotors | kBrokenJoints | kJointLimits;
  i.particle_form = true;
  i.timing_table = true;
  return i;
}

OptionInfo velocity_floor_option() {
  return OptionInfo::choice("velocity_floor", "on",
                            "on: a velocity correction whose error stops falling within 10x its tolerance ends (redundant "
                            "rows agree only to the joint errors' order; docs/method-notes.md); off: the step fails",
                            {"on", "off"});
}

bool parse_velocity_floor(const MethodOptions& s) { return s.choice("velocity_floor") == "on"; }

OptionInfo rolling_slip_option() {
  return OptionInfo::choice("rolling", "trapezoid",
                            "rolling wheels' slip rows: trapezoid = in the position correction too (order 2); velocity = in "
                            "the velocity correction only (order 1)",
                            {"trapezoid", "velocity"});
}

bool parse_rolling_slip(const MethodOptions& s) { return s.choice("rolling") == "trapezoid"; }

bool parse_contact_coupling(const MethodOptions& s) { return s.choice("coupling") == "on"; }

ImpulseOptions parse_impulse_options(const MethodOptions& s) {
  ImpulseOptions o;
  o.tol_p = s.number("tol_p");
  o.tol_v = s.number("tol_v");
  o.max_iter = s.integer("max_iter");
  o.couple_contacts = parse_contact_coupling(s);
  o.contact_iterations = parse_contact_iterations(s);
  o.contact_margin = parse_contact_margin(s);
  o.contacts_from_start = parse_contact_detection(s);
  o.implicit_springs = parse_spring_treatment(s);
  o.budget = s.integer("budget");
  o.adaptive = s.choice("adaptive") == "on";
  o.repair_project = s.choice("repair") == "project";
  o.warm_start = parse_warm_start(s);
  return o;
}

}  // namespace mb
