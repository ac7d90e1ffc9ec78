// The IDX reader (include/ember/data/idx.h). The header is validated field by field before
// anything is allocated; a plain file's size must match the header exactly before the data is
// read, and gzip data is inflated in bounded chunks, so a hostile header cannot make us
// allocate memory that the file does not back with data.
#include <zlib.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

#include "ember/data/idx.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::data {

namespace {

[[noreturn]] void idx_fail(const std::string& path, const std::string& what) {
  EMBER_FAIL(RuntimeError, "read_idx(): '", path, "': ", what);
}

// The bytes of a file, inflated when it is gzip (any number of concatenated members).
class IdxSource {
 public:
  IdxSource(const std::string& path) : path_(path) {
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) idx_fail(path, std::string("cannot open the file: ") + std::strerror(errno));
    struct stat st;
    if (fstat(fileno(f_), &st) != 0 || !S_ISREG(st.st_mode)) {
      std::fclose(f_);
      idx_fail(path, "not a regular file");
    }
    file_size_ = static_cast<uint64_t>(st.st_size);
    unsigned char m[2] = {0, 0};
    size_t got = std::fread(m, 1, 2, f_);
    gzip_ = got == 2 && m[0] == 0x1f && m[1] == 0x8b;
    std::rewind(f_);
    if (gzip_) {
      std::memset(&zs_, 0, sizeof(zs_));
      if (inflateInit2(&zs_, 15 + 16) != Z_OK) {  // +16: gzip wrapper only
        std::fclose(f_);
        idx_fail(path, "cannot initialize zlib");
      }
      in_.resize(1 << 16);
    }
  }
  ~IdxSource() {
    if (gzip_) inflateEnd(&zs_);
    std::fclose(f_);
  }
  IdxSource(const IdxSource&) = delete;
  IdxSource& operator=(const IdxSource&) = delete;

  bool gzip() const { return gzip_; }
  uint64_t file_size() const { return file_size_; }

  // Up to n bytes; fewer only at the end of the data. Corrupt or truncated gzip data throws.
  size_t read(char* out, size_t n) {
    if (!gzip_) {
      size_t got = std::fread(out, 1, n, f_);
      if (got < n && std::ferror(f_)) idx_fail(path_, std::string("read error: ") + std::strerror(errno));
      return got;
    }
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    while (n - produced(out) > 0) {
      zs_.avail_out = static_cast<uInt>(std::min<size_t>(n - produced(out), 1u << 30));
      if (zs_.avail_in == 0) refill();
      if (member_done_) {
        if (zs_.avail_in == 0) break;  // clean end after the last member
        inflateReset(&zs_);             // another member follows
        member_done_ = false;
      }
      int ret = inflate(&zs_, Z_NO_FLUSH);
      if (ret == Z_STREAM_END) {
        member_done_ = true;
      } else if (ret == Z_BUF_ERROR) {  // no progress possible
        if (zs_.avail_in == 0 && eof_) idx_fail(path_, "truncated gzip data (unexpected end of file)");
        idx_fail(path_, "corrupt gzip data");
      } else if (ret != Z_OK) {
        idx_fail(path_, std::string("corrupt gzip data (") + (zs_.msg ? zs_.msg : "zlib error") + ")");
      }
    }
    return produced(out);
  }

 private:
  size_t produced(const char* out) const {
    return static_cast<size_t>(reinterpret_cast<const char*>(zs_.next_out) - out);
  }
  void refill() {
    if (eof_) return;
    size_t got = std::fread(in_.data(), 1, in_.size(), f_);
    if (got < in_.size()) {
      if (std::ferror(f_)) idx_fail(path_, std::string("read error: ") + std::strerror(errno));
      eof_ = true;
    }
    zs_.next_in = in_.data();
    zs_.avail_in = static_cast<uInt>(got);
  }

  std::string path_;
  FILE* f_ = nullptr;
  uint64_t file_size_ = 0;
  bool gzip_ = false, eof_ = false, member_done_ = false;
  z_stream zs_;
  std::vector<Bytef> in_;
};

uint32_t idx_be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

