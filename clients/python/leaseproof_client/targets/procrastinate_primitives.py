"""procrastinate's own statements behind leaseproof's loop (primitives mode).

Each primitive is the statement procrastinate's worker runs for that step, from
``procrastinate.sql.queries`` (its own text, psycopg's own placeholders): a claim is
``fetch_job`` for this worker's ``procrastinate_workers`` row (registered on first need, and
heartbeated first: a worker that fetches is alive, as procrastinate's always-on heartbeat
keeps it); an extension is ``update_heartbeat`` — the worker's row, so it extends every job the
worker holds — and the answer is whether the job is still ``doing`` under this worker; an ack
is ``finish_job(…, 'succeeded')``; a failure is ``retry_job`` at the worker's clock's now, as
procrastinate's retry does, or ``finish_job(…, 'failed')`` once the attempts are spent. Setup,
enqueue, the audit and the stalled-job recipe are the native adapter's (leaseproof's
``procrastinate-statements`` queue reuses them).
"""

from __future__ import annotations

import datetime
from typing import Any, Dict, Optional, Tuple

import psycopg
from procrastinate.sql import queries as QUERIES

from leaseproof_client import serve

# Imported here, not at the first call: the program starts before the worker says ready, and a
# first claim or heartbeat must not pay for importing procrastinate inside a lease.

QUEUE = "leaseproof"
DEFAULT_MAX_ATTEMPTS = 5


def _queries() -> Dict[str, str]:
    return QUERIES


class ProcrastinateStatements:
    name = "procrastinate-statements"
    description = "procrastinate 3.10's own statements (fetch, heartbeat, finish, retry)"
    # The controller's adapter replaces this with the native adapter's audit description.
    audit = {
        "table": "procrastinate_jobs",
        "expressions": {"jobId": "r.id::text", "holder": "NULL", "deadline": "NULL", "state": "'pending'"},
        "completion": "update",
    }

    def __init__(self) -> None:
        self.workers: Dict[Tuple[str, str], int] = {}

    def _worker(self, db: Any, ctx: Dict[str, Any]) -> int:
        key = (str(db.info.dbname), str(ctx["workerId"]))
        worker_id = self.workers.get(key)
        if worker_id is None:
            row = db.execute(_queries()["register_worker"]).fetchone()
            worker_id = int(row[0])
            self.workers[key] = worker_id
        return worker_id

    def setup(self, db: Any, ctx: Dict[str, Any]) -> None:
        raise NotImplementedError("set up by leaseproof's procrastinate adapter")

    def teardown(self, db: Any) -> None:
        pass

    def enqueue(self, db: Any, jobs: Any, ctx: Dict[str, Any]) -> Any:
        raise NotImplementedError("enqueued by leaseproof's procrastinate adapter")

    def claim(self, db: Any, ctx: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        q = _queries()
        worker_id = self._worker(db, ctx)
        db.execute(q["update_heartbeat"], {"worker_id": worker_id})
        row = db.execute(q["fetch_job"], {"queues": [QUEUE], "worker_id": worker_id}).fetchone()
        if row is None or row[0] is None:
            return None
        job_id, args, attempts = row[0], row[6], row[9]
        return {
            "jobId": str(job_id),
            "token": str(worker_id),
            "attempt": int(attempts) + 1,
            "payload": args or {},
        }

    def _held(self, db: Any, claim: Dict[str, Any]) -> bool:
        row = db.execute(
            "SELECT status = 'doing' AND worker_id = %s FROM procrastinate_jobs WHERE id = %s",
            (int(claim["token"]), int(claim["jobId"])),
        ).fetchone()
        return bool(row and row[0])

    def extend(self, db: Any, claim: Dict[str, Any], ctx: Dict[str, Any]) -> bool:
        db.execute(_queries()["update_heartbeat"], {"worker_id": int(claim["token"])})
        return self._held(db, claim)

    def _finish(self, db: Any, claim: Dict[str, Any], status: str) -> bool:
        try:
            db.execute(
                _queries()["finish_job"],
                {"job_id": int(claim["jobId"]), "status": status, "delete_job": False},
            )
            return True
        except psycopg.errors.RaiseException as error:
            # procrastinate's own refusal: the job is no longer todo or doing (definite).
            if "not found" in str(error):
                return False
            raise

    def ack(self, db: Any, claim: Dict[str, Any], ctx: Dict[str, Any]) -> bool:
        return self._finish(db, claim, "succeeded")

    def fail(self, db: Any, claim: Dict[str, Any], error: str, ctx: Dict[str, Any]) -> bool:
        limit = int((claim.get("payload") or {}).get("_maxAttempts") or DEFAULT_MAX_ATTEMPTS)
        if int(claim["attempt"]) >= limit:
            return self._finish(db, claim, "failed")
        try:
            db.execute(
                _queries()["retry_job"],
                {
                    "job_id": int(claim["jobId"]),
                    # procrastinate's retry: now on the worker's clock, plus no wait.
                    "retry_at": datetime.datetime.now(tz=datetime.timezone.utc),
                    "new_priority": None,
                    "new_queue_name": None,
                    "new_lock": None,
                },
            )
            return True
        except psycopg.errors.RaiseException as failure:
            if "not found" in str(failure) or "invalid status" in str(failure):
                return False
            raise


if __name__ == "__main__":
    serve(ProcrastinateStatements())
