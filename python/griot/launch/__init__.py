"""``griot up``: the whole system on one machine, with one command.

- :mod:`griot.launch.components`: the table of components (what runs, how each is checked) and
  :class:`UpConfig`, the settings it is filled from;
- :mod:`griot.launch.redis_discovery`: which ``redis-server`` runs, Redis URLs and PING;
- :mod:`griot.launch.processes`: ports, command lines, health probes, the parent-death wrapper;
- :mod:`griot.launch.supervisor`: start in order, wait for health, restart what dies, stop.
"""
