// Non-owning array views and a small inline vector for shapes and strides.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace ember {

// A read-only view of contiguous elements; cheap to pass by value. Like std::span, but
// constructible from an initializer list (so `t.view({2, 3})` works) and from one element.
template <typename T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit on purpose
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
#if defined(__GNUC__) && !defined(__clang__)  // a GCC warning (the tests build with clang)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // Valid for the full expression the list appears in, like any temporary.
  constexpr ArrayRef(std::initializer_list<T> il)  // NOLINT
      : data_(il.begin() == il.end() ? nullptr : il.begin()), size_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  template <typename Container, typename = decltype(std::declval<const Container&>().data())>
  ArrayRef(const Container& c) : data_(c.data()), size_(c.size()) {}  // NOLINT

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef other) const {
    return size_ == other.size_ && std::equal(begin(), end(), other.begin());
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) { return a.equals(b); }

using IntArrayRef = ArrayRef<int64_t>;

// Vector with N elements of inline storage: shapes and strides of up to N dims never touch
// the heap, which keeps tensor creation cheap.
template <typename T, size_t N>
class SmallVector {
 public:
  SmallVector() = default;
  SmallVector(size_t n, T value = T()) { resize(n, value); }
  SmallVector(ArrayRef<T> r) { assign(r.begin(), r.end()); }  // NOLINT
  SmallVector(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { move_from(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) { release(); move_from(std::move(o)); }
    return *this;
  }
  ~SmallVector() { release(); }

  template <typename It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(last - first);
    reserve(n);
    std::copy(first, last, data_);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = std::max(n, cap_ * 2);
    T* p = new T[cap];
    std::copy(data_, data_ + size_, p);
    release();
    data_ = p;
    cap_ = cap;
  }
  void resize(size_t n, T value = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(size_ + 1);
    data_[size_++] = v;
  }
  void insert(size_t pos, T v) {
    push_back(v);
    std::rotate(data_ + pos, data_ + size_ - 1, data_ + size_);
  }
  void erase(size_t pos) {
    std::copy(data_ + pos + 1, data_ + size_, data_ + pos);
    --size_;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  operator ArrayRef<T>() const { return ArrayRef<T>(data_, size_); }  // NOLINT
  ArrayRef<T> ref() const { return ArrayRef<T>(data_, size_); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool operator==(const SmallVector& o) const { return ref().equals(o.ref()); }

 private:
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    cap_ = N;
  }
  void move_from(SmallVector&& o) {
    if (o.data_ == o.inline_) {
      std::copy(o.data_, o.data_ + o.size_, inline_);
      data_ = inline_;
      cap_ = N;
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
};

using DimVector = SmallVector<int64_t, 6>;

}  // namespace ember
