"""One small interface over the TFLite interpreters: LiteRT first, then tflite-runtime.

``ai_edge_litert`` is the maintained successor (64-bit Linux, CPython up to 3.14) and what the ``ml``
extra installs; an existing ``tflite_runtime`` (e.g. built for 32-bit ARM, where neither has a wheel
for Python 3.11) is used when LiteRT is absent. Both are imported only
inside :func:`interpreter_class`, so the base install (and every rule-only watch) never needs them
or numpy. A model is checked at load against the shapes and dtypes its watch describes, so a wrong
file fails when the daemon starts, not on the first window.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from edge_agent.errors import BackendUnavailable, InferenceError

if TYPE_CHECKING:  # numpy comes with the ml extra, beside the interpreter
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

# Tried in order; the first importable one wins.
BACKENDS: tuple[tuple[str, str], ...] = (
    ("ai_edge_litert", "ai_edge_litert.interpreter"),
    ("tflite_runtime", "tflite_runtime.interpreter"),
)
DTYPES = ("float32", "int8", "uint8", "int16", "int32")
# Every TFLite flatbuffer carries the file identifier "TFL3" at bytes 4..8 (schema.fbs
# `file_identifier`); checking it first turns an empty or foreign file into a clear error before
# the native loader sees it.
_TFLITE_IDENT = b"TFL3"


class ModelFileError(InferenceError):
    """The model file is missing, unreadable, truncated or not a TFLite flatbuffer."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class ModelMismatchError(InferenceError):
    """The model's input or output tensor does not match the watch's description."""

    def __init__(self, message: str, *, path: Path, tensor: str, expected: Any, actual: Any) -> None:
        super().__init__(message)
        self.path, self.tensor, self.expected, self.actual = path, tensor, expected, actual


@dataclass(frozen=True)
class TensorSpec:
    """The shape and element type a watch expects of one model tensor."""

    shape: tuple[int, ...]
    dtype: str = "float32"

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise InferenceError(f"dtype {self.dtype!r} is not supported; use one of {', '.join(DTYPES)}")
        if not self.shape or any(d < 1 for d in self.shape):
            raise InferenceError(f"shape {list(self.shape)} must list positive dimensions, e.g. [1, 16, 3]")

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n


def interpreter_class() -> tuple[str, Any]:
    """Return (backend name, Interpreter class) of the first installed TFLite runtime.

    Raises:
        BackendUnavailable: neither ai-edge-litert nor tflite-runtime (nor numpy) is installed.
    """
    missing = []
    for name, module in BACKENDS:
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            missing.append(exc.name or name)
            continue
        return name, mod.Interpreter
    raise BackendUnavailable(
        "model watches need a TFLite interpreter and none is installed (" + ", ".join(missing) + " missing); "
        "install it with: pip install 'edge-agent[ml]' (x86_64 and aarch64; 32-bit ARM has no interpreter wheel, "
        "see docs/install-arm.md), or remove the watch's model to run it rule-only"
    )


# The interpreters' C++ logger writes its notes ("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.")
# straight to file descriptor 2, past Python's logging and with no setting that turns them off.
_NATIVE_NOTE = re.compile(rb"^INFO: ")


