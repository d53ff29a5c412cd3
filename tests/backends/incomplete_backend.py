"""A test backend that lacks most of TF's names: missing names must be reported, not crash."""

from reftape import GradientTape, UnconnectedGradients, Variable, constant  # noqa: F401
