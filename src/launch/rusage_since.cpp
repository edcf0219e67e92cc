#include <sys/resource.h>

#include <cstdint>

#include "launch/launcher.h"
#include "util/timeval.h"

namespace obscheck {

struct rusage rusage_since(const struct rusage& total, const struct rusage& before) {
  const auto less = [](long a, long b) { return a > b ? a - b : 0L; };
  const auto less_time = [](const timeval& a, const timeval& b) {
    const std::uint64_t x = timeval_ns(a), y = timeval_ns(b);
    return ns_timeval(x > y ? x - y : 0);
  };
  struct rusage out = total;
  out.ru_utime = less_time(total.ru_utime, before.ru_utime);
  out.ru_stime = less_time(total.ru_stime, before.ru_stime);
  out.ru_minflt = less(total.ru_minflt, before.ru_minflt);
  out.ru_majflt = less(total.ru_majflt, before.ru_majflt);
  out.ru_nswap = less(total.ru_nswap, before.ru_nswap);
  out.ru_inblock = less(total.ru_inblock, before.ru_inblock);
  out.ru_oublock = less(total.ru_oublock, before.ru_oublock);
  out.ru_msgsnd = less(total.ru_msgsnd, before.ru_msgsnd);
  out.ru_msgrcv = less(total.ru_msgrcv, before.ru_msgrcv);
  out.ru_nsignals = less(total.ru_nsignals, before.ru_nsignals);
  out.ru_nvcsw = less(total.ru_nvcsw, before.ru_nvcsw);
  out.ru_nivcsw = less(total.ru_nivcsw, before.ru_nivcsw);
  return out;
}

}  // namespace obscheck
