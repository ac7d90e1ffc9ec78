"""ember.optim.lr_scheduler against torch.optim.lr_scheduler (PyTorch 1.13): the same scheduler
code runs on an ember and a torch optimizer (two parameter groups, lr 0.1 and 0.05), and the
lr (and cycled momentum) after every step must be torch's, bit for bit; a state dict saved
midway and loaded into a fresh scheduler continues the sequence; warnings, verbose output and
errors are torch's."""
import contextlib
import copy
import io
import math
import pickle
import warnings

import pytest
import torch

import ember
import ember.optim
from ember.optim import lr_scheduler as ember_lrs
from torch.optim import lr_scheduler as torch_lrs

LIBS = {ember: ember_lrs, torch: torch_lrs}


def make_optimizer(lib, kind="sgd"):
    p1, p2 = lib.nn.Parameter(lib.zeros(2)), lib.nn.Parameter(lib.zeros(3))
    groups = [{"params": [p1]}, {"params": [p2], "lr": 0.05}]
    if kind == "sgd":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1, betas=(0.9, 0.999))
    return lib.optim.Adagrad(groups, lr=0.1)


def momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def metric(t):
    return max(1 - 0.1 * t, 0.3) + 0.01 * math.sin(t)


FRACTIONS = [e + i / 4 for e in range(10) for i in range(4)] + [3.5, 21.0, 30.25, 0.0, 7.0]


def plain(s, t):
    s.step()


def fractional(s, t):
    s.step(FRACTIONS[t - 1])


def on_metric(s, t):
    s.step(metric(t))


def on_negated_metric(s, t):
    s.step(-metric(t))


def resumed(o):
    for g, lr in zip(o.param_groups, (0.2, 0.4)):
        g["initial_lr"] = lr
    return o


