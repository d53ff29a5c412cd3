"""Programs are validated before anything runs: each bad input gives one ProgramError naming the JSON
path of the offending field; numbers in tensor data have one grammar; no string field of a program
can put code of its own into the generated script."""

import copy
import json
import math
from importlib import resources

import jsonschema
import numpy as np
import pytest

from reftape_oracle import run
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch
from reftape_oracle.script import _statements_source
from reftape_oracle.validation import (MAX_ELEMENTS, MAX_NESTING, MAX_STATEMENTS, SCHEMA_PATH, ProgramError,
                                       format_path, program_schema)
from reftape_oracle.outcome import HarnessError
from reftape_properties.pipeline import evaluate


def tensor(*data, dtype="float32", shape=None):
    return {"kind": "tensor", "dtype": dtype, "shape": [len(data)] if shape is None else shape, "data": list(data)}


def program_data() -> dict:
    """A valid program touching every statement type."""
    return {"statements": [
        {"statement": "Leaf", "name": "x", "kind": "constant", "dtype": "float32", "value": tensor("0.5", "-1.5")},
        {"statement": "Leaf", "name": "w", "kind": "variable", "dtype": "float32", "value": tensor(2, "0x1.8p-1"),
         "trainable": True},
        {"statement": "Tape", "name": "t", "persistent": True, "watch_accessed_variables": True, "body": [
            {"statement": "Watch", "tape": "t", "names": ["x"]},
            {"statement": "Op", "name": "y", "path": "multiply", "inputs": ["x", "w"], "attrs": {}},
            {"statement": "Op", "name": "parts", "path": "unstack", "inputs": ["y"], "attrs": {"axis": 0}},
            {"statement": "StopRecording", "tape": "t", "body": [
                {"statement": "Op", "name": "hidden", "path": "math.sin", "inputs": ["parts[0]"]}]},
            {"statement": "Op", "name": "s", "path": "reduce_sum", "inputs": ["y"], "attrs": {"axis": None}},
            {"statement": "Reset", "tape": "t"},
            {"statement": "Op", "name": "s", "path": "reduce_sum", "inputs": ["y"]},
        ]},
        {"statement": "Call", "name": "g", "tape": "t", "method": "gradient", "target": "s",
         "sources": {"dict": [["first", "x"], ["rest", {"list": ["w"]}]]}, "output_gradients": None,
         "unconnected": "zero", "unconnected_form": "string", "use_pfor": True},
    ], "outputs": ["y", "parts[1]", "hidden"]}


def custom_program_data() -> dict:
    """A valid program touching the statement types of custom gradients and variable updates."""
    data = program_data()
    data["statements"] += [
        {"statement": "CustomGradient", "name": "f", "params": ["a"], "upstream": "up",
         "forward": [{"statement": "Op", "name": "f_y", "path": "math.sin", "inputs": ["a"]}], "result": "f_y",
         "backward": [{"statement": "Op", "name": "f_g", "path": "multiply", "inputs": ["up", "a"]}],
         "input_grads": ["f_g"], "variables": "none", "variable_grads": []},
        {"statement": "Tape", "name": "t2", "body": [
            {"statement": "ReadValue", "name": "r", "variable": "w"},
            {"statement": "Apply", "name": "z", "function": "f", "inputs": ["r"]},
            {"statement": "Assign", "variable": "w", "value": "r", "method": "assign_add"},
            {"statement": "WatchedVariables", "name": "inside", "tape": "t2"}]},
        {"statement": "Call", "name": "h", "tape": "t2", "method": "gradient", "target": "z",
         "sources": {"namedtuple": ["Pair", [["first", "r"], ["second", {"namedtuple": ["Pair", [["first", "w"],
                                                                                          ["second", "x"]]]}]]]}},
        {"statement": "WatchedVariables", "name": "after", "tape": "t2"},
        {"statement": "Leaf", "name": "py", "kind": "python", "dtype": "float64", "value": tensor("0.5", "-0.0",
                                                                                                 dtype="float64")},
        {"statement": "Leaf", "name": "npv", "kind": "numpy", "dtype": "float32",
         "value": tensor("1.5", dtype="float32", shape=[])},
        {"statement": "Tape", "name": "t3", "body": [
            {"statement": "Watch", "tape": "t3", "names": ["x"]},
            {"statement": "ListLiteral", "name": "packed", "items": ["x", "py"]},
            {"statement": "Op", "name": "q", "path": "multiply", "inputs": ["packed", "npv"]}]},
        {"statement": "Call", "name": "k", "tape": "t3", "method": "gradient", "target": "q", "sources": "x"},
        {"statement": "Accumulator", "name": "a4", "primals": ["x"], "tangents": ["npv"], "body": [
            {"statement": "Op", "name": "s", "path": "math.sin", "inputs": ["x"]},
            {"statement": "Jvp", "name": "inner", "accumulator": "a4", "target": "s"}]},
        {"statement": "Jvp", "name": "j", "accumulator": "a4", "target": {"list": ["s", "q"]}, "unconnected": "zero"},
        {"statement": "WhileLoop", "name": "w5", "loop_var": "q", "param": "p", "trips": 2, "body": [
            {"statement": "Op", "name": "p_sin", "path": "math.sin", "inputs": ["p"]},
            {"statement": "Op", "name": "p_next", "path": "multiply", "inputs": ["p_sin", "x"]}], "result": "p_next"},
    ]
    data["outputs"].append("z")
    return data


