"""Planted bugs: a catalogue of realistic faults in reftape, kept as data, that the detectors must find.

Each mutant replaces one short, exact snippet of one file of `reftape/` (the snippet occurs exactly
once there; `tests/harness/test_sensitivity.py` checks that every mutant still applies to the current
reftape and still compiles, so the catalogue follows refactorings of the tape). The command in
`properties/sensitivity/measure.py` applies them one at a time to a copy of reftape and runs the detectors.

Families and classes (from issue 7):
- `vjp`: sign-or-scale, wrong-tensor, missing-conjugate, broadcast-reduction, tie-rule,
  special-point, dtype-leak, second-order, accumulation, large-magnitude (a composite op computed
  in more precision than TF's kernel, which overflows in the input's dtype), attribute (right for
  an op's usual attribute values, wrong for one: a negative axis, several axes, transpose or adjoint
  flags), shape-edge (wrong only for empty tensors), forward-value (the forward value wrong at a
  special point: NaN, a tie, a half, a negative quotient);
- `tape`: tape-option, nesting, stop-recording, reset, output-gradients, accumulation,
  source-structure, jacobian, custom-gradient, stop-gradient, integer-dtype, variable,
  gradient-target (a Variable as a target, a target that is also a source, a target listed twice),
  target-structure (how a structured target flattens, which decides the output gradient each target
  is paired with), recorded-without-gradient (ops TF records with a None gradient, whose outputs are
  on the tape), conversion (how ops convert Python and NumPy operands and lists of tensors: dtype
  hints, the eager fast path and its fallback, autopacking's recorded Pack), control-flow (eager cond,
  case, switch_case, while_loop, TensorArray, map_fn and scan, identity_n, grad_pass_through and
  recompute_grad: which ops run and which gradients flow through them).

`equivalent` says why a mutant cannot be detected (it computes the same thing as reftape for every
program), where that is shown; such a mutant must survive every detector, which makes it the control
that shows a detector does not fire on a non-bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

VJP_CLASSES = ("sign-or-scale", "wrong-tensor", "missing-conjugate", "broadcast-reduction", "tie-rule",
               "special-point", "dtype-leak", "second-order", "accumulation", "large-magnitude", "attribute",
               "shape-edge", "forward-value")
TAPE_CLASSES = ("tape-option", "nesting", "stop-recording", "reset", "output-gradients", "accumulation",
                "source-structure", "jacobian", "custom-gradient", "stop-gradient", "integer-dtype", "variable",
                "gradient-target", "target-structure", "recorded-without-gradient", "conversion", "control-flow")


@dataclass(frozen=True)
class Mutant:
    """One planted bug: in reftape/`file`, the exact text `original` becomes `replacement`."""

    id: str
    family: str                 # "vjp" or "tape"
    cls: str                    # one of VJP_CLASSES or TAPE_CLASSES
    file: str                   # relative to the reftape package
    original: str
    replacement: str
    description: str
    equivalent: str | None = None   # why no program can tell it from reftape, when it cannot

    def apply(self, source: str) -> str:
        """`source` (the text of `file`) with the bug planted; ValueError unless `original` occurs once."""
        count = source.count(self.original)
        if count != 1:
            raise ValueError(f"mutant {self.id}: its original text occurs {count} times in reftape/{self.file}")
        return source.replace(self.original, self.replacement)

    def apply_to_package(self, package: Path) -> None:
        """Plants the bug in a copy of the reftape package at `package`."""
        path = package / self.file
        path.write_text(self.apply(path.read_text()))


def _vjp(id: str, cls: str, original: str, replacement: str, description: str, file: str = "ops_table.py",
         equivalent: str | None = None) -> Mutant:
    return Mutant(id, "vjp", cls, file, original, replacement, description, equivalent)


def _tape(id: str, cls: str, file: str, original: str, replacement: str, description: str,
          equivalent: str | None = None) -> Mutant:
    return Mutant(id, "tape", cls, file, original, replacement, description, equivalent)


MUTANTS: tuple[Mutant, ...] = (
    # --- VJPs: sign or scale
    _vjp("cos-sign", "sign-or-scale", "F.multiply(F.negative(g), F.sin(_conj(x)))", "F.multiply(g, F.sin(_conj(x)))",
         "cos's gradient loses its minus sign"),
    _vjp("sin-doubled", "sign-or-scale", '"Sin", _sin, lambda g, ans, x, **_: F.multiply(g,',
         '"Sin", _sin, lambda g, ans, x, **_: F.multiply(F.add(g, g),', "sin's gradient is doubled"),
    _vjp("sub-same-shape-sign", "sign-or-scale", "return g, F.negative(g)", "return g, g",
         "subtract's same-shape fast path forgets to negate the second operand's gradient"),
    _vjp("atan2-sign", "sign-or-scale", "F.multiply(F.negative(y), grad_inv)", "F.multiply(y, grad_inv)",
         "atan2's gradient with respect to x has the wrong sign"),
    _vjp("erf-scale", "sign-or-scale", "_constant_like(2 / np.sqrt(np.pi), g)", "_constant_like(1 / np.sqrt(np.pi), g)",
         "erf's gradient misses the factor 2"),
    _vjp("squared-difference-scale", "sign-or-scale", "F.multiply(_constant_like(2.0, g), g)", "F.multiply(_constant_like(1.0, g), g)",
         "squared_difference's gradient misses the factor 2"),
    _vjp("l2-loss-doubled", "sign-or-scale", "lambda g, ans, x, **_: F.multiply(x, g), dtypes=FLOAT)",
         "lambda g, ans, x, **_: F.multiply(F.add(x, x), g), dtypes=FLOAT)", "l2_loss's gradient is 2x instead of x"),
    _vjp("softplus-sign", "sign-or-scale", "F.multiply(g, F.sigmoid(x))", "F.multiply(g, F.sigmoid(F.negative(x)))",
         "softplus's gradient is sigmoid(-x) instead of sigmoid(x)"),
    _vjp("mean-factor-whole-size", "sign-or-scale",
         "factor = int(np.prod(_shape(x))) // max(int(np.prod(_shape(ans))), 1)", "factor = int(np.prod(_shape(x)))",
         "reduce_mean's gradient divides by the input's size even when only some axes are reduced"),
    # --- VJPs: computed from the wrong tensor
    _vjp("sigmoid-from-input", "wrong-tensor", 'F.execute("SigmoidGrad", [_conj(ans), g])',
         'F.execute("SigmoidGrad", [_conj(x), g])', "sigmoid's VJP computed from the input instead of the output"),
    _vjp("tanh-from-input", "wrong-tensor", 'F.execute("TanhGrad", [_conj(ans), g])', 'F.execute("TanhGrad", [_conj(x), g])',
         "tanh's VJP computed from the input instead of the output"),
    _vjp("log-softmax-from-log-probs", "wrong-tensor", "F.multiply(F.reduce_sum(g, -1, keepdims=True), F.exp(ans))",
         "F.multiply(F.reduce_sum(g, -1, keepdims=True), ans)",
         "log_softmax's VJP uses the log-probabilities where it needs the probabilities"),
    _vjp("matmul-transpose-b-swapped", "wrong-tensor", "lambda: mm(g, b), lambda: mm(g, a, transpose_a=True)",
         "lambda: mm(g, b), lambda: mm(a, g, transpose_a=True)",
         "matmul(a, b, transpose_b=True): b's gradient is a^T g instead of g^T a (equal shapes when square)"),
    _vjp("transpose-perm-not-inverted", "wrong-tensor", "F.transpose(g, list(np.argsort(perm)))", "F.transpose(g, perm)",
         "transpose's VJP applies the permutation instead of its inverse (same for rank 2)"),
    _vjp("cumsum-same-direction", "wrong-tensor", "F.cumsum(g, axis, exclusive, not reverse)", "F.cumsum(g, axis, exclusive, reverse)",
         "cumsum's VJP scans in the same direction as the forward pass instead of the opposite one"),
    _vjp("pow-exponent-from-base", "wrong-tensor", "F.pow(cx, F.subtract(cy, 1))", "F.pow(cx, cy)",
         "pow's gradient in the base uses x**y instead of x**(y-1)"),
    # --- VJPs: missing conjugate (complex)
    _vjp("exp-no-conj", "missing-conjugate", "lambda g, ans, x, **_: F.multiply(g, _conj(ans)), dtypes=INEXACT)",
         "lambda g, ans, x, **_: F.multiply(g, ans), dtypes=INEXACT)", "exp's VJP forgets to conjugate for complex"),
    _vjp("mul-no-conj", "missing-conjugate", "gx = F.multiply(g, _conj(y)) if needs[0] else None",
         "gx = F.multiply(g, y) if needs[0] else None", "multiply's VJP forgets to conjugate the other operand"),
    _vjp("log-no-conj", "missing-conjugate", "F.multiply(g, F.reciprocal(_conj(x)))", "F.multiply(g, F.reciprocal(x))",
         "log's VJP forgets to conjugate"),
    _vjp("matmul-no-conj", "missing-conjugate", "a, b = _conj(a), _conj(b)", "a, b = a, b",
         "matmul's VJP forgets to conjugate its operands"),
    _vjp("pow-exponent-no-conj", "missing-conjugate", "F.multiply(F.multiply(g, _conj(ans)), log_x)",
         "F.multiply(F.multiply(g, ans), log_x)", "pow's gradient in the exponent forgets to conjugate"),
    # --- VJPs: reduction back to a broadcast input's shape
    _vjp("unbroadcast-mean", "broadcast-reduction", "F.reduce_sum(grad, _broadcast_axes(", "F.reduce_mean(grad, _broadcast_axes(",
         "undoing broadcasting averages over the broadcast axes instead of summing"),
    _vjp("softmax-no-keepdims", "broadcast-reduction", "F.reduce_sum(F.multiply(g, ans), -1, keepdims=True)",
         "F.reduce_sum(F.multiply(g, ans), -1)",
         "softmax's VJP drops keepdims, so the row sums broadcast along the wrong axis (silently when square)"),
    _vjp("tile-wrong-axes", "broadcast-reduction", "tuple(range(0, len(split_shape), 2))", "tuple(range(1, len(split_shape), 2))",
         "tile's VJP sums over the input's axes instead of the multiples' axes"),
    # --- VJPs: tie rules
    _vjp("maximum-tie-to-y", "tie-rule", '"Maximum", _pmax, _max_min_vjp(F.greater_equal)', '"Maximum", _pmax, _max_min_vjp(F.greater)',
         "maximum sends a tie's gradient to the second operand instead of the first"),
    _vjp("minimum-tie-to-y", "tie-rule", '"Minimum", _pmin, _max_min_vjp(F.less_equal)', '"Minimum", _pmin, _max_min_vjp(F.less)',
         "minimum sends a tie's gradient to the second operand instead of the first"),
    _vjp("reduce-max-tie-not-split", "tie-rule", "return F.multiply(F.divide(indicators, num_selected), g)",
         "return F.multiply(indicators, g)", "reduce_max/reduce_min give every tied element the whole gradient"),
    # --- VJPs: value at a special point
    _vjp("sqrt-grad-zero-upstream", "special-point", "np.where(dy == 0, 0, 0.5 * dy / np.conj(y))", "0.5 * dy / np.conj(y)",
         "sqrt's fused gradient gives NaN instead of 0 at sqrt(0) with a zero upstream", file="kernels/elementwise.py"),
    _vjp("pow-mask-includes-zero", "special-point", "else F.greater(cx, 0)", "else F.greater_equal(cx, 0)",
         "pow's exponent gradient takes log(0) at a zero base instead of masking it"),
    _vjp("xlogy-zero-x", "special-point", "F.multiply(F.xlogy(not_zero_x, y), g)", "F.multiply(F.log(y), g)",
         "xlogy's gradient in x is log(y) even where x is 0 (TF: 0)"),
    _vjp("div-no-nan-divides", "special-point", "F.divide_no_nan(g, cy)", "F.divide(g, cy)",
         "divide_no_nan's gradient divides by a zero denominator"),
    _vjp("relu6-upper-edge", "special-point", "dy * ((y > 0) & (y < 6))", "dy * ((y > 0) & (y <= 6))",
         "relu6 passes the gradient where the output is clipped at 6"),
    _vjp("reduce-prod-divides", "special-point",
         "y = F.reshape(F.multiply(_conj(left), _conj(right)), _shape(permuted))",
         "y = F.divide(F.reshape(F.multiply(F.multiply(_conj(left), _conj(right)), reshaped), _shape(permuted)), permuted)",
         "reduce_prod's gradient computed as prod/x, NaN where an element is zero"),
    # --- VJPs: a dtype that leaks
    _vjp("cast-grad-keeps-output-dtype", "dtype-leak",
         "F.cast(g, x.dtype) if x.dtype in INEXACT and dtype in INEXACT else None",
         "g if x.dtype in INEXACT and dtype in INEXACT else None",
         "cast's gradient keeps the output's dtype instead of the input's"),
    _vjp("real-grad-stays-real", "dtype-leak", 'lambda g, ans, x, **_: F.complex(g, F.zeros_like(g)), dtypes=COMPLEX',
         'lambda g, ans, x, **_: g, dtypes=COMPLEX', "math.real's gradient is real instead of complex"),
    # --- VJPs: a second-order term wrong, first order right
    _vjp("sigmoid-grad-second-order", "second-order", "F.multiply(F.multiply(2.0, F.multiply(g, _conj(dy))), _conj(y))",
         "F.multiply(F.multiply(g, _conj(dy)), _conj(y))", "sigmoid's second derivative misses a factor 2"),
    _vjp("tanh-grad-second-order-sign", "second-order", "F.multiply(F.multiply(F.multiply(g, -2.0), _conj(dy)), _conj(y))",
         "F.multiply(F.multiply(F.multiply(g, 2.0), _conj(dy)), _conj(y))", "tanh's second derivative has the wrong sign"),
    _vjp("relu-grad-second-order-unmasked", "second-order", '(F.execute("ReluGrad", [g, y]), F.zeros_like(y))',
         "(g, F.zeros_like(y))", "the gradient of relu's gradient passes through where relu is flat"),
    _vjp("elu-grad-second-order", "second-order", "F.where(F.less(y, 0), F.multiply(g, dy), F.zeros_like(y))",
         "F.where(F.less(y, 0), g, F.zeros_like(y))", "elu's second derivative forgets the upstream gradient"),
    _vjp("softmax-xent-second-order", "second-order", "F.multiply(F.subtract(g_backprop, inner), softmax)",
         "F.multiply(g_backprop, softmax)",
         "softmax_cross_entropy_with_logits' second derivative forgets the projection term"),
    _vjp("log1p-grad-off-tape", "second-order",
         "lambda g, ans, x, **_: F.multiply(g, F.reciprocal(F.add(_constant_like(1, x), _conj(x))))",
         "lambda g, ans, x, **_: F.multiply(g, 1 / (1 + _conj(x).numpy()))",
         "log1p's VJP computes 1/(1+x) in NumPy, off the tape: first order right, the second derivative "
         "(sigmoid_cross_entropy_with_logits' among them) loses its term"),
    _vjp("segment-sum-overwrites", "accumulation", "np.add.at(out, indices, values)", "out[indices] = values",
         "the segment sum behind gather's gradient (axis > 0) overwrites repeated indices instead of adding them",
         file="kernels/indexing.py"),
    # --- VJPs: large magnitudes, where TF's kernel overflows in the input's dtype
    _vjp("euclidean-norm-in-float32", "large-magnitude",
         "squares = _rounded(x * np.conj(x), T, x)\n        return np.sqrt(_rounded(np.sum(squares, axis=axis, keepdims=keepdims), T, x))",
         "squares = x * np.conj(x)\n        return np.sqrt(np.sum(squares, axis=axis, keepdims=keepdims))",
         "reduce_euclidean_norm of a half type is computed in float32 and cast back, so it never overflows "
         "(TF's float16 squares and their sum past 65504 are inf)", file="kernels/reductions.py"),
    # --- Tape: options and their combinations
    _tape("persistent-stops-recording", "tape-option", "tape.py", "if self._recording and not self._persistent:",
          "if self._recording:", "a persistent tape stops recording at its first gradient call"),
    _tape("persistent-released", "tape-option", "tape.py", "if not self._persistent and self._tape is not None:",
          "if self._tape is not None:", "a persistent tape is released after its first gradient call"),
    _tape("one-shot-reusable", "tape-option", "tape.py",
          "self._watched_variables = self._tape.watched_variables()\n            self._tape = None",
          "self._watched_variables = self._tape.watched_variables()",
          "a non-persistent tape can compute gradients twice"),
    _tape("watch-accessed-ignored", "tape-option", "recording.py", "if recording.watch_accessed_variables:", "if True:",
          "watch_accessed_variables=False still watches every variable read"),
    _tape("zero-policy-ignored", "tape-option", "tape.py",
          "if grad is None and policy is UnconnectedGradients.ZERO and", "if grad is None and policy is None and",
          "unconnected_gradients=ZERO returns None like NONE"),
    _tape("zeros-take-handle-dtype", "tape-option", "backward.py", 'return getattr(tensor, "_zeros_dtype", tensor.dtype)',
          "return tensor.dtype", "zeros for an unconnected Variable source take its handle's dtype"),
    # --- Tape: nesting
    _tape("backward-not-recorded", "nesting", "tape.py",
          "flat_grads = backward(recording, flat_targets, flat_sources, seeds, consume=not self._persistent)",
          "from .recording import suspended\n        "
          "with suspended(): flat_grads = backward(recording, flat_targets, flat_sources, seeds, consume=not self._persistent)",
          "an outer tape does not record the inner tape's backward pass (no higher-order gradients)"),
    _tape("innermost-tape-only", "nesting", "recording.py", "recordings = [r for r in active if any(",
          "recordings = [r for r in active[-1:] if any(", "only the innermost active tape records ops"),
    _tape("needs-from-recording-tapes", "nesting", "recording.py",
          "needs = tuple(any(r.tracks(t) for r in active) for t in inputs)",
          "needs = tuple(any(r.tracks(t) for r in recordings) for t in inputs)",
          "which inputs need a gradient is asked only of the tapes that record the op",
          equivalent="a tape that tracks an input records the op, so it is among `recordings`: the same tuple"),
    # --- Tape: stop_recording and reset
    _tape("stop-recording-pauses-all", "stop-recording", "tape.py",
          "self._pop_tape()\n        try:\n            yield\n        finally:\n            self._push_tape()",
          "from .thread_state import this_thread\n        saved, this_thread.state.active = this_thread.state.active, []\n"
          "        try:\n            yield\n        finally:\n            this_thread.state.active = saved",
          "stop_recording pauses every active tape instead of this one"),
    _tape("watch-kept-while-paused", "stop-recording", "tape.py",
          "if not active_recordings():\n                continue", "if False:\n                continue",
          "a watch made while no tape records is kept (TF drops it)"),
    _tape("reset-keeps-recording", "reset", "tape.py",
          "self._pop_tape()\n        self._tape = None\n        self._push_tape()", "pass",
          "reset() discards nothing"),
    # --- Tape: output_gradients, accumulation, sources
    _tape("output-gradients-ignored", "output-gradients", "tape.py",
          "seeds = [None if g is None else _as_upstream(g) for g in nest.flatten(output_gradients)]", "seeds = []", "output_gradients are ignored (ones are used)"),
    _tape("output-gradients-first-only", "output-gradients", "backward.py",
          "seed = output_gradients[i] if i < len(output_gradients) else None",
          "seed = output_gradients[0] if output_gradients else None",
          "every target is seeded with the first output gradient"),
    _tape("output-gradients-dict-insertion-order", "output-gradients", "tape.py",
          "seeds = [None if g is None else _as_upstream(g) for g in nest.flatten(output_gradients)]",
          "seeds = [None if g is None else _as_upstream(g) for g in (list(output_gradients.values())\n"
          "                     if isinstance(output_gradients, dict) else nest.flatten(output_gradients))]",
          "output_gradients given as a dict flatten in insertion order instead of TF's sorted key order, "
          "so each seeds another target than TF pairs it with"),
    _tape("last-contribution-wins", "accumulation", "backward.py",
          "total = contributions[0] if len(contributions) == 1 else aggregate(contributions)",
          "total = contributions[-1]", "a tensor used twice keeps only its last gradient contribution"),
    _tape("intermediate-source-dropped", "accumulation", "backward.py",
          "    if tensor_id in source_ids:\n        grads[tensor_id] = [total]",
          "    if False:\n        grads[tensor_id] = [total]",
          "the gradient of a source that is also an intermediate is consumed by the backward pass"),
    _tape("seeds-of-unheld-targets-kept", "accumulation", "backward.py",
          "if tensor_id in consumed:\n                grads.pop(tensor_id, None)",
          "if False:\n                grads.pop(tensor_id, None)",
          "a target the tape does not hold keeps its seed as its gradient (TF: None)"),
    _tape("sum-gradient-reads-no-shape", "gradient-target", "ops_table.py",
          "shape_tensor = F.shape(x) if reads_shape and active_recordings() else None", "shape_tensor = None",
          "reduce_sum's and reduce_mean's gradients never read the input's shape through a Shape op, so a tape "
          "recording them does not reach the input's producer: an unwatched constant that is a target and a source "
          "and that producer read keeps its seed (TF: None)"),
    _tape("dict-insertion-order", "source-structure", "nest.py", "return [value[k] for k in sorted(value)]",
          "return list(value.values())", "dicts flatten in insertion order instead of TF's sorted key order"),
    _tape("dict-repacked-sorted", "source-structure", "nest.py", "return type(item)((k, packed[k]) for k in item)",
          "return type(item)((k, packed[k]) for k in sorted(item))",
          "returned dicts come back in sorted key order instead of the sources' own order"),
    _tape("duplicate-source-once", "source-structure", "backward.py",
          "return [aggregate(grads[s._id]) if grads.get(s._id) else None for s in sources]",
          "return [aggregate(grads.pop(s._id)) if grads.get(s._id) else None for s in sources]",
          "a source listed twice gets its gradient at its first position only (None at the second)"),
    _tape("namedtuple-becomes-tuple", "source-structure", "nest.py",
          "return type(item)(*[rebuild(x) for x in item])", "return tuple(rebuild(x) for x in item)",
          "gradients for namedtuple sources come back as a plain tuple"),
    _tape("watch-cuts-intermediate", "source-structure", "recording.py", "self.producer.setdefault(tensor._id, -1)",
          "self.producer[tensor._id] = -1", "watching an already recorded tensor cuts the gradient path through it"),
    # --- Tape: structured targets
    _tape("namedtuple-target-by-field-name", "target-structure", "tape.py",
          "flat_targets = [_handle_or_self(t) for t in nest.flatten(target)]",
          "flat_targets = [_handle_or_self(t) for t in nest.flatten(\n"
          "            target._asdict() if hasattr(target, \"_fields\") else target)]",
          "a namedtuple target flattens like a dict, in sorted field order instead of its field order, "
          "so its output gradients seed the wrong fields"),
    _tape("targets-flattened-one-level", "target-structure", "tape.py",
          "flat_targets = [_handle_or_self(t) for t in nest.flatten(target)]",
          "flat_targets = [_handle_or_self(t) for t in (\n"
          "            list(target) if isinstance(target, (list, tuple)) else nest.flatten(target))]",
          "a list or tuple of targets is flattened one level only: a nested structure inside it is rejected"),
    _tape("duplicate-target-once", "gradient-target", "backward.py",
          "grads.setdefault(target._id, []).append(seed)",
          "grads[target._id] = [seed]",
          "a target listed twice counts once, with its last output gradient (TF sums both)"),
    # --- Tape: jacobian and batch_jacobian
    _tape("jacobian-dict-sources-insertion-order", "jacobian", "tape.py",
          "        recording = self._check_usable()\n        flat_sources = nest.flatten(sources)",
          "        recording = self._check_usable()\n        flat_sources = (list(sources.values()) if isinstance(\n"
          "            sources, dict) else nest.flatten(sources))",
          "jacobian flattens dict sources in insertion order but packs the results in sorted key order, "
          "so each Jacobian lands under another source's key"),
    _tape("jacobian-zeros-target-dtype", "jacobian", "tape.py",
          "F.zeros(tuple(target.shape) + tuple(source.shape), source.dtype)",
          "F.zeros(tuple(target.shape) + tuple(source.shape), target.dtype)",
          "jacobian's zeros for an unconnected source take the target's dtype"),
    _tape("batch-jacobian-none-unconnected", "jacobian", "tape.py", "return F.zeros(new_shape, target.dtype)  #",
          "return None  #", "batch_jacobian returns None for an unconnected source (TF: zeros)"),
    _tape("jacobian-loop-not-persistent", "jacobian", "tape.py",
          'if not experimental_use_pfor:\n            self._require_persistent("jacobian", " with ")\n',
          "if not experimental_use_pfor:\n",
          "jacobian with experimental_use_pfor=False runs on a non-persistent tape (TF raises)"),
    _tape("batch-jacobian-loop-dtype-unchecked", "jacobian", "tape.py",
          "        return _loop_stacked(target, result) if not experimental_use_pfor else result", "        return result",
          "batch_jacobian's loop path accepts rows whose dtype differs from the target's"),
    _tape("batch-jacobian-first-row-only", "jacobian", "tape.py",
          "(slice(None),) + np.unravel_index(j, shape[1:])", "(0,) + np.unravel_index(j, shape[1:])",
          "batch_jacobian seeds only the first batch row"),
    _tape("pfor-check-when-unconnected", "jacobian", "tape.py",
          "            self._release_if_one_shot()\n            _check_vectorized_loop_is_differentiable(first_op, traced)",
          "            self._release_if_one_shot()\n            if all(connected):\n"
          "                _check_vectorized_loop_is_differentiable(first_op, traced)",
          "the vectorized loop is checked only when every source is connected"),
    _tape("jacobian-empty-target-unconnected", "jacobian", "tape.py",
          "if count == 0:  # TF's pfor traces the loop body once", "if False:  # TF's pfor traces the loop body once",
          "jacobian of an empty target (no rows to seed) calls every source unconnected: None, not empty zeros"),
    # --- Tape: custom_gradient, stop_gradient
    _tape("custom-gradient-variable-grads-dropped", "custom-gradient", "custom_gradient.py",
          "return flat_grads + variable_grads  #", "return flat_grads + [None] * len(variable_grads)  #",
          "custom_gradient drops the gradients it returns for captured variables"),
    _tape("custom-gradient-none-becomes-zeros", "custom-gradient", "custom_gradient.py",
          "return flat_grads + variable_grads  #",
          "return [F.zeros_like(x) if g is None else g for g, x in zip(flat_grads, inputs)] + variable_grads  #",
          "a None gradient a custom gradient returns for an input becomes zeros (TF: None, the input unconnected)"),
    _tape("custom-gradient-untrainable-captured", "custom-gradient", "custom_gradient.py",
          "if v.trainable and all(v is not arg for arg in passed)]", "if all(v is not arg for arg in passed)]",
          "custom_gradient passes non-trainable variables to grad_fn"),
    # stop_gradient runs with every tape paused (as TF's does), so a planted VJP on its kernel is never
    # reached: these plant the bugs in the function
    _tape("stop-gradient-passes", "stop-gradient", "functions.py", "    with suspended():\n        return execute(\"StopGradient\"",
          "    if True:\n        return execute(\"Identity\"", "stop_gradient lets the gradient through"),
    _tape("stop-gradient-recorded", "stop-gradient", "functions.py", "    with suspended():\n        return execute(\"StopGradient\"",
          "    if True:\n        return execute(\"StopGradient\"",
          "stop_gradient runs with the tapes recording, so a variable read for it is watched (TF pauses them)"),
    # --- Tape: integer dtypes, variables
    _tape("integer-sources-tracked", "integer-dtype", "dtypes.py", "return dtype._trainable",
          "return dtype._trainable or dtype.is_integer", "integer tensors carry gradients"),
    _tape("assign-not-accessed", "variable", "variables.py",
          "            return None\n        _recording.variable_accessed(self)\n",
          "            return None\n",
          "assign/assign_add/assign_sub do not mark the variable as accessed"),
    _tape("untrainable-watched", "variable", "recording.py", "    if variable.trainable:\n", "    if True:\n",
          "reading a non-trainable variable watches it"),
    _tape("watched-variables-in-watch-order", "variable", "recording.py",
          "return tuple(self.variables[k] for k in sorted(self.variables))", "return tuple(self.variables.values())",
          "watched_variables() lists variables in watch order instead of creation order"),
    _tape("assign-sub-adds", "variable", "variables.py", "lambda old, new: old - new,",
          "lambda old, new: old + new,", "assign_sub adds its delta (copied from assign_add)"),
    _tape("sliced-assign-whole-variable", "variable", "variables.py", "                updated[key] = new._value\n",
          "                updated[...] = new._value\n",
          "a sliced assign (`v[1:3].assign(x)`) writes its value, broadcast, over the whole variable"),
    # --- Tape: a Variable as a target; ops recorded without a gradient
    _tape("variable-target-reread", "gradient-target", "tape.py",
          "flat_targets = [_handle_or_self(t) for t in nest.flatten(target)]",
          "flat_targets = [convert_to_tensor(t) for t in nest.flatten(target)]",
          "a Variable target is read into a fresh tensor instead of standing for its handle, so gradient(v, v) is None"),
    _tape("zeros-like-not-recorded", "recorded-without-gradient", "ops_table.py",
          '      _none_gradient, moves_data=True)  # strings: empty ones',
          '      None, moves_data=True)  # strings: empty ones',
          "zeros_like is never recorded (like stop_gradient), so its output is off the tape (TF records it)"),
    # --- Second batch (sensitivity-3): faults planted before the generator was tuned towards them
    _vjp("concat-negative-axis", "attribute", "    axis = axis % ans.ndim\n    if g.__class__ is F.IndexedSlices:",
         "    if g.__class__ is F.IndexedSlices:",
         "concat's VJP slices along `axis` as given: a negative axis (counted from the end) slices the first axis"),
    _vjp("gather-negative-axis", "attribute", "    axis = axis + len(shape) if axis < 0 else axis\n    batch_dims = batch_dims",
         "    batch_dims = batch_dims",
         "gather's dense VJP (axis other than 0) forgets to count a negative axis from the end"),
    _vjp("matmul-both-transposed-swapped", "attribute",
         "ga, gb = lambda: mm(b, g, transpose_a=True, transpose_b=True),",
         "ga, gb = lambda: mm(g, b, transpose_a=True, transpose_b=True),",
         "matmul(a, b, transpose_a=True, transpose_b=True): a's gradient is g^T b^T instead of b^T g^T "
         "(its transpose, silently when square)"),
    _vjp("matmul-adjoint-unconjugated", "missing-conjugate", "            a, transpose_a = conj_if_complex(a), True",
         "            a, transpose_a = a, True", "matmul's adjoint_a of a matrix transposes without conjugating",
         file="functions.py"),
    _vjp("transpose-conjugate-ignored", "missing-conjugate",
         "    return conj(result) if conjugate and a.dtype.is_complex else result", "    return result",
         "transpose(conjugate=True) of a complex tensor does not conjugate", file="functions.py"),
    _vjp("batch-matmul-unbroadcast-dropped", "broadcast-reduction",
         "    return (unbroadcast(gx, _shape(x), _shape(gx)[:-2] + _shape(x)[-2:]),\n"
         "            unbroadcast(gy, _shape(y), _shape(gy)[:-2] + _shape(y)[-2:]))",
         "    return gx, gy",
         "a batched matmul's VJP does not sum the gradient of an operand broadcast over the batch dimensions"),
    _vjp("einsum-no-conj", "missing-conjugate", "x, y = _conj(x), _conj(y)", "x, y = x, y",
         "einsum's VJP of two complex operands forgets to conjugate them"),
    _vjp("einsum-ellipsis-unbroadcast-dropped", "broadcast-reduction", "    if x_batch == y_batch:\n",
         "    if True:\n",
         "einsum's VJP does not sum the gradient of an operand broadcast over the ellipsis ('ij...,jk...->ik...')"),
    _vjp("reduce-several-axes-first-only", "attribute", "[a % max(len(x_shape), 1) for a in axis]",
         "[a % max(len(x_shape), 1) for a in axis[:1]]",
         "the reductions' VJPs restore only the first of several reduced axes (reduce_sum(x, axis=[0, 1]))"),
    _vjp("mean-half-sum-unrounded", "large-magnitude",
         "    total = _sum(x, axis, keep_dims, T)\n    count",
         "    total = np.sum(x, axis=axis_arg, keepdims=keep_dims)\n    count",
         "reduce_mean of float16 sums in float32, rounded once: a partial sum past 65504 never overflows "
         "(TF rounds each addition to float16: inf, and NaN beside a -inf)", file="kernels/reductions.py"),
    _vjp("mul-scalar-fast-path-no-conj", "missing-conjugate", "        return F.multiply(g, _conj(y)), None",
         "        return F.multiply(g, y), None",
         "multiply's fast path (a scalar second operand that needs no gradient) forgets to conjugate it"),
    _vjp("softmax-of-empty", "shape-edge",
         "    if x.ndim == 0 or x.size == 0:\n        return _nothing_to_normalise(x)\n    shifted = x - np.max(x, axis=-1, keepdims=True)\n    e = np.exp(shifted)",
         "    if x.ndim == 0:\n        return _nothing_to_normalise(x)\n    shifted = x - np.max(x, axis=-1, keepdims=True)\n    e = np.exp(shifted)",
         "softmax of an empty tensor fails in NumPy's max (TF returns it empty)", file="kernels/activations.py"),
    _vjp("reduce-max-of-empty", "shape-edge", 'defop("Max", _reduce(np.max, _lowest),', 'defop("Max", _reduce(np.max),',
         "reduce_max over an empty axis fails in NumPy (TF gives -inf, the identity)"),
    _vjp("floordiv-truncates", "forward-value", "    return np.floor(x / y)\n", "    return np.trunc(x / y)\n",
         "floordiv of floats rounds a negative quotient toward zero instead of down", file="kernels/elementwise.py"),
    _vjp("maximum-textbook", "forward-value", "    return np.where((x > y) | np.isnan(x), x, y)",
         "    return np.where(x >= y, x, y)",
         "maximum as x >= y ? x : y: a NaN first operand is lost and a tie (-0.0, 0.0) gives the first operand",
         file="kernels/elementwise.py"),
    _vjp("abs-grad-one-at-zero", "special-point", 'defop("Abs", np.abs, lambda g, ans, x, **_: F.multiply(g, F.sign(x)),',
         'defop("Abs", np.abs, lambda g, ans, x, **_: F.where(F.less(x, 0), F.negative(g), g),',
         "abs's gradient at 0 is the upstream (TF: sign(0) = 0)"),
    _vjp("round-half-away", "forward-value", 'defop("Round", np.round,',
         'defop("Round", lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x),',
         "round rounds halves away from zero (TF: to even)"),
    _vjp("expm1-no-conj", "missing-conjugate", "lambda g, ans, x, **_: F.multiply(g, F.exp(_conj(x)))",
         "lambda g, ans, x, **_: F.multiply(g, F.exp(x))", "expm1's VJP forgets to conjugate for complex"),
    _vjp("rsqrt-grad-second-order", "second-order", "F.multiply(F.multiply(F.multiply(-1.5, _conj(g)), dy), F.square(_conj(y)))",
         "F.multiply(F.multiply(F.multiply(-0.5, _conj(g)), dy), F.square(_conj(y)))",
         "rsqrt's second derivative has the first derivative's coefficient (-0.5 instead of -1.5)"),
    _vjp("relu6-grad-second-order-relu-mask", "second-order", '(F.execute("Relu6Grad", [g, y]), F.zeros_like(y))',
         '(F.execute("ReluGrad", [g, y]), F.zeros_like(y))',
         "the gradient of relu6's gradient is masked like relu's: it passes where relu6 is clipped at 6"),
    _vjp("mirror-pad-grad-second-order-mode", "second-order",
         'lambda g, ans, dy, paddings, mode, **_: F.execute("MirrorPad", [g], paddings=paddings, mode=mode)',
         'lambda g, ans, dy, paddings, mode, **_: F.execute("MirrorPad", [g], paddings=paddings, mode="REFLECT")',
         "the gradient of MirrorPadGrad always reflects, also for SYMMETRIC padding"),
    _vjp("leaky-relu-grad-second-order-unscaled", "second-order",
         '(F.execute("LeakyReluGrad", [g, x], alpha=alpha, T=T), F.zeros_like(x))', "(g, F.zeros_like(x))",
         "the gradient of leaky_relu's gradient forgets the slope alpha below zero"),
    _tape("zero-policy-float32-zeros", "tape-option", "tape.py", "        return F.zeros_like(source)\n    return grad",
          "        return F.zeros(tuple(source.shape))\n    return grad",
          "unconnected_gradients=ZERO fills float32 zeros whatever the source's dtype (and reads no Variable)"),
    _tape("jacobian-loop-zeros-no-read", "jacobian", "tape.py", "                    F.zeros_like(source)\n",
          "                    pass\n",
          "jacobian's loop path (experimental_use_pfor=False) with ZERO fills an unconnected Variable's zeros "
          "without reading it, so recording tapes do not watch it (TF's zeros_like reads it)"),
    _tape("reset-keeps-watched-variables", "reset", "tape.py",
          "        self._pop_tape()\n        self._tape = None\n        self._push_tape()",
          "        variables = self._tape.variables\n        self._pop_tape()\n        self._tape = None\n"
          "        self._push_tape()\n        self._tape.variables.update(variables)",
          "reset() forgets the recorded ops but keeps the list of watched Variables"),
    _tape("watch-variable-unlisted", "variable", "tape.py",
          "            if hasattr(leaf, \"handle\"):\n                self._tape.watch_variable(leaf)",
          "            if hasattr(leaf, \"handle\"):\n                self._tape.watch(leaf.handle)",
          "tape.watch(variable) traces the Variable but watched_variables() does not list it"),
    # --- conversions of what ops receive that is not a tensor
    _tape("autopack-unrecorded", "conversion", "functions.py",
          '        return execute("Pack", [convert_to_tensor(item) for item in values], axis=0)',
          "        return constant(np.stack([convert_to_tensor(item).numpy() for item in values]), dtype=dtype)",
          "a list of tensors is converted to a constant, not packed by a recorded Pack: no gradient reaches them"),
    _tape("autopack-mixed-unrecorded", "conversion", "functions.py",
          "    if not must_pack:\n        return parts\n",
          "    if not must_pack or True:\n        return constant(np.stack([np.asarray(part) for part in parts]), dtype=dtype)\n",
          "a list holding tensors beside Python values becomes a constant: no gradient reaches its tensors"),
    _tape("fast-path-fallback-ignored", "conversion", "functions.py",
          "    if strict and any(_leaves_fast_path(v) for v in (*values, *beside)):",
          "    if False:",
          "a list or NumPy scalar before a Variable takes the Variable's dtype, where TF's fallback converts in "
          "order and refuses the Variable"),
    _tape("variable-conversion-unchecked", "conversion", "variables.py",
          "    if dtype is not None and dtype != variable.dtype:",
          "    if False:",
          "a Variable converted to another dtype is read first and refused with the tensors' message"),
    _tape("numpy-operand-uncast", "conversion", "functions.py",
          "            converted.append(_convert(quiet_astype(np.asarray(value), dtype.as_numpy_dtype)))",
          "            converted.append(_convert(np.asarray(value)))",
          "a NumPy operand keeps its dtype where TF casts it to the tensor operand's"),
    _tape("python-operand-hint-dropped", "conversion", "functions.py",
          "            converted.append(convert_to_tensor(value, dtype_hint=dtype))",
          "            converted.append(convert_to_tensor(value))",
          "a Python operand TF only hints (divide, divide_no_nan, einsum) is converted with its own dtype"),
    _tape("matmul-b-converted-alone", "conversion", "functions.py",
          "    b = convert_to_tensor(b, dtype_hint=a.dtype)",
          "    b = convert_to_tensor(b)",
          "matmul converts a Python or NumPy b alone instead of hinting a's dtype"),
    _tape("python-list-hint-ignored", "conversion", "tensor.py",
          "            if dtype is None and not (dtype_hint is not None and _python_value_fits(np.asarray(value), "
          "dtype_hint)):",
          "            if dtype is None:",
          "a Python list given a dtype hint is inferred on its own (float32 for floats)"),
    _tape("python-int-refused-for-floats", "conversion", "tensor.py",
          '        return kind in "iuf" or kind == "O" and all(type(s) is int for s in array.flat)',
          '        return kind == "f"',
          "Python integers do not convert to a floating dtype (tf.multiply(x, 3) refused)"),
    _tape("indexed-slices-aggregate-first-only", "accumulation", "backward.py",
          "    if all(isinstance(g, IndexedSlices) for g in contributions):",
          "    if isinstance(contributions[0], IndexedSlices):",
          "gradient contributions are concatenated as IndexedSlices when the first is one, though a dense one follows"),
    # --- the third batch (2026-11-26, evening): ops added that afternoon (linear algebra, special
    # functions, scans, norms), written from their code before measuring the generator on them
    _vjp("determinant-grad-unadjointed", "wrong-tensor",
         'return F.multiply(F.reshape(F.multiply(g, ans), _shape(ans) + (1, 1)), F.execute("MatrixInverse", [x], adjoint=True))',
         'return F.multiply(F.reshape(F.multiply(g, ans), _shape(ans) + (1, 1)), F.execute("MatrixInverse", [x], adjoint=False))',
         "det's gradient uses the inverse where TF uses its adjoint (right for symmetric matrices only)"),
    _vjp("slogdet-grad-from-sign", "wrong-tensor", "    upstream = g[1]\n", "    upstream = g[0]\n",
         "slogdet's gradient takes the sign's upstream instead of the log magnitude's"),
    _vjp("matrix-inverse-grad-sign", "sign-or-scale", "    return F.negative(F.matmul(ans, inner, adjoint_a=not adjoint))",
         "    return F.matmul(ans, inner, adjoint_a=not adjoint)", "inv's gradient loses its minus sign"),
    _vjp("matrix-solve-grad-adjoint-kept", "attribute",
         '    grad_rhs = F.execute("MatrixSolve", [matrix, g], adjoint=not adjoint)',
         '    grad_rhs = F.execute("MatrixSolve", [matrix, g], adjoint=adjoint)',
         "solve's gradient solves with the matrix, not its adjoint"),
    _vjp("cholesky-grad-diagonal-whole", "sign-or-scale",
         "F.multiply(_constant_like(0.5, middle), F.diag_part(middle))", "F.diag_part(middle)",
         "cholesky's gradient keeps the middle term's diagonal whole instead of halving it"),
    _vjp("triangular-solve-grad-lower-band", "attribute",
         "num_lower=-1 if lower else 0, num_upper=0 if lower else -1)", "num_lower=-1, num_upper=0)",
         "triangular_solve's matrix gradient keeps the lower triangle also for an upper (lower=False) matrix"),
    _vjp("polygamma-grad-same-order", "wrong-tensor",
         '    partial = F.execute("Polygamma", [F.add(n, _constant_like(1, n)), x])',
         '    partial = F.execute("Polygamma", [n, x])',
         "polygamma's gradient is polygamma of the same order instead of the next"),
    _vjp("zeta-grad-sign", "sign-or-scale", "    partial = F.multiply(F.negative(x), F.execute(",
         "    partial = F.multiply(x, F.execute(", "zeta's gradient in q loses its minus sign"),
    # Special functions of issue 24
    _vjp("bessel-i1e-grad-sign-term-missing", "wrong-tensor", "F.multiply(ans, F.add(F.sign(x), F.reciprocal(x)))",
         "F.multiply(ans, F.reciprocal(x))", "bessel_i1e's gradient misses the -sign(x) i1e(x) term of the scaling"),
    _vjp("erfinv-grad-exponent-sign", "sign-or-scale",
         "_constant_like(np.sqrt(np.pi) / 2, g)), F.exp(F.square(ans)))",
         "_constant_like(np.sqrt(np.pi) / 2, g)), F.exp(F.negative(F.square(ans))))",
         "erfinv's gradient takes exp(-erfinv(x)^2) instead of exp(+erfinv(x)^2)"),
    _vjp("bessel-i1-grad-at-zero-half", "special-point",
         "F.where(F.equal(x, _constant_like(0, x)), _constant_like(1, x), main)",
         "F.where(F.equal(x, _constant_like(0, x)), _constant_like(0.5, x), main)",
         "bessel_i1's gradient at 0 is i1e's 1/2 instead of 1"),
    _vjp("cumulative-logsumexp-nan-propagates", "forward-value",
         "        low = np.where(element < accumulator, element, accumulator)",
         "        low = np.minimum(element, accumulator)",
         "cumulative_logsumexp's step takes NumPy's minimum, which propagates a NaN element TF's std::min drops",
         file="kernels/reductions.py"),
    _vjp("cumulative-logsumexp-grad-same-direction", "attribute",
         "F.subtract(log_part, ans), axis, exclusive=exclusive, reverse=not reverse)",
         "F.subtract(log_part, ans), axis, exclusive=exclusive, reverse=reverse)",
         "cumulative_logsumexp's gradient scans in the forward direction instead of back"),
    _vjp("global-norm-undoubled", "sign-or-scale",
         "    return sqrt(half_squared_norm * constant(2.0, dtype=half_squared_norm.dtype))",
         "    return sqrt(half_squared_norm)", "global_norm forgets to double L2Loss's half squares",
         file="functions.py"),
    _vjp("float16-sum-in-float32", "large-magnitude", "    if T is _dtypes.float16:\n        total = half_sum(",
         "    if False:\n        total = half_sum(",
         "reduce_sum of float16 adds in float32 and rounds once, where TF rounds each addition (a partial "
         "sum past 65504 is inf, and meets a -inf as NaN)", file="kernels/reductions.py"),
    _vjp("clip-by-global-norm-finite-scale", "special-point", "    scale = scale_for_finite + (use_norm - use_norm)\n",
         "    scale = scale_for_finite\n",
         "clip_by_global_norm with an infinite norm scales by 0 where TF's norm - norm makes every value NaN",
         file="functions.py"),
    # --- the decompositions of issue 24 (linear algebra, 2026-11-28)
    _vjp("eigh-grad-unsymmetrised", "wrong-tensor", "    grad = _band(F.add(grad, F.adjoint(grad)), -1, 0)\n",
         "    grad = _band(F.add(grad, grad), -1, 0)\n",
         "eigh's gradient doubles its lower triangle instead of symmetrising (the upper triangle's share lost)"),
    _vjp("qr-grad-transposed-solve", "attribute", "[r, F.adjoint(x)], lower=False, adjoint=False)",
         "[r, F.adjoint(x)], lower=False, adjoint=True)",
         "qr's gradient solves with R's adjoint where TF solves with R (a transposed triangular solve)"),
    _vjp("svd-grad-f-unsymmetrised", "wrong-tensor", "F.matmul(F.add(f_u, F.adjoint(f_u)), s_matrix)",
         "F.matmul(F.add(f_u, f_u), s_matrix)",
         "svd's gradient doubles F o U^H dU instead of adding its adjoint"),
    _vjp("cross-grad-swapped", "sign-or-scale", 'return F.execute("Cross", [b, g]), F.execute("Cross", [g, a])',
         'return F.execute("Cross", [g, b]), F.execute("Cross", [g, a])',
         "cross's gradient in a crosses in the wrong order (its sign flipped)"),

    # --- tape: eager control flow and gradient utilities (detector: tests/suite/test_control_flow.py)
    _tape("while-loop-drops-last-iteration", "control-flow", "control_flow.py",
          "        loop_vars = body(*loop_vars)\n",
          "        stepped = body(*loop_vars)\n"
          "        if not cond(*stepped):\n"
          "            stepped = nest.pack_sequence_as(stepped, [old + F.stop_gradient(new - old) for old, new in "
          "zip(nest.flatten(loop_vars), nest.flatten(stepped))])\n"
          "        loop_vars = stepped\n",
          "while_loop's last iteration computes the right values but passes no gradient through its own ops "
          "(the gradient is the previous iteration's)"),
    _tape("while-loop-counts-one-more", "control-flow", "control_flow.py", "F.logical_and(i < limit,",
          "F.logical_and(i <= limit,", "while_loop with maximum_iterations runs one iteration more"),
    _tape("cond-runs-untaken-branch", "control-flow", "control_flow.py", "    result = taken()\n",
          "    result = taken()\n    (false_fn if taken is true_fn else true_fn)()\n",
          "cond runs the untaken branch too (its ops run and are recorded; the result is the taken one's)"),
    _tape("cond-differentiates-untaken-branch", "control-flow", "control_flow.py", "    result = taken()\n",
          "    result = taken()\n"
          "    if isinstance(result, Tensor) and result.dtype.is_floating:\n"
          "        result = result + 0.0 * F.reduce_sum(F.convert_to_tensor((false_fn if taken is true_fn else true_fn)()))\n",
          "cond's result depends on the untaken branch too (times zero): a source only that branch reads gets a "
          "zero gradient instead of None, NaNs there spread"),
    _tape("switch-case-clamps-index", "control-flow", "control_flow.py",
          "branches[len(branches) - 1 if index < 0 or index >= len(branches) else index]",
          "branches[min(max(index, 0), len(branches) - 1)]",
          "switch_case clamps an out-of-range index to the nearest branch instead of running the last one"),
    _tape("tensor-array-read-loses-gradient", "control-flow", "tensor_array.py",
          "            self._previously_read.append(index)\n        return tensor",
          "            self._previously_read.append(index)\n        return F.stop_gradient(tensor)",
          "TensorArray.read returns the value without its gradient"),
    _tape("tensor-array-keeps-read-elements", "control-flow", "tensor_array.py", "        if self._clear_after_read:\n",
          "        if False:\n", "TensorArray ignores clear_after_read: an element read stays (a second read succeeds, "
          "stack keeps it instead of zeros)"),
    _tape("identity-n-first-gradient-only", "control-flow", "ops_table.py",
          "defop(\"IdentityN\", None, lambda g, ans, *inputs, **_: list(g),",
          "defop(\"IdentityN\", None, lambda g, ans, *inputs, **_: [g[0]] + [None] * (len(g) - 1),",
          "identity_n passes only its first output's gradient through"),
    _tape("recompute-grad-drops-variable-gradients", "control-flow", "gradient_utils.py",
          "return (grads[:len(inputs)], grads[len(inputs):]), transpose",
          "return (grads[:len(inputs)], [None] * (len(grads) - len(inputs))), transpose",
          "recompute_grad gives the variables its function reads no gradient"),
    _tape("non-persistent-jacobian-traced-twice", "jacobian", "tape.py",
          "        if self._persistent:\n            return\n        if axis is not None:",
          "        if True:\n            return\n        if axis is not None:",
          "a non-persistent tape's vectorized jacobian with no more parallel_iterations than rows returns values "
          "where TF's second trace of the loop body finds the tape spent"),
    _tape("tiled-jacobian-none-converted", "jacobian", "tape.py",
          "if policy is UnconnectedGradients.NONE and not all(connected):",
          "if False and not all(connected):",
          "a vectorized jacobian with no more parallel_iterations than rows returns None for an unconnected source "
          "where TF's loop fails converting that None to a tensor"),
    # --- Pooling and normalisation (issue 24)
    _vjp("max-pool-ties-to-last", "tie-rule", "replace = inside & (~taken | (key < candidate_key))",
         "replace = inside & (~taken | (key <= candidate_key))",
         "max pooling's gradient (and max_pool_with_argmax's index) routes a tied window to its last maximum "
         "instead of the first", file="kernels/pooling.py"),
    _vjp("avg-pool-grad-full-window", "special-point",
         "    counts = np.maximum((index >= 0).sum(axis=1), 1)\n    coefficients",
         "    counts = np.full(index.shape[0], index.shape[1])\n    coefficients",
         "AvgPoolGrad divides by the whole window, padding included, instead of the positions inside the input "
         "(SAME windows at the edges)", file="kernels/pooling.py"),
    _vjp("batch-norm-variance-without-mean-term", "wrong-tensor",
         "cast(offset - mean * inv if offset is not None",
         "cast(offset - mean * stop_gradient(inv) if offset is not None",
         "batch_normalization's variance (and scale) gradient misses the term through the mean: only x's share "
         "of the inverse root is differentiated", file="functions.py"),
    # Convolutions (kernels/convolution.py)
    _vjp("conv-input-gradient-flipped-filter", "wrong-tensor",
         "        padded[where] += windows[..., n, :]",
         "        padded[where] += windows[..., -1 - n, :]",
         "a convolution's input gradient (and a transpose's forward) adds each window's products back through the "
         "filter rotated by 180 degrees: right for a filter of one element or a symmetric one",
         file="kernels/convolution.py"),
    _vjp("conv-same-padding-extra-on-the-left", "attribute",
         "before, after = needed // 2, needed - needed // 2",
         "before, after = needed - needed // 2, needed // 2",
         "SAME padding puts an odd total's extra zero before the input instead of after it (windows off by one at "
         "the right edge): right for VALID, explicit padding and even totals", file="kernels/convolution.py"),
)


def select(pattern: str | None = None) -> list[Mutant]:
    """Mutants whose id, family or class matches the glob `pattern` (comma-separated alternatives)."""
    from fnmatch import fnmatchcase

    if not pattern:
        return list(MUTANTS)
    alternatives = [p.strip() for p in pattern.split(",") if p.strip()]
    return [m for m in MUTANTS if any(fnmatchcase(field, p) for p in alternatives for field in (m.id, m.family, m.cls))]


# Segments and array ops (issue 24)
MUTANTS += (
    _vjp("segment-mean-not-divided", "sign-or-scale", "    return F.gather(F.divide(g, counts), segment_ids)\n",
         "    return F.gather(g, segment_ids)\n",
         "segment_mean's gradient gathers the upstream back without dividing it by the segment's row count"),
    _vjp("segment-extreme-ties-not-shared", "tie-rule",
         "    shared = F.gather(F.divide(g, count), segment_ids)\n", "    shared = F.gather(g, segment_ids)\n",
         "segment_min and segment_max give every tied row the whole upstream instead of an even share"),
    _vjp("roll-gradient-same-way", "sign-or-scale", 'F.execute("Roll", [g], shift=-shift, axis=axis)',
         'F.execute("Roll", [g], shift=shift, axis=axis)',
         "roll's gradient rolls the upstream on the same way instead of back"),
    _vjp("repeat-tiles-the-wrong-axis", "broadcast-reduction",
         "tiled = tile(expand_dims(data, axis + 1), [count if i == axis + 1 else 1 for i in builtins.range(rank + 1)])",
         "tiled = tile(expand_dims(data, axis), [count if i == axis else 1 for i in builtins.range(rank + 1)])",
         "repeat by one count tiles a new axis before the repeated one instead of after it: the copies interleave "
         "(a b a b, not a a b b) and the gradient sums each slice's upstream from the wrong positions",
         file="functions.py"),
)

# Image resizing (kernels/resize.py)
MUTANTS += (
    _vjp("resize-bilinear-grad-legacy-centres", "attribute",
         "    y_lower, y_upper, y_weight = bilinear_weights(resized_height, original_shape[1])\n",
         "    y_centres = np.arange(resized_height, dtype=np.float32) * (np.float32(original_shape[1]) / "
         "np.float32(resized_height))\n"
         "    y_lower = np.floor(y_centres).astype(np.int64)\n"
         "    y_upper = np.minimum(y_lower + 1, original_shape[1] - 1)\n"
         "    y_weight = (y_centres - np.floor(y_centres)).astype(np.float32)\n",
         "ResizeBilinearGrad places the resized rows without half-pixel centres (row i at i * scale, TF 1's legacy "
         "scaler): the forward is right and so is the gradient of a resize that keeps the height",
         file="kernels/resize.py"),
    _vjp("resize-nearest-grad-overwrites", "accumulation",
         "    np.add.at(output, where, grads.astype(dtype))\n",
         "    output[where] = grads.astype(dtype)\n",
         "ResizeNearestNeighborGrad writes each upstream pixel over the others that copied the same input pixel "
         "instead of summing them: right when no input pixel is copied twice (shrinking)",
         file="kernels/resize.py"),
)

# Real FFTs (ops_table.py)
MUTANTS += (
    _vjp("irfft-grad-interior-bins-not-doubled", "sign-or-scale",
         "F.multiply(F.constant(2.0, g.dtype), F.ones([bins - 2 + is_odd], g.dtype))",
         "F.ones([bins - 2 + is_odd], g.dtype)",
         "IRFFT's gradient weighs every bin once: the interior bins, which stand for themselves and their mirror "
         "images in the real signal, are not doubled (right for a spectrum of the DC and Nyquist bins only)"),
    _vjp("rfft-grad-without-nyquist-term", "special-point",
         "        return F.add(first, F.multiply(F.multiply(is_even, last), _alternating(x_shape[-1], g.dtype)))\n",
         "        return first\n",
         "RFFT's gradient drops the Nyquist bin's alternating term: right for odd lengths only"),
)
