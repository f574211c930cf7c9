// The file boundary of records: the one place a record is written to or read from a file. The plain
// fields are written and read from each struct's field list (records/fields.hpp); the fields with
// a shape of their own (status, failure, metrics, samples, ...) are spelled here, as are the CSV
// columns. Reading checks every field's presence and type and names the file, the line and the
// field.
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

template <class T>
constexpr bool is_optional = false;
template <class T>
constexpr bool is_optional<std::optional<T>> = true;

// The value at key path "a.b" of j (j["a"]["b"]), made on the way.
json& slot(json& j, std::string_view key) {
  json* o = &j;
  for (size_t dot; (dot = key.find('.')) != std::string_view::npos; key.remove_prefix(dot + 1))
    o = &(*o)[std::string(key.substr(0, dot))];
  return (*o)[std::string(key)];
}

template <class S>
void write_fields(json& j, const S& s);

template <class T>
json value_json(const T& x) {
  if constexpr (is_described_v<T>) {
    json j = json::object();
    write_fields(j, x);
    return j;
  } else if constexpr (is_optional<T>) {
    return value_json(*x);
  } else {
    return json(x);
  }
}

// Every field of s's list that goes into a file, into the object j.
template <class S>
void write_fields(json& j, const S& s) {
  S::fields([&](const auto& f) {
    const auto& x = s.*f.member;
    if constexpr (is_optional<std::decay_t<decltype(x)>>) {
      if (!x) return;
    }
    if (is_written(s, f)) slot(j, f.key) = value_json(x);
  });
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
  json j = {{"libraries", libs}};
  write_fields(j, p);
  return j;
}

json to_json(const CaseRecord& r, bool with_provenance) {
  json j;
  j["schema_version"] = r.schema_version;
  write_fields(j, r);
  j["status"] = to_string(r.status);
  j["failure"] = r.status == Status::Ok ? json(nullptr) : json{{"reason", r.reason}, {"t", r.fail_time}};
  j["metrics"] = metrics_json(r.metrics);
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
    j["provenance"]["timing"] = value_json(r.timing);
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

  // The value of o's `key` as a T (a struct with a field list: from its object).
  template <class T>
  T value(const json& o, const std::string& key, const std::string& path) const {
    if constexpr (is_described_v<T>) {
      T x;
      fields(at(o, key, path), x, join(path, key));
      return x;
    } else if constexpr (is_optional<T>) {
      return value<typename T::value_type>(o, key, path);
    } else if constexpr (std::is_same_v<T, double>) {
      return num(o, key, path);
    } else if constexpr (std::is_same_v<T, bool>) {
      return boolean(o, key, path);
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(integer(o, key, path));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return str(o, key, path);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      return strings(o, key, path);
    } else {
      static_assert(std::is_same_v<T, std::vector<double>>, "a field type the reader does not know");
      return numbers(o, key, path);
    }
  }

  // Every field of s's list from the object o (at `path`): a required one must be there, the
  // others are read when present.
  template <class S>
  void fields(const json& o, S& s, const std::string& path) const {
    S::fields([&](const auto& f) {
      const json* obj = &o;
      std::string p = path;
      std::string_view key = f.key;
      for (size_t dot; (dot = key.find('.')) != std::string_view::npos; key.remove_prefix(dot + 1)) {
        const std::string k(key.substr(0, dot));
        obj = &at(*obj, k, p);
        p = join(p, k);
      }
      const std::string k(key);
      const bool required = f.presence == Presence::Required || (f.with && obj->is_object() && obj->contains(f.with));
      if (!required && !(obj->is_object() && obj->contains(k))) return;
      s.*f.member = value<std::decay_t<decltype(s.*f.member)>>(*obj, k, p);
    });
  }

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
  rd.fields(j, r, "");
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
    rd.fields(p, r.provenance, "provenance");
    const json& libs = rd.at(p, "libraries", "provenance");
    if (!libs.is_object()) rd.fail("provenance.libraries", "expected an object");
    for (const auto& [k, v] : libs.items()) r.provenance.libraries[k] = rd.str(libs, k, "provenance.libraries");
    if (p.contains("timing")) r.timing = rd.value<CaseTiming>(p, "timing", "provenance");
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

json gate_timing_json(const std::vector<GateTiming>& timing) {
  json tm = json::array();
  for (const auto& t : timing) {
    json x = value_json(t);
    x["joints"] = t.joints;
    x["status"] = to_string(t.status);
    if (t.status != Status::Ok) {
      x["failure"] = t.failure;
    } else if (t.reps > 0) {
      x["median_s"] = t.median_s;
      x["min_s"] = t.min_s;
      x["max_s"] = t.max_s;
    }
    tm.push_back(x);
  }
  return tm;
}

json gate_json(const GateRecord& g) {
  json j;
  j["schema_version"] = g.schema_version;
  j["kind"] = "mbbench gate";
  write_fields(j, g);
  j["config"]["timing_joints"] = g.timing_joints;
  json cases = json::array();
  for (const auto& c : g.cases) {
    json m = json::object();
    for (const auto& [k, v] : c.metrics.values) m[k] = v;
    json x = value_json(c);
    x["status"] = to_string(c.status);
    x["failure"] = c.status == Status::Ok ? json(nullptr) : json(c.failure);
    x["metrics"] = m;
    cases.push_back(x);
  }
  j["cases"] = cases;
  json un = json::array();
  for (const auto& u : g.unsupported) un.push_back(value_json(u));
  j["unsupported"] = un;
  j["timing"] = gate_timing_json(g.timing);
  if (!g.machines.empty()) {
    json ms = json::array();
    for (const auto& m : g.machines) ms.push_back({{"key", m.key}, {"commit", m.commit}, {"date", m.date}, {"timing", gate_timing_json(m.timing)}});
    j["machines"] = ms;
  }
  j["provenance"] = provenance_json(g.provenance);
  j["provenance"]["gate_seconds"] = {{"accuracy", g.accuracy_seconds}, {"timing", g.timing_seconds}};
  return j;
}

}  // namespace

