#include "record/plan_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "util/error.h"

namespace obscheck {

namespace {

template <class T>
T field(const nlohmann::json& j, const char* name, const std::string& where) {
  if (!j.is_object() || !j.contains(name))
    throw Error(ErrorKind::io, fmt::format("{}: field '{}' is missing", where, name));
  // nlohmann's get<> casts a float to an integer unchecked (undefined behaviour out of
  // range): integers are taken only from JSON integers that fit.
  const auto fits = [](const nlohmann::json& v) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      return v.is_number_integer() && (v.is_number_unsigned() ? std::in_range<T>(v.get<std::uint64_t>())
                                                              : std::in_range<T>(v.get<std::int64_t>()));
    else if constexpr (std::is_same_v<T, std::vector<std::size_t>>)
      return v.is_array() && std::all_of(v.begin(), v.end(), [](const auto& e) { return e.is_number_unsigned(); });
    else
      return true;
  };
  try {
    if (!fits(j.at(name))) throw nlohmann::json::type_error::create(302, "out of range", nullptr);
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(ErrorKind::io,
                fmt::format("{}: field '{}' has the wrong type ({})", where, name, j.at(name).dump()));
  }
}

nlohmann::json level_to_json(const Level& l) {
  return {{"dose", l.dose}, {"label", l.label}, {"programmed", l.programmed},
          {"announced", l.announced}, {"extra", level_knob_to_json(l.knob)}};
}

// Whether `j` holds exactly the keys `keys`.
bool has_keys(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  if (j.size() != keys.size()) return false;
  return std::all_of(keys.begin(), keys.end(), [&](const char* k) { return j.contains(k); });
}

Level level_from_json(const nlohmann::json& j, const std::string& where) {
  Level l;
  l.dose = field<int>(j, "dose", where);
  l.label = field<std::string>(j, "label", where);
  l.programmed = field<std::vector<std::size_t>>(j, "programmed", where);
  l.announced = field<std::vector<std::size_t>>(j, "announced", where);
  if (j.contains("extra")) l.knob = level_knob_from_json(j.at("extra"), where + " extra");
  return l;
}

// The plan's kind and observer from the name plan_to_json wrote (PlanSpec::name).
void set_plan_name(PlanSpec& s, const std::string& name) {
  if (const std::optional<ObserverKind> observer = observer_kind_from_string(name)) {
    s.kind = PlanKind::check;
    s.observer = *observer;
    return;
  }
  for (PlanKind k : {PlanKind::measure, PlanKind::bias, PlanKind::compare})
    if (to_string(k) == name) {
      s.kind = k;
      return;
    }
  throw Error(ErrorKind::io, fmt::format("plan: unknown observer '{}'", name),
              "the journal was written by an incompatible obscheck, or altered");
}

}  // namespace

nlohmann::json plan_to_json(const Plan& plan) {
  const PlanSpec& s = plan.spec;
  nlohmann::json levels = nlohmann::json::array();
  for (const Level& l : s.levels) levels.push_back(level_to_json(l));
  nlohmann::json layouts = nlohmann::json::array();
  for (Layout l : s.layouts) layouts.push_back(to_string(l));
  nlohmann::json configs = nlohmann::json::array();
  for (const Configuration& c : plan.configs) {
    configs.push_back({{"index", c.index},
                       {"id", c.id},
                       {"level", c.level_index},
                       {"layout", to_string(c.layout)},
                       {"aa", c.aa_duplicate},
                       {"solo_of", c.solo_of ? nlohmann::json(*c.solo_of) : nlohmann::json()},
                       {"programmed", c.level.programmed},
                       {"announced", c.level.announced}});
  }
  nlohmann::json out = {{"observer", std::string(s.name())},
          {"counters", s.counters},
          {"levels", levels},
          {"layouts", layouts},
          {"seed", s.seed},
          {"fixed_blocks", s.fixed_blocks ? nlohmann::json(*s.fixed_blocks) : nlohmann::json()},
          {"max_blocks", s.max_blocks},
          {"warmup_blocks", s.warmup_blocks},
          {"configs", configs},
          {"baselines", plan.baselines},
          {"aa", plan.aa}};
  // Only a shard's plan says so: every other journal's plan reads as it always did.
  if (s.shard) out["shard"] = {{"index", s.shard->index}, {"count", s.shard->count}};
  if (!s.aa_control) out["aa_control"] = false;
  if (s.group_size != 1) out["group_size"] = s.group_size;
  return out;
}

