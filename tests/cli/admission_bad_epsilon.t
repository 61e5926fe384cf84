cmd: sim admission --scenario $DATA/../../examples/admission/admissible.json --epsilon -0.1
exit: 2
stderr: --epsilon: -0.1 is negative
