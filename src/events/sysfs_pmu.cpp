#include "events/sysfs_pmu.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "events/did_you_mean.h"
#include "util/error.h"
#include "util/text.h"

namespace obscheck {
namespace {

using text::trim;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return trim(ss.str());
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (true) {
    const auto pos = s.find(sep);
    out.push_back(trim(s.substr(0, pos)));
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

int parse_int(std::string_view s, std::string_view what) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size())
    throw Error(ErrorKind::event, fmt::format("malformed {}: '{}'", what, s));
  return v;
}

std::uint64_t parse_value(std::string_view term, std::string_view v) {
  int base = 10;
  if (v.starts_with("0x") || v.starts_with("0X")) {
    base = 16;
    v.remove_prefix(2);
  }
  std::uint64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  if (v.empty() || ec != std::errc{} || p != v.data() + v.size())
    throw Error(ErrorKind::event, fmt::format("term '{}': '{}' is not a number", term, v));
  return out;
}

__u64& config_word(perf_event_attr& a, const std::string& word) {
  if (word == "config") return a.config;
  if (word == "config1") return a.config1;
  return a.config2;
}

void place(perf_event_attr& attr, const FormatField& f, std::uint64_t value, std::string_view pmu) {
  const int w = f.width();
  if (w < 64 && (value >> w) != 0)
    throw Error(ErrorKind::event, fmt::format("{}/{}=0x{:x}/: the value does not fit the term's {} bits",
                                              pmu, f.name, value, w));
  __u64& word = config_word(attr, f.word);
  for (const auto& [lo, hi] : f.ranges) {
    const int n = hi - lo + 1;
    const std::uint64_t mask = n == 64 ? ~0ull : ((1ull << n) - 1);
    word = (word & ~(mask << lo)) | ((value & mask) << lo);
    value = n == 64 ? 0 : value >> n;
  }
}

void apply_terms(perf_event_attr& attr, const SysfsPmu& pmu, std::string_view terms, int depth) {
  for (const auto& term : split(terms, ',')) {
    if (term.empty()) continue;
    const auto eq = term.find('=');
    const std::string key = trim(term.substr(0, eq));
    const std::string val = eq == std::string::npos ? "" : trim(term.substr(eq + 1));
    if (eq == std::string::npos && depth == 0) {
      if (auto ev = pmu.events.find(key); ev != pmu.events.end()) {
        apply_terms(attr, pmu, ev->second, depth + 1);
        continue;
      }
    }
    const std::uint64_t v = eq == std::string::npos ? 1 : parse_value(key, val);
    if (key == "config" || key == "config1" || key == "config2") {
      config_word(attr, key) = v;
    } else if (key == "period") {
      // Sysfs event aliases carry a suggested sampling period; counting ignores it.
    } else if (auto f = pmu.formats.find(key); f != pmu.formats.end()) {
      place(attr, f->second, v, pmu.name);
    } else {
      std::vector<std::string> names;
      for (const auto& [n, _] : pmu.formats) names.push_back(n);
      for (const auto& [n, _] : pmu.events) names.push_back(n);
      throw Error(ErrorKind::event,
                  fmt::format("PMU '{}' has no format term or event '{}'{}", pmu.name, key,
                              did_you_mean_suffix(key, names)),
                  fmt::format("see {} terms in format/ and events/ of its sysfs directory", pmu.name));
    }
  }
}

}  // namespace

int FormatField::width() const {
  int w = 0;
  for (const auto& [lo, hi] : ranges) w += hi - lo + 1;
  return w;
}

FormatField parse_format(std::string_view name, std::string_view text) {
  FormatField f;
  f.name = std::string(name);
  const std::string t = trim(text);
  const auto colon = t.find(':');
  if (colon == std::string::npos)
    throw Error(ErrorKind::event, fmt::format("malformed format '{}': '{}'", name, t));
  f.word = t.substr(0, colon);
  if (f.word != "config" && f.word != "config1" && f.word != "config2")
    throw Error(ErrorKind::event, fmt::format("format '{}' targets unknown field '{}'", name, f.word));
  for (const auto& r : split(std::string_view(t).substr(colon + 1), ',')) {
    const auto dash = r.find('-');
    const int lo = parse_int(std::string_view(r).substr(0, dash), "format bit");
    const int hi = dash == std::string::npos ? lo : parse_int(std::string_view(r).substr(dash + 1), "format bit");
    if (lo < 0 || hi > 63 || lo > hi)
      throw Error(ErrorKind::event, fmt::format("format '{}': bad bit range '{}'", name, r));
    f.ranges.emplace_back(lo, hi);
  }
  return f;
}

std::optional<SysfsPmu> read_sysfs_pmu(const std::string& root, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(root) / name;
  std::error_code ec;
  if (name.empty() || name.find('/') != std::string::npos || !fs::exists(dir / "type", ec))
    return std::nullopt;
  SysfsPmu pmu;
  pmu.name = name;
  pmu.type = static_cast<std::uint32_t>(parse_int(read_file(dir / "type"), "PMU type"));
  for (const auto& sub : {"format", "events"}) {
    if (!fs::is_directory(dir / sub, ec)) continue;
    for (const auto& entry : fs::directory_iterator(dir / sub, ec)) {
      const std::string n = entry.path().filename().string();
      // events/<name>.scale, .unit, .snapshot describe how to print, not what to count.
      if (n.find('.') != std::string::npos) continue;
      if (std::string_view(sub) == "format")
        pmu.formats.emplace(n, parse_format(n, read_file(entry.path())));
      else
        pmu.events.emplace(n, read_file(entry.path()));
    }
  }
  return pmu;
}

std::vector<std::string> list_sysfs_pmus(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

perf_event_attr encode_sysfs_event(const SysfsPmu& pmu, std::string_view terms) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = pmu.type;
  apply_terms(attr, pmu, terms, 0);
  return attr;
}

}  // namespace obscheck
