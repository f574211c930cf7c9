// The file boundary of records: the only file that spells a record's JSON keys and CSV columns.
// Reading checks every field's presence and type and names the file, the line and the field.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "records/record.hpp"

namespace mb {

using nlohmann::json;

const char* to_string(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::Failed: return "failed";
    case Status::Unsupported: return "unsupported";
  }
  return "?";
}

void Metrics::set(const std::string& name, double v) {
  for (auto& [k, x] : values)
    if (k == name) {
      x = v;
      return;
    }
  values.emplace_back(name, v);
}
void Metrics::note(const std::string& name, const std::string& why) { notes.emplace_back(name, why); }
std::optional<double> Metrics::get(const std::string& name) const {
  for (const auto& [k, x] : values)
    if (k == name) return x;
  return std::nullopt;
}
const std::string* Metrics::note_of(const std::string& name) const {
  for (const auto& [k, x] : notes)
    if (k == name) return &x;
  return nullptr;
}

namespace {

// --- writing ---
json vec_json(const std::vector<std::array<double, 3>>& v) {
  json a = json::array();
  for (const auto& x : v) a.push_back({x[0], x[1], x[2]});
  return a;
}
json quat_json(const std::vector<std::array<double, 4>>& v) {
  json a = json::array();
  for (const auto& x : v) a.push_back({x[0], x[1], x[2], x[3]});
  return a;
}

json metrics_json(const Metrics& m) {
  json j = json::object();
  for (const auto& [k, v] : m.values) j[k] = v;
  for (const auto& [k, why] : m.notes) {
    if (!j.contains(k)) j[k] = nullptr;
    j[k + "_note"] = why;
  }
  return j;
}

json provenance_json(const Provenance& p) {
  json libs = json::object();
  for (const auto& [k, v] : p.libraries) libs[k] = v;
  json j = {{"mbbench", p.mbbench}, {"git_commit", p.git_commit}, {"compiler", p.compiler}, {"flags", p.flags},
            {"build_type", p.build_type}, {"cpu", p.cpu}, {"date", p.date}, {"libraries", libs}};
  if (!p.experiment_hash.empty()) j["experiment_hash"] = p.experiment_hash;  // a sweep's records only
  return j;
}

json to_json(const CaseRecord& r, bool with_provenance) {
  json j;
  j["schema_version"] = r.schema_version;
  if (r.experiment) {
    const ExperimentRef& e = *r.experiment;
    j["experiment"] = {{"name", e.name},
                       {"file", e.file},
                       {"reproduces", e.reproduces},
                       {"paper", e.paper},
                       {"metrics", e.metrics},
                       {"fit", {{"h1", e.fit_h1}, {"h2", e.fit_h2}, {"h", e.fit_h}}},
                       {"case_id", e.case_id},
                       {"case_index", e.case_index},
                       {"readings_primary", e.readings_primary}};
  }
  j["model"] = {{"spec", r.model.spec}, {"name", r.model.name}, {"source", r.model.source}, {"bodies", r.model.bodies},
                {"joints", r.model.joints}};
  if (r.model.period) j["model"]["period"] = *r.model.period;
  j["method"] = {{"spec", r.method.spec}, {"name", r.method.name}, {"order", r.method.order}};
  j["h_requested"] = r.h_requested;
  j["h"] = r.h;
  j["duration"] = r.duration;
  j["steps"] = r.steps;
  j["steps_done"] = r.steps_done;
  j["status"] = to_string(r.status);
  j["failure"] = r.status == Status::Ok ? json(nullptr) : json{{"reason", r.reason}, {"t", r.fail_time}};
  j["metrics"] = metrics_json(r.metrics);
  j["readings"] = {{"steps", r.readings.steps}, {"ld_periods", r.readings.ld_periods},
                   {"round_to_period", r.readings.round_to_period}, {"fail_threshold", r.readings.fail_threshold}};
  j["stats"] = {{"pos_iterations", r.stats.pos_iterations}, {"vel_iterations", r.stats.vel_iterations},
                {"pos_residual_last", r.stats.pos_residual_last}, {"vel_residual_last", r.stats.vel_residual_last},
                {"internal_steps", r.stats.internal_steps}, {"rejected_steps", r.stats.rejected_steps}};
  // the linear-system statistics only where a method reports them (records of schema 3 before them stay equal)
  if (r.stats.pos_iterations_max) j["stats"]["pos_iterations_max"] = r.stats.pos_iterations_max;
  if (r.stats.nnz_a_max) {
    j["stats"]["nnz_a_max"] = r.stats.nnz_a_max;
    j["stats"]["nnz_l_max"] = r.stats.nnz_l_max;
    j["stats"]["rcond_min"] = r.stats.rcond_min;
  }
  if (r.stats.condition_max) j["stats"]["condition_max"] = r.stats.condition_max;
  if (r.stats.contacts_max) j["stats"]["contacts_max"] = r.stats.contacts_max;
  if (!r.samples.empty()) {
    json s = json::array();
    for (const Sample& x : r.samples) {
      json sj = {{"t", x.t}, {"positions", vec_json(x.positions)}, {"velocities", vec_json(x.velocities)}, {"energy", x.energy}};
      if (!x.orientations.empty()) {
        sj["orientations"] = quat_json(x.orientations);
        sj["angular_velocities"] = vec_json(x.angular_velocities);
      }
      s.push_back(sj);
    }
    j["samples"] = s;
  }
  if (r.ref_error) {
    if (!r.ref_error->note.empty()) {
      j["ref_error"] = {{"note", r.ref_error->note}};
    } else {
      json per = json::array();
      for (const auto& p : r.ref_error->per_sample) per.push_back({{"t", p.t}, {"max_pos_error", p.max_pos_error}});
      j["ref_error"] = {{"per_sample", per}, {"max", r.ref_error->max}};
    }
  }
  if (r.step_series) {
    const StepSeries& ss = *r.step_series;
    j["step_series"] = {{"t", ss.t}, {"pos_iterations", ss.pos_iterations}, {"vel_iterations", ss.vel_iterations},
                        {"condition", ss.condition}, {"rcond", ss.rcond}};
  }
  if (with_provenance) {
    j["provenance"] = provenance_json(r.provenance);
    const CaseTiming& t = r.timing;
    j["provenance"]["timing"] = {{"step_seconds_total", t.step_seconds_total}, {"step_seconds_mean", t.step_seconds_mean},
                                 {"assembly", t.assembly}, {"factorization", t.factorization}, {"solve", t.solve},
                                 {"integration", t.integration}, {"analysis", t.analysis}};
    if (t.contact > 0) j["provenance"]["timing"]["contact"] = t.contact;
  }
  return j;
}

// --- reading: every access names its field; a missing or mistyped one is an InputError ---
class Reader {
 public:
  Reader(const std::string& file, int line) : file_(file), line_(line) {}
  [[noreturn]] void fail(const std::string& field, const std::string& why) const { throw InputError(file_, line_, field, why); }

