"""The seed notes (properties/corpus/seeds, copied from ../shared/seeds): every code snippet runs under
TensorFlow and under reftape and shows the same thing (printed text, displayed values, plotted data,
exceptions). The comments in the notes are not consulted: TensorFlow is the judge."""

from pathlib import Path

import pytest

from reftape_properties.compare import compare_values
from reftape_properties.snippets import CORPUS, run_seed, seed_names, seed_snippets

SEEDS = seed_names()
SHARED = Path(__file__).resolve().parents[2] / "shared"


def test_every_seed_has_snippets():
    assert len(SEEDS) == 5
    for name in SEEDS:
        text = (CORPUS / "seeds" / name).read_text()
        expected = text.count("```python") + text.count("\nIn [")
        assert len(seed_snippets(name)) == expected, name


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared checkout beside the repository")
def test_vendored_corpus_matches_shared():
    for name in SEEDS:
        assert (CORPUS / "seeds" / name).read_bytes() == (SHARED / "seeds" / name).read_bytes(), name
    assert sorted(p.name for p in (SHARED / "seeds").iterdir()) == SEEDS
    probe = "tf_semantics_probe.py"
    assert (CORPUS / probe).read_bytes() == (SHARED / probe).read_bytes()


@pytest.mark.parametrize("name", SEEDS)
def test_seed_matches_tensorflow(name, tf, candidate):
    expected = run_seed(name, tf)
    actual = run_seed(name, candidate)
    found = []
    for i, ((e_text, e_shown), (a_text, a_shown)) in enumerate(zip(expected, actual)):
        if e_text != a_text:
            found.append(f"snippet {i} printed:\n{a_text}\n--- TensorFlow printed:\n{e_text}")
        found += [d.summary() for d in compare_values(e_shown, a_shown, f"snippet {i}")]
    assert not found, "\n".join(found)
