"""Python protocols of tensors and Variables against live TensorFlow.

Each protocol (len, operator.index, int, format, iteration, copy, pickle, ==, np.asarray, ...) runs
on a float32 and an int32 EagerTensor or Variable of ranks 0, 1 and 2 and a few of other dtypes
(bool of ranks 0 and 1, int64 rank 0, float64 rank 2, complex64, string, uint8, an empty float16), once with `tf` bound to
TensorFlow and once to the backend under test; results and exception classes must agree, and so
must messages, but for TF's qualified class name and the few protocols marked below. A Variable is
also looked at inside a GradientTape: what the tape watches afterwards must agree too (reading the
value is an access).

Not compared: bytes() of a tensor of rank 1 or more, which TF's C type answers through the buffer
protocol (a Python class can offer it only from Python 3.12), and the class of iter(tensor) (TF's
`_TensorIterator`, a generator here: both yield the same rows).
"""

from __future__ import annotations

import copy
import math
import operator
import pickle

import numpy as np
import pytest

from reftape_properties.judge.compare import compare_values, harness_faults
from reftape_properties.conformance.snippets import HarnessFault, described_exception, harness_described, not_run

from .marks import with_needs

VALUES = {("float32", 0): 2.5, ("float32", 1): [1.5, -2.5], ("float32", 2): [[1.5, 2.5], [3.5, 4.5]],
          ("int32", 0): 3, ("int32", 1): [1, -2], ("int32", 2): [[1, 2], [3, 4]],
          # other kinds of values: kernels registered for some dtypes only, conversions, empty tensors
          ("bool", 1): [True, False], ("complex64", 0): 1 + 2j, ("string", 1): ["a", "b"], ("uint8", 2): [[7, 8]],
          ("float16", 1): [], ("int64", 0): 3, ("float64", 2): [[1.5, -2.5]], ("bool", 0): True}

# The subjects' dtypes, and for Variables what `looks` reads of the tape.
_DTYPES = tuple(sorted({f"tf.{dtype}" for dtype, _ in VALUES}))
KINDS = [with_needs("EagerTensor", _DTYPES, id="EagerTensor"),
         with_needs("Variable", _DTYPES + ("Variable", "GradientTape.watched_variables"), id="Variable")]


class Reflecting:
    """An operand that knows tensors: its reflected operators answer where a tensor's fail."""

    def __radd__(self, other):
        return "reflected +"

    def __rmatmul__(self, other):
        return NotImplemented

    def __repr__(self) -> str:  # error messages show it
        return "Reflecting()"


