"""What the reftape repository's own tests add to the plugin (`reports/commands/pytest_plugin.py`, which
provides the backend option, the Hypothesis profiles, the `tf`, `candidate` and `rt` fixtures, the report
directory and the finding records): the test backends of `backends/` and the system programs CI installs.

The folders: `suite/` (the backend-agnostic suite, `--reftape-backend`), `reftape_only/` (reftape's own
tests), `harness/` (the harness and its commands), `backends/` (the planted backends)."""

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "backends"))  # test backends (wrong_vjp_backend, ...)


@pytest.fixture(scope="session")
def system_program():
    """Finds a program that `.ci/install-system-packages` installs (`system_program("redis-server")`):
    a test that needs a missing one fails under CI=true (CI must never skip it) and is skipped
    otherwise."""
    def find(name: str) -> str:
        path = shutil.which(name)
        if path is None:
            message = f"{name} is not installed: run .ci/install-system-packages"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)
        return path
    return find
