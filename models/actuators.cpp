#include "models/actuators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <numbers>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {
constexpr std::pair<ActuatorKind, const char*> kActuatorKinds[] = {
    {ActuatorKind::Motor, "motor"}, {ActuatorKind::Position, "position"}, {ActuatorKind::Velocity, "velocity"}, {ActuatorKind::General, "general"}};

// splitmix64: a 64-bit mix whose outputs pass the usual tests; one call per draw, so a draw depends
// on (seed, actuator, cell) alone, never on how many steps asked before
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
// a uniform number in (0, 1): the top 53 bits, offset by half a unit
double uniform(uint64_t x) { return (static_cast<double>(x >> 11) + 0.5) * 0x1.0p-53; }
// a standard normal from (seed, actuator, cell) by Box-Muller
double normal(unsigned long seed, size_t actuator, long cell) {
  const uint64_t k = mix(mix(mix(seed) ^ actuator) ^ static_cast<uint64_t>(cell));
  const double u1 = uniform(mix(k)), u2 = uniform(mix(k ^ 0x5851f42d4c957f2dULL));
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}
// the number a text holds whole (blanks around it allowed), finite or not; none otherwise
std::optional<double> number_in(const std::string& text) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || text.find_first_not_of(" \t", used) != std::string::npos) return std::nullopt;
  return x;
}
Motor as_motor(const Actuator& a) {
  Motor m;
  m.joint = a.joint;
  return m;
}
}  // namespace

const char* actuator_kind_name(ActuatorKind k) {
  for (const auto& [kind, name] : kActuatorKinds)
    if (kind == k) return name;
  return "motor";
}
bool actuator_kind_from_name(const std::string& name, ActuatorKind& k) {
  for (const auto& [kind, n] : kActuatorKinds)
    if (name == n) {
      k = kind;
      return true;
    }
  return false;
}

void controls_at(const Model& m, double t, std::vector<double>& ctrl) {
  const ControlSource& c = m.control;
  ctrl.assign(m.actuators.size(), 0.0);
  // a time within 1e-6 of a cell's start (a sum of steps' round-off) belongs to that cell
  auto cell = [](double t, double width) { return static_cast<long>(std::floor(t / width + 1e-6)); };
  for (size_t i = 0; i < m.actuators.size(); ++i) {
    const Actuator& a = m.actuators[i];
    double u = 0;
    switch (c.kind) {
      case ControlKind::Zero: break;
      case ControlKind::Hold: u = a.kind == ActuatorKind::Position ? a.offset : 0.0; break;
      case ControlKind::Sine: u = c.amplitude * std::sin(2 * std::numbers::pi * c.frequency * t); break;
      case ControlKind::Noise: {
        const bool lim = std::isfinite(a.ctrl_low) && std::isfinite(a.ctrl_high);
        const double centre = lim ? (a.ctrl_low + a.ctrl_high) / 2 : 0.0, radius = lim ? (a.ctrl_high - a.ctrl_low) / 2 : 1.0;
        u = centre + c.sigma * radius * normal(c.seed, i, cell(t, kNoiseCell));
        break;
      }
      case ControlKind::Table: {
        // the last row whose time is at or before t (within the round-off above); the first before it
        const auto it = std::upper_bound(c.times.begin(), c.times.end(), t + 1e-9 * std::max(1.0, std::abs(t)));
        const size_t k = it == c.times.begin() ? 0 : static_cast<size_t>(it - c.times.begin()) - 1;
        u = c.rows[k][i];
        break;
      }
    }
    ctrl[i] = std::clamp(u, a.ctrl_low, a.ctrl_high);
  }
}

std::vector<double> control_breaks(const Model& m, double t0, double t1) {
  std::vector<double> b;
  if (m.actuators.empty()) return b;
  const ControlSource& c = m.control;
  if (c.kind == ControlKind::Noise) {
    // the cells' starts after t0's cell (a time within 1e-6 of a start belongs to that cell, as in
    // controls_at), before t1 by more than that round-off
    for (long k = static_cast<long>(std::floor(t0 / kNoiseCell + 1e-6)) + 1; static_cast<double>(k) * kNoiseCell < t1 - 1e-6 * kNoiseCell; ++k)
      b.push_back(static_cast<double>(k) * kNoiseCell);
  } else if (c.kind == ControlKind::Table) {
    for (double tb : c.times)
      if (tb > t0 + 1e-9 * std::max(1.0, std::abs(t0)) && tb < t1 - 1e-9 * std::max(1.0, std::abs(t1))) b.push_back(tb);
  }
  return b;
}

