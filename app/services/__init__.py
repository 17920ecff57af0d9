"""Use cases. Each public function is one transaction that has committed (or rolled back)
before it returns; the HTTP layer only validates, calls one of these and renders."""
