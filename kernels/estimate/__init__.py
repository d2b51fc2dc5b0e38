"""estimate's kernels: what one seat should bid, by rollouts of sampled deals.

- `situation`: what the estimating seat knows at its turn (SITUATION_DTYPE) and how a sample
  of the unseen cards is dealt from it (uniformly, or from kernels.search.posterior);
- `rollouts`: the built-in rollouts, every candidate bid played on each sample inside the
  kernels (estimate_tricks);
- `stepped`: the same rollouts a caller's decision at a time, for seats played by a Python
  policy;
- `proposals`: the posterior's proposals and the observations a Python policy's likelihood
  is computed from.
"""
