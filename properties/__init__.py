"""The harness's library, by job: `judge/` (is a difference a bug?), `findings/` (the record and its store),
`pipeline.py` (the one pipeline, `evaluate`), `explain/` (first divergence, minimisation, clusters),
`generate/` (Hypothesis strategies of programs), `campaign/` (fuzzing processes), `conformance/` (the
semantics catalog, seeds and the pytest property) and `sensitivity/` (planted bugs). The commands that
use them are in reports/commands/."""
