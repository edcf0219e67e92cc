#include "report/sweep_brief.h"

#include <fmt/core.h>

#include "record/journal_notes.h"  // JobKind, kMaxMeasuredBlocks
#include "util/error.h"

namespace obscheck {
namespace {

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(ErrorKind::io, fmt::format("{}: field {} is missing or has the wrong type", where, key),
                "the journal was not written by obscheck bias or compare, or was edited");
  }
}

template <class T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

template <class T>
std::optional<T> optional_field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return field<T>(j, key, where);
}

nlohmann::json context_json(const SweepContextRecord& c) {
  return {{"id", c.id},
          {"label", c.label},
          {"env_pad", optional_json(c.env_pad)},
          {"env_bytes", c.env_bytes},
          {"argv0_pad", c.argv0_pad},
          {"link_order", optional_json(c.link_order)},
          {"objects", c.objects},
          {"binary", c.binary},
          {"binary_sha256", c.binary_sha256},
          {"failure", c.failure}};
}

SweepContextRecord context_from(const nlohmann::json& j) {
  const std::string where = "sweep context";
  SweepContextRecord c;
  c.id = field<std::size_t>(j, "id", where);
  c.label = field<std::string>(j, "label", where);
  c.env_pad = optional_field<std::size_t>(j, "env_pad", where);
  c.env_bytes = field<std::size_t>(j, "env_bytes", where);
  c.argv0_pad = field<std::size_t>(j, "argv0_pad", where);
  c.link_order = optional_field<std::size_t>(j, "link_order", where);
  c.objects = field<std::vector<std::string>>(j, "objects", where);
  c.binary = field<std::string>(j, "binary", where);
  c.binary_sha256 = field<std::string>(j, "binary_sha256", where);
  c.failure = field<std::string>(j, "failure", where);
  return c;
}

// What no command line can give (a forged 5e8 as alpha once gave exit 5): the
// levels and margins are fractions, the runs and warm-up as the command line bounds them.
void check_brief_ranges(const SweepBrief& b, const std::string& where) {
  const SweepReport& h = b.header;
  const auto refuse = [&](const char* field, const std::string& value, const char* range) {
    throw Error(ErrorKind::io, fmt::format("{}: field {} is {}, not {}", where, field, value, range),
                "the journal was not written by obscheck bias or compare, or was edited");
  };
  if (!(h.alpha > 0 && h.alpha < 1)) refuse("alpha", fmt::format("{:g}", h.alpha), "a level between 0 and 1");
  if (!(h.margin >= 0 && h.margin < 1)) refuse("report_margin", fmt::format("{:g}", h.margin), "a fraction from 0 to 1");
  if (!(b.margin >= 0 && b.margin < 1)) refuse("margin", fmt::format("{:g}", b.margin), "a fraction from 0 to 1");
  if (h.runs_per_context < 1 || static_cast<std::size_t>(h.runs_per_context) > kMaxMeasuredBlocks)
    refuse("runs_per_context", std::to_string(h.runs_per_context), "a count from 1 to 1000000");
  if (h.warmup < 0 || static_cast<std::size_t>(h.warmup) > kMaxMeasuredBlocks)
    refuse("warmup", std::to_string(h.warmup), "a count from 0 to 1000000");
}

}  // namespace

nlohmann::json brief_to_json(const SweepBrief& b) {
  const SweepReport& h = b.header;
  nlohmann::json variants = nlohmann::json::array(), contexts = nlohmann::json::array();
  for (const SweepVariantRecord& v : h.variants)
    variants.push_back({{"name", v.name}, {"argv", v.argv}, {"binary_sha256", v.binary_sha256}});
  for (const SweepContextRecord& c : h.contexts) contexts.push_back(context_json(c));
  nlohmann::json j = {{"command", std::string(to_string(h.command))},
          {"variants", variants},
          {"contexts", contexts},
          {"seed", h.seed},
          {"runs_per_context", h.runs_per_context},
          {"warmup", h.warmup},
          {"events", h.events},
          {"metric", h.metric},
          {"pad_name", h.pad_name},
          {"report_margin", h.margin},
          {"alpha", h.alpha},
          {"notes", h.notes},
          {"metrics", b.metrics},
          {"margin", b.margin},
          {"aa", b.aa},
          {"allow_multiplex", h.allow_multiplex},
          {"fail_on", b.fail_on.words()}};
  if (!b.arguments.empty()) j["arguments"] = b.arguments;  // only a journal read back from before the request
  return j;
}

