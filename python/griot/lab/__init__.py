"""Griot across hosts on one machine: network namespaces on an isolated bridge in 198.18.0.0/15,
each running what deploy/docker-compose.yml runs, with Toxiproxy on every link to Redis and the
broker, for the fault tests (tests/lab), the latency bench (bench/lab_latency.py) and anyone who
wants to try a fault (``griot lab``; docs/LAB.md)."""

from griot.lab.lab import Lab
from griot.lab.layout import LabShape
from griot.lab.netns import LabError, sweep

__all__ = ["Lab", "LabError", "LabShape", "sweep"]
