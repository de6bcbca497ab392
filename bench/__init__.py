"""Benchmarks of the service: `python -m bench [--quick] [--only NAME]` (`make bench`).

They print figures against targets and write `bench-results/latest.json`; they are not timed
assertions of the test suite (only `tests/bench_checks/` runs there, to keep this code from rotting).
"""