Plan plan_from_json(const nlohmann::json& j) {
  const std::string where = "plan";
  PlanSpec s;
  set_plan_name(s, field<std::string>(j, "observer", where));
  s.counters = field<std::vector<std::string>>(j, "counters", where);
  const auto levels = field<nlohmann::json>(j, "levels", where);
  if (!levels.is_array()) throw Error(ErrorKind::io, "plan: field 'levels' is not an array");
  for (std::size_t i = 0; i < levels.size(); ++i)
    s.levels.push_back(level_from_json(levels[i], fmt::format("plan level {}", i)));
  for (const auto& name : field<std::vector<std::string>>(j, "layouts", where)) {
    try {
      s.layouts.push_back(layout_from_string(name));
    } catch (const Error& e) {
      throw Error(ErrorKind::io, fmt::format("plan: {}", e.what()));
    }
  }
  s.seed = field<std::uint64_t>(j, "seed", where);
  if (j.contains("fixed_blocks") && !j.at("fixed_blocks").is_null())
    s.fixed_blocks = field<std::size_t>(j, "fixed_blocks", where);
  s.max_blocks = field<std::size_t>(j, "max_blocks", where);
  s.warmup_blocks = field<std::size_t>(j, "warmup_blocks", where);
  if (j.contains("aa_control")) s.aa_control = field<bool>(j, "aa_control", where);
  if (j.contains("group_size")) s.group_size = field<std::size_t>(j, "group_size", where);
  if (j.contains("shard")) {
    const auto& sh = j.at("shard");
    s.shard = Shard{field<std::size_t>(sh, "index", "plan shard"), field<std::size_t>(sh, "count", "plan shard")};
  }

  Plan plan;
  try {
    plan = make_plan(s);
  } catch (const Error& e) {
    throw Error(ErrorKind::io, fmt::format("plan: {}", e.what()), e.hint());
  }
  if (j.contains("configs")) {
    const auto& recorded = j.at("configs");
    if (!recorded.is_array() || recorded.size() != plan.configs.size())
      throw Error(ErrorKind::io,
                  fmt::format("plan: {} configurations recorded, the spec gives {}",
                              recorded.is_array() ? recorded.size() : 0, plan.configs.size()),
                  "the journal was written by an incompatible obscheck");
    for (std::size_t i = 0; i < recorded.size(); ++i) {
      const auto id = field<std::string>(recorded[i], "id", fmt::format("plan config {}", i));
      if (id != plan.configs[i].id)
        throw Error(ErrorKind::io,
                    fmt::format("plan: configuration {} is recorded as '{}', the spec gives '{}'", i,
                                id, plan.configs[i].id),
                    "the journal was written by an incompatible obscheck");
    }
  }
  return plan;
}

nlohmann::json level_knob_to_json(const LevelKnob& knob) {
  if (const auto* p = std::get_if<ProbesAttached>(&knob)) return {{"probes", p->probes}};
  if (const auto* s = std::get_if<SampledAt>(&knob)) return {{"freq", s->freq}};
  if (const auto* w = std::get_if<WrappedAt>(&knob)) return {{"wrap", w->wrap}};
  if (const auto* v = std::get_if<BuiltVariantRun>(&knob)) return {{"variant", v->variant}, {"sha256", v->sha256}};
  if (const auto* c = std::get_if<LayoutCell>(&knob)) return {{"context", c->context}, {"variant", c->variant}};
  return nlohmann::json::object();
}

LevelKnob level_knob_from_json(const nlohmann::json& extra, const std::string& where) {
  if (!extra.is_object())
    throw Error(ErrorKind::io, fmt::format("{}: is not an object ({})", where, extra.dump()));
  if (extra.empty()) return std::monostate{};
  if (has_keys(extra, {"probes"})) return ProbesAttached{field<std::size_t>(extra, "probes", where)};
  if (has_keys(extra, {"freq"})) return SampledAt{field<std::uint64_t>(extra, "freq", where)};
  if (has_keys(extra, {"wrap"})) return WrappedAt{field<std::string>(extra, "wrap", where)};
  if (has_keys(extra, {"variant", "sha256"}))
    return BuiltVariantRun{field<std::size_t>(extra, "variant", where), field<std::string>(extra, "sha256", where)};
  if (has_keys(extra, {"context", "variant"}))
    return LayoutCell{field<std::size_t>(extra, "context", where), field<std::size_t>(extra, "variant", where)};
  throw Error(ErrorKind::io, fmt::format("{}: names no dose obscheck knows ({})", where, extra.dump()),
              "the journal was written by an incompatible obscheck, or altered");
}

}  // namespace obscheck
