"""Shared fixtures: headless pygame, and the backends to run on.

The gpu backend runs wherever an adapter opens (lavapipe is one). Without one the GPU
tests fail under CI=true, where an adapter is installed on purpose, and are skipped,
loudly, on a developer's machine.
"""

import os
import warnings

# pygame needs no window for masks and sprites; the dummy driver keeps it headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

import gpu_collide  # noqa: E402


def require_gpu() -> str:
    """The adapter's description, or a failure (CI) / loud skip (elsewhere)."""
    try:
        return gpu_collide.gpu_adapter()
    except RuntimeError as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and no GPU adapter opens: {error}")
        warnings.warn(f"NO GPU ADAPTER: the gpu backend is not tested here: {error}")
        pytest.skip(f"NO GPU ADAPTER: {error}")


@pytest.fixture(params=["cpu", "gpu"])
def backend(request) -> str:
    """Each test taking it runs once per backend."""
    if request.param == "gpu":
        adapter = require_gpu()
        print(f"gpu backend on {adapter}")
    return request.param
