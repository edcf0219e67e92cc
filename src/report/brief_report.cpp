// report/: the brief reports (brief_report.h): a selection of the full reports'
// sentences, laid out to fit a screen of kScreenLines × kScreenColumns.
#include "report/brief_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "analysis/scaled_counter.h"
#include "analysis/summary.h"
#include "report/check_report_internal.h"
#include "report/measure_report.h"

namespace obscheck {
namespace {

// Terminal columns of UTF-8 text: one per character (continuation bytes do not count).
std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Where a line's continuations start: under the text after a leading name and two
// spaces ("task-clock  not perturbed: ..."), else two columns in from its indent.
std::size_t hang_of(const std::string& line, std::size_t indent) {
  // A name is shorter than this: the longest, "invol-ctx-switches(ru) (target + profiler)", has 42.
  constexpr std::size_t kLongestName = 48;
  const std::size_t gap = line.find("  ", indent);
  if (gap != std::string::npos && gap - indent < kLongestName) {
    const std::size_t text = line.find_first_not_of(' ', gap);
    if (text != std::string::npos && columns(line.substr(0, text)) < kScreenColumns / 2)
      return columns(line.substr(0, text));
  }
  return indent + 2;
}

// The byte offset of column `col` in `s` (s.size() when s is shorter).
std::size_t offset_of_column(const std::string& s, std::size_t col) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == col) return i;
  return s.size();
}

// Whether a line may break at the space at `space`: not inside a command the user is to
// type ("obscheck report --verbose PATH", "obscheck --resume PATH"), that is not right
// after "obscheck", "report" or an option, so that a command and its path stay together.
bool may_break_at(const std::string& line, std::size_t space) {
  const std::size_t word = space == 0 ? std::string::npos : line.rfind(' ', space - 1);
  const std::size_t from = word == std::string::npos ? 0 : word + 1;
  const std::string prev = line.substr(from, space - from);
  return prev != "obscheck" && prev != "report" && prev.rfind("--", 0) != 0;
}

// One logical line broken at spaces into pieces of at most kScreenColumns columns; a
// line that fits keeps its spacing (the tables' columns). A word longer than the screen
// (a path) is kept whole, on a line of its own: a path cut short could not be used.
std::vector<std::string> wrap(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  const std::size_t hang = hang_of(line, indent);
  std::vector<std::string> out;
  while (columns(line) > kScreenColumns) {
    const std::size_t limit = offset_of_column(line, kScreenColumns);
    const std::size_t start = offset_of_column(line, out.empty() ? indent : hang);
    std::size_t space = line.rfind(' ', limit);
    while (space != std::string::npos && space > start && !may_break_at(line, space)) space = line.rfind(' ', space - 1);
    if (space == std::string::npos || space <= start) {
      // Nothing fits before the limit: the first word (with its option) goes whole.
      space = line.find(' ', limit);
      while (space != std::string::npos && !may_break_at(line, space)) space = line.find(' ', space + 1);
      if (space == std::string::npos) break;
    }
    std::string piece = line.substr(0, space);
    while (!piece.empty() && piece.back() == ' ') piece.pop_back();
    out.push_back(piece);
    const std::size_t next = line.find_first_not_of(' ', space);
    if (next == std::string::npos) return out;
    line = std::string(hang, ' ') + line.substr(next);
  }
  out.push_back(line);
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string words_of(const std::vector<std::string>& argv) { return join(argv, " "); }

}  // namespace

std::string fit_screen(const std::vector<std::string>& lines, std::size_t keep_last, const std::string& hint) {
  keep_last = std::min(keep_last, lines.size());
  std::vector<std::string> head, tail;
  for (std::size_t i = 0; i < lines.size(); ++i)
    for (std::string& piece : wrap(lines[i])) (i + keep_last < lines.size() ? head : tail).push_back(std::move(piece));
  if (head.size() + tail.size() > kScreenLines) {
    const std::size_t room = kScreenLines > tail.size() + 1 ? kScreenLines - tail.size() - 1 : 0;
    const std::size_t left_out = head.size() - room;
    head.resize(room);
    head.push_back(wrap(fmt::format("  … {} more lines: {}", left_out, hint)).front());
  }
  if (head.size() + tail.size() > kScreenLines) tail.resize(kScreenLines > head.size() ? kScreenLines - head.size() : 0);
  std::string out;
  for (const auto& l : head) out += l + "\n";
  for (const auto& l : tail) out += l + "\n";
  return out;
}

