"""scangen on JAX arrays (XLA FFI calls; on the CPU through OpenCL): values against NumPy over sizes,
dtypes, axes, directions and modes; under jax.jit and jax.vmap; gradients (jax.custom_vjp over the
derived backward scan) against jax.numpy's and central differences in float64; a custom non-commutative
operator (affine maps) under jit(grad); what is refused. Few distinct specs (each variant is a compile)."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import scangen

jax.config.update("jax_enable_x64", True)

# The text of linear_recurrence's float64 scan, written as a user would: the custom-operator tests and the
# recurrence's share its kernels.
AFFINE = ("type Affine_f64 { a: f64, b: f64 }\n"
          "scan linear_recurrence_f64 { type = Affine_f64; "
          "combine(x, y) = Affine_f64 { a: y.a * x.a, b: y.a * x.b + y.b }; "
          "identity = Affine_f64 { a: 1.0, b: 0.0 }; level = device; }")


def ints(gen, shape, dtype, lo=-100, hi=100):
    """Small integers as dtype: sums of them are exact in every order."""
    return gen.integers(lo, hi, size=shape).astype(dtype)


def ref_scan(accumulate, x, axis, reverse=False, exclusive=False, identity=0):
    if axis is None:
        x, axis = x.reshape(-1), 0
    if reverse:
        x = np.flip(x, axis)
    y = accumulate(x, axis=axis)
    if exclusive:
        first = np.full_like(np.take(y, [0], axis=axis), identity)
        y = np.concatenate([first, np.delete(y, -1, axis=axis)], axis=axis)
    return np.flip(y, axis) if reverse else y


def test_cumsum_sizes_and_dtypes(rng):
    gen, seed = rng
    for dtype in (np.float32, np.float64, np.int32):
        for n in (0, 1, 2, 31, 33, 1023, 1025, 4097):
            host = ints(gen, (n,), dtype)
            got = scangen.cumsum(jnp.asarray(host))
            assert isinstance(got, jax.Array), type(got)
            assert got.dtype == dtype and got.shape == (n,), (got.dtype, got.shape)
            np.testing.assert_array_equal(np.asarray(got), np.cumsum(host, dtype=dtype),
                                          err_msg=f"{np.dtype(dtype)} n={n} seed {seed}")


def test_axis_reverse_exclusive(rng):
    gen, seed = rng
    for shape in ((3, 257), (4, 1, 5), (2, 3, 4)):
        host = ints(gen, shape, np.float64)
        x = jnp.asarray(host)
        for axis in [None] + list(range(-len(shape), len(shape))):
            for reverse in (False, True):
                for exclusive in (False, True):
                    got = scangen.cumsum(x, axis=axis, reverse=reverse, exclusive=exclusive)
                    want = ref_scan(np.cumsum, host, axis, reverse, exclusive)
                    np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{shape} axis={axis} "
                                                  f"reverse={reverse} exclusive={exclusive} seed {seed}")
    one = scangen.cumsum(jnp.float64(3.0))  # 0-D: one element along its axis, as numpy.cumsum
    np.testing.assert_array_equal(np.asarray(one), [3.0])


def test_other_operators(rng):
    gen, seed = rng
    host = gen.uniform(0.5, 1.5, size=(4, 33))
    x = jnp.asarray(host)
    for fn, acc in ((scangen.cummax, np.maximum.accumulate), (scangen.cummin, np.minimum.accumulate),
                    (scangen.cumprod, np.multiply.accumulate), (scangen.logcumsumexp, np.logaddexp.accumulate)):
        np.testing.assert_allclose(np.asarray(fn(x)), acc(host, axis=-1), rtol=1e-12,
                                   err_msg=f"{fn.__name__} seed {seed}")
    i = ints(gen, (5, 9), np.int32)
    got = scangen.cummax(jnp.asarray(i), axis=0)
    assert got.dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(got), np.maximum.accumulate(i, axis=0), err_msg=f"seed {seed}")


def test_jit(rng):
    gen, seed = rng
    host = ints(gen, (6, 40), np.float64)
    f = jax.jit(lambda x: scangen.cumsum(x, axis=0, reverse=True) * 2 + scangen.cumsum(x, exclusive=True))
    want = 2 * ref_scan(np.cumsum, host, 0, reverse=True) + ref_scan(np.cumsum, host, -1, exclusive=True)
    for _ in range(2):  # traced once, run twice
        np.testing.assert_array_equal(np.asarray(f(jnp.asarray(host))), want, err_msg=f"seed {seed}")
    host32 = ints(gen, (1025,), np.float32)
    got = jax.jit(scangen.cumsum)(jnp.asarray(host32))
    assert got.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(got), np.cumsum(host32), err_msg=f"seed {seed}")


def test_grad_of_cumsum_matches_jax_numpy(rng):
    gen, seed = rng
    x = jnp.asarray(gen.uniform(-1, 1, size=(5, 7)))
    w = jnp.asarray(gen.uniform(-1, 1, size=(5, 7)))

    def jnp_cumsum(x, axis, reverse, exclusive):
        y = jnp.flip(jnp.cumsum(jnp.flip(x, axis), axis), axis) if reverse else jnp.cumsum(x, axis)
        return y - x if exclusive else y

    for axis in (0, 1):
        for reverse in (False, True):
            for exclusive in (False, True):
                def ours(x):
                    return jnp.sum(w * scangen.cumsum(x, axis=axis, reverse=reverse, exclusive=exclusive) ** 2)

                def theirs(x):
                    return jnp.sum(w * jnp_cumsum(x, axis, reverse, exclusive) ** 2)
                np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(ours))(x)), np.asarray(jax.grad(theirs)(x)),
                                           rtol=1e-12, atol=1e-12, err_msg=f"axis={axis} reverse={reverse} "
                                           f"exclusive={exclusive} seed {seed}")
    g32 = jax.grad(lambda v: jnp.sum(scangen.cumsum(v) ** 2))(x.astype(jnp.float32))
    assert g32.dtype == jnp.float32


def central_differences(f, x, eps=1e-6):
    x = np.asarray(x)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (float(f(jnp.asarray(up))) - float(f(jnp.asarray(down)))) / (2 * eps)
    return out


def test_grad_matches_central_differences(rng):
    gen, seed = rng
    for op, kw in (("cumprod", dict(exclusive=True)), ("cummax", dict(reverse=True)), ("logcumsumexp", dict())):
        fn = getattr(scangen, op)
        x = jnp.asarray(gen.uniform(0.5, 1.5, size=(3, 6)))
        w = jnp.asarray(gen.uniform(-1, 1, size=(3, 6)))
        loss = jax.jit(lambda v: jnp.sum(w * fn(v, **kw)))
        got = jax.jit(jax.grad(lambda v: jnp.sum(w * fn(v, **kw))))(x)
        np.testing.assert_allclose(np.asarray(got), central_differences(loss, x), rtol=1e-6, atol=1e-7,
                                   err_msg=f"{op} {kw} seed {seed}")


def affine_reference(a, b, axis, reverse):
    """The affine maps' scan by jax.lax.associative_scan (differentiable by JAX itself)."""
    def combine(x, y):
        return y[0] * x[0], y[0] * x[1] + y[1]
    return jax.lax.associative_scan(combine, (a, b), reverse=reverse, axis=axis)


