import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the harness packages (oracle, properties) and tests/snippets.py
sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@pytest.fixture(scope="session")
def tf():
    """Real TensorFlow, the judge."""
    from oracle import load_tensorflow

    return load_tensorflow()


@pytest.fixture(scope="session")
def rt():
    """reftape, the candidate."""
    import reftape

    return reftape
