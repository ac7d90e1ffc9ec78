"""ember.special: the torch.special functions Ember has (those under a name of their own;
the others are the torch.* functions of the same name)."""
from ._C import special_i1 as i1  # noqa: F401
