"""The primitives side of leaseproof's worker protocol, version 1.

leaseproof's own worker loop (claims, heartbeats from a thread of their own, the watchdog, the
handler's units and effects) runs in its Node.js worker process; every queue operation of that
loop is a request on this program's stdin, answered on its stdout, one JSON object per line:

    {"id": 7, "op": "ack", "conn": {...}, "claim": {...}, "lease": {...}, "workerNow": 1.7e12}
    {"id": 7, "ok": true, "pid": 4242}

An answer is ``ok`` (the operation's result) or ``error`` (text): an exception is an
*indefinite* outcome (the write may have happened), so a queue method returns ``False`` for a
definite refusal (the claim was lost) and raises only when it does not know. ``pid`` is the
database backend pid the call ran on: leaseproof ties the call to the write the audit trigger
recorded by it. stdout carries nothing but answers; anything else goes to stderr.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from typing import Any, Callable, Dict, Optional, TextIO, Tuple

PROTOCOL_VERSION = 1


class Connections:
    """One autocommit psycopg connection per (url, application_name), reopened after a loss.

    leaseproof names every connection: the audit trigger tells a worker's writes from the
    controller's and the sweep's by ``application_name``. A connection that failed is dropped,
    so the next call opens a fresh one (as a worker reconnects after a partition heals).
    """

    def __init__(self, connect: Optional[Callable[..., Any]] = None) -> None:
        self._connect = connect
        self._open: Dict[Tuple[str, str], Any] = {}

    def get(self, conn: Dict[str, Any]) -> Any:
        key = (conn["url"], conn["applicationName"])
        existing = self._open.get(key)
        if existing is not None and not existing.closed:
            return existing
        connect = self._connect
        if connect is None:
            import psycopg  # imported here: a queue under test without a database needs none

            connect = psycopg.connect
        options = {}
        timeout = conn.get("statementTimeoutMs")
        if timeout:
            options["options"] = f"-c statement_timeout={int(timeout)}"
        connection = connect(
            conn["url"],
            autocommit=True,
            application_name=conn["applicationName"],
            connect_timeout=max(1, int((timeout or 5000) / 1000)),
            **options,
        )
        self._open[key] = connection
        # Each run has a database of its own: keep the newest few, not one per run ever served.
        while len(self._open) > 4:
            oldest = next(iter(self._open))
            self.forget({"url": oldest[0], "applicationName": oldest[1]})
        return connection

    def forget(self, conn: Dict[str, Any]) -> None:
        key = (conn["url"], conn["applicationName"])
        connection = self._open.pop(key, None)
        if connection is not None:
            try:
                connection.close()
            except Exception:  # noqa: BLE001 - a broken connection may fail to close; it is gone
                pass

    def close(self) -> None:
        for key in list(self._open):
            self.forget({"url": key[0], "applicationName": key[1]})


def _describe(queue: Any) -> Dict[str, Any]:
    ops = [op for op in ("extend", "checkpoint") if callable(getattr(queue, op, None))]
    description = {
        "protocol": PROTOCOL_VERSION,
        "name": getattr(queue, "name"),
        "description": getattr(queue, "description", ""),
        "audit": getattr(queue, "audit"),
        "ops": ops,
    }
    retries = getattr(queue, "retries", None)
    if retries is not None:
        description["retries"] = bool(retries)
    return description


def _call(queue: Any, db: Any, request: Dict[str, Any]) -> Any:
    op = request["op"]
    ctx = {
        "workerId": request.get("conn", {}).get("applicationName"),
        "lease": request.get("lease"),
        "workerNow": request.get("workerNow"),
    }
    if op == "setup":
        return queue.setup(db, ctx)
    if op == "teardown":
        return queue.teardown(db)
    if op == "enqueue":
        return [str(i) for i in queue.enqueue(db, request["jobs"], ctx)]
    if op == "claim":
        return queue.claim(db, ctx)
    if op in ("extend", "ack"):
        return bool(getattr(queue, op)(db, request["claim"], ctx))
    if op == "fail":
        return bool(queue.fail(db, request["claim"], request.get("error", ""), ctx))
    if op == "checkpoint":
        return bool(queue.checkpoint(db, request["claim"], request["cursor"], ctx))
    raise ValueError(f"unknown op {op!r}")


def _backend_pid(db: Any) -> Optional[int]:
    try:
        return int(db.info.backend_pid)
    except Exception:  # noqa: BLE001 - a closed connection has no pid to report
        return None


def serve(
    queue: Any,
    stdin: Optional[TextIO] = None,
    stdout: Optional[TextIO] = None,
    connections: Optional[Connections] = None,
) -> None:
    """Answers leaseproof's requests with ``queue``'s methods until stdin closes.

    ``queue`` has ``name``, ``description``, ``audit`` (where the lease lives, as leaseproof's
    ``AuditDescription``), optionally ``retries``, and the methods ``setup(db, ctx)``,
    ``teardown(db)``, ``enqueue(db, jobs, ctx)``, ``claim(db, ctx)`` (a dict with ``jobId``,
    ``token``, ``attempt``, ``payload`` and optionally ``cursor``, or ``None``), ``ack``,
    ``fail``, and optionally ``extend`` and ``checkpoint``. ``db`` is an autocommit psycopg
    connection opened by this client, named as leaseproof asks.
    """
    source = stdin if stdin is not None else sys.stdin
    sink = stdout if stdout is not None else sys.stdout
    # stdout is the protocol: a stray print() in the queue's code would break it.
    if stdout is None:
        sys.stdout = sys.stderr
    pool = connections if connections is not None else Connections()

    def answer(message: Dict[str, Any]) -> None:
        sink.write(json.dumps(message, separators=(",", ":")) + "\n")
        sink.flush()

    try:
        for line in source:
            if line.strip() == "":
                continue
            try:
                request = json.loads(line)
                request_id = request["id"]
            except (ValueError, KeyError, TypeError):
                answer({"id": None, "error": f"not a request: {line.strip()[:200]}"})
                continue
            if request.get("op") == "clock":
                # The program's own clocks, read together: the wall clock its queue code reads
                # (skewed by libfaketime when leaseproof skews this worker) and the monotonic one
                # (never skewed). Lets a test see that a skew reached the program.
                answer(
                    {
                        "id": request_id,
                        "ok": {
                            "wallMs": time.time() * 1000,
                            "monotonicMs": time.monotonic_ns() / 1e6,
                        },
                    }
                )
                continue
            if request.get("op") == "describe":
                try:
                    answer({"id": request_id, "ok": _describe(queue)})
                except Exception as error:  # noqa: BLE001 - told to leaseproof, which stops
                    answer({"id": request_id, "error": f"describe: {error!r}"})
                continue
            db = None
            try:
                db = pool.get(request["conn"])
                result = _call(queue, db, request)
                reply = {"id": request_id, "ok": result}
            except Exception as error:  # noqa: BLE001 - every failure is an indefinite answer
                traceback.print_exc(file=sys.stderr)
                reply = {"id": request_id, "error": f"{type(error).__name__}: {error}"}
                if "conn" in request:
                    pool.forget(request["conn"])
            pid = _backend_pid(db) if db is not None else None
            if pid is not None:
                reply["pid"] = pid
            answer(reply)
    finally:
        pool.close()
