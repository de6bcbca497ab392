"""The application database (SQLModel tables, run store, migrations plumbing) and the
session-context store (Redis or in-process)."""
