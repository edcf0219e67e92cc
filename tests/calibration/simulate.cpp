#include "calibration/simulate.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "analysis/check.h"
#include "analysis/settled.h"
#include "plan/levels.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "record/run_table.h"

namespace obscheck::calibration {
namespace {

constexpr double kBaseNs = 1.2e6;     // a 1.2 ms run
constexpr double kSd = 0.01;          // the gaussian family's log sd
constexpr double kSlow = 2.5;         // bimodal: the slow mode's factor (1.2 or 3.0 ms)
constexpr double kFirstRun = 1.5;     // position: the first run of a block
constexpr double kFaults = 145;       // page-faults of every run
constexpr double kExtraFaults = 64;   // intermittent: one run in four of a dose

Plan sim_plan(const SimSpec& s) {
  PlanSpec p;
  p.observer = ObserverKind::command;
  p.counters = {"task-clock", "page-faults"};
  std::vector<std::string> words;
  for (std::size_t i = 0; i <= s.doses; ++i) words.push_back(std::to_string(i));
  p.levels = command_levels(words, p.counters.size());
  p.layouts = {Layout::held};
  p.seed = 7;
  if (s.fixed) p.fixed_blocks = s.window;
  p.max_blocks = s.window;
  return make_plan(p);
}

struct Draw {
  std::mt19937_64 engine;
  double uniform() { return std::uniform_real_distribution<double>(0, 1)(engine); }
  double normal() { return std::normal_distribution<double>(0, 1)(engine); }
  double student_t2() {
    const double z = normal(), c = std::chi_squared_distribution<double>(2)(engine);
    return z / std::sqrt(c / 2);
  }
};

// The log of a run's time factor under the noise family.
double log_noise(Noise n, Draw& d, std::size_t position) {
  switch (n) {
    case Noise::bimodal: return kSd * d.normal() + (d.uniform() < 1.0 / 3 ? std::log(kSlow) : 0.0);
    case Noise::heavy_tail: return kSd * d.student_t2();
    case Noise::position: return kSd * d.normal() + (position == 0 ? std::log(kFirstRun) : 0.0);
    case Noise::gaussian:
    case Noise::intermittent: return kSd * d.normal();
  }
  return 0;
}

timeval to_timeval(double ns) {
  const auto us = static_cast<long long>(std::llround(ns / 1000.0));
  return {static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
}

RunRecord run_of(const Plan& plan, const Trial& t, const SimSpec& s, Draw& d) {
  RunRecord r = run_record_for(plan, t);
  const Configuration& c = plan.configs[t.config];
  const int dose = plan.spec.levels[c.level_index].dose;
  const double effect = dose > 0 ? s.effect + (dose - 1) * s.effect_step : 0.0;
  const double ns = kBaseNs * std::exp(log_noise(s.noise, d, t.position)) * (1 + effect);
  double faults = kFaults;
  if (s.noise == Noise::intermittent && dose > 0 && d.uniform() < 0.25) faults += kExtraFaults;
  r.exit.exit_code = 0;
  r.exit.signal = 0;
  r.exit.wall_ns = static_cast<std::uint64_t>(std::llround(ns * 1.05 * std::exp(0.002 * d.normal())));
  r.exit.usage.ru_utime = to_timeval(ns);
  r.exit.usage.ru_stime = to_timeval(0);
  r.exit.usage.ru_maxrss = 2000;
  r.exit.usage.ru_minflt = static_cast<long>(faults + 60);
  r.exit.usage.ru_nvcsw = 1;
  r.exit.usage.ru_nivcsw = 0;
  r.exit.output_digest = std::string(64, 'a');
  const std::vector<std::pair<std::string, double>> readings{{"task-clock", std::round(ns)}, {"page-faults", faults}};
  for (const auto& [name, value] : readings) {
    Reading x;
    x.name = name;
    x.value = value;
    x.raw = static_cast<std::uint64_t>(value);
    x.time_enabled = x.time_running = 1000000;
    r.readings.push_back(x);
  }
  return r;
}

bool is_time(const std::string& m) { return m == "task-clock" || m == "wall-time"; }

struct LookVerdicts {
  bool time_perturbed = false, faults_perturbed = false, faults_not_perturbed = false;
  bool time_all_null = true, time_all_detected = true;
};

LookVerdicts read_look(const Findings& f, double effect) {
  LookVerdicts out;
  for (const LevelVerdict& v : f.verdicts) {
    const std::string& m = f.metrics[v.metric].name;
    const bool perturbed = v.verdict == Verdict::perturbed;
    if (is_time(m)) {
      out.time_perturbed |= perturbed;
      out.time_all_null &= v.verdict == Verdict::not_perturbed;
      bool right_sign = false;
      for (std::size_t i : v.comparisons) {
        const Comparison& c = f.comparisons[i];
        if (c.layout == Layout::held && !c.aa) right_sign = (c.effect > 0) == (effect > 0);
      }
      out.time_all_detected &= perturbed && right_sign;
    } else if (m == "page-faults") {
      out.faults_perturbed |= perturbed;
      out.faults_not_perturbed |= v.verdict == Verdict::not_perturbed;
    }
  }
  return out;
}

void retire_settled_configs(Plan& plan, const Findings& f, std::size_t from_block) {
  for (std::size_t c : settled_configs(plan, f, false)) {
    const bool already = std::any_of(plan.retired.begin(), plan.retired.end(),
                                     [&](const Retirement& r) { return r.config == c; });
    if (!already) plan.retired.push_back({c, from_block});
  }
}

}  // namespace

std::string to_string(Noise n) {
  switch (n) {
    case Noise::gaussian: return "gaussian";
    case Noise::bimodal: return "bimodal";
    case Noise::heavy_tail: return "heavy-tail";
    case Noise::position: return "position";
    case Noise::intermittent: return "intermittent";
  }
  return "?";
}

const std::vector<Noise>& all_noises() {
  static const std::vector<Noise> all{Noise::gaussian, Noise::bimodal, Noise::heavy_tail, Noise::position,
                                      Noise::intermittent};
  return all;
}

SimOutcome simulate_check(const SimSpec& spec, std::uint64_t seed, std::size_t replay) {
  Plan plan = sim_plan(spec);
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(spec.noise), static_cast<std::uint32_t>(spec.doses),
                    static_cast<std::uint32_t>(replay), static_cast<std::uint32_t>(replay >> 32)};
  Draw draw{std::mt19937_64(seq)};
  const std::vector<std::size_t> looks =
      spec.fixed ? std::vector<std::size_t>{spec.window} : plan_looks(plan, first_look(plan, spec.alpha));
  AnalysisOptions o;
  o.margin = spec.margin;
  o.alpha = spec.alpha;
  o.fixed_design = spec.fixed;
  o.threads = 1;
  std::vector<RunRecord> runs;
  std::size_t done = 0;  // measured blocks generated
  SimOutcome out;
  for (std::size_t k = 0; k < looks.size(); ++k) {
    const std::size_t w = plan.spec.warmup_blocks;
    for (const Trial& t : trials(plan, done == 0 ? 0 : w + done, w + looks[k]))
      runs.push_back(run_of(plan, t, spec, draw));
    done = looks[k];
    o.looks_planned = k + 1;
    const Findings f = analyse_check(plan, run_table_of(runs), o);
    const LookVerdicts v = read_look(f, spec.effect);
    out.perturbed_time_any_look |= v.time_perturbed;
    out.perturbed_faults_any_look |= v.faults_perturbed;
    out.faults_not_perturbed_any_look |= v.faults_not_perturbed;
    out.faults_not_perturbed = v.faults_not_perturbed;
    out.time_not_perturbed = v.time_all_null;
    out.time_detected = v.time_all_detected;
    out.blocks = done;
    out.looks = k + 1;
    if (f.decisive || !more_blocks_could_decide(f, plan.spec.max_blocks)) break;
    retire_settled_configs(plan, f, w + done);
  }
  return out;
}

SimRates simulate_rates(const SimSpec& spec, std::size_t replays, std::uint64_t seed) {
  SimRates r;
  r.replays = replays;
  for (std::size_t i = 0; i < replays; ++i) {
    const SimOutcome o = simulate_check(spec, seed, i);
    r.false_time += o.perturbed_time_any_look;
    r.faults_perturbed += o.perturbed_faults_any_look;
    r.faults_not_perturbed += o.faults_not_perturbed;
    r.faults_not_perturbed_any_look += o.faults_not_perturbed_any_look;
    r.time_null += o.time_not_perturbed;
    r.detected += o.time_detected;
    r.mean_blocks += static_cast<double>(o.blocks);
  }
  const double n = static_cast<double>(std::max<std::size_t>(replays, 1));
  r.false_time /= n;
  r.faults_perturbed /= n;
  r.faults_not_perturbed /= n;
  r.faults_not_perturbed_any_look /= n;
  r.time_null /= n;
  r.detected /= n;
  r.mean_blocks /= n;
  return r;
}

}  // namespace obscheck::calibration
