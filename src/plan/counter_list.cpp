#include "plan/counter_list.h"

#include <algorithm>

namespace obscheck {

std::vector<std::string> item_members(std::string_view item) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= item.size();) {
    const std::size_t comma = std::min(item.find(',', start), item.size());
    std::string_view member = item.substr(start, comma - start);
    while (!member.empty() && (member.front() == ' ' || member.front() == '{')) member.remove_prefix(1);
    while (!member.empty() && (member.back() == ' ' || member.back() == '}')) member.remove_suffix(1);
    out.emplace_back(member);
    start = comma + 1;
  }
  return out;
}

std::string CounterList::text() const {
  std::string out;
  for (const std::string& item : items_) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace obscheck