  const json& at(const json& o, const std::string& key, const std::string& path) const {
    if (!o.is_object()) fail(path, "expected an object");
    auto it = o.find(key);
    if (it == o.end()) fail(join(path, key), "missing field");
    return *it;
  }
  double num(const json& o, const std::string& key, const std::string& path) const {
    const json& v = at(o, key, path);
    if (!v.is_number()) fail(join(path, key), fmt::format("expected a number, got {}", v.type_name()));
    return v.get<double>();
  }
  long integer(const json& o, const std::string& key, const std::string& path) const {
    const json& v = at(o, key, path);
    if (!v.is_number_integer()) fail(join(path, key), fmt::format("expected an integer, got {}", v.dump()));
    return v.get<long>();
  }
  std::string str(const json& o, const std::string& key, const std::string& path) const {
    const json& v = at(o, key, path);
    if (!v.is_string()) fail(join(path, key), fmt::format("expected a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  bool boolean(const json& o, const std::string& key, const std::string& path) const {
    const json& v = at(o, key, path);
    if (!v.is_boolean()) fail(join(path, key), fmt::format("expected true or false, got {}", v.type_name()));
    return v.get<bool>();
  }
  const json& array(const json& o, const std::string& key, const std::string& path) const {
    const json& v = at(o, key, path);
    if (!v.is_array()) fail(join(path, key), fmt::format("expected an array, got {}", v.type_name()));
    return v;
  }
  std::vector<std::string> strings(const json& o, const std::string& key, const std::string& path) const {
    std::vector<std::string> out;
    const json& a = array(o, key, path);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) fail(fmt::format("{}[{}]", join(path, key), i), "expected a string");
      out.push_back(a[i].get<std::string>());
    }
    return out;
  }
  std::vector<double> numbers(const json& o, const std::string& key, const std::string& path) const {
    std::vector<double> out;
    const json& a = array(o, key, path);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_number()) fail(fmt::format("{}[{}]", join(path, key), i), "expected a number");
      out.push_back(a[i].get<double>());
    }
    return out;
  }
  template <size_t N>
  std::vector<std::array<double, N>> vectors(const json& o, const std::string& key, const std::string& path) const {
    std::vector<std::array<double, N>> out;
    const json& a = array(o, key, path);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_array() || a[i].size() != N) fail(fmt::format("{}[{}]", join(path, key), i), fmt::format("expected {} numbers", N));
      std::array<double, N> x{};
      for (size_t c = 0; c < N; ++c) {
        if (!a[i][c].is_number()) fail(fmt::format("{}[{}]", join(path, key), i), "expected numbers");
        x[c] = a[i][c].get<double>();
      }
      out.push_back(x);
    }
    return out;
  }
  static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

 private:
  std::string file_;
  int line_;
};

