"""pgqueuer's own worker loop as a leaseproof native worker.

``QueueManager.run`` does everything: its dequeue statement picks queued jobs and re-picks
``picked`` ones whose ``heartbeat`` is older than ``heartbeat_timeout``; a ``Heartbeat`` task
per job sends ``UPDATE … SET heartbeat = NOW()`` every ``heartbeat_timeout / 2`` through a
buffer flushed every ``heartbeat_timeout / 8``; a finished job's row is deleted through the
status-log buffer, all on one asyncpg connection. The handler is leaseproof's plan. pgqueuer's
durations are the run's settled settings (``worker.settings``, ms, each its default × the run's
one time factor): ``heartbeat_timeout`` is the run's lease, ``dequeue_timeout`` the idle wait,
``min_dequeue_poll_interval`` pgqueuer's least wait between dequeues. ``on_failure="hold"``: a failed job stays in the
table as ``failed`` (the default deletes it, which the audit could not tell from a completion);
pgqueuer does not retry a failed job by itself.

``python -m leaseproof_client.targets.pgqueuer_native --print-sql`` prints the install and
enqueue statements of this pgqueuer version as JSON, for leaseproof's controller.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from typing import Any

from leaseproof_client.native import NativeWorker, run_native

ENTRYPOINT = "leaseproof"


class PgqueuerTarget:
    def __init__(self) -> None:
        self.connection: Any = None
        self.qm: Any = None

    async def prepare(self, worker: NativeWorker) -> None:
        import asyncpg
        from pgqueuer import QueueManager
        from pgqueuer.adapters.persistence.queries import Queries
        from pgqueuer.db import AsyncpgDriver

        # asyncpg, pgqueuer's first driver. (Its psycopg driver serves LISTEN and every statement
        # on one connection, and its notification reader holds that connection for up to 1 s at
        # a time: with a lease of a second or two, heartbeats and completions wait past it.)
        self.connection = await asyncpg.connect(
            worker.database_url, server_settings={"application_name": worker.worker_id}
        )
        self.qm = QueueManager(Queries(AsyncpgDriver(self.connection)))
        qm = self.qm
        # pgqueuer never re-checks the queue sooner than min_dequeue_poll_interval (100 ms), a
        # dataclass field rather than a parameter: set here at the run's time factor.
        qm.min_dequeue_poll_interval = timedelta(
            milliseconds=_setting(worker, "min_dequeue_poll_interval", 100.0)
        )

        @qm.entrypoint(ENTRYPOINT, on_failure="hold")
        async def handle(job: Any) -> None:
            payload = json.loads(job.payload or b"{}")
            await worker.run_job(str(job.id), str(qm.queue_manager_id), job.attempts + 1, payload)

    async def run(self, worker: NativeWorker) -> None:
        # The smallest batch pgqueuer allows with a cap: max_concurrent_tasks >= 2 x batch_size.
        await self.qm.run(
            dequeue_timeout=timedelta(milliseconds=_setting(worker, "dequeue_timeout", 30_000.0)),
            batch_size=1,
            max_concurrent_tasks=2,
            heartbeat_timeout=timedelta(
                milliseconds=_setting(worker, "heartbeat_timeout", 30_000.0)
            ),
        )

    async def stop(self, worker: NativeWorker) -> None:
        if self.qm is not None:
            self.qm.shutdown.set()


def _setting(worker: NativeWorker, name: str, default_ms: float) -> float:
    """A pgqueuer duration for this run (ms): the run's settled value, or — from a controller
    that sends none — pgqueuer's default compressed by the lease's factor (lease ÷ 30 s)."""
    settled = worker.settings.get(name)
    if settled is not None:
        return float(settled)
    return default_ms * float(worker.lease["durationMs"]) / 30_000.0


def print_sql() -> None:
    from pgqueuer.adapters.persistence.qb import QueryBuilderEnvironment, QueryQueueBuilder
    import pgqueuer

    print(
        json.dumps(
            {
                "version": getattr(pgqueuer, "__version__", None) or _version(),
                "install": QueryBuilderEnvironment().build_install_query(),
                "enqueue": QueryQueueBuilder().build_enqueue_query(),
                "entrypoint": ENTRYPOINT,
            }
        )
    )


def _version() -> str:
    from importlib.metadata import version

    return version("pgqueuer")


if __name__ == "__main__":
    if sys.argv[1:] == ["--print-sql"]:
        print_sql()
    else:
        run_native(PgqueuerTarget)
