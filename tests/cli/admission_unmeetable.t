# A bound below the least mean delay any priority can give: E[S]/(1 - rho) = 1/0.7
cmd: sim admission --scenario "$(echo '{"classes": [{"name": "a", "arrival": "exp:0.3", "service": "exp:1", "bound": 1.3}]}' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: class a: bound 1.3 cannot be met by any priority
