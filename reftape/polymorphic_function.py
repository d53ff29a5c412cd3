"""`tf.function`: what a caller can observe of TF's traced functions, modelled without graphs.

A call looks its arguments up among the function's traces, keyed as TF keys them (each tensor's dtype
and shape, each Python value itself, an `input_signature` once). A new key traces: the Python body runs
eagerly while a `_Trace` notes every op it executes and every use of a traced tensor's data outside the
ops (`if x > 0`, which AutoGraph makes a `cond`; an axis or an index read by reftape's own Python). A
later call with the same key replays the noted ops on its own inputs without running Python again, so
Python's side effects happen once per trace; where data read in the trace, or an op's output shape,
differs at the replay, or where the trace did something replay cannot repeat (a random draw), Python
runs again (KNOWN_DIVERGENCES.md).

Whatever ran the body, the call is one op on the tapes recording it, as TF's function call is: its
gradient is the body's gradient with zeros for the outputs that got none, which makes the inputs
connected to any output get zeros rather than None. The tapes also record the body's own ops, which a
gradient computed under an outer tape reads again: gradients of gradients go through the call.
"""

from __future__ import annotations

import dis
import functools
import inspect
import linecache
import sys
import types
from typing import Any, Callable

import numpy as np

from . import functions as F
from . import nest
from . import primitives as _primitives
from .backward import _shape_of, backward
from .errors import OperatorNotAllowedInGraphError
from .primitives import REGISTRY, _execute_any, defop
from .recording import Recording, VariableAccessLog, activate, deactivate, record_operation
from .recording import suspended as _suspended_tapes
from .tensor import EagerTensor, IndexedSlices, TensorShape, convert_to_tensor
from .tensor_spec import TensorSpec
from .thread_state import this_thread
from .variables import ResourceVariable, Variable

SINGLETON_VARIABLES = ("tf.function only supports singleton tf.Variables created on the first call. Make sure the "
                       "tf.Variable is only created once or created outside tf.function. See "
                       "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


class _ValueReads:
    """While a function traces, reads of a tensor's array (`_value`) outside the ops are noted: reftape code
    that makes a Python value or a new tensor of a traced tensor's data (an axis, an index, a mask) then
    guards the trace's replay, which runs Python again where that data differs. The ops' own reads,
    and reads of a shape only, are not noted. The class attributes are swapped in for the trace only."""

    raw = EagerTensor.__dict__["_value"]
    _saved: dict = {}
    _depth = 0

    def __get__(self, tensor: Any, owner: Any = None) -> Any:
        if tensor is None:
            return self
        value = _ValueReads.raw.__get__(tensor, owner)
        tracer = this_thread.state.tracer
        if tracer is not None and _reads_data(sys._getframe(1)):
            tracer.value_read(tensor)
        return value

    def __set__(self, tensor: Any, value: Any) -> None:
        _ValueReads.raw.__set__(tensor, value)

    @classmethod
    def enter(cls) -> None:
        if cls._depth == 0:
            raw = cls.raw
            cls._saved = {name: EagerTensor.__dict__[name] for name in ("_value", "shape", "ndim", "_shape_tuple")}
            EagerTensor._value = cls()
            EagerTensor.shape = property(lambda self: TensorShape(raw.__get__(self).shape))
            EagerTensor.ndim = property(lambda self: raw.__get__(self).ndim)
            EagerTensor._shape_tuple = lambda self: raw.__get__(self).shape
            cls._saved.update({name: EagerTensor.__dict__[name] for name in ("__repr__", "__str__", "__format__")})
            EagerTensor.__repr__ = _symbolic_text(cls._saved["__repr__"], "<tf.Tensor '{name}' shape={shape} dtype={dtype}>")
            EagerTensor.__str__ = _symbolic_text(cls._saved["__str__"], 'Tensor("{name}", shape={shape}, dtype={dtype})')
            EagerTensor.__format__ = _symbolic_format(cls._saved["__format__"])
        cls._depth += 1

    @classmethod
    def exit(cls) -> None:
        cls._depth -= 1
        if cls._depth == 0:
            for name, attribute in cls._saved.items():
                setattr(EagerTensor, name, attribute)


def _symbolic_text(eager: Callable, template: str) -> Callable:
    """A traced tensor prints as TF's symbolic tensors do (its graph name, shape and dtype), without its data."""
    def text(tensor: EagerTensor) -> str:
        tracer = this_thread.state.tracer
        name = None if tracer is None else tracer.symbolic_name(tensor)
        if name is None:
            return eager(tensor)
        return template.format(name=name, shape=tuple(_raw(tensor).shape), dtype=tensor.dtype.name)
    return text


def _symbolic_format(eager: Callable) -> Callable:
    def formatted(tensor: EagerTensor, spec: str) -> str:
        tracer = this_thread.state.tracer
        if spec or tracer is None or tracer.symbolic_name(tensor) is None:
            return eager(tensor, spec)
        return str(tensor)
    return formatted


# The names TF's Python functions give the ops they add to a graph, where they are not the op's type
_OP_NAMES = {"Mul": "mul", "AddV2": "add", "Sub": "sub", "RealDiv": "truediv", "FloorDiv": "floordiv",
             "FloorMod": "mod", "Pow": "pow", "Greater": "Greater", "StridedSlice": "strided_slice",
             "ReadVariableOp": "ReadVariableOp", "Identity": "Identity"}

_SHAPE_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})


