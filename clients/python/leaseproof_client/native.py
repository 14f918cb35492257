"""The native side of leaseproof's worker protocol: the queue library's *own* worker loop.

In native mode leaseproof's loop does not run. This program is the worker: it reads the worker
wire format (``docs/worker-wire-format.md``) as JSON lines on stdin — ``config`` first, then
``go``, ``clock``, ``stall``, ``report-clock`` — runs the library's own fetch / heartbeat /
completion loop, and runs leaseproof's handler plan (the job payload's units, effects and
planned failures) as the library's handler, streaming what it did as ``events`` lines on
stdout. Event times (``at``) are CLOCK_MONOTONIC in milliseconds (``time.monotonic_ns()``),
which leaseproof moves onto its own clock: one monotonic clock serves every process on a host.

A target is an object with three coroutines, called in this order:

- ``prepare(worker)``: connect the library to ``worker.database_url`` (the worker's own
  Toxiproxy proxy) with ``application_name = worker.worker_id``; the worker says ``ready`` after.
- ``run(worker)``: after ``go``, run the library's loop until ``stop`` is called; the library's
  handler calls ``await worker.run_job(job_id, token, attempt, payload)``, which raises
  ``PlannedFailure`` for the attempts the plan fails.
- ``stop(worker)``: begin the library's graceful shutdown (on SIGTERM): finish the job in hand.

The database audit stays the ground truth: what this program reports is the handler's word
(claims seen, units, effects), as leaseproof's own worker reports it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Protocol, TextIO

WIRE_FORMAT_VERSION = 1


def monotonic_ms() -> float:
    """CLOCK_MONOTONIC in ms: the time base of every event this program sends."""
    return time.monotonic_ns() / 1e6


class PlannedFailure(Exception):
    """The handler plan fails this attempt (``failAttempts``): a transient error, by design."""


class Target(Protocol):
    """A queue library's own worker loop, as the native runner drives it."""

    async def prepare(self, worker: "NativeWorker") -> None: ...

    async def run(self, worker: "NativeWorker") -> None: ...

    async def stop(self, worker: "NativeWorker") -> None: ...


def busy_wait(ms: float) -> None:
    """Blocks this thread (the event loop) for ``ms`` of monotonic time: a synchronous unit."""
    until = time.monotonic() + ms / 1000
    while time.monotonic() < until:
        pass


class RunQueueWait:
    """This thread's cumulative run-queue wait in ms (``/proc/thread-self/schedstat``), or None."""

    def __init__(self) -> None:
        try:
            self._fd: Optional[int] = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self._fd = None

    def read(self) -> Optional[float]:
        if self._fd is None:
            return None
        try:
            fields = os.pread(self._fd, 128, 0).split()
            return int(fields[1]) / 1e6
        except (OSError, ValueError, IndexError):
            return None


