#include "run/measurer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "observe/counters.h"
#include "observe/inprocess.h"
#include "observe/lifetime.h"
#include "observe/observer_kinds.h"
#include "observe/probes.h"
#include "observe/sampling.h"
#include "observe/sim.h"
#include "observe/wrap.h"
#include "run/host_sample.h"
#include "run/measure.h"
#include "run/signals.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

// The counters a level programs, its {groups} kept: the metrics of its runs.
EventSet metric_events(const CheckSpec& spec, const Level& level) {
  EventSet metrics;
  for (std::size_t item : level.programmed) {
    std::vector<std::size_t> group;
    for (std::size_t e : spec.item_events.at(item)) {
      group.push_back(metrics.events.size());
      metrics.events.push_back(spec.events.events.at(e));
    }
    metrics.groups.push_back(std::move(group));
  }
  return metrics;
}

// The host's load around a run (other processes' CPU time, the run queue): read while
// the target is corked, and once it is reaped.
class HostLoad {
 public:
  explicit HostLoad(long ticks_per_second) : ticks_(ticks_per_second) {}
  void before() { before_ = read_proc_stat(); }
  void after(RunRecord& rec) const {
    const std::optional<ProcStat> after = read_proc_stat();
    if (before_ && after) rec.host = host_load(*before_, *after, rec.exit.usage, ticks_);
  }

 private:
  std::optional<ProcStat> before_;
  long ticks_;
};

class SimMeasurer final : public Measurer {
 public:
  SimMeasurer(const Plan& plan, const CheckSpec& spec, SimGeometry geometry)
      : spec_(spec), geometry_(std::move(geometry)) {
    for (const Configuration& c : plan.configs) {
      simulated_.emplace_back();
      for (std::size_t e : event_indexes(spec, c.level.programmed)) simulated_.back().push_back(spec.sim_events.at(e));
    }
  }
  bool measure(std::size_t config, LaunchSpec& launch, RunRecord& rec) override {
    HostLoad host(ticks_);
    try {
      host.before();
      SimRun run = run_sim_interruptible(launch, geometry_, simulated_.at(config));
      rec.exit = std::move(run.exit);
      rec.readings = std::move(run.readings);
      host.after(rec);
    } catch (const Error& e) {
      if (InterruptGuard::interrupted()) return false;  // valgrind killed by us: no counts, not a failure
      if (e.kind() != ErrorKind::target_failed) throw;
      // A simulation that timed out is journalled as a native one would be: a failed
      // run without counts, which ends the sweep unless failures are ignored.
      rec.exit.timed_out = true;
      rec.exit.wall_ns = static_cast<std::uint64_t>(spec_.base.timeout_s * 1e9);
    }
    return !InterruptGuard::interrupted();  // killed by us mid-run: not a measurement
  }

 private:
  const CheckSpec& spec_;
  SimGeometry geometry_;
  const long ticks_ = clock_ticks_per_second();  // once per check
  std::vector<std::vector<SimEvent>> simulated_;
};

// perf_event, from outside the target or from inside it.
class PerfMeasurer final : public Measurer {
 public:
  PerfMeasurer(const Plan& plan, const CheckSpec& spec, const Observer& observer)
      : spec_(spec), observer_(observer), plan_(plan) {
    for (const Configuration& c : plan.configs) {
      programmed_.push_back(event_indexes(spec, c.level.programmed));
      own_.emplace_back();
      sets_.push_back(concat_events(metric_events(spec, c.level), observer.events(c.level), &own_.back()));
    }
  }

  bool measure(std::size_t config, LaunchSpec& launch, RunRecord& rec) override {
    const bool inside = spec_.mode == CountingMode::inprocess;
    ResultPipe pipe;
    launch.pass_fds.clear();
    if (inside) {
      pipe = make_result_pipe();
      launch.pass_fds.push_back({pipe.write_end.get(), kInprocessResultFd});
    }
    CorkedChild child = CorkedChild::spawn(launch);
    pipe.write_end.reset();  // the child holds its copy; EOF once it is gone
    InterruptGuard::set_current_group(child.pid());
    CounterSet counters;
    if (!inside) counters = CounterSet::open(child.pid(), sets_[config]);
    const Level& level = plan_.configs.at(config).level;
    std::unique_ptr<Attachment> watching = observer_.attach(child.pid(), level);
    HostLoad host(ticks_);
    host.before();
    if (watching) watching->start();
    child.release();
    rec.exit = child.wait();
    if (watching) watching->collect(rec);
    host.after(rec);
    InterruptGuard::set_current_group(-1);
    if (InterruptGuard::interrupted()) return false;  // killed by us mid-run: not a measurement
    if (!inside) {
      rec.readings = counters.read(rec.exit.wall_ns);
      observer_.collect(rec, sets_[config], own_[config]);
    } else if (const std::string text = drain_result(pipe.read_end.get()); rec.exit.ok() || !text.empty()) {
      // A failed run without a result has nothing to read; a successful one must have one.
      rec.readings = match_inprocess_readings(parse_inprocess_result(text, spec_.base.argv.at(0)), spec_.events,
                                              programmed_[config]);
    }
    return true;
  }