def _reads_data(frame: Any) -> bool:
    """Whether the code reading an array uses its data: not an op (nor a kernel it calls), and not an
    expression that reads the array's shape, rank, dtype or size only (`x._value.ndim`)."""
    if _reads_only_shape(frame.f_code, frame.f_lasti):
        return False
    for _ in range(4):
        if frame is None:
            return True
        if frame.f_code in _UNGUARDED:
            return False
        frame = frame.f_back
    return True


@functools.lru_cache(maxsize=None)
def _reads_only_shape(code: types.CodeType, offset: int) -> bool:
    instructions = list(dis.get_instructions(code))
    for here, following in zip(instructions, instructions[1:]):
        if here.offset == offset:
            return following.opname in ("LOAD_ATTR", "LOAD_METHOD") and following.argval in _SHAPE_ATTRIBUTES
    return False


def _codes(*functions: Any) -> frozenset:
    """The code objects of `functions` and of the generator expressions and lambdas inside them."""
    found, work = set(), [f.__code__ for f in functions]
    while work:
        code = work.pop()
        found.add(code)
        work += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return frozenset(found)


def _raw(tensor: EagerTensor) -> np.ndarray:
    return _ValueReads.raw.__get__(tensor)


class _Diverged(Exception):
    """A replay met a value or a shape its trace did not see: Python must run again."""


