cmd: sim admission --scenario "$(echo '{"classes": [{"name": "web", "arrival": "exp:0.3", "service": "exp:1", "best_effort": true}]}' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: no delay-bounded class
