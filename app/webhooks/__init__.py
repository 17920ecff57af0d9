"""Webhooks: an owner's endpoints, the signed deliveries of every change of its tables
(Standard Webhooks), written to an outbox with the change and delivered after its commit by
the serving processes themselves (delivery.py)."""
