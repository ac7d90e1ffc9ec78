"""Writes tests/cpp/lr_scheduler_refs.h: PyTorch's learning-rate sequences for the C++
schedulers (tests/cpp/test_lr_scheduler.cpp). Run with /usr/bin/python3 (torch 1.13):

    /usr/bin/python3 tests/cpp/lr_scheduler_refs.py

Every case drives an SGD with two parameter groups (lr 0.1 and 0.05, momentum 0.9), or an
Adam (betas (0.9, 0.999)) where named so; its table "<case>/lr" holds the groups' lrs after
construction (row 0) and after each step, "<case>/momentum" the cycled momentum (or
betas[0]). ReduceLROnPlateau steps on metric(t) = max(1 - 0.1 t, 0.3) + 0.01 sin(t), which
the C++ test computes the same way. Errors are recorded as torch's messages (a KeyError is
Ember's ValueError)."""
import contextlib
import io
import math
import os
import warnings

import torch
from torch.optim import lr_scheduler as L

from torch_refs import value_table

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lr_scheduler_refs.h")
warnings.simplefilter("ignore")  # torch's step-order and deprecation warnings

refs = {}    # name -> tensor
keys = {}    # case -> torch's state_dict keys
errors = {}  # name -> torch's message
texts = {}   # name -> what verbose schedulers print


def sgd(**kw):
    p1, p2 = torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(3))
    return torch.optim.SGD([{"params": [p1]}, {"params": [p2], "lr": 0.05}], lr=0.1, momentum=0.9, **kw)


def adam():
    p1, p2 = torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(3))
    return torch.optim.Adam([{"params": [p1]}, {"params": [p2], "lr": 0.05}], lr=0.1, betas=(0.9, 0.999))


def momenta(opt):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]


def metric(t):
    return max(1 - 0.1 * t, 0.3) + 0.01 * math.sin(t)


def run(name, make, steps, opt=None, momentum=False, step=None):
    """make(opt) -> scheduler; step(sched, t) makes step t (1-based) when given."""
    opt = opt or sgd()
    s = make(opt)
    lrs, ms = [[g["lr"] for g in opt.param_groups]], [momenta(opt)]
    for t in range(1, steps + 1):
        opt.step()
        if step:
            step(s, t)
        else:
            s.step()
        lrs.append([g["lr"] for g in opt.param_groups])
        ms.append(momenta(opt))
    refs[f"{name}/lr"] = torch.tensor(lrs, dtype=torch.float64)
    if momentum:
        refs[f"{name}/momentum"] = torch.tensor(ms, dtype=torch.float64)
    keys[name] = list(s.state_dict().keys())


def error(name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is what is recorded
        kind = "ValueError" if isinstance(e, KeyError) else type(e).__name__
        msg = e.args[0] if isinstance(e, KeyError) else str(e)
        errors[name] = f"{kind}: {msg}"
        return
    raise AssertionError(f"{name} did not raise")


# ---------------------------------------------------------------- epoch-wise schedulers
run("lambda", lambda o: L.LambdaLR(o, lambda e: 0.95 ** e), 30)
run("lambda_per_group", lambda o: L.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1.0 / (e + 1)]), 30)
run("multiplicative", lambda o: L.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 0.98), 30)
run("step", lambda o: L.StepLR(o, step_size=3, gamma=0.5), 30)
run("multistep", lambda o: L.MultiStepLR(o, milestones=[12, 3, 7, 7], gamma=0.5), 30)
run("constant", lambda o: L.ConstantLR(o, factor=0.5, total_iters=4), 30)
run("constant_default", lambda o: L.ConstantLR(o), 30)
run("linear", lambda o: L.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=8), 30)
run("linear_down", lambda o: L.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=10), 30)
run("exponential", lambda o: L.ExponentialLR(o, gamma=0.9), 30)
run("cosine", lambda o: L.CosineAnnealingLR(o, T_max=10, eta_min=0.001), 45)
run("cosine_zero_min", lambda o: L.CosineAnnealingLR(o, T_max=7), 45)
run("warm_restarts", lambda o: L.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.001), 40)
run("warm_restarts_mult1", lambda o: L.CosineAnnealingWarmRestarts(o, T_0=6), 40)
# Fractional epochs: step(epoch + i / 4) for four batches an epoch, then jumps.
FRACTIONS = [e + i / 4 for e in range(10) for i in range(4)] + [3.5, 21.0, 30.25, 0.0, 7.0]
run("warm_restarts_fractional", lambda o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    len(FRACTIONS), step=lambda s, t: s.step(FRACTIONS[t - 1]))
run("warm_restarts_fractional_mult1", lambda o: L.CosineAnnealingWarmRestarts(o, T_0=4),
    len(FRACTIONS), step=lambda s, t: s.step(FRACTIONS[t - 1]))


