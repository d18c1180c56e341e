"""The GPU tools: make bench, profile, sanitize and autotune (python3 -m tools.perf.gputool), and the request
counts against Nsight Compute (python3 -m tools.perf.requests_ncu)."""
