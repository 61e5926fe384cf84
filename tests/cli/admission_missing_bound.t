cmd: sim admission --scenario "$(echo '{"classes": [{"name": "a", "arrival": "exp:0.3", "service": "exp:1"}]}' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: classes[0] (a): "bound" is missing
