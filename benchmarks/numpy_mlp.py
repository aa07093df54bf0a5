"""The floor: the demo's MLP written by hand in numpy (manual backprop, Adam as TF.js ships it),
fed exactly the demo's data, initial weights and batches."""

from __future__ import annotations

import numpy as np

from tensorplug.cli.digits_mlp import Digits, epoch_batches, init_params


class NumpyMLP:
    def __init__(self, seed: int, learning_rate: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-7) -> None:
        self.params = init_params(seed)
        self.m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.lr, self.b1, self.b2, self.eps = learning_rate, beta1, beta2, epsilon
        self.t = 0

    def logits(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.maximum(x @ p["w1"] + p["b1"], 0) @ p["w2"] + p["b2"]

    def step(self, x: np.ndarray, y: np.ndarray) -> float:
        p = self.params
        h_pre = x @ p["w1"] + p["b1"]
        h = np.maximum(h_pre, 0)
        z = h @ p["w2"] + p["b2"]
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        total = e.sum(axis=1, keepdims=True)
        n = len(y)
        loss = np.mean(np.log(total[:, 0]) - z[np.arange(n), y])
        dz = e / total  # softmax
        dz[np.arange(n), y] -= 1
        dz /= n
        dh = (dz @ p["w2"].T) * (h_pre > 0)
        grads = {"w2": h.T @ dz, "b2": dz.sum(axis=0), "w1": x.T @ dh, "b1": dh.sum(axis=0)}
        self.t += 1
        lr_t = self.lr / (1 - self.b1 ** self.t)
        v_scale = 1 / (1 - self.b2 ** self.t)
        for k, g in grads.items():
            m = self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g
            v = self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g
            p[k] = p[k] - lr_t * m / (np.sqrt(v * v_scale) + self.eps)
        return float(loss)


def run_epoch(model: NumpyMLP, data: Digits, batch_size: int, rng: np.random.Generator) -> float:
    losses = [model.step(data.x_train[idx], data.y_train[idx])
              for idx in epoch_batches(len(data.y_train), batch_size, rng)]
    return float(np.mean(losses))


def accuracy(model: NumpyMLP, data: Digits) -> float:
    return float(np.mean(model.logits(data.x_test).argmax(axis=1) == data.y_test))
