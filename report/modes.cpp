// The benchmark bicycle's section (meijaard2007): the eigenvalues over v beside the published
// matrices', ref's linearization and the speeds, each method's eig_err over h with its order, as
// tables and figures. Formatting only: every number and verdict comes from analyse_modes().
#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>

#include <fmt/format.h>

#include "metrics/registry.hpp"
#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

namespace {

std::string eigen_text(const std::complex<double>& e) {
  if (e.imag() == 0) return fmt::format("{:.6f}", e.real());
  return fmt::format("{:.6f} {} {:.6f}i", e.real(), e.imag() < 0 ? "-" : "+", std::abs(e.imag()));
}

// the four eigenvalues, a conjugate pair once (its + member)
std::string eigens_text(const std::array<std::complex<double>, 4>& e) {
  std::string s;
  for (const auto& x : e)
    if (x.imag() >= 0) s += (s.empty() ? "" : ", ") + eigen_text(x);
  return s;
}

// a method's fit at the smallest h at speed v (nullptr: none)
const ModesFit* smallest_h(const ModesAnalysis& m, const std::string& method, double v) {
  const ModesFit* at = nullptr;
  for (const ModesFit& f : m.fits)
    if (f.method == method && f.v == v && (!at || f.h < at->h)) at = &f;
  return at;
}

}  // namespace

std::vector<TextTable> modes_tables(const ReportData& d) {
  std::vector<TextTable> out;
  if (!d.modes) return out;
  const ModesAnalysis& m = *d.modes;
  const std::string cite = d.paper ? d.paper->citation : "the paper";

  TextTable ev;
  ev.id = "meijaard2007-eigenvalues";
  ev.title = fmt::format("Eigenvalues over the speed v beside the published matrices' ({})", cite);
  ev.caption = fmt::format(
      "At each speed the records ran: the eigenvalues of the published linearized equations (1/s, a complex pair once), the "
      "largest difference of those of ref's own linearization (central differences of the equations ref integrates, relative, "
      "absolute below 1; tolerance {}), and each method's eig_err: the eigenvalues identified from its motion at its smallest "
      "h against the published ones (tolerance {}, judged where no published real part exceeds {}/s: elsewhere the "
      "perturbation grows and the bicycle falls, so the motion leaves the linearization).",
      sig3(kModesRefTolerance), sig3(kModesFitTolerance), sig3(kModesGrowth));
  ev.header = {"v [m/s]", "published eigenvalues", "ref's linearization: difference"};
  for (const ModesMethod& x : m.methods) ev.header.push_back("eig_err " + x.method + " (smallest h)");
  for (size_t i = 0; i < m.v.size(); ++i) {
    std::vector<Cell> row = {fmt::format("{:g}", m.v[i]), eigens_text(m.published[i]),
                             Cell(sig3(m.ref_err[i]), m.ref_err_within[i] ? "ok" : "bad")};
    for (const ModesMethod& x : m.methods) {
      const ModesFit* f = smallest_h(m, x.method, m.v[i]);
      const char* style = !m.judged[i] ? "" : f && f->within ? "ok" : "bad";
      row.push_back(f ? Cell(fmt::format("{} at {:g} s", sig3(f->err), f->h), style) : Cell("not run", "na"));
    }
    ev.rows.push_back(std::move(row));
  }
  out.push_back(std::move(ev));

  TextTable sp;
  sp.id = "meijaard2007-speeds";
  sp.title = "Weave and capsize speeds";
  sp.caption = fmt::format("v_w: the weave pair's real part crosses zero; v_c: the capsize eigenvalue does (self-stable between). "
                           "Roots to the last bit of v; ref's within {} m/s of the printed ones: {}.",
                           sig3(kModesSpeedTolerance), m.speeds_within ? "yes" : "no");
  sp.header = {"from", "v_w [m/s]", "v_c [m/s]"};
  sp.rows.push_back({"printed (Table 2 (a))", fmt::format("{:.14g}", m.weave_printed), fmt::format("{:.14g}", m.capsize_printed)});
  sp.rows.push_back({"the published matrices", fmt::format("{:.14g}", m.weave_published), fmt::format("{:.14g}", m.capsize_published)});
  sp.rows.push_back({"ref's linearization", fmt::format("{:.14g}", m.weave_ref), fmt::format("{:.14g}", m.capsize_ref)});
  out.push_back(std::move(sp));

  TextTable eh;
  eh.id = "meijaard2007-eig-err";
  eh.title = "eig_err over h, with the fitted order";
  eh.caption = fmt::format("Each method at the speed it ran with the most steps (of several, the most stable); the order: least squares of log eig_err on log h "
                           "over the points above {} (below it the fit of the motion itself limits eig_err).",
                           sig3(kModesFloor));
  eh.header = {"method", "v [m/s]", "h [s]: eig_err", "order", "verdict"};
  for (const ModesMethod& x : m.methods) {
    std::string points;
    for (size_t k = 0; k < x.hs.size(); ++k) points += fmt::format("{}{:g}: {}", k ? "; " : "", x.hs[k], sig3(x.errs[k]));
    eh.rows.push_back({x.method, fmt::format("{:g}", x.swept_v), points,
                       x.order ? Cell(fmt::format("{:.2f}", x.order->order)) : Cell(fmt::format("no fit: fewer than 2 points above {}", sig3(kModesFloor)), "na"),
                       Cell(x.within ? fmt::format("within {} at every judged v", sig3(kModesFitTolerance))
                                     : fmt::format("{} at v = {:g}", sig3(x.worst), x.worst_v),
                            x.within ? "ok" : "bad")});
  }
  out.push_back(std::move(eh));
  return out;
}