Status status_from(const Reader& rd, const std::string& s) {
  if (s == "ok") return Status::Ok;
  if (s == "failed") return Status::Failed;
  if (s == "unsupported") return Status::Unsupported;
  rd.fail("status", fmt::format("expected ok, failed or unsupported, got \"{}\"", s));
}

CaseRecord from_json(const json& j, const Reader& rd) {
  CaseRecord r;
  if (!j.is_object()) rd.fail("", "a record is a JSON object");
  r.schema_version = static_cast<int>(rd.integer(j, "schema_version", ""));
  if (r.schema_version != kRecordSchemaVersion)
    rd.fail("schema_version", fmt::format("record schema {} is not this build's {}; rerun the sweep", r.schema_version,
                                          kRecordSchemaVersion));
  if (j.contains("experiment")) {
    const json& e = j["experiment"];
    ExperimentRef x;
    x.name = rd.str(e, "name", "experiment");
    x.file = rd.str(e, "file", "experiment");
    x.reproduces = rd.str(e, "reproduces", "experiment");
    x.paper = rd.str(e, "paper", "experiment");
    x.metrics = rd.strings(e, "metrics", "experiment");
    const json& f = rd.at(e, "fit", "experiment");
    x.fit_h1 = rd.num(f, "h1", "experiment.fit");
    x.fit_h2 = rd.num(f, "h2", "experiment.fit");
    x.fit_h = rd.str(f, "h", "experiment.fit");
    x.case_id = rd.str(e, "case_id", "experiment");
    x.case_index = rd.integer(e, "case_index", "experiment");
    x.readings_primary = rd.boolean(e, "readings_primary", "experiment");
    r.experiment = x;
  }
  const json& m = rd.at(j, "model", "");
  r.model.spec = rd.str(m, "spec", "model");
  r.model.name = rd.str(m, "name", "model");
  r.model.source = rd.str(m, "source", "model");
  r.model.bodies = rd.integer(m, "bodies", "model");
  r.model.joints = rd.integer(m, "joints", "model");
  if (m.contains("period")) r.model.period = rd.num(m, "period", "model");
  const json& me = rd.at(j, "method", "");
  r.method.spec = rd.str(me, "spec", "method");
  r.method.name = rd.str(me, "name", "method");
  r.method.order = rd.num(me, "order", "method");
  r.h_requested = rd.num(j, "h_requested", "");
  r.h = rd.num(j, "h", "");
  r.duration = rd.num(j, "duration", "");
  r.steps = rd.integer(j, "steps", "");
  r.steps_done = rd.integer(j, "steps_done", "");
  r.status = status_from(rd, rd.str(j, "status", ""));
  const json& f = rd.at(j, "failure", "");
  if (r.status == Status::Ok) {
    if (!f.is_null()) rd.fail("failure", "a record with status ok has failure = null");
  } else {
    r.reason = rd.str(f, "reason", "failure");
    r.fail_time = rd.num(f, "t", "failure");
  }
  const json& mt = rd.at(j, "metrics", "");
  if (!mt.is_object()) rd.fail("metrics", "expected an object");
  for (const auto& [k, v] : mt.items()) {
    const bool is_note = k.size() > 5 && k.compare(k.size() - 5, 5, "_note") == 0;
    if (is_note) {
      if (!v.is_string()) rd.fail("metrics." + k, "expected a string");
      r.metrics.note(k.substr(0, k.size() - 5), v.get<std::string>());
    } else if (v.is_number()) {
      r.metrics.set(k, v.get<double>());
    } else if (!v.is_null()) {
      rd.fail("metrics." + k, fmt::format("expected a number or null, got {}", v.type_name()));
    }
  }
  const json& rg = rd.at(j, "readings", "");
  r.readings.steps = rd.str(rg, "steps", "readings");
  r.readings.ld_periods = rd.str(rg, "ld_periods", "readings");
  r.readings.round_to_period = rd.boolean(rg, "round_to_period", "readings");
  r.readings.fail_threshold = rd.num(rg, "fail_threshold", "readings");
  const json& st = rd.at(j, "stats", "");
  r.stats.pos_iterations = rd.integer(st, "pos_iterations", "stats");
  r.stats.vel_iterations = rd.integer(st, "vel_iterations", "stats");
  r.stats.pos_residual_last = rd.num(st, "pos_residual_last", "stats");
  r.stats.vel_residual_last = rd.num(st, "vel_residual_last", "stats");
  r.stats.internal_steps = rd.integer(st, "internal_steps", "stats");
  r.stats.rejected_steps = rd.integer(st, "rejected_steps", "stats");
  if (st.contains("pos_iterations_max")) r.stats.pos_iterations_max = rd.integer(st, "pos_iterations_max", "stats");
  if (st.contains("nnz_a_max")) {
    r.stats.nnz_a_max = rd.integer(st, "nnz_a_max", "stats");
    r.stats.nnz_l_max = rd.integer(st, "nnz_l_max", "stats");
    r.stats.rcond_min = rd.num(st, "rcond_min", "stats");
  }
  if (st.contains("condition_max")) r.stats.condition_max = rd.num(st, "condition_max", "stats");
  if (st.contains("contacts_max")) r.stats.contacts_max = rd.integer(st, "contacts_max", "stats");
  if (j.contains("samples")) {
    const json& ss = rd.array(j, "samples", "");
    for (size_t i = 0; i < ss.size(); ++i) {
      const std::string p = fmt::format("samples[{}]", i);
      Sample s;
      s.t = rd.num(ss[i], "t", p);
      s.positions = rd.vectors<3>(ss[i], "positions", p);
      s.velocities = rd.vectors<3>(ss[i], "velocities", p);
      s.energy = rd.num(ss[i], "energy", p);
      if (ss[i].contains("orientations")) {
        s.orientations = rd.vectors<4>(ss[i], "orientations", p);
        s.angular_velocities = rd.vectors<3>(ss[i], "angular_velocities", p);
      }
      r.samples.push_back(std::move(s));
    }
  }
  if (j.contains("ref_error")) {
    const json& re = j["ref_error"];
    ReferenceError e;
    if (re.is_object() && re.contains("note")) {
      e.note = rd.str(re, "note", "ref_error");
    } else {
      const json& per = rd.array(re, "per_sample", "ref_error");
      for (size_t i = 0; i < per.size(); ++i) {
        const std::string p = fmt::format("ref_error.per_sample[{}]", i);
        e.per_sample.push_back({rd.num(per[i], "t", p), rd.num(per[i], "max_pos_error", p)});
      }
      e.max = rd.num(re, "max", "ref_error");
    }
    r.ref_error = e;
  }
  if (j.contains("step_series")) {
    const json& sj = j["step_series"];
    if (!sj.is_object()) rd.fail("step_series", "expected an object");
    StepSeries ss;
    // counts must be integers (a float such as 1e300 would not convert), the rest any number
    auto numbers = [&](const char* key, auto& out) {
      using T = typename std::decay_t<decltype(out)>::value_type;
      const json& a = rd.array(sj, key, "step_series");
      for (size_t i = 0; i < a.size(); ++i) {
        const bool ok = std::is_integral_v<T> ? a[i].is_number_integer() : a[i].is_number();
        if (!ok) rd.fail(fmt::format("step_series.{}[{}]", key, i), std::is_integral_v<T> ? "expected an integer" : "expected a number");
        out.push_back(a[i].get<T>());
      }
    };
    numbers("t", ss.t);
    numbers("pos_iterations", ss.pos_iterations);
    numbers("vel_iterations", ss.vel_iterations);
    numbers("condition", ss.condition);
    numbers("rcond", ss.rcond);
    const size_t n = ss.t.size();
    if (ss.pos_iterations.size() != n || ss.vel_iterations.size() != n || ss.condition.size() != n || ss.rcond.size() != n)
      rd.fail("step_series", "its arrays differ in length");
    r.step_series = std::move(ss);
  }
  if (j.contains("provenance")) {
    const json& p = j["provenance"];
    r.provenance.mbbench = rd.str(p, "mbbench", "provenance");
    r.provenance.git_commit = rd.str(p, "git_commit", "provenance");
    r.provenance.compiler = rd.str(p, "compiler", "provenance");
    r.provenance.flags = rd.str(p, "flags", "provenance");
    r.provenance.build_type = rd.str(p, "build_type", "provenance");
    r.provenance.cpu = rd.str(p, "cpu", "provenance");
    r.provenance.date = rd.str(p, "date", "provenance");
    const json& libs = rd.at(p, "libraries", "provenance");
    if (!libs.is_object()) rd.fail("provenance.libraries", "expected an object");
    for (const auto& [k, v] : libs.items()) r.provenance.libraries[k] = rd.str(libs, k, "provenance.libraries");
    if (p.contains("experiment_hash")) r.provenance.experiment_hash = rd.str(p, "experiment_hash", "provenance");
    if (p.contains("timing")) {
      const json& t = p["timing"];
      const std::string tp = "provenance.timing";
      r.timing = {rd.num(t, "step_seconds_total", tp), rd.num(t, "step_seconds_mean", tp), rd.num(t, "assembly", tp),
                  rd.num(t, "factorization", tp), rd.num(t, "solve", tp), rd.num(t, "integration", tp)};
      if (t.contains("analysis")) r.timing.analysis = rd.num(t, "analysis", tp);
      if (t.contains("contact")) r.timing.contact = rd.num(t, "contact", tp);
    }
  }
  return r;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
std::string csv_num(double x) { return json(x).dump(); }

json gate_json(const GateRecord& g) {
  json j;
  j["schema_version"] = g.schema_version;
  j["kind"] = "mbbench gate";
  j["config"] = {{"models", g.models}, {"h", g.h}, {"duration", g.duration}, {"timing_joints", g.timing_joints},
                 {"timing_reps", g.timing_reps}, {"timing_rep_seconds", g.timing_rep_seconds},
                 {"timing_window_steps", g.timing_window_steps}, {"timing_reference", g.timing_reference}, {"metrics", g.metrics}};
  j["methods"] = g.methods;
  json cases = json::array();
  for (const auto& c : g.cases) {
    json m = json::object();
    for (const auto& [k, v] : c.metrics.values) m[k] = v;
    cases.push_back({{"method", c.method}, {"model", c.model}, {"h", c.h}, {"h_simulated", c.h_simulated},
                     {"status", to_string(c.status)}, {"failure", c.status == Status::Ok ? json(nullptr) : json(c.failure)},
                     {"metrics", m}});
  }
  j["cases"] = cases;
  json un = json::array();
  for (const auto& u : g.unsupported) un.push_back({{"method", u.method}, {"model", u.model}, {"reason", u.reason}});
  j["unsupported"] = un;
  json tm = json::array();
  for (const auto& t : g.timing) {
    json x = {{"method", t.method}, {"joints", t.joints}, {"reps", t.reps}, {"status", to_string(t.status)}};
    if (t.status != Status::Ok) {
      x["failure"] = t.failure;
    } else {
      x["median_s"] = t.median_s;
      x["min_s"] = t.min_s;
      x["max_s"] = t.max_s;
      if (t.ratio) {
        x["ratio"] = *t.ratio;
        x["ratio_min"] = *t.ratio_min;
        x["ratio_max"] = *t.ratio_max;
      }
    }
    tm.push_back(x);
  }
  j["timing"] = tm;
  j["provenance"] = provenance_json(g.provenance);
  j["provenance"]["gate_seconds"] = {{"accuracy", g.accuracy_seconds}, {"timing", g.timing_seconds}};
  return j;
}

}  // namespace