# id -> (optimizer kind, make(M, optimizer) with M the lr_scheduler module, steps, stepper)
CASES = {
    "lambda": ("sgd", lambda M, o: M.LambdaLR(o, lambda e: 0.95 ** e), 30, plain),
    "lambda_per_group": ("sgd", lambda M, o: M.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]), 30, plain),
    "multiplicative": ("sgd", lambda M, o: M.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 0.98), 30, plain),
    "step": ("sgd", lambda M, o: M.StepLR(o, step_size=3, gamma=0.5), 30, plain),
    "step_default_gamma": ("sgd", lambda M, o: M.StepLR(o, 4), 30, plain),
    "multistep": ("sgd", lambda M, o: M.MultiStepLR(o, milestones=[12, 3, 7, 7], gamma=0.5), 30, plain),
    "constant": ("sgd", lambda M, o: M.ConstantLR(o, factor=0.5, total_iters=4), 30, plain),
    "constant_default": ("sgd", lambda M, o: M.ConstantLR(o), 30, plain),
    "linear": ("sgd", lambda M, o: M.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=8), 30, plain),
    "linear_down": ("sgd", lambda M, o: M.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=10), 30, plain),
    "exponential": ("sgd", lambda M, o: M.ExponentialLR(o, gamma=0.9), 30, plain),
    "cosine": ("sgd", lambda M, o: M.CosineAnnealingLR(o, T_max=10, eta_min=0.001), 45, plain),
    "cosine_zero_min": ("sgd", lambda M, o: M.CosineAnnealingLR(o, T_max=7), 45, plain),
    "warm_restarts": ("sgd", lambda M, o: M.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.001), 40,
                      plain),
    "warm_restarts_mult1": ("sgd", lambda M, o: M.CosineAnnealingWarmRestarts(o, T_0=6), 40, plain),
    "warm_restarts_fractional": ("sgd", lambda M, o: M.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                                   eta_min=0.01),
                                 len(FRACTIONS), fractional),
    "warm_restarts_fractional_mult1": ("sgd", lambda M, o: M.CosineAnnealingWarmRestarts(o, T_0=4),
                                       len(FRACTIONS), fractional),
    "step_resumed": ("sgd", lambda M, o: M.StepLR(resumed(o), step_size=3, gamma=0.5, last_epoch=4), 20, plain),
    "cosine_resumed": ("sgd", lambda M, o: M.CosineAnnealingLR(resumed(o), T_max=10, last_epoch=5), 30, plain),
    "cyclic_triangular": ("sgd", lambda M, o: M.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4), 40, plain),
    "cyclic_triangular2": ("sgd", lambda M, o: M.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.05],
                                                          step_size_up=3, step_size_down=5, mode="triangular2"),
                           50, plain),
    "cyclic_exp_range": ("sgd", lambda M, o: M.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5,
                                                        mode="exp_range", gamma=0.97, base_momentum=[0.7, 0.75],
                                                        max_momentum=0.95), 50, plain),
    "cyclic_scale_fn": ("sgd", lambda M, o: M.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                       step_size_down=4, scale_fn=lambda x: 0.5 ** x,
                                                       scale_mode="iterations", cycle_momentum=False), 40, plain),
    "onecycle_cos": ("sgd", lambda M, o: M.OneCycleLR(o, max_lr=[0.1, 0.2], total_steps=30), 30, plain),
    "onecycle_linear": ("sgd", lambda M, o: M.OneCycleLR(o, max_lr=0.1, epochs=5, steps_per_epoch=8, pct_start=0.25,
                                                         anneal_strategy="linear", base_momentum=0.8,
                                                         max_momentum=0.9, div_factor=10.0,
                                                         final_div_factor=100.0), 40, plain),
    "onecycle_three_phase": ("sgd", lambda M, o: M.OneCycleLR(o, max_lr=0.1, total_steps=40, three_phase=True), 40,
                             plain),
    "onecycle_adam": ("adam", lambda M, o: M.OneCycleLR(o, max_lr=0.01, total_steps=30, pct_start=0.4), 30, plain),
    "onecycle_no_momentum": ("sgd", lambda M, o: M.OneCycleLR(o, max_lr=0.1, total_steps=30, cycle_momentum=False),
                             30, plain),
    "plateau_min_rel": ("sgd", lambda M, o: M.ReduceLROnPlateau(o, patience=3), 60, on_metric),
    "plateau_min_abs": ("sgd", lambda M, o: M.ReduceLROnPlateau(o, factor=0.5, patience=2, threshold=0.02,
                                                                threshold_mode="abs", cooldown=3,
                                                                min_lr=[0.01, 0.02]), 60, on_metric),
    "plateau_max_rel": ("sgd", lambda M, o: M.ReduceLROnPlateau(o, mode="max", factor=0.3, patience=1, min_lr=0.001,
                                                                eps=1e-3), 60, on_negated_metric),
    "plateau_max_abs": ("sgd", lambda M, o: M.ReduceLROnPlateau(o, mode="max", patience=0, threshold=0.0,
                                                                threshold_mode="abs", cooldown=1), 60,
                        on_negated_metric),
    "sequential2": ("sgd", lambda M, o: M.SequentialLR(o, [M.ConstantLR(o, factor=0.5, total_iters=3),
                                                           M.ExponentialLR(o, gamma=0.9)], milestones=[5]), 30, plain),
    "sequential3": ("sgd", lambda M, o: M.SequentialLR(o, [M.LinearLR(o, start_factor=0.1, total_iters=4),
                                                           M.StepLR(o, step_size=2, gamma=0.7),
                                                           M.CosineAnnealingLR(o, T_max=8, eta_min=0.002)],
                                                       milestones=[4, 10]), 30, plain),
    "sequential_restarts": ("sgd", lambda M, o: M.SequentialLR(o, [M.ExponentialLR(o, gamma=0.8),
                                                                   M.CosineAnnealingWarmRestarts(o, T_0=4,
                                                                                                 eta_min=0.01)],
                                                               milestones=[6]), 30, plain),
    "sequential_cyclic": ("sgd", lambda M, o: M.SequentialLR(o, [M.LinearLR(o, start_factor=0.2, total_iters=5),
                                                                 M.CyclicLR(o, 0.01, 0.1, step_size_up=3)],
                                                             milestones=[5]), 30, plain),
    "chained": ("sgd", lambda M, o: M.ChainedScheduler([M.ExponentialLR(o, gamma=0.95),
                                                        M.StepLR(o, step_size=3, gamma=0.5)]), 30, plain),
    "chained_warmup": ("sgd", lambda M, o: M.ChainedScheduler([M.ConstantLR(o, factor=0.25, total_iters=5),
                                                               M.MultiStepLR(o, [8, 14], 0.3),
                                                               M.CosineAnnealingLR(o, T_max=12)]), 40, plain),
    "chained_sequential": ("sgd", lambda M, o: M.ChainedScheduler([
        M.SequentialLR(o, [M.LinearLR(o, start_factor=0.5, total_iters=3), M.ExponentialLR(o, gamma=0.9)],
                       milestones=[3]),
        M.MultiplicativeLR(o, lambda e: 0.99)]), 30, plain),
}