namespace {
std::vector<GateTiming> gate_timing_from(Reader& rd, const json& tm, const std::string& path) {
  std::vector<GateTiming> out;
  for (size_t i = 0; i < tm.size(); ++i) {
    const std::string p = fmt::format("{}[{}]", path, i);
    GateTiming t;
    rd.fields(tm[i], t, p);
    const long joints = rd.integer(tm[i], "joints", p);
    if (joints < 1 || joints > 1000000000L) rd.fail(p + ".joints", fmt::format("expected a tree size, got {}", joints));
    t.joints = static_cast<int>(joints);
    t.status = status_from(rd, rd.str(tm[i], "status", p));
    if (t.status != Status::Ok) {
      t.failure = rd.str(tm[i], "failure", p);
    } else if (t.reps > 0) {
      t.median_s = rd.num(tm[i], "median_s", p);
      t.min_s = rd.num(tm[i], "min_s", p);
      t.max_s = rd.num(tm[i], "max_s", p);
    }
    out.push_back(std::move(t));
  }
  return out;
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
  rd.fields(j, g, "");
  const json& c = rd.at(j, "config", "");
  for (double x : rd.numbers(c, "timing_joints", "config")) {
    if (x != std::floor(x) || x < 1 || x > 1e9) rd.fail("config.timing_joints", fmt::format("expected tree sizes, got {}", x));
    g.timing_joints.push_back(static_cast<int>(x));
  }
  const json& cs = rd.array(j, "cases", "");
  for (size_t i = 0; i < cs.size(); ++i) {
    const std::string p = fmt::format("cases[{}]", i);
    GateCase x;
    rd.fields(cs[i], x, p);
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
    GateUnsupported u;
    rd.fields(un[i], u, p);
    g.unsupported.push_back(std::move(u));
  }
  g.timing = gate_timing_from(rd, rd.array(j, "timing", ""), "timing");
  if (j.contains("provenance")) {
    const json& p = j["provenance"];
    rd.fields(p, g.provenance, "provenance");
    if (p.contains("libraries")) {
      const json& libs = p["libraries"];
      if (!libs.is_object()) rd.fail("provenance.libraries", "expected an object");
      for (const auto& [k, v] : libs.items()) g.provenance.libraries[k] = rd.str(libs, k, "provenance.libraries");
    }
    if (p.contains("gate_seconds")) {
      g.accuracy_seconds = rd.num(p["gate_seconds"], "accuracy", "provenance.gate_seconds");
      g.timing_seconds = rd.num(p["gate_seconds"], "timing", "provenance.gate_seconds");
    }
  }
  if (j.contains("machines")) {
    const json& ms = rd.array(j, "machines", "");
    for (size_t i = 0; i < ms.size(); ++i) {
      const std::string p = fmt::format("machines[{}]", i);
      GateMachine m;
      m.key = rd.str(ms[i], "key", p);
      m.commit = rd.str(ms[i], "commit", p);
      m.date = rd.str(ms[i], "date", p);
      m.timing = gate_timing_from(rd, rd.array(ms[i], "timing", p), p + ".timing");
      for (const auto& other : g.machines)
        if (other.key == m.key) rd.fail(p + ".key", fmt::format("the machine '{}' has two entries", m.key));
      g.machines.push_back(std::move(m));
    }
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

namespace {
// The CSV columns before the metrics: header and cell.
struct CsvColumn {
  const char* name;
  std::string (*cell)(const CaseRecord&);
};
const CsvColumn kCsvColumns[] = {
    {"experiment", [](const CaseRecord& r) { return r.experiment ? r.experiment->name : std::string(); }},
    {"case_id", [](const CaseRecord& r) { return r.experiment ? r.experiment->case_id : std::string(); }},
    {"model", [](const CaseRecord& r) { return r.model.spec; }},
    {"method", [](const CaseRecord& r) { return r.method.spec; }},
    {"h_requested", [](const CaseRecord& r) { return csv_num(r.h_requested); }},
    {"h", [](const CaseRecord& r) { return csv_num(r.h); }},
    {"duration", [](const CaseRecord& r) { return csv_num(r.duration); }},
    {"steps", [](const CaseRecord& r) { return std::to_string(r.steps); }},
    {"steps_done", [](const CaseRecord& r) { return std::to_string(r.steps_done); }},
    {"readings_steps", [](const CaseRecord& r) { return r.readings.steps; }},
    {"readings_ld_periods", [](const CaseRecord& r) { return r.readings.ld_periods; }},
    {"status", [](const CaseRecord& r) { return std::string(to_string(r.status)); }},
    {"failure_reason", [](const CaseRecord& r) { return r.ok() ? std::string() : r.reason; }},
    {"failure_t", [](const CaseRecord& r) { return r.ok() ? std::string() : csv_num(r.fail_time); }},
};
}  // namespace

std::string records_csv_header(const std::vector<std::string>& metrics) {
  std::string s;
  for (const CsvColumn& c : kCsvColumns) {
    if (!s.empty()) s += ',';
    s += c.name;
  }
  for (const auto& m : metrics) {
    s += ',';
    s += csv_cell(m);  // two appends: GCC 12 -O3 warns (falsely, -Wrestrict) on "," + x
  }
  return s + "\n";
}

std::string record_csv_row(const CaseRecord& r, const std::vector<std::string>& metrics) {
  std::vector<std::string> c;
  for (const CsvColumn& col : kCsvColumns) c.push_back(col.cell(r));
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