std::string gate_record_to_json(const GateRecord& g) { return gate_json(g).dump(1) + "\n"; }

GateRecord gate_record_from_json(const std::string& text, const std::string& file) {
  Reader rd(file, 0);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    rd.fail("", fmt::format("not JSON: {}", e.what()));
  }
  GateRecord g;
  g.schema_version = static_cast<int>(rd.integer(j, "schema_version", ""));
  if (g.schema_version != GateRecord{}.schema_version)
    rd.fail("schema_version", fmt::format("gate baseline schema {} is not this build's {}; make a new one with mbbench gate --update",
                                          g.schema_version, GateRecord{}.schema_version));
  const json& c = rd.at(j, "config", "");
  g.models = rd.strings(c, "models", "config");
  g.h = rd.numbers(c, "h", "config");
  g.duration = rd.num(c, "duration", "config");
  for (double x : rd.numbers(c, "timing_joints", "config")) {
    if (x != std::floor(x) || x < 1 || x > 1e9) rd.fail("config.timing_joints", fmt::format("expected tree sizes, got {}", x));
    g.timing_joints.push_back(static_cast<int>(x));
  }
  g.timing_reps = static_cast<int>(rd.integer(c, "timing_reps", "config"));
  g.timing_rep_seconds = rd.num(c, "timing_rep_seconds", "config");
  g.timing_window_steps = static_cast<int>(rd.integer(c, "timing_window_steps", "config"));
  g.timing_reference = rd.str(c, "timing_reference", "config");
  g.metrics = rd.strings(c, "metrics", "config");
  g.methods = rd.strings(j, "methods", "");
  const json& cs = rd.array(j, "cases", "");
  for (size_t i = 0; i < cs.size(); ++i) {
    const std::string p = fmt::format("cases[{}]", i);
    GateCase x;
    x.method = rd.str(cs[i], "method", p);
    x.model = rd.str(cs[i], "model", p);
    x.h = rd.num(cs[i], "h", p);
    x.h_simulated = rd.num(cs[i], "h_simulated", p);
    x.status = status_from(rd, rd.str(cs[i], "status", p));
    if (x.status != Status::Ok) x.failure = rd.str(cs[i], "failure", p);
    const json& m = rd.at(cs[i], "metrics", p);
    for (const auto& [k, v] : m.items()) {
      if (v.is_null()) continue;  // not a number when written (a failed case's drift): absent, as in records
      if (!v.is_number()) rd.fail(p + ".metrics." + k, "expected a number or null");
      x.metrics.set(k, v.get<double>());
    }
    g.cases.push_back(std::move(x));
  }
  const json& un = rd.array(j, "unsupported", "");
  for (size_t i = 0; i < un.size(); ++i) {
    const std::string p = fmt::format("unsupported[{}]", i);
    g.unsupported.push_back({rd.str(un[i], "method", p), rd.str(un[i], "model", p), rd.str(un[i], "reason", p)});
  }
  const json& tm = rd.array(j, "timing", "");
  for (size_t i = 0; i < tm.size(); ++i) {
    const std::string p = fmt::format("timing[{}]", i);
    GateTiming t;
    t.method = rd.str(tm[i], "method", p);
    const long joints = rd.integer(tm[i], "joints", p);
    if (joints < 1 || joints > 1000000000L) rd.fail(p + ".joints", fmt::format("expected a tree size, got {}", joints));
    t.joints = static_cast<int>(joints);
    t.reps = rd.integer(tm[i], "reps", p);
    t.status = status_from(rd, rd.str(tm[i], "status", p));
    if (t.status != Status::Ok) {
      t.failure = rd.str(tm[i], "failure", p);
    } else {
      t.median_s = rd.num(tm[i], "median_s", p);
      t.min_s = rd.num(tm[i], "min_s", p);
      t.max_s = rd.num(tm[i], "max_s", p);
      if (tm[i].contains("ratio")) {
        t.ratio = rd.num(tm[i], "ratio", p);
        t.ratio_min = rd.num(tm[i], "ratio_min", p);
        t.ratio_max = rd.num(tm[i], "ratio_max", p);
      }
    }
    g.timing.push_back(std::move(t));
  }
  return g;
}

