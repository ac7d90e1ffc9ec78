// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Block b of a stream is philox(counter = b, key = seed), so any
// element can be computed on its own: results do not depend on how work is split between
// threads. Internal header, shared by the generator, the random ops and the CPU kernels.
#pragma once

#include <cstdint>

namespace ember::philox {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
constexpr int kRounds = 10;

struct Block {
  uint32_t v[4];
};

// One block for a 128-bit counter (c0 lowest word) and a 64-bit key.
inline Block block(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += kW0;
    k1 += kW1;
  }
  return {{c0, c1, c2, c3}};
}

// Block number `counter` of the stream of `seed` (the counter's upper 64 bits are zero).
inline Block block(uint64_t seed, uint64_t counter) {
  return block(static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0,
               static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// Uniform floats from random bits: [0, 1) with 24 (float) or 53 (double) random bits.
inline float to_float01(uint32_t x) { return static_cast<float>(x >> 8) * (1.0f / 16777216.0f); }
inline double to_double01(uint32_t hi, uint32_t lo) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace ember::philox
