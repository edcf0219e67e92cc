#include "run/link_order.h"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "launch/launcher.h"
#include "run/measure.h"
#include "stats/rng.h"
#include "util/digest.h"
#include "observe/wrap.h"
#include "util/error.h"

namespace obscheck {

std::vector<std::string> expand_link_command(const std::vector<std::string>& words,
                                             const std::vector<std::string>& objects,
                                             const std::string& out) {
  std::vector<std::string> argv;
  bool saw_objects = false, saw_out = false;
  for (const std::string& w : words) {
    if (w == "{objects}") {
      argv.insert(argv.end(), objects.begin(), objects.end());
      saw_objects = true;
      continue;
    }
    std::string expanded = w;
    for (std::size_t at; (at = expanded.find("{out}")) != std::string::npos;) {
      expanded.replace(at, 5, out);
      saw_out = true;
    }
    argv.push_back(std::move(expanded));
  }
  if (!saw_objects || !saw_out)
    throw Error(ErrorKind::usage,
                fmt::format("the link command needs {} as a word of its own and {} for the output",
                            "{objects}", "{out}"),
                "e.g. --link 'cc -O2 {objects} -o {out}'");
  return argv;
}

std::vector<std::vector<std::size_t>> link_permutations(std::size_t n, std::size_t count,
                                                        std::uint64_t seed) {
  if (count == 0) throw Error(ErrorKind::usage, "--link-orders must be at least 1");
  // n! grows fast: stop computing once it exceeds what was asked for.
  std::size_t distinct = 1;
  for (std::size_t k = 2; k <= n && distinct < count; ++k) distinct *= k;
  if (count > distinct)
    throw Error(ErrorKind::usage,
                fmt::format("{} objects have only {} distinct link orders, {} were asked for", n, distinct,
                            count));
  std::vector<std::size_t> identity(n);
  for (std::size_t i = 0; i < n; ++i) identity[i] = i;
  std::vector<std::vector<std::size_t>> orders{identity};
  std::set<std::vector<std::size_t>> seen{identity};
  stats::Rng rng(seed);
  while (orders.size() < count) {
    std::vector<std::size_t> p = identity;
    for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng.index(i)]);
    if (seen.insert(p).second) orders.push_back(std::move(p));
  }
  return orders;
}

std::string tail_lines(const std::string& text, std::size_t max_lines) {
  std::size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n') --end;
  std::size_t start = end;
  for (std::size_t lines = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++lines == max_lines) break;
  }
  return text.substr(start, end - start);
}

namespace {

// Lines of linker output kept in a failure message: enough for "undefined reference
// to ..." plus the collect2 line, short enough to read in a report.
constexpr std::size_t kLinkerTailLines = 8;

std::string link_one(const LinkSpec& spec, const std::vector<std::string>& argv) {
  LaunchSpec launch;
  launch.argv = argv;
  launch.env = EnvBlock::from_current();
  launch.aslr = true;  // the linker is not being measured
  launch.timeout_s = spec.timeout_s;
  launch.out = Stdio::capture;
  try {
    launch.path = resolve_target(argv.at(0));
    CorkedChild child = CorkedChild::spawn(launch);
    child.release();
    const ExitInfo exit = child.wait();
    if (exit.ok()) return {};
    const std::string tail = tail_lines(exit.output, kLinkerTailLines);
    return fmt::format("the link command {}{}", describe_exit(exit, spec.timeout_s),
                       tail.empty() ? "" : ":\n" + tail);
  } catch (const Error& e) {
    return fmt::format("the link command could not run: {}", e.what());
  }
}

}  // namespace

std::vector<LinkVariant> build_link_variants(const LinkSpec& spec) {
  const std::vector<std::string> words = split_command_words(spec.command);
  if (words.empty()) throw Error(ErrorKind::usage, "--link is empty", "e.g. --link 'cc -O2 {objects} -o {out}'");
  if (spec.objects.empty()) throw Error(ErrorKind::usage, "--link needs --objects a.o,b.o,...");
  expand_link_command(words, spec.objects, "x");  // validate the template once, up front
  std::vector<LinkVariant> variants;
  const auto orders = link_permutations(spec.objects.size(), spec.orders, spec.seed);
  for (std::size_t k = 0; k < orders.size(); ++k) {
    LinkVariant v;
    v.order = k;
    v.permutation = orders[k];
    for (std::size_t i : orders[k]) v.objects.push_back(spec.objects[i]);
    v.binary = fmt::format("{}/order-{}", spec.dir, k);
    v.command = expand_link_command(words, v.objects, v.binary);
    v.failure = link_one(spec, v.command);
    if (v.ok() && access(v.binary.c_str(), X_OK) != 0)
      v.failure = fmt::format("the link command succeeded but wrote no executable {}", v.binary);
    if (v.ok()) v.sha256 = sha256_file(v.binary);
    if (!v.ok()) v.failure += fmt::format("\n  command: {}", fmt::join(v.command, " "));
    variants.push_back(std::move(v));
  }
  return variants;
}

}  // namespace obscheck
