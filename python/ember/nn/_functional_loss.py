"""nn.functional losses (torch.nn.functional's signatures over the loss ops)."""
__all__ = []
