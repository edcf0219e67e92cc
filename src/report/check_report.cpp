// report/check: what the check report's formats share: widths and padding, the command
// line, a metric's verdicts, the A/A comparisons, a verdict's label, and the numbers as
// a person reads them (pct, format_margin, format_effect_ci).
#include "report/check_report.h"
#include "report/check_report_internal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace obscheck {
namespace check_report_detail {
namespace {

std::string shell_word(const std::string& a) {
  if (!a.empty() && a.find_first_of(" \t\n'\"\\$`;&|<>()*?!#~") == std::string::npos) return a;
  std::string out = "'";
  for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

// Terminal columns of UTF-8 text ("±", "ε", "×" are one column each), ANSI escapes skipped.
std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++w;
  }
  return w;
}

std::string pad(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string command_line(const CheckContext& ctx) {
  std::vector<std::string> words;
  for (const auto& a : ctx.argv) words.push_back(shell_word(a));
  return join(words, " ");
}

std::vector<const LevelVerdict*> verdicts_of(const Findings& f, std::size_t metric) {
  std::vector<const LevelVerdict*> out;
  for (const LevelVerdict& v : f.verdicts)
    if (v.metric == metric) out.push_back(&v);
  return out;
}

std::optional<Verdict> metric_verdict(const Findings& f, std::size_t metric) {
  if (metric < f.metrics.size() && !f.metrics[metric].judged) return std::nullopt;  // the profiler's cost
  if (metric < f.metric_verdicts.size()) return f.metric_verdicts[metric];
  std::optional<Verdict> worst;
  for (const LevelVerdict* v : verdicts_of(f, metric))
    if (!worst || verdict_severity(v->verdict) > verdict_severity(*worst)) worst = v->verdict;
  return worst;
}

const LevelVerdict* verdict_for(const Findings& f, const Comparison& c) {
  if (c.aa) return nullptr;
  for (const LevelVerdict& v : f.verdicts)
    if (v.metric == c.metric && v.level_index == c.level_index) return &v;
  return nullptr;
}

// The name a reader sees: with what it describes when that is not the target alone.
std::string shown_name(const MetricInfo& m) { return m.scope.empty() ? m.name : m.name + " (" + m.scope + ")"; }

std::vector<const Comparison*> aa_comparisons(const Findings& f) {
  std::vector<const Comparison*> out;
  for (const Comparison& c : f.comparisons)
    if (c.aa && (c.metric >= f.metrics.size() || f.metrics[c.metric].hidden.empty())) out.push_back(&c);
  return out;
}

// A verdict as the table shows it: "scaled" when decided on multiplexed counts.
std::string verdict_label(const LevelVerdict& v) {
  return std::string(verdict_text(v.verdict)) + (v.scaled ? ", scaled" : "");
}

}  // namespace check_report_detail

// -0.0 prints as "-0.0"; adding +0.0 turns it into +0.0.
double pct(double fraction) { return fraction * 100 + 0.0; }

std::string format_margin(double margin) { return fmt::format("±{:g}%", pct(margin)); }

std::string format_effect_ci(double effect, double lo, double hi) {
  if (!std::isfinite(effect)) return "n/a";
  const bool ci = std::isfinite(lo) && std::isfinite(hi);
  double largest = std::fabs(pct(effect));
  if (ci) largest = std::max({largest, std::fabs(pct(lo)), std::fabs(pct(hi))});
  const int d = largest < 1 ? 2 : largest < 100 ? 1 : 0;
  std::string out = fmt::format("{:+.{}f}%", pct(effect), d);
  if (ci) out += fmt::format(" [{:+.{}f}, {:+.{}f}]", pct(lo), d, pct(hi), d);
  return out;
}

}  // namespace obscheck