class _Trace:
    """The ops one run of a function's body executed, in order, with the tensors they read.

    A tensor the body uses is a slot (an input or an op's output, renumbered on replay) or a constant
    (made before the trace, or during it without an op: of Python values, or of data whose reads guard
    the replay). A random draw, or a variable's value read without an op, cannot be replayed."""

    def __init__(self, inputs: list, creates_variables: bool, autograph: bool = True, names: list | None = None) -> None:
        self.autograph = autograph
        self.slots: dict[int, int] = {t._id: i for i, t in enumerate(inputs)}
        self._next_slot = len(inputs)  # slot numbers are never reused (an input passed twice has two)
        self.names: dict[int, str] = {}  # slot -> the name a symbolic tensor prints with
        self._used: dict[str, int] = {}
        for slot, name in enumerate(names or []):
            self.names[slot] = self._unique(name) + ":0"
        self.read_slots: set[int] = set()  # the slots whose data a guard holds already
        self.steps: list[tuple] = []
        self.replayable = True
        self.creates_variables = creates_variables
        self.created_variables = 0
        self.outputs: list = []  # the flat outputs' references
        self.structure: Any = None  # the returned structure
        self.parent: _Trace | None = None  # the trace of the function whose body called this one
        self.overwritten: dict[int, tuple] = {}  # id -> (a Variable this run wrote, its value before)

    # What the hooks of execute, tensors and variables report while the body runs
    def op(self, primitive: Any, inputs: Any, attrs: dict, outputs: tuple) -> None:
        refs = [self._ref(t) for t in inputs]
        traced_attrs = {k: self.slots[v._id] for k, v in attrs.items() if isinstance(v, EagerTensor) and v._id in self.slots}
        name = self._unique(_OP_NAMES.get(primitive.name, primitive.name))
        for index, t in enumerate(outputs):
            self.slots[t._id] = self._next_slot
            self._next_slot += 1
            self.names[self.slots[t._id]] = f"{name}:{index}"
        self.steps.append(("op", primitive, refs, attrs, traced_attrs, [self.slots[t._id] for t in outputs],
                           [_raw(t).shape for t in outputs]))
        if self.parent is not None:
            self.parent.op(primitive, inputs, attrs, outputs)

    def _unique(self, name: str) -> str:
        """Graph names are unique: a name used before takes a number, as TF's do."""
        count = self._used.get(name, 0)
        self._used[name] = count + 1
        return name if count == 0 else f"{name}_{count}"

    def symbolic_name(self, tensor: EagerTensor) -> str | None:
        slot = self.slots.get(tensor._id)
        if slot is not None:
            return self.names.get(slot, "Identity:0")
        return None if self.parent is None else self.parent.symbolic_name(tensor)

    def value_read(self, tensor: EagerTensor) -> None:
        """reftape read a tensor's array outside the ops: a traced tensor's data is guarded."""
        slot = self.slots.get(tensor._id)
        if slot is not None and slot not in self.read_slots:
            self.read_slots.add(slot)
            self.steps.append(("read", slot, "numpy", np.array(_raw(tensor))))
        if self.parent is not None:
            self.parent.value_read(tensor)

    def alias(self, copy: EagerTensor, tensor: EagerTensor) -> None:
        """`copy` holds the value of `tensor` (a nested call's output): the same slot."""
        if tensor._id in self.slots:
            self.slots[copy._id] = self.slots[tensor._id]
        if self.parent is not None:
            self.parent.alias(copy, tensor)

    def read(self, tensor: EagerTensor, kind: str, caller: Any = None) -> None:
        """Python read a tensor's value (a condition, an index, `numpy()`). In user code, a traced tensor's
        `numpy()` fails as a symbolic tensor's does in TF; its `bool`, `int` and `float` fail too unless
        AutoGraph converts the code (to a `cond`, a cast): it converts only code whose source it can read."""
        if caller is None:
            caller = _user_frame()
        if tensor._id in self.slots:
            if caller is not None:
                _refuse_in_graph(kind, self.autograph and _has_source(caller))
            self.steps.append(("read", self.slots[tensor._id], kind, _python_value(tensor, kind)))
        if self.parent is not None:
            self.parent.read(tensor, kind, caller)

    def variable_created(self) -> None:
        if not self.creates_variables:
            raise ValueError(SINGLETON_VARIABLES)
        self.created_variables += 1
        self.replayable = False
        if self.parent is not None:
            self.parent.variable_created()

    def before_write(self, variable: Any) -> None:
        self.overwritten.setdefault(id(variable), (variable, variable._value))
        if self.parent is not None:
            self.parent.before_write(variable)

    def discard_writes(self) -> None:
        """Gives every Variable this run wrote its value before the run: TF never runs the graph of a trace it
        traces again, so what that trace would have written was never written."""
        for variable, value in self.overwritten.values():
            variable._value = value

    def assign(self, variable: Any, value: Any, update: Any, read_value: bool, op: Any) -> None:
        ref = self._ref(value) if isinstance(value, EagerTensor) else ("value", value)
        self.steps.append(("assign", self._ref(variable.handle), ref, update, read_value, op))
        if self.parent is not None:
            self.parent.assign(variable, value, update, read_value, op)

    def variable_call(self, variable: Any, method: Callable, args: tuple) -> Any:
        """A variable's update that is no op (a scatter, a sliced assignment): run now with no trace
        watching, replayed as a whole on the replay's tensors and the variable's value then."""
        self.record_call(variable, method, args)
        state = this_thread.state
        state.tracer = None
        try:
            return method(variable, *args)
        finally:
            state.tracer = self

    def record_call(self, variable: Any, method: Callable, args: tuple) -> None:
        refs = []
        for arg in args:
            if isinstance(arg, EagerTensor):
                refs.append(self._ref(arg))
            else:
                if any(isinstance(leaf, (EagerTensor, Variable, IndexedSlices)) for leaf in nest.flatten(arg)):
                    self.replayable = False  # tensors inside a structure: not replayable as they are
                refs.append(("value", arg))
        self.steps.append(("call", self._ref(variable.handle), method, refs))
        if self.parent is not None:
            self.parent.record_call(variable, method, args)

    def _ref(self, tensor: Any) -> tuple:
        """A tensor the body used: a slot, or a constant. A tensor made without an op holds Python values,
        or data whose reads are guarded (`_ValueReads`): a constant too; what is neither (a random draw, a
        variable's value read without an op) marks the trace as one replay cannot repeat where it is made."""
        slot = self.slots.get(tensor._id)
        return ("value", tensor) if slot is None else ("slot", slot)

    def reference(self, leaf: Any) -> tuple:
        return self._ref(leaf) if isinstance(leaf, EagerTensor) else ("value", leaf)

    # Replay
    def replay(self, inputs: list) -> list:
        """The flat outputs of the traced body on new inputs (of the trace's dtypes and shapes)."""
        assigned = [_looked_up(step[1], inputs)._variable for step in self.steps if step[0] in ("assign", "call")]
        saved = [(v, v._value) for v in assigned]
        try:
            return self._replay(inputs)
        except _Diverged:
            for variable, value in saved:
                variable._value = value
            raise

    def _replay(self, inputs: list) -> list:
        values: dict[int, Any] = dict(enumerate(inputs))
        look_up = lambda ref: values[ref[1]] if ref[0] == "slot" else ref[1]  # noqa: E731
        for step in self.steps:
            if step[0] == "op":
                _, primitive, refs, attrs, traced_attrs, slots, shapes = step
                if primitive.name == "ReadVariableOp":  # the variable's value now (refs: its handle)
                    outputs = (look_up(refs[0])._variable.read_value(),)
                else:
                    if traced_attrs:  # tensors passed as attributes (SelectV2's condition)
                        attrs = {**attrs, **{k: values[slot] for k, slot in traced_attrs.items()}}
                    result = _execute_any(primitive, [look_up(r) for r in refs], attrs)
                    outputs = result if isinstance(result, tuple) else (result,)
                if [_raw(t).shape for t in outputs] != shapes:
                    raise _Diverged()
                values.update(zip(slots, outputs))
            elif step[0] == "read":
                _, slot, kind, seen = step
                if not _same_value(_python_value(values[slot], kind), seen):
                    raise _Diverged()
            elif step[0] == "call":
                _, handle, method, refs = step
                method(look_up(handle)._variable, *[look_up(r) for r in refs])
            else:
                _, handle, value, update, read_value, op = step
                look_up(handle)._variable._assign(look_up(value), update, read_value, op)
        return [look_up(r) for r in self.outputs]


