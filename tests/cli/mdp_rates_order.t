cmd: mdp removable --lambda 0.5 --rates 0.5,1.5,1 --power 1,2,4 --setup-rate 1
exit: 2
stderr: --rates: rates must increase strictly: element 3 (1) is not above element 2 (1.5)
