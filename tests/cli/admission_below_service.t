# A bound below the class's own service time: unmeetable even on an idle server
cmd: sim admission --scenario "$(echo '{"classes": [{"name": "a", "arrival": "exp:0.01", "service": "exp:1", "bound": 0.9}]}' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: not above its own mean service time
