"""What to bid, by estimate (`wizard-sim estimate`, `sim.estimate`; docs/estimate.md): the
request and its checks (`request`), the situation and the opponent model as the kernels take
them (`situation`), the driver of the posterior's samples and their rollouts (`run`), its
kernel calls in slices (`slices`), the samples with Python policies at the table
(`bot_rollouts`), the figures found (`results`), `play`'s bid hint (`hints`) and the
calibration against self-play (`calibration`). The kernels are kernels/estimate/.

Named `estimation`, not `estimate`: a subpackage `sim.estimate` would, once imported, replace
the public function `sim.estimate` as the attribute of `sim`."""