# Resuming: groups that already have initial_lr (and lrs that moved on).
def resumed(o):
    for g, lr in zip(o.param_groups, (0.2, 0.4)):
        g["initial_lr"] = lr
    return o


run("step_resumed", lambda o: L.StepLR(resumed(o), step_size=3, gamma=0.5, last_epoch=4), 20)
run("cosine_resumed", lambda o: L.CosineAnnealingLR(resumed(o), T_max=10, last_epoch=5), 30)

# ---------------------------------------------------------------- per-batch schedulers
run("cyclic_triangular", lambda o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4), 40, momentum=True)
run("cyclic_triangular2", lambda o: L.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.05], step_size_up=3,
                                                step_size_down=5, mode="triangular2"), 50, momentum=True)
run("cyclic_exp_range", lambda o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range",
                                              gamma=0.97, base_momentum=[0.7, 0.75], max_momentum=0.95),
    50, momentum=True)
run("cyclic_scale_fn", lambda o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=4,
                                             scale_fn=lambda x: 0.5 ** x, scale_mode="iterations",
                                             cycle_momentum=False), 40, momentum=True)
run("onecycle_cos", lambda o: L.OneCycleLR(o, max_lr=[0.1, 0.2], total_steps=30), 30, momentum=True)
run("onecycle_linear", lambda o: L.OneCycleLR(o, max_lr=0.1, epochs=5, steps_per_epoch=8, pct_start=0.25,
                                               anneal_strategy="linear", base_momentum=0.8, max_momentum=0.9,
                                               div_factor=10.0, final_div_factor=100.0), 40, momentum=True)
run("onecycle_three_phase", lambda o: L.OneCycleLR(o, max_lr=0.1, total_steps=40, three_phase=True), 40,
    momentum=True)
run("onecycle_adam", lambda o: L.OneCycleLR(o, max_lr=0.01, total_steps=30, pct_start=0.4), 30, opt=adam(),
    momentum=True)
run("onecycle_no_momentum", lambda o: L.OneCycleLR(o, max_lr=0.1, total_steps=30, cycle_momentum=False), 30,
    momentum=True)

# ---------------------------------------------------------------- ReduceLROnPlateau
PLATEAU_STEPS = 60
run("plateau_min_rel", lambda o: L.ReduceLROnPlateau(o, patience=3), PLATEAU_STEPS,
    step=lambda s, t: s.step(metric(t)))
run("plateau_min_abs", lambda o: L.ReduceLROnPlateau(o, factor=0.5, patience=2, threshold=0.02,
                                                      threshold_mode="abs", cooldown=3, min_lr=[0.01, 0.02]),
    PLATEAU_STEPS, step=lambda s, t: s.step(metric(t)))
run("plateau_max_rel", lambda o: L.ReduceLROnPlateau(o, mode="max", factor=0.3, patience=1, min_lr=0.001,
                                                      eps=1e-3), PLATEAU_STEPS,
    step=lambda s, t: s.step(-metric(t)))
run("plateau_max_abs", lambda o: L.ReduceLROnPlateau(o, mode="max", patience=0, threshold=0.0,
                                                      threshold_mode="abs", cooldown=1), PLATEAU_STEPS,
    step=lambda s, t: s.step(-metric(t)))


