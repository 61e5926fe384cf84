# One arrival process only.
cmd: load --target 127.0.0.1:9 --rate 5 --schedule 0:5 --duration 1
exit: 2
stderr: exactly one of --rate R (> 0), --arrival SPEC, --schedule S, --traffic MODEL or --users N