// Big-endian elements to the machine's order, in place.
void idx_to_native(char* p, size_t count, size_t width) {
  if (width == 1 || std::endian::native == std::endian::big) return;
  for (size_t i = 0; i < count; ++i, p += width) {
    if (width == 2) { uint16_t v; std::memcpy(&v, p, 2); v = __builtin_bswap16(v); std::memcpy(p, &v, 2); }
    if (width == 4) { uint32_t v; std::memcpy(&v, p, 4); v = __builtin_bswap32(v); std::memcpy(p, &v, 4); }
    if (width == 8) { uint64_t v; std::memcpy(&v, p, 8); v = __builtin_bswap64(v); std::memcpy(p, &v, 8); }
  }
}

}  // namespace

Tensor read_idx(const std::string& path) {
  IdxSource src(path);
  unsigned char head[4];
  size_t got = src.read(reinterpret_cast<char*>(head), 4);
  if (got < 4) idx_fail(path, "too short for an IDX header (" + std::to_string(got) + " of 4 bytes)");
  if (head[0] != 0 || head[1] != 0) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "not an IDX file (magic number starts 0x%02x 0x%02x, not 0x00 0x00)", head[0],
                  head[1]);
    idx_fail(path, buf);
  }
  ScalarType dtype;
  switch (head[2]) {
    case 0x08: dtype = kUInt8; break;
    case 0x09: dtype = kInt8; break;
    case 0x0B: dtype = kInt16; break;
    case 0x0C: dtype = kInt32; break;
    case 0x0D: dtype = kFloat; break;
    case 0x0E: dtype = kDouble; break;
    default: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "unknown IDX type code 0x%02x", head[2]);
      idx_fail(path, buf);
    }
  }
  int ndim = head[3];
  if (ndim < 1 || ndim > 8) idx_fail(path, "the header declares " + std::to_string(ndim) + " dimensions (1 to 8 supported)");

  unsigned char dims_raw[32];
  got = src.read(reinterpret_cast<char*>(dims_raw), 4 * static_cast<size_t>(ndim));
  if (got < 4 * static_cast<size_t>(ndim))
    idx_fail(path, "truncated header (" + std::to_string(4 + got) + " of " + std::to_string(4 + 4 * ndim) + " bytes)");
  DimVector sizes;
  size_t width = itemsize(dtype);
  uint64_t numel = 1;
  for (int d = 0; d < ndim; ++d) {
    uint32_t s = idx_be32(dims_raw + 4 * d);
    if (__builtin_mul_overflow(numel, uint64_t(s), &numel) || numel > (uint64_t(1) << 62) / width)
      idx_fail(path, "the dimension sizes in the header overflow");
    sizes.push_back(static_cast<int64_t>(s));
  }
  uint64_t nbytes = numel * width;
  uint64_t header = 4 + 4 * static_cast<uint64_t>(ndim);

  Tensor out;
  if (!src.gzip()) {
    // The size on disk must match before anything is allocated.
    uint64_t data = src.file_size() - header;
    if (data < nbytes)
      idx_fail(path, "truncated data (" + std::to_string(data) + " of " + std::to_string(nbytes) + " bytes)");
    if (data > nbytes) idx_fail(path, std::to_string(data - nbytes) + " trailing bytes after the data");
    out = empty(sizes, dtype);
    got = src.read(static_cast<char*>(out.data_ptr()), nbytes);
    if (got < nbytes) idx_fail(path, "the file shrank while it was read");
  } else {
    // Inflated in chunks: memory follows the data that is really there.
    std::vector<char> buf;
    constexpr uint64_t kChunk = 1 << 24;
    while (buf.size() < nbytes) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, nbytes - buf.size()));
      size_t at = buf.size();
      buf.resize(at + want);
      got = src.read(buf.data() + at, want);
      if (got < want)
        idx_fail(path, "truncated data (" + std::to_string(at + got) + " of " + std::to_string(nbytes) + " bytes)");
    }
    char extra;
    if (src.read(&extra, 1) != 0) idx_fail(path, "trailing bytes after the data");
    out = empty(sizes, dtype);
    if (nbytes) std::memcpy(out.data_ptr(), buf.data(), nbytes);
  }
  idx_to_native(static_cast<char*>(out.data_ptr()), static_cast<size_t>(numel), width);
  return out;
}

}  // namespace ember::data
