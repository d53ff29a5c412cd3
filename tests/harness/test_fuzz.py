"""`reftape-fuzz` campaigns against real TensorFlow: a planted wrong VJP is found, minimised, blamed and
reproduced; reftape itself passes; interrupts keep every finding; bad usage exits 2 in one line.

The planted backend is written into the campaign's working directory, which `--backend` imports from.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from reftape_oracle.program import Tape, walk
from reftape_properties.explain.clusters import cluster
from reftape_properties.findings.record import record_validator
from reftape_properties.campaign.configuration import RESUMED
from reftape_properties.findings.store import read_findings

pytestmark = pytest.mark.runs_long   # campaigns: each loads TensorFlow in its own processes

PLANTED = '''"""reftape with one planted fault: the VJP of `sin` doubles its derivative."""
import reftape as _reftape
from reftape import *  # noqa: F401,F403
from reftape import linalg, math, nn  # noqa: F401


@_reftape.custom_gradient
def _doubled_sin(x):
    return _reftape.sin(x), lambda upstream: upstream * 2.0 * _reftape.cos(x)


def sin(x, name=None):
    return _doubled_sin(_reftape.identity(x))  # a tensor: the custom gradient never sees a variable
'''
PLANTED_CAMPAIGN = ["--backend", "planted_backend", "--ops", "sin,multiply", "--dtypes", "float32,float64",
                    "--workers", "1", "--seed", "3"]


def fuzz_command(*args):
    return [sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", *args]


@pytest.fixture
def campaign_dir(tmp_path):
    (tmp_path / "planted_backend.py").write_text(PLANTED)
    return tmp_path


@pytest.fixture(scope="module")
def planted_campaign(tmp_path_factory):
    """One campaign against the planted backend: its directory, its report and how it ran."""
    directory = tmp_path_factory.mktemp("planted")
    (directory / "planted_backend.py").write_text(PLANTED)
    report = directory / "report"
    ran = fuzz(directory, *PLANTED_CAMPAIGN, "--max-examples", "60", "--report", str(report))
    return directory, report, ran


def fuzz(directory, *args, timeout=600):
    return subprocess.run(fuzz_command(*args), cwd=directory, capture_output=True, text=True, timeout=timeout)


def recorded(report):
    return read_findings(report / "discrepancies.jsonl")


def test_a_planted_wrong_vjp_is_found_minimised_blamed_and_reproduced_on_tensorflow(planted_campaign):
    campaign_dir, report, ran = planted_campaign
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout.strip().splitlines()[-1] == f"reftape-fuzz: report written to {report / 'index.html'}"
    findings = recorded(report)
    for line in (report / "discrepancies.jsonl").read_text().splitlines():
        record_validator().validate(json.loads(line))   # generated programs of every form, in the record schema
    explained = [f for f in findings if f.explained_from]
    minimal = [f for f in explained if f.minimized]
    assert minimal and all(len(f.program.ops()) <= 3 for f in minimal)
    # The planted op is the suspect of every explained finding: also when sin's output and another op
    # both feed one gradient, where each consumer's contribution is isolated to tell which is wrong.
    suspects = Counter(f.suspect for f in explained)
    assert set(suspects) == {"sin"}, suspects
    minimal = [f for f in minimal if f.suspect == "sin" and f.kind == "value"]
    assert minimal and minimal[0].first_divergence["op"] == "sin"
    page = (report / "index.html").read_text()
    assert 'class="suspect">sin<' in page and "divergent" in page
    shown = subprocess.run([sys.executable, str(report / "repro" / f"{minimal[0].id}.py")], capture_output=True,
                           text=True, timeout=120, cwd=campaign_dir)
    assert shown.returncode == 0, shown.stderr
    differing = re.search(r"differ at (\d+) of (\d+) recorded places", shown.stdout)
    assert differing and int(differing.group(1)) >= 1, shown.stdout
    assert "worst element" in shown.stdout


def test_the_time_to_detection_is_recorded_and_explaining_waits_for_the_end_of_fuzzing(planted_campaign, tmp_path):
    result = json.loads((planted_campaign[1] / "run.json").read_text())["result"]
    detected = result["first_unexplained"]
    assert 0 < detected["seconds"] <= result["seconds"] and 0 <= detected["examples"] <= result["examples"] == 60
    (tmp_path / "planted_backend.py").write_text(PLANTED)
    report = tmp_path / "report"
    ran = fuzz(tmp_path, *PLANTED_CAMPAIGN, "--max-examples", "30", "--explain-budget", "0", "--report", str(report))
    assert ran.returncode == 1, ran.stderr
    findings = recorded(report)
    assert findings and not [f for f in findings if f.explained_from or f.minimized]   # recorded, none explained
    assert json.loads((report / "run.json").read_text())["configuration"]["explain_budget"] == 0


def test_resume_replays_known_failures_first_without_recording_them_again(planted_campaign, tmp_path):
    campaign_dir, report = tmp_path, tmp_path / "report"
    shutil.copytree(planted_campaign[0], campaign_dir, dirs_exist_ok=True)
    before = recorded(report)
    again = fuzz(campaign_dir, *PLANTED_CAMPAIGN, "--seed", "99", "--max-examples", "3", "--report", str(report),
                 "--resume")
    assert again.returncode == 1, again.stderr
    assert re.search(r"\((\d+) replayed\)", again.stdout)
    digests = [f.program_digest() for f in recorded(report) if not f.explained_from]
    assert len(digests) == len(set(digests)) >= len([f for f in before if not f.explained_from])
    assert json.loads((report / "run.json").read_text())["result"]["replayed"] >= 1


def saved_failures(report):
    """The files of Hypothesis's example database in `report`: the saved failures `--resume` replays."""
    return {p.relative_to(report) for p in (report / "hypothesis" / "examples").rglob("*") if p.is_file()}


