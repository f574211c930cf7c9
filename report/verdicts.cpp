// The verdict table a report opens with: the analysis' outcomes (analysis/outcome.hpp) as rows of
// paper, claim or row, verdict, ours and the paper's. Formatting only: the verdicts are the
// analysis'. Every row that differs, is a finding or was not measured stands on its own line,
// so the table names each; the reproduced rows of one published table (or kind) share one line,
// so the table stays one screen tall.
#include <algorithm>

#include <fmt/format.h>

#include "report/report.hpp"

namespace mb {

namespace {

// a statement's text cut at a word near `n` characters (the whole text is in its own table)
std::string shortened(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = s.rfind(' ', n);
  if (cut == std::string::npos || cut < n / 2) cut = n;
  return s.substr(0, cut) + " ...";
}

std::string style_of(Outcome o) {
  switch (o) {
    case Outcome::Reproduced: return "ok";
    case Outcome::Differs: return "bad";
    case Outcome::Finding: return "finding";
    case Outcome::NotMeasured: return "na";
  }
  return "";
}

std::string fit_text(double order, double factor) { return fmt::format("order {:.2f}, factor {:.4g}", order, factor); }

// the id of the part of the page that holds the row's detail
std::string anchor(const OutcomeRow& o, const std::vector<std::string>& claims_anchor) {
  if (o.outcome == Outcome::Finding) return "findings";
  if (o.row) return fmt::format("paper-{}-{}", o.row->table->model, o.row->table->metric);
  if (o.run) return "paper-runs";
  if (o.modes) return "meijaard2007";
  if (o.claim_check)
    return o.timing >= 0 && static_cast<size_t>(o.timing) < claims_anchor.size() ? claims_anchor[static_cast<size_t>(o.timing)]
                                                                                  : "timing-claims";
  return "provenance";
}

// ours and the paper's for one row on its own line
std::pair<Cell, Cell> values(const OutcomeRow& o) {
  std::string ours, paper;
  if (o.row && o.row->paper) {
    paper = fit_text(o.row->paper->order, o.row->paper->factor);
    if (o.row->comparison.ours) ours = fit_text(o.row->comparison.ours->order, o.row->comparison.ours->factor);
    if (o.outcome == Outcome::Finding && o.finding)
      ours += fmt::format("; {} of {} readings reproduce it", o.finding->reproduced, o.finding->tried);
  } else if (o.run) {
    const PaperRun& p = o.run->paper;
    paper = p.error_max ? fmt::format("{} < {}", p.metric, sig3(*p.error_max)) : p.error ? fmt::format("{} = {}", p.metric, sig3(*p.error)) : "no value";
    if (o.run->error) ours = fmt::format("{} = {}", p.metric, sig3(*o.run->error));
  } else if (o.modes) {
    const ModesAnalysis& m = *o.modes;
    if (o.modes_method == -1) {
      ours = fmt::format("largest difference {}", sig3(m.ref_err_max));
      paper = fmt::format("the published matrices' eigenvalues (within {})", sig3(kModesRefTolerance));
    } else if (o.modes_method == -2) {
      ours = fmt::format("v_w = {:.12g}, v_c = {:.12g} m/s", m.weave_ref, m.capsize_ref);
      paper = fmt::format("v_w = {:.12g}, v_c = {:.12g} m/s", m.weave_printed, m.capsize_printed);
    } else {
      const ModesMethod& x = m.methods[static_cast<size_t>(o.modes_method)];
      ours = fmt::format("eig_err = {} at v = {:g} m/s, h = {:g} s", sig3(x.worst), x.worst_v, x.h);
      paper = fmt::format("the published eigenvalues (eig_err within {} at every judged speed)", sig3(kModesFitTolerance));
    }
  } else if (o.claim_check) {
    paper = o.claim_check->rule;
    for (const auto& v : o.claim_check->values)
      ours += fmt::format("{}{} joints: {}", ours.empty() ? "" : "; ", v.joints, sig3(v.value));
  }
  if (!o.why.empty()) ours += (ours.empty() ? "" : "; ") + o.why;
  return {ours.empty() ? Cell("n/a", "na") : Cell(shortened(ours, 110)), paper.empty() ? Cell("n/a", "na") : Cell(shortened(paper, 80))};
}

}  // namespace

TextTable verdict_table(const std::vector<OutcomeRow>& outcomes, const std::vector<std::string>& claims_anchor) {
  TextTable t;
  t.id = "verdicts";
  t.title = "Verdicts";
  t.caption = "reproduced: within the tolerances (order 0.02, factor 1 %), the statement's test passes, or within the paper's "
              "bound. finding: the main reading differs, another reading of the paper's text reproduces it. Each row that is "
              "not reproduced is named; the links lead to its detail.";
  t.header = {"Paper", "Claim or row", "Verdict", "Ours", "The paper's"};
  std::vector<bool> done(outcomes.size(), false);
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (done[i]) continue;
    const OutcomeRow& o = outcomes[i];
    const std::string href = anchor(o, claims_anchor);
    if (o.outcome != Outcome::Reproduced) {
      const std::string name = o.claim_check ? shortened(o.claim, 90) : o.group.empty() ? o.claim : o.group + ": " + o.claim;
      auto [ours, paper] = values(o);
      t.rows.push_back({Cell(o.paper), Cell(name, "", href), Cell(to_string(o.outcome), style_of(o.outcome)), ours, paper});
      continue;
    }
    // the reproduced rows of the same paper and group (and timing analysis), on one line
    std::vector<std::string> names;
    for (size_t j = i; j < outcomes.size(); ++j) {
      const OutcomeRow& x = outcomes[j];
      if (done[j] || x.outcome != Outcome::Reproduced || x.paper != o.paper || x.group != o.group || x.timing != o.timing ||
          (x.row == nullptr) != (o.row == nullptr) || (x.run == nullptr) != (o.run == nullptr) || (x.modes == nullptr) != (o.modes == nullptr))
        continue;
      done[j] = true;
      names.push_back(x.claim_check ? shortened(x.claim, 40) : x.claim);
    }
    std::string name, ours, paper;
    if (o.row) {
      name = fmt::format("{}: {}", o.group, fmt::join(names, ", "));
      ours = fmt::format("{} within the tolerances", names.size() == 1 ? "its fit" : "each fit");
      paper = fmt::format("{} published row{}", names.size(), names.size() == 1 ? "" : "s");
    } else if (o.run) {
      // the runs by model, and our largest error beside the paper's bound
      std::vector<std::string> models;
      double largest = 0;
      for (size_t j = i; j < outcomes.size(); ++j)
        if (outcomes[j].run && outcomes[j].outcome == Outcome::Reproduced && outcomes[j].paper == o.paper) {
          models.push_back(outcomes[j].run->paper.model);
          if (outcomes[j].run->error) largest = std::max(largest, *outcomes[j].run->error);
        }
      const PaperRun& p = o.run->paper;
      name = fmt::format("{} {}: {}", names.size(), names.size() == 1 ? "run" : "runs", fmt::join(models, "; "));
      ours = fmt::format("largest {} = {}", p.metric, sig3(largest));
      paper = p.error_max ? fmt::format("{} < {}", p.metric, sig3(*p.error_max)) : "its bound";
    } else if (o.modes) {
      name = fmt::format("{}: {}", o.group, fmt::join(names, ", "));
      auto [one_ours, one_paper] = values(o);
      ours = names.size() == 1 ? one_ours.text : "each within its tolerance";
      paper = names.size() == 1 ? one_paper.text
              : o.modes_method >= 0 ? fmt::format("the published eigenvalues (eig_err within {} at every judged speed)", sig3(kModesFitTolerance))
                                    : "the published eigenvalues and speeds";
    } else {
      name = names.size() == 1 ? names.front() : fmt::format("{} statements", names.size());
      ours = names.size() == 1 ? "its test passes" : "each test passes";
      paper = names.size() == 1 ? o.claim_check->rule : "each statement's test";
    }
    t.rows.push_back({Cell(o.paper), Cell(shortened(name, 110), "", href), Cell(to_string(o.outcome), style_of(o.outcome)),
                      Cell(ours), Cell(shortened(paper, 80))});
  }
  return t;
}

}  // namespace mb
