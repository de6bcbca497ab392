"""The live fault lab: a throwaway monitored stack, real faults, and the service's answers judged.

`make lab` (python -m tests.lab) prints the verdict table; tests/lab/test_lab.py runs it in CI and
asserts what must hold whatever the analyst answers (see that module).
"""
