#include "observe/wrap.h"

#include <sys/wait.h>

#include <fmt/format.h>

#include <cstring>

#include "util/error.h"
#include "util/text.h"

namespace obscheck {
namespace {

using text::replace_all;

constexpr std::string_view kLevelPlaceholder = "{level}";
constexpr std::string_view kArgvPlaceholder = "{argv}";

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// Characters a backslash escapes inside double quotes (POSIX sh, 2.2.3).
bool escapable_in_double_quotes(char c) { return c == '$' || c == '`' || c == '"' || c == '\\' || c == '\n'; }

std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const auto nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

}  // namespace

std::vector<std::string> split_command_words(std::string_view t) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;  // a word has started (possibly empty, from '' or "")
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\\') {
      if (i + 1 == t.size())
        throw Error(ErrorKind::usage, fmt::format("command template ends with a lone backslash: {}", t),
                    "escape it as \\\\ or quote it");
      if (t[i + 1] != '\n') {  // backslash-newline is a line continuation: both vanish
        word += t[i + 1];
        in_word = true;
      }
      ++i;
    } else if (c == '\'') {
      const auto close = t.find('\'', i + 1);
      if (close == std::string_view::npos)
        throw Error(ErrorKind::usage, fmt::format("unterminated ' in command template: {}", t),
                    "close the single quote");
      word.append(t.substr(i + 1, close - i - 1));
      in_word = true;
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < t.size() && t[j] != '"'; ++j) {
        if (t[j] == '\\' && j + 1 < t.size() && escapable_in_double_quotes(t[j + 1])) {
          if (t[j + 1] != '\n') word += t[j + 1];
          ++j;
        } else {
          word += t[j];
        }
      }
      if (j >= t.size())
        throw Error(ErrorKind::usage, fmt::format("unterminated \" in command template: {}", t),
                    "close the double quote");
      in_word = true;
      i = j;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::vector<std::string> wrap_command(std::string_view templ, const std::string& level,
                                      const std::vector<std::string>& target_argv) {
  if (target_argv.empty()) throw Error(ErrorKind::usage, "no target command to wrap");
  const auto words = split_command_words(templ);
  if (words.empty())
    throw Error(ErrorKind::usage, "the profiler command template is empty",
                "give the command that runs a program under your profiler, e.g. "
                "'perf record -F {level} -o /dev/null --'");
  if (words.front() == kArgvPlaceholder)
    throw Error(ErrorKind::usage,
                fmt::format("the profiler command template starts with {} (no profiler program): {}",
                            kArgvPlaceholder, templ));
  if (level == kUnwrappedLevel) return target_argv;
  std::vector<std::string> out;
  bool placed = false;
  for (const auto& w : words) {
    if (w == kArgvPlaceholder) {
      out.insert(out.end(), target_argv.begin(), target_argv.end());
      placed = true;
    } else {
      out.push_back(replace_all(w, kLevelPlaceholder, level));
    }
  }
  if (!placed) out.insert(out.end(), target_argv.begin(), target_argv.end());
  return out;
}

void require_target_marker(std::string_view templ) {
  for (const std::string& w : split_command_words(templ))
    if (w == "--" || w == kArgvPlaceholder) return;
  throw Error(ErrorKind::usage,
              fmt::format("--observer-cmd '{}': the template does not say where the target goes", templ),
              "end it with -- (the target follows it, e.g. 'perf stat -e task-clock --') or place {argv} where the "
              "target's command line belongs; otherwise the profiler may take the target for one of its own "
              "arguments");
}

LaunchSpec wrap_launch(const LaunchSpec& base, std::string_view templ, const std::string& level) {
  LaunchSpec spec = base;
  spec.argv = wrap_command(templ, level, base.argv);
  if (level == kUnwrappedLevel) return spec;
  try {
    spec.path = resolve_target(spec.argv.front());
  } catch (const Error& e) {
    throw Error(ErrorKind::target, fmt::format("profiler command: {}", e.what()),
                e.hint().empty() ? "install the profiler or give its full path in the template" : e.hint());
  }
  return spec;
}