def run(lib, case, steps=None, scheduler=None, optimizer=None, start=1):
    """Returns (optimizer, scheduler, [(lrs, momenta, last_lr) after construction and each step])."""
    kind, make, n, stepper = CASES[case]
    M = LIBS[lib]
    if optimizer is None:
        optimizer = make_optimizer(lib, kind)
        scheduler = make(M, optimizer)
    seen = [] if start > 1 else [([g["lr"] for g in optimizer.param_groups], momenta(optimizer), None)]
    for t in range(start, (steps or n) + 1):
        optimizer.step()
        stepper(scheduler, t)
        last = scheduler.get_last_lr() if hasattr(scheduler, "get_last_lr") else scheduler._last_lr
        seen.append(([g["lr"] for g in optimizer.param_groups], momenta(optimizer), list(last)))
    return optimizer, scheduler, seen


@pytest.mark.parametrize("case", list(CASES))
def test_sequence_is_torchs(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecation warning of SequentialLR's step(0)
        _, _, got = run(ember, case)
        _, _, want = run(torch, case)
    assert len(got) == len(want)
    for t, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"step {t}"


@pytest.mark.parametrize("case", list(CASES))
def test_state_dict_midway_continues(case):
    kind, make, n, _ = CASES[case]
    half = n // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, want = run(torch, case)
        opt, sched, _ = run(ember, case, steps=half)
        state = pickle.loads(pickle.dumps(sched.state_dict()))  # plain data: it pickles
        fresh_opt = make_optimizer(ember, kind)
        fresh = make(ember_lrs, fresh_opt)
        fresh_opt.load_state_dict(opt.state_dict())  # the groups' lrs (and momenta) as they were
        fresh.load_state_dict(state)
        _, _, got = run(ember, case, scheduler=fresh, optimizer=fresh_opt, start=half + 1)
    assert got == want[half + 1:]


# torch 1.13 keeps functions in some state dicts; Ember follows torch 2 there: CyclicLR drops its
# weak method (and records use_beta1), OneCycleLR names its strategy instead of keeping a bound
# method. Everything else is torch's, nested schedulers' states included.
FUNCTION_KEYS = {"_scale_fn_ref", "_scale_fn_custom", "anneal_func", "_anneal_func_type"}


def comparable(state):
    out = {}
    for k, v in state.items():
        if k in FUNCTION_KEYS or (k == "use_beta1" and "_scale_fn_custom" in state):
            continue
        out[k] = [comparable(x) for x in v] if k == "_schedulers" else v
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_state_dict_is_torchs(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, s_ember, _ = run(ember, case, steps=5)
        _, s_torch, _ = run(torch, case, steps=5)
    sd_ember, sd_torch = s_ember.state_dict(), s_torch.state_dict()
    assert list(comparable(sd_ember)) == list(comparable(sd_torch))  # same keys, same order
    assert comparable(sd_ember) == comparable(sd_torch)
    if "anneal_func" in sd_torch:
        assert sd_ember["_anneal_func_type"] == sd_torch["anneal_func"].__name__[len("_annealing_"):]


def test_state_dict_excludes_optimizer_and_keeps_callable_objects():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate ** epoch

    opt = make_optimizer(ember)
    s = ember_lrs.LambdaLR(opt, [Decay(0.9), lambda e: 1.0])
    state = s.state_dict()
    assert "optimizer" not in state
    assert state["lr_lambdas"] == [{"rate": 0.9}, None]
    s2 = ember_lrs.LambdaLR(make_optimizer(ember), [Decay(0.5), lambda e: 1.0])
    s2.load_state_dict(state)
    assert s2.lr_lambdas[0].rate == 0.9
    assert "lr_lambdas" in state  # the caller's dict is left as it was


def test_cyclic_cycles_beta1_like_momentum():
    # torch 1.13 refuses an optimizer without momentum; torch 2 (and Ember) cycle betas[0].
    _, _, want = run(torch, "cyclic_triangular")
    opt = make_optimizer(ember, "adam")
    s = ember_lrs.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)
    got = [([g["lr"] for g in opt.param_groups], [g["betas"] for g in opt.param_groups])]
    for _ in range(40):
        opt.step()
        s.step()
        got.append(([g["lr"] for g in opt.param_groups], [g["betas"] for g in opt.param_groups]))
    for (lrs, betas), (w_lrs, w_m, _) in zip(got, want):
        assert lrs == w_lrs
        assert [b[0] for b in betas] == w_m
        assert all(b[1] == 0.999 and isinstance(b, tuple) for b in betas)


def record_warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category, str(x.message)) for x in w]


@pytest.mark.parametrize("scenario", ["scheduler_first", "optimizer_first", "overridden_step", "get_lr",
                                      "epoch_argument", "plateau_epoch"])
