"""The built-in policies' ids (kernels.dispatch chooses by them; mc's opponent model
reads which seats play the heuristic)."""

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1
POLICY_MC = 2
POLICY_PIMC = 3
