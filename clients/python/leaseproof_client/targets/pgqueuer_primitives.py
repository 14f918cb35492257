"""pgqueuer's own statements behind leaseproof's loop (primitives mode).

Each primitive runs the SQL pgqueuer's ``QueryQueueBuilder`` renders for that step, with its
own ``$n`` placeholders (psycopg's raw cursor takes them as asyncpg does): a claim is the
dequeue statement (``batch_size=1``, this worker's ``queue_manager_id``, the run's lease as the
heartbeat timeout — it also re-picks a stale ``picked`` job); an extension is the heartbeat
statement, and the answer is whether the row is still picked by this worker; an ack is the
status-log statement with ``successful`` (a DELETE); a failure the same with ``failed`` (held as
failed, as ``on_failure="hold"``). Setup, enqueue and the audit are the native adapter's.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any, Dict, Optional, Tuple

import psycopg
from pgqueuer.adapters.persistence.qb import QueryQueueBuilder

from leaseproof_client import serve

# Imported here, not at the first call: the program starts before the worker says ready, and a
# first claim or heartbeat must not pay for importing pgqueuer inside a lease.

ENTRYPOINT = "leaseproof"


class PgqueuerStatements:
    name = "pgqueuer-statements"
    description = "pgqueuer 1.6's own statements (dequeue, heartbeat, status log)"
    # The controller's adapter replaces this with the native adapter's audit description.
    audit = {
        "table": "pgqueuer",
        "expressions": {"jobId": "r.id::text", "holder": "NULL", "deadline": "NULL", "state": "'pending'"},
        "completion": "delete",
    }
    retries = False

    def __init__(self) -> None:
        # One queue manager per worker (per run database), as one per pgqueuer worker process.
        self.managers: Dict[Tuple[str, str], uuid.UUID] = {}

    def _manager(self, db: Any, ctx: Dict[str, Any]) -> uuid.UUID:
        key = (str(db.info.dbname), str(ctx["workerId"]))
        return self.managers.setdefault(key, uuid.uuid4())

    def _raw(self, db: Any, sql: str, args: Any) -> Any:
        cursor = psycopg.RawCursor(db)
        cursor.execute(sql, list(args))
        return cursor

    def setup(self, db: Any, ctx: Dict[str, Any]) -> None:
        raise NotImplementedError("set up by leaseproof's pgqueuer adapter")

    def teardown(self, db: Any) -> None:
        pass

    def enqueue(self, db: Any, jobs: Any, ctx: Dict[str, Any]) -> Any:
        raise NotImplementedError("enqueued by leaseproof's pgqueuer adapter")

    def claim(self, db: Any, ctx: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        import json

        manager = self._manager(db, ctx)
        query = QueryQueueBuilder().build_dequeue_query(
            batch_size=1,
            entrypoints=[ENTRYPOINT],
            concurrency_limits=[0],
            queue_manager_id=manager,
            global_concurrency_limit=None,
            heartbeat_timeout=timedelta(milliseconds=ctx["lease"]["durationMs"]),
        )
        cursor = self._raw(db, query.sql, query.args)
        row = cursor.fetchone()
        if row is None:
            return None
        columns = [c.name for c in cursor.description]
        job = dict(zip(columns, row))
        return {
            "jobId": str(job["id"]),
            "token": str(manager),
            "attempt": int(job["attempts"]) + 1,
            "payload": json.loads(bytes(job["payload"] or b"{}")),
        }

    def _held(self, db: Any, claim: Dict[str, Any]) -> bool:
        row = db.execute(
            "SELECT status = 'picked' AND queue_manager_id = %s::uuid FROM pgqueuer WHERE id = %s",
            (claim["token"], int(claim["jobId"])),
        ).fetchone()
        return bool(row and row[0])

    def extend(self, db: Any, claim: Dict[str, Any], ctx: Dict[str, Any]) -> bool:
        self._raw(db, QueryQueueBuilder().build_update_heartbeat_query(), [[int(claim["jobId"])]])
        return self._held(db, claim)

    def _log(self, db: Any, claim: Dict[str, Any], status: str) -> bool:
        cursor = self._raw(
            db, QueryQueueBuilder().build_log_job_query(), [[int(claim["jobId"])], [status], [None]]
        )
        # The log row is written only for a job the DELETE or UPDATE found: one row, it committed.
        return cursor.rowcount == 1

    def ack(self, db: Any, claim: Dict[str, Any], ctx: Dict[str, Any]) -> bool:
        return self._log(db, claim, "successful")

    def fail(self, db: Any, claim: Dict[str, Any], error: str, ctx: Dict[str, Any]) -> bool:
        return self._log(db, claim, "failed")


if __name__ == "__main__":
    serve(PgqueuerStatements())