def _looked_up(ref: tuple, inputs: list) -> Any:
    """A reference to an input or a constant (what an assign's handle is), before a replay."""
    return inputs[ref[1]] if ref[0] == "slot" else ref[1]


def _user_frame() -> Any:
    """The frame that read a tensor's value (`read`'s caller's caller), None where it is reftape's own
    code (a `cond` reading its predicate)."""
    frame = sys._getframe(3)
    return None if frame.f_globals.get("__name__", "").startswith("reftape.") else frame


def _has_source(frame: Any) -> bool:
    return bool(linecache.getlines(frame.f_code.co_filename))


def _refuse_in_graph(kind: str, converted: bool) -> None:
    """What TF raises where user code reads a symbolic tensor's value as a Python value."""
    if kind == "numpy":
        raise AttributeError("'SymbolicTensor' object has no attribute 'numpy'")
    if converted:
        return
    if kind == "bool":
        raise OperatorNotAllowedInGraphError("Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.")
    if kind == "int":
        raise TypeError("int() argument must be a string, a bytes-like object or a real number, not 'SymbolicTensor'")
    if kind == "float":
        raise TypeError("float() argument must be a string or a real number, not 'SymbolicTensor'")


def _python_value(tensor: EagerTensor, kind: str) -> Any:
    if kind == "numpy":
        return np.array(_raw(tensor))
    return {"bool": lambda v: bool(v.size > 0 and v), "int": lambda v: int(v[()]), "float": lambda v: float(v[()]),
            "index": lambda v: v[()].__index__()}[kind](_raw(tensor))


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    return a == b or (a != a and b != b)


# ---------------------------------------------------------------------------------------------
# The call as one op on the tapes


