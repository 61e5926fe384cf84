cmd: sim admission --scenario "$(echo '{"classes": [{"name": "a", "arrival": "exp:0.3", "service": "exp:1", "bound": 3, "bund": 2}]}' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: unknown field "bund"