std::vector<Figure> write_modes_plots(const ReportData& d, const std::string& dir) {
  std::vector<Figure> figures;
  if (!d.modes) return figures;
  const ModesAnalysis& m = *d.modes;
  const fs::path plots = fs::path(dir) / "plots";
  fs::create_directories(plots);
  const std::string gnuplot = find_gnuplot();
  // the eigenvalues over v (meijaard2007 Fig. 3's axes): the published curves, ref's linearization
  // and each method's identified eigenvalues at its smallest h
  Figure fig;
  fig.id = "meijaard2007_eigenvalues";
  // short: gnuplot centres the title over the plot, which the key of long method specs narrows
  fig.title = "Eigenvalues over v (Re solid, weave |Im| dashed)";
  fig.model = "bicycle";
  fig.metric = "eigenvalues";
  auto row = [](double v, const std::array<std::complex<double>, 4>& e) {
    double im = 0;
    for (const auto& x : e) im = std::max(im, std::abs(x.imag()));
    return fmt::format("{:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {}\n", v, e[0].real(), e[1].real(), e[2].real(), e[3].real(),
                       im > 0 ? fmt::format("{:.17g}", im) : std::string("NaN"));
  };
  std::string data = "# published: v re1 re2 re3 re4 |im|\n";
  for (size_t i = 0; i < m.curve_v.size(); ++i) data += row(m.curve_v[i], m.curve[i]);
  data += "\n\n# ref's linearization\n";
  for (size_t i = 0; i < m.v.size(); ++i) data += row(m.v[i], m.ref[i]);
  std::string plot = fmt::format("plot for [c=2:5] '{0}.dat' index 0 using 1:c with lines lw 1.5 lc rgb '#000000' notitle, \\\n"
                                 "     '{0}.dat' index 0 using 1:6 with lines lw 1.5 dt 2 lc rgb '#000000' title 'published matrices', \\\n"
                                 "     for [c=2:6] '{0}.dat' index 1 using 1:c with points pt 6 ps 1.6 lc rgb '#000000' notitle, \\\n"
                                 "     keyentry with points pt 6 ps 1.6 lc rgb '#000000' title \"ref's linearization\"",
                                 fig.id);
  int block = 2;
  for (const ModesMethod& x : m.methods) {
    std::string rows;
    for (double v : m.v)
      if (const ModesFit* f = smallest_h(m, x.method, v)) rows += row(v, f->e);
    if (rows.empty()) continue;
    data += fmt::format("\n\n# {}\n{}", x.method, rows);
    const std::string style = method_style(x.method);
    plot += fmt::format(", \\\n     for [c=2:6] '{}.dat' index {} using 1:c with points {} ps 1 notitle", fig.id, block, style);
    plot += fmt::format(", \\\n     keyentry with points {} ps 1 title {}", style, gnuplot_string(x.method + " (identified)"));
    ++block;
  }
  const std::string gp = fmt::format("# {}\n# drawn by mbbench report; data in {}.dat\n", fig.title, fig.id) +
                         gnuplot_header(fig.id, fig.title, "v [m/s]", "eigenvalue [1/s]") +
                         "unset logscale xy\nset xrange [0:10]\nset yrange [-10:10]\nset xzeroaxis lt -1\n"
                         "set key outside right top Left reverse width 1 font 'sans,11'\n" + plot + "\n";
  draw_figure(fig, plots.string(), data, gp, gnuplot);
  figures.push_back(fig);

  // eig_err over h, one line per method at its swept speed
  Figure base;
  base.id = "meijaard2007_eig_err";
  base.title = "eig_err over h (at each method's swept speed)";
  base.model = "bicycle";
  base.metric = metric::eig_err;
  std::vector<Line> lines;
  for (const ModesMethod& x : m.methods) {
    Line l;
    l.label = x.method;
    l.title = x.order ? fmt::format("{} (order {:.2f})", x.method, x.order->order) : x.method;
    for (size_t k = 0; k < x.hs.size(); ++k) {
      if (x.errs[k] > 0) l.xy.emplace_back(x.hs[k], x.errs[k]);
      else ++l.nonpositive;
    }
    lines.push_back(std::move(l));
  }
  for (auto& f : draw_lines(base, lines, "h [s]", metric::eig_err, "set format y '%.0e'\n", plots.string(), gnuplot)) figures.push_back(std::move(f));
  return figures;
}

}  // namespace mb
