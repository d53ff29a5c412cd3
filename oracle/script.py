"""A program printed as a standalone Python script that runs it and prints its outcome as JSON. The
interpreter runs exactly that script with `tf` bound to a backend, so a printed program always
reproduces what the interpreter saw."""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import Any

import numpy as np

from .catalog import call_source
from .outcome import describe, describe_error
from .traced import run_traced
from .statements import (Accumulator, Apply, Assign, Call, Cond, CustomGradient, Jvp, Leaf, ListLiteral, Op, ReadValue,
                         Reset, StopRecording, Structure, Tape, Watch, WatchedVariables, WhileLoop, namedtuple_types)

# Names the generated script itself uses inside or around `_program()` (builtins included): a program
# may not define them. Emitting a new name in the source means adding it here (a test checks).
SCRIPT_NAMES = frozenset({"tf", "np", "json", "collections", "print", "describe", "describe_error", "_outcome",
                          "_program", "_error", "float", "complex", "Exception", "run_traced", "globals", "_outcomes",
                          "_mode", "_traced_body_entered", "grad", "variables"})  # the last two: custom gradients
MODULE_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")

# TensorFlow as the harness's oracle runs (oracle/tensorflow.py): deterministic ops (softmax cross
# entropy's second order with respect to labels, KNOWN_DIVERGENCES 1, depends on it), one thread.
ONE_THREAD = ("tf.config.threading.set_inter_op_parallelism_threads(1)\n"
              "tf.config.threading.set_intra_op_parallelism_threads(1)\n")
ORACLE_CONFIGURATION = "tf.config.experimental.enable_op_determinism()\n" + ONE_THREAD


def body_source(statements: list, outputs: list) -> str:
    """Validated statements as the body of `_program()`, recording into `_outcome`."""
    lines = [f"    {typename} = collections.namedtuple({typename!r}, {list(fields)!r})"
             for typename, fields in namedtuple_types(statements).items()]
    lines += _statements_source(statements, indent=1)
    for name in outputs:
        lines.append(f"    _outcome['values'][{name!r}] = describe({name}, tf)")
    return "def _program():\n" + ("\n".join(lines) if lines else "    pass") + "\n"


def readable_source(statements: list) -> str:
    """Validated statements as a user would write them, for reading: no `_program()` around them, no
    reporting into `_outcome`, no try/except around gradient calls (`g1 = t0.gradient(y1, c1)`). The
    interpreter never runs this text: it runs `body_source`."""
    lines = [f"{typename} = collections.namedtuple({typename!r}, {list(fields)!r})"
             for typename, fields in namedtuple_types(statements).items()]
    lines += _statements_source(statements, indent=0, reported=False)
    return "\n".join(lines) + "\n"


def check_module_name(module: str) -> None:
    if not MODULE_PATTERN.fullmatch(module):
        raise ValueError(f"{module!r} is not a module name")


def script_source(body: str, module: str, deterministic: bool, traced: bool = False) -> str:
    """A standalone script around `body` (see `body_source`) that runs it on `module` and prints its outcome
    as JSON (TF configured as the oracle runs it; with `deterministic` False, on its default kernels). With
    `traced`, it runs the program eagerly and then inside one tf.function (oracle/traced.py), and prints
    both outcomes, as {"eager": ..., "tf.function": ...}."""
    check_module_name(module)
    helpers = "\n\n".join(textwrap.dedent(inspect.getsource(f))
                          for f in (describe, describe_error) + ((run_traced,) if traced else ()))
    oracle = "" if module != "tensorflow" else ORACLE_CONFIGURATION if deterministic else ONE_THREAD
    run = ("_outcomes = {}\nfor _mode in ('eager', 'tf.function'):\n"
           "    _outcome = {'values': {}, 'calls': {}, 'error': None}\n"
           "    try:\n        run_traced(globals()) if _mode == 'tf.function' else _program()\n"
           "    except Exception as _error:\n        _outcome['error'] = describe_error(_error, tf)\n"
           "    _outcomes[_mode] = _outcome\nprint(json.dumps(_outcomes, sort_keys=True))\n") if traced else (
           "try:\n    _program()\nexcept Exception as _error:\n    _outcome['error'] = describe_error(_error, tf)\n"
           "print(json.dumps(_outcome, sort_keys=True))\n")
    return (f"import collections\nimport json\n\nimport numpy as np\nimport {module} as tf\n{oracle}\n{helpers}\n\n"
            f"_outcome = {{'values': {{}}, 'calls': {{}}, 'error': None}}\n\n\n{body}\n\n{run}")