ACCUMULATOR = lambda d: d["statements"][-3]  # noqa: E731
JVP = lambda d: d["statements"][-2]  # noqa: E731
LOOP = lambda d: d["statements"][-1]  # noqa: E731


@pytest.mark.parametrize("change, where, message", [
    (lambda d: ACCUMULATOR(d).__setitem__("tangents", []), "tangents", "one tangent per primal"),
    (lambda d: ACCUMULATOR(d).__setitem__("primals", ["j"]), "primals[0]", "not defined before"),
    (lambda d: JVP(d).__setitem__("accumulator", "t3"), "accumulator", "is a tape, not a accumulator"),
    (lambda d: JVP(d).__setitem__("target", "nowhere"), "target", "not defined before"),
    (lambda d: ACCUMULATOR(d).__setitem__("name", "t2"), "name", "already defined as a tape"),
    (lambda d: JVP(d).__setitem__("unconnected", "zeros"), "unconnected", "zeros"),
    (lambda d: LOOP(d).__setitem__("trips", 9), "trips", "maximum of 8"),
    (lambda d: LOOP(d).__setitem__("trips", True), "trips", "integer"),
    (lambda d: LOOP(d).__setitem__("result", "nowhere"), "result", "not defined before"),
    (lambda d: LOOP(d)["body"].append({"statement": "Leaf", "name": "c", "kind": "constant", "dtype": "float32",
                                       "value": tensor("1", dtype="float32", shape=[])}), "body[2]", "Op statements"),
    (lambda d: d["outputs"].append("p_sin"), "outputs", "'p_sin' is not defined"),
    (lambda d: LOOP(d).__setitem__("loop_var", "p"), "loop_var", "not defined before"),
])
def test_an_accumulator_its_jvps_and_a_loop_are_checked(change, where, message):
    error = rejected(custom_mutated(change))
    assert where in str(error) and message in str(error)


def cond_program_data() -> dict:
    """`custom_program_data` and a cond after it: a Python-bool predicate, a branch of one op and one returning a
    name from outside."""
    data = custom_program_data()
    data["statements"].append({"statement": "Cond", "name": "k6", "predicate": True, "tensor_predicate": False,
                               "true_body": [{"statement": "Op", "name": "k_sin", "path": "math.sin", "inputs": ["q"]}],
                               "true_result": "k_sin", "false_body": [], "false_result": "x"})
    data["outputs"].append("k6")
    return data


COND = lambda d: d["statements"][-1]  # noqa: E731


@pytest.mark.parametrize("change, where, message", [
    (lambda d: COND(d).__setitem__("predicate", "yes"), "predicate", "not of type 'boolean'"),
    (lambda d: COND(d).__setitem__("false_result", "k_sin"), "false_result", "'k_sin' is not defined"),
    (lambda d: d["outputs"].append("k_sin"), "outputs", "'k_sin' is not defined"),
    (lambda d: COND(d)["true_body"].append({"statement": "Watch", "tape": "t3", "names": ["x"]}), "true_body[1]",
     "Op statements"),
    (lambda d: d["statements"].append({"statement": "Op", "name": "k6_false", "path": "math.sin", "inputs": ["x"]}),
     f"statements[{len(cond_program_data()['statements']) - 1}].name", "branch function"),
])
def test_a_cond_is_checked(change, where, message):
    data = cond_program_data()
    Program.from_dict(copy.deepcopy(data))   # valid as it is
    change(data)
    error = rejected(data)
    assert where in error.path and message in str(error), str(error)


