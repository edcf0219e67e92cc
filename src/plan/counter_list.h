// plan/: the user's --counters list as the rest of the pipeline sees it: its items in
// the order given, a {group} one item, split once where the command line is read
// (events/ knows the grammar) and never re-parsed downstream. The plan's levels index
// these items; the journal's manifest records them as a JSON array.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// The events an item names: a {group}'s members in order ("{l1d, l1i}" -> l1d, l1i),
// or the item itself, without the spaces and braces around each.
std::vector<std::string> item_members(std::string_view item);

class CounterList {
 public:
  CounterList() = default;
  explicit CounterList(std::vector<std::string> items) : items_(std::move(items)) {}

  const std::vector<std::string>& items() const { return items_; }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const std::string& operator[](std::size_t i) const { return items_.at(i); }

  // "cycles,{l1d,l1i}": the items joined as the user would write them (for messages).
  std::string text() const;

  bool operator==(const CounterList&) const = default;

 private:
  std::vector<std::string> items_;
};

}  // namespace obscheck
