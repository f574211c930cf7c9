// The model a spec names: a URDF or MJCF file, a scene file, else a catalog model (declared in
// models/catalog.hpp).
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/spec.hpp"
#include "models/actuators.hpp"
#include "models/catalog.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"

namespace mb {

bool is_scene_path(const std::string& text) {
  return (text.size() > 5 && text.compare(text.size() - 5, 5, ".toml") == 0) || is_file(text);
}

namespace {
Model load_inner(const std::string& text, const std::string& source, int line) {
  if (is_urdf_spec(text)) return load_urdf(text, source, line);
  if (is_mjcf_spec(text)) return load_mjcf(text, source, line);
  if (is_scene_path(text)) {
    if (!is_file(text)) throw InputError(source, line, "model", fmt::format("no scene file '{}'", text));
    return read_scene(text);
  }
  return build_model(text, source, line);
}
}  // namespace

const std::vector<OptionInfo>& model_options() {
  static const std::vector<OptionInfo> options = {
      OptionInfo::text("ctrl", "zero",
                       "the actuators' controls: zero, hold (position actuators to the initial pose), sine:AMPLITUDE,HZ, noise:SEED,SIGMA "
                       "(piecewise constant on a 10 ms grid), or a CSV file (time, then one column per actuator)"),
      OptionInfo::text("actuate", "", "all:KP,KV: a position servo (N m/rad or N/m, N m s/rad or N s/m) on every hinge and slider without an actuator")};
  return options;
}

Model load_model(const std::string& text, const std::string& source, int line) {
  // the options every model takes, taken off before the model's own options are checked
  std::string inner = text, ctrl, actuate;
  if (text.find(':') != std::string::npos && (text.find("ctrl=") != std::string::npos || text.find("actuate=") != std::string::npos)) {
    Spec spec = Spec::parse(text, "model", source, line);
    ctrl = spec.get_string("ctrl", "");
    actuate = spec.get_string("actuate", "");
    if (spec.has("ctrl")) spec = Spec::parse(spec_without(spec, "ctrl"), "model", source, line);
    if (spec.has("actuate")) spec = Spec::parse(spec_without(spec, "actuate"), "model", source, line);
    inner = spec.text();
  }
  Model m = load_inner(inner, source, line);
  if (!actuate.empty()) actuate_all(m, actuate, source, line);
  if (!ctrl.empty()) m.control = parse_control(ctrl, m, source, line);
  if (inner != text) m.info.name += fmt::format(" ({}{}{})", actuate.empty() ? "" : "actuate=" + actuate, !actuate.empty() && !ctrl.empty() ? ", " : "",
                                                ctrl.empty() ? "" : "ctrl=" + ctrl);
  return m;
}

}  // namespace mb