std::string check_brief(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  namespace detail = check_report_detail;
  std::vector<std::string> lines;
  lines.push_back("obscheck: " + detail::command_line(ctx));
  // Runs are runs of the program; a block runs each configuration once.
  std::string size = fmt::format("  {} runs of each of {} configurations ({} blocks, {} runs); seed {}; margin {}",
                                 f.measured_blocks, plan.block_size(), f.measured_blocks,
                                 f.measured_blocks * plan.block_size(), ctx.seed, format_margin(f.margin));
  if (!ctx.complete) size += fmt::format("; incomplete: {} of {} planned runs done", ctx.runs_done, ctx.runs_planned);
  lines.push_back(size);
  for (const std::string& b : ctx.backend) lines.push_back("  " + b);
  lines.push_back("");
  // The answer's lines first (one per metric, the safe doses), cut from the end when the
  // screen is short; the whole check's verdict, what deciding would take, the A/A
  // control, the warnings and where the details are always stay.
  std::vector<std::string> tail;
  for (const std::string& s : summary_lines(plan, f, ctx)) {
    if (s.rfind("overall: ", 0) == 0) tail.push_back("  " + s);
    else if (s.rfind("safe dose: ", 0) == 0) lines.push_back("  " + s.substr(0, s.find("; per dose: ")));
    else lines.push_back("  " + s);
  }
  if (const std::string d = detail::to_decide_line(f, ctx); !d.empty()) tail.push_back("  " + d);
  if (!f.verdicts.empty()) tail.push_back("  " + aa_line(f));
  if (!f.incomparable.empty()) tail.push_back(fmt::format("  {} incomparable runs", f.incomparable.size()));
  for (const std::string& w : ctx.warnings) tail.push_back("  warning: " + w);
  std::size_t warnings = 0;  // the host's, in the details
  for (const nlohmann::json& d : ctx.doctor)
    if (d.is_object() && d.value("severity", std::string("info")) != "info") ++warnings;
  const std::string where = ctx.journal_path.empty() ? "--verbose" : "obscheck report --verbose " + ctx.journal_path;
  tail.push_back("");
  tail.push_back(fmt::format("details: every level and layout, the A/A control, counters, plots, the host{}, methods:",
                             warnings > 0 ? fmt::format(" ({} warning{})", warnings, warnings == 1 ? "" : "s") : ""));
  tail.push_back("  " + where);
  lines.insert(lines.end(), tail.begin(), tail.end());
  return fit_screen(lines, tail.size(), "obscheck report --verbose");
}

std::string measure_brief(const MeasureFindings& f) {
  std::vector<std::string> lines;
  lines.push_back("obscheck measure: " + words_of(f.argv));
  lines.push_back(fmt::format("  {} measured runs after {} warm-up{}; environment {} bytes; ASLR {}{}", f.runs,
                              f.warmups, f.warmups == 1 ? "" : "s", f.env_bytes, f.aslr ? "on" : "off",
                              f.cpu >= 0 ? fmt::format("; pinned to CPU {}", f.cpu) : ""));
  lines.push_back("");
  // Columns sized for the longest rusage name and a "[1.234 ms, 5.678 ms]" interval: 98 columns.
  lines.push_back(fmt::format("  {:<22} {:>12}  {:<26} {:<24} {}", "metric", "median", "95% CI of the median",
                              "mean ± sd", "counted"));
  std::size_t faults = 0, outliers = 0;
  for (const MetricSummary& m : f.metrics) {
    const std::string& u = m.series.unit;
    const std::string ci = std::isfinite(m.ci_lo)
                               ? fmt::format("[{}, {}]", format_value(m.ci_lo, u), format_value(m.ci_hi, u))
                               : "n/a (one run)";
    const std::string mean = std::isfinite(m.sd) ? format_value(m.mean, u) + " ± " + format_value(m.sd, u)
                                                 : format_value(m.mean, u);
    const std::string counted = !m.series.counter                  ? "driver"
                                : m.series.multiplexed_runs == 0   ? "exact"
                                                                   : fmt::format("scaled in {}/{} runs",
                                                                                 m.series.multiplexed_runs, m.n);
    lines.push_back(fmt::format("  {:<22} {:>12}  {:<26} {:<24} {}", m.series.name, format_value(m.median, u), ci,
                                mean, counted));
    faults += m.series.faults.size();
    outliers += m.mild_outliers + m.severe_outliers;
  }
  for (const auto& n : f.notes) lines.push_back("  note: " + n);
  std::vector<std::string> tail = {""};
  std::vector<std::string> more;
  if (faults > 0) more.push_back(fmt::format("{} faulted readings", faults));
  if (outliers > 0) more.push_back(fmt::format("{} outliers kept", outliers));
  tail.push_back(fmt::format("details ({}quartiles, ± sem, the interval's method): --verbose; every run: --json",
                             more.empty() ? "" : join(more, ", ") + ", "));
  lines.insert(lines.end(), tail.begin(), tail.end());
  return fit_screen(lines, tail.size(), "--verbose");
}

