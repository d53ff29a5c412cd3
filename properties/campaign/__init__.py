"""`reftape-fuzz`: a fuzzing campaign of a candidate tape against TensorFlow, ending in an HTML report.

Worker processes (TensorFlow loaded once in each) draw programs with Hypothesis, run each through
the one pipeline (`pipeline.evaluate`) and record every finding the moment it is found
(`findings.store.record_finding`, fsynced), then explain it: the first divergent node names the suspect
op and minimisation shrinks the program within a budget of evaluations (once per signature and worker: a
campaign that meets one bug in every program keeps fuzzing instead of minimising it again; later
findings of that signature name the minimal one by their `covered_by`); the explained form is
recorded too, linked to the original by its `explained_from`. The parent process shows progress, stops the
workers at the budget or on SIGINT/SIGTERM, sent to it or to its whole process group, at any moment
(recorded findings are kept; exit 130 or 143, never a worker death), writes `run.json` and has the
report rendered. A worker that dies or hangs in native code is replaced: the program it said
it was running (its flight recorder) is run again with each side in a process of its own, and the
finding that makes is recorded with the death (`worker-deaths.jsonl`). The command itself
(`reftape-fuzz`, `reports/commands/reftape_fuzz.py`) sits in the reports layer, above this one, and passes the
renderer in.

Report directory layout: discrepancies.jsonl, coverage.jsonl, run.json, worker-deaths.jsonl,
hypothesis-db/ (the example database that `--resume` replays first, and Hypothesis's other files),
index.html and repro/<id>.py.

Past one machine: machines given `--shard 1/N` .. `--shard N/N` (whatever their `--seed`) and one
`--database redis://...` draw disjoint seeds and share Hypothesis's example database, so each
replays first what any has found (and, as Hypothesis does with any database, drops an entry that
no longer fails where it is replayed); `reftape-report OUT --merge DIR...` makes one report of
their report directories.
"""
