// The outcomes of a report (analysis/outcome.hpp): the verdicts of the comparisons, decided here.
#include "analysis/outcome.hpp"

#include <fmt/format.h>

namespace mb {

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::Reproduced: return "reproduced";
    case Outcome::Differs: return "differs";
    case Outcome::Finding: return "finding";
    case Outcome::NotMeasured: return "not measured";
  }
  return "?";
}

namespace {

// the citation key a `reproduces` text starts with ("schmitt2003 s.3 (...)" -> "schmitt2003")
std::string cited_paper(const std::string& reproduces) {
  const size_t end = reproduces.find_first_of(" ,;(");
  return reproduces.substr(0, end);
}

OutcomeRow row_outcome(const ReportData& d, const ComparedRow& r) {
  OutcomeRow o;
  o.paper = d.paper ? d.paper->citation : "";
  o.group = fmt::format("{}, {}", r.table->paper_model, r.table->function);
  o.claim = r.method;
  o.row = &r;
  for (const Finding& f : d.findings)
    if (f.row == &r) o.finding = &f;
  const Comparison& c = r.comparison;
  if (!r.ours) {
    o.outcome = Outcome::NotMeasured;
    o.why = "not run in these records";
  } else if (c.verdict == Verdict::Reproduced) {
    o.outcome = Outcome::Reproduced;
  } else if (c.verdict == Verdict::Differs) {
    o.outcome = o.finding && o.finding->reproduced > 0 ? Outcome::Finding : Outcome::Differs;
    if (!r.settings_differ.empty()) o.why = "settings differ: " + r.settings_differ;
  } else {
    o.outcome = Outcome::NotMeasured;
    o.why = c.verdict == Verdict::NoFit ? c.note : to_string(c.verdict);
  }
  return o;
}

}  // namespace

std::vector<OutcomeRow> outcomes(const ReportData& d, const std::vector<const TimingData*>& timing) {
  std::vector<OutcomeRow> out;
  // the paper's tables: only the rows it publishes (our extra methods have nothing to reproduce)
  if (d.paper)
    for (const PaperTable& t : d.paper->tables)
      for (const ComparedRow& r : d.rows)
        if (r.table == &t && r.paper) out.push_back(row_outcome(d, r));
  // the paper's whole runs
  for (const RunComparison& c : d.runs) {
    OutcomeRow o;
    o.paper = d.paper ? d.paper->citation : "";
    o.group = "whole runs";
    o.claim = fmt::format("{} {}, h = {:g} s, {:g} s", c.paper.model, c.paper.paper_method, c.paper.h, c.paper.duration);
    o.run = &c;
    switch (c.verdict) {
      case RunComparison::Verdict::Within: o.outcome = Outcome::Reproduced; break;
      case RunComparison::Verdict::Exceeds: o.outcome = Outcome::Differs; break;
      case RunComparison::Verdict::Failed:
        o.outcome = Outcome::Differs;
        o.why = "failed: " + c.note;
        break;
      case RunComparison::Verdict::NoBound:
        o.outcome = Outcome::NotMeasured;
        o.why = "the paper prints no bound";
        break;
      case RunComparison::Verdict::NotRun:
        o.outcome = Outcome::NotMeasured;
        o.why = "not run in these records";
        break;
    }
    out.push_back(std::move(o));
  }
  // the benchmark bicycle: ref's own linearization and its speeds, then each method's eig_err
  if (d.modes) {
    const ModesAnalysis& m = *d.modes;
    auto row = [&](std::string group, std::string claim, bool within, int which) {
      OutcomeRow o;
      o.paper = d.paper ? d.paper->citation : "";
      o.group = std::move(group);
      o.claim = std::move(claim);
      o.outcome = within ? Outcome::Reproduced : Outcome::Differs;
      o.modes = &m;
      o.modes_method = which;
      out.push_back(std::move(o));
    };
    row("linearization", fmt::format("ref's eigenvalues at {} speeds", m.v.size()), m.ref_within, -1);
    row("linearization", "ref's weave and capsize speeds", m.speeds_within, -2);
    for (size_t k = 0; k < m.methods.size(); ++k)
      row("eigenvalues from the motion", m.methods[k].method, m.methods[k].within, static_cast<int>(k));
  }
  // the timing analyses' published statements
  for (size_t k = 0; k < timing.size(); ++k)
    for (const ClaimCheck& c : timing[k]->claims) {
      const TimingData* td = timing[k];
      OutcomeRow o;
      o.paper = td->paper ? td->paper->citation : "";
      o.group = "statements";
      o.claim = c.claim.quote;
      o.claim_check = &c;
      o.timing = static_cast<int>(k);
      switch (c.verdict) {
        case ClaimCheck::Verdict::Agrees: o.outcome = Outcome::Reproduced; break;
        case ClaimCheck::Verdict::Contradicts: o.outcome = Outcome::Differs; break;
        case ClaimCheck::Verdict::NotMeasured:
          o.outcome = Outcome::NotMeasured;
          o.why = c.note;
          break;
      }
      out.push_back(std::move(o));
    }
  // experiments that reproduce a paper without published values here: said so, once each
  for (const auto& e : d.provenance.experiments) {
    const std::string cited = cited_paper(e.reproduces);
    if (cited.empty() || (d.paper && d.paper->citation == cited)) continue;
    OutcomeRow o;
    o.paper = cited;
    o.group = "experiment " + e.name;
    o.claim = e.reproduces;
    o.outcome = Outcome::NotMeasured;
    o.why = "no published values (results/paper has none for " + cited + ")";
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace mb
