// The builder of the scene reader (scene_reader.cpp): a Model from a scene's [model] table and its
// [[body]], [[joint]], [[torque]], [[force]], [[spring]], [[material]], [[material_pair]], [[shape]]
// and [[motor]] tables, each table read through toml++ (TableReader) or the lexer (LineTable,
// scene_lexer.hpp) with the same model and the same messages.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/memory.hpp"
#include "core/name_index.hpp"
#include "core/toml_reader.hpp"
#include "models/formats/scene_lexer.hpp"
#include "models/formats/scene_split.hpp"
#include "models/model.hpp"

namespace mb {

// Reading a scene: the [model] table, then the [[body]], [[joint]], [[torque]] and [[spring]] tables in
// file order (every body before the first joint, torque or spring that names it).
class SceneBuilder {
 public:
  explicit SceneBuilder(std::string file) : file(std::move(file)) {}
  // room for this many bodies and joints (one allocation each instead of the doublings)
  void reserve(const SceneCounts& c);
  // the reserved memory of the joints (filled last), then of the bodies
  std::vector<Prefault::Range> reserved() const;

  void model_table(const TableReader& top);

  void body(const toml::table& t, int line_offset);
  void body(const LexedPart& p, const LexedTable& t);
  template <class R>
  void body(const R& br);

  // after the last body
  void bodies_done();

  void joint(const toml::table& t, int line_offset);
  void joint(const LexedPart& p, const LexedTable& t);
  template <class R>
  void joint(const R& jr);

  // [[torque]] and [[force]]: an applied load (AppliedLoad) on a body from t_begin; no t_end: constant
  // from t_begin on (a driving torque, a push)
  void load(const toml::table& t, int line_offset, bool is_force);
  void torque(const LexedPart& p, const LexedTable& t);
  template <class R>
  void load(const R& tr, bool is_force);
  void torque(const toml::table& t, int line_offset);

  void material(const toml::table& t);

  void material_pair(const toml::table& t);

  void shape(const toml::table& t);

  void spring(const toml::table& t, int line_offset);
  void spring(const LexedPart& p, const LexedTable& t);
  template <class R>
  void spring(const R& sr);

  // [[motor]]: a drive on a hinge or slider named by `joint`; `target` names the kind of f(t) and
  // the kind's own keys give it (models/model.hpp, MotorTarget)
  void motor(const toml::table& t);
  // [[actuator]]: a force actuator on a hinge or slider named by `joint` (models/model.hpp Actuator):
  // kind motor (default), position (kp, kv), velocity (kv) or general (gain, bias = [b0, b1, b2]);
  // gear (1), ctrlrange and forcerange ([low, high]; none: not limited), offset (0: the joint's
  // coordinate at the initial state)
  void actuator(const toml::table& t);
  // the hinge or slider named by the table's `joint` (`what`: "a motor", "an actuator" in messages)
  int driven_joint(const TableReader& r, const char* what);
  // [[exact]]: a body's closed-form motion (ExactMotion); [[named_frame]]: a frame fixed to a body
  // or the world (NamedFrame)
  void exact(const toml::table& t);
  void named_frame(const toml::table& t);
  // [[rolling]]: a wheel rolling without slipping on a plane (models/model.hpp Rolling): name?, body,
  // axle (body frame), radius, point? (a point of the plane, world), normal (unit, world)
  void rolling(const toml::table& t);
  // [[coupling]]: joint a's coordinate follows joint b's (models/model.hpp JointCoupling): name?,
  // joint (a), follows (b), multiplier (1), offset (0)
  void coupling(const toml::table& t);

  Model finish();

 private:
  size_t n_loads_[2] = {0, 0};  // [[torque]] and [[force]] tables read so far
  // the keys of the last valid [[body]], [[joint]], [[torque]] and [[spring]] line table (LineTable)
  std::vector<std::string_view> checked_[4];
  // the bodies' names by index, for `index`
  struct BodyName {
    const Model* m;
    const std::string& operator()(long k) const { return m->bodies[static_cast<size_t>(k)].name; }
  };
  BodyName body_name() const { return {&m}; }
  int find_body(const std::string& name) const { return static_cast<int>(index.find(name, body_name())); }
  // the body a joint or spring names in `key` ("world" or a body's name)
  template <class R>
  int body_ref(const R& r, const char* key) const;

  // a joint, shape or spring name seen once in its kind (an absent name is the default "joint3", which
  // must not be one given to another table either)
  template <class R>
  static void unique_name(const R& r, std::unordered_set<std::string>& seen, const std::string& name, const char* kind);
  template <class R>
  [[noreturn]] static void duplicate_name(const R& r, const std::string& name, const char* kind);

  int material_ref(const TableReader& r, const std::string& key) const;
  // restitution (default 0), mu_static (default 0) and mu_dynamic (default mu_static), checked
  static void coefficients(const TableReader& r, double& e, double& mu_s, double& mu_d);

  std::string file;
  Model m;
  NameIndex index, joint_names;  // the bodies and the joints read so far, by name
  std::unordered_map<std::string, int> materials, joint_index;
  std::unordered_map<int, std::string> driven;  // joint index -> the name of its motor
  std::unordered_set<std::string> shape_names, spring_names, motor_names, actuator_names, coupling_names;
  std::string tracked;
  int tracked_line = 0;
  // [model] ctrl (the control source, applied once the actuators are read) and whether
  // ctrl_times and ctrl_rows give a table
  std::string ctrl_text;
  int ctrl_line = 0;
  bool ctrl_table = false;
};

}  // namespace mb
