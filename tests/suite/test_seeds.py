"""The seed notes (properties/conformance/corpus/seeds, copied from ../shared/seeds): every code snippet runs under
TensorFlow and under reftape and shows the same thing (printed text, displayed values, plotted data,
exceptions). The comments in the notes are not consulted: TensorFlow is the judge. An agreement counts
only where both sides ran the snippets: one that does not compile, or whose reference side raises
outside the code under test, is a harness error."""

from pathlib import Path

import pytest

from reftape_properties.conformance import snippets
from reftape_properties.judge.compare import compare_values, harness_faults
from reftape_properties.conformance.snippets import CORPUS, ILLUSTRATIONS, run_seed, seed_names, seed_snippets

from reftape_properties.conformance.support import source_needs

from . import reference_outcomes
from .marks import with_needs
from .planted import planted_backend

SEEDS = seed_names()
WITH_CODE = [name for name in SEEDS if seed_snippets(name)]
SHARED = Path(__file__).resolve().parents[3] / "shared"


def test_every_seed_has_snippets():
    assert len(SEEDS) == 5
    for name in SEEDS:
        text = (CORPUS / "seeds" / name).read_text()
        expected = text.count("```python") + text.count("\nIn [")
        assert len(seed_snippets(name)) == expected, name
    assert set(SEEDS) - set(WITH_CODE) == {"000_aa2fdeec8954147d.txt"}  # prose about `with`, no code


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared checkout beside the repository")
def test_vendored_corpus_matches_shared():
    for name in SEEDS:
        assert (CORPUS / "seeds" / name).read_bytes() == (SHARED / "seeds" / name).read_bytes(), name
    assert sorted(p.name for p in (SHARED / "seeds").iterdir()) == SEEDS
    probe = "tf_semantics_probe.py"
    assert (CORPUS / probe).read_bytes() == (SHARED / probe).read_bytes()


@pytest.mark.parametrize("name", WITH_CODE)
def test_the_reference_runs_every_seed(name, tf):
    assert not harness_faults(reference_outcomes.seed_outcome(name, tf), None)


def runnable_illustrations(tf, illustrations: dict[str, dict[int, str]]) -> list[tuple[str, int]]:
    """The snippets listed as illustrations that run: an illustration is one no library could run
    (alone, it does not compile or needs a name the note never defines)."""
    runnable = []
    for name, listed in illustrations.items():
        for i in listed:
            try:
                exec(seed_snippets(name)[i], {"tf": tf})
            except (SyntaxError, NameError):
                continue
            runnable.append((name, i))
    return runnable


def test_illustrations_cannot_run_on_tensorflow(tf):
    assert runnable_illustrations(tf, ILLUSTRATIONS) == []
    planted = {"003_ed218fa13605fb4b.txt": {2: "runs: it defines t1 and t2 and prints their gradients"}}
    assert runnable_illustrations(tf, planted) == [("003_ed218fa13605fb4b.txt", 2)]


@pytest.mark.parametrize("name", [with_needs(name, source_needs(seed_snippets(name)), id=name) for name in WITH_CODE])
def test_seed_matches_tensorflow(name, tf, candidate):
    found = compare_values(reference_outcomes.seed_outcome(name, tf), run_seed(name, candidate))
    assert not found, "\n".join(d.summary() for d in found)


# Planted notes the harness must refuse: each is a harness error, never an agreement.
BROKEN = {
    "does not compile": "```python\nx = tf.constant(1.0)\n  print(x)\n```\n",
    "an indented block cut from its header": "```python\nx = tf.constant(1.0)\n    print(x)\n```\n",
    "a name the note never defines": "```python\nprint(undefined_name * 2)\n```\n",
    "a tf name the reference lacks": "```python\nprint(tf.no_such_function(1.0))\n```\n",
    "a displayed value the harness cannot describe": (
        "```python\nclass Unprintable:\n    def __repr__(self):\n        raise RuntimeError('no repr')\n"
        "raise ValueError(Unprintable())\n```\n"),
}


@pytest.fixture
def planted_seed(tmp_path, monkeypatch):
    """Writes a note into a corpus of its own; returns a function that plants one and names it."""
    (tmp_path / "seeds").mkdir()
    monkeypatch.setattr(snippets, "CORPUS", tmp_path)

    def plant(text: str) -> str:
        (tmp_path / "seeds" / "planted.txt").write_text(text)
        return "planted.txt"
    return plant


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_note_is_a_harness_error(text, planted_seed, tf, rt):
    name = planted_seed(text)
    found = compare_values(run_seed(name, tf), run_seed(name, rt))
    assert [d.kind for d in found] == ["harness"], [d.summary() for d in found]


def test_a_note_the_candidate_lacks_names_for_is_not_run_there(planted_seed, tf):
    incomplete_backend = planted_backend("incomplete_backend")

    name = planted_seed("```python\nprint(tf.random.normal([2]))\n```\n")
    assert run_seed(name, incomplete_backend) == {"kind": "missing", "names": ["tf.random"]}
    assert [d.kind for d in compare_values(run_seed(name, tf), run_seed(name, incomplete_backend))] == ["missing"]


def test_printed_text_is_compared(planted_seed, tf, rt):
    name = planted_seed("```python\nprint(tf.__name__)\n```\n")
    assert [d.kind for d in compare_values(run_seed(name, tf), run_seed(name, rt))] == ["value"]