def test_custom_affine_operator_under_jit_grad(rng):
    gen, seed = rng
    scan = scangen.compile(AFFINE)
    a = jnp.asarray(gen.uniform(-1.1, 1.1, size=(4, 9)))
    b = jnp.asarray(gen.uniform(-1, 1, size=(4, 9)))
    w = jnp.asarray(gen.uniform(-1, 1, size=(4, 9)))
    for reverse in (False, True):
        ya, yb = scan((a, b), axis=1, reverse=reverse)
        ra, rb = affine_reference(a, b, 1, reverse)
        np.testing.assert_allclose(np.asarray(ya), np.asarray(ra), rtol=1e-12, err_msg=f"seed {seed}")
        np.testing.assert_allclose(np.asarray(yb), np.asarray(rb), rtol=1e-12, atol=1e-14, err_msg=f"seed {seed}")

        def ours(a, b):
            ya, yb = scan((a, b), axis=1, reverse=reverse)
            return jnp.sum(w * yb + ya ** 2)

        def theirs(a, b):
            ya, yb = affine_reference(a, b, 1, reverse)
            return jnp.sum(w * yb + ya ** 2)
        got = jax.jit(jax.grad(ours, argnums=(0, 1)))(a, b)
        want = jax.grad(theirs, argnums=(0, 1))(a, b)
        for g, r, name in zip(got, want, "ab"):
            np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-10, atol=1e-12,
                                       err_msg=f"d/d{name} reverse={reverse} seed {seed}")
    # Exclusive (from the identity map), and a dict of fields in, a dict out.
    got = scan({"a": a, "b": b}, axis=1, exclusive=True)
    ra, rb = affine_reference(a, b, 1, False)
    np.testing.assert_allclose(np.asarray(got["b"][:, 1:]), np.asarray(rb[:, :-1]), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(np.asarray(got["a"][:, 0]), np.ones(4))
    gx = jax.grad(lambda b: jnp.sum(w * scan((a, b), axis=1, exclusive=True)[1]))(b)
    gr = jax.grad(lambda b: jnp.sum(w[:, 1:] * affine_reference(a, b, 1, False)[1][:, :-1]))(b)
    np.testing.assert_allclose(np.asarray(gx), np.asarray(gr), rtol=1e-10, atol=1e-12, err_msg=f"seed {seed}")


def recurrence_loop(a, b, h0, reverse):
    def step(h, ab):
        h = ab[0] * h + ab[1]
        return h, h
    _h, hs = jax.lax.scan(step, h0, (a.T, b.T), reverse=reverse)
    return hs.T


def test_linear_recurrence_values_and_gradients(rng):
    gen, seed = rng
    a = jnp.asarray(gen.uniform(0.5, 1.0, size=(3, 10)))
    b = jnp.asarray(gen.uniform(-1, 1, size=(3, 10)))
    h0 = jnp.asarray(gen.uniform(-1, 1, size=(3,)))
    for reverse in (False, True):
        got = scangen.linear_recurrence(a, b, h0=h0, reverse=reverse)
        np.testing.assert_allclose(np.asarray(got), np.asarray(recurrence_loop(a, b, h0, reverse)), rtol=1e-12,
                                   atol=1e-14, err_msg=f"reverse={reverse} seed {seed}")

        def ours(a, b, h0):
            return jnp.sum(scangen.linear_recurrence(a, b, h0=h0, reverse=reverse) ** 2)

        def theirs(a, b, h0):
            return jnp.sum(recurrence_loop(a, b, h0, reverse) ** 2)
        got = jax.jit(jax.grad(ours, argnums=(0, 1, 2)))(a, b, h0)
        want = jax.grad(theirs, argnums=(0, 1, 2))(a, b, h0)
        for g, r, name in zip(got, want, ("a", "b", "h0")):
            np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-10, atol=1e-12,
                                       err_msg=f"d/d{name} reverse={reverse} seed {seed}")
    # Along axis 0, a per-channel a (broadcast), no h0.
    got = scangen.linear_recurrence(a[:, :1].T, b.T, axis=0)
    want = recurrence_loop(jnp.broadcast_to(a[:, :1], b.shape), b, jnp.zeros(3), False).T
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-14, err_msg=f"seed {seed}")


