// SHA-256 digests of files and byte streams (target binaries, captured output), by
// libmd: about 320 MB/s here (a quarter of OpenSSL's speed with SHA-NI), but cheap to
// load, which every start of the driver pays for.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace obscheck {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t n);
  std::string hex();  // finishes the digest; lower-case hex, 64 chars

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view bytes);
// Throws Error(io) when the file cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace obscheck
