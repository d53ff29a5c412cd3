"""Campaigns past one machine: two sharded `reftape-fuzz` campaigns share a real redis-server as their
Hypothesis example database, the second replays the first's failure, and `reftape-report --merge`
makes one report of their two report directories.
"""

import json
import socket
import subprocess
import sys
import time

import pytest
import redis

from test_fuzz import PLANTED, fuzz, recorded

CAMPAIGN = ["--backend", "planted_backend", "--ops", "sin,multiply,add", "--dtypes", "float32,float64",
            "--workers", "1", "--seed", "3"]


def report_command(*args):
    return [sys.executable, "-m", "reftape_reports.commands.reftape_report", *args]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path, system_program):
    """A redis-server of our own on the loopback address, stopped at the end of the test."""
    server = system_program("redis-server")
    port = _free_port()
    process = subprocess.Popen([server, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                                "--appendonly", "no", "--dir", str(tmp_path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        else:
            pytest.fail(f"redis-server did not answer on port {port}")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        process.terminate()
        process.wait(timeout=10)


def _originals(report):
    return [f for f in recorded(report) if not f.explained_from]


@pytest.mark.runs_long
def test_two_sharded_campaigns_share_a_finding_through_redis_and_merge_into_one_report(tmp_path, redis_url):
    (tmp_path / "planted_backend.py").write_text(PLANTED)
    first, second, merged = tmp_path / "machine-1", tmp_path / "machine-2", tmp_path / "merged"

    found = fuzz(tmp_path, *CAMPAIGN, "--shard", "1/2", "--database", redis_url, "--max-examples", "80",
                 "--report", str(first))
    assert found.returncode == 1, found.stdout + found.stderr
    saved = redis.Redis.from_url(redis_url).keys("hypothesis-example:*")
    assert saved, "the first campaign saved no failure in Redis"

    # One example only: the second machine's first example is the replay of what Redis holds. Its
    # own shard draws other seeds, so the very same program (random leaf values included) can only
    # have come from the first machine's failure.
    replayed = fuzz(tmp_path, *CAMPAIGN, "--shard", "2/2", "--database", redis_url, "--max-examples", "1",
                    "--report", str(second))
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    shared = {f.program_digest() for f in _originals(first)} & {f.program_digest() for f in _originals(second)}
    assert shared, "the second campaign did not replay the first one's failure"
    assert json.loads((second / "run.json").read_text())["configuration"]["shard"] == [2, 2]

    report = subprocess.run(report_command(str(merged), "--merge", str(first), str(second)),
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    ids = {f.id for f in recorded(first)} | {f.id for f in recorded(second)}
    assert {f.id for f in recorded(merged)} == ids
    assert {p.stem for p in (merged / "repro").glob("*.py")} == ids
    run = json.loads((merged / "run.json").read_text())
    assert run["result"]["examples"] == 81
    assert run["configuration"]["shard"] == [[1, 2], [2, 2]]
    page = (merged / "index.html").read_text()
    assert str(first) in page and str(second) in page and 'class="suspect">sin<' in page


@pytest.mark.parametrize("option, value, message", [
    ("--shard", "3/2", "--shard '3/2' needs 1 <= K <= N"),
    ("--shard", "half", "--shard 'half' must be K/N"),
    ("--database", "postgres://x", "is not a redis://host:port/db URL"),
    ("--database", "redis://127.0.0.1:{closed_port}/0", "does not answer"),
])
def test_bad_shard_or_database_is_one_line_and_exit_2(tmp_path, option, value, message):
    value = value.format(closed_port=_free_port())  # a port nothing listens on
    ran = fuzz(tmp_path, "--max-examples", "1", "--report", str(tmp_path / "r"), option, value, timeout=120)
    assert ran.returncode == 2 and message in ran.stderr and len(ran.stderr.strip().splitlines()) == 1, ran.stderr


def test_merging_a_report_into_one_of_its_sources_is_a_usage_error(tmp_path):
    ran = subprocess.run(report_command(str(tmp_path), "--merge", str(tmp_path)), capture_output=True, text=True,
                         timeout=120)
    assert ran.returncode == 2 and "both the merged report and one of its sources" in ran.stderr


def test_shards_draw_disjoint_seeds_whatever_their_campaign_seed():
    from reftape_properties.campaign.configuration import Campaign
    from reftape_properties.campaign.workers import _batch_seed

    def seeds(k, campaign_seed):
        campaign = Campaign("reftape", ("sin",), ("float32",), campaign_seed, 2, None, 10, "r", False, shard=(k, 3))
        return {_batch_seed(campaign, worker, batch) for worker in range(2) for batch in range(50)}

    drawn = [seeds(1, 5), seeds(2, 5), seeds(3, 6)]
    assert all(len(s) == 100 for s in drawn)
    assert not (drawn[0] & drawn[1]) and not (drawn[0] & drawn[2]) and not (drawn[1] & drawn[2])
