"""On-device sensor watches: sample, window, optional LiteRT model, rule, rate-limited captures.

``WatchRunner(settings, adapters, store).run(stop_event)`` is what the daemon runs; ``edge-agent
watch list|run-once NAME`` drives it from the shell. Importing this package needs only the base
install; a model watch needs the ``ml`` extra (ai-edge-litert or tflite-runtime, and numpy).
"""

from edge_agent.watch.inference import Model, ModelFileError, ModelMismatchError, TensorSpec, available_backend
from edge_agent.watch.rules import RateLimiter, Trigger, make_rule
from edge_agent.watch.runner import Watch, WatchRunner, builtin_model_path, load_watch_model
from edge_agent.watch.window import Window, WindowSummary

__all__ = [
    "Model", "ModelFileError", "ModelMismatchError", "RateLimiter", "TensorSpec", "Trigger", "Watch",
    "WatchRunner", "Window", "WindowSummary", "available_backend", "builtin_model_path", "load_watch_model",
    "make_rule",
]
