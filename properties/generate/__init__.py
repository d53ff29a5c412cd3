"""Hypothesis strategies for shapes, dtypes, values and whole programs aimed at gradient paths.

A program is drawn in two parts. Hypothesis draws only its skeleton: dtype, number of ops,
differentiation order and one seed; everything else (which ops, their inputs and attributes, leaf
values, tape options, sources, output gradients) is derived from that seed with NumPy. Generation
therefore costs a handful of Hypothesis draws per program, and shrinking still works: toward
float32, fewer ops, first order, and seed 0. Each op draws from its own seeded stream, so a program
with fewer ops keeps the prefix of the larger one.

Programs are valid by construction (no filtering) and aimed at gradient paths:
- ops form a DAG: each op consumes the unconsumed outputs of earlier ops (the frontier) where it
  can, and the gradient targets are what is left unconsumed, so every op lies on a path to a target;
- sources are chosen among the leaves and intermediates that reach the targets (now and then the
  inputs of a target's own op), plus now and then an unconnected one (an unused leaf, an integer
  leaf) or a target the tape does not hold (an unwatched constant, also a source);
- one program in three is a second- or third-order chain: a gradient computed under an outer tape
  is fed into further ops and differentiated again by that tape; and a persistent tape often
  records its own gradient computation: a gradient taken inside its block feeds one more op, and a
  later call on the same tape differentiates through both (second order through every op); the
  outer tape watches the first call's output gradients and often differentiates by them (the VJP
  of each VJP in its upstream argument), and the fed gradient's source is often the chain's root
  or a leaf at an op's special point;
- output gradients are random (values, zeros, negatives, some elements zero); special points of each op (ties, zeros
  of reduce_prod and cumprod, non-positive bases of pow with a watched exponent, kinks) are planted
  in the leaves it consumes, one of the op's own at one element in half of them, and such a leaf is
  often a source; operands are often the same tensor or of the same shape (fast paths),
  and shapes have size-1 dimensions;
- gradient calls sit inside a tape's `with` block as well as after it; dict and namedtuple sources
  and targets are inserted in unsorted key order, output gradients come in the targets' structure
  (dicts reinserted in another order) or as a flat list in TF's flattening order (which pairs them),
  a target or a source is now and then listed twice, and jacobians take sources of every structure; leaves of another dtype (integers, a float of another
  precision) are consumed by casts and offered as sources; leaves are watched inside stop_recording
  spans and used after them; an op's output is now and then watched after the tape recorded it;
  outputs of ops without a gradient (stop_gradient, round, comparisons) are offered as sources;
  `watched_variables()` follows Variables watched, assigned or read (by a recorded op, or by
  stop_gradient, which TF runs with the tapes paused) newest first; jacobians take an unconnected
  source often; half-precision programs draw composite ops (a mean among them) more often, and their
  inputs come near the dtype's largest values (for float16, a pair of them summing past it along the
  last axis);
  float32 and float64 leaves hold subnormals now and then;
- attributes take TF's other forms: an axis now and then counted from the end, reductions over
  several axes, matmul's operands transposed or adjoint and its second operand a stack of matrices
  (the first broadcasts over it); tensors with an empty dimension go through reductions, softmax,
  scans and transposes as well as elementwise ops (into a jacobian, or set aside from the other ops
  and calls, whose every op otherwise lies on a gradient path); a tape around a level lists its watched
  variables after that level's calls (what the calls read);
- ops receive what TF converts itself: one of an op's fresh constant operands becomes a Python number
  or nested list, or a NumPy scalar or array (its dtype, or float64 for floats), holding the same
  elements; and an op's chain input becomes now and then a Python list of tensors (Variables among
  them, the same tensor twice, a Python literal beside them), which TF packs with a recorded Pack
  (never into embedding_lookup, where a list is a partitioned table); neither is ever a source;
- about one program in five holds a `tf.while_loop` (0 to 3 iterations of one or two bounded
  elementwise ops of its variable, now and then times a constant read from outside the loop), whose
  output joins the frontier; `programs(accumulators=share)` runs that share of the programs inside a
  forward accumulator (`accumulators.py`: the leaves first, one or two of those the ops read as primals,
  jvp calls of op outputs computed from them, inside the block or after it); the forward check's
  campaigns draw every program so, the others none;
- a backend's gaps are never drawn: `programs(lacking=...)` takes what it lacks (oracle/surface.py: ops, tape
  features, op keywords) and leaves each out (an op without an optional keyword is called without it);
- what KNOWN_DIVERGENCES.md explains is avoided, not drawn and excused: softmax cross entropy's
  labels are never a source for a tape that may have recorded a gradient computation (entry 1).

Modules, each importing only the ones before it: `values` (dtypes, shapes, domains, arrays), `builder`
(the state of a program being drawn), `ops` (planning and adding an op), `calls` (gradient and
jacobian calls), `accumulators` (a forward accumulator around a drawn program), `tapes` (tapes,
levels, loops, `programs`, `build_program`). What the generator knows about
each op (amplifying, ill-conditioned, composite, ...) is on its catalog entry (oracle/catalog.py's traits).
"""

from reftape_oracle.catalog import DTYPES

from .calls import METHODS, UNCONNECTED
from .tapes import build_program, programs
from .values import broadcastable_shapes, dtypes, shapes, structured_matrices, values

__all__ = ["DTYPES", "METHODS", "UNCONNECTED", "broadcastable_shapes", "build_program", "dtypes", "programs", "shapes",
           "structured_matrices", "values"]
