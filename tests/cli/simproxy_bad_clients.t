# Neither open- nor closed-loop clients.
cmd: sim proxy --workers 4
exit: 2
stderr: give --arrival SPEC (open loop) or --users N (closed loop)
