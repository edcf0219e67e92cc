// record/: one compact column of numbers, as RunTable keeps a metric.
//
// A run's metrics are whole numbers almost always (nanoseconds, kilobytes, counts), and
// most fit 32 bits (a wall time under 4.29 s, a count under 4.29 billion): such a column
// is kept as 32-bit integers, half the bytes of doubles, and widens itself to doubles,
// once and for good, at the first value that does not fit (a fraction, a negative
// number, a longer time). Reading gives back exactly the double that was stored (a
// whole number below 2^32 is exact in both forms); any NaN reads back as a quiet NaN,
// and -0.0 widens the column rather than reading back as +0.0.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

namespace obscheck {

class NumberColumn {
 public:
  NumberColumn() = default;

  std::size_t size() const { return wide_ ? doubles_.size() : narrow_.size(); }
  bool empty() const { return size() == 0; }
  bool is_narrow() const { return !wide_; }

  double operator[](std::size_t i) const { return wide_ ? doubles_[i] : decode(narrow_[i]); }

  void push_back(double v) {
    if (!wide_ && fits(v)) return narrow_.push_back(encode(v));
    widen();
    doubles_.push_back(v);
  }
  // Sets an existing entry.
  void set(std::size_t i, double v) {
    if (!wide_ && fits(v)) {
      narrow_[i] = encode(v);
      return;
    }
    widen();
    doubles_[i] = v;
  }
  // Grows or shrinks to `n` entries, new ones `v`.
  void resize(std::size_t n, double v) {
    if (!wide_ && fits(v)) return narrow_.resize(n, encode(v));
    widen();
    doubles_.resize(n, v);
  }
  void assign(std::size_t n, double v) {
    clear();
    resize(n, v);
  }
  void clear() {
    narrow_.clear();
    doubles_.clear();
    wide_ = false;
  }
  void reserve(std::size_t n) { wide_ ? doubles_.reserve(n) : narrow_.reserve(n); }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = double;
    using difference_type = std::ptrdiff_t;
    using pointer = const double*;
    using reference = double;
    const_iterator() = default;
    const_iterator(const NumberColumn* c, std::size_t i) : c_(c), i_(i) {}
    double operator*() const { return (*c_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator t = *this;
      ++i_;
      return t;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const NumberColumn* c_ = nullptr;
    std::size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  static constexpr std::uint32_t kNarrowNaN = std::numeric_limits<std::uint32_t>::max();

  // A whole number in [0, 2^32 - 1) that is not -0.0, or a NaN.
  static bool fits(double v) {
    if (std::isnan(v)) return true;
    return v >= 0 && v < static_cast<double>(kNarrowNaN) && v == std::floor(v) && !std::signbit(v);
  }
  static std::uint32_t encode(double v) { return std::isnan(v) ? kNarrowNaN : static_cast<std::uint32_t>(v); }
  static double decode(std::uint32_t u) {
    return u == kNarrowNaN ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(u);
  }
  void widen() {
    if (wide_) return;
    doubles_.reserve(narrow_.capacity());
    for (std::uint32_t u : narrow_) doubles_.push_back(decode(u));
    std::vector<std::uint32_t>().swap(narrow_);
    wide_ = true;
  }

  bool wide_ = false;
  std::vector<std::uint32_t> narrow_;
  std::vector<double> doubles_;
};

}  // namespace obscheck