def test_vmap(rng):
    gen, seed = rng
    host = ints(gen, (5, 33), np.float64)
    x = jnp.asarray(host)
    got = jax.vmap(lambda r: scangen.cumsum(r, reverse=True))(x)
    np.testing.assert_array_equal(np.asarray(got), ref_scan(np.cumsum, host, 1, reverse=True), err_msg=f"{seed}")
    got = jax.vmap(scangen.cumsum, in_axes=1, out_axes=1)(x)  # each column: the scans along axis 0
    np.testing.assert_array_equal(np.asarray(got), np.cumsum(host, axis=0), err_msg=f"seed {seed}")
    got = jax.jit(jax.vmap(lambda r: scangen.cumsum(r.reshape(3, 11), axis=0)))(x)
    np.testing.assert_array_equal(np.asarray(got), np.cumsum(host.reshape(5, 3, 11), axis=1), err_msg=f"{seed}")
    # vmap of grad through the derived backward scan of a custom operator (its lines, batched).
    scan = scangen.compile(AFFINE)
    a = jnp.asarray(gen.uniform(-1.1, 1.1, size=(4, 9)))
    b = jnp.asarray(gen.uniform(-1, 1, size=(4, 9)))

    def ours(a, b):
        return jnp.sum(scan((a, b))[1] ** 2)

    def theirs(a, b):
        return jnp.sum(affine_reference(a, b, 0, False)[1] ** 2)
    got = jax.jit(jax.vmap(jax.grad(ours, argnums=(0, 1))))(a, b)
    want = jax.vmap(jax.grad(theirs, argnums=(0, 1)))(a, b)
    for g, r in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-10, atol=1e-12, err_msg=f"seed {seed}")


