#include "observe/variants.h"

#include <sys/stat.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <filesystem>
#include <fstream>

#include "launch/launcher.h"
#include "observe/wrap.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/safe_write.h"
#include "util/text.h"

namespace obscheck {
namespace {

using text::replace_all;

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kMaskPlaceholder = "{mask}";
constexpr std::string_view kOutPlaceholder = "{out}";
// Lines of a failed build's output quoted in the error's hint: enough for a
// compiler's first error and its context, short enough to read in a terminal.
constexpr std::size_t kBuildOutputTailLines = 12;
// The variants are executables another user must not replace between build and run.
constexpr mode_t kVariantDirMode = 0755;

bool template_has(const std::vector<std::string>& words, std::string_view placeholder) {
  for (const auto& w : words)
    if (w.find(placeholder) != std::string::npos) return true;
  return false;
}

std::string tail_lines(std::string_view text, std::size_t n) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::size_t at = text.size();
  for (std::size_t i = 0; i < n && at != std::string_view::npos && at > 0; ++i) at = text.rfind('\n', at - 1);
  return std::string(at == std::string_view::npos ? text : text.substr(at + 1));
}

bool is_regular_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Digests of the files the command names (its inputs), keyed by the word itself.
std::map<std::string, std::string> input_digests(const std::vector<std::string>& command,
                                                 const std::string& out) {
  std::map<std::string, std::string> inputs;
  for (std::size_t i = 1; i < command.size(); ++i)
    if (command[i] != out && is_regular_file(command[i])) inputs[command[i]] = sha256_file(command[i]);
  return inputs;
}

json load_manifest(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return json::object();
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : json::object();  // an unreadable cache is only a cache miss
}

void save_manifest(int dir_fd, const fs::path& dir, const json& j) {
  write_file_at(dir_fd, dir.string(), std::string(kVariantManifest), j.dump(2) + "\n");
}

bool cache_hit(const json& manifest, const std::string& out, const std::vector<std::string>& command) {
  const auto it = manifest.find(out);
  if (it == manifest.end() || !is_regular_file(out)) return false;
  const json& rec = *it;
  return rec.value("command", std::vector<std::string>{}) == command &&
         rec.value("digest", std::string()) == sha256_file(out) &&
         rec.value("inputs", std::map<std::string, std::string>{}) == input_digests(command, out);
}

void run_build(const std::vector<std::string>& command, const std::string& out, int dose) {
  LaunchSpec spec;
  try {
    spec.path = resolve_target(command.front());
  } catch (const Error& e) {
    throw Error(ErrorKind::target, fmt::format("build command: {}", e.what()),
                fmt::format("the command was: {}", quote_command(command)));
  }
  spec.argv = command;
  spec.env = EnvBlock::from_current();
  spec.aslr = true;  // a build is not measured: run it as the shell would
  spec.out = Stdio::capture;
  CorkedChild child = CorkedChild::spawn(spec);
  child.release();
  const ExitInfo exit = child.wait();
  std::string failure;
  if (exit.signal != 0)
    failure = fmt::format("was killed by signal {}", exit.signal);
  else if (exit.exit_code != 0)
    failure = fmt::format("exited with status {}", exit.exit_code);
  else if (!is_regular_file(out))
    failure = fmt::format("exited 0 but did not write {}", out);
  if (failure.empty()) return;
  const std::string tail = tail_lines(exit.output, kBuildOutputTailLines);
  throw Error(ErrorKind::target,
              fmt::format("the build of variant {} (dose {}) {}: {}", out, dose, failure, quote_command(command)),
              tail.empty() ? std::string("it printed nothing") : fmt::format("its output ended with:\n{}", tail));
}

}  // namespace

std::uint64_t probe_mask_for_dose(int k) {
  if (k < 0 || k > kMaxProbeSites)
    throw Error(ErrorKind::usage, fmt::format("{} probe sites: obsprobe.h has ids 0..{}", k, kMaxProbeSites - 1));
  return k == kMaxProbeSites ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1;
}

