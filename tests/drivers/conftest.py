"""Driver tests run against the simulated board (the `sim` fixture in tests/conftest.py)."""