double actuator_force(const Actuator& a, double ctrl, double q, double qd) {
  const double f = a.gain * ctrl + a.bias[0] + a.bias[1] * (a.gear * q) + a.bias[2] * (a.gear * qd);
  return a.gear * std::clamp(f, a.force_low, a.force_high);
}

double actuator_coordinate(const Model& m, const State& s, const Actuator& a) { return motor_coordinate(m, s, as_motor(a)) + a.offset; }
double actuator_rate(const Model& m, const State& s, const Actuator& a) { return motor_rate(m, s, as_motor(a)); }

void add_actuator_loads(const Model& m, const State& s, const std::vector<double>& ctrl, std::vector<Vec3>& force,
                        std::vector<Vec3>& torque) {
  for (size_t i = 0; i < m.actuators.size(); ++i) {
    const Actuator& a = m.actuators[i];
    // no bias and zero control: no force (whatever the joint's coordinate and axis)
    if (ctrl[i] == 0 && a.bias[0] == 0 && a.bias[1] == 0 && a.bias[2] == 0 && a.force_low <= 0 && a.force_high >= 0) continue;
    const Joint& j = m.joints[static_cast<size_t>(a.joint)];
    const double tau = actuator_force(a, ctrl[i], actuator_coordinate(m, s, a), actuator_rate(m, s, a));
    const Vec3 u = joint_axis_world(s, j);
    if (j.type == JointType::Hinge) {
      if (j.b != kWorld) torque[static_cast<size_t>(j.b)] += tau * u;
      if (j.a != kWorld) torque[static_cast<size_t>(j.a)] -= tau * u;
    } else {
      const Vec3 f = tau * u;
      if (j.b != kWorld) {
        const auto b = static_cast<size_t>(j.b);
        force[b] += f;
        torque[b] += (world_point(m, s, j.b, j.anchor_b) - s.bodies[b].x).cross(f);
      }
      if (j.a != kWorld) {
        const auto k = static_cast<size_t>(j.a);
        force[k] -= f;
        torque[k] -= (world_point(m, s, j.a, j.anchor_a) - s.bodies[k].x).cross(f);
      }
    }
  }
}

ActuatorProblem actuator_problem(const Model& m, size_t i) {
  const Actuator& a = m.actuators[i];
  if (a.joint < 0 || a.joint >= static_cast<int>(m.joints.size())) return {"joint", "no such joint"};
  const Joint& j = m.joints[static_cast<size_t>(a.joint)];
  if (j.type != JointType::Hinge && j.type != JointType::Slider)
    return {"joint", fmt::format("joint '{}' is a {} joint; an actuator drives a hinge or a slider", j.name, joint_type_name(j.type))};
  const std::pair<const char*, double> numbers[] = {{"gear", a.gear}, {"gain", a.gain}, {"bias", a.bias[0]}, {"bias", a.bias[1]},
                                                    {"bias", a.bias[2]}, {"offset", a.offset}};
  for (const auto& [field, x] : numbers)
    if (!std::isfinite(x)) return {field, fmt::format("{} must be finite, got {}", field, x)};
  for (double x : {a.ctrl_low, a.ctrl_high, a.force_low, a.force_high})
    if (std::isnan(x)) return {"ctrlrange", "a range's ends must be numbers, got nan"};
  if (!(a.ctrl_low <= a.ctrl_high))
    return {"ctrlrange", fmt::format("ctrlrange's low end {} is above its high end {}", a.ctrl_low, a.ctrl_high)};
  if (!(a.force_low <= a.force_high))
    return {"forcerange", fmt::format("forcerange's low end {} is above its high end {}", a.force_low, a.force_high)};
  return {};
}

void actuate_all(Model& m, const std::string& value, const std::string& source, int line) {
  auto fail = [&](const std::string& why) { throw InputError(source, line, "model", fmt::format("actuate={}: {}", value, why)); };
  if (value.rfind("all:", 0) != 0) fail("expected all:KP,KV (a position servo on every hinge and slider)");
  const std::string rest = value.substr(4);
  const auto comma = rest.find(',');
  if (comma == std::string::npos) fail("expected all:KP,KV, two numbers");
  double g[2];
  const std::string parts[2] = {rest.substr(0, comma), rest.substr(comma + 1)};
  for (int k = 0; k < 2; ++k) {
    const std::optional<double> x = number_in(parts[k]);
    if (!x || !std::isfinite(*x) || *x < 0) fail(fmt::format("{} '{}' must be a finite number >= 0", k == 0 ? "KP" : "KV", parts[k]));
    g[k] = *x;
  }
  std::vector<bool> has(m.joints.size(), false);
  for (const Actuator& a : m.actuators) has[static_cast<size_t>(a.joint)] = true;
  int added = 0;
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& J = m.joints[j];
    if (has[j] || (J.type != JointType::Hinge && J.type != JointType::Slider)) continue;
    Actuator a;
    a.name = "servo_" + J.name;
    a.joint = static_cast<int>(j);
    a.kind = ActuatorKind::Position;
    a.gain = g[0];
    a.bias = {0, -g[0], -g[1]};
    m.actuators.push_back(a);
    ++added;
  }
  if (added == 0) fail("the model has no hinge or slider without an actuator");
  m.info.energy_conserved = false;
}

