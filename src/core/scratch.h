// Scratch arrays for kernels, from the caching CPU allocator. A large temporary buffer taken
// from the system on every call is page-faulted in afresh each time, which on some machines
// costs more than the work itself (sort of 1M floats: 110 ms with new[], 11 ms from the cache).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/storage.h"

namespace ember {

template <typename T>
class ScratchArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  explicit ScratchArray(int64_t n)
      : mem_(cpu_allocator()->allocate(sizeof(T) * static_cast<size_t>(std::max<int64_t>(n, 1)))) {}
  T* get() const { return static_cast<T*>(mem_.data); }
  T& operator[](size_t i) const { return get()[i]; }

 private:
  DataPtr mem_;
};

}  // namespace ember
