// The Fashion-MNIST demo in C++ (build/examples/fashion_mnist): the CNN of model.py with
// ember::nn, Adam and a cosine learning-rate schedule (the values of
// settings.py), a progress line per epoch, a checkpoint of model, optimizer, scheduler and
// epoch after every epoch (ember::save writes it atomically), and a check that the checkpoint
// reloads into a fresh model with the same test accuracy.
//
//   fashion_mnist [--epochs 3] [--batch-size 64] [--threads N] [--checkpoint PATH] [--resume]
//                 [--limit N] [--data-dir DIR]
//
// --limit N uses the first N samples of each split (the tests' short mode); --resume continues
// from --checkpoint up to --epochs. The last line is `seconds_per_epoch S`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/data.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/parallel.h"
#include "ember/serialize.h"

using namespace ember;

namespace {

using Clock = std::chrono::steady_clock;

// settings.py's values.
constexpr double kMean = 0.2860, kStd = 0.3530;
constexpr double kLr = 2e-3;

struct Args {
  int64_t epochs = 3, batch_size = 64, threads = 0, limit = 0;
  std::string checkpoint = "fashion_mnist.ckpt";
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  bool resume = false;
};

[[noreturn]] void usage(const char* prog, const std::string& problem) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s [--epochs N] [--batch-size B] [--threads T] [--checkpoint PATH] [--resume] "
               "[--limit N] [--data-dir DIR]\n",
               prog, problem.c_str(), prog);
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--resume") {
      a.resume = true;
      continue;
    }
    if (i + 1 >= argc) usage(argv[0], "missing value after " + flag);
    const std::string value = argv[++i];
    auto number = [&](int64_t min) {
      char* end = nullptr;
      const long long v = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || v < min)
        usage(argv[0], flag + " needs an integer of at least " + std::to_string(min) + ", got '" + value + "'");
      return static_cast<int64_t>(v);
    };
    if (flag == "--epochs") a.epochs = number(1);
    else if (flag == "--batch-size") a.batch_size = number(1);
    else if (flag == "--threads") a.threads = number(0);
    else if (flag == "--limit") a.limit = number(0);
    else if (flag == "--checkpoint") a.checkpoint = value;
    else if (flag == "--data-dir") a.data_dir = value;
    else usage(argv[0], "unknown option " + flag);
  }
  return a;
}

// model.py's CNN: two blocks of 3x3 'same' convolution (no bias: BatchNorm's shift replaces
// it), BatchNorm, ReLU, 2x2 max pooling and dropout, then a linear head over 64x7x7 features.
std::shared_ptr<nn::Sequential> make_cnn(double dropout = 0.25) {
  auto conv = [](int64_t in, int64_t out) {
    return nn::Conv2d({.in_channels = in, .out_channels = out, .kernel_size = {3}, .padding = {1}, .bias = false});
  };
  auto pool = [] { return nn::MaxPool2d({.kernel_size = {2}}); };
  return std::make_shared<nn::Sequential>(conv(1, 32), nn::BatchNorm2d(32), nn::ReLU(), pool(), nn::Dropout(dropout),
                                          conv(32, 64), nn::BatchNorm2d(64), nn::ReLU(), pool(), nn::Dropout(dropout),
                                          nn::Flatten(), nn::Linear(64 * 7 * 7, 10));
}

// Normalized images [N, 1, 28, 28] (float32) and labels [N] (int64) of "train" or "t10k".
std::pair<Tensor, Tensor> load(const Args& a, const std::string& split) {
  const std::string images = a.data_dir + "/" + split + "-images-idx3-ubyte.gz";
  const std::string labels = a.data_dir + "/" + split + "-labels-idx1-ubyte.gz";
  for (const std::string& p : {images, labels})
    if (!std::filesystem::exists(p))
      throw std::runtime_error(p + " not found: the Fashion-MNIST files come with the Debian package "
                               "dataset-fashion-mnist (sudo apt-get install dataset-fashion-mnist), "
                               "or pass --data-dir");
  Tensor x = data::read_idx(images), y = data::read_idx(labels);
  if (a.limit > 0 && a.limit < x.size(0)) {
    x = x.narrow(0, 0, a.limit);
    y = y.narrow(0, 0, a.limit);
  }
  x = x.to(kFloat).div_(255.0).sub_(kMean).div_(kStd).unsqueeze(1);
  return {x, y.to(kInt64)};
}

// One line per epoch: rewritten in place with \r on a terminal, else a line every 10 s.
class Progress {
 public:
  Progress(int64_t epoch, int64_t epochs, int64_t total)
      : prefix_("epoch " + std::to_string(epoch) + "/" + std::to_string(epochs)), total_(total),
        tty_(isatty(STDOUT_FILENO) != 0), start_(Clock::now()), last_(start_) {}

  void update(int64_t seen, double loss, int64_t correct) {
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (since < (tty_ ? 0.1 : 10.0)) return;
    last_ = now;
    print(seen, loss, correct, tty_ ? "\r" : "", tty_ ? "" : "\n");
  }
  void close(int64_t seen, double loss, int64_t correct) { print(seen, loss, correct, tty_ ? "\r" : "", "\n"); }

 private:
  void print(int64_t seen, double loss, int64_t correct, const char* lead, const char* tail) {
    const double secs = std::chrono::duration<double>(Clock::now() - start_).count();
    constexpr int64_t width = 20;
    const std::string bar(static_cast<size_t>(width * seen / total_), '#');
    std::printf("%s%s [%-20s] %lld/%lld  loss %.4f  accuracy %.2f%%  %.0f samples/s%s", lead, prefix_.c_str(),
                bar.c_str(), static_cast<long long>(seen), static_cast<long long>(total_), loss / seen,
                100.0 * correct / seen, seen / std::max(secs, 1e-9), tail);
    std::fflush(stdout);
  }

