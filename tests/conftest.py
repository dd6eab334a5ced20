"""Shared pytest configuration: a Hypothesis profile that tolerates first-call kernel compiles."""
from hypothesis import HealthCheck, settings

# A first call compiles Numba kernels (up to a second), so per-example deadlines would be noise.
settings.register_profile("numgrad", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("numgrad")
