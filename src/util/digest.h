// SHA-256 digests of files and byte streams (target binaries, captured output).
#pragma once

#include <cstddef>
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
  void* ctx_;
};

std::string sha256_hex(std::string_view bytes);
// Throws Error(io) when the file cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace obscheck
