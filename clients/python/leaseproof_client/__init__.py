"""leaseproof's Python client: a queue's own code, driven by leaseproof over JSON lines.

``serve(queue)`` answers leaseproof's primitives requests (claim / extend / ack / fail /
checkpoint, setup / enqueue / teardown) with the queue's own Python code; the protocol is
written down in leaseproof's ``docs/worker-protocol.md``.
"""

from .primitives import PROTOCOL_VERSION, Connections, serve

__all__ = ["PROTOCOL_VERSION", "Connections", "serve"]
