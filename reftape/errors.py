"""TensorFlow's error classes, raised where TensorFlow raises them.

`OpError` subclasses carry TF's canonical error codes; reftape raises them from op execution
(`InvalidArgumentError` for dtype and shape mismatches, like TF's eager kernels do).
"""


class OpError(Exception):
    """Base class of errors raised while executing an op."""

    error_code = 2

    def __init__(self, node_def=None, op=None, message: str = "", *args) -> None:
        # TF's signature is (node_def, op, message); accept a bare message as well.
        if message == "" and isinstance(node_def, str) and op is None:
            node_def, message = None, node_def
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self) -> str:
        return self.message


def _error(name: str, code: int) -> type:
    return type(name, (OpError,), {"error_code": code, "__module__": __name__})


CancelledError = _error("CancelledError", 1)
UnknownError = _error("UnknownError", 2)
InvalidArgumentError = _error("InvalidArgumentError", 3)
NotFoundError = _error("NotFoundError", 5)
FailedPreconditionError = _error("FailedPreconditionError", 9)
AbortedError = _error("AbortedError", 10)
OutOfRangeError = _error("OutOfRangeError", 11)
UnimplementedError = _error("UnimplementedError", 12)
InternalError = _error("InternalError", 13)


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor used as a Python value (a `bool`) where AutoGraph does not convert the code."""


def _dims_text(shape: tuple) -> str:  # private: reftape.errors is tf.errors, which has no such name
    """A shape as TF's kernels write it in their messages: [2,3]."""
    return "[" + ",".join(str(d) for d in shape) + "]"