std::vector<BuildVariant> build_variants(std::string_view build_template, int max_sites,
                                         const std::string& out_dir, bool rebuild) {
  probe_mask_for_dose(max_sites);  // validates the range
  const std::vector<std::string> words = split_command_words(build_template);
  if (words.empty()) throw Error(ErrorKind::usage, "the build command template is empty");
  if (!template_has(words, kMaskPlaceholder) || !template_has(words, kOutPlaceholder))
    throw Error(ErrorKind::usage,
                fmt::format("the build command template needs both {} and {}: {}", kMaskPlaceholder,
                            kOutPlaceholder, build_template),
                "e.g. 'cc -O2 -I<obscheck include dir> -DOBS_PROBES={mask} prog.c -o {out}'");
  // The build command writes each variant by its path, following whatever it finds
  // there: only this user may write in the directory (util/safe_write.h).
  const UniqueFd dir_fd = open_output_dir(out_dir, DirAccess::private_to_us, kVariantDirMode);
  const fs::path dir = fs::absolute(out_dir).lexically_normal();
  const fs::path manifest_file = dir / kVariantManifest;
  json manifest = rebuild ? json::object() : load_manifest(manifest_file);

  std::vector<BuildVariant> variants;
  for (int k = 0; k <= max_sites; ++k) {
    BuildVariant v;
    v.dose = k;
    v.mask = probe_mask_for_dose(k);
    v.path = (dir / fmt::format("variant-{}", k)).string();
    for (const auto& w : words)
      v.command.push_back(replace_all(replace_all(w, kMaskPlaceholder, std::to_string(v.mask)), kOutPlaceholder, v.path));
    v.cached = cache_hit(manifest, v.path, v.command);
    if (!v.cached) {
      std::error_code rm;
      fs::remove(v.path, rm);  // a stale output must not pass for a fresh one
      run_build(v.command, v.path, k);
    }
    v.digest = sha256_file(v.path);
    manifest[v.path] = {{"command", v.command},
                        {"digest", v.digest},
                        {"inputs", input_digests(v.command, v.path)},
                        {"dose", k},
                        {"mask", v.mask}};
    save_manifest(dir_fd.get(), dir, manifest);  // after each build, so an interrupted sweep keeps the rest
    variants.push_back(std::move(v));
  }
  return variants;
}

std::uint64_t ProbeCounts::total() const {
  std::uint64_t t = 0;
  for (const auto& [id, n] : counts) t += n;
  return t;
}

ProbeCounts parse_probe_dump(std::string_view text) {
  constexpr std::string_view kHead = "obsprobe mask=";
  const auto head = text.find(kHead);
  if (head == std::string_view::npos || (head > 0 && text[head - 1] != '\n'))
    throw Error(ErrorKind::target, "the program wrote no probe counts (no 'obsprobe mask=' line)",
                "build it with probes/obsprobe.h and let it exit normally (return from main or exit())");
  auto parse_u64 = [&](std::string_view s) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
      throw Error(ErrorKind::target, fmt::format("malformed probe count line near '{}'", s));
    return v;
  };
  std::string_view rest = text.substr(head + kHead.size());
  auto next_line = [&] {
    const auto nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    return line;
  };
  ProbeCounts pc;
  pc.mask = parse_u64(next_line());
  for (int expected = 0; expected < kMaxProbeSites; ++expected) {
    if (!((pc.mask >> expected) & 1)) continue;
    const std::string_view line = next_line();
    const auto sp = line.find(' ');
    if (sp == std::string_view::npos || parse_u64(line.substr(0, sp)) != static_cast<std::uint64_t>(expected))
      throw Error(ErrorKind::target, fmt::format("probe counts: expected a line for id {}, got '{}'", expected, line));
    pc.counts[expected] = parse_u64(line.substr(sp + 1));
  }
  return pc;
}

}  // namespace obscheck