std::string record_to_json_line(const CaseRecord& r) { return to_json(r, true).dump(); }
std::string record_to_json_pretty(const CaseRecord& r) { return to_json(r, true).dump(1); }
std::string accuracy_fields(const CaseRecord& r) { return to_json(r, false).dump(); }

CaseRecord record_from_json_line(const std::string& text, const std::string& file, int line) {
  Reader rd(file, line);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    rd.fail("", fmt::format("not a JSON record: {}", e.what()));
  }
  return from_json(j, rd);
}

std::string records_csv_header(const std::vector<std::string>& metrics) {
  std::string s = "experiment,case_id,model,method,h_requested,h,duration,steps,steps_done,readings_steps,readings_ld_periods,"
                  "status,failure_reason,failure_t";
  for (const auto& m : metrics) {
    s += ',';
    s += csv_cell(m);  // two appends: GCC 12 -O3 warns (falsely, -Wrestrict) on "," + x
  }
  return s + "\n";
}

std::string record_csv_row(const CaseRecord& r, const std::vector<std::string>& metrics) {
  std::vector<std::string> c = {r.experiment ? r.experiment->name : "",
                                r.experiment ? r.experiment->case_id : "",
                                r.model.spec,
                                r.method.spec,
                                csv_num(r.h_requested),
                                csv_num(r.h),
                                csv_num(r.duration),
                                std::to_string(r.steps),
                                std::to_string(r.steps_done),
                                r.readings.steps,
                                r.readings.ld_periods,
                                to_string(r.status),
                                r.ok() ? "" : r.reason,
                                r.ok() ? "" : csv_num(r.fail_time)};
  for (const auto& m : metrics) {
    auto v = r.metrics.get(m);
    c.push_back(v ? csv_num(*v) : "");
  }
  std::string s;
  for (size_t i = 0; i < c.size(); ++i) {
    if (i) s += ',';
    s += csv_cell(c[i]);
  }
  return s + "\n";
}

}  // namespace mb
