#include "events/attr_json.h"

namespace obscheck {

nlohmann::json attr_to_json(const perf_event_attr& a) {
  nlohmann::ordered_json j;
  j["type"] = a.type;
  j["config"] = a.config;
  if (a.type == PERF_TYPE_BREAKPOINT) {
    j["bp_type"] = a.bp_type;
    j["bp_addr"] = a.bp_addr;
    j["bp_len"] = a.bp_len;
  } else {
    j["config1"] = a.config1;
    j["config2"] = a.config2;
  }
  j["exclude_user"] = a.exclude_user;
  j["exclude_kernel"] = a.exclude_kernel;
  j["exclude_hv"] = a.exclude_hv;
  j["exclude_idle"] = a.exclude_idle;
  j["exclude_host"] = a.exclude_host;
  j["exclude_guest"] = a.exclude_guest;
  j["precise_ip"] = a.precise_ip;
  j["disabled"] = a.disabled;
  j["inherit"] = a.inherit;
  j["enable_on_exec"] = a.enable_on_exec;
  j["pinned"] = a.pinned;
  j["exclusive"] = a.exclusive;
  j["read_format"] = a.read_format;
  j["sample_period"] = a.sample_period;
  j["sample_type"] = a.sample_type;
  return nlohmann::json(j);
}

std::vector<std::string> attr_json_mismatches(const nlohmann::json& expected,
                                              const nlohmann::json& actual) {
  std::vector<std::string> out;
  for (const auto& [key, value] : actual.items()) {
    const nlohmann::json want = expected.contains(key) ? expected.at(key) : nlohmann::json(0);
    if (want != value) out.push_back(key);
  }
  for (const auto& [key, value] : expected.items())
    if (!actual.contains(key)) out.push_back(key);
  return out;
}

}  // namespace obscheck
