"""Generate edge_agent/watch/models/bme280_anomaly.tflite, the bundled BME280 window anomaly detector.

Run once by a developer, in a throwaway environment, never by the runtime or the tests:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tools/make_bme280_model.py [--out PATH] [--seed N]

The data is synthetic and generated here (see MODEL.md beside the model): windows of 16 BME280
samples (temperature °C, relative humidity %, pressure hPa) of an indoor room, labelled normal, and
the same windows with one injected fault (step, spike, fast ramp or an implausible
level), labelled anomalous. The network is a 3-layer perceptron written directly as
TensorFlow variables (no Keras) so the converted graph stays a handful of builtin ops:
MEAN, SUB, MUL, DIV, ABS, ADD, CONCATENATION, RESHAPE, FULLY_CONNECTED, LOGISTIC.

Input  [1, 16, 3] float32, raw physical units, channel order temperature_c, humidity_pct, pressure_hpa.
Output [1, 1] float32, anomaly probability in 0..1.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import numpy as np
import tensorflow as tf

WINDOW = 16
CHANNELS = ("temperature_c", "humidity_pct", "pressure_hpa")
# Fixed normalisation baked into the graph. Level: a typical indoor room and a span that maps the
# plausible indoor range onto roughly -1..1. Deviation: a bit above the BME280's own noise in
# normal mode with x16 oversampling (datasheet §3.4/§3.5: ~0.005 °C, ~0.02 %RH, ~0.2 Pa RMS), and
# above what a room drifts within 16 samples, so one unit of deviation is already unusual.
LEVEL_CENTER = np.array([22.0, 45.0, 1000.0], np.float32)
LEVEL_SPAN = np.array([12.0, 35.0, 60.0], np.float32)
DEV_SCALE = np.array([0.25, 1.0, 0.5], np.float32)
HIDDEN = (16, 8)

ANOMALY_KINDS = ("step", "spike", "ramp", "level")


def normal_windows(rng: np.random.Generator, n: int) -> np.ndarray:
    """Indoor-room windows: slow drift plus sensor noise, levels inside a plausible room climate."""
    t = np.arange(WINDOW, dtype=np.float32)[None, :]
    base = np.stack([rng.uniform(15, 30, n), rng.uniform(25, 65, n), rng.uniform(960, 1040, n)], axis=1)
    drift = np.stack([rng.normal(0, 0.01, n), rng.normal(0, 0.05, n), rng.normal(0, 0.01, n)], axis=1)
    noise = np.stack([rng.uniform(0.005, 0.06, n), rng.uniform(0.02, 0.3, n), rng.uniform(0.01, 0.08, n)], axis=1)
    x = base[:, None, :] + drift[:, None, :] * t[..., None]
    x = x + rng.normal(0, 1, (n, WINDOW, 3)) * noise[:, None, :]
    return x.astype(np.float32)


def inject(rng: np.random.Generator, x: np.ndarray, kind: str) -> np.ndarray:
    """Return a copy of windows `x` with one fault of `kind` per window."""
    x = x.copy()
    n = x.shape[0]
    ch = rng.integers(0, 3, n)
    # Magnitudes per channel: clearly beyond noise and drift, up to what a heat gun, a kettle's
    # steam or a door slam (pressure) would do to a sensor in seconds.
    mag_lo = np.array([1.5, 6.0, 2.5], np.float32)[ch]
    mag_hi = np.array([25.0, 40.0, 40.0], np.float32)[ch]
    mag = rng.uniform(mag_lo, mag_hi) * rng.choice([-1.0, 1.0], n)
    for i in range(n):
        c = ch[i]
        if kind == "step":
            at = rng.integers(1, WINDOW)
            x[i, at:, c] += mag[i]
            if rng.random() < 0.5:  # fault ending inside the window
                x[i, : at, c] -= mag[i]
                x[i, :, c] += mag[i]
        elif kind == "spike":
            at = rng.integers(0, WINDOW)
            x[i, at, c] += mag[i]
        elif kind == "ramp":
            rate = rng.uniform(mag_lo[i] / 4, mag_hi[i] / 8) * np.sign(mag[i])
            x[i, :, c] += rate * np.arange(WINDOW, dtype=np.float32)
        elif kind == "level":
            lo = np.array([-40.0, 0.0, 300.0])[c]
            hi = np.array([85.0, 100.0, 1100.0])[c]
            bad_low = np.array([2.0, 8.0, 880.0])[c]
            bad_high = np.array([42.0, 92.0, 1080.0])[c]
            target = rng.uniform(lo, bad_low) if rng.random() < 0.5 else rng.uniform(bad_high, hi)
            x[i, :, c] += target - x[i, :, c].mean()
    return np.clip(x, [-40.0, 0.0, 300.0], [85.0, 100.0, 1100.0]).astype(np.float32)


def dataset(rng: np.random.Generator, n_normal: int, n_per_kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Windows, labels (1 = anomaly) and kind index (-1 = normal)."""
    xs, ys, ks = [normal_windows(rng, n_normal)], [np.zeros(n_normal)], [np.full(n_normal, -1)]
    for k, kind in enumerate(ANOMALY_KINDS):
        xs.append(inject(rng, normal_windows(rng, n_per_kind), kind))
        ys.append(np.ones(n_per_kind))
        ks.append(np.full(n_per_kind, k))
    return np.concatenate(xs), np.concatenate(ys).astype(np.float32), np.concatenate(ks)