def rejected(data: dict) -> ProgramError:
    with pytest.raises(ProgramError) as caught:
        Program.from_dict(data)
    return caught.value


def mutated(change) -> dict:
    data = copy.deepcopy(program_data())
    change(data)
    return data


TAPE = lambda d: d["statements"][2]  # noqa: E731
BODY = lambda d: d["statements"][2]["body"]  # noqa: E731
CALL = lambda d: d["statements"][3]  # noqa: E731


def _nested_tapes(depth: int) -> dict:
    statement = {"statement": "Op", "name": "z", "path": "math.sin", "inputs": ["x"]}
    for level in range(depth):
        statement = {"statement": "Tape", "name": f"t{level}", "body": [statement]}
    return statement


def _nested_structure(depth: int):
    structure = "x"
    for _ in range(depth):
        structure = {"list": [structure]}
    return structure


BAD_INPUTS = {
    "typo in an input name": (lambda d: BODY(d)[1]["inputs"].__setitem__(1, "ww"),
                              "statements[2].body[1].inputs[1]", "'ww' is not defined"),
    "method hessian": (lambda d: CALL(d).__setitem__("method", "hessian"), "statements[3].method", "'hessian'"),
    "persistent 'yes'": (lambda d: TAPE(d).__setitem__("persistent", "yes"), "statements[2].persistent",
                         "boolean"),
    "use_pfor 1": (lambda d: CALL(d).__setitem__("use_pfor", 1), "statements[3].use_pfor", "boolean"),
    "unconnected 'some'": (lambda d: CALL(d).__setitem__("unconnected", "some"), "statements[3].unconnected",
                           "'some'"),
    "zero with the argument omitted": (lambda d: CALL(d).__setitem__("unconnected_form", "default"),
                                       "statements[3].unconnected_form", "'default' omits the argument"),
    "unknown op": (lambda d: BODY(d)[1].__setitem__("path", "math.frobnicate"), "statements[2].body[1].path",
                   "unknown op 'math.frobnicate'"),
    "undeclared attribute": (lambda d: BODY(d)[1]["attrs"].__setitem__("axis", 0), "statements[2].body[1].attrs.axis",
                             "multiply has no attribute 'axis'"),
    "attribute of the wrong type": (lambda d: BODY(d)[2]["attrs"].__setitem__("axis", "0"),
                                    "statements[2].body[2].attrs.axis", "expected int"),
    "wrong arity": (lambda d: BODY(d)[1]["inputs"].append("x"), "statements[2].body[1].inputs",
                    "multiply takes 2 input(s), got 3"),
    "use before definition": (lambda d: BODY(d).insert(0, {"statement": "Op", "name": "early", "path": "math.sin",
                                                           "inputs": ["y"]}),
                              "statements[2].body[0].inputs[0]", "'y' is not defined"),
    "an op's own name as input": (lambda d: BODY(d)[1]["inputs"].__setitem__(0, "y"),
                                  "statements[2].body[1].inputs[0]", "'y' is not defined"),
    "undefined tape": (lambda d: BODY(d)[0].__setitem__("tape", "u"), "statements[2].body[0].tape",
                       "'u' is not defined"),
    "reset outside its tape": (lambda d: d["statements"].append({"statement": "Reset", "tape": "t"}),
                               "statements[4].tape", "tape 't' is not recording here"),
    "stop_recording inside its own span": (lambda d: BODY(d)[3]["body"].append(
        {"statement": "StopRecording", "tape": "t", "body": []}), "statements[2].body[3].body[1].tape",
        "not recording here"),
    "a tensor used as a tape": (lambda d: CALL(d).__setitem__("tape", "x"), "statements[3].tape",
                                "'x' is a tensor, not a tape"),
    "a tape used as a tensor": (lambda d: BODY(d)[1]["inputs"].__setitem__(0, "t"),
                                "statements[2].body[1].inputs[0]", "'t' is a tape, not a tensor"),
    "a keyword as a name": (lambda d: BODY(d)[1].__setitem__("name", "lambda"), "statements[2].body[1].name",
                            "'lambda' is reserved"),
    "a name the script uses": (lambda d: BODY(d)[1].__setitem__("name", "tf"), "statements[2].body[1].name",
                               "'tf' is reserved"),
    "a builtin the script uses": (lambda d: BODY(d)[1].__setitem__("name", "float"), "statements[2].body[1].name",
                                  "'float' is reserved"),
    "a negative element index": (lambda d: d["outputs"].append("parts[-1]"), "outputs[3]", "does not match"),
    "undefined output": (lambda d: d["outputs"].append("nowhere"), "outputs[3]", "'nowhere' is not defined"),
    "duplicate dict key": (lambda d: CALL(d)["sources"]["dict"].append(["first", "w"]),
                           "statements[3].sources.dict[2][0]", "duplicate key 'first'"),
    "structure nested too deep": (lambda d: CALL(d).__setitem__("sources", _nested_structure(17)),
                                  "statements[3].sources" + ".list[0]" * 16, "nested more than 16 deep"),
    "unexpected field": (lambda d: CALL(d).__setitem__("hessian", True), "statements[3]",
                         "'hessian' was unexpected"),
    "unknown statement": (lambda d: d["statements"].append({"statement": "Exec", "code": "1"}),
                          "statements[4].statement",
                          "'Exec' is not one of"),
    "25 nested tapes": (lambda d: d["statements"].append(_nested_tapes(25)),
                        "statements[4]" + ".body[0]" * MAX_NESTING + ".body",
                        f"nested more than {MAX_NESTING} deep"),
    "too few data elements": (lambda d: d["statements"][0]["value"].__setitem__("data", ["1"]),
                              "statements[0].value.data", "1 elements for shape [2] (2 expected)"),
    "a float in integer data": (lambda d: d["statements"].insert(0, {
        "statement": "Leaf", "name": "i", "kind": "constant", "dtype": "int32", "value": tensor(1.5, dtype="int32")}),
        "statements[0].value.data[0]", "expected an integer in the range of int32"),
    "Infinity": (lambda d: d["statements"][0]["value"]["data"].__setitem__(0, "Infinity"),
                 "statements[0].value.data[0]", "'Infinity' is not a number"),
    "hex without an exponent": (lambda d: d["statements"][0]["value"]["data"].__setitem__(0, "0x1.8"),
                                "statements[0].value.data[0]", "float.hex form"),
    "an unknown dtype": (lambda d: d["statements"][0].__setitem__("dtype", "float128"), "statements[0].dtype",
                         "'float128' is not one of"),
}


