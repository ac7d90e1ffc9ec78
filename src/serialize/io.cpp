// ember::save / ember::load: where the bytes of format.cpp go to and come from (memory, file
// descriptors), atomic replacement of files, and the state-dict conveniences.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ember/serialize.h"
#include "serialize/format.h"

namespace ember {
namespace serialize_detail {
namespace {

class BytesSource : public Source {
 public:
  explicit BytesSource(std::string_view b) : b_(b) {}
  uint64_t size() const override { return b_.size(); }
  void read(uint64_t offset, void* dst, size_t n) const override {
    EMBER_INTERNAL_ASSERT(offset <= b_.size() && n <= b_.size() - offset);
    std::memcpy(dst, b_.data() + offset, n);
  }

 private:
  std::string_view b_;
};

class FdSource : public Source {
 public:
  FdSource(int fd, const std::string& name) : fd_(fd), name_(name) {
    struct stat st;
    if (fstat(fd, &st) != 0) EMBER_FAIL(RuntimeError, "ember.load: ", name, ": ", std::strerror(errno));
    EMBER_CHECK(S_ISREG(st.st_mode), RuntimeError, "ember.load: ", name, ": not a regular file");
    size_ = static_cast<uint64_t>(st.st_size);
  }
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, size_t n) const override {
    auto* p = static_cast<char*>(dst);
    while (n > 0) {
      const ssize_t r = pread(fd_, p, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) EMBER_FAIL(RuntimeError, "ember.load: ", name_, ": read failed: ", std::strerror(errno));
      // The file shrank after fstat: its size no longer matches the validated header.
      if (r == 0) EMBER_FAIL(RuntimeError, "ember.load: ", name_, ": unexpected end of file (modified while loading?)");
      p += r;
      n -= static_cast<size_t>(r);
      offset += static_cast<uint64_t>(r);
    }
  }

 private:
  int fd_;
  const std::string& name_;
  uint64_t size_ = 0;
};

// Closes a descriptor and removes the temporary file unless release()d.
struct TempFile {
  int fd = -1;
  std::string path;
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!path.empty()) ::unlink(path.c_str());
  }
};

[[noreturn]] void io_fail(const std::string& path, const std::string& what) {
  EMBER_FAIL(RuntimeError, "ember.save: ", path, ": ", what, ": ", std::strerror(errno));
}

void write_all(int fd, const char* p, uint64_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, std::min<uint64_t>(n, 1u << 30));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) serialize_detail::io_fail(path, "write failed");
    p += w;
    n -= static_cast<uint64_t>(w);
  }
}

}  // namespace
}  // namespace serialize_detail

std::string save_to_bytes(const Value& obj) {
  serialize_detail::Archive a = serialize_detail::encode(obj);
  std::string out;
  out.reserve(a.header.size() + a.data_bytes);
  out += a.header;
  for (const Tensor& t : a.tensors) out.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
  return out;
}

void save(const Value& obj, const std::string& path) {
  namespace fs = std::filesystem;
  // Everything that can be refused is refused here, before any file is touched.
  serialize_detail::Archive a = serialize_detail::encode(obj);
  const fs::path target(path);
  const std::string base = target.filename().string();
  EMBER_CHECK(!base.empty() && base != "." && base != "..", ValueError, "ember.save: ", path, ": not a file name");
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";

  // A fresh name in the same directory (rename is atomic only within a file system); O_EXCL
  // never reuses someone else's file, and mode 0666 lets the umask decide as for any new file.
  static std::atomic<uint64_t> counter{0};
  serialize_detail::TempFile tmp;
  for (int attempt = 0; tmp.fd < 0; ++attempt) {
    const std::string name = dir + "/." + base + ".tmp" + std::to_string(getpid()) + "." + std::to_string(counter++);
    tmp.fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (tmp.fd >= 0) tmp.path = name;
    else if (errno != EEXIST || attempt > 100)
      serialize_detail::io_fail(path, "cannot create a temporary file in '" + dir + "'");
  }
  serialize_detail::write_all(tmp.fd, a.header.data(), a.header.size(), path);
  for (const Tensor& t : a.tensors)
    serialize_detail::write_all(tmp.fd, static_cast<const char*>(t.data_ptr()), t.nbytes(), path);
  if (::fsync(tmp.fd) != 0) serialize_detail::io_fail(path, "fsync failed");
  const int fd = tmp.fd;
  tmp.fd = -1;
  if (::close(fd) != 0) serialize_detail::io_fail(path, "close failed");
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) serialize_detail::io_fail(path, "cannot replace the file");
  tmp.path.clear();  // renamed: nothing to remove any more
  // Makes the rename itself durable. File systems that cannot sync a directory say EINVAL.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    const int rc = ::fsync(dfd);
    const int err = errno;
    ::close(dfd);
    errno = err;
    if (rc != 0 && err != EINVAL && err != ENOTSUP) serialize_detail::io_fail(path, "fsync of the directory failed");
  }
}

Value load_from_bytes(std::string_view bytes, const std::string& name) {
  return serialize_detail::decode(serialize_detail::BytesSource(bytes), name);
}

Value load_from_fd(int fd, const std::string& name) {
  return serialize_detail::decode(serialize_detail::FdSource(fd, name), name);
}

Value load(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) EMBER_FAIL(RuntimeError, "ember.load: ", path, ": ", std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  return load_from_fd(fd, path);
}

Value to_value(const nn::StateDict& dict) {
  Value v = Value::dict();
  v.entries().reserve(dict.size());
  for (const auto& [name, tensor] : dict) v.entries().emplace_back(Value(name), Value(tensor));
  return v;
}

nn::StateDict to_state_dict(const Value& v) {
  EMBER_CHECK(v.is_dict(), RuntimeError, "ember: a state dict must be a dict of str to Tensor, not ",
              Value::kind_name(v.kind()));
  nn::StateDict dict;
  for (const auto& [key, value] : v.entries()) {
    EMBER_CHECK(key.is_string() && value.is_tensor(), RuntimeError,
                "ember: a state dict must be a dict of str to Tensor; it holds ", key.repr(), ": ",
                Value::kind_name(value.kind()));
    dict.insert(key.to_string(), value.to_tensor());
  }
  return dict;
}

void save(const nn::Module& module, const std::string& path) { save(to_value(module.state_dict()), path); }

nn::LoadStateDictResult load(nn::Module& module, const std::string& path, bool strict) {
  return module.load_state_dict(to_state_dict(load(path)), strict);
}

}  // namespace ember
