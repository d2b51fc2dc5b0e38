"""What a run is made of, as values, validated: rules, cards, seeds, limits, errors, actions, the
version. The policies, which import code (the kernels' dispatch, users' bots, model
directories), are sim.policies, the layer above.

The lowest layer of `sim`: it imports only the kernels (see tests/test_layout.py). Importing
it does nothing else: the engine (sim.engine) prepares the process when it first runs kernels."""
