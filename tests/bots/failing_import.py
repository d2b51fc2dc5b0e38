"""A policy module that fails while it is imported (tests/test_python_policies.py)."""
raise RuntimeError("this module cannot be imported")
