cmd: sim admission --scenario "$(echo '{"classes": [{"name": "a", "arrival": "exp:-1", "service": "exp:1", "bound": 3}]}' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: classes[0] (a): arrival
stderr: RATE