def test_warnings_are_torchs(scenario):
    def go(lib):
        M, opt = LIBS[lib], make_optimizer(lib)
        if scenario == "plateau_epoch":
            M.ReduceLROnPlateau(opt).step(1.0, epoch=3)
            return
        s = M.StepLR(opt, 2)
        if scenario == "scheduler_first":
            s.step()
            opt.step()
        elif scenario == "optimizer_first":
            opt.step()
            s.step()
        elif scenario == "overridden_step":
            opt.step = lambda closure=None: None
            opt.step()
            s.step()
        elif scenario == "get_lr":
            s.get_lr()
        else:
            opt.step()
            s.step(5)
    assert record_warnings(lambda: go(ember)) == record_warnings(lambda: go(torch))


def test_optimizer_step_still_steps_and_counts():
    p = ember.nn.Parameter(ember.ones(3))
    opt = ember.optim.SGD([p], lr=0.5)
    ember_lrs.StepLR(opt, 2)
    p.grad = ember.ones(3)
    opt.step()
    opt.step()
    assert opt._step_count == 2
    assert p.detach().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("jumps", [[3, 7, 2, 10, 0], [12, 5]])
@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
                                  "CosineAnnealingLR", "LambdaLR", "CyclicLR", "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_is_torchs(name, jumps):
    args = {"StepLR": (3,), "MultiStepLR": ([2, 5, 5],), "ConstantLR": (0.5, 4), "LinearLR": (0.2, 0.8, 6),
            "ExponentialLR": (0.8,), "CosineAnnealingLR": (6, 0.01), "LambdaLR": (lambda e: 1 / (1 + e),),
            "CyclicLR": (0.01, 0.1, 3), "CosineAnnealingWarmRestarts": (3, 2)}[name]

    def go(lib):
        opt = make_optimizer(lib)
        s = getattr(LIBS[lib], name)(opt, *args)
        seen = []
        for e in jumps:
            opt.step()
            s.step(e)
            seen.append(([g["lr"] for g in opt.param_groups], s.last_epoch, s.get_last_lr()))
        return seen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert go(ember) == go(torch)