 private:
  const CheckSpec& spec_;
  const long ticks_ = clock_ticks_per_second();  // once per check
  const Observer& observer_;
  const Plan& plan_;
  std::vector<std::vector<std::size_t>> programmed_, own_;
  std::vector<EventSet> sets_;
};

// The target's own output under a profiler command, read on a thread from the pipe
// obscheck-exec gives it: digest, size, first bytes. Stops at EOF, or once told the run
// is over and the pipe is empty (a daemon left holding the pipe cannot stall it).
class TargetOutput {
 public:
  explicit TargetOutput(UniqueFd read_end) : fd_(std::move(read_end)), reader_([this] { read_all(); }) {}
  ~TargetOutput() { finish(); }
  void finish() {
    over_ = true;
    if (reader_.joinable()) reader_.join();
  }
  void into(ExitInfo& exit) {
    finish();
    exit.output_digest = hash_.hex();
    exit.output_bytes = bytes_;
    exit.output = head_;
  }

 private:
  void read_all() {
    std::array<char, 65536> buf;
    for (;;) {
      pollfd p{fd_.get(), POLLIN, 0};
      const int ready = ::poll(&p, 1, 50);
      if (ready < 0 && errno != EINTR) return;
      if (ready <= 0) {
        if (over_) return;
        continue;
      }
      const ssize_t n = ::read(fd_.get(), buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      hash_.update(buf.data(), static_cast<std::size_t>(n));
      bytes_ += static_cast<std::uint64_t>(n);
      if (head_.size() < kHeadBytes) head_.append(buf.data(), std::min(kHeadBytes - head_.size(), std::size_t(n)));
    }
  }
  static constexpr std::size_t kHeadBytes = 4096;
  UniqueFd fd_;
  Sha256 hash_;
  std::uint64_t bytes_ = 0;
  std::string head_;
  std::atomic<bool> over_{false};
  std::thread reader_;
};

// When the target under a profiler command exits: a pidfd (which any process may poll,
// not only the parent) becomes readable once the target has exited, before its parent
// (the profiler) reaps it. Watched on a thread so that the profiler's own wait and
// post-processing are not counted in the target's time. A task's counters cannot tell
// this: their time_enabled runs only while the task is on a CPU (its CPU time, not
// its wall time). The time is taken when the watcher wakes, so a loaded host adds its
// wake-up latency (the same at every level, the bare one included).
class ExitWatch {
 public:
  explicit ExitWatch(UniqueFd pidfd) : fd_(std::move(pidfd)) {
    if (fd_.get() >= 0) thread_ = std::thread([this] { watch(); });
  }
  ~ExitWatch() { finish(); }
  // The time the target exited, once the run is over; nullopt when it was not seen.
  std::optional<std::chrono::steady_clock::time_point> finish() {
    over_ = true;
    if (thread_.joinable()) thread_.join();
    return exited_;
  }

 private:
  void watch() {
    for (;;) {
      pollfd p{fd_.get(), POLLIN, 0};
      const int ready = ::poll(&p, 1, 50);
      if (ready > 0) {
        exited_ = std::chrono::steady_clock::now();
        return;
      }
      if ((ready < 0 && errno != EINTR) || over_) return;
    }
  }
  UniqueFd fd_;
  std::optional<std::chrono::steady_clock::time_point> exited_;
  std::atomic<bool> over_{false};
  std::thread thread_;
};

// Under a profiler command the counters describe the target alone: the wrapper runs
// obscheck-exec (run/observers.h CommandObserver), which reports its pid over a socket
// and waits; the counters are opened on it, armed to start at its exec of the target,
// and it is let go. obscheck-exec stays the process that execs the target, so a
// tracer of its child (strace, ltrace without -f) sees exactly the target. The
// target's output comes back on a pipe of its own, so the profiler's messages are not
// compared. The run's wall time is the target's own: from its exec to its exit by the
// kernel's records (observe/lifetime.h; the run's ProfilerCost (record/run_record.h)
// target_wall_from "kernel"), else from the moment it is let go to exec until a pidfd
// shows it exited (ExitWatch; "pidfd"); the whole command's goes to command_wall_ns
// (with neither, the wall time stays the command's and wall_of_command says so). Where
// a profiler runs (not level 0), its own cost goes beside the metrics, as the dose's
// side effect: profiler_ns (the command's wall time less the target's),
// profiler_cpu_ns (the reaped command's CPU time less the target's task-clock, when it
// is counted) and profiler_samples (what the profiler says it took, when its output
// says: profiler_reported_samples; and profiler_rate_hz, those samples over the
// target's task-clock). Every run records max_sample_rate, the kernel's limit after
// it: a drop marks throttling.
class CommandMeasurer final : public Measurer {
 public:
  CommandMeasurer(const Plan& plan, const CheckSpec& spec) : spec_(spec) {
    for (const Configuration& c : plan.configs) {
      sets_.push_back(metric_events(spec, c.level));
      const std::optional<std::string> wrap = wrap_word(c.level);
      wrapped_.push_back(wrap && *wrap != kUnwrappedLevel);
    }
  }