def test_the_valid_program_loads_runs_and_round_trips():
    program = Program.from_dict(program_data())
    assert Program.from_json(program.to_json()).to_json() == program.to_json()
    outcome = run(program, "reftape")
    assert outcome.error is None and set(outcome.calls) == {"g"} and set(outcome.values) == {"y", "parts[1]", "hidden"}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_each_bad_input_names_its_json_path(name):
    change, path, message = BAD_INPUTS[name]
    error = rejected(mutated(change))
    assert error.path == path, str(error)
    assert message in str(error) and "\n" not in str(error)


def test_the_script_uses_no_name_beyond_the_reserved_ones_and_the_programs_own():
    import ast

    from reftape_oracle.script import SCRIPT_NAMES
    from reftape_oracle.statements import namedtuple_types, walk

    program = Program.from_dict(custom_program_data())
    program.statements += [Leaf("special", "constant", np.array([math.nan, -math.inf], np.float64), "float64"),
                           Leaf("z", "constant", np.array([complex(1, math.inf)], np.complex64), "complex64"),
                           Tape("u", [Op("m", "einsum", ["x", "w"], {"equation": "ij,jk->ik"}),
                                      Op("c", "where", ["x", "w"]), Op("k", "cast", ["x"], {"dtype": "float64"}),
                                      Op("a", "add_n", ["x", "w"])]),
                           Call("j", "u", "jacobian", "m", {"tuple": ["x"]}, unconnected="zero",
                                unconnected_form="enum", use_pfor=False)]
    defined = {name for s in walk(program.statements)
               for name in [getattr(s, "name", None), getattr(s, "upstream", None), getattr(s, "param", None),
                            *getattr(s, "params", [])] if name}
    defined |= set(namedtuple_types(program.statements))
    used = {node.id for node in ast.walk(ast.parse(program.body_source())) if isinstance(node, ast.Name)}
    assert used - defined <= SCRIPT_NAMES, used - defined - SCRIPT_NAMES


