"""Hardening: concurrency, faults, hostile input, security and operations (issue 4)."""
