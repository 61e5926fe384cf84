cmd: sim admission --scenario $DATA/../../examples/admission/admissible.json --alpha 0
exit: 2
stderr: --alpha: 0 must be > 0
