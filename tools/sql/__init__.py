"""Read-only SQL evidence: the statement guard, real datasources and the world fixture."""
