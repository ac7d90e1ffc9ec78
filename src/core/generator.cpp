// The Philox generator's state (seed and offset) and the default CPU generator.
#include <chrono>
#include <random>
#include <thread>

#include "ember/ops.h"
#include "ember/random.h"

namespace ember {

void Generator::lock() const {
  while (busy_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
}

Generator::Generator(const Generator& other) {
  other.lock();
  seed_ = other.seed_;
  offset_ = other.offset_;
  other.unlock();
}

Generator& Generator::operator=(const Generator& other) {
  if (this == &other) return *this;
  other.lock();
  uint64_t s = other.seed_, o = other.offset_;
  other.unlock();
  lock();
  seed_ = s;
  offset_ = o;
  unlock();
  return *this;
}

Generator& Generator::manual_seed(uint64_t seed) {
  lock();
  seed_ = seed;
  offset_ = 0;
  unlock();
  return *this;
}

uint64_t Generator::seed() {
  // random_device may be deterministic on odd platforms; mixing in the clock keeps seeds
  // distinct between runs there too.
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  s ^= static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  lock();
  uint64_t s = seed_;
  unlock();
  return s;
}

uint64_t Generator::offset() const {
  lock();
  uint64_t o = offset_;
  unlock();
  return o;
}

void Generator::set_offset(uint64_t offset) {
  lock();
  offset_ = offset;
  unlock();
}

Tensor Generator::get_state() const {
  lock();
  uint64_t words[2] = {seed_, offset_};
  unlock();
  Tensor t = empty({kStateSize}, kUInt8);
  auto* p = t.data_ptr<uint8_t>();
  for (int w = 0; w < 2; ++w)
    for (int b = 0; b < 8; ++b) p[w * 8 + b] = static_cast<uint8_t>(words[w] >> (8 * b));
  return t;
}

void Generator::set_state(const Tensor& state) {
  EMBER_CHECK(state.defined() && state.dtype() == kUInt8, RuntimeError,
              "set_state(): expected a uint8 tensor of ", kStateSize, " bytes as the RNG state",
              state.defined() ? ", got one of dtype " : "", state.defined() ? dtype_name(state.dtype()) : "");
  EMBER_CHECK(state.numel() == kStateSize, RuntimeError, "set_state(): expected an RNG state of ",
              kStateSize, " bytes, got ", state.numel());
  Tensor s = state.is_cpu() ? state.contiguous() : state.to(kCPU).contiguous();
  const auto* p = s.data_ptr<uint8_t>();
  uint64_t words[2] = {0, 0};
  for (int w = 0; w < 2; ++w)
    for (int b = 0; b < 8; ++b) words[w] |= static_cast<uint64_t>(p[w * 8 + b]) << (8 * b);
  lock();
  seed_ = words[0];
  offset_ = words[1];
  unlock();
}

PhiloxState Generator::advance(uint64_t blocks) {
  lock();
  PhiloxState s{seed_, offset_};
  offset_ += blocks;
  unlock();
  return s;
}

Generator& default_generator() {
  static auto* g = new Generator();  // never destroyed: random ops may run during exit
  return *g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }
uint64_t seed() { return default_generator().seed(); }
uint64_t initial_seed() { return default_generator().initial_seed(); }
Tensor get_rng_state() { return default_generator().get_state(); }
void set_rng_state(const Tensor& state) { default_generator().set_state(state); }

}  // namespace ember