def structure_source(structure: Structure) -> str:
    if isinstance(structure, str):
        return structure
    (kind, items), = structure.items()
    if kind == "list":
        return "[" + ", ".join(structure_source(s) for s in items) + "]"
    if kind == "tuple":
        inner = ", ".join(structure_source(s) for s in items)
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {structure_source(s)}" for k, s in items) + "}"
    if kind == "namedtuple":
        typename, fields = items
        return f"{typename}(" + ", ".join(f"{k}={structure_source(s)}" for k, s in fields) + ")"
    raise ValueError(f"unknown structure kind {kind!r}")


def _float_literal(x: float) -> str:
    return repr(x) if np.isfinite(x) else f"float({str(x)!r})"


def array_literal(value: np.ndarray) -> str:
    """Exact Python source for an array (bfloat16 goes through float32, which holds it exactly)."""
    value = np.asarray(value)
    dtype = "float32" if value.dtype.name == "bfloat16" else value.dtype.name
    flat = value.reshape(-1)
    if value.dtype.kind == "c":
        items = [f"complex({_float_literal(float(z.real))}, {_float_literal(float(z.imag))})" for z in flat]
    elif value.dtype.kind in "biu":
        items = [repr(x) for x in flat.tolist()]
    else:
        items = [_float_literal(float(x)) for x in flat.astype(np.float64)]
    return f"np.array([{', '.join(items)}], dtype={dtype!r}).reshape({list(value.shape)})"


def python_literal(value: np.ndarray) -> str:
    """Exact Python source for an array's elements as Python numbers, nested in lists by its shape."""
    def source(x: Any) -> str:
        if isinstance(x, list):
            return "[" + ", ".join(map(source, x)) + "]"
        if isinstance(x, complex):
            return f"complex({_float_literal(x.real)}, {_float_literal(x.imag)})"
        return _float_literal(x) if isinstance(x, float) else repr(x)

    return source(np.asarray(value).tolist())


def _leaf_source(leaf: Leaf) -> str:
    if leaf.kind == "python":
        return f"{leaf.name} = {python_literal(leaf.value)}"
    literal = array_literal(leaf.value)
    if leaf.kind == "numpy":
        return f"{leaf.name} = {literal}" + ("[()]" if np.ndim(leaf.value) == 0 else "")  # [()]: a NumPy scalar
    if leaf.kind == "variable":
        return (f"{leaf.name} = tf.Variable({literal}, dtype=tf.{leaf.dtype}, trainable={leaf.trainable}, "
                f"name={leaf.name!r})")  # named: watched_variables() and Variable results show which
    return f"{leaf.name} = tf.constant({literal}, dtype=tf.{leaf.dtype})"


def _call_source(call: Call) -> str:
    args = [structure_source(call.target), structure_source(call.sources)]
    if call.output_gradients is not None:
        args.append(f"output_gradients={structure_source(call.output_gradients)}")
    if call.unconnected_form == "string":
        args.append(f"unconnected_gradients={call.unconnected!r}")
    elif call.unconnected_form == "enum":
        args.append(f"unconnected_gradients=tf.UnconnectedGradients.{call.unconnected.upper()}")
    if call.method != "gradient" and not call.use_pfor:
        args.append("experimental_use_pfor=False")
    return f"{call.tape}.{call.method}({', '.join(args)})"


def _jvp_source(jvp: Jvp) -> str:
    unconnected = ", unconnected_gradients=tf.UnconnectedGradients.ZERO" if jvp.unconnected == "zero" else ""
    return f"{jvp.accumulator}.jvp({structure_source(jvp.target)}{unconnected})"