def _call_gradient(upstream: list, outputs: tuple, *inputs: Any, body_outputs: list, recording: Recording,
                   **_: Any) -> list:
    """The inputs' gradients: the body's recorded ops differentiated from the outputs (zeros where an
    output got no gradient, filled by the backward pass as for every op that asks it)."""
    targets, seeds = [], []
    for output, seed in zip(body_outputs, upstream):
        if output._dtype._trainable:
            targets.append(output)
            seeds.append(seed)
    grads = backward(recording, targets, list(inputs), seeds)
    seen: set[int] = set()
    for i, t in enumerate(inputs):  # a tensor passed twice: its whole gradient once
        if t._id in seen:
            grads[i] = None
        seen.add(t._id)
    return grads


defop("StatefulPartitionedCall", None, _call_gradient, num_outputs=lambda attrs: None, fills_missing_upstream=True)


def _new_tensors(flat: list) -> list:
    """A call's outputs are tensors of its own, never its inputs or the tensors it captured."""
    state = this_thread.state
    copies = []
    for t in flat:
        if isinstance(t, EagerTensor):
            copy = EagerTensor(_raw(t), t._dtype, t._flushed)
            if state.tracer is not None:
                state.tracer.alias(copy, t)
            t = copy
        copies.append(t)
    return copies


def _run_as_one_op(body: Callable[[], list], inputs: list) -> list:
    """Runs `body` (flat outputs) with the call recorded as one op on the tapes tracking its inputs."""
    state = this_thread.state
    if not state.active:
        return _new_tensors(body())
    recording = Recording(persistent=True, watch_accessed_variables=True)
    for t in inputs:
        if t._dtype._trainable:
            recording.watch(t)
    accessed = VariableAccessLog()
    activate(recording)
    try:
        with accessed:
            flat = body()
    finally:
        deactivate(recording)
    handles = [v.handle for v in accessed.variables if v.handle._id in recording.producer]
    returned = [t for t in flat if isinstance(t, EagerTensor)]
    copies = [EagerTensor(_raw(t), t._dtype, t._flushed) for t in returned]
    if state.tracer is not None:
        for copy, t in zip(copies, returned):
            state.tracer.alias(copy, t)
    record_operation(REGISTRY["StatefulPartitionedCall"], inputs + handles, copies,
                     {"body_outputs": returned, "recording": recording})
    copied = dict(zip(map(id, returned), copies))
    return [copied.get(id(t), t) for t in flat]


# ---------------------------------------------------------------------------------------------
# Keys, signatures, results


def _key(value: Any, relax: bool = False) -> Any:
    """What TF's trace cache keys an argument by."""
    if isinstance(value, EagerTensor):
        shape = tuple(None for _ in value.shape) if relax else tuple(value.shape)
        return ("tensor", value.dtype, shape)
    if isinstance(value, Variable):
        return ("variable", value.dtype, tuple(value.shape))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_key(v, relax) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _key(v, relax)) for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))))
    try:
        hash(value)
    except TypeError:
        return ("object", _Identity(value))
    return ("python", value)


def _matches(key: Any, relaxed: Any) -> bool:
    """Whether a key is an instance of a relaxed key (unknown dimensions match any)."""
    if isinstance(relaxed, tuple) and len(relaxed) == 3 and relaxed[0] == "tensor" and isinstance(key, tuple) \
            and len(key) == 3 and key[0] == "tensor":
        return key[1] == relaxed[1] and len(key[2]) == len(relaxed[2]) and all(
            r is None or r == k for k, r in zip(key[2], relaxed[2]))
    if isinstance(relaxed, tuple) and isinstance(key, tuple) and len(relaxed) == len(key):
        return all(_matches(k, r) for k, r in zip(key, relaxed))
    return key == relaxed


def _bound(python_function: Callable, args: tuple, kwargs: dict) -> tuple:
    """The arguments as the function's parameters take them, defaults included (TF keys its traces so)."""
    try:
        parameters = inspect.signature(python_function)
    except (TypeError, ValueError):
        return args, kwargs  # a callable without a signature: the call raises what Python raises
    try:
        bound = parameters.bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"Binding inputs to tf.function failed due to `{error}`. Received args: {args!r} and "
                        f"kwargs: {kwargs!r} for signature: {_signature_text(parameters)}.") from None
    bound.apply_defaults()
    return nest.map_structure(_numpy_as_tensor, (bound.args, bound.kwargs))


