cmd: sim admission --epsilon 0.1
exit: 2
stderr: --scenario is required