# ---------------------------------------------------------------- combinations
def sequential2(o):
    return L.SequentialLR(o, [L.ConstantLR(o, factor=0.5, total_iters=3), L.ExponentialLR(o, gamma=0.9)],
                          milestones=[5])


def sequential3(o):
    return L.SequentialLR(o, [L.LinearLR(o, start_factor=0.1, total_iters=4), L.StepLR(o, step_size=2, gamma=0.7),
                              L.CosineAnnealingLR(o, T_max=8, eta_min=0.002)], milestones=[4, 10])


def sequential_restarts(o):
    return L.SequentialLR(o, [L.ExponentialLR(o, gamma=0.8),
                              L.CosineAnnealingWarmRestarts(o, T_0=4, eta_min=0.01)], milestones=[6])


def chained(o):
    return L.ChainedScheduler([L.ExponentialLR(o, gamma=0.95), L.StepLR(o, step_size=3, gamma=0.5)])


def chained_warmup(o):
    return L.ChainedScheduler([L.ConstantLR(o, factor=0.25, total_iters=5), L.MultiStepLR(o, [8, 14], 0.3),
                               L.CosineAnnealingLR(o, T_max=12)])


run("sequential2", sequential2, 30)
run("sequential3", sequential3, 30)
run("sequential_restarts", sequential_restarts, 30)
run("chained", chained, 30)
run("chained_warmup", chained_warmup, 40)

# ---------------------------------------------------------------- errors
error("constant_factor", lambda: L.ConstantLR(sgd(), factor=1.5))
error("linear_start", lambda: L.LinearLR(sgd(), start_factor=-0.1))
error("linear_end", lambda: L.LinearLR(sgd(), end_factor=2.0))
error("lambda_count", lambda: L.LambdaLR(sgd(), [lambda e: 1.0]))
error("resume_without_initial_lr", lambda: L.StepLR(sgd(), 3, last_epoch=5))
error("restarts_T_0", lambda: L.CosineAnnealingWarmRestarts(sgd(), T_0=0))
error("restarts_T_mult", lambda: L.CosineAnnealingWarmRestarts(sgd(), T_0=3, T_mult=0))
error("restarts_negative_epoch", lambda: L.CosineAnnealingWarmRestarts(sgd(), T_0=3).step(-1.5))
error("cyclic_mode", lambda: L.CyclicLR(sgd(), 0.01, 0.1, mode="square"))
error("cyclic_base_lr_count", lambda: L.CyclicLR(sgd(), [0.01], 0.1))
error("cyclic_max_momentum_count", lambda: L.CyclicLR(sgd(), 0.01, 0.1, max_momentum=[0.9, 0.9, 0.9]))
error("cyclic_no_momentum", lambda: L.CyclicLR(torch.optim.Adagrad([torch.nn.Parameter(torch.zeros(2))]), 0.01, 0.1))
error("onecycle_no_steps", lambda: L.OneCycleLR(sgd(), 0.1))
error("onecycle_total_steps", lambda: L.OneCycleLR(sgd(), 0.1, total_steps=0))
error("onecycle_epochs", lambda: L.OneCycleLR(sgd(), 0.1, epochs=-1, steps_per_epoch=3))
error("onecycle_steps_per_epoch", lambda: L.OneCycleLR(sgd(), 0.1, epochs=2, steps_per_epoch=0))
error("onecycle_pct_start", lambda: L.OneCycleLR(sgd(), 0.1, total_steps=10, pct_start=1.5))
error("onecycle_anneal", lambda: L.OneCycleLR(sgd(), 0.1, total_steps=10, anneal_strategy="exp"))
error("onecycle_max_lr_count", lambda: L.OneCycleLR(sgd(), [0.1, 0.2, 0.3], total_steps=10))
error("onecycle_no_momentum",
      lambda: L.OneCycleLR(torch.optim.Adagrad([torch.nn.Parameter(torch.zeros(2))]), 0.1, total_steps=10))


def step_past_end():
    s = L.OneCycleLR(sgd(), 0.1, total_steps=5)
    for _ in range(6):
        s.step()


