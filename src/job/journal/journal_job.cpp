#include "job/journal/journal_job.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/core.h>

#include <chrono>

#include "record/journal.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/fd.h"

namespace obscheck {
namespace {

// A manifest holds the host, the options, the environment's names and the plan: far
// below this; a longer first line is no manifest and is left to load_journal.
constexpr std::size_t kMaxManifestBytes = 16 * 1024 * 1024;

// "a bias's", "a check's": whose journal `manifest` is, for a refusal.
std::string whose(const nlohmann::json& manifest) {
  const std::optional<JobKind> k = job_kind_of(manifest);
  return k && is_sweep(*k) ? fmt::format("a {}'s", to_string(*k)) : std::string("a check's");
}

void refuse_other_sweep(const std::string& path, const nlohmann::json& m, JobKind kind) {
  const std::optional<JobKind> recorded = job_kind_of(m);
  if (!recorded || !is_sweep(*recorded))
    throw Error(ErrorKind::usage, fmt::format("{} is not the journal of a bias or compare", path),
                "continue it with obscheck --resume " + path);
  if (*recorded != kind)
    throw Error(ErrorKind::usage, fmt::format("{} is the journal of a {}", path, to_string(*recorded)),
                fmt::format("continue it with obscheck {} --resume {}", to_string(*recorded), path));
}

}  // namespace

nlohmann::json job_manifest(JobKind kind, const nlohmann::json& host, nlohmann::json options, const LaunchSpec& launch,
                            const std::string& sha256, const Plan& plan) {
  ManifestInput in;
  in.obscheck_version = OBSCHECK_VERSION;
  in.created = std::chrono::system_clock::now();
  in.host = host;
  in.options = std::move(options);
  in.target = TargetInfo{launch.path, launch.argv, sha256};
  in.env = launch.env.vars();
  nlohmann::json manifest = make_manifest(in, plan);
  put_job_kind(manifest, kind);
  return manifest;
}

nlohmann::json read_manifest_line(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return nullptr;
  std::string line;
  char buf[65536];
  while (line.size() < kMaxManifestBytes) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<std::size_t>(n));
    if (line.find('\n') != std::string::npos) break;
  }
  const auto nl = line.find('\n');
  if (nl == std::string::npos) return nullptr;
  line.resize(nl);
  nlohmann::json m = nlohmann::json::parse(line, nullptr, false);
  if (!has_manifest_options(m)) return nullptr;
  return m;
}

nlohmann::json manifest_to_resume(const std::string& path, JobKind kind) {
  nlohmann::json m = read_manifest_line(path);
  if (m.is_null()) return m;
  if (is_sweep(kind)) refuse_other_sweep(path, m, kind);
  if (kind == JobKind::measure && job_kind_of(m) != JobKind::measure)
    throw Error(ErrorKind::usage, fmt::format("{} is {} journal, not a measure's", path, whose(m)),
                "continue it with obscheck --resume " + path);
  return m;
}

void refuse_changed_binary(const nlohmann::json& manifest, const std::string& path, const std::string& what) {
  if (sha256_file(path) != manifest_target(manifest).sha256)
    throw Error(ErrorKind::usage, path + " has changed since the journal was started (sha256 differs)",
                "a resumed " + what + " must run the same binary; start a new " + what + " instead");
}

void refuse_changed_environment(const nlohmann::json& manifest, const EnvBlock& env, const std::string& what) {
  if (const std::string why = env_difference(manifest_env(manifest), env_summary(env.vars())); !why.empty())
    throw Error(ErrorKind::usage, "this environment differs from the journal's: " + why + "; the target's layout would move",
                "resume with the environment the " + what + " was started with, or start a new " + what +
                    " (without --resume)");
}

JobKind journal_kind(const std::string& path) {
  return job_kind_of(read_manifest_line(path)).value_or(JobKind::check);
}

}  // namespace obscheck
