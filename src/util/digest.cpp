#include "util/digest.h"

#include <sha2.h>

#include <fstream>

#include "util/error.h"

namespace obscheck {

struct Sha256::State {
  SHA2_CTX ctx;
};

Sha256::Sha256() : state_(std::make_unique<State>()) { SHA256Init(&state_->ctx); }

Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t n) {
  SHA256Update(&state_->ctx, static_cast<const std::uint8_t*>(data), n);
}

std::string Sha256::hex() {
  std::uint8_t md[SHA256_DIGEST_LENGTH];
  SHA256Final(md, &state_->ctx);
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof md);
  for (std::uint8_t b : md) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  return h.hex();
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::io, "cannot read " + path);
  Sha256 h;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    h.update(buf, static_cast<std::size_t>(in.gcount()));
  }
  return h.hex();
}

}  // namespace obscheck
