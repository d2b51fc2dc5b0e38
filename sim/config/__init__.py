"""What a run is made of, validated: rules, policies, cards, seeds, external bots, the version.

The lowest layer of `sim`: it imports only the kernels (see tests/test_layout.py). Importing
it does nothing else: the engine (sim.engine) prepares the process when it first runs kernels."""
