"""The planted backends of reftape's checkout (tests/backends), which some tests of this suite use to show
that a check fires. They do not ship with the installed suite: there, those tests skip."""

import importlib
from types import ModuleType

import pytest


def planted_backend(name: str) -> ModuleType:
    """The planted backend `name`, or a skip where the suite runs outside reftape's checkout."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:  # the backend itself is there and broken
            raise
        pytest.skip(f"the planted backend {name} lives in reftape's checkout (tests/backends), "
                    "not in the installed suite")
