"""What to do first about a root cause of each category: the advice line of a rule draft's
recommendation."""

from __future__ import annotations

from graph.analysts.rules.category_cues import DEPLOY_CATEGORY, UNKNOWN_CATEGORY

CATEGORY_ADVICE: dict[str, str] = {
    "connection_pool_exhaustion": "Find what holds the connections (leaks, long transactions) and relieve "
    "the pool; roll back a recent change if it introduced the leak.",
    "memory_leak": "Check memory limits and recent allocation changes; restart only after capturing "
    "a heap profile.",
    "disk_full": "Free or extend the affected volume and find what filled it.",
    "slow_query": "Find the blocking or slow statements and their sessions before killing anything.",
    "configuration_error": "Compare the running configuration with the last known good one and revert it.",
    "cpu_saturation": "Find the hot workload and throttle or reschedule it.",
    "slow_dependency": "Check the health of the upstream dependency and the timeouts and retries calling it.",
    DEPLOY_CATEGORY: "Roll back the recent deploy and compare the versions.",
    "replication": "Check the replica's apply position, its network to the primary and what slows replay.",
    "failover": "Confirm which node is primary now, that clients follow it, and why the failover happened.",
    "checkpoint": "Check checkpoint and vacuum frequency and the write load driving them.",
    "tls": "Check the certificate chain, its expiry and the names it covers.",
    "dns": "Check the resolver and the record the failing names resolve to.",
    "crashloop": "Read the last output of the crashing process and its exit reason before restarting it.",
    "disk-io": "Find the workload issuing the I/O and check the volume's throughput and IOPS limits.",
    "saturation": "Find what fills the queue and add capacity or shed load.",
    "latency": "Follow the slow requests to the first component whose latency rose.",
    "errors": "Read the top error template and the first service that logged it.",
    UNKNOWN_CATEGORY: "Look at the earliest anomalous signal of the suspected service.",
}