def files_under(directory):
    return {p: p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def test_resume_without_options_resumes_the_recorded_backend_and_keeps_its_saved_failures(planted_campaign,
                                                                                           tmp_path):
    campaign_dir, report = tmp_path, tmp_path / "report"
    shutil.copytree(planted_campaign[0], campaign_dir, dirs_exist_ok=True)
    configuration = json.loads((report / "run.json").read_text())["configuration"]
    saved = saved_failures(report)
    assert saved and configuration["backend"] == "planted_backend"
    again = fuzz(campaign_dir, "--resume", "--report", str(report), "--max-examples", "3", "--workers", "1")
    assert again.returncode == 1, again.stderr
    assert re.search(r"\((\d+) replayed\)", again.stdout)
    resumed = json.loads((report / "run.json").read_text())["configuration"]
    assert {name: resumed[name] for name in RESUMED} == {name: configuration[name] for name in RESUMED}
    assert saved <= saved_failures(report)   # replayed on the backend that saved them, they fail again


@pytest.mark.parametrize("option, value, recorded", [
    ("--backend", "reftape", "planted_backend"),
    ("--ops", "sin", "multiply,sin"),   # the catalog's order
    ("--time-limit", "5", 20.0),
], ids=["backend", "ops", "time-limit"])
def test_resume_refuses_a_conflicting_option_in_one_line_and_changes_nothing(planted_campaign, tmp_path, option,
                                                                            value, recorded):
    campaign_dir, report = tmp_path, tmp_path / "report"
    shutil.copytree(planted_campaign[0], campaign_dir, dirs_exist_ok=True)
    before = files_under(campaign_dir)
    ran = fuzz(campaign_dir, "--resume", "--report", str(report), option, value, "--max-examples", "3", timeout=120)
    assert ran.returncode == 2 and not ran.stdout
    (line,) = ran.stderr.strip().splitlines()
    given = float(value) if option == "--time-limit" else value
    assert line == (f"reftape-fuzz: error: {option} {given!r} conflicts with the run being resumed, which used "
                    f"{option} {recorded!r} (its run.json): leave {option} out to resume that run")
    assert files_under(campaign_dir) == before


@pytest.mark.parametrize("run, message", [
    (None, "no run to resume"),
    ({"configuration": {"backend": ["planted_backend", "reftape"], "shard": [[1, 2], [2, 2]]}},
     "run.json records --backend ('planted_backend', 'reftape'), not one run's setting (a merged report?)"),
], ids=["no-run", "merged-report"])
def test_resume_of_a_directory_without_one_run_to_resume_is_one_line_and_exit_2(tmp_path, run, message):
    report = tmp_path / "report"
    if run is not None:
        report.mkdir()
        (report / "run.json").write_text(json.dumps(run))
    before = files_under(tmp_path)
    ran = fuzz(tmp_path, "--resume", "--report", str(report), timeout=120)
    assert ran.returncode == 2 and not ran.stdout
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith("reftape-fuzz: error: --resume: ") and message in line
    assert files_under(tmp_path) == before


def test_a_campaign_on_reftape_agrees_and_still_writes_a_report(tmp_path):
    report = tmp_path / "report"
    ran = fuzz(tmp_path, "--ops", "sin,cos,multiply,add,reduce_sum", "--dtypes", "float32,float64",
               "--max-examples", "25", "--workers", "1", "--seed", "1", "--report", str(report))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    run = json.loads((report / "run.json").read_text())
    assert run["result"]["examples"] == 25 and run["configuration"]["backend"] == "reftape"
    page = (report / "index.html").read_text()
    assert "no unexplained finding" in page and "25 programs" in page
    assert f"report written to {report / 'index.html'}" in ran.stdout


BACKENDS = Path(__file__).parent.parent / "backends"
OPTION_IGNORED = "GradientTape(watch_accessed_variables=False) ignored"


def test_two_planted_bugs_are_two_causes_each_blamed_with_a_program_of_one_tape(tmp_path):
    """reduce_mean's VJP over an axis divides by the whole size, and the tape ignores
    watch_accessed_variables=False (tests/backends/two_planted_bugs_backend.py): every finding joins one of
    two clusters (at most three allowed), one blamed on reduce_mean, one on the option, each shown by a
    program of at most 3 ops and one tape."""
    report = tmp_path / "report"
    ran = fuzz(BACKENDS, "--backend", "two_planted_bugs_backend", "--ops", "reduce_mean,sin,exp,multiply,add",
               "--max-examples", "150", "--workers", "1", "--seed", "1", "--report", str(report), timeout=1200)
    assert ran.returncode == 1, ran.stdout[-2000:] + ran.stderr[-2000:]
    clusters = cluster(recorded(report))
    suspects = {c.smallest.suspect: c for c in clusters}
    assert len(clusters) <= 3 and {"reduce_mean", OPTION_IGNORED} <= set(suspects), [c.signature for c in clusters]
    for suspect in ("reduce_mean", OPTION_IGNORED):
        program = suspects[suspect].smallest.program
        assert len(program.ops()) <= 3 and sum(isinstance(s, Tape) for s in walk(program.statements)) == 1, suspect


# A stop at any moment is an interruption: 130 for SIGINT, 143 for SIGTERM (as `timeout`, `docker stop`
# and cancelled CI jobs send it, to the whole process group), never a worker death or a harness error.

STOP_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
# The parent renders with `render` wrapped to send the signal first: the moment after the budget.
RENDER_STOPPED = """
import os, signal, sys
from reftape_reports.commands import reftape_fuzz as campaign
from reftape_reports.render import render as real_render

def render(directory):
    os.killpg(0, signal.{name})
    return real_render(directory)

campaign.render = render
sys.exit(campaign.main(sys.argv[1:]))
"""


def lines_of(path):
    return path.read_text().splitlines() if path.exists() else []


def stop_moments(report):
    """When to send the stop, each a condition on the report directory (polled every 20 ms)."""
    records = report / "discrepancies.jsonl"
    return {
        "start-up": lambda: report.is_dir(),   # made by the argument checks, before any worker is ready
        "fuzzing": lambda: bool(lines_of(report / "coverage.jsonl")),
        # fuzzing over (every example begun has its coverage line), the worker explains what it recorded
        "explaining": lambda: bool(lines_of(records)) and len(lines_of(report / "coverage.jsonl")) >= EXPLAINED_AFTER,
    }


EXPLAINED_AFTER = 40   # the examples of a campaign stopped while it explains


def started_campaign(directory, command):
    return subprocess.Popen(command, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)   # its own process group, as a shell job's


def wait_for(condition, process, seconds=300):
    waited = time.monotonic()
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() - waited < seconds, "the moment never came"
        time.sleep(0.02)


def finding_ids(report):
    return [json.loads(line)["id"] for line in lines_of(report / "discrepancies.jsonl")]


def assert_a_clean_interruption(process, signum, report, before, campaign_interrupted=True):
    out, err = process.communicate(timeout=120)   # the workers get seconds; this only bounds a hang
    assert process.returncode == STOP_STATUS[signum], out + err
    assert f"interrupted by {signal.Signals(signum).name}" in err and "Traceback" not in err
    assert "harness error" not in err and "running its program again" not in out   # no isolated re-run
    after = finding_ids(report)
    assert after[:len(before)] == before   # every finding recorded before the stop is still there
    assert not (report / "worker-deaths.jsonl").exists()
    page = (report / "index.html").read_text()
    findings = recorded(report) if after else []
    found = [f for f in findings if not f.explained_from]
    listed = sum(f.id in page for f in found) + sum(int(n) for n in re.findall(r"and (\d+) more\.", page))
    assert listed >= len(found)   # each named on the page, or counted in its cluster's "and N more"
    assert all((report / "repro" / f"{f.id}.py").exists() for f in findings)
    result = json.loads((report / "run.json").read_text())["result"]
    assert result["worker_deaths"] == [] and result["harness_error"] is None
    assert result["interrupted"] is campaign_interrupted
    assert f"report written to {report / 'index.html'}" in out
    return after


SIGNALS = pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])