class NativeWorker:
    """One native worker process: the wire format on stdin/stdout, the handler plan, probes."""

    def __init__(self, target: Target, out: TextIO = sys.stdout, inp: TextIO = sys.stdin) -> None:
        self.target = target
        self._out = out
        self._in = inp
        self._lock = threading.Lock()
        self.config: Dict[str, Any] = {}
        self._offset_ms = 0.0
        self._drift_ppm = 0.0
        self._skew_since = monotonic_ms()
        self._effects: Any = None
        self._go = asyncio.Event()
        self._stopping = False
        self.exit_reason = "stopped"
        self._messages: "asyncio.Queue[Optional[Dict[str, Any]]]" = asyncio.Queue()

    # The configuration, by name.
    @property
    def worker_id(self) -> str:
        return str(self.config["workerId"])

    @property
    def database_url(self) -> str:
        return str(self.config["databaseUrl"])

    @property
    def lease(self) -> Dict[str, float]:
        return dict(self.config["lease"])

    @property
    def settings(self) -> Dict[str, float]:
        """The library's own settings as the run settled them (ms for a duration); empty when
        the controller sent none."""
        return dict(self.config.get("settings") or {})

    @property
    def stopping(self) -> bool:
        return self._stopping

    def emit(self, kind: str, **fields: Any) -> None:
        """Sends one event, stamped now on the monotonic clock."""
        line = json.dumps({"type": "events", "events": [{"kind": kind, "at": monotonic_ms(), **fields}]})
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    async def run_job(self, job_id: str, token: str, attempt: int, payload: Dict[str, Any]) -> None:
        """Runs leaseproof's handler plan for one claim the library handed its handler.

        Reports the claim (as the handler saw it: the library's own claim statement is not
        visible here; the audit has it), each unit, each effect (recorded in
        ``leaseproof_effects`` over the direct connection first), and a cancellation by the
        library between units as ``abort``. Raises ``PlannedFailure`` after the last unit of
        an attempt the plan fails.
        """
        self.emit("claim", outcome="ok", jobId=job_id, token=token, attempt=attempt)
        units = payload.get("units")
        if not isinstance(units, list):
            raise ValueError('job payload has no "units" array')
        fail_attempts = payload.get("failAttempts", 0)
        index = 0
        try:
            for index, unit in enumerate(units):
                self.emit("unit", jobId=job_id, token=token, unit=index, effect=bool(unit.get("effect")))
                if unit.get("sync"):
                    busy_wait(float(unit["ms"]))
                else:
                    await asyncio.sleep(float(unit["ms"]) / 1000)
                if unit.get("effect"):
                    recorded = await self._record_effect(job_id, token, index)
                    self.emit("effect", jobId=job_id, token=token, unit=index, recorded=recorded)
        except asyncio.CancelledError:
            # The library cancelled its handler (a lost lease, a shutdown): the unit in hand ran
            # to its end or was cut at an await; the next one never starts.
            self.emit("abort", jobId=job_id, token=token, unit=index + 1)
            raise
        if isinstance(fail_attempts, int) and attempt <= fail_attempts:
            raise PlannedFailure(f"planned failure of attempt {attempt} (failAttempts {fail_attempts})")

    async def _record_effect(self, job_id: str, token: str, unit: int) -> bool:
        try:
            if self._effects is None or self._effects.closed:
                import psycopg

                self._effects = await psycopg.AsyncConnection.connect(
                    self.config["effectsUrl"], autocommit=True, application_name=self.worker_id
                )
            await self._effects.execute(
                "INSERT INTO leaseproof_effects (job_id, worker_id, token, unit) VALUES (%s, %s, %s, %s)",
                (job_id, self.worker_id, token, unit),
            )
            return True
        except Exception as error:  # noqa: BLE001 - an effect not on record is reported as such
            print(f"effect not recorded: {error}", file=sys.stderr)
            self._effects = None
            return False

    # Control messages.
    def _skew_now(self) -> float:
        drift = self._drift_ppm * (monotonic_ms() - self._skew_since) / 1e6
        return self._offset_ms + drift

    def _report_clock(self) -> None:
        worker_now = time.time() * 1000
        self.emit("clock", workerNow=worker_now, realNow=worker_now - self._skew_now())

    def _on_message(self, message: Dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "go":
            self._go.set()
        elif kind == "clock":
            skew = message["skew"]
            self._offset_ms = float(skew.get("offsetMs", 0))
            self._drift_ppm = float(skew.get("driftPpm", 0) or 0)
            self._skew_since = monotonic_ms()
            self._report_clock()
        elif kind == "report-clock":
            self._report_clock()
        elif kind == "stall":
            self.emit("stall", ms=message["ms"])
            # The event loop is the library's and the handler's: a stall blocks both.
            busy_wait(float(message["ms"]))

    async def _probe(self, period_ms: float, threshold_ms: float) -> None:
        """Reports ticks whose thread waited for a CPU (not ran its own work) past the threshold."""
        wait = RunQueueWait()
        last = wait.read()
        expected = monotonic_ms() + period_ms
        while True:
            await asyncio.sleep(period_ms / 1000)
            now = monotonic_ms()
            late = max(0.0, now - expected)
            expected = now + period_ms
            current = wait.read()
            waited = None if current is None or last is None else current - last
            last = current
            starved = 0.0 if waited is None else min(late, waited)
            if starved > threshold_ms:
                self.emit(
                    "starved", thread="main", ms=round(starved), lateMs=round(late), waitMs=round(waited or 0)
                )

    def _read_stdin(self, loop: asyncio.AbstractEventLoop) -> None:
        def post(message: Optional[Dict[str, Any]]) -> None:
            try:
                loop.call_soon_threadsafe(self._messages.put_nowait, message)
            except RuntimeError:
                pass  # the loop is closed: this worker is ending anyway

        for line in self._in:
            line = line.strip()
            if line == "":
                continue
            try:
                message = json.loads(line)
            except ValueError:
                print(f"not a control message: {line[:120]}", file=sys.stderr)
                continue
            post(message)
        # The controller went away: a worker never outlives it.
        post(None)

    async def main(self) -> int:
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read_stdin, args=(loop,), daemon=True).start()
        first = await self._messages.get()
        if first is None or first.get("type") != "config":
            print(f"expected a config message first, got {first!r}", file=sys.stderr)
            return 2
        if first.get("wireFormat") != WIRE_FORMAT_VERSION:
            print(f"wire format {first.get('wireFormat')} is not {WIRE_FORMAT_VERSION}", file=sys.stderr)
            return 2
        self.config = first["config"]
        clock = self.config.get("clock")
        if clock:
            self._offset_ms = float(clock.get("offsetMs", 0))
            self._drift_ppm = float(clock.get("driftPpm", 0) or 0)
        loop.add_signal_handler(signal.SIGTERM, self._on_sigterm)
        await self.target.prepare(self)
        # The library's loop sets itself up after go: at work from its first claim.
        self.emit("ready", pid=os.getpid(), wireFormat=WIRE_FORMAT_VERSION, startsOnGo=True)
        pump = asyncio.create_task(self._pump())
        await self._go.wait()
        starvation = self.config.get("starvation") or {"periodMs": 20, "thresholdMs": 10}
        probe = asyncio.create_task(self._probe(starvation["periodMs"], starvation["thresholdMs"]))
        try:
            await self._supervise()
        finally:
            probe.cancel()
            pump.cancel()
            if self._effects is not None:
                await self._effects.close()
        self.emit("exit", reason=self.exit_reason)
        return 0

    async def _supervise(self) -> None:
        """Runs the library's loop, and starts it afresh whenever it ends with an error.

        A library's worker loop that gives up (its connection lost to a partition or a database
        restart) would be restarted by the user's process supervisor (systemd, Kubernetes); here
        the runner is that supervisor, without the process restart: the error is reported (a
        ``claim`` with outcome ``info``, as a fetch on a broken connection; the traceback on
        stderr), the target is prepared again — a new
        connection, a new worker identity — until that succeeds, and run again. The worker
        counts as back at its next event (its next claim): a library's start-up after the
        restart is the supervisor's doing, not a free worker's delay (a target that can tell
        when its loop is fetching again may say ``connect`` itself). Set ``LEASEPROOF_NATIVE_SUPERVISE=0`` to let the program exit instead
        (leaseproof then reports the run as an error).
        """
        supervise = os.environ.get("LEASEPROOF_NATIVE_SUPERVISE", "1") != "0"
        pause = max(0.05, float(self.lease.get("pollMs", 100)) / 1000)
        while not self._stopping:
            try:
                await self.target.run(self)
                return
            except Exception as error:  # noqa: BLE001 - reported, then restarted like a supervisor
                if self._stopping or not supervise:
                    raise
                traceback.print_exc()
                # Reported as leaseproof's own worker reports a fetch that failed on a broken
                # connection — a claim whose outcome is unknown — so the history counts the worker
                # as still cut off until it works again, not as a free worker while it restarts.
                self.emit(
                    "claim",
                    outcome="info",
                    error=f"the library's loop ended: {type(error).__name__}: {error}",
                )
            while not self._stopping:
                await asyncio.sleep(pause)
                try:
                    await self.target.prepare(self)
                    break
                except Exception as error:  # noqa: BLE001 - still cut off: try again
                    print(f"restarting the library's loop: {error}", file=sys.stderr)

    async def _pump(self) -> None:
        while True:
            message = await self._messages.get()
            if message is None:
                self.exit_reason = "controller disconnected"
                os._exit(0)
            self._on_message(message)

    def _on_sigterm(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        self.exit_reason = "SIGTERM"
        self._go.set()
        asyncio.get_running_loop().create_task(self.target.stop(self))


def run_native(make_target: Callable[[], Target]) -> None:
    """Runs a native worker program to its end: ``run_native(MyLibraryTarget)``."""
    # stdout carries nothing but events: a library's prints go to stderr.
    out = sys.stdout
    sys.stdout = sys.stderr
    worker = NativeWorker(make_target(), out=out)
    sys.exit(asyncio.run(worker.main()))


__all__: List[str] = ["NativeWorker", "PlannedFailure", "Target", "monotonic_ms", "run_native", "WIRE_FORMAT_VERSION"]
