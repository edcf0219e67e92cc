#include "report/certificate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html_page.h"
#include "report/html_report.h"
#include "report/svg.h"
#include "util/error.h"

namespace obscheck {
namespace {

using nlohmann::json;

// Why the achieved rate may be missing: the only count read is perf record's closing
// message, which perf prints for a data file but not for -o /dev/null or a pipe.
constexpr const char* kRateNotReadable =
    "not readable: the profiler's output did not say how many samples it took (obscheck reads perf record's "
    "closing \"(N samples)\", which perf prints only when it writes a data file: give -o FILE, not /dev/null; "
    "nor under --show-output, where the output is not captured)";

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// The observation of `key` at `level`, as {min, max, mean, runs}, or null.
json observed(const std::vector<Observation>& all, const std::string& level, const std::string& key) {
  for (const Observation& o : all)
    if (o.level == level && o.key == key)
      return {{"min", number_or_null(o.min)}, {"max", number_or_null(o.max)}, {"mean", number_or_null(o.mean)},
              {"runs", o.n}};
  return nullptr;
}

// Per dose: the requested and achieved sampling rates and the profiler's own cost.
json doses_json(const Plan& plan, const CheckContext& ctx, const std::map<std::string, double>& requested) {
  json doses = json::array();
  for (const Level& l : plan.spec.levels) {
    const std::string level = wrap_word(l).value_or(l.label);
    const bool bare = level == "0";  // level "0" runs the bare target (observe/wrap.h)
    json d = {{"level", l.label}, {"dose", l.dose}, {"profiler_runs", !bare}};
    const auto asked = requested.find(level);
    d["requested_hz"] = !bare && asked != requested.end() ? json(asked->second) : json(nullptr);
    d["samples_per_run"] = observed(ctx.observations, l.label, "profiler_samples");
    d["achieved_hz"] = observed(ctx.observations, l.label, "profiler_rate_hz");
    if (!bare && d["achieved_hz"].is_null()) d["achieved_hz_why_not"] = kRateNotReadable;
    d["profiler_wall_ms"] = observed(ctx.observations, l.label, "profiler_wall_ms");
    d["profiler_cpu_ms"] = observed(ctx.observations, l.label, "profiler_cpu_ms");
    d["max_sample_rate"] = observed(ctx.observations, l.label, "max_sample_rate");
    doses.push_back(std::move(d));
  }
  return doses;
}

// kernel.perf_event_max_sample_rate over the check (read after every run; the kernel
// only lowers it) and the kernel log's throttling messages.
json throttling_json(const CheckContext& ctx, const KernelLogScan& log) {
  double hi = -1, lo = std::numeric_limits<double>::infinity();
  for (const Observation& o : ctx.observations)
    if (o.key == "max_sample_rate" && o.n > 0) {
      hi = std::max(hi, o.max);
      lo = std::min(lo, o.min);
    }
  json j;
  if (hi < 0)
    j["max_sample_rate"] = {{"readable", false},
                            {"why", "not recorded: the journal's runs carry no kernel.perf_event_max_sample_rate "
                                    "(written by an older obscheck, or /proc/sys/kernel unreadable)"}};
  else
    j["max_sample_rate"] = {{"readable", true}, {"highest", hi}, {"lowest", lo}, {"lowered_during_check", lo < hi}};
  j["kernel_log"] = {{"readable", log.readable},
                     {"message", std::string(kPerfThrottleMessage)},
                     {"matches", log.readable ? json(log.matches) : json(nullptr)},
                     {"last", log.readable && !log.last.empty() ? json(log.last) : json(nullptr)},
                     {"scope", "the kernel's log buffer when the certificate was made (since boot or since it "
                               "wrapped), not only this check's time"}};
  if (!log.readable) j["kernel_log"]["why"] = log.why;
  return j;
}

// Per metric: what it describes, its verdict and its answer per dose (check_report's
// answer.metrics[].per_dose).
json metrics_json(const json& report) {
  json out = json::array();
  const json& metrics = report.at("metrics");
  for (const json& a : report.at("answer").at("metrics")) {
    json m = {{"name", a.at("metric")}, {"verdict", a.at("verdict")}, {"asked", a.at("asked")},
              {"per_dose", a.at("per_dose")}};
    std::string scope = "target";
    for (const json& info : metrics)
      if (info.at("name") == a.at("metric")) {
        m["unit"] = info.at("unit");
        scope = info.value("scope", scope);
      }
    m["scope"] = scope;
    out.push_back(std::move(m));
  }
  return out;
}

// The verdicts still undecided, as {"metric", "level"}: what keeps the certificate from
// being complete.
json undecided_json(const Findings& f) {
  json out = json::array();
  for (const LevelVerdict& v : f.verdicts)
    if (v.verdict == Verdict::inconclusive)
      out.push_back({{"metric", v.metric < f.metrics.size() ? f.metrics[v.metric].name : std::string()},
                     {"level", v.level_label}});
  return out;
}

std::string range_text(const json& r, int digits, const char* unit) {
  if (r.is_null()) return "n/a";
  const double lo = r.at("min").get<double>(), hi = r.at("max").get<double>();
  return lo == hi ? fmt::format("{:.{}f}{}", lo, digits, unit)
                  : fmt::format("{:.{}f}..{:.{}f}{} (mean {:.{}f})", lo, digits, hi, digits, unit,
                                r.at("mean").get<double>(), digits);
}

std::string dose_line(const json& d) {
  std::string line = fmt::format("  {}: ", d.at("level").get<std::string>());
  if (!d.at("profiler_runs").get<bool>()) return line + "no profiler (the reference)\n";
  if (!d.at("requested_hz").is_null()) line += fmt::format("requested {:g} Hz, ", d.at("requested_hz").get<double>());
  line += d.at("achieved_hz").is_null() ? "achieved rate not readable"
                                        : "achieved " + range_text(d.at("achieved_hz"), 0, " Hz");
  line += "; profiler's own time " + range_text(d.at("profiler_wall_ms"), 1, " ms");
  if (!d.at("profiler_cpu_ms").is_null()) line += ", CPU " + range_text(d.at("profiler_cpu_ms"), 1, " ms");
  return line + " per run\n";
}

std::string throttling_text(const json& t) {
  std::string out = "kernel throttling:\n";
  const json& rate = t.at("max_sample_rate");
  out += rate.at("readable").get<bool>()
             ? fmt::format("  kernel.perf_event_max_sample_rate after each run: {:g} to {:g} Hz{}\n",
                           rate.at("highest").get<double>(), rate.at("lowest").get<double>(),
                           rate.at("lowered_during_check").get<bool>() ? ": LOWERED during the check (throttled)"
                                                                       : ": not lowered during the check")
             : "  kernel.perf_event_max_sample_rate: " + rate.at("why").get<std::string>() + "\n";
  const json& log = t.at("kernel_log");
  if (!log.at("readable").get<bool>()) return out + "  kernel log: " + log.at("why").get<std::string>() + "\n";
  out += fmt::format("  kernel log: {} \"{}\" message(s) in its buffer", log.at("matches").get<std::size_t>(),
                     log.at("message").get<std::string>());
  if (!log.at("last").is_null()) out += "; the last: " + log.at("last").get<std::string>();
  return out + "\n";
}

}  // namespace

json certificate_json(const Plan& plan, const Findings& f, const CheckContext& ctx, const CertificateInput& in) {
  if (!plan.spec.doses_wrap_a_command())
    throw Error(ErrorKind::usage, "--certificate describes a profiler command's check; this journal's observer is " +
                                      std::string(plan.spec.name()),
                "run the check with --observer-cmd 'PROFILER ... --' --levels 0,... --journal FILE");
  const json report = json::parse(check_json(plan, f, ctx));
  json c;
  c["schema"] = "obscheck-certificate";
  c["version"] = 1;
  c["profiler_command"] = in.profiler_command;
  c["target"] = ctx.argv;
  c["journal"] = ctx.journal_path;
  c["margin"] = f.margin;
  c["alpha"] = f.alpha;
  // Complete only when the check ran to its end and every verdict it gives was decided:
  // a check stopped by its budget or its cap with a verdict undecided certifies nothing
  // about that metric and dose, and a gate reading "complete" must not pass it.
  c["complete"] = ctx.complete && f.all_answered;
  c["finished"] = ctx.complete;
  c["undecided"] = undecided_json(f);
  c["measured_blocks"] = f.measured_blocks;
  c["runs"] = f.runs;
  c["doses"] = doses_json(plan, ctx, in.requested_hz);
  c["metrics"] = metrics_json(report);
  c["profiler_cost"] = report.at("answer").at("profiler_cost");
  c["throttling"] = throttling_json(ctx, in.kernel_log);
  c["overall"] = report.at("answer").at("overall");
  c["exit_code"] = report.at("answer").at("exit_code");
  c["lines"] = report.at("answer").at("lines");
  c["host"] = {{"hostname", ctx.host.value("hostname", "")},
               {"kernel", ctx.host.value("kernel_release", "")},
               {"cpu", ctx.host.value("cpu_model", "")},
               {"online_cpus", ctx.host.value("online_cpus", json(nullptr))},
               {"virtualized", ctx.host.value("virtualized", json(nullptr))},
               {"hypervisor", ctx.host.value("hypervisor", "")},
               {"perf_event_paranoid", ctx.host.value("perf_event_paranoid", json(nullptr))}};
  c["warnings"] = ctx.warnings;
  return c;
}

std::string certificate_text(const json& c) {
  std::string out = "profiler setup certificate\n";
  out += "profiler command: " + c.at("profiler_command").get<std::string>() + "\n";
  std::string target;
  for (const json& w : c.at("target")) target += (target.empty() ? "" : " ") + w.get<std::string>();
  out += "target: " + target + "\n";
  const json& h = c.at("host");
  out += fmt::format("host: {} ({}, Linux {}{})\n", h.at("hostname").get<std::string>(),
                     h.at("cpu").get<std::string>(), h.at("kernel").get<std::string>(),
                     h.at("virtualized").is_boolean() && h.at("virtualized").get<bool>() ? ", virtualized" : "");
  std::string state;
  if (!c.at("finished").get<bool>()) state = "; the check did not finish";
  else if (!c.at("complete").get<bool>())
    state = fmt::format("; NOT COMPLETE: {} verdict(s) undecided", c.at("undecided").size());
  out += fmt::format("margin ±{:g}%, family-wise alpha {:g}{}\n", 100 * c.at("margin").get<double>(),
                     c.at("alpha").get<double>(), state);
  out += "doses:\n";
  for (const json& d : c.at("doses")) out += dose_line(d);
  out += "per metric and dose (the effect with its interval where the dose moves it or is undecided, else the bound "
         "that holds):\n";
  for (const json& m : c.at("metrics")) {
    if (m.at("per_dose").empty()) continue;
    const std::string scope = m.at("scope").get<std::string>();
    out += fmt::format("  {}{}: {}\n", m.at("name").get<std::string>(), scope == "target" ? "" : " (" + scope + ")",
                       m.at("verdict").is_null() ? "no verdict" : m.at("verdict").get<std::string>());
    for (const json& d : m.at("per_dose"))
      out += fmt::format("    {}: {}\n", d.at("level").get<std::string>(), d.at("text").get<std::string>());
  }
  if (!c.at("profiler_cost").empty())
    out += "the profiler's cost (target + profiler: no verdict, these include the profiler's own work):\n";
  for (const json& m : c.at("profiler_cost")) {
    out += "  " + m.at("metric").get<std::string>() + ":\n";
    for (const json& d : m.at("per_dose"))
      out += fmt::format("    {}: {}\n", d.at("level").get<std::string>(), d.at("text").get<std::string>());
  }
  out += throttling_text(c.at("throttling"));
  out += "verdict: " + (c.at("overall").is_null() ? std::string("none yet") : c.at("overall").get<std::string>());
  if (!c.at("exit_code").is_null()) out += fmt::format("; exit {}", c.at("exit_code").get<int>());
  out += "\n";
  for (const json& w : c.at("warnings")) out += "warning: " + w.get<std::string>() + "\n";
  return out;
}

std::string certificate_html(const Plan& plan, const Findings& f, const json& c) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<title>obscheck: profiler setup certificate</title>\n";
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", html_stylesheet());
  out += "<h1>Profiler setup certificate</h1>\n<pre class=\"certificate\">" + svg::escape(certificate_text(c)) +
         "</pre>\n";
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    const std::string figure = effect_curve_svg(plan, f, m);
    if (figure.empty()) continue;
    out += fmt::format("<figure class=\"dose-response\" data-metric=\"{}\">\n{}<figcaption>{}: effect against dose, "
                       "with its interval</figcaption>\n</figure>\n",
                       svg::escape(f.metrics[m].name), figure, svg::escape(f.metrics[m].name));
  }
  return out + "</body>\n</html>\n";
}

}  // namespace obscheck