def planted_campaign_at(campaign_dir, moment):
    """A ten-minute planted campaign, waited on until `moment`: (its process, report directory, finding ids)."""
    report = campaign_dir / "report"
    budget = ["--max-examples", str(EXPLAINED_AFTER)] if moment == "explaining" else ["--minutes", "10"]
    process = started_campaign(campaign_dir, fuzz_command(*PLANTED_CAMPAIGN, *budget, "--report", str(report)))
    wait_for(stop_moments(report)[moment], process)
    return process, report, finding_ids(report)


@SIGNALS
@pytest.mark.parametrize("moment", ["start-up", "fuzzing", "explaining"])
def test_a_stop_to_the_process_group_at_any_moment_is_a_clean_interruption(campaign_dir, signum, moment):
    process, report, before = planted_campaign_at(campaign_dir, moment)
    os.killpg(process.pid, signum)
    after = assert_a_clean_interruption(process, signum, report, before)
    if moment == "explaining":
        assert before and len(after) >= len(before)


@SIGNALS
def test_a_stop_to_the_parent_alone_is_a_clean_interruption(campaign_dir, signum):
    process, report, before = planted_campaign_at(campaign_dir, "explaining")
    process.send_signal(signum)
    assert_a_clean_interruption(process, signum, report, before)


