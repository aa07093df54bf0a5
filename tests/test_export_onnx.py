"""tp.export.onnx: functions and models written as ONNX and run in onnxruntime (issue 35)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tensorplug as tp
from _onnx_runtime import onnx, ort, run  # noqa: F401  (skips without onnx, onnxruntime)
from tensorplug import cli
from tensorplug.cli.digits_cnn import cnn
from tensorplug.cli.digits_mlp import Training, load_digits_split, mlp
from tensorplug.extend import (
    KernelConfig,
    KernelSpec,
    OnnxLowering,
    register_kernel,
    register_kernel_spec,
    register_onnx_lowering,
)
from tensorplug.families.registration import load_core_rules
from tensorplug.registry.core_entries import CORE_ENTRIES
from tensorplug.testing import opcheck

load_core_rules()  # (CORE_ENTRIES holds the lowerings once their modules are imported)


def digits(n: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(0, 16, size=(n, 64)).astype(np.float32)


@pytest.mark.parametrize("make", [mlp, cnn], ids=["mlp", "cnn"])
def test_the_demo_models_give_the_same_predictions_in_onnxruntime(make, tmp_path):
    model = make(0)
    path = str(tmp_path / "model.onnx")
    written = tp.export.onnx(model, digits(2), path=path, dynamic_axes={"input": {0: "batch"},
                                                                        "output": {0: "batch"}})
    x = digits(7)  # (another batch size than the example's: the batch axis is dynamic)
    (got,) = run(path, x)
    np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-5, atol=1e-5)
    assert (got.argmax(1) == model(x).numpy().argmax(1)).all()
    names = {i.name for i in written.graph.initializer}
    assert {path for path, _ in model.named_variables()} <= names
    assert written.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"


def test_a_function_reading_variables_exports_them_as_initializers_by_name(tmp_path):
    w = tp.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="export_w")
    b = tp.Variable(np.ones(2, np.float32), name="export_b")

    def f(x, y):
        return tp.nn.relu(x @ w + b), tp.sum(y * 2.0, axis=0)

    x, y = np.ones((4, 3), np.float32), np.arange(8, dtype=np.float32).reshape(4, 2)
    model = tp.export.onnx(f, x, y, path=str(tmp_path / "f.onnx"), input_names=["x", "y"],
                           output_names=["hidden", "total"])
    assert sorted(i.name for i in model.graph.initializer if i.name.startswith("export_")) == ["export_b",
                                                                                                 "export_w"]
    assert [o.name for o in model.graph.output] == ["hidden", "total"]
    got = run(str(tmp_path / "f.onnx"), x, y)
    want = f(x, y)
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["Exp_0", "const_2", "Multiply_1", "Add_2"])
def test_inputs_and_outputs_named_like_generated_values_keep_their_names_and_meaning(name):
    # (the generated names of f's values are Exp_0, const_2, Multiply_1, Add_2: a user's input
    # or output of that name once made another value read the input, a wrong answer)
    def f(a):
        return tp.exp(a) * 2.0 + a

    x = np.linspace(-1, 1, 3, dtype=np.float32)
    for model in (tp.export.onnx_model(f, x, input_names=[name]),
                  tp.export.onnx_model(f, x, output_names=[name])):
        assert name in {v.name for v in (*model.graph.input, *model.graph.output)}
        np.testing.assert_allclose(run(model, x)[0], f(x).numpy(), rtol=1e-6)


def test_the_example_plugins_op_exports_through_its_own_lowering(tmp_path):
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    model = tp.export.onnx(lambda t: tp.ops.erf(t) * 2.0, x, path=str(tmp_path / "erf.onnx"))
    assert "Erf" in {n.op_type for n in model.graph.node}
    np.testing.assert_allclose(run(model, x)[0], (tp.ops.erf(x) * 2.0).numpy(), rtol=1e-5, atol=1e-6)


def _toy_kernel(name: str) -> None:
    register_kernel_spec(KernelSpec(name, ("x",), lambda infos, attrs: [infos[0]]))
    register_kernel(KernelConfig(name, "numpy", lambda inputs, attrs, backend: inputs[0] + 1))


def test_kernels_without_a_lowering_are_all_named_before_anything_is_written(tmp_path):
    _toy_kernel("ToyNoLowerA")
    _toy_kernel("ToyNoLowerB")

    def f(x):
        a = tp.run_kernel("ToyNoLowerA", {"x": tp.exp(x)})
        return tp.run_kernel("ToyNoLowerB", {"x": a})

    path = tmp_path / "no.onnx"
    with pytest.raises(tp.ExportError, match=r"no ONNX lowering for 2 kernel\(s\).*'ToyNoLowerA' \(declared "
                       r"by 'user code'\), 'ToyNoLowerB'.*register_onnx_lowering.*tensorplug_onnx_lowerings"):
        tp.export.onnx(f, np.ones(3, np.float32), path=str(path))
    assert list(tmp_path.iterdir()) == []  # no file, no temporary left behind

    register_onnx_lowering(OnnxLowering("ToyNoLowerA", lambda ctx: ctx.node(
        "Add", [ctx.inputs[0], ctx.constant(1, np.float32)], ctx.out)))
    with pytest.raises(tp.ExportError, match=r"1 kernel\(s\).*'ToyNoLowerB'"):
        tp.export.onnx(f, np.ones(3, np.float32), path=str(path))


def test_value_dependent_control_flow_is_a_traced_value_error_naming_export(tmp_path):
    def f(x):
        return x * 2.0 if float(tp.sum(x)) > 0 else x

    with pytest.raises(tp.TracedValueError, match=r"tp.export.onnx: the function reads a value that depends "
                       r"on its inputs.*tp.where"):
        tp.export.onnx(f, np.ones(3, np.float32), path=str(tmp_path / "f.onnx"))
    assert list(tmp_path.iterdir()) == []


def test_a_dtype_onnx_lacks_is_refused_naming_the_value(tmp_path):
    with pytest.raises(tp.ExportError, match=r"dtype complex64.*not compute with.*tp.real, tp.imag"):
        tp.export.onnx(lambda z: z * z, np.ones(3, np.complex64), path=str(tmp_path / "z.onnx"))
    assert list(tmp_path.iterdir()) == []


def test_without_the_onnx_package_the_error_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # (import onnx raises ImportError)
    with pytest.raises(tp.MissingDependencyError, match=r"tp.export.onnx needs the 'onnx' package.*"
                       r"tensorplug-core\[onnx\]"):
        tp.export.onnx(lambda x: x + 1.0, np.ones(3, np.float32), path=str(tmp_path / "x.onnx"))
    assert list(tmp_path.iterdir()) == []


def test_dynamic_axes_naming_an_unknown_value_is_an_error(tmp_path):
    with pytest.raises(tp.ExportError, match=r"dynamic_axes names 'x', which is not an input or output.*"
                       r"\['input', 'output'\]"):
        tp.export.onnx(lambda x: x + 1.0, np.ones(3, np.float32), path=str(tmp_path / "x.onnx"),
                       dynamic_axes={"x": [0]})


@pytest.mark.parametrize("kernel", sorted(CORE_ENTRIES["onnx_lowerings"]))
def test_every_core_lowering_agrees_with_its_kernel_in_onnxruntime(kernel):
    opcheck(kernel, "numpy", checks=["onnx"]).assert_ok()


# -- the command line: `tensorplug export` and the demo's --save to .onnx ----------------------
def test_the_export_command_writes_a_saved_demo_model_as_onnx(tmp_path, capsys):
    pytest.importorskip("safetensors")
    data = load_digits_split()
    trained = Training(data, seed=3, model="cnn")
    saved, out = str(tmp_path / "cnn.safetensors"), str(tmp_path / "cnn.onnx")
    trained.save(saved)
    assert cli.main(["export", saved, out]) == 0
    assert f"wrote {out}: the demo's CNN as ONNX" in capsys.readouterr().out
    x = data.x_test[:50]
    (logits,) = run(out, x)
    np.testing.assert_allclose(logits, trained.model(x).numpy(), rtol=1e-5, atol=1e-5)

    assert cli.main(["export", saved, str(tmp_path / "x.onnx"), "--model", "mlp"]) == 1
    assert "are not those of the demo model mlp; pass --model" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


def test_the_demo_saves_onnx_when_the_path_ends_in_onnx(tmp_path, capsys):
    path = tmp_path / "mlp.onnx"
    assert cli.main(["demo", "--epochs", "1", "--no-progress", "--save", str(path)]) == 0
    assert f"saved:               {path} (ONNX" in capsys.readouterr().out
    model = onnx.load(str(path))
    assert {"layers.0.kernel", "layers.1.bias"} <= {i.name for i in model.graph.initializer}


def test_a_path_that_cannot_be_written_and_a_function_that_is_none_are_export_errors(tmp_path):
    with pytest.raises(tp.ExportError, match=r"cannot write '.*missing/m.onnx'.*folder must exist"):
        tp.export.onnx(lambda x: x + 1.0, np.ones(3, np.float32), path=str(tmp_path / "missing" / "m.onnx"))
    with pytest.raises(tp.ExportError, match=r"cannot write '.*'"):
        tp.export.onnx(lambda x: x + 1.0, np.ones(3, np.float32), path=str(tmp_path))  # (a folder)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(tp.ArgumentError, match=r"tp.export.onnx: f must be a function, got None"):
        tp.export.onnx(None, np.ones(3, np.float32), path=str(tmp_path / "m.onnx"))


def test_the_guide_lists_every_core_kernel_without_a_lowering_and_no_other():
    guide = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "exporting-models.md").read_text()
    table = guide[guide.index("## Kernels without an ONNX lowering"):]
    names = [name.strip() for row in table.splitlines() if row.startswith("| ")
             and not row.startswith(("| kernels", "| ---")) for name in row.split("|")[1].split(",")]
    listed = {f"NonMaxSuppressionV{v}" for v in (3, 4, 5)} | set(names) - {"NonMaxSuppressionV3/V4/V5"}
    without = set(CORE_ENTRIES["specs"]) - set(CORE_ENTRIES["onnx_lowerings"])
    assert listed == without
    have = len(CORE_ENTRIES["onnx_lowerings"])
    assert f"{have} of the core's {len(CORE_ENTRIES['specs'])} kernels have a lowering" in guide


@pytest.mark.parametrize("kernel", ["SparseSegmentSum", "SparseSegmentMean"])
def test_sparse_segments_with_a_number_of_segments_export(kernel):
    """(The kit's cases of these kernels leave num_segments to the ids' values: not exportable.)"""
    data, indices = np.arange(12, dtype=np.float32).reshape(4, 3), np.array([0, 2, 3, 1])
    ids = np.array([0, 0, 2, 5])  # (5: outside the 3 segments, dropped)

    def f(d, i, s):
        return tp.run_kernel(kernel, {"data": d, "indices": i, "segment_ids": s}, {"num_segments": 3})

    (got,) = run(tp.export.onnx_model(f, data, indices, ids), data, indices, ids)
    np.testing.assert_array_equal(got, f(data, indices, ids).numpy())
    with pytest.raises(tp.TracedValueError, match=rf"kernel '{kernel}' gives an output whose length depends"):
        tp.export.onnx_model(lambda d, i, s: tp.run_kernel(
            kernel, {"data": d, "indices": i, "segment_ids": s}, {"num_segments": None}), data, indices, ids)


def _cnn_with_batch_norm() -> tp.nn.Module:
    return tp.nn.Sequential([tp.nn.Conv2D(4, 3, padding="same", in_channels=3), tp.nn.BatchNorm(),
                             tp.nn.Dropout(0.5), tp.nn.AvgPool2D(2), tp.nn.Flatten(), tp.nn.Dense(5),
                             tp.nn.Lambda(tp.nn.softmax)])


class _SelfAttention(tp.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = tp.nn.MultiHeadAttention(2, 8)

    def forward(self, x):
        return self.attention(x, x)


@pytest.mark.parametrize("make,shape,dtype", [
    (_cnn_with_batch_norm, (8, 8, 3), np.float32),
    (lambda: tp.nn.Sequential([tp.nn.LayerNorm(), tp.nn.Dense(8, activation="gelu"), tp.nn.Dense(3)]),
     (6, 16), np.float32),
    (_SelfAttention, (6, 16), np.float32),
    (lambda: tp.nn.Sequential([tp.nn.Embedding(10, 4), tp.nn.Flatten(), tp.nn.Dense(2)]), (3,), np.int64),
], ids=["conv-batchnorm-dropout-softmax", "layernorm-gelu", "attention", "embedding"])
def test_models_of_the_common_layers_export_with_a_dynamic_batch(make, shape, dtype):
    """Exported from a batch of 2 in eval mode (dropout off, batch norm on its statistics), run on 5."""
    rng = np.random.default_rng(0)
    small, big = ((rng.integers(0, 10, size=(n, *shape)) if dtype == np.int64 else
                   rng.normal(size=(n, *shape))).astype(dtype) for n in (2, 5))
    model = make()
    model(small)  # (built)
    batch = {"input": {0: "batch"}, "output": {0: "batch"}}
    exported = tp.export.onnx_model(model, small, dynamic_axes=batch)
    assert model.training  # (export restored the mode it found)
    (got,) = run(exported, big)
    model.eval()
    np.testing.assert_allclose(got, model(big).numpy(), rtol=1e-5, atol=1e-5)


def test_gradients_export_through_the_gradient_kernels():
    """tp.grad of a strided, padded convolution and pooling: Conv2DBackpropInput and
    Conv2DBackpropFilter, AvgPoolGrad and MaxPoolGrad run in onnxruntime as in tensorplug."""
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, 7, 7, 3)).astype(np.float32), rng.normal(size=(3, 3, 3, 4)).astype(np.float32)

    def loss(x, w):
        y = tp.nn.conv(x, w, strides=2, padding="SAME", dilation=1)
        pooled = tp.nn.avg_pool(y, (2, 2), 1, "SAME")
        return tp.sum(pooled ** 2) + tp.sum(tp.nn.max_pool(y, (3, 3), 2, "SAME"))

    def grads(x, w):
        return tp.grad(loss, argnums=(0, 1))(x, w)

    model = tp.export.onnx_model(grads, x, w)
    assert {"ConvTranspose", "MaxPool", "ScatterElements"} <= {n.op_type for n in model.graph.node}
    for got, want in zip(run(model, x, w), grads(x, w)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("attrs", [
    {"strides": (1, 1), "pad": ((0, 0), (0, 0)), "dilations": (1, 1)},
    {"strides": (2, 1), "pad": ((1, 1), (0, 1)), "dilations": (1, 2)},
])
def test_dilation2d_exports_with_strides_padding_and_dilations(attrs):
    rng = np.random.default_rng(1)
    x, f = rng.normal(size=(2, 7, 6, 3)).astype(np.float32), rng.normal(size=(2, 3, 3)).astype(np.float32)

    def dilate(x, f):
        return tp.run_kernel("Dilation2D", {"x": x, "filter": f}, attrs)

    (got,) = run(tp.export.onnx_model(dilate, x, f), x, f)
    np.testing.assert_allclose(got, dilate(x, f).numpy(), rtol=1e-6)


def test_lrn_grad_exports():
    rng = np.random.default_rng(2)
    dy, x = rng.normal(size=(2, 3, 3, 7)).astype(np.float32), rng.normal(size=(2, 3, 3, 7)).astype(np.float32)
    attrs = {"depth_radius": 2, "bias": 1.5, "alpha": 0.3, "beta": 0.75}

    def grad(dy, x):
        y = tp.run_kernel("LRN", {"x": x}, attrs)
        return tp.run_kernel("LRNGrad", {"dy": dy, "x": x, "y": y}, attrs)

    (got,) = run(tp.export.onnx_model(grad, dy, x), dy, x)
    np.testing.assert_allclose(got, grad(dy, x).numpy(), rtol=1e-5, atol=1e-6)


def test_names_must_be_one_per_input_and_output_and_distinct():
    x = np.ones(3, np.float32)
    with pytest.raises(tp.ExportError, match=r"input_names must be 1 distinct names \(one per example "
                       r"argument\), got \['a', 'b'\]"):
        tp.export.onnx_model(lambda t: t + 1.0, x, input_names=["a", "b"])
    with pytest.raises(tp.ExportError, match=r"output_names must be 2 distinct names \(the function "
                       r"returns 2 tensors\), got \['y', 'y'\]"):
        tp.export.onnx_model(lambda t: (t + 1.0, t * 2.0), x, output_names=["y", "y"])


@pytest.mark.jax
def test_a_model_on_the_jax_backend_exports_and_keeps_its_backend():
    with tp.backend_scope("jax"):
        model = mlp(0)
    x = digits(3)
    exported = tp.export.onnx_model(model, x)
    assert {"layers.0.kernel", "layers.1.bias"} <= {i.name for i in exported.graph.initializer}
    assert {v.backend for v in model.variables()} == {"jax"}
    with tp.backend_scope("jax"):
        want = model(x).numpy()
    np.testing.assert_allclose(run(exported, x)[0], want, rtol=1e-5, atol=1e-5)


def test_an_opset_the_lowerings_cannot_write_is_refused():
    x = np.ones(3, np.float32)
    newest = onnx.defs.onnx_opset_version()
    assert tp.export.onnx_model(lambda t: t + 1.0, x, opset=newest).opset_import[0].version == newest
    with pytest.raises(tp.ExportError, match=r"opset 13 is not one the lowerings can write.*opset 21.*pass "
                       r"an opset from 21 to \d+"):
        tp.export.onnx_model(lambda t: t + 1.0, x, opset=13)


def test_one_tensor_given_twice_and_variables_sharing_an_array_are_distinct_values():
    w = tp.Variable(np.arange(3, dtype=np.float32), name="shared_w")
    w2 = tp.Variable(w, name="shared_w2")  # (holds w's very array)
    t = tp.asarray(np.ones(3, np.float32))
    model = tp.export.onnx_model(lambda a, b: a * 2.0 + b * w - w2, t, t)
    assert [i.name for i in model.graph.input] == ["input_0", "input_1"]
    x, y = np.ones(3, np.float32), np.full(3, 5.0, np.float32)
    np.testing.assert_allclose(run(model, x, y)[0], x * 2.0 + y * w.numpy() - w2.numpy())


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_and_its_gradient_export_with_boxes_leaving_the_image(method):
    rng = np.random.default_rng(3)
    image = rng.normal(size=(2, 6, 5, 3)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.0, 0.5, 1.3], [0.3, 0.3, 0.3, 0.3]], np.float32)
    box_ind = np.array([1, 0, 3], np.int32)  # (3: no such image)
    attrs = {"crop_size": (4, 3), "method": method, "extrapolation_value": -1.0}

    def crop(image, boxes, box_ind):
        return tp.run_kernel("CropAndResize", {"image": image, "boxes": boxes, "box_ind": box_ind}, attrs)

    (got,) = run(tp.export.onnx_model(crop, image, boxes, box_ind), image, boxes, box_ind)
    np.testing.assert_allclose(got, crop(image, boxes, box_ind).numpy(), rtol=1e-5, atol=1e-5)

    grads = rng.normal(size=(3, 4, 3, 3)).astype(np.float32)

    def grad(grads, boxes, box_ind):
        return tp.run_kernel("CropAndResizeGradImage", {"grads": grads, "boxes": boxes, "box_ind": box_ind},
                             {"image_shape": image.shape, "method": method})

    (got,) = run(tp.export.onnx_model(grad, grads, boxes, box_ind), grads, boxes, box_ind)
    np.testing.assert_allclose(got, grad(grads, boxes, box_ind).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel", ["ResizeBilinearGrad", "ResizeNearestNeighborGrad"])
@pytest.mark.parametrize("align_corners,half_pixel_centers", [(False, False), (True, False), (False, True)])
def test_resize_gradients_export(kernel, align_corners, half_pixel_centers):
    rng = np.random.default_rng(4)
    images = rng.normal(size=(2, 5, 4, 3)).astype(np.float32)
    dy = rng.normal(size=(2, 3, 7, 3)).astype(np.float32)
    attrs = {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers}

    def grad(images, dy):
        return tp.run_kernel(kernel, {"images": images, "dy": dy}, attrs)

    (got,) = run(tp.export.onnx_model(grad, images, dy), images, dy)
    np.testing.assert_allclose(got, grad(images, dy).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel", ["ResizeBilinear", "ResizeNearestNeighbor"])
@pytest.mark.parametrize("align_corners,half_pixel_centers", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("size", [(7, 3), (3, 9), (1, 1)])
def test_resizes_export_with_every_coordinate_rule(kernel, align_corners, half_pixel_centers, size):
    images = np.random.default_rng(5).normal(size=(2, 5, 4, 3)).astype(np.float32)
    attrs = {"size": size, "align_corners": align_corners, "half_pixel_centers": half_pixel_centers}

    def resize(images):
        return tp.run_kernel(kernel, {"images": images}, attrs)

    (got,) = run(tp.export.onnx_model(resize, images), images)
    np.testing.assert_allclose(got, resize(images).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel", ["Dilation2DBackpropInput", "Dilation2DBackpropFilter"])
@pytest.mark.parametrize("attrs", [
    {"strides": (1, 1), "pad": ((0, 0), (0, 0)), "dilations": (1, 1)},
    {"strides": (2, 1), "pad": ((1, 1), (0, 1)), "dilations": (1, 2)},
])
def test_dilation2d_gradients_export(kernel, attrs):
    rng = np.random.default_rng(6)
    x, f = rng.normal(size=(2, 7, 6, 3)).astype(np.float32), rng.normal(size=(2, 3, 3)).astype(np.float32)
    out = tp.run_kernel("Dilation2D", {"x": x, "filter": f}, attrs)
    dy = rng.normal(size=tuple(out.shape)).astype(np.float32)

    def grad(x, f, dy):
        return tp.run_kernel(kernel, {"x": x, "filter": f, "dy": dy}, attrs)

    (got,) = run(tp.export.onnx_model(grad, x, f, dy), x, f, dy)
    np.testing.assert_allclose(got, grad(x, f, dy).numpy(), rtol=1e-5, atol=1e-5)


def test_the_solvers_export_with_a_dynamic_batch_and_nan_for_a_singular_matrix():
    """(Written out over the matrix size: the batch axis stays free.)"""
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 4, 4)).astype(np.float32), rng.normal(size=(4, 2)).astype(np.float32)
    a[1] = [[1, 2, 3, 4], [2, 4, 6, 8], [0, 1, 0, 1], [1, 0, 1, 0]]  # (rank 3: an exact zero pivot)
    axes = {"input_0": {0: "batch"}, "output": {0: "batch"}}
    for fn, args, want in [(tp.linalg.solve, (a, b), tp.linalg.solve(a, b).numpy()),
                           (lambda x, _: tp.linalg.inv(x), (a, b), tp.linalg.inv(a).numpy())]:
        model = tp.export.onnx_model(fn, a[:1], b, dynamic_axes=axes)
        (got,) = run(model, *args)
        assert np.isnan(got[1]).all() and np.isnan(want[1]).all()
        np.testing.assert_allclose(got[[0, 2]], want[[0, 2]], rtol=1e-5, atol=1e-5)


def test_complex_values_inside_a_function_export_as_real_pairs():
    """(ONNX has no complex dtype: the FFTs and the kernels complex values reach hold them as
    (real, imaginary) pairs; the function's inputs and outputs stay real.)"""
    x = np.random.default_rng(4).normal(size=(3, 8)).astype(np.float32)
    low_pass = np.linspace(1.0, 0.0, 5).astype(np.float32)

    def spectral(t):
        spectrum = tp.fft.fft(t.astype(tp.complex64), norm="ortho")
        return tp.fft.irfft(tp.fft.rfft(t) * low_pass, n=8), tp.abs(spectrum), tp.imag(tp.conj(spectrum))

    got = run(tp.export.onnx_model(spectral, x), x)
    for g, want in zip(got, spectral(tp.asarray(x))):
        np.testing.assert_allclose(g, want.numpy(), rtol=1e-5, atol=1e-5)


def test_a_kernel_whose_lowering_does_not_hold_complex_pairs_is_refused_by_name():
    with pytest.raises(tp.ExportError, match=r"computes on complex values with kernel\(s\) 'Exp' "
                       r"\(complex64\), whose ONNX lowerings do not handle complex values.*'Fft'.*"
                       r"complex_pairs=True"):
        tp.export.onnx_model(lambda t: tp.real(tp.exp(tp.fft.fft(t.astype(tp.complex64)))),
                             np.ones(4, np.float32))


def test_the_jacobi_lowerings_refuse_a_matrix_beyond_the_size_they_write_out():
    x = np.eye(25, dtype=np.float32)
    with pytest.raises(tp.ExportError, match=r"kernel 'Eigvalsh'.*its matrices are 25 x 25; the lowering "
                       r"writes the Jacobi iteration out and does so up to 24 x 24"):
        tp.export.onnx_model(tp.linalg.eigvalsh, x)


def test_a_lowering_of_a_newer_opset_asks_for_it_and_exports_with_it():
    x = np.array([-0.0, 0.0, -np.nan, 1.5], np.float32)
    with pytest.raises(tp.ExportError, match=r"kernel\(s\) 'Signbit' \(opset 26\) write operators newer than "
                       r"opset 21; export with opset=26 or newer"):
        tp.export.onnx_model(tp.signbit, x)
    (got,) = run(tp.export.onnx_model(tp.signbit, x, opset=26), x)
    np.testing.assert_array_equal(got, [True, False, True, False])


@pytest.mark.parametrize("field,value,message", [
    ("complex_pairs", "yes", r"complex_pairs must be True or False, got 'yes'"),
    ("min_opset", 26.0, r"min_opset must be an ONNX opset number \(an int such as 21\), got 26.0"),
])
def test_a_lowering_config_with_a_bad_field_is_refused_at_registration(field, value, message):
    config = OnnxLowering("Sin", lambda ctx: ctx.node("Sin", ctx.inputs, ctx.out), **{field: value})
    with pytest.raises(tp.RegistrationError, match=rf"OnnxLowering for 'Sin': {message}"):
        register_onnx_lowering(config, override=True)
