// ember::data: datasets, samplers, the DataLoader (ordering for any number of workers, the
// bounded prefetch, exceptions from workers, early destruction) and the IDX reader on valid
// and hostile files written here (every truncation of a small file, bad headers, gzip).
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <set>
#include <thread>
#include <unistd.h>

#include "ember/data.h"
#include "ember/random.h"
#include "test_util.h"

namespace ember::data_test {

using namespace ember::data;
using ember::testing::expect_error;
using ember::testing::values;

std::shared_ptr<TensorDataset> range_dataset(int64_t n) {
  Tensor x = arange(n, kInt64);
  return std::make_shared<TensorDataset>(std::vector<Tensor>{x, x.mul(10)});
}

// Runs f on another thread; a hang fails the test (and ends the binary) instead of blocking CI.
template <typename F>
void within_seconds(int seconds, F f) {
  std::promise<void> done;
  auto fut = done.get_future();
  std::thread t([&] {
    f();
    done.set_value();
  });
  if (fut.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
    std::fprintf(stderr, "data_test: hang (no result within %d s)\n", seconds);
    std::_Exit(1);
  }
  t.join();
}

std::vector<std::vector<int64_t>> first_fields(DataLoader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (const Batch& b : loader) out.push_back(values<int64_t>(b[0]));
  return out;
}

// ---------------------------------------------------------------- datasets
TEST(Data, TensorDataset) {
  auto ds = range_dataset(5);
  EXPECT_EQ(ds->size(), 5);
  Example e = ds->get(3);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].item<int64_t>(), 3);
  EXPECT_EQ(e[1].item<int64_t>(), 30);
  EXPECT_EQ(e[0].dim(), 0);
  expect_error<ValueError>([] { TensorDataset({zeros({3}), zeros({4})}); }, "Size mismatch between tensors");
  expect_error<IndexError>([&] { ds->get(5); }, "out of bounds");
}

TEST(Data, ConcatAndSubset) {
  auto cat = std::make_shared<ConcatDataset>(std::vector<DatasetPtr>{range_dataset(3), range_dataset(2)});
  EXPECT_EQ(cat->size(), 5);
  EXPECT_EQ(cat->cumulative_sizes(), (std::vector<int64_t>{3, 5}));
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 5; ++i) got.push_back(cat->get(i)[0].item<int64_t>());
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 0, 1}));
  EXPECT_EQ(cat->get(-1)[0].item<int64_t>(), 1);
  EXPECT_EQ(cat->get(-5)[0].item<int64_t>(), 0);
  expect_error<ValueError>([&] { cat->get(-6); }, "absolute value of index should not exceed dataset length");
  expect_error<IndexError>([&] { cat->get(5); }, "out of range");

  Subset sub(range_dataset(10), {7, 2, 9});
  EXPECT_EQ(sub.size(), 3);
  EXPECT_EQ(sub.get(1)[1].item<int64_t>(), 20);
  EXPECT_EQ(sub.get(-1)[0].item<int64_t>(), 9);
  expect_error<IndexError>([&] { sub.get(3); }, "out of range");
}

TEST(Data, RandomSplit) {
  auto ds = range_dataset(10);
  Generator g(3);
  auto parts = random_split(ds, {3, 7}, &g);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0]->size(), 3);
  EXPECT_EQ(parts[1]->size(), 7);
  std::set<int64_t> all;
  for (auto& p : parts)
    for (int64_t i : p->indices()) all.insert(i);
  EXPECT_EQ(all.size(), 10u);
  // Same seed, same split.
  Generator g2(3);
  EXPECT_EQ(random_split(ds, {3, 7}, &g2)[0]->indices(), parts[0]->indices());
  // Fractions: floor each (2, 2, 5), the remainder of 1 goes to the first.
  auto fr = random_split(ds, {0.25, 0.25, 0.5}, &g);
  EXPECT_EQ(fr[0]->size(), 3);
  EXPECT_EQ(fr[1]->size(), 2);
  EXPECT_EQ(fr[2]->size(), 5);
  expect_error<ValueError>([&] { random_split(ds, {3, 8}); },
                           "Sum of input lengths does not equal the length of the input dataset!");
  expect_error<ValueError>([&] { random_split(ds, {1.5, -0.5}); }, "Fraction at index 0 is not between 0 and 1");
}