class Detector(tf.Module):
    """Fixed feature layer (level + within-window deviation) then a small perceptron."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        sizes = (3 + WINDOW * 3, *HIDDEN, 1)
        self.w = []
        self.b = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
            w0 = tf.random.stateless_normal((a, b), (seed, i)) * (2 / a) ** 0.5  # He init for ReLU
            self.w.append(tf.Variable(w0, name=f"w{i}"))
            self.b.append(tf.Variable(tf.zeros((b,)), name=f"b{i}"))

    def logits(self, x: tf.Tensor) -> tf.Tensor:
        mean = tf.reduce_mean(x, axis=1, keepdims=True)  # [n, 1, 3]
        level = tf.reshape((mean - LEVEL_CENTER) / LEVEL_SPAN, (-1, 3))
        dev = tf.reshape((x - mean) / DEV_SCALE, (-1, WINDOW * 3))
        # Squash huge deviations so a 40 hPa jump does not saturate the first layer.
        dev = dev / (1.0 + tf.abs(dev) / 8.0)
        h = tf.concat([level, dev], axis=1)
        for w, b in zip(self.w[:-1], self.b[:-1], strict=True):
            h = tf.nn.relu(tf.matmul(h, w) + b)
        return tf.matmul(h, self.w[-1]) + self.b[-1]

    @tf.function(input_signature=[tf.TensorSpec((1, WINDOW, 3), tf.float32, name="window")])
    def serve(self, x: tf.Tensor) -> tf.Tensor:
        return tf.sigmoid(self.logits(x))


def train(seed: int) -> tuple[Detector, dict[str, float]]:
    """Train on synthetic windows; return the model and held-out metrics."""
    rng = np.random.default_rng(seed)
    x, y, _ = dataset(rng, 24000, 4800)
    xv, yv, kv = dataset(np.random.default_rng(seed + 1), 6000, 1200)
    model = Detector(seed)
    opt = tf.keras.optimizers.Adam(3e-3)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=seed).batch(256)
    for _epoch in range(30):
        for xb, yb in ds:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(
                    tf.nn.sigmoid_cross_entropy_with_logits(labels=yb[:, None], logits=model.logits(xb))
                )
            grads = tape.gradient(loss, model.w + model.b)
            opt.apply_gradients(zip(grads, model.w + model.b, strict=True))
    p = tf.sigmoid(model.logits(xv)).numpy()[:, 0]
    metrics = {"false_positive_rate": float((p[yv == 0] >= 0.5).mean())}
    for k, kind in enumerate(ANOMALY_KINDS):
        metrics[f"recall_{kind}"] = float((p[kv == k] >= 0.5).mean())
    return model, metrics


def convert(model: Detector) -> bytes:
    """Convert the serving function to a float32 TFLite flatbuffer with builtin ops only."""
    fn = model.serve.get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn], model)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    return converter.convert()


def main() -> None:
    """Train, convert, self-check with the TFLite interpreter, write the file, print metrics."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_out = Path(__file__).resolve().parent.parent / "edge_agent/watch/models/bme280_anomaly.tflite"
    parser.add_argument("--out", type=Path, default=default_out)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    tf.random.set_seed(args.seed)
    model, metrics = train(args.seed)
    blob = convert(model)
    interp = tf.lite.Interpreter(model_content=blob)
    interp.allocate_tensors()
    inp, out = interp.get_input_details()[0], interp.get_output_details()[0]
    probe = normal_windows(np.random.default_rng(0), 1)
    interp.set_tensor(inp["index"], probe)
    interp.invoke()
    lite = float(interp.get_tensor(out["index"])[0, 0])
    ref = float(model.serve(tf.constant(probe)).numpy()[0, 0])
    assert abs(lite - ref) < 1e-5, (lite, ref)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(blob)
    print(f"wrote {args.out} ({len(blob)} bytes, sha256 {hashlib.sha256(blob).hexdigest()})")
    print(f"input {inp['shape'].tolist()} {inp['dtype'].__name__}, output {out['shape'].tolist()} "
          f"{out['dtype'].__name__}")
    for k, v in metrics.items():
        print(f"{k}: {v:.4f}")


if __name__ == "__main__":
    main()
