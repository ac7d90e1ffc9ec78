"""Op-table rows of the optimizer ops: none. The fused updates are checked against
torch.optim's trajectories in test_optim.py."""
ROWS = []
COVERED_ELSEWHERE = {"_fused_sgd", "_fused_adam", "_fused_adagrad", "_fused_rmsprop", "_fused_adadelta",
                     "_fused_adamax", "_fused_nadam", "_fused_radam"}
