#include "host/kernel_log.h"

#include <sys/klog.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace obscheck {
namespace {

// syslog(2)'s actions (linux/syslog.h; glibc's klogctl takes them as plain ints).
constexpr int kSyslogReadAll = 3;
constexpr int kSyslogSizeBuffer = 10;

// A line's text after its "<level>" and "[seconds]" prefixes.
std::string_view message_of(std::string_view line) {
  if (!line.empty() && line.front() == '<') {
    const std::size_t end = line.find('>');
    if (end != std::string_view::npos) line.remove_prefix(end + 1);
  }
  if (!line.empty() && line.front() == '[') {
    const std::size_t end = line.find(']');
    if (end != std::string_view::npos) line.remove_prefix(end + 1);
  }
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return line;
}

}  // namespace

KernelLogScan scan_log_text(std::string_view log, std::string_view needle) {
  KernelLogScan s;
  s.readable = true;
  while (!log.empty()) {
    const std::size_t nl = log.find('\n');
    const std::string_view line = log.substr(0, nl);
    log.remove_prefix(nl == std::string_view::npos ? log.size() : nl + 1);
    if (line.find(needle) == std::string_view::npos) continue;
    ++s.matches;
    s.last = std::string(message_of(line));
  }
  return s;
}

KernelLogScan scan_kernel_log(std::string_view needle) {
  KernelLogScan s;
  const int size = ::klogctl(kSyslogSizeBuffer, nullptr, 0);
  std::vector<char> buf(size > 0 ? static_cast<std::size_t>(size) : 0);
  const int n = size > 0 ? ::klogctl(kSyslogReadAll, buf.data(), size) : -1;
  if (n < 0) {
    const int err = errno;
    s.why = std::string("the kernel's log cannot be read: ") + std::strerror(err) +
            (err == EPERM ? " (kernel.dmesg_restrict is 1: run as root, or with CAP_SYSLOG)" : "");
    return s;
  }
  return scan_log_text(std::string_view(buf.data(), static_cast<std::size_t>(n)), needle);
}

}  // namespace obscheck