  std::string prefix_;
  int64_t total_;
  bool tty_;
  Clock::time_point start_, last_;
};

struct EpochResult {
  double loss, accuracy, seconds;
};

EpochResult train_epoch(nn::Sequential& model, data::DataLoader& loader, optim::Optimizer& opt,
                        optim::LRScheduler& sched, nn::CrossEntropyLoss& loss_fn, Progress& progress) {
  model.train();
  const auto start = Clock::now();
  double total = 0;
  int64_t correct = 0, seen = 0;
  for (const data::Batch& batch : loader) {
    const Tensor &x = batch[0], &y = batch[1];
    opt.zero_grad();
    const Tensor out = model(x);
    const Tensor loss = loss_fn(out, y);
    autograd::backward({loss});
    opt.step();
    sched.step();
    const int64_t n = y.size(0);
    total += loss.item<double>() * static_cast<double>(n);
    correct += argmax(out, 1).eq(y).sum().item<int64_t>();
    seen += n;
    progress.update(seen, total, correct);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  progress.close(seen, total, correct);
  return {total / static_cast<double>(seen), static_cast<double>(correct) / static_cast<double>(seen), seconds};
}

double evaluate(nn::Sequential& model, const Tensor& x, const Tensor& y, int64_t batch = 1000) {
  model.eval();
  autograd::NoGradGuard no_grad;
  int64_t correct = 0;
  for (int64_t i = 0; i < x.size(0); i += batch) {
    const int64_t n = std::min(batch, x.size(0) - i);
    correct += argmax(model(x.narrow(0, i, n)), 1).eq(y.narrow(0, i, n)).sum().item<int64_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(x.size(0));
}

void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer& opt,
                     const optim::LRScheduler& sched, int64_t epoch) {
  Value ckpt = Value::dict();
  ckpt.set("model", to_value(model.state_dict()));
  ckpt.set("optimizer", opt.state_dict());
  ckpt.set("scheduler", sched.state_dict());
  ckpt.set("epoch", epoch);
  ember::save(ckpt, path);  // atomic: a temporary file renamed over path
}

int run(const Args& args) {
  if (args.threads > 0) set_num_threads(static_cast<int>(args.threads));
  manual_seed(0);
  const auto [train_x, train_y] = load(args, "train");
  const auto [test_x, test_y] = load(args, "t10k");
  data::DataLoader loader(std::make_shared<data::TensorDataset>(std::vector<Tensor>{train_x, train_y}),
                          {.batch_size = args.batch_size, .shuffle = true});
  std::printf("Fashion-MNIST: %lld training, %lld test images; %d threads\n",
              static_cast<long long>(train_x.size(0)), static_cast<long long>(test_x.size(0)), get_num_threads());

  auto model = make_cnn();
  optim::Adam opt(model->parameters(), {.lr = kLr});
  // Cosine decay to zero over the whole run, stepped once per batch.
  optim::CosineAnnealingLR sched(opt, args.epochs * loader.size());
  int64_t first = 1;
  if (args.resume) {
    const Value state = ember::load(args.checkpoint);
    model->load_state_dict(to_state_dict(state.at("model")));
    opt.load_state_dict(state.at("optimizer"));
    sched.load_state_dict(state.at("scheduler"));
    first = state.at("epoch").to_int() + 1;
    std::printf("resumed from %s after epoch %lld\n", args.checkpoint.c_str(), static_cast<long long>(first - 1));
  }

  nn::CrossEntropyLoss loss_fn;
  std::vector<double> times;
  double acc = -1;
  for (int64_t epoch = first; epoch <= args.epochs; ++epoch) {
    Progress progress(epoch, args.epochs, train_x.size(0));
    const EpochResult r = train_epoch(*model, loader, opt, sched, loss_fn, progress);
    times.push_back(r.seconds);
    acc = evaluate(*model, test_x, test_y);
    save_checkpoint(args.checkpoint, *model, opt, sched, epoch);
    std::printf("epoch %lld: train loss %.4f  train accuracy %.2f%%  test accuracy %.2f%%  %.1f s\n",
                static_cast<long long>(epoch), r.loss, 100 * r.accuracy, 100 * acc, r.seconds);
    std::fflush(stdout);
  }
  if (times.empty()) {
    std::printf("nothing to train: the checkpoint is at epoch %lld of %lld\n", static_cast<long long>(first - 1),
                static_cast<long long>(args.epochs));
    return 0;
  }

  // The checkpoint must restore the trained model on its own.
  auto fresh = make_cnn();
  fresh->load_state_dict(to_state_dict(ember::load(args.checkpoint).at("model")));
  const double reloaded = evaluate(*fresh, test_x, test_y);
  std::printf("checkpoint %s: reloaded test accuracy %.2f%% (%s)\n", args.checkpoint.c_str(), 100 * reloaded,
              reloaded == acc ? "same" : "DIFFERENT");
  if (reloaded != acc) {
    std::fprintf(stderr, "the reloaded model's accuracy differs from the trained one's\n");
    return 1;
  }
  double sum = 0;
  for (double t : times) sum += t;
  std::printf("test accuracy %.4f\nseconds_per_epoch %.3f\n", acc, sum / static_cast<double>(times.size()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fashion_mnist: %s\n", e.what());
    return 1;
  }
}