def test_three_thousand_deep_nesting_is_one_line_not_a_recursion_error():
    text = ('{"statements": [' + '{"statement": "Tape", "name": "t", "body": [' * 3000 + "]}" * 3000 + "]}")
    with pytest.raises(ProgramError, match="nested too deeply") as caught:
        Program.from_json(text)
    assert "\n" not in str(caught.value)
    deep = {"statements": [_nested_tapes(3000)]}  # already parsed: the depth check does not recurse
    assert "nested more than" in str(rejected(deep))
    built = Program([Tape("t", [])])
    for level in range(3000):
        built = Program([Tape(f"t{level}", built.statements)])
    with pytest.raises(ProgramError, match=f"nested more than {MAX_NESTING} deep"):
        built.validate()


def test_size_limits_are_resource_errors():
    many = [Leaf(f"x{i}", "constant", np.zeros(1, np.float32), "float32") for i in range(MAX_STATEMENTS + 1)]
    with pytest.raises(ProgramError, match="program too large: more than 10,000 statements"):
        Program(many).validate()
    big = [Leaf("x", "constant", np.zeros(MAX_ELEMENTS + 1, np.float32), "float32")]
    with pytest.raises(ProgramError, match="program too large"):
        Program(big).validate()
    data = {"statements": [{"statement": "Leaf", "name": "x", "kind": "constant", "dtype": "float32",
                            "value": tensor(shape=[100000, 100000])}]}
    assert "10,000,000,000 elements" in str(rejected(data))


def test_a_program_too_large_to_read_is_a_resource_error(monkeypatch, tmp_path, capsys):
    from reftape_oracle import validation
    from reftape_reports.commands import reftape_replay as replay

    text = json.dumps(program_data())
    monkeypatch.setattr(validation, "MAX_JSON_BYTES", len(text) - 1)
    with pytest.raises(ProgramError, match="program too large"):
        Program.from_json(text)
    (tmp_path / "p.json").write_text(text)
    assert replay.main([str(tmp_path / "p.json")]) == 2
    assert "program too large" in capsys.readouterr().err


def test_json_constants_nan_and_infinity_are_rejected():
    text = json.dumps(program_data()).replace('"0.5"', "NaN")
    with pytest.raises(ProgramError, match="NaN is not JSON"):
        Program.from_json(text)


# -- Values ----------------------------------------------------------------------------------------


def leaf_value(*data, dtype="float32") -> np.ndarray:
    program = Program.from_dict({"statements": [{"statement": "Leaf", "name": "x", "kind": "constant",
                                                 "dtype": dtype, "value": tensor(*data, dtype=dtype)}]})
    return program.statements[0].value


def test_decimal_strings_and_json_numbers_mean_decimal():
    assert leaf_value("0.5", 0.5, 2, "1e-3", dtype="float64").tolist() == [0.5, 0.5, 2.0, 0.001]
    assert leaf_value("0.1").tolist() == [np.float32(0.1)]  # nearest float32 of the decimal 0.1


def test_hexadecimal_floats_are_recognised_by_the_float_hex_form():
    assert leaf_value("0x1.8p-1", "-0x1.0000000000000p+1", dtype="float64").tolist() == [0.75, -2.0]


def test_special_values_have_one_spelling_each():
    value = leaf_value("inf", "-inf", "nan", "-0.0", dtype="float64")
    assert value[0] == math.inf and value[1] == -math.inf and math.isnan(value[2])
    assert value[3] == 0.0 and math.copysign(1.0, value[3]) == -1.0
    for spelling in ("Infinity", "+inf", "INF", "NaN", "-nan", "1e400"):
        with pytest.raises(ProgramError, match="is not a number"):
            leaf_value(spelling)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_the_printed_program_round_trips_bit_exactly(dtype):
    values = ["0.1", "-0.0", "inf", "-inf", "nan", "0x1.0p-24", 65504, "1e-8"]
    original = leaf_value(*values, dtype=dtype)
    again = Program.from_json(Program([Leaf("x", "constant", original, dtype)]).to_json()).statements[0].value
    assert again.dtype == original.dtype and again.tobytes() == original.tobytes()


