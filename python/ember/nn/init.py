"""torch.nn.init: in-place initialisers of parameters."""
