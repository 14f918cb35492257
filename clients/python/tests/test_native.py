"""The native runner's own tests: the wire format over in-memory streams, a fake target, no
database (the handler plans below have no effects)."""

import asyncio
import io
import json
import os
import time
import unittest

from leaseproof_client.native import NativeWorker, PlannedFailure, WIRE_FORMAT_VERSION, monotonic_ms

CONFIG = {
    "workerId": "w1",
    "queue": "fake",
    "databaseUrl": "postgres://proxy",
    "effectsUrl": "postgres://direct",
    "lease": {"durationMs": 1000, "heartbeatMs": 250, "extendByMs": 1000, "pollMs": 50},
}


class Target:
    """Hands each job in `jobs` to the handler plan, then waits for stop."""

    def __init__(self, jobs):
        self.jobs = jobs
        self.prepared = 0
        self.outcomes = []
        self.done = None

    async def prepare(self, worker):
        self.prepared += 1
        self.done = asyncio.Event()

    async def run(self, worker):
        for job_id, attempt, payload in self.jobs:
            try:
                await worker.run_job(job_id, "t-" + job_id, attempt, payload)
                self.outcomes.append("ok")
            except PlannedFailure as error:
                self.outcomes.append(str(error))
        worker._on_sigterm()
        await self.done.wait()

    async def stop(self, worker):
        self.done.set()


def run(target, messages):
    """Runs a worker on `messages`; stdin stays open (its end means the controller is gone)."""
    out = io.StringIO()
    read_end, write_end = os.pipe()
    os.write(write_end, "".join(json.dumps(m) + "\n" for m in messages).encode())
    worker = NativeWorker(target, out=out, inp=os.fdopen(read_end))
    try:
        code = asyncio.run(worker.main())
    finally:
        os.close(write_end)
    events = [e for line in out.getvalue().splitlines() for e in json.loads(line)["events"]]
    return code, events


class NativeRunnerTest(unittest.TestCase):
    def test_config_ready_go_then_the_plan_with_units_and_a_planned_failure(self):
        before = monotonic_ms()
        plan = {"units": [{"ms": 5}, {"ms": 5, "sync": True}], "failAttempts": 1}
        target = Target([("1", 1, plan), ("1", 2, plan)])
        config = {"type": "config", "wireFormat": WIRE_FORMAT_VERSION, "config": CONFIG}
        code, events = run(target, [config, {"type": "go"}])
        self.assertEqual(code, 0)
        kinds = [e["kind"] for e in events if e["kind"] != "starved"]
        self.assertEqual(kinds, ["ready", "claim", "unit", "unit", "claim", "unit", "unit", "exit"])
        self.assertEqual(events[0]["wireFormat"], WIRE_FORMAT_VERSION)
        self.assertIs(events[0]["startsOnGo"], True)
        # Attempt 1 fails by plan, attempt 2 completes.
        self.assertEqual(target.outcomes[1], "ok")
        self.assertRegex(target.outcomes[0], "planned failure of attempt 1")
        claim = next(e for e in events if e["kind"] == "claim")
        self.assertEqual((claim["jobId"], claim["token"], claim["attempt"]), ("1", "t-1", 1))
        # Times are CLOCK_MONOTONIC ms: after the test began, in order.
        times = [e["at"] for e in events]
        self.assertGreaterEqual(times[0], before)
        self.assertEqual(times, sorted(times))
        self.assertEqual(events[-1]["reason"], "SIGTERM")

    def test_refuses_a_first_message_that_is_not_its_config(self):
        code, events = run(Target([]), [{"type": "go"}])
        self.assertEqual(code, 2)
        self.assertEqual(events, [])

    def test_refuses_another_wire_format(self):
        config = {"type": "config", "wireFormat": WIRE_FORMAT_VERSION + 1, "config": CONFIG}
        code, _ = run(Target([]), [config])
        self.assertEqual(code, 2)

    def test_reports_its_clock_with_the_skew_it_was_told(self):
        worker = NativeWorker(Target([]), out=io.StringIO(), inp=io.StringIO(""))
        worker.config = CONFIG
        worker._on_message({"type": "clock", "skew": {"offsetMs": 3_600_000}})
        event = json.loads(worker._out.getvalue().splitlines()[-1])["events"][0]
        self.assertEqual(event["kind"], "clock")
        # Without libfaketime here the wall clock is real: realNow is it minus the skew told.
        self.assertAlmostEqual(event["workerNow"] - event["realNow"], 3_600_000, delta=1)
        self.assertAlmostEqual(event["workerNow"], time.time() * 1000, delta=1000)

    def test_a_cancelled_handler_reports_abort_before_the_next_unit(self):
        async def main():
            worker = NativeWorker(Target([]), out=io.StringIO(), inp=io.StringIO(""))
            worker.config = CONFIG
            task = asyncio.ensure_future(
                worker.run_job("9", "t", 1, {"units": [{"ms": 5}, {"ms": 5000}, {"ms": 5}]})
            )
            await asyncio.sleep(0.1)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            return [json.loads(l)["events"][0] for l in worker._out.getvalue().splitlines()]

        events = asyncio.run(main())
        self.assertEqual([e["kind"] for e in events], ["claim", "unit", "unit", "abort"])
        self.assertEqual(events[-1]["unit"], 2)


if __name__ == "__main__":
    unittest.main()


class SettingsTest(unittest.TestCase):
    def test_the_library_settings_come_from_the_config_and_default_to_none(self):
        worker = NativeWorker(Target([]), out=io.StringIO(), inp=io.StringIO())
        worker.config = dict(CONFIG)
        self.assertEqual(worker.settings, {})
        worker.config = {**CONFIG, "settings": {"heartbeat_timeout": 1000.0}}
        self.assertEqual(worker.settings, {"heartbeat_timeout": 1000.0})


class PgqueuerSettingTest(unittest.TestCase):
    def test_a_settled_value_wins_and_a_missing_one_is_the_default_at_the_lease(self):
        from leaseproof_client.targets.pgqueuer_native import _setting

        worker = NativeWorker(Target([]), out=io.StringIO(), inp=io.StringIO())
        worker.config = {**CONFIG, "settings": {"dequeue_timeout": 800.0}}
        self.assertEqual(_setting(worker, "dequeue_timeout", 30_000.0), 800.0)
        # No settings sent: pgqueuer's default x (lease / heartbeat_timeout's 30 s).
        self.assertAlmostEqual(_setting(worker, "heartbeat_timeout", 30_000.0), 1000.0)

