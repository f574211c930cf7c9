// The conformance checks of a method (docs/architecture.md), shared by the test suite
// (tests/method_conformance_test.cpp: every registered method) and `mbbench conformance` (a
// plugin's methods):
//   - models: on every small catalog model it claims, it runs through the driver and the case is ok,
//     two runs give bit-identical records (accuracy fields), the constraint error stays bounded and,
//     where energy is conserved, the energy too; a model it does not claim is refused with
//     UnsupportedModel, never run;
//   - order: the order it declares (MethodInfo::orders) is the order it shows, within 0.3, on the
//     declared problem and step range, measured as the position error against the reference;
//   - options: an unknown option, or an option out of its declared range, is an InputError naming it;
//   - record: its record survives the JSON round trip and names the method, its order and, for a
//     plugin's method, the plugin in the provenance.
// Each check is data (ConformanceCheck): the caller asserts or prints.
#pragma once
#include <string>
#include <vector>

#include "methods/method.hpp"

namespace mb {

// A small model of a catalog family with a step it is made for and a short duration.
struct ConformanceModel {
  std::string spec;
  double h = 0, duration = 0;  // s
};
// every catalog family, small
const std::vector<ConformanceModel>& conformance_models();

struct ConformanceCheck {
  std::string method;
  std::string check;    // "refused", "runs", "deterministic", "bounded", "order", "options", "record"
  std::string subject;  // the model, option or problem checked
  bool ok = false;
  std::string detail;   // what was seen
};

// The reason a claimed model is known to make the method fail with (a documented finding), or
// nullptr: the run must then fail with that reason.
using KnownFailure = const char* (*)(const std::string& method, const std::string& model);

std::vector<ConformanceCheck> check_models(const MethodEntry& e, KnownFailure known = nullptr);
std::vector<ConformanceCheck> check_orders(const MethodEntry& e);
std::vector<ConformanceCheck> check_options(const MethodEntry& e);
std::vector<ConformanceCheck> check_record(const MethodEntry& e);

}  // namespace mb