WrapperChanges describe_wrapper_changes(const std::vector<std::string>& wrapped,
                                        const std::vector<std::string>& target_argv) {
  WrapperChanges c;
  c.program = wrapped.empty() ? std::string() : wrapped.front();
  if (wrapped.size() > target_argv.size()) c.extra_words = wrapped.size() - target_argv.size();
  std::size_t wrapped_bytes = 0, target_bytes = 0;
  for (const auto& w : wrapped) wrapped_bytes += w.size() + 1;
  for (const auto& w : target_argv) target_bytes += w.size() + 1;
  if (wrapped_bytes > target_bytes) c.extra_bytes = wrapped_bytes - target_bytes;
  if (c.extra_words == 0 && wrapped == target_argv) return c;  // not wrapped: nothing changes

  c.aspects.push_back(
      {"argv", false,
       fmt::format("the first process is {} with {} more argv words ({} bytes); the target itself is "
                   "exec'd by it with its own argv, which the wrapper does not change",
                   c.program, c.extra_words, c.extra_bytes)});
  c.aspects.push_back({"environment", true,
                       "held pads the environment block given to the wrapper to a constant size; "
                       "variables the profiler adds for its child are its own and cannot be padded"});
  // Whether the wrapper forks the target or execs it in its own place is not known
  // before it runs (perf record forks, env execs): the sentence holds for both.
  c.aspects.push_back({"process tree", false,
                       fmt::format("{} starts the target; whatever of it runs beside the target (reader threads, "
                                   "its page cache, its exit work) cannot be padded",
                                   c.program)});
  c.aspects.push_back({"counted work", false,
                       fmt::format("the counters and wall time start at the target's own exec and describe it "
                                   "alone; the rusage of the reaped process holds {}'s own work with the target's: "
                                   "the profiler's cost, reported per dose without a verdict",
                                   c.program)});
  return c;
}

std::string describe_wrapper_failure(const std::vector<std::string>& wrapped, const std::string& level,
                                     const ExitInfo& exit) {
  std::string how;
  if (exit.timed_out)
    how = "timed out";
  else if (exit.signal != 0)
    how = fmt::format("was killed by signal {} ({})", exit.signal, ::strsignal(exit.signal));
  else if (exit.exit_code == 127)
    how = "exited with status 127 (a program it runs was not found)";
  else
    how = fmt::format("exited with status {}", exit.exit_code);
  std::string out = fmt::format("the profiler command at level {} {}: {}", level, how, quote_command(wrapped));
  const std::string tail = last_line(exit.output);
  if (!tail.empty()) out += fmt::format(" — its last output line: {}", tail);
  return out;
}

std::optional<double> requested_frequency(std::string_view templ, const std::string& level) {
  const std::vector<std::string> words = split_command_words(templ);
  bool asked = false;
  for (std::size_t i = 0; i < words.size() && !asked; ++i) {
    const std::string& w = words[i];
    const bool option = w == "-F" || w == "--freq";
    asked = (option && i + 1 < words.size() && words[i + 1] == kLevelPlaceholder) || w == "-F{level}" ||
            w == "--freq={level}";
  }
  if (!asked || level.empty() || level.size() > 9) return std::nullopt;
  double hz = 0;
  for (char c : level) {
    if (c < '0' || c > '9') return std::nullopt;
    hz = hz * 10 + (c - '0');
  }
  return hz > 0 ? std::optional<double>(hz) : std::nullopt;
}

std::optional<std::uint64_t> profiler_reported_samples(std::string_view output) {
  // perf record's closing line: "[ perf record: Captured and wrote X MB FILE (N samples) ]".
  constexpr std::string_view kTail = " samples) ]";
  std::optional<std::uint64_t> last;
  for (std::size_t at = output.find(kTail); at != std::string_view::npos; at = output.find(kTail, at + 1)) {
    std::size_t from = at;
    while (from > 0 && output[from - 1] >= '0' && output[from - 1] <= '9') --from;
    if (from == at || from == 0 || output[from - 1] != '(') continue;
    std::uint64_t n = 0;
    bool fits = true;
    for (std::size_t k = from; k < at && fits; ++k) {
      fits = n <= (UINT64_MAX - 9) / 10;
      n = n * 10 + static_cast<std::uint64_t>(output[k] - '0');
    }
    if (fits) last = n;
  }
  return last;
}

std::string quote_command(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789-_./=:,+@%{}") == std::string::npos;
    if (plain) {
      out += w;
    } else {
      out += '\'';
      out += replace_all(w, "'", "'\\''");
      out += '\'';
    }
  }
  return out;
}

}  // namespace obscheck