namespace {

// "task-clock  no bias: swing 26.89% (env+0 0.893 .. env+1200 1.133), within run-to-run noise (p = 0.394)".
std::string bias_line(const BiasAnalysis& b, std::size_t name_w) {
  const std::string name = b.metric + std::string(name_w > b.metric.size() ? name_w - b.metric.size() : 0, ' ');
  if (b.contexts.empty()) return name + "  no context analysed";
  std::string verdict;
  if (b.incomparable()) verdict = "incomparable: " + scaled_counter_verdict(b.scaled);
  else if (b.exact)
    verdict = fmt::format("{}: exact values, the contexts move it by {:.4g}%, {} ±{:g}%",
                          b.exceeds_noise ? "measurement bias" : "no measurement bias", 100 * b.swing,
                          b.exceeds_noise ? "beyond" : "within", 100 * b.margin);
  else if (b.spread)
    verdict = fmt::format("{}: a swing of {:.2f}% between contexts, {} run-to-run noise (p = {:.3g})",
                          b.exceeds_noise ? "measurement bias" : "no measurement bias shown", 100 * b.swing,
                          b.exceeds_noise ? "beyond" : "within", b.spread->p_value);
  else
    verdict = fmt::format("a swing of {:.2f}% between contexts; no test (too few contexts or runs)", 100 * b.swing);
  return fmt::format("{}  {}; extremes {} ({:.4f}) and {} ({:.4f})", name, verdict, b.contexts[b.lowest].label,
                     b.ratio_min, b.contexts[b.highest].label, b.ratio_max);
}

std::string contexts_text(const SweepReport& r) {
  std::size_t failed = 0;
  for (const auto& c : r.contexts) failed += !c.failure.empty();
  return fmt::format("  {} contexts{}, {} runs per context and variant; seed {}", r.contexts.size(),
                     failed ? fmt::format(" ({} could not be prepared)", failed) : "", r.runs_per_context, r.seed);
}

void comparison_lines(const VariantComparison& c, const SweepReport& r, const std::string& title,
                      std::vector<std::string>& lines) {
  lines.push_back("");
  lines.push_back("  " + title + ": " + c.verdict);
  for (std::size_t i = 1; i < c.reasons.size(); ++i) lines.push_back("    also " + c.reasons[i]);
  if (!c.t) return;
  const double level = 100 * (1 - r.alpha);
  lines.push_back(fmt::format("    ratio contender / baseline ({}): {:.4f}, {:g}% CI [{:.4f}, {:.4f}] over {} contexts",
                              r.metric, c.ratio, level, c.ratio_ci.lo, c.ratio_ci.hi, c.contexts));
}

}  // namespace

std::string bias_brief(const SweepReport& r) {
  std::vector<std::string> lines;
  lines.push_back("obscheck bias: " + words_of(r.variants.at(0).argv));
  lines.push_back(contexts_text(r));
  lines.push_back("");
  std::size_t name_w = 0;
  for (const BiasAnalysis& b : r.bias) name_w = std::max(name_w, b.metric.size());
  for (const BiasAnalysis& b : r.bias) lines.push_back("  " + bias_line(b, name_w));
  for (const auto& n : r.notes) lines.push_back("  note: " + n);
  std::vector<std::string> tail = {"", "details (every context's mean and interval, the ANOVA): --verbose; every run: "
                                       "--json"};
  lines.insert(lines.end(), tail.begin(), tail.end());
  return fit_screen(lines, tail.size(), "--verbose");
}

std::string compare_brief(const SweepReport& r) {
  std::vector<std::string> lines;
  lines.push_back("obscheck compare");
  for (const auto& v : r.variants)
    if (v.name != "baseline (A/A)") lines.push_back(fmt::format("  {:<10} {}", v.name + ":", words_of(v.argv)));
  lines.push_back(contexts_text(r));
  if (r.aa) comparison_lines(*r.aa, r, "A/A control", lines);
  if (r.comparison) comparison_lines(*r.comparison, r, "baseline against contender", lines);
  for (const auto& n : r.notes) lines.push_back("  note: " + n);
  std::vector<std::string> tail = {"", "details (speedup, two-level bootstrap, equivalence test, notes): --verbose; "
                                       "every run: --json"};
  lines.insert(lines.end(), tail.begin(), tail.end());
  return fit_screen(lines, tail.size(), "--verbose");
}

}  // namespace obscheck
