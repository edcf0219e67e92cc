// for_each_index: independent pieces of one analysis spread over a few threads. Each
// piece writes only its own slot, so the result is the same, bit for bit, on any number
// of threads; only the wall time differs.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace obscheck {

// Calls body(i) for i in [0, count), spread over up to `threads` threads (0: one per
// hardware thread), each given at least `min_per_thread` indices (below that, starting
// a thread costs more than it saves). The first exception thrown by any call is
// rethrown here, after every thread has finished.
template <typename Body>
void for_each_index(std::size_t count, std::size_t threads, std::size_t min_per_thread, const Body& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, count / std::max<std::size_t>(min_per_thread, 1));
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
        next = count;  // the others stop after their current piece
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace obscheck
