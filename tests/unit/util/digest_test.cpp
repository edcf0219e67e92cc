#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "util/digest.h"

using namespace obscheck;

TEST_CASE("sha256 of known strings (FIPS 180-2 test vectors)") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("sha256 across block boundaries and in pieces") {
  // FIPS 180-2 appendix B.2: 448 bits, so the padding needs a second block.
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // Appendix B.3: one million 'a', fed in uneven pieces.
  Sha256 h;
  const std::string piece(997, 'a');
  std::size_t left = 1'000'000;
  while (left > 0) {
    const std::size_t n = std::min(left, piece.size());
    h.update(piece.data(), n);
    left -= n;
  }
  CHECK(h.hex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