class _CapturedDefault:
    def __repr__(self) -> str:
        return "<captured_default_value>"


def _signature_text(parameters: inspect.Signature) -> str:
    """The parameters as TF's binding errors list them: defaults are not shown."""
    shown = [p if p.default is p.empty else p.replace(default=_CapturedDefault()) for p in parameters.parameters.values()]
    return str(parameters.replace(parameters=shown))


def _modified(before: Any, after: Any) -> bool:
    """Whether a structure of arguments changed while the body ran: its shape, or a leaf (by identity)."""
    if isinstance(before, (list, tuple, dict)) or isinstance(after, (list, tuple, dict)):
        if type(before) is not type(after) or len(before) != len(after):
            return True
        if isinstance(before, dict):
            return set(before) != set(after) or any(_modified(before[k], after[k]) for k in before)
        return any(_modified(b, a) for b, a in zip(before, after))
    return before is not after


def _check_unmodified(python_function: Callable, before: tuple, after: tuple) -> None:
    """TF refuses a body that modified the lists or dicts it was given (their copies: the caller's are intact)."""
    if not _modified(before, after):
        return
    parameters = inspect.signature(python_function)
    old, new = parameters.bind(*before[0], **before[1]).arguments, parameters.bind(*after[0], **after[1]).arguments
    changed = ", ".join(name for name in new if _modified(old[name], new[name]))
    name = getattr(python_function, "__qualname__", getattr(python_function, "__name__", python_function))
    raise ValueError(f"{name}{parameters} should not modify its Python input arguments. Modifying a copy is allowed. "
                     f"The following parameter(s) were modified: {changed}")


def _numpy_as_tensor(value: Any) -> Any:
    """TF traces a NumPy array argument as a tensor."""
    return convert_to_tensor(value) if isinstance(value, np.ndarray) else value


class _Identity:
    """An argument TF keys by identity (an object that is no value): held, so that its id is not reused."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def _input_names(python_function: Callable, arguments: tuple) -> list:
    """The graph names of a call's tensors and variables: their parameter's name (TF's placeholders')."""
    try:
        bound = inspect.signature(python_function).bind(*arguments[0], **arguments[1]).arguments
    except (TypeError, ValueError):
        return []
    return [name for name, value in bound.items() for _ in _trace_inputs(value)]


def _tensor_leaves(structure: Any) -> list:
    return [leaf for leaf in nest.flatten(structure) if isinstance(leaf, EagerTensor)]


def _trace_inputs(structure: Any) -> list:
    """What a trace's slots stand for: the arguments' tensors and their variables' handles."""
    return [leaf.handle if isinstance(leaf, Variable) else leaf for leaf in nest.flatten(structure)
            if isinstance(leaf, (EagerTensor, Variable))]


def _as_result(leaf: Any) -> Any:
    """A returned leaf as TF returns it: None stays, Python values and Variables become tensors."""
    if leaf is None or isinstance(leaf, (EagerTensor, IndexedSlices)):
        return leaf
    return F.identity(leaf) if isinstance(leaf, Variable) else convert_to_tensor(leaf)


def _spec_text(spec: TensorSpec) -> str:
    return repr(TensorSpec(spec.shape, spec.dtype, spec.name))


