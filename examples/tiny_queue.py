"""The README's tiny queue, written in Python: bring your own worker code.

One table, a ``locked_until`` deadline set on the database's clock, a fresh token per claim
that fences stale holders, and retries. leaseproof's worker loop drives it through
``leaseproof_client.serve`` (the primitives protocol, docs/worker-protocol.md); the adapter file
beside it (``tiny-queue-python.ts``) tells leaseproof how to start it:

    npx leaseproof suite --queue ./tiny-queue-python.ts
"""

from psycopg.types.json import Jsonb

from leaseproof_client import serve

# Held = this token, still running, deadline not passed: an expired claim is lost (strict).
HELD = "id = %s::bigint AND token = %s::uuid AND state = 'running' AND locked_until >= now()"


def in_ms(placeholder: str) -> str:
    return f"now() + {placeholder}::float8 * interval '1 millisecond'"


class TinyQueue:
    name = "tiny-python"
    description = "The tiny queue in Python: a locked_until deadline, a token per claim, retries."
    audit = {
        "table": "tiny_jobs",
        "expressions": {
            "jobId": "r.id::text",
            "holder": "CASE WHEN r.state = 'running' THEN r.token::text END",
            "deadline": "CASE WHEN r.state = 'running' THEN r.locked_until END",
            "state": "CASE r.state WHEN 'running' THEN 'held' ELSE r.state END",
        },
        "completion": "update",
    }

    def setup(self, db, ctx):
        db.execute(
            """CREATE TABLE tiny_jobs (id bigserial PRIMARY KEY, payload jsonb NOT NULL,
                 state text NOT NULL DEFAULT 'pending', -- pending | running | completed | failed
                 attempts int NOT NULL DEFAULT 0, max_attempts int NOT NULL DEFAULT 5,
                 token uuid, locked_until timestamptz, error text)"""
        )

    def teardown(self, db):
        db.execute("DROP TABLE IF EXISTS tiny_jobs")

    def enqueue(self, db, jobs, ctx):
        ids = []
        for job in jobs:
            row = db.execute(
                """INSERT INTO tiny_jobs (payload, max_attempts) VALUES (%s, coalesce(%s, 5))
                   RETURNING id::text""",
                (Jsonb(job["payload"]), job.get("maxAttempts")),
            ).fetchone()
            ids.append(row[0])
        return ids

    def claim(self, db, ctx):
        row = db.execute(
            f"""UPDATE tiny_jobs SET state = 'running', token = gen_random_uuid(),
                  attempts = attempts + 1, locked_until = {in_ms('%s')}
                WHERE id = (SELECT id FROM tiny_jobs
                  WHERE state = 'pending' OR (state = 'running' AND locked_until < now())
                  ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING id::text, token::text, attempts, payload""",
            (ctx["lease"]["durationMs"],),
        ).fetchone()
        if row is None:
            return None
        return {"jobId": row[0], "token": row[1], "attempt": row[2], "payload": row[3]}

    def _while_held(self, db, claim, assignment, *args):
        cursor = db.execute(
            f"UPDATE tiny_jobs SET {assignment} WHERE {HELD}",
            (*args, claim["jobId"], claim["token"]),
        )
        return cursor.rowcount == 1

    def extend(self, db, claim, ctx):
        return self._while_held(db, claim, f"locked_until = {in_ms('%s')}", ctx["lease"]["extendByMs"])

    def ack(self, db, claim, ctx):
        return self._while_held(db, claim, "state = 'completed'")

    # A failed attempt is offered again until its attempts run out.
    def fail(self, db, claim, error, ctx):
        return self._while_held(
            db,
            claim,
            """state = CASE WHEN attempts < max_attempts THEN 'pending' ELSE 'failed' END,
               token = NULL, locked_until = NULL, error = %s""",
            error,
        )


if __name__ == "__main__":
    serve(TinyQueue())
