cmd: sim admission --scenario $DATA/../../examples/admission/admissible.json --alpha 2x
exit: 2
stderr: --alpha: '2x' is not a number
