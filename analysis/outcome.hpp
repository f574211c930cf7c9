// The outcomes a report opens with: one per published row, statement or run the records (and the
// timing runs of `mbbench bench`) were compared with, and its verdict, decided here from the
// comparisons the analysis made (ComparedRow and Finding, ClaimCheck, RunComparison). The report
// (report/html.cpp) formats them as its first table, in this order.
#pragma once
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/timing.hpp"

namespace mb {

// reproduced: within the tolerances (a row), agrees (a statement), within the bound (a run);
// differs: outside them, contradicted, or the run failed or exceeded the bound;
// finding: differs in the main reading, but another reading of the paper's text reproduces it;
// not measured: not run, no fit, no size measured, or no published values to compare with.
enum class Outcome { Reproduced, Differs, Finding, NotMeasured };
const char* to_string(Outcome o);

struct OutcomeRow {
  std::string paper;   // the citation key ("schmitt2005")
  std::string group;   // the published table or kind the claim belongs to ("Pendulum10, Energy Drift")
  std::string claim;   // the row's name within it: a method, a statement, a run
  Outcome outcome = Outcome::NotMeasured;
  std::string why;     // differs or not measured: the reason in a few words ("" when the values say it)
  // what was compared: exactly one is set, or none (an experiment without published values)
  const ComparedRow* row = nullptr;
  const Finding* finding = nullptr;  // with row: the readings tried for it (nullptr: not run)
  const ClaimCheck* claim_check = nullptr;
  const RunComparison* run = nullptr;
  int timing = -1;  // claim_check: its timing analysis' index in `timing`
  // the benchmark bicycle's linearization (ReportData::modes): modes_method < 0 the eigenvalues of
  // ref's linearization (-1) or its speeds (-2), else the index of a method in modes->methods
  const ModesAnalysis* modes = nullptr;
  int modes_method = -1;
};

// Every outcome of `d` and of the timing analyses, in the order: the paper's tables (rows in
// table order), its whole runs, each timing analysis' statements; then, for an experiment whose
// `reproduces` names a paper with no published values here, one row saying so.
std::vector<OutcomeRow> outcomes(const ReportData& d, const std::vector<const TimingData*>& timing);

}  // namespace mb