@contextlib.contextmanager
def _native_notes_to_debug_log() -> Iterator[None]:
    """While the interpreter is built, catch what it writes to fd 2: its ``INFO:`` notes go to this module's
    debug log (one stray line in the daemon's log otherwise); anything else is passed on to stderr as it was."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no usable fd 2: nothing to keep clean
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            for line in caught.read().splitlines(keepends=True):
                if _NATIVE_NOTE.match(line):
                    log.debug("TFLite: %s", line.decode("utf-8", "replace").strip())
                else:
                    os.write(2, line)


def available_backend() -> str | None:
    """Name of the interpreter backend that would be used, or None when the `ml` extra is absent."""
    try:
        return interpreter_class()[0]
    except BackendUnavailable:
        return None


class TensorDetails(TypedDict):
    """What the interpreter says of one tensor (the keys a watch reads)."""

    index: int
    shape: Sequence[int]
    dtype: type
    quantization: tuple[float, int]  # (scale, zero point); scale 0 when not quantized


class Interpreter(Protocol):
    """The calls a watch makes on a TFLite interpreter (ai-edge-litert's and tflite-runtime's alike)."""

    def set_tensor(self, tensor_index: int, value: NDArray[np.generic]) -> None: ...

    def invoke(self) -> None: ...

    def get_tensor(self, tensor_index: int) -> NDArray[np.generic]: ...


class Model:
    """A loaded, validated single-input single-output TFLite model."""

    def __init__(self, path: Path, backend: str, interpreter: Interpreter, inp: TensorSpec, out: TensorSpec,
                 details: tuple[TensorDetails, TensorDetails]) -> None:
        import numpy as np  # ml extra; present whenever an interpreter loaded

        self._np = np
        self.path, self.backend, self.input, self.output = path, backend, inp, out
        self._interp = interpreter
        self._in, self._out = details
        self._in_dtype = np.dtype(inp.dtype)
        self.invocations = 0
        self.total_invoke_s = 0.0

    @classmethod
    def load(cls, path: str | Path, inp: TensorSpec, out: TensorSpec, *, num_threads: int = 1) -> Model:
        """Load `path` and check its one input and one output against `inp` and `out`.

        Raises:
            ModelFileError: missing, unreadable, truncated or not a TFLite file.
            ModelMismatchError: tensor count, shape or dtype differs from the description.
            BackendUnavailable: no interpreter installed (the `ml` extra).
        """
        path = Path(path)
        _check_file(path)
        backend, interp_cls = interpreter_class()
        try:
            with _native_notes_to_debug_log():
                interp = interp_cls(model_path=str(path), num_threads=num_threads)
                interp.allocate_tensors()
        except (ValueError, RuntimeError) as exc:
            raise ModelFileError(
                f"model {path} could not be loaded by {backend}: {exc}; regenerate it "
                "(tools/make_bme280_model.py for the bundled one) or point the watch at a valid .tflite file",
                path=path,
            ) from None
        ins, outs = interp.get_input_details(), interp.get_output_details()
        for label, got in (("input", ins), ("output", outs)):
            if len(got) != 1:
                raise ModelMismatchError(
                    f"model {path} has {len(got)} {label} tensors; a watch model needs exactly one",
                    path=path, tensor=label, expected=1, actual=len(got),
                )
        for label, spec, det in (("input", inp, ins[0]), ("output", out, outs[0])):
            shape = tuple(int(d) for d in det["shape"])
            dtype = getattr(det["dtype"], "__name__", str(det["dtype"]))
            if shape != spec.shape:
                raise ModelMismatchError(
                    f"model {path} {label} shape is {list(shape)} but the watch describes {list(spec.shape)}; "
                    f"set model.{label}.shape = {list(shape)} (and a matching window) or use the right model",
                    path=path, tensor=label, expected=spec.shape, actual=shape,
                )
            if dtype != spec.dtype:
                raise ModelMismatchError(
                    f"model {path} {label} dtype is {dtype} but the watch describes {spec.dtype}; "
                    f"set model.{label}.dtype = {dtype!r} or use the right model",
                    path=path, tensor=label, expected=spec.dtype, actual=dtype,
                )
        log.debug("loaded %s with %s: input %s output %s", path, backend, inp, out)
        return cls(path, backend, interp, inp, out, (ins[0], outs[0]))

    def predict(self, values: Sequence[float] | Sequence[Sequence[float]]) -> list[float]:
        """Run one inference on `values` (any nesting holding input-size numbers); return the flat output.

        Quantized (int8/uint8) tensors are quantized and dequantized with the model's own scale and
        zero point, so callers always pass and receive real values.
        """
        np = self._np
        x = np.asarray(values, dtype=np.float64).reshape(-1)
        if x.size != self.input.size:
            raise InferenceError(
                f"model {self.path} takes {self.input.size} values {list(self.input.shape)}, got {x.size}"
            )
        scale, zero = self._in.get("quantization", (0.0, 0))
        if self._in_dtype.kind in "iu" and scale:
            info = np.iinfo(self._in_dtype)
            x = np.clip(np.round(x / scale + zero), info.min, info.max)
        t0 = time.perf_counter()
        self._interp.set_tensor(self._in["index"], x.astype(self._in_dtype).reshape(self.input.shape))
        self._interp.invoke()
        y = self._interp.get_tensor(self._out["index"]).reshape(-1)
        self.total_invoke_s += time.perf_counter() - t0
        self.invocations += 1
        oscale, ozero = self._out.get("quantization", (0.0, 0))
        if y.dtype.kind in "iu" and oscale:
            return [(float(v) - ozero) * oscale for v in y]
        return [float(v) for v in y]


def _check_file(path: Path) -> None:
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
            size = path.stat().st_size
    except FileNotFoundError:
        raise ModelFileError(
            f"model file {path} does not exist; fix the watch's model.path (relative paths resolve against "
            "the config file) or use 'builtin:bme280_anomaly'", path=path,
        ) from None
    except IsADirectoryError:
        raise ModelFileError(f"model path {path} is a directory; name the .tflite file", path=path) from None
    except OSError as exc:
        raise ModelFileError(f"model file {path} cannot be read: {exc.strerror}", path=path) from None
    if len(head) < 8 or head[4:8] != _TFLITE_IDENT:
        raise ModelFileError(
            f"model file {path} is not a TFLite flatbuffer ({size} bytes, no 'TFL3' identifier); "
            "it may be truncated or another format", path=path,
        )
