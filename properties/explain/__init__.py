"""Explaining a finding: its first divergent node, its minimal program, and clusters of findings by root cause."""
