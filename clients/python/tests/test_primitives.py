"""The Python client's own tests: the protocol loop, without a database (a fake connection)."""

import io
import json
import unittest

from leaseproof_client import PROTOCOL_VERSION, Connections, serve


class FakeInfo:
    backend_pid = 4242


class FakeConnection:
    closed = False
    info = FakeInfo()

    def close(self):
        self.closed = True


class Queue:
    name = "fake"
    description = "a queue that answers without a database"
    audit = {"table": "t", "expressions": {}, "completion": "update"}

    def __init__(self):
        self.calls = []

    def setup(self, db, ctx):
        self.calls.append(("setup", ctx["workerId"]))

    def teardown(self, db):
        pass

    def enqueue(self, db, jobs, ctx):
        return list(range(1, len(jobs) + 1))

    def claim(self, db, ctx):
        return {"jobId": "1", "token": "t1", "attempt": 1, "payload": {}}

    def ack(self, db, claim, ctx):
        if claim["token"] != "t1":
            return False
        return True

    def fail(self, db, claim, error, ctx):
        raise RuntimeError("connection reset by peer")


def converse(queue, requests):
    opened = []

    def connect(url, **kwargs):
        opened.append((url, kwargs["application_name"]))
        return FakeConnection()

    stdin = io.StringIO("".join(json.dumps(r) + "\n" for r in requests) + "not json\n")
    stdout = io.StringIO()
    serve(queue, stdin=stdin, stdout=stdout, connections=Connections(connect))
    return [json.loads(line) for line in stdout.getvalue().splitlines()], opened


CONN = {"url": "postgres://x/run", "applicationName": "w1"}


class ServeTest(unittest.TestCase):
    def test_describe_names_the_protocol_and_the_optional_ops(self):
        answers, _ = converse(Queue(), [{"id": 1, "op": "describe"}])
        self.assertEqual(answers[0]["id"], 1)
        self.assertEqual(answers[0]["ok"]["protocol"], PROTOCOL_VERSION)
        self.assertEqual(answers[0]["ok"]["name"], "fake")
        self.assertEqual(answers[0]["ok"]["ops"], [])

    def test_operations_answer_with_their_result_and_the_backend_pid(self):
        queue = Queue()
        answers, opened = converse(
            queue,
            [
                {"id": 1, "op": "setup", "conn": CONN},
                {"id": 2, "op": "enqueue", "conn": CONN, "jobs": [{}, {}]},
                {"id": 3, "op": "claim", "conn": CONN, "lease": {"durationMs": 800}},
                {"id": 4, "op": "ack", "conn": CONN, "claim": {"jobId": "1", "token": "t1"}},
                {"id": 5, "op": "ack", "conn": CONN, "claim": {"jobId": "1", "token": "old"}},
            ],
        )
        self.assertEqual([a["id"] for a in answers[:5]], [1, 2, 3, 4, 5])
        self.assertEqual(answers[1]["ok"], ["1", "2"])
        self.assertEqual(answers[2]["ok"]["token"], "t1")
        self.assertIs(answers[3]["ok"], True)
        self.assertIs(answers[4]["ok"], False)
        self.assertTrue(all(a["pid"] == 4242 for a in answers[:5]))
        # One connection, opened once, named as leaseproof asked.
        self.assertEqual(opened, [("postgres://x/run", "w1")])
        self.assertEqual(queue.calls, [("setup", "w1")])

    def test_an_exception_is_an_indefinite_error_and_the_connection_is_reopened(self):
        answers, opened = converse(
            Queue(),
            [
                {"id": 1, "op": "fail", "conn": CONN, "claim": {}, "error": "boom"},
                {"id": 2, "op": "claim", "conn": CONN},
            ],
        )
        self.assertEqual(answers[0]["error"], "RuntimeError: connection reset by peer")
        self.assertIn("ok", answers[1])
        self.assertEqual(len(opened), 2)

    def test_a_line_that_is_not_a_request_is_answered_as_such(self):
        answers, _ = converse(Queue(), [])
        self.assertEqual(answers, [{"id": None, "error": "not a request: not json"}])

    def test_clock_reads_wall_and_monotonic_time_together(self):
        answers, _ = converse(Queue(), [{"id": 1, "op": "clock"}])
        self.assertGreater(answers[0]["ok"]["wallMs"], 1.6e12)
        self.assertGreater(answers[0]["ok"]["monotonicMs"], 0)


if __name__ == "__main__":
    unittest.main()
