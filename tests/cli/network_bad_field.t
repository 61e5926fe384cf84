# A wrong field is named by its path in the file, exit 2, before any run.
cmd: sim network "$(printf '{"stations":[{"name":"a","service":"exp:2","servers":0}],"classes":[{"name":"x","arrival":"exp:1","entry":"a"}]}' > $TMP/n.json; echo $TMP/n.json)" --quiet
exit: 2
stderr: n.json: stations[0].servers:
sh: printf '{"stations":[{"name":"a","service":"exp:2"}],"classes":[{"name":"x","arrival":"exp:1","entry":"b"}]}' > $TMP/m.json; "$QCTL" sim network $TMP/m.json 2>$TMP/e; [ $? -eq 2 ] && grep -q 'classes\[0\].entry: no station named "b"' $TMP/e
sh: printf '{"stations":[{"name":"a","service":"exp:2"}],"classes":[{"name":"x","arrival":"exp:1","entry":"a"}],"routing":{"x":{"a":{"a":0.7,"out":0.5}}}}' > $TMP/m.json; "$QCTL" sim network $TMP/m.json 2>$TMP/e; [ $? -eq 2 ] && grep -q 'routing.x.a: the probabilities sum to more than 1' $TMP/e
sh: printf '{"stations":[{"name":"a","service":"exp:2","sevrice":1}],"classes":[{"name":"x","arrival":"exp:1","entry":"a"}]}' > $TMP/m.json; "$QCTL" sim network $TMP/m.json 2>$TMP/e; [ $? -eq 2 ] && grep -q 'unknown field "sevrice"' $TMP/e
sh: "$QCTL" sim network $TMP/none.json 2>$TMP/e; [ $? -eq 2 ] && grep -q 'none.json' $TMP/e
sh: printf '{"stations":[{"name":"a","service":"exp:2","blocking":"after-service"}],"classes":[{"name":"x","arrival":"exp:1","entry":"a"}]}' > $TMP/m.json; "$QCTL" sim network $TMP/m.json 2>$TMP/e; [ $? -eq 2 ] && grep -q 'stations\[0\].blocking: needs a "capacity"' $TMP/e
sh: printf '{"stations":[{"name":"a","service":"exp:2","capacity":3,"blocking":"wait"}],"classes":[{"name":"x","arrival":"exp:1","entry":"a"}]}' > $TMP/m.json; "$QCTL" sim network $TMP/m.json 2>$TMP/e; [ $? -eq 2 ] && grep -q 'stations\[0\].blocking: must be "loss" or "after-service"' $TMP/e