error("onecycle_past_end", step_past_end)
error("plateau_factor", lambda: L.ReduceLROnPlateau(sgd(), factor=1.0))
error("plateau_mode", lambda: L.ReduceLROnPlateau(sgd(), mode="avg"))
error("plateau_threshold_mode", lambda: L.ReduceLROnPlateau(sgd(), threshold_mode="pct"))
error("plateau_min_lr_count", lambda: L.ReduceLROnPlateau(sgd(), min_lr=[0.1]))


def sequential_milestones():
    o = sgd()
    L.SequentialLR(o, [L.ConstantLR(o), L.ExponentialLR(o, 0.9)], milestones=[3, 6])


def sequential_other_optimizer():
    o, o2 = sgd(), sgd()
    L.SequentialLR(o, [L.ConstantLR(o), L.ExponentialLR(o2, 0.9)], milestones=[3])


def chained_other_optimizer():
    o, o2 = sgd(), sgd()
    L.ChainedScheduler([L.ConstantLR(o), L.ExponentialLR(o2, 0.9)])


error("sequential_milestones", sequential_milestones)
error("sequential_other_optimizer", sequential_other_optimizer)
error("chained_other_optimizer", chained_other_optimizer)


# ---------------------------------------------------------------- verbose output
def printed(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()
    return buf.getvalue()


def verbose_step():
    s = L.StepLR(sgd(), step_size=2, gamma=0.5, verbose=True)
    for _ in range(3):
        s.step()


def verbose_restarts():
    s = L.CosineAnnealingWarmRestarts(sgd(), T_0=3, verbose=True)
    s.step()
    s.step(1.5)


def verbose_plateau():
    s = L.ReduceLROnPlateau(sgd(), patience=1, verbose=True)
    for m in (1.0, 1.0, 1.0, 1.0):
        s.step(m)


texts["step"] = printed(verbose_step)
texts["restarts"] = printed(verbose_restarts)
texts["plateau"] = printed(verbose_plateau)


# ---------------------------------------------------------------- write
def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


lines = ["// Generated by tests/cpp/lr_scheduler_refs.py with torch " + torch.__version__ + "; do not edit.",
         "// PyTorch's lr (and momentum) sequences for tests/cpp/test_lr_scheduler.cpp.",
         "#pragma once", "", "#include <cstdint>", "#include <map>", "#include <string>", "#include <vector>", "",
         "namespace ember::lr_scheduler_refs {", "",
         f"inline constexpr int64_t kPlateauSteps = {PLATEAU_STEPS};",
         "inline const std::vector<double> kFractions = {" + ", ".join(repr(float(x)) for x in FRACTIONS) + "};",
         ""] + value_table(refs)
lines += ["// torch's state_dict keys per case, in order",
          "inline const std::map<std::string, std::vector<std::string>>& state_keys() {",
          "  static const std::map<std::string, std::vector<std::string>> m = {"]
for k, ks in keys.items():
    lines.append(f"      {{{cstr(k)}, {{{', '.join(cstr(x) for x in ks)}}}}},")
lines += ["  };", "  return m;", "}", "",
          "// torch's \"ErrorType: message\" for each error case",
          "inline const std::map<std::string, std::string>& errors() {",
          "  static const std::map<std::string, std::string> m = {"]
for k, msg in errors.items():
    lines.append(f"      {{{cstr(k)}, {cstr(msg)}}},")
lines += ["  };", "  return m;", "}", "",
          "// what torch's verbose schedulers print",
          "inline const std::map<std::string, std::string>& verbose_texts() {",
          "  static const std::map<std::string, std::string> m = {"]
for k, text in texts.items():
    lines.append(f"      {{{cstr(k)}, {cstr(text)}}},")
lines += ["  };", "  return m;", "}", "", "}  // namespace ember::lr_scheduler_refs", ""]
with open(OUT, "w") as f:
    f.write("\n".join(lines))
print(f"wrote {OUT}: {len(refs)} tables, {len(errors)} errors")
