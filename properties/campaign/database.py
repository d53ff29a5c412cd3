"""The example database a campaign replays first: a directory of its own, or Redis shared by machines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reftape_properties.cli import UsageError


def reachable_database(url: str | None) -> str | None:
    """`url` after checking that its Redis server answers; UsageError otherwise."""
    if url is None:
        return None
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise UsageError(f"--database {url!r} is not a redis://host:port/db URL")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=5).ping()
    except (redis.RedisError, ValueError) as error:
        raise UsageError(f"--database {url!r} does not answer: {error}") from None
    return url


def example_database(report: Path, url: str | None = None) -> Any:
    """The Hypothesis example database of a campaign: where failures are saved and `--resume` reads.
    The one place to choose it: the report directory's, or the Redis database at `url` that every
    machine of a campaign shares."""
    if url is not None:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase

        return RedisExampleDatabase(redis.Redis.from_url(url))
    from hypothesis.database import DirectoryBasedExampleDatabase

    return DirectoryBasedExampleDatabase(report / "hypothesis" / "examples")
