// record/: the scanner of one journal line, for the run-line decoder
// (record/run_line.cpp) alone: a JSON object read in place, its members taken as they
// come, with the path of the first field that fails. Header-only so that its small
// steps inline into the decoder, which reads a million lines in about a second.
#pragma once

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "record/journal_reader.h"

namespace obscheck::journal_line {

struct Scanner {
  const char* p;
  const char* end;
  std::optional<FieldError>& error;
  // The field being read, for FieldError: "<object>.<key>" or "readings[i].<key>",
  // put together only when a field fails (formatting it per field would cost more
  // than the parsing).
  std::string_view parent, key;
  std::size_t reading = 0;

  void at(std::string_view obj, std::string_view k) {
    parent = obj;
    key = k;
  }
  std::string path() const {
    if (parent.empty()) return std::string(key);
    if (parent == "readings")
      return key.empty() ? fmt::format("readings[{}]", reading) : fmt::format("readings[{}].{}", reading, key);
    return fmt::format("{}.{}", parent, key);
  }
  void fail(std::string why) {
    if (!error) error = FieldError{path(), std::move(why)};
  }

  // The writer's lines have no whitespace: one compare in the common case.
  [[gnu::always_inline]] void ws() {
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
  }
  bool lit(std::string_view s) {
    if (static_cast<std::size_t>(end - p) < s.size() || std::memcmp(p, s.data(), s.size()) != 0) return false;
    p += s.size();
    return true;
  }
  // A string's raw contents (escapes undecoded); `escaped` when it has a backslash.
  bool string(std::string_view& raw, bool& escaped) {
    if (p >= end || *p != '"') return false;
    const char* start = ++p;
    escaped = false;
    for (;;) {
      // To the next quote at once; then only the bytes before it are looked at.
      const char* q = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
      if (!q) return false;
      bool quote_escaped = false;
      while (p < q) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c < 0x20) return false;
        if (c != '\\') {
          ++p;
          continue;
        }
        escaped = true;
        if (++p >= end) return false;  // p: the escape's letter
        if (*p == 'u') {
          for (int k = 0; k < 4; ++k)
            if (++p >= end || !std::isxdigit(static_cast<unsigned char>(*p))) return false;
        } else if (*p == 0 || !std::strchr("\"\\/bfnrt", *p)) {
          return false;
        }
        quote_escaped = p == q;  // \" : the quote found is part of the string
        ++p;
        if (quote_escaped) break;
      }
      if (!quote_escaped) {
        raw = std::string_view(start, static_cast<std::size_t>(q - start));
        p = q + 1;
        return true;
      }
    }
  }

  // A number's token, checked against JSON's grammar.
  bool number(std::string_view& tok) {
    const char* s = p;
    if (p < end && *p == '-') ++p;
    if (p >= end || !std::isdigit(static_cast<unsigned char>(*p))) return false;
    if (*p == '0') ++p;
    else while (p < end && std::isdigit(static_cast<unsigned char>(*p))) ++p;
    if (p < end && *p == '.') {
      if (++p >= end || !std::isdigit(static_cast<unsigned char>(*p))) return false;
      while (p < end && std::isdigit(static_cast<unsigned char>(*p))) ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p >= end || !std::isdigit(static_cast<unsigned char>(*p))) return false;
      while (p < end && std::isdigit(static_cast<unsigned char>(*p))) ++p;
    }
    tok = std::string_view(s, static_cast<std::size_t>(p - s));
    return true;
  }
  bool skip(std::size_t depth) {
    if (depth > kMaxJsonDepth) return false;
    ws();
    if (p >= end) return false;
    switch (*p) {
      case '{': {
        ++p;
        ws();
        if (p < end && *p == '}') return ++p, true;
        for (;;) {
          std::string_view k;
          bool esc;
          ws();
          if (!string(k, esc)) return false;
          ws();
          if (p >= end || *p++ != ':') return false;
          if (!skip(depth + 1)) return false;
          ws();
          if (p >= end) return false;
          if (*p == ',') { ++p; continue; }
          if (*p == '}') return ++p, true;
          return false;
        }
      }
      case '[': {
        ++p;
        ws();
        if (p < end && *p == ']') return ++p, true;
        for (;;) {
          if (!skip(depth + 1)) return false;
          ws();
          if (p >= end) return false;
          if (*p == ',') { ++p; continue; }
          if (*p == ']') return ++p, true;
          return false;
        }
      }
      case '"': {
        std::string_view s;
        bool esc;
        return string(s, esc);
      }
      case 't': return lit("true");
      case 'f': return lit("false");
      case 'n': return lit("null");
      default: {
        std::string_view tok;
        return number(tok);
      }
    }
  }

  // Typed fields: on a JSON value of another type, the field error is recorded and the
  // value skipped (the line may turn out not to be a run, where it does not matter).
  bool u64(std::uint64_t& out) {
    ws();
    if (p < end && (*p == '-' || std::isdigit(static_cast<unsigned char>(*p)))) {
      std::string_view tok;
      if (!number(tok)) return false;
      if (tok[0] == '-') {
        fail(fmt::format("{} is negative", tok));
      } else if (tok.find_first_of(".eE") != std::string_view::npos) {
        fail(fmt::format("{} is not a whole number", tok));
      } else {
        const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), out);
        if (r.ec != std::errc()) fail(fmt::format("{} is too large", tok));
      }
      return true;
    }
    fail("is not a number");
    return skip(1);
  }
  bool i64(std::int64_t& out) {
    ws();
    if (p < end && (*p == '-' || std::isdigit(static_cast<unsigned char>(*p)))) {
      std::string_view tok;
      if (!number(tok)) return false;
      if (tok.find_first_of(".eE") != std::string_view::npos) {
        fail(fmt::format("{} is not a whole number", tok));
      } else {
        const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), out);
        if (r.ec != std::errc()) fail(fmt::format("{} is out of range", tok));
      }
      return true;
    }
    fail("is not a number");
    return skip(1);
  }
  // A number or null (null: not finite when written).
  bool real(std::optional<double>& out) {
    ws();
    if (lit("null")) {
      out.reset();
      return true;
    }
    if (p < end && (*p == '-' || std::isdigit(static_cast<unsigned char>(*p)))) {
      std::string_view tok;
      if (!number(tok)) return false;
      double v = 0;
      const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if (r.ec != std::errc() || !std::isfinite(v)) fail(fmt::format("{} is beyond a double's range", tok));
      else out = v;
      return true;
    }
    fail("is neither a number nor null");
    return skip(1);
  }
  bool boolean(bool& out) {
    ws();
    if (lit("true")) out = true;
    else if (lit("false")) out = false;
    else {
      fail("is not true or false");
      return skip(1);
    }
    return true;
  }
  // A string, decoded; `nullable` allows null (then `is_null` is set).
  bool str(std::string& out, bool nullable = false, bool* is_null = nullptr) {
    ws();
    if (nullable && lit("null")) {
      *is_null = true;
      return true;
    }
    if (is_null) *is_null = false;
    if (p >= end || *p != '"') {
      fail(nullable ? "is neither a string nor null" : "is not a string");
      return skip(1);
    }
    const char* start = p;
    std::string_view raw;
    bool escaped = false;
    if (!string(raw, escaped)) return false;
    if (!escaped) {
      out.assign(raw);
    } else {
      // Rare (the writer escapes only quotes, backslashes and control characters):
      // nlohmann decodes the token, \u escapes and surrogate pairs included.
      const auto j = nlohmann::json::parse(std::string_view(start, static_cast<std::size_t>(p - start)), nullptr, false);
      if (!j.is_string()) {
        fail("is not a valid JSON string");
        return true;
      }
      out = j.get<std::string>();
    }
    return true;
  }

  // Runs `each(key)` for every member of an object; `each` reads the value (or skips it).
  template <class Each>
  bool object(std::size_t depth, Each&& each) {
    if (depth > kMaxJsonDepth) return false;
    ws();
    if (p >= end || *p != '{') {
      fail("is not an object");
      return skip(depth);
    }
    ++p;
    ws();
    if (p < end && *p == '}') return ++p, true;
    for (;;) {
      ws();
      std::string_view key;
      bool esc;
      if (!string(key, esc)) return false;
      ws();
      if (p >= end || *p++ != ':') return false;
      if (!each(key)) return false;
      ws();
      if (p >= end) return false;
      if (*p == ',') { ++p; continue; }
      if (*p == '}') return ++p, true;
      return false;
    }
  }
};

}  // namespace obscheck::journal_line
