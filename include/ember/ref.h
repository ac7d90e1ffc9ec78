// Intrusive reference counting: one atomic in the object, one pointer in the handle.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;
  uint32_t use_count() const { return refs_.load(std::memory_order_relaxed); }

 private:
  template <typename T> friend class Ref;
  mutable std::atomic<uint32_t> refs_{0};
};

template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}  // NOLINT
  explicit Ref(T* p) : p_(p) { retain(); }
  Ref(const Ref& o) : p_(o.p_) { retain(); }
  Ref(Ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U>
  Ref(Ref<U> o) : p_(o.release()) {}  // NOLINT: upcast
  Ref& operator=(const Ref& o) { Ref(o).swap(*this); return *this; }
  Ref& operator=(Ref&& o) noexcept { Ref(std::move(o)).swap(*this); return *this; }
  ~Ref() { drop(); }

  template <typename... Args>
  static Ref make(Args&&... args) { return Ref(new T(std::forward<Args>(args)...)); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void swap(Ref& o) noexcept { std::swap(p_, o.p_); }
  void reset() { Ref().swap(*this); }
  // Gives up ownership without decrementing.
  T* release() { T* p = p_; p_ = nullptr; return p; }
  static Ref adopt(T* p) { Ref r; r.p_ = p; return r; }
  friend bool operator==(const Ref& a, const Ref& b) { return a.p_ == b.p_; }

 private:
  void retain() {
    if (p_) p_->refs_.fetch_add(1, std::memory_order_relaxed);
  }
  void drop() {
    if (p_ && p_->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
  }
  T* p_ = nullptr;
};

}  // namespace ember
