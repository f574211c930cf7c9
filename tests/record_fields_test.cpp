// The field lists of the record structs (records/fields.hpp, records/stats.hpp):
// - every member of StepStats, StatsSummary and CaseTiming is in a field list (a member added
//   without its line fails here);
// - a record and a gate record with every listed field set to a value of its own come back from
//   their JSON equal, field by field;
// - the merge rules: sums, extremes, the last value and the smallest positive one.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "records/record.hpp"

namespace {

template <class T>
constexpr bool is_opt = false;
template <class T>
constexpr bool is_opt<std::optional<T>> = true;

// Sets every listed field of s (and of the structs in it) to a value no other field has.
struct Filler {
  int k = 0;
  template <class T>
  void fill(T& x) {
    ++k;
    if constexpr (mb::is_described_v<T>) {
      T::fields([&](const auto& f) { fill(x.*f.member); });
    } else if constexpr (is_opt<T>) {
      x.emplace();
      fill(*x);
    } else if constexpr (std::is_same_v<T, bool>) {
      x = !x;  // not the default
    } else if constexpr (std::is_arithmetic_v<T>) {
      x = static_cast<T>(k) + static_cast<T>(std::is_floating_point_v<T> ? 0.25 : 0);
    } else if constexpr (std::is_same_v<T, std::string>) {
      x = fmt::format("s{}", k);
    } else {
      x = {typename T::value_type(), typename T::value_type()};
      for (auto& e : x) fill(e);
    }
  }
};

// Every listed field of a and b equal; `path` names the field in the failure message.
struct Comparer {
  long checked = 0;
  template <class T>
  void compare(const T& a, const T& b, const std::string& path) {
    if constexpr (mb::is_described_v<T>) {
      T::fields([&](const auto& f) { compare(a.*f.member, b.*f.member, path.empty() ? f.key : path + "." + f.key); });
    } else if constexpr (is_opt<T>) {
      INFO(path);
      REQUIRE(a.has_value() == b.has_value());
      if (a) compare(*a, *b, path);
    } else {
      INFO(path);
      CHECK(a == b);
      ++checked;
    }
  }
};

template <class S>
size_t listed_bytes() {
  size_t n = 0;
  S::fields([&](const auto& f) { n += sizeof(std::remove_reference_t<decltype(S{}.*f.member)>); });
  return n;
}

// The keys of every listed field, with their paths ("stats.nnz_l_max").
template <class S>
void keys(std::set<std::string>& out, const std::string& path) {
  S::fields([&](const auto& f) {
    using T = std::remove_reference_t<decltype(S{}.*f.member)>;
    const std::string key = path.empty() ? f.key : path + "." + f.key;
    if constexpr (mb::is_described_v<T>) keys<T>(out, key);
    else if constexpr (is_opt<T>) {
      if constexpr (mb::is_described_v<typename T::value_type>) keys<typename T::value_type>(out, key);
      else out.insert(key);
    } else {
      out.insert(key);
    }
  });
}

bool has_path(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* o = &j;
  size_t start = 0;
  for (size_t dot = path.find('.');; dot = path.find('.', start)) {
    const std::string k = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!o->is_object() || !o->contains(k)) return false;
    o = &(*o)[k];
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

TEST_CASE("record fields: every member of the step statistics and their summaries is listed", "[records]") {
  // all members are 8-byte longs and doubles: no padding, so the sizes add up
  CHECK(listed_bytes<mb::StatsSummary>() == sizeof(mb::StatsSummary));
  CHECK(listed_bytes<mb::CaseTiming>() == sizeof(mb::CaseTiming));
  // every member of StepStats feeds a summary field
  mb::StepStats one;
  std::set<const char*> fed;
  auto collect = [&](const auto& f) {
    if (f.step) fed.insert(reinterpret_cast<const char*>(&(one.*f.step)));
  };
  mb::StatsSummary::fields(collect);
  mb::CaseTiming::fields(collect);
  CHECK(fed.size() * 8 == sizeof(mb::StepStats));
}

TEST_CASE("record fields: a record with every field set comes back from JSON equal", "[records]") {
  mb::CaseRecord r;
  Filler fill;
  fill.fill(r);
  fill.fill(r.provenance);
  fill.fill(r.timing);
  r.provenance.libraries = {{"eigen", "3.4.0"}};
  r.status = mb::Status::Failed;
  r.reason = "a reason";
  r.fail_time = 0.5;
  r.metrics.set("ED", 1.5);
  r.metrics.note("LD", "a note");
  const std::string line = mb::record_to_json_line(r);
  const mb::CaseRecord back = mb::record_from_json_line(line, "mem", 1);
  Comparer cmp;
  cmp.compare(r, back, "");
  cmp.compare(r.provenance, back.provenance, "provenance");
  cmp.compare(r.timing, back.timing, "provenance.timing");
  CHECK(cmp.checked >= 50);
  CHECK(mb::record_to_json_line(back) == line);
  // every listed key is in the file
  std::set<std::string> ks;
  keys<mb::CaseRecord>(ks, "");
  keys<mb::Provenance>(ks, "provenance");
  keys<mb::CaseTiming>(ks, "provenance.timing");
  const auto j = nlohmann::json::parse(line);
  for (const auto& k : ks) {
    INFO(k);
    CHECK(has_path(j, k));
  }
}

TEST_CASE("record fields: a gate record with every field set comes back from JSON equal", "[records][gate]") {
  mb::GateRecord g;
  Filler fill;
  fill.fill(g);
  g.timing_joints = {4, 8};
  g.cases.resize(1);
  fill.fill(g.cases[0]);
  g.cases[0].metrics.set("ED", 2.5);
  g.unsupported.resize(1);
  fill.fill(g.unsupported[0]);
  g.timing.resize(1);
  fill.fill(g.timing[0]);
  g.timing[0].joints = 4;
  g.timing[0].median_s = 1e-3;
  const std::string text = mb::gate_record_to_json(g);
  const mb::GateRecord back = mb::gate_record_from_json(text, "mem");
  Comparer cmp;
  cmp.compare(g, back, "");
  cmp.compare(g.cases[0], back.cases[0], "cases[0]");
  cmp.compare(g.unsupported[0], back.unsupported[0], "unsupported[0]");
  cmp.compare(g.timing[0], back.timing[0], "timing[0]");
  CHECK(cmp.checked >= 20);
  CHECK(back.timing_joints == g.timing_joints);
  CHECK(back.cases[0].metrics.get("ED") == 2.5);
}

TEST_CASE("record fields: summaries add steps and merge by their rules", "[records]") {
  mb::StepStats a, b;
  a.pos_iterations = 3;
  a.nnz_a = 10;
  a.rcond = 0.5;
  a.pos_residual = 1e-3;
  a.t_solve = 1;
  b.pos_iterations = 5;
  b.nnz_a = 7;
  b.rcond = 0;  // not computed: the smallest positive stays
  b.pos_residual = 2e-3;
  b.t_solve = 2;
  mb::StatsSummary s;
  mb::CaseTiming t;
  for (const auto* x : {&a, &b}) {
    mb::add_step(s, *x);
    mb::add_step(t, *x);
  }
  CHECK(s.pos_iterations == 8);
  CHECK(s.pos_iterations_max == 5);
  CHECK(s.nnz_a_max == 10);
  CHECK(s.rcond_min == 0.5);
  CHECK(s.pos_residual_last == 2e-3);
  CHECK(t.solve == 3);
  mb::StatsSummary more;
  more.pos_iterations = 1;
  more.rcond_min = 0.25;
  more.nnz_a_max = 12;
  more.pos_residual_last = 5e-3;
  mb::merge(s, more);
  CHECK(s.pos_iterations == 9);
  CHECK(s.rcond_min == 0.25);
  CHECK(s.nnz_a_max == 12);
  CHECK(s.pos_residual_last == 5e-3);
}
