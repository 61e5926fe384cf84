cmd: sim admission --scenario $DATA/../../examples/admission/admissible.json --policy fifo
exit: 2
stderr: --policy: 'fifo' is not autonomic
