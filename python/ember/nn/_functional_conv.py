"""nn.functional ops of convolution, pooling, padding and unfold/fold."""
__all__ = []
