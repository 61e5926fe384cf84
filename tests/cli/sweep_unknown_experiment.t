# Only qctl experiments (sim, mdp, design, sysid) can be swept.
cmd: sweep $DATA/../sweep/small.json --set 'experiment="proxy"' --results $TMP/r
exit: 2
stderr: experiment: 'proxy' is not a sweepable command
