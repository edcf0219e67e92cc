#include "events/perf_names.h"

#include <array>
#include <cstring>

namespace obscheck {
namespace {

struct Fixed {
  const char* name;
  std::uint32_t type;
  std::uint64_t config;
  const char* canonical;
};

// perf's lexer table of symbolic events (tools/perf/util/parse-events.l), as data.
constexpr Fixed kFixed[] = {
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles"},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles"},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend"},
    {"idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend"},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend"},
    {"idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend"},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references"},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses"},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions"},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions"},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses"},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus-cycles"},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles"},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock"},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock"},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults"},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults"},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults"},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults"},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches"},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches"},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations"},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations"},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults"},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults"},
    {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "dummy"},
    {"bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, "bpf-output"},
    {"cgroup-switches", PERF_TYPE_SOFTWARE, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, Linux 5.13 */, "cgroup-switches"},
};

// perf's cache spellings: each row is one id, its first entry the canonical name.
using Row = std::array<const char*, 5>;
constexpr Row kCacheType[] = {
    {"L1-dcache", "l1-d", "l1d", "L1-data", nullptr},
    {"L1-icache", "l1-i", "l1i", "L1-instruction", nullptr},
    {"LLC", "L2", nullptr, nullptr, nullptr},
    {"dTLB", "d-tlb", "Data-TLB", nullptr, nullptr},
    {"iTLB", "i-tlb", "Instruction-TLB", nullptr, nullptr},
    {"branch", "branches", "bpu", "btb", "bpc"},
    {"node", nullptr, nullptr, nullptr, nullptr},
};
constexpr Row kCacheOp[] = {
    {"load", "loads", "read", nullptr, nullptr},
    {"store", "stores", "write", nullptr, nullptr},
    {"prefetch", "prefetches", "speculative-read", "speculative-load", nullptr},
};
constexpr Row kCacheResult[] = {
    {"refs", "Reference", "ops", "access", nullptr},
    {"misses", "miss", nullptr, nullptr, nullptr},
};
// Which operations perf allows per cache (bit op): L1I has no stores, iTLB and the
// branch unit only reads.
constexpr unsigned kOpValid[] = {0b111, 0b101, 0b111, 0b111, 0b001, 0b001, 0b111};
// perf prints a cache event as TYPE-OP-RESULT with these words.
constexpr const char* kOpWord[] = {"load", "store", "prefetch"};
constexpr const char* kOpAccessWord[] = {"loads", "stores", "prefetches"};

template <std::size_t N>
int find_row(const Row (&rows)[N], std::string_view word) {
  for (std::size_t i = 0; i < N; ++i)
    for (const char* s : rows[i])
      if (s != nullptr && word == s) return static_cast<int>(i);
  return -1;
}

// Splits "L1-dcache-load-misses" into a cache type and up to two words after it. The
// type spellings contain '-' themselves, so the longest type prefix followed by '-' or
// the end is taken, as perf's lexer does.
std::optional<PerfName> cache_name(std::string_view name) {
  int type = -1;
  std::size_t type_len = 0;
  for (std::size_t i = 0; i < std::size(kCacheType); ++i)
    for (const char* s : kCacheType[i]) {
      if (s == nullptr) continue;
      const std::size_t n = std::strlen(s);
      if (n > type_len && name.substr(0, n) == s && (name.size() == n || name[n] == '-')) {
        type = static_cast<int>(i);
        type_len = n;
      }
    }
  if (type < 0) return std::nullopt;
  std::vector<std::string_view> words;
  std::string_view rest = name.substr(type_len);
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '-'
    // op and result spellings may contain '-' (speculative-read): try the longest.
    std::size_t best = 0;
    for (const auto& row : kCacheOp)
      for (const char* s : row)
        if (s && rest.starts_with(s) && (rest.size() == std::strlen(s) || rest[std::strlen(s)] == '-'))
          best = std::max(best, std::strlen(s));
    for (const auto& row : kCacheResult)
      for (const char* s : row)
        if (s && rest.starts_with(s) && (rest.size() == std::strlen(s) || rest[std::strlen(s)] == '-'))
          best = std::max(best, std::strlen(s));
    if (best == 0 || words.size() == 2) return std::nullopt;
    words.push_back(rest.substr(0, best));
    rest.remove_prefix(best);
  }
  int op = -1, result = -1;
  for (std::string_view w : words) {
    if (op < 0) {
      if (const int o = find_row(kCacheOp, w); o >= 0) {
        if (!(kOpValid[type] & (1u << o))) return std::nullopt;
        op = o;
        continue;
      }
    }
    if (result < 0) {
      if (const int r = find_row(kCacheResult, w); r >= 0) {
        result = r;
        continue;
      }
    }
    return std::nullopt;  // a second op, a second result, or a result before an op twice
  }
  if (op < 0) op = PERF_COUNT_HW_CACHE_OP_READ;
  if (result < 0) result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
  PerfName p;
  p.type = PERF_TYPE_HW_CACHE;
  p.config = static_cast<std::uint64_t>(type) | (static_cast<std::uint64_t>(op) << 8) |
             (static_cast<std::uint64_t>(result) << 16);
  p.canonical = std::string(kCacheType[type][0]) + "-" +
                (result == PERF_COUNT_HW_CACHE_RESULT_MISS ? std::string(kOpWord[op]) + "-misses" : kOpAccessWord[op]);
  return p;
}

}  // namespace

std::optional<PerfName> perf_legacy_name(std::string_view name) {
  for (const Fixed& f : kFixed)
    if (name == f.name) return PerfName{f.type, f.config, f.canonical};
  return cache_name(name);
}

std::vector<std::string> perf_legacy_spellings() {
  std::vector<std::string> out;
  for (const Fixed& f : kFixed) out.emplace_back(f.name);
  for (std::size_t t = 0; t < std::size(kCacheType); ++t)
    for (std::size_t o = 0; o < std::size(kOpWord); ++o)
      if (kOpValid[t] & (1u << o))
        for (const std::string& tail : {std::string(kOpAccessWord[o]), std::string(kOpWord[o]) + "-misses"})
          out.push_back(std::string(kCacheType[t][0]) + "-" + tail);
  return out;
}

}  // namespace obscheck
