"""A test backend: reftape whose forward mode is wrong for two ops: the tangent of a product (Mul) is
conjugated (right for real dtypes, a dropped conjugate for complex ones) and the tangent of Sin is doubled.
Gradients (reverse mode) are reftape's own. Used to show that the per-op JVP comparison fires."""

import types

from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import bitwise, linalg, math, nn, random  # noqa: F401
from reftape import forwardprop as _forwardprop


class _PlantedAccumulation(_forwardprop.Accumulation):
    def tangents_of(self, op):
        found = super().tangents_of(op)
        if op.primitive.name == "Mul":
            return [None if t is None else math.conj(t) for t in found]
        if op.primitive.name == "Sin":
            return [None if t is None else t * 2.0 for t in found]
        return found


class ForwardAccumulator(_forwardprop.ForwardAccumulator):
    _accumulation_type = _PlantedAccumulation


autodiff = types.SimpleNamespace(ForwardAccumulator=ForwardAccumulator)
