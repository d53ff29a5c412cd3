"""The registry of TensorFlow's gradient anomalies (TF_ANOMALIES.md): every entry's repro runs on plain
TensorFlow and still shows the anomaly (exit 1, both values printed), reftape mirrors it where the entry
says so, and entries and repro files match one for one. A repro that stops showing its anomaly fails here:
the entry is to be retired."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent.parent
REGISTRY = ROOT / "TF_ANOMALIES.md"
ROW = re.compile(r"^\| (\d+) \|.*\| (yes|no) \| \[(anomalies/[\w.]+\.py)\]", re.MULTILINE)


def entries() -> list[tuple[str, bool, Path]]:
    return [(number, mirrors == "yes", ROOT / path) for number, mirrors, path in ROW.findall(REGISTRY.read_text())]


def shown(repro: Path, module: str) -> tuple[bool, str]:
    """Whether `repro` shows its anomaly on `module` (exit 1), and what it printed; AssertionError when it
    fails in any other way (a repro that cannot run proves nothing)."""
    ran = subprocess.run([sys.executable, str(repro), module], capture_output=True, text=True, timeout=300)
    printed = f"{module}: " in ran.stdout and "exact: " in ran.stdout  # a crash exits 1 too, printing neither
    assert ran.returncode in (0, 1) and printed, f"{repro.name} on {module} failed: {ran.stderr[-2000:]}"
    return ran.returncode == 1, ran.stdout


def test_every_entry_has_its_repro_and_every_repro_its_entry():
    listed = {path.name for _, _, path in entries()}
    assert entries() and listed == {path.name for path in (ROOT / "anomalies").glob("*.py")}


@pytest.mark.parametrize("number, mirrors, repro", entries(), ids=[f"entry-{n}" for n, _, _ in entries()])
def test_each_anomaly_still_shows_on_tensorflow_and_as_registered_on_reftape(number, mirrors, repro):
    present, printed = shown(repro, "tensorflow")
    assert present, f"entry {number} no longer reproduces on TensorFlow: retire it\n{printed}"
    assert shown(repro, "reftape")[0] == mirrors, f"entry {number}: reftape mirrors it is registered as {mirrors}"


def test_a_repro_that_no_longer_shows_its_anomaly_is_reported(tmp_path):
    """The check above can fail: a repro whose module agrees with the exact value exits 0."""
    fixed = tmp_path / "fixed.py"
    fixed.write_text("import sys\nprint(f'{sys.argv[1]}: [1.0]')\nprint('exact: [1.0]')\nsys.exit(0)\n")
    assert shown(fixed, "tensorflow")[0] is False
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no such module')\n")
    with pytest.raises(AssertionError, match="failed"):
        shown(broken, "tensorflow")
