"""Benchmarks: `python -m benchmarks [ingest|recall|latency]` (default: all), figures printed."""
