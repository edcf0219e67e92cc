#include "record/plan_file.h"

#include <fmt/core.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/digest.h"
#include "util/error.h"
#include "util/fd.h"

namespace obscheck {
namespace {

std::string shown(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

}  // namespace

std::string plan_digest(const nlohmann::json& options, const nlohmann::json& plan, const TargetInfo& target) {
  // nlohmann::json objects keep their keys sorted, so dump() is canonical.
  const nlohmann::json shared{{"options", options},
                              {"plan", plan},
                              {"target", {{"argv", target.argv}, {"sha256", target.sha256}}}};
  return sha256_hex(shared.dump());
}

nlohmann::json plan_file_json(const PlanFile& p) {
  return {{"type", "plan"},
          {"format", kPlanFormat},
          {"version", kPlanVersion},
          {"obscheck", p.obscheck_version},
          {"created", p.created},
          {"options", p.options},
          {"seed", p.plan.at("seed")},
          {"target", {{"path", p.target.path}, {"argv", p.target.argv}, {"sha256", p.target.sha256}}},
          {"plan", p.plan},
          {"notes", p.notes},
          {"digest", p.digest}};
}

PlanFile plan_file_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object() || j.value("format", "") != kPlanFormat)
    throw Error(ErrorKind::io, fmt::format("{} is not an obscheck plan", path), "write one with obscheck plan -o FILE");
  if (j.value("version", 0) != kPlanVersion)
    throw Error(ErrorKind::io, fmt::format("plan {} has version {}; this obscheck reads version {}", path,
                                           shown(j.value("version", nlohmann::json())), kPlanVersion),
                "run it with the obscheck that wrote it (the plan's \"obscheck\" field)");
  PlanFile p;
  try {
    p.obscheck_version = j.at("obscheck").get<std::string>();
    p.created = j.at("created").get<std::string>();
    p.options = j.at("options");
    p.plan = j.at("plan");
    const nlohmann::json& t = j.at("target");
    p.target = TargetInfo{t.at("path").get<std::string>(), t.at("argv").get<std::vector<std::string>>(),
                          t.at("sha256").get<std::string>()};
    p.notes = j.value("notes", std::vector<std::string>{});
    p.digest = j.at("digest").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::io, fmt::format("plan {} is malformed: {}", path, e.what()));
  }
  if (!p.options.is_object() || !p.plan.is_object() || p.target.argv.empty())
    throw Error(ErrorKind::io, fmt::format("plan {} is malformed: no options, plan or target", path));
  if (plan_digest(p.options, p.plan, p.target) != p.digest)
    throw Error(ErrorKind::io, fmt::format("plan {} was changed after it was written (its digest does not match)", path),
                "write the plan again with obscheck plan; shards of an edited plan could not be merged");
  return p;
}

namespace {

// The plan's bytes: a regular file of at most kMaxPlanBytes, read once. A directory,
// a device (/dev/zero, /dev/urandom), a pipe or a larger file is refused before
// anything is read or allocated.
std::string read_plan_bytes(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) throw Error(ErrorKind::io, fmt::format("cannot read plan {}: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw Error(ErrorKind::io, fmt::format("cannot read plan {}: {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode))
    throw Error(ErrorKind::io, fmt::format("plan {} is a directory", path), "give the plan FILE written by obscheck plan");
  if (!S_ISREG(st.st_mode))
    throw Error(ErrorKind::io, fmt::format("plan {} is not a regular file (a device or a pipe)", path),
                "give the plan FILE written by obscheck plan");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxPlanBytes)
    throw Error(ErrorKind::io, fmt::format("plan {} is {} bytes; a plan is at most {}", path, st.st_size, kMaxPlanBytes),
                "give the plan FILE written by obscheck plan");
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorKind::io, fmt::format("cannot read plan {}: {}", path, std::strerror(errno)));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxPlanBytes)  // grew while read
      throw Error(ErrorKind::io, fmt::format("plan {} is over {} bytes", path, kMaxPlanBytes));
  }
  return text;
}

}  // namespace

PlanFile read_plan_file(const std::string& path) {
  const std::string text = read_plan_bytes(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::io, fmt::format("plan {} is not JSON: {}", path, e.what()));
  }
  return plan_file_from_json(j, path);
}

bool looks_like_plan_file(const std::string& path) {
  try {
    read_plan_file(path);
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::string json_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& at) {
  if (a == b) return "";
  const auto here = [&] { return at.empty() ? std::string("(top)") : at; };
  if (a.is_object() && b.is_object()) {
    for (const auto& [k, v] : a.items()) {
      const std::string path = at.empty() ? k : at + "." + k;
      if (!b.contains(k)) return fmt::format("{}: {} vs (absent)", path, shown(v));
      if (std::string d = json_difference(v, b.at(k), path); !d.empty()) return d;
    }
    for (const auto& [k, v] : b.items())
      if (!a.contains(k)) return fmt::format("{}: (absent) vs {}", at.empty() ? k : at + "." + k, shown(v));
  }
  if (a.is_array() && b.is_array()) {
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      if (std::string d = json_difference(a[i], b[i], fmt::format("{}[{}]", at, i)); !d.empty()) return d;
    return fmt::format("{}: {} vs {} entries", here(), a.size(), b.size());
  }
  return fmt::format("{}: {} vs {}", here(), shown(a), shown(b));
}

nlohmann::json shard_shared_part(const nlohmann::json& manifest) {
  nlohmann::json plan = manifest.at("plan");
  plan.erase("shard");
  const ManifestTarget target = manifest_target(manifest);
  return {{"plan_digest", manifest_plan_digest(manifest)},
          {"plan", plan},
          {"options", manifest.at("options")},
          {"target", {{"argv", target.argv}, {"sha256", target.sha256}}}};
}

}  // namespace obscheck
