// tests: a fake backend for the check's loop (run/session.h). Its measurer starts no
// process and opens no counter: each run's wall time, rusage and counter readings come
// from a seeded generator keyed by the run's index, scaled by its configuration's
// effect, so a session's looks, stops and retirements are the same on every host and
// every repetition. Its clock moves only when a run is measured, so a time budget ends
// a check at an exact look. Tests only: nothing in src/ can reach it.
#pragma once

#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numbers>
#include <vector>

#include "plan/plan.h"
#include "record/run_record.h"
#include "run/check.h"
#include "run/measurer.h"
#include "run/session.h"
#include "util/splitmix64.h"

namespace obscheck::test {

// A clock that reads what it was told: the session's pace, budget and notes' seconds.
class FakeClock {
 public:
  void advance(double seconds) { ns_ += static_cast<std::int64_t>(std::llround(seconds * 1e9)); }
  std::chrono::steady_clock::time_point now() const {
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns_));
  }
  SessionClock fn() const {
    return [this] { return now(); };
  }

 private:
  std::int64_t ns_ = 0;
};

// What the fake measures, and what it does besides.
struct FakeScript {
  std::uint64_t seed = 1;
  double wall_ns = 1e8;        // every metric's centre, before the configuration's effect
  double noise = 0.01;         // every metric's spread: the sd of its logarithm
  std::vector<double> effect;  // by configuration: every metric times this (missing: 1)
  double seconds_per_run = 0.25;  // the fake clock's step for each run measured
  // The n-th call (from 1, over every measurer the backend made) exits 1 / is cut by
  // SIGINT, as a real target or Ctrl-C would: 0 never.
  std::size_t fail_at_call = 0;
  std::size_t interrupt_at_call = 0;
};

// The fake's account of what it was asked, shared by every measurer it makes (a
// session makes one per stretch of runs).
struct FakeLedger {
  std::size_t calls = 0;
  std::vector<std::size_t> calls_per_config;
};

// A standard normal from the run's index and the seed alone (Box-Muller over two
// SplitMix64 draws): a run's values do not depend on which runs came before it.
inline double fake_normal(std::uint64_t seed, std::size_t index, std::size_t stream) {
  std::uint64_t state = seed ^ (static_cast<std::uint64_t>(index) * 0x100000001B3ull) ^ (stream << 48);
  const double u1 = (static_cast<double>(splitmix64_next(state) >> 11) + 0.5) * 0x1.0p-53;
  const double u2 = static_cast<double>(splitmix64_next(state) >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

class FakeMeasurer final : public Measurer {
 public:
  FakeMeasurer(const Plan& plan, const FakeScript& script, FakeLedger& ledger, FakeClock& clock)
      : plan_(plan), script_(script), ledger_(ledger), clock_(clock) {
    if (ledger_.calls_per_config.size() < plan.configs.size()) ledger_.calls_per_config.resize(plan.configs.size());
  }

  bool measure(std::size_t config, LaunchSpec&, RunRecord& rec) override {
    ++ledger_.calls;
    ++ledger_.calls_per_config.at(config);
    clock_.advance(script_.seconds_per_run);
    if (ledger_.calls == script_.interrupt_at_call) {
      ::raise(SIGINT);  // the runner's handler (run/signals.h) is installed: it sets the flag
      return false;     // a run cut by the interrupt is no measurement
    }
    const double effect = config < script_.effect.size() ? script_.effect[config] : 1.0;
    std::size_t stream = 0;
    // Log-normal: a run's time is never negative, and an effect is a ratio.
    auto value = [&] { return script_.wall_ns * effect * std::exp(script_.noise * fake_normal(script_.seed, rec.index, stream++)); };
    rec.exit.exit_code = ledger_.calls == script_.fail_at_call ? 1 : 0;
    rec.exit.wall_ns = static_cast<std::uint64_t>(value());
    rec.exit.usage.ru_utime = timeval_of(value() * 0.9);
    rec.exit.usage.ru_stime = timeval_of(value() * 0.1);
    rec.exit.usage.ru_maxrss = static_cast<long>(value() / 1e3);
    rec.exit.pre_exec_maxrss_kb = 1;  // as a launch records it: the fake's peak is its own, above the driver's
    rec.exit.usage.ru_minflt = static_cast<long>(value() / 1e4);
    rec.exit.usage.ru_nvcsw = static_cast<long>(value() / 1e4);
    rec.exit.usage.ru_nivcsw = static_cast<long>(value() / 1e4);
    for (std::size_t item : plan_.configs.at(config).level.programmed) {
      const double v = value();
      Reading r;
      r.name = plan_.spec.counters.at(item);
      r.raw = static_cast<std::uint64_t>(v);
      r.time_enabled = r.time_running = 1000;
      r.value = static_cast<double>(r.raw);
      rec.readings.push_back(r);
    }
    return true;
  }

 private:
  static timeval timeval_of(double ns) {
    const auto us = static_cast<long>(ns / 1e3);
    return timeval{us / 1000000, us % 1000000};
  }
  const Plan& plan_;
  const FakeScript& script_;
  FakeLedger& ledger_;
  FakeClock& clock_;
};

// The backend's part a session needs: its measurers and its clock.
// Not copyable: the session's measurer and clock point into it.
struct FakeBackend {
  FakeBackend() = default;
  FakeBackend(const FakeBackend&) = delete;
  FakeBackend& operator=(const FakeBackend&) = delete;

  FakeScript script;
  FakeLedger ledger;
  FakeClock clock;

  // Puts the fake in `s`'s place of measuring and of reading the time.
  void install(Session& s) {
    s.measurer = [this](const Plan& plan, const CheckSpec&, const Observer&) -> std::unique_ptr<Measurer> {
      return std::make_unique<FakeMeasurer>(plan, script, ledger, clock);
    };
    s.clock = clock.fn();
  }
};

}  // namespace obscheck::test