def printed(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn()
    return buf.getvalue()


@pytest.mark.parametrize("scenario", ["step", "step_epoch", "restarts", "plateau"])
def test_verbose_output_is_torchs(scenario):
    def go(lib):
        M, opt = LIBS[lib], make_optimizer(lib)
        if scenario == "plateau":
            s = M.ReduceLROnPlateau(opt, patience=1, verbose=True)
            for m in (1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5):
                s.step(m)
            return
        if scenario == "restarts":
            s = M.CosineAnnealingWarmRestarts(opt, T_0=3, verbose=True)
            s.step()
            s.step(1.5)
            s.step(4)
            return
        s = M.StepLR(opt, step_size=2, gamma=0.5, verbose=True)
        for e in range(3):
            opt.step()
            s.step(e + 3) if scenario == "step_epoch" else s.step()
    assert printed(lambda: go(ember)) == printed(lambda: go(torch))


def test_plateau_takes_a_zero_dim_tensor():
    opt = make_optimizer(ember)
    s = ember_lrs.ReduceLROnPlateau(opt, patience=0)
    s.step(ember.tensor(1.0))
    s.step(ember.tensor(2.0))
    assert s.best == 1.0
    assert [g["lr"] for g in opt.param_groups] == [0.1 * 0.1, 0.05 * 0.1]


def test_plateau_load_state_dict_checks_modes():
    s = ember_lrs.ReduceLROnPlateau(make_optimizer(ember), mode="max")
    state = s.state_dict()
    s2 = ember_lrs.ReduceLROnPlateau(make_optimizer(ember))
    s2.load_state_dict(state)
    assert s2.mode_worse == -math.inf and s2.best == -math.inf
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        s2.load_state_dict(dict(state, mode="avg"))


def not_an_optimizer(M, lib):
    return M.StepLR(object(), 3)


def step_past_end(M, lib):
    s = M.OneCycleLR(make_optimizer(lib), 0.1, total_steps=5)
    for _ in range(6):
        s.step()


def sequential_other_optimizer(M, lib):
    o, o2 = make_optimizer(lib), make_optimizer(lib)
    M.SequentialLR(o, [M.ConstantLR(o), M.ExponentialLR(o2, 0.9)], milestones=[3])


def sequential_milestones(M, lib):
    o = make_optimizer(lib)
    M.SequentialLR(o, [M.ConstantLR(o), M.ExponentialLR(o, 0.9)], milestones=[3, 6])


def chained_other_optimizer(M, lib):
    o, o2 = make_optimizer(lib), make_optimizer(lib)
    M.ChainedScheduler([M.ConstantLR(o), M.ExponentialLR(o2, 0.9)])


ERRORS = {
    "not_an_optimizer": not_an_optimizer,
    "plateau_not_an_optimizer": lambda M, lib: M.ReduceLROnPlateau([1, 2]),
    "constant_factor": lambda M, lib: M.ConstantLR(make_optimizer(lib), factor=1.5),
    "linear_start": lambda M, lib: M.LinearLR(make_optimizer(lib), start_factor=-0.1),
    "linear_end": lambda M, lib: M.LinearLR(make_optimizer(lib), end_factor=2.0),
    "lambda_count": lambda M, lib: M.LambdaLR(make_optimizer(lib), [lambda e: 1.0]),
    "multiplicative_count": lambda M, lib: M.MultiplicativeLR(make_optimizer(lib), (lambda e: 1.0,) * 3),
    "resume_without_initial_lr": lambda M, lib: M.StepLR(make_optimizer(lib), 3, last_epoch=5),
    "restarts_T_0": lambda M, lib: M.CosineAnnealingWarmRestarts(make_optimizer(lib), T_0=0),
    "restarts_T_0_float": lambda M, lib: M.CosineAnnealingWarmRestarts(make_optimizer(lib), T_0=2.0),
    "restarts_T_mult": lambda M, lib: M.CosineAnnealingWarmRestarts(make_optimizer(lib), T_0=3, T_mult=0),
    "restarts_negative_epoch": lambda M, lib: M.CosineAnnealingWarmRestarts(make_optimizer(lib), T_0=3).step(-1),
    "cyclic_mode": lambda M, lib: M.CyclicLR(make_optimizer(lib), 0.01, 0.1, mode="square"),
    "cyclic_base_lr_count": lambda M, lib: M.CyclicLR(make_optimizer(lib), [0.01], 0.1),
    "cyclic_max_lr_count": lambda M, lib: M.CyclicLR(make_optimizer(lib), 0.01, (0.1, 0.2, 0.3)),
    "cyclic_max_momentum_count": lambda M, lib: M.CyclicLR(make_optimizer(lib), 0.01, 0.1,
                                                           max_momentum=[0.9, 0.9, 0.9]),
    "cyclic_no_momentum": lambda M, lib: M.CyclicLR(make_optimizer(lib, "adagrad"), 0.01, 0.1),
    "onecycle_no_steps": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1),
    "onecycle_total_steps": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1, total_steps=0),
    "onecycle_total_steps_float": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1, total_steps=10.0),
    "onecycle_epochs": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1, epochs=-1, steps_per_epoch=3),
    "onecycle_steps_per_epoch": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1, epochs=2, steps_per_epoch=0),
    "onecycle_pct_start": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1, total_steps=10, pct_start=1.5),
    "onecycle_pct_start_int": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1, total_steps=10, pct_start=1),
    "onecycle_anneal": lambda M, lib: M.OneCycleLR(make_optimizer(lib), 0.1, total_steps=10, anneal_strategy="exp"),
    "onecycle_max_lr_count": lambda M, lib: M.OneCycleLR(make_optimizer(lib), [0.1, 0.2, 0.3], total_steps=10),
    "onecycle_no_momentum": lambda M, lib: M.OneCycleLR(make_optimizer(lib, "adagrad"), 0.1, total_steps=10),
    "onecycle_past_end": step_past_end,
    "plateau_factor": lambda M, lib: M.ReduceLROnPlateau(make_optimizer(lib), factor=1.0),
    "plateau_mode": lambda M, lib: M.ReduceLROnPlateau(make_optimizer(lib), mode="avg"),
    "plateau_threshold_mode": lambda M, lib: M.ReduceLROnPlateau(make_optimizer(lib), threshold_mode="pct"),
    "plateau_min_lr_count": lambda M, lib: M.ReduceLROnPlateau(make_optimizer(lib), min_lr=[0.1]),
    "sequential_milestones": sequential_milestones,
    "sequential_other_optimizer": sequential_other_optimizer,
    "chained_other_optimizer": chained_other_optimizer,
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_are_torchs(case):
    def error(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                ERRORS[case](LIBS[lib], lib)
        return info.type, str(info.value)
    assert error(ember) == error(torch)


def test_state_dict_is_a_copy_of_the_attributes():
    s = ember_lrs.StepLR(make_optimizer(ember), 3)
    state = s.state_dict()
    state["gamma"] = 0.5  # changing the returned dict does not change the scheduler
    assert s.gamma == 0.1
    s.load_state_dict(copy.deepcopy(state))
    assert s.gamma == 0.5