SweepBrief brief_from_json(const nlohmann::json& j) {
  const std::string where = "the journal's sweep";
  if (!j.is_object()) throw Error(ErrorKind::io, where + " is not an object");
  SweepBrief b;
  SweepReport& h = b.header;
  const std::optional<JobKind> kind = job_kind_from(field<std::string>(j, "command", where));
  if (kind) h.command = *kind;
  for (const nlohmann::json& v : field<nlohmann::json>(j, "variants", where))
    h.variants.push_back({field<std::string>(v, "name", "sweep variant"), field<std::vector<std::string>>(v, "argv", "sweep variant"),
                          field<std::string>(v, "binary_sha256", "sweep variant")});
  for (const nlohmann::json& c : field<nlohmann::json>(j, "contexts", where)) h.contexts.push_back(context_from(c));
  h.seed = field<std::uint64_t>(j, "seed", where);
  h.runs_per_context = field<int>(j, "runs_per_context", where);
  h.warmup = field<int>(j, "warmup", where);
  h.events = field<std::string>(j, "events", where);
  h.metric = field<std::string>(j, "metric", where);
  h.pad_name = field<std::string>(j, "pad_name", where);
  h.margin = field<double>(j, "report_margin", where);
  h.alpha = field<double>(j, "alpha", where);
  h.notes = field<std::vector<std::string>>(j, "notes", where);
  b.metrics = field<std::vector<std::string>>(j, "metrics", where);
  b.margin = field<double>(j, "margin", where);
  b.aa = field<bool>(j, "aa", where);
  h.allow_multiplex = optional_field<bool>(j, "allow_multiplex", where).value_or(false);
  const auto fail_on = field<std::vector<std::string>>(j, "fail_on", where);
  b.arguments = optional_field<std::vector<std::string>>(j, "arguments", where).value_or(std::vector<std::string>{});
  if (h.variants.empty() || !kind || !is_sweep(*kind) || (kind == JobKind::compare && h.variants.size() < 2))
    throw Error(ErrorKind::io, where + " names no command of its variants");
  try {
    if (!fail_on.empty()) b.fail_on = fail_on_outcomes(kind == JobKind::bias ? FailOnOf::bias : FailOnOf::compare, fail_on);
  } catch (const Error& e) {
    throw Error(ErrorKind::io, fmt::format("{}: field fail_on: {}", where, e.what()),
                "the journal was not written by obscheck bias or compare, or was edited");
  }
  check_brief_ranges(b, where);
  return b;
}

nlohmann::json sweep_run_extra(const SweepRunPart& p) {
  return {{"context", p.context},        {"variant", p.variant},           {"argv", p.argv},
          {"binary", p.binary},          {"binary_sha256", p.binary_sha256}, {"first_line", p.first_line}};
}

SweepRunPart sweep_run_part(const nlohmann::json& extra, const std::string& where) {
  SweepRunPart p;
  p.context = field<std::size_t>(extra, "context", where);
  p.variant = field<std::size_t>(extra, "variant", where);
  p.argv = field<std::vector<std::string>>(extra, "argv", where);
  p.binary = field<std::string>(extra, "binary", where);
  p.binary_sha256 = field<std::string>(extra, "binary_sha256", where);
  p.first_line = field<std::string>(extra, "first_line", where);
  return p;
}

}  // namespace obscheck