PROTOCOLS = {
    "len": lambda tf, x: len(x),
    "operator.index": lambda tf, x: operator.index(x),
    "int": lambda tf, x: int(x),
    "float": lambda tf, x: float(x),
    "complex": lambda tf, x: complex(x),
    "bool": lambda tf, x: bool(x),
    "format ''": lambda tf, x: format(x, ""),
    "format '.2f'": lambda tf, x: format(x, ".2f"),
    "format 'd'": lambda tf, x: format(x, "d"),
    "format 's'": lambda tf, x: format(x, "s"),
    "f-string": lambda tf, x: f"{x}",
    "str": lambda tf, x: str(x),
    "repr": lambda tf, x: repr(x),
    "hash": lambda tf, x: hash(x),
    "list(x)": lambda tf, x: list(x),
    "unpacking": lambda tf, x: tuple(first for first, _ in [x]),
    "in": lambda tf, x: 1 in x,
    "reversed": lambda tf, x: list(reversed(x)),
    "abs": lambda tf, x: abs(x),
    "round": lambda tf, x: round(x),
    "round to 1 digit": lambda tf, x: round(x, 1),
    "math.floor": lambda tf, x: math.floor(x),
    "math.ceil": lambda tf, x: math.ceil(x),
    "math.trunc": lambda tf, x: math.trunc(x),
    "divmod": lambda tf, x: divmod(x, 2),
    "reflected divmod": lambda tf, x: divmod(7, x),
    "pow with modulus": lambda tf, x: pow(x, 2, 3),
    "range": lambda tf, x: list(range(x)),
    "list index": lambda tf, x: [10, 11, 12, 13][x],
    "copy.copy": lambda tf, x: (lambda c: (c is x, c))(copy.copy(x)),
    "copy.deepcopy": lambda tf, x: (lambda c: (c is x, c))(copy.deepcopy(x)),
    "pickle": lambda tf, x: pickle.loads(pickle.dumps(x)),
    "== equal tensor": lambda tf, x: x == tf.constant(x.numpy()),
    "!= equal tensor": lambda tf, x: x != tf.constant(x.numpy()),
    "== number": lambda tf, x: x == 1,
    "!= number": lambda tf, x: x != 1,
    "== True": lambda tf, x: x == True,  # noqa: E712 - the protocol under test
    "== 2.5": lambda tf, x: x == 2.5,
    "== None": lambda tf, x: x == None,  # noqa: E711
    "!= None": lambda tf, x: x != None,  # noqa: E711
    "None ==": lambda tf, x: None == x,  # noqa: E711
    "== itself": lambda tf, x: x == x,
    "== string": lambda tf, x: x == "a",
    "!= string": lambda tf, x: x != "a",
    "== list": lambda tf, x: x == [1, 2],
    "== tensor of another shape": lambda tf, x: x == tf.constant([1, 2, 3], x.dtype),
    "!= tensor of another shape": lambda tf, x: x != tf.constant([1, 2, 3], x.dtype),
    "< number": lambda tf, x: x < 2,
    "< None": lambda tf, x: x < None,
    "x + 2.5": lambda tf, x: x + 2.5,
    "2.5 + x": lambda tf, x: 2.5 + x,
    "x - 2.5": lambda tf, x: x - 2.5,
    "2.5 - x": lambda tf, x: 2.5 - x,
    "x * 2.5": lambda tf, x: x * 2.5,
    "2.5 * x": lambda tf, x: 2.5 * x,
    "x * True": lambda tf, x: x * True,
    "x / 2": lambda tf, x: x / 2,
    "x / 2.5": lambda tf, x: x / 2.5,
    "2.5 / x": lambda tf, x: 2.5 / x,
    "x / float64 tensor": lambda tf, x: x / tf.constant(2.0, tf.float64),
    "x // 2.5": lambda tf, x: x // 2.5,
    "x % 2.5": lambda tf, x: x % 2.5,
    "x ** 2.5": lambda tf, x: x ** 2.5,
    "2.5 ** x": lambda tf, x: 2.5 ** x,
    "x @ x": lambda tf, x: x @ x,
    "np.float64 * x": lambda tf, x: np.float64(2.5) * x,
    "x + np.array": lambda tf, x: x + np.array(2.5),
    "-x": lambda tf, x: -x,
    "+x": lambda tf, x: +x,
    "~x": lambda tf, x: ~x,
    "x & 1": lambda tf, x: x & 1,
    "1 & x": lambda tf, x: 1 & x,
    "x | 1": lambda tf, x: x | 1,
    "x ^ 1": lambda tf, x: x ^ 1,
    "1 ^ x": lambda tf, x: 1 ^ x,
    "x & True": lambda tf, x: x & True,
    "x > 2.5": lambda tf, x: x > 2.5,
    "x + an operand that knows tensors": lambda tf, x: x + Reflecting(),
    "x @ an operand that declines": lambda tf, x: x @ Reflecting(),
    "np.asarray": lambda tf, x: (lambda a: (a, a.flags.writeable))(np.asarray(x)),
    "np.array": lambda tf, x: (lambda a: (a, a.flags.writeable))(np.array(x)),
    "np.asarray as float64": lambda tf, x: np.asarray(x, np.float64),
}

# Messages that cannot or need not be TF's, word for word
CLASS_ONLY = {
    "pow with modulus": "names the function TF's operator wrapper happens to be",
    "round": "TF's text is a multi-line hint about its NumPy API",
    "round to 1 digit": "TF's text is a multi-line hint about its NumPy API",
}


