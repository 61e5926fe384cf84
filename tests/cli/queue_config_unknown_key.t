# A --config key that is no flag of the command: refused naming the file
# and the key, exit 2, before anything runs.
cmd: sim queue --config "$DATA/sim_config/unknown_key.json"
exit: 2
stderr: unknown_key.json: unknown key "servce"