def worker_pids(parent):
    """The campaign's worker processes: the parent's spawned children that are not its resource tracker."""
    children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    commands = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in children}
    return [int(pid) for pid, command in commands.items()
            if b"spawn_main" in command and b"resource_tracker" not in command]


@SIGNALS
def test_a_stop_to_a_worker_alone_stops_the_campaign_as_an_interruption(campaign_dir, signum):
    process, report, before = planted_campaign_at(campaign_dir, "fuzzing")
    (worker,) = worker_pids(process.pid)
    os.kill(worker, signum)
    assert_a_clean_interruption(process, signum, report, before)


@SIGNALS
def test_a_stop_while_the_report_renders_still_renders_it(campaign_dir, signum):
    report = campaign_dir / "report"
    script = RENDER_STOPPED.format(name=signal.Signals(signum).name)
    process = started_campaign(campaign_dir, [sys.executable, "-c", script, *PLANTED_CAMPAIGN, "--max-examples", "2",
                                              "--report", str(report)])
    assert_a_clean_interruption(process, signum, report, [], campaign_interrupted=False)
    assert json.loads((report / "run.json").read_text())["result"]["examples"] == 2


def test_a_worker_that_cannot_run_is_a_harness_failure_reported_in_one_line(tmp_path):
    (tmp_path / "parent_only_backend.py").write_text(
        "import multiprocessing\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    raise ImportError('refuses to load in a worker process')\n"
        "from reftape import *  # noqa: F401,F403\n")
    report = tmp_path / "report"
    ran = fuzz(tmp_path, "--backend", "parent_only_backend", "--max-examples", "5", "--workers", "1",
               "--report", str(report))
    assert ran.returncode == 3
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith("reftape-fuzz: harness error: worker 0 crashed: UsageError: cannot import backend "
                           "'parent_only_backend': ImportError: refuses to load in a worker process")
    assert (report / "index.html").exists()


