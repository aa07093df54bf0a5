"""Many devices: the demo's MLP trained data-parallel over 8 (forced host) CPU devices with
``jax.sharding``, through tensorplug's API (``tp.device_put`` and ``tp.jit``), gives the losses
of one device; so does one with parameters split over the devices, whose optimizer slots stay
split like them. In its own process: XLA_FLAGS must be set before jax is imported."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np

SCRIPT = """
    import os
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    import jax
    import numpy as np
    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

    import tensorplug as tp
    from tensorplug.cli.digits_mlp import Training, epoch_batches, load_digits_split

    tp.set_backend("jax")
    assert tp.devices() == [f"cpu:{i}" for i in range(8)], tp.devices()
    data = load_digits_split()
    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
    rows, replicated = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())

    def train(sharded):
        run = Training(data, seed=0, jit=True)  # the demo's model, Adam and jitted step
        if sharded:  # parameters replicated on every device
            for v in run.model.variables():
                v.assign(tp.device_put(v, replicated))
        losses = []
        batches = list(epoch_batches(len(data.y_train), 64, np.random.default_rng(1)))[:15]
        for idx in batches:
            x, y = tp.asarray(data.x_train[idx]), tp.asarray(data.y_train[idx])
            if sharded:  # the batch split by rows: 8 examples per device
                x, y = tp.device_put((x, y), rows)
            losses.append(run.compiled_step(x, y).item())
        w = run.model[0].kernel
        return losses, w, run.optimizer.get_slots(w)["m"], x

    one, w_one, m_one, x_one = train(False)
    many, w_many, m_many, x_many = train(True)
    print(x_one.device, "|", x_many.device)
    print(len(w_many.native.sharding.device_set), len(m_many.native.sharding.device_set))
    np.testing.assert_allclose(many, one, rtol=2e-5)
    np.testing.assert_allclose(w_many.numpy(), w_one.numpy(), rtol=1e-4, atol=1e-6)
    print("losses", [round(v, 4) for v in many[:3]], "...", round(many[-1], 4))

    # parameters split over the devices (tensor-parallel): their slots stay split like them (not
    # joined into one buffer with the others, which would put all of them on every device)
    def train_split(split):
        run = Training(data, seed=0, jit=True)
        p = {"w1": run.model[0].kernel, "b1": run.model[0].bias}
        if split:
            p["w1"].assign(tp.device_put(p["w1"], NamedSharding(mesh, P(None, "data"))))
            p["b1"].assign(tp.device_put(p["b1"], rows))
        losses = [run.compiled_step(data.x_train[:64], data.y_train[:64]).item() for _ in range(4)]
        slots = run.optimizer.get_slots
        return losses, slots(p["w1"])["m"].native.sharding, slots(p["b1"])["v"].native.sharding

    split, m_split, v_split = train_split(True)
    whole, _, _ = train_split(False)
    np.testing.assert_allclose(split, whole, rtol=2e-5)
    print("split:", m_split.spec == P(None, "data"), v_split.spec == P("data"))

    # JAX's explicit-sharding mode wants output shardings tensorplug's kernels cannot know
    explicit = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
    a = tp.device_put(tp.ones((16, 4)), NamedSharding(explicit, P("data")))
    try:
        tp.matmul(a.T, a)
    except tp.DeviceError as exc:
        print("explicit:", "automatic axes" in str(exc) and "Kernel 'MatMul' on backend 'jax'" in str(exc))

    # a pinned device: every kernel runs in the backend's scope (no direct calls), results stay there
    backend = tp.extend.start_backend("jax")
    tp.set_default_device("cpu:3")
    z = tp.sum(tp.exp(tp.ones((2, 2)) + 1.0) @ tp.ones((2, 2)))
    print("pinned:", z.device, backend.direct_kernels, round(z.item(), 3))
    doubled = tp.jit(lambda a: a * 2.0)  # a compiled call runs on the pinned device too
    print("pinned jit:", doubled(np.ones(2, np.float32)).device)
    tp.set_default_device("cpu:0")
    print("unpinned:", (tp.exp(tp.ones((2,))) + 1.0).device, backend.direct_kernels)
"""


def test_a_data_parallel_step_over_8_devices_gives_the_losses_of_one():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TENSORPLUG_", "JAX_", "XLA_"))}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT)], env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "cpu:0 | " + ",".join(f"cpu:{i}" for i in range(8))
    assert lines[1] == "8 8"  # parameters and optimizer slots stay on all 8 devices
    assert lines[2].startswith("losses")
    assert lines[3] == "split: True True"  # slots sharded like their parameters
    assert lines[4] == "explicit: True"
    assert lines[5] == f"pinned: cpu:3 False {round(8 * np.exp(2.0), 3)}"
    assert lines[6] == "pinned jit: cpu:3"
    assert lines[7] == "unpinned: cpu:0 True"