def _subject(tf, kind: str, dtype: str, rank: int):
    value, dtype = VALUES[dtype, rank], getattr(tf, dtype)
    return tf.Variable(value, dtype=dtype, name="v") if kind == "Variable" else tf.constant(value, dtype)


def _described(tf, outcome: tuple[bool, object]) -> dict:
    returned, result = outcome
    try:
        found = harness_described(result, tf) if returned else described_exception(result, tf)
    except HarnessFault as fault:
        return not_run(str(fault))
    if returned or found["kind"] != "exception":
        return found
    # TF's EagerTensor is a C type: Python's messages name it with its module
    found["message"] = found["message"].replace("tensorflow.python.framework.ops.", "")
    return found


def _apply(tf, protocol: str, x, protocols: dict = PROTOCOLS) -> tuple[bool, object]:
    try:
        return True, protocols[protocol](tf, x)
    except Exception as error:  # noqa: BLE001 - an exception is an outcome to compare
        return False, error


def looks(tf, kind: str, protocol: str, protocols: dict = PROTOCOLS) -> dict[str, dict]:
    """What the protocol gives on each subject of this kind; for a Variable, also what it gives
    inside a GradientTape and what the tape watches afterwards (described after the tape, since
    describing a Variable reads it)."""
    found = {}
    for dtype, rank in VALUES:
        subject = f"{kind} {dtype} rank {rank}"
        found[subject] = _described(tf, _apply(tf, protocol, _subject(tf, kind, dtype, rank), protocols))
        if kind == "Variable":
            x = _subject(tf, kind, dtype, rank)
            with tf.GradientTape() as tape:
                inside = _apply(tf, protocol, x, protocols)
            found[subject + " in a tape"] = _described(tf, inside)
            found[subject + " watched"] = [v.name for v in tape.watched_variables()]
    return found


# TF's Variable.__array__ takes no `copy` argument, which NumPy 2 warns about; int() and float() of a
# complex number warn on both sides, as NumPy does
@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_protocol_matches_tensorflow(protocol, kind, tf, candidate):
    differences = protocol_differences(tf, candidate, kind, protocol)
    assert not differences, "\n".join(differences)


def protocol_differences(tf, candidate, kind: str, protocol: str, protocols: dict = PROTOCOLS) -> list[str]:
    """What differs between the protocol's looks on TF and on the candidate (harness faults included)."""
    expected, actual = looks(tf, kind, protocol, protocols), looks(candidate, kind, protocol, protocols)
    differences = []
    for subject, described in expected.items():
        if subject.endswith("watched"):
            if described != actual[subject]:
                differences.append(f"{subject}: TF {described}, candidate {actual[subject]}")
            continue
        found = compare_values(described, actual[subject], messages=protocol not in CLASS_ONLY)
        differences += [f"{subject}: {d.summary()}" for d in found]
    return differences


@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning")
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("kind", ["EagerTensor", "Variable"])
def test_the_reference_runs_every_protocol(kind, tf):
    faults = {(protocol, subject): harness_faults(described, None)
              for protocol in PROTOCOLS for subject, described in looks(tf, kind, protocol).items()}
    assert not {key: found for key, found in faults.items() if found}


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


# Planted protocols the harness must refuse: each is a harness error, never an agreement.
BROKEN = {
    "a name the protocol's code lacks": lambda tf, x: len(x) + undefined_name,  # noqa: F821 - the planted fault
    "a tf name the reference lacks": lambda tf, x: tf.no_such_function(x),
    "a result the harness cannot describe": lambda tf, x: Unprintable(),
}


@pytest.mark.parametrize("protocol", BROKEN)
def test_a_broken_protocol_is_a_harness_error(protocol, tf, rt):
    differences = protocol_differences(tf, rt, "EagerTensor", protocol, BROKEN)
    assert differences and all("harness error" in d for d in differences), differences
