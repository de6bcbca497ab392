"""Benchmarks of the service (issue 8): `python -m tests.bench [--quick] [--only NAME]`.

They print figures against targets and write `bench-results/latest.json`; they are not timed
assertions of the test suite (only `test_smoke.py` runs there, to keep this code from rotting).
"""