class _Signature:
    """An `input_signature`: arguments bound to the Python function's parameters and cast to the specs."""

    def __init__(self, python_function: Callable, specs: Any) -> None:
        self._parameters = inspect.signature(python_function)
        self._specs = list(specs)

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        try:
            bound = self._parameters.bind(*args, **kwargs)
            if len(bound.arguments) > len(self._specs):
                raise TypeError("too many positional arguments")
        except TypeError as error:
            raise self._failure(str(error), args, kwargs) from None
        values = []
        for value, spec in zip(bound.arguments.values(), self._specs):
            values.append(self._cast_structure(value, spec, args, kwargs))
        return tuple(values)

    def _cast_structure(self, value: Any, spec: Any, args: tuple, kwargs: dict) -> Any:
        if isinstance(spec, TensorSpec):
            return self._cast(value, spec, args, kwargs)
        specs = nest.flatten(spec)
        values = nest.flatten(value)
        if len(specs) != len(values):
            raise self._failure("the structure of the argument does not match the signature", args, kwargs)
        return nest.pack_sequence_as(spec, [self._cast(v, s, args, kwargs) for v, s in zip(values, specs)])

    def _cast(self, value: Any, spec: TensorSpec, args: tuple, kwargs: dict) -> EagerTensor:
        if isinstance(value, Variable):
            value = value.read_value()
        if isinstance(value, EagerTensor):
            tensor = value
        else:
            try:
                tensor = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError):
                tensor = convert_to_tensor(value)
        if tensor.dtype != spec.dtype or not spec.shape.is_compatible_with(tensor.shape):
            raise self._failure(f"Can not cast {_spec_text(TensorSpec(tensor.shape, tensor.dtype))} to "
                                f"{_spec_text(spec)}", args, kwargs)
        return tensor

    def _failure(self, why: str, args: tuple, kwargs: dict) -> TypeError:
        names = ", ".join(f"{name}: {_spec_text(spec)}" for name, spec in zip(self._parameters.parameters, self._specs))
        return TypeError(f"Binding inputs to tf.function failed due to `{why}`. Received args: {args!r} and kwargs: "
                         f"{kwargs!r} for signature: ({names}).")


# ---------------------------------------------------------------------------------------------
# Function


class _Traced:
    """One key's traces: the first, and any run again because a replay diverged."""

    def __init__(self) -> None:
        self.traces: list[_Trace] = []


