"""Search: what sits above the posterior. The posterior sampler of the unseen cards, the
equivalent cards and the perfect-information solver, the face-up playout, and the policies
that search (mc, pimc)."""