  bool measure(std::size_t config, LaunchSpec& launch, RunRecord& rec) override {
    int sv[2], pipe_fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || ::pipe2(pipe_fds, O_CLOEXEC) != 0)
      throw Error(ErrorKind::host, std::string("cannot create the target's control socket: ") + std::strerror(errno));
    UniqueFd control(sv[0]), control_child(sv[1]), out_read(pipe_fds[0]), out_write(pipe_fds[1]);
    launch.pass_fds = {{control_child.get(), kExecControlFd}, {out_write.get(), kExecOutputFd}};
    CorkedChild child = CorkedChild::spawn(launch);
    control_child.reset();
    out_write.reset();
    InterruptGuard::set_current_group(child.pid());
    TargetOutput output(std::move(out_read));
    HostLoad host(ticks_);
    host.before();
    child.release();
    CounterSet counters;
    LifetimeWatch lifetime;  // exec and exit by the kernel's clock, the first choice
    std::optional<ExitWatch> exit_watch;
    std::optional<std::chrono::steady_clock::time_point> go_at;
    const pid_t target = target_pid(control.get(), spec_.base.timeout_s);
    if (target > 0) {
      counters = open_on_target(child, target, config);
      lifetime = LifetimeWatch::open(target);
      UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, target, 0)));
      const bool watched = pidfd.get() >= 0;
      exit_watch.emplace(std::move(pidfd));
      if (watched) go_at = std::chrono::steady_clock::now();
      const char go = 'g';
      if (::write(control.get(), &go, 1) != 1) child.kill_group();
    } else {
      child.kill_group();
    }
    control.reset();
    rec.exit = child.wait();
    const auto exited_at = exit_watch ? exit_watch->finish() : std::nullopt;
    std::optional<std::uint64_t> target_wall = lifetime.exec_to_exit();
    const char* wall_from = nullptr;  // ProfilerCost::target_wall_from
    if (target_wall) {
      wall_from = "kernel";
    } else if (go_at && exited_at && *exited_at >= *go_at) {
      target_wall = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(*exited_at - *go_at).count());
      wall_from = "pidfd";
    }
    const std::string profiler_output = rec.exit.output;  // the profiler's messages (when captured)
    output.into(rec.exit);
    host.after(rec);
    InterruptGuard::set_current_group(-1);
    if (InterruptGuard::interrupted()) return false;  // killed by us mid-run: not a measurement
    if (target <= 0)
      throw Error(ErrorKind::target_failed,
                  "the profiler command exited (" + describe_exit(rec.exit, spec_.base.timeout_s) +
                      ") without starting the target" + own_words(profiler_output),
                  "the template must run the program it is given: end it with -- (e.g. 'perf record -F {level} -o "
                  "/dev/null --'), or place {argv} where the program goes");
    rec.readings = counters.read();
    ProfilerCost& cost = rec.profiler.emplace();
    if (wall_from) cost.target_wall_from = wall_from;
    record_costs(rec, cost, profiler_output, target_wall, wrapped_.at(config));
    return true;
  }

 private:
  // What the profiler command printed before it gave up (its own reason: "unknown
  // option", "command not found"), its last lines up to a few hundred bytes, as
  // "; it said: ..."; "" when it printed nothing or its output was not captured.
  static std::string own_words(const std::string& output) {
    constexpr std::size_t kShown = 400;
    std::string said = output;
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (said.empty()) return {};
    if (said.size() > kShown) said = "…" + said.substr(said.size() - kShown);
    for (char& c : said)
      if (c == '\n' || (static_cast<unsigned char>(c) < 0x20 && c != '\t')) c = ' ';
    return "; it said: " + said;
  }

  // The target's own wall time in place of the command's, and the profiler's own cost
  // beside it (see the class comment). A run whose target's exit was not seen keeps the
  // command's, and says so.
  static void record_costs(RunRecord& rec, ProfilerCost& cost, const std::string& profiler_output,
                           std::optional<std::uint64_t> target_wall, bool wrapped) {
    if (const std::uint64_t rate = read_max_sample_rate(); rate > 0) cost.max_sample_rate = rate;
    if (!target_wall) {
      cost.wall_of_command = true;
      return;
    }
    // The watcher's wake-up may come after the reaping on a loaded host: the target
    // never outlasts the command that holds it.
    const std::uint64_t command_ns = rec.exit.wall_ns, target_ns = std::min(*target_wall, command_ns);
    cost.command_wall_ns = command_ns;
    rec.exit.wall_ns = target_ns;
    if (!wrapped) return;  // no profiler ran: no cost of one to report
    cost.profiler_ns = command_ns > target_ns ? command_ns - target_ns : 0;
    for (const Reading& r : rec.readings)
      if (r.name == "task-clock" && r.fault.empty()) {
        const double command_cpu = rusage_ns(timeval_ns(rec.exit.usage.ru_utime) + timeval_ns(rec.exit.usage.ru_stime));
        cost.profiler_cpu_ns = std::max(0.0, command_cpu - r.value);
      }
    const auto samples = profiler_reported_samples(profiler_output);
    if (!samples) return;
    cost.profiler_samples = *samples;
    // The rate achieved: samples over the target's CPU time, what a CPU-clock sampler
    // of one process samples (its wall time, for a target that sleeps, would understate it).
    for (const Reading& r : rec.readings)
      if (r.name == "task-clock" && r.fault.empty() && r.value > 0)
        cost.profiler_rate_hz = static_cast<double>(*samples) / (r.value * 1e-9);
  }

  // The counters on the target, which waits for them. A target the profiler killed
  // meanwhile (gdb's batch mode ends at a breakpoint's first stop and kills it) is a
  // failed run of the command, not an event this host cannot count.
  CounterSet open_on_target(CorkedChild& child, pid_t target, std::size_t config) {
    try {
      return CounterSet::open(target, sets_[config]);
    } catch (const Error&) {
      if (!process_gone(target)) throw;
      child.kill_group();
      const ExitInfo exit = child.wait();
      InterruptGuard::set_current_group(-1);
      throw Error(ErrorKind::target_failed,
                  fmt::format("the profiler command ended the target (pid {}) before it ran; the command {}", target,
                              describe_exit(exit, spec_.base.timeout_s)),
                  "a debugger in batch mode kills its program at the first stop: use a breakpoint that does not stop "
                  "(gdb: dprintf) or let the program run to its end");
    }
  }

  // Whether `pid` has exited (reaped or a zombie).
  static bool process_gone(pid_t pid) {
    if (::kill(pid, 0) != 0) return errno == ESRCH;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && (text[close + 2] == 'Z' || text[close + 2] == 'X');
  }

  // The pid obscheck-exec reports once the wrapper has started it; 0 when the wrapper
  // ended (or the run was interrupted) without starting it.
  static pid_t target_pid(int control, double timeout_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      if (InterruptGuard::interrupted()) return 0;
      if (timeout_s > 0 && std::chrono::steady_clock::now() > deadline) return 0;
      pollfd p{control, POLLIN, 0};
      const int ready = ::poll(&p, 1, 50);
      if (ready < 0 && errno != EINTR) return 0;
      if (ready <= 0) continue;
      pid_t pid = 0;
      const ssize_t n = ::read(control, &pid, sizeof pid);
      if (n == static_cast<ssize_t>(sizeof pid)) return pid;
      return 0;  // EOF: every copy of the socket is closed, so nothing will start the target
    }
  }

  const CheckSpec& spec_;
  const long ticks_ = clock_ticks_per_second();  // once per check
  std::vector<EventSet> sets_;
  std::vector<bool> wrapped_;  // per configuration: a profiler runs (its level is not "0")
};

}  // namespace

std::unique_ptr<Measurer> make_sim_measurer(const Plan& plan, const CheckSpec& spec, const SimGeometry& geometry) {
  return std::make_unique<SimMeasurer>(plan, spec, geometry);
}

std::unique_ptr<Measurer> make_native_measurer(const Plan& plan, const CheckSpec& spec, const Observer& observer) {
  // A wrapped target is counted from its own exec (obscheck-exec), not from the wrapper's.
  if (observer_info(spec.observer.kind).attach == Attach::wraps_launch)
    return std::make_unique<CommandMeasurer>(plan, spec);
  return std::make_unique<PerfMeasurer>(plan, spec, observer);
}

}  // namespace obscheck
