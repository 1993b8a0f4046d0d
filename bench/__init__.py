"""Benchmarks: each module `bench/<area>.py` has `main() -> None` and prints its figures."""
