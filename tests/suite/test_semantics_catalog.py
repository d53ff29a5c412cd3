"""Every in-scope entry of the TF semantics catalog: the same snippet on TensorFlow and reftape.

The snippets are the probe's own entry functions (properties/conformance/corpus/tf_semantics_probe.py), run with
`tf` bound to each namespace; what they show must agree. Live TensorFlow is the judge, not the
outputs written in the catalog. An agreement counts only where both sides ran the snippet: one that
does not compile, or whose reference side raises outside the code under test, is a harness error.
"""

import pytest

from reftape_properties.judge.compare import compare_values, harness_faults
from reftape_properties.conformance.snippets import OUT_OF_SCOPE, CatalogEntry, catalog_entries, run_catalog_entry

from reftape_properties.conformance.support import source_needs

from .marks import with_needs
from .planted import planted_backend

ENTRIES = catalog_entries()


def test_catalog_has_all_entries():
    assert len(ENTRIES) == 95
    assert set(OUT_OF_SCOPE) <= {e.number for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.number:02d}")
def test_every_entry_compiles(entry):
    compile(entry.source, f"<catalog entry {entry.number}>", "exec")


def test_the_reference_runs_every_entry(tf):
    faults = {e.number: harness_faults(run_catalog_entry(e, tf), None) for e in ENTRIES if e.number not in OUT_OF_SCOPE}
    assert not {n: f for n, f in faults.items() if f}


@pytest.mark.parametrize("entry", [with_needs(e, source_needs([e.source]), id=f"{e.number:02d}")
                                   for e in ENTRIES if e.number not in OUT_OF_SCOPE])
def test_entry_matches_tensorflow(entry, tf, candidate):
    expected = run_catalog_entry(entry, tf)
    actual = run_catalog_entry(entry, candidate)
    found = compare_values(expected, actual)
    assert not found, f"entry {entry.number} ({entry.title}):\n" + "\n".join(d.summary() for d in found)


# Planted entries the harness must refuse: each is a harness error, never an agreement.
BROKEN = {
    "shows nothing": "x = tf.constant(1.0)",
    "does not compile": "x = tf.constant(1.0)\n  show('x', x)",
    "one-line statements mixed with an indented block, cut as the old extraction cut them":
        "x = tf.constant(1.0)\n    with tf.GradientTape() as t:\n        t.watch(x)\nshow('x', x)",
    "a name the snippet never defines": "show('y', undefined_name * 2)",
    "a name undefined inside catch()": "show('y', catch(lambda: undefined_name))",
    "a tf name the reference lacks": "show('y', tf.no_such_function(1.0))",
    "the harness cannot describe what is shown": (
        "class Unprintable:\n    def __repr__(self):\n        raise RuntimeError('no repr')\n"
        "show('u', Unprintable())"),
    "the harness cannot describe the exception raised": (
        "class Unprintable:\n    def __repr__(self):\n        raise RuntimeError('no repr')\n"
        "raise ValueError(Unprintable())"),
}


@pytest.mark.parametrize("source", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_entry_is_a_harness_error(source, tf, rt):
    entry = CatalogEntry(0, "planted", source)
    found = compare_values(run_catalog_entry(entry, tf), run_catalog_entry(entry, rt))
    assert [d.kind for d in found] == ["harness"], [d.summary() for d in found]


def test_a_name_the_candidate_lacks_is_not_run_there(tf):
    incomplete_backend = planted_backend("incomplete_backend")

    entry = CatalogEntry(0, "planted", "show('y', tf.sin(tf.constant(1.0)))")
    assert run_catalog_entry(entry, incomplete_backend) == {"kind": "missing", "names": ["tf.sin"]}
    assert [d.kind for d in compare_values(run_catalog_entry(entry, tf), run_catalog_entry(entry, incomplete_backend))
            ] == ["missing"]


def test_a_candidate_raising_name_error_where_the_reference_ran_differs(tf, rt):
    """A NameError is the reference's harness fault only: the candidate's is its outcome, and differs."""
    entry = CatalogEntry(0, "planted", "show('y', catch(lambda: tf.constant(1.0) if tf.__name__ == 'tensorflow' "
                                       "else undefined_name))")
    found = compare_values(run_catalog_entry(entry, tf), run_catalog_entry(entry, rt))
    assert [d.kind for d in found] == ["exception"]


@pytest.mark.runs_long
def test_the_planted_faults_fail_the_rows_about_them(tf):
    """Entries 24 (watch_accessed_variables=False) and 88 (means over an axis) catch tapes that get
    exactly those wrong (the backends in tests/backends), and only those rows."""
    ignores_watch_accessed_backend = planted_backend("ignores_watch_accessed_backend")
    wrong_reduce_mean_backend = planted_backend("wrong_reduce_mean_backend")

    in_scope = [e for e in ENTRIES if e.number not in OUT_OF_SCOPE]
    reference = {e.number: run_catalog_entry(e, tf) for e in in_scope}   # TensorFlow's once, for both backends
    for backend, row in ((ignores_watch_accessed_backend, 24), (wrong_reduce_mean_backend, 88)):
        differing = [e.number for e in in_scope if compare_values(reference[e.number], run_catalog_entry(e, backend))]
        assert differing == [row], backend.__name__