TENSORFLOW_PYTHON_ERRORS = """
import gc
import numpy as np
from reftape_oracle.interpreter import run
from reftape_oracle.program import Call, Leaf, Op, Program, Tape
from reftape_oracle.tensorflow import load_tensorflow

tf = load_tensorflow()   # as every campaign worker does
x = np.array([0.3, 0.7, -1.1], np.float32)
program = Program([Leaf("x", "variable", x, "float32"), Leaf("y", "variable", x, "float32"),
                   Tape("t", persistent=True, body=[Op("a", "sin", ["x"])]),
                   Call("j", "t", "jacobian", "a", {"list": ["x", "y"]}, use_pfor=False)], outputs=["a"])
print(sorted(run(program, "tensorflow").calls))
with tf.Graph().as_default():   # a TensorArray never read: tf_should_use logs its block at ERROR when it goes
    tf.TensorArray(tf.float32, 2).write(0, 1.0)
gc.collect()
"""


def test_tensorflows_python_side_errors_stay_off_the_terminal_as_its_native_logs_do(tmp_path):
    ran = subprocess.run([sys.executable, "-c", TENSORFLOW_PYTHON_ERRORS], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0 and ran.stdout.strip() == "['j']", ran.stderr
    assert ran.stderr == ""   # neither "ERROR:tensorflow" nor tf_should_use's "Object was never used" block


@pytest.mark.parametrize("args, message", [
    (["--ops", "no_such_op*"], "matches no catalog op"),
    (["--dtypes", "float32,float8"], "unknown dtype float8"),
    (["--backend", "no_such_backend_module"], "cannot import backend 'no_such_backend_module'"),
    (["--report", "a-file/report"], "is not writable"),
], ids=["op-pattern", "dtype", "backend", "report-dir"])
def test_bad_usage_exits_2_with_one_line_before_anything_runs(tmp_path, args, message):
    (tmp_path / "a-file").write_text("")
    ran = fuzz(tmp_path, *args, timeout=120)
    assert ran.returncode == 2
    assert message in ran.stderr and "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "fuzz-report").exists() and not ran.stdout


@pytest.mark.parametrize("limit", ["0", "-1", "abc", "inf"])
def test_a_bad_time_limit_exits_2_as_argparse_does_before_anything_runs(tmp_path, limit):
    ran = fuzz(tmp_path, "--time-limit", limit, "--max-examples", "1", timeout=120)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert ran.stderr.strip().splitlines()[-1] == (f"reftape-fuzz: error: argument --time-limit: {limit!r} is not a "
                                                    "positive number of seconds")
    assert not (tmp_path / "fuzz-report").exists() and not ran.stdout


BACKENDS = Path(__file__).parent.parent / "backends"  # the planted backends, imported by module name from the cwd
DYING_CAMPAIGN = ["--ops", "sin,multiply", "--dtypes", "float32", "--workers", "1", "--seed", "3"]


def deaths(report):
    return [json.loads(line) for line in (report / "worker-deaths.jsonl").read_text().splitlines()]


def test_a_worker_killed_by_a_signal_is_a_crash_finding_and_the_campaign_goes_on(tmp_path):
    report = tmp_path / "report"
    ran = fuzz(BACKENDS, "--backend", "crashing_backend", *DYING_CAMPAIGN, "--max-examples", "3",
               "--explain-budget", "5", "--report", str(report))   # each explaining run isolated: seconds
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "worker 0 died of SIGSEGV" in ran.stdout and "Traceback" not in ran.stderr
    findings = [f for f in recorded(report) if f.explained_from is None]
    assert [f.kind for f in findings] == ["crash"] * 3
    assert len({f.program_digest() for f in findings}) == 3   # a restarted worker never draws a deadly program again
    explained = [f for f in recorded(report) if f.explained_from is not None]   # by the restarted worker, isolated
    assert explained and all(f.kind == "crash" and f.explained_from in {g.id for g in findings} for f in explained)
    for finding in findings:
        assert finding.actual.error == {"kind": "crash", "message": "the process running crashing_backend died of SIGSEGV"}
        assert finding.expected.error is None and finding.expected.values   # TensorFlow ran it, alone
        assert any(op.path == "sin" for op in finding.program.ops())
        record_validator().validate(json.loads(finding.to_json()))
    assert [d["finding"] for d in deaths(report)] == [f.id for f in findings]
    run = json.loads((report / "run.json").read_text())["result"]
    assert run["examples"] == 3 and len(run["worker_deaths"]) == 3 and run["harness_error"] is None
    assert "worker deaths" in (report / "index.html").read_text()
    assert not (report / "in-flight").exists()   # each death's program is in its record


def test_a_worker_stuck_outside_python_is_killed_and_its_program_is_a_timeout_finding(tmp_path):
    report = tmp_path / "report"
    # a hang in native code ignores any budget: explaining runs the program isolated (within the campaign's time
    # limit), or this never ends; 10 s of minimising a program that hangs at every step are enough to show it
    ran = fuzz(BACKENDS, "--backend", "stuck_backend", *DYING_CAMPAIGN, "--max-examples", "1", "--time-limit", "1",
               "--explain-budget", "10", "--report", str(report))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    (finding,) = [f for f in recorded(report) if f.explained_from is None]   # explaining it did not hang again
    assert finding.kind == "timeout" and finding.actual.error["kind"] == "timeout"
    assert len(deaths(report)) == 1
    assert "killed 6 s after it began the program" in finding.actual.error["message"]
    assert deaths(report)[0]["cause"].startswith("was killed: its program ran past its time limits")


def test_a_worker_killed_past_its_time_limits_whose_program_finishes_alone_is_no_harness_failure(tmp_path):
    """A time limit is wall-clock time, which the campaign's load stretches: a program that finishes within it
    alone is slow, not stuck (TF's forward mode of chained expm took 20 s in a loaded worker, 10 s alone)."""
    report = tmp_path / "report"
    ran = fuzz(BACKENDS, "--backend", "flaky_stuck_backend", *DYING_CAMPAIGN, "--max-examples", "1", "--time-limit", "1",
               "--report", str(report))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "finished within its time limits alone: slow under the campaign's load" in ran.stdout
    (death,) = deaths(report)
    assert death["finished_alone"] and death["finding"] is None and death["program"]["statements"]
    assert not (report / "discrepancies.jsonl").exists()
    assert json.loads((report / "run.json").read_text())["result"]["harness_error"] is None


def test_a_death_its_program_does_not_repeat_alone_is_a_harness_failure_after_the_budget(tmp_path):
    report = tmp_path / "report"
    ran = fuzz(BACKENDS, "--backend", "flaky_crashing_backend", *DYING_CAMPAIGN, "--max-examples", "2",
               "--report", str(report))
    assert ran.returncode == 3, ran.stdout + ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith("reftape-fuzz: harness error: 2 worker death(s) that no finding explains, the first: "
                           "worker 0 died of SIGSEGV running a program that did not fail again")
    assert not (report / "discrepancies.jsonl").exists()
    kept = deaths(report)
    assert len(kept) == 2 and all(d["finding"] is None and d["program"]["statements"] for d in kept)
    assert json.loads((report / "run.json").read_text())["result"]["examples"] == 2


def test_a_worker_that_dies_while_starting_is_a_harness_failure(tmp_path):
    (tmp_path / "dies_in_workers.py").write_text(
        "import multiprocessing, os, signal\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    os.kill(os.getpid(), signal.SIGSEGV)\n"
        "from reftape import *  # noqa: F401,F403\n")
    ran = fuzz(tmp_path, "--backend", "dies_in_workers", *DYING_CAMPAIGN, "--max-examples", "2",
               "--report", str(tmp_path / "report"))
    assert ran.returncode == 3
    (line,) = ran.stderr.strip().splitlines()
    assert line == "reftape-fuzz: harness error: worker 0 died of SIGSEGV while starting"


def test_explaining_takes_the_most_distinct_findings_first():
    """Eight value findings of det, one nan-inf-pattern of det and one of sin and xlogy: the first three explained
    are one of each, the smallest programs first (in the order found, all three would be det's values)."""
    from types import SimpleNamespace

    from reftape_oracle.program import Op
    from reftape_properties.campaign.workers import distinct_first

    def found(*paths: str, kind: str = "value") -> SimpleNamespace:
        ops = [Op(f"y{i}", path, ["x"]) for i, path in enumerate(paths)]
        return SimpleNamespace(program=SimpleNamespace(ops=lambda: ops), reference="numeric", kind=kind, paths=paths)

    dets = [found("linalg.det") for _ in range(8)]
    findings = dets[:3] + [found("sin", "math.xlogy")] + dets[3:] + [found("linalg.det", kind="nan-inf-pattern")]
    ordered = distinct_first(findings)
    assert [f.paths for f in ordered[:3]] == [("linalg.det",), ("linalg.det",), ("sin", "math.xlogy")]
    assert ordered[0] is dets[0] and ordered[1].kind == "nan-inf-pattern"
    assert sorted(map(id, ordered)) == sorted(map(id, findings))


def test_workers_take_findings_off_one_queue_and_a_named_suspect_waits():
    """Findings queued by any worker (here three, with det already named by an explained record): each claim
    takes one finding off the queue, never one twice, and programs that hold det wait behind the one that does
    not, whichever is smaller."""
    import dataclasses
    import tempfile
    from types import SimpleNamespace

    import numpy as np

    from reftape_oracle.outcome import Outcome
    from reftape_oracle.program import Call, Leaf, Op, Program, Tape
    from reftape_properties.campaign.workers import _Worker, enqueue_for_explaining
    from reftape_properties.findings.record import Finding
    from reftape_properties.findings.store import record_finding
    from reftape_properties.judge.compare import Discrepancy

    def found(*paths: str) -> Finding:
        body = [Op(f"y{i}", path, [f"y{i - 1}" if i else "x"]) for i, path in enumerate(paths)]
        program = Program([Leaf("x", "variable", np.array(1.5), "float64"), Tape("t", body=body), Call("g", "t", "gradient", body[-1].name, "x")])
        expected, actual = {"kind": "none"}, {"kind": "exception", "class": "ValueError", "message": "planted"}
        return Finding(program, Outcome("numeric", calls={"g": expected}), Outcome("tensorflow", calls={"g": actual}),
                       [Discrepancy("exception", "calls/g", expected, actual)], candidate="tensorflow")

    with tempfile.TemporaryDirectory() as directory:
        report = Path(directory)
        named = dataclasses.replace(found("linalg.det"), id="", suspect="linalg.det", explained_from="earlier")
        record_finding(named, report)
        queued = [found("linalg.det"), found("sin", "linalg.det"), found("exp", "sin", "tanh")]
        for finding in queued:
            record_finding(finding, report)
            enqueue_for_explaining(finding, report)
        claimers = [SimpleNamespace(report=report, minimal_of={}) for _ in range(2)]
        claimed = [_Worker.claim(claimers[i % 2]) for i in range(4)]
        assert [f.id for f in claimed[:3]] == [queued[2].id, queued[0].id, queued[1].id] and claimed[3] is None
        assert claimers[0].minimal_of == {named.signature(): named.id}   # another worker's minimal finding, learned
