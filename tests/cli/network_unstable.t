# An open network whose traffic saturates a station has no steady state:
# said before the run, exit 2.
cmd: sim network "$(printf '{"stations":[{"name":"a","service":"exp:1"}],"classes":[{"name":"x","arrival":"exp:1","entry":"a"}],"routing":{"x":{"a":{"a":0.5}}}}' > $TMP/n.json; echo $TMP/n.json)" --quiet
exit: 2
stderr: station "a": the open classes offer a load of 2
