"""procrastinate's own worker as a leaseproof native worker.

``App.run_worker_async`` does everything a procrastinate worker does: it registers itself in
``procrastinate_workers``, fetches with ``procrastinate_fetch_job_v2`` (``todo`` → ``doing``,
``worker_id`` = itself), heartbeats its *worker* row every ``update_heartbeat_interval``, and
finishes a job with ``procrastinate_finish_job_v1`` (or ``retry_job`` when the task's retry
strategy says so). The handler is leaseproof's plan, as a task.

Stalled jobs are recovered as procrastinate's docs have users do it
(howto/production/retry_stalled_jobs): the app defines the periodic task ``retry_stalled_jobs``
— ``get_stalled_jobs`` then ``retry_job`` for each — and procrastinate's own periodic deferrer,
which runs inside every worker, defers it at each tick of its cron; whichever worker fetches the
job runs it. The run's lease is the recipe's ``seconds_since_heartbeat``.

Every duration comes from the run's settings (``config.settings``: procrastinate's own names, ms,
each its default × the run's one time factor k); three hard-coded constants are assigned here
before the worker starts (``MARGIN``, ``LISTEN_TIMEOUT``, ``CANCEL_TIMEOUT``), and leaseproof's
report lists them as rescaled.

``python -m leaseproof_client.targets.procrastinate_native --print-sql`` prints this version's
schema and the statements the controller runs, as JSON.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from typing import Any, Dict, Optional

from leaseproof_client.native import NativeWorker, PlannedFailure, run_native

QUEUE = "leaseproof"
TASK = "leaseproof"
# Attempts when a job does not say (leaseproof's controller passes a scenario's maxAttempts in
# the job's arguments as `_maxAttempts`).
DEFAULT_MAX_ATTEMPTS = 5


def make_app(url: str, application_name: str, settings: Dict[str, float]) -> Any:
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
    app = procrastinate.App(
        connector=connector,
        periodic_defaults={"max_delay": settings["max_delay"] / 1000},
    )
    return app, PlanRetry()


def recipe_cron(period_ms: float) -> str:
    """The cron procrastinate can state for a period (see ``recipeCron`` in settings.ts).

    Whole seconds below a minute in procrastinate's sixth column, whole minutes below an hour,
    else whole hours: the docs' ``*/10 * * * *`` at 10 minutes.
    """
    seconds = max(1, int(math.floor(period_ms / 1000 + 0.5)))
    if seconds < 60:
        return f"* * * * * */{seconds}"
    minutes = max(1, int(math.floor(seconds / 60 + 0.5)))
    if minutes < 60:
        return f"*/{minutes} * * * *"
    hours = min(23, max(1, int(math.floor(minutes / 60 + 0.5))))
    return f"0 */{hours} * * *"


# procrastinate's defaults (ms), for a config without settings (an older controller).
DEFAULT_SETTINGS: Dict[str, float] = {
    "seconds_since_heartbeat": 30_000,
    "update_heartbeat_interval": 10_000,
    "stalled_worker_timeout": 30_000,
    "fetch_job_polling_interval": 5_000,
    "abort_job_polling_interval": 5_000,
    "retry_stalled_jobs cron": 600_000,
    "max_delay": 600_000,
    "MARGIN": 500,
    "LISTEN_TIMEOUT": 30_000,
    "CANCEL_TIMEOUT": 1_000,
    "concurrency": 1,
}


def settings_of(config: Dict[str, Any]) -> Dict[str, float]:
    """The run's settings by procrastinate's names (ms); one absent is left unset (None)."""
    given = config.get("settings")
    if not given:
        return dict(DEFAULT_SETTINGS)
    return {name: float(value) for name, value in given.items()}


def set_constants(settings: Dict[str, float]) -> None:
    """Assigns the run's values of procrastinate's hard-coded timing constants."""
    from procrastinate import periodic, psycopg_connector, utils

    periodic.MARGIN = settings["MARGIN"] / 1000
    utils.CANCEL_TIMEOUT = settings["CANCEL_TIMEOUT"] / 1000
    # `timeout: float = connector.LISTEN_TIMEOUT` is bound at import: the default is replaced.
    loop_notify = psycopg_connector.PsycopgConnector._loop_notify
    inner = getattr(loop_notify, "__wrapped__", loop_notify)
    inner.__defaults__ = (settings["LISTEN_TIMEOUT"] / 1000,)


def define_recipe(app: Any, settings: Dict[str, float]) -> None:
    """procrastinate's documented stalled-job recipe, its cron and horizon the run's.

    The docs' code, with the two values a user would set: the cron and ``seconds_since_heartbeat``.
    """
    seconds_since_heartbeat = settings["seconds_since_heartbeat"] / 1000

    @app.periodic(cron=recipe_cron(settings["retry_stalled_jobs cron"]))
    @app.task(queueing_lock="retry_stalled_jobs", pass_context=True)
    async def retry_stalled_jobs(context: Any, timestamp: int) -> None:
        stalled_jobs = await app.job_manager.get_stalled_jobs(
            seconds_since_heartbeat=seconds_since_heartbeat
        )
        for job in stalled_jobs:
            await app.job_manager.retry_job(job)


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
        settings = settings_of(worker.config)
        set_constants(settings)
        app, plan_retry = make_app(worker.database_url, worker.worker_id, settings)

        @app.task(name=TASK, queue=QUEUE, pass_context=True, retry=plan_retry)
        async def leaseproof(context: Any, **plan: Any) -> None:
            job = context.job
            try:
                await worker.run_job(str(job.id), str(job.worker_id), job.attempts + 1, plan)
            except PlannedFailure:
                raise

        define_recipe(app, settings)
        await app.open_async()
        self.app = app

    async def run(self, worker: NativeWorker) -> None:
        settings = settings_of(worker.config)
        seconds = lambda name: settings[name] / 1000  # noqa: E731
        graceful = settings.get("shutdown_graceful_timeout")
        self.task = asyncio.ensure_future(
            self.app.run_worker_async(
                # Every queue, as `procrastinate worker` does by default: the recipe's task is
                # on procrastinate's default queue, the run's jobs on leaseproof's.
                queues=None,
                concurrency=int(settings["concurrency"]),
                wait=True,
                install_signal_handlers=False,
                listen_notify=True,
                fetch_job_polling_interval=seconds("fetch_job_polling_interval"),
                abort_job_polling_interval=seconds("abort_job_polling_interval"),
                update_heartbeat_interval=seconds("update_heartbeat_interval"),
                stalled_worker_timeout=seconds("stalled_worker_timeout"),
                shutdown_graceful_timeout=None if graceful is None else graceful / 1000,
                delete_jobs="never",
            )
        )
        try:
            await self.task
        except asyncio.CancelledError:
            if not worker.stopping:
                raise
            return
        if not worker.stopping:
            # procrastinate stops its worker, gracefully, when a side task fails (its heartbeat,
            # periodic deferrer or listener lost the database: worker.py's _monitor_side_tasks),
            # and run_worker_async returns; `procrastinate worker` then exits and the user's
            # supervisor starts it again — as the runner does on this error.
            raise RuntimeError("procrastinate's worker stopped by itself: a side task failed")

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
