"""ember.optim.lr_scheduler: learning-rate schedulers (torch.optim.lr_scheduler, PyTorch 1.13).

A scheduler sets the ``'lr'`` of each of its optimizer's parameter groups when it is built
and at every ``step()`` (CyclicLR and OneCycleLR also cycle ``'momentum'``, or ``betas[0]``
of an optimizer with betas). Most schedules are recursive, scaling the groups' current lrs,
so that several schedulers can drive one optimizer together; the formulas evaluate in
torch's order, so the sequences are torch's to the last bit.

``state_dict()`` is the scheduler's ``__dict__`` without the optimizer, as in torch, except
that functions are never in it (torch 1.13 keeps CyclicLR's weak method and OneCycleLR's
bound method there, which cannot be pickled; these follow torch 2)."""
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import wraps

__all__ = ['LambdaLR', 'MultiplicativeLR', 'StepLR', 'MultiStepLR', 'ConstantLR', 'LinearLR',
           'ExponentialLR', 'SequentialLR', 'CosineAnnealingLR', 'ChainedScheduler', 'ReduceLROnPlateau',
           'CyclicLR', 'CosineAnnealingWarmRestarts', 'OneCycleLR']

inf = math.inf

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_GET_LAST_LR_WARNING = ("To get the last learning rate computed by the scheduler, "
                        "please use `get_last_lr()`.")


def _check_optimizer(optimizer):
    # The package imports this module, so its Optimizer is looked up when a scheduler is built.
    from ember.optim import Optimizer
    if not isinstance(optimizer, Optimizer):
        raise TypeError('{} is not an Optimizer'.format(type(optimizer).__name__))


def _count_optimizer_steps(optimizer):
    """Makes optimizer.step() count its calls in optimizer._step_count, so that step() can warn
    when the scheduler steps first. The optimizer is held weakly (no reference cycle)."""
    step = optimizer.step
    if getattr(step, '_with_counter', False):
        return
    func = getattr(step, '__func__', None)
    opt_ref = weakref.ref(optimizer)
    if func is None:  # not a bound method: wrap the callable itself
        def counted(*args, **kwargs):
            opt_ref()._step_count += 1
            return step(*args, **kwargs)
    else:
        cls = type(optimizer)

        @wraps(func)
        def counted(*args, **kwargs):
            opt = opt_ref()
            opt._step_count += 1
            return func.__get__(opt, cls)(*args, **kwargs)
    counted._with_counter = True
    optimizer.step = counted


def _per_group(name, optimizer, value):
    """A number for every group, or a list/tuple with one per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError("expected {} values for {}, got {}".format(
                len(optimizer.param_groups), name, len(value)))
        return value
    return [value] * len(optimizer.param_groups)


def _epoch_str(epoch):
    return ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch


class _InStep:
    """Marks get_lr() calls made by step(), the only ones that should not warn."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def __enter__(self):
        self.scheduler._get_lr_called_within_step = True
        return self

    def __exit__(self, *exc):
        self.scheduler._get_lr_called_within_step = False
        return False