class Function:
    """What `tf.function` returns: a callable that traces its Python function once per argument key."""

    def __init__(self, python_function: Callable, input_signature: Any = None, autograph: bool = True,
                 jit_compile: Any = None, reduce_retracing: bool = False, name: str | None = None) -> None:
        self._python_function = python_function
        self._input_signature = input_signature
        self._signature = None if input_signature is None else _Signature(python_function, input_signature)
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._traced: dict[Any, _Traced] = {}
        self._tracing_count = 0
        self._traced_before = False
        self._bound: dict[int, Function] = {}
        functools.update_wrapper(self, python_function)

    python_function = property(lambda self: self._python_function)
    input_signature = property(lambda self: self._input_signature)

    def experimental_get_tracing_count(self) -> int:
        return self._tracing_count

    def __get__(self, instance: Any, owner: Any) -> Any:
        """A method: each instance traces a function of its own, as in TF."""
        if instance is None:
            return self
        bound = self._bound.get(id(instance))
        if bound is None:
            bound = self._bound[id(instance)] = Function(
                self._python_function.__get__(instance, owner), self._input_signature, self._autograph,
                self._jit_compile, self._reduce_retracing)
        return bound

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The function for arguments like these. Tensors trace now; TensorSpecs cannot (this model runs
        Python on values), so their trace waits for the first call."""
        if not any(isinstance(leaf, TensorSpec) for leaf in nest.flatten((args, kwargs))):
            with _suspended_tapes():
                self(*args, **kwargs)
        return ConcreteFunction(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._signature is not None:
            args, kwargs = self._signature.bind(args, kwargs), {}
        else:
            args, kwargs = _bound(self._python_function, args, kwargs)
        arguments = (args, kwargs)
        inputs, slotted = _tensor_leaves(arguments), _trace_inputs(arguments)
        traced = self._traced_for(arguments)
        if traced is None:
            traced = _Traced()
            key = self._new_key(arguments)
            result = self._trace(traced, arguments, inputs, slotted)
            self._traced[key] = traced
            return result
        for trace in traced.traces:
            if trace.replayable:
                marks = _enclosing_marks()
                try:
                    return nest.pack_sequence_as(trace.structure, _run_as_one_op(lambda: trace.replay(slotted), inputs))
                except _Diverged:
                    _forget_since(marks)
                    continue
        return self._trace(traced, arguments, inputs, slotted, counted=False)

    def _traced_for(self, arguments: tuple) -> _Traced | None:
        if self._signature is not None:  # one trace, for the signature's specs
            return self._traced.get("signature")
        key = _key(arguments)
        if key in self._traced:
            return self._traced[key]
        if self._reduce_retracing:
            return next((t for k, t in self._traced.items() if _matches(key, k)), None)
        return None

    def _new_key(self, arguments: tuple) -> Any:
        if self._signature is not None:
            return "signature"
        key = _key(arguments)
        relaxed = _key(arguments, relax=True)
        if self._reduce_retracing and any(_matches(k, relaxed) for k in self._traced):
            return relaxed  # TF's reduce_retracing: a second shape of a rank traces for unknown dimensions
        return key

    def _trace(self, traced: _Traced, arguments: tuple, inputs: list, slotted: list, counted: bool = True) -> Any:
        """Runs the Python function (again, when TF would have traced the first run's variables)."""
        first = not self._traced_before
        trace, result = self._run_python(arguments, inputs, slotted, creates_variables=first)
        self._traced_before = True
        self._tracing_count += counted
        if trace.created_variables:  # TF traces again, and refuses variables made then
            trace.discard_writes()
            trace, result = self._run_python(arguments, inputs, slotted, creates_variables=False)
            self._tracing_count += counted
        traced.traces.append(trace)
        return result

    def _run_python(self, arguments: tuple, inputs: list, slotted: list, creates_variables: bool) -> tuple:
        trace = _Trace(slotted, creates_variables, self._autograph, _input_names(self._python_function, arguments))
        args, kwargs = arguments

        def body() -> list:
            state = this_thread.state
            outer, state.tracer = state.tracer, trace
            trace.parent = outer
            before = nest.map_structure(lambda leaf: leaf, (args, kwargs))  # the structures, copied
            _ValueReads.enter()
            try:
                result = nest.map_structure(_as_result, self._python_function(*args, **kwargs))
            finally:
                state.tracer = outer
                _ValueReads.exit()
            _check_unmodified(self._python_function, before, (args, kwargs))
            trace.structure = result
            flat = nest.flatten(result)
            trace.outputs = [trace.reference(leaf) for leaf in flat]
            return flat

        flat = _run_as_one_op(body, inputs)
        return trace, nest.pack_sequence_as(trace.structure, flat)


def _enclosing_marks() -> list:
    """Where the traces of the functions whose bodies are calling this one stand now."""
    marks, trace = [], this_thread.state.tracer
    while trace is not None:
        marks.append((trace, len(trace.steps)))
        trace = trace.parent
    return marks


def _forget_since(marks: list) -> None:
    """A replay that diverged is undone: the enclosing traces forget what it executed."""
    for trace, length in marks:
        del trace.steps[length:]
        trace.read_slots = {step[1] for step in trace.steps if step[0] == "read" and step[2] == "numpy"}


class ConcreteFunction:
    """What `get_concrete_function` returns: calls go to the function's trace for their arguments."""

    def __init__(self, polymorphic: Function) -> None:
        self._function = polymorphic

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._function(*args, **kwargs)


class init_scope:
    """`tf.init_scope()`: a block lifted out of the functions being traced (its ops run once, now, and are not
    replayed), with every tape paused, as TF's lifts it out of function graphs and stops recording. A Variable
    made there is still the function's: on its first trace only, which TF then traces again."""

    __slots__ = ("_saved", "_tapes")

    def __enter__(self) -> None:
        state = this_thread.state
        self._saved = state.tracer, state.lifted
        state.tracer, state.lifted = None, state.tracer or state.lifted
        self._tapes = _suspended_tapes()
        self._tapes.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._tapes.__exit__(*exc)
        this_thread.state.tracer, this_thread.state.lifted = self._saved


def function(func: Callable | None = None, input_signature: Any = None, autograph: bool = True,
             jit_compile: Any = None, reduce_retracing: bool = False, experimental_implements: Any = None,
             experimental_autograph_options: Any = None, experimental_attributes: Any = None,
             experimental_relax_shapes: Any = None, experimental_compile: Any = None,
             experimental_follow_type_hints: Any = None) -> Any:
    """`tf.function`: a decorator with or without arguments; see the module's docstring."""
    def decorate(f: Callable) -> Function:
        return Function(f, input_signature, autograph, jit_compile, reduce_retracing)
    return decorate if func is None else decorate(func)


# The reads of a tensor's array that are no Python use of its data: the ops' own, and shapes'.
_UNGUARDED = _codes(_primitives.execute, _primitives._execute_any, _primitives._compute_value,
                    _primitives._all_subnormal_free, _shape_of, EagerTensor.__len__, ResourceVariable._assign)
