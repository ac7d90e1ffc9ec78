// Random number generators. Every random op draws from a Generator (the default one unless
// it is given one). Generators are counter-based (Philox4x32-10): the state is a seed and an
// offset, element i of a call is computed from counter (offset + i / values_per_block) alone,
// so results for a seed do not depend on the number of threads. Each call advances the offset
// past the counters it used, so consecutive calls differ.
#pragma once

#include <atomic>
#include <cstdint>

#include "ember/tensor.h"

namespace ember {

// Where a call's random numbers start: Philox key and first counter.
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;  // libtorch's default seed
  static constexpr int64_t kStateSize = 16;                    // bytes of get_state()

  explicit Generator(uint64_t seed = kDefaultSeed) : seed_(seed) {}
  Generator(const Generator& other);
  Generator& operator=(const Generator& other);

  // Sets the seed and restarts the stream (offset 0).
  Generator& manual_seed(uint64_t seed);
  // Seeds from a non-deterministic source and returns the seed used.
  uint64_t seed();
  uint64_t initial_seed() const;
  // Philox blocks (four 32-bit values each) consumed so far.
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // The full state as a uint8 CPU tensor of kStateSize bytes: seed then offset, little-endian.
  Tensor get_state() const;
  // RuntimeError unless `state` is a uint8 tensor of kStateSize elements.
  void set_state(const Tensor& state);
  Device device() const { return kCPU; }

  // Claims `blocks` counters for one call and returns where they start (thread-safe).
  PhiloxState advance(uint64_t blocks);

 private:
  // A spin lock keeps <mutex> out of this header; it is held for a few instructions.
  void lock() const;
  void unlock() const { busy_.clear(std::memory_order_release); }
  mutable std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The generator used when a random op gets none.
Generator& default_generator();
// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);
// Seeds the default generator non-deterministically and returns the seed (torch.seed).
uint64_t seed();
uint64_t initial_seed();
Tensor get_rng_state();
void set_rng_state(const Tensor& state);

}  // namespace ember
