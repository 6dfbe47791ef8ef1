"""A training step through a scan: the decays of a linear RNN, h[t] = a[c] * h[t-1] + u[c, t] for each
channel c, learned by gradient descent on NumPy arrays. The forward pass is one scan of affine maps
along the time axis (every channel at once); the gradient comes from scangen.vjp, the backward scan that
scangen derives from the operator (its gradient for the field a of every step, summed over time).

    build/venv/bin/python examples/python/train_linear_rnn.py
"""
import numpy as np

import scangen

affine = scangen.compile("""
type Step { a: f64, b: f64 }
scan linear_rnn {
  type = Step;
  combine(x, y) = Step { a: y.a * x.a, b: y.a * x.b + y.b };   # x: the steps so far, y: the next one
  identity = Step { a: 1.0, b: 0.0 };
  level = device;
}""")

rng = np.random.default_rng(7)
channels, steps = 4, 256
u = rng.standard_normal((channels, steps))
true_a = np.array([0.9, 0.5, 0.99, 0.2])
target = scangen.linear_recurrence(true_a[:, None], u)   # what the model should reproduce

a = np.full(channels, 0.6)
# Adam: the channels' gradients differ by orders of magnitude (a decay near 1 remembers ~1 / (1 - a) steps).
m, v, rate = np.zeros(channels), np.zeros(channels), 0.01
for step in range(1, 601):
    x = np.empty((channels, steps), dtype=affine.dtype)
    x["a"] = a[:, None]
    x["b"] = u
    h = affine(x, axis=1)["b"]                     # forward: h[c, t]
    loss = np.mean((h - target) ** 2)
    grad = np.zeros_like(x)
    grad["b"] = 2 * (h - target) / h.size          # d loss / d h
    xbar = scangen.vjp(affine, x, grad, axis=1)    # backward: d loss / d (a, b) of every step
    g = xbar["a"].sum(axis=1)                      # each channel's a is shared by its steps
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    a = np.clip(a - rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-12), -0.999, 0.999)
    if step % 200 == 0:
        print(f"step {step:3d}: loss {loss:.3e}, a = {np.round(a, 3)}")

print(f"learned a = {np.round(a, 3)}, true a = {true_a}")
assert np.allclose(a, true_a, atol=1e-2), a