// ---------------------------------------------------------------- samplers
TEST(Data, Samplers) {
  EXPECT_EQ(SequentialSampler(4).indices(), (std::vector<int64_t>{0, 1, 2, 3}));

  manual_seed(5);
  RandomSampler rs(50);
  auto a = rs.indices();
  auto b = rs.indices();
  EXPECT_NE(a, b);  // a new order every epoch
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, SequentialSampler(50).indices());
  manual_seed(5);
  EXPECT_EQ(rs.indices(), a);  // reproducible from the default generator

  RandomSampler rep(4, true, 70);
  auto r = rep.indices();
  EXPECT_EQ(r.size(), 70u);
  for (int64_t i : r) EXPECT_TRUE(i >= 0 && i < 4);
  RandomSampler more(4, false, 10);
  EXPECT_EQ(more.indices().size(), 10u);
  expect_error<ValueError>([] { RandomSampler(0); }, "num_samples should be a positive integer value");

  SubsetRandomSampler srs({10, 20, 30});
  auto s = srs.indices();
  std::sort(s.begin(), s.end());
  EXPECT_EQ(s, (std::vector<int64_t>{10, 20, 30}));

  WeightedRandomSampler w({0, 1, 0, 3}, 200);
  for (int64_t i : w.indices()) EXPECT_TRUE(i == 1 || i == 3);
  WeightedRandomSampler w2({1, 1, 1}, 3, false);
  auto wi = w2.indices();
  std::sort(wi.begin(), wi.end());
  EXPECT_EQ(wi, (std::vector<int64_t>{0, 1, 2}));

  BatchSampler bs(std::make_shared<SequentialSampler>(7), 3, false);
  EXPECT_EQ(bs.size(), 3);
  auto batches = bs.batches();
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[2], (std::vector<int64_t>{6}));
  BatchSampler bd(std::make_shared<SequentialSampler>(7), 3, true);
  EXPECT_EQ(bd.size(), 2);
  EXPECT_EQ(bd.batches().size(), 2u);
  expect_error<ValueError>([] { BatchSampler(std::make_shared<SequentialSampler>(3), 0, false); },
                           "batch_size should be a positive integer value");
}

