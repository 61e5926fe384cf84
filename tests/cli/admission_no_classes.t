cmd: sim admission --scenario "$(echo '{"classes": []}' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: "classes" is empty
