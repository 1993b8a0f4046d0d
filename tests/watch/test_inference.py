"""The inference interface: LiteRT loads the bundled model, checks it against the description, scores windows."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from edge_agent.errors import BackendUnavailable, InferenceError
from edge_agent.watch.inference import Model, ModelFileError, ModelMismatchError, TensorSpec, interpreter_class

IN, OUT = TensorSpec((1, 16, 3)), TensorSpec((1, 1))


def _room(seed: int = 1) -> list[list[float]]:
    """16 samples like the simulator's default BME280 (22.5 °C, 45 %RH, 1009.25 hPa, small noise)."""
    rng = random.Random(seed)
    return [[22.5 + rng.gauss(0, 0.02), 45.0 + rng.gauss(0, 0.1), 1009.25 + rng.gauss(0, 0.05)] for _ in range(16)]


def test_bundled_model_is_a_few_kilobytes_and_loads_with_the_first_available_backend(model_path: Path) -> None:
    model = Model.load(model_path, IN, OUT)
    assert model_path.stat().st_size < 16 * 1024
    assert model.backend == interpreter_class()[0] == "ai_edge_litert"
    assert model.input == IN and model.output == OUT


def test_the_interpreters_native_info_note_goes_to_the_debug_log_not_stderr(model_path: Path) -> None:
    # The C++ runtime writes its note once per process, to fd 2: each case runs in a fresh interpreter.
    def run(body: str) -> subprocess.CompletedProcess[str]:
        script = textwrap.dedent(f"""
            import logging, sys
            logging.basicConfig(stream=sys.stdout, level=logging.DEBUG, format="%(levelname)s %(message)s")
            from edge_agent.watch.inference import Model, TensorSpec, interpreter_class
            path = {str(model_path)!r}
        """) + textwrap.dedent(body)
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)

    raw = run("interpreter_class()[1](model_path=path).allocate_tensors()")  # the runtime as it is
    assert raw.returncode == 0 and "INFO: Created TensorFlow Lite" in raw.stderr
    loaded = run("Model.load(path, TensorSpec((1, 16, 3)), TensorSpec((1, 1))); print('loaded')")
    assert loaded.returncode == 0 and "loaded" in loaded.stdout, loaded.stderr
    assert "INFO:" not in loaded.stderr, loaded.stderr
    assert "DEBUG TFLite: INFO: Created TensorFlow Lite" in loaded.stdout


def test_model_scores_a_quiet_room_low_and_a_temperature_step_high(model_path: Path) -> None:
    model = Model.load(model_path, IN, OUT)
    quiet = _room()
    stepped = [[t + (9.0 if i >= 10 else 0.0), h, p] for i, (t, h, p) in enumerate(quiet)]
    spike = [row[:] for row in quiet]
    spike[5][2] += 15.0  # one pressure sample 15 hPa off
    assert model.predict(quiet)[0] < 0.1
    assert model.predict(stepped)[0] > 0.9
    assert model.predict(spike)[0] > 0.9
    assert model.invocations == 3


def test_predict_rejects_a_window_of_the_wrong_size(model_path: Path) -> None:
    model = Model.load(model_path, IN, OUT)
    with pytest.raises(InferenceError):
        model.predict(_room()[:8])


def test_missing_model_file_is_a_model_file_error_naming_the_path(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError) as exc:
        Model.load(tmp_path / "absent.tflite", IN, OUT)
    assert exc.value.path == tmp_path / "absent.tflite"
    assert "absent.tflite" in str(exc.value)


@pytest.mark.parametrize("keep", [0, 7, 400, 3000])
def test_truncated_model_file_is_a_model_file_error(model_path: Path, tmp_path: Path, keep: int) -> None:
    bad = tmp_path / "cut.tflite"
    bad.write_bytes(model_path.read_bytes()[:keep])
    with pytest.raises(ModelFileError) as exc:
        Model.load(bad, IN, OUT)
    assert exc.value.path == bad


def test_a_file_that_is_not_a_flatbuffer_is_a_model_file_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.tflite"
    bad.write_text("this is a README, not a model\n")
    with pytest.raises(ModelFileError):
        Model.load(bad, IN, OUT)


def test_input_shape_other_than_described_is_a_mismatch_with_both_shapes(model_path: Path) -> None:
    with pytest.raises(ModelMismatchError) as exc:
        Model.load(model_path, TensorSpec((1, 32, 3)), OUT)
    assert (exc.value.tensor, exc.value.expected, exc.value.actual) == ("input", (1, 32, 3), (1, 16, 3))


def test_output_dtype_other_than_described_is_a_mismatch(model_path: Path) -> None:
    with pytest.raises(ModelMismatchError) as exc:
        Model.load(model_path, IN, TensorSpec((1, 1), "int8"))
    assert (exc.value.tensor, exc.value.expected, exc.value.actual) == ("output", "int8", "float32")


def test_tensor_spec_rejects_unsupported_dtypes_and_empty_shapes() -> None:
    with pytest.raises(InferenceError):
        TensorSpec((1, 16, 3), "float64")
    with pytest.raises(InferenceError):
        TensorSpec(())


def test_without_either_interpreter_a_model_load_says_which_extra_to_install(
    model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A None entry in sys.modules makes the import fail as if the package were not installed.
    for mod in ("ai_edge_litert", "ai_edge_litert.interpreter", "tflite_runtime", "tflite_runtime.interpreter"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(BackendUnavailable) as exc:
        Model.load(model_path, IN, OUT)
    assert "edge-agent[ml]" in str(exc.value)


def test_rule_only_watch_runs_on_the_base_install_without_numpy_or_interpreters() -> None:
    """A fresh interpreter where numpy, ai_edge_litert and tflite_runtime cannot be imported."""
    code = textwrap.dedent("""
        import sys
        for mod in ("numpy", "ai_edge_litert", "tflite_runtime"):
            sys.modules[mod] = None
        from edge_agent.bus import open_adapter
        from edge_agent.config import parse_settings
        from edge_agent.watch import WatchRunner, available_backend
        assert available_backend() is None
        settings = parse_settings({"watch": [{"name": "t", "interval_s": 0.001, "window": 4,
                                              "rule": {"kind": "summary", "every_s": 60}}]})
        sim = open_adapter("sim://nucleo-f401re", name="nucleo-f401re")
        out = WatchRunner(settings, {"nucleo-f401re": sim}, None).run_once("t", interval_s=0)
        assert "numpy" not in {m for m, v in sys.modules.items() if v is not None}
        print(out["capture"].type, out["capture"].metadata["window"])
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("fact ")


def test_tflite_runtime_is_used_when_litert_is_absent(model_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback module is stood in by LiteRT's own Interpreter class (tflite-runtime 2.14 needs numpy < 2)."""
    import types

    from ai_edge_litert.interpreter import Interpreter

    fallback = types.ModuleType("tflite_runtime.interpreter")
    fallback.Interpreter = Interpreter  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)
    monkeypatch.setitem(sys.modules, "ai_edge_litert.interpreter", None)
    monkeypatch.setitem(sys.modules, "tflite_runtime", types.ModuleType("tflite_runtime"))
    monkeypatch.setitem(sys.modules, "tflite_runtime.interpreter", fallback)
    model = Model.load(model_path, IN, OUT)
    assert model.backend == "tflite_runtime"
    assert model.predict(_room())[0] < 0.1