class _LRScheduler(object):
    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:
                group.setdefault('initial_lr', group['lr'])
        else:
            for i, group in enumerate(groups):
                if 'initial_lr' not in group:
                    raise KeyError("param 'initial_lr' is not specified "
                                   "in param_groups[{}] when resuming an optimizer".format(i))
        self.base_lrs = [group['initial_lr'] for group in groups]
        self.last_epoch = last_epoch
        _count_optimizer_steps(optimizer)
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        """Resets the step counts and makes the first step."""
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != 'optimizer'}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lrs the last step set."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def print_lr(self, is_verbose, group, lr, epoch=None):
        if not is_verbose:
            return
        if epoch is None:
            print('Adjusting learning rate of group {} to {:.4e}.'.format(group, lr))
        else:
            print('Epoch {}: adjusting learning rate of group {} to {:.4e}.'.format(_epoch_str(epoch), group, lr))

    def _warn_step_order(self):
        if self._step_count != 1:
            return
        if not hasattr(self.optimizer.step, '_with_counter'):
            warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                          "initialization. Please, make sure to call `optimizer.step()` before "
                          "`lr_scheduler.step()`. See more details at "
                          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)
        elif self.optimizer._step_count < 1:
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                          "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                          "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                          "will result in PyTorch skipping the first value of the learning rate schedule. "
                          "See more details at "
                          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)

    def step(self, epoch=None):
        self._warn_step_order()
        self._step_count += 1
        with _InStep(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
                closed_form = getattr(self, '_get_closed_form_lr', None)
                values = closed_form() if closed_form is not None else self.get_lr()
        self._apply(values, epoch)

    def _apply(self, values, epoch):
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group['lr'] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = [group['lr'] for group in self.optimizer.param_groups]

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn(_GET_LAST_LR_WARNING, UserWarning)

    def _group_lrs(self):
        return [group['lr'] for group in self.optimizer.param_groups]


class _LambdaScheduler(_LRScheduler):
    """What LambdaLR and MultiplicativeLR share: the functions, and saving only the attributes of
    callable objects (plain functions and lambdas are not saved)."""

    def __init__(self, optimizer, lr_lambda, last_epoch, verbose):
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError("Expected {} lr_lambdas, but got {}".format(
                    len(optimizer.param_groups), len(lr_lambda)))
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch, verbose)

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ('optimizer', 'lr_lambdas')}
        state['lr_lambdas'] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        # Leaves the caller's dict as it was.
        rest = {key: value for key, value in state_dict.items() if key != 'lr_lambdas'}
        self.__dict__.update(rest)
        for fn, saved in zip(self.lr_lambdas, state_dict['lr_lambdas']):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = initial lr * lr_lambda(epoch); one function for all groups or a list, one per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        super().__init__(optimizer, lr_lambda, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """lr = lr * lr_lambda(epoch) at every step after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        super().__init__(optimizer, lr_lambda, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch <= 0:
            return self._group_lrs()
        return [group['lr'] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(_LRScheduler):
    """lr = lr * gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(_LRScheduler):
    """lr = lr * gamma at each milestone (gamma ** k for a milestone given k times)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        times = self.milestones.get(self.last_epoch, 0)
        if times == 0:
            return self._group_lrs()
        return [lr * self.gamma ** times for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]


class ConstantLR(_LRScheduler):
    """lr * factor until epoch total_iters, lr from then on."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor > 1.0 or factor < 0:
            raise ValueError('Constant multiplicative factor expected to be between 0 and 1.')
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._group_lrs()]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [lr * (1.0 / self.factor) for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(_LRScheduler):
    """The factor on the initial lr moves linearly from start_factor to end_factor over
    total_iters epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor < 0:
            raise ValueError('Starting multiplicative factor expected to be between 0 and 1.')
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError('Ending multiplicative factor expected to be between 0 and 1.')
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._group_lrs()]
        if self.last_epoch > self.total_iters:
            return self._group_lrs()
        delta = self.end_factor - self.start_factor
        # The ratio of this epoch's factor to the previous one's.
        ratio = 1. + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return [lr * ratio for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(_LRScheduler):
    """lr = lr * gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class SequentialLR(_LRScheduler):
    """Runs schedulers one after another: schedulers[i] from epoch milestones[i - 1] on, where it
    restarts (its step(0))."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        for i, scheduler in enumerate(schedulers):
            if scheduler.optimizer != optimizer:
                raise ValueError(
                    "Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
                    f"got schedulers at index {i} to be different than the optimizer passed in.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers {} and the "
                "number of milestones to be equal to {}".format(len(schedulers), len(milestones)))
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group['lr'] = group['initial_lr']
        # Each scheduler made a first step when it was built: undo it, and start only the first.
        for scheduler in schedulers:
            scheduler.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ('optimizer', '_schedulers')}
        state['_schedulers'] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        self.__dict__.update({key: value for key, value in state_dict.items() if key != '_schedulers'})
        for scheduler, saved in zip(self._schedulers, state_dict['_schedulers']):
            scheduler.load_state_dict(saved)


class CosineAnnealingLR(_LRScheduler):
    """Half a cosine from the initial lr down to eta_min over T_max epochs (and, recursively, back
    up over the next T_max)."""

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        e, T, eta_min = self.last_epoch, self.T_max, self.eta_min
        if e == 0:
            return self._group_lrs()
        groups = self.optimizer.param_groups
        if self._step_count == 1 and e > 0:
            # Built with a last_epoch: start from the closed form.
            return [eta_min + (base_lr - eta_min) * (1 + math.cos(e * math.pi / T)) / 2
                    for base_lr in self.base_lrs]
        if (e - 1 - T) % (2 * T) == 0:
            # The bottom of the cosine, where the ratio below would be 0/0.
            return [group['lr'] + (base_lr - eta_min) * (1 - math.cos(math.pi / T)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
                * (group['lr'] - eta_min) + eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class ChainedScheduler(_LRScheduler):
    """Steps every scheduler of the list at each step(), so their factors compose."""

    def __init__(self, schedulers):
        for i in range(1, len(schedulers)):
            if schedulers[i].optimizer != schedulers[0].optimizer:
                raise ValueError(
                    "ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                    "got schedulers at index {} and {} to be different".format(0, i))
        self._schedulers = list(schedulers)
        self.optimizer = schedulers[0].optimizer
        self._last_lr = [group['lr'] for group in self._schedulers[-1].optimizer.param_groups]

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group['lr'] for group in self._schedulers[-1].optimizer.param_groups]

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ('optimizer', '_schedulers')}
        state['_schedulers'] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        self.__dict__.update({key: value for key, value in state_dict.items() if key != '_schedulers'})
        for scheduler, saved in zip(self._schedulers, state_dict['_schedulers']):
            scheduler.load_state_dict(saved)


class ReduceLROnPlateau(object):
    """Multiplies the lrs by factor once the metric given to step() has not improved for patience
    epochs (then waits cooldown epochs); never below min_lr, never by less than eps."""

    def __init__(self, optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4, threshold_mode='rel',
                 cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError('Factor should be < 1.0.')
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError("expected {} min_lrs, got {}".format(len(optimizer.param_groups), len(min_lr)))
            self.min_lrs = list(min_lr)
        else:
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.best = None
        self.num_bad_epochs = None
        self.mode_worse = None  # the worst value in this mode
        self.eps = eps
        self.last_epoch = 0
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)  # a 0-dim tensor too
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group['lr'] for group in self.optimizer.param_groups]

    def _reduce_lr(self, epoch):
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group['lr'])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group['lr'] = new_lr
                if self.verbose:
                    print('Epoch {}: reducing learning rate of group {} to {:.4e}.'.format(
                        _epoch_str(epoch), i, new_lr))

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        if self.mode == 'min':
            if self.threshold_mode == 'rel':
                return a < best * (1. - self.threshold)
            return a < best - self.threshold
        if self.threshold_mode == 'rel':
            return a > best * (self.threshold + 1.)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {'min', 'max'}:
            raise ValueError('mode ' + mode + ' is unknown!')
        if threshold_mode not in {'rel', 'abs'}:
            raise ValueError('threshold mode ' + threshold_mode + ' is unknown!')
        self.mode_worse = inf if mode == 'min' else -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key != 'optimizer'}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


class CyclicLR(_LRScheduler):
    """The lr cycles between base_lr and max_lr (Smith, 2017), one step per batch; with
    cycle_momentum the momentum (or betas[0], as torch 2 does) cycles the other way between
    max_momentum and base_momentum."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode='triangular',
                 gamma=1., scale_fn=None, scale_mode='cycle', cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group('base_lr', optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group['lr'] = lr
        self.max_lrs = _per_group('max_lr', optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ['triangular', 'triangular2', 'exp_range'] and scale_fn is None:
            raise ValueError('mode is invalid and scale_fn is None')
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        if scale_fn is None:
            self.scale_mode = 'iterations' if mode == 'exp_range' else 'cycle'
        else:
            self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if 'momentum' not in optimizer.defaults and 'betas' not in optimizer.defaults:
                raise ValueError('optimizer must support momentum with `cycle_momentum` option enabled')
            self.use_beta1 = 'betas' in optimizer.defaults
            base_momentums = _per_group('base_momentum', optimizer, base_momentum)
            if last_epoch == -1:
                for momentum, group in zip(base_momentums, optimizer.param_groups):
                    self._set_momentum(group, momentum)
            self.base_momentums = [self._get_momentum(group) for group in optimizer.param_groups]
            self.max_momentums = _per_group('max_momentum', optimizer, max_momentum)
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def _get_momentum(self, group):
        return group['betas'][0] if self.use_beta1 else group['momentum']

    def _set_momentum(self, group, momentum):
        if self.use_beta1:
            group['betas'] = (momentum, *group['betas'][1:])
        else:
            group['momentum'] = momentum

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == 'triangular':
            return 1.
        if self.mode == 'triangular2':
            return 1 / (2. ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1. + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == 'cycle' else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base_m, max_m in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                self._set_momentum(group, max_m - (max_m - base_m) * scale_factor * scale)
        return lrs

    def state_dict(self):
        state = super().state_dict()
        fn = state['_scale_fn_custom']
        # Only a callable object's attributes are saved, not a function (torch 2's rule).
        state['_scale_fn_custom'] = None if fn is None or isinstance(fn, types.FunctionType) else fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        saved = state_dict.get('_scale_fn_custom')
        self.__dict__.update({key: value for key, value in state_dict.items() if key != '_scale_fn_custom'})
        if saved is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(saved)


class CosineAnnealingWarmRestarts(_LRScheduler):
    """SGDR: cosine annealing from the initial lr to eta_min over T_0 epochs, restarted with periods
    T_0 * T_mult, T_0 * T_mult ** 2, ...; step(epoch) takes fractional epochs (epoch + i / iters)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError("Expected positive integer T_0, but got {}".format(T_0))
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError("Expected integer T_mult >= 1, but got {}".format(T_mult))
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        # Never counts its steps (torch's _step_count stays 0).
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError("Expected non-negative epoch, but got {}".format(epoch))
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                # The number of whole periods before epoch: T_0 (T_mult^n - 1) / (T_mult - 1) <= epoch.
                n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _InStep(self):
            values = self.get_lr()
        self._apply(values, epoch)


class OneCycleLR(_LRScheduler):
    """The 1cycle policy (Smith & Topin, 2018), one step per batch and total_steps in all: the lr
    rises from max_lr / div_factor to max_lr over pct_start of the steps, then falls to
    initial_lr / final_div_factor (three_phase: back to the initial lr first); with
    cycle_momentum the momentum (or betas[0]) moves the other way."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25., final_div_factor=1e4, three_phase=False, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is None and epochs is None and steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        elif total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError("Expected positive integer total_steps, but got {}".format(total_steps))
            self.total_steps = total_steps
        else:
            if epochs <= 0 or not isinstance(epochs, int):
                raise ValueError("Expected positive integer epochs, but got {}".format(epochs))
            if steps_per_epoch <= 0 or not isinstance(steps_per_epoch, int):
                raise ValueError("Expected positive integer steps_per_epoch, but got {}".format(steps_per_epoch))
            self.total_steps = epochs * steps_per_epoch

        def phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
            return {'end_step': end_step, 'start_lr': start_lr, 'end_lr': end_lr,
                    'start_momentum': start_momentum, 'end_momentum': end_momentum}

        warmup = phase(float(pct_start * self.total_steps) - 1, 'initial_lr', 'max_lr', 'max_momentum',
                       'base_momentum')
        if three_phase:
            self._schedule_phases = [
                warmup,
                phase(float(2 * pct_start * self.total_steps) - 2, 'max_lr', 'initial_lr', 'base_momentum',
                      'max_momentum'),
                phase(self.total_steps - 1, 'initial_lr', 'min_lr', 'max_momentum', 'max_momentum'),
            ]
        else:
            self._schedule_phases = [
                warmup,
                phase(self.total_steps - 1, 'max_lr', 'min_lr', 'base_momentum', 'max_momentum'),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError("Expected float between 0 and 1 pct_start, but got {}".format(pct_start))
        if anneal_strategy not in ['cos', 'linear']:
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got {}".format(
                anneal_strategy))
        self._anneal_func_type = anneal_strategy

        max_lrs = _per_group('max_lr', optimizer, max_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, max_lrs):
                group['initial_lr'] = lr / div_factor
                group['max_lr'] = lr
                group['min_lr'] = group['initial_lr'] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if 'momentum' not in optimizer.defaults and 'betas' not in optimizer.defaults:
                raise ValueError('optimizer must support momentum with `cycle_momentum` option enabled')
            self.use_beta1 = 'betas' in optimizer.defaults
            max_momentums = _per_group('max_momentum', optimizer, max_momentum)
            base_momentums = _per_group('base_momentum', optimizer, base_momentum)
            if last_epoch == -1:
                for max_m, base_m, group in zip(max_momentums, base_momentums, optimizer.param_groups):
                    self._set_momentum(group, max_m)
                    group['max_momentum'] = max_m
                    group['base_momentum'] = base_m
        super().__init__(optimizer, last_epoch, verbose)

    def _set_momentum(self, group, momentum):
        if self.use_beta1:
            group['betas'] = (momentum, *group['betas'][1:])
        else:
            group['momentum'] = momentum

    def anneal_func(self, start, end, pct):
        """From start (pct 0) to end (pct 1), along half a cosine or a line."""
        if self._anneal_func_type == 'cos':
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError("Tried to step {} times. The specified number of total steps is {}".format(
                step_num + 1, self.total_steps))
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase['end_step']
                if step_num <= end_step or i == last:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self.anneal_func(group[phase['start_lr']], group[phase['end_lr']], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self.anneal_func(group[phase['start_momentum']],
                                                                   group[phase['end_momentum']], pct))
                    break
                start_step = end_step
        return lrs
