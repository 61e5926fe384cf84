# A service seed is one backend's sequence of draws: refused with two.
cmd: sim proxy --arrival exp:10 --backends 2 --service-seed 3 --time 1 --reps 2
exit: 2
stderr: service seed: one backend's sequence, but 2 backends
