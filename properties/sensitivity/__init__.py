"""Planted bugs (mutants.py) and how the detectors are measured against them (measure.py)."""
