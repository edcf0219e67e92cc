// report/check: the Markdown report for pasting into an issue: the summary, the verdict
// table, the A/A control, the incomparable runs, the counters' validity, the methods.
#include "report/check_report.h"
#include "report/check_report_internal.h"

#include <fmt/core.h>

#include <algorithm>

namespace obscheck {
namespace check_report_detail {
namespace {

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// The counters' validity as Markdown: per counter its determinism, then one table row
// per configuration; "" when no counter was read.
std::string markdown_counters(const Plan& plan, const Findings& f) {
  if (f.counters.empty()) return "";
  std::string out = fmt::format("\n**Counters** ({})\n\n", kValidityHeading);
  for (const CounterValidity& v : f.counters)
    out += fmt::format("- `{}`: {} ({})\n", md_cell(metric_name(f, v.metric)), md_cell(v.determinism_text),
                       determinism_key(v.determinism));
  out += "\n| counter | configuration | runs | running min | running median | readings |\n|---|---|---|---|---|---|\n";
  for (const CounterValidity& v : f.counters)
    for (const CounterRunning& c : v.configs)
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", md_cell(metric_name(f, v.metric)),
                         md_cell(config_id(plan, c.config)), c.runs, running_text(c.running_min),
                         running_text(c.running_median), md_cell(validity_state(c)));
  return out;
}

}  // namespace
}  // namespace check_report_detail

std::string check_markdown(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  namespace detail = check_report_detail;
  std::string out = fmt::format("**obscheck** `{}`\n\n", detail::command_line(ctx));
  out += fmt::format("mode {}, {} measured blocks × {} configurations, seed {}, margin ε = {}{}\n\n",
                     ctx.mode.empty() ? "external" : ctx.mode, f.measured_blocks, plan.block_size(), ctx.seed,
                     format_margin(f.margin), ctx.complete ? "" : " (incomplete)");
  for (const std::string& line : ctx.backend) out += "- " + detail::md_cell(line) + "\n";
  if (!ctx.backend.empty()) out += "\n";
  out += "**Summary**\n\n";
  for (const std::string& line : summary_lines(plan, f, ctx)) out += "- " + detail::md_cell(line) + "\n";
  out += "\n";
  std::string head = "| metric | level |", rule = "|---|---|";
  for (Layout l : plan.spec.layouts) {
    head += fmt::format(" {} |", to_string(l));
    rule += "---|";
  }
  out += head + " verdict | reason |\n" + rule + "---|---|\n";
  for (const LevelVerdict& v : f.verdicts) {
    out += fmt::format("| {} | {} |", detail::md_cell(detail::metric_name(f, v.metric)),
                       detail::md_cell(v.level_label));
    for (Layout l : plan.spec.layouts) out += " " + detail::md_cell(detail::cell_text(f, detail::cell(f, v, l))) + " |";
    const std::string verdict = detail::verdict_label(v);
    out += fmt::format(" {} | {} |\n", v.verdict == Verdict::not_perturbed ? verdict : "**" + verdict + "**",
                       detail::md_cell(v.reason));
  }
  if (f.verdicts.empty()) {
    out += "| (no verdicts yet) |";
    for (std::size_t i = 0; i < plan.spec.layouts.size() + 3; ++i) out += " |";
    out += "\n";
  }
  out += "\n" + aa_line(f) + "\n";
  if (!f.incomparable.empty()) {
    out += fmt::format("\n**Incomparable runs ({})**\n\n", f.incomparable.size());
    const std::size_t shown = std::min(f.incomparable.size(), detail::kIncomparableListed);
    for (std::size_t i = 0; i < shown; ++i)
      out += fmt::format("- run {} (`{}`): {}\n", f.incomparable[i].run_index,
                         detail::config_id(plan, f.incomparable[i].config),
                         f.incomparable[i].why);
    if (shown < f.incomparable.size()) out += fmt::format("- … and {} more\n", f.incomparable.size() - shown);
  }
  out += detail::markdown_counters(plan, f);
  out += "\n**Methods**\n\n";
  for (const auto& line : detail::methods_lines(plan, f)) out += "- " + line + "\n";
  return out;
}

}  // namespace obscheck