def _statements_source(statements: list, indent: int, reported: bool = True) -> list[str]:
    """Source lines of `statements`; `reported`: each call's result (or exception) recorded in `_outcome`."""
    pad = "    " * indent
    lines: list[str] = []
    for s in statements:
        if isinstance(s, Leaf):
            lines.append(pad + _leaf_source(s))
        elif isinstance(s, Op):
            lines.append(pad + f"{s.name} = " + call_source(s.path, list(s.inputs), dict(s.attrs)))
        elif isinstance(s, ListLiteral):
            lines.append(pad + f"{s.name} = [{', '.join(s.items)}]")
        elif isinstance(s, Watch):
            lines.append(pad + f"{s.tape}.watch([{', '.join(s.names)}])")
        elif isinstance(s, Reset):
            lines.append(pad + f"{s.tape}.reset()")
        elif isinstance(s, Tape):
            lines.append(pad + f"with tf.GradientTape(persistent={s.persistent}, "
                               f"watch_accessed_variables={s.watch_accessed_variables}) as {s.name}:")
            lines += _statements_source(s.body, indent + 1, reported) or [pad + "    pass"]
        elif isinstance(s, StopRecording):
            lines.append(pad + f"with {s.tape}.stop_recording():")
            lines += _statements_source(s.body, indent + 1, reported) or [pad + "    pass"]
        elif isinstance(s, Accumulator):
            lines.append(pad + f"with tf.autodiff.ForwardAccumulator(primals=[{', '.join(s.primals)}], "
                               f"tangents=[{', '.join(s.tangents)}]) as {s.name}:")
            lines += _statements_source(s.body, indent + 1, reported) or [pad + "    pass"]
        elif isinstance(s, Jvp):
            lines += _call_lines(s.name, _jvp_source(s), pad, reported)
        elif isinstance(s, WhileLoop):
            lines.append(pad + f"def {s.name}({s.param}):")
            lines += _statements_source(s.body, indent + 1, reported)
            lines.append(pad + f"    return [{s.result}]")
            lines.append(pad + f"{s.name}, = tf.while_loop(lambda {s.param}: True, {s.name}, [{s.loop_var}], "
                               f"maximum_iterations={s.trips})")
        elif isinstance(s, Cond):
            for branch, body, result in (("true", s.true_body, s.true_result), ("false", s.false_body, s.false_result)):
                lines.append(pad + f"def {s.name}_{branch}():")
                lines += _statements_source(body, indent + 1, reported)
                lines.append(pad + f"    return [{result}]")
            predicate = f"tf.constant({s.predicate})" if s.tensor_predicate else str(s.predicate)
            lines.append(pad + f"{s.name}, = tf.cond({predicate}, {s.name}_true, {s.name}_false)")
        elif isinstance(s, Call):
            lines += _call_lines(s.name, _call_source(s), pad, reported)
        elif isinstance(s, WatchedVariables):
            lines += _call_lines(s.name, f"{s.tape}.watched_variables()", pad, reported)
        elif isinstance(s, CustomGradient):
            lines += _custom_gradient_source(s, pad, reported)
        elif isinstance(s, Apply):
            lines.append(pad + f"{s.name} = {s.function}({', '.join(s.inputs)})")
        elif isinstance(s, Assign):
            lines.append(pad + f"{s.variable}.{s.method}({s.value})")
        elif isinstance(s, ReadValue):
            lines.append(pad + f"{s.name} = {s.variable}.read_value()")
        else:
            raise TypeError(f"not a statement: {s!r}")
    return lines


def _call_lines(name: str, expression: str, pad: str, reported: bool) -> list[str]:
    return _reported_call_source(name, expression, pad) if reported else [pad + f"{name} = {expression}"]


def _reported_call_source(name: str, expression: str, pad: str) -> list[str]:
    """`name = expression`, its result (or exception) reported with the calls."""
    return [pad + "try:",
            pad + f"    {name} = {expression}",
            pad + f"    _outcome['calls'][{name!r}] = describe({name}, tf)",
            pad + "except Exception as _error:",
            pad + f"    _outcome['calls'][{name!r}] = describe_error(_error, tf)"]


def _names_source(names: list) -> str:
    return "[" + ", ".join("None" if n is None else n for n in names) + "]"


def _custom_gradient_source(s: CustomGradient, pad: str, reported: bool = True) -> list[str]:
    extra = {"none": "", "positional": ", variables=None", "keyword": ", *, variables=None"}[s.variables]
    returned = _names_source(s.input_grads)
    if s.variables != "none":
        returned += ", " + _names_source(s.variable_grads)
    inner = pad + "    "
    return ([pad + "@tf.custom_gradient", pad + f"def {s.name}({', '.join(s.params)}):"]
            + _statements_source(s.forward, len(inner) // 4, reported)
            + [inner + f"def grad({s.upstream}{extra}):"]
            + _statements_source(s.backward, len(inner) // 4 + 1, reported)
            + [inner + f"    return {returned}", inner + f"return {s.result}, grad"])