ControlSource parse_control(const std::string& value, const Model& m, const std::string& source, int line) {
  auto fail = [&](const std::string& why) -> void { throw InputError(source, line, "model", fmt::format("ctrl={}: {}", value, why)); };
  ControlSource c;
  c.text = value;
  if (m.actuators.empty() && value != "zero")
    fail("the model has no actuators to control (actuate=all:KP,KV puts a position servo on every hinge and slider)");
  auto numbers = [&](const std::string& args, const char* form) {
    std::vector<double> out;
    std::stringstream in(args);
    std::string item;
    while (std::getline(in, item, ',')) {
      const std::optional<double> x = number_in(item);
      if (!x || !std::isfinite(*x)) fail(fmt::format("'{}' is not a finite number (expected {})", item, form));
      out.push_back(*x);
    }
    if (out.size() != 2) fail(fmt::format("expected {}", form));
    return out;
  };
  if (value == "zero") {
    c.kind = ControlKind::Zero;
  } else if (value == "hold") {
    c.kind = ControlKind::Hold;
  } else if (value.rfind("sine:", 0) == 0) {
    const auto x = numbers(value.substr(5), "sine:AMPLITUDE,FREQUENCY_HZ");
    if (x[1] < 0) fail("the frequency must be >= 0 Hz");
    c.kind = ControlKind::Sine;
    c.amplitude = x[0];
    c.frequency = x[1];
  } else if (value.rfind("noise:", 0) == 0) {
    const auto x = numbers(value.substr(6), "noise:SEED,SIGMA");
    if (x[0] < 0 || x[0] != std::floor(x[0]) || x[0] > 4e9) fail("the seed must be an integer in [0, 4e9]");
    if (x[1] < 0) fail("sigma must be >= 0");
    c.kind = ControlKind::Noise;
    c.seed = static_cast<unsigned long>(x[0]);
    c.sigma = x[1];
  } else {
    if (!is_file(value))
      fail(fmt::format("no control file '{}' (the value is zero, hold, sine:A,F, noise:SEED,SIGMA or a CSV file)", value));
    c.kind = ControlKind::Table;
    std::ifstream in(value);
    std::string text;
    int row_line = 0;
    bool header = false;
    const size_t columns = m.actuators.size() + 1;
    while (std::getline(in, text)) {
      ++row_line;
      if (!text.empty() && text.back() == '\r') text.pop_back();
      const auto first = text.find_first_not_of(" \t");
      if (first == std::string::npos || text[first] == '#') continue;
      std::vector<std::string> cells;
      std::stringstream s(text);
      std::string cell;
      while (std::getline(s, cell, ',')) cells.push_back(cell);
      if (!text.empty() && text.back() == ',') cells.emplace_back();
      std::vector<double> row;
      bool numeric = true;
      for (const std::string& x : cells) {
        const std::optional<double> v = number_in(x);
        if (!v) numeric = false;
        row.push_back(v.value_or(0.0));
      }
      if (!numeric && c.times.empty() && !header) {  // a header: a first row that is not numbers
        header = true;
        if (cells.size() != columns)
          throw InputError(value, row_line, "ctrl",
                           fmt::format("the header has {} columns; the model has {} actuator(s), so a row is the time and {} control(s)",
                                       cells.size(), m.actuators.size(), m.actuators.size()));
        continue;
      }
      if (cells.size() != columns)
        throw InputError(value, row_line, "ctrl",
                         fmt::format("a row has {} columns; the model has {} actuator(s), so a row is the time and {} control(s)", cells.size(),
                                     m.actuators.size(), m.actuators.size()));
      if (!numeric) throw InputError(value, row_line, "ctrl", "a row's columns must be numbers");
      for (double v : row)
        if (!std::isfinite(v)) throw InputError(value, row_line, "ctrl", fmt::format("a row's numbers must be finite, got {}", v));
      if (!c.times.empty() && !(row[0] > c.times.back()))
        throw InputError(value, row_line, "ctrl", fmt::format("times must increase strictly: {} after {}", row[0], c.times.back()));
      c.times.push_back(row[0]);
      c.rows.emplace_back(row.begin() + 1, row.end());
    }
    if (c.times.empty()) throw InputError(value, row_line, "ctrl", "the control file has no rows");
  }
  return c;
}

}  // namespace mb