def test_complex_values_round_trip_bit_exactly():
    original = np.array([complex(0.1, -0.0), complex(math.inf, math.nan)], np.complex64)
    again = Program.from_json(Program([Leaf("z", "constant", original, "complex64")]).to_json()).statements[0].value
    assert again.tobytes() == original.tobytes()


# -- Programs built in code -------------------------------------------------------------------------


BUILT = Program([Leaf("x", "constant", np.array([0.5], np.float32), "float32"),
                 Tape("t", [Watch("t", ["x"]), Op("y", "math.sin", ["x"])]),
                 Call("g", "t", "hessian", "y", "x")])


def test_a_program_built_in_code_is_validated_before_it_prints_or_runs():
    with pytest.raises(ProgramError, match=r"statements\[2\].method: 'hessian'"):
        BUILT.to_source()
    outcome = run(BUILT, "reftape")
    assert outcome.error["kind"] == "harness" and "invalid program: statements[2].method" in outcome.error["message"]
    assert not outcome.calls and not outcome.values


def test_an_invalid_program_is_a_harness_error_never_an_agreement():
    with pytest.raises(HarnessError, match="invalid program"):
        evaluate(BUILT, "reftape", "reftape")


# -- Injection ----------------------------------------------------------------------------------------


def _payload(marker) -> str:
    """Valid Python wherever a bare name or path is pasted: creates `marker` if it ever runs."""
    return f"x; __import__('pathlib').Path({str(marker)!r}).touch(); x"


