"""Events' one home, between the domains and the kit: the catalogue of every kind of event
(``catalogue``: its name, who may see it, its webhook filter bit, its payloads, the ways it
goes out or the reason it does not), the payloads as types (``payloads``), how a write
announces a change (``changes``: PostgreSQL's NOTIFY in its transaction, this process's sinks
after its commit) and writes its webhook deliveries with it (``outbox``, with its SQL in
``repository``). The domains emit events; app/webhooks and app/live deliver them."""