def test_refusals():
    x = jnp.arange(1.0, 6.0)
    with pytest.raises(TypeError, match="bfloat16"):
        scangen.cumsum(x.astype(jnp.bfloat16))
    with pytest.raises(TypeError, match="out= is not supported"):
        scangen.cumsum(x, out=x)
    with pytest.raises(NotImplementedError, match="segments"):
        scangen.cumsum(x, offsets=jnp.asarray([0, 2, 5]))
    with pytest.raises(NotImplementedError, match="init="):
        scangen.cumsum(x, init=1.0)
    with pytest.raises(TypeError, match="tuple"):
        scangen.cumsum((x, x))
    scan = scangen.compile(AFFINE)
    with pytest.raises(TypeError, match="float32"):
        scan((x.astype(jnp.float32), x))
    with pytest.raises(ValueError, match="out of range"):
        scangen.cumsum(x, axis=1)
    # Not differentiable: an input conversion (named by the derived backward pass), integer bit operators
    # (JAX itself refuses integer inputs to grad).
    x32 = jnp.arange(1.0, 6.0, dtype=jnp.float32)
    with pytest.raises(scangen.ScanError, match="converts its input"):
        jax.grad(lambda v: jnp.sum(scangen.cumsum(v, dtype=np.float64)))(x32)
    bits = scangen.compile("scan or_u32 { type = u32; combine(x, y) = x | y; identity = 0; level = device; }")
    k = jnp.asarray([1, 2, 4, 8], dtype=jnp.uint32)
    np.testing.assert_array_equal(np.asarray(bits(k)), [1, 3, 7, 15])
    with pytest.raises(TypeError, match="uint32"):
        jax.grad(lambda v: jnp.sum(bits(v)).astype(jnp.float32))(k)


def test_vjp_and_runtime_errors(rng):
    gen, seed = rng
    x = gen.uniform(0.5, 1.5, size=(3, 6))
    g = gen.uniform(-1, 1, size=(3, 6))
    scan = scangen._builtin_scan("mul", np.dtype(np.float64), np.dtype(np.float64))
    got = scangen.vjp(scan, jnp.asarray(x), jnp.asarray(g), exclusive=True)
    assert isinstance(got, jax.Array)
    np.testing.assert_allclose(np.asarray(got), scangen.vjp(scan, x, g, exclusive=True), rtol=1e-12,
                               err_msg=f"seed {seed}")
    # The runtime's errors come back as XLA's, with their message.
    with pytest.raises(Exception, match="not lines of 5") as error:
        scangen._jax._ffi(scan, jnp.ones(12), False, False, 5).block_until_ready()
    assert "scangen" in str(error.value)


def test_a_build_without_jax_support_says_so(monkeypatch):
    monkeypatch.setattr(scangen._jax, "_state", {})
    monkeypatch.setattr(scangen._core, "jax_ffi", False)
    with pytest.raises(RuntimeError, match="reinstall scangen with jax installed"):
        scangen.cumsum(jnp.arange(3.0))


def test_cuda_handler():
    """The CUDA handler (XLA's stream and device buffers, the CUDA runtime): only where JAX has a GPU."""
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("needs a CUDA GPU and jax with CUDA (jax[cuda12]): the CUDA handler runs on XLA's GPU stream")
    x = jnp.arange(1.0, 4098.0)
    np.testing.assert_array_equal(np.asarray(jax.jit(scangen.cumsum)(x)), np.cumsum(np.arange(1.0, 4098.0)))
    g = jax.grad(lambda v: jnp.sum(scangen.cumprod(v, axis=0) * 0.5))(x[:8].reshape(2, 4))
    ref = jax.grad(lambda v: jnp.sum(jnp.cumprod(v, axis=0) * 0.5))(x[:8].reshape(2, 4))
    np.testing.assert_allclose(np.asarray(g), np.asarray(ref), rtol=1e-12)
    assert math.isfinite(float(jnp.sum(jax.vmap(scangen.cumsum)(x[:12].reshape(3, 4)))))
