"""procrastinate's own worker as a leaseproof native worker.

``App.run_worker_async`` does everything a procrastinate worker does: it registers itself in
``procrastinate_workers``, fetches with ``procrastinate_fetch_job_v2`` (``todo`` → ``doing``,
``worker_id`` = itself), heartbeats its *worker* row every ``update_heartbeat_interval``, and
finishes a job with ``procrastinate_finish_job_v1`` (or ``retry_job`` when the task's retry
strategy says so). The handler is leaseproof's plan, as a task. The run's lease is the stalled
timeout: a job is stalled once its worker's heartbeat is older than it, and procrastinate's
documented recipe (``get_stalled_jobs`` + ``retry_job``, a periodic task of the user's) puts it
back; leaseproof's controller runs that recipe's statements as the queue's sweep.

``python -m leaseproof_client.targets.procrastinate_native --print-sql`` prints this version's
schema and the statements the controller runs, as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Optional

from leaseproof_client.native import NativeWorker, PlannedFailure, run_native

QUEUE = "leaseproof"
TASK = "leaseproof"
# Attempts when a job does not say (leaseproof's controller passes a scenario's maxAttempts in
# the job's arguments as `_maxAttempts`).
DEFAULT_MAX_ATTEMPTS = 5


def make_app(url: str, application_name: str) -> Any:
    import procrastinate
    from procrastinate import retry as retry_module

    class PlanRetry(retry_module.BaseRetryStrategy):
        """Retry at once while the job has attempts left (its own ``_maxAttempts``)."""

        def get_retry_decision(self, *, exception: BaseException, job: Any) -> Optional[Any]:
            limit = int(job.task_kwargs.get("_maxAttempts") or DEFAULT_MAX_ATTEMPTS)
            if job.attempts + 1 >= limit:
                return None
            return retry_module.RetryDecision(retry_in={"seconds": 0})

    connector = procrastinate.PsycopgConnector(
        conninfo=url,
        kwargs={"application_name": application_name},
        min_size=1,
        max_size=4,
    )
    app = procrastinate.App(connector=connector)
    return app, PlanRetry()


class ProcrastinateTarget:
    def __init__(self) -> None:
        self.app: Any = None
        self.task: Optional[asyncio.Task[None]] = None

    async def prepare(self, worker: NativeWorker) -> None:
        if self.app is not None:
            # A restart after the worker gave up: its pool is gone or going.
            try:
                await asyncio.wait_for(self.app.connector.close_async(), 1)
            except Exception:  # noqa: BLE001 - already broken
                pass
        app, plan_retry = make_app(worker.database_url, worker.worker_id)

        @app.task(name=TASK, queue=QUEUE, pass_context=True, retry=plan_retry)
        async def leaseproof(context: Any, **plan: Any) -> None:
            job = context.job
            try:
                await worker.run_job(str(job.id), str(job.worker_id), job.attempts + 1, plan)
            except PlannedFailure:
                raise

        await app.open_async()
        self.app = app

    async def run(self, worker: NativeWorker) -> None:
        lease = worker.lease
        self.task = asyncio.ensure_future(
            self.app.run_worker_async(
                queues=[QUEUE],
                concurrency=1,
                wait=True,
                install_signal_handlers=False,
                listen_notify=True,
                fetch_job_polling_interval=lease["pollMs"] / 1000,
                update_heartbeat_interval=lease["heartbeatMs"] / 1000,
                stalled_worker_timeout=lease["durationMs"] / 1000,
                delete_jobs="never",
            )
        )
        try:
            await self.task
        except asyncio.CancelledError:
            if not worker.stopping:
                raise

    async def stop(self, worker: NativeWorker) -> None:
        # Cancelling run_worker_async is procrastinate's graceful stop: the job in hand finishes.
        if self.task is not None:
            self.task.cancel()


def print_sql() -> None:
    from importlib.metadata import version

    from procrastinate import schema
    from procrastinate.sql import queries

    print(
        json.dumps(
            {
                "version": version("procrastinate"),
                "install": schema.SchemaManager.get_schema(),
                "stalled": queries["select_stalled_jobs_by_heartbeat"],
                "retry": queries["retry_job"],
                "queue": QUEUE,
                "task": TASK,
            }
        )
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--print-sql"]:
        print_sql()
    else:
        run_native(ProcrastinateTarget)
