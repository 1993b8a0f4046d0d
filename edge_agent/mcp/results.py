"""The tools' result models live with the actions that produce them (:mod:`edge_agent.services.results`)."""

from edge_agent.services.results import *  # noqa: F403
from edge_agent.services.results import __all__  # noqa: F401