def _set(path: tuple, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


STRING_FIELDS = {
    "Leaf.name": ("statements", 0, "name"), "Leaf.kind": ("statements", 0, "kind"),
    "Leaf.dtype": ("statements", 0, "dtype"), "Leaf.value.dtype": ("statements", 0, "value", "dtype"),
    "Leaf.value.data": ("statements", 0, "value", "data", 0), "Leaf.trainable": ("statements", 1, "trainable"),
    "Tape.name": ("statements", 2, "name"), "Tape.persistent": ("statements", 2, "persistent"),
    "Tape.watch_accessed_variables": ("statements", 2, "watch_accessed_variables"),
    "Watch.tape": ("statements", 2, "body", 0, "tape"), "Watch.names": ("statements", 2, "body", 0, "names", 0),
    "Op.name": ("statements", 2, "body", 1, "name"), "Op.path": ("statements", 2, "body", 1, "path"),
    "Op.inputs": ("statements", 2, "body", 1, "inputs", 0),
    "Op.attrs value": ("statements", 2, "body", 2, "attrs", "axis"),
    "StopRecording.tape": ("statements", 2, "body", 3, "tape"),
    "Call.name": ("statements", 3, "name"), "Call.tape": ("statements", 3, "tape"),
    "Call.method": ("statements", 3, "method"), "Call.target": ("statements", 3, "target"),
    "Call.sources": ("statements", 3, "sources"), "Call.sources dict key": ("statements", 3, "sources", "dict", 0, 0),
    "Call.output_gradients": ("statements", 3, "output_gradients"),
    "Call.unconnected": ("statements", 3, "unconnected"),
    "Call.unconnected_form": ("statements", 3, "unconnected_form"), "Call.use_pfor": ("statements", 3, "use_pfor"),
    "Reset.tape": ("statements", 2, "body", 5, "tape"), "outputs": ("outputs", 0),
}


def _attribute_key_payload(marker):
    def change(data):
        data["statements"][2]["body"][2]["attrs"] = {_payload(marker): 0}
    return change


def _cast_dtype_payload(marker):
    def change(data):
        data["statements"][2]["body"][1] = {"statement": "Op", "name": "y", "path": "cast", "inputs": ["x"],
                                            "attrs": {"dtype": _payload(marker)}}
    return change


def _injections(marker) -> dict:
    cases = {field: _set(path, _payload(marker)) for field, path in STRING_FIELDS.items()}
    cases["Op.attrs key"] = _attribute_key_payload(marker)
    cases["Op.attrs dtype value"] = _cast_dtype_payload(marker)
    return cases


def test_the_payload_would_run_if_it_reached_the_source(tmp_path):
    """The injection test has teeth: pasted unvalidated, the payload creates its file."""
    marker = tmp_path / "created"
    source = "\n".join(_statements_source([Op(_payload(marker), "math.sin", ["x"])], 0))
    exec(source, {"x": 1.0, "tf": type("tf", (), {"math": math})})
    assert marker.exists()


INJECTION_PATHS = {**{field: format_path(path) for field, path in STRING_FIELDS.items()},
                   "Op.attrs key": "statements[2].body[2].attrs", "Op.attrs dtype value": "statements[2].body[1].attrs.dtype"}


@pytest.mark.parametrize("field", sorted(INJECTION_PATHS))
def test_injection_through_any_string_field_runs_nothing(field, tmp_path):
    marker = tmp_path / "created"
    with pytest.raises(ProgramError) as caught:
        Program.from_dict(mutated(_injections(marker)[field]))
    assert caught.value.path == INJECTION_PATHS[field] and not marker.exists()


def _set_in_code(program: Program, path: tuple, value) -> None:
    """Sets the field at a JSON path on the program's objects (attributes of statements, items of
    lists and dicts), bypassing every check."""
    target = program
    for part in path[:-1]:
        target = target[part] if isinstance(target, (list, dict)) else getattr(target, part)
    if isinstance(target, (list, dict)):
        target[path[-1]] = value
    else:
        setattr(target, path[-1], value)


@pytest.mark.parametrize("field", sorted(f for f in STRING_FIELDS if not f.startswith("Leaf.value")))
def test_injection_into_a_program_built_in_code_runs_nothing(field, tmp_path):
    marker = tmp_path / "created"
    program = Program.from_dict(program_data())
    _set_in_code(program, STRING_FIELDS[field], _payload(marker))
    with pytest.raises(ProgramError) as caught:
        program.to_source()
    assert caught.value.path == format_path(STRING_FIELDS[field])
    outcome = run(program, "reftape")
    assert outcome.error["kind"] == "harness" and "invalid program" in outcome.error["message"]
    assert not marker.exists()


# -- The published schema ------------------------------------------------------------------------------


def test_the_published_schema_is_generated_from_the_field_table():
    published = json.loads(SCHEMA_PATH.read_text())
    assert published == program_schema(), ("oracle/program.schema.json is stale: run "
                                           "python -c 'from reftape_oracle.validation import write_schema; "
                                           "write_schema()'")
    jsonschema.Draft202012Validator.check_schema(published)
    assert (resources.files("reftape_oracle") / "program.schema.json").is_file()  # installed as package data


def test_the_schema_accepts_the_example_and_rejects_a_bad_method():
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    example = json.loads((SCHEMA_PATH.parents[1] / "examples" / "matvec_relu.json").read_text())
    assert not list(validator.iter_errors(example))
    assert list(validator.iter_errors(mutated(lambda d: CALL(d).__setitem__("method", "hessian"))))
    assert not list(validator.iter_errors(program_data()))
    assert not list(validator.iter_errors(custom_program_data()))


def test_every_statement_type_has_an_entry_and_appears_in_the_valid_program():
    from reftape_oracle.program import STATEMENTS, walk
    from reftape_oracle.validation import FIELDS

    assert set(FIELDS) == set(STATEMENTS)
    used = {type(s).__name__ for s in walk(Program.from_dict(cond_program_data()).statements)}
    assert used == set(STATEMENTS)


CUSTOM = lambda d: d["statements"][4]  # noqa: E731
APPLY = lambda d: d["statements"][5]["body"][1]  # noqa: E731


def custom_mutated(change) -> dict:
    data = custom_program_data()
    change(data)
    return data


@pytest.mark.parametrize("change,path,message", [
    (lambda d: d["outputs"].append("f_y"), "outputs[4]", "'f_y' is not defined"),           # local to f
    (lambda d: d["outputs"].append("up"), "outputs[4]", "'up' is not defined"),
    (lambda d: CUSTOM(d)["backward"][0]["inputs"].__setitem__(0, "nowhere"),
     "statements[4].backward[0].inputs[0]", "'nowhere' is not defined"),
    (lambda d: CUSTOM(d)["input_grads"].append(None), "statements[4].input_grads", "one gradient per entry"),
    (lambda d: CUSTOM(d)["forward"].append({"statement": "Tape", "name": "tt", "body": []}),
     "statements[4].forward[1]", "Op, Assign, ReadValue"),
    (lambda d: APPLY(d)["inputs"].append("r"), "statements[5].body[1].inputs", "takes 1 argument"),
    (lambda d: APPLY(d).__setitem__("function", "g"), "statements[5].body[1].function", "is a tensor, not a function"),
    (lambda d: d["statements"][5]["body"][2].__setitem__("method", "assign_mul"),
     "statements[5].body[2].method", "is not one of"),
    (lambda d: d["statements"][8].__setitem__("dtype", "float32"), "statements[8].dtype", "a Python leaf is of dtype"),
    (lambda d: d["statements"][8]["value"].__setitem__("dtype", "float32"), "statements[8].value",
     "a python leaf's value is of its dtype 'float64', not 'float32'"),
    (lambda d: d["statements"][9].update(dtype="bfloat16", value=tensor("1.5", dtype="bfloat16", shape=[])),
     "statements[9].dtype", "a NumPy leaf cannot be bfloat16"),
    (lambda d: d["statements"][9].__setitem__("kind", "literal"), "statements[9].kind", "is not one of"),
    (lambda d: d["statements"][10]["body"][1].__setitem__("items", []), "statements[10].body[1].items",
     "should be non-empty"),
    (lambda d: d["statements"][10]["body"][1]["items"].append("q"), "statements[10].body[1].items[2]",
     "'q' is not defined"),
    (lambda d: d["statements"][10]["body"][1]["items"].append("t3"), "statements[10].body[1].items[2]",
     "'t3' is a tape, not a tensor"),
])
def test_custom_gradients_and_variable_updates_are_validated(change, path, message):
    error = rejected(custom_mutated(change))
    assert error.path.startswith(path) and message in str(error), str(error)


NAMEDTUPLE_CALL = lambda d: d["statements"][6]  # noqa: E731


def _namedtuple_sources(spec):
    return lambda d: NAMEDTUPLE_CALL(d).__setitem__("sources", {"namedtuple": spec})


@pytest.mark.parametrize("change,path,message", [
    (_namedtuple_sources(["class", [["a", "x"]]]), "statements[6].sources.namedtuple[0]", "'class' is reserved"),
    (_namedtuple_sources(["Pair-2", [["a", "x"]]]), "statements[6].sources.namedtuple[0]", "is not a name"),
    (_namedtuple_sources(["tf", [["a", "x"]]]), "statements[6].sources.namedtuple[0]", "'tf' is reserved"),
    (_namedtuple_sources(["x", [["a", "w"]]]), "statements[6].sources.namedtuple[0]",
     "namedtuple type 'x' is also a name the program defines"),
    (_namedtuple_sources(["P", [["_a", "x"]]]), "statements[6].sources.namedtuple[1][0][0]",
     "'_a' is not a namedtuple field"),
    (_namedtuple_sources(["P", [["lambda", "x"]]]), "statements[6].sources.namedtuple[1][0][0]",
     "'lambda' is not a namedtuple field"),
    (_namedtuple_sources(["P", [["a", "x"], ["a", "w"]]]), "statements[6].sources.namedtuple[1][1][0]",
     "duplicate field 'a'"),
    (_namedtuple_sources(["P", [["a"]]]), "statements[6].sources.namedtuple[1][0]", "expected a [field, structure] pair"),
    (_namedtuple_sources(["P"]), "statements[6].sources.namedtuple", "expected [typename, [[field, structure], ...]]"),
    (_namedtuple_sources(["P", [["a", "nowhere"]]]), "statements[6].sources.namedtuple[1][0][1]",
     "'nowhere' is not defined"),
    (lambda d: NAMEDTUPLE_CALL(d)["sources"]["namedtuple"][1][1][1]["namedtuple"][1][1].__setitem__(0, "third"),
     "statements[6].sources.namedtuple[1][1][1].namedtuple[1]",
     "namedtuple 'Pair' has fields ['first', 'second'] at statements[6].sources.namedtuple, not ['first', 'third']"),
    (lambda d: d["statements"][7].__setitem__("tape", "x"), "statements[7].tape", "'x' is a tensor, not a tape"),
    (lambda d: d["outputs"].append("after"), "outputs[4]", "'after' is a tuple of watched variables, not a tensor"),
])
def test_namedtuple_structures_and_watched_variables_are_validated(change, path, message):
    """Each bad namedtuple spec or watched_variables statement is one line naming its JSON path."""
    error = rejected(custom_mutated(change))
    assert error.path == path and message in str(error) and "\n" not in str(error), str(error)