TEST(Data, DistributedSampler) {
  // 10 indices over 3 replicas: padded to 12 with the first two again.
  DistributedSampler d0(10, 3, 0, false), d2(10, 3, 2, false);
  EXPECT_EQ(d0.size(), 4);
  EXPECT_EQ(d0.indices(), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(d2.indices(), (std::vector<int64_t>{2, 5, 8, 1}));
  DistributedSampler drop(10, 3, 1, false, 0, true);
  EXPECT_EQ(drop.size(), 3);
  EXPECT_EQ(drop.indices(), (std::vector<int64_t>{1, 4, 7}));
  // Shuffled: the replicas partition one permutation; set_epoch changes it.
  std::vector<int64_t> all;
  for (int64_t r = 0; r < 2; ++r) {
    DistributedSampler ds(8, 2, r, true, 7);
    auto idx = ds.indices();
    all.insert(all.end(), idx.begin(), idx.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, SequentialSampler(8).indices());
  DistributedSampler e(100, 2, 0, true, 7);
  auto e0 = e.indices();
  e.set_epoch(1);
  EXPECT_NE(e.indices(), e0);
  e.set_epoch(0);
  EXPECT_EQ(e.indices(), e0);
  expect_error<ValueError>([] { DistributedSampler(4, 2, 2); }, "Invalid rank 2, rank should be in the interval [0, 1]");
}

// ---------------------------------------------------------------- DataLoader
TEST(Data, LoaderBatches) {
  DataLoader loader(range_dataset(10), {.batch_size = 4});
  EXPECT_EQ(loader.size(), 3);
  std::vector<std::vector<int64_t>> seen;
  for (const Batch& b : loader) {
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(b[0].dim(), 1);
    EXPECT_TRUE(values<int64_t>(b[1]) == values<int64_t>(b[0].mul(10)));
    seen.push_back(values<int64_t>(b[0]));
  }
  EXPECT_EQ(seen, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  DataLoader dl(range_dataset(10), {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(dl.size(), 2);
  EXPECT_EQ(first_fields(dl).size(), 2u);
  // 2-D examples stack into 3-D batches.
  auto img = std::make_shared<TensorDataset>(std::vector<Tensor>{zeros({6, 2, 3})});
  DataLoader il(img, {.batch_size = 4});
  EXPECT_EQ((*il.begin())[0].sizes(), IntArrayRef({4, 2, 3}));
  expect_error<ValueError>([] { DataLoader(range_dataset(3), {.batch_size = 0}); }, "batch_size should be a positive");
  expect_error<ValueError>([] { DataLoader(range_dataset(3), {.num_workers = -1}); }, "num_workers option should be non-negative");
  expect_error<ValueError>(
      [] { DataLoader(range_dataset(3), {.shuffle = true, .sampler = std::make_shared<SequentialSampler>(3)}); },
      "sampler option is mutually exclusive with shuffle");
}

TEST(Data, LoaderSameBatchesForAnyWorkerCount) {
  std::vector<std::vector<int64_t>> ref;
  for (int64_t workers : {0, 1, 3}) {
    DataLoader loader(range_dataset(103), {.batch_size = 8, .shuffle = true, .num_workers = workers, .seed = 11});
    auto epoch1 = first_fields(loader);
    auto epoch2 = first_fields(loader);
    EXPECT_NE(epoch1, epoch2);  // a new shuffle per epoch
    epoch1.insert(epoch1.end(), epoch2.begin(), epoch2.end());
    if (ref.empty()) ref = epoch1;
    EXPECT_EQ(epoch1, ref) << workers << " workers";
  }
  std::vector<int64_t> flat;
  for (size_t i = 0; i < 13; ++i) flat.insert(flat.end(), ref[i].begin(), ref[i].end());
  std::sort(flat.begin(), flat.end());
  EXPECT_EQ(flat, SequentialSampler(103).indices());
  // Without a seed, the default generator decides.
  for (int64_t workers : {0, 2}) {
    manual_seed(1);
    DataLoader a(range_dataset(20), {.batch_size = 5, .shuffle = true, .num_workers = workers});
    auto fa = first_fields(a);
    manual_seed(1);
    DataLoader b(range_dataset(20), {.batch_size = 5, .shuffle = true});
    EXPECT_EQ(fa, first_fields(b));
  }
}

// Counts get() calls; optionally slow, optionally throwing at one index.
class ProbeDataset : public Dataset {
 public:
  ProbeDataset(int64_t n, int64_t throw_at = -1, int sleep_ms = 0) : n_(n), throw_at_(throw_at), sleep_ms_(sleep_ms) {}
  Example get(int64_t index) const override {
    calls.fetch_add(1);
    if (sleep_ms_) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    if (index == throw_at_) EMBER_FAIL(ValueError, "bad sample ", index);
    return {scalar_tensor(Scalar(index), kInt64)};
  }
  int64_t size() const override { return n_; }
  mutable std::atomic<int64_t> calls{0};

 private:
  int64_t n_, throw_at_;
  int sleep_ms_;
};

TEST(Data, LoaderExceptionsReachTheIteratingThread) {
  for (int64_t workers : {0, 2}) {
    within_seconds(60, [&] {
      DataLoader loader(std::make_shared<ProbeDataset>(20, 9), {.batch_size = 4, .num_workers = workers});
      auto it = loader.begin();
      EXPECT_EQ(values<int64_t>((*it)[0]), (std::vector<int64_t>{0, 1, 2, 3}));
      ++it;
      expect_error<ValueError>([&] { ++it; }, "bad sample 9");  // batch 2 holds index 9
      ++it;  // the loader goes on after the failed batch
      EXPECT_EQ(values<int64_t>((*it)[0]), (std::vector<int64_t>{12, 13, 14, 15}));
    });
  }
}

TEST(Data, LoaderPrefetchIsBoundedAndEarlyDestructionJoins) {
  within_seconds(60, [] {
    auto ds = std::make_shared<ProbeDataset>(1000, -1, 1);
    {
      DataLoader loader(ds, {.batch_size = 2, .num_workers = 2, .prefetch_factor = 1});
      auto it = loader.begin();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      // The batch taken, plus at most num_workers * prefetch_factor batches in flight.
      EXPECT_LE(ds->calls.load(), (1 + 2 * 1) * 2);
      EXPECT_GE(ds->calls.load(), 2);
    }  // the iterator goes mid-epoch: its workers stop and are joined
    int64_t after = ds->calls.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(ds->calls.load(), after);
  });
}

// Workers run ops on one intra-op thread each (torch's workers do too); the caller keeps its count.
class ThreadCountDataset : public Dataset {
 public:
  Example get(int64_t) const override { return {scalar_tensor(Scalar(int64_t(get_num_threads())), kInt64)}; }
  int64_t size() const override { return 4; }
};

TEST(Data, LoaderWorkersUseOneIntraOpThread) {
  ember::testing::Threads threads(3);
  DataLoader loader(std::make_shared<ThreadCountDataset>(), {.batch_size = 2, .num_workers = 2});
  for (const auto& v : first_fields(loader)) EXPECT_EQ(v, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(get_num_threads(), 3);
}

TEST(Data, LoaderCustomCollateAndSampler) {
  CollateFn sum_collate = [](std::vector<Example> ex) {
    Tensor s = zeros({}, kInt64);
    for (auto& e : ex) s = s.add(e[0]);
    return Batch{s};
  };
  DataLoader loader(range_dataset(6), {.batch_size = 3, .num_workers = 1,
                                       .sampler = std::make_shared<SubsetRandomSampler>(std::vector<int64_t>{0, 1, 2}),
                                       .collate = sum_collate});
  auto batches = first_fields(loader);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0], (std::vector<int64_t>{3}));
  expect_error<RuntimeError>([] { default_collate({{zeros({1})}, {zeros({1}), zeros({1})}}); },
                             "each element in list of batch should be of equal size");
}

// ---------------------------------------------------------------- IDX
class IdxFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ember_idx_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes, bool gz = false) {
    std::string path = (dir_ / name).string();
    if (gz) {
      gzFile f = gzopen(path.c_str(), "wb");
      gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
      gzclose(f);
    } else {
      std::FILE* f = std::fopen(path.c_str(), "wb");
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
    }
    return path;
  }
  static std::string read_bytes(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
    return s;
  }
  static std::string header(unsigned char type, std::vector<uint32_t> dims) {
    std::string h = {'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
    for (uint32_t d : dims)
      for (int s = 24; s >= 0; s -= 8) h.push_back(static_cast<char>((d >> s) & 0xff));
    return h;
  }
  std::filesystem::path dir_;
};

TEST_F(IdxFiles, ReadsEveryTypePlainAndGzip) {
  std::string u8 = header(0x08, {2, 3}) + std::string("\x00\x01\x02\x03\xfe\xff", 6);
  for (bool gz : {false, true}) {
    Tensor t = read_idx(write(gz ? "u8.gz" : "u8", u8, gz));
    EXPECT_EQ(t.dtype(), kUInt8);
    EXPECT_EQ(t.sizes(), IntArrayRef({2, 3}));
    EXPECT_EQ(values<uint8_t>(t), (std::vector<uint8_t>{0, 1, 2, 3, 254, 255}));
  }
  EXPECT_EQ(values<int8_t>(read_idx(write("i8", header(0x09, {2}) + std::string("\xff\x7f", 2)))),
            (std::vector<int8_t>{-1, 127}));
  EXPECT_EQ(values<int16_t>(read_idx(write("i16", header(0x0B, {2}) + std::string("\x01\x02\xff\xfe", 4)))),
            (std::vector<int16_t>{258, -2}));
  EXPECT_EQ(values<int32_t>(read_idx(write("i32", header(0x0C, {1}) + std::string("\x80\x00\x00\x01", 4)))),
            (std::vector<int32_t>{INT32_MIN + 1}));
  EXPECT_EQ(values<float>(read_idx(write("f32", header(0x0D, {1}) + std::string("\x3f\xc0\x00\x00", 4)))),
            (std::vector<float>{1.5f}));
  Tensor f64 = read_idx(write("f64.gz", header(0x0E, {1, 1}) + std::string("\xc0\x04\x00\x00\x00\x00\x00\x00", 8), true));
  EXPECT_EQ(f64.dtype(), kDouble);
  EXPECT_EQ(values<double>(f64), (std::vector<double>{-2.5}));
  EXPECT_EQ(read_idx(write("empty", header(0x08, {0, 28}))).sizes(), IntArrayRef({0, 28}));
}

TEST_F(IdxFiles, EveryTruncationIsAnError) {
  std::string valid = header(0x0B, {3, 2}) + std::string("\x00\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00\x06", 12);
  for (size_t n = 0; n < valid.size(); ++n) {
    std::string path = write("t", valid.substr(0, n));
    expect_error<RuntimeError>([&] { read_idx(path); }, path);
  }
  // A gzip stream cut anywhere, also inside its trailer.
  std::string gz = read_bytes(write("v.gz", valid, true));
  EXPECT_EQ(read_idx(write("whole.gz", gz)).numel(), 6);
  for (size_t n = 2; n < gz.size(); ++n) {
    std::string path = write("t.gz", gz.substr(0, n));
    expect_error<RuntimeError>([&] { read_idx(path); }, "read_idx(): '" + path + "'");
  }
}

TEST_F(IdxFiles, HostileHeaders) {
  auto fails = [&](const std::string& bytes, const std::string& msg, bool gz = false) {
    std::string path = write(gz ? "bad.gz" : "bad", bytes, gz);
    expect_error<RuntimeError>([&] { read_idx(path); }, msg);
  };
  fails(std::string("\x01\x00\x08\x01\x00\x00\x00\x00", 8), "not an IDX file");
  fails(std::string("PK\x03\x04", 4), "not an IDX file");
  fails(header(0x0A, {1}) + "x", "unknown IDX type code 0x0a");
  fails(header(0x08, {}), "declares 0 dimensions");
  fails(header(0x08, {1, 1, 1, 1, 1, 1, 1, 1, 1}) + "x", "declares 9 dimensions");
  fails(header(0x0E, {0xffffffffu, 0xffffffffu, 0xffffffffu}), "overflow");
  fails(header(0x0E, {0xffffffffu, 0xffffffffu, 0xffffffffu}), "overflow", true);
  fails(header(0x08, {0x7fffffffu, 0x7fffffffu}) + "abc", "truncated data");
  fails(header(0x08, {0x7fffffffu, 0x7fffffffu}) + "abc", "truncated data", true);
  fails(header(0x08, {2}) + "abc", "1 trailing bytes");
  fails(header(0x08, {2}) + "abc", "trailing bytes", true);
  // Corrupt deflate data after a valid gzip header.
  std::string gz = read_bytes(write("v.gz", header(0x08, {4}) + "abcd", true));
  for (size_t i = 10; i < gz.size() - 8; ++i) gz[i] = static_cast<char>(~gz[i]);
  fails(gz, "gzip");
  std::string missing = (dir_ / "no_such_file").string();
  expect_error<RuntimeError>([&] { read_idx(missing); }, missing);
  expect_error<RuntimeError>([&] { read_idx(dir_.string()); }, "not a regular file");
}

TEST_F(IdxFiles, ConcatenatedGzipMembers) {
  std::string a = read_bytes(write("a.gz", header(0x08, {4}) + "ab", true));
  std::string b = read_bytes(write("b.gz", std::string("cd"), true));
  Tensor t = read_idx(write("ab.gz", a + b));
  EXPECT_EQ(values<uint8_t>(t), (std::vector<uint8_t>{'a', 'b', 'c', 'd'}));
}

}  // namespace ember::data_test
